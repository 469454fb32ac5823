"""The web analyzer over real HTTP: a server on a free port in a thread, every endpoint compared with
the library and the CLI, every error path a one-line JSON error, the page and its assets served."""
from __future__ import annotations

import http.client
import json
import re
import socket
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, with_time_penalty
from racksmith import Position, get_ruleset
from racksmith.review.analysis import analyze
from racksmith.cli.main import main
from racksmith.lexicon import load_leaves, load_lexicon
from racksmith.review.replay import replay_text
from racksmith.errors import RacksmithError
from racksmith.web import MAX_BODY, Analyzer, RequestError, make_server

EMPTY15 = "/".join(["15"] * 15)
QUIRK = "/".join(["15"] * 7 + ["3QUIRK7"] + ["15"] * 7) + " ADEIRS?/ 56/0 0"
MID = ("7M7/7O7/7N7/5V1G3OPAH/4REFoRGED3/4EX1L7/4C10/3KRONA3F3/4U6O3/4I6I3/4T2HAJIS3/2BOSQUE3T3/7D7/"
       "ADVISING7/7Y7 AEEILPS/ABCENW? 301/230 0")
SUPER = ("7K13/7U13/7V3G9/3COMMA3N2GOOFY2/4DIASPORA2I6/2JEER1Z3W2L6/11EL1T6/7INVADERS6/12H8/12R8/8KYATS8/"
         + "/".join(["21"] * 10) + " DHIORTU/EEILOPS 252/230 0")
RUSSIAN = f"{'/'.join(['15'] * 7)}/5КОШКА5/{'/'.join(['15'] * 7)} АБВЁЛО?/ 12/0 0"
LEAVES = FIXTURES / "SYNTH.klv2"
GAME = (FIXTURES / "gcg" / "game01_seed1.gcg").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def server():
    logged: list[str] = []
    refused: list[str] = []  # (kept off stderr: a line written late lands in another test's capture)
    srv = make_server(Analyzer("english", None, LEAVES), "127.0.0.1", 0, log=logged.append, refusal_log=refused.append)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    srv.logged = logged
    yield srv
    srv.shutdown()
    srv.server_close()
    assert logged == []  # no internal error in the whole module


def call(server, method: str, path: str, body=None, *, raw: bytes | None = None, headers=None):
    """(status, headers, decoded JSON or bytes)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(server.url.rstrip("/") + path, data=data, method=method,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=20) as res:
            status, head, payload = res.status, res.headers, res.read()
    except urllib.error.HTTPError as e:
        status, head, payload = e.code, e.headers, e.read()
    if head.get("Content-Type", "").startswith("application/json"):
        return status, head, json.loads(payload)
    return status, head, payload


def post(server, path, body):
    status, _, answer = call(server, "POST", path, body)
    assert status == 200, answer
    return answer


def error(server, path, body=None, *, method="POST", status=400, **kw) -> dict:
    got, head, answer = call(server, method, path, body, **kw)
    assert got == status, answer
    assert head["Content-Type"] == "application/json; charset=utf-8"
    assert isinstance(answer["error"], str) and answer["error"] and "\n" not in answer["error"]
    assert "Traceback" not in answer["error"]
    return answer


# --- the page ---------------------------------------------------------------------------------------
def test_page_and_every_asset_it_names_are_served(server):
    status, head, page = call(server, "GET", "/")
    assert status == 200 and head["Content-Type"] == "text/html; charset=utf-8"
    assert "default-src 'self'" in head["Content-Security-Policy"]
    text = page.decode("utf-8")
    assert '<div id="board"' in text and 'id="moves"' in text and 'id="gcg-text"' in text
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', text)
    assert sorted(assets) == ["/static/app.css", "/static/app.js"]
    for path, kind in (("/static/app.css", "text/css"), ("/static/app.js", "text/javascript")):
        status, head, data = call(server, "GET", path)
        assert status == 200 and head["Content-Type"].startswith(kind) and len(data) > 1000
    status, head, data = call(server, "HEAD", "/static/app.js")
    assert status == 200 and data == b"" and int(head["Content-Length"]) > 1000
    js = call(server, "GET", "/static/app.js")[2].decode("utf-8")
    for endpoint in ("/api/rulesets", "/api/position", "/api/moves", "/api/score", "/api/validate", "/api/gcg",
                     "/api/play", "/api/export"):
        assert f'"{endpoint}"' in js  # the page uses every endpoint
    error(server, "/static/nope.js", method="GET", status=404)
    error(server, "/static/../api.py", method="GET", status=404)


# --- the endpoints --------------------------------------------------------------------------------------
def test_rulesets(server):
    status, _, info = call(server, "GET", "/api/rulesets")
    assert status == 200
    assert info["default"] == "english" and info["leaves"] == "SYNTH.klv2"
    by = {r["name"]: r for r in info["rulesets"]}
    assert list(by) == ["english", "russian", "erudit", "super"]
    en = by["english"]
    assert (en["rows"], en["cols"], en["rack_size"], en["bingo_bonus"], en["start"]) == (15, 15, 7, 50, [7, 7])
    assert en["values"]["Q"] == 10 and en["counts"]["?"] == 2 and sum(en["counts"].values()) == 100
    assert en["premiums"][7] == "=..'...-...'..=" and en["alphabet"][:3] == ["A", "B", "C"]
    assert (en["lexicons"], en["leaves"]) == (["enable"], True)
    assert (by["super"]["rows"], by["super"]["lexicons"], by["super"]["leaves"]) == (21, ["enable"], True)
    assert by["super"]["premiums"][0][0] == "~"
    ru = by["russian"]
    assert "Ё" in ru["alphabet"] and ru["values"]["Ф"] == 10 and ru["lexicons"] == ["ru"] and ru["leaves"]  # its shipped leaves
    assert by["erudit"]["lexicons"] == ["ru-erudit"]


def test_position(server):
    p = post(server, "/api/position", {"cgp": QUIRK})
    assert p["ruleset"] == "english" and p["cgp"] == QUIRK and (p["rows"], p["cols"]) == (15, 15)
    assert p["board"][7][3:8] == ["Q", "U", "I", "R", "K"] and p["board"][0][0] == ""
    assert p["racks"] == ["ADEIRS?", ""] and p["scores"] == [56, 0] and p["zero_turns"] == 0
    # the opponent's rack is not given: 7 of the 88 unseen tiles are on it, 81 in the bag
    assert p["bag_count"] == 81 and p["unseen_count"] == 88 == sum(p["bag"].values()) and p["racks_known"] == [True, False]
    assert p["bag"]["?"] == 1 and "Q" not in p["bag"]
    assert p["premiums"][0] == "=..'...=...'..="
    mid = post(server, "/api/position", {"cgp": MID, "ruleset": "english"})
    assert mid["board"][4][7] == "o"  # a blank is lowercase
    s = post(server, "/api/position", {"cgp": SUPER, "ruleset": "super"})
    assert (s["rows"], len(s["board"]), len(s["board"][0])) == (21, 21, 21) and s["cgp"] == SUPER + " ld english_super;"
    r = post(server, "/api/position", {"cgp": RUSSIAN, "ruleset": "скрэббл"})
    assert r["ruleset"] == "russian" and r["board"][7][5:10] == list("КОШКА") and r["racks"][0] == "АБВЁЛО?"


def _library_moves(cgp, ruleset="english", **kw):
    return Position.from_cgp(cgp, ruleset).moves(**kw)


@pytest.mark.parametrize("sort", ["score", "equity"])
def test_moves_are_the_library_s(server, sort):
    got = post(server, "/api/moves", {"cgp": MID, "top": 25, "sort": sort, "exchanges": True})
    want = _library_moves(MID, top=25, sort=sort, leaves=load_leaves(LEAVES, "english"), exchanges=True)
    assert got["count"] == 25 and got["sort"] == sort and got["lexicon"] == "enable" and got["leaves"] is True
    assert [m["notation"] for m in got["moves"]] == [m.notation() for m in want]
    assert [m["score"] for m in got["moves"]] == [m.score for m in want]
    assert [m["equity"] for m in got["moves"]] == [round(m.equity, 3) for m in want]
    records = want.to_records()
    for g, m, rec in zip(got["moves"], want, records):
        assert (g["type"], g.get("row"), g.get("col"), g.get("dir"), g.get("word"), g["leave"]) == (
            rec["type"], rec.get("row"), rec.get("col"), rec.get("dir"), rec.get("word"), rec.get("leave"))
        if m.is_place:
            assert g["placed"] == [[r, c, m.alphabet.letter(t)] for r, c, t in m.placed]
            assert g["bingo"] == (m.tiles_played == 7)


def test_moves_options(server):
    every = post(server, "/api/moves", {"cgp": MID, "top": None, "leaves": False})
    assert every["count"] == len(_library_moves(MID)) == 1150 and every["leaves"] is False
    assert all(m["equity"] is None for m in every["moves"])  # by score, no leaves: no equity
    assert every["moves"][-1] == {"type": "pass", "equity": None, "notation": "-", "score": 0, "leave": "AEEILPS"}
    down = post(server, "/api/moves", {"cgp": MID, "top": None, "direction": "down", "leaves": False})
    assert {m["dir"] for m in down["moves"] if m["type"] == "place"} == {"V"}
    assert post(server, "/api/moves", {"cgp": MID})["count"] == 20  # the default top
    ex = post(server, "/api/moves", {"cgp": MID, "top": None, "exchanges": True})
    assert sum(m["type"] == "exchange" for m in ex["moves"]) == 95  # distinct subsets of AEEILPS
    bingo = post(server, "/api/moves", {"cgp": QUIRK, "top": 1})["moves"][0]
    assert bingo["bingo"] is True and len(bingo["placed"]) == 7
    sup = post(server, "/api/moves", {"cgp": SUPER, "ruleset": "super", "top": 5, "sort": "equity"})
    want = _library_moves(SUPER, "super", top=5, sort="equity", leaves=load_leaves(LEAVES, "super"))
    assert [m["notation"] for m in sup["moves"]] == [m.notation() for m in want] and sup["leaves"] is True
    ru = post(server, "/api/moves", {"cgp": RUSSIAN, "ruleset": "russian", "top": 3})
    assert ru["lexicon"] == "ru" and ru["leaves"] is True  # the server's leaves are English: russian's shipped ones
    assert [m["notation"] for m in ru["moves"]] == [m.notation() for m in _library_moves(RUSSIAN, "russian", top=3)]


def _cli_json(capsys, *args):
    code = main(list(args))
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def test_score_and_validate_answer_the_cli_s_json(server, capsys):
    for move in ("A10 ESPI(A)L", "8L (F)LIP", "-AEE", "-"):
        assert post(server, "/api/score", {"cgp": MID, "move": move}) == _cli_json(
            capsys, "score", "--cgp", MID, "--move", move, "--json")[1]
    b = post(server, "/api/score", {"cgp": MID, "move": "A10 ESPI(A)L"})
    assert b["score"] == 33 and b["words"][0]["word"] == "ESPIAL" and b["words"][0]["word_multiplier"] == 3
    for move in ("8L (F)LIP", "8L (F)LOP", "8L (F)LIPZ", "A10 ESPI(A)L", "-AEE", "-Z"):
        want = _cli_json(capsys, "validate", "--cgp", MID, "--move", move, "--json")[1]
        assert post(server, "/api/validate", {"cgp": MID, "move": move}) == want
    assert post(server, "/api/validate", {"cgp": MID, "move": "8L (F)LOP"})["reason"] == "not_in_rack"
    assert post(server, "/api/validate", {"cgp": MID, "move": "8L (F)LIPS"})["reason"] in ("invalid_words", "off_board")
    v = post(server, "/api/validate", {"cgp": RUSSIAN, "ruleset": "russian", "move": "F6 БО(К)АЛ"})
    assert v == {"legal": True, "score": 19, "lexicon": "ru"}
    # the word list that judged a play is named: a CGP's lex racksmith does not ship is not it
    krona = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EIQRSTU/ 0/28 0 lex CSW21;"
    v = post(server, "/api/validate", {"cgp": krona, "move": "9G QI"})
    assert (v["reason"], v["words"], v["lexicon"]) == ("invalid_words", ["QI", "NQ"], "enable")
    assert v == _cli_json(capsys, "validate", "--cgp", krona, "--move", "9G QI", "--json")[1]
    illegal = error(server, "/api/score", {"cgp": MID, "move": "8A QI"})
    assert illegal["reason"] == "not_connected" and illegal["words"] == []


def test_gcg_replay_and_analysis(server):
    g = post(server, "/api/gcg", {"text": GAME})
    r = replay_text(GAME, strict=False)
    assert g["ruleset"] == "english" and g["players"] == ["p1", "p2"] and g["final_scores"] == [445, 516]
    assert g["complete"] is True and g["errors"] == [] and len(g["turns"]) == 24
    for t, rt in zip(g["turns"], r.turns):
        assert t["cgp"] == r.cgp(rt.number) and t["move"] == rt.move.notation() and t["score"] == rt.score
        assert t["placed"] == [[row, col, r.ruleset.alphabet.letter(x)] for row, col, x in rt.move.placed]
    assert g["turns"][1]["event"] == ">p2: CEIRSTU E5 REC.UITS +90 90" and g["turns"][1]["bingo"] is True
    assert g["turns"][1]["scores_before"] == [28, 0] and g["turns"][1]["nick"] == "p2"
    assert g["end_cgp"] == r.cgp(25)
    assert {t["rack_complete"] for t in g["turns"]} == {True}
    # p2's rack shown in part (the tiles played only, as Woogles writes an opponent's): flagged, the
    # turn's CGP leaves his rack empty
    partial = post(server, "/api/gcg", {"text": GAME.replace(">p2: CEIRSTU E5", ">p2: CEIRSU E5"), "analyze": False})
    assert partial["turns"][1]["rack_complete"] is False and partial["turns"][1]["rack"] == "CEIRSU"
    assert partial["turns"][1]["cgp"].split()[1].startswith("/")
    assert partial["turns"][0]["rack_complete"] is True
    want = analyze(r, load_leaves(LEAVES, "english"), top=5).to_dict()
    assert g["analysis"]["turns"] == want["turns"] and g["analysis"]["players"] == want["players"]
    assert g["analysis"]["leaves"] is True and g["analysis"]["lexicon"] == "enable"
    bare = post(server, "/api/gcg", {"text": GAME, "analyze": False})
    assert bare["analysis"] is None and bare["turns"] == g["turns"]
    top1 = post(server, "/api/gcg", {"text": GAME, "top": 1, "leaves": False})
    assert {len(t["best"]) for t in top1["analysis"]["turns"]} == {1} and top1["analysis"]["leaves"] is False


def test_scores_the_endgame_search_cannot_hold_are_user_errors(server):
    """Scores too far apart for the endgame search: /api/endgame answers 400 in one line, /api/gcg
    analyses the game with a note on its endgame turns (never a 500: the module's server logs none)."""
    endgame = "/".join(["7M2MORAL", "6COWBANEs1", "6UN4AE1", "5VIG3OPAH", "4REFoRGED3", "4EX1L7", "4C10",
                        "3KRONA3FLIP", "4U6O2A", "1ZOWIE2T2I2N", "4T2HAJIS2N", "2BOSQUET2T2I", "7DE5E",
                        "ADVISING6R", "YE5Y6S"]) + " DEEILRT/AOTU 20000000/0 0"
    assert "differ by 20000000 points" in error(server, "/api/endgame", {"cgp": endgame, "plies": 1})["error"]
    g = post(server, "/api/gcg", {"text": with_time_penalty(GAME, 20_000_000), "top": 1})
    assert g["errors"] == [] and "analysis_error" not in g
    notes = [t["note"] for t in g["analysis"]["turns"] if t["note"].startswith("endgame not graded")]
    assert len(notes) >= 4 and all(t["endgame"] is None for t in g["analysis"]["turns"])


def test_gcg_record_errors_are_reported_not_fatal(server):
    bad = GAME.replace(">p1: AEKNOQR 8D KRONA +28 28", ">p1: AEKNOQR 8D KRONA +30 30")
    g = post(server, "/api/gcg", {"text": bad})
    assert [e["line"] for e in g["errors"]][:1] == [9] and "the record says +30" in g["errors"][0]["message"]
    assert len(g["turns"]) == 24 and g["analysis"] is not None
    # the record reaches the game's last lines, but a replay with errors is not a finished game
    assert g["complete"] is False
    junk = post(server, "/api/gcg", {"text": "hello\nworld\n"})
    assert junk["errors"] and junk["turns"] == [] and junk["complete"] is False


# --- errors ------------------------------------------------------------------------------------------------
BAD_REQUESTS = [
    ("/api/position", {}, "field 'cgp' is missing"),
    ("/api/position", {"cgp": 5}, "field 'cgp' must be a string, got 5"),
    ("/api/position", {"cgp": "15/15 A/ 0/0 0"}, "CGP board has 2 rows"),
    ("/api/position", {"cgp": SUPER}, "use the 'super' ruleset"),
    ("/api/position", {"cgp": f"{EMPTY15} QQQ/ 0/0 0"}, "impossible position"),
    ("/api/position", {"cgp": "9" * 4000 + "/15 A/ 0/0 0"}, "CGP board has 2 rows"),  # (under max_cgp_chars)
    ("/api/position", {"cgp": QUIRK, "ruleset": "chess"}, "unknown ruleset 'chess'"),
    ("/api/position", {"cgp": QUIRK, "ruleset": str(FIXTURES / "x.toml")}, "unknown ruleset"),
    ("/api/position", {"cgp": QUIRK, "ruleset": ["english"]}, "field 'ruleset' must be a ruleset name"),
    ("/api/moves", {"cgp": MID, "top": 0}, "field 'top' must be a whole number"),
    ("/api/moves", {"cgp": MID, "top": "5"}, "field 'top' must be a whole number"),
    ("/api/moves", {"cgp": MID, "top": True}, "field 'top' must be a whole number"),
    ("/api/moves", {"cgp": MID, "sort": "luck"}, "field 'sort' must be one of score, equity"),
    ("/api/moves", {"cgp": MID, "direction": "up"}, "field 'direction' must be one of"),
    ("/api/moves", {"cgp": MID, "exchanges": "yes"}, "field 'exchanges' must be true or false"),
    ("/api/moves", {"cgp": MID, "leaves": 1}, "field 'leaves' must be true or false"),
    ("/api/moves", {"cgp": MID, "lexicon": "/etc/passwd"}, "lexicon '/etc/passwd' is not available"),
    ("/api/moves", {"cgp": MID, "lexicon": "ru"}, "lexicon 'ru' is not available for ruleset english"),
    ("/api/score", {"cgp": MID}, "field 'move' is missing"),
    ("/api/score", {"cgp": MID, "move": "QUIRK"}, "bad move 'QUIRK'"),
    ("/api/score", {"cgp": MID, "move": "8A QI"}, "the play touches no tile"),
    ("/api/score", {"cgp": MID, "move": "8Z QI"}, "the move runs off the 15x15 board at 8Z"),
    ("/api/score", {"cgp": MID, "move": "0A QI"}, "bad coordinate"),
    ("/api/validate", {"cgp": MID, "move": "8D Q1"}, "bad move '8D Q1'"),
    ("/api/validate", {"cgp": MID, "move": 8}, "field 'move' must be a string"),
    ("/api/gcg", {}, "field 'text' is missing"),
    ("/api/gcg", {"text": "  \n"}, "field 'text' is empty"),
    ("/api/gcg", {"text": GAME, "top": 0}, "field 'top' must be a whole number from 1 to 50"),
    ("/api/gcg", {"text": GAME, "analyze": "no"}, "field 'analyze' must be true or false"),
]


@pytest.mark.parametrize(("path", "body", "message"), BAD_REQUESTS)
def test_bad_requests_get_one_line(server, path, body, message):
    assert message in error(server, path, body)["error"]


def test_http_errors(server):
    assert error(server, "/api/nope", {}, status=404)["error"] == "no such page or endpoint: /api/nope"
    got = error(server, "/api/moves", method="GET", status=405)
    assert got["error"] == "GET is not allowed here: use POST"
    status, head, _ = call(server, "GET", "/api/moves")
    assert head["Allow"] == "POST"
    error(server, "/api/rulesets", {}, status=405)
    error(server, "/", {}, method="PUT", status=405)
    error(server, "/api/moves", {}, method="DELETE", status=405)
    error(server, "/nowhere", {}, method="PATCH", status=404)
    assert error(server, "/api/moves", raw=b"[1, 2]")["error"].startswith("the body must be a JSON object")
    assert error(server, "/api/moves", raw=b"")["error"].startswith("the body must be a JSON object")
    assert error(server, "/api/moves", raw=b'{"cgp": ')["error"].startswith("the body is not JSON")
    assert error(server, "/api/moves", raw=b"\xff\xfe")["error"].startswith("the body is not UTF-8")
    assert "nested too deeply" in error(server, "/api/moves", raw=b"[" * 200_000)["error"]
    assert error(server, "/api/moves", raw=b"{}", headers={"Host": "evil.example"}, status=403)["error"].startswith("host")


def _raw_exchange(server, request: bytes) -> tuple[int, dict, bytes]:
    """Send bytes as they are and read the answer (http.client cannot send malformed requests)."""
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    if not data.startswith(b"HTTP/"):  # the answer to a request line without a version has no head
        return 0, {}, data
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return status, headers, body


def test_oversized_chunked_and_malformed_requests(server):
    head = f"Host: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n".encode()
    big = b"POST /api/moves HTTP/1.1\r\n" + head + f"Content-Length: {MAX_BODY + 1}\r\n\r\n".encode()
    status, headers, body = _raw_exchange(server, big)  # answered without reading the body, then closed
    assert status == 413 and headers["Connection"] == "close"
    assert json.loads(body) == {"error": f"the request has {MAX_BODY + 1:,} bytes; this server reads requests of at most "
                                         f"{MAX_BODY:,} bytes (its max_body limit)", "limit": "max_body"}
    chunked = b"POST /api/moves HTTP/1.1\r\n" + head + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
    status, _, body = _raw_exchange(server, chunked)
    assert status == 400 and "Content-Length" in json.loads(body)["error"]
    status, _, body = _raw_exchange(server, b"POST /api/moves HTTP/1.1\r\n" + head + b"Content-Length: -5\r\n\r\n")
    assert status == 400 and json.loads(body)["error"] == "bad Content-Length '-5'"
    status, _, body = _raw_exchange(server, b"GARBAGE\r\n\r\n")
    assert json.loads(body) == {"error": "Bad request syntax ('GARBAGE')"}
    status, _, body = _raw_exchange(server, b"GET / HTTP/1.1\r\nX: " + b"x" * 70000 + b"\r\n\r\n")
    assert status == 431 and json.loads(body) == {"error": "Line too long"}
    status, _, body = _raw_exchange(server, b"BREW /api/moves HTTP/1.1\r\n\r\n")
    assert status == 403 and "Host" in json.loads(body)["error"]  # as any method without a Host (was 501)
    # keep-alive: one connection, several requests, the body of a refused one drained
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
    conn.request("GET", "/api/rulesets", body=b"ignored")
    assert json.loads(conn.getresponse().read())["default"] == "english"
    conn.request("PUT", "/api/moves", body=b'{"cgp": "x"}')
    res = conn.getresponse()
    assert res.status == 405 and json.loads(res.read())["error"].startswith("PUT")
    conn.request("POST", "/api/position", body=json.dumps({"cgp": QUIRK}), headers={"Content-Type": "application/json"})
    res = conn.getresponse()
    assert res.status == 200 and json.loads(res.read())["cgp"] == QUIRK
    conn.close()
    assert call(server, "GET", "/api/rulesets")[0] == 200  # still serving


def test_concurrent_requests_agree_with_serial_ones(server):
    bodies = [{"cgp": c, "ruleset": rs, "top": 30, "sort": "equity"} for c, rs in
              ((MID, "english"), (QUIRK, "english"), (SUPER, "super"), (RUSSIAN, "russian"))] * 4
    serial = [post(server, "/api/moves", b) for b in bodies]
    with ThreadPoolExecutor(8) as pool:
        parallel = list(pool.map(lambda b: post(server, "/api/moves", b), bodies))
    assert parallel == serial


VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 10**6), st.floats(allow_nan=False), st.sampled_from(
        [MID, QUIRK, SUPER, RUSSIAN, "english", "super", "russian", "erudit", "score", "equity", "down", "8L (F)LIP",
         "-AEE", "-", "enable", "ru", GAME, "#player1 a a\n>a: A 8H A +0 0", "", "15/15"]),
    st.text(max_size=30), st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
BODIES = st.dictionaries(
    st.sampled_from(["cgp", "ruleset", "lexicon", "top", "sort", "exchanges", "leaves", "direction", "move", "text",
                     "analyze"]), VALUES, max_size=6)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/api/position", "/api/moves", "/api/score", "/api/validate", "/api/gcg"]), body=BODIES)
def test_any_body_gets_an_answer_or_a_one_line_error(server, path, body):
    status, _, answer = call(server, "POST", path, body)
    assert status in (200, 400, 413), answer
    if status == 413:  # a field over its limit (a whole record given as the move), naming the limit
        assert answer["limit"].startswith("max_") and answer["limit"] in answer["error"]
    if status != 200:
        assert answer["error"] and "\n" not in answer["error"]


GAME_LINES = GAME.splitlines()
GCG_TOKENS = st.sampled_from([">p1:", ">p2:", "AEKNOQR", "?DDFGGY", "8D", "H12", "15A", "KRONA", ".DGY", "-ABC", "-",
                              "--", "+28", "-27", "28", "(R)", "#player1", "p1", "x", "99999999999999999999", ""])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.integers(0, len(GAME_LINES) - 1), tokens=st.lists(GCG_TOKENS | st.text(max_size=8), max_size=6),
       analyze_it=st.booleans())
def test_any_damaged_record_gets_an_answer_or_a_one_line_error(server, line, tokens, analyze_it):
    text = "\n".join(GAME_LINES[:line] + [" ".join(tokens)] + GAME_LINES[line + 1:])
    status, _, answer = call(server, "POST", "/api/gcg", {"text": text, "analyze": analyze_it})
    assert status in (200, 400), answer
    if status == 400:
        assert answer["error"] and "\n" not in answer["error"]
    else:
        assert all("\n" not in e["message"] for e in answer["errors"])


# --- the server's own lexicon and ruleset ------------------------------------------------------------------
def test_server_lexicon_and_custom_ruleset(tmp_path):
    custom = tmp_path / "mini.toml"
    custom.write_text(
        'name = "mini"\ntitle = "Mini"\nboard = [".....", ".....", "..-..", ".....", "....."]\n'
        'tiles = [["A", 9, 1], ["B", 2, 3], ["E", 12, 1], ["T", 6, 1]]\nblanks = 2\nrack_size = 5\n'
        'bingo_bonus = 20\nstart = "3C"\n', encoding="utf-8")
    words = tmp_path / "mini-words.txt"
    words.write_text("BAT\nTAB\nBEAT\nABATE\nEAT\nTEA\nAT\nTA\nBE\n", encoding="utf-8")
    analyzer = Analyzer(custom, words, None)
    info = analyzer.rulesets_info()
    assert [r["name"] for r in info["rulesets"]][:2] == ["mini", "english"] and info["default"] == "mini"
    assert info["rulesets"][0]["lexicons"] == ["mini-words"] and info["rulesets"][1]["lexicons"] == ["enable"]
    moves = analyzer.moves({"cgp": "5/5/5/5/5 ABET?/ 0/0 0", "top": 5})
    assert moves["lexicon"] == "mini-words" and [(m["notation"], m["score"], m.get("bingo")) for m in moves["moves"]] == [
        ("3A ABaTE", 32, True), ("3A aBATE", 32, True), ("3A BEAT", 12, False), ("3B BEAT", 12, False),
        ("3A BAT", 10, False)]
    with pytest.raises(RequestError, match="lexicon 'enable' is not available for ruleset mini"):
        analyzer.moves({"cgp": "5/5/5/5/5 ABET?/ 0/0 0", "lexicon": "enable"})
    # the ruleset file's own lexicon (a relative path, read beside the file) when the server is given none
    own = tmp_path / "own.toml"
    own.write_text(custom.read_text(encoding="utf-8").replace('name = "mini"', 'name = "own"')
                   + 'lexicon = "mini-words.txt"\n', encoding="utf-8")
    served = Analyzer(own, None, None)
    assert served.rulesets_info()["rulesets"][0]["lexicons"] == ["mini-words"]
    assert served.moves({"cgp": "5/5/5/5/5 ABET?/ 0/0 0", "top": 1})["moves"][0]["notation"] == "3A ABaTE"
    kwg = Analyzer("english", FIXTURES / "ENABLE15.kwg", LEAVES)
    assert kwg.rulesets_info()["rulesets"][0]["lexicons"] == ["ENABLE15", "enable"]
    a = kwg.moves({"cgp": MID, "top": None})
    b = kwg.moves({"cgp": MID, "top": None, "lexicon": "enable"})
    assert (a["lexicon"], b["lexicon"], a["count"]) == ("ENABLE15", "enable", 1150) and a["moves"] == b["moves"]


# --- playing on, exporting, errors in the body ---------------------------------------------------------
def test_play_then_export_a_game_that_replays(server):
    first = post(server, "/api/play", {"cgp": f"{EMPTY15} DEIKQRU/ 0/0 0", "move": "8D QUIRK", "seed": 7})
    assert (first["move"], first["score"], first["rack"]) == ("8D QUIRK", 56, "DEIKQRU")
    assert len(first["drawn"]) == 5 and first["position"]["scores"] == [0, 56] and not first["over"]
    again = post(server, "/api/play", {"cgp": f"{EMPTY15} DEIKQRU/ 0/0 0", "move": "8D QUIRK", "seed": 7})
    assert again["drawn"] == first["drawn"]  # a seed repeats the draw
    cgp2 = first["cgp"].replace(" /", " AEINST?/", 1)
    second = post(server, "/api/play", {"cgp": cgp2, "move": "H8 (K)AiNITES", "draw": "ABCDEFG"})
    assert second["score"] == 86 and second["drawn"] == "ABCDEFG"
    turns = [{"cgp": f"{EMPTY15} DEIKQRU/ 0/0 0", "move": "8D QUIRK", "draw": first["drawn"]},
             {"cgp": cgp2, "move": "H8 (K)AiNITES", "draw": "ABCDEFG"}]
    gcg = post(server, "/api/export", {"turns": turns})["gcg"]
    r = replay_text(gcg, strict=True)
    assert [t.move.notation() for t in r.turns] == ["8D QUIRK", "H8 (K)AiNITES"] and r.scores == [56, 86]
    e = error(server, "/api/export", {"turns": [{"cgp": QUIRK, "move": "9D ADE"}]})
    assert "empty board" in e["error"]
    e = error(server, "/api/play", {"cgp": QUIRK, "move": "8A QUIRK"})
    assert e["reason"] == "occupied"


@pytest.mark.parametrize("players", [[["a"], ["b"]], [{}, {}], [1, 2], [None, "b"], ["a", "a"], ["a b", "c"]])
def test_export_refuses_players_that_are_not_two_nicks(server, players):
    """Nicks that were not strings were a 500 (their set was taken before their type was checked)."""
    turns = [{"cgp": f"{EMPTY15} DEIKQRU/ 0/0 0", "move": "8D QUIRK", "draw": "ABCDE"}]
    answer = error(server, "/api/export", {"turns": turns, "players": players})
    assert answer["error"] == "field 'players' must be two different nicks without spaces or ':'"


def test_export_refuses_turns_that_do_not_follow_each_other(server):
    """Turn 2's position must be the one turn 1's move left: a GCG record was written that did not
    replay (another board, the mover's kept tiles gone), and turns after the game's end were dropped."""
    start = f"{EMPTY15} DEIKQRU/AEINST? 0/0 0"
    first = post(server, "/api/play", {"cgp": start, "move": "8D QUIRK", "draw": "ABCDE"})
    board, racks, *rest = first["cgp"].split(" ")
    assert racks == "AEINST?/ABCDDEE"  # QUIRK kept D and E
    one = {"cgp": start, "move": "8D QUIRK", "draw": "ABCDE"}
    good = [one, {"cgp": first["cgp"], "move": "H8 (K)AiNITES", "draw": ""}]
    assert replay_text(post(server, "/api/export", {"turns": good})["gcg"], strict=True).scores == [56, 86]
    # the tiles drawn may be typed over (the real draw): what the move kept may not go
    retyped = " ".join([board, "AEINST?/DEFGHLM", *rest])
    post(server, "/api/export", {"turns": [one, {"cgp": retyped, "move": "-"}]})
    lost = " ".join([board, "AEINST?/ABCFGHL", *rest])
    answer = error(server, "/api/export", {"turns": [one, {"cgp": lost, "move": "-"}]})
    assert answer["error"].startswith("turn 2: its position is not the one turn 1 (8D QUIRK) left: ")
    assert "lacks tiles his move kept (DE)" in answer["error"]
    moved = " ".join([board.replace("3QUIRK7", "4QUIRK6", 1), racks, *rest])
    answer = error(server, "/api/export", {"turns": [one, {"cgp": moved, "move": "-"}]})
    assert answer["error"].startswith("turn 2: its position is not the one turn 1 (8D QUIRK) left: square 8D differs")
    # turns after the game ended (six scoreless turns)
    passes = [{"cgp": f"{EMPTY15} {r}/ 0/0 {i}", "move": "-"} for i, r in enumerate(["AEINRST", "EEIIORS"] * 4)]
    answer = error(server, "/api/export", {"turns": passes[:7]})
    assert answer["error"].startswith("turn 7: the game ended with turn 6 (-)")
    assert post(server, "/api/export", {"turns": passes[:6]})["turns"] >= 6


def test_the_page_gets_user_errors_in_the_body(server):
    status, _, answer = call(server, "POST", "/api/validate", {"cgp": QUIRK, "move": "QX"}, headers={"X-Errors": "body"})
    assert status == 200 and answer["status"] == 400 and "bad move" in answer["error"]
    status, _, answer = call(server, "POST", "/api/play", {"cgp": QUIRK, "move": "8A QUIRK"}, headers={"X-Errors": "body"})
    assert status == 200 and answer["status"] == 400 and answer["reason"] == "occupied"
    status, _, answer = call(server, "POST", "/api/validate", {"cgp": QUIRK, "move": "QX"})
    assert status == 400  # other clients: a 400


def test_a_body_over_max_body_is_a_user_error_for_the_page(server):
    """A GCG of more than 1 MiB pasted in the Game tab: the 413 ignored ``X-Errors: body`` (a
    console error on the page, and "the body has N bytes; the limit is 1048576 (max_body)")."""
    head = (f"POST /api/gcg HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {MAX_BODY + 5000}\r\n").encode()
    status, _, body = _raw_exchange(server, head + b"X-Errors: body\r\n\r\n")  # answered before the body is sent
    answer = json.loads(body)
    assert status == 200 and answer["status"] == 413 and answer["limit"] == "max_body"
    assert "this server reads requests of at most 1,048,576 bytes (its max_body limit)" in answer["error"]
    status, _, body = _raw_exchange(server, head + b"\r\n")  # other clients: a 413
    assert status == 413 and json.loads(body)["limit"] == "max_body"


@pytest.mark.parametrize("method", ["TRACE", "CONNECT", "FOO", "get"])
def test_any_other_method_is_405(server, method):
    """Methods http.server has no handler for were ``501 Unsupported method``; README says 405."""
    for path, allowed in (("/api/moves", "POST"), ("/api/rulesets", "GET"), ("/", "GET, HEAD")):
        status, head, body = _raw_exchange(server, f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                                                   "Connection: close\r\n\r\n".encode())
        assert status == 405 and head["Allow"] == allowed, body
        assert json.loads(body)["error"] == f"{method} is not allowed here: use {allowed}"
    status, _, _ = _raw_exchange(server, f"{method} /nowhere HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                                         "Connection: close\r\n\r\n".encode())
    assert status == 404


def test_long_values_are_clipped_in_messages(server):
    """A 5,000-character move or rack was echoed whole: a 5 KB or 10 KB message (they are now
    over max_move_chars and max_cgp_chars: the longest under them)."""
    answer = error(server, "/api/validate", {"cgp": QUIRK, "move": "-" + "9" * 255})
    assert len(answer["error"]) < 300 and "..." in answer["error"]
    answer = error(server, "/api/position", {"cgp": f"{EMPTY15} {'9' * 3900}/ 0/0 0"})
    assert len(answer["error"]) < 300 and answer["error"].startswith("CGP rack 1 '999") and "..." in answer["error"]
    from racksmith.web.api import error_line

    assert error_line("bad move '" + "9" * 100 + "': no") == "bad move '" + "9" * 59 + "...': no"
    assert error_line("a\nb") == "a" and len(error_line("word " * 1000)) == 500




def test_shipped_leaves_by_default_and_none():
    from racksmith.lexicon import default_leaves
    from racksmith.web import Analyzer

    shipped = Analyzer("english")
    assert shipped.rulesets_info()["leaves"] == "shipped"
    assert shipped.leaves_for(get_ruleset("english"), {}) is default_leaves("english")
    assert shipped.leaves_for(get_ruleset("russian"), {}) is default_leaves("russian")
    assert shipped.leaves_for(get_ruleset("english"), {"leaves": False}) is None
    off = Analyzer("english", leaves="none")
    assert off.rulesets_info()["leaves"] is None
    assert all(not r["leaves"] for r in off.rulesets_info()["rulesets"])
    assert off.leaves_for(get_ruleset("english"), {}) is None
    with pytest.raises(RequestError, match="no leave values for english"):
        off.leaves_for(get_ruleset("english"), {"leaves": True})
    # a server with its own English leaves: the rulesets they do not fit use their shipped ones
    own = Analyzer("english", None, LEAVES)
    assert own.leaves_for(get_ruleset("russian"), {"leaves": True}) is default_leaves("russian")


# --- what the page needs of the API (each a defect a player met) ---------------------------------------
def test_a_gcg_file_s_bytes_are_read_in_its_encoding(server):
    """``data``: the file's bytes, decoded as the library decodes a file (Latin-1 without a
    #character-encoding line; the page read every file as UTF-8), the text in the answer."""
    import base64

    raw = (FIXTURES / "gcg" / "macondo" / "name_iso8859-1.gcg").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    g = post(server, "/api/gcg", {"data": base64.b64encode(raw).decode(), "analyze": False})
    assert g["players"] == ["césar", "hércules"] and g["text"] == raw.decode("latin-1")
    assert "text" not in post(server, "/api/gcg", {"text": g["text"], "analyze": False})
    utf8 = ("#character-encoding UTF-8\n" + GAME).encode("utf-8")
    assert post(server, "/api/gcg", {"data": base64.b64encode(utf8).decode(), "analyze": False})["final_scores"] == \
        post(server, "/api/gcg", {"text": GAME, "analyze": False})["final_scores"]
    assert "not base64" in error(server, "/api/gcg", {"data": "@@@"})["error"]
    assert "not both" in error(server, "/api/gcg", {"data": "", "text": GAME})["error"]
    assert "must be the record file's bytes" in error(server, "/api/gcg", {"data": 5})["error"]


def test_a_cgp_s_ld_opcode_names_the_ruleset_when_the_request_does_not(server):
    """No ``ruleset`` in the request: the CGP's ``ld``/``bdn`` opcode's (the page refused a
    Russian CGP with 'ld russian;' while English was picked); a ``ruleset`` given is the one used."""
    empty = "/".join(["15"] * 15)
    p = post(server, "/api/position", {"cgp": f"{empty} КОТ/ 0/0 0 ld russian;"})
    assert p["ruleset"] == "russian" and p["racks"][0] == "КОТ"
    s = post(server, "/api/position", {"cgp": "/".join(["21"] * 21) + " AB/ 0/0 0 bdn SuperCrosswordGame;"})
    assert s["ruleset"] == "super"
    assert post(server, "/api/moves", {"cgp": f"{empty} КОТЁЛ?А/ 0/0 0 ld russian;", "top": 3})["lexicon"] == "ru"
    assert "pass ruleset='russian'" in error(server, "/api/position", {"cgp": f"{empty} КОТ/ 0/0 0 ld russian;",
                                                                         "ruleset": "english"})["error"]
    # an English lexicon racksmith does not ship: English, as the library reads it
    assert post(server, "/api/position", {"cgp": f"{empty} AB/ 0/0 0 lex CSW21;"})["ruleset"] == "english"


@pytest.mark.parametrize("opcodes, message, param", [
    ("ld french;", "'ld french' names no ruleset racksmith knows", "ruleset"),
    ("ld klingon;", "'ld klingon' names no ruleset racksmith knows", "ruleset"),
    ("lex FRA20;", "'lex FRA20' is a French lexicon", "ruleset"),
    ("ld /etc/passwd;", "'ld /etc/passwd' names a file", "ruleset"),
    ("var wordsmog;", "variant racksmith does not play", None),
])
def test_a_cgp_naming_a_ruleset_is_read_as_the_library_reads_it(server, opcodes, message, param):
    """The server looked only at ld/bdn and read a name it cannot play as English (200) where
    Position.from_cgp and the CLI refuse it; errors that naming the ruleset settles say so."""
    cgp = f"{EMPTY15} AB/ 0/0 0 {opcodes}"
    with pytest.raises(RacksmithError) as lib:
        Position.from_cgp(cgp)
    answer = error(server, "/api/position", {"cgp": cgp})
    assert message in answer["error"] and message in str(lib.value) and answer.get("param") == param
    if param:  # naming the ruleset settles it
        assert post(server, "/api/position", {"cgp": cgp, "ruleset": "english"})["ruleset"] == "english"


def test_a_cgp_s_var_and_lex_opcodes_name_the_ruleset_too(server):
    """A 21x21 board with 'var classic_super;' is Super (the server said "board has 21 rows"), as
    the CLI reads it; names that are not a distribution and name nothing (a board or variant file
    name) are names, never opened: the server's default ruleset, as in the library."""
    board = "/".join(["21"] * 21)
    assert post(server, "/api/position", {"cgp": f"{board} AB/ 0/0 0 var classic_super;"})["ruleset"] == "super"
    assert Position.from_cgp(f"{board} AB/ 0/0 0 var classic_super;").ruleset.name == "super"
    for opcodes in ("bdn /etc/passwd;", "var /x.json;", "lex /etc/passwd;"):
        cgp = f"{EMPTY15} AB/ 0/0 0 {opcodes}"
        assert post(server, "/api/position", {"cgp": cgp})["ruleset"] == Position.from_cgp(cgp).ruleset.name
    assert Analyzer("super", None, None).position({"cgp": f"{board} AB/ 0/0 0"})["ruleset"] == "super"


def test_a_position_says_when_the_game_is_over(server):
    empty = "/".join(["15"] * 15)
    p = post(server, "/api/position", {"cgp": f"{empty} AEINRST/ 0/0 6"})
    assert (p["over"], p["ending"]) == (True, "zero_turns")
    p = post(server, "/api/position", {"cgp": QUIRK})
    assert (p["over"], p["ending"]) == (False, None)
    end = post(server, "/api/gcg", {"text": GAME, "analyze": False})["end_cgp"]
    p = post(server, "/api/position", {"cgp": end})
    assert (p["over"], p["ending"]) == (True, "out")


def test_the_simulation_s_plies_bound_is_published(server):
    from racksmith.web.api import MAX_SIM_PLIES

    info = call(server, "GET", "/api/rulesets")[2]
    assert info["sim_max_plies"] == MAX_SIM_PLIES == 32
    assert "at most 32" in error(server, "/api/sim", {"cgp": QUIRK, "plies": 33, "seconds": 0.1})["error"]


def test_a_truncated_body_is_said_once(server):
    """json's "Unterminated string starting at" and the position: one "at" (it read "at at")."""
    answer = error(server, "/api/position", raw=b'{"cgp": "15/15')
    assert " at at " not in answer["error"] and answer["error"].startswith("the body is not JSON: Unterminated string")
    other = error(server, "/api/position", raw=b'{"cgp": 5')["error"]
    assert other.endswith("at line 1, column 10") and " at at " not in other


def test_a_record_naming_no_ruleset_is_the_server_default_s():
    """serve --ruleset super: a GCG record without #tile-distribution is a Super game, as a CGP
    without an ld is (it was read as English: 65 errors, and the page switched to English)."""
    from racksmith import Game

    g = Game("super", lexicon=load_lexicon("enable", "super"), seed=2)
    for _ in range(4):
        g.play(g.position.moves(top=1)[0])
    text = "\n".join(line for line in g.gcg().splitlines() if not line.startswith(("#tile-distribution", "#lexicon")))
    answer = Analyzer("super", None, None).gcg({"text": text, "analyze": False})
    assert answer["ruleset"] == "super" and answer["errors"] == [] and len(answer["turns"]) == 4
    assert Analyzer("english", None, None).gcg({"text": text, "analyze": False})["errors"]  # English: not this game


def test_a_lexicon_being_built_does_not_hold_up_requests_for_another(monkeypatch):
    """The Analyzer built a lexicon inside the lock every request takes: the first Russian request
    on a fresh cache held an English /api/validate for the whole build."""
    import racksmith.web.api as web_api

    analyzer = Analyzer("english", None, None)
    english = get_ruleset("english")
    analyzer.lexicon(english, {})  # loaded before
    building, release = threading.Event(), threading.Event()
    real = web_api.load_embedded

    def slow(name, ruleset=None):
        if name == "ru":
            building.set()
            assert release.wait(30)
        return real(name, ruleset=ruleset)

    monkeypatch.setattr(web_api, "load_embedded", slow)
    t = threading.Thread(target=analyzer.lexicon, args=(get_ruleset("russian"), {}))
    t.start()
    try:
        assert building.wait(30)
        done = threading.Event()
        threading.Thread(target=lambda: (analyzer.lexicon(english, {}), done.set())).start()
        assert done.wait(5), "a request for a loaded lexicon waited for another lexicon's build"
    finally:
        release.set()
        t.join(60)
    assert analyzer.lexicon(get_ruleset("russian"), {})[1] == "ru"


def test_endgame_answers_the_best_moves_and_values_a_play_as_the_cli_does(server):
    """/api/endgame ``top`` and ``move``: the K best moves with their values and lines, and one
    play's exact value and what it loses, equal to the library's; bad values are one-line 400s."""
    import json as _json

    from racksmith.search.endgame import solve_endgame

    first = _json.loads((FIXTURES / "endgames_magpie.jsonl").read_text(encoding="utf-8").splitlines()[0])
    cgp = first["cgp"]
    got = post(server, "/api/endgame", {"cgp": cgp, "top": 3, "move": "pass"})
    want = solve_endgame(Position.from_cgp(cgp), top=3, move="pass")
    assert got["value"] == want.value == first["value"] and got["exact"]
    assert [(t["move"], t["value"], t["pv"]) for t in got["top"]] == [
        (t.move.notation(), t.value, [m.notation() for m in t.pv]) for t in want.top]
    assert [t["value"] for t in got["top"]] == sorted((t["value"] for t in got["top"]), reverse=True)
    assert got["move"] == {"move": "-", "value": want.move_value, "loses": want.value - want.move_value}
    one = post(server, "/api/endgame", {"cgp": cgp, "top": 1})
    assert [t["move"] for t in one["top"]] == [got["top"][0]["move"]]
    plain = post(server, "/api/endgame", {"cgp": cgp})
    assert "top" not in plain and "move" not in plain and plain["value"] == first["value"]
    for body, words in (({"top": 0}, "field 'top' must be"), ({"top": True}, "field 'top' must be"),
                        ({"top": 21}, "from 1 to 20"), ({"move": 5}, "field 'move' must be"),
                        ({"move": "8D ZZZ"}, "field 'move'")):
        assert words in error(server, "/api/endgame", {"cgp": cgp, **body})["error"]
