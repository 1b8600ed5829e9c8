"""The live class room in Debian's Chromium: a teacher's tab (the projector, 1280×720) and three students
(one on a phone, 390×844) on one real server.

Screenshots (artifacts/screenshots/room-*.png): the projector in light and dark, and the phone."""

from __future__ import annotations

import os
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from browser import CHROMIUM, SHOTS, full_link, start_room, tab, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it", allow_module_level=True)

PROJECTOR = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
VOTES = ["##g + ##s", "##u + ##g", "##g + ##s"]  # two right, one wrong


def shot(page, name):
    wait_idle(page)
    page.screenshot(path=os.path.join(SHOTS, f"{name}.png"))
    assert page.locator('[data-testid="stException"]').count() == 0, \
        page.locator('[data-testid="stException"]').first.inner_text()
    assert not page.errors, page.errors


def heading(page) -> str:
    return page.locator("h2").filter(has_text="Step ").first.inner_text()


def test_a_class_room_with_a_teacher_and_three_students(server, browser):
    teacher = tab(browser, PROJECTOR)
    start_room(teacher, server.url)
    teacher.get_by_text("Presenter mode").first.click()  # the projector's layout
    teacher.get_by_test_id("stSidebar").wait_for(state="hidden", timeout=15_000)
    wait_idle(teacher)
    code = re.search(r"Class room ([A-Z2-9]{6})", teacher.get_by_text(re.compile("Class room")).first.inner_text())[1]
    shot(teacher, "room-projector-join")
    # the student link, as the teacher's page shows it under the QR code (the room's phone page); these students
    # open the room on the Train page (*Open the full step*); the token never in the address bar
    phone_link = teacher.locator('[data-testid="stCode"]').filter(has_text="/class/").first.inner_text().strip()
    assert urlsplit(phone_link).path == f"/class/{code}"
    link = full_link(phone_link)
    assert parse_qs(urlsplit(link).query) == {"room": [code]}
    assert "teacher=" not in teacher.url and f"room={code}" in teacher.url

    students = [tab(browser, {"width": 1280, "height": 800}), tab(browser, {"width": 1280, "height": 800}),
                tab(browser, PHONE, phone=True)]
    for s in students:
        s.goto(link)
        s.get_by_text("which pair merges next?").first.wait_for(timeout=60_000)
        wait_idle(s)
        assert "student=" in s.url
    phone = students[2]
    shot(phone, "room-phone-vote")
    # a student shares nothing while the room is open (the class joins from the teacher's code): no Share, no
    # Play over the vote; the vote is above a phone's fold
    for s in students:
        assert s.get_by_role("button", name="Share").count() == 0 and s.get_by_role("button", name="Play").count() == 0
    vote = phone.get_by_test_id("stRadio").filter(has_text="Your vote").first.bounding_box()
    assert vote["y"] + vote["height"] <= PHONE["height"], vote

    for s, pair in zip(students, VOTES):
        s.get_by_test_id("stRadio").get_by_text(pair, exact=True).first.click()
        s.get_by_text(f"Your vote is in: {pair}").first.wait_for(timeout=20_000)
    shot(phone, "room-phone-voted")

    teacher.get_by_text("Join the class: scan").first.click()  # the class has joined: fold the QR code away
    teacher.get_by_text("3 of 3 answered").first.wait_for(timeout=20_000)  # live, without a click
    shot(teacher, "room-projector-count")
    assert teacher.get_by_text("Round 1:").count() == 0  # the spread stays hidden until shown

    # a reload keeps the student's name and vote
    name = students[1].get_by_text(re.compile("you are")).first.inner_text()
    students[1].reload()
    students[1].get_by_text("Your vote is in: ##u + ##g").first.wait_for(timeout=60_000)
    assert students[1].get_by_text(re.compile("you are")).first.inner_text() == name

    teacher.get_by_role("button", name="Show answers").click()
    summary = teacher.get_by_text(re.compile("^Round 1: [^·]*$")).first
    summary.wait_for(timeout=20_000)
    assert summary.inner_text().strip() == "Round 1: ##g + ##s 2, ##u + ##g 1"  # the histogram's counts = the votes
    assert teacher.locator('[data-testid="stVegaLiteChart"]').count() >= 1
    shot(teacher, "room-projector-answers")

    # peer instruction: discuss, vote again (a second round, beside the first), show again
    teacher.get_by_role("button", name="Vote again").click()
    teacher.get_by_text("0 of 3 answered (round 2)").first.wait_for(timeout=20_000)
    for s in students:
        s.get_by_text("Your vote (round 2)").first.wait_for(timeout=20_000)  # followed by itself
        s.get_by_test_id("stRadio").get_by_text("##g + ##s", exact=True).first.click()
        s.get_by_text("Your vote is in: ##g + ##s").first.wait_for(timeout=20_000)
    teacher.get_by_text("3 of 3 answered (round 2)").first.wait_for(timeout=20_000)
    teacher.get_by_role("button", name="Show answers").click()
    both = teacher.get_by_text(re.compile("^Round 1:.*Round 2:")).first
    both.wait_for(timeout=20_000)
    assert both.inner_text().strip() == "Round 1: ##g + ##s 2, ##u + ##g 1 · Round 2: ##g + ##s 3"
    shot(teacher, "room-projector-two-rounds")

    teacher.get_by_role("button", name="Reveal the merge").click()
    teacher.get_by_text(re.compile(r"round 1: 2 of 3 right.*round 2: 3 of 3 right")).first.wait_for(timeout=20_000)
    assert "##g + ##s → ##gs" in heading(teacher)
    teacher.locator("h2").filter(has_text="Step ").first.scroll_into_view_if_needed()
    shot(teacher, "room-projector-revealed")
    phone.get_by_text("You chose ##g + ##s").first.wait_for(timeout=20_000)  # followed by itself
    assert "##g + ##s → ##gs" in heading(phone)

    teacher.get_by_role("button", name="Next").first.click()
    for s in students:
        s.get_by_text("Step 2 of 9").first.wait_for(timeout=20_000)
    shot(phone, "room-phone-next")
    for s in students:
        assert not s.errors, s.errors

    # the projector in dark: the teacher link reopens control in another tab (another computer)
    teacher.get_by_role("button", name="Teacher link").click()
    teacher.get_by_role("button", name="Download the teacher link").wait_for(timeout=10_000)
    assert teacher.locator('[data-testid="stPopoverBody"] [data-testid="stCode"]').count() == 0  # not on the projector
    teacher.get_by_role("button", name="Show it on this screen").click()  # a second, deliberate click
    teacher_link = teacher.locator('[data-testid="stPopoverBody"] [data-testid="stCode"]').first
    teacher_link.wait_for(timeout=10_000)
    dark = tab(browser, PROJECTOR, scheme="dark")
    dark.goto(teacher_link.inner_text().strip())
    dark.get_by_text("Step 2 of 9").first.wait_for(timeout=60_000)
    wait_idle(dark)
    assert "teacher=" not in dark.url and "role=teacher" in dark.url
    assert dark.get_by_role("button", name="Close the room").count() == 1
    shot(dark, "room-projector-dark")


def test_a_phone_that_scans_the_code_again_is_the_same_student(server, browser):
    """A phone that closes its tab and scans the code again (the student link, without its token) comes back
    as itself: the same nickname, its vote kept, and the projector still counts one student."""
    teacher = tab(browser, PROJECTOR)
    link = full_link(start_room(teacher, server.url))  # the Train page's room (test_browser_phone_room.py: the phone page's)
    phone = tab(browser, PHONE, phone=True)
    phone.goto(link)
    phone.get_by_text("which pair merges next?").first.wait_for(timeout=60_000)
    wait_idle(phone)
    nickname = re.search(r"you are (.+)$", phone.get_by_text(re.compile("you are")).first.inner_text().strip())[1]
    phone.get_by_test_id("stRadio").get_by_text("##g + ##s", exact=True).click()
    phone.get_by_text("Your vote is in").first.wait_for(timeout=20_000)
    context = phone.context
    phone.close()  # the tab is gone; the browser (its cookies) stays
    again = context.new_page()
    again.goto(link)  # the QR code's link: no token in it
    again.get_by_text(re.compile("you are")).first.wait_for(timeout=60_000)
    wait_idle(again)
    assert again.get_by_text(re.compile("you are")).first.inner_text().strip().endswith(f"you are {nickname}")
    again.get_by_text("Your vote is in: ##g + ##s").first.wait_for(timeout=20_000)
    teacher.get_by_text("1 of 1 answered").first.wait_for(timeout=20_000)
    other = tab(browser, PHONE, phone=True)  # another phone (another browser): another student
    other.goto(link)
    other.get_by_text(re.compile("you are")).first.wait_for(timeout=60_000)
    assert not other.get_by_text(re.compile("you are")).first.inner_text().strip().endswith(f"you are {nickname}")
    # the lecture hall's join view: the code large, the names as they join (two people, two names)
    teacher.get_by_role("button", name="Full-screen join view").click()
    dialog = teacher.get_by_role("dialog")
    dialog.get_by_text("2 students joined").wait_for(timeout=30_000)
    assert nickname in dialog.inner_text()
    shot(teacher, "room-join-full-screen")
