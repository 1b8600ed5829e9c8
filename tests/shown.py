"""What a reader sees of a Markdown string that the app escaped (wordpiece_ui/safe.py).

AppTest returns Markdown sources; `shown` removes the backslash escapes and code-span
fences, so tests can compare with the text on screen."""

import re

_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_CODE_SPAN = re.compile(r"(`+) ?(.*?) ?\1")


def shown(markdown: str) -> str:
    text = _CODE_SPAN.sub(lambda m: "\x00" + m.group(2).replace("\\", "\x01") + "\x00", markdown)
    return _ESCAPE.sub(r"\1", text).replace("\x01", "\\").replace("\x00", "")
