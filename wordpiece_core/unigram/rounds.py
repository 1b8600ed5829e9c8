"""What the Train page shows of a Unigram round, computed from the training: the model a round starts from and
the one it leaves, a word's best split with each piece's log-probability, and the words whose split changed.

- `course` rule: round k's model is its vocabulary's counts, renormalised (reference.probabilities);
  the model it leaves is the same counts without the removed pieces (the next round's start).
- `tokenizers` rule: round k's model is its vocabulary after EM (the one the pruning read); the model it
  leaves is the next round's after EM (the pruning's effect, re-estimated), or the final vocabulary.
Splits follow each rule's own Viterbi (and its tie rule).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from . import em
from .records import EMRound, Round
from .reference import probabilities, viterbi
from .training import UnigramTraining

from ..special_tokens import UNK_PIECE as UNKNOWN


@dataclass(frozen=True)
class Split:
    """A word's best split: its pieces and each one's log-probability (natural log)."""

    word: str
    pieces: tuple[str, ...]
    log_probs: tuple[float, ...]

    @property
    def cost(self) -> float:
        """-Σ log p: the word's share of the loss, once per occurrence."""
        return -math.fsum(self.log_probs)

    @property
    def probability(self) -> float:
        return math.exp(-self.cost)


class RoundModel:
    """One model of the training: a word's best split under it."""

    def __init__(self, pieces: list[tuple[str, float]] | None = None, counts: dict[str, int] | None = None) -> None:
        self.course = counts is not None
        if counts is not None:
            self.costs = probabilities(counts)
            self.size = len(counts)
        else:
            assert pieces is not None
            self.model = em.Model(pieces)
            self.size = len(pieces) - 1  # without the trainer's <UNK>
        self._cache: dict[str, Split] = {}

    def split(self, word: str) -> Split:
        found = self._cache.get(word)
        if found is not None:
            return found
        if self.course:
            tokens, _, _ = viterbi(word, self.costs)
            logs = tuple(-self.costs[t] if t in self.costs else -math.inf for t in tokens)
            result = Split(word, tuple(tokens), logs)
        else:
            edges = self.model.lattice(word)
            ids, _ = em.viterbi(len(word), edges)
            pieces: list[str] = []
            found_logs: list[float] = []
            pos = 0
            by_start = {(b, i): (e, s) for b, e, i, s in edges}
            for i in ids:
                e, s = by_start[(pos, i)]
                pieces.append(UNKNOWN if i == 0 else word[pos:e])
                found_logs.append(s)
                pos = e
            result = Split(word, tuple(pieces), tuple(found_logs))
        if len(self._cache) < 50_000:
            self._cache[word] = result
        return result

    def log_prob(self, piece: str) -> float | None:
        if self.course:
            return -self.costs[piece] if piece in self.costs else None
        i = self.model.ids.get(piece)
        return self.model.pieces[i][1] if i is not None else None


def round_model(training: UnigramTraining, number: int) -> RoundModel:
    """The model round `number` (1-based) starts from: the course rule's counts, the tokenizers rule's after EM."""
    r = training.rounds[number - 1]
    if isinstance(r, Round):
        return RoundModel(counts=dict(r.counts))
    return RoundModel(pieces=list(r.pieces))


def before_and_after(training: UnigramTraining, number: int) -> tuple[RoundModel, RoundModel]:
    """Round `number`'s model (1-based) and the one it leaves."""
    rounds = training.rounds
    r = rounds[number - 1]
    before = round_model(training, number)
    if isinstance(r, Round):
        removed = set(r.removed)
        return before, RoundModel(counts={t: c for t, c in r.counts.items() if t not in removed})
    if number < len(rounds):
        return before, round_model(training, number + 1)
    specials = set(training.config.special_tokens)
    final = [(em.TRAINING_UNK, math.nan)] + [(p, s) for p, s in training.pieces if p not in specials]
    return before, RoundModel(pieces=final)


def changed_splits(training: UnigramTraining, number: int, words: Iterable[tuple[str, int]]
                   ) -> list[tuple[str, int, Split, Split]]:
    """The words (of `words`, in their order) whose best split round `number` changed: before and after."""
    before, after = before_and_after(training, number)
    changed = []
    for word, count in words:
        a, b = before.split(word), after.split(word)
        if a.pieces != b.pieces:
            changed.append((word, count, a, b))
    return changed


def loss_series(training: UnigramTraining) -> list[tuple[int, int, float]]:
    """Each round's (number, vocabulary size at its start, loss): the course rule's corpus loss (the model's,
    the sum of count × cost), the tokenizers rule's EM objective after the round's EM (the average negative
    log-likelihood of a word occurrence)."""
    rows = []
    for r in training.rounds:
        if isinstance(r, Round):
            rows.append((r.number, len(r.counts), r.loss))
        else:
            rows.append((r.number, r.em[0].size_before - 1 if r.em else len(r.pieces) - 1,
                         r.em[-1].objective if r.em else math.nan))
    return rows


def exact_increases(training: UnigramTraining, number: int, pieces: Iterable[str],
                    words: Iterable[tuple[str, int]]) -> dict[str, float]:
    """Under the tokenizers rule, each piece's exact loss increase (the course's removal score) in round
    `number`'s model after EM: every word that holds the piece split again without it, Σ count × (new cost −
    cost), over the word occurrences (nats a word, as the round's estimates). For a few pieces at a time: one
    pass over the words per piece."""
    r = training.rounds[number - 1]
    assert isinstance(r, EMRound)
    base = em.Model(list(r.pieces))
    words = list(words)
    total = sum(c for _, c in words) or 1
    out: dict[str, float] = {}
    for piece in pieces:
        without = em.Model([r.pieces[0]] + [(p, s) for p, s in r.pieces[1:] if p != piece])  # <UNK> stays
        grow = 0.0
        for word, count in words:
            if piece in word:
                before = em.viterbi(len(word), base.lattice(word))[1]
                after = em.viterbi(len(word), without.lattice(word))[1]
                grow += count * (before - after)
        out[piece] = grow / total
    return out


@dataclass(frozen=True)
class Choice:
    """A candidate a class votes on, with what a student reasons from: its probability in the round's model (and
    its count, under the course rule), the most frequent words it is in, and what spells it once it is gone."""

    piece: str
    loss_increase: float  # what removing it costs (the answer: hidden until the reveal)
    probability: float
    count: int | None  # the course rule's count (its probability is count / total); None under tokenizers'
    words: tuple[tuple[str, int], ...]  # the most frequent words that hold it, with their counts
    without: tuple[str, ...]  # its own best split once it is removed (tokenizers: the pruning's alternatives)


def spread_choices(costs: list[tuple[str, float]], limit: int) -> list[tuple[str, float]]:
    """Up to `limit` candidates whose costs differ, cheapest first: the cheapest, then one of each further cost
    (`costs` cheapest first), spread over the list, so that exactly one is right. Fewer than two distinct
    costs: [] (every candidate costs the same; nothing to vote on)."""
    distinct: dict[float, tuple[str, float]] = {}
    for piece, cost in costs:
        distinct.setdefault(round(cost, 9), (piece, cost))
    ranked = list(distinct.values())
    if len(ranked) < 2:
        return []
    if len(ranked) <= limit:
        return ranked
    step = (len(ranked) - 1) / (limit - 1)
    return [ranked[round(k * step)] for k in range(limit)]


def choices(training: UnigramTraining, number: int, costs: list[tuple[str, float]], limit: int,
            words: Iterable[tuple[str, int]], per_piece: int = 3) -> list[Choice]:
    """Round `number`'s vote: up to `limit` of `costs` (piece, loss increase; cheapest first) with distinct costs
    (`spread_choices`), each explained from the round's model and `words` (most frequent first)."""
    picked = spread_choices(costs, limit)
    r = training.rounds[number - 1]
    model = round_model(training, number)
    frequent = list(words)
    alternatives: dict[str, tuple[str, ...]] = {}
    if isinstance(r, EMRound) and r.pruning is not None:
        alternatives = dict(zip(r.pruning.pieces, r.pruning.alternatives))
    out = []
    for piece, cost in picked:
        log_prob = model.log_prob(piece)
        if isinstance(r, Round):
            costs_without = {t: c for t, c in model.costs.items() if t != piece}
            without = tuple(viterbi(piece, costs_without)[0])
            count: int | None = r.counts.get(piece)
        else:
            without, count = alternatives.get(piece, ()), None
        holding = tuple((w, c) for w, c in frequent if piece in w)[:per_piece]
        out.append(Choice(piece, cost, math.exp(log_prob) if log_prob is not None else 0.0, count, holding,
                          without))
    return out
