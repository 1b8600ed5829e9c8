"""wordpiece_core/algorithms.py: one description per algorithm, one `train`, and one way from settings to a
configuration that the command line and the app share."""

from __future__ import annotations

import pytest

from wordpiece_core import ALGORITHMS, WordPieceError, build_config, train
from wordpiece_core.algorithms import check_options, info_of
from wordpiece_core.cli import build_parser, config_from_args

TOY = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}  # the course's toy words


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_every_algorithm_trains_through_the_one_train(name):
    config = build_config(name, 14, pre_tokenizer="whitespace")
    assert info_of(config) is ALGORITHMS[name] and config.algorithm == name
    training = train(TOY, config)
    assert training.step_count > 0
    assert len(training.tokens) <= 14 and training.start_size > 0
    assert set(config.special_tokens) <= set(training.tokens)


def test_a_new_option_reaches_every_layer_through_the_registry():
    """Each option belongs to the algorithms that name it, and the command line has a flag for each."""
    flags = set(vars(build_parser().parse_args(["train", "x.txt", "--algorithm", "bpe", "--vocab-size", "9",
                                                "--out", "o"])))
    for algorithm in ALGORITHMS.values():
        assert set(algorithm.options) <= flags, algorithm.name
        assert set(algorithm.output_names) >= {"tokenizer.json", "vocab.txt", "trace.jsonl", "training.json"}


@pytest.mark.parametrize("name, given, says", [
    ("bpe", {"seed_size": 30}, "--seed-size does not apply to bpe (--seed-size is for --algorithm unigram)"),
    ("unigram", {"tie_break": "hf"}, "--tie-break does not apply to unigram (--tie-break is for --algorithm wordpiece, bpe)"),
    ("wordpiece", {"continuing_prefix": "##"},
     "--continuing-prefix does not apply to wordpiece (--continuing-prefix is for --algorithm bpe)"),
])
def test_another_algorithms_option_is_refused_in_one_line(name, given, says):
    with pytest.raises(WordPieceError, match=f"^{says.replace('(', '[(]').replace(')', '[)]')}"):
        check_options(name, given, "whitespace")
    with pytest.raises(WordPieceError):
        build_config(name, 30, pre_tokenizer="whitespace", **given)


@pytest.mark.parametrize("flags, settings", [
    (["--algorithm", "wordpiece", "--special-tokens", ""], {"algorithm": "wordpiece", "specials": "none"}),
    (["--algorithm", "bpe", "--tie-break", "hf", "--min-frequency", "2", "--special-tokens", ""],
     {"algorithm": "bpe", "tie_break": "hf", "min_frequency": 2, "specials": "none"}),
    (["--algorithm", "unigram", "--unigram-rule", "course", "--no-whole-words"],
     {"algorithm": "unigram", "unigram_rule": "course", "whole_words": False, "specials": "unk-piece"}),
    (["--algorithm", "unigram"], {"algorithm": "unigram", "unigram_rule": "tokenizers", "specials": "unk-piece"}),
])
def test_the_command_line_and_the_app_build_the_same_configuration(flags, settings):
    """Every setting a link holds has a flag: the same settings give the same configuration (the app records 25
    candidates a step, the command line 10 by default: --top-k 25)."""
    from wordpiece_ui.settings import Settings
    from wordpiece_ui.trained import TOP_K, config_for

    args = build_parser().parse_args(["train", "x.txt", "--vocab-size", "30", "--out", "o", "--top-k", str(TOP_K),
                                      *flags])
    assert config_from_args(args) == config_for(Settings(vocab_size=30, **settings))


def test_whole_words_is_a_course_rule_switch():
    args = build_parser().parse_args(["train", "x.txt", "--algorithm", "unigram", "--vocab-size", "30", "--out", "o",
                                      "--no-whole-words"])
    with pytest.raises(WordPieceError, match="--whole-words/--no-whole-words is not an option of --unigram-rule "
                                             "tokenizers"):
        config_from_args(args)
