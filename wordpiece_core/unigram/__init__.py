"""Unigram, the algorithm that starts big and removes pieces, as a package beside the merge engine.

In reading order:

- records.py: what a training records (the course rule's `Round`; tokenizers' `EMRound`, `EMStep`, `Pruning`);
- reference.py: the course's loop, plainly (the specification of the `course` rule; the app runs it);
- em.py: tokenizers' UnigramTrainer, plainly (the specification of the `tokenizers` rule);
- engine.py: the same trainer, fast (numpy lattices), held to em.py by the tests;
- training.py: `UnigramConfig`, its defaults and caps, and `train_unigram` under either rule;
- rounds.py: a round's model and splits, for the app's rounds view;
- files.py: tokenizer.json, vocab.txt, trace.jsonl and training.json;
- model.py: the encoder (Viterbi over a word's lattice), for trained and loaded Unigram tokenizers;
- cli.py: the command line's training and files.

algorithms.py names it beside BPE and WordPiece.
"""
