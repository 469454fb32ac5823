"""What a review of the day's changes (2026-12-01) found, each failing before its fix:

- a position taken from a move list (``MoveList.position``, ``Move.position``) carried the racks
  its source had counted since the list was made: showing such a rack took off a penalty its scores
  never had;
- ``Move.pass_()`` (no alphabet) was not found in a Russian move list once moves compared alphabets;
- an exchange with a letter between C and H (``-CHE``, sorted C, E, H) got no CH hint;
- the endgame player of a ruleset whose endgames the solver refuses played static equity without
  a word (``match`` said nothing; ``best`` and ``analyze`` say why);
- the page's count of a hidden rack was dropped when the other (known) rack was edited after it.
"""
from __future__ import annotations

import json
import sys

import pytest

from conftest import run_cli as run
from racksmith import Game, Position, get_ruleset
from racksmith.core.move import Move
from racksmith.search.endgame import endgame_refusal
from racksmith.search.player import EndgamePlayer
from racksmith.web import Analyzer

BOARD3 = "13J1/13E1/8GRUBBER/11u1Z1/11G3/7KRYOLITE/11E3/6VAW1URINE/7DEEPS3/15/15/15/15/15/15"


def test_a_move_lists_position_counts_a_rack_shown_from_its_own_scores():
    pos = Position.from_cgp(f"{BOARD3} AEHNNTT/ 106/164 6")  # a finished game, cat's rack not counted
    ml = pos.moves()
    pos.racks[1] = "AINNSTQ"  # counted on the source: 16 off
    assert pos.scores == [106, 148]
    copy = ml.position.copy()
    copy.racks[1] = "AINNSTV"  # counted on the snapshot's scores (164): 10 off
    assert copy.scores == [106, 154]
    fresh = Position.from_cgp(f"{BOARD3} AEHNNTT/ 106/164 6")
    fresh.racks[1] = "AINNSTV"
    assert copy.scores == fresh.scores


def test_a_pass_with_no_alphabet_is_found_in_a_russian_move_list():
    ml = Game("russian", seed=1).legal_moves()
    assert Move.pass_() in ml and ml.index(Move.pass_()) == ml.index("-")
    english = Move.parse("8H CAT")
    assert english != Move.parse("8H ВАТ", "russian")  # (letters given: other letters, other moves)


def test_an_exchange_with_a_letter_between_c_and_h_gets_the_ch_hint():
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from test_digraphs import EMPTY, ES

    pos = Position.from_cgp(f"{'/'.join(EMPTY)} A[CH]IE[RR]S/ 0/0 0", ES)
    assert "(CH without brackets is separate tiles (C and H): write [CH] for the tile)" in pos.validate("-CHE").message
    assert "without brackets" not in pos.validate("-AEI").message or pos.validate("-AEI").legal


@pytest.fixture(scope="module")
def supstar(tmp_path_factory):
    d = get_ruleset("super").to_dict()
    d.pop("aliases", None)
    d.update(name="supstar", title="supstar", star_reclamation=True)
    path = tmp_path_factory.mktemp("rs") / "supstar.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    return path


def test_the_endgame_player_says_why_it_plays_static_equity(supstar, capsys):
    rs = get_ruleset(str(supstar))
    why = endgame_refusal(rs)
    assert why is not None and "star reclamation on a board of 441 squares" in why
    assert endgame_refusal(get_ruleset("erudit")) is None and endgame_refusal(get_ruleset("english")) is None
    code, _, err = run(capsys, "match", "--p1", "endgame:seconds=1", "--p2", "equity", "-r", supstar, "-n", "2", "--json")
    assert code == 0
    assert "note: p1 (endgame:seconds=1) plays static equity with the bag empty too: star reclamation" in err
    # the player itself keeps the reason of the last position it could not search
    game = Game(rs, seed=3)
    player = EndgamePlayer(leaves=None, ruleset=rs, seconds=1)
    while not game.over and game.bag_count:
        game.play(game.legal_moves()[0] if game.legal_moves() else "-")
    assert not game.over  # (the bag empty, the game on: an endgame to search)
    from racksmith.play.players import GameView

    player.choose(GameView(game))
    assert player.last is None and player.declined is not None and "441 squares" in player.declined


def test_a_known_rack_edited_after_a_count_keeps_the_count():
    api = Analyzer("english")
    board = "TAJ4P7/2E4O7/1DrOOLiNG6/2K4D7/2E1U10/1FRANC9/4C10/3WIFTY7/2VENA9/4U10/4S10/15/15/15/15"
    base = f"{board} /ABDNOPU 104/152 6"
    r = api.position({"cgp": f"{board} GIILQTZ/ABDNOPE 104/152 6", "counting": base})
    assert r.get("counted") is True and r["scores"] == [78, 152] and r["racks"][1] == "ABDENOP"


# --- what a performance check of the day's changes found ---------------------------------------------------
def test_a_pickled_list_of_moves_holds_their_position_once():
    """Each move's ``position`` became a copy made on access, and pickle read it through the
    property: 379 moves pickled 379 positions (9.6 times the bytes, 12 times slower)."""
    import pickle

    from racksmith.core.move import _POSITION_SLOT

    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0")
    moves = list(pos.moves())
    data = pickle.dumps(moves)
    assert len(moves) > 300 and len(data) < 40_000
    back = pickle.loads(data)
    assert back == moves and _POSITION_SLOT.__get__(back[0], Move) is _POSITION_SLOT.__get__(back[1], Move)
    assert back[5].position.cgp() == pos.cgp() and back[5].position is not back[6].position


def test_a_views_history_makes_no_copy_of_a_moves_position(monkeypatch):
    """GameView.history read each move's ``position`` (a copy now) to see which racks it shows:
    1.7 times slower. It reads what the move keeps."""
    from racksmith.core import move as move_module
    from racksmith.play.players import BestEquityPlayer, GameView

    game = Game("english", seed=3)
    bot = BestEquityPlayer(leaves=None)
    for _ in range(6):
        game.play(bot.choose(GameView(game)))
    seen = GameView(game).history

    def copied(*a, **k):
        raise AssertionError("a copy of a move's position was made")

    monkeypatch.setattr(move_module, "_snapshot_position", copied)
    assert GameView(game).history == seen


def test_the_bound_of_a_play_is_worked_out_once_a_ruleset():
    from racksmith.movegen.generate import play_score_bound

    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0")
    pos.simulate(iterations=1, candidates=2, plies=1, seed=1)
    before = play_score_bound.cache_info().hits
    pos.simulate(iterations=1, candidates=2, plies=1, seed=1)
    assert play_score_bound.cache_info().hits > before


def test_a_sim_player_of_more_stars_than_the_play_outs_take_back_plays_static_equity(tmp_path, capsys):
    """Star reclamation with ten blanks: the simulation refuses every position of the ruleset. A
    match's sim player said so as a SimError that ended the match; it now plays static equity, and
    the match says so before the games."""
    d = get_ruleset("english").to_dict()
    d.pop("aliases", None)
    d.update(name="stars10", title="stars10", star_reclamation=True, blanks=10)
    path = tmp_path / "stars10.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    code, out, err = run(capsys, "match", "--p1", "sim:candidates=3,iterations=4,plies=1", "--p2", "equity",
                         "-r", path, "-n", "2", "--seed", "1", "--json")
    assert code == 0 and json.loads(out)["games"] == 2
    assert ("note: p1 (sim:candidates=3,iterations=4,plies=1) plays static equity at every turn: the simulation "
            "takes stars back from a set of at most 8 blanks, and ruleset stars10 has 10") in err
