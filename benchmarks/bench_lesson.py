"""A live class-room lesson where the students look: real Chromium pages on one real `streamlit run` server.

What it runs: the app started as tests/browser.py starts it (`streamlit run app.py` on a free port, a fresh
data folder of its own, removed at the end), Debian's Chromium driven by Playwright (sync API, one process):
for each of `--algorithms` (default BPE, WordPiece and Unigram, one room each, one after the other: the
issue's lesson), the teacher's projector (1280×720) opens the course's toy corpus with it (tests/browser.py's
start_room: "Start a class room") and N phones (390×844, each a browser context of its own, is_mobile and
has_touch; default 6) open the student link. Then `--steps` hidden steps (default 3; Unigram's: rounds), as
tests/test_browser_class.py drives them: every phone votes for its first choice ("which pair merges next?",
"which piece costs least to remove?"), the teacher waits for "N of N answered", presses "Show answers", then
"Reveal the merge" ("Reveal the round"), then "Next". A Unigram round whose candidates all cost the same asks
nothing (the phones say so): there the teacher only reveals it and goes on. Each teacher button is pressed once
(no retry).

What it measures, for every step and every phone, with time.perf_counter in this process: every page
concerned is polled every 50 ms by one cheap `page.evaluate` (the first "Step k of" h2 and whether it holds
"→", a live vote radio, a live "Your vote is in" alert, a caption starting "Round 1:"); a page's time is
taken when the poll that first saw the new state returned (so it includes up to one poll interval and one
evaluate round trip). A click's time zero is when Playwright's click returned (the mouse-up dispatched).

- follow (Next): the teacher's click on Next → the phone shows "Step k+1 of" with the vote radio;
- follow (Show answers): the teacher's click → the phone shows the histogram's caption "Round 1: …";
- follow (Reveal): the teacher's click on "Reveal the merge" → the phone's step heading holds "→";
- vote-in: the phone's radio click → "Your vote is in" on that phone;
- teacher redraw: the teacher's click → the projector shows the result ("Step k+1 of"; "Round 1: …"; the
  heading with "→").

What never arrives within 20 s (--timeout) of its click is a miss: counted in the table and left behind (the
lesson goes on). The targets (from the issue): follow ≤ 1.5 s at the 90th percentile, vote-in ≤ 1.0 s at the
90th percentile, the teacher's redraw ≤ 0.5 s median. "holds?" counts a miss as never arriving (slower than
any time), the median/p90/max columns are over what arrived. The machine's load averages (os.getloadavg)
are printed before and after: this machine has 2 cores, and the server, Chromium and this script share them.

    python benchmarks/bench_lesson.py [--phones 6] [--steps 3] [--algorithms bpe,wordpiece,unigram] [--timeout 20]

With the defaults it takes about 5–8 minutes.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
# The server's log goes to SCREENSHOT_DIR/streamlit.log: a folder of our own unless the caller names one, so
# a browser test running in the same tree keeps its log.
_OWN_LOG_DIR = None
if "SCREENSHOT_DIR" not in os.environ:
    _OWN_LOG_DIR = tempfile.mkdtemp(prefix="bench_lesson-log-")
    os.environ["SCREENSHOT_DIR"] = _OWN_LOG_DIR

from browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer, full_link, start_room, tab, wait_idle  # noqa: E402

FOLLOW_P90 = 1.5
VOTE_P90 = 1.0
REDRAW_MEDIAN = 0.5
POLL = 0.05
ASKS = {"bpe": "which pair merges next?", "wordpiece": "which pair merges next?",
        "unigram": "which piece costs least to remove?"}
REVEALS = {"bpe": "Reveal the merge", "wordpiece": "Reveal the merge", "unigram": "Reveal the round"}
ACTIONS = ("Next", "Show answers", "Reveal")

# One cheap look at a page: [step of the first "Step k of" ("Round k of") h2, that h2 holds "→", a live vote
# radio asking `ask`, a live "Your vote is in", a caption starting "Round 1:", false]. "Live": not in an element
# Streamlit marks stale.
STATE_JS = """(ask) => {
  const live = (e) => { const box = e.closest('[data-testid="stElementContainer"]');
                        return !(box && box.getAttribute('data-stale') === 'true'); };
  let step = null, arrow = false;
  for (const h of document.querySelectorAll('h2')) {
    const m = /(?:Step|Round) (\\d+) of/.exec(h.textContent);
    if (m) { step = Number(m[1]); arrow = h.textContent.includes('\u2192'); break; }
  }
  const radio = Array.from(document.querySelectorAll('[data-testid="stRadio"]'))
    .some((r) => r.textContent.includes(ask) && live(r));
  const voted = Array.from(document.querySelectorAll('[data-testid="stAlert"]'))
    .some((a) => a.textContent.includes('Your vote is in') && live(a));
  const round = Array.from(document.querySelectorAll('[data-testid="stCaptionContainer"]'))
    .some((c) => c.textContent.trim().startsWith('Round 1:'));
  return [step, arrow, radio, voted, round, false];
}"""


# The same look at the room's phone page (wordpiece_ui/phone_room.py): the step of its h1, revealed (the h1 no
# longer asks), the vote's buttons, "Your vote is in", the class's answers drawn, "Nothing to vote on".
PHONE_JS = """(ask) => {
  const h = document.querySelector('main h1');
  const m = h ? /(?:Step|Round) (\\d+) of/.exec(h.textContent) : null;
  const step = m ? Number(m[1]) : null;
  const arrow = !!h && !h.textContent.includes('which');
  const radio = document.querySelectorAll('button.choice').length > 0;
  const voted = Array.from(document.querySelectorAll('.note')).some((n) => n.textContent.includes('Your vote is in'));
  const round = Array.from(document.querySelectorAll('.muted')).some((n) => n.textContent.includes('what the class answered'));
  const novote = Array.from(document.querySelectorAll('.note')).some((n) => n.textContent.includes('Nothing to vote on'));
  return [step, arrow, radio, voted, round, novote];
}"""


@dataclass
class Look:
    step: int | None
    arrow: bool
    radio: bool
    voted: bool
    round: bool
    novote: bool  # a round with nothing to vote on (its candidates all cost the same)

    @property
    def asked(self) -> bool:
        """The page is ready for the step: its vote, or its note that there is nothing to vote on."""
        return self.radio or self.novote


def look(page) -> Look | None:
    try:
        return Look(*page.evaluate(PHONE_JS if getattr(page, "phone_page", False) else STATE_JS,
                                   getattr(page, "ask", ASKS["wordpiece"])))
    except Exception:  # a page that is navigating or gone: not yet
        return None


@dataclass
class Watch:
    """One thing to see on one page after one click: `check(look)` first true at `seen`."""
    row: str
    page: object
    name: str
    check: object
    t0: float
    step: int
    seen: float | None = None


@dataclass
class Results:
    times: dict = field(default_factory=dict)  # row → [seconds]
    misses: dict = field(default_factory=dict)  # row → [description]
    notes: list = field(default_factory=list)

    def add(self, w: Watch) -> None:
        if w.seen is None:
            self.misses.setdefault(w.row, []).append(f"{w.name} at step {w.step}")
        else:
            self.times.setdefault(w.row, []).append(w.seen - w.t0)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def poll_once(watches: list[Watch]) -> None:
    """One look at every page that still has something pending; each watch that holds is stamped."""
    pages = {}
    for w in watches:
        if w.seen is None:
            pages.setdefault(id(w.page), (w.page, []))[1].append(w)
    for page, ws in pages.values():
        state = look(page)
        now = time.perf_counter()
        if state is None:
            continue
        for w in ws:
            if w.check(state):
                w.seen = now


def poll_until_done(watches: list[Watch], timeout: float) -> None:
    """Poll every POLL s until every watch holds or has waited `timeout` s since its own click."""
    while True:
        started = time.perf_counter()
        poll_once(watches)
        pending = [w for w in watches if w.seen is None and started - w.t0 < timeout]
        if not pending:
            return
        time.sleep(max(0.0, POLL - (time.perf_counter() - started)))


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def wait_for(pages: list, check, timeout: float) -> list:
    """Poll until `check` holds on every page (no timing); the pages where it did not."""
    deadline = time.perf_counter() + timeout
    late = list(pages)
    while late:
        late = [p for p in late if not ((s := look(p)) and check(s))]
        if not late or time.perf_counter() > deadline:
            break
        time.sleep(0.1)
    return late


def vote(phone) -> None:
    """The phone votes for its radio's first candidate (as tests/test_browser_class.py does), or the phone page's
    first choice; returns when Playwright's click returned."""
    if getattr(phone, "phone_page", False):
        phone.locator("button.choice").first.click(timeout=5_000)
        return
    radio = phone.get_by_test_id("stRadio").filter(has_text=phone.ask).first
    first = [line for line in radio.inner_text(timeout=5_000).splitlines() if line.strip()][1]
    radio.get_by_text(first, exact=True).first.click(timeout=5_000)


def press(teacher, label: str, timeout: float) -> float | None:
    """The teacher's one press of a button; the time its click returned, or None if it could not be pressed."""
    try:
        teacher.get_by_role("button", name=label).first.click(timeout=timeout * 1000)
    except Exception as exc:
        log(f"  could not press {label!r}: {str(exc).splitlines()[0]}")
        return None
    return time.perf_counter()


def teacher_action(res: Results, teacher, phones: list, names: dict, label: str, row: str, step: int,
                   teacher_check, phone_check, timeout: float) -> None:
    """Press `label` once; time the projector's redraw and each phone's follow."""
    before_t = look(teacher)
    before_p = [look(p) for p in phones]
    if before_t and teacher_check(before_t):
        res.notes.append(f"step {step}, {row}: the projector showed the result before the click")
    shown = [names[p] for p, s in zip(phones, before_p) if s and phone_check(s)]
    if shown:
        res.notes.append(f"step {step}, {row}: {', '.join(shown)} showed the result before the click")
    t0 = press(teacher, label, timeout)
    watches = [Watch(f"teacher redraw ({row})", teacher, "the projector", teacher_check, t0 or 0.0, step)]
    watches += [Watch(f"follow ({row})", p, names[p], phone_check, t0 or 0.0, step) for p in phones]
    if t0 is None:
        res.notes.append(f"step {step}: the teacher's {label!r} could not be pressed")
    else:
        poll_until_done(watches, timeout)
    for w in watches:
        res.add(w)
    arrived = [w.seen - w.t0 for w in watches[1:] if w.seen is not None]
    redraw = watches[0]
    log(f"  {row}: projector {'%.2f s' % (redraw.seen - redraw.t0) if redraw.seen else 'MISS'}; phones "
        f"{len(arrived)} of {len(phones)}" + (f", slowest {max(arrived):.2f} s" if arrived else ""))


def reveal_and_next(res: Results, teacher, phones: list, names: dict, reveal: str, step: int, args) -> None:
    """The teacher's *Reveal* (its label `reveal`), then *Next*, each pressed once and timed; the projector idle
    after each."""
    teacher_action(res, teacher, phones, names, reveal, "Reveal", step,
                   lambda s, k=step: s.step == k and s.arrow,
                   lambda s, k=step: s.step == k and s.arrow, args.timeout)
    wait_idle(teacher)
    time.sleep(args.settle)
    teacher_action(res, teacher, phones, names, "Next", "Next", step,
                   lambda s, k=step + 1: s.step == k,
                   lambda s, k=step + 1: s.step == k and s.asked, args.timeout)
    wait_idle(teacher)


def lesson(args, browser, server, res: Results, algorithm: str) -> dict:
    ask, reveal = ASKS[algorithm], REVEALS[algorithm]
    teacher = tab(browser, {"width": 1280, "height": 720})
    teacher.ask = ask
    t = time.perf_counter()
    link = start_room(teacher, server.url, algorithm)
    log(f"{algorithm}: room started in {time.perf_counter() - t:.1f} s: {link}")
    heading = teacher.locator("h2").filter(has_text=re.compile(r"(Step|Round) \d+ of \d+")).first.inner_text()
    total_steps = int(re.search(r"(?:Step|Round) \d+ of (\d+)", heading)[1])
    steps = min(args.steps, total_steps - 1)
    if steps < args.steps:
        res.notes.append(f"{algorithm}: the corpus has {total_steps} steps: {steps} hidden steps measured, "
                         f"not {args.steps}")

    phones = [tab(browser, {"width": 390, "height": 844}, phone=True) for _ in range(args.phones)]
    names = {teacher: "the projector"}
    t = time.perf_counter()
    if args.view == "full":  # the room on the Train page (*Open the full step*), not the phone page
        link = full_link(link)
    for p in phones:
        p.phone_page = args.view == "phone"
        p.ask = ask
        p.goto(link)
    for i, p in enumerate(phones):
        p.get_by_text(ask).first.wait_for(timeout=120_000)
        if not p.phone_page:
            wait_idle(p)
        nickname = re.search(r"you are (.+)$", p.get_by_text(re.compile("you are")).first.inner_text().strip())
        names[p] = f"phone {i + 1}" + (f" ({nickname[1]})" if nickname else "")
    log(f"{len(phones)} phones in the room in {time.perf_counter() - t:.1f} s")

    for step in range(1, steps + 1):
        log(f"{algorithm}, step {step}:")
        # Every phone on the class's step with its vote (the time it took after Next is the follow row).
        late = wait_for(phones, lambda s: s.step == step and s.asked, args.timeout)
        seen = [look(p) for p in phones if p not in late]
        if seen and all(s is not None and s.novote for s in seen):
            res.notes.append(f"{algorithm}, step {step}: nothing to vote on (every candidate costs the same): "
                             "revealed at once")
            reveal_and_next(res, teacher, phones, names, reveal, step, args)
            continue
        if late:
            res.notes.append(f"step {step}: {', '.join(names[p] for p in late)} not on the step with its vote "
                             f"{args.timeout:g} s more after the follow: not voting")
        voters = [p for p in phones if p not in late]
        watches = []
        for p in phones:
            if p in late:
                res.misses.setdefault("vote-in", []).append(f"{names[p]} at step {step} (no vote radio)")
                continue
            try:
                vote(p)
            except Exception as exc:
                res.misses.setdefault("vote-in", []).append(f"{names[p]} at step {step} (the click failed)")
                log(f"  {names[p]}: the vote's click failed: {str(exc).splitlines()[0]}")
                continue
            watches.append(Watch("vote-in", p, names[p], lambda s, k=step: s.step == k and s.voted,
                                 time.perf_counter(), step))
            poll_once(watches)  # the phones already clicked, between two clicks
        poll_until_done(watches, args.timeout)
        for w in watches:
            res.add(w)
        arrived = [w.seen - w.t0 for w in watches if w.seen is not None]
        log(f"  vote-in: {len(arrived)} of {len(phones)}" + (f", slowest {max(arrived):.2f} s" if arrived else ""))

        # The teacher sees the count, then the class settles before the press.
        n = len(voters)
        try:
            teacher.get_by_text(re.compile(rf"\b{n} of {len(phones)} answered")).first.wait_for(
                timeout=args.timeout * 1000)
        except Exception:
            res.notes.append(f"step {step}: the projector did not show '{n} of {len(phones)} answered' within "
                             f"{args.timeout:g} s; pressed Show answers anyway")
        wait_idle(teacher)
        time.sleep(args.settle)

        teacher_action(res, teacher, phones, names, "Show answers", "Show answers", step,
                       lambda s, k=step: s.step == k and s.round,
                       lambda s, k=step: s.step == k and s.round, args.timeout)
        wait_idle(teacher)
        time.sleep(args.settle)
        reveal_and_next(res, teacher, phones, names, reveal, step, args)
    errors = {f"{algorithm}, {names[p]}": p.errors for p in [teacher] + phones if p.errors}
    for p in [teacher] + phones:
        p.context.close()
    return {"steps": steps, "total_steps": total_steps, "errors": errors}


def row_line(res: Results, row: str, stat_name: str, limit: float) -> str:
    values = res.times.get(row, [])
    misses = len(res.misses.get(row, []))
    n = len(values) + misses
    stat = statistics.median if stat_name == "median" else p90
    judged = values + [math.inf] * misses
    holds = ("yes" if stat(judged) <= limit else "no") if judged else "not measured"
    if values:
        cells = f"{statistics.median(values):.2f} | {p90(values):.2f} | {max(values):.2f}"
    else:
        cells = "– | – | –"
    return f"| {row} | {n} | {cells} | {misses} | {stat_name} ≤ {limit:g} s | {holds} |"


def print_table(args, res: Results, info: dict, load_before, load_after, seconds: float) -> None:
    print(f"WordPiece Lab class room in Chromium: the projector (1280×720) and {args.phones} phones (390×844, the "
          f"{'phone page' if args.view == 'phone' else 'Train page'}) on "
          f"one `streamlit run` server; course-toy; {info.get('steps', '?')}; "
          f"{os.cpu_count()} CPUs; polled every {POLL * 1000:.0f} ms; a miss = nothing within {args.timeout:g} s")
    print()
    print(f"Machine load (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load_before)}; "
          f"after: {', '.join(f'{x:.2f}' for x in load_after)}")
    print()
    print("| what | n | median s | p90 s | max s | misses | target | holds? |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for action in ACTIONS:
        print(row_line(res, f"follow ({action})", "p90", FOLLOW_P90))
    print(row_line(res, "vote-in", "p90", VOTE_P90))
    for action in ACTIONS:
        print(row_line(res, f"teacher redraw ({action})", "median", REDRAW_MEDIAN))
    print()
    print(f"Benchmark took {seconds:.0f} s.")
    for row, missed in res.misses.items():
        print(f"Misses, {row}: {'; '.join(missed)}")
    for note in res.notes:
        print(f"Note: {note}")
    for name, errors in info.get("errors", {}).items():
        print(f"Page errors on {name}: {len(errors)}, first: {errors[0]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phones", type=int, default=6, help="students' phones in the room (default 6)")
    parser.add_argument("--view", choices=("phone", "full"), default="phone",
                        help="what the phones open: the link the projector shows, the room's phone page (default), "
                             "or the room on the Train page (full: what *Open the full step* gives)")
    parser.add_argument("--steps", type=int, default=3, help="hidden steps voted on, per algorithm (default 3)")
    parser.add_argument("--algorithms", default="bpe,wordpiece,unigram",
                        help="one room after the other with each of these (default bpe,wordpiece,unigram)")
    parser.add_argument("--timeout", type=float, default=20.0,
                        help="seconds after a click before what did not arrive is a miss (default 20)")
    parser.add_argument("--settle", type=float, default=1.0,
                        help="seconds the teacher waits, once the projector is idle, before the next press "
                             "(default 1)")
    args = parser.parse_args(argv)
    if args.phones < 1 or args.steps < 1:
        parser.error("--phones and --steps must be at least 1")
    args.algorithms = [a.strip().lower() for a in args.algorithms.split(",") if a.strip()]
    if not args.algorithms or set(args.algorithms) - set(ASKS):
        parser.error(f"--algorithms: some of {', '.join(ASKS)}")
    if not os.path.exists(CHROMIUM):
        parser.error(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()
    started = time.perf_counter()
    res = Results()
    info: dict = {}
    server = None
    failed = None
    try:
        server = StreamlitServer()
        log(f"server up at {server.url} in {time.perf_counter() - started:.1f} s")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                per = [(a, lesson(args, browser, server, res, a)) for a in args.algorithms]
                info = {"steps": ", ".join(f"{a}: {i['steps']} hidden {'rounds' if a == 'unigram' else 'steps'}"
                                           for a, i in per),
                        "errors": {k: v for _, i in per for k, v in i["errors"].items()}}
            finally:
                browser.close()
    except KeyboardInterrupt:
        log("interrupted")
        failed = "interrupted"
    except Exception as exc:
        failed = repr(exc)
        log(f"benchmark failed: {exc!r}")
        if server is not None:
            try:
                with open(server.log.name, errors="replace") as f:
                    log("--- server log (tail) ---\n" + "".join(f.readlines()[-30:]))
            except OSError:
                pass
    finally:
        if server is not None:
            server.stop()
        if _OWN_LOG_DIR:
            shutil.rmtree(_OWN_LOG_DIR, ignore_errors=True)
    load_after = os.getloadavg()
    if failed:
        res.notes.append(f"the lesson stopped early: {failed}")
    print_table(args, res, info, load_before, load_after, time.perf_counter() - started)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
