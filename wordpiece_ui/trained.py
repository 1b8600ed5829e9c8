"""Corpora and trainings, shared by every session of the server (no pandas or Altair here).

The server holds one copy of each corpus' word counts and of each training for the
whole class, in its one store bounded in MB (stores.py; `WORDPIECE_LAB_CACHE_MB`,
default 400). Trainings go through the training service (jobs.py): one per key
however many sessions ask, in a worker process when large, cancelled when every
session waiting for it has left. A session waiting for one draws the job's
progress bar.

This module imports neither pandas nor Altair, so app.py can start a page's
trainings (`start_early`) before the page imports them: on a fresh server the
Compare page's two trainings then run while its modules load. caches.py builds
the tables and charts on top and re-exports what the pages use from here.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

import streamlit as st
from streamlit.errors import StreamlitDuplicateElementKey

from wordpiece_core.corpus import TextSettings
from wordpiece_core.errors import WordPieceError
from wordpiece_core.config import Algorithm, TrainerConfig, config_from_settings
from wordpiece_core.trace import Training

from . import safe, state
from .corpora import CUSTOM_IDS, MAX_UPLOAD_MB, WordCounts, load_paste, load_sample, load_upload
from .jobs import Job, TrainingService, estimated_bytes
from .settings import MAX_VOCAB, Settings
from .stores import BudgetStore, budget_from_env

TOP_K = 25  # candidates recorded per step


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


def _text_settings(settings: Settings) -> TextSettings:
    return TextSettings(settings.normalizer, settings.pre_tokenizer, settings.add_prefix_space)


def _sample(settings: Settings) -> tuple[tuple, Callable[[], WordCounts]]:
    """A sample corpus' key in the store, and how to count it."""
    text_settings = _text_settings(settings)
    return ("sample", settings.corpus, text_settings), lambda: load_sample(settings.corpus, text_settings)


def corpus(settings: Settings) -> WordCounts | None:
    """The chosen corpus' word counts, or None after showing why there are none."""
    text_settings = _text_settings(settings)
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
        return _counts(*_sample(settings), "Reading the corpus…")
    except WordPieceError as exc:
        st.error(f"Cannot use this corpus: {safe.md(exc)}")
        return None
    except MemoryError:
        st.error("This corpus is too large to count in memory here; try a smaller sample.")
        return None


# ---------------------------------------------------------------- training


def config_for(settings: Settings, algorithm: Algorithm | None = None, prefix: str | None = None) -> TrainerConfig:
    algorithm = algorithm or settings.algorithm
    return config_from_settings(
        algorithm, settings.vocab_size, pre_tokenizer=settings.pre_tokenizer, min_frequency=settings.min_frequency,
        special_tokens=settings.special_tokens, tie_break=settings.tie_break, bpe_prefix=prefix, top_k=TOP_K,
        byte_alphabet=settings.byte_alphabet)


def training_key(counts: WordCounts, config: TrainerConfig) -> str:
    return f"{counts.digest}|{config}"


def _label(config: TrainerConfig) -> str:
    return state.ALGORITHM_LABELS[config.algorithm] + (" with ##" if config.algorithm == "bpe" and config.prefix else "")


WAIT_SECONDS = 1.0  # trainings that end this soon are shown without a progress view
POLL_SECONDS = 0.5  # how often a waiting session's progress view polls its trainings
POLL_WAIT_SECONDS = 0.4  # how long a poll waits for them to end (then it shows their progress)


def _wait_for(jobs: list[Job], seconds: float) -> bool:
    """Wait up to `seconds` in all for every job to end; whether they all did."""
    deadline = time.monotonic() + seconds
    return all(job.wait(max(0.0, deadline - time.monotonic())) for job in jobs)


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
    jobs = [job for _, job in begun.values() if isinstance(job, Job)]
    warm_up = st.empty() if any(not job.finished.is_set() for job in jobs) else None
    if warm_up is not None:
        with warm_up.container():
            _warm_up_browser(list(keys.values()))
    if _wait_for(jobs, WAIT_SECONDS) and warm_up is not None:  # else: a progress view
        warm_up.empty()  # they ended within the wait: the page goes on without it
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


WARM_UP_KEY = "wpl-warm-up"  # the hidden containers of _warm_up_browser: their keys start with it


def _warm_up_browser(keys: list[str]) -> None:
    """Have the browser load, while the trainings run, the code of the elements drawn when they end.

    Streamlit's front end fetches and compiles the code of each kind of element (a table, a
    chart, a metric: about 2 MB of JavaScript) the first time the page draws one. On a fresh tab
    that happened after the trainings: the Compare page's timelines then took about a second
    more to show. One small element of each kind is drawn here, in a container that the CSS
    below hides; it is taken away when the trainings end within the page's first wait, and the
    page's next run (the one with its trainings) no longer draws it. `keys`: the
    trainings' cache keys (a page may wait for two sets of trainings in one run: one container each).
    """
    key = f"{WARM_UP_KEY}-{hashlib.sha256(' '.join(keys).encode()).hexdigest()[:16]}"
    hidden = f'[class*="st-key-{WARM_UP_KEY}"]'
    try:
        # One pixel high (its contents scroll, out of sight) until the CSS, which a browser applies
        # a moment later, takes it and what holds it out of the layout.
        with st.container(key=key, height=1, border=False):
            st.html(f"<style>{hidden} {{ display: none; }} :has(> {hidden}) {{ display: none; }}</style><span></span>")
            st.metric("warm-up", 0)
            st.dataframe({"warm-up": [0]}, hide_index=True)
            st.vega_lite_chart(spec={"data": {"values": [{"x": 0}]}, "mark": "point",
                                     "encoding": {"x": {"field": "x", "type": "quantitative"}}})
    except StreamlitDuplicateElementKey:
        pass  # the same trainings waited for twice in one run: drawn already


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
    need = _needed_bytes(counts, config)
    if need > store.budget:
        st.error(f"This training would need about {need / 1e6:,.0f} MB, more than the server keeps for all its "
                 f"trainings ({store.budget / 1e6:,.0f} MB). Lower the vocabulary size (at most {MAX_VOCAB:,}) "
                 "or use a smaller corpus.")
        return None
    return config


def _needed_bytes(counts: WordCounts, config: TrainerConfig) -> int:
    """About what the training will weigh once stored (from the first thousand words' length)."""
    avg = max(1, sum(len(w) for w, _ in counts.counts[:1000]) // max(1, min(1000, counts.types)))
    return estimated_bytes(counts.types, avg, config)


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

    first = [True]

    @st.fragment(run_every=POLL_SECONDS)
    def progress() -> None:
        service = shared()[1]
        stopped = st.session_state.get(state.TRAINING_STOPPED, ())
        jobs = [(key, name, service.job(key)) for key, name in waiting]
        if any(key in stopped for key, _, _ in jobs):
            st.rerun()  # this session pressed Stop: it waits no more (and says so)
        alive = [job for _, _, job in jobs if job is not None]
        if not first[0]:  # a poll waits for the trainings a while: the page reruns as the last ends
            _wait_for(alive, POLL_WAIT_SECONDS)
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
        if first[0]:
            # The first call, in the page's run, waits too once the bars are drawn: the next poll comes
            # only POLL_SECONDS later, and a training that ends in between would wait for it. The Stop
            # button is drawn after that wait, as the page's run ends: a click on a fragment's button
            # while the page's own run still goes on is lost.
            first[0] = False
            if _wait_for(alive, POLL_WAIT_SECONDS):
                st.rerun()
        st.button("Stop", icon=":material/stop_circle:", on_click=_stop, args=([key for key, _ in waiting],),
                  key=f"stop {waiting[0][0]}",
                  help="Stop waiting; a training is cancelled unless other sessions wait for it too.")

    progress()


HF_VARIANT = "HF WordPieceTrainer (BPE with ##)"  # the Compare page's optional third column


PAIR: dict[str, tuple[Algorithm, str | None]] = {"BPE": ("bpe", None), "WordPiece": ("wordpiece", "##")}


def trained_pair(settings: Settings, counts: WordCounts, hf_variant: bool = False) -> dict[str, tuple[str, Training]]:
    """Name → (cache key, training) for BPE and WordPiece (and BPE with ##) on the same settings."""
    wanted = dict(PAIR)
    if hf_variant:
        wanted[HF_VARIANT] = ("bpe", "##")
    return trainings(wanted, settings, counts)


# ---------------------------------------------------------------- starting a page's trainings early


def start_early(settings: Settings, pair: bool) -> None:
    """Start the trainings a page is about to ask for, drawing nothing: BPE and WordPiece when `pair`
    (the Compare page), else the sidebar's algorithm (the Train page).

    app.py calls this before it runs the page, so on a fresh server the trainings run while
    the page imports pandas and Altair (about 0.6 s). The page then joins the same jobs.
    Only sample corpora are read here; whatever cannot start quietly (a pasted or uploaded
    corpus, a training too large, failed or stopped by this session) is left to the page,
    which says why.
    """
    if settings.corpus in CUSTOM_IDS:
        return
    try:
        counts = _store().get_or_make(*_sample(settings))
    except (WordPieceError, MemoryError):
        return
    store, service = shared()
    stopped = st.session_state.get(state.TRAINING_STOPPED, ())
    configs = [config_for(settings, algorithm, prefix) for algorithm, prefix in (
        PAIR.values() if pair else [(settings.algorithm, None)])]
    keys = [training_key(counts, config) for config in configs]
    # As trainings() does: when one of them was stopped, failed or cannot fit, the page says so and
    # starts none of them.
    if any(key in stopped or service.failure(key) is not None for key in keys) or \
            any(_needed_bytes(counts, config) > store.budget for config in configs):
        return
    todo = [(key, config) for key, config in zip(keys, configs) if service.cached(key) is None]
    words = dict(counts.counts) if todo else {}
    for key, config in todo:
        service.join(key, words, config, _session_id())
