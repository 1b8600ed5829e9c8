"""The token premium on parallel text (wordpiece_core/fairness.py, parallel_text.py) and the page "Fair to every
language?" (pages/fairness.py)."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import app, html_tables, shown, train_bpe
from wordpiece_core import shelf
from wordpiece_core.errors import WordPieceError
from wordpiece_core.fairness import costs, count
from wordpiece_core.parallel_text import read
from wordpiece_ui.fairness_view import MEASURED, PARALLEL_FILE

tiktoken = pytest.importorskip("tiktoken")


def _table(at):
    """The page's table of numbers (HTML: html_table)."""
    return next(t for h in at.get("html") for t in html_tables(h.proto.body) if "tokenizer" in t.columns)


@pytest.fixture(scope="module")
def languages():
    return read(PARALLEL_FILE)


def test_the_parallel_text_holds_every_script_the_issue_names_in_nfc(languages):
    import unicodedata

    scripts = {language.script for language in languages}
    assert len(languages) >= 25
    assert {"Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Bengali", "Tamil", "Thai", "Myanmar",
            "Ethiopic", "Georgian", "Armenian", "Han", "Hangul"} <= scripts
    for language in languages:
        text = language.text(tuple(range(1, 31)))
        assert unicodedata.is_normalized("NFC", text), language.name
    english = next(lang for lang in languages if lang.name == "English")
    assert english.articles[0][0].startswith("All human beings are born free and equal in dignity and rights.")


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base"])
def test_premiums_equal_those_tiktoken_gives_on_the_same_articles(languages, name):
    """Golden: GPT-2's and GPT-4's premiums, computed here by tiktoken itself from the shelf's files, within 5 %
    (they are equal: the encodings are tiktoken's)."""
    from wordpiece_core.tiktoken_files import ENCODINGS, read_ranks

    e = ENCODINGS[name]
    reference = tiktoken.Encoding(name, pat_str=e.pattern, mergeable_ranks=read_ranks(shelf.file_text(name), name),
                                  special_tokens=e.specials)
    english = len(reference.encode_ordinary(next(lang for lang in languages if lang.name == "English").text(MEASURED)))
    ours = {c.language: c.premium for c in costs(shelf.load(name), languages, MEASURED)}
    for language in languages:
        theirs = len(reference.encode_ordinary(language.text(MEASURED))) / english
        assert ours[language.name] == pytest.approx(theirs, rel=0.05), language.name


def test_the_order_is_the_one_the_papers_report(languages):
    """GPT-2 makes Hindi, Tamil and Burmese pay several times English's tokens, and o200k less than cl100k, which
    pays less than GPT-2 (Petrov et al. 2023 report the same order on FLORES)."""
    premiums = {name: {c.language: c.premium for c in costs(shelf.load(name), languages, MEASURED)}
                for name in shelf.SHELF}
    for language in ("Hindi", "Tamil", "Burmese"):
        assert premiums["r50k_base"][language] > 5
        assert premiums["r50k_base"][language] > premiums["cl100k_base"][language] > premiums["o200k_base"][language]
    assert premiums["r50k_base"]["English"] == 1.0


def test_words_split_and_characters_lost_are_counted_from_the_offsets():
    tok = shelf.load("r50k_base")
    tokens, words, split, lost = count(tok, "the cat sat")
    assert (tokens, words, split, lost) == (3, 3, 0, 0)
    assert count(tok, "hello unbelievablyness")[2] == 1  # Ġunbelievably + ness (its first token holds the space)
    tokens, words, split, lost = count(tok, "ሰው ሁሉ")  # Ethiopic: each character falls to bytes
    assert split == 2 and lost == 4


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab \n", max_size=30), st.lists(st.tuples(st.integers(0, 30), st.integers(0, 6)), max_size=8))
def test_characters_lost_are_the_union_of_the_lost_spans_without_white_space(text, spans):
    """_covered (merged spans, white space counted by prefix sums) against the plain definition: the set of the
    characters the spans cover, white space left out. Byte-level's pieces of one character share its span."""
    from itertools import accumulate

    from wordpiece_core.fairness import _covered

    spans = [(min(start, len(text)), min(start + width, len(text))) for start, width in spans]
    spans = [(start, end) for start, end in spans if end > start]
    plain = {i for start, end in spans for i in range(start, end) if not text[i].isspace()}
    spaces = list(accumulate(map(str.isspace, text), initial=0))
    assert _covered(spans, spaces) == len(plain)


def test_characters_no_token_holds_are_lost():
    """A byte-level BPE trained on English alone without every byte drops the bytes of a script it never saw:
    Hindi then looks cheap (few tokens), and its lost column says why."""
    from wordpiece_core.corpus import TextSettings, count_text
    from wordpiece_core.formats import tokenizer_json
    from wordpiece_core.loading import tokenizer_from_json

    counts = count_text("all human beings are born free and equal in dignity and rights", TextSettings("none",
                                                                                                        "byte-level"))
    tok = tokenizer_from_json(tokenizer_json(train_bpe(counts, 60), "none", "byte-level"), "test")
    tokens, words, split, lost = count(tok, "सभी मनुष्य free")
    assert lost == len("सभीमनुष्य") and tokens <= 4  # only " free" (and the spaces) remain
    assert count(tok, "free and equal")[3] == 0


@pytest.mark.parametrize("prefix_space", [False, True])
def test_byte_level_offsets_of_repeated_words_are_tokenizers_own(languages, prefix_space):
    """Differential: a byte-level BPE's offsets (a word's worked out once, wherever it occurs; the first word with
    the added prefix space the other way) equal `tokenizers`' on three languages' articles (multi-byte characters,
    repeated words, characters never trained on)."""
    tokenizers = pytest.importorskip("tokenizers")
    import json

    from wordpiece_core.corpus import TextSettings, count_text
    from wordpiece_core.formats import tokenizer_json
    from wordpiece_core.loading import tokenizer_from_json

    three = [language for language in languages if language.name in ("English", "Hindi", "Amharic")]
    corpus = "\n".join(language.text(tuple(range(1, 6))) for language in three[:2])  # Amharic: never trained on
    counts = count_text(corpus, TextSettings("none", "byte-level", prefix_space))
    doc = tokenizer_json(train_bpe(counts, 600, full_byte_alphabet=True), "none", "byte-level", prefix_space)
    ours, theirs = tokenizer_from_json(doc, "test"), tokenizers.Tokenizer.from_str(json.dumps(doc))
    for language in three:
        text = language.text(MEASURED[:3])
        a, b = ours.encode(text, add_special_tokens=False), theirs.encode(text, add_special_tokens=False)
        assert a.tokens == b.tokens and a.offsets == [tuple(o) for o in b.offsets], language.name


GPT2 = "r50k_base (GPT-2, GPT-3)"  # the shelf's tokenizer in the page's table, chart and answer


def test_the_page_opens_on_gpt2_cl100k_and_the_sidebars_training():
    at = app("pages/fairness.py", corpus="course-toy")
    assert not at.exception
    table = _table(at)
    names = set(table["tokenizer"])
    assert len(names) == 3 and {GPT2, "cl100k_base (GPT-3.5, GPT-4)"} < names  # named as the answer names them
    assert any(name.startswith("your ") for name in names)
    assert len(set(table["language"])) >= 25
    shan = table[(table["tokenizer"] == GPT2) & (table["language"] == "Shan")].iloc[0]
    assert shan["premium"] > 10 and shan["fertility"] != shan["fertility"]  # no fertility (an empty cell): Shan's words are not spaced
    assert any("pays the most" in m.value for m in at.markdown)


def test_the_sidebars_training_starts_before_the_page_runs_when_the_page_will_measure_it(monkeypatch):
    """app.py starts the sidebar's training before the fairness page imports and draws (trained.start_early), when
    the page's picks hold it: the link's, the session's, or the default."""
    from wordpiece_ui import fairness_picks, state, trained

    kept = state.kept(fairness_picks.LINK)
    assert fairness_picks.measures_training({}, {}, kept)  # a first visit: the default holds it
    assert fairness_picks.measures_training({}, {"tokenizers": "r50k_base,trained"}, kept)
    assert not fairness_picks.measures_training({}, {"tokenizers": "r50k_base"}, kept)
    assert not fairness_picks.measures_training({kept: "o200k_base"}, {"tokenizers": "trained"}, kept)
    assert not fairness_picks.measures_training({fairness_picks.PICK: ["r50k_base"]}, {}, kept)
    assert fairness_picks.measures_training({fairness_picks.PICK: ["trained"]}, {"tokenizers": "r50k_base"}, kept)
    assert fairness_picks.measures_training({kept: ""}, {}, kept)  # nothing the page knows: its default
    assert fairness_picks.measures_training({}, {"tokenizers": "gpt5,<b>"}, kept)

    started = []
    monkeypatch.setattr(trained, "start_early", lambda settings, pair: started.append((settings.corpus, pair)))
    app("pages/fairness.py", corpus="course-toy", tokenizers="r50k_base")
    assert started == []
    at = app("pages/fairness.py", corpus="course-toy")
    assert started and started[0] == ("course-toy", False)
    assert at.session_state[fairness_picks.PICK] == list(fairness_picks.DEFAULT)  # the page's own picks: the same


def test_the_pages_choices_come_from_its_link():
    at = app("pages/fairness.py", corpus="course-toy", tokenizers="o200k_base", languages="English,Hindi,Thai",
             article="3")
    table = _table(at)
    assert set(table["tokenizer"]) == {"o200k_base (GPT-4o, GPT-4.1, o1, o3)"} and set(table["language"]) == {"English", "Hindi", "Thai"}
    assert at.number_input(key="article_pick").value == 3


def test_the_shelfs_costs_kept_with_the_app_equal_a_fresh_computation():
    """sample_corpora/udhr-shelf-costs.json (which spares a cold server three tokenizations of 40 languages) is
    what the code computes now; make_shelf_costs.py regenerates it."""
    import json

    from wordpiece_ui.fairness_view import COSTS_FILE, fresh_shelf_costs

    with open(COSTS_FILE, encoding="utf-8") as f:
        kept = json.load(f)
    fresh = json.loads(json.dumps(fresh_shelf_costs()))
    assert kept.keys() == fresh.keys()
    for name in fresh:
        assert kept[name]["parallel_text"] == fresh[name]["parallel_text"]
        for a, b in zip(kept[name]["rows"], fresh[name]["rows"], strict=True):
            assert a.keys() == b.keys()
            for column, value in a.items():
                assert value == (pytest.approx(b[column]) if isinstance(value, float) else b[column]), (name, column)


def test_a_tokenizer_file_uploaded_on_the_playground_can_be_measured():
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from test_pages_playground import upload_tokenizer

    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    english = read(PARALLEL_FILE)[0].text(tuple(range(1, 21)))
    tok.train_from_iterator(english.splitlines(), trainers.BpeTrainer(vocab_size=300, special_tokens=["[UNK]"]))
    at = app("pages/playground.py", corpus="course-toy")
    upload_tokenizer(at, "english-bpe.json", tok.to_str().encode())
    at.switch_page("pages/fairness.py").run()
    assert "the playground's file: english-bpe.json" in at.multiselect(key="tokenizers_pick").options
    at.multiselect(key="tokenizers_pick").set_value(["uploaded"]).run()
    assert not at.exception
    table = _table(at)
    assert set(table["tokenizer"]) == {"english-bpe.json"}
    hindi = table[table["language"] == "Hindi"].iloc[0]
    assert float(hindi["lost to [UNK] or bytes %"]) > 50  # an English-only BPE has no Devanagari: [UNK]


def test_a_mix_of_ones_own_holds_each_language_as_many_times_as_asked(languages):
    from wordpiece_ui import fairness_view

    frame = fairness_view.mix_frame("web")
    assert int(frame.loc[frame["language"] == "Hindi", "copies"].iloc[0]) == 0  # the web's mix leaves Hindi out
    frame.loc[frame["language"] == "Hindi", "copies"] = 3
    name, data = fairness_view.mix_file(frame)
    text = data.decode("utf-8")
    hindi = next(lang for lang in languages if lang.name == "Hindi").text(tuple(range(1, 21)))
    assert text.count(hindi) == 3 and name == "udhr-mix (as the web has them; Hindi ×3).txt"  # two mixes tell apart
    frame.loc[frame["language"].isin(["Thai", "Shan", "Tamil", "Lao"]), "copies"] = 2
    assert fairness_view.mix_file(frame)[0] == "udhr-mix (as the web has them; 5 changes).txt"
    assert fairness_view.mix_file(fairness_view.mix_frame("equal"))[0] == "udhr-mix (every language equally).txt"
    only = fairness_view.mix_frame("english")
    only.loc[only["language"] == "Hindi", "copies"] = 2
    assert fairness_view.mix_file(only)[0] == "udhr-mix (English, Hindi ×2).txt"
    only.loc[only["language"] == "Thai", "copies"] = 101
    with pytest.raises(WordPieceError, match="from 0 to 100"):
        fairness_view.mix_file(only)
    with pytest.raises(WordPieceError, match="holds no language"):
        fairness_view.mix_file(fairness_view.mix_frame("english").assign(copies=0))


def _rerun_until(at, done, tries: int = 60) -> None:
    """Run the page again every half second until `done(at)` (a training runs in a worker meanwhile)."""
    for _ in range(tries):
        if done(at):
            return
        time.sleep(0.5)
        at.run()


def _said(text: str):
    return lambda at: any(text in m.value for m in at.markdown)


def _drawings(markup: str) -> dict[str, str]:
    """The premium chart's images in `markup`: class (wpl-wide, wpl-narrow) → its SVG, decoded."""
    import base64

    return {css: base64.b64decode(data).decode()
            for css, data in re.findall(r'<img class="(wpl-\w+)"[^>]*? src="data:image/svg\+xml;base64,([^"]+)"', markup)}


def _chart(at) -> str:
    """The premium chart on the page: the screen's drawing (its image's SVG), its texts unescaped."""
    import html

    markup = next(h.proto.body for h in at.get("html") if "wpl-premium" in h.proto.body)
    return html.unescape(_drawings(markup)["wpl-wide"])


def _table_back(at) -> bool:
    """The training is measured: the page drew its table again."""
    return any('class="wpl-table"' in h.proto.body for h in at.get("html"))


def _train_mixes(at, *buttons: str) -> None:
    """Click each mix button in turn, each time until its training is measured (the table is back)."""
    for label in buttons:
        next(b for b in at.button if b.label == label).click().run()
        _rerun_until(at, _table_back)


def test_the_own_mix_button_trains_the_sidebar_on_the_mix():
    at = app("pages/fairness.py", corpus="course-toy", algorithm="bpe", tokenizers="r50k_base")
    assert not at.data_editor and not any(b.label == "Train the sidebar's tokenizer on this mix" for b in at.button)
    at.session_state["mix_open"] = True  # the expander opened: its editor is drawn then (a first visit waits less)
    at.run()
    assert len(at.data_editor) == 1
    next(b for b in at.button if b.label == "Train the sidebar's tokenizer on this mix").click().run()
    assert not at.exception
    assert at.session_state["s_corpus"] == "upload" and at.session_state["s_vocab_size"] == 8000
    assert (at.session_state["s_algorithm"], at.session_state["s_pre_tokenizer"]) == ("bpe", "byte-level")
    assert at.session_state["s_byte_alphabet"]  # all 256 bytes, as GPT-2's: an unseen script pays in bytes
    _rerun_until(at, _table_back)  # the training runs in a worker; the page shows its progress meanwhile
    names = set(_table(at)["tokenizer"])
    assert GPT2 in names and any(name.startswith("your BPE") for name in names)


def test_english_only_makes_every_other_script_pay_in_bytes():
    """English only: byte-level BPE with all 256 bytes (as GPT-2's), so a script it never saw pays in bytes (its
    premium high, its characters lost to bytes) instead of vanishing and looking cheap."""
    at = app("pages/fairness.py", corpus="course-toy", algorithm="bpe", tokenizers="trained",
             languages="English,Hindi,Tamil,Russian")
    _train_mixes(at, "English only")
    assert at.session_state["s_corpus"] == "udhr-english" and at.session_state["s_byte_alphabet"]
    table = _table(at)
    mine = table[table["tokenizer"].str.startswith("your BPE")].set_index("language")
    for language in ("Hindi", "Tamil", "Russian"):
        assert mine.loc[language, "premium"] > 3, (language, mine.loc[language, "premium"])
        assert mine.loc[language, "lost to [UNK] or bytes %"] > 50, language
    assert mine.loc["English", "lost to [UNK] or bytes %"] == 0


def test_a_new_training_is_compared_with_the_one_before_and_the_table_starts_with_its_names():
    """Train on the web's mix (Hindi left out: it pays in bytes), then on every language equally: the page says how
    Hindi's premium moved."""
    at = app("pages/fairness.py", corpus="course-toy", tokenizers="trained")
    _train_mixes(at, "As the web has them", "Every language equally")
    assert not at.exception
    table = _table(at)
    assert list(table.columns[:3]) == ["tokenizer", "language", "premium"]  # the premium before a phone's edge
    said = " ".join(shown(m.value) for m in at.markdown)
    assert "Since the training before (your BPE on UDHR, languages as the web has them)" in said
    import re

    before, after = map(float, re.search(r"Hindi ([0-9.]+)× → ([0-9.]+)×", said).groups())
    assert before > 2 * after  # left out, Hindi paid in bytes; with its share, it pays far less
    assert any("Hindi" in t.value for t in at.toast)  # said where the student looks, too


def test_a_training_on_a_corpus_without_these_languages_is_not_the_baseline():
    """The sidebar's toy WordPiece (English words) is measured, but said to be no measure of the languages, and a
    mix trained next is not compared with it (its Hindi "1.1×" was [UNK], not cheap)."""
    at = app("pages/fairness.py", corpus="course-toy", tokenizers="trained")
    assert any("holds little or none of these languages" in i.value for i in at.info)
    next(b for b in at.button if b.label == "Every language equally").click().run()
    _rerun_until(at, lambda at: any("udhr" in m.value.lower() for m in at.markdown if "Through" in m.value))
    said = " ".join(shown(m.value) for m in at.markdown)
    assert "every language equally" in said and "Since the training before" not in said
    assert not any("holds little or none" in i.value for i in at.info)


def test_an_edit_still_open_in_the_mix_editor_counts():
    """The button reads the editor's state when clicked (an edit the student did not close with Enter is in it),
    not the frame it was drawn with."""
    from wordpiece_ui import fairness_view

    frame = fairness_view.mix_frame("web")
    hindi = int(frame.index[frame["language"] == "Hindi"][0])
    assert frame.at[hindi, "copies"] == 0 and "सभी मनुष्यों" not in fairness_view.mix_file(frame)[1].decode()
    edited = fairness_view.with_edits(frame, {"edited_rows": {hindi: {"copies": 30}}, "added_rows": []})
    assert edited.at[hindi, "copies"] == 30 and frame.at[hindi, "copies"] == 0
    assert fairness_view.with_edits(frame, {"edited_rows": {str(hindi): {"copies": None}}}).at[hindi, "copies"] == 0
    assert fairness_view.with_edits(frame, None).equals(frame)
    name, data = fairness_view.mix_file(edited)
    assert "सभी मनुष्यों" in data.decode()  # Hindi's article 1 is in the mix


def test_the_answer_comes_first_and_the_table_finds_one_language():
    """A phone sees who pays most under the title, before the pickers; "Rows of" shows one language's rows."""
    at = app("pages/fairness.py", corpus="course-toy")
    order = [getattr(e, "type", "") + ":" + str(getattr(e, "value", getattr(e, "label", ""))) for e in at.main]
    answer = next(i for i, e in enumerate(order) if "pays the most" in e)
    picker = next(i for i, e in enumerate(order) if e.startswith("multiselect"))
    assert answer < picker
    assert len(set(_table(at)["language"])) >= 25
    at.selectbox(key="fair_find").select("Hindi").run()
    table = _table(at)
    assert set(table["language"]) == {"Hindi"} and len(table) == 3  # each tokenizer's row for Hindi
    at.selectbox(key="fair_sort").select("lost to [UNK] or bytes %").run()  # sorted: Hindi's rows, most lost first
    lost = _table(at)["lost to [UNK] or bytes %"].tolist()
    assert len(lost) == 3 and lost == sorted(lost, reverse=True)
    at.selectbox(key="fair_find").select("every language").run()
    table = _table(at)
    assert table["lost to [UNK] or bytes %"].is_monotonic_decreasing and len(set(table["language"])) >= 25
    at.selectbox(key="fair_sort").select("the chart's order").run()
    table = _table(at)  # the chart's order: the dearest language through GPT-2 first, each one's rows together
    answer = next(shown(m.value) for m in at.markdown if "pays the most" in m.value)
    assert f", {table.iloc[0]['language']} pays the most" in answer, answer
    assert table["language"].tolist() == sorted(table["language"], key=table["language"].tolist().index)


def test_the_article_is_drawn_as_chips_in_three_languages_with_characters_not_byte_letters():
    """English, the dearest language and Hindi side by side; GPT-2 cuts each Devanagari character into byte tokens,
    drawn as one chip over the character with its count of tokens (never as the byte letters à¤)."""
    at = app("pages/fairness.py", corpus="course-toy", tokenizers="r50k_base")
    blocks = [h.proto.body for h in at.get("html") if "wpl-html" in h.proto.body]
    assert len(blocks) == 3
    assert any("Hindi" in m.value and "tokens" in m.value for m in at.markdown)
    hindi = blocks[2]
    assert "wpl-bytes" in hindi and '<span class="wpl-n">' in hindi
    chip_texts = re.findall(r'class="wpl-chip[^"]*"[^>]*>([^<]*)<', hindi)
    assert chip_texts and not any("à¤" in t for t in chip_texts)


def test_the_premium_chart_is_valid_vega_lite_drawn_as_images_once_per_tokenizers_languages_and_theme(monkeypatch):
    import pandas as pd

    from wordpiece_ui import fairness_view

    hostile = "<b>x</b> & y\n\n</title><script>alert('\"1\"')</script>"  # a file's name: a blank line, markup
    table = pd.DataFrame({"tokenizer": ["a", "a", hostile, hostile], "language": ["English", "Hindi"] * 2,
                          "premium": [1.0, 7.5, 1.0, 2.5], "tokens": [10, 75, 10, 25],
                          "script": ["Latin", "Devanagari"] * 2})
    fairness_view.premium_chart(table, ["Hindi", "English"]).to_dict(validate=True)  # the schema holds
    made = []
    real = fairness_view.premium_chart
    monkeypatch.setattr(fairness_view, "premium_chart", lambda *a: made.append(a[-1]) or real(*a))
    keys = ((("shelf", "a"), "a"), (("uploaded", "b"), hostile))
    html = fairness_view.premium_html(keys, table, ["Hindi", "English"])
    assert made == [fairness_view.WIDE[False], fairness_view.NARROW]  # a screen's drawing and a phone's
    drawings = _drawings(html)
    assert set(drawings) == {"wpl-wide", "wpl-narrow"} and html.count("<img ") == 2
    assert 'data-points="4"' in html  # a mark per language and tokenizer
    # Images: nothing in them runs, and a name from a file is text, never markup, in the drawing and in the page.
    for svg in drawings.values():
        assert "<b>" not in svg and "<script" not in svg and "&lt;b&gt;x&lt;/b&gt; &amp; y" in svg
        assert "aria-label" not in svg and "<title>" not in svg  # nothing a screen reader reads inside an image
        assert 'fill="white"' not in svg  # drawn on the page's background (light or dark)
        assert svg.count("font-family") == 1 and not re.search(r' d="[^"]*\d\.\d{3}', svg)  # compact
    assert "<svg" not in html and "<script" not in html and "<b>" not in html
    # The image says what the chart shows, for a screen reader: the order and the dearest language's premium.
    import html as markup

    alt = re.search(r'alt="([^"]*)"', html)[1]
    assert "sorted by a's premium, dearest first: Hindi 7.5×, English 1.0×" in markup.unescape(alt), alt
    assert "&lt;b&gt;x&lt;/b&gt; &amp; y" in alt and "<" not in alt  # escaped: the name stays text
    assert fairness_view.premium_html(keys, table, ["Hindi", "English"]) == html and len(made) == 2  # made once
    dark = fairness_view.premium_html(keys, table, ["Hindi", "English"], dark=True)
    assert dark != html and "#FAFAFA" in _drawings(dark)["wpl-wide"]
    fairness_view.premium_html(keys, table, ["English", "Hindi"])  # another order
    fairness_view.premium_html(keys[:1], table, ["Hindi", "English"])  # other tokenizers
    fairness_view.premium_html(keys, table, ["Hindi", "English"], large=True)
    assert len(made) == 2 * 5


def test_a_second_session_reads_the_tables_and_chips_the_first_made(monkeypatch):
    """A class opening the page at once: the table, its order, CSV and the article's chips are made once for the
    server (fairness_view.summary, chips), then read; the page shows the same numbers to each."""
    from wordpiece_ui import fairness_view

    made = {"summary": 0, "chips": 0}
    real_order, real_chips = fairness_view.in_order, fairness_view.article_chips

    def counting(name, real):
        return lambda *a: made.__setitem__(name, made[name] + 1) or real(*a)

    monkeypatch.setattr(fairness_view, "in_order", counting("summary", real_order))
    monkeypatch.setattr(fairness_view, "article_chips", counting("chips", real_chips))
    link = dict(corpus="course-toy", tokenizers="r50k_base,trained", languages="English,Hindi,Thai,Greek",
                article="7")
    first = app("pages/fairness.py", **link)
    assert made == {"summary": 1, "chips": 3}  # three languages' chips
    second = app("pages/fairness.py", **link)
    assert made == {"summary": 1, "chips": 3}  # read, not made again
    assert _table(second).equals(_table(first)) and len(_table(first)) == 2 * 4
    assert [m.value for m in second.markdown] == [m.value for m in first.markdown]
    second.number_input[0].set_value(8).run()  # another article: its chips
    assert made == {"summary": 1, "chips": 6}
    second.multiselect[1].set_value(["English", "Hindi"]).run()  # other languages: another summary
    assert made["summary"] == 2 and set(_table(second)["language"]) == {"English", "Hindi"}


def test_the_svg_is_sent_compact_its_texts_as_they_are():
    """static_chart.compact: coordinates cut to hundredths, the font named once on the drawing; a text (a file's
    name in a title or a label) keeps every digit."""
    from wordpiece_ui.static_chart import FONT, compact

    font = ' font-family="&quot;Source Sans&quot;, &quot;Source Sans Pro&quot;, sans-serif"'
    assert FONT.replace('"', "&quot;") in font
    svg = (f'<svg class="marks" width="725.5"><path transform="translate(12.000000000000018,739.085995)" '
           f'd="M4.7434,0A4.7434,4.7434,0,1,1,-4.7434,0"><title>tok-0.12345.json: 7.50× (1,547 tokens)</title>'
           f'</path><text{font} x="3.14159" fill="#0072B2">v1.23456</text></svg>')  # (a title: Vega's own)
    small = compact(svg)
    assert small.count("font-family") == 1 and small.startswith("<svg" + font + " ")
    assert 'transform="translate(12.00,739.08)"' in small and 'd="M4.74,0A4.74,4.74,0,1,1,-4.74,0"' in small
    assert 'x="3.14"' in small and 'width="725.5"' in small
    assert "<title>tok-0.12345.json: 7.50× (1,547 tokens)</title>" in small and ">v1.23456</text>" in small


def test_presenter_mode_gives_the_page_big_type_and_keeps_it_in_the_link():
    at = app("pages/fairness.py", corpus="course-toy", present="1")
    assert not at.exception
    assert any("font-size: 1.3rem" in h.proto.body for h in at.get("html"))  # presenter mode's CSS
    assert at.query_params.get("present") == "1"
    plain = app("pages/fairness.py", corpus="course-toy")
    assert not any("font-size: 1.3rem" in h.proto.body for h in plain.get("html"))


HINDI_MIX = "the web's mix + Hindi"  # its file's name, less ".txt"


def test_hindi_added_to_the_webs_mix_in_one_click_and_the_page_says_how_it_moved():
    """The lesson's two trainings as two buttons: the web's mix, then the same with Hindi added."""
    at = app("pages/fairness.py", corpus="course-toy", tokenizers="r50k_base,trained")
    _train_mixes(at, "As the web has them", "As the web has them, Hindi added")
    assert not at.exception
    said = " ".join(shown(m.value) for m in at.markdown)
    assert f"your BPE on {HINDI_MIX}" in said
    before, after = map(float, re.search(r"Hindi ([0-9.]+)× → ([0-9.]+)×", said).groups())
    assert before > 2 * after
    # Both trainings on the chart and in the table, side by side: the one before is picked for the student.
    assert "before" in at.multiselect(key="tokenizers_pick").value
    web = "before: your BPE on UDHR, languages as the web has them"
    chart = _chart(at)
    assert web in chart and f"your BPE on {HINDI_MIX}" in chart and GPT2 in chart  # the legend names all three
    table = _table(at)
    hindi = table[table["language"] == "Hindi"].set_index("tokenizer")["premium"]
    assert set(hindi.index) >= {GPT2, web, f"your BPE on {HINDI_MIX}"}, hindi
    assert hindi[web] == pytest.approx(before, abs=0.051)  # the table's figures, which the chart draws, are the line's
    assert hindi[f"your BPE on {HINDI_MIX}"] == pytest.approx(after, abs=0.051)


def test_hindi_added_first_is_still_compared_with_the_webs_mix():
    """A newcomer clicks "Hindi added" before anything else (the sidebar on the toy words, then equal's mix): the page
    trains the web's mix too and compares with it, not with nothing or with the equal mix."""
    at = app("pages/fairness.py", corpus="course-toy", tokenizers="r50k_base,trained")
    _train_mixes(at, "Every language equally", "As the web has them, Hindi added")
    _rerun_until(at, _said("Since the training before"))  # the web's mix trains after the Hindi mix
    assert not at.exception
    said = " ".join(shown(m.value) for m in at.markdown)
    assert "Since the training before (your BPE on UDHR, languages as the web has them)" in said, said[:600]
    before, after = map(float, re.search(r"Hindi ([0-9.]+)× → ([0-9.]+)×", said).groups())
    assert before > 2 * after
    assert "before: your BPE on UDHR, languages as the web has them" in _chart(at)  # drawn beside the new one


def test_the_training_before_is_the_one_measured_last_and_moves_list_real_changes():
    import pandas as pd

    from wordpiece_ui import fairness_view
    from wordpiece_ui.fairness_view import Measured, before, changes, remember

    rows = pd.DataFrame({"tokenizer": ["t"], "language": ["Hindi"], "premium": [9.0]})
    session: dict = {}
    assert remember(session, Measured("k1", "web", rows)) and before(session) is None  # a first: nothing before
    assert not remember(session, Measured("k1", "web", rows)) and before(session) is None  # the same: no move
    assert remember(session, Measured("k2", "hindi", rows)) and before(session).name == "web"
    assert remember(session, Measured("k3", "equal", rows)) and before(session).name == "hindi"
    assert before(session).as_before()["tokenizer"].tolist() == ["before: hindi"]
    assert before({fairness_view.BEFORE_TRAINED: "stale"}) is None
    said = changes({"Hindi": 9.2, "Korean": 1.6, "Shan": 14.0, "Thai": 8.0}, {"Hindi": 2.5, "Korean": 1.7,
                                                                           "Shan": 14.2, "Thai": 4.0})
    assert said == "Hindi 9.2× → 2.5×, Thai 8.0× → 4.0×"  # Korean and Shan moved by less than a tenth
    assert changes({"Shan": 14.0}, {"Shan": 14.2}) == "no language moved by a tenth"
    assert changes({"Hindi": 2.54}, {"Hindi": 2.48}) == "Hindi 2.54× → 2.48×"  # a small move still reads as one
    assert changes({"Hindi": 2.5}, {"Hindi": 2.501}) == "Hindi 2.5× (no change)"


def test_the_chart_is_drawn_by_the_browser_when_the_svg_engine_fails(monkeypatch):
    from wordpiece_ui import static_chart

    def broken(spec):
        raise RuntimeError("the engine died")

    monkeypatch.setattr(static_chart, "to_svg", broken)
    at = app("pages/fairness.py", corpus="course-toy", tokenizers="r50k_base,cl100k_base", languages="Hindi,Tamil")
    assert not at.exception
    charts = at.get("vega_lite_chart")
    assert len(charts) == 1 and "token premium" in charts[0].proto.spec  # Vega in the browser draws it instead
    assert not any("wpl-premium" in h.proto.body for h in at.get("html"))


def test_the_newcomers_first_click_adds_hindi_and_says_how_it_moved():
    """From the page as it opens (the toy training), the button under the answer: the web's mix with Hindi, compared
    with the web's mix (both trained), the answer in the line at the top and both marks on the chart."""
    at = app("pages/fairness.py", corpus="course-toy")
    at.button(key="mix web+hindi top").click().run()
    _rerun_until(at, _said("Since the training before"), tries=90)  # two trainings: the mix, then the web's
    assert not at.exception
    said = " ".join(shown(m.value) for m in at.markdown)
    assert "Since the training before (your BPE on UDHR, languages as the web has them): Hindi" in said, said[:500]
    chart = _chart(at)
    assert "before: your BPE on UDHR" in chart and f"your BPE on {HINDI_MIX}" in chart
    assert 'data-points="' + str(4 * 40) + '"' in next(h.proto.body for h in at.get("html") if "wpl-premium" in h.proto.body)
    assert not any(b.key == "mix web+hindi top" for b in at.button)  # done: the button is gone from the top


def test_a_name_xml_forbids_or_that_looks_like_markup_is_drawn_as_text():
    """A tokenizer file's name may hold a control character, U+FFFE or a lone surrogate (the SVG engine panics on
    them, which would end the server: they are drawn as U+FFFD), or text that looks like the SVG's own attributes
    (left as it is: only tags lose their labels, and only tags count as points)."""
    import html

    import pandas as pd

    from wordpiece_ui import fairness_view
    from wordpiece_ui.static_chart import drawable

    assert drawable("a\x01b\ufffe\ud800c\td") == "a\ufffdb\ufffd\ufffdc\td" and drawable("Ελ 中 🙂") == "Ελ 中 🙂"
    odd = 'x aria-roledescription="point" \x01y\ufffe.json'
    table = pd.DataFrame({"tokenizer": ["a", "a", odd, odd], "language": ["English", "Hindi"] * 2,
                          "premium": [1.0, 7.5, 1.0, 2.5], "tokens": [10, 75, 10, 25],
                          "script": ["Latin", "Devanagari"] * 2})
    made = fairness_view.premium_html(((("shelf", "a"), "a"), (("uploaded", "odd"), odd)), table, ["Hindi", "English"])
    assert 'data-points="4"' in made  # the name's "point" is no mark
    wide = html.unescape(_drawings(made)["wpl-wide"])
    assert 'x aria-roledescription="point" \ufffdy\ufffd.json' in wide  # the name as it is, its odd characters shown
