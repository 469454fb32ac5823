"""The one-tile pre-endgame: one tile in the bag, and every play's exact chance of winning.

The player to move sees his rack and the board; the eight (rack size + 1) unseen tiles are the
opponent's rack and the bag's tile, and each unseen tile is equally likely to be the one in the
bag. Once the bag's tile is fixed both racks are known and the rest of the game is exact: a play
that places tiles draws it (the bag is then empty: an endgame, the opponent to move); a pass
leaves it in the bag for the opponent's first placement (the search draws it for whoever places
first). :func:`solve_peg` solves the game after each play for each possible bag tile with the
endgame search (:mod:`racksmith.search._endgame`, whose known-bag mode draws the tile), and gives
each play its chance of winning (a tie counts one half) and its mean final spread.

    >>> Position.from_cgp(cgp).solve_peg().plays[0]                       # doctest: +SKIP
"""
from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..core.move import Move
from ..errors import PositionError, RacksmithError
from ..lexicon import Lexicon
from ._endgame import Search
from .endgame import DEFAULT_TT_MB, MAX_DEPTH, _effective_zero, check_no_reclamation, passes_reduce, pruned_rules

if TYPE_CHECKING:  # pragma: no cover
    from ..core.position import Position

__all__ = ["PegPlay", "PegResult", "solve_peg"]


@dataclass(frozen=True, slots=True)
class PegPlay:
    """One play of the pre-endgame: ``wins`` (draws won, a tie one half) of ``draws`` (the unseen
    tiles, each equally likely to be the bag's), ``win_probability`` = wins / draws,
    ``mean_spread`` the mover's final spread (his final score minus the opponent's) averaged over
    the draws, ``outcomes`` the final spread for each possible bag tile (a letter, '?' a blank)."""

    move: Move
    wins: float
    draws: int
    win_probability: float
    mean_spread: float
    outcomes: tuple[tuple[str, int], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "move": self.move.notation(),
            "score": self.move.score,
            "win_probability": round(self.win_probability, 6),
            "wins": self.wins,
            "draws": self.draws,
            "mean_spread": round(self.mean_spread, 3),
            "outcomes": {letter: spread for letter, spread in self.outcomes},
        }


@dataclass(frozen=True, slots=True)
class PegResult:
    """Every play solved (best first: win probability, then mean spread), the positions searched
    and the wall time."""

    plays: tuple[PegPlay, ...]
    nodes: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith peg --json``."""
        return {"plays": [p.to_dict() for p in self.plays], "nodes": self.nodes, "seconds": round(self.seconds, 3)}


def solve_peg(
    position: "Position",
    top: int | None = None,
    *,
    on_play: Callable[[PegPlay], None] | None = None,
    tt_mb: int = DEFAULT_TT_MB,
) -> PegResult:
    """Solve the one-tile pre-endgame of ``position`` (one tile in the bag, two players): every
    placement of the player to move (or the ``top`` best by score; None for all) and the pass, each
    with its exact chance of winning over the possible bag tiles. ``on_play`` is called with each
    play as it is solved (progress)."""
    from ..core.position import Position

    if not isinstance(position, Position):
        raise RacksmithError(f"position must be a racksmith Position, got {type(position).__name__}")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise RacksmithError(f"top must be a whole number of plays (1 or more) or None for all, got {top!r}")
    if isinstance(tt_mb, bool) or not isinstance(tt_mb, int) or not 1 <= tt_mb <= 1 << 16:
        raise RacksmithError(f"tt_mb must be a whole number of megabytes, 1 to 65536, got {tt_mb!r}")
    if len(position.racks) != 2:
        raise PositionError(f"a pre-endgame is between two players; this position has {len(position.racks)} racks")
    if position.is_over:
        raise PositionError("the game is over: there is no play to solve")
    in_bag = position.bag_count
    if in_bag != 1:
        raise PositionError(
            f"the bag holds {in_bag} tile{'s' if in_bag != 1 else ''}: the pre-endgame needs exactly one"
            + (" (with the bag empty, solve the endgame: solve_endgame)" if in_bag == 0 else "")
        )
    lexicon = position.lexicon
    if not isinstance(lexicon, Lexicon):
        raise RacksmithError(
            f"the pre-endgame solver needs a KWG lexicon (racksmith.lexicon.Lexicon), got {type(lexicon).__name__}"
        )
    start = time.monotonic()
    rs = position.ruleset
    a = rs.alphabet
    rack = tuple(position.racks[0])
    if position.racks_known[1]:  # the opponent's rack is known: the bag's tile is too
        scenarios = [(int(position.bag_tiles()[0]), 1, tuple(position.racks[1]))]
    else:
        unseen = list(position.unseen_tiles())
        scenarios = []
        for t, count in sorted(Counter(unseen).items()):
            rest = list(unseen)
            rest.remove(t)
            scenarios.append((int(t), count, tuple(rest)))
    draws = sum(c for _, c, _ in scenarios)
    pool = bytes(rack) + bytes(scenarios[0][2]) + bytes([scenarios[0][0]])  # every tile still to be played
    board = np.ascontiguousarray(position.board, dtype=np.uint8)
    check_no_reclamation(rs, board, pool)
    rules = pruned_rules(rs, lexicon, board, pool)
    reduce = passes_reduce(rs, board, pool)
    search = Search(rules, max(10, min(32, int(math.log2(tt_mb)) + 16)))
    placements = [m for m in position.moves(top, sort="score") if m.is_place]
    candidates = placements + [Move.pass_(a, score=0)]
    nodes = 0
    plays = []
    for m in candidates:
        wins = 0.0
        total = 0
        outcomes = []
        for tile, count, opp in scenarios:
            p = Position(rs, position.board, (rack, opp), position.scores, position.zero_turns, position.opcodes,
                         lexicon=lexicon)
            p.push(m, [tile] if m.is_place else None, trusted=True)
            final = p.scores[1] - p.scores[0]  # the mover's, after his play
            if not p.is_over:
                zero, limit = _effective_zero(p.zero_turns, rs.zero_turn_limit, reduce)
                search.set_position(np.ascontiguousarray(p.board, dtype=np.uint8), bytes(p.racks[0]),
                                    bytes(p.racks[1]), p.scores[0] - p.scores[1], zero, limit,
                                    bytes([tile]) if p.bag_count else b"")
                value, n = _solve(search)
                nodes += n
                final -= value
            nodes += 1
            total += final * count
            wins += count if final > 0 else count / 2 if final == 0 else 0
            outcomes.append((a.letter(tile) if tile else "?", int(final)))
        play = PegPlay(m, wins, draws, wins / draws, total / draws, tuple(outcomes))
        plays.append(play)
        if on_play is not None:
            on_play(play)
    plays.sort(key=lambda q: (-q.win_probability, -q.mean_spread))
    return PegResult(tuple(plays), nodes, time.monotonic() - start)


def _solve(search: Search) -> tuple[int, int]:
    """The exact value of the search's root (what best play adds to its mover's spread) and the
    positions searched."""
    nodes = 0
    for depth in range(1, MAX_DEPTH + 1):
        found = search.search(depth)
        if found is None:  # pragma: no cover - no deadline, no stop
            raise RacksmithError("the pre-endgame search stopped")
        nodes += found["nodes"]
        if found["exact"]:
            return int(found["value"]), nodes
    raise RacksmithError(f"the pre-endgame search did not end within {MAX_DEPTH} plies")  # pragma: no cover
