"""Inference: what the opponent kept, given his last play (MAGPIE's inference).

The opponent held a full rack before his play: the tiles he played and a *leave* of
``rack_size - played`` tiles, drawn from the tiles we cannot see (the bag and his present rack:
what he kept and what he drew are among them). Every multiset of that size the unseen tiles can
supply is tried: the leave is kept when the play was a best play of that rack by static equity,
within ``margin`` points (``score + leave value + margin >= best equity``; or the leave exhausts the
unseen tiles); for an exchange of ``n`` tiles (whose tiles we do not see), when the best play of the
rack is an exchange of ``n`` tiles, and the leave is then what that exchange keeps. Each leave is
weighted by the number of ways it can be drawn from the unseen tiles (the product of binomial
coefficients ``C(unseen[t], leave[t])``): its probability is its share of the total weight.

The enumeration and the move generation run in the compiled kernel (:func:`racksmith.sim._sim.infer_leaves`).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.move import Move
from ..errors import InferenceError, RacksmithError
from ..lexicon import Leaves, Lexicon
from ..movegen._movegen import TILE_BITS, BoardState
from ..movegen.generate import _leaves, _tables
from ..rules.alphabet import BLANK, LETTER_MASK, THROUGH, Tiles

if TYPE_CHECKING:  # pragma: no cover
    from ..core.position import Position

#: MAGPIE's default equity margin (points)
DEFAULT_MARGIN = 5.0
#: the most candidate leaves enumerated (a 7-tile exchange from a full bag is ~3 million)
MAX_LEAVES = 5_000_000




@dataclass(frozen=True, slots=True)
class InferredLeave:
    leave: Tiles
    draws: int          #: ways to draw this leave from the unseen tiles
    probability: float
    value: float        #: its leave value

    def to_dict(self) -> dict[str, Any]:
        return {"leave": str(self.leave), "probability": round(self.probability, 8), "draws": self.draws,
                "value": round(self.value, 4)}


@dataclass(frozen=True, slots=True)
class Inference:
    """The leaves the opponent may have kept after ``move``, most likely first."""

    move: Move
    leaves: tuple[InferredLeave, ...]
    total_draws: int
    racks_tried: int
    margin: float
    unseen: Tiles

    def kernel_arrays(self, position: "Position"):
        """The leaves as the simulation kernel takes them: (tiles (n, MAX_RACK) uint8, lengths,
        weights), checked against the unseen tiles of ``position``."""
        MAX_RACK = TILE_BITS["MAX_RACK"]
        if not self.leaves:
            raise InferenceError("the inference kept no leave: nothing to draw the opponent's rack from")
        pool = np.bincount(np.frombuffer(bytes(position.unseen_tiles()), np.uint8), minlength=64)
        tiles = np.zeros((len(self.leaves), MAX_RACK), np.uint8)
        lens = np.zeros(len(self.leaves), np.uint8)
        weights = np.zeros(len(self.leaves), np.float64)
        for i, lv in enumerate(self.leaves):
            t = list(lv.leave)
            if (np.bincount(np.asarray(t, dtype=np.int64), minlength=64) > pool).any() if t else False:
                raise InferenceError(f"inferred leave {lv.leave} is not among this position's unseen tiles")
            tiles[i, : len(t)] = t
            lens[i] = len(t)
            weights[i] = lv.probability
        return tiles, lens, weights

    def to_dict(self) -> dict[str, Any]:
        return {
            "move": self.move.notation(),
            "margin": self.margin,
            "racks_tried": self.racks_tried,
            "total_draws": self.total_draws,
            "leaves": [lv.to_dict() for lv in self.leaves],
        }


def _count_multisets(pool: list[int], k: int) -> int:
    """Multisets of k tiles the pool (counts by tile) can supply."""
    ways = [1] + [0] * k
    for c in pool:
        if not c:
            continue
        new = [0] * (k + 1)
        for j in range(k + 1):
            if ways[j]:
                for x in range(min(c, k - j) + 1):
                    new[j + x] += ways[j]
        ways = new
    return ways[k]


def infer_leaves(
    position: "Position",
    move: "Move | str | None" = None,
    *,
    leaves: "Leaves | str | os.PathLike[str] | None" = None,
    margin: float = DEFAULT_MARGIN,
) -> Inference:
    """The leaves the opponent may have kept with ``move``, his last play, in ``position`` (where
    we are to move and the play is on the board). ``move``: a placement as written (``"8D QUIRK"``,
    tiles played through in parentheses), ``"-N"`` for an exchange of N tiles, or None for the
    last move pushed on ``position``. ``leaves``: the leave values (as the simulation's);
    ``margin``: points within the best equity for a play to count as a choice."""
    from ..core.position import Position

    if not isinstance(position, Position):
        raise InferenceError(f"infer_leaves needs a Position, got {type(position).__name__}")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 <= margin < 1e6:
        raise InferenceError(f"margin must be a number of points >= 0, got {margin!r}")
    if len(position.racks) != 2:
        raise InferenceError(f"inference is for two-player positions, this one has {len(position.racks)} racks")
    rs = position.ruleset
    a = rs.alphabet
    lexicon = position.lexicon
    if not isinstance(lexicon, Lexicon):
        raise InferenceError(f"inference needs a KWG lexicon, got {type(lexicon).__name__}")
    if position.racks_known[1]:
        raise InferenceError(
            "the opponent's rack is known in this position: inference is for an unknown rack "
            "(leave it out of the CGP: 'RACK/' with nothing after the slash)"
        )
    board_after = np.ascontiguousarray(position.board, dtype=np.uint8)
    our_rack = list(position.racks[0])
    opp_value = sum(rs.values[t] for t in our_rack)
    exchanged = 0
    played: list[int] = []
    if move is None:
        if not position.move_stack:
            raise InferenceError("no previous move: give the opponent's last play (e.g. '8D QUIRK')")
        move = position.move_stack[-1]
    if isinstance(move, str):
        m = re.fullmatch(r"\s*-\s*(\d+)\s*", move)
        if m:
            exchanged = int(m.group(1))
            if not 1 <= exchanged <= rs.rack_size:
                raise InferenceError(f"an exchange gives back 1..{rs.rack_size} tiles, got {exchanged}")
            move = Move.exchange([0] * exchanged, a)  # the count is what is known
        else:
            try:
                move = Move.parse(move, rs)
            except RacksmithError as e:
                raise InferenceError(str(e)) from None
    if not isinstance(move, Move):
        raise InferenceError(f"move must be a Move, its notation or None, got {type(move).__name__}")
    if move.kind == "pass":
        raise InferenceError("a pass tells nothing about the rack: give a placement or an exchange ('-N')")
    if move.kind == "exchange":
        exchanged = exchanged or len(move.tiles)
        board_before = board_after.copy()
        score = 0
    else:
        board_before = board_after.copy()
        r, c = move.row, move.col
        dr, dc = (0, 1) if move.across else (1, 0)
        if not (0 <= r + dr * (len(move.tiles) - 1) < rs.rows and 0 <= c + dc * (len(move.tiles) - 1) < rs.cols):
            raise InferenceError(f"{move.notation()} does not fit on the board")
        for i, t in enumerate(move.tiles):
            rr, cc = r + dr * i, c + dc * i
            on = int(board_after[rr, cc])
            if t & THROUGH:
                if (t & ~THROUGH) and on != (t & ~THROUGH):
                    raise InferenceError(f"{move.notation()}: the square played through does not hold that tile")
                if not on:
                    raise InferenceError(f"{move.notation()}: a square played through is empty")
                continue
            if on != t:
                raise InferenceError(
                    f"{move.notation()} is not on the board: give the opponent's last play as it stands on the board"
                )
            board_before[rr, cc] = 0
            played.append(0 if t & BLANK else t & LETTER_MASK)
        if not played:
            raise InferenceError(f"{move.notation()} places no tile")
        before = Position(rs, board_before, (a.tiles(sorted(played)), a.tiles(our_rack)),
                          (position.scores[1], position.scores[0]), lexicon=lexicon)
        try:
            score = before.score(move).score
        except RacksmithError as e:
            raise InferenceError(f"{move.notation()} is not a legal play on the board before it: {e}") from None
    pool_tiles = list(position.unseen_tiles())
    leave_size = rs.rack_size - (len(played) if not exchanged else 0)
    if len(pool_tiles) < leave_size:
        raise InferenceError(
            f"only {len(pool_tiles)} tiles are unseen, fewer than the {leave_size} the opponent would have kept: "
            "the bag is too small for this play"
        )
    bag_before = len(pool_tiles) + len(played) - rs.rack_size
    if exchanged and bag_before < rs.exchange_limit:
        raise InferenceError(f"an exchange needs {rs.exchange_limit} tiles in the bag; there were {max(bag_before, 0)}")
    leave_values = _leaves(leaves, rs)
    tables, _ = _tables(rs, lexicon, leave_values)
    pool_counts = np.bincount(np.asarray(pool_tiles, dtype=np.int64), minlength=64).tolist()
    n_racks = _count_multisets(pool_counts, leave_size)
    if n_racks > MAX_LEAVES:
        raise InferenceError(f"{n_racks:,} racks to try: more than {MAX_LEAVES:,}")
    board = BoardState(tables.rules)
    board.set(board_before)
    from ._sim import infer_leaves as kernel_infer

    tiles, lens, weights, values = kernel_infer(
        tables.rules, tables.leave_table, board, bytes(played), bytes(pool_tiles), leave_size, exchanged,
        float(score), float(margin), max(bag_before, 0), opp_value, rs.exchange_limit, max(1, n_racks),
    )
    found: dict[tuple, list] = {}
    for i in range(len(lens)):
        key = tuple(int(x) for x in tiles[i, : lens[i]])
        entry = found.setdefault(key, [0, float(values[i])])
        entry[0] += int(round(weights[i]))
    total = sum(w for w, _ in found.values())
    out = [
        InferredLeave(a.tiles(k), w, w / total if total else 0.0, v)
        for k, (w, v) in found.items()
    ]
    out.sort(key=lambda x: (-x.draws, str(x.leave)))
    return Inference(move, tuple(out), total, n_racks, float(margin), a.tiles(sorted(pool_tiles)))
