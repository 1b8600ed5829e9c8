"""wordpiece_ui/rooms.py: the live class rooms' SQLite store (rooms, members, room_steps, votes).

One vote per (room, step, round, student) however often it is sent; the votes the store refuses (a shown or
revealed step, another step or round, a closed room, a stranger, no quiz) change nothing; *Vote again*;
the teacher's token; expiry and the present count with an injected clock; a restart, a kill -9 and two
processes voting at once; the schema (WAL, user_version) and a folder the store cannot use; nicknames,
codes and the record."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from helpers import Clock, cli_env
from wordpiece_ui import rooms
from wordpiece_ui.rooms import (CHOICE_CHARS, DB_NAME, MAX_MEMBERS, MAX_ROUNDS, NICKNAME_CHARS, PRESENT_SECONDS,
                                SCHEMA_VERSION, STALE_MEMBER_SECONDS, NotAllowed, RoomsOff, RoomStore, clean_nickname, normal_code,
                                valid_token, _hash)

HOUR = 3600.0
SETTINGS = {"algorithm": "wordpiece", "corpus": "toy", "vocab": "30"}


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(tmp_path, clock):
    s = RoomStore(str(tmp_path), idle_hours=24, clock=clock)
    assert s.on, s.problem
    return s


@pytest.fixture
def room(store):
    """An open room at step 1, asking first: (code, teacher token)."""
    return store.create(SETTINGS, step=1, quiz=True)


def rows(store, code):
    """Everything the database holds about one room, read around the store (what "changes nothing" compares)."""
    with sqlite3.connect(store.path) as db:
        return {table: sorted(db.execute(f"SELECT * FROM {table} WHERE code = ?", (code,)).fetchall())
                for table in ("rooms", "room_steps", "members", "votes")}


def count(store, table):
    with sqlite3.connect(store.path) as db:
        return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


# ----- one vote per (room, step, round, student) ----------------------------------------------------


def test_the_same_vote_twice_counts_once(store, room):
    code, _ = room
    ann = store.join(code, nickname="Ann")
    store.vote(code, ann.token, 1, 1, "h ##u")
    store.vote(code, ann.token, 1, 1, "h ##u")
    assert store.snapshot(code).answered == 1
    assert store.tally(code, 1) == {1: {"h ##u": 1}}
    assert store.my_votes(code, ann.token, 1) == {1: "h ##u"}
    assert count(store, "votes") == 1


def test_a_changed_vote_replaces_the_first(store, room):
    code, _ = room
    ann, bob = store.join(code, nickname="Ann"), store.join(code, nickname="Bob")
    store.vote(code, ann.token, 1, 1, "h ##u")
    store.vote(code, bob.token, 1, 1, "h ##u")
    store.vote(code, ann.token, 1, 1, "##u ##g")
    assert store.snapshot(code).answered == 2
    assert store.tally(code, 1) == {1: {"##u ##g": 1, "h ##u": 1}}
    assert store.my_votes(code, ann.token, 1) == {1: "##u ##g"}


@pytest.mark.slow
def test_a_burst_of_500_votes_from_one_student_counts_once(store, room):
    code, _ = room
    ann, bob = store.join(code, nickname="Ann"), store.join(code, nickname="Bob")
    store.vote(code, bob.token, 1, 1, "p ##u")
    choices = ["h ##u", "##u ##g", "p ##u"]
    for i in range(500):
        store.vote(code, ann.token, 1, 1, choices[i % 3])
    last = choices[499 % 3]
    assert last == "##u ##g"
    snap = store.snapshot(code)
    assert snap.answered == 2 and snap.members == 2
    assert store.tally(code, 1) == {1: {"##u ##g": 1, "p ##u": 1}}
    assert store.my_votes(code, ann.token, 1) == {1: last}
    assert [r for r in store.record(code) if r[2] == ann.nickname] == [(1, 1, ann.nickname, "pair", last)]
    assert count(store, "votes") == 2


def _voted(store, code):
    """A room with two members; Ann voted "h ##u" in round 1 at step 1. Ann's and Bob's tokens."""
    ann, bob = store.join(code, nickname="Ann"), store.join(code, nickname="Bob")
    store.vote(code, ann.token, 1, 1, "h ##u")
    return ann.token, bob.token


def _refused(store, code, vote):
    """`vote()` raises NotAllowed and leaves every row of the room as it was."""
    before = rows(store, code)
    snap = store.snapshot(code)
    with pytest.raises(NotAllowed):
        vote()
    assert rows(store, code) == before
    assert store.snapshot(code) == snap


def test_a_vote_after_the_answers_are_shown_is_refused(store, room):
    code, teacher = room
    ann, bob = _voted(store, code)
    store.show_answers(code, teacher, 1)
    assert not store.snapshot(code).voting
    _refused(store, code, lambda: store.vote(code, ann, 1, 1, "##u ##g"))  # a change
    _refused(store, code, lambda: store.vote(code, bob, 1, 1, "##u ##g"))  # a late first vote
    assert store.tally(code, 1) == {1: {"h ##u": 1}}


def test_a_vote_after_the_reveal_is_refused(store, room):
    code, teacher = room
    ann, bob = _voted(store, code)
    store.reveal(code, teacher, 1)
    snap = store.snapshot(code)
    assert snap.revealed and snap.shown and not snap.voting
    _refused(store, code, lambda: store.vote(code, ann, 1, 1, "##u ##g"))
    _refused(store, code, lambda: store.vote(code, bob, 1, 1, "##u ##g"))
    assert store.tally(code, 1) == {1: {"h ##u": 1}}


def test_a_vote_at_another_step_than_the_teachers_is_refused(store, room):
    code, teacher = room
    ann, bob = _voted(store, code)
    _refused(store, code, lambda: store.vote(code, bob, 2, 1, "p ##u"))  # ahead of the teacher
    store.set_step(code, teacher, 3)
    _refused(store, code, lambda: store.vote(code, ann, 1, 1, "##u ##g"))  # the step the teacher left
    _refused(store, code, lambda: store.vote(code, bob, 2, 1, "##u ##g"))
    store.vote(code, bob, 3, 1, "b ##u")  # the teacher's step is open
    assert store.tally(code, 1) == {1: {"h ##u": 1}} and store.tally(code, 2) == {}
    assert store.tally(code, 3) == {1: {"b ##u": 1}}


def test_a_vote_in_an_old_or_a_future_round_is_refused(store, room):
    code, teacher = room
    ann, bob = _voted(store, code)
    _refused(store, code, lambda: store.vote(code, bob, 1, 2, "p ##u"))  # round 2 is not open yet
    store.show_answers(code, teacher, 1)
    store.vote_again(code, teacher, 1)
    assert store.snapshot(code).round == 2
    _refused(store, code, lambda: store.vote(code, ann, 1, 1, "##u ##g"))  # round 1 is over
    _refused(store, code, lambda: store.vote(code, bob, 1, 1, "##u ##g"))
    store.vote(code, ann, 1, 2, "##u ##g")
    assert store.tally(code, 1) == {1: {"h ##u": 1}, 2: {"##u ##g": 1}}


def test_a_vote_in_a_closed_room_is_refused(store, room):
    code, teacher = room
    ann, bob = _voted(store, code)
    store.close(code, teacher)
    snap = store.snapshot(code)
    assert snap.closed and not snap.voting
    _refused(store, code, lambda: store.vote(code, ann, 1, 1, "##u ##g"))
    _refused(store, code, lambda: store.vote(code, bob, 1, 1, "##u ##g"))
    assert store.record(code) == [(1, 1, "Ann", "pair", "h ##u")]  # the record stays


def test_a_vote_by_a_stranger_is_refused(store, room):
    code, _ = room
    _voted(store, code)
    other_code, _ = store.create(SETTINGS)
    outsider = store.join(other_code, nickname="Eve")
    _refused(store, code, lambda: store.vote(code, outsider.token, 1, 1, "p ##u"))  # another room's student
    _refused(store, code, lambda: store.vote(code, "A" * 24, 1, 1, "p ##u"))  # a made-up token
    _refused(store, code, lambda: store.vote(code, "", 1, 1, "p ##u"))
    _refused(store, code, lambda: store.vote(code, room[1], 1, 1, "p ##u"))  # the teacher is not a student
    with pytest.raises(NotAllowed):
        store.vote("ZZZZZZ", outsider.token, 1, 1, "p ##u")  # no such room
    assert store.tally(code, 1) == {1: {"h ##u": 1}} and store.tally(other_code, 1) == {}


def test_no_vote_when_the_teacher_does_not_ask_first(store):
    code, teacher = store.create(SETTINGS, quiz=False)
    ann = store.join(code)
    assert not store.snapshot(code).voting
    _refused(store, code, lambda: store.vote(code, ann.token, 1, 1, "h ##u"))
    store.set_step(code, teacher, 2, quiz=True)
    store.vote(code, ann.token, 2, 1, "h ##u")
    store.set_step(code, teacher, 3, quiz=False)  # the quiz turned off mid-class
    _refused(store, code, lambda: store.vote(code, ann.token, 3, 1, "##u ##g"))
    assert store.tally(code, 2) == {1: {"h ##u": 1}} and store.tally(code, 3) == {}


def test_an_empty_or_too_long_choice_is_refused(store, room):
    code, _ = room
    ann, _bob = _voted(store, code)
    _refused(store, code, lambda: store.vote(code, ann, 1, 1, ""))
    _refused(store, code, lambda: store.vote(code, ann, 1, 1, "x" * (CHOICE_CHARS + 1)))
    store.vote(code, ann, 1, 1, "x" * CHOICE_CHARS)
    assert store.my_votes(code, ann, 1) == {1: "x" * CHOICE_CHARS}


# ----- vote again ----------------------------------------------------------------------------------


def test_vote_again_opens_round_2_only_after_the_answers_are_shown(store, room):
    code, teacher = room
    ann, bob = _voted(store, code)
    store.vote(code, bob, 1, 1, "##u ##g")
    store.vote_again(code, teacher, 1)  # the answers are not shown yet: still round 1
    snap = store.snapshot(code)
    assert snap.round == 1 and snap.voting and snap.answered == 2
    store.show_answers(code, teacher, 1)
    store.vote_again(code, teacher, 1)
    snap = store.snapshot(code)
    assert snap.round == 2 and snap.voting and not snap.shown and snap.answered == 0
    store.vote(code, ann, 1, 2, "##u ##g")
    assert store.snapshot(code).answered == 1
    assert store.tally(code, 1) == {1: {"##u ##g": 1, "h ##u": 1}, 2: {"##u ##g": 1}}  # round 1 is kept
    assert store.my_votes(code, ann, 1) == {1: "h ##u", 2: "##u ##g"}
    assert store.my_votes(code, bob, 1) == {1: "##u ##g"}
    assert store.record(code) == [(1, 1, "Ann", "pair", "h ##u"), (1, 1, "Bob", "pair", "##u ##g"),
                                  (1, 2, "Ann", "pair", "##u ##g")]


def test_vote_again_stops_at_max_rounds_and_after_the_reveal(store, room):
    code, teacher = room
    ann, _bob = _voted(store, code)
    for round_ in range(1, MAX_ROUNDS + 3):
        assert store.snapshot(code).round == min(round_, MAX_ROUNDS)
        store.show_answers(code, teacher, 1)
        store.vote_again(code, teacher, 1)
    snap = store.snapshot(code)
    assert snap.round == MAX_ROUNDS and snap.shown and not snap.voting  # no round after the last
    with pytest.raises(NotAllowed):
        store.vote(code, ann, 1, MAX_ROUNDS + 1, "h ##u")
    assert set(store.tally(code, 1)) == {1}

    store.set_step(code, teacher, 2)
    store.reveal(code, teacher, 2)
    store.vote_again(code, teacher, 2)  # a revealed merge is not voted on again
    snap = store.snapshot(code)
    assert snap.step == 2 and snap.round == 1 and snap.revealed and not snap.voting


def test_a_click_carries_its_round_and_a_second_press_or_a_late_one_changes_nothing(store, room, clock):
    """The projector's buttons send the round they were drawn for: a double click, a press from another tab or
    one that arrives after the round moved on changes nothing and wakes no page (the version stays)."""
    code, teacher = room
    _voted(store, code)
    assert store.show_answers(code, teacher, 1, 1) is True
    after_show = (rows(store, code), store.snapshot(code))
    clock.advance(5)
    assert store.show_answers(code, teacher, 1, 1) is False  # the second press of *Show answers*
    assert store.vote_again(code, teacher, 1, 2) is False  # a round that is not the current one
    assert (rows(store, code), store.snapshot(code)) == after_show
    assert store.vote_again(code, teacher, 1, 1) is True
    snap = store.snapshot(code)
    assert snap.round == 2 and not snap.shown and snap.version == after_show[1].version + 1
    assert store.vote_again(code, teacher, 1, 1) is False  # pressed twice: still round 2
    assert store.show_answers(code, teacher, 1, 1) is False  # round 1's *Show answers*, late: round 2 stays open
    assert store.snapshot(code) == snap
    store.reveal(code, teacher, 1)
    assert store.show_answers(code, teacher, 1, 2) is False  # revealed: nothing to show any more
    store.close(code, teacher)
    with pytest.raises(NotAllowed):
        store.vote_again(code, teacher, 1, 2)


# ----- the teacher's countdown ---------------------------------------------------------------------


def test_a_countdown_closes_the_vote_when_its_time_is_up(store, room, clock):
    code, teacher = room
    ann, bob = _voted(store, code)
    assert store.snapshot(code).seconds_left is None and store.snapshot(code).voting
    version = store.snapshot(code).version
    assert store.countdown(code, teacher, 1, 1, 30) is True
    snap = store.snapshot(code)
    assert snap.version == version + 1 and snap.seconds_left == 30 and snap.voting and not snap.time_up
    clock.advance(29.5)
    store.vote(code, bob, 1, 1, "h ##u")  # half a second left: counted
    store.vote(code, ann, 1, 1, "##u ##g")  # and a change of mind too
    clock.advance(0.5)
    snap = store.snapshot(code)
    assert snap.seconds_left == 0 and snap.time_up and not snap.voting and snap.hidden and not snap.shown
    _refused(store, code, lambda: store.vote(code, bob, 1, 1, "##u ##g"))
    assert store.tally(code, 1) == {1: {"##u ##g": 1, "h ##u": 1}}
    assert store.show_answers(code, teacher, 1, 1) is True  # the teacher shows the answers as usual
    snap = store.snapshot(code)
    assert snap.shown and not snap.time_up  # shown: the vote is over because the answers are out, not the clock


def test_a_countdown_is_started_once_per_round_and_vote_again_clears_it(store, room, clock):
    code, teacher = room
    _ann, bob = _voted(store, code)
    assert store.countdown(code, teacher, 1, 1, 15) is True
    assert store.countdown(code, teacher, 1, 1, 90) is False  # running: a second one changes nothing
    assert store.snapshot(code).seconds_left == 15
    clock.advance(20)
    assert store.countdown(code, teacher, 1, 1, 60) is False  # over: still over
    store.show_answers(code, teacher, 1, 1)
    store.vote_again(code, teacher, 1, 1)
    snap = store.snapshot(code)
    assert snap.round == 2 and snap.seconds_left is None and snap.voting  # round 2 starts with no countdown
    store.vote(code, bob, 1, 2, "h ##u")
    assert store.countdown(code, teacher, 1, 1, 30) is False  # round 1's control, pressed late
    assert store.countdown(code, teacher, 1, 2, 60) is True and store.snapshot(code).seconds_left == 60
    store.show_answers(code, teacher, 1, 2)
    assert store.countdown(code, teacher, 1, 2, 30) is False  # a shown round takes none


@pytest.mark.parametrize("seconds", [0, -5, 1e9, 31, float("nan")])
def test_only_the_offered_countdowns_are_taken(store, room, seconds):
    code, teacher = room
    with pytest.raises(NotAllowed):
        store.countdown(code, teacher, 1, 1, seconds)
    with pytest.raises(NotAllowed):  # and only from the teacher
        store.countdown(code, store.join(code).token, 1, 1, 30)
    assert store.snapshot(code).seconds_left is None


# ----- the teacher's token -------------------------------------------------------------------------


ACTIONS = {
    "set_step": lambda s, code, token: s.set_step(code, token, 5, quiz=False),
    "show_answers": lambda s, code, token: s.show_answers(code, token, 1),
    "vote_again": lambda s, code, token: s.vote_again(code, token, 1),
    "reveal": lambda s, code, token: s.reveal(code, token, 1),
    "close": lambda s, code, token: s.close(code, token),
    "countdown": lambda s, code, token: s.countdown(code, token, 1, 1, 30),
}


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_teacher_actions_need_the_rooms_own_teacher_token(store, room, clock, action):
    code, teacher = room
    ann, _bob = _voted(store, code)
    other_code, other_teacher = store.create(SETTINGS)
    forged = teacher[:-1] + ("A" if teacher[-1] != "A" else "B")
    clock.advance(60)  # a refused action must not touch the room either
    before, snap, revealed = rows(store, code), store.snapshot(code), store.revealed_steps(code)
    for token in (forged, "", None, other_teacher, ann, "x" * 32):
        with pytest.raises(NotAllowed):
            ACTIONS[action](store, code, token)
        assert not store.is_teacher(code, token)
    assert rows(store, code) == before and store.snapshot(code) == snap and store.revealed_steps(code) == revealed
    assert snap.version == 0 and snap.step == 1
    with pytest.raises(NotAllowed):  # the teacher's token opens only the teacher's room
        ACTIONS[action](store, other_code, teacher)
    assert store.snapshot(other_code).version == 0
    assert store.is_teacher(code, teacher)
    ACTIONS[action](store, code, teacher)  # the right token does it
    assert store.snapshot(code).version == 1 and rows(store, code)["rooms"][0][5] == clock.now  # (touched)


def test_each_teacher_action_bumps_the_version_once(store, room):
    code, teacher = room
    versions = [store.snapshot(code).version]
    store.set_step(code, teacher, 2)
    versions.append(store.snapshot(code).version)
    store.show_answers(code, teacher, 2)
    versions.append(store.snapshot(code).version)
    store.vote_again(code, teacher, 2)
    versions.append(store.snapshot(code).version)
    store.reveal(code, teacher, 2)
    versions.append(store.snapshot(code).version)
    assert versions == [0, 1, 2, 3, 4] and store.revealed_steps(code) == {2}


def test_a_closed_room_refuses_every_teacher_action(store, room):
    code, teacher = room
    _voted(store, code)
    store.close(code, teacher)
    before, snap = rows(store, code), store.snapshot(code)
    for action in ACTIONS.values():
        with pytest.raises(NotAllowed):
            action(store, code, teacher)
    assert rows(store, code) == before and store.snapshot(code) == snap


def test_no_token_is_kept_in_the_database(store, room):
    code, teacher = room
    ann = store.join(code, nickname="Ann")
    store.vote(code, ann.token, 1, 1, "h ##u")
    with open(store.path, "rb") as f:
        data = f.read()
    wal = store.path + "-wal"
    if os.path.exists(wal):
        with open(wal, "rb") as f:
            data += f.read()
    dump = json.dumps(rows(store, code))
    for token in (teacher, ann.token):
        assert valid_token(token) == token
        assert token not in dump and token.encode() not in data


# ----- expiry and presence (an injected clock) ---------------------------------------------------


def test_an_idle_room_goes_with_its_members_and_votes(tmp_path, clock):
    store = RoomStore(str(tmp_path), idle_hours=1, clock=clock)
    old, old_teacher = store.create(SETTINGS)
    ann = store.join(old, nickname="Ann")
    store.vote(old, ann.token, 1, 1, "h ##u")
    store.reveal(old, old_teacher, 1)
    clock.advance(0.5 * HOUR)
    kept, kept_teacher = store.create(SETTINGS)
    bob = store.join(kept, nickname="Bob")
    store.vote(kept, bob.token, 1, 1, "p ##u")

    clock.advance(0.5 * HOUR)  # exactly the idle time: not yet longer
    assert store.expire() == 0
    assert store.snapshot(old) is not None
    clock.advance(1)
    assert store.snapshot(old) is None  # hidden before it is deleted …
    with pytest.raises(NotAllowed):
        store.join(old, ann.token)
    with pytest.raises(NotAllowed):
        store.join(old, nickname="Late")
    assert store.expire() == 1  # … and then deleted
    assert rows(store, old) == {"rooms": [], "room_steps": [], "members": [], "votes": []}
    with pytest.raises(NotAllowed):
        store.vote(old, ann.token, 1, 1, "h ##u")
    with pytest.raises(NotAllowed):
        store.set_step(old, old_teacher, 2)
    assert store.record(old) == [] and store.revealed_steps(old) == set()

    snap = store.snapshot(kept)  # the younger room stays, with everything in it
    assert snap is not None and snap.members == 1 and snap.answered == 1
    assert store.join(kept, bob.token).nickname == "Bob"
    with sqlite3.connect(store.path) as db:
        for table in ("rooms", "room_steps", "members", "votes"):
            assert {c for (c,) in db.execute(f"SELECT DISTINCT code FROM {table}")} == {kept}, table

    clock.advance(0.9 * HOUR)
    store.set_step(kept, kept_teacher, 2)  # a teacher's action keeps it alive
    clock.advance(0.9 * HOUR)
    assert store.snapshot(kept) is not None
    store.join(kept, nickname="Cem")  # so does a new student
    clock.advance(0.9 * HOUR)
    assert store.snapshot(kept) is not None
    clock.advance(0.2 * HOUR)
    store.create(SETTINGS)  # creating a room removes the idle ones
    assert rows(store, kept)["rooms"] == [] and rows(store, kept)["votes"] == []
    assert count(store, "rooms") == 1 and count(store, "members") == 0 and count(store, "votes") == 0


def test_a_class_still_voting_keeps_its_room_and_an_idle_room_takes_no_vote(tmp_path, clock):
    store = RoomStore(str(tmp_path), idle_hours=1, clock=clock)
    code, _ = store.create(SETTINGS)
    ann, bob = store.join(code), store.join(code)
    clock.advance(0.9 * HOUR)
    store.vote(code, ann.token, 1, 1, "h ##u")  # the teacher waits; the class votes: the room is in use
    clock.advance(0.9 * HOUR)
    assert store.expire() == 0 and store.snapshot(code).answered == 1
    clock.advance(1.1 * HOUR)  # now nobody has used it for longer than the idle time
    assert store.snapshot(code) is None
    before = rows(store, code)
    with pytest.raises(NotAllowed):  # (not yet removed: a late vote neither counts nor brings it back)
        store.vote(code, bob.token, 1, 1, "h ##u")
    assert rows(store, code) == before and store.snapshot(code) is None
    assert store.expire() == 1 and count(store, "votes") == 0


def test_opening_the_store_removes_idle_rooms(tmp_path, clock):
    store = RoomStore(str(tmp_path), idle_hours=2, clock=clock)
    code, _ = store.create(SETTINGS)
    store.vote(code, store.join(code).token, 1, 1, "h ##u")
    clock.advance(2 * HOUR + 1)
    assert RoomStore(str(tmp_path), idle_hours=2, clock=clock).on
    for table in ("rooms", "room_steps", "members", "votes"):
        assert count(store, table) == 0, table


def test_idle_hours_come_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(rooms.HOURS_ENV, "3")
    assert RoomStore(str(tmp_path)).idle_hours == 3
    for bad in ("", "soon", "-1", "0"):
        monkeypatch.setenv(rooms.HOURS_ENV, bad)
        assert RoomStore(str(tmp_path)).idle_hours == rooms.DEFAULT_HOURS
    assert RoomStore(str(tmp_path), idle_hours=0.5).idle_seconds == 1800


def test_present_counts_the_students_seen_lately_and_at_least_those_who_answered(store, room, clock):
    code, teacher = room
    ann, bob, cem = (store.join(code, nickname=n) for n in ("Ann", "Bob", "Cem"))
    snap = store.snapshot(code)
    assert (snap.present, snap.members, snap.answered) == (3, 3, 0)
    clock.advance(PRESENT_SECONDS)  # seen exactly PRESENT_SECONDS ago: still here
    assert store.snapshot(code).present == 3
    clock.advance(0.5)
    assert store.snapshot(code).present == 0
    store.seen(code, ann.token)
    assert store.snapshot(code).present == 1
    store.vote(code, bob.token, 1, 1, "h ##u")  # a vote is a sign of life too
    snap = store.snapshot(code)
    assert (snap.present, snap.answered) == (2, 1)
    store.join(code, cem.token)  # coming back through the link
    assert store.snapshot(code).present == 3
    clock.advance(PRESENT_SECONDS + 1)
    snap = store.snapshot(code)
    assert (snap.present, snap.answered, snap.members) == (1, 1, 3)  # Bob answered, so he counts
    store.seen(code, "A" * 24)  # a stranger's sign of life is no one's
    assert store.snapshot(code).present == 1
    store.seen(code, ann.token)  # (a floor, not a union: Ann seen, Bob answered earlier, still 1)
    assert store.snapshot(code).present == 1
    store.seen(code, bob.token)
    assert store.snapshot(code).present == 2
    store.show_answers(code, teacher, 1)
    store.vote_again(code, teacher, 1)  # round 2: nobody answered it yet
    snap = store.snapshot(code)
    assert (snap.present, snap.answered) == (2, 0)


# ----- a restart, a kill -9, two processes --------------------------------------------------------


def test_a_second_store_on_the_folder_sees_everything(tmp_path, clock):
    first = RoomStore(str(tmp_path), idle_hours=24, clock=clock)
    code, teacher = first.create(SETTINGS, corpus_digest="d" * 64, step=1)
    ann, bob = first.join(code, nickname="Ann"), first.join(code, nickname="<b>Bob</b>")
    first.vote(code, ann.token, 1, 1, "h ##u")
    first.vote(code, bob.token, 1, 1, "##u ##g", kind="token")
    first.reveal(code, teacher, 1)
    first.set_step(code, teacher, 2)
    first.vote(code, bob.token, 2, 1, "p ##u")
    snap = first.snapshot(code)

    second = RoomStore(str(tmp_path), idle_hours=24, clock=clock)
    assert second.on and second.snapshot(code) == snap
    assert snap.settings == SETTINGS and snap.corpus_digest == "d" * 64 and (snap.step, snap.answered) == (2, 1)
    assert second.join(code, ann.token) == ann and second.join(code, bob.token) == bob
    assert second.snapshot(code).members == 2  # the same students, not new ones
    assert second.is_teacher(code, teacher)
    assert second.revealed_steps(code) == {1}
    assert second.tally(code, 1) == first.tally(code, 1) == {1: {"##u ##g": 1, "h ##u": 1}}
    assert second.my_votes(code, bob.token, 2) == {1: "p ##u"}
    assert second.record(code) == first.record(code)
    second.vote(code, ann.token, 2, 1, "p ##u")  # and carries on where the first left off
    assert first.snapshot(code).answered == 2


VOTER = """
import sys
from wordpiece_ui.rooms import RoomStore
store = RoomStore(sys.argv[1], idle_hours=24)
code = sys.argv[2]
for i in range(400):
    student = store.join(code, nickname=f"s{i}")
    store.vote(code, student.token, 1, 1, f"first {i}")
    store.vote(code, student.token, 1, 1, f"choice {i}")
    print(student.token, i, flush=True)
"""


def test_every_vote_printed_before_a_kill_9_is_kept_once(tmp_path):
    store = RoomStore(str(tmp_path), idle_hours=24)
    code, _ = store.create(SETTINGS)
    child = subprocess.Popen([sys.executable, "-c", VOTER, str(tmp_path), code], env=cli_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = []
    try:
        while len(done) < 25:
            line = child.stdout.readline()
            assert line, child.stderr.read()
            token, i = line.split()
            done.append((token, int(i)))
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        child.stdout.close()
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL

    after = RoomStore(str(tmp_path), idle_hours=24)
    assert after.on, after.problem
    with sqlite3.connect(after.path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    for token, i in done:
        assert after.my_votes(code, token, 1) == {1: f"choice {i}"}
        assert after.join(code, token).nickname == f"s{i}"
    record = after.record(code)
    nicknames = [r[2] for r in record]
    assert len(nicknames) == len(set(nicknames))  # nobody twice
    assert {f"s{i}" for _, i in done} <= set(nicknames)
    assert len(record) <= len(done) + 1  # at most the vote it was writing when it was killed
    snap = after.snapshot(code)
    assert snap.answered == len(record) == sum(after.tally(code, 1)[1].values())
    after.vote(code, done[0][0], 1, 1, "after the kill")
    assert after.my_votes(code, done[0][0], 1) == {1: "after the kill"}


RACER = """
import json, sys
from wordpiece_ui.rooms import RoomStore
store = RoomStore(sys.argv[1], idle_hours=24)
assert store.on, store.problem
code, name, tokens = sys.argv[2], sys.argv[3], json.loads(sys.stdin.readline())
print("ready", flush=True)
sys.stdin.readline()  # go
for i, token in enumerate(tokens):
    store.vote(code, token, 1, 1, "warm up")
    store.vote(code, token, 1, 1, name)
    store.snapshot(code)
print("done", len(tokens), flush=True)
"""


@pytest.mark.slow
def test_two_processes_voting_at_once_count_every_vote_once(tmp_path):
    store = RoomStore(str(tmp_path), idle_hours=24)
    code, _ = store.create(SETTINGS)
    n = 60
    students = {name: [store.join(code).token for _ in range(n)] for name in ("left", "right")}
    racers = {name: subprocess.Popen([sys.executable, "-c", RACER, str(tmp_path), code, name], env=cli_env(),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for name in students}
    try:
        for name, racer in racers.items():
            racer.stdin.write(json.dumps(students[name]) + "\n")
            racer.stdin.flush()
        for racer in racers.values():
            assert racer.stdout.readline().strip() == "ready", racer.stderr.read()
        for racer in racers.values():  # both start at once
            racer.stdin.write("go\n")
            racer.stdin.flush()
        outputs = {name: racer.communicate(timeout=60) for name, racer in racers.items()}
    finally:
        for racer in racers.values():
            if racer.poll() is None:
                racer.kill()
                racer.wait()
    for name, (out, err) in outputs.items():
        assert "database is locked" not in err and racers[name].returncode == 0, err
        assert out.strip() == f"done {n}"
    assert store.tally(code, 1) == {1: {"left": n, "right": n}}
    assert store.snapshot(code).answered == 2 * n and count(store, "votes") == 2 * n
    for name, tokens in students.items():
        assert all(store.my_votes(code, t, 1) == {1: name} for t in tokens)


OPENER = """
import sys
from wordpiece_ui.rooms import RoomStore
sys.stdin.readline()
store = RoomStore(sys.argv[1])
print(store.problem or "on", store.create({"n": "1"})[0] if store.on else "", flush=True)
"""


@pytest.mark.slow
def test_processes_opening_a_new_folder_at_once_all_get_the_store(tmp_path):
    folder = str(tmp_path / "new")
    openers = [subprocess.Popen([sys.executable, "-c", OPENER, folder], env=cli_env(), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    time.sleep(0.1)  # (their Python started)
    outputs = [o.communicate("go\n", timeout=60) for o in openers]
    assert all(o.returncode == 0 for o in openers), outputs
    codes = [out.split() for out, _ in outputs]
    assert all(c[0] == "on" for c in codes), outputs
    store = RoomStore(folder)
    assert all(store.snapshot(c[1]) is not None for c in codes) and count(store, "rooms") == 3


# ----- the schema, and a folder the store cannot use ------------------------------------------------


def test_the_schema_is_wal_with_its_user_version(store, room):
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert tables == {"rooms", "room_steps", "members", "votes"}
        assert [c[1] for c in db.execute("PRAGMA table_info(votes)")] == ["code", "step", "round", "member", "kind",
                                                                         "choice", "at"]
        keys = [c[1] for c in sorted(db.execute("PRAGMA table_info(votes)"), key=lambda c: c[5]) if c[5]]
        assert keys == ["code", "step", "round", "member"]
    assert os.path.basename(store.path) == DB_NAME


def _off(store, expected):
    assert not store.on and store.problem and expected in store.problem and "/" not in store.problem
    with pytest.raises(RoomsOff, match=expected):
        store.create(SETTINGS)
    with pytest.raises(RoomsOff):
        store.snapshot("ABCDEF")


def test_a_newer_schema_turns_the_store_off_and_is_left_alone(tmp_path, clock):
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        db.execute("CREATE TABLE rooms (code TEXT PRIMARY KEY, future TEXT)")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    store = RoomStore(str(tmp_path), clock=clock)
    _off(store, "newer WordPiece Lab")
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert [c[1] for c in db.execute("PRAGMA table_info(rooms)")] == ["code", "future"]
        assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0] == 1


def test_a_folder_under_a_file_turns_the_store_off(tmp_path, clock):
    (tmp_path / "taken").write_text("not a folder")
    _off(RoomStore(str(tmp_path / "taken" / "data"), clock=clock), "cannot be written")


def test_a_damaged_database_turns_the_store_off(tmp_path, clock):
    (tmp_path / DB_NAME).write_bytes(b"this is not an SQLite database" * 100)
    _off(RoomStore(str(tmp_path), clock=clock), "damaged")


# ----- nicknames, codes and tokens ---------------------------------------------------------------


@pytest.mark.parametrize("text,kept", [
    ("**Ann**", "**Ann**"),
    ("<b>Bob</b>", "<b>Bob</b>"),
    ("<script>alert(1)</script>", "<script>alert(1)</script"),
    ("[me](javascript:alert(1))", "[me](javascript:alert(1)"),
    ("javascript:alert(document.cookie)", "javascript:alert(documen"),
    ("# Title `code` $x$ :red[Eve]", "# Title `code` $x$ :red["),
    ("Zoë 🦊", "Zoë 🦊"),
])
def test_a_nickname_keeps_markup_as_plain_characters(text, kept):
    assert clean_nickname(text) == kept and len(kept) <= NICKNAME_CHARS
    assert kept == text[:NICKNAME_CHARS]


def test_a_nickname_loses_control_characters_and_newlines():
    text = "Ann\x00\x07\x1b[31m\nBob\r\n\tCem\u200b\u202eDan\u2028\x7f"
    cleaned = clean_nickname(text)
    assert cleaned == "Ann [31m Bob Cem Dan"
    assert all(ch.isprintable() for ch in cleaned)
    assert clean_nickname("  Ann   Bob  ") == "Ann Bob"
    assert clean_nickname("\n\t\x00 ") == "" and clean_nickname(None) == "" and clean_nickname(42) == ""


def test_a_megabyte_nickname_is_cut_to_its_length():
    """(How long the cut takes: benchmarks/bench_stops.py, against 50 ms.)"""
    for text in ("A" * 1_000_000, "x\n" * 500_000, "\u202e" * 1_000_000, "<b>" * 400_000):
        assert len(clean_nickname(text)) <= NICKNAME_CHARS
    assert clean_nickname("A" * 1_000_000) == "A" * NICKNAME_CHARS


def test_the_store_keeps_the_cleaned_nickname(store, room):
    code, _ = room
    eve = store.join(code, nickname="<img src=x onerror=alert(1)>\n**Eve**")
    assert eve.nickname == "<img src=x onerror=alert" == clean_nickname("<img src=x onerror=alert(1)>\n**Eve**")
    assert store.rename(code, eve.token, "[Eve](javascript:x)\x00") == "[Eve](javascript:x)"
    assert store.rename(code, eve.token, "\n\t ") == "[Eve](javascript:x)"  # nothing left: the name stays
    assert store.join(code, eve.token).nickname == "[Eve](javascript:x)"
    assert store.rename(code, eve.token, "x" * 10_000) == "x" * NICKNAME_CHARS
    with pytest.raises(NotAllowed):
        store.rename(code, "A" * 24, "Mallory")
    anonymous = store.join(code, nickname="\x00\n")
    assert anonymous.nickname and anonymous.nickname == clean_nickname(anonymous.nickname)


def test_two_students_may_share_a_nickname(store, room):
    code, _ = room
    one, two = store.join(code, nickname="Sam"), store.join(code, nickname="Sam")
    assert one.nickname == two.nickname == "Sam" and one.token != two.token
    store.vote(code, one.token, 1, 1, "h ##u")
    store.vote(code, two.token, 1, 1, "p ##u")
    snap = store.snapshot(code)
    assert (snap.members, snap.answered) == (2, 2)
    assert store.record(code) == [(1, 1, "Sam", "pair", "h ##u"), (1, 1, "Sam", "pair", "p ##u")]
    assert store.my_votes(code, one.token, 1) == {1: "h ##u"} and store.my_votes(code, two.token, 1) == {1: "p ##u"}


def test_join_with_an_unknown_or_malformed_token_makes_a_new_student(store, room):
    code, _ = room
    ann = store.join(code, nickname="Ann")
    for token in (None, "", "short", "A" * 24, ann.token + " ", "x" * 65):
        new = store.join(code, token, nickname="Ann")
        assert new.token != ann.token and new.token != token and valid_token(new.token)
    assert store.snapshot(code).members == 7
    assert store.join(code, ann.token, nickname="Other") == ann  # a returning student keeps the name


def test_a_full_room_takes_returning_students_only(store, room, clock):
    code, _ = room
    first = store.join(code)
    store.vote(code, first.token, 1, 1, "h ##u")
    with sqlite3.connect(store.path) as db:  # (MAX_MEMBERS joins would take a while)
        db.executemany("INSERT INTO members (code, member, nickname, joined, seen) VALUES (?, ?, 'x', ?, ?)",
                       [(code, f"m{i}", clock.now, clock.now) for i in range(MAX_MEMBERS - 2)])
    store.join(code)  # the last place
    with pytest.raises(NotAllowed, match="full"):
        store.join(code)
    assert store.join(code, first.token) == first
    assert store.snapshot(code).members == MAX_MEMBERS
    # Long gone members who never voted make room (a link opened over and over); a voter keeps their place.
    clock.advance(STALE_MEMBER_SECONDS + 1)
    store.join(code)
    assert store.snapshot(code).members == 2  # the voter and the newcomer
    assert [n for (n,) in sqlite3.connect(store.path).execute("SELECT nickname FROM members WHERE code = ? AND "
                                                               "member = ?", (code, _hash(first.token)))]


@pytest.mark.parametrize("text", ["ABCDEF", "abcdef", "abc def", "abc-def", " a-b c_d.e f ", "AbC\tDeF\n"])
def test_normal_code_accepts_lower_case_spaces_and_dashes(text):
    assert normal_code(text) == "ABCDEF"


@pytest.mark.parametrize("text", ["ABCDE0", "ABCDEO", "ABCDE1", "ABCDEI", "ABCDEL", "abcdel", "abcdeo", "ABCDE",
                                  "ABCDEFG", "", "      ", "ABC+EF", "ＡＢＣＤＥＦ", " " * 40 + "ABCDEF",
                                  None, 123456, b"ABCDEF", ["ABCDEF"]])
def test_normal_code_refuses_what_cannot_be_a_code(text):
    assert normal_code(text) is None


def test_created_codes_and_tokens_are_what_the_links_accept(store):
    made = [store.create(SETTINGS) for _ in range(20)]
    assert len({code for code, _ in made}) == 20
    for code, teacher in made:
        assert normal_code(code) == code and normal_code(code.lower()) == code
        assert not set(code) & set("0O1IL")
        assert valid_token(teacher) == teacher
    assert valid_token("a" * 15) is None and valid_token("a b" * 8) is None and valid_token(None) is None


# ----- the record ---------------------------------------------------------------------------------


def test_the_record_lists_votes_by_step_round_and_nickname(store, room):
    code, teacher = room
    zed, amy = store.join(code, nickname="Zed"), store.join(code, nickname="Amy")
    store.vote(code, zed.token, 1, 1, "h ##u")
    store.vote(code, amy.token, 1, 1, "##u ##g")
    store.show_answers(code, teacher, 1)
    store.vote_again(code, teacher, 1)
    store.vote(code, zed.token, 1, 2, "##u ##g")
    store.reveal(code, teacher, 1)
    store.set_step(code, teacher, 2)
    store.vote(code, amy.token, 2, 1, "hug", kind="token")  # a Unigram step's token to remove, one day
    record = store.record(code)
    assert record == [(1, 1, "Amy", "pair", "##u ##g"), (1, 1, "Zed", "pair", "h ##u"),
                      (1, 2, "Zed", "pair", "##u ##g"), (2, 1, "Amy", "token", "hug")]
    flat = json.dumps(record)
    for secret in (zed.token, amy.token, teacher):
        assert secret not in flat
    with sqlite3.connect(store.path) as db:
        for (member,) in db.execute("SELECT member FROM votes"):
            assert member not in flat  # nicknames only: not even the tokens' hashes
    assert store.tally(code, 2) == {1: {"hug": 1}}
    other, _ = store.create(SETTINGS)
    assert store.record(other) == []


def test_a_changed_vote_keeps_its_new_kind(store, room):
    code, _ = room
    ann = store.join(code, nickname="Ann")
    store.vote(code, ann.token, 1, 1, "h ##u")
    store.vote(code, ann.token, 1, 1, "hug", kind="token")
    assert store.record(code) == [(1, 1, "Ann", "token", "hug")] and store.snapshot(code).answered == 1


def test_a_closed_room_keeps_its_nicknames(store, room):
    code, teacher = room
    ann = store.join(code, nickname="Ann")
    store.close(code, teacher)
    with pytest.raises(NotAllowed, match="read-only"):
        store.rename(code, ann.token, "Bob")
    assert store.join(code, ann.token).nickname == "Ann"


def test_a_store_that_stays_locked_says_so_in_words(store, room, monkeypatch):
    from wordpiece_ui import sqlite_files

    code, _ = room
    ann = store.join(code)
    monkeypatch.setattr(sqlite_files, "BUSY_SECONDS", 0.05)
    holder = sqlite3.connect(store.path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(RoomsOff, match="busy"):
            store.vote(code, ann.token, 1, 1, "h ##u")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    store.vote(code, ann.token, 1, 1, "h ##u")  # and works again once it is free
    assert store.snapshot(code).answered == 1


# ----- the teacher's list: who is here, who answered; rename, remove, lock ----------------------------------


def test_the_roster_says_who_is_here_and_who_answered_the_current_round(store, room, clock):
    code, teacher = room
    ann, bob = store.join(code, nickname="Ann"), store.join(code, nickname="Bob")
    store.vote(code, ann.token, 1, 1, "a + b")
    seats = store.roster(code)
    assert [(s.nickname, s.present, s.answered) for s in seats] == [("Ann", True, True), ("Bob", True, False)]
    assert all(s.member not in (ann.token, bob.token) for s in seats)  # never a token: its hash
    store.show_answers(code, teacher, 1)
    store.vote_again(code, teacher, 1)  # round 2: nobody has answered it yet
    assert [s.answered for s in store.roster(code)] == [False, False]
    clock.advance(PRESENT_SECONDS + 1)
    assert [s.present for s in store.roster(code)] == [False, False]


def test_the_teacher_renames_and_removes_a_student_and_nobody_else_can(store, room):
    code, teacher = room
    ann, bob = store.join(code, nickname="Ann"), store.join(code, nickname="Bob")
    store.vote(code, bob.token, 1, 1, "a + b")
    seat = {s.nickname: s.member for s in store.roster(code)}
    with pytest.raises(NotAllowed):
        store.remove_student(code, ann.token, seat["Bob"])  # a student's token runs nothing
    assert store.rename_student(code, teacher, seat["Ann"], "  <b>Annie</b>\n") == "<b>Annie</b>"
    store.remove_student(code, teacher, seat["Bob"])
    assert [s.nickname for s in store.roster(code)] == ["<b>Annie</b>"]
    assert store.tally(code, 1) == {} and not store.is_member(code, bob.token)  # their votes went with them
    assert store.is_member(code, ann.token)


def test_a_locked_room_lets_its_students_back_but_no_one_new(store, room):
    code, teacher = room
    ann = store.join(code, nickname="Ann")
    version = store.snapshot(code).version
    store.lock(code, teacher, True)
    assert store.is_locked(code) and store.snapshot(code).version == version + 1  # the pages hear of it
    assert store.join(code, ann.token).nickname == "Ann"  # back: a reload, the code scanned again
    with pytest.raises(NotAllowed, match="locked"):
        store.join(code)
    with pytest.raises(NotAllowed, match="locked"):
        store.join(code, "an-unknown-token-0123456789")
    store.lock(code, teacher, False)
    assert store.join(code).nickname


def test_a_version_1_store_gains_the_lock_when_opened(tmp_path, clock):
    old = RoomStore(str(tmp_path), idle_hours=24, clock=clock)
    code, teacher = old.create(SETTINGS)
    with sqlite3.connect(old.path) as db:  # the file as version 1 left it: no `locked` column, no cards
        db.execute("ALTER TABLE rooms DROP COLUMN locked")
        db.execute("ALTER TABLE room_steps DROP COLUMN card")
        db.execute("ALTER TABLE room_steps DROP COLUMN closes")
        db.execute("PRAGMA user_version = 1")
    new = RoomStore(str(tmp_path), idle_hours=24, clock=clock)
    assert new.on, new.problem
    assert not new.is_locked(code) and new.snapshot(code) is not None  # the room is still there
    new.lock(code, teacher, True)
    assert new.is_locked(code)
    new.set_step(code, teacher, 2, True, {"step": 2})  # and the phones' cards (version 3)
    assert new.card(code, 2) == {"step": 2} and new.card(code, 1) is None
    assert new.countdown(code, teacher, 2, 1, 30) and new.snapshot(code).seconds_left == 30  # (version 4)
    with sqlite3.connect(new.path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
