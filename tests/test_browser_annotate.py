"""A club game recorded on the web page's Play tab as it is played, in Debian's Chromium driven by
Playwright (as tests/test_browser.py, whose server and browser it shares: never a downloaded
browser). Each test failed before its fix:

- a phony could not be played ("invalid_words"), a challenge had no button (a bonus typed into a
  score field broke the export at the next turn), and a time penalty typed after the last turn was
  left out of the export without a word: now Play it anyway, Challenge (with the rule picked beside
  it, the ruleset's by default) and a time penalty, exported as the library's Game writes them;
- a reload lost the whole game played on the page (the board came back from the address, the
  history did not, Undo and Export were disabled): the history is kept for the tab and comes back
  when the address's position is the one it left."""
from __future__ import annotations

import pytest

from racksmith.review.replay import replay_text
from test_browser import browser, open_in_context, server, wait_until  # noqa: F401 (fixtures; its module skips without Chromium)

pytestmark = pytest.mark.slow


def _open(browser, server):
    return open_in_context(browser, server, "?ruleset=english&tab=play")


def _history(page) -> int:
    return page.evaluate("document.querySelectorAll('#history li:not(.undone)').length")


def _play(page, rack: str, move: str, items: int) -> None:
    if rack is not None:
        page.fill("#rack0", rack)  # (Play reads the position first)
    page.fill("#move-input", move)
    page.click("#play")
    wait_until(page, f"document.querySelectorAll('#history li:not(.undone)').length === {items}")


def _export(page) -> str:
    page.click("#export")
    wait_until(page, "!document.getElementById('export-text').hidden || document.getElementById('export-error').textContent")
    assert page.text_content("#export-error") == ""
    return page.text_content("#export-text")


def test_a_game_is_recorded_with_a_phony_a_challenge_bonus_and_a_time_penalty_and_outlives_a_reload(browser, server):
    context, page = _open(browser, server)
    try:
        # the challenge rule: the ruleset's by default (Game.challenge's double challenge), 5 points picked
        assert page.input_value("#challenge-rule") == "0"
        page.select_option("#challenge-rule", "5")
        _play(page, "?AADGOR", "8B pODAGRA", 1)
        page.fill("#rack1", "BEELOPY")  # what he drew (the page drew at random)
        assert page.is_disabled("#redo") and not page.is_disabled("#challenge")
        # a phony is refused, then played anyway: it stands until challenged
        page.fill("#rack0", "AGJRSTU")
        page.fill("#move-input", "H4 TAGR(A)")
        page.click("#play")
        page.wait_for_selector("#play-phony")
        assert "invalid_words" in page.text_content("#verdict")
        page.click("#play-phony")
        wait_until(page, "document.querySelectorAll('#history li').length === 2")
        assert "not in the lexicon" in page.text_content("#history li:nth-child(2)")
        # challenged: taken back, the tiles on his rack again, the turn lost
        page.click("#challenge")
        wait_until(page, "document.querySelectorAll('#history li').length === 3")
        assert "taken back" in page.text_content("#verdict") and "TAGRA" in page.text_content("#verdict")
        assert page.is_disabled("#challenge")  # (nothing left to challenge)
        assert (page.input_value("#score0"), page.input_value("#score1"), page.input_value("#rack1")) == ("70", "0", "AGJRSTU")
        _play(page, None, "7B OBEY", 4)  # (his rack: BEELOPY)
        _play(page, None, "H4 JAGR(A)", 5)  # (his rack is known: AGJRSTU)
        page.click("#challenge")  # the play stands: 5 points to its player
        wait_until(page, "document.querySelectorAll('#history li').length === 6")
        assert page.input_value("#score1") == "26" and "+5" in page.text_content("#verdict")
        # a time penalty for the player to move (p1), at the end
        page.select_option("#time-player", "0")
        page.fill("#time-points", "10")
        page.click("#time-penalty")
        wait_until(page, "document.querySelectorAll('#history li').length === 7")
        assert page.input_value("#score0") == "88"
        gcg = _export(page)
        lines = [line for line in gcg.splitlines() if line.startswith(">")]
        assert lines[2] == ">p2: AGJRSTU -- -7 0" and "(challenge) +5 26" in lines[5] and lines[6] == ">p1:  (time) -10 88"
        assert replay_text(gcg, strict=True).scores == [88, 26]

        # a reload: the board from the address, the history from the tab's storage
        page.reload()
        page.wait_for_selector("#board .sq")
        wait_until(page, "document.querySelectorAll('#history li').length === 7")
        assert not page.is_disabled("#undo") and not page.is_disabled("#export")
        assert page.input_value("#challenge-rule") == "5"
        assert _export(page) == gcg
        page.click("#undo")  # the time penalty undone
        wait_until(page, "document.querySelectorAll('#history li.undone').length === 1")
        assert page.input_value("#score0") == "98"
        page.click("#redo")
        wait_until(page, "document.querySelectorAll('#history li.undone').length === 0 && "
                         "document.getElementById('score0').value === '88'")
        assert page.console_errors == []
    finally:
        context.close()


def test_a_failed_double_challenge_and_scores_typed_by_hand(browser, server):
    """Under the double challenge a play that stands costs the challenger his turn (a pass with the
    note); a penalty typed into a score field is said at Export, not left out of the record."""
    context, page = _open(browser, server)
    try:
        _play(page, "?AADGOR", "8B pODAGRA", 1)
        page.fill("#rack1", "BEELOPY")
        _play(page, "AGJRSTU", "H4 JAGR(A)", 2)
        page.click("#challenge")
        wait_until(page, "document.querySelectorAll('#history li').length === 3")
        assert "loses his turn" in page.text_content("#verdict")
        gcg = _export(page)
        assert "#note #unsuccessful-challenge" in gcg
        assert [t.failed_challenge for t in replay_text(gcg, strict=True).turns] == [False, False, True]
        page.fill("#score1", "60")  # (p1's 70, lowered by hand)
        wait_until(page, "document.getElementById('cgp').value.includes(' 21/60 ')")
        page.click("#export")
        wait_until(page, "document.getElementById('export-error').textContent.length > 0")
        said = page.text_content("#export-error")
        assert said.startswith("the scores on the page [21, 60] are not the game's [21, 70]") and "Take off" in said
        assert page.console_errors == []
    finally:
        context.close()


def test_a_reload_keeps_the_game_played_on_the_page(browser, server):
    """The defect as met: Play 8B pODAGRA and H4 JAGR(A), reload: the board and racks came back from
    the address, the Play history was empty and Undo and Export disabled. Another position in the
    address (the tab's next page) does not take that game back, and says so; back at the game's
    address, it is there again."""
    context, page = _open(browser, server)
    try:
        _play(page, "?AADGOR", "8B pODAGRA", 1)
        page.fill("#rack1", "BEELOPY")
        _play(page, "AGJR", "H4 JAGR(A)", 2)
        address = page.url
        page.reload()
        page.wait_for_selector("#board .sq")
        wait_until(page, "document.querySelectorAll('#history li').length === 2")
        assert "8B pODAGRA +70" in page.text_content("#history") and "H4 JAGR(A) +21" in page.text_content("#history")
        assert not page.is_disabled("#undo") and not page.is_disabled("#export") and not page.is_disabled("#challenge")
        assert "(challenge)" not in _export(page) and page.url == address
        page.click("#undo")
        wait_until(page, "document.querySelectorAll('#history li.undone').length === 1")
        page.reload()  # (the move undone comes back too, to redo)
        page.wait_for_selector("#board .sq")
        wait_until(page, "document.querySelectorAll('#history li.undone').length === 1")
        assert not page.is_disabled("#redo")
        page.goto(server.url + "?ruleset=english&tab=play&cgp=" + "/".join(["15"] * 15).replace("/", "%2F") + "%20AEINRST%2F%200%2F0%200")
        page.wait_for_selector("#board .sq")
        wait_until(page, "document.getElementById('status').textContent.includes('not taken back')")
        assert page.evaluate("document.querySelectorAll('#history li').length") == 0
        page.go_back()  # the game's address again: its game back
        page.wait_for_selector("#board .sq")
        wait_until(page, "document.querySelectorAll('#history li').length === 2 && "
                         "document.querySelectorAll('#history li.undone').length === 1")
        assert page.console_errors == []
    finally:
        context.close()


def test_a_damaged_game_in_the_tabs_storage_is_set_aside_not_thrown_on(browser, server):
    """A stored history holding ``[null]`` (changed by hand, or by another version of the page)
    threw on load: the rest of the page's start was skipped, every later Play threw, and the entry
    came back at each reload. It is now set aside with a word, and the page works."""
    context, page = _open(browser, server)
    try:
        _play(page, "?AADGOR", "8B pODAGRA", 1)
        page.evaluate("(() => { const s = JSON.parse(sessionStorage.getItem('racksmith-played')); s.played = [null]; "
                      "sessionStorage.setItem('racksmith-played', JSON.stringify(s)); })()")
        page.reload()
        page.wait_for_selector("#board .sq")
        wait_until(page, "document.getElementById('status').textContent.includes('could not be read back')")
        assert page.evaluate("document.querySelectorAll('#history li').length") == 0
        _play(page, "BEELOPY", "7B OBEY", 1)  # (the page plays on)
        page.reload()
        page.wait_for_selector("#board .sq")
        wait_until(page, "document.querySelectorAll('#history li').length === 1")
        assert page.console_errors == []
    finally:
        context.close()


def test_a_hidden_rack_typed_after_a_scoreless_end_is_counted(browser, server):
    """Six scoreless turns ended a game whose mover's rack was hidden (scores not final); typing
    the tiles shown after the game made the page call the scores final with the penalty never
    taken off (104, it should be 78: GIILQTZ is 26). The page now asks the server to count it."""
    from urllib.parse import quote

    board = "TAJ4P7/2E4O7/1DrOOLiNG6/2K4D7/2E1U10/1FRANC9/4C10/3WIFTY7/2VENA9/4U10/4S10/15/15/15/15"
    context, page = _open(browser, server)
    try:
        page.goto(server.url + "?ruleset=english&tab=play&cgp=" + quote(f"{board} /ABDNOPU 104/152 6"))
        page.wait_for_selector("#board .sq")
        wait_until(page, f"document.getElementById('cgp').value.startsWith({board!r})")
        page.fill("#rack0", "GIILQTZ")
        wait_until(page, "document.getElementById('cgp').value.endsWith('GIILQTZ/ABDNOPU 78/152 6')")
        assert page.input_value("#score0") == "78" and page.input_value("#score1") == "152"
        # a slip corrected (Z for V, 6 points less): counted from the scores before, not on top of the
        # first rack's penalty (was 78 kept, the game taken as final as it stood)
        page.fill("#rack0", "GIILQTV")
        wait_until(page, "document.getElementById('cgp').value.endsWith('GIILQTV/ABDNOPU 84/152 6')")
        assert page.input_value("#score0") == "84"
        # typed a tile at a time, each shown counted as it stands, the last the rack's penalty
        page.fill("#rack0", "")
        page.locator("#rack0").press_sequentially("GIILQTZ", delay=120)
        wait_until(page, "document.getElementById('cgp').value.endsWith('GIILQTZ/ABDNOPU 78/152 6')")
        # the other rack edited after the count: the count stands (the page had sent the scores before
        # it, shown 104 in the CGP and 78 in the field)
        page.fill("#rack1", "ABDNOPE")
        wait_until(page, "document.getElementById('cgp').value.endsWith('GIILQTZ/ABDENOP 78/152 6')")
        assert page.input_value("#score0") == "78"
        page.fill("#rack1", "ABDNOPU")
        wait_until(page, "document.getElementById('cgp').value.endsWith('GIILQTZ/ABDNOPU 78/152 6')")
        # the counted rack cleared (the page refreshed), then typed again: counted from the scores
        # before (the field kept 78, and the next rack was not counted)
        page.fill("#rack0", "")
        wait_until(page, "document.getElementById('cgp').value.endsWith('/ABDNOPU 104/152 6') && "
                         "document.getElementById('score0').value === '104'")
        page.fill("#rack0", "GIILQTV")
        wait_until(page, "document.getElementById('cgp').value.endsWith('GIILQTV/ABDNOPU 84/152 6')")
        assert page.console_errors == []
    finally:
        context.close()


def _phony_bingo_taken_back(page, server) -> None:
    """RETAINS opens; the hidden opponent (ADDGOOR typed for the recorder) plays the phony BHOSTZX
    from the unseen tiles, anyway; challenged, it is taken back: his rack shown whole."""
    from urllib.parse import quote

    empty = "/".join(["15"] * 15)
    page.goto(server.url + "?ruleset=english&tab=play&cgp=" + quote(f"{empty} AEINRST/ 0/0 0"))
    page.wait_for_selector("#board .sq")
    _play(page, None, "8D RETAINS", 1)
    page.fill("#rack1", "ADDGOOR")  # what the recorder drew (the page drew at random)
    page.fill("#move-input", "9D BHOSTZX")
    page.click("#play")
    page.wait_for_selector("#play-phony")
    page.click("#play-phony")
    wait_until(page, "document.querySelectorAll('#history li').length === 2")
    page.click("#challenge")
    wait_until(page, "document.querySelectorAll('#history li').length === 3")


def test_a_hidden_opponent_whose_phony_showed_his_rack_draws_tiles_not_seen(browser, server):
    """A hidden opponent's phony bingo, taken back, showed his whole rack; his next play then drew
    at random (a rack the recorder never saw, typed over by hand or recorded wrong). Now the tiles
    he kept are known in part and his draw is not, through Undo and Redo, and the record replays."""
    from racksmith import Position

    context, page = _open(browser, server)
    try:
        _phony_bingo_taken_back(page, server)
        assert page.input_value("#rack1") == "BHOSTXZ"  # (shown: every tile of it)
        _play(page, None, "-", 4)
        _play(page, None, "9F OX", 5)
        for _ in range(2):
            pos = Position.from_cgp(page.input_value("#cgp"))
            assert pos.racks_known[1] is False and page.input_value("#rack1") == "BHSTZ"  # (not 7 tiles drawn at random)
            page.click("#undo")
            wait_until(page, "document.querySelectorAll('#history li.undone').length === 1")
            page.click("#redo")
            wait_until(page, "document.querySelectorAll('#history li.undone').length === 0")
        gcg = _export(page)
        assert ">p2: BHOSTXZ 9F OX +36 36" in gcg and replay_text(gcg).ok
        assert page.console_errors == []
    finally:
        context.close()


def test_a_revealed_opponent_who_lost_a_turn_to_a_challenge_still_draws_tiles_not_seen(browser, server):
    """His turn lost to a failed double challenge (a pass) counted as his play: his next play was
    drawn at random again."""
    from racksmith import Position

    context, page = _open(browser, server)
    try:
        _phony_bingo_taken_back(page, server)
        page.fill("#rack0", "ADDGOOR")
        _play(page, None, "E4 DODGER", 4)
        page.select_option("#challenge-rule", "0")
        page.click("#challenge")  # he challenges and loses his turn
        wait_until(page, "document.querySelectorAll('#history li').length === 5")
        _play(page, None, "-", 6)
        _play(page, None, "G7 Z(A)X", 7)
        pos = Position.from_cgp(page.input_value("#cgp"))
        assert pos.racks_known[1] is False and page.input_value("#rack1") == "BHOST"
        assert page.console_errors == []
    finally:
        context.close()
