"""A printable handout of merge steps i..j (BPE, WordPiece): one self-contained HTML page (and the same as
Markdown), and its worksheet. Unigram's rounds have theirs in unigram_handout.py.

For each step: the corpus as split before it, the candidates with their score arithmetic,
the winner and the tie rule, and the step's notes. Black and white on paper (no colour
carries meaning), no script, nothing fetched: the page prints as it is.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from wordpiece_core.algorithms import LABELS
from wordpiece_core.reference import TIE_RULES
from wordpiece_core.trace import Training

from . import notes, sources, tables
from .safe import code, md

MAX_STEPS = 50  # steps in one handout
CANDIDATE_ROWS = 8
CORPUS_ROWS = 10
WINNER = " class='winner'"

_CSS = """
body { font-family: Georgia, 'DejaVu Serif', serif; color: #000; background: #fff; max-width: 60rem; margin: 2rem auto; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; border-top: 2px solid #000; padding-top: .6rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: .4rem 0 .8rem; } th, td { border: 1px solid #000; padding: .15rem .5rem; text-align: left; }
td.n { text-align: right; } code { font-family: 'DejaVu Sans Mono', monospace; } a { word-break: break-all; }
tr.winner td { font-weight: bold; } .rule { font-style: italic; }
@media print { h2 { break-before: page; } h2.first { break-before: avoid; } a { color: #000; } }
"""


# Our notes' Markdown, one piece at a time: a code span (safe.code's fence: longer than any run of backticks
# inside), a backslash escape (safe.md's), a link, or one character of text.
_PIECES = re.compile(r"(?P<fence>`+)(?P<code>.+?)(?<!`)(?P=fence)(?!`)|\\(?P<escaped>[!-/:-@\[-`{-~])"
                     r"|\[(?P<label>[^\[\]`\\]+)\]\((?P<url>[^()\s]+)\)", re.S)
_LINKED = {s.url for s in sources.ALL if s.url}  # the only addresses a handout links to
_KEPT = re.compile("\x00([0-9]+)\x01")


def _inline(markdown: str) -> str:
    """Our own notes' Markdown (bold, code, links to our sources, escapes) as HTML; everything else stays text.

    Code spans and escaped characters are user text (safe.code, safe.md): each becomes its HTML at once and
    is set aside, so nothing in it is read as bold, as a link or as an attribute. A link is made only to
    one of the sources' addresses."""
    kept: list[str] = []

    def set_aside(m: re.Match) -> str:
        if m["fence"]:
            body = m["code"]
            if len(body) > 2 and body.startswith(" ") and body.endswith(" ") and body.strip():
                body = body[1:-1]  # CommonMark's padding, as safe.code adds it
            kept.append(f"<code>{html.escape(body, quote=False)}</code>")
        elif m["escaped"]:
            kept.append(html.escape(m["escaped"], quote=False))
        elif m["url"] in _LINKED:
            kept.append(f'<a href="{html.escape(m["url"])}">{html.escape(m["label"], quote=False)}</a>')
        else:
            kept.append(html.escape(m[0], quote=False))
        return f"\x00{len(kept) - 1}\x01"

    text = html.escape(_PIECES.sub(set_aside, _KEPT.sub("", markdown)), quote=False)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    text = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", text)
    return _KEPT.sub(lambda m: kept[int(m[1])], text)


def steps_content(training: Training, corpus: str, first: int, last: int,
                  show: Callable[[str], str] = tables.fmt_token) -> list[dict]:
    """What the handout says about each step, as data both formats write: the sentences name tokens as
    `show` writes them (the words, splits and pairs, for tables and code spans, as they are)."""
    algorithm = training.config.algorithm
    out = []
    for i in range(first, last + 1):
        step = training.steps[i - 1]
        table = tables.candidates_frame(step.candidates, algorithm)
        change, _ = tables.corpus_change(training, i, CORPUS_ROWS)
        out.append({
            "step": i,
            "merge": f"{show(step.left)} + {show(step.right)} → {show(step.new_token)}",
            "corpus": tables.splits_before(training, i, CORPUS_ROWS).to_dict("records"),
            "candidates": [{"pair": f"{tables.fmt_token(c.left)} + {tables.fmt_token(c.right)}",
                            "count(ab)": c.pair_count, "count(a)": c.left_count, "count(b)": c.right_count,
                            "score": tables.arithmetic(c, algorithm, show), "winner": c.rank == 1}
                           for c in step.candidates[:CANDIDATE_ROWS]],
            "recorded": len(step.candidates),
            "winner": tables.arithmetic(step, algorithm, show),
            "tie": tables.tie_sentence(step, training.config.tie_break, show),
            "notes": notes.for_step(corpus, training, step, table, False, change),
        })
    return out


def _title(training: Training, corpus_title: str, first: int, last: int, answers: bool = True) -> str:
    name = LABELS[training.config.algorithm]
    return f"{'' if answers else 'Worksheet: '}{name} on {corpus_title}: steps {first} to {last}"


WORKSHEET_NOTE = ("A worksheet: for each step, the corpus as split before it and the best candidates (in alphabetical "
                  "order) with their counts. Work out each score, then the pair that merges (mind the tie rule). "
                  "Each step's corpus shows the merges of the steps before it.")


def span(n: int, first: int, last: int) -> tuple[int, int, str | None]:
    """The steps a handout covers, asked for first..last of a training of n steps, and what was changed (None:
    nothing): within 1..n, first before last, at most MAX_STEPS steps."""
    asked = (first, last)
    note = []
    if first > last:
        first, last = last, first
        note.append("the range was given backwards")
    if last > n:
        note.append(f"this training has {n:,} steps")
    first, last = max(1, min(first, n)), max(1, min(last, n))
    if last - first + 1 > MAX_STEPS:
        last = first + MAX_STEPS - 1
        note.append(f"a handout holds at most {MAX_STEPS} steps")
    if (first, last) == asked:
        return first, last, None
    return first, last, f"Steps {first:,} to {last:,} ({'; '.join(note)})."


def _worksheet(s: dict) -> dict:
    """A step's content without its answers: candidates in alphabetical order, no scores, no merge, no notes."""
    return {**s, "candidates": sorted(({**c, "score": "", "winner": False} for c in s["candidates"]),
                                      key=lambda c: c["pair"]), "notes": []}


def as_html(training: Training, corpus: str, corpus_title: str, first: int, last: int, link: str,
            answers: bool = True) -> str:
    """The handout as one printable HTML page (`answers=False`: the worksheet, without them)."""
    first, last, _ = span(len(training.steps), first, last)
    e = html.escape
    title = _title(training, corpus_title, first, last, answers)
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{e(title)}</title>"
             f"<style>{_CSS}</style></head><body>",
             f"<h1>{e(title)}</h1>",
             f"<p>{e(tables.formula(training.config.algorithm))}. Tie rule '{e(training.config.tie_break)}': "
             f"{e(TIE_RULES[training.config.tie_break])}. Made with WordPiece Lab; the same view online: "
             f"<a href='{e(link)}'>{e(link)}</a></p>"]
    if not answers:
        parts.append(f"<p>{e(WORKSHEET_NOTE)}</p>")
    for k, s in enumerate(steps_content(training, corpus, first, last)):
        first_class = " class='first'" if k == 0 else ""
        if not answers:
            s = _worksheet(s)
        parts.append(f"<h2{first_class}>Step {s['step']}: {e(s['merge']) if answers else 'which pair merges?'}</h2>")
        parts.append("<h3>The corpus as split before this step</h3><table><tr><th>word</th><th>count</th><th>split</th></tr>")
        parts += [f"<tr><td>{e(r['word'])}</td><td class='n'>{r['count']:,}</td><td><code>{e(r['split'])}</code></td></tr>"
                  for r in s["corpus"]]
        parts.append("</table><h3>The best candidates</h3><table><tr><th>pair</th><th>count(ab)</th><th>count(a)</th>"
                     "<th>count(b)</th><th>score</th></tr>")
        parts += [f"<tr{WINNER if c['winner'] else ''}><td><code>{e(c['pair'])}</code></td>"
                  f"<td class='n'>{c['count(ab)']:,}</td><td class='n'>{c['count(a)']:,}</td><td class='n'>{c['count(b)']:,}</td>"
                  f"<td>{e(c['score'])}</td></tr>" for c in s["candidates"]]
        if not answers:
            parts.append("</table><p><strong>Merged:</strong> ____________________ &#8195; score: ______________</p>")
            continue
        parts.append(f"</table><p><strong>Merged: {e(s['merge'])}</strong>, score {e(s['winner'])}.</p>"
                     f"<p class='rule'>{e(s['tie'])}</p>")
        parts += [f"<p>{_inline(n)}</p>" for n in s["notes"]]
    parts.append("</body></html>")
    return "\n".join(parts)


def as_markdown(training: Training, corpus: str, corpus_title: str, first: int, last: int, link: str,
                answers: bool = True) -> str:
    """The handout as Markdown (`answers=False`: the worksheet). Words, tokens and the corpus' title are the
    user's: escaped (safe.md) or in code spans (safe.code), so a Markdown viewer shows them as text, never as a
    link, an image or HTML."""
    first, last, _ = span(len(training.steps), first, last)
    lines = [f"# {_title(training, md(corpus_title), first, last, answers)}", "",
             f"{tables.formula(training.config.algorithm)}. Tie rule '{training.config.tie_break}': "
             f"{TIE_RULES[training.config.tie_break]}. Made with WordPiece Lab: <{link}>", ""]
    if not answers:
        lines += [WORKSHEET_NOTE, ""]

    def cell(markdown: str) -> str:
        return markdown.replace("|", "\\|")  # a table's cell ends at a bare |, even inside a code span

    for s in steps_content(training, corpus, first, last, lambda token: md(tables.fmt_token(token))):
        if not answers:
            s = _worksheet(s)
        lines += [f"## Step {s['step']}: {s['merge'] if answers else 'which pair merges?'}", "",
                  "The corpus as split before this step:", "",
                  "| word | count | split |", "|---|---:|---|"]
        lines += [f"| {md(r['word'])} | {r['count']:,} | {cell(code(r['split']))} |" for r in s["corpus"]]
        lines += ["", "The best candidates:", "", "| pair | count(ab) | count(a) | count(b) | score |", "|---|---:|---:|---:|---|"]
        lines += [f"| {'**' if c['winner'] else ''}{cell(code(c['pair']))}{'**' if c['winner'] else ''} | {c['count(ab)']:,} | "
                  f"{c['count(a)']:,} | {c['count(b)']:,} | {c['score']} |" for c in s["candidates"]]
        if not answers:
            lines += ["", "**Merged:** \\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_ · score: \\_\\_\\_\\_\\_\\_\\_\\_", ""]
            continue
        lines += ["", f"**Merged: {s['merge']}**, score {s['winner']}.", "", f"*{s['tie']}*", ""]
        lines += [item for n in s["notes"] for item in (n, "")]
    return "\n".join(lines)
