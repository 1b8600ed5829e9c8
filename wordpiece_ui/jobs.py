"""Trainings for a whole class on one server: one per key, off the serving interpreter (no Streamlit here).

A teacher's server answers every student's clicks from one Python interpreter.
A training of thousands of merges holds that interpreter for seconds, so:

- **One training per key.** When several sessions ask for the same training
  (same corpus digest and trainer settings), the first starts it and the others
  join it: they wait on the same job and read the same progress. A waiting
  session says so by polling the job (`touch`, a heartbeat from its progress
  view). A job that every waiting session has left, by its Stop button (`leave`),
  by closing its tab (the server sees its connection gone: `connected`) or by no
  longer polling (moved on), is cancelled: at once after the last Stop,
  `CLOSED_GRACE_SECONDS` after the last heartbeat of a closed session (so a closed
  class's work ends within a few seconds), `GRACE_SECONDS` after it otherwise (a
  tab in the background polls about once a minute).
- A training that fails (e.g. nothing to merge) is remembered as failed, so the
  sessions that ask again get the message instead of a new attempt.
- **Large trainings in a worker process.** A job above `INLINE_WORK` runs in a
  child process (`python -m wordpiece_ui.train_worker`) and ships back the
  compact trace (a few MB of arrays, pickled in milliseconds), so the server's
  interpreter stays free for everybody else's clicks. At most `workers` children
  train at once (one per core), the rest queue. A child runs at a lower CPU
  priority (children.WORKER_NICENESS), so the server's clicks still come first when every
  core trains: on a 2-core machine the Compare page's two trainings run at once
  and the class's steps stay fast (benchmarks/bench_class.py). Tiny trainings
  (the course's toy corpus) run in the calling thread: starting a process would
  cost more than the training.
- **A worker can always be stopped, and never keeps its slot once gone.** One
  supervising thread, which never reads a worker's pipe, kills (SIGKILL) a worker
  still alive `KILL_GRACE_SECONDS` after Stop sent it SIGTERM (a stopped process,
  SIGSTOP, leaves SIGTERM pending), and kills one that has sent nothing for
  `WATCHDOG_SECONDS` and used no CPU time meanwhile (stopped or stuck: a training
  reports its progress at each percent, and one that is only slow to report, on a
  busy server, is still computing and is left alone). A worker's slot is free as soon
  as its process has ended, whoever notices first: the thread reading its pipe or the
  supervisor.
- **A worker that dies is started again, `RESTARTS` times at most per training.** Killed by the
  system (out of memory), crashed, or silent: the training starts again in a new
  worker. The deaths are counted per training (its key), not per job: a job that was
  stopped and asked for again, or a page that asks again after the failure, starts no
  new worker once a training's workers died 1 + `RESTARTS` times within
  `DIED_HOLD_SECONDS`; it fails with one line for the student meanwhile (`failure`),
  until the student changes something (another training) or that time has passed (a
  later try may find the memory it needs).
- Finished trainings go into the memory-bounded store (stores.py).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from wordpiece_core.errors import WordPieceError
from wordpiece_core.algorithms import AnyTraining, Config as AnyConfig, train

from .children import child_command, child_env
from .corpora import ROOT
from .stores import BudgetStore


INLINE_WORK = 2_000_000  # characters in the distinct words × merges asked: at or below, train in a thread
INLINE_AT_ONCE = 2  # tiny trainings running in the server at the same time, at most
# A job no session has polled for this long is cancelled. Sessions poll every 0.5 s, but a
# browser slows the timers of a tab left in the background to about one a minute.
GRACE_SECONDS = 90.0
CLOSED_GRACE_SECONDS = 3.0  # … and a session whose connection is gone, this long after its last poll
KILL_GRACE_SECONDS = 3.0  # after Stop's SIGTERM, a worker still alive this much later is killed (SIGKILL)
WATCHDOG_SECONDS = 60.0  # a worker that sends nothing (no progress) for this long is killed, and started again
RESTARTS = 2  # a training whose worker dies is started again at most this many times; then it fails
DIED_HOLD_SECONDS = 600.0  # a training whose workers died that often is not started again for this long
_DEATHS_KEPT = 1000  # trainings whose deaths are counted at once, at most (the oldest are forgotten)
OUT_OF_MEMORY = "training ran out of memory; lower the vocabulary size or use a smaller corpus"


@dataclass
class Job:
    """One training in flight, shared by every session that asked for it."""

    key: Hashable
    config: AnyConfig
    state: str = "queued"  # queued → running → done | failed | cancelled
    done_steps: int = 0
    total_steps: int = 0
    result: AnyTraining | None = None
    error: str | None = None
    seen: dict[Hashable, float] = field(default_factory=dict)  # waiting session → its last heartbeat
    finished: threading.Event = field(default_factory=threading.Event)
    cancel_requested: bool = False
    restarts: int = 0  # times its worker died and the training started again in a new one
    _process: Any = None  # its current (or last) worker process
    _worker: _Worker | None = None

    @property
    def process(self) -> Any:
        """Its current (or last) worker process (None before one started)."""
        return self._process

    @property
    def fraction(self) -> float:
        return self.done_steps / self.total_steps if self.total_steps else 0.0

    def wait(self, timeout: float) -> bool:
        return self.finished.wait(timeout)


@dataclass(eq=False)
class _Worker:
    """A worker process as the supervisor sees it (the supervisor never reads its pipe)."""

    process: subprocess.Popen[bytes]
    heard: float  # when it last sent a message, started, or was seen computing: the watchdog's clock
    cpu_ticks: int = -1  # its CPU time when the watchdog last looked (see _computing)
    kill_at: float | None = None  # Stop sent SIGTERM: SIGKILL at this time if it is still alive
    slot: bool = True  # it holds a worker slot (given back once, by whoever sees the process end first)


def _computing(worker: _Worker) -> bool:
    """Whether `worker` runs and has used CPU time since the watchdog last looked (Linux's /proc; elsewhere
    False: a silent worker is then taken for a stuck one)."""
    try:
        with open(f"/proc/{worker.process.pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()  # after the command's name: state, ppid, ...
    except (OSError, IndexError):
        return False
    ticks = int(fields[11]) + int(fields[12])  # utime + stime
    before, worker.cpu_ticks = worker.cpu_ticks, ticks
    return fields[0] not in ("T", "t", "Z") and ticks > before


class TrainingService:
    """Single-flight, cancellable trainings stored under a memory budget (see the module docstring)."""

    def __init__(self, store: BudgetStore, workers: int | None = None, inline_work: int = INLINE_WORK,
                 grace: float = GRACE_SECONDS, kill_grace: float = KILL_GRACE_SECONDS,
                 watchdog: float = WATCHDOG_SECONDS, clock: Callable[[], float] = time.monotonic,
                 connected: Callable[[Hashable], bool] = lambda waiter: True,
                 closed_grace: float = CLOSED_GRACE_SECONDS) -> None:
        self.store = store
        self.connected = connected  # whether a waiter's session still has its connection (server.py asks Streamlit)
        self.closed_grace = closed_grace
        self.workers = workers if workers is not None else max(1, os.cpu_count() or 1)
        self.inline_work = inline_work
        self.grace = grace
        self.kill_grace = kill_grace
        self.watchdog = watchdog
        self.clock = clock  # when a worker died, and how long ago (the restart limit's hold)
        self._lock = threading.Lock()
        self._jobs: dict[Hashable, Job] = {}
        self._deaths: dict[Hashable, tuple[int, float]] = {}  # key → its workers' deaths, when the last one died
        self._workers: list[_Worker] = []  # the worker processes started and not yet waited for
        self._slots = threading.Semaphore(self.workers)
        self._inline_slots = threading.Semaphore(INLINE_AT_ONCE)
        self._supervisor: threading.Thread | None = None
        # the supervisor's period
        self._tick = max(0.05, min(1.0, grace / 2, closed_grace / 4, kill_grace / 4, watchdog / 4))
        self.started = 0  # trainings actually run (for tests and the benchmark)

    # ----- what a session calls ---------------------------------------------------------
    def cached(self, key: Hashable) -> AnyTraining | None:
        return self.store.get(_stored(key))

    def keep(self, key: Hashable, training: AnyTraining) -> None:
        """Store again a training the store let go while a run still used it (trained_model.py)."""
        self.store.put(_stored(key), training)

    def failure(self, key: Hashable) -> str | None:
        """Why the training for `key` failed, if it did (failures are remembered, cancellations not; a training
        whose workers died too often, for DIED_HOLD_SECONDS)."""
        with self._lock:
            return self._failure_locked(key)

    def died_once(self, key: Hashable) -> int:
        """Count one more death of a worker of the training `key` (deaths older than DIED_HOLD_SECONDS are
        forgotten); its deaths so far. The supervisor calls it when a worker dies."""
        now = self.clock()
        with self._lock:
            deaths, last = self._deaths.pop(key, (0, now))
            deaths = 1 + (deaths if now - last <= DIED_HOLD_SECONDS else 0)
            self._deaths[key] = (deaths, now)  # (the newest last)
            while len(self._deaths) > _DEATHS_KEPT:  # (bounded: the oldest first)
                del self._deaths[next(iter(self._deaths))]
        return deaths

    def _failure_locked(self, key: Hashable) -> str | None:
        """`failure`, with the lock held."""
        remembered = self.store.get(("failed", key))
        if remembered is not None:
            return remembered
        deaths, last = self._deaths.get(key, (0, 0.0))
        return _died(deaths) if deaths > RESTARTS and self.clock() - last <= DIED_HOLD_SECONDS else None

    def job(self, key: Hashable) -> Job | None:
        """The job in flight for `key`, if any."""
        with self._lock:
            return self._jobs.get(key)

    def join(self, key: Hashable, counts: dict[str, int], config: AnyConfig, waiter: Hashable) -> Job:
        """The job for `key`: the one in flight, a finished one, or a new one; `waiter` now waits for it."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and job.cancel_requested:
                job = None  # being cancelled: whoever asks now gets a fresh training
            if job is None:
                done, failed = self.store.get(_stored(key)), self._failure_locked(key)
                if done is not None or failed is not None:  # it ended since the caller looked
                    job = Job(key, config, state="done" if done is not None else "failed", result=done, error=failed)
                    job.finished.set()
                    return job
                job = self._jobs[key] = Job(key, config)  # (its steps are known once it counted)
                self.started += 1
                start = True
            else:
                start = False
            job.seen[waiter] = time.monotonic()
        if start:
            inline = sum(map(len, counts)) * config.vocab_size <= self.inline_work
            run = self._run_inline if inline else self._run_in_worker
            threading.Thread(target=self._run, args=(run, job, counts), daemon=True, name="training").start()
            self._start_supervisor()
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
    def _start_supervisor(self) -> None:
        with self._lock:
            if self._supervisor is not None and self._supervisor.is_alive():
                return
            self._supervisor = threading.Thread(target=self._supervise, daemon=True, name="training supervisor")
            self._supervisor.start()

    def _supervise(self) -> None:
        """Every `_tick`: cancel the jobs whose sessions have all gone (`_gone`), and see to each worker
        (`_check`). Never blocked on a worker's pipe; ends when no job is in flight and no worker is left."""
        while True:
            time.sleep(self._tick)
            now = time.monotonic()
            with self._lock:
                jobs, workers = list(self._jobs.values()), list(self._workers)
                if not jobs and not workers:
                    self._supervisor = None
                    return
                stale = [j for j in jobs if not j.finished.is_set()
                         and all(self._gone(waiter, now - t) for waiter, t in j.seen.items())]
            for job in stale:
                self._cancel(job)
            for worker in workers:
                self._check(worker, now)

    def _gone(self, waiter: Hashable, silent: float) -> bool:
        """Whether `waiter`, which last polled `silent` seconds ago, no longer waits: its connection is gone
        (after CLOSED_GRACE_SECONDS), or it has not polled for GRACE_SECONDS."""
        return silent > self.grace or (silent > self.closed_grace and not self.connected(waiter))

    def _check(self, worker: _Worker, now: float) -> None:
        """Free the slot of a worker that has ended; kill one that outlived Stop's grace or has gone silent."""
        process = worker.process
        if process.poll() is not None:
            self._release(worker)  # gone, whatever the reason (its reader may still be reading the pipe's end)
        elif worker.kill_at is not None and now >= worker.kill_at:
            process.kill()  # Stop's SIGTERM did not end it (a stopped process keeps SIGTERM pending)
        elif now - worker.heard > self.watchdog:
            if _computing(worker):
                worker.heard = now  # silent but working (slow to report on a busy server): left alone
            else:
                process.kill()  # silent and idle: stopped or stuck; it dies and is started again (_run_in_worker)

    def _release(self, worker: _Worker) -> None:
        """Give `worker`'s slot back (once)."""
        with self._lock:
            held, worker.slot = worker.slot, False
        if held:
            self._slots.release()

    def _cancel(self, job: Job) -> None:
        with self._lock:
            if job.finished.is_set():
                return
            job.cancel_requested = True
            worker, queued = job._worker, job.state == "queued"
            if worker is not None and not queued and worker.kill_at is None:
                worker.kill_at = time.monotonic() + self.kill_grace  # the supervisor kills it then, if need be
        if queued:  # waiting for a worker: it never starts
            self._finish(job, "cancelled", error=_CANCELLED)
        elif worker is not None:
            worker.process.terminate()

    def _finish(self, job: Job, state: str, result: AnyTraining | None = None, error: str | None = None,
                remember: bool = False) -> None:
        """End `job` (once). A result is stored; a failure is remembered only when `remember`
        (a property of the corpus and settings, not a crash that another attempt may not meet)."""
        if job.finished.is_set():
            return
        if result is not None and not self.store.put(_stored(job.key), result):
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
            with self._lock:
                if job.finished.is_set() or job.cancel_requested:
                    return  # stopped while it waited for a slot (_cancel finished it)
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
        """Train in a worker process; one that dies is replaced, `RESTARTS` times at most (module docstring)."""
        outcome = self._attempt(job, counts)
        deaths = 0
        while outcome[0] == "died" and not job.cancel_requested:  # (a worker Stop ended is no death)
            deaths = self.died_once(job.key)  # this training's, over its jobs
            if deaths > RESTARTS:
                break
            job.restarts += 1
            outcome = self._attempt(job, counts)
        if outcome[0] == "done":
            with self._lock:
                self._deaths.pop(job.key, None)
            self._finish(job, "done", result=outcome[1])
        elif outcome[0] == "invalid":  # the corpus and settings cannot be trained: say so to all who ask
            self._finish(job, "failed", error=outcome[1], remember=True)
        elif job.cancel_requested:
            self._finish(job, "cancelled", error=_CANCELLED)
        elif outcome[0] == "died":
            self._finish(job, "failed", error=_died(deaths))
        else:
            self._finish(job, outcome[0], error=outcome[1])

    def _attempt(self, job: Job, counts: dict[str, int]) -> tuple[str, Any]:
        """One worker process for `job`, in a slot: its answer, or ("died", None) if it ended without one."""
        with self._lock:
            job.state = "queued"
        self._slots.acquire()  # at most `workers` trainings at once; the rest wait here, queued
        try:
            with self._lock:
                if job.cancel_requested:
                    worker = None
                else:
                    process = subprocess.Popen(worker_command(), cwd=ROOT, env=child_env(),
                                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                    worker = job._worker = _Worker(process, heard=time.monotonic())
                    job._process, job.state = process, "running"
                    self._workers.append(worker)
        except BaseException:  # no process (out of memory, too many processes): the slot stays free
            self._slots.release()
            raise
        if worker is None:
            self._slots.release()
            return ("cancelled", _CANCELLED)
        self._start_supervisor()
        try:
            return self._talk(job, worker, counts)
        finally:
            self._end(worker)

    def _talk(self, job: Job, worker: _Worker, counts: dict[str, int]) -> tuple[str, Any]:
        """Send the worker its corpus and read its messages until its answer (see train_worker.py)."""
        process = worker.process
        assert process.stdin is not None and process.stdout is not None
        try:
            with process.stdin:
                pickle.dump((counts, job.config), process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            while True:
                message = pickle.load(process.stdout)
                worker.heard = time.monotonic()
                if message[0] != "progress":
                    return message
                job.done_steps, job.total_steps = message[1], message[2]
        except Exception:  # the pipe ended, broke or was garbled: the worker ended (or is ending) without an answer
            return ("died", None)

    def _end(self, worker: _Worker) -> None:
        """After `_talk`: the worker waited for (killed if it lingers), its slot given back, out of the list."""
        process = worker.process
        if process.stdout is not None:
            process.stdout.close()
        try:
            process.wait(timeout=self.kill_grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        self._release(worker)
        with self._lock:
            self._workers.remove(worker)


def worker_command() -> list[str]:
    """The command that starts a worker process (train_worker.py)."""
    return child_command("wordpiece_ui.train_worker")


def _stored(key: Hashable) -> tuple[str, Hashable]:
    """Where the store keeps the training for `key`."""
    return ("training", key)


def _died(attempts: int) -> str:
    return (f"the training's process stopped {attempts} times before it finished (the server may be short of "
            f"memory); it is not started again for {DIED_HOLD_SECONDS / 60:g} minutes: try again then, or lower the "
            "vocabulary size or use a smaller corpus")


_CANCELLED = "cancelled: nobody was waiting for it"


class _Cancelled(Exception):
    """Raised from an in-server training's progress callback once its job is cancelled."""
