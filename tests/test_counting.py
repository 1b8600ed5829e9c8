"""wordpiece_ui/counting.py: a kept corpus is counted in a child process, read there from the data store
by its digest (or handed over when only the server's memory keeps it); its problems come back as one line."""

import pytest

from wordpiece_core.corpus import TextSettings
from wordpiece_core.errors import WordPieceError
from wordpiece_ui import counting
from wordpiece_ui.corpora import load_upload
from wordpiece_ui.datastore import DataStore

TEXT = TextSettings("none", "whitespace")
TSV = b"hug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n"


def request(store, kept, data=None):
    return counting.Request(kept, TEXT, store.path, store.max_age, data)


def test_a_saved_file_is_counted_in_another_process_from_the_store(tmp_path, monkeypatch):
    store = DataStore(str(tmp_path))
    kept = store.put("upload", "toy.tsv", TSV)

    def not_here(request):
        raise AssertionError("counted in the server's process")

    monkeypatch.setattr(counting, "count_here", not_here)  # this process' copy only: the child has its own
    counts = counting.count(request(store, kept))
    assert counts == load_upload("toy.tsv", TSV, TEXT)


def test_a_file_kept_only_in_memory_is_handed_to_the_child(tmp_path):
    (tmp_path / "taken").write_text("a file, not a folder")
    store = DataStore(str(tmp_path / "taken" / "data"))
    kept = store.put("paste", "the pasted text", b"low lower lowest")
    assert not kept.saved
    counts = counting.count(request(store, kept, store.read(kept.digest)))
    assert dict(counts.counts) == {"low": 1, "lower": 1, "lowest": 1} and counts.name == "the pasted text"


def test_what_cannot_be_counted_comes_back_as_one_line(tmp_path):
    store = DataStore(str(tmp_path))
    kept = store.put("upload", "counts.tsv", b"hug\t10\npug\tmany\n")
    with pytest.raises(WordPieceError, match="line 2"):
        counting.count(request(store, kept))


def test_a_file_that_has_gone_says_to_upload_it_again(tmp_path):
    store = DataStore(str(tmp_path))
    kept = store.put("upload", "toy.tsv", TSV)
    DataStore(str(tmp_path), max_age_seconds=1, clock=lambda: kept.last_used + 10).expire()
    with pytest.raises(WordPieceError, match="toy.tsv is no longer kept on this server; upload it again"):
        counting.count(request(store, kept))
