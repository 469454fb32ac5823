"""The endgame solver's answer as a puzzle reads it: an illegal ``--move`` says why (as ``validate``
does), a bag the pre-endgame solver takes points to ``peg``, the line shows each move's score, how
the game ends and who wins by how much (``racksmith endgame`` and its JSON), and ``--threads``
says what may depend on it."""
from __future__ import annotations

import json

import pytest

from racksmith import Position
from racksmith.errors import IllegalMoveError, PositionError
from racksmith.rules.ruleset import Ruleset, get_ruleset
from racksmith.search.endgame import solve_endgame

from test_endgame import VARIANTS, lexicon, random_endgame, tiny

#: 3+2 tiles, solved in a few thousand nodes: the player to move goes out
AIT = ("JNAESITEAIUGaGN/EOLAMWRNNOCEIEE/RDTUKEWLTYSZaOV/IYFEXIARPFPIAIR/LDREUOTHBOOCAGS/AUNDTBAOEL5/15/15/"
       "3HORSE7/5I9/5D9/4MEN8/15/15/15 AIT/QV 320/330 0")
#: the game ends with six scoreless turns
OOQU = ("O3TARGE1T1D1I/KOB2YE2CEDARN/E1YETI1UP1P1V1I/3MONoLITH1E1A/4R2U2R1N2/D2FIZ3JABS2/ER3AMIGOS4/WO1VEGAN7/"
        "AS1ARSENATe4/XI1I11/1N1L11/LOWE11/1LID11/2F12/THEE11 OOQU/CU 389/486 0")
#: an audit's puzzle whose best moves tie at +39, each with lines of equal value
PORTAGES = ("PORTaGES7/IRE2R5C3/ABSONANT1G1UM2/5I3R1BA2/1FROWN3AWEE2/TI3E3YOD1Q1/AG3D3IT2U1/I2M2LUVS3I1/"
            "L1JO1DAH1HAFIZ1/COuPLET3U4/O1RE1NEON1K4/ANY12/TI13/EX13/DEL12 AEES/IV 453/441 0")
#: the one-tile pre-endgame of tests/test_endgame.py (PEG141) with its 14th row as ``{}``: fewer
#: tiles on the board are more in the bag
PEG_ROWS = ("11QUID/5H7M1/2UNJOINT4A1/4IT7G1/4L8E1/3CLOWN1HANGS1/6OURIE4/3CRYPTo2VAIL/8BAP2m1/8ABA2M1/8NOW2E1/"
            "8D4N1/{}/4OXO6E1/FORGE1SLEAZY3 EEIIRTU/EEEIRTV 304/425 0")


def run_cli(capsys, *args):
    from racksmith.cli.main import main

    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# --- an illegal move says why ---------------------------------------------------------------------------
ILLEGAL = ["D12 TAI", "8H QAT", "-Q"]


@pytest.mark.parametrize("move", ILLEGAL)
def test_an_illegal_move_says_why_as_validate_does(capsys, move):
    """It said "D12 TAI is not a legal move here" and nothing of why; validate says
    invalid_words (TAI, TMEN), not_in_rack (Q), exchange_not_allowed (the bag holds 0)."""
    pos = Position.from_cgp(AIT)
    verdict = pos.validate(move)
    assert not verdict.legal
    why = f"{pos.resolve(move).notation()} ({verdict.reason}: {verdict.message})"
    with pytest.raises(IllegalMoveError) as e:
        solve_endgame(pos, move=move)
    assert (e.value.reason, e.value.words) == (verdict.reason, verdict.words)
    assert str(e.value) == f"not a legal move of the player to move here: {why}"
    code, out, err = run_cli(capsys, "endgame", AIT, "--move", move, "-q")
    assert (code, out) == (1, "") and err.strip().splitlines() == [f"racksmith: {e.value}"]


@pytest.mark.parametrize("move", [*ILLEGAL, "H8 XX"])
def test_the_analyzer_refuses_an_illegal_move_in_the_field_with_its_reason(move):
    """/api/endgame: a move the endgame does not have raised a plain RacksmithError, without the
    ``field 'move':`` of the endpoint's other move errors and without the reason the server
    answers with (``reason``, ``words``)."""
    from racksmith.web.api import Analyzer

    verdict = Position.from_cgp(AIT).validate(move)
    with pytest.raises(IllegalMoveError) as e:
        Analyzer().endgame({"cgp": AIT, "move": move, "seconds": 5})
    assert str(e.value).startswith("field 'move': ") and verdict.message in str(e.value)
    assert (e.value.reason, e.value.words) == (verdict.reason, verdict.words)


# --- a bag that is not empty --------------------------------------------------------------------------
@pytest.mark.parametrize("row, in_bag", [("1KIEF1DASTARDS1", 1), ("2IEF1DASTARDS1", 2), ("6DASTARDS1", 5),
                                         ("7ASTARDS1", 6), ("15", 13)])
def test_a_bag_the_pre_endgame_takes_points_to_peg(capsys, row, in_bag):
    """With two to six tiles in the bag the message said only that the bag must be empty; peg
    takes up to one fewer than the exchange limit (6 in English). More: simulate."""
    cgp = PEG_ROWS.format(row)
    pos = Position.from_cgp(cgp)
    assert pos.bag_count == in_bag
    with pytest.raises(PositionError) as e:
        solve_endgame(pos)
    head = f"the bag holds {in_bag} tile{'s' if in_bag != 1 else ''}: an endgame needs it empty"
    if in_bag <= 6:
        assert str(e.value) == head + (" (with 1 to 6 tiles in the bag it is a pre-endgame: racksmith peg, "
                                       "or Position.solve_peg)")
    else:
        assert str(e.value) == head + " (simulate instead: racksmith sim, or Position.simulate)"
    code, out, err = run_cli(capsys, "endgame", cgp, "-q")
    assert code == 1 and err.strip().splitlines() == [f"racksmith: {e.value}"]


def test_the_peg_hint_follows_the_rulesets_exchange_limit():
    """Exchanges allowed with 3 in the bag: peg takes 1 or 2 tiles; 5 are for a simulation."""
    data = get_ruleset("english").to_dict()
    rs = Ruleset.from_dict({**data, "name": "english-exchange-3", "aliases": [], "exchange_limit": 3})
    one = Position.from_cgp(PEG_ROWS.format("1KIEF1DASTARDS1"), rs)
    with pytest.raises(PositionError, match=r"with 1 to 2 tiles in the bag it is a pre-endgame: racksmith peg"):
        solve_endgame(one)
    five = Position.from_cgp(PEG_ROWS.format("6DASTARDS1"), rs)
    with pytest.raises(PositionError, match=r"holds 5 tiles: an endgame needs it empty \(simulate instead"):
        solve_endgame(five)


# --- the line, its end and the result -----------------------------------------------------------------
def test_the_line_shows_each_score_the_going_out_and_who_wins(capsys):
    """It printed ``line: 11E A(D) - D9 (H)I - 11D T(AD)``: no score, no end of the game, no result."""
    code, out, err = run_cli(capsys, "endgame", AIT, "-q")
    assert code == 0 and err == ""
    assert out.splitlines()[:4] == [
        "best 11E A(D)  value +57 (exact)",
        "line: 11E A(D) 14, (pass), D9 (H)I 5, (pass), 11D T(AD) 10",
        "end: the player to move goes out: +28 (QV 14, doubled)",
        "final: 377 to 330: the player to move wins by 47",
    ]


def test_the_line_shows_the_scoreless_turns_and_the_racks_taken(capsys):
    code, out, err = run_cli(capsys, "endgame", OOQU, "-q")
    assert code == 0
    assert out.splitlines()[:4] == [
        "best J9 (T)O  value +6 (exact)",
        "line: J9 (T)O 4, (pass), 1K (T)O(D) 9, (pass), (pass), (pass), (pass), (pass), (pass)",
        "end: 6 scoreless turns in a row: the player to move -11 (QU), the opponent -4 (CU)",
        "final: 391 to 482: the opponent wins by 91",
    ]


def test_a_line_cut_by_the_depth_says_so_and_claims_no_result(capsys):
    r = solve_endgame(Position.from_cgp(OOQU), plies=2)
    assert not r.exact and r.ending is None and r.final_scores is None and r.final_spread is None
    code, out, err = run_cli(capsys, "endgame", OOQU, "--plies", "2", "-q")
    lines = out.splitlines()
    assert lines[1] == "line: " + ", ".join(f"{m.notation()} {m.score}" for m in r.pv) + ", ..."
    assert not any(line.startswith(("end:", "final:")) for line in lines)


def test_going_out_under_the_club_rule_adds_the_rack_and_takes_it_from_its_owner():
    """The club rule: the player going out adds the other's rack once, the other loses it."""
    from racksmith.cli.search_cmds import endgame_line_text

    rs = tiny(end_rule="club")
    pos = Position.from_cgp("6/ATE3/1AA3/2tE2/3SET/4RE TSR/AX? 17/20 0", rs, lexicon=lexicon(rs))
    r = solve_endgame(pos)
    assert endgame_line_text(r.line, rs) == [
        "line: 4C (tE)S 6, 1C sAX 13",
        "end: the opponent goes out: +4 (TR); the player to move -4 (TR)",
        "final: 19 to 37: the opponent wins by 18",
    ]
    assert r.final_spread == pos.scores[0] - pos.scores[1] + r.value


def test_the_json_adds_the_line_with_scores_the_ending_and_the_final_scores(capsys):
    """Backward compatible: every key kept (``pv`` as it was), ``line``, ``ending``,
    ``final_scores`` and ``final_spread`` added, at the top and in each ``top`` entry."""
    code, out, err = run_cli(capsys, "endgame", AIT, "--json", "-q")
    d = json.loads(out)
    assert d["pv"] == ["11E A(D)", "-", "D9 (H)I", "-", "11D T(AD)"]
    assert d["line"] == [{"move": "11E A(D)", "score": 14, "player": 0}, {"move": "-", "score": 0, "player": 1},
                         {"move": "D9 (H)I", "score": 5, "player": 0}, {"move": "-", "score": 0, "player": 1},
                         {"move": "11D T(AD)", "score": 10, "player": 0}]
    assert d["ending"] == {"reason": "out", "player": 0,
                           "adjustments": [{"player": 0, "kind": "out", "points": 28, "tiles": "QV"}]}
    assert (d["final_scores"], d["final_spread"]) == ([377, 330], 47) and 320 - 330 + d["value"] == 47
    code, out, err = run_cli(capsys, "endgame", OOQU, "--json", "--top", "2", "-q")
    d = json.loads(out)
    assert d["ending"]["reason"] == "zero_turns" and d["ending"]["adjustments"] == [
        {"player": 0, "kind": "rack_penalty", "points": -11, "tiles": "QU"},
        {"player": 1, "kind": "rack_penalty", "points": -4, "tiles": "CU"}]
    for entry in d["top"]:
        assert [x["move"] for x in entry["line"]] == entry["pv"]
        assert entry["final_spread"] == 389 - 486 + entry["value"] == entry["final_scores"][0] - entry["final_scores"][1]
    code, out, err = run_cli(capsys, "endgame", OOQU, "--json", "--plies", "2", "-q")
    d = json.loads(out)
    assert (d["ending"], d["final_scores"], d["final_spread"]) == (None, None, None) and d["line"]


@pytest.mark.parametrize("variant", [0, 2, 3, 5, 6])
def test_the_final_scores_are_the_line_played_out(variant):
    """On small endgames of every end rule and limit of scoreless turns: the scores start plus
    each move's score for its player plus the ending's adjustments are the final scores, which
    are those of the line played out, and their spread moves by the value."""
    rs = tiny(**VARIANTS[variant])
    solved = 0
    for seed in range(60):
        pos = random_endgame(rs, seed, seed % 3, seed % 2)
        if pos is None:
            continue
        r = solve_endgame(pos)
        assert r.exact and r.ending is not None
        scores = list(pos.scores)
        for i, m in enumerate(r.pv):
            scores[i % 2] += m.score
        for adj in r.ending.adjustments:
            scores[adj.player] += adj.points
        assert tuple(scores) == r.final_scores
        p = pos.copy(stack=False)
        for m in r.pv:
            p.push(m)
        assert p.is_over
        k = len(r.pv)
        assert (p.scores[k % 2], p.scores[(k + 1) % 2]) == r.final_scores
        assert r.final_spread == pos.scores[0] - pos.scores[1] + r.value
        solved += 1
        if solved == 4:
            break
    assert solved == 4


# --- threads ------------------------------------------------------------------------------------------
def test_threads_change_no_value_or_move_and_the_help_says_lines_may_differ(capsys):
    """With --top 5 the lines of tied moves differed between 1 and 3 threads while the help said the
    answer did not depend on it: the moves and values do not; each line shown, whichever, plays
    to the final spread its value gives."""
    pos = Position.from_cgp(PORTAGES)
    one, three = solve_endgame(pos, top=5), solve_endgame(pos, top=5, threads=3)
    assert [(x.move, x.value) for x in one.top] == [(x.move, x.value) for x in three.top]
    for x in (*one.top, *three.top):
        assert x.final_spread == 453 - 441 + x.value
    code, out, err = run_cli(capsys, "endgame", "--help")
    text = " ".join(out.replace("│", " ").split())
    assert "the values and the moves do not depend on it; among lines of equal value after a move, the one shown may" in text
