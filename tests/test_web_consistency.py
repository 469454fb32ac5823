"""The web analyzer agrees with the library and the command line (each a defect a cross-surface audit
found): ``--leaves shipped`` is each ruleset's own shipped set, as without ``--leaves``; ``/api/export``
writes a GCG rack as every other racksmith GCG writer does (blanks first); a game ended with a rack
not known says its scores are not final (``final``, ``uncounted``: :meth:`Position.outcome`'s), on
the API, on the page and in ``racksmith show``."""
from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import threading
from pathlib import Path

import pytest

from conftest import run_cli as run
from racksmith import Game, Position, get_ruleset
from racksmith.errors import InferenceError
from racksmith.lexicon import default_leaves
from racksmith.review.replay import replay_text
from racksmith.web import Analyzer, make_server
from test_web import EMPTY15, post

#: an English position (its ``lex`` names it) whose equity ranking differs with Super's leaves
ENGLISH = ("11QATS/13E1/13R1/13R1/8U4E1/8T4N1/8I1Y1WE1/6TOLUOLE2/8I1G1B2/8S1I4/7HE1N4/7AR1I4/7V7/7O7/"
           "5DECAYING2 BDKNORX/AAEMMNU 173/201 0 lex enable;")
SUPER = ("7K13/7U13/7V3G9/3COMMA3N2GOOFY2/4DIASPORA2I6/2JEER1Z3W2L6/11EL1T6/7INVADERS6/12H8/12R8/8KYATS8/"
         + "/".join(["21"] * 10) + " DHIORTU/EEILOPS 252/230 0")
OUTGUN = "/".join(["15"] * 7) + "/3OUTGUN6/" + "/".join(["15"] * 7)
#: the mover's pass ends the game on scoreless turns; the opponent's rack is not known
HIDDEN_END = f"{OUTGUN} EEIIORS/ 0/16 5"


def _serving(analyzer: Analyzer):
    logged: list[str] = []
    srv = make_server(analyzer, "127.0.0.1", 0, log=logged.append, refusal_log=lambda *a: None)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, logged


@pytest.fixture(scope="module")
def server():
    srv, logged = _serving(Analyzer("english"))
    yield srv
    srv.shutdown()
    srv.server_close()
    assert logged == []


@pytest.fixture(scope="module")
def super_shipped():
    """``racksmith serve --ruleset super --leaves shipped``."""
    srv, logged = _serving(Analyzer("super", leaves="shipped"))
    yield srv
    srv.shutdown()
    srv.server_close()
    assert logged == []


def _equity(answer: dict) -> list[tuple[str, float]]:
    return [(m["notation"], m["equity"]) for m in answer["moves"]]


# --- --leaves shipped ------------------------------------------------------------------------------------
def test_leaves_shipped_is_each_ruleset_s_own_as_without_leaves(super_shipped, capsys):
    """A server started with ``--leaves shipped`` scored every ruleset spelled like the default with
    the default's set (Super's for English, English's for Super)."""
    body = {"cgp": ENGLISH, "top": 3, "sort": "equity"}
    served = post(super_shipped, "/api/moves", body)
    assert served["leaves"] is True
    code, out, _ = run(capsys, "moves", ENGLISH, "--top", "3", "--sort", "equity", "--leaves", "shipped", "--json")
    assert code == 0
    cli = [(m["notation"], round(m["equity"], 3)) for m in json.loads(out)["moves"]]
    assert _equity(served) == cli
    assert _equity(served) == _equity(Analyzer("super").moves(body))
    assert _equity(served)[0][0] == "O7 BOX"


@pytest.mark.parametrize("default", ["english", "super"])
@pytest.mark.parametrize("spelled", ["shipped", " Shipped "])
def test_an_analyzer_with_shipped_leaves_is_one_without_leaves(default, spelled):
    shipped, plain = Analyzer(default, leaves=spelled), Analyzer(default)
    for name in ("english", "super", "russian", "erudit"):
        rs = get_ruleset(name)
        assert shipped.leaves_for(rs, {}) is default_leaves(rs) is plain.leaves_for(rs, {})
    assert shipped.leaves is None and shipped.leaves_label is None  # (the banner names no leave file)
    assert shipped.rulesets_info() == plain.rulesets_info()
    assert shipped.rulesets_info()["leaves"] == "shipped"
    body = {"cgp": SUPER, "ruleset": "super", "top": 3, "sort": "equity"}
    assert _equity(shipped.moves(body)) == _equity(plain.moves(body))


# --- /api/export's racks ---------------------------------------------------------------------------------
def test_export_writes_racks_blanks_first_as_game_gcg_does(server):
    turn = {"cgp": f"{EMPTY15} ?AEINST/EEIIORS 0/0 0", "move": "8D SATIrE", "draw": "ABCDEF"}
    gcg = post(server, "/api/export", {"ruleset": "english", "turns": [turn]})["gcg"]
    line = next(x for x in gcg.splitlines() if x.startswith(">"))
    assert line == ">p1: ?AEINST 8D SATIrE +12 12"
    # as the library's own writer writes the same turn
    game = Game.from_position(Position.from_cgp(turn["cgp"]), seed=1)
    game.play("8D SATIrE")
    ours = next(x for x in game.gcg().splitlines() if x.startswith(">"))
    assert ours.split(" ", 1)[1] == line.split(" ", 1)[1]
    assert replay_text(gcg, strict=True).turns[0].move.notation() == "8D SATIrE"


# --- a game ended with a rack not known -----------------------------------------------------------------------
def test_play_says_the_scores_do_not_count_a_hidden_rack(server):
    r = post(server, "/api/play", {"cgp": HIDDEN_END, "move": "-"})
    pos = Position.from_cgp(HIDDEN_END)
    pos.push("-")
    outcome = pos.outcome()
    assert (outcome.final, outcome.uncounted) == (False, (0,))
    assert r["over"] and r["ending"]["reason"] == "zero_turns"
    assert (r["ending"]["final"], r["ending"]["uncounted"]) == (False, [0])
    assert (r["position"]["final"], r["position"]["uncounted"]) == (False, [0])
    assert r["position"]["scores"] == list(outcome.scores) == [16, -7]
    after = post(server, "/api/position", {"cgp": r["cgp"]})
    assert (after["over"], after["final"], after["uncounted"]) == (True, False, [0])


def test_positions_say_whether_their_scores_are_final(server):
    p = post(server, "/api/position", {"cgp": f"{EMPTY15} AEINRST/ 0/0 6"})
    assert (p["over"], p["final"], p["uncounted"]) == (True, False, [1])
    p = post(server, "/api/position", {"cgp": f"{EMPTY15} AEINRST/EEIIORS 0/0 6"})
    assert (p["over"], p["final"], p["uncounted"]) == (True, True, [])
    p = post(server, "/api/position", {"cgp": f"{OUTGUN} EEIIORS/ 0/16 0"})
    assert (p["over"], p["final"], p["uncounted"]) == (False, None, [])
    known = post(server, "/api/play", {"cgp": f"{OUTGUN} EEIIORS/ABCDEFG 0/16 5", "move": "-"})
    assert (known["ending"]["final"], known["ending"]["uncounted"]) == (True, [])


def test_a_hidden_rack_passes_and_the_export_says_the_scores_are_not_final(server):
    """The opponent's rack not known: his pass was refused (a draw was sent for him), and the
    exported game's scores, which cannot count his tiles, said nothing of it."""
    cgp = f"{EMPTY15} AEINST?/ 0/0 0"
    turns = []
    for _ in range(6):
        r = post(server, "/api/play", {"cgp": cgp, "move": "-"})
        turns.append({"cgp": cgp, "move": "-", "draw": r["drawn"]})
        cgp = r["cgp"]
    assert r["over"] and (r["ending"]["final"], r["ending"]["uncounted"]) == (False, [1])
    out = post(server, "/api/export", {"turns": turns})
    assert (out["scores"], out["final"], out["uncounted"]) == ([-6, 0], False, [1])  # p2's rack is the hidden one
    going = post(server, "/api/export", {"turns": turns[:2]})
    assert (going["final"], going["uncounted"]) == (None, [])


def test_show_says_the_scores_do_not_count_the_hidden_rack(capsys):
    pos = Position.from_cgp(HIDDEN_END)
    pos.push("-")
    code, out, _ = run(capsys, "show", pos.cgp())
    assert code == 0
    assert ("game over (scoreless turns): the scores are not final: they do not count the tiles left on the rack "
            "to move, which is not known") in out
    code, out, _ = run(capsys, "show", f"{EMPTY15} AEINRST/ 0/0 6")
    assert "do not count the tiles left on the opponent's rack" in out
    for final in (f"{EMPTY15} AEINRST/EEIIORS 0/0 6", HIDDEN_END):
        code, out, _ = run(capsys, "show", final)
        assert code == 0 and "not final" not in out


# --- the page ----------------------------------------------------------------------------------------------------
CHROMIUM = os.environ.get("RACKSMITH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@pytest.mark.slow
def test_the_page_notes_scores_that_are_not_final(server):
    """The moves table of a game over with a hidden rack says its scores are not final, also when
    the rack to move is not typed in (it asked for a rack); playing the pass that ends it says so."""
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"browser tests need Chromium ({CHROMIUM} not found)")
    sync_api = pytest.importorskip("playwright.sync_api")
    from urllib.parse import quote

    from test_browser import ARGS, open_page, text, wait_until

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            open_page(page, server, "?cgp=" + quote(f"{EMPTY15} AEINRST/ 0/0 6"))
            wait_until(page, "document.querySelector('#moves tbody').innerText.includes('The game is over')")
            assert ("The scores are not final: they do not count the tiles left on the opponent's rack, which is "
                    "not known.") in text(page, "#moves tbody")
            open_page(page, server, "?cgp=" + quote(HIDDEN_END))
            page.fill("#move-input", "-")
            page.click("#play")
            wait_until(page, "document.getElementById('verdict').textContent.includes('game is over')")
            assert "its scores are not final" in text(page, "#verdict")
            wait_until(page, "document.querySelector('#moves tbody').innerText.includes('The game is over')")
            assert "tiles left on the rack to move" in text(page, "#moves tbody")
            open_page(page, server, "?cgp=" + quote(f"{EMPTY15} AEINRST/EEIIORS 0/0 6"))
            wait_until(page, "document.querySelector('#moves tbody').innerText.includes('The game is over')")
            assert "not final" not in text(page, "#moves tbody")
            assert errors == []
        finally:
            browser.close()


# --- what a phone's keyboard types, and the banner for the network (tests/test_browser_phone.py's server side) ------------------------------------------------------------------------------------------------
def test_a_last_play_in_lower_case_says_the_board_holds_it_in_capitals():
    """A phone typed "8d outgun" for the last play on a board holding OUTGUN: "8D outgun is not on
    the board", and nothing said that lower case is blanks."""
    analyzer = Analyzer("english")
    body = {"cgp": OUTGUN + " EEIIORS/ 0/16 0", "infer": "8d outgun", "candidates": 2, "plies": 1, "seconds": 0.5}
    with pytest.raises(InferenceError) as e:
        analyzer.sim(body)
    assert str(e.value) == ("8D outgun is not on the board (lower-case letters are blanks; the board holds 8D OUTGUN): "
                            "give the opponent's last play as it stands on the board")
    with pytest.raises(InferenceError) as e:  # (letters that are not there: as before)
        analyzer.sim({**body, "infer": "8d outgum"})
    assert str(e.value) == "8D outgum is not on the board: give the opponent's last play as it stands on the board"


def test_the_web_sim_says_so_too():
    srv = make_server(Analyzer("english"), "127.0.0.1", 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
        body = {"cgp": OUTGUN + " EEIIORS/ 0/16 0", "infer": "8d outgun", "candidates": 2, "plies": 1, "seconds": 0.5}
        conn.request("POST", "/api/sim", body=json.dumps(body), headers={"Content-Type": "application/json"})
        res = conn.getresponse()
        answer = json.loads(res.read())
        conn.close()
    finally:
        srv.shutdown()
        srv.server_close()
    assert res.status == 400
    assert "(lower-case letters are blanks; the board holds 8D OUTGUN)" in json.dumps(answer, ensure_ascii=False)


def test_the_banner_names_no_loopback_address_to_the_network(capsys, monkeypatch):
    """--allow-host 127.0.0.1 (or localhost) printed "members use http://127.0.0.1:PORT/": on a
    member's phone that is the phone. The banner names only what other machines can reach."""
    import racksmith.cli.web_cmds as web_cmds
    from racksmith.cli.main import main
    from racksmith.web.server import AnalyzerServer

    monkeypatch.setattr(web_cmds, "this_machine", lambda family=socket.AF_INET, timeout=1.0: ["clubpc", "192.168.1.5"])
    monkeypatch.setattr(AnalyzerServer, "serve_forever", lambda self, *a, **kw: (_ for _ in ()).throw(KeyboardInterrupt))
    for names in (["127.0.0.1"], ["localhost"], ["127.0.0.1", "localhost", "[::1]"]):
        assert main(["serve", "--host", "0.0.0.0", "--port", "0", *(f"--allow-host={n}" for n in names)]) == 130
        warning = capsys.readouterr().err.splitlines()[1]
        assert "members use" not in warning and "127.0.0.1" not in warning and "localhost" not in warning, warning
        assert "this machine is clubpc, 192.168.1.5" in warning, warning
    assert main(["serve", "--host", "0.0.0.0", "--port", "0", "--allow-host", "localhost", "--allow-host", "clubpc"]) == 130
    warning = capsys.readouterr().err.splitlines()[1]
    port = warning.split(" port ")[1].split()[0]
    assert f"members use http://clubpc:{port}/ (any" in warning and "localhost" not in warning, warning
