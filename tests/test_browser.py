"""The web analyzer in a real browser: Playwright driving Debian's Chromium (``apt-get install
chromium``; never a downloaded browser) against the real server with its security checks.

Checked at a phone's size (390×844) and a desktop's (1280×800): the page is no wider than the
screen, the board's last column and the whole rack are in view, errors show beside their field,
nothing stale stays after a check, and a move can be played, undone, redone and exported as GCG.
No user error may log a console error. Screenshots of each size are written to
``.pytest_cache/screens`` for a person to look at."""
from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("RACKSMITH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).is_file():
    pytest.skip(f"browser tests need Chromium ({CHROMIUM} not found: apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package (pip install '.[test]')")

from conftest import FIXTURES  # noqa: E402
from racksmith.review.replay import replay_text  # noqa: E402
from racksmith.web import Analyzer, make_server  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
SCREENS = Path(__file__).resolve().parent.parent / ".pytest_cache" / "screens"
EMPTY = "/".join(["15"] * 15)
OUTGUN = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server():
    logged: list[str] = []
    srv = make_server(Analyzer("english", None, FIXTURES / "SYNTH.klv2"), "127.0.0.1", 0, log=logged.append)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    assert logged == []


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(params=list(SIZES))
def page(request, browser):
    w, h = SIZES[request.param]
    context = browser.new_context(viewport={"width": w, "height": h})
    pg = context.new_page()
    pg.size_name = request.param
    pg.console_errors = []
    pg.on("console", lambda m: pg.console_errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    yield pg
    context.close()


def wait_until(page, expression: str, timeout: float = 15.0) -> None:
    """Poll a JavaScript expression until it is true (evaluated through the debugging protocol:
    the page's Content-Security-Policy forbids the eval that Page.wait_for_function uses)."""
    import time

    end = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(50)


def open_page(page, server, query: str = ""):
    page.goto(server.url + query)
    page.wait_for_selector("#board .sq")
    wait_until(page, "document.querySelector('#moves tbody tr') !== null")


def screenshot(page, name: str) -> Path:
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}-{page.size_name}.png"
    page.screenshot(path=str(path))
    return path


def test_the_page_fits_the_screen(page, server):
    from urllib.parse import quote

    open_page(page, server, f"?cgp={quote(OUTGUN)}")
    page.wait_for_selector("#moves tbody tr td.move", state="attached")
    width = page.viewport_size["width"]
    # nothing sticks out: no horizontal scrolling
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # the board's last column and the rack are in view, the rack's tiles not squashed
    last = page.locator('#board .sq[data-r="0"][data-c="14"]').bounding_box()
    assert last["x"] >= 0 and last["x"] + last["width"] <= width and last["width"] >= 20
    tiles = page.locator("#rack-tiles .rt")
    assert tiles.count() == 7
    for i in range(7):
        box = tiles.nth(i).bounding_box()
        assert box["width"] >= 24 and box["x"] + box["width"] <= width
    for sel in ("#rack0", "#cgp", "#move-input", "#moves"):
        box = page.locator(sel).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, sel
    screenshot(page, "position")
    assert page.console_errors == []


def test_errors_show_beside_their_field_without_console_errors(page, server):
    open_page(page, server)
    page.fill("#rack0", "AB1")
    wait_until(page, "document.getElementById('rack0-error').textContent.length > 0")
    assert "not in the alphabet" in page.text_content("#rack0-error")
    assert page.text_content("#status") == ""  # not in the header
    err = page.locator("#rack0-error").bounding_box()
    field = page.locator("#rack0").bounding_box()
    assert 0 <= err["y"] - (field["y"] + field["height"]) < 60  # just below the rack
    page.fill("#rack0", "QUIRKED")
    wait_until(page, "document.getElementById('rack0-error').textContent === ''")
    page.fill("#move-input", "8D QX")
    page.click("#check-form button[type=submit]")
    wait_until(page, "document.getElementById('verdict').textContent.includes('✗')")
    screenshot(page, "error")
    page.fill("#cgp", "15/15 A/ 0/0 0")
    page.click("#cgp-form button[type=submit]")
    wait_until(page, "document.getElementById('cgp-error').textContent.length > 0")
    assert "rows" in page.text_content("#cgp-error")
    assert page.console_errors == []  # every one of these was a 400 user error


def test_a_check_leaves_nothing_stale_when_the_position_changes(page, server):
    open_page(page, server)
    page.fill("#rack0", "QUIRKED")
    page.wait_for_selector("#moves tbody tr td.move", state="attached")
    page.fill("#move-input", "8D QUIRK")
    page.click("#check-form button[type=submit]")
    wait_until(page, "document.getElementById('verdict').textContent.includes('legal')")
    wait_until(page, "document.querySelectorAll('#board .tile.preview').length === 5")
    page.fill("#rack0", "AEINRST")
    wait_until(page, "document.getElementById('verdict').textContent === ''")
    assert page.locator("#board .tile.preview").count() == 0 and page.text_content("#breakdown") == ""
    assert page.console_errors == []


def test_play_undo_redo_and_export_a_game(page, server):
    open_page(page, server)
    page.click('.tabs button[data-tab="play"]')
    page.fill("#rack0", "QUIRKED")
    page.wait_for_selector("#moves tbody tr td.move", state="attached")
    page.fill("#move-input", "8D QUIRK")
    page.click("#play")
    wait_until(page, "document.querySelectorAll('#history li').length === 1")
    assert "8D QUIRK +56" in page.text_content("#history")
    assert page.input_value("#score1") == "56" and page.input_value("#rack0") == ""  # the other player is to move
    assert len(page.input_value("#rack1")) == 7  # ED and five tiles drawn at random
    # the opponent's rack is typed, then he plays
    page.fill("#rack0", "AEINST?")
    page.wait_for_selector("#moves tbody tr td.move", state="attached")
    best = page.text_content("#moves tbody tr td.move").split("bingo")[0].strip()
    page.fill("#move-input", best)
    page.click("#play")
    wait_until(page, "document.querySelectorAll('#history li').length === 2")
    board_after = page.evaluate("document.getElementById('cgp').value")
    page.click("#undo")
    wait_until(page, "document.querySelectorAll('#history li.undone').length === 1")
    assert page.input_value("#rack0") == "AEINST?" and page.input_value("#score0") == "0"
    page.click("#redo")
    wait_until(page, "document.querySelectorAll('#history li.undone').length === 0 && "
                     "document.querySelectorAll('#history li').length === 2")
    assert page.evaluate("document.getElementById('cgp').value").split()[0] == board_after.split()[0]
    page.click("#export")
    wait_until(page, "!document.getElementById('export-text').hidden")
    gcg = page.text_content("#export-text")
    r = replay_text(gcg, strict=True)  # the record replays: moves, scores and running totals
    assert [t.move.notation() for t in r.turns][:1] == ["8D QUIRK"] and len(r.turns) == 2
    screenshot(page, "played")
    # a game that started from a position cannot be a GCG record: said beside the button
    page.click("#clear")
    page.fill("#cgp", OUTGUN)
    page.click("#cgp-form button[type=submit]")
    page.wait_for_selector("#moves tbody tr td.move", state="attached")
    page.fill("#move-input", "J8 SOIREE")
    page.click("#play")
    wait_until(page, "document.querySelectorAll('#history li').length === 1")
    page.click("#export")
    wait_until(page, "document.getElementById('export-error').textContent.includes('empty board')")
    assert page.console_errors == []


def test_the_endgame_tab_solves_the_position(page, server):
    """An endgame MAGPIE's solver values at -25 (tests/fixtures/endgames_magpie.jsonl): the tab
    gives the same exact value and the line, and a bag that is not empty is said beside the button."""
    import json
    from urllib.parse import quote

    case = json.loads((FIXTURES / "endgames_magpie.jsonl").read_text("utf-8").splitlines()[0])
    open_page(page, server, f"?cgp={quote(case['cgp'])}")
    page.click('.tabs button[data-tab="endgame"]')
    page.click("#endgame-run")
    wait_until(page, "document.getElementById('endgame-head').textContent.includes('nodes')", timeout=60)
    head = page.text_content("#endgame-head")
    assert f"value {case['value']} (exact)" in head, head
    assert page.locator("#endgame-pv li").count() >= 1
    assert head.startswith(f"best {page.text_content('#endgame-pv li')}")
    screenshot(page, "endgame")
    page.click("#clear")
    page.fill("#cgp", OUTGUN)
    page.click("#cgp-form button[type=submit]")
    page.wait_for_selector("#moves tbody tr td.move", state="attached")
    page.click('.tabs button[data-tab="endgame"]')
    page.click("#endgame-run")
    wait_until(page, "document.getElementById('endgame-error').textContent.length > 0", timeout=60)
    assert "bag" in page.text_content("#endgame-error")
    assert page.console_errors == []


def test_the_best_play_tab_answers_by_the_stage_of_the_game(page, server):
    """The bag empty: the endgame solver's exact answer (with MAGPIE's value of that endgame); a
    full bag: a simulation; the move shown on the board when clicked."""
    import json
    from urllib.parse import quote

    from racksmith import Position

    case = json.loads((FIXTURES / "endgames_magpie.jsonl").read_text("utf-8").splitlines()[0])
    best = Position.from_cgp(case["cgp"]).solve_endgame().best.notation()
    open_page(page, server, f"?cgp={quote(case['cgp'])}")
    page.click('.tabs button[data-tab="best"]')
    page.click("#best-run")
    wait_until(page, "document.getElementById('best-head').textContent.length > 0", timeout=60)
    head = page.text_content("#best-head")
    assert head == f"best: {best} (endgame solver, exact)", head
    assert f"{case['value']:+d}" in page.text_content("#best-summary")
    page.click(".best-move")
    wait_until(page, "document.querySelector('#board .tile.preview') !== null")
    screenshot(page, "best")
    page.click("#clear")
    page.fill("#cgp", OUTGUN)
    page.click("#cgp-form button[type=submit]")
    page.wait_for_selector("#moves tbody tr td.move", state="attached")
    page.click('.tabs button[data-tab="best"]')
    page.fill("#best-seconds", "2")
    page.click("#best-run")
    wait_until(page, "document.getElementById('best-head').textContent.includes('simulation')", timeout=60)
    assert "% to win" in page.text_content("#best-summary")
    assert page.console_errors == []


def test_the_simulate_tab_fills_its_table_and_stops(page, server):
    """Run a simulation on the page: the table fills in with the candidates, best first by win%,
    and Stop (while it still runs: it may already have stopped by confidence) ends it."""
    from urllib.parse import quote

    open_page(page, server, f"?cgp={quote(OUTGUN)}")
    page.click('.tabs button[data-tab="sim"]')
    page.fill("#sim-candidates", "4")
    page.fill("#sim-plies", "1")
    page.click("#sim-run")
    wait_until(page, "document.querySelectorAll('#sim tbody tr').length === 4", timeout=60)
    wins = [float(x) for x in page.locator("#sim tbody tr td:nth-child(3)").all_text_contents()]
    assert wins == sorted(wins, reverse=True) and all(0 <= w <= 100 for w in wins)
    assert "iterations" in page.text_content("#sim-head")
    if page.is_enabled("#sim-stop"):
        page.click("#sim-stop")
    wait_until(page, "!document.getElementById('sim-run').disabled && document.getElementById('sim-stop').disabled")
    assert "iterations" in page.text_content("#sim-head")
    screenshot(page, "sim")
    # a second run starts afresh and shows its own result (the head blanked first: a fast run can end
    # between two polls with the very text of the first, e.g. "120 iterations, 1 plies, 0.0 s (confidence)")
    page.evaluate("document.getElementById('sim-head').textContent = ''")
    page.click("#sim-run")
    wait_until(page, "document.getElementById('sim-head').textContent.includes('iterations')", timeout=30)
    assert page.console_errors == []


def test_the_simulate_tab_draws_the_opponents_rack_from_his_last_play(page, server):
    """With the opponent's last play given, the simulation draws his rack from what that play left
    (the inference shown above the table); a play that is not on the board is reported."""
    from urllib.parse import quote

    krona = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0"
    open_page(page, server, f"?cgp={quote(krona)}")
    page.click('.tabs button[data-tab="sim"]')
    page.fill("#sim-candidates", "3")
    page.fill("#sim-plies", "1")
    page.fill("#sim-infer", "8D KRONA")
    page.click("#sim-run")
    wait_until(page, "document.getElementById('sim-infer-head').textContent.includes('likeliest')", timeout=60)
    head = page.text_content("#sim-infer-head")
    assert "8D KRONA" in head and "every one of" in head and "%" in head
    wait_until(page, "!document.getElementById('sim-run').disabled", timeout=60)
    page.fill("#sim-infer", "8D QUIRK")
    page.click("#sim-run")
    wait_until(page, "document.getElementById('sim-head').textContent.includes('not on the board')", timeout=30)
    assert page.text_content("#sim-infer-head") == ""
