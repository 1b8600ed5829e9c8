"""wordpiece_ui/algorithm_code.py: the functions that make a step (a merge, a Unigram round), read from the code
that runs, with the lines that decided it highlighted and its values under them, drawn as safe HTML."""

import html
import inspect
import re
from html.parser import HTMLParser
from pathlib import Path

from helpers import ROOT, TOY, train_wordpiece
from wordpiece_core import reference
from wordpiece_core.unigram import em as unigram_em
from wordpiece_core.unigram.training import UnigramConfig, train_unigram
from wordpiece_ui import algorithm_code, handout


def _toy_step(number: int, tie_break: str = "first"):
    t = train_wordpiece(TOY, 30, tie_break=tie_break)
    step = t.steps[number - 1]
    tied = [(c.left, c.right) for c in step.candidates if c.score == step.score]
    return t, step, handout.tie_keys(t, number, tied)


def _hot(functions) -> dict[str, list[tuple[str, str]]]:
    """Each function's highlighted lines (text, note), by name."""
    return {f.name: [(line.text.strip(), line.note) for line in f.lines if line.hot] for f in functions}


def _every_marks():
    """Every function and its marks the views use: a tied merge step (every conditional mark present), the course's
    round, a tokenizers round with a pruning and its last round."""
    _, step, keys = _toy_step(2)
    course = train_unigram(TOY, UnigramConfig(rule="course", vocab_size=11, whole_words=False))
    tokenizers = train_unigram(TOY, UnigramConfig(rule="tokenizers", vocab_size=8))
    assert tokenizers.rounds[0].pruning is not None and tokenizers.rounds[-1].pruning is None
    yield from algorithm_code.merge_marks(step, "wordpiece", "first", keys).items()
    yield from algorithm_code.course_marks(course.rounds[0], course.config).items()
    for r in tokenizers.rounds:
        yield from algorithm_code.tokenizers_marks(r, tokenizers.config).items()


def test_every_mark_of_the_code_views_is_one_line_of_its_function():
    for func, (_, marks) in _every_marks():
        for anchor, lines in algorithm_code.marked_lines(func, marks).items():
            assert len(lines) == 1, (func.__name__, anchor, lines)


def test_what_is_shown_is_the_function_that_runs_with_its_files_line_numbers():
    _, step, keys = _toy_step(2)
    functions = algorithm_code.merge_step(step, "wordpiece", "first", keys)
    assert [f.name for f in functions] == ["train", "count", "score", "ranked", "tie_key", "merge"]  # the loop first
    for f in functions:
        func = getattr(reference, f.name)
        assert "\n".join(line.text for line in f.lines) + "\n" == inspect.getsource(func)
        assert f.path == "wordpiece_core/reference.py"
        on_disk = (Path(ROOT) / f.path).read_text(encoding="utf-8").splitlines()
        assert all(on_disk[line.number - 1] == line.text for line in f.lines)


def test_the_lines_that_made_the_toys_step_2_are_highlighted_with_its_values():
    _, step, keys = _toy_step(2)
    hot = _hot(algorithm_code.merge_step(step, "wordpiece", "first", keys))
    train = dict(hot["train"])
    assert train["pairs, tokens, first = count(splits, freqs)  # recount everything at every step"] == (
        "count(h ##u) = 15, count(h) = 15, count(##u) = 36")
    assert train["top = score(algorithm, pairs[a, b], tokens[a], tokens[b])"] == "top = 15 / (15 × 36) = 1/36 ≈ 0.0278"
    assert train["new = new_token(a, b, prefix)"] == "new = 'hu'"
    assert train["ties = sum(1 for p in best if score(algorithm, pairs[p], tokens[p[0]], tokens[p[1]]) == top)"] == (
        "ties = 6")
    assert "6 pairs share the best score, 1/36; the tie rule 'first' puts this one first" in train[
        "best = ranked(pairs, tokens, first, {t: i for i, t in enumerate(vocab)}, algorithm, tie_break, min_frequency)"]
    # the tie: each tied pair's key, where the scan first meets it; h + ##u is met first of all
    assert dict(hot["count"])["first.setdefault(pair, len(first))"] == (
        "first[('h', '##u')] = 0: the first pair the scan meets")
    (line, note), = hot["tie_key"]
    assert line.startswith("return (ids[pair[0]], ids[pair[1]])")
    assert note.startswith("tie_break = 'first'; the tied pairs' keys: (0,) for h + ##u; (1,) for ##u + ##g; "
                           "(2,) for p + ##u") and note.endswith("The smallest, (0,), merges first")
    assert dict(hot["score"])['return Fraction(ab) if algorithm == "bpe" else Fraction(ab, a * b)'] == (
        "15 / (15 × 36) = 1/36 ≈ 0.0278")


def test_the_hf_tie_rule_shows_the_ids_and_an_untied_step_leaves_tie_key_alone():
    _, step, keys = _toy_step(2, "hf")
    assert (step.left, step.right) == ("##u", "##g") and keys[("##u", "##g")] == min(keys.values()) == (3, 0)
    hot = _hot(algorithm_code.merge_step(step, "wordpiece", "hf", keys))
    assert "(3, 0) for ##u + ##g" in hot["tie_key"][0][1]
    assert not any("first.setdefault" in line for line, _ in hot["count"])  # the scan's order decides nothing here
    _, step, _ = _toy_step(1)
    assert step.ties == 1
    functions = algorithm_code.merge_step(step, "wordpiece", "first")
    hot = _hot(functions)
    assert hot["tie_key"] == [] and ("ties = sum(1 for p in best if score(algorithm, pairs[p], tokens[p[0]], "
                                     "tokens[p[1]]) == top)", "ties = 1: no tie") in hot["train"]
    assert "no tie at this step" in next(f.role for f in functions if f.name == "tie_key")


class _Page(HTMLParser):
    """The tags, attributes and text of the code view's HTML, and the text of each code line."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list]] = []
        self.lines: list[str] = []
        self.notes: list[str] = []
        self._in: str | None = None
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        cls = dict(attrs).get("class") or ""
        if tag == "span" and cls in ("wpl-code-src", "wpl-code-say"):
            self._in = cls
            (self.lines if cls == "wpl-code-src" else self.notes).append("")

    def handle_endtag(self, tag):
        if tag == "span":
            self._in = None

    def handle_data(self, data):
        if self._in == "wpl-code-src":
            self.lines[-1] += data
        elif self._in == "wpl-code-say":
            self.notes[-1] += data


def test_the_html_escapes_every_character_of_the_code_and_of_the_notes():
    hostile = '<img src=x onerror="alert(1)">'
    t = train_wordpiece({hostile: 5, "**b**": 3, "<b>": 2}, 100)
    step = next(s for s in t.steps if "<" in s.new_token and "##" not in s.new_token)  # <i, then <im …: its tokens
    functions = algorithm_code.merge_step(step, "wordpiece", "first")
    page = algorithm_code.as_html(functions)
    assert "\n\n" not in page and page.startswith("<style>")  # one Markdown HTML block: nothing ends it early
    body = page.split("</style>", 1)[1]
    assert "\n" not in body and "<" not in re.sub(r"</?(div|span|code)( [^<>]*)?>", "", body)  # our tags only
    parsed = _Page()
    parsed.feed(page)
    assert {tag for tag, _ in parsed.tags} <= {"style", "div", "span", "code"}
    assert not [name for _, attrs in parsed.tags for name, _ in attrs if name.startswith("on")]
    source = [line.text for f in functions for line in f.lines]
    assert [html.unescape(line).replace("\u200b", "") for line in parsed.lines] == source  # the code, as it is
    assert "if i &#43; 1 &#60; len&#40;split&#41;" in page  # every punctuation mark of the code: a reference
    notes = [line.note for f in functions for line in f.lines if line.note]
    assert parsed.notes == notes and any("<" in n for n in notes)  # a token of the corpus, shown as text


def test_a_course_round_highlights_the_loop_and_the_removal_scores():
    t = train_unigram(TOY, UnigramConfig(rule="course", vocab_size=11, whole_words=False))
    functions = algorithm_code.unigram_round(t.rounds[0], t.config)
    assert [f.path for f in functions] == ["wordpiece_core/unigram/reference.py"] * 2
    hot = _hot(functions)
    notes = dict(hot["train"])
    assert notes["while len(counts) > vocab_size:"] == "len(counts) = 15 > vocab_size = 11"
    assert notes["n = max(1, int(len(counts) * prune_percent / 100))"] == "n = max(1, int(15 × 10 / 100)) = 1"
    assert notes["removed = [token for token, _ in scores[:n]]"] == "removed = ['ug']"
    assert "the corpus's loss with them: 169.80" in notes["costs = probabilities(counts)"]
    assert [line for line, _ in hot["removal_scores"]] == [
        "base = loss(word_counts, costs, COURSE_START)",
        "return {token: loss(word_counts, {t: c for t, c in costs.items() if t != token}, COURSE_START) - base",
        "for token in costs if len(token) > 1}"]


def test_a_tokenizers_round_highlights_the_cut_and_its_numbers_are_the_prunings():
    t = train_unigram(TOY, UnigramConfig(rule="tokenizers", vocab_size=8))
    r = t.rounds[0]
    p = r.pruning
    assert p is not None and p.cut
    functions = algorithm_code.unigram_round(r, t.config)
    assert [f.name for f in functions] == ["prune", "pruning_loss", "m_step"]
    assert inspect.getsource(unigram_em.prune) == "\n".join(line.text for line in functions[0].lines) + "\n"
    prune = dict(_hot(functions)["prune"])
    # the target written out is prune's own: the pieces it saw are the round's model after EM
    assert max(8 * 11 // 10, int(len(r.pieces) * 0.75)) == p.target
    assert prune["target = max(vocab_size * 11 // 10, int(len(pieces) * shrinking_factor))"] == (
        f"target = max(8 × 11 // 10, int({len(r.pieces)} × 0.75)) = {p.target}")
    assert prune["kept.extend(pieces[i] for i, _ in candidates[:n_kept])"] == "cut: " + ", ".join(
        repr(x) for x in reversed(p.cut))
    assert repr(p.pieces[-1]) in _hot(functions)["pruning_loss"][0][1]
    last = algorithm_code.unigram_round(t.rounds[-1], t.config)
    assert [f.name for f in last] == ["train", "m_step"] and "no pruning" in dict(_hot(last)["train"])[
        "if len(pieces) <= desired:"]
