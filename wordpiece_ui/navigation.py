"""The app's pages, and the one guard that keeps every page behind app.py.

Why a guard: Streamlit (1.67) still supports its first multipage design, in which every
script in a `pages/` folder beside the entry script is a page run *alone*. A server
decides once, on its first session, whether it is in that mode, from whether `pages/`
exists; only a call of `st.navigation` switches the mode off for good. So the very first
visitor of a fresh server who opens a deep link such as `/compare` gets
`pages/compare.py` run alone: no sidebar, no settings.

The supported way out uses public calls only. app.py marks each run it hands to a page
(`run`); a page that finds no mark (`through_app`, its first line) was run alone, so it
calls `st.navigation` itself, which ends the old mode, and `st.rerun`, which goes
through app.py to the page the URL names. This happens at most once per server. The
same holds in AppTest, which decides the mode afresh on every run.
"""

from __future__ import annotations

import streamlit as st

_ENTERED = "_entered_through_app"  # set by app.py for the page it runs, taken by that page

# path, title, icon (a name from the Material font Streamlit serves itself), URL path
TRAIN = "Train step by step"
TRAIN_PATH = "pages/train.py"
COMPARE = "Compare tokenizers"
PLAYGROUND = "Encoder playground"
FAIRNESS = "Fair to every language?"
_PAGES = [
    (TRAIN_PATH, TRAIN, ":material/school:", None),
    ("pages/compare.py", COMPARE, ":material/compare_arrows:", "compare"),
    ("pages/playground.py", PLAYGROUND, ":material/keyboard:", "playground"),
    ("pages/fairness.py", FAIRNESS, ":material/public:", "fairness"),
    ("pages/corpora.py", "Corpora and notes", ":material/menu_book:", "corpora"),
]


def pages(icons: bool = True) -> list:
    """The app's pages, the first one being the default (the URL path `/`). Without `icons`: a browser takes
    the page's icon for its tab when no page config gave one, and fetches a Material icon from Google's
    font server (fonts.gstatic.com) to draw it."""
    return [st.Page(path, title=title, icon=icon if icons else None, default=url is None, url_path=url)
            for path, title, icon, url in _PAGES]


def run(page) -> None:
    """Run the page app.py's `st.navigation` chose, marked as entered through app.py."""
    st.session_state[_ENTERED] = True
    page.run()


def through_app() -> None:
    """First line of every page: if the page was run alone (see above), rerun it through app.py."""
    if not st.session_state.pop(_ENTERED, False):
        st.navigation(pages(icons=False), position="hidden")  # public call that ends the old pages-folder mode
        st.rerun()
