"""The page "Fair to every language?" in Debian's Chromium: the answer, the chart and the article's chips on
screen; a mix trained from the page moves the premiums (and the page says how); on a phone the answer is in the
first screen, without scrolling."""

import os
import re

import pytest

from browser import CHROMIUM, SHOTS, tab, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it", allow_module_level=True)

LINK = "/fairness?corpus=udhr-web&algorithm=bpe&tokenizers=r50k_base,cl100k_base,trained"
CHART = ".wpl-premium img:visible"  # the chart, drawn on the server as SVG, an image (a screen's or a phone's)


def _settled(page, name):
    wait_idle(page, timeout=120_000)
    page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert not page.errors, page.errors


def test_the_answer_the_chart_and_the_chips_then_a_mix_moves_hindi(server, browser):
    page = tab(browser, {"width": 1280, "height": 720})
    page.goto(server.url + LINK)
    page.get_by_text("pays the most").first.wait_for(timeout=120_000)
    page.locator(CHART).first.wait_for(timeout=60_000)
    _settled(page, "fairness-1280")
    assert "Through r50k_base (GPT-2" in page.get_by_text("pays the most").first.inner_text()
    # The chart: the screen's drawing, inside its column, one mark a language and tokenizer, said in words for a screen
    # reader; the figures in the table under it, each header saying what it means.
    chart = page.locator(".wpl-premium img.wpl-wide")
    assert chart.is_visible() and not page.locator(".wpl-premium img.wpl-narrow").is_visible()
    width = chart.evaluate("i => [i.getBoundingClientRect().width, i.closest('[data-testid=stVerticalBlock]')"
                           ".getBoundingClientRect().width, i.complete && i.naturalWidth]")
    assert 400 < width[0] <= width[1] and width[2] > 400  # decoded, drawn within its column
    assert page.locator(".wpl-premium").get_attribute("data-points") == str(40 * 3)
    assert chart.get_attribute("alt").startswith("Chart: each language's token premium")
    table = page.locator("table.wpl-table")
    assert table.locator("tbody tr").count() == 40 * 3
    assert "over English's tokens" in table.locator("th", has_text="premium").get_attribute("title")
    hindi_gpt2 = table.locator("tr", has_text="Hindi").filter(has_text="r50k_base").inner_text()
    assert re.search(r"Hindi\s+[0-9]+\.[0-9]{2}\s+Devanagari", hindi_gpt2), hindi_gpt2  # premium to 2 decimals
    blocks = page.locator(".wpl-html")
    assert blocks.count() == 3  # English, the dearest language, Hindi
    hindi = blocks.nth(2)
    assert hindi.locator(".wpl-bytes").count() > 20  # Devanagari characters cut into byte tokens, one chip each
    assert "à¤" not in hindi.inner_text()  # drawn as characters, never as byte letters
    box = hindi.bounding_box()
    assert box and box["width"] < 500  # the chips wrap inside their column (1280 px: three columns)

    page.get_by_role("button", name="Every language equally").click()
    page.get_by_text("Since the training before").first.wait_for(timeout=180_000)
    _settled(page, "fairness-1280-equal-mix")
    line = page.get_by_text("Since the training before").first.inner_text()
    assert "Hindi" in line and "→" in line


def test_on_a_phone_the_answer_is_on_the_first_screen(server, browser):
    page = tab(browser, {"width": 390, "height": 844}, phone=True)
    page.goto(server.url + LINK)
    answer = page.get_by_text("pays the most").first
    answer.wait_for(timeout=120_000)
    _settled(page, "fairness-phone")
    page.evaluate("window.scrollTo(0, 0)")
    box = answer.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844
    # The chart: the phone's drawing, as wide as the screen at most (never scaled down to unreadable type).
    chart = page.locator(".wpl-premium img.wpl-narrow")
    assert chart.is_visible() and not page.locator(".wpl-premium img.wpl-wide").is_visible()
    drawn, wanted = chart.evaluate("i => [i.getBoundingClientRect().width, +i.getAttribute('width')]")
    assert drawn == wanted and drawn <= 390 - 2 * 16
    # The table scrolls inside its box, sideways too: the page itself never scrolls sideways.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.locator(".wpl-table-box")
    assert box.evaluate("b => b.scrollWidth > b.clientWidth && b.getBoundingClientRect().right <= 390")


def _edit_copies(page, language: str, copies: int) -> None:
    """Type `copies` into the mix editor's cell for `language`, and leave the cell open (no Enter)."""
    row = page.evaluate("(name) => [...document.querySelectorAll('[id^=glide-cell-0-]')]"
                        ".find(e => e.textContent == name).id.split('-').pop()", language)
    grid = page.locator("[data-testid=stExpander] [data-testid=stDataFrame]").first
    box = grid.bounding_box()
    page.mouse.move(box["x"] + 10, box["y"] + 10)
    page.mouse.wheel(0, max(0, box["y"] + 35 * (int(row) + 1) - 600))
    page.wait_for_timeout(400)
    box = grid.bounding_box()
    page.mouse.dblclick(box["x"] + box["width"] - 60, box["y"] + 35 * (int(row) + 1) + 17)
    page.wait_for_timeout(400)
    page.keyboard.type(str(copies))
    page.wait_for_timeout(200)


def test_a_mix_of_ones_own_counts_an_open_edit_and_survives_kill_9(browser, tmp_path):
    """The web's mix, then the same with Hindi at 30 copies typed into the editor and the button clicked at once
    (the cell still open): Hindi's premium falls, and the page says so. Then kill -9 of the server and a start on
    the same data folder: the page's link opens the same mix and training."""
    import signal

    from browser import StreamlitServer

    data = str(tmp_path / "data")
    server = StreamlitServer(data_dir=data)
    try:
        page = tab(browser, {"width": 1280, "height": 900})
        page.goto(server.url + "/fairness?tokenizers=r50k_base,trained")
        page.get_by_text("pays the most").first.wait_for(timeout=120_000)
        page.get_by_role("button", name="As the web has them", exact=True).click()
        page.get_by_text("languages as the web has them, ").first.wait_for(timeout=180_000)
        wait_idle(page, timeout=120_000)
        page.get_by_text("Or make your own mix").click()  # its editor is drawn when it opens
        page.locator("[data-testid=stExpander] [data-testid=stDataFrame]").first.wait_for(timeout=60_000)
        wait_idle(page)
        _edit_copies(page, "Hindi", 30)
        page.get_by_role("button", name="Train the sidebar's tokenizer on this mix").click()
        page.get_by_text("on udhr-mix").first.wait_for(timeout=180_000)
        wait_idle(page, timeout=120_000)
        before = page.get_by_text("Through your").first.inner_text()
        moved = re.search(r"Hindi ([0-9.]+)× → ([0-9.]+)×", before)
        assert moved and float(moved[1]) > 2 * float(moved[2]), before  # the open edit was in the mix
        # The editor, drawn again after the training, shows the mix trained (not the preset it started from).
        page.locator("[data-testid=stExpander] [data-testid=stDataFrame]").first.wait_for(timeout=60_000)
        row = page.evaluate("(name) => [...document.querySelectorAll('[id^=glide-cell-0-]')]"
                            ".find(e => e.textContent == name).id.split('-').pop()", "Hindi")
        assert page.locator(f"#glide-cell-2-{row}").inner_text() == "30"
        link = page.url
        assert "corpus=upload" in link
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(10)
        server.log.close()
        server = StreamlitServer(data_dir=data, port=server.port)
        again = tab(browser, {"width": 1280, "height": 720})
        again.goto(link)
        again.get_by_text("on udhr-mix").first.wait_for(timeout=180_000)
        _settled(again, "fairness-own-mix-after-kill-9")
        after = again.get_by_text("Through your").first.inner_text()
        assert after.split("Since")[0].strip() == before.split("Since")[0].strip()  # the same training
    finally:
        server.stop()


def test_in_the_dark_theme_the_tables_header_is_on_the_pages_background(server, browser):
    """The table's header stays on top of its rows as they scroll, on the page's own background in either theme
    (html_table.BACKGROUND: Streamlit's themes' colours)."""
    for scheme in ("dark", "light"):
        page = tab(browser, {"width": 1280, "height": 720}, scheme=scheme)
        page.goto(server.url + "/fairness?corpus=course-toy&tokenizers=r50k_base&languages=English,Hindi")
        page.locator("table.wpl-table").first.wait_for(timeout=120_000)
        wait_idle(page, timeout=120_000)
        header, main = page.evaluate("""() => {
            const th = document.querySelector('.wpl-table th');
            let e = th.closest('.wpl-table-box');  // the first background under the table: the page's
            while (e && ['rgba(0, 0, 0, 0)', 'transparent'].includes(getComputedStyle(e).backgroundColor)) e = e.parentElement;
            return [getComputedStyle(th).backgroundColor, e ? getComputedStyle(e).backgroundColor : 'none'];
        }""")
        assert header == main, (scheme, header, main)
        page.context.close()


def test_the_own_mix_keeps_its_edits_and_preset_while_its_panel_is_closed(server, browser):
    """The editor is drawn only while its panel is open (a first visit does not wait for its grid); an edit and the
    preset picked survive closing and opening it again."""
    page = tab(browser, {"width": 1280, "height": 900})
    page.goto(server.url + "/fairness?corpus=course-toy&tokenizers=r50k_base&languages=English,Hindi")
    page.get_by_text("pays the most").first.wait_for(timeout=120_000)
    wait_idle(page, timeout=120_000)
    assert page.locator("[data-testid=stExpander] [data-testid=stDataFrame]").count() == 0  # closed: not drawn
    panel = page.get_by_text("Or make your own mix")
    grid = page.locator("[data-testid=stExpander] [data-testid=stDataFrame]").first
    panel.click()
    grid.wait_for(timeout=60_000)
    wait_idle(page)
    equal = page.locator("[data-testid=stExpander]").get_by_role("radio", name="Every language equally")
    equal.click()
    wait_idle(page)
    _edit_copies(page, "Hindi", 7)
    page.keyboard.press("Enter")
    wait_idle(page)
    hindi = "(name) => [...document.querySelectorAll('[id^=glide-cell-0-]')].find(e => e.textContent == name).id"
    row = page.evaluate(hindi, "Hindi").split("-").pop()
    assert page.locator(f"#glide-cell-2-{row}").inner_text() == "7"
    panel.click()  # closed: the editor goes, its edit is kept
    page.wait_for_function("() => !document.querySelector('[data-testid=stExpander] [data-testid=stDataFrame]')")
    wait_idle(page)
    panel.click()
    grid.wait_for(timeout=60_000)
    wait_idle(page)
    row = page.evaluate(hindi, "Hindi").split("-").pop()
    # 7: the equal preset kept too (the web's has Hindi at 0, and no edit of it was kept)
    assert page.locator(f"#glide-cell-2-{row}").inner_text() == "7" and equal.get_attribute("aria-checked") == "true"
    assert not page.errors, page.errors
