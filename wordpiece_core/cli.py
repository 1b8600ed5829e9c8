"""The command line: ``python -m wordpiece_core train|encode``.

Every problem with the input ends as one line on stderr and a non-zero exit,
never a traceback, and nothing half-written in the output folder.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Sequence
from fractions import Fraction
from typing import NoReturn

from .algorithms import ALGORITHMS, NAMES, Config, build_config, check_options, info
from .config import TIE_BREAKS
from .corpus import TextSettings, load_word_counts
from .encode_cli import add_encode_parser
from .errors import WordPieceError
from .formats import OutputFolder
from .normalizers import NORMALIZERS
from .pre_tokenizers import METASPACE, PRE_TOKENIZERS
from .unigram.defaults import COURSE_PRUNE, COURSE_SEED, MAX_PIECE_LENGTH, SHRINKING, SUB_ITERATIONS, TOKENIZERS_SEED
from .unigram.training import UNIGRAM_RULES

EXIT_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage dump
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message} (see --help)\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{value} must be above 0")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} cannot be negative")
    return value


def _between(low: float, high: float):
    """A parser of a number strictly between `low` and `high`."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not low < value < high:
            raise argparse.ArgumentTypeError(f"{text} must be above {low:g} and below {high:g}")
        return value
    return parse


_percent, _fraction_open = _between(0, 100), _between(0, 1)


def _fraction(text: str) -> Fraction:
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (write 0.01 or 1/100)") from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="wordpiece-lab" if os.path.basename(sys.argv[0]) == "wordpiece-lab" else "python -m wordpiece_core",
        description="Train BPE, WordPiece and Unigram tokenizers step by step, and encode text with them.",
    )
    sub = parser.add_subparsers(dest="command", metavar="{train,encode}", parser_class=_Parser)
    sub.required = True

    t = sub.add_parser(
        "train",
        help="train a tokenizer and write its files and trace",
        description=(
            "Train WordPiece (the course's score count(ab)/(count(a)*count(b))), BPE (the most "
            "frequent pair) or Unigram (start big, remove the pieces the corpus's likelihood misses least) "
            "and write tokenizer.json, vocab.txt, merges.txt + vocab.json (BPE), "
            "trace.jsonl (one JSON object per merge, or per Unigram round) and training.json into --out."
        ),
    )
    t.add_argument("corpus", nargs="*", metavar="CORPUS", help="UTF-8 text files, one document per line")
    t.add_argument("--word-counts", action="append", default=[], metavar="FILE",
                   help="a TSV of 'word<TAB>count' lines; words are used as they are (not normalized or pre-tokenized); "
                        "a first line whose count is not a number is a header, skipped with a note")
    t.add_argument("--algorithm", required=True, choices=NAMES)
    t.add_argument("--vocab-size", required=True, type=_positive_int, metavar="N",
                   help="target vocabulary size, special tokens and alphabet included")
    t.add_argument("--min-frequency", type=_count, default=None, metavar="N",
                   help="ignore pairs seen fewer than N times (default 0: every pair counts; not for unigram)")
    t.add_argument("--special-tokens", default=None, metavar="A,B,...",
                   help=("comma-separated special tokens, placed first in the vocabulary; '' for none. Default: "
                         + _default_specials_help()))
    t.add_argument("--normalizer", default="none", choices=NORMALIZERS,
                   help="default none")
    t.add_argument("--pre-tokenizer", default="whitespace",
                   choices=PRE_TOKENIZERS + METASPACE[:1],
                   help="default whitespace; metaspace (SentencePiece: split on spaces, ▁ before each word) for unigram")
    t.add_argument("--tie-break", default=None, choices=TIE_BREAKS,
                   help=("first (default): the first best pair met scanning words in order of first appearance, "
                         "as the course does; hf: the smallest (left id, right id), as Hugging Face's BpeTrainer "
                         "does (not for unigram: its tie rule is its --unigram-rule's)"))
    u = t.add_argument_group("unigram")
    u.add_argument("--unigram-rule", default=None, choices=UNIGRAM_RULES,
                   help="tokenizers (default): as UnigramTrainer trains; course: as the Hugging Face course teaches "
                        "(exact removal scores, the cheapest P %% removed a round)")
    u.add_argument("--seed-size", type=_positive_int, default=None, metavar="N",
                   help=f"the initial vocabulary (course, default {COURSE_SEED}) or the seed pieces (tokenizers, "
                        f"default {TOKENIZERS_SEED})")
    u.add_argument("--prune-percent", type=_percent, default=None, metavar="P",
                   help=f"course: the share of the vocabulary removed a round (default {COURSE_PRUNE:g})")
    u.add_argument("--shrinking-factor", type=_fraction_open, default=None, metavar="F",
                   help=f"tokenizers: the share of the vocabulary a round keeps (default {SHRINKING:g})")
    u.add_argument("--sub-iterations", type=_positive_int, default=None, metavar="N",
                   help=f"tokenizers: EM iterations a round (default {SUB_ITERATIONS})")
    u.add_argument("--whole-words", action=argparse.BooleanOptionalAction, default=None,
                   help="course: whether the seed holds whole words, as the course's code does (default), or only "
                        "strict substrings, as its worked example does (--no-whole-words; the app's whole_words=0)")
    u.add_argument("--max-piece-length", type=_positive_int, default=None, metavar="N",
                   help=f"tokenizers: the longest piece, in characters (default {MAX_PIECE_LENGTH})")
    t.add_argument("--min-score", type=_fraction, default=None, metavar="X",
                   help="stop when the best score falls below X (the threshold of the tutorial “WordPiece Tokenization: A BPE Variant”)")
    t.add_argument("--continuing-prefix", default=None, metavar="P",
                   help="bpe only: write word-inner characters with this prefix (## reproduces Hugging Face's WordPieceTrainer)")
    t.add_argument("--add-prefix-space", action="store_true", help="byte-level: add a space before each line")
    t.add_argument("--full-byte-alphabet", action="store_true", default=None,
                   help="byte-level: start from all 256 byte characters (GPT-2), not only those in the corpus")
    t.add_argument("--top-k", type=_count, default=10, metavar="K",
                   help="candidates recorded per step (default 10); unigram: the cheapest kept pieces recorded a round")
    t.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    t.add_argument("--overwrite", action="store_true",
                   help="replace files of the output names in --out that no earlier training of this tool wrote "
                        "(without it such a file stops the run)")
    t.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    t.set_defaults(func=run_train)
    add_encode_parser(sub)
    return parser


def _default_specials_help() -> str:
    """Each algorithm's default special tokens, for --help (from algorithms.ALGORITHMS)."""
    parts = []
    for name, algorithm in ALGORITHMS.items():
        byte_level = algorithm.specials("byte-level") if "byte-level" in algorithm.pre_tokenizers else None
        other = algorithm.specials("whitespace")
        if byte_level is not None and byte_level != other:
            parts.append(f"{','.join(byte_level)} for byte-level {name}, {','.join(other)} for other {name}")
        else:
            parts.append(f"{','.join(other)} for {name}")
    return ", ".join(parts)


def run_train(args: argparse.Namespace) -> int:
    if not args.corpus and not args.word_counts:
        raise WordPieceError("give at least one corpus file or --word-counts FILE")
    config = config_from_args(args)  # before any work: a setting that cannot train is said now
    out = args.out_folder = OutputFolder(args.out)
    out.prepare(info(args.algorithm).output_names, args.overwrite)  # likewise a folder that cannot be written
    try:
        info(args.algorithm).write(args, out, config, lambda: word_counts_from_args(args))
    finally:
        out.close()
    return 0


def word_counts_from_args(args: argparse.Namespace) -> dict[str, int]:
    """The corpus files' and --word-counts files' words, counted as the settings say (notes on stderr); no words
    at all stop the run with one line."""
    settings = TextSettings(args.normalizer, args.pre_tokenizer, args.add_prefix_space)
    workers = 2 if (os.cpu_count() or 1) > 1 else 1  # a large text is counted in two processes
    notes: list[str] = []
    counts = load_word_counts(args.corpus, args.word_counts, settings, workers, notes)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if not counts:
        names = ", ".join(args.corpus + args.word_counts)
        raise WordPieceError(f"no words to train on: {names} is empty or only whitespace")
    return counts


def specials_from_args(args: argparse.Namespace) -> tuple[str, ...] | None:
    """The special tokens --special-tokens names ('' for none), or None: the algorithm's defaults."""
    if args.special_tokens is None:
        return None
    return tuple(dict.fromkeys(s.strip() for s in args.special_tokens.split(",") if s.strip()))


def config_from_args(args: argparse.Namespace) -> Config:
    """The trainer's configuration for the command line's arguments (algorithms.build_config, as the app's);
    another algorithm's options, or another rule's, stop the run with one line."""
    options = {name: getattr(args, name) for algorithm in ALGORITHMS.values() for name in algorithm.options}
    check_options(args.algorithm, options, args.pre_tokenizer, args.add_prefix_space)
    return build_config(args.algorithm, args.vocab_size, pre_tokenizer=args.pre_tokenizer,
                        special_tokens=specials_from_args(args), top_k=args.top_k, **options)


class Terminated(BaseException):
    """SIGTERM arrived: unwind (removing staging folders) and exit."""


def _on_sigterm(signum, frame) -> None:
    raise Terminated()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return args.func(args)
    except Terminated:
        folder = getattr(args, "out_folder", None)
        print("terminated while the files were moved into place; some may be there" if folder and folder.moving
              else "terminated; nothing was written", file=sys.stderr)
        return 128 + signal.SIGTERM
    except WordPieceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except MemoryError:
        print("error: not enough memory for this corpus and vocabulary size", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; nothing was written", file=sys.stderr)
        return 130
