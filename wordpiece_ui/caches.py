"""What every session of the server shares: corpora, trainings, tables, charts; bounded in MB.

A teacher's server holds one copy of each corpus, training and derived table for
the whole class, in one least-recently-used store bounded in bytes (stores.py;
`WORDPIECE_LAB_CACHE_MB`, default 400). Values are shared, never copied or
unpickled per rerun, so the pages must not mutate them.

Trainings go through the training service (jobs.py): one per key however many
sessions ask, in a worker process when large, cancelled when every session
waiting for it has left. A session waiting for one draws the job's progress bar.
Downloads are built when clicked and not kept.
"""

from __future__ import annotations

import hashlib
from urllib.parse import urlencode

import altair as alt
import pandas as pd
import streamlit as st

from wordpiece_core.corpus import TextSettings
from wordpiece_core.errors import WordPieceError
from wordpiece_core.models import CACHE_WORDS as CACHED_WORDS
from wordpiece_core.replay import candidates_at
from wordpiece_core.trace import Algorithm, TrainerConfig, Training

from . import charts, compare, safe, state, tables
from .corpora import MAX_UPLOAD_MB, WordCounts, load_paste, load_sample, load_upload, samples
from .jobs import Job, TrainingService, estimated_bytes
from .settings import MAX_VOCAB, Settings, defaults_for
from .stores import BudgetStore, budget_from_env

TOP_K = 25  # candidates recorded per step
FULL_TABLE_WORDS = 3_000  # below this many distinct words the full candidate table is always shown


@st.cache_resource(show_spinner=False)
def shared() -> tuple[BudgetStore, TrainingService]:
    """The server's one store and training service (made on the first visit)."""
    store = BudgetStore(budget_from_env())
    return store, TrainingService(store)


def _store() -> BudgetStore:
    return shared()[0]


# ---------------------------------------------------------------- corpora


def _counts(key: tuple, make, message: str) -> WordCounts:
    store = _store()
    hit = store.get(key)
    if hit is not None:
        return hit
    with st.spinner(message):
        return store.get_or_make(key, make)


def corpus(settings: Settings) -> WordCounts | None:
    """The chosen corpus' word counts, or None after showing why there are none."""
    text_settings = TextSettings(settings.normalizer, settings.pre_tokenizer, settings.add_prefix_space)
    try:
        if settings.corpus == "paste":
            text = st.session_state.get(state.PASTE_TEXT) or ""
            if not text.strip():
                st.info("Paste some text into the box in the sidebar to train on it.")
                return None
            digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
            return _counts(("paste", digest, text_settings), lambda: load_paste(text, text_settings),
                           "Reading your text…")
        if settings.corpus == "upload":
            file = st.session_state.get(state.UPLOAD_FILE)
            if file is None:
                st.info(f"Choose a .txt or .tsv file in the sidebar (up to {MAX_UPLOAD_MB} MB).")
                return None
            data = file.getvalue()
            digest = hashlib.sha256(data).hexdigest()
            counts = _counts(("upload", file.name, digest, text_settings), lambda: load_upload(file.name, data, text_settings),
                             "Reading your file…")
            if counts is not None and counts.note:
                st.sidebar.info(safe.md(counts.note) + ".")
            return counts
        return _counts(("sample", settings.corpus, text_settings), lambda: load_sample(settings.corpus, text_settings),
                       "Reading the corpus…")
    except WordPieceError as exc:
        st.error(f"Cannot use this corpus: {safe.md(exc)}")
        return None
    except MemoryError:
        st.error("This corpus is too large to count in memory here; try a smaller sample.")
        return None


# ---------------------------------------------------------------- training


def config_for(settings: Settings, algorithm: Algorithm | None = None, prefix: str | None = None) -> TrainerConfig:
    algorithm = algorithm or settings.algorithm
    return TrainerConfig(
        algorithm=algorithm,
        vocab_size=settings.vocab_size,
        min_frequency=settings.min_frequency,
        special_tokens=settings.special_tokens,
        tie_break=settings.tie_break,
        prefix="##" if algorithm == "wordpiece" else prefix,
        top_k=TOP_K,
        full_byte_alphabet=settings.byte_level and settings.byte_alphabet,
    )


def training_key(counts: WordCounts, config: TrainerConfig) -> str:
    return f"{counts.digest}|{config}"


def _label(config: TrainerConfig) -> str:
    return state.ALGORITHM_LABELS[config.algorithm] + (" with ##" if config.algorithm == "bpe" and config.prefix else "")


WAIT_SECONDS = 1.0  # a training that ends this soon is shown without a progress view
POLL_SECONDS = 0.5  # how often a waiting session's progress view polls its training


def _session_id() -> str:
    """This session's name for the training service (a waiting session polls under it)."""
    if state.SESSION_ID not in st.session_state:
        import uuid

        st.session_state[state.SESSION_ID] = uuid.uuid4().hex
    return st.session_state[state.SESSION_ID]


def training(settings: Settings, counts: WordCounts, algorithm: Algorithm | None = None,
             prefix: str | None = None) -> Training | None:
    """The training for these settings: from the store, or trained now (or joined) with a progress view.

    None means there is nothing to show yet (the progress view, a message or an error was
    drawn instead): the page should stop. When the training ends, the progress view
    reruns the page.
    """
    found = trainings({"": (algorithm or settings.algorithm, prefix)}, settings, counts)
    return found[""][1] if found else None


def trainings(wanted: dict[str, tuple[Algorithm, str | None]], settings: Settings,
              counts: WordCounts) -> dict[str, tuple[str, Training]]:
    """Name → (cache key, training) for each (algorithm, prefix) wanted, or {} when they are not all ready.

    Every training not in the store is queued at once (so the server goes from one to the
    next without waiting for this page), and one progress view follows them all; it reruns
    the page when the last has ended. {} means a progress view, a message or an error was
    drawn instead: the page should stop.
    """
    configs = {name: config_for(settings, algorithm, prefix) for name, (algorithm, prefix) in wanted.items()}
    keys = {name: training_key(counts, config) for name, config in configs.items()}
    stopped = st.session_state.setdefault(state.TRAINING_STOPPED, set())
    cancelled = [name for name, key in keys.items() if key in stopped and shared()[1].cached(key) is None]
    if cancelled:
        names = " and ".join(_label(configs[name]) for name in cancelled)
        told = (f"You stopped the {names} training before it finished, so it was cancelled (unless other sessions "
                "on this server were waiting for it too)." if len(cancelled) == 1 else
                f"You stopped the {names} trainings before they finished, so they were cancelled (unless other "
                "sessions on this server were waiting for them too).")
        st.info(told, icon=":material/stop_circle:")
        st.button("Train again", icon=":material/replay:", on_click=stopped.difference_update,
                  args=([keys[name] for name in cancelled],), key=f"again {keys[cancelled[0]]}")
        return {}
    ready: dict[str, tuple[str, Training | TrainerConfig]] = {}
    for name, config in configs.items():
        key = keys[name]
        found = _stored_or_trainable(key, config, counts)
        if found is None:
            return {}  # said why; nothing was started
        ready[name] = (key, found)
    service = shared()[1]
    words = dict(counts.counts) if any(isinstance(found, TrainerConfig) for _, found in ready.values()) else {}
    begun: dict[str, tuple[str, Training | Job]] = {
        name: (key, service.join(key, words, found, _session_id()) if isinstance(found, TrainerConfig) else found)
        for name, (key, found) in ready.items()
    }
    for key, started in begun.values():  # each may take WAIT_SECONDS (they run one after the other)
        if isinstance(started, Job) and not started.wait(WAIT_SECONDS):
            break  # still running: show the progress view now
    waiting = [(key, job) for key, job in begun.values() if isinstance(job, Job) and not job.finished.is_set()]
    if waiting:
        _progress_view([(key, _label(job.config)) for key, job in waiting])
        return {}
    out: dict[str, tuple[str, Training]] = {}
    for name, (key, started) in begun.items():
        if isinstance(started, Job):
            if started.result is None:
                st.error(f"Cannot train {_label(started.config)}: {safe.md(started.error)}")
                return {}
            out[name] = (key, started.result)
        else:
            out[name] = (key, started)
    return out


def _stored_or_trainable(key: str, config: TrainerConfig, counts: WordCounts) -> Training | TrainerConfig | None:
    """The stored training for `key`; else its config, when it may be trained; else None (a message was drawn)."""
    store, service = shared()
    done = service.cached(key)
    if done is not None:
        return done
    name = _label(config)
    failed = service.failure(key)
    if failed is not None:
        st.error(f"Cannot train {name}: {safe.md(failed)}")
        return None
    avg = max(1, sum(len(w) for w, _ in counts.counts[:1000]) // max(1, min(1000, counts.types)))
    need = estimated_bytes(counts.types, avg, config)
    if need > store.budget:
        st.error(f"This training would need about {need / 1e6:,.0f} MB, more than the server keeps for all its "
                 f"trainings ({store.budget / 1e6:,.0f} MB). Lower the vocabulary size (at most {MAX_VOCAB:,}) "
                 "or use a smaller corpus.")
        return None
    return config


def _stop(keys: list[str]) -> None:
    """This session stops waiting for these trainings (each is cancelled unless other sessions wait for it)."""
    service = shared()[1]
    for key in keys:
        job = service.job(key)
        if job is not None:
            service.leave(job, _session_id())
    st.session_state.setdefault(state.TRAINING_STOPPED, set()).update(keys)


def _progress_view(waiting: list[tuple[str, str]]) -> None:
    """The progress of each (key, name) training, polled every POLL_SECONDS; the page reruns when all have ended."""

    @st.fragment(run_every=POLL_SECONDS)
    def progress() -> None:
        service = shared()[1]
        stopped = st.session_state.get(state.TRAINING_STOPPED, ())
        jobs = [(key, name, service.job(key)) for key, name in waiting]
        if any(key in stopped for key, _, _ in jobs):
            st.rerun()  # this session pressed Stop: it waits no more (and says so)
        if all(job is None or job.finished.is_set() for _, _, job in jobs):
            st.rerun()  # the whole page, now with the trainings (or their errors)
        for key, name, job in jobs:
            if job is None or job.finished.is_set():
                text, fraction = f"Training {name}: done", 1.0
            else:
                service.touch(job, _session_id())
                fraction = job.fraction
                if job.state == "queued":
                    text = f"Training {name}: waiting for another training on this server to finish…"
                else:
                    text = f"Training {name}: {job.done_steps:,} of {job.total_steps:,} merges"
            st.progress(min(1.0, fraction), text=text)
        st.button("Stop", icon=":material/stop_circle:", on_click=_stop, args=([key for key, _ in waiting],),
                  key=f"stop {waiting[0][0]}",
                  help="Stop waiting; a training is cancelled unless other sessions wait for it too.")

    progress()


HF_VARIANT = "HF WordPieceTrainer (BPE with ##)"  # the Compare page's optional third column


def trained_pair(settings: Settings, counts: WordCounts, hf_variant: bool = False) -> dict[str, tuple[str, Training]]:
    """Name → (cache key, training) for BPE and WordPiece (and BPE with ##) on the same settings."""
    wanted: dict[str, tuple[Algorithm, str | None]] = {"BPE": ("bpe", None), "WordPiece": ("wordpiece", "##")}
    if hf_variant:
        wanted[HF_VARIANT] = ("bpe", "##")
    return trainings(wanted, settings, counts)


# ---------------------------------------------------------------- derived from a training
# Shared like the training itself, under the training's key, in the same bounded store.


def _derived(kind: str, key: str, *args, make):
    return _store().get_or_make((kind, key, *args), make)


def steps_table(key: str, training: Training) -> pd.DataFrame:
    return _derived("steps", key, make=lambda: tables.steps_frame(training))


def vocab_table(key: str, training: Training) -> pd.DataFrame:
    return _derived("vocab", key, make=lambda: tables.vocab_frame(training))


def token_steps(key: str, training: Training) -> dict[str, int]:
    return _derived("token steps", key, make=lambda: tables.token_steps(training))


def fertility_example(runs: dict[str, tuple[str, Training]]) -> str | None:
    """The Compare page's explanation of fertility, from BPE's and WordPiece's trainings (kept per pair)."""
    (bpe_key, bpe), (wp_key, wp) = runs["BPE"], runs["WordPiece"]
    return _derived("fertility", bpe_key, wp_key, make=lambda: compare.fertility_example(bpe, wp))


def start_tokens_per_word(key: str, training: Training) -> float:
    return _derived("start", key, make=lambda: tables.start_tokens_per_word(training))


def steps_chart(key: str, value: str, title: str, log: bool, start: float | None, training: Training) -> dict:
    return _derived("chart", key, value, title, log, start,
                    make=lambda: charts.over_steps(steps_table(key, training), value, title, log=log, start=start))


def chart(spec: dict | alt.TopLevelMixin) -> None:
    """Show an Altair chart (or its Vega-Lite dict) across the column."""
    st.vega_lite_chart(spec=spec if isinstance(spec, dict) else charts.spec(spec), width="stretch")


def full_candidates(key: str, step: int, training: Training) -> pd.DataFrame:
    store = _store()
    hit = store.get(("replay", key, step))
    if hit is not None:
        return hit
    with st.spinner("Recounting every pair at this step…"):
        return store.get_or_make(("replay", key, step), lambda: tables.candidates_frame(
            candidates_at(training, step), training.config.algorithm))


def candidates(key: str, training: Training, step: int, show_all: bool) -> tuple[pd.DataFrame, bool]:
    """The candidate table at `step`: all pairs when asked or cheap, else the recorded top ones."""
    if show_all or len(training.words) <= FULL_TABLE_WORDS:
        return full_candidates(key, step, training), True
    return _derived("top", key, step, make=lambda: tables.candidates_frame(
        training.steps.candidates(step - 1), training.config.algorithm)), False


def download_file(training: Training, settings: Settings, name: str) -> str:
    """One file of a training's download set, built when its button is clicked and not kept.

    The set is what the command line writes (tokenizer.json, vocab.txt, trace.jsonl, …),
    plus merges.txt for WordPiece (its merges in order) and the trace as CSV.
    Called by st.download_button outside the script run, so no Streamlit calls here.
    """
    from wordpiece_core import formats

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
            text_settings = TextSettings(s.normalizer, s.pre_tokenizer)
            counts = _store().get_or_make(("sample", s.id, text_settings), lambda: load_sample(s.id, text_settings))
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

    return _store().get_or_make(("samples table",), make)


def tokenizer(key: str, settings: Settings, training: Training):
    """The trained tokenizer (the one its tokenizer.json describes), ready to encode."""
    text = (settings.normalizer, settings.pre_tokenizer, settings.add_prefix_space)

    def make():
        from wordpiece_core.loading import tokenizer_from_training

        tok = tokenizer_from_training(training, *text)
        tok.model.strict_unk = False  # a vocabulary without [UNK] still shows unknown words as [UNK]
        return tok

    return _store().get_or_make(("tokenizer", key, *text), make, size=_tokenizer_size)


def _tokenizer_size(tok) -> int:
    """A tokenizer's vocabulary, merges and (full) cache of encoded words, about."""
    return 150 * len(tok.vocab) + 300 * CACHED_WORDS


def uploaded_file_kind(name: str, data: bytes) -> str:
    """What an uploaded tokenizer file is (read once per file, not at every rerun of the playground)."""
    from .encodings import file_kind

    return _store().get_or_make(("file kind", name, hashlib.sha256(data).hexdigest()), lambda: file_kind(name, data))


def uploaded_tokenizer(name: str, data: bytes, lowercase: bool | None = None):
    from .encodings import load_uploaded_tokenizer

    digest = hashlib.sha256(data).hexdigest()
    return _store().get_or_make(("uploaded tokenizer", name, digest, lowercase),
                                lambda: load_uploaded_tokenizer(name, data, lowercase), size=_tokenizer_size)
