"""BoardState: a board kept up to date line by line. After any sequence of placements put down and
taken back, its cross-sets, cross-scores, adjacency and run data equal a full recompute of the same
tiles (on every shipped ruleset, 21x21 included, and on made-up boards from 2x2 to 26x26, with and
without the GADDAG's run data), and the moves it generates equal those of the stateless
Tables.generate on the same board."""
from __future__ import annotations

import copy
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle import FIXTURES, load_fixture_positions
from racksmith.core.position import Position
from racksmith.lexicon import Leaves, Lexicon, load_lexicon
from racksmith.movegen._movegen import BoardState, LeaveTable, Rules, Tables
from racksmith.rules.alphabet import BLANK, THROUGH
from racksmith.rules.ruleset import Ruleset, get_ruleset

ARRAYS = ("tiles", "cross", "xscore", "adj", "run_node", "run_sum", "lext", "rext")


@pytest.fixture(scope="module")
def worlds():
    """(ruleset, lexicon, leaves or None) of every shipped ruleset."""
    enable = {rs: Lexicon.load(FIXTURES / "ENABLE15.kwg", rs) for rs in ("english", "super")}
    return {
        "english": (get_ruleset("english"), enable["english"], Leaves.load(FIXTURES / "SYNTH.klv2", "english")),
        "super": (get_ruleset("super"), enable["super"], Leaves.load(FIXTURES / "SYNTH_super.klv2", "super")),
        "russian": (get_ruleset("russian"), load_lexicon("ru", "russian"), None),
        "erudit": (get_ruleset("erudit"), load_lexicon("ru-erudit", "erudit"), None),
    }


def assert_same_state(state: BoardState, rules: Rules) -> None:
    """``state`` equals a board set in full from its tiles."""
    full = BoardState(rules, state.gaddag)
    full.set(state.tiles)
    got, want = state.arrays(), full.arrays()
    for name in ARRAYS:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    assert state.n_tiles == int(np.count_nonzero(state.tiles))


def random_placement(rng, state: BoardState, rules: Rules):
    """Tiles on a random segment of a random line: a letter (sometimes a blank) on each empty
    square, THROUGH + the tile (sometimes THROUGH alone) on each occupied one; None if all occupied."""
    board = state.tiles
    across = bool(rng.integers(2))
    n = rules.cols if across else rules.rows
    line = int(rng.integers(rules.rows if across else rules.cols))
    start = int(rng.integers(n))
    length = int(rng.integers(1, min(8, n - start) + 1))
    tiles = []
    for i in range(start, start + length):
        bt = int(board[line, i] if across else board[i, line])
        if bt:
            tiles.append(THROUGH if rng.random() < 0.2 else THROUGH | bt)
        else:
            t = int(rng.integers(1, rules.n_letters + 1))
            tiles.append(t | BLANK if rng.random() < 0.1 else t)
    if all(t & THROUGH for t in tiles):
        return None
    row, col = (line, start) if across else (start, line)
    return row, col, across, bytes(tiles)


def generated_placement(rng, state: BoardState, rules: Rules):
    """A legal move of a random rack (real words: runs and cross-sets the lexicon knows)."""
    rack = [int(x) for x in rng.integers(1, rules.n_letters + 1, size=7)]
    if rng.random() < 0.3:
        rack[0] = 0     # a blank
    rack = bytes(sorted(rack))
    moves, _ = state.generate(rack, 100, 0, 0, False, -1, 3, state.gaddag)
    places = moves[moves["kind"] == 0]
    if not len(places):
        return None
    m = places[int(rng.integers(len(places)))]
    return int(m["row"]), int(m["col"]), bool(m["dir"] == 0), bytes(m["tiles"][: m["length"]])


def play_sequence(rules: Rules, gaddag: bool, seed: int, steps: int) -> None:
    """Random placements put down and taken back (last first, or any whose tiles are still there),
    the state checked against a full recompute after each."""
    rng = np.random.default_rng(seed)
    state = BoardState(rules, gaddag)
    played = []
    for _ in range(steps):
        if played and rng.random() < 0.35:
            i = len(played) - 1 if rng.random() < 0.7 else int(rng.integers(len(played)))
            row, col, across, tiles = played.pop(i)
            # a square played through may have been emptied by an earlier take-back (0), and then
            # covered by another tile: mark it as played through whatever it holds now
            board = state.tiles
            step = (0, 1) if across else (1, 0)
            fixed = bytes(
                t if not t & THROUGH else THROUGH if board[row + k * step[0], col + k * step[1]] else 0
                for k, t in enumerate(tiles)
            )
            if any(t == 0 for t in fixed):
                # the play no longer lies on tiles: take back its own tiles one square at a time
                for k, t in enumerate(tiles):
                    if not t & THROUGH:
                        assert state.unplace(row + k * step[0], col + k * step[1], across, bytes([t])) == 1
            else:
                assert state.unplace(row, col, across, fixed) == sum(1 for t in tiles if not t & THROUGH)
        else:
            pick = generated_placement if rng.random() < 0.5 else random_placement
            move = pick(rng, state, rules)
            if move is None:
                continue
            row, col, across, tiles = move
            assert state.place(row, col, across, tiles) == sum(1 for t in tiles if not t & THROUGH)
            played.append(move)
        assert_same_state(state, rules)


@pytest.mark.parametrize("gaddag", [True, False], ids=["gaddag", "dawg"])
@pytest.mark.parametrize("name", ["english", "super", "russian", "erudit"])
def test_incremental_state_equals_full_recompute(worlds, name, gaddag):
    rs, lexicon, _ = worlds[name]
    rules = Rules(lexicon, rs)
    for seed in range(4):
        play_sequence(rules, gaddag, seed, 60)


@st.composite
def made_up_rules(draw):
    rows, cols = draw(st.integers(2, 26)), draw(st.integers(2, 26))
    letters = "ABCDEFGH"[: draw(st.integers(1, 8))]
    rs = Ruleset.from_dict(
        {
            "name": "made-up",
            "board": ["".join(draw(st.sampled_from(".'\"^-=~")) for _ in range(cols)) for _ in range(rows)],
            "tiles": [[x, 40, draw(st.integers(0, 12))] for x in letters],
            "blanks": 10,
            "rack_size": 7,
            "bingo_bonus": 50,
            "start": f"{draw(st.integers(1, rows))}{chr(65 + draw(st.integers(0, cols - 1)))}",
        }
    )
    word = st.text(alphabet=letters, min_size=2, max_size=min(6, max(rows, cols)))
    return rs, Lexicon.from_words(draw(st.lists(word, max_size=80)), rs)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(world=made_up_rules(), seed=st.integers(0, 2**32 - 1), gaddag=st.booleans())
def test_incremental_state_on_made_up_boards(world, seed, gaddag):
    rs, lexicon = world
    play_sequence(Rules(lexicon, rs), gaddag, seed, 25)


@pytest.mark.parametrize("record", load_fixture_positions("positions.jsonl")[:6], ids=lambda r: r["id"])
def test_moves_on_a_kept_board_equal_the_stateless_call(worlds, record):
    """Set the position's board, play its best move, generate again, take it back: each time the
    moves are byte for byte those of Tables.generate on the same board."""
    rs, lexicon, leaves = worlds["english"]
    rules = Rules(lexicon, rs)
    tables = Tables(rules, LeaveTable(leaves))
    pos = Position.from_cgp(record["cgp"], "english", lexicon=lexicon)
    rack, opp = bytes(pos.rack), sum(rs.values[t] for t in pos.racks[1])
    not_on_racks = rs.total_tiles - sum(len(r) for r in pos.racks)
    state = BoardState(rules)
    state.set(pos.board)
    for gaddag in (True, False):
        for top in (0, 3):
            want = tables.generate(pos.board, rack, not_on_racks, opp, top, True, 7, 3, gaddag)
            got = state.generate(rack, not_on_racks, opp, top, True, 7, 3, gaddag, tables.leave_table)
            assert got[0].tobytes() == want[0].tobytes() and got[1] == want[1]
    best = state.generate(rack, not_on_racks, opp, 1, True, -1, 3, True, tables.leave_table)[0][0]
    if best["kind"] != 0:
        return
    move = (int(best["row"]), int(best["col"]), bool(best["dir"] == 0), bytes(best["tiles"][: best["length"]]))
    state.place(*move)
    after = state.tiles
    assert np.count_nonzero(after) == np.count_nonzero(pos.board) + int(best["n_played"])
    other = bytes(sorted(rack[::-1][:5]))
    want = tables.generate(after, other, not_on_racks, opp, 0, True, 7, 3, True)
    assert state.generate(other, not_on_racks, opp, 0, True, 7, 3, True, tables.leave_table)[0].tobytes() \
        == want[0].tobytes()
    state.unplace(*move)
    np.testing.assert_array_equal(state.tiles, pos.board)
    assert_same_state(state, rules)


def test_placement_errors_leave_the_board_unchanged(worlds):
    rs, lexicon, _ = worlds["english"]
    rules = Rules(lexicon, rs)
    state = BoardState(rules)
    C, A, T = (rs.alphabet.tile(x) for x in "CAT")
    assert state.place(7, 7, True, [C, A, T]) == 3
    before = state.arrays()
    bad = [
        ((7, 13, True, [C, A, T]), "leave the 15x15 board"),        # runs off the edge
        ((-1, 0, True, [C]), "row must be"),
        ((0, 15, True, [C]), "col must be"),
        ((7, 7, True, [C]), "occupied"),                            # onto C
        ((6, 7, False, [C, THROUGH | T]), "played through"),        # 8H holds C, not T
        ((6, 10, False, [C, THROUGH]), "played through"),           # 8K is empty
        ((0, 0, True, [0]), "not a letter"),                        # a blank with no letter
        ((0, 0, True, [27]), "not a letter"),
        ((0, 0, True, []), "1 to 26 squares"),
        ((0, 0, 1, [C]), "across must be True or False"),
        ((0, 0, True, [300]), "tiles must be"),
        ((0, 0, True, None), "tiles must be"),
    ]
    for args, message in bad:
        with pytest.raises(ValueError, match=message):
            state.place(*args)
    with pytest.raises(ValueError, match="does not hold the tile"):
        state.unplace(7, 7, True, [C, A, C])
    after = state.arrays()
    for name in ARRAYS:
        np.testing.assert_array_equal(after[name], before[name])
    assert state.unplace(7, 7, True, [C, A, T]) == 3 and state.n_tiles == 0
    # through squares given as THROUGH alone, or with their tile
    state.place(7, 7, True, [C, A, T])
    assert state.place(6, 8, False, [C, THROUGH, T]) == 2
    assert state.unplace(6, 8, False, [C, THROUGH | A, T]) == 2
    assert_same_state(state, rules)


def test_set_clear_copy(worlds):
    rs, lexicon, _ = worlds["super"]
    rules = Rules(lexicon, rs)
    state = BoardState(rules)
    assert state.tiles.shape == (21, 21) and state.n_tiles == 0 and state.gaddag
    board = np.zeros((21, 21), np.uint8)
    board[10, 8:11] = [3, 1, 20]
    state.set(board)
    twin = state.copy()
    assert copy.deepcopy(state).n_tiles == copy.copy(state).n_tiles == 3
    twin.place(11, 8, True, [1, 20])
    assert state.n_tiles == 3 and twin.n_tiles == 5
    assert_same_state(state, rules)
    assert_same_state(twin, rules)
    for bad, message in ((np.zeros((15, 15), np.uint8), "21x21"), (board.astype(np.int64), "uint8"),
                         (np.full((21, 21), 0x41, np.uint8), "not a tile"), ([[0] * 21] * 21, "uint8")):
        with pytest.raises(ValueError, match=message):
            state.set(bad)
    state.clear()
    assert state.n_tiles == 0
    assert_same_state(state, rules)
    with pytest.raises(ValueError, match="no GADDAG"):
        BoardState(Rules(Lexicon.from_words(["CAT"], rs, gaddag=False), rs), True)
    dawg_only = BoardState(Rules(Lexicon.from_words(["CAT"], rs, gaddag=False), rs))
    assert not dawg_only.gaddag
    with pytest.raises(ValueError, match="no GADDAG"):
        dawg_only.generate(b"\x03\x01\x14", 90, 0)


def test_threads_share_rules_and_leaves(worlds):
    """Generations on one Rules and LeaveTable from several threads at once (each its own board)
    give what one thread gives."""
    rs, lexicon, leaves = worlds["english"]
    rules, table = Rules(lexicon, rs), LeaveTable(leaves)
    records = load_fixture_positions("positions.jsonl")
    jobs = []
    for record in records:
        pos = Position.from_cgp(record["cgp"], "english", lexicon=lexicon)
        jobs.append((pos.board, bytes(pos.rack), rs.total_tiles - sum(len(r) for r in pos.racks)))

    def run(state, out):
        for board, rack, bag in jobs:
            state.set(board)
            out.append(state.generate(rack, bag, 0, 5, True, 7, 3, True, table)[0].tobytes())

    alone = []
    run(BoardState(rules), alone)
    outs = [[] for _ in range(4)]
    threads = [threading.Thread(target=run, args=(BoardState(rules), out)) for out in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(out == alone for out in outs)


def test_one_tables_object_from_several_threads(worlds):
    """Tables.generate is stateless: one object called from several threads at once (the first
    caller uses its buffers, the others their own) gives what one thread gives."""
    rs, lexicon, leaves = worlds["english"]
    tables = Tables(Rules(lexicon, rs), LeaveTable(leaves))
    jobs = []
    for record in load_fixture_positions("positions.jsonl"):
        pos = Position.from_cgp(record["cgp"], "english", lexicon=lexicon)
        jobs.append((pos.board, bytes(pos.rack), rs.total_tiles - sum(len(r) for r in pos.racks)))

    def run(out):
        for _ in range(3):
            for board, rack, bag in jobs:
                out.append(tables.generate(board, rack, bag, 0, 5, True, 7, 3, True)[0].tobytes())

    alone = []
    run(alone)
    outs = [[] for _ in range(4)]
    threads = [threading.Thread(target=run, args=(out,)) for out in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(out == alone for out in outs)
