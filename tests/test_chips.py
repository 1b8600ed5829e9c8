"""wordpiece_ui/chips.py: tokens as escaped HTML chips over the text they cover."""

import re

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
    texts = re.findall(r'class="wpl-chip[^"]*"[^>]*>([^<]*)<', body)
    assert texts == ["ab", "␣क"]  # no byte letters (à¤, ķ) as chip text
    # tokens that do not overlap stay chips of their own
    drawn = html_lib.unescape(chips.over_text("ab", ["a", "b"], [(0, 1), (1, 2)], [1, 2]))
    assert drawn.count('class="wpl-chip') == 2 and "wpl-n" not in drawn.split('<div class="wpl-text"', 1)[1]


def test_a_markers_own_token_stays_a_chip_of_its_own_and_an_unknown_stays_unknown():
    """SentencePiece gives a word's ▁ alone the span of the word's first character: it joins no byte run, and an
    unknown character after it is still drawn as [UNK] (hatched), not as a run of two tokens."""
    import html as html_lib

    drawn = html_lib.unescape(chips.over_text("क a", ["▁", "<unk>", "▁a"], [(0, 1), (0, 1), (1, 3)], [1, 0, 3],
                                              {"<unk>"}, unk_id=0))
    body = drawn.split('<div class="wpl-text"', 1)[1]
    assert "wpl-bytes" not in body and "[UNK] (unknown token) for 'क' · id 0" in body
    assert re.findall(r'class="wpl-chip[^"]*"[^>]*>([^<]*)<', body) == ["▁", "क", " a"]
    # byte fallback: ▁, then the two bytes of é as one run of two tokens
    drawn = html_lib.unescape(chips.over_text("é", ["▁", "<0xC3>", "<0xA9>"], [(0, 1), (0, 1), (0, 1)], [5, 6, 7]))
    assert "é = 2 tokens: <0xC3> <0xA9> · ids 6 7" in drawn


def test_a_token_that_begins_before_its_run_does_not_join_it():
    drawn = chips.over_text("xyz", ["z", "x"], [(2, 3), (0, 1)], [1, 2])
    assert "wpl-bytes" not in drawn.split('<div class="wpl-text"', 1)[1]
