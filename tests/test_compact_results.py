"""Self-play and matches keep their games as numpy columns (tens of bytes a game, not a Python
object a game), their reports computed from the columns exactly as from the per-game objects: the
JSON of ``racksmith selfplay --json`` and ``racksmith match --json`` is what it was (pinned below,
timings aside) and equals a direct recomputation from ``results`` / ``pairs``."""
from __future__ import annotations

import gc
import json
import random
import tracemalloc
from statistics import StatisticsError, fmean, pstdev

import numpy as np
import pytest

import racksmith
from racksmith.cli.main import main
from racksmith.errors import RacksmithError
from racksmith.lexicon import load_lexicon
from racksmith.play import match
from racksmith.play.backends import Runner, split
from racksmith.play.match import MatchResult, PairResult, wilson_interval as match_wilson
from racksmith.play.selfplay import END_NAMES, GameResult, SelfPlayConfig, SelfPlayReport, run_selfplay, wilson_interval
from racksmith.play.tables import GameTable, IntSums, PairTable
from racksmith.rules.ruleset import get_ruleset

TIMING = ("seconds", "games_per_second", "turns_per_second", "moves_generated_per_second", "load_seconds")


@pytest.fixture(scope="module")
def enable():
    return load_lexicon("enable", ruleset="english")


# --- a straightforward recomputation: the per-game code as it was --------------------------------------
def _selfplay_dict(report: SelfPlayReport) -> dict:
    """``SelfPlayReport.to_dict`` computed from the list of results, with statistics.fmean/pstdev."""
    rs = report.results
    n = len(rs)
    k = len(report.config.players)
    turns = sum(r.turns for r in rs)
    calls = sum(r.generator_calls for r in rs)
    generated = sum(r.moves_generated for r in rs)
    secs = max(report.seconds, 1e-9)
    players = []
    for i, kind in enumerate(report.config.players):
        scores = [r.scores[i] for r in rs]
        best_other = [max(s for j, s in enumerate(r.scores) if j != i) for r in rs]
        wins = sum(1 for s, o in zip(scores, best_other) if s > o)
        ties = sum(1 for s, o in zip(scores, best_other) if s == o)
        lo, hi = wilson_interval(wins + ties / 2, n)
        players.append({
            "player": f"p{i + 1}", "kind": kind, "mean_score": round(fmean(scores), 3),
            "score_stdev": round(pstdev(scores), 3), "wins": wins, "losses": n - wins - ties, "ties": ties,
            "win_rate": round((wins + ties / 2) / n, 4), "win_rate_ci95": [round(lo, 4), round(hi, 4)],
            "bingos_per_game": round(sum(r.bingos[i] for r in rs) / n, 4),
            "first_moves": sum(1 for r in rs if r.first == i),
        })
    spreads = [r.scores[0] - r.scores[1] for r in rs] if k >= 2 else [0]
    violations = [v for r in rs for v in r.violations]
    return {
        "games": n, "seconds": round(report.seconds, 4), "games_per_second": round(n / secs, 2), "turns": turns,
        "turns_per_second": round(turns / secs, 1), "turns_per_game": round(turns / n, 3), "generator_calls": calls,
        "moves_generated": generated, "moves_generated_per_second": round(generated / secs, 1),
        "invariant_violations": len(violations), "violations": violations[:20],
        "ruleset": report.ruleset_name or get_ruleset(report.config.ruleset).name,
        "lexicon": report.lexicon_name if report.lexicon_name is not None else report.config.lexicon,
        "leaves": report.config.leaves,
        "equity_without_leaves": not report.with_leaves, "seed": report.config.seed, "jobs": report.jobs,
        "validated": report.config.validate, "paired": report.config.paired, "engine": report.engine,
        "players": players, "mean_spread": round(fmean(spreads), 3), "spread_stdev": round(pstdev(spreads), 3),
        "bingos_per_game": round(sum(sum(r.bingos) for r in rs) / n, 4),
        "mean_total_score": round(fmean(sum(r.scores) for r in rs), 3), "load_seconds": round(report.load_seconds, 3),
        **({} if report.ends is None else {"endings": {name: report.ends.tolist().count(code)
                                                       for code, name in enumerate(END_NAMES) if name}}),
        "racksmith": racksmith.__version__,
    }


def _match_stats(pairs: list[PairResult]) -> tuple[int, int, int, float]:
    games = [g for pr in pairs for g in (pr.first, pr.second)]
    w = sum(1 for a, b in games if a > b)
    loss = sum(1 for a, b in games if a < b)
    return w, loss, len(games) - w - loss, sum(a - b for a, b in games) / len(games)


def _same_json(a: dict, b: dict) -> bool:
    """Byte-for-byte equal JSON (key order, float spelling)."""
    return json.dumps(a) == json.dumps(b)


# --- exact means and standard deviations ---------------------------------------------------------------
def test_int_sums_are_statistics_fmean_and_pstdev_bit_for_bit():
    rng = random.Random(7)
    cases = [[0], [5], [3, 3, 3], [1, 2], [-7, 7], [2**31 - 1, -(2**31)], [400] * 999 + [401]]
    for _ in range(300):
        n = rng.choice([1, 2, 3, 10, 97, 1000])
        scale = rng.choice([1, 50, 500, 2**20, 2**31 - 1])
        cases.append([rng.randint(-scale, scale) for _ in range(n)])
    cases.append([rng.randint(-(2**40), 2**40) for _ in range(50)])  # past int64 squares: Python integers
    for xs in cases:
        s = IntSums().add(np.array(xs, dtype=np.int64))
        assert (s.n, s.total, s.squares) == (len(xs), sum(xs), sum(x * x for x in xs))
        assert s.fmean() == fmean(xs) and s.pstdev() == pstdev(xs), xs
    # added a chunk at a time, the same
    xs = [rng.randint(0, 700) for _ in range(1000)]
    s = IntSums()
    for lo in range(0, 1000, 300):
        s.add(np.array(xs[lo:lo + 300], dtype=np.int32))
    assert s.fmean() == fmean(xs) and s.pstdev() == pstdev(xs)
    with pytest.raises(StatisticsError):
        IntSums().fmean()
    with pytest.raises(StatisticsError):
        IntSums().pstdev()


# --- the report's storage -----------------------------------------------------------------------------
def _random_results(rng: random.Random, n: int, k: int, spread: int) -> list[GameResult]:
    out = []
    for i in range(n):
        scores = tuple(rng.randint(300, 300 + spread) for _ in range(k))  # a small spread: many ties
        viol = tuple(f"game {i}: problem {j}" for j in range(rng.choice([0] * 9 + [1, 2])))
        out.append(GameResult(i, i % k, scores, tuple(rng.randint(0, 3) for _ in range(k)), rng.randint(10, 40),
                              rng.randint(10, 40), rng.randint(100, 10**6), viol))
    return out


@pytest.mark.parametrize("k", [2, 3, 4])
def test_aggregates_equal_a_recomputation_from_the_results(k):
    rng = random.Random(k)
    for n, spread in ((1, 0), (7, 3), (500, 5), (1000, 400)):
        results = _random_results(rng, n, k, spread)
        config = SelfPlayConfig(players=("equity", "score", "random", "equity")[:k], seed=n)
        report = SelfPlayReport(config, results, 1.25, 0.5, 2, True, "kernel")
        assert report.results == results and isinstance(report.table, GameTable)
        assert report.violations == [v for r in results for v in r.violations]
        assert _same_json(report.to_dict(), _selfplay_dict(report))


def test_a_report_keeps_columns_of_fixed_dtypes_a_few_dozen_bytes_a_game(enable):
    config = SelfPlayConfig(players=("equity", "score", "equity"), seed=2, leaves="english")
    report = run_selfplay(9, config, lexicon=enable)
    t = report.table
    assert isinstance(t, GameTable) and len(t) == 9 and t.players == 3
    for name, dtype in GameTable.DTYPES.items():
        col = getattr(t, name)
        assert isinstance(col, np.ndarray) and col.dtype == np.dtype(dtype), name
    assert t.index.tolist() == list(range(9)) and t.scores.shape == t.bingos.shape == (9, 3)
    assert t.nbytes / len(t) <= 8 + 2 + 3 * 6 + 2 + 4 + 8
    assert report.results == list(t) == [t[i] for i in range(9)] and t[-1] == report.results[8]
    assert all(type(v) is int for r in report.results for v in (r.index, r.turns, *r.scores, *r.bingos))
    assert _same_json(report.to_dict(), _selfplay_dict(report))


def test_batches_fill_the_rows_of_their_games_in_any_order():
    rng = random.Random(3)
    results = _random_results(rng, 40, 2, 10)
    batches = [GameTable.from_results(results[lo:lo + 7], 2) for lo in range(0, 40, 7)]
    rng.shuffle(batches)
    table = GameTable.empty(40, 2)
    for b in batches:
        table.put(b)
    assert table == GameTable.from_results(results, 2) and table.results() == results
    assert table.all_violations() == [v for r in results for v in r.violations]
    joined = GameTable.concat([GameTable.from_results(results[:5], 2), GameTable.from_results(results[5:], 2)], 2)
    assert joined == table
    with pytest.raises(RacksmithError, match="do not fit a table of 3 games"):
        GameTable.empty(3, 2).put(batches[0])
    with pytest.raises(RacksmithError, match="scores: a value out of"):
        GameTable.from_results([GameResult(0, 0, (2**31, 0), (0, 0), 1, 1, 1)])
    pt = PairTable.empty(6)
    pairs = [PairResult(p, (p, 300 - p), (2 * p, 7)) for p in range(6)]
    for lo in (4, 0, 2):
        pt.put(pairs[lo:lo + 2])
    assert pt.results() == pairs == list(pt) and pt[5] == pairs[5] and pt == PairTable.from_pairs(pairs)


def test_runner_each_hands_every_batch_back_once_as_it_finishes():
    batches = split(0, 50, 4)
    with Runner(_Double(), jobs=2) as runner:
        seen = dict(runner.each(batches))
    assert sorted(seen) == list(range(len(batches)))
    assert all(seen[i] == [2 * x for x in batches[i]] for i in seen)


class _Double:
    def setup(self):
        return 2

    def run(self, state, batch):
        return [state * x for x in batch]

    def __hash__(self):
        return 1

    def __eq__(self, other):
        return isinstance(other, _Double)


# --- what a run keeps, measured ------------------------------------------------------------------------
def _retained(run) -> tuple[object, int]:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        out = run()
        gc.collect()
        return out, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_a_series_and_a_match_keep_tens_of_bytes_a_game(enable):
    config = SelfPlayConfig(players=("score", "score"), seed=1, validate=False)
    run_selfplay(2, config, lexicon=enable)  # warm up what is loaded once
    report, kept = _retained(lambda: run_selfplay(2000, config, lexicon=enable))
    assert len(report.table) == 2000 and kept / 2000 < 80, kept  # a GameResult a game kept ~300
    match("score", "score", 2, seed=1)  # the players, set up once per process
    result, kept = _retained(lambda: match("score", "score", 2000, seed=1))
    assert result.games == 2000 and kept / 2000 < 40, kept  # a PairResult a pair kept ~140 a game


# --- matches -------------------------------------------------------------------------------------------
def test_match_result_from_pairs_or_a_table_is_the_same():
    rng = random.Random(5)
    pairs = [PairResult(p, (rng.randint(300, 320), rng.randint(300, 320)), (rng.randint(300, 320), rng.randint(300, 320)))
             for p in range(301)]
    a = MatchResult("x", "y", "english", 1, pairs, 2.0)
    b = MatchResult("x", "y", "english", 1, PairTable.from_pairs(pairs), 2.0)
    assert a == b and a.pairs == pairs and a.table.scores.dtype == np.int32 and a.table.pair.dtype == np.int64
    w, loss, d, spread = _match_stats(pairs)
    assert (a.p1.wins, a.p1.losses, a.p1.draws, a.p1.mean_spread) == (w, loss, d, spread)
    assert (a.p2.wins, a.p2.losses, a.p2.draws, a.p2.mean_spread) == (loss, w, d, -spread)
    assert a.p1.ci95 == match_wilson(w + d / 2, 602)
    assert MatchResult("x", "y", "", 0, [], 0.0).to_dict()["p1"]["mean_spread"] == 0.0


def test_match_keeps_a_table_of_its_pairs(enable):
    result = match("equity", "score", 10, seed=3)
    t = result.table
    assert isinstance(t, PairTable) and t.pair.tolist() == list(range(5)) and t.scores.shape == (5, 2, 2)
    assert result.pairs == list(t) and all(type(s) is int for pr in result.pairs for s in (*pr.first, *pr.second))
    w, loss, d, spread = _match_stats(result.pairs)
    assert (result.p1.wins, result.p1.losses, result.p1.draws, result.p1.mean_spread) == (w, loss, d, spread)


# --- the JSON of the command line, as the per-game code printed it ----------------------------------------
PINNED = [
    (["selfplay", "--games", "12", "--seed", "3", "--players", "equity,score,equity:leaves=none", "--leaves", "english"],
     '{"games": 12, "seconds": 0, "games_per_second": 0, "turns": 290, "turns_per_second": 0, "turns_per_game": 24.167, "generator_calls": 290, "moves_generated": 9060, "moves_generated_per_second": 0, "invariant_violations": 0, "violations": [], "ruleset": "english", "lexicon": "enable", "leaves": "english", "equity_without_leaves": false, "seed": 3, "jobs": 1, "validated": true, "paired": false, "engine": "kernel", "players": [{"player": "p1", "kind": "equity", "mean_score": 266.0, "score_stdev": 28.775, "wins": 4, "losses": 8, "ties": 0, "win_rate": 0.3333, "win_rate_ci95": [0.1381, 0.6094], "bingos_per_game": 0.9167, "first_moves": 4}, {"player": "p2", "kind": "score", "mean_score": 274.417, "score_stdev": 53.048, "wins": 6, "losses": 6, "ties": 0, "win_rate": 0.5, "win_rate_ci95": [0.2538, 0.7462], "bingos_per_game": 0.9167, "first_moves": 4}, {"player": "p3", "kind": "equity:leaves=none", "mean_score": 250.5, "score_stdev": 42.836, "wins": 2, "losses": 10, "ties": 0, "win_rate": 0.1667, "win_rate_ci95": [0.047, 0.448], "bingos_per_game": 0.75, "first_moves": 4}], "mean_spread": -8.417, "spread_stdev": 73.752, "bingos_per_game": 2.5833, "mean_total_score": 790.917, "load_seconds": 0, "endings": {"out": 12, "scoreless": 0, "stopped": 0}}'),
    (["selfplay", "--games", "8", "--seed", "5", "--paired", "--players", "equity,equity:leaves=none"],
     '{"games": 8, "seconds": 0, "games_per_second": 0, "turns": 180, "turns_per_second": 0, "turns_per_game": 22.5, "generator_calls": 180, "moves_generated": 6884, "moves_generated_per_second": 0, "invariant_violations": 0, "violations": [], "ruleset": "english", "lexicon": "enable", "leaves": null, "equity_without_leaves": true, "seed": 5, "jobs": 1, "validated": true, "paired": true, "engine": "kernel", "players": [{"player": "p1", "kind": "equity", "mean_score": 398.25, "score_stdev": 62.311, "wins": 4, "losses": 4, "ties": 0, "win_rate": 0.5, "win_rate_ci95": [0.2152, 0.7848], "bingos_per_game": 1.25, "first_moves": 4}, {"player": "p2", "kind": "equity:leaves=none", "mean_score": 398.25, "score_stdev": 62.311, "wins": 4, "losses": 4, "ties": 0, "win_rate": 0.5, "win_rate_ci95": [0.2152, 0.7848], "bingos_per_game": 1.25, "first_moves": 4}], "mean_spread": 0.0, "spread_stdev": 108.582, "bingos_per_game": 2.5, "mean_total_score": 796.5, "load_seconds": 0, "endings": {"out": 8, "scoreless": 0, "stopped": 0}}'),
    (["selfplay", "--games", "6", "--seed", "4", "--players", "equity,score,equity,score"],
     '{"games": 6, "seconds": 0, "games_per_second": 0, "turns": 122, "turns_per_second": 0, "turns_per_game": 20.333, "generator_calls": 122, "moves_generated": 3863, "moves_generated_per_second": 0, "invariant_violations": 0, "violations": [], "ruleset": "english", "lexicon": "enable", "leaves": null, "equity_without_leaves": true, "seed": 4, "jobs": 1, "validated": true, "paired": false, "engine": "kernel", "players": [{"player": "p1", "kind": "equity", "mean_score": 185.333, "score_stdev": 42.508, "wins": 1, "losses": 5, "ties": 0, "win_rate": 0.1667, "win_rate_ci95": [0.0301, 0.5635], "bingos_per_game": 0.5, "first_moves": 2}, {"player": "p2", "kind": "score", "mean_score": 198.0, "score_stdev": 40.53, "wins": 2, "losses": 4, "ties": 0, "win_rate": 0.3333, "win_rate_ci95": [0.0968, 0.7], "bingos_per_game": 0.6667, "first_moves": 2}, {"player": "p3", "kind": "equity", "mean_score": 175.5, "score_stdev": 51.24, "wins": 1, "losses": 5, "ties": 0, "win_rate": 0.1667, "win_rate_ci95": [0.0301, 0.5635], "bingos_per_game": 0.3333, "first_moves": 1}, {"player": "p4", "kind": "score", "mean_score": 205.167, "score_stdev": 28.795, "wins": 2, "losses": 4, "ties": 0, "win_rate": 0.3333, "win_rate_ci95": [0.0968, 0.7], "bingos_per_game": 0.8333, "first_moves": 1}], "mean_spread": -12.667, "spread_stdev": 68.565, "bingos_per_game": 2.3333, "mean_total_score": 764.0, "load_seconds": 0, "endings": {"out": 6, "scoreless": 0, "stopped": 0}}'),
    (["match", "--p1", "equity", "--p2", "score", "--games", "8", "--seed", "1"],
     '{"games": 8, "pairs": 4, "p1": {"wins": 6, "losses": 2, "draws": 0, "win_rate": 0.75, "ci95": [0.409275, 0.928521], "mean_spread": 37.125}, "p2": {"wins": 2, "losses": 6, "draws": 0, "win_rate": 0.25, "ci95": [0.071479, 0.590725], "mean_spread": -37.125}, "seconds": 0, "p1_spec": "equity", "p2_spec": "score", "ruleset": "english", "lexicon": "enable", "seed": 1, "endings": {"out": 7, "scoreless": 1, "stopped": 0}}'),
]


@pytest.mark.parametrize("args, expected", PINNED, ids=["selfplay-3", "selfplay-paired", "selfplay-4", "match"])
def test_the_json_is_what_the_per_game_code_printed(args, expected, capsys):
    assert main([*args, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    for key in TIMING:
        if key in d:
            d[key] = 0
    assert d.pop("racksmith") == racksmith.__version__
    assert json.dumps(d) == expected
