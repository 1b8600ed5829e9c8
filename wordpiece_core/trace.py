"""Trace records: what training did, step by step, as immutable data.

The trainers never print. They return a `Training`: the settings, the words,
the initial vocabulary, and one `MergeStep` per merge. Each step keeps the
score as its parts, count(ab), count(a), count(b), so a viewer can write the
arithmetic out (``5 / (20 × 5) = 1/20``) without computing anything.

One shape serves both algorithms:

- WordPiece: score = count(ab) / (count(a) × count(b)).
- BPE: score = count(ab). count(a) and count(b) are still recorded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Literal, get_args
from . import reference

if TYPE_CHECKING:
    from .steps import Steps

Algorithm = Literal["wordpiece", "bpe"]
TieBreak = Literal["first", "hf"]
ALGORITHMS: tuple[Algorithm, ...] = get_args(Algorithm)
TIE_BREAKS: tuple[TieBreak, ...] = get_args(TieBreak)

TIE_RULES = {
    "first": "the pair seen first when scanning words in order of first appearance, left to right (the course)",
    "hf": "the pair with the smallest (id of left, id of right), as Hugging Face's BpeTrainer does",
}


exact_score = reference.score  # BPE: count(ab); WordPiece: count(ab) / (count(a) × count(b))


def strip_prefix(token: str, prefix: str | None) -> str:
    """The token without its continuing-subword prefix (##ug → ug); other tokens as they are."""
    return token[len(prefix):] if prefix and token.startswith(prefix) else token


def merge_token(left: str, right: str, prefix: str | None) -> str:
    """The token a merge makes: a + b, without b's continuing-subword prefix."""
    return left + strip_prefix(right, prefix)


def exact_text(x: Fraction) -> str:
    """A fraction as the trace and the app write it: '1/15', or '20' when whole."""
    n, d = x.numerator, x.denominator  # what str(Fraction) gives, without its slow path
    return str(n) if d == 1 else f"{n}/{d}"


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
    times faster. Every field must be given (tests/test_fast_paths.py checks
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


@dataclass(frozen=True)
class TrainerConfig:
    """Everything that decides a training run (the trace is a function of this and the words).

    `merging.train(word_counts, config)` is the one way to train. The two algorithms:

    - **WordPiece** (the Hugging Face course's “WordPiece tokenization”): each word starts as its
      first character and ``##`` + every other character; at every step the pair with the best
      count(ab) / (count(a) × count(b)) merges (counts over the current splits, weighted by word
      frequency), and the new token is a + b without b's ``##``. `min_score` stops training when
      the best score falls below it (the threshold of the tutorial “WordPiece Tokenization: A BPE
      Variant”, which also multiplies every score by the vocabulary size: the same winner, kept
      in the trace as `scaled_score`).
    - **BPE** (the course's “Byte-Pair Encoding tokenization”): words start as their characters
      and the most frequent pair merges. With `prefix="##"` it is what Hugging Face's
      `WordPieceTrainer` really trains: BPE on words written ``w ##o ##r ##d``, whose alphabet
      also holds every character on its own. With `tie_break="hf"` its merges are exactly
      `BpeTrainer`'s.

    Both start from the special tokens, then the alphabet sorted by code point; `min_frequency`
    leaves rarer pairs unmerged.
    """

    algorithm: Algorithm = "wordpiece"
    vocab_size: int = 1000
    min_frequency: int = 0
    special_tokens: tuple[str, ...] = ()
    tie_break: TieBreak = "first"
    prefix: str | None = "##"  # continuing-subword prefix (None = no prefix)
    min_score: Fraction | None = None  # stop when the best score falls below this
    top_k: int = 10  # candidates recorded per step
    full_byte_alphabet: bool = False  # byte-level: start from all 256 byte characters, not only those seen

    @property
    def description(self) -> str:
        kind = "WordPiece" if self.algorithm == "wordpiece" else "BPE"
        if self.algorithm == "bpe" and self.prefix:
            kind += f" with {self.prefix!r} prefix"
        return f"{kind}, vocabulary {self.vocab_size}, tie-break {self.tie_break}"


@dataclass(frozen=True)
class Training:
    """The complete record of one training run.

    `steps` is a `Steps` (steps.py): a sequence of `MergeStep` records stored as
    flat columns, so a long training weighs a few MB and no cache has to walk
    millions of small objects.
    """

    config: TrainerConfig
    words: tuple[str, ...]
    counts: tuple[int, ...]
    initial_vocab: tuple[str, ...]  # special tokens, then the alphabet by code point
    steps: Steps
    stop_reason: str

    @property
    def vocab(self) -> list[str]:
        """Every token, by id: the initial vocabulary, then each new merge result."""
        return list(self.steps.tokens)

    @property
    def merges(self) -> list[tuple[str, str]]:
        return list(zip(self.steps.lefts(), self.steps.rights()))

    def vocab_at(self, step: int) -> list[str]:
        """The vocabulary after `step` merges."""
        if step <= 0 or not len(self.steps):
            return list(self.initial_vocab)
        return list(self.steps.tokens[: self.steps.vocab_size[min(step, len(self.steps)) - 1]])

    @property
    def nbytes(self) -> int:
        """About how much memory this training holds (for the app's cache budget)."""
        import sys

        words = sum(sys.getsizeof(w) for w in self.words) + 8 * len(self.words)
        counts = sum(sys.getsizeof(c) for c in self.counts) + 8 * len(self.counts)
        return self.steps.nbytes + words + counts

    def initial_split(self, word: str) -> list[str]:
        prefix = self.config.prefix
        if not prefix:
            return list(word)
        return [word[0]] + [prefix + ch for ch in word[1:]]
