"""Tables, charts and tokenizers derived from a training, shared by every session of the server.

A teacher's server holds one copy of each corpus, training and derived table for
the whole class, in one least-recently-used store bounded in bytes (server.py,
stores.py; `WORDPIECE_LAB_CACHE_MB`, default 400). Values are shared, never copied or
unpickled per rerun, so the pages must not mutate them.

Each function takes a training's handle (trained_model.py) and stores what it makes
under the training's key; it fetches the training (`trained.loaded`) only to make
something, and keeps it no longer. Corpora and trainings themselves come from
corpus_loading.py and trained.py (without pandas or Altair, so app.py can start a page's
trainings before the page's imports). Downloads are built when clicked and not kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import altair as alt
import pandas as pd
import streamlit as st

from wordpiece_core import formats, shelf
from wordpiece_core.corpus import TextSettings
from wordpiece_core.errors import WordPieceError
from wordpiece_core.loading import tokenizer_from_training
from wordpiece_core.models import CACHE_BYTES, WordPieceModel
from wordpiece_core.pipeline import Tokenizer
from wordpiece_core.replay import candidates_at
from wordpiece_core.trace import Training

from . import charts, compare, corpus_loading, server, tables, trained, user_files
from .corpora import samples
from .datastore import StoredFile
from .encodings import file_kind, guess_uncased, load_uploaded_tokenizer
from .settings import Settings, defaults_for
from .trained_model import TrainedModel

FULL_TABLE_WORDS = 3_000  # below this many distinct words the full candidate table is always shown

# ---------------------------------------------------------------- derived from a training
# Shared like the training itself, under the training's key, in the same bounded store.


def _derived(kind: str, model: TrainedModel, *args: object, make: Callable[[], Any],
             size: Callable[[Any], int] | None = None) -> Any:
    """What `make` makes from a training, stored under (kind, the training's key, *args)."""
    return server.store().get_or_make((kind, model.key, *args), make, size)


def of_step(kind: str, model: TrainedModel, step: int, *args: object, make: Callable[[], Any]) -> Any:
    """What a step's view draws from the training alone (its corpus rows, notes, chart), made once for every
    student who steps through the same training: a step's run then mostly sends what was made."""
    return _derived(kind, model, step, *args, make=make)


def corpus_change(model: TrainedModel, step: int, limit: int) -> tuple[pd.DataFrame, int]:
    """tables.corpus_change of a step, kept."""
    return of_step("corpus change", model, step, limit, make=lambda: tables.corpus_change(trained.loaded(model), step, limit))


def steps_table(model: TrainedModel) -> pd.DataFrame:
    return _derived("steps", model, make=lambda: tables.steps_frame(trained.loaded(model)))


def vocab_table(model: TrainedModel) -> pd.DataFrame:
    return _derived("vocab", model, make=lambda: tables.vocab_frame(trained.loaded(model)))


def token_steps(model: TrainedModel) -> dict[str, int]:
    return _derived("token steps", model, make=lambda: tables.token_steps(trained.loaded(model)))


def fertility_example(bpe: TrainedModel, wordpiece: TrainedModel) -> str | None:
    """The Compare page's explanation of fertility, from BPE's and WordPiece's trainings (kept per pair)."""
    return _derived("fertility", bpe, wordpiece.key,
                    make=lambda: compare.fertility_example(trained.loaded(bpe), trained.loaded(wordpiece)))


def start_tokens_per_word(model: TrainedModel) -> float:
    return _derived("start", model, make=lambda: tables.start_tokens_per_word(trained.loaded(model)))


def steps_chart(model: TrainedModel, value: str, title: str, log: bool, start: float | None) -> dict:
    return _derived("chart", model, value, title, log, start,
                    make=lambda: charts.over_steps(steps_table(model), value, title, log=log, start=start))


def chart(spec: dict | alt.TopLevelMixin) -> None:
    """Show an Altair chart (or its Vega-Lite dict) across the column."""
    st.vega_lite_chart(spec=spec if isinstance(spec, dict) else charts.spec(spec), width="stretch")


def full_candidates(model: TrainedModel, step: int) -> pd.DataFrame:
    """Every pair's counts and score at `step`, recounted (under a spinner the first time)."""
    store, key = server.store(), ("replay", model.key, step)
    hit = store.get(key)
    if hit is not None:
        return hit
    training = trained.loaded(model)
    with st.spinner("Recounting every pair at this step…"):
        return store.get_or_make(key, lambda: tables.candidates_frame(
            candidates_at(training, step), training.config.algorithm))


def candidates(model: TrainedModel, step: int, show_all: bool) -> tuple[pd.DataFrame, bool]:
    """The candidate table at `step`: all pairs when asked or cheap, else the recorded top ones."""
    if show_all or model.corpus.types <= FULL_TABLE_WORDS:
        return full_candidates(model, step), True
    return _derived("top", model, step, make=lambda: tables.candidates_frame(
        trained.loaded(model).steps.candidates(step - 1), model.config.algorithm)), False


def when_clicked(model: TrainedModel, make: Callable[..., str], *args: Any) -> str:
    """`make(training, *args)` for a deferred download button: the button keeps the handle, not the training
    (Streamlit keeps a button's callable for as long as its session), which is fetched when it is clicked."""
    return make(trained.training_now(model), *args)


def download_file(training: Training, settings: Settings, name: str) -> str:
    """One file of a training's download set, built when its button is clicked and not kept.

    The set is what the command line writes (tokenizer.json, vocab.txt, trace.jsonl, …),
    plus merges.txt for WordPiece (its merges in order) and the trace as CSV.
    Called by st.download_button outside the script run, so no Streamlit calls here.
    """
    if name == "trace.csv":
        return tables.steps_frame(training, shorten=False).to_csv(index=False)
    if name == "merges.txt":
        return formats.merges_txt(training)
    if name == "trace.jsonl":
        return formats.trace_jsonl(training)
    if name == "vocab.txt":
        return formats.vocab_txt(training)
    if name == "tokenizer.json":
        return formats.pretty_json(formats.tokenizer_json(training, settings.normalizer, settings.pre_tokenizer,
                                                          settings.add_prefix_space))
    raise ValueError(f"no download named {name!r}")


# ---------------------------------------------------------------- other pages


def samples_table() -> pd.DataFrame:
    """One row per sample corpus: what it is, its size, and a link that opens it on the Train page."""
    def make() -> pd.DataFrame:
        rows = []
        for s in samples():
            counts = corpus_loading.sample_counts(s.id, TextSettings(s.normalizer, s.pre_tokenizer))
            rows.append({
                "corpus": s.title,
                "id": s.id,
                "description": s.description,
                "distinct words": counts.types,
                "words": counts.tokens,
                "suggested vocabulary": s.vocab_size,
                "open": "./?" + urlencode(defaults_for(s.id).to_query()),
            })
        return pd.DataFrame(rows)

    return server.store().get_or_make(("samples table",), make)


def tokenizer(model: TrainedModel) -> Tokenizer:
    """The trained tokenizer (the one its tokenizer.json describes), ready to encode."""
    settings = model.settings
    text = (settings.normalizer, settings.pre_tokenizer, settings.add_prefix_space)

    def make() -> Tokenizer:
        tok = tokenizer_from_training(trained.loaded_any(model), *text)
        if isinstance(tok.model, WordPieceModel):  # the only model that refuses a vocabulary without its [UNK]
            tok.model.strict_unk = False  # a vocabulary without [UNK] still shows unknown words as [UNK]
        return tok

    return _derived("tokenizer", model, *text, make=make, size=_tokenizer_size)


MERGE_BYTES = 400  # a BPE merge: its pair in the list, its rank and its joined token (dicts and tuples)


def _tokenizer_size(tok: Tokenizer) -> int:
    """A tokenizer's vocabulary, merges and (full) cache of encoded words, about; and a WordPiece model's
    LinMaxMatch tries, when it needs them (models.WordPieceModel.index_bytes)."""
    return 150 * len(tok.vocab) + MERGE_BYTES * len(getattr(tok.model, "merges", ())) + CACHE_BYTES + tok.model.index_bytes


@dataclass(frozen=True)
class _Refused:
    """A tokenizer file that failed to load, kept so that each rerun of a page says so again at once (a refused
    33 MB file took seconds each time)."""

    message: str


def _loaded(key: tuple, load: Callable[[], Tokenizer]) -> Tokenizer:
    """`load()`'s tokenizer from the server's store, or its refusal (raised again from the store)."""
    def make() -> Tokenizer | _Refused:
        try:
            return load()
        except WordPieceError as error:
            return _Refused(str(error))

    found = server.store().get_or_make(key, make, size=lambda v: 1_000 if isinstance(v, _Refused) else
                                       _tokenizer_size(v))
    if isinstance(found, _Refused):
        raise WordPieceError(found.message)
    return found


def shelf_tokenizer(name: str) -> Tokenizer:
    """A tokenizer of the shelf, built once for the server (o200k_base: about 1.5 s)."""
    return _loaded(("shelf", name), lambda: shelf.load(name))


def uploaded_file_kind(own: StoredFile) -> str:
    """What an uploaded tokenizer file is (read once per file, not at every rerun of the playground)."""
    return server.store().get_or_make(("file kind", own.name, own.digest), lambda: file_kind(own.name, user_files.read(own)))


def uploaded_looks_uncased(own: StoredFile) -> tuple[bool, str]:
    """Whether an uploaded vocab.txt looks uncased, and why (read once per file)."""
    return server.store().get_or_make(("uncased", own.name, own.digest), lambda: guess_uncased(own.name, user_files.read(own)))


def uploaded_tokenizer(own: StoredFile, lowercase: bool | None = None) -> Tokenizer:
    """An uploaded tokenizer file's tokenizer (or its refusal), read once per file and setting."""
    return _loaded(("uploaded tokenizer", own.name, own.digest, lowercase),
                   lambda: load_uploaded_tokenizer(own.name, user_files.read(own), lowercase))
