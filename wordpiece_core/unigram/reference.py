"""Unigram as the Hugging Face course teaches it ("Unigram tokenization"): the plain, slow, readable version.

Unigram runs the other way from BPE and WordPiece. It starts from a big vocabulary and removes tokens:

1. Seed (`seed`): every character, plus the most frequent longer substrings of the words, each counted
   over every place it occurs (weighted by the word's count).
2. Model (`probabilities`): a token's probability is its count over the sum of all the vocabulary's counts.
3. Best split (`viterbi`): a word's split is the one whose tokens' probabilities multiply to the most. We add
   -log p instead of multiplying p, so the best split has the smallest sum (its *cost*).
4. Loss (`loss`): the sum over the corpus of count(word) × cost(word's best split).
5. Removal score (`removal_scores`): for each token longer than one character, how much the loss grows if
   the vocabulary loses that token (every word split again without it). Single characters always stay, so
   every word can still be split.
6. Round (`train`): remove the `prune_percent` % of the vocabulary with the smallest removal scores,
   recompute the probabilities over the tokens left (their seed counts, renormalised), and repeat while the
   vocabulary is larger than the target.

Ties (the `course` rule's tie rule, the course code's): a split replaces the best one found so far at a
position only if it is strictly cheaper, trying start positions left to right and, at each, shorter tokens
first; the removal order sorts by score with a stable sort, so equal scores keep the vocabulary's order
(characters in order of first appearance, then substrings by count, equal counts in order of first
appearance).

Where the course's numbers are not the model's, `COURSE_ERRATA` says so; every function here computes the
model's true values, and `course_cost` gives the value the course's code prints.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from .defaults import COURSE_PRUNE, COURSE_SEED
from .records import Round

from ..special_tokens import UNK_PIECE as UNK
COURSE_START = 1.0  # the course's code starts each word's Viterbi score at 1 instead of 0

# Where the course ("Unigram tokenization", Hugging Face NLP course, chapter 6) and its model differ. The
# page shows the arithmetic beside each; tests/test_unigram_golden.py checks every figure.
COURSE_ERRATA = {
    "pug": "Its P(\"p\") and P(\"pu\") use 5/210, but its own table gives both 17/210, so the three printed "
           "probabilities of pug's splits (0.000389, 0.0022676, 0.0022676) are not the model's "
           "(0.001322, 0.007710, 0.007710).",
    "start": "Its code starts each word's Viterbi score at 1 instead of 0, so every printed word score and the "
             "printed loss are larger by one per word occurrence (413.10 is 382.10 + 31 words). Removal scores "
             "are differences, so they and the pruning are unaffected.",
    "ties": "Its prose splits the tied words one way (pu g, pu n, bu n, hug s) while its code keeps the first "
            "split found when another costs the same (p ug, p un, b un, h ugs); the scores are equal.",
    "seed": "Its worked example starts from the strict substrings of the words (hug, inside hugs, is in; pug is "
            "not), while its code also takes whole words (it splits Hugging as ▁Hugging because the whole word "
            "was seeded).",
    "round": "Its loop removes int(10 % of the size) tokens a round: at fewer than 10 tokens that is none and the "
             "loop never ends; here a round removes at least one. Its loop stops at 98 tokens for a target of 100, "
             "as its last round removes int(10.8) = 10 of 108. When a round should remove more tokens than there "
             "are candidates, its code stops with an IndexError; here the round removes them all.",
    "seed size": "A seed size below the number of characters makes its slice [:300 - len(chars)] negative, which "
                 "keeps all but the last few substrings; here the seed is then the characters alone.",
}


def substrings(word: str, whole: bool) -> Iterable[str]:
    """The substrings of `word` of two or more characters, left to right, shorter first at each start; with
    `whole`, the word itself among them."""
    n = len(word)
    for i in range(n):
        for j in range(i + 2, n + 1):
            if whole or j - i < n:
                yield word[i:j]


def seed(word_counts: Mapping[str, int], seed_size: int | None = None, whole_words: bool = True) -> dict[str, int]:
    """The initial vocabulary with each token's count: every character, then the most frequent longer substrings
    (whole words among them, as the course's code does; `whole_words=False` keeps only strict substrings of
    some word, as the course's worked example on the toy corpus does) until `seed_size` tokens.

    A count is every occurrence in the corpus: "hug" counts 10 in hug and 5 in hugs."""
    chars: dict[str, int] = {}
    longer: dict[str, int] = {}
    for word, count in word_counts.items():
        for c in word:
            chars[c] = chars.get(c, 0) + count
        for s in substrings(word, whole=True):
            longer[s] = longer.get(s, 0) + count
    if not whole_words:  # a strict substring of some word: shorter than a word that holds it
        strict = {s for word in word_counts for s in substrings(word, whole=False)}
        longer = {s: c for s, c in longer.items() if s in strict}
    ranked = sorted(longer.items(), key=lambda item: item[1], reverse=True)  # stable: ties keep first appearance
    room = len(ranked) if seed_size is None else max(0, seed_size - len(chars))
    return {**chars, **dict(ranked[:room])}


def probabilities(counts: Mapping[str, int]) -> dict[str, float]:
    """Each token's cost, -log(count / total): the model the course's code keeps."""
    total = sum(counts.values())
    return {token: -math.log(count / total) for token, count in counts.items()}


@dataclass(frozen=True)
class Cell:
    """The best split of a word's first `end` characters: its cost and where its last token starts."""
    end: int
    start: int | None  # None: no split reaches here
    cost: float | None


def viterbi(word: str, costs: Mapping[str, float], start_cost: float = 0.0) -> tuple[list[str], float | None, list[Cell]]:
    """The word's cheapest split (the course's `encode_word`), its cost, and the table of the best split ending at
    each position. A word no split reaches is [UNK] with cost None. The cost starts at 0; the course's code starts
    it at 1 (`start_cost=1` gives its printed values)."""
    best: list[tuple[int | None, float | None]] = [(0, start_cost)] + [(None, None)] * len(word)
    for start in range(len(word)):
        at_start = best[start][1]
        if at_start is None:
            continue
        for end in range(start + 1, len(word) + 1):
            token = word[start:end]
            if token in costs:
                cost = at_start + costs[token]
                known = best[end][1]
                if known is None or cost < known:  # strictly cheaper: the first found stays on a tie
                    best[end] = (start, cost)
    table = [Cell(end, start, cost) for end, (start, cost) in enumerate(best)][1:]
    if best[-1][1] is None:
        return [UNK], None, table
    tokens, end = [], len(word)
    while end > 0:
        begin = best[end][0]
        assert begin is not None
        tokens.append(word[begin:end])
        end = begin
    return tokens[::-1], best[-1][1], table


def loss(word_counts: Mapping[str, int], costs: Mapping[str, float], start_cost: float = 0.0) -> float:
    """count(word) × cost(best split), summed over the corpus in its order (the negative log-likelihood). With
    `start_cost=1`, the course code's value: larger by one per word occurrence."""
    total = 0.0
    for word, count in word_counts.items():
        cost = viterbi(word, costs, start_cost)[1]
        total += count * (math.inf if cost is None else cost)
    return total


def removal_scores(word_counts: Mapping[str, int], costs: Mapping[str, float]) -> dict[str, float]:
    """How much the loss grows without each token of two or more characters, every word split again (exact).

    The +1 per word of the course's code cancels in the difference; it is kept in both losses so the digits
    are the course's to the last one (floating-point sums depend on what they add)."""
    base = loss(word_counts, costs, COURSE_START)
    return {token: loss(word_counts, {t: c for t, c in costs.items() if t != token}, COURSE_START) - base
            for token in costs if len(token) > 1}


def train(word_counts: Mapping[str, int], vocab_size: int, seed_size: int = COURSE_SEED, prune_percent: float = COURSE_PRUNE,
          whole_words: bool = True, progress: Callable[[int, int], None] | None = None
          ) -> tuple[dict[str, int], list[Round]]:
    """The course's loop: while the vocabulary is larger than `vocab_size`, remove int(size × p %) of it (at
    least one), the tokens with the smallest removal scores. Returns the final counts and the rounds
    (`progress(rounds done, about how many in all)` after each)."""
    counts = seed(word_counts, seed_size, whole_words)
    rounds: list[Round] = []
    while len(counts) > vocab_size:
        costs = probabilities(counts)
        scores = sorted(removal_scores(word_counts, costs).items(), key=lambda item: item[1])  # stable
        if not scores:  # only single characters are left: they always stay
            break
        n = max(1, int(len(counts) * prune_percent / 100))
        removed = [token for token, _ in scores[:n]]
        rounds.append(Round(len(rounds) + 1, dict(counts), loss(word_counts, costs),
                            loss(word_counts, costs, COURSE_START), scores, removed))
        for token in removed:
            del counts[token]
        if progress is not None:
            left = len(counts) - vocab_size
            progress(len(rounds), len(rounds) + max(0, math.ceil(math.log(max(1, left)) / -math.log1p(-prune_percent / 100)))
                     if left > 0 and prune_percent < 100 else len(rounds))
    return counts, rounds


def tokenize(words: Iterable[str], costs: Mapping[str, float]) -> list[str]:
    """Each word's best split, concatenated."""
    return [token for word in words for token in viterbi(word, costs)[0]]
