"""A position: board, racks (player to move first), scores, the zero-turn count, and the bag.

The bag is never stored: it is the distribution minus the board and the racks. When the opponent's
rack is unknown (empty in the CGP), the bag holds every unseen tile.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..rules.alphabet import BLANK, LETTER_MASK
from ..formats.cgp import format_cgp, parse_cgp
from ..errors import PositionError
from ..rules.ruleset import Ruleset, get_ruleset

if TYPE_CHECKING:  # pragma: no cover
    from .move import Move


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


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


def _rack_tuple(rack: Any, index: int) -> tuple[int, ...]:
    if isinstance(rack, str) or not hasattr(rack, "__iter__") or not all(_is_int(t) for t in rack):
        raise PositionError(
            f"rack {index + 1} must be tiles (ints, 0 for a blank), got {rack!r}: "
            "write letters with ruleset.alphabet.rack('AEINST?')"
        )
    return tuple(sorted(int(t) for t in rack))


class Position:
    """Board (numpy uint8 ``(rows, cols)``: 0 empty, letter, or letter | BLANK), racks, scores."""

    __slots__ = ("ruleset", "board", "racks", "scores", "zero_turns", "opcodes", "_lexicon", "_lexicon_spec")

    def __init__(
        self,
        ruleset: "str | Ruleset | None" = None,
        board: Any = None,
        racks=((), ()),
        scores=None,
        zero_turns: int = 0,
        opcodes=(),
        lexicon: Any = None,
    ):
        self.ruleset = get_ruleset(ruleset)
        rs = self.ruleset
        self.board = _board_array(board, rs)
        self.racks = [_rack_tuple(r, i) for i, r in enumerate(racks)]
        if len(self.racks) < 1:
            raise PositionError("a position needs at least one rack (the player to move)")
        self.scores = list(scores) if scores is not None else [0] * len(self.racks)
        if len(self.scores) != len(self.racks):
            raise PositionError(f"{len(self.scores)} scores for {len(self.racks)} racks")
        if not all(_is_int(x) for x in self.scores):
            raise PositionError(f"scores must be whole numbers, got {self.scores!r}")
        self.scores = [int(x) for x in self.scores]
        if not _is_int(zero_turns) or zero_turns < 0:
            raise PositionError(f"zero_turns (consecutive scoreless turns) must be a whole number >= 0, got {zero_turns!r}")
        self.zero_turns = int(zero_turns)
        self.opcodes = tuple(opcodes)
        self._lexicon = None
        self._lexicon_spec = lexicon
        if lexicon is not None and not isinstance(lexicon, (str, bytes)) and not hasattr(lexicon, "__fspath__"):
            self._lexicon = lexicon
        self._check()

    # --- construction ------------------------------------------------------------------------
    @classmethod
    def from_cgp(cls, cgp: str, ruleset: "str | Ruleset | None" = None, lexicon: Any = None) -> "Position":
        """Read a CGP line. ``lexicon``: a name, a path, a lexicon object, or None for the ruleset's own."""
        rs = get_ruleset(ruleset)
        p = parse_cgp(cgp, rs)
        return cls(rs, p.board, p.racks, p.scores, p.zero_turns, p.opcodes, lexicon)

    @classmethod
    def empty(cls, ruleset: "str | Ruleset | None" = None, rack: str = "", lexicon: Any = None) -> "Position":
        rs = get_ruleset(ruleset)
        return cls(rs, None, (rs.alphabet.rack(rack), ()), None, 0, (), lexicon)

    def copy(self) -> "Position":
        p = Position.__new__(Position)
        p.ruleset = self.ruleset
        p.board = self.board.copy()
        p.racks = list(self.racks)
        p.scores = list(self.scores)
        p.zero_turns = self.zero_turns
        p.opcodes = self.opcodes
        p._lexicon = self._lexicon
        p._lexicon_spec = self._lexicon_spec
        return p

    def _check(self) -> None:
        rs = self.ruleset
        n = len(rs.alphabet)
        b = self.board
        letters = b & LETTER_MASK
        bad = (b != 0) & ((letters == 0) | (letters > n) | ((b & 0x40) != 0))
        if bad.any():
            r, c = map(int, np.argwhere(bad)[0])
            raise PositionError(f"board square {r + 1}{chr(65 + c)} holds tile {int(b[r, c])}, not a tile of {rs.name}")
        for i, rack in enumerate(self.racks):
            if any(t < 0 or t > n for t in rack):
                raise PositionError(f"rack {i + 1} holds a tile outside the {rs.name} alphabet")
            if len(rack) > rs.rack_size:
                raise PositionError(f"rack {i + 1} has {len(rack)} tiles; a rack holds at most {rs.rack_size}")
        bag = self._bag_signed()
        if (bag < 0).any():
            t = int(np.argmax(bag < 0))
            name = "blank" if t == 0 else repr(rs.alphabet.letter(t))
            raise PositionError(
                f"impossible position: {int(rs.counts[t] - bag[t])} {name} tiles on the board and racks, "
                f"but the {rs.name} set has only {rs.counts[t]}"
            )

    # --- tiles ---------------------------------------------------------------------------------
    def _bag_signed(self) -> np.ndarray:
        rs = self.ruleset
        counts = np.array(rs.counts, dtype=np.int64)
        b = self.board[self.board != 0]
        blanks = b & BLANK
        used = np.bincount(np.where(blanks != 0, 0, b & LETTER_MASK), minlength=len(counts))
        counts -= used[: len(counts)]
        for rack in self.racks:
            for t in rack:
                counts[t] -= 1
        return counts

    def bag_counts(self) -> np.ndarray:
        """Tiles left in the bag (unseen tiles if the opponent's rack is unknown), by tile; 0 = blanks."""
        return self._bag_signed()

    @property
    def bag_count(self) -> int:
        return int(self._bag_signed().sum())

    def bag_tiles(self) -> list[int]:
        return [t for t, n in enumerate(self._bag_signed().tolist()) for _ in range(n)]

    @property
    def rack(self) -> tuple[int, ...]:
        """The rack of the player to move."""
        return self.racks[0]

    @property
    def rack_string(self) -> str:
        return self.ruleset.alphabet.rack_string(self.racks[0], blanks_last=True)

    @property
    def is_empty(self) -> bool:
        """No tile on the board yet (the next play is an opening)."""
        return not self.board.any()

    def tile_at(self, row: int, col: int) -> int:
        return int(self.board[row, col])

    # --- lexicon -------------------------------------------------------------------------------
    @property
    def lexicon(self):
        """The lexicon, loaded on first use (the ruleset's default when none was given)."""
        if self._lexicon is None:
            from ..lexicon import load_lexicon

            spec = self._lexicon_spec if self._lexicon_spec is not None else self.ruleset.lexicon
            if spec is None:
                raise PositionError(f"ruleset {self.ruleset.name} names no default lexicon: pass lexicon=")
            self._lexicon = load_lexicon(spec, ruleset=self.ruleset)
        return self._lexicon

    @lexicon.setter
    def lexicon(self, value) -> None:
        self._lexicon = None
        self._lexicon_spec = value
        if value is not None and not isinstance(value, (str, bytes)) and not hasattr(value, "__fspath__"):
            self._lexicon = value

    # --- formats -------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """Plain data (what ``racksmith show --json`` prints): the board as letters (lowercase =
        blank, ``""`` = empty), the premium layout, racks, scores, zero-turn count and the bag."""
        rs = self.ruleset
        a = rs.alphabet
        bag = self.bag_counts().tolist()
        return {
            "ruleset": rs.name,
            "cgp": self.cgp(),
            "rows": rs.rows,
            "cols": rs.cols,
            "board": [[a.letter(int(t)) if t else "" for t in row] for row in self.board.tolist()],
            "premiums": rs.layout(),
            "racks": [a.rack_string(r, blanks_last=True) for r in self.racks],
            "scores": list(self.scores),
            "zero_turns": self.zero_turns,
            "bag_count": int(sum(bag)),
            "bag": {("?" if t == 0 else a.letter(t)): n for t, n in enumerate(bag) if n},
        }

    def cgp(self) -> str:
        return format_cgp(self.board, self.racks, self.scores, self.zero_turns, self.opcodes, self.ruleset)

    def __repr__(self) -> str:
        return f"Position.from_cgp({self.cgp()!r}, ruleset={self.ruleset.name!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self.ruleset == other.ruleset
            and np.array_equal(self.board, other.board)
            and self.racks == other.racks
            and self.scores == other.scores
            and self.zero_turns == other.zero_turns
        )

    __hash__ = None  # mutable

    # --- delegation to the modules that do the work ---------------------------------------------
    def resolve(self, move: "Move | str") -> "Move":
        """The canonical form of a move here; see :func:`racksmith.core.validation.resolve_move`."""
        from .validation import resolve_move

        return resolve_move(self, move)

    def score(self, move: "Move | str"):
        """The score of a move with its breakdown; see :func:`racksmith.core.scoring.score_move`."""
        from .scoring import score_move

        return score_move(self, move)

    def validate(self, move: "Move | str", lexicon: Any = None):
        """Legal or not, and why; see :func:`racksmith.core.validation.validate`. ``lexicon``: an object
        answering ``word in lexicon``, a lexicon name or path, or None for the position's lexicon."""
        from .validation import validate

        return validate(self, move, lexicon)

    def render(self) -> str:
        """The board as text, premiums on empty squares, with racks, scores and the bag."""
        from ..formats.render import render_text

        return render_text(self)

    __str__ = render

    def _repr_svg_(self) -> str:
        from ..formats.render import render_svg

        return render_svg(self)

    def moves(self, **kw):
        """Every legal move, ranked; see :func:`racksmith.movegen.generate_moves` for the options."""
        from ..movegen.generate import generate_moves

        return generate_moves(self, **kw)
