"""A hostile class: 30 students step while 5 of them send the worst links and files we know of.

    python benchmarks/bench_hostile.py [--quick] [--students N] [--seconds S] [--port P] [--cold]

One server, started as the README says (plus a free port and a fresh data folder), and
websocket clients that speak Streamlit's protocol as the browser does (streamlit_client.py;
uploads go as the browser sends them). Loopback only; every loop is bounded in count and time.

- Bystanders: N students (default 30) on small corpora click Next every 1–3 s.
- Five hostile students, at the same time, one kind of request each, in turn:
  1. the playground with BPE and then WordPiece: a 20,000-letter word typed in the text box (as the browser
     sends it), and the same in a link's `text` (a link carries 1,000 characters: cut, and said);
  2. the Compare page with two 20,000-letter words typed as held-out text;
  3. the playground with uploaded tokenizer.json files and a word typed: max_input_chars_per_word 10^9 (refused)
     with 2,500 letters, the largest value accepted with 20,000 letters, a WordPiece file with a 20,000-letter
     token and a Unigram file with a 20,000-character piece (both refused: a token holds 1,000 at most) with
     5,000 letters;
  4. a 1,000,000-letter word pasted on the Train page under BPE (refused: a merge training takes words of up to
     10,000 characters), then 10 MB uploads of different corpora (one after another);
  5. a large training whose worker process is stopped (SIGSTOP) once it runs.
  Each request must be answered within 10 s: its result, a refusal, or a queue/progress message
  (which must then end in a result or a refusal: the time to that is reported too).
- Before them, as in a lesson, the teacher's page opens (the server's first run imports the app); `--cold`
  lets the class open the server's first pages instead.
- Then everyone leaves, and the server tree's memory is followed for up to 3.5 minutes
  (Streamlit keeps a disconnected session for 2).

Targets: no crash; server tree peak ≤ 1.2 GB (summed PSS of the server and its workers);
back under the store's budget + 300 MB within 3 minutes after the class leaves; bystanders'
step p90 ≤ 1.0 s; every hostile request answered within 10 s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import string
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_class import SMALL_SETTINGS, Server, link, log, p90  # noqa: E402
from process_memory import process_tree  # noqa: E402
from streamlit_client import ProtocolError, StreamlitClient  # noqa: E402

MB = 1024 * 1024
PEAK_TARGET = 1.2e9
STEP_P90_TARGET = 1.0
ANSWER_TARGET = 10.0
SETTLE_TARGET = 180.0
STORE_BUDGET = 400 * MB  # wordpiece_ui/stores.py's default (WORDPIECE_LAB_CACHE_MB)
LONG_WORD = "a" * 20_000


class Sampler(threading.Thread):
    def __init__(self, server: Server) -> None:
        super().__init__(daemon=True)
        self.server, self.samples, self.done = server, [], threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            with contextlib.suppress(Exception):
                self.samples.append((time.monotonic(), self.server.pss_bytes()))
            self.done.wait(0.2)

    def peak(self, start: float, end: float) -> int:
        return max((v for t, v in list(self.samples) if start <= t <= end), default=0)


def tokenizer_file(max_chars: int, long_token: int = 0) -> bytes:
    """A WordPiece file; `long_token`: with one token of that many letters that never matches (the scan of the
    last hardening round was bounded by the longest token)."""
    vocab = {"[UNK]": 0, "a": 1, "##a": 2, "aa": 3, "##aa": 4}
    if long_token:
        vocab = {"[UNK]": 0, "a": 1, "##a": 2, "a" * (long_token - 1) + "b": 3}
    return json.dumps({"version": "1.0", "added_tokens": [], "normalizer": None,
                       "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
                       "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                                 "max_input_chars_per_word": max_chars, "vocab": vocab}}).encode()


def every_length_file() -> bytes:
    """A WordPiece file whose tokens have every length up to 1,000 and never match a run of a's: the length-by-length
    scan would try 999 pieces a character (models.WordPieceModel encodes it by LinMaxMatch instead)."""
    vocab = {"[UNK]": 0, "a": 1, "##a": 2, **{"##" + "b" * k: 2 + k for k in range(1, 999)}}
    return json.dumps({"version": "1.0", "added_tokens": [], "normalizer": None,
                       "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
                       "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                                 "max_input_chars_per_word": 100_000, "vocab": vocab}}).encode()


def unigram_runs_file() -> bytes:
    """A Unigram file of the pieces a, aa, …, 999 a's: a typed run of a's holds 999 of them at every position."""
    vocab = [["<unk>", 0.0]] + [["a" * k, -1.0 * k] for k in range(1, 1000)]
    return json.dumps({"version": "1.0", "added_tokens": [], "normalizer": None,
                       "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": None,
                       "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab}}).encode()


def unigram_file(long_piece: int) -> bytes:
    """A Unigram file with one piece of `long_piece` characters."""
    vocab = [["<unk>", 0.0], ["a", -1.0], ["b", -2.0], ["a" * (long_piece - 1) + "b", -3.0]]
    return json.dumps({"version": "1.0", "added_tokens": [], "normalizer": None,
                       "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": None,
                       "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab}}).encode()


def corpus_file(seed: int, size: int = 10 * MB) -> bytes:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(20_000)]
    out, total = [], 0
    while total < size:
        line = " ".join(rng.choice(words) for _ in range(12)) + "\n"
        out.append(line)
        total += len(line)
    return "".join(out).encode()[:size]


def answered(c: StreamlitClient) -> bool:
    """Whether the page has given its answer (or its refusal): not only the progress view, and on the
    Train page a step or an error line."""
    if c.auto_rerunning:
        return False
    return c.page_name != "" or c.step is not None or bool(c.errors)


class Bench:
    def __init__(self, args: argparse.Namespace, server: Server) -> None:
        self.args, self.server = args, server
        self.rng = random.Random(args.seed)
        self.steps: list[float] = []
        self.step_errors: list[str] = []
        self.hostile: list[tuple[str, float, float | None, str]] = []  # what, first answer, final, outcome
        self.stop_at = 0.0
        self.workers_stopped = 0
        self.closed_cpu: float | None = None  # the workers' CPU seconds 5–10 s after a training's only tab closed
        # What the hostile students send, made before the clock starts: made in the clients' event loop, a 10 MB
        # corpus held every client for a second or more, and the bystanders' steps were timed through it.
        self.uploads = [corpus_file(n) for n in range(args.uploads)]
        self.files = [(f"WordPiece, max_input_chars_per_word {max_chars:,}", tokenizer_file(max_chars), word)
                      for max_chars, word in ((10**9, 2_500), (100_000, 20_000))]
        self.files += [("WordPiece with a 20,000-letter token", tokenizer_file(100_000, 20_000), 5_000),
                       ("Unigram with a 20,000-character piece", unigram_file(20_000), 5_000),
                       ("WordPiece with tokens of every length up to 1,000", every_length_file(), 20_000),
                       ("Unigram with runs of a's of every length up to 999", unigram_runs_file(), 20_000)]
        rng = random.Random(7)
        self.pasted = " ".join("".join(rng.choices(string.ascii_lowercase, k=8)) for _ in range(100_000))  # 900,000
        self.step_times: list[tuple[float, float]] = []  # (when a step was clicked, its seconds)

    async def bystander(self, i: int) -> None:
        url = link(**SMALL_SETTINGS[i % len(SMALL_SETTINGS)])
        c = StreamlitClient(self.server.base_url, url, run_timeout=60)
        try:
            await c.open(lambda cl: cl.step is not None)
            while time.monotonic() < self.stop_at:
                await asyncio.sleep(self.rng.uniform(1, 3))
                button = c.buttons.get("Next")
                if button is None or button.disabled:
                    await c.close()
                    c = StreamlitClient(self.server.base_url, url, run_timeout=60)
                    await c.open(lambda cl: cl.step is not None)
                    continue
                clicked = time.monotonic()
                run = await c.click("Next")
                self.steps.append(run.seconds)
                self.step_times.append((clicked, run.seconds))
        except Exception as exc:  # noqa: BLE001 (every failure is reported, none ends the run)
            self.step_errors.append(f"bystander {i}: {exc}")
        finally:
            with contextlib.suppress(Exception):
                await c.close()

    async def request(self, what: str, url: str, action=None) -> None:
        """Open `url` (then run `action` on the client): the time to the first complete run, and to the answer."""
        start = time.monotonic()
        c = StreamlitClient(self.server.base_url, url, run_timeout=60)
        first: float | None = None
        final: float | None = None
        outcome = "ok"
        try:
            await c.open()
            if action is not None:
                await action(c)
            first = time.monotonic() - start
            deadline = time.monotonic() + 240
            while not answered(c) and time.monotonic() < deadline:
                await asyncio.sleep(0.5)
            final = time.monotonic() - start if answered(c) else None
            outcome = "; ".join(e[:90] for e in c.errors) or "answered"
        except (ProtocolError, asyncio.TimeoutError, OSError) as exc:
            outcome = f"no answer: {exc}"[:120]
        finally:
            with contextlib.suppress(Exception):
                await c.close()
        self.hostile.append((what, first if first is not None else float("inf"), final, outcome))
        log(f"hostile: {what}: first {first}, final {final}: {outcome}")

    async def hostile_student(self, kind: int) -> None:
        await asyncio.sleep(kind * 0.7)
        if kind == 0:
            for algorithm in ("bpe", "wordpiece"):
                await self.request(f"playground {algorithm}, a 20,000-letter word typed in the text box",
                                   link(corpus="english-paragraphs", algorithm=algorithm).replace("/?", "/playground?"),
                                   lambda c: c.type_text("Text (", LONG_WORD))
                await self.request(f"playground {algorithm}, a 20,000-letter word in the link's text (cut at 1,000)",
                                   link(corpus="english-paragraphs", algorithm=algorithm).replace("/?", "/playground?")
                                   + "&text=" + LONG_WORD)
        elif kind == 1:
            await self.request("compare, held-out text of two 20,000-letter words typed",
                               "/compare?corpus=course-toy", lambda c: c.type_text("Held-out text", " ".join([LONG_WORD] * 2)))
        elif kind == 2:
            for what, data, word in self.files:
                async def upload(c: StreamlitClient, data: bytes = data, word: int = word) -> None:
                    label = next(label for label in c.file_uploaders if label.startswith("tokenizer.json"))
                    await c.upload(label, "tokenizer.json", data, "application/json")
                    if any(label.startswith("Text (") for label in c.text_boxes):
                        await c.type_text("Text (", "a" * word)
                await self.request(f"playground, tokenizer file: {what}; a {word:,}-letter word typed",
                                   "/playground?source=file", upload)
        elif kind == 3:
            await self.request("train page BPE, a 1,000,000-letter word pasted",
                               link(corpus="paste", algorithm="bpe", vocab_size=1000),
                               lambda c: c.type_text("Your text", "a" * 1_000_000))
            for n, data in enumerate(self.uploads):
                async def upload(c: StreamlitClient, data: bytes = data, n: int = n) -> None:
                    label = next(iter(c.file_uploaders))
                    await c.upload(label, f"corpus-{n}.txt", data)
                await self.request(f"train page, a 10 MB corpus upload ({n + 1})",
                                   link(corpus="upload", algorithm="wordpiece", vocab_size=1000), upload)
        elif kind == 4:
            async def stop_worker() -> None:  # as soon as the training's worker runs
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    stopped = self.stop_workers()
                    if stopped:
                        log(f"hostile: stopped {stopped} worker process(es)")
                        self.workers_stopped += stopped
                        return
                    await asyncio.sleep(0.1)
            stopper = asyncio.create_task(stop_worker())
            await self.request("a large training whose worker is stopped (SIGSTOP)",
                               link(corpus="wordfreq-en", algorithm="wordpiece", vocab_size=50_000,
                                    tie_break="hf", min_frequency=0))
            await stopper
            await self.closed_tab()

    async def closed_tab(self) -> None:
        """A large training whose only tab closes once its worker runs: that worker's CPU seconds from 5 s after
        the close, for 5 s (the target: none). Only a worker that started after this tab's text went counts (the
        other students' trainings run meanwhile); one that has ended adds nothing."""
        before = set(self.worker_pids())
        c = StreamlitClient(self.server.base_url, link(corpus="paste", algorithm="bpe", vocab_size=20_000),
                            run_timeout=60)
        with contextlib.suppress(ProtocolError, asyncio.TimeoutError, OSError):
            await c.open()
            await c.type_text("Your text", self.pasted)
        deadline, mine = time.monotonic() + 60, []
        while not mine and time.monotonic() < deadline:
            mine = [pid for pid in self.worker_pids() if pid not in before]
            await asyncio.sleep(0.2)
        await c.close()
        if not mine:
            log("hostile: closed tab: no worker of its own started")
            return
        await asyncio.sleep(5)
        start = self.workers_cpu(mine)
        await asyncio.sleep(5)
        end = self.workers_cpu(mine)
        self.closed_cpu = sum(max(0.0, end.get(pid, start[pid]) - start[pid]) for pid in start)
        log(f"hostile: closed tab: its worker's CPU 5–10 s after the close {self.closed_cpu}")

    def worker_pids(self) -> list[int]:
        """The server's training workers (`python -m wordpiece_ui.train_worker`) alive now."""
        pids = []
        for pid in process_tree(self.server.process.pid):
            with contextlib.suppress(OSError):
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    if b"train_worker" in fh.read():
                        pids.append(pid)
        return pids

    @staticmethod
    def workers_cpu(pids: list[int]) -> dict[int, float]:
        """The CPU seconds (user + system) each of these processes still alive has used."""
        used = {}
        for pid in pids:
            with contextlib.suppress(OSError, ValueError):
                with open(f"/proc/{pid}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                used[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return used

    def stop_workers(self) -> int:
        """SIGSTOP the server's training workers."""
        stopped = 0
        for pid in self.worker_pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)
                stopped += 1
        return stopped

    async def teacher_opens_first(self) -> None:
        """As in a lesson, the teacher's projector opens the Train page before the class comes (the server's first
        run imports the app's modules, about 2 s that every page opened with it would wait for); `--cold` skips it."""
        c = StreamlitClient(self.server.base_url, link(**SMALL_SETTINGS[0]), run_timeout=60)
        await c.open(lambda cl: cl.step is not None)
        await c.close()

    async def run(self) -> dict:
        if not self.args.cold:
            await self.teacher_opens_first()
        self.stop_at = time.monotonic() + self.args.seconds
        start = time.monotonic()
        await asyncio.gather(*(self.bystander(i) for i in range(self.args.students)),
                             *(self.hostile_student(k) for k in range(5)))
        return {"start": start, "end": time.monotonic()}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 bystanders, 40 s, 2 uploads")
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=120.0, help="how long the bystanders step")
    parser.add_argument("--uploads", type=int, default=4)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cold", action="store_true",
                        help="the class opens the server's first pages (no teacher's page before it)")
    args = parser.parse_args()
    if args.quick:
        args.students, args.seconds, args.uploads = 10, 40.0, 2
    data = tempfile.mkdtemp(prefix="bench_hostile-data-")
    os.environ["WORDPIECE_LAB_DATA"] = data  # the server's own data folder, not the user's
    server = Server(args.port or free_port())
    server.start()
    sampler = Sampler(server)
    sampler.start()
    try:
        bench = Bench(args, server)
        window = asyncio.run(bench.run())
        left = time.monotonic()
        alive = server.process.poll() is None
        settled: float | None = None
        while time.monotonic() - left < SETTLE_TARGET + 30:
            time.sleep(2)
            if server.pss_bytes() <= STORE_BUDGET + 300 * MB:
                settled = time.monotonic() - left
                break
        alive = alive and server.process.poll() is None
        peak = sampler.peak(window["start"], time.monotonic())
    finally:
        sampler.done.set()
        server.stop()
    steps = bench.steps
    rows = [
        ("server alive throughout", "yes" if alive else "NO (crashed)", "no crash", "pass" if alive else "FAIL"),
        ("server tree peak (summed PSS)", f"{peak / 1e9:.2f} GB", "≤ 1.2 GB", "pass" if peak <= PEAK_TARGET else "FAIL"),
        ("back under budget + 300 MB after leaving", "never" if settled is None else f"{settled:.0f} s",
         "≤ 180 s", "pass" if settled is not None and settled <= SETTLE_TARGET else "FAIL"),
        (f"bystanders' step p90 ({len(steps)} steps, {args.students} students)",
         f"{p90(steps):.2f} s" if steps else "no steps", "≤ 1.0 s",
         "pass" if steps and p90(steps) <= STEP_P90_TARGET and not bench.step_errors else "FAIL"),
    ]
    for what, first, final, outcome in bench.hostile:
        rows.append((what, f"{first:.1f} s (answer: {'none' if final is None else f'{final:.1f} s'})", "≤ 10 s",
                     "pass" if first <= ANSWER_TARGET and final is not None else "FAIL"))
    closed = bench.closed_cpu
    rows.append(("a training's worker: CPU 5–10 s after its only tab closed",
                 "no worker of its own ran" if closed is None else f"{closed:.2f} s", "0 s",
                 "pass" if closed is not None and closed < 0.05 else "FAIL"))
    print("| what | measured | target | verdict |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    for what, _, _, outcome in bench.hostile:
        print(f"- {what}: {outcome}")
    print(f"- worker processes stopped with SIGSTOP: {bench.workers_stopped}")
    for error in bench.step_errors[:10]:
        print(f"- bystander error: {error}")
    print("\nBystanders' steps by when they were clicked (seconds from the start):\n")
    print("| from | steps | median | p90 | max |\n|---|---:|---:|---:|---:|")
    for lo in range(0, int(args.seconds) + 15, 15):
        window_steps = sorted(s for t, s in bench.step_times if lo <= t - window["start"] < lo + 15)
        if window_steps:
            print(f"| {lo} s | {len(window_steps)} | {window_steps[len(window_steps) // 2]:.2f} s | "
                  f"{p90(window_steps):.2f} s | {window_steps[-1]:.2f} s |")


if __name__ == "__main__":
    main()
