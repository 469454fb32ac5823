"""The web API as a live-stream overlay drives it: a game record re-posted after every move (only
its new turns analysed, a turn graded once keeps its verdict), a record only replayed never waiting
behind simulations, players' full names through /api/gcg and /api/export, nicks compared as a GCG
reader compares them, and one rule for every seed."""
from __future__ import annotations

import threading
import time

import pytest

import racksmith.review.analysis as analysis_module
import racksmith.search.endgame as endgame_module
from conftest import FIXTURES
from test_security import Server as SecurityServer
from racksmith.errors import RacksmithError
from racksmith.review.analysis import analyze
from racksmith.review.replay import replay_text
from racksmith.web import Analyzer, RequestError
from racksmith.web.api import MAX_SEED, TurnMemo
from racksmith.web.limits import Limits
from racksmith.web.server import is_long

GAME = (FIXTURES / "gcg" / "game01_seed1.gcg").read_text(encoding="utf-8")
#: a game whose last turns are played with the bag empty (the endgame solver grades them)
ENDGAME_GAME = (FIXTURES / "gcg" / "macondo" / "noah_vs_mishu.gcg").read_text(encoding="utf-8")
EMPTY = "/".join(["15"] * 15) + " AEKNOQR/CEIRSTU 0/0 0"
OUTGUN = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"


class Server(SecurityServer):
    """tests/test_security.py's server, with ``post`` answering (status, JSON)."""

    def post(self, path: str, body: dict) -> tuple[int, dict]:
        status, _, answer = self.request("POST", path, body)
        return status, answer


@pytest.fixture(scope="module")
def server():
    s = Server(Analyzer("english"))
    yield s
    s.close()
    assert s.logged == []


def events_upto(text: str, n: int) -> str:
    """The record cut after its ``n``-th event line (the header kept)."""
    out, seen = [], 0
    for line in text.splitlines():
        if line.startswith(">"):
            if seen == n:
                break
            seen += 1
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.fixture
def counted(monkeypatch):
    """Counts the turns analysed and the endgames solved (each solve cut to 0.1 s)."""
    calls = {"turns": 0, "endgames": 0}
    analyze_turn, solve = analysis_module._analyze_turn, endgame_module.solve_endgame

    def counting_turn(*args, **kw):
        calls["turns"] += 1
        return analyze_turn(*args, **kw)

    def counting_solve(*args, **kw):
        calls["endgames"] += 1
        kw["seconds"] = min(kw.get("seconds") or 0.1, 0.1)
        return solve(*args, **kw)

    monkeypatch.setattr(analysis_module, "_analyze_turn", counting_turn)
    monkeypatch.setattr(endgame_module, "solve_endgame", counting_solve)
    return calls


# --- 1. a record only replayed is a quick request -------------------------------------------------
def test_a_record_only_replayed_does_not_wait_for_a_long_slot():
    """/api/gcg with analyze: false (a replay, milliseconds) took one of the long slots: it waited
    behind running simulations, then got 503 busy. It is a quick request now; an analysis still
    takes a long slot."""
    s = Server(Analyzer("english", limits=Limits(max_concurrent=1, max_seconds=1)))
    try:
        assert s.srv.long_computing.acquire(timeout=5)  # a simulation is running
        try:
            started = time.monotonic()
            status, answer = s.post("/api/gcg", {"text": GAME, "analyze": False})
            assert status == 200 and answer["turns"] and answer["analysis"] is None
            assert time.monotonic() - started < 0.9  # did not wait for the slot (max_seconds: 1)
            status, answer = s.post("/api/gcg", {"text": GAME})  # an analysis waits, then 503
            assert status == 503 and answer["limit"] == "max_concurrent"
        finally:
            s.srv.long_computing.release()
    finally:
        s.close()
    assert s.logged == []


def test_which_requests_are_long():
    assert is_long("/api/gcg", {"text": GAME}) and is_long("/api/gcg", {"text": GAME, "analyze": True})
    assert not is_long("/api/gcg", {"text": GAME, "analyze": False})
    assert is_long("/api/gcg", {"analyze": "no"})  # refused by the endpoint, in a long slot as before
    assert is_long("/api/sim", {"analyze": False}) and not is_long("/api/moves", {})


# --- 2. the turns analysed are kept ----------------------------------------------------------------
def test_a_record_sent_again_is_answered_from_the_turns_kept(counted):
    """Re-posting a record re-solved every endgame (up to 5 s each, each time) and a turn's verdict
    could change between posts (a solve within a time limit). Its turns are now kept: the second
    post analyses nothing and answers the same."""
    api = Analyzer("english", limits=Limits(max_seconds=8))
    first = api.gcg({"text": ENDGAME_GAME})
    assert counted["endgames"] > 0 and counted["turns"] == len(first["turns"])
    assert any(t["graded_by"] == "endgame" for t in first["analysis"]["turns"])
    counted.update(turns=0, endgames=0)
    second = api.gcg({"text": ENDGAME_GAME})
    assert counted == {"turns": 0, "endgames": 0}
    assert second == first


def test_a_growing_record_has_only_its_new_turns_analysed(counted):
    api = Analyzer("english")
    before = api.gcg({"text": events_upto(GAME, 6)})
    assert counted["turns"] == 6
    counted["turns"] = 0
    after = api.gcg({"text": events_upto(GAME, 7)})
    # the seventh turn, and the sixth, whose position the seventh completes: its rack is the
    # opponent's rack before the sixth, known now (a CGP of its own)
    assert counted["turns"] == 2
    assert after["turns"][5]["cgp"] != before["turns"][5]["cgp"]
    assert after["analysis"]["turns"][:6] == before["analysis"]["turns"]
    assert [p["turns"] for p in after["analysis"]["players"]] == [4, 3]  # the summaries count every turn
    counted["turns"] = 0
    alone = Analyzer("english").gcg({"text": events_upto(GAME, 7)})  # as analysed from scratch
    assert alone["analysis"] == after["analysis"]


def test_a_turn_is_analysed_again_when_what_it_depends_on_changes(counted):
    api = Analyzer("english")
    api.gcg({"text": events_upto(GAME, 4)})
    counted["turns"] = 0
    api.gcg({"text": events_upto(GAME, 4), "top": 7})  # another number of best moves listed
    assert counted["turns"] == 4
    counted["turns"] = 0
    api.gcg({"text": events_upto(GAME, 4), "leaves": False})  # equity without leaves
    assert counted["turns"] == 4
    counted["turns"] = 0
    # the first player renamed: his turns say who played (the other's are as they were)
    api.gcg({"text": events_upto(GAME, 4).replace("p1", "q1")})
    assert counted["turns"] == 2


def test_a_turn_cut_short_is_not_kept(counted, monkeypatch):
    """The client went away during the third turn: the two turns before are kept, not the third."""
    api = Analyzer("english")
    cancel = threading.Event()
    counting = analysis_module._analyze_turn

    def cancelling(*args, **kw):
        result = counting(*args, **kw)
        if counted["turns"] == 3:
            cancel.set()
        return result

    monkeypatch.setattr(analysis_module, "_analyze_turn", cancelling)
    with pytest.raises(RequestError, match="cancelled"):
        api.gcg({"text": events_upto(GAME, 5)}, cancel=cancel)
    assert len(api.turn_memo) == 2
    counted["turns"] = 0
    api.gcg({"text": events_upto(GAME, 5)})
    assert counted["turns"] == 3


def test_analyze_takes_a_turn_cache(counted):
    """The library's hook the server uses: ``analyze(..., turn_cache=...)``, any mapping."""
    cache: dict = {}
    game = replay_text(events_upto(GAME, 5))
    first = analyze(game, top=3, turn_cache=cache)
    assert counted["turns"] == 5 and len(cache) == 5
    counted["turns"] = 0
    assert analyze(game, top=3, turn_cache=cache).to_dict() == first.to_dict() and counted["turns"] == 0
    with pytest.raises(RacksmithError, match="turn_cache must be a mapping"):
        analyze(game, turn_cache=[1, 2])


def test_the_turn_memo_is_bounded_and_keeps_the_first_verdict():
    memo = TurnMemo(2)
    assert memo.setdefault("a", 1) == 1 and memo.setdefault("a", 2) == 1  # the first stored wins
    memo.setdefault("b", 3)
    assert memo.get("a") == 1  # used: now the newest
    memo.setdefault("c", 4)
    assert len(memo) == 2 and memo.get("b") is None and memo.get("a") == 1 and memo.get("c") == 4


def test_a_record_re_posted_over_http_is_answered_alike(server):
    for _ in range(2):
        answers = [server.post("/api/gcg", {"text": events_upto(GAME, 8)}) for _ in range(2)]
        assert answers[0][0] == 200 and answers[0] == answers[1]


# --- 3 and 4. nicks and full names -----------------------------------------------------------------
def test_gcg_answers_the_players_full_names(server):
    text = ("#player1 anna Анна Каренина\n#player2 bob\tBob  Smith 😀\n"
            ">anna: AEKNOQR 8D KRONA +28 28\n>bob: CEIRSTU E5 REC.UITS +90 90\n")
    status, answer = server.post("/api/gcg", {"text": text, "analyze": False})
    assert status == 200
    assert answer["players"] == ["anna", "bob"]  # nicks, as before
    assert answer["player_names"] == ["Анна Каренина", "Bob  Smith 😀"]
    status, answer = server.post("/api/gcg", {"text": ">a: AEKNOQR 8D KRONA +28 28\n", "analyze": False})
    assert answer["players"] == ["a"] and answer["player_names"] == [None]  # no #player line: no name


@pytest.mark.parametrize("names", [["Анна Каренина", "李 雷"], ["Smiley 😀 Face", "tab\tin name"],
                                   ["Zoë\u200b Z", "José Núñez"], ["  padded  ", None], None])
def test_export_writes_full_names_that_read_back(server, names):
    body = {"turns": [{"cgp": EMPTY, "move": "8D KRONA", "draw": "ABCDE"}], "players": ["Анна", "bob"]}
    if names is not None:
        body["names"] = names
    status, answer = server.post("/api/export", body)
    assert status == 200, answer
    status, back = server.post("/api/gcg", {"text": answer["gcg"], "analyze": False})
    assert status == 200 and back["errors"] == []
    assert back["players"] == ["Анна", "bob"]
    expected = [(n or "").strip() or nick for n, nick in zip(names or [None, None], ["Анна", "bob"])]
    assert back["player_names"] == expected


def test_export_writes_the_names_in_nfc(server):
    status, answer = server.post("/api/export", {"turns": [{"cgp": EMPTY, "move": "8D KRONA", "draw": "ABCDE"}],
                                                 "players": ["Jose\u0301", "b"], "names": ["Jose\u0301 Nu\u0301n\u0303ez", None]})
    assert status == 200
    assert "#player1 José José Núñez\n" in answer["gcg"] and ">José: " in answer["gcg"]
    status, back = server.post("/api/gcg", {"text": answer["gcg"], "analyze": False})
    assert back["players"] == ["José", "b"] and back["player_names"] == ["José Núñez", "b"] and back["errors"] == []


def test_export_refuses_nicks_that_differ_only_in_normalization(server):
    """["e" + U+0301, "é"] was written as two players whom every GCG reader reads as one ("'é' is
    already player 1"): refused, saying why."""
    status, answer = server.post("/api/export", {"turns": [{"cgp": EMPTY, "move": "8D KRONA", "draw": "ABCDE"}],
                                                 "players": ["e\u0301", "\u00e9"]})
    assert status == 400 and "same nick written two ways" in answer["error"] and "NFC" in answer["error"]
    assert "'e\\u0301' and '\\xe9'" in answer["error"]  # the two spellings told apart


@pytest.mark.parametrize("names, said", [
    ("Anna", "list of two"), (["Anna"], "list of two"), (["a", "b", "c"], "list of two"),
    ([5, "b"], "player 1's full name must be text"), (["a", ["b"]], "player 2's full name must be text"),
    (["Anna\nKarenina", "b"], "line break"), (["a", "x\u2028y"], "line break"), (["a\x00", "b"], "control"),
    (["A" * 101, "b"], "at most 100"),
])
def test_export_refuses_bad_names(server, names, said):
    status, answer = server.post("/api/export", {"turns": [{"cgp": EMPTY, "move": "8D KRONA", "draw": "ABCDE"}],
                                                 "players": ["a", "b"], "names": names})
    assert status == 400 and "'names'" in answer["error"] and said in answer["error"]


# --- 5. one rule for seeds -------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [-7, -1, 2**63, 2**64 - 1, 1.5, "7", True])
def test_every_endpoint_refuses_the_same_seeds(server, seed):
    """/api/play took -7 (the tiles of 7) and 2**63, which /api/sim refused."""
    play = server.post("/api/play", {"cgp": OUTGUN, "move": "J8 SOIREE", "seed": seed})
    sim = server.post("/api/sim", {"cgp": OUTGUN, "iterations": 10, "seed": seed})
    best = server.post("/api/best", {"cgp": OUTGUN, "seconds": 0.1, "seed": seed})
    assert play[0] == sim[0] == best[0] == 400
    assert play[1]["error"] == sim[1]["error"] == best[1]["error"]
    assert "0 to 2**63 - 1" in play[1]["error"]


def test_the_largest_seed_draws_alike_each_time(server):
    body = {"cgp": OUTGUN, "move": "J8 SOIREE", "seed": MAX_SEED}
    first, again = server.post("/api/play", body), server.post("/api/play", body)
    assert first[0] == 200 and first == again
    assert server.post("/api/play", {**body, "seed": 0})[0] == 200
    assert server.post("/api/sim", {"cgp": OUTGUN, "iterations": 10, "seed": MAX_SEED})[0] == 200
