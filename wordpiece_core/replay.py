"""Replay a training to any step: the corpus splits and the full candidate table.

The trace keeps only the top-K candidates per step; a viewer that wants the
whole table, or the splits of every word, at step s rebuilds them here from the
merges, and the pairs are recounted the plain way. A word's split at step s is
its first s − 1 merges applied in rank order (`apply_ranked`; for merges a
trainer produced this gives exactly the training's splits). `splits_at` gets the
same splits faster: each step's merge is applied only to the words the trace
says it touched, on splits written one character per token id (as the trainer
keeps them), so a merge is one C string replace per touched word.
"""

from __future__ import annotations


from . import reference
from .records import Candidate, loglik_change
from .reference import new_token
from .trace import Training


def apply_ranked(symbols: list[str], ranks: dict[tuple[str, str], int], prefix: str | None) -> list[str]:
    """Apply merges by rank: repeatedly merge every occurrence of the best-ranked pair present."""
    symbols = list(symbols)
    while len(symbols) > 1:
        best = None
        best_rank = None
        for pair in zip(symbols, symbols[1:]):
            r = ranks.get(pair)
            if r is not None and (best_rank is None or r < best_rank):
                best, best_rank = pair, r
        if best is None:
            break
        symbols = merge_everywhere(symbols, best[0], best[1], new_token(best[0], best[1], prefix))
    return symbols


merge_everywhere = reference.merge  # replace every occurrence of the pair (a, b), left to right


def _ranks(training: Training, step: int) -> dict[tuple[str, str], int]:
    """The merges before `step`, pair → rank (read from the trace's columns, no records made)."""
    steps = training.steps
    n = max(0, min(step - 1, len(steps)))
    return {pair: i for i, pair in enumerate(zip(steps.lefts()[:n], steps.rights()[:n]))}


def splits_at(training: Training, step: int) -> list[list[str]]:
    """Every word's split just before merge number `step` (1-based); step 1 = the start."""
    step = max(1, min(step, len(training.steps) + 1))
    if step == 1:
        return [training.initial_split(w) for w in training.words]
    steps = training.steps
    tokens = steps.tokens
    ids = {token: i for i, token in enumerate(tokens[:len(training.initial_vocab)])}
    try:  # each word as a string of token ids, one character each
        split = ["".join([chr(ids[t]) for t in training.initial_split(w)]) for w in training.words]
    except KeyError:  # a letter outside the initial vocabulary (not from this app's trainers): by rank
        return splits_by_rank(training, step)
    touched, starts = steps.touched, steps.touched_start
    for i, (a, b, new) in enumerate(zip(steps.left_id[:step - 1], steps.right_id, steps.new_id)):
        pair, made = chr(a) + chr(b), chr(new)
        for w in touched[starts[i]:starts[i + 1]]:  # str.replace: every occurrence, left to right, as merge()
            split[w] = split[w].replace(pair, made)
    return [[tokens[t] for t in map(ord, s)] for s in split]


def splits_by_rank(training: Training, step: int) -> list[list[str]]:
    """`splits_at`, the plain way: every word re-split by applying the merges before `step` in rank order."""
    step = max(1, min(step, len(training.steps) + 1))
    ranks = _ranks(training, step)
    prefix = training.config.prefix
    if not ranks:
        return [training.initial_split(w) for w in training.words]
    return [apply_ranked(training.initial_split(w), ranks, prefix) for w in training.words]


def candidates_at(training: Training, step: int, limit: int | None = None) -> list[Candidate]:
    """All candidate pairs before merge `step`, best first, ranked as the trainer ranks them."""
    cfg = training.config
    splits = splits_at(training, step)
    pair_counts, token_counts, first_seen = reference.count(splits, list(training.counts))
    vocab = training.vocab_at(step - 1)
    total = sum(token_counts.values())
    best = reference.ranked(pair_counts, token_counts, first_seen, {t: i for i, t in enumerate(vocab)},
                            cfg.algorithm, cfg.tie_break, cfg.min_frequency)
    if limit is not None:
        best = best[:limit]
    scored = [(pair, pair_counts[pair], reference.score(cfg.algorithm, pair_counts[pair], token_counts[pair[0]],
                                                        token_counts[pair[1]])) for pair in best]
    out = []
    for rank, (pair, c, score) in enumerate(scored, start=1):
        a, b = pair
        merged = _merged_occurrences(splits, training.counts, a, b) if a == b else c
        made = new_token(a, b, cfg.prefix)
        out.append(
            Candidate(
                left=a,
                right=b,
                new_token=made,
                pair_count=c,
                left_count=token_counts[a],
                right_count=token_counts[b],
                score=score,
                rank=rank,
                loglik_delta=loglik_change(
                    total, token_counts[a], token_counts[b], merged, a == b, token_counts.get(made, 0),
                    made == a, made == b,
                ),
                vocab_size_before=len(vocab),
            )
        )
    return out


def _merged_occurrences(splits: list[list[str]], counts: tuple[int, ...], a: str, b: str) -> int:
    """Weighted number of merges a left-to-right pass of (a, b) would make."""
    return sum(f * (len(split) - len(merge_everywhere(split, a, b, ""))) for split, f in zip(splits, counts))


def words_around(training: Training, step: int, indices: list[int],
                 max_chars: int | None = None) -> list[tuple[list[str], list[str]]]:
    """The splits of the words `indices` just before and just after merge `step` (1-based).

    With `max_chars`, a longer word is replayed on its first `max_chars` characters only,
    split as a word of their own (a viewer shows those, and says so).
    """
    prefix = training.config.prefix
    ranks = _ranks(training, step)
    merge = training.steps[step - 1]
    out = []
    for i in indices:
        word = training.words[i] if max_chars is None else training.words[i][:max_chars]
        before = apply_ranked(training.initial_split(word), ranks, prefix) if ranks else training.initial_split(word)
        out.append((before, merge_everywhere(before, merge.left, merge.right, merge.new_token)))
    return out
