"""The app's glue: corpora, settings and URL state, trace → DataFrames and Altair charts.

`wordpiece_core` computes; this package only reshapes the core's records for
display. The Streamlit-specific parts are `state.py` (sidebar, URL, session keys) and
`caches.py` (what all sessions share); `stores.py` and `jobs.py` bound and run them.
The pages in `pages/` call these functions and lay out the screen.
"""
