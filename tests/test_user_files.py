"""wordpiece_ui/user_files.py in AppTest: a pasted or uploaded corpus (and the playground's tokenizer file)
is kept by digest, the link names it (`corpus_id`, `tokenizer_id`), and a new session that opens the link
gets the same corpus; a link whose file has gone, or whose id is not one, gets one line; a data folder that
cannot be written costs only the saving, said once in the sidebar."""

import json

import pytest

from helpers import WP, app, everything, metrics, shown
from wordpiece_ui import user_files
from wordpiece_ui.datastore import StoredFile

pytest.importorskip("streamlit.testing.v1")  # AppTest

TEXT = "low lower lowest newer newest wider widest\n" * 3
TSV = b"hug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n"


def param(at, key):
    value = at.query_params.get(key)
    return value[0] if isinstance(value, list) else value


@pytest.mark.slow
def test_a_pasted_corpus_opens_from_its_link_in_a_new_session():
    at = app(corpus="paste")
    at.text_area(key="paste_text").set_value(TEXT).run()
    header = shown(at.header[0].value)
    corpus_id = param(at, "corpus_id")
    assert header.startswith("Step 1 of") and len(corpus_id) == 16
    opened = app(corpus="paste", corpus_id=corpus_id)  # another student, or the same tab after a restart
    assert opened.text_area(key="paste_text").value == TEXT
    assert shown(opened.header[0].value) == header and param(opened, "corpus_id") == corpus_id
    assert not opened.sidebar.warning


@pytest.mark.slow
def test_an_uploaded_corpus_is_kept_by_digest_and_opens_from_its_link():
    at = app(corpus="upload")
    at.file_uploader(key="upload_file").set_value(("toy.tsv", TSV, "text/tab-separated-values")).run()
    assert shown(at.header[0].value) == "Step 1 of 9:  ##g + ##s → ##gs"
    kept = at.session_state["own upload"]
    assert isinstance(kept, StoredFile) and kept.name == "toy.tsv" and kept.saved  # the digest, no bytes
    opened = app(corpus="upload", corpus_id=param(at, "corpus_id"))
    assert shown(opened.header[0].value) == "Step 1 of 9:  ##g + ##s → ##gs"
    assert any("Using toy.tsv" in shown(c.value) for c in opened.sidebar.caption)
    assert opened.selectbox(key="s_normalizer").disabled  # read as word counts, by its name, as when uploaded


def test_an_uploads_bytes_leave_streamlits_memory_once_kept(monkeypatch):
    """Streamlit keeps an upload's bytes until its session ends, minutes after the tab is closed: once the data
    store has them, the app removes them (the uploader still shows the file's name)."""
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

    managers = []
    remove = MemoryUploadedFileManager.remove_file

    def spy(self, session_id, file_id):
        managers.append(self)
        remove(self, session_id, file_id)

    monkeypatch.setattr(MemoryUploadedFileManager, "remove_file", spy)
    at = app(corpus="upload")
    at.file_uploader(key="upload_file").set_value(("toy.tsv", TSV, "text/tab-separated-values")).run()
    assert shown(at.header[0].value) == "Step 1 of 9:  ##g + ##s → ##gs"
    assert len(managers) == 1 and not any(managers[0].file_storage.values())


@pytest.mark.parametrize("corpus,again", [("paste", "paste the text into the box in the sidebar again"),
                                          ("upload", "upload the file again")])
def test_a_link_whose_corpus_has_gone_gets_one_line(corpus, again):
    at = app(corpus=corpus, corpus_id="0123456789abcdef")
    lines = [shown(i.value) for i in at.info]
    assert lines == [f"The corpus in this link is no longer kept on this server (files are kept 7 days after "
                     f"their last use): {again}."]
    assert not at.error and not at.sidebar.warning


def test_a_corpus_id_naming_a_tokenizer_file_is_taken_for_gone():
    """A link may only name a file of its own kind: a corpus link with a tokenizer file's id opens no corpus."""
    kept = user_files.data_store().put(user_files.TOKENIZER, "tokenizer.json", json.dumps(WP).encode())
    at = app(corpus="upload", corpus_id=kept.id)
    assert [shown(i.value) for i in at.info][0].startswith("The corpus in this link is no longer kept on this server")
    assert not at.error and not any(shown(h.value).startswith("Step") for h in at.header)  # nothing trained on it


@pytest.mark.parametrize("hostile", ["../../../etc/passwd", "x' OR '1'='1", "1; DROP TABLE files", "0" * 200,
                                     "/home/teacher/.local/share/wordpiece-lab/store.sqlite3"])
def test_a_hostile_corpus_id_is_refused_with_a_line(hostile):
    at = app(corpus="paste", corpus_id=hostile)
    warnings = [shown(w.value) for w in at.sidebar.warning]
    assert warnings == ["Link: corpus_id is not the id of a kept file (16 to 64 hexadecimal digits, as the app "
                        "writes them); paste or upload the file again"]
    assert any("Paste some text" in i.value for i in at.info) and not at.error


def test_the_share_box_says_that_the_link_carries_the_corpus():
    at = app("pages/compare.py", corpus="paste")
    at.text_area(key="paste_text").set_value(TEXT).run()
    assert ("The link names your text by its digest (corpus_id): it opens the same corpus on this server for anyone "
            "who has the link, also after a restart, until it has gone unused for 7 days.") in everything(at)
    link = next(c.value for c in at.code if "corpus_id=" in c.value)
    assert f"corpus_id={param(at, 'corpus_id')}" in link


@pytest.fixture
def unwritable(tmp_path, monkeypatch):
    (tmp_path / "taken").write_text("a file where the data folder should be")
    monkeypatch.setenv("WORDPIECE_LAB_DATA", str(tmp_path / "taken" / "data"))
    user_files.data_store.clear()  # the server's data store is opened anew, on that folder
    yield
    user_files.data_store.clear()


def test_a_data_folder_that_cannot_be_written_costs_only_the_saving(unwritable):
    at = app("pages/compare.py", corpus="paste")
    at.text_area(key="paste_text").set_value(TEXT).run()
    assert not at.exception and not at.error
    assert [shown(w.value) for w in at.sidebar.warning] == [
        "Not kept across a restart of the server: the data folder cannot be written."]
    assert "this server cannot save it: the link works until the server restarts" in everything(at)
    opened = app(corpus="paste", corpus_id=param(at, "corpus_id"))  # the same server: its memory has it
    assert opened.text_area(key="paste_text").value == TEXT and shown(opened.header[0].value).startswith("Step 1 of")


def upload_tokenizer(at):
    at.segmented_control(key="source").set_value("file").run()
    at.file_uploader(key="tokenizer_file").set_value(("tokenizer.json", json.dumps(WP).encode(), "application/json")).run()
    assert not at.exception
    return at


def test_an_uploaded_tokenizer_file_opens_from_its_link():
    at = upload_tokenizer(app("pages/playground.py", corpus="course-toy", text="hugs bun"))
    tokens = list(at.dataframe[0].value["token"])
    tokenizer_id = param(at, "tokenizer_id")
    assert len(tokenizer_id) == 16 and param(at, "source") == "file"
    opened = app("pages/playground.py", corpus="course-toy", text="hugs bun", source="file", tokenizer_id=tokenizer_id)
    assert list(opened.dataframe[0].value["token"]) == tokens and metrics(opened)["tokens"] == metrics(at)["tokens"]


@pytest.mark.parametrize("tokenizer_id,line", [
    ("fedcba9876543210", "The tokenizer file in this link is no longer kept on this server"),
    ("../tokenizer.json", "Link: tokenizer_id is not the id of a kept file"),
])
def test_a_tokenizer_link_whose_file_has_gone_or_is_no_id_gets_one_line(tokenizer_id, line):
    at = app("pages/playground.py", corpus="course-toy", text="hugs", source="file", tokenizer_id=tokenizer_id)
    assert [shown(i.value)[:len(line)] for i in at.info] == [line] and not at.error


def test_a_link_whose_pasted_text_went_after_it_was_found_says_so_in_one_line(monkeypatch):
    """The store still lists the paste but its text has gone by the time it is read (it expired in between): the
    page says the text is no longer kept, not "Paste some text"."""
    kept = user_files.data_store().put(user_files.PASTE, user_files.PASTE_NAME, TEXT.encode())
    store = user_files.data_store()
    monkeypatch.setattr(type(store), "read", lambda self, digest: None)
    at = app(corpus="paste", corpus_id=kept.id)
    lines = [shown(i.value) for i in at.info]
    assert lines == ["The corpus in this link is no longer kept on this server (files are kept 7 days after their "
                     "last use): paste the text into the box in the sidebar again."]
    assert not at.error and not any(shown(h.value).startswith("Step") for h in at.header)
