"""The steps of a training, kept as a few flat columns of numbers.

A training of 8,000 merges with its top-25 candidates is 200,000 candidates. Kept
as one frozen object per candidate (with a `Fraction` and a float each), that is
millions of small objects: about 70 MB, and every full garbage collection of a
server holding a few trainings walks all of them. Here the same facts are
integer columns (`array`s, which the collector never walks): one entry per step,
or per candidate, and the token strings once.

Nothing is lost: indexing builds the `MergeStep` (with its `Candidate`s) that the
trainer saw, exact `Fraction` scores and log-likelihood changes included, from
the stored counts. Every consumer reads records; the columns are for the few
that read every step at once (tables over all steps, exports).

    steps = training.steps        # a Sequence[MergeStep]
    steps[0].candidates[1].score  # Fraction, made now from the recorded counts
    steps.column("pair_count")    # one number per step, no records made
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterator, MutableSequence, Sequence
from fractions import Fraction
from typing import overload

from .records import Candidate, MergeStep, exact_score, loglik_change, record
from .reference import new_token

# Per step. Counts may exceed 64 bits (word counts are unbounded integers): a
# column that does not fit in an array stays a tuple of Python ints.
STEP_INTS = ("left_id", "right_id", "new_id", "pair_count", "left_count", "right_count", "ties",
             "vocab_size", "merged_count", "total", "new_count")
# Per candidate, best first; a step's candidates are rows cand_start[i]:cand_start[i + 1].
CANDIDATE_INTS = ("c_left_id", "c_right_id", "c_pair_count", "c_left_count", "c_right_count", "c_merged",
                  "c_new_count")


def int_column(values: Sequence[int]) -> Sequence[int]:
    """A compact column: an array of 32- or 64-bit integers, or a tuple when a value does not fit."""
    for typecode in ("i", "q"):
        try:
            return array(typecode, values)
        except OverflowError:
            pass
    return tuple(values)


class StepRecorder:
    """What the engine appends to while it trains; `finish` turns it into `Steps`.

    Recording is in the engine's inner loop (K candidates at every step), so a step's candidates
    are appended with a few calls that run in C, and what can wait does:

    - their pairs as one string (`c_pairs`, two characters a candidate: the left and right token
      ids as characters), turned into the id columns at the end;
    - `c_merged` (how many merges a candidate would make) equals its pair count unless its two
      tokens are the same ("a" + "a" in "aaa" merges once), and `c_new_count` (the count of the
      token it would make, when that token exists already) is almost always 0: both are kept as
      the rows where they differ (`merged_rows`, `new_count_rows`) and filled in at the end.
    """

    # One list per step column and one array per recorded candidate column (named as in STEP_INTS
    # and CANDIDATE_INTS, checked by a test). The candidate columns and the touched words are the
    # long ones (K entries a step; every touched word): as arrays they hold 4 (or 8) bytes an entry
    # instead of a list slot and an int object. The candidate columns start as 32-bit arrays and the
    # engine widens them to 64 bits (`widen`) on the first count that does not fit, so the finished
    # steps take them as they are (converting 200,000 entries afterwards costs about 10 ms a column).
    # Every count fits in 64 bits: engine.check_total keeps the corpus under 2^63 tokens.
    left_id: list[int]
    right_id: list[int]
    new_id: list[int]
    pair_count: list[int]
    left_count: list[int]
    right_count: list[int]
    ties: list[int]
    vocab_size: list[int]
    merged_count: list[int]
    total: list[int]
    new_count: list[int]
    c_pair_count: array
    c_left_count: array
    c_right_count: array

    RECORDED = ("c_pair_count", "c_left_count", "c_right_count")  # the candidate columns appended to as they are

    def __init__(self) -> None:
        for name in STEP_INTS:
            setattr(self, name, [])
        for name in self.RECORDED:
            setattr(self, name, array("i"))
        self.c_pairs: list[str] = []  # per step, its candidates' pairs, best first
        self.merged_rows: dict[int, int] = {}  # candidate row -> c_merged, where it is not the pair count
        self.new_count_rows: dict[int, int] = {}  # candidate row -> c_new_count, where it is not 0
        self.existed: list[int] = []
        self.touched: MutableSequence[int] = array("i")  # word indices
        self.touched_start: list[int] = [0]
        self.cand_start: list[int] = [0]

    def widen(self, rows: int) -> None:
        """Make the recorded candidate columns 64-bit, keeping their first `rows` entries (a count did
        not fit in 32 bits; an extend that failed may have appended part of a step)."""
        for name in self.RECORDED:
            setattr(self, name, array("q", getattr(self, name)[:rows]))

    def finish(self, tokens: Sequence[str], algorithm: str, prefix: str | None) -> Steps:
        return self.part(tokens, algorithm, prefix, 0, len(self.existed), touched=True)

    def part(self, tokens: Sequence[str], algorithm: str, prefix: str | None, start: int, stop: int,
             touched: bool) -> Steps:
        """Steps `start` to `stop` (as steps 0 to stop - start), with `tokens` (every token by id).

        touched=False leaves the touched words out (`touched` is then empty, and only how many each
        step touched is kept): what trace.jsonl needs, for trace_file's writer. Such a part is made
        in the training's loop and read once: its columns are plain slices, not made compact."""
        r0, r1 = self.cand_start[start], self.cand_start[stop]  # their candidate rows
        t0, t1 = self.touched_start[start], self.touched_start[stop]
        # finish: the recorder's own long columns (it is not appended to any more; copies would raise the
        # training's peak memory). A part for the writer shares nothing: the training goes on appending.
        whole = touched and start == 0 and stop == len(self.existed)
        compact = int_column if touched else _as_is
        columns: dict[str, Sequence[int]] = {name: compact(getattr(self, name)[start:stop]) for name in STEP_INTS}
        for name in self.RECORDED:
            column = getattr(self, name)
            if not whole:
                column = column[r0:r1]
            elif column.itemsize == 8:  # widened for one of the three: each as small as its own counts allow
                column = int_column(column)
            columns[name] = column
        pairs = "".join(self.c_pairs[start:stop])
        columns["c_left_id"] = _code_points(pairs[0::2])
        columns["c_right_id"] = _code_points(pairs[1::2])
        counts = columns["c_pair_count"]
        assert isinstance(counts, array)  # (every count is below 2^63: engine.check_total)
        merged = array(counts.typecode, counts)  # (a copy, of the same item size)
        for row, n in _rows_within(self.merged_rows, r0, r1):
            merged[row - r0] = n  # (fits: a pair merges at most as often as it occurs)
        columns["c_merged"] = merged
        new_counts = _zeros(len(merged), _rows_within(self.new_count_rows, r0, r1), r0)
        columns["c_new_count"] = new_counts
        return Steps(
            tokens=tuple(tokens),
            algorithm=algorithm,
            prefix=prefix,
            existed=bytes(self.existed[start:stop]),
            touched=(self.touched if whole else int_column(self.touched[t0:t1])) if touched else (),
            touched_start=compact([x - t0 for x in self.touched_start[start:stop + 1]] if not whole
                                  else self.touched_start),
            cand_start=compact([x - r0 for x in self.cand_start[start:stop + 1]] if not whole
                               else self.cand_start),
            **columns,
        )


def _as_is(values: Sequence[int]) -> Sequence[int]:
    return values


def _zeros(n: int, rows: list[tuple[int, int]], r0: int) -> array:
    """n zeros but at the given (row, value)s (row - r0 is the index): 32-bit if the values fit."""
    for typecode, size in (("i", 4), ("q", 8)):
        out = array(typecode, bytes(size * n))
        try:
            for row, value in rows:
                out[row - r0] = value
        except OverflowError:
            continue
        return out
    raise AssertionError("a count beyond 64 bits")  # (engine.check_total keeps every count within 2^63)


_UTF32 = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"


def _code_points(text: str) -> array:
    """The code points of `text` as an array of 32-bit integers, in C (a token id is at most 0x10FFFF;
    ids in the surrogate range are characters too, hence surrogatepass)."""
    out = array("i")
    out.frombytes(text.encode(_UTF32, "surrogatepass"))
    return out


def _rows_within(rows: dict[int, int], r0: int, r1: int) -> list[tuple[int, int]]:
    """The entries of `rows` with r0 <= row < r1. Rows are added in increasing order, so the dict's
    order is sorted: two bisections, not a walk over every row recorded so far."""
    if not rows:
        return []
    keys = list(rows)
    lo, hi = bisect_left(keys, r0), bisect_left(keys, r1)
    return [(row, rows[row]) for row in keys[lo:hi]]


class Steps(Sequence[MergeStep]):
    """The merges of one training, best candidates included, as columns (see the module docstring).

    Columns per step: the ids of the pair and of the token made (`left_id`, `right_id`,
    `new_id`), the score's parts (`pair_count`, `left_count`, `right_count`), `ties`,
    `vocab_size` after the step, `existed` (the token was in the vocabulary already),
    `merged_count`, `total` (all tokens in the corpus before the step) and `new_count`
    (the made token's count before the step: 0 unless it existed), the touched words
    (`touched`, step i's in touched_start[i]:touched_start[i + 1]). Per candidate, the
    same with a `c_` prefix, `c_merged` being how many merges it would make.
    """

    left_id: Sequence[int]
    right_id: Sequence[int]
    new_id: Sequence[int]
    pair_count: Sequence[int]
    left_count: Sequence[int]
    right_count: Sequence[int]
    ties: Sequence[int]
    vocab_size: Sequence[int]
    merged_count: Sequence[int]
    total: Sequence[int]
    new_count: Sequence[int]
    c_left_id: Sequence[int]
    c_right_id: Sequence[int]
    c_pair_count: Sequence[int]
    c_left_count: Sequence[int]
    c_right_count: Sequence[int]
    c_merged: Sequence[int]
    c_new_count: Sequence[int]

    def __init__(self, *, tokens: tuple[str, ...], algorithm: str, prefix: str | None, existed: bytes,
                 touched: Sequence[int], touched_start: Sequence[int], cand_start: Sequence[int],
                 **columns: Sequence[int]) -> None:
        self.tokens = tokens  # every token ever in the vocabulary, by id
        self.algorithm = algorithm
        self.prefix = prefix
        self.existed = existed
        self.touched = touched
        self.touched_start = touched_start
        self.cand_start = cand_start
        for name in STEP_INTS + CANDIDATE_INTS:
            setattr(self, name, columns[name])

    # ----- a Sequence of MergeStep ---------------------------------------------------
    def __len__(self) -> int:
        return len(self.existed)

    @overload
    def __getitem__(self, i: int) -> MergeStep: ...

    @overload
    def __getitem__(self, i: slice) -> list[MergeStep]: ...

    def __getitem__(self, i: int | slice) -> MergeStep | list[MergeStep]:
        if isinstance(i, slice):
            return [self._step(j) for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("step index out of range")
        return self._step(i)

    def __iter__(self) -> Iterator[MergeStep]:
        return (self._step(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Steps):
            return NotImplemented
        return self._state() == other._state()

    def __hash__(self) -> int:
        return hash((len(self), self.tokens, bytes(self.existed)))

    def __repr__(self) -> str:
        return f"<Steps: {len(self)} merges, {len(self.c_pair_count)} candidates, {self.nbytes:,} bytes>"

    def _state(self) -> tuple:
        names = STEP_INTS + CANDIDATE_INTS + ("touched", "touched_start", "cand_start")
        return (self.tokens, self.algorithm, self.prefix, self.existed,
                *(tuple(getattr(self, n)) for n in names))

    # ----- records, made on demand ----------------------------------------------------
    def vocab_size_before(self, i: int) -> int:
        return self.vocab_size[i] - (0 if self.existed[i] else 1)

    def candidates(self, i: int) -> tuple[Candidate, ...]:
        """Step i's recorded candidates (0-based step), best first."""
        tokens, algorithm = self.tokens, self.algorithm
        before = self.vocab_size_before(i)
        total = self.total[i]
        out = []
        for rank, r in enumerate(range(self.cand_start[i], self.cand_start[i + 1]), start=1):
            a, b = self.c_left_id[r], self.c_right_id[r]
            left, right = tokens[a], tokens[b]
            made = new_token(left, right, self.prefix)
            pc, lc, rc = self.c_pair_count[r], self.c_left_count[r], self.c_right_count[r]
            out.append(record(
                Candidate,
                left=left,
                right=right,
                new_token=made,
                pair_count=pc,
                left_count=lc,
                right_count=rc,
                score=exact_score(algorithm, pc, lc, rc),
                rank=rank,
                loglik_delta=loglik_change(total, lc, rc, self.c_merged[r], a == b, self.c_new_count[r],
                                           made == left, made == right),
                vocab_size_before=before,
            ))
        return tuple(out)

    def _step(self, i: int) -> MergeStep:
        tokens = self.tokens
        a, b = self.left_id[i], self.right_id[i]
        pc, lc, rc = self.pair_count[i], self.left_count[i], self.right_count[i]
        merged = self.merged_count[i]
        return record(
            MergeStep,
            step=i + 1,
            left=tokens[a],
            right=tokens[b],
            new_token=tokens[self.new_id[i]],
            left_id=a,
            right_id=b,
            new_id=self.new_id[i],
            pair_count=pc,
            left_count=lc,
            right_count=rc,
            score=exact_score(self.algorithm, pc, lc, rc),
            ties=self.ties[i],
            vocab_size=self.vocab_size[i],
            new_token_existed=bool(self.existed[i]),
            merged_count=merged,
            loglik_delta=loglik_change(self.total[i], lc, rc, merged, a == b, self.new_count[i],
                                       self.new_id[i] == a, self.new_id[i] == b),
            words_touched=tuple(self.touched[self.touched_start[i]:self.touched_start[i + 1]]),
            candidates=self.candidates(i),
        )

    # ----- whole columns, for readers of every step -------------------------------------
    def column(self, name: str) -> Sequence[int]:
        """One of the per-step integer columns (see the class docstring), without making records."""
        if name not in STEP_INTS:
            raise KeyError(f"no step column {name!r}; columns: {', '.join(STEP_INTS)}")
        return getattr(self, name)

    def lefts(self) -> list[str]:
        tokens = self.tokens
        return [tokens[a] for a in self.left_id]

    def rights(self) -> list[str]:
        tokens = self.tokens
        return [tokens[b] for b in self.right_id]

    def new_tokens(self) -> list[str]:
        tokens = self.tokens
        return [tokens[n] for n in self.new_id]

    def scores(self) -> list[Fraction]:
        algorithm = self.algorithm
        return [exact_score(algorithm, pc, lc, rc)
                for pc, lc, rc in zip(self.pair_count, self.left_count, self.right_count)]

    def loglik_deltas(self, start: int = 0, stop: int | None = None) -> list[float]:
        """Each step's log-likelihood change (steps `start` to `stop`, 0-based)."""
        part = slice(start, stop)
        return [loglik_change(t, lc, rc, m, a == b, nc, new == a, new == b) for t, lc, rc, m, a, b, nc, new in zip(
            self.total[part], self.left_count[part], self.right_count[part], self.merged_count[part],
            self.left_id[part], self.right_id[part], self.new_count[part], self.new_id[part])]

    def touched_counts(self, start: int = 0, stop: int | None = None) -> list[int]:
        """How many words each step touched (steps `start` to `stop`, 0-based)."""
        starts = self.touched_start
        return [starts[i + 1] - starts[i] for i in range(*slice(start, stop).indices(len(self)))]

    @property
    def nbytes(self) -> int:
        """About how much memory the columns and token strings take (for cache budgets)."""
        size = sys.getsizeof(self.tokens) + sum(sys.getsizeof(t) for t in self.tokens) + len(self.existed)
        for name in STEP_INTS + CANDIDATE_INTS + ("touched", "touched_start", "cand_start"):
            col = getattr(self, name)
            size += col.itemsize * len(col) if isinstance(col, array) else sys.getsizeof(col) + 32 * len(col)
        return size
