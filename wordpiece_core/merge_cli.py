"""`python -m wordpiece_core train --algorithm wordpiece|bpe`: train with the merge engine and write the files.

cli.py parses the options, builds the configuration (algorithms.build_config) and prepares the output folder;
`write` trains and writes. Most of trace.jsonl is written while the training runs, by a process forked
before the words are counted (while this process is small): trace_file.TraceFile.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from .config import TrainerConfig
from .engine import train
from .formats import OutputFolder, output_files
from .trace_file import TraceFile


class ProgressBar:
    """The merges done, drawn on a terminal's stderr at most ten times a second."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < 0.1 and done != total:
            return
        self.last = now
        width = 30
        frac = min(done / total, 1.0) if total else 1.0
        bar = "#" * int(frac * width)
        self.stream.write(f"\rtraining [{bar:<{width}}] {done}/{total} merges")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def write(args: argparse.Namespace, out: OutputFolder, config: TrainerConfig,
          count_words: Callable[[], dict[str, int]]) -> None:
    """Train `config` on the counted words and write every file into `out` (notes and the summary on the
    terminal, as `args` asks)."""
    trace = TraceFile(folder=out.staging, tie_break=config.tie_break)
    try:
        trace.start()
        counts = count_words()
        bar = ProgressBar(sys.stderr) if (sys.stderr.isatty() and not args.quiet) else None
        training = train(counts, config, bar, trace.during)
        if bar is not None:
            bar.close()
        out.write(output_files(training, args.normalizer, args.pre_tokenizer, args.add_prefix_space,
                               trace.finish(training)))
    finally:
        trace.close()
    size = len(training.vocab)
    if not args.quiet:
        print(f"trained {config.algorithm}: {size} tokens ({len(training.steps)} merge"
              f"{'' if len(training.steps) == 1 else 's'}) from {len(training.words)} distinct words; wrote {args.out}")
    if size < config.vocab_size:
        print(f"note: stopped at {size} of the {config.vocab_size} tokens asked for: {training.stop_reason}",
              file=sys.stderr)
