"""The plain merge trainer's source (wordpiece_core/reference.py), with this step's values beside its lines.

Like Streamlit's hello demo showing a page's own code, the Train page's merge view (merges_view.py)
shows the code that makes the merges it explains (a Unigram round's view shows unigram/reference.py's or
unigram/em.py's functions, rounds_view.py); `inspect` reads the module, so what is shown is what runs
(the property tests check that the fast engine makes the same merges). Each `ANCHORS` line
is found in the source (a test checks it) and gets a comment with the step's numbers.
"""

from __future__ import annotations

import functools
import inspect

from wordpiece_core import reference
from wordpiece_core.records import MergeStep, exact_text

from .tables import arithmetic, fmt_token, plural

ANCHORS = {
    "count": "pairs, tokens, first = count(splits, freqs)",
    "score": "return Fraction(ab) if algorithm == \"bpe\" else Fraction(ab, a * b)",
    "tie": "return (ids[pair[0]], ids[pair[1]]) if tie_break == \"hf\"",
    "best": "a, b = best[0]",
    "new": "new = new_token(a, b, prefix)",
    "merge": "splits = [merge(split, a, b, new) for split in splits]",
}


@functools.lru_cache(maxsize=1)
def source() -> str:
    """reference.py as it is on disk, without its module docstring (read once per process)."""
    text = inspect.getsource(reference)
    return text.split('"""', 2)[2].lstrip("\n") if text.startswith('"""') else text


def annotated(step: MergeStep, algorithm: str, tie_break: str) -> str:
    """The source with `# ← step N: …` comments on the lines that made this step's merge."""
    a, b, new = fmt_token(step.left), fmt_token(step.right), fmt_token(step.new_token)
    notes = {
        "count": f"count({a} {b}) = {step.pair_count:,}, count({a}) = {step.left_count:,}, count({b}) = {step.right_count:,}",
        "score": arithmetic(step, algorithm),
        "tie": f"tie_break = {tie_break!r}" + (f": {step.ties} pairs tied at {exact_text(step.score)}" if step.ties > 1 else ": no tie"),
        "best": f"a, b = {a!r}, {b!r}",
        "new": f"new = {new!r}",
        "merge": f"{plural(step.merged_count, 'occurrence')} merged in {plural(len(step.words_touched), 'distinct word')}",
    }
    lines = source().splitlines()
    for name, anchor in ANCHORS.items():
        for i, line in enumerate(lines):
            if anchor in line:  # the line's own comment gives way to the step's values
                code = line.split("  #", 1)[0]
                lines[i] = f"{code}  # ← step {step.step}: {notes[name]}"
                break
    return "\n".join(lines)
