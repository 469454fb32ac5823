"""Shadow playing's pruning rules, each on a position where the rule made one step too aggressive
drops the true best move: the best N must stay the head of the complete list."""
from __future__ import annotations

import pytest

from oracle import FIXTURES, load_fixture_positions
from racksmith.lexicon import Leaves, Lexicon
from racksmith.core.position import Position

EMPTY = "15"


def _cgp(rows: dict[int, str], rack: str) -> str:
    return "/".join(rows.get(r, EMPTY) for r in range(15)) + f" {rack}/ 0/0 0"


def _best_is_head(pos: Position, n: int = 1) -> list[str]:
    full = [str(m) for m in pos.moves()]
    for algorithm in ("gaddag", "dawg"):
        for sort in ("score", "equity"):
            assert [str(m) for m in pos.moves(top=n, algorithm=algorithm, sort=sort)] == full[:n], (algorithm, sort)
    return full[:n]


# --- bingos: only where the whole rack and the tiles played through anagram to a word ---------------

@pytest.mark.parametrize("rack", ["AEEINRT", "AEEINR?", "AEEIN??"])    # no blank, one, two
def test_a_bingo_through_one_tile_is_found(rack):
    # the rack alone is no word: the board's D makes the bingo
    lexicon = Lexicon.from_words(["DETAINER", "AD", "ED"], "english")
    pos = Position.from_cgp(_cgp({7: "7D7"}, rack), "english", lexicon=lexicon)
    best = pos.moves(top=1)[0]
    assert best.word.upper() == "DETAINER" and best.tiles_played == 7
    _best_is_head(pos)


def test_a_bingo_through_two_tiles_is_found():
    lexicon = Lexicon.from_words(["DETAINERS", "AD", "ED", "AS", "ES"], "english")
    pos = Position.from_cgp(_cgp({7: "3D7S3"}, "AEEINRT"), "english", lexicon=lexicon)
    assert _best_is_head(pos) == ["8D (D)ETAINER(S)"]


def test_a_bingo_of_rack_tiles_alone_is_found():
    # seven-letter words count: the table of anagrams starts at the rack's size
    lexicon = Lexicon.from_words(["RETINAE", "QI"], "english")
    pos = Position.from_cgp(_cgp({7: "7Q7"}, "AEEINRT"), "english", lexicon=lexicon)
    assert _best_is_head(pos) == ["I5 RETINAE"]


@pytest.mark.parametrize("rack", ["AEINST?", "AEINS??"])
def test_a_blank_may_stand_for_the_last_letter_of_the_alphabet(rack):
    lexicon = Lexicon.from_words(["ZEATINS", "QI"], "english")
    pos = Position.from_cgp(_cgp({7: "7Q7"}, rack), "english", lexicon=lexicon)
    best = _best_is_head(pos)[0]
    assert "z" in best and best.upper().endswith("ZEATINS")


def test_bingo_spans_the_rack_cannot_fill_are_not_searched():
    # an ordinary rack on a real position: most anchors could hold a bingo through a board tile,
    # but no word is made of this rack and one more letter
    rec = next(r for r in load_fixture_positions("positions.jsonl") if r["id"] == "mid_s208_t2")
    pos = Position.from_cgp(rec["cgp"], lexicon=Lexicon.load(FIXTURES / "ENABLE15.kwg", "english"))
    leaves = Leaves.load(FIXTURES / "SYNTH.klv2", "english")
    full = pos.moves(sort="equity", leaves=leaves, exchanges=True)
    best = pos.moves(top=1, sort="equity", leaves=leaves, exchanges=True)
    assert best.to_numpy().tobytes() == full.to_numpy()[:1].tobytes()
    assert best.placements_reached < rec["n_placements"] // 2


# --- bounds by extent inside an anchor ------------------------------------------------------------

@pytest.mark.parametrize(
    "rows, rack, words",
    [
        ({7: "7CAT5"}, "S", ["CAT", "CATS"]),                    # ends on the square right after the run
        ({7: "12CAT"}, "S", ["CAT", "SCAT", "AS"]),              # ends on the board's edge
        ({7: "CAT12"}, "SOX", ["CAT", "SCAT", "CATS", "OX", "SOX", "COX", "AX"]),
        ({7: "4CAT8"}, "EHRU", ["CAT", "CATHEDRA", "HEAT", "HUE", "UH", "EH", "HE", "RE", "ER"]),
        ({7: "5Q1T7"}, "AUITE", ["QUIT", "QUITE", "QAT", "QUA", "AT", "TA", "IT", "TI", "TE"]),
    ],
)
@pytest.mark.parametrize("n", [1, 2, 5])
def test_the_best_n_keep_moves_at_every_extent(rows, rack, words, n):
    lexicon = Lexicon.from_words(words, "english")
    pos = Position.from_cgp(_cgp(rows, rack), "english", lexicon=lexicon)
    _best_is_head(pos, n)


# --- bounds once blanks are played: the leave keeps fewer blanks, the blank scores nothing -----------

def test_bounds_once_a_blank_is_played_still_count_every_other_tile():
    # a self-play position (DEIMNX?) where pairing one tile fewer than played, once the blank is
    # down, dropped the best move 14B X(U) by equity
    cgp = ("L2W7QUAI/A2I3S3U3/V2G2LEISTERS1/AY1L3R3u3/1ORE3E2PE3/1KAT1WINCHED3/BED4I2A4/R1OZONATED5/"
           "O1NA2BY7/N2F2O8/C2TO1R8/O1HIP1T8/2AGE10/2U1N10/JILT11 DEIMNX?/ 0/0 0")
    pos = Position.from_cgp(cgp, "english", lexicon=Lexicon.load(FIXTURES / "ENABLE15.kwg", "english"))
    leaves = Leaves.load(FIXTURES / "SYNTH.klv2", "english")
    for sort in ("equity", "score"):
        for algorithm in ("gaddag", "dawg"):
            full = pos.moves(sort=sort, leaves=leaves, exchanges=True, algorithm=algorithm).to_numpy()
            for n in (1, 3):
                best = pos.moves(top=n, sort=sort, leaves=leaves, exchanges=True, algorithm=algorithm)
                assert best.to_numpy().tobytes() == full[:n].tobytes(), (sort, algorithm, n)
    assert str(pos.moves(top=1, sort="equity", leaves=leaves)[0]) == "14B X(U)"
