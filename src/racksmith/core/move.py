"""Moves as frozen values: placements, exchanges and passes, parsed from and written to notation.

``Move.parse`` checks syntax only (context-free, like ``chess.Move.from_uci``); the position resolves
played-through squares and checks legality (:meth:`racksmith.core.position.Position.resolve`).

Placement tiles, one per square from ``(row, col)`` along the direction:

* a placed tile: its letter (1..63), with :data:`~racksmith.rules.alphabet.BLANK` set for a blank;
* a square already occupied: :data:`~racksmith.rules.alphabet.THROUGH` plus the board tile (letter, with the
  blank bit if that tile is a blank); the letter part is 0 when it is not known yet (written ``.``).

A placement may first take stars (blanks) back from the board, where the ruleset allows it
(Эрудит: ``ruleset.star_reclamation``): ``reclaimed`` lists ``(row, col, letter)`` of each star
taken back, the player's real ``letter`` going onto that square (0 when not given: the star on the
board says which). It is written after the placement, ``*`` and the square, with the letter after
``=``: ``8D ДОм *12H=А`` plays ДОм having put a real А on 12H and taken its star, which this
placement plays as the м. The rules are :mod:`racksmith.core.turns`'.
"""
from __future__ import annotations

import dataclasses
import numbers
import operator
import os
import re
import reprlib
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from itertools import groupby
from pathlib import Path

from .. import _args
from ..rules.alphabet import BLANK, BLANK_CHARS, LETTER_MASK, THROUGH, Alphabet, Tiles
from ..rules.coords import MAX_DIM, coord_label, has_label, lookalike_column, parse_coord
from ..rules.ruleset import Ruleset, get_ruleset
from ..errors import InvalidMoveError, RacksmithError

if TYPE_CHECKING:  # pragma: no cover
    from .position import Position


class Kind(StrEnum):
    """A ``StrEnum`` that reads as its name: ``repr(MoveKind.PLACE) == "MoveKind.PLACE"``, and equals
    its value (``MoveKind.PLACE == "place"``), so old callers comparing with strings keep working."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class MoveKind(Kind):
    """What a move does. A ``StrEnum``: ``MoveKind.PLACE == "place"``."""

    PLACE = "place"  #: tiles put on the board
    EXCHANGE = "exchange"  #: tiles given back to the bag for as many new ones
    PASS = "pass"  #: nothing


PLACE, EXCHANGE, PASS = MoveKind.PLACE, MoveKind.EXCHANGE, MoveKind.PASS
#: an exchange as Move.parse reads it (``-ABC``, ``exch ABC``, ``(exch ABC)``; ``-3``, ``exch 3``: of
#: tiles not known)
_EXCHANGE = re.compile(r"\(?\s*(?:exch(?:ange)?\s+|-\s*)([^\s()]+)\s*\)?", re.IGNORECASE)
_EXCHANGE_STARTS = frozenset("(-eE")
_THROUGH_BIT = bytes(t & THROUGH for t in range(256))

_ENGLISH: Alphabet | None = None


def _default_alphabet() -> Alphabet:
    global _ENGLISH
    if _ENGLISH is None:
        _ENGLISH = get_ruleset("english").alphabet
    return _ENGLISH


def _alphabet_of(spec) -> Alphabet:
    if spec is None:
        return _default_alphabet()
    if isinstance(spec, Alphabet):
        return spec
    return get_ruleset(spec).alphabet


@dataclass(frozen=True, slots=True)
class Move:
    """A placement, an exchange or a pass. Compare and hash by what is played, not by its score.

    ``leave`` (set on the moves of a :class:`~racksmith.movegen.MoveList`) is the part of the rack
    the move keeps, as :class:`~racksmith.rules.alphabet.Tiles` (``str(move.leave) == "EIS"``).
    """

    kind: MoveKind
    row: int = 0
    col: int = 0
    across: bool = True
    tiles: tuple[int, ...] = ()
    alphabet: Alphabet | None = field(default=None, compare=False, repr=False)
    score: int | None = field(default=None, compare=False)
    equity: float | None = field(default=None, compare=False)
    leave: Tiles | None = field(default=None, compare=False, repr=False)
    #: the position the move was generated in (a snapshot, for pictures): set on the moves of a
    #: :class:`~racksmith.movegen.MoveList` made by :meth:`Position.moves`, else None; each access
    #: gives a copy of it (a property over this field, set below the class)
    position: "Position | None" = field(default=None, compare=False, repr=False)
    #: ``(row, col, letter)`` of each star taken back from the board before the placement, by
    #: square (letter 0: not given); empty for every other move (see the module docstring)
    reclaimed: tuple[tuple[int, int, int], ...] = ()

    def __post_init__(self) -> None:
        """What the constructor is given, made what the factories make (:meth:`place`,
        :meth:`exchange`, :meth:`pass_`): the tiles a tuple of plain ints (numpy's too), an
        exchange's sorted, a placement's square plain ints and ``across`` a bool, the alphabet an
        :class:`~racksmith.rules.alphabet.Alphabet` (a ruleset or its name gives its alphabet);
        an exchange or a pass with a square, or a pass with tiles, is an
        :class:`~racksmith.errors.InvalidMoveError`. (The move lists make their moves without
        this: their values are those already.)"""
        kind = self.kind
        if type(kind) is not MoveKind:
            try:
                kind = MoveKind(kind)
            except (ValueError, TypeError):
                raise InvalidMoveError(f"a move's kind is MoveKind.PLACE, MoveKind.EXCHANGE or MoveKind.PASS, got "
                                       f"{_args.show(kind)}") from None
            _set_kind(self, kind)
        alphabet = self.alphabet
        if alphabet is not None and type(alphabet) is not Alphabet:
            _set_alphabet(self, _given_alphabet(alphabet))
        if _POSITION_SLOT.__get__(self, Move) is not None:
            _check_position(_POSITION_SLOT.__get__(self, Move))
        if kind is PLACE:
            self._normalize_place()
            return
        what = "an exchange" if kind is EXCHANGE else "a pass"
        row, col, across, reclaimed = self.row, self.col, self.across, self.reclaimed
        if type(row) is not int or type(col) is not int or type(across) is not bool or type(reclaimed) is not tuple:
            if not (_args.is_whole(row) and _args.is_whole(col) and type(across).__name__ in ("bool", "bool_")
                    and isinstance(reclaimed, (tuple, list))):
                raise self._squared(what)
            _set_row(self, int(row))
            _set_col(self, int(col))
            _set_across(self, bool(across))
            _set_reclaimed(self, tuple(reclaimed))
        if (self.row, self.col, self.across, self.reclaimed) != (0, 0, True, ()):
            raise self._squared(what)
        tiles = _plain_tiles(self.tiles, what)
        if kind is EXCHANGE:
            try:
                tiles = tuple(sorted(tiles))
            except TypeError:  # things that do not compare
                raise InvalidMoveError(f"an exchange's tiles are tile numbers (a sequence of ints), got "
                                       f"{_args.show(self.tiles)}") from None
        elif tiles:
            raise InvalidMoveError(f"a pass plays no tiles, got tiles={_args.show(self.tiles)}")
        if tiles is not self.tiles:
            _set_tiles(self, tiles)

    def _squared(self, what: str) -> InvalidMoveError:
        """The error of an exchange or a pass given a square, a direction or stars taken back."""
        return InvalidMoveError(
            f"{what} has no square, direction or stars taken back (got row={self.row!r:.20}, col={self.col!r:.20}, "
            f"across={self.across!r:.20}, reclaimed={self.reclaimed!r:.40}): only a placement has them "
            f"(Move.{'exchange' if what == 'an exchange' else 'pass_'} makes {what})"
        )

    def _normalize_place(self) -> None:
        """:meth:`__post_init__` of a placement: its square, direction, tiles and stars."""
        row, col, across = self.row, self.col, self.across
        if type(row) is not int or type(col) is not int:  # (plain ints pass at once: the ABC check is slow)
            for name, v in (("row", row), ("col", col)):
                if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                    raise InvalidMoveError(f"a placement's {name} is a whole number (0-based), got {v!r:.40}")
            _set_row(self, int(row))
            _set_col(self, int(col))
        if type(across) is not bool:
            if type(across).__name__ not in ("bool", "bool_"):  # (numpy's)
                raise InvalidMoveError(f"a placement's across is True (across) or False (down), got {across!r:.40}")
            _set_across(self, bool(across))
        tiles = _plain_tiles(self.tiles, "a placement")
        if tiles is not self.tiles:
            _set_tiles(self, tiles)
        reclaimed = self.reclaimed
        if type(reclaimed) is not tuple or not all(type(star) is tuple for star in reclaimed):
            try:
                reclaimed = tuple(tuple(_plain(v) for v in star) for star in reclaimed)
            except TypeError:
                raise InvalidMoveError(f"a placement's reclaimed lists (row, col, letter) of each star it takes back, "
                                       f"got {_args.show(self.reclaimed)}") from None
            _set_reclaimed(self, reclaimed)

    def __eq__(self, other: object) -> bool:
        """The same move: what is played (kind, square, direction, tiles, stars taken back), in
        letters that are the same (the alphabets alike, or the same letters: a move of English
        equals one of Super Scrabble, never one of Russian; a move made with no alphabet, such as
        ``Move.pass_()``, claims none and equals the move of any); not its score, equity or leave."""
        if other.__class__ is not self.__class__:
            return NotImplemented
        o: Any = other  # (a Move: checked above, more quickly than isinstance would)
        if (self.tiles != o.tiles or self.row != o.row or self.col != o.col or self.across != o.across
                or self.kind != o.kind or self.reclaimed != o.reclaimed):
            return False
        a, b = self.alphabet, o.alphabet  # (the same alphabet, or alphabets of the same letters)
        return a is b or a is None or b is None or a.letters == b.letters

    def __hash__(self) -> int:
        # (the alphabet left out: moves of other letters that are equal otherwise are unequal all the same)
        return hash((self.kind, self.row, self.col, self.across, self.tiles, self.reclaimed))

    # --- constructors ---------------------------------------------------------------------
    @classmethod
    def place(cls, row: int, col: int, across: bool, tiles: Iterable[int], alphabet: Alphabet | None = None,
              **kw: Any) -> "Move":
        """A placement from plain values: ``row``/``col`` of its first tile (0-based ints),
        ``across`` (True, or False for down), ``tiles`` the tile ints (numpy's are made plain ints;
        see :meth:`parse` for text)."""
        if (cls is Move and type(row) is int and type(col) is int and type(across) is bool and type(tiles) is tuple
                and _INT.issuperset(map(type, tiles)) and _quick(alphabet, kw)):
            return _made(PLACE, row, col, across, tiles, alphabet, **kw)  # (plain values: as the constructor makes them)
        return cls(PLACE, row, col, across, tiles, alphabet, **kw)  # type: ignore[arg-type]  # (a tuple: __post_init__)

    @classmethod
    def exchange(cls, tiles: Iterable[int], alphabet: Alphabet | None = None, **kw: Any) -> "Move":
        """An exchange of rack tiles (ints, 0 a blank; sorted; see :meth:`parse` for text)."""
        if (cls is Move and (type(tiles) is tuple or type(tiles) is list) and _INT.issuperset(map(type, tiles))
                and _quick(alphabet, kw)):
            return _made(EXCHANGE, 0, 0, True, tuple(sorted(tiles)), alphabet, **kw)  # (as the constructor makes it)
        return cls(EXCHANGE, tiles=tiles, alphabet=alphabet, **kw)  # type: ignore[arg-type]  # (sorted: __post_init__)

    @classmethod
    def pass_(cls, alphabet: Alphabet | None = None, **kw: Any) -> "Move":
        if cls is Move and _quick(alphabet, kw):
            return _made(PASS, 0, 0, True, (), alphabet, **kw)  # (as the constructor makes it)
        return cls(PASS, alphabet=alphabet, **kw)

    @classmethod
    def parse(cls, text: str, ruleset: "str | Ruleset | Alphabet | None" = None, *, score: "int | None" = None,
              equity: "float | None" = None) -> "Move":
        """Parse ``8D QUIRK`` (across), ``D8 QUIRK`` (down), ``8D QU(I)RK`` or ``8D QU.RK``
        (played-through), lowercase = blank; ``-ABC`` or ``exch ABC`` exchange; ``-`` or ``pass`` pass;
        a placement that first takes stars back from the board (Эрудит) adds ``*12H=А`` (the
        square of the star, the real letter put there) or ``*12H`` for each star: ``8D ДОм *12H=А``.

        ``ruleset`` (name, :class:`~racksmith.rules.ruleset.Ruleset` or :class:`~racksmith.rules.alphabet.Alphabet`)
        gives the letters; English by default. ``score`` and ``equity`` are set on the move as given
        (what ``repr(move)`` writes: ``Move.parse('8D QUIRK', score=56)``); nothing checks them.
        """
        if score is not None or equity is not None:
            return dataclasses.replace(cls.parse(text, ruleset), score=score, equity=equity)
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move is written as text, got {type(text).__name__}")
        if len(text) > _SHORT_MOVE:  # (every move of every board is shorter: checked only then)
            _refuse_overlong(text, ruleset)
        if ruleset is None:
            alphabet = _ENGLISH if _ENGLISH is not None else _default_alphabet()
            board = None
        else:
            if isinstance(ruleset, (str, os.PathLike)):
                ruleset = get_ruleset(ruleset)  # its board too: named in a bad coordinate's message
            alphabet = _alphabet_of(getattr(ruleset, "alphabet", ruleset))
            rows, cols = getattr(ruleset, "rows", None), getattr(ruleset, "cols", None)
            board = (rows, cols) if isinstance(rows, int) and isinstance(cols, int) else None
        t = text.strip() if text.isascii() else unicodedata.normalize("NFC", text).strip()  # decomposed letters: one each
        _refuse_star_back_without_placement(t, text)
        # ('–ЁЖ': a word processor's dash for the exchange's '-'; an ASCII character is none, not looked up)
        if t[:1] > "\x7f" and _is_dash(t[:1]):
            raise InvalidMoveError(
                f"bad move {_shown(text)}: {t[0]!r} is U+{ord(t[0]):04X} {unicodedata.name(t[0], 'a dash')}: type '-' "
                "('-ABC' to exchange, '-' to pass)"
            )
        low = t.lower()
        if low in ("-", "pass", "(pass)"):
            return cls.pass_(alphabet)
        # (an exchange starts with one of these: a placement's coordinate does not)
        m = _EXCHANGE.fullmatch(t) if t[:1] in _EXCHANGE_STARTS else None
        if m and m.group(1).isascii() and m.group(1).isdigit():
            # ``-3``: an exchange of tiles not known (an opponent's, as the board shows it)
            count = int(m.group(1))
            if not 1 <= count <= 99:
                raise InvalidMoveError(f"bad exchange {_shown(text)}: an exchange of tiles not shown gives back 1 to 99 tiles")
            return cls.exchange((THROUGH,) * count, alphabet)
        if m:
            try:
                given = alphabet.rack(m.group(1))
            except RacksmithError as e:
                raise InvalidMoveError(f"bad exchange {_shown(text)}: {e}") from None
            return cls.exchange(given, alphabet)
        parts = t.split()
        if len(parts) < 2 or (len(parts) > 2 and not all(p.startswith("*") for p in parts[2:])):
            raise InvalidMoveError(
                f"bad move {_shown(text)}: write a coordinate and a word ('8D QUIRK' across, 'D8 QUIRK' down), "
                "'-ABC' to exchange or '-' to pass (and '*12H' after the word to take back the star on 12H, "
                "where the rules allow it)"
            )
        row, col, across = parse_coord(parts[0], board)
        if _is_star_square(parts[1]):  # (after the coordinate comes the word: none, only stars)
            raise InvalidMoveError(
                f"bad move {_shown(text)}: a turn cannot only take a star back: it must also place tiles, the star "
                "among them (write the word, then the stars taken back: '8D ДОм *12H=А')"
            )
        tiles = _parse_word(parts[1], alphabet, text)
        reclaimed = _parse_reclaimed(parts[2:], alphabet, text, board) if len(parts) > 2 else ()
        if cls is Move:  # (plain values, read from the text: as the constructor makes them)
            return _made(PLACE, row, col, across, tiles, alphabet, reclaimed=reclaimed)
        return cls(PLACE, row, col, across, tiles, alphabet, reclaimed=reclaimed)

    # --- views ----------------------------------------------------------------------------
    @property
    def is_place(self) -> bool:
        return self.kind == PLACE

    @property
    def is_exchange(self) -> bool:
        return self.kind == EXCHANGE

    @property
    def is_pass(self) -> bool:
        return self.kind == PASS

    @property
    def squares(self) -> list[tuple[int, int]]:
        """(row, col) of every square the placement covers, played-through ones included."""
        dr, dc = (0, 1) if self.across else (1, 0)
        return [(self.row + i * dr, self.col + i * dc) for i in range(len(self.tiles))]

    @property
    def placed(self) -> list[tuple[int, int, int]]:
        """(row, col, tile) of every newly placed tile."""
        return [(r, c, t) for (r, c), t in zip(self.squares, self.tiles) if not t & THROUGH]

    @property
    def tiles_played(self) -> int:
        """How many tiles the move takes from the rack (placed, or given back in an exchange); the
        tiles themselves are :meth:`rack_tiles`."""
        if self.kind == PLACE:
            try:  # counted in C: this is asked of every move a game plays
                return len(self.tiles) - bytes(self.tiles).translate(_THROUGH_BIT).count(THROUGH)
            except (ValueError, TypeError):  # not tiles of 0..255: counted one by one
                return sum(1 for t in self.tiles if not t & THROUGH)
        return len(self.tiles) if self.kind == EXCHANGE else 0

    def rack_tiles(self) -> list[int]:
        """The rack tiles this move uses (0 = blank), sorted. A placement that takes stars back
        uses the real letters it puts on their squares, and as many of the blanks it places come
        from the board, not the rack (letters not given are not counted)."""
        if self.kind == EXCHANGE:
            return sorted(self.tiles)
        if self.kind == PASS:
            return []
        used = [0 if t & BLANK else t & LETTER_MASK for t in self.tiles if not t & THROUGH]
        for _, _, letter in self.reclaimed:
            if 0 in used:
                used.remove(0)
            if letter:
                used.append(letter)
        return sorted(used)

    @property
    def word(self) -> str:
        """The whole main word, played-through tiles included; lowercase = blank (``.`` if unknown)."""
        if self.kind != PLACE:
            return ""
        return _spell(self._abc(), self.tiles)

    def notation(self) -> str:
        """``8D QU(I)RK``, ``-ABC`` or ``-``: the notation players read. A placement whose square is
        off every board (a move :meth:`Position.validate` calls ``off_board``) has no coordinate:
        its square is written out, ``row 101, column 101 across: ABC``."""
        if self.kind == PASS:
            return "-"
        a = self._abc()
        if self.kind == EXCHANGE:
            if self.tiles and all(t == THROUGH for t in self.tiles):  # tiles not known (another's rack)
                return f"-{len(self.tiles)}"
            return "-" + a.rack_string(self.tiles)
        out = []
        for through, run in groupby(self.tiles, key=lambda t: bool(t & THROUGH)):
            text = _spell(a, list(run))
            out.append(f"({text})" if through else text)
        return f"{_square_text(self.row, self.col, self.across)} {''.join(out)}{self._reclaimed_text(False)}"

    def gcg(self) -> str:
        """GCG form: ``8D QU.RK`` (played-through as ``.``), ``-ABC``, ``-``; a placement that takes
        stars back adds them as in :meth:`notation` (``8D ДОм *12H=А``): a token racksmith reads and
        other programs, whose rules have no such move, refuse. A placement off every board has no
        GCG form: :class:`~racksmith.errors.InvalidMoveError`."""
        if self.kind != PLACE:
            return self.notation()
        if not self._labelled():
            raise InvalidMoveError(f"{self.notation()}: the move is off every board, so a GCG record cannot name its square")
        w = _spell(self._abc(), [THROUGH if t & THROUGH else t for t in self.tiles])
        return f"{coord_label(self.row, self.col, self.across)} {w}{self._reclaimed_text(True)}"

    def _labelled(self) -> bool:
        """Have the squares the notation names (the placement's, the stars') a coordinate?"""
        return _has_label(self.row, self.col) and all(_has_label(r, c) for r, c, _ in self.reclaimed)

    def _reclaimed_text(self, strict: bool) -> str:
        """`` *12H=А`` for each star taken back (`` *12H`` when the letter is not given); a square off
        every board is written out, unless ``strict`` (then :func:`coord_label` refuses it)."""
        if not self.reclaimed:
            return ""
        a = self._abc()
        return "".join(
            f" *{coord_label(r, c) if strict else _square_text(r, c)}"
            + (f"={a.decode([letter & LETTER_MASK])}" if letter & LETTER_MASK else "")
            for r, c, letter in self.reclaimed
        )

    def _abc(self) -> Alphabet:
        return self.alphabet or _default_alphabet()

    def __str__(self) -> str:
        return self.notation()

    # --- pictures for notebooks (Jupyter calls these; nothing is imported until then) ---------------
    def _board_for_picture(self):
        """The position to draw the move on: the one it was generated in, else an empty board of
        the ruleset its alphabet belongs to (the tiles it plays through drawn as board tiles): the
        ruleset whose alphabet it is (``Move.parse(text, "super")`` is drawn on Super Scrabble's
        board, not on English's, which has the same letters), else one named as the alphabet is,
        else the first with the same letters."""
        snap = _POSITION_SLOT.__get__(self, Move)
        if snap is not None:
            return _snapshot_position(snap, copy=False)  # (only drawn)
        from ..rules.ruleset import available_rulesets
        from .position import Position

        if not self.is_place:
            return None
        a = self._abc()
        rulesets = [r for r in available_rulesets() if r.alphabet.letters == a.letters]
        rs = (next((r for r in rulesets if r.alphabet is a), None)
              or next((r for r in rulesets if r.name == a.name), None)
              or (rulesets[0] if rulesets else None))
        if rs is None:
            return None
        pos = Position(rs)
        for (r, c), t in zip(self.squares, self.tiles):
            if t & THROUGH and t & LETTER_MASK and rs.on_board(r, c):
                pos.board[r, c] = t & ~THROUGH
        return pos

    def _repr_svg_(self) -> str | None:
        """The board with this move on it (:func:`racksmith.formats.render.render_svg`)."""
        from ..formats.render import render_svg

        pos = self._board_for_picture()
        if pos is None:
            return None
        try:
            return render_svg(pos, move=self)
        except RacksmithError:
            return None

    def _repr_html_(self) -> str:
        """The move, its score and equity, and the board with the move when it can be drawn."""
        from html import escape

        head = f"<b>{escape(self.notation())}</b>"
        if self.score is not None:
            head += f" &nbsp;{self.score} points"
        if self.equity is not None:
            head += f", equity {self.equity:.3f}"
        if self.leave is not None:
            head += f", leave {escape(str(self.leave) or '-')}"
        svg = self._repr_svg_()
        return f"<div>{head}</div>" + (f"<div>{svg}</div>" if svg else "")

    def __repr__(self) -> str:
        """The call that makes the move, score and equity included, so that a repr pastes back
        (inside a list or a tuple too): ``Move.parse('8D QUIRK', score=56)``; a move of another
        ruleset's letters names it (``Move.parse('8H КОТ', 'russian', score=9)``)."""
        extra = "" if self.score is None else f", score={_number(self.score)}"
        if self.equity is not None:
            extra += f", equity={_number(self.equity)}"
        a = self.alphabet
        spelled = f", {a.name!r}" if a is not None and a.name and a.name != "english" else ""
        try:
            made = f"Move.parse({self.notation()!r}{spelled}" if self.kind != PLACE or self._labelled() else None
        except (RacksmithError, TypeError, ValueError):  # tiles that are no letters (or not ints): as they are
            made = None
        if made is None:  # no notation: the call that makes it
            star = f", reclaimed={self.reclaimed!r}" if self.reclaimed else ""
            if self.kind == PLACE:
                made = f"Move.place({self.row!r}, {self.col!r}, {self.across!r}, {self.tiles!r}{star}"
            elif self.kind == EXCHANGE:
                made = f"Move.exchange({self.tiles!r}"
            else:
                made = (f"Move({self.kind!r}, row={self.row!r}, col={self.col!r}, across={self.across!r}, "
                        f"tiles={self.tiles!r}{star}")
        return f"{made}{extra})"


#: the slots of a Move, set without the frozen dataclass's checks (by __post_init__ and _made)
(_set_kind, _set_row, _set_col, _set_across, _set_tiles, _set_alphabet, _set_score, _set_equity, _set_leave,
 _set_reclaimed) = (Move.__dict__[name].__set__ for name in ("kind", "row", "col", "across", "tiles", "alphabet", "score",
                                                             "equity", "leave", "reclaimed"))
#: the slot that holds a move's position: the snapshot a move list keeps (a tuple, see
#: Position.moves), or a Position given; :attr:`Move.position` hands out a copy of it
_POSITION_SLOT = Move.__dict__["position"]
_set_position = _POSITION_SLOT.__set__
_new = object.__new__


def _snapshot_position(snap: Any, copy: bool = True) -> "Position":
    """The position a snapshot describes: a new one for a move list's (a tuple), else the Position
    kept, copied (unless not ``copy``: read only, for a picture)."""
    if type(snap) is tuple:
        from .position import Position

        return Position._from_snapshot(snap)
    return snap.copy() if copy else snap


def _position(move: Move) -> "Position | None":
    snap = _POSITION_SLOT.__get__(move, Move)
    return None if snap is None else _snapshot_position(snap)


def _getstate(move: Move) -> list:
    """A move's state for pickle and copy: its fields, the position as kept (a move list's snapshot,
    shared by its moves and so pickled once), not a copy made for each move by the property."""
    return [_POSITION_SLOT.__get__(move, Move) if f.name == "position" else getattr(move, f.name)
            for f in dataclasses.fields(Move)]


def position_racks_known(move: Move) -> "tuple[bool, ...] | None":
    """Which racks the position ``move`` was generated in has known (None: it has none), read from
    what the move keeps, without the copy :attr:`Move.position` makes."""
    snap = _POSITION_SLOT.__get__(move, Move)
    if snap is None:
        return None
    if type(snap) is tuple:
        known = snap[5]
        return known if known is not None else (True,) * len(snap[2])
    return snap.racks_known


Move.__getstate__ = _getstate  # type: ignore[method-assign]


setattr(Move, "position", property(
    _position, _set_position,
    doc="""The position the move was generated in (set on the moves of a :class:`~racksmith.movegen.MoveList`
    made by :meth:`Position.moves`, else None), for pictures: a copy made on each access, which the
    caller may change without changing the move, its list or the list's other moves.""",
))


def _made(kind: MoveKind, row: int, col: int, across: bool, tiles: tuple, alphabet: "Alphabet | None",
          score: "int | None" = None, equity: "float | None" = None, leave: "Tiles | None" = None,
          position: Any = None, reclaimed: tuple = ()) -> Move:
    """A Move of values that are those :meth:`Move.__post_init__` makes (plain ints, a tuple of
    them, an Alphabet or None), without its checks: the moves of move lists and kernel records."""
    m = _new(Move)
    _set_kind(m, kind)
    _set_row(m, row)
    _set_col(m, col)
    _set_across(m, across)
    _set_tiles(m, tiles)
    _set_alphabet(m, alphabet)
    _set_score(m, score)
    _set_equity(m, equity)
    _set_leave(m, leave)
    _set_position(m, position)
    _set_reclaimed(m, reclaimed)
    return m


_INT = frozenset({int})
#: what a factory may be given besides the move and still make it without the constructor's checks
_QUICK_KW = frozenset({"score", "equity", "leave", "reclaimed"})


def _quick(alphabet: Any, kw: dict) -> bool:
    """May a factory given ``alphabet`` and ``kw`` make its move without the constructor's checks?
    (an Alphabet or None, and no more than a score, an equity, a leave and no star taken back)"""
    return ((alphabet is None or type(alphabet) is Alphabet) and _QUICK_KW.issuperset(kw)
            and kw.get("reclaimed", ()) == ())


def _plain(v: Any) -> Any:
    """A whole number as a plain int (numpy's too); anything else as it is (refused where the move
    is checked, as a tile that is no tile)."""
    if type(v) is int or isinstance(v, bool) or not isinstance(v, numbers.Integral):
        return v
    return int(v)


def _plain_tiles(tiles: Any, what: str) -> tuple:
    """``tiles`` (of ``what``: ``"a placement"``, ``"an exchange"``, ``"a pass"``) as a tuple, its
    whole numbers plain ints (numpy's uint8 of a record's tiles too)."""
    if type(tiles) is tuple and all(type(t) is int for t in tiles):
        return tiles
    if isinstance(tiles, str):
        how = "'-ABC'" if what == "an exchange" else "'8D QUIRK'"
        raise InvalidMoveError(f"{what}'s tiles are tile numbers, got the text {tiles!r:.40}: write the move as text "
                               f"with Move.parse ({how}), or Position.resolve")
    try:
        return tuple(_plain(t) for t in tiles)  # (what is not a tile is refused where the move is checked)
    except TypeError:
        raise InvalidMoveError(f"{what}'s tiles are tile numbers (a sequence of ints), got {_args.show(tiles)}") from None


def _given_alphabet(spec: Any) -> Alphabet:
    """The ``alphabet`` given to the Move constructor as an Alphabet: itself, or a ruleset's
    (a Ruleset, its name or its file)."""
    if isinstance(spec, Alphabet):
        return spec
    if isinstance(spec, (str, Path, Ruleset)):
        return get_ruleset(spec).alphabet
    raise InvalidMoveError(f"a move's alphabet is an Alphabet (ruleset.alphabet), a ruleset or its name, got "
                           f"{_args.show(spec)}")


def _check_position(value: Any) -> None:
    """A move's ``position`` is a Position (or the snapshot a move list keeps)."""
    from .position import Position

    if type(value) is not tuple and not isinstance(value, Position):
        raise InvalidMoveError(f"a move's position is the Position it was generated in (or None), got "
                               f"{_args.show(value)}")


#: the length of text that any move of any board may have (:func:`max_move_chars` is more): a
#: longer text is measured against its board before it is read
_SHORT_MOVE = 256

_echo = reprlib.Repr()
_echo.maxstring = 64


def _is_dash(char: str) -> bool:
    """Is ``char`` a dash or a minus sign (``–``, ``—``, ``‐``, ``−``, fullwidth ``－``)?"""
    return len(char) == 1 and (unicodedata.category(char) == "Pd" or char in "\u2212\u2796\ufe63\uff0d")


def _shown(text: str) -> str:
    """The text of a move for an error message: its repr, the middle of a long one left out."""
    return _echo.repr(text)


def max_move_chars(alphabet: Alphabet, line: int = MAX_DIM) -> int:
    """The most characters :meth:`Move.parse` reads as a move on a board whose longest line has
    ``line`` squares (:data:`~racksmith.rules.coords.MAX_DIM` by default: the largest board): a
    tile on every square of the line, each written the longest way a letter of ``alphabet`` is
    (in brackets, ``[CH]``) and each taking a star back (`` *12H=[CH]``), and room for the
    coordinate and brackets; generous, so that no move is refused, only text no move could be."""
    spelled = [*alphabet.letters, *(a for a, _ in alphabet.aliases)]
    longest = max(len(x) for x in spelled) + 2
    return 64 + line * (2 * longest + 12)


def _refuse_overlong(text: str, ruleset) -> None:
    """:class:`InvalidMoveError` for text longer than any move of the ruleset's board could be
    (:func:`max_move_chars`), said at once, before the text is read (a megabyte of it took seconds)."""
    if ruleset is None:
        ruleset = _default_alphabet()
    elif isinstance(ruleset, (str, os.PathLike)):
        ruleset = get_ruleset(ruleset)
    rows, cols = getattr(ruleset, "rows", None), getattr(ruleset, "cols", None)
    sized = isinstance(rows, int) and isinstance(cols, int)
    most = max_move_chars(_alphabet_of(getattr(ruleset, "alphabet", ruleset)), max(rows, cols) if sized else MAX_DIM)
    if len(text) > most and len(text.strip()) > most:
        board = f"a {rows}x{cols} board" if sized else "any board"
        raise InvalidMoveError(
            f"bad move {_shown(text)}: {len(text):,} characters, longer than any move on {board} can be "
            f"written (at most {most:,})"
        )


def _number(value: Any) -> str:
    """A number as Python writes it (a numpy number as the plain int or float it holds)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return repr(int(value))
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return repr(float(value))
    return repr(value)


def _has_label(row, col) -> bool:
    try:
        return has_label(row, col)
    except TypeError:  # not numbers
        return False


def _square_text(row, col, across: bool | None = None) -> str:
    """The coordinate of a square (``8D``, ``D8`` down); for a square off every board, which has
    none, the square in words, as validation names it: ``row 101, column 101 across:``."""
    if _has_label(row, col):
        return coord_label(row, col) if across is None else coord_label(row, col, across)
    way = "" if across is None else (" across:" if across else " down:")
    r, c = ((operator.index(x) + 1 if hasattr(x, "__index__") else repr(x)) for x in (row, col))  # from 1, as 8D is
    return f"row {r}, column {c}{way}"


def _spell(a: Alphabet, tiles) -> str:
    """Letters of a run of move tiles, ``.`` for a played-through square whose letter is unknown."""
    out = []
    run: list[int] = []
    for t in tiles:
        if t & LETTER_MASK:
            run.append(t & ~THROUGH)
        else:
            out.append(a.decode(run) + ".")
            run = []
    out.append(a.decode(run))
    return "".join(out)


def _is_star_square(token: str) -> bool:
    """``*12H`` or ``*12H=А``: a star taken back, not a word (a star's square has a row number)."""
    return token.startswith("*") and any(ch.isdigit() for ch in token)


def _refuse_star_back_without_placement(t: str, text: str) -> None:
    """A pass or an exchange followed by ``*12H`` tokens (stars taken back): only a placement takes
    a star back, so say that rather than read the tokens as letters or a coordinate."""
    parts = t.split()
    k = len(parts)
    while k > 1 and _is_star_square(parts[k - 1]):
        k -= 1  # (a star's square has a row number; '*' alone, or '**', is a blank in a rack)
    if k == len(parts):
        return
    head = " ".join(parts[:k])
    if head.lower() in ("-", "pass", "(pass)") or (head[:1] in _EXCHANGE_STARTS and _EXCHANGE.fullmatch(head)):
        raise InvalidMoveError(
            f"bad move {_shown(text)}: a pass or an exchange cannot take a star back: only a placement does "
            "('8D ДОм *12H=А')"
        )


def _parse_reclaimed(tokens: list[str], alphabet: Alphabet, text: str,
                     board: "tuple[int, int] | None" = None) -> tuple[tuple[int, int, int], ...]:
    """``*12H=А`` or ``*12H`` tokens as ``(row, col, letter)``, by square (letter 0 when not given)."""
    out: dict[tuple[int, int], int] = {}
    for tok in tokens:
        square, eq, letter_text = tok[1:].partition("=")
        try:
            row, col, _ = parse_coord(square, board)
        except InvalidMoveError:
            twin_column = lookalike_column(square, board)
            raise InvalidMoveError(
                f"bad move {_shown(text)}: {_shown(tok)} should be '*' and the square of a star on the board, like '*12H' "
                "(or '*12H=А' with the letter put there)" + (f"; {twin_column}" if twin_column else "")
            ) from None
        letter = 0
        if eq:
            parts = alphabet.split(letter_text) if letter_text else []
            if len(parts) != 1 or parts[0] in BLANK_CHARS:
                raise InvalidMoveError(
                    f"bad move {_shown(text)}: after '=' in {_shown(tok)} comes the one letter put on the star's square"
                )
            try:
                letter = alphabet.plain_tile(parts[0])
            except RacksmithError as e:
                raise InvalidMoveError(f"bad move {_shown(text)}: {e}") from None
        if (row, col) in out:
            raise InvalidMoveError(f"bad move {_shown(text)}: the star on {square.upper()} is taken back twice")
        out[(row, col)] = letter
    return tuple((r, c, letter) for (r, c), letter in sorted(out.items()))


def _parse_word(word: str, alphabet: Alphabet, text: str) -> tuple[int, ...]:
    if not alphabet._multi:  # one tile a character: each looked up (anything else is read below)
        chars = alphabet._char_tiles  # (what Alphabet.tile read each character as)
        out: list[int] = []
        depth = 0
        for c in word:
            t = chars.get(c)
            if t is not None:
                out.append(THROUGH | t if depth else t)
            elif c == ".":
                out.append(THROUGH)
            elif c == "(" and not depth:
                depth = THROUGH
            elif c == ")" and depth:
                depth = 0
            else:
                break
        else:
            if out and not depth:
                return tuple(out)
    tiles: list[int] = []
    depth = 0
    i = 0
    tokens: list[tuple[str, bool, bool]] = []  # (text, played through, bracketed)
    while i < len(word):
        c = word[i]
        if c == "(":
            if depth:
                raise InvalidMoveError(f"bad move {_shown(text)}: nested '('")
            depth = 1
            i += 1
            continue
        if c == ")":
            if not depth:
                raise InvalidMoveError(f"bad move {_shown(text)}: ')' without '('")
            depth = 0
            i += 1
            continue
        if c == "[":
            j = word.find("]", i)
            if j < 0:
                raise InvalidMoveError(f"bad move {_shown(text)}: unclosed '['")
            tokens.append((word[i + 1 : j], bool(depth), True))
            i = j + 1
            continue
        tokens.append((c, bool(depth), False))
        i += 1
    if depth:
        raise InvalidMoveError(f"bad move {_shown(text)}: unclosed '('")
    if not tokens:
        raise InvalidMoveError(f"bad move {_shown(text)}: no letters")
    # join multi-character letters written without brackets
    for tok, through, _ in _merge_multi(tokens, alphabet):
        if tok == ".":
            tiles.append(THROUGH)
            continue
        if tok in BLANK_CHARS:
            raise InvalidMoveError(
                f"bad move {_shown(text)}: write a blank as the lowercase letter it stands for, not {tok!r}"
            )
        try:
            t = alphabet.tile(tok)
        except RacksmithError as e:
            raise InvalidMoveError(f"bad move {_shown(text)}: {e}") from None
        tiles.append(THROUGH | t if through else t)
    return tuple(tiles)


def _merge_multi(tokens, alphabet: Alphabet):
    if not alphabet._multi:
        return tokens
    # (cased as the alphabet cases: beside Turkish İ, 'ij' is a blank İ and a blank J, not IJ's blank 'ıj')
    upper = str.upper if alphabet._upper_table is None else alphabet.upper
    out = []
    i = 0
    while i < len(tokens):
        for m in alphabet._multi:
            k = len(m)
            chunk = tokens[i : i + k]
            if len(chunk) == k and not any(x[2] for x in chunk) and upper("".join(x[0] for x in chunk)) == m:
                if len({x[1] for x in chunk}) == 1:
                    out.append(("".join(x[0] for x in chunk), chunk[0][1], False))
                    i += k
                    break
        else:
            out.append(tokens[i])
            i += 1
    return out
