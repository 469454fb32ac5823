"""Fuzz targets: every way untrusted bytes reach racksmith, each a function of one ``bytes``.

A target succeeds, or raises :class:`~racksmith.errors.RacksmithError` (the documented error, a
``ValueError``): any other exception, a hang or a crash of the interpreter is a finding. Past the
parser, each target also checks what must be true of what it accepted (a CGP written back reads
the same, every leave listed is found at its value, the move generator's moves are legal and
scored as the scorer scores them...), so a wrong answer is a finding too.

The same functions run three ways: seeded and bounded under hypothesis in the test suite
(``tests/test_fuzz.py``), as long coverage-guided campaigns under atheris (``fuzz/run.py``), and on
every minimised crash kept in ``fuzz/crashes/<target>/`` (``tests/test_fuzz_regressions.py``).
The ``check_*`` functions take structured arguments (what hypothesis draws); the targets of
:data:`TARGETS` decode raw bytes into them (what atheris mutates).
"""
from __future__ import annotations

import json
import os
import socket
import tempfile
import threading
from functools import lru_cache
from typing import Callable

import numpy as np

from racksmith import Leaves, Lexicon, Move, Position
from racksmith.errors import RacksmithError
from racksmith.formats.gcg import decode_gcg, format_gcg, parse_gcg
from racksmith.lexicon.wordlist import parse_word_list
from racksmith.lexicon.lexicon import max_word_length
from racksmith.review.replay import replay
from racksmith.rules.ruleset import Ruleset, available_rulesets, find_ruleset

RULESETS = ("english", "russian", "erudit", "super")
MAX_LISTED = 5_000  #: words or leaves a target lists in full (more: a sample is checked)


class Reader:
    """Structured values out of raw bytes, never failing: past the end every value is the smallest."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def int(self, lo: int, hi: int) -> int:
        span = hi - lo + 1
        value = 0
        for _ in range((span.bit_length() + 7) // 8):
            value = value << 8 | self.byte()
        return lo + value % span

    def choice(self, seq):
        return seq[self.int(0, len(seq) - 1)]

    def bool(self) -> bool:
        return bool(self.byte() & 1)

    def take(self, n: int) -> bytes:
        out = self.data[self.pos : self.pos + n]
        self.pos += len(out)
        return out

    def rest(self) -> bytes:
        return self.take(len(self.data))

    def text(self, n: int | None = None) -> str:
        raw = self.rest() if n is None else self.take(n)
        return raw.decode("utf-8", "surrogateescape" if raw[:1] == b"\xff" else "replace")


def allowed(fn: Callable, *args, **kw):
    """``fn(...)``, or None when it raises the documented error; anything else propagates."""
    try:
        return fn(*args, **kw)
    except RacksmithError as e:
        message = str(e)
        assert message and "Traceback" not in message, f"an unhelpful message: {message!r}"
        return None


@lru_cache(maxsize=None)
def ruleset(name: str) -> Ruleset:
    return find_ruleset(name)


@lru_cache(maxsize=None)
def embedded_lexicon(name: str) -> Lexicon:
    """The ruleset's own embedded lexicon (compiled once, then from the cache)."""
    from racksmith.lexicon.load import load_embedded

    rs = ruleset(name)
    return load_embedded(rs.lexicon, rs)


@lru_cache(maxsize=None)
def small_lexicon(name: str) -> Lexicon:
    """A few hundred words of the ruleset's lexicon: a quick stand-in for move generation."""
    words = [w for w in embedded_lexicon(name).words() if len(w) <= 5][::97][:400]
    return Lexicon.from_words(words, ruleset(name))


# --- CGP ---------------------------------------------------------------------------------------------------------
def check_cgp(text: str, ruleset_name: str) -> None:
    """A CGP line reads, or is a CGPError/PositionError; what reads writes back to itself."""
    rs = ruleset(ruleset_name)
    pos = allowed(Position.from_cgp, text, rs)
    if pos is None:
        return
    written = pos.cgp()
    again = Position.from_cgp(written, rs)
    assert again.cgp() == written, (text, written)
    assert np.array_equal(again.board, pos.board) and again.racks == pos.racks and again.scores == pos.scores
    pos.to_dict()


def fuzz_cgp(data: bytes) -> None:
    r = Reader(data)
    check_cgp(r.text(), r.choice(RULESETS))


# --- GCG -----------------------------------------------------------------------------------------------------------
def check_gcg(raw: bytes, ruleset_name: str | None = None, analyse: bool = False) -> None:
    """A record decodes, parses and replays collecting its errors, or is a GCGError; what parses
    is written back to events that read the same; every turn's position is a CGP that reads."""
    text = allowed(decode_gcg, raw)
    if text is None:
        return
    game = allowed(parse_gcg, text, ruleset_name, strict=False)
    if game is None:
        return
    written = format_gcg(game)
    again = parse_gcg(written, game.ruleset, strict=False)
    assert [e.text() for e in again.events] == [e.text() for e in game.events], written
    r = allowed(replay, game, strict=False)
    if r is None or len(r.players) < 2:  # a one-player record's CGP has one rack, which CGP cannot say
        return
    for t in r.turns[::7]:
        cgp = allowed(r.cgp, t.number)
        if cgp is not None:
            Position.from_cgp(cgp, r.ruleset)
    if analyse and r.turns and len(r.turns) <= 4 and r.ruleset.name == "english":
        from racksmith.review.analysis import analyze

        allowed(analyze, r, None, top=3, lexicon=small_lexicon("english"))


def fuzz_gcg(data: bytes) -> None:
    r = Reader(data)
    spec = r.choice((None, None, None, *RULESETS))
    analyse = r.int(0, 7) == 0
    check_gcg(r.rest(), spec, analyse)


# --- move notation -------------------------------------------------------------------------------------------------
MID = ("7M7/7O7/7N7/5V1G3OPAH/4REFoRGED3/4EX1L7/4C10/3KRONA3F3/4U6O3/4I6I3/4T2HAJIS3/2BOSQUE3T3/7D7/"
       "ADVISING7/7Y7 AEEILPS/ABCENW? 301/230 0")


@lru_cache(maxsize=None)
def _mid() -> Position:
    return Position.from_cgp(MID, "english", lexicon=embedded_lexicon("english"))


def check_notation(text: str) -> None:
    """Move notation parses (or is an InvalidMoveError) and writes back to the same move; on a
    real position it scores and validates (or is refused), and a legal verdict's score is the scorer's."""
    rs = ruleset("english")
    move = allowed(Move.parse, text, rs)
    if move is not None:
        assert Move.parse(move.notation(), rs) == move, (text, move.notation())
    pos = _mid()
    breakdown = allowed(pos.score, text)
    verdict = allowed(pos.validate, text)
    if verdict is not None and verdict.legal and breakdown is not None and move is not None and move.is_place:
        assert verdict.score == breakdown.score, text


def fuzz_notation(data: bytes) -> None:
    check_notation(Reader(data).text())


# --- rulesets --------------------------------------------------------------------------------------------------------
def check_ruleset_file(raw: bytes, suffix: str, rack: bytes = b"") -> None:
    """A ruleset file loads, or is a RulesetError; what loads round-trips through to_dict, and its
    empty board gives moves from a small lexicon of its own letters (the kernel on any geometry)."""
    fd, name = tempfile.mkstemp(suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        rs = allowed(Ruleset.load, name)
    finally:
        os.unlink(name)
    if rs is None:
        return
    check_ruleset_data(rs.to_dict(), rack, _loaded=rs)


def check_ruleset_data(data, rack: bytes = b"", *, _loaded: Ruleset | None = None) -> None:
    rs = _loaded if _loaded is not None else allowed(Ruleset.from_dict, data)
    if rs is None:
        return
    assert Ruleset.from_dict(rs.to_dict()).to_dict() == rs.to_dict()
    letters = rs.alphabet.letters
    n = len(letters)
    longest = min(max_word_length(rs), 6)
    words = ["".join(letters[(i * 7 + j * 3) % n] for j in range(2 + i % max(1, longest - 1))) for i in range(60)]
    lex = allowed(Lexicon.from_words, words, rs)
    if lex is None or not len(lex):
        return
    bag = [t for t, count in enumerate(rs.counts) for _ in range(min(count, rs.rack_size))]
    tiles = tuple(sorted(bag[b % len(bag)] for b in rack[: rs.rack_size])) if bag else ()
    pos = allowed(Position, rs, None, (tiles, ()), lexicon=lex)
    if pos is None:
        return
    check_moves(pos, lex, top=20)


def fuzz_ruleset(data: bytes) -> None:
    r = Reader(data)
    suffix = r.choice((".toml", ".json"))
    rack = r.take(r.int(0, 15))
    check_ruleset_file(r.rest(), suffix, rack)


# --- the move generator through Position.moves ------------------------------------------------------------------------
def check_moves(pos: Position, lex: Lexicon, *, top: int | None = 20, leaves: Leaves | None = None,
                exchanges: bool = True, direction: str = "both", consistent: bool = True) -> None:
    """Both algorithms give the same list (when the lexicon's GADDAG holds the words of its DAWG:
    ``consistent``); the best N are the head of the complete list; each placement listed (the
    first few) is legal by the validator and scores what the scorer says."""
    kw = dict(leaves=leaves, exchanges=exchanges, direction=direction, sort="equity" if leaves is not None else "score")
    dawg = allowed(pos.moves, top=top, algorithm="dawg", **kw)
    if dawg is None:
        return
    if lex.has_gaddag:
        gaddag = pos.moves(top=top, algorithm="gaddag", **kw)
        if not consistent:
            return
        assert [(str(m), m.score) for m in gaddag] == [(str(m), m.score) for m in dawg]
        if top is not None and len(dawg) <= 4096:
            every = pos.moves(top=None, algorithm="gaddag", **kw)
            assert [(str(m), m.score, m.equity) for m in every[: len(dawg)]] == [(str(m), m.score, m.equity) for m in dawg]
    for m in list(dawg)[:6]:
        if not m.is_place:
            continue
        verdict = pos.validate(m, lex)
        assert verdict.legal, (pos.cgp(), str(m), verdict.reason)
        assert verdict.score == m.score == pos.score(m).score, (pos.cgp(), str(m))


def check_position_moves(rs_data: dict, words: list[str], board: np.ndarray, rack: tuple[int, ...],
                         opp: tuple[int, ...], leaves: list[tuple[str, float]], top: int | None,
                         exchanges: bool, direction: str) -> None:
    """Position.moves on a made-up ruleset, board, racks, lexicon and leaves."""
    rs = allowed(Ruleset.from_dict, rs_data)
    if rs is None:
        return
    lex = allowed(Lexicon.from_words, words, rs)
    if lex is None:
        return
    lv = allowed(Leaves.from_pairs, leaves, rs) if leaves else None
    pos = allowed(Position, rs, board, (rack, opp), lexicon=lex)
    if pos is None:
        return
    check_moves(pos, lex, top=top, leaves=lv, exchanges=exchanges, direction=direction)


def fuzz_movegen(data: bytes) -> None:
    r = Reader(data)
    rows, cols = r.int(2, 26), r.int(2, 26)
    letters = "ABCDEFGH"[: r.int(1, 8)]
    premiums = ".'\"^-=~"
    rs_data = {
        "name": "fuzz", "board": ["".join(r.choice(premiums) for _ in range(cols)) for _ in range(rows)],
        "tiles": [[x, 40, r.int(0, 12)] for x in letters], "blanks": 10, "rack_size": r.int(1, 15),
        "bingo_bonus": r.int(0, 60), "start": f"{r.int(1, rows)}{chr(65 + r.int(0, cols - 1))}",
    }
    words = ["".join(r.choice(letters) for _ in range(r.int(2, 8))) for _ in range(r.int(0, 60))]
    n = len(letters)
    density = r.choice((0, 0, 1, 3, 6))
    board = np.zeros((rows, cols), np.uint8)
    for i in range(rows * cols):
        if r.int(0, 9) < density:
            board.flat[i] = r.int(1, n) | (0x80 if r.int(0, 9) == 0 else 0)
    rack = tuple(sorted(r.int(0, n) for _ in range(r.int(0, 15))))
    opp = tuple(sorted(r.int(0, n) for _ in range(r.int(0, 3))))
    leaves = [("".join(sorted(r.choice(letters + "?") for _ in range(r.int(1, 4)))), r.int(-300, 300) / 10)
              for _ in range(r.int(0, 10))]
    top = r.choice((None, 1, 5, 20))
    check_position_moves(rs_data, words, board, rack, opp, leaves, top, r.bool(), r.choice(("both", "across", "down")))


# --- word lists ----------------------------------------------------------------------------------------------------------
def check_word_list(raw: bytes, ruleset_name: str) -> None:
    """A word list parses (or is a LexiconFormatError) and builds a lexicon holding exactly its words."""
    rs = ruleset(ruleset_name)
    wl = allowed(parse_word_list, raw, rs.alphabet, max_word_length(rs))
    if wl is None:
        return
    lex = Lexicon.from_word_list(wl, rs)
    assert len(lex) == len(wl)
    if len(wl) <= MAX_LISTED:
        words = lex.words()
        assert len(words) == len(set(words)) == len(wl)
        assert all(w in lex for w in words)
        rebuilt = Lexicon.from_words(words, rs)
        assert rebuilt.words() == words


def fuzz_wordlist(data: bytes) -> None:
    r = Reader(data)
    name = r.choice(RULESETS)
    check_word_list(r.rest(), name)


# --- KWG ----------------------------------------------------------------------------------------------------------------
def check_kwg(raw: bytes, ruleset_name: str, rack: str = "AEINRS?") -> None:
    """KWG bytes load (or are a LexiconFormatError); a loaded graph answers every query and drives
    the move generator without crashing, and the DAWG algorithm's moves are legal words of it."""
    rs = ruleset(ruleset_name)
    lex = allowed(Lexicon.from_bytes, raw, rs)
    if lex is None:
        return
    n = len(lex)
    lex.info()
    consistent = False  # a damaged GADDAG may hold other words than its DAWG: then the algorithms differ
    if n <= MAX_LISTED:
        words = lex.words()
        assert len(words) == n and all(w in lex for w in words)
        if lex.has_gaddag:
            strings = lex.gaddag_strings()
            consistent = sorted(strings) == sorted(Lexicon.from_words(words, rs).gaddag_strings())
    letters = rs.alphabet.letters
    lex.completions(letters[0])
    allowed(lex.anagrams, "".join(letters[:5]) + "?", partial=True)
    tiles = allowed(rs.alphabet.rack, rack)
    if tiles is None or len(tiles) > rs.rack_size:
        return
    pos = Position(rs, None, (tiles, ()), lexicon=lex)
    check_moves(pos, lex, top=10, exchanges=False, consistent=consistent)


def fuzz_kwg(data: bytes) -> None:
    if not data:
        return
    check_kwg(data[1:], "english" if data[0] & 1 else "super")


# --- KLV / KLV2 -----------------------------------------------------------------------------------------------------------
def check_klv(raw: bytes, ruleset_name: str = "english") -> None:
    """Leave bytes load (or are a LexiconFormatError); every leave listed is found at its value;
    equity move generation with them runs."""
    rs = ruleset(ruleset_name)
    leaves = allowed(Leaves.from_bytes, raw, rs)
    if leaves is None:
        return
    if len(leaves) <= MAX_LISTED:
        items = leaves.items()
        assert len(items) == len(leaves)
        for name, value in items:
            got = leaves.value(name)
            assert got == np.float32(value), (name, value, got)
    allowed(leaves.value, "AEI?")
    lex = small_lexicon(ruleset_name)
    pos = Position(rs, None, (rs.alphabet.rack("".join(rs.alphabet.letters[:6]) + "?"), ()), lexicon=lex)
    check_moves(pos, lex, top=5, leaves=leaves)


def fuzz_klv(data: bytes) -> None:
    check_klv(data)


# --- the web API: bodies straight to the analyzer, and whole requests over HTTP -------------------------------------------
ENDPOINTS = ("position", "moves", "score", "validate", "gcg")


@lru_cache(maxsize=None)
def analyzer():
    from racksmith.web import Analyzer, Limits

    return Analyzer("english", limits=Limits(max_seconds=5, max_moves=500))


def check_api(endpoint: str, body) -> None:
    """A decoded request body: an answer that is JSON, or a RacksmithError (a 400/413)."""
    if not isinstance(body, dict):
        return
    answer = allowed(getattr(analyzer(), endpoint), body)
    if answer is not None:
        json.dumps(answer)


def fuzz_api(data: bytes) -> None:
    if not data:
        return
    try:
        body = json.loads(data[1:].decode("utf-8"))
    except (ValueError, RecursionError):  # not JSON: the server answers that itself (see fuzz_http)
        return
    check_api(ENDPOINTS[data[0] % len(ENDPOINTS)], body)


class _LiveServer:
    """One server for the process, on a free loopback port, that must never open a ruleset file
    (a request names rulesets), never fail inside (its log stays empty)."""

    def __init__(self):
        from racksmith.rules import ruleset as rules
        from racksmith.web import make_server

        self.logged: list[str] = []
        self.refused: list[str] = []  # (kept off stderr: this server lives as long as the process, and a
        # refusal count written 10 s later lands in whatever test is then capturing stderr)
        self.srv = make_server(analyzer(), "127.0.0.1", 0, log=self.logged.append, refusal_log=self.refused.append)
        self.port = self.srv.port
        self.files_opened: list[str] = []
        serving = threading.local()
        real_read, real_finish = rules._read_ruleset_file, self.srv.finish_request

        def spy(path):  # a ruleset file read while this server answers a request
            if getattr(serving, "on", False):
                self.files_opened.append(str(path))
            return real_read(path)

        def finish_request(request, client_address):
            serving.on = True
            try:
                real_finish(request, client_address)
            finally:
                serving.on = False

        rules._read_ruleset_file = spy
        self.srv.finish_request = finish_request
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()


@lru_cache(maxsize=None)
def live_server() -> _LiveServer:
    return _LiveServer()


STATUSES = {100, 200, 400, 403, 404, 405, 413, 415, 417, 431, 501, 503, 505}


def check_http(request: bytes) -> None:
    """Raw bytes of one request over a real connection: the server answers with one of its
    statuses (JSON errors of one line) or closes, never a 500, never opens a file, never dies."""
    live = live_server()
    with socket.create_connection(("127.0.0.1", live.port), timeout=60) as sock:
        try:
            sock.sendall(request)
            sock.shutdown(socket.SHUT_WR)  # all sent: an incomplete request ends here, not at the timeout
        except OSError:  # the server answered and closed before reading everything
            pass
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except ConnectionResetError:
            pass
    assert not live.logged, live.logged
    assert not live.files_opened, live.files_opened
    if data and not data.startswith(b"HTTP/"):  # the answer to an HTTP/0.9 request line: a body alone
        assert isinstance(json.loads(data)["error"], str), data[:200]
        return
    while data:
        head, sep, rest = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1."), data[:200]
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        assert status in STATUSES, head
        headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        if status == 100:  # 'Expect: 100-continue' answered before the real answer
            data = rest
            continue
        size = int(headers.get("Content-Length", "0"))
        body, data = rest[:size], rest[size:]
        if headers.get("Content-Type", "").startswith("application/json") and len(body) == size:
            answer = json.loads(body)
            if status >= 400:
                assert isinstance(answer["error"], str) and "\n" not in answer["error"]


PATHS = ("/", "/index.html", "/static/app.js", "/api/rulesets", "/api/position", "/api/moves", "/api/score",
         "/api/validate", "/api/gcg", "/api/nope", "//api/moves", "/api/moves?x=1", "*", "/%2e%2e/etc/passwd")
METHODS = ("GET", "POST", "HEAD", "PUT", "OPTIONS", "DELETE", "BREW", "get")
HEADER_NAMES = ("Host", "Origin", "Content-Type", "Content-Length", "Transfer-Encoding", "Sec-Fetch-Site", "Connection",
                "Expect", "X-Other")
HEADER_VALUES = ("127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}", "127.0.0.1.evil.example:{port}", "127.0.0.1",
                 "http://127.0.0.1:{port}", "http://evil.example", "null", "application/json", "text/plain",
                 "application/json; charset=latin-1", "chunked", "-1", "0", "99999999999999999999", "cross-site",
                 "same-origin", "keep-alive", "close", "100-continue", "", " ", "\x00", "é")


def fuzz_http(data: bytes) -> None:
    """Decode a request: method, path, up to 8 headers from a list of sharp values (or raw), a
    body; Content-Length is the body's unless the fuzzer sets it."""
    r = Reader(data)
    port = live_server().port
    method, path = r.choice(METHODS), r.choice(PATHS)
    lines = [f"{method} {path} HTTP/1.{r.int(0, 1)}"]
    names = set()
    for _ in range(r.int(0, 8)):
        name = r.choice(HEADER_NAMES)
        value = r.choice(HEADER_VALUES).format(port=port) if r.int(0, 3) else r.text(r.int(0, 40))
        names.add(name)
        lines.append(f"{name}: {value}")
    if "Host" not in names and r.int(0, 3):
        lines.append(f"Host: 127.0.0.1:{port}")
    if "Content-Type" not in names and r.int(0, 3):
        lines.append("Content-Type: application/json")
    body = r.rest()
    if "Content-Length" not in names:
        lines.append(f"Content-Length: {len(body)}")
    head = "\r\n".join(lines).encode("utf-8", "surrogateescape")
    check_http(head + b"\r\n\r\n" + body)


#: name -> target of one bytes argument (what fuzz/run.py runs under atheris)
TARGETS: dict[str, Callable[[bytes], None]] = {
    "cgp": fuzz_cgp,
    "gcg": fuzz_gcg,
    "notation": fuzz_notation,
    "ruleset": fuzz_ruleset,
    "movegen": fuzz_movegen,
    "wordlist": fuzz_wordlist,
    "kwg": fuzz_kwg,
    "klv": fuzz_klv,
    "api": fuzz_api,
    "http": fuzz_http,
}


def available() -> list[str]:
    return sorted(TARGETS)


__all__ = ["TARGETS", "available", "allowed", "Reader", "available_rulesets"]
