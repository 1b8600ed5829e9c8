"""User and link text inside Markdown, shown as text and never interpreted.

Streamlit renders headings, captions, warnings and notes as Markdown (with its own
extensions: `:red[…]` colours, `:material/…:` icons, `$…$` maths, links, images, raw
HTML where allowed). Tokens, words, pasted text and link parameters come from the user
or from whoever wrote a shared link, so every such string goes through one of these
before it is put into Markdown:

- `md(s)`: the text itself, every ASCII punctuation character backslash-escaped
  (CommonMark's escape for exactly those), line breaks as spaces;
- `code(s)`: the text as an inline code span, with a fence longer than any run of
  backticks inside it, so nothing can close it early.
"""

from __future__ import annotations

import re
import string

_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x85\x0b\x0c]+")


def md(text: object) -> str:
    """`text` for a Markdown string, shown exactly as typed (on one line)."""
    return _PUNCTUATION.sub(r"\\\1", _LINE_BREAKS.sub(" ", str(text)))


def code(text: object) -> str:
    """`text` as an inline code span that nothing inside it can close."""
    s = _LINE_BREAKS.sub(" ", str(text))
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ") and s.strip()) else ""
    if not s:
        return "` `"
    return f"{fence}{pad}{s}{pad}{fence}"
