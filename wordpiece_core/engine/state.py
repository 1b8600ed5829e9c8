"""The training state both choosers share: the splits, the counts, the pair → words index, a merge.

Each token is one character, chr(its id), so a word's current split is a plain string and the C
string routines find, count and rewrite pairs; a pair is the two-character string of its tokens
(see keys.py). What this module keeps, as Hugging Face's BpeTrainer does:

- the count of every pair and of every token, weighted by word frequency;
- a pair → words index, so a merge visits only the words that contain it;
- how many pairs have each count (BPE's ties are read from it);
- the course's tie rank of a pair (where a scan of the words first meets it), remembered
  until the word it was found in changes.

`apply` makes a merge in every word; a chooser (bpe.py, wordpiece.py) decides which pair.

The short names, used throughout (they are local variables in the hot loops):

====== ===================================================================
p      the pair being merged (two characters: left token, right token)
q      any pair; q[0] and q[1] are its tokens
a, b   the two tokens of p
nc     the new token, chr(its id)
w, s   a word's index, and its current split (a string of tokens)
f      a word's frequency (freqs[w])
pc     pair → count, weighted by word frequency
tc     token → count, weighted by word frequency
c      a pair's count
thr    the minimum pair count that may merge (threshold)
where  pair → the words that have held it (a superset, with repeats)
====== ===================================================================
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from fractions import Fraction
from operator import add

from .. import reference
from ..config import TrainerConfig
from ..pre_tokenizers import byte_level_alphabet

FirstRank = tuple[int, int]  # (word index, position): where the course's scan first meets a pair


def initial_alphabet(words: Iterable[str], config: TrainerConfig) -> list[str]:
    """reference.alphabet in C-speed set operations, plus the full byte alphabet when the config asks."""
    words = [w for w in words if w]
    prefix = config.prefix
    if prefix:
        symbols = {w[0] for w in words}
        symbols.update(prefix + ch for ch in set("".join([w[1:] for w in words])))
        if config.algorithm == "bpe":  # (as reference.alphabet: every bare character too)
            symbols.update("".join(words))
    else:
        symbols = set("".join(words))
    if config.full_byte_alphabet:
        symbols.update(byte_level_alphabet())
    specials = set(config.special_tokens)
    return sorted(s for s in symbols if s not in specials)


def _pairs_around(s: str, t: str, p: str, i: int, nc: str) -> tuple[Counter[str], Counter[str]]:
    """The pairs of s that a merge of p (first at i) into nc takes away, and the pairs of t (s merged) it makes.

    Only the pairs that overlap an occurrence change, so a long word costs its occurrences, not its
    length (a 10,000-letter word is merged hundreds of times). When nc is in s already (a token that
    existed), every pair of both splits is counted, so the pairs with nc elsewhere are listed too.
    """
    if nc in s:
        return Counter(map(add, s, s[1:])), Counter(map(add, t, t[1:]))
    old_at: set[int] = set()  # positions of the pairs in s that overlap an occurrence
    new_at: set[int] = set()  # positions of the pairs in t beside the new token
    last_old, last_new = len(s) - 2, len(t) - 2
    k = 0
    while i >= 0:
        old_at.update(j for j in (i - 1, i, i + 1) if 0 <= j <= last_old)
        new_at.update(j for j in (i - k - 1, i - k) if 0 <= j <= last_new)
        k += 1
        i = s.find(p, i + 2)
    return Counter([s[j:j + 2] for j in old_at]), Counter([t[j:j + 2] for j in new_at])


class MergeState:
    """Words, counts and the pair index of a training in progress (see the module's docstring)."""

    def __init__(self, word_counts: dict[str, int], config: TrainerConfig):
        self.config = config
        self.algorithm = config.algorithm
        self.prefix = config.prefix or ""
        self.first_rule = config.tie_break == "first"
        self.threshold = max(config.min_frequency, 1)
        self.word_list = list(word_counts)
        self.freqs = list(word_counts.values())
        vocab: list[str] = list(dict.fromkeys(config.special_tokens))
        vocab.extend(initial_alphabet(self.word_list, config))
        self.initial_vocab = tuple(vocab)
        self.id_to_tok = list(vocab)
        self.tok_to_id = {t: i for i, t in enumerate(vocab)}
        self.words = self._initial_splits()
        # Only WordPiece needs the other pairs whose counts a merge changed (its groups move with them).
        self.track_changed = config.algorithm == "wordpiece"

        pc: dict[str, int] = {}
        where: defaultdict[str, list[int]] = defaultdict(list)  # a superset, with repeats (see apply)
        tc: dict[str, int] = {}
        get = pc.get
        for wi, (s, f) in enumerate(zip(self.words, self.freqs)):
            tc[s[0]] = tc.get(s[0], 0) + f  # every other token is the right side of a pair
            for q in map(add, s, s[1:]):
                pc[q] = get(q, 0) + f
                where[q].append(wi)
        for q, c in pc.items():
            tc[q[1]] = tc.get(q[1], 0) + c
        self.pc = pc
        self.where = where
        self.tc = tc
        self.total = sum(tc.values())
        # pair -> (its first-seen rank, the version of the word it was found in, its BPE tie rank); see first_rank
        self.ranks: dict[str, tuple[FirstRank, int, FirstRank]] = {}
        # Each word's version: how many merges changed it. A rank remembers the version, not the split itself,
        # which would keep every old split of a long word alive (100 words of 10,000 letters: +1 MB a merge).
        self.versions = [0] * len(self.words)
        self.joined: dict[str, str] = {}  # pair -> the token its merge makes (see token_of)
        self.runs: dict[str, tuple[int, int]] = {}  # "a" + "a" -> (its count, merges made): merged_occurrences
        # How many pairs have each count (BPE's ties). A defaultdict: Counter's
        # __missing__ is a Python call, and most updates land on a new count.
        self.hist: defaultdict[int, int] = defaultdict(int, Counter(pc.values()))

    def _initial_splits(self) -> list[str]:
        """reference.initial_split of every word, as strings of token characters, in C."""
        tid = self.tok_to_id
        words = self.word_list
        if not self.prefix:
            table = {ord(ch): chr(tid[ch]) for ch in set("".join(words))}
            return [w.translate(table) for w in words]
        first = {ord(ch): chr(tid[ch]) for ch in {w[0] for w in words}}
        prefix = self.prefix
        rest = {ord(ch): chr(tid[prefix + ch]) for ch in set("".join([w[1:] for w in words]))}
        return [w[0].translate(first) + w[1:].translate(rest) for w in words]

    # ----- scores and tie ranks ------------------------------------------------------
    def exact(self, q: str) -> Fraction:
        """The exact score of a pair now (reference.score)."""
        return reference.score(self.algorithm, self.pc[q], self.tc[q[0]], self.tc[q[1]])

    def first_rank(self, q: str) -> FirstRank:
        """Where the course's recount would first meet `q`: (word index, position).

        Remembered with the version of the word it was found in (`ranks`): it stays right
        while that word has not changed, since a word before it can only come to
        hold q when q is a new pair of a merge, and `apply` forgets those. Otherwise `where[q]`
        is searched; when the first word listed no longer holds q, the list is cleaned first
        (`_keep_words_holding`), so the next search is cheap.
        """
        words = self.words
        known = self.ranks.get(q)
        if known is not None and self.versions[known[0][0]] == known[1]:
            return known[0]
        w = min(self.where[q])
        i = words[w].find(q)
        if i < 0:
            w = min(self._keep_words_holding(q))
            i = words[w].find(q)
        rank = (w, i)
        self.ranks[q] = (rank, self.versions[w], (w, i - len(words[w])))  # the last: tie_rank's form
        return rank

    def _keep_words_holding(self, q: str) -> list[int]:
        """Drop from `where[q]` the words that no longer hold q (and the repeats); return the list."""
        words = self.words
        listed = self.where[q]
        listed[:] = [w for w in set(listed) if q in words[w]]
        return listed

    def rule_rank(self, q: str) -> FirstRank | str:
        """The tie rule's key of a pair: its first rank (first), or the pair string (hf)."""
        return self.first_rank(q) if self.first_rule else q

    def tie_rank(self, q: str) -> FirstRank | str:
        """A tie key that only worsens while the pair lasts: the pair (hf), or (word index, position -
        word length) (first). A merge after the pair shortens the word; one before it moves both; only
        a merge that makes the pair anew improves it, and then the pair is new (`apply`'s `fresh`)."""
        if not self.first_rule:
            return q
        self.first_rank(q)
        return self.ranks[q][2]

    # ----- merging ------------------------------------------------------------------
    def token_of(self, q: str) -> str:
        """The token merging q makes (its string: reference.new_token), made once per pair."""
        token = self.joined.get(q)
        if token is None:
            token = self.joined[q] = reference.new_token(self.id_to_tok[ord(q[0])], self.id_to_tok[ord(q[1])],
                                                         self.prefix)
        return token

    def merged_occurrences(self, q: str) -> int:
        """How many times (weighted) a left-to-right merge of q would apply.

        For "a" + "a", counted from the words and remembered with the pair's count: a merge that
        changes a run of a's lowers that count, and only a merge that makes the token a (which
        exists already) can raise it somewhere else at the same time (the loop then forgets them all)."""
        c = self.pc[q]
        if q[0] != q[1]:
            return c
        known = self.runs.get(q)
        if known is not None and known[0] == c:
            return known[1]
        words, freqs = self.words, self.freqs
        made = sum(words[w].count(q) * freqs[w] for w in set(self.where.get(q, ())))
        self.runs[q] = (c, made)
        return made

    def apply(self, p: str, nc: str, existed: bool) -> tuple[list[int], int, dict[str, int], list[str]]:
        """Merge the pair p into the token nc in every word.

        Return the touched words, the merges made, the pairs with nc that gained words (with their
        counts) and, for WordPiece, the other pairs whose count changed.

        A word with one occurrence changes only the pairs beside it: its index
        is filed under its left and right neighbour, and the pair counts are
        updated once per distinct neighbour (summing the files' frequencies),
        not once per word. A word with several occurrences (or a repeated
        token, "aaaa") counts the pairs around its occurrences (`_pairs_around`).
        """
        words, freqs, pc, versions = self.words, self.freqs, self.pc, self.versions
        touched: list[int] = []
        left: defaultdict[str, list[int]] = defaultdict(list)  # left neighbour -> words
        right: defaultdict[str, list[int]] = defaultdict(list)  # right neighbour -> words
        delta: dict[str, int] = {}  # pair -> change of its count
        holders: defaultdict[str, list[int]] = defaultdict(list)  # new pair -> words
        made = 0
        for w in set(self.where.pop(p, ())):  # a word is listed once per occurrence at the start
            s = words[w]
            i = s.find(p)
            if i < 0:
                continue  # the pair left this word in an earlier merge
            t = s.replace(p, nc)
            words[w] = t
            versions[w] += 1
            touched.append(w)
            n = len(s)
            if len(t) == n - 1:  # one occurrence
                if i:
                    left[s[i - 1]].append(w)
                if i + 2 < n:
                    right[s[i + 2]].append(w)
            else:  # several occurrences: the difference of the pairs around them
                f = freqs[w]
                old_pairs, new_pairs = _pairs_around(s, t, p, i, nc)
                made += (n - len(t) - 1) * f  # the first occurrence is counted with the rest below
                for q in old_pairs.keys() | new_pairs.keys():
                    d = new_pairs.get(q, 0) - old_pairs.get(q, 0)
                    if d:
                        delta[q] = delta.get(q, 0) + d * f
                    if nc in q and q in new_pairs:
                        holders[q].append(w)
        freq_of = freqs.__getitem__
        made += sum(map(freq_of, touched))
        a, b = p[0], p[1]  # the pair's two tokens
        hist, where = self.hist, self.where
        fresh: dict[str, int] = {}  # the pairs with nc, and their counts
        # (pair that loses the words, new pair that gains them, the words)
        sides = [(x + a, x + nc, ws) for x, ws in left.items()]
        sides += [(b + y, nc + y, ws) for y, ws in right.items()]
        if not delta and not existed:
            # The common case: every pair with nc is new, and made by one side only.
            for old_q, new_q, ws in sides:
                v = sum(map(freq_of, ws))
                c = pc[old_q]
                hist[c] -= 1
                hist[c - v] += 1
                pc[old_q] = c - v
                pc[new_q] = fresh[new_q] = v
                hist[v] += 1
                where[new_q] = ws
            hist[pc.pop(p)] -= 1  # every occurrence of p is gone
            changed = [old_q for old_q, _, _ in sides] if self.track_changed else []
        else:
            for old_q, new_q, ws in sides:
                v = sum(map(freq_of, ws))
                delta[old_q] = delta.get(old_q, 0) - v
                delta[new_q] = delta.get(new_q, 0) + v
                holders[new_q] += ws
            for q, d in delta.items():
                if d:
                    c = pc.get(q, 0)
                    hist[c] -= 1
                    hist[c + d] += 1
                    pc[q] = c + d
            hist[pc.pop(p)] -= 1
            changed = [q for q, d in delta.items() if d and q not in holders] if self.track_changed else []
            ranks = self.ranks
            for q, ws in holders.items():
                ranks.pop(q, None)  # a word before its first may hold it now
                fresh[q] = pc[q]
                if existed and q in where:
                    where[q] += ws
                else:
                    where[q] = ws
        tc = self.tc
        tc[a] -= made
        tc[b] -= made
        tc[nc] = tc.get(nc, 0) + made
        self.total -= made
        touched.sort()
        return touched, made, fresh, changed

    def release(self) -> None:
        """Empty what the training no longer needs once it is over (the trace's columns reuse the memory)."""
        for held in (self.pc, self.where, self.ranks, self.hist, self.words, self.joined, self.runs, self.tc,
                     self.versions):
            held.clear()

    # ----- the self-check -----------------------------------------------------------
    def check(self) -> None:
        """Assert the state's invariants against a recount of the current splits (slow: for tests)."""
        pairs: Counter[str] = Counter()
        tokens: Counter[str] = Counter()
        for w, (s, f) in enumerate(zip(self.words, self.freqs)):
            for t in s:
                tokens[t] += f
            for q in map(add, s, s[1:]):
                pairs[q] += f
                assert w in self.where.get(q, ()), f"the index misses word {w} for a pair"
        assert {q: c for q, c in self.pc.items() if c} == dict(pairs), "a pair count differs from a recount"
        assert {t: c for t, c in self.tc.items() if c} == dict(tokens), "a token count differs from a recount"
        assert self.total == sum(tokens.values())
        histogram = Counter(c for c in self.pc.values() if c)
        assert {c: n for c, n in self.hist.items() if c and n} == histogram, "the histogram of pair counts differs"
        for q, (rank, version, _) in self.ranks.items():
            w = rank[0]
            if self.versions[w] == version:  # a remembered rank still in use must equal a fresh search
                first = next(v for v, s in enumerate(self.words) if q in s)
                assert rank == (first, self.words[first].find(q)), "a remembered first rank is stale"
