"""Square coordinates as players write them: ``8H`` is row 8, column H (1-based rows, lettered columns).

A square is a plain int ``row * cols + col`` (0-based); helpers here convert to and from text.
In move notation the order tells the direction: ``8D`` (row first) is across, ``D8`` (column first) down.
"""
from __future__ import annotations

import re
import reprlib

from ..errors import InvalidMoveError
from .alphabet import twin, twin_of

Square = int
MAX_DIM = 26  #: columns are lettered A..Z, so boards have at most 26 rows and columns
COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

_echo = reprlib.Repr()  #: a coordinate as an error message shows it: a long one cut in the middle
_echo.maxstring = 64

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
    has (a square of a larger board is the geometry check's ``off_board``) and of a column letter
    that is not Latin."""
    t = text.strip()
    m = _ROW_FIRST.match(t)
    if m:
        row, col, across = int(m.group(1)) - 1, COLUMNS.index(m.group(2).upper()), True
    else:
        m = _COL_FIRST.match(t)
        if not m:
            raise InvalidMoveError(f"bad coordinate {_echo.repr(text)}: " + (lookalike_column(t, board) or _HOW))
        row, col, across = int(m.group(2)) - 1, COLUMNS.index(m.group(1).upper()), False
    if not 0 <= row < MAX_DIM:
        if board is not None:
            rows, cols = board
            raise InvalidMoveError(f"bad coordinate {text!r}: this board's rows are 1..{rows} and its columns "
                                   f"A..{COLUMNS[min(cols, MAX_DIM) - 1]}")
        raise InvalidMoveError(f"bad coordinate {text!r}: rows are numbered 1..{MAX_DIM} (no board is larger)")
    return row, col, across


_HOW = "write row then column for across (8D) or column then row for down (D8)"

#: how some Russian boards label their columns: the alphabet without Ё and Й (А is A, Б is B... П is O)
CYRILLIC_COLUMNS = "АБВГДЕЖЗИКЛМНОП"

#: a coordinate whose column is one letter that is not Latin (``8Б``, ``Н8``)
_OTHER_ROW_FIRST = re.compile(r"^(\d{1,2})([^\W\d_])$")
_OTHER_COL_FIRST = re.compile(r"^([^\W\d_])(\d{1,2})$")


def lookalike_column(text: str, board: "tuple[int, int] | None" = None) -> str:
    """What is wrong with a coordinate whose column letter is not Latin (``8Н``, ``Б8``), or "" when
    that is not it: columns are Latin letters (A..O on a ``board`` of 15 columns); a Cyrillic
    letter that looks like a Latin one (``Н``, typed on a Russian keyboard layout) is named as its
    twin, and a letter of the Cyrillic labels some Russian boards use (:data:`CYRILLIC_COLUMNS`)
    as the Latin column it would be there, when that is another one (``Н`` is H, or M)."""
    t = text.strip()
    m = _OTHER_ROW_FIRST.match(t)
    row_first = m is not None
    if not row_first:
        m = _OTHER_COL_FIRST.match(t)
    if m is None:
        return ""
    row, typed = (m.group(1), m.group(2)) if row_first else (m.group(2), m.group(1))
    if typed.isascii():
        return ""
    cols = min(board[1], MAX_DIM) if board is not None else None

    def square(column: str) -> str:
        return f"{row}{column}" if row_first else f"{column}{row}"

    latin_letters = f"Latin letters A..{COLUMNS[cols - 1]}" if cols else "Latin letters"
    index = CYRILLIC_COLUMNS.find(typed.upper())
    labelled = COLUMNS[index] if 0 <= index < (cols or len(CYRILLIC_COLUMNS)) else ""
    other = twin(typed).upper()
    if other != typed.upper() and other in COLUMNS[:cols or MAX_DIM]:
        said = f"column {typed!r} is {twin_of(typed)} ({square(other)}"
        if labelled and labelled != other:
            return (f"{said}; columns are {latin_letters}), or {labelled} ({square(labelled)}) if you count the "
                    f"columns {' '.join(CYRILLIC_COLUMNS[:cols])}")
        return f"{said}; columns are {latin_letters}: check the keyboard layout)"
    if labelled:
        return (f"columns are {latin_letters} ({typed!r} is {labelled} if you count the columns "
                f"{' '.join(CYRILLIC_COLUMNS[:cols])}): write row then column for across ({row}{labelled}) "
                f"or column then row for down ({labelled}{row})")
    return f"columns are {latin_letters}: {_HOW}"
