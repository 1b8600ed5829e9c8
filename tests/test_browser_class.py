"""A class in Debian's Chromium on the Train page: the teacher's projector (1280×720) and four students (390×844)
who opened the room on the Train page (`/?room=CODE`: *Open the full step*, or the code typed in the sidebar; the
phones' own page is test_browser_phone_room.py's) on one real server, through four hidden steps (everyone votes,
*Show answers*, *Reveal the merge*, *Next*).

One class, once: no step is retried. Each teacher's click is pressed once and must be acted on within
CLICK_SECONDS; each phone must show each step by itself within FOLLOW_SECONDS; a failure says which page (the
projector, or phone N with its nickname), at which step, and what that page shows instead.

No student's page may be left behind: after the votes every page is still on the class's step, and after each
*Next* every page shows the new step by itself. (An earlier version lost 2 of 32 follows this way: a page kept
an old step when Streamlit dropped a run's messages and the slider sent its old value back.) The projector's
buttons must not move under the pointer: after *Show answers* its row holds one *Show answers*, one *Vote
again* and one *Reveal the merge*, and no element the browser kept from before (before: a kept, focused
*Show answers* vanished on the next press, the row shifted between the press and the release, and *Reveal the
merge* got no click)."""

from __future__ import annotations

import os
import re
import time

import pytest

from browser import CHROMIUM, SHOTS, full_link, start_room, tab, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it", allow_module_level=True)

STUDENTS = 4
STEPS = 4
FOLLOW_SECONDS = 15  # a phone shows the teacher's step (or its own vote) within this; nine pages on two cores
CLICK_SECONDS = 10  # a teacher's click is acted on within this (one press)
ROOM_BUTTONS = ("Show answers", "Vote again", "Reveal the merge")


def shown_step(page) -> int | None:
    found = page.locator("h2").filter(has_text=re.compile(r"Step \d+ of")).first
    if not found.count():
        return None
    return int(re.search(r"Step (\d+) of", found.inner_text())[1])


def heading(page) -> str:
    found = page.locator("h2").filter(has_text=re.compile(r"Step \d+ of")).first
    return found.inner_text().strip() if found.count() else "no step heading"


def named(pages: dict, page) -> str:
    return pages[page]


def wait_all(pages: dict, phones: list, what: str, step: int, check, seconds: float) -> None:
    """Wait until `check(page)` holds on every phone; fail naming the phones where it did not within `seconds`."""
    deadline = time.time() + seconds
    late = [p for p in phones if not check(p)]
    while late and time.time() < deadline:
        time.sleep(0.25)
        late = [p for p in late if not check(p)]
    teacher = next(p for p, name in pages.items() if name == "the projector")
    assert not late, (f"step {step}: {what} not within {seconds:g} s on "
                      + "; ".join(f"{named(pages, p)} (it shows: {heading(p)})" for p in late)
                      + f" (the projector shows: {heading(teacher)})")


@pytest.fixture
def pages(browser):
    """The tabs a test opens (page → its name in messages); screenshots of each in
    artifacts/screenshots/class-*.png when it ends."""
    opened: dict = {}
    yield opened
    for i, p in enumerate(opened):
        try:
            p.screenshot(path=os.path.join(SHOTS, f"class-{i}.png"), full_page=True)
        except Exception:  # a page that is gone has no picture
            pass


def press(teacher, name: str, until, step: int) -> None:
    """The teacher presses a button once; what it shows must follow within CLICK_SECONDS."""
    teacher.get_by_role("button", name=name).first.click()
    try:
        until.first.wait_for(timeout=CLICK_SECONDS * 1000)
    except Exception:  # a Playwright timeout: say which click, where
        pytest.fail(f"the projector, step {step}: one press of {name!r} was not acted on within {CLICK_SECONDS} s "
                    f"(it shows: {heading(teacher)}; its room buttons: {room_buttons(teacher)})", pytrace=False)


def room_buttons(teacher) -> list[str]:
    """The room's buttons on the projector, as drawn (a kept or stale element says so)."""
    return teacher.evaluate("""labels => Array.from(document.querySelectorAll('[data-testid="stButton"]'))
        .map(b => [b.innerText.split('\\n').map(s => s.trim()).filter(s => labels.includes(s))[0], b])
        .filter(([label]) => label)
        .map(([label, b]) => {
            const box = b.closest('[data-testid="stElementContainer"]');
            const flags = [box && box.getAttribute('data-retained') === 'true' ? 'kept' : '',
                           box && box.getAttribute('data-stale') === 'true' ? 'stale' : '',
                           b.querySelector('button') && b.querySelector('button').disabled ? 'disabled' : '']
                .filter(Boolean);
            return label + (flags.length ? ' (' + flags.join(', ') + ')' : '');
        })""", list(ROOM_BUTTONS))


def test_four_students_on_the_train_page_follow_the_teacher_through_four_hidden_steps(server, browser, pages):
    teacher = tab(browser, {"width": 1280, "height": 720})
    pages[teacher] = "the projector"
    link = full_link(start_room(teacher, server.url))  # the Train page's room (a laptop's; phones: test_browser_phone_room.py)

    phones = [tab(browser, {"width": 390, "height": 844}, phone=True) for _ in range(STUDENTS)]
    for p in phones:
        p.goto(link)
    for i, p in enumerate(phones):
        p.get_by_text("which pair merges next?").first.wait_for(timeout=90_000)
        wait_idle(p)
        nickname = re.search(r"you are (.+)$", p.get_by_text(re.compile("you are")).first.inner_text().strip())
        token = re.search(r"student=([A-Za-z0-9_-]{6})", p.url)  # (the server's log names sessions by it)
        pages[p] = f"phone {i + 1} ({nickname[1] if nickname else '?'}, student={token[1] if token else '?'}…)"

    follows = []
    for step in range(1, STEPS + 1):
        wait_all(pages, phones, f"the step {step} view", step, lambda p: shown_step(p) == step, FOLLOW_SECONDS)
        wait_all(pages, phones, "the vote", step,
                 lambda p: p.get_by_test_id("stRadio").filter(has_text="which pair merges next?").count() > 0,
                 FOLLOW_SECONDS)
        for p in phones:  # each votes for the first candidate, as fast as the class can
            vote = p.get_by_test_id("stRadio").filter(has_text="which pair merges next?").first
            first = [line for line in vote.inner_text().splitlines() if line.strip()][1]
            vote.get_by_text(first, exact=True).first.click()
        wait_all(pages, phones, "'Your vote is in'", step, lambda p: p.get_by_text("Your vote is in").count() > 0,
                 FOLLOW_SECONDS)
        count = teacher.get_by_text(f"{STUDENTS} of {STUDENTS} answered").first
        try:
            count.wait_for(timeout=FOLLOW_SECONDS * 1000)
        except Exception:
            pytest.fail(f"the projector, step {step}: '{STUDENTS} of {STUDENTS} answered' not within "
                        f"{FOLLOW_SECONDS} s", pytrace=False)
        time.sleep(1.5)
        wait_all(pages, phones, "still the class's step after the votes", step, lambda p: shown_step(p) == step, 0)

        press(teacher, "Show answers", teacher.get_by_text(re.compile("^Round 1:")), step)
        wait_idle(teacher)
        assert sorted(room_buttons(teacher)) == sorted(["Show answers (disabled)", "Vote again", "Reveal the merge"]), \
            f"the projector, step {step}, after 'Show answers': its room buttons are {room_buttons(teacher)}"
        press(teacher, "Reveal the merge",
              teacher.locator("h2").filter(has_text=re.compile(rf"Step {step} of 9: .* → ")), step)
        wait_idle(teacher)
        deadline = time.time() + CLICK_SECONDS  # (a run under way keeps them, stale, until it ends)
        while room_buttons(teacher) and time.time() < deadline:
            time.sleep(0.25)
        assert not room_buttons(teacher), \
            f"the projector, step {step}, after the reveal: room buttons still drawn: {room_buttons(teacher)}"
        if step < STEPS:
            sent = time.time()
            press(teacher, "Next", teacher.get_by_text(f"Step {step + 1} of 9"), step)
            wait_all(pages, phones, f"the step {step + 1} view after the teacher's Next", step + 1,
                     lambda p: p.get_by_text("which pair merges next?").count() > 0 and shown_step(p) == step + 1,
                     FOLLOW_SECONDS)
            follows.append(time.time() - sent)
    print(f"the last phone showed the next step {', '.join(f'{s:.1f}' for s in follows)} s after the teacher's "
          "Next was pressed (polled every 0.25 s)")
    for p, name in pages.items():
        assert not p.errors, f"{name}: {p.errors}"
