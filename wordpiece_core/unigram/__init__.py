"""Unigram, the algorithm that starts big and removes pieces, as a package beside the merge engine.

In reading order:

- records.py: what a training records (the course rule's `Round`; tokenizers' `EMRound`, `EMStep`, `Pruning`);
- reference.py: the course's loop, plainly (the specification of the `course` rule; the app runs it);
- em.py: tokenizers' UnigramTrainer, plainly (the specification of the `tokenizers` rule);
- engine.py: the same trainer, fast (numpy lattices), held to em.py by the tests;
- defaults.py: the defaults, named once (the trainers, the configuration and the command line's help read them);
- training.py: `UnigramConfig`, each rule's own options and caps, and `train_unigram` under either rule;
- rounds.py: a round's model and splits, for the app's rounds view;
- files.py: tokenizer.json, vocab.txt, trace.jsonl and training.json;
- model.py: the encoder (Viterbi over a word's lattice), for trained and loaded Unigram tokenizers;
- cli.py: the command line's training and files (`train --algorithm unigram`).

algorithms.py describes it beside BPE and WordPiece (its `ALGORITHMS` entry names training.unigram_config,
training.train_unigram, cli.write and files.tokenizer_json): the command line and the app train it through
algorithms.build_config and algorithms.train.
"""
