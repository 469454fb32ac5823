"""Rules that a mutation-testing audit found no test held: each test states the rule (from the
docs, the rules, or a hand computation) and fails if the code that carries it is changed. Grouped
by area; each names, in its docstring, the wrong code it catches."""
from __future__ import annotations

import math

import numpy as np
import pytest

from oracle import WordIndex, oracle_placements, placement_move
from racksmith import Game, Lexicon, Position, Ruleset
from racksmith.core.move import Move
from racksmith.errors import GCGError
from racksmith.play.match import MatchResult, PairResult
from racksmith.review.replay import replay_text
from racksmith.sim.winpct import MAX_SWING, SwingTally, table_from_tally
from racksmith.training import RackTally, leaves_from_tally, rack_key
from racksmith.training.tally import to_fixed

BLANK = 0x80

#: a late English position (bag empty): the mover holds AEISSTZ (16 points), the opponent EG (3);
#: 13C AZ(O)TISES goes out (88 points)
LATE = ("ElEVaTOR6I/7U6C/2U4N4D1K/U1NA3L2PORGY/NAMEABLE1Q2I2/D1ER3TRUMPED1/E1TOW4I2G2/R2BIOTA1N1SHIV/"
        "WE1IF4O3N1/AX1AE4A3F1/YO2H8L1/1N2O8I1/4O8C1/4D8T1/7JAILERS1 AEISSTZ/EG")
OUT = "13C AZ(O)TISES"


# --- the endgame search: a placement worth 0 is no scoreless turn --------------------------------
ZERO_WORDS = ["AA", "AT", "TA", "AAA", "TAT", "ATT", "TATA"]


def _zero_ruleset() -> Ruleset:
    return Ruleset.from_dict({"name": "zero-point-5", "board": ["....."] * 5, "start": "3C", "rack_size": 3,
                              "bingo_bonus": 0, "tiles": [["A", 3, 1], ["T", 1, 1]], "blanks": 2})


def _oracle_moves(pos: Position, index: WordIndex) -> list[Move]:
    """Every move of the player to move, by the word-driven oracle (tests/oracle.py), and the pass."""
    out = []
    for p in oracle_placements(pos, index):
        m = placement_move(pos, p)
        out.append(Move.place(m.row, m.col, m.across, m.tiles, m.alphabet, score=p[4]))
    return out + [Move.pass_(pos.ruleset.alphabet, score=0)]


def _minimax(pos: Position, index: WordIndex, memo: dict) -> int:
    """What best play adds to the mover's spread from here to the end: every move of every line
    (Position.push/pop, no pruning), each position once (``memo``)."""
    if pos.is_over:
        return 0
    key = (pos.board.tobytes(), tuple(map(tuple, pos.racks)), pos.zero_turns)
    if key in memo:
        return memo[key]
    best = None
    for m in _oracle_moves(pos, index):
        before = pos.scores[0] - pos.scores[1]
        pos.push(m, trusted=True)
        gain = (pos.scores[1] - pos.scores[0]) - before - _minimax(pos, index, memo)
        pos.pop()
        best = gain if best is None else max(best, gain)
    memo[key] = best
    return best


def test_endgame_value_of_a_blank_play_worth_0_after_five_scoreless_turns_is_the_minimax_s():
    """A placement that scores 0 (blanks only) resets the count of scoreless turns (WESPA; the rules
    of Position.push): after five scoreless turns it does not end the game. The solver's value of
    such a play is the plain minimax's over Position.push/pop. (Catches _endgame.pyx counting a
    0-point placement as scoreless: the sixth scoreless turn would end the game there, each losing
    his rack: A against AA, +1.)"""
    rs = _zero_ruleset()
    a = rs.alphabet
    board = np.zeros((5, 5), np.uint8)
    board[2, 2] = a.tile("A") | BLANK  # 3C: a blank A
    board[2, 3] = a.tile("T")          # 3D: T (aT); every other tile is on a rack: the bag is empty
    pos = Position(rs, board, (a.rack("?A"), a.rack("AA")), (10, 10), 5,
                   lexicon=Lexicon.from_words(ZERO_WORDS, rs))
    assert pos.bag_count == 0 and pos.zero_turns == 5
    index, memo = WordIndex(ZERO_WORDS, a), {}
    zero = [m for m in _oracle_moves(pos, index) if m.is_place and m.score == 0]
    assert zero  # the blank over or under the blank A: aa, worth 0
    for m in zero:
        after = pos.copy(stack=False)
        after.push(m, trusted=True)
        assert (after.zero_turns, after.is_over) == (0, False)
        expected = m.score - _minimax(after, index, memo)
        r = pos.solve_endgame(move=m)
        assert r.exact and r.move_value == expected, m.notation()
    assert pos.solve_endgame().value == _minimax(pos.copy(stack=False), index, memo)


# --- the simulation: a tied play-out counts half a win --------------------------------------------
def test_simulated_play_out_that_ends_in_a_tie_counts_half_a_win():
    """13C AZ(O)TISES (88) goes out: 455 + 88 + twice EG (6) = 549, the opponent's 549 (Position.push
    says so too): with one ply every play-out of it ends in that tie, a draw, worth half a win:
    50%. (Catches _sim.pyx scoring a tied play-out 0.)"""
    pos = Position.from_cgp(LATE + " 455/549 0")
    final = pos.copy(stack=False)
    final.push(OUT)
    assert final.is_over and list(final.scores) == [549, 549]  # a tie, by the rules
    r = pos.simulate(moves=[OUT], plies=1, iterations=20, seed=1)
    (c,) = [c for c in r.candidates if c.move.notation() == OUT]
    assert c.iterations > 0 and c.win_pct == pytest.approx(50.0)


# --- win% training -------------------------------------------------------------------------------
def test_record_game_tallies_each_seat_s_swing_from_its_own_final_spread():
    """SwingTally.record_game: the swing of a turn is the mover's final spread less his spread then
    (the module docstring: d = f - s from the mover's side). Seat 0 (60 unseen, 10 ahead) ends 30
    behind: -40; seat 1 (50 unseen, 10 behind) ends 30 ahead: +40. (Catches seat 1's swing taken
    from seat 0's final spread.)"""
    t = SwingTally.empty(93)
    t.record_game([(0, 60, 10), (1, 50, -10)], [-30, 30])
    assert t.counts.sum() == 2
    assert t.counts[59, MAX_SWING - 40] == 1
    assert t.counts[49, MAX_SWING + 40] == 1


def test_a_thin_row_borrows_from_its_neighbours_by_a_triangle():
    """The module docstring: a row with too few swings pools a window of rows widened until it holds
    MIN_ROW, weighted by a triangle. Row 1 (1 unseen) has 100 swings of +50, row 3 100 of -50,
    min_row 150: the window of row 1 is rows 1..3 (w = 2), weights 1, 2/3, 1/3, so its chance at
    spread 0 is 100 / (100 + 100/3) = 0.75 (equal weights would give 0.5)."""
    t = SwingTally.empty(3)
    t.counts[0, MAX_SWING + 50] = 100
    t.counts[2, MAX_SWING - 50] = 100
    table, obs = table_from_tally(t, max_spread=100, min_row=150, smooth=1.0)
    assert table[0, 100] == pytest.approx(100 / (100 + 100 / 3))
    assert table[2, 100] == pytest.approx(1 - 100 / (100 + 100 / 3))  # the mirror image
    assert obs.tolist() == [200, 200, 200]


# --- leave training ------------------------------------------------------------------------------
def test_a_three_tile_leave_is_smoothed_toward_the_mean_of_its_parts():
    """leavegen's docstring: value(L) = (s_L - n_L mu + K prior(L)) / (n_L + K), prior(L) = the mean
    over L's tiles t of value(L - t) + value(t). The turns of test_strength's
    test_leave_values_by_hand (AABCDEF 10 and 30, ABCDEFG 50: mu = 30), K = 1:
    A = B = 0, G = 10, AB = 0, AG = BG = 15 (checked there and here); ABG: n = 1, deviation 20,
    prior = (BG + A + AG + B + AB + G) / 3 = 40 / 3, value = (20 + 40/3) / 2 = 16.667.
    (Catches the prior divided by 2 whatever the leave's size.)"""
    t = RackTally.from_observations(
        [rack_key([1, 1, 2, 3, 4, 5, 6]), rack_key([1, 2, 3, 4, 5, 6, 7]), rack_key([1, 1, 2, 3, 4, 5, 6])],
        [to_fixed(10), to_fixed(50), to_fixed(30)],
    )
    v = dict(leaves_from_tally(t, "english", prior_weight=1, complete=False).items())
    assert (v["A"], v["B"], v["AB"]) == (0, 0, 0)
    assert v["G"] == pytest.approx(10) and v["AG"] == pytest.approx(15) and v["BG"] == pytest.approx(15)
    prior = ((v["BG"] + v["A"]) + (v["AG"] + v["B"]) + (v["AB"] + v["G"])) / 3
    assert v["ABG"] == pytest.approx((20 + prior) / 2, rel=1e-6)
    assert v["ABG"] == pytest.approx(50 / 3, rel=1e-6)


# --- matches -------------------------------------------------------------------------------------
def test_a_match_counts_a_draw_as_half_a_win_for_each_player():
    """Player 1 wins both games of pair 0 and draws both of pair 1: 2 wins, 2 draws of 4 games, a
    win rate of (2 + 2/2) / 4 = 0.75; player 2's is 0.25, and the two add up to 1. (Catches draws
    counted as whole wins.)"""
    r = MatchResult("equity", "score", "english", 1,
                    [PairResult(0, (400, 350), (380, 300)), PairResult(1, (390, 390), (410, 410))], 1.0)
    assert (r.p1.wins, r.p1.losses, r.p1.draws) == (2, 0, 2)
    assert (r.p2.wins, r.p2.losses, r.p2.draws) == (0, 2, 2)
    assert r.p1.win_rate == pytest.approx(0.75) and r.p2.win_rate == pytest.approx(0.25)
    assert r.p1.win_rate + r.p2.win_rate == pytest.approx(1.0)
    assert r.to_dict()["p1"]["win_rate"] == pytest.approx(0.75)


# --- games: challenges and winners ---------------------------------------------------------------
def test_a_double_challenge_of_a_valid_play_that_went_out_changes_nothing():
    """Game.challenge: a double challenge (bonus 0) of a valid play costs the challenger his turn;
    when that play went out the game is over and there is no turn to lose: False, and the game,
    its history and its scores as they were. (Catches the challenge going on to record a pass.)"""
    g = Game.from_cgp(LATE + " 455/549 0", seed=1)
    g.play(OUT)
    assert g.over
    scores, history, cgp = list(g.scores), list(g.history), g.position.cgp()
    assert g.challenge() is False
    assert g.over and list(g.scores) == scores and list(g.history) == history
    assert g.position.cgp() == cgp


def test_a_tie_has_two_winners_in_a_position_and_in_a_game():
    """Outcome.winners and Game.winners: every player with the highest score, more than one on a
    tie. Position: 500/500 after six scoreless turns. Game: 500/487 after five, the mover passes:
    the sixth ends it, each loses his own rack (AEISSTZ 16, EG 3): 484 each. (Catches the winners
    cut to the first.)"""
    out = Position.from_cgp(LATE + " 500/500 6").outcome()
    assert out is not None and out.scores == (500, 500)
    assert out.winners == (0, 1)
    g = Game.from_cgp(LATE + " 500/487 5", seed=1)
    g.play("-")
    assert g.over and list(g.scores) == [500 - 16, 487 - 3]
    assert list(g.winners) == [0, 1]


# --- analysis ------------------------------------------------------------------------------------
def test_the_error_of_the_win_pct_lost_adds_both_errors_in_quadrature(monkeypatch):
    """The win% lost is the difference of two independent estimates (the best other move's and the
    move played's, unpaired play-outs): its standard error is sqrt(se1^2 + se2^2), more than either.
    Turn 2 of test_analysis_grades' game (E5 REC(R)UITS), graded from its first simulation alone
    (settled: no duel of common tiles after it): the analysis's error is that simulation's.
    (Catches max(se1, se2).)"""
    import racksmith.sim.simulate as simmod
    from racksmith.review.analysis import analyze
    from test_analysis_grades import first_turns

    first = []  # each turn's first simulation (a duel's batches are round-robin)
    real = simmod.simulate

    def recording(*args, **kw):
        r = real(*args, **kw)
        if not kw.get("round_robin"):
            first.append(r)
        return r

    monkeypatch.setattr(simmod, "simulate", recording)
    t = analyze(replay_text(first_turns(2)), None, top=1,
                sim=dict(iterations=200, candidates=5, plies=1, seed=0)).turns[1]
    assert len(first) == 2
    cands = [c for c in first[1].candidates if c.iterations and not math.isnan(c.win_pct)]
    (mine,) = [c for c in cands if c.move.notation() == t.played]
    others = [c for c in cands if c is not mine]
    assert t.playouts == mine.iterations  # graded from this simulation, not a duel
    best_other = others[0]  # (the simulation ranks its candidates best first)
    assert best_other.win_pct == max(c.win_pct for c in others)
    assert mine.stderr > 0 and best_other.stderr > 0
    assert t.win_pct_stderr == pytest.approx(mine.stderr)
    assert t.win_pct_lost_stderr == pytest.approx(math.hypot(mine.stderr, best_other.stderr))
    assert t.win_pct_lost_stderr > max(mine.stderr, best_other.stderr)


# --- CGP -----------------------------------------------------------------------------------------
def test_an_empty_mover_s_rack_is_known_when_the_unseen_tiles_just_fill_the_other_rack():
    """cgp_racks_known: both racks written empty, 7 tiles unseen, the rack size 7: they fit on the
    opponent's rack, so the bag is empty and the mover's empty rack is a known empty one: he went
    out and the game is over, his bonus twice the unseen tiles (AEISSTZ, 16: 32). (Catches the
    tiles having to be fewer than the room: the mover's rack taken as not known.)"""
    board = LATE.split()[0].replace("7JAILERS1", "EG5JAILERS1")  # EG on the board, AEISSTZ unseen
    pos = Position.from_cgp(f"{board} / 455/549 0")
    assert pos.racks_known == (True, False)
    assert pos.rack_sizes == (0, 7) and pos.bag_count == 0 and pos.is_over
    out = pos.outcome()
    assert out.ending.player == 0
    assert [adj.points for adj in out.ending.adjustments if adj.player == 0] == [32]


# --- GCG replay ----------------------------------------------------------------------------------
CLUB = {"name": "club5b", "board": ["....."] * 5, "start": "3C", "rack_size": 3, "bingo_bonus": 0,
        "end_rule": "club", "tiles": [["A", 7, 1], ["B", 1, 3]]}


def test_a_rack_penalty_for_the_player_who_went_out_is_refused():
    """Club rule: the player who goes out has no rack left to subtract. A record that subtracts
    one from him is refused with that reason and the line is not counted. (Catches the check
    skipped: the penalty taken from the player who went out.)"""
    rs = Ruleset.from_dict(CLUB)
    g = Game(rs, lexicon=Lexicon.from_words(["AA", "AAA", "AAAA", "AAAAA"], rs), seed=0)
    g.play("3B AA")
    g.play("3A A(AA)AA")  # p2 goes out
    assert g.over
    good = replay_text(g.gcg(), rs)
    assert good.final_scores() == {"p1": -3, "p2": 10}
    bad = g.gcg() + ">p2: B (B) -3 7\n"
    r = replay_text(bad, rs, strict=False)
    assert any("p2 went out: there is no rack of his to subtract" in e.message for e in r.errors)
    assert r.final_scores() == {"p1": -3, "p2": 10}
    with pytest.raises(GCGError, match="p2 went out: there is no rack of his to subtract"):
        replay_text(bad, rs)
