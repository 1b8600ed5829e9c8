"""WordPiece training, as the Hugging Face course's “WordPiece tokenization” describes it.

Each word starts as its first character plus ``##`` on every other character.
The vocabulary starts as the special tokens, then that alphabet sorted by code
point. At every step the pair with the best

    score(a, b) = count(ab) / (count(a) × count(b))

is merged (counts over the current splits, weighted by word frequency), and the
new token is a + b without b's ``##``. Training stops at the vocabulary size,
when no pair is left, or when the best score falls below `min_score` (the threshold of
the tutorial “WordPiece Tokenization: A BPE Variant”). `min_frequency` ignores rarer pairs (as the
tutorial “WordPiece from scratch” and Michael Brenndoerfer's likelihood article do).

The tutorial “WordPiece Tokenization: A BPE Variant” multiplies the score by the current vocabulary size; that scales every
score of a step alike, so the winner never changes (the trace keeps it as
`scaled_score`, for teaching).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from .merging import Progress, train
from .trace import TieBreak, TrainerConfig, Training


def train_wordpiece(
    word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
    vocab_size: int,
    *,
    special_tokens: Iterable[str] = (),
    min_frequency: int = 0,
    tie_break: TieBreak = "first",
    min_score: Fraction | float | None = None,
    prefix: str = "##",
    top_k: int = 10,
    progress: Progress | None = None,
) -> Training:
    config = TrainerConfig(
        algorithm="wordpiece",
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=tuple(special_tokens),
        tie_break=tie_break,
        prefix=prefix,
        min_score=None if min_score is None else Fraction(min_score),
        top_k=top_k,
    )
    return train(word_counts, config, progress)
