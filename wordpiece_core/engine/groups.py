"""WordPiece's groups of exactly tied pairs, kept out of the heap.

Late in a training, hundreds of pairs tie exactly: x + ##e where x is always followed by ##e
(count(x ##e) = count(x)) scores count(x ##e) / (count(x) × count(##e)) = 1/count(##e), and so
does ##e + y where y always follows ##e. Such a pair is "saturated" on one side (x, or y), and
its score is 1/count(t) of its other token t. It is kept out of the WordPiece heap, in t's
group: the group moves as one when count(t) falls (`by_count`, keyed by count(t)), and its
members wait in the tie rule's order (`by_rank[t]`), so a step reads the few it needs instead
of the whole tie.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable
from itertools import compress, repeat
from operator import eq

from .keys import wordpiece_key
from .state import MergeState


def raise_bound(bound: defaultdict[str, int], q: str, c: int) -> None:
    """Keep bound[t] at least the count c of the pair q, for both its tokens t (see TieGroups.regroup_token)."""
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


class TieGroups:
    """The saturated pairs, grouped by the token t whose count decides their score 1/count(t).

    A pair that leaves a group goes back to the WordPiece heap (`heap`, `latest`: the chooser's)
    with its score now; one that joins a group leaves it (its `latest` entry is dropped, so its
    heap entries go stale). Keys only while non-empty: a training of 30,000 merges would otherwise
    keep two empty sets and a heap for most of its tokens."""

    def __init__(self, state: MergeState, heap: list[tuple[float, str]], latest: dict[str, float],
                 pairs_of: defaultdict[str, set[str]]):
        self.state = state
        self.pc, self.tc = state.pc, state.tc  # (the state's dicts, read at every regroup)
        self.heap = heap
        self.latest = latest
        self.pairs_of = pairs_of
        self.group_of: dict[str, str] = {}  # pair -> its group's token t (the pair scores 1/count(t))
        self.members: dict[str, set[str]] = {}  # t -> the pairs of its group
        self.sat_on: dict[str, set[str]] = {}  # u -> grouped pairs saturated on u
        self.by_rank: dict[str, list[tuple]] = {}  # t -> (tie rank, pair), a heap
        self.by_count: list[tuple[int, str]] = []  # (count(t), t) of the groups: the best group on top
        # u -> at least the largest count of a pair with u (see regroup_token)
        self.bound: defaultdict[str, int] = defaultdict(int)

    def regroup(self, q: str, fresh: bool = False) -> None:
        """Put q in the group its counts call for, or none (then its score is in the heap).

        Called for every pair whose count changed (`fresh`: it may be met in an earlier word now),
        and for the pairs of each token whose count changed (see WordPieceChooser.requeue)."""
        st = self.state
        pc, tc = self.pc, self.tc
        c = pc.get(q, 0)
        new = None
        if c >= st.threshold and q[0] != q[1]:
            if c == tc[q[0]]:
                new = q[1]
            elif c == tc[q[1]]:
                new = q[0]
        old = self.group_of.get(q)
        if old == new:
            if new is not None and fresh and st.first_rule:  # its tie rank may have improved
                heapq.heappush(self.by_rank[new], (st.tie_rank(q), q))
            return
        if old is not None:
            del self.group_of[q]
            _discard(self.members, old, q)
            _discard(self.sat_on, q[0] if old == q[1] else q[1], q)
            if old not in self.members:
                del self.by_rank[old]
            if new is None and c >= st.threshold:  # back into the heap, with its score now
                key = self.latest[q] = wordpiece_key(c, tc[q[0]], tc[q[1]])
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
            heapq.heappush(self.by_rank[new], (st.tie_rank(q), q))

    def regroup_token(self, u: str, fell: bool) -> None:
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
            self.regroup(q)
        if u in self.members:  # its group's score changed
            heapq.heappush(self.by_count, (count, u))

    def best(self, want: int) -> list[tuple[int, str]]:
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

    def top(self, t: str, n: int) -> list[str]:
        """The first `n` members of t's group in the tie rule's order (their entries stay)."""
        heap, members = self.by_rank[t], self.members[t]
        first_rule, tie_rank = self.state.first_rule, self.state.tie_rank
        out: list[tuple] = []
        taken: set[str] = set()
        while heap and len(out) < n:
            rank, q = heap[0]
            if q not in members or q in taken:
                # Left the group, or another entry of one taken: an older one, after a merge that
                # re-made a token let its rank improve (see regroup), is not always next to it.
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

    def release(self) -> None:
        for held in (self.group_of, self.members, self.sat_on, self.by_rank, self.by_count, self.bound):
            held.clear()

    def check(self) -> None:
        """Assert that a pair is grouped exactly when it is saturated and may merge, under the token the
        rule names; that no grouped pair has a live heap key; that no empty set or heap is kept; and that
        every member waits in its group under a tie rank no worse than its rank now."""
        st = self.state
        pc, tc, thr = st.pc, st.tc, st.threshold
        expected = {}
        for q, n in pc.items():
            if n >= thr and q[0] != q[1]:
                if n == tc[q[0]]:
                    expected[q] = q[1]
                elif n == tc[q[1]]:
                    expected[q] = q[0]
        assert self.group_of == expected, "the groups do not hold exactly the saturated pairs"
        assert self.members == {t: {q for q, g in expected.items() if g == t} for t in set(expected.values())}
        assert not set(expected) & set(self.latest), "a grouped pair has a live heap entry"
        assert all(self.members.values()) and all(self.sat_on.values()), "an empty group is kept"
        assert set(self.by_rank) == set(self.members)
        for q, t in expected.items():
            assert min(rank for rank, x in self.by_rank[t] if x == q) <= st.tie_rank(q), "a member waits too low"
