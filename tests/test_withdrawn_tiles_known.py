"""The tiles of a play withdrawn after a challenge were seen by everyone, and they went back to the
player's rack: the position as his opponent then sees it holds them as his rack known in part
(``Position.racks_partial``; CGP ``AAEINRU/ILT``), as Macondo writes it, until he plays them (a
tile he plays leaves the known part) or exchanges (its tiles are not seen: nothing is known then).
Only while the bag holds tiles: with it empty the rack is the tiles unseen anyway.
``Replay.position(turn, opponent_rack=False)``, ``racksmith gcg cgp --hide-opponent-rack`` and
``GameView.position`` (what a bot sees) keep them."""
from __future__ import annotations

from collections import Counter

import pytest
from conftest import FIXTURES

from racksmith import BestEquityPlayer, Game, GameView
from racksmith.cli.main import main
from racksmith.core.position import Position
from racksmith.errors import RacksmithError
from racksmith.review.replay import replay_file, replay_text

MACONDO = FIXTURES / "gcg" / "macondo"
DOUG = MACONDO / "doug_v_emely.gcg"
EQUITY = BestEquityPlayer()


def part(pos: Position) -> str:
    """The opponent's rack as the CGP writes it (after the slash)."""
    return pos.cgp().split()[1].split("/")[1]


# --- a replayed record -------------------------------------------------------------------------
def test_the_withdrawn_tiles_are_known_to_the_opponent():
    r = replay_file(DOUG)
    assert r.turns[5].withdrawn and r.turns[5].move.notation() == "4B TIL(AX)"  # emely's phony, taken back
    seen = r.position(7, opponent_rack=False)  # doug to move: he saw emely's T, I and L
    assert seen.racks_partial == (False, True) and str(seen.racks[1]) == "ILT"
    assert seen.rack_sizes == (7, 7) and seen.bag_count == 62  # counted as a full rack all the same
    assert seen.cgp().split()[1] == "AAEINRU/ILT"
    back = Position.from_cgp(seen.cgp())
    assert back.racks_partial == (False, True) and str(back.racks[1]) == "ILT"
    # the record reveals her whole rack: without opponent_rack=False it is given whole
    assert r.position(7).racks_known == (True, True) and str(r.position(7).racks[1]) == "DEIILTZ"
    assert part(r.position(6, opponent_rack=False)) == ""  # before the phony nothing is known
    assert part(r.position(8, opponent_rack=False)) == ""  # emely to move: she saw nothing of doug's
    assert part(r.position(9, opponent_rack=False)) == "ILT"  # 4D Z(..) played none of them


def test_a_tile_played_leaves_the_known_part():
    r = replay_file(DOUG)
    assert r.turns[9].move.notation() == "B2 TEIID"  # emely plays the T and an I (of two she may hold)
    assert part(r.position(11, opponent_rack=False)) == "L"
    assert part(r.position(15, opponent_rack=False)) == "L"  # 11E SAT and C1 CAN: no L
    assert r.turns[15].move.notation() == "7H RILL"
    assert part(r.position(17, opponent_rack=False)) == ""
    assert r.turns[16].shown == (r.ruleset.alphabet.tiles(), r.ruleset.alphabet.tiles())


def test_cli_gcg_cgp_writes_the_known_tiles(capsys):
    assert main(["gcg", "cgp", str(DOUG), "--turn", "7", "--hide-opponent-rack"]) == 0
    out, err = capsys.readouterr()
    assert out.split()[1] == "AAEINRU/ILT" and "Traceback" not in err
    assert main(["gcg", "cgp", str(DOUG), "--turn", "11", "--hide-opponent-rack"]) == 0
    assert capsys.readouterr().out.split()[1] == "BDERUW?/L"


def _doug_until(line_count: int, *extra: str) -> str:
    lines = DOUG.read_text(encoding="utf-8").splitlines()[:line_count]
    return "\n".join([*lines, *extra]) + "\n"


def test_a_pass_keeps_them_an_exchange_forgets_them():
    """At the end of a record cut short (doug to move): emely's withdrawn tiles are known after her
    pass, or after a play of other tiles; after an exchange (its tiles unseen by doug) nothing is."""
    after_eau = 10  # the record's lines up to doug's 9G EAU
    played = replay_text(_doug_until(after_eau, ">emely: DEIILTZ 4D Z.. +38 93"))
    passed = replay_text(_doug_until(after_eau, ">emely: DEIILTZ - +0 55"))
    exchanged = replay_text(_doug_until(after_eau, ">emely: DEIILTZ -Z +0 55"))
    for r, known in ((played, "ILT"), (passed, "ILT"), (exchanged, "")):
        assert r.ok, r.errors
        end = r.position(None, opponent_rack=False)
        assert part(end) == known
        assert end.racks_partial[1] is bool(known)
    # the record's own end: emely to move, doug's rack unknown and nothing of it seen
    assert part(played.position(None, opponent_rack=False)) == "ILT"


def test_with_the_bag_empty_nothing_is_given_in_part():
    r = replay_file(MACONDO / "josh2.gcg", strict=False)
    t = r.turns[26]  # jvc to move, the bag empty: Paula's withdrawn ?DEENOP left her N, which she holds
    assert t.bag_count == 0 and str(t.shown[1]) == "N"
    assert r.position(27, opponent_rack=False).racks_partial == (False, False)
    # before, with the bag holding tiles: a withdrawn bingo is the whole rack, known
    whole = r.position(21, opponent_rack=False)
    assert whole.racks_known == (True, True) and str(whole.racks[1]) == "DEENOP?"


@pytest.mark.parametrize("path", sorted(MACONDO.glob("*.gcg")), ids=lambda p: p.stem)
def test_what_is_known_is_on_the_rack_the_record_reveals(path):
    """Every rack known in part (or known from a withdrawn bingo) is part of the opponent's real rack
    whenever the record reveals it, and of the tiles the mover cannot see."""
    try:
        r = replay_file(path, strict=False)
    except RacksmithError as e:  # a fixture the replay refuses whole (its encoding...): nothing to check
        pytest.skip(str(e))
    for t in r.turns:
        pos = r.position(t.number, opponent_rack=False)
        if len(pos.racks) != 2 or not (pos.racks_partial[1] or pos.racks_known[1]):
            continue
        assert t.bag_count > 0
        if t.opponent_rack is not None:
            assert not Counter(pos.racks[1]) - Counter(t.opponent_rack), (t.number, pos.racks[1], t.opponent_rack)
        assert pos.bag_count >= 0
    r.position(None, opponent_rack=False)  # the end too


def test_some_fixture_checks_a_known_part():
    found = 0
    for path in sorted(MACONDO.glob("*.gcg")):
        try:
            r = replay_file(path, strict=False)
        except RacksmithError:
            continue
        for t in r.turns:
            pos = r.position(t.number, opponent_rack=False)
            found += len(pos.racks) == 2 and pos.racks_partial[1] and t.opponent_rack is not None
    assert found >= 8  # doug_v_emely's two records, josh2


# --- a game and a bot's view -------------------------------------------------------------------
def phony_game() -> Game:
    g = Game("english", seed=5)
    assert str(g.rack) == "FISTUWY" and str(g.racks[1]) == "AAEFNOV"
    g.play("8G FIS", check_words=False)
    assert g.challenge() is True
    return g


def test_game_view_after_a_withdrawn_phony():
    g = phony_game()
    view = GameView(g)
    seen = view.position  # the challenger's view: p1's F, I and S back on his rack
    assert seen.cgp().split()[1] == "AAEFNOV/FIS"
    assert seen.racks_partial == (False, True) and seen.rack_sizes == (7, 7) and seen.bag_count == 86
    moves = view.moves(top=3, sort="equity", exchanges=True)  # what a bot reads
    assert moves.position.racks_partial == (False, True) and str(moves.position.racks[1]) == "FIS"
    g.undo()  # the challenge taken back: the play stands, nothing is known
    assert GameView(g).position.racks_partial == (False, False)
    assert GameView(g).position.cgp().split()[1] == "AAEFNOV/"


def test_game_view_follows_the_tiles_played_and_an_exchange():
    g = phony_game()
    view = GameView(g)
    g.play(EQUITY.choose(view))  # the challenger plays
    assert view.position.racks_partial == (False, False)  # p1 to move: the challenger showed nothing
    a = g.ruleset.alphabet
    fis = Counter(a.rack("FIS"))
    # p1 plays some of the known tiles, not all: the rest stay known
    move = next(m for m in g.legal_moves() if m.is_place and 0 < len(fis & Counter(m.rack_tiles())) < 3)
    g.play(move)
    left = fis - Counter(move.rack_tiles())
    assert view.position.racks_partial == (False, True)
    assert Counter(view.position.racks[1]) == left and not left - Counter(g.racks[0])  # (he holds them)
    g.play(EQUITY.choose(view))
    g.exchange(list(g.rack)[:1])  # p1 exchanges one tile, unseen: nothing is known any more
    assert view.position.racks_partial == (False, False) and part(view.position) == ""


def test_a_withdrawn_bingo_is_the_whole_rack():
    g = Game("english", seed=5)
    g.play("8D FISTUWY", check_words=False)
    assert g.challenge() is True
    seen = GameView(g).position
    assert seen.racks_known == (True, True) and str(seen.racks[1]) == "FISTUWY" == str(g.racks[0])


def test_with_the_bag_empty_the_view_gives_no_part():
    r = replay_file(MACONDO / "josh2.gcg", strict=False)
    g = Game.from_position(r.position(26), lexicon=set())  # Paula to move, the bag empty
    assert len(g.bag) == 0
    g.play("O6 sPEEDO", check_words=False)
    assert g.challenge() is True  # no word is in an empty lexicon
    seen = GameView(g).position
    assert seen.racks_partial == (False, False) and not seen.racks[1]


def test_analyze_simulates_with_the_withdrawn_tiles_on_the_opponent_s_rack(monkeypatch):
    """``analyze --sim`` grades turn 9 (turn 7, doug's phony, is not graded) in a simulation where
    emely holds the T, I and L doug saw (her turn 8 played only a Z)."""
    from racksmith.review import analysis
    from racksmith.sim import simulate as sim_module

    seen = {}
    real = sim_module.simulate

    def spy(position, *args, **kwargs):
        seen.setdefault(position.board.tobytes() + bytes(position.racks[0]), (
            position.ruleset.alphabet.rack_string(position.racks[1]), position.racks_partial[1]))
        return real(position, *args, **kwargs)

    monkeypatch.setattr(sim_module, "simulate", spy)
    r = replay_file(DOUG, strict=False)
    turn9 = r.position(9, opponent_rack=False)
    analysis.analyze(r, top=1, endgame_seconds=None, sim={"candidates": 2, "iterations": 8, "seed": 1})
    key = turn9.board.tobytes() + bytes(turn9.racks[0])
    assert seen[key] == ("ILT", True)
    first = r.position(1, opponent_rack=False)
    assert seen[first.board.tobytes() + bytes(first.racks[0])] == ("", False)  # nothing known of emely's yet
