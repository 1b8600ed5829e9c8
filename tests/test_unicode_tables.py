"""The pre-tokenizers split every code point as the pinned `tokenizers` does, whatever `regex` is installed.

unicode_tables.py holds the character classes make_unicode_tables.py read from tokenizers; here every
code point (all 0x110000 but the surrogates, which are not text in UTF-8) is put through each of our
pre-tokenizers and Hugging Face's, in texts that show each class: the words and offsets must be the same.
"""

import pytest

from wordpiece_core import unicode_tables
from wordpiece_core.make_unicode_tables import SURROGATES, ranges
from wordpiece_core.normalizers import WHITE_SPACE
from wordpiece_core.pre_tokenizers import pre_tokenize

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import pre_tokenizers  # noqa: E402

HF = {
    "whitespace": pre_tokenizers.Whitespace(),
    "whitespace-split": pre_tokenizers.WhitespaceSplit(),
    "bert": pre_tokenizers.BertPreTokenizer(),
    "byte-level": pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    "digits": pre_tokenizers.Digits(individual_digits=True),
    "punctuation": pre_tokenizers.Punctuation(),
}
CHUNK = 0x2000
ALL = [cp for cp in range(0x110000) if cp not in SURROGATES]


def probes(chunk: list[int], name: str) -> str:
    """Each character where each of its possible classes splits differently: between letters (a word character,
    punctuation, white space, other), or for byte-level after a letter, a digit and a symbol."""
    if name == "byte-level":
        return " ".join(f"a{ch}1{ch}!{ch}" for ch in map(chr, chunk))
    return " ".join(f"a{ch}a" for ch in map(chr, chunk))


def test_the_tables_come_from_the_pinned_tokenizers():
    """requirements-dev.txt pins the tokenizers the tables were made from (regenerate both together)."""
    from pathlib import Path

    pins = Path(__file__).parents[1].joinpath("requirements-dev.txt").read_text(encoding="utf-8")
    assert f"\ntokenizers=={unicode_tables.TOKENIZERS_VERSION} " in pins
    assert tokenizers.__version__ == unicode_tables.TOKENIZERS_VERSION


def test_white_space_is_one_class_in_every_pre_tokenizer():
    """Rust's regex \\s and char::is_whitespace agree (and the normalizers' WHITE_SPACE too)."""
    space = set().union(*(range(lo, hi + 1) for lo, hi in unicode_tables.SPACE))
    assert space == {ord(ch) for ch in WHITE_SPACE}
    assert unicode_tables.BERT_SPACE == unicode_tables.SPACE == unicode_tables.BYTE_SPACE


def test_the_tables_are_sorted_disjoint_ranges():
    for name in ("WORD", "SPACE", "BERT_SPACE", "BERT_PUNCT", "LETTER", "NUMBER", "BYTE_SPACE", "NUMERIC", "PUNCT"):
        table = getattr(unicode_tables, name)
        assert all(lo <= hi for lo, hi in table), name
        assert all(a[1] + 1 < b[0] for a, b in zip(table, table[1:])), name  # sorted, apart (else one range)
    assert list(ranges([1, 2, 3, 7, 9, 10])) == [(1, 3), (7, 7), (9, 10)]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HF))
def test_every_code_point_splits_as_in_tokenizers(name):
    hf = HF[name]
    differing = []
    for start in range(0, len(ALL), CHUNK):
        text = probes(ALL[start:start + CHUNK], name)
        expected = [(w, tuple(o)) for w, o in hf.pre_tokenize_str(text)]
        if pre_tokenize(text, name) != expected:  # find the code points, for the message
            differing += [cp for cp in ALL[start:start + CHUNK] if pre_tokenize(probes([cp], name), name)
                          != [(w, tuple(o)) for w, o in hf.pre_tokenize_str(probes([cp], name))]]
    assert not differing, f"{len(differing)} code points differ, the first {[hex(cp) for cp in differing[:10]]}"


def test_code_points_the_installed_regex_once_got_wrong():
    """The code points the installed regex split otherwise than tokenizers: U+3D3E8 (unassigned: a symbol to
    tokenizers, a letter to regex 2026.11), U+061D (punctuation since Unicode 14: not in tokenizers' tables, so
    inside a word for BertPreTokenizer)."""
    for text in ("a\U0003d3e8b", "a\u061db", "x a\U0003d3e8b"):
        for name, hf in HF.items():
            assert pre_tokenize(text, name) == [(w, tuple(o)) for w, o in hf.pre_tokenize_str(text)], (name, text)
    assert [w for w, _ in pre_tokenize("a\U0003d3e8b", "whitespace")] == ["a", "\U0003d3e8", "b"]
    assert [w for w, _ in pre_tokenize("a\u061db", "bert")] == ["a\u061db"]


@pytest.mark.slow
def test_the_stored_exceptions_are_the_installed_regexs_or_are_found_again(monkeypatch):
    """With the regex version the tables were made with, the stored exceptions are what a scan finds; with any
    other, the scan runs (once per process) and the pre-tokenizers still split those code points right."""
    import regex

    from wordpiece_core import pre_tokenizers

    if regex.__version__ == unicode_tables.REGEX_VERSION:
        for name in ("WORD", "BERT_PUNCT", "LETTER", "NUMBER", "SPACE"):
            assert unicode_tables.REGEX_EXCEPTIONS[name] == pre_tokenizers.scan_exceptions(name), name
    monkeypatch.setattr(unicode_tables, "REGEX_VERSION", "another")
    pre_tokenizers.clear_caches()
    try:
        test_code_points_the_installed_regex_once_got_wrong()
    finally:
        pre_tokenizers.clear_caches()


@pytest.mark.slow
@pytest.mark.parametrize("name,make", [
    ("nfd", lambda n: n.NFD()), ("nfkd", lambda n: n.NFKD()), ("nfc", lambda n: n.NFC()), ("nfkc", lambda n: n.NFKC()),
    ("strip-accents", lambda n: n.StripAccents()), ("nfd+lowercase+strip-accents",
                                                     lambda n: n.Sequence([n.NFD(), n.Lowercase(), n.StripAccents()])),
    ("bert", lambda n: n.BertNormalizer(lowercase=True)), ("nmt", lambda n: n.Nmt()),
])
def test_every_code_point_normalizes_as_tokenizers_does(name, make):
    """Alone, and between a letter and a mark (where canonical order and composition show): Python's unicodedata
    is another Unicode version than tokenizers' (NFKD differed on 73 code points, StripAccents on 315, and 51 marks'
    combining classes are unknown to tokenizers); unicode_tables holds tokenizers' answers where they differ."""
    from tokenizers import normalizers

    from wordpiece_core.normalizers import normalize

    hf = make(normalizers)
    bad = [hex(cp) for cp in ALL for text in (chr(cp), f"a{chr(cp)}\u0301")
           if normalize(text, name) != hf.normalize_str(text)]
    assert not bad, (len(bad), bad[:10])
