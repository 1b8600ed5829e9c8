"""The incremental merge engine shared by the BPE and WordPiece trainers.

Both algorithms start from words split into characters and repeatedly merge
the best adjacent pair; they differ only in what "best" means (the pair count
for BPE, count(ab) / (count(a) × count(b)) for WordPiece). This module keeps,
as Hugging Face's BpeTrainer does:

- the count of every pair and of every token, weighted by word frequency;
- a pair → words index, so a merge visits only the words that contain it;
- a max-heap of pairs with lazy invalidation.

How it is made fast in pure Python:

- Each token is one character, chr(id). A word's current split is then a
  plain string, so finding, counting and rewriting a pair (a two-character
  string) are C string operations, and comparing two pairs as strings
  compares (id_left, id_right): the hf tie-break.
- A merge groups the touched words by the token left and right of the pair,
  and updates the pair counts once per distinct neighbour, not once per word.
- BPE keys only go stale downwards (counts only fall), so only new pairs are
  pushed; ties are counted from a histogram of pair counts. The top K found at a
  step is kept for the next, in a small window above the heap: each step re-reads
  those K pairs and takes from the heap only the entries that could beat the
  window's worst (about one a step, and the stale ones), however many pairs tie.
  The tie rank is in the entry (the pair for hf; where the course first meets it
  for first, which also only worsens, but when a merge makes the pair anew: then
  it is pushed again, as a new pair is).
- WordPiece: a merge lowers count(a) and count(b), which RAISES the score of
  every other pair containing a or b. Their entries are re-pushed only when a
  token's count has fallen by 0.5% since the last time; in between, a key may
  be up to that much too low, and the choice looks that much deeper. As for
  BPE, the best pairs of a step are kept for the next, out of the heap, and
  the heap gives up only the entries that could beat them; the others met go
  back with their scores now. A token's re-pushed pairs that score below a
  quarter of the last K-th best are not pushed but sleep, until one of their
  tokens is re-pushed again or the K-th best could fall to their bound. Once most
  entries are stale, the heap is rebuilt from the current ones.
- WordPiece's long exact ties: a pair with count(ab) = count(a) (a is always
  followed by b) scores exactly 1/count(b), and likewise 1/count(a) when
  count(ab) = count(b). Late in a training hundreds of such pairs tie (x + ##e).
  They are kept out of the heap, in one group per token, which moves as one when
  that token's count falls and holds its pairs in the tie rule's order.
- The course's tie rule (first) ranks pairs by where a scan of the corpus first
  meets them; each pair's rank is remembered until its first word changes.

Heap keys for WordPiece are floats, but the choice is exact: every entry that
could hold the best score is examined, near-equal scores are compared as
fractions, and ties are broken by the configured rule. The plain
recount-everything version of the same algorithm, reference.py, must produce the
identical trace (the property tests check it, on small and on widely spread frequencies).
"""

from __future__ import annotations

import gc
import heapq
from functools import partial
from itertools import compress, filterfalse, groupby, repeat
from operator import add, eq, itemgetter, mul
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from bisect import insort
from fractions import Fraction
from typing import Any

from ..errors import WordPieceError
from ..steps import StepRecorder, Steps
from ..config import ALGORITHMS, TIE_BREAKS, TrainerConfig
from ..reference import new_token
from ..trace import Training

Progress = Callable[[int, int], None]
# Called after each merge with the steps done, False, and a function that makes the steps from start to
# stop (their touched words left out: see StepRecorder.part); once more with True when the training is
# over. The command line's trace_file.TraceFile writes the trace of the steps done while training goes on.
Watch = Callable[[int, bool, Callable[[int, int], Steps]], None]

_FLOAT_WINDOW = 1e-9  # relative; float division is correctly rounded, so 1e-9 is ample
_MAX_TOKENS = 0x10FFFF  # a token is one character, chr(id)
_WP_SLACK = 1.005  # WordPiece: how far a token's count may fall before its pairs are re-pushed
_WP_FLOOR = 0.25  # WordPiece: a re-pushed pair scoring below this × the K-th best sleeps (see _requeue)
_COMPACT_ABOVE = 4096  # WordPiece: entries beyond twice the pairs' before the heap drops its stale ones
_LOW21 = (1 << 21) - 1  # a packed entry's right id (its lowest 21 bits)
_LOW42 = (1 << 42) - 1  # a packed entry's pair: left id << 21 + right id (its lowest 42 bits)


# The tie rule is defined once, in reference.ranked (in words: trace.TIE_RULES). The engine has two
# fast forms of its "hf" rule, the smaller (left id, right id) first; tests/test_properties.py
# checks that both order any pairs as the rule does:
# - a pair is the string chr(left id) + chr(right id), and strings compare by code point;
# - BPE's heap under the hf rule packs (-count, left id, right id) into one int (`_pack`), which orders
#   as that tuple: the ids take 21 bits each (a token id is at most 0x10FFFF).
def _wp_key(count_ab: int, count_a: int, count_b: int) -> float:
    """A WordPiece heap key: minus the score count(ab) / (count(a) × count(b)), as a float (a min-heap
    puts the best score on top; the choice checks near-equal keys exactly, see _choose_wordpiece)."""
    return -(count_ab / (count_a * count_b))


def _pack(pair: str, count: int) -> int:
    """BPE's heap entry under the hf rule: (-count, left id, right id) as one int, ordered as that tuple."""
    return (-count << 42) + (ord(pair[0]) << 21) + ord(pair[1])


def _packed_pair(key: int) -> str:
    """The pair of a packed entry."""
    low = key & _LOW42
    return chr(low >> 21) + chr(low & _LOW21)


def _raise_bound(bound: defaultdict[str, int], q: str, c: int) -> None:
    """Keep bound[t] at least the count c of the pair q, for both its tokens t (see _regroup_token)."""
    if c > bound[q[0]]:
        bound[q[0]] = c
    if c > bound[q[1]]:
        bound[q[1]] = c


def _discard(sets: dict[str, set[str]], key: str, item: str) -> None:
    """Take `item` from the set at `key`, and the key away with its last item."""
    held = sets[key]
    held.discard(item)
    if not held:
        del sets[key]


def initial_alphabet(words: Iterable[str], config: TrainerConfig) -> list[str]:
    """The alphabet, sorted by code point (special tokens excluded)."""
    words = [w for w in words if w]
    prefix = config.prefix
    if prefix:
        symbols = {w[0] for w in words}
        symbols.update(prefix + ch for ch in set("".join([w[1:] for w in words])))
        if config.algorithm == "bpe":
            # Hugging Face's BpeTrainer puts every character in the alphabet
            # before adding the prefixed forms.
            symbols.update("".join(words))
    else:
        symbols = set("".join(words))
    if config.full_byte_alphabet:
        from ..pre_tokenizers import byte_level_alphabet

        symbols.update(byte_level_alphabet())
    specials = set(config.special_tokens)
    return sorted(s for s in symbols if s not in specials)


MAX_TOTAL = 2**63 - 1  # tokens in the corpus, weighted: every count then fits a 64-bit integer


def check_total(word_counts: Mapping[str, int]) -> None:
    """Refuse counts so large that the corpus holds more than MAX_TOTAL tokens.

    Scores are chosen with floats and checked exactly with fractions, and tables hold
    64-bit integers; beyond this the floats lose the counts' order of magnitude.
    """
    total = 0
    for word, count in word_counts.items():
        total += count * len(word)
        if total > MAX_TOTAL:
            digits = len(str(count))
            shown = f"{count:,}" if digits <= 20 else f"about 10^{digits - 1}"
            raise WordPieceError(
                f"the word counts are too large: the corpus would hold more than {MAX_TOTAL:,} (2^63 − 1) "
                f"characters in all (the word {word[:40]!r} has a count of {shown}); divide the counts "
                "by a common factor")
    return None


def validate_config(config: TrainerConfig) -> None:
    if config.algorithm not in ALGORITHMS:
        raise WordPieceError(f"unknown algorithm {config.algorithm!r}: choose wordpiece or bpe")
    if config.tie_break not in TIE_BREAKS:
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
    watch: Watch | None = None,
) -> Training:
    """Train on word counts and return the full trace (`progress`, `watch`: called after each merge)."""
    validate_config(config)
    merged: dict[str, int] = {}
    if isinstance(word_counts, Mapping):  # keys are distinct already
        merged = {word: count for word, count in word_counts.items() if word and count > 0}
    else:
        for word, count in word_counts:
            if word and count > 0:
                merged[word] = merged.get(word, 0) + count
    if not merged:
        raise WordPieceError("the corpus has no words to train on (it is empty or only whitespace)")
    check_total(merged)
    # The engine makes millions of small objects and no reference cycles: the
    # cyclic collector would only walk them over and over (about 5% of the time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _Engine(merged, config, progress).run(watch)
    finally:
        if collecting:
            gc.enable()


class _Engine:
    """The training state. Each token is one character, chr(id), so a word's
    split is a plain string and the C string routines find and rewrite pairs;
    a pair is the two-character string of its tokens (comparing such strings
    compares (id_left, id_right), which is the hf tie-break).

    The short names, used throughout (they are local variables in the hot loops):

    ====== ===================================================================
    p      the pair being merged (two characters: left token, right token)
    q      any pair; q[0] and q[1] are its tokens
    a, b   the two tokens of p
    nc     the new token, chr(its id)
    w, s   a word's index, and its current split (a string of tokens)
    f      a word's frequency (self.freqs[w])
    pc     pair → count, weighted by word frequency (self.pc)
    tc     token → count, weighted by word frequency (self.tc)
    c      a pair's count; v a pair's value (WordPiece: its score; BPE: its count)
    key    a heap entry's key: -v when it was pushed (see _wp_key and _pack)
    thr    the minimum pair count that may merge (self.threshold)
    where  pair → the words that have held it (a superset, with repeats)
    latest WordPiece: pair → the key of its newest heap entry (older entries are stale)
    window BPE: pair → its entry, for the best pairs of the last step (see _choose_bpe);
           WordPiece's is the list `wp_window` (see _choose_wordpiece)
    ====== ===================================================================
    """

    def __init__(self, word_counts: dict[str, int], config: TrainerConfig, progress: Progress | None):
        self.config = config
        self.progress = progress
        self.is_wp = config.algorithm == "wordpiece"
        self.prefix = config.prefix or ""
        self.word_list = list(word_counts)
        self.freqs = list(word_counts.values())
        self.threshold = max(config.min_frequency, 1)

        vocab: list[str] = list(dict.fromkeys(config.special_tokens))
        vocab.extend(initial_alphabet(self.word_list, config))
        self.initial_vocab = tuple(vocab)
        self.id_to_tok = list(vocab)
        self.tok_to_id = {t: i for i, t in enumerate(vocab)}
        self.words = self._initial_splits()

        pc: dict[str, int] = {}
        # pair -> the words that have held it: a superset, with repeats (see apply)
        where: defaultdict[str, list[int]] = defaultdict(list)
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
        thr = self.threshold
        if self.is_wp:
            # How far below its pair's score a key may be: _WP_SLACK for each token (see _requeue).
            self.slack = _WP_SLACK**2
            # Each token's count when its pairs were last pushed (see _requeue).
            self.ref = dict(tc)
            self.pairs_of: defaultdict[str, set[str]] = defaultdict(set)
            for q in pc:
                self.pairs_of[q[0]].add(q)
                self.pairs_of[q[1]].add(q)
        self.first_rule = config.tie_break == "first"
        # pair -> (its first-seen rank, the split of the word it was found in); see _first_rank
        self.ranks: dict[str, tuple[tuple[int, int], str, tuple[int, int]]] = {}  # see _first_rank
        # Two shapes of heap entry, each in its own heap (a min-heap: the best pair is at the top):
        # - `heap`, WordPiece: (key, pair), key = -score when pushed (see _choose_wordpiece);
        # - `bpe_heap`, BPE: one int under the hf rule, (-count << 42) + (left id << 21) + right id;
        #   (-count, tie rank, pair) under the course's rule (see _pack, _first_key, _choose_bpe).
        self.heap: list[tuple[float, str]] = []
        self.bpe_heap: list = []
        # BPE: the best pairs of the last step: pair -> its entry, and the count it was made with
        self.window: dict[str, Any] = {}
        self.counted: dict[str, int] = {}
        # BPE: a pair's heap entry, and the pair of an entry
        self.key_of: Callable[[str, int], Any] = self._first_key if self.first_rule else _pack
        self.pair_of: Callable[[Any], str] = itemgetter(2) if self.first_rule else _packed_pair
        # WordPiece's saturated pairs, kept out of `heap` in groups (see _regroup):
        self.group_of: dict[str, str] = {}  # pair -> its group's token t (the pair scores 1/count(t))
        # (Keys only while non-empty: a training of 30,000 merges would otherwise keep two empty sets
        # and a heap of stale entries for most of its tokens.)
        self.members: dict[str, set[str]] = {}  # t -> the pairs of its group
        self.sat_on: dict[str, set[str]] = {}  # u -> grouped pairs saturated on u
        self.by_rank: dict[str, list[tuple]] = {}  # t -> (tie rank, pair), a heap
        self.by_count: list[tuple[int, str]] = []  # (count(t), t) of the groups: the best group on top
        self.latest: dict[str, float] = {}  # WordPiece: pair -> key of its newest entry
        self.wp_window: list[str] = []  # WordPiece: the best pairs of the last step, out of the heap
        # WordPiece: pairs re-pushed below the floor are not pushed but asleep (see _requeue)
        self.floor = 0.0
        self.asleep: set[str] = set()
        self.sleep_bound = 0.0  # the largest floor a pair asleep now slept under
        # u -> at least the largest count of a pair with u (see _regroup_token)
        self.bound: defaultdict[str, int] = defaultdict(int)
        if self.is_wp:
            bound = self.bound
            for q, c in pc.items():
                _raise_bound(bound, q, c)
                if c >= thr and (c == tc[q[0]] or c == tc[q[1]]):
                    self._regroup(q)
            grouped = self.group_of
            self.heap = [(_wp_key(c, tc[q[0]], tc[q[1]]), q) for q, c in pc.items() if c >= thr and q not in grouped]
        else:
            self.bpe_heap = [self.key_of(q, c) for q, c in pc.items() if c >= thr]
        heapq.heapify(self.heap)
        heapq.heapify(self.bpe_heap)
        self.latest = {q: key for key, q in self.heap}
        self.joined: dict[str, str] = {}  # pair -> the token its merge makes (see _token_of)
        self.runs: dict[str, tuple[int, int]] = {}  # "a" + "a" -> (its count, merges made): _merged_occurrences
        # How many pairs have each count (BPE's ties). A defaultdict: Counter's
        # __missing__ is a Python call, and most updates land on a new count.
        self.hist: defaultdict[int, int] = defaultdict(int, Counter(pc.values()))

    def _initial_splits(self) -> list[str]:
        tid = self.tok_to_id
        words = self.word_list
        if not self.prefix:
            table = {ord(ch): chr(tid[ch]) for ch in set("".join(words))}
            return [w.translate(table) for w in words]
        first = {ord(ch): chr(tid[ch]) for ch in {w[0] for w in words}}
        prefix = self.prefix
        rest = {ord(ch): chr(tid[prefix + ch]) for ch in set("".join([w[1:] for w in words]))}
        return [w[0].translate(first) + w[1:].translate(rest) for w in words]

    # ----- scores -------------------------------------------------------------------
    def _exact(self, q: str) -> Fraction:
        c = self.pc[q]
        if self.is_wp:
            return Fraction(c, self.tc[q[0]] * self.tc[q[1]])
        return Fraction(c)

    def _exact_entry(self, x: str) -> Fraction:
        """The exact score of a pair, or of a saturated group's pairs (x is then its token t: 1/count(t))."""
        return Fraction(1, self.tc[x]) if len(x) == 1 else self._exact(x)

    def _first_rank(self, q: str) -> tuple[int, int]:
        """Where the course's recount would first meet `q`: (word index, position).

        Remembered with the split of the word it was found in (`self.ranks`): it stays right
        while that word's split is the same object, since a word before it can only come to
        hold q when q is a new pair of a merge, and `apply` forgets those. Otherwise `where[q]`
        is searched; when the first word listed no longer holds q, the list is cleaned first
        (`_keep_words_holding`), so the next search is cheap.
        """
        words = self.words
        known = self.ranks.get(q)
        if known is not None and words[known[0][0]] is known[1]:
            return known[0]
        w = min(self.where[q])
        i = words[w].find(q)
        if i < 0:
            w = min(self._keep_words_holding(q))
            i = words[w].find(q)
        rank = (w, i)
        self.ranks[q] = (rank, words[w], (w, i - len(words[w])))  # the last: BPE's tie rank (_bpe_tie_rank)
        return rank

    def _keep_words_holding(self, q: str) -> list[int]:
        """Drop from `where[q]` the words that no longer hold q (and the repeats); return the list."""
        words = self.words
        listed = self.where[q]
        listed[:] = [w for w in set(listed) if q in words[w]]
        return listed

    def _rule_rank(self, q: str) -> tuple[int, int] | str:
        return self._first_rank(q) if self.first_rule else q

    # ----- choosing -----------------------------------------------------------------
    def choose(self) -> tuple[str, int, list[str]] | None:
        """The winning pair, how many pairs tied with it, and the ranked top-K candidates."""
        if not self.is_wp:
            return self._choose_bpe(max(1, self.config.top_k))
        return self._choose_wordpiece(max(1, self.config.top_k))

    def _first_key(self, q: str, c: int) -> tuple:
        """BPE's heap entry under the course's rule: (-count, tie rank, pair), the tie rank being (word
        index, position - the word's length). It orders as (word, position) and can only grow while
        the pair lasts (a merge after the pair shortens the word; one before it moves both), but when a
        merge makes the pair anew (in an earlier word, or earlier in one): then the pair is pushed
        again (_requeue). So some entry, like its count, is never worse than its pair is now. (Under
        the hf rule: _pack.)"""
        return (-c, self._bpe_tie_rank(q), q)

    def _bpe_tie_rank(self, q: str) -> tuple[int, int] | str:
        """A pair's tie rank: the pair (hf), or (word index, position - word length) (first)."""
        if not self.first_rule:
            return q
        self._first_rank(q)
        return self.ranks[q][2]

    def _choose_bpe(self, want: int) -> tuple[str, int, list[str]] | None:
        """BPE: the `want` best pairs, kept from step to step in a window above the heap.

        The window holds the best pairs found at the last step, with their entries as the pairs are
        now (re-made for those whose count or tie rank moved, dropped when too rare). Every other live
        pair has an entry in the heap that is no worse than the pair now: counts only fall, tie ranks
        only grow, and a pair that a merge made anew (its count rose, or its rank improved) is pushed
        again (_requeue). So the heap's top is taken into the window while it could beat the window's
        worst: a stale entry is put back as its pair is now, a dead one or one of a pair in the window
        (an older push) is dropped, and a current one enters, pushing the window's worst back to the heap.
        Each step then reads the window and the few entries that changed at the top, however many
        pairs tie. The winner leaves the window; how many pairs tie with it is read from the
        histogram of pair counts kept by `apply`."""
        heap, pc, thr, window, counted = self.bpe_heap, self.pc, self.threshold, self.window, self.counted
        key_of, pair_of, first_rule = self.key_of, self.pair_of, self.first_rule
        ranks, words = self.ranks, self.words
        for q, c in list(counted.items()):
            now = pc.get(q, 0)
            if now < thr:
                del window[q], counted[q]
            elif now != c:
                window[q] = key_of(q, now)
                counted[q] = now
            elif first_rule:  # re-keyed unless its key holds the rank remembered, still valid (see _first_rank)
                known = ranks.get(q)  # (a merge that re-makes a token forgets and re-reads some ranks)
                if known is None or window[q][1] is not known[2] or words[known[0][0]] is not known[1]:
                    window[q] = key_of(q, now)
        best = sorted(window.values())
        pop, push, replace = heapq.heappop, heapq.heappush, heapq.heapreplace
        while heap and (len(best) < want or heap[0] < best[-1]):
            key = heap[0]
            q = pair_of(key)
            c = pc.get(q, 0)
            if c < thr or q in window:  # (in the window: an older push of a pair pushed again since)
                pop(heap)
                continue
            now = key_of(q, c)
            if now != key:
                replace(heap, now)
                continue
            pop(heap)
            window[q] = key
            counted[q] = c
            insort(best, key)
            if len(best) > want:
                worst = best.pop()
                q = pair_of(worst)
                del window[q], counted[q]
                push(heap, worst)
        if not best:
            return None
        ranked = sorted(window, key=window.__getitem__)
        winner = ranked[0]
        c = counted.pop(winner)
        del window[winner]
        return winner, self.hist[c], ranked

    def _choose_wordpiece(self, want: int) -> tuple[str, int, list[str]] | None:
        """WordPiece: the `want` best pairs, kept from step to step in a window out of the heap.

        An entry's key bounds its pair's current score within a factor `self.slack`
        (see _requeue): a score can RISE after its push, so unlike BPE's (_choose_bpe)
        no entry is known to be no better than its key. The window holds the best pairs of
        the last step (but its winner) and those just below, out of the heap; their scores are
        recomputed.
        Then entries are popped from the heap while the best key left, times the slack,
        could beat the `want`-th score found: a dead pair's entry, or one older than its
        pair's latest push (`self.latest`), or one of a pair in the window, is dropped; a
        live pair's score is computed. The pairs found within the slack of the `want`-th
        score form the next window; the others go back to the heap with their scores now
        (their keys then are exact, and the slack holds from there, see _requeue).
        WordPiece has many exact ties (pairs that always occur together score 1/count):
        those saturated pairs are in groups, outside the heap and the window (_regroup).
        """
        heap, pc, tc, thr = self.heap, self.pc, self.tc, self.threshold
        latest, grouped = self.latest, self.group_of
        slack = self.slack * (1 + _FLOAT_WINDOW)  # and the float margin
        found: dict[str, float] = {}
        best: list[float] = []  # min-heap of the `want` best values
        # The saturated groups that may hold one of the best (see _regroup): their values go into
        # `best` first, so the heap is read only while one of its pairs could beat them.
        groups = self._best_groups(want) if self.by_count else []
        for c, t in groups:  # (best first: the first `want` members are the best)
            n = min(len(self.members[t]), want - len(best))
            if n <= 0:
                break
            best += [1 / c] * n
        # The window's pairs, as they are now (a pair that died or joined a group leaves it).
        window = self.wp_window
        for q in window:
            c = pc.get(q, 0)
            if c >= thr and q not in grouped:
                v = found[q] = c / (tc[q[0]] * tc[q[1]])
                best.append(v)
        best.sort(reverse=True)
        del best[want:]
        heapq.heapify(best)
        full = len(best) >= want
        pop, push, replace = heapq.heappop, heapq.heappush, heapq.heapreplace
        while True:
            while heap:
                key, q = heap[0]
                if full and -key * slack < best[0]:
                    break  # nothing left can do better
                pop(heap)
                c = pc.get(q, 0)
                if c < thr or key != latest.get(q) or q in found:
                    continue  # dead, an older entry of a pair pushed again since, or one in the window
                v = found[q] = c / (tc[q[0]] * tc[q[1]])
                if not full:
                    push(best, v)
                    full = len(best) >= want
                elif v > best[0]:
                    replace(best, v)
            if self.sleep_bound and (not full or best[0] < self.sleep_bound * slack):
                self._wake(found)  # a pair asleep might beat the K-th best: all go back to the heap
                continue
            break
        self.floor = best[0] * _WP_FLOOR if full else 0.0
        if not found and not groups:
            return None
        for c, t in groups:  # a group's entry is its token t: one character, where a pair has two
            found[t] = 1 / c
        tokens = {t for _, t in groups}
        value_of = found.__getitem__
        rank_of = self._first_rank if self.first_rule else None  # hf: the pair string
        order = sorted(found, key=value_of, reverse=True)
        values = list(map(value_of, order))
        ranked: list[str] = []
        ties = 1
        if len(set(values)) == len(values):
            # Most steps: no two entries at the same value, so each group is alone at its score
            # (distinct floats are distinct fractions, in the same order: division rounds correctly).
            start = 0
            for k in sorted(map(order.index, tokens)):  # where the groups are, best first
                ranked += order[start:k]
                if len(ranked) >= want:
                    break
                if k == 0:
                    ties = len(self.members[order[0]])
                ranked += self._group_top(order[k], want - len(ranked))
                start = k + 1
                if len(ranked) >= want:
                    break
            else:
                ranked += order[start:start + want - len(ranked)]
        else:
            first = True
            for _, same in groupby(order, key=value_of):
                group = list(same)
                if len(group) == 1 and group[0] in tokens:  # one group alone at this score
                    t = group[0]
                    group = self._group_top(t, want - len(ranked))
                    if first:
                        ties = len(self.members[t])
                elif tokens and not tokens.isdisjoint(group):
                    # Groups among them: order by exact score, then each tie by the rule, taking from
                    # each group the members that can still make the top `want`.
                    exact_of = {x: self._exact_entry(x) for x in group}.__getitem__
                    ordered: list[str] = []
                    for k, (_, tied) in enumerate(groupby(sorted(group, key=exact_of, reverse=True), key=exact_of)):
                        pairs: list[str] = []
                        held = 0
                        for x in tied:
                            if len(x) == 1:
                                pairs += self._group_top(x, want - len(ranked) - len(ordered))
                                held += len(self.members[x])
                            else:
                                pairs.append(x)
                                held += 1
                        pairs.sort(key=rank_of)
                        if first and k == 0:
                            ties = held
                        ordered += pairs
                        if len(ranked) + len(ordered) >= want:
                            break
                    group = ordered
                elif len(group) > 1:
                    if not self._all_equal(group):
                        # Two different fractions rounded to the same float: rare.
                        exact = {q: self._exact(q) for q in group}
                        group.sort(key=lambda q: (-exact[q], self._rule_rank(q)))
                        if first:
                            ties = sum(1 for q in group if exact[q] == exact[group[0]])
                    else:
                        group.sort(key=rank_of)
                        if first:
                            ties = len(group)
                ranked += group
                first = False
                if len(ranked) >= want:
                    break
        winner = ranked[0]
        # The next window: the pairs found (a group's entry is its token: one character) that the
        # heap would give up again at the next step, the `want`-th score being about the same:
        # those within the slack of it. The others go back to the heap, with their scores now.
        if winner in found:
            del found[winner]
            latest.pop(winner, None)  # (a window pair put to sleep has none: see _requeue)
        low = best[0] / slack if full else 0.0
        kept = self.wp_window = []
        for q, v in found.items():
            if len(q) == 2:
                if v >= low:
                    kept.append(q)
                else:
                    key = latest[q] = -v
                    push(heap, (key, q))
        return winner, ties, ranked[:want]

    def _wake(self, found: dict[str, float]) -> None:
        """Push every pair asleep (see _requeue) with its score now, but those `found` already."""
        pc, tc, thr, latest, grouped, heap = self.pc, self.tc, self.threshold, self.latest, self.group_of, self.heap
        for q in self.asleep:
            c = pc.get(q, 0)
            if c >= thr and q not in grouped and q not in found:
                key = latest[q] = _wp_key(c, tc[q[0]], tc[q[1]])
                heapq.heappush(heap, (key, q))
        self.asleep.clear()
        self.sleep_bound = 0.0

    # ----- WordPiece's saturated groups ---------------------------------------------
    # Late in a training, hundreds of pairs tie exactly: x + ##e where x is always followed by ##e
    # (count(x ##e) = count(x)) scores count(x ##e) / (count(x) × count(##e)) = 1/count(##e), and so
    # does ##e + y where y always follows ##e. Such a pair is "saturated" on one side (x, or y), and
    # its score is 1/count(t) of its other token t. It is kept out of `heap`, in t's group: the group
    # moves as one when count(t) falls (`by_count`, keyed by count(t)), and its members wait in the
    # tie rule's order (`by_rank[t]`), so a step reads the few it needs instead of the whole tie.
    def _regroup(self, q: str, fresh: bool = False) -> None:
        """Put q in the group its counts call for, or none (then its score is in `heap`).

        Called for every pair whose count changed (`fresh`: it may be met in an earlier word now),
        and for the pairs of each token whose count changed (see _requeue)."""
        pc, tc = self.pc, self.tc
        c = pc.get(q, 0)
        new = None
        if c >= self.threshold and q[0] != q[1]:
            if c == tc[q[0]]:
                new = q[1]
            elif c == tc[q[1]]:
                new = q[0]
        old = self.group_of.get(q)
        if old == new:
            if new is not None and fresh and self.first_rule:  # its tie rank may have improved
                heapq.heappush(self.by_rank[new], (self._bpe_tie_rank(q), q))
            return
        if old is not None:
            del self.group_of[q]
            _discard(self.members, old, q)
            _discard(self.sat_on, q[0] if old == q[1] else q[1], q)
            if old not in self.members:
                del self.by_rank[old]
            if new is None and c >= self.threshold:  # back into the heap, with its score now
                key = self.latest[q] = _wp_key(c, tc[q[0]], tc[q[1]])
                heapq.heappush(self.heap, (key, q))
        else:
            self.latest.pop(q, None)  # its entries in the heap go stale
        if new is not None:
            self.group_of[q] = new
            group = self.members.get(new)
            if group is None:
                group = self.members[new] = set()
                self.by_rank[new] = []
                heapq.heappush(self.by_count, (tc[new], new))
            group.add(q)
            self.sat_on.setdefault(q[0] if new == q[1] else q[1], set()).add(q)
            heapq.heappush(self.by_rank[new], (self._bpe_tie_rank(q), q))

    def _regroup_token(self, u: str, fell: bool) -> None:
        """After count(u) changed: regroup the pairs saturated on u before, and those saturated on it now.

        A pair can only become saturated on u when count(u) fell to its count. The pairs of u other
        than the merge's new ones (regrouped already) only lose count, so while count(u) is above
        `bound[u]`, the largest count among them when last looked at, none can: only then are the
        pairs of u (thousands, for a token such as ##e) searched, in C."""
        count = self.tc.get(u, 0)
        now: Iterable[str] = ()
        if fell and count and count <= self.bound.get(u, 0):
            pairs, get = self.pairs_of[u], self.pc.get
            self.bound[u] = max(map(get, pairs, repeat(0)), default=0)
            now = compress(pairs, map(eq, map(get, pairs), repeat(count)))
        for q in self.sat_on.get(u, set()) | set(now):
            self._regroup(q)
        if u in self.members:  # its group's score changed
            heapq.heappush(self.by_count, (count, u))

    def _best_groups(self, want: int) -> list[tuple[int, str]]:
        """The groups that may hold one of the `want` best pairs: (count(t), t), the best first.

        Taken in order until they hold `want` pairs, and every group tied with the last taken."""
        heap, members, tc = self.by_count, self.members, self.tc
        taken: list[tuple[int, str]] = []
        held = 0
        while heap:
            c, t = heap[0]
            if tc.get(t) != c or t not in members or (taken and taken[-1][1] == t):
                heapq.heappop(heap)  # stale, or a second entry of a group taken
                continue
            if held >= want and c != taken[-1][0]:
                break
            taken.append(heapq.heappop(heap))
            held += len(members[t])
        for entry in taken:
            heapq.heappush(heap, entry)
        return taken

    def _group_top(self, t: str, n: int) -> list[str]:
        """The first `n` members of t's group in the tie rule's order (their entries stay)."""
        heap, members = self.by_rank[t], self.members[t]
        first_rule, tie_rank = self.first_rule, self._bpe_tie_rank
        out: list[tuple] = []
        taken: set[str] = set()
        while heap and len(out) < n:
            rank, q = heap[0]
            if q not in members or q in taken:
                # Left the group, or another entry of one taken: an older one, after a merge that
                # re-made a token let its rank improve (see _regroup), is not always next to it.
                heapq.heappop(heap)
            elif first_rule and tie_rank(q) != rank:
                # Its rank grew: it sinks. (One whose rank improved has a newer entry, met first.)
                heapq.heapreplace(heap, (tie_rank(q), q))
            else:
                out.append(heapq.heappop(heap))
                taken.add(q)
        for entry in out:
            heapq.heappush(heap, entry)
        return [q for _, q in out]

    def _all_equal(self, group: list[str]) -> bool:
        """Whether the WordPiece scores of `group` are exactly equal (integer cross-multiplication).

        In C: late in a training a group can hold hundreds of tied pairs, checked at every step."""
        count = self.tc.__getitem__
        q0 = group[0]
        num0, den0 = self.pc[q0], count(q0[0]) * count(q0[1])
        lhs = map(mul, map(self.pc.__getitem__, group), repeat(den0))  # count(ab) × den0
        dens = map(mul, map(count, map(itemgetter(0), group)), map(count, map(itemgetter(1), group)))
        return all(map(eq, lhs, map(mul, dens, repeat(num0))))  # … == num0 × count(a) × count(b)

    # ----- merging ------------------------------------------------------------------
    def _merged_occurrences(self, q: str) -> int:
        """How many times (weighted) a left-to-right merge of q would apply.

        For "a" + "a", counted from the words and remembered with the pair's count: a merge that
        changes a run of a's lowers that count, and only a merge that makes the token a (which
        exists already) can raise it somewhere else at the same time (run() then forgets them all)."""
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
        counts) and the other pairs whose count changed.

        A word with one occurrence changes only the pairs beside it: its index
        is filed under its left and right neighbour, and the pair counts are
        updated once per distinct neighbour (summing the files' frequencies),
        not once per word. A word with several occurrences (or a repeated
        token, "aaaa") is recounted whole.
        """
        words, freqs, pc = self.words, self.freqs, self.pc
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
            touched.append(w)
            n = len(s)
            if len(t) == n - 1:  # one occurrence
                if i:
                    left[s[i - 1]].append(w)
                if i + 2 < n:
                    right[s[i + 2]].append(w)
            else:  # several occurrences: the difference of the word's pair counts, counted in C
                f = freqs[w]
                made += (s.count(p) - 1) * f  # the first occurrence is counted with the rest below
                old_pairs = Counter(map(add, s, s[1:]))
                new_pairs = Counter(map(add, t, t[1:]))
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
            changed = [old_q for old_q, _, _ in sides] if self.is_wp else []  # (only WordPiece regroups)
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
            changed = [q for q, d in delta.items() if d and q not in holders] if self.is_wp else []
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


    def _requeue(self, p: str, nc: str, existed: bool, fresh: dict[str, int], changed: list[str]) -> None:
        """Push what the merge changed.

        BPE: only the new pairs; every other count only fell, and a stale
        (too high) key is corrected when it reaches the top.

        WordPiece: a merge lowers count(a) and count(b), which RAISES the score
        of every other pair containing a or b. Re-pushing all of them after
        every merge is the slow part, so a token's pairs are re-pushed only
        once its count has fallen by the factor `_WP_SLACK` since they last
        were. Every live pair then has an entry pushed when both its tokens'
        counts were at most their reference counts, so its current score is at
        most that entry's key × _WP_SLACK², and the choice looks that much deeper.

        A re-pushed pair whose score is below `self.floor` (a fraction _WP_FLOOR of the
        last step's K-th best) is not pushed but put to sleep (`self.asleep`; its `latest`
        entry is dropped, so its older entries go stale). Its score then stays below the
        largest floor it slept under (`self.sleep_bound`) × _WP_SLACK² until one of its
        tokens is re-pushed again, when it is looked at anew, or a merge makes it anew
        (then it is pushed with the fresh pairs); the choice wakes every sleeper (_wake)
        before the K-th best score falls that low. A pair of the choice's window
        (`wp_window`) may be put to sleep too: the window re-reads it at every step, and it
        gets a heap entry (and `latest`) again when it leaves the window.
        """
        heap, pc, thr, tc, latest = self.heap, self.pc, self.threshold, self.tc, self.latest
        push = heapq.heappush
        if not self.is_wp:
            if self.first_rule:
                key_of = self.key_of
                for q, c in fresh.items():
                    if c >= thr:
                        push(self.bpe_heap, key_of(q, c))
            else:
                for q, c in fresh.items():
                    if c >= thr:
                        push(self.bpe_heap, (-c << 42) + (ord(q[0]) << 21) + ord(q[1]))  # (_pack, inline)
            return
        pairs_of, ref, grouped = self.pairs_of, self.ref, self.group_of
        bound, floor, asleep = self.bound, self.floor, self.asleep
        slept = False
        for q, c in fresh.items():
            pairs_of[q[0]].add(q)
            pairs_of[q[1]].add(q)
            _raise_bound(bound, q, c)
        # Saturated groups first (see _regroup): a pair that joins one leaves the heap, one that
        # leaves is pushed with its score now.
        regroup = self._regroup
        regroup(p)
        for q in changed:
            regroup(q)
        for q in fresh:
            regroup(q, True)
        for t in {p[0], p[1]}:
            self._regroup_token(t, True)
        self._regroup_token(nc, False)  # its count rose, or it is new (its pairs were all regrouped)
        for q in fresh:
            c = pc[q]
            if c >= thr and q not in grouped:
                key = latest[q] = _wp_key(c, tc[q[0]], tc[q[1]])
                push(heap, (key, q))
        ref[nc] = tc[nc]
        for t in {p[0], p[1], nc} if existed else {p[0], p[1]}:
            count = tc[t]
            if count and (t == nc or ref[t] > count * _WP_SLACK):
                ref[t] = count
                group = pairs_of[t]
                dead = []
                for q in group:
                    c = pc.get(q, 0)
                    if c >= thr:
                        if q in grouped:
                            continue
                        score = c / (tc[q[0]] * tc[q[1]])  # (-_wp_key, inline: the loop is hot)
                        if score < floor:
                            latest.pop(q, None)
                            asleep.add(q)
                            slept = True
                        elif -score != latest.get(q):
                            key = latest[q] = -score
                            push(heap, (key, q))
                    elif c == 0:
                        dead.append(q)
                for q in dead:
                    group.discard(q)
                    pc.pop(q, None)
                    latest.pop(q, None)
        if slept and floor > self.sleep_bound:
            self.sleep_bound = floor
        if len(heap) > 2 * len(latest) + _COMPACT_ABOVE:
            # Most entries are older keys of pairs pushed again since: drop them, as the choice
            # would on meeting them, so that the heap stays about as large as the pairs.
            heap[:] = [e for e in heap if latest.get(e[1]) == e[0]]
            heapq.heapify(heap)

    # ----- the loop -----------------------------------------------------------------
    def _token_of(self, q: str) -> str:
        """The token merging q makes (its string), made once per pair."""
        token = self.joined.get(q)
        if token is None:
            token = self.joined[q] = new_token(self.id_to_tok[ord(q[0])], self.id_to_tok[ord(q[1])], self.prefix)
        return token

    def _record_candidates(self, ranked: list[str], rec: StepRecorder) -> None:
        """Append the ranked pairs' numbers to the candidate columns (records are made when viewed).

        In C but for the rare candidates whose two tokens are the same or whose token exists already
        (see StepRecorder)."""
        pc, tc = self.pc, self.tc
        pairs = "".join(ranked)
        lefts, rights = pairs[0::2], pairs[1::2]
        row = rec.cand_start[-1]  # the first candidate's row
        rec.c_pairs.append(pairs)
        while True:
            try:
                rec.c_pair_count.extend(map(pc.__getitem__, ranked))
                rec.c_left_count.extend(map(tc.__getitem__, lefts))
                rec.c_right_count.extend(map(tc.__getitem__, rights))
                break
            except OverflowError:  # a count beyond 32 bits: the columns become 64-bit (once); the step again
                if rec.c_pair_count.itemsize == 8:
                    raise
                rec.widen(row)
        if any(map(eq, lefts, rights)):  # "a" + "a": merging "aaa" makes one "aa", not two
            for k, q in enumerate(ranked):
                if q[0] == q[1]:
                    rec.merged_rows[row + k] = self._merged_occurrences(q)
        # The count of the token a merge would make, when that token is in the vocabulary already.
        joined = self.joined
        for q in filterfalse(joined.__contains__, ranked):  # (about one a step: a pair new to the top)
            self._token_of(q)
        tok_to_id = self.tok_to_id
        if not tok_to_id.keys().isdisjoint(map(joined.__getitem__, ranked)):
            for k, n in enumerate(map(tok_to_id.get, map(joined.__getitem__, ranked))):
                count = tc.get(chr(n), 0) if n is not None else 0
                if count:
                    rec.new_count_rows[row + k] = count
        rec.cand_start.append(row + len(ranked))

    def _release(self) -> None:
        """Empty the training state (the training is over): the memory is reused for the trace's columns,
        made next, instead of adding to the peak."""
        for held in (self.pc, self.where, self.heap, self.bpe_heap, self.window, self.counted, self.latest,
                     self.ranks, self.hist, self.bound, self.words, self.joined, self.runs, self.group_of, self.members,
                     self.sat_on, self.by_rank, self.by_count, self.tc, self.asleep):
            held.clear()
        if self.is_wp:
            self.pairs_of.clear()
            self.ref.clear()

    def _part(self, rec: StepRecorder, start: int, stop: int) -> Steps:
        """Steps `start` to `stop` so far, without their touched words (for a Watch)."""
        return rec.part(self.id_to_tok, self.config.algorithm, self.config.prefix, start, stop, touched=False)

    def run(self, watch: Watch | None = None) -> Training:
        cfg = self.config
        rec = StepRecorder()
        steps = 0
        todo = max(cfg.vocab_size - len(self.id_to_tok), 0)
        stop = "reached the vocabulary size"
        if todo == 0:
            stop = "the special tokens and the alphabet already fill the vocabulary size"
        tc = self.tc
        part = partial(self._part, rec)
        while len(self.tok_to_id) < cfg.vocab_size:
            chosen = self.choose()
            if chosen is None:
                stop = (
                    "no pair is left to merge"
                    if not any(c >= 1 for c in self.pc.values())
                    else f"no pair occurs at least {cfg.min_frequency} times (min frequency)"
                )
                break
            p, ties, ranked = chosen
            if cfg.min_score is not None:
                score = self._exact(p)
                if score < cfg.min_score:
                    stop = f"the best score {float(score):.6g} fell below the threshold {float(cfg.min_score):.6g}"
                    break
            a, b = ord(p[0]), ord(p[1])
            new_tok = self._token_of(p)
            existed = new_tok in self.tok_to_id
            if existed:
                n = self.tok_to_id[new_tok]
            else:
                n = len(self.id_to_tok)
                if n > _MAX_TOKENS:
                    raise WordPieceError(f"more than {_MAX_TOKENS:,} tokens: choose a smaller vocabulary size")
            if cfg.top_k:
                self._record_candidates(ranked, rec)
            else:
                rec.cand_start.append(rec.cand_start[-1])
            nc = chr(n)
            rec.left_id.append(a)
            rec.right_id.append(b)
            rec.new_id.append(n)
            rec.pair_count.append(self.pc[p])
            rec.left_count.append(tc[p[0]])
            rec.right_count.append(tc[p[1]])
            rec.ties.append(ties)
            rec.total.append(self.total)
            rec.new_count.append(tc.get(nc, 0))
            if not existed:
                self.id_to_tok.append(new_tok)
                self.tok_to_id[new_tok] = n
            elif self.runs:
                self.runs.clear()  # (see _merged_occurrences)
            touched, made, fresh, changed = self.apply(p, nc, existed)
            self._requeue(p, nc, existed, fresh, changed)
            rec.vocab_size.append(len(self.tok_to_id))
            rec.existed.append(existed)
            rec.merged_count.append(made)
            rec.touched.extend(touched)
            rec.touched_start.append(len(rec.touched))
            steps += 1
            if self.progress is not None:
                self.progress(steps, todo)
            if watch is not None:
                watch(steps, False, part)
        if watch is not None:
            watch(steps, True, part)
        self._release()
        return Training(
            config=cfg,
            words=tuple(self.word_list),
            counts=tuple(self.freqs),
            initial_vocab=self.initial_vocab,
            steps=rec.finish(self.id_to_tok, cfg.algorithm, cfg.prefix),
            stop_reason=stop,
        )
