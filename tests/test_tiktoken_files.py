"""OpenAI's encodings (.tiktoken files, the shelf's) encode as tiktoken itself does: tokens' ids and text."""

from __future__ import annotations

import random

import pytest

from wordpiece_core import shelf
from wordpiece_core.errors import WordPieceError
from wordpiece_core.loading import tokenizer_from_bytes
from wordpiece_core.tiktoken_files import ENCODINGS, looks_like_tiktoken

tiktoken = pytest.importorskip("tiktoken")
from tiktoken.load import load_tiktoken_bpe  # noqa: E402


def _texts(n: int, seed: int) -> list[str]:
    """Written texts of many scripts and shapes, and random ones of any code point but the surrogates."""
    written = [
        "Hello, World! The quick brown fox jumps over the lazy dog.", "It's, they're, WE'LL, I'M, can'T",
        "Café naïve résumé Ångström Œuvre ﬁne ½ ² ß ſ", "Καλημέρα κόσμε · Привет, мир! · مرحبا بالعالم · שלום",
        "東京は晴れ 北京 서울 カタカナ ひらがな ภาษาไทย မြန်မာ ქართული", "हिन्दी में लिखा गया पाठ तमिழ் বাংলা",
        "emoji 🙂👍🏽 👨‍👩‍👧 and   three   spaces\tand a tab", "numbers 12345 3.14 2nd 1,000,000 ٣٤ ¹²³",
        "def f(x):\n\treturn x  +  1\n    y = 2\n\n\n", "  leading and trailing spaces  \n", "a/b//c /// http://x.y/z",
        "<|endoftext|>first<|endoftext|> <|fim_prefix|>x<|fim_suffix|> <|endofprompt|>", "\r\n\r\n \r \n", "",
    ]
    rng = random.Random(seed)

    def char() -> str:
        cp = rng.choice([rng.randrange(0x20, 0x2FFF), rng.randrange(0xE000, 0x110000), rng.randrange(0, 0x20)])
        return chr(cp)

    return written + ["".join(char() if rng.random() < 0.6 else rng.choice(" \n\t'sS1!/") for _ in range(
        rng.randint(1, 60))) for _ in range(n)]


@pytest.mark.parametrize("name", shelf.SHELF)
def test_the_shelfs_encodings_encode_as_tiktoken(name):
    ours = shelf.load(name)
    enc = ENCODINGS[name]
    theirs = tiktoken.Encoding(name, pat_str=enc.pattern, mergeable_ranks=_ranks(name), special_tokens=enc.specials)
    bad = []
    for text in _texts(400, seed=len(name)):
        want = theirs.encode(text, allowed_special="all")
        got = ours.encode(text, add_special_tokens=False)
        if got.ids != want:
            bad.append((text, got.ids[:12], want[:12]))
        elif ours.decode(got.ids, skip_special_tokens=False) != theirs.decode(want):
            bad.append((text, "decoded", ours.decode(got.ids, skip_special_tokens=False)))
    assert not bad, bad[:3]


def _ranks(name: str) -> dict[bytes, int]:
    import tempfile, os

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, f"{name}.tiktoken")
        with open(path, "w", encoding="ascii") as f:
            f.write(shelf.file_text(name))
        return load_tiktoken_bpe(path)


def test_a_renamed_tiktoken_file_is_known_by_its_size_and_an_unknown_one_is_refused_by_name():
    text = shelf.file_text("r50k_base")
    assert looks_like_tiktoken(text)
    assert tokenizer_from_bytes(text.encode(), "gpt2-ranks.txt").encode("Hello", add_special_tokens=False).ids == [15496]
    short = "\n".join(text.splitlines()[:1000])
    with pytest.raises(WordPieceError, match=r"mine.tiktoken: a .tiktoken file does not hold its regex or special tokens"):
        tokenizer_from_bytes(short.encode(), "mine.tiktoken")
    with pytest.raises(WordPieceError, match=r"x.tiktoken: line 2: '\?\?' is not base64"):
        tokenizer_from_bytes(b"IQ== 0\n?? 1\n", "x.tiktoken")


def test_a_tiktoken_file_of_long_tokens_loads_without_cutting_them_and_a_longer_or_bad_one_is_refused_by_name():
    import base64

    def line(token: bytes, rank: int) -> str:
        return base64.b64encode(token).decode() + f" {rank}"

    growing = [line(bytes([b]), b) for b in range(256) if b != 97] + [line(b"a" * n, 255 + n) for n in range(1, 1025)]
    tok = tokenizer_from_bytes("\n".join(growing).encode(), "cl100k_base.tiktoken")  # (every cut of every token
    encoding = tok.encode("a" * 1500, add_special_tokens=False)  # was once built: 2.8 GB and 12 s at 1,500 bytes)
    assert "".join(encoding.tokens) == "a" * 1500 and tok.decode(encoding.ids) == "a" * 1500
    with pytest.raises(WordPieceError, match=r"token has 1,025 bytes; at most 1,024 are read"):
        tokenizer_from_bytes("\n".join(growing + [line(b"a" * 1025, 5000)]).encode(), "cl100k_base.tiktoken")
    with pytest.raises(WordPieceError, match=r"line 2 is not a base64 token and its rank"):
        tokenizer_from_bytes(b"IQ== 0\nIg== \xc2\xb2\n", "x.tiktoken")  # (a superscript two: not a rank)
    with pytest.raises(WordPieceError, match=r"line 2 repeats a rank \(0\)"):
        tokenizer_from_bytes(b"IQ== 0\nIg== 0\n", "x.tiktoken")
