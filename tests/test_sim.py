"""Simulation: the play-out kernel against the same plies played through Position in Python, common
random numbers, determinism across thread counts, best-arm identification on synthetic arms, and
bad input."""
from __future__ import annotations

import math
import random
import threading
from pathlib import Path

import numpy as np
import pytest

from racksmith import Move, Position
from racksmith.lexicon import load_leaves
from racksmith.rules.alphabet import BLANK
from bai_reference import BestArm
from racksmith.sim.simulate import SimError, grade, similarity_key, simulate
from racksmith.sim.winpct import WinPct

FIX = Path(__file__).parent / "fixtures"
SYNTH = FIX / "SYNTH.klv2"
MID = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/ 28/18 0"
KNOWN = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/EEEITUV 28/18 0"
# a late position: 9 tiles in the bag, so play-outs reach the end of the game
LATE = ("15/15/2MI11/TRANQUIL7/R14/O6DEV5/NUT2THAT5C/ANE1FOOD5TO/1FAXING6AL/1AR1R8JO/1SEER9S/"
        "1TRAY2PANED2S/WE1V4WAY2Bi/ON1E3HEBE2I1/K2DOLCI2SEIZE GLMOPUU/ 277/434 0")


def logistic_table(rows: int = 93, m: int = 300) -> WinPct:
    """A smooth, monotone win% table, independent of any training."""
    s = np.arange(-m, m + 1, dtype=np.float64)
    table = np.vstack([1 / (1 + np.exp(-s / (8 + 0.6 * u))) for u in range(1, rows + 1)])
    return WinPct(table, np.full(rows, 1000, np.int64), "logistic")


WP = logistic_table()


@pytest.fixture(scope="module")
def leaves():
    return load_leaves(SYNTH, "english")


def run(cgp=MID, **kw):
    kw.setdefault("winpct", WP)
    kw.setdefault("leaves", SYNTH)
    return simulate(Position.from_cgp(cgp), **kw)


# --- determinism ---------------------------------------------------------------------------------
@pytest.mark.parametrize("cgp", [MID, LATE])
def test_same_seed_same_result_for_any_thread_count(cgp):
    a = run(cgp, candidates=6, iterations=400, seed=7, threads=1)
    b = run(cgp, candidates=6, iterations=400, seed=7, threads=2)
    c = run(cgp, candidates=6, iterations=400, seed=7, threads=3)
    assert a.to_dict()["candidates"] == b.to_dict()["candidates"] == c.to_dict()["candidates"]
    assert a.iterations == b.iterations == 400
    d = run(cgp, candidates=6, iterations=400, seed=8)
    assert d.to_dict()["candidates"] != a.to_dict()["candidates"]


def test_a_budget_under_the_race_s_start_is_shared_out_evenly_and_never_stops_on_confidence():
    """15 play-outs for 10 candidates: one or two each, then the budget's end — never a confident
    stop on one sample an arm (a variance of 0 is not certainty)."""
    for iterations in (10, 15, 19, 100):
        r = run("15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/ 28/18 0",
                candidates=10, iterations=iterations, seed=1)
        counts = [c.iterations for c in r.candidates]
        assert r.stopped == "iterations" and r.iterations == iterations == sum(counts)
        assert max(counts) - min(counts) <= 1


def test_confidence_stop_same_for_threads():
    a = run(candidates=4, iterations=20000, seed=3, stop=0.95, threads=1)
    b = run(candidates=4, iterations=20000, seed=3, stop=0.95, threads=2)
    assert a.stopped == b.stopped == "confidence"
    assert a.iterations == b.iterations < 20000
    assert a.to_dict()["candidates"] == b.to_dict()["candidates"]


# --- the play-out against Position.push / moves(top=1) ------------------------------------------
def _kernel(cgp, plies, seed=11, n=6, wordmap=True, ruleset="english", leaves=SYNTH, pick=None):
    """The kernel object simulate() builds, rebuilt here to trace single play-outs (``wordmap``
    False: the rules without word maps, so every best move is found by the KWG walk; ``pick``: the
    candidates kept of the ``n`` best, None all of them)."""
    from racksmith.movegen._movegen import BoardState, LeaveTable, Rules
    from racksmith.movegen.generate import _tables
    from racksmith.sim._sim import Playouts
    from racksmith.sim.simulate import _reclaimed

    pos = Position.from_cgp(cgp, ruleset=ruleset)
    lv = load_leaves(leaves, ruleset)
    ml = pos.moves(top=n, sort="equity", leaves=lv, exchanges=True)
    tables, _ = _tables(pos.ruleset, pos.lexicon, lv)
    rules, leave_table = tables.rules, tables.leave_table
    if not wordmap:
        rules, leave_table = Rules(pos.lexicon, pos.ruleset, wordmap=False), LeaveTable(lv)
    board = BoardState(rules)
    board.set(pos.board)
    recs = ml.to_numpy().copy()
    ml = list(ml)
    if pick is not None:
        kept = [i for i, m in enumerate(ml) if pick(m)]
        ml, recs = [ml[i] for i in kept], recs[kept]
    recs = np.ascontiguousarray(recs)
    reclaimed = _reclaimed(pos.ruleset, ml, recs)
    cand_leave = np.array([lv.value_tiles(list(m.leave)) if m.leave else 0.0 for m in ml])
    known = pos.racks_known[1]
    rs = pos.ruleset
    k = Playouts(rules, leave_table, board, bytes(pos.racks[0]),
                 bytes(pos.racks[1]) if known else None, bytes(pos.unseen_tiles()), pos.rack_sizes[1],
                 (pos.scores[0], pos.scores[1]), pos.zero_turns,
                 (rs.exchange_limit, rs.zero_turn_limit, 1 if rs.end_rule == "tournament" else 0), recs, cand_leave,
                 np.ascontiguousarray(WP.table), plies, seed, reclaimed=reclaimed)
    return pos, lv, ml, k


def _replay(pos, lv, cand, plies, opp, bag, drawn):
    """The same play-out in Python: the candidate, then plies of moves(top=1) by equity, drawing
    the kernel's tiles; returns (moves, win, equity) or None after an exchange (its tiles go back
    into the bag at random places)."""
    p = pos.copy()
    p.racks = [p.racks[0], pos.ruleset.alphabet.tiles(sorted(opp))]
    p._known = None
    bag = list(bag)
    start_spread = p.scores[0] - p.scores[1]
    moves = [cand]
    leftover = lv.value_tiles(list(cand.leave)) if plies == 1 and cand.leave else 0.0
    mover_is_us = True

    def push(m, n):
        tiles = [bag.pop(0) for _ in range(n)]
        p.push(m, draw=tiles, trusted=True)

    push(cand, drawn[0])
    if cand.kind == "exchange":
        return None
    for ply in range(plies):
        if p.is_over:
            break
        bag_before = len(bag)
        m = p.moves(top=1, sort="equity", leaves=lv, exchanges=True)[0]
        moves.append(m)
        if m.kind == "exchange":
            return None
        if ply >= plies - 2 and bag_before > 0:
            v = lv.value_tiles(list(m.leave)) if m.leave else 0.0
            leftover += v if not mover_is_us else -v
        push(m, drawn[len(moves) - 1])
        mover_is_us = not mover_is_us
    # after an even number of pushes we are to move again
    ours = p.scores[0] if len(moves) % 2 == 0 else p.scores[1]
    theirs = p.scores[1] if len(moves) % 2 == 0 else p.scores[0]
    spread = ours - theirs
    equity = spread - start_spread + leftover
    if p.is_over:
        win = 1.0 if spread > 0 else 0.5 if spread == 0 else 0.0
    else:
        unseen_us = len(bag) + len(p.racks[1] if len(moves) % 2 == 0 else p.racks[0])
        unseen_them = len(bag) + len(p.racks[1] if len(moves) % 2 == 1 else p.racks[0])
        if len(moves) % 2 == 0:  # our turn
            win = WP.get(spread + leftover, unseen_us)
        else:
            win = 1 - WP.get(-(spread + leftover), unseen_them)
    return moves, win, equity


def _same_move(rec, move, stars=()):
    if tuple(sorted(r * 15 + c for r, c, _ in move.reclaimed)) != tuple(stars):
        return False
    kind = ("place", "exchange", "pass")[int(rec["kind"])]
    if kind != move.kind:
        return False
    if kind == "pass":
        return True
    tiles = tuple(int(x) for x in rec["tiles"][: rec["length"]])
    if kind == "exchange":
        return sorted(tiles) == sorted(move.tiles)
    return (int(rec["row"]), int(rec["col"]), int(rec["dir"]) == 0, tiles) == (move.row, move.col, move.across, tuple(move.tiles)) \
        and int(rec["score"]) == move.score


@pytest.mark.parametrize("cgp,plies", [(MID, 1), (MID, 2), (MID, 3), (LATE, 2), (LATE, 5), (KNOWN, 2)])
def test_playout_equals_python_replay(cgp, plies):
    pos, lv, cands, k = _kernel(cgp, plies)
    checked = 0
    for arm in range(len(cands)):
        for it in range(6):
            win, eq, recs, drawn, opp, bag, _ = k.trace(arm, it)
            # conservation: the dealt tiles are the unseen ones
            if pos.racks_known[1]:
                assert sorted(opp) == sorted(pos.racks[1])
                assert sorted(bag) == sorted(pos.unseen_tiles())
            else:
                assert sorted(list(opp) + list(bag)) == sorted(pos.unseen_tiles())
            replay = _replay(pos, lv, cands[arm], plies, opp, bag, drawn)
            if replay is None:
                continue
            moves, pwin, peq = replay
            assert len(moves) == len(recs)
            for rec, m in zip(recs, moves):
                assert _same_move(rec, m), (arm, it, m.notation())
            assert win == pytest.approx(pwin, abs=1e-9)
            assert eq == pytest.approx(peq, abs=1e-4)
            checked += 1
    assert checked >= 12


def _erudit_position(seed: int) -> str:
    """A position of an Эрудит self-play game (shipped leaves) once two stars are on the board and
    the bag holds more than 15 tiles: its CGP, the opponent's rack unknown."""
    from racksmith.lexicon import load_lexicon
    from racksmith.play.game import Game
    from racksmith.play.players import BestEquityPlayer, GameView
    from racksmith.rules.ruleset import get_ruleset

    rs = get_ruleset("erudit")
    game = Game(rs, load_lexicon("ru-erudit", ruleset=rs), seed=seed)
    player = BestEquityPlayer(load_leaves("erudit", rs))
    while not game.over:
        pos = game.live_position
        if int(((pos.board & BLANK) != 0).sum()) >= 2 and len(game.bag) > 15:
            return pos.cgp()
        game.play_trusted(player.choose(GameView(game)))
    raise AssertionError("no such position")


@pytest.mark.parametrize("seed,plies", [(1, 2), (3, 4), (4, 3)])
def test_erudit_playouts_take_stars_back_as_position_does(seed, plies):
    # Эрудит: the play-outs list the moves that take stars back (the game loop's reclaim_best), as
    # Position.moves does in Python (movegen/reclaim.py): the same moves, stars, scores and results
    pos, lv, cands, k = _kernel(_erudit_position(seed), plies, n=12, ruleset="erudit", leaves="erudit")
    checked = taken = 0
    for arm in range(len(cands)):
        for it in range(12):
            win, eq, recs, drawn, opp, bag, stars = k.trace(arm, it)
            replay = _replay(pos, lv, cands[arm], plies, opp, bag, drawn)
            if replay is None:
                continue
            moves, pwin, peq = replay
            assert len(moves) == len(recs)
            for rec, m, st in zip(recs, moves, stars):
                assert _same_move(rec, m, st), (arm, it, m.notation(), st)
            assert win == pytest.approx(pwin, abs=1e-9)
            assert eq == pytest.approx(peq, abs=1e-4)
            checked += 1
            taken += sum(1 for st in stars if st)
    assert checked >= 60 and taken >= 5


def test_common_random_numbers():
    pos, lv, cands, k = _kernel(MID, 2)
    deals = {}
    for arm in range(len(cands)):
        for it in range(5):
            _, _, _, _, opp, bag, _ = k.trace(arm, it)
            deals.setdefault(it, set()).add((opp, bag))
    assert all(len(v) == 1 for v in deals.values())  # every candidate saw the same tiles
    assert len({next(iter(v)) for v in deals.values()}) == 5  # and each iteration others
    # the same (arm, iteration) is the same play-out, whatever was run before
    first = k.trace(2, 3)
    k.trace(0, 9)
    again = k.trace(2, 3)
    assert first[0] == again[0] and first[1] == again[1] and first[2].tobytes() == again[2].tobytes()


BLANKS = ("15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEE?K?V/ 28/18 0")


@pytest.mark.parametrize("cgp,plies", [(MID, 2), (LATE, 3), (BLANKS, 2)])
def test_word_map_playouts_equal_the_kwg_walks(cgp, plies):
    """The play-outs find each best reply with the word maps (the rules simulate() uses have
    them); the KWG walk gives the same replies, sample for sample, in one thread or two."""
    pos, lv, cands, k = _kernel(cgp, plies)
    from racksmith.movegen.generate import _tables

    assert _tables(pos.ruleset, pos.lexicon, lv)[0].rules.wordmap is not None
    _, _, _, plain = _kernel(cgp, plies, wordmap=False)
    n = 96
    arms = np.array([i % len(cands) for i in range(n)], np.int32)
    its = np.array([i // len(cands) for i in range(n)], np.int64)
    out = {}
    for name, kern in (("wmp", k), ("kwg", plain)):
        win, eq = np.zeros(n), np.zeros(n)
        kern.run(0, arms, its, win, eq)
        out[name] = (win, eq)
    assert (out["wmp"][0] == out["kwg"][0]).all() and (out["wmp"][1] == out["kwg"][1]).all()
    for arm, it in [(0, 0), (1, 3), (len(cands) - 1, 7)]:
        a, b = k.trace(arm, it), plain.trace(arm, it)
        assert a[2].tobytes() == b[2].tobytes()  # the same moves, record for record
    assert len(set(out["wmp"][1].tolist())) > 4  # the samples differ: the comparison has teeth


def test_run_matches_trace():
    pos, lv, cands, k = _kernel(LATE, 3)
    arms = np.array([0, 1, 2, 0, 3], np.int32)
    its = np.array([0, 0, 1, 5, 2], np.int64)
    win = np.zeros(5)
    eq = np.zeros(5)
    k.run(0, arms, its, win, eq)
    for j in range(5):
        w, e, *_ = k.trace(int(arms[j]), int(its[j]))
        assert (w, e) == (win[j], eq[j])


def test_inferred_opponent_racks_are_drawn_from_the_inference():
    from racksmith.sim.infer import infer_leaves

    cgp = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0"
    pos = Position.from_cgp(cgp)
    inf = infer_leaves(pos, "8D KRONA", leaves=SYNTH)
    # draw racks straight from the kernel: every opponent's rack contains an inferred leave
    leaves = {tuple(sorted(x.leave)) for x in inf.leaves}
    r = simulate(pos, candidates=3, iterations=60, seed=2, opponent_racks=inf, leaves=SYNTH, winpct=WP)
    assert r.iterations == 60
    from racksmith.movegen._movegen import BoardState
    from racksmith.movegen.generate import _tables
    from racksmith.sim._sim import Playouts

    lv = load_leaves(SYNTH, "english")
    tables, _ = _tables(pos.ruleset, pos.lexicon, lv)
    board = BoardState(tables.rules)
    board.set(pos.board)
    ml = pos.moves(top=2, sort="equity", leaves=lv, exchanges=True)
    k = Playouts(tables.rules, tables.leave_table, board, bytes(pos.racks[0]), None, bytes(pos.unseen_tiles()), 7,
                 (0, 28), 0, (7, 6, 1), np.ascontiguousarray(ml.to_numpy().copy()), np.zeros(2),
                 np.ascontiguousarray(WP.table), 2, 5, inf.kernel_arrays(pos))
    seen = 0
    for it in range(200):
        opp = k.trace(0, it)[4]
        assert len(opp) == 7
        counts = np.bincount(np.frombuffer(opp, np.uint8), minlength=64)
        assert any(all(counts[t] >= l.count(t) for t in set(l)) for l in leaves)
        seen += 1
    assert seen == 200


# --- best-arm identification on synthetic arms ---------------------------------------------------
def _race(means, delta=0.05, limit=200000, seed=1, sd=0.3, keys=None):
    rng = random.Random(seed)
    b = BestArm(len(means), delta=delta, min_samples=10, rng=random.Random(seed + 1), keys=keys)
    while b.total < limit:
        arm = b.next_arm()
        if b.add(arm, rng.gauss(means[arm], sd)):
            break
    return b


@pytest.mark.parametrize("seed", range(40))
def test_compiled_sampler_makes_the_reference_choices(seed):
    """simulate() races with the kernel's Sampler; bai.BestArm is its reference: from the same
    Random state the two choose the same arm, leader and challenger at every step, stop at the same
    sample and hold the same statistics (synthetic arms: Gaussian, or 0/1 like won games)."""
    from racksmith.sim._sim import Sampler

    r = random.Random(seed)
    n = r.randint(1, 8)
    means = [r.random() for _ in range(n)]
    delta = r.choice([None, 0.05, 0.01, 0.3])
    keys = [r.randint(0, n) for _ in range(n)] if seed % 3 == 0 else None
    kw = dict(min_samples=r.randint(1, 12), round_robin=seed % 5 == 4)
    ref = BestArm(n, delta=delta, keys=keys, rng=random.Random(f"arms:{seed}"), **kw)
    ids: dict = {}
    key_ids = np.array([ids.setdefault(k, len(ids)) for k in keys], np.int32) if keys else None
    fast = Sampler(n, delta, kw["min_samples"], key_ids, random.Random(f"arms:{seed}").getstate()[1], kw["round_robin"])
    draws = random.Random(-seed)
    stopped = False
    for _ in range(4000):
        arm = ref.next_arm()
        assert fast.next_arm() == arm
        v = draws.gauss(means[arm], 0.3) if seed % 2 else float(draws.random() < means[arm])
        stopped = ref.add(arm, v)
        assert fast.add(arm, v) == stopped
        assert (fast.leader, fast.challenger) == (ref.leader, ref.challenger)
        if stopped:
            break
    assert (fast.count, fast.sum, fast.sumsq, fast.requested) == (ref.count, ref.sum, ref.sumsq, ref.requested)
    assert fast.stopped == ref.stopped == stopped


def test_step_is_select_run_feed():
    """Playouts.step (one call: choose, run, feed) equals the threads' path: select, run, feed."""
    from racksmith.sim._sim import Sampler

    pos, lv, cands, k = _kernel(MID, 2)
    n = len(cands)
    a = Sampler(n, 0.2, 3, None, random.Random("step").getstate()[1])
    b = Sampler(n, 0.2, 3, None, random.Random("step").getstate()[1])
    for _ in range(12):
        done = k.step(a, 32)
        arms, its = b.select(32)
        win, eq = np.zeros(32), np.zeros(32)
        k.run(0, arms, its, win, eq)
        assert b.feed(arms, win, eq) == done
        assert (a.count, a.sum, a.eq_sum, a.requested) == (b.count, b.sum, b.eq_sum, b.requested)
        if done:
            break
    assert a.total > 3 * n and len(set(a.count)) > 1  # the race left the round robin


def test_each_play_s_equity_has_its_standard_error():
    """The equity's standard error (MAGPIE and Quackle show it beside the equity): the sampler keeps
    each arm's sum of squared equities, and SimCandidate's figure is the sample standard deviation
    of the play-outs' equities over the square root of their count."""
    import statistics

    from racksmith.sim._sim import Sampler
    from racksmith.sim.simulate import _result

    pos, lv, cands, k = _kernel(MID, 2)
    n = len(cands)
    b = Sampler(n, None, 3, None, random.Random("eq").getstate()[1])
    seen: list[list[float]] = [[] for _ in range(n)]
    for _ in range(6):
        arms, its = b.select(48)
        win, eq = np.zeros(48), np.zeros(48)
        k.run(0, arms, its, win, eq)
        b.feed(arms, win, eq)
        for a, e in zip(arms, eq):
            seen[a].append(float(e))
    assert b.eq_sumsq == pytest.approx([sum(e * e for e in v) for v in seen], rel=1e-12)
    moves = [Move.pass_()] * n
    r = _result(moves, b, [{"equity": 0.0}] * n, "iterations", 0.0, 2, 1, 1)
    by_count = sorted((c.iterations, c.equity_stderr) for c in r.candidates)
    want = sorted((len(v), statistics.stdev(v) / math.sqrt(len(v))) for v in seen)
    assert [c for c, _ in by_count] == [c for c, _ in want] and all(c > 1 for c, _ in want)
    assert [e for _, e in by_count] == pytest.approx([e for _, e in want], rel=1e-9)
    assert r.to_dict()["candidates"][0]["equity_stderr"] == round(r.candidates[0].equity_stderr, 4)


def test_bai_finds_the_best_arm_and_stops():
    wrong = 0
    for seed in range(20):
        b = _race([0.50, 0.45, 0.40, 0.30, 0.55, 0.20], seed=seed)
        assert b.stopped
        wrong += b.leader != 4
    assert wrong <= 1  # delta = 0.05


def test_bai_gives_the_noisier_arm_more_samples():
    """The top-two coin at the GLR's meeting point leads to samples in proportion to each arm's
    spread (n ∝ σ), the allocation that makes the GLR grow fastest. At the count-weighted mean
    (MAGPIE's) it led to n ∝ 1/σ: a leader whose samples barely vary took nearly all of them and
    the race took several times longer (an audit's case: σ 0.05 against 0.30)."""
    totals = []
    for seed in range(10):
        rng = random.Random(seed)
        b = BestArm(2, delta=0.01, min_samples=10, rng=random.Random(seed + 1))
        while not b.stopped and b.total < 100000:
            arm = b.next_arm()
            b.add(arm, rng.gauss((0.50, 0.45)[arm], (0.05, 0.30)[arm]))
        assert b.stopped and b.leader == 0
        assert b.count[1] > 2 * b.count[0]  # about 6 times as many: σ1/σ0
        totals.append(b.total)
    assert sorted(totals)[5] < 1500  # the count-weighted coin needed about 2,900 (median of 40 runs)


def test_bai_does_not_stop_without_confidence_or_when_arms_tie():
    b = _race([0.5, 0.4], delta=None, limit=3000)
    assert not b.stopped and b.total == 3000
    # two equal arms: the confidence stop is a false alarm, rarer than delta over the run's length
    stops = sum(_race([0.5, 0.5], delta=0.05, limit=3000, seed=s).stopped for s in range(20))
    assert stops <= 2


def test_bai_similar_arms_are_not_raced():
    # arms 0 and 1 are the same play: a tie between them cannot hold the race up
    b = _race([0.5, 0.5, 0.3], delta=0.05, keys=["a", "a", "b"], limit=50000)
    assert b.stopped and b.leader in (0, 1)


def test_bai_threshold_and_z():
    b = BestArm(2, delta=0.01, min_samples=1)
    for v in (1.0, 0.0, 1.0):
        b.add(0, v)
    for v in (0.0, 0.0, 1.0):
        b.add(1, v)
    assert b.threshold() == pytest.approx(math.log((math.log(6) + 1) / 0.01))
    # Z with equal counts: the means meet at the variance-weighted point
    mu1, mu2, v1, v2 = 2 / 3, 1 / 3, 2 / 9, 2 / 9
    lam = (v2 * mu1 + v1 * mu2) / (v1 + v2)
    assert b.z(0, 1) == pytest.approx(3 * (mu1 - lam) ** 2 / (2 * v1) + 3 * (mu2 - lam) ** 2 / (2 * v2))


def test_similarity_key_and_grades():
    from racksmith.core.move import Move

    a = Move.parse("8H BAd", "english")
    b = Move.parse("8H BAD", "english")
    c = Move.parse("8H bAD", "english")
    assert similarity_key(a) != similarity_key(b)
    assert similarity_key(Move.parse("8H BaD", "english")) == similarity_key(Move.parse("8H BeD", "english"))
    assert similarity_key(Move.parse("8H BaD", "english")) != similarity_key(Move.parse("8G BaD", "english"))
    assert similarity_key(c) != similarity_key(a)
    assert [grade(x) for x in (0, 0.5, 0.6, 3, 3.1, 7, 7.5)] == [
        "best", "best", "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder"]


# --- results and bad input ----------------------------------------------------------------------
def test_result_shape():
    r = run(candidates=5, iterations=300, seed=1)
    d = r.to_dict()
    assert set(d) >= {"iterations", "stopped", "seconds", "candidates"}
    assert d["stopped"] == "iterations" and d["iterations"] == 300
    assert sum(c["iterations"] for c in d["candidates"]) == 300
    wins = [c["win_pct"] for c in d["candidates"]]
    assert wins == sorted(wins, reverse=True)
    assert all(0 <= w <= 100 for w in wins)


def test_cancel_and_time_limit():
    ev = threading.Event()
    ev.set()
    r = run(candidates=3, iterations=1000, seed=1, cancel=ev)
    assert r.stopped == "interrupted" and r.iterations == 0
    r = run(candidates=3, seconds=0.2, seed=1, stop=None)
    assert r.stopped == "time" and r.iterations > 0


@pytest.mark.parametrize("kw,match", [
    (dict(candidates=0), "candidates"),
    (dict(plies=0), "plies"),
    (dict(plies=33), "plies"),
    (dict(iterations=0), "iterations"),
    (dict(threads=0), "threads"),
    (dict(seed=-1), "seed"),
    (dict(stop=1.5), "stop"),
    (dict(stop=0.2), "stop"),
    (dict(seconds=-1), "seconds"),
    (dict(seconds=float("nan")), "seconds"),
    (dict(min_samples=0), "min_samples"),
    (dict(min_samples=True), "min_samples"),
    # progress_every was never checked: "x" was a TypeError once progress was called
    (dict(progress=lambda r: None, progress_every="x"), "progress_every must be a positive number of seconds"),
    (dict(progress=lambda r: None, progress_every=0), "progress_every must be a positive number of seconds"),
    (dict(progress=lambda r: None, progress_every=float("nan")), "progress_every must be a positive number of seconds"),
])
def test_bad_arguments(kw, match):
    with pytest.raises(SimError, match=match):
        run(**kw)


def test_a_huge_min_samples_is_a_round_robin():
    r = run(candidates=3, iterations=60, seed=1, min_samples=10**12)
    assert r.iterations == 60 and [c.iterations for c in r.candidates] == [20, 20, 20]


def test_positions_that_cannot_be_simulated():
    over = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ABC/DEF 0/0 6")
    with pytest.raises(SimError, match="over"):
        simulate(over, winpct=WP)
    from racksmith.rules.ruleset import get_ruleset

    a = get_ruleset("english").alphabet
    three = Position("english", None, (a.rack("ABC"), a.rack("DEF"), a.rack("GHI")))
    with pytest.raises(SimError, match="two-player"):
        simulate(three, winpct=WP)
    with pytest.raises(SimError, match="Position"):
        simulate("not a position", winpct=WP)
    with pytest.raises(SimError, match="not legal"):
        run(moves=["8A ZZZ"])


def test_scores_the_playouts_cannot_hold():
    """Each score within MAX_SCORE either way: beyond it a clear SimError; an analysis with
    simulation notes the turns it cannot simulate instead of failing."""
    from conftest import FIXTURES, with_time_penalty
    from racksmith.review.analysis import analyze
    from racksmith.review.replay import replay_text
    from racksmith.sim.simulate import MAX_SCORE

    f = MID.split(" ")
    with pytest.raises(SimError, match=f"our score must be a whole number -{MAX_SCORE}..{MAX_SCORE}"):
        run(cgp=" ".join(f[:2] + [f"{MAX_SCORE + 1}/0"] + f[3:]), iterations=10)
    with pytest.raises(SimError, match="their score"):
        run(cgp=" ".join(f[:2] + [f"0/{-MAX_SCORE - 1}"] + f[3:]), iterations=10)
    r = replay_text(with_time_penalty((FIXTURES / "gcg" / "game01_seed1.gcg").read_text(), 300_000_000))
    res = analyze(r, None, top=1, endgame_seconds=None, sim=dict(candidates=2, plies=1, iterations=10, seed=3))
    assert res.turns[0].grade is not None
    later = [t for t in res.turns[1:] if t.rank is not None]
    assert later and all(t.grade is None and "score must be a whole number" in t.note for t in later)


#: Эрудит: a star on 8B standing for Г (гЕРОИКА), the player to move holds a real Г
GEROIKA = "/".join(["15"] * 7 + ["1гЕРОИКА7"] + ["15"] * 7) + " ГАНОСЕЛ/ 0/25 0"


def test_a_position_where_a_star_can_be_taken_back_is_simulated():
    pos = Position.from_cgp(GEROIKA, ruleset="erudit")
    a = simulate(pos, candidates=8, iterations=400, seed=5, threads=1, winpct=WP)
    b = simulate(pos, candidates=8, iterations=400, seed=5, threads=2, winpct=WP)
    assert a.to_dict()["candidates"] == b.to_dict()["candidates"]
    notations = [c.move.notation() for c in a.candidates]
    assert any(m.reclaimed for m in (c.move for c in a.candidates)) and any("*8B" in n for n in notations)
    # a move given by the user, with or without the star: each its own candidate
    with_star = next(c.move for c in a.candidates if c.move.reclaimed)
    plain = [m for m in pos.moves(sort="equity", exchanges=True) if not m.reclaimed][0]
    r = simulate(pos, moves=[with_star, plain], iterations=200, seed=5, winpct=WP)
    assert {c.move.notation() for c in r.candidates} == {with_star.notation(), plain.notation()}


def test_playouts_refuse_stars_that_are_not_there():
    pos, lv, cands, k = _kernel(_erudit_position(1), 2, n=4, ruleset="erudit", leaves="erudit")
    from racksmith.movegen._movegen import BoardState
    from racksmith.movegen.generate import _tables
    from racksmith.sim._sim import Playouts

    tables, _ = _tables(pos.ruleset, pos.lexicon, lv)
    board = BoardState(tables.rules)
    board.set(pos.board)
    recs = np.ascontiguousarray(pos.moves(top=4, sort="equity", leaves=lv).to_numpy().copy())
    args = (tables.rules, tables.leave_table, board, bytes(pos.racks[0]), None, bytes(pos.unseen_tiles()),
            pos.rack_sizes[1], (0, 0), 0, (1, 4, 0), recs, np.zeros(len(recs)), np.ascontiguousarray(WP.table), 2, 1)
    empty = int(np.flatnonzero(pos.board.ravel() == 0)[0])
    bad = np.full((len(recs), 8), -1, np.int16)
    bad[0, 0] = empty
    with pytest.raises(ValueError, match="holds no star"):
        Playouts(*args, reclaimed=bad)
    with pytest.raises(ValueError, match=r"\(4, 8\)"):
        Playouts(*args, reclaimed=np.full((len(recs), 3), -1, np.int16))
    Playouts(*args, reclaimed=np.full((len(recs), 8), -1, np.int16))  # no star taken back: fine



def test_a_play_no_play_out_reached_is_not_known_rather_than_zero():
    """A run stopped before a play got a play-out gave it 0.0% to win with standard error 0.0, and
    one play-out a standard error of 0.0: figures that read as known. They are nan (null in JSON)
    now, and those plays rank after the simulated ones, by static equity."""
    import json
    import math
    import threading

    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0")
    stopped = threading.Event()
    stopped.set()
    r = pos.simulate(candidates=8, plies=2, iterations=1000, seed=1, cancel=stopped)
    assert r.iterations == 0 and r.stopped == "interrupted"
    assert all(math.isnan(c.win_pct) and math.isnan(c.equity) and math.isnan(c.stderr) for c in r.candidates)
    static = [c.static_equity for c in r.candidates]
    assert static == sorted(static, reverse=True)
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert d["candidates"][0]["win_pct"] is None and d["candidates"][0]["stderr"] is None
    # one play-out each: a win chance, no standard error
    r = pos.simulate(candidates=4, plies=2, iterations=4, seed=1, stop=None)
    assert [c.iterations for c in r.candidates] == [1, 1, 1, 1]
    assert all(not math.isnan(c.win_pct) and math.isnan(c.stderr) for c in r.candidates)
    b = pos.best_play(seconds=10, seed=1, cancel=stopped)
    assert "no play-out ran: the best by static equity" in b.summary


def test_an_inference_that_learned_nothing_leaves_the_opponents_rack_unseen():
    """An inference that kept no leave (no rack makes the play one of his best, or a short time
    limit dealt none that did) says nothing of the opponent's rack: simulate and best_play given
    it draw his rack from the unseen tiles, exactly as without it, and say so in the result
    (they raised InferenceError, "the inference kept no leave"). One that kept leaves draws from
    them, and a rack the position gives is known."""
    from racksmith.review.best import best_play
    from racksmith.sim.infer import infer_leaves

    after = Position.from_cgp("15/15/15/15/15/15/15/7KRONA3/15/15/15/15/15/15/15 EEIRSTU/ 0/20 0")
    nothing = infer_leaves(after, "8H KRONA", leaves=SYNTH)  # 8 less than 8D KRONA, the same leave
    assert nothing.learned_nothing and nothing.exact
    kw = dict(candidates=3, iterations=60, seed=2, leaves=SYNTH, winpct=WP)
    plain = simulate(after, **kw)
    r = simulate(after, opponent_racks=nothing, **kw)
    assert r.to_dict()["candidates"] == plain.to_dict()["candidates"]
    assert (plain.opponent_rack, plain.note) == ("unseen", None)
    assert r.opponent_rack == "unseen" and "kept no leave" in r.note and "no rack he could have held" in r.note
    assert r.to_dict()["opponent_rack"] == "unseen" and r.to_dict()["note"] == r.note
    # sampled, none of the deals kept
    mojo = Position.from_cgp("15/15/15/15/15/15/15/4MOJO7/15/15/15/15/15/15/15 AAEIIMT/ 26/0 1")
    dealt = infer_leaves(mojo, "-2", leaves=SYNTH, samples=64, seed=0)
    assert dealt.learned_nothing and not dealt.exact
    r = simulate(mojo, opponent_racks=dealt, **kw)
    assert r.to_dict()["candidates"] == simulate(mojo, **kw).to_dict()["candidates"]
    assert "none of the 64 racks dealt at random" in r.note
    b = best_play(mojo, 0.3, leaves=SYNTH, seed=1, opponent_racks=dealt)
    assert b.method == "sim" and b.result.opponent_rack == "unseen" and "kept no leave" in b.result.note
    assert b.summary.endswith("; " + b.result.note)  # (the summary says it too)
    # an inference that kept leaves; a rack given
    krona = Position.from_cgp("15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0")
    r = simulate(krona, opponent_racks=infer_leaves(krona, "8D KRONA", leaves=SYNTH), **kw)
    assert (r.opponent_rack, r.note) == ("inferred", None)
    assert simulate(Position.from_cgp(KNOWN), **kw).opponent_rack == "known"


def test_simulate_and_infer_default_to_the_shipped_leaves_as_best_play_does():
    """pos.simulate() and infer_leaves() ranked with every leave 0 unless given leaves, while
    best_play, the players and the CLI use the ruleset's shipped leaves: now the same default;
    None still means none. The Position methods' options are named (a typo is a TypeError)."""
    from racksmith import default_leaves
    from racksmith.sim.infer import infer_leaves

    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0")
    shipped = default_leaves("english")
    ranked = lambda r: [(c.move.notation(), c.equity) for c in r.candidates]  # noqa: E731
    default = pos.simulate(iterations=60, seed=4)
    assert ranked(default) == ranked(pos.simulate(iterations=60, seed=4, leaves=shipped))
    assert ranked(default) != ranked(pos.simulate(iterations=60, seed=4, leaves=None))
    after = Position.from_cgp("15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0")
    inf = infer_leaves(after, "8D KRONA", samples=3000)
    assert [(str(x.leave), x.draws) for x in inf.leaves] == [
        (str(x.leave), x.draws) for x in infer_leaves(after, "8D KRONA", samples=3000, leaves=shipped).leaves]
    assert [str(x.leave) for x in inf.leaves] != [
        str(x.leave) for x in infer_leaves(after, "8D KRONA", samples=3000, leaves=None).leaves]
    for method, typo in ((pos.simulate, {"leave": None}), (pos.best_play, {"leave": None}),
                         (pos.solve_peg, {"second": 1}), (pos.solve_endgame, {"tt": 1})):
        with pytest.raises(TypeError, match="unexpected keyword"):
            method(**typo)


def test_a_pass_that_ends_the_game_is_always_a_candidate_and_wins_a_lead_kept():
    """Five scoreless turns: a pass ends the game, every rack counted against its holder. The
    static ranking's pass penalty keeps the pass out of the top candidates, so simulate adds it:
    20 points ahead with EEIRSTU (7 points on the rack), passing wins whatever the opponent holds."""
    from racksmith import Position
    from racksmith.sim.simulate import ending_pass

    board = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15"
    ahead = Position.from_cgp(f"{board} EEIRSTU/ 120/100 5")
    assert ending_pass(ahead) and all(m.kind != "pass" for m in ahead.moves(top=10, sort="equity", exchanges=True))
    r = ahead.simulate(candidates=10, seconds=5, iterations=300, seed=1)
    assert len(r.candidates) == 11 and str(r.candidates[0].move) == "-" and r.candidates[0].win_pct == 100.0
    assert str(ahead.best_play(seconds=5, seed=1).move) == "-"
    # behind, the pass loses for certain: still a candidate, ranked last
    behind = Position.from_cgp(f"{board} EEIRSTU/ 100/120 5")
    r = behind.simulate(candidates=10, iterations=300, seed=1)
    assert str(r.candidates[-1].move) == "-" and r.candidates[-1].win_pct == 0.0
    # one scoreless turn fewer: the pass does not end the game and is not added
    assert not ending_pass(Position.from_cgp(f"{board} EEIRSTU/ 120/100 4"))
    assert len(Position.from_cgp(f"{board} EEIRSTU/ 120/100 4").simulate(candidates=10, iterations=50, seed=1).candidates) == 10


def test_an_inference_that_kept_too_few_deals_is_not_drawn_from_and_the_result_says_so():
    """A sampled inference keeping fewer than MIN_KEPT_DEALS deals (a time limit cut short on a
    loaded machine, a tiny --infer-samples) would pin the opponent's rack on a handful of leaves:
    simulate draws it from the unseen tiles instead, as the sim player and analyze do."""
    from racksmith import Position
    from racksmith.sim.infer import MIN_KEPT_DEALS, infer_leaves

    pos = Position.from_cgp("15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0")
    thin = infer_leaves(pos, "8D KRONA", samples=10, exact_up_to=0, seed=1)
    assert not thin.exact and 0 < thin.total_draws < MIN_KEPT_DEALS and thin.too_few and not thin.learned_nothing
    r = pos.simulate(iterations=60, seed=1, opponent_racks=thin)
    assert r.opponent_rack == "unseen" and f"kept only {thin.total_draws} of the 10 racks dealt" in r.note
    # the same draws as with no inference at all
    plain = pos.simulate(iterations=60, seed=1)
    assert [(str(c.move), c.win_pct) for c in r.candidates] == [(str(c.move), c.win_pct) for c in plain.candidates]
    exact = infer_leaves(pos, "8D KRONA", seed=1)
    assert exact.exact and not exact.too_few
    assert pos.simulate(iterations=60, seed=1, opponent_racks=exact).opponent_rack == "inferred"
