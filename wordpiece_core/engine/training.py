"""The merge trainer: `train(word_counts, config)`, its checks of the input, and the merge loop (algorithms.train
calls it for BPE and WordPiece; merge_cli.py calls it with the trace writer's `watch`).

Both merge algorithms start from words split into characters and repeatedly merge the best adjacent
pair; they differ only in what "best" means (reference.score). The loop is the same for both:
a chooser picks the pair (bpe.py or wordpiece.py), the shared state merges it in every word
(state.py), the chooser re-queues what the merge changed, and a `StepRecorder` keeps the step
and its top-K candidates as columns. reference.py is the plain recount-everything version of the
same loop; the property tests check that both give the identical trace.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from itertools import filterfalse
from operator import eq

from ..config import ALGORITHMS, TIE_BREAKS, TrainerConfig
from ..errors import WordPieceError
from ..steps import StepRecorder, Steps
from ..trace import Training
from .bpe import BpeChooser
from .keys import MAX_TOKENS
from .state import MergeState
from .wordpiece import Tuning, WordPieceChooser

Progress = Callable[[int, int], None]
# Called after each merge with the steps done, False, and a function that makes the steps from start to
# stop (their touched words left out: see StepRecorder.part); once more with True when the training is
# over. The command line's trace_file.TraceFile writes the trace of the steps done while training goes on.
Watch = Callable[[int, bool, Callable[[int, int], Steps]], None]

MAX_TOTAL = 2**63 - 1  # tokens in the corpus, weighted: every count then fits a 64-bit integer
# The longest word a merge training takes. A merge counts only the pairs around its occurrences in a word, and finds
# and rewrites them with C string routines, so a word's work grows with its length: a line of Chinese or Thai under a
# whitespace pre-tokenizer (one word) trains in a fraction of a second; a 10 MB "word" took minutes and 7.5 GB.
MAX_WORD_CHARS = 10_000


def check_word_lengths(word_counts: Mapping[str, int]) -> None:
    """Refuse a word longer than MAX_WORD_CHARS, with one line naming its length and start."""
    longest = max(word_counts, key=len, default="")
    if len(longest) > MAX_WORD_CHARS:
        raise WordPieceError(
            f"a merge training takes words of up to {MAX_WORD_CHARS:,} characters, and the corpus has one of "
            f"{len(longest):,} (it starts {longest[:20]!r}): choose a pre-tokenizer that cuts it, or leave it out")


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


def validate_config(config: TrainerConfig) -> None:
    """Refuse settings no training can follow, with one line naming the setting."""
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
    *,
    tuning: Tuning = Tuning(),
    self_check: bool = False,
) -> Training:
    """Train on word counts and return the full trace (`progress`, `watch`: called after each merge).

    `tuning` sets how much work WordPiece's choice does (never the result); `self_check` asserts the
    engine's invariants against a recount before every step (slow: for tests)."""
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
    check_word_lengths(merged)
    # The engine makes millions of small objects and no reference cycles: the
    # cyclic collector would only walk them over and over (about 5% of the time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _Trainer(merged, config, progress, tuning, self_check).run(watch)
    finally:
        if collecting:
            gc.enable()


class _Trainer:
    """The merge loop over the shared state and the algorithm's chooser."""

    def __init__(self, word_counts: dict[str, int], config: TrainerConfig, progress: Progress | None,
                 tuning: Tuning, self_check: bool):
        self.config = config
        self.progress = progress
        self.self_check = self_check
        self.state = MergeState(word_counts, config)
        self.chooser: BpeChooser | WordPieceChooser = (
            WordPieceChooser(self.state, tuning) if config.algorithm == "wordpiece" else BpeChooser(self.state))

    def _record_candidates(self, ranked: list[str], rec: StepRecorder) -> None:
        """Append the ranked pairs' numbers to the candidate columns (records are made when viewed).

        In C but for the rare candidates whose two tokens are the same or whose token exists already
        (see StepRecorder)."""
        st = self.state
        pc, tc = st.pc, st.tc
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
                    rec.merged_rows[row + k] = st.merged_occurrences(q)
        # The count of the token a merge would make, when that token is in the vocabulary already.
        joined = st.joined
        for q in filterfalse(joined.__contains__, ranked):  # (about one a step: a pair new to the top)
            st.token_of(q)
        tok_to_id = st.tok_to_id
        if not tok_to_id.keys().isdisjoint(map(joined.__getitem__, ranked)):
            for k, n in enumerate(map(tok_to_id.get, map(joined.__getitem__, ranked))):
                count = tc.get(chr(n), 0) if n is not None else 0
                if count:
                    rec.new_count_rows[row + k] = count
        rec.cand_start.append(row + len(ranked))

    def _part(self, rec: StepRecorder, start: int, stop: int) -> Steps:
        """Steps `start` to `stop` so far, without their touched words (for a Watch)."""
        return rec.part(self.state.id_to_tok, self.config.algorithm, self.config.prefix, start, stop, touched=False)

    def check(self) -> None:
        """The engine's self-check: the shared state's invariants, then the chooser's (slow: for tests)."""
        self.state.check()
        self.chooser.check()

    def run(self, watch: Watch | None = None) -> Training:
        cfg, st, chooser = self.config, self.state, self.chooser
        rec = StepRecorder()
        steps = 0
        todo = max(cfg.vocab_size - len(st.id_to_tok), 0)
        stop = "reached the vocabulary size"
        if todo == 0:
            stop = "the special tokens and the alphabet already fill the vocabulary size"
        tc = st.tc
        part = partial(self._part, rec)
        want = max(1, cfg.top_k)
        while len(st.tok_to_id) < cfg.vocab_size:
            if self.self_check:
                self.check()
            chosen = chooser.choose(want)
            if chosen is None:
                stop = (
                    "no pair is left to merge"
                    if not any(c >= 1 for c in st.pc.values())
                    else f"no pair occurs at least {cfg.min_frequency} times (min frequency)"
                )
                break
            p, ties, ranked = chosen
            if cfg.min_score is not None:
                score = st.exact(p)
                if score < cfg.min_score:
                    stop = f"the best score {float(score):.6g} fell below the threshold {float(cfg.min_score):.6g}"
                    break
            a, b = ord(p[0]), ord(p[1])
            new_tok = st.token_of(p)
            existed = new_tok in st.tok_to_id
            if existed:
                n = st.tok_to_id[new_tok]
            else:
                n = len(st.id_to_tok)
                if n > MAX_TOKENS:
                    raise WordPieceError(f"more than {MAX_TOKENS:,} tokens: choose a smaller vocabulary size")
            if cfg.top_k:
                self._record_candidates(ranked, rec)
            else:
                rec.cand_start.append(rec.cand_start[-1])
            nc = chr(n)
            rec.left_id.append(a)
            rec.right_id.append(b)
            rec.new_id.append(n)
            rec.pair_count.append(st.pc[p])
            rec.left_count.append(tc[p[0]])
            rec.right_count.append(tc[p[1]])
            rec.ties.append(ties)
            rec.total.append(st.total)
            rec.new_count.append(tc.get(nc, 0))
            if not existed:
                st.id_to_tok.append(new_tok)
                st.tok_to_id[new_tok] = n
            elif st.runs:
                st.runs.clear()  # (see MergeState.merged_occurrences)
            touched, made, fresh, changed = st.apply(p, nc, existed)
            chooser.requeue(p, nc, existed, fresh, changed)
            rec.vocab_size.append(len(st.tok_to_id))
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
        if self.self_check:
            self.check()
        # The training is over: its state's memory is reused for the trace's columns, made next.
        chooser.release()
        st.release()
        return Training(
            config=cfg,
            words=tuple(st.word_list),
            counts=tuple(st.freqs),
            initial_vocab=st.initial_vocab,
            steps=rec.finish(st.id_to_tok, cfg.algorithm, cfg.prefix),
            stop_reason=stop,
        )
