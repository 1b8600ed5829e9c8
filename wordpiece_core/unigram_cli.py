"""`python -m wordpiece_core train --algorithm unigram`: count the words, train, write the files.

`--unigram-rule course` runs the course's loop (unigram_reference.train): every candidate's removal score is
exact, the loss computed again without it, so a round costs (candidates × distinct words) splits.
COURSE_WORK_LIMIT caps that product; a larger corpus or seed stops the run with one line that says what to
change. `--unigram-rule tokenizers` (the default) runs UnigramTrainer's EM and approximate pruning with the fast
engine (engine/unigram.py; unigram_em.py is its plain form); its lattices hold one edge per seed piece
occurrence in a distinct word, so TOKENIZERS_EDGE_LIMIT caps the corpus's distinct words × their pieces.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .errors import WordPieceError
from .special_tokens import UNK_PIECE

COURSE_SEED, COURSE_PRUNE = 300, 10.0
COURSE_WORK_LIMIT = 2_000_000  # candidates × distinct words in the course rule's first round
TOKENIZERS_SEED, SHRINKING, SUB_ITERATIONS, MAX_PIECE_LENGTH = 1_000_000, 0.75, 2, 16
TOKENIZERS_CHAR_LIMIT = 20_000_000  # characters of the distinct words (their lattices: ~40 bytes an edge)


def run_train_unigram(args: argparse.Namespace) -> int:
    from . import unigram_files, unigram_reference
    from .cli import specials_from_args, word_counts_from_args
    from .formats import OutputFolder

    out = args.out_folder = OutputFolder(args.out)
    out.prepare(unigram_files.OUTPUT_NAMES, args.overwrite)
    try:
        specials = specials_from_args(args)
        counts = word_counts_from_args(args)
        if args.unigram_rule == "tokenizers":
            return _train_tokenizers_rule(args, specials, counts)
        seed_size = args.seed_size or COURSE_SEED
        prune = args.prune_percent or COURSE_PRUNE
        if seed_size * len(counts) > COURSE_WORK_LIMIT:
            raise WordPieceError(
                f"the course rule computes every candidate's exact loss: {seed_size:,} seed tokens × "
                f"{len(counts):,} distinct words is more than {COURSE_WORK_LIMIT:,} splits a round; "
                "use a smaller --seed-size or corpus, or --unigram-rule tokenizers")
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


def _train_tokenizers_rule(args: argparse.Namespace, specials: tuple[str, ...], counts: dict[str, int]) -> int:
    from . import unigram_em, unigram_files
    from .engine import unigram as engine

    chars = sum(len(w) for w in counts)
    if chars > TOKENIZERS_CHAR_LIMIT:
        raise WordPieceError(f"the distinct words hold {chars:,} characters, more than the {TOKENIZERS_CHAR_LIMIT:,} "
                             "the Unigram trainer's lattices are sized for; use a smaller corpus")
    needed = len(unigram_em.required_chars(counts))
    if needed + len(specials) > args.vocab_size:
        raise WordPieceError(f"--vocab-size {args.vocab_size:,} cannot hold the corpus's {needed:,} characters and "
                             f"{len(specials)} special token{'' if len(specials) == 1 else 's'}: Unigram keeps every "
                             "character")
    unk = UNK_PIECE if UNK_PIECE in specials else None
    settings: dict[str, Any] = {"seed_size": args.seed_size or TOKENIZERS_SEED, "shrinking_factor": args.shrinking_factor or SHRINKING,
                "sub_iterations": args.sub_iterations or SUB_ITERATIONS,
                "max_piece_length": args.max_piece_length or MAX_PIECE_LENGTH}
    pieces, _, rounds = engine.train(counts, args.vocab_size, specials, unk, top_k=args.top_k, **settings)
    last = rounds[-1].em[-1].size_after if rounds and rounds[-1].em else 0
    stop = (f"EM left {last:,} pieces (with the trainer's own <UNK>), at most 1.1 × {args.vocab_size:,}; the "
            f"{len(pieces):,} kept: every character, then the model's pieces in its order, up to the size")
    if unk is None:
        print(f"note: no {UNK_PIECE} among the special tokens: the tokenizer cannot encode a character the "
              "training never saw", file=sys.stderr)
    files = unigram_files.output_files(
        pieces, rounds,
        {"unigram_rule": "tokenizers", "vocab_size": args.vocab_size, **settings, "normalizer": args.normalizer,
         "pre_tokenizer": args.pre_tokenizer, "add_prefix_space": args.add_prefix_space},
        specials, args.top_k, stop, len(counts), sum(counts.values()))
    args.out_folder.write(files)
    if not args.quiet:
        print(f"trained unigram (tokenizers rule): {len(pieces)} tokens after {len(rounds)} round"
              f"{'' if len(rounds) == 1 else 's'} from {len(counts)} distinct words; wrote {args.out}")
    return 0
