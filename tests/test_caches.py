"""wordpiece_ui/caches.py: what every session shares on top of trained.py; here, the downloads."""

from helpers import TOY, train_bpe, train_wordpiece
from wordpiece_ui.settings import Settings


def test_each_download_is_built_alone_and_equals_what_the_command_line_writes():
    from wordpiece_core.formats import output_files
    from wordpiece_ui.caches import download_file

    for algorithm in ("wordpiece", "bpe"):
        t = train_wordpiece(TOY, 30, special_tokens=("[UNK]", "[CLS]", "[SEP]")) if algorithm == "wordpiece" \
            else train_bpe(TOY, 30, special_tokens=("[UNK]",))
        files = output_files(t, "none", "whitespace")
        for name in ("tokenizer.json", "vocab.txt", "trace.jsonl", "merges.txt"):
            if name in files:
                assert download_file(t, Settings(), name) == files[name], name
        assert download_file(t, Settings(), "merges.txt").splitlines()[0] == f"{t.steps[0].left} {t.steps[0].right}"
        assert download_file(t, Settings(), "trace.csv").startswith("step,merge,new token")
