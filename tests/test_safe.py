"""wordpiece_ui/safe.py: any text put into Markdown or into the chips' HTML is shown as typed, and nothing
in it is read as Markdown, HTML or a link (Chromium's view of the same: tests/test_browser_safe.py)."""

from __future__ import annotations

import html as html_lib
import re

from hypothesis import example, given
from hypothesis import strategies as st

from wordpiece_ui import safe

# What remark-gfm (Streamlit's Markdown) links in a text node once escapes are resolved: the expressions of
# mdast-util-gfm-autolink-literal, as Streamlit 1.67's bundle has them (JavaScript's \w is ASCII).
AUTOLINK_URL = re.compile(r"(https?://|www(?=\.))[-.\w]+", re.IGNORECASE | re.ASCII)
AUTOLINK_EMAIL = re.compile(r"[-.\w+]+@[-\w]+(?:\.[-\w]+)+", re.ASCII)
MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")

# Text made of pieces that mean something to Markdown, HTML or GitHub's autolinks, and of anything at all.
ACTIVE = ["www.", "WwW.", "http://", "HTTPS://", "@", "e.x", "a@b.co", "](", "![", "[", "]", "(", ")", "<", ">",
          "<img src=x>", "&", "&#10;", "&lt;", ";", "#", "\\", "`", "``", "*", "_", "~", "|", ":", ":red[", "$",
          "\n", "\n\n", "\r", "\r\n", "\u2028", "\x85", " ", "    ", '"', "'", "=", "\u2060", "<!--", "-->"]
texts = st.lists(st.one_of(st.sampled_from(ACTIVE), st.text(max_size=4)), max_size=12).map("".join)


def _links(text: str) -> list[str]:
    return AUTOLINK_URL.findall(text) + AUTOLINK_EMAIL.findall(text)


@given(texts)
@example("hug\n\n![X](http://evil.example/x.png) [log in](http://evil.example/login)\n\n# Heading")
@example("see www.evil.example or me@evil.example")
def test_md_shows_the_text_on_one_line_with_nothing_active(text):
    out = safe.md(text)
    assert "\n" not in out and "\r" not in out
    assert PUNCTUATION.search(MD_ESCAPE.sub("", out)) is None  # every ASCII punctuation character is escaped
    shown = MD_ESCAPE.sub(r"\1", out)  # what a reader sees
    assert shown.replace(safe.WORD_JOINER, "") == re.sub(r"[\r\n\u2028\u2029\x85\x0b\x0c]+", " ", text).replace(
        safe.WORD_JOINER, "")
    assert _links(shown) == []


@given(texts)
@example("hug\n\n![X](HTTP://EVIL.EXAMPLE/X.PNG)\n\n# HEADING")
@example('[x](https://e.x/"onmouseover="alert(1)")')
def test_html_shows_the_text_as_typed_with_nothing_active(text):
    out = safe.html(text)
    # Nothing but references and characters no parser acts on: no tag, no quote, no ](, no line at all.
    assert re.fullmatch(r"(?:&#[0-9]+;|[^!-/:-@\[-`{-~\r\n])*", out), out
    shown = html_lib.unescape(out)  # what the browser shows (and what Markdown reads, were the HTML block to end)
    assert shown.replace(safe.WORD_JOINER, "") == text.replace(safe.WORD_JOINER, "")
    assert _links(shown) == []


@given(texts)
def test_code_is_one_span_nothing_closes(text):
    out = safe.code(text)
    fence = re.match(r"`+", out)[0]
    assert out.endswith(fence) and "\n" not in out
    body = out[len(fence):-len(fence)]
    assert all(len(run) != len(fence) for run in re.findall(r"`+", body))  # no run inside can close it
    if body.startswith(" ") and body.endswith(" ") and body.strip(" "):
        body = body[1:-1]  # CommonMark strips one space each side
    assert body == (re.sub(r"[\r\n\u2028\u2029\x85\x0b\x0c]+", " ", text) or " ")


def test_the_word_joiner_goes_where_the_links_would_start():
    assert safe.md("www.a.b") == "www\u2060\\.a\\.b"
    assert safe.md("HTTPS://a.b") == "HTTP\u2060S\\:\\/\\/a\\.b"
    assert safe.html("me@a.b") == "me&#64;\u2060a&#46;b"
    assert safe.md("plain words") == "plain words" and safe.html("hugs") == "hugs"
