"""What a Unigram training records, under either rule: the course's `Round`, and tokenizers' `EMRound` (its EM
iterations as `EMStep`s, then its `Pruning`). The plain trainers (reference.py, em.py) and the fast one
(engine.py) make them; files.py writes them, rounds.py and the app's rounds view read them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class Round:
    """One round of the course's loop: the vocabulary it started with, its loss, every candidate's removal score
    in removal order, and what it removed."""
    number: int
    counts: dict[str, int]  # the vocabulary at the round's start, with the seed counts its probabilities use
    loss: float  # the model's
    course_loss: float  # as the course's code prints it (+1 per word occurrence)
    scores: list[tuple[str, float]]  # (token, loss increase), cheapest first
    removed: list[str]


@dataclass(frozen=True)
class Pruning:
    """One pruning's candidates as columns (a round of a large corpus has hundreds of thousands), highest
    loss first: the piece, how often best splits use it, what would replace it, and its approximate loss.
    The last `len(cut)` were removed; `unused` went before (no best split used them)."""
    pieces: tuple[str, ...]
    frequencies: tuple[float, ...]
    alternatives: tuple[tuple[str, ...], ...]
    losses: tuple[float, ...]
    unused: tuple[str, ...]
    cut: tuple[str, ...]
    target: int  # the size it aimed at: max(1.1 × vocab_size, shrinking_factor × the size)


@dataclass(frozen=True)
class EMStep:
    """One EM iteration: the size before and after, the objective before the M-step, the tokens on the best
    splits, the pieces the M-step dropped, and the new log-probabilities of the `top` most expected pieces."""
    sub_iteration: int
    size_before: int
    size_after: int
    objective: float
    tokens: int
    dropped: tuple[str, ...]
    top: tuple[tuple[str, float, float], ...]  # (piece, expected count, new log-probability)


@dataclass(frozen=True)
class EMRound:
    """A round: its EM iterations, then (unless EM left few enough pieces) one pruning."""
    number: int
    em: tuple[EMStep, ...]
    pieces: tuple[tuple[str, float], ...]  # the model after EM, "<UNK>" first
    pruning: Pruning | None  # None: the last round (EM left few enough pieces)



AnyRound = Union[Round, EMRound]
