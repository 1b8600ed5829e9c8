"""The sidebar's corpus as word counts, counted once for every session of the server (no pandas or Altair).

A sample corpus, a pasted text or an uploaded file is counted once per server, under a key
of its content and text settings, and kept in the server's store (server.py). What cannot
be counted is said on the page, in words.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable

import streamlit as st

from wordpiece_core.corpus import TextSettings
from wordpiece_core.errors import WordPieceError

from . import safe, server, state
from .corpora import MAX_UPLOAD_MB, WordCounts, load_paste, load_sample, load_upload
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
        if settings.corpus == "paste":
            pasted = st.session_state.get(state.PASTE_TEXT) or ""
            if not pasted.strip():
                st.info("Paste some text into the box in the sidebar to train on it.")
                return None
            digest = hashlib.sha256(pasted.encode("utf-8", "surrogatepass")).hexdigest()
            return _counts(("paste", digest, text), lambda: load_paste(pasted, text), "Reading your text…")
        if settings.corpus == "upload":
            file = st.session_state.get(state.UPLOAD_FILE)
            if file is None:
                st.info(f"Choose a .txt or .tsv file in the sidebar (up to {MAX_UPLOAD_MB} MB).")
                return None
            data = file.getvalue()
            digest = hashlib.sha256(data).hexdigest()
            counts = _counts(("upload", file.name, digest, text), lambda: load_upload(file.name, data, text),
                             "Reading your file…")
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
