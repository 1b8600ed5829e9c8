"""The engine's fast forms of reference.py's rules, as heap keys.

Each token is one character, chr(its id), and a pair is the two-character string of its tokens.
The rules themselves are `reference.score` and `reference.tie_key`; these forms order pairs the
same way (tests/test_properties.py checks them against the rules on random pairs):

- the "hf" tie key (the smaller (left id, right id) first) is the pair string itself: strings
  compare by code point, so comparing chr(left) + chr(right) compares (left id, right id);
- BPE's heap entry under the hf rule packs (-count, left id, right id) into one int (`pack`),
  which orders as that tuple: a token id takes 21 bits (it is at most 0x10FFFF);
- WordPiece's heap key is minus the score, count(ab) / (count(a) × count(b)), as a float
  (`wordpiece_key`): a min-heap then puts the best score on top, and the choice compares
  near-equal floats exactly (wordpiece.py);
- the "first" tie key is where a scan of the current splits first meets a pair: the shared
  state finds and remembers it (state.py, `first_rank`).
"""

from __future__ import annotations

MAX_TOKENS = 0x10FFFF  # a token is one character, chr(id)
LOW21 = (1 << 21) - 1  # a packed entry's right id (its lowest 21 bits)
LOW42 = (1 << 42) - 1  # a packed entry's pair: left id << 21 + right id (its lowest 42 bits)


def pack(pair: str, count: int) -> int:
    """BPE's heap entry under the hf rule: (-count, left id, right id) as one int, ordered as that tuple."""
    return (-count << 42) + (ord(pair[0]) << 21) + ord(pair[1])


def packed_pair(key: int) -> str:
    """The pair of a packed entry."""
    low = key & LOW42
    return chr(low >> 21) + chr(low & LOW21)


def wordpiece_score(count_ab: int, count_a: int, count_b: int) -> float:
    """WordPiece's score as a float: count(ab) / (count(a) × count(b)) (reference.score, exactly rounded)."""
    return count_ab / (count_a * count_b)


def wordpiece_key(count_ab: int, count_a: int, count_b: int) -> float:
    """A WordPiece heap key: minus the score (a min-heap puts the best score on top)."""
    return -(count_ab / (count_a * count_b))
