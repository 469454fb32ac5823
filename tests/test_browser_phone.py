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
- ``serve --allow-host 127.0.0.1`` told the network's members to use 127.0.0.1 (their own phone);
- what the Simulate table's columns, the endgame's "~" and some fields meant was in hover titles only;
- a table wider than a phone hid its last columns with no sign of them;
- a move tapped in the list was a scroll away from Play (a bar at the foot of the screen plays it)."""
from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest

from conftest import FIXTURES
from test_browser import browser, open_in_context, server, wait_until  # noqa: F401 (fixtures; its module skips without Chromium)

OUTGUN = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0"


def _open(browser, server, width: int, height: int, query: str = "", touch: bool = True):
    return open_in_context(browser, server, query, viewport={"width": width, "height": height}, is_mobile=touch,
                           has_touch=touch, device_scale_factor=2 if touch else 1)


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


# --- what a finger cannot hover, tables wider than the screen, Play far from the move picked --------------------
def _in_view(page, selector: str) -> bool:
    return page.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); const r = e.getBoundingClientRect(); "
                         "return e.offsetParent !== null && r.width > 0 && r.top >= 0 && r.bottom <= innerHeight "
                         "&& r.left >= 0 && r.right <= innerWidth; })()")


def _described_by(page, selector: str, id_: str) -> bool:
    return id_ in (page.get_attribute(selector, "aria-describedby") or "").split()


@pytest.fixture(scope="module")
def server_without_leaves():
    import threading

    from racksmith.web import Analyzer, make_server

    srv = make_server(Analyzer("english", None, "none"), "127.0.0.1", 0, log=lambda line: None)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.mark.slow
@pytest.mark.parametrize("width,height", [(390, 844), (768, 1024)])
def test_what_a_title_says_a_finger_reads_too(browser, server, server_without_leaves, width, height):
    """What the Simulate table's columns (± s.e., reply, reply bingo%), the endgame's "~", the fields
    "Opponent's last play" and "Best moves", and a greyed "leaves" meant was said in `title`s only,
    which a touch screen never shows (nor a keyboard's focus). Now each is said in words on the page
    (and to a screen reader: the table's or the field's description), the legends only when they
    apply: the sim's with its rows, the "~" with a value not exact."""
    context, page = _open(browser, server, width, height, "?cgp=" + quote(OUTGUN))
    try:
        page.tap('.tabs button[data-tab="sim"]')
        assert page.is_visible("#sim-infer-hint") and "as it stands on the board" in page.text_content("#sim-infer-hint")
        assert _described_by(page, "#sim-infer", "sim-infer-hint")
        assert page.is_hidden("#sim-legend")  # (no rows: nothing to explain)
        page.fill("#sim-candidates", "3")
        page.fill("#sim-plies", "1")
        page.tap("#sim-run")
        wait_until(page, "document.querySelectorAll('#sim tbody tr').length === 3", timeout=60)
        legend = page.text_content("#sim-legend")
        assert page.is_visible("#sim-legend") and _described_by(page, "#sim", "sim-legend")
        assert "± s.e.: one standard error of the win%" in legend and "reply bingo%" in legend and "reply:" in legend
        wait_until(page, "!document.getElementById('sim-run').disabled", timeout=60)

        case = json.loads((FIXTURES / "endgames_magpie.jsonl").read_text("utf-8").splitlines()[0])
        page.fill("#cgp", case["cgp"])
        page.tap("#cgp-form button[type=submit]")
        wait_until(page, f"document.getElementById('cgp').value.startsWith({json.dumps(case['cgp'][:20])})")
        page.tap('.tabs button[data-tab="endgame"]')
        assert page.is_visible("#endgame-top-hint") and "each with its value and line" in page.text_content("#endgame-top-hint")
        assert _described_by(page, "#endgame-top", "endgame-top-hint")
        page.fill("#endgame-top", "3")
        page.fill("#endgame-plies", "1")  # (one ply: the depth runs out, the values are not exact)
        page.tap("#endgame-run")
        wait_until(page, "document.querySelectorAll('#endgame-top-table tbody tr').length === 3", timeout=60)
        values = page.locator("#endgame-top-table tbody tr td:nth-child(3)").all_text_contents()
        assert any(v.endswith("~") for v in values), values
        assert page.is_visible("#endgame-legend") and "not exact" in page.text_content("#endgame-legend")
        assert _described_by(page, "#endgame-top-table", "endgame-legend")
        page.fill("#endgame-plies", "")  # (to the end: every value exact, no "~" to explain)
        page.tap("#endgame-run")
        wait_until(page, "document.getElementById('endgame-head').textContent.includes('(exact)')", timeout=60)
        assert not any(v.endswith("~") for v in page.locator("#endgame-top-table tbody tr td:nth-child(3)").all_text_contents())
        assert page.is_hidden("#endgame-legend")
        assert page.is_hidden("#leaves-hint")  # (this server has leaves)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert page.console_errors == []
    finally:
        context.close()
    context, page = _open(browser, server_without_leaves, width, height, "?cgp=" + quote(OUTGUN))
    try:
        assert page.is_disabled("#leaves") and page.is_visible("#leaves-hint")
        assert "no leave values" in page.text_content("#leaves-hint") and _described_by(page, "#leaves", "leaves-hint")
        assert page.console_errors == []
    finally:
        context.close()


def _fade(page, selector: str) -> list[str]:
    """The sides of a table's box that fade out (its mask's first gradient: the colour at each end)."""
    mask = page.evaluate(f"getComputedStyle(document.querySelector({json.dumps(selector)})).webkitMaskImage")
    if mask == "none":
        return []
    colours = re.findall(r"rgba?\([^)]*\)", mask.split("), linear-gradient(")[0])
    return [side for side, c in (("left", colours[0]), ("right", colours[-1])) if c.startswith("rgba")]


@pytest.mark.slow
def test_a_table_wider_than_the_screen_says_so(browser, server):
    """A table wider than a phone (the Simulate table's 8 columns, the game's turns) scrolled sideways
    inside its box with nothing to show that columns were hidden (a phone draws no scroll bar). Now
    the edge with more beyond it fades out, until scrolled there; a table that fits has no fade."""
    context, page = _open(browser, server, 390, 844, "?cgp=" + quote(OUTGUN))
    try:
        wrap = "#moves-wrap"
        assert page.evaluate(f"(e => e.scrollWidth <= e.clientWidth)(document.querySelector('{wrap}'))")
        assert _fade(page, wrap) == []
        page.tap('.tabs button[data-tab="sim"]')
        page.fill("#sim-candidates", "3")
        page.fill("#sim-plies", "1")
        page.tap("#sim-run")
        wait_until(page, "document.querySelectorAll('#sim tbody tr').length === 3", timeout=60)
        wrap = "#tab-sim .table-wrap"
        assert page.evaluate(f"(e => e.scrollWidth > e.clientWidth)(document.querySelector('{wrap}'))")
        wait_until(page, f"getComputedStyle(document.querySelector('{wrap}')).webkitMaskImage !== 'none'")
        assert _fade(page, wrap) == ["right"]
        page.evaluate(f"(e => {{ e.scrollLeft = (e.scrollWidth - e.clientWidth) / 2; }})(document.querySelector('{wrap}'))")
        page.wait_for_timeout(100)
        assert _fade(page, wrap) == ["left", "right"]
        page.evaluate(f"(e => {{ e.scrollLeft = e.scrollWidth; }})(document.querySelector('{wrap}'))")
        page.wait_for_timeout(100)
        assert _fade(page, wrap) == ["left"]
        wait_until(page, "!document.getElementById('sim-run').disabled", timeout=60)
        # the screen turned (or a tablet): the table fits, the fade goes
        page.set_viewport_size({"width": 1024, "height": 768})
        wait_until(page, f"(e => e.scrollWidth <= e.clientWidth)(document.querySelector('{wrap}'))")
        wait_until(page, f"getComputedStyle(document.querySelector('{wrap}')).webkitMaskImage === 'none'")
        page.set_viewport_size({"width": 390, "height": 844})
        page.tap('.tabs button[data-tab="game"]')
        page.fill("#gcg-text", (FIXTURES / "gcg" / "game01_seed1.gcg").read_text("utf-8"))
        page.tap("#gcg-form button[type=submit]")
        wait_until(page, "document.getElementById('game-summary').textContent.length > 0", timeout=60)
        assert page.evaluate("(e => e.scrollWidth > e.clientWidth)(document.getElementById('turns-wrap'))")
        wait_until(page, "getComputedStyle(document.getElementById('turns-wrap')).webkitMaskImage !== 'none'")
        assert _fade(page, "#turns-wrap") == ["right"]
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.console_errors == []
    finally:
        context.close()


@pytest.mark.slow
@pytest.mark.parametrize("width,height,touch", [(390, 844, True), (768, 1024, True), (1280, 800, False)])
def test_a_move_tapped_in_the_list_plays_without_scrolling(browser, server, width, height, touch):
    """A tapped move showed on the board (the page scrolled up to it) but Play was a screen or more
    below (1,259 px down a 844 px phone, 1,503 down a 1024 px tablet): a scroll between two taps. Now
    a bar at the foot of the screen says "Play" and the move, and plays it as Play does; where Play
    is in view (a desktop) there is no bar."""
    context, page = _open(browser, server, width, height, "?cgp=" + quote(OUTGUN), touch=touch)
    try:
        assert page.is_hidden("#play-bar")
        row = page.locator("#moves tbody tr[data-row]").nth(3)
        score = row.locator("td").nth(2).text_content()
        row.scroll_into_view_if_needed()
        (row.tap if touch else row.click)()
        wait_until(page, "document.getElementById('move-input').value !== ''")
        notation = page.input_value("#move-input")
        page.wait_for_timeout(1000)  # (the page scrolls up to the board)
        if width > 1100:
            assert _in_view(page, "#play") and page.is_hidden("#play-bar")
            page.click("#play")
        else:
            assert not _in_view(page, "#play")
            assert _in_view(page, "#play-bar-button"), box(page, "#play-bar-button")
            assert page.text_content("#play-bar-button").split() == ["Play", *notation.split()]
            tiles = page.evaluate("document.querySelectorAll('#board .tile:not(.preview)').length")
            page.tap("#play-bar-button")
            wait_until(page, "document.getElementById('verdict').textContent.startsWith('✓ played')")
            assert page.evaluate("document.querySelectorAll('#board .tile:not(.preview)').length") > tiles
            assert page.is_hidden("#play-bar")  # (the move is played: nothing picked any more)
        wait_until(page, "document.getElementById('verdict').textContent.startsWith('✓ played')")
        assert f"+{score}" in page.text_content("#verdict")
        assert [t.split(" +")[0] for t in page.locator("#history li").all_text_contents()] == [notation]
        assert page.input_value("#move-input") == "" and page.input_value("#score1") == str(int(score))
        # a move typed, not picked, is played with Play by the field: no bar
        page.fill("#move-input", "-")
        assert page.is_hidden("#play-bar")
        assert page.console_errors == []
    finally:
        context.close()
