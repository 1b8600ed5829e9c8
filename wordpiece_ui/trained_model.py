"""The handle the pages hold for a training: its key, what a page says about it, and no training.

trained.py makes these (from the store or the training service); every function of
caches.py takes one, so what is derived from a training is stored under the training's
own key, and a page never computes a key. No Streamlit, pandas or Altair here.

A session keeps its handles between runs (a step view is a fragment, and a fragment
keeps its page's globals; a download button keeps its arguments), so a handle holding
the training would keep it in memory after the store let it go: a class of sessions
would keep every training it ever opened, beyond the store's budget. A handle holds
the key, the few figures a page shows without the training, and weak references;
`training` fetches the training from the store at each use (which also marks it as
used recently). When the store let it go, `TrainingGone` is raised; `trained.loaded`
turns that into a rerun of the page, which trains it again behind a progress bar.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from wordpiece_core.trace import Training

from .corpora import WordCounts
from .jobs import AnyConfig, AnyTraining, TrainingService
from .settings import Settings


class TrainingGone(LookupError):
    """The store let the training go and nothing else holds it: it must be trained again."""


@dataclass(frozen=True)
class Corpus:
    """What a page says about the corpus a training was trained on."""

    name: str
    types: int  # distinct words
    tokens: int  # words in all
    lowercase_words: bool = False  # a list of lower-case words (wordfreq's; WordCounts.lowercase_words): its vocabulary has no capitals


@dataclass(frozen=True, eq=False)
class TrainedModel:
    """A training's key and figures, and the way to its training (see the module docstring)."""

    key: str  # the training's key in the server's store: the corpus digest and the trainer config
    settings: Settings  # the sidebar's settings it was trained with (its text settings encode with it)
    config: AnyConfig
    corpus: Corpus
    steps: int  # the training's steps: merges (BPE, WordPiece) or rounds (Unigram)
    start_tokens: int  # the vocabulary before the first step (special tokens and alphabet; Unigram: its seed)
    tokens: int  # the vocabulary after the last step
    stop_reason: str
    service: TrainingService = field(repr=False)
    _training: weakref.ref[AnyTraining] = field(repr=False)
    _counts: weakref.ref[WordCounts] = field(repr=False)

    @classmethod
    def of(cls, key: str, training: AnyTraining, settings: Settings, counts: WordCounts,
           service: TrainingService) -> TrainedModel:
        corpus = Corpus(counts.name, counts.types, counts.tokens, counts.lowercase_words)
        return cls(key, settings, training.config, corpus, training.step_count, training.start_size,
                   len(training.tokens), training.stop_reason, service, weakref.ref(training), weakref.ref(counts))

    @property
    def training(self) -> AnyTraining:
        """The training, from the store; put back into it if the store let it go while a run still uses it.

        Hold it in a local for the run (trained.loaded): the run then keeps it, and nothing after.
        Raises TrainingGone when it is no longer in memory.
        """
        found = self.service.cached(self.key)
        if found is not None:
            return found
        alive = self._training()
        if alive is None:
            raise TrainingGone(f"the training {self.key} is no longer in memory")
        self.service.keep(self.key, alive)
        return alive

    @property
    def counts(self) -> WordCounts | None:
        """The corpus' word counts while the store (or a run) still has them."""
        return self._counts()
