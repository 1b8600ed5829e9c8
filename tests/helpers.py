"""What the tests share, in one place: the project root, the seeds' corpora, short ways to train, the
command line in a child process, AppTest's launcher and readers, property tests' example counts, malformed
tokenizer files, and what the garbage collector walks.

pytest.ini puts the project root and this folder on sys.path (`pythonpath = . tests`), so tests import
`wordpiece_core`, `wordpiece_ui` and this module by name; conftest.py sets ROOT from pytest's configuration.
"""

from __future__ import annotations

import copy
import functools
import gc
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from fractions import Fraction
from pathlib import Path

from wordpiece_core import TrainerConfig, Training, train
from wordpiece_core.config import TieBreak
from wordpiece_core.formats import tokenizer_json
from wordpiece_core.special_tokens import BERT_SPECIALS

__all__ = ["BERT_SPECIALS", "BPE", "CASES", "COURSE", "Clock", "ROOT", "TOY", "WP", "app", "changed", "cli_env", "everything",
           "examples", "html_table_rows", "html_tables", "markdown", "metrics", "run_cli", "scan_installed_components_once", "shown", "tracked_reachable",
           "train_bpe", "train_wordpiece"]

# ----- the project ----------------------------------------------------------------------------

ROOT: Path  # the project root: pytest's rootdir, where pytest.ini is (set by conftest.pytest_configure)


# ----- the seeds' corpora (and BERT's special tokens, from the core) ---------------------------

TOY = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}

COURSE = [
    "This is the Hugging Face Course.",
    "This chapter is about tokenization.",
    "This section shows several tokenizer algorithms.",
    "Hopefully, you will be able to understand how they are trained and generate tokens.",
]


# ----- short ways to train: each builds a TrainerConfig and calls the one way in, `wordpiece_core.train`

WordCounts = Mapping[str, int] | Iterable[tuple[str, int]]


def train_wordpiece(word_counts: WordCounts, vocab_size: int, *, special_tokens: Iterable[str] = (),
                    min_frequency: int = 0, tie_break: TieBreak = "first", min_score: Fraction | float | None = None,
                    prefix: str = "##", top_k: int = 10) -> Training:
    return train(word_counts, TrainerConfig(
        algorithm="wordpiece", vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=tuple(special_tokens),
        tie_break=tie_break, prefix=prefix, min_score=None if min_score is None else Fraction(min_score), top_k=top_k))


def train_bpe(word_counts: WordCounts, vocab_size: int, *, special_tokens: Iterable[str] = (), min_frequency: int = 0,
              tie_break: TieBreak = "first", prefix: str | None = None, top_k: int = 10,
              full_byte_alphabet: bool = False) -> Training:
    return train(word_counts, TrainerConfig(
        algorithm="bpe", vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=tuple(special_tokens),
        tie_break=tie_break, prefix=prefix, top_k=top_k, full_byte_alphabet=full_byte_alphabet))


# ----- the command line, in a child process ------------------------------------------------------


def cli_env() -> dict[str, str]:
    """The environment of a child `python -m wordpiece_core`: this checkout's packages first."""
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def run_cli(*args: str, cwd=None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """`python -m wordpiece_core ARGS`, its output captured as text."""
    return subprocess.run([sys.executable, "-m", "wordpiece_core", *args], input=stdin, capture_output=True,
                          text=True, cwd=cwd, env=cli_env())


# ----- the app in AppTest --------------------------------------------------------------------------


def scan_installed_components_once() -> None:
    """Each new AppTest scans the metadata of every installed distribution for Streamlit components (about
    0.15 s of CPU here, a third of a small page's test, spent again by every test). The installed packages do
    not change while the tests run, so the first scan's answer is kept for the rest of the process."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # a Streamlit without v2 components: nothing is scanned
        return
    scan = manifest_scanner.scan_component_manifests
    if not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.lru_cache(maxsize=None)(scan)


def app(page: str | None = None, **params):
    """Open the app the way a shared link does: app.py with `params` in the URL, its first run already on
    `page` (a path such as "pages/compare.py"; by default the Train page). A run that raised fails the test."""
    from streamlit.testing.v1 import AppTest

    scan_installed_components_once()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    for k, v in params.items():
        at.query_params[k] = str(v)
    (at.switch_page(page) if page else at).run()
    assert not at.exception, at.exception
    return at


_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_CODE_SPAN = re.compile(r"(`+) ?(.*?) ?\1")


def shown(markdown: str) -> str:
    """What a reader sees of a Markdown string that the app escaped (wordpiece_ui/safe.py).

    AppTest returns Markdown sources; `shown` removes the backslash escapes, code-span
    fences and the invisible word joiners that keep GitHub's autolinks away, so tests can
    compare with the text on screen."""
    text = _CODE_SPAN.sub(lambda m: "\x00" + m.group(2).replace("\\", "\x01") + "\x00", markdown)
    return _ESCAPE.sub(r"\1", text).replace("\x01", "\\").replace("\x00", "").replace("\u2060", "")


def markdown(at) -> str:
    """The page's Markdown, as shown."""
    return shown("\n".join(m.value for m in at.markdown))


def metrics(at) -> dict:
    """The page's metrics, label → value."""
    return {m.label: m.value for m in at.metric}


def everything(at) -> str:
    """All the text a page shows: Markdown, headings, captions, alerts, code, labels, table columns."""
    parts = []
    for kind in ("markdown", "header", "subheader", "title", "caption", "warning", "success", "info", "error", "code"):
        parts += [e.value for e in getattr(at, kind)]
    parts += [e.label for e in at.expander] + [e.label for e in at.button] + [e.label for e in at.toggle]
    parts += [" ".join(map(str, d.value.columns)) for d in at.dataframe]
    parts += [e.label + " " + " ".join(map(str, e.options)) for e in at.selectbox]
    return shown("\n".join(parts)).replace("**", "")


# ----- property tests: a few examples in the fast suite, all of them under the slow marker ----------


def examples(full: int, fast: int):
    """Run a property test twice: with `fast` examples in the fast suite, and with `full` in a case marked
    slow. The test takes `max_examples`, builds its @given function inside with
    `settings(max_examples=max_examples)` and calls it (a function can take settings only once)."""
    import pytest

    return pytest.mark.parametrize("max_examples", [
        pytest.param(fast, id=f"{fast} examples"),
        pytest.param(full, id=f"{full} examples", marks=pytest.mark.slow)])


# ----- malformed tokenizer files: one sentence naming the problem, never a traceback ---------------

WP = tokenizer_json(train_wordpiece(TOY, 30, special_tokens=("[UNK]", "[CLS]", "[SEP]")), "bert", "bert")
BPE = tokenizer_json(train_bpe(TOY, 30, special_tokens=("[UNK]",)), "none", "whitespace")


def changed(doc, path, value):
    doc = copy.deepcopy(doc)
    *parents, last = path
    target = doc
    for key in parents:
        target = target[key]
    target[last] = value
    return json.dumps(doc)


def nested(depth):
    return '{"model": ' * depth + "{}" + "}" * depth


# (file text, words the message must contain)
CASES = {
    "added_tokens holding ints": (changed(WP, ["added_tokens"], [1, 2]), "added_tokens[0] should be an object"),
    "added token without content": (changed(WP, ["added_tokens"], [{"id": 1}]), "added_tokens[0].content"),
    "max_input_chars_per_word a string": (changed(WP, ["model", "max_input_chars_per_word"], "100"),
                                          "model.max_input_chars_per_word should be a whole number"),
    "normalizer a string": (changed(WP, ["normalizer"], "lowercase"), "normalizer should be an object"),
    "BertProcessing without sep": (changed(WP, ["post_processor"], {"type": "BertProcessing", "cls": ["[CLS]", 1]}),
                                   "post_processor.sep should be a [token, id] pair"),
    "BertProcessing without cls": (changed(WP, ["post_processor"], {"type": "BertProcessing", "sep": ["[SEP]", 2]}),
                                   "post_processor.cls"),
    "100,000 levels of nesting": (nested(100_000), "nested too deeply"),
    "vocab a list": (changed(WP, ["model", "vocab"], ["a", "b"]), "model.vocab should be an object"),
    "vocab id a string": (changed(WP, ["model", "vocab"], {"a": "0"}), "model.vocab['a'] should be a whole number"),
    "merges of three": (changed(BPE, ["model", "merges"], [["a", "b", "c"]]), "model.merges[0] should be a pair"),
    "merges a number": (changed(BPE, ["model", "merges"], 5), "model.merges should be a list"),
    "unk_token a number": (changed(WP, ["model", "unk_token"], 3), "model.unk_token should be a text"),
    "pre_tokenizer a list": (changed(WP, ["pre_tokenizer"], []), "pre_tokenizer should be an object"),
    "lowercase a string": (changed(WP, ["normalizer", "lowercase"], "yes"), "normalizer.lowercase should be true or false"),
    "template item a string": (changed(WP, ["post_processor", "single"], ["[CLS]"]), "post_processor.single[0]"),
    "decoder a number": (changed(WP, ["decoder"], 7), "decoder should be an object"),
    "model a string": (changed(WP, ["model"], "WordPiece"), "model should be an object"),
    "top level a list": ("[1, 2]", "neither a tokenizer.json nor a vocab.json"),
}


# ----- what the cyclic garbage collector walks to reach everything an object holds -----------------


def tracked_reachable(root) -> int:
    """How many GC-tracked objects are reachable from `root` (classes, and what they lead to, left out)."""
    seen, todo = set(), [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or not gc.is_tracked(obj) or isinstance(obj, type):
            continue
        seen.add(id(obj))
        todo.extend(gc.get_referents(obj))
    return len(seen)


# ----- a clock for the stores' expiry, moved by hand ------------------------------------------------


class Clock:
    """The store's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def html_table_rows(markup: str) -> list[list[list[str]]]:
    """Every table of an HTML text: its rows, each a list of its cells' text (unescaped)."""
    from html.parser import HTMLParser

    class Reader(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tables: list[list[list[str]]] = []
            self.in_cell = False

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.tables.append([])
            elif tag == "tr":
                self.tables[-1].append([])
            elif tag in ("td", "th"):
                self.tables[-1][-1].append("")
                self.in_cell = True

        def handle_endtag(self, tag):
            if tag in ("td", "th"):
                self.in_cell = False

        def handle_data(self, data):
            if self.in_cell:
                self.tables[-1][-1][-1] += data

    reader = Reader()
    reader.feed(markup)
    return reader.tables


def html_tables(markup: str) -> list:
    """The tables of an HTML text (html_table's) as DataFrames: each cell's text, a column of numbers as numbers
    (thousands separators dropped; an empty cell missing)."""
    import pandas as pd

    frames = []
    for head, *rows in html_table_rows(markup):
        frame = pd.DataFrame(rows, columns=head)
        for column in frame.columns:
            numbers = pd.to_numeric(frame[column].str.replace(",", "").replace("", None), errors="coerce")
            if numbers.notna().sum() == (frame[column] != "").sum() > 0:
                frame[column] = numbers
        frames.append(frame)
    return frames
