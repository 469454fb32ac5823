"""The inner step of leave training: play a batch of self-play games and tally the racks.

Game ``index`` of generation ``generation`` draws its bag from the series stream of
``(series_seed(seed, generation), index)`` (:func:`racksmith.core.bag.game_rng`, the kernel's
stream); both seats choose the move of best static equity with the generation's leaves. Every
turn where the mover holds a full rack and the bag still has tiles is recorded: the rack and the
equity of the best move (:class:`~racksmith.training.tally.RackTally`).

Two engines play the same games. :func:`kernel_tally` runs the whole batch in the kernel's game
loop (:func:`racksmith.play._gameloop.play_games` with ``rows=True``: one call without the GIL,
its rows filtered and keyed with numpy); :func:`play_and_tally` plays them through
:class:`~racksmith.play.game.Game` — the reference the tests hold the kernel to, and the engine of
rulesets the kernel does not play (star reclamation on a set of more than
:data:`~racksmith.play._gameloop.MAX_KERNEL_STARS` blanks).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..core.bag import game_rng
from ..core.turns import turn_limit
from ..core.move import Move
from ..errors import RacksmithError
from ..lexicon import Leaves
from ..lexicon.load import ruleset_lexicon
from ..movegen._movegen import LeaveTable
from ..movegen.generate import _rules
from ..movegen.movelist import EQUITY_DECIMALS
from ..play import _gameloop
from ..play.game import Game
from ..play.selfplay import kernel_plays_ruleset
from ..rules.ruleset import Ruleset, get_ruleset
from .tally import SCALE, WIDTH, RackTally, matrix_to_keys, rack_key, to_fixed

ENGINES = ("auto", "kernel", "python")


def series_seed(seed: int, generation: int) -> int:
    """The series seed of a generation's games (64 bits from ``(seed, generation)``)."""
    digest = hashlib.blake2b(f"racksmith-leavegen:{int(seed)}:{int(generation)}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def kernel_plays(ruleset: Ruleset) -> bool:
    """Whether the kernel's game loop plays this ruleset's games (:func:`racksmith.play.selfplay.kernel_plays_ruleset`)."""
    return kernel_plays_ruleset(ruleset)


def play_and_tally(ruleset: Ruleset, lexicon: Any, leaves: Leaves | None, seed: int, generation: int,
                   indices: Sequence[int]) -> RackTally:
    """Play the games ``indices`` through :class:`Game` and tally their full racks (see the module's
    docstring)."""
    rack_size = ruleset.rack_size
    series = series_seed(seed, generation)
    limit = turn_limit(ruleset)  # more turns than a game can take: one still on after them is a defect
    keys: list[int] = []
    fixed: list[int] = []
    for index in indices:
        game = Game(ruleset, lexicon, seed=game_rng(series, index))
        pos = game.live_position
        bag = game.bag
        turns = 0
        while not pos.is_over:
            turns += 1
            if turns > limit:
                raise RacksmithError(f"training game {index} of generation {generation}: no end after {limit} turns")
            moves = pos.moves(1, sort="equity", leaves=leaves, exchanges=True)
            if len(moves):
                move = moves[0]
                rack = pos.racks[0]
                if len(rack) == rack_size and len(bag):
                    keys.append(rack_key(rack))
                    fixed.append(to_fixed(move.equity))
            else:
                move = Move.pass_(ruleset.alphabet, score=0)
            game.play_trusted(move)
    return RackTally.from_observations(keys, fixed)


def rows_tally(rows: dict[str, np.ndarray], rack_size: int, *, probes: bool = False) -> RackTally:
    """The tally of the kernel's turn rows (``play_games(..., rows=True)["turn_rows"]``): the turns
    with a full rack and tiles in the bag, keyed by rack, their equities in fixed point. ``probes``:
    tally the probe racks (rows with ``probe`` ≥ 1) instead of the turns played."""
    rack = rows["rack"]
    keep = (rack.sum(axis=1, dtype=np.int64) == rack_size) & (rows["bag"] > 0)
    if "probe" in rows:
        keep &= (rows["probe"] > 0) if probes else (rows["probe"] == 0)
    elif probes:
        raise RacksmithError("these turn rows hold no probes")
    rack = rack[keep]
    n = len(rack)
    if n == 0:
        return RackTally.empty()
    # each row's tiles in ascending order: its counts expanded, row by row (every row has rack_size)
    tiles = np.repeat(np.tile(np.arange(rack.shape[1], dtype=np.uint8), n), rack.ravel()).reshape(n, rack_size)
    mat = np.zeros((n, WIDTH), np.uint8)
    mat[:, :rack_size] = tiles + 1
    # as a Move's equity reads (EQUITY_DECIMALS), then in fixed point as to_fixed rounds (half to even)
    fixed = np.rint(np.round(rows["equity"][keep], EQUITY_DECIMALS) * float(SCALE)).astype(np.int64)
    return RackTally._reduce(matrix_to_keys(mat), np.ones(n, np.int64), fixed)


def kernel_tally(rules: Any, table: LeaveTable | None, rack_size: int, seed: int, generation: int,
                 first: int, n_games: int, probes: int = 0) -> RackTally:
    """Play games ``first`` .. ``first + n_games - 1`` in the kernel's game loop and tally them
    (every move checked independently; a violation is an error). ``probes`` > 0: tally, instead of
    the racks dealt, that many racks drawn before every tallied turn from the tiles unseen to the
    mover, each valued by its best move on that board (the census; docs/ALGORITHM.md §16)."""
    player = ("equity", table)
    out = _gameloop.play_games(rules, [player, player], series_seed(seed, generation), first, n_games,
                               check=True, rows=True, probes=probes)
    if out["n_violations"]:
        game, turn, code = out["violations"][0][:3]
        if code == _gameloop.CHECK_CODES["no_end"]:
            raise RacksmithError(f"training game {game} of generation {generation}: no end after "
                                 f"{turn_limit(rules.ruleset)} turns")
        raise RacksmithError(f"training game {game} of generation {generation}, turn {turn}: the kernel's move "
                             f"failed its check ({_gameloop.CHECK_REASONS.get(code, code)})")
    return rows_tally(out["turn_rows"], rack_size, probes=probes > 0)


@dataclass(frozen=True)
class TallyJob:
    """A batch job for :mod:`racksmith.play.backends`: one generation's games. ``ruleset``: a
    shipped ruleset's name, or the :class:`Ruleset` itself, which travels with the job to every
    worker (:func:`racksmith.play.backends.ruleset_ref`). ``leaves`` are the KLV2 bytes the games
    play with (None: no leave values). ``engine``: ``auto`` (the kernel when it plays the ruleset),
    ``kernel`` or ``python``; every engine gives the same tally."""

    ruleset: "str | Ruleset"
    lexicon: str | None
    leaves: bytes | None
    seed: int
    generation: int
    engine: str = "auto"
    probes: int = 0  #: racks drawn from the unseen tiles before every tallied turn (kernel only; 0: the racks dealt)

    def setup(self) -> tuple[Ruleset, Any, Leaves | None, Any, LeaveTable | None]:
        rs = get_ruleset(self.ruleset)
        spec = self.lexicon or rs.lexicon
        if spec is None:
            raise RacksmithError(f"ruleset {rs.name} names no lexicon: give one")
        if self.engine not in ENGINES:
            raise RacksmithError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        if self.engine == "kernel" and not kernel_plays(rs):
            raise RacksmithError(f"the kernel's game loop does not play {rs.name} (star reclamation with more than "
                                 f"{_gameloop.MAX_KERNEL_STARS} blanks): use engine 'python'")
        if isinstance(self.probes, bool) or not isinstance(self.probes, int) or not 0 <= self.probes <= 10_000:
            raise RacksmithError(f"probes must be a whole number 0..10000, got {self.probes!r}")
        if self.probes and not kernel_plays(rs):
            raise RacksmithError(f"probes are drawn by the kernel's game loop, which does not play {rs.name} "
                                 f"(star reclamation with more than {_gameloop.MAX_KERNEL_STARS} blanks): use probes=0")
        if self.probes and self.engine == "python":
            raise RacksmithError("probes are drawn by the kernel's game loop: use engine 'auto' or 'kernel', or probes=0")
        lex = ruleset_lexicon(rs, self.lexicon or None)  # the ruleset's: an embedded name, or its file's word list
        leaves = Leaves.from_bytes(self.leaves, rs) if self.leaves is not None else None
        use_kernel = self.engine == "kernel" or (self.engine == "auto" and kernel_plays(rs))
        if not use_kernel:
            return rs, lex, leaves, None, None
        return rs, lex, leaves, _rules(rs, lex), (LeaveTable(leaves) if leaves is not None else None)

    def run(self, state: tuple, batch: list[int]) -> RackTally:
        rs, lex, leaves, rules, table = state
        if rules is None:
            return play_and_tally(rs, lex, leaves, self.seed, self.generation, batch)
        if not batch:
            return RackTally.empty()
        if list(batch) != list(range(batch[0], batch[0] + len(batch))):
            raise RacksmithError("a kernel training batch must be consecutive games")
        return kernel_tally(rules, table, rs.rack_size, self.seed, self.generation, batch[0], len(batch),
                            self.probes)
