"""Every legal move of a position, ranked by score or by static equity.

>>> from racksmith import Position                                    # doctest: +SKIP
>>> pos = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ILSSTUY/ 0/0 0")  # doctest: +SKIP
>>> moves = pos.moves(top=5, sort="equity", leaves="SYNTH.klv2")     # doctest: +SKIP
>>> str(moves[0]), moves[0].score                                    # doctest: +SKIP
('8H LUSTY', 24)

The work is done by the compiled kernel :mod:`racksmith.movegen._movegen` in one call without the GIL;
this module checks the options, turns the position, lexicon and leaves into the kernel's flat
arrays (cached per ruleset, lexicon and leaves) and wraps the result in a
:class:`~racksmith.movegen.movelist.MoveList`.

Conventions (those of MAGPIE and wolges): each distinct choice of which tiles are blanks is its own
move; a single tile is listed once, across if it has a horizontal neighbour, else down, scoring both
words; on an empty board the plays through the start square, only the across ones when the board is
its own transpose (:func:`racksmith.rules.symmetry.opening_across_only`); no move twice.

Static equity ("Hasty valuation", constants named in :mod:`racksmith.rules.equity`): with tiles in
the bag, score + value of the leave (0 for an absent or empty leave); on the opening, minus
``OPENING_VOWEL_PENALTY`` (0.35) × ((word multiplier − 1) + (letter multiplier − 1)) of the squares
on either side of each vowel placed (above and below it for an across play, left and right for a
down play); with the bag empty, score + ``GOING_OUT_FACTOR`` (2) × the
others' racks when going out (every other player's, in a game of three or four: with racks not
known, every tile off the board but the mover's, whoever holds which), else score −
(``STUCK_PENALTY`` (10) + ``STUCK_FACTOR`` (2) × the tiles kept). Exchanges (of *k* tiles when the
bag holds at least ``ruleset.exchange_limit`` tiles and at least *k*:
:func:`racksmith.core.turns.exchange_cap`) and the pass are valued by the tiles they keep.
"""
from __future__ import annotations

import functools

import os
import threading
from collections import OrderedDict
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ._movegen import BoardState, LeaveTable, MovePlan, Rules, Tables, plan_moves
from ..core import turns
from ..errors import MoveGenError, PositionError
from ..lexicon import Leaves, Lexicon, load_leaves
from .movelist import MoveList
from ..rules.ruleset import Ruleset

if TYPE_CHECKING:  # pragma: no cover
    from ..core.position import Position

__all__ = ["ALGORITHMS", "DIRECTIONS", "SORTS", "MoveGenError", "MoveList", "generate_moves"]

SORTS = ("score", "equity")
DIRECTIONS = {"both": 3, "across": 1, "down": 2}
ALGORITHMS = ("gaddag", "dawg")
_HEAP_LIMIT = 4096  #: a larger top N is cut from the complete list instead of kept in a heap
_CACHE_SIZE = 16


def generate_moves(
    position: Position,
    top: int | None = None,
    sort: str = "score",
    leaves: "Leaves | str | PathLike | None" = None,
    exchanges: bool = False,
    direction: str = "both",
    algorithm: str = "gaddag",
) -> MoveList:
    """The legal moves of the player to move, best first.

    ``top``: keep only the best N (found with shadow playing, without generating the rest), or
    None for every move. ``sort``: ``"score"`` or ``"equity"`` (ties: the other key, then
    placements before exchanges before the pass, then row, column, direction and tiles).
    ``leaves``: a :class:`~racksmith.lexicon.Leaves`, the path of a ``.klv2``/``.klv``/CSV file,
    or None (every leave worth 0). Equity is computed when leaves are given or ``sort="equity"``;
    otherwise each move's ``equity`` is None. ``exchanges``: also list every distinct exchange
    (when the bag allows) — the pass is always listed. ``direction``: ``"both"``, ``"across"`` or
    ``"down"``. ``algorithm``: ``"gaddag"`` (Gordon; needs a lexicon with a GADDAG) or ``"dawg"``
    (Appel–Jacobson); both give the same moves.

    A :class:`~racksmith.core.position.Position` keeps its board in the kernel
    (:class:`~racksmith.movegen._movegen.BoardState`, set on the first call): each call updates only
    the rows and columns that changed since the last, instead of recomputing every cross-set. Any
    other object with ``ruleset``, ``lexicon``, ``board`` and ``racks`` is read in full each call.
    """
    # the common values first: a string comparison is cheaper than a lookup (and StrEnums hash slowly)
    if sort == "equity":
        by_equity = True
    elif sort == "score":
        by_equity = False
    else:
        raise MoveGenError(f"unknown sort {sort!r}: use 'score' or 'equity'")
    dirs = 3 if direction == "both" else DIRECTIONS.get(str(direction)) if isinstance(direction, str) else None
    if dirs is None:
        raise MoveGenError(f"unknown direction {direction!r}: use 'both', 'across' or 'down'")
    if algorithm == "gaddag":
        use_gaddag = True
    elif algorithm == "dawg":
        use_gaddag = False
    else:
        raise MoveGenError(f"unknown algorithm {algorithm!r}: use 'gaddag' or 'dawg'")
    if top is None:
        n = 0
    elif type(top) is int and 1 <= top <= _HEAP_LIMIT:
        n = top
    elif isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise MoveGenError(f"top must be a whole number of moves, at least 1 (or None for every move), got {top!r}")
    else:
        n = int(top) if top <= _HEAP_LIMIT else 0
    rs: Ruleset = getattr(position, "ruleset", None)  # type: ignore[assignment]
    if type(rs) is not Ruleset and not isinstance(rs, Ruleset):
        raise MoveGenError(f"position must be a racksmith Position (or an object with its ruleset, lexicon, board "
                           f"and racks), got {type(position).__name__}")
    lexicon = getattr(position, "lexicon", None)
    if type(lexicon) is not Lexicon and not isinstance(lexicon, Lexicon):
        raise MoveGenError(
            f"generating moves needs a KWG lexicon (racksmith.lexicon.Lexicon), got {type(lexicon).__name__}"
        )
    if use_gaddag and not lexicon.has_gaddag:
        raise MoveGenError(
            f"lexicon {lexicon.name or '?'} has no GADDAG (a DAWG-only KWG): use algorithm='dawg', "
            "or rebuild the lexicon with a GADDAG"
        )
    leave_values = leaves if leaves is None or type(leaves) is Leaves else _leaves(leaves, rs)
    last = _last
    if last[0] is rs and last[1] is lexicon and last[2] is leave_values:
        tables, total_tiles = last[3]
    else:
        tables, total_tiles = _tables(rs, lexicon, leave_values)
    exchange_limit = rs.exchange_limit if exchanges else -1
    with_equity = leave_values is not None or by_equity
    cut = min(int(top), 1 << 30) if top is not None and n == 0 else 0  #: a top beyond the heap: cut from the list
    kept = getattr(position, "_kept", _NOT_KEPT)
    if kept is not _NOT_KEPT:
        if kept is None or kept.rules is not tables.rules:
            kept = position._kept = BoardState(tables.rules)
        elif kept.in_use:  # another thread generates with it now: this call sets a board of its own
            kept = _NOT_KEPT
    try:
        if kept is not _NOT_KEPT:
            # a Position: the kernel syncs the board it keeps, reads the racks, makes the list
            plan = MovePlan(tables, total_tiles, n, cut, by_equity, exchange_limit, dirs, use_gaddag, with_equity,
                            MoveList, (top, sort, leaves, exchanges, direction, algorithm, rs, lexicon))
            if leave_values is leaves and not rs.star_reclamation:
                # the next call with these very objects goes straight to the kernel (Position.moves);
                # not for leaves named by a path (the file is looked at again each call)
                kept.plan = plan
            return plan_moves(plan, position)
        racks = position.racks
        rack = racks[0]
        known = getattr(position, "_known", None)
        if known is None:  # every rack known: the tiles not on them are in the bag
            not_on_racks = total_tiles - sum(map(len, racks))
        else:  # an unknown rack holds tiles too (Position.rack_sizes)
            not_on_racks = total_tiles - sum(position.rack_sizes)
        board = position.board
        if board.dtype != np.uint8 or not board.flags.c_contiguous:
            board = np.ascontiguousarray(board, dtype=np.uint8)
        values = rs.values
        opp_value = sum(values[t] for opp in racks[1:] for t in opp)  # going out wins every other player's
        if known is not None and not_on_racks <= np.count_nonzero(board):
            # the bag empty: the others hold every tile off the board but the mover's, whoever holds which
            opp_value = turns.others_value(rs, board, rack)
        records, reached = tables.generate(
            board, bytes(rack), not_on_racks, opp_value, n, by_equity, exchange_limit, dirs, use_gaddag
        )
        rack = rs.alphabet.tiles(sorted(rack))
    except (ValueError, TypeError, OverflowError) as e:
        raise PositionError(f"cannot generate moves: {e}") from None
    return MoveList(records[:top] if cut else records, rs.alphabet, rack, with_equity, reached, rack_size=rs.rack_size,
                    sort="equity" if by_equity else "score")


_NOT_KEPT = object()  #: what getattr(position, "_kept") gives for an object that keeps no board


# --- the kernel's tables, per (ruleset, lexicon, leaves) ------------------------------------------

_rules_cache: "OrderedDict[tuple, tuple]" = OrderedDict()
_tables_cache: "OrderedDict[tuple, tuple]" = OrderedDict()
_leaves_cache: "OrderedDict[tuple, Leaves]" = OrderedDict()
#: shipped leave sets named by a text (whatever files the folder holds): (text, id(ruleset)) -> (ruleset, leaves)
_shipped_cache: "OrderedDict[tuple, tuple]" = OrderedDict()
#: the entry of _tables_cache used last: (ruleset, lexicon, leaves, (tables, total tiles)), compared by identity
_last: tuple = (None, None, None, None)
#: held while tables are built (a lexicon's word maps take seconds): threads asking at once for the
#: same tables build them once and share them
_building = threading.RLock()


def _new_lock_in_child() -> None:
    """A forked child has only the thread that forked: a lock another thread of the parent held
    (building tables) would be held for ever there. The caches are whole (an entry is added at once,
    when it is ready), so the child starts with a free lock."""
    global _building
    _building = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def _remember(cache: OrderedDict, key: tuple, entry: tuple) -> None:
    cache[key] = entry  # the objects of the key stay alive in the entry while their id is a key
    if len(cache) > _CACHE_SIZE:
        try:
            cache.popitem(last=False)
        except KeyError:  # (emptied by another thread meanwhile)
            pass


def _used(cache: OrderedDict, key: tuple) -> None:
    """A hit: the entry is the last one out (a bot rotating through more rulesets, lexicons or
    leave sets than entries kept had the one it used most thrown out, and built again)."""
    try:
        cache.move_to_end(key)
    except KeyError:  # (thrown out by another thread meanwhile)
        pass


def clear_tables() -> None:
    """Forget every table built (see :func:`racksmith.clear_caches`)."""
    global _last
    with _building:
        for cache in (_rules_cache, _tables_cache, _leaves_cache, _shipped_cache):
            cache.clear()
        _last = (None, None, None, None)


def _rules(rs: Ruleset, lexicon: Lexicon) -> Rules:
    """The kernel's read-only tables of a ruleset and lexicon (shared by every leave table)."""
    key = (id(rs), id(lexicon))
    hit = _rules_cache.get(key)
    if hit is not None:
        _used(_rules_cache, key)
        return hit[-1]
    with _building:
        hit = _rules_cache.get(key)
        if hit is not None:
            return hit[-1]
        return _new_rules(rs, lexicon, key)


def _new_rules(rs: Ruleset, lexicon: Lexicon, key: tuple) -> Rules:
    if lexicon.alphabet.letters != rs.alphabet.letters:
        raise MoveGenError(
            f"lexicon {lexicon.name or '?'} is spelled in another alphabet "
            f"({''.join(lexicon.alphabet.letters)[:40]}) than ruleset {rs.name} "
            f"({''.join(rs.alphabet.letters)[:40]}): load it with ruleset={rs.name!r}"
        )
    _check_score_range(rs, lexicon)
    rules = Rules(lexicon, rs)
    _remember(_rules_cache, key, (rs, lexicon, rules))
    return rules


def _tables(rs: Ruleset, lexicon: Lexicon, leaves: Leaves | None) -> tuple[Tables, int]:
    """The kernel's tables of a (ruleset, lexicon, leaves) triple and the number of tiles in the set."""
    global _last
    key = (id(rs), id(lexicon), id(leaves))
    hit = _tables_cache.get(key)
    if hit is not None:
        _last = hit
        _used(_tables_cache, key)
        return hit[-1]
    if leaves is not None and leaves.alphabet.letters != rs.alphabet.letters:
        raise MoveGenError(f"the leave file is for another alphabet than ruleset {rs.name}: load it with ruleset={rs.name!r}")
    with _building:
        hit = _tables_cache.get(key)
        if hit is None:
            rules = _rules(rs, lexicon)
            entry = (Tables(rules, LeaveTable(leaves) if leaves is not None else None), rs.total_tiles)
            hit = (rs, lexicon, leaves, entry)
            _remember(_tables_cache, key, hit)
        _last = hit
        return hit[-1]


MAX_SCORE = 2**30  #: scores are 32-bit in the kernel; keep clear of the edge


@functools.lru_cache(maxsize=64)
def play_score_bound(rs: Ruleset, longest: int) -> float:
    """The most one play could score on ``rs``'s board with words of at most ``longest`` letters:
    the word multipliers of as many squares as one play covers (the longest word, at most a rack),
    the highest tile value and letter multiplier on each square of the longest word, a cross word
    the height of the board on each tile placed, and the bingo. (Kept for each ruleset and length:
    every simulation asks it.)"""
    longest = min(longest, max(rs.rows, rs.cols))
    placed = min(rs.rack_size, longest)
    if not placed:
        return 0.0
    wm = np.asarray(rs.word_multipliers, dtype=np.float64).reshape(rs.rows, rs.cols)
    lanes = [np.sort(wm[r])[::-1][:placed] for r in range(rs.rows)]
    lanes += [np.sort(wm[:, c])[::-1][:placed] for c in range(rs.cols)]
    product = max(float(np.prod(lane)) for lane in lanes)
    tile = float(max(rs.values)) * max(rs.letter_multipliers)
    return product * longest * tile + placed * max(rs.rows, rs.cols) * tile * max(rs.word_multipliers) + rs.bingo_bonus


def _check_score_range(rs: Ruleset, lexicon: Lexicon) -> None:
    """Refuse a ruleset and lexicon whose best conceivable play could overflow the kernel's
    scores: the word multipliers of as many squares as one play covers (the longest word, at
    most a rack), the highest tile value and letter multiplier on each square of the longest
    word, a cross word the height of the board on each tile placed, and the bingo."""
    bound = play_score_bound(rs, lexicon.longest)
    if bound >= MAX_SCORE:
        raise MoveGenError(
            f"plays on the {rs.name} board with lexicon {lexicon.name or '?'} could score up to {bound:,.0f} "
            f"points, more than the move generator counts ({MAX_SCORE:,}): lower the word multipliers, the tile "
            "values or the rack size"
        )


def _leaves(spec: "Leaves | str | PathLike | None", rs: Ruleset) -> Leaves | None:
    if spec is None:
        return None
    if isinstance(spec, Leaves):
        return spec
    if type(spec) is not str and not isinstance(spec, PathLike):
        raise MoveGenError(f"leaves must be a Leaves object, a shipped set's name or the path of a leave file, "
                           f"got {type(spec).__name__}")
    # a shipped set's name (or "shipped") as a recent call: a dict lookup, whatever files the folder
    # holds (the name is the shipped set; a file of that name is "./english" or a Path). The same
    # file as a recent call: one system call (a stat) and a dict lookup, as load_leaves's memo of files
    if type(spec) is str:
        hit = _shipped_cache.get((spec, id(rs)))
        if hit is not None:
            return hit[1]
    try:
        st = os.stat(spec)
    except (OSError, ValueError):
        pass
    else:
        text = spec if type(spec) is str else str(spec)
        leaves = _leaves_cache.get((text, type(spec) is str, st.st_mtime_ns, st.st_size, rs.alphabet.letters))
        if leaves is not None:
            return leaves
    return _read_leaves(spec, rs)


def _read_leaves(spec: "str | PathLike", rs: Ruleset) -> Leaves:
    """The leaves ``spec`` names (a shipped set by its name or ``shipped``, a str, whatever files
    the folder holds; else a file), read and kept for the next calls (:func:`_leaves` looks there first)."""
    from ..lexicon.klv import shipped_set, the_rulesets_own
    from ..lexicon.shipped_leaves import load_shipped_leaves

    own = the_rulesets_own(spec, rs)  # "shipped": the ruleset's own, as simulate and analyze read it
    if own is not None:
        _remember(_shipped_cache, (spec, id(rs)), (rs, own))
        return own
    shipped = shipped_set(spec)  # a shipped set by name or by its ruleset's alias ("erudit", "эрудит"), as load_leaves reads it
    if shipped is not None:
        leaves = load_shipped_leaves(shipped, rs)
        if type(spec) is str:
            _remember(_shipped_cache, (spec, id(rs)), (rs, leaves))  # (rs kept alive while its id is a key)
        return leaves
    try:
        st = Path(spec).stat()
    except OSError as e:  # (a name too long for the system too)
        raise MoveGenError(f"cannot read leave file {str(spec)!r}: {e.strerror or e}") from None
    except ValueError:
        raise MoveGenError(f"cannot read leave file {str(spec)!a}: a path cannot hold a NUL character") from None
    # (a str apart from a Path of the same text: the str "english" is the shipped set, Path("english") the file)
    key = (str(spec), type(spec) is str, st.st_mtime_ns, st.st_size, rs.alphabet.letters)
    leaves = _leaves_cache.get(key)
    if leaves is None:
        leaves = load_leaves(Path(spec), rs)
        _leaves_cache[key] = leaves
        if len(_leaves_cache) > _CACHE_SIZE:
            _leaves_cache.popitem(last=False)
    return leaves
