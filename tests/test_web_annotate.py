"""A club game recorded on the web page as it is played, through the API (/api/play, /api/export):
a phony that stands until challenged and is withdrawn, a challenge bonus, a failed double
challenge, time penalties. Each is played side by side by the library's :class:`Game`: /api/play
leaves the position the game leaves, and /api/export writes the lines ``game.gcg()`` writes (``--``,
``(challenge) +5``, a pass with ``#note #unsuccessful-challenge``, ``(time) -10``), which replay to the
game's scores. Before, /api/play refused a phony ("invalid_words") and had no challenge nor time
penalty; /api/export took turns only, so a bonus or a penalty typed into a score field broke the
export ("turn 3: its position's scores [70, 26] are not the game's [70, 21]") or was silently left
out of it (a penalty after the last turn)."""
from __future__ import annotations

from collections import Counter

import pytest

from conftest import FIXTURES
from racksmith import Position, get_ruleset
from racksmith.core.bag import distribution
from racksmith.core.turns import TURN_KINDS, EventKind
from racksmith.errors import IllegalMoveError, RacksmithError
from racksmith.play.game import Game
from racksmith.review.replay import replay_text
from racksmith.web import Analyzer

RS = get_ruleset("english")
EMPTY = "/".join(["15"] * 15)


@pytest.fixture(scope="module")
def api():
    return Analyzer("english", None, FIXTURES / "SYNTH.klv2")


def bag_order(*letters: str) -> list[int]:
    """The whole tile set, drawn in this order: ``letters`` first (the racks, then the draws)."""
    lead = [t for part in letters for t in RS.alphabet.rack(part)]
    rest = Counter(distribution(RS)) - Counter(lead)
    return lead + sorted(rest.elements())


def recorded(api: Analyzer, letters: tuple[str, ...]) -> "Recorded":
    """A game recorded from a bag drawn in this order (the racks, then the draws)."""
    return Recorded(api, Game("english", seed=3, bag_order=bag_order(*letters)))


def events(gcg: str) -> list[str]:
    """The event lines of a GCG record, with their notes."""
    return [line for line in gcg.splitlines() if line.startswith((">", "#note"))]


class Recorded:
    """A :class:`Game` and the same game recorded through /api/play (the page's position after each
    action) with its /api/export entries, built side by side."""

    def __init__(self, api: Analyzer, game: Game):
        self.api = api
        self.game = game
        self.page = self.game.cgp()  # the position on the page
        self.turns: list[dict] = []
        self.last: tuple[str, str] | None = None  # the last play: the position before it, and it

    def _answer(self, r: dict) -> dict:
        self.page = r["cgp"]
        assert self.page == self.game.cgp()  # the page's position is the game's
        return r

    def play(self, move: str, phony: bool = False) -> dict:
        before = self.page
        e = self.game.play(move, check_words=not phony)
        r = self._answer(self.api.play({"cgp": before, "move": move, "draw": str(e.drawn), "check_words": not phony}))
        self.turns.append({"cgp": before, "move": r["move"], "draw": r["drawn"]})
        self.last = (before, r["move"]) if r["kind"] == "place" else None
        return r

    def challenge(self, bonus: int) -> dict:
        before = self.page
        n = len(self.game.history)
        phony = self.game.challenge(bonus)
        r = self._answer(self.api.play({"cgp": before, "challenge": {"cgp": self.last[0], "move": self.last[1], "bonus": bonus}}))
        assert (r["event"] == "phony") == phony
        if r["event"] == "phony":
            self.turns.append({"event": "phony"})
        elif r["event"] == "challenge":
            self.turns.append({"event": "challenge", "points": bonus})
        elif r["event"] == "pass":
            self.turns.append({"cgp": before, "move": "-", "failed_challenge": True})
        else:
            assert len(self.game.history) == n  # nothing happened
        self.last = None
        return r

    def time(self, seat: int, points: int) -> dict:
        self.game.time_penalty(seat, points)
        player = (seat - self.game.to_move) % 2  # 0: the player to move
        r = self._answer(self.api.play({"cgp": self.page, "time": {"player": player, "points": points}}))
        self.turns.append({"event": "time", "player": seat, "points": points})
        self.last = None
        return r

    def export(self, **extra) -> dict:
        out = self.api.export({"turns": self.turns, "end": self.page, **extra})
        assert events(out["gcg"]) == events(self.game.gcg())  # the lines Game writes
        assert out["scores"] == self.game.scores
        assert replay_text(out["gcg"], strict=True).scores == self.game.scores  # and they replay
        return out


def test_a_phony_a_challenge_bonus_and_a_time_penalty_are_written_as_game_writes_them(api):
    g = recorded(api, ("?AADGOR", "AGJRSTU", "BEELOPY", "EINT"))
    g.play("8B pODAGRA")
    with pytest.raises(IllegalMoveError) as refused:  # checked, as before
        api.play({"cgp": g.page, "move": "H4 TAGR(A)"})
    assert refused.value.reason == "invalid_words"
    r = g.play("H4 TAGR(A)", phony=True)  # recorded as played: a phony stands until challenged
    assert (r["score"], r["phony"]) == (7, ["TAGRA"])
    r = g.challenge(5)
    assert (r["event"], r["score"], r["phony"]) == ("phony", -7, ["TAGRA"])
    assert r["position"]["scores"] == [70, 0] and r["position"]["racks"][1] == "AGJRSTU"  # his tiles back
    g.play("7B OBEY")
    g.play("H4 JAGR(A)")
    r = g.challenge(5)  # the play stands: 5 points to its player
    assert (r["event"], r["score"], r["phony"]) == ("challenge", 5, [])
    g.time(0, 10)
    out = g.export()
    lines = events(out["gcg"])
    assert lines == [">p1: ?AADGOR 8B pODAGRA +70 70", ">p2: AGJRSTU H4 TAGR. +7 7", ">p2: AGJRSTU -- -7 0",
                     ">p1: BEELOPY 7B OBEY +28 98", ">p2: AGJRSTU H4 JAGR. +21 21",
                     ">p2: EISTUUY (challenge) +5 26",  # (his rack after the play and its draw, as Game writes it)
                     ">p1:  (time) -10 88"]


def test_a_failed_double_challenge_costs_the_challenger_his_turn(api):
    g = recorded(api, ("?AADGOR", "AGJRSTU", "BEELOPY"))
    g.play("8B pODAGRA")
    g.play("H4 JAGR(A)")
    r = g.challenge(0)  # a double challenge that fails: p1 loses his turn
    assert (r["event"], r["failed_challenge"], r["score"]) == ("pass", True, 0)
    g.play("-")
    out = g.export()
    lines = events(out["gcg"])
    assert lines[2].startswith(">p1: ") and " - +0 " in lines[2] and lines[3] == "#note #unsuccessful-challenge"
    replayed = replay_text(out["gcg"], strict=True)
    assert [t.failed_challenge for t in replayed.turns] == [False, False, True, False]


def test_a_challenge_of_the_play_that_went_out_comes_before_the_end(api):
    """A bonus for the play that ended the game is written before the end's events, as Game writes
    it; a double challenge of it costs nothing (no turn is left to lose); a time penalty follows."""
    played = Game("english", seed=11)
    while not played.over:
        played.play_trusted(played.legal_moves(top=1)[0])
    assert played.history[-1].kind == EventKind.OUT
    moves = [e.move.notation() for e in played.history if e.kind in TURN_KINDS]
    for bonus in (5, 0):
        g = Recorded(api, Game("english", seed=11))
        for move in moves:
            g.play(move)
        assert g.game.over and g.last is not None  # the last play went out
        r = g.challenge(bonus)
        assert r["event"] == ("challenge" if bonus else None) and r["over"]
        g.time(1, 3)
        out = g.export()
        assert out["final"] is True
        lines = events(out["gcg"])
        assert "(time) -3" in lines[-1]
        if bonus:
            assert "(challenge) +5" in lines[-3] and lines[-2].startswith(">") and " (" in lines[-2]  # (its end)


def test_the_rulesets_say_their_challenge_rule(api):
    import inspect

    rule = inspect.signature(Game.challenge).parameters["bonus"].default
    assert {r["name"]: r["challenge_bonus"] for r in api.rulesets_info()["rulesets"]} == {
        "english": rule, "russian": rule, "erudit": rule, "super": rule}
    g = recorded(api, ("?AADGOR", "AGJRSTU", "BEELOPY"))
    g.play("8B pODAGRA")
    g.play("H4 JAGR(A)")
    before = g.page
    r = api.play({"cgp": before, "challenge": {"cgp": g.last[0], "move": g.last[1]}})  # the ruleset's rule
    assert r["event"] == ("pass" if rule == 0 else "challenge")


def test_scores_changed_by_hand_are_refused_with_what_to_do(api):
    """The defects as the page met them: a bonus typed into a score field broke the export at the
    next turn, and a penalty typed after the last turn was left out of the record without a word."""
    g = recorded(api, ("?AADGOR", "AGJRSTU", "BEELOPY"))
    g.play("8B pODAGRA")
    g.play("H4 JAGR(A)")
    board, racks, scores, zero = g.page.split(" ")[:4]
    typed = " ".join([board, racks, f"{scores.split('/')[0]}/{int(scores.split('/')[1]) + 5}", zero])
    bonus = api.play({"cgp": typed, "move": "7B OBEY", "draw": "ABCD"})
    turns = [*g.turns, {"cgp": typed, "move": "7B OBEY", "draw": "ABCD"}]
    with pytest.raises(RacksmithError, match=r"^turn 3: its position's scores \[70, 26\] are not the game's \[70, 21\]: "
                                             r"a challenge bonus or a time penalty is an event of the game"):
        api.export({"turns": turns})
    lowered = " ".join([board, racks, f"{int(scores.split('/')[0]) - 10}/{scores.split('/')[1]}", zero])
    with pytest.raises(RacksmithError, match=r"^field 'end': the position's scores \[60, 21\] are not the game's \[70, 21\]"):
        api.export({"turns": g.turns, "end": lowered})
    assert bonus["position"]["scores"][1] == 70 + bonus["score"]
    # the events of the request, in their order
    with pytest.raises(RacksmithError, match="a GCG record starts with a turn"):
        api.export({"turns": [{"event": "time", "player": 0, "points": 5}, *g.turns]})
    with pytest.raises(RacksmithError, match=r"turn 3: a challenge \(\{event: 'phony'\}\) follows the play it challenges"):
        api.export({"turns": [g.turns[0], {"event": "time", "player": 1, "points": 5}, {"event": "phony"}]})
    with pytest.raises(RacksmithError, match="field 'event' must be 'phony', 'challenge' or 'time'"):
        api.export({"turns": [*g.turns, {"event": "bonus"}]})
    with pytest.raises(RacksmithError, match="a challenge bonus .'points'. is a whole number"):
        api.export({"turns": [*g.turns, {"event": "challenge", "points": 0}]})
    with pytest.raises(RacksmithError, match=r"'failed_challenge'\) is a pass"):
        api.export({"turns": [*g.turns, {"cgp": g.page, "move": "7B OBEY", "failed_challenge": True}]})
    with pytest.raises(RacksmithError, match="a time penalty is a whole number of points from 1"):
        api.export({"turns": [*g.turns, {"event": "time", "player": 0, "points": -3}]})
    with pytest.raises(RacksmithError, match="a time penalty's 'player' is 0"):
        api.export({"turns": [*g.turns, {"event": "time", "player": 2, "points": 3}]})


def test_play_refuses_a_challenge_it_cannot_rule(api):
    g = recorded(api, ("?AADGOR", "AGJRSTU", "BEELOPY"))
    g.play("8B pODAGRA")
    before = g.page
    g.play("H4 JAGR(A)")
    with pytest.raises(RacksmithError, match="send one action"):
        api.play({"cgp": g.page, "move": "-", "challenge": {"cgp": before, "move": "H4 JAGR(A)"}})
    with pytest.raises(IllegalMoveError, match="no play to challenge"):
        api.play({"cgp": g.page, "challenge": {"cgp": before, "move": "-"}})
    with pytest.raises(RacksmithError, match="the position is not the one H4 JAGR.A. left"):
        api.play({"cgp": before, "challenge": {"cgp": before, "move": "H4 JAGR(A)"}})
    with pytest.raises(RacksmithError, match="'bonus' must be 0"):
        api.play({"cgp": g.page, "challenge": {"cgp": before, "move": "H4 JAGR(A)", "bonus": -5}})
    with pytest.raises(RacksmithError, match="'player' must be 0"):
        api.play({"cgp": g.page, "time": {"player": True, "points": 5}})
    with pytest.raises(RacksmithError, match="a time penalty is a whole number"):
        api.play({"cgp": g.page, "time": {"player": 0, "points": 1.5}})


def test_old_requests_still_work(api):
    """A request of turns only (no events), and a play without check_words, answer as before."""
    first = api.play({"cgp": f"{EMPTY} DEIKQRU/ 0/0 0", "move": "8D QUIRK", "draw": "ABCDE"})
    assert (first["move"], first["score"], first["kind"], first["phony"]) == ("8D QUIRK", 56, "place", [])
    cgp2 = first["cgp"].replace(" /", " AEINST?/", 1)
    turns = [{"cgp": f"{EMPTY} DEIKQRU/ 0/0 0", "move": "8D QUIRK", "draw": "ABCDE"},
             {"cgp": cgp2, "move": "H8 (K)AiNITES", "draw": "ABCDEFG"}]
    out = api.export({"turns": turns})
    assert replay_text(out["gcg"], strict=True).scores == [56, 86] and out["scores"] == [56, 86]
    assert out["turns"] == 2 and (out["final"], out["uncounted"]) == (None, [])


def test_an_opponent_whose_rack_is_not_known_plays_and_his_record_shows_the_tiles_played():
    """The recorder does not know the opponent's rack: /api/play refused his play ("the rack of the
    player to move is not known"), though Position.push plays it (his tiles among the unseen ones),
    and the export wrote his play with no rack (``>p2: 7B OBEY``), which GCG readers refuse."""
    from racksmith import replay_text
    from racksmith.errors import IllegalMoveError
    from racksmith.web.api import Analyzer

    a = Analyzer()
    c0 = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ?AADGOR/ 0/0 0"
    r1 = a.play({"cgp": c0, "move": "8B pODAGRA", "draw": "EEIIRST"})
    r2 = a.play({"cgp": r1["cgp"], "move": "7B OBEY"})
    assert (r2["score"], r2["rack"], r2["drawn"]) == (28, "", "")
    assert r2["cgp"].endswith(" EEIIRST/ 70/28 0")  # his rack not known still
    with pytest.raises(IllegalMoveError, match="the unseen tiles hold 1 Q of the 3 it plays"):
        a.play({"cgp": r1["cgp"], "move": "7B QQQ"})
    with pytest.raises(IllegalMoveError) as e:
        a.play({"cgp": r1["cgp"], "move": "7B OBEZ"})
    assert e.value.reason == "invalid_words"
    text = a.export({"turns": [{"cgp": c0, "move": "8B pODAGRA", "draw": "EEIIRST"},
                               {"cgp": r1["cgp"], "move": "7B OBEY"}]})["gcg"]
    assert ">p2: BEOY 7B OBEY +28 28" in text.splitlines()
    r = replay_text(text)
    assert r.ok and r.final_scores() == {"p1": 70, "p2": 28} and r.turns[1].rack_complete is False


# --- a hostile or careless client (each failed before its fix) -------------------------------------------------
def _opening(api):
    c0 = f"{EMPTY} AEINRST/ 0/0 0"
    r = api.play({"cgp": c0, "move": "8D RETAINS", "draw": "ADDGOOR"})
    return c0, r["cgp"]


def test_a_draw_of_nothing_said_is_no_draw_for_a_rack_not_known(api):
    """Redo sent back the answer's ``drawn: ""`` as ``draw``, which /api/play refused for a mover
    whose rack is not known: his moves could never be redone."""
    _, c1 = _opening(api)
    for move in ("D1 OUTLINE(R)", "-", "-3"):
        r = api.play({"cgp": c1, "move": move, "draw": ""})
        assert r["drawn"] == "" and r["move"] == api.play({"cgp": c1, "move": move})["move"]


def test_a_phony_withdrawn_from_a_rack_not_known_stays_seen_on_it(api):
    """The tiles of a withdrawn phony went back to a rack not known and were forgotten: his next
    play could use tiles he could not hold, and the export did not replay."""
    c0, c1 = _opening(api)
    c2 = api.play({"cgp": c1, "move": "9D BHOSTZX", "check_words": False})["cgp"]
    r = api.play({"cgp": c2, "challenge": {"cgp": c1, "move": "9D BHOSTZX", "bonus": 0}})
    assert r["event"] == "phony" and r["cgp"].endswith(" ADDGOOR/BHOSTXZ 66/0 1")  # his seven tiles: known
    c4 = api.play({"cgp": r["cgp"], "move": "-"})["cgp"]
    with pytest.raises(IllegalMoveError):
        api.play({"cgp": c4, "move": "D1 OUTLINE(R)"})
    # three tiles withdrawn: his rack known in part
    c2 = api.play({"cgp": c1, "move": "E9 QXZ", "check_words": False})["cgp"]
    r = api.play({"cgp": c2, "challenge": {"cgp": c1, "move": "E9 QXZ", "bonus": 0}})
    seen = Position.from_cgp(r["cgp"])
    assert seen.racks_known == (True, False) and seen.racks_partial == (False, True)
    assert list(seen.racks[1]) == RS.alphabet.rack("QXZ")
    c4 = api.play({"cgp": r["cgp"], "move": "-"})["cgp"]
    text = api.export({"turns": [{"cgp": c0, "move": "8D RETAINS", "draw": "ADDGOOR"},
                                 {"cgp": c1, "move": "E9 QXZ"}, {"event": "phony"}, {"cgp": r["cgp"], "move": "-"}],
                       "end": c4})["gcg"]
    assert replay_text(text).ok


def test_a_time_penalty_by_a_player_given_as_a_float_is_a_request_error(api):
    """``player: 1.0`` passed the check (1.0 == 1) and indexed a list: HTTP 500."""
    from racksmith.errors import RequestError

    _, c1 = _opening(api)
    with pytest.raises(RequestError, match="'player' must be 0"):
        api.play({"cgp": c1, "time": {"player": 1.0, "points": 5}})
    with pytest.raises(RequestError, match="a time penalty's 'player' is 0"):
        api.export({"turns": [{"cgp": f"{EMPTY} AEINRST/ 0/0 0", "move": "8D RETAINS", "draw": "ADDGOOR"},
                              {"event": "time", "player": 0.0, "points": 5}]})


def test_only_the_last_play_can_be_challenged(api):
    """A challenge of a play two passes back was ruled (the passes vanished); the export refused it."""
    from racksmith.errors import RequestError

    _, c1 = _opening(api)
    c2 = api.play({"cgp": c1, "move": "D1 OUTLINE(R)"})["cgp"]
    c3 = api.play({"cgp": c2, "move": "-"})["cgp"]
    c4 = api.play({"cgp": c3, "move": "-"})["cgp"]
    with pytest.raises(RequestError, match=r"D1 OUTLINE\(R\) is not the last play"):
        api.play({"cgp": c4, "challenge": {"cgp": c1, "move": "D1 OUTLINE(R)", "bonus": 0}})


def test_an_export_never_writes_what_a_gcg_reader_refuses(api):
    """A bonus near the limit then a play wrote a running total of 10 digits, which replay refuses;
    an ending's lines went past max_gcg_events (the entries were counted, not the lines)."""
    from racksmith.errors import LimitError, RequestError
    from racksmith.web import Limits

    c0, c1 = _opening(api)
    bonus = 999_999_999 - 66  # (RETAINS's 66 and the bonus: the most a record holds)
    r = api.play({"cgp": c1, "challenge": {"cgp": c0, "move": "8D RETAINS", "bonus": bonus}})
    c3 = api.play({"cgp": r["cgp"], "move": "-"})["cgp"]
    best = api.moves({"cgp": c3, "top": 1})["moves"][0]["notation"]
    c4 = api.play({"cgp": c3, "move": best, "seed": 1})["cgp"]
    drawn = api.play({"cgp": c3, "move": best, "seed": 1})["drawn"]
    turns = [{"cgp": c0, "move": "8D RETAINS", "draw": "ADDGOOR"}, {"event": "challenge", "points": bonus},
             {"cgp": r["cgp"], "move": "-"}, {"cgp": c3, "move": best, "draw": drawn}]
    with pytest.raises(RequestError, match="a GCG record holds at most 999,999,999 points"):
        api.export({"turns": turns, "end": c4})
    # a game that ends by going out: one line more than its entries
    cur, entries, seed = f"{EMPTY} AEINRST/DGOORAL 0/0 0", [], 5
    while not api.position({"cgp": cur})["over"]:
        ms = api.moves({"cgp": cur, "top": 1})["moves"]
        r = api.play({"cgp": cur, "move": ms[0]["notation"] if ms else "-", "seed": seed})
        entries.append({"cgp": cur, "move": r["move"], "draw": r["drawn"]})
        cur, seed = r["cgp"], seed + 1
    tight = Analyzer("english", limits=Limits(max_gcg_events=len(entries)))
    with pytest.raises(LimitError, match="max_gcg_events"):
        tight.export({"turns": entries, "end": cur})


def test_a_hidden_rack_typed_after_a_scoreless_end_is_counted_when_the_page_says_so(api):
    """/api/position took a finished game's CGP with the rack typed in as final as it stood (the
    penalty never taken off); with ``counting`` (the position shown before) it counts the rack as
    Position counts a rack set after the end; without it, a CGP is read as it stands."""
    board = "TAJ4P7/2E4O7/1DrOOLiNG6/2K4D7/2E1U10/1FRANC9/4C10/3WIFTY7/2VENA9/4U10/4S10/15/15/15/15"
    ended = api.play({"cgp": f"{board} ABDNOPU/ 164/104 5", "move": "-"})
    assert ended["position"]["final"] is False
    typed = ended["cgp"].replace(" /ABDNOPU", " GIILQTZ/ABDNOPU")
    p = api.position({"cgp": typed, "counting": ended["cgp"]})
    lib = Position.from_cgp(ended["cgp"])
    lib.racks[0] = "GIILQTZ"
    assert p["counted"] and p["final"] and p["scores"] == list(lib.scores) == [78, 152]
    assert api.position({"cgp": typed})["scores"] == [104, 152]
    # another change than the racks typed (a score edited too): read as it stands
    assert "counted" not in api.position({"cgp": typed.replace("104/152", "100/152"), "counting": ended["cgp"]})


def test_a_hidden_rack_certain_with_the_bag_empty_is_written_whole(api):
    """With the bag empty a hidden opponent's tiles are certain (the unseen ones), but the export
    wrote only those he played (``>p2: ?EEIS 15K SIEvE``): MAGPIE took them for his whole rack, saw
    him go out and refused the rest of the game. His whole rack is written now."""
    from racksmith import BestEquityPlayer, GameView

    game = Game("english", seed=11)
    player = BestEquityPlayer()
    cgp = game.cgp()
    hidden = cgp.split(" ")[1].split("/")[0]
    page = cgp.replace(f" {cgp.split(' ')[1]} ", f" {hidden}/ ", 1)  # (the opponent's rack not known)
    entries, certain = [], []
    while not game.over:
        mover = game.to_move
        bag_empty = len(game.bag) == 0
        rack = game.ruleset.alphabet.rack_string(game.rack)
        e = game.play(player.choose(GameView(game)))
        body = {"cgp": page, "move": e.move.notation()}
        if mover == 0:
            body["draw"] = str(e.drawn)
        elif bag_empty and e.move.is_place:
            certain.append(rack)
        r = api.play(body)
        entries.append({k: v for k, v in body.items()})
        page = r["cgp"]
    assert certain, "the game should give the hidden player a turn with the bag empty"
    text = api.export({"turns": entries, "end": page})["gcg"]
    lines = [line for line in text.splitlines() if line.startswith(">p2: ")]
    for rack in certain:
        assert any(line.startswith(f">p2: {rack} ") for line in lines), (rack, lines)
    assert replay_text(text).ok


def test_a_hidden_rack_a_phony_showed_whole_draws_unseen_tiles_when_his_play_is_sent_hidden(api):
    """A phony bingo withdrawn showed a hidden opponent's whole rack: his rack was then known, and
    his next play (no draw said) drew at random, a rack his recorder never saw. The answer now says
    ``revealed``, and a play sent ``hidden`` leaves the tiles he kept known in part, his draw not."""
    c0, c1 = _opening(api)
    c2 = api.play({"cgp": c1, "move": "9D BHOSTZX", "check_words": False})["cgp"]
    r = api.play({"cgp": c2, "challenge": {"cgp": c1, "move": "9D BHOSTZX", "bonus": 0}})
    assert r["event"] == "phony" and r["revealed"] is True
    c4 = api.play({"cgp": r["cgp"], "move": "-", "draw": ""})["cgp"]  # (the recorder passes)
    played = api.play({"cgp": c4, "move": "9F OX", "hidden": True})
    assert played["drawn"] == "" and played["rack"] == "BHOSTXZ"
    after = Position.from_cgp(played["cgp"])
    assert after.racks_known == (True, False) and after.racks_partial == (False, True)
    assert list(after.racks[1]) == RS.alphabet.rack("BHSTZ") and after.rack_sizes == (7, 7)
    assert api.play({"cgp": c4, "move": "9F OX"})["drawn"] != ""  # (not hidden: a known rack draws at random)
    with pytest.raises(RacksmithError, match="'hidden' says .* send one or the other"):
        api.play({"cgp": c4, "move": "9F OX", "hidden": True, "draw": "AEI"})
    # the recorder plays on, from the unseen tiles; the record replays
    c6 = api.play({"cgp": played["cgp"], "move": "-", "draw": ""})["cgp"]
    last = api.play({"cgp": c6, "move": "-"})["cgp"]
    text = api.export({"turns": [{"cgp": c0, "move": "8D RETAINS", "draw": "ADDGOOR"},
                                 {"cgp": c1, "move": "9D BHOSTZX"}, {"event": "phony"},
                                 {"cgp": r["cgp"], "move": "-", "draw": ""}, {"cgp": c4, "move": "9F OX", "draw": ""},
                                 {"cgp": played["cgp"], "move": "-", "draw": ""}, {"cgp": c6, "move": "-"}],
                       "end": last})["gcg"]
    assert ">p2: BHOSTXZ 9F OX" in text and replay_text(text).ok
