"""A session in a live class room: entering (a link, a typed code), leaving, who this session is in the room,
and what both sides of the Train page share (a step's `Question`, the votes' histogram, the results after a
reveal). The store is
rooms.py; the teacher's part of the page is room_teacher.py, the student's room_student.py.

Roles. A session is in a room as its teacher (it holds the teacher token, read once from the
teacher link and dropped from the address bar, which says `role=teacher` instead) or as a student (the link
carries `student=TOKEN`, so a reload or a restart keeps the nickname and the votes). `room=CODE` alone joins
as a new student, unless this browser was in the room before: a student's page keeps its token in a cookie
of its own for the room (`device_cookie`, kept as long as a room lives), so a phone that scans the code again,
closed its tab or lost its address bar comes back as itself, with its nickname and its votes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn
from urllib.parse import parse_qs, urlsplit

import pandas as pd
import streamlit as st

from . import charts, navigation, safe, state
from .datastore import folder_from_env
from .rooms import NotAllowed, RoomsOff, RoomStore, Snapshot, normal_code, valid_token
from .settings import Settings
from .stepper import Stepper

RETRY_SECONDS = 3.0  # a room that cannot be read for a moment: the page tries again this often
POLL_SECONDS = 1.0  # how often a student's page (and the teacher's count) asks the room what changed
BEHIND_SECONDS = 0.8  # a browser whose address bar still names another step a poll later: its page is drawn again
BEHIND_SINCE = "room_behind_since"  # (session key) since when a poll sees the browser behind, at which step, redraws
BEHIND_REDRAWS = 3  # at most this many redraws for one step (a browser that stays behind after them: left alone)
DEVICE_COOKIE = "wordpiece_lab_room_"  # + the room's code: this browser's student token in that room
WRONG_NOTES = 2  # after a reveal: why the most chosen wrong choices lost, for this many of them


@st.cache_resource(show_spinner=False)
def store() -> RoomStore:
    """The server's rooms, in the data folder ($WORDPIECE_LAB_DATA) beside the kept corpora."""
    return RoomStore(folder_from_env())


@dataclass(frozen=True)
class Room:
    """This session in a room, as this run found the room."""

    snap: Snapshot
    teacher_token: str | None  # when this session is the teacher
    student_token: str | None  # when this session is a student
    nickname: str = ""
    revealed: frozenset[int] = frozenset()  # the steps the teacher revealed

    @property
    def code(self) -> str:
        return self.snap.code

    @property
    def is_teacher(self) -> bool:
        return self.teacher_token is not None

    @property
    def is_student(self) -> bool:
        return self.student_token is not None

    @property
    def open(self) -> bool:
        return not self.snap.closed


@dataclass(frozen=True)
class Question:
    """What a class votes on at a hidden step, as the step's view asks it (lesson.StepView.question): the choices
    in the order the vote lists them, the answer (what the step does: a merge's pair, the piece a round removes
    first) and how a choice is judged (right or not, and a sentence saying why). The room stores a vote's choice
    as this text, whatever the algorithm."""

    choices: tuple[str, ...]
    answer: str
    judge: Callable[[str], tuple[bool, str]]


def student_link(code: str) -> str:
    """What the projector's QR code and link give the class: the room's phone page (phone_room.py; the app's
    own routes are at the server's root, whatever the pages' base path)."""
    return f"{state.public_origin()}/class/{code}"


def teacher_link(code: str, token: str) -> str:
    return f"{state.public_root()}/?room={code}&teacher={token}"


def enter_from_url() -> None:
    """On a session's first run: a link with `room=` enters the room (before the sidebar reads the URL)."""
    if st.session_state.get(state.ROOM_CHECKED):
        return
    st.session_state[state.ROOM_CHECKED] = True
    if "room" in st.query_params:
        teacher = st.query_params.get("teacher")
        was_teacher = st.query_params.get("role") == "teacher"
        if teacher is not None:  # the projector shows this address bar: the key leaves it at once
            del st.query_params["teacher"]
        _enter(st.query_params.get("room", ""), teacher, st.query_params.get("student"), was_teacher=was_teacher)


def _enter(raw_code: str, teacher: str | None, student: str | None, was_teacher: bool = False) -> None:
    """Enter the room `raw_code` names as its teacher or a student; else say why not (ROOM_PROBLEM).

    `was_teacher`: the address bar of a teacher's tab (`role=teacher`, no token), reloaded or reconnected after a
    restart: it does not join as a student, it asks for the teacher link (ROOM_RECLAIM)."""
    forget()
    rooms = store()
    code = normal_code(raw_code)
    try:
        _enter_room(rooms, raw_code, code, teacher, student, was_teacher)
    except RoomsOff as exc:
        forget()
        st.session_state[state.ROOM_PROBLEM] = f"The class room cannot be reached right now ({exc}): try the link again."


def _enter_room(rooms: RoomStore, raw_code: str, code: str | None, teacher: str | None, student: str | None,
                was_teacher: bool) -> None:
    if not rooms.on:
        st.session_state[state.ROOM_PROBLEM] = f"Class rooms are off on this server ({rooms.problem}): you are on your own here."
        return
    snap = rooms.snapshot(code) if code else None
    if snap is None or code is None:
        shown = safe.md(raw_code[:12] + ("…" if len(raw_code) > 12 else ""))
        st.session_state[state.ROOM_PROBLEM] = (
            f"There is no class room '{shown}': a code has 6 letters and digits, and a room is removed "
            f"{rooms.idle_hours:g} hours after it was last used. Type the code again in the sidebar, or go on alone here.")
        return
    if was_teacher and not (teacher and rooms.is_teacher(code, teacher)) and not valid_token(student):
        st.session_state[state.ROOM_RECLAIM] = code
        state.load_settings(snap.settings, step=snap.step)
        return
    st.session_state[state.ROOM] = code
    if teacher and rooms.is_teacher(code, teacher):
        st.session_state[state.ROOM_TEACHER] = teacher
        st.query_params["role"] = "teacher"  # (the page may stop before it writes the whole address bar)
    else:
        if teacher:
            st.session_state[state.ROOM_PROBLEM] = ("This link's teacher part is not this room's: you joined as a "
                                                    "student. Open the teacher link you downloaded to run the room.")
        try:
            member = rooms.join(code, valid_token(student) or device_token(code))
        except NotAllowed as exc:
            st.session_state[state.ROOM_PROBLEM] = f"You could not join the class room {code}: {exc}."
            st.session_state.pop(state.ROOM, None)
            return
        st.session_state[state.ROOM_STUDENT] = member.token
        st.session_state[state.ROOM_NICKNAME] = member.nickname
        st.session_state[state.kept(state.PRESENT)] = False  # a student's phone: never the projector's layout
    st.session_state[state.ROOM_VERSION] = snap.version
    st.session_state[state.ROOM_AT] = snap.step
    state.load_settings(snap.settings, step=snap.step)
    if st.session_state.get(state.ROOM_TEACHER):
        st.session_state[state.kept(state.QUIZ)] = st.session_state[state.QUIZ] = snap.quiz
        st.session_state[state.ROOM_SENT] = (snap.step, snap.quiz)


def device_cookie(code: str) -> str:
    return DEVICE_COOKIE + code


def device_token(code: str) -> str | None:
    """The student token this browser kept for room `code` (a cookie the student's page set), or None. The
    browser sends its cookies when a session starts."""
    try:
        return valid_token(st.context.cookies.get(device_cookie(code)))
    except Exception:  # no browser behind this session (AppTest, a bare run): nothing kept
        return None


def remember_device(room: Room, hours: float) -> None:
    """Keep this student's token in the browser for as long as the room can live (`hours` since its last use):
    a script of our own in a one-pixel frame sets the cookie on the app's own address (nothing is sent anywhere
    else; a reload draws the same frame, which the browser does not run again)."""
    if not room.student_token:
        return
    cookie = (f"{device_cookie(room.code)}={room.student_token}; Max-Age={int(hours * 3600)}; Path=/; "
              "SameSite=Strict")
    st.iframe(f"<script>window.parent.document.cookie = {json.dumps(cookie)};</script>", height=1)


def forget() -> None:
    """Out of the room (*Continue alone*, *Go on alone*), keeping the settings and the step."""
    for key in (state.ROOM_RECLAIM, state.ROOM, state.ROOM_TEACHER, state.ROOM_STUDENT, state.ROOM_NICKNAME, state.ROOM_PROBLEM,
                state.ROOM_SENT, state.ROOM_CARD, state.ROOM_VERSION, state.ROOM_AT, state.ROOM_REVEALED,
                state.ROOM_SEEN_AT, BEHIND_SINCE):
        st.session_state.pop(key, None)


def browser_behind(now: float) -> bool:
    """Whether this session's browser never got the page's last step, so the page must be drawn again (a poll's
    question, in a fragment's run of its own, never in the page's full run).

    Each request a browser sends carries its address bar, where the step view writes `step=` as it draws the
    step. When another request (a poll's timer, a click) reaches Streamlit 1.67 just after a run ended, while
    that run's messages still wait on the server's event loop, Streamlit starts a new ScriptRunner and drops
    everything the old one had not yet delivered: the step, its address and the run's end never reach the
    browser, and nothing would redraw them (the room's version has not moved since). Such a browser keeps
    sending the old step. One poll that sees it may have crossed the new page on the way (a request sent just
    before the page arrived), so only a step still behind at the next poll (BEHIND_SECONDS later) counts."""
    shown = st.query_params.get("step")
    drawn = Stepper.drawn(state.STEP)  # the step the step view last drew (and wrote in the address bar)
    if shown is None or drawn is None or shown == str(drawn):
        st.session_state.pop(BEHIND_SINCE, None)
        return False
    Stepper.hold_echo(state.STEP)  # meanwhile the slider's old value, sent with each request, moves nothing
    since, step, redrawn = st.session_state.get(BEHIND_SINCE) or (now, drawn, 0)
    if step != drawn:
        since, redrawn = now, 0
    if now - since < BEHIND_SECONDS or redrawn >= BEHIND_REDRAWS:  # (a page that never writes it: not for ever)
        st.session_state[BEHIND_SINCE] = (since, drawn, redrawn)
        return False
    st.session_state[BEHIND_SINCE] = (now, drawn, redrawn + 1)
    return True


def join_typed() -> None:
    """The sidebar's *Join a class room* box (a callback): enter the room, then the Train page opens it."""
    raw = st.session_state.get(state.ROOM_TYPED, "") or ""
    if not raw.strip():
        return
    _enter(raw, None, None)
    st.session_state[state.ROOM_TYPED] = ""
    st.session_state[state.ROOM_GO] = True
    st.session_state[state.ROOM_GO_FAILED] = not st.session_state.get(state.ROOM)


def current() -> Room | None:
    """This session's room as it is now (two small queries), or None (and why, when the room went: ROOM_PROBLEM).

    When the store cannot be read for a moment (busy, a full disk), the page says so and tries again every few
    seconds, rather than showing a student the whole training."""
    st.session_state.pop(state.ROOM_NOW, None)
    code = st.session_state.get(state.ROOM)
    if not code:
        return None
    rooms = store()
    student = st.session_state.get(state.ROOM_STUDENT)
    try:
        snap = rooms.snapshot(code) if rooms.on else None
        revealed = frozenset(rooms.revealed_steps(code)) if snap is not None else frozenset()
        removed = snap is not None and student is not None and not rooms.is_member(code, student)
    except RoomsOff as exc:
        _retry_soon(f"The class room {code} cannot be read right now ({exc}). The page tries again in a moment.")
    if snap is None:
        forget()
        st.session_state[state.ROOM_PROBLEM] = (f"The class room {code} has ended (a room is removed "
                                                f"{rooms.idle_hours:g} hours after it was last used): you are on your own here.")
        return None
    if removed:
        forget()
        st.session_state[state.ROOM_PROBLEM] = (f"The teacher took you out of class room {code}. To join again, type its "
                                                "code in the sidebar (unless the teacher has locked the room).")
        return None
    st.session_state[state.ROOM_REVEALED] = set(revealed)  # this tab's reveals join it until the next full run
    room = Room(snap, st.session_state.get(state.ROOM_TEACHER), st.session_state.get(state.ROOM_STUDENT),
                st.session_state.get(state.ROOM_NICKNAME, ""), revealed)
    st.session_state[state.ROOM_NOW] = room
    return room


def found() -> Room | None:
    """The room `current` found in this run (app.py asks once; the page reads it without a query)."""
    return st.session_state.get(state.ROOM_NOW)


def _retry_soon(message: str) -> NoReturn:
    st.warning(message, icon=":material/sync_problem:")

    @st.fragment(run_every=RETRY_SECONDS)
    def retry() -> None:
        if st.session_state.get(state.ROOM_RETRIED):
            st.session_state[state.ROOM_RETRIED] = False
            st.rerun(scope="app")
        st.session_state[state.ROOM_RETRIED] = True

    retry()
    st.stop()


def lock_reason(room: Room | None) -> str:
    """Why the sidebar's settings cannot change now (a room fixes them), or ""."""
    if room is None:
        return ""
    if room.is_teacher:
        return ("The class room fixes these settings: every student trains the same. To change the corpus or the "
                "algorithm, close the room and start another.")
    return "These are the class room's settings: every student trains the same."


def reclaim_box() -> None:
    """A teacher's tab that lost its session (a restart, a reopened tab): paste the teacher link to run the room again."""
    code = st.session_state.get(state.ROOM_RECLAIM)
    if not code:
        return
    with st.container(border=True):
        st.markdown(f"**This tab ran class room {code}.** The server has restarted or the tab was reopened since, and "
                    "the teacher's key never stays in the address bar: paste the teacher link (or open the file you "
                    "downloaded) to run the room again.")
        st.text_input("Teacher link", key=state.ROOM_RECLAIM_BOX, on_change=_reclaim, args=(code,), max_chars=400,
                      placeholder="http://…/?room=…&teacher=…", type="password")
        row = st.container(horizontal=True)
        row.button("Join as a student", icon=":material/person_add:", on_click=_enter, args=(code, None, None),
                   key="room_reclaim_student")
        row.button("Go on alone", icon=":material/person:", on_click=forget, key="room_reclaim_alone")


def _reclaim(code: str) -> None:
    text = (st.session_state.get(state.ROOM_RECLAIM_BOX) or "").strip()
    st.session_state[state.ROOM_RECLAIM_BOX] = ""
    token = parse_qs(urlsplit(text).query).get("teacher", [text])[0] if "teacher=" in text else text
    if store().is_teacher(code, valid_token(token)):
        _enter(code, token, None)
    else:
        st.session_state[state.ROOM_PROBLEM] = "That is not this room's teacher link: check the file you downloaded."


def problem_line(where=st) -> None:
    """Why the link's room could not be entered, or why the room ended: one line, and the way on."""
    problem = st.session_state.pop(state.ROOM_PROBLEM, None)
    if problem:
        where.warning(problem, icon=":material/groups:")


def join_box() -> None:
    """The sidebar's box for typing a room code, on every page (and, once entered, off to the Train page)."""
    if st.session_state.pop(state.ROOM_GO, False) and st.session_state.get(state.ROOM):
        st.switch_page(navigation.TRAIN_PATH, query_params={"room": st.session_state[state.ROOM]})
    if st.session_state.get(state.ROOM):
        return
    if st.session_state.get(state.ROOM_GO_FAILED):  # a typed code that opened no room: said under the box
        st.session_state[state.ROOM_GO_FAILED] = False
        problem_line(st.sidebar)
    st.sidebar.text_input("Join a class room", key=state.ROOM_TYPED, on_change=join_typed, max_chars=40,
                          placeholder="the code the teacher shows", help="Type the room's code (6 letters and "
                          "digits) and press Enter: the Train page opens on the class's step.")


def not_while_in_class(room: Room, settings: Settings) -> None:
    """A student of an open room on the Compare page or the playground: both would show the whole training."""
    state.sync_url(settings)  # the room stays in the address bar: a reload keeps the student in it
    st.info(f"You are in class room {room.code}: this page would show the steps the class has not seen yet. It "
            "opens when the teacher closes the room, or when you go on alone.", icon=":material/groups:")
    row = st.container(horizontal=True)
    if row.button("Back to the class", icon=":material/school:", type="primary", key="room_elsewhere_back"):
        st.switch_page(navigation.TRAIN_PATH)
    row.button("Continue alone", icon=":material/person:", on_click=forget, key="room_elsewhere_alone")
    st.stop()


def my_votes(room: Room, step: int) -> dict[int, str]:
    return store().my_votes(room.code, room.student_token, step) if room.student_token else {}


def histogram(tally: dict[int, dict[str, int]], choices: Sequence[str], dark: bool, large: bool,
              answer: str | None = None) -> None:
    """The votes of each round, side by side, over the question's choices (in its order); `answer` (after the
    reveal): the right bar marked."""
    rows = [{"choice": choice, "round": f"round {r}", "votes": counts.get(choice, 0)}
            for r, counts in sorted(tally.items()) for choice in choices]
    others = [{"choice": choice, "round": f"round {r}", "votes": n} for r, counts in sorted(tally.items())
              for choice, n in counts.items() if choice not in choices]
    frame = pd.DataFrame(rows + others)
    st.altair_chart(charts.votes(frame, dark=dark, large=large, answer=answer), width="stretch")
    st.caption(safe.md(" · ".join(f"Round {r}: " + ", ".join(f"{choice} {n}" for choice, n in
                                                          sorted(counts.items(), key=lambda i: (-i[1], i[0])))
                                  for r, counts in sorted(tally.items()))))


def results_view(room: Room, step: int, question: Question, dark: bool, large: bool) -> bool:
    """After a reveal: what the class answered (results) over the histogram of its votes, the right bar marked.
    Whether anything was drawn (nothing when nobody voted at this step)."""
    text = results(room, step, question)
    if text is None:
        return False
    # One under the other, not in columns: the hidden step's view drew columns here, and a column that a run
    # leaves shorter keeps the old elements under it until the browser hears the run ended (which Streamlit
    # 1.67 can lose: see stepper.delivered), so the old buttons stayed beside the reveal.
    st.info(text, icon=":material/groups:")
    histogram(store().tally(room.code, step), question.choices, dark, large, answer=question.answer)
    return True


def results(room: Room, step: int, question: Question) -> str | None:
    """After a reveal: the share of the class that was right in each round, and why the most chosen wrong
    choices lost (the question's judge says): Markdown, or None when nobody voted at this step."""
    tally = store().tally(room.code, step)
    if not tally:
        return None
    lines = []
    for r, counts in sorted(tally.items()):
        total = sum(counts.values())
        right = sum(n for choice, n in counts.items() if question.judge(choice)[0])
        lines.append(f"round {r}: **{right} of {total}** right ({right / total:.0%})")
    last_round = max(tally)
    wrong = {choice: n for choice, n in tally[last_round].items() if not question.judge(choice)[0]}
    text = "The class: " + " · ".join(lines)
    mine = my_votes(room, step)
    if mine:
        last = mine[max(mine)]
        text += "  \n" + safe.md(f"You chose {last}: ") + safe.md(question.judge(last)[1])
    for choice, _ in sorted(wrong.items(), key=lambda item: (-item[1], item[0]))[:WRONG_NOTES]:
        chose = f"{wrong[choice]} chose it" + (f" in round {last_round}" if last_round > 1 else "")
        text += "  \n" + safe.md(f"{chose}. " + question.judge(choice)[1])
    return text
