"""Altair charts of trace DataFrames (built by tables.py). Colours are Okabe–Ito,
readable by colour-blind viewers and on light and dark backgrounds."""

from __future__ import annotations

import json
from functools import lru_cache

import altair as alt
from altair.utils.schemapi import UndefinedType
import pandas as pd

from .tables import Ranking, with_bar_labels

CHOSEN = "#D55E00"  # vermillion: the merge taken
TIED = "#E69F00"  # orange: tied with it, not taken
OTHER = "#0072B2"  # blue: the rest
BPE_PICK = "#009E73"  # bluish green: what BPE would take
REMOVED = CHOSEN  # a Unigram round's removed piece: like the merge taken, what the step does
KEPT = OTHER
MAX_LINE_POINTS = 1500


def _status(frame: pd.DataFrame, best_col: str) -> pd.Series:
    best = frame[best_col].max()
    status = frame[best_col].apply(lambda v: "tied" if v == best else "other")
    status.iloc[0] = "chosen"
    return status


TOOLTIP_FIELDS = ("rank", "pair", "count(ab)", "count(a)", "count(b)", "exact", "score")


POWER = "power"  # axis_format's answer for an axis below 0.001: labels as 1.5 × 10⁻⁵ (POWER_LABEL)


def _superscript(expr: str) -> str:
    """A Vega expression that writes the exponent `expr` (a string such as '-5' or '+12') in superscripts."""
    expr = f"replace(replace({expr}, /[+]/g, ''), /-/g, '⁻')"
    for digit, sup in zip("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"):
        expr = f"replace({expr}, /{digit}/g, '{sup}')"
    return expr


# An axis label the way tables.fmt_power writes a number: 1.5 × 10⁻⁵ (d3's own minus sign for the mantissa).
POWER_LABEL = ("datum.value == 0 ? '0' : split(format(datum.value, '.2~e'), 'e')[0] + ' × 10' + "
               + _superscript("split(format(datum.value, '.2~e'), 'e')[1]"))


def axis_format(values: pd.Series, log: bool = False) -> str:
    """The d3 format of a chart's number axis, the same kind of number as its labels (tables.fmt_score): whole
    numbers with separators for counts, POWER (1.5 × 10⁻⁵) below 0.001 (on a log scale, as soon as its smallest
    value is: its ticks go down to it), else up to four decimals."""
    if pd.api.types.is_integer_dtype(values):
        return ",d"
    smallest = values[values > 0].min() if log and (values > 0).any() else values.abs().max()
    return POWER if values.abs().max() < 0.001 or smallest < 0.001 else ".4~f"


def _whole(number_format: str) -> float | UndefinedType:
    """tickMinStep for an axis: 1 for whole numbers (no ticks at 0.2, 0.4, …), else none."""
    return 1 if number_format == ",d" else alt.Undefined


def number_axis(number_format: str, **kwargs) -> alt.Axis:
    """An axis whose labels are written as `axis_format` says."""
    if number_format == POWER:
        return alt.Axis(labelExpr=POWER_LABEL, **kwargs)
    return alt.Axis(format=number_format, tickMinStep=_whole(number_format), **kwargs)


WIDE_SCREEN_PX = 1600  # a 1920×1080 projector: presenter mode's larger type (presenter.py's CSS, from this width)


def presenter_px(px: int, large: bool) -> int | alt.ExprRef:
    """A chart's type size: `px`, and in presenter mode (`large`) 40 % larger on a screen at least
    WIDE_SCREEN_PX wide (the browser's window, asked when the chart is drawn: the server does not know it)."""
    if not large:
        return px
    return alt.ExprRef(expr=f"windowSize()[0] >= {WIDE_SCREEN_PX} ? {round(px * 1.4)} : {px}")


@lru_cache(maxsize=64)
def _bar_template(value: str, title: str, bpe_view: bool, fields: tuple[str, ...], text_colour: str,
                  large: bool, number_format: str = ",d") -> dict:
    """The bar chart without its data (the dataset 'candidates'), built by Altair once (not validated: `spec`).

    The spec stays the same from step to step (the bars' order comes from the data's
    `order` column), so the browser keeps the chart and swaps its rows instead of
    building a new chart at every step.
    """
    domain = ["BPE's pick", "WordPiece's pick", "other"] if bpe_view else ["chosen", "tied", "other"]
    colours = [BPE_PICK, CHOSEN, OTHER] if bpe_view else [CHOSEN, TIED, OTHER]
    size = 18 if large else 15  # presenter mode: readable from the back of a room (≥ 16 px)
    # Layered charts share one y domain; a union of domains may only be sorted by min, max or count.
    order = alt.EncodingSortField(field="order", op="min")
    base = alt.Chart(alt.Data(name="candidates")).properties(height=alt.Step(34 if large else 30)).encode(
        y=alt.Y("pair:N", sort=order, title=None,
                axis=alt.Axis(labelFontSize=presenter_px(size, large), labelLimit=260)),
        x=alt.X(field=value, type="quantitative", title=value,
                axis=number_axis(number_format, labelFontSize=presenter_px(16, large) if large else 12,
                                 titleFontSize=presenter_px(17, large) if large else 13)),
        tooltip=[alt.Tooltip(field=c, type="nominal" if c in ("pair", "exact") else "quantitative") for c in fields],
    )
    bars = base.mark_bar().encode(
        color=alt.Color("status:N", scale=alt.Scale(domain=domain, range=colours),
                        legend=alt.Legend(orient="bottom", title=None,
                                          labelFontSize=presenter_px(16, large) if large else 13)),
    )
    text = base.mark_text(align="left", dx=4, fontSize=presenter_px(size, large) if large else size - 1,
                          color=text_colour).encode(text="label:N")
    # Room on the right for the longest bar's label (1.45 × 10⁻⁵ in presenter mode's type is about 130 px wide).
    return spec(alt.layer(bars, text, title=alt.Title(title, fontSize=presenter_px(20, large) if large else 14))
                .properties(padding={"left": 5, "top": 5, "bottom": 5, "right": 60 if large else 30}))


def candidates_bar(frame: pd.DataFrame, value: str, title: str, label: str | None = None,
                   highlight: str | None = None, dark: bool = False, large: bool = False) -> dict:
    """Horizontal bars of the candidates (best first); the chosen pair in vermillion, ties in orange.

    `highlight` names a pair to mark instead (the BPE view marks BPE's own pick and orders
    the bars by `value`). `large` sets every text to 16 px or more (presenter mode).
    Returns a Vega-Lite dict whose spec is built once per shape; only the rows change.
    """
    data = frame.copy()
    if highlight is None:
        data["status"] = _status(data, value)
        data["order"] = range(len(data))
    else:
        first = frame["pair"].iloc[int(frame["rank"].to_numpy().argmin())] if "rank" in frame else frame["pair"].iloc[0]
        data["status"] = data["pair"].map(
            lambda p: "BPE's pick" if p == highlight else ("WordPiece's pick" if p == first else "other"))
        data["order"] = data[value].rank(method="first", ascending=False)
    data["label"] = data[label] if label else data[value].map(lambda v: f"{v:,}")
    fields = tuple(c for c in TOOLTIP_FIELDS if c in data.columns)
    columns = list(dict.fromkeys([*fields, value, "status", "order", "label", "pair"]))
    rows = json.loads(data[columns].to_json(orient="records"))
    spec = _bar_template(value, title, highlight is not None, fields, "#fafafa" if dark else "#31333f", large,
                         axis_format(data[value]))
    return {**spec, "datasets": {"candidates": rows}}


def top_candidates(top: pd.DataFrame, ranking: Ranking, title: str, dark: bool = False, large: bool = False) -> dict:
    """The best candidates as bars of what the algorithm ranks by, labelled with their scores when it says so."""
    if ranking.labelled:
        return candidates_bar(with_bar_labels(top), ranking.column, title, "shown", dark=dark, large=large)
    return candidates_bar(top, ranking.column, title, dark=dark, large=large)


def _thin(frame: pd.DataFrame) -> pd.DataFrame:
    if len(frame) <= MAX_LINE_POINTS:
        return frame
    every = -(-len(frame) // MAX_LINE_POINTS)
    keep = frame.iloc[::every]
    return pd.concat([keep, frame.iloc[[-1]]]).drop_duplicates("step")


def over_steps(frame: pd.DataFrame, value: str, title: str, log: bool = False,
               start: float | None = None) -> dict:
    """A line of `value` per step, as a Vega-Lite spec (long traces thinned to 1,500 points).

    The line is the dataset 'curve' and the current-step marker the dataset 'marker', so
    `mark_step` changes data only: the spec, hence the chart in the browser, stays the same
    from step to step.
    """
    data = _thin(frame[["step", value]])
    if start is not None:
        data = pd.concat([pd.DataFrame({"step": [0], value: [start]}), data])
    log = log and bool((data[value] > 0).all())
    scale = alt.Scale(type="log") if log else alt.Scale(zero=False)
    number_format = axis_format(data[value], log)
    line = alt.Chart(alt.Data(name="curve")).mark_line(point=len(data) <= 60, color=OTHER).encode(
        x=alt.X("step:Q", title="step", axis=alt.Axis(tickMinStep=1, format=",d")),  # whole steps only
        y=alt.Y(field=value, type="quantitative", title=f"{value} (log scale)" if log else value, scale=scale,
                axis=number_axis(number_format)),
        tooltip=[alt.Tooltip(field="step", type="quantitative"), alt.Tooltip(field=value, type="quantitative")],
    )
    rule = alt.Chart(alt.Data(name="marker")).mark_rule(color=CHOSEN, strokeWidth=2).encode(x="step:Q")
    chart = spec(alt.layer(line, rule, title=title).properties(height=220))
    return {**chart, "datasets": {"curve": json.loads(data.to_json(orient="records")), "marker": [{"step": 0}]}}


def mark_step(spec: dict, step: int) -> dict:
    """The chart from `over_steps` with its marker at `step` (a shallow copy; only a dataset changes)."""
    return {**spec, "datasets": {**spec["datasets"], "marker": [{"step": step}]}}


def spec(chart: alt.TopLevelMixin) -> dict:
    """An Altair chart as a Vega-Lite dict, without re-validating the schema (built by code, not users; the
    validation took about 0.1 s a chart, on the server every student waits for: tests/test_charts.py validates
    each kind once)."""
    return chart.to_dict(validate=False)


# One colour per algorithm wherever algorithms are told apart: BPE's as "what BPE would take" elsewhere, WordPiece's
# as its pick beside BPE's (vermillion: also the merge a step takes and the piece a round removes, on pages that
# show one algorithm), Unigram's a colour of its own; never orange (tied) or blue (the rest).
ALGORITHM_COLOURS = {"BPE": BPE_PICK, "WordPiece": CHOSEN, "Unigram": "#CC79A7"}
SECOND_ALGORITHM = "#56B4E9"  # a variant (the HF WordPieceTrainer column)


def algorithm_colour(name: str) -> str:
    """The colour of an algorithm (its name before ':' or ' (')."""
    return ALGORITHM_COLOURS.get(name.split(":")[0].split(" (")[0], SECOND_ALGORITHM)


def _lighter(colour: str) -> str:
    """`colour` halfway to white."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{(c + 255) // 2:02X}" for c in (r, g, b))


def length_histogram(lengths: pd.DataFrame, title: str) -> alt.Chart:
    """Token lengths (characters, without ##) as bars; `lengths` has columns length, tokens, kind ('WordPiece:
    ## pieces', ...): each algorithm in its colour, its ## pieces (or pieces inside words) lighter."""
    kinds = sorted(lengths["kind"].unique())
    return alt.Chart(lengths, title=title).mark_bar().encode(
        x=alt.X("length:O", title="characters", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("tokens:Q", title="tokens"),
        color=alt.Color("kind:N", scale=alt.Scale(domain=kinds, range=[
            _lighter(algorithm_colour(k)) if k.endswith("## pieces") else algorithm_colour(k) for k in kinds]),
            legend=alt.Legend(orient="bottom", columns=2, labelLimit=0, title=None)),
        xOffset="kind:N",
        tooltip=["kind", "length", "tokens"],
    ).properties(height=460)  # Streamlit fits the whole chart, legend rows included, in this height


def shared_scatter(frame: pd.DataFrame, a: str, b: str, selected: str | None, dark: bool = False) -> alt.TopLevelMixin:
    """Each shared token at (its step in a, its step in b); the diagonal = learned at the same step.

    Hovering a point shows the token; the followed token is drawn large in vermillion.
    """
    data = frame.assign(followed=frame["token"] == selected)
    top = int(max(frame[a].max(), frame[b].max())) if len(frame) else 1
    hover = alt.selection_point(on="pointerover", fields=["token"], empty=False, nearest=True)
    points = alt.Chart(data).mark_circle().encode(
        x=alt.X(field=a, type="quantitative", title=f"step in {a}", scale=alt.Scale(domain=[0, top])),
        y=alt.Y(field=b, type="quantitative", title=f"step in {b}", scale=alt.Scale(domain=[0, top])),
        color=alt.condition(alt.datum.followed, alt.value(CHOSEN), alt.value(OTHER)),
        size=alt.when(alt.datum.followed).then(alt.value(220)).when(hover).then(alt.value(140)).otherwise(alt.value(40)),
        tooltip=[alt.Tooltip(field="token", type="nominal"), alt.Tooltip(field=a, type="quantitative"),
                 alt.Tooltip(field=b, type="quantitative")],
    ).add_params(hover)
    followed = alt.Chart(data).mark_circle(size=220, color=CHOSEN, opacity=1).encode(  # on top of the others
        x=alt.X(field=a, type="quantitative"), y=alt.Y(field=b, type="quantitative"),
    ).transform_filter(alt.datum.followed)
    labels = alt.Chart(data).mark_text(dx=8, align="left", fontSize=14, fontWeight="bold",
                                       color="#fafafa" if dark else "#31333f").encode(
        x=alt.X(field=a, type="quantitative"), y=alt.Y(field=b, type="quantitative"), text="token:N",
    ).transform_filter(alt.datum.followed)
    diagonal = alt.Chart(pd.DataFrame({a: [0, top], b: [0, top]})).mark_line(color="#999999", strokeDash=[4, 4]).encode(
        x=alt.X(field=a, type="quantitative"), y=alt.Y(field=b, type="quantitative"))
    return alt.layer(diagonal, points, followed, labels, title="When each shared token was learned").properties(height=380)


ROUND_COLOURS = [OTHER, BPE_PICK, TIED, "#CC79A7", "#56B4E9", "#F0E442", "#999999", CHOSEN, "#000000"]


def text_colour(dark: bool) -> str:
    """Streamlit's text colour in the light or dark theme (for text a chart draws itself)."""
    return "#FAFAFA" if dark else "#31333F"


def votes(frame: pd.DataFrame, dark: bool = False, large: bool = False, answer: str | None = None) -> alt.Chart:
    """A class's votes: one bar per choice and round, the rounds side by side (columns choice, round, votes).
    With `answer` (after the reveal): its label marked ✓ and bold, its bars drawn full, the others faded."""
    size = 18 if large else 13
    ink = text_colour(dark)
    rounds = sorted(frame["round"].unique(), key=lambda r: int(str(r).split()[-1]))
    axis = alt.Axis(labelFontSize=presenter_px(size, large), labelLimit=260)
    if answer is not None:
        frame = frame.assign(right=frame["choice"] == answer,
                             choice=[f"✓ {c}" if c == answer else c for c in frame["choice"]])
        axis = alt.Axis(labelFontSize=presenter_px(size, large), labelLimit=260,
                        labelFontWeight=alt.ExprRef(expr="slice(datum.label, 0, 1) == '✓' ? 'bold' : 'normal'"))
    base = alt.Chart(frame).encode(
        y=alt.Y("choice:N", title=None, sort=None, axis=axis),
        yOffset=alt.YOffset("round:N", sort=rounds),
        x=alt.X("votes:Q", title="votes", axis=alt.Axis(labelFontSize=presenter_px(size - 2, large),
                                                        titleFontSize=presenter_px(size - 1, large), tickMinStep=1)),
        tooltip=["choice:N", "round:N", "votes:Q"],
    )
    bars = base.mark_bar().encode(color=alt.Color(
        "round:N", sort=rounds, scale=alt.Scale(domain=rounds, range=ROUND_COLOURS[:len(rounds)]),
        legend=alt.Legend(orient="bottom", title=None, labelFontSize=presenter_px(size, large))
        if len(rounds) > 1 else None))
    if answer is not None:
        bars = bars.encode(opacity=alt.condition("datum.right", alt.value(1.0), alt.value(0.35)))
    labels = base.transform_filter("datum.votes > 0").mark_text(  # no "0" beside every empty bar
        align="left", dx=3, fontSize=presenter_px(size - 1, large), color=ink).encode(text="votes:Q")
    return alt.layer(bars, labels).properties(height=alt.Step(16 if len(rounds) > 1 else 26))
