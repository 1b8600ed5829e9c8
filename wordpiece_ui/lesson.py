"""What the Train page knows of the lesson on screen (`Lesson`), and what it asks of an algorithm's step view
(`StepView`): the one seam between the page (pages/train.py, the only driver) and the views of a step,
merges_view.py (BPE, WordPiece: a step is a merge) and rounds_view.py (Unigram: a step is a round).

The page draws the skeleton every algorithm shares: the modes, the summary, the stepper, the class room's
following and sharing, the downloads' and handout's place. A view draws what is its own: a step (or the
question that hides it), the room's choices and how a guess is judged, its files and its handout; `ViewBase`
holds what the views share. step_views.py picks the view by what the core says a step is
(algorithms.AlgorithmInfo.step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import pandas as pd

from . import classroom, room_student, room_teacher
from .settings import Settings
from .trained_model import TrainedModel


@dataclass(frozen=True)
class Lesson:
    """The training on screen and who looks at it."""

    settings: Settings
    model: TrainedModel
    presenting: bool  # presenter mode: a projector
    quiz: bool  # ask first: a step is hidden until revealed (a student's: the room's)
    room: classroom.Room | None  # the live class room this session runs or takes part in
    dark: bool  # the theme (bars' value labels follow it)

    @property
    def teacher(self) -> classroom.Room | None:
        return self.room if self.room is not None and self.room.is_teacher else None

    @property
    def student(self) -> classroom.Room | None:
        return self.room if self.room is not None and self.room.is_student else None

    def hidden(self, number: int, revealed_here: set[int]) -> bool:
        """In ask first, a step stays hidden until it is revealed: in a class room by the teacher (this tab, another
        tab or before a restart), else in this session (`revealed_here`)."""
        if self.student is not None:
            return room_student.hidden(self.student, number)
        if self.teacher is not None and self.teacher.open:
            return self.quiz and not room_teacher.revealed(number)
        return (self.quiz and number not in revealed_here
                and not (self.teacher is not None and room_teacher.revealed(number)))


class ViewBase:
    """What every step view shares: the lesson, its training's handle and settings, the count of steps, and what
    a student is told while the room keeps the files closed. A view names what its steps are (`steps_noun`) and
    what the lesson record calls what a step did (`answer_name`)."""

    steps_noun = "steps"
    answer_name = "answer"

    def __init__(self, lesson: Lesson) -> None:
        self.lesson = lesson
        self.model = lesson.model
        self.settings = lesson.settings

    @property
    def steps(self) -> int:
        return self.model.steps  # merges or rounds, as the training's handle counts them

    @property
    def closed_downloads(self) -> str:
        return (f"Downloads and the handout open when the class room closes: they would give away the "
                f"{self.steps_noun} to come.")


class StepView(Protocol):
    """An algorithm's view of its steps, as pages/train.py drives it."""

    lesson: Lesson
    noun: str  # what the stepper calls a step ("step", "round")
    quiz_help: str  # what *Ask first* does here
    on_screen: str  # what presenter mode keeps on one screen
    hold_help: str  # why Play stops at a hidden step
    intro: str  # the introduction a newcomer reads first (intro.py)
    answer_name: str  # the lesson record's column of what a step did ("merge", ...)
    ask: str  # what a hidden step's vote asks ("which pair merges next?")
    vote_kind: str  # what the room stores a vote as ("pair", "piece")

    @property
    def closed_downloads(self) -> str:
        """Why a student's downloads wait for the room to close."""

    @property
    def steps(self) -> int:
        """How many steps the training has."""

    def summary(self) -> str:
        """The line above the steps: the corpus and what the training did (Markdown, user text escaped)."""

    def nothing(self) -> str | None:
        """Why there is no step to show (Markdown), or None."""

    def revealed_here(self) -> set[int]:
        """The steps this session revealed (ask first, outside a class room)."""

    def question(self, number: int) -> classroom.Question:
        """A hidden step's vote: its choices, its answer and how a choice is judged (the class room's, the record's)."""

    def hint(self) -> str:
        """What a student scores the choices by (one line of plain text)."""

    def choices_table(self, number: int) -> pd.DataFrame:
        """A hidden step's choices, one row each in the question's order (its first column the choice), with what
        a student reasons from: what a phone shows beside the vote (phone_room.py)."""

    def draw(self, number: int, hidden: bool) -> None:
        """The step, or (hidden) the question that hides it with its vote or guess."""

    def downloads(self) -> None:
        """The training's files, each built when clicked (hidden in ask first until asked for)."""

    def handout(self) -> None:
        """Steps to print for a class, and the worksheet."""
