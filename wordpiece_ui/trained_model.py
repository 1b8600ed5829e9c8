"""The handle the pages hold for a training: the training with the key all sessions share it under.

trained.py makes these (from the store or the training service); every function of
caches.py takes one, so what is derived from a training is stored under the training's
own key, and a page never computes a key. No Streamlit, pandas or Altair here.
"""

from __future__ import annotations

from dataclasses import dataclass

from wordpiece_core.trace import Training

from .corpora import WordCounts
from .settings import Settings


@dataclass(frozen=True, eq=False)
class TrainedModel:
    """A training, the key all sessions share it under, and what it was trained on and with."""

    key: str  # the training's key in the server's store: the corpus digest and the trainer config
    training: Training
    settings: Settings  # the sidebar's settings it was trained with (its text settings encode with it)
    counts: WordCounts  # the corpus it was trained on
