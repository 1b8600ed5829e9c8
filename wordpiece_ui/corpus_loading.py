"""The sidebar's corpus as word counts, counted once for every session of the server (no pandas or Altair).

A sample corpus, a pasted text or an uploaded file is counted once per server, under a key
of its content and text settings, and kept in the server's store (server.py). A pasted or
uploaded one is counted in a worker process, from the data store (user_files.py, counting.py),
so that the server's other sessions are not held up. What cannot be counted is said on the page,
in words.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import streamlit as st

from wordpiece_core.corpus import TextSettings
from wordpiece_core.errors import WordPieceError

from . import safe, server, user_files
from .corpora import CUSTOM_IDS, MAX_UPLOAD_MB, WordCounts, load_sample
from .settings import Settings


def text_settings(settings: Settings) -> TextSettings:
    return TextSettings(settings.normalizer, settings.pre_tokenizer, settings.add_prefix_space)


def _sample(corpus_id: str, text: TextSettings) -> tuple[Hashable, Callable[[], WordCounts]]:
    """A sample corpus' key in the store, and how to count it."""
    return ("sample", corpus_id, text), lambda: load_sample(corpus_id, text)


def sample_counts(corpus_id: str, text: TextSettings) -> WordCounts:
    """A sample corpus' word counts, counted on first use; drawing nothing (errors are raised)."""
    return server.store().get_or_make(*_sample(corpus_id, text))


def _counts(key: Hashable, make: Callable[[], WordCounts], message: str) -> WordCounts:
    """The counts stored under `key`, or made now under a spinner saying `message`."""
    store = server.store()
    hit = store.get(key)
    if hit is not None:
        return hit
    with st.spinner(message):
        return store.get_or_make(key, make)


def word_counts(settings: Settings) -> WordCounts | None:
    """The chosen corpus' word counts, or None after showing why there are none."""
    text = text_settings(settings)
    try:
        if settings.corpus in CUSTOM_IDS:
            own = user_files.current(settings.corpus)
            if own is None:
                st.info(user_files.gone_line(settings.corpus) or (
                    "Paste some text into the box in the sidebar to train on it." if settings.corpus == "paste" else
                    f"Choose a .txt or .tsv file in the sidebar (up to {MAX_UPLOAD_MB} MB)."))
                return None
            counts = _counts(("own", own.digest, own.kind, own.name, text), lambda: user_files.count(own, text),
                             "Reading your text…" if own.kind == "paste" else "Reading your file…")
            if counts.note:
                st.sidebar.info(safe.md(counts.note) + ".")
            return counts
        return _counts(*_sample(settings.corpus, text), "Reading the corpus…")
    except WordPieceError as exc:
        st.error(f"Cannot use this corpus: {safe.md(exc)}")
        return None
    except MemoryError:
        st.error("This corpus is too large to count in memory here; try a smaller sample.")
        return None
