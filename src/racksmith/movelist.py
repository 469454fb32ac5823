"""Generated moves as compact arrays, turned into :class:`~racksmith.move.Move` values only when
asked for.

A :class:`MoveList` holds the kernel's records (a numpy structured array, one 48-byte row per move:
``equity``, ``score``, ``kind``, ``row``, ``col``, ``dir``, ``length``, ``n_played``, ``leave`` and
``tiles``) in rank order, best first. Indexing, slicing and iterating build moves lazily;
:meth:`MoveList.to_numpy` gives the array itself and :meth:`MoveList.to_records` plain dicts.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np

from ._movegen import RECORD_DTYPE
from .alphabet import Alphabet
from .move import EXCHANGE, PASS, PLACE, Move

__all__ = ["MoveList", "RECORD_DTYPE"]

_KINDS = (PLACE, EXCHANGE, PASS)
_TILES_OFFSET = RECORD_DTYPE.fields["tiles"][1]


class MoveList(Sequence[Move]):
    """The moves of a position, ranked (see :func:`racksmith.movegen.generate_moves`).

    ``rack`` is the rack the moves were made from (0 = blank, sorted): each move's ``leave`` is
    the part of it kept. ``equity`` is ``None`` on every move when equity was not computed.
    """

    __slots__ = ("_recs", "_alphabet", "_rack", "_with_equity", "_cols", "_buf")

    def __init__(self, records: np.ndarray, alphabet: Alphabet, rack: Sequence[int], with_equity: bool):
        if records.dtype != RECORD_DTYPE:
            raise TypeError(f"records must have dtype RECORD_DTYPE, got {records.dtype}")
        self._recs = records
        self._alphabet = alphabet
        self._rack = tuple(sorted(rack))
        self._with_equity = with_equity
        self._cols: tuple | None = None
        self._buf: bytes | None = None

    # --- the compact form ---------------------------------------------------------------------
    @property
    def alphabet(self) -> Alphabet:
        return self._alphabet

    @property
    def rack(self) -> tuple[int, ...]:
        return self._rack

    @property
    def has_equity(self) -> bool:
        return self._with_equity

    def to_numpy(self) -> np.ndarray:
        """The records (read-only structured array of ``RECORD_DTYPE``), best first.

        ``kind`` 0 placement, 1 exchange, 2 pass; ``dir`` 0 across, 1 down; ``tiles[:length]`` as in
        :attr:`Move.tiles`; ``leave`` a bit per rack tile kept (bit ``i`` = ``rack[i]``)."""
        return self._recs

    def __len__(self) -> int:
        return len(self._recs)

    # --- moves, lazily ------------------------------------------------------------------------
    def _columns(self) -> tuple:
        if self._cols is None:
            r = self._recs
            self._cols = (
                r["kind"].tolist(),
                r["row"].tolist(),
                r["col"].tolist(),
                r["dir"].tolist(),
                r["length"].tolist(),
                r["score"].tolist(),
                r["equity"].tolist(),
                r["leave"].tolist(),
            )
            self._buf = r.tobytes()
        return self._cols

    def _move(self, i: int) -> Move:
        kind, row, col, dirs, length, score, equity, leave = self._columns()
        off = i * RECORD_DTYPE.itemsize + _TILES_OFFSET
        tiles = tuple(self._buf[off : off + length[i]])
        k = _KINDS[kind[i]]
        mask = leave[i]
        rack = self._rack
        return Move(
            kind=k,
            row=row[i],
            col=col[i],
            across=dirs[i] == 0,
            tiles=tiles,
            alphabet=self._alphabet,
            score=score[i],
            equity=equity[i] if self._with_equity else None,
            leave=tuple(t for b, t in enumerate(rack) if mask >> b & 1),
        )

    @overload
    def __getitem__(self, i: int) -> Move: ...

    @overload
    def __getitem__(self, i: slice) -> "MoveList": ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return MoveList(self._recs[i], self._alphabet, self._rack, self._with_equity)
        n = len(self._recs)
        j = int(i)
        if j < 0:
            j += n
        if not 0 <= j < n:
            raise IndexError(f"move index {i} out of range for {n} moves")
        return self._move(j)

    def __iter__(self) -> Iterator[Move]:
        for i in range(len(self._recs)):
            yield self._move(i)

    def to_records(self) -> list[dict[str, Any]]:
        """Plain dicts, best first (what ``racksmith moves --json`` prints):
        placements ``{type, row, col, dir, word, notation, score, equity, leave}``,
        exchanges ``{type, tiles, equity, leave}``, the pass ``{type, equity}``."""
        a = self._alphabet
        out: list[dict[str, Any]] = []
        for m in self:
            leave = a.rack_string(m.leave)
            if m.kind == PLACE:
                out.append(
                    {
                        "type": PLACE,
                        "row": m.row,
                        "col": m.col,
                        "dir": "H" if m.across else "V",
                        "word": m.word,
                        "notation": m.notation(),
                        "score": m.score,
                        "equity": m.equity,
                        "leave": leave,
                    }
                )
            elif m.kind == EXCHANGE:
                out.append({"type": EXCHANGE, "tiles": a.rack_string(m.tiles), "equity": m.equity, "leave": leave})
            else:
                out.append({"type": PASS, "equity": m.equity})
        return out

    def __repr__(self) -> str:
        head = ", ".join(str(m) for m in self[:3])
        more = ", ..." if len(self) > 3 else ""
        return f"<MoveList of {len(self)}: {head}{more}>"
