"""Where a move goes: a move as a person writes it resolved into the canonical move a generator
produces, and the geometry every placement must have (on the board, contiguous, covering the start
square or touching the tiles already there). No lexicon, no rack, no score.

Resolution (:func:`resolve_move`): letters over filled squares (written plainly, in parentheses or
as ``.``) become ``THROUGH | board tile``; the placement grows to the whole main word (tiles already
on the board just before or after it along its line); a single-tile play is written across if the
tile has a horizontal neighbour, else down (the convention of MAGPIE and wolges). A placement that
takes stars back (Эрудит) is resolved on the board after the exchange: the real letters on the
stars' squares (:mod:`racksmith.core.turns`).

The failures raise :class:`~racksmith.errors.IllegalMoveError` with the reason codes of
:data:`racksmith.errors.REASONS`.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..rules.alphabet import BLANK, LETTER_MASK, THROUGH
from ..errors import IllegalMoveError, InvalidMoveError
from . import turns
from .move import Move, MoveKind

_KINDS = tuple(MoveKind)


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
    ``no_tiles``; exchanges and passes come back unchanged (with the ruleset's alphabet): ``-N``,
    an exchange of N tiles not named, only for a mover whose rack is not known (a known rack
    names the tiles it gives back: :class:`~racksmith.errors.InvalidMoveError`). A move
    that takes stars back gets their letters from the board and raises
    ``reclamation_not_allowed``, ``no_star_there`` (first) or ``star_not_replayed`` (last).
    """
    move = as_move(position, move)
    rs = position.ruleset
    alphabet = rs.alphabet
    n = len(alphabet)
    if move.kind not in _KINDS:
        raise InvalidMoveError(f"a move's kind is one of {', '.join(_KINDS)}, got {move.kind!r}")
    if move.alphabet is not None and move.alphabet.letters != alphabet.letters:
        raise InvalidMoveError(
            f"the move is written in the alphabet of {move.alphabet.name or 'another ruleset'}, the position "
            f"is {rs.name}: parse it with Move.parse(text, ruleset) or pass the text"
        )
    if not all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in move.tiles):
        raise InvalidMoveError(f"move tiles must be integers, got {list(move.tiles)!r}")
    if move.is_place and not all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (move.row, move.col)
    ):
        raise InvalidMoveError(f"a placement's row and column must be integers, got {move.row!r}, {move.col!r}")
    if type(move.row) is not int or type(move.col) is not int or not all(type(t) is int for t in move.tiles):
        move = replace(move, row=int(move.row), col=int(move.col), tiles=tuple(int(t) for t in move.tiles))
    if move.reclaimed:
        move = replace(move, reclaimed=_reclaimed_ints(move, n))
        if not move.is_place:
            raise InvalidMoveError(f"only a placement takes stars back from the board, not a {move.kind}")
    if not move.is_place:
        if move.tiles and all(t == THROUGH for t in move.tiles):  # -N: N tiles not named
            if position.racks_known[0]:
                raise InvalidMoveError(
                    f"-{len(move.tiles)} is an exchange of tiles not named, which only a player whose rack is not "
                    "known makes: this player's rack is known, so name the tiles given back ('-ABC')"
                )
        elif any(not 0 <= t <= n for t in move.tiles):
            raise InvalidMoveError(f"exchange of tiles {list(move.tiles)}: tiles are 0 (blank) to {n}")
        return Move(move.kind, tiles=move.tiles, alphabet=alphabet)
    for t in move.tiles:
        letter = t & LETTER_MASK
        if t < 0 or t & ~(THROUGH | BLANK | LETTER_MASK) or letter > n or (letter == 0 and not t & THROUGH):
            raise InvalidMoveError(
                f"placement tile {t} is not a tile of {rs.name}: a letter 1..{n}, with 0x80 for a blank, "
                "or 0x40 (played through) plus the board tile or 0"
            )
    reclaimed = turns.reclaim_letters(rs, position.board, move)
    if not move.tiles:
        raise IllegalMoveError("no_tiles", "the move places no tiles")
    board = position.board
    if reclaimed:
        board = board.copy()
        turns.swap_stars(board, reclaimed)
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
    resolved = Move.place(r0, c0, across, tiles, alphabet, reclaimed=reclaimed)
    turns.check_stars_replayed(resolved)
    return resolved


def _reclaimed_ints(move: Move, n: int) -> tuple[tuple[int, int, int], ...]:
    """A move's ``reclaimed`` as ``(row, col, letter)`` ints by square, checked to be so (a letter
    0..``n``, 0 when not given)."""
    try:
        items = [tuple(x) for x in move.reclaimed]
    except TypeError:
        items = []
    ok = bool(items) and all(
        len(x) == 3 and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in x)
        and 0 <= x[2] <= n for x in items
    )
    if not ok:
        raise InvalidMoveError(
            f"a move's reclaimed stars are (row, col, letter) triples of integers, the letter 1..{n} (0: the "
            f"star's own), got {move.reclaimed!r}"
        )
    out = sorted((int(r), int(c), int(t)) for r, c, t in items)
    if len({(r, c) for r, c, _ in out}) != len(out):
        raise InvalidMoveError(f"a star is taken back twice: {move.reclaimed!r}")
    return tuple(out)


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


