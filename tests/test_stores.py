"""wordpiece_ui/stores.py: a class on one server shares one store, bounded in bytes and single-flight;
and what is stored keeps Streamlit's and Python's garbage collection cheap.

(The trainings a class shares are in test_jobs.py; the load both are for is measured by
benchmarks/bench_class.py.)
"""

import gc
import os
import sys
import threading
import time

import pandas as pd
import pytest

from helpers import ROOT, tracked_reachable
from wordpiece_core.corpus import TextSettings
from wordpiece_core.engine import train
from wordpiece_core.config import TrainerConfig
from wordpiece_ui import tables
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



class _Value:
    """A stored value that a session can still hold after the store let it go."""

    def __init__(self, nbytes: int) -> None:
        self.nbytes = nbytes


def test_what_is_still_held_after_eviction_counts_against_the_budget_until_it_is_let_go():
    store = BudgetStore(1000)
    held = _Value(600)
    store.put("held", held)
    store.put("next", _Value(300))
    store.put("more", _Value(300))  # 1,200 > 1,000: "held" goes first (the least recently used), but a session
    # still holds it: its 600 bytes stay in memory and still count, so "next" goes too (else both would fit)
    assert "held" not in store and "next" not in store and store.held == 600 and store.used == 300
    del held  # the session lets it go
    assert store.held == 0 and store.used == 300


def test_a_value_still_held_can_be_put_back_without_counting_it_twice():
    store = BudgetStore(1000)
    value = _Value(600)
    store.put("v", value)
    store.put("w", _Value(600))  # evicts v; held elsewhere
    assert store.held == 600
    store.put("v", value)  # back in the store (evicting w): counted once, as stored
    assert store.held == 0 and store.used == 600 and store.get("v") is value


# ----- garbage collection ---------------------------------------------------------------------


def test_streamlit_does_not_collect_after_every_run(monkeypatch):
    """Streamlit runs a full collection, gc.collect(2), after every script run unless runner.postScriptGC is
    off: with the project's .streamlit/config.toml, as Streamlit itself reads it, a run ends without one;
    with Streamlit's default, the same run ends with one (so the test sees the collection it rules out)."""
    from streamlit import config
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
    from streamlit.testing.v1 import AppTest, app_test
    from streamlit.testing.v1.local_script_runner import LocalScriptRunner

    class ServersRunner(LocalScriptRunner):  # AppTest's runner leaves out the server's after-run step: put it back
        _on_script_finished = ScriptRunner._on_script_finished

    monkeypatch.setattr(app_test, "LocalScriptRunner", ServersRunner)
    by_streamlit = []
    collect = gc.collect

    def watched(*args):
        if sys._getframe(1).f_globals.get("__name__") == ScriptRunner.__module__:
            by_streamlit.append(args)
        return collect(*args)

    monkeypatch.setattr(gc, "collect", watched)

    def collections_after_a_run():
        by_streamlit.clear()
        AppTest.from_string("import streamlit as st\nst.write('one run')").run()
        return list(by_streamlit)

    here = os.getcwd()
    os.chdir(ROOT)  # Streamlit reads .streamlit/config.toml from the working directory
    try:
        config.get_config_options(force_reparse=True)
        assert collections_after_a_run() == []
        config.set_option("runner.postScriptGC", config.get_config_options()["runner.postScriptGC"].default_val)
        assert collections_after_a_run() == [(2,)]
    finally:
        os.chdir(here)
        config.get_config_options(force_reparse=True)  # the options as they were read before


@pytest.mark.slow
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
