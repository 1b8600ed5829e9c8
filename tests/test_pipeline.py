"""wordpiece_core/pipeline.py: normalize → pre-tokenize → model → post-process.

The course's WordPiece and byte-level BPE examples, pairs with their type ids and masks, and offsets
that point into the text as typed (through lowercasing and accent stripping).
"""

from helpers import BERT_SPECIALS, COURSE, train_bpe, train_wordpiece
from wordpiece_core import TextSettings, count_words
from wordpiece_core.loading import tokenizer_from_training


def course_wordpiece():
    t = train_wordpiece(count_words(COURSE, TextSettings("none", "bert")), 70, special_tokens=BERT_SPECIALS)
    return tokenizer_from_training(t, "none", "bert")


def test_course_wordpiece_examples():
    tok = course_wordpiece()
    model = tok.model
    assert model.tokenize("Hugging").tokens == ("Hugg", "##i", "##n", "##g")
    assert model.tokenize("HOgging").tokens == ("[UNK]",)
    enc = tok.encode("This is the Hugging Face course!", add_special_tokens=False)
    assert enc.tokens == ["Th", "##i", "##s", "is", "th", "##e", "Hugg", "##i", "##n", "##g", "Fac", "##e", "c",
                          "##o", "##u", "##r", "##s", "##e", "[UNK]"]


def test_course_byte_level_bpe_example():
    t = train_bpe(count_words(COURSE, TextSettings("none", "byte-level")), 50, special_tokens=["<|endoftext|>"])
    tok = tokenizer_from_training(t, "none", "byte-level")
    assert tok.encode("This is not a token.").tokens == ["This", "Ġis", "Ġ", "n", "o", "t", "Ġa", "Ġtoken", "."]


def test_pair_encoding_and_masks():
    tok = course_wordpiece()
    enc = tok.encode("This is", pair="the course")
    assert enc.tokens[0] == "[CLS]" and enc.tokens.count("[SEP]") == 2
    sep = enc.tokens.index("[SEP]")
    assert set(enc.type_ids[: sep + 1]) == {0} and set(enc.type_ids[sep + 1 :]) == {1}
    assert enc.special_tokens_mask == [1 if t in ("[CLS]", "[SEP]") else 0 for t in enc.tokens]
    assert enc.attention_mask == [1] * len(enc.tokens)
    assert enc.offsets[0] == (0, 0)


def test_offsets_survive_lowercasing_and_accent_stripping():
    t = train_wordpiece(count_words(["café naïve İstanbul ΣΟΦΙΑ"], TextSettings("bert", "bert")), 60,
                        special_tokens=BERT_SPECIALS)
    tok = tokenizer_from_training(t, "bert", "bert")
    text = "Café  NAÏVE, İstanbul ΣΟΦΙΑ!"
    enc = tok.encode(text, add_special_tokens=False)
    # Each word's tokens, joined by their offsets, give back the word as it was typed: the
    # capitals, the accents, the dotted İ (two characters once lowercased) and the Greek.
    spans: dict[int, tuple[int, int]] = {}
    for (s, e), w in zip(enc.offsets, enc.word_ids):
        first, last = spans.get(w, (s, e))
        spans[w] = (min(first, s), max(last, e))
    assert [text[s:e] for _, (s, e) in sorted(spans.items())] == ["Café", "NAÏVE", ",", "İstanbul", "ΣΟΦΙΑ", "!"]
