"""wordpiece_core/steps.py, the compact trace: flat columns that give back every record, and weigh little.

A training keeps its steps as integer columns (wordpiece_core/steps.py); the
`MergeStep` and `Candidate` records are made when read. These tests check the
records against a plain recount of the corpus at each step (replay), that the
columns survive pickling, and that a long trace is a few MB held in a handful
of objects the garbage collector has to walk.
"""

import gc
import pickle
import tracemalloc
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import TOY, tracked_reachable
from wordpiece_core.corpus import TextSettings
from wordpiece_core.engine import train
from wordpiece_core.replay import candidates_at, splits_at
from wordpiece_core.steps import Steps, int_column
from wordpiece_core.config import TrainerConfig
from wordpiece_core.records import MergeStep

words = st.text(alphabet="abcab", min_size=1, max_size=7)
corpora = st.dictionaries(words, st.integers(min_value=1, max_value=9), min_size=1, max_size=12)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(corpora, st.sampled_from(["wordpiece", "bpe"]), st.sampled_from(["first", "hf"]), st.sampled_from([1, 4]))
def test_records_equal_a_plain_recount_at_every_step(corpus, algorithm, tie_break, top_k):
    t = train(corpus, TrainerConfig(algorithm=algorithm, vocab_size=40, tie_break=tie_break, top_k=top_k,
                                    prefix="##" if algorithm == "wordpiece" else None))
    for s in t.steps:
        full = candidates_at(t, s.step)
        winner = full[0]
        # every field of the step that the recount also knows
        assert (s.left, s.right, s.new_token, s.pair_count, s.left_count, s.right_count, s.score) == (
            winner.left, winner.right, winner.new_token, winner.pair_count, winner.left_count,
            winner.right_count, winner.score)
        assert s.loglik_delta == winner.loglik_delta
        assert s.vocab_size_before == winner.vocab_size_before
        assert s.ties == sum(1 for c in full if c.score == winner.score)
        # the candidates, field by field (Candidate equality compares every field)
        assert list(s.candidates) == full[: top_k]
        # the words it touched are exactly those whose split changed
        before, after = splits_at(t, s.step), splits_at(t, s.step + 1)
        assert list(s.words_touched) == [i for i, (x, y) in enumerate(zip(before, after)) if x != y]
        assert s.merged_count == sum(f * (len(x) - len(y)) for x, y, f in zip(before, after, t.counts))


def test_a_sequence_of_records():
    t = train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=20, top_k=3))
    steps = t.steps
    assert isinstance(steps, Steps) and len(steps) == 9
    assert isinstance(steps[0], MergeStep) and steps[-1] == steps[8] == list(steps)[8]
    assert steps[1:3] == [steps[1], steps[2]]
    assert (steps[0].left, steps[0].right, steps[0].score) == ("##g", "##s", Fraction(1, 20))
    assert steps.lefts()[:2] == ["##g", "h"] and steps.new_tokens()[2] == steps[2].new_token
    assert steps.scores() == [s.score for s in steps]
    assert steps.loglik_deltas() == [s.loglik_delta for s in steps]
    assert list(steps.column("pair_count")) == [s.pair_count for s in steps]
    assert t.merges == [(s.left, s.right) for s in steps]
    assert t.vocab_at(0) == list(t.initial_vocab) and t.vocab_at(9) == t.vocab


def test_pickles_to_an_equal_training():
    t = train(TOY, TrainerConfig(algorithm="bpe", vocab_size=25, top_k=5, prefix=None))
    back = pickle.loads(pickle.dumps(t))
    assert back == t and list(back.steps) == list(t.steps)


def test_counts_that_do_not_fit_machine_integers_stay_exact_in_a_column():
    assert int_column([1, 2]).itemsize == 4
    assert int_column([1, 2**40]).itemsize == 8
    assert int_column([1, 10**30]) == (1, 10**30)


@pytest.mark.slow
def test_a_long_trace_is_small_and_nearly_invisible_to_the_garbage_collector():
    from wordpiece_ui.corpora import load_sample

    counts = dict(load_sample("wordfreq-en", TextSettings("none", "whitespace")).counts)
    tracemalloc.start()
    try:
        t = train(counts, TrainerConfig(algorithm="wordpiece", vocab_size=3000, top_k=10))
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(t.steps) > 2500 and len(t.steps.c_pair_count) == 10 * len(t.steps)
    # 2,900 steps with 10 candidates each, plus 10,000 words: about 2 MB (one frozen object
    # per candidate, with a Fraction each, was over 25 MB)
    assert held < 4_000_000, held
    assert t.nbytes < 4_000_000
    # the collector walks the few containers, never one object per step or candidate
    assert tracked_reachable(t) < 40


def test_the_step_recorder_declares_every_column():
    from typing import get_type_hints

    from wordpiece_core.steps import CANDIDATE_INTS, STEP_INTS, StepRecorder

    assert set(STEP_INTS + StepRecorder.RECORDED) <= set(get_type_hints(StepRecorder))  # what mypy checks the engine against
    assert set(StepRecorder.RECORDED) <= set(CANDIDATE_INTS)
    steps = StepRecorder().finish(["a"], "bpe", None)  # the rest are made at the end
    assert all(len(getattr(steps, name)) == 0 for name in STEP_INTS + CANDIDATE_INTS)


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(st.dictionaries(st.text(alphabet="aab#", min_size=1, max_size=9), st.integers(min_value=1, max_value=9),
                       min_size=1, max_size=12),
       st.sampled_from(["wordpiece", "bpe"]), st.sampled_from(["first", "hf"]), st.integers(min_value=1, max_value=7),
       st.sampled_from([1, 5]))
def test_the_parts_sent_while_training_give_the_same_lines_as_the_finished_steps(corpus, algorithm, tie_break,
                                                                                  every, top_k):
    """The writer's parts (plain slices of the recorder, made in the training's loop) hold what the
    finished, compact columns hold: "a" + "a" candidates that merge fewer times than they occur and
    candidates whose token exists already included, wherever the parts are cut."""
    from wordpiece_core.formats import step_lines, trace_lines

    parts = []

    def watch(done, finished, part):
        start = parts[-1][1] if parts else 0
        if done > start and (finished or done - start >= every):
            steps = part(start, done)
            parts.append((start, done, steps, pickle.dumps(steps)))  # pickled, as the writer gets it

    t = train(corpus, TrainerConfig(algorithm=algorithm, vocab_size=30, tie_break=tie_break, top_k=top_k,
                                    prefix="##" if algorithm == "wordpiece" else None), None, watch)
    lines = [line for start, _, _, sent in parts
             for line in step_lines(pickle.loads(sent), tie_break, first_step=start)]
    assert lines == list(trace_lines(t))
    # a part shares nothing with the recorder: the training went on appending after it was made
    assert all(pickle.dumps(steps) == sent for _, _, steps, sent in parts)


def test_code_points_of_any_token_id():
    from wordpiece_core.steps import _code_points

    ids = [0, 1, 255, 256, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF]
    assert list(_code_points("".join(map(chr, ids)))) == ids
    assert list(_code_points("")) == []


@pytest.mark.parametrize("corpus,algorithm", [
    # WordPiece meets the big pair late (it scores 1/count): the columns widen in the middle of the training
    ({"ab": 3, "cd": 2, "ce": 1, "xy": 2**33, "xyz": 5}, "wordpiece"),
    # the pair counts fit in 32 bits but a token's count does not: the step's first column took its
    # counts before the second failed, and is cut back before it is widened
    ({"ab": 2**30, "ac": 2**30, "ad": 2**30, "bd": 7}, "bpe"),
    ({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, "bpe"),  # no widening
])
def test_candidate_counts_beyond_32_bits_widen_the_columns_and_stay_exact(corpus, algorithm):
    t = train(corpus, TrainerConfig(algorithm=algorithm, vocab_size=25, top_k=3,
                                    prefix="##" if algorithm == "wordpiece" else None))
    big = max(corpus.values()) * max(map(len, corpus)) >= 2**31
    assert t.steps.c_left_count.itemsize == (8 if big else 4)
    assert t.steps.c_pair_count.itemsize == (8 if max(t.steps.c_pair_count) >= 2**31 else 4)  # each as small as it can be
    for s in t.steps:
        assert list(s.candidates) == candidates_at(t, s.step)[:3]


def test_the_count_of_a_candidate_token_that_exists_already_beyond_32_bits():
    corpus = {"b##": 1, "a#b": 2**31 + 1, "##aaba": 2**31, "babaa#ba": 12}
    t = train(corpus, TrainerConfig(algorithm="wordpiece", vocab_size=25, top_k=6))
    assert max(t.steps.c_new_count) >= 2**31 and t.steps.c_new_count.itemsize == 8
    for s in t.steps:
        assert list(s.candidates) == candidates_at(t, s.step)[:6]
