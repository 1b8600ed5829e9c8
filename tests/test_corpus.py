"""wordpiece_core/corpus.py: from input files to word counts.

Its fast paths count as the plain way does: a file read block by block, and in two forked
processes, gives the counts of its whole text in the same order (and the same message for a bad
byte); two files in two processes each equal one process; a pipe is read whole.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpiece_core.corpus import TextSettings
from wordpiece_core.errors import WordPieceError
from wordpiece_core.sampling import sample_lines


def _counts_both_ways(path, settings_, monkeypatch):
    import wordpiece_core.corpus as corpus

    one = corpus.load_word_counts([str(path)], [], settings_, workers=1)
    monkeypatch.setattr(corpus, "_PARALLEL_MIN_BYTES", 100)
    two = corpus.load_word_counts([str(path)], [], settings_, workers=2)
    return one, two


@pytest.mark.parametrize("pre", ["whitespace", "whitespace-split", "bert", "byte-level"])
def test_forked_file_reading_equals_one_process(tmp_path, monkeypatch, pre):
    lines = sample_lines("en", 2000, top_n=2000, seed=5) + ["Ünïcödé — 日本語 🙂 e\u0301"]
    path = tmp_path / "c.txt"
    path.write_bytes(("\ufeff" + "\r\n".join(lines) + "\r\n").encode("utf-8"))  # BOM and CRLF
    one, two = _counts_both_ways(path, TextSettings("none", pre), monkeypatch)
    assert list(one.items()) == list(two.items())
    assert "\ufeff" not in "".join(two)


def test_forked_file_reading_reports_a_bad_byte_in_the_second_half(tmp_path, monkeypatch):
    from wordpiece_core.errors import WordPieceError

    path = tmp_path / "bad.txt"
    path.write_bytes(b"good words here\n" * 200 + b"bad \xff byte\n")
    messages = []
    for workers_min in (10**9, 100):
        import wordpiece_core.corpus as corpus

        monkeypatch.setattr(corpus, "_PARALLEL_MIN_BYTES", workers_min)
        with pytest.raises(WordPieceError) as err:
            corpus.load_word_counts([str(path)], [], TextSettings(), workers=2)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert "line 201, column 5" in messages[1]


def test_two_files_counted_in_two_processes_each_equal_one_process(tmp_path, monkeypatch):
    import wordpiece_core.corpus as corpus

    paths = []
    for seed in (1, 2):
        path = tmp_path / f"c{seed}.txt"
        path.write_text("\n".join(sample_lines("en", 1500, top_n=3000, seed=seed)) + "\n", encoding="utf-8")
        paths.append(str(path))
    one = corpus.load_word_counts(paths, [], TextSettings(), workers=1)
    monkeypatch.setattr(corpus, "_PARALLEL_MIN_BYTES", 100)
    two = corpus.load_word_counts(paths, [], TextSettings(), workers=2)
    assert list(one.items()) == list(two.items())


streamed_text = st.text(alphabet="ab Σσ\n\r\t\ufeffé\u0301\u00a0\u3000\x1c\x00日🙂.,'", max_size=60)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(streamed_text, st.sampled_from(["none", "lowercase", "bert", "bert-cased"]),
       st.sampled_from(["whitespace", "whitespace-split", "bert", "byte-level", "metaspace", "metaspace-never"]),
       st.integers(1, 12), st.sampled_from([1, 2]))
def test_a_file_read_block_by_block_counts_as_the_whole_text(tmp_path_factory, text, normalizer, pre, block, workers):
    """Counting a file in blocks (and in two processes) gives the counts of its whole text, in the
    same order; tiny blocks put block ends everywhere (a BOM, a final Σ, CRLF split, odd spaces)."""
    import wordpiece_core.corpus as corpus

    path = tmp_path_factory.mktemp("blocks") / "c.txt"
    path.write_bytes(text.encode("utf-8"))
    settings_ = TextSettings(normalizer, pre)

    def outcome(count):
        try:
            return list(count().items())
        except WordPieceError as exc:  # a binary-looking file: the same message both ways
            return str(exc)

    whole = outcome(lambda: corpus.count_text(corpus.read_text_file(str(path)), settings_))
    saved = corpus._BLOCK_BYTES, corpus._PARALLEL_MIN_BYTES
    corpus._BLOCK_BYTES, corpus._PARALLEL_MIN_BYTES = block, 1
    try:
        streamed = outcome(lambda: corpus.load_word_counts([str(path)], [], settings_, workers=workers))
    finally:
        corpus._BLOCK_BYTES, corpus._PARALLEL_MIN_BYTES = saved
    assert streamed == whole


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \t\n\r\u3000\u00a0\u2009▁é", max_size=40), st.sampled_from(["none", "bert"]),
       st.sampled_from([("metaspace", "always"), ("metaspace-never", "never"), ("metaspace-first", "first")]))
def test_metaspace_counts_the_words_tokenizers_pre_tokenizer_makes_of_each_line(text, normalizer, pre):
    """Metaspace splits on the plain space only (a tab, a no-break space, U+3000 stay inside their word; a run of
    spaces makes words "▁"), one line a document, as tokenizers' Metaspace does: the same words, counts and order."""
    tokenizers = pytest.importorskip("tokenizers")
    from collections import Counter

    from wordpiece_core.corpus import count_text, split_lines

    name, scheme = pre
    theirs = tokenizers.pre_tokenizers.Metaspace(prepend_scheme=scheme)
    bert = tokenizers.normalizers.BertNormalizer()
    expected = Counter(word for line in split_lines(text)
                       for word, _ in theirs.pre_tokenize_str(bert.normalize_str(line) if normalizer == "bert" else line))
    assert list(count_text(text, TextSettings(normalizer, name)).items()) == list(expected.items())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["the cat", " the  dog ", "мир мир", "", "a\tb ▁c", "the", "x\r", "Ünï"]), max_size=12),
       st.sampled_from(["byte-level", "metaspace", "metaspace-never", "metaspace-first"]), st.booleans(),
       st.sampled_from(["none", "bert"]))
def test_a_text_that_repeats_its_lines_counts_as_each_line_counted_in_turn(lines, pre, prefix_space, normalizer):
    """count_text with repeated_lines (the app's texts: a mix of the Declaration repeats English 92 times) counts
    each distinct line once and multiplies: the same words, counts and order of first appearance as counting every
    line in turn."""
    from wordpiece_core.corpus import count_text, count_words, split_lines

    text = "\n".join(lines)
    settings_ = TextSettings(normalizer, pre, prefix_space if pre == "byte-level" else False)
    once_each = count_words(split_lines(text), settings_)
    assert list(count_text(text, settings_, repeated_lines=True).items()) == list(once_each.items())
    assert list(count_text(text, settings_).items()) == list(once_each.items())


def test_metaspace_keeps_a_tab_in_its_word_and_makes_a_word_of_each_extra_space():
    from wordpiece_core.corpus import count_text

    counts = count_text("def f(x):\n\treturn x  +  1\n    y = 2\n", TextSettings("none", "metaspace"))
    assert counts == {"▁def": 1, "▁f(x):": 1, "▁\treturn": 1, "▁x": 1, "▁": 5, "▁+": 1, "▁1": 1, "▁y": 1, "▁=": 1,
                      "▁2": 1}


def test_a_corpus_from_a_pipe_is_read_whole(tmp_path):
    """A pipe cannot be read in blocks from an offset (nor forked in halves): it is read whole, as before."""
    import os
    import threading

    import wordpiece_core.corpus as corpus

    fifo = tmp_path / "corpus.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("hug pug hug pun bun hugs\n" * 50_000, encoding="utf-8"))
    writer.start()
    try:
        counts = corpus.load_word_counts([str(fifo)], [], TextSettings(), workers=2)
    finally:
        writer.join()
    assert list(counts.items()) == [("hug", 100_000), ("pug", 50_000), ("pun", 50_000), ("bun", 50_000),
                                    ("hugs", 50_000)]


# ----- text encodings: UTF-8 (with or without a byte order mark), UTF-16 and UTF-32 ---------------------------

ENCODED_TEXT = "Hug the pugs, café naïve 日本語 🙂\r\nhugs again\n"


@pytest.mark.parametrize("codec,bom", [
    ("utf-8", ""), ("utf-8", "\ufeff"), ("utf-16-le", "\ufeff"), ("utf-16-be", "\ufeff"), ("utf-16-le", ""),
    ("utf-16-be", ""), ("utf-32-le", "\ufeff"), ("utf-32-be", "\ufeff"),
])
def test_utf16_utf32_and_a_bom_decode_to_the_same_text(codec, bom):
    """What Windows' Notepad and PowerShell save (UTF-16 with a byte order mark, sometimes none) is text."""
    from wordpiece_core.corpus import decode_text

    data = (bom + ENCODED_TEXT).encode(codec)
    assert decode_text(data, "c.txt") == ENCODED_TEXT


@pytest.mark.parametrize("codec", ["utf-16", "utf-8-sig", "utf-32"])
@pytest.mark.parametrize("pre", ["whitespace", "byte-level"])
def test_a_utf16_file_counts_as_its_utf8_twin(tmp_path, monkeypatch, codec, pre):
    """Streamed, forked or whole, the file's encoding changes nothing in the counts (Python's "utf-16" and
    "utf-32" codecs write a byte order mark)."""
    lines = sample_lines("en", 500, top_n=500, seed=2) + [ENCODED_TEXT]
    plain, wide = tmp_path / "plain.txt", tmp_path / "wide.txt"
    plain.write_text("\n".join(lines), encoding="utf-8")
    wide.write_bytes("\n".join(lines).encode(codec))
    one, two = _counts_both_ways(wide, TextSettings("none", pre), monkeypatch)
    expected, _ = _counts_both_ways(plain, TextSettings("none", pre), monkeypatch)
    assert list(one.items()) == list(two.items()) == list(expected.items())


def test_broken_utf16_and_binary_files_are_named_as_such():
    from wordpiece_core.corpus import decode_text

    with pytest.raises(WordPieceError, match=r"looks like UTF-16 text, but its bytes 2–3 are not valid UTF-16"):
        decode_text(b"\xff\xfe" + b"\x00\xd8" + "ok".encode("utf-16-le"), "c.txt")  # a lone surrogate
    with pytest.raises(WordPieceError, match="binary"):
        decode_text(b"\x7fELF" + bytes(range(256)) * 20, "c.txt")
    with pytest.raises(WordPieceError, match="not valid UTF-8 text: byte 0xe9 at line 1, column 4"):
        decode_text("café".encode("latin-1"), "c.txt")
