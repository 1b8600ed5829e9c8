"""BPE training, as the Hugging Face course's “Byte-Pair Encoding tokenization” describes it.

Each word starts as its characters; the vocabulary starts as the special tokens,
then the alphabet sorted by code point. At every step the most frequent pair is
merged. With ``tie_break="hf"`` ties go to the smallest (id of left, id of
right), which is what Hugging Face's BpeTrainer does, so the merges are exactly
BpeTrainer's.

With ``prefix="##"`` this is what Hugging Face's ``WordPieceTrainer`` really
trains (the course's WordPiece chapter and the likelihood article say so): BPE on words written ``w ##o ##r ##d``,
choosing by count, not by the WordPiece score. Like BpeTrainer, its alphabet
then holds every character on its own as well as its ``##`` form.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .merging import Progress, train
from .trace import TieBreak, TrainerConfig, Training


def train_bpe(
    word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
    vocab_size: int,
    *,
    special_tokens: Iterable[str] = (),
    min_frequency: int = 0,
    tie_break: TieBreak = "first",
    prefix: str | None = None,
    top_k: int = 10,
    full_byte_alphabet: bool = False,
    progress: Progress | None = None,
) -> Training:
    config = TrainerConfig(
        algorithm="bpe",
        full_byte_alphabet=full_byte_alphabet,
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=tuple(special_tokens),
        tie_break=tie_break,
        prefix=prefix,
        top_k=top_k,
    )
    return train(word_counts, config, progress)
