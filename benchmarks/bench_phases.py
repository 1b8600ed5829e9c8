"""Where the command line's time goes, for the rows of bench_train.py that miss their targets.

    python benchmarks/bench_phases.py           # the two 2M whitespace rows and the course row
    python benchmarks/bench_phases.py --quick   # smaller runs, to check the script

For each row it prints the reference's wall time (tokenizers, or the course's loop), the time the
target leaves us (the target ratio × the reference), and our command split into its phases.
Ours is the real command line, `python -m wordpiece_core train` with its defaults, run as a process
with timers around its stages (CHILD below): the interpreter's start and exit (the wall time
less the rest), the imports, setting up (the arguments, the output folder, forking the trace
writer), reading and counting the text, the training, and what follows the training (writing
the output files, the trace writer finishing). The child imports the modules the command uses
before it starts (the command line imports some as it goes), so that they count as imports; a
review measured the child at most about 25 ms slower than `python -m wordpiece_core` with the
same arguments. Then the same with `--top-k 0` (no candidates recorded: not a default, shown to
separate the trace's cost from the engine's).

The last columns say what the target asks of the training: the time left for it once the other
phases are paid, and how much faster than now it would have to be. Each default row runs --repeat
times, alternating with its reference (the best run counts, and the slowest reference run is
shown too, since one slow spell of the reference moves every verdict); the `--top-k 0` rows are
measured against the same reference runs, and the course's loop (about 20 s) runs once. The
phases shown are those of our fastest run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from bench_train import ROOT, before_run, course_loop, course_words, hf, make_text, ours, ours_course, run_process

# The command line as `python -m wordpiece_core` runs it, with a timer around each stage (the
# modules it imports lazily are imported first, so that they count as imports); prints the phases.
CHILD = """
import time
start = time.perf_counter()
import json, os, sys
import threading
from wordpiece_core import cli, corpus, encode_cli, engine, formats, loading, merge_cli, models, pipeline, trace_file
phases = {"imports": time.perf_counter() - start}

def timed(module, name, phase):
    inner = getattr(module, name)
    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            phases[phase] = phases.get(phase, 0.0) + time.perf_counter() - t
    setattr(module, name, wrapper)

reading = cli.load_word_counts  # patched where the command line calls it
def read(*args, **kwargs):  # what came before reading: the arguments, the output folder, the trace writer
    phases.setdefault("setting up", time.perf_counter() - start - phases["imports"])
    return reading(*args, **kwargs)
cli.load_word_counts = read
timed(cli, "load_word_counts", "reading and counting")
timed(merge_cli, "train", "training")  # the merge writer's trainer (engine.train)
code = cli.main(sys.argv[1:])
phases["in process"] = time.perf_counter() - start
print(json.dumps(phases))
sys.stdout.flush()
os._exit(code)  # as __main__.py does
"""

PHASES = ("imports", "setting up", "reading and counting", "training")


def phases_of(cmd: list[str]) -> tuple[float, dict[str, float]]:
    """Wall time and phases of one run of our command (`cmd` as bench_train builds it)."""
    args = cmd[cmd.index("wordpiece_core") + 1:]
    before_run(cmd)  # a new --out folder, the disks synced: as bench_train's runs
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, *args], env={**os.environ, "PYTHONPATH": ROOT},
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{done.stderr}")
    phases = json.loads(done.stdout.strip().splitlines()[-1])
    phases["after the training"] = phases.pop("in process") - sum(phases[p] for p in PHASES)
    phases["start and exit"] = wall - sum(phases.values())
    return wall, phases


def best_of(cmd: list[str], reference: list[str] | None, repeat: int) -> tuple[float, dict[str, float], list[float]]:
    """Our fastest run (wall, phases) and the reference's wall times, sorted, the two alternating."""
    best: tuple[float, dict[str, float]] = (float("inf"), {})
    ref = []
    for _ in range(repeat):
        best = min(best, phases_of(cmd), key=lambda run: run[0])
        if reference is not None:
            ref.append(run_process(reference, 1, memory=False)[0])
    return best[0], best[1], sorted(ref)


def verdict(allowed: float, wall: float, training: float) -> tuple[float, str]:
    """The time the target leaves for the training (the other phases as they are), and what that asks of it."""
    left = allowed - (wall - training)
    if left <= 0:
        return left, "out of reach: the other phases alone take longer"
    if left < training:
        return left, f"{training / left:.2f}× as fast ({(1 - left / training) * 100:.0f}% less time)"
    return left, "as fast as now"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="200k tokens and vocabulary 2,000; course at 300")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each contender, alternating")
    args = parser.parse_args()
    import compileall  # as bench_train does: byte-compiled, as pip installs it

    compileall.compile_dir(os.path.join(ROOT, "wordpiece_core"), quiet=1)
    n_tokens, vocab = (200_000, 2000) if args.quick else (2_000_000, 8000)
    course_vocab = 300 if args.quick else 1800
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = make_text(n_tokens)
        out = os.path.join(tmp, "out")
        for algorithm, target in (("bpe", 0.9), ("wordpiece", 1.0)):
            label = f"{'BPE (tie-break hf)' if algorithm == 'bpe' else 'WordPiece'}, {n_tokens / 1e6:g}M tokens, " \
                    f"vocab {vocab:,}, none + whitespace"
            reference = hf(algorithm, path, vocab, tmp, "none", "whitespace")
            wall, phases, refs = best_of(ours(algorithm, path, vocab, out, "none", "whitespace"), reference, args.repeat)
            rows.append((label, refs, target * refs[0], wall, phases))
            wall, phases, _ = best_of(ours(algorithm, path, vocab, out, "none", "whitespace", 0), None, args.repeat)
            rows.append((label + ", --top-k 0 (not the default)", refs, target * refs[0], wall, phases))
        tsv = course_words(5000, tmp)
        label = f"WordPiece, the course row (5,000 words, vocab {course_vocab:,})"
        # The course's loop takes about 20 s a run: one run of it.
        ref, _ = run_process(course_loop(tsv, course_vocab, os.path.join(tmp, "course-vocab.txt")), 1, memory=False)
        for top_k in (None, 0):
            wall, phases, _ = best_of(ours_course(tsv, course_vocab, out, top_k), None, args.repeat)
            rows.append((label + (", --top-k 0 (not the default)" if top_k == 0 else ""), [ref], ref / 100, wall,
                         phases))

    print(f"\nWhere our time goes (s): best of {args.repeat}, {os.cpu_count()} cores, {sys.version.split()[0]}; the "
          "reference's best (and slowest) run; `allowed` is the target ratio × the reference's best (for the course "
          "row, one run of the course's loop ÷ 100)\n")
    names = ["start and exit", *PHASES, "after the training"]
    print("| row | reference | allowed | ours | " + " | ".join(names) + " | left for training | training must be |")
    print("|---|" + "---:|" * (len(names) + 5))
    for label, ref, allowed, wall, phases in rows:
        left, need = verdict(allowed, wall, phases["training"])
        shown = f"{ref[0]:.3f}" + (f" ({ref[-1]:.3f})" if len(ref) > 1 else "")
        print(f"| {label} | {shown} | {allowed:.3f} | {wall:.3f} | "
              + " | ".join(f"{phases[n]:.3f}" for n in names) + f" | {left:.3f} | {need} |")


if __name__ == "__main__":
    main()
