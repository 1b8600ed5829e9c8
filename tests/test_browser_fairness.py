"""The page "Fair to every language?" in Debian's Chromium: the answer, the chart and the article's chips on
screen; a mix trained from the page moves the premiums (and the page says how); on a phone the answer is in the
first screen, without scrolling."""

import os

import pytest

from browser import CHROMIUM, SHOTS, tab, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it", allow_module_level=True)

LINK = "/fairness?corpus=udhr-web&algorithm=bpe&tokenizers=r50k_base,cl100k_base,trained"
CHART = "[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg"


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


def test_a_mix_of_ones_own_survives_kill_9_and_its_link_brings_it_back(browser, tmp_path):
    """Train on a mix made in the editor (the web's, Hindi added), kill -9 the server, start it again on the same
    data folder: the page's link opens the same mix, named as before, with Hindi's mark in it."""
    import signal

    from browser import StreamlitServer

    data = str(tmp_path / "data")
    server = StreamlitServer(data_dir=data)
    try:
        page = tab(browser, {"width": 1280, "height": 720})
        page.goto(server.url + "/fairness?tokenizers=r50k_base,trained")
        page.get_by_text("pays the most").first.wait_for(timeout=120_000)
        page.get_by_text("Or make your own mix").click()
        page.get_by_role("button", name="Train the sidebar's tokenizer on this mix").click()
        line = page.get_by_text("on udhr-mix").first
        line.wait_for(timeout=180_000)
        wait_idle(page, timeout=120_000)
        link = page.url
        assert "corpus=upload" in link
        before = page.get_by_text("Through your").first.inner_text()
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(10)
        server.log.close()
        server = StreamlitServer(data_dir=data, port=server.port)
        again = tab(browser, {"width": 1280, "height": 720})
        again.goto(link)
        again.get_by_text("on udhr-mix").first.wait_for(timeout=180_000)
        _settled(again, "fairness-own-mix-after-kill-9")
        after = again.get_by_text("Through your").first.inner_text()
        assert after.split("Since")[0].strip() == before.split("Since")[0].strip()  # the same training: the same dearest language
    finally:
        server.stop()
