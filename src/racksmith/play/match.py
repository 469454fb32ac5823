"""Paired matches between two players: the strength benchmark (as MAGPIE's autoplay and wolges'
compare run it).

Pair ``p`` is two games from the same shuffled bag (the series stream of ``(seed, p)``,
:func:`racksmith.core.bag.game_rng`): in the first, player 1 moves first; in the second, player 2
does. Both players thus see the same opening racks and draw
from the same tile order, which cancels much of the luck of the draw. A draw counts half a win;
the 95% interval of the win rate is Wilson's score interval over the games (it treats the games as
independent; pairing makes them positively correlated in luck, not in who wins, so the interval is
if anything conservative).

When both players are built-in best-equity or best-score players and the kernel plays the ruleset
(every shipped one, Эрудит's star reclamation included), a batch of pairs runs in the kernel's game loop
(:func:`racksmith.play._gameloop.play_games` with ``paired=True``, every move checked); otherwise
through :class:`~racksmith.play.game.Game`. Both engines play the same games (tests hold them
equal), so the result does not depend on which one ran.

A match keeps its pairs as numpy columns (:class:`~racksmith.play.tables.PairTable`, 24 bytes a
pair), each batch written into the rows of its pairs as it finishes, whatever the backend.
"""
from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _args
from ..core.bag import game_rng
from ..core.move import Move
from ..errors import RacksmithError
from ..lexicon import Lexicon
from ..lexicon.load import ruleset_lexicon
from ..rules.ruleset import Ruleset, get_ruleset
from .backends import Runner, check_backend, check_games, portable_path, ruleset_ref, split
from .game import Game
from .players import GameView
from .specs import PlayerSpec, parse_player_spec
from .tables import IntSums, PairTable, chunks

MAX_TURNS = 1000
BATCH = 25  #: pairs a batch


ENGINES = ("auto", "kernel", "python")


def pair_rng(seed: int, pair: int) -> random.Random:
    """The bag of both games of pair ``pair``: the kernel's series stream of ``(seed, pair)``."""
    return game_rng(int(seed), int(pair))


@dataclass(frozen=True, slots=True)
class PairResult:
    """Both games of a pair, scores as (player 1, player 2): ``first`` has player 1 moving first."""

    pair: int
    first: tuple[int, int]
    second: tuple[int, int]


def play_pairs(ruleset: Ruleset, lexicon: Any, players: tuple[Any, Any], seed: int, pairs: list[int]) -> list[PairResult]:
    """Play the pairs ``pairs`` between two loaded players (the inner step of a match)."""
    out = []
    for p in pairs:
        scores = []
        for starter in (0, 1):
            order = (0, 1) if starter == 0 else (1, 0)  # seat -> player
            for i, pl in enumerate(players):
                hook = getattr(pl, "new_game", None)
                if hook is not None:
                    hook(f"racksmith-match-player:{seed}:{p}:{starter}:{i}")
            game = Game(ruleset, lexicon, seed=pair_rng(seed, p))
            view = GameView(game)
            pos = game.live_position
            turns = 0
            while not pos.is_over:
                turns += 1
                if turns > MAX_TURNS:
                    raise RacksmithError(f"match pair {p}: a game has no end after {MAX_TURNS} turns")
                move = players[order[game.to_move]].choose(view)
                if not isinstance(move, Move):
                    raise RacksmithError(f"player {order[game.to_move] + 1} returned {type(move).__name__}, not a Move")
                game.play_trusted(move)
            by_seat = game.scores
            s = [0, 0]
            for seat, who in enumerate(order):
                s[who] = by_seat[seat]
            scores.append((s[0], s[1]))
        out.append(PairResult(p, scores[0], scores[1]))
    return out


def kernel_lineup(ruleset: Ruleset, lexicon: Any, players: tuple[Any, Any]) -> list | None:
    """The two players as the kernel's game loop takes them, or None when it cannot play them (a
    player other than the built-in equity and score players, a ruleset it does not play, a word-list
    lexicon)."""
    from ..lexicon import Lexicon
    from ..movegen._movegen import LeaveTable
    from .players import BestEquityPlayer, BestScorePlayer

    from .selfplay import kernel_plays_ruleset

    if not kernel_plays_ruleset(ruleset) or not isinstance(lexicon, Lexicon):
        return None
    lineup = []
    for p in players:
        if type(p) is BestEquityPlayer:
            lv = p.leaves_for(ruleset)
            lineup.append(("equity", LeaveTable(lv) if lv is not None else None))
        elif type(p) is BestScorePlayer:
            lineup.append(("score", None))
        else:
            return None
    return lineup


def kernel_pairs(ruleset: Ruleset, lexicon: Any, lineup: list, seed: int, pairs: list[int]) -> list[PairResult]:
    """The pairs ``pairs`` (consecutive) in the kernel's game loop: games ``2p`` (player 1 first)
    and ``2p + 1`` (player 2 first) on the bag of ``(seed, p)``."""
    from ..movegen.generate import _rules
    from . import _gameloop

    if not pairs:
        return []
    if list(pairs) != list(range(pairs[0], pairs[0] + len(pairs))):
        raise RacksmithError("a kernel batch of pairs must be consecutive")
    out = _gameloop.play_games(_rules(ruleset, lexicon), lineup, int(seed), 2 * pairs[0], 2 * len(pairs),
                               paired=True, check=True)
    if out["n_violations"]:
        game, turn, code = out["violations"][0][:3]
        raise RacksmithError(f"match pair {game // 2}, turn {turn}: a move failed the independent check "
                             f"({_gameloop.CHECK_REASONS.get(code, code)})")
    sc = out["scores"].tolist()
    return [PairResult(p, tuple(sc[2 * k]), tuple(sc[2 * k + 1])) for k, p in enumerate(pairs)]


@dataclass(frozen=True)
class MatchJob:
    ruleset: "str | Ruleset"  #: a shipped ruleset's name, or the ruleset itself (:func:`ruleset_ref`)
    lexicon: str | None
    p1: PlayerSpec
    p2: PlayerSpec
    seed: int
    engine: str = "auto"

    def setup(self) -> tuple[Ruleset, Any, tuple[Any, Any], list | None]:
        if self.engine not in ENGINES:
            raise RacksmithError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        rs = get_ruleset(self.ruleset)
        spec = self.lexicon or rs.lexicon
        if spec is None:
            raise RacksmithError(f"ruleset {rs.name} names no lexicon: give one")
        lex = ruleset_lexicon(rs, self.lexicon or None)  # the ruleset's: an embedded name, or its file's word list
        players = (self.p1.make(rs, lex), self.p2.make(rs, lex))
        lineup = kernel_lineup(rs, lex, players) if self.engine != "python" else None
        if self.engine == "kernel" and lineup is None:
            raise RacksmithError("engine 'kernel' plays built-in equity and score players with a KWG lexicon: "
                                 "use engine 'auto' or 'python'")
        return rs, lex, players, lineup

    def run(self, state: tuple, batch: list[int]) -> list[PairResult]:
        rs, lex, players, lineup = state
        if lineup is not None:
            return kernel_pairs(rs, lex, lineup, self.seed, batch)
        return play_pairs(rs, lex, players, self.seed, batch)


def wilson_interval(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson's score interval (95% by default) of a proportion of ``successes`` in ``n``."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * ((p * (1 - p) / n + z2 / (4 * n * n)) ** 0.5) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True, slots=True)
class PlayerStats:
    wins: int
    losses: int
    draws: int
    mean_spread: float

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def win_rate(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.wins + self.draws / 2, self.games)

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.ci95
        return {"wins": self.wins, "losses": self.losses, "draws": self.draws, "win_rate": round(self.win_rate, 6),
                "ci95": [round(lo, 6), round(hi, 6)], "mean_spread": round(self.mean_spread, 4)}


@dataclass(init=False)
class MatchResult:
    """A match's outcome: per player wins, losses, draws, win rate with its 95% Wilson interval,
    mean spread. Every pair's scores are kept as columns (:attr:`table`, a
    :class:`~racksmith.play.tables.PairTable`: 24 bytes a pair); :attr:`pairs` makes them
    :class:`PairResult` objects on demand."""

    p1_spec: str
    p2_spec: str
    ruleset: str
    seed: int
    table: PairTable  #: the pairs, pair ``p`` in row ``p`` for a match played by :func:`match`
    seconds: float
    p1: PlayerStats
    p2: PlayerStats

    def __init__(self, p1_spec: str, p2_spec: str, ruleset: str, seed: int,
                 pairs: "PairTable | Iterable[PairResult]", seconds: float):
        self.p1_spec = p1_spec
        self.p2_spec = p2_spec
        self.ruleset = ruleset
        self.seed = seed
        self.table = pairs if isinstance(pairs, PairTable) else PairTable.from_pairs(pairs)
        self.seconds = seconds
        w = loss = 0
        spread = IntSums()
        for part in chunks(len(self.table)):
            sc = self.table.scores[part].astype(np.int64)
            a, b = sc[:, :, 0], sc[:, :, 1]  # both games of each pair: player 1's and player 2's scores
            w += int(np.count_nonzero(a > b))
            loss += int(np.count_nonzero(a < b))
            spread.add(a - b)
        n = 2 * len(self.table)
        d = n - w - loss
        mean = spread.total / n if n else 0.0
        self.p1 = PlayerStats(w, loss, d, mean)
        self.p2 = PlayerStats(loss, w, d, -mean)

    @property
    def pairs(self) -> list[PairResult]:
        """Every pair as a :class:`PairResult`, by row (by pair number for a match): a new list on
        each access, a Python object a pair — iterate or index :attr:`table` to go without it."""
        return self.table.results()

    @property
    def games(self) -> int:
        return 2 * len(self.table)

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``racksmith match --json``."""
        return {"games": self.games, "pairs": len(self.table), "p1": self.p1.to_dict(), "p2": self.p2.to_dict(),
                "seconds": round(self.seconds, 3)}


def match(
    p1: "str | PlayerSpec",
    p2: "str | PlayerSpec",
    games: int,
    *,
    seed: int = 0,
    ruleset: "str | Ruleset" = "english",
    lexicon: str | None = None,
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    progress: Callable[[int], None] | None = None,
    engine: str = "auto",
) -> MatchResult:
    """Play ``games`` games (an even number: ``games / 2`` pairs) between two player specs
    (``KIND[:key=value,...]``, see :mod:`racksmith.play.specs`). The result depends only on the
    specs, ruleset, lexicon and seed: not on ``jobs``, the backend nor ``engine`` (``auto``: the
kernel's game loop when it plays both players, ``kernel``, ``python``). ``jobs``: worker processes,
or Ray tasks at once [default: 1; joining a Ray cluster (``address``), its CPUs].
``progress(games_done)``."""
    check_games(games, least=2, even=True)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RacksmithError(f"seed must be a whole number, got {seed!r}")
    backend = check_backend(backend, jobs, address)
    rs = get_ruleset(ruleset)
    rs.check_players(2)  # (a ruleset file holds two racks; one made in code may not)
    specs = []
    for s in (p1, p2):
        spec = parse_player_spec(s) if isinstance(s, str) else s
        if not isinstance(spec, PlayerSpec):
            raise RacksmithError(f"a player is a spec like 'equity:leaves=none', got {type(s).__name__}")
        specs.append(spec.prepare(rs))
    if not (lexicon is None or isinstance(lexicon, (str, os.PathLike, Lexicon))):
        raise RacksmithError(f"lexicon must be a lexicon's name, a path or None (the ruleset's), got {_args.show(lexicon)}")
    _args.callback(progress, "progress")
    if not isinstance(engine, str) or engine not in ENGINES:
        raise RacksmithError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    # a lexicon file by its absolute path: a Ray worker's folder is not this one
    job = MatchJob(ruleset_ref(rs), portable_path(lexicon), specs[0], specs[1], seed, engine)
    t0 = time.perf_counter()
    done = [0]

    def tick(n: int) -> None:
        done[0] += 2 * n
        if progress:
            progress(done[0])

    if progress:
        progress(0)
    table = PairTable.empty(games // 2)
    with Runner(job, jobs=jobs, backend=backend, address=address) as runner:
        # batches finish in any order: each fills the rows of its pairs, and is then dropped
        for _, batch in runner.each(split(0, games // 2, BATCH), tick):
            table.put(batch)
    return MatchResult(str(specs[0]), str(specs[1]), rs.name, seed, table, time.perf_counter() - t0)
