"""Does a training's memory estimate bound what its worker really weighs? A grid of corpus shapes, each trained
in the app's own worker process (`python -m wordpiece_ui.train_worker`, as jobs.py starts it), its process tree's
PSS sampled every 20 ms (process_memory.py), against `config.estimated_peak_bytes` (what trained.py refuses above
the worker budget, WORDPIECE_LAB_WORKER_MB, default 800 MB).

Shapes: distinct words of random lower-case letters (the worst case per character: every substring new), from
1,000 ten-letter words to 100 words of 10,000 letters (the longest a merge training takes), and the 200,000 most
frequent English words (wordfreq, the app's largest corpus by distinct words); vocabulary 8,000 (English: 30,000).
A run longer than --limit seconds is stopped and its peak so far reported (marked).

    python benchmarks/bench_estimates.py [--quick] [--limit 240]
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import string
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

from process_memory import tree_pss_bytes  # noqa: E402

SHAPES = {  # algorithm → (distinct words, letters each); 0 letters: the English words
    "bpe": [(1000, 10), (10_000, 50), (64_000, 20), (16_000, 99), (100, 10_000), (200_000, 0)],
    "wordpiece": [(10_000, 50), (64_000, 20), (16_000, 99), (100, 10_000), (200_000, 0)],
    "unigram": [(1000, 10), (10_000, 10), (10_000, 50), (64_000, 20), (16_000, 99), (200_000, 0)],
}
QUICK = {"bpe": [(1000, 10), (10_000, 50)], "wordpiece": [(10_000, 50)], "unigram": [(1000, 10), (10_000, 50)]}


def corpus(n: int, letters: int) -> dict[str, int]:
    if not letters:
        from wordfreq import top_n_list

        return {w: 1000 - i // 200 for i, w in enumerate(top_n_list("en", n))}
    rng = random.Random(n * 100_003 + letters)
    return {"".join(rng.choices(string.ascii_lowercase, k=letters)): rng.randint(1, 50) for _ in range(n)}


def measure(counts: dict[str, int], config, limit: float) -> tuple[int, float, bool]:
    """The worker's peak PSS (bytes), its seconds, and whether it finished within `limit`."""
    from wordpiece_ui.children import child_command, child_env

    proc = subprocess.Popen(child_command("wordpiece_ui.train_worker"), cwd=ROOT, env=child_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    reader = threading.Thread(target=proc.stdout.read, daemon=True)
    reader.start()
    proc.stdin.write(pickle.dumps((counts, config)))
    proc.stdin.close()
    peak, started = 0, time.perf_counter()
    while proc.poll() is None and time.perf_counter() - started < limit:
        try:
            peak = max(peak, tree_pss_bytes(proc.pid))
        except OSError:
            pass
        time.sleep(0.02)
    finished = proc.poll() is not None
    if not finished:
        proc.kill()
        proc.wait()
    return peak, time.perf_counter() - started, finished


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few small shapes")
    parser.add_argument("--limit", type=float, default=240.0, help="seconds a training may run (default 240)")
    args = parser.parse_args()
    from wordpiece_core.algorithms import build_config

    print("| algorithm | corpus | characters | estimate MB | worker peak MB | estimate ÷ peak | seconds | holds? |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    failed = 0
    for algorithm, shapes in (QUICK if args.quick else SHAPES).items():
        for n, letters in shapes:
            counts = corpus(n, letters)
            vocab = 30_000 if not letters else 8_000
            config = build_config(algorithm, vocab, pre_tokenizer="metaspace" if algorithm == "unigram" else "whitespace")
            chars = sum(map(len, counts))
            estimate = config.estimated_peak_bytes(len(counts), chars)
            peak, seconds, finished = measure(counts, config, args.limit)
            holds = estimate >= peak
            failed += not holds
            name = f"{n:,} English words" if not letters else f"{n:,} × {letters:,} random letters"
            print(f"| {algorithm} | {name} | {chars:,} | {estimate / 1e6:,.0f} | {peak / 1e6:,.0f} | "
                  f"{estimate / max(1, peak):.2f} | {seconds:.1f}{'' if finished else ' (stopped)'} | "
                  f"{'yes' if holds else 'no'} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
