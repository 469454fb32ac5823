"""The opening on boards that are not their own transpose: the down plays through the start square
are moves of their own there, and every path that generates moves lists them (the oracle, both
algorithms, the best N with and without word maps, the kernel's game loop, the simulation and the
inference). On the shipped rulesets the opening keeps listing the across plays only."""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement
from pathlib import Path

import numpy as np
import pytest

from oracle import WordIndex, oracle_placements
from racksmith import Position
from racksmith.lexicon import load_leaves, load_lexicon
from racksmith.movegen._movegen import Rules, Tables
from racksmith.play import _gameloop
from racksmith.rules.ruleset import Ruleset, available_rulesets, get_ruleset
from racksmith.rules.symmetry import opening_across_only
from racksmith.sim.infer import infer_leaves

SYNTH = Path(__file__).parent / "fixtures" / "SYNTH.klv2"
ENGLISH = get_ruleset("english")


def _english(name: str, premiums: dict[tuple[int, int], str] | None = None, board: list[str] | None = None,
             start: str | None = None) -> Ruleset:
    """English tiles and rules on another board: a plain 15x15 one with ``premiums`` ((row, col) ->
    legend character), or ``board``; ``start`` (default 8H)."""
    d = ENGLISH.to_dict()
    d["name"] = name
    d["aliases"] = []
    if board is None:
        rows = [["."] * 15 for _ in range(15)]
        for (r, c), ch in (premiums or {}).items():
            rows[r][c] = ch
        board = ["".join(r) for r in rows]
    d["board"] = board
    if start is not None:
        d["start"] = start
    return Ruleset.from_dict(d)


# one triple word at 5H: the premiums are not symmetric about the diagonal (the audit's board)
ASYM = _english("asym", {(4, 7): "="})
# triple words at 5H and 11H: a down play through both is worth 9 times, far more than any across
TWIN = _english("twin", {(4, 7): "=", (10, 7): "="})
# the shipped board, the start off the diagonal (8G)
OFF_DIAGONAL = _english("off_diagonal", board=ENGLISH.layout(), start="8G")
# 15 rows of 3 columns: across plays of 3 letters at most, down plays of up to 15
NARROW = _english("narrow", board=["..."] * 15, start="8B")
USER_BOARDS = {"asym": ASYM, "twin": TWIN, "off_diagonal": OFF_DIAGONAL, "narrow": NARROW}
EMPTY = {name: np.zeros((rs.rows, rs.cols), np.uint8) for name, rs in USER_BOARDS.items()}


@lru_cache(maxsize=None)
def _lexicon(name: str):
    return load_lexicon("enable", USER_BOARDS[name])


@lru_cache(maxsize=None)
def _index():
    return WordIndex(_lexicon("asym").words(), ENGLISH.alphabet)


def _opening(name: str, rack: str) -> Position:
    rs = USER_BOARDS[name]
    return Position(rs, EMPTY[name], (rs.alphabet.rack(rack), ()), lexicon=_lexicon(name))


def _placements(position, algorithm: str):
    return sorted((m.row, m.col, "H" if m.across else "V", m.word, m.score)
                  for m in position.moves(algorithm=algorithm) if m.is_place)


def test_the_shortcut_is_taken_exactly_on_boards_that_are_their_own_transpose():
    for rs in available_rulesets():
        assert opening_across_only(rs), rs.name
    assert opening_across_only(_english("plain"))  # no premium at all: symmetric
    assert opening_across_only(_english("diagonal", {(3, 3): "~", (11, 11): "'"}))  # premiums on the diagonal
    for name, rs in USER_BOARDS.items():
        assert not opening_across_only(rs), name
    # square premiums that are symmetric, a square start off the diagonal's middle but on it: the shortcut
    assert opening_across_only(_english("corner", board=ENGLISH.layout(), start="1A"))


@pytest.mark.parametrize("name", list(USER_BOARDS))
@pytest.mark.parametrize("rack", ["AEINRST", "CDEIOU?", "BJKQVXZ"])
def test_opening_oracle_equals_gaddag_equals_dawg(name, rack):
    pos = _opening(name, rack)
    expected = sorted(oracle_placements(pos, _index()))
    assert _placements(pos, "gaddag") == expected
    assert _placements(pos, "dawg") == expected
    if rack != "BJKQVXZ":
        assert any(d == "V" for _, _, d, _, _ in expected)  # the down plays are there


def test_opening_audit_cases():
    moves = _opening("asym", "AEINRST").moves()
    best = moves[0]
    assert (best.score, best.across) == (71, False)  # through the triple word at 5H: down
    nastier = [m for m in moves if m.notation() == "H5 NASTIER"]
    assert len(nastier) == 1 and nastier[0].score == 71
    assert _opening("asym", "AEINRST").validate("H5 NASTIER").score == 71
    narrow = _opening("narrow", "AEINRST")
    listed = [m for m in narrow.moves() if m.notation() == "B5 NASTIER"]
    assert len(listed) == 1 and listed[0].score == narrow.validate("B5 NASTIER").score == 57


@pytest.mark.parametrize("name", list(USER_BOARDS))
@pytest.mark.parametrize("rack", ["AEINRST", "EEIOU??"])
def test_opening_best_n_equals_the_head_of_every_move(name, rack):
    """The best N (shadow playing, with and without the word maps, both algorithms) are the first
    N of the full ranking, by score and by equity."""
    rs = USER_BOARDS[name]
    lexicon = _lexicon(name)
    leaves = load_leaves(SYNTH, rs)
    from racksmith.movegen._movegen import LeaveTable

    rk = bytes(sorted(rs.alphabet.rack(rack)))
    not_on_racks = rs.total_tiles - len(rk)
    for wordmap in (True, False):
        tables = Tables(Rules(lexicon, rs, wordmap=wordmap), LeaveTable(leaves))
        for by_equity in (True, False):
            for gaddag in (True, False):
                full, _ = tables.generate(EMPTY[name], rk, not_on_racks, 0, 0, by_equity, rs.exchange_limit, 3, gaddag)
                for top in (1, 5, 40):
                    best, _ = tables.generate(EMPTY[name], rk, not_on_racks, 0, top, by_equity, rs.exchange_limit, 3,
                                              gaddag)
                    assert best.tobytes() == full[:top].tobytes(), (wordmap, by_equity, gaddag, top)
        assert any(full["dir"][full["kind"] == 0] == 1)


@pytest.mark.parametrize("name", ["twin", "narrow", "asym"])
def test_game_loop_opening_is_the_best_placement(name):
    """The kernel's game loop (score players) opens with a placement of the oracle's best score for
    the first rack: down, on these boards, more often than not."""
    rs = USER_BOARDS[name]
    out = _gameloop.play_games(Rules(_lexicon(name), rs), [("score", None), ("score", None)], 11, 0, 4, log=True,
                               rows=True, check=True)
    assert out["n_violations"] == 0
    rows = out["turn_rows"]
    starts = [0, *out["log_end"][:-1]]
    down = 0
    for game, first in enumerate(starts):
        rec = out["log"][first]
        row = np.flatnonzero((rows["game"] == game) & (rows["turn"] == 1))[0]
        rack = [t for t, k in enumerate(rows["rack"][row]) for _ in range(int(k))]
        pos = Position(rs, EMPTY[name], (rs.alphabet.tiles(rack), ()), lexicon=_lexicon(name))
        best = max(p[4] for p in oracle_placements(pos, _index()))
        assert (int(rec["kind"]), int(rec["score"])) == (0, best), game
        down += int(rec["dir"]) == 1
    assert down >= 2


def test_simulation_candidates_are_the_down_plays():
    """On the twin board the best openings by static equity are the down plays through both triple
    words: the simulation's candidates."""
    result = _opening("twin", "AEINRST").simulate(candidates=4, plies=1, iterations=40, seed=3, leaves=None)
    assert len(result.candidates) == 4
    for c in result.candidates:
        assert c.move.is_place and not c.move.across and c.move.col == 7, c.move.notation()


def test_inference_after_a_down_opening():
    """The leaves inferred after a down opening on the twin board are exactly those for which it
    was a best play (checked through Position.moves, which the oracle holds right here), and some
    are ruled out by a down play worth more."""
    rs = TWIN
    lexicon = _lexicon("twin")
    a = rs.alphabet
    after = np.zeros((15, 15), np.uint8)
    for i, ch in enumerate("KNAR"):
        after[4 + i, 7] = a.tile(ch)  # H5 KNAR: (5 + 1 + 1 + 1) x 3 = 24
    pos = Position(rs, after, (a.tiles([]), a.tiles([])), (0, 24), lexicon=lexicon, racks_known=(False, False))
    inf = infer_leaves(pos, "H5 KNAR", leaves=SYNTH)
    kept = {str(x.leave) for x in inf.leaves}
    leaves = load_leaves(SYNTH, rs)
    unseen = np.bincount(list(pos.unseen_tiles()), minlength=64)
    checked = ruled_out_down = 0
    for leave in list(combinations_with_replacement(range(27), 3))[::37]:
        if any(unseen[t] < leave.count(t) for t in leave):
            continue
        rack = sorted([*a.rack("AKNR"), *leave])
        before = Position(rs, None, (a.tiles(rack), a.tiles([])), lexicon=lexicon)
        best = before.moves(top=1, sort="equity", leaves=leaves, exchanges=True)[0]
        expected = 24 + leaves.value_tiles(list(leave)) + 5 >= best.equity - 1e-9
        assert (str(a.tiles(sorted(leave))) in kept) == expected, (a.tiles(leave), best.notation())
        checked += 1
        ruled_out_down += not expected and best.is_place and not best.across
    assert checked > 30
    assert ruled_out_down > 0


# --- the down plays of an opening listed across only ------------------------------------------------
def _mirror(m):
    return (m.col, m.row, not m.across, m.tiles, m.score, None if m.equity is None else round(m.equity, 6))


@pytest.mark.parametrize("name, rack", [("english", "AEINRST"), ("english", "DEJNPR?"), ("super", "QUIZ?ES")])
@pytest.mark.parametrize("algorithm", ["gaddag", "dawg"])
def test_the_down_plays_of_a_symmetric_opening_are_the_across_plays_mirrored(name, rack, algorithm):
    """direction="down" on a board that lists its opening across only: every down play (it listed
    only the pass), the mirror of each across play with its score and equity, in rank order."""
    pos = Position.empty(name, rack)
    assert opening_across_only(pos.ruleset)
    leaves = load_leaves(name)
    across = pos.moves(direction="across", sort="equity", leaves=leaves, algorithm=algorithm)
    down = pos.moves(direction="down", sort="equity", leaves=leaves, algorithm=algorithm)
    places = [m for m in down if m.is_place]
    assert len(places) == sum(m.is_place for m in across) > 100 and all(not m.across for m in places)
    assert sorted(_mirror(m) for m in places) == sorted((m.row, m.col, m.across, m.tiles, m.score, round(m.equity, 6))
                                                       for m in across if m.is_place)
    assert [m.equity for m in down] == sorted((m.equity for m in down), reverse=True)
    top = pos.moves(top=5, direction="down", sort="equity", leaves=leaves, algorithm=algorithm)
    assert list(top) == list(down)[:5]
    assert all(pos.validate(m).legal for m in places[:20])
    # both directions: the across plays only, as MAGPIE and wolges list them
    assert list(pos.moves(sort="equity", leaves=leaves, algorithm=algorithm)) == list(across)


def test_analysis_ranks_a_down_opening_as_its_mirror():
    """A game opened down (H5 PEND) was 'not a legal move here (a phony?)', unranked."""
    from racksmith import Game
    from racksmith.review.analysis import analyze
    from racksmith.review.replay import replay_text

    def first_turn(opening: str):
        g = Game("english", seed=3)
        assert str(g.position.racks[0]) == "DEJNPRR"
        g.play(opening)
        return analyze(replay_text(g.gcg())).turns[0]

    turn, across = first_turn("H5 PEND"), first_turn("8E PEND")
    assert turn.note == "" and turn.played == "H5 PEND"
    assert (turn.rank, turn.played_equity, turn.equity_lost) == (across.rank, across.played_equity, across.equity_lost)
    assert turn.rank is not None


def test_simulation_of_a_down_opening_asked_for():
    from racksmith.sim.simulate import simulate

    pos = Position.empty("english", "DEJNPRR")
    res = simulate(pos, moves=["H5 PEND", "8E PEND"], iterations=200, plies=1, seed=1, stop=None, leaves="english")
    got = {c.move.notation(): c for c in res.candidates}
    assert set(got) == {"H5 PEND", "8E PEND"} and got["H5 PEND"].static_equity == got["8E PEND"].static_equity
