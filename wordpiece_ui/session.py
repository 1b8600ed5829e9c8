"""The Streamlit side of the glue: shared sidebar, URL state, and cached loaders.

- The sidebar's widgets live in app.py's run, so their values survive moving
  between pages. On a session's first run they are filled from the URL.
- Corpora are cached with `st.cache_data` (keyed on the bytes and text settings).
- Trainings are kept in a store made by `st.cache_resource`, keyed on the corpus digest
  and the trainer settings: a `Training` is immutable, and unpickling an 8,000-merge
  trace on every rerun (what `st.cache_data` does) costs over a second; sharing it costs
  nothing. The store is ours, not a cached function, so the progress bar shows live.
- Derived tables are cached with `st.cache_data` under the same key.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from wordpiece_core.corpus import TextSettings
from wordpiece_core.errors import WordPieceError
from wordpiece_core.merging import train
from wordpiece_core.normalizers import NORMALIZERS
from wordpiece_core.pre_tokenizers import PRE_TOKENIZERS
from wordpiece_core.replay import candidates_at
from wordpiece_core.trace import TrainerConfig, Training

from . import charts, tables
from .corpora import (MAX_PASTE_CHARS, MAX_UPLOAD_MB, WordCounts, load_paste, load_sample, load_upload,
                      sample_by_id, samples)
from .settings import (ALGORITHMS, MAX_MIN_FREQUENCY, MAX_VOCAB, SPECIALS, SPECIALS_LABELS, TIE_BREAKS, Settings,
                       defaults_for, from_query)

TOP_K = 25  # candidates recorded per step
FULL_TABLE_WORDS = 3_000  # below this many distinct words the full candidate table is always shown
FIELDS = ("corpus", "algorithm", "vocab_size", "normalizer", "pre_tokenizer", "tie_break", "min_frequency", "specials")
ALGORITHM_LABELS = {"wordpiece": "WordPiece", "bpe": "BPE"}
CUSTOM_LABELS = {"paste": "Paste your own text…", "upload": "Upload a file (.txt or .tsv)…"}


def require_navigation() -> None:
    """Make sure app.py's st.navigation runs this session's pages.

    A fresh server decides, before any script has called st.navigation, that an app with
    a `pages/` folder uses the old pages-directory mode; the first visitor of a shared
    link such as /compare would then get pages/compare.py alone, without app.py's
    sidebar. st.navigation switches the mode off, but only once it has run. Called first
    by every page: run directly in the old mode, it switches the mode off and reruns, and
    the rerun goes through app.py to the page the URL names. (app.py itself needs no
    guard: run in the old mode it calls st.navigation, which switches the mode off and
    runs the page, and a rerun there would hold back the first visit's progress bar.)
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def _key(field: str) -> str:
    return f"s_{field}"


def init_from_url() -> None:
    """On a session's first run, take the settings (and step) from the URL."""
    if st.session_state.get("_url_loaded"):
        return
    params = {k: st.query_params.get(k) for k in st.query_params.keys()}
    settings, step, problems = from_query(params)
    for field in FIELDS:
        st.session_state[_key(field)] = getattr(settings, field)
    st.session_state["step_value"] = step if step is not None else 1
    st.session_state["url_problems"] = problems
    st.session_state["_url_loaded"] = True


def _apply_corpus_defaults() -> None:
    d = defaults_for(st.session_state[_key("corpus")])
    for field in ("vocab_size", "normalizer", "pre_tokenizer", "min_frequency", "specials"):
        st.session_state[_key(field)] = getattr(d, field)
    st.session_state["step_value"] = 1
    for key in ("heldout", "keep_heldout", "follow", "keep_follow"):
        st.session_state.pop(key, None)


def _reset_step() -> None:
    st.session_state["step_value"] = 1


def sidebar() -> Settings:
    """Draw the shared controls and return the settings they hold."""
    init_from_url()
    ids = [s.id for s in samples()] + list(CUSTOM_LABELS)
    titles = {s.id: s.title for s in samples()} | CUSTOM_LABELS
    sb = st.sidebar
    sb.selectbox("Corpus", ids, format_func=lambda i: titles[i], key=_key("corpus"), on_change=_apply_corpus_defaults)
    corpus = st.session_state[_key("corpus")]
    sample = sample_by_id(corpus)
    if sample is not None:
        sb.caption(sample.description)
    elif corpus == "paste":
        sb.text_area(
            f"Your text (up to {MAX_PASTE_CHARS:,} characters; one document per line)",
            key="paste_text", height=160, max_chars=MAX_PASTE_CHARS,
            placeholder="Paste some text, then press Ctrl+Enter or click outside the box.",
        )
    else:
        sb.file_uploader(
            f"A .txt file (UTF-8 text) or a .tsv of word<TAB>count lines, up to {MAX_UPLOAD_MB} MB",
            type=["txt", "tsv"], key="upload_file",
        )
    sb.radio("Algorithm", ALGORITHMS, format_func=ALGORITHM_LABELS.get, key=_key("algorithm"), horizontal=True)
    sb.number_input("Vocabulary size", 1, MAX_VOCAB, step=10, key=_key("vocab_size"), on_change=_reset_step,
                    help=f"Training stops here, or earlier when no pair is left (1 to {MAX_VOCAB:,}).")
    is_tsv = sample is not None and sample.is_word_counts or (
        corpus == "upload" and getattr(st.session_state.get("upload_file"), "name", "").lower().endswith(".tsv"))
    text_help = "Word-count files are used as they are: no normalizer or pre-tokenizer." if is_tsv else None
    sb.selectbox("Normalizer", NORMALIZERS, key=_key("normalizer"), disabled=is_tsv, help=text_help or
                 "none; lowercase; bert = clean, CJK spacing, strip accents and lowercase; bert-cased = the same without lowercasing.")
    sb.selectbox("Pre-tokenizer", PRE_TOKENIZERS, key=_key("pre_tokenizer"), disabled=is_tsv, help=text_help or
                 "How text is cut into words before training (Hugging Face's Whitespace, WhitespaceSplit, BertPreTokenizer, ByteLevel).")
    sb.radio("Tie-break", TIE_BREAKS, key=_key("tie_break"), horizontal=True,
             format_func={"first": "first seen (course)", "hf": "smallest ids (HF)"}.get,
             help="Which pair wins when several share the best score.")
    sb.number_input("Min pair frequency", 0, MAX_MIN_FREQUENCY, step=1, key=_key("min_frequency"),
                    help="Pairs seen fewer times are never merged (0 = no limit).")
    sb.selectbox("Special tokens", list(SPECIALS), format_func=SPECIALS_LABELS.get, key=_key("specials"),
                 help="Put at the start of the vocabulary; they count towards its size.")
    for problem in st.session_state.get("url_problems", []):
        sb.warning(f"Link: {problem}")
    return Settings(**{f: st.session_state[_key(f)] for f in FIELDS})


def keep(key: str, default: object, kind: type = str) -> None:
    """Prepare a page widget's state: from the URL on the session's first visit, then
    remembered across page switches (Streamlit forgets widgets that are not drawn).
    Pass `on_change=remember, args=(key,)` to the widget."""
    store = "keep_" + key
    if store not in st.session_state:
        raw = st.query_params.get(key) if not st.session_state.get(f"_url_used_{key}") else None
        st.session_state[f"_url_used_{key}"] = True
        if raw is None:
            value = default
        elif kind is bool:
            value = raw not in ("0", "false", "no", "")
        else:
            value = raw
        st.session_state[store] = value
    if key not in st.session_state:
        st.session_state[key] = st.session_state[store]


def remember(key: str) -> None:
    st.session_state["keep_" + key] = st.session_state[key]


def page_url(settings: Settings, page: str = "", **extra: object) -> str:
    base = st.context.url or "http://localhost:8501/"
    base = base.rstrip("/")
    root = base.rsplit("/", 1)[0] if base.endswith(("/compare", "/playground", "/corpora")) else base
    params = settings.to_query() | {k: str(v) for k, v in extra.items() if v is not None}
    return f"{root}/{page}?{urlencode(params)}"


def sync_url(settings: Settings, **extra: object) -> None:
    """Make the address bar describe the current view (the shareable link)."""
    params = settings.to_query() | {k: str(v) for k, v in extra.items() if v is not None}
    current = {k: st.query_params.get(k) for k in st.query_params.keys()}
    if current != params:
        st.query_params.from_dict(params)


def share_box(settings: Settings, page: str = "", **extra: object) -> None:
    with st.expander("Share this view: copy a link that opens exactly this", icon=":material/link:"):
        if settings.corpus in CUSTOM_LABELS:
            st.caption("Your own corpus is not part of the link: whoever opens it sees the corpus choice, not your text.")
        st.caption("The link opens this page with these settings (copy it with the button at its right).")
        st.code(page_url(settings, page, **extra), language=None)


# ---------------------------------------------------------------- corpora


@st.cache_data(show_spinner="Reading the corpus…", max_entries=32)
def _sample_counts(corpus_id: str, normalizer: str, pre_tokenizer: str) -> WordCounts:
    return load_sample(corpus_id, TextSettings(normalizer, pre_tokenizer))


@st.cache_data(show_spinner="Reading your text…", max_entries=8)
def _paste_counts(text: str, normalizer: str, pre_tokenizer: str) -> WordCounts:
    return load_paste(text, TextSettings(normalizer, pre_tokenizer))


@st.cache_data(show_spinner="Reading your file…", max_entries=8)
def _upload_counts(name: str, data: bytes, normalizer: str, pre_tokenizer: str) -> WordCounts:
    return load_upload(name, data, TextSettings(normalizer, pre_tokenizer))


def corpus(settings: Settings) -> WordCounts | None:
    """The chosen corpus' word counts, or None after showing why there are none."""
    try:
        if settings.corpus == "paste":
            text = st.session_state.get("paste_text") or ""
            if not text.strip():
                st.info("Paste some text into the box in the sidebar to train on it.")
                return None
            return _paste_counts(text, settings.normalizer, settings.pre_tokenizer)
        if settings.corpus == "upload":
            file = st.session_state.get("upload_file")
            if file is None:
                st.info(f"Choose a .txt or .tsv file in the sidebar (up to {MAX_UPLOAD_MB} MB).")
                return None
            return _upload_counts(file.name, file.getvalue(), settings.normalizer, settings.pre_tokenizer)
        return _sample_counts(settings.corpus, settings.normalizer, settings.pre_tokenizer)
    except WordPieceError as exc:
        st.error(f"Cannot use this corpus: {exc}")
        return None
    except MemoryError:
        st.error("This corpus is too large to count in memory here; try a smaller sample.")
        return None


# ---------------------------------------------------------------- training


def config_for(settings: Settings, algorithm: str | None = None, prefix: str | None = None) -> TrainerConfig:
    algorithm = algorithm or settings.algorithm
    return TrainerConfig(
        algorithm=algorithm,  # type: ignore[arg-type]
        vocab_size=settings.vocab_size,
        min_frequency=settings.min_frequency,
        special_tokens=settings.special_tokens,
        tie_break=settings.tie_break,  # type: ignore[arg-type]
        prefix="##" if algorithm == "wordpiece" else prefix,
        top_k=TOP_K,
        full_byte_alphabet=False,
    )


TRAININGS_KEPT = 8  # a large training holds tens of MB; the Compare page uses two or three at once


@st.cache_resource(show_spinner=False)
def _training_store() -> tuple[threading.Lock, OrderedDict]:
    """Trainings shared by every session: (corpus digest, trainer config) → Training, least recently used last out.

    A store of our own rather than a cached function, so that the progress bar can be drawn
    while training runs (elements drawn inside a cached function are recorded for replay and
    reach the browser only when it returns).
    """
    return threading.Lock(), OrderedDict()


def training(settings: Settings, counts: WordCounts, algorithm: str | None = None,
             prefix: str | None = None) -> Training | None:
    """The training for these settings: from the store, or trained now with a progress bar."""
    config = config_for(settings, algorithm, prefix)
    lock, store = _training_store()
    key = (counts.digest, config)
    with lock:
        if key in store:
            store.move_to_end(key)
            return store[key]
    name = ALGORITHM_LABELS[config.algorithm] + (" with ##" if config.algorithm == "bpe" and config.prefix else "")
    bar = st.progress(0.0, text=f"Training {name}…")
    shown = [-1]

    def progress(done: int, total: int) -> None:
        percent = int(100 * done / max(1, total))
        if percent != shown[0]:
            shown[0] = percent
            bar.progress(percent / 100, text=f"Training {name}: {done:,} of {total:,} merges")

    try:
        result = train(dict(counts.counts), config, progress)
    except WordPieceError as exc:
        st.error(f"Cannot train: {exc}")
        return None
    except MemoryError:
        st.error("Training ran out of memory; lower the vocabulary size or use a smaller corpus.")
        return None
    finally:
        bar.empty()
    with lock:
        store[key] = result
        while len(store) > TRAININGS_KEPT:
            store.popitem(last=False)
    return result


def training_key(counts: WordCounts, config: TrainerConfig) -> str:
    return f"{counts.digest}|{config}"


# Tables and charts derived from a training are shared like the training itself
# (never mutated by the pages), so a step change does not unpickle them again.


@st.cache_resource(show_spinner=False, max_entries=24)
def steps_table(key: str, _training: Training) -> pd.DataFrame:
    return tables.steps_frame(_training)


@st.cache_resource(show_spinner=False, max_entries=24)
def vocab_table(key: str, _training: Training) -> pd.DataFrame:
    return tables.vocab_frame(_training)


@st.cache_resource(show_spinner=False, max_entries=24)
def start_tokens_per_word(key: str, _training: Training) -> float:
    return tables.start_tokens_per_word(_training)


@st.cache_resource(show_spinner=False, max_entries=64)
def steps_chart(key: str, value: str, title: str, log: bool, start: float | None, _training: Training) -> dict:
    return charts.over_steps(steps_table(key, _training), value, title, log=log, start=start)


def chart(spec: dict | object) -> None:
    """Show an Altair chart (or its Vega-Lite dict) across the column."""
    st.vega_lite_chart(spec if isinstance(spec, dict) else charts.spec(spec), width="stretch")


@st.cache_data(show_spinner="Recounting every pair at this step…", max_entries=64)
def full_candidates(key: str, step: int, _training: Training) -> pd.DataFrame:
    return tables.candidates_frame(candidates_at(_training, step), _training.config.algorithm)


def candidates(key: str, training: Training, step: int, show_all: bool) -> tuple[pd.DataFrame, bool]:
    """The candidate table at `step`: all pairs when asked or cheap, else the recorded top ones."""
    if show_all or len(training.words) <= FULL_TABLE_WORDS:
        return full_candidates(key, step, training), True
    s = training.steps[step - 1]
    return tables.candidates_frame(s.candidates, training.config.algorithm), False


_FILES: dict[str, dict[str, str]] = {}
_FILES_LOCK = threading.Lock()


def download_file(key: str, training: Training, normalizer: str, pre_tokenizer: str, name: str) -> str:
    """One file of a training's download set, built on the first click (not on every rerun).

    The set is what the command line writes (tokenizer.json, vocab.txt, trace.jsonl, …),
    plus merges.txt for WordPiece (its merges in order) and the trace as CSV.
    Called by st.download_button outside the script run, so no Streamlit calls here.
    """
    from wordpiece_core.formats import output_files

    with _FILES_LOCK:
        files = _FILES.get(key)
        if files is None:
            files = output_files(training, normalizer, pre_tokenizer)
            files.setdefault("merges.txt", "".join(f"{a} {b}\n" for a, b in training.merges))
            files["trace.csv"] = tables.steps_frame(training).to_csv(index=False)
            if len(_FILES) >= 4:
                _FILES.pop(next(iter(_FILES)))
            _FILES[key] = files
    return files[name]


@st.cache_data(show_spinner=False)
def samples_table() -> pd.DataFrame:
    """One row per sample corpus: what it is, its size, and a link that opens it on the Train page."""
    rows = []
    for s in samples():
        counts = _sample_counts(s.id, s.normalizer, s.pre_tokenizer)
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


@st.cache_resource(show_spinner=False, max_entries=24)
def tokenizer(key: str, normalizer: str, pre_tokenizer: str, _training: Training):
    """The trained tokenizer (the one its tokenizer.json describes), ready to encode."""
    from wordpiece_core.formats import tokenizer_from_training

    tok = tokenizer_from_training(_training, normalizer, pre_tokenizer)
    tok.model.strict_unk = False  # a vocabulary without [UNK] still shows unknown words as [UNK]
    return tok


def trained_pair(settings: Settings, counts: WordCounts, hf_variant: bool = False) -> dict[str, tuple[str, Training]]:
    """Name → (cache key, training) for BPE and WordPiece (and BPE with ##) on the same settings."""
    out: dict[str, tuple[str, Training]] = {}
    wanted = [("BPE", "bpe", None), ("WordPiece", "wordpiece", "##")]
    if hf_variant:
        wanted.append(("HF WordPieceTrainer (BPE with ##)", "bpe", "##"))
    for name, algorithm, prefix in wanted:
        t = training(settings, counts, algorithm, prefix)
        if t is None:
            return {}
        out[name] = (training_key(counts, config_for(settings, algorithm, prefix)), t)
    return out


@st.cache_resource(show_spinner="Loading the tokenizer…", max_entries=4)
def uploaded_tokenizer(name: str, data: bytes):
    from .encodings import load_uploaded_tokenizer

    return load_uploaded_tokenizer(name, data)
