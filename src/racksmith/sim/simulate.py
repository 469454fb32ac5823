"""Monte Carlo simulation of a position's best candidate plays, ranked by win chance.

:func:`simulate` (also :meth:`Position.simulate <racksmith.core.position.Position.simulate>`)
takes the ``candidates`` best plays by static equity, and for each of many iterations deals the
unseen tiles (the opponent's rack — known, drawn from an inference result, or random, its known
tiles kept when it is known in part — and the bag order), plays each candidate, then ``plies``
turns of best-equity replies, and values the end: spread plus the leave values of the last two
moves, turned into a win chance by the ruleset's win% table (:mod:`racksmith.sim.winpct`). The
i-th iteration of every candidate sees the same tiles (common random numbers). Which candidate
gets the next iteration, and when to stop, is decided by best-arm identification
(docs/ALGORITHM.md §15, run in the kernel as
:class:`racksmith.sim._sim.Sampler`); iteration and time limits bound the run. Each candidate also
reports what its play-outs played at each ply (:class:`PlyStats`: mean score and its deviation,
bingo fraction, counts of passes, exchanges, placements and bingos, as MAGPIE's per-ply columns).

The play-outs run in the compiled kernel :mod:`racksmith.sim._sim` without the GIL, in batches of
:data:`BATCH` samples split over ``threads`` threads (one thread: chosen, run and fed to the
sampler in one kernel call, :meth:`Playouts.step <racksmith.sim._sim.Playouts.step>`); the samples
of a batch are chosen before it runs and their results depend only on (candidate, iteration,
seed), so a run gives the same result for any number of threads (a time limit aside).
"""
from __future__ import annotations

import math
import os
import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, SupportsInt

import numpy as np

from .. import _args
from .._interrupt import check_event
from .infer import MIN_KEPT_DEALS
from ..core.move import Move
from ..core.position import LeavesLike
from ..errors import PositionRefused, SimError
from ..lexicon import Lexicon
from ..movegen._movegen import BoardState
from ..lexicon.shipped_leaves import default_leaves
from ..movegen.generate import _leaves, _tables, play_score_bound
from ..movegen.movelist import RECLAIM_KIND
from ..rules.alphabet import BLANK, THROUGH
from ..rules.symmetry import listed_opening, opening_mirror
from .winpct import WinPct, borrowed_note, load_winpct

if TYPE_CHECKING:  # pragma: no cover
    from ..core.position import Position
    from ._sim import Sampler
    from .infer import Inference

#: samples chosen and run per batch (fixed, so that results do not depend on the thread count)
BATCH = 32
#: the total iterations when neither ``iterations`` nor ``seconds`` is given
DEFAULT_ITERATIONS = 5000
#: the fewest samples of each candidate before best-arm identification starts
DEFAULT_MIN_SAMPLES = 30
#: each candidate's win-chance variance (raced with, and behind its standard error) is that of its
#: play-outs with this many pseudo-play-outs at 0 and as many at 1 added (Jeffreys' prior): a play
#: whose first play-outs all came out alike is not taken for certain (docs/ALGORITHM.md §15)
VARIANCE_PRIOR = 0.5
#: the play-outs hold each score within this, either way (sim/_sim.pyx)
MAX_SCORE = 1 << 28
#: the play-outs' scores are 32-bit (sim/_sim.pyx): each score and the spread, from the scores now
#: through every ply at the most one play could score, stay within this (check_score_range)
MAX_PLAYOUT_SCORE = (1 << 31) - 1
#: the unseen tiles (bag and opponent's rack) the play-outs draw from, at most (the kernel's MAX_POOL)
MAX_UNSEEN = 1024
#: the tallies of the replies' scores and of their squares are 64-bit integers (the variance exact):
#: a play gets no more play-outs than keep its squares within this (most_playouts)
MAX_TALLY = (1 << 63) - 1
#: a win chance within this of 0 or of 1 is a decided game (MAGPIE's ``-cutoff``, 0.005 points of
#: win%): plays whose win chances are both so decided, or equal, are ranked by equity, and the
#: confidence race stops once its leader's is (``stopped = "decided"``)
WIN_CUTOFF = 0.00005
#: the play-outs every candidate needs before the run can stop as decided: a play that wins one
#: play-out in 100 shows a win in 300 with 95% probability (MAGPIE stops after its first phase, at
#: 30 a play, where such a play shows none three times in four)
DECIDED_SAMPLES = 300
#: MAGPIE's grades of a play by win% lost: within 0.5 points, 3, 7, and beyond
GRADES = ((0.5, "best"), (3.0, "inaccuracy"), (7.0, "mistake"), (math.inf, "blunder"))




@dataclass(frozen=True, slots=True)
class PlyStats:
    """What one simulated play's play-outs played at one ply, as MAGPIE's per-ply columns: ``ply``
    1 is the opponent's reply to the play, 2 the reply to that, and so on. Over the play-outs that
    reached the ply (a game that ended before it counts in none; :attr:`reached`): the mean score
    of the move played there, its standard deviation (the sample's, over n - 1, as MAGPIE's), the
    fraction of them that were bingos (placements of a full rack, 0..1) and the counts of passes,
    exchanges, placements and bingos. A mean no play-out made known is ``nan``, and so is the
    deviation of fewer than two (``null`` in :meth:`to_dict`)."""

    ply: int
    mean_score: float
    score_stdev: float
    bingo_fraction: float
    passes: int
    exchanges: int
    placements: int
    bingos: int

    @property
    def reached(self) -> int:
        """The play-outs that reached this ply: its passes, exchanges and placements."""
        return self.passes + self.exchanges + self.placements

    @classmethod
    def from_tally(cls, ply: int, row: "Iterable[SupportsInt]") -> "PlyStats":
        """The statistics of one row of the kernel's ``ply_tallies``: passes, exchanges, placements,
        bingos, the sum of the scores and of their squares (integers: the variance is exact until
        it is divided)."""
        passes, exchanges, placements, bingos, total, squares = (int(x) for x in row)
        n = passes + exchanges + placements
        mean = total / n if n else math.nan
        spread = n * squares - total * total  # (never below 0 for true tallies: a row that overflowed is not known)
        stdev = math.sqrt(spread / (n * (n - 1))) if n > 1 and spread >= 0 else math.nan
        return cls(ply, mean, stdev, bingos / n if n else math.nan, passes, exchanges, placements, bingos)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "mean_score": _known(self.mean_score),
            "score_stdev": _known(self.score_stdev),
            "bingo_fraction": _known(self.bingo_fraction),
            "passes": self.passes,
            "exchanges": self.exchanges,
            "placements": self.placements,
            "bingos": self.bingos,
            "reached": self.reached,
        }


@dataclass(frozen=True, slots=True)
class SimCandidate:
    """One simulated play: its mean win chance (percent) and equity (spread change plus leftover,
    in points), the standard errors of the win chance (percent points: from the variance the
    sampler races with, its play-outs with half a play-out at 0% and half at 100% added —
    :data:`VARIANCE_PRIOR` — so that play-outs all won are not shown as ±0.00; the samples' own
    where every play-out is certain) and of the equity (points, ``equity_stderr``, the samples'
    own, as MAGPIE and Quackle show it) and its iterations. A play
    no play-out reached (a run stopped early) has ``nan`` for its win chance and equity, and one
    with fewer than two play-outs ``nan`` for its standard error (``null`` in :meth:`to_dict`):
    not known, rather than 0. ``ply_stats``: what its play-outs played at each ply, one
    :class:`PlyStats` a ply (the first the opponent's reply)."""

    move: Move
    win_pct: float
    equity: float
    stderr: float
    iterations: int
    static_equity: float
    equity_stderr: float = math.nan
    ply_stats: tuple[PlyStats, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "move": self.move.notation(),
            "win_pct": _known(self.win_pct),
            "equity": _known(self.equity),
            "stderr": _known(self.stderr),
            "equity_stderr": _known(self.equity_stderr),
            "iterations": self.iterations,
            "ply_stats": [p.to_dict() for p in self.ply_stats],
        }


def _plural(n: int, word: str, words: "str | None" = None) -> str:
    """``1 play``, ``2 plays``, ``1,000 iterations``."""
    return f"{n:,} {word if n == 1 else words or word + 's'}"


def _known(x: float) -> "float | None":
    """A figure for JSON: rounded, or None when it is not known (nan)."""
    return None if math.isnan(x) else round(x, 4)


@dataclass(frozen=True, slots=True)
class SimResult:
    """The candidates, best first (by win chance, then equity; two win chances both within
    :data:`WIN_CUTOFF` of 0, or of 1, rank as equal), and how the run ended: ``stopped`` is
    ``"confidence"`` (best-arm identification is sure of the best at the ``stop`` level),
    ``"decided"`` (the best play's win chance is within :data:`WIN_CUTOFF` of 0 or of 1: the game
    is decided, and the plays so decided are ranked by equity), ``"iterations"`` (also when a
    play reached the most play-outs its 64-bit tallies hold, :func:`most_playouts`, on a user
    ruleset of huge scores: ``note`` then says so), ``"time"`` or
    ``"interrupted"``. ``opponent_rack``: where the
    opponent's rack came from — ``"known"`` (the position gives it, or with the bag empty it is
    certain: the unseen tiles, with the tiles of it known), ``"inferred"`` (drawn from the
    leaves of ``opponent_racks``), ``"partial"`` (known in part, :attr:`Position.racks_partial
    <racksmith.core.position.Position.racks_partial>`: its known tiles and the rest drawn from the
    unseen tiles) or ``"unseen"`` (drawn from the unseen tiles); ``note``: why, when that is not
    what was asked for (an inference that kept no leave, or one not used for a rack known in part
    or certain),
    and which tiles were kept of a rack known in part, else None."""

    candidates: tuple[SimCandidate, ...]
    iterations: int
    stopped: str
    seconds: float
    plies: int
    seed: int
    threads: int = 1
    opponent_rack: str = "unseen"
    note: str | None = None

    @property
    def best(self) -> SimCandidate:
        """The best candidate (``candidates[0]``); its move is :attr:`best_move`."""
        return self.candidates[0]

    @property
    def best_move(self) -> Move:
        """The best play itself, as :attr:`EndgameResult.best <racksmith.search.endgame.EndgameResult>`
        and :attr:`PegResult.best_move <racksmith.search.peg.PegResult.best_move>` give theirs."""
        return self.candidates[0].move

    def __repr__(self) -> str:
        # one line: the run and its best play (the dataclass's repr listed every candidate's per-ply figures)
        head = (f"<SimResult {_plural(len(self.candidates), 'candidate')}, {_plural(self.plies, 'ply', 'plies')}, "
                f"{_plural(self.iterations, 'iteration')} ({self.stopped})")
        if not self.candidates:
            return head + ">"
        best = self.best
        win = "-" if math.isnan(best.win_pct) else f"{best.win_pct:.1f}%"
        error = "" if math.isnan(best.stderr) else f" ±{best.stderr:.1f}"
        return f"{head}, best {best.move.notation()} win {win}{error}>"

    def _repr_html_(self) -> str:
        """The candidates as ``racksmith sim`` shows them: win%, its standard error, equity and
        its standard error, static equity and play-outs, best first."""
        from ..formats import html

        rows = ((i, c.move.notation(), html.figure(c.win_pct), html.figure(c.stderr), html.signed(c.equity),
                 html.figure(c.equity_stderr), f"{c.static_equity:.1f}", c.iterations)
                for i, c in enumerate(self.candidates, 1))
        caption = (f"simulation: {self.iterations:,} iterations, {self.seconds:.1f} s ({self.stopped}), "
                   f"{_plural(self.plies, 'ply', 'plies')}")
        t = html.table(("#", "move", "win%", "± s.e.", "equity", "± s.e.", "static", "iters"), rows,
                       right=range(2, 8), caption=caption, total=len(self.candidates))
        rack = {"known": "known", "inferred": "drawn from the inference", "unseen": "drawn from the unseen tiles",
                "partial": "known in part, the rest drawn from the unseen tiles"}
        tail = html.text(f"seed {self.seed}; the opponent's rack {rack.get(self.opponent_rack, self.opponent_rack)}"
                         + (f" ({self.note})" if self.note else ""))
        return html.block(t, tail)

    def to_dict(self) -> dict[str, Any]:
        return {
            "iterations": self.iterations,
            "stopped": self.stopped,
            "seconds": round(self.seconds, 4),
            "plies": self.plies,
            "seed": self.seed,
            "opponent_rack": self.opponent_rack,
            "note": self.note,
            "candidates": [c.to_dict() for c in self.candidates],
        }


def similarity_key(move: Move) -> tuple:
    """Plays that are effectively the same share a key (MAGPIE's rule): the same kind, squares and
    direction, the same multiset of tiles from the rack (a blank counted as a blank) and the same
    score. Anagrams on the same squares that score differently (5C PER 21, 5C REP 19) are not."""
    if move.kind == "place":
        played = sorted(0 if t & BLANK else t for t in move.tiles if not t & THROUGH)
        return ("place", move.row, move.col, move.across, len(move.tiles), tuple(played), move.score)
    if move.kind == "exchange":
        return ("exchange", tuple(sorted(move.tiles)))
    return ("pass",)


def grade(win_pct_lost: float) -> str:
    """MAGPIE's grade of a play that loses ``win_pct_lost`` points of win% against the best."""
    for limit, name in GRADES:
        if win_pct_lost <= limit:
            return name
    return GRADES[-1][1]  # pragma: no cover


def check_scores(scores) -> None:
    """Refuse scores the play-outs cannot hold: each within MAX_SCORE either way (no real game
    comes near)."""
    for who, score in zip(("our", "their"), scores):
        if not -MAX_SCORE <= score <= MAX_SCORE:
            raise PositionRefused(f"cannot simulate this position: {who} score must be a whole number "
                           f"-{MAX_SCORE}..{MAX_SCORE}, got {score}")


def check_score_range(position: "Position", plies: int, play: float) -> None:
    """Refuse a position whose play-outs could carry a score past their 32 bits (a user ruleset of
    huge tile values or word multipliers; no shipped one comes near): the largest of the scores
    and their difference now, ``plies`` + 1 moves (the candidate and the replies) each scoring
    ``play`` (:func:`~racksmith.movegen.generate.play_score_bound`), and the end of the game
    (twice a full rack of the highest tile value) must stay within :data:`MAX_PLAYOUT_SCORE`."""
    rs = position.ruleset
    ours, theirs = (int(x) for x in position.scores[:2])
    now = max(abs(ours), abs(theirs), abs(ours - theirs))
    end = 2 * max(rs.rack_size, *position.rack_sizes) * max(rs.values)
    most = now + (plies + 1) * play + end
    if most <= MAX_PLAYOUT_SCORE:
        return
    fits = int((MAX_PLAYOUT_SCORE - now - end) // play) - 1 if play else 0
    ways = ([f"simulate fewer plies (at most {fits})"] if fits >= 1 else []) + (["lower the scores"] if now else [])
    ways.append("lower the ruleset's tile values, word multipliers or rack size")
    raise PositionRefused(
        f"cannot simulate this position: on the {rs.name} board a play could score up to {play:,.0f} points, and "
        f"{_plural(plies, 'ply', 'plies')} of play-outs from scores of {ours:,} and {theirs:,} could reach {most:,.0f}, "
        f"beyond the {MAX_PLAYOUT_SCORE:,} they hold: {', '.join(ways[:-1])}{', or ' if len(ways) > 1 else ''}{ways[-1]}"
    )


def most_playouts(play: float) -> int | None:
    """The most play-outs a play may get when a move can score ``play`` points: the tallies of
    its replies' squares (64-bit integers, :attr:`Playouts.ply_tallies <racksmith.sim._sim.Playouts.ply_tallies>`)
    stay within :data:`MAX_TALLY`; None when no score could make them pass it."""
    if play < 1:
        return None
    return int(MAX_TALLY // (int(play) ** 2))


def _positive_int(value, name: str, allow_none: bool = True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise SimError(f"{name} must be a whole number, at least 1{' (or None)' if allow_none else ''}, got {value!r}")
    return int(value)


def check_options(*, candidates: Any = 10, plies: Any = 2, iterations: Any = None, threads: Any = 1,
                  seconds: Any = None, stop: Any = None, opponent_racks: Any = None, seed: Any = None,
                  min_samples: Any = None, round_robin: Any = False) -> tuple[int, int, int | None, int, int | None]:
    """The simulation's options checked (:func:`simulate` says what each is), each bad one a
    :class:`~racksmith.errors.SimError` naming it: (candidates, plies, iterations, threads, seed)
    as ints. The simulating player and ``best_play`` check theirs here before any position calls
    for a simulation."""
    n_cands = _positive_int(candidates, "candidates", False)
    if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) or not 1 <= plies <= 32:
        raise SimError(f"plies must be a whole number 1..32, got {plies!r}")
    iterations = _positive_int(iterations, "iterations")
    threads = _positive_int(threads, "threads", False)
    if threads > 64:
        raise SimError(f"threads must be at most 64, got {threads}")
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or seconds <= 0:
            raise SimError(f"seconds must be a positive number (or None), got {seconds!r}")
    if stop is not None:
        if isinstance(stop, bool) or not isinstance(stop, (int, float)) or not 0.5 <= stop < 1:
            raise SimError(f"stop must be a confidence 0.5 <= stop < 1 (e.g. 0.99) or None, got {stop!r}")
    if opponent_racks is not None:
        from .infer import Inference

        if not isinstance(opponent_racks, Inference):
            raise SimError(f"opponent_racks must be what infer_leaves() returns, got {type(opponent_racks).__name__} "
                           f"{opponent_racks!r:.40}; a rack you know goes in the position itself (its racks, or the CGP's)")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
            raise SimError(f"seed must be a whole number 0..2**64-1 (or None), got {seed!r}")
        seed = int(seed)
    if min_samples is not None:
        _positive_int(min_samples, "min_samples", False)
    _args.flag(round_robin, "round_robin", SimError)
    return n_cands, int(plies), iterations, threads, seed


#: why a position whose player to move has a rack not known cannot be simulated or solved
UNKNOWN_MOVER = ("the rack of the player to move is not known, so neither are his plays: give it (the CGP's first "
                 "rack), or push the opponent's move to come to your turn")


def simulate(
    position: "Position",
    candidates: int = 10,
    plies: int = 2,
    iterations: int | None = None,
    seconds: float | None = None,
    threads: int = 1,
    seed: int | None = None,
    stop: float | None = 0.99,
    opponent_racks: "Inference | None" = None,
    *,
    leaves: "LeavesLike | None" = "shipped",
    winpct: "WinPct | str | os.PathLike[str] | None" = None,
    moves: Sequence[Move] | None = None,
    min_samples: int | None = None,
    round_robin: bool = False,
    progress: Callable[[SimResult], None] | None = None,
    progress_every: float = 0.25,
    cancel: threading.Event | None = None,
) -> SimResult:
    """Simulate the ``candidates`` best plays of ``position`` by static equity (or the given
    ``moves``) and rank them by win chance. See the module docstring.

    ``plies``: replies after each candidate (1..32). ``iterations``: the most samples in all
    (default :data:`DEFAULT_ITERATIONS` when ``seconds`` is not given either); ``seconds``: a time
    limit on the whole call, counted from its start (``result.seconds`` too): the setting up
    (the candidates, the tables; the first call in a process also loads the word maps, the leaves
    and the win% table) and the play-outs, which get what is left (none when the setting up used it
    all: the plays are then ranked by static equity, no play-out run). ``threads``: threads
    running the play-outs. ``seed``: None for a random one (reported in the result). ``stop``: the confidence at which best-arm identification stops (0.5 <= stop < 1, e.g.
    0.99), or None to run to the limits. ``opponent_racks``: an :class:`~racksmith.sim.infer.Inference`
    whose leaves the opponent's rack is drawn from (one that kept no leave,
    :attr:`~racksmith.sim.infer.Inference.learned_nothing`, says nothing of it: his rack is then
    drawn from the unseen tiles, as without one, and the result's ``note`` says so). An opponent's
    rack known in part (:attr:`Position.racks_partial <racksmith.core.position.Position.racks_partial>`,
    ``EEIIORS/DY`` mid-game) keeps its known tiles in every play-out, the rest drawn from the unseen
    tiles (``opponent_rack`` ``"partial"``); an inference is not used for it (it does not take
    the tiles known into account), and the ``note`` says so. ``leaves``:
    the leave values of every player: ``"shipped"`` (the default: the ruleset's shipped leaves,
    as :func:`~racksmith.review.best.best_play` and the CLI use), a :class:`~racksmith.lexicon.Leaves`,
    a shipped set's name or a KLV2 path; None: every leave 0. ``winpct``: the
    win% table (default: the ruleset's, :func:`~racksmith.sim.winpct.load_winpct`).
    With a single play, or plays all similar (:func:`similarity_key`: never raced against each
    other), there is no best to identify: ``stop`` is ignored and the run goes to
    ``iterations`` or ``seconds``. ``min_samples``: samples of every candidate before the race starts, and so before it can stop on
    confidence (default 30: an ``iterations`` budget below 30 a candidate is shared out evenly). ``round_robin``: sample the candidates in turn instead of
    by best-arm identification (for benchmarks: MAGPIE's ``-sr rr``). ``progress(partial_result)`` is called about every
    ``progress_every`` seconds, on the caller's thread between two batches (the play-outs wait for
    it): its time counts against ``seconds``, a report the last one's time says would end past the
    limit is not made, and a last call with the result comes once the play-outs have stopped
    (after ``result.seconds`` was taken: a slow callback delays the return by its own time);
    setting ``cancel`` ends the run after the current batch (``stopped = "interrupted"``). A user ruleset whose plays score so much that the play-outs'
    32-bit scores could overflow is refused (:func:`check_score_range`), and one whose replies'
    squares could overflow the 64-bit tallies gives each play at most :func:`most_playouts`."""
    from ..core.position import Position

    t0 = time.perf_counter()  # the time limit and the time reported count the setting up too
    if not isinstance(position, Position):
        raise SimError(f"simulate needs a Position, got {type(position).__name__}")
    n_cands, plies, iterations, threads, seed = check_options(
        candidates=candidates, plies=plies, iterations=iterations, threads=threads, seconds=seconds, stop=stop,
        opponent_racks=opponent_racks, seed=seed, min_samples=min_samples, round_robin=round_robin)
    _args.callback(progress, "progress", SimError)
    progress_every = _args.seconds(progress_every, "progress_every", SimError, none=False)
    check_event(cancel, SimError)
    if moves is not None and (isinstance(moves, (str, bytes)) or not isinstance(moves, Iterable)):
        raise SimError(f"moves must be a list of moves (Move objects or their notation) or None, got {_args.show(moves)}"
                       + (": a single move goes in a list" if isinstance(moves, str) else ""))
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little")
    if iterations is None and seconds is None:
        iterations = DEFAULT_ITERATIONS
    _check_position(position)
    check_scores(position.scores)
    dropped = None
    if position.bag_count == 0 and not all(position.racks_known):
        # the bag empty, a rack the position does not give is certain (the mover's is, checked
        # above, and then the opponent's too): the play-outs take the racks as moves() and the
        # endgame do, both of them known
        if opponent_racks is not None and not position.racks_known[1]:
            dropped = (f"the bag is empty, so the opponent's rack is certain (the unseen tiles): the inference from "
                       f"{opponent_racks.play} is not used")
            opponent_racks = None
        position = position._resolved()
    rs = position.ruleset
    lexicon = position.lexicon
    if not isinstance(lexicon, Lexicon):
        raise SimError(f"simulation needs a KWG lexicon, got {type(lexicon).__name__}")
    play = play_score_bound(rs, lexicon.longest)
    check_score_range(position, plies, play)
    cap = most_playouts(play)
    leave_values = default_leaves(rs) if isinstance(leaves, str) and leaves == "shipped" else _leaves(leaves, rs)
    table = load_winpct(winpct if winpct is not None else rs)
    tables, total = _tables(rs, lexicon, leave_values)
    rules = tables.rules

    # the candidates
    if moves is None:
        ml = position.moves(top=n_cands, sort="equity", leaves=leave_values, exchanges=True)
        cand_moves = list(ml)
        recs = np.ascontiguousarray(ml.to_numpy()[:n_cands].copy())
        if ending_pass(position) and not any(m.kind == "pass" for m in cand_moves):
            # a pass that ends the game (the static ranking's pass penalty keeps it out of the
            # candidates) may be the best play: a lead kept with a low rack
            more, more_recs = _given(position, [Move.pass_(rs.alphabet)], leave_values)
            cand_moves += more
            recs = np.ascontiguousarray(np.concatenate([recs, more_recs]))
    else:
        cand_moves, recs = _given(position, moves, leave_values)
    reclaimed = _reclaimed(rs, cand_moves, recs)
    cand_leave = np.array(
        [leave_values.value_tiles(list(m.leave)) if leave_values is not None and m.leave else 0.0 for m in cand_moves],
        dtype=np.float64,
    )
    keys = [similarity_key(m) for m in cand_moves]

    # the tiles
    opponent, unseen, inferred, opponent_rack, note = _opponent_tiles(position, opponent_racks)
    borrowed = borrowed_note(rs, winpct)  # (a ruleset with no table of its own: the one it uses, said)
    if borrowed is not None or dropped is not None:
        note = "; ".join(filter(None, (note, dropped, borrowed)))
    sizes = position.rack_sizes
    board = BoardState(rules)
    board.set(np.ascontiguousarray(position.board, dtype=np.uint8))
    from concurrent.futures import ThreadPoolExecutor

    from ._sim import Playouts, Sampler

    try:
        kernel = Playouts(
            rules, tables.leave_table, board, bytes(position.racks[0]), opponent, unseen, sizes[1],
            (int(position.scores[0]), int(position.scores[1])), int(position.zero_turns),
            (int(rs.exchange_limit), int(rs.zero_turn_limit), 1 if rs.end_rule == "tournament" else 0),
            recs, cand_leave, np.ascontiguousarray(table.table, dtype=np.float64), int(plies), seed, inferred, threads,
            reclaimed=reclaimed,
        )
    except ValueError as e:
        raise PositionRefused(f"cannot simulate this position: {e}") from None

    n = len(cand_moves)
    # the race starts once every candidate has min_samples play-outs; below that a budget is shared
    # out evenly (a race on one or two samples an arm would take a variance of 0 for certainty)
    ms = min_samples if min_samples is not None else DEFAULT_MIN_SAMPLES
    ms = _positive_int(ms, "min_samples", False)
    ms = min(ms, 1 << 62)  # the same as no race at all: the kernel's counts never reach it
    key_ids: dict[tuple, int] = {}
    # one play, or plays all similar (never raced against each other), have no rival to be sure
    # of: the confidence stop would end the run at min_samples (30 play-outs for "what is this
    # play's win%?"); it runs to the limits instead, the plays sampled in turn
    if len(set(keys)) == 1:
        stop = None
    bai = Sampler(n, (1 - stop) if stop is not None else None, ms,
                  np.array([key_ids.setdefault(k, len(key_ids)) for k in keys], np.int32),
                  random.Random(f"racksmith-sim:{seed}").getstate()[1], bool(round_robin),
                  _prior(position, plies, opponent_rack))
    deadline = t0 + seconds if seconds is not None else math.inf
    last = time.perf_counter()  # (the first progress report comes progress_every after the play-outs begin)
    took = 0.0  # how long the last progress call took
    stopped = "iterations"
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None

    def snapshot(reason: str) -> SimResult:
        return _result(cand_moves, bai, recs, reason, time.perf_counter() - t0, plies, seed, threads, opponent_rack, note,
                       kernel.ply_tallies)

    try:
        while True:
            if iterations is not None and bai.total >= iterations:
                stopped = "iterations"
                break
            if time.perf_counter() >= deadline:  # (the setting up and the progress calls counted)
                stopped = "time"
                break
            if cancel is not None and cancel.is_set():
                stopped = "interrupted"
                break
            k = BATCH if iterations is None else min(BATCH, iterations - bai.total)
            if cap is not None and bai.total_requested + k > cap:
                room = cap - max(bai.requested)  # (a play's squares tallied past this could overflow)
                if room <= 0:
                    stopped = "iterations"
                    note = "; ".join(filter(None, (note, _capped(rs, lexicon, play, cap))))
                    break
                k = min(k, room)
            if pool is None:
                done = kernel.step(bai, k)  # choose, run and feed the batch without the interpreter
            else:
                arms, its = bai.select(k)
                win = np.empty(k, np.float64)
                eq = np.empty(k, np.float64)
                replies = np.empty((k, plies, 3), np.int32)
                bounds = np.linspace(0, k, threads + 1).astype(int)
                futures = [
                    pool.submit(kernel.run, t, arms[lo:hi], its[lo:hi], win[lo:hi], eq[lo:hi], replies[lo:hi])
                    for t, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:]))
                    if hi > lo
                ]
                for f in futures:
                    f.result()
                fed = bai.total
                done = bai.feed(arms, win, eq)
                kernel.add_plies(arms, replies, bai.total - fed)  # the replies of the samples fed, as step() tallies
            if done:
                stopped = "confidence"
                break
            if stop is not None and _decided(bai, ms):
                stopped = "decided"
                break
            now = time.perf_counter()
            # a report that would end past the deadline, by the time the last one took, is left to
            # the final one: the run stops at the deadline, the reports' time included
            if progress is not None and now - last >= progress_every and now + took < deadline:
                last = now
                progress(snapshot("running"))
                took = time.perf_counter() - now
    finally:
        if pool is not None:
            pool.shutdown()
    result = snapshot(stopped)
    if progress is not None:
        progress(result)
    return result


def _capped(rs, lexicon: Lexicon, play: float, cap: int) -> str:
    """Why a run stopped at the most play-outs a play may get (:func:`most_playouts`)."""
    return (f"stopped at {_plural(cap, 'play-out')} of a play: on the {rs.name} board with lexicon "
            f"{lexicon.name or '?'} a reply could score up to {play:,.0f} points, and the tallies of their squares "
            "would pass 64 bits beyond that (lower the ruleset's tile values or word multipliers for more)")


def _decided(bai: "Sampler", min_samples: int) -> bool:
    """Whether the race's leader, every candidate sampled ``min_samples`` and
    :data:`DECIDED_SAMPLES` times, has a win chance within :data:`WIN_CUTOFF` of 0 or of 1: no play
    wins more, or every play loses, and the plays so decided are ranked by equity
    (:func:`_win_rank`)."""
    count = bai.count
    if min(count) < max(min_samples, DECIDED_SAMPLES):
        return False
    best = max(s / c for s, c in zip(bai.sum, count))
    return best <= WIN_CUTOFF or best >= 1 - WIN_CUTOFF


def _win_rank(win_pct: float) -> float:
    """A win chance (in percent) as it ranks: within :data:`WIN_CUTOFF` of 0 or of 1 it is 0 or 1,
    so that plays both so decided are ranked by equity (as MAGPIE compares simmed plays)."""
    if win_pct <= 100.0 * WIN_CUTOFF:
        return 0.0
    if win_pct >= 100.0 * (1 - WIN_CUTOFF):
        return 100.0
    return win_pct


def _prior(position: "Position", plies: int, opponent_rack: str) -> float:
    """The sampler's pseudo-play-outs (:data:`VARIANCE_PRIOR`); none where every play-out of a play
    comes out the same: the opponent's rack known (as it is with the bag empty) and no draw that
    matters — the bag empty, or one ply (his reply to a rack we know; what either of us draws
    after it is not valued)."""
    certain = opponent_rack == "known" and (plies == 1 or position.bag_count == 0)
    return 0.0 if certain else VARIANCE_PRIOR


def win_variance(count: int, total: float, squares: float, prior: float) -> float:
    """The variance of a play's win chances (``count`` samples, their sum and sum of squares) with
    ``prior`` pseudo-samples at 0 and as many at 1 added: what the sampler races with
    (:class:`~racksmith.sim._sim.Sampler`), in the same order of operations, but without its floor."""
    n = count + 2 * prior
    mean = (total + prior) / n
    return max((squares + prior) / n - mean * mean, 0.0)


def _opponent_tiles(position: "Position", opponent_racks: "Inference | None"):
    """What the play-outs deal the opponent, as :class:`~racksmith.sim._sim.Playouts` takes it:
    (his rack when known, else None; the tiles dealt from: the unseen ones, and the known part of
    a rack known in part; the leaves dealt him first: an inference's, or the known part of his
    rack, else None; where his rack comes from, :attr:`SimResult.opponent_rack`; the note)."""
    rs = position.ruleset
    known = position.racks_known
    opponent = bytes(position.racks[1]) if known[1] else None
    if opponent is not None and opponent_racks is not None:
        raise SimError("the opponent's rack is known in this position: opponent_racks is for an unknown rack")
    unseen = bytes(position.unseen_tiles())
    inferred = None
    opponent_rack = "known" if opponent is not None else "unseen"
    note = None
    if position.racks_partial[1]:
        # known in part: its known tiles dealt him in every play-out (as the kernel deals a leave
        # of an inference: out of the tiles dealt from), the rest drawn from the unseen tiles
        part = position.racks[1]
        inferred = _known_part(part)
        unseen += bytes(part)
        opponent_rack = "partial"
        shown = rs.alphabet.rack_string(part, blanks_last=True)
        note = (f"the opponent's rack is known in part: {shown}, kept in every play-out, and "
                f"{position.rack_sizes[1] - len(part)} tiles drawn from the unseen ones")
        if opponent_racks is not None:
            note += (f"; the inference from {opponent_racks.play} is not used (it does not take the tiles known "
                     "into account)")
    elif opponent_racks is not None:
        if opponent_racks.learned_nothing:
            why = ("no rack he could have held makes it one of his best plays" if opponent_racks.exact else
                   f"none of the {opponent_racks.samples:,} racks dealt at random of the "
                   f"{opponent_racks.racks_total:,} he could have held makes it one of his best plays")
            note = (f"the inference from {opponent_racks.play} kept no leave ({why}): the opponent's rack is "
                    "drawn from the unseen tiles, as without inference")
        elif opponent_racks.too_few:
            note = (f"the inference from {opponent_racks.play} kept only {opponent_racks.total_draws:,} of the "
                    f"{opponent_racks.samples:,} racks dealt at random (fewer than {MIN_KEPT_DEALS}: too few to draw "
                    "from; more time or samples deal more): the opponent's rack is drawn from the unseen tiles, as "
                    "without inference")
        else:
            inferred = opponent_racks.kernel_arrays(position)
            opponent_rack = "inferred"
    return opponent, unseen, inferred, opponent_rack, note


def _known_part(part) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The known tiles of an opponent's rack known in part as the kernel takes inferred leaves:
    one leave, of weight 1, that every play-out deals him."""
    from ..movegen._movegen import TILE_BITS

    tiles = np.zeros((1, TILE_BITS["MAX_RACK"]), np.uint8)
    tiles[0, : len(part)] = list(part)
    return tiles, np.array([len(part)], np.uint8), np.ones(1, np.float64)


def candidate_moves(position: "Position", moves: Iterable["Move | str"],
                    leaves: "LeavesLike | None" = "shipped") -> list[Move]:
    """The plays ``moves`` (Move objects or their notation) as :func:`simulate` takes them for its
    candidates: each the legal move of the player to move it names, with its static equity by
    ``leaves`` (as :func:`simulate`'s); a play that cannot be read, or is not legal here, is a
    :class:`~racksmith.errors.RacksmithError` naming it. The command line checks ``--move`` with
    it before anything long runs."""
    from ..core.position import Position

    if not isinstance(position, Position):
        raise SimError(f"candidate_moves needs a Position, got {type(position).__name__}")
    if isinstance(moves, (str, bytes)) or not isinstance(moves, Iterable):
        raise SimError(f"moves must be a list of moves (Move objects or their notation), got {_args.show(moves)}")
    _check_position(position)
    leave_values = default_leaves(position.ruleset) if isinstance(leaves, str) and leaves == "shipped" \
        else _leaves(leaves, position.ruleset)
    return _given(position, moves, leave_values)[0]


def ending_pass(position: "Position") -> bool:
    """Whether a pass by the player to move ends the game here (the ruleset's run of scoreless
    turns reached): :func:`simulate` then always has it among its candidates."""
    limit = position.ruleset.zero_turn_limit
    return limit > 0 and position.zero_turns + 1 >= limit


def _check_position(position: "Position") -> None:
    """Refuse a position that cannot be simulated: not two players, the game over, the mover's rack
    not known."""
    if len(position.racks) != 2:
        raise SimError(f"simulation is for two-player positions, this one has {len(position.racks)} racks")
    if position.is_over:
        raise SimError("the game is over: there is nothing to simulate")
    if position.inferred_racks()[0] is None:
        raise SimError(UNKNOWN_MOVER)


def _given(position: "Position", moves: Iterable["Move | str"], leave_values) -> tuple[list[Move], np.ndarray]:
    """The candidates ``moves`` of :func:`simulate` (or :func:`candidate_moves`): each resolved, then
    found among the legal moves by its record (only the moves found are made into Move objects),
    with their records for the kernel."""
    cand_moves = [position.resolve(m) if not isinstance(m, Move) or m.score is None else m for m in moves]
    if not cand_moves:
        raise SimError("moves is empty: give at least one move to simulate")
    ml = position.moves(sort="equity", leaves=leave_values, exchanges=True)
    finder = _Finder(ml)
    rows = [finder.row(m) for m in cand_moves]
    # a down opening: the list holds its across mirror, simulated as it was asked for (down)
    down = [r is None and listed_opening(position, m) for m, r in zip(cand_moves, rows)]
    rows = [finder.row(opening_mirror(m)) if d else r for m, r, d in zip(cand_moves, rows, down)]
    missing = [m for m, r in zip(cand_moves, rows) if r is None]
    if missing:
        raise SimError(_not_legal(position, missing))
    at = [r for r in rows if r is not None]  # (every one)
    recs = np.ascontiguousarray(ml.to_numpy()[at].copy())
    cand_moves = [opening_mirror(ml[i]) if d else ml[i] for i, d in zip(at, down)]
    flip = np.flatnonzero(down)
    recs["row"][flip], recs["col"][flip] = recs["col"][flip].copy(), recs["row"][flip].copy()
    recs["dir"][flip] = 1
    return cand_moves, recs


def _not_legal(position: "Position", moves: list[Move]) -> str:
    """The message of candidates that are not legal moves of the player to move, each with its
    reason (:func:`~racksmith.core.validation.why_not_legal`), on one line."""
    from ..core.validation import why_not_legal

    return f"not legal for the player to move here: {why_not_legal(position, moves)}"


class _Finder:
    """Where a move is in a move list, by the columns of its records (no Move is made for the
    others): a placement by its kind, square, direction and tiles (and the stars it takes back), an
    exchange by the tiles it gives back in any order, the pass by its kind. The first (best)
    record that is the move; None when none is."""

    def __init__(self, ml):
        self.ml = ml
        self.recs = r = ml.to_numpy()
        self.kind = r["kind"]
        self.length = r["length"]

    def row(self, m: Move) -> "int | None":
        r, kind = self.recs, self.kind
        if m.kind == "pass":
            hits = np.flatnonzero(kind == 2)
            return int(hits[0]) if len(hits) else None
        n = len(m.tiles)
        if n > r["tiles"].shape[1]:
            return None
        want = np.array(m.tiles, dtype=np.uint8)
        if m.kind == "exchange":
            hits = np.flatnonzero((kind == 1) & (self.length == n))
            if not len(hits):
                return None
            same = (np.sort(r["tiles"][hits, :n], axis=1) == np.sort(want)).all(axis=1)
            hits = hits[same]
            return int(hits[0]) if len(hits) else None
        hits = np.flatnonzero(((kind == 0) | (kind == RECLAIM_KIND)) & (r["row"] == m.row) & (r["col"] == m.col)
                              & (r["dir"] == (0 if m.across else 1)) & (self.length == n))
        if not len(hits):
            return None
        hits = hits[(r["tiles"][hits, :n] == want).all(axis=1)]
        stars = sorted(m.reclaimed)
        for i in hits.tolist():
            if sorted(self.ml.reclaimed(i)) == stars:
                return i
        return None


def _reclaimed(rs, cand_moves: list[Move], recs: np.ndarray) -> "np.ndarray | None":
    """With star reclamation, the squares of the stars each candidate takes back (the play-outs'
    ``reclaimed``), its records turned into plain placements; None for a ruleset without."""
    if not rs.star_reclamation:
        return None
    from ..play import _gameloop

    most = _gameloop.MAX_KERNEL_STARS
    if rs.counts[0] > most:
        raise PositionRefused(f"simulation takes stars back from a set of at most {most} blanks; "
                       f"ruleset {rs.name} has {rs.counts[0]}")
    out = np.full((len(cand_moves), most), -1, dtype=np.int16)
    for i, m in enumerate(cand_moves):
        for j, (r, c, _) in enumerate(sorted(m.reclaimed)):
            out[i, j] = r * rs.cols + c
    recs["kind"][recs["kind"] == RECLAIM_KIND] = 0
    return out


def _result(cand_moves, bai: "Sampler", recs, reason, seconds, plies, seed, threads, opponent_rack="unseen",
            note=None, tallies: "np.ndarray | None" = None) -> SimResult:
    out = []
    count, total, sumsq, eq_sum, eq_sumsq = bai.count, bai.sum, bai.sumsq, bai.eq_sum, bai.eq_sumsq
    prior = bai.prior
    per_ply = [tuple(PlyStats.from_tally(j + 1, row) for j, row in enumerate(t.tolist())) for t in tallies] \
        if tallies is not None else [()] * len(cand_moves)
    for i, m in enumerate(cand_moves):
        c = count[i]
        mean = total[i] / c if c else math.nan
        # the variance the race takes (with the pseudo-play-outs, over the play-outs and them less
        # one): no ±0.00 after 30 play-outs that all came out alike; without them the sample's
        se = math.sqrt(win_variance(c, total[i], sumsq[i], prior) * (c + 2 * prior) / (c + 2 * prior - 1) / c) \
            if c > 1 else math.nan
        eq = eq_sum[i] / c if c else math.nan
        eq_var = eq_sumsq[i] / c - eq * eq if c else math.nan
        eq_se = math.sqrt(max(eq_var, 0.0) / (c - 1)) if c > 1 else math.nan
        out.append(SimCandidate(m, 100.0 * mean, eq, 100.0 * se, c, float(recs[i]["equity"]), eq_se, per_ply[i]))
    # the plays simulated by win chance (a decided one's as 0 or 100: _win_rank), then equity; those
    # no play-out reached after them, by static equity
    order = sorted(range(len(out)), key=lambda i: (1, -out[i].static_equity, i) if not out[i].iterations
                   else (0, -_win_rank(out[i].win_pct), -out[i].equity, i))
    return SimResult(tuple(out[i] for i in order), bai.total, reason, seconds, plies, seed, threads, opponent_rack, note)
