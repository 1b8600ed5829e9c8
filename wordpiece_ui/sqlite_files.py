"""What the app's SQLite files share (datastore.py's kept files, rooms.py's class rooms; no Streamlit):
a transaction per operation, and a schema whose version is `PRAGMA user_version`."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping

BUSY_SECONDS = 10.0  # how long an operation waits for another process' write


def connect(path: str) -> sqlite3.Connection:
    """A connection of its own (safe across threads and processes), durable through a crash of the process
    in WAL mode, each statement under our own BEGIN/COMMIT."""
    db = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
    db.execute("PRAGMA synchronous = NORMAL")
    return db


@contextlib.contextmanager
def transaction(db: sqlite3.Connection, write: bool = False) -> Iterator[sqlite3.Connection]:
    """One transaction: a writer takes the lock first (`BEGIN IMMEDIATE`), so two never deadlock."""
    db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # (a COMMIT that failed, on a full disk, leaves it open)
            db.execute("ROLLBACK")
        raise


def use_schema(db: sqlite3.Connection, statements: Iterable[str], version: int,
               newer: Callable[[int], Exception], upgrades: Mapping[int, Iterable[str]] | None = None) -> None:
    """Create what is missing and stamp the version, inside a write transaction; `newer(v)` is raised
    when the file was written by a newer schema (this code must not touch it). A file of an older version
    (not a new one: its tables are created whole) is brought up to date by `upgrades[v]` for each v after it."""
    found = db.execute("PRAGMA user_version").fetchone()[0]
    if found > version:
        raise newer(found)
    if 0 < found < version:
        for step in range(found + 1, version + 1):
            for statement in (upgrades or {}).get(step, ()):
                db.execute(statement)
    for statement in statements:
        db.execute(statement)
    db.execute(f"PRAGMA user_version = {version}")
