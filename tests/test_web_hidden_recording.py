"""A game recorded on the web page with the opponent's rack hidden (his tiles seen only when a
phony of his is taken back), through the web API as the page calls it. Each test failed before its
fix (a model-based fuzzer of the page found them):

- a mover's rack known in part (the tiles of his phony, taken back) was written empty in the CGP
  ``/api/play`` answered once the recorder played: the page, which builds its CGP from the rack
  fields, then sent his known tiles as his whole rack (``EQSX/...``, 77 in the bag), and his next
  real play was refused;
- the export refused a game over by six scoreless turns once the hidden rack typed in after the
  end was counted (the scores on the page were not the game's);
- a rack known only because a phony showed it whole could not exchange ``-N`` (sent ``hidden``):
  the recorder does not see which tiles went back; nor pass (sent ``hidden``: refused)."""
from __future__ import annotations

import pytest

from conftest import FIXTURES
from racksmith import Position, get_ruleset
from racksmith.errors import IllegalMoveError
from racksmith.review.replay import replay_text
from racksmith.web import Analyzer

EMPTY = "/".join(["15"] * 15)
RS = get_ruleset("english")


@pytest.fixture(scope="module")
def api():
    return Analyzer("english", None, FIXTURES / "SYNTH.klv2")


def _opening(api):
    c0 = f"{EMPTY} AEINRST/ 0/0 0"
    return c0, api.play({"cgp": c0, "move": "8D RETAINS", "draw": "ADDGOOR"})["cgp"]


def _as_the_page_sends_it(answer: dict) -> str:
    """The CGP the page builds from an answer: its board, rack fields, scores and zero-turn count as
    the position says them, and the opcodes of the answer's CGP (``composeCgp`` in app.js)."""
    pos = answer["position"]
    fields = answer["cgp"].split(" ")
    return " ".join([fields[0], f"{pos['racks'][0]}/{pos['racks'][1]}", f"{pos['scores'][0]}/{pos['scores'][1]}",
                     str(pos["zero_turns"]), *fields[4:]])


def test_a_movers_rack_known_in_part_survives_the_recorders_play(api):
    c0, c1 = _opening(api)
    c2 = api.play({"cgp": c1, "move": "D8 (R)QXES", "check_words": False})["cgp"]
    r = api.play({"cgp": c2, "challenge": {"cgp": c1, "move": "D8 (R)QXES", "bonus": 0}})
    assert r["event"] == "phony" and r["cgp"].endswith(" ADDGOOR/EQSX 66/0 1")  # (his 4 tiles seen)
    mine = api.play({"cgp": r["cgp"], "move": "E4 GOAD(E)D", "draw": "ACILO"})
    assert mine["position"]["racks"] == ["EQSX", "ACILOOR"] and mine["position"]["racks_partial"] == [True, False]
    for cgp in (mine["cgp"], mine["position"]["cgp"], _as_the_page_sends_it(mine)):
        pos = Position.from_cgp(cgp)
        assert (pos.racks_known, pos.racks_partial, pos.rack_sizes, pos.bag_count) == ((False, True), (True, False),
                                                                                       (7, 7), 74), cgp
        assert str(pos.racks[0]) == "EQSX"
    page = _as_the_page_sends_it(mine)
    assert api.position({"cgp": page})["cgp"] == mine["cgp"]  # (read back as written)
    # his next play: Z and A of his tiles not seen, his E, Q, S and X still known
    his = api.play({"cgp": page, "move": "9F ZA", "check_words": False})
    after = Position.from_cgp(his["cgp"])
    assert after.racks_partial == (False, True) and str(after.racks[1]) == "EQSX" and after.bag_count == 72
    with pytest.raises(IllegalMoveError, match="his known tiles EQSX and the unseen ones"):
        api.play({"cgp": page, "move": "9F QQ", "check_words": False})
    # the library's own CGP still leaves the mover's part out (a reader without rsz would take it whole)
    assert Position.from_cgp(page).cgp().split(" ")[1] == "/ACILOOR"
    # the game exports and replays
    turns = [{"cgp": c0, "move": "8D RETAINS", "draw": "ADDGOOR"}, {"cgp": c1, "move": "D8 (R)QXES"},
             {"event": "phony"}, {"cgp": r["cgp"], "move": "E4 GOAD(E)D", "draw": "ACILO"},
             {"cgp": page, "move": "9F ZA"}]
    out = api.export({"turns": turns, "end": his["cgp"]})
    assert replay_text(out["gcg"]).ok and out["scores"] == [84, 28]


def _six_passes(api, c0: str) -> tuple[list[dict], str]:
    """Passes from ``c0`` until six scoreless turns end the game."""
    turns, cur = [], c0
    while not api.position({"cgp": cur})["over"]:
        body = {"cgp": cur, "move": "-"}
        turns.append(body)
        cur = api.play(body)["cgp"]
    return turns, cur


def _counted(api, ended: str, hidden: str) -> str:
    """The CGP the page shows once the hidden rack (the empty one) is typed in: counted."""
    fields = ended.split(" ")
    mine, theirs = fields[1].split("/")
    fields[1] = f"{hidden}/{theirs}" if not mine else f"{mine}/{hidden}"
    typed = api.position({"cgp": " ".join(fields), "counting": ended})
    assert typed["counted"] and typed["final"]
    return typed["cgp"]


def test_an_export_counts_the_hidden_rack_typed_after_a_scoreless_end(api):
    c0, c1 = _opening(api)
    turns, ended = _six_passes(api, c1)
    assert ended.endswith(" /ADDGOOR 0/56 6") and api.position({"cgp": ended})["final"] is False
    end = _counted(api, ended, "BCEFHLU")
    assert end.endswith(" BCEFHLU/ADDGOOR -17/56 6")
    out = api.export({"turns": [{"cgp": c0, "move": "8D RETAINS", "draw": "ADDGOOR"}, *turns], "end": end})
    lines = out["gcg"].splitlines()
    # (the last mover's penalty first, then the other's: as Game.gcg() writes the scoreless turns' end)
    assert lines[-2:] == [">p1: ADDGOOR (ADDGOOR) -10 56", ">p2: BCEFHLU (BCEFHLU) -17 -17"]
    assert (out["scores"], out["final"], out["uncounted"]) == ([56, -17], True, [])
    r = replay_text(out["gcg"], strict=True)
    assert r.ok and r.scores == [56, -17]
    # not typed in: the end as before, not final
    out = api.export({"turns": [{"cgp": c0, "move": "8D RETAINS", "draw": "ADDGOOR"}, *turns], "end": ended})
    assert (out["scores"], out["final"], out["uncounted"]) == ([56, 0], False, [1])


def test_a_hidden_last_movers_counted_rack_comes_first_and_a_later_penalty_counts_it(api):
    """The hidden player took the last scoreless turn: his penalty is the first of the end's lines;
    a time penalty of his after the end is written after them, its running total counting them."""
    c0 = f"{EMPTY} AEINRST/ 0/0 0"
    turns, ended = _six_passes(api, c0)
    assert ended.endswith(" AEINRST/ -7/0 6")  # (the hidden player to move: his rack not counted)
    fined = api.play({"cgp": ended, "time": {"player": 1, "points": 10}})["cgp"]  # (1: not the mover, p2)
    end = _counted(api, fined, "ACEIMNO")
    out = api.export({"turns": [*turns, {"event": "time", "player": 1, "points": 10}], "end": end})
    lines = [line for line in out["gcg"].splitlines() if line.startswith(">")]
    assert lines[-3:] == [">p2: ACEIMNO (ACEIMNO) -11 -11", ">p1: AEINRST (AEINRST) -7 -7", ">p2:  (time) -10 -21"]
    assert out["scores"] == [-7, -21] and out["final"] is True
    assert replay_text(out["gcg"], strict=True).scores == [-7, -21]


def test_a_rack_shown_whole_exchanges_tiles_not_named_when_sent_hidden(api):
    empty = f"{EMPTY} AFGHINT/CFOSTUX 0/0 3"
    r = api.play({"cgp": empty, "move": "-6", "hidden": True})
    assert (r["move"], r["kind"], r["rack"], r["drawn"]) == ("-6", "exchange", "AFGHINT", "")
    after = Position.from_cgp(r["cgp"])
    assert after.racks_known == (True, False) and str(after.racks[1]) == "" and after.rack_sizes == (7, 7)
    assert after.bag_count == 86 and after.zero_turns == 4  # (his seven not known: among the unseen)
    # a tile he held more copies of than he gave back stays known, as push keeps a rack known in part
    r = api.play({"cgp": f"{EMPTY} AEEEIRT/CFOSTUX 0/0 3", "move": "-2", "hidden": True})
    after = Position.from_cgp(r["cgp"])
    assert after.racks_partial == (False, True) and str(after.racks[1]) == "E"
    # tiles named: the others kept stay known
    r = api.play({"cgp": f"{EMPTY} AEEEIRT/CFOSTUX 0/0 3", "move": "-AE", "hidden": True})
    assert str(Position.from_cgp(r["cgp"]).racks[1]) == "EEIRT"
    # a pass draws nothing: his rack stays known whole (it was refused: "a full rack, but racks_known
    # says it is not known")
    r = api.play({"cgp": empty, "move": "-", "hidden": True})
    assert Position.from_cgp(r["cgp"]).racks_known == (True, True) and r["cgp"].split(" ")[1] == "CFOSTUX/AFGHINT"
    with pytest.raises(IllegalMoveError, match="an exchange of 8 tiles from a rack of 7"):
        api.play({"cgp": empty, "move": "-8", "hidden": True})
    with pytest.raises(ValueError, match="name the tiles given back"):  # (not hidden: his draw is said)
        api.play({"cgp": empty, "move": "-6"})


def test_a_revealed_racks_exchange_of_tiles_not_named_exports(api):
    c0, c1 = _opening(api)
    c2 = api.play({"cgp": c1, "move": "9D BHOSTZX", "check_words": False})["cgp"]
    r = api.play({"cgp": c2, "challenge": {"cgp": c1, "move": "9D BHOSTZX", "bonus": 0}})
    assert r["revealed"] is True
    c4 = api.play({"cgp": r["cgp"], "move": "-", "draw": ""})["cgp"]
    swapped = api.play({"cgp": c4, "move": "-3", "hidden": True})
    assert Position.from_cgp(swapped["cgp"]).racks_known == (True, False)
    turns = [{"cgp": c0, "move": "8D RETAINS", "draw": "ADDGOOR"}, {"cgp": c1, "move": "9D BHOSTZX"},
             {"event": "phony"}, {"cgp": r["cgp"], "move": "-", "draw": ""},
             {"cgp": c4, "move": swapped["move"], "draw": swapped["drawn"]}]
    out = api.export({"turns": turns, "end": swapped["cgp"]})
    assert ">p2: BHOSTXZ -3 +0 0" in out["gcg"].splitlines()
    replayed = replay_text(out["gcg"], strict=True)
    assert replayed.ok and replayed.scores == [66, 0]
