"""Is a move legal here, and if not, why: resolution of a move against the board, then the checks
in a fixed order, each failure named by a reason code (:data:`REASONS`).

Resolution (:func:`resolve_move`) turns a move as a person writes it into the canonical move a
generator produces: letters over filled squares (written plainly, in parentheses or as ``.``) become
``THROUGH | board tile``; the placement grows to the whole main word (tiles already on the board
just before or after it along its line); a single-tile play is written across if the tile has a
horizontal neighbour, else down (the convention of MAGPIE and wolges).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from .alphabet import BLANK, LETTER_MASK, THROUGH
from .errors import IllegalMoveError, InvalidMoveError
from .move import Move

#: every reason an illegal move is rejected for, in the order the checks run
REASONS = (
    "off_board",  # a square of the move lies outside the board
    "occupied",  # a letter given for a filled square differs from the tile there
    "not_contiguous",  # a played-through square ('.' or parentheses) is empty: the tiles leave a gap
    "no_tiles",  # the move places nothing new (or exchanges nothing)
    "must_cover_start",  # the first play does not cover the start square
    "not_connected",  # a later play touches no tile on the board
    "not_in_rack",  # the tiles are not all on the player's rack (a blank needs a '?')
    "invalid_words",  # a word formed is not in the lexicon, or no word of 2+ letters is formed
    "exchange_not_allowed",  # the bag holds fewer tiles than the ruleset's exchange limit
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer of :func:`validate`: legal with its score and canonical move, or the reason why not."""

    legal: bool
    score: int | None = None
    move: Move | None = None
    reason: str | None = None
    message: str = ""
    words: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.legal

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith validate --json``."""
        if self.legal:
            return {"legal": True, "score": self.score}
        return {"legal": False, "reason": self.reason, "message": self.message, "words": list(self.words)}


def as_move(position, move: "Move | str") -> Move:
    """A :class:`Move`, parsing text with the position's alphabet."""
    if isinstance(move, Move):
        return move
    if isinstance(move, str):
        return Move.parse(move, position.ruleset)
    raise InvalidMoveError(f"expected a Move or move notation, got {type(move).__name__}")


def _where(row: int, col: int) -> str:
    if 0 <= col < 26 and row >= 0:
        return f"{row + 1}{chr(65 + col)}"
    return f"row {row + 1}, column {col + 1}"


def resolve_move(position, move: "Move | str") -> Move:
    """The canonical form of ``move`` on this board (see the module docstring).

    Raises :class:`IllegalMoveError` with ``off_board``, ``occupied``, ``not_contiguous`` or
    ``no_tiles``; exchanges and passes come back unchanged (with the ruleset's alphabet).
    """
    move = as_move(position, move)
    rs = position.ruleset
    alphabet = rs.alphabet
    n = len(alphabet)
    if move.alphabet is not None and move.alphabet.letters != alphabet.letters:
        raise InvalidMoveError(
            f"the move is written in the alphabet of {move.alphabet.name or 'another ruleset'}, the position "
            f"is {rs.name}: parse it with Move.parse(text, ruleset) or pass the text"
        )
    if not all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in move.tiles):
        raise InvalidMoveError(f"move tiles must be integers, got {list(move.tiles)!r}")
    if not move.is_place:
        if any(not 0 <= t <= n for t in move.tiles):
            raise InvalidMoveError(f"exchange of tiles {list(move.tiles)}: tiles are 0 (blank) to {n}")
        return Move(move.kind, tiles=move.tiles, alphabet=alphabet)
    for t in move.tiles:
        letter = t & LETTER_MASK
        if t < 0 or t & ~(THROUGH | BLANK | LETTER_MASK) or letter > n or (letter == 0 and not t & THROUGH):
            raise InvalidMoveError(
                f"placement tile {t} is not a tile of {rs.name}: a letter 1..{n}, with 0x80 for a blank, "
                "or 0x40 (played through) plus the board tile or 0"
            )
    if not move.tiles:
        raise IllegalMoveError("no_tiles", "the move places no tiles")
    board = position.board
    squares = move.squares
    off = [rc for rc in squares if not rs.on_board(*rc)]
    if off:
        r, c = off[0]
        raise IllegalMoveError(
            "off_board", f"the move runs off the {rs.rows}x{rs.cols} board at {_where(r, c)}"
        )
    for (r, c), t in zip(squares, move.tiles):
        b = int(board[r, c])
        given = t & LETTER_MASK
        if b and given and given != b & LETTER_MASK:
            raise IllegalMoveError(
                "occupied",
                f"square {_where(r, c)} already holds {alphabet.letter(b)!r}, "
                f"the move puts {alphabet.letter(given)!r} there",
            )
    for (r, c), t in zip(squares, move.tiles):
        if t & THROUGH and not board[r, c]:
            raise IllegalMoveError(
                "not_contiguous",
                f"square {_where(r, c)} is empty but the move plays through it: "
                "parentheses and '.' mark tiles already on the board",
            )
    placed = [(r, c, t) for (r, c), t in zip(squares, move.tiles) if not board[r, c]]
    if not placed:
        raise IllegalMoveError("no_tiles", "every square of the move is already filled: it places no tile")
    across = move.across
    if len(placed) == 1:
        r, c, _ = placed[0]
        across = _filled(board, r, c - 1) or _filled(board, r, c + 1) or not (
            _filled(board, r - 1, c) or _filled(board, r + 1, c)
        )
    new = {(r, c): t for r, c, t in placed}
    dr, dc = (0, 1) if across else (1, 0)
    r0, c0 = placed[0][0], placed[0][1]
    while _filled(board, r0 - dr, c0 - dc) or (r0 - dr, c0 - dc) in new:
        r0, c0 = r0 - dr, c0 - dc
    tiles = []
    r, c = r0, c0
    while True:
        if (r, c) in new:
            tiles.append(new[(r, c)])
        elif _filled(board, r, c):
            tiles.append(THROUGH | int(board[r, c]))
        else:
            break
        r, c = r + dr, c + dc
    return Move.place(r0, c0, across, tiles, alphabet)


def _filled(board, r: int, c: int) -> bool:
    rows, cols = board.shape
    return 0 <= r < rows and 0 <= c < cols and bool(board[r, c])


def check_geometry(position, move: Move) -> None:
    """The first play covers the start square; later plays touch a tile on the board.

    ``move`` must be resolved (:func:`resolve_move`). Raises ``must_cover_start`` or ``not_connected``.
    """
    rs = position.ruleset
    board = position.board
    placed = move.placed
    if position.is_empty:
        sr, sc = rs.row_col(rs.start)
        if not any(r == sr and c == sc for r, c, _ in placed):
            raise IllegalMoveError(
                "must_cover_start", f"the first play must cover the start square {_where(sr, sc)}"
            )
        return
    if any(t & THROUGH for t in move.tiles):
        return
    for r, c, _ in placed:
        if any(_filled(board, r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))):
            return
    raise IllegalMoveError("not_connected", "the play touches no tile already on the board")


def check_rack(position, move: Move) -> None:
    """The player to move holds every tile the move takes from the rack (``not_in_rack``)."""
    need = Counter(move.rack_tiles())
    have = Counter(position.rack)
    missing = need - have
    if missing:
        a = position.ruleset.alphabet
        lack = a.rack_string(list(missing.elements()))
        what = "exchange" if move.is_exchange else "play"
        raise IllegalMoveError(
            "not_in_rack",
            f"the {what} needs {lack} that the rack {position.rack_string or '(empty)'} does not hold"
            + (" (a blank is played as the lowercase letter it stands for and needs a '?' on the rack)"
               if 0 in missing else ""),
        )


def check_move(position, move: "Move | str", lexicon: Any = None) -> Move:
    """The canonical move with its score set, or :class:`IllegalMoveError` with the first failed check.

    ``lexicon`` is anything answering ``word in lexicon`` for uppercase words (blanks as their
    letter), a lexicon name or path, or None for the position's lexicon.
    """
    from .scoring import breakdown

    move = resolve_move(position, move)
    if move.is_pass:
        return Move.pass_(move.alphabet, score=0)
    if move.is_exchange:
        if not move.tiles:
            raise IllegalMoveError("no_tiles", "an exchange must give back at least one tile")
        check_rack(position, move)
        limit = position.ruleset.exchange_limit
        bag = position.bag_count
        if bag < limit:
            raise IllegalMoveError(
                "exchange_not_allowed",
                f"the bag holds {bag} tile{'s' if bag != 1 else ''}; exchanging needs at least {limit}",
            )
        return Move.exchange(move.tiles, move.alphabet, score=0)
    check_geometry(position, move)
    check_rack(position, move)
    result = breakdown(position, move)
    lex = _lexicon(position, lexicon)
    bad: list[str] = []
    for w in result.words:
        plain = w.plain
        if plain not in lex and plain not in bad:
            bad.append(plain)
    if bad:
        raise IllegalMoveError(
            "invalid_words",
            f"not in the lexicon: {', '.join(bad)}",
            tuple(bad),
        )
    return result.move


def validate(position, move: "Move | str", lexicon: Any = None) -> Verdict:
    """A :class:`Verdict` for ``move``: legal with its score, or the reason code of the first failed check."""
    try:
        m = check_move(position, move, lexicon)
    except IllegalMoveError as e:
        return Verdict(False, reason=e.reason, message=e.message, words=e.words)
    return Verdict(True, score=m.score, move=m)


def _lexicon(position, lexicon: Any):
    if lexicon is None:
        return position.lexicon
    if isinstance(lexicon, (str, bytes)) or hasattr(lexicon, "__fspath__"):
        from .lexicon import load_lexicon

        return load_lexicon(lexicon, ruleset=position.ruleset)
    return lexicon
