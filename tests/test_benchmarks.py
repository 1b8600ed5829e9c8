"""The benchmark scripts measure what they say (their figures are in the README and the issues' notes)."""

import sys

import pytest

from helpers import ROOT


@pytest.fixture
def bench_phases(monkeypatch):
    """benchmarks/bench_phases.py as a module (sys.path as it was, afterwards: bench_train adds to it)."""
    monkeypatch.setattr(sys, "path", [str(ROOT / "benchmarks"), *sys.path])
    import bench_phases
    import bench_train

    return bench_phases, bench_train


@pytest.mark.slow
def test_the_phases_benchmark_times_every_stage_of_the_real_command(tmp_path, bench_phases):
    """bench_phases.py runs the command line with a timer around each stage: every stage is timed (a stage
    the timers missed, say because the command line stopped calling it through its module, fails here,
    or shows up as 0), and the command wrote its files as `python -m wordpiece_core train` does."""
    phases_mod, train_mod = bench_phases
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hug pug pun bun hugs\n" * 40, encoding="utf-8")
    out = tmp_path / "out"
    wall, phases = phases_mod.phases_of(train_mod.ours("wordpiece", str(corpus), 12, str(out), "none", "whitespace"))
    assert set(phases) == {"start and exit", "imports", "setting up", "reading and counting", "training",
                           "after the training"}
    assert all(seconds > 0 for seconds in phases.values()), phases
    assert phases["start and exit"] < wall
    vocab = (out / "vocab.txt").read_text(encoding="utf-8").split("\n")
    assert vocab[0] == "[UNK]" and len([t for t in vocab if t]) == 12


def test_the_phases_verdict_is_the_time_left_for_the_training(bench_phases):
    """`allowed` 1.0 s, a run of 1.2 s of which 0.8 s training: the rest takes 0.4 s, so 0.6 s is left for the
    training, which would have to be 0.8 / 0.6 = 1.33× as fast."""
    verdict = bench_phases[0].verdict
    left, text = verdict(1.0, 1.2, 0.8)
    assert left == pytest.approx(0.6) and text == "1.33× as fast (25% less time)"
    assert verdict(1.0, 0.9, 0.5) == (pytest.approx(0.6), "as fast as now")
    assert verdict(0.3, 1.2, 0.8)[1] == "out of reach: the other phases alone take longer"
