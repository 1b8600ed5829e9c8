"""wordpiece_ui/datastore.py: the data directory's store of pasted and uploaded files, by digest.

Put and find by digest, the budget (least recently used first), expiry, the pin hook, a restart
(reopening), several threads and processes writing at once, a kill -9 in the middle of writes, and
a folder that cannot be used (the files are then kept in memory, and `problem` says why)."""

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from helpers import Clock, cli_env
from wordpiece_ui import datastore
from wordpiece_ui.datastore import DB_NAME, SCHEMA_VERSION, DataStore, valid_id

DAY = 86400.0


@pytest.fixture
def clock():
    return Clock()


def store(folder, clock, budget=10_000, days=7):
    return DataStore(str(folder), budget_bytes=budget, max_age_seconds=days * DAY, clock=clock)


def test_a_file_is_kept_by_the_digest_of_its_content_and_found_by_its_id(tmp_path, clock):
    s = store(tmp_path, clock)
    kept = s.put("upload", "corpus.txt", b"hug pug pun bun hugs")
    assert kept.digest == hashlib.sha256(b"hug pug pun bun hugs").hexdigest() and kept.saved
    assert kept.id == kept.digest[:16] and s.problem is None
    assert s.find(kept.id) == kept and s.find(kept.digest) == kept and s.find(kept.id.upper().lower()) == kept
    assert s.read(kept.digest) == b"hug pug pun bun hugs"
    assert s.find("0" * 16) is None and s.read("0" * 64) is None
    again = s.put("paste", "the pasted text", b"hug pug pun bun hugs")  # the same content: kept once
    assert again.digest == kept.digest and again.name == "the pasted text" and s.used() == kept.size


def test_the_database_has_its_schema_version_and_is_in_wal_mode(tmp_path, clock):
    store(tmp_path, clock).put("paste", "p", b"x")
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} == {"files", "blobs"}


def test_the_budget_evicts_the_least_recently_used_first(tmp_path, clock):
    s = store(tmp_path, clock, budget=3_000)
    a = s.put("upload", "a.txt", b"a" * 1_000)
    clock.advance(100)
    b = s.put("upload", "b.txt", b"b" * 1_000)
    clock.advance(100)
    c = s.put("upload", "c.txt", b"c" * 1_000)
    clock.advance(100)
    assert s.find(a.id) is not None  # a is used again: b is now the least recently used
    clock.advance(100)
    d = s.put("upload", "d.txt", b"d" * 1_000)
    assert s.find(b.id) is None and s.read(b.digest) is None
    assert all(s.find(f.id) is not None for f in (a, c, d)) and s.used() == 3_000


def test_a_file_larger_than_the_budget_is_kept_in_memory_and_says_why(tmp_path, clock):
    s = store(tmp_path, clock, budget=1_000)
    small = s.put("upload", "small.txt", b"s" * 500)
    big = s.put("upload", "big.txt", b"b" * 2_000)
    assert not big.saved and "does not fit" in s.problem and "does not fit" in big.why_not_saved
    assert s.read(big.digest) == b"b" * 2_000  # still usable until the server restarts
    assert s.find(small.id) is not None  # nothing was evicted for a file that could never fit
    assert s.put("upload", "other.txt", b"o" * 10).saved and s.problem is None
    assert "does not fit" in big.why_not_saved  # the file keeps its own reason, whatever is saved after it


def test_a_file_in_use_is_marked_used_and_outlives_the_expiry(tmp_path, clock):
    s = store(tmp_path, clock, days=7)
    kept = s.put("paste", "p", b"in use every day")
    for _ in range(10):  # a class uses it from its sessions (not by opening a link): ten days
        clock.advance(1 * DAY)
        s.touch(kept)
    assert s.find(kept.id) is not None


def test_deleted_files_give_their_pages_back_to_the_disk(tmp_path, clock):
    s = store(tmp_path, clock, budget=100_000_000, days=7)
    for n in range(5):
        s.put("upload", f"f{n}", bytes([n]) * 2_000_000)
    size = os.path.getsize(tmp_path / DB_NAME)
    clock.advance(8 * DAY)
    assert s.expire() == 5
    assert os.path.getsize(tmp_path / DB_NAME) < size / 10


def test_files_expire_days_after_their_last_use(tmp_path, clock):
    s = store(tmp_path, clock, days=7)
    old = s.put("paste", "p", b"old")
    used = s.put("paste", "p", b"used")
    clock.advance(6 * DAY)
    assert s.find(used.id) is not None  # a use: its seven days start again
    clock.advance(2 * DAY)
    assert s.find(old.id) is None and s.read(old.digest) is None  # eight days unused: gone
    assert s.find(used.id) is not None
    assert s.expire() == 1  # deleted, not only hidden
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        assert db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == 1


def test_a_pinned_file_is_neither_evicted_nor_expired_until_its_pin_lapses(tmp_path, clock):
    """The hook for a live class room: it pins its corpus while the room is open."""
    s = store(tmp_path, clock, budget=2_000, days=7)
    room = s.put("upload", "room.txt", b"r" * 1_000)
    assert s.pin(room.digest, clock() + 30 * DAY)
    assert not s.pin("f" * 64, clock() + DAY)  # gone: nothing to pin
    clock.advance(10)
    for i in range(5):  # the budget fills up and over again: never with the pinned file
        s.put("upload", f"{i}.txt", bytes([i]) * 1_000)
        clock.advance(10)
    assert s.find(room.id) is not None
    clock.advance(20 * DAY)  # unused for 20 days, but pinned
    assert s.find(room.id) is not None and s.expire() >= 1 and s.read(room.digest) == b"r" * 1_000
    clock.advance(31 * DAY)  # the pin lapsed (the room ended) and 7 days have passed without use
    assert s.find(room.id) is None
    everything_pinned = store(tmp_path / "pins", clock, budget=1_000)
    pinned = everything_pinned.put("upload", "p.txt", b"p" * 1_000)
    everything_pinned.pin(pinned.digest, clock() + DAY)
    assert not everything_pinned.put("upload", "q.txt", b"q" * 10).saved  # no room beside the pinned file


def test_a_restart_reopens_the_same_files(tmp_path, clock):
    first = store(tmp_path, clock)
    kept = first.put("upload", "corpus.tsv", b"hug\t10\n")
    del first
    reopened = store(tmp_path, clock)
    assert reopened.find(kept.id) == kept and reopened.read(kept.digest) == b"hug\t10\n"


def test_threads_writing_and_reading_at_once(tmp_path):
    s = DataStore(str(tmp_path), budget_bytes=10_000_000)
    errors = []

    def work(n):
        try:
            for i in range(20):
                data = f"thread {n} file {i}".encode() * 50
                kept = s.put("paste", "p", data)
                assert kept.saved and s.read(kept.digest) == data and s.find(kept.id) is not None
        except Exception as exc:  # reported below, with the thread's failure
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert s.problem is None and s.used() == sum(len(f"thread {n} file {i}".encode()) * 50 for n in range(8) for i in range(20))


WRITER = """
import sys
from wordpiece_ui.datastore import DataStore
s = DataStore(sys.argv[1], budget_bytes=int(sys.argv[3]))
for i in range(int(sys.argv[4])):
    kept = s.put("upload", f"{sys.argv[2]}-{i}.txt", f"{sys.argv[2]} {i} ".encode() * 200)
    assert kept.saved, s.problem
print("ok", flush=True)
"""


@pytest.mark.slow
def test_two_processes_writing_at_once_keep_every_file_within_the_budget(tmp_path):
    budget = 2_000_000
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), name, str(budget), "60"], env=cli_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in ("one", "two")]
    outputs = [w.communicate(timeout=120) for w in writers]
    assert all(w.returncode == 0 and out.strip() == "ok" for w, (out, _) in zip(writers, outputs)), outputs
    s = DataStore(str(tmp_path), budget_bytes=budget)
    for name in ("one", "two"):
        for i in range(60):
            data = f"{name} {i} ".encode() * 200
            assert s.read(hashlib.sha256(data).hexdigest()) == data
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


KEEP_WRITING = """
import sys
from wordpiece_ui.datastore import DataStore
s = DataStore(sys.argv[1], budget_bytes=300_000)
i = 0
while True:
    s.put("upload", f"{i}.txt", f"{i} ".encode() * 5_000)
    i += 1
    if i == 5:
        print("writing", flush=True)
"""


@pytest.mark.slow
def test_a_kill_9_in_the_middle_of_writes_leaves_a_consistent_store(tmp_path):
    writer = subprocess.Popen([sys.executable, "-c", KEEP_WRITING, str(tmp_path)], env=cli_env(), stdout=subprocess.PIPE,
                              text=True)
    assert writer.stdout.readline().strip() == "writing"
    time.sleep(0.3)  # well into its writes (each a transaction that evicts, inserts and vacuums)
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        files = db.execute("SELECT digest, size FROM files").fetchall()
    s = DataStore(str(tmp_path), budget_bytes=300_000)
    assert len(files) >= 5 and s.used() <= 300_000
    for digest, size in files:  # every file listed has its whole content
        data = s.read(digest)
        assert data is not None and len(data) == size and hashlib.sha256(data).hexdigest() == digest
    assert s.put("upload", "after.txt", b"after the kill").saved


def _unusable(tmp_path, kind):
    if kind == "a file where the folder should be":
        (tmp_path / "taken").write_text("not a folder")
        return tmp_path / "taken" / "data"
    if kind == "a damaged database":
        (tmp_path / DB_NAME).write_bytes(b"this is not an SQLite database" * 100)
        return tmp_path
    with sqlite3.connect(tmp_path / DB_NAME) as db:  # a newer WordPiece Lab's schema
        db.execute("PRAGMA user_version = 99")
    return tmp_path


@pytest.mark.parametrize("kind,reason", [("a file where the folder should be", "the data folder cannot be written"),
                                         ("a damaged database", "the data folder's store is damaged"),
                                         ("a newer schema", "written by a newer WordPiece Lab")])
def test_a_folder_that_cannot_be_used_keeps_files_in_memory_and_says_why(tmp_path, clock, kind, reason, caplog):
    folder = _unusable(tmp_path, kind)
    s = store(folder, clock)
    assert reason in s.problem and "/" not in s.problem  # a line for the sidebar: no path (the console has it)
    assert str(folder) in caplog.text
    kept = s.put("upload", "corpus.txt", b"hug pug")
    assert not kept.saved and s.read(kept.digest) == b"hug pug" and s.find(kept.id) is not None
    assert s.used() == 0


def test_a_full_disk_keeps_the_file_in_memory_and_says_so(tmp_path, clock, monkeypatch):
    from wordpiece_ui import sqlite_files

    s = store(tmp_path, clock)
    connect = sqlite_files.connect

    def full(path):  # the data folder's database (the memory it falls back on has a connection of its own)
        db = connect(path)
        db.execute("PRAGMA max_page_count = 1")  # no page more than it has: SQLite's "database or disk is full"
        return db

    monkeypatch.setattr(sqlite_files, "connect", full)
    data = b"hug pug\n" * 800  # more than the free room in the database's pages
    kept = s.put("upload", "corpus.txt", data)
    assert not kept.saved and s.problem == "the data folder's disk is full"
    assert s.read(kept.digest) == data


@pytest.mark.parametrize("hostile", ["../../etc/passwd", "'; DROP TABLE files; --", "0123456789abcde", "g" * 16,
                                     "0" * 65, "٠١٢٣٤٥٦٧٨٩٠١٢٣٤٥", "%30" * 16, "", "0123456789abcdef/../x"])
def test_only_hexadecimal_ids_of_bounded_length_are_read(hostile):
    assert valid_id(hostile) is None


def test_the_folder_is_named_by_the_environment_else_the_users_data_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("WORDPIECE_LAB_DATA", str(tmp_path / "mine"))
    assert datastore.folder_from_env() == str(tmp_path / "mine")
    monkeypatch.delenv("WORDPIECE_LAB_DATA")
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert datastore.folder_from_env() == str(tmp_path / "xdg" / "wordpiece-lab")
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert datastore.folder_from_env() == str(tmp_path / ".local" / "share" / "wordpiece-lab")


def test_the_budget_and_the_expiry_come_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("WORDPIECE_LAB_DATA_MB", "50")
    monkeypatch.setenv("WORDPIECE_LAB_DATA_DAYS", "2")
    s = DataStore(str(tmp_path))
    assert s.budget == 50_000_000 and s.days == 2
    monkeypatch.setenv("WORDPIECE_LAB_DATA_MB", "lots")
    assert DataStore(str(tmp_path)).budget == 500_000_000
