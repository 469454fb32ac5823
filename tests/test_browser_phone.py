"""The web analyzer on a phone or a tablet (a touch screen, a small or a short screen), in Debian's
Chromium driven by Playwright (as tests/test_browser.py, whose server and browser it shares: never a
downloaded browser); the server's side of what a phone's keyboard types is in
tests/test_web_consistency.py. Each test failed before its fix:

- stepping through a game moved the page under the finger (scrollIntoView on the turns' row);
- a word of 12+ letters in the score breakdown widened the page (its chips did not wrap);
- the board was taller than a phone held sideways or a short window (the height counted above
  1100 px only), and its squares jumped at 1100 px;
- the fields of moves and racks let a phone capitalise nothing (lower case: blanks), and were under
  16 px (a phone zooms the page into them); small tap targets;
- a last play typed in lower case was "not on the board" without saying why;
- ``serve --allow-host 127.0.0.1`` told the network's members to use 127.0.0.1 (their own phone)."""
from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from conftest import FIXTURES
from test_browser import browser, server, wait_until  # noqa: F401 (fixtures; its module skips without Chromium)

OUTGUN = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0"


def _open(browser, server, width: int, height: int, query: str = "", touch: bool = True):
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=touch, has_touch=touch,
                                  device_scale_factor=2 if touch else 1)
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.goto(server.url + query)
    page.wait_for_selector("#board .sq")
    wait_until(page, "document.querySelector('#moves tbody tr') !== null")
    return context, page


def box(page, selector: str) -> dict:
    return page.evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect(); "
                         "return {x: r.x, y: r.y, width: r.width, height: r.height}; })()")


def cell(page) -> int:
    return int(page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--cell')").strip()[:-2])


# --- the page -------------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("width,height,touch", [(390, 844, True), (700, 800, False)])
def test_stepping_through_a_game_keeps_the_page_still(browser, server, width, height, touch):
    """Each › scrolled the current turn's row into view with scrollIntoView, which scrolled the
    page too: five taps at one spot gave turns 2, 1, 1, 1, 1 (the page jumped 219 px, the second tap
    fell on the turns' row 1). Only the turns table's own box scrolls."""
    context, page = _open(browser, server, width, height, touch=touch)
    try:
        press = page.tap if touch else page.click
        press('.tabs button[data-tab="game"]')
        page.fill("#gcg-text", (FIXTURES / "gcg" / "game01_seed1.gcg").read_text("utf-8"))
        press("#gcg-form button[type=submit]")
        wait_until(page, "document.getElementById('game-summary').textContent.length > 0", timeout=60)
        page.evaluate("window.scrollTo(0, document.querySelector('.stepper').getBoundingClientRect().bottom"
                      " + scrollY - innerHeight + 4)")
        page.wait_for_timeout(100)
        before = page.evaluate("scrollY")
        b = box(page, "#turn-next")
        x, y = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
        labels = []
        for _ in range(5):
            if touch:
                page.touchscreen.tap(x, y)
            else:
                page.mouse.click(x, y)
            page.wait_for_timeout(60)
            labels.append(page.text_content("#turn-label").split(" of ")[0])
            assert page.evaluate("scrollY") == before, labels
        assert labels == [f"turn {n}" for n in range(2, 7)]
        # the current row is in view inside the table's box (below its sticky heading)
        row, wrap = box(page, "#turns tbody tr.current"), box(page, "#turns-wrap")
        head = box(page, "#turns thead")
        assert row["y"] >= wrap["y"] + head["height"] - 1 and row["y"] + row["height"] <= wrap["y"] + wrap["height"] + 1
        # the slider likewise: the page stays under the finger
        page.evaluate("(() => { const s = document.getElementById('turn'); s.value = 20; "
                      "s.dispatchEvent(new Event('input', {bubbles: true})); })()")
        page.wait_for_timeout(100)
        assert page.evaluate("scrollY") == before and page.text_content("#turn-label").startswith("turn 20 ")
        assert page.console_errors == []
    finally:
        context.close()


@pytest.mark.slow
@pytest.mark.parametrize("width,height,query,move", [
    (375, 667, "?cgp=" + quote("15/15/15/15/15/15/15/AB1T1A1T1O1I1T1/15/15/15/15/15/15/15 CINRSSS/ 0/0 0"),
     "8A ABSTRACTIONISTS"),
    (390, 844, "?ruleset=russian&cgp=" + quote("15/15/15/15/15/15/15/П1Е1С1А1Л1Н1Е2/15/15/15/15/15/15/15 РДТВЕИА/ "
                                               "0/0 0 ld russian;"), "8A ПРЕДСТАВЛЕНИЕ"),
])
def test_a_long_word_in_the_breakdown_wraps(browser, server, width, height, query, move):
    """The breakdown's letter chips did not wrap: a word of 12+ letters widened the page (423 px on
    a 390 px screen); the README promises no horizontal scrolling."""
    context, page = _open(browser, server, width, height, query)
    try:
        page.fill("#move-input", move)
        page.tap("#check-form button[type=submit]")
        wait_until(page, "document.querySelector('#breakdown .chips') !== null")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for right in page.evaluate("[...document.querySelectorAll('#breakdown .chip')]"
                                   ".map(e => e.getBoundingClientRect().right)"):
            assert right <= width
        assert page.console_errors == []
    finally:
        context.close()


@pytest.mark.slow
def test_the_board_fits_the_screen_at_every_width(browser, server):
    """The height counted above 1100 px only: a phone held sideways (844×390, 667×375) or a window
    601–1100 px wide got 43 px squares and a board half off the screen, and one more pixel of width
    (1101) dropped them to 29 px. Now the whole board fits (squares of 20 px at least), at each width."""
    context, page = _open(browser, server, 390, 844, "?cgp=" + quote(OUTGUN))
    try:
        assert cell(page) >= 22  # (a phone held upright: as wide as the screen allows, as before)
        sizes = {}
        for width, height in [(844, 390), (667, 375), (900, 600), (1100, 700), (1101, 700), (1280, 800), (1024, 768)]:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(150)
            page.evaluate("window.scrollTo(0, 0)")
            b = box(page, "#board")
            sizes[width, height] = cell(page)
            assert cell(page) >= 20 and b["height"] <= height, (width, height, cell(page), b)
            assert b["x"] + b["width"] <= width
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, height)
        assert abs(sizes[1100, 700] - sizes[1101, 700]) <= 1, sizes
        assert page.console_errors == []
    finally:
        context.close()


@pytest.mark.slow
def test_the_fields_suit_a_phones_keyboard(browser, server):
    """The fields of moves and racks said nothing to a phone's keyboard (it typed lower case:
    blanks) and were 12–14 px (iPhone Safari zooms into a field under 16 px); the stepper, the
    turn's best moves, Restore and the checkboxes were under 24×24 px (WCAG 2.5.8)."""
    context, page = _open(browser, server, 375, 667, "?cgp=" + quote(OUTGUN))
    try:
        for sel in ("#move-input", "#sim-infer", "#rack0", "#rack1", "#cgp"):
            attrs = page.evaluate(f"(e => [e.getAttribute('autocapitalize'), e.getAttribute('autocorrect'), "
                                  f"e.getAttribute('spellcheck')])(document.querySelector('{sel}'))")
            assert attrs == ["characters", "off", "false"], sel
        sizes = page.evaluate("[...document.querySelectorAll('input:not([type=checkbox]):not([type=range]), select, textarea')]"
                              ".filter(e => !e.classList.contains('board-input'))"
                              ".map(e => [e.id, parseFloat(getComputedStyle(e).fontSize)])")
        assert [s for s in sizes if s[1] < 16] == [], sizes
        for sel in ("#exchanges", "#leaves"):
            b = box(page, sel)
            assert b["width"] >= 24 and b["height"] >= 24, (sel, b)
        page.tap('.tabs button[data-tab="game"]')
        page.fill("#gcg-text", (FIXTURES / "gcg" / "game01_seed1.gcg").read_text("utf-8"))
        page.tap("#gcg-form button[type=submit]")
        wait_until(page, "document.getElementById('game-summary').textContent.length > 0", timeout=60)
        wait_until(page, "document.querySelector('#turn-card li') !== null", timeout=30)
        for sel in ("#turn-first", "#turn-prev", "#turn-next", "#turn-last", "#turn-card li"):
            b = box(page, sel)
            assert b["width"] >= 24 and b["height"] >= 24, (sel, b)
        page.select_option("#ruleset", "super")
        wait_until(page, "document.getElementById('restore-button') && "
                         "document.getElementById('restore-button').offsetParent !== null")
        b = box(page, "#restore-button")
        assert b["width"] >= 24 and b["height"] >= 24, b
        assert page.console_errors == []
    finally:
        context.close()
