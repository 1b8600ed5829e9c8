"""The merge pair the Compare page aligns step by step, by the name each column shows.

BPE and WordPiece on the same corpus and settings, and optionally Hugging Face's
WordPieceTrainer (BPE with the ## prefix). A comparison with Unigram names its columns in
compare.wanted, the Compare page's other glue; these few names live apart from it because
app.py starts the pair's trainings before the page imports pandas (trained.start_early), and
compare.py needs pandas. The playground's last section encodes its text with the same pair.
"""

from __future__ import annotations

from wordpiece_core.reference import WORDPIECE_PREFIX

# A column's name → the algorithm (wordpiece, bpe, unigram) and BPE's prefix (WordPiece's ## is its own).
Wanted = dict[str, tuple[str, str | None]]

HF_VARIANT = f"HF WordPieceTrainer (BPE with {WORDPIECE_PREFIX})"  # the Compare page's optional third column
PAIR: Wanted = {"BPE": ("bpe", None), "WordPiece": ("wordpiece", None)}


def wanted(hf_variant: bool = False) -> Wanted:
    """BPE and WordPiece, and with `hf_variant` BPE with ## too."""
    return PAIR | {HF_VARIANT: ("bpe", WORDPIECE_PREFIX)} if hf_variant else dict(PAIR)
