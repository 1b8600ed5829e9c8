"""What a tokenizer costs each language: the token premium on parallel text (Petrov et al. 2023, "Language Model
Tokenizers Introduce Unfairness Between Languages"), fertility and words split (Rust et al. 2021, "How Good is
Your Tokenizer?"), bytes per token, and the characters that fall to an unknown token or to bytes.

The premium of a language is the tokens its text of some articles takes, over the tokens English's text of the
same articles takes: 2.0 means a reader of that language pays twice as many tokens for the same content. Here the
text is the Universal Declaration of Human Rights (parallel_text.py); the papers measure on FLORES-200, so the
figures differ, but the order of the languages is what they report.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate
from dataclasses import dataclass

from .parallel_text import Language
from .pipeline import Tokenizer
from .real_merges import kind_of

REFERENCE = "English"
_WORD = re.compile(r"\S+")
_BYTE_TOKEN = re.compile(r"<0x[0-9A-Fa-f]{2}>")


@dataclass(frozen=True)
class Cost:
    """One language's text through one tokenizer."""

    language: str
    script: str
    spaced: bool
    tokens: int
    words: int  # space-separated words (for a language written without spaces: runs between spaces)
    chars: int
    bytes: int  # UTF-8
    split_words: int  # words cut into more than one token
    lost_chars: int  # characters that became an unknown token, or bytes (byte-level pieces of a character), or nothing
    premium: float  # tokens over the reference language's tokens for the same articles

    @property
    def fertility(self) -> float | None:
        """Tokens per word; None where words are not separated by spaces (the count would mean phrases)."""
        return self.tokens / self.words if self.spaced and self.words else None

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def split_share(self) -> float | None:
        return self.split_words / self.words if self.spaced and self.words else None

    @property
    def lost_share(self) -> float:
        return self.lost_chars / self.chars if self.chars else 0.0


def _lost(token: str, tokenizer: Tokenizer, byte_level: bool) -> bool:
    """Whether a token stands for no whole character: the unknown token, a byte-fallback byte, or a byte-level
    token holding part of a character."""
    model = tokenizer.model
    if token == getattr(model, "unk_token", None) or token == getattr(model, "unk_piece", None):
        return True
    if _BYTE_TOKEN.fullmatch(token):
        return True
    return byte_level and kind_of(token, True) == "part of a character"


def count(tokenizer: Tokenizer, text: str) -> tuple[int, int, int, int]:
    """(tokens, words, words split, characters lost) of `text`."""
    from .pre_tokenizers import is_byte_level

    encoding = tokenizer.encode(text, add_special_tokens=False)
    byte_level = is_byte_level(tokenizer.pre_tokenizer)
    spans = sorted(span for span in encoding.offsets if span[1] > span[0])
    starts, ends = [span[0] for span in spans], sorted(span[1] for span in spans)
    lost_token: dict[str, bool] = {}
    lost_spans = []
    for token, span in zip(encoding.tokens, encoding.offsets):
        if (is_lost := lost_token.get(token)) is None:
            is_lost = lost_token[token] = _lost(token, tokenizer, byte_level)
        if is_lost and span[1] > span[0]:
            lost_spans.append(span)
    words = split = 0
    for m in _WORD.finditer(text):
        words += 1
        # the tokens that overlap the word (a byte-level token starts at the space before its word)
        inside = bisect.bisect_left(starts, m.end()) - bisect.bisect_right(ends, m.start())
        split += inside > 1
    # Lost: the characters of lost tokens, and those no token holds at all (a byte-level tokenizer trained without
    # every byte drops the bytes it never saw: a script missing from its corpus would otherwise look cheap).
    spaces = list(accumulate(map(str.isspace, text), initial=0))  # white space before each position
    unheld = len(text) - spaces[-1] - _covered(spans, spaces)
    return len(encoding.ids), words, split, _covered(lost_spans, spaces) + unheld


def _covered(spans: list[tuple[int, int]], spaces: list[int]) -> int:
    """How many characters the spans cover, white space left out (a byte-level token's span may hold the space
    before its word: not lost); `spaces[i]`: the white space before position i of the text. Spans may overlap:
    byte-level's pieces of one character share its span."""
    covered, at = 0, 0  # characters covered so far; where the spans counted so far end
    for start, end in sorted(spans):
        start = max(start, at)
        if end > start:
            covered += (end - start) - (spaces[end] - spaces[start])
            at = end
    return covered


def costs(tokenizer: Tokenizer, languages: tuple[Language, ...], articles: tuple[int, ...]) -> list[Cost]:
    """Each language's cost of articles `articles` through `tokenizer`, its premium against English (which
    `languages` must hold)."""
    counted = {}
    for language in languages:
        text = language.text(articles)
        counted[language.name] = (text, count(tokenizer, text))
    reference = counted[REFERENCE][1][0] or 1
    return [Cost(language.name, language.script, language.spaced, tokens, words, len(text),
                 len(text.encode("utf-8")), split, lost, tokens / reference)
            for language in languages
            for text, (tokens, words, split, lost) in [counted[language.name]]]
