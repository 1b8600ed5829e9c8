"""wordpiece_core/records.py: a training's MergeStep and Candidate records, made without their
__init__ (records.record) for speed, have every field and stay frozen, hashable dataclasses."""

import pytest

from helpers import TOY, examples
from wordpiece_core.config import TrainerConfig
from wordpiece_core.engine import train


@pytest.mark.parametrize("top_k", [0, 3])
def test_records_made_without_init_have_every_field(top_k):
    import dataclasses

    from wordpiece_core.records import Candidate, MergeStep

    t = train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=20, top_k=top_k))
    for s in t.steps:
        names = [f.name for f in dataclasses.fields(MergeStep)]
        assert list(vars(s)) == names
        assert s == MergeStep(**vars(s)) and hash(s) == hash(MergeStep(**vars(s)))
        for c in s.candidates:
            assert list(vars(c)) == [f.name for f in dataclasses.fields(Candidate)]
            assert c == Candidate(**vars(c))
        with pytest.raises(dataclasses.FrozenInstanceError):
            s.step = 0


# ----- the exact log-likelihood change, against a recount in 100-digit decimals ----------------------

from decimal import Decimal, localcontext  # noqa: E402

from hypothesis import example, given, settings, strategies as st  # noqa: E402

from wordpiece_core.records import loglik_change  # noqa: E402


def _xlogx(c: int) -> Decimal:
    return Decimal(0) if c == 0 else Decimal(c) * Decimal(c).ln()


def _recounted(total, left, right, merged, same, new, new_is_left, new_is_right) -> Decimal:
    """Σ c·ln c − N·ln N after the merge minus before, over the tokens it touches (the others cancel)."""
    with localcontext() as ctx:
        ctx.prec = 100
        a, b = "a", "a" if same else "b"
        made = a if new_is_left else b if new_is_right else "ab"
        before = {a: left, b: right if not same else left}
        before.setdefault(made, new)
        after = dict(before)
        after[a] -= merged
        after[b] -= merged  # (twice from a when a == b)
        after[made] += merged
        change = sum(_xlogx(after[t]) - _xlogx(before[t]) for t in before)
        return change - (_xlogx(total - merged) - _xlogx(total))


@st.composite
def _merges(draw):
    big = draw(st.sampled_from([10, 2**20, 2**40, 2**54, 2**62]))
    same = draw(st.booleans())
    kind = draw(st.sampled_from(["new", "left", "right"]))
    left = draw(st.integers(2, big))
    right = left if same else draw(st.integers(1, big))
    merged = draw(st.integers(1, left // 2 if same else min(left, right)))
    new = {"new": draw(st.integers(0, big)), "left": left, "right": right}[kind]
    rest = draw(st.integers(0, big))
    total = (left if same else left + right) + (new if kind == "new" else 0) + rest
    return total, left, right, merged, same, new, kind == "left", kind == "right"


@examples(400, fast=40)
def test_the_loglik_change_is_exact_to_the_floats_precision_for_any_counts(max_examples):
    @settings(max_examples=max_examples, deadline=None)
    @example((29_654_086_079_104, 2, 29_654_086_079_101, 1, False, 1, False, False))  # cancels to 1e-13 of ~30
    @given(_merges())
    def check(case):
        total, left, right, merged, same, new, new_is_left, new_is_right = case
        got = loglik_change(total, left, right, merged, same, new, new_is_left, new_is_right)
        want = _recounted(*case)
        assert abs(Decimal(got) - want) <= abs(want) * Decimal("1e-12") + Decimal("1e-300"), (got, want)  # relative

    check()


def test_the_loglik_change_when_the_new_token_is_its_right_part_and_at_huge_counts():
    # ## + ##a → ##a: the token ##a loses M as the right part and gets them back as the new token
    assert loglik_change(100, 10, 20, 5, False, 20, new_is_right=True) == pytest.approx(
        float(_recounted(100, 10, 20, 5, False, 20, False, True)), abs=1e-12)
    assert loglik_change(100, 10, 20, 5, False, 20, new_is_right=True) != pytest.approx(
        loglik_change(100, 10, 20, 5, False, 20), abs=1)  # counted twice before: a different number
    # near 2^54, x·log x − y·log y cancels every digit: the change of ln 2 came out as 0.0
    n = 2**54
    got = loglik_change(4 * n, n, n, 1, False, 0)
    assert got == pytest.approx(float(_recounted(4 * n, n, n, 1, False, 0, False, False)), rel=1e-12)
    assert abs(got) > 0.5


def test_the_loglik_change_when_a_merge_takes_nearly_every_occurrence_of_huge_counts():
    n = 2**62
    for case in [(n + 10, n, n, n // 2, True, 0, False, False), (n + 10, n + 1, n + 1, n // 2, True, 0, False, False), (2 * n + 1, n, n, n, False, 0, False, False),
                 (3 * n, n, n, n - 3, False, n, False, False)]:
        got = loglik_change(*case)
        assert got == pytest.approx(float(_recounted(*case)), rel=1e-12, abs=1e-9)
