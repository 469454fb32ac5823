"""Generated moves as compact arrays, turned into :class:`~racksmith.core.move.Move` values only when
asked for.

A :class:`MoveList` holds the kernel's records (a numpy structured array, one 48-byte row per move:
``equity``, ``score``, ``kind``, ``row``, ``col``, ``dir``, ``length``, ``n_played``, ``leave`` and
``tiles``) in rank order, best first. Indexing, slicing and iterating build moves lazily;
:meth:`MoveList.to_numpy` gives the array itself and :meth:`MoveList.to_records` plain dicts.

Placements that first take stars back from the board (Эрудит's star reclamation,
:mod:`racksmith.movegen.reclaim`) are records of ``kind`` 3; the stars they take back, which a
48-byte record has no room for, are kept beside the records (:meth:`MoveList.reclaimed`).
"""
from __future__ import annotations

import math
import operator
import os
import struct
import threading
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from .. import _args
from ._movegen import RECORD_DTYPE, MoveListBase
from ..rules.alphabet import LETTER_MASK, THROUGH, Alphabet, Tiles
from ..rules.coords import coord_label
from ..core.move import EXCHANGE, PASS, PLACE, Move, MoveKind, _made, _snapshot_position
from ..errors import MoveGenError

if TYPE_CHECKING:  # pragma: no cover
    from ..core.position import Position

__all__ = ["MoveList", "RECORD_DTYPE", "record_move"]

#: by the record's ``kind`` code: the kernel's 0, 1, 2, and 3 for a placement that takes stars back
_KINDS = (MoveKind.PLACE, MoveKind.EXCHANGE, MoveKind.PASS, MoveKind.PLACE)
RECLAIM_KIND = 3  #: the ``kind`` code of a placement that takes stars back (never the kernel's)
_TILES_OFFSET = RECORD_DTYPE.fields["tiles"][1]
_ITEMSIZE = RECORD_DTYPE.itemsize
_TILE_SLOTS = RECORD_DTYPE.fields["tiles"][0].shape[0]


@lru_cache(maxsize=16)
def _letters(alphabet: Alphabet) -> tuple[str, ...]:
    """How each tile (0..255, the THROUGH bit clear) is written: ``?`` for the rack blank, the
    letter, lowercase with the BLANK bit; multi-character letters in brackets."""
    out = []
    for t in range(256):
        letter = t & LETTER_MASK
        if t & THROUGH or letter > len(alphabet) or (letter == 0 and t):
            out.append("")
            continue
        s = alphabet.letter(t) if letter else "?"
        out.append(f"[{s}]" if len(s) > 1 else s)
    return tuple(out)


#: guards the publication of :attr:`MoveList.position` (made once for a list that threads share);
#: taken only the first time a list's position is asked for, never when moves are made or read
_POSITION_LOCK = threading.Lock()


def _new_lock_in_child() -> None:
    """A forked child has only the thread that forked: the lock, if another thread held it, would
    be held for ever there."""
    global _POSITION_LOCK
    _POSITION_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)

EQUITY_DECIMALS = 5  #: equities are reported to 1e-5 points
_KEYS = ("score", "equity")  #: what a list is ranked by
_EQUITY_SCALE = 10.0**EQUITY_DECIMALS
#: one record as struct fields: equity, score, kind, row, col, dir, length, n_played, leave, tiles
_RECORD = struct.Struct("<diBBBBBBH28s")
assert _RECORD.size == _ITEMSIZE and RECORD_DTYPE.fields["leave"][1] == 18 and _TILES_OFFSET == 20


def _rounded_equity(equity: float) -> float:
    """``equity`` as ``np.round(equity, EQUITY_DECIMALS)`` gives it (scale, round half to even,
    unscale; the sign of a zero kept), without numpy's per-call cost."""
    v = round(equity * _EQUITY_SCALE) / _EQUITY_SCALE
    return v if v else math.copysign(0.0, equity)


def record_move(buf: bytes, alphabet: Alphabet, offset: int = 0) -> Move:
    """The move of one kernel record (``RECORD_DTYPE`` bytes at ``offset`` of ``buf``), its score
    set; no equity and no leave (a record's leave is a mask over a rack it does not carry)."""
    _, score, kind, row, col, dirs, length, _, _, tiles = _RECORD.unpack_from(buf, offset)
    # (made without the constructor's checks: a record's values are plain ints, an exchange's sorted)
    if kind == 0:
        return _made(PLACE, row, col, dirs == 0, tuple(tiles[:length]), alphabet, score)
    if kind == 1:
        return _made(EXCHANGE, 0, 0, True, tuple(tiles[:length]), alphabet, 0)
    return _made(PASS, 0, 0, True, (), alphabet, 0)


#: the largest equity a record may hold (its rounding to 1e-5 must stay finite)
_MAX_EQUITY = 1e300
#: what each ``kind`` code of a record is, for messages
_KIND_CODES = "0 a placement, 1 an exchange, 2 a pass, 3 a placement that takes stars back"


def _check_records(recs: np.ndarray, with_equity: bool) -> bool:
    """Refuse records that are no moves: an unknown ``kind`` or ``dir``, more tiles than a record
    holds, or (``with_equity``) an equity that is not a finite number; say whether one is of kind 3.
    The kernel's records need no check (it fills the lists of :meth:`Position.moves` itself,
    without the constructor)."""
    if not len(recs):
        return False
    kind, dirs, length = (int(recs[name].max()) for name in ("kind", "dir", "length"))
    for name, found, limit, what in (("kind", kind, RECLAIM_KIND, f"({_KIND_CODES})"),
                                     ("dir", dirs, 1, "(0 across, 1 down)"),
                                     ("length", length, _TILE_SLOTS, f"(a record holds {_TILE_SLOTS} tiles)")):
        if found > limit:
            column = recs[name]
            i = int(np.flatnonzero(column > limit)[0])
            raise MoveGenError(f"record {i} has {name} {int(column[i])}: not a move {what}")
    if with_equity:
        equity = recs["equity"]
        if not -_MAX_EQUITY <= float(equity.min()) <= float(equity.max()) <= _MAX_EQUITY:  # (a NaN is neither)
            i = int(np.flatnonzero(~(np.abs(equity) <= _MAX_EQUITY))[0])
            raise MoveGenError(f"record {i} has equity {float(equity[i])!r}: an equity is a finite number of points")
    return kind == RECLAIM_KIND


def _checked_reclaimed(reclaimed: Any, recs: np.ndarray, any_takes: bool) -> "list | None":
    """``reclaimed`` as the list kept (None when no record takes a star back): an entry a record,
    each ``(row, col, letter)`` triples of whole numbers, and some for each record of kind 3 (there
    is one when ``any_takes``)."""
    if reclaimed is None:
        if any_takes:
            i = int(np.flatnonzero(recs["kind"] == RECLAIM_KIND)[0])
            raise MoveGenError(f"record {i} has kind {RECLAIM_KIND} (a placement that takes stars back): give the "
                               "stars it takes back (reclaimed=)")
        return None
    try:
        entries = [tuple(tuple(star) for star in entry) for entry in reclaimed]
    except TypeError:
        entries = None
    if entries is None or not all(len(star) == 3 and all(_args.is_whole(v) for v in star)
                                  for entry in entries for star in entry):
        raise MoveGenError("reclaimed must hold, for each record, the stars its move takes back as (row, col, "
                           f"letter) triples of whole numbers (() for none), got {_args.show(reclaimed)}")
    if len(entries) != len(recs):
        raise MoveGenError(f"{len(entries)} entries of reclaimed stars for {len(recs)} records")
    if any_takes:
        for i in np.flatnonzero(recs["kind"] == RECLAIM_KIND).tolist():
            if not entries[i]:
                raise MoveGenError(f"record {i} has kind {RECLAIM_KIND} (a placement that takes stars back) and "
                                   "no star in reclaimed")
    return entries if any(entries) else None


def _finder(item: object, ml: "MoveList"):
    """A test of a :class:`Move` that says whether it is ``item``: a Move, or a move written as
    :meth:`Move.parse` reads it (in the list's letters; a text that is no move is its
    :class:`~racksmith.errors.InvalidMoveError`), as :meth:`MoveList.__contains__` takes them."""
    if isinstance(item, str):
        wanted = Move.parse(item, ml._letters_spec())
        return lambda m: _written_as(m, wanted)
    if isinstance(item, Move):
        return lambda m: m == item
    return lambda m: False  # (a list holds moves only)


def _written_as(m: Move, wanted: Move) -> bool:
    """Is ``m`` (a move of the list) the move ``wanted`` (parsed from text in the list's letters)?
    A square played through may be written as its letter (``QU(I)RK``, or ``QUIRK`` as the board
    shows it, a blank's in either case) or as ``.`` (``QU.RK``, the GCG form); a star taken back
    without its letter (``*12H``) is any; all else is as :meth:`Move.__eq__` compares it."""
    if m.kind != wanted.kind:
        return False
    if wanted.kind != PLACE:
        return m.tiles == wanted.tiles  # (an exchange's sorted, the pass's none)
    if m.row != wanted.row or m.col != wanted.col or m.across != wanted.across or len(m.tiles) != len(wanted.tiles):
        return False
    for t, w in zip(m.tiles, wanted.tiles):
        if t != w and not (t & THROUGH and (not w & LETTER_MASK or w & LETTER_MASK == t & LETTER_MASK)):
            return False
    if len(m.reclaimed) != len(wanted.reclaimed):
        return False
    return all((r, c) == (wr, wc) and (not wl or wl == letter)
               for (r, c, letter), (wr, wc, wl) in zip(m.reclaimed, wanted.reclaimed))


def _shown(item: object) -> str:
    if isinstance(item, Move):
        try:
            return item.notation()
        except Exception:  # noqa: BLE001 - a Move made of odd values: shown as Python shows it
            return repr(item)[:60]
    return repr(item)[:60] if isinstance(item, str) else _args.show(item)


class MoveList(MoveListBase, Sequence[Move]):
    """The moves of a position, ranked (see :func:`racksmith.movegen.generate_moves`).

    ``rack`` is the rack the moves were made from (:class:`~racksmith.rules.alphabet.Tiles`,
    sorted): each move's ``leave`` is the part of it kept. ``equity`` is ``None`` on every move when equity was not computed.
    ``placements_reached`` counts the placements the generator completed to make this list (all
    of them for a complete list; fewer when shadow playing stopped a top-N search early).
    ``reclaimed`` (one entry a record, ``()`` for most) lists the stars each placement of kind 3
    takes back, as :attr:`Move.reclaimed`. ``rack_size``: the ruleset's (``ruleset.rack_size``),
    which tells a bingo in :meth:`to_records` (``None``: not told, and ``bingo`` is ``None``).
    ``sort``: the key the records are ranked by, ``"score"`` or ``"equity"`` (:attr:`sorted_by`;
    None: not told, and read from the records).

    A slice (``moves[10:20]``, ``moves[::-1]``) keeps the ranks its moves have in the list it was
    cut from (:meth:`ranks`).
    """

    # the storage (the records, their count, the rack, ...) is the compiled MoveListBase, which the
    # kernel fills in one call (racksmith.movegen._movegen.plan_moves). The few things it has no
    # field for live in the instance's __dict__, made only when one is set (which pickles keep):
    # _sorted_by (the key the list is ranked by, when told) and _ranked_in (for a slice: the records
    # of the list it was cut from and where its moves are in them)
    _sorted_by: str
    _ranked_in: "tuple[np.ndarray, range]"

    def __init__(
        self,
        records: "np.ndarray | bytes",
        alphabet: Alphabet,
        rack: Sequence[int],
        with_equity: bool,
        placements_reached: int | None = None,
        reclaimed: "Sequence[tuple[tuple[int, int, int], ...]] | None" = None,
        rack_size: int | None = None,
        sort: str | None = None,
    ):
        if type(records) is bytes:  # the kernel's records as they came
            if len(records) % _ITEMSIZE:
                raise TypeError(f"records must be whole {_ITEMSIZE}-byte records, got {len(records)} bytes")
            self._recs = np.frombuffer(records, dtype=RECORD_DTYPE)
            self._buf = records
        else:
            if not isinstance(records, np.ndarray):
                raise TypeError(
                    f"records are a numpy array of RECORD_DTYPE (or the kernel's bytes), got {type(records).__name__}"
                )
            if records.dtype != RECORD_DTYPE:
                raise TypeError(f"records must have dtype RECORD_DTYPE, got {records.dtype}")
            if records.ndim != 1:
                raise MoveGenError(f"records must be a 1-D array (a record a move), got shape {records.shape}")
            self._recs = records
            self._buf = None
        self._n = len(self._recs)
        if type(with_equity) is not bool:
            with_equity = _args.flag(with_equity, "with_equity", MoveGenError)
        any_takes = _check_records(self._recs, with_equity)
        if not isinstance(alphabet, Alphabet):
            raise TypeError(f"alphabet must be an Alphabet (ruleset.alphabet), got {type(alphabet).__name__}")
        try:
            held = bytes(rack)  # (ints 0..255, counted in C)
        except (TypeError, ValueError):
            held = None
        if held is None or isinstance(rack, (str, bytes)):
            raise TypeError(f"rack must be tiles (ints 0..{len(alphabet)}, 0 a blank), got {rack!r}")
        if held and max(held) > len(alphabet):
            raise MoveGenError(f"rack {rack!r} holds a tile outside the alphabet (tiles are 0..{len(alphabet)}, 0 a blank)")
        self._reclaimed = _checked_reclaimed(reclaimed, self._recs, any_takes)
        if rack_size is not None and (type(rack_size) is not int or not 1 <= rack_size <= 255):
            raise MoveGenError(f"rack_size must be a whole number 1..255 (the ruleset's rack_size) or None, "
                               f"got {rack_size!r:.40}")
        if sort is not None:
            if not isinstance(sort, str) or sort not in _KEYS:
                raise MoveGenError(f"sort must be 'score' or 'equity' (the key the records are ranked by) or None, got "
                                   f"{_args.show(sort)}")
            if sort == "equity" and not with_equity:
                raise MoveGenError("records ranked by equity carry it: with_equity=True")
            self._sorted_by = str(sort)
        self._rack_size = rack_size
        self._alphabet = alphabet
        self._rack = alphabet.tiles(sorted(rack))
        self._with_equity = with_equity
        self._cols: tuple | None = None
        self._leaves: dict[int, Tiles] = {}
        self.placements_reached = placements_reached
        self._position = None

    @classmethod
    def _of(cls, records: np.ndarray, like: "MoveList", reclaimed, where: "slice | None" = None) -> "MoveList":
        """A list of some of ``like``'s records (checked when ``like`` was made, or the kernel's),
        without the constructor's checks: a slice. ``where``: the slice of ``like`` they are, whose
        ranks they keep (None: ranked among themselves)."""
        ml = cls.__new__(cls)
        told = getattr(like, "_sorted_by", None)
        if told is not None:
            ml._sorted_by = told
        if where is not None:
            ranked_in = getattr(like, "_ranked_in", None)
            if ranked_in is None:
                ml._ranked_in = (like.to_numpy(), range(like._n)[where])
            else:
                ml._ranked_in = (ranked_in[0], ranked_in[1][where])
        ml._recs = records
        ml._buf = None
        ml._n = len(records)
        ml._reclaimed = list(reclaimed) if reclaimed is not None and any(reclaimed) else None
        ml._alphabet = like._alphabet
        ml._rack_size = like._rack_size
        ml._rack = like._rack
        ml._with_equity = like._with_equity
        ml._cols = None
        ml._leaves = {}
        ml.placements_reached = None
        ml._position = like._position
        return ml

    @property
    def position(self) -> Position | None:
        """The position the moves were made in (a snapshot set by :meth:`Position.moves`, as it was
        then), for pictures; None for a list made otherwise. The list's own, made once: its moves
        (:attr:`Move.position`) each give a copy, so that changing one changes nothing else."""
        p = self._position
        if type(p) is tuple:  # Position.moves keeps its state cheaply; the Position is made once, here
            made = self.__dict__.get("_position_made")
            if made is None or made[0] is not p:  # (the moves keep the snapshot itself, not this)
                built = (p, _snapshot_position(p))
                # threads asking at once may each build one: the first published is everyone's
                with _POSITION_LOCK:
                    made = self.__dict__.get("_position_made")
                    if made is None or made[0] is not p:
                        made = self._position_made = built
            return made[1]
        return p

    @position.setter
    def position(self, value: Position | None) -> None:
        self._position = value
        self.__dict__.pop("_position_made", None)

    # --- the compact form ---------------------------------------------------------------------
    @property
    def alphabet(self) -> Alphabet:
        return self._alphabet

    @property
    def rack(self) -> Tiles:
        return self._rack

    @property
    def has_equity(self) -> bool:
        return self._with_equity

    @property
    def sorted_by(self) -> str:
        """The key the moves are ranked by, ``"score"`` or ``"equity"`` (the ``sort`` of
        :meth:`Position.moves`), which :meth:`ranks` ranks by unless told otherwise."""
        told = getattr(self, "_sorted_by", None)
        if told is not None:
            return told
        if not self._with_equity:
            return "score"
        # not told (a list made by generate_moves, or by the constructor without sort=): the key
        # the records (those of the list a slice was cut from) are in order of, equity when both are
        ranked_in = getattr(self, "_ranked_in", None)
        recs = self.to_numpy() if ranked_in is None else ranked_in[0]
        equity = recs["equity"]
        return "equity" if len(recs) < 2 or bool((equity[1:] <= equity[:-1]).all()) else "score"

    def to_numpy(self) -> np.ndarray:
        """The records (read-only structured array of ``RECORD_DTYPE``), best first.

        ``kind`` 0 placement, 1 exchange, 2 pass, 3 a placement that first takes stars back from
        the board (which: :meth:`reclaimed`); ``dir`` 0 across, 1 down; ``tiles[:length]`` as in
        :attr:`Move.tiles`; ``leave`` a bit per rack tile kept (bit ``i`` = ``rack[i]``)."""
        recs = self._recs
        if recs is None:  # (threads at once may each make a view: equal, and never half made)
            recs = self._recs = np.frombuffer(self._buf, dtype=RECORD_DTYPE)
        return recs

    def reclaimed(self, i: int) -> tuple[tuple[int, int, int], ...]:
        """The stars move ``i`` takes back from the board, ``(row, col, letter)`` as
        :attr:`Move.reclaimed` (empty for every move but those of kind 3)."""
        j = self._index(i)
        return self._reclaimed[j] if self._reclaimed is not None else ()

    def _index(self, i: Any) -> int:
        """``i`` as an index of the list (negative from the end): an int or a numpy integer, else a
        MoveGenError; out of range, an IndexError as for any sequence."""
        n = self._n
        if type(i) is not int:
            try:
                i = operator.index(i)
            except TypeError:
                raise MoveGenError(f"a move index is a whole number (or a slice), got {type(i).__name__} "
                                   f"{i!r:.40}") from None
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise IndexError(f"move index {i} out of range for {n} moves")
        return j

    # --- moves, lazily ------------------------------------------------------------------------
    def _columns(self) -> tuple:
        """The records' fields as lists, made once, with ``_buf`` (the records' bytes) made before
        them: threads share a list, and one that finds the columns made reads ``_buf`` at once
        (:meth:`to_records`), so they are published last, when all they go with is in place."""
        cols = self._cols
        if cols is None:
            r = self.to_numpy()
            cols = (
                r["kind"].tolist(),
                r["row"].tolist(),
                r["col"].tolist(),
                r["dir"].tolist(),
                r["length"].tolist(),
                r["score"].tolist(),
                # leave values are float32 in KLV files: round away the noise of widening them
                # (a 20.774 leave would read 20.77400016784668), keeping far more than they carry
                np.round(r["equity"], EQUITY_DECIMALS).tolist(),
                r["leave"].tolist(),
            )
            if self._buf is None:
                self._buf = r.tobytes()
            self._cols = cols
        return cols

    def _leave(self, mask: int) -> Tiles:
        leave = self._leaves.get(mask)
        if leave is None:
            leave = self._leaves[mask] = self._alphabet.tiles(t for b, t in enumerate(self._rack) if mask >> b & 1)
        return leave

    def _move(self, i: int) -> Move:
        buf = self._buf
        if buf is None:
            buf = self._buf = self.to_numpy().tobytes()
        equity, score, kind, row, col, dirs, length, _, leave, tiles = _RECORD.unpack_from(buf, i * _ITEMSIZE)
        # (made without the constructor's checks: a record's values are plain ints, an exchange's
        # sorted; each move keeps the list's snapshot, of which Move.position gives a copy)
        if self._reclaimed is not None and kind == RECLAIM_KIND:
            return _made(PLACE, row, col, dirs == 0, tuple(tiles[:length]), self._alphabet, score,
                         _rounded_equity(equity) if self._with_equity else None, self._leave(leave), self._position,
                         self._reclaimed[i])
        return _made(_KINDS[kind], row, col, dirs == 0, tuple(tiles[:length]), self._alphabet, score,
                     _rounded_equity(equity) if self._with_equity else None, self._leave(leave), self._position)

    @overload
    def __getitem__(self, i: int) -> Move: ...

    @overload
    def __getitem__(self, i: slice) -> "MoveList": ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return MoveList._of(self.to_numpy()[i], self, self._reclaimed[i] if self._reclaimed is not None else None, i)
        return self._move(self._index(i))

    def __iter__(self) -> Iterator[Move]:
        for i in range(self._n):
            yield self._move(i)

    def __contains__(self, item: object) -> bool:
        """Whether the list holds ``item``: a :class:`Move`, or a move written as :meth:`Move.parse`
        reads it, in the list's letters (``"J8 SOIREE"``, ``"j8 soiree"`` with blanks, ``"8D QU(I)RK"``,
        ``"8D QU.RK"`` as GCG writes it, ``"-"``, ``"pass"`` or ``"(pass)"`` for the pass, ``"-ABC"`` or
        ``"exch ABC"``, the letters in any order); a text that is no move is an
        :class:`~racksmith.errors.InvalidMoveError`."""
        found = _finder(item, self)
        return any(found(m) for m in self)

    def _letters_spec(self) -> "Any":
        """What text is read with (:meth:`Move.parse`): the ruleset of the list's position when
        there is one and it is of the list's alphabet (its board names a bad coordinate), else the
        alphabet."""
        snap = self._position
        src = snap[0] if type(snap) is tuple else snap
        rs = getattr(src, "ruleset", None)
        return rs if rs is not None and getattr(rs, "alphabet", None) is self._alphabet else self._alphabet

    def index(self, item: object, start: Any = 0, stop: Any = None) -> int:
        """The rank (from 0) of the first move from ``start`` up to ``stop`` that is ``item``: a
        :class:`Move` or a move written as text, as ``in`` takes them. A move the list does not hold is a
        :class:`~racksmith.errors.MoveGenError` (a ``ValueError``, as ``list.index`` raises)."""
        found = _finder(item, self)
        lo, hi, _ = slice(self._bound(start, "start"), self._bound(stop, "stop")).indices(self._n)
        for i in range(lo, hi):
            if found(self._move(i)):
                return i
        where = (f" from index {start}" if start != 0 else "") + (f" up to index {stop}" if stop is not None else "")
        raise MoveGenError(f"{_shown(item)} is not among these {self._n} moves{where}")

    def count(self, item: object) -> int:
        """How many moves of the list are ``item``: a :class:`Move` or a move written as text, as
        ``in`` takes them."""
        found = _finder(item, self)
        return sum(1 for m in self if found(m))

    @staticmethod
    def _bound(value: Any, name: str) -> "int | None":
        if value is None or type(value) is int:
            return value
        try:
            return operator.index(value)
        except TypeError:
            raise MoveGenError(f"{name} must be a whole number (or None), got {type(value).__name__} "
                               f"{value!r:.40}") from None

    def ranks(self, by: str | None = None) -> list[int]:
        """The rank of each move ``by`` ``"score"`` or ``"equity"`` (to 1e-5; default
        :attr:`sorted_by`, the key the list is ranked by): one more than the number of moves that
        are better by it, so moves that tie share the better rank (``1, 1, 3``). A slice keeps the
        ranks its moves have in the list it was cut from (``moves[300:303].ranks()`` may be
        ``[290, 290, 303]``; in ``moves[::-1]`` the pass keeps its rank)."""
        if by is None:
            by = self.sorted_by
        if not isinstance(by, str) or by not in _KEYS:
            raise MoveGenError(f"by must be 'score' or 'equity', got {_args.show(by)}")
        if by == "equity" and not self._with_equity:
            raise MoveGenError("the moves have no equity: rank them by 'score'")
        ranked_in = getattr(self, "_ranked_in", None)
        among, rows = (self.to_numpy(), None) if ranked_in is None else ranked_in
        keys = among[by]
        if by == "equity":
            keys = np.round(keys, EQUITY_DECIMALS)
        mine = keys if rows is None else keys[rows.start :: rows.step][: len(rows)]
        better = len(keys) - np.searchsorted(np.sort(keys), mine, side="right")  # (how many keys are greater)
        return (better + 1).tolist()

    def to_records(self) -> list[dict[str, Any]]:
        """Plain dicts, best first (what ``racksmith moves --json`` prints):
        placements ``{type, row, col, dir, word, notation, score, equity, leave}`` (``word`` the
        whole main word, lowercase for blanks, also those already on the board; ``notation`` as
        :meth:`Move.notation`), exchanges ``{type, tiles, notation, score, equity, leave}``
        (``notation`` ``-TILES``, ``score`` 0), the pass ``{type, notation, score, equity, leave}``
        (``-``, 0, the whole rack kept): every record has ``notation``, ``score``, ``equity`` and
        ``leave``. Placements also have ``placed``, ``[[row, col, letter]]`` for each tile put
        down (lowercase for a blank; a multi-character letter without brackets), and ``bingo``:
        whether the move puts down a whole rack (the ruleset's ``rack_size`` tiles, which earns
        the bingo bonus; ``None`` for a list made without ``rack_size``). A placement that takes
        stars back adds ``reclaimed``: ``[[row, col, letter]]``, the real letters put on the
        stars' squares (its ``word`` is read on the board after that exchange). A ``leave`` and an
        exchange's ``tiles`` are written as racks are, letters in alphabet order and blanks last
        (``str(move.leave)``: ``"EI??"``); an exchange's ``notation`` is :meth:`Move.notation`'s
        (``-??EI``, blanks first)."""
        kind, row, col, dirs, length, score, equity, leave = self._columns()
        buf = self._buf
        text = _letters(self._alphabet)
        kept_text: dict[int, str] = {}  # each leave as a rack is written, blanks last (str(Tiles)), by its mask
        square = tuple(w[1:-1] if len(w) > 1 else w for w in text)  # one square's letter, no brackets
        with_equity = self._with_equity
        rack_size = self._rack_size
        out: list[dict[str, Any]] = []
        for i in range(len(kind)):
            eq = equity[i] if with_equity else None
            off = i * _ITEMSIZE + _TILES_OFFSET
            tiles = buf[off : off + length[i]]
            kept = kept_text.get(leave[i])
            if kept is None:
                kept = kept_text[leave[i]] = str(self._leave(leave[i]))
            if kind[i] == RECLAIM_KIND and self._reclaimed is not None:
                m = self._move(i)
                rec = {
                    "type": PLACE,
                    "row": row[i],
                    "col": col[i],
                    "dir": "H" if dirs[i] == 0 else "V",
                    "word": "".join(text[t & ~THROUGH] for t in tiles),
                    "notation": m.notation(),
                    "score": score[i],
                    "equity": eq,
                    "leave": kept,
                    "placed": [[r, c, square[t]] for r, c, t in m.placed],
                }
                rec["bingo"] = len(m.placed) == rack_size if rack_size is not None else None
                rec["reclaimed"] = [[r, c, square[t]] for r, c, t in m.reclaimed]
                out.append(rec)
            elif kind[i] == 0:
                across = dirs[i] == 0
                word = []
                parts = []
                placed = []
                inside = False
                r0, c0 = row[i], col[i]
                r, c = r0, c0
                for t in tiles:
                    if t & THROUGH:
                        letter = text[t ^ THROUGH]
                        if not inside:
                            parts.append("(")
                            inside = True
                    else:
                        letter = text[t]
                        if inside:
                            parts.append(")")
                            inside = False
                        placed.append([r, c, square[t]])
                    word.append(letter)
                    parts.append(letter)
                    if across:
                        c += 1
                    else:
                        r += 1
                if inside:
                    parts.append(")")
                out.append({
                    "type": PLACE,
                    "row": r0,
                    "col": c0,
                    "dir": "H" if across else "V",
                    "word": "".join(word),
                    "notation": f"{coord_label(r0, c0, across)} {''.join(parts)}",
                    "score": score[i],
                    "equity": eq,
                    "leave": kept,
                    "placed": placed,
                    "bingo": len(placed) == rack_size if rack_size is not None else None,
                })
            elif kind[i] == 1:
                given = "".join(text[t] for t in tiles)  # (the notation's order, as Move.notation: blanks first)
                out.append({"type": EXCHANGE, "tiles": str(self._alphabet.tiles(tiles)), "notation": f"-{given}",
                            "score": 0, "equity": eq, "leave": kept})
            else:
                out.append({"type": PASS, "notation": "-", "score": 0, "equity": eq, "leave": kept})
        return out

    def _repr_html_(self) -> str:
        """A ranked table for notebooks (the first 100 moves; moves that tie share a rank), with
        the board showing the best move when the position is known."""
        from html import escape

        shown = self[:100]
        ranks = shown.ranks()
        cols = ["#", "move", "score"] + (["equity"] if self._with_equity else []) + ["leave"]
        head = "".join(f"<th>{c}</th>" for c in cols)
        rows = []
        for rank, m in zip(ranks, shown):
            cells = [str(rank), escape(m.notation()), str(m.score)]
            if self._with_equity:
                cells.append(f"{m.equity:.3f}")
            cells.append(escape(str(m.leave) if m.leave is not None else ""))
            rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        more = f"<p>… and {len(self) - 100} more</p>" if len(self) > 100 else ""
        table = (f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{more}"
                 f"<p>{len(self)} move{'s' if len(self) != 1 else ''}, rack {escape(str(self._rack) or '-')}</p>")
        best = self[0]._repr_svg_() if len(self) and self[0].is_place else None
        if not best:
            return table
        return (f'<div style="display:flex;gap:16px;align-items:flex-start"><div>{table}</div>'
                f"<div>{best}</div></div>")

    def _repr_svg_(self) -> str | None:
        """The board with the best move (when it is a placement and the position is known)."""
        return self[0]._repr_svg_() if len(self) and self[0].is_place and self._position is not None else None

    def __repr__(self) -> str:
        head = ", ".join(str(m) for m in self[:3])
        more = ", ..." if len(self) > 3 else ""
        return f"<MoveList of {len(self)}: {head}{more}>"
