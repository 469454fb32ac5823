"""Rulesets as data: board, premiums, alphabet, tiles and the rules that vary between games.

The shipped rulesets live in ``racksmith/rules/rulesets/*.toml``; :func:`get_ruleset` finds them by name or
alias, and :meth:`Ruleset.load` reads a user's own file (TOML or JSON, same fields).

A name that comes from data (a GCG record's ``#tile-distribution``, a web request) goes through
:func:`find_ruleset`, which knows the shipped rulesets and those the caller adds, and never
touches a file: only a person choosing a file (``--ruleset my_game.toml``) makes racksmith read one.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import reprlib
import stat
import threading
import tomllib
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .._cache import files_cache, keep, recall
from .alphabet import Alphabet, blank_problem, letter_problem, nfc, twin
from .coords import MAX_DIM, Square, coord_label, parse_coord
from .. import _args
from ..errors import InvalidMoveError, PositionError, RacksmithError, RulesetError, UnknownLetterError

#: board legend character -> (letter multiplier, word multiplier)
LEGEND: dict[str, tuple[int, int]] = {
    ".": (1, 1),
    " ": (1, 1),
    "'": (2, 1),
    '"': (3, 1),
    "^": (4, 1),
    "-": (1, 2),
    "=": (1, 3),
    "~": (1, 4),
}
_PREMIUM_CHAR = {v: k for k, v in LEGEND.items() if k != " "}
END_RULES = ("tournament", "club")
#: vowels assumed when a ruleset file names none (the opening's vowel penalty of static equity)
DEFAULT_VOWELS = "AEIOUАЕЁИОУЫЭЮЯ"
#: the fields a ruleset file may have (any other is a typo that would be silently ignored)
FIELDS = (
    "name", "title", "aliases", "lexicon", "rack_size", "exchange_limit", "zero_turn_limit", "bingo_bonus",
    "end_rule", "start", "blanks", "letter_aliases", "board", "tiles", "vowels", "star_reclamation",
)
MAX_POINTS = 1000  #: points of one tile, at most
MAX_BINGO = 100_000  #: bingo bonus, at most
MAX_TILES = 10_000  #: tiles in a set, at most
MAX_FILE_BYTES = 1 << 20  #: the largest ruleset file read (the shipped ones are under 2 KB)
#: players every game has at least: a ruleset's tiles fill this many racks
MIN_PLAYERS = 2
#: the largest exchange limit (tiles the bag must hold for an exchange) the kernels take: the
#: simulation's and the inference's (sim/_sim.pyx); more than any bag holds, so it means "never"
MAX_EXCHANGE_LIMIT = 1 << 20
#: the largest count of scoreless turns that ends the game that every kernel takes: the
#: simulation's (sim/_sim.pyx; the endgame search takes 2**20, the game loop 2**30)
MAX_ZERO_TURN_LIMIT = 1000

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60
_short.maxlist = _short.maxtuple = _short.maxdict = 8
_short.maxlevel = 3


def _show(value: Any) -> str:
    """A bounded picture of a value for an error message (deep or huge data stays one short line)."""
    return _short.repr(value)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """One game's rules. Squares are ints ``row * cols + col``; tile ``i`` is ``alphabet.letters[i-1]``.

    Two rulesets with the same rules are equal (and hash alike) wherever they were read from:
    :attr:`source` is not compared."""

    name: str
    title: str
    aliases: tuple[str, ...]
    alphabet: Alphabet
    rows: int
    cols: int
    letter_multipliers: tuple[int, ...]  #: per square
    word_multipliers: tuple[int, ...]  #: per square
    counts: tuple[int, ...]  #: tiles in the bag at the start, index 0 = blanks
    values: tuple[int, ...]  #: points per tile, index 0 = blank
    rack_size: int
    bingo_bonus: int
    start: Square
    end_rule: str
    exchange_limit: int
    zero_turn_limit: int
    lexicon: str | None
    #: where it was read from (a file's path, ``english.toml`` for a shipped one, ``<dict>``): not
    #: compared, so a ruleset written with :meth:`to_dict` and read back equals the one written
    source: str = field(default="", compare=False)
    vowels: tuple[int, ...] = ()  #: vowel tiles (static equity penalises them next to premiums on the opening)
    #: Эрудит's traditional rule: a player holding the real letter a star (blank) on the board stands
    #: for may put it on the star's square and take the star back, to play it the same turn
    #: (:mod:`racksmith.core.turns`); off in Scrabble, where a blank stays where it was played
    star_reclamation: bool = False

    # --- geometry -------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.rows * self.cols

    def square(self, row: int, col: int) -> Square:
        """The square (``row * cols + col``) of a row and a column counted from 0, on the board."""
        if not (type(row) is int and type(col) is int and 0 <= row < self.rows and 0 <= col < self.cols):
            row, col = self._row_col_checked(row, col)
        return row * self.cols + col

    def _row_col_checked(self, row: Any, col: Any) -> tuple[int, int]:
        if not (_args.is_whole(row) and _args.is_whole(col)):
            raise PositionError(f"a square is a row and a column (whole numbers, from 0), got {_args.show(row)}, "
                                f"{_args.show(col)}")
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise PositionError(f"row {row}, column {col} is off the {self.rows}x{self.cols} board: rows are "
                                f"0..{self.rows - 1} and columns 0..{self.cols - 1}, counted from 0")
        return int(row), int(col)

    def _square_checked(self, square: Any) -> int:
        if type(square) is int and 0 <= square < self.rows * self.cols:
            return square
        return _args.whole(square, "a square", PositionError, lo=0, hi=self.rows * self.cols - 1,
                           what=f" (row * {self.cols} + column, on the {self.rows}x{self.cols} board)")

    def row_col(self, square: Square) -> tuple[int, int]:
        """The row and the column of a square (``row * cols + col``)."""
        return divmod(self._square_checked(square), self.cols)

    def on_board(self, row: int, col: int) -> bool:
        """Is the square of this row and column (whole numbers, counted from 0) on the board?"""
        if not (_args.is_whole(row) and _args.is_whole(col)):
            raise PositionError(f"a square is a row and a column (whole numbers, from 0), got {_args.show(row)}, "
                                f"{_args.show(col)}")
        return 0 <= row < self.rows and 0 <= col < self.cols

    def premium_char(self, square: Square) -> str:
        square = self._square_checked(square)
        return _PREMIUM_CHAR.get((self.letter_multipliers[square], self.word_multipliers[square]), ".")

    def layout(self) -> list[str]:
        """The board as legend strings, one per row (the inverse of the ``board`` field)."""
        return [
            "".join(self.premium_char(r * self.cols + c) for c in range(self.cols)) for r in range(self.rows)
        ]

    # --- tiles ----------------------------------------------------------------------------
    @property
    def blanks(self) -> int:
        return self.counts[0]

    @property
    def total_tiles(self) -> int:
        return sum(self.counts)

    def value(self, tile: int) -> int:
        """Points of a tile as played: a blank (rack 0 or board tile with the blank bit) scores 0.
        A number that is no tile of the alphabet raises :class:`~racksmith.errors.UnknownLetterError`."""
        if not (type(tile) is int and 0 <= tile < len(self.values)):
            tile = self._tile_checked(tile)
        return 0 if tile == 0 or tile & 0x80 else self.values[tile & 0x3F]

    def _tile_checked(self, tile: Any) -> int:
        """A tile of the alphabet: 0, a letter, or a letter | 0x80 (a blank on the board)."""
        if isinstance(tile, (bool, np.bool_)):
            raise UnknownLetterError(f"a tile is an int, got {tile!r}")
        self.alphabet.letter(tile)  # (says what is wrong with anything else)
        return int(tile)

    def rack_value(self, tiles: "Iterable[int]") -> int:
        """Points of tiles as played (a rack's leftover at the end of a game): the sum of :meth:`value`."""
        return sum(self.value(t) for t in _args.tile_list(tiles, "tiles", UnknownLetterError))

    # --- loading --------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path) -> "Ruleset":
        """Read a ruleset file (``.toml`` or ``.json``, UTF-8 with or without a byte-order mark)
        with the fields of the shipped ones. A ``lexicon`` that is a relative path (a word list or
        a ``.kwg`` file, not an embedded lexicon's name) is read from the file's folder: it is made
        absolute here, so every command, from any working directory, reads the same file."""
        p = _args.path(path, "path", RulesetError)
        if not _exists(p) and p.suffix == "" and str(p).strip().lower() in _alias_table():
            raise RulesetError(f"Ruleset.load reads a ruleset file, and there is no file {str(p)!r}: for the "
                               f"built-in ruleset use racksmith.get_ruleset({str(p)!r})")
        try:
            st = os.stat(p)
            key: tuple | None = (os.path.abspath(p), st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
        except (OSError, ValueError):
            key = None
        found = recall(_from_files, key)
        if found is not None:
            return found
        raw = _read_ruleset_file(p)
        kind = "json" if p.suffix.lower() == ".json" else "toml"
        try:
            text = raw.decode("utf-8")
            if text.startswith("\ufeff"):  # the byte-order mark of a file saved by a Windows editor
                text = text[1:]
            data = json.loads(text) if p.suffix.lower() == ".json" else tomllib.loads(text)
        except UnicodeDecodeError as e:
            raise RulesetError(f"ruleset file {str(p)!r} is not valid {kind}: not UTF-8 (bad byte at offset {e.start})") from None
        except RecursionError:
            raise RulesetError(f"ruleset file {str(p)!r} is nested too deeply to be a ruleset") from None
        except ValueError as e:  # JSONDecodeError, TOMLDecodeError, an integer of thousands of digits
            raise RulesetError(f"ruleset file {str(p)!r} is not valid {kind}: {_first_line(e)}") from None
        rs = cls.from_dict(data, source=str(p))
        lexicon = _lexicon_beside(rs.lexicon, p)
        if lexicon != rs.lexicon:
            rs = dataclasses.replace(rs, lexicon=lexicon)
        if key is not None:
            # the same file, unchanged: the same (immutable) object. A bot loading its ruleset file
            # every game made a new Ruleset each time, and the move generator's caches, keyed by the
            # object, kept the last 16 alive with their tables (about 4 MB each)
            rs = keep(_from_files, key, rs)  # (another thread's, when it read the file at the same time)
        return rs

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<dict>") -> "Ruleset":
        """Build a ruleset from plain data; a malformed field is named in the error (the first one
        met: fix it and build again to hear of the next)."""
        _args.text(source, "source", RulesetError)
        if not isinstance(data, dict):
            raise RulesetError(f"ruleset {source}: expected a table of fields, got {type(data).__name__}")

        def fail(fld: str, problem: str) -> RulesetError:
            return RulesetError(f"ruleset {source}: field {fld!r} {problem}")

        unknown = [k for k in data if k not in FIELDS]
        if unknown:
            raise RulesetError(
                f"ruleset {source}: field {_show(unknown[0])} is not a ruleset field (a typo?); the fields are {', '.join(FIELDS)}"
            )

        def need(fld: str, typ, default=None):
            if fld not in data:
                if default is not None:
                    return default
                raise fail(fld, "is missing")
            v = data[fld]
            if typ is int and (isinstance(v, bool) or not isinstance(v, int)):
                raise fail(fld, f"must be an integer, got {_show(v)}")
            if typ is str and not isinstance(v, str):
                raise fail(fld, f"must be a string, got {_show(v)}")
            if typ is list and not isinstance(v, list):
                raise fail(fld, f"must be a list, got {_show(v)}")
            return v

        name = need("name", str).strip().lower()
        if not name:
            raise fail("name", "must not be empty")
        odd = name_problem(name)
        if odd:
            raise fail("name", odd)
        board = need("board", list)
        rows = len(board)
        if not 2 <= rows <= MAX_DIM:
            raise fail("board", f"must have 2 to {MAX_DIM} rows, got {rows}")
        if not all(isinstance(r, str) for r in board):
            raise fail("board", "must be a list of strings, one per row")
        cols = len(board[0])
        lm: list[int] = []
        wm: list[int] = []
        for r, line in enumerate(board):
            if len(line) != cols:
                raise fail("board", f"row {r + 1} has {len(line)} squares, row 1 has {cols}")
            for c, ch in enumerate(line):
                if ch not in LEGEND:
                    raise fail(
                        "board",
                        f"row {r + 1} column {c + 1} has {ch!r}; use one of . ' \" ^ - = ~",
                    )
                a, b = LEGEND[ch]
                lm.append(a)
                wm.append(b)
        if not 2 <= cols <= MAX_DIM:
            raise fail("board", f"must have 2 to {MAX_DIM} columns, got {cols}")

        tiles = need("tiles", list)
        letters: list[str] = []
        counts = [0]
        values = [0]
        for i, entry in enumerate(tiles):
            if (
                not isinstance(entry, (list, tuple))
                or len(entry) != 3
                or not isinstance(entry[0], str)
                or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in entry[1:])
                or entry[1] > MAX_TILES
                or entry[2] > MAX_POINTS
            ):
                raise fail(
                    "tiles",
                    f"entry {i + 1} must be [letter, count, points] with counts 0..{MAX_TILES} and points "
                    f"0..{MAX_POINTS}, got {_show(entry)}",
                )
            # compared as typed letters are read: uppercased, composed (Á one character, not A + U+0301)
            letter = nfc(nfc(entry[0]).upper())
            problem = letter_problem(letter)
            if problem:
                raise fail("tiles", f"entry {i + 1}: letter {_show(entry[0])} {problem}")
            if letter in letters:
                raise fail("tiles", f"entries {letters.index(letter) + 1} and {i + 1} are both {letter!r} (letters are "
                                    "compared uppercased and NFC-normalized): list each letter once")
            letters.append(letter)
            counts.append(entry[1])
            values.append(entry[2])
        try:
            plain = Alphabet(tuple(letters), name=name)
        except RacksmithError as e:
            raise fail("tiles", f"does not make an alphabet: {e}") from None
        mixed = _mixed_script(letters)
        if mixed:
            raise fail("tiles", mixed)
        aliases_raw = data.get("letter_aliases", {})
        if not isinstance(aliases_raw, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in aliases_raw.items()
        ):
            raise fail("letter_aliases", f"must be a table of alias = letter (strings), got {_show(aliases_raw)}")
        letter_aliases: dict[str, str] = {}
        word_aliases: dict[str, str] = {}  # digits: read in word lists only
        for alias, target in aliases_raw.items():
            key = nfc(alias)
            if key in letter_aliases or key in word_aliases:
                raise fail("letter_aliases", f"has {_show(key)} twice (aliases are compared NFC-normalized)")
            target = plain.upper(nfc(target))  # (as the alphabet reads it: Turkish i is İ)
            if key.isascii() and key.isdigit() and len(target) > 1:
                if target not in letters:
                    raise fail("letter_aliases", f"alias {_show(key)} points to {_show(target)}, not a letter of "
                                                 "'tiles'")
                word_aliases[key] = target
            elif any(ch.isdigit() for ch in key):
                raise fail("letter_aliases", f"alias {_show(key)} for {_show(target)} must be without digits (in CGP "
                                             "and moves a digit is a number), but for an alias of digits only for a "
                                             "tile of several characters, read in word lists only (FISE's Spanish "
                                             "lists write CH, LL, RR as \"1\", \"2\", \"3\")")
            elif plain.upper(key) != target:  # (an alias the alphabet reads as its letter already, Turkish "i" = "İ": none needed)
                letter_aliases[key] = target
        try:
            alphabet = Alphabet(tuple(letters), name=name, aliases=tuple(letter_aliases.items()),
                                word_aliases=tuple(word_aliases.items()))
        except RacksmithError as e:
            raise fail("letter_aliases", f"{e}") from None
        blanks = need("blanks", int, default=0) if "blanks" in data else 0
        if blanks < 0:
            raise fail("blanks", "must be >= 0")
        if blanks > MAX_TILES:
            raise fail("blanks", f"must be at most {MAX_TILES}, got {blanks}")
        counts[0] = blanks
        if blanks:
            for i, letter in enumerate(alphabet.letters, start=1):
                problem = blank_problem(letter)
                if problem:
                    raise fail("tiles", f"letter {i} {_show(letter)} {problem}, and a blank is written as the "
                                        "lowercase of its letter: with blanks, every letter needs a lowercase that "
                                        "reads back as it")

        rack_size = need("rack_size", int)
        if not 1 <= rack_size <= 15:
            raise fail("rack_size", f"must be 1..15, got {rack_size}")
        bingo = need("bingo_bonus", int)
        if not 0 <= bingo <= MAX_BINGO:
            raise fail("bingo_bonus", f"must be 0..{MAX_BINGO}, got {bingo}")
        end_rule = need("end_rule", str, default="tournament") if "end_rule" in data else "tournament"
        if end_rule not in END_RULES:
            raise fail("end_rule", f"must be one of {', '.join(END_RULES)}, got {_show(end_rule)}")
        start_text = need("start", str)
        try:
            sr, sc, _ = parse_coord(start_text)
        except InvalidMoveError:
            raise fail("start", f"must be a square like '8H', got {_show(start_text)}") from None
        if not (0 <= sr < rows and 0 <= sc < cols):
            raise fail("start", f"{_show(start_text)} is off the {rows}x{cols} board")
        exchange_limit = need("exchange_limit", int) if "exchange_limit" in data else rack_size
        if not 0 <= exchange_limit <= MAX_EXCHANGE_LIMIT:
            raise fail("exchange_limit", f"must be 0..{MAX_EXCHANGE_LIMIT} (tiles the bag must hold for an exchange), "
                                         f"got {exchange_limit}")
        zero_limit = need("zero_turn_limit", int) if "zero_turn_limit" in data else 6
        if not 1 <= zero_limit <= MAX_ZERO_TURN_LIMIT:
            raise fail("zero_turn_limit", f"must be 1..{MAX_ZERO_TURN_LIMIT} (scoreless turns in a row that end the "
                                          f"game), got {zero_limit}")
        lexicon = data.get("lexicon")
        if lexicon is not None and not isinstance(lexicon, str):
            raise fail("lexicon", f"must be a lexicon name, got {_show(lexicon)}")
        aliases = data.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise fail("aliases", "must be a list of strings")
        title = data.get("title", name)
        if not isinstance(title, str):
            raise fail("title", "must be a string")
        if sum(counts) < MIN_PLAYERS * rack_size:
            raise fail("tiles", f"hold {sum(counts)} tiles with the blanks, fewer than {MIN_PLAYERS} full racks of "
                                f"{rack_size} ({MIN_PLAYERS * rack_size} tiles): every game deals a rack to "
                                f"{MIN_PLAYERS} players at least")
        if sum(counts) > MAX_TILES:
            raise fail("tiles", f"hold {sum(counts)} tiles with the blanks, more than {MAX_TILES}")
        if "vowels" in data:
            vtext = need("vowels", str)
            try:
                vowels = tuple(sorted({alphabet.plain_tile(v) for v in alphabet.split(vtext)}))
            except RacksmithError as e:
                raise fail("vowels", f"must be letters of the alphabet: {e}") from None
        else:
            vowels = tuple(i for i, letter in enumerate(alphabet.letters, 1) if letter in DEFAULT_VOWELS)
        reclamation = data.get("star_reclamation", False)
        if not isinstance(reclamation, bool):
            raise fail("star_reclamation", f"must be true or false, got {_show(reclamation)}")
        return cls(
            name=name,
            title=title,
            aliases=tuple(a.lower() for a in aliases),
            alphabet=alphabet,
            rows=rows,
            cols=cols,
            letter_multipliers=tuple(lm),
            word_multipliers=tuple(wm),
            counts=tuple(counts),
            values=tuple(values),
            rack_size=rack_size,
            bingo_bonus=bingo,
            start=sr * cols + sc,
            end_rule=end_rule,
            exchange_limit=exchange_limit,
            zero_turn_limit=zero_limit,
            lexicon=lexicon,
            source=source,
            vowels=vowels,
            star_reclamation=reclamation,
        )

    def __reduce_ex__(self, protocol):
        # a built-in ruleset pickles as its name (its premium grids and tile tables made every pickled
        # Move, Position or result about 2 KB); any other ruleset, field by field
        if self.name in BUILTIN and _builtin(self.name) == self:
            return (get_ruleset, (self.name,))
        return object.__reduce_ex__(self, protocol)

    def to_dict(self) -> dict[str, Any]:
        """Plain data that :meth:`from_dict` reads back into an equal ruleset."""
        r, c = self.row_col(self.start)
        return {
            "name": self.name,
            "title": self.title,
            "aliases": list(self.aliases),
            "lexicon": self.lexicon,
            "rack_size": self.rack_size,
            "exchange_limit": self.exchange_limit,
            "zero_turn_limit": self.zero_turn_limit,
            "bingo_bonus": self.bingo_bonus,
            "end_rule": self.end_rule,
            "start": coord_label(r, c),
            "blanks": self.counts[0],
            "letter_aliases": dict(self.alphabet.aliases + self.alphabet.word_aliases),
            "board": self.layout(),
            "tiles": [[l, self.counts[i], self.values[i]] for i, l in enumerate(self.alphabet.letters, 1)],
            "vowels": self.alphabet.decode(self.vowels),
            "star_reclamation": self.star_reclamation,
        }

    def content_sha256(self) -> str:
        """The SHA-256 (hex) of the ruleset's content: every field of :meth:`to_dict` but the
        lexicon (a path may differ from one machine to another; records of a run name it apart).
        Two rulesets with the same rules, tiles and names have the same digest, wherever they
        were read from."""
        data = self.to_dict()
        del data["lexicon"]
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def check_players(self, players: int) -> None:
        """Refuse (:class:`~racksmith.errors.RulesetError`) a game of ``players`` players whose
        full racks the tiles cannot fill (a ruleset file holds two racks at least, so this is
        for three players or more, or a ruleset made or changed in code)."""
        if players * self.rack_size > self.total_tiles:
            most = max(self.total_tiles // self.rack_size, 1)
            raise RulesetError(f"{players} racks of {self.rack_size} need {players * self.rack_size} tiles; the "
                               f"{self.name} set has {self.total_tiles} (at most {most} players)")

    def __repr__(self) -> str:
        return f"<Ruleset {self.name}: {self.rows}x{self.cols}, {len(self.alphabet)} letters, {self.total_tiles} tiles>"


BUILTIN = ("english", "russian", "erudit", "super")


def _letter_script(letter: str) -> str:
    """``"Latin"`` or ``"Cyrillic"`` for a letter written in that script alone, else ""."""
    names = [unicodedata.name(ch, "") for ch in letter if ch.isalpha()]
    for script in ("Latin", "Cyrillic"):
        if names and all(n.startswith(script.upper() + " ") for n in names):
            return script
    return ""


def _mixed_script(letters: "list[str]") -> str:
    """What is wrong with letters mostly of one script, Latin or Cyrillic, among which one of the
    other has a twin of the first (a Latin ``C`` among Cyrillic letters, typed for ``С`` on the
    wrong keyboard layout: every ``С`` of a rack or a word list would then be refused), or ""."""
    scripts = {letter: _letter_script(letter) for letter in letters}
    latin = [x for x in letters if scripts[x] == "Latin"]
    cyrillic = [x for x in letters if scripts[x] == "Cyrillic"]
    if not latin or not cyrillic:
        return ""
    few, many = (latin, "Cyrillic") if len(latin) <= len(cyrillic) else (cyrillic, "Latin")
    for letter in few:
        other = twin(letter)
        if len(letter) == 1 and other != letter and other not in letters:
            return (f"letter {letter!r} is {unicodedata.name(letter)} among {many} letters: did you mean {many} "
                    f"{other!r}? (a letter typed on the other keyboard layout; write each letter in the script of the others)")
    return ""


#: the built-in rulesets built, by name, and the table of their names and aliases (under ``None``)
_built: dict[str | None, Any] = {}
#: held to build a built-in ruleset or the table of aliases (one lock for both: building one
#: needs the other), never to find one built
_built_lock = threading.RLock()


def _new_lock_in_child() -> None:
    """A forked child has only the thread that forked: the lock another thread of the parent held
    (building a ruleset) would be held for ever there. ``_built`` gets a ruleset only once it is
    built, so the child starts with a free lock and builds what it lacks."""
    global _built_lock
    _built_lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def _builtin(name: str) -> Ruleset:
    """The built-in ruleset ``name``, built once: threads asking at once for one not built yet get
    one object (with ``functools.lru_cache`` each built its own, and the move generator, keyed by
    the ruleset object, built its tables again for each). One built takes no lock."""
    found = _built.get(name)
    if found is None:
        with _built_lock:
            found = _built.get(name)
            if found is None:
                text = resources.files("racksmith.rules").joinpath("rulesets").joinpath(f"{name}.toml").read_text("utf-8")
                found = _built[name] = Ruleset.from_dict(tomllib.loads(text), source=f"{name}.toml")
    return found


def _alias_table() -> dict[str, str]:
    """Every built-in ruleset's name and aliases, to its name: built once, as :func:`_builtin`."""
    found = _built.get(None)
    if found is None:
        with _built_lock:
            found = _built.get(None)
            if found is None:
                table = {}
                for name in BUILTIN:
                    table[name] = name
                    for a in _builtin(name).aliases:
                        table[a] = name
                found = _built[None] = table
    return found


#: rulesets read from files, by the file's path and stamp (the last few): see Ruleset.load
_from_files: dict[tuple, Ruleset] = files_cache()


def available_rulesets() -> list[Ruleset]:
    return [_builtin(n) for n in BUILTIN]


def is_shipped(ruleset: Ruleset) -> bool:
    """Is ``ruleset`` the shipped ruleset of its name (equal in every field but :attr:`Ruleset.source`:
    a copy of the shipped file read from elsewhere is)? A ruleset file that calls itself ``english``
    with other rules is not."""
    return ruleset.name in BUILTIN and _builtin(ruleset.name) == ruleset


def provenance_fields(ruleset: Ruleset) -> dict[str, Any]:
    """How the provenance of a trained file names the ruleset it was trained on: ``ruleset`` (the
    name), ``ruleset_sha256`` (:meth:`Ruleset.content_sha256`), ``alphabet`` (its letters, tile 1
    first: what the file's tile numbers mean) and, for a ruleset that is not
    a shipped one, ``ruleset_file``: the absolute path of the file it was read from (when it was)."""
    out: dict[str, Any] = {"ruleset": ruleset.name, "ruleset_sha256": ruleset.content_sha256(),
                           "alphabet": list(ruleset.alphabet.letters)}
    if not is_shipped(ruleset) and ruleset.source and not ruleset.source.startswith("<"):
        out["ruleset_file"] = os.path.abspath(ruleset.source)
    return out


def find_ruleset(name: str, extra: Iterable[Ruleset] = ()) -> Ruleset:
    """The ruleset called ``name`` (or one of its aliases, case ignored) among ``extra`` (first)
    and the shipped ones. It never opens a file: use it for every name that comes from data (a
    record's pragma, a request), where a path must not make racksmith read that path."""
    if not isinstance(name, str):
        raise RulesetError(f"a ruleset name must be a string, got {_show(name)}")
    key = name.strip().lower()
    extra = tuple(extra)
    for rs in extra:
        if key == rs.name or key in rs.aliases:
            return rs
    table = _alias_table()
    if key in table:
        return _builtin(table[key])
    known = [rs.name for rs in extra] + [n for n in BUILTIN if all(rs.name != n for rs in extra)]
    raise RulesetError(f"unknown ruleset {_show(name)}: use one of {', '.join(known)} (or an alias)")


#: what a ruleset's name may hold besides letters and digits (of any script)
NAME_MARKS = "-_.+"


def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as a ruleset's name, or None. A name is written in records: a
    CGP's ``ld`` (and ``bdn``) opcode, whose value ends at ``;`` and which MAGPIE and Macondo read
    as one word, and a GCG's ``#tile-distribution``: so it is one word of letters, digits (any
    script: ``эрудит``) and ``-`` ``_`` ``.`` ``+`` (``english_super``, ``czech7``, ``spanish-mini``).
    A ``;`` had made a position's ``ld fr;x;`` read back as ``ld fr`` and an opcode ``x``."""
    import unicodedata

    for ch in name:
        if not (ch.isalnum() or ch in NAME_MARKS or unicodedata.category(ch).startswith("M")):
            shown = "white space" if ch.isspace() else repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"
            return (f"{_show(name)} holds {shown}: a name is one word of letters, digits and {' '.join(NAME_MARKS)} "
                    "(a CGP's ld opcode and a GCG's #tile-distribution write it)")
    return None


def builtin_name(text: object) -> str | None:
    """The name of the shipped ruleset ``text`` names by its name or an alias (``эрудит`` is
    ``erudit``; case and surrounding spaces ignored, as ``--ruleset`` reads them), or None. What a
    shipped table of a ruleset (its leaves, its win% table) is named by."""
    if not isinstance(text, str):
        return None
    return _alias_table().get(text.strip().lower())


def get_ruleset(spec: "str | Path | Ruleset | None" = None) -> Ruleset:
    """A ruleset by name or alias (``english``, ``scrabble``, ``эрудит``…), a path to a file, or itself.

    A string that names no ruleset is read as a file when it ends in ``.toml``/``.json`` or names
    an existing file: call this only with what a person chose (see :func:`find_ruleset`)."""
    if spec is None:
        return _builtin("english")
    if isinstance(spec, Ruleset):
        return spec
    if isinstance(spec, Path):
        return Ruleset.load(spec)
    if not isinstance(spec, str):
        raise RulesetError(f"a ruleset is a name, the path of a ruleset file or a Ruleset, got {type(spec).__name__}")
    key = spec.strip().lower()
    table = _alias_table()
    if key in table:
        return _builtin(table[key])
    p = Path(spec)
    if key and (p.suffix.lower() in (".toml", ".json") or _exists(p)):
        return Ruleset.load(p)
    raise RulesetError(
        f"unknown ruleset {_show(spec)}: use one of {', '.join(BUILTIN)} (or an alias), or the path of a .toml/.json ruleset file"
    )


def _read_ruleset_file(p: Path) -> bytes:
    """The bytes of a ruleset file: a regular file (not a FIFO or a device, which could block
    or never end) of at most :data:`MAX_FILE_BYTES`."""
    try:
        with open(p, "rb", opener=_open_nonblocking) as f:
            mode = os.fstat(f.fileno()).st_mode
            if not stat.S_ISREG(mode):
                what = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
                raise RulesetError(f"ruleset file {str(p)!r} is {what}")
            raw = f.read(MAX_FILE_BYTES + 1)
    except RulesetError:
        raise
    except OSError as e:
        raise RulesetError(f"cannot read ruleset file {str(p)!r}: {e.strerror or e}") from None
    except ValueError:  # a NUL in the path
        raise RulesetError(f"cannot read ruleset file {_show(str(p))}: a path cannot hold a NUL character") from None
    if len(raw) > MAX_FILE_BYTES:
        raise RulesetError(f"ruleset file {str(p)!r} is larger than {MAX_FILE_BYTES:,} bytes: not a ruleset")
    return raw


def _lexicon_beside(lexicon: str | None, ruleset_file: Path) -> str | None:
    """A ruleset file's ``lexicon``: an embedded lexicon's name as it is, a relative path (a word
    list or a KWG file) made absolute from the file's folder."""
    if lexicon is None or not lexicon.strip():
        return lexicon
    from ..lexicon.embedded import EMBEDDED

    if lexicon.strip().lower() in EMBEDDED or os.path.isabs(lexicon):
        return lexicon
    return os.path.abspath(os.path.join(ruleset_file.parent, lexicon))


def _exists(p: Path) -> bool:
    try:
        return p.exists()
    except (OSError, ValueError):  # a name too long for the system, a NUL character
        return False


def _open_nonblocking(path, flags):
    """Open without blocking on a FIFO that has no writer (the file type is checked next)."""
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def _first_line(err: Exception) -> str:
    if "integer string conversion" in str(err):
        return "it holds an integer of thousands of digits"
    lines = str(err).strip().splitlines()
    return lines[0][:200] if lines else type(err).__name__
