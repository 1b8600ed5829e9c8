"""wordpiece_ui/safe.py in Chromium: text a student sends (a shared link, a pasted corpus, a saved handout)
is drawn as text wherever it lands.

One test per way in. Each opens the page the way a classmate's link does, with a payload that today's
Markdown would turn into a remote image, a 'log in' link, a heading or an event attribute, and checks that
no element was made from it, that no request left the machine (every request to a host other than
this one is recorded and refused), and that the text is on screen as typed. The module's server
(conftest.py) is its own: its first visitor opens a deep link, /playground.
"""

from __future__ import annotations

import os
import re
from urllib.parse import quote, urlsplit

import pytest

from browser import CHROMIUM, SHOTS, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it", allow_module_level=True)

# Upper case: none of it is in the toy corpus' alphabet, so BPE drops it all and the chips draw it as
# one run of text that no token covers (where a blank line used to end the chips' HTML).
PAYLOAD = ("hug\n\n![X](HTTP://EVIL.EXAMPLE/X.PNG) [LOG IN](HTTP://EVIL.EXAMPLE/LOGIN) WWW.EVIL.EXAMPLE "
           "<IMG SRC=HTTP://EVIL.EXAMPLE/I.PNG>\n\n# HEADING")
# A corpus word that the handout's Markdown-to-HTML step made into a link with an event attribute: the
# mouse over it sent the browser to another machine. Pasted with the whitespace-split pre-tokenizer, it
# stays one word, which BPE's last merge makes one token.
HANDOUT_WORD = "[x](http://e.x/\"onmouseover=\"location='http://e.x'\")"
PASTED_WORD = "www.evil.example"


def guarded(browser, scheme: str = "light", height: int = 720):
    """A 1280-wide page that records and refuses every request to another machine (page.outside)."""
    context = browser.new_context(viewport={"width": 1280, "height": height}, color_scheme=scheme, accept_downloads=True)
    page = context.new_page()
    page.outside, page.errors = [], []
    page.on("pageerror", lambda e: page.errors.append(str(e)))

    def route(r):
        parts = urlsplit(r.request.url)
        if parts.scheme in ("file", "data", "blob") or parts.hostname in ("localhost", "127.0.0.1"):
            r.continue_()
        else:
            page.outside.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    return context, page


def made_from_payload(page) -> list[str]:
    """Elements the payload would make: links or media to the other machine, its heading, event attributes."""
    return page.evaluate("""() => {
        const bad = [];
        for (const a of document.querySelectorAll('a')) {
            const href = (a.getAttribute('href') || '').toLowerCase();  // (a heading's own #anchor aside)
            if (!href.startsWith('#') && (href.includes('evil') || href.includes('e.x')) || a.innerText.includes('LOG IN'))
                bad.push(a.outerHTML);
        }
        for (const m of document.querySelectorAll('img, image, iframe, video, audio, source, object, embed')) {
            if (((m.getAttribute('src') || '') + (m.getAttribute('data') || '')).toLowerCase().includes('evil')) bad.push(m.outerHTML);
        }
        for (const h of document.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
            if (h.innerText.includes('HEADING')) bad.push(h.outerHTML);
        }
        for (const e of document.querySelectorAll('*')) {
            for (const at of e.attributes) if (at.name.startsWith('on')) bad.push(e.outerHTML.slice(0, 300));
        }
        return bad;
    }""")


def visible(text: str) -> str:
    """Text as compared on screen: without white space (chips draw spaces as gaps) or word joiners."""
    return re.sub(r"[\s\u2060]", "", text)


def inert(page, name: str) -> None:
    """Nothing made from the payload, nothing fetched from elsewhere, no error; a screenshot."""
    wait_idle(page)
    page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)
    assert made_from_payload(page) == []
    assert page.outside == []
    assert page.locator('[data-testid="stException"]').count() == 0
    assert not page.errors, page.errors


def link(server, path: str, **params: str) -> str:
    return f"{server.url}{path}?" + "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_playground_link_text_stays_text(server, browser, scheme):
    context, page = guarded(browser, scheme)
    page.goto(link(server, "/playground", corpus="course-toy", algorithm="bpe", text=PAYLOAD))
    page.get_by_text("How each word was cut").first.wait_for(timeout=60_000)
    inert(page, f"safe-playground-{scheme}")
    drawn = page.locator(".wpl-text").first.inner_text()
    assert visible(drawn) == visible(PAYLOAD)
    assert page.locator(".wpl-text").first.locator(".wpl-skipped").count() >= 1  # struck through, as typed
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_compare_link_heldout_text_stays_text(server, browser, scheme):
    context, page = guarded(browser, scheme)
    page.goto(link(server, "/compare", corpus="course-toy", heldout=PAYLOAD))
    page.get_by_text("The same words, tokenized by both").first.wait_for(timeout=60_000)
    page.locator(".wpl-text").nth(1).wait_for(timeout=60_000)
    inert(page, f"safe-compare-{scheme}")
    for i in range(2):  # BPE's column and WordPiece's
        assert visible(page.locator(".wpl-text").nth(i).inner_text()) == visible(PAYLOAD)
    context.close()


def test_bad_link_parameters_are_echoed_as_text(server, browser):
    context, page = guarded(browser)
    bad = {"vocab_size": "HTTP://EVIL.EXAMPLE/A", "min_frequency": "www.evil.example", "normalizer": "me@evil.example",
           "algorithm": "<IMG SRC=HTTP://EVIL.EXAMPLE/I.PNG>", "tie_break": "[LOG IN](HTTP://EVIL.EXAMPLE/LOGIN)"}
    page.goto(link(server, "/", corpus="course-toy", **bad))
    page.get_by_text("Step 1 of").first.wait_for(timeout=60_000)
    inert(page, "safe-sidebar-warning")
    warnings = page.locator('[data-testid="stSidebar"] [data-testid="stAlert"]').all_inner_texts()
    for key, value in bad.items():
        assert any(f"{key}='{value}'" in w.replace("\u2060", "") for w in warnings), (key, warnings)
    context.close()


def _train_on_paste(page, server, word: str, times: int) -> int:
    """Paste `word` `times` times as the corpus (kept whole: split at spaces only), train BPE with every merge
    it can make; the number of steps."""
    page.goto(link(server, "/", corpus="paste", algorithm="bpe", vocab_size="300", specials="none", normalizer="none",
                   pre_tokenizer="whitespace-split"))
    box = page.locator(".st-key-paste_text textarea")
    box.wait_for(timeout=60_000)
    box.fill(" ".join([word] * times))
    box.press("Control+Enter")
    page.get_by_text("Step 1 of").first.wait_for(timeout=60_000)
    wait_idle(page)
    heading = page.locator("h2").filter(has_text="Step 1 of").first.inner_text()
    return int(re.search(r"Step 1 of (\d+)", heading)[1])


def test_a_pasted_corpus_word_stays_text_on_the_train_page(server, browser):
    context, page = guarded(browser, height=1600)
    steps = _train_on_paste(page, server, PASTED_WORD, 3)
    page.get_by_role("button", name="Last").click()  # the step that makes the whole word
    page.get_by_text(f"Step {steps} of {steps}").first.wait_for(timeout=30_000)
    inert(page, "safe-corpus-word")
    heading = page.locator("h2").filter(has_text=f"Step {steps} of").first.inner_text()
    assert heading.replace("\u2060", "").endswith(f"→ {PASTED_WORD}")
    assert any(PASTED_WORD == visible(w) for w in page.locator(".wpl-word").all_inner_texts())
    context.close()


def test_the_html_handout_keeps_a_corpus_word_as_text(server, browser, tmp_path):
    context, page = guarded(browser)
    steps = _train_on_paste(page, server, HANDOUT_WORD, 5)
    for bound in ("To step", "From step"):  # the last step: the one that makes the whole word
        page.get_by_label(bound).fill(str(steps))
        page.get_by_label(bound).press("Enter")
        wait_idle(page)
    with page.expect_download(timeout=30_000) as info:
        page.get_by_role("button", name="Handout (HTML)").click()
    saved = tmp_path / "handout.html"
    info.value.save_as(saved)
    assert "A whole word becomes one token" in saved.read_text(encoding="utf-8")
    page.goto(saved.as_uri())
    page.wait_for_load_state("load")
    page.screenshot(path=os.path.join(SHOTS, "safe-handout.png"), full_page=True)
    assert made_from_payload(page) == []
    for element in page.locator("a, code").all():  # the mouse over every link and every piece of code
        element.hover()
    page.wait_for_timeout(500)
    assert page.outside == []
    assert HANDOUT_WORD in page.locator("body").inner_text()
    context.close()
