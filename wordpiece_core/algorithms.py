"""The algorithms the lab trains, each described once, and `train`, which trains any of them.

`ALGORITHMS` maps a name, as the command line and the app's links spell it, to its `AlgorithmInfo`: its
label, what one step of its trace is, its own settings (the command line's options, the links' parameters),
the pre-tokenizers it trains on, its default special tokens, the files it writes, how its configuration is
built from settings, its trainer, the command line's writer and its tokenizer.json. The command line (cli.py) and the app's shared
layers (the sidebar's options and the links' parameters, the training service, the Train page's choice of step
view, Compare's sections) ask this module instead of naming an algorithm; what only one algorithm shows (a
merge's notes and tables, a round's view, the playground's word traces) still names it.

- `build_config(name, vocab_size, ...)`: the configuration for a user's settings, from the command line and
  the app alike (`check_options` refuses another algorithm's settings with one line);
- `train(word_counts, config)`: trains any of them (the app's trainings go through it); the configuration says
  which algorithm (`info_of(config)`). The command line's writers (`AlgorithmInfo.write`: merge_cli.py,
  unigram/cli.py) call their algorithm's trainer themselves, the merge one with its trace file written beside
  the training. BPE and WordPiece are the merge engine's (engine/, specified by reference.py), Unigram the
  unigram package's (its engine.py and plain em.py for tokenizers' rule, reference.py for the course's).

A new algorithm is a new entry here and a package of its own, not a branch in the layers that use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Union

from . import engine, formats, merge_cli
from .config import Algorithm as MergeAlgorithm, TrainerConfig, merge_config
from .errors import WordPieceError
from .pre_tokenizers import METASPACE, PRE_TOKENIZERS
from .special_tokens import BERT_SPECIALS, END_OF_TEXT, UNK, UNK_PIECE
from .trace import Training
from .unigram import cli as unigram_cli
from .unigram import files as unigram_files
from .unigram.training import UnigramConfig, UnigramTraining, train_unigram, unigram_config

Config = Union[TrainerConfig, UnigramConfig]
AnyTraining = Union[Training, UnigramTraining]
Progress = Callable[[int, int], None]

# Settings every algorithm takes (besides the text's normalizer and pre-tokenizer): the vocabulary size, the
# special tokens and how many candidates a step records.
COMMON = ("vocab_size", "special_tokens", "top_k")
MERGE_OPTIONS = ("tie_break", "min_frequency", "min_score", "full_byte_alphabet")
UNIGRAM_OPTIONS = ("unigram_rule", "seed_size", "prune_percent", "shrinking_factor", "sub_iterations",
                   "max_piece_length", "whole_words")


@dataclass(frozen=True)
class AlgorithmInfo:
    """One algorithm, as every layer needs it."""

    name: str  # as the command line (--algorithm) and links (algorithm=) spell it
    label: str  # as the screen names it
    step: str  # what one step of its trace is ("merge", "round")
    options: tuple[str, ...]  # its own settings (command-line dests; refused for the other algorithms)
    pre_tokenizers: tuple[str, ...]  # the pre-tokenizers it trains on
    specials: Callable[[str], tuple[str, ...]]  # its default special tokens, for a pre-tokenizer
    output_names: tuple[str, ...]  # the files the command line writes
    make_config: Callable[..., Config]  # (vocab_size, pre_tokenizer=, special_tokens=, top_k=, **options)
    run: Callable[..., AnyTraining]  # (word_counts, config, progress): the trainer
    write: Callable[..., None]  # the command line's training and files (merge_cli.py, unigram/cli.py)
    tokenizer_json: Callable[..., dict[str, Any]]  # (training, normalizer, pre_tokenizer, add_prefix_space)
    steps_estimated: bool = False  # the trainer's progress(done, total) gives an estimate of the total (Unigram's rounds)

    @property
    def steps(self) -> str:
        return self.step + "s"


def _merge_specials(name: str) -> Callable[[str], tuple[str, ...]]:
    if name == "wordpiece":
        return lambda pre_tokenizer: BERT_SPECIALS
    return lambda pre_tokenizer: (END_OF_TEXT,) if pre_tokenizer == "byte-level" else (UNK,)


def _merges(name: MergeAlgorithm, label: str, extra: tuple[str, ...]) -> AlgorithmInfo:
    return AlgorithmInfo(
        name=name, label=label, step="merge", options=MERGE_OPTIONS + extra, pre_tokenizers=PRE_TOKENIZERS,
        specials=_merge_specials(name), output_names=formats.output_names(name),
        make_config=lambda vocab_size, **settings: merge_config(name, vocab_size, **settings),
        run=engine.train, write=merge_cli.write, tokenizer_json=formats.tokenizer_json)


ALGORITHMS: dict[str, AlgorithmInfo] = {
    "wordpiece": _merges("wordpiece", "WordPiece", ()),
    "bpe": _merges("bpe", "BPE", ("continuing_prefix",)),
    "unigram": AlgorithmInfo(
        name="unigram", label="Unigram", step="round", options=UNIGRAM_OPTIONS,
        pre_tokenizers=tuple(p for p in PRE_TOKENIZERS if p != "byte-level") + METASPACE[:1],
        specials=lambda pre_tokenizer: (UNK_PIECE,), output_names=unigram_files.OUTPUT_NAMES,
        make_config=unigram_config, run=train_unigram, write=unigram_cli.write,
        tokenizer_json=lambda training, normalizer, pre_tokenizer, add_prefix_space=False: unigram_files.tokenizer_json(
            training.pieces, training.config.special_tokens, normalizer, pre_tokenizer),
        steps_estimated=True),
}
NAMES: tuple[str, ...] = tuple(ALGORITHMS)
LABELS: dict[str, str] = {name: info.label for name, info in ALGORITHMS.items()}


def info(name: str) -> AlgorithmInfo:
    """The algorithm called `name`; an unknown name is refused with one line naming the choices."""
    found = ALGORITHMS.get(name)
    if found is None:
        raise WordPieceError(f"unknown algorithm {name!r}: choose {', '.join(NAMES)}")
    return found


def info_of(config: Config) -> AlgorithmInfo:
    """The algorithm a configuration trains."""
    return info(config.algorithm)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def check_options(name: str, given: Mapping[str, Any], pre_tokenizer: str, add_prefix_space: bool = False) -> None:
    """Refuse, in one line, settings of another algorithm and a pre-tokenizer it does not train on (`given`:
    the settings the user set, by command-line dest)."""
    algorithm = info(name)
    byte_level = {"--pre-tokenizer byte-level": pre_tokenizer == "byte-level", "--add-prefix-space": add_prefix_space,
                  "--full-byte-alphabet": bool(given.get("full_byte_alphabet"))}
    if "byte-level" not in algorithm.pre_tokenizers and any(byte_level.values()):
        own = [p for p in algorithm.pre_tokenizers if p not in PRE_TOKENIZERS] or list(algorithm.pre_tokenizers)
        raise WordPieceError(f"{name} does not train on byte-level words here ({', '.join(byte_level)}): use "
                             f"--pre-tokenizer {own[0]}")
    foreign = [n for n, v in given.items() if v is not None and n not in algorithm.options and n not in COMMON]
    if foreign:
        owners = ", ".join(a.name for a in ALGORITHMS.values() if foreign[0] in a.options)
        flags = ", ".join(_flag(n) for n in foreign)
        one = len(foreign) == 1
        raise WordPieceError(f"{flags} {'does' if one else 'do'} not apply to {name} ({flags} "
                             f"{'is' if one else 'are'} for --algorithm {owners})")
    if pre_tokenizer not in algorithm.pre_tokenizers:
        owners = ", ".join(a.name for a in ALGORITHMS.values() if pre_tokenizer in a.pre_tokenizers)
        raise WordPieceError(f"--pre-tokenizer {pre_tokenizer} is for --algorithm {owners} here; {name} trains on "
                             f"{', '.join(algorithm.pre_tokenizers)}")


def build_config(name: str, vocab_size: int, *, pre_tokenizer: str, special_tokens: tuple[str, ...] | None = None,
                 top_k: int = 10, **options: Any) -> Config:
    """The configuration that trains `name` with these settings, the same from the command line and the app.

    `options` are the algorithm's own settings by their command-line names (`AlgorithmInfo.options`); one left
    out or None takes its default. `special_tokens` None: the algorithm's defaults for the pre-tokenizer. The
    command line also refuses a pre-tokenizer the algorithm does not train on (`check_options`)."""
    algorithm = info(name)
    foreign = [n for n, v in options.items() if v is not None and n not in algorithm.options]
    if foreign:
        check_options(name, options, pre_tokenizer)
    specials = algorithm.specials(pre_tokenizer) if special_tokens is None else special_tokens
    given = {k: v for k, v in options.items() if v is not None}
    return algorithm.make_config(vocab_size, pre_tokenizer=pre_tokenizer, special_tokens=specials, top_k=top_k,
                                 **given)


def train(word_counts: Mapping[str, int], config: Config, progress: Progress | None = None) -> AnyTraining:
    """Train `config`'s algorithm on word counts; `progress(done, total)` after each step."""
    return info_of(config).run(word_counts, config, progress)


__all__ = ["ALGORITHMS", "AlgorithmInfo", "AnyTraining", "Config", "LABELS", "NAMES", "build_config",
           "check_options", "info", "info_of", "train"]
