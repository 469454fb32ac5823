"""Is a move legal here, and if not, why: resolution of a move against the board, then the checks
in a fixed order, each failure named by a reason code (:data:`REASONS`).

Resolution (:func:`resolve_move`) turns a move as a person writes it into the canonical move a
generator produces: letters over filled squares (written plainly, in parentheses or as ``.``) become
``THROUGH | board tile``; the placement grows to the whole main word (tiles already on the board
just before or after it along its line); a single-tile play is written across if the tile has a
horizontal neighbour, else down (the convention of MAGPIE and wolges).

:func:`check_move` builds the score breakdown of :mod:`racksmith.core.scoring` and looks words up as
strings. :func:`check_move_lean` gives the same answers for the moves a game sees, faster: it
decides canonical placements itself (:func:`lean_verdict`: plain ints, the board's bytes, one
compiled lookup for all the words of a play) and leaves everything else — exchanges, passes, moves
written another way, and the message of an illegal move — to :func:`check_move`.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..rules.alphabet import BLANK, LETTER_MASK, THROUGH
from ..errors import IllegalMoveError, InvalidMoveError
from ..lexicon.lexicon import Lexicon
from .move import PLACE, Move
from ..rules.ruleset import Ruleset

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
    if move.is_place and not all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (move.row, move.col)
    ):
        raise InvalidMoveError(f"a placement's row and column must be integers, got {move.row!r}, {move.col!r}")
    if type(move.row) is not int or type(move.col) is not int or not all(type(t) is int for t in move.tiles):
        move = replace(move, row=int(move.row), col=int(move.col), tiles=tuple(int(t) for t in move.tiles))
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
        from ..lexicon import load_lexicon

        return load_lexicon(lexicon, ruleset=position.ruleset)
    return lexicon


# --- the lean check ----------------------------------------------------------------------------------
def check_move_lean(position, move: "Move | str", lexicon: Any = None) -> Move:
    """What :func:`check_move` answers (the canonical move with its score set, or
    :class:`IllegalMoveError` with the same reason), without building the score breakdown.

    A canonical placement is decided by :func:`lean_verdict`; when it is legal, the move itself
    comes back if it already carries that score and the ruleset's alphabet. Anything else, and the
    error of an illegal move (its message and words), is :func:`check_move`'s."""
    move = as_move(position, move)
    verdict = lean_verdict(position, move, lexicon)
    if type(verdict) is int:
        alphabet = position.ruleset.alphabet
        if move.score == verdict and move.alphabet is alphabet:
            return move
        return Move.place(move.row, move.col, move.across, move.tiles, alphabet, score=verdict)
    return check_move(position, move, lexicon)


def lean_verdict(position, move: "Move | str", lexicon: Any = None) -> "int | str | None":
    """:func:`check_move`'s decision on a placement already in canonical form (as a generator
    writes it): the score when legal, else the reason code. None when the move is not such a
    placement (an exchange, a pass, tiles that are not ints of the ruleset, letters written over the
    board, a main word that goes on past the move, a single tile in the other direction): then only
    :func:`check_move` decides. ``lexicon`` as for :func:`check_move`."""
    move = as_move(position, move)
    rs = position.ruleset
    tb = _lean_tables(rs)
    a = move.alphabet
    tiles = move.tiles
    row = move.row
    col = move.col
    if (
        move.kind != PLACE
        or (a is not None and a is not rs.alphabet and a.letters != rs.alphabet.letters)
        or type(row) is not int
        or type(col) is not int
        or not set(map(type, tiles)) <= {int}
    ):
        return None
    try:
        raw = bytes(tiles)
    except ValueError:  # a tile outside 0..255
        return None
    if 0 in raw.translate(tb.valid):
        return None
    n = len(raw)
    if n == 0:
        return "no_tiles"
    rows = rs.rows
    cols = rs.cols
    across = bool(move.across)
    step = 1 if across else cols
    last_row = row if across else row + n - 1
    last_col = col + n - 1 if across else col
    if row < 0 or col < 0 or last_row >= rows or last_col >= cols:
        return "off_board"
    bb = position.board.tobytes()
    start = row * cols + col
    end = start + (n - 1) * step
    under = bb[start : end + 1 : step]
    if raw.translate(tb.through) != under.translate(tb.as_through):
        return _resolution_reason(raw, under)
    placed = under.count(0)
    if placed == 0:
        return "no_tiles"
    if across:
        if (col > 0 and bb[start - 1]) or (last_col + 1 < cols and bb[end + 1]):
            return None  # the main word goes on: resolution would grow the move
    elif (row > 0 and bb[start - cols]) or (last_row + 1 < rows and bb[end + cols]):
        return None
    if placed == 1:
        s = start + under.index(0) * step
        r, c = divmod(s, cols)
        beside = (c > 0 and bb[s - 1]) or (c + 1 < cols and bb[s + 1])
        above_below = (r > 0 and bb[s - cols]) or (r + 1 < rows and bb[s + cols])
        if across != bool(beside or not above_below):
            return None  # a single tile is written across only when it has a horizontal neighbour
    opening = placed == n and bb.count(0) == len(bb)
    if opening and not (start <= rs.start <= end and (rs.start - start) % step == 0):
        return "must_cover_start"

    points = tb.points
    letter_mult = rs.letter_multipliers
    word_mult = rs.word_multipliers
    letters = tb.letters
    words = [raw.translate(letters)] if n >= 2 else []
    main_sum = 0
    main_mult = 1
    cross_total = 0
    need = []
    for i in range(n):
        b = under[i]
        if b:
            main_sum += points[b]
            continue
        t = raw[i]
        s = start + i * step
        need.append(0 if t & BLANK else t)
        value = points[t] * letter_mult[s]
        main_sum += value
        main_mult *= word_mult[s]
        if across:  # the cross-word runs down the column, the new tile at index ``row`` of it
            if not ((row > 0 and bb[s - cols]) or (row + 1 < rows and bb[s + cols])):
                continue
            line = bb[col + i :: cols]
            k = row
        else:  # the cross-word runs along the row, the new tile at index ``col`` of it
            if not ((col > 0 and bb[s - 1]) or (col + 1 < cols and bb[s + 1])):
                continue
            line = bb[s - col : s - col + cols]
            k = col
        top = line.rfind(0, 0, k) + 1
        bottom = line.find(0, k + 1)
        if bottom < 0:
            bottom = len(line)
        before = line[top:k]
        after = line[k + 1 : bottom]
        cross_sum = sum(map(points.__getitem__, before)) + value + sum(map(points.__getitem__, after))
        cross_total += cross_sum * word_mult[s]
        words.append((before + raw[i : i + 1] + after).translate(letters))
    if placed == n and not opening and len(words) == (n >= 2):
        return "not_connected"  # no tile played through and no cross-word: nothing is touched
    left = list(position.racks[0])
    try:
        for t in need:
            left.remove(t)
    except ValueError:
        return "not_in_rack"
    if not words:
        return "invalid_words"  # a single tile that forms no word of 2 letters or more
    if not _all_words(position, rs, lexicon, words):
        return "invalid_words"
    score = (main_sum * main_mult if n >= 2 else 0) + cross_total
    return score + rs.bingo_bonus if placed == rs.rack_size else score


def _resolution_reason(raw: bytes, under: bytes) -> "str | None":
    """The first reason of :func:`resolve_move` for a placement whose tiles over filled squares are
    not ``THROUGH | board tile`` (or that plays through an empty square); None if it resolves."""
    for t, b in zip(raw, under):
        if b and t & LETTER_MASK and t & LETTER_MASK != b & LETTER_MASK:
            return "occupied"
    for t, b in zip(raw, under):
        if t & THROUGH and not b:
            return "not_contiguous"
    return None if 0 in under else "no_tiles"


def _all_words(position, rs: Ruleset, lexicon: Any, words: list[bytes]) -> bool:
    """Every word (letter tiles) is in the lexicon: one compiled call for a :class:`Lexicon` of the
    ruleset's alphabet, else ``word in lexicon`` with the word as :func:`check_move` spells it."""
    lex = _lexicon(position, lexicon)
    if isinstance(lex, Lexicon) and (lex.alphabet is rs.alphabet or lex.alphabet.letters == rs.alphabet.letters):
        return lex.first_absent(b"\xff".join(words)) < 0
    decode = rs.alphabet.decode
    return all(decode(w) in lex for w in words)


@dataclass(frozen=True, slots=True)
class _LeanTables:
    """Tables of one ruleset for :func:`lean_verdict`, indexed by a tile (a byte)."""

    valid: bytes  #: 1 for a placement tile of the ruleset (see :func:`resolve_move`), else 0
    through: bytes  #: a move tile that plays through stays, any other becomes 0
    as_through: bytes  #: a board tile becomes ``THROUGH | tile`` (0, an empty square, stays 0)
    letters: bytes  #: a tile becomes its letter
    points: tuple[int, ...]  #: a tile's face value: 0 for a blank (and for an empty square)


_TABLES: dict[int, tuple[Ruleset, _LeanTables]] = {}


def _lean_tables(rs: Ruleset) -> _LeanTables:
    hit = _TABLES.get(id(rs))
    if hit is not None and hit[0] is rs:
        return hit[1]
    n = len(rs.alphabet)
    tables = _LeanTables(
        valid=bytes(
            1 if (t & LETTER_MASK) <= n and (t & LETTER_MASK or t & THROUGH) else 0 for t in range(256)
        ),
        through=bytes(t if t & THROUGH else 0 for t in range(256)),
        as_through=bytes(THROUGH | t if t else 0 for t in range(256)),
        letters=bytes(t & LETTER_MASK for t in range(256)),
        points=tuple(rs.values[t & LETTER_MASK] if 0 < t & LETTER_MASK <= n and not t & BLANK else 0 for t in range(256)),
    )
    if len(_TABLES) >= 64:  # rulesets made on the fly: keep the cache small
        _TABLES.clear()
    _TABLES[id(rs)] = (rs, tables)
    return tables
