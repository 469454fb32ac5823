"""A placement that scores 0 (a word of blanks, an Эрудит word of stars) is no scoreless turn: it
resets the count of consecutive scoreless turns like any other placement (WESPA's rules, MAGPIE's
gameplay.c, Macondo's game.go), in the Python rules, a replayed record, and each kernel that plays
turns (the self-play game loop, the simulation's play-outs, the endgame search)."""

from __future__ import annotations

import numpy as np
import pytest

from racksmith import Position
from racksmith.lexicon import Leaves, load_lexicon
from racksmith.review.replay import replay_text
from racksmith.rules.ruleset import get_ruleset

BLANK = 0x80


def _super_blanks(zero_turns: int) -> Position:
    """Super Scrabble: the blank word AB at the centre, the mover holding the other two blanks and
    five tiles; the bag holds tiles. Extending AB with blanks only (ABS, ABA...) scores 0."""
    rs = get_ruleset("super")
    a = rs.alphabet
    board = np.zeros((rs.rows, rs.cols), np.uint8)
    r, c = rs.rows // 2, rs.cols // 2
    board[r, c - 1] = a.tile("A") | BLANK
    board[r, c] = a.tile("B") | BLANK
    pos = Position(rs, board, (a.rack("??VVWWX"), a.rack("EEIIORS")), (100, 100), zero_turns,
                   lexicon=load_lexicon("enable", ruleset=rs))
    assert pos.bag_count > 0
    return pos


def _zero_move(pos: Position):
    zero = [m for m in pos.moves() if m.kind == "place" and m.score == 0]
    assert zero
    return zero[0]


EMPTY = "/".join(["15"] * 15)


@pytest.mark.parametrize("ruleset,cgp,move", [
    ("erudit", "15/15/15/15/15/15/15/7о7/15/15/15/15/15/15/15 ??АБВГД/ 100/100 5", "H7 д(о)м"),
    ("english", f"{EMPTY} ??ABCDE/ 100/100 5", "8G ab"),
])
def test_a_placement_worth_0_after_five_scoreless_turns_goes_on(ruleset, cgp, move):
    pos = Position.from_cgp(cgp, ruleset=ruleset)
    pos.push(move)
    assert pos.scores[1] == 100  # (the mover's, now second)
    assert (pos.zero_turns, pos.is_over) == (0, False)
    assert Position.from_cgp(pos.cgp(), ruleset=ruleset).zero_turns == 0
    pos.pop()
    assert pos.zero_turns == 5


def test_the_python_rules_reset_the_count_on_a_blank_word():
    pos = _super_blanks(5)
    m = _zero_move(pos)
    pos.push(m)
    assert (pos.zero_turns, pos.is_over, pos.scores[1]) == (0, False, 100)
    pos.pop()
    pos.push("-")
    assert (pos.zero_turns, pos.is_over) == (6, True)  # a pass is scoreless: the sixth ends it


RECORD = """#character-encoding UTF-8
#lexicon enable
#player1 p1 Alice
#player2 p2 Bob
>p1: AEINRST - +0 0
>p2: ??DEORW - +0 0
>p1: AEINRST - +0 0
>p2: ??DEORW - +0 0
>p1: AEINRST - +0 0
>p2: ??DEORW 8G ab +0 0
>p1: AEINRST H7 A.ES +3 3
"""


def test_a_record_goes_on_after_a_blank_word_worth_0():
    r = replay_text(RECORD)
    assert r.turns[-1].zero_turns == 0 and not r.over
    assert r.final_scores() == {"p1": 3, "p2": 0}


def test_the_game_loop_resets_the_count_on_a_blank_word():
    """The kernel's play-out: an equity player whose leave table makes keeping VVWWX worth a lot
    plays the two blanks for 0; the game goes on (before: the sixth scoreless turn ended it)."""
    from racksmith.movegen._movegen import LeaveTable
    from racksmith.movegen.generate import _rules
    from racksmith.play import _gameloop

    pos = _super_blanks(5)
    rs = pos.ruleset
    lv = Leaves.from_pairs([("VVWWX", 500.0)], rs)
    out = _gameloop.playout(_rules(rs, pos.lexicon), [("equity", LeaveTable(lv)), ("score", None)],
                            np.ascontiguousarray(pos.board), [bytes(pos.racks[0]), bytes(pos.racks[1])],
                            list(pos.scores), 5, bytes(pos.unseen_tiles()), 1)  # (both racks known: the bag)
    rec, _, points, _ = out["turns"][0]
    assert points == 0
    assert (out["zero_turns"], out["over"]) == (0, 0)


def test_simulation_play_outs_go_on_after_a_blank_word():
    """The simulation kernel plays the candidate (the blank word, worth 0) and then its plies as
    Python replays them; before, its sixth scoreless turn ended the play-out at once."""
    from test_sim import _kernel, _replay, _same_move

    pos = _super_blanks(5)
    cgp = pos.cgp()
    zero = _zero_move(pos).notation()
    pos2, lv, cands, k = _kernel(cgp, 2, n=None, ruleset="super", leaves="super", pick=lambda m: m.notation() == zero)
    assert len(cands) == 1 and cands[0].score == 0
    checked = 0
    for it in range(4):
        win, eq, recs, drawn, opp, bag, _ = k.trace(0, it)
        replay = _replay(pos2, lv, cands[0], 2, opp, bag, drawn)
        if replay is None:
            continue
        moves, pwin, peq = replay
        assert len(moves) == len(recs) == 3
        for rec, m in zip(recs, moves):
            assert _same_move(rec, m, ())
        checked += 1
    assert checked
