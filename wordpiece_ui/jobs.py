"""Trainings for a whole class on one server: one per key, off the serving interpreter (no Streamlit here).

A teacher's server answers every student's clicks from one Python interpreter.
A training of thousands of merges holds that interpreter for seconds, so:

- **One training per key.** When several sessions ask for the same training
  (same corpus digest and trainer settings), the first starts it and the others
  join it: they wait on the same job and read the same progress. A job that
  every waiting session has left (closed the tab, pressed Stop, moved on) is
  cancelled after a short grace period, so a rerun that leaves and re-joins at
  once does not kill it.
- **Large trainings in a worker process.** A job above `INLINE_WORK` runs in a
  child process (started from a small, clean fork server) and ships back the
  compact trace (a few MB of arrays, pickled in milliseconds), so the server's
  interpreter stays free for everybody else's clicks. At most `workers` children
  train at once (one on a 2-core machine, leaving a core to serve the class); the
  rest queue. Tiny trainings (the course's toy corpus) run in the calling thread:
  starting a process would cost more than the training.
- Finished trainings go into the memory-bounded store (stores.py).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from wordpiece_core.errors import WordPieceError
from wordpiece_core.merging import train
from wordpiece_core.trace import TrainerConfig, Training

from .stores import BudgetStore

INLINE_WORK = 2_000_000  # distinct words × merges asked: at or below, train in the calling thread
GRACE_SECONDS = 3.0  # how long a job nobody waits for lives on (a rerun leaves and re-joins)
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
    waiters: int = 0
    started: float = field(default_factory=time.monotonic)
    finished: threading.Event = field(default_factory=threading.Event)
    cancel_requested: bool = False
    _process: Any = None

    @property
    def fraction(self) -> float:
        return self.done_steps / self.total_steps if self.total_steps else 0.0

    def wait(self, timeout: float) -> bool:
        return self.finished.wait(timeout)


def _train_in_child(conn: Any, counts: dict[str, int], config: TrainerConfig) -> None:
    """A worker process: train, report progress at each percent, send back the training or the error."""
    shown = [-1]

    def progress(done: int, total: int) -> None:
        percent = 100 * done // max(1, total)
        if percent != shown[0]:
            shown[0] = percent
            conn.send(("progress", done, total))

    try:
        conn.send(("done", train(counts, config, progress)))
    except WordPieceError as exc:
        conn.send(("failed", str(exc)))
    except MemoryError:
        conn.send(("failed", "training ran out of memory; lower the vocabulary size or use a smaller corpus"))
    finally:
        conn.close()


class TrainingService:
    """Single-flight, cancellable trainings stored under a memory budget (see the module docstring)."""

    def __init__(self, store: BudgetStore, workers: int | None = None, inline_work: int = INLINE_WORK,
                 grace: float = GRACE_SECONDS) -> None:
        self.store = store
        self.workers = workers if workers is not None else max(1, (os.cpu_count() or 2) - 1)
        self.inline_work = inline_work
        self.grace = grace
        self._lock = threading.Lock()
        self._jobs: dict[Hashable, Job] = {}
        self._slots = threading.Semaphore(self.workers)
        self._context: Any = None
        self.started = 0  # trainings actually run (for tests and the benchmark)

    # ----- what a session calls ---------------------------------------------------------
    def cached(self, key: Hashable) -> Training | None:
        return self.store.get(("training", key))

    def join(self, key: Hashable, counts: dict[str, int], config: TrainerConfig) -> Job:
        """The job for `key`: the one in flight, or a new one. The caller must `leave` it when done waiting."""
        with self._lock:
            job = self._jobs.get(key)
            done = self.store.get(("training", key)) if job is None else None
            if done is not None:  # it finished between the caller's look in the store and now
                job = Job(key, config, state="done", result=done)
                job.finished.set()
                job.waiters += 1
                return job
            if job is None or job.state in ("cancelled", "failed"):
                job = self._jobs[key] = Job(key, config, total_steps=config.vocab_size)
                self.started += 1
                start = True
            else:
                start = False
            job.waiters += 1
        if start:
            inline = len(counts) * config.vocab_size <= self.inline_work
            run = self._run_inline if inline else self._run_in_worker
            threading.Thread(target=self._run, args=(run, job, counts), daemon=True, name="training").start()
        return job

    def leave(self, job: Job) -> None:
        """A session stops waiting for `job`; when nobody waits any more it is cancelled (after the grace)."""
        with self._lock:
            job.waiters -= 1
            if job.waiters > 0 or job.finished.is_set():
                return
        timer = threading.Timer(self.grace, self._cancel_if_abandoned, args=(job,))
        timer.daemon = True
        timer.start()

    def in_flight(self) -> int:
        with self._lock:
            return sum(1 for j in self._jobs.values() if not j.finished.is_set())

    # ----- running ------------------------------------------------------------------------
    def _cancel_if_abandoned(self, job: Job) -> None:
        with self._lock:
            if job.waiters > 0 or job.finished.is_set():
                return
            job.cancel_requested = True
            process = job._process
        if process is not None:
            process.terminate()

    def _finish(self, job: Job, state: str, result: Training | None = None, error: str | None = None) -> None:
        if result is not None:
            self.store.put(("training", job.key), result)
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
        job.state = "running"

        def progress(done: int, total: int) -> None:
            job.done_steps, job.total_steps = done, total

        try:
            self._finish(job, "done", train(counts, job.config, progress))
        except WordPieceError as exc:
            self._finish(job, "failed", error=str(exc))
        except MemoryError:
            self._finish(job, "failed", error="training ran out of memory; lower the vocabulary size or use a smaller corpus")

    def _worker_context(self) -> Any:
        if self._context is None:
            ctx = multiprocessing.get_context("forkserver")
            # the fork server imports the engine once; each worker is a fork of it
            ctx.set_forkserver_preload(["wordpiece_core.merging", "wordpiece_ui.jobs"])
            self._context = ctx
        return self._context

    def _run_in_worker(self, job: Job, counts: dict[str, int]) -> None:
        with self._slots:  # at most `workers` trainings at once; the rest wait here, queued
            if job.cancel_requested:
                self._finish(job, "cancelled", error="cancelled: nobody was waiting for it")
                return
            ctx = self._worker_context()
            receive, send = ctx.Pipe(duplex=False)
            process = ctx.Process(target=_train_in_child, args=(send, counts, job.config), daemon=True)
            with self._lock:
                cancelled = job.cancel_requested
                if not cancelled:
                    process.start()
                    job._process = process
                    job.state = "running"
            send.close()
            if cancelled:
                receive.close()
                self._finish(job, "cancelled", error="cancelled: nobody was waiting for it")
                return
            outcome: tuple[str, Any] = ("failed", "the training process ended without an answer")
            try:
                while True:
                    message = receive.recv()
                    if message[0] == "progress":
                        job.done_steps, job.total_steps = message[1], message[2]
                    else:
                        outcome = message
                        break
            except (EOFError, OSError):
                if job.cancel_requested:
                    outcome = ("cancelled", "cancelled: nobody was waiting for it")
            finally:
                receive.close()
                process.join(timeout=5)
        if outcome[0] == "done":
            self._finish(job, "done", result=outcome[1])
        else:
            self._finish(job, outcome[0], error=outcome[1])
