"""Unigram's `tokenizers` rule: the plain trainer (unigram_em.py) against tokenizers' own numbers and its
UnigramTrainer, and the fast engine (engine/unigram.py) against the plain trainer, round by round."""

from __future__ import annotations

import json
import math
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import ROOT, TOY, run_cli
from wordpiece_core.unigram import em
from wordpiece_core.unigram import engine


def test_digamma_is_tokenizers_series():
    assert em.digamma(1.0) == pytest.approx(-0.5772156649015329, abs=1e-9)  # -γ (the series is good to about 1e-10)
    assert em.digamma(0.5) == pytest.approx(-1.9635100260214235, abs=1e-9)
    assert em.digamma(100.0) == pytest.approx(4.600161852738087, abs=1e-9)
    assert em.digamma(10.0) - em.digamma(9.0) == pytest.approx(1 / 9, abs=1e-9)  # ψ(x + 1) = ψ(x) + 1/x


def test_seed_pieces_are_tokenizers_own_test_case():
    """tokenizers' test_unigram_chars (trainer.rs): the seed of two sentences, order and scores."""
    seed = em.seed_pieces({"This is a": 1, "こんにちは友達": 1}, 1_000_000, 16)
    assert [p for p, _ in seed] == ["s", "i", " ", "達", "友", "ん", "は", "に", "ち", "こ", "h", "a", "T", "is ", "s "]
    expected = [-2.5649493574615367] * 3 + [-3.258096538021482] * 10 + [-1.4663370687934272, -1.8718021769015916]
    assert [s for _, s in seed] == pytest.approx(expected, abs=0.01)


def test_a_seed_substring_needs_two_places_and_two_followers():
    found = em.right_branching_substrings(["abcx", "abcy", "abd"], 16)
    assert found == {"ab": 3, "abc": 2, "bc": 2}  # each followed by two different characters
    assert em.right_branching_substrings(["abx", "abx"], 16) == {}  # ab always before x; the rest end words
    assert em.right_branching_substrings(["abx", "ab"], 16) == {"ab": 2}  # x, and a word's end
    assert em.right_branching_substrings(["abcx", "abcy"], 2) == {"bc": 2}  # ab always before c; abc too long


def test_the_pruning_loss_is_tokenizers_arithmetic():
    # freq 10 of total 100 over 50 word occurrences, 2 alternatives of freq 20 and 30, 40 pieces
    loss = em.pruning_loss(10.0, [20.0, 30.0], 100.0, 50.0, 40)
    log_total_alt = math.log(100.0 + 10.0 * 39)  # tokenizers' (pieces - 1), not (alternatives - 1)
    expected = 10 / 50 * ((math.log(10) - math.log(100)) - ((math.log(30) - log_total_alt) + (math.log(40) - log_total_alt)))
    assert loss == pytest.approx(expected, rel=1e-15)


def _words(name: str) -> dict[str, int]:
    if name == "toy":
        return {"▁" + w: c for w, c in TOY.items()}
    if name.startswith("wordfreq"):
        rows = (ROOT / "sample_corpora" / f"{name}.tsv").read_text(encoding="utf-8").splitlines()[:3000]
        return {w: int(c) for w, c in (r.split("\t") for r in rows)}
    text = (ROOT / "sample_corpora" / f"{name}.txt").read_text(encoding="utf-8")
    return dict(Counter("▁" + w for w in text.split()))


def _same_training(words: dict[str, int], vocab: int, **kw) -> None:
    a, ua, ra = em.train(words, vocab, ("<unk>",), "<unk>", **kw)
    b, ub, rb = engine.train(words, vocab, ("<unk>",), "<unk>", **kw)
    # The two sum in different orders, so scores can differ in their last bits, and EM can grow that to
    # about 1e-10; pieces whose scores are that close can swap places in the sorted vocabulary.
    assert dict(a) == pytest.approx(dict(b), rel=1e-9, abs=1e-9) and len(a) == len(b) and ua == ub
    assert len(ra) == len(rb)
    for x, y in zip(ra, rb):
        assert [(s.size_before, s.size_after, s.tokens, s.dropped) for s in x.em] == \
               [(s.size_before, s.size_after, s.tokens, s.dropped) for s in y.em]
        assert [s.objective for s in x.em] == pytest.approx([s.objective for s in y.em], rel=1e-9)
        assert [p for p, _ in x.pieces] == [p for p, _ in y.pieces]  # the model's order (not sorted)
        assert (x.pruning is None) == (y.pruning is None)
        if x.pruning is not None and y.pruning is not None:
            px, py = x.pruning, y.pruning
            assert (px.pieces, px.frequencies, px.alternatives, px.unused, px.cut, px.target) == \
                   (py.pieces, py.frequencies, py.alternatives, py.unused, py.cut, py.target)
            assert list(px.losses) == pytest.approx(list(py.losses), rel=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("name, vocab", [("toy", 10), ("course-sentences", 40), ("english-paragraphs", 150),
                                         ("wordfreq-en", 800), ("wordfreq-fi", 800)])
def test_the_engine_trains_what_the_plain_trainer_trains(name, vocab):
    _same_training(_words(name), vocab)


@pytest.mark.slow
def test_the_engine_follows_the_options():
    words = _words("english-paragraphs")
    _same_training(words, 120, seed_size=300, shrinking_factor=0.5, sub_iterations=1, max_piece_length=4)


_LETTERS = "abcdeé▁😀"


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.text(_LETTERS, min_size=1, max_size=9), st.integers(1, 40), min_size=1, max_size=25),
       st.integers(0, 30))
def test_on_any_corpus_the_engine_equals_the_plain_trainer_and_keeps_every_character(words, extra):
    chars = {c for w in words for c in w}
    vocab = len(chars) + 1 + extra
    _same_training(words, vocab, seed_size=60)
    final, unk_id, rounds = engine.train(words, vocab, ("<unk>",), "<unk>", seed_size=60)
    pieces = [p for p, _ in final]
    assert unk_id == 0 and pieces[0] == "<unk>"
    assert chars <= set(pieces)  # every character stays
    assert len(final) <= vocab
    scores = [s for _, s in final[1:]]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.slow
def test_unigram_trainer_agrees_on_every_corpus_of_the_agreement_benchmark(monkeypatch, tmp_path):
    """The agreement target of benchmarks/README.md, as benchmarks/unigram_agreement.py prints it: vocabularies
    overlap and held-out words split the same, ≥ 99 % each (they are 100 % on this machine)."""
    pytest.importorskip("tokenizers")
    monkeypatch.setattr(sys, "path", [str(ROOT / "benchmarks"), *sys.path])
    import unigram_agreement

    for name in unigram_agreement.CORPORA:
        row = unigram_agreement.agreement(name, str(tmp_path))
        assert row["overlap"] >= 0.99 and row["same_split"] >= 0.99, row


@pytest.mark.slow
def test_the_command_line_default_is_the_tokenizers_rule_and_its_trace_holds_each_round(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    corpus = ROOT / "sample_corpora" / "english-paragraphs.txt"
    done = run_cli("train", str(corpus), "--algorithm", "unigram", "--pre-tokenizer", "metaspace", "--vocab-size",
                   "150", "--top-k", "5", "--out", str(tmp_path), "--quiet")
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "training.json").read_text(encoding="utf-8"))
    assert summary["unigram_rule"] == "tokenizers" and summary["vocab_size"] == 150
    assert summary["shrinking_factor"] == 0.75 and summary["sub_iterations"] == 2 and summary["seed_size"] == 1_000_000
    assert "course_errata" not in summary and "hash set" in summary["tie_rule"]
    rounds = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1)) and len(rounds) > 1
    for r in rounds:
        assert [e["sub_iteration"] for e in r["em"]] == [1, 2]
        for e in r["em"]:
            assert e["size_after"] == e["size_before"] - len(e["dropped"])
            assert len(e["top"]) <= 5 and [t[1] for t in e["top"]] == sorted((t[1] for t in e["top"]), reverse=True)
        p = r["pruning"]
        if p is None:
            assert r is rounds[-1]
            continue
        assert r["vocab_size_after"] == r["vocab_size"] - len(p["unused"]) - len(p["removed"])
        assert p["removed_losses"] == sorted(p["removed_losses"], reverse=True)
        assert all(k[1] >= max(p["removed_losses"], default=-math.inf) for k in p["kept"])  # the kept cost more
        assert all(k[2] for k in p["kept"])  # each with its alternatives
    for r, nxt in zip(rounds, rounds[1:]):
        assert nxt["em"][0]["size_before"] == r["vocab_size_after"]
    theirs = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    text = "Tokenizers split words into pieces, even unseen ones like zyxt."
    ours = run_cli("encode", "--tokenizer", str(tmp_path / "tokenizer.json"), text)
    assert ours.returncode == 0, ours.stderr
    assert json.loads(ours.stdout)["tokens"] == theirs.encode(text).tokens
    assert theirs.decode(theirs.encode(text).ids) == text


@pytest.mark.slow
def test_a_vocabulary_smaller_than_the_characters_stops_with_one_line(tmp_path):
    corpus = ROOT / "sample_corpora" / "english-paragraphs.txt"
    done = run_cli("train", str(corpus), "--algorithm", "unigram", "--vocab-size", "20", "--out",
                   str(tmp_path / "out"))
    assert done.returncode == 2 and "cannot hold the corpus's" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_the_exact_increase_of_a_tokenizers_round_is_the_course_removal_score():
    """unigram_rounds.exact_increases (the Train page's "exact (course)" column) is the course reference's
    removal score under the round's model, per word occurrence; never below 0."""
    from wordpiece_core.unigram import reference as unigram_reference
    from wordpiece_core.unigram.rounds import exact_increases
    from wordpiece_core.unigram.training import UnigramConfig, train_unigram

    words = _words("english-paragraphs")
    training = train_unigram(words, UnigramConfig("tokenizers", 150))
    r = training.rounds[0]
    assert r.pruning is not None
    pieces = list(r.pruning.pieces[-6:])
    exact = exact_increases(training, 1, pieces, words.items())
    costs = {p: -s for p, s in r.pieces[1:]}
    scores = unigram_reference.removal_scores(words, costs)
    total = sum(words.values())
    for p in pieces:
        assert exact[p] >= 0
        assert exact[p] == pytest.approx(scores[p] / total, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("words, vocab, specials", [
    ({"\0": 3, "ab": 2}, 6, ("<unk>",)),  # a character no seed piece is: the unknown piece covers it
    ({"abc\0": 3, "ab": 2, "ba": 2}, 8, ("<unk>",)),
    ({"ab": 3, "b": 1}, 2, ()),  # the size is the characters alone: tokenizers would loop for ever
    ({"x<unk>a": 2, "<unk>": 3, "hello": 1}, 20, ("<unk>",)),  # a piece that is a special token: listed once
])
def test_odd_corpora_end_and_both_trainers_agree(words, vocab, specials):
    unk = "<unk>" if specials else None
    a = em.train(words, vocab, specials, unk)
    b = engine.train(words, vocab, specials, unk)
    assert [p for p, _ in a[0]] == [p for p, _ in b[0]]
    pieces = [p for p, _ in b[0]]
    assert len(pieces) == len(set(pieces)) and len(pieces) <= vocab
    assert {c for w in words for c in w} <= set(pieces)


@pytest.mark.slow
def test_nul_characters_long_words_and_specials_in_the_corpus_on_the_command_line(tmp_path):
    text = tmp_path / "odd.txt"
    text.write_text("hello world a\0b hello x<unk>a\n" + "plain words of text to read as text\n" * 40,
                    encoding="utf-8")  # a NUL among enough text is read as text, not refused as binary
    done = run_cli("train", str(text), "--algorithm", "unigram", "--vocab-size", "40", "--pre-tokenizer", "metaspace",
                   "--out", str(tmp_path / "out"), "--quiet")
    assert done.returncode == 0, done.stderr
    enc = run_cli("encode", "--tokenizer", str(tmp_path / "out" / "tokenizer.json"), "hello x<unk>a")
    assert enc.returncode == 0, enc.stderr  # the file reads back: <unk> is listed once
    long = tmp_path / "long.txt"
    long.write_text("a" * 5000 + " b\n", encoding="utf-8")
    done = run_cli("train", str(long), "--algorithm", "unigram", "--vocab-size", "40", "--out", str(tmp_path / "o2"))
    assert done.returncode == 2 and "splits words of up to 1,000 characters" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_longest_word_is_counted_in_the_characters_typed_not_with_metaspaces_mark():
    """A 1,000-letter word is within the tokenizers rule's 1,000 under Metaspace too (its ▁ is not a letter);
    one of 1,001 letters is refused, saying 1,001."""
    from wordpiece_core.errors import WordPieceError
    from wordpiece_core.unigram.training import check, unigram_config

    config = unigram_config(40, pre_tokenizer="metaspace")
    check({"\u2581" + "a" * 1000: 1, "\u2581b": 2}, config)
    with pytest.raises(WordPieceError, match="corpus has one of 1,001 .it starts 'aaaa"):
        check({"\u2581" + "a" * 1001: 1, "\u2581b": 2}, config)
