"""WordPiece Lab: the app's entry point (`streamlit run app.py`).

Draws the shared sidebar (corpus and training settings, filled from the URL on
a session's first visit) and hands over to the chosen page in `pages/`.
"""

import os

import streamlit as st

from wordpiece_ui import state

# The icon is a file of ours: a Material icon name would make every browser fetch it from a font server.
ICON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "icon.png")
st.set_page_config(page_title="WordPiece Lab", page_icon=ICON, layout="wide")

PAGES = [
    st.Page("pages/train.py", title="Train step by step", icon=":material/school:", default=True),
    st.Page("pages/compare.py", title="BPE vs WordPiece", icon=":material/compare_arrows:", url_path="compare"),
    st.Page("pages/playground.py", title="Encoder playground", icon=":material/keyboard:", url_path="playground"),
    st.Page("pages/corpora.py", title="Corpora and notes", icon=":material/menu_book:", url_path="corpora"),
]

page = st.navigation(PAGES)
st.session_state[state.SETTINGS] = state.sidebar()
page.run()
