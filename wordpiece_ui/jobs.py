"""Trainings for a whole class on one server: one per key, off the serving interpreter (no Streamlit here).

A teacher's server answers every student's clicks from one Python interpreter.
A training of thousands of merges holds that interpreter for seconds, so:

- **One training per key.** When several sessions ask for the same training
  (same corpus digest and trainer settings), the first starts it and the others
  join it: they wait on the same job and read the same progress. A waiting
  session says so by polling the job (`touch`, a heartbeat from its progress
  view). A job that every waiting session has left, by its Stop button (`leave`)
  or by no longer polling (closed the tab, moved on), is cancelled: at once after
  the last Stop, `GRACE_SECONDS` after the last heartbeat otherwise.
- A training that fails (e.g. nothing to merge) is remembered as failed, so the
  sessions that ask again get the message instead of a new attempt.
- **Large trainings in a worker process.** A job above `INLINE_WORK` runs in a
  child process (`python -m wordpiece_ui.train_worker`) and ships back the
  compact trace (a few MB of arrays, pickled in milliseconds), so the server's
  interpreter stays free for everybody else's clicks. At most `workers` children
  train at once (one per core), the rest queue. A child runs at a lower CPU
  priority (`WORKER_NICENESS`), so the server's clicks still come first when every
  core trains: on a 2-core machine the Compare page's two trainings run at once
  and the class's steps stay fast (benchmarks/bench_class.py). Tiny trainings
  (the course's toy corpus) run in the calling thread: starting a process would
  cost more than the training.
- Finished trainings go into the memory-bounded store (stores.py).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from wordpiece_core.errors import WordPieceError
from wordpiece_core.engine import train
from wordpiece_core.config import TrainerConfig
from wordpiece_core.trace import Training

from .stores import BudgetStore

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

INLINE_WORK = 2_000_000  # characters in the distinct words × merges asked: at or below, train in a thread
INLINE_AT_ONCE = 2  # tiny trainings running in the server at the same time, at most
WORKER_NICENESS = 10  # a worker's CPU priority below the server's (Unix nice: sharing a core with it, a worker gets ~10%)
# A job no session has polled for this long is cancelled. Sessions poll every 0.5 s, but a
# browser slows the timers of a tab left in the background to about one a minute.
GRACE_SECONDS = 90.0
OUT_OF_MEMORY = "training ran out of memory; lower the vocabulary size or use a smaller corpus"
BYTES_PER_STEP = 120  # compact trace: the step's columns and its touched words, about
BYTES_PER_CANDIDATE = 30  # seven 32-bit columns and a little


def estimated_bytes(word_types: int, avg_word_bytes: int, config: TrainerConfig) -> int:
    """About what a training will weigh once stored (before training it: to refuse one that cannot fit)."""
    merges = max(0, config.vocab_size)
    return (word_types * (avg_word_bytes + 60) + merges * (BYTES_PER_STEP + BYTES_PER_CANDIDATE * config.top_k)
            + merges * 60)


@dataclass
class Job:
    """One training in flight, shared by every session that asked for it."""

    key: Hashable
    config: TrainerConfig
    state: str = "queued"  # queued → running → done | failed | cancelled
    done_steps: int = 0
    total_steps: int = 0
    result: Training | None = None
    error: str | None = None
    seen: dict[Hashable, float] = field(default_factory=dict)  # waiting session → its last heartbeat
    finished: threading.Event = field(default_factory=threading.Event)
    cancel_requested: bool = False
    _process: Any = None

    @property
    def fraction(self) -> float:
        return self.done_steps / self.total_steps if self.total_steps else 0.0

    def wait(self, timeout: float) -> bool:
        return self.finished.wait(timeout)


class TrainingService:
    """Single-flight, cancellable trainings stored under a memory budget (see the module docstring)."""

    def __init__(self, store: BudgetStore, workers: int | None = None, inline_work: int = INLINE_WORK,
                 grace: float = GRACE_SECONDS) -> None:
        self.store = store
        self.workers = workers if workers is not None else max(1, os.cpu_count() or 1)
        self.inline_work = inline_work
        self.grace = grace
        self._lock = threading.Lock()
        self._jobs: dict[Hashable, Job] = {}
        self._slots = threading.Semaphore(self.workers)
        self._inline_slots = threading.Semaphore(INLINE_AT_ONCE)
        self._reaper: threading.Thread | None = None
        self.started = 0  # trainings actually run (for tests and the benchmark)

    # ----- what a session calls ---------------------------------------------------------
    def cached(self, key: Hashable) -> Training | None:
        return self.store.get(("training", key))

    def failure(self, key: Hashable) -> str | None:
        """Why the training for `key` failed, if it did (failures are remembered, cancellations not)."""
        return self.store.get(("failed", key))

    def job(self, key: Hashable) -> Job | None:
        """The job in flight for `key`, if any."""
        with self._lock:
            return self._jobs.get(key)

    def join(self, key: Hashable, counts: dict[str, int], config: TrainerConfig, waiter: Hashable) -> Job:
        """The job for `key`: the one in flight, a finished one, or a new one; `waiter` now waits for it."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and job.cancel_requested:
                job = None  # being cancelled: whoever asks now gets a fresh training
            if job is None:
                done, failed = self.store.get(("training", key)), self.store.get(("failed", key))
                if done is not None or failed is not None:  # it ended since the caller looked
                    job = Job(key, config, state="done" if done is not None else "failed", result=done, error=failed)
                    job.finished.set()
                    return job
                job = self._jobs[key] = Job(key, config, total_steps=config.vocab_size)
                self.started += 1
                start = True
            else:
                start = False
            job.seen[waiter] = time.monotonic()
        if start:
            inline = sum(map(len, counts)) * config.vocab_size <= self.inline_work
            run = self._run_inline if inline else self._run_in_worker
            threading.Thread(target=self._run, args=(run, job, counts), daemon=True, name="training").start()
            self._start_reaper()
        return job

    def touch(self, job: Job, waiter: Hashable) -> None:
        """`waiter` still waits for `job` (its progress view polled)."""
        with self._lock:
            job.seen[waiter] = time.monotonic()

    def leave(self, job: Job, waiter: Hashable) -> None:
        """`waiter` stops waiting (pressed Stop); when nobody else waits, the job is cancelled now."""
        with self._lock:
            job.seen.pop(waiter, None)
            abandoned = not job.seen and not job.finished.is_set()
        if abandoned:
            self._cancel(job)

    def in_flight(self) -> int:
        with self._lock:
            return sum(1 for j in self._jobs.values() if not j.finished.is_set())

    # ----- running ------------------------------------------------------------------------
    def _start_reaper(self) -> None:
        with self._lock:
            if self._reaper is not None and self._reaper.is_alive():
                return
            self._reaper = threading.Thread(target=self._reap, daemon=True, name="training reaper")
            self._reaper.start()

    def _reap(self) -> None:
        """Cancel the jobs whose sessions have all stopped polling; end when no job is in flight."""
        while True:
            time.sleep(min(1.0, self.grace / 2) or 0.05)
            now = time.monotonic()
            with self._lock:
                jobs = list(self._jobs.values())
                if not jobs:
                    self._reaper = None
                    return
                stale = [j for j in jobs if not j.finished.is_set()
                         and all(now - t > self.grace for t in j.seen.values())]
            for job in stale:
                self._cancel(job)

    def _cancel(self, job: Job) -> None:
        with self._lock:
            if job.finished.is_set():
                return
            job.cancel_requested = True
            process, queued = job._process, job.state == "queued"
        if process is not None:
            process.terminate()
        elif queued:  # still waiting for a worker: it never starts
            self._finish(job, "cancelled", error=_CANCELLED)

    def _finish(self, job: Job, state: str, result: Training | None = None, error: str | None = None,
                remember: bool = False) -> None:
        """End `job` (once). A result is stored; a failure is remembered only when `remember`
        (a property of the corpus and settings, not a crash that another attempt may not meet)."""
        if job.finished.is_set():
            return
        if result is not None and not self.store.put(("training", job.key), result):
            error = (f"this training takes {result.nbytes / 1e6:,.0f} MB, more than this server keeps for all its "
                     f"trainings ({self.store.budget / 1e6:,.0f} MB); lower the vocabulary size or use a smaller corpus")
            result, state, remember = None, "failed", True
        if remember and error:
            self.store.put(("failed", job.key), error)
        with self._lock:
            job.state, job.result, job.error = state, result, error
            if self._jobs.get(job.key) is job:
                del self._jobs[job.key]
        job.finished.set()

    def _run(self, run: Any, job: Job, counts: dict[str, int]) -> None:
        """Run a job; whatever goes wrong, finish it, so that no session waits forever."""
        try:
            run(job, counts)
        except Exception as exc:  # a bug or a broken worker: say so to the waiting sessions
            if not job.finished.is_set():
                self._finish(job, "failed", error=f"the training failed unexpectedly ({type(exc).__name__}: {exc})")

    def _run_inline(self, job: Job, counts: dict[str, int]) -> None:
        def progress(done: int, total: int) -> None:
            job.done_steps, job.total_steps = done, total
            if job.cancel_requested:
                raise _Cancelled()

        with self._inline_slots:
            job.state = "running"
            try:
                self._finish(job, "done", train(counts, job.config, progress))
            except _Cancelled:
                self._finish(job, "cancelled", error=_CANCELLED)
            except WordPieceError as exc:
                self._finish(job, "failed", error=str(exc), remember=True)
            except MemoryError:
                self._finish(job, "failed", error=OUT_OF_MEMORY)

    def _run_in_worker(self, job: Job, counts: dict[str, int]) -> None:
        with self._slots:  # at most `workers` trainings at once; the rest wait here, queued
            with self._lock:
                if job.cancel_requested:
                    process = None
                else:
                    process = job._process = subprocess.Popen(
                        [sys.executable, "-m", "wordpiece_ui.train_worker"], cwd=ROOT, env=_worker_env(),
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                    job.state = "running"
            if process is None:
                self._finish(job, "cancelled", error=_CANCELLED)
                return
            outcome: tuple[str, Any] = ("failed", "the training process ended without an answer")
            try:
                assert process.stdin is not None and process.stdout is not None
                with process.stdin:
                    pickle.dump((counts, job.config), process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                while True:
                    message = pickle.load(process.stdout)
                    if message[0] == "progress":
                        job.done_steps, job.total_steps = message[1], message[2]
                    else:
                        outcome = message
                        break
            except (EOFError, OSError, pickle.UnpicklingError):
                if job.cancel_requested:
                    outcome = ("cancelled", _CANCELLED)
            finally:
                if process.stdout is not None:
                    process.stdout.close()
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        if outcome[0] == "done":
            self._finish(job, "done", result=outcome[1])
        elif outcome[0] == "invalid":  # the corpus and settings cannot be trained: say so to all who ask
            self._finish(job, "failed", error=outcome[1], remember=True)
        else:
            self._finish(job, outcome[0], error=outcome[1])


_CANCELLED = "cancelled: nobody was waiting for it"


class _Cancelled(Exception):
    """Raised from an in-server training's progress callback once its job is cancelled."""


def _worker_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
