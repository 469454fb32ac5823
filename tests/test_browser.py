"""The web analyzer in a real browser: Playwright driving Debian's Chromium (``apt-get install
chromium``; never a downloaded browser) against the real server with its security checks.

Checked at a phone's size (390×844) and a desktop's (1280×800): the page is no wider than the
screen, the board's last column and the whole rack are in view, errors show beside their field,
nothing stale stays after a check, and a move can be played, undone, redone and exported as GCG.
Then what a player met (each a defect the page had): errors said where the input is and in the
page's terms, a game closed on another ruleset, files read in their encoding, the address keeping
the view, the keyboard reaching the board and the tables, "computing…" while the server is busy.
No user error may log a console error. Screenshots of each size are written to
``.pytest_cache/screens`` for a person to look at.

Then the page's accessibility (WCAG 2.1 AA), through the accessibility tree (``aria_snapshot``), the
DOM's ARIA attributes, keyboard-only flows and a touch phone (375×667): the board a grid whose squares
say what is on them, results announced, the focus kept, the position kept aside on another ruleset,
blanks heard as blanks, contrast, Russian marked as Russian, the tabs pattern, one Tab stop per table."""
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


def _page(browser, size: str):
    w, h = SIZES[size]
    context = browser.new_context(viewport={"width": w, "height": h})
    pg = context.new_page()
    pg.size_name = size
    pg.console_errors = []
    pg.on("console", lambda m: pg.console_errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    yield pg
    context.close()


@pytest.fixture(params=list(SIZES))
def page(request, browser):
    yield from _page(browser, request.param)


@pytest.fixture
def desktop(browser):
    """A page at the desktop's size only: for what does not depend on the screen's width."""
    yield from _page(browser, "desktop")


@pytest.fixture
def phone(browser):
    yield from _page(browser, "phone")


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


def open_in_context(browser, server, query: str = "", **options):
    """A new browser context (``options``: ``browser.new_context``'s, by default a 1280x900 window)
    and its page open at ``query``, its console errors and uncaught exceptions kept in
    ``page.console_errors``: (context, page)."""
    context = browser.new_context(**({"viewport": {"width": 1280, "height": 900}} | options))
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    open_page(page, server, query)
    return context, page


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


def test_a_board_error_stays_by_the_board_when_a_score_or_a_rack_is_typed_after(page, server):
    """Three Zs typed on the board: the error is the board's. Typing the opponent's score, or a rack
    holding no Z, moved it beside that field, whose input was marked invalid (every position error
    went beside the field changed last)."""
    open_page(page, server)
    page.click('#board .sq[data-r="7"][data-c="7"]')
    page.keyboard.type("ZZZ")
    wait_until(page, "document.getElementById('board-error').textContent.includes(\"3 'Z' tiles\")")
    page.fill("#score1", "10")
    page.press("#score1", "Tab")
    page.fill("#rack0", "AEINRST")
    page.wait_for_timeout(600)  # (the page asks the server again after a pause)
    wait_until(page, "document.getElementById('board-error').textContent.includes(\"3 'Z' tiles\")")
    assert page.text_content("#rack0-error") == "" and page.text_content("#rack1-error") == ""
    assert page.evaluate("['score1', 'rack0'].map((id) => document.getElementById(id).getAttribute('aria-invalid'))") \
        in ([None, None], ["false", "false"])
    page.fill("#rack0", "ZAEINRS")  # (a rack holding a Z: the error is its own too)
    wait_until(page, "document.getElementById('rack0-error').textContent.includes(\"4 'Z' tiles\")")
    assert page.console_errors == []


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
    # the opponent's rack is typed (no blank: the five tiles drawn at random may hold both), then he plays
    page.fill("#rack0", "AEINRST")
    page.wait_for_selector("#moves tbody tr td.move", state="attached")
    best = page.text_content("#moves tbody tr td.move").split("bingo")[0].strip()
    page.fill("#move-input", best)
    page.click("#play")
    wait_until(page, "document.querySelectorAll('#history li').length === 2")
    board_after = page.evaluate("document.getElementById('cgp').value")
    page.click("#undo")
    wait_until(page, "document.querySelectorAll('#history li.undone').length === 1")
    assert page.input_value("#rack0") == "AEINRST" and page.input_value("#score0") == "0"
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
    assert head.startswith(f"best {page.text_content('#endgame-pv li button')}")
    # each move with its score, and the result at the end of the line
    from racksmith import Position

    solved = Position.from_cgp(case["cgp"]).solve_endgame()
    assert page.text_content("#endgame-pv li").endswith(f" {solved.pv[0].score}")
    final = page.text_content("#endgame-final")
    assert final.startswith(f"final: {solved.final_scores[0]} to {solved.final_scores[1]}: "), final
    assert page.is_hidden("#endgame-top-table")
    screenshot(page, "endgame")
    # the three best moves, each with its value and line, as the library ranks them
    from racksmith import Position

    want = Position.from_cgp(case["cgp"]).solve_endgame(top=3).top
    page.fill("#endgame-top", "3")
    page.click("#endgame-run")
    wait_until(page, "document.querySelectorAll('#endgame-top-table tbody tr').length === 3", timeout=60)
    rows = page.locator("#endgame-top-table tbody tr")
    for i, line in enumerate(want):
        cells = [c.strip() for c in rows.nth(i).locator("td").all_text_contents()]
        assert cells[1] == line.move.notation() and cells[2] == f"{line.value:+d}".replace("+0", "0"), cells
    assert page.is_visible("#endgame-top-table")
    page.fill("#endgame-top", "0")
    page.click("#endgame-run")
    wait_until(page, "document.getElementById('endgame-error').textContent.includes('Best moves')")
    assert page.text_content("#endgame-final") == ""  # (the last result's final line is not left beside an error)
    page.fill("#endgame-top", "1")
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
    answers = []  # every /api/sim answer: the table shows the last one's
    page.on("response", lambda r: answers.append(r) if r.url.endswith("/api/sim") and r.ok else None)
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
    # the opponent's reply (ply 1): its mean score and bingo %, as the answer shown gives them
    shown = next(a.json() for a in reversed(answers) if f"{a.json()['iterations']} iterations" in page.text_content("#sim-head"))
    rows = page.locator("#sim tbody tr")
    for i, c in enumerate(shown["candidates"]):
        ply = c["ply_stats"][0]
        cells = rows.nth(i).locator("td").all_text_contents()
        assert cells[6:8] == [f"{ply['mean_score']:.2f}", f"{100 * ply['bingo_fraction']:.2f}"], (cells, ply)
    screenshot(page, "sim")
    # a second run starts afresh and shows its own result (the head blanked first: a fast run can end
    # between two polls with the very text of the first, e.g. "120 iterations, 1 plies, 0.0 s (confidence)")
    page.evaluate("document.getElementById('sim-head').textContent = ''")
    page.click("#sim-run")
    wait_until(page, "document.getElementById('sim-head').textContent.includes('iterations')", timeout=30)
    assert page.console_errors == []


def test_stop_cancels_the_simulation_on_the_server(desktop, server):
    """Stop only stopped asking for more: the request running went on for up to 30 s on the server
    (holding a computation slot), and a Stop before the first answer left "simulating…" for good.
    Stop now aborts the request, the server stops computing, and the head says it stopped."""
    import time
    from urllib.parse import quote

    page = desktop
    open_page(page, server, f"?cgp={quote(OUTGUN)}")
    page.click('.tabs button[data-tab="sim"]')
    page.fill("#sim-candidates", "50")
    page.fill("#sim-plies", "32")  # 500 iterations: more than a second, 2,000: about 5 s
    page.click("#sim-run")
    page.click("#sim-stop")
    assert text(page, "#sim-head") == "stopped before the first answer"
    assert page.is_enabled("#sim-run") and not page.is_enabled("#sim-stop")
    page.click("#sim-run")
    wait_until(page, "document.getElementById('sim-head').textContent.includes('iterations')", timeout=60)
    slots = server.limits.max_concurrent
    assert page.is_enabled("#sim-stop")  # the next budget is being simulated
    page.wait_for_timeout(300)
    page.click("#sim-stop")
    assert text(page, "#sim-head").endswith(" · stopped") and "iterations" in text(page, "#sim-head")
    started = time.monotonic()
    taken = [server.long_computing.acquire(timeout=20) for _ in range(slots)]  # every slot free again
    for ok in taken:
        if ok:
            server.long_computing.release()
    assert all(taken) and time.monotonic() - started < 2.5
    page.wait_for_timeout(300)
    assert text(page, "#sim-head").endswith(" · stopped")  # no answer came after Stop
    assert page.console_errors == []


def test_a_pasted_record_over_the_limits_is_a_user_error(desktop, server):
    """A GCG of more than 1 MiB pasted in the Game tab: a 413 the page logged as a console error,
    and "the body has N bytes; the limit is 1048576 (max_body)" beside the field."""
    page = desktop
    open_page(page, server)
    page.click('.tabs button[data-tab="game"]')
    page.evaluate("document.getElementById('gcg-text').value = '#player1 a A\\n' + 'x'.repeat(1100000)")
    page.click("#gcg-form button[type=submit]")
    wait_until(page, "document.getElementById('gcg-error').textContent.length > 0")
    err = text(page, "#gcg-error")
    assert "1,100,013 bytes" in err and "max_gcg_bytes limit" in err and "(max_body)" not in err
    assert text(page, "#status") == "" and page.console_errors == []
    # (the server's own answer to a body over max_body, a user error for the page, is
    # tests/test_web.py's: a browser still sending the body when the answer comes may see the
    # connection reset, "Failed to fetch", so it is not asked from here)


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


# --- what a player met: each a defect the page had -------------------------------------------------------
def text(page, selector: str) -> str:
    return page.evaluate(f"document.querySelector({selector!r}).innerText")


def load_cgp(page, cgp: str) -> None:
    page.fill("#cgp", cgp)
    page.click("#cgp-form button[type=submit]")


def moves_shown(page) -> None:
    page.wait_for_selector("#moves tbody tr td.move", state="attached")


def load_game(page, record: str, timeout: float = 60) -> None:
    page.click('.tabs button[data-tab="game"]')
    page.fill("#gcg-text", record)
    page.evaluate("document.getElementById('game-summary').textContent = ''; "
                  "document.getElementById('gcg-error').textContent = ''")
    page.click("#gcg-form button[type=submit]")
    wait_until(page, "document.getElementById('game-summary').textContent.length > 0 || "
                     "document.getElementById('gcg-error').textContent.length > 0", timeout=timeout)


def test_a_move_played_after_undo_clears_the_redo_list(desktop, server):
    """Undo, then another move: the move undone cannot be redone on top of it (it replayed
    NASTIER over the pass and exported p2 playing p1's rack on an empty board), and the export is
    the history."""
    page = desktop
    open_page(page, server)
    page.click('.tabs button[data-tab="play"]')
    page.fill("#rack0", "AEINRST")
    moves_shown(page)
    page.fill("#move-input", "8D NASTIER")
    page.click("#play")
    wait_until(page, "document.querySelectorAll('#history li').length === 1")
    page.click("#undo")
    wait_until(page, "document.querySelectorAll('#history li.undone').length === 1 && !document.getElementById('redo').disabled")
    page.fill("#move-input", "-")
    page.click("#play")
    wait_until(page, "document.getElementById('verdict').textContent.includes('played -')")
    assert page.is_disabled("#redo")
    assert [li.split()[:2] for li in text(page, "#history").split("\n")] == [["-", "+0"]]
    page.click("#export")
    wait_until(page, "!document.getElementById('export-text').hidden")
    r = replay_text(page.text_content("#export-text"), strict=True)
    assert [str(t.move.kind) for t in r.turns] == ["pass"] and r.turns[0].rack
    assert page.console_errors == []


def test_another_ruleset_closes_the_game_and_starts_an_empty_position(desktop, server):
    """A GCG game on the page, then Super Scrabble picked: the game is closed (it threw
    "Cannot read properties of undefined" and drew the 15x15 game on the 21x21 board), and the new
    ruleset's empty position has no points of the old one."""
    page = desktop
    open_page(page, server)
    load_game(page, (FIXTURES / "gcg" / "game01_seed1.gcg").read_text("utf-8"))
    assert not page.is_hidden("#game")
    page.click("#turn-next")
    page.click("#turn-next")
    page.click("#turn-next")
    wait_until(page, "document.getElementById('score0').value !== '0'")
    page.select_option("#ruleset", "super")
    wait_until(page, "document.getElementById('cgp').value.split(' ')[0].split('/').length === 21")
    wait_until(page, "document.getElementById('bag').textContent.startsWith('200 unseen')")
    assert page.is_hidden("#game") and text(page, "#game-summary") == ""
    assert page.locator("#board .sq").count() == 21 * 21 and page.locator("#board .tile").count() == 0
    assert (page.input_value("#score0"), page.input_value("#score1")) == ("0", "0")
    assert page.input_value("#cgp").split()[1:4] == ["/", "0/0", "0"]
    page.click('.tabs button[data-tab="game"]')
    page.keyboard.press("ArrowRight")  # no game to step through
    assert page.console_errors == []


def test_a_latin1_game_file_reads_as_the_library_reads_it(desktop, server):
    """A GCG file in ISO-8859-1 without a #character-encoding line: Latin-1, the format's default
    (it was read as UTF-8: "c\ufffdsar")."""
    page = desktop
    open_page(page, server)
    page.click('.tabs button[data-tab="game"]')
    page.set_input_files("#gcg-file", str(FIXTURES / "gcg" / "macondo" / "name_iso8859-1.gcg"))
    wait_until(page, "document.getElementById('game-summary').textContent.length > 0", timeout=60)
    assert text(page, "#game-summary").startswith("césar 32 – hércules 16")
    assert "#player1 césar césar" in page.input_value("#gcg-text")
    assert "\ufffd" not in text(page, "#turns")
    assert page.console_errors == []


def test_position_errors_show_at_the_field_typed_in(desktop, server):
    """An impossible rack (ZZZ) is said below the rack, not below the CGP, and the rack's tiles and
    the bag of the position before are not left shown; a score of 1e3 or 12.7 is refused beside it
    (it read 1 and 12); rack errors speak of the rack, not of "CGP rack 1"."""
    page = desktop
    open_page(page, server)
    page.fill("#rack0", "AEINRST")
    moves_shown(page)
    page.fill("#rack0", "ZZZ")
    wait_until(page, "document.getElementById('rack0-error').textContent.length > 0")
    assert "'Z'" in text(page, "#rack0-error") and page.text_content("#cgp-error") == ""
    assert page.locator("#rack-tiles .tile").count() == 0 and page.text_content("#bag") == ""
    assert "below the To move rack" in text(page, "#moves tbody")
    page.fill("#rack0", "AEINST1")
    wait_until(page, "document.getElementById('rack0-error').textContent.includes('AEINST1')")
    assert text(page, "#rack0-error").startswith("the rack 'AEINST1'") and "CGP" not in text(page, "#rack0-error")
    page.fill("#rack0", "AEINST?")
    moves_shown(page)
    for bad in ("1e3", "12.7"):
        page.fill("#score0", bad)
        wait_until(page, "document.getElementById('rack0-error').textContent.includes('whole number')")
        assert page.evaluate("document.getElementById('score0').classList.contains('invalid')")
    page.fill("#score0", "1000")
    wait_until(page, "document.getElementById('cgp').value.split(' ')[2] === '1000/0'")
    assert page.text_content("#rack0-error") == ""
    # a check while the position has an error is refused, not made on the position before
    page.fill("#rack1", "ZZ")
    wait_until(page, "document.getElementById('rack1-error').textContent.length > 0")
    page.fill("#move-input", "8D NASTIER")
    page.click("#check-form button[type=submit]")
    wait_until(page, "document.getElementById('verdict').textContent.includes('fix the position first')")
    assert page.console_errors == []


def test_a_server_that_does_not_answer_is_said(desktop, server):
    """The server stopped: typing a rack says so (it said "Fix the position to see its moves"),
    beside no field."""
    page = desktop
    open_page(page, server)
    page.route("**/api/**", lambda route: route.abort("connectionrefused"))
    page.fill("#rack0", "AEINRST")
    wait_until(page, "document.querySelector('#moves tbody').innerText.includes('does not answer')")
    assert "does not answer" in text(page, "#status")
    assert all(page.text_content(f"#{box}") == "" for box in ("rack0-error", "cgp-error", "board-error"))
    page.unroute("**/api/**")
    page.fill("#rack0", "AEINRSS")
    moves_shown(page)
    assert text(page, "#status") == ""


def test_the_address_cgp_error_stays_and_an_unknown_tab_shows_moves(desktop, server):
    """A CGP in the address that cannot be read: its error stays beside the CGP (a refresh wiped
    it at once) with the CGP to correct, until the user changes something; an unknown tab shows
    the Moves tab (every panel was hidden)."""
    from urllib.parse import quote

    page = desktop
    page.goto(server.url + "?cgp=garbage&tab=nonexistent")
    page.wait_for_selector("#board .sq")
    wait_until(page, "document.querySelector('#moves tbody tr') !== null && "
                     "document.getElementById('cgp-error').textContent.length > 0")
    page.wait_for_timeout(500)  # the refresh of the empty position has come and gone
    assert "needs at least 4" in text(page, "#cgp-error") and page.input_value("#cgp") == "garbage"
    assert page.is_visible("#tab-moves") and "active" in page.get_attribute('.tabs button[data-tab="moves"]', "class")
    page.fill("#rack0", "AEINRST")
    wait_until(page, "document.getElementById('cgp-error').textContent === ''")
    # an English position in the address with ruleset=russian: said in the page's terms
    page.goto(server.url + "?ruleset=russian&cgp=" + quote(OUTGUN))
    page.wait_for_selector("#board .sq")
    wait_until(page, "document.getElementById('cgp-error').textContent.length > 0")
    page.wait_for_timeout(500)
    err = text(page, "#cgp-error")
    assert "pick English Scrabble in the Ruleset menu" in err and "ruleset=" not in err
    assert page.console_errors == []


def test_a_cgp_is_read_with_the_ruleset_its_ld_opcode_names(desktop, server):
    """A Russian CGP with 'ld russian;' pasted while English is picked: read as Russian (it was
    refused: the page picked the ruleset by the row count only); without the opcode the error says
    which ruleset to pick in the menu, not "pass ruleset='russian'"."""
    page = desktop
    open_page(page, server)
    empty = "/".join(["15"] * 15)
    load_cgp(page, f"{empty} КОТЁЛ?А/ 0/0 0 ld russian;")
    wait_until(page, "document.getElementById('ruleset').value === 'russian'")
    moves_shown(page)
    assert page.text_content("#cgp-error") == "" and "lexicon ru" in text(page, "#moves-head")
    page.select_option("#ruleset", "english")
    wait_until(page, "document.getElementById('cgp').value.startsWith('15/') && document.getElementById('ruleset').value === 'english'")
    load_cgp(page, f"{empty} КОТЁЛ?А/ 0/0 0")
    wait_until(page, "document.getElementById('cgp-error').textContent.length > 0")
    err = text(page, "#cgp-error")
    assert "pick one of them in the Ruleset menu" in err and "Russian Scrabble or Эрудит" in err and "pass ruleset" not in err and "ruleset=" not in err
    page.fill("#rack0", "Ж")
    wait_until(page, "document.getElementById('rack0-error').textContent.length > 0")
    assert "in the Ruleset menu" in text(page, "#rack0-error") and "pass ruleset" not in text(page, "#rack0-error")
    # a CGP of three racks is refused (the page plays two players), not loaded with the third dropped
    load_cgp(page, f"{empty} A/B/C 0/0/0 0")
    wait_until(page, "document.getElementById('cgp-error').textContent.includes('3 racks')")
    assert page.console_errors == []


def test_a_failed_game_load_clears_the_last_game_and_notes_are_shown(desktop, server):
    """A record that does not load: the game shown before goes (its summary and turns stayed
    under the new error), and the error says what a page user does (not "--ruleset
    my_game.toml"); the replay's notes are shown."""
    page = desktop
    open_page(page, server)
    page.click('.tabs button[data-tab="game"]')
    page.set_input_files("#gcg-file", str(FIXTURES / "gcg" / "macondo" / "incomplete_elise.gcg"))
    wait_until(page, "document.getElementById('game-summary').textContent.length > 0", timeout=60)
    assert "note: line 26:" in text(page, "#game-errors")
    page.set_input_files("#gcg-file", str(FIXTURES / "gcg" / "macondo" / "polish_endgame.gcg"))
    wait_until(page, "document.getElementById('gcg-error').textContent.length > 0", timeout=60)
    assert page.is_hidden("#game") and text(page, "#game-summary") == ""
    assert page.locator("#turns tbody tr").count() == 0
    err = text(page, "#gcg-error")
    assert "racksmith serve --ruleset" in err and "(--ruleset" not in err
    assert "Ł" in page.input_value("#gcg-text")  # the file, to read or correct
    assert page.console_errors == []


def test_a_turn_whose_rack_is_recorded_in_part_says_why_no_move_is_listed(desktop, server):
    """A record showing only the tiles played from p2's rack (as Woogles writes an opponent's):
    the turn's position has his rack empty, so the moves table lists nothing; the turn card says
    the rack is recorded in part and what to do, instead of an unexplained empty rack."""
    page = desktop
    open_page(page, server)
    record = (FIXTURES / "gcg" / "game01_seed1.gcg").read_text("utf-8").replace(">p2: CEIRSTU E5", ">p2: CEIRSU E5")
    load_game(page, record, timeout=90)
    page.click("#turns tbody tr:nth-child(2)")
    wait_until(page, "document.getElementById('turn-card').textContent.includes('only the tiles played')")
    card = text(page, "#turn-card")
    assert "CEIRSU (in part)" in card and "type the whole rack in the rack field" in card
    assert "rack partly recorded" not in card  # the analysis's terse note is not repeated
    # (the rack field follows the card: under load it held turn 1's rack a moment longer)
    wait_until(page, "document.getElementById('rack0').value === ''")
    page.click("#turns tbody tr:nth-child(1)")
    wait_until(page, "!document.getElementById('turn-card').textContent.includes('only the tiles played')")
    assert "(in part)" not in text(page, "#turn-card")


def test_the_check_field_holds_the_turn_s_move(desktop, server):
    """Stepping to an exchange turn or to the end of the game: the Check field holds that turn's
    move (it kept the turn before's 9H FIVE: "illegal no_tiles"), or nothing at the end, where the
    moves table says the game is over (not "no legal move for this rack")."""
    page = desktop
    open_page(page, server)
    load_game(page, (FIXTURES / "gcg" / "macondo" / "noah_vs_mishu.gcg").read_text("utf-8"), timeout=90)
    page.click("#turns tbody tr:nth-child(2)")
    wait_until(page, "document.getElementById('move-input').value === '9H FIVE'")
    page.click("#turns tbody tr:nth-child(3)")
    wait_until(page, "document.getElementById('turn-label').textContent === 'turn 3 of ' + "
                     "document.querySelectorAll('#turns tbody tr').length")
    assert page.input_value("#move-input") == "-BLNN"
    page.click("#check-form button[type=submit]")
    wait_until(page, "document.getElementById('verdict').textContent.includes('legal')")
    assert text(page, "#verdict").startswith("✓ legal")
    page.click("#turn-last")
    wait_until(page, "document.querySelector('#moves tbody').innerText.includes('The game is over')")
    assert page.input_value("#move-input") == ""
    assert "a player is out of tiles" in text(page, "#moves tbody")
    assert page.console_errors == []


def test_a_game_over_position_says_the_game_is_over(desktop, server):
    """Six scoreless turns (zero-turn count 6): the game is over, not "no legal move"."""
    from urllib.parse import quote

    page = desktop
    open_page(page, server, "?cgp=" + quote("/".join(["15"] * 15) + " AEINRST/ 0/0 6"))
    wait_until(page, "document.querySelector('#moves tbody').innerText.includes('The game is over')")
    assert "zero-turn count is 6" in text(page, "#moves tbody")
    assert "no legal move" not in text(page, "#moves tbody")


def test_messages_speak_of_the_page_not_of_the_api(desktop, server):
    """The opponent's rack given with his last play to infer from: "clear the Opponent rack
    field" (not "leave it out of the CGP: 'RACK/'"); a move's bad coordinate: this board's range
    (not 1..26); Simulate's fields refused out of range (candidates 0 became 10, plies past the
    server's 32 were allowed to 8)."""
    from urllib.parse import quote

    page = desktop
    open_page(page, server, "?cgp=" + quote("15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/AB 0/28 0"))
    page.fill("#move-input", "Z99 FOO")
    page.click("#check-form button[type=submit]")
    wait_until(page, "document.getElementById('verdict').textContent.includes('Z99')")
    assert "rows are 1..15 and its columns A..O" in text(page, "#verdict")
    page.click('.tabs button[data-tab="sim"]')
    assert page.get_attribute("#sim-plies", "max") == "32"
    page.fill("#sim-candidates", "0")
    page.click("#sim-run")
    wait_until(page, "document.getElementById('sim-error').textContent.length > 0")
    assert "Candidates must be a whole number from 1" in text(page, "#sim-error") and text(page, "#sim-head") == ""
    page.fill("#sim-candidates", "2")
    page.fill("#sim-plies", "33")
    page.click("#sim-run")
    wait_until(page, "document.getElementById('sim-error').textContent.includes('Plies')")
    assert "from 1 to 32" in text(page, "#sim-error")
    page.fill("#sim-plies", "1")
    page.fill("#sim-infer", "8D KRONA")
    page.click("#sim-run")
    # (AB with tiles in the bag: his rack known in part, as the CGP spec writes it)
    wait_until(page, "document.getElementById('sim-head').textContent.includes('known in part')", timeout=30)
    head = text(page, "#sim-head")
    assert "inference is for a rack not known at all" in head
    assert "clear the Opponent rack field to infer it" in head and "CGP" not in head
    assert page.console_errors == []


def test_computing_is_shown_while_the_server_is_busy(desktop, server):
    """Every calculation slot of the server taken: typing a rack shows "computing…" (the old
    moves stayed for 24 s as if they were the new rack's), and the moves when they come."""
    page = desktop
    open_page(page, server)
    page.fill("#rack0", "AEINRST")
    moves_shown(page)
    slots = server.limits.max_concurrent
    taken = [server.computing.acquire(timeout=30) for _ in range(slots)]
    try:
        assert all(taken)
        page.fill("#rack0", "AEINRSQ")
        wait_until(page, "document.getElementById('moves-head').textContent === 'computing…'", timeout=5)
        assert page.evaluate("document.getElementById('moves-wrap').classList.contains('busy')")
    finally:
        for ok in taken:
            if ok:
                server.computing.release()
    wait_until(page, "document.getElementById('moves-head').textContent.includes('AEINQRS')", timeout=30)
    assert not page.evaluate("document.getElementById('moves-wrap').classList.contains('busy')")


def test_the_game_tab_fits_a_phone(phone, server):
    """The Game tab at 390 px: the text box and Load game within the screen (395 px wide)."""
    page = phone
    open_page(page, server)
    page.click('.tabs button[data-tab="game"]')
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for sel in ("#gcg-text", "#gcg-file", "#gcg-form button[type=submit]"):
        box = page.locator(sel).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, sel
    load_game(page, (FIXTURES / "gcg" / "game01_seed1.gcg").read_text("utf-8"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, "game")


def test_a_record_with_a_huge_field_stays_within_the_page(page, server):
    """A record whose rack is 100,000 letters on one line: the error list and the turn card wrap
    and shorten it (they overflowed the page)."""
    page_ = page
    open_page(page_, server)
    load_game(page_, "#player1 a A\n#player2 b B\n>a: " + "A" * 100_000 + " 8D WORD +10 10\n")
    width = page_.viewport_size["width"]
    assert page_.evaluate("document.documentElement.scrollWidth") <= width
    for sel in ("#game-errors", "#turn-card", "#turns-wrap"):
        box = page_.locator(sel).bounding_box()
        assert box["x"] + box["width"] <= width + 0.5, sel
    assert "(100,000 characters)" in text(page_, "#game-errors") and len(text(page_, "#game-errors")) < 2000
    assert page_.console_errors == []


def test_the_address_keeps_the_view_and_the_bag_reads_well(desktop, server):
    """Sort, how many moves, exchanges and the tab are written in the address (a copied address
    gave another view), and an empty pool ends without a colon ("0 in the bag:")."""
    from urllib.parse import parse_qs, quote, urlsplit

    page = desktop
    open_page(page, server)
    page.fill("#rack0", "AEINRST")
    moves_shown(page)
    page.select_option("#sort", "score")
    page.select_option("#top", "50")
    page.check("#exchanges")
    page.click('.tabs button[data-tab="play"]')
    wait_until(page, "location.search.includes('top=50') && location.search.includes('tab=play')")
    q = parse_qs(urlsplit(page.url).query)
    assert (q["sort"], q["top"], q["exchanges"], q["tab"]) == (["score"], ["50"], ["1"], ["play"])
    page.goto(page.url)
    page.wait_for_selector("#board .sq")
    moves_shown(page)
    assert (page.input_value("#sort"), page.input_value("#top"), page.is_checked("#exchanges")) == ("score", "50", True)
    assert page.is_visible("#tab-play")
    # the bag empty, the opponent's rack known
    end = "15/15/2MI11/TRANQUIL7/R14/O6DEV5/NUT2THAT5C/ANE1FOOD5TO/1FAXING6AL/1AR1R8JO/1SEER9S/1TRAY2PANED2S/WE1V4WAY2Bi/ON1E3HEBE2I1/K2DOLCI2SEIZE GLMOPUU/EGIII? 277/434 0"
    open_page(page, server, "?cgp=" + quote(end))
    wait_until(page, "document.getElementById('bag').textContent.length > 0")
    assert text(page, "#bag") == "0 in the bag"
    # both racks left out mid-game (a record's turn whose rack is shown in part): the unseen tiles
    # are on both racks and in the bag (the mover's 7 were left out of the count)
    both = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 / 28/0 0"
    open_page(page, server, "?cgp=" + quote(both))
    wait_until(page, "document.getElementById('bag').textContent.includes('unseen')")
    assert text(page, "#bag").startswith("95 unseen (7 on the rack to move, 7 on the opponent's rack, 81 in the bag)")
    # his rack known in part: D and Y are his, not among the unseen tiles (the line said 7 + 80 = 85)
    part = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/DY 0/16 0"
    open_page(page, server, "?cgp=" + quote(part))
    wait_until(page, "document.getElementById('bag').textContent.includes('unseen')")
    assert text(page, "#bag").startswith("85 unseen (5 on the opponent's rack besides DY, 80 in the bag)")
    # the bag empty and the mover's rack left out: it is certain (the unseen tiles), and its moves are listed
    certain = ("10FAQIR/9VAW1D1/2N10I1/2OXEN1U5OH/2N1YaRNING2TA/2PLEB1R6D/2A4U1LOOIES/CUIFS1GLOOMY2T/2D1H2I7/"
               "4I1GEEZ5/4V2R7/TEPEE10/1TERRANE7/TATES2SOJA4/10WIlCO /ABIL 345/378 0")
    open_page(page, server, "?cgp=" + quote(certain))
    moves_shown(page)
    assert "DUMKA" in text(page, "#moves")
    # a finished game read back: the player who went out holds nothing to count
    out = ("3D1PHON2OR1A/1GLUEY3MISE1D/2INTENTLY2FIZ/3T3R6E/7O2LOUIs/7U2I4/7P7/3BAWTIES5/1AFIRE1N1OM4/"
           "AX2AR1G1JOGS2/REVOKED2AWEE2/SLED2E4NA2/H1T3V4UT2/I1O2BACCARa3/N4I9 Q/ 486/381 0")
    open_page(page, server, "?cgp=" + quote(out))
    wait_until(page, "document.getElementById('bag').textContent.length > 0")
    assert "opponent's rack" not in text(page, "#bag")
    assert page.console_errors == []


def test_the_keyboard_reaches_the_board_and_the_tables(desktop, server):
    """Tab to the board: a cursor on the start square, so typed letters go on the board (nothing
    happened until a click); Tab to a row of the moves table: Enter pins it as a click does."""
    page = desktop
    open_page(page, server)
    page.focus("#rack0")
    for _ in range(40):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement.id") == "board":
            break
    assert page.evaluate("document.activeElement.id") == "board"
    assert page.locator('#board .sq.cursor[data-r="7"][data-c="7"]').count() == 1
    page.keyboard.type("CAT")
    wait_until(page, "document.getElementById('cgp').value.startsWith('15/15/15/15/15/15/15/7CAT5/')")
    page.fill("#rack0", "AEINRST")
    moves_shown(page)
    page.focus("#rack0")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.closest('#moves tbody') !== null"):
            break
    assert page.evaluate("document.activeElement.closest('#moves tbody') !== null")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    second = text(page, "#moves tbody tr:nth-child(2) td.move").split("bingo")[0].strip()
    wait_until(page, "document.querySelectorAll('#moves tbody tr.pinned').length === 1")
    assert page.input_value("#move-input") == second
    assert page.locator("#board .tile.preview").count() > 0
    assert page.console_errors == []


def test_a_record_naming_no_ruleset_is_read_with_the_one_picked_when_its_letters_fit(desktop, server):
    """A Russian record without #tile-distribution: with English picked, the error says to pick
    Russian Scrabble or Эрудит in the menu (not "pass the ruleset to use"); with Russian picked,
    it loads."""
    page = desktop
    open_page(page, server)
    record = "#player1 a A\n#player2 b B\n>a: АБВГДЕЖ 8G ЖАБ +19 19\n"
    load_game(page, record)
    err = text(page, "#gcg-error")
    assert "pick Russian Scrabble or Эрудит in the Ruleset menu" in err and "pass the ruleset" not in err
    page.select_option("#ruleset", "russian")
    wait_until(page, "document.getElementById('ruleset').value === 'russian'")
    load_game(page, record)
    assert page.text_content("#gcg-error") == "" and text(page, "#game-summary").startswith("a 19 – b 0")
    assert page.console_errors == []


# --- accessibility (WCAG 2.1 AA): each test fails on the page before its fix ----------------------------
def _touch_phone(browser):
    """A phone with a touch screen (375×667): a tap is a touch, the page gets no hardware keyboard."""
    context = browser.new_context(viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True, device_scale_factor=2)
    pg = context.new_page()
    pg.size_name = "touch"
    pg.console_errors = []
    pg.on("console", lambda m: pg.console_errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    yield pg
    context.close()


@pytest.fixture
def touch(browser):
    yield from _touch_phone(browser)


def label_of(page, r: int, c: int) -> str:
    return page.get_attribute(f"#sq-{r}-{c}", "aria-label")


def active_cell(page) -> str:
    return page.evaluate("document.getElementById('board').getAttribute('aria-activedescendant')")


def focused_id(page) -> str:
    return page.evaluate("document.activeElement ? document.activeElement.id : ''")


def test_the_board_is_a_grid_a_screen_reader_reads(desktop, server):
    """The board was 225 nameless squares read as one run of text: it is a grid of rows of
    gridcells named by their square and what is on it (a blank told from a tile), the cursor's
    square is the grid's active cell (with the way it types), and what is put is announced."""
    from urllib.parse import quote

    page = desktop
    open_page(page, server, f"?cgp={quote(OUTGUN)}")
    grid = page.get_by_role("grid", name="Board")
    assert grid.get_by_role("row").count() == 15 and grid.get_by_role("gridcell").count() == 225
    snap = grid.aria_snapshot()
    for name in ("A1, triple word, empty", "D8, O, 1 point", "G8, G, 2 points", "F6, triple letter, empty", "D1, double letter, empty"):
        assert f'gridcell "{name}"' in snap, name
    page.goto(server.url)
    page.wait_for_selector("#board .sq")
    page.focus("#rack0")
    for _ in range(40):  # the keyboard only: Shift+Tab to the board
        page.keyboard.press("Shift+Tab")
        if focused_id(page) == "board":
            break
    assert focused_id(page) == "board" and active_cell(page) == "sq-7-7"
    assert label_of(page, 7, 7) == "H8, start, double word, empty, cursor, typing across"
    page.keyboard.type("O")
    assert label_of(page, 7, 7) == "H8, O, 1 point"
    assert active_cell(page) == "sq-7-8" and text(page, "#board-live") == "O put on H8"
    page.keyboard.type("t")  # a blank
    assert label_of(page, 7, 8) == "I8, T, blank" and text(page, "#board-live") == "blank T put on I8"
    page.keyboard.press("Space")
    assert text(page, "#board-live") == "typing down" and label_of(page, 7, 9).endswith("cursor, typing down")
    page.keyboard.press("ArrowDown")
    assert active_cell(page) == "sq-8-9" and label_of(page, 8, 9) == "J9, empty, cursor, typing down"
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Backspace")
    assert text(page, "#board-live") == "I8 erased" and label_of(page, 7, 8).startswith("I8, empty")
    wait_until(page, "document.getElementById('cgp').value.startsWith('15/15/15/15/15/15/15/7O7/')")
    # a move shown on the board is said to be shown, not on it
    page.fill("#rack0", "AEINRST")
    moves_shown(page)
    page.click("#moves tbody tr:nth-child(1)")
    wait_until(page, "document.querySelector('#board .tile.preview') !== null")
    assert "shown move" in grid.aria_snapshot()
    assert page.console_errors == []


def test_results_are_announced_and_the_focus_stays_on_the_button(desktop, server):
    """Solve, Find the best play, Run, Stop and Load game were disabled while working: the focus
    fell to the page and stayed there, and the results (not live regions) were never announced.
    Now the result is in a status region, and the focus stays on the button (Solve, Find the best
    play, Load game) or goes from Run to Stop and back."""
    import json
    from urllib.parse import quote

    page = desktop
    case = json.loads((FIXTURES / "endgames_magpie.jsonl").read_text("utf-8").splitlines()[0])
    open_page(page, server, f"?cgp={quote(case['cgp'])}")
    for box in ("endgame-head", "endgame-pv", "best-head", "best-summary"):
        assert page.evaluate(f"!!document.getElementById('{box}').closest('[role=status], [aria-live=polite]')"), box
    page.click('.tabs button[data-tab="endgame"]')
    page.focus("#endgame-run")
    page.keyboard.press("Enter")
    assert focused_id(page) == "endgame-run"
    wait_until(page, "document.getElementById('endgame-head').textContent.includes('nodes')", timeout=60)
    assert focused_id(page) == "endgame-run" and page.get_attribute("#endgame-run", "aria-disabled") is None
    # the first move of the line is a button that shows it on the board
    assert page.get_by_role("list", name="Line of best play").get_by_role("button").count() == 1
    page.click('.tabs button[data-tab="best"]')
    page.focus("#best-run")
    page.keyboard.press("Enter")
    assert focused_id(page) == "best-run"
    wait_until(page, "document.getElementById('best-head').textContent.length > 0", timeout=60)
    assert focused_id(page) == "best-run"
    assert page.locator("#best-result").get_attribute("role") == "status"
    assert page.locator("#best-head").get_by_role("button").count() == 1  # the best move: a button, not a strong
    # Run hands the focus to Stop, Stop back to Run
    open_page(page, server, f"?cgp={quote(OUTGUN)}")
    page.click('.tabs button[data-tab="sim"]')
    page.fill("#sim-candidates", "50")
    page.fill("#sim-plies", "32")
    page.focus("#sim-run")
    page.keyboard.press("Enter")
    assert focused_id(page) == "sim-stop"
    page.keyboard.press("Enter")
    assert focused_id(page) == "sim-run" and text(page, "#sim-head") == "stopped before the first answer"
    # Load game keeps the focus
    page.click('.tabs button[data-tab="game"]')
    page.fill("#gcg-text", (FIXTURES / "gcg" / "game01_seed1.gcg").read_text("utf-8"))
    page.focus("#gcg-form button[type=submit]")
    page.keyboard.press("Enter")
    wait_until(page, "document.getElementById('game-summary').textContent.length > 0", timeout=60)
    assert page.evaluate("document.activeElement === document.querySelector('#gcg-form button[type=submit]')")
    assert page.console_errors == []


def test_a_phone_types_on_the_board_with_its_on_screen_keyboard(touch, server):
    """A tap on a square focused the board (no text field): no on-screen keyboard opened, and the
    hint was hidden. The tap now focuses a text field over the square whose letters (an input
    event, as an on-screen keyboard sends them) go on the board; a short hint says how."""
    page = touch
    open_page(page, server)
    assert page.is_visible("#board-hint-touch") and not page.is_visible("#board-hint")
    page.tap('#board .sq[data-r="9"][data-c="7"]')
    assert focused_id(page) == "board-input"
    field = page.locator("#board-input")
    assert (field.get_attribute("inputmode"), field.get_attribute("autocapitalize"), field.get_attribute("autocomplete")) == \
        ("text", "characters", "off")
    page.keyboard.insert_text("CAt")  # what an on-screen keyboard types: input events, no key codes
    assert [label_of(page, 9, c) for c in (7, 8, 9)] == ["H10, C, 3 points", "I10, A, 1 point", "J10, T, blank"]
    assert "blank T put on J10" in text(page, "#board-live") and "K10" in text(page, "#board-live")
    wait_until(page, "document.getElementById('cgp').value.includes('/7CAt5/')")
    # ⌫ on the on-screen keyboard erases (the field keeps a character for it to delete)
    page.evaluate("""() => { const f = document.getElementById('board-input'); f.value = '';
        f.dispatchEvent(new InputEvent('input', {inputType: 'deleteContentBackward', bubbles: true})); }""")
    assert label_of(page, 9, 9).startswith("J10, triple letter, empty")
    # a second tap on the cursor's square turns it; the text field keeps the focus (and the keyboard)
    page.tap('#board .sq[data-r="9"][data-c="9"]')
    assert focused_id(page) == "board-input" and label_of(page, 9, 9).endswith("typing down")
    page.keyboard.insert_text("S")
    assert label_of(page, 9, 9) == "J10, S, 1 point" and active_cell(page) == "sq-10-9"
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    screenshot(page, "typing")
    assert page.console_errors == []


def test_another_ruleset_does_not_lose_the_position(desktop, server):
    """Arrowing through the Ruleset menu (the first Tab stop) changed the ruleset at each arrow
    and wiped the board, the racks, the scores and the game played, with no way back (WCAG 3.2.2).
    The position is put aside, said in a status, and Restore (the next Tab stop) brings it back."""
    from urllib.parse import quote

    page = desktop
    open_page(page, server, f"?cgp={quote(OUTGUN)}")
    page.click('.tabs button[data-tab="play"]')
    page.fill("#move-input", "J8 SOIREE")
    page.click("#play")
    wait_until(page, "document.querySelectorAll('#history li').length === 1")
    played = page.input_value("#cgp")
    page.focus("#ruleset")
    page.keyboard.press("ArrowDown")  # Chromium changes a closed menu's value (and fires change) at once
    wait_until(page, "document.getElementById('ruleset').value !== 'english'")
    page.keyboard.press("ArrowDown")
    wait_until(page, "document.getElementById('cgp').value.startsWith('15/15/15/15/15/15/15/15/')")
    assert page.locator("#board .tile").count() == 0
    assert "the English Scrabble position was put aside" in text(page, "#restore-text")
    assert page.get_attribute("#restore-text", "role") == "status"
    page.keyboard.press("Tab")
    assert focused_id(page) == "restore-button"
    page.keyboard.press("Enter")
    wait_until(page, "document.getElementById('ruleset').value === 'english' && "
                     f"document.getElementById('cgp').value === {played!r}")
    assert page.locator("#history li").count() == 1 and page.is_enabled("#undo")  # the game played is back too
    assert focused_id(page) == "ruleset" and page.is_hidden("#restore-button")
    # nothing to lose (an empty position): nothing to restore
    open_page(page, server)
    page.select_option("#ruleset", "super")
    wait_until(page, "document.getElementById('cgp').value.split(' ')[0].split('/').length === 21")
    assert page.is_hidden("#restore-button") and text(page, "#restore-text") == ""
    # Clear too: the position comes back
    page.click('#board .sq[data-r="10"][data-c="10"]')
    page.keyboard.type("CAT")
    page.fill("#score1", "12")
    wait_until(page, "document.getElementById('cgp').value.includes(' 0/12 ')")
    page.click("#clear")
    wait_until(page, "document.querySelectorAll('#board .tile').length === 0 && document.getElementById('score1').value === '0'")
    assert page.is_visible("#restore-button") and text(page, "#restore-text").startswith("Cleared")
    page.click("#restore-button")
    wait_until(page, "document.getElementById('cgp').value.includes(' 0/12 ')")
    assert page.locator("#board .tile").count() == 3
    assert page.console_errors == []


def test_blanks_are_heard_as_blanks(desktop, server):
    """A blank was shown by a lower-case letter only (in the moves, the line, the history, the
    turns), which a screen reader does not say: each one is now read "blank s" (the text, copied
    or read by innerText, stays the notation), and a '?' of a leave is read "blank"."""
    from urllib.parse import quote

    page = desktop
    open_page(page, server, "?cgp=" + quote(f"{EMPTY} AEINST?/ 0/0 0"))
    moves_shown(page)
    cells = page.locator("#moves tbody td.move")
    notations = [t.split("bingo")[0].strip() for t in cells.all_inner_texts()]
    assert any(n != n.upper() for n in notations) and all("blank" not in n for n in notations)
    snap = page.locator("#moves").aria_snapshot()
    blank = next(n for n in notations[::2] if n != n.upper())
    letter = next(ch for ch in blank if ch != ch.upper())
    assert f"{blank.split()[0]} " in snap and f"blank {letter}" in snap
    # a '?' (the rack's blank, the unseen one in the bag) is read "blank"
    assert '- listitem "blank"' in page.locator("#rack-tiles").aria_snapshot()
    assert "?" in text(page, "#bag") and "blank" in page.locator("#bag .pool").aria_snapshot()
    # played: the history says it too
    page.click('.tabs button[data-tab="play"]')
    page.fill("#move-input", blank)
    page.click("#play")
    wait_until(page, "document.querySelectorAll('#history li').length === 1")
    assert f"blank {letter}" in page.locator("#history").aria_snapshot()
    assert text(page, "#history").startswith(blank)
    # on the board: the blank's square says it is a blank
    r, c = page.evaluate("""(() => { for (const sq of document.querySelectorAll('#board .sq'))
        if (/, blank$/.test(sq.getAttribute('aria-label'))) return [+sq.dataset.r, +sq.dataset.c]; })()""")
    assert label_of(page, r, c).endswith(f", {letter.upper()}, blank")
    assert page.console_errors == []


CONTRAST_JS = """(pairs) => {
  const rgb = (s) => { const v = s.match(/rgba?\\(([^)]+)\\)/)[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const lum = (c) => { const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const over = (fg, bg) => fg.slice(0, 3).map((x, i) => x * fg[3] + bg[i] * (1 - fg[3]));
  const bgOf = (el) => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
    if (c[3] > 0) return c.slice(0, 3); } return [255, 255, 255]; };
  const out = {};
  for (const [name, sel, pseudo, prop] of pairs) {
    const el = document.querySelector(sel);
    if (!el) { out[name] = null; continue; }
    const bg = prop === "borderTopColor" ? bgOf(el.parentElement) : bgOf(el);
    const fg = over(rgb(getComputedStyle(el, pseudo || null)[prop || "color"]), bg);
    const a = lum(fg), b = lum(bg);
    out[name] = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }
  return out;
}"""


def test_text_and_marks_have_contrast_and_kept_rows_say_so(desktop, server):
    """WCAG 1.4.3 and 1.4.11: the 3L and 3W labels, a move undone, the tiles already on the board
    in the breakdown, the ×2 of a premium, the start star and the fields' borders were below
    4.5:1 (text) or 3:1 (marks); the move kept and the turn shown were a background colour only
    (1.2:1) with nothing said: now aria-selected and a bar."""
    from urllib.parse import quote

    page = desktop
    open_page(page, server)
    page.evaluate("""document.body.append(Object.assign(document.createElement('span'), {className: 'chip', id: 'probe',
        innerHTML: 'Q<sub>10</sub><span class="mult">×2</span>'}))""")
    wait_until(page, "document.querySelector('#board .sq.start') !== null")
    text_pairs = [("3L", "#board .sq.tl", None, None), ("3W", "#board .sq.tw", None, None),
                  ("×2", "#probe .mult", None, None), ("tab", ".tabs button:not(.active)", None, None)]
    mark_pairs = [("star", "#board .sq.start", "::after", None), ("rack border", "#rack0", None, "borderTopColor"),
                  ("button border", "#clear", None, "borderTopColor")]
    ratios = page.evaluate(CONTRAST_JS, text_pairs + mark_pairs)
    for name, *_ in text_pairs:
        assert ratios[name] >= 4.5, (name, ratios[name])
    for name, *_ in mark_pairs:
        assert ratios[name] >= 3, (name, ratios[name])
    open_page(page, server, f"?cgp={quote(OUTGUN)}")
    page.fill("#move-input", "8D (OUTGUN)S")
    page.click("#check-form button[type=submit]")
    wait_until(page, "document.querySelector('#breakdown .chip.old') !== null")
    page.click('.tabs button[data-tab="play"]')
    page.click("#play")
    wait_until(page, "document.querySelectorAll('#history li').length === 1")
    page.focus("#undo")
    page.keyboard.press("Enter")
    wait_until(page, "document.querySelectorAll('#history li.undone').length === 1")
    assert focused_id(page) == "redo"  # Undo has nothing more to undo: the focus goes to Redo, not to the page
    ratios = page.evaluate(CONTRAST_JS, [("undone", "#history li.undone", None, None)])
    assert ratios["undone"] >= 4.5, ratios
    assert "undone" in text(page, "#history li.undone")  # said in words, not only struck through
    page.fill("#move-input", "8D (OUTGUN)S")
    page.click("#check-form button[type=submit]")
    wait_until(page, "document.querySelector('#breakdown .chip.old') !== null")
    ratios = page.evaluate(CONTRAST_JS, [("old tile", "#breakdown .chip.old", None, None)])
    assert ratios["old tile"] >= 4.5, ratios
    # the move kept: aria-selected, and a bar beside it
    page.click('.tabs button[data-tab="moves"]')
    page.click("#moves tbody tr:nth-child(2)")
    wait_until(page, "document.querySelectorAll('#moves tbody tr.pinned').length === 1")
    assert page.get_attribute("#moves tbody tr:nth-child(2)", "aria-selected") == "true"
    assert page.get_attribute("#moves tbody tr:nth-child(1)", "aria-selected") == "false"
    assert page.evaluate("getComputedStyle(document.querySelector('#moves tbody tr.pinned td')).boxShadow") != "none"
    assert page.console_errors == []


def png_pixels(data: bytes) -> list[list[tuple[int, ...]]]:
    """The pixels of an 8-bit RGB or RGBA PNG (what Chromium's screenshots are), rows of tuples."""
    import struct
    import zlib

    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and color in (2, 6)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    bpp = 4 if color == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return rows


def test_the_cursor_shows_over_a_tile(desktop, server):
    """The cursor's outline was drawn under the tile: on a square holding a tile it could not be
    seen. Its frame is now over the tile: the square's edges are the accent's blue."""
    from urllib.parse import quote

    page = desktop
    open_page(page, server, f"?cgp={quote(OUTGUN)}")
    page.click('#board .sq[data-r="7"][data-c="4"]')  # E8: the U of OUTGUN
    assert page.locator('#board .sq.cursor[data-r="7"][data-c="4"] .tile').count() == 1
    page.mouse.move(0, 0)
    rows = png_pixels(page.locator('#board .sq[data-r="7"][data-c="4"]').screenshot())
    h, w = len(rows), len(rows[0])
    edges = [rows[h // 2][1], rows[h // 2][w - 2], rows[1][w // 2], rows[h - 2][w // 2]]
    blue = [px for px in edges if px[2] > px[0] + 60]  # the accent #2f6fad, not the tile's #f5deb3
    assert len(blue) == 4, edges


def test_russian_words_are_marked_russian(desktop, server):
    """With Russian Scrabble or Эрудит the tiles, racks, moves and words were not marked lang="ru"
    (a screen reader read them with an English voice): they are now, and English ones are not."""
    page = desktop
    open_page(page, server, "?ruleset=russian")
    page.fill("#rack0", "КОРОВА?")
    moves_shown(page)
    assert page.get_attribute("#rack0", "lang") == "ru"
    langs = page.evaluate("[...document.querySelectorAll('#moves tbody td.move')].map((td) => td.lang)")
    assert langs and set(langs) == {"ru"}
    assert page.evaluate("[...document.querySelectorAll('#rack-tiles .tile')].every((t) => t.lang === 'ru')")
    assert page.get_attribute('#ruleset option[value="erudit"]', "lang") == "ru"
    page.click('#board .sq[data-r="7"][data-c="7"]')
    # a Russian keyboard's key (Playwright's has no Cyrillic keys)
    page.evaluate("document.getElementById('board').dispatchEvent(new KeyboardEvent('keydown', {key: 'К', bubbles: true}))")
    assert page.get_attribute("#sq-7-7 .tile", "lang") == "ru"
    page.select_option("#ruleset", "english")
    page.fill("#rack0", "AEINRST")
    wait_until(page, "document.getElementById('moves-head').textContent.includes('AEINRST')")
    assert page.evaluate("[...document.querySelectorAll('#moves tbody td.move')].every((td) => !td.lang)")
    assert page.get_attribute("#rack0", "lang") is None
    assert page.console_errors == []


def test_the_game_stepper_says_the_turn(desktop, server):
    """The Turn slider said "2" (no aria-valuetext), the stepper's buttons were «‹›», the label, the
    card and the summary were not live regions, the card's best moves ran together ("8D KRONE28
    pts") and the turn shown was a background colour only."""
    import re

    page = desktop
    open_page(page, server)
    load_game(page, (FIXTURES / "gcg" / "game01_seed1.gcg").read_text("utf-8"))
    n = page.locator("#turns tbody tr").count()
    assert page.get_attribute("#turn", "aria-valuetext") == f"turn 1 of {n}"
    assert page.get_attribute("#turn-label", "role") == "status" and page.get_attribute("#game-summary", "role") == "status"
    assert page.get_attribute("#turn-card", "aria-live") == "polite" and page.get_attribute("#game-errors", "aria-live") == "polite"
    stepper = page.locator(".stepper").aria_snapshot()
    for name in ("First turn", "Previous turn", "Next turn", "End of the game"):
        assert f'button "{name}"' in stepper, stepper
    page.focus("#turn")
    page.keyboard.press("ArrowRight")
    wait_until(page, f"document.getElementById('turn').getAttribute('aria-valuetext') === 'turn 2 of {n}'")
    assert page.get_attribute("#turns tbody tr:nth-child(2)", "aria-selected") == "true"
    assert page.get_attribute("#turns tbody tr:nth-child(1)", "aria-selected") == "false"
    # the turn shown is the turns table's one Tab stop
    assert page.locator('#turns tbody tr[tabindex="0"]').count() == 1
    assert page.get_attribute("#turns tbody tr:nth-child(2)", "tabindex") == "0"
    wait_until(page, "document.querySelector('#turn-card li') !== null")
    best = page.locator("#turn-card li").first
    assert best.get_by_role("button").count() == 1
    assert re.match(r"^.+\S \d+ pts", best.inner_text()), best.inner_text()  # "8D KRONE 28 pts", not "KRONE28"
    page.click("#turn-last")
    wait_until(page, "document.getElementById('turn').getAttribute('aria-valuetext') === 'end of the game'")
    assert page.console_errors == []


def test_the_tabs_follow_the_aria_tabs_pattern(desktop, server):
    """The tabs had no tabpanel, aria-controls or aria-labelledby, and the arrows did not move
    between them: now the WAI-ARIA tabs pattern (one Tab stop, ← → Home End)."""
    page = desktop
    open_page(page, server)
    tabs = page.locator(".tabs [role=tab]")
    for i in range(tabs.count()):
        tab = tabs.nth(i)
        panel = tab.get_attribute("aria-controls")
        assert panel and page.get_attribute(f"#{panel}", "role") == "tabpanel"
        assert page.get_attribute(f"#{panel}", "aria-labelledby") == tab.get_attribute("id")
    assert page.locator('.tabs [role=tab][tabindex="0"]').count() == 1
    page.focus('.tabs button[data-tab="moves"]')
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.tab") == "best" and page.is_visible("#tab-best")
    assert page.get_attribute('.tabs button[data-tab="best"]', "aria-selected") == "true"
    assert page.get_attribute('.tabs button[data-tab="best"]', "tabindex") == "0"
    assert page.get_attribute('.tabs button[data-tab="moves"]', "tabindex") == "-1"
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.dataset.tab") == "endgame" and page.is_visible("#tab-endgame")
    page.keyboard.press("ArrowRight")  # wraps
    assert page.evaluate("document.activeElement.dataset.tab") == "moves" and page.is_visible("#tab-moves")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Home")
    assert page.evaluate("document.activeElement.dataset.tab") == "moves"
    wait_until(page, "location.search.includes('tab=moves')")
    page.keyboard.press("Tab")  # out of the tablist in one press: into the panel
    assert page.evaluate("document.activeElement.closest('#tab-moves') !== null")
    assert page.console_errors == []


def test_fields_are_named_marked_invalid_and_under_headings(desktop, server):
    """The GCG text box was named by its placeholder only, a field with an error had no
    aria-invalid, and the panels had no headings."""
    page = desktop
    open_page(page, server)
    for name in ("Position", "Moves", "Check a move"):
        assert page.get_by_role("heading", level=2, name=name, exact=True).count() == 1, name
    page.click('.tabs button[data-tab="game"]')
    assert page.get_by_role("heading", level=2, name="Game", exact=True).count() == 1
    assert page.get_by_label("Game record (GCG)", exact=True).evaluate("(e) => e.id") == "gcg-text"
    page.fill("#rack0", "AB1")
    wait_until(page, "document.getElementById('rack0-error').textContent.length > 0")
    assert page.get_attribute("#rack0", "aria-invalid") == "true"
    page.fill("#rack0", "AB")
    wait_until(page, "document.getElementById('rack0-error').textContent === ''")
    assert page.get_attribute("#rack0", "aria-invalid") is None
    page.click('.tabs button[data-tab="sim"]')
    page.fill("#sim-candidates", "0")
    page.click("#sim-run")
    wait_until(page, "document.getElementById('sim-error').textContent.length > 0")
    assert page.get_attribute("#sim-candidates", "aria-invalid") == "true"
    assert "sim-error" in page.get_attribute("#sim-candidates", "aria-describedby")
    assert page.console_errors == []


def test_every_move_is_one_tab_stop_and_escape_keeps_the_board_typing(desktop, server):
    """"Show: all" made each of hundreds of rows a Tab stop: the table is one stop (↑ ↓ Home End go
    through the rows). After Escape on the board, keys did nothing until Tab out and back."""
    from urllib.parse import quote

    page = desktop
    open_page(page, server, "?top=all&cgp=" + quote("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 AEINRS?/ 0/0 0"))
    moves_shown(page)
    rows = page.locator("#moves tbody tr")
    assert rows.count() > 300 and page.locator('#moves tbody tr[tabindex="0"]').count() == 1
    page.focus("#leaves")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement === document.querySelector('#moves tbody tr')")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement === document.querySelector('#moves tbody tr:nth-child(3)')")
    assert page.locator('#moves tbody tr[tabindex="0"]').count() == 1
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement === document.querySelector('#moves tbody tr:last-child')")
    page.keyboard.press("Home")
    page.keyboard.press("PageDown")
    assert page.evaluate("document.activeElement === document.querySelector('#moves tbody tr:nth-child(11)')")
    page.keyboard.press("Tab")  # out of the table at once
    assert focused_id(page) == "move-input"
    page.keyboard.press("Shift+Tab")  # back to the row it left
    assert page.evaluate("document.activeElement === document.querySelector('#moves tbody tr:nth-child(11)')")
    # Escape hides the cursor; the next key brings it back where it was
    page.focus("#board")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    assert page.locator("#board .sq.cursor").count() == 0 and active_cell(page) is None
    page.keyboard.type("A")
    assert label_of(page, 8, 7) == "H9, A, 1 point"
    assert page.console_errors == []


def test_a_move_tapped_on_a_phone_is_shown_in_view(touch, server):
    """On a phone the moves are below the board: a tapped move was shown on a board scrolled out of
    view. The board now comes into view (a key press does not scroll: the focus stays seen)."""
    from urllib.parse import quote

    page = touch
    open_page(page, server, f"?cgp={quote(OUTGUN)}")
    moves_shown(page)
    row = page.locator("#moves tbody tr").nth(2)
    row.evaluate("(e) => e.scrollIntoView({block: 'start'})")
    assert page.locator("#board").bounding_box()["y"] + page.locator("#board").bounding_box()["height"] < 0
    row.tap()
    wait_until(page, "document.querySelectorAll('#moves tbody tr.pinned').length === 1")
    wait_until(page, "(() => { const b = document.getElementById('board').getBoundingClientRect(); "
                     "return b.top >= -1 && b.bottom <= innerHeight + 1; })()", timeout=5)
    assert page.locator("#board .tile.preview").count() > 0
    assert page.console_errors == []


# --- tiles of several characters (Spanish CH, LL, RR; Catalan L·L, NY, QU): a Spanish/Catalan list maintainer's audit
_BOARD15 = ["=..'...=...'..=", ".-...\"...\"...-.", "..-...'.'...-..", "'..-...'...-..'", "....-.....-....",
            ".\"...\"...\"...\".", "..'...'.'...'..", "=..'...-...'..=", "..'...'.'...'..", ".\"...\"...\"...\".",
            "....-.....-....", "'..-...'...-..'", "..-...'.'...-..", ".-...\"...\"...-.", "=..'...=...'..="]


def _ruleset_server(tmp_path_factory, name: str, title: str, tiles: list, words: list[str]):
    """A server whose default ruleset is a user ruleset file with ``tiles`` ([letter, count, points]) and a
    word list of ``words`` (tiles of several characters in brackets, as MAGPIE's lists write them)."""
    import json

    d = tmp_path_factory.mktemp(name)
    (d / "words.txt").write_text("\n".join(words) + "\n", "utf-8")
    rows = ",\n".join("  " + json.dumps(r) for r in _BOARD15)
    tile_lines = ",\n".join(f"  [{json.dumps(t)}, {n}, {p}]" for t, n, p in tiles)
    (d / f"{name}.toml").write_text(
        f'name = "{name}"\ntitle = "{title}"\nlexicon = "words.txt"\nrack_size = 7\nbingo_bonus = 50\nstart = "8H"\n'
        f'blanks = 2\nvowels = "AEIOU"\nboard = [\n{rows}\n]\ntiles = [\n{tile_lines}\n]\n', "utf-8")
    logged: list[str] = []
    srv = make_server(Analyzer(d / f"{name}.toml"), "127.0.0.1", 0, log=logged.append)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    return srv, logged


@pytest.fixture(scope="module")
def spanish_server(tmp_path_factory):
    """Spanish-like tiles (CH, LL, RR besides C, H, L, R) and a few words with CH and LL."""
    tiles = [["A", 12, 1], ["C", 4, 3], ["CH", 1, 5], ["D", 5, 2], ["E", 12, 1], ["H", 2, 4], ["I", 6, 1], ["L", 4, 1],
             ["LL", 1, 8], ["N", 5, 1], ["O", 9, 1], ["R", 5, 1], ["RR", 1, 8], ["S", 6, 1], ["T", 4, 1], ["U", 5, 1]]
    words = ["[CH]A", "A[CH]E", "CA[CH]O", "CO[CH]E", "CO[CH]ES", "CA[LL]E", "CASA", "COSA", "OCA", "HA", "SE"]
    srv, logged = _ruleset_server(tmp_path_factory, "spanish_mini", "Spanish mini", tiles, words)
    yield srv
    srv.shutdown()
    srv.server_close()
    assert logged == []


@pytest.fixture(scope="module")
def catalan_server(tmp_path_factory):
    """Catalan-like tiles: L·L, NY and QU, with no Y, no Q and no · of their own."""
    tiles = [["A", 12, 1], ["C", 3, 2], ["E", 13, 1], ["I", 8, 1], ["L", 4, 1], ["L·L", 1, 10], ["N", 6, 1], ["NY", 1, 10],
             ["O", 5, 1], ["P", 2, 3], ["QU", 1, 8], ["S", 8, 1], ["T", 5, 1], ["U", 4, 1], ["V", 1, 4]]
    words = ["PA[NY]", "[QU]E", "CAVA[L·L]", "A[NY]", "PA"]
    srv, logged = _ruleset_server(tmp_path_factory, "catalan_mini", "Catalan mini", tiles, words)
    yield srv
    srv.shutdown()
    srv.server_close()
    assert logged == []


def test_a_tile_of_several_letters_is_typed_in_brackets(desktop, spanish_server):
    """Each key filled one square: the CH tile (or its blank) could not be put on the board. "[" now
    begins a tile, its letters show in the cursor's square, "]" (or Enter) puts it, upper case the tile
    and lower case its blank; Escape gives it up; C then H stay two tiles, as the server reads CH."""
    page = desktop
    open_page(page, spanish_server)
    assert "[CH]" in text(page, "#board-hint") and "[ch]" in text(page, "#board-hint")
    page.click("#sq-7-7")
    page.keyboard.type("[CH")
    assert page.text_content("#sq-7-7 .composing") == "[CH"
    assert label_of(page, 7, 7) == "H8, start, double word, empty, typing the tile [CH, cursor, typing across"
    assert text(page, "#board-live") == "typing [CH"
    page.keyboard.type("]")
    assert label_of(page, 7, 7) == "H8, CH, 5 points" and active_cell(page) == "sq-7-8"
    assert text(page, "#board-live") == "CH put on H8" and page.locator("#board .composing").count() == 0
    page.keyboard.type("[ch")
    page.keyboard.press("Enter")
    assert label_of(page, 7, 8) == "I8, CH, blank"
    page.keyboard.type("CH")  # two tiles, as the server reads CH without brackets
    assert [label_of(page, 7, c) for c in (9, 10)] == ["J8, C, 3 points", "K8, H, 4 points"]
    wait_until(page, "document.getElementById('cgp').value.startsWith('15/15/15/15/15/15/15/7[CH][ch]CH4/')")
    # a tile that is no tile of the ruleset: the board's error, nothing put
    page.keyboard.type("[xy]")
    assert text(page, "#board-error").startswith("xy is not a letter of Spanish mini")
    assert "[CH], [LL], [RR]" in text(page, "#board-error")
    assert label_of(page, 7, 11).startswith("L8, double letter, empty") and active_cell(page) == "sq-7-11"
    # Escape gives up the tile being typed (the cursor stays), Backspace takes back its letters
    page.keyboard.type("[LL")
    page.keyboard.press("Backspace")
    assert page.text_content("#sq-7-11 .composing") == "[L"
    page.keyboard.press("Escape")
    assert page.locator("#board .composing").count() == 0 and active_cell(page) == "sq-7-11"
    assert text(page, "#board-live") == "tile cancelled"
    page.keyboard.type("[rr]")
    assert label_of(page, 7, 11) == "L8, RR, blank"
    assert page.console_errors == []


def test_tile_buttons_put_a_tile_of_several_letters_and_its_blank(desktop, spanish_server):
    """A button for each tile of several characters beside the board: a click puts it at the cursor
    (the board keeps the focus), Shift-click or the Blank toggle its blank; named for screen readers."""
    page = desktop
    open_page(page, spanish_server)
    group = page.get_by_role("group", name="Tiles of several letters")
    assert group.is_visible()
    assert [b.get_attribute("aria-label") for b in group.get_by_role("button").all()] == \
        ["tile CH", "tile LL", "tile RR", None]
    page.click("#sq-7-7")
    group.get_by_role("button", name="tile CH").click()
    assert label_of(page, 7, 7) == "H8, CH, 5 points" and active_cell(page) == "sq-7-8" and focused_id(page) == "board"
    assert text(page, "#board-live") == "CH put on H8"
    group.get_by_role("button", name="tile LL").click(modifiers=["Shift"])
    assert label_of(page, 7, 8) == "I8, LL, blank"
    blank = group.get_by_role("button", name="Blank", exact=True)
    blank.click()
    assert blank.get_attribute("aria-pressed") == "true"
    group.get_by_role("button", name="blank RR").click()
    assert label_of(page, 7, 9) == "J8, RR, blank"
    # the keyboard alone: Enter on a button puts its tile, the square it went to and the next are said
    group.get_by_role("button", name="blank CH").focus()
    page.keyboard.press("Enter")
    assert label_of(page, 7, 10) == "K8, CH, blank" and focused_id(page) != "board"
    assert text(page, "#board-live") == "blank CH put on K8; L8, double letter, empty, cursor, typing across"
    wait_until(page, "document.getElementById('cgp').value.startsWith('15/15/15/15/15/15/15/7[CH][ll][rr][ch]4/')")
    # three blanks of a set of two: said below the board, as every position error typed there
    wait_until(page, "document.getElementById('board-error').textContent.includes('3 blank tiles')")
    # a ruleset of one-letter tiles has no such buttons
    page.select_option("#ruleset", "english")
    wait_until(page, "document.getElementById('ruleset').value === 'english'")
    assert page.is_hidden("#tile-buttons") and "[" not in text(page, "#board-hint")
    assert page.console_errors == []


def test_a_phone_puts_a_tile_of_several_letters(touch, spanish_server):
    """On a phone: "[ch]" typed with the on-screen keyboard is the blank CH, and a tile button tapped
    while typing keeps the text field (and the keyboard)."""
    page = touch
    open_page(page, spanish_server)
    assert "[CH]" in text(page, "#board-hint-touch")
    page.tap('#board .sq[data-r="7"][data-c="7"]')
    assert focused_id(page) == "board-input"
    page.keyboard.insert_text("[ch]")
    assert label_of(page, 7, 7) == "H8, CH, blank"
    page.get_by_role("button", name="tile LL").tap()
    assert focused_id(page) == "board-input" and label_of(page, 7, 8) == "I8, LL, 8 points"
    page.keyboard.insert_text("A")
    assert label_of(page, 7, 9) == "J8, A, 1 point"
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    screenshot(page, "tiles")
    assert page.console_errors == []


def test_catalan_letters_that_are_no_tile_alone_join_the_tile(desktop, catalan_server):
    """Catalan: Y was "not a letter". Letters that are no tile alone join the tile just typed (N then Y
    is NY, L · L is L·L) or begin one (Q of QU), as the server reads PANY, QUE and CAVAL·L."""
    page = desktop
    open_page(page, catalan_server)
    hint = text(page, "#board-hint")
    assert "N Y" in hint and "NY" in hint
    page.click("#sq-7-7")
    page.keyboard.type("PANY")
    assert [label_of(page, 7, c) for c in (7, 8, 9)] == ["H8, P, 3 points", "I8, A, 1 point", "J8, NY, 10 points"]
    assert active_cell(page) == "sq-7-10" and text(page, "#board-live") == "NY put on J8"
    page.keyboard.type("Q")  # no tile alone: the start of QU, shown in the square
    assert page.text_content("#sq-7-10 .composing") == "Q"
    page.keyboard.type("U")
    assert label_of(page, 7, 10) == "K8, QU, 8 points" and active_cell(page) == "sq-7-11"
    page.keyboard.type("ny")  # the blank
    assert label_of(page, 7, 11) == "L8, NY, blank"
    page.click("#sq-9-3")
    page.keyboard.type("CAVAL")
    # "·" (Shift+3 on a Catalan keyboard), a key Playwright's US keyboard has not: sent as Chromium gets it
    cdp = page.context.new_cdp_session(page)
    for kind in ("keyDown", "keyUp"):
        cdp.send("Input.dispatchKeyEvent", {"type": kind, "key": "·", "code": "Digit3", "text": "·" if kind == "keyDown" else "",
                                            "modifiers": 8})
    assert page.text_content("#sq-9-7 .composing") == "L·"
    page.keyboard.press("L")
    assert label_of(page, 9, 7) == "H10, L·L, 10 points" and active_cell(page) == "sq-9-8"
    wait_until(page, "document.getElementById('cgp').value.includes('/3CAVA[L·L]7/')")
    assert "/7PA[NY][QU][ny]3/" in page.input_value("#cgp")
    # Y alone is still no letter: the error says how to type NY
    page.click("#sq-11-0")
    page.keyboard.type("Y")
    err = text(page, "#board-error")
    assert err.startswith("Y is not a letter of Catalan mini") and "[NY]" in err and "N then Y" in err
    assert label_of(page, 11, 0).startswith("A12, ") and label_of(page, 11, 0).endswith("empty, cursor, typing across")
    assert page.console_errors == []


def test_racks_and_moves_with_a_tile_of_several_letters(desktop, spanish_server):
    """[CH] typed in the rack and the move field: the moves are listed (written as the server writes
    them), a move checks, shows on the board and plays; the blank [ch] is one blank, heard as one."""
    page = desktop
    open_page(page, spanish_server)
    page.fill("#rack0", "[CH]AOES?")
    moves_shown(page)
    assert "moves for A[CH]EOS? by" in text(page, "#moves-head")
    assert page.get_by_role("listitem", name="CH, 5 points").count() == 1
    notations = page.locator("#moves tbody td.move").all_inner_texts()
    assert any("[CH]" in n for n in notations), notations
    page.fill("#move-input", "8G [CH]A")
    page.click("#check-form button[type=submit]")
    wait_until(page, "document.getElementById('verdict').textContent.includes('legal')")
    assert text(page, "#verdict") == "✓ legal — scores 12"
    wait_until(page, "document.querySelectorAll('#board .tile.preview').length === 2")
    assert label_of(page, 7, 6) == "G8, CH, 5 points, shown move"
    page.fill("#move-input", "8G [ch]A")
    page.click("#check-form button[type=submit]")
    wait_until(page, "document.getElementById('verdict').textContent.includes('scores 2')")
    wait_until(page, "document.querySelector('#breakdown h3 .bl') !== null")
    assert page.locator("#breakdown h3 .bl").all_inner_texts() == ["[ch]"]  # one blank, not c and h
    page.fill("#move-input", "8G [CH]A")
    page.click('.tabs button[data-tab="play"]')
    page.click("#play")
    wait_until(page, "document.querySelectorAll('#history li').length === 1")
    assert text(page, "#history").startswith("8G [CH]A +12")
    assert page.input_value("#cgp").startswith("15/15/15/15/15/15/15/6[CH]A7/")
    assert page.console_errors == []


def test_a_turn_played_with_the_bag_empty_shows_the_endgame_solver_s_verdict(desktop, server):
    """Turn 21 of game01 (the bag empty): the card said "best move of 400 · equity 8.00" though the
    analysis's endgame solver says 14J DIETE(R) lost 12 points to N12 TREE. The solver's verdict is
    now the card's headline and the turns table's (rank "endgame", lost in points); the rank by
    equity stays below it as a hint. A turn with tiles in the bag shows what it showed."""
    import re

    page = desktop
    open_page(page, server)
    load_game(page, (FIXTURES / "gcg" / "game01_seed1.gcg").read_text("utf-8"))
    wait_until(page, "document.querySelectorAll('#turns tbody tr').length === 24")
    # the turns table: the endgame rows say so and give the points lost; the others rank and equity as before
    row21, row24 = "#turns tbody tr:nth-child(21)", "#turns tbody tr:nth-child(24)"
    assert text(page, f"{row21} td:nth-child(6)") == "endgame" and text(page, f"{row21} td:nth-child(7)") == "12 pts"
    assert "big" in page.get_attribute(f"{row21} td:nth-child(7)", "class")
    assert text(page, f"{row24} td:nth-child(7)") == "0 pts"
    assert page.get_attribute(row21, "title").startswith("endgame solver: lost 12 points; spread by the end of the game: "
                                                          "played +4, best N12 TREE +16 (exact)")
    assert re.fullmatch(r"\d+", text(page, "#turns tbody tr:nth-child(1) td:nth-child(6)"))
    assert re.fullmatch(r"\d+\.\d", text(page, "#turns tbody tr:nth-child(1) td:nth-child(7)"))
    legend = page.get_attribute("#turns", "aria-describedby")
    assert "endgame solver" in text(page, f"#{legend}")
    # the card: the solver's verdict first, the rank by equity after it
    page.click(row21)
    wait_until(page, "document.getElementById('turn-card').textContent.includes('endgame solver')")
    card = text(page, "#turn-card")
    assert "endgame solver: lost 12 points · spread by the end of the game: played +4, best N12 TREE +16 · exact" in card
    assert "by equity: best move of 400 · equity 8.00" in card
    assert card.index("endgame solver") < card.index("by equity")
    assert page.get_attribute("#turn-card .endgame-verdict .rank", "class") == "rank lost"
    # the solver's best move shows itself on the board
    best = page.locator("#turn-card .endgame-verdict").get_by_role("button", name="N12 TREE")
    assert best.count() == 1
    best.click()
    wait_until(page, "document.querySelectorAll('#board .tile.preview').length > 0")
    ratios = page.evaluate(CONTRAST_JS, [("by equity", "#turn-card .endgame-verdict + .subtle", None, None),
                                         ("legend", f"#{legend}", None, None)])
    assert ratios["by equity"] >= 4.5 and ratios["legend"] >= 4.5, ratios
    # the move played is the solver's best: said so
    page.click(row24)
    wait_until(page, "document.getElementById('turn-card').textContent.includes('endgame solver: best play')")
    card = text(page, "#turn-card")
    assert "played +10 · exact" in card and "best M12" not in card.split("by equity")[0]
    # tiles in the bag: no verdict of the solver, the rank the headline as before
    page.click("#turns tbody tr:nth-child(1)")
    wait_until(page, "!document.getElementById('turn-card').textContent.includes('endgame solver')")
    card = text(page, "#turn-card")
    assert "by equity" not in card and re.search(r"(best move|rank \d+) of \d+ · equity", card)
    assert page.console_errors == []


def test_the_players_summary_is_a_table_under_a_heading(desktop, server):
    """The analysis's per-player summary (analysis.players) was not on the page: now a table under
    a heading "Players", a row each (the player its row header): turns, best moves, equity lost,
    bingos, and the points the endgame solver says each lost with the bag empty. Closed with the
    game."""
    page = desktop
    open_page(page, server)
    load_game(page, (FIXTURES / "gcg" / "game01_seed1.gcg").read_text("utf-8"))
    wait_until(page, "!document.getElementById('players-summary').hidden")
    assert page.get_by_role("heading", level=3, name="Players", exact=True).count() == 1
    table = page.get_by_role("table", name="Players", exact=True)
    assert table.count() == 1
    heads = [table.get_by_role("columnheader").nth(i).inner_text() for i in range(table.get_by_role("columnheader").count())]
    assert heads == ["player", "turns", "best moves", "equity lost", "per turn", "bingos", "bingos missed of chances",
                     "endgame points lost"]
    assert [table.get_by_role("rowheader").nth(i).inner_text() for i in range(2)] == ["p1", "p2"]
    rows = [[c.strip() for c in r.split("\t")] for r in text(page, "#players-table tbody").split("\n")]
    # the server's leaves (SYNTH) are those the game was played with: every move the best by equity
    # but two endgame turns of each player; the equity lost is the endgame solver's points with the bag empty
    assert rows == [["p1", "12", "10 of 12", "19.0", "1.58", "1", "0 of 1", "19 in 2 turns"],
                    ["p2", "12", "11 of 12", "9.0", "0.75", "4", "0 of 4", "9 in 2 turns"]]
    snapshot = page.locator("#players-summary").aria_snapshot()
    assert 'heading "Players"' in snapshot and 'rowheader "p1"' in snapshot, snapshot
    assert page.locator("#players-table tbody [tabindex]").count() == 0  # no Tab stop: a table to read, not to act in
    page.select_option("#ruleset", "super")  # the game closes: its summary with it
    wait_until(page, "document.getElementById('game').hidden")
    assert page.is_hidden("#players-summary") and page.locator("#players-table tbody tr").count() == 0
    assert page.console_errors == []


def test_the_game_view_shows_what_the_analysis_gives_and_no_more(desktop, server):
    """The page reads the analysis's keys as they come: a verdict not exact says so (≈), a turn
    without an ``endgame`` key shows the rank as the headline, and numbers the analysis adds to a
    player (a simulation's roll-up) are columns of the summary; a key it does not know, no column."""
    import json

    page = desktop
    open_page(page, server)

    def answer(route):
        d = route.fetch().json()
        turns = d["analysis"]["turns"]
        turns[20]["endgame"]["exact"] = False
        del turns[21]["endgame"]  # an analysis without the key
        for p in d["analysis"]["players"]:
            p["sim_turns"] = 20
            p["win_pct_lost"] = 3.25
            p["grades"] = {"best": 3, "mistake": 1}
            p["unknown"] = 7  # a key the page does not know: no column
        d["analysis"]["players"][0]["endgame_inexact"] = 1
        route.fulfill(status=200, content_type="application/json", body=json.dumps(d))

    page.route("**/api/gcg", answer)
    load_game(page, (FIXTURES / "gcg" / "game01_seed1.gcg").read_text("utf-8"))
    wait_until(page, "!document.getElementById('players-summary').hidden")
    heads = page.locator("#players-table thead th").all_inner_texts()
    assert heads[-3:] == ["endgame points lost", "win% lost", "grades"], heads
    first = [c.strip() for c in text(page, "#players-table tbody tr:nth-child(1)").split("\t")]
    assert first[-3:] == ["≈19 in 2 turns", "3.3", "best 3, mistake 1"], first
    assert text(page, "#turns tbody tr:nth-child(21) td:nth-child(7)") == "≈12 pts"
    assert text(page, "#turns tbody tr:nth-child(22) td:nth-child(6)") == "1"  # no endgame key: the rank
    page.click("#turns tbody tr:nth-child(21)")
    wait_until(page, "document.getElementById('turn-card').textContent.includes('endgame solver')")
    assert "not exact (the time ran out" in text(page, "#turn-card")
    page.click("#turns tbody tr:nth-child(22)")
    wait_until(page, "!document.getElementById('turn-card').textContent.includes('endgame solver')")
    card = text(page, "#turn-card")
    assert "best move of 108 · equity" in card and "by equity" not in card
    assert page.console_errors == []


# --- the address naming a ruleset (``?ruleset=NAME``) --------------------------------------------------------
# An unknown name fell back to the default silently, ranking the address's position as English: the page
# now says so, naming the rulesets it has, and reads nothing under another ruleset.
def test_an_unknown_ruleset_in_the_address_is_said_and_nothing_is_ranked_under_another(desktop, server):
    from urllib.parse import quote

    page = desktop
    open_page(page, server, "?ruleset=scrabbel&cgp=" + quote(OUTGUN))
    page.wait_for_timeout(500)  # (a refresh, had one been scheduled, has come and gone)
    status = page.text_content("#status")
    assert 'asks for the ruleset "scrabbel"' in status and "which this server does not have" in status
    for name in ("english", "russian", "erudit", "super"):
        assert f"({name})" in status
    assert "Pick one in the Ruleset menu" in status
    # the moves panel says the same; no move of the address's position is ranked, under English or any
    assert "scrabbel" in page.text_content("#moves tbody")
    assert page.locator("#moves tbody tr").count() == 1
    assert page.input_value("#cgp") == OUTGUN  # the position waits in its field
    assert "ruleset=scrabbel" in page.url  # the address is not rewritten to another ruleset
    # picking a ruleset goes on as usual
    page.fill("#rack0", "AEINRST")
    wait_until(page, "document.querySelectorAll('#moves tbody tr').length > 1")
    assert page.text_content("#status") == ""
    assert page.console_errors == []


def test_a_known_ruleset_or_alias_in_the_address_is_used(desktop, server):
    from urllib.parse import quote

    page = desktop
    open_page(page, server, "?ruleset=" + quote("Эрудит"))
    assert page.input_value("#ruleset") == "erudit" and page.text_content("#status") == ""
