"""The kernel on made-up rulesets, boards and racks: the two algorithms give the same records byte for
byte (equity included), and the best N are the head of the complete list (shadow playing never
drops a move that belongs there) — with racks up to 15 tiles, boards from 2x2 to 26x26, stray
tiles, blanks on the board, empty and full bags."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racksmith.movegen._movegen import LeaveTable, Rules, Tables
from racksmith.lexicon import Leaves, Lexicon
from racksmith.core.position import Position
from racksmith.rules.ruleset import Ruleset

LETTERS = "ABCDEFGH"
PREMIUMS = ".'\"^-=~"


@st.composite
def cases(draw):
    rows, cols = draw(st.integers(2, 26)), draw(st.integers(2, 26))
    letters = LETTERS[: draw(st.integers(1, len(LETTERS)))]
    rs = Ruleset.from_dict(
        {
            "name": "made-up",
            "board": ["".join(draw(st.sampled_from(PREMIUMS)) for _ in range(cols)) for _ in range(rows)],
            "tiles": [[x, 40, draw(st.integers(0, 12))] for x in letters],
            "blanks": 10,
            "rack_size": draw(st.integers(1, 15)),
            "bingo_bonus": draw(st.integers(0, 60)),
            "start": f"{draw(st.integers(1, rows))}{chr(65 + draw(st.integers(0, cols - 1)))}",
            "vowels": letters[:2],
        }
    )
    word = st.text(alphabet=letters, min_size=2, max_size=min(8, max(rows, cols)))
    words = draw(st.lists(word, max_size=150))
    leave = st.lists(st.sampled_from(letters + "?"), min_size=1, max_size=4).map(lambda t: "".join(sorted(t)))
    leaves = draw(st.dictionaries(leave, st.floats(-30, 30, allow_nan=False), max_size=30))
    density = draw(st.sampled_from([0.0, 0.1, 0.3, 0.6]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = len(letters)
    tiles = rng.integers(1, n + 1, size=(rows, cols), dtype=np.uint8)
    tiles |= np.where(rng.random((rows, cols)) < 0.1, 0x80, 0).astype(np.uint8)
    board = np.where(rng.random((rows, cols)) < density, tiles, 0).astype(np.uint8)
    rack = draw(st.lists(st.integers(0, n), max_size=rs.rack_size))
    bag = draw(st.sampled_from([0, 1, 50]))
    opp = draw(st.integers(0, 40))
    exchange_limit = draw(st.sampled_from([-1, 0, 7]))
    return rs, words, leaves, board, bytes(sorted(rack)), bag, opp, exchange_limit


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=cases())
def test_both_algorithms_agree_and_best_n_is_the_head(case):
    rs, words, leaves, board, rack, bag, opp, exchange_limit = case
    lexicon = Lexicon.from_words(words, rs)
    lv = Leaves.from_pairs(leaves.items(), rs)
    tables = Tables(Rules(lexicon, rs), LeaveTable(lv))
    not_on_racks = bag + int(np.count_nonzero(board))
    for by_equity in (False, True):
        full = {}
        for gaddag in (True, False):
            full[gaddag], _ = tables.generate(board, rack, not_on_racks, opp, 0, by_equity, exchange_limit, 3, gaddag)
        assert full[True].tobytes() == full[False].tobytes()
        for gaddag in (True, False):
            for n in (1, 3):
                best, _ = tables.generate(board, rack, not_on_racks, opp, n, by_equity, exchange_limit, 3, gaddag)
                assert best.tobytes() == full[gaddag][:n].tobytes()


def test_a_move_made_only_left_of_a_run_is_bounded(tmp_path):
    """Regression: the shadow of a run's last tile once allowed one rack tile fewer on its left, as
    if the anchor took one, so C(AT) with a one-tile rack was never tried for the best move."""
    lexicon = Lexicon.from_words(["CAT", "AT"], "english")
    pos = Position.from_cgp("1AT12/15/15/15/15/15/15/15/15/15/15/15/15/15/15 C/ 0/0 0", "english", lexicon=lexicon)
    assert [str(m) for m in pos.moves()] == ["1A C(AT)", "-"]
    for algorithm in ("gaddag", "dawg"):
        assert [str(m) for m in pos.moves(top=1, algorithm=algorithm)] == ["1A C(AT)"]
