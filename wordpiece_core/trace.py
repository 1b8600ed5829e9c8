"""The record of a whole merge training run: `Training` (its settings, words, initial vocabulary and steps).

The merge trainers (engine/, reference.py) never print. They return a `Training`; its `steps` (steps.py) hold
one `MergeStep` (records.py) per merge. A Unigram training is unigram/training.py's `UnigramTraining`; both
tell their shape the same way (algorithms.AnyTraining: step_count, start_size, tokens and how they mark a
word's parts).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import ClassVar

from . import reference
from .config import TrainerConfig
from .steps import Steps


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

    # What every algorithm's training tells of itself (algorithms.AnyTraining): its steps, its sizes, its tokens
    # and how they mark a word's parts.
    @property
    def step_count(self) -> int:
        return len(self.steps)

    @property
    def start_size(self) -> int:
        """The vocabulary the first step starts from (special tokens and the alphabet)."""
        return len(self.initial_vocab)

    @property
    def tokens(self) -> tuple[str, ...]:
        """The final vocabulary, by id."""
        return tuple(self.steps.tokens)

    @property
    def continuation(self) -> str | None:
        """The mark of a piece inside a word (WordPiece's ##), if any."""
        return self.config.prefix

    word_start: ClassVar[str | None] = None  # the mark of a piece that starts a word (none: merges mark the inside)

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
        words = sum(sys.getsizeof(w) for w in self.words) + 8 * len(self.words)
        counts = sum(sys.getsizeof(c) for c in self.counts) + 8 * len(self.counts)
        return self.steps.nbytes + words + counts

    def initial_split(self, word: str) -> list[str]:
        return reference.initial_split(word, self.config.prefix)
