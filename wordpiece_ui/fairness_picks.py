"""The fairness page's tokenizer picks, as far as app.py needs them before the page runs: whether the sidebar's
training is among them (then app.py starts it early: trained.start_early). No pandas or Altair here."""

from __future__ import annotations

from collections.abc import Mapping

from wordpiece_core.shelf import SHELF

TRAINED = "trained"  # the sidebar's training, among the tokenizers to compare
BEFORE = "before"  # the sidebar's training before its last one on the Declaration
UPLOADED = "uploaded"  # the tokenizer file uploaded on the playground in this session
DEFAULT = ("r50k_base", "cl100k_base", TRAINED)  # a first visit's picks: GPT-2's and GPT-4's, and the training
PICK = "tokenizers_pick"  # the picks' widget
LINK = "tokenizers"  # the picks in the link (and where the page keeps them while its widget is not drawn)
KNOWN = (*SHELF, TRAINED, BEFORE, UPLOADED)  # every pick the page may offer


def measures_training(session: Mapping, link: Mapping, kept: str) -> bool:
    """Whether the page will measure the sidebar's training: its picks (the widget's, else those it keeps under
    `kept`, else the link's, else the default) hold it; picks none of which the page knows are the default. (An
    uploaded file's pick left from before, its file gone, is still taken for known: the training is then only not
    started early.)"""
    if PICK in session:
        return TRAINED in session[PICK]
    raw = session.get(kept, link.get(LINK))
    picks = str(raw).split(",") if raw is not None else list(DEFAULT)
    return TRAINED in picks or not any(pick in KNOWN for pick in picks)  # none the page knows: the default
