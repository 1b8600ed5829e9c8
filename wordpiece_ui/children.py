"""The app's child processes (a training's worker, train_worker.py; a large count, counting.py): how they are
started and how they yield to the server. Apart from jobs.py, so that a count's child does not import the
training service (a training's worker still does, for jobs.OUT_OF_MEMORY)."""

from __future__ import annotations

import math
import os
import sys

from .corpora import ROOT

WORKER_NICENESS = 10  # a worker's CPU priority below the server's (Unix nice: sharing a core with it, a worker gets ~10%)
WORKER_MB_ENV = "WORDPIECE_LAB_WORKER_MB"
DEFAULT_WORKER_MB = 800  # what one training may weigh while it trains: its estimate is refused above this
WORKER_HARD_FACTOR = 1.5  # and its process is stopped (MemoryError) past this times as much, whatever the estimate said


def worker_budget_bytes() -> int:
    """What one training may weigh while it trains (WORDPIECE_LAB_WORKER_MB, default DEFAULT_WORKER_MB; a value
    that is not a positive, finite number of MB is taken as the default)."""
    try:
        mb = float(os.environ.get(WORKER_MB_ENV, "").strip() or DEFAULT_WORKER_MB)
    except ValueError:
        mb = DEFAULT_WORKER_MB
    return int((mb if math.isfinite(mb) and 0 < mb < 1e9 else DEFAULT_WORKER_MB) * 1e6)


def _reserved_data_bytes() -> int | None:
    """This process' data segment as the kernel counts it for RLIMIT_DATA (VmData: reserved, not only used)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def cap_memory() -> None:
    """In a worker: its data (the heap and every private mapping: Python's objects, numpy's arrays) may not grow
    by more than WORKER_HARD_FACTOR × the budget; an allocation beyond raises MemoryError, which the worker reports.
    numpy is imported first, with one BLAS thread (child_env): its import reserves address space (about 40 MB a BLAS
    thread) that the limit counts, and what the process reserved so far is added to the limit."""
    try:
        import resource

        import numpy  # noqa: F401 (reserved before the limit, not against it)
    except ImportError:  # (not on this platform: the estimate's refusal is the only bound)
        return
    now = _reserved_data_bytes()
    if now is None:
        return
    limit = now + int(worker_budget_bytes() * WORKER_HARD_FACTOR)
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, resource.RLIM_INFINITY))
    except (ValueError, OSError):
        pass


def child_command(module: str) -> list[str]:
    """The command that starts one of the app's child processes (`python -m module`, run in ROOT with `child_env`)."""
    return [sys.executable, "-m", module]


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # (a worker trains on one core)
        env.setdefault(threads, "1")
    return env


def lower_priority() -> None:
    """In a child process: run below the server's priority (WORKER_NICENESS), so its clicks come first."""
    nice = getattr(os, "nice", None)
    if nice is not None:
        nice(WORKER_NICENESS)
