"""Every term the app uses, in plain words: the glossary section and the tooltips on screen.

`GLOSSARY` is the one source: the Corpora page lists it (anchor `#glossary`), and
tables, metrics and captions take their tooltips from `tip(term)`.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from . import tables

GLOSSARY: dict[str, str] = {
    "token": "A piece of text the model knows as one unit: a character, part of a word or a whole word. "
             "The vocabulary is the list of tokens.",
    "merge": "One training step: two tokens that often stand side by side, a and b, become one new token ab, "
             "everywhere in the corpus.",
    "##": "WordPiece's continuing-subword prefix: ##s is an s inside a word, s alone starts one. "
          "hugs starts as h ##u ##g ##s; merging h + ##u gives hu.",
    "pair, a + b": "Two tokens next to each other inside a word; every pair is a candidate for the next merge.",
    "candidate": "A pair that could be merged at this step. The trainer scores every candidate and merges the best.",
    "count(ab)": "How often the pair a + b occurs in the corpus as it is split now, each word counted as often "
                 "as it occurs.",
    "count(a), count(b)": "How often token a (or b) occurs in the corpus as it is split now, wherever it stands.",
    "score": "How the trainer ranks candidates. BPE: count(ab). WordPiece: count(ab) / (count(a) × count(b)), "
             "which favours pairs whose parts are rare on their own.",
    "|V|": "The size of the vocabulary: how many tokens it has so far.",
    "score × |V|": "One WordPiece tutorial multiplies the score by the vocabulary size. Every candidate of a step "
                   "is multiplied by the same number, so the winner does not change.",
    "Δ log-likelihood": "How much more probable the whole corpus becomes, under a model that draws tokens "
                        "independently, if this pair is merged (natural log). Roughly count(ab) × log(score × N), N "
                        "the corpus' tokens: WordPiece's score ranks by the part inside the log alone, so a more "
                        "frequent pair can gain more than the winner.",
    "tie, tie-break": "Several pairs with the same best score. The rule decides: first seen (the course: the first "
                      "such pair met scanning the words in order) or smallest ids (Hugging Face's tokenizers).",
    "rank": "A candidate's place in the ordering by score and tie rule; rank 1 is merged. BPE rank: its place "
            "if pairs were ordered by count(ab).",
    "BPE": "Byte-Pair Encoding: merge the most frequent pair, again and again. Used by GPT models.",
    "WordPiece": "Like BPE, but merges the pair with the best count(ab) / (count(a) × count(b)). Used by BERT. "
                 "It encodes a word by taking the longest vocabulary token that fits, left to right.",
    "Unigram": "Starts from a large vocabulary and removes pieces, round by round: those whose loss the corpus "
               "misses least. A word is split into the pieces whose probabilities multiply to the most. Used by "
               "T5, ALBERT, XLNet and mBART (inside SentencePiece).",
    "seed": "Unigram's starting vocabulary: every character and the most frequent longer substrings of the words.",
    "Viterbi": "The way to find a word's best split without trying every split: left to right, keep the best "
               "path to each position.",
    "loss (Unigram)": "The corpus's cost under the model: for every word occurrence, −log of its best split's "
                      "probability, added up. Removing a piece can only raise it.",
    "loss increase": "How much the loss grows if a piece is removed. The course computes it exactly (every word "
                     "split again); tokenizers estimates it from the piece's second-best split (its alternatives).",
    "EM, expected count": "tokenizers' Unigram re-estimates probabilities by expectation-maximisation: a piece's "
                          "expected count sums, over every split of every word, how often the split uses it times "
                          "the split's probability (not only the best split).",
    "EM objective": "What each EM iteration makes smaller: the corpus's negative log-likelihood over all of every "
                    "word's splits (−log of the sum of their probabilities), divided by the number of word "
                    "occurrences, so in nats a word.",
    "nats": "The unit of a natural logarithm (log base e): a loss of 1 nat is a probability factor of e ≈ 2.718. "
            "1 nat = 1.443 bits. Unigram's losses and costs are in nats.",
    "digamma": "The M-step's digamma(count) − digamma(total) instead of log(count / total): a Bayesian correction "
               "that pulls rare pieces' probabilities down more than frequent ones'.",
    "shrinking factor": "tokenizers' share of the vocabulary a pruning keeps (0.75): rounds go on until the size "
                        "is at most 1.1 × the vocabulary asked for.",
    "▁ (Metaspace)": "SentencePiece's mark for a space: ▁hug is hug at the start of a word. Decoding turns it back "
                     "into a space.",
    "[UNK]": "The unknown token: what a word becomes when the vocabulary cannot spell it.",
    "special tokens": "Tokens with a job rather than text, such as [CLS] and [SEP] around a BERT input, [PAD] "
                      "for padding and [UNK]; they are put at the start of the vocabulary.",
    "normalizer": "What is done to the text before anything else: lowercasing, removing accents, cleaning "
                  "control characters.",
    "pre-tokenizer": "How text is cut into words before training, at spaces and punctuation; merges never cross "
                     "a word boundary.",
    "min pair frequency": "Pairs seen fewer times than this are never merged.",
    "Jaccard overlap": "How alike two vocabularies are: the tokens they share divided by the tokens either has "
                       "(|A ∩ B| / |A ∪ B|), from 0 (nothing shared) to 1 (the same). Spellings are compared "
                       "without ## and ▁.",
    "fertility": "Tokens per word: how many pieces a word is cut into on average. Lower means the vocabulary "
                 "fits the text better.",
    "byte-level": "Working on the bytes of UTF-8 text instead of characters, so any text can be spelled with "
                  "256 base tokens and nothing is ever unknown.",
}


def tip(term: str) -> str:
    """The glossary's definition of `term`, for a tooltip."""
    return GLOSSARY[term]


BYTE_LEVEL_NOTE = (
    "Byte-level: the tokens are runs of UTF-8 bytes, each byte written as one printable character (GPT-2's "
    "table): a space is `Ġ` (drawn ␣ on the chips), `é` is the two bytes `Ã©`, `ö` is `Ã¶`, so ` Héllo` is "
    "spelled `ĠHÃ©llo`. When a character's bytes fall into two tokens, the first chip shows the character and "
    "the next one the rest of its bytes as spelled (`é` cut into `Ã` + `©`: é, then ©).")


def anchor() -> str:
    """The address of the glossary section (relative to the app's root)."""
    return "corpora#glossary"


NOT_COUNTS = ("id", "ids", "step", "start", "end", "position", "rank", "BPE rank")  # numbers that name, not count


def _counts(frame) -> list[str]:
    """The count columns of `frame`: its integer columns other than ids, steps, offsets and ranks."""
    return [c for c in frame.columns if c not in NOT_COUNTS and pd.api.types.is_integer_dtype(frame[c])]


def count_columns(frame) -> dict:
    """Column settings that write every count column of `frame` with thousands separators, as the text around the
    tables does."""
    return {c: st.column_config.NumberColumn(format="localized") for c in _counts(frame)}


ROW_PX, HEADER_PX, MAX_SHOWN_ROWS = 35, 40, 10  # st.dataframe: a row, the header and borders (and a scroll bar)


def readable(frame: pd.DataFrame | list[dict], config: dict | None = None) -> tuple[pd.DataFrame, dict]:
    """`frame` and its column settings as every table writes numbers: counts with thousands separators; a column
    whose values are all below 0.001 scaled to a power of ten named in its header ("score (× 10⁻⁶)": the numbers
    stay numbers, so the column still sorts, and no cell reads 1.45e-05 or 0.000); a column mixing such values with
    larger ones, or missing some, written as text the way prose writes numbers (right-aligned; an empty cell
    where a value is missing, never "None")."""
    frame = frame if isinstance(frame, pd.DataFrame) else pd.DataFrame(frame)  # (rows as a list of dicts too)
    config = {**count_columns(frame), **(config or {})}
    shown = frame.copy()
    for c in frame.columns:
        values = frame[c]
        missing = bool(values.isna().any())
        given = config.get(c)
        old: dict = given if isinstance(given, dict) else {}
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            whole = pd.api.types.is_integer_dtype(values)
            finite = values[values.notna() & (values != 0)].abs()
            if not whole and len(finite) and finite.max() < 0.001 and not missing:
                power = tables.power_of_ten(float(finite.max()))
                shown[c] = values * 10.0 ** -power
                config[c] = st.column_config.NumberColumn(
                    f"{old.get('label') or c} (× 10{tables.superscript(power)})", help=old.get("help"),
                    format="%.4g", width=None)
            elif missing or (not whole and len(finite) and finite.min() < 0.001):  # as text, like a number
                shown[c] = values.map(lambda v: "" if pd.isna(v) else f"{int(v):,}" if whole else tables.fmt_number(v))
                config[c] = st.column_config.TextColumn(old.get("label"), help=old.get("help"), alignment="right")
        elif missing:
            shown[c] = values.map(lambda v: "" if v is None or v is pd.NA or (isinstance(v, float) and pd.isna(v))
                                  else v)
    return shown, config


def table(frame: pd.DataFrame | list[dict], config: dict | None = None, rows: int = MAX_SHOWN_ROWS) -> None:
    """st.dataframe of `frame` as `readable` writes it, as tall as its rows (up to `rows`, then it scrolls): no
    empty padding rows under a short table."""
    show(*readable(frame, config), rows=rows)


def show(shown: pd.DataFrame, config: dict, rows: int = MAX_SHOWN_ROWS) -> None:
    """`table`, of a frame and config `readable` gave (a page that keeps them for the server)."""
    st.dataframe(shown, hide_index=True, width="stretch", column_config=config,
                 height=HEADER_PX + ROW_PX * max(1, min(len(shown), rows)))


def count_styler(frame):
    """`frame` for st.table (presenter mode's big type), its count columns with thousands separators."""
    return frame.style.format("{:,}", subset=_counts(frame))


# Short headers (the table fits 1280 px), the whole name in each header's tooltip.
METRIC_LABELS = {"tokens per word (fertility)": "fertility", "[UNK] words (%)": "[UNK] words %",
                 "characters per token": "chars / token", "continuation pieces (%)": "continuation %",
                 "word-initial pieces (%)": "word-initial %"}


def metric_columns() -> dict:
    """The metrics table's columns: short labels, two decimals, the full name on hover."""
    return {"tokenizer": st.column_config.TextColumn(width="medium"), "on": st.column_config.TextColumn(width="small"),
            **{name: st.column_config.NumberColumn(label, format="%.2f", help=name, width="small")
               for name, label in METRIC_LABELS.items()}}


def candidate_columns() -> dict:
    """Column settings of the candidate table: narrow numbers (every column fits at 1280 px), each
    header with its glossary tooltip."""
    number = st.column_config.NumberColumn
    return {  # widths in pixels: inside a panel the table has about 790 px at 1280×720
        "rank": number(width=45, help=tip("rank")),
        "pair": st.column_config.TextColumn(help=tip("pair, a + b")),
        "count(ab)": number(format="localized", width=70, help=tip("count(ab)")),
        "count(a)": number(format="localized", width=62, help=tip("count(a), count(b)")),
        "count(b)": number(format="localized", width=62, help=tip("count(a), count(b)")),
        "score": number(format="%.5g", width=75, help=tip("score")),
        "exact": st.column_config.TextColumn(width=105, help="The score as an exact fraction."),
        "score × |V|": number(format="%.4g", width=68, help=tip("score × |V|")),
        "Δ log-likelihood": number("Δ log-lik.", format="localized", width=80, help=tip("Δ log-likelihood")),
        "BPE rank": number(width=68, help=tip("rank")),
    }
