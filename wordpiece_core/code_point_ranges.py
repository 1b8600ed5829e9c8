"""Code points as ranges: sorted code points written as (first, last) pairs, both included.

The form of unicode_tables.py's classes: make_unicode_tables.py writes them so, and pre_tokenizers.py
writes in it the code points where the installed regex module differs from them.
"""

from __future__ import annotations

from collections.abc import Iterator


def ranges(points: list[int]) -> Iterator[tuple[int, int]]:
    """Consecutive code points as (first, last) pairs."""
    start = prev = None
    for cp in points:
        if prev is not None and cp == prev + 1:
            prev = cp
            continue
        if start is not None and prev is not None:
            yield start, prev
        start = prev = cp
    if start is not None and prev is not None:
        yield start, prev
