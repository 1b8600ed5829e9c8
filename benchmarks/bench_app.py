"""Server time per step on the Train page over a long trace (the target: under 200 ms).

Runs the real app under Streamlit's AppTest (the same code path as a browser session,
without the network): trains once on the 10,000-word English sample with a vocabulary
of 8,000, then moves the step control to spread-out steps and times each rerun. A full
rerun is an upper bound: in the browser only the step fragment reruns.

    python benchmarks/bench_app.py [--vocab-size 8000] [--steps 25]
"""

from __future__ import annotations

import argparse
import re
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
TARGET_MS = 200.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--corpus", default="wordfreq-en")
    args = parser.parse_args()
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=600)
    at.query_params.update({"corpus": args.corpus, "algorithm": "wordpiece", "vocab_size": str(args.vocab_size),
                            "step": "1"})
    t = time.perf_counter()
    at.run()
    while not at.header and time.perf_counter() - t < 600:  # a big training runs in a worker; the page polls it
        time.sleep(0.5)
        at.run()
    first = time.perf_counter() - t
    assert not at.exception, at.exception
    header = at.header[0].value
    merges = int(re.search(r" of ([\d,]+)", header).group(1).replace(",", ""))
    times = []
    for i in range(args.steps):
        step = 1 + (i * 7919) % merges  # spread over the whole trace, no two alike
        t = time.perf_counter()
        at.slider(key="step_value:slider").set_value(step).run()
        times.append((time.perf_counter() - t) * 1000)
        assert not at.exception, at.exception
        assert at.header[0].value.startswith(f"Step {step} of"), at.header[0].value
    median, worst = statistics.median(times), max(times)
    print(f"Train page, {args.corpus}, WordPiece, {merges:,} merges; first load (training included) {first:.1f} s; "
          f"{len(times)} steps")
    print()
    print("| task | ours (ms) | target (ms) | ratio to target |")
    print("|---|---:|---:|---:|")
    print(f"| step change, median server time (full rerun) | {median:.0f} | {TARGET_MS:.0f} | {median / TARGET_MS:.2f}× |")
    print(f"| step change, worst server time (full rerun) | {worst:.0f} | {TARGET_MS:.0f} | {worst / TARGET_MS:.2f}× |")


if __name__ == "__main__":
    main()
