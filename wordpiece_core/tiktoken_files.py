"""tiktoken's files: OpenAI's encodings (r50k_base: GPT-2 and GPT-3; p50k_base; cl100k_base: GPT-3.5 and GPT-4;
o200k_base: GPT-4o), read as the BPE tokenizer they are.

A `.tiktoken` file holds one token a line: its bytes in base64 and its rank (`IQ== 0`). It says nothing else:
the regex that cuts text into pieces before the merges, and the special tokens, are the encoding's, known here
by the file's name (or, for a renamed file, by how many tokens it holds), as tiktoken's `openai_public.py`
gives them.

tiktoken encodes a piece as one token when its bytes are a token; otherwise it merges, again and again, the
adjacent two parts whose joined bytes have the lowest rank (the leftmost among equals). That is BPE whose merge
of a + b ranks as the token a + b does, with `ignore_merges`: the model here is `models.BPEModel` over GPT-2's
byte-level characters, each pair (a, b) whose parts and join are tokens ranked by the join's rank (`RankedBPEModel`:
the rank looked up when a pair comes up, not a list of every split of every token, as transformers converts them). tests/test_tiktoken_files.py holds the tokens and ids to
tiktoken's own on the files when they are present.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from dataclasses import dataclass

from .errors import WordPieceError
from .models import BPEModel
from .pipeline import Decoder, Tokenizer
from .pre_tokenizers import BYTES, bytes_to_byte_level, split_stage

ENDOFTEXT, ENDOFPROMPT = "<|endoftext|>", "<|endofprompt|>"
FIM = ("<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>")

R50K_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
                  r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])


@dataclass(frozen=True)
class Encoding:
    """What a .tiktoken file leaves out: its regex, its special tokens (and their ids), how many ranks it holds."""

    name: str
    models: str  # the models that use it, for the screen
    pattern: str
    specials: dict[str, int]
    ranks: int


ENCODINGS = {e.name: e for e in (
    Encoding("r50k_base", "GPT-2, GPT-3", R50K_PATTERN, {ENDOFTEXT: 50256}, 50256),
    Encoding("p50k_base", "Codex, text-davinci-002/003", R50K_PATTERN, {ENDOFTEXT: 50256}, 50280),
    Encoding("cl100k_base", "GPT-3.5, GPT-4", CL100K_PATTERN,
             {ENDOFTEXT: 100257, FIM[0]: 100258, FIM[1]: 100259, FIM[2]: 100260, ENDOFPROMPT: 100276}, 100256),
    Encoding("o200k_base", "GPT-4o, GPT-4.1, o1, o3", O200K_PATTERN, {ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
             199998),
)}
MAX_RANKS = 1_000_000  # lines of a .tiktoken file (o200k: 199,998)
MAX_TOKEN_BYTES = 1_024  # a token's bytes (OpenAI's longest: 128)
_LINE = re.compile(r"[A-Za-z0-9+/=]+ [0-9]+")


def looks_like_tiktoken(text: str) -> bool:
    """Whether a text file is a .tiktoken file: its first lines are a base64 token and a whole number."""
    lines = text.lstrip("\ufeff").split("\n", 3)[:3]
    return bool(lines) and all(_LINE.fullmatch(line.rstrip("\r")) for line in lines if line.strip()) and any(
        line.strip() for line in lines)


def read_ranks(text: str, name: str) -> dict[bytes, int]:
    """The file's tokens (their bytes) and ranks, each line checked (a bad one is named by its number)."""
    ranks: dict[bytes, int] = {}
    seen: set[int] = set()
    for number, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        if not line.strip():
            continue
        if number > MAX_RANKS:
            raise WordPieceError(f"{name} has more than {MAX_RANKS:,} tokens; at most that many are read")
        parts = line.split()
        if len(parts) != 2 or not (parts[1].isascii() and parts[1].isdigit() and len(parts[1]) <= 9):
            raise WordPieceError(f"{name}: line {number:,} is not a base64 token and its rank: {line[:60]!r}")
        try:
            token = base64.b64decode(parts[0], validate=True)
        except (binascii.Error, ValueError):
            raise WordPieceError(f"{name}: line {number:,}: {parts[0][:40]!r} is not base64") from None
        if len(token) > MAX_TOKEN_BYTES:
            raise WordPieceError(f"{name}: line {number:,}'s token has {len(token):,} bytes; at most "
                                 f"{MAX_TOKEN_BYTES:,} are read (OpenAI's longest has 128)")
        if token in ranks:
            raise WordPieceError(f"{name}: line {number:,} repeats a token")
        rank = int(parts[1])
        if rank in seen:
            raise WordPieceError(f"{name}: line {number:,} repeats a rank ({rank:,}), as tiktoken refuses")
        seen.add(rank)
        ranks[token] = rank
    if not ranks:
        raise WordPieceError(f"{name} holds no tokens")
    return ranks


def encoding_of(name: str, count: int) -> Encoding:
    """The encoding a file is: by its name (cl100k_base.tiktoken), else by how many tokens it holds."""
    stem = os.path.basename(name).split(".")[0].lower()
    if stem in ENCODINGS:
        return ENCODINGS[stem]
    sized = [e for e in ENCODINGS.values() if e.ranks == count]
    if len(sized) == 1:
        return sized[0]
    raise WordPieceError(
        f"{name}: a .tiktoken file does not hold its regex or special tokens, so it is read only as one of "
        f"{', '.join(ENCODINGS)} (by its name, or by its number of tokens; this one has {count:,})")


class _JoinRanks:
    """A pair's rank, as tiktoken ranks it: the rank of the token the two make (None if they make none)."""

    __slots__ = ("_vocab",)

    def __init__(self, vocab: dict[str, int]) -> None:
        self._vocab = vocab

    def get(self, pair: tuple[str, str], default: int | None = None) -> int | None:
        return self._vocab.get(pair[0] + pair[1], default)


class _Joins:
    """A pair's token: the two joined (no prefix)."""

    def __getitem__(self, pair: tuple[str, str]) -> str:
        return pair[0] + pair[1]


class RankedBPEModel(BPEModel):
    """tiktoken's BPE: the pair whose join is the lowest-ranked token merges first, a word that is a token stays one
    (`ignore_merges`). No merges list is built: a pair's rank is looked up as its join's (o200k_base's 446,000 cuts
    of its tokens took 2.5 s and 170 MB as a list and two dicts)."""

    def __init__(self, vocab: dict[str, int]) -> None:
        super().__init__(vocab, [], ignore_merges=True)
        self.ranks = _JoinRanks(vocab)  # type: ignore[assignment]
        self.joined = _Joins()  # type: ignore[assignment]


def tokenizer_from_tiktoken(text: str, name: str) -> Tokenizer:
    """The BPE tokenizer a .tiktoken file is (see the module's docstring)."""
    ranks = read_ranks(text, name)
    encoding = encoding_of(name, len(ranks))
    vocab = {bytes_to_byte_level(token): rank for token, rank in ranks.items()}
    if len(vocab) != len(ranks):
        raise WordPieceError(f"{name}: two tokens are written the same")
    model = RankedBPEModel(vocab)
    taken = set(vocab.values())
    specials = {t: i for t, i in encoding.specials.items() if i not in taken}
    pre = split_stage(encoding.pattern, "isolated", False, tables="rust") + "+" + BYTES
    return Tokenizer(model, "none", pre, special_tokens=tuple(specials), added_tokens=specials, trim_offsets=False,
                     decoder=Decoder("byte-level"))
