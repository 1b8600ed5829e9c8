"""wordpiece_core: BPE and WordPiece trainers that record every step.

Pure Python, no UI imports. One way in: `train(word_counts, TrainerConfig(...))`
returns a `Training` (trace.py) whose steps the app renders; see README.md.
"""

from .corpus import TextSettings, count_words
from .errors import WordPieceError
from .engine import train
from .config import TrainerConfig
from .records import Candidate, MergeStep
from .trace import Training

__all__ = [
    "Candidate",
    "MergeStep",
    "TextSettings",
    "TrainerConfig",
    "Training",
    "WordPieceError",
    "count_words",
    "train",
]
