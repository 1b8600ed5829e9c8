"""wordpiece_ui/chips.py: tokens as escaped HTML chips over the text they cover."""

from helpers import TOY, train_wordpiece
from wordpiece_core.loading import tokenizer_from_training
from wordpiece_ui import chips


def test_chips_escape_tokens():
    html = chips.over_text("<b>x</b>", ["<b>x</b>"], [(0, 8)], [1])
    assert "<b>x</b>" not in html.replace('<span class="wpl-chip', "") and ">&#60;b&#62;x&#60;&#47;b&#62;<" in html


def test_chips_cover_the_text_and_mark_unknowns():
    t = train_wordpiece(TOY, 30, special_tokens=["[UNK]", "[CLS]", "[SEP]"])
    tok = tokenizer_from_training(t, "none", "whitespace")
    enc = tok.encode("hugs mug")
    html = chips.over_text("hugs mug", enc.tokens, enc.offsets, enc.ids, set(tok.special_tokens))
    assert html.count("wpl-unk") == 2  # the CSS rule and the chip for "mug"
    assert ">mug<" in html and ">&#91;CLS&#93;<" in html


def test_unknown_chips_are_told_apart_without_colour():
    html = chips.over_text("hug mug", ["hug", "[UNK]"], [(0, 3), (4, 7)], [5, 0])
    import html as html_lib
    unk = html_lib.unescape(html[html.index('class="wpl-chip wpl-unk"'):])
    assert "[UNK] (unknown token) for 'mug' · id 0" in unk
    assert "double" in chips.STYLE.split(".wpl-unk", 1)[1].split("}", 1)[0]  # a border style of its own …
    assert "#CC79A7" not in chips.PALETTE  # … and no ordinary token wears the hue [UNK] used to have


def test_a_byte_level_space_is_drawn_as_its_tokens_content():
    import html as html_lib
    # 'hello  world' as byte-level BPE encodes it (the same tokens and offsets as tokenizers)
    drawn = html_lib.unescape(chips.over_text("hello  world", ["hello", "Ġ", "Ġworld"], [(0, 5), (6, 6), (7, 12)],
                                              [1, 2, 3]))
    body = drawn.split('<div class="wpl-text"', 1)[1]
    assert "wpl-special" not in body and "wpl-skipped" not in body  # no dotted chip, nothing struck through
    assert ">␣<" in body and ">␣world<" in body
    # a character no token covers is still struck through
    drawn = html_lib.unescape(chips.over_text("a?b", ["a", "b"], [(0, 1), (2, 3)], [1, 2]))
    assert 'wpl-skipped' in drawn and ">?<" in drawn


def test_a_blank_line_in_text_no_token_covers_stays_inside_the_html():
    import html as html_lib
    import re

    text = "hug\n\n![X](HTTP://E.X/X.PNG) <b>\n\n# H"
    drawn = chips.over_text(text, ["hug"], [(0, 3)], [9])
    body = drawn.split('<div class="wpl-text"', 1)[1]
    assert "\n" not in body  # a Markdown block of one line: nothing after it is read as Markdown
    assert body.count("<br>") == 4  # the line breaks drawn as such
    drawn_text = html_lib.unescape(re.sub(r"<[^>]*>", "", body.split(">", 1)[1]))
    assert re.sub(r"[\s\u2060]", "", drawn_text) == re.sub(r"\s", "", text)


def test_only_a_long_chip_may_wrap():
    assert "wpl-long" in chips.chip("x" * 25) and "wpl-long" not in chips.chip("x" * 24)


def test_a_character_cut_across_byte_level_tokens_is_one_chip_with_its_count_of_tokens():
    import html as html_lib
    drawn = html_lib.unescape(chips.over_text("é", ["Ã", "©"], [(0, 1), (0, 1)], [1, 2]))
    body = drawn.split('<div class="wpl-text"', 1)[1]
    assert body.count('class="wpl-chip') == 1 and "wpl-bytes" in body  # one chip, dashed
    assert ">é<" in body and '<span class="wpl-n">2</span>' in body  # the character once, and its two tokens
    assert "é = 2 tokens: Ã © · ids 1 2" in body  # each token and its id in the hover text
    # a word, then a character cut in three (Hindi's क as GPT-2 cuts it): the word's chip, then one for क
    text = "ab क"
    drawn = html_lib.unescape(chips.over_text(text, ["ab", "Ġà¤", "ķ"], [(0, 2), (3, 4), (3, 4)], [1, 2, 3]))
    body = drawn.split('<div class="wpl-text"', 1)[1]
    assert body.count('class="wpl-chip') == 2 and ">␣क<" in body and '"wpl-n">2<' in body
    assert "à¤" not in body.split("title=", 1)[0] and ">ķ<" not in body  # no byte letters as chip text
    # tokens that do not overlap stay chips of their own
    drawn = html_lib.unescape(chips.over_text("ab", ["a", "b"], [(0, 1), (1, 2)], [1, 2]))
    assert drawn.count('class="wpl-chip') == 2 and "wpl-n" not in drawn.split('<div class="wpl-text"', 1)[1]
