"""A class on one server: the shared store is bounded in bytes and single-flight; trainings
run once per key, off the serving thread when large, and stop when nobody waits.

These are the unit tests of wordpiece_ui/stores.py and wordpiece_ui/jobs.py; the load
they are for is measured by benchmarks/bench_class.py.
"""

import threading
import time
import tomllib

import pandas as pd
import pytest

from helpers import ROOT, TOY, tracked_reachable
from wordpiece_core.corpus import TextSettings
from wordpiece_core.engine import train
from wordpiece_core.config import TrainerConfig
from wordpiece_ui import tables
from wordpiece_ui.jobs import TrainingService
from wordpiece_ui.stores import BudgetStore, size_of


# ----- the store ------------------------------------------------------------------------------


def test_evicts_the_least_recently_used_by_size_not_by_count():
    store = BudgetStore(1000)
    store.put("a", "x", nbytes=400)
    store.put("b", "y", nbytes=400)
    assert store.get("a") == "x"  # a is now the most recently used
    store.put("c", "z", nbytes=300)  # 1,100 > 1,000: the least recently used (b) goes
    assert "b" not in store and store.get("a") == "x" and store.get("c") == "z"
    assert store.used == 700
    store.put("d", "w", nbytes=900)  # needs both others gone
    assert len(store) == 1 and store.used == 900 and store.evictions == 3


def test_a_value_larger_than_the_budget_is_not_kept():
    store = BudgetStore(1000)
    store.put("small", 1, nbytes=10)
    assert store.put("huge", "x", nbytes=5000) is False
    assert "huge" not in store and store.get("small") == 1


def test_sizes_come_from_what_is_stored():
    import sys

    from wordpiece_ui.corpora import load_sample

    frame = pd.DataFrame({"token": ["a" * 100] * 1000})
    assert size_of(frame) > 100_000  # deep: the strings count
    counts = load_sample("wordfreq-en", TextSettings("none", "whitespace"))
    real = sys.getsizeof(counts.counts) + sum(sys.getsizeof(p) + sys.getsizeof(p[0]) for p in counts.counts)
    assert real / 2 < size_of(counts) < real * 2  # 10,000 words: not the 56 bytes of the outer object
    t = train(dict(counts.counts), TrainerConfig(algorithm="wordpiece", vocab_size=600, top_k=10))
    assert size_of(t) > 500_000  # its words and its columns


def test_a_value_too_large_to_keep_is_made_once_for_all_who_wait():
    store = BudgetStore(1000)
    made = []

    def make():
        made.append(1)
        time.sleep(0.3)
        return "x" * 5000

    results = []
    threads = [threading.Thread(target=lambda: results.append(store.get_or_make("big", make))) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert len(results) == 5 and len(made) == 1 and "big" not in store


def test_single_flight_many_sessions_one_computation():
    store = BudgetStore(10_000_000)
    made = []
    gate = threading.Event()

    def make():
        made.append(1)
        gate.wait(2)
        return "value"

    results = []
    threads = [threading.Thread(target=lambda: results.append(store.get_or_make("k", make))) for _ in range(8)]
    for t in threads:
        t.start()
    time.sleep(0.2)
    gate.set()
    for t in threads:
        t.join(5)
    assert results == ["value"] * 8 and len(made) == 1


def test_single_flight_a_failure_is_not_stored_and_the_next_caller_tries_again():
    store = BudgetStore(10_000)

    def fail():
        raise ValueError("no")

    with pytest.raises(ValueError):
        store.get_or_make("k", fail)
    assert store.get_or_make("k", lambda: 3) == 3


# ----- garbage collection ---------------------------------------------------------------------


def test_streamlit_does_not_collect_after_every_run():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False


def test_what_the_collector_walks_does_not_grow_with_the_trainings_cached():
    """A full collection walks the tracked objects; caching more (and longer) trainings with
    their tables must add a few containers each, never one per step or candidate."""
    from wordpiece_ui.corpora import load_sample

    counts = dict(load_sample("wordfreq-en", TextSettings("none", "whitespace")).counts)
    store = BudgetStore(400_000_000)
    walked = []
    for i, vocab in enumerate((600, 1200, 2400)):
        t = train(counts, TrainerConfig(algorithm="wordpiece", vocab_size=vocab, top_k=25))
        store.put(("training", i), t)
        store.put(("steps", i), tables.steps_frame(t))
        walked.append(tracked_reachable(store))
    per_training = [b - a for a, b in zip(walked, walked[1:])]
    assert max(per_training) < 400, walked  # steps: 500 → 2,200 merges; tracked objects stay flat
    assert abs(per_training[1] - per_training[0]) < 100, walked


# ----- trainings ------------------------------------------------------------------------------


CFG = TrainerConfig(algorithm="wordpiece", vocab_size=40, top_k=5)


@pytest.mark.parametrize("inline_work", [10**12, 0], ids=["in the server", "in a worker"])
def test_concurrent_requests_for_one_key_run_one_training(inline_work):
    service = TrainingService(BudgetStore(10_000_000), inline_work=inline_work)
    jobs = []
    threads = [threading.Thread(target=lambda i=i: jobs.append(service.join("k", dict(TOY), CFG, f"session {i}")))
               for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert service.started == 1
    assert all(j.wait(10) and j.state == "done" for j in jobs)
    assert len({id(j.result) for j in jobs}) == 1  # every session got the one training
    assert service.cached("k") is jobs[0].result and jobs[0].result == train(TOY, CFG)


def test_a_large_training_runs_in_a_worker_process_and_comes_back_equal():
    service = TrainingService(BudgetStore(100_000_000), inline_work=0)
    job = service.join("big", dict(TOY), CFG, "me")
    assert job.wait(60), job.state
    assert job.state == "done" and job._process is not None and job._process.returncode == 0
    assert job.result == train(TOY, CFG)


def _big_job(service, key, vocab_size=12000):
    from wordpiece_ui.corpora import load_sample

    counts = dict(load_sample("wordfreq-en", TextSettings("none", "whitespace")).counts)
    return counts, TrainerConfig(algorithm="wordpiece", vocab_size=vocab_size, top_k=25)


def _until(condition, seconds=30):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


def test_a_training_every_session_stopped_is_cancelled_at_once():
    service = TrainingService(BudgetStore(100_000_000), inline_work=0, grace=60)
    counts, big = _big_job(service, "slow")
    a = service.join("slow", counts, big, "student a")
    assert service.join("slow", counts, big, "student b") is a
    assert _until(lambda: a.state == "running")
    service.leave(a, "student a")
    time.sleep(0.3)
    assert a.state == "running"  # student b still waits
    service.leave(a, "student b")
    assert a.wait(10)
    assert a.state == "cancelled" and a.result is None
    assert a._process.returncode is not None and a._process.returncode != 0  # the worker was ended
    assert service.cached("slow") is None and service.failure("slow") is None and service.in_flight() == 0
    c = service.join("slow", counts, TrainerConfig(algorithm="wordpiece", vocab_size=50, top_k=1), "student a")
    assert c is not a and c.wait(30) and c.state == "done"  # asking again starts afresh


def test_a_training_nobody_polls_any_more_is_cancelled_after_the_grace():
    service = TrainingService(BudgetStore(100_000_000), inline_work=0, grace=0.6)
    counts, big = _big_job(service, "left", vocab_size=20000)  # several seconds
    job = service.join("left", counts, big, "student")
    for _ in range(6):  # the student's progress view polls for a while …
        time.sleep(0.2)
        service.touch(job, "student")
    assert job.state == "running"
    assert job.wait(10)  # … then the tab is closed
    assert job.state == "cancelled"


def test_a_failed_training_says_why():
    service = TrainingService(BudgetStore(10_000_000))
    job = service.join("bad", {"": 1}, CFG, "me")
    assert job.wait(10)
    assert job.state == "failed" and "no words" in job.error
    again = service.join("bad", {"": 1}, CFG, "someone else")  # remembered, not tried again
    assert again.state == "failed" and again.error == job.error and service.started == 1


def test_a_cancelled_training_is_never_handed_to_a_new_session():
    service = TrainingService(BudgetStore(100_000_000), inline_work=0, grace=60)
    counts, big = _big_job(service, "again")
    first = service.join("again", counts, big, "a")
    assert _until(lambda: first.state == "running")
    service.leave(first, "a")  # cancelling…
    second = service.join("again", counts, big, "b")  # … while someone else asks
    assert second is not first
    assert first.wait(10) and first.state == "cancelled"
    service.leave(second, "b")
    assert second.wait(10) and second.state == "cancelled"


def test_a_training_in_the_server_is_cancelled_too():
    """Tiny trainings run in the server's own thread; Stop still ends them."""
    service = TrainingService(BudgetStore(100_000_000), inline_work=10**12, grace=60)
    counts, big = _big_job(service, "inline", vocab_size=20000)
    job = service.join("inline", counts, big, "a")
    assert _until(lambda: job.done_steps > 0)
    service.leave(job, "a")
    assert job.wait(10) and job.state == "cancelled" and service.cached("inline") is None


def test_a_queued_training_that_everyone_left_never_starts():
    service = TrainingService(BudgetStore(100_000_000), workers=1, inline_work=0, grace=60)
    counts, big = _big_job(service, "x", vocab_size=20000)
    running = service.join("x", counts, big, "a")
    queued = service.join("y", counts, TrainerConfig(algorithm="bpe", vocab_size=20000, top_k=1), "b")
    assert _until(lambda: running.state == "running") and queued.state == "queued"
    service.leave(queued, "b")
    assert queued.wait(2) and queued.state == "cancelled" and queued._process is None
    service.leave(running, "a")
    assert running.wait(10)


def test_a_result_too_large_for_the_budget_says_so_and_is_not_retrained():
    service = TrainingService(BudgetStore(100_000), inline_work=10**12)
    counts, _ = _big_job(service, "huge")
    job = service.join("huge", counts, TrainerConfig(algorithm="wordpiece", vocab_size=2000, top_k=25), "a")
    assert job.wait(30) and job.state == "failed" and "more than this server keeps" in job.error
    assert service.failure("huge") == job.error  # remembered: asking again does not train again
    assert service.join("huge", counts, job.config, "b").state == "failed" and service.started == 1


def test_only_failures_of_the_corpus_itself_are_remembered():
    service = TrainingService(BudgetStore(10_000_000))
    job = service.join("bad", {"": 1}, CFG, "a")
    assert job.wait(10) and service.failure("bad") is not None
    from wordpiece_ui.jobs import Job

    crashed = Job("other", CFG)  # a worker that died (killed, out of memory): another try may work
    service._finish(crashed, "failed", error="the training process ended without an answer")
    assert crashed.finished.is_set() and service.failure("other") is None


def test_start_early_starts_what_the_page_asks_for_and_nothing_the_page_would_refuse(monkeypatch):
    """app.py starts a page's trainings before the page runs (trained.start_early): the same configs and
    keys the page then joins; nothing for a pasted corpus, and nothing at all once this session stopped one
    of them (the page says so and starts none)."""
    from dataclasses import replace

    import streamlit as st

    from wordpiece_ui import state, trained
    from wordpiece_ui.settings import defaults_for

    joined = []

    class Service:  # records what would be trained; trains nothing
        def cached(self, key):
            return None

        def failure(self, key):
            return None

        def join(self, key, words, config, waiter):
            joined.append((key, config))

    store = BudgetStore(1_000_000_000)
    monkeypatch.setattr(trained, "shared", lambda: (store, Service()))
    st.session_state.pop(state.TRAINING_STOPPED, None)
    settings = replace(defaults_for("wordfreq-en"), vocab_size=8000)  # the sidebar's algorithm: WordPiece
    trained.start_early(settings, pair=True)
    counts = store.get(("sample", "wordfreq-en", trained.TextSettings(settings.normalizer, settings.pre_tokenizer,
                                                                       settings.add_prefix_space)))
    pair = [trained.config_for(settings, "bpe"), trained.config_for(settings, "wordpiece")]
    assert joined == [(trained.training_key(counts, c), c) for c in pair]
    joined.clear()
    trained.start_early(settings, pair=False)
    assert joined == [(trained.training_key(counts, trained.config_for(settings)), trained.config_for(settings))]
    joined.clear()
    trained.start_early(replace(settings, corpus="paste"), pair=True)
    assert joined == []
    st.session_state[state.TRAINING_STOPPED] = {trained.training_key(counts, trained.config_for(settings))}
    try:
        trained.start_early(settings, pair=True)  # WordPiece was stopped: BPE is not started either
        assert joined == []
    finally:
        st.session_state.pop(state.TRAINING_STOPPED, None)
