"""The functions that make a step, read from the code that runs, with the lines that decided it highlighted.

Like Streamlit's hello demo showing a page's own code, the Train page's merge view (merges_view.py) shows the
code that makes the merge it explains: wordpiece_core/reference.py's loop, `train`, first, then the helpers
that decide a step (`count`, `score`, `ranked`, `tie_key`, `merge`); a Unigram round's view (rounds_view.py)
shows the functions of unigram/reference.py (the course's rule) or unigram/em.py (tokenizers') that decide a
round. `inspect` reads each function, so what is shown is what runs (the property tests check that the fast
engines make the same merges and rounds), with the line numbers of its file.

A function's marks name pieces of its lines (`Marks`: each is one line of it, a test checks it): the marked
lines are highlighted, and the step's values, in words, go under the line that has them. `as_html` draws the
functions as one HTML block for `st.markdown(..., unsafe_allow_html=True)`, as the token chips are drawn
(chips.py): every character of the code and of the notes goes through `safe.html`, nothing is fetched, and
the colours are translucent so they read on the light and the dark theme.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wordpiece_core import reference
from wordpiece_core.records import MergeStep
from wordpiece_core.unigram import em as unigram_em, reference as unigram_reference
from wordpiece_core.unigram.records import EMRound, Round
from wordpiece_core.unigram.training import UnigramConfig

from .safe import html
from .tables import arithmetic, fmt_fraction, fmt_number, fmt_token, plural

Pair = tuple[str, str]
Marks = dict[str, str]  # a piece of one line of the function → the note under that line ("": highlighted only)
TIED_SHOWN = 6  # the tied pairs a tie_key note names


@dataclass(frozen=True)
class Line:
    number: int  # in its file
    text: str
    hot: bool = False  # one of the lines that decided this step
    note: str = ""  # this step's values, in words, shown under the line


@dataclass(frozen=True)
class Function:
    path: str  # its file, from the project's root
    name: str
    role: str  # what it does in this step, in a few words
    lines: tuple[Line, ...]


def path_of(func: Callable[..., Any]) -> str:
    """The file a function is in, from the project's root: wordpiece_core/reference.py."""
    return func.__module__.replace(".", "/") + ".py"


def function(func: Callable[..., Any], role: str, marks: Mapping[str, str]) -> Function:
    """`func`'s source as it is on disk, its marked lines highlighted. A mark that is not exactly one line of
    it marks nothing (tests/test_algorithm_code.py holds every mark to one line)."""
    source, start = inspect.getsourcelines(func)
    hot: dict[int, str] = {}
    for anchor, note in marks.items():
        found = [i for i, line in enumerate(source) if anchor in line]
        if len(found) == 1:
            hot[found[0]] = note
    return Function(path_of(func), func.__name__, role, tuple(
        Line(start + i, line.rstrip("\n"), i in hot, hot.get(i, "")) for i, line in enumerate(source)))


def marked_lines(func: Callable[..., Any], marks: Mapping[str, str]) -> dict[str, list[int]]:
    """Each mark's lines in `func` (for the test: exactly one each)."""
    source, start = inspect.getsourcelines(func)
    return {anchor: [start + i for i, line in enumerate(source) if anchor in line] for anchor in marks}


# ------------------------------------------------------------------------------------- a merge step

def _quoted(token: str) -> str:
    """A token as Python writes it ('##u'), shortened as the tables shorten a very long one."""
    return repr(fmt_token(token))


def merge_marks(step: MergeStep, algorithm: str, tie_break: str,
                keys: Mapping[Pair, tuple[int, ...]] | None = None) -> dict[Callable[..., Any], tuple[str, Marks]]:
    """reference.py's functions in play at a merge step, the loop first, each with its role and its marks.
    `keys`: the tied pairs' tie keys (handout.tie_keys), when the step's best score is tied."""
    a, b, new = fmt_token(step.left), fmt_token(step.right), fmt_token(step.new_token)
    qa, qb, qnew = _quoted(step.left), _quoted(step.right), _quoted(step.new_token)  # as the code holds them
    pair = f"({qa}, {qb})"
    exact = fmt_fraction(step.score)
    tied = step.ties > 1
    key = (keys or {}).get((step.left, step.right))
    if tied:
        best = (f"best[0] = ({a}, {b}): {step.ties} pairs share the best score, {exact}; the tie rule "
                f"'{tie_break}' puts this one first")
    else:
        best = f"best[0] = ({a}, {b}): the best score, {exact}, with no other pair at it"
    tie_note = ""
    if tied:
        if keys:
            ordered = sorted(keys.items(), key=lambda kv: kv[1])
            named = "; ".join(f"{k} for {fmt_token(l)} + {fmt_token(r)}" for (l, r), k in ordered[:TIED_SHOWN])
            more = len(keys) - TIED_SHOWN
            tie_note = (f"tie_break = {tie_break!r}; the tied pairs' keys: {named}"
                        + (f" … ({more:,} more)" if more > 0 else "")
                        + f". The smallest, {min(keys.values())}, merges first")
        else:
            tie_note = f"tie_break = {tie_break!r}: {step.ties} pairs tied at {exact}"
    return {
        reference.train: ("the loop: one merge a step", {
            "pairs, tokens, first = count(splits, freqs)":
                f"count({a} {b}) = {step.pair_count:,}, count({a}) = {step.left_count:,}, "
                f"count({b}) = {step.right_count:,}",
            "best = ranked(pairs, tokens, first,": best,
            "a, b = best[0]": f"a, b = {qa}, {qb}",
            "top = score(algorithm, pairs[a, b]": f"top = {arithmetic(step, algorithm)}",
            "new = new_token(a, b, prefix)": f"new = {qnew}"
                                             + (" (already in the vocabulary: nothing is added)"
                                                if step.new_token_existed else ""),
            "ties = sum(1 for p in best": f"ties = {step.ties:,}" + ("" if tied else ": no tie"),
            "splits = [merge(split, a, b, new) for split in splits]":
                f"{plural(step.merged_count, 'occurrence')} of {a} {b} merged, in "
                f"{plural(len(step.words_touched), 'distinct word')}",
        }),
        reference.count: ("counts every pair and token, from scratch", {
            "tokens[t] = tokens.get(t, 0) + f":
                f"tokens[{qa}] = {step.left_count:,}"
                + ("" if step.left == step.right else f", tokens[{qb}] = {step.right_count:,}"),
            **({"first.setdefault(pair, len(first))": f"first[{pair}] = {key[0]:,}: " + (
                "the first pair the scan meets" if key[0] == 0 else f"the scan meets {key[0]:,} other pairs before it")}
               if tied and tie_break == "first" and key is not None else {}),
            "pairs[pair] = pairs.get(pair, 0) + f": f"pairs[{pair}] = {step.pair_count:,}",
        }),
        reference.score: ("the score", {
            "return Fraction(ab) if algorithm": arithmetic(step, algorithm),
        }),
        reference.ranked: ("the candidates, best first", {
            "return sorted(kept, key=lambda p:": "",
            "*tie_key(p, tie_break, ids, first)))":
                f"({a}, {b}) first: the highest score" + (", then the smallest tie_key" if tied else ""),
        }),
        reference.tie_key: ("the tie rule" + ("" if tied else " (no tie at this step: it decides nothing)"),
                            {"return (ids[pair[0]], ids[pair[1]]) if tie_break": tie_note} if tied else {}),
        reference.merge: ("the merge, in one word's split", {
            "if i + 1 < len(split) and split[i] == a and split[i + 1] == b:": "",
            "out.append(new)": f"out.append({qnew}): {a} {b} → {new}",
        }),
    }


def merge_step(step: MergeStep, algorithm: str, tie_break: str,
               keys: Mapping[Pair, tuple[int, ...]] | None = None) -> list[Function]:
    """The functions that made a merge step, the loop first, with its lines highlighted and its values."""
    return [function(func, role, marks) for func, (role, marks) in merge_marks(step, algorithm, tie_break, keys).items()]


# ------------------------------------------------------------------------------------- a Unigram round

def _pieces(pieces: Sequence[str], limit: int = 6) -> str:
    """Pieces as Python writes them: 'hug', 'pu' … (the first `limit`)."""
    return ", ".join(repr(p) for p in pieces[:limit]) + (f" … ({len(pieces):,} in all)" if len(pieces) > limit else "")


def course_marks(r: Round, config: UnigramConfig) -> dict[Callable[..., Any], tuple[str, Marks]]:
    """The course's loop (unigram/reference.py) at a round: `train` first, then `removal_scores`."""
    size = len(r.counts)
    n = max(1, int(size * config.prune_percent / 100))
    cheapest = ", ".join(f"{t!r} {s:.2f}" for t, s in r.scores[:3])
    removed = r.removed
    return {
        unigram_reference.train: ("the course's loop: one round", {
            "while len(counts) > vocab_size:": f"len(counts) = {size:,} > vocab_size = {config.vocab_size:,}",
            "costs = probabilities(counts)":
                f"each piece's −log(count / {sum(r.counts.values()):,}); the corpus's loss with them: {r.loss:.2f}",
            "scores = sorted(removal_scores(word_counts, costs).items()":
                f"{len(r.scores):,} candidates; the cheapest to remove: {cheapest}" if r.scores else "",
            "n = max(1, int(len(counts) * prune_percent / 100))":
                f"n = max(1, int({size:,} × {config.prune_percent:g} / 100)) = {n:,}",
            "removed = [token for token, _ in scores[:n]]": f"removed = [{_pieces(removed)}]",
            "del counts[token]": "",
        }),
        unigram_reference.removal_scores: ("how much the loss grows without each piece", {
            "base = loss(word_counts, costs, COURSE_START)":
                f"base = {r.course_loss:.2f}: the model's loss, {r.loss:.2f}, + 1 per word occurrence, as the course's "
                "code has it (it cancels in the difference)",
            "return {token: loss(word_counts, {t: c for t, c in costs.items() if t != token}, COURSE_START) - base": "",
            "for token in costs if len(token) > 1}":
                (f"{r.scores[0][0]!r}: every word split again without it, the loss grows by {r.scores[0][1]:.2f}, "
                 "the least" if r.scores else ""),
        }),
    }


def tokenizers_marks(r: EMRound, config: UnigramConfig) -> dict[Callable[..., Any], tuple[str, Marks]]:
    """tokenizers' trainer (unigram/em.py) at a round: `prune` first, then `pruning_loss` and `m_step`; the last
    round (no pruning): `train`'s stop, then `m_step`."""
    dropped = [t for e in r.em for t in e.dropped]
    em = r.em[-1] if r.em else None
    em_note = (f"{plural(len(r.em), 'EM iteration')}: {r.em[0].size_before - 1:,} → {em.size_after - 1:,} pieces "
               "(without <UNK>)" if em else "")
    p = r.pruning
    m_step = (unigram_em.m_step, ("EM's M-step: new scores, rare pieces dropped", {
        **({"if expected[i] < EXPECTED_THRESHOLD:": "",
            "dropped.append(pieces[i][0])": f"dropped in this round's EM: {_pieces(dropped)}"} if dropped else {}),
        # the EM's sizes: here, or (the last round) under train's loop over the iterations
        "return [(p, digamma(f) - log_total) for p, f in kept], dropped": em_note if p is not None else "",
    }))
    desired = config.vocab_size * 11 // 10
    if p is None:
        return {
            unigram_em.train: ("tokenizers' loop: the last round", {
                "for sub in range(sub_iterations):": em_note,
                "if len(pieces) <= desired:": f"len(pieces) = {len(r.pieces):,} ≤ desired = {desired:,} "
                                              "(1.1 × the vocabulary size): no pruning",
                "rounds.append(EMRound(len(rounds) + 1, tuple(steps), tuple(pieces), None))": "",
            }),
            m_step[0]: m_step[1],
        }
    k = len(p.pieces) - 1  # the candidate with the smallest loss
    n_kept = len(p.pieces) - len(p.cut)
    return {
        unigram_em.prune: ("the pruning: the candidates with the smallest loss go", {
            "unused.append(piece)  # on no best split": (f"unused: {plural(len(p.unused), 'piece')} that no best "
                                                          f"split uses, {_pieces(p.unused)}" if p.unused else ""),
            "candidates.append((i, pruning_loss(": f"{len(p.pieces):,} candidates, each with its estimated loss",
            "target = max(vocab_size * 11 // 10, int(len(pieces) * shrinking_factor))":
                f"target = max({config.vocab_size:,} × 11 // 10, int({len(r.pieces):,} × "
                f"{config.shrinking_factor:g})) = {p.target:,}",
            "candidates.sort(key=lambda c: -c[1])": "",
            "n_kept = next((n for n in range(len(candidates))":
                f"n_kept = {n_kept:,}; cut: the {plural(len(p.cut), 'candidate')} of smallest loss",
            "kept.extend(pieces[i] for i, _ in candidates[:n_kept])":
                f"cut: {_pieces(list(reversed(p.cut)))}" if p.cut else "nothing cut",
        }),
        unigram_em.pruning_loss: ("a candidate's estimated loss", {
            "return freq / total_words * (logprob - logprob_alt)":
                (f"the smallest: {p.pieces[k]!r}, used {fmt_number(p.frequencies[k], 6)} times on best splits, replaced by "
                 f"{' + '.join(repr(a) for a in p.alternatives[k])}: {fmt_number(p.losses[k])} nats a word occurrence"
                 if p.pieces else ""),
        }),
        m_step[0]: m_step[1],
    }


def unigram_round(r: Round | EMRound, config: UnigramConfig) -> list[Function]:
    """The functions that decided a Unigram round under its rule, with their key lines highlighted."""
    marks = course_marks(r, config) if isinstance(r, Round) else tokenizers_marks(r, config)
    return [function(func, role, m) for func, (role, m) in marks.items()]


# ------------------------------------------------------------------------------------- HTML

# Translucent amber on either theme's background (Okabe–Ito's orange for the border, as the chips' pair);
# the text keeps the theme's colour. The code is monospace, the notes in the page's own font.
STYLE = """<style>
.wpl-code {border:1px solid rgba(128,128,128,.35); border-radius:.5rem; padding:.35rem 0 .5rem 0; margin:0 0 1rem 0;
  background:rgba(128,128,128,.06);}
.wpl-code-head {padding:.15rem .75rem .35rem .75rem; font-size:.9rem; opacity:.9; overflow-wrap:anywhere;}
.wpl-code-head code {font-weight:700;}
.wpl-code-line {display:flex; border-left:4px solid transparent; padding-right:.6rem;}
.wpl-code-hot {background:rgba(230,159,0,.20); border-left-color:#E69F00;}
.wpl-code-no {flex:0 0 3.4em; text-align:right; padding-right:.9em; opacity:.55; user-select:none;
  font-family:ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:.8rem; line-height:1.5rem;}
.wpl-code-src {flex:1 1 auto; min-width:0; white-space:pre-wrap; overflow-wrap:anywhere;
  font-family:ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:.82rem; line-height:1.5rem;
  padding-left:calc(var(--hang) * 1ch); text-indent:calc(var(--hang) * -1ch);}
.wpl-code-note {display:flex; border-left:4px solid #E69F00; background:rgba(230,159,0,.10); padding:.1rem .6rem .3rem 0;
  font-size:.92rem; line-height:1.35;}
.wpl-code-note .wpl-code-no {font-size:.92rem; opacity:.9; line-height:1.35;}
.wpl-code-say {flex:1 1 auto; min-width:0; overflow-wrap:anywhere;}
@media (max-width: 640px) {
  .wpl-code-no {flex-basis:2.6em; padding-right:.6em; font-size:.7rem; line-height:1.3rem;}
  .wpl-code-src {font-size:.72rem; line-height:1.3rem; padding-left:min(calc(var(--hang) * 1ch), 6ch);
    text-indent:max(calc(var(--hang) * -1ch), -6ch);}
  .wpl-code-note {font-size:.85rem;}
}
</style>"""


def _line(line: Line) -> str:
    # A wrapped line goes on under its own indentation and four more, a hanging indent (--hang, in characters;
    # at most six on a phone, where the width is short).
    hang = len(line.text) - len(line.text.lstrip(" ")) + 4
    return (f'<div class="wpl-code-line{" wpl-code-hot" if line.hot else ""}">'
            f'<span class="wpl-code-no">{line.number}</span>'
            f'<span class="wpl-code-src" style="--hang:{hang}">{html(line.text) or "&#8203;"}</span></div>')


def _note(note: str) -> str:
    return (f'<div class="wpl-code-note"><span class="wpl-code-no">↑</span>'
            f'<span class="wpl-code-say">{html(note)}</span></div>')


def as_html(functions: Sequence[Function]) -> str:
    """The functions as one HTML block: each headed by its file, lines and role; its lines numbered as in its
    file, the hot ones highlighted with their notes under them. One line of HTML (no blank line ends the block
    early), every text through safe.html."""
    parts = [STYLE]
    for f in functions:
        first, last = f.lines[0].number, f.lines[-1].number
        parts.append(f'<div class="wpl-code"><div class="wpl-code-head"><code>{html(f.name)}</code> · {html(f.role)}'
                     f' · <span style="opacity:.75">{html(f.path)}, lines {first}–{last}</span></div>')
        for line in f.lines:
            parts.append(_line(line))
            if line.note:
                parts.append(_note(line.note))
        parts.append("</div>")
    return "".join(parts)


def plain_text(functions: Sequence[Function]) -> str:
    """The same as text (tests, and anyone reading the view without its colours): a hot line is marked ▶, its
    note follows on a line of its own."""
    out = []
    for f in functions:
        out.append(f"# {f.path}, {f.name}: {f.role}")
        for line in f.lines:
            out.append(f"{line.number:>4} {'▶' if line.hot else ' '} {line.text}")
            if line.note:
                out.append(f"       ↑ {line.note}")
    return "\n".join(out)
