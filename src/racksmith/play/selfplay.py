"""Self-play: complete games between built-in players, their invariants checked, with statistics.

Game ``i`` of a series draws its bag from ``(seed, i)`` and seats the players rotated by ``i`` (so
each starts equally often), so results do not depend on how games are spread over processes.
Every game checks that tiles are conserved (bag + racks + board = the set, after every turn), that
each score is the sum of its events, and — unless ``validate=False`` — that every move the
generator proposes is legal by the independent validator with the same score.

With ``jobs > 1`` the games are spread over worker processes, each set up once by a pool
initializer with the configuration and the loaded lexicon and leaves (passed, not inherited), so a
series runs the same under every start method of :mod:`multiprocessing` (fork, spawn, forkserver).
"""
from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean, pstdev
from typing import Any

import numpy as np

from ..core.bag import game_rng
from ..core.validation import check_move_lean
from ..errors import IllegalMoveError, RacksmithError
from ..lexicon import load_leaves
from ..lexicon.load import ruleset_lexicon
from ..rules.ruleset import Ruleset, get_ruleset
from .game import Game
from .players import PLAYER_KINDS, GameView, make_player

#: a game longer than this many turns is reported as a violation and stopped
MAX_TURNS = 1000


@dataclass(frozen=True, slots=True)
class SelfPlayConfig:
    """What a series plays: names and paths only, so that it crosses into worker processes."""

    players: tuple[str, ...] = ("equity", "equity")
    ruleset: str = "english"
    lexicon: str | None = None
    leaves: str | None = None
    seed: int = 0
    validate: bool = True
    gcg_dir: str | None = None


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game, by player (the order of ``config.players``), not by seat."""

    index: int
    first: int  #: the player who moved first
    scores: tuple[int, ...]
    bingos: tuple[int, ...]
    turns: int
    generator_calls: int
    moves_generated: int
    violations: tuple[str, ...] = ()


class _CountingView(GameView):
    """A game view that counts the move-generation calls of the players and the placements the
    generator completed for them (all of a position's placements for a full list; those reached
    before shadow playing stopped, for a top-N search)."""

    __slots__ = ("calls", "generated")

    def __init__(self, game: Game):
        super().__init__(game)
        self.calls = 0
        self.generated = 0

    def moves(self, top=None, **options):
        ms = self._game.live_position.moves(top, **options)
        self.calls += 1
        reached = getattr(ms, "placements_reached", None)
        self.generated += len(ms) if reached is None else reached
        return ms


class _Series:
    """The loaded things one process needs: ruleset, lexicon, players."""

    def __init__(self, config: SelfPlayConfig, lexicon: Any = None, leaves: Any = None):
        self.config = config
        self.ruleset: Ruleset = get_ruleset(config.ruleset)
        if lexicon is None:
            lexicon = ruleset_lexicon(self.ruleset, config.lexicon)
        self.lexicon = lexicon
        if leaves is None and config.leaves:
            leaves = load_leaves(config.leaves, ruleset=self.ruleset)
        self.leaves = leaves
        self.players = [make_player(k, leaves=leaves, ruleset=self.ruleset) for k in config.players]

    def play(self, index: int) -> GameResult:
        cfg = self.config
        rs = self.ruleset
        n = len(self.players)
        first = index % n
        seats = [(first + s) % n for s in range(n)]  # seat -> player
        for i, p in enumerate(self.players):
            hook = getattr(p, "new_game", None)
            if hook is not None:
                hook(f"racksmith-player:{cfg.seed}:{index}:{i}")
        game = Game(
            rs,
            self.lexicon,
            players=[f"p{i + 1}" for i in seats],
            seed=game_rng(cfg.seed, index),
            names=[f"racksmith_{cfg.players[i]}" for i in seats],
        )
        view = _CountingView(game)
        pos = game.live_position  # the game's own position, played on turn after turn
        by_seat = [self.players[i] for i in seats]
        total = rs.total_tiles
        violations: list[str] = []
        validate = cfg.validate
        lexicon = self.lexicon
        turns = 0
        while not pos.is_over:
            if turns >= MAX_TURNS:
                violations.append(f"game {index}: no end after {MAX_TURNS} turns")
                break
            move = by_seat[game.to_move].choose(view)
            turns += 1
            if validate and not move.is_pass:
                problem = _check(pos, move, lexicon)
                if problem:
                    violations.append(f"game {index}, turn {turns}: {problem}")
            try:
                game.play_trusted(move)
            except (ValueError, IndexError) as e:
                violations.append(f"game {index}, turn {turns}: {move.notation()} cannot be applied: {e}")
                break
            held = len(game.bag) + sum(map(len, pos.racks)) + int(np.count_nonzero(pos.board))
            if held != total:
                violations.append(f"game {index}, turn {turns}: {held} tiles in bag, racks and board, not {total}")
        violations.extend(f"game {index}: {v}" for v in game.check_invariants())
        if cfg.gcg_dir:
            path = Path(cfg.gcg_dir) / f"game{index:06d}.gcg"
            path.write_text(
                game.gcg([("description", f"Created with racksmith self-play (seed {cfg.seed}, game {index})")]),
                encoding="utf-8",
            )
        scores = [0] * n
        bingos = [0] * n
        for seat, i in enumerate(seats):
            scores[i] = game.scores[seat]
        for event in game.history:
            if event.bingo:
                bingos[seats[event.player]] += 1
        return GameResult(
            index, first, tuple(scores), tuple(bingos), turns, view.calls, view.generated, tuple(violations)
        )



def _check(position, move, lexicon) -> str:
    """What is wrong with a generated move by the independent validator, or ''."""
    try:
        checked = check_move_lean(position, move, lexicon)
    except IllegalMoveError as e:
        return f"{move.notation()} is illegal ({e.reason}): {e.message}"
    if move.score is not None and checked.score != move.score:
        return f"{move.notation()} scores {checked.score} by the validator, {move.score} by the generator"
    return ""


# --- running a series -------------------------------------------------------------------------
#: the series of a worker process, set up by :func:`_init_worker` when the pool starts it
_WORKER: _Series | None = None


def _init_worker(config: SelfPlayConfig, lexicon: Any, leaves: Any) -> None:
    global _WORKER
    _WORKER = _Series(config, lexicon, leaves)


def _worker_games(indices: list[int]) -> list[GameResult]:
    if _WORKER is None:  # pragma: no cover - the pool always runs the initializer first
        raise RacksmithError("a self-play worker was started without its configuration")
    return [_WORKER.play(i) for i in indices]


def run_selfplay(
    games: int,
    config: SelfPlayConfig = SelfPlayConfig(),
    *,
    jobs: int = 1,
    lexicon: Any = None,
    leaves: Any = None,
    progress: Callable[[int], None] | None = None,
    start_method: str | None = None,
) -> "SelfPlayReport":
    """Play ``games`` games. ``lexicon``/``leaves`` may be given loaded (else loaded from the
    config); ``progress(n)`` is called with the number of games finished so far. ``jobs`` worker
    processes share the games out; ``start_method`` (``"fork"``, ``"spawn"``, ``"forkserver"``, or
    None for the platform's default) is how :mod:`multiprocessing` starts them. The results are
    the same for any ``jobs`` and start method."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise RacksmithError(f"games must be a whole number, at least 1, got {games!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise RacksmithError(f"jobs must be a whole number, at least 1, got {jobs!r}")
    if len(config.players) < 2:
        raise RacksmithError(f"self-play needs at least 2 players, got {list(config.players)}")
    methods = multiprocessing.get_all_start_methods()
    if start_method is not None and start_method not in methods:
        raise RacksmithError(f"start_method {start_method!r} is not available here: use one of {', '.join(methods)} or None")
    if config.gcg_dir:
        Path(config.gcg_dir).mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    series = _Series(config, lexicon, leaves)
    loaded = time.perf_counter()
    results: list[GameResult] = []
    if jobs == 1 or games == 1:
        for i in range(games):
            results.append(series.play(i))
            if progress:
                progress(len(results))
    else:
        chunk = max(1, min(50, games // (jobs * 8)))
        batches = [list(range(s, min(games, s + chunk))) for s in range(0, games, chunk)]
        ctx = multiprocessing.get_context(start_method)
        with ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(config, series.lexicon, series.leaves),
        ) as pool:
            futures = [pool.submit(_worker_games, b) for b in batches]
            for f in as_completed(futures):
                results.extend(f.result())
                if progress:
                    progress(len(results))
    seconds = time.perf_counter() - loaded
    results.sort(key=lambda r: r.index)
    return SelfPlayReport(config, results, seconds, loaded - t0, jobs, series.leaves is not None)


def wilson_interval(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (ties count as half a success)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class SelfPlayReport:
    config: SelfPlayConfig
    results: list[GameResult]
    seconds: float
    load_seconds: float
    jobs: int
    with_leaves: bool

    @property
    def violations(self) -> list[str]:
        return [v for r in self.results for v in r.violations]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith selfplay --json``; every field but the timings is the
        same for any number of jobs."""
        rs = self.results
        n = len(rs)
        k = len(self.config.players)
        turns = sum(r.turns for r in rs)
        calls = sum(r.generator_calls for r in rs)
        generated = sum(r.moves_generated for r in rs)
        secs = max(self.seconds, 1e-9)
        players = []
        for i, kind in enumerate(self.config.players):
            scores = [r.scores[i] for r in rs]
            best_other = [max(s for j, s in enumerate(r.scores) if j != i) for r in rs]
            wins = sum(1 for s, o in zip(scores, best_other) if s > o)
            ties = sum(1 for s, o in zip(scores, best_other) if s == o)
            lo, hi = wilson_interval(wins + ties / 2, n)
            players.append(
                {
                    "player": f"p{i + 1}",
                    "kind": kind,
                    "mean_score": round(fmean(scores), 3),
                    "score_stdev": round(pstdev(scores), 3),
                    "wins": wins,
                    "losses": n - wins - ties,
                    "ties": ties,
                    "win_rate": round((wins + ties / 2) / n, 4),
                    "win_rate_ci95": [round(lo, 4), round(hi, 4)],
                    "bingos_per_game": round(sum(r.bingos[i] for r in rs) / n, 4),
                    "first_moves": sum(1 for r in rs if r.first == i),
                }
            )
        spreads = [r.scores[0] - r.scores[1] for r in rs] if k >= 2 else [0]
        violations = self.violations
        return {
            "games": n,
            "seconds": round(self.seconds, 4),
            "games_per_second": round(n / secs, 2),
            "turns": turns,
            "turns_per_second": round(turns / secs, 1),
            "turns_per_game": round(turns / n, 3),
            "generator_calls": calls,
            "moves_generated": generated,
            "moves_generated_per_second": round(generated / secs, 1),
            "invariant_violations": len(violations),
            "violations": violations[:20],
            "ruleset": self.config.ruleset,
            "lexicon": self.config.lexicon,
            "leaves": self.config.leaves,
            "equity_without_leaves": "equity" in self.config.players and not self.with_leaves,
            "seed": self.config.seed,
            "jobs": self.jobs,
            "validated": self.config.validate,
            "players": players,
            "mean_spread": round(fmean(spreads), 3),
            "spread_stdev": round(pstdev(spreads), 3),
            "bingos_per_game": round(sum(sum(r.bingos) for r in rs) / n, 4),
            "mean_total_score": round(fmean(sum(r.scores) for r in rs), 3),
            "load_seconds": round(self.load_seconds, 3),
        }


def parse_players(spec: str | Sequence[str]) -> tuple[str, ...]:
    """``"equity,score"`` -> ``("equity", "score")``, each a known player kind."""
    parts = [p.strip().lower() for p in (spec.split(",") if isinstance(spec, str) else spec)]
    if len(parts) < 2 or any(p not in PLAYER_KINDS for p in parts):
        raise RacksmithError(
            f"players {','.join(parts) if parts else spec!r}: give two or more of {', '.join(PLAYER_KINDS)}, "
            "separated by commas (e.g. equity,score)"
        )
    return tuple(parts)
