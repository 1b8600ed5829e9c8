"""wordpiece_ui/settings.py: the settings every page shares, and their URL form."""

from wordpiece_ui.settings import Settings, from_query


def test_settings_round_trip_through_the_url():
    s = Settings(corpus="wordfreq-fi", algorithm="bpe", vocab_size=777, normalizer="bert", pre_tokenizer="bert",
                 tie_break="hf", min_frequency=2, specials="unk")
    back, step, problems = from_query(s.to_query() | {"step": "12"})
    assert (back, step, problems) == (s, 12, [])


def test_a_bad_parameter_is_quoted_on_its_first_characters_only():
    _, _, problems = from_query({"vocab_size": "9" * 5_000, "normalizer": "<b>x</b>"})
    assert problems == [
        "normalizer='<b>x</b>' is not one of none, lowercase, bert, bert-cased; using none",
        f"vocab_size='{'9' * 40}…' (5,000 characters; the first 40 shown) must be a whole number from 1 to 50,000; "
        "using 30"]
