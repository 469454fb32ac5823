"""User rulesets of huge scores (tile values in the thousands, quadruple word squares: legal per
docs/api/ruleset.md) against the searches' fixed-width numbers: the endgame and pre-endgame search
(32-bit values below an infinity of 2**29), the simulation's play-outs (32-bit scores) and its
per-ply tallies (64-bit sums of squared scores). A position whose numbers could leave those ranges
is refused with a message naming the ruleset and what to lower (the command line: exit 1, one
line); one inside them is still solved exactly; the shipped rulesets are far inside them."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import run_cli
from racksmith import Position
from racksmith.errors import PositionError, SimError
from racksmith.lexicon import Lexicon
from racksmith.movegen.generate import play_score_bound
from racksmith.rules.ruleset import Ruleset, get_ruleset
from racksmith.search.endgame import MAX_SPREAD, MAX_VALUE, EndgameSolver, check_value_range, solve_endgame
from racksmith.search.peg import _WIDE, MAX_BAG
from racksmith.sim.simulate import (
    MAX_PLAYOUT_SCORE, MAX_SCORE, MAX_TALLY, PlyStats, check_score_range, most_playouts,
)

SHIPPED = ("english", "super", "russian", "erudit")

# --- the endgame ------------------------------------------------------------------------------------------
BIG = """name = "bigmul"
lexicon = "words.txt"
rack_size = 8
bingo_bonus = 0
start = "1A"
blanks = 0
board = ["~~~~~~~~~~", {rest}]
tiles = [["A", 9, 1000], ["B", 1, 1000], ["C", 7, 1]]
"""
BIG_CGP = "A9/10/10/10/4B5/10/10/10/10/10 CCCCCCC/AAAAAAAA 0/0 0"


def _big(tmp_path) -> Ruleset:
    """The auditor's ruleset: a row of quadruple word squares and tiles worth 1,000, so that one
    play scores 589,824,000 (within the move generator's 2**30, far past the endgame search's)."""
    (tmp_path / "words.txt").write_text("AAAAAAAAA\nBC\n")
    path = tmp_path / "big.toml"
    path.write_text(BIG.format(rest=", ".join(['".........."'] * 9)))
    return Ruleset.load(path)


def test_an_endgame_whose_value_could_pass_the_search_is_refused(tmp_path):
    """The exact value is -589,823,011 (the opponent's AAAAAAAA on the quadruple row); the search's
    32-bit values, infinity 2**29, gave +1001 (and with a rack of 9, 2**29 marked exact)."""
    rs = _big(tmp_path)
    pos = Position.from_cgp(BIG_CGP, ruleset=rs)
    assert pos.bag_count == 0 and max(m.score for m in pos.copy(stack=False).moves()) < 1 << 30
    for enter in (solve_endgame, EndgameSolver, lambda p: p.solve_endgame(plies=2)):
        with pytest.raises(PositionError) as e:
            enter(pos)
        text = str(e.value)
        assert text.startswith("the endgame search cannot hold this position's scores: on the bigmul board")
        assert f"beyond the {MAX_VALUE:,} the search holds" in text
        assert "lower the ruleset's tile values, word multipliers or rack size" in text


def test_the_endgame_command_refuses_it_in_one_line(tmp_path, capsys):
    _big(tmp_path)
    code, out, err = run_cli(capsys, "endgame", "--ruleset", tmp_path / "big.toml", "--cgp", BIG_CGP)
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "the endgame search cannot hold this position's scores" in err and "bigmul" in err


def test_the_pre_endgame_is_refused_too(tmp_path, capsys):
    """Its window edges (2**25) must lie beyond every final spread: a proven value past them was
    taken for exact."""
    rs = _big(tmp_path)
    pos = Position.from_cgp("A9/10/10/10/4B5/10/10/10/10/10 CCCCCC/ 0/0 0", ruleset=rs)
    assert pos.bag_count == 1
    with pytest.raises(PositionError, match=f"the pre-endgame search cannot hold .* beyond the {_WIDE:,}"):
        pos.solve_peg()
    code, out, err = run_cli(capsys, "peg", "--ruleset", tmp_path / "big.toml", "--cgp", pos.cgp())
    assert code == 1 and len(err.strip().splitlines()) == 1 and "pre-endgame search cannot hold" in err


def test_the_endgame_player_plays_static_equity_there(tmp_path):
    """A match's endgame player takes a position the solver refuses as it takes the others it
    refuses: it plays its static equity move (and keeps no result)."""
    from racksmith.search.player import EndgamePlayer

    rs = _big(tmp_path)
    pos = Position.from_cgp(BIG_CGP, ruleset=rs)
    player = EndgamePlayer(leaves=None, seconds=None)
    view = SimpleNamespace(bag_count=0, position=pos, lexicon=pos.lexicon, ruleset=rs, moves=pos.moves)
    move = player.choose(view)
    assert player.last is None and move == player.static.choose(view)


OK_WORDS = ["AA", "AB", "BA", "ABA", "BAA", "CAB"]


def _in_range() -> tuple[Ruleset, Lexicon]:
    """Tiles worth 1,000 (the most a file gives) and quadruple word squares: one play up to
    132,000 points, the whole endgame's inside the search's range."""
    board = ["~.....~", ".......", "..~....", "...~...", "....~..", ".......", "~.....~"]
    rs = Ruleset.from_dict({"name": "bigok", "board": board, "start": "4D", "rack_size": 3, "bingo_bonus": 0,
                            "zero_turn_limit": 2, "blanks": 0,
                            "tiles": [["A", 6, 1000], ["B", 2, 500], ["C", 4, 1]]})
    return rs, Lexicon.from_words(OK_WORDS, rs)


def _minimax(pos: Position) -> int:
    """What best play adds to the spread of the player to move: every move of every line, the
    scores as Position keeps them (Python ints)."""
    if pos.is_over:
        return 0
    best = None
    for m in pos.moves():
        before = pos.scores[0] - pos.scores[1]
        pos.push(m, trusted=True)
        v = (pos.scores[1] - pos.scores[0]) - before - _minimax(pos)
        pos.pop()
        best = v if best is None else max(best, v)
    assert best is not None
    return best


@pytest.mark.parametrize("racks", [("AAB", "AC"), ("AB", "AAC"), ("CB", "AAA")])
def test_an_endgame_of_big_scores_inside_the_range_is_solved_exactly(racks):
    rs, lex = _in_range()
    assert play_score_bound(rs, lex.longest) == 132_000
    a = rs.alphabet
    board = np.zeros((7, 7), np.uint8)
    board[3, 2:5] = a.encode("CAB")  # the rest of the tiles, out of the way: the bag is empty
    board[0, 5:7] = a.encode("AA")
    board[6, 0] = board[6, 2] = a.encode("C")[0]
    pos = Position(rs, board, (a.rack(racks[0]), a.rack(racks[1])), (200_000, 0), lexicon=lex)
    assert pos.bag_count == 0
    r = solve_endgame(pos)
    assert r.exact and r.value == _minimax(pos.copy(stack=False))
    assert r.final_spread == 200_000 + r.value
    assert abs(r.value) > 5000  # (scores far past the shipped rulesets')


def test_the_range_check_is_exact_at_its_edge():
    """The spread now + each tile to play at the most a play scores + twice their value: at the
    limit refused, one below it taken."""
    rs, lex = _in_range()
    a = rs.alphabet
    tiles = bytes(a.rack("AAB") + a.rack("AC"))
    most = len(tiles) * 132_000 + 2 * (3 * 1000 + 500 + 1)
    check_value_range(rs, lex, MAX_VALUE - most - 1, tiles)
    check_value_range(rs, lex, -(MAX_VALUE - most - 1), tiles)
    with pytest.raises(PositionError, match="bigok board"):
        check_value_range(rs, lex, MAX_VALUE - most, tiles)


@pytest.mark.parametrize("name", SHIPPED)
def test_the_shipped_rulesets_are_far_inside_the_searches_ranges(name):
    """The widest spread the searches take, both racks and the fullest bag of a pre-endgame, every
    tile of the most valuable letter, words as long as the board: still inside."""
    rs = get_ruleset(name)
    lex = SimpleNamespace(longest=max(rs.rows, rs.cols), name="any")
    top = max(range(1, len(rs.values)), key=lambda t: rs.values[t])
    tiles = bytes([top]) * (2 * rs.rack_size + min(rs.exchange_limit - 1, MAX_BAG))
    check_value_range(rs, lex, MAX_SPREAD, tiles, _WIDE)
    check_value_range(rs, lex, -MAX_SPREAD, tiles)


# --- the simulation ---------------------------------------------------------------------------------------
SIM = """name = "{name}"
lexicon = "words15.txt"
rack_size = 8
bingo_bonus = 0
start = "1B"
blanks = 0
board = ["~~~~~~~~~~~~~~~~", "................", "~~~~~~~~~~~~~~~~", "................", "~~~~~~~~~~~~~~~~",
         "................"]
tiles = {tiles}
"""
SIM_BOARD = "1A1A1A1A1A1A1A2/16/1A1A1A1A1A1A1A2/16/1A1A1A1A1A1A1A2/16"
SIM_PLAY = "1A A.A.A.A.A.A.A.A"


def _sim_ruleset(tmp_path, name: str, tiles: str) -> Ruleset:
    """Rows of quadruple word squares, A worth 1,000: a play of fifteen As scores 983,040,000."""
    (tmp_path / "words15.txt").write_text("AAAAAAAAAAAAAAA\n")
    path = tmp_path / f"{name}.toml"
    path.write_text(SIM.format(name=name, tiles=tiles))
    return Ruleset.load(path)


def test_play_outs_whose_scores_could_pass_32_bits_are_refused(tmp_path, capsys):
    """From a lead of 2**28 the play-outs' 32-bit totals wrapped: the winning play came out 0%."""
    rs = _sim_ruleset(tmp_path, "simbig3", '[["A", 60, 1000], ["C", 8, 1]]')
    pos = Position.from_cgp(f"{SIM_BOARD} AAAAAAAA/CCCCCCCC 268435456/0 0", ruleset=rs)
    with pytest.raises(SimError) as e:
        pos.simulate(plies=6, iterations=6, seed=1, moves=[SIM_PLAY, "-"], stop=None, leaves=None)
    text = str(e.value)
    assert "on the simbig3 board a play could score up to 983,552,000 points" in text
    assert "6 plies of play-outs from scores of 268,435,456 and 0 could reach" in text
    assert f"beyond the {MAX_PLAYOUT_SCORE:,} they hold: lower the scores, or lower the ruleset's tile values" in text
    code, out, err = run_cli(capsys, "sim", "-r", tmp_path / "simbig3.toml", "--cgp", pos.cgp(), "-m", SIM_PLAY,
                             "-m", "-", "-i", 6, "--seed", 1, "--stop", "none")
    lines = [line for line in err.splitlines() if not line.startswith("note:")]
    assert code == 1 and out == "" and len(lines) == 1 and "cannot simulate this position" in lines[0]


def test_the_refusal_says_how_many_plies_fit(tmp_path):
    rs = _sim_ruleset(tmp_path, "simbig2", '[["A", 60, 1000]]')
    pos = Position.from_cgp(f"{SIM_BOARD} AAAAAAAA/ 0/0 0", ruleset=rs)
    with pytest.raises(SimError, match=r"2 plies of .* simulate fewer plies \(at most 1\), or lower the ruleset's"):
        pos.simulate(plies=2, iterations=4, seed=1, moves=[SIM_PLAY], stop=None, leaves=None)


@pytest.mark.parametrize("limits", [{"iterations": 40}, {"seconds": 0.5}])
def test_a_play_gets_no_more_play_outs_than_its_squared_scores_tally_in_64_bits(tmp_path, limits):
    """Replies of 983,040,000 points: ten of their squares pass 2**63, and the tally wrapped (a
    negative variance: math domain error from sqrt). The run stops at nine, says why, and its
    figures are the exact ones (every play-out alike: the scores Position gives, deviation 0)."""
    rs = _sim_ruleset(tmp_path, "simbig2", '[["A", 60, 1000]]')
    pos = Position.from_cgp(f"{SIM_BOARD} AAAAAAAA/ 0/0 0", ruleset=rs)
    bound = play_score_bound(rs, pos.lexicon.longest)
    cap = most_playouts(bound)
    assert cap == 9 and cap * int(bound) ** 2 <= MAX_TALLY < (cap + 1) * int(bound) ** 2
    r = pos.simulate(plies=1, seed=1, moves=[SIM_PLAY], stop=None, leaves=None, **limits)
    assert (r.iterations, r.stopped) == (9, "iterations")
    assert "stopped at 9 play-outs of a play: on the simbig2 board" in r.note
    # the opponent's rack is certain (only As are left), and so are the draws
    after = Position.from_cgp(f"{SIM_BOARD} AAAAAAAA/AAAAAAAA 0/0 0", ruleset=rs)
    after.push(after.resolve(SIM_PLAY), list(rs.alphabet.rack("AAAAAAAA")))
    reply = after.moves(sort="score")[0].score
    (c,) = r.candidates
    (ply,) = c.ply_stats
    assert (ply.placements, ply.mean_score, ply.score_stdev) == (9, reply, 0.0)
    assert c.equity == pos.score(SIM_PLAY).score - reply


def test_the_sim_command_stops_there_with_a_note(tmp_path, capsys):
    _sim_ruleset(tmp_path, "simbig2", '[["A", 60, 1000]]')
    code, out, err = run_cli(capsys, "sim", "-r", tmp_path / "simbig2.toml", "--cgp", f"{SIM_BOARD} AAAAAAAA/ 0/0 0",
                             "-m", SIM_PLAY, "-i", 40, "--seed", 1, "--stop", "none", "--plies", 1, "--ply-stats")
    assert code == 0 and "9 iterations" in out and "stopped at 9 play-outs of a play" in err


def test_a_tally_row_that_cannot_be_true_has_no_deviation():
    """n * sum of squares < sum ** 2 only when a tally wrapped: not known, never sqrt of it."""
    assert math.isnan(PlyStats.from_tally(1, [0, 0, 3, 0, 30, 1]).score_stdev)
    assert PlyStats.from_tally(1, [0, 0, 3, 0, 30, 300]).score_stdev == 0.0
    assert PlyStats.from_tally(1, [1, 0, 2, 0, 30, 500]).score_stdev == pytest.approx(10.0)


@pytest.mark.parametrize("name", SHIPPED)
def test_the_shipped_rulesets_simulate_as_before(name):
    """The widest scores the play-outs take, the most plies, words as long as the board: inside
    32 bits; and more play-outs a play than any run makes."""
    rs = get_ruleset(name)
    play = play_score_bound(rs, max(rs.rows, rs.cols))
    pos = SimpleNamespace(ruleset=rs, scores=(MAX_SCORE, -MAX_SCORE), rack_sizes=(rs.rack_size, rs.rack_size))
    check_score_range(pos, 32, play)
    assert most_playouts(play) > 4 * 10**8


def test_the_sim_player_plays_static_equity_where_the_simulation_refuses(tmp_path):
    """A match's sim player on a user ruleset whose scores the play-outs cannot hold: the turn's
    move is the static equity player's (the simulation's refusal kept in ``declined``), not a
    SimError that ends the match."""
    from racksmith.sim.player import SimPlayer

    rs = _sim_ruleset(tmp_path, "simbig3", '[["A", 60, 1000], ["C", 8, 1]]')
    pos = Position.from_cgp(f"{SIM_BOARD} AAAAAAAA/CCCCCCCC 268435456/0 0", ruleset=rs)
    player = SimPlayer(candidates=3, plies=6, iterations=6, stop=None, leaves=None, ruleset=rs)
    view = SimpleNamespace(bag_count=40, position=pos, lexicon=pos.lexicon, ruleset=rs, moves=pos.moves,
                           history=[], player=0)
    move = player.choose(view)
    assert move == pos.moves(top=1, sort="equity", leaves=None, exchanges=True)[0]
    assert player.last is None and "cannot simulate this position" in player.declined
    # a position it takes clears the note
    low = Position.from_cgp(f"{SIM_BOARD} AAAAAAAA/CCCCCCCC 0/0 0", ruleset=rs)
    player = SimPlayer(candidates=2, plies=1, iterations=2, stop=None, leaves=None, ruleset=rs)
    player.declined = "before"
    player.choose(SimpleNamespace(bag_count=40, position=low, lexicon=low.lexicon, ruleset=rs, moves=low.moves,
                                  history=[], player=0))
    assert player.declined is None and player.last is not None
