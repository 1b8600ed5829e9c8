"""wordpiece_core/unigram/rounds.py: what a class votes on in a Unigram round, and what it reasons from."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from wordpiece_core import build_config, train
from wordpiece_core.unigram.rounds import choices, spread_choices

TOY = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


@given(st.lists(st.tuples(st.text("abc", min_size=1, max_size=3), st.sampled_from([0.0, 1.5, 2.0, 7.25, 9.0])),
                max_size=30), st.integers(2, 8))
def test_spread_choices_have_one_cheapest_and_distinct_costs(costs, limit):
    costs = sorted(costs, key=lambda pc: pc[1])
    picked = spread_choices(costs, limit)
    distinct = sorted({c for _, c in costs})
    if len(distinct) < 2:
        assert picked == []  # every candidate costs the same: nothing to vote on
        return
    assert 2 <= len(picked) <= limit
    assert [c for _, c in picked] == sorted({c for _, c in picked})  # distinct, cheapest first
    assert picked[0][1] == distinct[0] and picked[-1][1] == distinct[-1]  # the cheapest and the costliest
    assert all(pc in costs for pc in picked)


def test_a_toy_rounds_choices_carry_what_a_student_reasons_from():
    training = train(TOY, build_config("unigram", 11, pre_tokenizer="whitespace", unigram_rule="course",
                                       whole_words=False))
    words = sorted(TOY.items(), key=lambda wc: -wc[1])
    first = choices(training, 1, list(training.rounds[0].scores), 6, words)
    assert [(c.piece, round(c.loss_increase, 2)) for c in first] == [("ug", 0.0), ("hug", 23.51)]
    ug, hug = first
    assert ug.count == 20 and ug.probability == pytest.approx(20 / 210)  # the course's seed counts
    assert ug.words == (("hug", 10), ("pug", 5), ("hugs", 5)) and ug.without == ("u", "g")
    assert hug.without == ("h", "ug")


def test_under_the_tokenizers_rule_a_choice_is_spelled_by_its_alternatives():
    from helpers import ROOT

    lines = (ROOT / "sample_corpora" / "wordfreq-en.tsv").read_text(encoding="utf-8").splitlines()[:1500]
    counts = {w: int(n) for w, n in (line.split("\t") for line in lines) if n.isdigit()}
    training = train(counts, build_config("unigram", 600, pre_tokenizer="whitespace"))
    r = next(r for r in training.rounds if r.pruning is not None)
    ranked = sorted(zip(r.pruning.pieces, r.pruning.losses), key=lambda pl: pl[1])[:15]
    picked = choices(training, r.number, ranked, 6, sorted(counts.items(), key=lambda wc: -wc[1]))
    alternatives = dict(zip(r.pruning.pieces, r.pruning.alternatives))
    assert picked and all(c.without == alternatives[c.piece] and c.count is None for c in picked)
    assert all(0 < c.probability <= 1 for c in picked)
