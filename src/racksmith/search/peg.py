"""The pre-endgame: a few tiles in the bag, and the play with the best chance of winning.

The player to move sees his rack and the board; the unseen tiles (rack size + the bag's n) are
the opponent's rack and the bag. With one tile in the bag, each unseen tile is equally likely to
be it; once it is fixed both racks are known and the rest of the game is exact: a play that
places tiles draws it (the bag is then empty: an endgame, the opponent to move); a pass leaves it
in the bag for the opponent's first placement (the search draws it for whoever places first).
With n tiles (1 to one less than the exchange limit: no exchange is legal), each *order* the bag's
tiles can come out in is equally likely, and is searched with both sides knowing it, as Macondo's
pre-endgame solver does: exact for the plays that empty the bag; for the others a convention,
both sides playing on as if they knew the order (pessimistic for the opponent's replies, which he
chooses without knowing it, optimistic for our own later turns). Each (play, bag order) is an endgame of the search kernel
(:mod:`racksmith.search._endgame`, its known-bag mode: whoever places draws the next tiles), and a
play's *key* is its chance of winning over the orders (a tie one half), then its mean final spread.
Orders that leave the same racks and bag after a play are one draw of it, their weights added.

:func:`solve_peg` finds the best play without solving every endgame exactly
(docs/ALGORITHM.md section 13): each (play, bag tile) holds an interval of its final spread,
narrowed by window searches of the kernel (:meth:`Search.bound`, straight at full depth: "is the
final spread at least t?" costs far less than the spread itself). Greedy playouts to the end of
the game (each side playing its move of best static equity, the end-of-game rule counting going
out) estimate each draw and order the plays.
The chance of winning comes first and needs only each draw's outcome (win, tie or loss: windows at
0): the first play's outcomes are settled, then the other plays', one bag tile at a time across
all of them (the searches of one tile start from the same racks and share the transposition
table), each play only while its chance can still differ from the best found (one proven to win
more gets every outcome settled and becomes the best). Only among the plays that share the best
chance does the mean spread decide: the first of them is the *incumbent*; each other is dropped
when its total of upper bounds is at most the incumbent's total of lower bounds (the outcome
windows' fail-soft bounds drop most), else the incumbent is solved exactly and the challenger's
draws get null windows at thresholds that sum to the incumbent's total; one proven better becomes
the incumbent. The first play of the answer is then the best (among equals, the first in the
candidates' order: by score, then as the generator ranks them, the pass last),
with its exact chance and its mean spread exact or bounded; ``solve_all`` solves every play
exactly instead. With a time limit the proof gets nine tenths of it; if it has not finished by
then, the 16 leading plays it has not ruled out get a look two plies deep in the last tenth, the
better half of them three plies deep, and so on as time allows (MAGPIE's cascade, on the plays the
proof left open), and the answer is the one the last round ranks first (:func:`_anytime`).

    >>> Position.from_cgp(cgp).solve_peg().plays[0]                       # doctest: +SKIP
"""
from __future__ import annotations

import functools
import itertools
import math
import queue
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from .. import _args
from .._interrupt import cancelling, check_event, run_interruptibly, start_daemon
from ..core import turns
from ..core.move import Move
from ..errors import PositionError, RacksmithError
from ..lexicon import Lexicon
from .endgame import (
    DEFAULT_TT_MB, MAX_DEPTH, MAX_THREADS, SMALLER_TT_MB, _effective_zero, check_spread, check_stars, check_value_range,
    played_pool, pruned_rules,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..core.position import Position
    from ._endgame import Search

__all__ = ["PegPlay", "PegResult", "solve_peg"]

_WIDE = 1 << 25  #: a window edge beyond every final spread
MAX_BAG = 32  #: tiles of a known bag the search kernel holds (its MAX_BAG)
#: how each draw's final spread is estimated (the plays' order, the spread comparison's thresholds):
#: "playout", both sides playing greedily to the end (Search.playout), or "ply", the opponent's best
#: reply by what it scores now (the order before; kept for benchmarks/bench_peg.py --estimate)
_ESTIMATE = "playout"
#: the answer at a time limit (``seconds``): the proof gets all but the last ``_ANSWER_SHARE`` of the
#: time; when it has not finished by then, the ``_ANSWER_TOP`` leading plays it has not ruled out get a
#: look ``_ANSWER_PLIES`` deep in what is left, the better half of them one ply deeper, and so on to
#: ``_ANSWER_MAX_PLIES``; the answer is the play the last round ranks first (see _anytime)
_ANSWER_TOP = 16
_ANSWER_PLIES = 2
_ANSWER_MAX_PLIES = 6
_ANSWER_SHARE = 0.1
#: the estimates at a time limit (_estimates): draws of each play in the first round, and the
#: plays the rounds of successive halving keep at least
_STAGE_FIRST = 1
_STAGE_KEEP = 2
#: the time summing the plays up takes (_public, the ranking), as a share of the time it took to set
#: them up: both pass over every draw; measured 0.23-0.46 on the four-tile position of bench_peg_setup.py
_SUM_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class PegPlay:
    """One play of the pre-endgame, over ``draws`` equally likely draws: with one tile in the bag,
    each unseen tile as the bag's; with more, each order the bag's tiles can come out in (each
    tile a tile of its own: 9 x 8 = 72 orders of 2 tiles from 9 unseen).

    When ``exact``: ``wins`` (draws won, a tie one half), ``win_probability`` = wins / draws,
    ``mean_spread`` the mover's final spread (his final score minus the opponent's) averaged over
    the draws, ``outcomes`` the final spread for each distinct draw, named by its tiles ('?' a
    blank): one tile, its letter; more, the tiles the play draws (sorted) and after a '|' those
    left in the bag in the order they will be drawn ('AE' for a play that draws both, 'A|E', '|AE'
    after a pass).

    A play proven no better than the best is not solved further (unless ``solve_all``): then
    ``wins``/``win_probability`` count only the draws proven won or tied, ``wins_max`` and
    ``win_probability_max`` the most it could win, ``mean_spread_max`` the most its mean spread
    could be (None: not bounded), ``mean_spread`` an estimate within its bounds, ``outcomes`` only
    the bag tiles whose final spread is known and ``bounds`` (tile, lowest, highest; None: not
    bounded) the others, ``mean_spread_min`` the least its mean spread could be. The best play is
    left so when bounds were enough to rank it first: its chance is then exact anyway
    (``wins_exact``: ``wins == wins_max``) and only its spread is bounded.

    Estimates (each draw's greedy playout, the proof's guide) stand in where nothing is proven:
    ``estimated_draws`` counts the draws with an estimate or an exact value (all of them once the
    proof has run; at a short time limit, those the rounds of estimates reached), and
    ``win_probability_estimate`` is the chance over those draws, their estimates within the bounds;
    ``mean_spread`` of a play not exact is then their mean spread (kept within its bounds)."""

    move: Move
    wins: float
    draws: int
    win_probability: float
    mean_spread: float
    outcomes: tuple[tuple[str, int], ...]
    exact: bool = True
    wins_max: float = 0.0
    win_probability_max: float = 0.0
    mean_spread_max: float | None = None
    bounds: tuple[tuple[str, int | None, int | None], ...] = ()
    mean_spread_min: float | None = None
    estimated_draws: int = 0
    win_probability_estimate: float | None = None

    def __repr__(self) -> str:
        return (f"PegPlay({self.move.notation()!r}, score={self.move.score}, exact={self.exact}, "
                f"win_probability={self.win_probability:.4f}, mean_spread={self.mean_spread:.2f}, "
                f"draws={self.draws})")

    @property
    def wins_exact(self) -> bool:
        """Whether ``wins``/``win_probability`` are exact (always for an exact play; for the best
        play, whose spread may be only bounded)."""
        return self.exact or self.wins == self.wins_max

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "move": self.move.notation(),
            "score": self.move.score,
            "exact": self.exact,
            "win_probability": round(self.win_probability, 6),
            "wins": self.wins,
            "draws": self.draws,
            "mean_spread": round(self.mean_spread, 3),
            "outcomes": {letter: spread for letter, spread in self.outcomes},
        }
        if not self.exact:
            out["win_probability_max"] = round(self.win_probability_max, 6)
            out["wins_max"] = self.wins_max
            out["mean_spread_max"] = None if self.mean_spread_max is None else round(self.mean_spread_max, 3)
            out["mean_spread_min"] = None if self.mean_spread_min is None else round(self.mean_spread_min, 3)
            out["wins_exact"] = self.wins_exact
            out["estimated_draws"] = self.estimated_draws
            out["win_probability_estimate"] = (None if self.win_probability_estimate is None
                                               else round(self.win_probability_estimate, 6))
            out["bounds"] = {letter: [lo, hi] for letter, lo, hi in self.bounds}
        return out


@dataclass(frozen=True, slots=True)
class PegResult:
    """The plays, best first: ``plays[0]`` is the best play (the highest chance of winning, then
    mean spread; among equals, the first by score) with its exact chance of winning, and its exact mean spread when ``exact`` (else
    bounded); every other play is proven no better
    (exact or with bounds). ``exact`` is False when ``seconds`` stopped the search
    first: the first play is then the pick of depth-limited looks at the leading plays the proof
    had not ruled out, the others ordered by what was found, and it may be wrong. ``nodes``: positions
    searched; ``seconds``: wall time."""

    plays: tuple[PegPlay, ...]
    nodes: int
    seconds: float
    exact: bool = True

    @property
    def best(self) -> PegPlay | None:
        """The best play (``plays[0]``), None when there is no play."""
        return self.plays[0] if self.plays else None

    @property
    def best_move(self) -> "Move | None":
        """The best play's move (``best.move``), as :attr:`SimResult.best_move` gives the
        simulation's and ``EndgameResult.best`` the endgame's; None when there is no play."""
        return self.plays[0].move if self.plays else None

    def __repr__(self) -> str:
        # a play's outcomes can hold a million draws: the repr names the answer, not every draw
        best = self.best
        return (f"PegResult(best={best.move.notation() if best else None!r}, plays={len(self.plays)}, "
                f"exact={self.exact}, nodes={self.nodes}, seconds={self.seconds:.3f})")

    def _repr_html_(self) -> str:
        """The plays, best first, as ``racksmith peg`` shows them: score, chance of winning (a
        range while not proven), mean final spread (or its bounds) and the final spread by bag
        tile (the first few draws)."""
        from ..formats import html

        rows = ((i, p.move.notation(), p.move.score, _chance_text(p), _spread_text(p), _draws_text(p))
                for i, p in enumerate(self.plays[:html.MAX_ROWS], 1))
        t = html.table(("#", "move", "score", "win %", "mean spread", "final spread by bag tile"), rows,
                       right=(0, 2, 3, 4), total=len(self.plays))
        stopped = None if self.exact else html.text(
            "stopped by the time limit: not exact (the first play may not be the best)")
        return html.block(t, stopped, html.text(f"{self.nodes:,} nodes in {self.seconds:.2f} s"))

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith peg --json``."""
        return {"plays": [p.to_dict() for p in self.plays], "exact": self.exact,
                "best": self.plays[0].move.notation() if self.plays else None,
                "nodes": self.nodes, "seconds": round(self.seconds, 3)}


#: the draws a row of a table names (with four tiles in the bag a play has hundreds; the JSON has them all)
_SHOWN_DRAWS = 12


def _signed(x: float) -> str:
    return f"{round(x, 2) + 0.0:+.2f}"


def _chance_text(p: PegPlay) -> str:
    """A play's chance of winning in percent: exact, or the range it is known to lie in (with the
    estimate of the draws reached, at a short time limit); as ``racksmith peg`` shows it."""
    if p.exact or p.win_probability == p.win_probability_max:
        return f"{100 * p.win_probability:.2f}"
    shown = f"{100 * p.win_probability:.2f}-{100 * p.win_probability_max:.2f}"
    if p.win_probability_estimate is not None and p.estimated_draws < p.draws:
        shown += f" (~{100 * p.win_probability_estimate:.1f} over {p.estimated_draws:,} of {p.draws:,})"
    return shown


def _spread_text(p: PegPlay) -> str:
    """A play's mean final spread: exact, its bounds, or an estimate."""
    if p.exact:
        return _signed(p.mean_spread)
    lo, hi = p.mean_spread_min, p.mean_spread_max
    if lo is not None and hi is not None:
        return f"{_signed(lo)}..{_signed(hi)}"
    if lo is not None:
        return ">= " + _signed(lo)
    if hi is not None:
        return "<= " + _signed(hi)
    return "~" + _signed(p.mean_spread) if p.estimated_draws else "not solved"


def _range_text(lo: "int | None", hi: "int | None") -> str:
    if lo is None:
        return f"<={hi:+d}" if hi is not None else "?"
    return f">={lo:+d}" if hi is None else f"{lo:+d}..{hi:+d}"


def _draws_text(p: PegPlay) -> str:
    """The final spread of a play's draws, those known first, at most :data:`_SHOWN_DRAWS` of them."""
    tiles = [f"{k}:{v:+d}" for k, v in p.outcomes[:_SHOWN_DRAWS]]
    bounded = (f"{k}:{_range_text(lo, hi)}" for k, lo, hi in p.bounds if lo is not None or hi is not None)
    tiles += itertools.islice(bounded, _SHOWN_DRAWS - len(tiles))
    named = len(p.outcomes) + sum(1 for _, lo, hi in p.bounds if lo is not None or hi is not None)
    open_ = len(p.outcomes) + len(p.bounds) - named
    out = " ".join(tiles[:_SHOWN_DRAWS])
    if named > _SHOWN_DRAWS:
        out += f" (+{named - _SHOWN_DRAWS:,} more)"
    if open_:
        out += f"{' ' if out else ''}({open_:,} not bounded)"
    return out


@dataclass(slots=True)
class _Draw:
    """One (play, bag tile): the endgame after the play, and what is known of the mover's final
    spread F (``lo`` <= F <= ``hi``, None: not bounded). ``root`` is the kernel's root (board,
    the opponent's rack, the mover's, the opponent's score minus the mover's, scoreless turns,
    their limit, the bag) or None when the play ends the game; ``spread`` is the mover's spread
    after his play (F = spread - the root's value)."""

    letter: str
    weight: int
    root: tuple | None
    spread: int
    estimate: int | None = None  # None: not estimated yet (the time ran out first)
    lo: int | None = None
    hi: int | None = None

    @property
    def exact(self) -> bool:
        return self.lo is not None and self.lo == self.hi

    def result_range(self) -> tuple[int, int]:
        """Half-points this draw can be worth (2 won, 1 tied, 0 lost): (least, most)."""
        lo, hi = self.lo, self.hi
        least = 0 if lo is None or lo < 0 else 1 if lo == 0 else 2
        most = 2 if hi is None or hi > 0 else 1 if hi == 0 else 0
        return least, most

    def point(self) -> int:
        """The estimate, within what is known (before one, the spread right after the play)."""
        v = self.spread if self.estimate is None else self.estimate
        if self.lo is not None and v < self.lo:
            v = self.lo
        if self.hi is not None and v > self.hi:
            v = self.hi
        return v


@dataclass(slots=True)
class _Play:
    """A play and its draws: ``draws`` the distinct endgames after it (bag orders that leave the
    same racks and bag are one draw, their weights added), ``draw_of[j]`` the draw of the ``j``-th
    bag order of the pre-endgame."""

    move: Move
    order: int
    draws: list[_Draw] = field(default_factory=list)
    draw_of: list[_Draw] = field(default_factory=list)
    built: bool = True  #: False: the time ran out before its draws were set up (it has none)
    after: int = 0  #: the mover's spread right after the play (what is shown of a play not set up)
    stage: int = 0  #: rounds of the staged estimates (_estimates) the play was kept for to the end
    tiles: int = 0  #: tiles it plays (its draws are the bag orders grouped for that many: _groups)

    def sample(self) -> tuple[int, int, int]:
        """What its draws with an estimate (or exact) say: (their weight, half-points won, total
        final spread), each weighted by draw."""
        weight = wins = total = 0
        for d in self.draws:
            if d.estimate is None and not d.exact:
                continue
            v = d.point()
            weight += d.weight
            wins += d.weight * (2 if v > 0 else 1 if v == 0 else 0)
            total += d.weight * v
        return weight, wins, total

    def sample_key(self) -> tuple[int, float, float, int]:
        """How a play whose draws are not all estimated ranks: the rounds of estimates it was kept
        for, then its estimated draws' chance and mean spread (a play with none last), then the
        candidates' order."""
        weight, wins, total = self.sample()
        if not weight:
            return (self.stage, -1.0, 0.0, -self.order)
        return (self.stage, wins / weight, total / weight, -self.order)

    def wins_range(self) -> tuple[int, int]:
        least = most = 0
        for d in self.draws:
            a, b = d.result_range()
            least += d.weight * a
            most += d.weight * b
        return least, most

    def exact(self) -> bool:
        return all(d.exact for d in self.draws)

    def estimated(self) -> bool:
        """Whether every draw has its estimate (or is exact): only such plays compare by ``key``."""
        return self.built and all(d.estimate is not None or d.exact for d in self.draws)

    def key(self) -> tuple[int, int]:
        """(half-points won, total final spread), weighted by draw, from the estimates within what is known
        (exact when every draw is)."""
        wins = total = 0
        for d in self.draws:
            v = d.point()
            wins += d.weight * (2 if v > 0 else 1 if v == 0 else 0)
            total += d.weight * v
        return wins, total


    def shown_key(self) -> tuple[int, int]:
        """What the play is ranked by after the best: its key when exact, else the most it could be
        (the estimates where a draw has no upper bound)."""
        if self.exact():
            return self.key()
        wins = self.wins_range()[1]
        total = 0
        for d in self.draws:
            total += d.weight * (d.hi if d.hi is not None else d.point())
        return wins, total


def _total(play: _Play, side: str) -> int | None:
    """The weighted total of a play's lower (``side`` "lo") or upper bounds; None if one is missing."""
    total = 0
    for d in play.draws:
        v = getattr(d, side)
        if v is None:
            return None
        total += d.weight * v
    return total


def _width(d: _Draw) -> int:
    """How much a draw's final spread is still open, weighted (unbounded: widest)."""
    return _WIDE if d.hi is None or d.lo is None else d.weight * (d.hi - d.lo)


def _share(draws: list[_Draw], total: int, up: bool) -> dict[int, int]:
    """Thresholds t for ``draws`` (by id) with sum(weight * t) <= ``total`` (``up``: at most; else
    >= ``total``, at least), each its estimate shifted by an equal share of the room: draws whose
    bounds already meet their threshold give what they do not need to the others."""
    t_of: dict[int, int] = {}
    rest = list(draws)
    budget = total
    while rest:
        weight = sum(d.weight for d in rest)
        base = sum(d.weight * d.point() for d in rest)
        share = (budget - base) // weight if up else -((base - budget) // weight)
        if up:
            settled = [d for d in rest if d.hi is not None and d.hi <= d.point() + share]
        else:
            settled = [d for d in rest if d.lo is not None and d.lo >= d.point() + share]
        if not settled:
            for d in rest:
                t_of[id(d)] = d.point() + share
            break
        for d in settled:
            v = d.hi if up else d.lo
            t_of[id(d)] = v
            budget -= d.weight * v
            rest.remove(d)
    return t_of


class _Solver:
    """The window searches of one pre-endgame. ``stopped`` turns True when the time limit passed
    (every method then returns at once, leaving what it knew). With several ``searches`` (one a
    thread, each with its own table), :meth:`batch` runs independent draws' searches at once; every
    other method uses the first."""

    def __init__(self, searches: "list[Search]", deadline: float, max_depth: int):
        self.searches = list(searches)
        self.search = self.searches[0]
        self.deadline = deadline
        self.max_depth = max_depth
        self.nodes = 0
        self.stopped = False
        self.cancelled = False
        self._lock = threading.Lock()

    def close(self) -> None:
        """Nothing to release: :meth:`batch`'s threads end with each batch."""

    def cancel(self) -> None:
        """Stop at once, as if the time were up (from another thread: searches running stop too)."""
        self.deadline = 1e-9  # a deadline long past: every check of it now stops
        self.cancelled = self.stopped = True
        for search in self.searches:
            search.stop()

    def _late(self) -> bool:
        if self.deadline and time.monotonic() > self.deadline:
            self.stopped = True
        return self.stopped

    def _count(self, nodes: int) -> None:
        with self._lock:
            self.nodes += nodes

    def batch(self, method: Callable[..., None], draws: "list[_Draw]") -> None:
        """``method(d)`` for each draw (``estimate``, ``outcome``, ``solve``: each touches only its
        draw), in order with one search, else spread over the threads' searches.

        The threads are daemon threads, one a search, started for the batch (as the endgame's
        helpers are), not a ``ThreadPoolExecutor``'s: at interpreter exit Python waits for every
        draw queued on an executor, so a search left running in a daemon thread (``solve_peg`` or
        ``best_play`` with ``threads`` > 1) kept the process alive, for minutes, after its main
        thread had ended. The first exception of a draw stops the batch and is raised here."""
        if len(self.searches) == 1 or len(draws) < 2:
            for d in draws:
                if self.stopped:
                    break
                method(d)
            return
        todo: "queue.SimpleQueue[_Draw]" = queue.SimpleQueue()
        for d in draws:
            todo.put(d)
        errors: list[BaseException] = []

        def work(search: Search) -> None:
            while not self.stopped and not errors:
                try:
                    d = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    method(d, search)
                except BaseException as e:  # raised in the batch's thread, once every worker has returned
                    errors.append(e)
                    return

        workers: list[threading.Thread] = []
        try:
            for search in self.searches[: len(draws)]:
                workers.append(start_daemon(functools.partial(work, search), "racksmith-peg"))
        finally:  # (a thread that could not start: those started end their draws first)
            for w in workers:
                w.join()
        if errors:
            raise errors[0]

    def _root(self, d: _Draw, search: Search) -> None:
        board, a, b, spread, zero, limit, bag = d.root
        search.set_position(board, a, b, spread, zero, limit, bag)

    def estimate(self, d: _Draw, search: "Search | None" = None) -> None:
        """The draw's estimate: a one-ply look when the bag is empty (exact when every reply ends
        the game), else a greedy playout to the end (Search.playout: each side playing its move of best static
        equity)."""
        if d.root is None or self._late():
            return
        search = search or self.search
        self._root(d, search)
        if d.root[6] and _ESTIMATE == "playout":
            # tiles left in the bag: no reply goes out, so the look cannot prove anything (half the cost)
            d.estimate = d.spread - int(search.playout())
            return
        found = search.bound(-_WIDE, _WIDE, 1, self.deadline)
        if found is None:
            self.stopped = True
            return
        self._count(found["nodes"])
        d.estimate = d.spread - int(found["value"])
        if found["proven"]:
            d.lo = d.hi = d.estimate
        elif _ESTIMATE == "playout":
            d.estimate = d.spread - int(search.playout())

    def window(self, d: _Draw, a: int, b: int, search: "Search | None" = None) -> None:
        """Narrow ``d`` with a window search on the mover's final spread F: F <= a, F >= b, or F
        (a < F < b). Sets ``stopped`` past the deadline (or the depth limit) instead."""
        if d.exact or self._late():
            return
        search = search or self.search
        self._root(d, search)
        s = d.spread
        found = search.bound(s - b, s - a, self.max_depth, self.deadline, deepen=False, tiles_first=True)
        if found is None or not found["proven"]:
            self.stopped = True
            return
        self._count(found["nodes"])
        f = s - int(found["value"])  # fail-soft: a bound of F beyond the window, else F
        if f <= a:
            d.hi = f if d.hi is None else min(d.hi, f)
        elif f >= b:
            d.lo = f if d.lo is None else max(d.lo, f)
        else:
            d.lo = d.hi = f

    def solve(self, d: _Draw, search: "Search | None" = None) -> None:
        """The exact final spread of ``d``."""
        while not d.exact and not self.stopped:
            was = (d.lo, d.hi)
            self.window(d, -_WIDE if d.lo is None else d.lo - 1, _WIDE if d.hi is None else d.hi + 1, search)
            if (d.lo, d.hi) == was and not self.stopped:  # pragma: no cover - a window inside the bounds always narrows them
                raise RacksmithError(f"the pre-endgame search did not narrow {d.letter}: {was}")

    def looks(self, plays: "list[_Play]", plies: int, deadline: float) -> "tuple[dict[int, int], list[_Play]]":
        """A depth-limited look (``plies`` deep, the horizon valued at its spread) at every draw of
        ``plays``, one play after the other until ``deadline``: each draw's value (by ``id``; a
        draw already exact, its value) and the plays whose draws all got one, in order. A look that
        reached the end of every line also sets the draw's bounds. Only the answer at a time limit
        uses these values: the proof keeps the playouts' order."""
        values: dict[int, int] = {}
        late = False

        def look(d: _Draw, search: "Search | None" = None) -> None:
            nonlocal late
            if late or id(d) in values:
                return
            if d.root is None or d.exact:
                values[id(d)] = d.point()
                return
            if time.monotonic() > deadline:
                late = True
                return
            search = search or self.search
            self._root(d, search)
            found = search.bound(-_WIDE, _WIDE, plies, deadline)
            if found is None:
                late = True
                return
            self._count(found["nodes"])
            v = values[id(d)] = d.spread - int(found["value"])
            if found["proven"]:
                d.lo = d.hi = v

        done: list[_Play] = []
        for q in plays:
            self.batch(look, q.draws)
            if late or self.stopped or any(id(d) not in values for d in q.draws):
                break
            done.append(q)
        return values, done

    def outcome(self, d: _Draw, search: "Search | None" = None) -> None:
        """Win, tie or loss for ``d``."""
        a, b = d.result_range()
        if a != b:
            self.window(d, -1, 1, search)

    def outcomes(self, q: _Play) -> None:
        """Win, tie or loss for every draw of ``q`` (its chance of winning, exact)."""
        self.batch(self.outcome, sorted(q.draws, key=lambda x: x.point()))

    def spread_duel(self, q: _Play, inc: _Play) -> bool:
        """Between two plays of equal chance, whether ``q``'s total final spread is higher than
        ``inc``'s (True) or not (False), narrowing either only as far as that takes. The bounds
        first (most challengers are dropped by the fail-soft bounds their outcome windows left);
        else the incumbent is solved exactly (its total serves every later challenger), and ``q``'s
        draws get null windows at thresholds whose weighted sum is the incumbent's total: the
        estimates plus an equal share of the room between them (all fail low: dropped), or minus
        it when ``q``'s estimates are above the incumbent's (all fail high: better). A draw that
        answers against the estimate three times is solved. A tie goes to the play first in the
        candidates' order (``order``), so the answer does not hang on the order the plays were
        searched in (which the estimates, and so the table, set)."""
        tries: dict[int, int] = {}
        slack = 1 if q.order < inc.order else 0  # q wins a tie: better when its total > the incumbent's - 1
        while not self.stopped:
            q_hi, inc_lo = _total(q, "hi"), _total(inc, "lo")
            if q_hi is not None and inc_lo is not None and q_hi <= inc_lo - slack:
                return False
            q_lo, inc_hi = _total(q, "lo"), _total(inc, "hi")
            if q_lo is not None and inc_hi is not None and q_lo > inc_hi - slack:
                return True
            if not inc.exact():
                self.solve(max((x for x in inc.draws if not x.exact), key=_width))
                continue
            target = inc.key()[1] - slack
            open_ = [d for d in q.draws if not d.exact]
            stuck = [d for d in open_ if tries.get(id(d), 0) >= 3]
            if stuck:
                self.solve(stuck[0])
                continue
            fixed = sum(d.weight * d.lo for d in q.draws if d.exact)
            guess = fixed + sum(d.weight * d.point() for d in open_)
            if guess <= target:
                # "is F at most t?" on each draw, t the estimate plus a share of the room
                t_of = _share(open_, target - fixed, up=True)
                todo = [d for d in open_ if d.hi is None or d.hi > t_of[id(d)]]
                d = max(todo, key=lambda x: x.weight * (_WIDE if x.hi is None else x.hi - t_of[id(x)]))
                t = t_of[id(d)]
                self.window(d, t, t + 1)
                if d.lo is not None and d.lo > t:
                    tries[id(d)] = tries.get(id(d), 0) + 1
            else:
                # "is F at least t?", t the estimate less a share of the room
                t_of = _share(open_, target + 1 - fixed, up=False)
                todo = [d for d in open_ if d.lo is None or d.lo < t_of[id(d)]]
                d = max(todo, key=lambda x: x.weight * (_WIDE if x.lo is None else t_of[id(x)] - x.lo))
                t = t_of[id(d)]
                self.window(d, t - 1, t)
                if d.hi is not None and d.hi < t:
                    tries[id(d)] = tries.get(id(d), 0) + 1
        return False


def solve_peg(
    position: "Position",
    top: int | None = None,
    *,
    seconds: float | None = None,
    solve_all: bool = False,
    on_play: Callable[[PegPlay], None] | None = None,
    tt_mb: int = DEFAULT_TT_MB,
    threads: int = 1,
    moves: "Sequence[Move | str] | None" = None,
    cancel: "threading.Event | None" = None,
) -> PegResult:
    """Solve the pre-endgame of ``position`` (two players; one tile in the bag, or up to one less
    than the ruleset's exchange limit: 6 in English; at most 5,000 orders of the bag's letters, tiles
    of one letter alike — the plays' ``draws`` count each tile as its own, so more) among every
    placement of the player to move (or the ``top`` best by score; None for all) and the pass:
    the best play with its exact chance of winning over the possible draws, every other play
    proven no better (see the module docstring). ``seconds``: a time limit, past which the answer
    is what was found so far, marked not exact (``result.exact``). ``solve_all``:
    every play solved exactly. ``on_play`` is called with each play as it is settled (progress).
    ``threads``: searches run at once on different draws, each with its own transposition table of
    ``tt_mb / threads`` megabytes; the best play, its chance and its mean spread (exact or bounded)
    are the same for any count, other plays' bounds and the node count may differ. ``moves``: solve
    only these plays (Moves or notations, 'pass' for the pass; MAGPIE's ``-pegonly``) instead of
    every placement and the pass; with ``solve_all``, each one's exact chance and spread.
    ``cancel``: a ``threading.Event`` another thread may set to stop the search at once, as if its
    time were up (the answer is what was found, not exact). Ctrl-C stops the search and raises
    ``KeyboardInterrupt``. A position whose final spread could pass the window searches' edges
    (``_WIDE``, 2**25: a user ruleset of huge tile values or word multipliers) is refused with a
    :class:`~racksmith.errors.PositionError` (:func:`~racksmith.search.endgame.check_value_range`)."""
    from ..core.position import Position

    if not isinstance(position, Position):
        raise RacksmithError(f"position must be a racksmith Position, got {type(position).__name__}")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise RacksmithError(f"top must be a whole number of plays (1 or more) or None for all, got {top!r}")
    if seconds is not None and (
        isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < math.inf
    ):
        raise RacksmithError(f"seconds must be a positive number of seconds (or None), got {seconds!r}")
    if isinstance(tt_mb, bool) or not isinstance(tt_mb, int) or not 1 <= tt_mb <= 1 << 16:
        raise RacksmithError(f"tt_mb must be a whole number of megabytes, 1 to 65536, got {tt_mb!r}")
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise RacksmithError(f"threads must be a whole number from 1 to {MAX_THREADS}, got {threads!r}")
    _args.callback(on_play, "on_play")
    check_event(cancel, RacksmithError)
    solve_all = _args.flag(solve_all, "solve_all")
    if len(position.racks) != 2:
        raise PositionError(f"a pre-endgame is between two players; this position has {len(position.racks)} racks")
    if position.is_over:
        raise PositionError("the game is over: there is no play to solve")
    if not position.racks_known[0]:
        from ..sim.simulate import UNKNOWN_MOVER

        raise PositionError(UNKNOWN_MOVER)
    wanted = _wanted(position, top, moves)
    in_bag = position.bag_count
    rs = position.ruleset
    if in_bag == 0:
        raise PositionError("the bag is empty: that is an endgame (racksmith endgame, or Position.solve_endgame)")
    if in_bag >= rs.exchange_limit or in_bag > MAX_BAG:
        why = (f"exchanges are allowed with {rs.exchange_limit} or more in {rs.name}, and the pre-endgame solver plays "
               "placements and passes only" if in_bag >= rs.exchange_limit else f"the search holds at most {MAX_BAG}")
        raise PositionError(f"the bag holds {in_bag} tile{'s' if in_bag != 1 else ''}: {why}; simulate instead "
                            "(racksmith sim, or Position.simulate)")
    check_spread(position.scores[0] - position.scores[1])
    lexicon = position.lexicon
    if not isinstance(lexicon, Lexicon):
        raise RacksmithError(
            f"the pre-endgame solver needs a KWG lexicon (racksmith.lexicon.Lexicon), got {type(lexicon).__name__}"
        )
    start = time.monotonic()
    deadline = start + seconds if seconds is not None else 0.0
    rack = tuple(position.racks[0])
    if position.racks_known[1]:  # the opponent's rack is known: the bag's tiles are too, not their order
        opp = tuple(position.racks[1])
        scenarios = [(seq, weight, opp) for seq, weight in _orders(Counter(int(t) for t in position.bag_tiles()), in_bag)]
    else:  # not known: any of the unseen tiles may be in the bag; those of his rack that are known
        # (a rack known in part, Position.racks_partial) are not, as Macondo's -opprack takes them
        unseen = Counter(int(t) for t in position.unseen_tiles())
        part = tuple(position.racks[1])
        scenarios = [(seq, weight, tuple(sorted(part + tuple((unseen - Counter(seq)).elements()))))
                     for seq, weight in _orders(unseen, in_bag)]
    n_draws = sum(weight for _, weight, _ in scenarios)
    pool = bytes(rack) + bytes(scenarios[0][2]) + bytes(scenarios[0][0])  # every tile still to be played
    board = np.ascontiguousarray(position.board, dtype=np.uint8)
    check_stars(rs, board, pool)
    pool = played_pool(rs, board, pool)
    # (the windows' edges, _WIDE, lie beyond every final spread: a value past them would be taken for exact)
    check_value_range(rs, lexicon, position.scores[0] - position.scores[1], pool, _WIDE, "pre-endgame search")
    rules = pruned_rules(rs, lexicon, board, pool)
    bits = max(10, min(32, int(math.log2(max(1, tt_mb // threads))) + 16))
    from ._endgame import Search  # (the kernel is loaded at the first search, not with racksmith)

    try:
        searches = [Search(rules, bits) for _ in range(threads)]
    except MemoryError as e:  # tables larger than the machine gives (one a thread): what to change
        why = str(e) or f"no memory for the pre-endgame search: {SMALLER_TT_MB}"
        raise PositionError(f"{why} (one table a thread: {threads})") from None
    solver = _Solver(searches, deadline, MAX_DEPTH)
    try:
        with cancelling(cancel, solver.cancel):  # (Ctrl-C: stopped the same way, then KeyboardInterrupt)
            return run_interruptibly(
                lambda: _solve(solver, position, top, scenarios, n_draws, solve_all, on_play, start, wanted),
                solver.cancel, "racksmith-peg")
    finally:
        solver.close()


def _move_key(m: Move) -> tuple:
    if m.is_place:
        return (m.kind, m.row, m.col, m.across, tuple(m.tiles), tuple(sorted(m.reclaimed)))
    return (m.kind,)


def _wanted(position: "Position", top: int | None, moves: Any) -> "dict[tuple, Move] | None":
    """The plays ``moves`` names by their keys (None: every play), each checked to be a placement or
    the pass of the player to move."""
    if moves is None:
        return None
    if top is not None:
        raise RacksmithError("give top or moves, not both: moves names the plays to solve")
    if isinstance(moves, (str, Move)) or not isinstance(moves, (list, tuple)):
        raise RacksmithError(f"moves must be a list of moves or notations (e.g. ['8H QI', 'pass']), got {moves!r:.60}")
    if not moves:
        raise RacksmithError("moves is empty: name at least one play to solve (or None for every play)")
    wanted: dict[tuple, Move] = {}
    for m in moves:
        if not isinstance(m, (str, Move)):
            raise RacksmithError(f"moves holds moves or notations, got {m!r:.60}")
        move = position.resolve(m)
        if move.kind == "exchange":
            n = position.bag_count
            raise PositionError(f"{move.notation()}: no exchange is legal with {n} tile{'s' if n != 1 else ''} in the bag "
                                "(the pre-endgame solves placements and the pass)")
        wanted[_move_key(move)] = move
    return wanted


def _not_legal(position: "Position", moves: "list[Move]") -> str:
    """The message of plays named that are not legal plays of the player to move, each with its
    reason (:func:`~racksmith.core.validation.why_not_legal`), in the order of their notations."""
    from ..core.validation import why_not_legal

    return f"not a legal play of the player to move here: {why_not_legal(position, sorted(moves, key=lambda m: m.notation()))}"


MAX_ORDERS = 5000  #: bag orders (distinct sequences of letters) a pre-endgame may have


def _orders(pool: Counter, n: int) -> list[tuple[tuple[int, ...], int]]:
    """Every order the bag's ``n`` tiles can come out in, drawn from ``pool`` (tile: count): each
    distinct sequence of tiles once, with its weight (the ways of drawing it from the pool's tiles,
    each tile a tile of its own), in tile order. More than MAX_ORDERS is a PositionError."""
    out: list[tuple[tuple[int, ...], int]] = []
    left = Counter(pool)
    seq: list[int] = []

    def extend(weight: int) -> None:
        if len(seq) == n:
            out.append((tuple(seq), weight))
            if len(out) > MAX_ORDERS:
                raise PositionError(
                    f"the {n} tiles of the bag can come out in more than {MAX_ORDERS:,} orders from the "
                    f"{sum(pool.values())} unseen tiles: too many endgames to solve; simulate instead (racksmith sim, or Position.simulate)"
                )
            return
        for t in sorted(left):
            c = left[t]
            if c:
                left[t] = c - 1
                seq.append(t)
                extend(weight * c)
                seq.pop()
                left[t] = c

    extend(1)
    return out


def _groups(scenarios: list, k: int, a, cache: dict) -> tuple[list[int], list[int], list[int], list[tuple]]:
    """The bag orders grouped by what a play of ``k`` tiles leaves (the tiles it draws, in any
    order, and the bag after it in order): each order's group, each group's first order, its total
    weight, and what every play of ``k`` tiles shares there (the draw's label, the opponent's rack,
    the tiles drawn, the bag left: the last two as the kernel takes them); groups in the order they
    first appear (kept in ``cache`` by ``k``)."""
    if k not in cache:
        index: dict[tuple, int] = {}
        of: list[int] = []
        firsts: list[int] = []
        weights: list[int] = []
        shared: list[tuple] = []
        for i, (seq, weight, opp) in enumerate(scenarios):
            key = (tuple(sorted(seq[:k])), seq[k:])
            g = index.get(key)
            if g is None:
                g = index[key] = len(firsts)
                firsts.append(i)
                weights.append(0)
                shared.append((_draw_label(a, seq, k), bytes(sorted(opp)), seq[:k], bytes(seq[k:])))
            weights[g] += weight
            of.append(g)
        cache[k] = (of, firsts, weights, shared)
    return cache[k]


def _draw_label(a, seq: tuple[int, ...], k: int) -> str:
    """How a draw is shown: with one tile in the bag, its letter; else the tiles the play draws
    (sorted: their order does not matter) and, after a '|', those left in the bag in the order they
    will be drawn ('AE' for a play that draws both, 'A|E', '|AE' after a pass). '?' a blank."""
    show = lambda tiles: "".join(a.letter(t) if t else "?" for t in tiles)  # noqa: E731
    if len(seq) == 1:
        return show(seq)
    drawn, rest = sorted(seq[:k]), seq[k:]
    return show(drawn) + ("|" + show(rest) if rest else "")


def _solve(solver: _Solver, position: "Position", top: int | None, scenarios: list, n_draws: int, solve_all: bool,
           on_play: Callable[[PegPlay], None] | None, start: float,
           wanted: "dict[tuple, Move] | None" = None) -> PegResult:
    """The plays of the pre-endgame and their draws, then the searches (see :func:`solve_peg`)."""
    from ..core.position import Position

    rs = position.ruleset
    a = rs.alphabet
    rack = tuple(position.racks[0])
    lexicon = position.lexicon
    placements = [m for m in position.moves(top, sort="score") if m.is_place]
    candidates = placements + [Move.pass_(a, score=0)]
    if wanted is not None:
        candidates = [m for m in candidates if _move_key(m) in wanted]
        missing = set(wanted) - {_move_key(m) for m in candidates}
        if missing:
            raise PositionError(_not_legal(position, [wanted[k] for k in missing]))

    limit = solver.deadline
    if limit and not solve_all and _ANSWER_TOP:  # the last share of the time is kept for the answer's looks
        solver.deadline = limit - _ANSWER_SHARE * (limit - start)
    plays = []
    grouped: dict[int, tuple[list[int], list[int], list[int], list[tuple]]] = {}
    set_up = time.monotonic()
    cut = False
    for i, m in enumerate(candidates):
        play = _Play(m, i)
        now = time.monotonic()
        # the plays set up must also be summed up at the end (_public: one pass over every draw, a
        # fraction _SUM_SHARE of the cost of setting them up): the setting up stops halfway from its
        # start to the limit
        if cut or (solver.deadline and now + (now - set_up) > solver.deadline):
            # the time ran out setting the plays up (many plays, many bag orders): the rest have no
            # draws (those set up are estimated in what is left, and the answer is not exact)
            cut = True
            play.built, play.after = False, position.scores[0] - position.scores[1] + (m.score if m.is_place else 0)
            plays.append(play)
            continue
        k = play.tiles = m.tiles_played if m.is_place else 0
        of, firsts, weights, shared = _groups(scenarios, k, a, grouped)
        # the play pushed on the first draw: (board, left, spread, scoreless turns and their limit)
        first = None
        for j, weight, (label, opp_bytes, drawn, bag) in zip(firsts, weights, shared):
            if first is not None:
                # the same board, scores and scoreless turns after every draw (with tiles in the bag
                # a play cannot go out, and whether it ends the game on scoreless turns does not
                # depend on the draw): only the racks and the bag differ
                board, left, spread, zero, zero_limit = first
                d = _Draw(label, weight, (board, opp_bytes, bytes(sorted(left + drawn)), -spread, zero, zero_limit, bag),
                          spread)
                play.draws.append(d)
                continue
            seq, _, opp = scenarios[j]
            p = Position(rs, position.board, (rack, opp), position.scores, position.zero_turns, position.current_opcodes,
                         lexicon=lexicon)
            p.push(m, list(seq[:k]) if m.is_place else None, trusted=True)
            spread = p.scores[1] - p.scores[0]  # the mover's, after his play
            d = _Draw(_draw_label(a, seq, k), weight, None, spread)
            if p.is_over:  # (its spread counts the racks left: each draw is pushed)
                d.lo = d.hi = d.estimate = spread
            else:
                check_spread(p.scores[0] - p.scores[1])  # a play may take the scores further apart
                # (not ``limit``: that name holds the time limit, which the answer's looks get below)
                zero, zero_limit = _effective_zero(p.zero_turns, rs.zero_turn_limit)
                d.root = (np.ascontiguousarray(p.board, dtype=np.uint8), bytes(p.racks[0]), bytes(p.racks[1]),
                          p.scores[0] - p.scores[1], zero, zero_limit, bytes(seq[k:]))
                first = (d.root[0], tuple(turns.take_tiles(rack, m)), spread, zero, zero_limit)
            play.draws.append(d)
        draws = play.draws
        play.draw_of = [draws[g] for g in of]
        plays.append(play)

    if limit:  # the time to sum the plays up at the end comes off the searches' (see above)
        now = time.monotonic()
        reserve = _SUM_SHARE * (now - set_up)
        limit = max(now, limit - reserve)
        solver.deadline = max(now, solver.deadline - reserve)
    complete = _estimates(solver, plays, scenarios, grouped)
    if complete:
        plays.sort(key=lambda q: (not q.built, not q.estimated(), tuple(-k for k in q.key()), q.order))
    else:  # a short limit: the plays by the rounds of estimates, then those not set up
        plays.sort(key=lambda q: (not q.built, tuple(-k for k in q.sample_key())))
    best: _Play | None = None
    if not all(q.built for q in plays):  # no proof: the looks pick among the plays set up (else the first by score)
        best = plays[0]
    elif solve_all:
        for q in plays:
            if solver.stopped:
                break
            solver.batch(solver.solve, q.draws)
            if not solver.stopped and (best is None or (q.key(), -q.order) > (best.key(), -best.order)):
                best = q
            if not solver.stopped and on_play is not None:
                on_play(_public(q, n_draws))
    else:
        # the chance of winning first: only each draw's outcome (win, tie or loss) is needed. The
        # first play gets every outcome; the others are settled one bag tile at a time across all
        # of them (the searches of one tile start from the same racks and share the table), each
        # play dropped once it cannot reach the best chance, and made the best once it must beat it
        level: list[_Play] = []  # the plays with the best chance found so far
        rank = {id(q): i for i, q in enumerate(plays)}
        if plays:
            best = plays[0]
            solver.outcomes(best)
            level = [best]
            if on_play is not None and not solver.stopped:
                on_play(_public(best, n_draws))
        open_ = plays[1:]
        n_tiles = len(scenarios)
        # (every play's draw of every bag order: not worth ordering once the time is up)
        tiles = [] if solver.stopped else sorted(range(n_tiles), key=lambda j: (sum(q.draw_of[j].point() for q in plays), j))
        for j in tiles:
            kept = []
            if len(solver.searches) > 1:  # this tile's outcomes at once (one search: in the loop, as before)
                solver.batch(solver.outcome, [q.draw_of[j] for q in open_])
            for q in open_:
                if solver.stopped or best is None:
                    break
                solver.outcome(q.draw_of[j])
                if solver.stopped:
                    break
                least, most = q.wins_range()
                wins = best.wins_range()[0]
                if most < wins:
                    if on_play is not None:
                        on_play(_public(q, n_draws))
                    continue
                if least > wins:  # better: its chance made exact, the new best
                    solver.outcomes(q)
                    if solver.stopped:
                        break
                    best, level = q, [q]
                    if on_play is not None:
                        on_play(_public(q, n_draws))
                    continue
                if least == most:  # equal
                    level.append(q)
                    if on_play is not None:
                        on_play(_public(q, n_draws))
                    continue
                kept.append(q)
            if solver.stopped:
                break
            # a new best may have risen above plays already kept
            wins = best.wins_range()[0] if best is not None else 0
            open_ = []
            for q in kept:
                if q.wins_range()[1] >= wins:
                    open_.append(q)
                elif on_play is not None:
                    on_play(_public(q, n_draws))
        level.sort(key=lambda q: rank[id(q)])
        # equal chances: the mean final spread decides, so only those plays need it
        if not solver.stopped and len(level) > 1:
            best = level[0]
            for q in level[1:]:
                if solver.stopped:
                    break
                if solver.spread_duel(q, best):
                    best = q
    exact = not solver.stopped and not cut
    if not exact and best is not None and best.built and limit and not solve_all and _ANSWER_TOP and not solver.cancelled:
        best = _anytime(solver, plays, best, limit, complete)
    if complete:
        ranked = sorted(plays, key=lambda q: (q is not best, not q.built, not q.estimated(),
                                              tuple(-k for k in q.shown_key()), q.order))
    else:
        ranked = sorted(plays, key=lambda q: (q is not best, not q.built, tuple(-k for k in q.sample_key())))
    return PegResult(tuple(_public(q, n_draws) for q in ranked), solver.nodes, time.monotonic() - start, exact)


def _estimates(solver: _Solver, plays: "list[_Play]", scenarios: list, grouped: dict) -> bool:
    """Every draw's estimate (Solver.estimate: a playout) for the plays set up, each draw once;
    whether every one got its estimate before the time limit. Without a limit, play after play.
    With one, in rounds, so that wherever the time runs out the plays compare on the same footing:
    the bag orders are put in one random order, each drawn ahead of the rest in proportion to its
    weight (weighted sampling without replacement, Efraimidis and Spirakis; seeded, so a position
    always gets the same order), and each play's draws come in the order their first bag order does:
    every play meets the same bag orders first, as the simulation's candidates meet the same
    draws. The first round estimates the first draw of every play; each later one keeps the better
    half of the plays of the round before (by what their estimated draws say: chance, then mean
    spread) and doubles their draws, until ``_STAGE_KEEP`` are left or those kept have no draw left
    (successive halving); then every draw left, the plays in the order the rounds ranked them."""
    built = [q for q in plays if q.built]
    if not solver.deadline:
        solver.batch(solver.estimate, [d for q in built for d in q.draws])
        return not solver.stopped
    weights = np.array([w for _, w, _ in scenarios], dtype=np.float64)
    keys = np.random.default_rng(0x9E6).random(len(weights)) ** (1.0 / weights)
    by_key = np.argsort(-keys, kind="stable")
    order_of: dict[int, list[int]] = {}  # tiles played: the groups (its plays' draws) in the bag orders' order
    for k, (of, _, _, _) in grouped.items():
        groups = np.asarray(of, dtype=np.int64)[by_key]
        _, first = np.unique(groups, return_index=True)
        order_of[k] = groups[np.sort(first)].tolist()
    done = {id(q): 0 for q in built}
    field = list(built)
    want = _STAGE_FIRST
    while field and not solver.stopped:
        solver.batch(solver.estimate, [q.draws[g] for q in field for g in order_of[q.tiles][done[id(q)]:want]])
        if solver.stopped:
            break
        for q in field:
            done[id(q)] = min(want, len(q.draws))
            q.stage += 1
        if len(field) <= _STAGE_KEEP or all(done[id(q)] == len(q.draws) for q in field):
            break
        field.sort(key=lambda q: q.sample_key(), reverse=True)
        field = field[:max(_STAGE_KEEP, (len(field) + 1) // 2)]
        want *= 2
    if not solver.stopped:
        rest = sorted(built, key=lambda q: q.sample_key(), reverse=True)
        solver.batch(solver.estimate, [q.draws[g] for q in rest for g in order_of[q.tiles][done[id(q)]:]])
    return not solver.stopped


def _anytime(solver: _Solver, plays: "list[_Play]", best: _Play, limit: float, complete: bool = True) -> _Play:
    """The answer when the proof stopped short of the time limit's last share. The plays it has not
    ruled out (``best``, the best it found, and those whose chance could still reach ``best``'s, or
    whose mean spread could still pass it at an equal chance), the leading ``_ANSWER_TOP`` of them
    by what is known, each get a look ``_ANSWER_PLIES`` deep at every draw, in turn until the time
    is up; if all of them got one, the better half of them by those looks get a look one ply
    deeper, and so on (at least two plays, at most ``_ANSWER_MAX_PLIES`` deep). The answer is the
    play the last round of looks ranks first among the plays it finished (each draw's value held
    within its proven bounds; a tie to ``best``, then the candidates' order), a round that did not
    finish every play counting only if it is the first and finished ``best``; else ``best``."""
    floor = best.wins_range()[0]
    best_lo = _total(best, "lo")
    even = best.wins_range()[1] == floor  # the best play's chance is exact

    def out(q: _Play) -> bool:
        least, most = q.wins_range()
        if most < floor:
            return True
        q_hi = _total(q, "hi")
        return even and least == most == floor and q_hi is not None and best_lo is not None and q_hi <= best_lo

    def key(q: _Play, values: dict[int, int]) -> tuple[int, int, bool, int]:
        wins = total = 0
        for d in q.draws:
            v = values[id(d)]
            if d.lo is not None and v < d.lo:
                v = d.lo
            if d.hi is not None and v > d.hi:
                v = d.hi
            wins += d.weight * (2 if v > 0 else 1 if v == 0 else 0)
            total += d.weight * v
        return wins, total, q is best, -q.order

    rest = (q for q in plays if q is not best and q.built and not out(q))
    if complete:
        field = [best] + sorted(rest, key=lambda q: (not q.estimated(), tuple(-k for k in q.key()), q.order))[:_ANSWER_TOP - 1]
    else:  # ``plays`` is in the order of the rounds of estimates
        field = [best] + list(itertools.islice(rest, _ANSWER_TOP - 1))
    answer = best
    plies = _ANSWER_PLIES
    solver.stopped = solver.cancelled
    try:
        while len(field) > 1 and plies <= _ANSWER_MAX_PLIES:
            values, done = solver.looks(field, plies, limit)
            if len(done) < len(field):
                if plies == _ANSWER_PLIES and done:  # the first round: the plays it finished (best first)
                    answer = max(done, key=lambda q: key(q, values))
                break
            field.sort(key=lambda q: key(q, values), reverse=True)
            answer = field[0]
            field = field[:max(2, len(field) // 2)] if len(field) > 2 else []
            plies += 1
    finally:
        solver.stopped = True
    return answer


def _public(q: _Play, n_draws: int) -> PegPlay:
    """What is known of ``q``, as the caller sees it (one pass over its draws: a play may have
    hundreds and a position thousands of plays)."""
    if not q.built:  # nothing known: any chance, the spread right after the play as its estimate
        return PegPlay(q.move, 0.0, n_draws, 0.0, float(q.after), (), False, float(n_draws), 1.0, None, (), None, 0, None)
    least = most = wins = total = top = low = known = known_wins = known_total = 0
    has_top = has_low = True
    outcomes: list[tuple[str, int]] = []
    bounds: list[tuple[str, int | None, int | None]] = []
    for d in q.draws:
        w, lo, hi, est = d.weight, d.lo, d.hi, d.estimate
        v = d.spread if est is None else est  # (as _Draw.point)
        if lo is None:
            has_low = False
        else:
            v = max(v, lo)
            low += w * lo
            least += w * (0 if lo < 0 else 1 if lo == 0 else 2)
        if hi is None:
            has_top = False
            most += 2 * w
        else:
            v = min(v, hi)
            top += w * hi
            most += w * (2 if hi > 0 else 1 if hi == 0 else 0)
        won = w * (2 if v > 0 else 1 if v == 0 else 0)
        wins += won
        total += w * v
        if lo is not None and lo == hi:
            outcomes.append((d.letter, lo))
        else:
            bounds.append((d.letter, lo, hi))
            if est is None:
                continue
        known += w
        known_wins += won
        known_total += w * v
    if not bounds:
        return PegPlay(q.move, wins / 2, n_draws, wins / 2 / n_draws, total / n_draws, tuple(outcomes),
                       estimated_draws=n_draws, win_probability_estimate=wins / 2 / n_draws)
    mean = total / n_draws
    if known < n_draws:  # not every draw estimated: the mean of those that are, within the bounds
        mean = known_total / known if known else float(q.after)
        mean = min(mean, top / n_draws) if has_top else mean
        mean = max(mean, low / n_draws) if has_low else mean
    return PegPlay(q.move, least / 2, n_draws, least / 2 / n_draws, mean, tuple(outcomes), False, most / 2,
                   most / 2 / n_draws, top / n_draws if has_top else None, tuple(bounds),
                   low / n_draws if has_low else None, known, known_wins / 2 / known if known else None)
