"""A class of students on one WordPiece Lab server, simulated without a browser.

What it simulates: the app is started exactly as the README says (`python -m streamlit run
app.py`, plus a free `--server.port` and `--server.headless true`) from the project root,
as a subprocess of this script, and every "student" is a websocket client that speaks
Streamlit's own protocol (BackMsg / ForwardMsg protobufs on `/_stcore/stream`, see
`streamlit_client.py`): it opens a shareable link (the query string the browser would
send), follows the page's own reruns (callbacks, `st.rerun()`, `run_every` fragments such
as a training's progress poll), clicks the Train page's "Next" button (a fragment rerun,
as the browser sends it: the button's trigger, every other widget's current value and the
fragment's id) and clicks deferred download buttons (backend operation + HTTP GET of the
media URL). Only loopback (127.0.0.1) is used.

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

What it does not simulate: no browser renders anything, so the times are the server's
(run + transfer on loopback), not the time until pixels change; the browser's other HTTP
requests (static files, health checks, media HEAD checks), heartbeats and dataframe
chunk requests are not sent; the clients run on the same machine as the server (they use
little CPU: the total is printed).

    python benchmarks/bench_class.py [--quick] [--students N] [--port P] [--seed S]
                                     [--big-algorithm wordpiece|bpe] [--cache-mb MB] [--stay N]

Progress goes to stderr; the table (Markdown) to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import urlencode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from process_memory import process_tree, tree_pss_bytes  # noqa: E402
from streamlit_client import Run, StreamlitClient  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLK_TCK = os.sysconf("SC_CLK_TCK")
MB = 1024 * 1024

# Targets (seconds, bytes, ratio).
STEP_MEDIAN, STEP_P90, LOAD_MEDIAN = 0.5, 1.5, 6.0
IDLE_STEP_MEDIAN = 0.2
HERD_CPU_RATIO = 1.5
CLASS_PEAK_PSS = 1.2e9
BUSY_STEP_MEDIAN = 0.5

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

    def __init__(self, port: int, cache_mb: int | None = None) -> None:
        self.port = port
        self.cache_mb = cache_mb  # the store's budget (WORDPIECE_LAB_CACHE_MB); None: the app's default
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

    # -------------------------------------------------------------- helpers

    def client(self, url: str) -> StreamlitClient:
        c = StreamlitClient(self.server.base_url, url, run_timeout=self.args.run_timeout)
        self.clients.add(c)
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
        if phase == "big":  # the last phase: also what the others left unused
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
    if args.students < 1:
        parser.error("--students must be at least 1")
    return args


async def run_phases(bench: Bench) -> None:
    await bench.warm_up()
    await bench.phase_class()
    await bench.phase_idle()
    await bench.phase_herd()
    await bench.phase_memory()
    await bench.phase_stay()
    await bench.phase_big()


def print_table(bench: Bench, args: argparse.Namespace, seconds: float) -> None:
    budget = f"WORDPIECE_LAB_CACHE_MB={args.cache_mb}" if args.cache_mb is not None else "the default store budget"
    print(f"WordPiece Lab, {args.students} students{' (--quick)' if args.quick else ''}, "
          f"seed {args.seed}, {os.cpu_count()} CPUs; one server started by this benchmark, with {budget}")
    print()
    print("| what | measured | target | result |")
    print("|---|---|---|---|")
    for row in bench.rows:
        print(f"| {row.what} | {row.measured} | {row.target} | {row.verdict} |")
    print()
    clicks = bench.fragment_clicks + bench.full_clicks
    print(f"Clicks were sent as the browser sends them: {bench.fragment_clicks} of {clicks} ran as fragment "
          f"reruns, {bench.full_clicks} as full reruns. Class: arrivals within {args.arrival:.0f} s, "
          f"{args.think[0]:g}–{args.think[1]:g} s between a student's clicks. Benchmark took {seconds:.0f} s; "
          f"the clients used {sum(os.times()[:2]):.0f} CPU s of the same machine.")
    if bench.page_errors:
        print(f"Errors shown on the page (st.exception, st.error): {len(bench.page_errors)}, "
              f"first: {bench.page_errors[0]}")
    if bench.server.died is not None:
        print(f"The server exited during the benchmark (code {bench.server.died}); see {bench.server.log_file.name}")
    for note in bench.notes:
        print(f"Problem: {note}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    server = Server(args.port or free_port(), args.cache_mb)
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
        log("server stopped")
    print_table(bench, args, time.monotonic() - started)
    failed = sum(row.verdict == "FAIL" for row in bench.rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
