"""User and link text inside Markdown or HTML, shown as text and never interpreted.

Streamlit renders headings, captions, warnings and notes as Markdown (with its own
extensions: `:red[…]` colours, `:material/…:` icons, `$…$` maths, links, images, raw
HTML where allowed). Tokens, words, pasted text and link parameters come from the user
or from whoever wrote a shared link, so every such string goes through one of these
before it is put into Markdown or HTML:

- `md(s)`: the text itself, every ASCII punctuation character backslash-escaped
  (CommonMark's escape for exactly those), line breaks as spaces;
- `code(s)`: the text as an inline code span, with a fence longer than any run of
  backticks inside it, so nothing can close it early;
- `html(s)`: the text inside HTML given to `st.markdown(..., unsafe_allow_html=True)`
  (the token chips): every ASCII punctuation character and Markdown line ending (\\n, \\r)
  as a numeric character reference (`<` is `&#60;`, a line break `&#10;`). The HTML block it stands in
  never ends early (it has no blank line), nothing closes a tag or an attribute, and were
  the block to end, a reference is literal text to Markdown: `&#91;x&#93;` is never a link.

Markdown escapes are not enough against GitHub's autolinks: remark-gfm (Streamlit's
Markdown) turns `www.…`, `http://…`, `https://…` and `name@host.tld` in a text node into
links after the escapes are resolved. `md` and `html` put an invisible U+2060 WORD JOINER
inside such a pattern (`www\u2060.`, `http\u2060://`, `@\u2060`): the text reads as typed,
and no pattern is left to match (a code span is never autolinked).
"""

from __future__ import annotations

import re
import string

WORD_JOINER = "\u2060"
_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x85\x0b\x0c]+")
# Where remark-gfm's autolink literals start: www. / http:// / https:// (any case), and an e-mail's @.
_AUTOLINK = re.compile(r"(?<=www)(?=\.)|(?<=http)(?=s?://)|(?<=@)", re.IGNORECASE)
# Markdown's line endings (a blank line would end an HTML block); HTML maps some other references (&#133;) elsewhere.
_HTML_ACTIVE = re.compile("[" + re.escape(string.punctuation) + "\r\n]")


def _unlinked(text: object) -> str:
    """`text` with a WORD JOINER inside every pattern GitHub's Markdown would turn into a link."""
    return _AUTOLINK.sub(WORD_JOINER, str(text))


def md(text: object) -> str:
    """`text` for a Markdown string, shown exactly as typed (on one line)."""
    return _PUNCTUATION.sub(r"\\\1", _LINE_BREAKS.sub(" ", _unlinked(text)))


def code(text: object) -> str:
    """`text` as an inline code span that nothing inside it can close."""
    s = _LINE_BREAKS.sub(" ", str(text))
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ") and s.strip()) else ""
    if not s:
        return "` `"
    return f"{fence}{pad}{s}{pad}{fence}"


def html(text: object) -> str:
    """`text` inside HTML that Streamlit reads as Markdown first (st.markdown with unsafe_allow_html):
    safe as an element's text and inside a quoted attribute, line breaks kept (as references)."""
    return _HTML_ACTIVE.sub(lambda m: f"&#{ord(m.group())};", _unlinked(text))
