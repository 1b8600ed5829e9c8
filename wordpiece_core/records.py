"""Trace records: one merge (`MergeStep`) and one candidate pair (`Candidate`), as immutable data, and their arithmetic.

Each record keeps the score as its parts, count(ab), count(a), count(b), so a viewer can write the
arithmetic out (``5 / (20 × 5) = 1/20``) without computing anything. One shape serves both algorithms:

- WordPiece: score = count(ab) / (count(a) × count(b)).
- BPE: score = count(ab). count(a) and count(b) are still recorded.

The arithmetic a viewer needs beyond the score is here too: the exact fraction as text and the
change of the corpus' unigram log-likelihood a merge makes.
"""

from __future__ import annotations

import math
from math import gcd
from dataclasses import dataclass, field
from fractions import Fraction

from . import reference

exact_score = reference.score  # BPE: count(ab); WordPiece: count(ab) / (count(a) × count(b))


def exact_text(x: Fraction) -> str:
    """A fraction as the trace and the app write it: '1/15', or '20' when whole."""
    n, d = x.numerator, x.denominator  # what str(Fraction) gives, without its slow path
    return str(n) if d == 1 else f"{n}/{d}"


def score_terms(num: int, den: int) -> tuple[float, str]:
    """The score num / den (count(ab) over count(a) × count(b), or over 1 for BPE) as the trace writes it,
    without making a Fraction: its float, as JSON writes the Fraction's, and `exact_text` of it."""
    g = gcd(num, den)
    n, d = num // g, den // g
    return num / den, (str(n) if d == 1 else f"{n}/{d}")


def loglik_change(
    total: int, left_count: int, right_count: int, merged_count: int, same: bool, new_count: int = 0
) -> float:
    """Exact change of the corpus' unigram log-likelihood (natural log) if a merge happens.

    With counts c and N = Σc, log L = Σ c·log c − N·log N. A merge applied M times
    (weighted by word frequency) takes M from count(a) and count(b) (2M from
    count(a) if a == b), adds M to count(ab), and takes M from N.
    """
    m = merged_count
    log = math.log  # x·log x is written out (0 for x = 0): this runs for every candidate written
    a_after = left_count - 2 * m if same else left_count - m
    delta = (a_after * log(a_after) if a_after > 0 else 0.0) - (left_count * log(left_count) if left_count > 0 else 0.0)
    if not same:
        b_after = right_count - m
        delta += (b_after * log(b_after) if b_after > 0 else 0.0) - (right_count * log(right_count) if right_count > 0 else 0.0)
    made = new_count + m
    delta += (made * log(made) if made > 0 else 0.0) - (new_count * log(new_count) if new_count > 0 else 0.0)
    rest = total - m
    delta -= (rest * log(rest) if rest > 0 else 0.0) - (total * log(total) if total > 0 else 0.0)
    return delta


def record(cls, **fields):
    """A frozen dataclass instance made without its __init__.

    A frozen dataclass's __init__ sets every field through object.__setattr__;
    the trainer makes one step (and K candidates) per merge, and this is ten
    times faster. Every field must be given (tests/test_records.py checks
    the trainer's records field by field).
    """
    obj = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


@dataclass(frozen=True)
class Candidate:
    """One pair that could be merged at a step, with its score's parts."""

    left: str
    right: str
    new_token: str
    pair_count: int
    left_count: int
    right_count: int
    score: Fraction
    rank: int  # 1 = the pair chosen
    loglik_delta: float  # exact change of the unigram log-likelihood
    vocab_size_before: int

    @property
    def score_float(self) -> float:
        return float(self.score)

    @property
    def scaled_score(self) -> float:
        """The variant of the tutorial “WordPiece Tokenization: A BPE Variant”: the score × the current vocabulary size (same order)."""
        return float(self.score * self.vocab_size_before)


@dataclass(frozen=True)
class MergeStep:
    """One merge: the pair chosen, why, and what it changed."""

    step: int  # 1-based
    left: str
    right: str
    new_token: str
    left_id: int
    right_id: int
    new_id: int
    pair_count: int
    left_count: int
    right_count: int
    score: Fraction
    ties: int  # how many pairs shared the best score (1 = no tie)
    vocab_size: int  # after this step
    new_token_existed: bool  # the merge produced a token already in the vocabulary
    merged_count: int  # occurrences merged, weighted by word frequency
    loglik_delta: float
    words_touched: tuple[int, ...] = field(repr=False)  # word indices, ascending
    candidates: tuple[Candidate, ...] = field(repr=False)  # top-K, best first

    @property
    def score_float(self) -> float:
        return float(self.score)

    @property
    def vocab_size_before(self) -> int:
        return self.vocab_size - (0 if self.new_token_existed else 1)

    @property
    def scaled_score(self) -> float:
        return float(self.score * self.vocab_size_before)
