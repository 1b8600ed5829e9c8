"""A page's trainings as TrainedModel handles: from the server's store, or trained now (no pandas or Altair).

Trainings go through the training service (jobs.py): one per key however many sessions
ask, in a worker process when large, cancelled when every session waiting for it has left.
A session waiting for one draws the progress view (progress_view.py).

The handles keep no training (trained_model.py): a page holds its training in a local for
one run, through `loaded`, which reruns the page when the store has let the training go
(the rerun trains it again). A download, clicked outside any run, uses `training_now`.

This module imports neither pandas nor Altair, so app.py can start a page's trainings
(`start_early`) before the page imports them: on a fresh server the Compare page's two
trainings then run while its modules load.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import streamlit as st

from wordpiece_core.algorithms import build_config
from wordpiece_core.config import TrainerConfig
from wordpiece_core.errors import WordPieceError
from wordpiece_core.trace import Training
from wordpiece_core.unigram.training import UnigramConfig, UnigramTraining

from . import children, corpus_loading, progress_view, safe, server, side_by_side, state
from .corpora import CUSTOM_IDS, WordCounts
from .jobs import AnyConfig, AnyTraining, Job
from .settings import MAX_VOCAB, Settings
from .side_by_side import Wanted
from .trained_model import TrainedModel, TrainingGone

TOP_K = 25  # candidates recorded per step


def config_for(settings: Settings, algorithm: str | None = None, prefix: str | None = None) -> AnyConfig:
    """The trainer's configuration for the sidebar's settings (another algorithm or BPE's prefix when given)."""
    algorithm = algorithm or settings.algorithm
    return build_config(algorithm, settings.vocab_size, pre_tokenizer=settings.pre_tokenizer,
                        special_tokens=settings.specials_for(algorithm), top_k=TOP_K,
                        **settings.options_for(algorithm, continuing_prefix=prefix))


def training_key(counts: WordCounts, config: AnyConfig) -> str:
    """The key a training is stored and shared under: the corpus' digest and the trainer's configuration."""
    return f"{counts.digest}|{config}"


def sidebar_training(settings: Settings) -> TrainedModel | None:
    """The training of the sidebar's corpus and settings, as `training` (None: the page should stop)."""
    counts = corpus_loading.word_counts(settings)
    return training(settings, counts) if counts else None


def training(settings: Settings, counts: WordCounts) -> TrainedModel | None:
    """The training the sidebar asks for: from the store, or trained now (or joined) with a progress view.

    None means there is nothing to show yet (the progress view, a message or an error was
    drawn instead): the page should stop. When the training ends, the progress view
    reruns the page.
    """
    return trainings(_sidebar_choice(settings), settings, counts).get("")


def compared(settings: Settings, counts: WordCounts, hf_variant: bool = False) -> dict[str, TrainedModel]:
    """Name → handle for BPE and WordPiece (and BPE with ## when `hf_variant`) on the same settings, or {}."""
    return trainings(side_by_side.wanted(hf_variant), settings, counts)


def side_by_side_of(model: TrainedModel) -> dict[str, TrainedModel]:
    """BPE and WordPiece on the corpus and settings `model` was trained on (as `compared`), or {}."""
    counts = model.counts or corpus_loading.word_counts(model.settings)  # counted again if the store let it go
    return compared(model.settings, counts) if counts else {}


def trainings(wanted: Wanted, settings: Settings, counts: WordCounts) -> dict[str, TrainedModel]:
    """Name → handle for each (algorithm, prefix) wanted, or {} when they are not all ready.

    Every training not in the store is queued at once (so the server goes from one to the
    next without waiting for this page), and one progress view follows them all; it reruns
    the page when the last has ended. {} means a progress view, a message or an error was
    drawn instead: the page should stop.
    """
    plan = _plan(wanted, settings, counts)
    if plan.stopped:
        progress_view.say_stopped([state.training_label(plan.configs[name]) for name in plan.stopped],
                                  [plan.keys[name] for name in plan.stopped])
        return {}
    if plan.refusal is not None:
        st.error(plan.refusal)
        return {}
    jobs = _start(plan, counts)
    if not progress_view.ended(list(jobs.values()), list(plan.keys.values())):
        return {}
    done = dict(plan.stored)
    for name, job in jobs.items():
        if job.result is None:
            st.error(f"Cannot train {state.training_label(job.config)}: {safe.md(job.error)}")
            return {}
        done[name] = job.result
    service = server.service()
    return {name: TrainedModel.of(plan.keys[name], done[name], settings, counts, service) for name in wanted}


def loaded(model: TrainedModel) -> Training:
    """The handle's training, for this run: keep it in a local (not a page's global, which a fragment keeps).

    When the store has let it go, the page runs again: `trainings` then trains it again, with its progress view.
    """
    found = loaded_any(model)
    assert isinstance(found, Training)
    return found


def loaded_unigram(model: TrainedModel) -> UnigramTraining:
    """`loaded`, for a Unigram training."""
    found = loaded_any(model)
    assert isinstance(found, UnigramTraining)
    return found


def loaded_any(model: TrainedModel) -> AnyTraining:
    try:
        return model.training
    except TrainingGone:
        st.rerun()


def training_now(model: TrainedModel, waiter: str = "a download") -> AnyTraining:
    """The handle's training, trained again and waited for if the store let it go: for a download, which runs
    when its button is clicked, outside any run of the page (so without a progress view).

    Raises TrainingGone when it cannot be trained again (the corpus is no longer in memory, or it failed).
    """
    try:
        return model.training
    except TrainingGone:
        counts = model.counts
        if counts is None:
            raise
    service = model.service
    job = service.join(model.key, dict(counts.counts), model.config, waiter)
    while not job.wait(progress_view.POLL_SECONDS):
        service.touch(job, waiter)
    if job.result is None:
        raise TrainingGone(f"the training {model.key} could not be trained again: {job.error}")
    return job.result


def start_early(settings: Settings, pair: bool) -> None:
    """Start the trainings a page is about to ask for, drawing nothing: BPE and WordPiece when `pair`
    (the Compare page), else the sidebar's algorithm (the Train page).

    app.py calls this before it runs the page, so on a fresh server the trainings run while
    the page imports pandas and Altair (about 0.6 s). The page then joins the same jobs.
    Only sample corpora are read here; whatever the page would not start (a pasted or
    uploaded corpus, a training too large, failed or stopped by this session) is left to
    the page, which says why.
    """
    if settings.corpus in CUSTOM_IDS:
        return
    try:
        counts = corpus_loading.sample_counts(settings.corpus, corpus_loading.text_settings(settings))
    except (WordPieceError, MemoryError):
        return
    plan = _plan(side_by_side.PAIR if pair else _sidebar_choice(settings), settings, counts)
    if not plan.stopped and plan.refusal is None:
        _start(plan, counts)


def _sidebar_choice(settings: Settings) -> Wanted:
    return {"": (settings.algorithm, None)}


@dataclass(frozen=True)
class _Plan:
    """The trainings a page wants, and what stands between it and them."""

    configs: dict[str, AnyConfig]
    keys: dict[str, str]
    stored: dict[str, AnyTraining]  # those in the store already
    stopped: list[str]  # those this session stopped before they finished: the page says so and starts none
    refusal: str | None  # why one of them cannot be trained (failed before, too large): the page says so, starts none


def _plan(wanted: Wanted, settings: Settings, counts: WordCounts) -> _Plan:
    """What `trainings` and `start_early` both check before they start anything."""
    store, service = server.shared()
    configs = {name: config_for(settings, algorithm, prefix) for name, (algorithm, prefix) in wanted.items()}
    keys = {name: training_key(counts, config) for name, config in configs.items()}
    stopped_keys = progress_view.stopped_keys()
    stored: dict[str, AnyTraining] = {}
    stopped: list[str] = []
    refusals: list[str] = []
    for name, config in configs.items():
        found = service.cached(keys[name])
        if found is not None:
            stored[name] = found
        elif keys[name] in stopped_keys:
            stopped.append(name)
        elif (failed := service.failure(keys[name])) is not None:
            refusals.append(f"Cannot train {state.training_label(config)}: {safe.md(failed)}")
        elif (peak := config.estimated_peak_bytes(counts.types, counts.chars)) > (budget := children.worker_budget_bytes()):
            refusals.append(
                f"This corpus is too large to train here: {state.training_label(config)} would weigh about "
                f"{peak / 1e6:,.0f} MB while it trains ({counts.chars:,} characters in {counts.types:,} distinct "
                f"words), more than one training may take on this server ({budget / 1e6:,.0f} MB). Use a smaller "
                "corpus: fewer or shorter distinct words.")
        elif (need := needed_bytes(counts, config)) > store.budget:
            # Lowering the vocabulary helps only when a smaller one would fit (Unigram's size hardly depends on it).
            smallest = needed_bytes(counts, dataclasses.replace(config, vocab_size=1))
            refusals.append(
                f"This training would need about {need / 1e6:,.0f} MB, more than the server keeps for all its "
                f"trainings ({store.budget / 1e6:,.0f} MB). "
                + (f"Lower the vocabulary size (at most {MAX_VOCAB:,}) or use a smaller corpus." if smallest <= store.budget
                   else "Use a smaller corpus: a smaller vocabulary would not bring it under that."))
    return _Plan(configs, keys, stored, stopped, refusals[0] if refusals else None)


def _start(plan: _Plan, counts: WordCounts) -> dict[str, Job]:
    """Join (or start) the job of every planned training not in the store, in this session's name."""
    service = server.service()
    todo = [name for name in plan.configs if name not in plan.stored]
    words = dict(counts.counts) if todo else {}
    return {name: service.join(plan.keys[name], words, plan.configs[name], server.session_id()) for name in todo}


def needed_bytes(counts: WordCounts, config: AnyConfig) -> int:
    """About what the training will weigh once stored (from the words' average length: all of them, so a corpus
    whose long words come last is not taken for a small one)."""
    avg = max(1, -(-counts.chars // max(1, counts.types)))
    return config.estimated_bytes(counts.types, avg)
