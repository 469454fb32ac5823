"""The web page's Game tab and a record of three or four players, in a real browser (the setup of
``test_browser.py``: Playwright driving Debian's Chromium against the real server). The page
plays two players (To move and Opponent): a 4-player record was shown turn by turn as 2-player
positions (turn 12's CGP ``… EGISTVZ/ 166/97 0``, the bag wrong, and with the bag empty "CGP 'rsz
7/5/3/3' must give each rack's size"). It is refused as a pasted CGP of more racks is: a readable
error beside the record, no position made up."""
from __future__ import annotations

import pytest

from test_browser import browser, desktop, load_game, open_page, server, text, wait_until  # noqa: F401 (fixtures)
from racksmith import BestEquityPlayer, Game, GameView

pytestmark = pytest.mark.slow


def _record(players: int, seed: int) -> str:
    g = Game("english", players=players, seed=seed)
    view, player = GameView(g), BestEquityPlayer()
    while not g.over:
        g.play(player.choose(view))
    return g.gcg()


def test_the_game_tab_refuses_a_four_player_record(desktop, server):
    page = desktop
    open_page(page, server)
    cgp_before = page.input_value("#cgp")
    load_game(page, _record(4, 1))
    err = text(page, "#gcg-error")
    assert err.startswith("the record is a game of 4 players (p1, p2, p3, p4): this page shows games of two players")
    assert page.is_hidden("#game") and page.text_content("#game-summary") == ""
    assert page.input_value("#cgp") == cgp_before  # no 2-player position made of it
    # a 2-player record after it loads as before, the error gone
    load_game(page, _record(2, 1))
    wait_until(page, "document.getElementById('game-summary').textContent.length > 0")
    assert page.text_content("#gcg-error") == "" and not page.is_hidden("#game")
    assert page.console_errors == []


def test_a_three_player_record_after_a_two_player_one_closes_it(desktop, server):
    page = desktop
    open_page(page, server)
    load_game(page, _record(2, 2))
    assert not page.is_hidden("#game")
    load_game(page, _record(3, 0))
    assert text(page, "#gcg-error").startswith("the record is a game of 3 players (p1, p2, p3)")
    assert page.is_hidden("#game")
    assert page.console_errors == []
