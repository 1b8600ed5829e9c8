"""A printable handout of merge steps i..j (BPE, WordPiece): one self-contained HTML page (and the same as
Markdown), and its worksheet. Unigram's rounds have theirs in unigram_handout.py.

For each step: the corpus as split before it, the candidates with their score arithmetic,
the winner and the tie rule, and the step's notes. At a step whose best score is tied, the
candidates also carry the order the tie rule needs (`tie_keys`: where the scan first meets each
pair for the course's rule, the tokens' ids for Hugging Face's), so the worksheet's tie can be
solved on paper. Black and white on paper (no colour carries meaning), no script, nothing
fetched: the page prints as it is.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable

from wordpiece_core import reference, replay
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


Pair = tuple[str, str]

# The column a tied step's candidates get, by tie rule, and the line under the table that says how to read it.
TIE_COLUMNS = {"first": ("met first", "in the word"), "hf": ("ids", "")}
TIE_HOW = {
    "first": ("The best score is shared at this step: the tie rule ('first') takes, of the pairs that share it, the "
              "one met first. *met first* numbers the pairs in the order a scan meets them (1 = first): the words "
              "in order of first appearance in the corpus, each split read left to right, as before this step; "
              "*in the word* is where the scan first meets the pair."),
    "hf": ("The best score is shared at this step: the tie rule ('hf') takes, of the pairs that share it, the one "
           "with the smallest *ids*: the id of its left token, then of its right one (a token's id is its place "
           "in the vocabulary before this step, from 0: the special tokens, the alphabet by code point, then each "
           "merge's new token)."),
}


def tie_keys(training: Training, number: int, pairs: Iterable[Pair]) -> dict[Pair, tuple[int, ...]]:
    """The tie rule's key (reference.tie_key: among equal scores the smaller merges first) of each of `pairs`
    just before step `number`, from the trainer's own `count` over the corpus as split then."""
    tie_break = training.config.tie_break
    ids = {t: i for i, t in enumerate(training.vocab_at(number - 1))}
    first: dict[Pair, int] = {}
    if tie_break == "first":
        _, _, first = reference.count(replay.splits_at(training, number), list(training.counts))
    return {pair: reference.tie_key(pair, tie_break, ids, first) for pair in pairs}


def first_met_in(training: Training, number: int, pairs: Iterable[Pair]) -> dict[Pair, str]:
    """The word in which the scan (the words in order of first appearance, each left to right) first meets
    each of `pairs`, just before step `number`."""
    wanted, found = set(pairs), {}
    for word, split in zip(training.words, replay.splits_at(training, number)):
        for pair in zip(split, split[1:]):
            if pair in wanted and pair not in found:
                found[pair] = word
        if len(found) == len(wanted):
            break
    return found


def tie_order(training: Training, number: int, pairs: list[Pair]) -> dict[Pair, tuple[str, str]]:
    """What the tie rule needs of each pair, as the handout prints it: 'first', (its place in the scan,
    1-based; the word where the scan meets it first); 'hf', ('(id of left, id of right)', ''), the ids without
    thousands separators, so that the comma between them reads as one."""
    keys = tie_keys(training, number, pairs)
    if training.config.tie_break == "hf":
        return {p: (f"({k[0]}, {k[1]})", "") for p, k in keys.items()}
    words = first_met_in(training, number, pairs)
    return {p: (f"{k[0] + 1:,}", words.get(p, "")) for p, k in keys.items()}


def steps_content(training: Training, corpus: str, first: int, last: int,
                  show: Callable[[str], str] = tables.fmt_token) -> list[dict]:
    """What the handout says about each step, as data both formats write: the sentences name tokens as
    `show` writes them (the words, splits and pairs, for tables and code spans, as they are). At a step whose
    best score is tied, each candidate has the tie rule's order ("order": `tie_order`'s pair of texts)."""
    algorithm = training.config.algorithm
    out = []
    for i in range(first, last + 1):
        step = training.steps[i - 1]
        table = tables.candidates_frame(step.candidates, algorithm)
        change, _ = tables.corpus_change(training, i, CORPUS_ROWS)
        shown = step.candidates[:CANDIDATE_ROWS]
        order = tie_order(training, i, [(c.left, c.right) for c in shown]) if step.ties > 1 else {}
        out.append({
            "step": i,
            "merge": f"{show(step.left)} + {show(step.right)} → {show(step.new_token)}",
            "corpus": tables.splits_before(training, i, CORPUS_ROWS).to_dict("records"),
            "candidates": [{"pair": f"{tables.fmt_token(c.left)} + {tables.fmt_token(c.right)}",
                            "count(ab)": c.pair_count, "count(a)": c.left_count, "count(b)": c.right_count,
                            "score": tables.arithmetic(c, algorithm, show), "winner": c.rank == 1,
                            "order": order.get((c.left, c.right))}
                           for c in shown],
            "recorded": len(step.candidates),
            "tied": step.ties > 1,
            "winner": tables.arithmetic(step, algorithm, show),
            "tie": tables.tie_sentence(step, training.config.tie_break, show),
            "notes": notes.for_step(corpus, training, step, table, False, change),
        })
    return out


def _title(training: Training, corpus_title: str, first: int, last: int, answers: bool = True) -> str:
    name = LABELS[training.config.algorithm]
    return f"{'' if answers else 'Worksheet: '}{name} on {corpus_title}: steps {first} to {last}"


WORKSHEET_NOTE = ("A worksheet: for each step, the corpus as split before it and the best candidates (in alphabetical "
                  "order) with their counts. Work out each score, then the pair that merges (mind the tie rule: "
                  "where pairs share the best score, the table also gives the order it needs). "
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


def _order_cells(order: tuple[str, str] | None, columns: tuple[str, str]) -> str:
    """A candidate's tie-rule cells in the HTML table: its key, and (for 'first') the word where it is met."""
    key, word = order or ("", "")
    return f"<td class='n'>{html.escape(key)}</td>" + (
        f"<td>{html.escape(tables.fmt_token(word))}</td>" if columns[1] else "")


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
    tie_break = training.config.tie_break
    for k, s in enumerate(steps_content(training, corpus, first, last)):
        first_class = " class='first'" if k == 0 else ""
        if not answers:
            s = _worksheet(s)
        # a tied step's candidates carry the order its tie rule needs: a column or two, and how to read them
        order = TIE_COLUMNS.get(tie_break) if s["tied"] else None
        parts.append(f"<h2{first_class}>Step {s['step']}: {e(s['merge']) if answers else 'which pair merges?'}</h2>")
        parts.append("<h3>The corpus as split before this step</h3><table><tr><th>word</th><th>count</th><th>split</th></tr>")
        parts += [f"<tr><td>{e(r['word'])}</td><td class='n'>{r['count']:,}</td><td><code>{e(r['split'])}</code></td></tr>"
                  for r in s["corpus"]]
        parts.append("</table><h3>The best candidates</h3><table><tr><th>pair</th><th>count(ab)</th><th>count(a)</th>"
                     "<th>count(b)</th><th>score</th>"
                     + ("".join(f"<th>{e(h)}</th>" for h in order if h) if order else "") + "</tr>")
        parts += [f"<tr{WINNER if c['winner'] else ''}><td><code>{e(c['pair'])}</code></td>"
                  f"<td class='n'>{c['count(ab)']:,}</td><td class='n'>{c['count(a)']:,}</td><td class='n'>{c['count(b)']:,}</td>"
                  f"<td>{e(c['score'])}</td>" + (_order_cells(c["order"], order) if order else "") + "</tr>"
                  for c in s["candidates"]]
        parts.append("</table>")
        if order:
            parts.append(f"<p>{_inline(TIE_HOW[tie_break])}</p>")
        if not answers:
            parts.append("<p><strong>Merged:</strong> ____________________ &#8195; score: ______________</p>")
            continue
        parts.append(f"<p><strong>Merged: {e(s['merge'])}</strong>, score {e(s['winner'])}.</p>"
                     f"<p class='rule'>{e(s['tie'])}</p>")
        parts += [f"<p>{_inline(n)}</p>" for n in s["notes"]]
    parts.append("</body></html>")
    return "\n".join(parts)


def _order_texts(order: tuple[str, str] | None, heads: list[str]) -> list[str]:
    """A candidate's tie-rule cells in the Markdown table (the word where it is met in a code span)."""
    key, word = order or ("", "")
    return [key, code(tables.fmt_token(word)) if word else ""][:len(heads)]


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

    tie_break = training.config.tie_break
    for s in steps_content(training, corpus, first, last, lambda token: md(tables.fmt_token(token))):
        if not answers:
            s = _worksheet(s)
        order = TIE_COLUMNS.get(tie_break) if s["tied"] else None  # as in as_html
        heads = [h for h in order if h] if order else []
        lines += [f"## Step {s['step']}: {s['merge'] if answers else 'which pair merges?'}", "",
                  "The corpus as split before this step:", "",
                  "| word | count | split |", "|---|---:|---|"]
        lines += [f"| {md(r['word'])} | {r['count']:,} | {cell(code(r['split']))} |" for r in s["corpus"]]
        lines += ["", "The best candidates:", "",
                  "| pair | count(ab) | count(a) | count(b) | score |" + "".join(f" {h} |" for h in heads),
                  "|---|---:|---:|---:|---|" + "".join("---:|" if k == 0 else "---|" for k in range(len(heads)))]
        lines += [f"| {'**' if c['winner'] else ''}{cell(code(c['pair']))}{'**' if c['winner'] else ''} | {c['count(ab)']:,} | "
                  f"{c['count(a)']:,} | {c['count(b)']:,} | {c['score']} |"
                  + "".join(f" {cell(text)} |" for text in _order_texts(c["order"], heads)) for c in s["candidates"]]
        if order:
            lines += ["", TIE_HOW[tie_break]]
        if not answers:
            lines += ["", "**Merged:** \\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_ · score: \\_\\_\\_\\_\\_\\_\\_\\_", ""]
            continue
        lines += ["", f"**Merged: {s['merge']}**, score {s['winner']}.", "", f"*{s['tie']}*", ""]
        lines += [item for n in s["notes"] for item in (n, "")]
    return "\n".join(lines)
