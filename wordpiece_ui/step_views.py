"""The step view of each kind of step (lesson.StepView), picked by what the core says one step of the training
is (algorithms.AlgorithmInfo.step): a merge (BPE, WordPiece) or a round (Unigram). A new kind of step is a new
view here, not a branch in the page."""

from __future__ import annotations

from wordpiece_core.algorithms import info_of

from .lesson import Lesson, StepView
from .merges_view import MergesView
from .rounds_view import RoundsView

VIEWS: dict[str, type[MergesView] | type[RoundsView]] = {"merge": MergesView, "round": RoundsView}


def view_for(lesson: Lesson) -> StepView:
    """The view of the lesson's training."""
    return VIEWS[info_of(lesson.model.config).step](lesson)
