"""wordpiece_ui/settings.py: the settings every page shares, and their URL form."""

import pytest

from wordpiece_ui.settings import Settings, from_query


def test_settings_round_trip_through_the_url():
    s = Settings(corpus="wordfreq-fi", algorithm="bpe", vocab_size=777, normalizer="bert", pre_tokenizer="bert",
                 tie_break="hf", min_frequency=2, specials="unk")
    back, step, problems = from_query(s.to_query() | {"step": "12"})
    assert (back, step, problems) == (s, 12, [])


def test_a_pasted_or_uploaded_corpus_is_named_in_the_link_by_its_id():
    settings, _, problems = from_query({"corpus": "paste", "corpus_id": "0123456789ABCDEF"})
    assert settings.corpus_id == "0123456789abcdef" and not problems
    assert settings.to_query()["corpus_id"] == "0123456789abcdef"
    sample, _, problems = from_query({"corpus": "course-toy", "corpus_id": "0123456789abcdef"})
    assert sample.corpus_id == "" and "corpus_id" not in sample.to_query() and not problems  # a sample has none


@pytest.mark.parametrize("hostile", ["../../etc/passwd", "1' OR '1'='1", "abc", "f" * 65, "<img src=x>"])
def test_a_corpus_id_that_is_not_one_is_refused_in_words(hostile):
    settings, _, problems = from_query({"corpus": "upload", "corpus_id": hostile})
    assert settings.corpus == "upload" and settings.corpus_id == ""
    assert problems == ["corpus_id is not the id of a kept file (16 to 64 hexadecimal digits, as the app writes "
                        "them); paste or upload the file again"]


def test_a_bad_parameter_is_quoted_on_its_first_characters_only():
    _, _, problems = from_query({"vocab_size": "9" * 5_000, "normalizer": "<b>x</b>"})
    assert problems == [
        "normalizer='<b>x</b>' is not one of none, lowercase, bert, bert-cased; using none",
        f"vocab_size='{'9' * 40}…' (5,000 characters; the first 40 shown) must be a whole number from 1 to 50,000; "
        "using 30"]
