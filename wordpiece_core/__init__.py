"""wordpiece_core: BPE, WordPiece and Unigram trainers that record every step.

Pure Python, no UI imports. One way in: `train(word_counts, config)` returns the algorithm's training (a
`Training` of merges, trace.py, or a `UnigramTraining` of rounds, unigram/training.py) whose steps the app
renders; `build_config(algorithm, vocab_size, pre_tokenizer=...)` makes the configuration from a user's
settings, as the command line and the app do. algorithms.py describes each algorithm once; see README.md.
"""

from .algorithms import ALGORITHMS, AnyTraining, Config, build_config, train
from .config import TrainerConfig
from .corpus import TextSettings, count_words
from .errors import WordPieceError
from .records import Candidate, MergeStep
from .trace import Training
from .unigram.training import UnigramConfig, UnigramTraining

__all__ = [
    "ALGORITHMS",
    "AnyTraining",
    "Candidate",
    "Config",
    "MergeStep",
    "TextSettings",
    "TrainerConfig",
    "Training",
    "UnigramConfig",
    "UnigramTraining",
    "WordPieceError",
    "build_config",
    "count_words",
    "train",
]
