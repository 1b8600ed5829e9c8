"""wordpiece_core/records.py: a training's MergeStep and Candidate records, made without their
__init__ (records.record) for speed, have every field and stay frozen, hashable dataclasses."""

import pytest

from helpers import TOY
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
