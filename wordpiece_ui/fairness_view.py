"""The "Fair to every language?" page's tables and charts (wordpiece_core/fairness.py's costs as DataFrames and
an Altair chart), the parallel text and the shelf's tokenizers cached for the server."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass

import altair as alt
import pandas as pd

from wordpiece_core.fairness import REFERENCE, costs
from wordpiece_core.parallel_text import ARTICLES, MAX_COPIES, Language, read
from wordpiece_core.pipeline import Tokenizer

from . import fairness_picks, server
from .corpora import SAMPLES_DIR

PARALLEL_FILE = os.path.join(SAMPLES_DIR, "udhr.json.xz")
MEASURED = tuple(range(21, ARTICLES + 1))  # the articles measured: 21 to 30 (the mixes train on 1 to 20)
TRAINED = fairness_picks.TRAINED  # the sidebar's training, among the tokenizers to compare
PRESETS = {"english": "English only", "web": "As the web has them", "equal": "Every language equally"}
COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"]


def languages() -> tuple[Language, ...]:
    return server.store().get_or_make(("parallel text",), lambda: read(PARALLEL_FILE))


COSTS_FILE = os.path.join(SAMPLES_DIR, "udhr-shelf-costs.json")  # the shelf's rows, computed ahead (make_shelf_costs.py)


def _rows(name: str, tokenizer: Tokenizer) -> list[dict]:
    return [{"tokenizer": name, "language": c.language, "script": c.script, "premium": c.premium,
             "tokens": c.tokens, "fertility": c.fertility, "bytes per token": c.bytes_per_token,
             "words split %": None if c.split_share is None else 100 * c.split_share,
             "lost to [UNK] or bytes %": 100 * c.lost_share, "words": c.words, "characters": c.chars}
            for c in costs(tokenizer, languages(), MEASURED)]


def _parallel_digest() -> str:
    import hashlib

    with open(PARALLEL_FILE, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fresh_shelf_costs() -> dict:
    """The shelf's rows, computed now (for make_shelf_costs.py and its test)."""
    from wordpiece_core import shelf

    digest = _parallel_digest()
    return {name: {"parallel_text": digest, "articles": list(MEASURED), "rows": _rows(name, shelf.load(name))}
            for name in shelf.SHELF}


def _kept_shelf_rows(name: str) -> list[dict] | None:
    """A shelf tokenizer's rows from COSTS_FILE, when it was made from this parallel text and these articles."""
    import json

    try:
        with open(COSTS_FILE, encoding="utf-8") as f:
            kept = json.load(f).get(name)
    except (OSError, ValueError):
        return None
    if not kept or kept.get("articles") != list(MEASURED) or kept.get("parallel_text") != _parallel_digest():
        return None
    return kept["rows"]


def frame(key: tuple, name: str, tokenizer: Callable[[], Tokenizer]) -> pd.DataFrame:
    """Every language's cost through `tokenizer()` (named `name` in the table), made once per `key` for the
    server; a shelf tokenizer's (key ("shelf", name)) read from COSTS_FILE when it is current."""
    def make() -> pd.DataFrame:
        kept = _kept_shelf_rows(key[1]) if key[0] == "shelf" else None
        return pd.DataFrame(kept if kept is not None else _rows(name, tokenizer()))[COLUMNS].assign(tokenizer=name)
    return server.store().get_or_make(("fairness",) + key + (name, MEASURED), make)


def premium_chart(table: pd.DataFrame, order: list[str], dark: bool = False, large: bool = False,
                  width: int = 520) -> alt.LayerChart:
    """One row per language (sorted by the first tokenizer's premium, dearest first), one mark per tokenizer, a
    rule at 1 (English's cost); `large`: presenter mode's type, readable from the back of a room; `width`: the
    plot's, in pixels (the language names are left of it). Each mark's figures are its description (read out by a
    screen reader in the browser's Vega chart). A name holding a character XML does not allow is drawn with U+FFFD
    in its place (static_chart.drawable)."""
    from .charts import presenter_px
    from .static_chart import drawable

    table = table.assign(tokenizer=table["tokenizer"].map(drawable))
    names = list(dict.fromkeys(table["tokenizer"]))
    narrow = width < 300  # a phone's drawing: bigger type (it is not scaled up), long names cut
    labels = presenter_px(16, large) if large else 13 if narrow else 12
    titles = presenter_px(17, large) if large else 13 if narrow else 12
    data = table[["language", "tokenizer", "premium", "tokens", "script"]].copy()
    data["says"] = [f"{language} through {tokenizer}: {premium:.2f}× English's tokens ({tokens:,} tokens, {script})"
                    for language, tokenizer, premium, tokens, script in
                    zip(data["language"], data["tokenizer"], data["premium"], data["tokens"], data["script"])]
    scale = alt.Scale(type="log", nice=False, padding=12)
    ticks = 4 if narrow else alt.Undefined
    points = alt.Chart(data).mark_point(filled=True, size=160 if large else 90, opacity=0.9).encode(
        y=alt.Y("language:N", sort=order, title=None, scale=alt.Scale(type="band", paddingInner=0.1, paddingOuter=0.4),
                axis=alt.Axis(labelLimit=0, labelOverlap=False, labelFontSize=labels)),
        # each tokenizer a little lower in its language's row: equal premiums (a training and the one before it,
        # for a language neither holds) show both marks instead of one hiding the other
        # (near its middle: a mark never looks like the next row's)
        yOffset=alt.YOffset("tokenizer:N", scale=alt.Scale(domain=names, paddingInner=0, paddingOuter=1)),
        x=alt.X("premium:Q", title=f"token premium ({REFERENCE} = 1, log scale)", scale=scale,
                axis=alt.Axis(format="~g", grid=True, labelFontSize=labels, titleFontSize=titles, tickCount=ticks)),
        color=alt.Color("tokenizer:N", scale=alt.Scale(domain=names, range=COLOURS[:len(names)]),
                        legend=alt.Legend(orient="top", title=None, labelLimit=NARROW_NAME if narrow else WIDE_NAME,
                                          # a phone: a long name on lines of their own
                                          labelExpr=NARROW_LABEL if narrow else alt.Undefined,
                                          labelFontSize=titles, symbolSize=160 if large else 100,
                                          # a long name: a line of its own
                                          columns=1 if narrow or max(map(len, names)) > 28 else
                                          2 if large or len(names) > 3 else len(names))),
        shape=alt.Shape("tokenizer:N", scale=alt.Scale(domain=names), legend=None),
        description="says:N")
    # The rule at 1 carries the same axis on top: a tall chart is read without scrolling to its foot.
    one = alt.Chart(pd.DataFrame({"premium": [1.0]})).mark_rule(
        color="#AAAAAA" if dark else "#666666", strokeDash=[4, 4]).encode(
        x=alt.X("premium:Q", scale=scale, axis=alt.Axis(orient="top", format="~g", grid=False, title=None,
                                                        labelFontSize=labels, tickCount=ticks)))
    return (one + points).resolve_axis(x="independent").properties(
        width=width, height=max(200, (26 if large else 19) * len(order)))


def start_chart_engine() -> None:
    """Start the engine premium_html draws with, in the background (static_chart.start_engine)."""
    from .static_chart import start_engine

    start_engine()


# The chart's two drawings: a screen's and a phone's (the page shows the one that fits, by CSS).
WIDE, NARROW = {False: 600, True: 760}, 180
NARROW_NAME = 230  # pixels of a line of a tokenizer's name in the phone's legend (longer: cut; whole in the table)
WIDE_NAME = 420  # pixels of a tokenizer's name in the screen's legend (a file's name may be any length)
NARROW_LABEL = ("length(datum.label) > 30 ? split(replace(replace(datum.label, ' on ', ' on|'), ', ', ',|'), '|')"
                " : datum.label")  # lines after " on " and ", "
PHONE_PX = 640  # a viewport at most this wide shows the narrow drawing
BIG_SCREEN_PX, BIG_SCREEN_WIDTH = 1600, 1000  # a viewport this wide shows the wide drawing larger (1920 px screens)


def premium_html(keys: tuple, table: pd.DataFrame, order: list[str], dark: bool = False, large: bool = False) -> str:
    """premium_chart drawn as SVG on the server and shown as images (static_chart: the browser shows a picture,
    without starting Vega), wide and narrow (CSS shows the one that fits), HTML for st.html; made once for the server
    per tokenizers (`keys`: their keys and names), languages, theme and type size. Its `data-points` says how many
    marks the screen's drawing holds."""
    from .static_chart import chart_svg, image, points

    def make() -> str:
        wide, narrow = (chart_svg(premium_chart(table, order, dark, large, width), dark)
                        for width in (WIDE[large], NARROW))
        alt = chart_alt(table, order)
        return (f"<style>.wpl-premium img {{display: block; max-width: 100%; height: auto}}"
                f" .wpl-premium .wpl-narrow {{display: none}}"
                f" @media (max-width: {PHONE_PX}px) {{.wpl-premium .wpl-wide {{display: none}}"
                f" .wpl-premium .wpl-narrow {{display: block}}}}"
                f" @media (min-width: {BIG_SCREEN_PX}px) {{.wpl-premium .wpl-wide {{width: {BIG_SCREEN_WIDTH}px}}}}"
                "</style>"
                f'<div class="wpl-premium" data-points="{points(wide)}">'
                f'{image(wide, alt, "wpl-wide")}{image(narrow, alt, "wpl-narrow")}</div>')

    return server.store().get_or_make(("premium chart", keys, tuple(order), dark, large), make)


def chart_alt(table: pd.DataFrame, order: list[str], named: int = 5) -> str:
    """What the premium chart shows, in words (its image's alternative text): the tokenizers, the order, the dearest
    `named` languages with their premiums."""
    names = list(dict.fromkeys(table["tokenizer"]))
    first = names[0] if names else ""
    mine = premiums(table, first)
    dearest = ", ".join(f"{language} {mine[language]:.1f}×" for language in order[:named] if language in mine)
    return (f"Chart: each language's token premium (its tokens for the same articles over {REFERENCE}'s), one mark "
            f"per tokenizer ({'; '.join(names)}), the languages sorted by {first}'s premium, dearest first: "
            f"{dearest}{', …' if len(order) > named else ''}. Every figure is in the table \"The numbers\".")


def premium_drawing(keys: tuple, table: pd.DataFrame, order: list[str], dark: bool = False,
                    large: bool = False) -> str | dict:
    """premium_html; or, when the SVG engine fails (a runtime of its own, vl-convert's), the chart as a Vega-Lite
    dict for the browser to draw: slower to show, the same chart."""
    from .charts import spec

    try:
        return premium_html(keys, table, order, dark, large)
    except Exception:  # noqa: BLE001 - any failure of the engine: the browser draws the chart instead
        return spec(premium_chart(table, order, dark, large, WIDE[large]))


def order_by_premium(table: pd.DataFrame, first: str) -> list[str]:
    mine = table[table["tokenizer"] == first].sort_values("premium", ascending=False)
    return list(mine["language"])


def shown_table(table: pd.DataFrame) -> pd.DataFrame:
    """The table as the page shows it: languages by the first tokenizer's premium, numbers rounded."""
    out = table.drop(columns=["words", "characters"]).copy()
    first = ["tokenizer", "language", "premium"]  # the premium before a phone's screen ends
    out = out[first + [c for c in out.columns if c not in first]]
    for column in ("premium", "fertility", "bytes per token", "words split %", "lost to [UNK] or bytes %"):
        out[column] = out[column].astype(float).round(2)
    return out


def csv(table: pd.DataFrame) -> str:
    return table.to_csv(index=False)


# What each column of the table means (its header's hover text). Its numbers: two decimals, as the CSV has them.
HELPS = {
    "tokenizer": "The tokenizer that cut the text.",
    "language": "The language of the articles, named in English.",
    "script": "The writing system the language's text is in.",
    "premium": f"Tokens for the articles over {REFERENCE}'s tokens for the same articles, through the same tokenizer: "
               "3 means three times the tokens for the same content.",
    "tokens": f"Tokens for articles {MEASURED[0]} to {MEASURED[-1]}.",
    "fertility": "Tokens per space-separated word (empty where the language does not separate words by spaces).",
    "bytes per token": "UTF-8 bytes of text per token: how much text one token holds.",
    "words split %": "Words cut into more than one token (empty where words are not separated by spaces).",
    "lost to [UNK] or bytes %": "Characters that became [UNK], or bytes (a byte-level token holding part of a "
                                "character), or no token at all.",
}
CHART_ORDER = "the chart's order"
SORTS = (CHART_ORDER, "premium", "tokens", "fertility", "bytes per token", "words split %", "lost to [UNK] or bytes %")


def table_html(shown: pd.DataFrame) -> str:
    """The table as the page shows it (html_table): each header says what it means."""
    from .html_table import table_html as html_of

    return html_of(shown, HELPS, wrap=("tokenizer",))


def rows_html(summary: Summary, language: str | None = None, by: str = CHART_ORDER) -> str:
    """The summary's table, only `language`'s rows when one is given, sorted by the column `by` (largest first; the
    chart's order: as the summary holds it)."""
    if language is None and by == CHART_ORDER:
        return summary.html
    shown = summary.shown if language is None else summary.shown[summary.shown["language"] == language]
    if by != CHART_ORDER and by in shown.columns:
        shown = shown.sort_values(by, ascending=False, kind="stable", na_position="last")
    return table_html(shown)



def combined(frames: list[pd.DataFrame], chosen: list[str]) -> pd.DataFrame:
    """The tokenizers' rows together, for the languages `chosen` (all when none are)."""
    table = pd.concat(frames, ignore_index=True)
    return table[table["language"].isin(chosen)] if chosen else table


def dearest(table: pd.DataFrame, first: str) -> tuple[list[str], str, float | None]:
    """The languages by `first`'s premium, dearest first; the dearest; its premium."""
    order = order_by_premium(table, first)
    if not order:
        return order, "", None
    row = table[(table["tokenizer"] == first) & (table["language"] == order[0])].iloc[0]
    return order, order[0], float(row["premium"])


def in_order(table: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """The shown table, the languages in `order`, each one's tokenizers together in the legend's order (the
    order they were picked in)."""
    shown = shown_table(table)
    shown["_order"] = shown["language"].map({n: k for k, n in enumerate(order)})
    shown["_picked"] = shown["tokenizer"].map({n: k for k, n in enumerate(dict.fromkeys(table["tokenizer"]))})
    return shown.sort_values(["_order", "_picked"]).drop(columns=["_order", "_picked"])


@dataclass(frozen=True)
class Summary:
    """What the page shows of its tokenizers' rows, worked out once for the server per tokenizers and languages (a
    class opening the page runs it 30 times at once: each run then only reads this). Every session is handed the
    same one: read it, never change it (copy a frame first)."""

    table: pd.DataFrame  # every tokenizer's rows, for the languages chosen
    order: list[str]  # the languages by the first tokenizer's premium, dearest first
    dearest: str  # the first of them ("" when none)
    premium: float | None  # its premium
    shown: pd.DataFrame  # the table as shown (in_order): its numbers rounded
    html: str  # `shown` as an HTML table (table_html)
    csv: str  # `shown` as CSV
    by_tokenizer: dict[str, dict[str, float]]  # each tokenizer's premiums: language → premium

    def premiums(self, name: str) -> dict[str, float]:
        return self.by_tokenizer.get(name, {})

    @property
    def nbytes(self) -> int:  # for the store's budget
        from .stores import size_of

        return sum(size_of(part) for part in (self.table, self.shown, self.html, self.csv))


def summary(keys: tuple, frames: list[pd.DataFrame], chosen: list[str], first: str) -> Summary:
    """The page's Summary of `frames` (one per tokenizer) for the languages `chosen` (all when none are), ordered by
    the tokenizer `first`'s premiums; stored for the server under `keys` (the tokenizers' keys and names)."""
    def make() -> Summary:
        table = combined(frames, chosen)
        order, dear, premium = dearest(table, first)
        shown = in_order(table, order)
        by_tokenizer = {name: premiums(table, name) for name in dict.fromkeys(table["tokenizer"])}
        return Summary(table, order, dear, premium, shown, table_html(shown), csv(shown), by_tokenizer)

    return server.store().get_or_make(("fairness summary", keys, tuple(chosen), first), make)


def chips(key: tuple, tokenizer: Callable[[], Tokenizer], language: Language, article: int) -> tuple[str, int]:
    """article_chips through the tokenizer `key` names (`tokenizer()` gives it), made once for the server."""
    return server.store().get_or_make(("fairness chips", key, language.name, article),
                                      lambda: article_chips(tokenizer(), language, article))


def three_languages(order: list[str], names: list[str]) -> list[str]:
    """The article's three columns: English, the dearest language, and Hindi (or Chinese when Hindi is dearest)."""
    dear = next((n for n in order if n != REFERENCE), None)
    third = next((n for n in ("Hindi", "Chinese (Simplified)") if n in names and n != dear), None)
    return [n for n in (REFERENCE, dear, third) if n is not None]


def article_chips(tokenizer: Tokenizer, language: Language, article: int) -> tuple[str, int]:
    """An article as chips over its text (HTML for st.html: a long text's chips are drawn in a fraction of the time
    Markdown takes), and its number of tokens."""
    from .chips import over_text

    text = language.text((article,))
    encoding = tokenizer.encode(text, add_special_tokens=False)
    chips = over_text(text, encoding.tokens, encoding.offsets, encoding.ids, set(tokenizer.special_tokens))
    return f'<div class="wpl-html">{chips}</div>', len(encoding.ids)


def mix_frame(preset: str) -> pd.DataFrame:
    """The languages and their copies in a preset mix ("english", "web", "equal"), to edit (a copy of the server's)."""
    from wordpiece_core.parallel_text import mix_weights

    def make() -> pd.DataFrame:
        weights = mix_weights(preset, languages())
        return pd.DataFrame([{"language": language.name, "script": language.script,
                              "copies": weights[language.name]} for language in languages()])

    return server.store().get_or_make(("mix frame", preset), make).copy()


def mix_shown(session: Mapping, preset: str) -> pd.DataFrame:
    """The frame the own mix's editor starts from: the preset's, or the one `keep_mix` kept (the editor's own state
    goes while it is not drawn: a closed panel, a run that trains)."""
    kept = session.get(f"mix_kept {preset}")
    return kept if kept is not None else mix_frame(preset)


def keep_mix(session: MutableMapping, preset: str, editor_state: object) -> pd.DataFrame:
    """The own mix as its editor shows it (mix_shown with the editor's state), kept as the frame it starts from
    next time; returned."""
    edited = with_edits(mix_shown(session, preset), editor_state)
    session[f"mix_kept {preset}"] = edited
    return edited


def with_edits(frame: pd.DataFrame, state: object) -> pd.DataFrame:
    """`frame` with the edits a data editor's state holds ({"edited_rows": {row: {column: value}}}); a value that
    is not a whole number of copies is left as it was."""
    out = frame.copy()
    rows = state.get("edited_rows", {}) if isinstance(state, dict) else {}
    for row, changes in rows.items():
        for column, value in changes.items():
            if column == "copies" and 0 <= int(row) < len(out):
                try:
                    out.at[int(row), "copies"] = int(value or 0)
                except (TypeError, ValueError):
                    pass
    return out


def mix_file(edited: pd.DataFrame) -> tuple[str, bytes]:
    """A mix of one's own as a corpus file: its name (the languages it holds) and its text."""
    from wordpiece_core.parallel_text import mix_text

    copies = {str(row["language"]): int(row["copies"] or 0) for _, row in edited.iterrows()}
    return f"udhr-mix ({mix_name(copies)}).txt", mix_text(copies, languages()).encode("utf-8")


def mix_name(copies: Mapping[str, int], changes: int = 4) -> str:
    """A mix in words, so that two mixes of one's own tell apart on the chart: its languages when it holds a few;
    else the preset it differs least from, with its changes (up to `changes` of them: more, "N changes")."""
    held = [f"{name} ×{n}" if n > 1 else name for name, n in copies.items() if n]
    if len(held) <= 6:
        return ", ".join(held) or "nothing"

    def changed(preset: str) -> list[str]:
        base = dict(zip(mix_frame(preset)["language"], mix_frame(preset)["copies"]))
        return [f"{name} ×{n}" for name, n in copies.items() if int(base.get(name, 0)) != n]

    nearest = min(PRESETS, key=lambda preset: len(changed(preset)))
    moved = changed(nearest)
    said = ", ".join(moved) if len(moved) <= changes else f"{len(moved)} changes"
    return PRESETS[nearest].lower() + (f"; {said}" if moved else "")


COLUMNS = ["tokenizer", "language", "script", "premium", "tokens", "fertility", "bytes per token", "words split %",
           "lost to [UNK] or bytes %", "words", "characters"]


def premiums(table: pd.DataFrame, name: str) -> dict[str, float]:
    """Language → premium through the tokenizer `name`."""
    mine = table[table["tokenizer"] == name]
    return dict(zip(mine["language"], mine["premium"].astype(float)))


BEFORE = fairness_picks.BEFORE  # the sidebar's training before its last one, among the tokenizers to compare
LAST_TRAINED = "fair_last_trained"  # session key: the Measured training the page last measured
BEFORE_TRAINED = "fair_trained_before"  # session key: the Measured training before it, or None


@dataclass(frozen=True)
class Measured:
    """A training of the sidebar's as the page measured it: its key, its name, every language's row and the
    sidebar's corpus it was trained on (an id: "udhr-web", "upload", ...)."""

    key: str
    name: str
    rows: pd.DataFrame
    corpus: str = ""

    def premiums(self) -> dict[str, float]:
        return premiums(self.rows, self.name)

    def as_before(self) -> pd.DataFrame:
        """Its rows named as the training before (the chart's and the table's tokenizer)."""
        return self.rows.assign(tokenizer=f"before: {self.name}")


def remember(session: MutableMapping, measured: Measured) -> bool:
    """Note `measured` as the training the page measured last; True when it is a new one (then the one measured
    last before it becomes the training before)."""
    now = session.get(LAST_TRAINED)
    if isinstance(now, Measured) and now.key == measured.key:
        return False
    session[BEFORE_TRAINED] = now if isinstance(now, Measured) else None
    session[LAST_TRAINED] = measured
    return True


def before(session: Mapping) -> Measured | None:
    made = session.get(BEFORE_TRAINED)
    return made if isinstance(made, Measured) else None


MOVED = 0.1  # a premium that changed by less than a tenth did not move (the line does not list it)


def changes(before: dict[str, float], after: dict[str, float], watch: str = "Hindi", most: int = 3) -> str:
    """The languages whose premium moved most between two trainings, by a tenth at least (and `watch`, moved or
    not), as "Hindi 9.2× → 2.4×" (_moved); "no language moved by a tenth" when none did."""
    common = [n for n in after if n in before]
    moved = sorted((n for n in common if abs(after[n] - before[n]) >= MOVED * before[n]),
                   key=lambda n: -abs(after[n] - before[n]))[:most]
    shown = ([watch] if watch in common else []) + [n for n in moved if n != watch]
    return ", ".join(f"{n} {_moved(before[n], after[n])}" for n in shown) or "no language moved by a tenth"


def _moved(before: float, after: float) -> str:
    """"9.2× → 2.4×"; with two decimals when one would show no move ("2.54× → 2.48×"), and "2.5× (no change)" when
    two would not either."""
    for digits in (1, 2):
        was, now = f"{before:.{digits}f}", f"{after:.{digits}f}"
        if was != now:
            return f"{was}× → {now}×"
    return f"{before:.1f}× (no change)"
