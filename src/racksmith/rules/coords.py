"""Square coordinates as players write them: ``8H`` is row 8, column H (1-based rows, lettered columns).

A square is a plain int ``row * cols + col`` (0-based); helpers here convert to and from text.
In move notation the order tells the direction: ``8D`` (row first) is across, ``D8`` (column first) down.
"""
from __future__ import annotations

import re

from ..errors import InvalidMoveError
from .alphabet import twin, twin_of

Square = int
MAX_DIM = 26  #: columns are lettered A..Z, so boards have at most 26 rows and columns
COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

_ROW_FIRST = re.compile(r"^(\d{1,2})([A-Za-z])$")
_COL_FIRST = re.compile(r"^([A-Za-z])(\d{1,2})$")


def column_label(col: int) -> str:
    if not 0 <= col < MAX_DIM:
        raise InvalidMoveError(f"column {col!r} (counted from 0) has no letter: columns are A..{COLUMNS[MAX_DIM - 1]}")
    return COLUMNS[col]


def has_label(row: int, col: int) -> bool:
    """Does the square have a name (``8D``): is it on a board of the largest size (:data:`MAX_DIM`)?"""
    return 0 <= row < MAX_DIM and 0 <= col < MAX_DIM


def coord_label(row: int, col: int, across: bool = True) -> str:
    """``coord_label(7, 3)`` is ``'8D'`` (across); with ``across=False`` it is ``'D8'``. A square
    off every board (a negative row or column, or one past the 26th) has no name:
    :class:`~racksmith.errors.InvalidMoveError`."""
    if not has_label(row, col):
        raise InvalidMoveError(
            f"the square at row {row!r}, column {col!r} (counted from 0) has no name: it is off every board "
            f"(rows 1..{MAX_DIM}, columns A..{COLUMNS[MAX_DIM - 1]})"
        )
    return f"{row + 1}{COLUMNS[col]}" if across else f"{COLUMNS[col]}{row + 1}"


def parse_coord(text: str, board: "tuple[int, int] | None" = None) -> tuple[int, int, bool]:
    """``'8D'`` -> ``(7, 3, True)`` (across); ``'D8'`` -> ``(7, 3, False)`` (down). 0-based.
    ``board`` (rows, columns): the board the move is for, named in the message of a row no board
    has (a square of a larger board is the geometry check's ``off_board``)."""
    t = text.strip()
    m = _ROW_FIRST.match(t)
    if m:
        row, col, across = int(m.group(1)) - 1, COLUMNS.index(m.group(2).upper()), True
    else:
        m = _COL_FIRST.match(t)
        if not m:
            raise InvalidMoveError(f"bad coordinate {text!r}: " + (
                lookalike_column(t) or "write row then column for across (8D) or column then row for down (D8)"
            ))
        row, col, across = int(m.group(2)) - 1, COLUMNS.index(m.group(1).upper()), False
    if not 0 <= row < MAX_DIM:
        if board is not None:
            rows, cols = board
            raise InvalidMoveError(f"bad coordinate {text!r}: this board's rows are 1..{rows} and its columns "
                                   f"A..{COLUMNS[min(cols, MAX_DIM) - 1]}")
        raise InvalidMoveError(f"bad coordinate {text!r}: rows are numbered 1..{MAX_DIM} (no board is larger)")
    return row, col, across


def lookalike_column(text: str) -> str:
    """What is wrong with a coordinate whose column is typed in Cyrillic (``8Н``: a letter that
    looks like the Latin one, from a Russian keyboard layout), or "" when that is not it."""
    t = text.strip()
    latin = twin(t)
    if latin == t or not (_ROW_FIRST.match(latin) or _COL_FIRST.match(latin)):
        return ""
    typed = next(ch for ch, other in zip(t, latin) if ch != other)
    return f"column {typed!r} is {twin_of(typed)} (columns are Latin letters: check the keyboard layout)"
