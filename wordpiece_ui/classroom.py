"""The live class room on the Train page: who this session is in a room, the teacher's bar and vote
controls, the student's bar, vote and following, the record (the store is rooms.py).

Roles. A session is in a room as its teacher (it holds the teacher token, read once from the
teacher link and dropped from the address bar) or as a student (the link carries `student=TOKEN`,
so a reload or a restart keeps the nickname and the votes). `room=CODE` alone joins as a new student.

Following. The student's page polls the room every POLL_SECONDS (one small query: rooms.snapshot) in
a fragment that draws nothing; when the teacher acted (the room's version moved) it reruns the page,
and a student who was on the teacher's step moves with it. The teacher's count of answers polls the
same way while a vote is open.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from . import charts, safe, state, tables, user_files
from .datastore import folder_from_env
from .rooms import (MAX_ROUNDS, NICKNAME_CHARS, PRESENT_SECONDS, SEEN_SECONDS, NotAllowed, RoomsOff, RoomStore,
                    Snapshot, normal_code, valid_token)
from .settings import Settings

POLL_SECONDS = 1.0  # how often a student's page (and the teacher's count) asks the room what changed
WRONG_NOTES = 2  # after a reveal: why the most chosen wrong pairs lost, for this many of them
PIN_RENEW_SECONDS = 3600.0  # a room's corpus: its pin in the data store is renewed at most hourly


@st.cache_resource(show_spinner=False)
def store() -> RoomStore:
    """The server's rooms, in the data folder ($WORDPIECE_LAB_DATA) beside the kept corpora."""
    return RoomStore(folder_from_env())


@dataclass(frozen=True)
class Room:
    """This session in a room, as this run found the room."""

    snap: Snapshot
    teacher: str | None  # the teacher token, when this session is the teacher
    student: str | None  # the student token, when this session is a student
    nickname: str = ""

    @property
    def code(self) -> str:
        return self.snap.code

    @property
    def is_teacher(self) -> bool:
        return self.teacher is not None

    @property
    def is_student(self) -> bool:
        return self.student is not None

    @property
    def open(self) -> bool:
        return not self.snap.closed


def student_link(code: str) -> str:
    return f"{state.public_root()}/?room={code}"


def teacher_link(code: str, token: str) -> str:
    return f"{state.public_root()}/?room={code}&teacher={token}"


# ----- entering a room: from a link, a typed code or the teacher's button ---------------------------------
def enter_from_url() -> None:
    """On a session's first run: a link with `room=` enters the room (before the sidebar reads the URL)."""
    if st.session_state.get(state.ROOM_CHECKED):
        return
    st.session_state[state.ROOM_CHECKED] = True
    if "room" in st.query_params:
        _enter(st.query_params.get("room", ""), st.query_params.get("teacher"), st.query_params.get("student"),
               was_teacher=st.query_params.get("role") == "teacher")


def _enter(raw_code: str, teacher: str | None, student: str | None, was_teacher: bool = False) -> None:
    """Enter the room `raw_code` names as its teacher or a student; else say why not (ROOM_PROBLEM).

    `was_teacher`: the address bar of a teacher's tab (`role=teacher`, no token), reloaded or reconnected after a
    restart: it does not join as a student, it asks for the teacher link (ROOM_RECLAIM)."""
    _forget_room()
    rooms = store()
    code = normal_code(raw_code)
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
        st.session_state[state.ROOM_REVEALED] = rooms.revealed_steps(code)
    else:
        if teacher:
            st.session_state[state.ROOM_PROBLEM] = ("This link's teacher part is not this room's: you joined as a "
                                                    "student. Open the teacher link you downloaded to run the room.")
        try:
            member = rooms.join(code, valid_token(student))
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


def _forget_room() -> None:
    for key in (state.ROOM_RECLAIM, state.ROOM, state.ROOM_TEACHER, state.ROOM_STUDENT, state.ROOM_NICKNAME, state.ROOM_PROBLEM,
                state.ROOM_SENT, state.ROOM_VERSION, state.ROOM_AT, state.ROOM_REVEALED, state.ROOM_SEEN_AT):
        st.session_state.pop(key, None)


def start(settings: Settings) -> None:
    """The teacher's *Start a class room*: a room with these settings, at the current step, asking first."""
    rooms = store()
    step = int(st.session_state.get(state.STEP, 1))
    digest = ""
    if settings.corpus_id:  # a paste or an upload: the room keeps it for as long as the room lives
        kept = user_files.data_store().find(settings.corpus_id)
        digest = kept.digest if kept is not None else ""
    try:
        code, token = rooms.create(settings.to_query(), digest, step, quiz=True)
    except (RoomsOff, NotAllowed) as exc:
        st.session_state[state.ROOM_PROBLEM] = f"The class room could not start: {exc}."
        return
    _forget_room()
    st.session_state[state.ROOM] = code
    st.session_state[state.ROOM_TEACHER] = token
    st.session_state[state.ROOM_REVEALED] = set()
    st.session_state[state.kept(state.QUIZ)] = st.session_state[state.QUIZ] = True
    st.session_state[state.ROOM_SENT] = (step, True)
    st.session_state[state.kept(state.ROOM_JOIN_OPEN)] = True  # the join code is on screen at first
    _pin(digest, force=True)


def _pin(digest: str, force: bool = False) -> None:
    """Keep the room's own corpus in the data store for as long as the room can live (renewed hourly)."""
    if not digest:
        return
    now = time.time()
    if force or now - st.session_state.get(state.ROOM_PINNED_AT, 0.0) >= PIN_RENEW_SECONDS:
        st.session_state[state.ROOM_PINNED_AT] = now
        user_files.data_store().pin(digest, now + store().idle_seconds + PIN_RENEW_SECONDS)


def join_typed() -> None:
    """The sidebar's *Join a class room* box (a callback): enter the room, then the Train page opens it."""
    raw = st.session_state.get(state.ROOM_TYPED, "") or ""
    if not raw.strip():
        return
    _enter(raw, None, None)
    st.session_state[state.ROOM_TYPED] = ""
    st.session_state[state.ROOM_GO] = True


def leave() -> None:
    """*Continue alone*: out of the room, keeping the settings and the step."""
    _forget_room()


def current() -> Room | None:
    """This session's room as it is now (one query), or None (and why, when the room went: ROOM_PROBLEM)."""
    code = st.session_state.get(state.ROOM)
    if not code:
        return None
    rooms = store()
    snap = rooms.snapshot(code) if rooms.on else None
    if snap is None:
        _forget_room()
        st.session_state[state.ROOM_PROBLEM] = (f"The class room {code} has ended (a room is removed "
                                                f"{rooms.idle_hours:g} hours after it was last used): you are on your own here.")
        return None
    if snap.settings.get("corpus_id") and snap.corpus_digest and st.session_state.get(state.ROOM_TEACHER):
        _pin(snap.corpus_digest)
    return Room(snap, st.session_state.get(state.ROOM_TEACHER), st.session_state.get(state.ROOM_STUDENT),
                st.session_state.get(state.ROOM_NICKNAME, ""))


def lock_reason(room: Room | None) -> str:
    """Why the sidebar's settings cannot change now (a room fixes them), or ""."""
    if room is None:
        return ""
    if room.is_teacher:
        return ("The class room fixes these settings: every student trains the same. To change the corpus or the "
                "algorithm, close the room and start another.")
    return "These are the class room's settings: every student trains the same."


def url_params(room: Room | None) -> dict[str, object]:
    """What the address bar carries of the room: its code, and a student's own token (never the teacher's)."""
    if room is None:
        return {}
    return {"room": room.code, "student": room.student, "role": "teacher" if room.is_teacher else None}


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
        row.button("Go on alone", icon=":material/person:", on_click=_forget_room, key="room_reclaim_alone")


def _reclaim(code: str) -> None:
    from urllib.parse import parse_qs, urlsplit

    text = (st.session_state.get(state.ROOM_RECLAIM_BOX) or "").strip()
    st.session_state[state.ROOM_RECLAIM_BOX] = ""
    token = parse_qs(urlsplit(text).query).get("teacher", [text])[0] if "teacher=" in text else text
    if store().is_teacher(code, valid_token(token)):
        _enter(code, token, None)
    else:
        st.session_state[state.ROOM_PROBLEM] = "That is not this room's teacher link: check the file you downloaded."


def problem_line() -> None:
    """Why the link's room could not be entered, or why the room ended: one line, and the way on."""
    problem = st.session_state.pop(state.ROOM_PROBLEM, None)
    if problem:
        st.warning(problem, icon=":material/groups:")


def join_box() -> None:
    """The sidebar's box for typing a room code, on every page (and, once entered, off to the Train page)."""
    if st.session_state.pop(state.ROOM_GO, False) and st.session_state.get(state.ROOM):
        from . import navigation

        st.switch_page(navigation.TRAIN_PATH, query_params={"room": st.session_state[state.ROOM]})
    if st.session_state.get(state.ROOM):
        return
    st.sidebar.text_input("Join a class room", key=state.ROOM_TYPED, on_change=join_typed, max_chars=40,
                          placeholder="the code the teacher shows", help="Type the room's code (6 letters and "
                          "digits) and press Enter: the Train page opens on the class's step.")


# ----- the teacher ------------------------------------------------------------------------------------
def start_button(settings: Settings) -> None:
    """*Start a class room*, in the sidebar under the box that joins one (or why rooms are off)."""
    rooms = store()
    if not rooms.on:
        st.sidebar.caption(f"Class rooms are off on this server: {rooms.problem}. Everything else works.")
    st.sidebar.button("Start a class room", icon=":material/groups:", on_click=start, args=(settings,),
                      disabled=not rooms.on, width="stretch",
                     help=(f"Class rooms are off: {rooms.problem}." if not rooms.on else
                           "Students join from a QR code or a short code, follow your step and vote on each hidden "
                           "merge; the projector shows how many answered, then the spread. Turns on Ask first."))


def teacher_sync(room: Room, step: int, quiz: bool) -> None:
    """The teacher's tab is at `step` (with Ask first on or off): the class follows (a write only on a change)."""
    if not room.open or st.session_state.get(state.ROOM_SENT) == (step, quiz):
        return
    try:
        store().set_step(room.code, room.teacher, step, quiz)
    except NotAllowed:
        return
    st.session_state[state.ROOM_SENT] = (step, quiz)


def teacher_bar(room: Room, model, presenting: bool) -> None:
    """The room's code, the join link and QR code, the record and *Close the room*: the projector's top line."""
    with st.container(border=True):
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        state_text = "open" if room.open else "closed (read-only)"
        row.markdown(f"**Class room {room.code}** · {state_text} · "
                     f"{tables.plural(room.snap.present, 'student')} here ({room.snap.members:,} joined)",
                     width="stretch")
        with row.popover("Lesson record", icon=":material/table_view:", key="room_record_open", on_change="rerun") as box:
            if box.open:
                record_view(room, model)
        with row.popover("Teacher link", icon=":material/key:", key="room_teacher_link_open", on_change="rerun",
                         help="Keep it private: it reopens control of this room from another tab or after a restart.") as box:
            if box.open:
                teacher_link_panel(room)
        if room.open:
            row.button("Close the room", icon=":material/lock:", on_click=_close, args=(room,), key="room_close",
                       help="Makes the room read-only: no more votes; the record stays to download.")
        else:
            row.button("Continue alone", icon=":material/person:", on_click=leave, key="room_leave_t")
        join = state.panel(f"Join the class: scan the code or type {room.code}", ":material/qr_code_2:",
                           state.ROOM_JOIN_OPEN)
        with join as panel:
            if panel.open:
                left, right = st.columns([1, 2] if not presenting else [1, 1.4], vertical_alignment="center")
                left.image(state.qr_png(student_link(room.code)), width=260 if presenting else 220)
                right.markdown(f"## {room.code}")
                right.code(student_link(room.code), language=None, wrap_lines=True)
                if state.only_this_computer(student_link(room.code)):
                    right.caption("This address only works on this computer: start the app with "
                                  "`--server.address 0.0.0.0 --browser.serverAddress` and this computer's address "
                                  "(README: *Serving a class*).")


def teacher_link_panel(room: Room) -> None:
    """The teacher link (it gives control of the room: drawn only while its closed panel is opened, never on
    the projector unless the teacher opens it)."""
    assert room.teacher is not None
    link = teacher_link(room.code, room.teacher)
    st.caption("Keep this link private: whoever opens it runs the room. It reopens control from another tab, another "
               "computer, or after the server restarts.")
    st.code(link, language=None, wrap_lines=True)
    st.download_button("Download the teacher link", data=link + "\n", file_name=f"class-room-{room.code}-teacher.txt",
                           mime="text/plain", icon=":material/download:", on_click="ignore")


def _close(room: Room) -> None:
    try:
        store().close(room.code, room.teacher)
    except NotAllowed as exc:
        st.session_state[state.ROOM_PROBLEM] = f"The room could not be closed: {exc}."


def _teacher_action(action: Callable[..., None], room: Room, step: int) -> None:
    try:
        action(room.code, room.teacher, step)
    except NotAllowed as exc:
        st.session_state[state.ROOM_PROBLEM] = f"That did not happen: {exc}."


def reveal(room: Room, step: int) -> None:
    """The teacher reveals the merge: for the class too."""
    _teacher_action(store().reveal, room, step)
    st.session_state.setdefault(state.ROOM_REVEALED, set()).add(step)


def revealed(step: int) -> bool:
    """The teacher's room revealed this step (in this tab, another, or before a restart)."""
    return step in st.session_state.get(state.ROOM_REVEALED, set())


def answered_line(snap: Snapshot) -> str:
    return f"{snap.answered:,} of {snap.present:,} answered"


def teacher_vote(room: Room, step: int, candidates: pd.DataFrame, dark: bool, large: bool) -> None:
    """The teacher's side of a hidden step: the live count, *Show answers*, the spread, *Vote again*, *Reveal*."""
    code = room.code

    @st.fragment(run_every=POLL_SECONDS)
    def live() -> None:
        snap = store().snapshot(code)
        if snap is None or snap.step != step:
            return
        round_note = f" (round {snap.round})" if snap.round > 1 else ""
        if snap.shown:
            st.markdown(f"### {snap.answered:,} answered{round_note}: the vote is closed")
        else:
            st.markdown(f"### {answered_line(snap)}{round_note}")
            st.caption(f"Students seen in the last {PRESENT_SECONDS:g} s. The spread stays hidden until you show "
                       "it, so the first answers do not sway the others.")
        if snap.shown or snap.round > 1:
            tally = store().tally(code, step)
            shown_rounds = {r: c for r, c in tally.items() if r < snap.round or snap.shown}
            if shown_rounds:
                histogram(shown_rounds, list(candidates["pair"]), dark, large)

    live()
    snap = room.snap if room.snap.step == step else store().snapshot(code)
    if snap is None or snap.closed:
        return
    # The buttons rerun the step view (not only the count above): a reveal changes the whole step.
    buttons = st.container(horizontal=True)
    if not snap.shown:
        buttons.button("Show answers", icon=":material/bar_chart:", key=f"room_show {step} {snap.round}",
                       on_click=_teacher_action, args=(store().show_answers, room, step))
    elif snap.round < MAX_ROUNDS:
        buttons.button("Vote again", icon=":material/replay:", key=f"room_again {step} {snap.round}",
                       on_click=_teacher_action, args=(store().vote_again, room, step),
                       help="A new round after the class discussed the spread; the first stays beside it.")
    buttons.button("Reveal the merge", icon=":material/visibility:", type="primary", key=f"room_reveal {step}",
                   on_click=reveal, args=(room, step))


def histogram(tally: dict[int, dict[str, int]], pairs: list[str], dark: bool, large: bool) -> None:
    """The guesses of each round, side by side, over the quiz's candidates (in its order)."""
    rows = [{"pair": pair, "round": f"round {r}", "votes": counts.get(pair, 0)}
            for r, counts in sorted(tally.items()) for pair in pairs]
    others = [{"pair": pair, "round": f"round {r}", "votes": n} for r, counts in sorted(tally.items())
              for pair, n in counts.items() if pair not in pairs]
    frame = pd.DataFrame(rows + others)
    st.altair_chart(charts.votes(frame, dark=dark, large=large), width="stretch")
    st.caption(safe.md(" · ".join(f"Round {r}: " + ", ".join(f"{pair} {n}" for pair, n in
                                                          sorted(counts.items(), key=lambda i: (-i[1], i[0])))
                                  for r, counts in sorted(tally.items()))))


def results(room: Room, step: int, table: pd.DataFrame, algorithm: str) -> str | None:
    """After a reveal: the share of the class that was right in each round, and why the most chosen wrong
    pairs lost (both scores): Markdown, or None when nobody voted at this step."""
    tally = store().tally(room.code, step)
    if not tally:
        return None
    lines = []
    wrong: dict[str, int] = {}
    for r, counts in sorted(tally.items()):
        total = sum(counts.values())
        right = sum(n for pair, n in counts.items() if tables.judge_guess(table, pair, algorithm)[0])
        lines.append(f"round {r}: **{right} of {total}** right ({right / total:.0%})")
        for pair, n in counts.items():
            if not tables.judge_guess(table, pair, algorithm)[0]:
                wrong[pair] = wrong.get(pair, 0) + n
    text = "The class: " + " · ".join(lines)
    mine = my_votes(room, step)
    if mine:
        last = mine[max(mine)]
        text += "  \n" + safe.md(f"You chose {last}: ") + safe.md(tables.judge_guess(table, last, algorithm)[1])
    for pair, _ in sorted(wrong.items(), key=lambda item: (-item[1], item[0]))[:WRONG_NOTES]:
        text += "  \n" + safe.md(f"{wrong[pair]} chose it. " + tables.judge_guess(table, pair, algorithm)[1])
    return text


def record_frame(room: Room, algorithm: str,
                 table_at: Callable[[int], pd.DataFrame]) -> tuple[pd.DataFrame, list[dict]]:
    """The lesson's record: per step and round, how many answered and were right; and every vote's row."""
    votes = store().record(room.code)
    rows: list[dict] = []
    summary: dict[tuple[int, int], list[int]] = {}
    for step, round_, nickname, kind, choice in votes:
        table = table_at(step)
        right = tables.judge_guess(table, choice, algorithm)[0] if kind == "pair" else False
        merge = table.iloc[0]["pair"]
        rows.append({"step": step, "round": round_, "nickname": nickname, "choice": choice, "right": right,
                     "merge": merge})
        counts = summary.setdefault((step, round_), [0, 0])
        counts[0] += 1
        counts[1] += int(right)
    frame = pd.DataFrame([{"step": s, "merge": table_at(s).iloc[0]["pair"], "round": r, "answered": a, "right": ok,
                           "right %": round(100 * ok / a)} for (s, r), (a, ok) in sorted(summary.items())])
    return frame, rows


def record_csv(rows: list[dict]) -> str:
    """The votes as CSV: nicknames only; a cell that a spreadsheet would run as a formula starts with '."""
    out = io.StringIO()
    writer = csv.DictWriter(out, ["step", "round", "nickname", "choice", "right", "merge"], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("'" + v if isinstance(v, str) and v[:1] in "=+-@\t\r" else v) for k, v in row.items()})
    return out.getvalue()


def record_view(room: Room, model) -> None:
    from . import caches

    frame, rows = record_frame(room, model.config.algorithm,
                               lambda step: caches.candidates(model, step, False)[0])
    if frame.empty:
        st.caption("No votes yet: the record fills in as the class votes on hidden steps.")
        return
    st.caption("Per step and round: how many answered and how many were right (a tie with the winner counts).")
    st.dataframe(frame, hide_index=True, width="stretch")
    st.download_button("Download the record (CSV)", data=record_csv(rows), file_name=f"class-room-{room.code}.csv",
                       mime="text/csv", icon=":material/download:", on_click="ignore",
                       help="One row per vote: step, round, nickname, choice, whether it was right, the merge. "
                            "Nicknames only: nothing else identifies a student.")


# ----- the student ------------------------------------------------------------------------------------
def student_bar(room: Room) -> None:
    """The top of a student's page: the room's code and their nickname (changeable)."""
    with st.container(border=True):
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        row.markdown(f"**Class room {room.code}** · you are **{safe.md(room.nickname)}**", width="stretch")
        with row.popover("Change name", icon=":material/edit:", key="room_name_open"):
            st.text_input("Your name in this room (others see it in the record)", value=room.nickname,
                          max_chars=NICKNAME_CHARS, key=state.ROOM_NICKNAME_BOX, on_change=_rename, args=(room,))
        if not room.open:
            st.info("The teacher closed this class room: it is read-only now.", icon=":material/lock:")
            st.button("Continue alone", icon=":material/person:", on_click=leave, key="room_leave_s")


def back_button(room: Room, step: int) -> None:
    """A student looking at another step than the class's: the way back."""
    if room.open and step != room.snap.step:
        st.button(f"Back to the class (step {room.snap.step})", icon=":material/groups:", type="primary",
                  on_click=back_to_class, args=(room.snap.step,), key="room_back")


def _rename(room: Room) -> None:
    try:
        st.session_state[state.ROOM_NICKNAME] = store().rename(room.code, room.student or "",
                                                                st.session_state.get(state.ROOM_NICKNAME_BOX, ""))
    except NotAllowed:
        pass


def back_to_class(step: int) -> None:
    st.session_state[state.STEP] = step


def reachable(room: Room | None, n: int) -> int:
    """How far this session may step: a student of an open room, up to the teacher's step; others, all `n`."""
    if room is None or not room.is_student or not room.open:
        return n
    return max(1, min(n, room.snap.step))


def student_hidden(room: Room, step: int) -> bool:
    """A student sees every step before the teacher's, and the teacher's once revealed (or not asked first)."""
    return step == room.snap.step and room.snap.quiz and not room.snap.revealed and room.open


def follow(room: Room) -> None:
    """A student's page asks the room what changed every POLL_SECONDS; after a teacher's action it reruns,
    and moves to the teacher's step if it was on the class's step before."""
    code, token = room.code, room.student

    @st.fragment(run_every=POLL_SECONDS)
    def poll() -> None:
        rooms = store()
        now = time.time()
        if token and now - st.session_state.get(state.ROOM_SEEN_AT, 0.0) >= SEEN_SECONDS:
            st.session_state[state.ROOM_SEEN_AT] = now
            rooms.seen(code, token)
        snap = rooms.snapshot(code)
        if snap is None or snap.version != st.session_state.get(state.ROOM_VERSION):
            if snap is not None:
                if st.session_state.get(state.STEP) == st.session_state.get(state.ROOM_AT):
                    st.session_state[state.STEP] = snap.step  # on the class's step: follow the teacher
                st.session_state[state.ROOM_VERSION] = snap.version
                st.session_state[state.ROOM_AT] = snap.step
            st.rerun(scope="app")

    poll()


def my_votes(room: Room, step: int) -> dict[int, str]:
    return store().my_votes(room.code, room.student, step) if room.student else {}


def student_vote(room: Room, step: int, candidates: pd.DataFrame, dark: bool) -> None:
    """The student's side of a hidden step: choose a pair (stored at once), or the spread once it is shown."""
    snap = room.snap
    mine = my_votes(room, step)
    if snap.shown or snap.round > 1:
        tally = store().tally(room.code, step)
        shown_rounds = {r: c for r, c in tally.items() if r < snap.round or snap.shown}
        if shown_rounds:
            st.caption("What the class answered:")
            histogram(shown_rounds, list(candidates["pair"]), dark, large=False)
    if not snap.voting:
        if snap.round in mine:
            st.success(safe.md(f"Your vote is in: {mine[snap.round]}. Wait for the teacher to reveal the merge."),
                       icon=":material/how_to_vote:")
        else:
            st.info("The vote is closed: wait for the teacher.", icon=":material/hourglass_top:")
        return
    key = f"room_vote {room.code} {step} {snap.round}"
    pairs = list(candidates["pair"])
    if key not in st.session_state and snap.round in mine and mine[snap.round] in pairs:
        st.session_state[key] = mine[snap.round]
    st.radio(f"Your vote{' (round ' + str(snap.round) + ')' if snap.round > 1 else ''}: which pair merges next?",
             pairs, index=None, key=key, on_change=_vote, args=(room, step, snap.round, key))
    if snap.round in mine:
        st.success(safe.md(f"Your vote is in: {mine[snap.round]}. You may change it until the teacher shows the answers."),
                   icon=":material/how_to_vote:")
    elif st.session_state.get(state.ROOM_VOTE_FAILED) == key:
        st.warning("Your vote arrived after the vote closed.", icon=":material/schedule:")


def _vote(room: Room, step: int, round_: int, key: str) -> None:
    choice = st.session_state.get(key)
    if not choice or not room.student:
        return
    try:
        store().vote(room.code, room.student, step, round_, str(choice))
    except NotAllowed:
        st.session_state[state.ROOM_VOTE_FAILED] = key
