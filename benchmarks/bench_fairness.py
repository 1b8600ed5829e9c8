""""Fair to every language?" as a person meets it in Chromium (issue 49's targets):

- cold: a new server (nothing cached, nothing trained), the page's link with every language (40), GPT-2 and
  cl100k from the shelf, o200k too, and the sidebar's training on the web mix (four tokenizers: one trained, three
  real): link opened → the chart on screen, the page idle (target ≤ 8 s);
- warm: the same link opened again in a new tab of the same server (target ≤ 3 s);
- a mixed training: the Train page on the equal mix of all 40 languages with BPE at 8,000 tokens, cold: link
  opened → step 1's heading on screen, the page idle (target ≤ 30 s).

The browser is Debian's Chromium at 1280×720.

    python benchmarks/bench_fairness.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from bench_unigram_browser import IDLE, cold_visit  # noqa: E402
from browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer  # noqa: E402

PAGE = "/fairness?corpus=udhr-web&algorithm=bpe&tokenizers=r50k_base,cl100k_base,o200k_base,trained"
MIX = "/?corpus=udhr-equal&algorithm=bpe&vocab_size=8000"


def _ready(page, text: str, timeout_s: float, chart: bool = True) -> None:
    page.get_by_text(text).first.wait_for(timeout=timeout_s * 1000)
    if chart:
        page.locator("[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg").first.wait_for(
            timeout=timeout_s * 1000)
    while not page.evaluate(IDLE):
        page.wait_for_timeout(50)


def page_times(timeout_s: float = 180) -> tuple[float, float, float]:
    """(cold, warm) seconds for the page's link on one new server, and the floor: the Corpora page (text, no
    computation) opened warm on the same server, what any page costs a new tab here."""
    from playwright.sync_api import sync_playwright

    server = StreamlitServer()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            times = []
            for path, text, chart in ((PAGE, "pays the most", True), (PAGE, "pays the most", True),
                                      ("/corpora", "Glossary", False)):
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                start = time.perf_counter()
                page.goto(server.url + path)
                _ready(page, text, timeout_s, chart)
                times.append(time.perf_counter() - start)
                page.close()
            browser.close()
            return times[0], times[1], times[2]
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cold, warm, floor, mixed = [], [], [], []
    for _ in range(args.repeat):
        c, w, f = page_times()
        cold.append(c)
        warm.append(w)
        floor.append(f)
        mixed.append(cold_visit(MIX, "Step 1 of", (1280, 720), chart=True, timeout_s=180))
    print("| measurement | median | runs | target | |")
    print("|---|---|---|---|---|")
    for name, values, target in (("the page, cold (40 languages, 4 tokenizers)", cold, 8.0),
                                 ("the page, warm", warm, 3.0),
                                 ("(floor: the Corpora page, warm, no computation)", floor, 3.0),
                                 ("the Train page on the 40-language mix, BPE 8,000, cold", mixed, 30.0)):
        median = statistics.median(values)
        runs = ", ".join(f"{v:.1f}" for v in values)
        print(f"| {name} | {median:.1f} s | {runs} | ≤ {target:.0f} s | {'holds' if median <= target else 'MISSED'} |")


if __name__ == "__main__":
    main()
