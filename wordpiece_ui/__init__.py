"""The app's glue: corpora, settings and URL state, trace → DataFrames and Altair charts.

`wordpiece_core` computes; this package only reshapes the core's records for
display, and `session.py` holds the Streamlit-specific parts (sidebar, caches).
The pages in `pages/` call these functions and lay out the screen.
"""
