"""A real BPE tokenizer's training, replayed from its file: its merges in rank order are the order it learned them.

GPT-2's first merge is `Ġ` + `t` (a space, then t): the pair its training counted most often in its corpus. A
tokenizer.json's `merges` list is that order. A tiktoken file has no merges, only each token's rank; its training
made the tokens in rank order, and the pair that made a token is the one BPE reaches when it merges the token's
bytes with the tokens ranked before it (`pair_of`).

Also here: what a vocabulary holds, per token: its text (a byte-level token's bytes decoded, a space shown as ␣, a
token that is part of a character as its bytes), its length, and its script (`kind_of`), and which of its merges
a student's own training learned too (`agreement`), compared by their text (a leading space, ▁ or ## and a final
</w> set aside: GPT-2's `Ġthe` and a whitespace-split training's `the` are the same word start).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .pre_tokenizers import unicode_to_bytes

SCRIPTS = ("Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Bengali", "Tamil", "Thai", "Han",
           "Hiragana", "Katakana", "Hangul", "Georgian", "Armenian", "Ethiopic")
KINDS = (*SCRIPTS, "other letters", "mixed scripts", "digits", "punctuation and symbols", "white space",
         "part of a character")


@dataclass(frozen=True)
class ReplayStep:
    """One merge of a real tokenizer's training: its step (1 = the first merge), the two tokens it joined and the
    token it made, as the file writes them."""

    step: int
    left: str
    right: str
    token: str


class Replay:
    """The merges of a BPE model in the order its training learned them."""

    def __init__(self, vocab: dict[str, int], merges: list[tuple[str, str]], byte_level: bool,
                 by_rank: bool) -> None:
        self.vocab = vocab
        self.byte_level = byte_level
        self.by_rank = by_rank  # a tiktoken file: the tokens by rank, each one's pair found (`pair_of`)
        if by_rank:
            ranked = sorted(vocab.items(), key=lambda item: item[1])
            self._tokens = [token for token, _ in ranked if len(token) > 1]
            self._merges: list[tuple[str, str]] = []
        else:
            self._tokens = []
            self._merges = list(merges)

    def __len__(self) -> int:
        return len(self._tokens) if self.by_rank else len(self._merges)

    def step(self, number: int) -> ReplayStep:
        """Merge `number` (1 to len(self))."""
        if self.by_rank:
            token = self._tokens[number - 1]
            left, right = pair_of(token, self.vocab)
        else:
            left, right = self._merges[number - 1]
            token = left + right
        return ReplayStep(number, left, right, token)

    def steps(self, first: int, last: int) -> list[ReplayStep]:
        return [self.step(k) for k in range(max(first, 1), min(last, len(self)) + 1)]

    def text(self, token: str) -> str:
        return token_text(token, self.byte_level)

    def made(self) -> list[str]:
        """Every token a merge made, in the order of the merges (no pair search)."""
        return list(self._tokens) if self.by_rank else [left + right for left, right in self._merges]

    def first_steps(self) -> dict[str, int]:
        """Each made token's comparable text (`comparable`) → the first step that made it."""
        out: dict[str, int] = {}
        for step, token in enumerate(self.made(), 1):
            out.setdefault(comparable(token, self.byte_level), step)
        return out


def pair_of(token: str, ranks: dict[str, int]) -> tuple[str, str]:
    """The two tokens BPE joins last to make `token`: its characters merged, the adjacent pair whose join ranks
    lowest first, with only the tokens ranked before it (tiktoken's byte-pair merge)."""
    limit = ranks[token]
    parts = list(token)
    while len(parts) > 2:
        best, at = limit, -1
        for k in range(len(parts) - 1):
            rank = ranks.get(parts[k] + parts[k + 1])
            if rank is not None and rank < best:
                best, at = rank, k
        if at < 0:
            break
        parts[at:at + 2] = [parts[at] + parts[at + 1]]
    if len(parts) != 2:  # (not a BPE vocabulary: no pair of earlier tokens makes it)
        return token[:1], token[1:]
    return parts[0], parts[1]


@lru_cache(maxsize=1)
def _to_latin1() -> dict[int, int]:
    """str.translate's table from byte-level characters to the Latin-1 characters of their bytes."""
    return {ord(ch): b for ch, b in unicode_to_bytes().items()}


def token_bytes(token: str, byte_level: bool) -> bytes:
    """The bytes a token stands for (a byte-level token's, else its UTF-8)."""
    if byte_level:
        try:
            return token.translate(_to_latin1()).encode("latin-1")
        except UnicodeEncodeError:  # (a character that is no byte-level character: the token as written)
            pass
    return token.encode("utf-8")


def token_text(token: str, byte_level: bool) -> str:
    """A token as a reader reads it: its text with each space as ␣ (GPT-2's Ġ, SentencePiece's ▁), a token that is
    only part of a character as its bytes (⟨E2 80⟩)."""
    if not byte_level:
        return token.replace("\u2581", "␣")
    data = token_bytes(token, True)
    try:
        return data.decode("utf-8").replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥")
    except UnicodeDecodeError:
        return "⟨" + " ".join(f"{b:02X}" for b in data) + "⟩"


@lru_cache(maxsize=65_536)
def _char_kind(ch: str) -> str:
    """A character's script (one of SCRIPTS, or 'other letters'), or 'digits', 'white space', 'punctuation and
    symbols' for a character that is not a letter."""
    import regex

    if regex.match(r"[\p{L}\p{M}]", ch):  # (a mark counts with its script: a Devanagari vowel sign; an inherited one
        found = next((script for script in SCRIPTS if regex.match(rf"\p{{Script={script}}}", ch)), None)
        return found or ("mark" if regex.match(r"\p{M}", ch) else "other letters")  # with none)
    if ch.isspace():
        return "white space"
    return "digits" if regex.match(r"\p{N}", ch) else "punctuation and symbols"


def length_of(token: str, byte_level: bool) -> int:
    """A token's length in characters of its text (what marks a word's start or end set aside); a token that is
    only part of a character counts 1."""
    try:
        return max(len(comparable(token, byte_level, strict=True)), 1)
    except UnicodeDecodeError:
        return 1


def kind_of(token: str, byte_level: bool) -> str:
    """The token's kind for the vocabulary's histogram: its letters' script (one of SCRIPTS, 'other letters' or
    'mixed scripts'), else digits, punctuation and symbols, white space, or part of a character."""
    data = token_bytes(token, byte_level)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "part of a character"
    if not byte_level:
        text = text.replace("\u2581", " ").removeprefix("##").removesuffix("</w>")
    kinds = {_char_kind(ch) for ch in text}
    letters = kinds - {"white space", "digits", "punctuation and symbols", "mark"}
    if letters:
        return letters.pop() if len(letters) == 1 else "mixed scripts"
    for kind in ("digits", "punctuation and symbols"):
        if kind in kinds:
            return kind
    return "white space" if kinds == {"white space"} else "other letters"  # (marks alone: with the letters)


def comparable(token: str, byte_level: bool, strict: bool = False) -> str:
    """A token's text with what marks a word's start or end set aside (a leading space, Ġ or ▁; ##; </w>), so a
    real tokenizer's tokens and a student's can be compared ("" for part of a character; `strict`: raise
    UnicodeDecodeError then)."""
    if byte_level:
        data = token_bytes(token, True)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            if strict:
                raise
            return ""
    else:
        text = token
    text = text.replace("\u2581", " ").removeprefix("##").removesuffix("</w>")
    return text.lstrip(" ")


def agreement(own_tokens: list[str], own_byte_level: bool) -> dict[str, int]:
    """A student's learned tokens (in the order learned) by their comparable text: text → the first step that
    learned it (1-based)."""
    out: dict[str, int] = {}
    for step, token in enumerate(own_tokens, 1):
        key = comparable(token, own_byte_level)
        if key and key not in out:
            out[key] = step
    return out
