"""Step latency on the Train page as a person meets it: Debian's Chromium, a 1280×720 window.

Starts the app as the README says (`python -m streamlit run app.py`, on a free port),
opens wordfreq-en with WordPiece and a vocabulary of 8,000 at step 5,000 (the training
runs first and is not timed), then clicks Next a dozen times and measures, inside the
page (performance.now(), checked every animation frame):

- click → the new step's heading is on screen;
- click → the page is idle again (no "Running" status, no stale or skeleton element).

Prints one table with the medians and 90th percentiles against the step-latency targets
(heading ≤ 150 ms, idle ≤ 300 ms, medians).

    python benchmarks/bench_browser.py [--clicks 12] [--step 5000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer  # noqa: E402

HEADING_MS, IDLE_MS = 150.0, 300.0

CLICK_AND_WAIT = """
async ([label, nextStep]) => {
  const t0 = performance.now();
  const button = Array.from(document.querySelectorAll("button")).find(
    (b) => b.innerText.split("\\n").some((line) => line.trim() === label));
  button.click();
  let heading = null;
  return await new Promise((resolve) => {
    function tick() {
      const now = performance.now();
      if (heading === null) {
        const h = Array.from(document.querySelectorAll("h2")).find(
          (e) => e.innerText.startsWith("Step " + nextStep.toLocaleString("en-US") + " of") ||
                 e.innerText.startsWith("Step " + nextStep + " of"));
        if (h) heading = now - t0;
      }
      const status = document.querySelector('[data-testid="stStatusWidget"]');
      const busy = (status && status.innerText.includes("Running")) ||
                   document.querySelector('[data-stale="true"]') || document.querySelector('[data-testid="stSkeleton"]');
      if (heading !== null && !busy) { resolve([heading, now - t0]); return; }
      if (now - t0 > 30000) { resolve([heading, null]); return; }
      requestAnimationFrame(tick);
    }
    requestAnimationFrame(tick);
  });
}
"""


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=12)
    parser.add_argument("--step", type=int, default=5000)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    os.environ.setdefault("SCREENSHOT_DIR", os.path.join(ROOT, "artifacts", "screenshots"))
    os.makedirs(os.environ["SCREENSHOT_DIR"], exist_ok=True)
    server = StreamlitServer()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            start = time.perf_counter()
            page.goto(server.url + f"/?corpus=wordfreq-en&algorithm=wordpiece&vocab_size=8000&step={args.step}")
            page.get_by_text(f"Step {args.step} of").first.wait_for(timeout=180_000)
            page.wait_for_timeout(1500)
            print(f"loaded (training included) in {time.perf_counter() - start:.1f} s", file=sys.stderr)
            heading, idle = [], []
            for i in range(args.clicks):
                h, d = page.evaluate(CLICK_AND_WAIT, ["Next", args.step + i + 1])
                if h is None or d is None:
                    print(f"click {i + 1}: timed out", file=sys.stderr)
                    continue
                heading.append(h)
                idle.append(d)
                print(f"click {i + 1}: heading {h:.0f} ms, idle {d:.0f} ms", file=sys.stderr)
                page.wait_for_timeout(400)
            browser.close()
    finally:
        server.stop()
    if not heading:
        print("no click was measured")
        return 1
    print(f"Train page in Chromium at 1280×720, wordfreq-en WordPiece 8,000, Next from step {args.step:,} "
          f"({len(heading)} clicks)\n")
    print("| measure | median (ms) | p90 (ms) | target (median) | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name, values, target in (("click → new step heading", heading, HEADING_MS),
                                 ("click → page idle again", idle, IDLE_MS)):
        median = statistics.median(values)
        print(f"| {name} | {median:.0f} | {p90(values):.0f} | ≤ {target:.0f} | {median / target:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
