"""A student's part of a live class room on the Train page: the room's bar and nickname, how far they may
step, their vote, and following the teacher.

Following. The student's page polls the room every POLL_SECONDS (one small query: rooms.snapshot) in
a fragment that draws nothing; when the teacher acted (the room's version moved) it reruns the page,
and a student who was on the teacher's step moves with it."""

from __future__ import annotations

import math
import random
import time

import streamlit as st

from . import classroom, safe, state
from .rooms import NICKNAME_CHARS, SEEN_SECONDS, NotAllowed, RoomsOff, wait_for_change
from .rooms import change_count as rooms_change_count

POLL_WAIT_SECONDS = 0.4  # a poll waits this long for the teacher (a click meanwhile waits at most as long)
FOLLOW_DELAY_SECONDS = 0.15  # woken by the teacher, a page waits this long and up to as long again
BURST_RUNS, BURST_SECONDS, BURST_PAUSE = 5, 1.0, 0.5  # more runs than this in that time: each waits this long


def bar(room: classroom.Room) -> None:
    """The top of a student's page: the room's code and their nickname (changeable)."""
    with st.container(border=True):
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        row.markdown(f"**Class room {room.code}** · you are **{safe.md(room.nickname)}**", width="stretch")
        with row:  # (in the row: its one-pixel frame takes no line of its own)
            classroom.remember_device(room, classroom.store().idle_hours)  # scanned again: the same student
        with row.popover("Change name", icon=":material/edit:", key="room_name_open"):
            st.text_input("Your name in this room (others see it in the record)", value=room.nickname,
                          max_chars=NICKNAME_CHARS, key=state.ROOM_NICKNAME_BOX, on_change=_rename, args=(room,))
        if not room.open:
            st.info("The teacher closed this class room: it is read-only now.", icon=":material/lock:")
            st.button("Continue alone", icon=":material/person:", on_click=classroom.forget, key="room_leave_s")


def back_button(room: classroom.Room, step: int) -> None:
    """A student looking at another step than the class's: the way back."""
    if room.open and step != room.snap.step:
        st.button(f"Back to the class (step {room.snap.step})", icon=":material/groups:", type="primary",
                  on_click=back_to_class, args=(room.snap.step,), key="room_back")


def _rename(room: classroom.Room) -> None:
    try:
        st.session_state[state.ROOM_NICKNAME] = classroom.store().rename(room.code, room.student_token or "",
                                                                st.session_state.get(state.ROOM_NICKNAME_BOX, ""))
    except (NotAllowed, RoomsOff) as exc:
        st.session_state[state.ROOM_PROBLEM] = f"Your name did not change: {exc}."


def back_to_class(step: int) -> None:
    st.session_state[state.STEP] = step


def reachable(room: classroom.Room | None, n: int) -> int:
    """How far this session may step: a student of an open room, up to the teacher's step or the last step (merge,
    round) the teacher revealed (the teacher may have gone back); others, all `n`."""
    if room is None or not room.is_student or not room.open:
        return n
    return max(1, min(n, max(room.snap.step, max(room.revealed, default=0))))


def hidden(room: classroom.Room, step: int) -> bool:
    """While the teacher asks first, a step (a merge, a round) stays hidden from the class until the teacher reveals it (a step
    the teacher passed without revealing it too); a closed room hides nothing."""
    return room.open and room.snap.quiz and step not in room.revealed


def follow(room: classroom.Room) -> None:
    """A student's page asks the room what changed every classroom.POLL_SECONDS; after a teacher's action it reruns,
    and moves to the teacher's step if it was on the class's step before."""
    code, token = room.code, room.student_token
    if not room.open:  # a closed room changes no more
        return
    st.session_state[state.ROOM_PAGE_RUN] = True  # the poll's first call is part of the page's run: no wait

    @st.fragment(run_every=classroom.POLL_SECONDS)
    def poll() -> None:
        rooms = classroom.store()
        now = time.time()
        try:
            if token and now - st.session_state.get(state.ROOM_SEEN_AT, 0.0) >= SEEN_SECONDS:
                st.session_state[state.ROOM_SEEN_AT] = now
                rooms.seen(code, token)
            known = rooms_change_count(code)
            snap = rooms.snapshot(code)
            in_page_run = st.session_state.pop(state.ROOM_PAGE_RUN, False)
            if snap is not None and snap.version == st.session_state.get(state.ROOM_VERSION) and not in_page_run:
                # Nothing new: wait a little for the teacher (this server's teacher wakes it at once), so the
                # page follows within a rerun of the action, not a poll's whole second later.
                if wait_for_change(code, known, POLL_WAIT_SECONDS):
                    # (not at once: the teacher's own page, the projector, finishes its run first, and the
                    # class's reruns spread over a moment rather than all start together)
                    time.sleep(FOLLOW_DELAY_SECONDS + random.uniform(0, FOLLOW_DELAY_SECONDS))
                    snap = rooms.snapshot(code)
        except RoomsOff:  # busy for a moment: the next poll tries again
            return
        if snap is None or snap.version != st.session_state.get(state.ROOM_VERSION):
            if snap is not None:
                if st.session_state.get(state.STEP) == st.session_state.get(state.ROOM_AT):
                    st.session_state[state.STEP] = snap.step  # on the class's step: follow the teacher
                st.session_state[state.ROOM_VERSION] = snap.version
                st.session_state[state.ROOM_AT] = snap.step
            st.rerun(scope="app")
        if not in_page_run and classroom.browser_behind(now):  # its last page never arrived: draw it again
            st.rerun(scope="app")

    poll()


def throttle() -> None:
    """A student's step view asked for faster than a person clicks (a script flooding the vote, a held key):
    each further run waits BURST_PAUSE first. Meanwhile the session's requests pile up and Streamlit keeps the
    newest, which the next run takes: one client costs the server about two runs a second, so the rest of
    the class keeps its speed. (The wait holds this session's script thread only, and releases the GIL.)"""
    now = time.monotonic()
    runs = [t for t in st.session_state.get(state.ROOM_RUNS, ()) if now - t < BURST_SECONDS]
    runs.append(now)
    st.session_state[state.ROOM_RUNS] = runs[-2 * BURST_RUNS:]
    if len(runs) > BURST_RUNS:
        time.sleep(BURST_PAUSE)


def vote_panel(room: classroom.Room, step: int, question: classroom.Question, dark: bool,
               ask: str = "which pair merges next?", noun: str = "merge", kind: str = "pair") -> None:
    """The student's side of a hidden step: choose one of the question's choices (stored at once, as `kind`: a
    merge's pair, a round's piece), or the spread once it is shown; `ask` and `noun` say what is asked."""
    snap = room.snap
    if step != snap.step:  # a step the teacher passed without revealing it
        st.info(f"The class votes on this {noun} when the teacher is on it (the class is at step {snap.step}).",
                icon=":material/hourglass_top:")
        return
    mine = classroom.my_votes(room, step)
    if snap.shown or snap.round > 1:
        tally = classroom.store().tally(room.code, step)
        shown_rounds = snap.shown_rounds(tally)
        if shown_rounds:
            st.caption("What the class answered:")
            classroom.histogram(shown_rounds, question.choices, dark, large=False)
    if not snap.voting:
        if snap.round in mine:
            st.success(safe.md(f"Your vote is in: {mine[snap.round]}. Wait for the teacher to reveal the {noun}."),
                       icon=":material/how_to_vote:")
        else:
            st.info("Time is up: the vote is closed. Wait for the teacher." if snap.time_up else
                    "The vote is closed: wait for the teacher.", icon=":material/hourglass_top:")
        return
    if snap.seconds_left is not None:  # (this page is drawn when the teacher acts, not every second: no ticking)
        st.caption(f"The teacher's countdown closes this vote in {math.ceil(snap.seconds_left)} s (from when this "
                   "page was drawn).")
    key = f"room_vote {room.code} {step} {snap.round}"
    choices = list(question.choices)
    if key not in st.session_state and snap.round in mine and mine[snap.round] in choices:
        st.session_state[key] = mine[snap.round]
    st.radio(f"Your vote{' (round ' + str(snap.round) + ')' if snap.round > 1 else ''}: {ask}",
             choices, index=None, key=key, on_change=_vote, args=(room, step, snap.round, key, kind),
             format_func=safe.md)  # a radio's options are Markdown: a pair or a piece is the corpus's text
    if snap.round in mine:
        st.success(safe.md(f"Your vote is in: {mine[snap.round]}. You may change it until the teacher shows the answers."),
                   icon=":material/how_to_vote:")
    elif st.session_state.get(state.ROOM_VOTE_FAILED) == key:
        st.warning("Your vote was not stored: it arrived after the vote closed, or the room was busy.",
                   icon=":material/schedule:")


def _vote(room: classroom.Room, step: int, round_: int, key: str, kind: str = "pair") -> None:
    choice = st.session_state.get(key)
    if not choice or not room.student_token:
        return
    try:
        classroom.store().vote(room.code, room.student_token, step, round_, str(choice), kind)
    except NotAllowed:
        st.session_state[state.ROOM_VOTE_FAILED] = key
    except RoomsOff as exc:
        st.session_state[state.ROOM_VOTE_FAILED] = key
        st.session_state[state.ROOM_PROBLEM] = f"Your vote was not stored ({exc}): choose again in a moment."
