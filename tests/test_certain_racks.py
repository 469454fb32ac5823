"""Racks the position does not give whose tiles are certain: with the bag empty, a rack left out of
the CGP (``RACK/``), or known in part (``AABDIKL/EU``), holds the unseen tiles. Written back as CGP,
played to the end, simulated, listed by ``racksmith moves``: the same position as with the racks
given."""
from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racksmith import Game, Position
from racksmith.cli.main import main
from racksmith.sim.simulate import simulate

# the bag empty, the mover (I) about to go out with K5 (L)I; the opponent's rack is the Q
OUT = ("3D1PHON2OR1A/1GLUEY3MISE1D/2INTENTLY2FIZ/3T3R6E/7O2LOUIs/7U7/7P7/3BAWTIES5/1AFIRE1N1OM4/"
       "AX2AR1G1JOGS2/REVOKED2AWEE2/SLED2E4NA2/H1T3V4UT2/I1O2BACCARa3/N4I9")
# the bag empty, the unseen tiles AABDEIKLMU
CLOSE = ("10FAQIR/9VAW1D1/2N10I1/2OXEN1U5OH/2N1YaRNING2TA/2PLEB1R6D/2A4U1LOOIES/CUIFS1GLOOMY2T/2D1H2I7/"
         "4I1GEEZ5/4V2R7/TEPEE10/1TERRANE7/TATES2SOJA4/10WIlCO")
AFTER_DAK = CLOSE.replace("1TERRANE7", "1TERRANE2DAK2")


def same_game(p: Position, q: Position) -> None:
    """``q`` is ``p`` as far as the racks go: the same board, scores, rack sizes, bag, tiles of every
    rack whose tiles are known or certain, and the same end of the game."""
    assert q.board.tobytes() == p.board.tobytes() and q.scores == p.scores and q.zero_turns == p.zero_turns
    assert q.rack_sizes == p.rack_sizes and q.bag_count == p.bag_count
    assert q.inferred_racks() == p.inferred_racks()
    assert q.is_over == p.is_over
    a, b = p.outcome(), q.outcome()
    assert (a is None) == (b is None)
    if a is not None:
        assert (b.ending, b.scores, b.uncounted) == (a.ending, a.scores, a.uncounted)


def state(p: Position) -> tuple:
    return (p.board.tobytes(), list(p.racks), list(p.scores), p.zero_turns, p.racks_known, p.racks_partial,
            p.rack_sizes, p.cgp(), p.is_over)


# --- a finished game against a rack not given --------------------------------------------------

def test_a_game_won_against_a_rack_left_out_writes_the_stuck_rack():
    """(the CGP wrote both racks empty, read back as the Q holder going out)"""
    p = Position.from_cgp(f"{OUT} I/ 359/486 0")
    p.push("K5 (L)I")
    assert p.cgp().split()[1:] == ["Q/", "486/381", "0"]  # (it wrote "/", both racks empty)
    out = p.outcome()
    assert out.ending.player == 1 and str(out.ending.adjustments[0].tiles) == "Q"
    q = Position.from_cgp(p.cgp())
    same_game(p, q)
    assert q.outcome().ending.player == 1  # the player who played (L)I went out, not the Q holder
    assert "to move: Q " in q.render()  # (it showed the mover's rack as gone, the opponent holding 1 tile)
    p.pop()
    assert p.cgp() == f"{OUT} I/ 359/486 0"  # (as it was: the CGP reads back the same while the game goes on)


def test_a_game_won_against_a_rack_known_in_part_writes_the_stuck_rack():
    b = Position.from_cgp(f"{CLOSE} ADKMU/ 300/300 0")
    a = b.ruleset.alphabet
    p = Position(b.ruleset, b.board, (a.rack("ADKMU"), a.rack("EL")), [300, 300], racks_known=(True, False))
    assert p.racks_partial == (False, True) and p.rack_sizes == (5, 5) and p.cgp().split()[1] == "ADKMU/EL"
    p.push("13K DUMKA")
    assert p.cgp().split()[1] == "ABEIL/"  # (it wrote "/": read back, the rack of ABEIL had gone out)
    same_game(p, Position.from_cgp(p.cgp()))
    assert Position.from_cgp(p.cgp()).outcome().ending.player == 1


def test_an_endgame_of_a_mover_left_out_reads_back_to_its_end():
    p = Position.from_cgp(f"{AFTER_DAK} /ABIL 345/378 0")
    assert str(p.inferred_racks()[0]) == "EMU"
    while not p.is_over:
        p.push(p.moves(top=1)[0])
        same_game(p, Position.from_cgp(p.cgp()))


# games played to their end from an endgame whose rack (the opponent's, or the mover's) the CGP
# leaves out or gives in part: each step written as CGP reads back as the same game, and popping
# every move comes back to where it started

@functools.lru_cache(maxsize=None)
def endgame_cgp(seed: int) -> "tuple[str, tuple[int, ...], tuple[int, ...]] | None":
    """The first position of a self-play game with the bag empty: its CGP with both racks given."""
    g = Game("english", seed=seed)
    while not g.over:
        pos = g.live_position
        if pos.bag_count == 0:
            return pos.cgp(), tuple(pos.racks[0]), tuple(pos.racks[1])
        g.play(pos.moves(top=1, sort="score")[0])
    return None


@st.composite
def endgames(draw):
    seed = draw(st.integers(0, 11))
    found = endgame_cgp(seed)
    if found is None:
        return None
    cgp, mine, theirs = found
    pos = Position.from_cgp(cgp)
    a = pos.ruleset.alphabet
    fields = cgp.split(" ")
    seat = draw(st.sampled_from([0, 1]))  # whose rack is not given
    rack = list((mine, theirs)[seat])
    part = draw(st.integers(0, max(len(rack) - 1, 0)))  # how many of its tiles are given (0: left out)
    given = sorted(draw(st.permutations(rack))[:part])
    racks = [a.rack_string(a.tiles(mine), blanks_last=True), a.rack_string(a.tiles(theirs), blanks_last=True)]
    if seat == 0:
        racks[0] = ""  # (the mover's rack: left out, the CGP has no partial one of his)
    else:
        racks[1] = a.rack_string(a.tiles(given), blanks_last=True)
    fields[1] = "/".join(racks)
    return " ".join(fields), pos, draw(st.lists(st.integers(0, 3), min_size=12, max_size=12))


@settings(max_examples=30, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(endgames())
def test_endgames_with_a_rack_not_given_play_to_the_end_and_read_back(x):
    if x is None:
        return
    cgp, full, picks = x
    p = Position.from_cgp(cgp)
    assert p.inferred_racks() == full.inferred_racks()  # (the bag empty: the rack not given is certain)
    start = state(p)
    pushed = 0
    for pick in picks:
        same_game(p, Position.from_cgp(p.cgp()))
        assert p.racks_partial == tuple(not k and bool(r) and s > len(r)
                                        for r, k, s in zip(p.racks, p.racks_known, p.rack_sizes))
        if p.is_over:
            break
        ms = p.moves(top=4, sort="score")
        p.push(ms[min(pick, len(ms) - 1)])
        full.push(ms[min(pick, len(ms) - 1)])
        pushed += 1
        assert p.inferred_racks() == full.inferred_racks() and p.scores == full.scores
    if p.is_over:
        assert full.is_over and p.outcome().ending == full.outcome().ending
    for _ in range(pushed):
        p.pop()
    assert state(p) == start


# --- a rack known in part whose known tiles are all its tiles ---------------------------------------

def test_a_partial_rack_with_no_unknown_tile_left_is_known_whole():
    p = Position.from_cgp(f"{CLOSE} AABDIKL/EU 355/345 0")
    assert p.racks_partial == (False, True) and p.rack_sizes == (7, 3)
    p.push("13K DAK", draw=[])
    before = state(p)
    assert p.racks_partial == (True, False) and p.rack_sizes == (3, 4)  # EU and the M: not all known yet
    p.push("L12 M(A)")
    # (it stayed "known in part", EU + 0 unknown, and did not read back equal)
    assert p.racks_known == (True, True) and p.racks_partial == (False, False) and str(p.racks[1]) == "EU"
    assert p.cgp().split()[1] == "ABIL/EU" and p == Position.from_cgp(p.cgp())
    assert "+ 0 unknown" not in p.render()
    p.pop()
    assert state(p) == before and p.racks_partial == (True, False)


def test_a_partial_rack_given_with_all_its_tiles_is_known_whole():
    b = Position.from_cgp(f"{AFTER_DAK} EMU/ABIL 345/378 0")
    a = b.ruleset.alphabet
    # the known part of the mover's rack is all the unseen tiles allow him
    p = Position(b.ruleset, b.board, (a.rack("EMU"), a.rack("ABIL")), [345, 378], racks_known=(False, True))
    assert p.racks_known == (True, True) and p.racks_partial == (False, False)


# --- simulation and the moves command with a certain rack not given ----------------------------

@pytest.mark.parametrize("racks", ["/ABIL", "ADEKMU/"])
def test_the_simulation_takes_a_certain_rack_as_given(racks):
    """(the mover's rack not given: "candidate 0 places a tile the rack does not hold")"""
    given = simulate(Position.from_cgp(f"{CLOSE} ADEKMU/ABIL 345/378 0"), candidates=4, iterations=40, seed=1)
    r = simulate(Position.from_cgp(f"{CLOSE} {racks} 345/378 0"), candidates=4, iterations=40, seed=1)
    assert r.opponent_rack == "known" and r.note is None
    assert [(c.move, c.win_pct, c.equity) for c in r.candidates] == \
        [(c.move, c.win_pct, c.equity) for c in given.candidates]


def test_the_simulation_of_a_mover_known_in_part_takes_his_certain_rack():
    p = Position.from_cgp(f"{CLOSE} AABDIKL/EU 355/345 0")
    p.push("13K DAK", draw=[])
    assert p.racks_partial == (True, False)
    r = p.simulate(candidates=3, iterations=30, seed=1)
    assert r.candidates[0].move.notation() in {m.notation() for m in p.moves()}


def test_an_inference_is_not_used_for_a_certain_rack():
    from racksmith.sim.infer import infer_leaves

    inference = infer_leaves(Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0"),
                             "8D OUTGUN", samples=200, exact_up_to=200)
    r = simulate(Position.from_cgp(f"{CLOSE} ADEKMU/ 345/378 0"), candidates=2, iterations=20, seed=1,
                 opponent_racks=inference)
    assert r.opponent_rack == "known"
    assert r.note == ("the bag is empty, so the opponent's rack is certain (the unseen tiles): the inference from "
                      "8D OUTGUN is not used")


def test_the_moves_command_names_the_rack_it_lists(capsys):
    assert main(["moves", f"{CLOSE} /ABIL 345/378 0", "-n", "2"]) == 0
    out, _ = capsys.readouterr()
    assert "rack ADEKMU (the unseen tiles: the bag is empty), by equity" in out and "(empty)" not in out
    p = Position.from_cgp(f"{CLOSE} AABDIKL/EU 355/345 0")
    p.push("13K DAK", draw=[])
    assert main(["moves", p.cgp(), "-n", "2"]) == 0
    assert "rack EMU (the unseen tiles: the bag is empty)" in capsys.readouterr()[0]
    assert main(["moves", f"{CLOSE} ADEKMU/ABIL 345/378 0", "-n", "2"]) == 0
    assert "rack ADEKMU, by equity" in capsys.readouterr()[0]


def test_two_racks_not_known_are_not_settled_on_a_guess():
    """Three players, two racks known in part with the bag empty: how the unseen tiles split between
    them is a guess, so neither becomes known (the EOR player's real O(A)F was refused as 'the rack O')."""
    p = Position.from_cgp(
        "3P2YUCA1V3/3E5WRENS1/2DO7L3/2EN7D3/2M7ITS2/1JO7N1U2/1A4Y3C1Q2/KNOB2AWHIRL3/1E1I2G3E4/3G2I1AMA4/"
        "BISHOPS1pIT4/U2T4ERE4/R7XI5/N8E5/T6ZERO4 AAFNOTV/D/EOR 143/180/292 0")
    p.push("F4 FAVA", "ADEL")
    p.push("1L (V)AIL")
    p.push("1A ERU(P)T")
    p.push("3K E(L)D")
    p.push("13A (R)EGs")
    assert not p.racks_known[0]  # the EOR player, to move: O and tiles nobody knows
    p.push("5E O(A)F")  # his real play
