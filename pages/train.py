"""Train step by step: one merge (BPE, WordPiece) or one round (Unigram) at a time; the page every algorithm
shares, driving the algorithm's step view (wordpiece_ui/lesson.py's StepView, picked by step_views.py)."""

import streamlit as st

from wordpiece_ui import navigation

navigation.through_app()  # first, before the imports below: a page run alone goes through app.py (navigation.py)

from wordpiece_ui import (classroom, intro, phone_room, presenter, real_merges_view, room_student, room_teacher, state,
                          step_views, trained)
from wordpiece_ui.lesson import Lesson
from wordpiece_ui.stepper import Stepper

DARK = st.context.theme.type == "dark"  # the bars' value labels follow the theme

settings = st.session_state[state.SETTINGS]
room = classroom.found()  # a live class room this session runs (teacher) or takes part in (student), or None
student = room if room is not None and room.is_student else None  # this session is a student of `room`
teacher = room if room is not None and room.is_teacher else None  # this session runs `room`
state.keep(state.QUIZ, False, bool)  # quiz=1 in a link opens the page in "ask first" mode
state.keep(state.PRESENT, False, bool)  # present=1 opens it in presenter mode
presenting = bool(st.session_state[state.PRESENT]) and not student
presenter.style(presenting, student=student is not None and student.open)
if student:  # a student's phone: the room first
    room_student.bar(student)
elif not presenting:
    st.title("Train step by step")
classroom.problem_line()
classroom.reclaim_box()


def mode_toggles(where, view) -> None:
    """*Ask first* and *Presenter mode*, in `where`."""
    where.toggle("Ask first (quiz)", key=state.QUIZ, on_change=state.remember, args=(state.QUIZ,), width="content",
                 help=view.quiz_help)
    where.toggle("Presenter mode", key=state.PRESENT, on_change=state.remember, args=(state.PRESENT,),
                 width="content", help=f"For a projector: big type, the sidebar folded away, {view.on_screen} on one "
                                       "screen.")


ready = trained.sidebar_training(settings)
if ready is None:
    st.stop()
if room is None:
    room_teacher.start_button(settings)  # in the sidebar, under *Join a class room*

# The training's handle, never the training: the step view is a fragment, which keeps this page's globals for as
# long as the session; a run fetches the training from the store (trained.loaded) and keeps it in its locals.
quiz = student.snap.quiz if student else bool(st.session_state[state.QUIZ])
lesson = Lesson(settings, ready, presenting, quiz, room, DARK)
view = step_views.view_for(lesson)  # a merge's (merges_view.py) or a round's (rounds_view.py)
n = view.steps
if not (student and student.open):  # a phone in class: the step first (its room decides what is hidden)
    summary, modes = st.columns([3, 2], vertical_alignment="center")
    if not presenting:  # presenter mode: the room sees the step, not the corpus's statistics
        summary.caption(view.summary())
    if not student:
        mode_toggles(modes.container(horizontal=True, horizontal_alignment="right"), view)
if not presenting and not st.session_state[state.QUIZ] and room is None:  # a class has its teacher
    intro.show(view.intro)
if (nothing := view.nothing()) is not None:
    st.warning(nothing)
    st.stop()
if st.session_state.get(state.STEP, 1) > n:  # past the end: a link's step (up to settings.MAX_STEP), or a longer training's
    st.info(f"Step {st.session_state[state.STEP]:,} is past this training's last step: showing step {n:,}.")
    st.session_state[state.STEP] = n
if teacher:
    room_teacher.bar(teacher, presenting, view.question, view.answer_name)


def hidden(number: int) -> bool:
    """In quiz mode a step stays hidden until it is revealed (in a class room: by the teacher)."""
    return lesson.hidden(number, view.revealed_here())


def view_params(number: int) -> dict:
    return {"step": number, "quiz": 1 if quiz and not student else None, "present": 1 if presenting else None}


def glossary_and_share(number: int) -> None:
    intro.glossary_button()
    if not (student and student.open):  # a student shares nothing: the class joins from the teacher's code
        state.share_button(settings, qr_at_once=presenting, url=classroom.student_link(room.code) if room else None,
                           **view_params(number))


def step_view(number: int) -> None:
    state.sync_url(settings, **view_params(number))  # the address bar (and Share) is always the view on screen
    if teacher:
        room_teacher.sync(teacher, number, quiz, lambda: phone_room.card(view, number))  # the class follows
    if student:
        room_student.throttle()  # a flood of clicks from one student's client waits, not the class
        room_student.back_button(student, number)
    view.draw(number, hidden(number))


if student:
    room_student.follow(student)  # the class's step, as the teacher moves
Stepper(state.STEP, n, noun=view.noun, hold=hidden, limit=room_student.reachable(room, n),
        hold_help=view.hold_help).run(step_view, extra=glossary_and_share, keys_legend=not presenting and not student,
                                      player=not (student and student.open))

if student and student.open:
    st.caption(view.closed_downloads)
    st.stop()
view.downloads()
view.handout()
if not student and not presenting:  # a real tokenizer's merges beside the student's own
    real_merges_view.section(trained.loaded_any(ready), settings.pre_tokenizer, DARK)
