"""wordpiece_ui/settings.py: the settings every page shares, and their URL form."""

from wordpiece_ui.settings import Settings, from_query


def test_settings_round_trip_through_the_url():
    s = Settings(corpus="wordfreq-fi", algorithm="bpe", vocab_size=777, normalizer="bert", pre_tokenizer="bert",
                 tie_break="hf", min_frequency=2, specials="unk")
    back, step, problems = from_query(s.to_query() | {"step": "12"})
    assert (back, step, problems) == (s, 12, [])
