"""The endgame solver's K best moves ("multi-PV", ``top=``) and the value of a chosen move
(``move=``), against the plain minimax of tests/test_endgame.py (moves from the word-driven
oracle, no pruning): every root move valued there, sorted, must give the solver's K values; the
moves must be the first K ranked by value, then by the solver's order of root moves (the tie
rule of the best move); every line must be legal and end the game with its value. Then the
command line: ``racksmith endgame --top K`` and ``--move M``."""
from __future__ import annotations

import json
from functools import lru_cache

import numpy as np
import pytest

from oracle import WordIndex
from racksmith import Position
from racksmith.errors import RacksmithError
from racksmith.lexicon import Lexicon
from racksmith.rules.ruleset import Ruleset
from racksmith.search.endgame import EndgameLine, EndgameSolver, _move, solve_endgame
from test_endgame import _INDEX, MAGPIE_ENDGAMES, lexicon, minimax, oracle_moves, random_endgame, run_cli, tiny


def _pass_then_out() -> Position:
    """tests/test_endgame.py's position where passing matters: the mover passes, the opponent
    (stuck) must pass, the mover goes out; the pass ties the placements (12)."""
    rs = Ruleset.from_dict({"name": "passv-top", "board": ["..."] * 3, "start": "2B", "rack_size": 1,
                            "bingo_bonus": 0, "tiles": [["A", 2, 1], ["B", 1, 5]]})
    _INDEX[rs.name] = WordIndex(["AA"], rs.alphabet)
    a = rs.alphabet
    board = np.zeros((3, 3), np.uint8)
    board[1, 1] = a.tile("A")
    return Position(rs, board, (a.rack("A"), a.rack("B")), lexicon=Lexicon.from_words(["AA"], rs))


def _blank_on_rack_and_board() -> Position:
    """tests/test_endgame.py's position where a play scores 0 (a blank on the rack and one on the
    board; it resets the count of scoreless turns as any placement does), and the blank makes 67
    root moves."""
    rs = tiny(zero_turn_limit=4)
    a = rs.alphabet
    board = np.zeros((6, 6), np.uint8)
    board[3, 1:4] = a.encode("SEA")
    board[3, 3] |= 0x80
    board[0, 0:5] = a.encode("TAXES")
    board[5, 0:4] = a.encode("TEAR")
    board[3:5, 5] = a.encode("EA")
    board[1, 5] = a.encode("A")[0]
    return Position(rs, board, (a.rack("?T"), a.rack("R")), lexicon=lexicon(rs))


#: small endgames whose every root move the minimax values in well under a second
CASES = {
    "blank on a rack": lambda: random_endgame(tiny(zero_turn_limit=2), 2, 0, 1),
    "the pass is best": lambda: random_endgame(tiny(zero_turn_limit=2), 9, 0, 1),
    "many ties": lambda: random_endgame(tiny(zero_turn_limit=3, blanks=1), 8, 1, 0),
    "passes reduced, two made": lambda: random_endgame(tiny(rack_size=4, size=7), 9, 2, 2),
    "blank on rack and board": _blank_on_rack_and_board,
    "pass ties the placements": _pass_then_out,
}


@lru_cache(maxsize=None)
def case(name: str) -> tuple[Position, dict[str, int]]:
    """The position and the minimax value of each of its root moves (by notation)."""
    pos = CASES[name]()
    assert pos is not None
    memo: dict = {}
    before = pos.scores[0] - pos.scores[1]
    values = {}
    for m in oracle_moves(pos):
        after = pos.copy(stack=False)
        after.push(m, trusted=True)
        rest = 0 if after.is_over else minimax(after, memo, 20_000)
        values[m.notation()] = (after.scores[1] - after.scores[0]) - before - rest
    return pos, values


def test_the_cases_cover_blanks_passes_and_ties():
    """Not vacuous: a blank on a rack, a pass that is the best move, tied values, a count of
    scoreless turns already made."""
    def racks_hold_blank(pos):
        return 0 in pos.racks[0] or 0 in pos.racks[1]

    pos, values = case("blank on a rack")
    assert racks_hold_blank(pos)
    pos, values = case("the pass is best")
    assert values["-"] == max(values.values()) and len(values) > 5
    pos, values = case("many ties")
    assert len(values) - len(set(values.values())) >= 10
    pos, values = case("passes reduced, two made")
    assert pos.zero_turns == 2
    pos, values = case("pass ties the placements")
    assert values["-"] == max(values.values()) == 12 and sum(v == 12 for v in values.values()) > 1
    pos, values = case("blank on rack and board")
    assert racks_hold_blank(pos) and len(values) > 60


def check_line(pos: Position, line: EndgameLine) -> None:
    """The line starts with its move, is legal, and ends the game with its value."""
    assert line.exact and line.pv[0] == line.move
    p = pos.copy(stack=False)
    for m in line.pv:
        p.push(m)  # checked
    assert p.is_over, (pos.cgp(), [m.notation() for m in line.pv])
    sign = 1 if len(line.pv) % 2 == 0 else -1
    assert sign * (p.scores[0] - p.scores[1]) - (pos.scores[0] - pos.scores[1]) == line.value


@pytest.mark.parametrize("name", list(CASES))
def test_the_k_best_values_are_the_minimax_values_of_every_root_move_sorted(name):
    pos, values = case(name)
    solver = EndgameSolver(pos)
    order = [_move(rec, pos.ruleset, pos.board).notation() for rec in solver.root]
    assert sorted(order) == sorted(values)  # the same root moves as the oracle's
    ranked = sorted(order, key=lambda n: (-values[n], order.index(n)))
    single = solve_endgame(pos)
    for k in (1, 3, len(values)):
        seen = None
        for threads in (1, 2):
            r = solve_endgame(pos, threads=threads, top=k)
            assert r.exact
            got = [(line.move.notation(), line.value) for line in r.top]
            assert got == [(n, values[n]) for n in ranked[:k]], (name, k, threads)
            assert seen is None or got == seen  # threads change nothing
            seen = got
            for line in r.top:
                check_line(pos, line)
            # the best is the one of top=1, with its value and line
            assert (r.value, r.best, r.pv) == (single.value, single.best, single.pv) == (
                r.top[0].value, r.top[0].move, r.top[0].pv)


@pytest.mark.parametrize("name", list(CASES))
def test_one_deep_search_in_the_order_of_scores_finds_the_k_best(name):
    """The kernel at one depth past every end of the game, with a fresh table: the root moves come
    in the order of their estimates (score and tiles), not of their values, so most of the K best
    are found by windows that fail high and are searched again (iterative deepening, above, puts
    them first). The same K values and moves, whatever ``first`` and the threads."""
    pos, values = case(name)
    solver = EndgameSolver(pos)
    order = [_move(rec, pos.ruleset, pos.board).notation() for rec in solver.root]
    ranked = sorted(order, key=lambda n: (-values[n], order.index(n)))
    worst = order.index(ranked[-1])
    for k in (2, 4, len(order)):
        for threads, first in ((1, -1), (2, -1), (1, worst)):
            s = EndgameSolver(pos).search
            assert s is not None
            found = s.search(100, 0.0, threads, first, k)
            assert found is not None and found["exact"]
            got = [(order[idx], value) for idx, value, _, exact in found["top"]]
            assert got == [(n, values[n]) for n in ranked[:k]], (name, k, threads, first)
            assert all(exact for *_, exact in found["top"])
            if first >= 0:
                assert found["first_value"] == values[ranked[-1]]


@pytest.mark.parametrize("name", ["the pass is best", "many ties", "blank on rack and board"])
def test_a_chosen_move_gets_the_minimax_value(name):
    pos, values = case(name)
    worst = min(values, key=values.get)
    for notation in {worst, "-", max(values, key=values.get), sorted(values)[len(values) // 2]}:
        for top in (1, 3):
            r = solve_endgame(pos, move=notation, top=top)
            assert r.move_value == values[notation], (name, notation, top)
            assert r.value == max(values.values())


def test_top_one_is_the_plain_search_node_for_node():
    """``top=1`` is the search as it was (the kernel called without ``top``): the same nodes at
    every depth, the same value and line; and through EndgameSolver."""
    from racksmith.lexicon import load_lexicon

    record = next(r for r in MAGPIE_ENDGAMES if r["id"] == "selfplay_seed3_10tiles")
    positions = [Position.from_cgp(record["cgp"], "english", lexicon=load_lexicon("ENABLE")),
                 case("many ties")[0], case("blank on rack and board")[0]]
    for pos in positions:
        plain, one = EndgameSolver(pos), EndgameSolver(pos)
        assert plain.search is not None and one.search is not None
        for depth in range(1, 30):
            a = plain.search.search(depth)
            b = one.search.search(depth, 0.0, 1, -1, 1)
            assert a is not None and b is not None
            assert (a["nodes"], a["value"], a["best"], a["exact"]) == (b["nodes"], b["value"], b["best"], b["exact"])
            assert a["pv"].tobytes() == b["pv"].tobytes()
            assert len(b["top"]) == 1 and b["top"][0][0] == b["best"]
            if a["exact"]:
                break
        x, y = EndgameSolver(pos).solve(), EndgameSolver(pos).solve(top=1)
        assert (x.nodes, x.value, x.pv) == (y.nodes, y.value, y.pv)
        assert y.top == (EndgameLine(y.best, y.value, y.pv, True),)


def test_top_is_checked_and_more_than_there_are_is_all():
    pos, values = case("the pass is best")
    for bad in (0, -1, True, 1.5, "2", None):
        with pytest.raises(RacksmithError, match="top must be a whole number"):
            solve_endgame(pos, top=bad)
        with pytest.raises(RacksmithError, match="top must be a whole number"):
            EndgameSolver(pos).solve(top=bad)
    r = solve_endgame(pos, top=10_000)
    assert len(r.top) == len(values)
    # the JSON shape: "top" only when more than one was asked for
    assert "top" not in solve_endgame(pos).to_dict()
    d = json.loads(json.dumps(solve_endgame(pos, top=2).to_dict()))
    assert [e["move"] for e in d["top"]] == [line.move.notation() for line in solve_endgame(pos, top=2).top]
    assert set(d["top"][0]) == {"move", "value", "pv", "exact", "line", "ending", "final_scores", "final_spread"} and d["top"][0]["move"] == d["best"]
    assert d["top"][0]["pv"] == d["pv"]


def test_a_game_that_is_over_has_no_lines():
    pos, _ = case("many ties")
    over = Position(pos.ruleset, pos.board, (pos.racks[0], pos.racks[1]), pos.scores, pos.ruleset.zero_turn_limit,
                    lexicon=pos.lexicon)
    r = solve_endgame(over, top=3)
    assert (r.best, r.top, r.to_dict()["top"]) == (None, (), [])


# --- the command line -------------------------------------------------------------------------------
SEED8 = next(r for r in MAGPIE_ENDGAMES if r["id"] == "selfplay_seed8_9tiles")["cgp"]


@lru_cache(maxsize=None)
def seed8() -> Position:
    from racksmith.lexicon import load_lexicon

    return Position.from_cgp(SEED8, "english", lexicon=load_lexicon("ENABLE"))


def test_cli_endgame_top_prints_the_k_best_and_their_json(capsys):
    expected = solve_endgame(seed8(), top=4)
    assert expected.exact
    code, out, err = run_cli(capsys, "endgame", SEED8, "--lexicon", "ENABLE", "--top", "4", "--quiet")
    assert code == 0 and err == ""
    rows = [line.split("│") for line in out.splitlines() if "│" in line]
    assert [row[0].strip() for row in rows] == ["1", "2", "3", "4"]
    assert [(row[1].strip(), int(row[2]), row[3].strip(), row[4].strip()) for row in rows] == [
        (line.move.notation(), line.value, "yes", " ".join(m.notation() for m in line.pv)) for line in expected.top]
    assert f"best {expected.best.notation()}  value {expected.value:+d} (exact)" in out
    code, out, err = run_cli(capsys, "endgame", SEED8, "--lexicon", "ENABLE", "-n", "4", "--json", "--quiet")
    assert code == 0
    d = json.loads(out)
    assert d["top"] == [line.to_dict() for line in expected.top] and d["best"] == d["top"][0]["move"]
    # --top 1: the list of one, as asked (a script passing its K through read no "top" at K = 1)
    code, out, err = run_cli(capsys, "endgame", SEED8, "--lexicon", "ENABLE", "--top", "1", "--json", "--quiet")
    assert code == 0 and json.loads(out)["top"] == [expected.top[0].to_dict()]
    # without --top the JSON keeps its shape
    code, out, err = run_cli(capsys, "endgame", SEED8, "--lexicon", "ENABLE", "--json", "--quiet")
    assert set(json.loads(out)) == {"value", "exact", "depth", "best", "pv", "nodes", "seconds", "line", "ending", "final_scores", "final_spread"}


def test_cli_endgame_move_values_a_play_against_the_best(capsys):
    pos = seed8()
    best = solve_endgame(pos)
    r = solve_endgame(pos, move="-")
    loses = best.value - r.move_value
    assert loses > 0
    code, out, err = run_cli(capsys, "endgame", SEED8, "--lexicon", "ENABLE", "--move", "pass", "--quiet")
    assert code == 0 and err == ""
    assert f"-: {r.move_value:+d}, loses {loses} against the best {best.best.notation()} {best.value:+d}\n" in out
    code, out, err = run_cli(capsys, "endgame", SEED8, "--lexicon", "ENABLE", "-m", "-", "--top", "2", "--json", "-q")
    d = json.loads(out)
    assert d["move"] == {"move": "-", "value": r.move_value, "loses": loses} and len(d["top"]) == 2
    # the best move itself loses nothing
    code, out, err = run_cli(capsys, "endgame", SEED8, "--lexicon", "ENABLE", "--move", best.best.notation(), "-q")
    assert code == 0 and f"{best.best.notation()}: {best.value:+d}, loses 0 against the best" in out


@pytest.mark.parametrize("args, code, words", [
    (["--move", "zz"], 1, "bad move 'zz'"),
    (["--move", "8D QUIRK"], 1, "square 8D"),  # a play that reads, but not on this board
    (["--move", "1A DJ"], 1, "not a legal move"),
    (["--top", "0"], 2, "--top"),
    (["--top", "many"], 2, "--top"),
])
def test_cli_endgame_bad_top_or_move_is_one_line(capsys, args, code, words):
    got, out, err = run_cli(capsys, "endgame", SEED8, "--lexicon", "ENABLE", "--quiet", *args)
    lines = err.strip().splitlines()
    assert (got, out) == (code, "") and len(lines) == 1 and words in lines[0], err
