"""wordpiece_ui/jobs.py: trainings for a whole class on one server. A training runs once per key,
off the serving thread when large (in a worker process), and stops when nobody waits; a failure of
the corpus itself is remembered, a crashed worker is not. The load it is for is measured by
benchmarks/bench_class.py.
"""

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from helpers import ROOT, TOY
from wordpiece_core.config import TrainerConfig
from wordpiece_core.corpus import TextSettings
from wordpiece_core.engine import train
from wordpiece_ui.jobs import TrainingService
from wordpiece_ui.stores import BudgetStore


CFG = TrainerConfig(algorithm="wordpiece", vocab_size=40, top_k=5)
WAITS = "import sys, time; sys.stdin.buffer.read(); time.sleep(60)"  # a worker that takes its job and never answers


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
    assert job.state == "done" and job.process is not None and job.process.returncode == 0
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


@pytest.mark.slow
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
    assert a.process.returncode is not None and a.process.returncode != 0  # the worker was ended
    assert service.cached("slow") is None and service.failure("slow") is None and service.in_flight() == 0
    c = service.join("slow", counts, TrainerConfig(algorithm="wordpiece", vocab_size=50, top_k=1), "student a")
    assert c is not a and c.wait(30) and c.state == "done"  # asking again starts afresh


@pytest.mark.slow
def test_a_training_nobody_polls_any_more_is_cancelled_after_the_grace(monkeypatch):
    from wordpiece_ui import jobs

    # A worker that never finishes (it reads its job and waits): the test does not race a real training.
    monkeypatch.setattr(jobs, "worker_command", lambda: [sys.executable, "-c", WAITS])
    service = TrainingService(BudgetStore(100_000_000), inline_work=0, grace=0.6)
    job = service.join("left", dict(TOY), CFG, "student")
    for _ in range(6):  # the student's progress view polls for a while …
        time.sleep(0.2)
        service.touch(job, "student")
    assert job.state == "running"
    assert job.wait(10)  # … then the tab is closed
    assert job.state == "cancelled"


def test_a_training_whose_sessions_closed_is_cancelled_within_seconds_not_after_the_grace(monkeypatch):
    """A session whose connection is gone (the server's `connected` says so) stops waiting
    closed_grace after its last poll; one still connected is left the whole grace, polling or not."""
    from wordpiece_ui import jobs

    monkeypatch.setattr(jobs, "worker_command", lambda: [sys.executable, "-c", WAITS])
    open_tabs = {"student a", "student b"}
    service = TrainingService(BudgetStore(100_000_000), inline_work=0, grace=60, closed_grace=0.5,
                              connected=lambda waiter: waiter in open_tabs)
    job = service.join("closed", dict(TOY), CFG, "student a")
    service.join("closed", dict(TOY), CFG, "student b")
    assert _until(lambda: job.state == "running")
    open_tabs.discard("student a")  # a closes the tab; b's stays open (in the background: no polls)
    time.sleep(1.5)
    assert job.state == "running"
    open_tabs.discard("student b")
    closed = time.monotonic()
    assert job.wait(10) and job.state == "cancelled"
    assert time.monotonic() - closed < 3.0


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
    assert queued.wait(2) and queued.state == "cancelled" and queued.process is None
    service.leave(running, "a")
    assert running.wait(10)


@pytest.mark.slow
def test_a_result_too_large_for_the_budget_says_so_and_is_not_retrained():
    service = TrainingService(BudgetStore(100_000), inline_work=10**12)
    counts, _ = _big_job(service, "huge")
    job = service.join("huge", counts, TrainerConfig(algorithm="wordpiece", vocab_size=2000, top_k=25), "a")
    assert job.wait(30) and job.state == "failed" and "more than this server keeps" in job.error
    assert service.failure("huge") == job.error  # remembered: asking again does not train again
    assert service.join("huge", counts, job.config, "b").state == "failed" and service.started == 1


def test_only_failures_of_the_corpus_itself_are_remembered(tmp_path, monkeypatch):
    from wordpiece_ui import jobs

    store = BudgetStore(10_000_000)
    service = TrainingService(store)
    job = service.join("bad", {"": 1}, CFG, "a")
    assert job.wait(10) and service.failure("bad") is not None
    # a worker that died (killed, out of memory): another try may work (the same store, trainings in workers)
    monkeypatch.setattr(jobs, "worker_command", lambda: [sys.executable, "-c", DIES, str(tmp_path / "starts")])
    in_workers = TrainingService(store, inline_work=0)
    crashed = in_workers.join("other", dict(TOY), CFG, "b")
    assert crashed.wait(30) and crashed.state == "failed" and crashed.finished.is_set()
    assert store.get(("failed", "other")) is None and service.failure("other") is None
    assert in_workers.failure("other") == crashed.error  # (held by its service for a while: see the test below)
    assert service.failure("bad") == in_workers.failure("bad") == job.error


# ----- workers that can always be stopped ------------------------------------------------------
# A worker process can stop answering (SIGSTOP, swapped out, stuck) or die (the kernel's OOM killer).
# Neither may keep its slot: Stop kills it within the kill grace, the watchdog kills a silent one, and
# one that keeps dying is tried again a few times, then the job fails with one line a student can read.


@contextlib.contextmanager
def _stopped_worker(service, key, vocab_size):
    """A job whose worker has started training, then is stopped (SIGSTOP, as if suspended); killed afterwards
    in any case (a stopped worker left behind would hold its memory until the test run ends)."""
    counts, config = _big_job(service, key, vocab_size)
    job = service.join(key, counts, config, "student a")
    process = None
    try:
        assert _until(lambda: job.done_steps > 0)
        process = job.process
        os.kill(process.pid, signal.SIGSTOP)
        yield job, process, counts, config
    finally:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(5)


def _signals_sent(monkeypatch):
    """Every SIGTERM (Popen.terminate) and SIGKILL (Popen.kill) sent to a child process from now on, in order:
    a list of (pid, "terminate" or "kill")."""
    sent = []
    for name in ("terminate", "kill"):
        def send(self, _name=name, _send=getattr(subprocess.Popen, name)):
            sent.append((self.pid, _name))
            _send(self)

        monkeypatch.setattr(subprocess.Popen, name, send)
    return sent


@pytest.mark.slow
def test_stop_kills_a_stopped_worker_and_frees_its_slot_within_the_kill_grace(monkeypatch):
    """Stop sends SIGTERM, which a stopped process keeps pending; the kill grace later, SIGKILL ends it and its
    slot goes to the next training. (How long that takes: benchmarks/bench_stops.py.)"""
    signals = _signals_sent(monkeypatch)
    service = TrainingService(BudgetStore(100_000_000), workers=1, inline_work=0, grace=60, kill_grace=1.0)
    with _stopped_worker(service, "stopped", 20000) as (stopped, process, counts, _):
        waiting = service.join("next", counts, TrainerConfig(algorithm="bpe", vocab_size=500, top_k=1), "student c")
        time.sleep(0.5)
        assert waiting.state == "queued"  # one worker slot, held by the stopped worker
        service.leave(stopped, "student a")  # Stop: SIGTERM stays pending on a stopped process …
        assert stopped.wait(1.0 + 2.0), "Stop did not end the stopped worker"  # … so SIGKILL after the grace
        assert stopped.state == "cancelled" and process.wait(1) == -signal.SIGKILL
        # SIGTERM (Stop's, and again at each look of the supervisor) until the grace is over, then SIGKILL only
        sent = [what for pid, what in signals if pid == process.pid]
        assert "kill" in sent, sent
        killed_at = sent.index("kill")
        assert killed_at >= 1 and set(sent[:killed_at]) == {"terminate"} and set(sent[killed_at:]) == {"kill"}, sent
        assert _until(lambda: waiting.state != "queued", 2.0), "the slot was not freed"
        assert waiting.wait(60) and waiting.state == "done"


@pytest.mark.slow
def test_the_watchdog_ends_a_worker_that_reports_no_progress_and_the_training_goes_on():
    service = TrainingService(BudgetStore(100_000_000), workers=1, inline_work=0, grace=60, watchdog=1.5)
    with _stopped_worker(service, "silent", 12000) as (silent, process, counts, config):
        # nobody presses Stop: the student's bar would freeze for good
        assert _until(lambda: process.poll() is not None, 1.5 + 3.0), "the watchdog did not end the silent worker"
        assert process.returncode == -signal.SIGKILL
        assert silent.wait(60) and silent.state == "done", silent.error  # started again in a new worker
        assert silent.restarts == 1 and silent.result == train(counts, config)


BUSY = ("import sys, time\nstart = time.time()\nwhile time.time() - start < 2.5: pass\n"
        "open(sys.argv[1], 'a').write('x')")


@pytest.mark.slow
def test_the_watchdog_leaves_a_silent_worker_that_is_computing_alone(tmp_path, monkeypatch):
    """Silent for longer than the watchdog but using the CPU (slow to report on a busy server): not killed."""
    from wordpiece_ui import jobs

    ends = tmp_path / "ends"
    monkeypatch.setattr(jobs, "worker_command", lambda: [sys.executable, "-c", BUSY, str(ends)])
    service = TrainingService(BudgetStore(10_000_000), inline_work=0, watchdog=1.0)
    job = service.join("busy", dict(TOY), CFG, "student")
    assert job.wait(30) and job.state == "failed"  # it never answers, so it ends as a worker that died …
    assert ends.read_text() == "x" * (1 + jobs.RESTARTS)  # … but each run reached its end: none was killed


DIES = "import os, signal, sys; open(sys.argv[1], 'a').write('x'); os.kill(os.getpid(), signal.SIGKILL)"


def test_a_worker_that_dies_every_time_is_started_again_twice_then_the_job_fails_with_one_line(tmp_path, monkeypatch):
    from wordpiece_ui import jobs

    starts = tmp_path / "starts"
    monkeypatch.setattr(jobs, "worker_command", lambda: [sys.executable, "-c", DIES, str(starts)])
    later_by = [0.0]  # the service's clock, moved on by the test
    service = TrainingService(BudgetStore(10_000_000), inline_work=0, clock=lambda: time.monotonic() + later_by[0])
    job = service.join("dies", dict(TOY), CFG, "student")
    assert job.wait(30) and job.state == "failed"
    assert starts.read_text() == "x" * (1 + jobs.RESTARTS) and jobs.RESTARTS == 2
    assert "\n" not in job.error and "Traceback" not in job.error and "3 times" in job.error, job.error
    assert service.in_flight() == 0
    # Per training, not per job: asked for again (the page runs again, another student), it starts no worker …
    assert service.failure("dies") == job.error
    again = service.join("dies", dict(TOY), CFG, "student")
    assert again.wait(5) and again.state == "failed" and again.error == job.error
    assert starts.read_text() == "x" * (1 + jobs.RESTARTS)
    # … until DIED_HOLD_SECONDS have passed (a later try may find the memory it needs)
    later_by[0] = jobs.DIED_HOLD_SECONDS + 1
    assert service.failure("dies") is None
    later = service.join("dies", dict(TOY), CFG, "student")
    assert later.wait(30) and later.state == "failed" and starts.read_text() == "x" * 2 * (1 + jobs.RESTARTS)


def test_the_deaths_count_per_training_over_its_jobs(tmp_path, monkeypatch):
    """A job stopped after its worker died, then asked for again: the new job has the restarts the training had
    left, not a fresh count (before: 6 kills in a row with 4 Stops, and it trained on each time)."""
    from wordpiece_ui import jobs

    starts = tmp_path / "starts"
    monkeypatch.setattr(jobs, "worker_command", lambda: [sys.executable, "-c", DIES, str(starts)])
    service = TrainingService(BudgetStore(10_000_000), inline_work=0)
    assert service.died_once("dies") == 1 and service.died_once("dies") == 2  # two deaths in earlier jobs
    job = service.join("dies", dict(TOY), CFG, "student")
    assert job.wait(30) and job.state == "failed" and "3 times" in job.error, job.error
    assert starts.read_text() == "x"  # one worker, not three


def test_the_progress_line_names_the_algorithms_steps_and_says_when_their_total_is_an_estimate():
    from wordpiece_core.algorithms import info
    from wordpiece_ui.jobs import Job
    from wordpiece_ui.progress_view import progress_line

    unigram = Job("u", info("unigram").make_config(1000, pre_tokenizer="metaspace"))
    assert progress_line(unigram) == "counting the corpus…"  # not "0 of 1,000": the vocabulary is not its steps
    unigram.done_steps, unigram.total_steps = 1, 8
    assert progress_line(unigram) == "1 of about 8 rounds"
    merges = Job("w", info("wordpiece").make_config(1000, pre_tokenizer="whitespace"))
    merges.done_steps, merges.total_steps = 120, 1000
    assert progress_line(merges) == "120 of 1,000 merges"


@pytest.mark.slow
def test_a_worker_that_outgrows_its_budget_stops_with_a_memory_error_said_in_words():
    """The estimate's refusal is the first bound; the worker's data limit (WORKER_HARD_FACTOR × the budget) is the
    second: 64,000 random 20-letter words train in about 480 MB, and under a 100 MB budget the worker reports
    running out of memory instead of growing."""
    import io
    import pickle
    import random
    import string

    from wordpiece_core.algorithms import build_config
    from wordpiece_ui.children import child_command, child_env
    from wordpiece_ui.jobs import OUT_OF_MEMORY

    rng = random.Random(1)
    counts = {"".join(rng.choices(string.ascii_lowercase, k=20)): 3 for _ in range(64_000)}
    config = build_config("unigram", 8000, pre_tokenizer="metaspace")
    done = subprocess.run(child_command("wordpiece_ui.train_worker"), cwd=str(ROOT), input=pickle.dumps((counts, config)),
                          env={**child_env(), "WORDPIECE_LAB_WORKER_MB": "100"}, capture_output=True, timeout=300)
    messages = []
    stream = io.BytesIO(done.stdout)
    while stream.tell() < len(done.stdout):
        messages.append(pickle.load(stream))
    assert done.returncode == 0 and messages[-1] == ("failed", OUT_OF_MEMORY), messages[-1:]


@pytest.mark.parametrize("value", ["inf", "1e400", "-5", "0", "nan", "lots", ""])
def test_a_worker_budget_that_is_not_a_positive_finite_number_is_the_default(monkeypatch, value):
    from wordpiece_ui.children import DEFAULT_WORKER_MB, worker_budget_bytes

    monkeypatch.setenv("WORDPIECE_LAB_WORKER_MB", value)
    assert worker_budget_bytes() == DEFAULT_WORKER_MB * 1_000_000
