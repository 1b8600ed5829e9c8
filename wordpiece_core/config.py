"""What decides a BPE or WordPiece training: `TrainerConfig`, and the mapping from a user's settings to it.

The command line (cli.py) and the app (wordpiece_ui) both build their configuration with
algorithms.build_config, which calls `merge_config` for these two, so the rules that turn settings into a
trainer's choices (WordPiece always writes ``##``; BPE only when asked; the full byte alphabet only with the
byte-level pre-tokenizer) live here once. (Unigram's configuration is unigram/training.py's `UnigramConfig`.)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, get_args

from .reference import TIE_RULES, WORDPIECE_PREFIX

Algorithm = Literal["wordpiece", "bpe"]
TieBreak = Literal["first", "hf"]
ALGORITHMS: tuple[Algorithm, ...] = get_args(Algorithm)
BYTES_PER_STEP = 120  # a stored step: its columns and its touched words, about
# What a training weighs while it runs, at most (its process: the interpreter, the words, the pair index): measured
# against a worker's PSS on a grid of shapes (benchmarks/bench_estimates.py): random letters, up to 10,000-letter
# words, and 200,000 English words; the highest was 446 MB for 1,000,000 characters in 100 words.
PEAK_BASE_BYTES = 60_000_000
MERGE_PEAK_BYTES_PER_CHAR = 450  # a merge training, per character of its distinct words
BYTES_PER_CANDIDATE = 30  # a recorded candidate: seven 32-bit columns and a little
TIE_BREAKS: tuple[TieBreak, ...] = get_args(TieBreak)
assert set(TIE_RULES) == set(TIE_BREAKS)


@dataclass(frozen=True)
class TrainerConfig:
    """Everything that decides a training run (the trace is a function of this and the words).

    `wordpiece_core.train(word_counts, config)` trains it (algorithms.py, which hands it to the merge engine).
    The two merge algorithms:

    - **WordPiece** (the Hugging Face course's “WordPiece tokenization”): each word starts as its
      first character and ``##`` + every other character; at every step the pair with the best
      count(ab) / (count(a) × count(b)) merges (counts over the current splits, weighted by word
      frequency), and the new token is a + b without b's ``##``. `min_score` stops training when
      the best score falls below it (the threshold of the tutorial “WordPiece Tokenization: A BPE
      Variant”, which also multiplies every score by the vocabulary size: the same winner, kept
      in the trace as `scaled_score`). Its prefix is ``##`` unless another is given.
    - **BPE** (the course's “Byte-Pair Encoding tokenization”): words start as their characters
      and the most frequent pair merges. No prefix unless one is given: with `prefix="##"` it is
      what Hugging Face's `WordPieceTrainer` really trains, BPE on words written ``w ##o ##r ##d``,
      whose alphabet also holds every character on its own. With `tie_break="hf"` its merges are
      exactly `BpeTrainer`'s.

    Both start from the special tokens, then the alphabet sorted by code point; `min_frequency`
    leaves rarer pairs unmerged.
    """

    algorithm: Algorithm = "wordpiece"
    vocab_size: int = 1000
    min_frequency: int = 0
    special_tokens: tuple[str, ...] = ()
    tie_break: TieBreak = "first"
    prefix: str | None = None  # continuing-subword prefix: WordPiece's is "##" when none is given; BPE has none
    min_score: Fraction | None = None  # stop when the best score falls below this
    top_k: int = 10  # candidates recorded per step
    full_byte_alphabet: bool = False  # byte-level: start from all 256 byte characters, not only those seen

    def __post_init__(self) -> None:
        if self.prefix is None and self.algorithm == "wordpiece":
            object.__setattr__(self, "prefix", WORDPIECE_PREFIX)

    def estimated_bytes(self, word_types: int, avg_word_bytes: int) -> int:
        """About what this training will weigh once stored, before it runs (the app refuses one that cannot fit):
        the words, and per merge its compact trace (the step's columns and touched words) and top-K candidates."""
        merges = max(0, self.vocab_size)
        return word_types * (avg_word_bytes + 60) + merges * (BYTES_PER_STEP + BYTES_PER_CANDIDATE * self.top_k + 60)

    def estimated_peak_bytes(self, word_types: int, chars: int) -> int:
        """At most what this training's process weighs while it trains (`chars`: of its distinct words, in all):
        the interpreter and, per character, the word's symbols and the pair index's places."""
        return PEAK_BASE_BYTES + MERGE_PEAK_BYTES_PER_CHAR * chars

    @property
    def label(self) -> str:
        """What the screen calls this training's algorithm ("BPE with ##" for BPE with a prefix)."""
        name = "WordPiece" if self.algorithm == "wordpiece" else "BPE"
        return f"{name} with {self.prefix}" if self.algorithm == "bpe" and self.prefix else name


def merge_config(algorithm: Algorithm, vocab_size: int, *, pre_tokenizer: str, special_tokens: tuple[str, ...] = (),
                 top_k: int = 10, min_frequency: int = 0, tie_break: TieBreak = "first",
                 continuing_prefix: str | None = None, min_score: Fraction | None = None,
                 full_byte_alphabet: bool = False) -> TrainerConfig:
    """A merge trainer's configuration for a user's settings (algorithms.build_config calls it for the command
    line and the app alike).

    WordPiece always writes ``##`` (a `continuing_prefix` is for BPE only: ``##`` there trains what Hugging
    Face's WordPieceTrainer trains); the full byte alphabet applies only to the byte-level pre-tokenizer.
    """
    return TrainerConfig(
        algorithm=algorithm,
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
        tie_break=tie_break,
        prefix=WORDPIECE_PREFIX if algorithm == "wordpiece" else (continuing_prefix or None),
        min_score=min_score,
        top_k=top_k,
        full_byte_alphabet=full_byte_alphabet and pre_tokenizer == "byte-level",
    )
