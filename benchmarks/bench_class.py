"""A class of students on one WordPiece Lab server, simulated without a browser.

What it simulates: the app is started exactly as the README says (`python -m streamlit run
app.py`, plus a free `--server.port` and `--server.headless true`) from the project root,
as a subprocess of this script, with a fresh data folder of its own (WORDPIECE_LAB_DATA: the
kept corpora and the class rooms' rooms.sqlite3; removed at the end), and every "student" is
a websocket client that speaks Streamlit's own protocol (BackMsg / ForwardMsg protobufs on
`/_stcore/stream`, see `streamlit_client.py`): it opens a shareable link (the query string
the browser would send), follows the page's own reruns (callbacks, `st.rerun()`, `run_every` fragments such
as a training's progress poll), clicks the Train page's "Next" button (a fragment rerun,
as the browser sends it: the button's trigger, every other widget's current value and the
fragment's id) and clicks deferred download buttons (backend operation + HTTP GET of the
media URL); in a class room it also chooses a radio's option (the vote), opens a popover (the
teacher link) and waits for texts (the count, the step heading, "Your vote is in"). Only
loopback (127.0.0.1) is used.

Phases, measured in one run against one fresh server (after one warm-up visit: the
teacher opening the app before class):

1. class: N students (default 30) arrive within 5 s; a third open wordfreq-en with
   WordPiece and a vocabulary of 8,000, the others small corpora with varied settings;
   each clicks Next 5 times, 1–3 s apart. Page load = websocket opened → the first complete
   run that shows the step view (so a training that is not cached is included, however the
   page waits for it); step = click sent → the run it triggered finished (`script_finished`),
   checked to show the next step.
2. idle: after the class has left, one student on the course toy corpus clicks 10 times.
3. herd: one new training (wordfreq-en WordPiece, vocabulary 6,000 + a random offset) is
   opened by a single student and the server's CPU time for it measured; then 8 students
   open another new link at once, and the server's CPU time for the herd is divided by it.
   CPU time = user + system of the server and all its descendants, reaped ones included.
   (Shown beside it, to read the ratio: the CPU time of the same 8 page loads once trained.)
4. memory: the server tree's memory (the PSS of the server and its worker processes,
   summed, read from /proc/PID/smaps_rollup every ~100 ms: process_memory.py, as
   bench_train.py measures) during the class; held after 10 large trainings one after
   another; after one trace.jsonl download.
5. sessions that stay: N students (default 30; 8 with --quick) each open a different large
   training (wordfreq corpora, WordPiece, vocabulary 20,000 and up: about 20 MB each, more
   than the store's budget in all), click Next once and keep their tab open; the memory
   held while they are all still connected and after they have left, against the store's
   budget (`--cache-mb`, the server's WORDPIECE_LAB_CACHE_MB; the app's default otherwise).
6. big training: one student trains wordfreq-en with a 50,000 vocabulary while 5 others
   click on small corpora (0.3–1 s apart); their step times during the training, and after.
7. room: a live class room (rooms.py, classroom.py), for each size of --room-sizes (default
   30 then 60; a new room each), last as it restarts the server. The teacher opens the toy
   corpus (ROOM_LINK), clicks "Start a class room", reads "Class room CODE" and, from the
   popover "Teacher link" (opened and closed as the browser does: it tracks its state; its "Show it
   on this screen" clicked), the teacher link. N students open /?room=CODE within 3 s (the app puts student=TOKEN in their
   address bar). Then 5 hidden steps: each student's page follows the teacher's Next (its 1 s
   poll reruns the app), a third of the students look at the step before (Prev, then "Back to
   the class (step k)": their own step times), each votes for a random candidate within 3 s of
   seeing the step (the radio's change: a fragment rerun) and waits for "Your vote is in:
   PAIR"; the teacher waits for "### N of N answered" (its 1 s count), clicks "Reveal the
   merge", talks 3 s (--room-talk) and clicks Next. Measured: the last confirmation → the
   count's arrival (per step); the teacher's Next complete (and sent) → each student's new
   heading; the teacher's own Next; the students' Prev/Back clicks; the server's CPU per Next;
   the server tree's PSS. Then one more step with a restart (--no-room-restart to skip it):
   once half the class has voted, the server's whole tree is killed (kill -9) and started again
   on the same port and data folder; every student reopens its own last link
   (room=CODE&student=TOKEN&...) and votes if its page shows no vote of its; the teacher reopens
   the teacher link, waits for the count, reveals and moves on. Then each student's confirmed
   votes (the pairs its screen showed in "Your vote is in") are compared with rooms.sqlite3's
   votes table (read-only): votes lost, votes counted twice (more than one row for one student
   at one step, whatever its token), rows no screen confirmed or no student's token names.
   Also measured alone: what one poll reads (RoomStore.snapshot() on 60 members and 300 votes,
   median of 1000 calls) and a student's presence write (seen()).
   A student acts on what its page shows, as a person would: a page whose vote (or its
   confirmation) has not appeared after ROOM_PATIENCE s, or that has not followed the teacher
   after twice that, is reloaded (its own last link), and counted; a page that went back to
   the step before after a vote (see below) gets "Back to the class", and is counted.

Two things a class room meets on this server, which the room's rows count (the client sends
what the browser sends, so a browser should meet them too; not checked in a browser):
- The end of a run never arrives: Streamlit 1.67 ignores the remaining events of a
  ScriptRunner that is no longer the session's current one, and a fragment rerun request (a
  1 s poll) that arrives when the runner has just stopped, while its last messages still wait
  on the server's event loop, starts a new runner. The page misses its last elements (the
  vote, "Your vote is in") and the run's script_finished ("runs unfinished";
  streamlit_client.py).
- A student's page that goes back: a rerun request sent before the page received the
  Stepper's slider at its new position (a poll, while the server is busy with the class's
  reruns) carries the slider's old value; the server runs the slider's on_change, which moves
  the step back. The next run of the step view then draws the step before.
  (In the app since: a step view's run waits until the server's event loop has taken its
  messages (stepper.delivered), a poll whose request still names an older step redraws the page
  (classroom.browser_behind), and a slider value that comes with another fragment's run is no drag
  (Stepper._slid). The end message of a run can still be lost, so the rows may still count some.)

What it does not simulate: no browser renders anything, so the times are the server's
(run + transfer on loopback), not the time until pixels change; the browser's other HTTP
requests (static files, health checks, media HEAD checks), heartbeats and dataframe
chunk requests are not sent; the clients run on the same machine as the server (they use
little CPU: the total is printed).

    python benchmarks/bench_class.py [--quick] [--students N] [--port P] [--seed S]
                                     [--big-algorithm wordpiece|bpe] [--cache-mb MB] [--stay N]
                                     [--only PHASE,...] [--room-sizes N,...] [--room-talk S]
                                     [--no-room-restart]

    python benchmarks/bench_class.py --only room     # the class rooms alone (30, 60): about 4 minutes

Progress goes to stderr; the table (Markdown) to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import hashlib
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlencode, urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, ROOT)

from process_memory import process_tree, tree_pss_bytes  # noqa: E402
from streamlit_client import Run, StreamlitClient  # noqa: E402
from wordpiece_ui.rooms import CODE_ALPHABET, DB_NAME, ROOM_CODE_CHARS, RoomStore  # noqa: E402 (no Streamlit)

CLK_TCK = os.sysconf("SC_CLK_TCK")
MB = 1024 * 1024

# Targets (seconds, bytes, ratio).
STEP_MEDIAN, STEP_P90, LOAD_MEDIAN = 0.5, 1.5, 6.0
IDLE_STEP_MEDIAN = 0.2
HERD_CPU_RATIO = 1.5
CLASS_PEAK_PSS = 1.2e9
BUSY_STEP_MEDIAN = 0.5

# The class room (phase "room"): seconds, bytes.
ROOM_COUNT_P90 = 1.5  # the last student's vote confirmed → the teacher's "N of N answered" arrives
ROOM_FOLLOW_P90 = 1.5  # the teacher's Next complete → a student's heading shows the new step
ROOM_OWN_STEP_MEDIAN = 0.5  # a student's own Prev / "Back to the class" click
ROOM_PEAK_PSS = 1.2e9
ROOM_WAIT = 30.0  # a count or a run not there after this long is a failure
ROOM_PATIENCE = 5.0  # a student waits this long for a vote or its confirmation (twice this for the next step)
#                      to show, then reloads the page
ROOM_LINK = "/?corpus=course-toy&algorithm=wordpiece&step=1"  # the teacher's link (9 merges)
VOTE_LABEL = "Your vote: which pair merges next?"  # the student's radio (round 1)
FLOOD_STEP, FLOOD_SECONDS = 2, 3.0  # at this step the first student floods the vote for this long, unthrottled
_ROOM_CODE = re.compile(r"Class room ([%s]{%d})" % (CODE_ALPHABET, ROOM_CODE_CHARS))
_TEACHER_LINK = re.compile(r"[?&]room=([A-Z0-9]+)&teacher=([A-Za-z0-9_-]+)")
_CONFIRMED = re.compile(r"^Your vote is in\\?: (.*?)\\?\. (?:You may change|Wait for)")
PHASES = ("class", "idle", "herd", "memory", "stay", "big", "room")

# Per-phase time limits (seconds). The last phase ("big") may also use what the others left
# of their sum, so a full run ends within ~10 minutes and a --quick one within ~4 (about a
# minute when the app is fast).
BUDGETS = {"class": 150, "idle": 30, "herd": 120, "memory": 120, "stay": 180, "big": 150}
QUICK_BUDGETS = {"class": 60, "idle": 20, "herd": 45, "memory": 45, "stay": 60, "big": 60}
WARM_UP_LIMIT = 60

BIG_LINK = ("/?corpus=wordfreq-en&algorithm=wordpiece&vocab_size=8000&normalizer=none&pre_tokenizer=whitespace"
            "&tie_break=first&min_frequency=0&specials=none&step=1")
TOY_LINK = "/?corpus=course-toy&algorithm=wordpiece&vocab_size=30&step=1"
# The small corpora with varied settings; a missing parameter takes the corpus' suggested value.
SMALL_SETTINGS = [
    {"corpus": "course-toy", "algorithm": "wordpiece", "vocab_size": 30},
    {"corpus": "course-toy", "algorithm": "bpe", "vocab_size": 30},
    {"corpus": "course-toy", "algorithm": "wordpiece", "vocab_size": 40, "tie_break": "hf"},
    {"corpus": "course-toy", "algorithm": "bpe", "vocab_size": 35, "specials": "unk"},
    {"corpus": "course-sentences", "algorithm": "wordpiece"},
    {"corpus": "course-sentences", "algorithm": "bpe", "vocab_size": 70},
    {"corpus": "course-sentences", "algorithm": "wordpiece", "vocab_size": 90, "normalizer": "lowercase"},
    {"corpus": "course-sentences", "algorithm": "bpe", "vocab_size": 100, "tie_break": "hf"},
    {"corpus": "low-lower-newest-widest", "algorithm": "wordpiece"},
    {"corpus": "low-lower-newest-widest", "algorithm": "bpe", "vocab_size": 20},
    {"corpus": "low-lower-newest-widest", "algorithm": "wordpiece", "vocab_size": 25, "min_frequency": 0},
    {"corpus": "low-lower-newest-widest", "algorithm": "bpe", "vocab_size": 30, "tie_break": "hf"},
    {"corpus": "english-paragraphs", "algorithm": "wordpiece", "vocab_size": 200},
    {"corpus": "english-paragraphs", "algorithm": "bpe", "vocab_size": 250, "normalizer": "lowercase"},
]


def link(**params: object) -> str:
    return "/?" + urlencode({**params, "step": 1})


def small_link(i: int) -> str:
    return link(**SMALL_SETTINGS[i % len(SMALL_SETTINGS)])


def wordfreq_link(algorithm: str, vocab_size: int) -> str:
    return link(corpus="wordfreq-en", algorithm=algorithm, vocab_size=vocab_size)


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- the server


class Server:
    """`python -m streamlit run app.py` in the project root, and its process tree read from /proc."""

    def __init__(self, port: int, cache_mb: int | None = None, data: str | None = None) -> None:
        self.port = port
        self.cache_mb = cache_mb  # the store's budget (WORDPIECE_LAB_CACHE_MB); None: the app's default
        self.data = data  # the app's data folder (WORDPIECE_LAB_DATA: kept corpora, rooms.sqlite3); None: inherited
        self.base_url = f"http://127.0.0.1:{port}"
        self.log_file = tempfile.NamedTemporaryFile(prefix="bench_class-server-", suffix=".log", delete=False)
        self.process: subprocess.Popen | None = None
        self.died: int | None = None  # the exit code, if it ended before we stopped it

    def start(self, timeout: float = 60.0) -> None:
        command = [sys.executable, "-m", "streamlit", "run", "app.py",
                   "--server.port", str(self.port), "--server.headless", "true"]
        log(f"starting the server: {' '.join(command[1:])} (log: {self.log_file.name})")
        env = dict(os.environ)
        if self.cache_mb is not None:
            env["WORDPIECE_LAB_CACHE_MB"] = str(self.cache_mb)
        if self.data is not None:
            env["WORDPIECE_LAB_DATA"] = self.data
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=self.log_file,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}; see {self.log_file.name}")
            try:
                with opener.open(f"{self.base_url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the server did not answer within {timeout:.0f} s; see {self.log_file.name}")

    def stop(self) -> None:
        """Stop the server and whatever it forked (its own process group), politely first."""
        if self.process is None:
            return
        if self.process.poll() is not None:
            self.died = self.process.returncode
            return
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            try:
                self.process.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue

    def kill(self) -> None:
        """kill -9 the server and every process of its tree at once (no chance to finish anything)."""
        pids = process_tree(self.process.pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        for pid in pids:  # (a descendant that left the process group)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.process.wait(10)

    def cpu_seconds(self) -> float:
        """CPU time of the tree so far: user + system, plus that of children already reaped."""
        ticks = 0
        for pid in process_tree(self.process.pid):
            fields = _stat_fields(pid)
            if fields:
                ticks += sum(int(v) for v in fields[11:15])  # utime stime cutime cstime
        return ticks / CLK_TCK

    def pss_bytes(self) -> int:
        """The memory of the server and its worker processes: their summed PSS (process_memory.py)."""
        return tree_pss_bytes(self.process.pid)

    def log_tail(self, lines: int = 15) -> str:
        with open(self.log_file.name, errors="replace") as fh:
            return "".join(fh.readlines()[-lines:])


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/PID/stat after the command name: [state, ppid, ...]; None if the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


class MemorySampler(threading.Thread):
    """Samples the server tree's memory (summed PSS) every ~100 ms; peaks over any time window."""

    def __init__(self, server: Server, interval: float = 0.1) -> None:
        super().__init__(daemon=True, name="pss-sampler")
        self.server, self.interval = server, interval
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()

    def run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(Exception):
                self.samples.append((time.monotonic(), self.server.pss_bytes()))
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()

    def peak(self, start: float, end: float) -> int:
        return max((pss for t, pss in list(self.samples) if start <= t <= end), default=0)


# ---------------------------------------------------------------------------- measurements


def median(values: list[float]) -> float:
    return statistics.median(values)


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]  # nearest rank


@dataclass
class Row:
    what: str
    measured: str
    target: str
    verdict: str


def secs(x: float) -> str:
    return f"{x:.2f} s"


def judged(value: float, limit: float) -> str:
    return "pass" if value <= limit else "FAIL"


@dataclass
class Group:
    """Step latencies and page loads of a group of students, with what went wrong."""

    steps: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class Pupil:
    """A student of the class room, as the benchmark follows it (its client changes when it reopens its link)."""

    label: str
    client: StreamlitClient | None = None
    tokens: list[str] = field(default_factory=list)  # the student= tokens its address bar carried
    confirmed: dict[int, str] = field(default_factory=dict)  # step → the pair "Your vote is in" confirmed
    confirmed_at: dict[int, float] = field(default_factory=dict)  # step → when that text arrived
    followed: dict[int, float] = field(default_factory=dict)  # step → when its heading arrived
    wandered: int = 0  # steps at which it looked at the step before (Prev, Back to the class)


@dataclass
class RoomResult:
    n: int
    code: str = ""
    pupils: list[Pupil] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)  # students joining (page loads)
    counts: list[float] = field(default_factory=list)  # per step: last vote confirmed → the teacher's count
    follows: list[float] = field(default_factory=list)  # the teacher's Next done → a student's new heading
    own_steps: list[float] = field(default_factory=list)  # students' Prev / Back to the class clicks
    vote_runs: list[float] = field(default_factory=list)  # a vote's run (choice sent → run finished)
    reopen_loads: list[float] = field(default_factory=list)
    reloads: list[str] = field(default_factory=list)  # pages a student had to reload, and why
    bounces: list[str] = field(default_factory=list)  # votes after which the page showed the step before
    next_runs: list[float] = field(default_factory=list)  # the teacher's Next clicks
    next_cpu: float = 0.0  # the server's CPU time when the last Next was sent
    follow_cpu: list[float] = field(default_factory=list)  # server CPU from a Next until the class showed it
    follows_sent: list[float] = field(default_factory=list)  # the teacher's Next sent → a student's new heading
    follows_after_restart: list[float] = field(default_factory=list)
    follows_after_restart_sent: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    peak: int = 0
    timed_out: bool = False
    voted_at_kill: int = 0
    restart_seconds: float = 0.0
    count_after_restart: float | None = None
    votes_checked: bool = False
    votes_lost: int = 0
    votes_twice: int = 0
    votes_unknown: int = 0
    votes_unconfirmed: int = 0
    votes_stored: int = 0
    votes_confirmed: int = 0
    votes_attempted: int = 0
    members_stored: int = 0
    runs: int = 0  # script runs the room's clients saw start
    unfinished: int = 0  # of them, runs that ended with no script_finished (streamlit_client.py says why)
    failed: list[str] = field(default_factory=list)
    flood_sent: int = 0  # choices the flooding student sent (at FLOOD_STEP, in FLOOD_SECONDS)
    flood_stored: int | None = None  # its votes the store holds at that step's round 1
    others_during_flood: list[float] = field(default_factory=list)  # the other students' clicks meanwhile
    flood_window: tuple[float, float] = (0.0, 0.0)


def _unescape(markdown: str) -> str:
    """Text that safe.md escaped, as typed."""
    return re.sub(r"\\(.)", r"\1", markdown)


class Bench:
    def __init__(self, args: argparse.Namespace, server: Server, sampler: MemorySampler) -> None:
        self.args, self.server, self.sampler = args, server, sampler
        self.rng = random.Random(args.seed)
        self.clients: set[StreamlitClient] = set()
        self.rows: list[Row] = []
        self.notes: list[str] = []
        self.fragment_clicks = 0
        self.full_clicks = 0
        self.page_errors: list[str] = []
        self.started = time.monotonic()
        self.budgets: dict[str, int] = {}  # the time limit each phase was given
        self.class_peak: int | None = None  # set by the class phase
        self.room_results: list[RoomResult] = []
        self.room_clients: list[StreamlitClient] | None = None  # during a room: its clients, closed ones too
        self.notes_room: list[str] = []

    # -------------------------------------------------------------- helpers

    def client(self, url: str, run_timeout: float | None = None) -> StreamlitClient:
        c = StreamlitClient(self.server.base_url, url, run_timeout=run_timeout or self.args.run_timeout)
        self.clients.add(c)
        if self.room_clients is not None:
            self.room_clients.append(c)
        return c

    async def close_all(self) -> None:
        clients, self.clients = list(self.clients), set()
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)

    async def open(self, c: StreamlitClient, group: Group, label: str) -> Run | None:
        """Open the link; loaded = the step view is shown (after the training, if the page polls
        for it), or an error is, or the page has nothing left to wait for."""
        try:
            run = await c.open(ready=lambda c: c.step is not None or bool(c.errors) or not c.auto_rerunning)
        except Exception as exc:  # refused, closed, timed out, protocol error
            group.errors.append(f"{label}: page load failed: {exc}")
            return None
        self._check(run, label)
        if c.step is None:
            shown = "; ".join(run.errors) or "no error shown"
            group.errors.append(f"{label}: the page shows no step control ({shown})")
            return None
        group.loads.append(run.seconds)
        return run

    async def step(self, c: StreamlitClient, group: Group, label: str) -> Run | None:
        """Click Next (Prev at the last step, where Next is disabled) and check the step moved by one."""
        before = c.step
        if before is None:
            return None
        button = "Prev" if c.buttons.get("Next") is None or c.buttons["Next"].disabled else "Next"
        try:
            run = await c.click(button)
        except Exception as exc:  # closed, timed out, protocol error
            group.errors.append(f"{label}: {button} failed: {exc}")
            return None
        if run.fragment:
            self.fragment_clicks += 1
        else:
            self.full_clicks += 1
        self._check(run, label)
        expected = before[0] + (1 if button == "Next" else -1)
        if c.step is None or c.step[0] != expected:
            group.errors.append(f"{label}: {button} at step {before[0]} showed step {c.step and c.step[0]}")
        return run

    def _check(self, run: Run, label: str) -> None:
        for text in run.errors:
            self.page_errors.append(f"{label}: {text}")

    def think(self, low: float, high: float) -> float:
        return self.rng.uniform(low, high)

    async def bounded(self, phase: str, body) -> bool:
        """Run a phase's body within its time budget; True if it timed out. Clients are closed after."""
        budget = self.budgets[phase] = self.budget(phase)
        try:
            async with asyncio.timeout(budget):
                await body
            return False
        except TimeoutError:
            log(f"{phase}: timed out after {budget} s")
            return True
        finally:
            await self.close_all()

    def budget(self, phase: str) -> int:
        table = QUICK_BUDGETS if self.args.quick else BUDGETS
        if phase.startswith("room "):  # one class room: its students, its steps, a restart
            return 60 + 2 * int(phase.split()[1]) + 15 * self.args.room_steps
        if phase == "big":  # the last of the phases above: also what the others left unused
            return max(table[phase], int(sum(table.values()) - (time.monotonic() - self.started)))
        if phase == "stay":  # about 3 CPU s a training, on 2 cores, with the arrivals and page loads
            return max(table[phase], 6 * self.args.stay)
        return table[phase]

    async def wait_idle(self, max_wait: float = 15.0, below: float = 0.05) -> None:
        """Wait until the server uses less than `below` of a core over half a second."""
        deadline = time.monotonic() + max_wait
        while time.monotonic() < deadline:
            cpu0, t0 = self.server.cpu_seconds(), time.monotonic()
            await asyncio.sleep(0.5)
            if (self.server.cpu_seconds() - cpu0) / (time.monotonic() - t0) < below:
                return
        log(f"the server was still busy after {max_wait:.0f} s; measuring anyway")

    # -------------------------------------------------------------- phases

    async def warm_up(self) -> None:
        """The teacher opens the app once before class (imports, first-visit navigation)."""
        group = Group()
        async with asyncio.timeout(WARM_UP_LIMIT):
            run = await self.open(self.client(TOY_LINK), group, "warm-up")
        await self.close_all()
        if run is None:
            raise RuntimeError(f"the app's Train page does not load: {group.errors[0]}")
        log(f"warm-up: first page load {secs(run.seconds)}")
        await self.wait_idle()
        self.base_pss = self.server.pss_bytes()
        log(f"warm-up: server tree PSS {self.base_pss / MB:,.0f} MB")

    async def phase_class(self) -> None:
        a = self.args
        n_big = a.students // 3
        links = [BIG_LINK] * n_big + [small_link(i) for i in range(a.students - n_big)]
        self.rng.shuffle(links)
        big, small = Group(), Group()
        log(f"class: {a.students} students ({n_big} on wordfreq-en WordPiece 8,000), {a.clicks} clicks each")

        async def student(i: int, url: str) -> None:
            group = big if url == BIG_LINK else small
            label = f"student {i + 1}"
            await asyncio.sleep(self.think(0, a.arrival))
            c = self.client(url)
            run = await self.open(c, group, label)
            if run is None:
                return
            log(f"class: {label} loaded {url[2:40]}… in {secs(run.seconds)}")
            for _ in range(a.clicks):
                await asyncio.sleep(self.think(*a.think))
                if (step := await self.step(c, group, label)) is None:
                    return
                group.steps.append(step.seconds)

        start = time.monotonic()
        timed_out = await self.bounded("class", asyncio.gather(*(student(i, u) for i, u in enumerate(links))))
        end = time.monotonic()
        steps, loads = big.steps + small.steps, big.loads + small.loads
        expected_steps = a.students * a.clicks
        what = (f"class: {a.students} students open a link and click Next {a.clicks}× "
                f"({n_big} on wordfreq-en WordPiece 8,000, {a.students - n_big} on small corpora)")
        self.add_latency_row(f"{what} — step median", steps, expected_steps, median, STEP_MEDIAN, timed_out, "class",
                             detail=self.split(big.steps, small.steps, median))
        self.add_latency_row("class — step p90", steps, expected_steps, p90, STEP_P90, timed_out, "class",
                             detail=self.split(big.steps, small.steps, p90))
        self.add_latency_row("class — page-load median", loads, a.students, median, LOAD_MEDIAN, timed_out, "class",
                             detail=self.split(big.loads, small.loads, median), count_word="loads")
        self.class_peak = self.sampler.peak(start, end)
        self.report_errors("class", big.errors + small.errors)

    async def phase_idle(self) -> None:
        group = Group()
        clicks = self.args.idle_clicks

        async def body() -> None:
            await self.wait_idle()
            c = self.client(TOY_LINK)
            if await self.open(c, group, "idle student") is None:
                return
            for _ in range(clicks):
                await asyncio.sleep(self.think(0.2, 0.4))
                if (step := await self.step(c, group, "idle student")) is None:
                    return
                group.steps.append(step.seconds)

        log(f"idle: one student on course-toy, {clicks} clicks")
        timed_out = await self.bounded("idle", body())
        self.idle_median = median(group.steps) if group.steps else None
        self.add_latency_row(f"after the class has left: one student on course-toy, median of {clicks} clicks "
                             "(Next, or Prev at the last step)", group.steps, clicks, median, IDLE_STEP_MEDIAN,
                             timed_out, "idle")
        self.report_errors("idle", group.errors)

    async def phase_herd(self) -> None:
        base = 6000 + self.rng.randrange(0, 900, 2)
        solo_link, herd_link = wordfreq_link("wordpiece", base), wordfreq_link("wordpiece", base + 1)
        herd_size = self.args.herd
        result: dict[str, float] = {}
        group = Group()

        async def body() -> None:
            await self.wait_idle()
            cpu0 = self.server.cpu_seconds()
            if await self.open(self.client(solo_link), group, "solo") is None:
                return
            result["solo"] = self.server.cpu_seconds() - cpu0
            log(f"herd: one new training alone (vocab {base}): {result['solo']:.2f} CPU s, "
                f"load {secs(group.loads[-1])}")
            await self.close_all()
            await self.wait_idle()
            cpu0 = self.server.cpu_seconds()
            clients = [self.client(herd_link) for _ in range(herd_size)]
            runs = await asyncio.gather(*(self.open(c, group, f"herd {i + 1}") for i, c in enumerate(clients)))
            result["herd"] = self.server.cpu_seconds() - cpu0
            result["trained"] = sum(1 for r in runs if r is not None and r.progress_updates)
            log(f"herd: {herd_size} students on one new link (vocab {base + 1}): {result['herd']:.2f} CPU s; "
                f"{result['trained']} of them saw the training's progress bar")
            # For reading the ratio: what the same page loads cost without any training.
            await self.close_all()
            await self.wait_idle()
            cpu0 = self.server.cpu_seconds()
            await asyncio.gather(*(self.open(self.client(herd_link), Group(), f"herd again {i + 1}")
                                   for i in range(herd_size)))
            result["pages"] = self.server.cpu_seconds() - cpu0
            log(f"herd: the same {herd_size} page loads, trained already: {result['pages']:.2f} CPU s")

        log(f"herd: {herd_size} students open the same new link at once")
        timed_out = await self.bounded("herd", body())
        what = (f"herd: {herd_size} students open the same new link at once (wordfreq-en WordPiece {base + 1:,}): "
                "server CPU (incl. children) ÷ CPU of one new training alone")
        if "herd" in result and result.get("solo"):
            ratio = result["herd"] / result["solo"]
            pages = (f"; the same {herd_size} page loads once trained: {result['pages']:.1f} CPU s"
                     if "pages" in result else "")
            self.rows.append(Row(what, f"{ratio:.2f}× ({result['herd']:.1f} CPU s ÷ {result['solo']:.1f} CPU s; "
                                       f"{result['trained']:.0f} of {herd_size} saw a progress bar{pages})",
                                 f"≤ {HERD_CPU_RATIO}×", judged(ratio, HERD_CPU_RATIO)))
        else:
            self.rows.append(Row(what, self.timeout_text("herd") if timed_out else "not measured (page loads failed)",
                                 f"≤ {HERD_CPU_RATIO}×", "FAIL"))
        self.report_errors("herd", group.errors)

    async def phase_memory(self) -> None:
        n = self.args.trainings
        sizes = [8500 + 50 * i for i in range(n)]
        result: dict[str, object] = {}
        group = Group()

        async def body() -> None:
            await self.wait_idle()
            last = None
            for i, size in enumerate(sizes):
                if last is not None:
                    await last.close()
                last = self.client(wordfreq_link("wordpiece", size))
                run = await self.open(last, group, f"training {i + 1}")
                log(f"memory: training {i + 1}/{n} (vocab {size:,}) loaded in {secs(run.seconds) if run else '—'}; "
                    f"server tree PSS {self.server.pss_bytes() / MB:,.0f} MB")
            result["trainings"] = len(group.loads)
            await self.wait_idle()
            result["held"] = self.server.pss_bytes()
            if run is None:
                return
            try:
                size, seconds = await last.download("trace.jsonl")
            except Exception as exc:  # no such button, refused, closed
                group.errors.append(f"trace.jsonl download failed: {exc}")
                return
            await self.wait_idle(5)
            result["download"] = (size, seconds, self.server.pss_bytes())
            log(f"memory: trace.jsonl ({size / MB:,.1f} MB) downloaded in {secs(seconds)}; "
                f"server tree PSS {result['download'][2] / MB:,.0f} MB")

        log(f"memory: {n} large trainings one after another, then one trace.jsonl download")
        start = time.monotonic()
        timed_out = await self.bounded("memory", body())
        peak = self.sampler.peak(start, time.monotonic())
        if self.class_peak is not None:
            self.rows.append(Row("memory: peak of the server tree (the server + its worker processes, PSS summed, "
                                 "sampled every 0.1 s) during the class", f"{self.class_peak / MB:,.0f} MB",
                                 f"≤ {CLASS_PEAK_PSS / 1e9:.1f} GB", judged(self.class_peak, CLASS_PEAK_PSS)))
        if "held" in result:
            self.rows.append(Row(f"memory: server tree PSS held after {result['trainings']} large trainings "
                                 f"(wordfreq-en WordPiece, vocab {sizes[0]:,}–{sizes[-1]:,}, one after another)",
                                 f"{result['held'] / MB:,.0f} MB (peak {peak / MB:,.0f} MB)", "—", "info"))
        else:
            self.rows.append(Row(f"memory: server tree PSS held after {n} large trainings", self.timeout_text("memory")
                                 if timed_out else "not measured", "—", "info"))
        if "download" in result:
            size, seconds, pss = result["download"]
            self.rows.append(Row("memory: server tree PSS after one trace.jsonl download (deferred download: "
                                 "backend operation + HTTP GET of the media URL)",
                                 f"{pss / MB:,.0f} MB (file {size / MB:,.1f} MB, {secs(seconds)})", "—", "info"))
        else:
            self.rows.append(Row("memory: server tree PSS after one trace.jsonl download", self.timeout_text("memory")
                                 if timed_out else "not measured (see the errors below)", "—", "info"))
        self.report_errors("memory", group.errors)

    async def phase_stay(self) -> None:
        n = self.args.stay
        corpora = ("wordfreq-en", "wordfreq-de", "wordfreq-fi", "wordfreq-tr")
        links = [link(corpus=corpora[i % len(corpora)], algorithm="wordpiece", vocab_size=20_000 + 250 * (i // 4))
                 for i in range(n)]
        budget = f"{self.args.cache_mb} MB" if self.args.cache_mb is not None else "the default"
        group = Group()
        result: dict[str, int] = {}

        async def student(i: int, url: str) -> None:
            await asyncio.sleep(i * self.args.stay_arrival)
            label = f"staying student {i + 1}"
            c = self.client(url)
            if await self.open(c, group, label) is not None:
                await self.step(c, group, label)  # the step view runs once more, then the tab stays open

        async def body() -> None:
            await self.wait_idle()
            await asyncio.gather(*(student(i, url) for i, url in enumerate(links)))
            await self.wait_idle()
            result["held"] = self.server.pss_bytes()
            log(f"stay: {len(group.loads)} of {n} students loaded their training; server tree PSS "
                f"{result['held'] / MB:,.0f} MB while they are all connected")
            await self.close_all()
            await asyncio.sleep(5.0)
            await self.wait_idle()
            result["left"] = self.server.pss_bytes()
            log(f"stay: after they left, server tree PSS {result['left'] / MB:,.0f} MB")

        log(f"stay: {n} students each open a different large training and keep the tab open (store budget: {budget})")
        start = time.monotonic()
        timed_out = await self.bounded("stay", body())
        peak = self.sampler.peak(start, time.monotonic())
        what = (f"sessions that stay: {n} students each on a different large training (wordfreq, WordPiece, "
                f"vocabulary 20,000+), tabs kept open; store budget {budget}: server tree PSS")
        if "left" in result:
            self.rows.append(Row(what, f"peak {peak / MB:,.0f} MB; held {result['held'] / MB:,.0f} MB while they are "
                                       f"connected, {result['left'] / MB:,.0f} MB after they left ({len(group.loads)} "
                                       f"of {n} loaded; idle server after the first visit: "
                                       f"{self.base_pss / MB:,.0f} MB)", "—", "info"))
        else:
            self.rows.append(Row(what, self.timeout_text("stay") if timed_out else "not measured", "—", "info"))
        self.report_errors("stay", group.errors)

    async def phase_big(self) -> None:
        a = self.args
        big_link = wordfreq_link(a.big_algorithm, 50_000)
        group, trainer_group = Group(), Group()
        clicks: list[tuple[float, float]] = []  # (sent at, seconds), by every clicking student
        after: list[float] = []
        trainer: dict[str, float] = {}
        done = asyncio.Event()

        async def click(c: StreamlitClient, label: str) -> Run | None:
            await asyncio.sleep(self.think(*a.busy_think))
            sent = time.monotonic()
            run = await self.step(c, group, label)
            if run is not None:
                clicks.append((sent, run.seconds))
            return run

        async def clicker(i: int, c: StreamlitClient) -> None:
            label = f"busy student {i + 1}"
            while not done.is_set():
                if await click(c, label) is None:
                    return
            for _ in range(a.after_clicks):
                if (run := await click(c, label)) is None:
                    return
                after.append(run.seconds)

        async def body() -> None:
            await self.wait_idle()
            others = [self.client(small_link(i * 3)) for i in range(a.busy)]
            loaded = await asyncio.gather(*(self.open(c, group, f"busy student {i + 1}")
                                            for i, c in enumerate(others)))
            async with asyncio.TaskGroup() as clicking:  # cancelled with the phase if it times out
                for i, c in enumerate(others):
                    if loaded[i] is not None:
                        clicking.create_task(clicker(i, c))
                await asyncio.sleep(1.0)  # the clicking has started
                trainer["start"] = time.monotonic()
                run = await self.open(self.client(big_link), trainer_group, "50k trainer")
                trainer["end"] = time.monotonic()
                trainer["seconds"] = trainer["end"] - trainer["start"]
                done.set()
                log(f"big: {a.big_algorithm} 50,000 loaded in {secs(trainer['seconds'])}"
                    + (f" ({run.progress_updates} progress updates)" if run else " (failed)"))

        log(f"big: one student trains wordfreq-en {a.big_algorithm} 50,000 while {a.busy} others click")
        timed_out = await self.bounded("big", body())
        end = trainer.get("end", float("inf"))
        during = [s for sent, s in clicks if trainer.get("start", end) <= sent < end]
        took = f"training took {secs(trainer['seconds'])}" if "seconds" in trainer else "training unfinished"
        what = f"big training: 1 student trains wordfreq-en {a.big_algorithm} vocab 50,000 while {a.busy} others click"
        if trainer_group.errors:  # refused or failed: there was no long training to measure under
            self.rows.append(Row(f"{what} — their step median during the training",
                                 f"not measured: {trainer_group.errors[0]}", f"≤ {BUSY_STEP_MEDIAN} s",
                                 "not measured"))
        elif during:
            value = median(during)
            partial = f"; {self.timeout_text('big')}" if timed_out else ""
            self.rows.append(Row(f"{what} — their step median during the training",
                                 f"{secs(value)} ({len(during)} clicks sent while it trained; {took}{partial})",
                                 f"≤ {BUSY_STEP_MEDIAN} s", judged(value, BUSY_STEP_MEDIAN)))
        else:
            self.rows.append(Row(f"{what} — their step median during the training",
                                 self.timeout_text("big") if timed_out else "not measured", f"≤ {BUSY_STEP_MEDIAN} s",
                                 "FAIL" if timed_out else "not measured"))
        idle = f"; idle was {secs(self.idle_median)}" if getattr(self, "idle_median", None) else ""
        self.add_latency_row(f"big training — their step median after it finished (back to idle speed{idle})",
                             after, a.busy * a.after_clicks, median, IDLE_STEP_MEDIAN, timed_out, "big")
        self.report_errors("big", trainer_group.errors + group.errors)

    # -------------------------------------------------------------- the class room

    async def phase_room(self) -> None:
        """Live class rooms of each size in --room-sizes, one after another, each with a restart in a vote."""
        await self.wait_idle()
        self.poll_cost()
        for n in self.args.room_sizes:
            await self.room_class(n)
        self.room_summary()

    def poll_cost(self) -> None:
        """What one poll reads, measured alone: RoomStore.snapshot() on a room with 60 members and 300 votes."""
        members, steps, calls = 60, 5, 1000
        folder = tempfile.mkdtemp(prefix="bench_class-rooms-")
        try:
            rooms = RoomStore(folder)
            code, teacher = rooms.create({"corpus": "course-toy", "algorithm": "wordpiece"})
            tokens = [rooms.join(code).token for _ in range(members)]
            for step in range(1, steps + 1):
                rooms.set_step(code, teacher, step)
                for i, token in enumerate(tokens):
                    rooms.vote(code, token, step, 1, f"pair {i % 8}")
            times = []
            for _ in range(calls):
                t0 = time.perf_counter()
                snap = rooms.snapshot(code)
                times.append(time.perf_counter() - t0)
            assert snap is not None and snap.answered == members and snap.members == members
            seen = []
            for token in tokens * 3:
                t0 = time.perf_counter()
                rooms.seen(code, token)
                seen.append(time.perf_counter() - t0)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        log(f"room: one poll's snapshot() {median(times) * 1e3:.2f} ms median, {p90(times) * 1e3:.2f} ms p90 "
            f"({calls} calls); seen() {median(seen) * 1e3:.2f} ms")
        self.rows.append(Row(f"room: what one poll reads — RoomStore.snapshot() on a room with {members} members and "
                             f"{members * steps} votes (one query on a connection of its own; this process, alone)",
                             f"{median(times) * 1e3:.2f} ms median, {p90(times) * 1e3:.2f} ms p90 of {calls} calls "
                             f"(a student's presence write, seen(), every 5 s: {median(seen) * 1e3:.2f} ms median, "
                             f"{p90(seen) * 1e3:.2f} ms p90)", "—",
                             "info"))

    async def room_class(self, n: int) -> None:
        a = self.args
        phase = f"room {n}"
        r = RoomResult(n)
        log(f"room: a teacher and {n} students, {a.room_steps} hidden steps"
            + (", then a restart during a vote" if a.room_restart else ""))

        async def body() -> None:
            await self.wait_idle()
            teacher, teacher_link, code = await self.room_open(r)
            pupils = [Pupil(f"student {i + 1}") for i in range(n)]
            await asyncio.gather(*(self.room_join(p, code, r) for p in pupils))
            joined = [p for p in pupils if p.client is not None]
            log(f"room {n}: room {code}; {len(joined)} of {n} students joined (page-load median "
                f"{secs(median(r.loads)) if r.loads else '—'})")
            r.code = code
            r.pupils = pupils
            sent = done = None
            for step in range(1, a.room_steps + 1):
                sent, done = await self.room_step(teacher, joined, step, sent, done, r)
            if a.room_restart:
                teacher = await self.room_restart(teacher, teacher_link, joined, a.room_steps + 1, sent, done, r)
            else:  # the class follows the last Next
                await asyncio.gather(*(self.room_follow(p, a.room_steps + 1, sent, done, r.follows, r) for p in joined))
            r.votes_checked = self.room_check_votes(code, pupils, r)

        start, self.room_clients = time.monotonic(), []
        r.timed_out = await self.bounded(phase, body())
        r.peak = self.sampler.peak(start, time.monotonic())
        r.runs = sum(c.runs_started for c in self.room_clients)
        r.unfinished = sum(c.unfinished_runs for c in self.room_clients)
        self.room_clients = None
        self.room_results.append(r)
        self.room_rows(r)
        self.report_errors(phase, r.errors)

    async def room_open(self, r: RoomResult) -> tuple[StreamlitClient, str, str]:
        """The teacher opens the toy corpus, starts a room, and reads its code and (from the popover
        "Teacher link", as a teacher keeps it) the teacher link."""
        teacher = self.client(ROOM_LINK, ROOM_WAIT)
        group = Group()
        if await self.open(teacher, group, "teacher") is None:
            raise RuntimeError(f"the teacher's page did not load: {group.errors[0]}")
        run = await teacher.click("Start a class room")
        self._check(run, "teacher")
        found = teacher.find_text(_ROOM_CODE)
        if found is None:
            raise RuntimeError("no 'Class room CODE' on the teacher's page after Start a class room")
        code = _ROOM_CODE.search(found.body)[1]
        await teacher.set_popover("Teacher link", True)
        await teacher.click("Show it on this screen")  # the link is drawn only after this second, deliberate click
        shown = teacher.find_text(_TEACHER_LINK, kinds=("code",))
        await teacher.set_popover("Teacher link", False)
        if shown is None:
            raise RuntimeError("the popover 'Teacher link' shows no teacher link")
        room, token = _TEACHER_LINK.search(shown.body).groups()
        if room != code:
            raise RuntimeError(f"the teacher link names room {room}, the page {code}")
        return teacher, f"/?room={code}&teacher={token}", code

    async def room_join(self, p: Pupil, code: str, r: RoomResult) -> None:
        await asyncio.sleep(self.think(0, self.args.room_arrival))
        c = self.client(f"/?room={code}", ROOM_WAIT)
        group = Group()
        run = await self.open(c, group, p.label)
        r.errors += group.errors
        if run is None:
            return
        r.loads.append(run.seconds)
        p.client = c
        self.room_token(p, r)

    def room_token(self, p: Pupil, r: RoomResult) -> None:
        """The student token its address bar carries now (the app puts it there)."""
        token = parse_qs(urlsplit(p.client.link).query).get("student", [""])[0]
        if not token:
            r.errors.append(f"{p.label}: no student= in the address bar ({p.client.link})")
        elif token not in p.tokens:
            p.tokens.append(token)

    async def room_step(self, teacher: StreamlitClient, pupils: list[Pupil], step: int, sent: float | None,
                        done: float | None, r: RoomResult) -> tuple[float, float]:
        """One hidden step: the class follows the teacher's Next (sent/done: its click), votes, the teacher
        waits for the count, reveals and moves on. Returns the times of this step's Next."""
        n = r.n
        start = time.perf_counter() if sent is None else sent
        count = asyncio.create_task(teacher.wait_for_text(rf"^### {n:,} of ([\d,]+) answered", ROOM_WAIT,
                                                          kinds=("markdown",), since=start))
        herd = asyncio.create_task(self.room_follow_cpu(pupils, step, r)) if sent is not None else None
        await asyncio.gather(*(self.room_pupil(p, step, sent, done, r) for p in pupils))
        if herd is not None:
            await herd
        voted = [p.confirmed_at[step] for p in pupils if step in p.confirmed_at]
        try:
            shown = await count
        except Exception as exc:  # timed out, or the connection failed
            r.errors.append(f"teacher: '{n} of {n} answered' never came at step {step} ({len(voted)} votes "
                            f"confirmed; {exc!r})")
        else:
            present = int(re.search(r"of ([\d,]+) answered", shown.body)[1].replace(",", ""))
            if present != n:
                r.errors.append(f"teacher: step {step} showed '{n} of {present} answered'")
            if voted:
                r.counts.append(max(0.0, shown.at - max(voted)))
                log(f"room {n}: step {step}: {len(voted)} votes; the count showed {n} of {present} "
                    f"{secs(shown.at - max(voted))} after the last confirmation")
        return await self.room_reveal_next(teacher, step, r)

    async def room_follow_cpu(self, pupils: list[Pupil], step: int, r: RoomResult) -> None:
        """The server's CPU time from the teacher's Next until every student's page showed the new step."""
        deadline = time.monotonic() + ROOM_WAIT
        while sum(step in p.followed for p in pupils) < len(pupils) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if time.monotonic() < deadline:
            r.follow_cpu.append(self.server.cpu_seconds() - r.next_cpu)

    async def room_reveal_next(self, teacher: StreamlitClient, step: int, r: RoomResult,
                               measured: bool = True) -> tuple[float, float]:
        run = await teacher.click("Reveal the merge")
        self._check(run, "teacher")
        await asyncio.sleep(self.args.room_talk)  # the teacher talks about the merge
        r.next_cpu = self.server.cpu_seconds()
        sent = time.perf_counter()
        run = await teacher.click("Next")
        done = time.perf_counter()
        if measured:
            r.next_runs.append(run.seconds)
        self._check(run, "teacher")
        if teacher.step is None or teacher.step[0] != step + 1:
            r.errors.append(f"teacher: Next at step {step} showed step {teacher.step}")
        return sent, done

    async def room_pupil(self, p: Pupil, step: int, sent: float | None, done: float | None, r: RoomResult,
                         wander: bool = True) -> None:
        """A student at a new step: the page follows the teacher; the student thinks, maybe looks at the
        step before and comes back, and votes."""
        a = self.args
        if not await self.room_follow(p, step, sent, done, r.follows, r):
            return
        if step == FLOOD_STEP and r.pupils and p is r.pupils[0]:  # the class's noisy one: hundreds of votes
            with contextlib.suppress(Exception):
                deadline = time.monotonic() + ROOM_WAIT
                while VOTE_LABEL not in p.client.radios and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                started = time.perf_counter()
                r.flood_sent = await p.client.flood(VOTE_LABEL, FLOOD_SECONDS)
                r.flood_window = (started, time.perf_counter())
                await asyncio.sleep(1.0)  # let the server drain what it took
        await asyncio.sleep(self.think(0, a.vote_spread))
        if wander and step > 1 and self.rng.random() < a.room_wander:
            p.wandered += 1
            for label, shows in (("Prev", step - 1), (f"Back to the class (step {step})", step)):
                clicked = time.perf_counter()
                try:
                    run = await p.client.click(label)
                except Exception as exc:
                    r.errors.append(f"{p.label}: {label} at step {step} failed: {exc!r} "
                                    f"({p.client.debug_state(clicked)})")
                    return
                self._check(run, p.label)
                r.own_steps.append(run.seconds)
                if r.flood_window[0] <= clicked <= r.flood_window[1] or (r.flood_sent == 0 and step == FLOOD_STEP):
                    r.others_during_flood.append(run.seconds)
                if p.client.step is None or p.client.step[0] != shows:
                    r.errors.append(f"{p.label}: {label} showed step {p.client.step}, not {shows}")
        with contextlib.suppress(Exception):  # (the error is recorded)
            await self.room_vote(p, step, r)

    async def room_follow(self, p: Pupil, step: int, sent: float | None, done: float | None, into: list[float],
                          r: RoomResult) -> bool:
        """Wait until the student's heading shows `step` (after the teacher's Next sent at `sent`); the time
        from the Next's completion goes `into` the list. A page that does not follow within ROOM_PATIENCE × 2
        is reloaded, as a student would (and the time counts until the reloaded page shows the step)."""
        pattern = rf"^Step {step} of "
        try:
            heading = await p.client.wait_for_text(pattern, 2 * ROOM_PATIENCE, kinds=("heading",),
                                                   since=float("-inf") if sent is None else sent)
        except Exception:
            if not await self.room_reload(p, r, f"the page did not follow to step {step}"):
                return False
            heading = p.client.find_text(pattern, kinds=("heading",))
            if heading is None:
                r.errors.append(f"{p.label}: the reloaded page shows {p.client.step_heading!r}, not step {step}")
                return False
        p.followed[step] = heading.at
        if done is not None:
            into.append(max(0.0, heading.at - done))
            (r.follows_sent if into is r.follows else r.follows_after_restart_sent).append(heading.at - sent)
        return True

    async def room_reopen(self, p: Pupil, r: RoomResult, label: str) -> Run | None:
        """The student opens its own last link again (room=CODE&student=TOKEN...), on a new connection."""
        old, link = p.client, p.client.link
        with contextlib.suppress(Exception):
            await old.close()
        self.clients.discard(old)
        p.client = self.client(link, ROOM_WAIT)
        group = Group()
        run = await self.open(p.client, group, f"{p.label} ({label})")
        r.errors += group.errors
        if run is not None:
            self.room_token(p, r)
            if len(p.tokens) > 1:
                r.errors.append(f"{p.label}: its token changed when it reopened {link}")
        return run

    async def room_reload(self, p: Pupil, r: RoomResult, why: str) -> bool:
        """A page that lacks what it should show (the end of its last run never arrived): the student reloads it."""
        r.reloads.append(f"{p.label}: {why}")
        return await self.room_reopen(p, r, "reloaded") is not None

    async def room_vote(self, p: Pupil, step: int, r: RoomResult, again: bool = True,
                        quiet: asyncio.Event | None = None) -> bool:
        """Choose a random candidate; the vote counts as confirmed when the page says "Your vote is in: PAIR".
        A page without the vote, or without the confirmation after voting, is reloaded (once). Once `quiet`
        is set (the server was killed under the vote), nothing more is tried and nothing is counted wrong."""
        def killed() -> bool:
            return quiet is not None and quiet.is_set()

        deadline = time.monotonic() + ROOM_PATIENCE
        while VOTE_LABEL not in p.client.radios and time.monotonic() < deadline and p.client.connected:
            await asyncio.sleep(0.05)
        if killed():
            return False
        if VOTE_LABEL not in p.client.radios:
            if not again or not await self.room_reload(p, r, f"no vote under the heading of step {step}"):
                r.errors.append(f"{p.label}: no vote at step {step} (heading {p.client.step_heading!r}; "
                                f"{p.client.debug_state()})")
                return False
            return await self.room_vote(p, step, r, again=False)
        c = p.client
        r.votes_attempted += 1
        choice = self.rng.choice(c.radios[VOTE_LABEL].options)
        sent = time.perf_counter()
        try:
            run = await c.choose(VOTE_LABEL, choice)
        except Exception as exc:
            if not killed():
                r.errors.append(f"{p.label}: its vote at step {step} failed: {exc!r} ({c.debug_state(sent)})")
            raise
        self._check(run, p.label)
        r.vote_runs.append(run.seconds)
        with contextlib.suppress(Exception):  # the confirmation may come after the run "ended" (see room_confirmed)
            await c.wait_for_text(_CONFIRMED, ROOM_PATIENCE, kinds=("success",), since=sent)
        if self.room_confirmed(p, step, r, since=sent, chosen=choice):
            return True
        if killed():
            return False
        back = f"Back to the class (step {step})"
        if c.step is not None and c.step[0] != step and back in c.buttons:
            # The vote's run drew another step: the page went back by itself (see the module docstring:
            # "a student's page that goes back"); the student goes back to the class and finds the vote there.
            r.bounces.append(f"{p.label}: step {step} → {c.step[0]}")
            with contextlib.suppress(Exception):
                clicked = time.perf_counter()
                await c.click(back)
                await c.wait_for_text(_CONFIRMED, ROOM_PATIENCE, kinds=("success",), since=clicked)
            if self.room_confirmed(p, step, r, since=sent):
                return True
        if not again or not await self.room_reload(p, r, f"no 'Your vote is in' after voting at step {step}"):
            r.errors.append(f"{p.label}: no 'Your vote is in' after voting {choice!r} at step {step} "
                            f"({c.debug_state(sent)})")
            return False
        return self.room_confirmed(p, step, r) or await self.room_vote(p, step, r, again=False)

    def room_confirmed(self, p: Pupil, step: int, r: RoomResult, since: float = float("-inf"),
                       chosen: str | None = None) -> bool:
        """Record the vote the student's page confirms at `step` (its "Your vote is in: PAIR"), if it does."""
        shown = p.client.find_text(_CONFIRMED, kinds=("success",), since=since)
        if shown is None:
            return False
        pair = _unescape(_CONFIRMED.search(shown.body)[1])
        if chosen is not None and pair != _unescape(chosen):  # (a radio's options arrive as its Markdown labels)
            r.errors.append(f"{p.label}: voted {chosen!r}, the page confirmed {pair!r}")
        p.confirmed[step] = pair
        p.confirmed_at[step] = shown.at
        return True

    async def room_restart(self, teacher: StreamlitClient, teacher_link: str, pupils: list[Pupil], step: int,
                           sent: float | None, done: float | None, r: RoomResult) -> StreamlitClient:
        """A vote interrupted: once about half the class has voted, kill -9 the server (its whole tree) and
        start it again on the same port and data folder. Every student reopens its own last link
        (room=CODE&student=TOKEN) and votes if its page shows no vote of its; the teacher reopens the
        teacher link and waits for the count, then reveals and moves on; the class follows."""
        n = r.n
        killed, back = asyncio.Event(), asyncio.Event()
        times: dict[str, float] = {}
        group = Group()

        async def pupil(p: Pupil) -> None:
            if not await self.room_follow(p, step, sent, done, r.follows, r):
                return
            await asyncio.sleep(self.think(0, self.args.vote_spread))
            if not killed.is_set():
                with contextlib.suppress(Exception):  # the server may die under it (then no reload: see below)
                    await self.room_vote(p, step, r, again=False, quiet=killed)
            await back.wait()
            before = p.confirmed.get(step)
            run = await self.room_reopen(p, r, "reopened after the restart")
            if run is None:
                return
            r.reopen_loads.append(run.seconds)
            if self.room_confirmed(p, step, r):
                if before is not None and p.confirmed[step] != before:
                    r.errors.append(f"{p.label}: confirmed {before!r} before the restart, {p.confirmed[step]!r} after")
            else:
                await self.room_vote(p, step, r)

        async def killer() -> None:
            deadline = time.monotonic() + 2 * ROOM_WAIT
            while sum(step in p.confirmed for p in pupils) < len(pupils) // 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            r.voted_at_kill = sum(step in p.confirmed for p in pupils)
            killed.set()
            self.server.kill()
            times["killed"] = time.perf_counter()
            log(f"room {n}: step {step}: server killed (kill -9, its tree) after {r.voted_at_kill} of {len(pupils)} "
                "votes were confirmed; starting it again")
            await asyncio.to_thread(self.server.start)
            times["back"] = time.perf_counter()
            r.restart_seconds = times["back"] - times["killed"]
            back.set()

        async def teacher_back() -> StreamlitClient:
            await back.wait()
            with contextlib.suppress(Exception):
                await teacher.close()
            self.clients.discard(teacher)
            again = self.client(teacher_link, ROOM_WAIT)
            run = await self.open(again, group, "teacher (reopened)")
            if run is None:
                raise RuntimeError(f"the teacher link did not reopen the room: {group.errors[-1]}")
            if "Reveal the merge" not in again.buttons:
                r.errors.append(f"teacher: the teacher link reopened no teacher's page (buttons "
                                f"{sorted(again.buttons)})")
            try:
                shown = await again.wait_for_text(rf"^### {n:,} of ([\d,]+) answered", ROOM_WAIT * 2,
                                                  kinds=("markdown",), since=times["back"])
            except Exception as exc:
                r.errors.append(f"teacher: '{n} of {n} answered' never came after the restart ({exc!r})")
            else:
                r.count_after_restart = shown.at - times["back"]
                log(f"room {n}: after the restart the teacher's page showed {shown.body[4:]!r} "
                    f"{secs(r.count_after_restart)} after the server was up")
            return again

        kill_task = asyncio.create_task(killer())
        teacher_task = asyncio.create_task(teacher_back())
        await asyncio.gather(*(pupil(p) for p in pupils))
        await kill_task
        teacher = await teacher_task
        r.errors += group.errors
        # The class goes on: the teacher reveals, moves to the next step, and the reopened pages follow.
        sent, done = await self.room_reveal_next(teacher, step, r, measured=False)
        await asyncio.gather(*(self.room_follow(p, step + 1, sent, done, r.follows_after_restart, r)
                               for p in pupils if p.client is not None and p.client.connected))
        return teacher

    def room_check_votes(self, code: str, pupils: list[Pupil], r: RoomResult) -> bool:
        """Compare what each student's screen confirmed with the store's votes (rooms.sqlite3, read-only)."""
        path = os.path.join(self.server.data, DB_NAME)
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            rows = db.execute("SELECT step, round, member, choice FROM votes WHERE code = ?", (code,)).fetchall()
            r.members_stored = db.execute("SELECT COUNT(*) FROM members WHERE code = ?", (code,)).fetchone()[0]
        finally:
            db.close()
        owner = {hashlib.sha256(t.encode()).hexdigest(): p for p in pupils for t in p.tokens}
        stored: dict[tuple[int, int], list[str]] = {}  # (student, step) → the choices stored, every round
        for step, _round, member, choice in rows:
            p = owner.get(member)
            if p is None:
                r.votes_unknown += 1
                continue
            stored.setdefault((id(p), step), []).append(choice)
        for p in pupils:
            for step, pair in p.confirmed.items():
                if pair not in stored.get((id(p), step), []):
                    r.votes_lost += 1
                    r.errors.append(f"{p.label}: its screen confirmed {pair!r} at step {step}; the store has "
                                    f"{stored.get((id(p), step), 'nothing')}")
        for (pid, step), choices in stored.items():
            r.votes_twice += len(choices) - 1
            p = next(p for p in pupils if id(p) == pid)
            if step not in p.confirmed:
                r.votes_unconfirmed += 1
        r.votes_stored = len(rows)
        r.votes_confirmed = sum(len(p.confirmed) for p in pupils)
        if pupils and r.flood_sent:
            r.flood_stored = sum(1 for step, round_, member, _ in rows
                                 if owner.get(member) is pupils[0] and step == FLOOD_STEP and round_ == 1)
        log(f"room {r.n}: votes confirmed on screens {r.votes_confirmed}, stored {r.votes_stored}: lost "
            f"{r.votes_lost}, counted twice {r.votes_twice}, by unknown members {r.votes_unknown}, stored but "
            f"never confirmed {r.votes_unconfirmed}; members stored {r.members_stored}")
        return True

    def room_rows(self, r: RoomResult) -> None:
        a = self.args
        n = r.n
        what = f"room, {n} students"
        steps = a.room_steps
        self.add_latency_row(f"{what}: last student's vote confirmed ('Your vote is in') → the teacher's '{n} of {n} "
                             f"answered' arrives — p90 over {steps} hidden steps", r.counts, steps, p90,
                             ROOM_COUNT_P90, r.timed_out, f"room {n}", count_word="steps",
                             detail=f"median {secs(median(r.counts))}" if r.counts else "")
        self.add_latency_row(f"{what}: the teacher's Next complete → a student's heading shows the new step — p90",
                             r.follows, n * steps, p90, ROOM_FOLLOW_P90, r.timed_out, f"room {n}",
                             count_word="follows", detail=(f"median {secs(median(r.follows))}; the teacher's Next "
                                                           f"itself took median {secs(median(r.next_runs))}, max "
                                                           f"{secs(max(r.next_runs))}") if r.follows else "")
        self.add_latency_row(f"{what}: the same from the teacher's Next click sent — p90", r.follows_sent, n * steps,
                             p90, ROOM_FOLLOW_P90, r.timed_out, f"room {n}", count_word="follows",
                             detail=f"median {secs(median(r.follows_sent))}" if r.follows_sent else "")
        if r.follow_cpu:
            per = median(r.follow_cpu)
            self.rows.append(Row(f"{what}: the server's CPU time from the teacher's Next until every student's page "
                                 "showed the new step (each page's poll, then its full rerun)",
                                 f"{per:.2f} CPU s median ({per / n * 1e3:.0f} ms a student; {len(r.follow_cpu)} "
                                 f"Nexts)", "—", "info"))
        self.add_latency_row(f"{what}: the teacher's own Next (click sent → its run complete, while the class "
                             "follows) "
                             "— median", r.next_runs, steps, median, STEP_MEDIAN, r.timed_out, f"room {n}",
                             detail=f"max {secs(max(r.next_runs))}" if r.next_runs else "")
        self.add_latency_row(f"{what}: a student's own step (Prev, then 'Back to the class') — median", r.own_steps,
                             len(r.own_steps), median, ROOM_OWN_STEP_MEDIAN, r.timed_out, f"room {n}",
                             detail=(f"p90 {secs(p90(r.own_steps))}; votes: median {secs(median(r.vote_runs))}"
                                     if r.own_steps and r.vote_runs else ""))
        self.rows.append(Row(f"{what}: server tree PSS peak (server + workers, summed, sampled every 0.1 s)",
                             f"{r.peak / MB:,.0f} MB", f"≤ {ROOM_PEAK_PSS / 1e9:.1f} GB",
                             judged(r.peak, ROOM_PEAK_PSS) if r.peak else "not measured"))
        load = (f"students' page loads (join) median {secs(median(r.loads))}, p90 {secs(p90(r.loads))}"
                if r.loads else "no student joined")
        self.rows.append(Row(f"{what}: joining (arrivals within {a.room_arrival:g} s); runs the server never "
                             "reported finished (streamlit_client.py: a fragment run's script_finished lost)",
                             f"{len(r.loads)} of {n}; {load}; {r.unfinished} of {r.runs:,} runs unfinished", "—",
                             "info"))
        reloads = ", ".join(f"{k}: {v}" for k, v in sorted(
            collections.Counter(re.sub(r"^student \d+: | at step \d+| to step \d+| of step \d+", "", x)
                                for x in r.reloads).items()))
        self.rows.append(Row(f"{what}: pages a student had to reload (waited {ROOM_PATIENCE:g} s for the vote or its "
                             f"confirmation, {2 * ROOM_PATIENCE:g} s for the next step; the end of the page's run "
                             "never arrived)", f"{len(r.reloads)}" + (f" ({reloads})" if reloads else ""), "—",
                             "info"))
        self.rows.append(Row(f"{what}: votes after which the page showed the step before (it went back by itself; "
                             "the student clicks 'Back to the class')", f"{len(r.bounces)} of {r.votes_attempted}",
                             "—", "info"))
        if r.flood_sent:
            others = r.others_during_flood
            slow = median(others) if others else 0.0
            ok = r.flood_stored == 1 and slow <= ROOM_OWN_STEP_MEDIAN
            self.rows.append(Row(
                f"{what}: one student floods the vote at step {FLOOD_STEP} ({FLOOD_SECONDS:g} s, never waiting for a "
                "run) — its votes stored for that step's round / the other students' own steps meanwhile, median",
                f"{r.flood_stored} of {r.flood_sent:,} choices sent ({r.flood_sent / FLOOD_SECONDS:,.0f} a second) / "
                + (f"{secs(slow)} ({len(others)} clicks)" if others else "no other click fell in the window"),
                f"1 / ≤ {secs(ROOM_OWN_STEP_MEDIAN)}", "pass" if ok else "FAIL"))
        if not a.room_restart:
            return
        if r.votes_checked:
            restart = (f"kill -9 after {r.voted_at_kill} of {n} votes; server up again in {secs(r.restart_seconds)}; "
                       f"{r.votes_confirmed} votes confirmed on screens, {r.votes_stored} stored")
            extra = []
            if r.votes_unknown:
                extra.append(f"{r.votes_unknown} stored by members no student's link names")
            if r.votes_unconfirmed:
                extra.append(f"{r.votes_unconfirmed} stored that no screen confirmed")
            if r.members_stored != n:
                extra.append(f"{r.members_stored} members stored for {n} students")
            self.rows.append(Row(f"{what}: restart during a vote (step {steps + 1}) — votes lost / counted twice "
                                 f"(screens' 'Your vote is in' against rooms.sqlite3, all {steps + 1} steps)",
                                 f"{r.votes_lost} / {r.votes_twice} ({'; '.join([restart] + extra)})", "0 / 0",
                                 "pass" if r.votes_lost == 0 and r.votes_twice == 0 else "FAIL"))
        else:
            self.rows.append(Row(f"{what}: restart during a vote — votes lost / counted twice",
                                 self.timeout_text(f"room {n}") if r.timed_out else "not measured", "0 / 0", "FAIL"))
        after = []
        if r.reopen_loads:
            after.append(f"{len(r.reopen_loads)} of {n} pages reopened, load median {secs(median(r.reopen_loads))}, "
                         f"p90 {secs(p90(r.reopen_loads))}")
        if r.count_after_restart is not None:
            after.append(f"the teacher's '{n} of {n}' {secs(r.count_after_restart)} after the server was up")
        if r.follows_after_restart:
            after.append(f"then Next (complete → sent) → the class's heading: median "
                         f"{secs(median(r.follows_after_restart))} / {secs(median(r.follows_after_restart_sent))}, "
                         f"p90 {secs(p90(r.follows_after_restart))} / {secs(p90(r.follows_after_restart_sent))} "
                         f"({len(r.follows_after_restart)} follows)")
        self.rows.append(Row(f"{what}: after the restart (each student reopens its own last link, the teacher the "
                             "teacher link)", "; ".join(after) or "not measured", "—", "info"))

    def room_summary(self) -> None:
        """Which room target breaks first as the class grows (the sizes in order)."""
        for r in self.room_results:
            failed = []
            for name, values, stat, limit in (
                    ("vote confirmed → the teacher's count, p90", r.counts, p90, ROOM_COUNT_P90),
                    ("the teacher's Next complete → a student's heading, p90", r.follows, p90, ROOM_FOLLOW_P90),
                    ("the teacher's Next sent → a student's heading, p90", r.follows_sent, p90, ROOM_FOLLOW_P90),
                    ("the teacher's own Next, median", r.next_runs, median, STEP_MEDIAN),
                    ("a student's own step, median", r.own_steps, median, ROOM_OWN_STEP_MEDIAN)):
                if not values or stat(values) > limit:
                    failed.append(f"{name} {secs(stat(values))}" if values else f"{name} not measured")
            if r.peak > ROOM_PEAK_PSS:
                failed.append(f"memory {r.peak / MB:,.0f} MB")
            if self.args.room_restart and (not r.votes_checked or r.votes_lost or r.votes_twice):
                failed.append(f"votes lost / counted twice {r.votes_lost} / {r.votes_twice}" if r.votes_checked
                              else "votes lost / counted twice not measured")
            r.failed = failed
        broken = [r for r in self.room_results if r.failed]
        if not self.room_results:
            return
        sizes = ", ".join(str(r.n) for r in self.room_results)
        if not broken:
            self.notes_room.append(f"Class room: every target held at {sizes} students.")
        else:
            first = broken[0]
            held = [str(r.n) for r in self.room_results if not r.failed and r.n < first.n]
            self.notes_room.append(f"Class room: the first size to break a target is {first.n} students"
                                   + (f" (held at {', '.join(held)})" if held else "")
                                   + f": {'; '.join(first.failed)}.")

    # -------------------------------------------------------------- reporting

    def split(self, big: list[float], small: list[float], stat) -> str:
        parts = [f"{name} {secs(stat(values))}" for name, values in (("wordfreq-en", big), ("small", small)) if values]
        return "; ".join(parts)

    def timeout_text(self, phase: str) -> str:
        return f"timed out after {self.budgets[phase]} s"

    def add_latency_row(self, what: str, values: list[float], expected: int, stat, limit: float, timed_out: bool,
                        phase: str, detail: str = "", count_word: str = "clicks") -> None:
        target = f"≤ {limit} s"
        if not values:
            measured = self.timeout_text(phase) if timed_out else "not measured (see the errors below)"
            self.rows.append(Row(what, measured, target, "FAIL"))
            return
        value = stat(values)
        info = [f"{len(values)} of {expected} {count_word}"] + ([detail] if detail else [])
        if timed_out:
            info.append(self.timeout_text(phase))
        verdict = judged(value, limit) if not timed_out else "FAIL"
        self.rows.append(Row(what, f"{secs(value)} ({'; '.join(info)})", target, verdict))

    def report_errors(self, phase: str, errors: list[str]) -> None:
        for e in errors[:5]:
            log(f"{phase}: {e}")
        if errors:
            self.notes.append(f"{phase}: {len(errors)} problem(s), first: {errors[0]}")


# ---------------------------------------------------------------------------- main


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run (about a minute on a fast app): fewer students, clicks and trainings")
    parser.add_argument("--students", type=int, help="students in the class (default 30; 6 with --quick)")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    parser.add_argument("--seed", type=int, help="random seed (arrivals, think times, the herd's vocabulary)")
    parser.add_argument("--big-algorithm", choices=("wordpiece", "bpe"),
                        help="the 50,000-vocabulary training (default wordpiece; bpe with --quick)")
    parser.add_argument("--cache-mb", type=int,
                        help="the store's budget for the server (WORDPIECE_LAB_CACHE_MB; default: the app's)")
    parser.add_argument("--stay", type=int, help="students on different large trainings who stay (default 30; 8 "
                                                 "with --quick)")
    parser.add_argument("--only", help=f"run only these phases, comma-separated (of {', '.join(PHASES)}; the "
                                       "warm-up always runs), e.g. --only room")
    parser.add_argument("--room-sizes", help="the class rooms' sizes, one room after another (default 30,60; 6 "
                                             "with --quick), e.g. 30,45,60")
    parser.add_argument("--room-talk", type=float, default=3.0,
                        help="seconds the teacher talks between Reveal the merge and Next (default 3)")
    parser.add_argument("--no-room-restart", dest="room_restart", action="store_false",
                        help="no kill -9 and restart of the server during a vote in the class room")
    args = parser.parse_args(argv)
    quick = args.quick
    args.students = args.students if args.students is not None else (6 if quick else 30)
    args.seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    args.big_algorithm = args.big_algorithm or ("bpe" if quick else "wordpiece")
    args.clicks = 2 if quick else 5  # Next clicks per student in the class
    args.arrival = 2.0 if quick else 5.0  # students arrive within this many seconds
    args.think = (0.5, 1.5) if quick else (1.0, 3.0)  # seconds between a student's clicks
    args.idle_clicks = 5 if quick else 10
    args.herd = 3 if quick else 8
    args.trainings = 3 if quick else 10
    args.busy = 3 if quick else 5
    args.busy_think = (0.3, 1.0)
    args.after_clicks = 3 if quick else 6
    args.stay = args.stay if args.stay is not None else (8 if quick else 30)
    args.stay_arrival = 0.5 if quick else 1.0  # seconds between two staying students' arrivals
    args.run_timeout = 600.0  # one page load or click; the phases' own limits are shorter
    args.only = [p.strip() for p in args.only.split(",") if p.strip()] if args.only else list(PHASES)
    if unknown := [p for p in args.only if p not in PHASES]:
        parser.error(f"--only: no phase {', '.join(unknown)} (the phases: {', '.join(PHASES)})")
    try:
        args.room_sizes = [int(x) for x in (args.room_sizes or ("6" if quick else "30,60")).split(",")]
    except ValueError:
        parser.error("--room-sizes takes numbers separated by commas, e.g. 30,60")
    if any(x < 2 for x in args.room_sizes):
        parser.error("--room-sizes: a room needs at least 2 students")
    args.room_steps = 3 if quick else 5  # hidden steps voted on (then one more with the restart)
    args.room_arrival = 3.0  # the students open the room's link within this many seconds
    args.vote_spread = 1.5 if quick else 3.0  # a student votes within this many seconds of seeing the step
    args.room_wander = 1 / 3  # the share of students who look at the step before (Prev, Back to the class)
    if args.students < 1:
        parser.error("--students must be at least 1")
    return args


async def run_phases(bench: Bench) -> None:
    await bench.warm_up()
    for phase in PHASES:  # in this order; the room last, as it kills and restarts the server
        if phase in bench.args.only:
            await getattr(bench, f"phase_{phase}")()


def print_table(bench: Bench, args: argparse.Namespace, seconds: float) -> None:
    budget = f"WORDPIECE_LAB_CACHE_MB={args.cache_mb}" if args.cache_mb is not None else "the default store budget"
    phases = "" if args.only == list(PHASES) else f"phases {', '.join(args.only)}; "
    rooms = (f"class rooms of {', '.join(map(str, args.room_sizes))} students; " if "room" in args.only else "")
    print(f"WordPiece Lab, {phases}{args.students} students{' (--quick)' if args.quick else ''}, {rooms}"
          f"seed {args.seed}, {os.cpu_count()} CPUs; one server started by this benchmark, with {budget} and a "
          "fresh data folder")
    print()
    print("| what | measured | target | result |")
    print("|---|---|---|---|")
    for row in bench.rows:
        print(f"| {row.what} | {row.measured} | {row.target} | {row.verdict} |")
    print()
    clicks = bench.fragment_clicks + bench.full_clicks
    if clicks:
        print(f"Clicks were sent as the browser sends them: {bench.fragment_clicks} of {clicks} ran as fragment "
              f"reruns, {bench.full_clicks} as full reruns. Class: arrivals within {args.arrival:.0f} s, "
              f"{args.think[0]:g}–{args.think[1]:g} s between a student's clicks.")
    if "room" in args.only:
        print(f"Class room: the teacher on {ROOM_LINK[2:]}; students arrive within {args.room_arrival:g} s, vote "
              f"within {args.vote_spread:g} s of seeing a step, a third of them look at the step before first (Prev, "
              f"Back to the class); the teacher talks {args.room_talk:g} s between Reveal and Next"
              + ("; a restart (kill -9) during the vote of one more step." if args.room_restart else "."))
    print(f"Benchmark took {seconds:.0f} s; the clients used {sum(os.times()[:2]):.0f} CPU s of the same machine.")
    if bench.page_errors:
        print(f"Errors shown on the page (st.exception, st.error): {len(bench.page_errors)}, "
              f"first: {bench.page_errors[0]}")
    if bench.server.died is not None:
        print(f"The server exited during the benchmark (code {bench.server.died}); see {bench.server.log_file.name}")
    for note in bench.notes_room:
        print(note)
    for note in bench.notes:
        print(f"Problem: {note}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    data = tempfile.mkdtemp(prefix="bench_class-data-")  # the server's own data folder (rooms.sqlite3), not the user's
    server = Server(args.port or free_port(), args.cache_mb, data)
    sampler = MemorySampler(server)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so the finally below stops the server
    started = time.monotonic()
    bench = None
    try:
        server.start()
        sampler.start()
        bench = Bench(args, server, sampler)
        asyncio.run(run_phases(bench))
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    except Exception as exc:
        log(f"benchmark failed: {exc!r}\n--- server log (tail) ---\n{server.log_tail()}")
        if bench is not None and bench.rows:
            print_table(bench, args, time.monotonic() - started)
        return 1
    finally:
        sampler.stop()
        server.stop()
        shutil.rmtree(data, ignore_errors=True)
        log("server stopped")
    print_table(bench, args, time.monotonic() - started)
    failed = sum(row.verdict == "FAIL" for row in bench.rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
