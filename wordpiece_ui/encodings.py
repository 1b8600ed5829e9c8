"""Encodings (wordpiece_core.pipeline) → tables and sentences for the playground."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from typing import NamedTuple

import pandas as pd

from wordpiece_core.corpus import decode_unicode
from wordpiece_core.errors import WordPieceError
from wordpiece_core.loading import case_guess, parse_json, tokenizer_from_bytes
from wordpiece_core.pipeline import Encoding, Tokenizer, WordTrace

from .safe import code, md
from .tables import MINUS, fmt_power, fmt_token
from wordpiece_core.normalizers import normalize
from wordpiece_core.pre_tokenizers import is_byte_level
from wordpiece_core.tiktoken_files import looks_like_tiktoken

MAX_TOKENIZER_MB = 40  # a tokenizer file upload (Gemma 3's tokenizer.json: 33 MB); corpora keep 20 MB
TRACE_ROWS = 200  # rows of a word's scan or merge table on screen
SHOWN_TOKENS = 40  # tokens named in a word's sentences


def _text(data: bytes) -> str:
    """The file's text: UTF-8 or UTF-16 (loading says what else is wrong; here only its kind is read)."""
    try:
        return decode_unicode(data)
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace")


def file_kind(name: str, data: bytes) -> str:
    """What an uploaded file is, read from its content, not its name: "tokenizer.json", "tiktoken" or "vocab.txt".

    A merges.txt, a vocab.json, or anything else gets a message saying what it is and what to
    load instead.
    """
    if not data.strip():
        raise WordPieceError(f"{name} is empty")
    if len(data) > MAX_TOKENIZER_MB * 1024 * 1024:
        raise WordPieceError(f"{name} is over {MAX_TOKENIZER_MB} MB")
    text = _text(data)
    stripped, doc = text.lstrip(), None
    if stripped.startswith("{"):
        doc = parse_json(text, name)  # its messages say how the JSON is broken
    elif stripped.startswith("["):  # JSON, or a vocab.txt whose first token is [PAD]
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError):
            doc = None
    if doc is not None:
        if isinstance(doc, dict) and doc and all(isinstance(v, int) for v in doc.values()):  # (GPT-2's holds "model")
            raise WordPieceError(f"{name} is a vocab.json (tokens and ids, as BPE tokenizers store them): without its "
                                 "merges it cannot encode. Load the tokenizer.json saved with it instead")
        if isinstance(doc, dict) and "model" in doc:
            return "tokenizer.json"
        raise WordPieceError(f"{name} is JSON but neither a tokenizer.json nor a vocab.json")
    if looks_like_tiktoken(text):  # OpenAI's encodings: base64 tokens and their ranks (before merges.txt's test)
        return "tiktoken"
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and (lines[0].startswith("#version") or all(len(line.split(" ")) == 2 for line in lines[:200])):
        raise WordPieceError(f"{name} is a merges.txt (BPE's merge rules, one pair per line): it holds no vocabulary. "
                             "Load the tokenizer.json (or the vocab.txt) saved with it instead")
    spaced = next((i for i, line in enumerate(lines, start=1) if " " in line.strip()), None)
    if spaced is not None:
        raise WordPieceError(f"{name} is not a vocabulary: a vocab.txt has one token per line, and line {spaced} "
                             f"holds several words ({lines[spaced - 1].strip()[:40]!r})")
    return "vocab.txt"


def load_uploaded_tokenizer(name: str, data: bytes, lowercase: bool | None = None) -> Tokenizer:
    """A tokenizer.json or BERT vocab.txt from uploaded bytes, recognised by content (errors say what is wrong)."""
    file_kind(name, data)  # refuses what is neither, by name
    tokenizer = tokenizer_from_bytes(data, name, lowercase)  # from memory: a full temporary disk cannot fail it
    if hasattr(tokenizer.model, "strict_unk"):
        tokenizer.model.strict_unk = False  # words it cannot spell are named on the page, not an error
    return tokenizer


def guess_uncased(name: str, data: bytes) -> tuple[bool, str]:
    """Whether an uploaded vocab.txt looks uncased, and why (the loader's own guess, without loading it)."""
    tokens = _text(data).splitlines()
    uncased, why = case_guess(tokens)
    if not (os.path.basename(name) or "vocab.txt").lower().endswith("vocab.txt"):
        return False, "cased: only a file named vocab.txt is guessed to be uncased"
    return uncased, why


def tokens_frame(enc: Encoding, texts: list[str]) -> pd.DataFrame:
    """One row per token: id, offsets and the text they cover, word, sequence, special flag."""
    rows = []
    for i, tok in enumerate(enc.tokens):
        s, e = enc.offsets[i]
        seq = enc.type_ids[i]
        source = texts[seq] if seq < len(texts) else texts[0]
        rows.append({
            "#": i,
            "token": tok,
            "id": enc.ids[i],
            "offsets": f"{s}–{e}",
            "text": source[s:e] if not enc.special_tokens_mask[i] else "",
            "word": enc.word_ids[i],
            "sequence": "A" if seq == 0 else "B",
            "special": "✓" if enc.special_tokens_mask[i] else "",
        })
    frame = pd.DataFrame(rows, columns=["#", "token", "id", "offsets", "text", "word", "sequence", "special"])
    return frame.astype({"id": "Int64", "word": "Int64"})


def dropped_characters(text: str, offsets: list[tuple[int, int]]) -> int:
    """Non-space characters no token covers (BPE without [UNK] drops unknown characters)."""
    covered = bytearray(len(text))
    for s, e in offsets:
        covered[s:e] = b"\x01" * (e - s)
    return sum(1 for i, ch in enumerate(text) if not covered[i] and not ch.isspace())


class Sequence(NamedTuple):
    """One input sequence of an encoding, with its tokens (special ones included) and their places in it."""

    text: str
    tokens: list[str]
    offsets: list[tuple[int, int]]  # into `text`
    ids: list[int | None]


def _positions(enc: Encoding, sequence: int) -> list[int]:
    return [i for i, t in enumerate(enc.type_ids) if t == sequence]


def by_sequence(enc: Encoding, texts: tuple[str, str | None]) -> list[Sequence]:
    """The text and the second sentence (when there is one), each with the tokens it has."""
    out = []
    for sequence, text in enumerate(texts):
        at = _positions(enc, sequence)
        if at and text is not None:
            out.append(Sequence(text, [enc.tokens[i] for i in at], [enc.offsets[i] for i in at], [enc.ids[i] for i in at]))
    return out


def chips_of(enc: Encoding, texts: tuple[str, str | None], tokenizer: Tokenizer) -> list[str]:
    """Each sequence of the encoding drawn as chips over its text (chips.over_text), as HTML."""
    from .chips import over_text

    specials = set(tokenizer.special_tokens)
    unk_id = getattr(tokenizer.model, "unk_id", None)
    return [over_text(seq.text, seq.tokens, seq.offsets, seq.ids, specials, unk_id=unk_id)
            for seq in by_sequence(enc, texts)]


def dropped_in(enc: Encoding, texts: tuple[str, str | None]) -> int:
    """Non-space characters of the text and the second sentence that none of their tokens covers."""
    return sum(dropped_characters(text, [enc.offsets[i] for i in _positions(enc, sequence)
                                         if not enc.special_tokens_mask[i]])
               for sequence, text in enumerate(texts) if text)


def unencodable_words(enc: Encoding, tokenizer: Tokenizer) -> list[str]:
    """The words a WordPiece vocabulary without its unknown token cannot spell (shown as that token, with no id).

    Hugging Face's tokenizers refuses the whole text then; the playground shows the rest and names these.
    """
    model = tokenizer.model
    if not word_view(model.kind).unknown_whole_word or getattr(model, "unk_token", None) in tokenizer.vocab:
        return []
    return list(dict.fromkeys(w.word for w in enc.words if w.result.unknown))


def missing_characters(tokenizer: Tokenizer, text: str) -> list[str]:
    """The characters of `text`, as the tokenizer normalizes it, that no token of its vocabulary spells (alone,
    or after the continuation prefix): the ones that become [UNK] (or are dropped). Byte-level spells all."""
    if is_byte_level(tokenizer.pre_tokenizer):
        return []
    vocab, prefix = tokenizer.model.vocab, getattr(tokenizer.model, "prefix", None) or ""  # Unigram has none
    seen = dict.fromkeys(ch for ch in normalize(text, tokenizer.normalizer) if not ch.isspace())
    return [ch for ch in seen if ch not in vocab and prefix + ch not in vocab]


def why_unknown(missing: list[str], corpus_title: str, lowercase_words: bool,
                unk: str = "[UNK]") -> tuple[str, bool] | None:
    """Why these characters become [UNK], for a trained tokenizer: a corpus of lowercase words (wordfreq's lists)
    has no capitals and no punctuation in its vocabulary; and whether the lowercase normalizer would help (there
    are capitals among them). None when there is nothing to say."""
    if not missing or not lowercase_words:
        return None
    capitals = [ch for ch in missing if ch != ch.lower()]
    others = [ch for ch in missing if ch == ch.lower()]
    if all(ch.isalpha() and ch == ch.lower() for ch in missing):  # letters the words lack: not a matter of case
        return (f"{md(corpus_title)} has no word with {' '.join(map(code, missing[:10]))}: each becomes "
                f"{code(unk)}."), False
    said = []
    if capitals:
        said.append(f"no capital letters ({' '.join(map(code, capitals[:10]))}{' …' if len(capitals) > 10 else ''})")
    if others:
        said.append(f"none of {' '.join(map(code, others[:10]))}{' …' if len(others) > 10 else ''}")
    return (f"{md(corpus_title)} is a list of lower-case words, so the vocabulary trained on it has "
            f"{' and '.join(said)}: each becomes {code(unk)}."
            + (" Training with the **lowercase** normalizer lowercases the text before it is encoded, as it does "
               "the corpus." if capitals else "")
            + (" Punctuation and other symbols need a corpus that has them (the course's sentences, or your own "
               "text)." if others else "")), bool(capitals)


def unknown_count(enc: Encoding, unk: str = "[UNK]", unk_id: int | None = None) -> int:
    """Tokens that are the unknown token: spelled `unk`, or with the id `unk_id` (Unigram's show their text)."""
    return sum(1 for t, i in zip(enc.tokens, enc.ids) if t == unk or (unk_id is not None and i == unk_id))


def scan_frame(word: WordTrace) -> pd.DataFrame:
    """WordPiece's longest-match scan: at each position the pieces tried, longest first."""
    rows = []
    for step in word.result.scan:
        for j, piece in enumerate(step.tried):
            hit = piece == step.found and j == len(step.tried) - 1
            rows.append({"position": step.position, "tried": piece,
                         "in vocabulary?": "✓ taken" if hit else "✗"})
        if step.found is None:
            rows.append({"position": step.position, "tried": "(nothing left)", "in vocabulary?": "→ whole word is [UNK]"})
    return pd.DataFrame(rows, columns=["position", "tried", "in vocabulary?"])


def merges_frame(word: WordTrace) -> pd.DataFrame:
    """BPE: the merges applied to the word, in the order applied (lowest rank first)."""
    rows = [{"order": 0, "merge": "(start: characters)", "rank": None, "split": " ".join(word.result.initial_split)}]
    for k, m in enumerate(word.result.merges, start=1):
        rows.append({"order": k, "merge": f"{m.left} + {m.right} → {m.new_token}", "rank": m.rank + 1,
                     "split": " ".join(m.split_after)})
    return pd.DataFrame(rows).astype({"rank": "Int64"})


def lattice_frame(word: WordTrace) -> pd.DataFrame:
    """Unigram: every piece that covers part of the word (the lattice), by start then length, with its
    log-probability; the pieces of the best path marked (the course's table of `unhug`, whole)."""
    rows = [{"start": e.start, "end": e.end, "piece": "(unknown)" if e.unknown else e.piece,
             "text": word.word[e.start:e.end], "log p": e.score, "best path": "✓" if e.best else ""}
            for e in word.result.lattice]
    return pd.DataFrame(rows, columns=["start", "end", "piece", "text", "log p", "best path"])


def trace_frame(word: WordTrace, kind: str) -> tuple[pd.DataFrame, str | None]:
    """How the word was cut, as a table of at most TRACE_ROWS rows (the kind's WordView: WordPiece's scan, BPE's
    merges, Unigram's lattice), and a sentence saying what the table leaves out, or None when it shows everything."""
    table = word_view(kind).frame(word)
    said = []
    if word.result.traced_chars:
        said.append(f"The trace covers the first {word.result.traced_chars:,} of {len(word.word):,} characters "
                    "(the tokens above are the whole word's).")
    if len(table) > TRACE_ROWS:
        said.append(f"The table shows the first {TRACE_ROWS:,} of its {len(table):,} rows.")
        table = table.head(TRACE_ROWS)
    return table, " ".join(said) or None


def _named(tokens: tuple[str, ...] | list[str]) -> str:
    """Tokens as code, the first SHOWN_TOKENS of them (each shortened when very long)."""
    named = " ".join(code(fmt_token(t)) for t in tokens[:SHOWN_TOKENS])
    more = len(tokens) - SHOWN_TOKENS
    return named + (f" … and {more:,} more ({len(tokens):,} tokens; the first {SHOWN_TOKENS} are shown)" if more > 0 else "")


_STAGE_NAMES = {"split": "Split", "prepend": "Prepend", "replace": "Replace", "strip": "Strip", "bytes": "ByteLevel",
                "precompiled": "Precompiled (SentencePiece's map)"}


def stage_names(name: str) -> str:
    """A pipeline stage's name for the screen: a file's Split or Replace by its kind, not its internal digest
    ("split:3f…+bytes" → "Split + ByteLevel")."""
    parts = []
    for part in name.split("+"):
        kind = part.split(":")[0].split("#")[0]
        parts.append(_STAGE_NAMES.get(kind, part))
    return " + ".join(parts)


JOIN_DECODER_NOTE = (
    "Why spaces between the tokens? This tokenizer has no decoder: its tokens carry no mark of where a word "
    "began (no ##, no ▁, no Ġ), so decoding can only put a space between every two tokens, as Hugging Face's "
    "tokenizers does without a decoder. A WordPiece, Metaspace or byte-level tokenizer writes the words back.")


COURSE_LATTICE_SIZE = 16  # the course's 15 starting pieces and <unk>: its Viterbi table of `unhug` is at this size


def course_lattice_note(settings) -> str | None:
    """On the course's toy corpus with Unigram under the course's rule at another size than COURSE_LATTICE_SIZE:
    that the course's table of `unhug` is the starting vocabulary's (None otherwise)."""
    if (settings.corpus != "course-toy" or settings.algorithm != "unigram" or settings.unigram_rule != "course"
            or settings.vocab_size == COURSE_LATTICE_SIZE):
        return None
    return (f"The Hugging Face course's table of `unhug` (“Unigram tokenization”: `un` + `hug`, score 0.005442) "
            f"uses its starting vocabulary, before any piece is removed: the vocabulary of size "
            f"{COURSE_LATTICE_SIZE} here (its 15 pieces and `<unk>`). At {settings.vocab_size:,} the training has "
            "removed pieces, so the probabilities and the best split can differ.")


def probability_text(p: float) -> str:
    """A probability as prose reads it: six decimals from 0.001 up, else two significant digits times a power
    of ten (2.4 × 10⁻¹³, not 0.000000)."""
    return f"{p:.6f}" if p == 0 or p >= 0.001 else fmt_power(p, 2)


def _unigram_sentence(word: WordTrace) -> str:
    r, shown = word.result, code(fmt_token(word.word))
    best = sum(e.score for e in r.lattice if e.best)
    unknown = (" Characters no piece covers are one unknown token for each run of them (scored the lowest "
               "piece's score minus 10, so a path through them usually loses)." if r.unknown else "")
    total = "" if r.traced_chars else f" ({best:.4f}: a probability of {probability_text(math.exp(best))})".replace("-", MINUS)
    return (f"{shown} → {_named(r.tokens)}: of all the ways to cut it into pieces of the vocabulary, the one "
            f"whose log-probabilities add up highest{total}, found by Viterbi.{unknown}")


def _unknown_sentence(word: WordTrace) -> str:
    return f"{code(fmt_token(word.word))} became **[UNK]**: {md(word.result.reason)}."


def _wordpiece_sentence(word: WordTrace) -> str:
    if word.result.unknown:
        return _unknown_sentence(word)
    return (f"{code(fmt_token(word.word))} → {_named(word.result.tokens)}: at each position the longest piece in "
            "the vocabulary is taken; later pieces carry `##`.")


def _bpe_sentence(word: WordTrace) -> str:
    r = word.result
    if r.unknown:
        return _unknown_sentence(word)
    where = f" in its first {r.traced_chars:,} characters" if r.traced_chars else ""
    return (f"{code(fmt_token(word.word))} → {_named(r.tokens)}: starting from characters, the learned merge "
            f"with the lowest rank present is applied {len(r.merges):,} time{'' if len(r.merges) == 1 else 's'}{where}.")


class WordView(NamedTuple):
    """How the playground explains one word for a kind of model (`Model.kind`): the table of how it was cut, the
    sentence that says it, whether its tokens were made by merges that the Train page shows step by step, and
    whether a word the vocabulary cannot spell is unknown whole (WordPiece's rule)."""

    frame: Callable[[WordTrace], pd.DataFrame]
    sentence: Callable[[WordTrace], str]
    made_by_merges: bool
    unknown_whole_word: bool


WORD_VIEWS = {"wordpiece": WordView(scan_frame, _wordpiece_sentence, made_by_merges=True, unknown_whole_word=True),
              "bpe": WordView(merges_frame, _bpe_sentence, made_by_merges=True, unknown_whole_word=False),
              "unigram": WordView(lattice_frame, _unigram_sentence, made_by_merges=False, unknown_whole_word=False)}


def word_view(kind: str) -> WordView:
    """The kind's WordView (every model the core encodes with has one)."""
    return WORD_VIEWS[kind]


def word_sentence(word: WordTrace, kind: str) -> str:
    """How the word was cut, in a sentence (the kind's WordView)."""
    return word_view(kind).sentence(word)


def _listed(names: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def origins_sentence(word: WordTrace, steps: dict[str, int], step_link) -> str:
    """Where each of a word's tokens comes from: the training step that made it, as a link to that
    step on the Train page (`step_link(n)` gives the address), or the starting alphabet (the first
    SHOWN_TOKENS distinct tokens)."""
    parts: list[str] = []
    distinct = list(dict.fromkeys(word.result.tokens))
    shown = distinct[:SHOWN_TOKENS]
    start = [code(fmt_token(t)) for t in shown if steps.get(t) == 0]  # said once for all of them
    unknown = [code(fmt_token(t)) for t in shown if t not in steps]
    if start:
        parts.append(f"{_listed(start)} {'was' if len(start) == 1 else 'were'} in the vocabulary from the start")
    for token in shown:
        if steps.get(token):
            parts.append(f"{code(fmt_token(token))} was learned at [step {steps[token]:,}]({step_link(steps[token])})")
    if unknown:
        parts.append(f"{_listed(unknown)} {'is not a learned token' if len(unknown) == 1 else 'are not learned tokens'}")
    if len(distinct) > SHOWN_TOKENS:
        parts.append(f"and {len(distinct) - SHOWN_TOKENS:,} more tokens (the first {SHOWN_TOKENS} are named)")
    return "Where its tokens come from: " + "; ".join(parts) + "."
