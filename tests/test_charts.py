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
    kinds = [f"kind {i}" for i in range(5)]
    import pandas as pd
    frame = pd.DataFrame({"length": [1] * 5, "tokens": [1] * 5, "kind": kinds})
    spec = charts.length_histogram(frame, "t").to_dict()
    colour = spec["encoding"]["color"]
    assert len(set(colour["scale"]["range"])) >= len(kinds) and colour["legend"]["labelLimit"] == 0
