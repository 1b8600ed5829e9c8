"""A printable handout of Unigram rounds i..j (HTML and Markdown), as handout.py makes one of merges.

For each round: the vocabulary's size and the loss, the cheapest candidates with their loss increases, what
was removed, and the words whose best split changed. The worksheet lists the candidates in alphabetical
order without their numbers and leaves the removal blank. Black and white, no script, nothing fetched.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from wordpiece_core.unigram.records import Round
from wordpiece_core.unigram.rounds import changed_splits
from wordpiece_core.unigram.training import UnigramTraining

from .handout import _CSS, MAX_STEPS, span
from .safe import code, md
from .tables import fmt_number

CANDIDATES = 8
CHANGED = 10


def _rounds_content(training: UnigramTraining, words: Sequence[tuple[str, int]], first: int, last: int) -> list[dict]:
    out = []
    for number in range(first, last + 1):
        r = training.rounds[number - 1]
        if isinstance(r, Round):
            size, loss = len(r.counts), f"{r.loss:,.2f}"
            cands = [(t, s) for t, s in r.scores[:CANDIDATES]]
            removed = list(r.removed)
        else:
            size, loss = len(r.pieces) - 1, f"{r.em[-1].objective:.4f} nats a word (EM objective)" if r.em else "–"
            p = r.pruning
            cands = [] if p is None else [(p.pieces[k], p.losses[k])
                                          for k in range(len(p.pieces) - 1, max(-1, len(p.pieces) - 1 - CANDIDATES), -1)]
            removed = [] if p is None else list(p.unused) + list(p.cut)
        changed = [(w, c, " ".join(a.pieces), " ".join(b.pieces))
                   for w, c, a, b in changed_splits(training, number, words)[:CHANGED]]
        out.append({"round": number, "size": size, "loss": loss, "candidates": cands, "removed": removed,
                    "changed": changed})
    return out


def _cell(markdown: str) -> str:
    return markdown.replace("|", "\\|")  # a table's cell ends at a bare |, even inside a code span


def _title(training: UnigramTraining, corpus_title: str, first: int, last: int, answers: bool) -> str:
    kind = "Worksheet" if not answers else "Handout"
    return (f"{kind}: Unigram ({training.config.rule} rule) on {corpus_title}, rounds {first}–{last} of "
            f"{len(training.rounds)}")


def as_html(training: UnigramTraining, words: Sequence[tuple[str, int]], corpus_title: str, first: int, last: int,
            link: str, answers: bool = True) -> str:
    first, last, _ = span(len(training.rounds), first, last)
    e = html.escape
    title = _title(training, corpus_title, first, last, answers)
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{e(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{e(title)}</h1>",
             f"<p>Each round removes the pieces whose removal raises the loss least (single characters always "
             f"stay). Made with WordPiece Lab; the same view online: <a href='{e(link)}'>{e(link)}</a></p>"]
    for k, c in enumerate(_rounds_content(training, words, first, last)):
        cls = " class='first'" if k == 0 else ""
        parts.append(f"<h2{cls}>Round {c['round']}: {c['size']:,} pieces, loss {e(c['loss'])}</h2>")
        cands = c["candidates"] if answers else sorted(c["candidates"])
        parts.append("<h3>The cheapest candidates</h3><table><tr><th>piece</th><th>loss increase</th></tr>")
        winner = " class='winner'"
        parts += [f"<tr{winner if answers and t in c['removed'] else ''}><td><code>{e(t)}</code></td>"
                  f"<td class='n'>{fmt_number(s) if answers else ''}</td></tr>" for t, s in cands]
        parts.append("</table>")
        if not answers:
            parts.append("<p><strong>Removed first:</strong> ____________________</p>")
            continue
        shown = ", ".join(c["removed"][:20]) + (" …" if len(c["removed"]) > 20 else "")
        parts.append(f"<p><strong>Removed ({len(c['removed']):,}):</strong> <code>{e(shown)}</code></p>")
        if c["changed"]:
            parts.append("<h3>Best splits that changed</h3><table><tr><th>word</th><th>count</th><th>before</th>"
                         "<th>after</th></tr>")
            parts += [f"<tr><td>{e(w)}</td><td class='n'>{n:,}</td><td><code>{e(a)}</code></td><td><code>{e(b)}</code>"
                      f"</td></tr>" for w, n, a, b in c["changed"]]
            parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def as_markdown(training: UnigramTraining, words: Sequence[tuple[str, int]], corpus_title: str, first: int,
                last: int, link: str, answers: bool = True) -> str:
    first, last, _ = span(len(training.rounds), first, last)
    lines = [f"# {_title(training, md(corpus_title), first, last, answers)}", "",
             f"Each round removes the pieces whose removal raises the loss least. Made with WordPiece Lab: <{link}>", ""]
    for c in _rounds_content(training, words, first, last):
        lines += [f"## Round {c['round']}: {c['size']:,} pieces, loss {c['loss']}", "",
                  "| piece | loss increase |", "|---|---:|"]
        cands = c["candidates"] if answers else sorted(c["candidates"])
        lines += [f"| {_cell(code(t))} | {fmt_number(s) if answers else ''} |" for t, s in cands]
        if not answers:
            lines += ["", "**Removed first:** \\_\\_\\_\\_\\_\\_\\_\\_\\_\\_", ""]
            continue
        lines += ["", f"**Removed ({len(c['removed']):,}):** " + " ".join(code(t) for t in c["removed"][:20]), ""]
        if c["changed"]:
            lines += ["| word | count | before | after |", "|---|---:|---|---|"]
            lines += [f"| {_cell(md(w))} | {n:,} | {_cell(code(a))} | {_cell(code(b))} |" for w, n, a, b in c["changed"]]
            lines.append("")
    return "\n".join(lines)


__all__ = ["MAX_STEPS", "as_html", "as_markdown"]
