"""What a self-play series and a match keep of their games: numpy columns of fixed dtypes, filled
batch by batch, so that a run of up to :data:`~racksmith.play.backends.MAX_GAMES` games costs tens of
bytes a game (a Python object a game cost hundreds, gigabytes at the largest runs).

:class:`GameTable` holds a self-play series (a row a game), :class:`PairTable` a match (a row a
pair); each gives back the per-game objects (:class:`~racksmith.play.selfplay.GameResult`,
:class:`~racksmith.play.match.PairResult`) on demand. :class:`IntSums` accumulates the exact
integer sums the reports' means and standard deviations come from: they equal
:func:`statistics.fmean` and :func:`statistics.pstdev` of the same numbers as Python lists, bit for
bit (both are correctly rounded functions of the exact sums).
"""
from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from statistics import StatisticsError
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _args
from ..errors import RacksmithError
from ..rules.ruleset import MAX_TILES

if TYPE_CHECKING:
    from .match import PairResult
    from .selfplay import GameResult

#: rows an aggregate reads at a time (its temporaries are this long, not a run long)
CHUNK = 1 << 16

_INT64_SAFE = 1 << 62

#: the columns a *wide* table holds in more bits than :attr:`GameTable.DTYPES` says: the tables of a
#: ruleset whose game totals could pass 32 bits (played through the Python Game, its totals Python
#: integers; no total of a legal ruleset comes near 63 bits: the move generator refuses a play of
#: 2**30 points, and a game places at most 10,000 tiles) or whose games could pass 32,767 turns
WIDE: Mapping[str, Any] = {"scores": np.int64, "turns": np.int32}


def _checked(name: str, values: Any, dtype: Any, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """``values`` as a new array of ``dtype``, or an error naming the column when a value does not fit."""
    a = np.asarray(values)
    if a.size == 0 and (shape is None or math.prod(shape) == 0):
        a = np.zeros(a.shape if shape is None else shape, dtype)
    if a.dtype.kind not in "iub":
        raise RacksmithError(f"{name}: whole numbers expected, got {a.dtype}")
    info = np.iinfo(dtype)
    if a.size and (int(a.min()) < info.min or int(a.max()) > info.max):
        raise RacksmithError(f"{name}: a value out of {info.min}..{info.max} ({np.dtype(dtype).name})")
    if shape is not None and a.shape != shape:
        raise RacksmithError(f"{name}: shape {a.shape}, expected {shape}")
    return np.array(a, dtype=dtype)


class IntSums:
    """The count, sum and sum of squares of whole numbers, exact (Python integers), added a numpy
    chunk at a time; :meth:`fmean` and :meth:`pstdev` are :func:`statistics.fmean` and
    :func:`statistics.pstdev` of all the numbers added."""

    __slots__ = ("n", "total", "squares")

    def __init__(self) -> None:
        self.n = 0
        self.total = 0
        self.squares = 0

    def add(self, values: Any) -> "IntSums":
        a = np.asarray(values)
        if a.dtype.kind not in "iub":
            raise TypeError(f"IntSums adds whole numbers, got {a.dtype}")
        a = a.reshape(-1)
        if not len(a):
            return self
        big = max(int(a.max()), -int(a.min()))
        m = len(a)
        if big * m < _INT64_SAFE and big * big * m < _INT64_SAFE:
            c = a.astype(np.int64, copy=False)
            self.total += int(c.sum(dtype=np.int64))
            self.squares += int(np.dot(c, c))
        else:  # values too large for int64 sums: Python integers
            xs = a.tolist()
            self.total += sum(xs)
            self.squares += sum(x * x for x in xs)
        self.n += m
        return self

    def fmean(self) -> float:
        """:func:`statistics.fmean`: ``math.fsum`` rounds the exact sum once (every number added is
        below 2**53, so each converts to a float exactly), then the float is divided by the count."""
        if self.n < 1:
            raise StatisticsError("fmean requires at least one data point")
        return float(self.total) / self.n

    def pstdev(self) -> float:
        """:func:`statistics.pstdev` (Python 3.11 and later): the correctly rounded square root of the
        exact population variance ``(n * squares - total**2) / n**2``."""
        if self.n < 1:
            raise StatisticsError("pstdev requires at least one data point")
        num = self.n * self.squares - self.total * self.total
        den = self.n * self.n
        g = math.gcd(num, den)
        return _float_sqrt_of_frac(num // g, den // g)


def _integer_sqrt_of_frac_rto(n: int, m: int) -> int:
    """The square root of n/m, rounded to an integer by round-to-odd (as :mod:`statistics`)."""
    a = math.isqrt(n // m)
    return a | (a * a * m != n)


_SQRT_BIT_WIDTH = 2 * sys.float_info.mant_dig + 3


def _float_sqrt_of_frac(n: int, m: int) -> float:
    """The square root of n/m as a float, correctly rounded (the algorithm of :mod:`statistics`,
    https://bugs.python.org/msg407078; a correctly rounded result is unique)."""
    q = (n.bit_length() - m.bit_length() - _SQRT_BIT_WIDTH) // 2
    if q >= 0:
        numerator = _integer_sqrt_of_frac_rto(n, m << 2 * q) << q
        denominator = 1
    else:
        numerator = _integer_sqrt_of_frac_rto(n << -2 * q, m)
        denominator = 1 << -q
    return numerator / denominator


def chunks(n: int, size: int = CHUNK) -> Iterator[slice]:
    """``slice`` s covering ``range(n)``, ``size`` rows each (the last fewer)."""
    for lo in range(0, n, size):
        yield slice(lo, min(n, lo + size))


class GameTable:
    """The games of a self-play series, a row a game, a column a field of
    :class:`~racksmith.play.selfplay.GameResult` (scores and bingos by player, not by seat):
    ``index`` (int64, ``(n,)``), ``first`` (int16, ``(n,)``), ``scores`` (int32, ``(n, players)``),
    ``bingos`` (int16, ``(n, players)``), ``turns`` (int16, ``(n,)``), ``generator_calls`` (int32,
    ``(n,)``), ``moves_generated`` (int64, ``(n,)``): 8 + 2 + 6 * players + 2 + 4 + 8 bytes a game
    (:attr:`DTYPES`; a value that does not fit its column is an error, never wrapped) — and
    ``violations``, ``{row: (message, ...)}`` for the rows of the games that have any. A *wide*
    table (``wide=True``: the games of a ruleset whose totals could pass 32 bits or whose games
    could pass 32,767 turns, :func:`racksmith.play.selfplay.wide_tables`) holds ``scores`` as int64
    and ``turns`` as int32 (:data:`WIDE`).

    The games whose GCG record could not be written (a series with ``gcg_dir``: a full disk, a
    folder removed mid-run) are ``unwritten``, a bool column made only when there is one (None
    otherwise, so a series that loses no record pays nothing for it), and ``unwritten_error``,
    ``(row, message)`` of the first of them (the lowest row). The constructors take them as
    ``unwritten={row: message}``.

    A run's table (:meth:`empty`) has game ``i`` in row ``i``, whatever order its batches were
    :meth:`put` in. ``table[i]`` is row ``i`` as a :class:`GameResult`, iterating gives them all,
    :meth:`results` makes the list."""

    __slots__ = ("index", "first", "scores", "bingos", "turns", "generator_calls", "moves_generated", "violations",
                 "unwritten", "unwritten_error")

    DTYPES: Mapping[str, Any] = {
        "index": np.int64, "first": np.int16, "scores": np.int32, "bingos": np.int16, "turns": np.int16,
        "generator_calls": np.int32, "moves_generated": np.int64,
    }

    def __init__(self, index: Any, first: Any, scores: Any, bingos: Any, turns: Any, generator_calls: Any,
                 moves_generated: Any, violations: Mapping[int, Sequence[str]] | None = None, *,
                 players: int | None = None, unwritten: Mapping[int, str] | None = None, wide: bool = False):
        d = self.dtypes(wide)
        self.index = _checked("index", index, d["index"])
        n = len(self.index)
        k = players if players is not None else (np.shape(scores)[1] if np.ndim(scores) == 2 else 0)
        self.first = _checked("first", first, d["first"], (n,))
        self.scores = _checked("scores", scores, d["scores"], (n, k))
        self.bingos = _checked("bingos", bingos, d["bingos"], (n, k))
        self.turns = _checked("turns", turns, d["turns"], (n,))
        self.generator_calls = _checked("generator_calls", generator_calls, d["generator_calls"], (n,))
        self.moves_generated = _checked("moves_generated", moves_generated, d["moves_generated"], (n,))
        self.violations: dict[int, tuple[str, ...]] = {}
        for row, found in (violations or {}).items():
            if not 0 <= row < n:
                raise RacksmithError(f"violations of row {row}: the table has {n} rows")
            if found:
                self.violations[int(row)] = tuple(found)
        self.unwritten: np.ndarray | None = None
        self.unwritten_error: tuple[int, str] | None = None
        if unwritten:
            for row in unwritten:
                if not 0 <= row < n:
                    raise RacksmithError(f"unwritten record of row {row}: the table has {n} rows")
            self.unwritten = np.zeros(n, np.bool_)
            self.unwritten[list(unwritten)] = True
            first = min(unwritten)
            self.unwritten_error = (int(first), str(unwritten[first]))

    @classmethod
    def dtypes(cls, wide: bool = False) -> dict[str, Any]:
        """The columns' dtypes: :attr:`DTYPES`, with those of :data:`WIDE` for a wide table."""
        return {**cls.DTYPES, **WIDE} if wide else dict(cls.DTYPES)

    @property
    def wide(self) -> bool:
        """Whether the table holds scores in 64 bits and turns in 32 (:data:`WIDE`)."""
        return self.scores.dtype == np.dtype(WIDE["scores"])

    @classmethod
    def empty(cls, games: int, players: int, *, wide: bool = False) -> "GameTable":
        """The table of a run of ``games`` games, ``index`` 0..games-1, every other column 0, to be
        filled by :meth:`put` (``wide``: see the class)."""
        from .backends import MAX_GAMES

        games = _args.whole(games, "games", lo=0, hi=MAX_GAMES)
        players = _args.whole(players, "players", lo=1, hi=MAX_TILES)  # (each holds a tile at least)
        d = cls.dtypes(wide)
        t = cls.__new__(cls)
        try:
            t.index = np.arange(games, dtype=d["index"])
            t.first = np.zeros(games, d["first"])
            t.scores = np.zeros((games, players), d["scores"])
            t.bingos = np.zeros((games, players), d["bingos"])
            t.turns = np.zeros(games, d["turns"])
            t.generator_calls = np.zeros(games, d["generator_calls"])
            t.moves_generated = np.zeros(games, d["moves_generated"])
        except MemoryError:
            size = sum(np.dtype(t).itemsize * (players if name in ("scores", "bingos") else 1) for name, t in d.items())
            raise RacksmithError(f"the table of {games:,} games of {players} players ({size} bytes a "
                                 "game) does not fit in memory: play fewer games a run") from None
        t.violations = {}
        t.unwritten = None
        t.unwritten_error = None
        return t

    @classmethod
    def from_results(cls, results: Iterable[GameResult], players: int | None = None, *,
                     unwritten: Mapping[int, str] | None = None, wide: bool = False) -> "GameTable":
        """The rows of :class:`GameResult` s, in their order (``unwritten``: ``{row: message}`` of
        the games whose records could not be written; ``wide``: see the class)."""
        rs = list(results)
        k = players if players is not None else (len(rs[0].scores) if rs else 0)
        return cls(
            [r.index for r in rs], [r.first for r in rs], [tuple(r.scores) for r in rs], [tuple(r.bingos) for r in rs],
            [r.turns for r in rs], [r.generator_calls for r in rs], [r.moves_generated for r in rs],
            {row: r.violations for row, r in enumerate(rs) if r.violations}, players=k, unwritten=unwritten,
            wide=wide,
        )

    @classmethod
    def concat(cls, tables: Sequence["GameTable"], players: int) -> "GameTable":
        """The rows of ``tables`` one after the other (wide when one of them is)."""
        if not tables:
            return cls([], [], [], [], [], [], [], players=players)
        out = cls.__new__(cls)
        for name in cls.DTYPES:
            setattr(out, name, np.concatenate([getattr(t, name) for t in tables]))
        out.violations = {}
        out.unwritten = None
        out.unwritten_error = None
        at = 0
        for t in tables:
            for row, found in t.violations.items():
                out.violations[at + row] = found
            at += len(t)
        if any(t.unwritten is not None for t in tables):
            out.unwritten = np.concatenate([t._unwritten_mask() for t in tables])
            at = 0
            for t in tables:
                if t.unwritten_error is not None and out.unwritten_error is None:
                    out.unwritten_error = (at + t.unwritten_error[0], t.unwritten_error[1])
                at += len(t)
        return out

    @property
    def players(self) -> int:
        return self.scores.shape[1]

    @property
    def nbytes(self) -> int:
        """Bytes of the columns (the violations' strings not counted; ``unwritten`` when there is one)."""
        return sum(getattr(self, name).nbytes for name in self.DTYPES) + (
            self.unwritten.nbytes if self.unwritten is not None else 0)

    def _unwritten_mask(self) -> np.ndarray:
        return self.unwritten if self.unwritten is not None else np.zeros(len(self.index), np.bool_)

    @property
    def records_unwritten(self) -> int:
        """How many games' records could not be written."""
        return 0 if self.unwritten is None else int(np.count_nonzero(self.unwritten))

    def unwritten_rows(self) -> np.ndarray:
        """The rows of the games whose records could not be written, in order (int64)."""
        return np.zeros(0, np.int64) if self.unwritten is None else np.flatnonzero(self.unwritten).astype(np.int64)

    def put(self, batch: "GameTable") -> None:
        """Write ``batch``'s rows into the rows of their game indices (a run's table, :meth:`empty`)."""
        rows = batch.index
        n = len(self.index)
        if len(rows) and (int(rows.min()) < 0 or int(rows.max()) >= n):
            raise RacksmithError(f"games {int(rows.min())}..{int(rows.max())} do not fit a table of {n} games")
        if batch.players != self.players:
            raise RacksmithError(f"a batch of {batch.players} players for a table of {self.players}")
        for name in self.DTYPES:
            if name != "index":
                column, values = getattr(self, name), getattr(batch, name)
                if values.dtype != column.dtype:  # a wide batch in a narrow table: its values must fit
                    values = _checked(name, values, column.dtype)
                column[rows] = values
        for row in rows.tolist():
            self.violations.pop(row, None)
        for row, found in batch.violations.items():
            self.violations[int(rows[row])] = found
        if batch.unwritten is not None or self.unwritten is not None:
            if self.unwritten is None:  # the first batch that lost a record
                self.unwritten = np.zeros(n, np.bool_)
            self.unwritten[rows] = batch._unwritten_mask()
            first = self.unwritten_error
            if first is not None and not self.unwritten[first[0]]:  # its game put again, written this time
                first = None
            if batch.unwritten_error is not None:
                row, message = batch.unwritten_error
                game = int(rows[row])
                if first is None or game <= first[0]:  # the same game: the batch put now says why
                    first = (game, message)
            if first is None and self.unwritten.any():  # (only when rows are put again) a reason not kept
                first = (int(np.flatnonzero(self.unwritten)[0]), "the reason was not kept (its row was put again)")
            self.unwritten_error = first

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, row: int) -> GameResult:
        from .selfplay import GameResult

        r = _row(row, len(self), "GameTable", "games")
        return GameResult(int(self.index[r]), int(self.first[r]), tuple(self.scores[r].tolist()),
                          tuple(self.bingos[r].tolist()), int(self.turns[r]), int(self.generator_calls[r]),
                          int(self.moves_generated[r]), self.violations.get(r, ()))

    def __iter__(self) -> Iterator[GameResult]:
        from .selfplay import GameResult

        viol = self.violations
        for part in chunks(len(self)):
            cols = zip(self.index[part].tolist(), self.first[part].tolist(), self.scores[part].tolist(),
                       self.bingos[part].tolist(), self.turns[part].tolist(), self.generator_calls[part].tolist(),
                       self.moves_generated[part].tolist())
            for row, (i, f, s, b, t, c, m) in enumerate(cols, part.start):
                yield GameResult(i, f, tuple(s), tuple(b), t, c, m, viol.get(row, ()))

    def results(self) -> list[GameResult]:
        """Every row as a :class:`GameResult` (a new list: a Python object a game)."""
        return list(self)

    def all_violations(self) -> list[str]:
        """Every violation, by row and in the order found."""
        return [v for row in sorted(self.violations) for v in self.violations[row]]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameTable):
            return NotImplemented
        return (all(np.array_equal(getattr(self, n), getattr(other, n)) for n in self.DTYPES)
                and self.scores.shape == other.scores.shape and self.violations == other.violations
                and np.array_equal(self._unwritten_mask(), other._unwritten_mask())
                and self.unwritten_error == other.unwritten_error)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        lost = self.records_unwritten
        return (f"GameTable({len(self)} games, {self.players} players, {len(self.violations)} with violations, "
                f"{f'{lost} records unwritten, ' if lost else ''}{self.nbytes} bytes)")

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.unwritten = None  # a table pickled before the records were tracked
        self.unwritten_error = None
        for name, value in state.items():
            setattr(self, name, value)


class PairTable:
    """The pairs of a match, a row a pair: ``pair`` (int64, ``(n,)``) and ``scores`` (int32,
    ``(n, 2, 2)``: ``scores[r, 0]`` is the first game's (player 1, player 2), player 1 moving
    first; ``scores[r, 1]`` the second game's; int64 in a *wide* table, ``wide=True``, as
    :class:`GameTable`'s). A run's table (:meth:`empty`) has pair ``p`` in row ``p``. ``table[i]``
    is row ``i`` as a :class:`~racksmith.play.match.PairResult`, iterating
    gives them all, :meth:`results` makes the list."""

    __slots__ = ("pair", "scores")

    DTYPES: Mapping[str, Any] = {"pair": np.int64, "scores": np.int32}

    def __init__(self, pair: Any, scores: Any, *, wide: bool = False):
        self.pair = _checked("pair", pair, self.DTYPES["pair"])
        self.scores = _checked("scores", scores, WIDE["scores"] if wide else self.DTYPES["scores"], (len(self.pair), 2, 2))

    @classmethod
    def empty(cls, pairs: int, *, wide: bool = False) -> "PairTable":
        """The table of a match of ``pairs`` pairs, ``pair`` 0..pairs-1, the scores 0, to be filled
        by :meth:`put` (``wide``: 64-bit scores)."""
        from .backends import MAX_GAMES

        pairs = _args.whole(pairs, "pairs", lo=0, hi=MAX_GAMES // 2)
        t = cls.__new__(cls)
        t.pair = np.arange(pairs, dtype=cls.DTYPES["pair"])
        t.scores = np.zeros((pairs, 2, 2), WIDE["scores"] if wide else cls.DTYPES["scores"])
        return t

    @property
    def wide(self) -> bool:
        """Whether the table holds scores in 64 bits."""
        return self.scores.dtype == np.dtype(WIDE["scores"])

    @classmethod
    def from_pairs(cls, pairs: Iterable[PairResult], *, wide: bool = False) -> "PairTable":
        """The rows of :class:`PairResult` s, in their order."""
        ps = list(pairs)
        return cls([p.pair for p in ps], [(tuple(p.first), tuple(p.second)) for p in ps], wide=wide)

    @property
    def nbytes(self) -> int:
        return self.pair.nbytes + self.scores.nbytes

    def put(self, pairs: "PairTable | Iterable[PairResult]") -> None:
        """Write :class:`PairResult` s into the rows of their pair numbers (a run's table, :meth:`empty`)."""
        batch = pairs if isinstance(pairs, PairTable) else PairTable.from_pairs(pairs, wide=self.wide)
        rows = batch.pair
        n = len(self.pair)
        if len(rows) and (int(rows.min()) < 0 or int(rows.max()) >= n):
            raise RacksmithError(f"pairs {int(rows.min())}..{int(rows.max())} do not fit a table of {n} pairs")
        values = batch.scores
        if values.dtype != self.scores.dtype:  # a wide batch in a narrow table: its values must fit
            values = _checked("scores", values, self.scores.dtype)
        self.scores[rows] = values

    def __len__(self) -> int:
        return len(self.pair)

    def __getitem__(self, row: int) -> PairResult:
        from .match import PairResult

        r = _row(row, len(self), "PairTable", "pairs")
        (a, b), (c, d) = self.scores[r].tolist()
        return PairResult(int(self.pair[r]), (a, b), (c, d))

    def __iter__(self) -> Iterator[PairResult]:
        from .match import PairResult

        for part in chunks(len(self)):
            for p, ((a, b), (c, d)) in zip(self.pair[part].tolist(), self.scores[part].tolist()):
                yield PairResult(p, (a, b), (c, d))

    def results(self) -> list[PairResult]:
        """Every row as a :class:`PairResult` (a new list: a Python object a pair)."""
        return list(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PairTable):
            return NotImplemented
        return np.array_equal(self.pair, other.pair) and np.array_equal(self.scores, other.scores)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PairTable({len(self)} pairs, {self.nbytes} bytes)"

    def __getstate__(self) -> dict[str, Any]:
        return {"pair": self.pair, "scores": self.scores}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.pair = state["pair"]
        self.scores = state["scores"]


def _row(row, n: int, table: str, unit: str) -> int:
    """``row`` of a table of ``n`` rows as a non-negative index (negative rows count from the end)."""
    if isinstance(row, (bool, np.bool_)) or not isinstance(row, (int, np.integer)):
        raise TypeError(f"a {table} is indexed by row, got {type(row).__name__}")
    r = int(row) + n if row < 0 else int(row)
    if not 0 <= r < n:
        raise IndexError(f"row {row} of a table of {n} {unit}")
    return r
