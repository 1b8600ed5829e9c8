"""wordpiece_ui/charts.py: Altair charts of the trace's DataFrames."""

from helpers import TOY, train_wordpiece
from wordpiece_ui import charts, tables


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


def test_token_length_chart_has_a_colour_per_series_and_full_legend_labels():
    from wordpiece_ui.side_by_side import HF_VARIANT

    kinds = ["BPE: any position", "WordPiece: ## pieces", "WordPiece: word starts", f"{HF_VARIANT}: ## pieces",
             f"{HF_VARIANT}: word starts", "Unigram: any position"]
    import pandas as pd
    frame = pd.DataFrame({"length": [1] * 6, "tokens": [1] * 6, "kind": kinds})
    spec = charts.length_histogram(frame, "t").to_dict()
    colour = spec["encoding"]["color"]
    assert len(set(colour["scale"]["range"])) == len(kinds) and colour["legend"]["labelLimit"] == 0
    by_kind = dict(zip(colour["scale"]["domain"], colour["scale"]["range"]))
    assert by_kind["BPE: any position"] == charts.BPE_PICK and by_kind["WordPiece: word starts"] == charts.CHOSEN
    assert not {charts.TIED, charts.OTHER} & set(by_kind.values())  # those mean 'tied' and 'the rest' elsewhere


def test_one_number_format_per_chart():
    """Counts: whole numbers with separators (no ticks at 0.2, 0.4, …); tiny scores: the axis in the labels'
    power-of-ten form (once 0.0000020 beside 5.01e-06, then 5e-6 beside 5 × 10⁻⁶); a log scale says so in its
    title."""
    import pandas as pd

    t = train_wordpiece(TOY, 30)
    frame = tables.candidates_frame(t.steps[0].candidates, "wordpiece")
    axis = charts.candidates_bar(frame, "count(ab)", "t")["layer"][0]["encoding"]["x"]["axis"]
    assert axis["format"] == ",d" and axis["tickMinStep"] == 1
    tiny = frame.assign(score=frame["score"] * 1e-4)
    spec = charts.candidates_bar(tables.with_bar_labels(tiny.assign(exact=["1/123456789"] * len(tiny))), "score", "t",
                                 "shown")
    axis = spec["layer"][0]["encoding"]["x"]["axis"]
    assert axis["labelExpr"] == charts.POWER_LABEL and "format" not in axis
    assert spec["datasets"]["candidates"][0]["label"] == "5 × 10⁻⁶"  # 1/20 × 1e-4
    assert tables.fmt_score(5.01e-6) == "5.01 × 10⁻⁶" and tables.fmt_score(-7.8e-5) == "−7.8 × 10⁻⁵"
    assert "'⁻'" in charts.POWER_LABEL and "'⁹'" in charts.POWER_LABEL
    curve = charts.over_steps(pd.DataFrame({"step": [1, 2], "score": [0.5, 0.01]}), "score", "t", log=True)
    assert curve["layer"][0]["encoding"]["y"]["title"] == "score (log scale)"


def test_the_votes_after_a_reveal_mark_the_right_bar():
    import pandas as pd

    frame = pd.DataFrame({"choice": ["a + b", "c + d"] * 2, "round": ["round 1"] * 2 + ["round 2"] * 2,
                          "votes": [3, 1, 1, 3]})
    spec = charts.votes(frame, answer="c + d").to_dict()
    data = next(iter(spec["datasets"].values()))
    assert [(row["choice"], row["right"]) for row in data] == [("a + b", False), ("✓ c + d", True)] * 2
    assert spec["layer"][0]["encoding"]["opacity"] == {"condition": {"test": "datum.right", "value": 1.0}, "value": 0.35}
    assert "opacity" not in charts.votes(frame).to_dict()["layer"][0]["encoding"]  # before the reveal: no answer


def test_the_charts_built_without_validation_are_valid_vega_lite():
    """charts.spec skips Altair's schema validation on the server (about 0.1 s a chart); each kind is validated here,
    so a chart the code builds wrong still fails a test."""
    import altair as alt
    import pandas as pd

    t = train_wordpiece(TOY, 30)
    frame = tables.candidates_frame(t.steps[1].candidates, "wordpiece")
    for large in (False, True):
        for chart in (charts.candidates_bar(frame, "score", "t", "exact", large=large),
                      charts.candidates_bar(frame, "count(ab)", "t", highlight="p + ##u", large=large),
                      charts.over_steps(pd.DataFrame({"step": [1, 2], "score": [0.5, 0.01]}), "score", "t", log=True)):
            alt.LayerChart.from_dict(chart, validate=True)  # raises on a spec the schema refuses
