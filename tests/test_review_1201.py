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
