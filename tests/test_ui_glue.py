"""The app's glue (wordpiece_ui) without Streamlit: tables, charts, chips, settings, comparison."""

from helpers import TOY, train_bpe, train_wordpiece
from wordpiece_core.loading import tokenizer_from_training
from wordpiece_ui import charts, chips, compare, tables
from wordpiece_ui.settings import Settings, from_query


def test_arithmetic_is_written_with_the_steps_numbers():
    t = train_wordpiece(TOY, 30)
    assert [tables.arithmetic(s, "wordpiece") for s in t.steps[:3]] == [
        "5 / (20 × 5) = 1/20 = 0.05",
        "15 / (15 × 36) = 1/36 ≈ 0.0278",
        "5 / (15 × 5) = 1/15 ≈ 0.0667",
    ]
    assert tables.arithmetic(train_bpe(TOY, 30).steps[0], "bpe") == "count(u g) = 20"


def test_steps_frame_tokens_per_word_falls_to_one():
    t = train_wordpiece(TOY, 30)
    frame = tables.steps_frame(t)
    assert tables.start_tokens_per_word(t) == (3 * 10 + 3 * 5 + 3 * 12 + 3 * 4 + 4 * 5) / 36
    assert frame["tokens per word"].iloc[-1] == 1.0  # every word is one token at the end
    assert list(frame["vocabulary"]) == [len(t.vocab_at(i)) for i in range(1, len(t.steps) + 1)]


def test_candidates_bar_marks_winner_ties_and_bpe_pick():
    t = train_wordpiece(TOY, 30)
    frame = tables.candidates_frame(t.steps[1].candidates, "wordpiece")
    spec = charts.candidates_bar(frame, "score", "t", "exact")
    statuses = [r["status"] for r in spec["datasets"]["candidates"]]
    assert statuses == ["chosen"] + ["tied"] * 5
    by_count = frame.sort_values("count(ab)", ascending=False)
    spec = charts.candidates_bar(by_count, "count(ab)", "t", highlight="p + ##u")
    rows = {r["pair"]: r["status"] for r in spec["datasets"]["candidates"]}
    assert rows["p + ##u"] == "BPE's pick" and rows["h + ##u"] == "WordPiece's pick"
    first = min(spec["datasets"]["candidates"], key=lambda r: r["order"])
    assert first["pair"] == "p + ##u"  # BPE's view puts its own pick on top
    assert spec["layer"][0]["encoding"]["y"]["sort"] == {"field": "order", "op": "min"}


def test_step_charts_change_data_only():
    """The browser keeps a chart whose spec is unchanged and swaps its data: moving the
    step must not change the spec of the bars or of the over-all-steps lines."""
    t = train_wordpiece(TOY, 30)
    specs = [charts.candidates_bar(tables.candidates_frame(t.steps[i].candidates, "wordpiece"), "score", "t", "exact")
             for i in (0, 1)]
    assert [{k: v for k, v in s.items() if k != "datasets"} for s in specs][0] == \
        {k: v for k, v in specs[1].items() if k != "datasets"}
    assert specs[0]["datasets"] != specs[1]["datasets"]
    line = charts.over_steps(tables.steps_frame(t), "score", "s", log=True)
    a, b = charts.mark_step(line, 2), charts.mark_step(line, 5)
    assert {k: v for k, v in a.items() if k != "datasets"} == {k: v for k, v in b.items() if k != "datasets"}
    assert a["datasets"]["marker"] == [{"step": 2}] and b["datasets"]["curve"] is line["datasets"]["curve"]


def test_chips_escape_tokens():
    html = chips.over_text("<b>x</b>", ["<b>x</b>"], [(0, 8)], [1])
    assert "<b>x</b>" not in html.replace('<span class="wpl-chip', "") and "&lt;b&gt;" in html


def test_chips_cover_the_text_and_mark_unknowns():
    t = train_wordpiece(TOY, 30, special_tokens=["[UNK]", "[CLS]", "[SEP]"])
    tok = tokenizer_from_training(t, "none", "whitespace")
    enc = tok.encode("hugs mug")
    html = chips.over_text("hugs mug", enc.tokens, enc.offsets, enc.ids, set(tok.special_tokens))
    assert html.count("wpl-unk") == 2  # the CSS rule and the chip for "mug"
    assert ">mug<" in html and "[CLS]" in html


def test_settings_round_trip_through_the_url():
    s = Settings(corpus="wordfreq-fi", algorithm="bpe", vocab_size=777, normalizer="bert", pre_tokenizer="bert",
                 tie_break="hf", min_frequency=2, specials="unk")
    back, step, problems = from_query(s.to_query() | {"step": "12"})
    assert (back, step, problems) == (s, 12, [])


def test_compare_on_the_toy_corpus():
    bpe, wp = train_bpe(TOY, 30), train_wordpiece(TOY, 30)
    timeline, first = compare.timelines({"BPE": bpe, "WordPiece": wp}, follow="hug")
    assert first == 1 and timeline.loc[0, ""] == "◆"
    assert timeline.loc[2, ""] == "★" and timeline.loc[3, ""] == "★"  # BPE step 3 and WordPiece step 4 make hug
    ov = compare.overlap(bpe, wp)
    # BPE: 7 letters + 7 merges; WordPiece: 7 + 9; by letters, only BPE has ug and un,
    # only WordPiece has bu, gs (##gs), hu and pu
    assert (ov.a_only, ov.b_only, ov.shared, ov.a_size, ov.b_size) == (["ug", "un"], ["bu", "gs", "hu", "pu"], 12, 14, 16)
    assert ov.jaccard == 12 / 18
    shared = compare.shared_steps("BPE", bpe, "WordPiece", wp)
    assert shared.set_index("token").loc["hug"].tolist() == [3, 4]


def test_each_download_is_built_alone_and_equals_what_the_command_line_writes():
    from wordpiece_core.formats import output_files
    from wordpiece_ui.caches import download_file

    for algorithm in ("wordpiece", "bpe"):
        t = train_wordpiece(TOY, 30, special_tokens=("[UNK]", "[CLS]", "[SEP]")) if algorithm == "wordpiece" \
            else train_bpe(TOY, 30, special_tokens=("[UNK]",))
        files = output_files(t, "none", "whitespace")
        for name in ("tokenizer.json", "vocab.txt", "trace.jsonl", "merges.txt"):
            if name in files:
                assert download_file(t, Settings(), name) == files[name], name
        assert download_file(t, Settings(), "merges.txt").splitlines()[0] == f"{t.steps[0].left} {t.steps[0].right}"
        assert download_file(t, Settings(), "trace.csv").startswith("step,merge,new token")


def test_unknown_chips_are_told_apart_without_colour():
    html = chips.over_text("hug mug", ["hug", "[UNK]"], [(0, 3), (4, 7)], [5, 0])
    import html as html_lib
    unk = html_lib.unescape(html[html.index('class="wpl-chip wpl-unk"'):])
    assert "[UNK] (unknown token) for 'mug' · id 0" in unk
    assert "double" in chips.STYLE.split(".wpl-unk", 1)[1].split("}", 1)[0]  # a border style of its own …
    assert "#CC79A7" not in chips.PALETTE  # … and no ordinary token wears the hue [UNK] used to have


def test_overlap_counts_tokens_as_learned_and_spellings_apart():
    words = {"ab": 3, "b": 2, "ba": 1}  # WordPiece has both b and ##b
    bpe, wp = train_bpe(words, 30), train_wordpiece(words, 30)
    ov = compare.overlap(bpe, wp)
    assert (ov.a_tokens, ov.b_tokens) == (len(bpe.vocab), len(wp.vocab))
    assert ov.b_size < ov.b_tokens  # b and ##b are one spelling


def test_token_length_chart_has_a_colour_per_series_and_full_legend_labels():
    kinds = [f"kind {i}" for i in range(5)]
    import pandas as pd
    frame = pd.DataFrame({"length": [1] * 5, "tokens": [1] * 5, "kind": kinds})
    spec = charts.length_histogram(frame, "t").to_dict()
    colour = spec["encoding"]["color"]
    assert len(set(colour["scale"]["range"])) >= len(kinds) and colour["legend"]["labelLimit"] == 0


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
