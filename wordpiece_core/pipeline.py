"""The full pipeline: normalize → pre-tokenize → model → post-process, and decode.

`Tokenizer.encode` returns an `Encoding` whose offsets are character offsets
into the ORIGINAL input: every normalizer works character by character and
reports which input character each output character came from, and byte-level
characters are traced back to the character whose UTF-8 bytes they spell.

Special tokens written in the input (e.g. a literal ``[SEP]``) are matched first,
longest first, on the original text, as Hugging Face's added-token handling does;
the text between them goes through the pipeline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from .models import BPEModel, WordPieceModel, WordResult
from .normalizers import WHITE_SPACE, normalize_with_sources
from .pre_tokenizers import METASPACE, is_byte_level, is_word_char, pre_tokenize, unicode_to_bytes
from .special_tokens import BERT_PAIR, BERT_SINGLE, CLS, SEP

if TYPE_CHECKING:  # the Unigram model imports models.py's base, as this module does: only its type is needed here
    from collections.abc import Iterable

    from .unigram.model import UnigramModel


class WordTrace(NamedTuple):  # one per word encoded: a named tuple is made several times faster than a dataclass
    """How one pre-tokenized word was encoded (for the playground)."""

    word: str  # as the model saw it (normalized; byte-level characters for byte-level)
    offsets: tuple[int, int]  # in the original text
    result: WordResult


@dataclass(frozen=True)
class Encoding:
    tokens: list[str]
    ids: list[int | None]
    offsets: list[tuple[int, int]]
    word_ids: list[int | None]
    type_ids: list[int]
    special_tokens_mask: list[int]
    attention_mask: list[int]
    words: list[WordTrace] = field(default_factory=list)

    def as_json(self, trace: bool = False) -> dict:
        out: dict = {"tokens": self.tokens, "ids": self.ids, "offsets": [list(o) for o in self.offsets]}
        if trace:
            out["trace"] = [word_trace_json(w) for w in self.words]
        return out


def word_trace_json(w: WordTrace) -> dict:
    r = w.result
    out: dict = {"word": w.word, "offsets": list(w.offsets), "tokens": list(r.tokens)}
    if r.scan:
        out["scan"] = [{"position": s.position, "tried": list(s.tried), "found": s.found} for s in r.scan]
    if r.initial_split:
        out["initial"] = list(r.initial_split)
        out["merges"] = [{"rank": m.rank, "left": m.left, "right": m.right, "new_token": m.new_token,
                          "split": list(m.split_after)} for m in r.merges]
    if r.unknown:
        out["unknown"] = r.reason
    if r.traced_chars:
        out["traced_chars"] = r.traced_chars  # the trace covers only the word's first characters
    return out


@dataclass(frozen=True)
class Truncation:
    """tokenizers' truncation: at most `max_length` tokens, special tokens included."""

    max_length: int
    strategy: str = "LongestFirst"  # or OnlyFirst, OnlySecond
    direction: str = "Right"  # Right drops the last tokens, Left the first


@dataclass(frozen=True)
class Padding:
    """tokenizers' padding of one encoding: to `length` (None: as long as it is, the batch being one)."""

    length: int | None
    multiple_of: int | None = None
    direction: str = "Right"
    pad_id: int = 0
    pad_type_id: int = 0
    pad_token: str = "[PAD]"


@dataclass(frozen=True)
class Decoder:
    """How ids become text, as the file's decoder says: "join" (no decoder: tokens joined with spaces),
    "wordpiece" (prefix, cleanup), "byte-level", "metaspace" (replacement, prepend), "bpe" (suffix), "replace",
    "byte-fallback", "fuse", "strip", "sequence" (steps)."""

    kind: str
    prefix: str = "##"
    cleanup: bool = True
    replacement: str = "\u2581"
    prepend: bool = True  # Metaspace: the first token's replacement characters are dropped
    suffix: str = "</w>"
    pattern: str = ""  # Replace: this text …
    content: str = ""  # … becomes this (Strip: the character stripped)
    start: int = 0  # Strip: at most this many from the start of each token
    stop: int = 0  # … and from its end
    steps: tuple[Decoder, ...] = ()  # Sequence: these, in order


@dataclass(frozen=True)
class Template:
    """Post-processing: special tokens around one sequence or a pair."""

    single: tuple[tuple[str, int], ...]  # ("$A", type) or ("[CLS]", type)
    pair: tuple[tuple[str, int], ...]
    # A special's tokens and ids, as TemplateProcessing's special_tokens (or Bert/RobertaProcessing's cls and sep)
    # give them; a special not named here is itself, with its id in the vocabulary.
    expand: tuple[tuple[str, tuple[tuple[str, int | None], ...]], ...] = ()

    @staticmethod
    def bert(cls: str = CLS, sep: str = SEP) -> Template:
        """[CLS] A [SEP], and [CLS] A [SEP] B [SEP] with B's tokens of type 1 (special_tokens.BERT_SINGLE, _PAIR)."""
        names = {CLS: cls, SEP: sep}
        return Template(single=tuple((names.get(t, t), k) for t, k in BERT_SINGLE),
                        pair=tuple((names.get(t, t), k) for t, k in BERT_PAIR))


class Tokenizer:
    def __init__(self, model: WordPieceModel | BPEModel | UnigramModel, normalizer: str = "none",
                 pre_tokenizer: str = "whitespace", add_prefix_space: bool = False,
                 special_tokens: tuple[str, ...] = (), template: Template | None = None,
                 trim_offsets: bool | None = None, trim_prefix_space: bool | None = None,
                 decoder: str | Decoder | None = None, added_tokens: dict[str, int] | None = None,
                 truncation: Truncation | None = None, padding: Padding | None = None,
                 added_flags: dict[str, tuple[bool, bool, bool]] | None = None,
                 normalized_added: Iterable[str] = ()) -> None:
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.add_prefix_space = add_prefix_space
        # Added tokens are matched in the text before the model runs; the special ones among them are
        # marked in the special-tokens mask and skipped when decoding. By default: the specials the vocabulary has.
        self.added = dict(added_tokens) if added_tokens is not None else {
            t: model.vocab[t] for t in special_tokens if t in model.vocab}
        self.special_tokens = tuple(t for t in special_tokens if t in self.added or t in model.vocab)
        self.added_flags: dict[str, tuple[bool, bool, bool]] = dict(added_flags or {})  # (lstrip, rstrip, single_word)
        self._specials = frozenset(self.special_tokens)
        self.truncation = truncation
        self.padding = padding
        self.template = template
        # A ByteLevel (or RoBERTa) post-processor trims Ġ from offsets, whatever the pre-tokenizer; by default, for
        # byte-level only (the file says, when there is one).
        self.trim_offsets = is_byte_level(pre_tokenizer) if trim_offsets is None else trim_offsets
        # Hugging Face's ByteLevel post-processor has its own add_prefix_space flag.
        self.trim_prefix_space = add_prefix_space if trim_prefix_space is None else trim_prefix_space
        if decoder is None:
            decoder = "byte-level" if is_byte_level(pre_tokenizer) else (
                "wordpiece" if getattr(model, "prefix", None) else "join")
        if isinstance(decoder, str):
            decoder = Decoder(decoder, prefix=getattr(model, "prefix", None) or "##")
        self.decoder = decoder
        # Added tokens with normalized true are matched after the others, in the normalized text, by their own
        # normalized form (tokenizers' AddedVocabulary: two passes); that form is also the text decode gives them.
        self.normalized_added = frozenset(normalized_added) & frozenset(self.added)
        self._forms: dict[str, str] = {}  # normalized form -> content
        for content in sorted(self.normalized_added, key=lambda t: self.added[t]):
            form = normalize_with_sources(content, normalizer)[0] if normalizer != "none" else content
            if form:
                self._forms.setdefault(form, content)
        self.id_to_token = {i: t for t, i in model.vocab.items()} | {i: t for t, i in self.added.items()} | {
            self.added[content]: form for form, content in self._forms.items()}
        self._specials_pattern = _longest_first([t for t in self.added if t not in self.normalized_added])
        self._normalized_pattern = _longest_first(list(self._forms))

    @property
    def vocab(self) -> dict[str, int]:
        return self.model.vocab

    # ----- encoding -------------------------------------------------------------------
    def _split_specials(self, text: str, pattern: re.Pattern | None = None) -> list[tuple[str, int, int, bool]]:
        """(segment, start, is_special), matching added tokens leftmost, the longest first at one place, as
        tokenizers' AddedVocabulary does: a single_word token only between non-alphanumeric characters (a match
        that is not is skipped), an lstrip (rstrip) one taking the white space before (after) it into its span.
        Each segment: (text, start, end, is an added token); an added token's text is what matched (its content,
        or its normalized form in the second pass), its start and end its span (white space it took included)."""
        pattern = self._specials_pattern if pattern is None else pattern
        if pattern is None:
            return [(text, 0, len(text), False)]
        out: list[tuple[str, int, int, bool]] = []
        last = 0
        flags = self.added_flags
        for m in pattern.finditer(text):  # alternatives longest first: leftmost-longest
            start, stop = m.span()
            lstrip, rstrip, single_word = flags.get(self._forms.get(m.group(), m.group()), (False, False, False))
            if single_word and ((start > 0 and is_word_char(text[start - 1]))
                                or (stop < len(text) and is_word_char(text[stop]))):
                continue
            if lstrip:
                while start > last and text[start - 1] in WHITE_SPACE:
                    start -= 1
            if rstrip:
                while stop < len(text) and text[stop] in WHITE_SPACE:
                    stop += 1
            if last < start:
                out.append((text[last:start], last, start, False))
            out.append((m.group(), start, stop, True))
            last = stop
        if last < len(text):
            out.append((text[last:], last, len(text), False))
        return out

    def _segment(self, text: str, base: int, trace: bool) -> list:
        """Encode one segment free of the added tokens matched in the text: normalize it, match the normalized
        added tokens in it (tokenizers' second pass), and encode each piece between them. Each item: (added
        token's content, its text, its offsets) or (word traces, token offsets)."""
        normalized, sources = normalize_with_sources(text, self.normalizer)
        if self._normalized_pattern is None:  # (Metaspace's "first": where the text starts in the original)
            return [self._words(normalized, sources, base, trace, base + (sources[0] if sources else 0) == 0)]
        out: list = []
        for piece, start, end, added in self._split_specials(normalized, self._normalized_pattern):
            if sources is None:
                piece_sources, piece_base = None, base + start
            else:
                piece_sources, piece_base = sources[start:end], base
            if added:
                span = ((piece_base + piece_sources[0], piece_base + piece_sources[-1] + 1) if piece_sources
                        else (piece_base, piece_base + end - start))
                out.append(_Added(self._forms[piece], normalized[start:end], span))
                continue
            first = (piece_sources[0] if piece_sources else 0) + piece_base == 0
            out.append(self._words(piece, piece_sources, piece_base, trace, first))
        return out

    def _words(self, normalized: str, sources: list[int] | None, base: int, trace: bool,
               first: bool) -> tuple[list[WordTrace], list[tuple[int, int]]]:
        """Encode a normalized text (with each character's source, relative to `base`; None: its own place):
        each word's trace, and the original offsets of all its tokens."""
        byte_level = is_byte_level(self.pre_tokenizer)
        words = pre_tokenize(normalized, self.pre_tokenizer, self.add_prefix_space, first=first)
        results = self.model.tokenize_all([word for word, _ in words], trace)
        traces: list[WordTrace] = []
        offsets: list[tuple[int, int]] = []
        if sources is None and not byte_level and self.pre_tokenizer.split("+")[-1] not in METASPACE:  # positions
            new = tuple.__new__  # WordTrace(...) without its Python-level __new__: one per word encoded
            traces = [new(WordTrace, (word, (base + start, base + end), result))
                      for (word, (start, end)), result in zip(words, results)]
            offsets = [(base + start + s, base + start + e) if e > s else (base, base)
                       for (_, (start, _)), result in zip(words, results) for s, e in result.spans]
            return traces, offsets
        source = list(range(len(normalized))) if sources is None else sources
        added_space = byte_level and self.add_prefix_space and bool(normalized) and not normalized.startswith(" ")
        spans_in: dict[str, list[tuple[int, int] | None]] = {}  # a byte-level word's token spans, in its characters
        for (word, (start, end)), result in zip(words, results):
            if byte_level and sources is None and end > start and not (added_space and start == 0):
                # Each character its own source: a token's offsets are its span in the word's characters, the same
                # wherever the word occurs (worked out once a word: most of a text's words are repeats).
                where = spans_in.get(word)
                if where is None:
                    chars = _byte_level_sources(normalized, start, end, False)
                    where = spans_in[word] = [(chars[s] - start, chars[e - 1] + 1 - start) if e > s else None
                                              for s, e in result.spans]
                at = base + start
                offsets += [(at + span[0], at + span[1]) if span is not None else (base, base) for span in where]
                traces.append(WordTrace(word, (at, base + end), result))
                continue
            if byte_level:
                # Each byte-level character maps back to the normalized character it came from.
                chars = _byte_level_sources(normalized, start, end, added_space and start == 0)
            else:  # a word longer than its span (Metaspace's prepended ▁) maps its first characters to the first
                chars = [start] * (len(word) - (end - start)) + list(range(start, end))
            if sources is None and chars and chars[-1] < len(normalized):  # each character its own source
                offsets += [(base + chars[s], base + chars[e - 1] + 1) if e > s else (base, base)
                            for s, e in result.spans]
            else:
                for s, e in result.spans:
                    if e <= s:
                        offsets.append((base, base))
                        continue
                    offsets.append((base + _orig(source, chars[s]), base + _orig(source, chars[e - 1], end=True)))
            o_start = base + (_orig(source, chars[0]) if chars else 0)
            o_end = base + (_orig(source, chars[-1], end=True) if chars else 0)
            traces.append(WordTrace(word, (o_start, o_end), result))
        return traces, offsets

    def _encode_one(self, text: str, trace: bool):
        tokens: list[str] = []
        ids: list[int | None] = []
        offsets: list[tuple[int, int]] = []
        word_ids: list[int | None] = []
        words: list[WordTrace] = []
        special_at: list[int] = []  # positions of the special tokens
        vocab, added, specials = self.vocab, self.added, self._specials
        for segment, start, end, special in self._split_specials(text):
            if special:  # an added token (special or not)
                if segment in specials:
                    special_at.append(len(tokens))
                tokens.append(text[start:end])  # (with the white space lstrip or rstrip took, as tokenizers shows it)
                ids.append(added[segment])
                offsets.append((start, end))
                word_ids.append(None)
                continue
            for part in self._segment(segment, start, trace):
                if isinstance(part, _Added):  # an added token matched in the normalized text, shown as there
                    content, shown, span = part
                    if content in specials:
                        special_at.append(len(tokens))
                    tokens.append(shown)
                    ids.append(added[content])
                    offsets.append(span)
                    word_ids.append(None)
                    continue
                traces, offs = part
                pieces = [token for wt in traces for token in wt.result.tokens]
                tokens += pieces
                ids += map(getattr(self.model, "id_of", vocab.get), pieces)  # Unigram: an unknown run: unknown id
                offsets += offs
                word_ids += [index for index, wt in enumerate(traces, len(words)) for _ in wt.result.tokens]
                words += traces
        specials_mask = [0] * len(tokens)
        for i in special_at:
            specials_mask[i] = 1
        if self.trim_offsets:
            offsets = _trimmed(tokens, offsets, self.trim_prefix_space)
        return tokens, ids, offsets, word_ids, specials_mask, words

    def _added_count(self, parts: tuple[tuple[str, int], ...], template: Template | None) -> int:
        expand = dict(template.expand) if template else {}
        return sum(len(expand.get(name, ((name, None),))) for name, _ in parts if name not in ("$A", "$B"))

    def _truncate(self, a: tuple, b: tuple | None, room: int) -> tuple[tuple, tuple | None]:
        """tokenizers' truncation of one sequence or a pair to `room` tokens (the specials already counted)."""
        t = self.truncation
        assert t is not None
        n1, n2 = len(a[0]), (len(b[0]) if b is not None else 0)
        if n1 + n2 <= room:
            return a, b

        def cut(seq: tuple, keep: int) -> tuple:
            keep = max(keep, 0)
            part = slice(0, keep) if t.direction == "Right" else slice(len(seq[0]) - keep, len(seq[0]))
            return tuple(column[part] for column in seq[:5]) + (seq[5],)

        if b is None:
            return cut(a, room), None
        if t.strategy == "OnlyFirst":
            return cut(a, n1 - (n1 + n2 - room)), b
        if t.strategy == "OnlySecond":
            return a, cut(b, n2 - (n1 + n2 - room))
        short, long_ = (n2, n1) if n1 > n2 else (n1, n2)  # LongestFirst, as tokenizers' truncate_encodings
        long_ = short if short > room else max(short, room - short)
        if short + long_ > room:
            short = room // 2
            long_ = short + room % 2
        keep1, keep2 = (long_, short) if n1 > n2 else (short, long_)
        return cut(a, keep1), cut(b, keep2)

    def encode(self, text: str, pair: str | None = None, add_special_tokens: bool = True,
               trace: bool = False) -> Encoding:
        a = self._encode_one(text, trace)
        b = self._encode_one(pair, trace) if pair is not None else None
        tokens, ids, offsets, word_ids, type_ids, mask = [], [], [], [], [], []
        words: list[WordTrace] = []
        template = self.template if add_special_tokens else None
        parts = (template.pair if b is not None else template.single) if template else (
            (("$A", 0), ("$B", 1)) if b is not None else (("$A", 0),))
        if self.truncation is not None:
            a, b = self._truncate(a, b, self.truncation.max_length - self._added_count(parts, template))
        expand = dict(template.expand) if template else {}
        for name, type_id in parts:
            if name in ("$A", "$B"):
                seq = a if name == "$A" else b
                assert seq is not None  # the template has $B only for a pair
                t, i, o, w, m, wt = seq
                tokens += t
                ids += i
                offsets += o
                word_ids += w
                type_ids += [type_id] * len(t)
                mask += m
                words += wt
            else:
                for token, token_id in expand.get(name, ((name, self.added.get(name, self.vocab.get(name))),)):
                    tokens.append(token)
                    ids.append(token_id)
                    offsets.append((0, 0))
                    word_ids.append(None)
                    type_ids.append(type_id)
                    mask.append(1)
        attention = [1] * len(tokens)
        if self.padding is not None:
            p = self.padding
            target = len(tokens) if p.length is None else max(p.length, len(tokens))
            if p.multiple_of:
                target = -(-target // p.multiple_of) * p.multiple_of
            pads = target - len(tokens)
            if pads > 0:
                def pad(column: list, value: object) -> list:
                    return column + [value] * pads if p.direction == "Right" else [value] * pads + column
                tokens, ids, offsets = pad(tokens, p.pad_token), pad(ids, p.pad_id), pad(offsets, (0, 0))
                word_ids, type_ids = pad(word_ids, None), pad(type_ids, p.pad_type_id)
                mask, attention = pad(mask, 1), pad(attention, 0)
        return Encoding(tokens, ids, offsets, word_ids, type_ids, mask, attention, words)

    # ----- decoding -------------------------------------------------------------------
    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        tokens = [self.id_to_token[i] for i in ids if i in self.id_to_token]
        if skip_special_tokens:
            tokens = [t for t in tokens if t not in self._specials]
        if self.decoder.kind == "join":
            return " ".join(tokens)
        return "".join(decode_chain(self.decoder, tokens))


def decode_chain(d: Decoder, tokens: list[str]) -> list[str]:
    """One decoder's step over the tokens, as tokenizers' decode_chain: the pieces that are then concatenated."""
    if d.kind == "sequence":
        for step in d.steps:
            tokens = decode_chain(step, tokens)
        return tokens
    if d.kind == "metaspace":  # the replacement character is a space; the first token's are dropped
        return [t.replace(d.replacement, "" if i == 0 and d.prepend else " ") for i, t in enumerate(tokens)]
    if d.kind == "bpe":  # the end-of-word suffix is a space, the last token's nothing
        return [t.replace(d.suffix, "" if i == len(tokens) - 1 else " ") for i, t in enumerate(tokens)]
    if d.kind == "replace":
        return [t.replace(d.pattern, d.content) for t in tokens]
    if d.kind == "fuse":
        return ["".join(tokens)]
    if d.kind == "strip":
        out = []
        for t in tokens:
            start = 0
            while start < min(d.start, len(t)) and t[start] == d.content:
                start += 1
            stop = len(t)
            while len(t) - stop < d.stop and stop > start and t[stop - 1] == d.content:
                stop -= 1
            out.append(t[start:stop])
        return out
    if d.kind == "byte-fallback":  # runs of <0xXX> tokens become the text their bytes spell (or one � a byte)
        out, pending = [], bytearray()
        for t in tokens + [""]:
            if len(t) == 6 and t.startswith("<0x") and t.endswith(">") and _is_hex(t[3:5]):
                pending.append(int(t[3:5], 16))
                continue
            if pending:
                try:
                    out.append(pending.decode("utf-8"))
                except UnicodeDecodeError:
                    out += ["\ufffd"] * len(pending)
                pending = bytearray()
            if t:
                out.append(t)
        return out
    if d.kind == "byte-level":
        # As tokenizers' ByteLevel decoder: the bytes of all tokens joined, then decoded once
        # (a character split across tokens comes back whole); a token with a character
        # outside the byte alphabet (a special token, say) gives its own UTF-8 bytes.
        table = unicode_to_bytes()
        data = bytearray()
        for t in tokens:
            if all(c in table for c in t):
                data.extend(table[c] for c in t)
            else:
                data.extend(t.encode("utf-8"))
        return [data.decode("utf-8", errors="replace")]
    if d.kind == "wordpiece":
        out = []
        for i, t in enumerate(tokens):
            # as tokenizers' WordPiece decoder: a first token keeps its prefix
            piece = (t[len(d.prefix):] if t.startswith(d.prefix) else " " + t) if i else t
            # Like Hugging Face's decoder, the clean-up applies to each piece on its own.
            out.append(cleanup(piece) if d.cleanup else piece)
        return out
    return [" ".join(tokens)]


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)


def cleanup(text: str) -> str:
    """Hugging Face's WordPiece decoder clean-up: no space before punctuation and contractions."""
    for a, b in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
                 (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")):
        text = text.replace(a, b)
    return text


class _Added(NamedTuple):
    """An added token matched in the normalized text: its content, its text there, its original offsets."""

    content: str
    text: str
    span: tuple[int, int]


def _longest_first(tokens: list[str]) -> re.Pattern | None:
    """One pattern matching any of `tokens`, the longest first at a place (leftmost-longest), or None."""
    return re.compile("|".join(map(re.escape, sorted(tokens, key=len, reverse=True)))) if tokens else None


def _orig(source: list[int], index: int, end: bool = False) -> int:
    """Original character offset for a normalized character index."""
    if not source:
        return 0
    pos = source[min(index, len(source) - 1)]
    return pos + 1 if end else pos


def _byte_level_sources(normalized: str, start: int, end: int, added_space: bool) -> list[int]:
    """For each byte-level character of the word normalized[start:end], its source character index."""
    out: list[int] = []
    if added_space:
        out.append(0)  # the added prefix space stands for the first character
    for i in range(start, end):
        out.extend([i] * len(normalized[i].encode("utf-8")))
    return out


_TRIMMED = "Ġ" + "".join(sorted(WHITE_SPACE))


def _trimmed(tokens: list[str], offsets: list[tuple[int, int]], add_prefix_space: bool) -> list[tuple[int, int]]:
    """ByteLevel trim_offsets: every token's offsets without its leading and trailing spaces (Ġ, and white space
    itself, as tokenizers trims), each distinct token's counted once (a text's tokens are mostly repeats)."""
    edges: dict[str, tuple[int, int]] = {}  # token → how many characters are left out at its start, at its end
    out = []
    for i, (token, (start, end)) in enumerate(zip(tokens, offsets)):
        cut = edges.get(token)
        if cut is None:
            cut = edges[token] = (len(token) - len(token.lstrip(_TRIMMED)), len(token) - len(token.rstrip(_TRIMMED)))
        lead, trail = cut
        if lead:
            if (i == 0 or start == 0) and add_prefix_space and lead == 1:
                lead = 0
            start = min(start + lead, end)
        if trail and end >= trail:
            end = max(end - trail, start)
        out.append((start, end))
    return out
