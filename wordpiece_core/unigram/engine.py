"""The fast Unigram trainer (the `tokenizers` rule): em.py's algorithm with every word's lattice at once.

em.py builds one word's lattice at a time and walks it in Python; here the lattices of all the words
are built once, against the seed vocabulary, as flat arrays of edges (word, start, end, piece). A piece is
only ever removed, so each later model is a mask over those edges, and a pass over the lattices is a loop
over positions (the longest word's length) of array operations over every word at once:

- forward (alpha) by end position, backward (beta) by start position, each a log-sum-exp per word;
- the marginals exp(alpha + score + beta - log Z) × count, summed per piece (the E-step);
- Viterbi by end position, the first edge (the smallest start) on a tie, then the best paths read back.

A one-character edge whose piece is gone stands for the unknown piece (id 0, the lowest score - 10), as
populate_nodes adds it. The pruning's alternatives are the same Viterbi over the pieces' own lattices
(without the whole piece). The results equal em.py's up to the last bits of sums taken in a
different order (tests/test_unigram_trainer.py compares the two, round by round).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Mapping

import numpy as np
import numpy.typing as npt

from . import em
from .defaults import MAX_PIECE_LENGTH, SHRINKING, SUB_ITERATIONS, TOKENIZERS_SEED, TOP_K, VOCAB_SIZE
from .records import EMRound, EMStep, Pruning

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


class Lattices:
    """The lattices of `texts` against the pieces `ids` (piece → id), as int32 edge arrays (about 25 bytes an
    edge) with two orders: by end (forward passes) and by start (backward).

    With `whole=False` (the pieces' own lattices) a text's edge covering all of it is left out."""

    def __init__(self, texts: list[str], ids: Mapping[str, int], longest: int, whole: bool = True) -> None:
        word, start, end, piece = array("i"), array("i"), array("i"), array("i")
        for k, text in enumerate(texts):
            n = len(text)
            for b in range(n):
                single = False
                for e in range(b + 1, min(n, b + longest) + 1):
                    i = ids.get(text[b:e])
                    if i is not None and (whole or e - b < n):
                        word.append(k)
                        start.append(b)
                        end.append(e)
                        piece.append(i)
                        single = single or e == b + 1
                if not single and (whole or n > 1):  # a character no seed piece is ("\0"): the unknown piece's
                    word.append(k)
                    start.append(b)
                    end.append(b + 1)
                    piece.append(0)
        self.lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
        self.offsets = np.cumsum(self.lengths + 1) - (self.lengths + 1)
        self.positions = int(self.lengths.sum() + len(texts))
        self.word = np.frombuffer(word, dtype=np.int32)
        self.start = np.frombuffer(start, dtype=np.int32)
        self.end = np.frombuffer(end, dtype=np.int32)
        self.piece = np.frombuffer(piece, dtype=np.int32)
        self.single = (self.end - self.start) == 1
        self.forward_order = np.lexsort((self.start, self.word, self.end)).astype(np.int32)  # end, word, start
        self.backward_order = np.lexsort((self.end, self.word, self.start)).astype(np.int32)  # start, word, end


    def compact(self, alive: npt.NDArray[np.bool_]) -> None:
        """Forget the edges of pieces that are gone for good (a one-character edge stays: it becomes the
        unknown piece's)."""
        keep = alive[self.piece] | self.single
        if keep.all():
            return
        new_index = (np.cumsum(keep) - 1).astype(np.int32)
        self.word, self.start, self.end, self.piece = (a[keep] for a in (self.word, self.start, self.end, self.piece))
        self.single = self.single[keep]
        self.forward_order = new_index[self.forward_order[keep[self.forward_order]]]
        self.backward_order = new_index[self.backward_order[keep[self.backward_order]]]


class _Levels:
    """Edges in one order, masked to a model, cut into levels (one end or one start position) and, within a
    level, into groups of one word (contiguous). Positions are flat: a word's offset + the position."""

    def __init__(self, lat: Lattices, order: npt.NDArray[np.int32], keep: npt.NDArray[np.bool_],
                 level: npt.NDArray[np.int32], piece: npt.NDArray[np.int32], score: Floats, forward: bool) -> None:
        idx = order[keep[order]]
        word = lat.word[idx]
        offsets = lat.offsets[word].astype(np.int32)
        self.src = offsets + lat.start[idx]
        self.dst = offsets + lat.end[idx]
        del offsets
        self.score = score[idx]
        self.piece = piece[idx] if forward else None
        lev = level[idx]
        del idx
        self.bounds = np.searchsorted(lev, np.arange(int(lev.max()) + 2 if len(lev) else 1))
        cut = np.flatnonzero((np.diff(lev) != 0) | (np.diff(word) != 0)) + 1
        self.group_starts = np.concatenate(([0], cut)) if len(lev) else np.zeros(0, np.int64)
        self.word = word if forward else None

    def groups(self, level: int) -> tuple[int, int, Ints]:
        lo, hi = int(self.bounds[level]), int(self.bounds[level + 1])
        a, b = np.searchsorted(self.group_starts, [lo, hi])
        return lo, hi, self.group_starts[a:b] - lo


class View:
    """The lattices under one model: which edges exist, with which piece (0 for the unknown) and score."""

    def __init__(self, lat: Lattices, alive: npt.NDArray[np.bool_], scores: Floats, unk_score: float,
                 backward: bool = True) -> None:
        self.lat = lat
        here = alive[lat.piece] & (lat.piece != 0)  # piece 0: the unknown piece, scored as such
        keep = here | lat.single
        piece = np.where(here, lat.piece, 0).astype(np.int32)
        score = np.where(here, scores[lat.piece], unk_score)
        del here
        self.fwd = _Levels(lat, lat.forward_order, keep, lat.end, piece, score, forward=True)
        self._masks = (keep, piece, score) if backward else None
        self.top = int(lat.lengths.max()) if len(lat.lengths) else 0

    def backward(self) -> _Levels:
        """The edges by start, built when the backward pass needs them (and freed after)."""
        assert self._masks is not None
        keep, piece, score = self._masks
        return _Levels(self.lat, self.lat.backward_order, keep, self.lat.start, piece, score, forward=False)

    def log_z_and_marginals(self) -> tuple[Floats, Floats]:
        """log Z per word and each forward-ordered edge's log-marginal."""
        lat, f = self.lat, self.fwd
        assert f.word is not None
        alpha = _sweep(f, range(1, self.top + 1), lat.positions, _log_sum_exp, forward=True)
        b = self.backward()
        beta = _sweep(b, range(self.top - 1, -1, -1), lat.positions, _log_sum_exp, forward=False)
        del b
        log_z = alpha[lat.offsets + lat.lengths]
        marginal = alpha[f.src]
        marginal += f.score
        marginal += beta[f.dst]
        marginal -= log_z[f.word]
        return log_z, marginal

    def viterbi(self) -> tuple[Ints, Ints]:
        """Every word's best split: (word, piece) pairs, each word's pieces left to right."""
        lat, f = self.lat, self.fwd
        assert f.piece is not None
        best = np.zeros(lat.positions)
        back = np.full(lat.positions, -1, dtype=np.int64)
        for e in range(1, self.top + 1):
            lo, hi, gs = f.groups(e)
            if lo == hi:
                continue
            v = best[f.src[lo:hi]] + f.score[lo:hi]
            top = np.maximum.reduceat(v, gs)
            sizes = np.diff(np.append(gs, hi - lo))
            first = np.where(v == np.repeat(top, sizes), np.arange(lo, hi), hi)
            dst = f.dst[lo:hi][gs]
            best[dst] = top
            back[dst] = np.minimum.reduceat(first, gs)
        words: list[Ints] = []
        pieces: list[Ints] = []
        todo = lat.lengths > 0
        who = np.arange(len(lat.lengths))[todo]
        pos = (lat.offsets + lat.lengths)[todo]
        while len(pos):
            edge = back[pos]
            words.append(who)
            pieces.append(f.piece[edge])
            pos = f.src[edge]
            more = pos != lat.offsets[who]
            pos, who = pos[more], who[more]
        if not words:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        w = np.concatenate(words)
        p = np.concatenate(pieces)
        step = np.concatenate([np.full(len(x), -k) for k, x in enumerate(words)])
        order = np.lexsort((step, w))  # by word, then left to right (read back from the end)
        return w[order], p[order]

    def best_scores(self) -> Floats:
        """Each text's best split's score (Viterbi's value at its end)."""
        lat, f = self.lat, self.fwd
        best = _sweep(f, range(1, self.top + 1), lat.positions, np.maximum.reduceat, forward=True)
        return best[lat.offsets + lat.lengths]


def _sweep(levels: _Levels, order: range, positions: int, combine: Callable[[Floats, Ints], Floats],
           forward: bool) -> Floats:
    """One pass over the lattices a level at a time: at each position, `combine` (log-sum-exp, or max) over the
    edges into it (forward: by end, from their start) or out of it (backward: by start, from their end) of the
    value there + the edge's score; every word's start (forward) or end (backward) is 0."""
    table = np.zeros(positions)
    read, write = (levels.src, levels.dst) if forward else (levels.dst, levels.src)
    for level in order:
        lo, hi, gs = levels.groups(level)
        if lo == hi:
            continue
        v = table[read[lo:hi]] + levels.score[lo:hi]
        table[write[lo:hi][gs]] = combine(v, gs)
    return table


def _log_sum_exp(v: Floats, gs: Ints) -> Floats:
    top = np.maximum.reduceat(v, gs)
    sizes = np.diff(np.append(gs, len(v)))
    result: Floats = top + np.log(np.add.reduceat(np.exp(v - np.repeat(top, sizes)), gs))
    return result


def _digamma(x: Floats) -> Floats:
    """em.digamma, elementwise."""
    x = x.astype(np.float64).copy()
    result = np.zeros_like(x)
    for _ in range(8):
        small = x < 7.0
        if not small.any():
            break
        result[small] -= 1.0 / x[small]
        x[small] += 1.0
    x -= 1.0 / 2.0
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    out: Floats = result + (np.log(x) + (1.0 / 24.0) * xx2 - 7.0 / 960.0 * xx4 + (31.0 / 8064.0) * xx4 * xx2
                            - (127.0 / 30720.0) * xx4 * xx4)
    return out


CHUNK_CHARS = 100_000  # the words of one chunk of lattices: ~300,000 edges, ~20 MB of a pass's temporaries


def chunked(texts: list[str], ids: Mapping[str, int], longest: int, whole: bool = True) -> list[tuple[int, Lattices]]:
    """The lattices of `texts` in chunks of about CHUNK_CHARS characters, each with its first text's index:
    a pass over them holds one chunk's temporaries at a time, whatever the corpus's size."""
    chunks: list[tuple[int, Lattices]] = []
    base, size = 0, 0
    for k, text in enumerate(texts):
        size += len(text) + 1
        if size >= CHUNK_CHARS or k == len(texts) - 1:
            chunks.append((base, Lattices(texts[base:k + 1], ids, longest, whole)))
            base, size = k + 1, 0
    return chunks


class Trainer:
    """The state of one training: the seed pieces (id 0 the trainer's "<UNK>"), which are alive, their scores,
    the model's order, and the words' lattices in chunks (the pieces' own are built at each pruning, for the
    pieces then alive)."""

    def __init__(self, word_counts: Mapping[str, int], seed: list[tuple[str, float]]) -> None:
        self.names = [em.TRAINING_UNK] + [p for p, _ in seed]
        ids = {p: i for i, p in enumerate(self.names) if i != 0}
        longest = max((len(p) for p in ids), default=1)
        self.words = [w for w in word_counts]
        self.counts = np.fromiter((word_counts[w] for w in self.words), dtype=np.float64, count=len(self.words))
        self.chunks = chunked(self.words, ids, longest)
        self.ids, self.longest = ids, longest
        self.alive = np.ones(len(self.names), dtype=bool)
        self.scores = np.array([math.nan] + [s for _, s in seed])
        self.order = np.arange(len(self.names))  # the model's order of the alive pieces (unk first)

    def pieces(self) -> list[tuple[str, float]]:
        return [(self.names[i], float(self.scores[i])) for i in self.order]

    def min_score(self) -> float:
        live = self.scores[self.order[1:]]
        return float(live.min()) if len(live) else 0.0

    def e_step(self) -> tuple[Floats, float, int]:
        expected = np.zeros(len(self.names))
        weighted_log_z, tokens = 0.0, 0
        unk_score = self.min_score() - em.UNK_PENALTY
        for base, lat in self.chunks:
            lat.compact(self.alive)
            v = View(lat, self.alive, self.scores, unk_score)
            log_z, marginal = v.log_z_and_marginals()
            counts = self.counts[base:base + len(lat.lengths)]
            assert v.fwd.word is not None and v.fwd.piece is not None
            expected += np.bincount(v.fwd.piece, weights=counts[v.fwd.word] * np.exp(marginal),
                                    minlength=len(self.names))
            weighted_log_z += float((counts * log_z).sum())
            tokens += len(v.viterbi()[0])
        total = float(self.counts.sum())
        return expected, (-weighted_log_z / total if total else 0.0), tokens

    def best_splits(self, chunks: list[tuple[int, Lattices]]) -> tuple[Ints, Ints]:
        """Every text's best split over the chunks: (text index, piece) pairs, left to right."""
        unk_score = self.min_score() - em.UNK_PENALTY
        parts = [View(lat, self.alive, self.scores, unk_score, backward=False).viterbi() for _, lat in chunks]
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return (np.concatenate([w + base for (base, _), (w, _) in zip(chunks, parts)]),
                np.concatenate([p for _, p in parts]))

    def m_step(self, expected: Floats) -> list[str]:
        ids = self.order[1:]
        low = expected[ids] < em.EXPECTED_THRESHOLD
        dropped = [self.names[i] for i in ids[low]]
        kept = ids[~low]
        self.alive[ids[low]] = False
        log_total = em.digamma(float(sum(expected[kept].tolist()))) if len(kept) else 0.0
        self.scores[kept] = _digamma(expected[kept]) - log_total
        self.order = np.concatenate(([0], kept))
        return dropped

    def prune(self, vocab_size: int, shrinking_factor: float) -> Pruning:
        n_pieces = len(self.order)
        # each multi-character piece's best split without itself, against its own score
        self.multi = np.asarray([i for i in self.order.tolist() if len(self.names[i]) > 1 and i != 0], dtype=np.int64)
        pieces_lat = chunked([self.names[i] for i in self.multi.tolist()], self.ids, self.longest, whole=False)
        unk_score = self.min_score() - em.UNK_PENALTY
        split = np.concatenate([View(lat, self.alive, self.scores, unk_score, backward=False).best_scores()
                                for _, lat in pieces_lat]) if pieces_lat else np.zeros(0)
        alive_multi = self.alive[self.multi]
        own = self.scores[self.multi]
        is_candidate = alive_multi & ~(split > own)
        always_keep = np.ones(len(self.names), dtype=bool)
        always_keep[self.multi[alive_multi & (split > own)]] = False
        has_alt = np.zeros(len(self.names), dtype=bool)
        has_alt[self.multi[is_candidate]] = True
        # how often each piece is on a word's best split
        for _, lat in self.chunks:
            lat.compact(self.alive)
        w, p = self.best_splits(self.chunks)
        freq = np.bincount(p, weights=self.counts[w], minlength=len(self.names))
        total = float(sum(freq[self.order].tolist()))
        total_words = float(self.counts.sum())
        ids = self.order[1:]
        unused_mask = ((freq[ids] == 0.0) & ~always_keep[ids]) | (has_alt[ids] & (freq[ids] == 0.0))
        keep_plain = ~unused_mask & ~has_alt[ids]
        cand = ids[has_alt[ids] & (freq[ids] > 0.0)]
        # the candidates' alternatives, read from the pieces' own lattices
        rows = np.full(len(self.names), -1, dtype=np.int64)
        rows[self.multi] = np.arange(len(self.multi))
        aw, ap = self.best_splits(pieces_lat)
        wanted = np.zeros(len(self.multi), dtype=bool)
        wanted[rows[cand]] = True
        sel = wanted[aw]
        aw, ap = aw[sel], ap[sel]
        alt_of: dict[int, list[int]] = {}
        for r, a in zip(aw.tolist(), ap.tolist()):
            alt_of.setdefault(r, []).append(a)
        freq_list = freq.tolist()
        losses = [em.pruning_loss(freq_list[i], (freq_list[a] for a in alt_of[rows[i]]), total, total_words,
                                  n_pieces) for i in cand.tolist()]
        target = max(vocab_size * 11 // 10, int(n_pieces * shrinking_factor))
        ranked = sorted(range(len(losses)), key=lambda k: -losses[k])  # stable
        plain = ids[keep_plain]
        n_kept = max(0, target - 1 - len(plain)) if 1 + len(plain) <= target else len(ranked)
        n_kept = min(n_kept, len(ranked))
        cand_list = cand.tolist()
        kept_ids = [cand_list[k] for k in ranked[:n_kept]]
        cut_ids = [cand_list[k] for k in ranked[n_kept:]]
        names = self.names
        record = Pruning(
            tuple(names[cand_list[k]] for k in ranked), tuple(freq_list[cand_list[k]] for k in ranked),
            tuple(tuple(names[a] for a in alt_of[rows[cand_list[k]]]) for k in ranked),
            tuple(losses[k] for k in ranked), tuple(names[i] for i in ids[unused_mask].tolist()),
            tuple(names[i] for i in cut_ids), target)
        self.alive[ids[unused_mask]] = False
        self.alive[np.asarray(cut_ids, dtype=np.int64)] = False
        self.order = np.concatenate(([0], plain, np.asarray(kept_ids, dtype=np.int64))).astype(np.int64)
        return record


def train(word_counts: Mapping[str, int], vocab_size: int = VOCAB_SIZE, special_tokens: tuple[str, ...] = (),
          unk_token: str | None = None, seed_size: int = TOKENIZERS_SEED, shrinking_factor: float = SHRINKING,
          sub_iterations: int = SUB_ITERATIONS, max_piece_length: int = MAX_PIECE_LENGTH, top_k: int = TOP_K,
          progress: Callable[[int, int], None] | None = None
          ) -> tuple[list[tuple[str, float]], int | None, list[EMRound]]:
    """em.train, fast: the same arguments, the same vocabulary and rounds (and `progress(rounds done,
    about how many in all)` after each round)."""
    chars = em.required_chars(word_counts)
    if len(chars) > vocab_size:
        raise ValueError(f"the vocabulary ({vocab_size:,}) is smaller than the corpus's {len(chars):,} characters")
    t = Trainer(word_counts, em.seed_pieces(word_counts, seed_size, max_piece_length))
    desired = vocab_size * 11 // 10
    rounds: list[EMRound] = []
    while True:
        steps = []
        for sub in range(sub_iterations):
            before = len(t.order)
            expected, objective, tokens = t.e_step()
            ids = t.order[1:]
            top = ids[np.argsort(-expected[ids], kind="stable")[:top_k]]
            dropped = t.m_step(expected)
            steps.append(EMStep(sub + 1, before, len(t.order), objective, tokens, tuple(dropped),
                                   tuple((t.names[i], float(expected[i]),
                                          float(t.scores[i]) if t.alive[i] else -math.inf) for i in top.tolist())))
        pieces = t.pieces()
        if len(t.order) <= desired:
            rounds.append(EMRound(len(rounds) + 1, tuple(steps), tuple(pieces), None))
            break
        pruning = t.prune(vocab_size, shrinking_factor)
        rounds.append(EMRound(len(rounds) + 1, tuple(steps), tuple(pieces), pruning))
        if not pruning.unused and not pruning.cut:  # nothing left to remove: tokenizers would loop for ever here
            break
        if progress is not None:
            left = math.log(max(1.0, len(t.order) / desired)) / -math.log(shrinking_factor) if shrinking_factor < 1 else 0
            progress(len(rounds), len(rounds) + 1 + math.ceil(left))
    final, unk_id = em.finalize(em.Model(t.pieces()), chars, vocab_size, special_tokens, unk_token)
    return final, unk_id, rounds
