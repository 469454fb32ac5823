"""When the simulation may stop on confidence, and what it reports: the sampler's variances with
pseudo-play-outs (a play whose first play-outs all came out alike is not taken for certain, nor
shown as ±0.00), the similarity key with the score (anagrams on the same squares are raced), plays
that were never raced not reported as a confident pick, and the leave of a move made with the bag
empty worth nothing at one ply."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from bai_reference import BestArm
from racksmith import Position
from racksmith.core.move import Move
from racksmith.sim._sim import Sampler
from racksmith.sim.simulate import VARIANCE_PRIOR, _result, similarity_key, simulate, win_variance
from test_sim import KNOWN, MID, SYNTH, WP

# an audit's positions: nearly every play-out won (3K EFT the best: 96.5% against 3K TUFT's 93.7%,
# a 40,000-play-out round robin) and nearly every one lost (13E LI(V)ID the best, 1.2%)
WINNING = ("D2V3P2WHAUp/E2E1V1OOZE4/FREAKOUt7/I2L1L1E7/4MA1E7/4IN1N1G5/2JUNTA1ER5/ABO1C1MAXI5/3PE1IRIS5/"
           "2GAR3TOYS3/2LIS4NEED2/1HAD6AWE2/1OD7R1I2/1BY7S1L2/1O13 CEFNTTU/ 339/279 0")
LOSING = ("5PHON5A/1GLUEY3MISE1D/2INTENTLY2FIZ/7R6E/7O7/7U7/7P7/3BAWTIES5/1AFIRE1N1OM4/AX2AR1G1JOGS2/"
          "REVOKED2AWEE2/SLED2E4NA2/H1T3V4UT2/I1O12/N14 DIIILTU/ 319/430 0")
ANAGRAMS = ("INLAY2L7/4EMBANK2FIN/INTONE1T4U2/2OW3I1SWAN2/7GAPY1D2/5GOO1AEGIS1/4BAH5C2/3VELOCE5J/7AXIS2HA/"
            "7R1FEEZED/7R2L1EME/10V1TOD/6QUOTa1AI1/10S2D1/15 EEPRRR?/ 287/302 0")
EMPTY_BOARD = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AT?QXJK/ 0/0 0"
EMPTY_BAG = ("3D1PHON5A/1GLUEY3MISE1D/2INTENTLY2FIZ/3T3R6E/7O2LOUIs/7U7/7P7/3BAWTIES5/1AFIRE1N1OM4/AX2AR1G1JOGS2/"
             "REVOKED2AWEE2/SLED2E4NA2/H1T3V4UT2/I1O2BACCA5/N14 OQRR?/II 457/355 0")


# --- the sampler: variances with pseudo-samples ---------------------------------------------------
def _race(prior: float, seed: int, budget: int = 5000) -> Sampler:
    """Two arms as an audit set them: arm 0 wins 95% of its play-outs (0 or 1), arm 1 is worth
    0.97 give or take 0.01 — the better one, though arm 0's first 30 samples are all wins one time
    in five. Seeded: the same race every time."""
    rng = np.random.default_rng(seed)
    b = Sampler(2, 0.01, 30, None, random.Random(f"stop:{seed}").getstate()[1], False, prior)
    while b.total < budget:
        arms, _ = b.select(32)
        win = np.where(arms == 0, (rng.random(32) < 0.95).astype(np.float64),
                       np.minimum(1.0, rng.normal(0.97, 0.01, 32)))
        if b.feed(arms, win, win):
            break
    return b


def test_a_run_of_wins_is_not_certainty():
    """With the samples' own variances (prior 0: MAGPIE's rule, and racksmith's before) an arm
    whose first 30-odd samples were all wins had a variance of 0 (the 1e-10 floor), and the race
    stopped on it sure of a worse play (200 of 1,000 races at δ = 0.01); with the pseudo-samples
    simulate() gives the sampler, none of these races does."""
    races = {p: [_race(p, s) for s in range(150)] for p in (0.0, VARIANCE_PRIOR)}
    wrong = {p: sum(b.stopped and b.leader == 0 for b in bs) for p, bs in races.items()}
    assert wrong[0.0] >= 15          # the old rule: about one race in five
    assert wrong[VARIANCE_PRIOR] == 0
    assert sum(b.stopped for b in races[VARIANCE_PRIOR]) >= 140  # and the race still ends


def test_the_variance_cannot_collapse():
    """An arm's variance is that of its samples with ``prior`` pseudo-samples at 0 and as many at
    1: for won-or-lost samples, w wins of n, (w + k)(n - w + k) / (n + 2k)^2 (k = 1: the
    Agresti-Coull-style floor; 1/2: Jeffreys'), never 0; for samples that vary, nearly their own."""
    b = Sampler(2, 0.01, 1, None, None, False, 0.5)
    for _ in range(32):
        b.add(0, 1.0)
        b.add(1, 0.5)
    assert win_variance(32, 32.0, 32.0, 0.5) == pytest.approx(32.5 * 0.5 / 33 ** 2)
    assert win_variance(32, 16.0, 8.0, 0.5) == pytest.approx(0.25 / 33)
    rng = random.Random(3)
    xs = [rng.random() for _ in range(2000)]
    plain = sum(x * x for x in xs) / 2000 - (sum(xs) / 2000) ** 2
    assert win_variance(2000, sum(xs), sum(x * x for x in xs), 0.5) == pytest.approx(plain, rel=2e-3)
    # and no prior: the samples' own variance, as before
    assert win_variance(32, 32.0, 32.0, 0.0) == 0.0


@pytest.mark.parametrize("seed", range(12))
def test_the_compiled_sampler_with_a_prior_makes_the_reference_choices(seed):
    r = random.Random(seed)
    n = r.randint(2, 6)
    means = [r.random() for _ in range(n)]
    prior = r.choice([0.5, 1.0, 0.25])
    ref = BestArm(n, prior=prior, delta=0.05, min_samples=5, rng=random.Random(f"p:{seed}"))
    fast = Sampler(n, 0.05, 5, None, random.Random(f"p:{seed}").getstate()[1], False, prior)
    draws = random.Random(-seed)
    for _ in range(3000):
        arm = ref.next_arm()
        assert fast.next_arm() == arm
        v = float(draws.random() < means[arm]) if seed % 2 else min(1.0, max(0.0, draws.gauss(means[arm], 0.2)))
        stopped = ref.add(arm, v)
        assert fast.add(arm, v) == stopped
        assert (fast.leader, fast.challenger) == (ref.leader, ref.challenger)
        if stopped:
            break
    assert (fast.count, fast.sum, fast.sumsq) == (ref.count, ref.sum, ref.sumsq)
    assert fast.prior == prior


@pytest.mark.parametrize("bad", [-0.5, float("nan"), 1e9, True, "1"])
def test_the_prior_is_checked(bad):
    with pytest.raises(ValueError, match="prior"):
        Sampler(2, 0.01, 1, None, None, False, bad)


def test_the_standard_error_shown_is_not_zero_after_a_run_of_wins():
    """32 play-outs all won: the win% is not known to ±0.00 but, as the race takes it, to about
    2 points (Jeffreys': the posterior's deviation with 32 wins of 32); the equity's error is the
    sample's. Without pseudo-samples (where play-outs are certain) the sample's error, as before."""
    for prior, want in ((VARIANCE_PRIOR, 100 * math.sqrt(32.5 * 0.5 / 33 ** 2 * 33 / 32 / 32)), (0.0, 0.0)):
        b = Sampler(2, None, 1, None, None, False, prior)
        b.feed(np.zeros(32, np.int32), np.ones(32), np.full(32, 20.0))
        b.feed(np.ones(4, np.int32), np.array([1.0, 0.0, 1.0, 0.0]), np.zeros(4))
        r = _result([Move.pass_(), Move.pass_()], b, [{"equity": 0.0}] * 2, "iterations", 0.0, 2, 1, 1)
        won = next(c for c in r.candidates if c.iterations == 32)
        assert won.stderr == pytest.approx(want) and won.equity_stderr == 0.0
        if prior:
            assert won.stderr > 2.0
        half = next(c for c in r.candidates if c.iterations == 4)
        assert half.stderr == pytest.approx(100 * math.sqrt(win_variance(4, 2.0, 2.0, prior) * (4 + 2 * prior) / (3 + 2 * prior) / 4))


# --- real positions --------------------------------------------------------------------------------
@pytest.mark.parametrize("cgp, best, seeds", [
    (WINNING, "3K EFT", (16, 33, 38, 141)),   # stopped sure of 3K TUFT after 1,726-1,857 play-outs
    (LOSING, "13E LI(V)ID", (12, 38)),        # sure of I6 TI(E) after 1,680 and 1,195
])
def test_no_confident_stop_on_a_worse_play(cgp, best, seeds):
    """The seeds where the race stopped sure of a worse play (an audit's sweeps: 7 of 40 stops on
    confidence wrong over seeds 1-150 of WINNING, 20 of 73 over 1-100 of LOSING): a play whose
    first play-outs were all won (or all lost) was taken for certain."""
    pos = Position.from_cgp(cgp)
    for seed in seeds:
        r = simulate(pos, iterations=2500, seed=seed)
        assert r.stopped != "confidence" or r.best.move.notation() == best, (seed, r)
        assert all(c.stderr >= 0.1 for c in r.candidates if c.iterations), seed


def test_the_play_outs_are_unchanged():
    """The pseudo-samples move only the sampler's choices: with none, a seed's run is the one
    recorded before them, play-out for play-out (test_sim_plies.py's "mid")."""
    import racksmith.sim.simulate as sim

    before = [("3J EVOKE", "0x1.03fbfb4726de1p+6", 63), ("3K KOI", "0x1.00a4dc87a9c1fp+6", 52),
              ("5G VAKEE(L)", "0x1.fe2da90f7ca29p+5", 56), ("3K VOE", "0x1.fe14922abf66cp+5", 65),
              ("G7 I(N)VOKE", "0x1.e27633f6ee614p+5", 32), ("3L OVA", "0x1.df42dcb1e10d3p+5", 32)]
    pos = Position.from_cgp(MID)
    old, sim.VARIANCE_PRIOR = sim.VARIANCE_PRIOR, 0.0
    try:
        r = simulate(pos, candidates=6, iterations=300, seed=7, leaves=SYNTH, winpct=WP)
    finally:
        sim.VARIANCE_PRIOR = old
    assert [(c.move.notation(), c.win_pct.hex(), c.iterations) for c in r.candidates] == before


def test_certain_play_outs_take_no_prior():
    """With the bag empty every play-out of a play is the same (the racks are certain), and so it
    is at one ply against a rack we know: no pseudo-samples, the standard errors 0 as they were,
    and plays that differ are told apart at the first race."""
    r = simulate(Position.from_cgp(EMPTY_BAG), candidates=3, iterations=300, seed=1)
    assert all(c.stderr == 0.0 and c.iterations for c in r.candidates)
    known = Position.from_cgp(KNOWN)
    r = simulate(known, candidates=5, plies=1, iterations=2000, seed=9, leaves=SYNTH, winpct=WP)
    assert r.stopped == "confidence" and r.iterations == 150
    assert all(c.stderr < 1e-6 for c in r.candidates)  # (0 but for rounding)
    assert simulate(known, candidates=5, plies=2, iterations=300, seed=9, leaves=SYNTH, winpct=WP).best.stderr > 0


# --- similar plays -----------------------------------------------------------------------------------
def test_the_similarity_key_holds_the_score():
    """MAGPIE's key has the score: 5C PER (21) and 5C REP (19) take the same tiles to the same
    squares but are not the same play; 8G cAT and 8G bAT (a blank either way, 10 each) are."""
    moves = {m.notation(): m for m in Position.from_cgp(ANAGRAMS).moves()}
    per, rep = moves["5C PER"], moves["5C REP"]
    assert (per.score, rep.score) == (21, 19)
    assert similarity_key(per) != similarity_key(rep)
    moves = {m.notation(): m for m in Position.from_cgp(EMPTY_BOARD).moves()}
    assert similarity_key(moves["8G cAT"]) == similarity_key(moves["8G bAT"])


def test_anagrams_are_raced():
    """5C PER against 5C REP: they were similar, so the run stopped "sure" at 60 play-outs having
    raced nothing; now they are raced (about 8,000 play-outs at this seed)."""
    r = simulate(Position.from_cgp(ANAGRAMS), moves=["5C PER", "5C REP"], iterations=20000, seed=12)
    assert r.iterations > 1000
    assert r.stopped == "iterations" or r.best.move.notation() == "5C PER"


def test_similar_plays_alone_run_to_the_limit():
    """Plays all similar to each other were never raced: no confidence to report (it was, at 60
    play-outs). As one play alone, the run goes to its limit; they are sampled in turn."""
    r = simulate(Position.from_cgp(EMPTY_BOARD), moves=["8G cAT", "8G bAT"], iterations=600, seed=1)
    assert (r.stopped, r.iterations) == ("iterations", 600)
    assert [c.iterations for c in r.candidates] == [300, 300]


# --- one ply with the bag empty --------------------------------------------------------------------
def test_one_ply_with_the_bag_empty_counts_no_leave():
    """A move made with the bag empty keeps no leave value (docs/ALGORITHM.md §15): 1L ORR(A) scores
    14, the opponent goes out with II for 4, so the equity is 14 - 4 = 10 (it was 22.31, the
    leave Q? counted)."""
    r = simulate(Position.from_cgp(EMPTY_BAG), moves=["1L ORR(A)"], plies=1, iterations=10, seed=1)
    assert r.best.ply_stats[0].mean_score == 4
    assert r.best.equity == 14 - 4 and r.best.stderr == 0.0


# --- a decided game: win chances within the cutoff rank by equity -----------------------------------
# a simulation audit's position: 92 behind, 2 tiles in the bag; every play loses (MAGPIE ranks
# 15L (M)USK / (M)URK first); before the cutoff the race picked O12 SUQ, equity -5.6, for a win
# chance 0.0039% against (M)USK's 0.0015% (+24.8), both ±0.05
DECIDED = ("11JURA/13E1/9VAUNT1/13I1/13N1/3LOOF5HA1/5BIB4OES/p2IMINO2R1O1A/L3E1STUDIER1X/A3D5T1AY1/N3I5Z1hO1/"
           "C2FA6WEN1/H1CLEAR4OD2/E2I1WEEPIER3/TATTLED4M3 GKQRSUV/ 317/409 0")


def test_win_chances_within_the_cutoff_rank_as_equal():
    from racksmith.sim.simulate import WIN_CUTOFF, _win_rank

    edge = 100.0 * WIN_CUTOFF
    assert _win_rank(0.0) == _win_rank(edge) == _win_rank(edge / 2) == 0.0
    assert _win_rank(100.0) == _win_rank(100.0 - edge) == 100.0
    assert _win_rank(edge * 1.01) == edge * 1.01 and _win_rank(50.0) == 50.0
    assert _win_rank(100.0 - edge * 1.01) == 100.0 - edge * 1.01


@pytest.mark.parametrize("stop", [0.99, None])
def test_a_lost_game_is_played_for_spread(stop):
    from racksmith.sim.simulate import DECIDED_SAMPLES, WIN_CUTOFF

    pos = Position.from_cgp(DECIDED)
    r = simulate(pos, candidates=6, seed=1, leaves=SYNTH, stop=stop, iterations=3000)
    assert r.stopped == ("decided" if stop else "iterations")
    if stop:
        assert min(c.iterations for c in r.candidates) >= DECIDED_SAMPLES
    assert all(c.win_pct <= 100 * WIN_CUTOFF for c in r.candidates)
    equities = [c.equity for c in r.candidates]
    assert equities == sorted(equities, reverse=True)
    assert r.best.move.notation() in ("15L (M)USK", "15L (M)URK")
    assert "SUQ" not in r.best.move.notation()


def test_a_game_not_decided_does_not_stop_as_decided():
    r = simulate(Position.from_cgp(WINNING), candidates=4, seed=3, leaves=SYNTH, iterations=2000)
    assert r.stopped != "decided"
    assert 0.5 < r.best.win_pct < 99.9
