"""Browser tests: Debian's Chromium (driven by Playwright) against a real `streamlit run`.

Each test loads a page, uses it, asserts there is no Streamlit exception box and no
JavaScript page error, and saves a screenshot under artifacts/screenshots/.
"""

import os
import time
from urllib.parse import parse_qs, urlsplit

import pytest

from browser import CHROMIUM, SHOTS, StreamlitServer, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # each starts Chromium pages against a real server

pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it", allow_module_level=True)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 2400})
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    context.close()


def check(page, name):
    """No exception box, no page error, no traceback in the server log; save a screenshot."""
    wait_idle(page)
    with open(os.path.join(SHOTS, "streamlit.log"), encoding="utf-8", errors="replace") as fh:
        log = fh.read()
    assert "Traceback" not in log, log[log.index("Traceback"):][:3000]
    page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)
    assert page.locator('[data-testid="stException"]').count() == 0, page.locator('[data-testid="stException"]').first.inner_text()
    assert not page.errors, page.errors


def visit(page, url, text, timeout=60_000):
    """Open a link and wait until `text` is on screen."""
    page.goto(url)
    page.get_by_text(text).first.wait_for(timeout=timeout)


def follow(page, link, text, timeout=30_000):
    """Click the navigation link `link` and wait until `text` is on screen."""
    page.get_by_role("link", name=link).click()
    page.get_by_text(text).first.wait_for(timeout=timeout)


def header(page):
    return page.locator("h2").filter(has_text="Step ").first.inner_text()


def test_a_fresh_servers_first_visitor_of_a_deep_link_gets_the_whole_app(browser):
    """A new server's very first request opens /compare: Streamlit would run pages/compare.py
    alone (its old pages-folder mode); wordpiece_ui/navigation.py sends it through app.py."""
    fresh = StreamlitServer()
    try:
        context = browser.new_context(viewport={"width": 1440, "height": 2400})
        pg = context.new_page()
        pg.errors = []
        pg.on("pageerror", lambda e: pg.errors.append(str(e)))
        visit(pg, fresh.url + "/compare?corpus=course-toy&algorithm=bpe", "Merge timelines, aligned by step", 60_000)
        check(pg, "fresh-server-compare")
        sidebar = pg.locator('[data-testid="stSidebar"]')
        assert sidebar.get_by_text("Corpus").count() >= 1  # app.py's sidebar, drawn before the page
        assert sidebar.get_by_role("link", name="Encoder playground").count() == 1  # app.py's navigation, not the folder's
        assert "corpus=course-toy" in pg.url and "/compare" in pg.url
        context.close()
    finally:
        fresh.stop()


def test_shared_link_opens_step_1_of_the_toy_corpus(server, page):
    visit(page, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=1", "##g + ##s → ##gs", 60_000)
    check(page, "train-step-1")
    assert "Step 1 of 9" in header(page)
    assert page.get_by_text("5 / (20 × 5) = 1/20 = 0.05").count() >= 1


def test_shared_link_step_2_shows_the_tie_and_next_moves_on(server, page):
    visit(page, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=2", "6-way tie at 1/36", 60_000)
    assert page.get_by_text("15 / (15 × 36) = 1/36 ≈ 0.0278").count() >= 1
    check(page, "train-step-2-tie")
    page.get_by_role("button", name="Next").click()
    page.get_by_text("hu + ##gs → hugs").first.wait_for(timeout=30_000)
    check(page, "train-step-3")
    assert "step=3" in page.url
    page.get_by_role("button", name="Prev").click()
    page.get_by_text("h + ##u → hu").first.wait_for(timeout=30_000)
    assert "step=2" in page.url


def test_slider_keyboard_and_play(server, page):
    visit(page, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=1", "##g + ##s → ##gs", 60_000)
    page.get_by_role("slider").first.focus()
    page.keyboard.press("ArrowRight")
    page.get_by_text("h + ##u → hu").first.wait_for(timeout=30_000)
    page.get_by_role("button", name="Play").click()
    page.get_by_text("Step 4 of 9").first.wait_for(timeout=30_000)
    page.get_by_role("button", name="Pause").click()
    wait_idle(page)
    check(page, "train-after-play")


def test_sidebar_settings_are_kept_across_pages(server, page):
    visit(page, server.url + "/?corpus=course-toy&algorithm=bpe&step=1", "u + g → ug", 60_000)
    check(page, "train-bpe")
    follow(page, "Corpora and notes", "Sample corpora")
    check(page, "corpora")
    assert "algorithm=bpe" in page.url
    follow(page, "Train step by step", "u + g → ug")
    check(page, "train-bpe-again")


def test_compare_page_from_a_fresh_link(server, page):
    visit(page, server.url + "/compare?corpus=course-toy&hf=1&heldout=hug%20mug", "Merge timelines, aligned by step", 60_000)
    check(page, "compare-toy")
    assert page.get_by_text("HF WordPieceTrainer (BPE with ##)").count() >= 1
    assert page.get_by_text("first different step").count() == 1
    follow(page, "Encoder playground", "How each word was cut", 60_000)
    check(page, "playground-after-compare")


def test_compare_page_on_a_real_corpus(server, page):
    visit(page, server.url + "/compare?corpus=wordfreq-tr&vocab_size=600", "When each shared token was learned", 120_000)
    check(page, "compare-turkish")


def test_playground_types_text_and_steps_the_trace(server, page):
    visit(page, server.url + "/playground?corpus=course-sentences&text=This%20is%20the%20course.", "How each word was cut", 60_000)
    box = page.get_by_label("Text (the first 20,000 characters are encoded)")
    typed = "Hello 😀 wörld, 東京 שלום tokenization!"
    box.fill(typed)
    box.press("Control+Enter")
    page.get_by_text("Word 1 of").first.wait_for(timeout=30_000)
    wait_idle(page)
    # The link follows the text: its text= is now what was typed, no longer the link's "This is the course."
    assert parse_qs(urlsplit(page.url).query)["text"] == [typed], page.url
    assert page.locator(".wpl-unk").count() >= 1
    page.get_by_role("slider").first.focus()
    page.keyboard.press("ArrowRight")
    page.get_by_text("Word 2 of").first.wait_for(timeout=30_000)
    check(page, "playground-unicode")


def test_playground_dark_theme_is_readable(server, browser):
    context = browser.new_context(viewport={"width": 1440, "height": 1800}, color_scheme="dark")
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.goto(server.url + "/playground?corpus=english-paragraphs&text=Students%20predicted%20the%20next%20merge.")
    pg.get_by_text("How each word was cut").first.wait_for(timeout=60_000)
    check(pg, "playground-dark")
    context.close()


def test_downloads_are_built_on_click(server, page, tmp_path):
    visit(page, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=1", "##g + ##s → ##gs", 60_000)
    got = {}
    for name in ["trace.csv", "vocab.txt", "merges.txt", "tokenizer.json"]:
        with page.expect_download(timeout=30_000) as info:
            page.get_by_role("button", name=name).click()
        path = tmp_path / name
        info.value.save_as(path)
        got[name] = path.read_text(encoding="utf-8")
    assert got["vocab.txt"].split("\n")[:7] == ["##g", "##n", "##s", "##u", "b", "h", "p"]
    assert got["merges.txt"].split("\n")[0] == "##g ##s"
    assert got["trace.csv"].split("\n")[1].startswith("1,##g + ##s,##gs,5,20,5,0.05,1/20,1")
    import json
    assert json.loads(got["tokenizer.json"])["model"]["type"] == "WordPiece"
    check(page, "train-downloads")


def test_training_a_bigger_corpus_shows_a_progress_bar(server, page):
    page.goto(server.url + "/?corpus=wordfreq-en&vocab_size=15000&step=6000")  # trains for a few seconds
    page.wait_for_selector('[data-testid="stProgress"]', timeout=60_000)  # while training runs
    # "counting the corpus…" until the worker's first report, then its merges
    page.wait_for_function("() => { const bar = document.querySelector('[data-testid=\"stProgress\"]');"
                           " return !bar || /[0-9,]+ of [0-9,]+ merges/.test(bar.innerText); }", timeout=60_000)
    # The table, chart and metric drawn to warm the browser up (progress_view._warm_up_browser) are out of
    # the layout: hidden, with the element that holds them.
    warm = page.locator('[class*="st-key-wpl-warm-up"]')
    assert warm.count() == 1 and warm.is_hidden()
    assert page.evaluate("() => document.querySelector('[class*=\"st-key-wpl-warm-up\"]').parentElement.getBoundingClientRect().height") == 0
    page.get_by_text("Step 6000 of").first.wait_for(timeout=120_000)
    assert page.locator('[class*="st-key-wpl-warm-up"]').count() == 0
    assert page.locator('[data-testid="stProgress"]').count() == 0  # gone once trained
    check(page, "train-english-step-6000")


def _trainers(server) -> int:
    """How many training worker processes the server has running now."""
    import subprocess

    out = subprocess.run(["pgrep", "-P", str(server.proc.pid), "-f", "wordpiece_ui.train_worker"],
                         capture_output=True, text=True).stdout
    return len(out.split())


def test_stop_ends_a_training_and_says_so(server, page):
    page.goto(server.url + "/?corpus=wordfreq-en&algorithm=wordpiece&vocab_size=19990&step=1")
    page.wait_for_selector('[data-testid="stProgress"]', timeout=60_000)
    page.wait_for_function("() => /[1-9][0-9,]* of/.test(document.querySelector('[data-testid=\"stProgress\"]').innerText)",
                           timeout=30_000)
    assert _trainers(server) == 1  # in its own process, not in the server's
    page.locator('[data-testid="stMain"]').get_by_role("button", name="Stop").first.click()
    page.get_by_text("You stopped the WordPiece training").first.wait_for(timeout=15_000)
    assert page.locator('[data-testid="stProgress"]').count() == 0  # no frozen bar left behind
    page.wait_for_timeout(1000)
    assert _trainers(server) == 0  # cancelled: nobody else was waiting
    check(page, "train-stopped")
    page.get_by_role("button", name="Train again").click()
    page.wait_for_selector('[data-testid="stProgress"]', timeout=60_000)
    page.locator('[data-testid="stMain"]').get_by_role("button", name="Stop").first.click()
    page.get_by_text("You stopped the WordPiece training").first.wait_for(timeout=15_000)


def test_closing_the_tab_ends_its_training_within_seconds(server, browser):
    """The server sees the tab's connection go; the training only it waited for is cancelled
    (jobs.CLOSED_GRACE_SECONDS after its last poll) and its worker ends, instead of computing on
    for jobs.GRACE_SECONDS or to the end. The worker is stopped (SIGSTOP) before the tab closes, so it
    cannot end by finishing: only a cancellation (SIGTERM, then SIGKILL after jobs.KILL_GRACE_SECONDS)
    ends it within the time asserted; without one, the watchdog would leave it a minute."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    tab = context.new_page()
    tab.goto(server.url + "/?corpus=wordfreq-en&algorithm=wordpiece&vocab_size=19970&step=1")
    tab.wait_for_selector('[data-testid="stProgress"]', timeout=60_000)
    tab.wait_for_function("() => /[1-9][0-9,]* of/.test(document.querySelector('[data-testid=\"stProgress\"]').innerText)",
                          timeout=30_000)
    import signal
    import subprocess

    (worker,) = subprocess.run(["pgrep", "-P", str(server.proc.pid), "-f", "wordpiece_ui.train_worker"],
                               capture_output=True, text=True).stdout.split()
    os.kill(int(worker), signal.SIGSTOP)
    context.close()
    closed = time.monotonic()
    while _trainers(server) and time.monotonic() - closed < 30:
        time.sleep(0.2)
    assert _trainers(server) == 0
    assert time.monotonic() - closed < 9.0, f"the worker outlived its closed tab by {time.monotonic() - closed:.1f} s"


def test_playground_trace_plays_word_by_word(server, page):
    visit(page, server.url + "/playground?corpus=course-toy&algorithm=bpe&text=hug%20pug%20hugs%20bun",
          "Word 1 of 4")
    page.get_by_role("button", name="Play").click()
    page.get_by_text("Word 3 of 4").first.wait_for(timeout=30_000)
    page.get_by_role("button", name="Pause").click()
    wait_idle(page)
    check(page, "playground-bpe-trace")


def test_uploads_in_the_browser(server, page, tmp_path):
    visit(page, server.url + "/?corpus=upload", "Choose a .txt or .tsv file")
    bad = tmp_path / "photo.txt"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(bad))
    page.get_by_text("Cannot use this corpus").first.wait_for(timeout=30_000)
    assert page.get_by_text("binary file").count() >= 1
    check(page, "upload-binary")
    good = tmp_path / "toy.tsv"
    good.write_text("hug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n", encoding="utf-8")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(good))
    page.get_by_text("##g + ##s → ##gs").first.wait_for(timeout=30_000)
    check(page, "upload-tsv")


EVIL = "http://evil.example"


def test_hostile_link_parameters_stay_text_and_nothing_leaves_the_machine(server, page):
    """Link values echoed into warnings, and typed text in headings, are shown as typed:
    no foreign link or image appears, and the browser asks no host but the app's."""
    from urllib.parse import quote

    asked = []
    page.on("request", lambda r: asked.append(r.url))
    hostile = {
        "corpus": f"[sign in]({EVIL}/login)",  # (a bad value is quoted up to 40 characters)
        "algorithm": f"![pixel]({EVIL}/pixel.png)",
        "vocab_size": f"<img src={EVIL}/i.png>",
        "normalizer": ":red[boom] $x^2$",
        "step": "`` **bold**",
    }
    visit(page, server.url + "/?" + "&".join(f"{k}={quote(v)}" for k, v in hostile.items()), "Step 1 of", 60_000)
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text().replace("\u2060", "")  # (safe.md's word joiners)
    assert f"[sign in]({EVIL}/login)" in sidebar and f"![pixel]({EVIL}/pixel.png)" in sidebar
    check(page, "hostile-link-train")
    text = "a`` b ``c [x](" + EVIL + ") **y**"
    visit(page, server.url + "/playground?corpus=course-toy&text=" + quote(text), "How each word was cut", 60_000)
    check(page, "hostile-link-playground")  # (waits until the page is idle)
    assert page.get_by_text("[x](" + EVIL + ")").count() >= 1
    assert page.locator('a[href*="evil.example"], img[src*="evil.example"]').count() == 0
    visit(page, server.url + "/compare?corpus=course-toy&hf=1", "Merge timelines, aligned by step", 60_000)
    wait_idle(page)
    visit(page, server.url + "/corpora", "Glossary", 60_000)  # its source links are links, never fetched
    wait_idle(page)
    foreign = [u for u in asked if not u.startswith(server.url) and not u.startswith(("data:", "blob:"))]
    assert not foreign, foreign


def _share_link(page) -> str:
    """The link in the Train page's Share button (a popover), read and closed again."""
    page.get_by_role("button", name="Share").click()
    code = page.locator('[data-testid="stPopoverBody"] [data-testid="stCode"]').first
    code.wait_for(timeout=10_000)
    link = code.inner_text()
    page.keyboard.press("Escape")
    return link


def test_step_keys_and_a_share_link_that_follows_the_view(server, page):
    visit(page, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=1", "Step 1 of 9", 60_000)
    assert page.get_by_text("Keys: ← →").count() == 1  # the legend
    page.wait_for_function("() => !!document.__wordpieceLabKeys", timeout=15_000)  # the key script has loaded
    wait_idle(page)  # the first run (and the address bar's update) has finished
    page.locator("h1").first.click()  # focus on the page, not in a field
    page.keyboard.press("ArrowRight")
    page.get_by_text("Step 2 of 9").first.wait_for(timeout=15_000)
    page.keyboard.press("ArrowRight")
    page.get_by_text("Step 3 of 9").first.wait_for(timeout=15_000)
    page.keyboard.press("ArrowLeft")
    page.get_by_text("Step 2 of 9").first.wait_for(timeout=15_000)
    page.keyboard.press("End")
    page.get_by_text("Step 9 of 9").first.wait_for(timeout=15_000)
    assert "step=9" in _share_link(page)  # the link is the view on screen, not the one the page opened at
    page.keyboard.press("Home")
    page.get_by_text("Step 1 of 9").first.wait_for(timeout=15_000)
    page.keyboard.press(" ")
    page.get_by_role("button", name="Pause").first.wait_for(timeout=15_000)  # Space plays …
    page.keyboard.press(" ")
    page.get_by_role("button", name="Play").first.wait_for(timeout=15_000)  # … and pauses
    check(page, "train-keys")


def test_the_step_keys_work_after_every_redraw(server, page):
    """Each of these replaces the key script's iframe; the keys must still step afterwards."""
    import re

    visit(page, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=1", "Step 1 of 9", 60_000)

    def press_next(expected: str) -> None:
        wait_idle(page)
        page.wait_for_function("() => !!document.__wordpieceLabKeys", timeout=15_000)
        page.evaluate("() => document.activeElement && document.activeElement.blur()")  # not in a field
        page.keyboard.press("ArrowRight")
        page.get_by_text(re.compile(expected)).first.wait_for(timeout=15_000)

    press_next("Step 2 of 9")
    page.get_by_role("button", name="Got it").click()  # the introduction's button
    press_next("Step 3 of 9")
    page.get_by_text("Presenter mode").first.click()
    press_next("Step 4 of 9")
    page.get_by_text("Presenter mode").first.click()
    page.get_by_text("Ask first (quiz)").first.click()
    wait_idle(page)
    page.get_by_text("Ask first (quiz)").first.click()
    press_next("Step 5 of 9")
    page.get_by_test_id("stSidebar").get_by_text("BPE", exact=True).click()  # another algorithm
    wait_idle(page)
    press_next(r"Step 2 of \d+")
    page.get_by_test_id("stSidebar").get_by_role("link", name="Encoder playground").click()  # away and back
    page.get_by_text("Text (the first").first.wait_for(timeout=30_000)
    page.get_by_test_id("stSidebar").get_by_role("link", name=re.compile("Train")).first.click()
    page.get_by_text(re.compile(r"Step \d+ of \d+")).first.wait_for(timeout=30_000)
    before = int(re.search(r"Step (\d+) of", page.get_by_text(re.compile(r"Step \d+ of \d+")).first.inner_text())[1])
    press_next(f"Step {before + 1} of")
    check(page, "train-keys-after-redraws")


def test_the_keys_step_from_a_focused_switch_or_radio_and_a_help_mark_toggles_nothing(server, page):
    """A click leaves the focus on the switch or radio it toggled: → must step from there (not do nothing, not
    move the sidebar's algorithm radio to the next algorithm); a click on *Ask first*'s "?" must not toggle it."""
    import re

    visit(page, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=2", "Step 2 of 9", 60_000)
    wait_idle(page)
    page.wait_for_function("() => !!document.__wordpieceLabKeys", timeout=15_000)
    ask = page.get_by_test_id("stCheckbox").filter(has_text="Ask first").first
    ask.get_by_test_id("stTooltipIcon").click()
    page.wait_for_timeout(1500)
    assert not ask.locator("input").is_checked()  # the "?" showed help; nothing was hidden or shown to a class
    ask.locator("label").first.click()
    wait_idle(page)
    assert ask.locator("input").is_checked() and page.evaluate("document.activeElement.type") == "checkbox"
    page.keyboard.press("ArrowRight")
    page.get_by_text("Step 3 of 9:  which pair merges next?").first.wait_for(timeout=15_000)
    ask.locator("label").first.click()
    wait_idle(page)
    page.get_by_test_id("stSidebar").get_by_text("BPE", exact=True).click()
    wait_idle(page)
    assert page.evaluate("document.activeElement.type") == "radio"
    page.keyboard.press("ArrowRight")
    page.locator("h2").filter(has_text=re.compile(r"Step 2 of \d+")).first.wait_for(timeout=15_000)
    wait_idle(page)
    assert "algorithm=bpe" in page.url  # still BPE: the arrow stepped, it did not pick the next algorithm


def test_the_step_keys_work_after_every_redraw_of_the_playground(server, page):
    """The playground's word-by-word trace uses the same Stepper and key script: after each redraw of the
    page (new text, the special tokens, the tokenizer source, another algorithm, another page and back)
    → must still move the trace one word on."""
    import re

    heading = re.compile(r"Word \d+ of \d+")

    def word() -> int:
        return int(re.search(r"Word (\d+) of", page.get_by_text(heading).first.inner_text())[1])

    def press_next() -> None:
        wait_idle(page)
        page.wait_for_function("() => !!document.__wordpieceLabKeys", timeout=15_000)
        before = word()
        page.evaluate("() => document.activeElement && document.activeElement.blur()")  # not in a field
        page.keyboard.press("ArrowRight")
        page.get_by_text(re.compile(rf"Word {before + 1} of \d+")).first.wait_for(timeout=15_000)

    visit(page, server.url + "/playground?corpus=course-toy&algorithm=wordpiece&text=hug%20pug%20hugs%20bun",
          "Word 1 of 4", 60_000)
    press_next()  # word 2
    box = page.get_by_label("Text (the first 20,000 characters are encoded)")
    box.fill("hug pug hugs bun pun hug pug hugs bun pun")  # new text: a redraw of the page
    box.press("Control+Enter")
    page.get_by_text(re.compile(r"Word \d+ of 10")).first.wait_for(timeout=30_000)
    press_next()  # word 3
    page.get_by_text("Add special tokens").first.click()  # off
    wait_idle(page)
    press_next()  # word 4
    page.get_by_text("Add special tokens").first.click()  # on again
    wait_idle(page)
    press_next()  # word 5
    page.get_by_role("radio", name="A tokenizer file (tokenizer.json, vocab.txt, .tiktoken)").click()  # no trace there
    page.get_by_text("Choose a tokenizer file").first.wait_for(timeout=30_000)
    wait_idle(page)
    page.get_by_role("radio", name="The tokenizer trained in the sidebar").click()  # and back
    page.get_by_text(heading).first.wait_for(timeout=30_000)
    press_next()  # word 6
    page.get_by_test_id("stSidebar").get_by_text("BPE", exact=True).click()  # another algorithm
    page.get_by_text(re.compile(r"BPE trained on")).first.wait_for(timeout=30_000)
    press_next()  # word 7
    page.get_by_test_id("stSidebar").get_by_role("link", name=re.compile("Train")).first.click()  # away and back
    page.get_by_text(re.compile(r"Step \d+ of \d+")).first.wait_for(timeout=30_000)
    wait_idle(page)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Encoder playground").click()
    page.get_by_text(heading).first.wait_for(timeout=30_000)
    press_next()  # word 8
    assert "Word 8 of 10" in page.get_by_text(heading).first.inner_text()
    check(page, "playground-keys-after-redraws")


def test_quiz_link_opens_ask_first_mode_and_play_stops_at_hidden_merges(server, page):
    visit(page, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=1&quiz=1", "which pair merges next?", 60_000)
    assert "quiz=1" in page.url and "quiz=1" in _share_link(page)
    page.get_by_role("button", name="Reveal the merge").click()
    page.get_by_text("##g + ##s → ##gs").first.wait_for(timeout=15_000)
    page.get_by_role("button", name="Play").click()
    page.get_by_text("Step 2 of 9:  which pair merges next?").first.wait_for(timeout=15_000)
    page.wait_for_timeout(2500)
    assert page.get_by_text("Step 2 of 9:  which pair merges next?").count() == 1  # Play waited at the hidden merge
    page.reload()
    page.get_by_text("which pair merges next?").first.wait_for(timeout=30_000)  # a reload keeps quiz mode
    wait_idle(page)
    follow(page, "Corpora and notes", "Sample corpora")
    follow(page, "Train step by step", "which pair merges next?")  # so does switching pages
    assert "quiz=1" in page.url
    check(page, "train-quiz")


def test_an_open_panel_stays_open_through_steps_the_quiz_and_a_page_switch(server, page):
    """A teacher opens the candidate table and shows all pairs; stepping, a hidden quiz step and a
    visit to another page keep it open, and it always shows the step on screen."""
    visit(page, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=2", "h + ##u → hu", 60_000)
    wait_idle(page)
    table = page.locator('[data-testid="stExpander"]').filter(has_text="Candidate table")
    assert table.locator('[data-testid="stDataFrame"]').count() == 0  # closed: nothing drawn
    table.get_by_text("Candidate table").click()
    table.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=15_000)
    table.get_by_role("radio", name="all").click()
    page.get_by_text("candidates shown from every pair").first.wait_for(timeout=15_000)
    page.get_by_role("button", name="Next").click()
    page.get_by_text("hu + ##gs → hugs").first.wait_for(timeout=15_000)
    wait_idle(page)
    assert table.locator('[data-testid="stDataFrame"]').count() == 1
    page.get_by_text("Ask first (quiz)").click()
    page.get_by_text("which pair merges next?").first.wait_for(timeout=15_000)
    page.get_by_role("button", name="Reveal the merge").click()
    page.get_by_text("hu + ##gs → hugs").first.wait_for(timeout=15_000)
    wait_idle(page)
    assert table.locator('[data-testid="stDataFrame"]').count() == 1  # still open after the hidden step
    page.get_by_text("Ask first (quiz)").click()
    wait_idle(page)
    follow(page, "Corpora and notes", "Sample corpora")
    follow(page, "Train step by step", "hu + ##gs → hugs")
    wait_idle(page)
    table.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=15_000)  # and after another page
    assert table.get_by_role("radio", name="all").get_attribute("aria-checked") == "true"  # still "all"
    check(page, "train-panel-kept")


def test_switching_the_algorithm_starts_at_step_1(server, page):
    visit(page, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=9", "Step 9 of 9", 60_000)
    page.locator('[data-testid="stSidebar"]').get_by_text("BPE", exact=True).click()
    page.get_by_text("u + g → ug").first.wait_for(timeout=30_000)
    assert "Step 1 of" in header(page)


def _fresh_page(browser, width, height, scheme):
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    return context, pg


def _bottom(locator) -> float:
    box = locator.bounding_box()
    assert box is not None, locator
    return box["y"] + box["height"]


SCREENS = [(1280, 720, "light"), (1280, 720, "dark"), (1920, 1080, "light"), (1920, 1080, "dark")]


@pytest.mark.parametrize("width,height,scheme", SCREENS)
def test_presenter_mode_puts_the_step_on_one_projector_screen(server, browser, width, height, scheme):
    context, pg = _fresh_page(browser, width, height, scheme)
    visit(pg, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=2&present=1", "h + ##u → hu")
    wait_idle(pg)
    assert pg.locator('[data-testid="stSidebar"]').get_attribute("data-collapsed") == "true"
    above_the_fold = [pg.locator("h2").filter(has_text="Step 2 of 9").first,  # the heading
                      pg.get_by_text("15 / (15 × 36) = 1/36 ≈ 0.0278").first,  # the arithmetic
                      pg.locator('[data-testid="stVegaLiteChart"]').first,  # the candidate chart
                      pg.locator(".wpl-row").first]  # the corpus before → after
    for element in above_the_fold:
        assert _bottom(element) <= height, element
    sizes = pg.locator('[data-testid="stVegaLiteChart"]').first.evaluate(
        "c => Array.from(c.querySelectorAll('svg text')).map(t => parseFloat(getComputedStyle(t).fontSize))")
    assert sizes and min(sizes) >= 16, sizes  # every label of the chart, from the back of the room
    check(pg, f"presenter-{width}x{height}-{scheme}")
    context.close()


def test_presenter_mode_shares_in_one_click_and_toggles_off(server, page):
    visit(page, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=3&present=1", "hu + ##gs → hugs")
    wait_idle(page)
    page.get_by_role("button", name="Share").click()
    page.locator('[data-testid="stPopoverBody"] img').first.wait_for(timeout=15_000)  # the QR code, at once
    page.keyboard.press("Escape")
    link = _share_link(page)
    assert "present=1" in link and "step=3" in link
    page.get_by_text("Presenter mode").click()
    page.locator("h1").filter(has_text="Train step by step").wait_for(timeout=15_000)
    wait_idle(page)
    assert "present=" not in page.url and "step=3" in page.url
    check(page, "presenter-off")


@pytest.mark.parametrize("width,height,scheme", SCREENS)
def test_the_quiz_fits_one_projector_screen(server, browser, width, height, scheme):
    context, pg = _fresh_page(browser, width, height, scheme)
    present = "&present=1" if scheme == "dark" else ""  # the quiz in both modes
    visit(pg, server.url + f"/?corpus=english-paragraphs&algorithm=wordpiece&step=3&quiz=1{present}",
          "which pair merges next?")
    wait_idle(pg)
    candidates = pg.locator('[data-testid="stTable"], [data-testid="stDataFrame"]').first
    assert _bottom(pg.get_by_role("button", name="Reveal the merge")) <= height
    assert _bottom(candidates) <= height
    check(pg, f"quiz-{width}x{height}-{scheme}{'-presenter' if present else ''}")
    context.close()


def test_a_newcomer_meets_the_introduction_the_glossary_and_the_code(server, browser, tmp_path):
    context, pg = _fresh_page(browser, 1280, 720, "light")
    visit(pg, server.url + "/?corpus=course-toy&algorithm=wordpiece&step=1", "##g + ##s → ##gs")
    wait_idle(pg)
    assert pg.get_by_text("New here?").count() == 1
    check(pg, "intro-1280x720")
    pg.get_by_role("button", name="Got it").click()
    pg.get_by_text("New here?").wait_for(state="detached", timeout=15_000)
    wait_idle(pg)  # the rerun's stale elements gone: a loaded machine showed the old Glossary beside the new
    pg.get_by_role("button", name="Glossary").click()
    pg.locator('[data-testid="stPopoverBody"]').get_by_text("Tokens per word").first.wait_for(timeout=15_000)
    pg.keyboard.press("Escape")
    pg.get_by_text("The algorithm in code").first.click()
    pg.get_by_text("count(##g ##s) = 5").first.wait_for(timeout=15_000)
    with pg.expect_download(timeout=30_000) as info:
        pg.get_by_role("button", name="Handout (HTML)").click()
    info.value.save_as(tmp_path / "handout.html")
    text = (tmp_path / "handout.html").read_text(encoding="utf-8")
    assert "5 / (20 × 5) = 1/20" in text and "1/36" in text and "<script" not in text
    check(pg, "code-expander-1280x720")
    handout_page = context.new_page()
    handout_page.goto((tmp_path / "handout.html").as_uri())
    handout_page.screenshot(path=os.path.join(SHOTS, "handout.png"), full_page=True)
    context.close()


def test_the_playground_links_a_token_to_the_step_that_made_it(server, page):
    visit(page, server.url + "/playground?corpus=course-toy&algorithm=wordpiece&text=hugs", "Word 1 of 1")
    link = page.get_by_role("link", name="step 3")
    assert "step=3" in link.get_attribute("href")
    page.goto(link.get_attribute("href"))
    page.get_by_text("Step 3 of 9").first.wait_for(timeout=60_000)
    check(page, "token-origin-step")


def test_the_playground_keeps_the_text_and_the_special_tokens_when_the_tokenizer_changes(server, page):
    visit(page, server.url + "/playground?corpus=course-toy", "How each word was cut")
    wait_idle(page)
    box = page.get_by_label("Text (the first 20,000 characters are encoded)")
    box.fill("my own words here")
    box.press("Control+Enter")
    wait_idle(page)
    page.get_by_role("radio", name="A tokenizer file (tokenizer.json, vocab.txt, .tiktoken)").click()
    page.get_by_text("Choose a tokenizer file").first.wait_for(timeout=30_000)
    wait_idle(page)
    page.get_by_role("radio", name="The tokenizer trained in the sidebar").click()
    page.get_by_text("How each word was cut").first.wait_for(timeout=30_000)
    wait_idle(page)
    assert page.evaluate("document.querySelector('textarea').value") == "my own words here"
    assert page.evaluate("document.querySelector('input[type=checkbox]').checked")  # Add special tokens: still on
    assert "special=0" not in page.url and "text=my+own+words+here" in page.url
    check(page, "playground-state-kept")


def test_compare_and_playground_show_exactly_what_the_tokenizers_did(server, page, tmp_path):
    # A word-count file with a header line: trained on, and the header named in the sidebar.
    visit(page, server.url + "/compare?corpus=upload&heldout=hug%20mug", "Choose a .txt or .tsv file")
    counts = tmp_path / "counts.tsv"
    counts.write_text("word\tcount\nhug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n", encoding="utf-8")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(counts))
    page.get_by_text("Merge timelines, aligned by step").first.wait_for(timeout=60_000)
    wait_idle(page)
    assert page.locator('[data-testid="stSidebar"]').get_by_text("was read as a header line and skipped").count() == 1
    assert page.get_by_text("As learned: BPE 19 tokens, WordPiece 21.").count() == 1  # not 19 against 16 spellings
    titles = page.locator(".wpl-text .wpl-chip").evaluate_all("cs => cs.map(c => c.title)")
    # BPE's chips, then WordPiece's: each token by its own id (BPE leaves the unknown m alone, WordPiece the word)
    assert titles == ["hug · id 14", "[UNK] (unknown token) for 'm' · id 1", "ug · id 12",
                      "hug · id 15", "[UNK] (unknown token) for 'mug' · id 1"], titles
    legend = page.locator('[data-testid="stVegaLiteChart"]').last.evaluate(
        "c => Array.from(c.querySelectorAll('svg text')).map(t => t.textContent)")
    assert "WordPiece: word starts" in legend and "WordPiece: ## pieces" in legend  # full labels
    fills = page.locator('[data-testid="stVegaLiteChart"]').last.evaluate(
        "c => new Set(Array.from(c.querySelectorAll('svg path[aria-roledescription=\"bar\"], svg g.mark-rect path'))"
        ".map(p => p.getAttribute('fill'))).size")
    assert fills >= 3
    check(page, "compare-upload-header")
    # Byte-level BPE: the space Ġ encodes is drawn as the token's ␣, and nothing is struck through.
    visit(page, server.url + "/playground?corpus=english-paragraphs&algorithm=bpe&pre_tokenizer=byte-level"
          "&specials=endoftext&vocab_size=300&byte_alphabet=1&text=Hello%20%F0%9F%98%80%20world", "How each word was cut")
    wait_idle(page)
    text = page.locator(".wpl-text").first
    assert text.locator(".wpl-skipped").count() == 0
    assert any(t.startswith("␣") for t in text.locator(".wpl-chip").all_inner_texts())
    check(page, "playground-byte-level")
    # A merges.txt is recognised by its content and refused with the reason.
    page.get_by_role("radio", name="A tokenizer file (tokenizer.json, vocab.txt, .tiktoken)").click()
    merges = tmp_path / "merges.txt"
    merges.write_text("#version: 0.2\nu g\nh ug\n", encoding="utf-8")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').last.set_input_files(str(merges))
    page.get_by_text("is a merges.txt").first.wait_for(timeout=30_000)
    check(page, "playground-merges-refused")


IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"  # connected, and no script running


def test_pasted_and_uploaded_corpora_come_back_after_a_restart(browser, tmp_path):
    """The students' own corpora are kept in the data directory (WORDPIECE_LAB_DATA) by digest and named in the
    link: after the server restarts on the same folder, an open tab's next full run and a reload open the same
    corpus. The upload is over 1 MB, sent as a browser sends it (Streamlit's server spools it to a temporary file).

    (An open tab's first click after the restart runs the whole app as its link says: the new server's first run
    of that session. The tab goes on from there. Until that run, Streamlit drops a click inside a fragment, such
    as Next: the new server has not seen the fragment.)"""
    text = "low lower lowest newer newest wider widest\n" * 3
    big = tmp_path / "big.txt"
    with open(big, "w", encoding="utf-8") as fh:
        for i in range(30_000):
            fh.write(" ".join(f"{w}{(i * 7 + j) % 1000}" for j, w in enumerate(("token", "merge", "pair", "count"))) + "\n")
    assert big.stat().st_size > 1_000_000
    data = str(tmp_path / "data")
    first = StreamlitServer(data)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    tabs = {"the pasted text": context.new_page(), "big.txt": context.new_page()}
    for pg in tabs.values():
        pg.errors = []
        pg.on("pageerror", lambda e, pg=pg: pg.errors.append(str(e)))
    pasted, uploaded = tabs.values()
    try:
        visit(pasted, first.url + "/?corpus=paste", "Paste some text")
        box = pasted.locator('[data-testid="stSidebar"] textarea')
        box.fill(text)
        box.press("Control+Enter")
        pasted.get_by_text("the pasted text: 7 distinct words").first.wait_for(timeout=60_000)
        check(pasted, "paste-sidebar-1280x720")
        visit(uploaded, first.url + "/?corpus=upload", "Choose a .txt or .tsv file")
        uploaded.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(big))
        uploaded.get_by_text("big.txt: 4,000 distinct words").first.wait_for(timeout=60_000)
        check(uploaded, "upload-over-1-MB")
        assert all("corpus_id=" in pg.url for pg in tabs.values())
    finally:
        first.stop()
    second = StreamlitServer(data, port=first.port)  # the same address: the open tabs reconnect to it
    try:
        for name, pg in tabs.items():  # an open tab: its first click runs the app as its link says; then it goes on
            bpe = pg.locator('[data-testid="stSidebar"]').get_by_text("BPE", exact=True)
            pg.wait_for_function(IDLE, timeout=60_000)  # reconnected
            bpe.click()
            pg.wait_for_timeout(1000)
            pg.wait_for_function(IDLE, timeout=60_000)
            assert pg.get_by_text(f"{name}: ").filter(has_text="WordPiece").count() >= 1
            bpe.click()
            pg.get_by_text(f"{name}: ").filter(has_text="BPE").first.wait_for(timeout=60_000)
            check(pg, "after-restart-" + name.split()[-1])
        for name, pg in tabs.items():
            pg.reload()
            pg.get_by_text(f"{name}: ").filter(has_text="BPE").first.wait_for(timeout=60_000)
            check(pg, "after-restart-reload-" + name.split()[-1])
        assert pasted.evaluate("document.querySelector('[data-testid=stSidebar] textarea').value") == text
        assert uploaded.get_by_text("Using big.txt (1.").count() == 1  # the link's file, named in the sidebar
    finally:
        context.close()
        second.stop()
