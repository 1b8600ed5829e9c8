"""wordpiece_ui/classroom.py, room_teacher.py and room_student.py in AppTest: the teacher's and the students'
views of a live class room.

Every AppTest here is a separate session of one process, as the browser tabs of a class are sessions of
one server; the rooms live in this test run's data folder (conftest.py)."""

from __future__ import annotations

import re
import sqlite3
import time

import pytest

import pandas as pd

from helpers import TOY, app, everything, shown
from wordpiece_core import TrainerConfig, train
from wordpiece_ui import classroom, room_teacher, rooms, state, tables

pytest.importorskip("streamlit.testing.v1")  # AppTest

TOY_LINK = {"corpus": "course-toy", "algorithm": "wordpiece", "step": 1}


def button(at, label):
    found = [b for b in at.button if b.label == label]
    assert found, f"no button {label!r}: {[b.label for b in at.button]}"
    return found[0]


def labels(at) -> list[str]:
    return [b.label for b in at.button]


def texts(at) -> str:
    return everything(at)


def start_room():
    """A teacher on the toy corpus starts a room: (teacher's AppTest, code, teacher token)."""
    teacher = app(**TOY_LINK)
    button(teacher, "Start a class room").click().run()
    assert not teacher.exception, teacher.exception
    return teacher, teacher.session_state[state.ROOM], teacher.session_state[state.ROOM_TEACHER]


def join(code, **extra):
    student = app(room=code, **extra)
    assert student.session_state[state.ROOM] == code
    return student


def vote_radio(at):
    found = [r for r in at.radio if r.label.startswith("Your vote")]
    assert found, [r.label for r in at.radio]
    return found[0]


def snapshot(code):
    return classroom.store().snapshot(code)


@pytest.mark.slow
def test_a_teacher_starts_a_room_and_the_token_never_reaches_the_address_bar():
    teacher, code, token = start_room()
    assert rooms.normal_code(code) == code and len(code) >= 6
    params = dict(teacher.query_params)
    assert params["room"] == code and params["role"] == "teacher"
    assert token not in str(params) and "teacher" not in params  # the projector shows the address bar
    body = texts(teacher)
    assert f"Class room {code}" in body
    assert f"/class/{code}" in body  # the student link (the phone page), under its QR code
    assert token not in body  # the teacher link is drawn only while its popover is open
    assert {"Close the room", "Show answers", "Reveal the merge"} <= set(labels(teacher))
    assert "0 of 0 answered" in body
    assert teacher.session_state[state.QUIZ] is True  # a room asks first
    # settings fixed while the room is open
    assert all(w.disabled for w in teacher.sidebar.selectbox if w.label in ("Corpus", "Normalizer"))


@pytest.mark.slow
def test_the_teacher_link_reopens_control_and_a_forged_one_gives_none():
    _, code, token = start_room()
    again = app(room=code, teacher=token)
    assert again.session_state[state.ROOM_TEACHER] == token
    assert "Close the room" in labels(again) and "teacher" not in dict(again.query_params)
    forged = app(room=code, teacher="x" * 32)
    assert state.ROOM_TEACHER not in forged.session_state
    assert forged.session_state[state.ROOM_STUDENT]  # joined as a student instead
    assert not {"Close the room", "Show answers", "Reveal the merge"} & set(labels(forged))
    assert "teacher part is not this room's" in texts(forged)
    with pytest.raises(rooms.NotAllowed):
        classroom.store().reveal(code, "x" * 32, 1)


@pytest.mark.slow
def test_a_student_joins_with_a_nickname_votes_once_and_keeps_the_vote_after_a_reload():
    _, code, _ = start_room()
    student = join(code)
    token = student.session_state[state.ROOM_STUDENT]
    nickname = student.session_state[state.ROOM_NICKNAME]
    assert dict(student.query_params)["student"] == token
    assert f"Class room {code}" in texts(student) and nickname in texts(student)
    # no teacher controls, no projector toggles, no downloads that give away merges
    assert not {"Close the room", "Show answers", "Reveal the merge", "Start a class room"} & set(labels(student))
    assert not [t for t in student.toggle if t.label in ("Ask first (quiz)", "Presenter mode")]
    assert not [d for d in student.get("download_button")]
    assert "which pair merges next?" in shown(student.header[0].value)
    radio = vote_radio(student)
    radio.set_value("##u + ##g").run()
    assert "Your vote is in: ##u + ##g" in texts(student)
    radio = vote_radio(student)
    radio.set_value("##g + ##s").run()  # a changed mind: still one vote
    assert snapshot(code).answered == 1
    assert classroom.store().tally(code, 1) == {1: {"##g + ##s": 1}}
    reloaded = join(code, student=token)  # a reload: the link keeps the token
    assert reloaded.session_state[state.ROOM_NICKNAME] == nickname
    assert "Your vote is in: ##g + ##s" in texts(reloaded)
    assert snapshot(code).members == 1


@pytest.mark.slow
def test_show_answers_vote_again_and_reveal_with_the_share_right_in_each_round():
    teacher, code, _ = start_room()
    students = [join(code) for _ in range(3)]
    for s, pair in zip(students, ["##g + ##s", "##u + ##g", "##u + ##g"]):
        vote_radio(s).set_value(pair).run()
    teacher.run()
    assert "3 of 3 answered" in texts(teacher)
    assert "##u + ##g" not in " ".join(c.value for c in teacher.caption if "Round" in c.value)  # no spread yet
    button(teacher, "Show answers").click().run()
    assert "Round 1: ##u + ##g 2, ##g + ##s 1" in texts(teacher)  # the histogram's numbers
    late = vote_radio(students[0]) if [r for r in students[0].run().radio if r.label.startswith("Your vote")] else None
    assert late is None  # the round is closed: no vote box
    button(teacher, "Vote again").click().run()
    for s, pair in zip(students, ["##g + ##s", "##g + ##s", "##u + ##g"]):
        s.run()
        vote_radio(s).set_value(pair).run()
    button(teacher, "Show answers").click().run()
    assert "Round 1: ##u + ##g 2, ##g + ##s 1 · Round 2: ##g + ##s 2, ##u + ##g 1" in texts(teacher)  # side by side
    button(teacher, "Reveal the merge").click().run()
    body = texts(teacher)
    assert "Step 1 of 9:  ##g + ##s → ##gs" in shown(teacher.header[0].value)
    assert "round 1: 1 of 3 right (33%)" in body and "round 2: 2 of 3 right (67%)" in body
    # why the most chosen wrong pair of the last round lost, with both scores
    assert "1 chose it in round 2. Not this one: ##u + ##g has score 1/36 against score 1/20 for ##g + ##s" in body
    # the votes stay drawn after the reveal, the right bar marked
    assert [c for c in teacher.get("vega_lite_chart") if '"test": "datum.right"' in c.proto.spec]
    assert "Round 1: ##u + ##g 2, ##g + ##s 1 · Round 2: ##g + ##s 2, ##u + ##g 1" in texts(teacher)
    students[1].run()
    assert "##g + ##s → ##gs" in shown(students[1].header[0].value)  # the student sees the reveal
    assert "You chose ##g + ##s: Right" in texts(students[1])


def room_row(at) -> list[tuple[str, str, bool]]:
    """The projector's room buttons: (label, key, disabled), in their order."""
    return [(b.label, b.key, b.disabled) for b in at.button if b.key and b.key.startswith("room_")
            and b.key.split()[0] in ("room_show", "room_again", "room_reveal")]


@pytest.mark.slow
def test_the_projectors_room_buttons_keep_their_places_and_keys_through_the_rounds():
    """A button replaced in place by another (*Show answers* by *Vote again*, or a key with the round in
    it) is a new element to the browser, which kept the old one on screen beside it; the next press made it vanish
    and the row moved under the pointer. All three are always drawn, with the step's keys; one is disabled."""
    teacher, code, _ = start_room()
    vote_radio(join(code)).set_value("##g + ##s").run()
    teacher.run()
    row = [("Show answers", "room_show 1", False), ("Vote again", "room_again 1", True),
           ("Reveal the merge", "room_reveal 1", False)]
    assert room_row(teacher) == row
    button(teacher, "Show answers").click().run()
    assert room_row(teacher) == [("Show answers", "room_show 1", True), ("Vote again", "room_again 1", False),
                                 ("Reveal the merge", "room_reveal 1", False)]
    button(teacher, "Vote again").click().run()
    assert snapshot(code).round == 2 and room_row(teacher) == row  # round 2: the same buttons, the same keys
    version = snapshot(code).version
    # a late press of round 1's *Show answers* (its click carries round 1) changes nothing
    assert not classroom.store().show_answers(code, teacher.session_state[state.ROOM_TEACHER], 1, round_=1)
    assert snapshot(code).version == version and not snapshot(code).shown


def countdown_control(at):
    return [g for g in at.button_group if g.key and g.key.startswith("room_countdown")][0]


@pytest.mark.slow
def test_the_teachers_countdown_closes_the_vote_and_is_shown_on_the_projector():
    teacher, code, _ = start_room()
    student = join(code)
    control = countdown_control(teacher)
    assert control.key == "room_countdown 1" and not control.disabled and control.value is None
    control.set_value(30).run()
    snap = snapshot(code)
    assert snap.closes > 0 and 25 < snap.seconds_left <= 30 and snap.voting
    count_line = [m.value for m in teacher.markdown if "answered" in m.value][0]
    assert re.search(r"0 of \d+ answered · 0:(30|29|28) left", count_line), count_line
    control = countdown_control(teacher)
    assert control.value is None and control.disabled  # one countdown a round: the control rests
    student.run()
    assert "countdown closes this vote in" in texts(student)
    with sqlite3.connect(classroom.store().path) as db:  # the half minute is over
        db.execute("UPDATE room_steps SET closes = ? WHERE code = ?", (time.time() - 1, code))
    teacher.run()
    assert "0 of 1 answered · time is up" in texts(teacher)
    student.run()
    assert "Time is up: the vote is closed" in texts(student) and not [
        r for r in student.radio if r.label.startswith("Your vote")]
    button(teacher, "Show answers").click().run()
    button(teacher, "Vote again").click().run()
    assert snapshot(code).seconds_left is None and not countdown_control(teacher).disabled  # a new round, none yet


@pytest.mark.slow
def test_a_student_follows_the_teacher_cannot_pass_it_and_a_late_joiner_lands_on_its_step():
    teacher, code, _ = start_room()
    student = join(code)
    assert button(student, "Next").disabled  # the teacher's step is the last one a student may see
    button(teacher, "Reveal the merge").click().run()
    button(teacher, "Next").click().run()
    assert snapshot(code).step == 2
    student.run()  # the page's poll (a fragment) sees the teacher's Next and reruns the page
    assert "Step 2 of 9:  which pair merges next?" in shown(student.header[0].value)
    button(student, "Prev").click().run()  # looking back at a revealed step
    assert "##g + ##s → ##gs" in shown(student.header[0].value)
    assert "Back to the class (step 2)" in labels(student)
    button(student, "Back to the class (step 2)").click().run()
    assert "Step 2 of 9" in shown(student.header[0].value)
    # the slider spans every step whatever the teacher's (a slider whose range changed would be a new widget, and
    # the browser's last request for the old one sent the view a step back); a drag past the class stops there
    slider = student.slider(key=f"{state.STEP}:slider")
    assert slider.max == 9
    slider.set_value(7).run()
    assert "Step 2 of 9" in shown(student.header[0].value)
    assert student.slider(key=f"{state.STEP}:slider").value == 2
    late = join(code)
    assert "Step 2 of 9:  which pair merges next?" in shown(late.header[0].value)
    assert vote_radio(late)  # may vote: the vote is open


@pytest.mark.slow
def test_close_the_room_makes_it_read_only_and_offers_to_go_on_alone():
    teacher, code, token = start_room()
    student = join(code)
    button(teacher, "Close the room").click().run()
    assert "closed (read-only)" in texts(teacher)
    with pytest.raises(rooms.NotAllowed):
        classroom.store().vote(code, student.session_state[state.ROOM_STUDENT], 1, 1, "##g + ##s")
    student.run()
    assert "closed this class room" in texts(student)
    assert [d for d in student.get("download_button")]  # the downloads are back
    button(student, "Continue alone").click().run()
    assert state.ROOM not in student.session_state
    assert "room" not in dict(student.query_params)
    assert "Start a class room" in labels(student)


def test_a_wrong_code_says_so_in_one_line_and_the_page_works_alone():
    at = app(room="QQQQQ9", **TOY_LINK)
    assert "There is no class room 'QQQQQ9'" in texts(at)
    assert "Step 1 of 9" in shown(at.header[0].value)
    assert state.ROOM not in at.session_state
    hostile = app(room="<b>**x**</b>" + "A" * 5000)
    assert not hostile.exception
    warning = [w.value for w in hostile.warning if "class room" in w.value][0]
    assert "<b>" not in warning.replace("\\<b\\>", "") and len(warning) < 400


def test_a_code_typed_in_the_sidebar_joins_the_room():
    _, code, _ = start_room()
    at = app(page="pages/playground.py")
    box = [t for t in at.sidebar.text_input if t.label == "Join a class room"][0]
    box.input(code.lower()[:3] + "-" + code.lower()[3:]).run()
    assert at.session_state[state.ROOM] == code
    assert at.session_state[state.ROOM_STUDENT]


def test_a_nickname_is_text_and_cut():
    _, code, _ = start_room()
    student = join(code)
    hostile = "**bold** <script>alert(1)</script> [x](javascript:alert(1))" + "z" * 10_000
    box = [t for t in student.text_input if t.key == state.ROOM_NICKNAME_BOX][0]
    box.input(hostile[:rooms.NICKNAME_CHARS]).run()
    nickname = student.session_state[state.ROOM_NICKNAME]
    assert nickname == hostile[:rooms.NICKNAME_CHARS].strip()
    bar = [m.value for m in student.markdown if "you are" in m.value][0]
    assert "\\*\\*bold\\*\\*" in bar  # escaped: shown as typed, never as Markdown
    assert classroom.store().rename(code, student.session_state[state.ROOM_STUDENT], hostile) == hostile[:rooms.NICKNAME_CHARS]


def test_a_teachers_tab_without_its_token_asks_for_the_teacher_link():
    _, code, token = start_room()
    tab = app(room=code, role="teacher")  # the teacher's address bar after a restart
    assert state.ROOM_STUDENT not in tab.session_state  # not a phantom student
    assert "This tab ran class room" in texts(tab)
    box = [t for t in tab.text_input if t.label == "Teacher link"][0]
    box.input(f"http://localhost:8501/?room={code}&teacher={token}").run()
    assert tab.session_state[state.ROOM_TEACHER] == token
    assert "Close the room" in labels(tab)


def test_the_record_counts_each_round_and_its_csv_names_nicknames_only():
    teacher, code, _ = start_room()
    student = join(code)
    classroom.store().rename(code, student.session_state[state.ROOM_STUDENT], "=HYPERLINK(1)")
    vote_radio(student).set_value("##g + ##s").run()
    room = classroom.Room(snapshot(code), teacher.session_state[state.ROOM_TEACHER], None)
    training = train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=30))
    table = tables.candidates_frame(training.steps.candidates(0), "wordpiece")
    question = classroom.Question(("##g + ##s", "##u + ##g"), "##g + ##s",
                                  lambda choice: tables.judge_guess(table, choice, "wordpiece"))
    frame, rows = room_teacher.record_frame(room, lambda step: question)
    assert frame.to_dict("records") == [{"step": 1, "merge": "##g + ##s", "round": 1, "answered": 1, "right": 1,
                                         "right %": 100, "normalised gain": None}]
    csv = room_teacher.record_csv(rows)
    assert csv.splitlines()[0] == "step,round,nickname,choice,right,merge"
    assert "'=HYPERLINK(1)" in csv  # a spreadsheet shows it as text, never runs it
    assert student.session_state[state.ROOM_STUDENT] not in csv
    assert isinstance(frame, pd.DataFrame)


@pytest.mark.slow
def test_rooms_off_when_the_data_folder_cannot_be_written(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("WORDPIECE_LAB_DATA", str(blocker / "data"))
    classroom.store.clear()
    try:
        at = app(**TOY_LINK)
        start = button(at, "Start a class room")
        assert start.disabled
        assert "Class rooms are off on this server" in texts(at)
        assert "Step 1 of 9" in shown(at.header[0].value)  # everything else works
        off = app(room="ABCDEF")
        assert "Class rooms are off" in texts(off)
    finally:
        monkeypatch.undo()
        classroom.store.clear()


@pytest.mark.slow
def test_a_pasted_corpus_goes_with_the_room_and_is_pinned_while_it_lives():
    import time

    from wordpiece_ui import user_files

    teacher = app(corpus="paste")
    text = "zebra zebras zebu zebu zeal zealous\n" * 4
    teacher.text_area(key="paste_text").set_value(text).run()
    heading = shown(teacher.header[0].value)
    button(teacher, "Start a class room").click().run()
    code = teacher.session_state[state.ROOM]
    settings = snapshot(code).settings
    assert settings["corpus"] == "paste" and settings["corpus_id"]
    kept = user_files.data_store().find(settings["corpus_id"])
    assert kept is not None and kept.pinned_until > time.time() + 3600  # kept however long nobody pastes it
    student = join(code)
    assert student.text_area(key="paste_text").value == text  # the same corpus, fixed
    assert student.text_area(key="paste_text").disabled
    assert shown(student.header[0].value) == heading.replace(heading.split(":", 1)[1], "  which pair merges next?")


@pytest.mark.slow
def test_a_student_in_an_open_room_cannot_see_the_training_on_other_pages():
    teacher, code, _ = start_room()
    student = join(code)
    token = student.session_state[state.ROOM_STUDENT]
    for page in ("pages/compare.py", "pages/playground.py"):
        student.switch_page(page).run()
        assert not student.exception, student.exception
        assert f"You are in class room {code}: this page would show the steps" in texts(student)
        assert not student.dataframe and not student.get("vega_lite_chart")  # nothing of the training
        assert dict(student.query_params)["student"] == token  # a reload stays in the room
    button(teacher, "Close the room").click().run()
    student.switch_page("pages/compare.py").run()
    assert "this page would show the steps" not in texts(student)  # a closed room hides nothing


@pytest.mark.slow
def test_a_step_the_teacher_passed_without_revealing_stays_hidden_from_the_class():
    teacher, code, _ = start_room()
    button(teacher, "Next").click().run()  # step 1 never revealed
    button(teacher, "Reveal the merge").click().run()  # step 2 revealed
    student = join(code)
    assert "Step 2 of 9:  h + ##u → hu" in shown(student.header[0].value)
    button(student, "Prev").click().run()
    assert "Step 1 of 9:  which pair merges next?" in shown(student.header[0].value)
    assert "The class votes on this merge when the teacher is on it" in texts(student)
    assert not [r for r in student.radio if r.label.startswith("Your vote")]
    button(teacher, "Prev").click().run()  # the teacher goes back: the class may still see step 2
    student.run()
    assert not button(student, "Next").disabled


@pytest.mark.slow
def test_after_close_the_teacher_can_still_reveal_alone():
    teacher, code, _ = start_room()
    button(teacher, "Close the room").click().run()
    assert "Show answers" not in labels(teacher)
    button(teacher, "Reveal the merge").click().run()  # the quiz on its own, as before the room
    assert "##g + ##s → ##gs" in shown(teacher.header[0].value)


def test_a_mistyped_code_in_the_sidebar_says_so_there():
    at = app(page="pages/playground.py")
    box = [t for t in at.sidebar.text_input if t.label == "Join a class room"][0]
    box.input("ZZZZZ").run()
    assert state.ROOM not in at.session_state
    assert [w for w in at.sidebar.warning if "There is no class room 'ZZZZZ'" in w.value]


def test_a_browser_that_never_got_its_last_step_is_redrawn_once_a_poll_later(monkeypatch):
    """classroom.browser_behind: the address bar a request carries (`step=`) against the step the step view last
    drew. A request that crossed the new page on its way is no sign; the same old step a poll later is, and the
    slider's old value meanwhile stays no drag; at most BEHIND_REDRAWS redraws for one step."""
    from types import SimpleNamespace

    from wordpiece_ui import stepper

    fake = SimpleNamespace(session_state={}, query_params={})
    monkeypatch.setattr(classroom, "st", fake)
    monkeypatch.setattr(stepper, "st", fake)
    key = state.STEP
    fake.session_state.update({f"{key}:drawn": 3, f"{key}:echo": (2, 0.0)})
    fake.query_params["step"] = "3"
    assert not classroom.browser_behind(100.0)  # the browser shows what was drawn
    fake.query_params["step"] = "2"
    assert not classroom.browser_behind(101.0)  # a request sent before the page arrived
    assert fake.session_state[f"{key}:echo"][1] > 0.0  # the slider's old value: still an echo, not a drag
    assert classroom.browser_behind(101.0 + classroom.POLL_SECONDS)  # still behind a poll later: redraw
    fake.query_params["step"] = "3"
    assert not classroom.browser_behind(103.0) and classroom.BEHIND_SINCE not in fake.session_state  # caught up
    fake.query_params["step"] = "2"
    redraws = sum(classroom.browser_behind(200.0 + i) for i in range(20))
    assert redraws == classroom.BEHIND_REDRAWS  # a browser that stays behind is not redrawn for ever
    fake.session_state[f"{key}:drawn"] = 4  # a new step drawn: counted again
    assert not classroom.browser_behind(300.0) and classroom.browser_behind(301.0)


def test_the_teacher_token_is_never_drawn_on_the_projected_tab():
    """The teacher's tab is the projector's: its token is in no element (and not in the address bar); the
    *Teacher link* panel downloads it, or draws it after a second click that says it is secret."""
    teacher, code, token = start_room()
    button(teacher, "Next").click().run()
    assert token not in texts(teacher) and token not in str(dict(teacher.query_params))


def test_a_student_the_teacher_took_out_is_told_and_a_locked_room_takes_no_one_new():
    teacher, code, token = start_room()
    student = join(code)
    member = next(s.member for s in classroom.store().roster(code))
    classroom.store().remove_student(code, token, member)
    student.run()
    assert state.ROOM not in student.session_state
    assert f"The teacher took you out of class room {code}." in texts(student)
    classroom.store().lock(code, token, True)
    late = app(room=code)
    assert state.ROOM not in late.session_state
    assert f"You could not join the class room {code}: the teacher has locked the room" in texts(late)


def test_the_normalised_gain_of_a_second_round_is_what_the_discussion_won_of_what_it_could():
    summary = {(1, 1): [4, 1], (1, 2): [4, 3], (2, 1): [2, 2], (2, 2): [2, 1], (3, 1): [5, 0], (3, 2): [5, 0]}
    assert room_teacher.gain(summary, 1, 1) is None  # a first round gains nothing over itself
    assert room_teacher.gain(summary, 1, 2) == round((0.75 - 0.25) / 0.75, 2) == 0.67
    assert room_teacher.gain(summary, 2, 2) is None  # everyone was right already: no room to gain
    assert room_teacher.gain(summary, 3, 2) == 0.0
