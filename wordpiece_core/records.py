"""Trace records: one merge (`MergeStep`) and one candidate pair (`Candidate`), as immutable data, and their arithmetic.

Each record keeps the score as its parts, count(ab), count(a), count(b), so a viewer can write the
arithmetic out (``5 / (20 × 5) = 1/20``) without computing anything. One shape serves both merge algorithms (a Unigram round's records are
unigram/records.py's):

- WordPiece: score = count(ab) / (count(a) × count(b)).
- BPE: score = count(ab). count(a) and count(b) are still recorded.

The arithmetic a viewer needs beyond the score is here too: the exact fraction as text and the
change of the corpus' unigram log-likelihood a merge makes.
"""

from __future__ import annotations

import decimal
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
    total: int, left_count: int, right_count: int, merged_count: int, same: bool, new_count: int = 0,
    new_is_left: bool = False, new_is_right: bool = False,
) -> float:
    """Exact change of the corpus' unigram log-likelihood (natural log) if a merge happens, to the float's
    precision for any counts.

    With counts c and N = Σc, log L = Σ c·log c − N·log N. A merge applied M times
    (weighted by word frequency) takes M from count(a) and count(b) (2M from
    count(a) if a == b), adds M to count(ab), and takes M from N. The new token may be
    the same string as a or b (`##` + `##a` → `##a`): its M then goes back to that token,
    whose count moves once, by the sum (`new_is_left`, `new_is_right`).

    Each token's term, (x+d)·log(x+d) − x·log x, is written as x·log1p(d/x) + d·log(x+d):
    subtracting two large products would lose the digits that matter (at counts near 2^54,
    0.0 for an exact 0.69).
    """
    m = merged_count
    left_d = -2 * m if same else -m
    right_d = 0 if same else -m
    new_d = m
    if new_is_left:  # the new token is a: its M goes back to a
        left_d, new_d = left_d + m, 0
    elif new_is_right:  # the new token is b (the same token as a when same)
        if same:
            left_d += m
        else:
            right_d += m
        new_d = 0
    terms = (_xlogx_change(left_count, left_d), _xlogx_change(right_count, right_d),
             _xlogx_change(new_count, new_d), -_xlogx_change(total, -m))
    delta = terms[0] + terms[1] + terms[2] + terms[3]
    # Each term is right to a few ulps of itself; when they cancel to far less than their size, those ulps
    # are the answer's leading digits: then recount in 80-digit decimals (rare: huge counts, merges that
    # take nearly every occurrence).
    if abs(delta) < CANCELLATION * (abs(terms[0]) + abs(terms[1]) + abs(terms[2]) + abs(terms[3])):
        return float(_decimal_change(((left_count, left_d), (right_count, right_d), (new_count, new_d)), total, m))
    return delta


CANCELLATION = 1e-3  # a sum smaller than this share of its terms' sizes is recounted in decimals


def _decimal_change(changes: tuple[tuple[int, int], ...], total: int, m: int) -> decimal.Decimal:
    with decimal.localcontext() as ctx:
        ctx.prec = 80

        def xlogx(c: int) -> decimal.Decimal:
            return decimal.Decimal(0) if c <= 0 else decimal.Decimal(c) * decimal.Decimal(c).ln()

        out = sum((xlogx(x + d) - xlogx(x) for x, d in changes if d), decimal.Decimal(0))
        return out - (xlogx(total - m) - xlogx(total))


def _xlogx_change(x: int, d: int) -> float:
    """(x+d)·log(x+d) − x·log x (0·log 0 = 0), without subtracting two large numbers."""
    if d == 0:
        return 0.0
    y = x + d
    if x == 0:
        return y * math.log(y)
    if y == 0:
        return -x * math.log(x)
    ratio = d / x
    if -0.5 < ratio < 0.5:  # x·log((x+d)/x) + d·log(x+d), log1p keeping the small ratio's digits
        return x * math.log1p(ratio) + d * math.log(y)
    return x * math.log(y / x) + d * math.log(y)  # (y/x far from 1: no digits to lose; d/x → −1.0 not taken)


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
