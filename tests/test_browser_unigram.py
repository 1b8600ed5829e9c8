"""Unigram in Debian's Chromium: a toy round on one projector screen (presenter mode, light and dark), the
sidebar's switch to Unigram applying the corpus's suggestions, ask first, and Compare with all three."""

import os

import pytest

from browser import CHROMIUM, SHOTS, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it", allow_module_level=True)


def _page(browser, width, height, scheme="light"):
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    return context, pg


def _done(pg, name):
    wait_idle(pg)
    pg.screenshot(path=os.path.join(SHOTS, f"{name}.png"))
    assert pg.locator('[data-testid="stException"]').count() == 0, pg.locator('[data-testid="stException"]').first.inner_text()
    assert not pg.errors, pg.errors
    with open(os.path.join(SHOTS, "streamlit.log"), encoding="utf-8", errors="replace") as fh:
        log = fh.read()
    assert "Traceback" not in log, log[log.index("Traceback"):][:3000]


def _bottom(locator) -> float:
    box = locator.bounding_box()
    assert box is not None, locator
    return box["y"] + box["height"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_toy_round_fits_one_projector_screen(server, browser, scheme):
    context, pg = _page(browser, 1280, 720, scheme)
    pg.goto(server.url + "/?corpus=course-toy&algorithm=unigram&present=1&step=1")
    pg.get_by_text("Round 1 of 5").first.wait_for(timeout=60_000)
    wait_idle(pg)
    for element in (pg.locator("h2").filter(has_text="Round 1 of 5").first,
                    pg.get_by_text("−log(17/210) (2.514)").first,  # the arithmetic
                    pg.get_by_text("169.80").first,  # the loss, the course's
                    pg.locator('[data-testid="stVegaLiteChart"]').first):  # the candidates
        assert _bottom(element) <= 720, element
    _done(pg, f"unigram-presenter-1280x720-{scheme}")
    context.close()


def test_switching_to_unigram_applies_the_corpus_suggestions_and_asks_first(server, browser):
    context, pg = _page(browser, 1440, 1600)
    pg.goto(server.url + "/?corpus=course-toy&algorithm=wordpiece&step=3")
    pg.locator("h2").filter(has_text="Step 3 of").first.wait_for(timeout=60_000)
    pg.locator('[data-testid="stSidebar"]').get_by_text("Unigram", exact=True).click()
    pg.get_by_text("Round 1 of 5").first.wait_for(timeout=30_000)  # the course's loop, from its 15-piece seed
    wait_idle(pg)
    assert "algorithm=unigram" in pg.url and "unigram_rule=course" in pg.url and "whole_words=0" in pg.url
    pg.get_by_text("Ask first (quiz)").click()
    pg.get_by_text("which piece costs least to remove?").first.wait_for(timeout=30_000)
    pg.get_by_text("ug", exact=True).first.click()  # the cheapest of the two choices (hug, ug): their costs differ
    pg.get_by_role("button", name="Reveal the round").click()
    pg.get_by_text("You chose ug: right, nothing costs less to remove").first.wait_for(timeout=30_000)
    _done(pg, "unigram-ask-first")
    context.close()


def test_compare_with_all_three_on_a_phone(server, browser):
    context, pg = _page(browser, 390, 844)
    pg.goto(server.url + "/compare?corpus=course-sentences&algorithms=bpe,wordpiece,unigram")
    pg.get_by_text("Token lengths in each vocabulary").first.wait_for(timeout=120_000)
    wait_idle(pg)
    assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")  # no sideways scrolling
    _done(pg, "unigram-compare-phone")
    context.close()
