"""Tokens as HTML chips (for st.markdown with unsafe_allow_html). Every text in them (tokens, words, the text
between tokens, tooltips) goes through `safe.html`: however the text reads, the HTML block stays one block.

Colours: Okabe–Ito, with a solid border as well as a fill so meaning never rests on hue
alone; text keeps the theme's colour, so chips read on light and dark backgrounds.
"""

from __future__ import annotations

import re

from .safe import html

# Ordinary tokens take these; [UNK] is drawn differently (hatched, double border), not by a hue of its own.
BYTE_SPACE = "Ġ"  # byte-level BPE's spelling of a space
MARKERS = frozenset({"▁", BYTE_SPACE})  # a word's marker as a token of its own (SentencePiece's ▁, byte-level's Ġ)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#56B4E9", "#D55E00", "#F0E442")
LONG_CHIP = 24  # characters: a longer token's chip may wrap
STYLE = """
<style>
.wpl-row {display:flex; flex-wrap:wrap; align-items:center; gap:.35rem; margin:.15rem 0 .45rem 0;}
.wpl-word {font-weight:600; min-width:7rem; font-size:1.05rem; overflow-wrap:anywhere;}
.wpl-count {opacity:.7; font-size:.9rem; min-width:3.5rem;}
.wpl-chip {font-family:ui-monospace, SFMono-Regular, Menlo, monospace; font-size:1.1rem; padding:.1rem .4rem;
  border:1px solid rgba(128,128,128,.55); border-radius:.35rem; white-space:pre;}
.wpl-long {white-space:pre-wrap; overflow-wrap:anywhere;}
.wpl-split {display:inline-flex; flex-wrap:nowrap; align-items:center; gap:.35rem;}
.wpl-pair {border:2px dashed #E69F00; background:rgba(230,159,0,.18);}
.wpl-new {border:2px solid #D55E00; background:rgba(213,94,0,.20); font-weight:700;}
.wpl-arrow {opacity:.7; font-size:1.2rem; padding:0 .3rem;}
.wpl-special {border-style:dotted; opacity:.8;}
""" + "".join(f".wpl-c{i} {{border-color:{c}; background:{c}33; border-width:2px;}}\n"
                for i, c in enumerate(PALETTE)) + """.wpl-chip.wpl-bytes {border-style:dashed;}
.wpl-n {font-size:.65em; vertical-align:super; opacity:.8; margin-left:.1rem; font-family:sans-serif;}
.wpl-unk {border:3px double currentColor; background:repeating-linear-gradient(45deg, rgba(128,128,128,.35) 0 3px, transparent 3px 7px);}
.wpl-text {line-height:2.4; font-size:1.15rem;}
.wpl-text .wpl-chip {margin-right:.05rem;}
.wpl-html .wpl-chip {display:inline-block; line-height:1.5; margin-bottom:.3rem;}
.wpl-gap {display:inline-block; width:.8rem;}
.wpl-skipped {text-decoration:line-through; opacity:.6; overflow-wrap:anywhere;}
.wpl-legend {font-size:.9rem; opacity:.85;}
</style>
"""


def chip(token: str, css: str = "", title: str | None = None, colour: int | None = None, count: int = 1) -> str:
    """A token as a chip; `count` > 1: one chip over characters that took that many tokens (a small number after
    them)."""
    if colour is not None:  # the palette's colours are classes (wpl-c0 …): a long text's HTML stays small
        css += f" wpl-c{colour % len(PALETTE)}"
    tip = f' title="{html(title)}"' if title else ""
    if len(token) > LONG_CHIP:  # it may be wider than the line: it wraps (a short one never breaks)
        css += " wpl-long"
    tail = f'<span class="wpl-n">{count}</span>' if count > 1 else ""
    return f'<span class="wpl-chip {css}"{tip}>{html(token)}{tail}</span>'


def split_with_pair(symbols: list[str], left: str, right: str) -> str:
    """A split with every (left, right) occurrence that will merge highlighted."""
    out = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            out.append(chip(symbols[i], "wpl-pair") + chip(symbols[i + 1], "wpl-pair"))
            i += 2
        else:
            out.append(chip(symbols[i]))
            i += 1
    return "".join(out)


def split_with_new(symbols: list[str], new_token: str) -> str:
    return "".join(chip(t, "wpl-new" if t == new_token else "") for t in symbols)


def before_after_rows(rows: list[dict], left: str, right: str, new_token: str) -> str:
    """Rows of word, count, split before (pair marked) → split after (new token marked)."""
    parts = [STYLE]
    for r in rows:
        parts.append(
            '<div class="wpl-row">'
            f'<span class="wpl-word">{html(r["word"])}{_cut(r)}</span>'
            f'<span class="wpl-count">×{r["count"]:,}</span>'
            # each split stays on one line (the arrow with the split after it): a narrow column wraps between them
            f'<span class="wpl-split">{split_with_pair(r["before"], left, right)}</span>'
            f'<span class="wpl-split"><span class="wpl-arrow">→</span>{split_with_new(r["after"], new_token)}</span>'
            "</div>"
        )
    return "".join(parts)


def _cut(row: dict) -> str:
    """A note for a word shown (and split) on its first characters only."""
    length = row.get("length", len(row["word"]))
    if length <= len(row["word"]):
        return ""
    return (f'<span class="wpl-count">… the first {len(row["word"]):,} of {length:,} characters, '
            "split as a word of their own</span>")


_SPACES = re.compile(r"(\s+)")


def _gap(text: str) -> str:
    """Text between tokens: whitespace as a visible gap (line breaks kept), anything else struck through."""
    return "".join(_space(run) if run.isspace() else _skipped(run) for run in _SPACES.split(text) if run)


def _space(text: str) -> str:
    return "<br>" * text.count("\n") if "\n" in text else '<span class="wpl-gap"></span>'


def _skipped(text: str) -> str:
    return f'<span class="wpl-skipped" title="not part of any token">{html(text)}</span>'


def over_text(text: str, tokens: list[str], offsets: list[tuple[int, int]], ids: list | None = None,
              specials: set[str] | frozenset[str] = frozenset(), unk: str = "[UNK]", unk_id: int | None = None) -> str:
    """The original text with each token's span drawn as a chip (hover: the token and its id); a token spelled
    `unk`, or with the id `unk_id` (Unigram's unknown runs show their own text), is drawn as unknown.

    Special tokens (no span) appear as dotted chips where they occur. Tokens that share characters (byte-level
    pieces of one character: Hindi's क is three bytes, often three tokens) are drawn as one dashed chip over
    those characters, with the number of tokens beside them and each token in its hover text.
    """
    parts = [STYLE, '<div class="wpl-text" dir="auto">']
    pos = 0
    def unknown(j: int) -> bool:
        return tokens[j] == unk or (unk_id is not None and ids is not None and ids[j] == unk_id)

    for group in _groups(tokens, offsets):
        i = group[0]
        tok, (s, e) = tokens[i], offsets[i]
        tip = _tip(tok, ids, i)
        # Byte-level BPE writes a word's leading space as Ġ, and its offsets leave the space out:
        # the space is the token's, drawn as a visible ␣ (not as text no token covers).
        space = tok.startswith(BYTE_SPACE) and pos < s <= len(text) and text[s - 1] == " "
        if s == e and not space:  # added by the post-processor: no characters behind it
            parts.append(chip(tok, "wpl-special", tip))
            continue
        if tok in MARKERS and s < e and text[s:e].strip():  # a word's marker alone, over the word's first character
            if s > pos:
                parts.append(_gap(text[pos:s]))
            parts.append(chip(tok.replace(BYTE_SPACE, "␣"), "", tip, colour=i))
            pos = max(pos, s)  # the character is the next token's
            continue
        start = s - 1 if space else s
        if start > pos:
            parts.append(_gap(text[pos:start]))
        end = max(offsets[j][1] for j in group)
        shown = ("␣" if space else "") + text[s:end]
        if any(unknown(j) for j in group):
            parts.append(chip(shown, "wpl-unk", f"[UNK] (unknown token) for {text[s:end]!r}"
                              + (f" · id {ids[i]}" if ids is not None and ids[i] is not None else "")))
        elif len(group) > 1:  # one chip for the characters, the count of their tokens beside them
            spelled = " ".join(tokens[j] for j in group)
            numbers = f" · ids {' '.join(str(ids[j]) for j in group)}" if ids is not None else ""
            parts.append(chip(shown, "wpl-bytes", f"{text[s:end]} = {len(group)} tokens: {spelled}{numbers}",
                              colour=i, count=len(group)))
        elif tok in specials:
            parts.append(chip(shown, "wpl-special", tip))
        else:
            parts.append(chip(shown, "", tip, colour=i))
        pos = max(pos, end)
    if pos < len(text):
        parts.append(_gap(text[pos:]))
    parts.append("</div>")
    return "".join(parts)


def _groups(tokens: list[str], offsets: list[tuple[int, int]]) -> list[list[int]]:
    """The tokens in runs drawn as one chip each: a token that begins inside the characters of the token before
    it (a byte-level piece of a character the other began) joins that token's run. A word's marker alone (▁, Ġ)
    and a token without characters neither join a run nor start one; nor does a token that begins before its run."""
    def starts_run(j: int) -> bool:
        return offsets[j][0] < offsets[j][1] and tokens[j] not in MARKERS

    groups: list[list[int]] = []
    end = 0
    for i, (s, e) in enumerate(offsets):
        if (groups and s < end and starts_run(i) and starts_run(groups[-1][0])
                and s >= offsets[groups[-1][0]][0]):
            groups[-1].append(i)
        else:
            groups.append([i])
        end = max(end, e)
    return groups


def _tip(token: str, ids: list | None, i: int) -> str:
    """A token's hover text: its spelling (as the vocabulary has it) and its id."""
    return f"{token} · id {ids[i]}" if ids is not None and ids[i] is not None else token
