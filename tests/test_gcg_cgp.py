"""``racksmith gcg cgp --hide-opponent-rack``: the position before a turn as the player to move saw
it. Without the option the CGP carries the opponent's rack whenever the record reveals it (a
self-play record shows every rack), and ``sim``, ``best`` and ``peg`` then take it as known, so
they answered otherwise than ``analyze --sim``, which hides it."""
from __future__ import annotations

import json

from conftest import FIXTURES

from racksmith.core.position import Position
from conftest import run_cli as run

GAME = FIXTURES / "gcg" / "game01_seed1.gcg"


def cgp_of(capsys, *args) -> str:
    code, out, err = run(capsys, "gcg", "cgp", GAME, *args)
    assert code == 0 and err == "", err
    return out.strip()


def test_the_opponent_s_rack_is_left_out_when_asked(capsys):
    shown = cgp_of(capsys, "--turn", "5")
    hidden = cgp_of(capsys, "--turn", "5", "--hide-opponent-rack")
    assert shown.split()[1] == "AHIIJSV/DEEFGR?"  # the record reveals p2's rack: written
    assert hidden.split()[1] == "AHIIJSV/"  # left out: empty, as a CGP writes a rack not known
    assert hidden.split()[0] == shown.split()[0] and hidden.split()[2:] == shown.split()[2:]
    seen, full = Position.from_cgp(hidden), Position.from_cgp(shown)
    assert list(seen.racks_known) == [True, False] and list(full.racks_known) == [True, True]
    assert seen.rack_sizes == full.rack_sizes and seen.bag_count == full.bag_count  # the tiles still counted right
    code, out, _ = run(capsys, "gcg", "cgp", GAME, "--turn", "5", "--hide-opponent-rack", "--json")
    assert code == 0 and json.loads(out) == {"turn": 5, "cgp": hidden}
    # the end of the game: the racks the last lines give, the opponent's left out too
    assert cgp_of(capsys, "--hide-opponent-rack").split()[1] == "R/"


def test_best_draws_the_hidden_rack_and_takes_a_revealed_one_as_known(capsys):
    answers = {}
    for name, extra in (("shown", ()), ("hidden", ("--hide-opponent-rack",))):
        cgp = cgp_of(capsys, "--turn", "5", *extra)
        code, out, err = run(capsys, "best", cgp, "--seconds", "0.2", "--seed", "1", "--json", "--quiet")
        assert code == 0, err
        answers[name] = json.loads(out)
    assert answers["shown"]["method"] == answers["hidden"]["method"] == "sim"
    assert answers["shown"]["result"]["opponent_rack"] == "known"
    assert answers["hidden"]["result"]["opponent_rack"] == "unseen"  # drawn from the unseen tiles, as analyze does


def test_with_the_bag_empty_the_hidden_rack_is_the_unseen_tiles(capsys):
    """What the option's help says: with the bag empty, his rack is known all the same."""
    hidden = cgp_of(capsys, "--turn", "21", "--hide-opponent-rack")
    assert hidden.split()[1] == "DEEILRT/"
    values = []
    for cgp in (cgp_of(capsys, "--turn", "21"), hidden):
        code, out, err = run(capsys, "endgame", cgp, "--json")
        assert code == 0, err
        d = json.loads(out)
        values.append((d["value"], d["best"], d["exact"]))
    assert values[0] == values[1] == (16, "N12 TREE", True)


def test_the_help_says_why(capsys):
    code, out, _ = run(capsys, "gcg", "cgp", "--help")
    text = " ".join(out.replace("│", " ").split())
    assert code == 0 and "--hide-opponent-rack" in text
    assert "as the player to move saw it" in text and "take his rack as known" in text
