"""Presenter mode's look: big type, little padding, for a projector at 1280×720; and a class room student's:
touch targets of at least 44 px (the vote's choices, the buttons), for a phone.

Only type sizes and spacing change (CSS of our own, nothing fetched); the page decides
what goes above the fold. Charts get their large type from `charts.candidates_bar(large=True)`.
"""

from __future__ import annotations

import streamlit as st

_PRESENTER_CSS = """
<style>
[data-testid="stMainBlockContainer"] { padding-top: 4rem !important; padding-bottom: 2rem !important; }
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li { font-size: 1.3rem; }
[data-testid="stMainBlockContainer"] h2 { font-size: 2.2rem; padding-top: 0.2rem; padding-bottom: 0.4rem; }
[data-testid="stMainBlockContainer"] h5 { font-size: 1.35rem; }
[data-testid="stMainBlockContainer"] .wpl-row { font-size: 1.3rem; }
[data-testid="stMainBlockContainer"] .wpl-row .wpl-word { font-size: 1.3rem; }
[data-testid="stMainBlockContainer"] .wpl-row .wpl-count { font-size: 1.2rem; opacity: .85; min-width: 3rem; }
[data-testid="stMainBlockContainer"] [data-testid="stCaptionContainer"] p { font-size: 1.05rem; }
[data-testid="stMainBlockContainer"] [data-testid="stTable"] td,
[data-testid="stMainBlockContainer"] [data-testid="stTable"] th { font-size: 1.2rem; padding: 0.3rem 0.6rem; }
[data-testid="stMainBlockContainer"] .wpl-table td, [data-testid="stMainBlockContainer"] .wpl-table th { font-size: 1.2rem; }
/* a 1920×1080 projector (or larger): the same screen, in type half as large again */
@media (min-width: 1600px) {
  [data-testid="stMainBlockContainer"] { max-width: 1800px; }
  [data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li { font-size: 1.8rem; }
  [data-testid="stMainBlockContainer"] h2 { font-size: 3rem; }
  [data-testid="stMainBlockContainer"] h3 { font-size: 2.4rem; }
  [data-testid="stMainBlockContainer"] [data-testid="stCaptionContainer"] p { font-size: 1.4rem; }
  [data-testid="stMainBlockContainer"] [data-testid="stTable"] td,
  [data-testid="stMainBlockContainer"] [data-testid="stTable"] th { font-size: 1.6rem; }
  [data-testid="stMainBlockContainer"] .wpl-table td, [data-testid="stMainBlockContainer"] .wpl-table th { font-size: 1.6rem; }
  [data-testid="stMainBlockContainer"] button p { font-size: 1.4rem; }
}
</style>
"""

# Every page: less empty space above the title, so a step fits a projector's 720 lines.
_COMPACT_CSS = """
<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.5rem !important; }
[data-testid="stMainBlockContainer"] h1 { padding-top: 0.25rem; padding-bottom: 0.5rem; }
</style>
"""


# A student's phone: each choice of the vote, and each button, at least 44 px tall (a thumb, not a pointer).
_STUDENT_CSS = """
<style>
[data-testid="stMainBlockContainer"] [data-testid="stRadioOption"] { min-height: 44px; align-items: center; }
[data-testid="stMainBlockContainer"] button { min-height: 44px; }
</style>
"""


# Every page, on a phone: a table's toolbar (show columns, download, search, full screen) floats 16 px above the
# table when it is tapped; room for it, so it never covers the last words of the sentence above. (On a wider
# screen it shows on hover only, over the end of a line; the room would push a projector's quiz past 720 lines.)
_TABLE_CSS = """
<style>
@media (max-width: 640px) {
  [data-testid="stFullScreenFrame"]:has([data-testid="stDataFrame"]) { margin-top: 1.1rem; }
}
</style>
"""


def everywhere() -> None:
    """The CSS every page takes (`_TABLE_CSS`)."""
    st.html(_TABLE_CSS)


def style(presenting: bool, student: bool = False) -> None:
    """Apply the Train page's spacing, and presenter mode's type sizes when it is on (`student`: a class room
    student's touch targets)."""
    st.html((_PRESENTER_CSS if presenting else _COMPACT_CSS) + (_STUDENT_CSS if student else ""))
