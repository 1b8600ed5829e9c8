"""The fast incremental engine: `train(word_counts, config)` makes the merges reference.py specifies."""

from .training import MAX_TOTAL, train

__all__ = ["MAX_TOTAL", "train"]
