import streamlit as st

st.title("playground")
st.info("Coming soon.")
