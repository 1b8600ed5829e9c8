"""The corpora the app offers: the embedded samples, pasted text and uploaded files.

Every corpus becomes word counts (the trainers' input) through `wordpiece_core`;
this module only knows where the text comes from and states the limits. Problems
come back as `WordPieceError` with a sentence a person can act on.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import json
import os
from dataclasses import dataclass
from functools import lru_cache

from wordpiece_core.corpus import TextSettings, count_text, decode_text, parse_word_counts
from wordpiece_core.errors import WordPieceError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES_DIR = os.path.join(ROOT, "sample_corpora")
CUSTOM_IDS = ("paste", "upload")
MAX_UPLOAD_MB = 20  # the corpus uploader's own limit (the server's, .streamlit/config.toml, is the tokenizer file's 40)
MAX_PASTE_CHARS = 1_000_000
MAX_WORD_TYPES = 200_000
PASTE_NAME = "the pasted text"
_IN_A_WORD = frozenset("'’-")  # what a word of a word list may hold besides letters and digits


@dataclass(frozen=True)
class SampleCorpus:
    id: str
    file: str
    title: str
    description: str
    vocab_size: int
    normalizer: str
    pre_tokenizer: str
    specials: str
    min_frequency: int
    heldout: str = ""  # a sentence not in the corpus, for the Compare page
    unigram: dict | None = None  # the settings it suggests for Unigram, over those above (rule, size, specials, ...)
    byte_alphabet: bool = False  # byte-level: all 256 bytes in the alphabet from the start (as GPT-2's)

    @property
    def is_word_counts(self) -> bool:
        return self.file.endswith(".tsv")


@dataclass(frozen=True)
class WordCounts:
    """A corpus ready to train on: its words in order of first appearance, and a digest."""

    name: str
    counts: tuple[tuple[str, int], ...]
    digest: str  # of the source bytes and the text settings: the cache key
    note: str = ""  # what was done with the input that the user should know (a header line skipped)

    @functools.cached_property
    def chars(self) -> int:
        """The characters of the distinct words (counted once)."""
        return sum(len(w) for w, _ in self.counts)

    @property
    def nbytes(self) -> int:
        """About how much memory the counts hold (for the server's store)."""
        return 120 * len(self.counts) + self.chars

    @property
    def lowercase_words(self) -> bool:
        """A list of lower-case words (wordfreq's, say): no capital letter, and nothing but letters, digits,
        apostrophes and hyphens in any word. A text lowercased by its normalizer is not one: its punctuation,
        split off or kept, says it is running text."""
        words = "".join(w for w, _ in self.counts)
        return words == words.lower() and all(c.isalnum() or c in _IN_A_WORD for c in set(words))

    @property
    def types(self) -> int:
        return len(self.counts)

    def most_frequent(self, n: int) -> list[tuple[str, int]]:
        """The `n` most frequent words with their counts (equal counts in the corpus's order)."""
        return heapq.nlargest(n, self.counts, key=lambda wc: wc[1])

    @property
    def tokens(self) -> int:
        return sum(n for _, n in self.counts)


@lru_cache(maxsize=1)
def samples() -> tuple[SampleCorpus, ...]:
    with open(os.path.join(SAMPLES_DIR, "catalog.json"), encoding="utf-8") as fh:
        return tuple(SampleCorpus(**entry) for entry in json.load(fh))


def sample_by_id(corpus_id: str) -> SampleCorpus | None:
    return next((s for s in samples() if s.id == corpus_id), None)


def sample_bytes(corpus_id: str) -> bytes:
    sample = sample_by_id(corpus_id)
    if sample is None:
        raise WordPieceError(f"there is no sample corpus called '{corpus_id}'")
    if "#" in sample.file:  # a mix of the parallel text's languages ("udhr.json.xz#web"), made from it
        from wordpiece_core.parallel_text import mix_text, read

        path, mix = sample.file.split("#", 1)
        return mix_text(mix, read(os.path.join(SAMPLES_DIR, path))).encode("utf-8")
    with open(os.path.join(SAMPLES_DIR, sample.file), "rb") as fh:
        return fh.read()


def digest(data: bytes, *parts: object) -> str:
    h = hashlib.sha256(data)
    for p in parts:
        h.update(b"\x00" + str(p).encode("utf-8"))
    return h.hexdigest()[:20]


def word_counts_from_bytes(data: bytes, name: str, is_tsv: bool, settings: TextSettings) -> WordCounts:
    """Decode, then count words (text) or parse ``word<TAB>count`` lines (TSV)."""
    if len(data) > MAX_UPLOAD_MB * 1024 * 1024:
        raise WordPieceError(
            f"{name} is {len(data) / 1024 / 1024:.1f} MB; the limit is {MAX_UPLOAD_MB} MB. "
            "Upload a sample of it, or a .tsv of word counts (much smaller for the same text)."
        )
    if not data.strip():
        raise WordPieceError(f"{name} is empty: there are no words to train on")
    text = decode_text(data, name)
    notes: list[str] = []
    counts = parse_word_counts(text, name, notes) if is_tsv else count_text(text, settings, repeated_lines=True)
    if not counts:
        raise WordPieceError(f"{name} has no words once {'parsed' if is_tsv else 'pre-tokenized'}")
    if len(counts) > MAX_WORD_TYPES:
        raise WordPieceError(
            f"{name} has {len(counts):,} distinct words; the app trains on at most {MAX_WORD_TYPES:,}. "
            "The command line (python -m wordpiece_core train) has no such limit."
        )
    key = digest(data, is_tsv, settings.normalizer, settings.pre_tokenizer, settings.add_prefix_space)
    return WordCounts(name, tuple(counts.items()), key, "; ".join(notes))


def load_sample(corpus_id: str, settings: TextSettings) -> WordCounts:
    sample = sample_by_id(corpus_id)
    if sample is None:
        raise WordPieceError(f"there is no sample corpus called '{corpus_id}'")
    return word_counts_from_bytes(sample_bytes(corpus_id), sample.title, sample.is_word_counts, settings)


def load_paste(text: str, settings: TextSettings) -> WordCounts:
    if len(text) > MAX_PASTE_CHARS:
        raise WordPieceError(
            f"the pasted text has {len(text):,} characters; the limit is {MAX_PASTE_CHARS:,}. Upload it as a file instead."
        )
    return word_counts_from_bytes(text.encode("utf-8"), PASTE_NAME, False, settings)


def load_upload(name: str, data: bytes, settings: TextSettings) -> WordCounts:
    lower = name.lower()
    if not lower.endswith((".txt", ".tsv", ".text")):
        raise WordPieceError(f"{name}: upload a .txt file (plain text) or a .tsv of word<TAB>count lines")
    return word_counts_from_bytes(data, name, lower.endswith(".tsv"), settings)


def load_own(kind: str, name: str, data: bytes, settings: TextSettings) -> WordCounts:
    """A pasted text (`kind` "paste") or an uploaded file, from the bytes the data store keeps."""
    if kind == "paste":
        return load_paste(data.decode("utf-8", errors="replace"), settings)
    return load_upload(name, data, settings)
