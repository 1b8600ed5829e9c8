"""The fairness page's tokenizer picks, as far as app.py needs them before the page runs: whether the sidebar's
training is among them (then app.py starts it early: trained.start_early). No pandas or Altair here."""

from __future__ import annotations

from collections.abc import Mapping

TRAINED = "trained"  # the sidebar's training, among the tokenizers to compare
DEFAULT = ("r50k_base", "cl100k_base", TRAINED)  # a first visit's picks: GPT-2's and GPT-4's, and the training
PICK = "tokenizers_pick"  # the picks' widget
LINK = "tokenizers"  # the picks in the link (and where the page keeps them while its widget is not drawn)


def measures_training(session: Mapping, link: Mapping, kept: str) -> bool:
    """Whether the page will measure the sidebar's training: its picks (the widget's, else those it keeps under
    `kept`, else the link's, else the default) hold it. (A link whose picks the page cannot read falls back to the
    default, which holds it: it is only not started early.)"""
    if PICK in session:
        return TRAINED in session[PICK]
    raw = session.get(kept, link.get(LINK))
    return raw is None or TRAINED in str(raw).split(",")
