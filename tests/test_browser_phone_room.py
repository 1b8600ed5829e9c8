"""A class on phones in Debian's Chromium: the teacher's projector (1280×720) and eight phones (390×844) that
opened the link the projector shows (the room's phone page, wordpiece_ui/phone_room.py), through three hidden
steps: everyone votes, *Show answers*, *Reveal the merge*, *Next*.

Each phone must show each change by itself within FOLLOW_SECONDS (a generous deadline, not a target: the
targets are bench_lesson.py's); a failure names the phone, the step and what the phone shows instead. After the
reveal each phone says whether its own vote was right, as the step's answer judges it."""

from __future__ import annotations

import os
import re
import time

import pytest

from browser import CHROMIUM, SHOTS, start_room, tab, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it", allow_module_level=True)

STUDENTS = 8
STEPS = 3
FOLLOW_SECONDS = 10
PHONE = {"width": 390, "height": 844}


def heading(page) -> str:
    found = page.locator("h1").first
    return found.inner_text().strip() if found.count() else f"no heading ({page.locator('main').inner_text()[:80]!r})"


def wait_all(phones: list, names: list, what: str, check) -> float:
    """Wait until `check(page)` holds on every phone; fail naming the phones where it did not. The seconds taken."""
    started = time.time()
    deadline = started + FOLLOW_SECONDS
    late = [p for p in phones if not check(p)]
    while late and time.time() < deadline:
        time.sleep(0.1)
        late = [p for p in late if not check(p)]
    assert not late, f"{what} not within {FOLLOW_SECONDS} s on " + "; ".join(
        f"{names[phones.index(p)]} (it shows: {heading(p)})" for p in late)
    return time.time() - started


def test_eight_phones_follow_vote_and_learn_whether_they_were_right(server, browser):
    teacher = tab(browser, {"width": 1280, "height": 720})
    link = start_room(teacher, server.url)
    code = link.rsplit("/", 1)[1]
    assert re.fullmatch(r"[A-Z2-9]{6}", code), link
    phones = [tab(browser, PHONE, scheme="dark" if i % 2 else "light", phone=True) for i in range(STUDENTS)]
    for p in phones:
        p.goto(link)
    names = [f"phone {i + 1}" for i in range(STUDENTS)]
    wait_all(phones, names, "the first step's vote", lambda p: p.locator("button.choice").count() > 0)
    names = [f"phone {i + 1} ({p.locator('#who').inner_text()})" for i, p in enumerate(phones)]
    follows = []
    for step in range(1, STEPS + 1):
        wait_all(phones, names, f"step {step}'s vote",
                 lambda p: heading(p).startswith(f"Step {step} of 9: which pair merges next?"))
        choices = [c.inner_text().splitlines()[0] for c in phones[0].locator("button.choice").all()]
        assert len(choices) >= 2 and all("count(ab): " in c.inner_text() for c in phones[0].locator("button.choice").all())
        picked = {}
        for i, p in enumerate(phones):  # the class splits over the first two choices
            picked[p] = choices[i % 2]
            p.locator("button.choice").filter(has_text=picked[p]).first.click()
        wait_all(phones, names, "'Your vote is in'", lambda p: p.get_by_text(f"Your vote is in: {picked[p]}").count() > 0)
        teacher.get_by_text(f"{STUDENTS} of {STUDENTS} answered").first.wait_for(timeout=FOLLOW_SECONDS * 1000)
        wait_idle(teacher)
        teacher.get_by_role("button", name="Show answers").first.click()
        follows.append(wait_all(phones, names, "the spread after 'Show answers'",
                                lambda p: p.get_by_text(f"({STUDENTS} votes)").count() > 0
                                and p.locator("button.choice").count() == 0))
        if step == 1:
            for i in (0, 1):
                phones[i].screenshot(path=os.path.join(SHOTS, f"phone-room-shown-{'dark' if i else 'light'}.png"))
        wait_idle(teacher)
        teacher.get_by_role("button", name="Reveal the merge").first.click()
        follows.append(wait_all(phones, names, "the verdict after the reveal",
                                lambda p: p.locator(".note.ok, .note.bad").filter(has_text=re.compile("^[✓✗]")).count() > 0))
        answer = re.search(r"Merge: (.+)$", phones[0].get_by_text(re.compile("^Merge: ")).first.inner_text())[1]
        for p in phones:  # each told about its own vote, as the answer judges it (a tie with it counts, and says so)
            verdict = p.locator(".note").filter(has_text=re.compile("^[✓✗]")).first.inner_text()
            right = picked[p] == answer or verdict.startswith(f"✓ Right, by a tie: {picked[p]} ")
            assert verdict.startswith("✓" if right else "✗ Not this one"), (names[phones.index(p)], picked[p], answer, verdict)
            assert p.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scrolling
        if step == 1:
            for i in (0, 1):
                phones[i].screenshot(path=os.path.join(SHOTS, f"phone-room-revealed-{'dark' if i else 'light'}.png"))
        wait_idle(teacher)
        if step < STEPS:
            teacher.get_by_role("button", name="Next").first.click()
            follows.append(wait_all(phones, names, f"step {step + 1} after the teacher's Next",
                                    lambda p: heading(p).startswith(f"Step {step + 1} of 9")))
    print("the last phone followed " + ", ".join(f"{s:.2f}" for s in follows) + " s after the teacher's click")
    for p, name in zip(phones, names):
        assert not p.errors, f"{name}: {p.errors}"


def test_a_phone_that_scans_again_is_the_same_student_with_its_vote(server, browser):
    teacher = tab(browser, {"width": 1280, "height": 720})
    link = start_room(teacher, server.url)
    phone = tab(browser, PHONE, phone=True)
    phone.goto(link)
    phone.locator("button.choice").first.wait_for(timeout=30_000)
    who = phone.locator("#who").inner_text()
    choice = phone.locator("button.choice .t").nth(1).inner_text()
    phone.locator("button.choice").nth(1).click()
    phone.get_by_text(f"Your vote is in: {choice}").wait_for(timeout=10_000)
    context = phone.context
    phone.close()  # the tab is gone; the browser (its cookies) stays
    again = context.new_page()
    again.goto(link)
    again.get_by_text(f"Your vote is in: {choice}").wait_for(timeout=30_000)
    assert again.locator("#who").inner_text() == who
    assert again.locator("button.choice.picked .t").inner_text() == choice
    teacher.get_by_text("1 of 1 answered").first.wait_for(timeout=20_000)
    # the full step, from the phone page's link, is the same student on the Train page
    again.get_by_role("link", name="Open the full step").click()
    again.get_by_text(re.compile("you are")).first.wait_for(timeout=60_000)
    wait_idle(again)
    assert again.get_by_text(re.compile("you are")).first.inner_text().strip().endswith(who.removeprefix("you are "))


def test_a_phone_that_types_the_address_and_the_code_joins_the_room(server, browser):
    """The join view's other way in: the address `/class`, a box at the top of the screen, the code typed as a
    person types it (lower case, a space), a mistyped one explained."""
    teacher = tab(browser, {"width": 1280, "height": 720})
    link = start_room(teacher, server.url)
    code = link.rsplit("/", 1)[1]
    phone = tab(browser, PHONE, phone=True)
    phone.goto(server.url + "/class")
    box = phone.locator("#code")
    assert box.bounding_box()["y"] < 200  # at the top of the first screen
    box.fill("OO1234")
    phone.get_by_role("button", name="Join").click()
    phone.get_by_text("A code has no 0, O, 1, I or L").wait_for(timeout=5_000)
    box.fill(f"{code[:3].lower()} {code[3:].lower()}")
    phone.get_by_role("button", name="Join").click()
    phone.locator("button.choice").first.wait_for(timeout=30_000)
    assert phone.url.endswith(f"/class/{code}") and not phone.errors
    teacher.get_by_text(re.compile(r"\b1 students? here")).first.wait_for(timeout=20_000)


def test_the_teachers_countdown_runs_on_the_phone_and_closes_its_vote(server, browser):
    """The projector's countdown (30 s) shows on the phone, counts down by itself, and at 0 the phone's choices
    go: "Time is up". (The phone's clock is moved on by Playwright: the server still counts its own half minute,
    and a vote that reached it late would be refused there: tests/test_phone_room.py.)"""
    teacher = tab(browser, {"width": 1280, "height": 720})
    link = start_room(teacher, server.url)
    phone = tab(browser, PHONE, phone=True)
    phone.clock.install()
    phone.goto(link)
    phone.locator("button.choice").first.wait_for(timeout=30_000)
    teacher.get_by_role("radio", name="30 s").click()
    teacher.get_by_text(re.compile(r"0 of 1 answered · 0:[0-3]\d left")).first.wait_for(timeout=20_000)
    line = phone.locator("#countdown")
    line.wait_for(timeout=FOLLOW_SECONDS * 1000)
    first = int(re.fullmatch(r"0:(\d\d) left to answer", line.inner_text()).group(1))
    assert 20 <= first <= 30 and phone.locator("button.choice").count() > 1
    phone.clock.fast_forward(10_000)
    phone.wait_for_function(f"() => /0:([0-9]+) left/.test(document.body.innerText) && "
                            f"+document.querySelector('#countdown').textContent.match(/0:([0-9]+)/)[1] <= {first - 9}")
    phone.clock.fast_forward(25_000)
    phone.get_by_text("Time is up: the vote is closed. Wait for the teacher.").wait_for(timeout=5_000)
    assert phone.locator("button.choice").count() == 0 and not phone.errors


def test_phones_come_back_by_themselves_after_the_server_is_killed_mid_vote(browser, tmp_path):
    """kill -9 of the whole server while the class votes, then the README's start command again on the same
    port and data folder: each phone page says it is reconnecting, then shows the room again by itself, as the
    same student, with the vote it had in; a vote after the restart counts."""
    import signal

    from browser import StreamlitServer

    data = str(tmp_path / "data")
    server = StreamlitServer(data_dir=data)
    try:
        teacher = tab(browser, {"width": 1280, "height": 720})
        link = start_room(teacher, server.url)
        phones = [tab(browser, PHONE, phone=True) for _ in range(2)]
        for p in phones:
            p.goto(link)
            p.locator("button.choice").first.wait_for(timeout=30_000)
        who = [p.locator("#who").inner_text() for p in phones]
        first = phones[0].locator("button.choice .t").first.inner_text()
        phones[0].locator("button.choice").first.click()
        phones[0].get_by_text(f"Your vote is in: {first}").wait_for(timeout=10_000)
        server.proc.send_signal(signal.SIGKILL)  # the server's process: no goodbye to any page
        server.proc.wait(10)
        phones[1].get_by_text("Reconnecting").wait_for(timeout=30_000)
        server.log.close()
        server = StreamlitServer(data_dir=data, port=server.port)
        for p, name in zip(phones, who):
            p.get_by_text("Reconnecting").wait_for(state="hidden", timeout=30_000)
            assert p.locator("#who").inner_text() == name
        phones[0].get_by_text(f"Your vote is in: {first}").wait_for(timeout=10_000)
        phones[1].locator("button.choice").nth(1).click()
        phones[1].get_by_text("Your vote is in").wait_for(timeout=10_000)
        assert all(not p.errors for p in phones), [p.errors for p in phones]
    finally:
        server.stop()


def test_a_browser_that_keeps_no_cookie_joins_once_and_says_why_it_is_out(server, browser):
    """A phone whose browser sends no cookie back (blocked, or a webview that drops them): it joins once, then
    says it is not in the room and why, with *Join again*; it does not join again by itself (before: a new
    student at every round trip, 500 within half a minute)."""
    teacher = tab(browser, {"width": 1280, "height": 720})
    link = start_room(teacher, server.url)
    phone = tab(browser, PHONE, phone=True)

    def no_cookie(route):  # the phone page's requests sent without a cookie, and answered without one
        import urllib.error
        import urllib.request

        request = route.request
        sent = urllib.request.Request(request.url, data=request.post_data_buffer, method=request.method,
                                      headers={"Content-Type": "application/json"} if request.method == "POST" else {})
        try:
            with urllib.request.urlopen(sent, timeout=30) as answer:
                status, body, headers = answer.status, answer.read(), dict(answer.headers)
        except urllib.error.HTTPError as exc:
            status, body, headers = exc.code, exc.read(), dict(exc.headers)
        route.fulfill(status=status, body=body,
                      headers={k: v for k, v in headers.items() if k.lower() != "set-cookie"})

    phone.context.route(lambda url: "/class/" in url, no_cookie)
    phone.goto(link)
    phone.get_by_text("You are not in this class room now").wait_for(timeout=30_000)
    phone.wait_for_timeout(3000)
    assert phone.get_by_role("button", name="Join again").count() == 1
    teacher.get_by_text("(1 joined)").first.wait_for(timeout=10_000)
    assert not phone.errors, phone.errors
