"""How quickly the things that must stop at once do: timings that belong here, not in unit tests.

The tests check what happens (the writer is killed, not waited for; Stop sends SIGTERM, then SIGKILL after
the kill grace, and the slot goes to the next training; a nickname is cut to its length); this script
times it, on this machine, against the bound each test asserted:

- `TraceFile.close()` with its writer busy on a part (one that would take a minute): close returns;
  target 10 s (tests/test_trace_file.py, test_closing_stops_the_writer).
- Stop of a training whose worker process is stopped (SIGSTOP, as if suspended), with kill grace 1 s:
  Stop → the job has ended, and Stop → the next training has its worker slot; target the kill grace
  + 2 s (tests/test_jobs.py, test_stop_kills_a_stopped_worker_and_frees_its_slot_within_the_kill_grace).
- `rooms.clean_nickname` of a megabyte of text (four kinds: one letter, lines, right-to-left marks, tags);
  target 50 ms each (tests/test_rooms.py, test_a_megabyte_nickname_is_cut_to_its_length).

Medians and the worst of several runs.

    python benchmarks/bench_stops.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def trace_close(runs: int) -> list[float]:
    """Seconds for `close()` to return, the writer busy with a part that sleeps a minute."""
    import tempfile

    import wordpiece_core.trace_file as trace_file
    from wordpiece_core.config import TrainerConfig
    from wordpiece_core.engine import train
    from wordpiece_core.trace_file import TraceFile

    words = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5, "teaching": 4, "tokenizers": 3, "wordpiece": 6,
             "merging": 2, "subword": 5, "vocabulary": 2}
    saved = trace_file.step_lines, TraceFile.EARLY_STEPS, TraceFile.POLL_EVERY, TraceFile.SPLIT_FROM
    trace_file.step_lines = lambda *args, **kwargs: time.sleep(60) or iter(())
    TraceFile.EARLY_STEPS, TraceFile.POLL_EVERY, TraceFile.SPLIT_FROM = 3, 1, 2  # parts during a small training
    times = []
    try:
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as folder:
                trace = TraceFile(folder=folder).start()
                train(words, TrainerConfig(algorithm="wordpiece", vocab_size=60, top_k=3), None, trace.during)
                assert trace.pid > 0 and trace.busy
                start = time.perf_counter()
                trace.close()
                times.append(time.perf_counter() - start)
                assert trace.pid < 0
    finally:
        trace_file.step_lines, TraceFile.EARLY_STEPS, TraceFile.POLL_EVERY, TraceFile.SPLIT_FROM = saved
    return times


def _workers() -> set[int]:
    """The pids of this process's training workers (train_worker.py), from /proc."""
    pids = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                parent = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                command = fh.read()
        except OSError:
            continue
        if parent == os.getpid() and b"train_worker" in command:
            pids.add(int(name))
    return pids


def _until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def stop_a_stopped_worker(runs: int, kill_grace: float) -> tuple[list[float], list[float]]:
    """Seconds from Stop to the job's end, and to the next training's start, the worker stopped (SIGSTOP)."""
    from wordpiece_core.config import TrainerConfig
    from wordpiece_core.corpus import TextSettings
    from wordpiece_ui.corpora import load_sample
    from wordpiece_ui.jobs import TrainingService
    from wordpiece_ui.stores import BudgetStore

    counts = dict(load_sample("wordfreq-en", TextSettings("none", "whitespace")).counts)
    big = TrainerConfig(algorithm="wordpiece", vocab_size=20000, top_k=25)
    ended, freed = [], []
    for i in range(runs):
        service = TrainingService(BudgetStore(100_000_000), workers=1, inline_work=0, grace=60, kill_grace=kill_grace)
        before = _workers()
        job = service.join(("stopped", i), counts, big, "student a")
        assert _until(lambda: job.done_steps > 0, 60), "the training did not start"
        [pid] = _workers() - before
        os.kill(pid, signal.SIGSTOP)
        small = TrainerConfig(algorithm="bpe", vocab_size=500, top_k=1)
        waiting = service.join(("next", i), counts, small, "student c")
        time.sleep(0.5)
        assert waiting.state == "queued", waiting.state  # one worker slot, held by the stopped worker
        start = time.perf_counter()
        service.leave(job, "student a")
        assert job.wait(60) and job.state == "cancelled", job.state
        ended.append(time.perf_counter() - start)
        assert _until(lambda: waiting.state != "queued", 60), "the slot was not freed"
        freed.append(time.perf_counter() - start)
        service.leave(waiting, "student c")
        waiting.wait(60)
    return ended, freed


def clean_nicknames(runs: int) -> list[float]:
    """Seconds for clean_nickname of each megabyte text, every run."""
    from wordpiece_ui.rooms import NICKNAME_CHARS, clean_nickname

    times = []
    for _ in range(runs):
        for text in ("A" * 1_000_000, "x\n" * 500_000, "\u202e" * 1_000_000, "<b>" * 400_000):
            start = time.perf_counter()
            cleaned = clean_nickname(text)
            times.append(time.perf_counter() - start)
            assert len(cleaned) <= NICKNAME_CHARS
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    kill_grace = 1.0
    rows = [("TraceFile.close(), its writer busy with a part", trace_close(args.runs), 10.0)]
    ended, freed = stop_a_stopped_worker(max(1, args.runs // 2), kill_grace)
    rows += [(f"Stop of a stopped worker (kill grace {kill_grace:g} s) → its job has ended", ended, kill_grace + 2.0),
             ("Stop of a stopped worker → the next training has the slot", freed, kill_grace + 2.0),
             ("clean_nickname of a megabyte of text (4 kinds)", clean_nicknames(args.runs), 0.05)]
    print("| task | runs | median (ms) | worst (ms) | target (ms) | worst / target |")
    print("|---|---:|---:|---:|---:|---:|")
    for task, times, target in rows:
        median, worst = statistics.median(times) * 1000, max(times) * 1000
        print(f"| {task} | {len(times)} | {median:,.2f} | {worst:,.2f} | {target * 1000:,.0f} | "
              f"{worst / (target * 1000):.2f}× |")


if __name__ == "__main__":
    main()
