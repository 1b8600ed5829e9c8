"""WordPiece Lab: the app's entry point (`streamlit run app.py`).

This file is read twice. `streamlit run app.py` finds `app = st.App(...)` below and serves it: the server
with the app's own routes (wordpiece_ui/phone_room.py: a class room's page for a student's phone, which
learns there at once that the teacher acted). That server runs this same file as each page's script, where
its `__name__` is "__main__": `main()` draws the shared sidebar (corpus and training settings, filled from
the URL on a session's first visit) and hands over to the chosen page in `pages/` (see
wordpiece_ui/navigation.py).
"""

import os

import streamlit as st

from wordpiece_ui import classroom, fairness_picks, navigation, phone_room, presenter, state, trained

# The icon is a file of ours: a Material icon name would make every browser fetch it from a font server.
ICON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "icon.png")


def main() -> None:
    st.set_page_config(page_title="WordPiece Lab", page_icon=ICON, layout="wide")
    page = st.navigation(navigation.pages())
    presenter.everywhere()
    classroom.enter_from_url()  # a class room's link: its settings and step, before the sidebar reads the URL
    if page.title in (navigation.TRAIN, navigation.FAIRNESS):  # presenter mode: the page, not settings
        st.set_page_config(initial_sidebar_state="collapsed" if state.presenting() else "auto")
    room = classroom.current()
    classroom.join_box()  # type a room's code, on any page: at the top of the sidebar (a phone's first screen)
    settings = st.session_state[state.SETTINGS] = state.sidebar(locked=classroom.lock_reason(room))
    if (room is not None and room.is_student and room.open
            and page.title in (navigation.COMPARE, navigation.PLAYGROUND, navigation.FAIRNESS)):
        classroom.not_while_in_class(room, settings)  # these pages would show the merges the class has not seen
    if page.title in (navigation.TRAIN, navigation.COMPARE) or (  # its trainings run while the page imports them
            page.title == navigation.FAIRNESS
            and fairness_picks.measures_training(st.session_state, st.query_params, state.kept(fairness_picks.LINK))):
        trained.start_early(settings, pair=page.title == navigation.COMPARE)
    navigation.run(page)


if __name__ == "__main__":  # a page's run
    main()
else:  # imported by the server (`streamlit run app.py`, or `uvicorn app:app`): the app and its own routes
    app = st.App(__file__, routes=phone_room.routes())
