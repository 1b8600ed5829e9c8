"""The teacher's part of a live class room on the Train page: *Start a class room*, the room's bar (code,
QR code, teacher link, lesson record, *Close the room*), the class following the teacher's step, and a
hidden step's live count, *Show answers*, *Vote again* and *Reveal* (the merge, the round)."""

from __future__ import annotations

import csv
import io
import math
import time
from collections.abc import Callable

import pandas as pd
import streamlit as st

from . import classroom, glossary, safe, state, tables, user_files
from .rooms import COUNTDOWN_SECONDS, MAX_ROUNDS, NICKNAME_CHARS, PRESENT_SECONDS, NotAllowed, RoomsOff, Snapshot
from .settings import Settings
from .stepper import delivered

PIN_RENEW_SECONDS = 3600.0  # a room's corpus: its pin in the data store is renewed at most hourly
HEAD_COUNT_SECONDS = 2.0  # the teacher's bar counts the students here this often


def start(settings: Settings) -> None:
    """The teacher's *Start a class room*: a room with these settings, at the current step, asking first."""
    rooms = classroom.store()
    step = int(st.session_state.get(state.STEP, 1))
    digest = ""
    if settings.corpus_id:  # a paste or an upload: the room keeps it for as long as the room lives
        kept = user_files.data_store().find(settings.corpus_id)
        if kept is None:
            st.session_state[state.ROOM_PROBLEM] = ("The class room could not start: your corpus is no longer kept on "
                                                    "this server, so the students could not train it. Paste or upload "
                                                    "it again, then start the room.")
            return
        digest = kept.digest
    try:
        code, token = rooms.create(settings.to_query(), digest, step, quiz=True)
    except (RoomsOff, NotAllowed) as exc:
        st.session_state[state.ROOM_PROBLEM] = f"The class room could not start: {exc}."
        return
    classroom.forget()
    st.session_state[state.ROOM] = code
    st.session_state[state.ROOM_TEACHER] = token
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
        user_files.data_store().pin(digest, now + classroom.store().idle_seconds + PIN_RENEW_SECONDS)


def start_button(settings: Settings) -> None:
    """*Start a class room*, in the sidebar under the box that joins one (or why rooms are off)."""
    rooms = classroom.store()
    if not rooms.on:
        st.sidebar.caption(f"Class rooms are off on this server: {rooms.problem}. Everything else works.")
    st.sidebar.button("Start a class room", icon=":material/groups:", on_click=start, args=(settings,),
                      disabled=not rooms.on, width="stretch",
                     help=(f"Class rooms are off: {rooms.problem}." if not rooms.on else
                           "Students join from a QR code or a short code, follow your step and vote on each hidden "
                           "step (a merge, a round); the projector shows how many answered, then the spread. Turns on Ask first."))


def sync(room: classroom.Room, step: int, quiz: bool, card: Callable[[], dict] | None = None) -> None:
    """The teacher's tab is at `step` (with Ask first on or off): the class follows (a write only on a change),
    with the step's `card()`, what the phones show of it (phone_room.card), written once per step and tab."""
    sent = st.session_state.get(state.ROOM_SENT) == (step, quiz)
    if not room.open or (sent and (card is None or st.session_state.get(state.ROOM_CARD) == step)):
        return
    body = card() if card is not None else None
    try:
        if not sent:
            classroom.store().set_step(room.code, room.teacher_token, step, quiz, body)
        elif body is not None:  # (this tab entered the room at its step: the card alone)
            classroom.store().set_card(room.code, room.teacher_token, step, body)
    except (NotAllowed, RoomsOff):  # closed meanwhile, or busy: the next step's write tries again
        return
    st.session_state[state.ROOM_SENT] = (step, quiz)
    if card is not None:
        st.session_state[state.ROOM_CARD] = step
    _pin(room.snap.corpus_digest)


def bar(room: classroom.Room, presenting: bool, question_at: Callable[[int], classroom.Question],
        answer_name: str = "merge") -> None:
    """The room's code, the join link and QR code, the record and *Close the room*: the projector's top line.
    `question_at(step)`: the vote of a hidden step (the record judges the votes by it); `answer_name`: the record's
    column of what each step did."""
    _pin(room.snap.corpus_digest)  # a pasted or uploaded corpus stays while the room lives (renewed hourly)
    with st.container(border=True):
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        with row:
            head_count(room)
        with row.popover("Lesson record", icon=":material/table_view:", key="room_record_open", on_change="rerun") as box:
            if box.open:
                record_view(room, question_at, answer_name)
        with row.popover("Students", icon=":material/groups:", key="room_students_open", on_change="rerun") as box:
            if box.open:
                students_panel(room)
        with row.popover("Teacher link", icon=":material/key:", key="room_teacher_link_open", on_change="rerun",
                         help="Keep it private: it reopens control of this room from another tab or after a restart.") as box:
            if box.open:
                link_panel(room)
            else:
                st.session_state.pop(state.ROOM_LINK_SHOWN, None)  # shown once: hidden again when the panel closes
        if room.open:
            row.button("Close the room", icon=":material/lock:", on_click=_close, args=(room,), key="room_close",
                       help="Makes the room read-only: no more votes; the record stays to download.")
        else:
            row.button("Continue alone", icon=":material/person:", on_click=classroom.forget, key="room_leave_t")
        if not room.open:  # a closed room takes no one: no code to scan
            return
        join = state.panel(f"Join the class: scan the code or type {room.code}", ":material/qr_code_2:",
                           state.ROOM_JOIN_OPEN)
        with join as panel:
            if panel.open:
                left, right = st.columns([1, 2] if not presenting else [1, 1.4], vertical_alignment="center")
                left.image(state.qr_png(classroom.student_link(room.code)), width=260 if presenting else 220)
                right.markdown(f"## {room.code}")
                right.code(classroom.student_link(room.code), language=None, wrap_lines=True)
                if right.button("Full-screen join view", icon=":material/fullscreen:", key="room_join_full",
                                help="The code and the QR code as large as the screen, and the names as they join."):
                    join_screen(room.code)
                if state.only_this_computer(classroom.student_link(room.code)):
                    right.caption("This address only works on this computer: start the app with "
                                  "`--server.address 0.0.0.0 --browser.serverAddress` and this computer's address "
                                  "(README: *Serving a class*).")


JOIN_NAMES = 60  # the full-screen join view names at most this many (alphabetically), then "and N more"


@st.dialog("Join the class", width="large")
def join_screen(code: str) -> None:
    """The lecture hall's first minutes: the room's code in type read from the back row, the QR code as large as
    the dialog, and the nicknames as they join (asked again every HEAD_COUNT_SECONDS). Escape closes it."""
    link = classroom.student_link(code)
    left, right = st.columns([2, 3], vertical_alignment="center")
    left.image(state.qr_png(link), width=440)  # (with the names under it, on a 1280×720 projector too)
    right.html(f'<div style="font-size: clamp(3rem, 9vw, 9rem); font-weight: 700; letter-spacing: .08em; '
               f'line-height: 1">{code}</div>')  # (a code is six of CODE_ALPHABET's letters and digits: no markup)
    right.markdown(f"Scan the QR code, or open **{safe.md(state.public_origin() + '/class')}** and type the code.")

    @st.fragment(run_every=HEAD_COUNT_SECONDS)
    def names() -> None:
        try:
            seats = classroom.store().roster(code)
        except RoomsOff:
            return
        shown = [s.nickname for s in seats][:JOIN_NAMES]
        more = len(seats) - len(shown)
        st.markdown(f"### {tables.plural(len(seats), 'student')} joined")
        if shown:
            st.markdown(safe.md(" · ".join(shown) + (f" and {more:,} more" if more else "")))

    names()


def head_count(room: classroom.Room) -> None:
    """The room's code and how many students are here, kept up to date while the teacher talks."""
    code, closed = room.code, room.snap.closed
    in_page_run = [True]  # its first call is part of the page's run; its timer's runs are its own

    @st.fragment(run_every=None if closed else HEAD_COUNT_SECONDS)
    def line() -> None:
        if not in_page_run[0] and classroom.browser_behind(time.time()):  # the projector missed its last step
            st.rerun(scope="app")
        try:
            snap = classroom.store().snapshot(code)
        except RoomsOff:
            snap = None
        here = f"{tables.plural(snap.present, 'student')} here ({snap.members:,} joined)" if snap else "…"
        st.markdown(f"**Class room {code}** · {'closed (read-only)' if closed else 'open'} · {here}", width="stretch")
        if not in_page_run[0]:  # a timer's run of its own: its messages taken before it ends (stepper.delivered)
            delivered()

    line()
    in_page_run[0] = False


def students_panel(room: classroom.Room) -> None:
    """Who joined, who is here and who has not answered yet; rename or remove a student; lock the room to late
    joiners. (In a popover: opened on purpose, never left on the projector.)"""
    try:
        seats = classroom.store().roster(room.code)
        locked = classroom.store().is_locked(room.code)
    except RoomsOff as exc:
        st.warning(f"The room cannot be read right now ({exc}).")
        return
    if room.open:
        st.toggle("Lock the room: no one new can join", value=locked, key="room_lock", on_change=_lock,
                  args=(room,), help="Students who joined come back even then (a reload, a new tab, the code scanned "
                                     "again).")
    waiting = [s.nickname for s in seats if s.present and not s.answered]
    if room.snap.voting:
        st.markdown(safe.md("Not answered yet: " + (", ".join(waiting) if waiting else "nobody")))
    if not seats:
        st.caption("No one has joined yet.")
        return
    st.dataframe(pd.DataFrame([{"nickname": s.nickname, "here": s.present, "answered": s.answered} for s in seats]),
                 hide_index=True, width="stretch", height=min(400, 40 + 35 * len(seats)))
    if not room.open:
        return
    by_member = {s.member: s.nickname for s in seats}
    chosen = st.selectbox("A student", list(by_member), format_func=by_member.__getitem__, index=None,
                          key="room_student_chosen", placeholder="choose to rename or remove")
    if chosen is None:
        return
    st.text_input("New nickname", max_chars=NICKNAME_CHARS, key="room_student_rename",
                  on_change=_rename_student, args=(room, chosen))
    st.button(f"Remove {by_member[chosen]} and their votes", icon=":material/person_remove:",
              key="room_student_remove", on_click=_remove_student, args=(room, chosen))


def _lock(room: classroom.Room) -> None:
    _teacher_action(classroom.store().lock, room, bool(st.session_state.get("room_lock")))


def _rename_student(room: classroom.Room, member: str) -> None:
    name = st.session_state.get("room_student_rename", "")
    st.session_state["room_student_rename"] = ""
    if name.strip():
        _teacher_action(classroom.store().rename_student, room, member, name)


def _remove_student(room: classroom.Room, member: str) -> None:
    _teacher_action(classroom.store().remove_student, room, member)
    st.session_state.pop("room_student_chosen", None)


def link_panel(room: classroom.Room) -> None:
    """The teacher link gives control of the room, and this tab is often the projector's: it is downloaded
    (nothing drawn), or drawn only after a second, deliberate click that says it is secret, and hidden again when
    the panel closes."""
    assert room.teacher_token is not None
    link = classroom.teacher_link(room.code, room.teacher_token)
    st.caption("Keep this link private: whoever opens it runs the room. It reopens control from another tab, another "
               "computer, or after the server restarts.")
    st.download_button("Download the teacher link", data=link + "\n", file_name=f"class-room-{room.code}-teacher.txt",
                       mime="text/plain", icon=":material/download:", on_click="ignore", type="primary")
    if st.session_state.get(state.ROOM_LINK_SHOWN):
        st.code(link, language=None, wrap_lines=True)
        st.button("Hide it", icon=":material/visibility_off:", key="room_link_hide",
                  on_click=st.session_state.pop, args=(state.ROOM_LINK_SHOWN, None))
    else:
        st.button("Show it on this screen", icon=":material/warning:", key="room_link_show",
                  on_click=st.session_state.__setitem__, args=(state.ROOM_LINK_SHOWN, True),
                  help="Only when the class cannot see this screen: anyone who reads the link can run the room.")


def _close(room: classroom.Room) -> None:
    try:
        classroom.store().close(room.code, room.teacher_token)
    except (NotAllowed, RoomsOff) as exc:
        st.session_state[state.ROOM_PROBLEM] = f"The room could not be closed: {exc}."


def _teacher_action(action: Callable[..., object], room: classroom.Room, *args: object) -> None:
    """A teacher's button: `action(code, token, *args)` in the room (a step's action takes the step and the round
    the projector showed, when given: a click for a round that is over, or a second press, then changes
    nothing)."""
    try:
        action(room.code, room.teacher_token, *args)
    except (NotAllowed, RoomsOff) as exc:
        st.session_state[state.ROOM_PROBLEM] = f"That did not happen: {exc}."


def reveal(room: classroom.Room, step: int) -> None:
    """The teacher reveals the step (its merge, its round): for the class too."""
    _teacher_action(classroom.store().reveal, room, step)
    st.session_state.setdefault(state.ROOM_REVEALED, set()).add(step)


def revealed(step: int) -> bool:
    """The room revealed this step (read at the page's last full run, plus this tab's reveals since)."""
    return step in st.session_state.get(state.ROOM_REVEALED, set())


def answered_line(snap: Snapshot) -> str:
    return f"{snap.answered:,} of {snap.present:,} answered"


def countdown_note(snap: Snapshot) -> str:
    """The countdown on the round's vote as the projector's count line ends: ' · 0:23 left', ' · time is up'."""
    left = snap.seconds_left
    if left is None:
        return ""
    if left <= 0:
        return " · time is up"
    whole = math.ceil(left)
    return f" · {whole // 60}:{whole % 60:02d} left"


def _countdown_label(seconds: int) -> str:
    return (":material/timer: " if seconds == COUNTDOWN_SECONDS[0] else "") + f"{seconds} s"


def _countdown(room: classroom.Room, step: int, round_: int) -> None:
    """The countdown control's choice (COUNTDOWN_SECONDS) starts one on this round's vote; the control is
    cleared again (it is a button row, not a setting)."""
    key = f"room_countdown {step}"
    chosen = st.session_state.get(key)
    st.session_state[key] = None
    if chosen:
        _teacher_action(classroom.store().countdown, room, step, round_, int(chosen))


def vote_panel(room: classroom.Room, step: int, question: classroom.Question, dark: bool, large: bool,
               noun: str = "merge") -> None:
    """The teacher's side of a hidden step: *Show answers*, *Vote again* and *Reveal*, then the live count and
    the spread."""
    code = room.code
    try:
        snap = classroom.store().snapshot(code)  # now: the page's own may be older than this run
    except RoomsOff:
        return
    if snap is None or snap.closed:
        return
    # The buttons first, under the question: *Reveal* stays on a 1280×720 screen whatever the spread's height,
    # and nothing drawn later moves them. They rerun the step view (not only the count): a reveal changes the
    # whole step.
    #
    # All three are always drawn, in the same places, with keys that stay the same through the step's rounds
    # (the one that does not apply now is disabled). A button that changed in place (*Show answers* replaced
    # by *Vote again*, or a key with the round in it) is a new element to the browser, and the browser keeps the
    # old one, the focused one still on screen, until the step view's run is reported finished. A timer's run
    # (the count below, the bar's) that Streamlit starts right after the click's run relabels that report as
    # "stopped early" when both are still in its outgoing queue, so the old button stayed beside the new one;
    # the next press moved the focus off it, it vanished, the row shifted under the pointer between the
    # button's press and release, and the browser sent no click at all (a second press worked). With a row
    # that never changes, nothing moves. Each click carries the round it was meant for: a press for a round
    # that is over (a double click, a second tab) changes nothing.
    buttons = st.container(horizontal=True, key="room_buttons")
    round_ = snap.round
    buttons.button("Show answers", icon=":material/bar_chart:", key=f"room_show {step}",
                   disabled=snap.shown or snap.revealed, on_click=_teacher_action,
                   args=(classroom.store().show_answers, room, step, round_),
                   help="Closes this round's vote and shows its spread.")
    buttons.button("Vote again", icon=":material/replay:", key=f"room_again {step}",
                   disabled=not snap.shown or snap.revealed or round_ >= MAX_ROUNDS, on_click=_teacher_action,
                   args=(classroom.store().vote_again, room, step, round_),
                   help=(f"At most {MAX_ROUNDS} rounds." if round_ >= MAX_ROUNDS else
                         "A new round after the class discussed the spread; the first stays beside it."))
    buttons.segmented_control("Countdown", COUNTDOWN_SECONDS, key=f"room_countdown {step}",
                              format_func=_countdown_label, label_visibility="collapsed", disabled=not snap.voting or snap.closes > 0,
                              on_change=_countdown, args=(room, step, round_),
                              help="A countdown that closes this round's vote: the phones show it, and a vote after "
                                   "it is refused. Then *Show answers*.")
    buttons.button(f"Reveal the {noun}", icon=":material/visibility:", type="primary", key=f"room_reveal {step}",
                   on_click=reveal, args=(room, step))
    in_view_run = [True]  # its first call is part of the step view's run (which waits for its messages itself)

    @st.fragment(run_every=classroom.POLL_SECONDS)
    def live() -> None:
        try:
            snap = classroom.store().snapshot(code)
        except RoomsOff:  # busy for a moment: the next second tries again
            return
        if snap is None or snap.step != step:
            return
        round_note = f" (round {snap.round})" if snap.round > 1 else ""
        if snap.shown:
            st.markdown(f"### {snap.answered:,} answered{round_note}: the vote is closed")
        else:
            st.markdown(f"### {answered_line(snap)}{round_note}{countdown_note(snap)}")
            st.caption(f"Students seen in the last {PRESENT_SECONDS:g} s. The spread stays hidden until you show "
                       "it, so the first answers do not sway the others.")
        if snap.shown or snap.round > 1:
            tally = classroom.store().tally(code, step)
            shown_rounds = snap.shown_rounds(tally)
            if shown_rounds:
                with st.container(key="room_spread"):
                    classroom.histogram(shown_rounds, question.choices, dark, large)
                if snap.shown:  # a projector at 1280×720: the spread brought into view, the buttons kept in it
                    st.iframe(_INTO_VIEW % {"step": step, "round": snap.round}, height=1)
        if not in_view_run[0]:
            delivered()

    live()
    in_view_run[0] = False


# Scrolls the projector's page just enough for the spread's bottom to show, never past the room's buttons (a
# frame of our own: one per step and round, which the browser runs once; its chart may take a moment to draw).
_INTO_VIEW = """<script>/* step %(step)d, round %(round)d */
(function () {
  const top = window.parent, doc = top.document;
  let tries = 0;
  (function fit() {
    const spread = doc.querySelector(".st-key-room_spread"), buttons = doc.querySelector(".st-key-room_buttons");
    if (!spread || !buttons || spread.getBoundingClientRect().height < 40) {
      if (++tries < 20) setTimeout(fit, 150);
      return;
    }
    const over = spread.getBoundingClientRect().bottom + 12 - top.innerHeight;
    const room = buttons.getBoundingClientRect().top - 8;
    const by = Math.min(over, room);
    const scroller = ['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]'].map((q) => doc.querySelector(q))
      .find((e) => e && e.scrollHeight > e.clientHeight + 1) || doc.scrollingElement;
    if (by > 0) scroller.scrollBy({top: by, behavior: "smooth"});
  })();
})();
</script>"""


def record_frame(room: classroom.Room, question_at: Callable[[int], classroom.Question],
                 answer_name: str = "merge") -> tuple[pd.DataFrame, list[dict]]:
    """The lesson's record: per step and round, how many answered and were right; and every vote's row (its
    choice, whether it was right, and what the step did, under `answer_name`)."""
    votes = classroom.store().record(room.code)
    rows: list[dict] = []
    summary: dict[tuple[int, int], list[int]] = {}
    for step, round_, nickname, _kind, choice in votes:
        question = question_at(step)
        right = question.judge(choice)[0]
        rows.append({"step": step, "round": round_, "nickname": nickname, "choice": choice, "right": right,
                     answer_name: question.answer})
        counts = summary.setdefault((step, round_), [0, 0])
        counts[0] += 1
        counts[1] += int(right)
    frame = pd.DataFrame([{"step": s, answer_name: question_at(s).answer, "round": r, "answered": a, "right": ok,
                           "right %": round(100 * ok / a), "normalised gain": gain(summary, s, r)}
                          for (s, r), (a, ok) in sorted(summary.items())])
    return frame, rows


def gain(summary: dict[tuple[int, int], list[int]], step: int, round_: int) -> float | None:
    """Hake's normalised gain of a round over the step's first: (after − before) / (1 − before), the shares
    right; what the discussion won of what it could. None for a first round, or when the first was all right."""
    if round_ == 1 or (step, 1) not in summary:
        return None
    (a1, ok1), (a, ok) = summary[(step, 1)], summary[(step, round_)]
    before, after = ok1 / a1, ok / a
    return None if before >= 1 else round((after - before) / (1 - before), 2)


def record_csv(rows: list[dict], answer_name: str = "merge") -> str:
    """The votes as CSV (record_frame's rows): nicknames only; a cell that a spreadsheet would run as a formula
    starts with '."""
    out = io.StringIO()
    writer = csv.DictWriter(out, ["step", "round", "nickname", "choice", "right", answer_name], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("'" + v if isinstance(v, str) and v[:1] in "=+-@\t\r" else v) for k, v in row.items()})
    return out.getvalue()


def record_view(room: classroom.Room, question_at: Callable[[int], classroom.Question],
                answer_name: str = "merge") -> None:
    """The lesson record (record_frame), and its CSV to download."""
    frame, rows = record_frame(room, question_at, answer_name)
    if frame.empty:
        st.caption("No votes yet: the record fills in as the class votes on hidden steps.")
        return
    st.caption("Per step and round: how many answered and how many were right (a tie with the winner counts); after a "
               "*Vote again*, the normalised gain over the first round: (after − before) ÷ (1 − before), the shares "
               "right (1: everyone who was wrong got it; 0: no change).")
    glossary.table(frame)  # (a first round's gain is an empty cell, not "None")
    st.download_button("Download the record (CSV)", data=record_csv(rows, answer_name), file_name=f"class-room-{room.code}.csv",
                       mime="text/csv", icon=":material/download:", on_click="ignore",
                       help=f"One row per vote: step, round, nickname, choice, whether it was right, the {answer_name}. "
                            "Nicknames only: nothing else identifies a student.")
