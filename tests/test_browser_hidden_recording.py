"""A game recorded on the Play tab with the opponent's rack hidden, in Debian's Chromium driven by
Playwright (as tests/test_browser.py, whose server and browser it shares: never a downloaded
browser). Each test failed before its fix:

- a rack a phony showed whole, then another phony of his taken back (the answer says nothing of a
  rack known already): his next play drew at random (``drew EJ``, his rack shown known whole) where
  the recorder sees no draw of his;
- a mover's rack known in part became his whole rack once the recorder played (the page built its
  CGP from the rack fields, the answer's CGP having left the rack out): 77 in the bag, not 74."""
from __future__ import annotations

from urllib.parse import quote

import pytest

from racksmith import Position
from test_browser import EMPTY, browser, open_in_context, server, wait_until  # noqa: F401 (fixtures; its module skips without Chromium)

pytestmark = pytest.mark.slow


def _open(browser, server, cgp: str):
    return open_in_context(browser, server, "?ruleset=english&tab=play&cgp=" + quote(cgp))


def _items(page) -> int:
    return page.evaluate("document.querySelectorAll('#history li:not(.undone)').length")


def _settled(page) -> None:
    """The position of the last action read (its rack fields and bag shown)."""
    wait_until(page, "!document.getElementById('bag').classList.contains('busy') && "
                     "document.getElementById('bag').textContent !== ''")


def _recorded(page, n: int, what: str) -> None:
    """Wait for the history to hold n + 1 actions, then for the position to be read; if it does
    not, say what the page said instead."""
    try:
        wait_until(page, f"document.querySelectorAll('#history li:not(.undone)').length === {n + 1}")
    except AssertionError:
        raise AssertionError(f"{what} was not recorded: the verdict says {page.text_content('#verdict')!r}, the "
                             f"history {_items(page)} items (was {n})") from None
    _settled(page)


def _play(page, move: str, anyway: bool = False) -> str:
    n = _items(page)
    page.fill("#move-input", move)
    page.click("#play")
    if anyway:  # (a phony: it stands until challenged)
        try:
            page.wait_for_selector("#play-phony", timeout=15_000)
        except Exception:  # (playwright's TimeoutError: what the page said instead)
            raise AssertionError(f"{move}: no 'Play it anyway'; the verdict says {page.text_content('#verdict')!r}, "
                                 f"the history {_items(page)} items (was {n})") from None
        page.click("#play-phony")
    _recorded(page, n, move)
    return page.text_content("#verdict")


def _challenge(page) -> str:
    n = _items(page)
    page.click("#challenge")
    _recorded(page, n, "the challenge")
    return page.text_content("#verdict")


def _my_opening(page) -> None:
    _play(page, "8D RETAINS")
    page.fill("#rack1", "ADDGOOR")  # what I drew (the page drew at random)
    _settled(page)


def test_a_revealed_rack_draws_unseen_after_a_second_phony_of_his_is_taken_back(browser, server):
    context, page = _open(browser, server, f"{EMPTY} AEINRST/ 0/0 0")
    try:
        _my_opening(page)
        _play(page, "9D BHOSTZX", anyway=True)
        assert "taken back" in _challenge(page)  # his whole rack shown
        _play(page, "-")
        _play(page, "9D BHOST", anyway=True)  # (sent hidden: his draw not seen)
        assert "taken back" in _challenge(page)  # his rack known whole again, the answer says nothing of it
        assert page.input_value("#rack1") == "BHOSTXZ"
        _play(page, "-")
        verdict = _play(page, "9F OX")
        assert "+36" in verdict and "drew" not in verdict
        assert page.input_value("#rack1") == "BHSTZ"  # what he kept, known in part; his draw unseen
        assert "2 on the opponent's rack besides BHSTZ, 77 in the bag" in page.text_content("#bag")
        assert page.console_errors == []
    finally:
        context.close()


def test_a_revealed_rack_exchanges_tiles_not_named_after_he_passed(browser, server):
    """(The page sent ``-3`` hidden, which the server refused: a known rack names its tiles; and a
    pass of his ended what the page knew of his rack being shown: ``-3`` was not sent hidden.)"""
    context, page = _open(browser, server, f"{EMPTY} AEINRST/ 0/0 0")
    try:
        _my_opening(page)
        _play(page, "9D BHOSTZX", anyway=True)
        _challenge(page)
        _play(page, "-")
        _play(page, "-")  # his pass: nothing drawn, his rack still the one shown
        _play(page, "-")
        assert "played -3" in _play(page, "-3")
        assert page.input_value("#rack0") == "ADDGOOR" and page.input_value("#rack1") == ""
        assert "7 on the opponent's rack, 79 in the bag" in page.text_content("#bag")
        assert page.console_errors == []
    finally:
        context.close()


def test_a_movers_rack_known_in_part_stays_so_once_the_recorder_plays(browser, server):
    context, page = _open(browser, server, f"{EMPTY} AEINRST/ 0/0 0")
    try:
        _my_opening(page)
        _play(page, "D8 (R)QXES", anyway=True)
        _challenge(page)
        assert "3 on the opponent's rack besides EQSX, 79 in the bag" in page.text_content("#bag")
        _play(page, "E4 GOAD(E)D")
        pos = Position.from_cgp(page.input_value("#cgp"))
        assert (pos.racks_partial, str(pos.racks[0]), pos.bag_count) == ((True, False), "EQSX", 74)
        assert "3 on the rack to move besides EQSX, 74 in the bag" in page.text_content("#bag")
        wait_until(page, "document.querySelector('#moves .empty-note') !== null")
        assert "known in part (EQSX)" in page.text_content("#moves")
        page.fill("#rack1", "EEINORT")  # what I drew (the page drew at random: a Z there 1 time in 16)
        _settled(page)
        verdict = _play(page, "9F ZA", anyway=True)  # (Z and A among his tiles not seen)
        assert "played" in verdict and page.input_value("#rack1") == "EQSX"
        assert page.console_errors == []
    finally:
        context.close()
