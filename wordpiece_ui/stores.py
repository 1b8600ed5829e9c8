"""A memory-bounded store shared by every session of the server (no Streamlit here).

Trainings, replays, tables and chart specs are kept in one least-recently-used
store whose budget is counted in bytes, not entries: an 8,000-merge training and
a five-word toy weigh very differently. Each value is stored with its size; when
a new one would pass the budget, the least recently used values go first. A value
larger than the whole budget is not kept (the caller still gets it once).

`get_or_make` is single-flight: when several sessions ask for the same missing
key at once, one makes it and the others wait for that value instead of making
it again (eight students opening the same link do one recount, not eight).

The budget bounds memory in fact, not only what the store holds. A value the
store lets go may still be held elsewhere (a session's run that is using it):
it is still in memory, so its size still counts (`held`) until the last
reference goes, and the store lets go of more of its own values meanwhile. The
sessions themselves keep handles, not values (trained_model.py), so `held` is
what the runs in progress use, and 0 when the server is idle. (A value that
cannot be referenced weakly, such as a str or a dict, cannot be followed: once
let go it is no longer counted. The large values are trainings, frames,
tokenizers and corpora, which can.)

What is freed must also leave the process: `free_promptly` (called once, as the
server starts) has glibc's allocator give large freed blocks back to the system
at once, so the server's memory follows the store's budget down as well as up.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

DEFAULT_BUDGET_MB = 400
BUDGET_ENV = "WORDPIECE_LAB_CACHE_MB"


def budget_from_env(default_mb: int = DEFAULT_BUDGET_MB) -> int:
    """The store's budget in bytes: $WORDPIECE_LAB_CACHE_MB megabytes, or the default."""
    raw = os.environ.get(BUDGET_ENV, "").strip()
    try:
        mb = int(raw) if raw else default_mb
    except ValueError:
        mb = default_mb
    return max(16, mb) * 1_000_000


_M_MMAP_THRESHOLD, _M_ARENA_MAX = -3, -8  # mallopt's parameters (malloc.h)


def free_promptly() -> bool:
    """Have the C allocator hand freed memory back to the system; whether it could (glibc only).

    By default glibc raises its mmap threshold each time a large block is freed (up to 32 MB), so
    the columns of the next trainings come from the heap, where freed memory stays with the
    process: a server whose store had let go of tens of trainings kept their memory. Fixed at
    128 KB, every large block (a training's columns, a table's) is a mapping of its own, unmapped
    when freed. At most two arenas: the server's many threads (one per session's run, one per
    training) would otherwise each fill an arena of their own.
    """
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (macOS, Windows, musl): its own allocator's behaviour
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, 128 * 1024)) and bool(mallopt(_M_ARENA_MAX, 2))


def size_of(value: Any) -> int:
    """About how many bytes `value` holds: exact for what we store, an estimate otherwise."""
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        return nbytes  # Training, numpy arrays
    memory_usage = getattr(value, "memory_usage", None)
    if callable(memory_usage):  # a pandas DataFrame
        try:
            return int(memory_usage(deep=True).sum())
        except TypeError:
            pass
    if isinstance(value, (str, bytes)):
        return sys.getsizeof(value)
    if isinstance(value, dict):
        return sys.getsizeof(value) + sum(size_of(k) + size_of(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return sys.getsizeof(value) + sum(size_of(v) for v in value)
    return sys.getsizeof(value)


class _Making:
    """A value being made: those who wait for it get it even if it is too large to keep."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.made = False
        self.value: Any = None


class BudgetStore:
    """Least-recently-used values bounded by their total size in bytes (see the module docstring)."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget = budget_bytes
        # Reentrant: a value let go under the lock may die there, and its finalizer (`_gone`) takes the lock too.
        self._lock = threading.RLock()
        self._values: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._making: dict[Hashable, _Making] = {}
        self._held: dict[int, weakref.finalize] = {}  # id of a value let go but still alive → its finalizer
        self.used = 0  # bytes of the values stored
        self.held = 0  # bytes of the values let go that are still alive elsewhere (see the module docstring)
        self.evictions = 0

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._values

    def get(self, key: Hashable, default: Any = None) -> Any:
        with self._lock:
            hit = self._values.get(key)
            if hit is None:
                return default
            self._values.move_to_end(key)
            return hit[0]

    def put(self, key: Hashable, value: Any, nbytes: int | None = None) -> bool:
        """Keep `value` (evicting the least recently used as needed); False if it can never fit."""
        size = size_of(value) if nbytes is None else nbytes
        if size > self.budget:
            return False
        with self._lock:
            back = self._held.pop(id(value), None)  # let go but still alive: from now on it counts as stored
            detached = back.detach() if back is not None else None
            if detached is not None:
                self.held -= detached[2][1]  # the finalizer's arguments: (id, size)
            old = self._values.pop(key, None)
            if old is not None:
                self.used -= old[1]
                if old[0] is not value:
                    self._let_go(*old)
            while self._values and self.used + self.held + size > self.budget:
                _, evicted = self._values.popitem(last=False)
                self.used -= evicted[1]
                self.evictions += 1
                self._let_go(*evicted)
                del evicted  # its last reference, unless someone else holds it
            self._values[key] = (value, size)
            self.used += size
        return True

    def _let_go(self, value: Any, size: int) -> None:
        """`value` leaves the store (lock held): while something else keeps it alive, its size counts as `held`."""
        try:
            finalizer = weakref.finalize(value, self._gone, id(value), size)
        except TypeError:  # a str, tuple or dict: cannot be followed
            return
        self._held[id(value)] = finalizer
        self.held += size

    def _gone(self, key: int, size: int) -> None:
        """A value let go has been freed: it no longer counts."""
        with self._lock:
            self._held.pop(key, None)
            self.held -= size

    def get_or_make(self, key: Hashable, make: Callable[[], Any],
                    size: Callable[[Any], int] | None = None) -> Any:
        """The stored value for `key`, or `make()`'s, made once however many ask at the same time.

        `size(value)` gives its size when `size_of` cannot tell. A value too large to keep is
        still handed to those who were waiting for it.
        """
        while True:
            with self._lock:
                hit = self._values.get(key)
                if hit is not None:
                    self._values.move_to_end(key)
                    return hit[0]
                waiting = self._making.get(key)
                if waiting is None:
                    mine = self._making[key] = _Making()
                    break
            waiting.done.wait()  # someone else is making it: take theirs (or make it, if they failed)
            if waiting.made:
                return waiting.value
        try:
            value = make()
            self.put(key, value, None if size is None else size(value))
            mine.value, mine.made = value, True
            return value
        finally:
            with self._lock:
                del self._making[key]
            mine.done.set()
