"""What a reader sees of a Markdown string that the app escaped (wordpiece_ui/safe.py).

AppTest returns Markdown sources; `shown` removes the backslash escapes and code-span
fences, so tests can compare with the text on screen."""

import re

_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def shown(markdown: str) -> str:
    return _ESCAPE.sub(r"\1", markdown)
