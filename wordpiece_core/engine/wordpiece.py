"""WordPiece's chooser: the best count(ab) / (count(a) × count(b)), found lazily.

A merge lowers count(a) and count(b), which RAISES the score of every other pair containing a or
b. Their entries are re-pushed only when a token's count has fallen by a factor `slack` (0.5%)
since the last time; in between, a key may be up to that much too low, and the choice looks that
much deeper. As for BPE, the best pairs of a step are kept for the next, out of the heap, and the
heap gives up only the entries that could beat them; the others met go back with their scores
now. A token's re-pushed pairs that score below a `floor` (a quarter) of the last K-th best are
not pushed but sleep, until one of their tokens is re-pushed again or the K-th best could fall to
their bound. Once most entries are stale, the heap is rebuilt from the current ones. WordPiece's
long exact ties (pairs that score exactly 1/count(t)) are kept out of the heap, in groups
(groups.py).

Heap keys are floats, but the choice is exact: every entry that could hold the best score is
examined, near-equal scores are compared as fractions, and ties are broken by the configured
rule (reference.tie_key).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from itertools import groupby, repeat
from operator import eq, itemgetter, mul

from .groups import TieGroups, raise_bound
from .keys import wordpiece_key, wordpiece_score
from .state import MergeState

FLOAT_WINDOW = 1e-9  # relative; float division is correctly rounded, so 1e-9 is ample


@dataclass(frozen=True)
class Tuning:
    """How much work WordPiece's choice does; no setting changes a result (the property tests vary them).

    slack: how far a token's count may fall before its pairs are re-pushed;
    floor: a re-pushed pair scoring below this × the K-th best sleeps (see WordPieceChooser.requeue);
    compact_above: entries beyond twice the pairs' before the heap drops its stale ones."""

    slack: float = 1.005
    floor: float = 0.25
    compact_above: int = 4096


class WordPieceChooser:
    """WordPiece's heap of (key, pair) entries, its window, its sleepers and its tie groups."""

    def __init__(self, state: MergeState, tuning: Tuning = Tuning()):
        self.state = state
        self.tuning = tuning
        pc, tc, thr = state.pc, state.tc, state.threshold
        # How far below its pair's score a key may be: the slack for each token (see requeue).
        self.slack = tuning.slack**2
        self.ref = dict(tc)  # each token's count when its pairs were last pushed (see requeue)
        self.pairs_of: defaultdict[str, set[str]] = defaultdict(set)
        for q in pc:
            self.pairs_of[q[0]].add(q)
            self.pairs_of[q[1]].add(q)
        self.heap: list[tuple[float, str]] = []  # (key, pair), key = -score when pushed: a min-heap
        self.latest: dict[str, float] = {}  # pair -> the key of its newest entry (older entries are stale)
        self.window: list[str] = []  # the best pairs of the last step, out of the heap
        # Pairs re-pushed below the floor are not pushed but asleep (see requeue)
        self.floor = 0.0
        self.asleep: set[str] = set()
        self.sleep_bound = 0.0  # the largest floor a pair asleep now slept under
        self.groups = groups = TieGroups(state, self.heap, self.latest, self.pairs_of)
        bound = groups.bound
        for q, c in pc.items():
            raise_bound(bound, q, c)
            if c >= thr and (c == tc[q[0]] or c == tc[q[1]]):
                groups.regroup(q)
        grouped = groups.group_of
        self.heap[:] = [(wordpiece_key(c, tc[q[0]], tc[q[1]]), q) for q, c in pc.items() if c >= thr and q not in grouped]
        heapq.heapify(self.heap)
        self.latest.update({q: key for key, q in self.heap})

    def choose(self, want: int) -> tuple[str, int, list[str]] | None:
        """The winning pair, how many pairs tied with it, and the `want` best pairs, best first.

        An entry's key bounds its pair's current score within a factor `slack` (see requeue): a
        score can RISE after its push, so unlike BPE's no entry is known to be no better than its
        key. The window holds the best pairs of the last step (but its winner) and those just
        below, out of the heap; their scores are recomputed. Then entries are popped from the heap
        while the best key left, times the slack, could beat the `want`-th score found: a dead
        pair's entry, or one older than its pair's latest push (`latest`), or one of a pair in the
        window, is dropped; a live pair's score is computed. The pairs found within the slack of
        the `want`-th score form the next window; the others go back to the heap with their scores
        now (their keys then are exact, and the slack holds from there, see requeue). The
        saturated pairs are in groups, outside the heap and the window (groups.py).
        """
        st, groups = self.state, self.groups
        heap, pc, tc, thr = self.heap, st.pc, st.tc, st.threshold
        latest, grouped = self.latest, groups.group_of
        slack = self.slack * (1 + FLOAT_WINDOW)  # and the float margin
        found: dict[str, float] = {}
        best: list[float] = []  # min-heap of the `want` best values
        # The saturated groups that may hold one of the best: their values go into `best` first,
        # so the heap is read only while one of its pairs could beat them.
        best_groups = groups.best(want) if groups.by_count else []
        for c, t in best_groups:  # (best first: the first `want` members are the best)
            n = min(len(groups.members[t]), want - len(best))
            if n <= 0:
                break
            best += [1 / c] * n
        # The window's pairs, as they are now (a pair that died or joined a group leaves it).
        for q in self.window:
            c = pc.get(q, 0)
            if c >= thr and q not in grouped:
                v = found[q] = wordpiece_score(c, tc[q[0]], tc[q[1]])
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
                v = found[q] = wordpiece_score(c, tc[q[0]], tc[q[1]])
                if not full:
                    push(best, v)
                    full = len(best) >= want
                elif v > best[0]:
                    replace(best, v)
            if self.sleep_bound and (not full or best[0] < self.sleep_bound * slack):
                self._wake(found)  # a pair asleep might beat the K-th best: all go back to the heap
                continue
            break
        self.floor = best[0] * self.tuning.floor if full else 0.0
        if not found and not best_groups:
            return None
        for c, t in best_groups:  # a group's entry is its token t: one character, where a pair has two
            found[t] = 1 / c
        winner, ties, ranked = self._rank(found, {t for _, t in best_groups}, want)
        # The next window: the pairs found (a group's entry is its token: one character) that the
        # heap would give up again at the next step, the `want`-th score being about the same:
        # those within the slack of it. The others go back to the heap, with their scores now.
        if winner in found:
            del found[winner]
            latest.pop(winner, None)  # (a window pair put to sleep has none: see requeue)
        low = best[0] / slack if full else 0.0
        kept = self.window = []
        for q, v in found.items():
            if len(q) == 2:
                if v >= low:
                    kept.append(q)
                else:
                    key = latest[q] = -v
                    push(heap, (key, q))
        return winner, ties, ranked[:want]

    def _rank(self, found: dict[str, float], tokens: set[str], want: int) -> tuple[str, int, list[str]]:
        """The `want` best of the pairs and groups found (a group's entry is its token), by exact score,
        then by the tie rule; the winner and how many tied with it."""
        st, groups = self.state, self.groups
        value_of = found.__getitem__
        rank_of = st.first_rank if st.first_rule else None  # hf: the pair string
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
                    ties = len(groups.members[order[0]])
                ranked += groups.top(order[k], want - len(ranked))
                start = k + 1
                if len(ranked) >= want:
                    break
            else:
                ranked += order[start:start + want - len(ranked)]
            return ranked[0], ties, ranked
        first = True
        for _, same in groupby(order, key=value_of):
            group = list(same)
            if len(group) == 1 and group[0] in tokens:  # one group alone at this score
                t = group[0]
                group = groups.top(t, want - len(ranked))
                if first:
                    ties = len(groups.members[t])
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
                            pairs += groups.top(x, want - len(ranked) - len(ordered))
                            held += len(groups.members[x])
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
                    exact = {q: st.exact(q) for q in group}
                    group.sort(key=lambda q: (-exact[q], st.rule_rank(q)))
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
        return ranked[0], ties, ranked

    def _exact_entry(self, x: str) -> Fraction:
        """The exact score of a pair, or of a saturated group's pairs (x is then its token t: 1/count(t))."""
        return Fraction(1, self.state.tc[x]) if len(x) == 1 else self.state.exact(x)

    def _all_equal(self, group: list[str]) -> bool:
        """Whether the scores of `group` are exactly equal (integer cross-multiplication).

        In C: late in a training a group can hold hundreds of tied pairs, checked at every step."""
        pc, count = self.state.pc, self.state.tc.__getitem__
        q0 = group[0]
        num0, den0 = pc[q0], count(q0[0]) * count(q0[1])
        lhs = map(mul, map(pc.__getitem__, group), repeat(den0))  # count(ab) × den0
        dens = map(mul, map(count, map(itemgetter(0), group)), map(count, map(itemgetter(1), group)))
        return all(map(eq, lhs, map(mul, dens, repeat(num0))))  # … == num0 × count(a) × count(b)

    def _wake(self, found: dict[str, float]) -> None:
        """Push every pair asleep (see requeue) with its score now, but those `found` already."""
        st = self.state
        pc, tc, thr, latest, grouped, heap = st.pc, st.tc, st.threshold, self.latest, self.groups.group_of, self.heap
        for q in self.asleep:
            c = pc.get(q, 0)
            if c >= thr and q not in grouped and q not in found:
                key = latest[q] = wordpiece_key(c, tc[q[0]], tc[q[1]])
                heapq.heappush(heap, (key, q))
        self.asleep.clear()
        self.sleep_bound = 0.0

    def requeue(self, p: str, nc: str, existed: bool, fresh: dict[str, int], changed: list[str]) -> None:
        """Push what the merge changed.

        Re-pushing every pair of a and b after every merge is the slow part, so a token's pairs are
        re-pushed only once its count has fallen by the factor `tuning.slack` since they last were.
        Every live pair then has an entry pushed when both its tokens' counts were at most their
        reference counts, so its current score is at most that entry's key × slack², and the choice
        looks that much deeper.

        A re-pushed pair whose score is below `floor` (a fraction `tuning.floor` of the last step's
        K-th best) is not pushed but put to sleep (`asleep`; its `latest` entry is dropped, so its
        older entries go stale). Its score then stays below the largest floor it slept under
        (`sleep_bound`) × slack² until one of its tokens is re-pushed again, when it is looked at
        anew, or a merge makes it anew (then it is pushed with the fresh pairs); the choice wakes
        every sleeper before the K-th best score falls that low. A pair of the choice's window may
        be put to sleep too: the window re-reads it at every step, and it gets a heap entry (and
        `latest`) again when it leaves the window.
        """
        st, groups = self.state, self.groups
        heap, pc, thr, tc, latest = self.heap, st.pc, st.threshold, st.tc, self.latest
        push = heapq.heappush
        pairs_of, ref, grouped = self.pairs_of, self.ref, groups.group_of
        bound, floor, asleep = groups.bound, self.floor, self.asleep
        slack = self.tuning.slack
        slept = False
        for q, c in fresh.items():
            pairs_of[q[0]].add(q)
            pairs_of[q[1]].add(q)
            raise_bound(bound, q, c)
        # Saturated groups first: a pair that joins one leaves the heap, one that leaves is pushed
        # with its score now.
        regroup = groups.regroup
        regroup(p)
        for q in changed:
            regroup(q)
        for q in fresh:
            regroup(q, True)
        for t in {p[0], p[1]}:
            groups.regroup_token(t, True)
        groups.regroup_token(nc, False)  # its count rose, or it is new (its pairs were all regrouped)
        for q in fresh:
            c = pc[q]
            if c >= thr and q not in grouped:
                key = latest[q] = wordpiece_key(c, tc[q[0]], tc[q[1]])
                push(heap, (key, q))
        ref[nc] = tc[nc]
        for t in {p[0], p[1], nc} if existed else {p[0], p[1]}:
            count = tc[t]
            if count and (t == nc or ref[t] > count * slack):
                ref[t] = count
                group = pairs_of[t]
                dead = []
                for q in group:
                    c = pc.get(q, 0)
                    if c >= thr:
                        if q in grouped:
                            continue
                        score = c / (tc[q[0]] * tc[q[1]])  # (keys.wordpiece_score, inline: the loop is hot)
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
        if len(heap) > 2 * len(latest) + self.tuning.compact_above:
            # Most entries are older keys of pairs pushed again since: drop them, as the choice
            # would on meeting them, so that the heap stays about as large as the pairs.
            heap[:] = [e for e in heap if latest.get(e[1]) == e[0]]
            heapq.heapify(heap)

    def release(self) -> None:
        for held in (self.heap, self.latest, self.asleep, self.pairs_of, self.ref):
            held.clear()
        self.groups.release()

    def check(self) -> None:
        """Assert the chooser's invariants: its groups' (groups.py), and that every live pair outside
        the groups, the window and the sleepers has a newest heap entry within the slack of its score."""
        self.groups.check()
        st = self.state
        entries = {q for key, q in self.heap if self.latest.get(q) == key}
        slack = self.slack * (1 + FLOAT_WINDOW)
        for q, c in st.pc.items():
            if c < st.threshold or q in self.groups.group_of or q in self.window or q in self.asleep:
                continue
            assert q in entries, "a live pair has no current heap entry"
            assert -self.latest[q] * slack >= wordpiece_score(c, st.tc[q[0]], st.tc[q[1]]), \
                "a pair's score rose beyond its key's slack"
