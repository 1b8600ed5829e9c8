import streamlit as st

st.title("corpora")
st.info("Coming soon.")
