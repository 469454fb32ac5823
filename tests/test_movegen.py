"""Move generation against MAGPIE's complete results (every placement with its score, the best 20 by
equity, every exchange), the shadow-pruned best N against the full list, and the Python API."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import FIXTURES, enable_words, load_fixture_positions
from racksmith.rules.alphabet import BLANK, THROUGH
from racksmith.rules.equity import PASS_PENALTY
from racksmith.errors import PositionError
from racksmith.lexicon import Leaves, Lexicon
from racksmith.core.move import Move
from racksmith.movegen.generate import MoveGenError, generate_moves
from racksmith.movegen.movelist import RECORD_DTYPE, MoveList
from racksmith.core.position import Position

ENGLISH = load_fixture_positions("positions.jsonl")
SUPER = load_fixture_positions("super_positions.jsonl")
RECORDS = ENGLISH + SUPER
IDS = [r["id"] for r in RECORDS]


@pytest.fixture(scope="module")
def enable15():
    return {rs: Lexicon.load(FIXTURES / "ENABLE15.kwg", rs) for rs in ("english", "super")}


@pytest.fixture(scope="module")
def synth():
    return {
        "english": Leaves.load(FIXTURES / "SYNTH.klv2", "english"),
        "super": Leaves.load(FIXTURES / "SYNTH_super.klv2", "super"),
    }


def _ruleset(record) -> str:
    return "super" if record["ruleset"] == "super" else "english"


def _position(record, enable15) -> Position:
    rs = _ruleset(record)
    return Position.from_cgp(record["cgp"], rs, lexicon=enable15[rs])


def _placements(moves):
    return sorted((m.row, m.col, "H" if m.across else "V", m.word, m.score) for m in moves if m.is_place)


def _magpie_notation(text: str, position: Position) -> str:
    """MAGPIE's ``(exch ABC)`` as ours (``-ABC``); placements are written alike."""
    if text.startswith("(exch "):
        a = position.ruleset.alphabet
        return "-" + a.rack_string(a.rack(text[6:-1]))
    return text


# --- MAGPIE's results, exactly ---------------------------------------------------------------------

@pytest.mark.parametrize("algorithm", ["gaddag", "dawg"])
@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_every_placement_and_score_as_magpie(record, algorithm, enable15, synth):
    pos = _position(record, enable15)
    moves = pos.moves(sort="equity", leaves=synth[_ruleset(record)], exchanges=True, algorithm=algorithm)
    assert _placements(moves) == sorted(tuple(p) for p in record["placements"])
    assert sum(m.is_exchange for m in moves) == record["n_exchanges"]
    assert sum(m.is_pass for m in moves) == 1
    assert len(moves) == record["n_moves"]


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_best_twenty_by_equity_and_every_exchange_as_magpie(record, enable15, synth):
    pos = _position(record, enable15)
    moves = pos.moves(sort="equity", leaves=synth[_ruleset(record)], exchanges=True)
    ranked = [m for m in moves if not m.is_pass]
    expected = [t for t in record["top_equity"] if t[0] != "pass"]
    # the same equities in the same order (ties may list different moves of equal equity)...
    assert np.allclose([m.equity for m in ranked[: len(expected)]], [t[2] for t in expected], atol=1e-3)
    # ...and every move MAGPIE ranks there is ours with its score and equity
    ours = {str(m): m for m in ranked}
    for notation, score, equity in expected:
        m = ours[_magpie_notation(notation, pos)]
        assert (m.score, round(m.equity, 3)) == (score, pytest.approx(equity, abs=1e-3))
    for tiles, equity in record["exchanges"]:
        assert ours["-" + tiles].equity == pytest.approx(equity, abs=1e-3)
    if not expected:
        assert [str(m) for m in moves] == ["-"]


# --- the best N (shadow playing) is the head of the complete list -----------------------------------

@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_best_n_is_the_head_of_every_move(record, enable15, synth):
    pos = _position(record, enable15)
    leaves = synth[_ruleset(record)]
    for sort in ("equity", "score"):
        for algorithm in ("gaddag", "dawg"):
            full = pos.moves(sort=sort, leaves=leaves, exchanges=True, algorithm=algorithm).to_numpy()
            for n in (1, 3, 20):
                best = pos.moves(top=n, sort=sort, leaves=leaves, exchanges=True, algorithm=algorithm)
                assert best.to_numpy().tobytes() == full[:n].tobytes(), (sort, algorithm, n)


def test_both_directions_are_across_plus_down(enable15):
    for record in (ENGLISH[2], ENGLISH[6], SUPER[2]):
        pos = _position(record, enable15)
        both = set(pos.moves())
        across = set(pos.moves(direction="across"))
        down = set(pos.moves(direction="down"))
        assert all(m.across for m in across if m.is_place) and not any(m.across for m in down if m.is_place)
        assert across | down == both
        assert len(across) + len(down) == len(both) + 1  # the pass is in each


# --- conventions and valuation, checked independently -----------------------------------------------

def test_single_tile_plays_are_listed_once(enable15):
    lex = enable15["english"]
    # a lone A: an S right of it makes AS across only, below it AS down only
    pos = Position.from_cgp("15/15/15/15/15/15/15/7A7/15/15/15/15/15/15/15 S/ 0/0 0", "english", lexicon=lex)
    assert [str(m) for m in pos.moves()] == ["8H (A)S", "H8 (A)S", "-"]
    # an O on 9I makes SO across and TO down: one move, across, scoring both words (9I is a double letter)
    pos = Position.from_cgp("15/15/15/15/15/15/15/7AT6/7S7/15/15/15/15/15/15 O/ 0/0 0", "english", lexicon=lex)
    assert [(str(m), m.score) for m in pos.moves()] == [("9H (S)O", 6), ("8G O(AT)", 3), ("9G O(S)", 3), ("-", 0)]


def test_every_score_is_the_scorers(enable15):
    """Scores computed in the kernel equal racksmith.core.scoring's, on every ruleset."""
    positions = [_position(r, enable15) for r in (ENGLISH[1], ENGLISH[6], ENGLISH[8], SUPER[2])]
    positions.append(Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 АВТОБУС/ 0/0 0", "erudit"))
    positions.append(Position.from_cgp("15/15/15/15/15/15/15/6КОТ6/15/15/15/15/15/15/15 ЁЖИКА?Р/ 0/0 0", "russian"))
    for pos in positions:
        moves = [m for m in pos.moves() if m.is_place]
        assert moves
        for m in moves[:: max(1, len(moves) // 300)]:
            assert pos.score(m).score == m.score, str(m)


def test_erudit_bingo_is_worth_fifteen():
    pos = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 АВТОБУС/ 0/0 0", "erudit")
    best = pos.moves(top=1)[0]
    assert (str(best), best.score) == ("8G АВТОБУС", 17 + 15)


def _penalty(pos, move) -> float:
    """The opening's vowel penalty, from the ruleset's premiums (written independently of the kernel)."""
    rs = pos.ruleset
    total = 0.0
    for r, c, t in move.placed:
        if t & 0x3F in rs.vowels:
            for rr in (r - 1, r + 1):
                if 0 <= rr < rs.rows:
                    sq = rs.square(rr, c)
                    total += 0.35 * ((rs.word_multipliers[sq] - 1) + (rs.letter_multipliers[sq] - 1))
    return total


@pytest.mark.parametrize("record", [ENGLISH[0], ENGLISH[1], ENGLISH[2], ENGLISH[10], SUPER[1]], ids=lambda r: r["id"])
def test_every_equity_is_the_static_evaluation(record, enable15, synth):
    pos = _position(record, enable15)
    leaves = synth[_ruleset(record)]
    values = pos.ruleset.values
    opp = sum(values[t] for t in pos.racks[1])
    bag = record["bag_count"]
    for m in pos.moves(sort="equity", leaves=leaves, exchanges=True):
        if bag == 0:
            kept = sum(values[t] for t in m.leave)
            expected = m.score + (2 * opp if not m.leave else -(10 + 2 * kept))
        elif m.kind == "pass":  # it gives the turn away for nothing: racksmith.rules.equity.PASS_PENALTY
            expected = -PASS_PENALTY
        else:
            expected = m.score + leaves.value_tiles(m.leave)
        if pos.is_empty and m.is_place:
            expected -= _penalty(pos, m)
        assert m.equity == pytest.approx(expected, abs=1e-5), str(m)


# --- the API ----------------------------------------------------------------------------------------

def test_movelist_is_lazy_compact_and_complete(enable15, synth):
    pos = _position(ENGLISH[2], enable15)
    ms = pos.moves(sort="equity", leaves=synth["english"], exchanges=True)
    assert isinstance(ms, MoveList) and len(ms) == 390
    arr = ms.to_numpy()
    assert arr.dtype == RECORD_DTYPE and arr.dtype.itemsize == 48 and not arr.flags.writeable
    first = ms[0]
    assert isinstance(first, Move) and str(first) == "3J EVOKE" and first.score == 34
    assert first.leave == tuple(sorted(pos.ruleset.alphabet.rack("AI")))
    assert ms[-1] == list(ms)[-1] and ms[len(ms) - 1] == ms[-1]
    with pytest.raises(IndexError):
        ms[len(ms)]
    head = ms[:5]
    assert isinstance(head, MoveList) and list(head) == list(ms)[:5]
    assert [m.equity for m in ms] == sorted((m.equity for m in ms), reverse=True)
    recs = ms.to_records()
    assert recs[0] == {"type": "place", "row": 2, "col": 9, "dir": "H", "word": "EVOKE", "notation": "3J EVOKE",
                       "score": 34, "equity": pytest.approx(32.276, abs=1e-3), "leave": "AI",
                       "placed": [[2, 9, "E"], [2, 10, "V"], [2, 11, "O"], [2, 12, "K"], [2, 13, "E"]], "bingo": False}
    kinds = {r["type"] for r in recs}
    assert kinds == {"place", "exchange", "pass"}
    ex = next(r for r in recs if r["type"] == "exchange")
    assert set(ex) == {"type", "tiles", "notation", "score", "equity", "leave"}
    assert sorted(ex["tiles"] + ex["leave"]) == sorted("AEEIKOV") and ex["notation"] == "-" + ex["tiles"] and ex["score"] == 0
    assert next(r for r in recs if r["type"] == "pass") == {"type": "pass", "notation": "-", "score": 0, "equity": -50.0,
                                                           "leave": "AEEIKOV"}
    assert all({"notation", "score", "equity", "leave"} <= set(r) for r in recs)
    # tiles of a placement: THROUGH marks the board's tiles; blanks carry the blank bit
    through = next(m for m in ms if m.is_place and any(t & THROUGH for t in m.tiles))
    for (r, c), t in zip(through.squares, through.tiles):
        assert (t == THROUGH | pos.board[r, c]) if pos.board[r, c] else not t & THROUGH


def test_equity_only_when_asked(enable15, synth):
    pos = _position(ENGLISH[2], enable15)
    assert all(m.equity is None for m in pos.moves())
    assert all(m.equity is not None for m in pos.moves(sort="equity"))  # without leaves: adjustments only
    ms = pos.moves(leaves=synth["english"])
    assert [m.score for m in ms] == sorted((m.score for m in ms), reverse=True) and ms[0].equity is not None


def test_leaves_from_a_path_are_loaded_once_and_give_the_same_moves(enable15, synth):
    pos = _position(ENGLISH[3], enable15)
    by_path = pos.moves(top=10, sort="equity", leaves=FIXTURES / "SYNTH.klv2")
    by_object = pos.moves(top=10, sort="equity", leaves=synth["english"])
    assert by_path.to_numpy().tobytes() == by_object.to_numpy().tobytes()
    assert generate_moves(pos, top=10, sort="equity", leaves=str(FIXTURES / "SYNTH.klv2")).to_numpy().tobytes() \
        == by_object.to_numpy().tobytes()


def test_exchanges_need_the_exchange_limit_in_the_bag(enable15):
    peg = next(r for r in ENGLISH if r["category"] == "peg")  # one tile in the bag
    pos = _position(peg, enable15)
    assert not any(m.is_exchange for m in pos.moves(exchanges=True))
    mid = _position(ENGLISH[2], enable15)
    assert sum(m.is_exchange for m in mid.moves(exchanges=True)) == 95
    assert not any(m.is_exchange for m in mid.moves())


def test_empty_rack_has_only_the_pass(enable15):
    pos = Position.from_cgp("15/15/15/15/15/15/15/7AT6/15/15/15/15/15/15/15 /QZ 0/0 0", "english",
                            lexicon=enable15["english"])
    assert [str(m) for m in pos.moves(exchanges=True)] == ["-"]


def test_a_dawg_only_lexicon_works_with_the_dawg_algorithm(enable15):
    words = enable_words()
    dawg = Lexicon.from_words(words, "english", gaddag=False)
    for record in (ENGLISH[4], ENGLISH[8]):
        full = _position(record, enable15)
        pos = Position.from_cgp(record["cgp"], "english", lexicon=dawg)
        assert _placements(pos.moves(algorithm="dawg")) == _placements(full.moves())
        with pytest.raises(MoveGenError, match="no GADDAG"):
            pos.moves()


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"sort": "value"}, "unknown sort"),
        ({"direction": "diagonal"}, "unknown direction"),
        ({"algorithm": "magic"}, "unknown algorithm"),
        ({"top": 0}, "at least 1"),
        ({"top": 2.5}, "whole number"),
        ({"leaves": 42}, "a shipped set's name or the path"),
        ({"leaves": "/no/such/file.klv2"}, "cannot read leave file"),
    ],
)
def test_bad_options_are_refused_with_a_clear_error(kw, message, enable15):
    pos = _position(ENGLISH[2], enable15)
    with pytest.raises(MoveGenError, match=message):
        pos.moves(**kw)


def test_a_lexicon_of_another_alphabet_is_refused(enable15):
    """Refused as soon as it is given (validate said its words were not in the lexicon)."""
    with pytest.raises(PositionError, match="lexicon ENABLE15 is spelled in another alphabet than ruleset russian's"):
        Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 АВТОБУС/ 0/0 0", "russian",
                          lexicon=enable15["english"])
    pos = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 АВТОБУС/ 0/0 0", "russian")
    with pytest.raises(PositionError, match="another alphabet"):
        pos.lexicon = enable15["english"]
    with pytest.raises(PositionError, match="a name, a path or a loaded lexicon, got int"):
        pos.lexicon = 5


def test_a_corrupted_board_is_refused_not_crashed(enable15):
    pos = _position(ENGLISH[2], enable15)
    pos.board[0, 0] = 0x40 | 3  # not a tile
    with pytest.raises(PositionError, match="1A"):
        pos.moves()
    pos.board[0, 0] = 60  # beyond the alphabet
    with pytest.raises(PositionError, match="1A"):
        pos.moves()


def test_a_large_top_is_the_whole_list(enable15):
    pos = _position(ENGLISH[1], enable15)  # 10,377 moves
    assert pos.moves(top=5000).to_numpy().tobytes() == pos.moves().to_numpy()[:5000].tobytes()
    assert len(pos.moves(top=100000)) == 10282


def test_blank_designations_are_distinct_moves(enable15):
    pos = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ?A/ 0/0 0", "english",
                            lexicon=enable15["english"])
    moves = [m for m in pos.moves() if m.is_place]
    words = [(m.row, m.col, m.word) for m in moves]
    assert len(words) == len(set(words))
    # AA with the blank as either A, at both places through the start square
    assert {w for w in words if w[2].upper() == "AA"} == {(7, 6, "Aa"), (7, 6, "aA"), (7, 7, "Aa"), (7, 7, "aA")}
    assert all(sum(bool(t & BLANK) for t in m.tiles) == 1 for m in moves if len(m.tiles) == 2)


@pytest.mark.parametrize("record", [ENGLISH[6], ENGLISH[8], ENGLISH[10]], ids=lambda r: r["id"])
def test_records_say_what_the_moves_say(record, enable15, synth):
    """to_records() (built straight from the arrays) agrees with the Move objects, blanks on the
    board and on the rack included."""
    pos = _position(record, enable15)
    ms = pos.moves(sort="equity", leaves=synth["english"], exchanges=True)
    a = pos.ruleset.alphabet
    expected = []
    for m in ms:
        if m.is_place:
            expected.append({"type": "place", "row": m.row, "col": m.col, "dir": "H" if m.across else "V",
                             "word": m.word, "notation": m.notation(), "score": m.score, "equity": m.equity,
                             "leave": a.rack_string(m.leave, blanks_last=True),
                             "placed": [[r, c, a.letter(t)] for r, c, t in m.placed],
                             "bingo": m.tiles_played == pos.ruleset.rack_size})
        elif m.is_exchange:
            expected.append({"type": "exchange", "tiles": a.rack_string(m.tiles, blanks_last=True),
                             "notation": m.notation(), "score": 0, "equity": m.equity,
                             "leave": a.rack_string(m.leave, blanks_last=True)})
        else:
            expected.append({"type": "pass", "notation": "-", "score": 0, "equity": m.equity,
                             "leave": a.rack_string(m.leave, blanks_last=True)})
    assert ms.to_records() == expected


def test_threads_generate_in_parallel_with_the_same_results(enable15, synth):
    """The kernel runs without the GIL on per-call state: concurrent calls agree with serial ones."""
    from concurrent.futures import ThreadPoolExecutor

    positions = [_position(r, enable15) for r in ENGLISH[:9]]

    def run(pos):
        return pos.moves(sort="equity", leaves=synth["english"], exchanges=True).to_numpy().tobytes()

    serial = [run(p) for p in positions]
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(3):
            assert list(pool.map(run, positions)) == serial


def test_placements_reached_counts_the_work_of_a_top_n_search(enable15, synth):
    rec = next(r for r in ENGLISH if r["id"] == "mid1b_s115_t16")
    pos = Position.from_cgp(rec["cgp"], lexicon=enable15["english"])
    full = pos.moves(sort="equity", leaves=synth["english"], exchanges=True)
    best = pos.moves(top=1, sort="equity", leaves=synth["english"], exchanges=True)
    assert full.placements_reached == rec["n_placements"]
    assert 0 < best.placements_reached < rec["n_placements"]


def test_a_single_move_rounds_its_equity_as_the_columns_do():
    from racksmith.movegen.movelist import EQUITY_DECIMALS, _rounded_equity

    rng = np.random.default_rng(5)
    xs = np.concatenate([rng.normal(0, 40, 20000), np.float32(rng.normal(0, 30, 20000)).astype(float),
                         [0.0, -0.0, -4e-6, 4e-6, 2.5e-5, -2.5e-5, 12.345675, -12.345675]])
    for x, y in zip(xs.tolist(), np.round(xs, EQUITY_DECIMALS).tolist()):
        got = _rounded_equity(x)
        assert got == y and np.signbit(got) == np.signbit(y), x


def test_a_board_asked_again_reuses_its_valuations_only_while_they_hold(enable15, synth):
    """A BoardState keeps the valuation of every kept set from one call to the next when the rack,
    leave table and end-of-game terms are the same (MAGPIE keeps them the same way); any change
    values them again. Each call equals the same call on a fresh board."""
    from racksmith.movegen._movegen import BoardState, LeaveTable, Rules
    from racksmith.rules.ruleset import get_ruleset

    rs = get_ruleset("english")
    rules = Rules(enable15["english"], rs)
    pos = Position.from_cgp(next(r["cgp"] for r in ENGLISH if r["id"] == "mid_s125_t5"), rs, enable15["english"])
    other = Leaves.from_pairs([("A", -3.0), ("S", 9.0), ("HX", 4.5), ("?", 30.0)], rs)
    tables = [LeaveTable(synth["english"]), LeaveTable(synth["english"]), LeaveTable(other), None]
    kept = BoardState(rules)
    kept.set(pos.board)
    racks = [bytes(pos.rack), bytes(pos.rack), bytes([1, 1, 8, 14, 19]), bytes(pos.rack), bytes([0, 1, 8, 14, 19, 20])]
    on_board = int(np.count_nonzero(pos.board))
    calls = []
    for rack in racks:
        for not_on_racks, opp in ((100, 0), (on_board, 17), (on_board, 3)):  # bag full, then empty
            for top, exchanges in ((1, 7), (0, 7), (5, -1), (0, -1)):
                for lt in tables:  # one thing changing at a time, then several
                    calls.append((rack, not_on_racks, opp, top, True, exchanges, 3, True, lt))
        for lt in tables:
            for top, exchanges in ((1, 7), (0, 7), (5, -1), (0, -1)):
                for not_on_racks, opp in ((100, 0), (on_board, 17), (on_board, 3), (100, 5)):
                    calls.append((rack, not_on_racks, opp, top, True, exchanges, 3, True, lt))
    for args in calls + calls[::-1]:
        fresh = BoardState(rules)
        fresh.set(pos.board)
        got, n_got = kept.generate(*args)
        want, n_want = fresh.generate(*args)
        assert got.tobytes() == want.tobytes() and n_got == n_want, args
