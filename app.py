"""WordPiece Lab: the app's entry point (`streamlit run app.py`).

Until the full pages land (issue 4), this shows the course's toy corpus
trained step by step from the core's trace, so the app runs end to end.
"""

import streamlit as st

from wordpiece_core import train_wordpiece

st.set_page_config(page_title="WordPiece Lab", layout="wide")
st.title("WordPiece Lab")
st.write("How WordPiece learns its vocabulary, one merge at a time. "
         "Corpus: the course's toy word counts (hug 10, pug 5, pun 12, bun 4, hugs 5).")

training = train_wordpiece({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 12)
step = st.slider("Step", 1, len(training.steps), 1)
s = training.steps[step - 1]
st.subheader(f"Step {s.step}: {s.left} + {s.right} → {s.new_token}")
st.write(f"score = count(ab) / (count(a) × count(b)) = {s.pair_count} / ({s.left_count} × {s.right_count}) "
         f"= {s.score} ≈ {s.score_float:.4f}; {s.ties} pair(s) shared the best score.")
st.table([{"rank": c.rank, "pair": f"{c.left} + {c.right}", "count(ab)": c.pair_count, "count(a)": c.left_count,
           "count(b)": c.right_count, "score": str(c.score)} for c in s.candidates])
