"""Short ways to train in the tests: each builds a TrainerConfig and calls the one way in, `wordpiece_core.train`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from wordpiece_core import TrainerConfig, Training, train
from wordpiece_core.config import TieBreak

WordCounts = Mapping[str, int] | Iterable[tuple[str, int]]


def train_wordpiece(word_counts: WordCounts, vocab_size: int, *, special_tokens: Iterable[str] = (),
                    min_frequency: int = 0, tie_break: TieBreak = "first", min_score: Fraction | float | None = None,
                    prefix: str = "##", top_k: int = 10) -> Training:
    return train(word_counts, TrainerConfig(
        algorithm="wordpiece", vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=tuple(special_tokens),
        tie_break=tie_break, prefix=prefix, min_score=None if min_score is None else Fraction(min_score), top_k=top_k))


def train_bpe(word_counts: WordCounts, vocab_size: int, *, special_tokens: Iterable[str] = (), min_frequency: int = 0,
              tie_break: TieBreak = "first", prefix: str | None = None, top_k: int = 10,
              full_byte_alphabet: bool = False) -> Training:
    return train(word_counts, TrainerConfig(
        algorithm="bpe", vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=tuple(special_tokens),
        tie_break=tie_break, prefix=prefix, top_k=top_k, full_byte_alphabet=full_byte_alphabet))
