"""BPE's chooser: the most frequent pair, found in a small window kept above a heap.

BPE keys only go stale downwards (counts only fall), so only new pairs are pushed, and ties
are counted from the histogram of pair counts the shared state keeps. The top K found at a
step is kept for the next, in a window above the heap: each step re-reads those K pairs and
takes from the heap only the entries that could beat the window's worst (about one a step,
and the stale ones), however many pairs tie. The tie rank is in the entry (the pair for hf;
where the course first meets it for first, which also only worsens, but when a merge makes
the pair anew: then it is pushed again, as a new pair is).
"""

from __future__ import annotations

import heapq
from bisect import insort
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from .keys import pack, packed_pair
from .state import MergeState


class BpeChooser:
    """The heap of BPE's pairs and the window of the last step's best (see the module's docstring).

    Heap entries: one int under the hf rule, (-count << 42) + (left id << 21) + right id (keys.pack);
    (-count, tie rank, pair) under the course's rule (`first_key`). A min-heap: the best pair on top.
    """

    def __init__(self, state: MergeState):
        self.state = state
        # The best pairs of the last step: pair -> its entry, and the count it was made with
        self.window: dict[str, Any] = {}
        self.counted: dict[str, int] = {}
        # A pair's heap entry, and the pair of an entry
        self.key_of: Callable[[str, int], Any] = self.first_key if state.first_rule else pack
        self.pair_of: Callable[[Any], str] = itemgetter(2) if state.first_rule else packed_pair
        thr = state.threshold
        self.heap: list = [self.key_of(q, c) for q, c in state.pc.items() if c >= thr]
        heapq.heapify(self.heap)

    def first_key(self, q: str, c: int) -> tuple:
        """The heap entry under the course's rule: (-count, tie rank, pair), the tie rank being (word
        index, position - the word's length) (state.tie_rank). It orders as (word, position) and can only
        grow while the pair lasts, but when a merge makes the pair anew: then the pair is pushed again
        (`requeue`). So some entry, like its count, is never worse than its pair is now."""
        return (-c, self.state.tie_rank(q), q)

    def choose(self, want: int) -> tuple[str, int, list[str]] | None:
        """The winning pair, how many pairs tied with it, and the `want` best pairs, best first.

        The window holds the best pairs found at the last step, with their entries as the pairs are
        now (re-made for those whose count or tie rank moved, dropped when too rare). Every other live
        pair has an entry in the heap that is no worse than the pair now: counts only fall, tie ranks
        only grow, and a pair that a merge made anew (its count rose, or its rank improved) is pushed
        again (`requeue`). So the heap's top is taken into the window while it could beat the window's
        worst: a stale entry is put back as its pair is now, a dead one or one of a pair in the window
        (an older push) is dropped, and a current one enters, pushing the window's worst back to the heap.
        Each step then reads the window and the few entries that changed at the top, however many
        pairs tie. The winner leaves the window; how many pairs tie with it is read from the
        histogram of pair counts kept by the state's `apply`."""
        st = self.state
        heap, pc, thr, window, counted = self.heap, st.pc, st.threshold, self.window, self.counted
        key_of, pair_of, first_rule = self.key_of, self.pair_of, st.first_rule
        ranks, versions = st.ranks, st.versions
        for q, c in list(counted.items()):
            now = pc.get(q, 0)
            if now < thr:
                del window[q], counted[q]
            elif now != c:
                window[q] = key_of(q, now)
                counted[q] = now
            elif first_rule:  # re-keyed unless its key holds the rank remembered, still valid (see first_rank)
                known = ranks.get(q)  # (a merge that re-makes a token forgets and re-reads some ranks)
                if known is None or window[q][1] is not known[2] or versions[known[0][0]] != known[1]:
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
        return winner, st.hist[c], ranked

    def requeue(self, p: str, nc: str, existed: bool, fresh: dict[str, int], changed: list[str]) -> None:
        """Push the merge's new pairs; every other count only fell, and a stale (too high) entry is
        corrected when it reaches the top."""
        heap, thr, push = self.heap, self.state.threshold, heapq.heappush
        if self.state.first_rule:
            key_of = self.key_of
            for q, c in fresh.items():
                if c >= thr:
                    push(heap, key_of(q, c))
        else:
            for q, c in fresh.items():
                if c >= thr:
                    push(heap, (-c << 42) + (ord(q[0]) << 21) + ord(q[1]))  # (keys.pack, inline: measured)

    def release(self) -> None:
        for held in (self.heap, self.window, self.counted):
            held.clear()

    def check(self) -> None:
        """Assert that every live pair has an entry, in the heap or the window, no worse than its key now."""
        st = self.state
        entries: dict[str, list] = {}
        for key in self.heap:
            entries.setdefault(self.pair_of(key), []).append(key)
        for q, c in st.pc.items():
            if c < st.threshold:
                continue
            if q in self.window:  # (re-read at every step)
                continue
            now = self.key_of(q, c)
            assert any(key <= now for key in entries.get(q, ())), "a live pair has no entry as good as it is now"
