"""Inference: what the opponent kept, given his last play (MAGPIE's inference).

The opponent held a full rack before his play: the tiles he played and a *leave* of
``rack_size - played`` tiles, drawn from the tiles we cannot see (the bag and his present rack:
what he kept and what he drew are among them) — or, when fewer tiles than that are unseen (the
bag was empty and his rack short), the tiles he played and every unseen tile. Every multiset of that size the unseen tiles can
supply is tried: the leave is kept when the play was a best play of that rack by static equity,
within ``margin`` points (``score + leave value + margin >= best equity``; or the leave exhausts the
unseen tiles); for an exchange of ``n`` tiles (whose tiles we do not see), when the best play of the
rack is an exchange of ``n`` tiles, and the leave is then what that exchange keeps. Each leave is
weighted by the number of ways it can be drawn from the unseen tiles (the product of binomial
coefficients ``C(unseen[t], leave[t])``) — and, for a placement, by the ways the whole rack (the
tiles played and the leave) could be drawn from the unseen tiles and the tiles played, which is that
times ``∏ C(unseen[t] + played[t], played[t]) / C(leave[t] + played[t], played[t])``: a leave
holding another copy of a letter played is less likely than its own draws say (MAGPIE counts the
leave's draws alone). Its probability is its share of the total weight: the posterior chance of
the leave given the play.

The enumeration and the move generation run in the compiled kernel (:func:`racksmith.sim._sim.infer_leaves`).
"""
from __future__ import annotations

import math
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _args
from .._interrupt import check_event, run_interruptibly
from ..core.move import Move
from ..core.position import LeavesLike
from ..core.turns import exchange_refusal
from ..errors import InferenceError, RacksmithError
from ..lexicon import Lexicon
from ..movegen._movegen import TILE_BITS, BoardState
from ..movegen.generate import _leaves, _tables
from ..rules.alphabet import BLANK, LETTER_MASK, THROUGH, Tiles

if TYPE_CHECKING:  # pragma: no cover
    from ..core.position import Position

#: the fewest deals a sampled inference must keep to be drawn from (:attr:`Inference.too_few`): fewer
#: would pin the opponent's rack on a handful of leaves (an exchange from a full bag keeps few: 8 to
#: 131 of 20,000 for 1 to 6 tiles after KRONA with the shipped English leaves, docs/ALGORITHM.md;
#: a time limit cut short on a loaded machine, a few)
MIN_KEPT_DEALS = 50

#: MAGPIE's default equity margin (points)
DEFAULT_MARGIN = 5.0
#: the margin is below this many points (any play is within a margin of this size)
MAX_MARGIN = 1e6
#: the most candidate leaves enumerated (a 7-tile exchange from a full bag is ~3 million)
MAX_LEAVES = 5_000_000
#: the most random deals of one inference (a time limit ends them long before)
MAX_SAMPLES = 1_000_000_000
#: under a time limit, the most racks dealt at random first to time a rack (to tell whether trying
#: every rack fits): an eighth of the racks, at least PROBE_MIN_RACKS, and at most PROBE_SHARE of the time
PROBE_RACKS = 2_000
PROBE_MIN_RACKS = 64
PROBE_SHARE = 0.2
#: the time to weigh and sort a leave kept, after the kernel (about 7 µs, against 5 to 1,000 µs a
#: rack in the kernel): a time limit leaves room for it
SECONDS_A_LEAVE = 1e-5
#: the deals after the timing ones come from the stream of ``seed ^ MORE_DEALS`` (not the same deals again)
MORE_DEALS = 0x9E3779B97F4A7C15




@dataclass(frozen=True, slots=True)
class InferredLeave:
    leave: Tiles
    #: ways to draw the whole rack (the tiles played and this leave) from the tiles unseen before the
    #: play (exact), or the random deals that kept it (sampled: :attr:`Inference.exact` False, and
    #: the probability is then the deals' share reweighted as the exact weights are)
    draws: int
    probability: float
    value: float        #: its leave value

    def to_dict(self) -> dict[str, Any]:
        return {"leave": str(self.leave), "probability": round(self.probability, 8), "draws": self.draws,
                "value": round(self.value, 4)}


@dataclass(frozen=True, slots=True)
class LetterOdds:
    """What an inference says of one letter (MAGPIE's per-letter table): how many of it the
    opponent's leave holds, against a leave drawn at random.

    ``at_least[k - 1]`` is the probability that the leave holds at least ``k`` of the letter, by
    the inference (the leaves' probabilities summed); ``prior_at_least[k - 1]`` the same for a leave
    of the same size drawn at random from the unseen tiles (hypergeometric: what chance alone
    gives). Both run from ``k = 1`` to the most the leave can hold: the unseen copies of the letter,
    at most the leave's size."""

    letter: str     #: as a player writes it (the ruleset's alphabet; ``?`` for the blank)
    tile: int       #: its tile number (0 for the blank)
    mean: float     #: the mean count of it in the leave, by the inference
    stdev: float    #: the standard deviation of that count
    at_least: tuple[float, ...]
    prior_at_least: tuple[float, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"letter": self.letter, "mean": round(self.mean, 8), "stdev": round(self.stdev, 8),
                "at_least": [round(x, 8) for x in self.at_least],
                "prior_at_least": [round(x, 8) for x in self.prior_at_least]}


def _prior_at_least(copies: int, pool: int, size: int) -> tuple[float, ...]:
    """P(at least k of a letter) for k = 1..min(copies, size), drawing ``size`` tiles at random from
    ``pool`` tiles of which ``copies`` are the letter (hypergeometric, in exact integers)."""
    total = math.comb(pool, size)
    exactly = [math.comb(copies, i) * math.comb(pool - copies, size - i) for i in range(min(copies, size) + 1)]
    return tuple(sum(exactly[k:]) / total for k in range(1, len(exactly)))


#: the most leaves an inference's notebook table counts the letters of (:meth:`Inference.letters`
#: takes about 0.06 s for 50,000 leaves and grows with them: a display must stay quick)
_LETTERS_SHOWN_UP_TO = 50_000


@dataclass(frozen=True, slots=True)
class Inference:
    """The leaves the opponent may have kept after ``move``, most likely first.

    Exact (every rack the unseen tiles can supply tried, each weighed by the ways to draw the whole
    rack) unless a time limit was too short for that: then ``samples`` leaves were dealt at random
    from the unseen tiles, as the bag deals them, ``draws`` counts the deals that kept each, and the
    probabilities are those counts reweighted as the exact weights are (each deal by
    ``1 / ∏ C(leave[t] + played[t], played[t])``)."""

    move: Move
    leaves: tuple[InferredLeave, ...]
    total_draws: int    #: the sum of the leaves' ``draws``
    racks_tried: int    #: distinct racks (multisets) tried, or the deals made when sampled
    margin: float
    unseen: Tiles
    racks_total: int = 0    #: the distinct racks the unseen tiles can supply
    samples: int = 0        #: the random deals, 0 when exact
    seconds: float = 0.0    #: the time it took

    @property
    def play(self) -> str:
        """The play inferred from, as written: its notation, or ``-N`` for an exchange of N (whose
        tiles are not known)."""
        return f"-{len(self.move.tiles)}" if self.move.kind == "exchange" else self.move.notation()

    @property
    def exact(self) -> bool:
        """Every rack was tried: the probabilities are exact, not estimated."""
        return self.samples == 0

    @property
    def too_few(self) -> bool:
        """Too little to draw the opponent's rack from: no leave kept, or (sampled) fewer than
        :data:`MIN_KEPT_DEALS` deals kept. :func:`~racksmith.sim.simulate.simulate`, ``best_play``,
        the sim player and ``analyze --sim-infer`` then draw his rack from the unseen tiles, as
        without an inference, and say so."""
        return not self.leaves or (not self.exact and self.total_draws < MIN_KEPT_DEALS)

    @property
    def learned_nothing(self) -> bool:
        """No leave was kept, so the inference says nothing of the opponent's rack: when exact, no
        rack he could have held makes the play one of his best (a play off the equity of every rack,
        or leaves other than his); when sampled, none of the racks dealt did (too few deals in the
        time, or a play few racks make, like an exchange from a full bag). :func:`~racksmith.sim.
        simulate.simulate` and ``best_play`` given such an inference draw his rack from the unseen
        tiles, as without one, and say so (``SimResult.note``)."""
        return not self.leaves

    def letters(self) -> tuple[LetterOdds, ...]:
        """Letter by letter, what the opponent kept (MAGPIE's table): for each letter among the
        unseen tiles, its mean count in the leave and that count's standard deviation, and the
        probability the leave holds at least 1, 2, ... of it, by the inference and by chance (a
        leave of the same size drawn at random from :attr:`unseen`). The size is the leaves' own:
        the rack less the tiles played, or less the tiles exchanged for ``-N`` (or every unseen
        tile, when fewer were left). Most likely letter first (the probability of at least one, as
        MAGPIE sorts them: what he kept heads the table, as it heads the leaves), then in alphabet
        order, the blank last. Empty when the inference kept no leave (:attr:`learned_nothing`), or
        the play kept none (seven tiles played)."""
        size = len(self.leaves[0].leave) if self.leaves else 0
        if not size:
            return ()
        alphabet = self.unseen.alphabet or self.leaves[0].leave.alphabet
        if any(len(lv.leave) != size for lv in self.leaves):
            raise InferenceError("the inferred leaves are of different sizes: no one leave size to compare with chance")
        held = np.fromiter((t for lv in self.leaves for t in lv.leave), dtype=np.uint8,
                           count=size * len(self.leaves)).reshape(len(self.leaves), size)
        prob = np.fromiter((lv.probability for lv in self.leaves), dtype=np.float64, count=len(self.leaves))
        weight = float(prob.sum())
        unseen = np.bincount(np.asarray(self.unseen, dtype=np.int64), minlength=64)
        out = []
        for t in np.flatnonzero(unseen).tolist():
            most = min(int(unseen[t]), size)
            # the leaves' probability by the count of this letter they hold (0..most)
            by_count = np.bincount((held == t).sum(axis=1), weights=prob, minlength=most + 1)[: most + 1] / weight
            counts = np.arange(most + 1)
            mean = float(by_count @ counts)
            stdev = math.sqrt(max(float(by_count @ (counts - mean) ** 2), 0.0))
            at_least = tuple(min(max(float(x), 0.0), 1.0) for x in np.cumsum(by_count[::-1])[::-1][1:])
            letter = alphabet.letter(t) if alphabet is not None else str(t)
            out.append(LetterOdds(letter, t, mean, stdev, at_least, _prior_at_least(int(unseen[t]), len(self.unseen), size)))
        out.sort(key=lambda x: (-x.at_least[0], x.tile == 0, x.tile))
        return tuple(out)

    def _scope(self) -> str:
        """How much of the racks the inference saw, in words (as ``racksmith infer`` titles it:
        ``cli.common.inference_scope``)."""
        if self.exact:
            return f"every one of {self.racks_total:,} racks tried, {self.total_draws:,} draws, {self.seconds:.1f} s"
        return (f"estimated from {self.samples:,} random deals ({self.total_draws:,} kept) in {self.seconds:.1f} s, "
                f"not from every one of the {self.racks_total:,} racks")

    def __repr__(self) -> str:
        # one line: the play, how many leaves, the likeliest (the dataclass's repr listed every leave)
        n = len(self.leaves)
        how = "exact" if self.exact else f"sampled ({self.samples:,} deals)"
        head = f"<Inference after {self.play}: {n:,} leave{'' if n == 1 else 's'}, {how}"
        if not self.leaves:
            return head + ">"
        top = self.leaves[0]
        return f"{head}, likeliest {str(top.leave) or '-'} {100 * top.probability:.1f}%>"

    def _repr_html_(self) -> str:
        """The likeliest leaves (probability, draws or deals, leave value) and, letter by letter,
        the chance that the leave holds at least 1, 2... of it against chance, as ``racksmith
        infer`` shows them."""
        from ..formats import html

        rows = ((str(lv.leave) or "-", f"{100 * lv.probability:.2f}", lv.draws, html.signed(lv.value))
                for lv in self.leaves[:html.MAX_ROWS])
        leaves = html.table(("leave", "prob%", "draws" if self.exact else "deals", "value"), rows, right=(1, 2, 3),
                            caption=f"after {self.play}: {len(self.leaves):,} leaves, {self._scope()}",
                            total=len(self.leaves))
        if len(self.leaves) > _LETTERS_SHOWN_UP_TO:
            return html.block(leaves, html.text(f"the letters kept: see letters() (not counted for this table: "
                                                f"{len(self.leaves):,} leaves)"))
        try:
            odds = self.letters()
        except RacksmithError:  # leaves of different sizes: no one size to compare with chance
            odds = ()
        if not odds:
            return leaves
        size = len(self.leaves[0].leave)
        most = max((k for x in odds for k, p in enumerate(x.at_least, 1) if p > 0), default=1)
        headers = ["letter", "mean", "sd"]
        for k in range(1, most + 1):
            headers += [f"≥{k} %", "prior"]
        letter_rows = []
        for x in odds:
            cells: list[Any] = [x.letter, f"{x.mean:.2f}", f"{x.stdev:.2f}"]
            for k in range(1, most + 1):
                held = k <= len(x.at_least)
                cells += [f"{100 * x.at_least[k - 1]:.2f}" if held else "",
                          f"{100 * x.prior_at_least[k - 1]:.2f}" if held else ""]
            letter_rows.append(cells)
        letters = html.table(headers, letter_rows, right=range(1, len(headers)),
                             caption=f"letters kept: % chance of at least k in the leave of {size}, by the inference "
                                     f"and by chance ({size} drawn at random from the {len(self.unseen)} unseen tiles)")
        return html.block(leaves, letters)

    def kernel_arrays(self, position: "Position") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
            "move": self.play,
            "margin": self.margin,
            "exact": self.exact,
            "learned_nothing": self.learned_nothing,
            "too_few": self.too_few,
            "racks_total": self.racks_total,
            "racks_tried": self.racks_tried,
            "samples": self.samples,
            "seconds": round(self.seconds, 3),
            "total_draws": self.total_draws,
            "leaves": [lv.to_dict() for lv in self.leaves],
            "letters": [x.to_dict() for x in self.letters()],
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


def _not_on_board(move: Move, board) -> str:
    """Why ``move`` is not the last play; one whose letters are on its squares but not as blanks (or
    as blanks where it has letters) says what the board holds: a phone's keyboard types lower case,
    and a lower-case letter is a blank."""
    text = f"{move.notation()} is not on the board"
    dr, dc = (0, 1) if move.across else (1, 0)
    held = []
    for i, t in enumerate(move.tiles):
        on = int(board[move.row + dr * i, move.col + dc * i])
        if not t & THROUGH and (not on or on & LETTER_MASK != t & LETTER_MASK):
            break
        held.append(t if t & THROUGH else on)
    else:
        text += f" (lower-case letters are blanks; the board holds {replace(move, tiles=tuple(held)).notation()})"
    return text + ": give the opponent's last play as it stands on the board"


def _exchange_size(digits: str, rs) -> int:
    """The tiles an exchange gives back, written ``digits``, checked against the ruleset's rack
    (thousands of digits are refused as a count, not converted: Python refuses ints that long)."""
    n = int(digits) if len(digits) <= 6 else None
    if n is None or not 1 <= n <= rs.rack_size:
        shown = digits if len(digits) <= 12 else digits[:9] + "..."
        raise InferenceError(f"an exchange gives back 1..{rs.rack_size} tiles, got {shown}")
    return n


def infer_leaves(
    position: "Position",
    move: "Move | str | None" = None,
    *,
    leaves: "LeavesLike | None" = "shipped",
    margin: float = DEFAULT_MARGIN,
    seconds: float | None = None,
    samples: int | None = None,
    seed: int = 0,
    threads: int = 1,
    exact_up_to: int = 0,
    cancel: "threading.Event | None" = None,
) -> Inference:
    """The leaves the opponent may have kept with ``move``, his last play, in ``position`` (where
    we are to move and the play is on the board). ``move``: a placement as written (``"8D QUIRK"``,
    tiles played through in parentheses), ``"-N"`` for an exchange of N tiles, or None for the
    last move pushed on ``position``. ``leaves``: the leave values (as the simulation's: by
    default ``"shipped"``, the ruleset's shipped leaves; None: every leave 0);
    ``margin``: points within the best equity for a play to count as a choice.

    Every rack is tried unless a limit says otherwise: ``seconds`` (any positive number: a huge
    one, up to ``math.inf``, sets no deadline, the racks still dealt at random when there are too
    many to try) bounds the time, everything included (a few racks dealt at random first time a rack; the answer is exact when trying every
    rack then fits in what is left, else, or if trying them runs out of time after all, it is
    estimated from the racks dealt at random until the time is up: :attr:`Inference.exact` says
    which; with ``samples`` too, at most that many are dealt), ``samples`` deals exactly that many
    racks at random (reproducible: the same ``seed``, the same answer, for any number of threads),
    unless the unseen tiles can supply at most ``exact_up_to`` distinct racks: then every one is
    tried (within ``seconds`` if given, as above). A short time limit may deal too few racks to
    keep any leave: :attr:`Inference.learned_nothing`. A one-tile
    play or an exchange from a full bag means hundreds of thousands to millions of racks: several
    seconds to tens of them. ``threads``: threads sharing the racks (each with its own board).
    ``cancel``: a ``threading.Event`` another thread may set to stop the inference at its next
    rack (:class:`InferenceError`); Ctrl-C stops it too (KeyboardInterrupt). The opponent's rack
    must not be known, even in part (:attr:`Position.racks_partial
    <racksmith.core.position.Position.racks_partial>`: the inference does not take tiles known
    into account; the simulation keeps them without it)."""
    from ..core.position import Position

    started = time.monotonic()
    if not isinstance(position, Position):
        raise InferenceError(f"infer_leaves needs a Position, got {type(position).__name__}")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 <= margin < MAX_MARGIN:
        raise InferenceError(f"margin must be a number of points from 0 to under {MAX_MARGIN:,.0f}, got {margin!r}")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not 0 < seconds <= math.inf):  # (NaN fails the comparison too)
        raise InferenceError(f"seconds must be a positive number of seconds (or None for no limit), got {seconds!r}")
    if samples is not None and (isinstance(samples, bool) or not isinstance(samples, (int, np.integer))
                                or not 1 <= samples <= MAX_SAMPLES):
        raise InferenceError(f"samples must be a number of racks to deal, 1..{MAX_SAMPLES:,}, got {samples!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise InferenceError(f"seed must be an integer 0..2**64-1, got {seed!r}")
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= 64:
        raise InferenceError(f"threads must be 1..64, got {threads!r}")
    threads = int(threads)
    check_event(cancel, InferenceError)
    if isinstance(exact_up_to, bool) or not isinstance(exact_up_to, (int, np.integer)) or not 0 <= exact_up_to <= MAX_LEAVES:
        raise InferenceError(f"exact_up_to must be a number of racks, 0..{MAX_LEAVES:,}, got {exact_up_to!r}")
    if len(position.racks) != 2:
        raise InferenceError(f"inference is for two-player positions, this one has {len(position.racks)} racks")
    rs = position.ruleset
    a = rs.alphabet
    lexicon = position.lexicon
    if not isinstance(lexicon, Lexicon):
        raise InferenceError(f"inference needs a KWG lexicon, got {type(lexicon).__name__}")
    if position.racks_known[1]:
        if position.bag_count == 0 and not position.racks[1]:
            raise InferenceError("the opponent has no tiles left: his play emptied his rack with the bag empty, so the "
                                 "game is over and there is nothing to infer")
        if position.bag_count == 0:
            raise InferenceError(
                "the bag is empty, so the opponent's rack is the unseen tiles "
                f"({a.rack_string(position.racks[1], blanks_last=True)}): there is nothing to infer"
            )
        raise InferenceError(
            "the opponent's rack is known in this position: inference is for an unknown rack "
            "(leave it out of the CGP: 'RACK/' with nothing after the slash)"
        )
    if position.racks_partial[1]:
        part = a.rack_string(position.racks[1], blanks_last=True)
        raise InferenceError(
            f"the opponent's rack is known in part in this position ({part}): inference is for a rack not known "
            "at all, and does not take the tiles known into account; simulate without it (the simulation keeps "
            f"{part} on his rack and draws the rest), or leave his rack out of the CGP to infer it"
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
            # the count is what is known: tiles not known, as Position.push records "-N"
            move = Move.exchange((THROUGH,) * _exchange_size(m.group(1), rs), a, score=0)
        else:
            try:
                move = Move.parse(move, rs)
            except RacksmithError as e:
                raise InferenceError(str(e)) from None
    if not isinstance(move, Move):
        raise InferenceError(f"move must be a Move, its notation or None, got {type(move).__name__}")
    if move.kind == "pass":
        raise InferenceError("a pass tells nothing about the rack: give a placement or an exchange ('-N')")
    if not all(_args.is_whole(t) for t in move.tiles):
        raise InferenceError(f"a move's tiles are tile numbers (ints), got {move.kind} tiles {tuple(move.tiles)!r:.60}: "
                             "write the move as text ('8D QUIRK', or '-N' for an exchange of N tiles)")
    try:
        move.notation()
    except RacksmithError as e:
        raise InferenceError(f"the move's tiles {tuple(move.tiles)!r:.60} are not tiles of {rs.name}: {e}") from None
    if move.kind == "exchange":
        exchanged = _exchange_size(str(len(move.tiles)), rs)
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
                raise InferenceError(_not_on_board(move, board_after))
            board_before[rr, cc] = 0
            played.append(0 if t & BLANK else t & LETTER_MASK)
        if not played:
            raise InferenceError(f"{move.notation()} places no tile")
        # Эрудит: the stars the play took back stood on these squares, and their real letters,
        # now there, came from the rack; the stars went back down among the blanks placed
        for rr, cc, letter in move.reclaimed:
            if not (0 <= rr < rs.rows and 0 <= cc < rs.cols) or int(board_after[rr, cc]) != letter:
                raise InferenceError(f"{move.notation()}: the square of a star it took back does not hold the "
                                     "star's letter: give the opponent's last play as it stands on the board")
            if 0 not in played:
                raise InferenceError(f"{move.notation()} takes back more stars than it places")
            played.remove(0)
            played.append(letter)
            board_before[rr, cc] = letter | BLANK
        before = Position(rs, board_before, (a.tiles(sorted(played)), a.tiles(our_rack)),
                          (position.scores[1], position.scores[0]), lexicon=lexicon)
        try:
            score = before.score(move).score
        except RacksmithError as e:
            raise InferenceError(f"{move.notation()} is not a legal play on the board before it: {e}") from None
    pool_tiles = list(position.unseen_tiles())
    leave_size = rs.rack_size - (len(played) if not exchanged else 0)
    if not exchanged and len(pool_tiles) < leave_size:
        # fewer tiles unseen than a full rack keeps: the bag was empty, his rack short, and he kept
        # every tile unseen (one leave; whether the play fits it is judged as for any other)
        leave_size = len(pool_tiles)
    if len(pool_tiles) < leave_size:
        raise InferenceError(
            f"only {len(pool_tiles)} tiles are unseen, fewer than the {leave_size} the opponent would have kept: "
            "the bag is too small for this play"
        )
    bag_before = len(pool_tiles) + len(played) - rs.rack_size
    refusal = exchange_refusal(rs, max(bag_before, 0), exchanged) if exchanged else None
    if refusal:
        raise InferenceError(f"the exchange was not allowed before it: {refusal}")
    if isinstance(leaves, str) and leaves == "shipped":
        from ..lexicon.shipped_leaves import default_leaves

        leave_values = default_leaves(rs)
    else:
        leave_values = _leaves(leaves, rs)
    tables, _ = _tables(rs, lexicon, leave_values)
    pool_counts = np.bincount(np.asarray(pool_tiles, dtype=np.int64), minlength=64).tolist()
    n_racks = _count_multisets(pool_counts, leave_size)
    boards = []
    for _ in range(threads):
        board = BoardState(tables.rules)
        board.set(board_before)
        boards.append(board)
    from ._sim import infer_leaves as kernel_infer

    def run_part(n_samples: int, draw_seed: int, deadline: float, part: int, parts: int, stop: np.ndarray):
        # room for the leaves this part can keep: each distinct rack once, at most its share of the
        # racks (and what the round of blocks can give it beyond)
        if n_samples:
            cap = min(n_racks, n_samples // parts + 4096, MAX_LEAVES)
        else:
            cap = n_racks if parts == 1 else min(n_racks, n_racks // parts + 512)
        return kernel_infer(
            tables.rules, tables.leave_table, boards[part % len(boards)], bytes(played), bytes(pool_tiles), leave_size, exchanged,
            float(score), float(margin), max(bag_before, 0), opp_value, rs.exchange_limit, max(int(cap), 1), n_samples,
            draw_seed, deadline, part, parts, bool(rs.star_reclamation), stop,
        )

    def run(n_samples: int, draw_seed: int, deadline: float, parts: int = threads):
        """The kernel over every rack (n_samples 0) or n_samples random deals, on ``parts`` threads,
        stopped at ``deadline`` (a time of ``time.monotonic()``; 0: none): at the next rack, whether
        enumerated or dealt (the racks tried then fall short)."""
        deadline = _near(deadline)
        with stops.until(deadline) as stop:
            if parts == 1:
                return run_part(n_samples, draw_seed, deadline, 0, 1, stop)
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=parts) as pool:
                outs = list(pool.map(lambda k: run_part(n_samples, draw_seed, deadline, k, parts, stop), range(parts)))
        return (*(np.concatenate([o[i] for o in outs]) for i in range(4)), sum(o[4] for o in outs))

    deadline = started + seconds if seconds is not None else 0.0
    stops = _Stops()  # Ctrl-C or cancel stops every kernel call, a time limit its own
    parts, dealt = run_interruptibly(
        lambda: _work(run, n_racks, samples, exact_up_to, seconds, seed, deadline, threads),
        stops.stop_all, "racksmith-infer", cancel,
        lambda: InferenceError("the inference was cancelled (its cancel event was set)"))
    tiles = np.concatenate([p[0] for p in parts])
    lens = np.concatenate([p[1] for p in parts])
    weights = np.concatenate([p[2] for p in parts])
    values = np.concatenate([p[3] for p in parts])
    out: list[InferredLeave] = []
    total = 0
    if len(lens):
        keys = np.column_stack([lens, tiles])
        uniq, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        sums = np.bincount(inverse.ravel(), weights=weights, minlength=len(uniq))
        # the kernel weighs a leave by the ways to draw it from the unseen tiles (or counts the
        # deals that kept it); the opponent drew the whole rack, the tiles he played with the leave,
        # from the unseen tiles and those: the ways to draw that are the kernel's weight times
        # ∏ C(unseen[t] + played[t], played[t]) / ∏ C(leave[t] + played[t], played[t]) (an exchange
        # shows no tile, and its kernel weight is already the whole rack's)
        held = np.bincount(np.asarray([] if exchanged else played, dtype=np.int64), minlength=64)
        pool_counts = np.bincount(np.asarray(pool_tiles, dtype=np.int64), minlength=64)
        letters = [t for t in range(64) if held[t]]
        whole = math.prod(math.comb(int(pool_counts[t] + held[t]), int(held[t])) for t in letters)
        # by leave at once (as a loop over the leaves, this took a tenth of a second for 10,000
        # leaves: a tenth of the time of a short time limit); the same arithmetic, the same floats
        size = uniq[:, 0].astype(np.int64)
        body = uniq[:, 1:]
        filled = np.arange(body.shape[1]) < size[:, None]
        apart = np.ones(len(uniq), dtype=np.int64)
        for t in letters:
            h = int(held[t])
            ways = np.array([math.comb(k + h, h) for k in range(body.shape[1] + 1)], dtype=np.int64)
            apart *= ways[((body == t) & filled).sum(axis=1)]
        share = sums / apart
        draws = [int(x) for x in np.rint(sums if dealt else sums * float(whole) / apart).tolist()]
        total = sum(draws)
        weight_total = sum(share.tolist())
        probability = (share / weight_total if weight_total else np.zeros(len(uniq))).tolist()
        kept = [row[1 : 1 + row[0]] for row in uniq.tolist()]
        # the order: likeliest first, then the most draws, then by the leave as written (its str:
        # its letters in order, blanks last)
        names = {t: a.decode([t]) for t in set(body[filled].tolist())}
        names[0] = ""
        letters_first = np.sort(np.where(filled & (body != 0), body, 255), axis=1).tolist()
        blanks = ((body == 0) & filled).sum(axis=1).tolist()
        text = ["".join([names[t] for t in row[:n]]) + "?" * b
                for row, n, b in zip(letters_first, (size - np.asarray(blanks)).tolist(), blanks)]
        order = sorted(range(len(uniq)), key=lambda i: (-probability[i], -draws[i], text[i]))
        first_value = values[first].tolist()
        out = [InferredLeave(a.tiles(kept[i]), draws[i], probability[i], first_value[i]) for i in order]
    return Inference(move, tuple(out), total, dealt if dealt else n_racks, float(margin), a.tiles(sorted(pool_tiles)),
                     racks_total=n_racks, samples=dealt, seconds=time.monotonic() - started)


#: a deadline further off than this (seconds; 30 years) is none: a huge time limit is no limit
#: (the kernel takes deadlines below 1e12, a timer waits at most threading.TIMEOUT_MAX)
FAR_OFF = 1e9


def _near(deadline: float) -> float:
    """``deadline`` (a time of ``time.monotonic()``, maybe inf) as the kernel and the timer take
    it: 0 (none) when it is further off than :data:`FAR_OFF`."""
    return deadline if deadline and deadline - time.monotonic() < FAR_OFF else 0.0


class _Stops:
    """The stop flags of an inference's kernel calls (int32 arrays, the kernel's ``stop``): a flag
    of its own for each call, which a timer sets at the call's deadline (the kernel checks it at
    every rack, where it looks at its ``deadline`` only every 32 deals, and not at all when it
    enumerates), and :meth:`stop_all` (Ctrl-C, a cancel) sets every flag, those to come included."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._flags: list[np.ndarray] = []
        self._stopped = False

    def stop_all(self) -> None:
        with self._lock:
            self._stopped = True
            for flag in self._flags:
                flag[0] = 1

    @contextmanager
    def until(self, deadline: float):
        """A new flag, set at ``deadline`` (a time of ``time.monotonic()``; 0: never)."""
        flag = np.zeros(1, dtype=np.int32)
        with self._lock:
            flag[0] = 1 if self._stopped else 0
            self._flags.append(flag)
        timer = None
        if deadline:
            timer = threading.Timer(max(deadline - time.monotonic(), 0.0), flag.__setitem__, (0, 1))
            timer.daemon = True
            timer.start()
        try:
            yield flag
        finally:
            if timer is not None:
                timer.cancel()
            with self._lock:
                self._flags.remove(flag)


def _work(run, n_racks: int, samples, exact_up_to: int, seconds, seed, deadline: float, threads: int):
    """The kernel calls of :func:`infer_leaves`: every rack, or racks dealt at random (see there).
    Returns (the kernel's answers, the racks dealt at random: 0 when every rack was tried)."""
    if samples is not None and n_racks > exact_up_to:
        part = run(int(samples), int(seed), deadline)
        return [part], part[4]
    if seconds is None:
        if n_racks > MAX_LEAVES:
            raise InferenceError(f"{n_racks:,} racks to try: more than {MAX_LEAVES:,}; give a time limit "
                                 "(--seconds, seconds=) and the racks are dealt at random instead")
        return [run(0, 0, 0.0)], 0
    return _work_timed(run, n_racks, MAX_SAMPLES if samples is None else int(samples), int(seed), deadline, threads)


def _work_timed(run, n_racks: int, most: int, seed: int, deadline: float, threads: int):
    """:func:`_work` under a time limit (``deadline``, a time of ``time.monotonic()``; at most
    ``most`` racks dealt). Racks dealt at random first (as the bag deals them, so that they are an
    unbiased answer in themselves; on one thread, for at most :data:`PROBE_SHARE` of the time) time
    a rack: every rack is tried when that fits in what is left (with a quarter to spare) — and
    given up for those deals if it runs out of time after all — else more racks are dealt until
    the time is up."""
    now = time.monotonic()
    n_probe = min(most, max(PROBE_MIN_RACKS, min(PROBE_RACKS, n_racks // 8)))
    probe = run(n_probe, seed, now + PROBE_SHARE * max(deadline - now, 0.0), parts=1)
    per_rack = (time.monotonic() - now) / max(probe[4], 1)
    left = deadline - time.monotonic()
    if n_racks <= MAX_LEAVES and n_racks * per_rack / threads <= 0.75 * left:
        every = run(0, 0, deadline)
        if every[4] == n_racks:
            return [every], 0
        return [probe], probe[4]  # out of time: the deals are the answer (the racks tried are dropped)
    parts, dealt = [probe], probe[4]
    if dealt < most and left > 0:
        # the leaves the deals keep are weighed and sorted after the kernel, at a cost by leave:
        # the deals stop early enough to leave time for that, as many leaves a deal as the first ones kept
        keep_rate = len(probe[1]) / max(probe[4], 1)
        now = time.monotonic()
        more = run(most - dealt, seed ^ MORE_DEALS,
                   now + (deadline - now) / (1 + SECONDS_A_LEAVE * keep_rate * threads / max(per_rack, 1e-9)))
        parts.append(more)
        dealt += more[4]
    return parts, dealt
