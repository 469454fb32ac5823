"""Regression tests of issue 14's findings, each failing without its fix: a record that made the server
read a file, the Host check a name could slip through, cross-origin and non-JSON requests, tracebacks
from deep or huge input, a leave file whose leaves could never be found, a UTF-16 word list taken for
a KWG, and requests of unbounded cost. Real HTTP on loopback, as a browser or an attacker sends it."""
from __future__ import annotations

import http.client
import json
import os
import re
import socket
import threading
import time

import numpy as np
import pytest

from conftest import FIXTURES
from racksmith import Leaves, load_lexicon
from racksmith.cli.main import main
from racksmith.errors import GCGError, LexiconFormatError, RacksmithError, RulesetError
from racksmith.formats.gcg import parse_gcg
from racksmith.lexicon.build import build_packed
from racksmith.rules import ruleset as ruleset_module
from racksmith.rules.ruleset import Ruleset, find_ruleset, get_ruleset
from racksmith.web import Analyzer, LimitError, Limits, make_server
from racksmith.web import server as server_module

GAME = (FIXTURES / "gcg" / "game01_seed1.gcg").read_text(encoding="utf-8")
EMPTY15 = "/".join(["15"] * 15)
SUPER_FOUR_BLANKS = "/".join(["21"] * 21) + " ????EST/ 0/0 0"
ENGLISH_TOML = (ruleset_module.resources.files("racksmith.rules") / "rulesets" / "english.toml").read_text("utf-8")


def record(pragma: str) -> str:
    return f"#tile-distribution {pragma}\n#player1 a A\n#player2 b B\n>a: ADEHINT 8D HAND +16 16\n"


@pytest.fixture
def evil_ruleset(tmp_path):
    """A valid ruleset file racksmith would use if it opened it: a 3-tile rack, named 'evil'."""
    path = tmp_path / "evil.toml"
    path.write_text(ENGLISH_TOML.replace('name = "english"', 'name = "evil"').replace("bingo_bonus = 50", "bingo_bonus = 77"),
                    encoding="utf-8")
    assert Ruleset.load(path).bingo_bonus == 77
    return path


@pytest.fixture
def no_file_read(monkeypatch):
    """Fail the test if racksmith opens a ruleset file."""
    def refuse(p):
        raise AssertionError(f"a ruleset file was opened: {p}")
    monkeypatch.setattr(ruleset_module, "_read_ruleset_file", refuse)


class Server:
    """A server on a free loopback port, in a thread; ``request`` sends exactly the headers given."""

    def __init__(self, analyzer: Analyzer, host: str = "127.0.0.1", **kw):
        self.logged: list[str] = []
        self.refused: list[str] = []  # (kept off stderr: a line written late lands in another test's capture)
        kw.setdefault("refusal_log", self.refused.append)
        self.srv = make_server(analyzer, host, 0, log=self.logged.append, **kw)
        self.port = self.srv.port
        self.host = host
        self.thread = threading.Thread(target=self.srv.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.srv.shutdown()
        self.srv.server_close()

    def request(self, method: str, path: str, body: bytes | dict | None = None, headers: dict | None = None):
        """(status, headers, JSON or bytes); ``headers`` replace the defaults (None drops one)."""
        data = json.dumps(body).encode() if isinstance(body, dict) else (body or b"")
        shown = f"[{self.host}]" if ":" in self.host else self.host
        head = {"Host": f"{shown}:{self.port}", "Content-Type": "application/json", **(headers or {})}
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for k, v in head.items():
            if v is not None:
                for one in (v if isinstance(v, list) else [v]):
                    conn.putheader(k, one)
        conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        res = conn.getresponse()
        payload = res.read()
        conn.close()
        if res.headers.get("Content-Type", "").startswith("application/json"):
            payload = json.loads(payload)
            if res.status >= 400:
                assert isinstance(payload["error"], str) and "\n" not in payload["error"], payload
        return res.status, res.headers, payload


@pytest.fixture(scope="module")
def server():
    s = Server(Analyzer("english"))
    yield s
    s.close()
    assert s.logged == []


# --- 1. a record never makes the server (or the CLI) open a file ---------------------------------------------
def test_a_pragma_path_is_never_opened(evil_ruleset, no_file_read):
    for strict in (True, False):
        with pytest.raises(GCGError, match="names a file"):
            parse_gcg(record(str(evil_ruleset)), strict=strict)  # was: the file's ruleset, rack of 3
    for name in ("/dev/zero", "evil.toml", "rules.JSON", r"C:\rules\x"):
        with pytest.raises(GCGError, match="names a file"):
            parse_gcg(record(name))
    with pytest.raises(RulesetError, match="unknown ruleset"):
        find_ruleset(str(evil_ruleset))


def test_the_server_answers_a_pragma_path_with_400(server, evil_ruleset, tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)  # opening it would block the request for ever
    for target in (evil_ruleset, fifo, "/dev/zero"):
        status, _, answer = server.request("POST", "/api/gcg", {"text": record(str(target))})
        assert status == 400 and "names a file" in answer["error"] and str(target)[:30] in answer["error"]
    status, _, answer = server.request("POST", "/api/gcg", {"text": record("klingon")})
    assert status == 400 and "'#tile-distribution klingon' names no ruleset" in answer["error"]
    status, _, answer = server.request("POST", "/api/gcg", {"text": record("English")})
    assert status == 200 and answer["ruleset"] == "english" and answer["turns"][0]["move"] == "8D HAND"


def test_board_variant_and_lexicon_paths_are_names_never_opened(evil_ruleset, no_file_read):
    """docs/SECURITY.md said a pragma holding a path is a 400: only a distribution's is (as in the
    library and the CLI); a board, variant or lexicon path is a name that names nothing, never opened."""
    api = Analyzer("english")
    for pragma in (f"#board-layout {evil_ruleset}", f"#game-type {evil_ruleset}", f"#lexicon {evil_ruleset}"):
        text = f"{pragma}\n#player1 a A\n#player2 b B\n>a: ADEHINT 8G HAND +16 16\n"
        answer = api.gcg({"text": text, "analyze": False})
        assert answer["ruleset"] == "english" and answer["errors"] == []
    for opcodes in (f"bdn {evil_ruleset};", f"var {evil_ruleset};", f"lex {evil_ruleset};"):
        assert api.position({"cgp": f"{EMPTY15} ADEHINT/ 0/0 0 {opcodes}"})["ruleset"] == "english"
    with pytest.raises(RacksmithError, match="names a file") as e:
        api.position({"cgp": f"{EMPTY15} ADEHINT/ 0/0 0 ld {evil_ruleset};"})  # was read as English
    assert e.value.param == "ruleset"


def test_a_pragma_may_name_the_servers_own_ruleset(evil_ruleset):
    api = Analyzer(evil_ruleset, FIXTURES / "ENABLE15.kwg")
    assert api.gcg({"text": record("evil"), "analyze": False})["ruleset"] == "evil"
    assert api.gcg({"text": record("super"), "analyze": False})["ruleset"] == "super"


def test_the_cli_reads_pragmas_as_names(capsys, tmp_path, evil_ruleset, no_file_read):
    gcg = tmp_path / "game.gcg"
    gcg.write_text(record(str(evil_ruleset)), encoding="utf-8")
    assert main(["gcg", "replay", str(gcg)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"racksmith: line 1: GCG file {str(gcg)!r}: '#tile-distribution ") and "names a file" in err
    assert err.count("\n") == 1


def test_the_cli_ruleset_option_wins_over_the_pragma(capsys, tmp_path, evil_ruleset):
    gcg = tmp_path / "game.gcg"
    gcg.write_text(record("/nowhere/evil.toml"), encoding="utf-8")
    assert main(["gcg", "cgp", str(gcg), "--ruleset", str(evil_ruleset), "--turn", "1"]) == 0
    assert capsys.readouterr().out.startswith(EMPTY15 + " ADEHINT/")


def test_an_embedded_lexicon_name_is_never_a_file(tmp_path, monkeypatch):
    (tmp_path / "enable").write_bytes(b"\x00garbage that is no lexicon")
    monkeypatch.chdir(tmp_path)
    assert len(load_lexicon("enable")) > 100_000  # the embedded lexicon, whatever the folder holds
    with pytest.raises(LexiconFormatError):
        load_lexicon("./enable")  # the file, named as a path
    api = Analyzer("english")
    answer = api.moves({"cgp": EMPTY15 + " AEINRST/ 0/0 0", "lexicon": "enable", "top": 1})  # never the file
    assert answer["lexicon"] == "enable" and answer["count"] == 1 and answer["moves"][0]["score"] == 66


def test_a_rulesets_lexicon_name_is_never_a_file(capsys, tmp_path, monkeypatch):
    """'analyze' and 'selfplay' without --lexicon take the ruleset's lexicon: an embedded name, not
    the file of that name in the working directory."""
    (tmp_path / "enable").write_bytes(b"\x00garbage that is no lexicon")
    gcg = tmp_path / "game.gcg"
    gcg.write_text(record("english").replace("8D HAND", "8H HAND"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["analyze", str(gcg), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["turns"][0]["played"] == "8H HAND"
    assert main(["selfplay", "--games", "1", "--seed", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 1


# --- 2. Host, Origin, content type ----------------------------------------------------------------------------
@pytest.mark.parametrize("host", ["127.0.0.1.evil.example", "127.0.0.2", "127.1", "localhost.evil.example",
                                  "evil.example", "", "[::1].evil", "127.0.0.1:1@evil.example"])
def test_the_host_check_is_exact(server, host):
    for shown in (host, f"{host}:{server.port}"):
        status, _, answer = server.request("GET", "/api/rulesets", headers={"Host": shown})
        assert status == 403 and "is not this server" in answer["error"], shown


def test_the_host_needs_the_port_and_one_header(server):
    for host in ("127.0.0.1", "localhost", f"127.0.0.1:{server.port + 1}", f"127.0.0.1:{server.port}0"):
        assert server.request("GET", "/api/rulesets", headers={"Host": host})[0] == 403, host
    assert server.request("GET", "/api/rulesets", headers={"Host": None})[0] == 403
    two = [f"127.0.0.1:{server.port}", "evil.example"]
    assert server.request("GET", "/api/rulesets", headers={"Host": two})[0] == 403
    for host in ("127.0.0.1", "localhost", "LocalHost", "[::1]"):
        assert server.request("GET", "/api/rulesets", headers={"Host": f"{host}:{server.port}"})[0] == 200, host


def test_allowed_hosts_and_the_bound_address():
    s = Server(Analyzer("english"), allowed_hosts=["racksmith.lan", "::2"])
    try:
        for host in ("racksmith.lan", "RACKSMITH.lan", "[::2]"):
            assert s.request("GET", "/", headers={"Host": f"{host}:{s.port}"})[0] == 200
        assert s.request("GET", "/", headers={"Host": f"other.lan:{s.port}"})[0] == 403
        origin = f"http://racksmith.lan:{s.port}"
        assert s.request("POST", "/api/position", {"cgp": EMPTY15 + " A/ 0/0 0"}, {"Origin": origin})[0] == 200
    finally:
        s.close()


def test_an_allowed_host_must_be_a_name(capsys):
    """``--allow-host ""`` was taken (and a Host header with nothing in it answered): an allowed
    host is a name or an address, refused otherwise before the server listens."""
    from racksmith.cli.main import main
    from racksmith.errors import RacksmithError
    from racksmith.web import make_server

    for bad in ("", "  ", "a b", "evil/path"):
        with pytest.raises(RacksmithError, match="an allowed host is a name or an address"):
            make_server(Analyzer("english"), "127.0.0.1", 0, allowed_hosts=[bad])
        assert main(["serve", "--port", "0", "--allow-host", bad]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "--allow-host" in err


def test_an_ipv6_loopback_server():
    try:
        s = Server(Analyzer("english"), host="::1")
    except OSError:
        pytest.skip("no IPv6 loopback here")
    try:
        assert s.srv.url == f"http://[::1]:{s.port}/"
        assert s.request("GET", "/api/rulesets", headers={"Content-Type": None})[0] == 200  # Host: [::1]:port
        assert s.request("GET", "/api/rulesets", headers={"Host": f"[::1].evil:{s.port}"})[0] == 403
        assert s.request("GET", "/api/rulesets", headers={"Host": f"::1:{s.port}"})[0] == 403
    finally:
        s.close()


def test_cross_origin_requests_are_refused(server):
    body = {"cgp": EMPTY15 + " AEINRST/ 0/0 0"}
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{server.port}.evil.example",
                   f"https://127.0.0.1:{server.port}", f"http://127.0.0.1:{server.port + 1}", "file://"):
        status, _, answer = server.request("POST", "/api/position", body, {"Origin": origin})
        assert status == 403 and "are not answered" in answer["error"], origin
    for site in ("cross-site", "same-site"):
        status, _, answer = server.request("POST", "/api/position", body, {"Sec-Fetch-Site": site})
        assert status == 403 and site in answer["error"]
    for origin in (f"http://127.0.0.1:{server.port}", f"http://localhost:{server.port}", f"http://[::1]:{server.port}"):
        assert server.request("POST", "/api/position", body, {"Origin": origin, "Sec-Fetch-Site": "same-origin"})[0] == 200


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                                  None, "application/json; charset=latin-1", "application/jsonx", "text/json"])
def test_a_post_must_be_json(server, kind):
    status, _, answer = server.request("POST", "/api/position", {"cgp": EMPTY15 + " A/ 0/0 0"}, {"Content-Type": kind})
    assert status == 415 and "Content-Type: application/json" in answer["error"]


def test_json_content_types_that_are_fine(server):
    for kind in ("application/json", "Application/JSON; charset=UTF-8", 'application/json; charset="utf-8"'):
        assert server.request("POST", "/api/position", {"cgp": EMPTY15 + " A/ 0/0 0"}, {"Content-Type": kind})[0] == 200


def test_the_page_works_as_a_browser_calls_it(server):
    """The requests app.js makes, with the headers a browser adds to them."""
    status, _, js = server.request("GET", "/static/app.js", headers={"Content-Type": None})
    assert status == 200 and b'headers: { "Content-Type": "application/json", "X-Errors": "body" }' in js
    origin = f"http://127.0.0.1:{server.port}"
    browser = {"Origin": origin, "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Referer": origin + "/"}
    assert server.request("GET", "/", headers={"Sec-Fetch-Site": "none", "Content-Type": None})[0] == 200
    status, _, info = server.request("GET", "/api/rulesets", headers={"Sec-Fetch-Site": "same-origin", "Content-Type": None})
    assert status == 200 and info["limits"]["max_moves"] == Limits().max_moves
    cgp = EMPTY15 + " AEINRST/ 0/0 0"
    for path, body in (("/api/position", {"cgp": cgp, "ruleset": "english"}),
                       ("/api/moves", {"cgp": cgp, "ruleset": "english", "sort": "score", "top": 20, "exchanges": False,
                                       "leaves": False}),
                       ("/api/score", {"cgp": cgp, "ruleset": "english", "move": "8D NASTIER"}),
                       ("/api/validate", {"cgp": cgp, "ruleset": "english", "move": "8D NASTIER"}),
                       ("/api/gcg", {"text": GAME, "analyze": True, "top": 5})):
        status, _, answer = server.request("POST", path, body, {**browser, "Content-Type": "application/json"})
        assert status == 200, (path, answer)


def test_the_pages_all_moves_falls_back_to_the_limit():
    """'all' on a position with more moves than max_moves: a 413 naming the limit, then the best that many."""
    s = Server(Analyzer("english", limits=Limits(max_moves=10)))
    try:
        body = {"cgp": EMPTY15 + " AEINRST/ 0/0 0", "top": None}
        status, _, answer = s.request("POST", "/api/moves", body)
        assert status == 413 and answer["limit"] == "max_moves" and "more than 10 moves" in answer["error"]
        status, _, answer = s.request("POST", "/api/moves", {**body, "top": 10})
        assert status == 200 and answer["count"] == 10
        js = s.request("GET", "/static/app.js", headers={"Content-Type": None})[2]
        assert b'e.data.limit !== "max_moves"' in js and b"top: state.limits.max_moves" in js
    finally:
        s.close()


# --- 3. no traceback from deep or huge input ----------------------------------------------------------------------
@pytest.mark.parametrize(("name", "text"), [
    ("deep.json", "[" * 100_000 + "]" * 100_000),
    ("deep.toml", "a = " + "[" * 2_000 + "]" * 2_000),
    ("huge.json", '{"rack_size": ' + "9" * 5_000 + "}"),
])
def test_deep_or_huge_ruleset_files_are_one_line(capsys, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetError, match=f"ruleset file .*{name}"):
        get_ruleset(str(path))
    assert main(["show", "--ruleset", str(path), "--cgp", EMPTY15 + " A/ 0/0 0"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("racksmith: ruleset file") and err.count("\n") == 1


def test_deep_ruleset_data_is_one_line():
    data = Ruleset.to_dict(get_ruleset("english"))
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    for field in ("rack_size", "name", "tiles", "lexicon", "board"):
        with pytest.raises(RulesetError) as e:
            Ruleset.from_dict({**data, field: deep})
        assert len(str(e.value)) < 400


def test_rulesets_that_are_not_regular_files(tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/zero"):
        with pytest.raises(RulesetError, match="is not a regular file"):
            get_ruleset(str(path))
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (ruleset_module.MAX_FILE_BYTES + 1))
    with pytest.raises(RulesetError, match="larger than"):
        get_ruleset(big)
    for spec in ("x" * 5_000, "a\x00.toml"):
        with pytest.raises(RulesetError):
            get_ruleset(spec)


HUGE = "9" * 5_000


@pytest.mark.parametrize(("line", "message"), [
    (f">a: ADEHINT 8D HAND +{HUGE} 16", "score '+999"),
    (f">a: ADEHINT 8D HAND +16 {HUGE}", "running total '999"),
    (f">a: ADEHINT -{HUGE} +0 0", "hidden tiles: more than a rack holds"),
    (f"#player{HUGE} c C", "has at most"),
])
def test_huge_numbers_in_a_record_are_gcg_errors(capsys, tmp_path, line, message):
    text = "#player1 a A\n#player2 b B\n" + line + "\n"
    with pytest.raises(GCGError, match=re.escape(message)):
        parse_gcg(text)
    game = parse_gcg(text, strict=False)
    assert len(game.errors) == 1 and message in str(game.errors[0]) and len(str(game.errors[0])) < 200
    path = tmp_path / "huge.gcg"
    path.write_text(text, encoding="utf-8")
    assert main(["gcg", "replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and message in err.splitlines()[-1]


def test_huge_numbers_over_http(server):
    status, _, answer = server.request("POST", "/api/gcg", {"text": f"#player1 a A\n#player2 b B\n>a: ADEHINT 8D HAND +{HUGE} 16\n"})
    assert status == 200 and "score '+999" in answer["errors"][0]["message"]
    for raw in (b'{"top": ' + HUGE.encode() + b"}", b'{"cgp": "x", "n": -' + HUGE.encode() + b"}"):
        status, _, answer = server.request("POST", "/api/moves", raw)  # was: the connection dropped, no answer
        assert status == 400 and "integer of thousands of digits" in answer["error"]


def test_a_lone_surrogate_comes_back_as_json(server):
    status, _, answer = server.request("POST", "/api/position", b'{"cgp": "\\ud800 A/ 0/0 0"}')
    assert status == 400 and isinstance(answer["error"], str)
    status, _, answer = server.request("POST", "/api/moves", b'{"cgp": "' + EMPTY15.encode() + b' A/ 0/0 0", "sort": "\\udfff"}')
    assert status == 400 and "field 'sort'" in answer["error"]


# --- 4. wrong results -----------------------------------------------------------------------------------------
def test_a_leave_with_unsorted_tiles_is_refused():
    alphabet = get_ruleset("english").alphabet
    tiles = [alphabet.tile(c) for c in "VRST"]
    nodes = build_packed(np.array(tiles, np.uint8), np.array([0, 4], np.int64), gaddag=False, share_tails=False)
    with pytest.raises(LexiconFormatError, match="leave 'VRST' has tiles out of order"):
        Leaves(nodes, np.array([-12], np.float32), alphabet)  # was: listed, but every lookup gave 0.0
    data = np.array([nodes.size], "<u4").tobytes() + nodes.astype("<u4").tobytes() + np.array([1], "<u4").tobytes() \
        + np.array([-12], "<f4").tobytes()
    with pytest.raises(LexiconFormatError, match="out of order"):
        Leaves.from_bytes(data, "english")
    sorted_ = Leaves.from_pairs([("VRST", -12.0), ("?A", 20.0)], "english")
    assert sorted_.value("TSRV") == -12.0 and sorted_.value("A?") == 20.0  # the file order a lookup expects
    assert Leaves.load(FIXTURES / "SYNTH.klv2").value("?ERS") > 0


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-16-le"])
def test_a_utf16_word_list_is_read_or_named(tmp_path, encoding):
    path = tmp_path / "words.txt"
    path.write_bytes("\ufeffCAT\nDOG\nBIRD\n".encode(encoding) if encoding != "utf-16" else "CAT\nDOG\nBIRD\n".encode(encoding))
    lex = load_lexicon(path)  # was: "KWG ... node 0 has arc index 261887"
    assert sorted(lex.words()) == ["BIRD", "CAT", "DOG"]
    bare = tmp_path / "bare.txt"
    bare.write_bytes("CAT\nDOG\nBIRD\n".encode(encoding.replace("utf-16", "utf-16-le") if encoding == "utf-16" else encoding))
    with pytest.raises(LexiconFormatError, match="looks like UTF-16 text without a byte-order mark"):
        load_lexicon(bare)
    assert len(load_lexicon(FIXTURES / "ENABLE15.kwg")) > 100_000  # KWG files still read as such


# --- 5. bounded cost ------------------------------------------------------------------------------------------------
def test_moves_are_bounded_by_max_moves():
    api = Analyzer("english", limits=Limits(max_moves=2000))
    with pytest.raises(LimitError) as e:  # was: a 41-56 MB answer
        api.moves({"cgp": SUPER_FOUR_BLANKS, "ruleset": "super", "top": None})
    assert (e.value.limit, e.value.status) == ("max_moves", 413) and "more than 2000 moves" in str(e.value)
    with pytest.raises(LimitError) as e:
        api.moves({"cgp": SUPER_FOUR_BLANKS, "ruleset": "super", "top": 2001})
    assert (e.value.limit, e.value.status) == ("max_moves", 400) and "at most 2000" in str(e.value)
    best = api.moves({"cgp": SUPER_FOUR_BLANKS, "ruleset": "super", "top": 2000})
    assert best["count"] == 2000
    every = api.moves({"cgp": EMPTY15 + " AEINRST/ 0/0 0", "top": None})
    assert every["count"] == len(api.moves({"cgp": EMPTY15 + " AEINRST/ 0/0 0", "top": 2000})["moves"]) < 2000


def test_a_record_is_bounded_in_bytes_and_events():
    passes = "#player1 a A\n#player2 b B\n" + ">a: ADEHINT - +0 0\n>b: ADEHINT - +0 0\n" * 2_000  # about 76 KB
    api = Analyzer("english")
    with pytest.raises(LimitError) as e:  # was: a 15.7 MB analysis
        api.gcg({"text": passes})
    assert e.value.limit == "max_gcg_events" and "4,000 events" in str(e.value)
    small = Analyzer("english", limits=Limits(max_gcg_bytes=1000))
    with pytest.raises(LimitError) as e:
        small.gcg({"text": GAME})
    assert e.value.limit == "max_gcg_bytes" and "max_gcg_bytes" in str(e.value)
    assert Analyzer("english").gcg({"text": GAME, "analyze": False})["complete"]


def test_an_analysis_is_bounded_in_time():
    api = Analyzer("english", limits=Limits(max_seconds=1e-9))  # over before the first turn is analysed
    with pytest.raises(LimitError) as e:
        api.gcg({"text": GAME})
    assert e.value.limit == "max_seconds" and "max_seconds" in str(e.value)
    assert api.gcg({"text": GAME, "analyze": False})["turns"]  # the replay alone is not analysed


def test_limits_over_http_name_the_limit():
    s = Server(Analyzer("english", limits=Limits(max_moves=5, max_gcg_events=3, max_seconds=1e-9, max_body=2000)))
    try:
        for path, body, status, limit in (
            ("/api/moves", {"cgp": EMPTY15 + " AEINRST/ 0/0 0", "top": 6}, 400, "max_moves"),
            ("/api/moves", {"cgp": EMPTY15 + " AEINRST/ 0/0 0", "top": None}, 413, "max_moves"),
            ("/api/gcg", {"text": GAME[:1500]}, 413, "max_gcg_events"),
        ):
            got, _, answer = s.request("POST", path, body)
            assert (got, answer["limit"]) == (status, limit) and limit in answer["error"]
        got, _, answer = s.request("POST", "/api/gcg", {"text": "x" * 3000})
        assert got == 413 and "max_body" in answer["error"]
    finally:
        s.close()
    assert s.logged == []


def test_requests_wait_for_a_free_computation_then_get_503():
    s = Server(Analyzer("english", limits=Limits(max_concurrent=1, max_seconds=0.2)))
    try:
        assert s.srv.computing.acquire(timeout=5)  # another request is computing
        status, head, answer = s.request("GET", "/api/rulesets", headers={"Content-Type": None})
        assert status == 503 and answer["limit"] == "max_concurrent" and head["Retry-After"]
        s.srv.computing.release()
        assert s.request("GET", "/api/rulesets", headers={"Content-Type": None})[0] == 200
    finally:
        s.close()


OUTGUN = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"
#: an endgame the solver needs more than 8 s to finish (tests/fixtures/endgames_magpie.jsonl)
SLOW_ENDGAME = ("15/15/2MI11/TRANQUIL7/R14/O6DEV5/NUT2THAT5C/ANE1FOOD5TO/1FAXING6AL/1AR1R8JO/1SEER9S/"
                "1TRAY2PANED2S/WE1V4WAY2Bi/ON1E3HEBE2I1/K2DOLCI2SEIZE GLMOPUU/EGIII? 277/434 0")


def abandon(port: int, path: str, body: dict) -> None:
    """Send a request, then close the connection 0.1 s later without reading the answer."""
    data = json.dumps(body).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % (path.encode(), port, len(data)) + data)
        time.sleep(0.1)


def test_quick_requests_do_not_wait_behind_abandoned_long_ones():
    """Four simulations whose client left after 0.1 s held every computation slot for 30 s: a
    /api/position waited 29 s. The quick endpoints now have slots of their own. (The process's
    first /api/rulesets loads the shipped leave files, seconds on a loaded machine: done before the
    clock starts, so that the time measured is the wait alone, whatever ran in this process before.)"""
    s = Server(Analyzer("english"))
    try:
        assert s.request("GET", "/api/rulesets", headers={"Content-Type": None})[0] == 200
        assert s.request("POST", "/api/position", {"cgp": OUTGUN})[0] == 200
        for _ in range(4):
            abandon(s.port, "/api/sim", {"cgp": OUTGUN, "iterations": 200000, "stop": None})
        started = time.monotonic()
        assert s.request("POST", "/api/position", {"cgp": OUTGUN})[0] == 200
        assert s.request("GET", "/api/rulesets", headers={"Content-Type": None})[0] == 200
        assert time.monotonic() - started < 5
        # every long slot taken (for as long as it takes): the quick endpoints answer all the same,
        # not 503 after waiting for a slot
        taken = [s.srv.long_computing.acquire(timeout=30) for _ in range(s.srv.limits.max_concurrent)]
        assert all(taken)
        try:
            assert s.request("POST", "/api/position", {"cgp": OUTGUN})[0] == 200
            assert s.request("GET", "/api/rulesets", headers={"Content-Type": None})[0] == 200
            assert s.request("POST", "/api/moves", {"cgp": OUTGUN, "top": 3})[0] == 200
        finally:
            for _ in taken:
                s.srv.long_computing.release()
    finally:
        s.close()
    assert s.logged == []


@pytest.mark.parametrize("path, body", [
    ("/api/sim", {"cgp": OUTGUN, "iterations": 200000, "stop": None}),
    # the opponent's exchange inferred first (its racks dealt for up to half the time)
    ("/api/sim", {"cgp": "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0", "infer": "-3"}),
    ("/api/best", {"cgp": OUTGUN}),
    ("/api/best", {"cgp": SLOW_ENDGAME}),
    ("/api/endgame", {"cgp": SLOW_ENDGAME}),
    ("/api/gcg", {"text": GAME, "top": 50}),
])
def test_a_long_computation_stops_when_its_client_goes_away(path, body):
    """The computation of a request whose client closed the connection ran to its 30 s limit; it
    now stops within a fraction of a second, and its slot is free again."""
    s = Server(Analyzer("english", limits=Limits(max_concurrent=1)))
    try:
        started = time.monotonic()
        abandon(s.port, path, body)
        assert s.srv.long_computing.acquire(timeout=20)  # free again (was: after 30 s)
        s.srv.long_computing.release()
        assert time.monotonic() - started < 5
        status, _, answer = s.request("POST", "/api/sim", {"cgp": OUTGUN, "iterations": 100})
        assert status == 200 and answer["iterations"] == 100
    finally:
        s.close()
    assert s.logged == []


def test_a_cancelled_endpoint_says_so():
    from racksmith.web import RequestError
    from racksmith.web.api import CANCELLED

    api = Analyzer("english")
    gone = threading.Event()
    gone.set()
    for call, body in ((api.sim, {"cgp": OUTGUN}), (api.best, {"cgp": OUTGUN}), (api.endgame, {"cgp": SLOW_ENDGAME}),
                       (api.gcg, {"text": GAME})):
        with pytest.raises(RequestError) as e:
            call(body, cancel=gone)
        assert str(e.value) == CANCELLED
    later = threading.Event()
    threading.Timer(0.3, later.set).start()
    started = time.monotonic()
    with pytest.raises(RequestError, match="cancelled"):
        api.endgame({"cgp": SLOW_ENDGAME}, cancel=later)
    assert time.monotonic() - started < 3


def test_best_hands_its_cancel_to_the_method(monkeypatch):
    """``/api/best`` gives the solver or simulation the request's cancel event itself, so a client
    leaving stops a long depth of the endgame or a play of the pre-endgame at once (it was checked
    only between them: one depth of an endgame can take minutes)."""
    from racksmith.review import best
    from racksmith.web import RequestError

    seen = []
    real = best.best_play

    def spy(*args, **kw):
        seen.append(kw.get("cancel"))
        kw["cancel"].set()  # the client leaves during the search
        return real(*args, **kw)

    monkeypatch.setattr(best, "best_play", spy)
    gone = threading.Event()
    started = time.monotonic()
    with pytest.raises(RequestError, match="cancelled"):
        Analyzer("english").best({"cgp": SLOW_ENDGAME, "seconds": 30}, cancel=gone)
    assert seen == [gone] and time.monotonic() - started < 20  # (the endgame alone: 30 s)


def test_connections_over_the_limit_get_503_at_once():
    s = Server(Analyzer("english", limits=Limits(max_connections=1)))
    try:
        with socket.create_connection(("127.0.0.1", s.port), timeout=10) as first:
            first.sendall(b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % s.port)
            assert first.recv(12) == b"HTTP/1.1 200"  # the first connection is being served (kept alive)
            with socket.create_connection(("127.0.0.1", s.port), timeout=10) as second:
                data = b""
                while chunk := second.recv(4096):
                    data += chunk
            assert data.startswith(b"HTTP/1.1 503") and b'"limit": "max_connections"' in data
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the first connection's thread ends, its slot is free again
            try:
                if s.request("GET", "/api/rulesets", headers={"Content-Type": None})[0] == 200:
                    break
            except (ConnectionError, http.client.HTTPException):
                pass
            time.sleep(0.05)
        else:
            pytest.fail("the connection slot was never released")
    finally:
        s.close()


def test_a_trickling_client_is_dropped(monkeypatch):
    monkeypatch.setattr(server_module, "TIMEOUT", 1.0)
    s = Server(Analyzer("english"))
    try:
        with socket.create_connection(("127.0.0.1", s.port), timeout=10) as sock:
            request = b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % s.port + b"x" * 100
            closed = False
            for byte in request:  # one byte every 0.1 s: each read is quick, the request never ends
                try:
                    sock.sendall(bytes([byte]))
                except OSError:
                    closed = True
                    break
                time.sleep(0.1)
            if not closed:
                sock.settimeout(10)
                try:
                    closed = sock.recv(1) == b""
                except OSError:
                    closed = True
            assert closed
    finally:
        s.close()


def test_ambiguous_body_lengths_are_refused(server):
    head = f"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
    for lengths, message in ((["2", "40"], "more than one Content-Length"), (["\u0662"], "bad Content-Length"),
                             (["+2"], "bad Content-Length"), (["9" * 30], "bad Content-Length")):
        request = head + "".join(f"Content-Length: {n}\r\n" for n in lengths) + "\r\n{}"
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(request.encode())
            sock.shutdown(socket.SHUT_WR)
            data = b""
            while chunk := sock.recv(4096):
                data += chunk
        assert data.startswith(b"HTTP/1.1 400") and message.encode() in data and data.count(b"HTTP/1.1") == 1, data


def test_limits_are_checked():
    for bad in ({"max_moves": 0}, {"max_seconds": float("nan")}, {"max_body": 1.5}, {"max_concurrent": True}):
        with pytest.raises(RacksmithError, match="limit max_"):
            Limits(**bad)
    with pytest.raises(RacksmithError, match="racksmith.web.Limits"):
        Analyzer("english", limits={"max_moves": 5})


def test_ctrl_c_while_a_connection_thread_starts_stops_the_server_and_frees_its_slot(monkeypatch):
    """Ctrl-C can land in ``Thread.start`` after the connection's thread has begun: the slot is
    given back once (not twice: a BoundedSemaphore's ValueError would replace the KeyboardInterrupt
    and the server would go on serving), and the interrupt reaches ``serve_forever``'s caller."""
    srv = make_server(Analyzer("english"), "127.0.0.1", 0, log=lambda line: None)
    start = threading.Thread.start
    threads = []

    def start_then_interrupt(self):
        start(self)
        threads.append(self)
        raise KeyboardInterrupt

    watchdog = threading.Timer(20, srv.shutdown)  # a server that swallowed the interrupt: fail, not hang
    watchdog.start()
    try:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
            sock.sendall(b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % srv.port)
            monkeypatch.setattr(threading.Thread, "start", start_then_interrupt)
            with pytest.raises(KeyboardInterrupt):
                srv.serve_forever(poll_interval=0.05)
            monkeypatch.undo()
        threads[0].join(10)
        assert not threads[0].is_alive() and srv._slots == {}
        for _ in range(srv.limits.max_connections):  # every slot is free again, and no more than those
            assert srv.connections.acquire(blocking=False)
        assert not srv.connections.acquire(blocking=False)
    finally:
        watchdog.cancel()
        srv.server_close()


# --- the web security audit: quick answers held, bursts, --host, links, echoes ------------------------------------
MILLION_OPCODES = {"cgp": EMPTY15 + " AEINST?/ 0/0 0" + " bdn x;" * 142857}  # 1 MB: 17 s of /api/position


@pytest.mark.parametrize("path", ["/api/position", "/api/moves", "/api/score", "/api/validate", "/api/play",
                                  "/api/sim", "/api/best", "/api/endgame"])
def test_a_cgp_of_a_million_opcodes_is_refused_at_once(server, path):
    """A 1 MB CGP of 142,857 opcodes held a quick answer for 17 s (its opcodes were read in
    quadratic time, twice): a CGP longer than max_cgp_chars is a 413 naming it, before it is read."""
    for body in (MILLION_OPCODES, {**MILLION_OPCODES, "ruleset": "english"}):  # (named or not: read or not for its ruleset)
        started = time.monotonic()
        status, _, answer = server.request("POST", path, {**body, "move": "8D AE"})
        assert (status, answer["limit"]) == (413, "max_cgp_chars"), answer
        assert answer["error"] == (f"field 'cgp' has {len(body['cgp']):,} characters; this server reads at most "
                                   "4,096 (its max_cgp_chars limit)")
        assert time.monotonic() - started < 5  # (0.01 s; 17 s before)
    status, _, answer = server.request("POST", "/api/export", {"turns": [{**MILLION_OPCODES, "move": "8D AE"}]})
    assert (status, answer["limit"]) == (413, "max_cgp_chars")


@pytest.mark.parametrize("path", ["/api/score", "/api/validate", "/api/play"])
def test_a_move_of_a_million_characters_is_refused_at_once(server, path):
    """'8D A' and a million dots took 2-6 s to score; a long move or draw is a 413 naming max_move_chars."""
    cgp = EMPTY15 + " AEINST?/ 0/0 0"
    for body in ({"move": "8D A" + "." * 1_000_000}, {"move": "-" + "A" * 999_990}):
        started = time.monotonic()
        status, _, answer = server.request("POST", path, {"cgp": cgp, **body})
        assert (status, answer["limit"]) == (413, "max_move_chars") and "its max_move_chars limit" in answer["error"]
        assert time.monotonic() - started < 5
    if path == "/api/play":
        status, _, answer = server.request("POST", path, {"cgp": cgp, "move": "8G AE", "draw": "A" * 1_000_000})
        assert (status, answer["limit"]) == (413, "max_move_chars") and "field 'draw'" in answer["error"]


def test_cgp_and_move_limits_are_the_analyzers():
    """The two bounds are Limits fields, published with the others; a value at the bound is read."""
    start = EMPTY15 + " AEINST?/ 0/0 0"
    api = Analyzer("english", limits=Limits(max_cgp_chars=len(start), max_move_chars=len("8G AE")))
    assert {"max_cgp_chars": len(start), "max_move_chars": 5}.items() <= api.rulesets_info()["limits"].items()
    assert api.position({"cgp": start})["scores"] == [0, 0]
    assert api.score({"cgp": start, "move": "8G AE"})["score"] == 4
    for body, limit in (({"cgp": start + " "}, "max_cgp_chars"), ({"cgp": start, "move": "8G AE "}, "max_move_chars")):
        with pytest.raises(LimitError) as e:
            api.score(body)
        assert e.value.limit == limit and e.value.status == 413
    with pytest.raises(LimitError, match="field 'infer' has 6 characters"):
        api.sim({"cgp": start, "infer": "8G AE "})
    defaults = Limits()
    assert defaults.max_cgp_chars >= 4096 and 256 <= defaults.max_move_chars < 1000


def test_the_page_gets_a_long_cgp_as_a_user_error(server):
    status, _, answer = server.request("POST", "/api/position", MILLION_OPCODES, {"X-Errors": "body"})
    assert status == 200 and (answer["status"], answer["limit"]) == (413, "max_cgp_chars")


def test_a_burst_of_connections_is_queued_not_dropped():
    """The listen backlog was socketserver's 5: a burst of connections waited 1-15 s in SYN retries
    (the kernel drops a SYN when the queue is full) and never got the promised 503."""
    from racksmith.web.server import AnalyzerServer

    assert AnalyzerServer.request_queue_size >= 128
    srv = make_server(Analyzer("english"), "127.0.0.1", 0, log=lambda line: None)  # listening, not yet accepting
    socks = []
    try:
        for _ in range(60):
            sock = socket.socket()
            socks.append(sock)
            sock.settimeout(0.5)
            sock.connect(("127.0.0.1", srv.port))  # the 7th timed out before (the SYN dropped)
    finally:
        for sock in socks:
            sock.close()
        srv.server_close()


def _serve(capsys, monkeypatch, *args):
    """``racksmith serve ARGS`` stopped by Ctrl-C as soon as it listens (no request is answered):
    its exit code and stderr."""
    from racksmith.web.server import AnalyzerServer

    def interrupted(self, *a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(AnalyzerServer, "serve_forever", interrupted)
    code = main(["serve", "--port", "0", *args])
    return code, capsys.readouterr().err


def test_serving_every_address_warns(capsys, monkeypatch):
    """``--host 0.0.0.0`` served the network with no authentication and said nothing (the URL
    printed was localhost's): a one-line warning now says so, as Jupyter's does."""
    code, err = _serve(capsys, monkeypatch, "--host", "0.0.0.0")
    lines = err.splitlines()
    assert code == 130 and re.match(r"racksmith web analyzer on http://localhost:\d+/ ", lines[0])
    assert lines[1].startswith("racksmith serve: warning: listening on 0.0.0.0 port ") and len(lines) == 3
    assert "no authentication" in lines[1] and "plain HTTP" in lines[1] and "--allow-host" in lines[1]
    code, err = _serve(capsys, monkeypatch)  # this machine only: no warning
    assert code == 130 and "warning" not in err and len(err.splitlines()) == 2
    assert "serves the network" in _help(capsys)


def _help(capsys) -> str:
    assert main(["serve", "--help"]) == 0
    return " ".join(capsys.readouterr().out.split())


def test_serving_every_ipv6_address_warns(capsys, monkeypatch):
    if not socket.has_ipv6:
        pytest.skip("no IPv6 here")
    code, err = _serve(capsys, monkeypatch, "--host", "::")
    if "cannot listen" in err:
        pytest.skip("no IPv6 here")
    assert code == 130 and "warning: listening on :: port" in err.splitlines()[1]


@pytest.mark.parametrize("host", ["", "  ", "[]"])
def test_an_empty_host_is_refused(capsys, monkeypatch, host):
    """``--host ""`` listened on every address, silently."""
    code, err = _serve(capsys, monkeypatch, "--host", host)
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith("racksmith: usage error: --host: give an address")


def test_a_bracketed_ipv6_host_is_read(capsys, monkeypatch):
    """``--host [::1]`` (as the server writes its own URL) failed: 'Name or service not known'."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    code, err = _serve(capsys, monkeypatch, "--host", "[::1]")
    assert code == 130 and re.match(r"racksmith web analyzer on http://\[::1\]:\d+/ ", err), err
    assert "warning" not in err
    srv = make_server(Analyzer("english"), "[::1]", 0, log=lambda line: None)
    try:
        assert srv.url == f"http://[::1]:{srv.port}/" and srv.local
    finally:
        srv.server_close()


@pytest.mark.parametrize("name, bare", [("myhost:38771", "myhost"), ("[::2]:8765", "[::2]"), ("10.0.0.5:80", "10.0.0.5"),
                                        ("myhost:", "myhost")])
def test_an_allowed_host_with_a_port_is_refused(capsys, name, bare):
    """``--allow-host myhost:38771`` became the IPv6 literal [myhost:38771], which no Host matches."""
    with pytest.raises(RacksmithError, match="give the name only"):
        make_server(Analyzer("english"), "127.0.0.1", 0, allowed_hosts=[name])
    assert main(["serve", "--port", "0", "--allow-host", name]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("racksmith: usage error: --allow-host: an allowed host is a name without a port")
    assert f"give the name only ({bare})" in err
    for bad in ("a:b:c", "[myhost]", "[::1"):  # neither a name nor an IPv6 address
        with pytest.raises(RacksmithError, match="an allowed host is a name or an address"):
            make_server(Analyzer("english"), "127.0.0.1", 0, allowed_hosts=[bad])


NAVIGATE = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document",
            "Sec-Fetch-User": "?1", "Content-Type": None}


def test_a_link_from_another_site_opens_the_page(server):
    """A link to the page from another site (a shared address, ?ruleset=...&cgp=...) got a raw JSON
    403: a top-level navigation to the page itself is answered, with the page's headers that forbid
    framing it."""
    cgp = EMPTY15 + " AEINRST/ 0/0 0"
    for path in ("/", "/index.html", "/?ruleset=english&cgp=" + cgp.replace(" ", "%20") + "&move=8D%20NASTIER"):
        for site in ("cross-site", "same-site"):
            status, head, page = server.request("GET", path, headers={**NAVIGATE, "Sec-Fetch-Site": site})
            assert status == 200 and b'id="board"' in page, (path, site)
            assert "frame-ancestors 'none'" in head["Content-Security-Policy"] and head["X-Frame-Options"] == "DENY"
    # only a top-level navigation GET of the page: never an endpoint, a frame, a fetch, another method
    for method, path, headers in (
        ("GET", "/api/rulesets", NAVIGATE),
        ("GET", "/static/app.js", NAVIGATE),
        ("GET", "/", {**NAVIGATE, "Sec-Fetch-Dest": "iframe"}),
        ("GET", "/", {**NAVIGATE, "Sec-Fetch-Dest": "embed"}),
        ("GET", "/", {**NAVIGATE, "Sec-Fetch-Mode": "no-cors"}),
        ("GET", "/", {**NAVIGATE, "Sec-Fetch-Mode": "cors"}),
        ("GET", "/", {**NAVIGATE, "Sec-Fetch-Dest": None}),
        ("POST", "/", {**NAVIGATE, "Content-Type": "application/json"}),
        ("POST", "/api/position", {**NAVIGATE, "Content-Type": "application/json"}),
    ):
        status, _, answer = server.request(method, path, {"cgp": cgp} if method == "POST" else None, headers)
        assert status == 403 and "cross-site request is not answered" in answer["error"], (method, path, headers)
    # the Host and Origin checks stand (DNS rebinding; a navigation sends no Origin)
    assert server.request("GET", "/", headers={**NAVIGATE, "Host": f"evil.example:{server.port}"})[0] == 403
    assert server.request("GET", "/", headers={**NAVIGATE, "Origin": "http://evil.example"})[0] == 403
    # the page's own files are served with those headers to the page itself too
    status, head, _ = server.request("GET", "/", headers={"Sec-Fetch-Site": "none", "Content-Type": None})
    assert status == 200 and head["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in head["Content-Security-Policy"]


def test_echoed_values_are_clipped_in_answers(server):
    """SECURITY.md says a value an answer echoes is clipped (500 characters at most): /api/gcg's
    errors echoed a line of 100,000 letters whole (100-200 KB each), a 404 the whole path."""
    head = "#player1 a a\n#player2 b b\n"
    messages = []
    for text in (head + ">a: " + "A" * 100_000 + " 8D AB +10 10\n", head + ">a: AEINST? 8D " + "A B " * 25_000 + " +10 10\n"):
        status, _, answer = server.request("POST", "/api/gcg", {"text": text, "analyze": False})
        assert status == 200 and answer["errors"]
        assert all(len(e["message"]) <= 500 for e in answer["errors"]), [len(e["message"]) for e in answer["errors"]]
        assert all(len(n) <= 500 for n in answer["notes"])
        messages.append(answer["errors"][0]["message"])
    # shortened as the page shows it: the value's start and its length
    assert f"a's rack {'A' * 40}…(100,000 characters) has 100000 tiles" in messages[0], messages[0]
    assert len(messages[1]) == 500 and messages[1].endswith("…")
    long_path = "/x" * 20_000
    status, _, answer = server.request("GET", long_path, headers={"Content-Type": None})
    assert status == 404 and len(answer["error"]) < 120 and answer["error"].startswith("no such page or endpoint: /x/x")
    # http.server's own messages echo the request line (up to 64 KB)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET / HTTP/" + b"9" * 60_000 + b"\r\nHost: 127.0.0.1:%d\r\n\r\n" % server.port)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    body = json.loads(data.partition(b"\r\n\r\n")[2])
    assert data.startswith(b"HTTP/1.1 400") and len(body["error"]) <= 500, len(body["error"])
    # a move over max_move_chars is refused; the longest under it is echoed within bounds
    status, _, answer = server.request("POST", "/api/validate", {"cgp": OUTGUN, "move": "-" + "A" * 999_990})
    assert status == 413 and answer["limit"] == "max_move_chars"
    status, _, answer = server.request("POST", "/api/validate", {"cgp": OUTGUN, "move": "-" + "A" * 255})
    assert status == 200 and len(json.dumps(answer)) < 1000


@pytest.mark.slow
def test_a_browser_follows_a_link_from_another_site_but_never_frames_the_page(server):
    """In Chromium: a link on another site to a shared address opens the page with its position
    (it was a raw JSON 403), the page's own requests then answered as its own; the page in a
    frame, of another site or its own, shows nothing of it."""
    import shutil
    from pathlib import Path
    from urllib.parse import quote

    chromium = os.environ.get("RACKSMITH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).is_file():
        pytest.skip("needs Chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    url = f"http://127.0.0.1:{server.port}/?cgp={quote(OUTGUN)}&move={quote('H7 OE')}"
    evil = (f'<a id="go" href="{url}">a position</a>'
            f'<iframe id="frame" src="http://127.0.0.1:{server.port}/"></iframe>')
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.route("http://evil.example/**", lambda route: route.fulfill(status=200, content_type="text/html", body=evil))
            page.goto("http://evil.example/")
            frame = next(f for f in page.frames if f != page.main_frame)
            page.wait_for_timeout(500)
            assert "id=\"board\"" not in (frame.content() or "")  # another site's frame: 403, nothing of the page
            page.click("#go")
            page.wait_for_url(url)
            page.wait_for_selector("#board .sq")
            deadline = time.monotonic() + 20
            while page.evaluate("document.querySelector('#moves tbody tr') === null"):  # the page's own API calls
                assert time.monotonic() < deadline, "the page's requests were refused"
                page.wait_for_timeout(50)
            assert page.input_value("#cgp").startswith(OUTGUN.split()[0])
            # its own page framing it: refused by frame-ancestors 'none' (and X-Frame-Options)
            page.evaluate(f"""() => {{ const f = document.createElement('iframe'); f.id = 'self-frame';
                                         f.src = '{url}'; document.body.appendChild(f); }}""")
            page.wait_for_timeout(1000)
            framed = [f for f in page.frames if f != page.main_frame]  # (an error page in its place)
            assert framed and not any(f.evaluate("!!document.getElementById('board')") for f in framed)
        finally:
            browser.close()
