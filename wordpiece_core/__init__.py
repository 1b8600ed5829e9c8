"""wordpiece_core: BPE and WordPiece trainers that record every step.

Pure Python, no UI imports. The trainers take word counts and return a
`Training` (trace.py) whose steps the app renders; see README.md.
"""

from .bpe import train_bpe
from .corpus import TextSettings, count_words
from .errors import WordPieceError
from .merging import train
from .trace import Candidate, MergeStep, TrainerConfig, Training
from .wordpiece import train_wordpiece

__all__ = [
    "Candidate",
    "MergeStep",
    "TextSettings",
    "TrainerConfig",
    "Training",
    "WordPieceError",
    "count_words",
    "train",
    "train_bpe",
    "train_wordpiece",
]
