"""Live class rooms: rooms, their members, the teacher's step and the votes, in SQLite (no Streamlit).

A teacher starts a room from the Train page; students join with its code. Everything a class does
lives in `rooms.sqlite3` in the app's data folder (datastore.py names it), so all sessions of the
server (and any process) see the same room, and nothing a class did is lost when the server restarts
or is killed: WAL mode, `synchronous = NORMAL` (a committed transaction survives a crash of the
process), each write one `BEGIN IMMEDIATE` transaction. Schema version 4 (`PRAGMA user_version`; an older
file gains `rooms.locked`, `room_steps.card` and `room_steps.closes` when it is opened):

    rooms(code TEXT PRIMARY KEY,       -- what students type: ROOM_CODE_CHARS of CODE_ALPHABET
          teacher TEXT,                -- SHA-256 of the teacher's token (the token itself is never kept)
          settings TEXT,               -- the training's link parameters, as JSON (settings.to_query)
          corpus_digest TEXT,          -- a pasted or uploaded corpus' digest ('' for a sample): pinned
          created REAL, touched REAL,  -- Unix times; touched: the last write by anyone
          closed REAL,                 -- 0 while open; when the teacher closed it (then read-only)
          step INTEGER, quiz INTEGER,  -- the teacher's step, and "ask first"
          version INTEGER,             -- +1 at every teacher action: a poll compares one number
          locked INTEGER)              -- 1: no new student may join (those who joined come back)
    room_steps(code, step, round,      -- the vote's round at this step (1, then 2 after *Vote again*, ...)
          shown INTEGER,               -- the answers of the current round are on the projector: it is closed
          revealed INTEGER,            -- the teacher revealed the merge
          card TEXT,                   -- what the phone page shows of the step, as JSON (phone_room.card)
          closes REAL,                 -- 0, or when the current round's vote closes (the teacher's countdown)
          PRIMARY KEY (code, step))
    members(code, member,              -- SHA-256 of the student's token (the link carries the token)
          nickname TEXT, joined REAL, seen REAL, PRIMARY KEY (code, member))
    votes(code, step, round, member,   -- one per (room, step, round, student): a retry or a double
          kind TEXT,                   --   click counts once; what was asked: 'pair' (a merge's left + right)
          choice TEXT, at REAL,        --   or 'piece' (a Unigram round's piece to remove); the choice as shown
          PRIMARY KEY (code, step, round, member))

Deleting a room deletes its rows (foreign keys, ON DELETE CASCADE). A room untouched for
`WORDPIECE_LAB_ROOM_HOURS` (default 24) is removed, open or closed.

What a poll reads is one row (`snapshot`: the room, its step's round and state, the votes of that
round and the students seen in the last `PRESENT_SECONDS`), through the primary keys and one index.

When the folder cannot be written the store is off (`problem` says why) and the app works without rooms.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from . import sqlite_files

DB_NAME = "rooms.sqlite3"
SCHEMA_VERSION = 4
_UPGRADES = {2: ["ALTER TABLE rooms ADD COLUMN locked INTEGER NOT NULL DEFAULT 0"],
             3: ["ALTER TABLE room_steps ADD COLUMN card TEXT"],
             4: ["ALTER TABLE room_steps ADD COLUMN closes REAL NOT NULL DEFAULT 0"]}
COUNTDOWN_SECONDS = (15, 30, 60, 90)  # the countdowns a teacher may start on a round's vote
CARD_CHARS = 50_000  # a step's card (what a phone shows of it, as JSON) is at most this long
HOURS_ENV = "WORDPIECE_LAB_ROOM_HOURS"
DEFAULT_HOURS = 24.0
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a projector and typed by hand
ROOM_CODE_CHARS = 6  # 31^6 ≈ 887 million codes
NICKNAME_CHARS = 24  # a nickname is cut here (and shown as text)
CHOICE_CHARS = 400  # a vote's choice is a candidate's text: at most this long
PRESENT_SECONDS = 30.0  # "N of M answered": M counts the students seen this recently
SEEN_SECONDS = 5.0  # a student's presence is written at most this often
MAX_ROUNDS = 9  # at most this many rounds of a vote per step (*Vote again* 8 times)
MAX_MEMBERS = 500  # a room takes this many students (a class, not a crowd)
STALE_MEMBER_SECONDS = 600.0  # a full room drops the members who never voted and were not seen for this long
_CODE = re.compile(r"[%s]{%d}" % (CODE_ALPHABET, ROOM_CODE_CHARS))
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS rooms (
        code TEXT PRIMARY KEY,
        teacher TEXT NOT NULL,
        settings TEXT NOT NULL,
        corpus_digest TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL,
        touched REAL NOT NULL,
        closed REAL NOT NULL DEFAULT 0,
        step INTEGER NOT NULL,
        quiz INTEGER NOT NULL,
        version INTEGER NOT NULL DEFAULT 0,
        locked INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX IF NOT EXISTS rooms_by_touch ON rooms (touched)",
    """CREATE TABLE IF NOT EXISTS room_steps (
        code TEXT NOT NULL REFERENCES rooms (code) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        round INTEGER NOT NULL DEFAULT 1,
        shown INTEGER NOT NULL DEFAULT 0,
        revealed INTEGER NOT NULL DEFAULT 0,
        card TEXT,
        closes REAL NOT NULL DEFAULT 0,
        PRIMARY KEY (code, step))""",
    """CREATE TABLE IF NOT EXISTS members (
        code TEXT NOT NULL REFERENCES rooms (code) ON DELETE CASCADE,
        member TEXT NOT NULL,
        nickname TEXT NOT NULL,
        joined REAL NOT NULL,
        seen REAL NOT NULL,
        PRIMARY KEY (code, member))""",
    "CREATE INDEX IF NOT EXISTS members_by_seen ON members (code, seen)",
    """CREATE TABLE IF NOT EXISTS votes (
        code TEXT NOT NULL REFERENCES rooms (code) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        round INTEGER NOT NULL,
        member TEXT NOT NULL,
        kind TEXT NOT NULL DEFAULT 'pair',
        choice TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (code, step, round, member))""",
)

_ADJECTIVES = ("Brave", "Calm", "Clever", "Curious", "Eager", "Gentle", "Happy", "Keen", "Kind", "Lively", "Lucky",
               "Merry", "Nimble", "Patient", "Quick", "Quiet", "Bold", "Sunny", "Swift", "Witty", "Bright", "Cosy",
               "Daring", "Jolly", "Noble", "Proud", "Steady", "Wise")
_ANIMALS = ("Otter", "Badger", "Falcon", "Heron", "Koala", "Lynx", "Marten", "Owl", "Panda", "Puffin", "Quokka",
            "Raven", "Robin", "Seal", "Stoat", "Tiger", "Wombat", "Yak", "Zebra", "Beaver", "Crane", "Dolphin",
            "Ferret", "Gecko", "Hare", "Ibis", "Lemur", "Moose")


def hours_from_env() -> float:
    try:
        value = float(os.environ.get(HOURS_ENV, "").strip() or DEFAULT_HOURS)
    except ValueError:
        return DEFAULT_HOURS
    return value if value > 0 else DEFAULT_HOURS


def normal_code(text: object) -> str | None:
    """A typed room code as the store keeps it (upper case; spaces and dashes dropped), or None if it cannot
    be one (the code's alphabet has no 0, O, 1, I or L, so none of them is guessed at)."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    code = re.sub(r"[\s\-_.]", "", text).upper()
    return code if _CODE.fullmatch(code) else None


def valid_token(text: object) -> str | None:
    """A link's token (teacher or student) as the app writes them, or None."""
    return text if isinstance(text, str) and _TOKEN.fullmatch(text) else None


def clean_nickname(text: object) -> str:
    """A nickname as kept: printable characters only, spaces collapsed, at most NICKNAME_CHARS."""
    if not isinstance(text, str):
        return ""
    text = text[: NICKNAME_CHARS * 8]  # (a megabyte is cut before it is looked at)
    kept = "".join(ch if unicodedata.category(ch)[0] not in "CZ" else " " for ch in text)
    return " ".join(kept.split())[:NICKNAME_CHARS].strip()


def random_nickname() -> str:
    return f"{secrets.choice(_ADJECTIVES)} {secrets.choice(_ANIMALS)}"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Snapshot:
    """What a poll reads: the room's state at its teacher's step, in one row."""

    code: str
    step: int
    quiz: bool
    closed: bool
    version: int
    round: int  # the current round of the vote at `step`
    shown: bool  # the current round's answers are shown (its vote is over)
    revealed: bool  # the merge at `step` is revealed
    answered: int  # votes in the current round at `step`
    present: int  # students seen in the last PRESENT_SECONDS (at least `answered`)
    members: int  # students who ever joined
    settings: dict
    corpus_digest: str
    closes: float = 0.0  # 0, or when the current round's vote closes (Unix time: the teacher's countdown)
    at: float = field(default=0.0, compare=False)  # when this snapshot was read (Unix time; not the room's state)

    @property
    def hidden(self) -> bool:
        """The teacher's step is hidden from the class: the room is open, asks first, and has not revealed it."""
        return not self.closed and self.quiz and not self.revealed

    @property
    def seconds_left(self) -> float | None:
        """The countdown on the current round's vote, in seconds from `at` (0: the time is up), or None: none."""
        return max(0.0, self.closes - self.at) if self.closes > 0 else None

    @property
    def time_up(self) -> bool:
        """The teacher's countdown closed the current round's vote, whose answers are not shown yet."""
        return self.hidden and not self.shown and self.seconds_left == 0.0

    @property
    def voting(self) -> bool:
        """The class may vote now: the step is hidden, its round open and its countdown (if any) not over."""
        return self.hidden and not self.shown and not self.time_up

    def shown_rounds(self, tally: dict[int, dict[str, int]]) -> dict[int, dict[str, int]]:
        """Of the teacher's step's tally (RoomStore.tally), the rounds whose answers the class may see: those
        before the current one, and the current one once shown."""
        return {r: counts for r, counts in tally.items() if r < self.round or self.shown}


@dataclass(frozen=True)
class Member:
    token: str  # what the student's link carries
    nickname: str


@dataclass(frozen=True)
class Seat:
    """A student as the teacher's list shows them (never their token: `member` is its hash)."""

    member: str
    nickname: str
    present: bool  # seen in the last PRESENT_SECONDS
    answered: bool  # voted in the current round at the teacher's step


# ----- waking the pages of this process when a teacher acts (another process' changes wait for the next poll)
_CHANGES = threading.Condition()
_CHANGE_COUNTS: dict[str, int] = {}  # room code → teacher actions committed by this process


def change_count(code: str) -> int:
    """How many teacher actions this process committed in room `code` (a number to wait on)."""
    with _CHANGES:
        return _CHANGE_COUNTS.get(code, 0)


def wait_for_change(code: str, known: int, timeout: float) -> bool:
    """Wait up to `timeout` seconds for a teacher action in room `code` after `known` (change_count's)."""
    with _CHANGES:
        return _CHANGES.wait_for(lambda: _CHANGE_COUNTS.get(code, 0) != known, timeout)


_LISTENERS: list[Callable[[str], None]] = []  # called with a room's code after each of its teacher actions


def on_change(listener: Callable[[str], None]) -> None:
    """Call `listener(code)` after each teacher action this process commits (from the acting thread: it must
    return at once; phone_room.py's hands the news to its event loop)."""
    if listener not in _LISTENERS:
        _LISTENERS.append(listener)


def _changed(code: str) -> None:
    with _CHANGES:
        _CHANGE_COUNTS[code] = _CHANGE_COUNTS.get(code, 0) + 1
        if len(_CHANGE_COUNTS) > 10_000:  # (bounded: a server's rooms over weeks)
            _CHANGE_COUNTS.clear()
        _CHANGES.notify_all()
    for listener in list(_LISTENERS):
        try:  # (the action is committed: a listener's trouble must not make it look failed)
            listener(code)
        except Exception:
            pass


def _card_text(card: dict | None) -> str | None:
    """A card as stored; a card past CARD_CHARS is not kept (the step is still written: the phones say they
    cannot show it, and link the full step)."""
    body = None if card is None else json.dumps(card, ensure_ascii=False, sort_keys=True)
    return body if body is not None and len(body) <= CARD_CHARS else None


class RoomsOff(Exception):
    """The store cannot be used; the message says why, in words for the page."""


class NotAllowed(Exception):
    """The action is not the caller's to take (a wrong teacher token, a closed room, a vote out of turn)."""


class RoomStore:
    """The rooms of a data folder (see the module docstring)."""

    def __init__(self, folder: str, idle_hours: float | None = None, clock: Callable[[], float] = time.time) -> None:
        self.path = os.path.join(folder, DB_NAME)
        self.idle_seconds = (idle_hours if idle_hours is not None else hours_from_env()) * 3600
        self.clock = clock
        self.problem: str | None = None
        try:
            os.makedirs(folder, exist_ok=True)
            self._create()
        except (OSError, sqlite3.Error, RoomsOff) as exc:
            self.problem = str(exc) if isinstance(exc, RoomsOff) else _reason(exc)

    @property
    def on(self) -> bool:
        return self.problem is None

    @property
    def idle_hours(self) -> float:
        return self.idle_seconds / 3600

    # ----- connections ----------------------------------------------------------------------------
    @contextlib.contextmanager
    def _transaction(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        if self.problem is not None:
            raise RoomsOff(self.problem)
        try:
            db = sqlite_files.connect(self.path)
        except sqlite3.Error as exc:
            raise RoomsOff(_reason(exc)) from exc
        try:
            db.execute("PRAGMA foreign_keys = ON")  # a room's rows go with it
            with sqlite_files.transaction(db, write) as inside:
                yield inside
        except sqlite3.Error as exc:  # locked for longer than BUSY_SECONDS, a full disk, a damaged file: in words
            raise RoomsOff(_reason(exc)) from exc
        finally:
            db.close()

    def _create(self) -> None:
        db = sqlite_files.connect(self.path)
        try:
            db.execute("PRAGMA journal_mode = WAL")
        finally:
            db.close()
        with self._transaction(write=True) as db:
            sqlite_files.use_schema(db, _SCHEMA, SCHEMA_VERSION, lambda found: RoomsOff(
                f"the rooms were written by a newer WordPiece Lab (schema {found})"), _UPGRADES)
        self.expire()

    # ----- rooms ----------------------------------------------------------------------------------
    def create(self, settings: dict[str, str], corpus_digest: str = "", step: int = 1,
               quiz: bool = True) -> tuple[str, str]:
        """A new room with these settings: its code and the teacher's token (kept only as a hash)."""
        self.expire()
        token = secrets.token_urlsafe(24)
        now = self.clock()
        with self._transaction(write=True) as db:
            for _ in range(20):
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(ROOM_CODE_CHARS))
                if db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is None:
                    break
            else:  # (887 million codes: twenty taken in a row means something else is wrong)
                raise RoomsOff("no free room code was found")
            db.execute("INSERT INTO rooms (code, teacher, settings, corpus_digest, created, touched, step, quiz) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (code, _hash(token), json.dumps(settings, sort_keys=True), corpus_digest, now, now,
                        max(1, step), int(quiz)))
            db.execute("INSERT INTO room_steps (code, step) VALUES (?, ?)", (code, max(1, step)))
        return code, token

    def is_teacher(self, code: str, token: str | None) -> bool:
        """Whether `token` is this room's teacher token (compared in constant time)."""
        if not token:
            return False
        with self._transaction() as db:
            row = db.execute("SELECT teacher FROM rooms WHERE code = ?", (code,)).fetchone()
        return row is not None and hmac.compare_digest(row[0], _hash(token))

    def snapshot(self, code: str) -> Snapshot | None:
        """The room as a poll sees it (one query), or None if there is no such room (or it expired)."""
        now = self.clock()
        with self._transaction() as db:
            row = db.execute(
                """SELECT r.step, r.quiz, r.closed, r.version, COALESCE(s.round, 1), COALESCE(s.shown, 0),
                          COALESCE(s.revealed, 0),
                          (SELECT COUNT(*) FROM votes v WHERE v.code = r.code AND v.step = r.step
                                                        AND v.round = COALESCE(s.round, 1)),
                          (SELECT COUNT(*) FROM members m WHERE m.code = r.code AND m.seen >= ?),
                          (SELECT COUNT(*) FROM members m WHERE m.code = r.code),
                          r.settings, r.corpus_digest, COALESCE(s.closes, 0)
                   FROM rooms r LEFT JOIN room_steps s ON s.code = r.code AND s.step = r.step
                   WHERE r.code = ? AND r.touched >= ?""",
                (now - PRESENT_SECONDS, code, now - self.idle_seconds)).fetchone()
        if row is None:
            return None
        step, quiz, closed, version, round_, shown, revealed, answered, present, members, settings, digest, closes = row
        return Snapshot(code, step, bool(quiz), closed > 0, version, round_, bool(shown), bool(revealed), answered,
                        max(present, answered), members, json.loads(settings), digest, closes, now)

    @contextlib.contextmanager
    def _teacher_write(self, code: str, token: str | None) -> Iterator[sqlite3.Connection]:
        """A write transaction on a room whose teacher token is `token`; NotAllowed otherwise. Once it is
        committed, this process' pages waiting for the room (`wait_for_change`) wake up."""
        with self._transaction(write=True) as db:
            row = db.execute("SELECT teacher FROM rooms WHERE code = ?", (code,)).fetchone()
            if not token or row is None or not hmac.compare_digest(row[0], _hash(token)):
                raise NotAllowed("only the room's teacher can do that")
            yield db
        _changed(code)

    def _bump(self, db: sqlite3.Connection, code: str) -> None:
        changed = db.execute("UPDATE rooms SET version = version + 1, touched = ? WHERE code = ? AND closed = 0",
                             (self.clock(), code)).rowcount
        if not changed:
            raise NotAllowed("the room is closed")

    def set_step(self, code: str, token: str | None, step: int, quiz: bool | None = None,
                 card: dict | None = None) -> None:
        """The teacher is at `step` (and asks first or not): the class follows. `card`: what a phone shows of the
        step (phone_room.py), written in the same transaction (None, or past CARD_CHARS: none)."""
        body = _card_text(card)
        with self._teacher_write(code, token) as db:
            self._bump(db, code)
            db.execute("UPDATE rooms SET step = ?, quiz = COALESCE(?, quiz) WHERE code = ?",
                       (max(1, step), None if quiz is None else int(quiz), code))
            db.execute("INSERT OR IGNORE INTO room_steps (code, step) VALUES (?, ?)", (code, max(1, step)))
            if card is not None:
                db.execute("UPDATE room_steps SET card = ? WHERE code = ? AND step = ?", (body, code, max(1, step)))

    def set_card(self, code: str, token: str | None, step: int, card: dict) -> None:
        """Write `step`'s card alone (a teacher's tab that entered a room already at its step): the room's version
        stays (the Streamlit pages have nothing to redraw); this process' phones wake."""
        body = _card_text(card)
        with self._teacher_write(code, token) as db:
            if db.execute("SELECT closed FROM rooms WHERE code = ?", (code,)).fetchone()[0]:
                raise NotAllowed("the room is closed")
            db.execute("UPDATE rooms SET touched = ? WHERE code = ?", (self.clock(), code))
            db.execute("INSERT OR IGNORE INTO room_steps (code, step) VALUES (?, ?)", (code, max(1, step)))
            db.execute("UPDATE room_steps SET card = ? WHERE code = ? AND step = ?", (body, code, max(1, step)))

    def card(self, code: str, step: int) -> dict | None:
        """The card the teacher's page wrote for `step` (set_step, set_card), or None."""
        with self._transaction() as db:
            row = db.execute("SELECT card FROM room_steps WHERE code = ? AND step = ?", (code, step)).fetchone()
        return json.loads(row[0]) if row is not None and row[0] else None

    def member_at(self, code: str, token: str, step: int) -> tuple[str, dict[int, str]] | None:
        """The nickname of the student whose token this is and their choice in each round at `step` (one
        transaction), or None (not a member)."""
        member = _hash(token)
        with self._transaction() as db:
            row = db.execute("SELECT nickname FROM members WHERE code = ? AND member = ?", (code, member)).fetchone()
            if row is None:
                return None
            votes = db.execute("SELECT round, choice FROM votes WHERE code = ? AND step = ? AND member = ?",
                               (code, step, member)).fetchall()
        return row[0], dict(votes)

    def _step_action(self, code: str, token: str | None, step: int, sql: str, round_: int | None = None,
                     values: tuple = ()) -> bool:
        """One teacher action at `step`; whether it changed the room.

        `round_`: the round the teacher's click was meant for (the round the projector showed). A click for a
        round that is over, or a second press of the same button, then changes nothing and wakes no page (the
        room's version stays). Without it, the action applies to the current round and the version moves."""
        with self._teacher_write(code, token) as db:
            if round_ is None:
                self._bump(db, code)
            elif db.execute("SELECT closed FROM rooms WHERE code = ?", (code,)).fetchone()[0]:
                raise NotAllowed("the room is closed")
            db.execute("INSERT OR IGNORE INTO room_steps (code, step) VALUES (?, ?)", (code, step))
            if round_ is None:
                db.execute(sql, (*values, code, step))
                return True
            if not db.execute(sql + " AND round = ?", (*values, code, step, round_)).rowcount:
                return False
            self._bump(db, code)
            return True

    def show_answers(self, code: str, token: str | None, step: int, round_: int | None = None) -> bool:
        """Close the current round's vote and show its answers (`round_`: only if that round is the current one
        and still open). Whether the room changed."""
        return self._step_action(code, token, step, "UPDATE room_steps SET shown = 1 WHERE code = ? AND step = ?"
                                 + ("" if round_ is None else " AND shown = 0 AND revealed = 0"), round_)

    def vote_again(self, code: str, token: str | None, step: int, round_: int | None = None) -> bool:
        """Open another round at `step` (after its answers were shown and discussed; `round_`: only if that
        round is the current one). Whether the room changed."""
        return self._step_action(code, token, step, "UPDATE room_steps SET round = round + 1, shown = 0, closes = 0 "
                                 f"WHERE code = ? AND step = ? AND shown = 1 AND revealed = 0 AND round < {MAX_ROUNDS}",
                                 round_)

    def countdown(self, code: str, token: str | None, step: int, round_: int, seconds: float) -> bool:
        """Close the vote of `round_` at `step` in `seconds` (one of COUNTDOWN_SECONDS): only while that round is
        the current one, open, and has no countdown yet. Whether the room changed."""
        if seconds not in COUNTDOWN_SECONDS:
            raise NotAllowed("not one of the countdowns")
        return self._step_action(code, token, step, "UPDATE room_steps SET closes = ? WHERE code = ? AND step = ? "
                                 "AND shown = 0 AND revealed = 0 AND closes = 0", round_,
                                 (self.clock() + seconds,))

    def reveal(self, code: str, token: str | None, step: int) -> None:
        self._step_action(code, token, step, "UPDATE room_steps SET revealed = 1, shown = 1 WHERE code = ? AND step = ?")

    def close(self, code: str, token: str | None) -> None:
        """Make the room read-only (its record stays until it expires)."""
        with self._teacher_write(code, token) as db:
            self._bump(db, code)
            db.execute("UPDATE rooms SET closed = ? WHERE code = ?", (self.clock(), code))

    def expire(self) -> int:
        """Remove the rooms untouched for longer than the idle time; how many went."""
        with self._transaction(write=True) as db:
            return db.execute("DELETE FROM rooms WHERE touched < ?", (self.clock() - self.idle_seconds,)).rowcount

    # ----- students -------------------------------------------------------------------------------
    def join(self, code: str, token: str | None = None, nickname: str | None = None) -> Member:
        """The student whose link carries `token`, or a new one (a new token and a generated nickname)."""
        now = self.clock()
        token = valid_token(token)
        with self._transaction(write=True) as db:
            if db.execute("SELECT 1 FROM rooms WHERE code = ? AND touched >= ?",
                          (code, now - self.idle_seconds)).fetchone() is None:
                raise NotAllowed("there is no such room")
            if token is not None:
                row = db.execute("SELECT nickname FROM members WHERE code = ? AND member = ?",
                                 (code, _hash(token))).fetchone()
                if row is not None:
                    db.execute("UPDATE members SET seen = ? WHERE code = ? AND member = ?", (now, code, _hash(token)))
                    return Member(token, row[0])
            if db.execute("SELECT locked FROM rooms WHERE code = ?", (code,)).fetchone()[0]:
                raise NotAllowed("the teacher has locked the room: no one new can join now")
            if db.execute("SELECT COUNT(*) FROM members WHERE code = ?", (code,)).fetchone()[0] >= MAX_MEMBERS:
                # full: first make room by removing the members who never voted and left long ago (a tab
                # opened and closed, or someone opening the link over and over)
                db.execute("DELETE FROM members WHERE code = ? AND seen < ? AND NOT EXISTS (SELECT 1 FROM votes v "
                           "WHERE v.code = members.code AND v.member = members.member)",
                           (code, now - STALE_MEMBER_SECONDS))
                if db.execute("SELECT COUNT(*) FROM members WHERE code = ?", (code,)).fetchone()[0] >= MAX_MEMBERS:
                    raise NotAllowed(f"the room is full ({MAX_MEMBERS} students)")
            token = secrets.token_urlsafe(18)
            name = clean_nickname(nickname) or random_nickname()
            db.execute("INSERT INTO members (code, member, nickname, joined, seen) VALUES (?, ?, ?, ?, ?)",
                       (code, _hash(token), name, now, now))
            db.execute("UPDATE rooms SET touched = ? WHERE code = ?", (now, code))
        return Member(token, name)

    def rename(self, code: str, token: str, nickname: str) -> str:
        """Change a student's nickname (cut to NICKNAME_CHARS, shown as text); the nickname kept."""
        name = clean_nickname(nickname)
        with self._transaction(write=True) as db:
            if db.execute("SELECT 1 FROM rooms WHERE code = ? AND closed = 0 AND touched >= ?",
                          (code, self.clock() - self.idle_seconds)).fetchone() is None:
                raise NotAllowed("the room is closed: its record is read-only")
            if name:
                db.execute("UPDATE members SET nickname = ? WHERE code = ? AND member = ?", (name, code, _hash(token)))
            row = db.execute("SELECT nickname FROM members WHERE code = ? AND member = ?",
                             (code, _hash(token))).fetchone()
        if row is None:
            raise NotAllowed("not a member of this room")
        return row[0]

    def roster(self, code: str) -> list[Seat]:
        """The room's students, by nickname: who is here and who has answered the current round."""
        now = self.clock()
        with self._transaction() as db:
            rows = db.execute(
                """SELECT m.member, m.nickname, m.seen >= ?,
                          EXISTS (SELECT 1 FROM votes v WHERE v.code = m.code AND v.member = m.member
                                  AND v.step = r.step AND v.round = COALESCE(s.round, 1))
                   FROM members m JOIN rooms r ON r.code = m.code
                   LEFT JOIN room_steps s ON s.code = r.code AND s.step = r.step
                   WHERE m.code = ? ORDER BY m.nickname, m.joined""", (now - PRESENT_SECONDS, code)).fetchall()
        return [Seat(member, nickname, bool(here), bool(answered)) for member, nickname, here, answered in rows]

    def rename_student(self, code: str, token: str | None, member: str, nickname: str) -> str:
        """The teacher renames a student (`member`: a Seat's); the nickname kept ("" leaves it as it was)."""
        name = clean_nickname(nickname)
        with self._teacher_write(code, token) as db:
            if name:
                db.execute("UPDATE members SET nickname = ? WHERE code = ? AND member = ?", (name, code, member))
            row = db.execute("SELECT nickname FROM members WHERE code = ? AND member = ?", (code, member)).fetchone()
            self._bump(db, code)
        if row is None:
            raise NotAllowed("no such student in this room")
        return row[0]

    def remove_student(self, code: str, token: str | None, member: str) -> None:
        """The teacher removes a student and their votes (the page that had them joins again as someone new,
        unless the room is locked)."""
        with self._teacher_write(code, token) as db:
            db.execute("DELETE FROM votes WHERE code = ? AND member = ?", (code, member))
            db.execute("DELETE FROM members WHERE code = ? AND member = ?", (code, member))
            self._bump(db, code)

    def lock(self, code: str, token: str | None, locked: bool) -> None:
        """Let no one new join (`locked`), or let them again; the students who joined always come back."""
        with self._teacher_write(code, token) as db:
            db.execute("UPDATE rooms SET locked = ? WHERE code = ?", (int(locked), code))
            self._bump(db, code)

    def is_member(self, code: str, token: str) -> bool:
        with self._transaction() as db:
            return db.execute("SELECT 1 FROM members WHERE code = ? AND member = ?",
                              (code, _hash(token))).fetchone() is not None

    def is_locked(self, code: str) -> bool:
        with self._transaction() as db:
            row = db.execute("SELECT locked FROM rooms WHERE code = ?", (code,)).fetchone()
        return bool(row and row[0])

    def seen(self, code: str, token: str) -> None:
        """The student is here now (the page calls it at most every SEEN_SECONDS)."""
        with self._transaction(write=True) as db:
            db.execute("UPDATE members SET seen = ? WHERE code = ? AND member = ?", (self.clock(), code, _hash(token)))

    def vote(self, code: str, token: str, step: int, round_: int, choice: str, kind: str = "pair") -> None:
        """Record a student's choice in this round at this step: once per (room, step, round, student).
        Voting again in the same round replaces the choice (until the answers are shown); NotAllowed when
        the vote is not open (another step, a shown round, a revealed merge, the teacher's countdown over, a
        closed or idle room). A vote
        touches the room (it is a use of it), so a class still voting keeps its room."""
        if not choice or len(choice) > CHOICE_CHARS:
            raise NotAllowed("not a choice")
        now = self.clock()
        member = _hash(token)
        with self._transaction(write=True) as db:
            row = db.execute(
                """SELECT r.step, r.quiz, r.closed, s.round, s.shown, s.revealed, s.closes,
                          EXISTS (SELECT 1 FROM members m WHERE m.code = r.code AND m.member = ?)
                   FROM rooms r JOIN room_steps s ON s.code = r.code AND s.step = r.step
                   WHERE r.code = ? AND r.touched >= ?""",
                (member, code, now - self.idle_seconds)).fetchone()
            if row is None or not row[7]:
                raise NotAllowed("not a member of this room")
            room_step, quiz, closed, current, shown, revealed, closes, _ = row
            if closed or not quiz or revealed or shown or room_step != step or current != round_:
                raise NotAllowed("this vote is over")
            if closes and now >= closes:
                raise NotAllowed("the time for this vote is up")
            db.execute("INSERT INTO votes (code, step, round, member, kind, choice, at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                       "ON CONFLICT (code, step, round, member) DO UPDATE SET choice = excluded.choice, "
                       "kind = excluded.kind, at = excluded.at", (code, step, round_, member, kind, choice, now))
            db.execute("UPDATE members SET seen = ? WHERE code = ? AND member = ?", (now, code, member))
            db.execute("UPDATE rooms SET touched = ? WHERE code = ?", (now, code))  # a vote is a use of the room

    def revealed_steps(self, code: str) -> set[int]:
        """The steps whose merge the teacher revealed."""
        with self._transaction() as db:
            return {s for (s,) in db.execute("SELECT step FROM room_steps WHERE code = ? AND revealed = 1", (code,))}

    def my_votes(self, code: str, token: str, step: int) -> dict[int, str]:
        """A student's choice in each round at `step`."""
        with self._transaction() as db:
            rows = db.execute("SELECT round, choice FROM votes WHERE code = ? AND step = ? AND member = ?",
                              (code, step, _hash(token))).fetchall()
        return dict(rows)

    def tally(self, code: str, step: int) -> dict[int, dict[str, int]]:
        """Each round's choices at `step` and how many chose each."""
        with self._transaction() as db:
            rows = db.execute("SELECT round, choice, COUNT(*) FROM votes WHERE code = ? AND step = ? "
                              "GROUP BY round, choice ORDER BY round, choice", (code, step)).fetchall()
        out: dict[int, dict[str, int]] = {}
        for round_, choice, count in rows:
            out.setdefault(round_, {})[choice] = count
        return out

    def record(self, code: str) -> list[tuple[int, int, str, str, str]]:
        """Every vote of the room: (step, round, nickname, kind, choice), by step, round and nickname."""
        with self._transaction() as db:
            return db.execute(
                "SELECT v.step, v.round, m.nickname, v.kind, v.choice FROM votes v JOIN members m "
                "ON m.code = v.code AND m.member = v.member WHERE v.code = ? ORDER BY v.step, v.round, m.nickname, "
                "v.choice", (code,)).fetchall()


def _reason(exc: BaseException) -> str:
    text = str(exc).lower()
    if "full" in text:
        return "the data folder's disk is full"
    if "locked" in text or "busy" in text:
        return "the rooms' store is busy (another process has held it for seconds)"
    if "not a database" in text or "malformed" in text:
        return "the rooms' store in the data folder is damaged"
    return "the data folder cannot be written"
