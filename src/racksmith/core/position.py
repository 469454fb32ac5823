"""A position: board, racks (player to move first), scores, the zero-turn count — and the moves
played on it, which :meth:`Position.pop` takes back.

The bag is never stored: it is the distribution minus the board and the racks. A rack may be
*unknown* (an empty opponent's rack in a CGP, as Woogles writes positions; the mover's too while
the game goes on: :func:`~racksmith.formats.cgp.cgp_racks_known`): the tiles unseen by the
player to move (not on the board, not on a known rack) are then split by their counts between the
unknown rack, which holds a full rack while there are enough (``min(rack_size, unseen)``), and
the bag, which holds the rest. So the bag's size is exact (an empty bag is an endgame), which tiles
are in it is not; when the bag is empty the unknown rack holds exactly the unseen tiles, and the
moves, their equity and the end of the game use them. With two racks not known or more and the
bag empty (a game of three players or more), that rule ("a full rack each, in order") is a guess:
a caller who knows how many tiles each holds gives their sizes (the ``rack_sizes`` argument, as
:class:`~racksmith.play.players.GameView` and :meth:`~racksmith.review.replay.Replay.position`
do), which the position keeps through its moves and its CGP writes (``rsz``).

A rack may also be known *in part* (:attr:`Position.racks_partial`): the CGP spec's "if one of the
players' racks is only partially known, specify as many tiles as are known", as Macondo writes an
opponent's rack after his phony was withdrawn (``AEERSTT/YD``). Such a rack is not known
(:attr:`Position.racks_known` False), :attr:`Position.racks` holds the tiles of it that are known,
and it holds a full rack like an unknown one: its known tiles and as many unseen ones as the
unseen tiles allow (:attr:`Position.rack_sizes`). :meth:`Position.from_cgp` reads an opponent's
rack shorter than a full one as known in part when the bag would otherwise hold tiles (he would
have drawn them); with the bag empty a short rack is a whole one, as before. A rack known in part
whose known tiles are all its tiles (the bag empty, no unseen tile left for it: he played the
others) is known whole from then on.

A position applies moves as python-chess's ``Board`` does: :meth:`Position.push` plays a move in
place and :meth:`Position.pop` takes it back exactly (each push keeps a small :class:`Undo` record:
the squares filled, the mover's rack, the tiles drawn, the points added — never a copy of the
board); :meth:`Position.play` returns a new position and leaves this one as it was. The rules
applied are those of :mod:`racksmith.core.turns`.
"""
from __future__ import annotations

import operator
import os
import re
from collections.abc import Container, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, SupportsIndex, TypeAlias, overload

import numpy as np

from .. import _args
from ..errors import CGPError, IllegalMoveError, InvalidMoveError, MoveGenError, PositionError, UnknownLetterError
from ..formats.cgp import (
    RACK_SIZES_OPCODE,
    cgp_lexicon,
    cgp_rack_sizes,
    cgp_racks_known,
    cgp_ruleset,
    format_cgp,
    parse_cgp,
    rack_sizes_opcode,
)
from ..formats.render import render_svg, render_text
from ..lexicon import Leaves, Lexicon, load_lexicon
from ..movegen._movegen import position_moves
from ..movegen.generate import generate_moves
from ..movegen.movelist import MoveList
from ..movegen.options import Algorithm, Direction, Sort
from ..movegen.reclaim import with_reclamations
from ..rules.alphabet import LETTER_MASK, THROUGH, Tiles
from ..rules.ruleset import Ruleset, get_ruleset
from . import turns
from .move import EXCHANGE, PLACE, Move
from .scoring import ScoreBreakdown, score_move
from .turns import Ending
from .validation import ANY_WORD, Verdict, check_move_lean, check_unknown_exchange, resolve_move, validate

if TYPE_CHECKING:  # pragma: no cover
    import threading
    from collections.abc import Callable, Sequence

    from ..search.endgame import EndgameResult
    from ..search.peg import PegPlay, PegResult
    from ..sim.infer import Inference
    from ..sim.winpct import WinPct
    from ..review.best import BestPlay
    from ..sim.simulate import SimResult


#: What names a lexicon where one is given: a loaded :class:`~racksmith.lexicon.Lexicon`, the name of
#: one racksmith ships (``"CSW21"``) or the path of a lexicon file (a ``.kwg`` or a word list)
LexiconLike: TypeAlias = Lexicon | str | os.PathLike[str]
#: What names leave values where they are given: a loaded :class:`~racksmith.lexicon.Leaves`, the
#: path of a leave file (``.klv2``, ``.csv``), or where a function says so ``"shipped"`` (the
#: ruleset's shipped leaves); None (no leave values) is written beside it where it is taken
LeavesLike: TypeAlias = Leaves | str | os.PathLike[str]


class Undo(NamedTuple):
    """What one :meth:`Position.push` did, for :meth:`Position.pop` to undo it exactly.

    Deliberately small and explicit: the move, the squares it filled, the mover's rack before it,
    the tiles drawn, the points it added, the scoreless-turn count before it, and the end of the
    game it caused (whose adjustments it added to the scores). An immutable named tuple rather than
    a frozen dataclass: one is made every turn of every game, and it costs a quarter as much."""

    move: Move  #: the move applied: canonical, its score set
    squares: tuple[int, ...]  #: board squares filled (``row * cols + col``); empty for exchanges and passes
    rack: Tiles  #: the mover's rack before the turn
    drawn: Tiles  #: tiles drawn after it (for an exchange: drawn before the exchanged tiles went back)
    score: int  #: points the turn added to the mover, before any end-of-game adjustment
    zero_turns: int  #: the count of consecutive scoreless turns before the turn
    ending: Ending | None  #: the end of the game the turn caused; its player indices are those after the turn
    #: False when the mover's rack was not known: his tiles came from the unseen ones (and the known
    #: part of his rack, which is then ``rack``: empty when none of it was known), and his rack stays
    #: unknown, or known in part (known whole when the tiles of it known are all its tiles);
    #: :meth:`Position.pop` makes it unknown again, with that known part
    known: bool = True
    #: the sizes of the racks not known given to the position before the turn (see the
    #: ``rack_sizes`` argument of :class:`Position`), one a rack, None for a known rack; None when
    #: their sizes were those the default rule gives (:attr:`Position.rack_sizes`)
    sizes: "tuple[int | None, ...] | None" = None


_new_undo = _new_tuple = tuple.__new__


def _minus(alphabet, tiles: Tiles, taken: "Iterable[int]") -> Tiles:
    """``tiles`` less the tiles ``taken`` (as many copies of each as it holds at most), sorted."""
    left = list(tiles)
    for t in taken:
        if t in left:
            left.remove(t)
    return alphabet.tiles(sorted(left))


def _unknown_exchange(move: "Move | str") -> "int | None":
    """The count of ``-N`` / ``exch N`` (an exchange whose tiles are not known), else None."""
    if isinstance(move, Move):
        if move.kind == EXCHANGE and move.tiles and all(t == THROUGH for t in move.tiles):
            return len(move.tiles)
        return None
    if not isinstance(move, str):
        return None
    m = _UNKNOWN_EXCHANGE.fullmatch(move.strip())
    return int(m.group(1) or m.group(2)) if m else None


_UNKNOWN_EXCHANGE = re.compile(r"-\s*(\d{1,2})|exch(?:ange)?\s+(\d{1,2})", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game (:meth:`Position.outcome`): how it ended, with the adjustments, and the
    final scores, in the position's order (``scores[0]`` is the score of ``racks[0]``).
    ``uncounted``: the players whose rack is not known (an opponent's on a server) and not empty,
    whose tiles left the rules' adjustment could not count: the scores are then not final. A
    player going out with the bag empty under the tournament rule wins twice every tile off the
    board, whoever holds which: nobody is uncounted then; a penalty (the scoreless turns' end, the
    club rule's for those left with tiles) takes each rack's own tiles, not known."""

    ending: Ending
    scores: tuple[int, ...]
    uncounted: tuple[int, ...] = ()

    @property
    def final(self) -> bool:
        """Are the scores final: every rack's tiles counted?"""
        return not self.uncounted

    @property
    def winners(self) -> tuple[int, ...]:
        """The players (indices into ``scores``) with the highest score: more than one on a tie."""
        best = max(self.scores)
        return tuple(i for i, s in enumerate(self.scores) if s == best)


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _points(move: Move) -> int:
    """The score of a placement pushed on trust, as an int: a whole number (None, unset, is 0), else
    :class:`~racksmith.errors.InvalidMoveError` before anything changes."""
    score = move.score
    if score is None:
        return 0
    if not _is_int(score):
        raise InvalidMoveError(
            f"the score of a move pushed with trusted=True must be a whole number of points, got {score!r} "
            f"({move.notation()}): push it without trusted=True to have it scored"
        )
    return int(score)


def _board_array(board: Any, rs: Ruleset) -> np.ndarray:
    """The board as a fresh ``uint8`` array, checked to be the ruleset's size and made of tiles
    (0..255, whole numbers) before any conversion could wrap a value round."""
    if board is None:
        return np.zeros((rs.rows, rs.cols), dtype=np.uint8)
    try:
        arr = np.asarray(board)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.dtype == object or arr.ndim != 2:
        raise PositionError(f"the board must be a {rs.rows}x{rs.cols} array of tiles (ints), one row per board row")
    if arr.shape != (rs.rows, rs.cols):
        raise PositionError(f"board shape {arr.shape} does not match the {rs.name} board ({rs.rows}x{rs.cols})")
    if arr.dtype.kind not in "iuf" or (arr.dtype.kind == "f" and not np.isfinite(arr).all()):
        raise PositionError(f"the board must hold tiles (ints), got {arr.dtype}")
    bad = (arr < 0) | (arr > 255) | (arr != np.floor(arr) if arr.dtype.kind == "f" else False)
    if bad.any():
        r, c = map(int, np.argwhere(bad)[0])
        raise PositionError(f"board square {r + 1}{chr(65 + c)} holds {arr[r, c].item()!r}, not a tile (0 empty, a letter, | 0x80 a blank)")
    return arr.astype(np.uint8)


def _rack_tiles(rack: Any, index: int, rs: Ruleset) -> Tiles:
    if isinstance(rack, str) or not hasattr(rack, "__iter__") or not all(_is_int(t) for t in rack):
        raise PositionError(
            f"rack {index + 1} must be tiles (ints, 0 for a blank), got {rack!r}: "
            "write letters with ruleset.alphabet.rack('AEINST?')"
        )
    return rs.alphabet.tiles(sorted(int(t) for t in rack))


def _set_rack(rack: Any, index: int, rs: Ruleset) -> Tiles:
    """A rack put on a position (``pos.racks[i] = ...``): letters as a rack is written
    (``"AEINST?"``) or tiles, checked at once: the alphabet's tiles, no more than a rack holds."""
    if isinstance(rack, str):
        try:
            tiles = rs.alphabet.tiles(rack)
        except UnknownLetterError as e:
            raise PositionError(f"rack {index + 1} {rack!r:.40}: {e}") from None
    elif isinstance(rack, bytes) or not hasattr(rack, "__iter__") or not all(_is_int(t) for t in rack):
        raise PositionError(f"rack {index + 1} is letters ('AEINST?', '?' a blank) or tiles (ints, 0 a blank), got "
                            f"{_args.show(rack)}")
    else:
        tiles = rs.alphabet.tiles(sorted(int(t) for t in rack))
    n = len(rs.alphabet)
    if any(t < 0 or t > n for t in tiles):
        raise PositionError(f"rack {index + 1} holds a tile outside the {rs.name} alphabet (tiles are 0 for a blank "
                            f"and 1..{n} for its letters)")
    if len(tiles) > rs.rack_size:
        raise PositionError(f"rack {index + 1} has {len(tiles)} tiles; a rack holds at most {rs.rack_size}")
    return tiles


class Racks(list[Tiles]):
    """The racks of a position (:attr:`Position.racks`, the player to move first): a list of
    :class:`~racksmith.rules.alphabet.Tiles` that reads what is put in it, letters as a rack is
    written (``pos.racks[0] = "AEINST?"``) or tile ints, and checks it at once (tiles of the
    ruleset's alphabet, no more than a rack holds, and no more of a tile than the set holds with the
    board and the other racks: refused, the racks stay as they were; "impossible position: ...", as
    :class:`Position` says). It holds one rack a player, so it neither grows
    nor shrinks (``append``, ``pop``, ``del``... are refused). A rack set with tiles is known (the
    rack of a CGP left out, or known in part, is the whole rack once set)."""

    __slots__ = ("_ruleset", "_owner")
    _ruleset: Ruleset
    _owner: "Position | None"  #: the position whose racks these are (set when read from it)

    @overload
    def __setitem__(self, index: SupportsIndex, rack: "str | Iterable[int]") -> None: ...

    @overload
    def __setitem__(self, index: slice, rack: "Iterable[str | Iterable[int]]") -> None: ...

    def __setitem__(self, index: "SupportsIndex | slice", rack: Any) -> None:
        rs = self._ruleset
        if isinstance(index, slice):
            where = range(len(self))[index]
            try:
                items = None if isinstance(rack, (str, bytes)) else list(rack)
            except TypeError:  # (not a sequence)
                items = None
            if items is None or len(items) != len(where):
                raise PositionError(f"racks[{index.start}:{index.stop}] is set to as many racks as it spans "
                                    f"({len(where)}), got {_args.show(rack)}: a position holds one rack a player")
            new = [_set_rack(r, i, rs) for i, r in zip(where, items)]
            self._put(index, new, where)
            return
        i = _args.whole(index, "a rack's index", PositionError)
        n = len(self)
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise IndexError(f"rack index {i} out of range for {n} racks")
        self._put(j, _set_rack(rack, j, rs), (j,))

    def _put(self, index: "int | slice", value: Any, where: Iterable[int]) -> None:
        """Set racks checked one by one, then with the position's board and other racks (no more
        of a tile than the set holds): refused, they are put back as they were."""
        old = list.__getitem__(self, index)
        owner = self._owner
        mine = owner is not None and owner._racks is self
        before = owner.outcome() if mine else None  # (a game over: which racks its end could not count)
        list.__setitem__(self, index, value)
        if mine:
            try:
                owner._racks_given(where, before)
            except PositionError:
                list.__setitem__(self, index, old)
                raise

    def _resize(self, *args: Any, **kwargs: Any) -> Any:
        raise PositionError(f"a position holds one rack a player ({len(self)}): set a rack instead, "
                            "pos.racks[i] = 'AEINST?' (letters) or tiles")

    append = extend = insert = pop = remove = clear = __delitem__ = __iadd__ = __imul__ = _resize

    def copy(self) -> "Racks":
        return _racks_of(self._ruleset, self)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_racks_of, (self._ruleset, list(self)))


def _one_a_player(value: Any) -> "list[Any] | None":
    """``value`` (racks or scores, one a player) as a list; None for text or what is no sequence."""
    if isinstance(value, (str, bytes)):
        return None
    try:
        return list(value)
    except TypeError:
        return None


def _racks_of(rs: Ruleset, racks: Iterable[Tiles]) -> Racks:
    """A :class:`Racks` of ``racks`` as they are (checked tiles of ``rs``): list's own
    constructor, without the checks of ``racks[i] = ...``."""
    out = Racks(racks)
    out._ruleset = rs
    out._owner = None
    return out


#: the slots of a Position that earlier pickles name without "_" (see Position.__setstate__)
_RENAMED = frozenset({"_ruleset", "_board", "_racks", "_scores", "_zero_turns"})
#: the slots of a Position that earlier pickles lack, and their value for them
_ADDED: dict[str, Any] = {"_sizes": None, "_set_at": 0, "_revealed": ()}


#: CGP opcodes that describe the turn a position was written at, stale once a move is pushed: the
#: last move and the timers
_TURN_OPCODES = frozenset({"lm", "ti", "tmr", "to"})


def _opcodes(opcodes: Any) -> tuple[tuple[str, str], ...]:
    """CGP opcodes checked: (name, value) pairs of text that write and read back as they are."""
    if isinstance(opcodes, (str, bytes)) or not isinstance(opcodes, Iterable):
        raise PositionError(f"opcodes are (name, value) pairs, got {opcodes!r:.60}")
    out = []
    for op in opcodes:
        if not (isinstance(op, (tuple, list)) and len(op) == 2 and all(isinstance(x, str) for x in op)):
            raise PositionError(f"an opcode is a (name, value) pair of texts, got {op!r:.60}")
        name, value = op
        if not name or any(ch.isspace() or ch == ";" for ch in name):
            raise PositionError(f"opcode name {name!r:.40}: one word, without ';' (e.g. 'lex')")
        if ";" in value or value != value.strip() or any(ch.isspace() and ch != " " for ch in value):
            raise PositionError(f"opcode {name} value {value!r:.40}: one line of text without ';' (spaces only inside)")
        out.append((name, value))
    return tuple(out)



def _file_stem(spec: "str | None") -> "str | None":
    """A lexicon's name from what names it: an embedded name as it is, a file path its file's stem
    (``/games/words.kwg`` -> ``words``), so records and notes carry no folder."""
    if spec is None or ("/" not in spec and os.sep not in spec and not spec.lower().endswith((".kwg", ".txt", ".dawg"))):
        return spec
    return os.path.splitext(os.path.basename(spec))[0]

class Position:
    """Board (numpy uint8 ``(rows, cols)``: 0 empty, letter, or letter | BLANK), racks
    (:class:`~racksmith.rules.alphabet.Tiles`, ``racks[0]`` the player to move), scores (same order),
    the count of consecutive scoreless turns, and the stack of moves pushed."""

    __slots__ = (
        "_ruleset", "_board", "_racks", "_scores", "_zero_turns", "opcodes", "_lexicon", "_lexicon_spec", "_stack",
        "_known", "_kept", "_sizes", "_set_at", "_revealed",
    )

    def __init__(
        self,
        ruleset: "str | Ruleset | None" = None,
        board: "np.ndarray | Sequence[Sequence[int]] | None" = None,
        racks: "Iterable[Iterable[int]]" = ((), ()),
        scores: "Iterable[int] | None" = None,
        zero_turns: int = 0,
        opcodes: "Iterable[tuple[str, str]]" = (),
        lexicon: "LexiconLike | Container[str] | None" = None,
        racks_known: "Iterable[bool] | None" = None,
        rack_sizes: "Iterable[int | None] | None" = None,
    ) -> None:
        """``racks_known``: which racks are known, one flag a rack; by default as a CGP reads them
        (:func:`~racksmith.formats.cgp.cgp_racks_known`): a rack given tiles is known, an empty
        opponent's rack is not, nor is the mover's empty rack while the bag holds tiles (he drew:
        ``Position("english")`` has both racks not known until they are set); an empty rack with
        no tile left for it is (he went out). A known rack shorter than a full one (a player near
        the end of the game, or a partial record) is taken as it is. A rack not known is given
        empty, or with the tiles of it that are known (fewer than a full rack): it is then known in
        part (:attr:`racks_partial`), and holds those tiles and unseen ones up to a full rack.

        ``rack_sizes``: how many tiles each rack holds, one a rack, where the caller knows it (a
        game of three players or more with the bag empty: how the unseen tiles split between the
        racks not known is not a full rack each "in order", :attr:`rack_sizes`); a known rack's is
        its own length (or None), a rack not known's from its known tiles to a full rack (None: by
        the default rule), and the racks not known hold no more than the unseen tiles (the bag
        holds the rest). A rack not known whose known tiles are all it holds is known; sizes
        wrong are a :class:`~racksmith.errors.PositionError` saying what is wrong."""
        self._ruleset = get_ruleset(ruleset)
        rs = self._ruleset
        self._board = _board_array(board, rs)
        if isinstance(racks, (str, bytes)) or not isinstance(racks, Iterable):
            raise PositionError(f"racks must be one rack a player, the player to move first (each tiles: ints, 0 for a "
                                f"blank), got {_args.show(racks)}")
        self._racks = _racks_of(rs, [_rack_tiles(r, i, rs) for i, r in enumerate(racks)])
        if len(self._racks) < 1:
            raise PositionError("a position needs at least one rack (the player to move)")
        if scores is not None and (isinstance(scores, (str, bytes)) or not isinstance(scores, Iterable)):
            raise PositionError(f"scores must be whole numbers, one a rack, got {_args.show(scores)}")
        self._scores = list(scores) if scores is not None else [0] * len(self._racks)
        if len(self._scores) != len(self._racks):
            raise PositionError(f"{len(self._scores)} scores for {len(self._racks)} racks")
        if not all(_is_int(x) for x in self._scores):
            raise PositionError(f"scores must be whole numbers, got {self._scores!r}")
        self._scores = [int(x) for x in self._scores]
        if not _is_int(zero_turns) or zero_turns < 0:
            raise PositionError(f"zero_turns (consecutive scoreless turns) must be a whole number >= 0, got {zero_turns!r}")
        if zero_turns > self._ruleset.zero_turn_limit:  # (at the limit: a game just ended by scoreless turns)
            raise PositionError(
                f"zero_turns {zero_turns!r}: the {self._ruleset.name} ruleset ends the game after "
                f"{self._ruleset.zero_turn_limit} consecutive scoreless turns, so the count is at most "
                f"{self._ruleset.zero_turn_limit}"
            )
        self._zero_turns = int(zero_turns)
        self.opcodes = _opcodes(opcodes)
        if racks_known is None:  # (an empty rack is not known, as in a CGP, unless the game is over)
            known = cgp_racks_known(self._board, self._racks, rs)
        else:
            if isinstance(racks_known, (str, bytes)) or not isinstance(racks_known, Iterable):
                raise PositionError(f"racks_known must be one flag (True or False) a rack, got {_args.show(racks_known)}")
            known = tuple(racks_known)
            if len(known) != len(self._racks) or not all(isinstance(k, (bool, np.bool_)) for k in known):
                raise PositionError(f"racks_known must be one flag (True or False) a rack, got {racks_known!r}")
            known = tuple(bool(k) for k in known)
            for i, (k, r) in enumerate(zip(known, self._racks)):
                if not k and len(r) >= rs.rack_size:
                    raise PositionError(
                        f"rack {i + 1} is {r}, a full rack, but racks_known says it is not known: a rack not known is "
                        f"given empty, or with the tiles of it that are known (fewer than {rs.rack_size})")
        self._known: tuple[bool, ...] | None = None if all(known) else known
        #: the sizes of the racks not known, one a rack (None for a known rack, or one whose size the
        #: default rule gives); None: the default rule for every rack (see rack_sizes)
        self._sizes: tuple[int | None, ...] | None = None
        self._stack: list[Undo] = []
        self._set_at = 0  #: how many moves were on the stack when a rack was last set (see pop)
        #: the adjustments a game over's racks set after its end added (player, points): see _count_revealed
        self._revealed: tuple[tuple[int, int], ...] = ()
        self._kept = None  #: the board as the move generator keeps it (a BoardState), set by the first moves()
        self.lexicon = lexicon  # (checked by the setter)
        self._check()
        if rack_sizes is not None:
            self._sizes = self._given_sizes(rack_sizes)
        self._settle()
        self._plain_sizes()

    # --- construction ------------------------------------------------------------------------
    @classmethod
    def from_cgp(cls, cgp: str, ruleset: "str | Ruleset | None" = None,
                 lexicon: "LexiconLike | Container[str] | None" = None) -> "Position":
        """Read a CGP line (the rack of the player to move first; an empty opponent's rack is
        unknown: see the module docstring). An empty rack of the player to move is unknown too
        while the tiles left over are more than the unknown opponents' racks hold (the game goes
        on, so he holds tiles: a record that shows his rack only in part writes it empty), and
        an empty rack otherwise (he went out); see :func:`~racksmith.formats.cgp.cgp_racks_known`.
        An opponent's rack shorter than a full one while the bag would hold tiles is known in part
        (``EEIIORS/DY``: D and Y and five tiles not known; :attr:`racks_partial`), as the CGP
        spec writes a rack only partially known; with the bag empty it is his whole rack. With no
        tile unseen, an empty rack is a known empty one (a player gone out).

        An ``rsz`` opcode (``rsz 7/1/1;``, which :meth:`cgp` writes where the default rule would
        read other rack sizes: the bag empty with racks not full, as in a game of three players or
        more or a record that shows racks only in part) gives each rack's
        size: a rack written with as many tiles is known, one written with fewer is not known (its
        tiles written, the ones of it known), and its size is the one given (``rack_sizes``).

        ``ruleset``: a name, a file or a :class:`Ruleset`; None follows the CGP's ``ld`` (letter
        distribution) opcode, or its ``lex`` opcode, when it names a ruleset or lexicon racksmith
        ships, else English. ``lexicon``: a name, a path, a lexicon object, or None for the one the
        CGP's ``lex`` opcode names when racksmith ships it, else the ruleset's own. A CGP whose
        letters are not the ruleset's raises :class:`~racksmith.errors.CGPError` naming the shipped
        rulesets that read it (``error.rulesets``)."""
        rs = get_ruleset(ruleset) if ruleset is not None else cgp_ruleset(cgp)
        p = parse_cgp(cgp, rs)
        if lexicon is None:
            lexicon = cgp_lexicon(p.opcodes, rs)
        sizes = cgp_rack_sizes(p.opcodes, p.racks, rs)
        opcodes = p.opcodes if sizes is None else tuple(op for op in p.opcodes if op[0] != RACK_SIZES_OPCODE)
        try:
            pos = cls(rs, p.board, p.racks, p.scores, p.zero_turns, opcodes, lexicon,
                      racks_known=cgp_racks_known(p.board, p.racks, rs, sizes), rack_sizes=sizes)
        except PositionError as e:
            if sizes is None or not str(e).startswith("rack_sizes:"):
                raise
            # (the sizes came from the CGP, not an argument: name its opcode)
            given = "/".join(map(str, sizes))
            raise CGPError(f"CGP '{RACK_SIZES_OPCODE} {given}':{str(e)[len('rack_sizes:'):]}") from None
        if sizes is None:
            pos._read_partial()
        return pos

    def _read_partial(self) -> None:
        """As a CGP is read: an opponent's rack shorter than a full one while the bag holds tiles
        is known in part (he would have drawn them, so those are the tiles of his rack that are
        known: the spec's partial rack)."""
        rs = self._ruleset
        known = self.racks_known
        short = [i for i, (r, k) in enumerate(zip(self._racks, known)) if i and k and 0 < len(r) < rs.rack_size]
        if short and self.bag_count > 0:
            self._known = tuple(k and i not in short for i, k in enumerate(known))

    @classmethod
    def empty(cls, ruleset: "str | Ruleset | None" = None, rack: str = "",
              lexicon: "LexiconLike | Container[str] | None" = None) -> "Position":
        rs = get_ruleset(ruleset)
        return cls(rs, None, (rs.alphabet.rack(rack), ()), None, 0, (), lexicon)

    def copy(self, stack: bool = True) -> "Position":
        """An independent copy (its own board); with ``stack``, the moves pushed come along and
        :meth:`pop` on the copy takes them back too."""
        if type(stack) is not bool:
            stack = _args.flag(stack, "stack", PositionError)
        p = Position.__new__(Position)
        p._ruleset = self._ruleset
        p._board = self._board.copy()
        p._racks = self._racks.copy()
        p._scores = list(self._scores)
        p._zero_turns = self._zero_turns
        p.opcodes = self.opcodes if stack else self.current_opcodes
        p._lexicon = self._lexicon
        p._lexicon_spec = self._lexicon_spec
        p._stack = self._stack.copy() if stack else []
        p._known = self._known
        p._sizes = self._sizes
        p._set_at = self._set_at if stack else 0
        p._revealed = self._revealed
        p._kept = None
        return p

    def __copy__(self) -> "Position":
        """``copy.copy``: an independent copy, as :meth:`copy` (never one sharing the board)."""
        return self.copy()

    def __deepcopy__(self, memo: dict) -> "Position":
        return self.copy()

    def __getstate__(self) -> dict:
        """What pickling keeps: everything but the kernel's board (rebuilt by the next
        :meth:`moves`) and a lexicon loaded from a name or path (loaded again on first use); a
        lexicon object given to the position travels with it."""
        state = {name: getattr(self, name) for name in self.__slots__}
        state["_kept"] = None
        if self._lexicon is not self._lexicon_spec:
            state["_lexicon"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        for name in self.__slots__:
            # (earlier pickles name some without "_": the ruleset and the board, and the racks,
            # scores and zero_turns, which were plain attributes then)
            old = name[1:] if name in _RENAMED else name
            if name not in state and old not in state and name in _ADDED:
                object.__setattr__(self, name, _ADDED[name])
                continue
            object.__setattr__(self, name, state[name] if name in state else state[old])
        if type(self._racks) is not Racks:
            self._racks = _racks_of(self._ruleset, self._racks)

    # --- the ruleset and the board -------------------------------------------------------------
    @property
    def ruleset(self) -> Ruleset:
        """The rules of the game, fixed for the position's life (its tiles are read in them)."""
        return self._ruleset

    @ruleset.setter
    def ruleset(self, value: Any) -> None:
        raise PositionError("a position's ruleset cannot change (its board and racks are tiles of that ruleset): make a "
                            "new position, e.g. Position.from_cgp(pos.cgp(), ruleset=...)")

    @property
    def board(self) -> np.ndarray:
        """The board: a ``uint8`` array ``(rows, cols)``, 0 empty, a letter, or a letter | BLANK."""
        return self._board

    @board.setter
    def board(self, value: Any) -> None:
        """Set up another board (an analysis board's editor): checked as the constructor checks
        one (shape, tiles of the ruleset, no more of a tile than the set holds with the racks).
        The moves pushed no longer apply to it, so the stack is cleared (:meth:`pop` has nothing to
        take back), as python-chess clears its move stack when a board is set up."""
        old = self._board
        self._board = _board_array(value, self._ruleset)
        try:
            self._check()
        except PositionError:
            self._board = old
            raise
        self._stack = []
        self._set_at = 0
        self._settle()

    # --- racks, scores and the count of scoreless turns -------------------------------------------
    @property
    def racks(self) -> Racks:
        """The racks, ``racks[0]`` the player to move: a :class:`Racks` (a list of
        :class:`~racksmith.rules.alphabet.Tiles`, one a player). A rack is set with letters or tiles,
        checked at once (with the board and the other racks too: no more of a tile than the set
        holds): ``pos.racks[0] = "AEINST?"``; a rack so set is known (:attr:`racks_known`), whole,
        even where the CGP left it out or gave it in part. :meth:`pop` then gives a move's mover
        his rack back as it was before the move (refused where it no longer fits). A game over whose
        end could not count a rack not known counts it once it is set (:meth:`outcome`), and
        again, in place of the first count, when it is set again (a slip corrected)."""
        racks = self._racks
        if type(racks) is Racks:
            racks._owner = self  # (so that racks[i] = ... marks the rack known)
        return racks

    @racks.setter
    def racks(self, value: "Iterable[str | Iterable[int]]") -> None:
        n = len(self._racks)
        racks = _one_a_player(value)
        if racks is None or len(racks) != n:
            raise PositionError(f"racks are one rack a player ({n}), the player to move first, each letters "
                                f"('AEINST?') or tiles, got {_args.show(value)}")
        old = self._racks
        new = _racks_of(self._ruleset, [_set_rack(r, i, self._ruleset) for i, r in enumerate(racks)])
        before = self.outcome()  # (a game over: which racks its end could not count)
        self._racks = new
        try:
            self._racks_given(range(n), before)
        except PositionError:
            self._racks = old
            raise

    def _racks_given(self, indices: Iterable[int], before: "Outcome | None" = None) -> None:
        """Racks set by the caller: checked with the board and the other racks (no more of a tile
        than the set holds; the sizes given to the racks not known still fit the unseen tiles),
        else :class:`~racksmith.errors.PositionError` (the caller puts the racks back); those given
        tiles are known (whole) from now on. ``before``: the outcome before they were set (None
        while the game goes on): the racks its end could not count are counted now where they can
        be (:meth:`_count_revealed`)."""
        known_before, sizes_before = self._known, self._sizes
        if known_before is not None:
            known = list(known_before)
            for i in indices:
                if self._racks[i]:
                    known[i] = True
            self._set_known(known)
        try:
            self._check_tiles()
        except PositionError:
            self._known, self._sizes = known_before, sizes_before
            raise
        self._set_at = len(self._stack)  # (a move pushed before gives its mover's rack back: see pop)
        self._settle()
        if before is None or not self.is_over:
            return
        again = [i for i in indices if any(p == i for p, _ in self._revealed)]
        if again:  # (a rack counted once shown, set again: a slip corrected; counted again, as it is now)
            self._uncount(again)
        if before.uncounted or again:
            self._count_revealed((*before.uncounted, *again))

    def _uncount(self, players: "Sequence[int]") -> None:
        """Take back the adjustments :meth:`_count_revealed` added for ``players`` (from the scores,
        and from the ending of the push that ended the game)."""
        taken = [(p, points) for p, points in self._revealed if p in players]
        for p, points in taken:
            self._scores[p] -= points
        self._revealed = tuple(r for r in self._revealed if r not in taken)
        stack = self._stack
        if stack and stack[-1].ending is not None:
            old = stack[-1].ending
            kept = tuple(adj for adj in old.adjustments if adj.player not in players)
            stack[-1] = stack[-1]._replace(ending=turns.Ending(old.reason, old.player, kept))

    def _count_revealed(self, uncounted: "Sequence[int]") -> None:
        """A game over whose end could not count some racks (not known: ``uncounted``, as
        :attr:`Outcome.uncounted` said before racks were set) counts those now known, or certain:
        the adjustment the rules give each of them (his rack penalty) is added to the scores, as a
        push that ends the game adds it, and to the ending of the push that ended it (which
        :meth:`outcome` reports and :meth:`pop` takes back). So the scores of a game over are
        always those of its racks counted (final once every rack is: what :meth:`cgp` writes, a
        finished game's CGP, reads back as final with them), never the racks' before they were
        known. A game the racks set reopened (:attr:`is_over` false) is left as it is."""
        if not self.is_over:
            return
        stack = self._stack
        last = stack[-1] if stack and stack[-1].ending is not None else None
        if last is not None:
            old = last.ending
            assert old is not None
            fresh = turns.ending(self._ruleset, self._ending_racks(), old.player, self._zero_turns,
                                 old.reason == turns.EndReason.OUT, self._leftover())
        else:
            fresh = self._ending_now()
        if fresh is None:  # pragma: no cover - a game over has an ending
            return
        still = self._uncounted(fresh)
        counted = {i for i in uncounted if i not in still}
        added = tuple(adj for adj in fresh.adjustments if adj.player in counted)
        if not added:
            return
        for adj in added:
            self._scores[adj.player] += adj.points
        self._revealed = (*self._revealed, *((adj.player, adj.points) for adj in added))
        if last is not None:
            order = [adj.player for adj in fresh.adjustments]
            merged = sorted((*old.adjustments, *added),
                            key=lambda adj: order.index(adj.player) if adj.player in order else len(order))
            stack[-1] = last._replace(ending=turns.Ending(old.reason, old.player, tuple(merged)))

    def _set_known(self, known: "Sequence[bool]") -> None:
        """Which racks are known, and the sizes given to those that are not (a known rack's is its own)."""
        if all(known):
            self._known = self._sizes = None
            return
        self._known = tuple(known)
        sizes = self._sizes
        if sizes is not None:
            sizes = tuple(None if k else n for n, k in zip(sizes, known))
            self._sizes = None if all(n is None for n in sizes) else sizes

    @property
    def scores(self) -> list[int]:
        """The scores, in the order of :attr:`racks`: a list of ints (``pos.scores[0] += 5`` records a
        bonus; a list set is checked at once)."""
        return self._scores

    @scores.setter
    def scores(self, value: "Iterable[int | np.integer[Any]]") -> None:
        n = len(self._racks)
        scores = _one_a_player(value)
        if scores is None or len(scores) != n or not all(_is_int(x) for x in scores):
            raise PositionError(f"scores are whole numbers, one a rack ({n}), got {_args.show(value)}")
        self._scores = [int(x) for x in scores]

    @property
    def zero_turns(self) -> int:
        """The count of consecutive scoreless turns (the game ends when it reaches
        ``ruleset.zero_turn_limit``)."""
        return self._zero_turns

    @zero_turns.setter
    def zero_turns(self, value: "int | np.integer[Any]") -> None:
        limit = self._ruleset.zero_turn_limit
        if not _is_int(value) or not 0 <= value <= limit:
            raise PositionError(f"zero_turns (consecutive scoreless turns) is a whole number from 0 to {limit} (the "
                                f"{self._ruleset.name} ruleset ends the game after {limit}), got {_args.show(value)}")
        self._zero_turns = int(value)

    if not TYPE_CHECKING:
        # the same properties with C getters (attrgetter): the move generator and the game loops read
        # them on every call, and a Python getter costs a quarter more (the ones above are what type
        # checkers read: their types, and the docstrings these take)
        scores = property(operator.attrgetter("_scores"), scores.fset, doc=scores.__doc__)
        zero_turns = property(operator.attrgetter("_zero_turns"), zero_turns.fset, doc=zero_turns.__doc__)

    def _check_scores(self) -> None:
        """The scores are a list that can be written to in place (``pos.scores[i] += 5`` records a
        bonus): before they are written or added to, they must still be whole numbers."""
        scores = self._scores
        z = self._zero_turns
        if type(scores) is list and type(z) is int and z >= 0 and len(scores) == len(self._racks):
            # (as they are unless a caller wrote something else there: plain ints, looked at without a loop)
            if len(scores) == 2:
                if type(scores[0]) is int and type(scores[1]) is int:
                    return
            elif all(type(x) is int for x in scores):
                return
        self._check_scores_in_full()

    def _check_scores_in_full(self) -> None:
        scores = self._scores
        if type(scores) is not list or len(scores) != len(self._racks) or not all(type(x) is int for x in scores):
            if (isinstance(scores, (str, bytes)) or not isinstance(scores, Iterable) or len(list(scores)) != len(self._racks)
                    or not all(_is_int(x) for x in scores)):
                raise PositionError(f"scores must be a list of whole numbers, one a rack ({len(self._racks)}), got "
                                    f"{_args.show(scores)}")
            self._scores = [int(x) for x in scores]
        z = self._zero_turns
        if type(z) is not int or z < 0:
            if not _is_int(z) or z < 0:
                raise PositionError(f"zero_turns (consecutive scoreless turns) must be a whole number >= 0, got "
                                    f"{_args.show(z)}")
            self._zero_turns = int(z)

    def _check(self) -> None:
        rs = self._ruleset
        n = len(rs.alphabet)
        b = self._board
        letters = b & LETTER_MASK
        bad = (b != 0) & ((letters == 0) | (letters > n) | ((b & 0x40) != 0))
        if bad.any():
            r, c = map(int, np.argwhere(bad)[0])
            raise PositionError(f"board square {r + 1}{chr(65 + c)} holds tile {int(b[r, c])}, not a tile of {rs.name}")
        for i, rack in enumerate(self._racks):
            if any(t < 0 or t > n for t in rack):
                raise PositionError(f"rack {i + 1} holds a tile outside the {rs.name} alphabet")
            if len(rack) > rs.rack_size:
                raise PositionError(f"rack {i + 1} has {len(rack)} tiles; a rack holds at most {rs.rack_size}")
        self._check_tiles()

    def _check_tiles(self) -> None:
        """No more of a tile on the board and the racks than the set holds, and the racks not known
        whose sizes were given hold no more than the unseen tiles; else PositionError."""
        rs = self._ruleset
        bag = self._bag_signed()
        if (bag < 0).any():
            t = int(np.argmax(bag < 0))
            name = "blank" if t == 0 else repr(rs.alphabet.letter(t))
            raise PositionError(
                f"impossible position: {int(rs.counts[t] - bag[t])} {name} tiles on the board and racks, "
                f"but the {rs.name} set has only {rs.counts[t]}"
            )
        if self._sizes is not None and self._known is not None:
            self._check_sizes(self._sizes)

    def _check_sizes(self, sizes: "Sequence[int | None]") -> None:
        """The sizes of the racks not known (None: by the default rule) fit: each from the tiles
        of it known to a full rack, and together no more than the unseen tiles."""
        rs = self._ruleset
        known = self.racks_known
        extra = 0
        for i, (n, rack, k) in enumerate(zip(sizes, self._racks, known)):
            if k or n is None:
                continue
            if n > rs.rack_size:
                raise PositionError(f"rack_sizes: rack {i + 1} holds {n} tiles; a rack holds at most {rs.rack_size}")
            if n < len(rack):
                raise PositionError(f"rack_sizes: rack {i + 1} holds {n} tile{'s' if n != 1 else ''}, fewer than the "
                                    f"{len(rack)} of it that are known ({rack})")
            extra += n - len(rack)
        unseen = self.unseen_count
        if extra > unseen:
            raise PositionError(
                f"rack_sizes: the racks not known hold {extra} tiles besides those of them known, but only {unseen} "
                f"tile{'s are' if unseen != 1 else ' is'} unseen (on neither the board nor a rack given): the bag "
                "cannot hold fewer than none"
            )

    def _given_sizes(self, value: Any) -> "tuple[int | None, ...] | None":
        """The constructor's ``rack_sizes``, checked (one a rack: a known rack's its own length or
        None, a rack not known's a whole number, or None for the default rule), as ``_sizes``."""
        n = len(self._racks)
        sizes = _one_a_player(value)
        if (sizes is None or len(sizes) != n
                or not all(x is None or (_is_int(x) and x >= 0) for x in sizes)):
            raise PositionError(f"rack_sizes must be one size a rack ({n}): a whole number of tiles (0 or more), or "
                                f"None for a known rack, got {_args.show(value)}")
        known = self.racks_known
        out: list[int | None] = []
        for i, (x, rack, k) in enumerate(zip(sizes, self._racks, known)):
            if k and x is not None and x != len(rack):
                raise PositionError(f"rack_sizes: rack {i + 1} is known, {rack}, so it holds {len(rack)} "
                                    f"tile{'s' if len(rack) != 1 else ''}, not {x}")
            out.append(None if k or x is None else int(x))
        self._check_sizes(out)
        return None if all(x is None for x in out) else tuple(out)

    def _plain_sizes(self) -> None:
        """Sizes given that the default rule gives anyway are dropped (positions whose racks not
        known are full while the unseen tiles allow take the common path); those kept are all
        given (a rack whose size was left to the default rule gets the one it gave)."""
        sizes = self._sizes
        if sizes is None:
            return
        if self._known is None:
            self._sizes = None
            return
        wanted = self.rack_sizes
        self._sizes = None
        if self.rack_sizes != wanted:
            self._sizes = tuple(None if k else x for x, k in zip(wanted, self._known))

    # --- tiles ---------------------------------------------------------------------------------
    def _bag_signed(self) -> np.ndarray:
        """The tiles on neither the board nor a rack (known, or the known part of one), by tile
        (negative when impossible)."""
        return turns.unseen_counts(self._ruleset, self._board, self._racks)  # (an unknown rack is empty)

    @property
    def racks_known(self) -> tuple[bool, ...]:
        """Which racks are known, in the order of :attr:`racks` (an unknown rack is empty in
        :attr:`racks`, or holds the tiles of it that are known: :attr:`racks_partial`;
        :attr:`rack_sizes` says how many tiles it holds)."""
        return self._known if self._known is not None else (True,) * len(self._racks)

    @property
    def racks_partial(self) -> tuple[bool, ...]:
        """Which racks are known only in part, in the order of :attr:`racks`: not known
        (:attr:`racks_known` False) but with some of their tiles known, which are in :attr:`racks`
        (``EEIIORS/DY`` mid-game: the opponent's D and Y, and five tiles not known). Such a rack
        holds as many tiles as an unknown one (:attr:`rack_sizes`); once its known tiles are all
        it holds (the bag empty, no unseen tile left for it) it is known whole."""
        known = self._known
        if known is None:
            return (False,) * len(self._racks)
        return tuple(not k and bool(r) for r, k in zip(self._racks, known))

    @property
    def rack_sizes(self) -> tuple[int, ...]:
        """How many tiles each rack holds: a known rack its own, an unknown one a full rack while
        the unseen tiles allow (``min(rack_size, unseen)``, unknown racks in order), the rest
        being in the bag; a rack known in part, its known tiles and as many unseen ones as that
        allows; a rack not known whose size was given (the ``rack_sizes`` of :class:`Position`:
        the bag empty with racks not full, as in a game of three players or more), that size."""
        if self._known is None:
            return tuple(map(len, self._racks))
        given = self._sizes
        if given is not None:
            return self._given_rack_sizes(given)
        left = self.unseen_count
        sizes = []
        for rack, known in zip(self._racks, self._known):
            if known:
                sizes.append(len(rack))
            else:
                n = min(self._ruleset.rack_size - len(rack), max(left, 0))
                left -= n
                sizes.append(len(rack) + n)
        return tuple(sizes)

    def _given_rack_sizes(self, given: "Sequence[int | None]") -> tuple[int, ...]:
        """:attr:`rack_sizes` with sizes given: those of the racks not known given, the others'
        by the default rule from the unseen tiles the given ones leave."""
        known = self._known
        assert known is not None
        racks = self._racks
        left = self.unseen_count - sum(n - len(r) for n, r, k in zip(given, racks, known) if not k and n is not None)
        sizes = []
        for rack, k, n in zip(racks, known, given):
            if k:
                sizes.append(len(rack))
            elif n is not None:
                sizes.append(n)
            else:
                n = min(self._ruleset.rack_size - len(rack), max(left, 0))
                left -= n
                sizes.append(len(rack) + n)
        return tuple(sizes)

    @property
    def unseen_count(self) -> int:
        """How many tiles are on neither the board nor a rack (known, or the known part of one):
        the bag and the tiles of the racks not known."""
        return self._ruleset.total_tiles - int(np.count_nonzero(self._board)) - sum(map(len, self._racks))

    def unseen_counts(self) -> np.ndarray:
        """The tiles on neither the board nor a rack (known, or the known part of one): the bag
        and the tiles of the racks not known, by tile; index 0 = blanks."""
        return self._bag_signed()

    def unseen_tiles(self) -> Tiles:
        """The tiles on neither the board nor a known rack, sorted (blanks last)."""
        return self._ruleset.alphabet.tiles([t for t, n in enumerate(self._bag_signed().tolist()) for _ in range(n)])

    def bag_counts(self) -> np.ndarray:
        """The tiles in the bag, by tile (index 0 = blanks). When a rack is unknown, which unseen
        tiles are in the bag is not known: this is then every unseen tile (:meth:`unseen_counts`),
        of which :attr:`bag_count` are in the bag."""
        return self._bag_signed()

    @property
    def bag_count(self) -> int:
        """How many tiles are in the bag: exact, also when a rack is unknown (the unseen tiles
        less those the unknown racks hold, see :attr:`rack_sizes`)."""
        if self._known is None:
            return self._ruleset.total_tiles - int(np.count_nonzero(self._board)) - sum(map(len, self._racks))
        return self.unseen_count - sum(s - len(r) for s, r, k in zip(self.rack_sizes, self._racks, self._known) if not k)

    def bag_tiles(self) -> Tiles:
        """The tiles in the bag, sorted (when a rack is unknown: the unseen tiles, see :meth:`bag_counts`)."""
        return self.unseen_tiles()

    def inferred_racks(self) -> list[Tiles | None]:
        """Every rack as far as it is known: a known rack as it is; an unknown rack whose tiles are
        certain (the bag is empty and it is the only unknown rack holding tiles not known: it
        holds every unseen tile, and its known part if any) as those tiles; None for an unknown
        rack whose tiles are not known."""
        if self._known is None:
            return list(self._racks)
        sizes = self.rack_sizes
        holders = [i for i, (k, n, r) in enumerate(zip(self._known, sizes, self._racks)) if not k and n > len(r)]
        certain = self.bag_count == 0 and len(holders) <= 1
        out: list[Tiles | None] = []
        for i, (rack, known) in enumerate(zip(self._racks, self._known)):
            if known:
                out.append(rack)
            elif not certain:
                out.append(None)
            else:
                out.append(self._ruleset.alphabet.tiles(sorted([*rack, *self.unseen_tiles()])) if i in holders else rack)
        return out

    def _resolved(self) -> "Position":
        """This position, or a copy with the racks whose tiles are certain filled in (the moves of
        an endgame whose opponent's rack the CGP left out) and the known part of a rack whose
        tiles are not all known taken off (the moves of a mover known only in part are the pass
        alone, as a mover not known at all; an opponent's known part is not his rack's value)."""
        if self._known is None:
            return self
        inferred = self.inferred_racks()
        if all(k or (r is None and not self._racks[i]) for i, (r, k) in enumerate(zip(inferred, self._known))):
            return self
        p = self.copy(stack=False)
        p._kept = self._kept
        a = self._ruleset.alphabet
        p._racks = _racks_of(self._ruleset, [r if r is not None else a.tiles() for r in inferred])
        p._set_known([r is not None for r in inferred])  # (a rack still not known keeps the size given it)
        return p

    def _settle(self, seats: "Iterable[int] | None" = None) -> None:
        """A rack known in part whose known tiles are all its tiles (the bag empty, no unseen tile
        left for it: :meth:`inferred_racks` gives its known part) is known whole from now on
        (``seats``: only those racks; None: every one). Only when it is the one rack not known:
        with two, how the unseen tiles are split between them is a guess — unless their sizes
        were given: then a rack not known whose size is the count of its known tiles (none: an
        empty rack, a player gone out) is known. With no tile unseen, every rack is known (each
        holds the tiles of it known, an empty one none: as :meth:`from_cgp` reads it)."""
        known = self._known
        if known is not None and self.unseen_count == 0:  # every rack holds what of it is known: all of it
            self._set_known((True,) * len(known))
            return
        if known is not None and self._sizes is not None:
            sizes = self.rack_sizes
            chosen = None if seats is None else set(seats)
            now = [k or ((chosen is None or i in chosen) and n == len(r))
                   for i, (r, k, n) in enumerate(zip(self._racks, known, sizes))]
            if now != list(known):
                self._set_known(now)
            return
        if known is None or self.bag_count:
            return
        if len(known) > 2:
            # the bag empty in a game of three or more: the default rule's sizes (a full rack each "in
            # order") are the position's, as its CGP writes them (``rsz``): a rack not known whose size
            # is the count of its known tiles (none: a player gone out) is known, as it reads back
            sizes = self.rack_sizes
            chosen = None if seats is None else set(seats)
            seats = chosen
            now = [k or ((chosen is None or i in chosen) and n == len(r))
                   for i, (r, k, n) in enumerate(zip(self._racks, known, sizes))]
            if now != list(known):
                self._set_known(now)
                if self.rack_sizes != sizes:  # (the others' sizes by the rule changed with it: left as it was)
                    self._known = known
                else:
                    known = self._known
                    if known is None:
                        return
        if not any(r and not k for r, k in zip(self._racks, known)):
            return
        if sum(not k for k in known) != 1:  # (two racks not known share the unseen tiles: how, nobody knows)
            return
        inferred = self.inferred_racks()
        now = list(known)
        for i in range(len(now)) if seats is None else seats:
            rack, certain = self._racks[i], inferred[i]
            if not now[i] and rack and certain is not None and len(certain) == len(rack):
                now[i] = True
        self._known = None if all(now) else tuple(now)

    @property
    def rack(self) -> Tiles:
        """The rack of the player to move (``str(pos.rack) == "AEINST?"``)."""
        return self._racks[0]

    @property
    def rack_string(self) -> str:
        return str(self._racks[0])

    @property
    def is_empty(self) -> bool:
        """No tile on the board yet (the next play is an opening)."""
        return not self._board.any()

    def tile_at(self, row: int, col: int) -> int:
        """The tile on a square, ``row`` and ``col`` counted from 0: 0 when empty, else the letter
        (with :data:`~racksmith.rules.alphabet.BLANK` set for a blank)."""
        rows, cols = self._board.shape
        if not (_is_int(row) and _is_int(col)):
            raise PositionError(f"a square is a row and a column (whole numbers, from 0), got {row!r}, {col!r}")
        if not (0 <= row < rows and 0 <= col < cols):
            raise PositionError(
                f"row {row}, column {col} is off the {rows}x{cols} board: rows are 0..{rows - 1} and columns "
                f"0..{cols - 1}, counted from 0"
            )
        return int(self._board[row, col])

    # --- lexicon -------------------------------------------------------------------------------
    @property
    def lexicon(self) -> "Lexicon":
        """The lexicon, loaded on first use (the ruleset's default when none was given); an
        object given only to validate words (a set) is returned as it was given."""
        if self._lexicon is None:
            spec = self._lexicon_spec if self._lexicon_spec is not None else self._ruleset.lexicon
            if spec is None:
                raise PositionError(f"ruleset {self._ruleset.name} names no default lexicon: pass lexicon=")
            self._lexicon = load_lexicon(spec, ruleset=self._ruleset)
        return self._lexicon

    @lexicon.setter
    def lexicon(self, value: "LexiconLike | Container[str] | None") -> None:
        """A lexicon's name or path (loaded on first use), a loaded lexicon of this ruleset's
        alphabet, or any object answering ``word in lexicon`` (for validation only)."""
        loaded = value is not None and not isinstance(value, (str, bytes)) and not hasattr(value, "__fspath__")
        if loaded:
            if not hasattr(type(value), "__contains__"):
                raise PositionError(f"lexicon must be a name, a path or a loaded lexicon, got {type(value).__name__} "
                                    f"{value!r:.40}")
            letters = getattr(getattr(value, "alphabet", None), "letters", None)
            if letters is not None and tuple(letters) != tuple(self._ruleset.alphabet.letters):
                raise PositionError(f"lexicon {getattr(value, 'name', '') or '(loaded)'} is spelled in another alphabet "
                                    f"than ruleset {self._ruleset.name}'s: load it for this ruleset, or choose the "
                                    "ruleset of its language")
        self._lexicon = value if loaded else None
        self._lexicon_spec = value

    @property
    def lexicon_name(self) -> str | None:
        """The name of the lexicon, without loading it: the name or path given, the loaded
        lexicon's name, or the ruleset's default."""
        if self._lexicon is not None:
            return getattr(self._lexicon, "name", None) or _file_stem(self._ruleset.lexicon)
        spec = self._lexicon_spec
        if spec is None:
            return _file_stem(self._ruleset.lexicon)  # a ruleset file's lexicon is a path: its name
        if hasattr(spec, "__fspath__"):
            return os.path.splitext(os.path.basename(os.fspath(spec)))[0]
        return _file_stem(os.fsdecode(spec) if isinstance(spec, bytes) else str(spec))

    # --- formats -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain data (what ``racksmith show --json`` prints): the board as letters (lowercase =
        blank, ``""`` = empty), the premium layout, racks (an unknown rack is ``""``, with
        ``racks_known`` false and its size in ``rack_sizes``; a rack known in part is its known
        tiles, with ``racks_partial`` true), scores, zero-turn count, the bag
        (``bag_count`` tiles; ``bag`` by letter, which with an unknown rack is every unseen tile)
        and the unseen tiles (``unseen``: on neither the board nor a known rack)."""
        rs = self._ruleset
        a = rs.alphabet
        unseen = self.unseen_counts().tolist()
        by_letter = {("?" if t == 0 else a.letter(t)): n for t, n in enumerate(unseen) if n}
        return {
            "ruleset": rs.name,
            "cgp": self.cgp(),
            "rows": rs.rows,
            "cols": rs.cols,
            "board": [[a.letter(int(t)) if t else "" for t in row] for row in self._board.tolist()],
            "premiums": rs.layout(),
            "racks": [a.rack_string(r, blanks_last=True) for r in self._racks],
            "racks_known": list(self.racks_known),
            "racks_partial": list(self.racks_partial),
            "rack_sizes": list(self.rack_sizes),
            "scores": list(self._scores),
            "zero_turns": self._zero_turns,
            "bag_count": self.bag_count,
            "bag": by_letter,
            "unseen_count": int(sum(unseen)),
            "unseen": by_letter,
        }

    def cgp(self, *, known_parts: bool = False) -> str:
        """The position as CGP. Once a move is pushed, the opcodes that described the position it was
        made from (``lm``, the last move; the timers ``ti``, ``tmr``, ``to``) are left out: they no
        longer hold (popping back to it writes them again).

        A rack known in part is written as its known tiles (read back the same way while the bag
        holds tiles, and with the bag empty as the whole rack it then is) — but the mover's is
        written empty, not known: the format takes the mover's short rack for his whole rack.
        An opponent's rack known whole but short while the bag holds tiles (a game never has one:
        ``push(..., draw=None)`` makes it, for a rack set later) reads back as known in part, as the
        CGP spec has it: such a position does not round-trip (nor does its ``repr``).

        With the bag empty, the racks not known whose tiles are certain (:meth:`inferred_racks`)
        are written whole where the CGP would otherwise read back as another position: the rack
        left with a player when his opponent went out (``Q/``, not ``/``, which reads as the Q
        holder gone out). Otherwise they are written as above, and read back as the same racks.

        The sizes of racks not known (:attr:`rack_sizes`) that a reader would not take from the
        racks written (the bag empty with racks not full: it would give them a full rack each "in
        order", and take an empty rack written for the mover's for that of a player gone out; in a
        game of three players or more, or two racks both not known) are written in an ``rsz`` opcode, each rack's size in the order of the racks
        (``rsz 7/1/1;``), with each rack not known written as its known tiles (the mover's too):
        :meth:`from_cgp` reads them back. CGP has no field for it; other readers ignore an opcode
        they do not know (Macondo does; MAGPIE's ``cgp`` command takes the four fields alone), and
        none is written for a position the default rule reads back (a two-player game's with one
        rack known). One is written too for a rack known and empty while the bag holds tiles (a
        position made so in code), which a reader would take for one not known.

        ``known_parts`` true: a mover's rack known in part is written too, as its known tiles with
        an ``rsz`` opcode (``EQSX/ACILOOR 0/84 0 rsz 7/7;``), which :meth:`from_cgp` reads back as
        the same rack known in part (a reader that skips the opcode takes those tiles for his whole
        rack): the web analyzer writes its positions so, which the page sends back as the game goes on."""
        self._check_scores()
        racks = self._racks
        opcodes = self.current_opcodes
        if opcodes and any(op[0] == RACK_SIZES_OPCODE for op in opcodes):  # (one given as an opcode: stale)
            opcodes = tuple(op for op in opcodes if op[0] != RACK_SIZES_OPCODE)
        if known_parts and self.bag_count and self.racks_partial[0]:
            return format_cgp(self._board, racks, self._scores, self._zero_turns,
                              (*opcodes, rack_sizes_opcode(self.rack_sizes)), self._ruleset)
        if self._known is not None:
            if not self._known[0] and racks[0]:
                racks = [self._ruleset.alphabet.tiles(), *racks[1:]]
            racks = self._racks_to_write(racks)
            # (sizes given, or a game of three players or more: the racks not known may read back with
            # other sizes without them, even where the default rule gives them here: a player gone out,
            # an empty rack written, is taken for the mover's)
            # (or the mover's rack known and empty with tiles in the bag, made so in code: a reader
            # takes an empty rack written for the mover's for one not known, who drew)
            if ((self._sizes is not None or len(racks) > 2
                 or (self.bag_count and any(k and not r for k, r in zip(self._known, racks))))
                    and not self._reads_back(racks)):
                racks = self._racks
                opcodes = (*opcodes, rack_sizes_opcode(self.rack_sizes))
        elif self.bag_count and not all(racks) and not self._reads_back(racks):  # (every rack known, one empty)
            opcodes = (*opcodes, rack_sizes_opcode(self.rack_sizes))
        return format_cgp(self._board, racks, self._scores, self._zero_turns, opcodes, self._ruleset)

    def _racks_to_write(self, racks: "Sequence[Tiles]") -> "Sequence[Tiles]":
        """The racks :meth:`cgp` writes, ``racks`` (a rack not known empty, or its known part): as
        they are, unless with the bag empty they would read back otherwise (a rack that holds tiles,
        written empty, taken for the rack of a player who went out, when the game is over): then
        the racks whose tiles are certain (:meth:`inferred_racks`) are written whole."""
        if self.bag_count or self._reads_back(racks):
            return racks
        inferred = self.inferred_racks()
        sizes = self.rack_sizes
        return [inferred[i] if not k and inferred[i] is not None and sizes[i] > len(self._racks[i]) else r
                for i, (r, k) in enumerate(zip(racks, self._known or ()))]

    def _reads_back(self, racks: "Sequence[Tiles]") -> bool:
        """Does a CGP of this position with ``racks`` written read back as this position: the same
        rack sizes, the same tiles on the racks whose tiles are known or certain, the same racks
        known, and the same known tiles of those known in part?"""
        rs = self._ruleset
        q = Position.__new__(Position)
        q._ruleset, q._board, q._sizes = rs, self._board, None
        q._racks = _racks_of(rs, racks)
        known = cgp_racks_known(self._board, q._racks, rs)
        q._known = None if all(known) else known
        q._read_partial()
        if q.rack_sizes != self.rack_sizes or q.inferred_racks() != self.inferred_racks():
            return False
        if len(racks) <= 2:  # (two players: what the default reading gives, as it was; see cgp())
            return True
        return q.racks_known == self.racks_known and all(
            q._racks[i] == self._racks[i] for i, k in enumerate(self.racks_known) if not k)

    @property
    def current_opcodes(self) -> tuple[tuple[str, str], ...]:
        """The opcodes that still hold here: :attr:`opcodes` less, once a move is pushed, ``lm`` (the
        last move) and the timers ``ti``, ``tmr``, ``to``, which described the position before."""
        opcodes = self.opcodes
        if self._stack and opcodes:
            return tuple(op for op in opcodes if op[0].lower() not in _TURN_OPCODES)
        return opcodes

    def __repr__(self) -> str:
        return f"Position.from_cgp({self.cgp()!r}, ruleset={self._ruleset.name!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self._ruleset == other.ruleset
            and np.array_equal(self._board, other.board)
            and self._racks == other.racks
            and self._scores == other.scores
            and self._zero_turns == other.zero_turns
            and self.racks_known == other.racks_known
            and (self._sizes is None and other._sizes is None or self.rack_sizes == other.rack_sizes)
        )

    __hash__ = None  # mutable

    # --- playing moves ------------------------------------------------------------------------
    def push(
        self,
        move: "Move | str",
        draw: "str | Iterable[int] | None" = None,
        *,
        check_words: bool = True,
        trusted: bool = False,
    ) -> Undo:
        """Play a move here, in place: the tiles go on the board, the mover's score grows by the
        move's score, his rack loses the tiles played and gains ``draw`` (tiles drawn from the bag:
        letters such as ``"EIR?"`` or tile ints, as many as the move took from the rack or as the
        bag holds, whichever is fewer: a rack is refilled while the bag has tiles; None draws
        nothing), the scoreless-turn count is
        updated, and the next player is to move (racks and scores rotate: ``racks[0]`` is always
        the player to move). Exchanges (the tiles go back to the bag; ``draw`` is drawn before
        they do) and passes too. Returns the :class:`Undo` record that :meth:`pop` uses.

        The move is checked first (:func:`racksmith.core.validation.check_move`, words looked up in
        the position's lexicon unless ``check_words=False``): an illegal move raises
        :class:`~racksmith.errors.IllegalMoveError` with its reason, a draw the bag cannot supply
        (or that overfills the rack, or leaves it short) a :class:`~racksmith.errors.PositionError`, and the position
        is left exactly as it was. ``trusted=True`` skips the legality check and the check of which
        tiles the bag holds, for moves a generator made (their ``score`` is used as is) and tiles
        a :class:`~racksmith.core.bag.Bag` drew; the rack and the squares are still checked, and so
        are the cheap things (the score is a whole number, the draw is rack tiles of the alphabet,
        no more than the bag holds), all before anything changes.

        When the turn ends the game (the mover's rack is empty with the bag empty, or the count of
        scoreless turns reaches ``ruleset.zero_turn_limit``), the end-of-game adjustments are added
        to the scores at once, :attr:`is_over` becomes True, :meth:`outcome` describes the end, and
        any further push raises ``IllegalMoveError("game_over")``; :meth:`pop` takes the
        adjustments back with the move.

        A mover whose rack is not known (an opponent on a server, his rack left out of the CGP)
        plays tiles from the unseen ones: his placement is checked against the board, the words
        and the unseen tiles, his pass as any, and his exchange is written ``-N`` (``exch N``: N
        tiles, which are not known). His rack stays unknown (``draw`` must be None) and the bag
        gives him as many tiles as he played. With the bag empty his tiles are certain (the
        unseen ones), and his moves are checked against them as a known rack's are. A rack known
        in part (:attr:`racks_partial`) plays from its known tiles and the unseen ones, and the
        known tiles he did not play stay known (after ``-N``, those he holds more than N of): his
        rack is known whole when they are all he holds."""
        if type(trusted) is not bool:
            trusted = _args.flag(trusted, "trusted", PositionError)
        if type(check_words) is not bool:
            check_words = _args.flag(check_words, "check_words", PositionError)
        self._check_scores()
        if self.is_over:
            raise IllegalMoveError("game_over", "the game is over: no more turns can be taken")
        if self._known is not None and not self._known[0]:
            return self._push_unknown(move, draw, check_words, trusted)
        if trusted and isinstance(move, Move) and (move.score is not None or move.kind != PLACE):
            checked = move
        else:
            checked = check_move_lean(self, move, None if check_words else ANY_WORD)
        return self._apply(checked, draw, check_draw=not trusted)

    def pop(self) -> Undo:
        """Take back the last move pushed, exactly (board, racks, scores, scoreless turns and any
        end-of-game adjustment); returns its :class:`Undo` record (``.move`` is the move).

        After racks were set (``pos.racks[i] = ...``), a move pushed before gives its mover back
        his rack as it was before it, and the other racks stay as they were set; when that would
        hold more of a tile than the set has, or the racks not known more tiles than are unseen,
        the move is not taken back: :class:`~racksmith.errors.PositionError`, the position left
        as it was (set the racks after popping, or put them back first)."""
        stack = self._stack
        if not stack:
            raise PositionError("nothing to pop: no move has been pushed on this position")
        if len(stack) <= self._set_at:
            return self._pop_after_set()
        u = stack.pop()
        scores = self._scores
        self._revealed = ()  # (counted in the ending taken back)
        if u.ending is not None:
            for adj in u.ending.adjustments:
                scores[adj.player] -= adj.points
        racks = self._racks
        self._racks = _racks_of(self._ruleset, [u.rack, *racks[:-1]])
        self._scores = [scores[-1] - u.score, *scores[:-1]]
        known = self._known
        if known is not None:
            self._known = (known[-1], *known[:-1])
        if not u.known:  # the mover's rack was not known: it is not again (u.rack: its known part, if any)
            self._known = (False, *self.racks_known[1:])  # (all known when his rack was known whole after it)
        self._sizes = u.sizes
        self._zero_turns = u.zero_turns
        turns.unplace_tiles(self._board, u.squares, u.move)  # (and the stars it took back, if any)
        return u

    def _pop_after_set(self) -> Undo:
        """:meth:`pop` of a move pushed before racks were set: taken back, then checked (the
        mover's rack given back may hold tiles a rack set since holds); refused, put back."""
        u = self._stack[-1]
        set_at = self._set_at
        board = self._board.copy()
        saved = (self._racks, list(self._scores), self._zero_turns, self._known, self._sizes, self._revealed)
        self._set_at = 0
        try:
            self.pop()
            if self._known is not None and self._sizes is not None:
                self._set_known(self._known)  # (a rack set since is known: no size of its own)
            self._check_tiles()
        except PositionError as e:
            self._board[...] = board
            self._racks, self._scores, self._zero_turns, self._known, self._sizes, self._revealed = saved
            self._stack.append(u)
            self._set_at = set_at
            rack = self._ruleset.alphabet.rack_string(u.rack, blanks_last=True) if u.known else "not known"
            raise PositionError(f"cannot take back {u.move.notation()}: racks were set after it was pushed, and its "
                                f"mover's rack before it ({rack or 'empty'}) does not fit them: {e} (set the racks "
                                "after popping, or set them back first)") from None
        self._set_at = len(self._stack)
        return u

    def play(
        self,
        move: "Move | str",
        draw: "str | Iterable[int] | None" = None,
        *,
        check_words: bool = True,
        trusted: bool = False,
    ) -> "Position":
        """The position after ``move``, as a new position (this one is left unchanged); the
        arguments are those of :meth:`push`, and :meth:`pop` on the result comes back here."""
        p = self.copy()
        p.push(move, draw, check_words=check_words, trusted=trusted)
        return p

    @property
    def move_stack(self) -> list[Move]:
        """The moves pushed on this position, first first."""
        return [u.move for u in self._stack]

    @property
    def is_over(self) -> bool:
        """The game has ended: a player's rack is empty with the bag empty, or the count of
        scoreless turns has reached ``ruleset.zero_turn_limit``."""
        if self._zero_turns >= self._ruleset.zero_turn_limit:
            return True
        if self._known is None:
            return not all(self._racks) and self.bag_count == 0
        return not all(self.rack_sizes) and self.bag_count == 0

    def outcome(self) -> Outcome | None:
        """How the game ended — who went out, or the scoreless turns — with the end-of-game
        adjustments (:mod:`racksmith.core.turns`) and the final scores; None while it goes on
        (python-chess's ``Board.outcome()``).

        The scores of a position that is over are final: a push that ends the game adds the
        adjustments to them, and a position made over (from a CGP, say) is taken as it stands; the
        adjustments reported are those the rules give for its racks. A rack the end could not count
        (not known: ``uncounted``) that is set afterwards (``pos.racks[1] = "AINNSTV"``, the tiles
        shown after the game) is counted then: its adjustment is added to the scores and to the
        ending, so the scores are final once every rack is counted, and :meth:`pop` takes it back
        with the move. Set again (a slip corrected), it is counted again in place of the first."""
        if not self.is_over:  # (first: a setter may have reopened a game a push ended)
            return None
        if self._stack and self._stack[-1].ending is not None:
            ending = self._stack[-1].ending
            return Outcome(ending, tuple(self._scores), self._uncounted(ending))
        ending = self._ending_now()
        return Outcome(ending, tuple(self._scores), self._uncounted(ending))

    def _ending_now(self) -> Ending:
        """The end of a game over that no push of this position ended (made over: from a CGP, say),
        from its racks as they are: who took the last turn (the bag empty, the last player with no
        tiles went out), and the rules' adjustments."""
        n = len(self._racks)
        bag_empty = self.bag_count == 0
        sizes = self.rack_sizes
        mover = next((i for i in range(n - 1, -1, -1) if not sizes[i]), n - 1) if bag_empty else n - 1
        ending = turns.ending(self._ruleset, self._ending_racks(), mover, self._zero_turns, bag_empty,
                              self._leftover())
        assert ending is not None
        return ending

    def _uncounted(self, ending: Ending) -> tuple[int, ...]:
        """The players whose rack is not known and holds tiles, whose leftover ``ending`` cannot
        count: every one where it takes each rack's own (a penalty), none where the player going
        out wins twice the leftover of all the others together (the tournament rule: with the bag
        empty, every tile off the board, whoever holds which)."""
        if self._known is None:
            return ()
        if ending.reason == turns.EndReason.OUT and self._ruleset.end_rule == turns.EndRule.TOURNAMENT:
            return ()
        sizes = self.rack_sizes
        return tuple(i for i, r in enumerate(self.inferred_racks()) if r is None and sizes[i])

    def _leftover(self) -> "Tiles | None":
        """The tiles the other players hold together when one goes out, where some rack is not
        known: with the bag empty, every tile off the board (the one going out holds none), whoever
        holds which — what his bonus counts (:func:`racksmith.core.turns.ending`); None when every
        rack is known or the bag holds tiles (the racks say)."""
        if self._known is None or self.bag_count:
            return None
        return turns.off_board_tiles(self._ruleset, self._board)

    def _ending_racks(self) -> list[Tiles]:
        """The racks the end of the game counts: an unknown rack by its tiles when they are
        certain, else as no tiles (its leftover is not known)."""
        if self._known is None:
            return self._racks
        a = self._ruleset.alphabet
        return [r if r is not None else a.tiles() for r in self.inferred_racks()]

    def _push_unknown(self, move: "Move | str", draw, check_words: bool, trusted: bool) -> Undo:
        """:meth:`push` for a mover whose rack is not known: the tiles of his move come from the
        unseen ones and the known part of his rack (or, the bag empty, from those he certainly
        holds), and his rack stays unknown: what is left of its known part (the tiles he did not
        play) is known in part."""
        rs = self._ruleset
        a = rs.alphabet
        certain = self.inferred_racks()[0]
        if draw is not None:
            raise PositionError("the rack of the player to move is not known, nor what he draws: push his move "
                                "without draw (the bag gives him as many tiles as he plays)")
        count = _unknown_exchange(move)
        if count is not None:
            return self._exchange_unknown(count)
        resolved = move if isinstance(move, Move) and move.kind != PLACE else self.resolve(move)
        size = self.rack_sizes[0]
        part = self._racks[0]  # the tiles of his rack that are known (none, mostly)
        if certain is not None:
            rack = certain
        else:
            rack = a.tiles(resolved.rack_tiles())
            unseen = self._bag_signed()
            for t in part:
                unseen[t] += 1  # (the tiles he may play: the unseen ones and his known ones)
            for t in rack:
                unseen[t] -= 1
            holds = len(part) + sum(max(rack.count(t) - part.count(t), 0) for t in set(rack))  # his rack at least
            if holds > size or (unseen < 0).any():
                short = [t for t in range(len(unseen)) if unseen[t] < 0]
                among = "the unseen tiles" if not part else f"his known tiles {part} and the unseen ones"
                held = ", ".join(f"{int(unseen[t]) + rack.count(t)} {a.letter(t) if t else 'blank'} of the "
                                 f"{rack.count(t)} it plays" for t in short)
                why = (f"it plays {len(rack)} tiles from a rack of {size}" if len(rack) > size else
                       f"a rack of {size} holding {part} cannot hold the tiles it plays ({rack}) too" if holds > size
                       else f"{among} hold {held}")
                known_as = ("his rack is not known: his tiles are among the unseen ones" if not part else
                            f"his rack is known only in part, {part}: his other tiles are among the unseen ones")
                raise IllegalMoveError("not_in_rack", f"{resolved.notation()}: {why} ({known_as})")
        known = self._known
        assert known is not None
        sizes = self._sizes
        bag = self.bag_count
        # the sizes of the racks not known given from now on: the default rule, which fills them
        # "in order", would not give them once the mover is last (the bag empty: his tiles are not
        # a full rack's); dropped again below where it gives them
        given = tuple(None if k else n for n, k in zip(self.rack_sizes, known))
        # (the racks written as lists: not pos.racks[i] = ..., which is the caller's setting a rack)
        list.__setitem__(self._racks, 0, rack)
        self._known = (True, *known[1:])
        self._sizes = (None, *given[1:])
        try:
            u = self.push(resolved, None, check_words=check_words, trusted=trusted)
        except BaseException:
            list.__setitem__(self._racks, 0, part)
            self._known, self._sizes = known, sizes
            raise
        # what is left of his rack is not known either, but for the known tiles he did not play
        left = len(self._racks[-1])  # (of the tiles he was given: drew none)
        list.__setitem__(self._racks, -1, _minus(a, part, resolved.rack_tiles()))
        used = len(rack) - left  # his size: less the tiles he played, plus those he drew
        self._known = (*self._known[:-1], False)
        self._sizes = (*(self._sizes or (None,) * len(self._racks))[:-1], size - used + turns.draw_count(used, bag))
        self._settle((len(self._racks) - 1,))  # (those known tiles may be all he holds now)
        self._plain_sizes()
        u = u._replace(rack=part, known=False, sizes=sizes)  # (pop gives him his known part back)
        self._stack[-1] = u
        return u

    def _exchange_unknown(self, count: int) -> Undo:
        """An exchange of ``count`` tiles not known, by a mover whose rack is not known."""
        rs = self._ruleset
        check_unknown_exchange(self, count)  # (as validate checks it)
        move = Move.exchange((THROUGH,) * count, rs.alphabet, score=0)
        zero_before = self._zero_turns
        zero = turns.zero_turns_after(zero_before, 0)
        racks, scores, known, sizes = self._racks, self._scores, self._known, self._sizes
        assert known is not None
        # of a rack known in part, what he may have given back is not known: a tile known stays
        # known where he holds more copies of it than he gave back tiles
        counts = {t: racks[0].count(t) - count for t in set(racks[0])}
        kept = rs.alphabet.tiles(sorted(t for t, n in counts.items() for _ in range(max(n, 0))))
        self._racks = _racks_of(rs, [*racks[1:], kept])
        self._scores = [*scores[1:], scores[0]]
        self._known = (*known[1:], known[0])
        if sizes is not None:
            self._sizes = (*sizes[1:], sizes[0])
        self._zero_turns = zero
        ending = None
        if zero >= rs.zero_turn_limit:
            ending = turns.ending(rs, self._ending_racks(), len(racks) - 1, zero, False)
            if ending is not None:
                for adj in ending.adjustments:
                    self._scores[adj.player] += adj.points
        u = Undo(move, (), racks[0], rs.alphabet.tiles(), 0, zero_before, ending, False, sizes)
        self._stack.append(u)
        return u

    def _drawn(self, draw: "str | Iterable[int] | None", used: int, check: bool) -> Tiles:
        """``draw`` as tiles, checked: no more than the ``used`` tiles the move takes from the
        rack, and (with ``check``) tiles the bag holds."""
        a = self._ruleset.alphabet
        tiles: list[int]
        if draw is None:
            return a.tiles()
        if isinstance(draw, str):
            tiles = a.rack(draw)
        else:
            n = len(a)
            try:
                tiles = list(draw)
            except TypeError:
                tiles = None
            if tiles is None or not all(_is_int(t) and 0 <= t <= n for t in tiles):
                raise PositionError(f"draw {draw!r}: tiles are ints, 0 (blank) to {n}; or write letters ('EIR?')")
        if len(tiles) > used:
            raise PositionError(
                f"a draw of {len(tiles)} tiles after a move that takes {used} from the rack: a rack is only refilled"
            )
        if tiles and len(tiles) > self.bag_count:
            raise PositionError(
                f"the bag holds {self.bag_count} tile{'s' if self.bag_count != 1 else ''}: it cannot supply a draw of {len(tiles)}"
            )
        if check and tiles:
            bag = self._bag_signed()
            for t in tiles:
                bag[t] -= 1
            short = [t for t in range(len(bag)) if bag[t] < 0]
            if short:
                have = ", ".join(
                    f"{n} {a.letter(t)}" if n else f"no {a.letter(t)}"
                    for t in short
                    for n in [int(bag[t]) + tiles.count(t)]
                )
                raise PositionError(
                    f"the bag cannot supply the draw {a.rack_string(tiles, blanks_last=True)}: it holds {have}"
                )
        return a.tiles(int(t) for t in tiles)

    def _bag_drew(self, draw: list) -> bool:
        """Can a trusted draw be taken as it is: rack tiles of the alphabet (counted in C, as bytes),
        no more than the bag holds? (False sends it to :meth:`_drawn`, which says what is wrong.)"""
        try:
            tiles = bytes(draw)
        except (TypeError, ValueError):
            return False
        return max(tiles) <= len(self._ruleset.alphabet) and len(tiles) <= self.bag_count

    def _apply(self, move: Move, draw: "str | Iterable[int] | None", check_draw: bool) -> Undo:
        """Push a checked move (see :meth:`push`): everything that can fail is checked before the
        position changes."""
        rs = self._ruleset
        racks = self._racks
        rack = racks[0]
        kind = move.kind
        left = turns.take_tiles(rack, move)
        tiles_type = rs.alphabet._tiles_type  # (what Alphabet.tiles makes, made without its checks)
        drawn: Tiles
        if draw is None:  # (what _drawn gives for it)
            drawn = _new_tuple(tiles_type, ())
        elif (not check_draw and type(draw) is list and len(left) + len(draw) <= len(rack)
                and (not draw or self._bag_drew(draw))):  # tiles a Bag drew
            drawn = _new_tuple(tiles_type, draw)
        else:
            drawn = self._drawn(draw, len(rack) - len(left), check_draw)
        if len(left) + len(drawn) > rs.rack_size:
            raise PositionError(f"the draw would leave {len(left) + len(drawn)} tiles on a rack of {rs.rack_size}")
        used = len(rack) - len(left)
        if draw is not None and len(drawn) < used:  # (the bag counted only for a short draw)
            bag = self.bag_count
            need = min(used, bag)
            if len(drawn) < need:
                what = "an exchange that gives back" if kind == EXCHANGE else "a move that takes"
                raise PositionError(
                    f"a draw of {len(drawn)} tile{'s' if len(drawn) != 1 else ''} after {what} {used} from the rack: "
                    f"with {bag} tile{'s' if bag != 1 else ''} in the bag the player draws {need} (a rack is refilled "
                    "while the bag has tiles; draw=None draws nothing)"
                )
        score = move.score if kind == PLACE else 0
        if type(score) is not int:
            score = _points(move)
        squares = turns.place_tiles(self._board, move) if kind == PLACE else ()
        left += drawn
        left.sort()
        new_rack: Tiles = _new_tuple(tiles_type, left)
        zero_before = self._zero_turns
        zero = turns.zero_turns_after(zero_before, score, kind == PLACE)
        scores = self._scores
        self._racks = _racks_of(rs, [*racks[1:], new_rack])
        self._scores = [*scores[1:], scores[0] + score]
        self._zero_turns = zero
        known = self._known
        went_out = not new_rack
        sizes = None
        if known is not None:
            self._known = (*known[1:], known[0])
            went_out = went_out and known[0]  # an unknown rack is empty in racks, not on the rack
            sizes = self._sizes
            if sizes is not None:
                self._sizes = (*sizes[1:], sizes[0])
        ending = None
        if went_out or zero >= rs.zero_turn_limit:
            ending = turns.ending(rs, self._ending_racks(), len(racks) - 1, zero, went_out and self.bag_count == 0,
                                  None if known is None else self._leftover())
            if ending is not None:
                for adj in ending.adjustments:
                    self._scores[adj.player] += adj.points
        u = _new_undo(Undo, (move, squares, rack, drawn, score, zero_before, ending, True, sizes))  # Undo(...), unchecked
        self._stack.append(u)
        return u

    # --- delegation to the modules that do the work ---------------------------------------------
    def resolve(self, move: "Move | str") -> Move:
        """The canonical form of a move here; see :func:`racksmith.core.geometry.resolve_move`."""
        return resolve_move(self, move)

    def score(self, move: "Move | str") -> ScoreBreakdown:
        """The score of a move with its breakdown; see :func:`racksmith.core.scoring.score_move`."""
        return score_move(self, move)

    def validate(self, move: "Move | str", lexicon: "LexiconLike | Container[str] | None" = None) -> Verdict:
        """Legal or not, and why; see :func:`racksmith.core.validation.validate`. ``lexicon``: an object
        answering ``word in lexicon``, a lexicon name or path, or None for the position's lexicon."""
        if not (lexicon is None or isinstance(lexicon, (str, bytes)) or hasattr(lexicon, "__fspath__")
                or hasattr(type(lexicon), "__contains__")):
            raise PositionError(f"lexicon must be a name, a path, a loaded lexicon (or any object answering "
                                f"'word in lexicon') or None, got {_args.show(lexicon)}")
        return validate(self, move, lexicon)

    def render(self) -> str:
        """The board as text, premiums on empty squares, with racks, scores and the bag."""
        return render_text(self)

    __str__ = render

    def _repr_svg_(self) -> str:
        return render_svg(self)

    def svg(self, move: "Move | str | None" = None, size: int = 32) -> str:
        """The position as an SVG picture, with ``move`` drawn on it (see
        :func:`racksmith.formats.render.render_svg`)."""
        return render_svg(self, move=move, size=size)

    def moves(
        self,
        top: int | None = None,
        *,
        sort: Sort | str = Sort.SCORE,
        leaves: "LeavesLike | None" = None,
        exchanges: bool = False,
        direction: Direction | str = Direction.BOTH,
        algorithm: Algorithm | str = Algorithm.GADDAG,
    ) -> MoveList:
        """Every legal move of the player to move, ranked (see :func:`racksmith.movegen.generate_moves`).

        ``top``: the best N only (None: all); ``sort``: :class:`Sort` (``"score"`` or ``"equity"``);
        ``leaves``: a leave table or the path of a leave file; ``exchanges``: list the exchanges too
        (the pass always is); ``direction``: ``"both"``, ``"across"`` or ``"down"``;
        ``algorithm``: ``"gaddag"`` or ``"dawg"``. Where the ruleset has star reclamation
        (Эрудит), the moves that take stars back are ranked among the others
        (:func:`racksmith.movegen.reclaim.with_reclamations`). A game that is over
        (:attr:`is_over`) has no legal move: the list is empty, as :meth:`push` refuses every
        move there."""
        # a call with the same option objects as the last one: one compiled call (the options were
        # checked then, and resolved into the plan the position's BoardState keeps)
        try:
            moves = position_moves(self, top, sort, leaves, exchanges, direction, algorithm)
        except ValueError as e:
            raise PositionError(f"cannot generate moves: {e}") from None
        if moves is not None:
            if moves._with_equity and sort != "equity":
                moves._sorted_by = "score"  # (the kernel's list does not say what it is ranked by)
            if self._known is None and self._zero_turns < self._ruleset.zero_turn_limit and all(self._racks):
                return moves  # (the game goes on: is_over's first checks, inline on this path)
            if self._sizes is not None and type(moves._position) is tuple:
                moves._position = (*moves._position, self._sizes)  # (the kernel's snapshot lacks them)
            return moves[:0] if self.is_over else moves
        if not (isinstance(sort, str) and isinstance(direction, str) and isinstance(algorithm, str)):
            for name, value, kind in (("sort", sort, Sort), ("direction", direction, Direction),
                                      ("algorithm", algorithm, Algorithm)):
                if not isinstance(value, str):  # (the names are checked by generate_moves)
                    raise MoveGenError(f"{name} must be one of {', '.join(repr(k.value) for k in kind)}, got "
                                       f"{_args.show(value)}")
        if type(exchanges) is not bool:
            _args.flag(exchanges, "exchanges", MoveGenError)  # (checked, not replaced: the kernel keeps the objects given)
        src = self if self._known is None else self._resolved()
        moves = generate_moves(src, top, sort, leaves, exchanges, direction, algorithm)
        if src is not self:
            self._kept = src._kept  # the board the copy kept in the kernel serves the next call too
        if self._ruleset.star_reclamation:
            moves = with_reclamations(moves, src, top, sort=sort, leaves=leaves, direction=direction, algorithm=algorithm)
        if moves._with_equity and sort != "equity":
            moves._sorted_by = "score"  # (the kernel's list does not say what it is ranked by)
        # for pictures: this position as it is now, made into a Position only when asked for
        moves._position = (self, self._board.tobytes(), tuple(self._racks), tuple(self._scores), self._zero_turns, self._known)
        if self._sizes is not None:
            moves._position += (self._sizes,)
        return moves[:0] if self.is_over else moves

    @staticmethod
    def _from_snapshot(snap: tuple) -> "Position":
        """The position a snapshot taken by :meth:`moves` describes (MoveList.position): the
        position, board, racks, scores, zero turns, which racks are known and, where the sizes of
        racks not known were given (``rack_sizes``), those."""
        src, board, racks, scores, zero_turns, known, *sizes = snap
        p = src.copy(stack=False)
        p._board = np.frombuffer(board, dtype=np.uint8).reshape(src.board.shape).copy()
        p._racks = _racks_of(p._ruleset, racks)
        p._scores = list(scores)
        p._zero_turns = zero_turns
        p._known = known
        p._sizes = sizes[0] if sizes and known is not None else None
        p._revealed = ()  # (racks counted since on the position: not in the snapshot's scores)
        return p

    def solve_endgame(
        self,
        plies: int | None = None,
        seconds: float | None = None,
        threads: int = 1,
        *,
        on_depth: "Callable[[EndgameResult], None] | None" = None,
        move: "Move | str | None" = None,
        tt_mb: int | None = None,
        cancel: "threading.Event | None" = None,
        top: int = 1,
    ) -> "EndgameResult":
        """Solve the endgame (the bag empty; an opponent's rack left empty is the unseen tiles):
        the value best play by both sides adds to the mover's spread, the best move and the
        principal variation, exact when the search reached the end of every line. ``plies``: stop
        after that depth; ``seconds``: a time limit; ``threads``: threads searching (the answer does
        not depend on it); ``on_depth``, ``move``, ``tt_mb`` (None: the default table), ``cancel``
        and ``top`` (the K best moves, each with its exact value and line: ``result.top``) as
        :func:`racksmith.search.endgame.solve_endgame` says."""
        from ..search.endgame import solve_endgame

        extra = {} if tt_mb is None else {"tt_mb": tt_mb}
        return solve_endgame(self, plies, seconds, threads, on_depth=on_depth, move=move, cancel=cancel, top=top, **extra)

    def solve_peg(
        self,
        top: int | None = None,
        *,
        seconds: float | None = None,
        solve_all: bool = False,
        on_play: "Callable[[PegPlay], None] | None" = None,
        tt_mb: int | None = None,
        threads: int = 1,
        moves: "Sequence[Move | str] | None" = None,
        cancel: "threading.Event | None" = None,
    ) -> "PegResult":
        """Solve the pre-endgame (1 tile in the bag, or up to one less than the exchange limit):
        among the placements (the ``top`` best by score, None for all) and the pass, the play with
        the best chance of winning over the possible bag tiles (with more than one, the orders they
        can come out in) (exact), then mean spread (exact where it decides between equal chances,
        else bounded); every other play proven no better. The options are those of
        :func:`racksmith.search.peg.solve_peg` (``tt_mb`` None: the default table). An opponent's
        rack known only in part (:attr:`racks_partial`) holds its known tiles in every case, its
        other tiles and the bag's being any of the unseen ones (as Macondo's ``peg -opprack``)."""
        from ..search.peg import solve_peg

        extra = {} if tt_mb is None else {"tt_mb": tt_mb}
        return solve_peg(self, top, seconds=seconds, solve_all=solve_all, on_play=on_play, threads=threads,
                         moves=moves, cancel=cancel, **extra)

    def best_play(
        self,
        seconds: float | None = 10.0,
        *,
        leaves: "LeavesLike | None" = "shipped",
        winpct: "WinPct | str | os.PathLike[str] | None" = None,
        threads: int = 1,
        seed: int | None = None,
        candidates: int = 10,
        plies: int = 2,
        opponent_racks: "Inference | None" = None,
        tt_mb: int | None = None,
        progress: "Callable[[str, Any], None] | None" = None,
        cancel: "threading.Event | None" = None,
    ) -> "BestPlay":
        """The best play of the player to move, by the method the stage of the game calls for: the
        endgame solver with the bag empty, the one-tile pre-endgame with one tile in it, a
        simulation before (static equity where none of them applies, saying why), within
        ``seconds``. ``leaves``: ``"shipped"`` (the ruleset's shipped leaves), a table, a file, or
        None; the other options as :func:`racksmith.review.best.best_play` says. Returns a
        :class:`~racksmith.review.best.BestPlay`."""
        from ..review.best import best_play

        return best_play(self, seconds, leaves=leaves, winpct=winpct, threads=threads, seed=seed,
                         candidates=candidates, plies=plies, opponent_racks=opponent_racks, tt_mb=tt_mb,
                         progress=progress, cancel=cancel)

    def simulate(
        self,
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
        moves: "Sequence[Move] | None" = None,
        min_samples: int | None = None,
        round_robin: bool = False,
        progress: "Callable[[SimResult], None] | None" = None,
        progress_every: float = 0.25,
        cancel: "threading.Event | None" = None,
    ) -> "SimResult":
        """Rank the best ``candidates`` plays by simulated win chance, with the ruleset's shipped
        leaves unless ``leaves`` says otherwise (None: every leave 0): see
        :func:`racksmith.sim.simulate.simulate` for each option. Returns a
        :class:`~racksmith.sim.simulate.SimResult`."""
        from ..sim.simulate import simulate

        return simulate(self, candidates, plies, iterations, seconds, threads, seed, stop, opponent_racks,
                        leaves=leaves, winpct=winpct, moves=moves, min_samples=min_samples, round_robin=round_robin,
                        progress=progress, progress_every=progress_every, cancel=cancel)
