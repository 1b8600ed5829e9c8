"""A Unigram training, for the command line and the app alike: `train_unigram(word_counts, UnigramConfig(...))`.

Two rules (`UnigramConfig.rule`):
- `tokenizers` (the default): tokenizers' UnigramTrainer (em.py, run fast by engine.py); a round
  is EM's iterations, then one pruning;
- `course`: the Hugging Face course's loop (reference.py); a round computes every piece's exact
  removal score and removes the cheapest `prune_percent` %.

Both refuse, with one line, what would not fit their caps: the course rule's exact scores cost
(seed × distinct words) splits a round (COURSE_WORK_LIMIT); the tokenizers rule's lattices hold about 25
bytes an edge (TOKENIZERS_CHAR_LIMIT characters of distinct words); and a word longer than LONGEST_WORD.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, get_args

from ..config import PEAK_BASE_BYTES
from ..errors import WordPieceError
from ..pre_tokenizers import METASPACE_MARK
from ..special_tokens import UNK_PIECE
from . import files, reference
from .defaults import (COURSE_PRUNE, COURSE_SEED, MAX_PIECE_LENGTH, SHRINKING, SUB_ITERATIONS, TOKENIZERS_SEED,
                       TOP_K, VOCAB_SIZE)
from .em import required_chars
from .records import AnyRound, EMRound, Round

UNIGRAM_PEAK_BYTES_PER_CHAR = 300  # a character's share of the substring counts, the seed and the words
LATTICE_EDGE_BYTES = 12  # a lattice edge in the engine's arrays, with their masks and the passes' temporaries

UnigramRule = Literal["tokenizers", "course"]
UNIGRAM_RULES: tuple[UnigramRule, ...] = get_args(UnigramRule)
RULE_LABELS: dict[str, str] = {"tokenizers": "tokenizers (UnigramTrainer)", "course": "the course's loop"}
COURSE_WORK_LIMIT = 2_000_000  # candidates × distinct words in the course rule's first round
TOKENIZERS_CHAR_LIMIT = 20_000_000  # characters of the distinct words (their lattices: ~25 bytes an edge)
# The longest word each rule splits: a pass over the lattices is a loop over the longest word's positions (the
# tokenizers rule), and the course rule's Viterbi tries every substring of a word for every candidate.
LONGEST_WORD = {"tokenizers": 1_000, "course": 100}

@dataclass(frozen=True)
class UnigramConfig:
    """Everything that decides a Unigram training (the rounds are a function of this and the words)."""

    rule: UnigramRule = "tokenizers"
    vocab_size: int = VOCAB_SIZE
    special_tokens: tuple[str, ...] = (UNK_PIECE,)
    seed_size: int | None = None  # None: the rule's default (course 300, tokenizers 1,000,000)
    prune_percent: float = COURSE_PRUNE  # course
    shrinking_factor: float = SHRINKING  # tokenizers
    sub_iterations: int = SUB_ITERATIONS  # tokenizers
    max_piece_length: int = MAX_PIECE_LENGTH  # tokenizers
    top_k: int = TOP_K  # the most expected pieces an EM iteration records
    whole_words: bool = True  # course: the seed holds whole words (the course's code; its worked example does not)

    algorithm: ClassVar[str] = "unigram"  # its entry in algorithms.ALGORITHMS

    @property
    def seed(self) -> int:
        return self.seed_size or (COURSE_SEED if self.rule == "course" else TOKENIZERS_SEED)

    @property
    def unk_token(self) -> str | None:
        return UNK_PIECE if UNK_PIECE in self.special_tokens else None

    def estimated_bytes(self, word_types: int, avg_word_bytes: int) -> int:
        """About what this training will weigh once stored, before it runs (the app refuses one that cannot fit):
        the words, and the rounds' pieces (a seed piece per 10 characters of words, about)."""
        return word_types * (avg_word_bytes + 60) + word_types * avg_word_bytes * 60 + self.vocab_size * 400

    def estimated_peak_bytes(self, word_types: int, chars: int) -> int:
        """At most what this training's process weighs while it trains (`chars`: of its distinct words, in all): the
        interpreter, and per character its share of the substring counts and the seed, plus its lattice's edges
        (at most one per piece length a position can start, max_piece_length; the course rule's loop holds less).
        Measured: benchmarks/bench_estimates.py."""
        return PEAK_BASE_BYTES + chars * (UNIGRAM_PEAK_BYTES_PER_CHAR + LATTICE_EDGE_BYTES * self.max_piece_length)

    @property
    def label(self) -> str:
        """What the screen calls this training's algorithm."""
        return f"Unigram ({RULE_LABELS[self.rule]})"


RULE_OPTIONS: dict[str, tuple[str, ...]] = {  # each rule's own settings, by command-line name
    "course": ("seed_size", "prune_percent", "whole_words"),
    "tokenizers": ("seed_size", "shrinking_factor", "sub_iterations", "max_piece_length"),
}


def _flag(name: str) -> str:
    """An option's command-line flag (a switch: both of its forms)."""
    flag = "--" + name.replace("_", "-")
    return f"{flag}/--no-{flag[2:]}" if name in SWITCHES else flag


SWITCHES = ("whole_words",)  # options given as --x / --no-x


def unigram_config(vocab_size: int, *, pre_tokenizer: str, special_tokens: tuple[str, ...] = (UNK_PIECE,),
                   top_k: int = 10, unigram_rule: str = "tokenizers", **options: Any) -> UnigramConfig:
    """A Unigram configuration for a user's settings (algorithms.build_config calls it for the command line and
    the app alike): an option of the other rule is refused with one line; one left out takes the rule's
    default."""
    if unigram_rule not in UNIGRAM_RULES:
        raise WordPieceError(f"unknown Unigram rule {unigram_rule!r}: choose {' or '.join(UNIGRAM_RULES)}")
    rule: UnigramRule = "course" if unigram_rule == "course" else "tokenizers"
    wrong = [_flag(n) for n in options if n not in RULE_OPTIONS[rule]]
    if wrong:
        raise WordPieceError(f"{', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not an option of "
                             f"--unigram-rule {rule}")
    return UnigramConfig(rule, vocab_size, special_tokens, top_k=top_k, **options)


@dataclass(frozen=True, eq=False)
class UnigramTraining:
    """A whole run: the final vocabulary (special tokens first, then pieces with log-probabilities), the unknown
    piece's id, every round, and why it stopped."""

    config: UnigramConfig
    pieces: list[tuple[str, float]]
    unk_id: int | None
    rounds: list[AnyRound]
    stop_reason: str
    words: int  # distinct words trained on

    @property
    def nbytes(self) -> int:
        """About what it weighs (the store's budget counts it): its pieces and the rounds' records."""
        size = 120 * len(self.pieces)
        for r in self.rounds:
            if isinstance(r, Round):
                size += 150 * (len(r.counts) + len(r.scores))
            else:
                size += 130 * len(r.pieces) + sum(60 * (len(e.dropped) + len(e.top)) for e in r.em)
                if r.pruning is not None:
                    size += 200 * len(r.pruning.pieces) + 60 * len(r.pruning.unused)
        return size

    @property
    def seed_size(self) -> int:
        """The vocabulary the first round started from (without the tokenizers rule's own <UNK>)."""
        first = self.rounds[0] if self.rounds else None
        if isinstance(first, Round):
            return len(first.counts)
        if isinstance(first, EMRound) and first.em:
            return first.em[0].size_before - 1
        return len(self.pieces) - len(self.config.special_tokens)

    # What every algorithm's training tells of itself (algorithms.AnyTraining), as trace.Training does.
    @property
    def step_count(self) -> int:
        return len(self.rounds)

    @property
    def start_size(self) -> int:
        """The vocabulary the first round starts from (the seed and the special tokens)."""
        return self.seed_size + len(self.config.special_tokens)

    @property
    def tokens(self) -> tuple[str, ...]:
        """The final vocabulary, by id."""
        return tuple(p for p, _ in self.pieces)

    continuation: ClassVar[str | None] = None  # Unigram marks no piece inside a word
    word_start: ClassVar[str | None] = METASPACE_MARK  # Metaspace's ▁ starts a word


def _letters(word: str) -> int:
    return len(word) - word.startswith(METASPACE_MARK)


def check(word_counts: Mapping[str, int], config: UnigramConfig) -> None:
    """Refuse, with one line, a training that would not fit the rule's caps or the vocabulary."""
    # A word's length as its text has it: the ▁ that Metaspace puts before a word is not one of its characters.
    longest = max((_letters(w) for w in word_counts), default=0)
    if longest > LONGEST_WORD[config.rule]:
        word = max(word_counts, key=_letters)
        raise WordPieceError(
            f"the {config.rule} rule splits words of up to {LONGEST_WORD[config.rule]:,} characters here, and the "
            f"corpus has one of {longest:,} (it starts {word.removeprefix(METASPACE_MARK)[:20]!r}): choose a "
            "pre-tokenizer that cuts it, or leave it out")
    if config.rule == "course":
        if config.seed * len(word_counts) > COURSE_WORK_LIMIT:
            raise WordPieceError(
                f"the course rule computes every candidate's exact loss: {config.seed:,} seed tokens × "
                f"{len(word_counts):,} distinct words is more than {COURSE_WORK_LIMIT:,} splits a round; "
                "use the tokenizers rule, a smaller corpus, or a smaller seed (--seed-size on the command line)")
        return
    chars = sum(len(w) for w in word_counts)
    if chars > TOKENIZERS_CHAR_LIMIT:
        raise WordPieceError(f"the distinct words hold {chars:,} characters, more than the {TOKENIZERS_CHAR_LIMIT:,} "
                             "the Unigram trainer's lattices are sized for; use a smaller corpus")
    needed = len(required_chars(word_counts))
    specials = len(config.special_tokens)
    if needed + specials > config.vocab_size:
        raise WordPieceError(f"a vocabulary of {config.vocab_size:,} cannot hold the corpus's {needed:,} characters "
                             f"and {specials} special token{'' if specials == 1 else 's'}: Unigram keeps every "
                             "character")


def train_unigram(word_counts: Mapping[str, int], config: UnigramConfig,
                  progress: Callable[[int, int], None] | None = None) -> UnigramTraining:
    """Train under `config.rule`; `progress(done, total)` after each round (total is an estimate)."""
    check(word_counts, config)
    if config.rule == "course":
        target = config.vocab_size - len(config.special_tokens)
        final, rounds = reference.train(word_counts, target, config.seed, config.prune_percent,
                                                config.whole_words, progress=progress)
        pieces = files.final_pieces(final, config.special_tokens)
        unk_id = pieces.index((UNK_PIECE, 0.0)) if config.unk_token else None
        if not rounds and len(pieces) < config.vocab_size:
            stop = (f"{len(pieces):,} tokens for the {config.vocab_size:,} asked for: the seed holds no more (the "
                    "characters and the substrings it keeps, with the special tokens), and Unigram only removes")
        elif not rounds:
            stop = (f"the seed already holds the {len(pieces):,} tokens asked for (the characters and the substrings "
                    "it keeps, with the special tokens): no round was needed")
        elif len(pieces) <= config.vocab_size:
            stop = (f"{len(pieces):,} tokens for the {config.vocab_size:,} asked for: a round removes "
                    f"{config.prune_percent:g} % of the vocabulary, so the last one can go below")
        else:
            stop = (f"{len(pieces):,} tokens, more than the {config.vocab_size:,} asked for: only single characters "
                    "(and the special tokens) were left, and they always stay")
        return UnigramTraining(config, pieces, unk_id, list(rounds), stop, len(word_counts))
    from . import engine  # numpy: only the tokenizers rule's trainer needs it (the course rule's is plain Python)

    pieces, unk_id, em_rounds = engine.train(
        word_counts, config.vocab_size, config.special_tokens, config.unk_token, seed_size=config.seed,
        shrinking_factor=config.shrinking_factor, sub_iterations=config.sub_iterations,
        max_piece_length=config.max_piece_length, top_k=config.top_k, progress=progress)
    last = em_rounds[-1].em[-1].size_after if em_rounds and em_rounds[-1].em else 0
    stop = (f"EM left {last:,} pieces (with the trainer's own <UNK>), at most 1.1 × {config.vocab_size:,}; the "
            f"{len(pieces):,} kept: every character, then the model's pieces in its order, up to the size")
    return UnigramTraining(config, pieces, unk_id, list(em_rounds), stop, len(word_counts))


def no_unknown_note(config: UnigramConfig) -> str | None:
    if config.unk_token is None:
        return (f"no {UNK_PIECE} among the special tokens: the tokenizer cannot encode a character the training "
                "never saw")
    return None
