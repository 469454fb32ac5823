"""The moves that take stars back (Эрудит's star reclamation), from the move generator.

Where the ruleset allows it (``ruleset.star_reclamation``; the rule is
:mod:`racksmith.core.turns`'), a placement may first take back the stars (blanks) on the board
whose real letters the player holds: each real letter goes onto its star's square and the star to
the rack, and the placement must play at least as many stars as it took back. The compiled
generator knows nothing of this; the moves come from it all the same, one call per set of stars:

1. the stars on the board whose letter is on the rack, and every non-empty set of them the rack
   can pay for (two stars standing for Т need two real Т);
2. for each set, a copy of the position with the exchange made (the real letters on the squares,
   the stars on the rack) and the generator's moves there, kept when they place at least as many
   stars as the set took back: their score, leave and equity are the generator's, on the board
   and rack after the exchange, which is how the rules score them;
3. the kept moves become records of kind 3 (:data:`~racksmith.movegen.movelist.RECLAIM_KIND`)
   with the stars taken back beside them, merged with the position's other moves in the
   generator's rank order (:func:`with_reclamations`).

For the best N, each set asks the generator for its best N moves, and four times as many while
too few of them play the stars, until enough do or none are left. A move that takes two stars back
is never the same as one that takes one: the board after it differs.
"""
from __future__ import annotations

from os import PathLike
from typing import TYPE_CHECKING

import numpy as np

from ..core import turns
from ..rules.alphabet import BLANK, THROUGH
from .generate import generate_moves
from .movelist import RECLAIM_KIND, RECORD_DTYPE, MoveList

if TYPE_CHECKING:  # pragma: no cover
    from ..lexicon import Leaves

__all__ = ["reclaimable_stars", "reclamation_moves", "with_reclamations"]

_KIND_RANK = np.array([0, 1, 2, 0], dtype=np.int64)  #: a record's kind as the ranking orders it


def reclaimable_stars(position) -> list[tuple[int, int, int]]:
    """``(row, col, letter)`` of each star on the board whose real letter the player to move
    holds, by square; empty when the ruleset has no star reclamation or his rack is not known
    (:func:`racksmith.core.turns.reclaimable_stars`)."""
    if not position.racks_known[0]:
        return []
    return turns.reclaimable_stars(position.ruleset, position.board, position.rack)


def _exchanged(position, chosen):
    """A copy of the position with the stars of ``chosen`` taken back (:func:`racksmith.core.turns.exchange_stars`)."""
    p = position.copy(stack=False)
    p.racks[0] = position.ruleset.alphabet.tiles(turns.exchange_stars(p.board, p.racks[0], chosen))
    return p


def _stars_placed(records: np.ndarray) -> np.ndarray:
    """How many blanks each placement record puts on the board."""
    if not len(records):
        return np.zeros(0, dtype=np.int64)
    tiles = np.frombuffer(records["tiles"].tobytes(), dtype=np.uint8).reshape(len(records), -1)
    inside = np.arange(tiles.shape[1])[None, :] < records["length"][:, None]
    return (((tiles & (BLANK | THROUGH)) == BLANK) & inside).sum(axis=1)


def _leave_mask(mask: int, from_rack, to_rack) -> int:
    """A leave bit mask over ``from_rack`` rewritten over ``to_rack`` (which holds those tiles)."""
    used = 0
    out = 0
    for b, t in enumerate(from_rack):
        if mask >> b & 1:
            for j, u in enumerate(to_rack):
                if u == t and not used >> j & 1:
                    used |= 1 << j
                    out |= 1 << j
                    break
            else:  # pragma: no cover - the leave is always part of the rack the moves are made from
                raise AssertionError("a leave that is not part of the rack")
    return out


def reclamation_moves(
    position,
    top: int | None = None,
    *,
    sort: str = "score",
    leaves: "Leaves | str | PathLike[str] | None" = None,
    direction: str = "both",
    algorithm: str = "gaddag",
) -> MoveList:
    """Every legal move of the player to move that takes stars back from the board, ranked as
    :func:`~racksmith.movegen.generate_moves` ranks (the arguments are its own, without exchanges:
    such a move is always a placement). Empty when the ruleset has no star reclamation
    (``ruleset.star_reclamation``), when no star on the board stands for a letter on the rack, or
    when the rack is not known."""
    rs = position.ruleset
    rack = position.rack
    parts: list[np.ndarray] = []
    taken: list[tuple[tuple[int, int, int], ...]] = []
    with_equity = leaves is not None or sort == "equity"
    sets = turns.star_sets(rs, position.board, rack) if position.racks_known[0] else []
    for chosen in sets:
        p = _exchanged(position, chosen)
        n = top
        while True:
            ml = generate_moves(p, top=n, sort=sort, leaves=leaves, exchanges=False, direction=direction,
                                algorithm=algorithm)
            recs = ml.to_numpy()
            # the rule of turns.check_stars_replayed, on the records: as many stars played as taken back
            keep = (recs["kind"] == 0) & (_stars_placed(recs) >= len(chosen))
            if n is None or int(keep.sum()) >= n or len(recs) < n:
                break
            n *= 4
        recs = recs[keep].copy()
        if top is not None:
            recs = recs[:top]
        recs["kind"] = RECLAIM_KIND
        sub_rack = p.rack
        recs["leave"] = [_leave_mask(int(m), sub_rack, rack) for m in recs["leave"].tolist()]
        parts.append(recs)
        taken.extend([chosen] * len(recs))
    records = np.concatenate(parts) if parts else np.zeros(0, dtype=RECORD_DTYPE)
    merged = MoveList(records, rs.alphabet, rack, with_equity, reclaimed=taken, rack_size=rs.rack_size)
    return _ranked([merged], sort == "equity", top, rs, rack, with_equity)


def with_reclamations(
    moves: MoveList,
    position,
    top: int | None = None,
    *,
    sort: str = "score",
    leaves: "Leaves | str | PathLike[str] | None" = None,
    direction: str = "both",
    algorithm: str = "gaddag",
) -> MoveList:
    """``moves`` (the generator's list for ``position``, made with these arguments) with the moves
    that take stars back merged in, in rank order, cut to ``top``; ``moves`` itself when there
    are none."""
    extra = reclamation_moves(position, top, sort=sort, leaves=leaves, direction=direction, algorithm=algorithm)
    if not len(extra):
        return moves
    out = _ranked([moves, extra], sort == "equity", top, position.ruleset, position.rack, moves.has_equity)
    out.placements_reached = moves.placements_reached
    return out


def _ranked(lists: list[MoveList], by_equity: bool, top: int | None, rs, rack, with_equity: bool) -> MoveList:
    """The records of ``lists`` in the generator's rank order (its ``rec_cmp``: the sort key, the
    other key, placements before exchanges before the pass, then row, column, direction and
    tiles; a move that takes stars back after the same placement without), cut to ``top``."""
    records = np.concatenate([m.to_numpy() for m in lists])
    taken = [m.reclaimed(i) for m in lists for i in range(len(m))]
    n = len(records)
    first, second = (records["equity"], records["score"]) if by_equity else (records["score"], records["equity"])
    first = first.tolist()
    second = second.tolist()
    kind = _KIND_RANK[records["kind"]].tolist()
    rows, cols, dirs, lengths = (records[f].tolist() for f in ("row", "col", "dir", "length"))
    buf = records.tobytes()  # the tiles as the kernel compares them (a bytes field's tolist drops trailing 0s)
    size = RECORD_DTYPE.itemsize
    at = RECORD_DTYPE.fields["tiles"][1]
    order = sorted(
        range(n),
        key=lambda i: (-first[i], -second[i], kind[i], rows[i], cols[i], dirs[i],
                       buf[i * size + at : i * size + at + lengths[i]], taken[i]),
    )
    if top is not None:
        order = order[:top]
    return MoveList(records[order], rs.alphabet, rack, with_equity, reclaimed=[taken[i] for i in order],
                    rack_size=rs.rack_size, sort="equity" if by_equity else "score")
