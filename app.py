"""WordPiece Lab: the app's entry point (`streamlit run app.py`).

Draws the shared sidebar (corpus and training settings, filled from the URL on
a session's first visit) and hands over to the chosen page in `pages/` (see wordpiece_ui/navigation.py).
"""

import os

import streamlit as st

from wordpiece_ui import classroom, navigation, state, trained

# The icon is a file of ours: a Material icon name would make every browser fetch it from a font server.
ICON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "icon.png")
st.set_page_config(page_title="WordPiece Lab", page_icon=ICON, layout="wide")

page = st.navigation(navigation.pages())
classroom.enter_from_url()  # a class room's link: its settings and step, before the sidebar reads the URL
if page.title == navigation.TRAIN:  # presenter mode: the room sees the step, not the settings
    st.set_page_config(initial_sidebar_state="collapsed" if state.presenting() else "auto")
room = classroom.current()
classroom.join_box()  # type a room's code, on any page: at the top of the sidebar (a phone's first screen)
settings = st.session_state[state.SETTINGS] = state.sidebar(locked=classroom.lock_reason(room))
if room is not None and room.is_student and room.open and page.title in (navigation.COMPARE, navigation.PLAYGROUND):
    classroom.not_while_in_class(room, settings)  # these pages would show the merges the class has not seen yet
if page.title in (navigation.TRAIN, navigation.COMPARE):  # its trainings run while the page imports its modules
    trained.start_early(settings, pair=page.title == navigation.COMPARE)
navigation.run(page)
