"""`python -m wordpiece_core train --algorithm unigram`: count the words, train, write the files.

`--unigram-rule course` runs the course's loop (unigram_reference.train): every candidate's removal score is
exact, the loss computed again without it, so a round costs (candidates × distinct words) splits.
COURSE_WORK_LIMIT caps that product; a larger corpus or seed stops the run with one line that says what to
change. `--unigram-rule tokenizers` (UnigramTrainer's EM and approximate pruning) is not built yet: it stops
the run with one line (issue 37 keeps it open).
"""

from __future__ import annotations

import argparse
import sys

from .errors import WordPieceError
from .special_tokens import UNK_PIECE

COURSE_SEED, COURSE_PRUNE = 300, 10.0
COURSE_WORK_LIMIT = 2_000_000  # candidates × distinct words in the course rule's first round


def run_train_unigram(args: argparse.Namespace) -> int:
    from . import unigram_files, unigram_reference
    from .cli import specials_from_args, word_counts_from_args
    from .formats import OutputFolder

    if args.unigram_rule != "course":
        raise WordPieceError("--unigram-rule tokenizers (UnigramTrainer's EM) is not built yet; "
                             "use --unigram-rule course")
    out = args.out_folder = OutputFolder(args.out)
    out.prepare(unigram_files.OUTPUT_NAMES, args.overwrite)
    try:
        specials = specials_from_args(args)
        counts = word_counts_from_args(args)
        seed_size = args.seed_size or COURSE_SEED
        prune = args.prune_percent or COURSE_PRUNE
        if seed_size * len(counts) > COURSE_WORK_LIMIT:
            raise WordPieceError(
                f"the course rule computes every candidate's exact loss: {seed_size:,} seed tokens × "
                f"{len(counts):,} distinct words is more than {COURSE_WORK_LIMIT:,} splits a round; "
                "use a smaller --seed-size or corpus")
        target = args.vocab_size - len(specials)
        final, rounds = unigram_reference.train(counts, target, seed_size, prune)
        pieces = unigram_files.final_pieces(final, specials)
        if len(pieces) <= args.vocab_size:
            stop = (f"{len(pieces):,} tokens for the {args.vocab_size:,} asked for: a round removes {prune:g} % of "
                    "the vocabulary, so the last one can go below")
        else:
            stop = (f"{len(pieces):,} tokens, more than the {args.vocab_size:,} asked for: only single characters "
                    "(and the special tokens) were left, and they always stay")
            print(f"note: {stop}", file=sys.stderr)
        if UNK_PIECE not in specials:
            print(f"note: no {UNK_PIECE} among the special tokens: the tokenizer cannot encode a character the "
                  "training never saw", file=sys.stderr)
        files = unigram_files.output_files(
            pieces, rounds,
            {"unigram_rule": "course", "vocab_size": args.vocab_size, "seed_size": seed_size, "prune_percent": prune,
             "normalizer": args.normalizer, "pre_tokenizer": args.pre_tokenizer,
             "add_prefix_space": args.add_prefix_space},
            specials, args.top_k, stop, len(counts), sum(counts.values()))
        out.write(files)
    finally:
        out.close()
    if not args.quiet:
        print(f"trained unigram (course rule): {len(pieces)} tokens after {len(rounds)} round"
              f"{'' if len(rounds) == 1 else 's'} from {len(counts)} distinct words; wrote {args.out}")
    return 0
