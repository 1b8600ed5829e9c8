"""The benchmark scripts measure what they say (their figures are in the README and the issues' notes)."""

import os
import sys

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")


def test_the_phases_benchmark_times_the_real_command(tmp_path):
    """bench_phases.py runs the command line with a timer around each stage: every stage is timed (a stage
    the timers missed, say because the command line stopped calling it through its module, fails here), the
    phases add up to the wall time, and the command wrote its files."""
    sys.path.insert(0, BENCHMARKS)
    try:
        from bench_phases import phases_of
        from bench_train import ours
    finally:
        sys.path.remove(BENCHMARKS)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hug pug pun bun hugs\n" * 40, encoding="utf-8")
    out = tmp_path / "out"
    wall, phases = phases_of(ours("wordpiece", str(corpus), 12, str(out), "none", "whitespace"))
    assert set(phases) == {"start and exit", "imports", "setting up", "reading and counting", "training", "after the training"}
    assert all(seconds > 0 for seconds in phases.values()), phases
    assert abs(sum(phases.values()) - wall) < 1e-6
    vocab = (out / "vocab.txt").read_text(encoding="utf-8").split("\n")
    assert vocab[0] == "[UNK]" and len([t for t in vocab if t]) == 12
