"""`python -m wordpiece_core train --algorithm unigram`: count the words, train (unigram_training.py), write the files.

`--unigram-rule tokenizers` (the default) trains as tokenizers' UnigramTrainer; `--unigram-rule course` runs the
course's loop. Each rule's caps are unigram_training.check's: past them the run stops with one line.
"""

from __future__ import annotations

import argparse
import sys

from .unigram_training import UnigramConfig, no_unknown_note, train_unigram


def config_from_args(args: argparse.Namespace, specials: tuple[str, ...]) -> UnigramConfig:
    """The command line's Unigram options, each rule's defaults where not given."""
    given = {"seed_size": args.seed_size, "prune_percent": args.prune_percent,
             "shrinking_factor": args.shrinking_factor, "sub_iterations": args.sub_iterations,
             "max_piece_length": args.max_piece_length}
    return UnigramConfig(args.unigram_rule, args.vocab_size, specials, top_k=args.top_k,
                         **{k: v for k, v in given.items() if v is not None})


def run_train_unigram(args: argparse.Namespace) -> int:
    from . import unigram_files
    from .cli import specials_from_args, word_counts_from_args
    from .formats import OutputFolder

    out = args.out_folder = OutputFolder(args.out)
    out.prepare(unigram_files.OUTPUT_NAMES, args.overwrite)
    try:
        specials = specials_from_args(args)
        counts = word_counts_from_args(args)
        config = config_from_args(args, specials)
        training = train_unigram(counts, config)
        if len(training.pieces) > args.vocab_size:
            print(f"note: {training.stop_reason}", file=sys.stderr)
        note = no_unknown_note(config)
        if note:
            print(f"note: {note}", file=sys.stderr)
        files = unigram_files.training_files(training, args.normalizer, args.pre_tokenizer, args.add_prefix_space,
                                             sum(counts.values()))
        out.write(files)
    finally:
        out.close()
    if not args.quiet:
        rounds = len(training.rounds)
        print(f"trained unigram ({config.rule} rule): {len(training.pieces)} tokens after {rounds} round"
              f"{'' if rounds == 1 else 's'} from {len(counts)} distinct words; wrote {args.out}")
    return 0
