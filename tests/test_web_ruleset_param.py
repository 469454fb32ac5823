"""The web analyzer's address naming a ruleset the server does not have (``?ruleset=NAME``): the page
says so, naming the rulesets it has, and reads nothing under another ruleset (it fell back to the
default silently, ranking the address's position as English). Playwright driving Debian's Chromium,
as tests/test_browser.py does."""
from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from urllib.parse import quote

import pytest

CHROMIUM = os.environ.get("RACKSMITH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).is_file():
    pytest.skip(f"browser tests need Chromium ({CHROMIUM} not found: apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package (pip install '.[test]')")

from conftest import FIXTURES  # noqa: E402
from racksmith.web import Analyzer, make_server  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
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


@pytest.fixture(scope="module")
def page():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        pg = context.new_page()
        pg.console_errors = []
        pg.on("console", lambda m: pg.console_errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
        yield pg
        browser.close()


def wait_until(page, expression: str, timeout: float = 15.0) -> None:
    """Poll a JavaScript expression until it is true (the page's CSP forbids wait_for_function's eval)."""
    import time

    end = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(50)


def test_an_unknown_ruleset_in_the_address_is_said_and_nothing_is_ranked_under_another(page, server):
    page.goto(server.url + "?ruleset=scrabbel&cgp=" + quote(OUTGUN))
    page.wait_for_selector("#board .sq")
    wait_until(page, "document.querySelector('#moves tbody tr') !== null")
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


def test_a_known_ruleset_or_alias_in_the_address_is_used(page, server):
    page.goto(server.url + "?ruleset=" + quote("Эрудит"))
    page.wait_for_selector("#board .sq")
    wait_until(page, "document.querySelector('#moves tbody tr') !== null")
    assert page.input_value("#ruleset") == "erudit" and page.text_content("#status") == ""
