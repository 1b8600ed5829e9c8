"""The settings every page shares, and their URL form (the shareable-link contract).

Query parameters: ``corpus``, with ``corpus_id`` for a pasted or uploaded one (the first 16 hex
digits of its content's SHA-256, as the data store keeps it: datastore.py), ``algorithm`` (wordpiece | bpe |
unigram), with unigram ``unigram_rule`` (tokenizers | course) and, for the course rule, ``whole_words`` (0 | 1:
whether the seed holds whole words, as the course's code does, or only strict substrings, as its worked
example does), ``vocab_size``, ``normalizer``, ``pre_tokenizer`` (metaspace with unigram only),
``tie_break`` (first | hf), ``min_frequency``, ``specials`` (bert | unk | unk-piece | none | endoftext;
unk-piece is Unigram's ``<unk>``), with the byte-level pre-tokenizer ``byte_alphabet`` and ``prefix_space``
(0 | 1), on the Train page ``step`` (and a class room's ``room``, ``student``, ``teacher`` and ``role``:
classroom.py), and on the Compare page ``algorithms`` (`parse_algorithms`).
A missing parameter takes the corpus' suggested value; a bad one is replaced by
that value and reported in words, never an error page.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from wordpiece_core.normalizers import NORMALIZERS
from wordpiece_core.pre_tokenizers import PRE_TOKENIZERS
from wordpiece_core.pre_tokenizers import METASPACE
from wordpiece_core.special_tokens import BERT_SPECIALS, END_OF_TEXT, UNK, UNK_PIECE
from wordpiece_core.algorithms import ALGORITHMS as INFO, LABELS as ALGORITHM_NAMES, NAMES
from wordpiece_core.config import TIE_BREAKS, TieBreak
from wordpiece_core.unigram.training import UNIGRAM_RULES

from .corpora import CUSTOM_IDS, sample_by_id, samples
from .datastore import ID_CHARS, valid_id

ALGORITHMS = NAMES  # the app's: every algorithm the core describes (algorithms.ALGORITHMS)
# Settings fields by the core's option names (algorithms.AlgorithmInfo.options); an option not here has no control
# in the app and takes its default.
OPTION_FIELDS = {"min_frequency": "min_frequency", "tie_break": "tie_break", "full_byte_alphabet": "byte_alphabet",
                 "unigram_rule": "unigram_rule", "whole_words": "whole_words"}
SPECIALS = {
    "bert": BERT_SPECIALS,
    "unk": (UNK,),
    "unk-piece": (UNK_PIECE,),  # SentencePiece's and Unigram's <unk>
    "endoftext": (END_OF_TEXT,),
    "none": (),
}
UNIGRAM_PRE_TOKENIZER = METASPACE[0]  # the pre-tokenizer only Unigram trains with here
SPECIALS_LABELS = {name: " ".join(tokens) or "none" for name, tokens in SPECIALS.items()}
MAX_VOCAB = 50_000
MAX_MIN_FREQUENCY = 1_000_000


@dataclass(frozen=True)
class Settings:
    corpus: str = "course-toy"
    algorithm: str = "wordpiece"  # one of ALGORITHMS
    vocab_size: int = 30
    normalizer: str = "none"
    pre_tokenizer: str = "whitespace"
    tie_break: TieBreak = "first"
    min_frequency: int = 0
    specials: str = "none"
    byte_alphabet: bool = False  # byte-level: start from all 256 byte symbols, not only those seen
    prefix_space: bool = False  # byte-level: add a space before the text, so a first word is spelled like the others
    corpus_id: str = ""  # a pasted or uploaded corpus: its id in the data store ("" for a sample, or none yet)
    unigram_rule: str = "tokenizers"  # unigram: one of UNIGRAM_RULES
    whole_words: bool = True  # unigram, course rule: the seed holds whole words (the course's code)

    def options_for(self, algorithm: str, **given: object) -> dict[str, object]:
        """`algorithm`'s own settings (algorithms.build_config's options) from these settings: those it shares
        with the sidebar's algorithm, or all of them when it is the sidebar's; the others take its defaults
        (a rule's option only under that rule). `given`: options set by the caller (BPE's prefix)."""
        own = INFO[algorithm].options
        shared = own if algorithm == self.algorithm else tuple(o for o in own if o in INFO[self.algorithm].options)
        values = {o: getattr(self, OPTION_FIELDS[o]) for o in shared if o in OPTION_FIELDS}
        if values.get("unigram_rule") == "tokenizers":
            values.pop("whole_words", None)
        return values | {k: v for k, v in given.items() if k in own}

    def specials_for(self, algorithm: str) -> tuple[str, ...] | None:
        """The special tokens `algorithm` trains with: the sidebar's when it shares its settings, else None (its
        own defaults: a Unigram training beside BPE and WordPiece has <unk>)."""
        same = algorithm == self.algorithm or set(INFO[algorithm].options) & set(INFO[self.algorithm].options)
        return self.special_tokens if same else None

    @property
    def special_tokens(self) -> tuple[str, ...]:
        return SPECIALS[self.specials]

    @property
    def byte_level(self) -> bool:
        return self.pre_tokenizer == "byte-level"

    @property
    def add_prefix_space(self) -> bool:
        return self.byte_level and self.prefix_space

    def to_query(self) -> dict[str, str]:
        own = {"corpus_id": self.corpus_id} if self.corpus in CUSTOM_IDS and self.corpus_id else {}
        return {
            "corpus": self.corpus,
            **own,
            "algorithm": self.algorithm,
            "vocab_size": str(self.vocab_size),
            "normalizer": self.normalizer,
            "pre_tokenizer": self.pre_tokenizer,
            **{OPTION_FIELDS[o]: _query_value(v) for o, v in self.options_for(self.algorithm).items()
               if OPTION_FIELDS[o] not in BYTE_PARAMETERS},
            "specials": self.specials,
        } | ({"byte_alphabet": str(int(self.byte_alphabet)), "prefix_space": str(int(self.prefix_space))}
             if self.byte_level else {})


BYTE_PARAMETERS = ("byte_alphabet", "prefix_space")  # in a link with the byte-level pre-tokenizer only


def _query_value(value: object) -> str:
    """A setting as a link writes it (0 | 1 for a switch)."""
    return str(int(value)) if isinstance(value, bool) else str(value)


def defaults_for(corpus_id: str, algorithm: str = "wordpiece") -> Settings:
    """The suggested settings of a corpus (custom corpora get the English paragraphs' ones), with the catalogue
    entry's settings for the algorithm over them (its field named for the algorithm: `unigram`)."""
    sample = sample_by_id(corpus_id) or sample_by_id("english-paragraphs")
    assert sample is not None
    algorithm = algorithm if algorithm in ALGORITHMS else "wordpiece"
    base = {name: getattr(sample, name) for name in SUGGESTED}
    own = getattr(sample, algorithm, None) or {}  # the catalogue's suggestions for this algorithm, if any
    base |= {k: v for k, v in own.items() if k in SUGGESTED + UNIGRAM_SUGGESTED}
    return Settings(corpus=corpus_id, algorithm=algorithm, **base)


# The settings a sample corpus suggests (its catalogue entry has a field of the same name for each).
SUGGESTED = ("vocab_size", "normalizer", "pre_tokenizer", "min_frequency", "specials", "byte_alphabet")
UNIGRAM_SUGGESTED = ("unigram_rule", "whole_words")  # in its `unigram` entry, with those above


ECHOED_CHARS = 40  # a bad parameter's value is quoted in its message on its first characters only
MAX_STEP = 10_000_000


def _echo(value: str) -> str:
    """A parameter's value as a message quotes it: whole when short, else its start and its length."""
    if len(value) <= ECHOED_CHARS:
        return f"'{value}'"
    return f"'{value[:ECHOED_CHARS]}…' ({len(value):,} characters; the first {ECHOED_CHARS} shown)"


def _int(text: str, low: int, high: int) -> int | None:
    try:
        value = int(str(text).strip())
    except ValueError:
        return None
    return value if low <= value <= high else None


def file_id(key: str, raw: str) -> tuple[str, str | None]:
    """A link's id of a kept file (`corpus_id`, `tokenizer_id`): the id, or "" and why it was refused.

    Only what the app writes is read (hexadecimal digits, bounded): never a path, never SQL."""
    found = valid_id(raw)
    if found is not None:
        return found, None
    return "", (f"{key} is not the id of a kept file ({ID_CHARS} to 64 hexadecimal digits, as the app writes "
                "them); paste or upload the file again")


def from_query(params: Mapping[str, str]) -> tuple[Settings, int | None, list[str]]:
    """Settings and step from query parameters, plus a human message per parameter ignored."""
    problems: list[str] = []
    corpus = params.get("corpus", "course-toy")
    known = {s.id for s in samples()} | set(CUSTOM_IDS)
    if corpus not in known:
        problems.append(f"there is no sample corpus called {_echo(corpus)}; showing the course's toy words")
        corpus = "course-toy"
    algorithm = params.get("algorithm", "wordpiece")
    if algorithm not in ALGORITHMS:
        problems.append(f"algorithm={_echo(algorithm)} is not one of {', '.join(ALGORITHMS)}; using wordpiece")
        algorithm = "wordpiece"
    base = defaults_for(corpus, algorithm)
    values: dict[str, Any] = {}  # checked against `choices` and `numbers` below
    pre_tokenizers = INFO[algorithm].pre_tokenizers
    choices = {
        "normalizer": tuple(NORMALIZERS),
        "pre_tokenizer": pre_tokenizers,
        "tie_break": TIE_BREAKS,
        "specials": tuple(SPECIALS),
        **({"unigram_rule": UNIGRAM_RULES} if "unigram_rule" in INFO[algorithm].options else {}),
    }
    for key, allowed in choices.items():
        if key in params:
            if params[key] in allowed:
                values[key] = params[key]
            elif key == "pre_tokenizer" and params[key] == UNIGRAM_PRE_TOKENIZER:
                problems.append(f"pre_tokenizer={UNIGRAM_PRE_TOKENIZER} is for the Unigram algorithm here; "
                                f"using {base.pre_tokenizer}")
            else:
                problems.append(f"{key}={_echo(params[key])} is not one of {', '.join(allowed)}; using {getattr(base, key)}")
    numbers = {"vocab_size": (1, MAX_VOCAB), "min_frequency": (0, MAX_MIN_FREQUENCY)}
    for key, (low, high) in numbers.items():
        if key in params:
            value = _int(params[key], low, high)
            if value is None:
                problems.append(f"{key}={_echo(params[key])} must be a whole number from {low:,} to {high:,}; using {getattr(base, key)}")
            else:
                values[key] = value
    for key in ("byte_alphabet", "prefix_space", "whole_words"):
        if key in params:
            if params[key] in ("0", "1"):
                values[key] = params[key] == "1"
            else:
                problems.append(f"{key}={_echo(params[key])} must be 0 or 1; using {int(getattr(base, key))}")
    if corpus in CUSTOM_IDS and "corpus_id" in params:
        values["corpus_id"], problem = file_id("corpus_id", params["corpus_id"])
        problems += [problem] if problem else []
    step = None
    if "step" in params:
        step = _int(params["step"], 0, MAX_STEP)
        if step is None:
            problems.append(f"step={_echo(params['step'])} must be a whole number from 1 to {MAX_STEP:,}; "
                            "starting at step 1")
    return replace(base, **values), step, problems


COMPARABLE = ("bpe", "wordpiece", "unigram")  # the Compare page's algorithms, in its order


def parse_algorithms(raw: str | None) -> tuple[list[str], str | None]:
    """A link's `algorithms` (e.g. "bpe,wordpiece,unigram"): the ones named, in the app's order, and what was wrong.
    Two at least; otherwise BPE and WordPiece."""
    default = ["bpe", "wordpiece"]
    if raw is None:
        return default, None
    named = [a.strip() for a in str(raw)[:200].split(",") if a.strip()]
    known = [a for a in COMPARABLE if a in named]
    unknown = [a for a in named if a not in COMPARABLE]
    if len(known) < 2 or unknown:
        return (known if len(known) >= 2 else default), (
            f"algorithms={_echo(str(raw))} should name two or three of bpe, wordpiece, unigram (comma-separated)"
            + ("" if len(known) >= 2 else "; showing BPE and WordPiece"))
    return known, None
