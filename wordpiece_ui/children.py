"""The app's child processes (a training's worker, train_worker.py; a large count, counting.py): how they are
started and how they yield to the server. Apart from jobs.py, so that a count's child does not import the
training service (a training's worker still does, for jobs.OUT_OF_MEMORY)."""

from __future__ import annotations

import os
import sys

from .corpora import ROOT

WORKER_NICENESS = 10  # a worker's CPU priority below the server's (Unix nice: sharing a core with it, a worker gets ~10%)


def child_command(module: str) -> list[str]:
    """The command that starts one of the app's child processes (`python -m module`, run in ROOT with `child_env`)."""
    return [sys.executable, "-m", module]


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def lower_priority() -> None:
    """In a child process: run below the server's priority (WORKER_NICENESS), so its clicks come first."""
    nice = getattr(os, "nice", None)
    if nice is not None:
        nice(WORKER_NICENESS)
