"""wordpiece_ui/phone_room.py: the class room's page for a student's phone, through its routes (Starlette's test
client against the app's own routes) and with the card a teacher's page writes (AppTest)."""

from __future__ import annotations

import json
import re
import threading

import pandas as pd
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from wordpiece_ui import classroom, phone_room
from wordpiece_ui.rooms import RoomStore


class _Question:
    def __init__(self, choices, answer):
        self.choices, self.answer = choices, answer

    def judge(self, choice):
        return (choice == self.answer, f"Right: {choice} wins." if choice == self.answer else f"Not {choice}.")


class _View:
    """A step view as phone_room.card reads it (lesson.StepView's names)."""

    steps, noun, ask, vote_kind, answer_name = 9, "step", "which pair merges next?", "pair", "merge"

    def __init__(self, choices, answer):
        self.q = _Question(choices, answer)

    def question(self, number):
        return self.q

    def hint(self):
        return "score = count(ab)"

    def choices_table(self, number):
        return pd.DataFrame({"pair": list(self.q.choices), "count(ab)": [1200 + i for i in range(len(self.q.choices))]})


CHOICES = ("##g + ##s", "<b>h</b> + ##u", "p + ##u")


@pytest.fixture()
def room(tmp_path, monkeypatch):
    """A room at step 1, asking first, with its card; (store, code, teacher token, client)."""
    rooms = RoomStore(str(tmp_path))
    monkeypatch.setattr(classroom, "store", lambda: rooms)
    code, token = rooms.create({"corpus": "course-toy"}, step=1, quiz=True)
    rooms.set_step(code, token, 1, True, phone_room.card(_View(CHOICES, "##g + ##s"), 1))
    client = TestClient(Starlette(routes=phone_room.routes()))
    return rooms, code, token, client


def _join(client, code, **body):
    r = client.post(f"/class/{code}/join", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_the_page_is_one_file_that_loads_nothing_from_elsewhere(room):
    _, code, _, client = room
    r = client.get(f"/class/{code}")
    assert r.status_code == 200 and f"Class room {code}" in r.text
    policy = r.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy
    assert not re.search(r"(src|href)=\"(https?:)?//", r.text)  # no other host
    assert "innerHTML" not in r.text  # the server's texts are put on the page as text
    assert client.get("/class/not-a-code!").status_code == 404


def test_joining_twice_from_one_browser_is_one_student(room):
    rooms, code, _, client = room
    first = _join(client, code)
    assert first["you"] and client.cookies.get(classroom.device_cookie(code))
    again = _join(client, code)  # scanned again: the cookie names the same student
    assert again["you"] == first["you"] and rooms.snapshot(code).members == 1
    other = TestClient(Starlette(routes=phone_room.routes()))
    assert _join(other, code, nickname="Ada")["you"] == "Ada" and rooms.snapshot(code).members == 2


def test_a_hidden_step_keeps_its_answer_on_the_server_until_the_reveal(room):
    rooms, code, token, client = room
    s = _join(client, code)
    assert s["hidden"] and s["voting"] and [c["text"] for c in s["card"]["choices"]] == list(CHOICES)
    assert s["card"]["columns"] == ["count(ab)"] and s["card"]["choices"][0]["facts"] == ["1,200"]
    assert "answer" not in s and "verdicts" not in s["card"] and "##g + ##s\": [true" not in json.dumps(s)
    voted = client.post(f"/class/{code}/vote", json={"step": 1, "round": 1, "choice": "<b>h</b> + ##u"}).json()
    assert voted["mine"] == "<b>h</b> + ##u" and rooms.tally(code, 1) == {1: {"<b>h</b> + ##u": 1}}
    assert "answer" not in voted and voted["tally"] == {}  # the spread waits for *Show answers*
    rooms.show_answers(code, token, 1)
    shown = client.get(f"/class/{code}/state").json()
    assert not shown["voting"] and shown["tally"] == {"1": {"<b>h</b> + ##u": 1}} and "answer" not in shown
    rooms.reveal(code, token, 1)
    revealed = client.get(f"/class/{code}/state").json()
    assert not revealed["hidden"] and revealed["answer"] == "##g + ##s"
    assert revealed["verdict"] == [False, "Not <b>h</b> + ##u."]


def test_a_vote_is_refused_in_one_line_when_it_is_not_a_choice_or_the_vote_is_over(room):
    rooms, code, token, client = room
    _join(client, code)
    r = client.post(f"/class/{code}/vote", json={"step": 1, "round": 1, "choice": "x + y"})
    assert r.status_code == 409 and "not one of this step's choices" in r.json()["error"]
    rooms.show_answers(code, token, 1)
    r = client.post(f"/class/{code}/vote", json={"step": 1, "round": 1, "choice": CHOICES[0]})
    assert r.status_code == 409 and "\n" not in r.json()["error"] and rooms.tally(code, 1) == {}
    stranger = TestClient(Starlette(routes=phone_room.routes()))  # no cookie: not a member
    assert stranger.post(f"/class/{code}/vote", json={"step": 1, "round": 1, "choice": CHOICES[0]}).status_code == 400


@pytest.mark.parametrize("how", ["form", "huge", "not an object"])
def test_a_post_that_is_not_a_small_json_object_is_refused(room, how):
    _, code, _, client = room
    if how == "form":
        r = client.post(f"/class/{code}/join", data={"nickname": "x"})
    elif how == "huge":
        r = client.post(f"/class/{code}/join", json={"nickname": "x" * (phone_room.BODY_BYTES + 1)})
    else:
        r = client.post(f"/class/{code}/join", json=["x"])
    assert r.status_code == 400 and not client.cookies.get(classroom.device_cookie(code))


def test_a_locked_room_says_why_a_new_phone_cannot_join(room):
    rooms, code, token, client = room
    rooms.lock(code, token, True)
    r = client.post(f"/class/{code}/join", json={})
    assert r.status_code == 403 and "locked" in r.json()["error"]


def test_the_state_waits_for_the_teacher_and_answers_when_the_room_moves(room):
    rooms, code, token, client = room
    tag = _join(client, code)["tag"]
    mover = threading.Timer(0.3, lambda: rooms.set_step(code, token, 2, True,
                                                         phone_room.card(_View(CHOICES, "p + ##u"), 2)))
    mover.start()
    moved = client.get(f"/class/{code}/state", params={"since": tag}).json()
    mover.join()
    assert moved["step"] == 2 and moved["card"]["step"] == 2 and moved["tag"] != tag


def test_the_state_answers_at_once_when_the_phone_is_behind(room, monkeypatch):
    _, code, _, client = room
    s = _join(client, code)
    monkeypatch.setattr(phone_room, "_sleep_until_change", None)  # a wait would fail: none may happen
    again = client.get(f"/class/{code}/state", params={"since": "an old tag"}).json()
    assert again["tag"] == s["tag"] and again["you"] == s["you"]


def test_an_expired_or_mistyped_room_is_gone(room):
    _, _, _, client = room
    assert client.get("/class/ABCDEF/state").json()["gone"] is True
    r = client.post("/class/ABCDEF/join", json={})
    assert r.status_code == 403 and "no such room" in r.json()["error"]


def test_a_renamed_student_keeps_their_votes(room):
    rooms, code, _, client = room
    _join(client, code)
    client.post(f"/class/{code}/vote", json={"step": 1, "round": 1, "choice": CHOICES[2]})
    renamed = client.post(f"/class/{code}/name", json={"nickname": "Grace"}).json()
    assert renamed["you"] == "Grace" and renamed["mine"] == CHOICES[2]
    assert [row[2] for row in rooms.record(code)] == ["Grace"]


@pytest.mark.slow
def test_the_teachers_page_writes_the_steps_card_with_the_questions_choices():
    """The Train page of a teacher (AppTest) writes, with the class's step, what the phones show of it: the
    vote's choices in the question's order with their counts, and the answer the phones get after the reveal."""
    from test_classroom import start_room

    teacher, code, token = start_room()
    rooms = classroom.store()
    found = rooms.card(code, 1)
    assert found is not None and found["step"] == 1 and found["kind"] == "pair"
    texts = [c["text"] for c in found["choices"]]
    assert texts == sorted(texts) and found["answer"] in texts and found["columns"][0] == "count(ab)"
    s = phone_room.student_state(rooms, code, rooms.join(code).token)
    assert s["hidden"] and "answer" not in s and [c["text"] for c in s["card"]["choices"]] == texts


def test_a_card_past_its_limit_is_not_kept_but_the_class_still_follows(room):
    from wordpiece_ui.rooms import CARD_CHARS

    rooms, code, token, client = room
    _join(client, code)
    rooms.set_step(code, token, 2, True, {"ask": "x" * CARD_CHARS})
    assert rooms.snapshot(code).step == 2 and rooms.card(code, 2) is None
    s = client.get(f"/class/{code}/state").json()
    assert s["step"] == 2 and s["card"] is None  # the page says it cannot show the step, and links the full one


def test_a_round_with_nothing_to_vote_on_shows_no_choice_and_takes_no_vote(room):
    """A Unigram round whose candidates all cost the same: the view offers no choices table, so the card has no
    choices (before: the question's one choice, the answer itself, was a button on every phone)."""
    rooms, code, token, client = room

    class Tied(_View):
        def choices_table(self, number):
            return pd.DataFrame(columns=["piece", "p"])

    rooms.set_step(code, token, 2, True, phone_room.card(Tied(("▁the",), "▁the"), 2))
    _join(client, code)
    s = client.get(f"/class/{code}/state").json()
    assert s["card"]["choices"] == [] and "▁the" not in json.dumps(s)
    r = client.post(f"/class/{code}/vote", json={"step": 2, "round": 1, "choice": "▁the"})
    assert r.status_code == 409 and rooms.tally(code, 2) == {}


@pytest.mark.parametrize("body", [b'{"nickname": "' + b"x" * 5000 + b'"}', b"[" * 3000 + b"]" * 3000])
def test_a_long_or_deep_body_is_refused_without_a_traceback(room, body):
    _, code, _, client = room
    r = client.post(f"/class/{code}/join", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "error" in r.json()


def test_a_vote_naming_an_absurd_step_or_round_is_refused(room):
    _, code, _, client = room
    _join(client, code)
    for step, round_ in ((10 ** 30, 1), (1, 10 ** 30), (0, 1), (1, -1)):
        r = client.post(f"/class/{code}/vote", json={"step": step, "round": round_, "choice": CHOICES[0]})
        assert r.status_code == 400, (step, round_, r.text)


def test_an_invented_token_writes_nothing(room, monkeypatch):
    rooms, code, _, client = room
    writes = []
    monkeypatch.setattr(rooms, "seen", lambda *a: writes.append(a))
    client.cookies.set(classroom.device_cookie(code), "an-invented-token-0123456789")
    assert client.get(f"/class/{code}/state").json()["you"] is None and writes == []


def test_a_countdown_reaches_the_phone_and_its_end_closes_the_vote(room):
    rooms, code, token, client = room
    me = _join(client, code)
    assert "closes" not in me and me["voting"]
    rooms.countdown(code, token, 1, 1, 60)
    first = client.get(f"/class/{code}/state", params={"since": me["tag"]}).json()
    assert first["voting"] and not first["time_up"] and first["closes"] - first["now"] == pytest.approx(60, abs=5)
    # the server's clock goes with each answer, outside the tag: a phone that is up to date still waits
    again = phone_room._with_tag(phone_room.student_state(rooms, code, client.cookies.get(classroom.device_cookie(code))),
                                 rooms)
    assert again["tag"] == first["tag"] and again["now"] >= first["now"]
    assert client.post(f"/class/{code}/vote", json={"step": 1, "round": 1, "choice": CHOICES[0]}).status_code == 200
    rooms.clock = lambda: first["closes"] + 1  # the minute is over
    phone_room._shared.clear()
    over = client.get(f"/class/{code}/state", params={"since": first["tag"]}).json()
    assert over["time_up"] and not over["voting"] and over["hidden"] and over["mine"] == CHOICES[0]
    r = client.post(f"/class/{code}/vote", json={"step": 1, "round": 1, "choice": CHOICES[1]})
    assert r.status_code == 409 and rooms.tally(code, 1) == {1: {CHOICES[0]: 1}}
    page = client.get(f"/class/{code}").text
    assert "left to answer" in page and "Time is up" in page


def test_a_typed_address_gives_a_code_box_that_opens_the_room(room):
    _, code, _, client = room
    for path in ("/class", "/class/"):
        r = client.get(path)
        assert r.status_code == 200 and "Join a class room" in r.text and 'id="code"' in r.text
        assert "default-src 'none'" in r.headers["content-security-policy"]
        assert not re.search(r"(src|href)=\"(https?:)?//", r.text) and "innerHTML" not in r.text
    assert 'href="/"' in client.get("/class").text  # the app's own pages, on their own
