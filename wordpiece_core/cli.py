"""The command line: ``python -m wordpiece_core train|encode``.

Every problem with the input ends as one line on stderr and a non-zero exit,
never a traceback, and nothing half-written in the output folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, NoReturn

from .errors import WordPieceError
from .normalizers import NORMALIZERS
from .pre_tokenizers import PRE_TOKENIZERS
from .special_tokens import BERT_SPECIALS, END_OF_TEXT, UNK, UNK_PIECE
from .config import ALGORITHMS, TIE_BREAKS
from .unigram_training import (COURSE_PRUNE, COURSE_SEED, MAX_PIECE_LENGTH, SHRINKING, SUB_ITERATIONS,
                               TOKENIZERS_SEED, UNIGRAM_RULES)

if TYPE_CHECKING:
    from .config import TrainerConfig
    from .trace_file import TraceFile

EXIT_INPUT = 2

DEFAULT_SPECIALS = {
    "wordpiece": ",".join(BERT_SPECIALS),
    "bpe": UNK,
    "bpe-byte-level": END_OF_TEXT,
    "unigram": UNK_PIECE,
}
UNIGRAM_ONLY = ("unigram_rule", "seed_size", "prune_percent", "shrinking_factor", "sub_iterations", "max_piece_length")


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
    t.add_argument("--algorithm", required=True, choices=ALGORITHMS + ("unigram",))
    t.add_argument("--vocab-size", required=True, type=_positive_int, metavar="N",
                   help="target vocabulary size, special tokens and alphabet included")
    t.add_argument("--min-frequency", type=_count, default=None, metavar="N",
                   help="ignore pairs seen fewer than N times (default 0: every pair counts; not for unigram)")
    t.add_argument("--special-tokens", default=None, metavar="A,B,...",
                   help=("comma-separated special tokens, placed first in the vocabulary; '' for none. Default: "
                         f"{DEFAULT_SPECIALS['wordpiece']} for wordpiece, {DEFAULT_SPECIALS['bpe-byte-level']} for "
                         f"byte-level bpe, {DEFAULT_SPECIALS['bpe']} for other bpe, {DEFAULT_SPECIALS['unigram']} "
                         "for unigram"))
    t.add_argument("--normalizer", default="none", choices=NORMALIZERS,
                   help="default none")
    t.add_argument("--pre-tokenizer", default="whitespace",
                   choices=PRE_TOKENIZERS + ("metaspace",),
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
    u.add_argument("--max-piece-length", type=_positive_int, default=None, metavar="N",
                   help=f"tokenizers: the longest piece, in characters (default {MAX_PIECE_LENGTH})")
    t.add_argument("--min-score", type=_fraction, default=None, metavar="X",
                   help="stop when the best score falls below X (the threshold of the tutorial “WordPiece Tokenization: A BPE Variant”)")
    t.add_argument("--continuing-prefix", default=None, metavar="P",
                   help="bpe only: write word-inner characters with this prefix (## reproduces Hugging Face's WordPieceTrainer)")
    t.add_argument("--add-prefix-space", action="store_true", help="byte-level: add a space before each line")
    t.add_argument("--full-byte-alphabet", action="store_true",
                   help="byte-level: start from all 256 byte characters (GPT-2), not only those in the corpus")
    t.add_argument("--top-k", type=_count, default=10, metavar="K",
                   help="candidates recorded per step (default 10); unigram: the cheapest kept pieces recorded a round")
    t.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    t.add_argument("--overwrite", action="store_true",
                   help="replace files of the output names in --out that no earlier training of this tool wrote "
                        "(without it such a file stops the run)")
    t.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    t.set_defaults(func=run_train)

    from .encode_cli import add_encode_parser

    add_encode_parser(sub)
    return parser


class _ProgressBar:
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


def run_train(args: argparse.Namespace) -> int:
    from .formats import OutputFolder

    if not args.corpus and not args.word_counts:
        raise WordPieceError("give at least one corpus file or --word-counts FILE")
    _options_for_the_algorithm(args)
    if args.algorithm == "unigram":
        from .unigram_cli import run_train_unigram

        return run_train_unigram(args)
    if args.continuing_prefix is not None and args.algorithm != "bpe":
        raise WordPieceError("--continuing-prefix is for bpe; WordPiece always uses ##")
    out = args.out_folder = OutputFolder(args.out)
    from .formats import output_names

    out.prepare(output_names(args.algorithm), args.overwrite)  # before any work: a folder that cannot be written is said now
    try:
        return _train_into(args, out)
    finally:
        out.close()


def _train_into(args: argparse.Namespace, out) -> int:
    from .trace_file import TraceFile

    specials = specials_from_args(args)

    # Most of trace.jsonl is written while the training runs, by a process forked now (while small).
    trace = TraceFile(folder=out.staging, tie_break=args.tie_break)
    try:
        trace.start()
        return _train_with(args, out, trace, specials)
    finally:
        trace.close()


def _train_with(args: argparse.Namespace, out, trace: TraceFile, specials: tuple[str, ...]) -> int:
    from .formats import output_files
    from .engine import train

    counts = word_counts_from_args(args)
    config = config_from_args(args, specials)
    bar = _ProgressBar(sys.stderr) if (sys.stderr.isatty() and not args.quiet) else None
    training = train(counts, config, bar, trace.during)
    if bar is not None:
        bar.close()
    out.write(output_files(training, args.normalizer, args.pre_tokenizer, args.add_prefix_space,
                           trace.finish(training)))
    size = len(training.vocab)
    if not args.quiet:
        print(
            f"trained {args.algorithm}: {size} tokens ({len(training.steps)} merge{'' if len(training.steps) == 1 else 's'}) from "
            f"{len(training.words)} distinct words; wrote {args.out}"
        )
    if size < args.vocab_size:
        print(
            f"note: stopped at {size} of the {args.vocab_size} tokens asked for: {training.stop_reason}",
            file=sys.stderr,
        )
    return 0


def _options_for_the_algorithm(args: argparse.Namespace) -> None:
    """Options of another algorithm stop the run with one line; the rest get their defaults."""
    def flag(name: str) -> str:
        return "--" + name.replace("_", "-")

    if args.algorithm == "unigram":
        given = [flag(n) for n in ("tie_break", "min_frequency", "min_score", "continuing_prefix")
                 if getattr(args, n) is not None]
        if given:
            raise WordPieceError(f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to unigram "
                                 "(its ties follow --unigram-rule; it removes pieces instead of merging pairs)")
        if args.pre_tokenizer == "byte-level" or args.add_prefix_space or args.full_byte_alphabet:
            raise WordPieceError("unigram does not train on byte-level words here (--pre-tokenizer byte-level, "
                                 "--add-prefix-space, --full-byte-alphabet): use --pre-tokenizer metaspace")
        args.unigram_rule = args.unigram_rule or "tokenizers"
        course = args.unigram_rule == "course"
        wrong = [flag(n) for n in (("shrinking_factor", "sub_iterations", "max_piece_length") if course
                                   else ("prune_percent",)) if getattr(args, n) is not None]
        if wrong:
            raise WordPieceError(f"{', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not an option of "
                                 f"--unigram-rule {args.unigram_rule}")
        return
    given = [flag(n) for n in UNIGRAM_ONLY if getattr(args, n) is not None]
    if given:
        raise WordPieceError(f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} for --algorithm unigram")
    if args.pre_tokenizer == "metaspace":
        raise WordPieceError("--pre-tokenizer metaspace is for --algorithm unigram here")
    args.tie_break = args.tie_break or "first"
    args.min_frequency = args.min_frequency or 0


def word_counts_from_args(args: argparse.Namespace) -> dict[str, int]:
    """The corpus files' and --word-counts files' words, counted as the settings say (notes on stderr); no words
    at all stop the run with one line."""
    from .corpus import TextSettings, load_word_counts

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


def specials_from_args(args: argparse.Namespace) -> tuple[str, ...]:
    """The special tokens --special-tokens names, or the algorithm's default ('' for none)."""
    text = args.special_tokens
    if text is None:
        key = args.algorithm
        if key == "bpe" and args.pre_tokenizer == "byte-level":
            key = "bpe-byte-level"
        text = DEFAULT_SPECIALS[key]
    return tuple(dict.fromkeys(s.strip() for s in text.split(",") if s.strip()))


def config_from_args(args: argparse.Namespace, specials: tuple[str, ...]) -> TrainerConfig:
    """The trainer's configuration for the command line's arguments."""
    from .config import config_from_settings

    return config_from_settings(
        args.algorithm, args.vocab_size, pre_tokenizer=args.pre_tokenizer, min_frequency=args.min_frequency,
        special_tokens=specials, tie_break=args.tie_break, bpe_prefix=args.continuing_prefix,
        min_score=args.min_score, top_k=args.top_k, byte_alphabet=args.full_byte_alphabet)


class Terminated(BaseException):
    """SIGTERM arrived: unwind (removing staging folders) and exit."""


def _on_sigterm(signum, frame) -> None:
    raise Terminated()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    import signal
    import threading

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
