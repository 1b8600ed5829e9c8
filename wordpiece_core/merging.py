"""The incremental merge engine shared by the BPE and WordPiece trainers.

Both algorithms start from words split into characters and repeatedly merge
the best adjacent pair; they differ only in what "best" means (the pair count
for BPE, count(ab) / (count(a) × count(b)) for WordPiece). This module keeps,
as Hugging Face's BpeTrainer does:

- the count of every pair and of every token, weighted by word frequency;
- a pair → words index, so a merge visits only the words that contain it;
- a max-heap of pairs with lazy invalidation: an entry whose key went stale is
  corrected when it reaches the top. For BPE a key only ever decreases, so only
  the new pairs are pushed. For WordPiece a merge lowers count(a) and count(b),
  which RAISES the score of every other pair containing a or b, so those pairs
  are pushed again with their new scores.

Heap keys for WordPiece are floats, but the choice is exact: every entry within
a hair of the top is popped, the scores are compared as fractions, and ties are
broken by the configured rule. A plain recount-everything version of the same
algorithm lives in the tests and must produce the identical trace.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction

from .errors import WordPieceError
from .trace import Candidate, MergeStep, TrainerConfig, Training, loglik_change

Progress = Callable[[int, int], None]

_FLOAT_WINDOW = 1e-9  # relative; float division is correctly rounded, so 1e-9 is ample


def initial_alphabet(words: Iterable[str], config: TrainerConfig) -> list[str]:
    """The alphabet, sorted by code point (special tokens excluded)."""
    prefix = config.prefix
    symbols: set[str] = set()
    for word in words:
        if prefix:
            symbols.add(word[0])
            symbols.update(prefix + ch for ch in word[1:])
            if config.algorithm == "bpe":
                # Hugging Face's BpeTrainer puts every character in the alphabet
                # before adding the prefixed forms.
                symbols.update(word)
        else:
            symbols.update(word)
    if config.full_byte_alphabet:
        from .pre_tokenizers import byte_level_alphabet

        symbols.update(byte_level_alphabet())
    specials = set(config.special_tokens)
    return sorted(s for s in symbols if s not in specials)


def validate_config(config: TrainerConfig) -> None:
    if config.algorithm not in ("wordpiece", "bpe"):
        raise WordPieceError(f"unknown algorithm {config.algorithm!r}: choose wordpiece or bpe")
    if config.tie_break not in ("first", "hf"):
        raise WordPieceError(f"unknown tie-break {config.tie_break!r}: choose first or hf")
    if not isinstance(config.vocab_size, int) or config.vocab_size <= 0:
        raise WordPieceError(f"the vocabulary size must be a whole number above 0, not {config.vocab_size!r}")
    if config.min_frequency < 0:
        raise WordPieceError("the minimum frequency cannot be negative")
    if config.algorithm == "wordpiece" and not config.prefix:
        raise WordPieceError("WordPiece needs a continuing-subword prefix such as '##'")
    if config.top_k < 0:
        raise WordPieceError("top-K must be 0 or more")


def train(
    word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
    config: TrainerConfig,
    progress: Progress | None = None,
) -> Training:
    """Train on word counts and return the full trace."""
    validate_config(config)
    items = word_counts.items() if isinstance(word_counts, Mapping) else word_counts
    merged: dict[str, int] = {}
    for word, count in items:
        if word and count > 0:
            merged[word] = merged.get(word, 0) + count
    if not merged:
        raise WordPieceError("the corpus has no words to train on (it is empty or only whitespace)")
    return _Engine(merged, config, progress).run()


class _Engine:
    def __init__(self, word_counts: dict[str, int], config: TrainerConfig, progress: Progress | None):
        self.config = config
        self.progress = progress
        self.is_wp = config.algorithm == "wordpiece"
        self.prefix = config.prefix or ""
        self.plen = len(self.prefix)
        self.word_list = list(word_counts)
        self.freqs = [word_counts[w] for w in self.word_list]
        self.threshold = max(config.min_frequency, 1)

        vocab: list[str] = []
        for tok in config.special_tokens:
            if tok not in vocab:
                vocab.append(tok)
        vocab.extend(initial_alphabet(self.word_list, config))
        self.initial_vocab = tuple(vocab)
        self.id_to_tok = list(vocab)
        self.tok_to_id = {t: i for i, t in enumerate(vocab)}

        tid = self.tok_to_id
        prefix = self.prefix
        words: list[list[int]] = []
        for w in self.word_list:
            if prefix:
                words.append([tid[w[0]]] + [tid[prefix + c] for c in w[1:]])
            else:
                words.append([tid[c] for c in w])
        self.words = words

        tc = [0] * len(vocab)
        pc: defaultdict[tuple[int, int], int] = defaultdict(int)
        where: defaultdict[tuple[int, int], set[int]] = defaultdict(set)
        for wi, (sym, f) in enumerate(zip(words, self.freqs)):
            for t in sym:
                tc[t] += f
            for p in zip(sym, sym[1:]):
                pc[p] += f
                where[p].add(wi)
        self.tc = tc
        self.pc = pc
        self.where = where
        self.total = sum(tc)
        self.pairs_of: dict[int, set[tuple[int, int]]] = {}
        if self.is_wp:
            for p in pc:
                self.pairs_of.setdefault(p[0], set()).add(p)
                self.pairs_of.setdefault(p[1], set()).add(p)
        self.heap = [(self._key(p), p[0], p[1]) for p, c in pc.items() if c >= self.threshold]
        heapq.heapify(self.heap)

    # ----- scores -------------------------------------------------------------------
    def _key(self, p: tuple[int, int]) -> float | int:
        c = self.pc[p]
        if self.is_wp:
            return -(c / (self.tc[p[0]] * self.tc[p[1]]))
        return -c

    def _exact(self, p: tuple[int, int]) -> Fraction:
        c = self.pc[p]
        if self.is_wp:
            return Fraction(c, self.tc[p[0]] * self.tc[p[1]])
        return Fraction(c)

    def _all_equal(self, group: list[tuple[int, int]]) -> bool:
        """Whether the WordPiece scores of `group` are exactly equal (integer cross-multiplication)."""
        pc, tc = self.pc, self.tc
        p0 = group[0]
        num0, den0 = pc[p0], tc[p0[0]] * tc[p0[1]]
        return all(pc[p] * den0 == num0 * tc[p[0]] * tc[p[1]] for p in group[1:])

    def _first_rank(self, p: tuple[int, int]) -> tuple[int, int]:
        """Where the course's recount would first meet `p`: (word index, position)."""
        ws = self.where[p]
        a, b = p
        while ws:
            w = min(ws)
            sym = self.words[w]
            for i in range(len(sym) - 1):
                if sym[i] == a and sym[i + 1] == b:
                    return (w, i)
            ws.discard(w)
        raise AssertionError("a counted pair was found in no word")

    def _rule_rank(self, p: tuple[int, int]) -> tuple[int, int]:
        return p if self.config.tie_break == "hf" else self._first_rank(p)

    # ----- choosing -----------------------------------------------------------------
    def _pop_valid(self) -> tuple[int, int] | None:
        """Pop until an entry whose key is current; return its pair (None if empty)."""
        heap, pc, thr = self.heap, self.pc, self.threshold
        while heap:
            key, a, b = heapq.heappop(heap)
            p = (a, b)
            if pc.get(p, 0) < thr:
                continue
            cur = self._key(p)
            if cur != key:
                heapq.heappush(heap, (cur, a, b))
                continue
            return p
        return None

    def _limit(self, key: float | int) -> float | int:
        if self.is_wp:
            return key * (1 - _FLOAT_WINDOW)  # key is negative: a slightly larger (worse) key
        return key

    def _collect(self, want: int) -> list[tuple[int, int]]:
        """Pop at least `want` distinct valid pairs, plus everything tied with the last one."""
        found: dict[tuple[int, int], None] = {}
        last_key = None
        while self.heap:
            if len(found) >= want and last_key is not None and self.heap[0][0] > self._limit(last_key):
                break
            p = self._pop_valid()
            if p is None:
                break
            if p not in found:
                found[p] = None
                last_key = self._key(p)
        return list(found)

    def choose(self) -> tuple[tuple[int, int], int, list[tuple[int, int]]] | None:
        """The winning pair, how many pairs tied with it, and the ranked top-K candidates.

        `_collect` stops only when the heap's top key is beyond the window of the
        last pair it took; since no live pair has a key better than its smallest
        heap entry, every pair tied with the best has been popped by then.
        Pairs are ordered by their float key first; only pairs whose keys are
        equal are compared as exact fractions and then by the tie rule.
        """
        popped = self._collect(max(1, self.config.top_k))
        if not popped:
            return None
        items = sorted(((self._key(p), p) for p in popped), key=lambda x: x[0])
        ranked: list[tuple[int, int]] = []
        ties = 1
        i = 0
        while i < len(items):
            j = i + 1
            while j < len(items) and items[j][0] == items[i][0]:
                j += 1
            group = [p for _, p in items[i:j]]
            if len(group) > 1:
                if self.is_wp and not self._all_equal(group):
                    # Two different fractions rounded to the same float: rare.
                    exact = {p: self._exact(p) for p in group}
                    group.sort(key=lambda p: (-exact[p], self._rule_rank(p)))
                    if i == 0:
                        ties = sum(1 for p in group if exact[p] == exact[group[0]])
                else:
                    group.sort(key=self._rule_rank)
                    if i == 0:
                        ties = len(group)
            ranked.extend(group)
            i = j
        winner = ranked[0]
        heap = self.heap
        for key, p in items:
            if p != winner:
                heapq.heappush(heap, (key, p[0], p[1]))
        return winner, ties, ranked[: max(self.config.top_k, 1)]

    # ----- merging ------------------------------------------------------------------
    def _merged_occurrences(self, p: tuple[int, int]) -> int:
        """How many times (weighted) a left-to-right merge of p would apply."""
        a, b = p
        if a != b:
            return self.pc[p]
        total = 0
        for w in self.where.get(p, ()):
            sym = self.words[w]
            i, n = 0, 0
            while i < len(sym) - 1:
                if sym[i] == a and sym[i + 1] == b:
                    n += 1
                    i += 2
                else:
                    i += 1
            total += n * self.freqs[w]
        return total

    def _new_token(self, a: int, b: int) -> str:
        left, right = self.id_to_tok[a], self.id_to_tok[b]
        if self.plen and right.startswith(self.prefix):
            right = right[self.plen :]
        return left + right

    def apply(self, a: int, b: int, n: int) -> tuple[list[int], int, set[tuple[int, int]]]:
        """Merge (a, b) into n in every word; return touched words, merges made, new pairs."""
        words, freqs, pc, where, tc = self.words, self.freqs, self.pc, self.where, self.tc
        touched: list[int] = []
        fresh: defaultdict[tuple[int, int], int] = defaultdict(int)  # changes to pairs containing n
        made = 0
        for w in where.pop((a, b), ()):
            sym = words[w]
            L = len(sym)
            f = freqs[w]
            out: list[int] = []
            count = 0
            i = j = 0  # i: search position; j: start of the part not yet copied
            while True:
                try:
                    i = sym.index(a, i)
                except ValueError:
                    break
                if i + 1 >= L:
                    break
                if sym[i + 1] != b:
                    i += 1
                    continue
                if j < i:
                    out.extend(sym[j:i])
                if out:
                    prev = out[-1]
                    pc[(prev, a)] -= f
                    q = (prev, n)
                    fresh[q] += f
                    where[q].add(w)
                if i + 2 < L:
                    nxt = sym[i + 2]
                    pc[(b, nxt)] -= f
                    q = (n, nxt)
                    fresh[q] += f
                    where[q].add(w)
                out.append(n)
                count += 1
                i += 2
                j = i
            if count:
                if j < L:
                    out.extend(sym[j:])
                words[w] = out
                touched.append(w)
                made += count * f
        for q, v in fresh.items():
            pc[q] += v
        pc.pop((a, b), None)
        tc[a] -= made
        tc[b] -= made
        tc[n] += made
        self.total -= made
        touched.sort()
        return touched, made, set(fresh)

    def _requeue(self, a: int, b: int, n: int, new_pairs: set[tuple[int, int]]) -> None:
        heap, pc, thr = self.heap, self.pc, self.threshold
        if not self.is_wp:
            for p in new_pairs:
                c = pc[p]
                if c >= thr:
                    heapq.heappush(heap, (-c, p[0], p[1]))
            return
        pairs_of = self.pairs_of
        for p in new_pairs:
            pairs_of.setdefault(p[0], set()).add(p)
            pairs_of.setdefault(p[1], set()).add(p)
        tc = self.tc
        push = heapq.heappush
        for t in {a, b, n}:
            group = pairs_of.get(t)
            if not group:
                continue
            dead = []
            for p in group:
                c = pc.get(p, 0)
                if c < thr:
                    dead.append(p)
                else:
                    x, y = p
                    push(heap, (-(c / (tc[x] * tc[y])), x, y))
            for p in dead:
                group.discard(p)
                if pc.get(p, 1) == 0:
                    del pc[p]

    # ----- the loop -----------------------------------------------------------------
    def _candidate(self, p: tuple[int, int], rank: int, vocab_before: int) -> Candidate:
        a, b = p
        new_tok = self._new_token(a, b)
        existing = self.tok_to_id.get(new_tok)
        return Candidate(
            left=self.id_to_tok[a],
            right=self.id_to_tok[b],
            new_token=new_tok,
            pair_count=self.pc[p],
            left_count=self.tc[a],
            right_count=self.tc[b],
            score=self._exact(p),
            rank=rank,
            loglik_delta=loglik_change(
                self.total, self.tc[a], self.tc[b], self._merged_occurrences(p), a == b,
                self.tc[existing] if existing is not None else 0,
            ),
            vocab_size_before=vocab_before,
        )

    def run(self) -> Training:
        cfg = self.config
        steps: list[MergeStep] = []
        todo = max(cfg.vocab_size - len(self.id_to_tok), 0)
        stop = "reached the vocabulary size"
        if todo == 0:
            stop = "the special tokens and the alphabet already fill the vocabulary size"
        while len(self.tok_to_id) < cfg.vocab_size:
            chosen = self.choose()
            if chosen is None:
                stop = (
                    "no pair is left to merge"
                    if not any(c >= 1 for c in self.pc.values())
                    else f"no pair occurs at least {cfg.min_frequency} times (min frequency)"
                )
                break
            (a, b), ties, ranked = chosen
            score = self._exact((a, b))
            if cfg.min_score is not None and score < cfg.min_score:
                heapq.heappush(self.heap, (self._key((a, b)), a, b))
                stop = f"the best score {float(score):.6g} fell below the threshold {float(cfg.min_score):.6g}"
                break
            vocab_before = len(self.tok_to_id)
            cands = tuple(self._candidate(p, r + 1, vocab_before) for r, p in enumerate(ranked)) if cfg.top_k else ()
            win = cands[0] if cands else self._candidate((a, b), 1, vocab_before)
            new_tok = win.new_token
            existed = new_tok in self.tok_to_id
            if existed:
                n = self.tok_to_id[new_tok]
            else:
                n = len(self.id_to_tok)
                self.id_to_tok.append(new_tok)
                self.tok_to_id[new_tok] = n
                self.tc.append(0)
            touched, made, new_pairs = self.apply(a, b, n)
            self._requeue(a, b, n, new_pairs)
            steps.append(
                MergeStep(
                    step=len(steps) + 1,
                    left=win.left,
                    right=win.right,
                    new_token=new_tok,
                    left_id=a,
                    right_id=b,
                    new_id=n,
                    pair_count=win.pair_count,
                    left_count=win.left_count,
                    right_count=win.right_count,
                    score=score,
                    ties=ties,
                    vocab_size=len(self.tok_to_id),
                    new_token_existed=existed,
                    merged_count=made,
                    loglik_delta=win.loglik_delta,
                    words_touched=tuple(touched),
                    candidates=cands,
                )
            )
            if self.progress is not None:
                self.progress(len(steps), todo)
        return Training(
            config=cfg,
            words=tuple(self.word_list),
            counts=tuple(self.freqs),
            initial_vocab=self.initial_vocab,
            steps=tuple(steps),
            stop_reason=stop,
        )
