"""The app's data directory: pasted and uploaded corpora and tokenizer files, kept by digest (no Streamlit).

`WORDPIECE_LAB_DATA` names the folder; by default it is `wordpiece-lab` in the user's data directory
(`$XDG_DATA_HOME`, else `~/.local/share`, on Linux; `~/Library/Application Support` on macOS;
`%LOCALAPPDATA%` on Windows). What a student pastes or uploads is kept there under the SHA-256 digest
of its content, so a link that names the digest (`corpus_id`, its first `ID_CHARS` hex digits) opens
the same corpus for anyone, also after the server restarts.

One SQLite database, `store.sqlite3` (the standard library's `sqlite3`), in WAL mode: the server's
threads and the worker processes that count corpora open it at the same time, each operation on a
connection of its own, each write in one `BEGIN IMMEDIATE` transaction (so a kill -9 leaves the last
committed state). Schema version 1 (`PRAGMA user_version`):

    files(digest TEXT PRIMARY KEY,   -- SHA-256 of the content, 64 hex digits
          kind TEXT,                 -- 'paste', 'upload' or 'tokenizer' (as first kept)
          name TEXT,                 -- the uploaded file's name (as first kept)
          size INTEGER,              -- bytes
          created REAL, last_used REAL,     -- Unix times
          pinned_until REAL)         -- never evicted nor expired before this Unix time (0: not pinned)
    blobs(digest TEXT PRIMARY KEY, data BLOB)   -- the content, apart: marking a use rewrites no blob

Bounds: a budget in MB (`WORDPIECE_LAB_DATA_MB`, default 500; the least recently used files go first
when a new one would pass it) and an expiry (`WORDPIECE_LAB_DATA_DAYS`, default 7 days since the last
use). A pin keeps a file whatever its age and the budget: `pin(digest, until)` is the hook for a
live class room, which pins its corpus while the room is open and renews the pin; a pin that is not
renewed lapses by itself (a room that ended, a server that died).

When the folder cannot be written (or the disk is full, or the database is damaged or newer than this
code), files are kept in memory instead, in the same schema, bounded by `MEMORY_BUDGET_MB`: everything
works but surviving a restart, and `problem` says why in words.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

from . import sqlite_files

DATA_ENV = "WORDPIECE_LAB_DATA"
BUDGET_ENV = "WORDPIECE_LAB_DATA_MB"
DAYS_ENV = "WORDPIECE_LAB_DATA_DAYS"
DEFAULT_BUDGET_MB = 500
DEFAULT_DAYS = 7
MEMORY_BUDGET_MB = 100  # when nothing can be saved: what the server keeps in memory instead
DB_NAME = "store.sqlite3"
SCHEMA_VERSION = 1
KINDS = ("paste", "upload", "tokenizer")
ID_CHARS = 16  # the digest's hex digits a link carries: 64 bits
_ID = re.compile(r"[0-9a-f]{%d,64}" % ID_CHARS)
TOUCH_SECONDS = 60.0  # a use is written at most once a minute per file

_LOG = logging.getLogger(__name__)
_T = TypeVar("_T")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS files (
        digest TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        size INTEGER NOT NULL,
        created REAL NOT NULL,
        last_used REAL NOT NULL,
        pinned_until REAL NOT NULL DEFAULT 0)""",
    "CREATE INDEX IF NOT EXISTS files_by_last_use ON files (last_used)",
    "CREATE TABLE IF NOT EXISTS blobs (digest TEXT PRIMARY KEY, data BLOB NOT NULL)",
)
_COLUMNS = "digest, kind, name, size, last_used, pinned_until"


def default_folder() -> str:
    """The user's data directory's `wordpiece-lab` folder (XDG on Linux)."""
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(home, "Library", "Application Support")
    else:
        xdg = os.environ.get("XDG_DATA_HOME", "")
        base = xdg if os.path.isabs(xdg) else os.path.join(home, ".local", "share")  # the spec ignores a relative one
    return os.path.join(base, "wordpiece-lab")


def folder_from_env() -> str:
    """$WORDPIECE_LAB_DATA, or the default folder."""
    named = os.environ.get(DATA_ENV, "").strip()
    return os.path.abspath(os.path.expanduser(named)) if named else default_folder()


def _number_from_env(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, "").strip() or default)
    except ValueError:
        return default
    return value if value > 0 else default


def content_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def valid_id(text: object) -> str | None:
    """A link's file id as the store reads it (lowercase hex, 16 to 64 digits), or None."""
    if not isinstance(text, str):
        return None
    lowered = text.strip().lower()
    return lowered if _ID.fullmatch(lowered) else None


@dataclass(frozen=True)
class StoredFile:
    """A kept file, without its content."""

    digest: str
    kind: str
    name: str
    size: int
    last_used: float
    pinned_until: float = 0.0
    saved: bool = True  # kept in the data directory (across restarts), not only in this server's memory
    why_not_saved: str = ""  # when not saved: why, in words for the page

    @property
    def id(self) -> str:
        """What a link carries."""
        return self.digest[:ID_CHARS]


class _Unusable(Exception):
    """The database is there but this code must not use it (say why in words)."""


class _Db:
    """One SQLite database of files: a file on disk (a connection per operation: safe across threads and
    processes), or this process' memory (one connection behind a lock)."""

    def __init__(self, path: str | None, budget: int, max_age: float, clock: Callable[[], float],
                 create: bool = True) -> None:
        self.path, self.budget, self.max_age, self.clock = path, budget, max_age, clock
        self._lock = threading.Lock()
        self._memory = None if path else sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        if create:
            self._create()

    # ----- connections and transactions -------------------------------------------------------
    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        if self._memory is not None:
            with self._lock:
                yield self._memory
            return
        assert self.path is not None
        db = sqlite_files.connect(self.path)
        try:
            yield db
        finally:
            db.close()

    @contextlib.contextmanager
    def transaction(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        with self._connection() as db, sqlite_files.transaction(db, write) as inside:
            yield inside

    def _create(self) -> None:
        with self._connection() as db:
            db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # before the first table: freed pages can be returned
            if self.path is not None:
                db.execute("PRAGMA journal_mode = WAL")
        with self.transaction(write=True) as db:
            sqlite_files.use_schema(db, _SCHEMA, SCHEMA_VERSION, lambda found: _Unusable(
                f"the data folder was written by a newer WordPiece Lab (schema {found})"))
        self.expire()

    # ----- reading ------------------------------------------------------------------------------
    def _row(self, row: tuple) -> StoredFile:
        digest, kind, name, size, last_used, pinned_until = row
        return StoredFile(digest, kind, name, size, last_used, pinned_until, saved=self.path is not None)

    def _alive(self) -> tuple[str, tuple[float, float]]:
        """The condition a kept file meets until it expires, and its parameters."""
        now = self.clock()
        return "(last_used >= ? OR pinned_until > ?)", (now - self.max_age, now)

    def find(self, file_id: str) -> StoredFile | None:
        """The file whose digest starts with `file_id` (valid_id's form), marked as used now; None if gone."""
        alive, params = self._alive()
        with self.transaction() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM files WHERE digest >= ? AND digest < ? AND {alive} "
                             "ORDER BY last_used DESC LIMIT 1", (file_id, file_id + "g", *params)).fetchone()
        if row is None:
            return None
        found = self._row(row)
        self.touch(found)
        return found

    def read(self, digest: str) -> bytes | None:
        alive, params = self._alive()
        with self.transaction() as db:
            row = db.execute(f"SELECT data FROM blobs WHERE digest = ? AND digest IN "
                             f"(SELECT digest FROM files WHERE {alive})", (digest, *params)).fetchone()
        return None if row is None else bytes(row[0])

    def used(self) -> int:
        with self.transaction() as db:
            return int(db.execute("SELECT COALESCE(SUM(size), 0) FROM files").fetchone()[0])

    # ----- writing ------------------------------------------------------------------------------
    def touch(self, kept: StoredFile) -> None:
        """Mark a use (at most once a minute: a use is a write)."""
        now = self.clock()
        if now - kept.last_used >= TOUCH_SECONDS:
            with self.transaction(write=True) as db:
                db.execute("UPDATE files SET last_used = MAX(last_used, ?) WHERE digest = ?", (now, kept.digest))

    def put(self, kind: str, name: str, data: bytes, digest: str) -> StoredFile | None:
        """Keep `data` (or mark it used if kept already); None when it cannot fit beside the pinned files."""
        now, size = self.clock(), len(data)
        with self.transaction(write=True) as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM files WHERE digest = ?", (digest,)).fetchone()
            if row is not None:
                db.execute("UPDATE files SET last_used = ? WHERE digest = ?", (now, digest))
                return replace(self._row(row), last_used=now)
            self._delete(db, self._expired(db, now))
            used = int(db.execute("SELECT COALESCE(SUM(size), 0) FROM files").fetchone()[0])
            victims: list[str] = []
            for victim, victim_size in db.execute(
                    "SELECT digest, size FROM files WHERE pinned_until <= ? ORDER BY last_used, created",
                    (now,)).fetchall():
                if used + size <= self.budget:
                    break
                victims.append(victim)
                used -= victim_size
            if used + size > self.budget:
                return None
            self._delete(db, victims)
            db.execute("INSERT INTO blobs (digest, data) VALUES (?, ?)", (digest, sqlite3.Binary(data)))
            db.execute("INSERT INTO files (digest, kind, name, size, created, last_used) VALUES (?, ?, ?, ?, ?, ?)",
                       (digest, kind, name, size, now, now))
        self._vacuum(bool(victims))
        return StoredFile(digest, kind, name, size, now, saved=self.path is not None)

    def pin(self, digest: str, until: float) -> bool:
        """Keep `digest` at least until `until` (Unix time), whatever its age and the budget; False if it is gone."""
        with self.transaction(write=True) as db:
            changed = db.execute("UPDATE files SET pinned_until = MAX(pinned_until, ?), last_used = MAX(last_used, ?) "
                                 "WHERE digest = ?", (until, self.clock(), digest)).rowcount
        return changed > 0

    def expire(self) -> int:
        """Delete the files unused for longer than the expiry (and not pinned); how many went."""
        with self.transaction(write=True) as db:
            gone = self._expired(db, self.clock())
            self._delete(db, gone)
        self._vacuum(bool(gone))
        return len(gone)

    def _expired(self, db: sqlite3.Connection, now: float) -> list[str]:
        return [d for (d,) in db.execute("SELECT digest FROM files WHERE last_used < ? AND pinned_until <= ?",
                                         (now - self.max_age, now))]

    @staticmethod
    def _delete(db: sqlite3.Connection, digests: list[str]) -> None:
        for table in ("files", "blobs"):
            db.executemany(f"DELETE FROM {table} WHERE digest = ?", [(d,) for d in digests])

    def _vacuum(self, deleted: bool) -> None:
        """Give the pages of deleted files back to the file system."""
        if deleted:
            with self._connection() as db:
                db.executescript("PRAGMA incremental_vacuum;")  # (run to its end: `execute` frees one page only)
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the file shrinks when the log is written back


def _reason(exc: BaseException) -> str:
    """Why the data directory cannot be used, in words for the sidebar (no path: the console has it)."""
    text = str(exc).lower()
    if isinstance(exc, _Unusable):
        return str(exc)
    if getattr(exc, "errno", None) == errno.ENOSPC or "full" in text:
        return "the data folder's disk is full"
    if "not a database" in text or "malformed" in text:
        return "the data folder's store is damaged"
    return "the data folder cannot be written"


class DataStore:
    """The data directory's files, or this server's memory when it cannot be used (see the module docstring)."""

    def __init__(self, folder: str | None = None, budget_bytes: int | None = None, max_age_seconds: float | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.folder = folder if folder is not None else folder_from_env()
        self.path = os.path.join(self.folder, DB_NAME)
        self.budget = budget_bytes if budget_bytes is not None else int(_number_from_env(BUDGET_ENV, DEFAULT_BUDGET_MB) * 1e6)
        self.max_age = max_age_seconds if max_age_seconds is not None else _number_from_env(DAYS_ENV, DEFAULT_DAYS) * 86400
        self.problem: str | None = None  # why the last file was not saved across restarts (None: it was)
        self._disk: _Db | None = None
        try:
            os.makedirs(self.folder, exist_ok=True)
            self._disk = _Db(self.path, self.budget, self.max_age, clock)
        except (OSError, sqlite3.Error, _Unusable) as exc:
            self._failed(exc)
        self._memory = _Db(None, MEMORY_BUDGET_MB * 1_000_000, self.max_age, clock)

    @property
    def days(self) -> float:
        return self.max_age / 86400

    def _failed(self, exc: BaseException, about: str = "") -> None:
        reason = _reason(exc)
        if reason != self.problem:  # the console hears of each new reason once, with the path and the error
            _LOG.warning("WordPiece Lab: not saving %s in %s (%s: %s)", about or "corpora", self.folder,
                         type(exc).__name__, exc)
        self.problem = reason

    def _tiers(self) -> list[_Db]:
        return [db for db in (self._disk, self._memory) if db is not None]

    def put(self, kind: str, name: str, data: bytes) -> StoredFile:
        """Keep `data` by its digest: in the data directory, else in memory (the file says why)."""
        digest = content_digest(data)
        why = self.problem or "the data folder cannot be used"
        if self._disk is not None:
            try:
                kept = self._disk.put(kind, name, data, digest)
            except (OSError, sqlite3.Error) as exc:
                self._failed(exc, name)
                why = self.problem or why
            else:
                if kept is not None:
                    self.problem = None
                    return replace(kept, name=name)
                why = self.problem = f"it does not fit in the {self.budget / 1e6:,g} MB that the data folder keeps"
        kept = self._memory.put(kind, name, data, digest)
        if kept is None:  # larger than the memory budget (not with the app's limits): kept nowhere, so soon "gone"
            return StoredFile(digest, kind, name, len(data), time.time(), saved=False, why_not_saved=why)
        return replace(kept, name=name, why_not_saved=why)

    def touch(self, kept: StoredFile) -> None:
        """Mark a file in use (its expiry counts from its last use)."""
        for db in self._tiers():
            try:
                db.touch(kept)
            except (OSError, sqlite3.Error) as exc:
                self._failed(exc)

    def _answers(self, ask: Callable[[_Db], _T | None]) -> Iterator[_T]:
        """What each database answers (the data folder's first), passing over one that fails."""
        for db in self._tiers():
            try:
                answer = ask(db)
            except (OSError, sqlite3.Error) as exc:
                self._failed(exc)
                continue
            if answer is not None:
                yield answer

    def find(self, file_id: str) -> StoredFile | None:
        """The kept file a link names (`valid_id`'s form), marked as used; None if it is gone."""
        return next(self._answers(lambda db: db.find(file_id)), None)

    def read(self, digest: str) -> bytes | None:
        """A kept file's content, or None if it is gone."""
        return next(self._answers(lambda db: db.read(digest)), None)

    def pin(self, digest: str, until: float) -> bool:
        """The live class room's hook: keep `digest` until `until` (Unix time) at least, then as usual."""
        return any(self._answers(lambda db: db.pin(digest, until)))

    def expire(self) -> int:
        return sum(self._answers(lambda db: db.expire()))

    def used(self) -> int:
        """Bytes kept in the data directory."""
        return self._disk.used() if self._disk is not None else 0


def read_saved(path: str, digest: str, max_age_seconds: float) -> bytes | None:
    """A saved file's content, read by another process (a worker) from the store at `path`; None if gone."""
    if not os.path.exists(path):
        return None
    return _Db(path, 0, max_age_seconds, time.time, create=False).read(digest)
