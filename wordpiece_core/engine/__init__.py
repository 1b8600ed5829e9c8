"""The fast incremental engine of the merge algorithms (BPE, WordPiece): `train(word_counts, config)` makes the
merges reference.py specifies. algorithms.train calls it for a `TrainerConfig`; Unigram's fast trainer is the
unigram package's engine.py.

One stage per module, in reading order:

- keys.py: the fast forms of reference.py's score and tie rule, as heap keys;
- state.py: the words, the counts, the pair → words index and `apply` (a merge in every word);
- bpe.py: BPE's chooser (a window of the best pairs above a heap);
- wordpiece.py: WordPiece's chooser (lazy re-pushes within a slack, sleepers, exact ties);
- groups.py: WordPiece's groups of exactly tied pairs, out of its heap;
- training.py: `train`, its checks of the input, and the merge loop.
"""

from .training import MAX_TOTAL, check_total, train
from .wordpiece import Tuning

__all__ = ["MAX_TOTAL", "Tuning", "check_total", "train"]
