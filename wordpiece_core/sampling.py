"""Realistic text from real word frequencies (the `wordfreq` package, offline).

Used to build the sample corpora and the benchmark's 2-million-token text:
words are drawn independently from a language's frequency list, so the
word-count distribution is real (Zipfian) even though the sentences are not.
Deterministic for a given seed. Imported only where needed: `wordfreq` is not
on the training path.
"""

from __future__ import annotations

import random


def word_frequencies(lang: str, top_n: int) -> list[tuple[str, float]]:
    import wordfreq

    words = wordfreq.top_n_list(lang, top_n)
    return [(w, wordfreq.word_frequency(w, lang)) for w in words]


def sample_lines(lang: str, n_tokens: int, *, top_n: int = 50_000, seed: int = 0,
                 words_per_line: int = 20) -> list[str]:
    """`n_tokens` words drawn by frequency, `words_per_line` to a line."""
    freqs = word_frequencies(lang, top_n)
    words = [w for w, _ in freqs]
    weights = [f for _, f in freqs]
    rng = random.Random(seed)
    drawn = rng.choices(words, weights=weights, k=n_tokens)
    return [" ".join(drawn[i : i + words_per_line]) for i in range(0, n_tokens, words_per_line)]


def expected_counts(lang: str, top_n: int, corpus_tokens: int = 1_000_000) -> dict[str, int]:
    """Word counts a corpus of `corpus_tokens` words would have (at least 1 each)."""
    return {w: max(1, round(f * corpus_tokens)) for w, f in word_frequencies(lang, top_n)}
