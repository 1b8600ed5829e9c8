"""`python -m wordpiece_core train --algorithm unigram`: train (training.py) and write the files (files.py).

The package's command line (wordpiece_core/cli.py) parses the options, builds the configuration
(algorithms.build_config: `--unigram-rule tokenizers`, the default, trains as tokenizers' UnigramTrainer;
`--unigram-rule course` runs the course's loop, with `--whole-words`, the default, or `--no-whole-words`) and
prepares the output folder; algorithms.ALGORITHMS names `write` as Unigram's writer. Each rule's caps are
training.check's: past them the run stops with one line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ..formats import OutputFolder
from . import files
from .training import UnigramConfig, no_unknown_note, train_unigram


def write(args: argparse.Namespace, out: OutputFolder, config: UnigramConfig,
          count_words: Callable[[], dict[str, int]]) -> None:
    """Train `config` on the counted words and write every file into `out` (notes and the summary on the
    terminal, as `args` asks)."""
    counts = count_words()
    training = train_unigram(counts, config)
    if len(training.pieces) > config.vocab_size:
        print(f"note: {training.stop_reason}", file=sys.stderr)
    note = no_unknown_note(config)
    if note:
        print(f"note: {note}", file=sys.stderr)
    out.write(files.training_files(training, args.normalizer, args.pre_tokenizer, args.add_prefix_space,
                                   sum(counts.values())))
    if not args.quiet:
        rounds = len(training.rounds)
        print(f"trained unigram ({config.rule} rule): {len(training.pieces)} tokens after {rounds} round"
              f"{'' if rounds == 1 else 's'} from {len(counts)} distinct words; wrote {args.out}")
