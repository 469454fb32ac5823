"""Which play is best here: the right tool for the stage of the game, within a time budget.

* **The bag empty**: the exact endgame solver (:func:`racksmith.search.endgame.solve_endgame`),
  deepening until the answer is exact or the time is up (then the best move of the last depth).
* **One tile in the bag**: the one-tile pre-endgame (:func:`racksmith.search.peg.solve_peg`): the
  play with the best chance of winning over the possible bag tiles, then the best mean spread.
  Where the ruleset allows exchanging with one tile in the bag (``exchange_limit`` 0 or 1), the
  simulation instead: the pre-endgame solver plays placements and passes only.
* **More tiles in the bag**: a Monte Carlo simulation (:func:`racksmith.sim.simulate.simulate`)
  of the best plays by static equity, stopped when best-arm identification is sure of the best
  play or the time is up.
* **Where none of these applies** (more than two players, scores beyond what the searches hold, a
  position the endgame solver or the play-outs do not take, such as a set of more than 1,024 tiles):
  the play of highest static equity, and why.

An opponent's rack given in the position is taken as known by every method (as ``racksmith sim``,
``endgame`` and ``peg`` take it); leave it out to have it drawn from the unseen tiles.

    >>> Position.from_cgp(cgp).best_play(seconds=5).move                  # doctest: +SKIP
"""
from __future__ import annotations

import dataclasses
import math
import os
import time
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from .. import _args
from .._interrupt import check_event
from ..core.move import Move
from ..core.position import LeavesLike
from ..errors import PositionError, RacksmithError

if TYPE_CHECKING:  # pragma: no cover
    from ..core.position import Position
    from ..movegen.movelist import MoveList
    from ..search.endgame import EndgameResult
    from ..search.peg import PegResult
    from ..sim.simulate import SimResult
    from ..sim.winpct import WinPct

__all__ = ["BestPlay", "METHODS", "best_play"]

#: how a :class:`BestPlay` was found, from the most exact to the least
METHODS = ("endgame", "peg", "sim", "static")

#: each method as people call it (``racksmith best`` prints it before the summary)
_METHOD_NAMES = {"endgame": "endgame solver", "peg": "pre-endgame solver", "sim": "simulation",
                 "static": "static equity"}

#: the time budget when none is given (seconds)
DEFAULT_SECONDS = 10.0


#: the default of ``leaves``: the ruleset's shipped leaves (as the players' and the simulation's)
SHIPPED = "shipped"


@dataclass(frozen=True, slots=True)
class BestPlay:
    """The play to make and how it was chosen.

    ``method``: one of :data:`METHODS`; ``exact``: the answer is proven (the endgame solved to the
    end, or the pre-endgame's best play proven); a simulation is never exact, its certainty is in
    ``summary`` and ``result``. ``summary``: one line saying why this play, for people. ``result``:
    what the method returned (an ``EndgameResult``, ``PegResult``, ``SimResult`` or ``MoveList``).
    ``fallback``: when the method is ``static`` although the stage of the game called for another,
    why that other could not run (else None)."""

    move: Move
    method: str
    exact: bool
    summary: str
    result: "SimResult | EndgameResult | PegResult | MoveList"
    fallback: str | None = None

    def __repr__(self) -> str:
        # one line: the move, how it was found, and as much of the summary as fits (the dataclass's
        # repr held the method's whole result)
        summary = self.summary if len(self.summary) <= 120 else self.summary[:119] + "…"
        exact = ", exact" if self.exact else ""
        return f"<BestPlay {self.move.notation()} by {_METHOD_NAMES.get(self.method, self.method)}{exact}: {summary}>"

    def _repr_html_(self) -> str:
        """The move, the method and why, then the method's own table (the simulation's candidates,
        the pre-endgame's plays, the endgame's line, or the moves by static equity), as ``racksmith
        best`` shows them."""
        from ..formats import html

        head = html.text(html.Raw(f"best: <b>{html.escape(self.move.notation())}</b>"))
        why = html.text(f"{_METHOD_NAMES.get(self.method, self.method)}: {self.summary}")
        detail = getattr(self.result, "_repr_html_", None)  # (the summary says why a fallback fell back)
        return html.block(head, why, detail() if callable(detail) else None)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith best --json``: the move, the method, whether it is exact,
        the summary, the fallback reason, and the method's own JSON under ``result``."""
        if self.method == "static":
            detail: Any = {"moves": self.result.to_records()[:10]}
        else:
            detail = self.result.to_dict()
        return {"best": self.move.notation(), "method": self.method, "exact": self.exact,
                "summary": self.summary, "fallback": self.fallback, "result": detail}


def best_play(position: "Position", seconds: float | None = DEFAULT_SECONDS, *,
              leaves: "LeavesLike | None" = SHIPPED, winpct: "WinPct | str | os.PathLike[str] | None" = None, threads: int = 1, seed: int | None = None, candidates: int = 10,
              plies: int = 2, opponent_racks: Any = None, tt_mb: int | None = None,
              progress: Callable[[str, Any], None] | None = None,
              cancel: "threading.Event | None" = None) -> BestPlay:
    """The best play of the player to move, by the method the stage of the game calls for (see the
    module docstring). ``seconds``: the time the method may take (None: until the endgame or the
    pre-endgame is exact, which may take long, and a simulation is sure of its best play at 0.99 or
    has run :data:`racksmith.sim.simulate.DEFAULT_ITERATIONS` iterations);
    ``leaves``: the leave values of static equity and of the simulation's play-outs (the default:
    the ruleset's shipped leaves; None: every leave 0); ``winpct``: the simulation's win% table
    (the default: the ruleset's; for a ruleset with none of its own another's, which the
    simulation's ``note`` and the summary say, :func:`racksmith.sim.winpct.borrowed_note`);
    ``threads``, ``seed``, ``candidates``, ``plies``, ``opponent_racks``: the simulation's (see
    :func:`racksmith.sim.simulate.simulate`; ``threads`` also for the endgame and pre-endgame solvers); ``tt_mb``:
    the transposition table of the endgame and pre-endgame solvers (None: their default).
    ``progress(method, partial)`` is called as the chosen method reports (each depth of the
    endgame, each settled play of the pre-endgame, partial simulation results), on the caller's
    thread: its time counts against ``seconds``, and the last report comes once the method has
    stopped. ``cancel``: a
    ``threading.Event`` another thread may set to stop the method at once, as if its time were up:
    the answer is then what it had found (``exact`` False unless it was already proven)."""
    from ..core.position import Position
    from ..lexicon import Leaves, default_leaves, load_leaves

    if not isinstance(position, Position):
        raise RacksmithError(f"position must be a racksmith Position, got {type(position).__name__}")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not 0 < seconds < math.inf):
        raise RacksmithError(f"seconds must be a positive number of seconds (or None), got {seconds!r}")
    _args.callback(progress, "progress")
    check_event(cancel, RacksmithError)
    from ..sim.simulate import check_options

    # the simulation's options are checked whatever the stage (an endgame does not use them)
    check_options(candidates=candidates, plies=plies, threads=threads, seed=seed, opponent_racks=opponent_racks)
    if winpct is not None:
        from ..sim.winpct import load_winpct

        winpct = load_winpct(winpct)
    if position.is_over:
        raise PositionError("the game is over: there is no play to choose")
    if position.inferred_racks()[0] is None:
        from ..sim.simulate import UNKNOWN_MOVER

        raise PositionError(UNKNOWN_MOVER)
    rs = position.ruleset
    if isinstance(leaves, str) and leaves == SHIPPED:
        leaves = default_leaves(rs)
    elif isinstance(leaves, str) and leaves.strip().lower() == "none":
        leaves = None
    elif leaves is not None and not isinstance(leaves, Leaves):
        leaves = load_leaves(leaves, rs)

    def report(method: str) -> Callable[[Any], None] | None:
        return None if progress is None else (lambda partial: progress(method, partial))

    tt = {} if tt_mb is None else {"tt_mb": tt_mb}
    reason = None
    if len(position.racks) != 2:
        reason = f"the searches and the simulation are for two players; this position has {len(position.racks)}"
    else:
        bag = position.bag_count
        try:
            if bag == 0:
                return _endgame(position, seconds, threads, tt, report("endgame"), cancel)
            if bag == 1 and bag < rs.exchange_limit:  # the pre-endgame solver plays no exchange
                return _peg(position, seconds, threads, tt, report("peg"), cancel)
            return _sim(position, seconds, leaves, winpct, threads, seed, candidates, plies, opponent_racks,
                        report("sim"), cancel)
        except PositionError as e:  # a position the solver does not take (scores, stars): say why
            reason = str(e)
    return _static(position, leaves, reason)


def _endgame(position, seconds, threads, tt, progress, cancel) -> BestPlay:
    r = position.solve_endgame(None, seconds, threads, on_depth=progress, cancel=cancel, **tt)
    if r.best is None:  # pragma: no cover - a position not over always has a move
        raise PositionError("the endgame solver found no move")
    if r.exact:
        summary = f"endgame solved: best play by both sides {_signed(r.value)} to the spread ({r.nodes:,} nodes)"
    elif r.depth == 0:
        why = "cancelled" if _stopped_by(cancel) else "the time ran out"
        summary = f"endgame not searched: {why} after {_secs(r.seconds)}, before its first depth ended; the highest-scoring move"
    else:
        summary = (f"endgame searched to {r.depth} plies in {_secs(r.seconds)}{_stopped_by(cancel)}, not to the end: "
                   f"{_signed(r.value)} to the spread at that depth")
    return BestPlay(r.best, "endgame", r.exact, summary, r)


def _peg(position, seconds, threads, tt, progress, cancel) -> BestPlay:
    started = time.monotonic()
    r = position.solve_peg(seconds=seconds, on_play=progress, threads=threads, cancel=cancel, **tt)
    p = r.plays[0]
    if r.exact and not p.exact and not (cancel is not None and cancel.is_set()):
        # the best play proven by its chance of winning, its mean spread only bounded (or estimated,
        # 18 points off in a MAGPIE user's check): that one play solved to the end, in the time left
        left = None if seconds is None else seconds - (time.monotonic() - started)
        if left is None or left > 0.01:
            one = position.solve_peg(seconds=left, moves=[p.move], solve_all=True, threads=threads, cancel=cancel, **tt)
            if one.exact and one.plays and one.plays[0].exact:
                p = one.plays[0]
                r = dataclasses.replace(r, plays=(p, *r.plays[1:]), nodes=r.nodes + one.nodes,
                                        seconds=r.seconds + one.seconds)
    pct = (f"{100 * p.win_probability:.2f}%" if p.wins_exact
           else f"between {100 * p.win_probability:.2f}% and {100 * p.win_probability_max:.2f}%")
    chance = (f"{pct} to win over the {p.draws} possible bag tiles" if p.draws > 1
              else f"{pct} to win (the bag's tile known from both racks)")
    if p.exact:
        spread = f"mean final spread {p.mean_spread:+.2f}"
    elif p.mean_spread_min is not None and p.mean_spread_max is not None:
        spread = f"mean final spread {p.mean_spread_min:+.2f} to {p.mean_spread_max:+.2f}"
    else:
        spread = f"mean final spread not solved (an estimate: about {p.mean_spread:+.2f})"
    if r.exact:
        summary = f"pre-endgame solved: {chance}, {spread}; every other play proven no better"
    else:
        by = "cancelled" if cancel is not None and cancel.is_set() else "stopped by the time limit"
        summary = (f"pre-endgame {by} after {_secs(r.seconds)}, not proven: {chance} as far as "
                   f"the search went, {spread}")
    return BestPlay(p.move, "peg", r.exact, summary, r)


def _sim(position, seconds, leaves, winpct, threads, seed, candidates, plies, opponent_racks, progress,
         cancel) -> BestPlay:
    from ..errors import SimError
    from ..sim.simulate import check_scores

    try:
        check_scores(position.scores)
    except SimError as e:
        raise PositionError(str(e)) from None
    try:
        r = position.simulate(candidates=candidates, plies=plies, iterations=None, seconds=seconds, threads=threads,
                              seed=seed, stop=0.99, opponent_racks=opponent_racks, leaves=leaves, winpct=winpct,
                              progress=progress, cancel=cancel)
    except SimError as e:  # a position the play-outs do not take (a set of more than 1,024 tiles): say why
        raise PositionError(str(e)) from None
    from ..sim.winpct import with_borrowed_note

    r = with_borrowed_note(r, position.ruleset, winpct)  # (another ruleset's table, when it has none: said)
    c = r.best
    how = {"confidence": "sure of the best play at 0.99", "time": "stopped by the time limit",
           "decided": "the game is decided: ranked by equity",
           "iterations": "stopped at its iteration limit",
           "interrupted": "cancelled" if cancel is not None and cancel.is_set() else "interrupted"}.get(r.stopped, r.stopped)
    summary = (f"simulated {len(r.candidates)} play{'s' if len(r.candidates) != 1 else ''}, {plies} "
               f"pl{'ies' if plies != 1 else 'y'}, {r.iterations:,} iterations in "
               f"{_secs(r.seconds)} ({how}): " + (
                   f"no play-out ran: the best by static equity ({c.static_equity:+.2f})" if not c.iterations else
                   f"{c.win_pct:.2f}% to win" + (f" (standard error {c.stderr:.2f})" if c.iterations > 1 else " (one play-out)")
                   + f", equity {c.equity:+.2f}")) + (f"; {r.note}" if r.note else "")
    return BestPlay(c.move, "sim", False, summary, r)


def _stopped_by(cancel) -> str:
    return " (cancelled)" if cancel is not None and cancel.is_set() else ""


def _static(position, leaves, reason: str | None) -> BestPlay:
    ml = position.moves(top=10, sort="equity", leaves=leaves, exchanges=True)
    m = ml[0]
    kind = "leave values" if leaves is not None else "no leave values"
    summary = f"highest static equity (score + leave, {kind}): {m.equity:+.2f}"
    if reason:
        summary += f"; {reason}"
    return BestPlay(m, "static", False, summary, ml, fallback=reason)


def _secs(s: float) -> str:
    return f"{s:.1f} s" if s >= 1 else f"{1000 * s:.0f} ms"


def _signed(v: int) -> str:
    return f"{v:+d}"
