"""Actions on the web page that race with the server's answers, in Debian's Chromium driven by
Playwright (as tests/test_browser.py, whose server and browser it shares: never a downloaded
browser). The server's answers are held back (``page.route``) so that a second press comes
while the first is awaited, as it does on a slow server. Each test failed before its fix:

- a double-click on Play (or two presses 120 ms apart) recorded the move twice in the history,
  the board once (then Export: "turn 2: its position is not the one turn 1 (8D QUIRK) left"); a
  double Take off listed the time penalty twice, the score dropped once; a double Undo took two
  actions off the history, the board back by one. Now one recording action runs at a time, and
  an action that does not start from the board the history left is not recorded;
- a simulation went on asking for the position before a move played (the page sent /api/sim for
  the old CGP) and kept showing its plays; a Best play asked for went on and showed the answer
  for the rack before it was edited. Now a position change cancels them and clears their result."""
from __future__ import annotations

import json
import time
from urllib.parse import quote

import pytest

from racksmith.review.replay import replay_text
from test_browser import OUTGUN, browser, open_in_context, server, wait_until  # noqa: F401 (fixtures; its module skips without Chromium)

pytestmark = pytest.mark.slow

HELD = 0.3  # seconds an answer is held back


def _open(browser, server, query: str = "?ruleset=english&tab=play"):
    return open_in_context(browser, server, query)


def _hold(page, path: str, seconds: float = HELD) -> list[dict]:
    """The answers to ``path`` held back ``seconds`` (the real answer, fetched from the server);
    the bodies of the requests, in order."""
    sent: list[dict] = []

    def held(route):
        sent.append(json.loads(route.request.post_data or "null"))
        answer = route.fetch()
        time.sleep(seconds)
        route.fulfill(response=answer)

    page.route(f"**{path}", held)
    return sent


def _history(page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('#history li')]"
                         ".map(li => li.textContent.trim() + (li.classList.contains('undone') ? ' [undone]' : ''))")


def _settled(page, buttons=("play", "undo", "time-penalty")) -> None:
    """No recording action under way (its buttons not busy), the position read, and the time for a
    second answer held back to come and be shown."""
    page.wait_for_timeout(int(3 * HELD * 1000))
    busy = " || ".join(f"document.getElementById('{b}').getAttribute('aria-disabled') === 'true'" for b in buttons)
    wait_until(page, f"!({busy}) && !document.getElementById('bag').classList.contains('busy')")


def _play(page, rack: str, move: str) -> None:
    n = len(_history(page))
    page.fill("#rack0", rack)
    page.wait_for_selector("#moves tbody tr td.move", state="attached")
    page.fill("#move-input", move)
    page.click("#play")
    wait_until(page, f"document.querySelectorAll('#history li').length === {n + 1}")
    _settled(page)


def _export(page) -> str:
    page.click("#export")
    wait_until(page, "!document.getElementById('export-text').hidden || "
                     "document.getElementById('export-error').textContent.length > 0")
    assert page.text_content("#export-error") == ""
    return page.text_content("#export-text")


@pytest.mark.parametrize("press", ["dblclick", "twice 120 ms apart"])
def test_play_pressed_twice_records_the_move_once(browser, server, press):
    context, page = _open(browser, server)
    try:
        page.fill("#rack0", "QUIRKED")
        page.wait_for_selector("#moves tbody tr td.move", state="attached")
        page.fill("#move-input", "8D QUIRK")
        sent = _hold(page, "/api/play")
        if press == "dblclick":
            page.dblclick("#play", delay=0)
        else:  # (a press while the first is awaited: the button is busy, the page's own click still comes)
            page.evaluate("() => { const b = document.getElementById('play'); b.click(); setTimeout(() => b.click(), 120); }")
        wait_until(page, "document.querySelectorAll('#history li').length >= 1")
        _settled(page)
        assert _history(page) == ["8D QUIRK +56  (DEIKQRU)"]
        assert len(sent) == 1
        assert page.input_value("#score1") == "56" and page.evaluate("document.querySelectorAll('#board .tile:not(.preview)').length") == 5
        r = replay_text(_export(page), strict=True)
        assert [t.move.notation() for t in r.turns] == ["8D QUIRK"]
        assert page.console_errors == []
    finally:
        context.close()


def test_take_off_pressed_twice_takes_the_penalty_once(browser, server):
    context, page = _open(browser, server)
    try:
        _play(page, "QUIRKED", "8D QUIRK")
        sent = _hold(page, "/api/play")
        page.dblclick("#time-penalty", delay=0)  # 10 points off the player to move (0 points: stays 0)
        wait_until(page, "document.querySelectorAll('#history li').length >= 2")
        _settled(page)
        assert _history(page) == ["8D QUIRK +56  (DEIKQRU)", "time penalty p2 -10"]
        assert len(sent) == 1
        assert page.input_value("#score0") == "-10" and page.input_value("#score1") == "56"
        gcg = _export(page)
        assert gcg.count("(time)") == 1 and replay_text(gcg, strict=True).final_scores() == {"p1": 56, "p2": -10}
        assert page.console_errors == []
    finally:
        context.close()


def test_undo_pressed_twice_takes_back_one_action(browser, server):
    context, page = _open(browser, server)
    try:
        _play(page, "QUIRKED", "8D QUIRK")
        board = page.input_value("#cgp").split()[0]
        _play(page, "AEINRST", "-")  # (no blank: the opponent's five random tiles may hold both)
        sent = _hold(page, "/api/position")
        page.dblclick("#undo", delay=0)
        wait_until(page, "document.querySelectorAll('#history li.undone').length >= 1")
        _settled(page)
        assert _history(page) == ["8D QUIRK +56  (DEIKQRU)", "- +0undone [undone]"]
        assert page.input_value("#cgp").split()[0] == board and page.input_value("#rack0") == "AEINRST"
        assert sent[0]["cgp"].split()[0] == board
        r = replay_text(_export(page), strict=True)
        assert [t.move.notation() for t in r.turns] == ["8D QUIRK"]
        assert page.console_errors == []
    finally:
        context.close()


def test_a_move_from_a_board_changed_by_hand_is_not_recorded(browser, server):
    """The history is the board's: a move from a board that is not the one its last action left
    (a tile put by hand) is refused, said in the verdict, and the export still replays."""
    context, page = _open(browser, server)
    try:
        _play(page, "QUIRKED", "8D QUIRK")
        page.click('#board .sq[data-r="0"][data-c="0"]')
        # (an E and no blank: the opponent's rack holds five tiles drawn at random, and the Z, or
        # both blanks, among them made the position impossible)
        page.keyboard.press("E")
        page.fill("#rack0", "AEINRST")
        wait_until(page, "document.getElementById('cgp').value.startsWith('E14/')")
        page.wait_for_selector("#moves tbody tr td.move", state="attached")
        page.fill("#move-input", "-")
        page.click("#play")
        wait_until(page, "document.getElementById('verdict').textContent.length > 0")
        _settled(page)
        assert page.text_content("#verdict").startswith("✗ not recorded: the board is not the one the game played here left (after 8D QUIRK +56)")
        assert _history(page) == ["8D QUIRK +56  (DEIKQRU)"] and page.input_value("#move-input") == "-"
        r = replay_text(_export(page), strict=True)
        assert [t.move.notation() for t in r.turns] == ["8D QUIRK"]
        assert page.console_errors == []
    finally:
        context.close()


def test_a_move_played_stops_the_simulation_of_the_position_before(browser, server):
    """Simulate runs on (each answer asks for twice the iterations); a move is played: no request for
    the old position is sent after it, the one in flight is cancelled, and its plays are not shown."""
    context, page = _open(browser, server, f"?ruleset=english&tab=sim&cgp={quote(OUTGUN)}")
    try:
        log: list[tuple] = []  # (event, the CGP of the request, its iterations), in order
        body = lambda r: json.loads(r.post_data or "{}")  # noqa: E731
        page.on("request", lambda r: log.append(("sent", body(r)["cgp"], body(r)["iterations"])) if r.url.endswith("/api/sim") else None)
        page.on("requestfinished", lambda r: log.append(("answered", body(r)["cgp"], body(r)["iterations"])) if r.url.endswith("/api/sim") else None)
        page.on("requestfailed", lambda r: log.append(("cancelled", body(r)["cgp"], body(r)["iterations"])) if r.url.endswith("/api/sim") else None)
        page.fill("#sim-candidates", "40")
        page.fill("#sim-plies", "6")
        page.click("#sim-run")
        wait_until(page, "document.getElementById('sim-head').textContent.includes('500 iterations')", timeout=30)
        assert page.locator("#sim tbody tr").count() == 40 and page.is_enabled("#sim-stop")  # (it runs on)
        old = log[0][1]
        page.click('.tabs button[data-tab="play"]')
        page.fill("#move-input", "J8 SOIREE")
        page.click("#play")
        wait_until(page, "document.querySelectorAll('#history li').length === 1")
        moved = len(log)
        flying = [e[2] for e in log[:moved] if e[0] == "sent" and ("answered", old, e[2]) not in log[:moved]]
        assert len(flying) == 1  # (the next budget was being simulated)
        # the request in flight ends (cancelled now; before, answered when done), and a little more
        end = time.monotonic() + 30
        while sum(e[0] == "sent" for e in log) > sum(e[0] != "sent" for e in log) and time.monotonic() < end:
            page.wait_for_timeout(50)
        page.wait_for_timeout(500)
        assert [e for e in log[moved:] if e[0] == "sent" and e[1] == old] == []
        assert [e[0] for e in log if e[2] == flying[0]] == ["sent", "cancelled"]
        page.click('.tabs button[data-tab="sim"]')
        assert page.locator("#sim tbody tr").count() == 0 and page.is_hidden("#sim-legend")
        assert page.text_content("#sim-head").startswith("stopped: the position changed")
        assert page.is_enabled("#sim-run") and not page.is_enabled("#sim-stop")
        assert page.console_errors == []
    finally:
        context.close()


def test_a_rack_edited_cancels_the_best_play_and_the_endgame_of_the_rack_before(browser, server):
    """Find the best play (a simulation of a few seconds) then the rack edited: the request is
    cancelled, no answer for the old rack is shown; an endgame solved is cleared by an edit too."""
    context, page = _open(browser, server, f"?ruleset=english&tab=best&cgp={quote(OUTGUN)}")
    try:
        failed = []
        page.on("requestfailed", lambda r: failed.append(r.url.rsplit("/", 1)[-1]))
        page.fill("#best-seconds", "2")
        page.click("#best-run")
        wait_until(page, "document.getElementById('best-summary').textContent === 'thinking…'")
        page.fill("#rack0", "AEINRST")
        page.wait_for_timeout(2500)  # (the answer for EEIIORS would have come by now)
        assert page.text_content("#best-head") == "" and failed == ["best"]
        assert page.text_content("#best-summary").startswith("stopped: the position changed")
        assert page.get_attribute("#best-run", "aria-disabled") is None  # (Find the best play is free again)
        # an answer shown goes with the position it is of (here: the bag is not empty)
        page.click('.tabs button[data-tab="endgame"]')
        page.click("#endgame-run")
        wait_until(page, "document.getElementById('endgame-error').textContent.includes('bag')", timeout=30)
        page.fill("#rack0", "EEIIOR")
        wait_until(page, "document.getElementById('endgame-error').textContent === ''")
        assert page.console_errors == []
    finally:
        context.close()


def test_a_move_played_while_the_rack_typed_is_being_read_is_played_on_that_rack(browser, server):
    """A rack typed, then Play pressed while the page was reading its position (the request under
    way): the move was played on the racks before ("the unseen tiles hold 0 Z", or a move of the
    old rack recorded). Play now waits for the reading under way. (The page's fetch of a position
    is slowed by 1.5 s in the page itself: an answer held back by a route would hold the test.)"""
    context, page = _open(browser, server)
    try:
        page.fill("#rack0", "AEINRST")
        page.wait_for_selector("#moves tbody tr td.move", state="attached")
        _settled(page)
        page.evaluate("""() => {
          const fetch0 = window.fetch;
          window.fetch = (url, options) => String(url).includes("/api/position")
            ? new Promise((ok) => setTimeout(ok, 1500)).then(() => fetch0(url, options)) : fetch0(url, options);
        }""")
        plays: list[dict] = []
        page.on("request", lambda r: plays.append(json.loads(r.post_data)) if r.url.endswith("/api/play") else None)
        page.fill("#rack0", "QUIRKED")
        wait_until(page, "document.getElementById('bag').classList.contains('busy')")  # (its reading under way)
        page.fill("#move-input", "8D QUIRK")
        page.click("#play")
        wait_until(page, "document.querySelectorAll('#history li').length === 1 || "
                         "document.getElementById('verdict').textContent.includes('✗')")
        _settled(page)
        assert [p["cgp"].split()[1] for p in plays] == ["DEIKQRU/"], page.text_content("#verdict")
        assert _history(page) == ["8D QUIRK +56  (DEIKQRU)"]
        assert page.console_errors == []
    finally:
        context.close()
