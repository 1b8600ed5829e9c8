"""A memory-bounded store shared by every session of the server (no Streamlit here).

Trainings, replays, tables and chart specs are kept in one least-recently-used
store whose budget is counted in bytes, not entries: an 8,000-merge training and
a five-word toy weigh very differently. Each value is stored with its size; when
a new one would pass the budget, the least recently used values go first. A value
larger than the whole budget is not kept (the caller still gets it once).

`get_or_make` is single-flight: when several sessions ask for the same missing
key at once, one makes it and the others wait for that value instead of making
it again (eight students opening the same link do one recount, not eight).
"""

from __future__ import annotations

import os
import sys
import threading
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
        self._lock = threading.Lock()
        self._values: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._making: dict[Hashable, _Making] = {}
        self.used = 0
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
            old = self._values.pop(key, None)
            if old is not None:
                self.used -= old[1]
            while self._values and self.used + size > self.budget:
                _, (_, freed) = self._values.popitem(last=False)
                self.used -= freed
                self.evictions += 1
            self._values[key] = (value, size)
            self.used += size
        return True

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
