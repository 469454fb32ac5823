"""Letters <-> tiles.

A tile is a plain int. Letters are numbered 1..63 in alphabet order; 0 is the blank on a rack (and
the GADDAG separator in a KWG). A blank standing for a letter, once on the board, is the letter with
the high bit :data:`BLANK` set. In move tiles, :data:`THROUGH` marks a square played through (a tile
already on the board), see :mod:`racksmith.core.move`.
"""
from __future__ import annotations

import operator
import re
import sys
import unicodedata
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, SupportsIndex

from .. import _args
from ..errors import UnknownLetterError

Tile = int
_new_tuple = tuple.__new__  #: a tuple (or a Tiles) from its items, without Tiles.__new__'s check

BLANK = 0x80  #: bit set on a tile that is a blank standing for a letter
THROUGH = 0x40  #: bit set in move tiles on squares already occupied (played through)
LETTER_MASK = 0x3F  #: the letter part of a tile
MAX_LETTERS = 63
BLANK_CHARS = "?*"
#: characters that mean something else in CGP, notation or racks, so no letter may contain them
RESERVED_CHARS = BLANK_CHARS + "/()[].-;"


#: letters that look the same in Latin and Cyrillic script, each way round (a keyboard in the other
#: layout types them without a visible difference)
_LOOKALIKES = {lat: cyr for lat, cyr in zip("ABCEHKMOPTXYaceopxy", "АВСЕНКМОРТХУасеорху")}
#: small letters whose capitals are twins (Latin ``h`` and Cyrillic ``н``: ``H`` and ``Н``), which a
#: rack or a word list, where case is ignored, reads as those capitals
_CAPITAL_TWINS = {lat: cyr for lat, cyr in zip("bhkmt", "внкмт")}
_LOOKALIKES.update(_CAPITAL_TWINS)
_LOOKALIKES.update({cyr: lat for lat, cyr in list(_LOOKALIKES.items())})
_CAPITAL_TWINS.update({cyr: lat for lat, cyr in list(_CAPITAL_TWINS.items())})


def twin(text: str) -> str:
    """``text`` with each letter that has a twin in the other script (Latin ``H``, Cyrillic ``Н``;
    a small letter whose capital has one, ``h`` and ``н``) written in that script: what a keyboard
    in the other layout would have typed."""
    return "".join(_LOOKALIKES.get(ch, ch) for ch in text)


def _script(text: str) -> str:
    return "Cyrillic" if any("\u0400" <= ch <= "\u04ff" for ch in text) else "Latin"


def twin_of(typed: str) -> str:
    """What a letter that has a twin is, for a message: ``the Cyrillic twin of Latin 'H'``; for a
    small letter that only its capital's twin looks like, ``the small letter of Latin 'B', the twin
    of Cyrillic 'В'``."""
    other = twin(typed)
    if typed in _CAPITAL_TWINS:
        return (f"the small letter of {_script(typed)} {typed.upper()!r}, the twin of "
                f"{_script(other)} {other.upper()!r}")
    return f"the {_script(typed)} twin of {_script(other)} {other!r}"


#: the hint :meth:`Alphabet.rack` and the other readers add to the error of a letter that has a twin
_TWIN_HINT = re.compile(r": it is the (?:\w+ twin of \w+ '[^']+'|small letter of \w+ '[^']+', the twin of \w+ '[^']+') "
                        r"\(check the keyboard layout\)")


#: the hint :meth:`Alphabet.other_form` adds to the error of a character typed in another form (a
#: fullwidth letter): a slip in typing the alphabet's letters, not a letter of another ruleset
_FORM_HINT = re.compile(r": '[^']+' is [A-Z][A-Z0-9 -]+(?:: type '[^']+'|, (?:a space|an invisible character) that is no letter)")


def is_typing_slip(message: str) -> bool:
    """Does the error ``message`` say that its letter is another script's twin or another form
    (fullwidth) of a letter of the alphabet: a slip in typing, not a game of another ruleset?"""
    return bool(_TWIN_HINT.search(message) or _FORM_HINT.search(message))


def without_twin_hint(message: str) -> str:
    """``message`` without the hint that a letter is the other script's twin of one of the
    alphabet's (for a position spelled in another alphabet throughout, where it is no keyboard slip)."""
    return _TWIN_HINT.sub("", message)


class Tiles(tuple[int, ...]):
    """Rack tiles (plain ints, 0 = blank) that read as letters: a rack, a leave, tiles drawn or
    exchanged, a leftover counted at the end of a game.

    A ``Tiles`` is a tuple of ints (iterate it, index it, compare it with a tuple of ints: ``rack ==
    (1, 5, 9)``), and prints as a player writes it: ``str(rack) == "AEINST?"`` (letters in alphabet
    order, blanks last, as CGP writes racks), ``repr(rack) == "Tiles('AEINST?')"``. Each alphabet
    has its own subclass (:meth:`Alphabet.tiles` makes them), which carries the alphabet, so a
    ``Tiles`` costs no more memory than a tuple; unpickled, it is of the alphabet already made of
    the same letters (a shipped ruleset's first), so none is made anew for each. Slicing or adding
    gives plain tuples.
    :data:`NO_TILES` is the empty ``Tiles`` of no alphabet in particular; a ``Tiles`` made
    directly (``Tiles((1, 2))``) has no alphabet either, so it has no letters and prints as its
    numbers (``repr: Tiles((1, 2))``); it cannot read letters (``Tiles("AEINST?")`` is an
    :class:`~racksmith.errors.UnknownLetterError`: ``alphabet.tiles("AEINST?")`` reads them).

    ``in``, :meth:`count` and :meth:`index` take a tile or one letter, read as a rack reads it
    (case ignored, ``?`` or ``*`` a blank): ``"S" in move.leave``, ``pos.rack.count("E")``; text
    that is not one letter of the alphabet is an :class:`~racksmith.errors.UnknownLetterError`.
    ``==`` and hashing stay those of a tuple of ints, so a ``Tiles`` never equals its text:
    ``rack == "AEINST?"`` is False — compare ``str(rack) == "AEINST?"``, or with
    ``alphabet.tiles("AEINST?")``.
    """

    __slots__ = ()
    alphabet: ClassVar["Alphabet | None"] = None  #: None for a Tiles of no alphabet

    def __new__(cls, tiles: "Iterable[Tile] | str" = ()) -> "Tiles":
        if isinstance(tiles, str):  # (racksmith makes its Tiles with tuple.__new__, without this check)
            if cls.alphabet is not None:
                return cls.alphabet.tiles(tiles)
            raise UnknownLetterError(
                f"Tiles({tiles!r:.40}): a Tiles made directly has no alphabet to read letters with: write "
                f"alphabet.tiles({tiles!r:.40}) (ruleset.alphabet, pos.ruleset.alphabet), or "
                "pos.racks[0] = 'AEINST?' to set a rack"
            )
        return _new_tuple(cls, tiles)

    def _tile_of(self, item: str) -> "int | None":
        """The tile of one letter (``?`` a blank), read as a rack reads it; None for an empty
        ``Tiles`` of no alphabet (which holds no letter)."""
        a = self.alphabet
        if a is None:
            if not self:
                return None
            raise UnknownLetterError(f"tiles {tuple(self)} have no alphabet to read {item!r:.20} with: make them with "
                                     "alphabet.tiles(...)")
        tiles = a.rack(item)
        if len(tiles) != 1:
            raise UnknownLetterError(f"{item!r:.20} is not one tile: ask for one letter (or '?' for a blank)")
        return tiles[0]

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            item = self._tile_of(item)
        return tuple.__contains__(self, item)

    def count(self, value: object) -> int:
        """How many of the tiles are ``value``: a tile, or one letter (``?`` a blank)."""
        if isinstance(value, str):
            value = self._tile_of(value)
        return tuple.count(self, value)

    def index(self, value: object, start: SupportsIndex = 0, stop: SupportsIndex = sys.maxsize) -> int:
        """Where the first tile ``value`` is (a tile, or one letter; ``?`` a blank), from ``start``
        up to ``stop``."""
        if isinstance(value, str):
            tile = self._tile_of(value)
            if tile is None:
                raise ValueError(f"{value!r:.20} is not among the tiles (there are none)")
            value = tile
        return tuple.index(self, value, start, stop)

    @property
    def letters(self) -> str:
        """The tiles as letters: ``?`` for a blank, multi-character letters in brackets."""
        if self.alphabet is None and self:
            raise UnknownLetterError(
                f"tiles {tuple(self)} have no alphabet, so no letters: make them with alphabet.tiles(...)"
            )
        return str(self)

    def __str__(self) -> str:
        if not self:
            return ""
        if self.alphabet is None:
            return str(tuple(self))
        return self.alphabet.rack_string(self, blanks_last=True)

    def __repr__(self) -> str:
        if self.alphabet is None and self:
            return f"Tiles({tuple(self)!r})"
        return f"Tiles({str(self)!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        if type(self) is Tiles:  # NO_TILES
            return (Tiles, (tuple(self),))
        return (_tiles_of, (self.alphabet, tuple(self)))


def nfc(text: str) -> str:
    """``text`` NFC-normalized (composed: Á one character, not A + U+0301), as every letter of an
    alphabet is and as typed letters are read."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def blank_problem(letter: str) -> str:
    """Why a blank cannot stand for an (uppercase) letter, "" when it can: a blank is written as
    the lowercase of its letter (moves, CGP, GCG), and this letter has none (Hebrew, CJK, ``<``),
    or one that does not read back as it (``ẞ`` → ``ß`` → ``SS``)."""
    lower = nfc(letter.lower())
    if lower == letter:
        return "has no lowercase"
    back = nfc(lower.upper())
    if back != letter:
        return f"has the lowercase {lower!r}, which reads back as {back!r}"
    return ""


def turkish_casing(letters: Iterable[str]) -> "tuple[dict[str, str], dict[str, str]] | None":
    """For letters with Turkish ``İ``, how they are cased otherwise than Python cases them (which
    reads ``i`` as ``I`` and writes ``İ`` as ``i̇``, two code points): the capitals of ``i`` (``İ``)
    and of ``ı`` (``I``), and the lowercase of each of those letters; None for letters without
    ``İ`` (cased as Python cases them). ``I`` is written ``ı`` even where it is no letter of its
    own but part of one (a tile ``IJ`` beside ``İ``: its blank ``ıj``, which reads back as it,
    where ``ij`` would be a blank ``İ`` and a blank ``J``)."""
    if "İ" not in set(letters):
        return None
    return {"i": "İ", "ı": "I"}, {"İ": "i", "I": "ı"}


def letter_problem(letter: object) -> str:
    """What is wrong with a letter of an alphabet other than its case ("" when nothing)."""
    if not isinstance(letter, str):
        return "must be a text"
    if not letter:
        return "is empty"
    if len(letter) > 3 and letter[0] == "[" and letter[-1] == "]" and not letter_problem(letter[1:-1]):
        return (f"is in brackets: name the tile {letter[1:-1]!r} (racks, moves, CGP and GCG write a tile of "
                f"several characters in brackets, {letter})")
    for ch in letter:
        if ch.isdigit():
            return f"holds the digit {ch!r}: a letter has no digits"
        if ch.isspace():
            return f"holds a space ({ch!r}): a letter has none"
        if ch in RESERVED_CHARS:
            return f"holds {ch!r}: a letter holds none of {RESERVED_CHARS}"
    return ""


def _spells(text: str, letters: "set[str]") -> bool:
    """Can ``text`` be read as a sequence of ``letters``?"""
    reach = [True] + [False] * len(text)
    for i in range(len(text)):
        if reach[i]:
            for letter in letters:
                if text.startswith(letter, i):
                    reach[i + len(letter)] = True
    return reach[-1]


def _tiles_of(alphabet: "Alphabet", tiles: tuple[int, ...]) -> Tiles:
    return alphabet.tiles(tiles)


def _alphabet(letters: tuple, name: str = "", aliases: tuple = (), word_aliases: tuple = ()) -> "Alphabet":
    """The alphabet of these fields (what :meth:`Alphabet.__reduce__` pickles): the shipped
    ruleset's of that name when it is that one, else the one last made of them while it lives, else
    a new one. Every pickled rack, leave or move of an alphabet so reads back with the very
    alphabet (and :class:`Tiles` class) the others have: none made anew for each."""
    key = (letters, name, aliases, word_aliases)
    shipped = _SHIPPED.get(name) if type(name) is str else None
    if shipped is None and type(name) is str and name:
        shipped = _shipped_alphabet(name)
    if shipped is not None and shipped._key() == key:
        return shipped
    try:
        found = _ALPHABETS.get(key)
    except TypeError:  # (fields that are no texts, from a pickle made by hand: the constructor says what is wrong)
        found = None
    return found if found is not None else Alphabet(letters, name, aliases, word_aliases)


def _shipped_alphabet(name: str) -> "Alphabet | None":
    """The alphabet of the shipped ruleset called ``name`` (kept in :data:`_SHIPPED`), or None."""
    from .ruleset import BUILTIN, find_ruleset

    if name not in BUILTIN:
        return None
    found = _SHIPPED[name] = find_ruleset(name).alphabet
    return found


#: no tiles, of any alphabet (the default of fields that hold tiles)
NO_TILES = Tiles()


def is_blank(tile: Tile) -> bool:
    return bool(tile & BLANK)


def letter_of(tile: Tile) -> int:
    return tile & LETTER_MASK


#: each alphabet made, by what defines it (its letters, name, aliases and word aliases: the fields
#: :meth:`Alphabet.__reduce__` pickles), the last one made of them; :func:`_alphabet` hands it out
#: again, so that unpickled tiles and moves share one alphabet and its Tiles class
_ALPHABETS: "weakref.WeakValueDictionary[tuple, Alphabet]" = weakref.WeakValueDictionary()
#: the shipped rulesets' alphabets, by name, as :func:`_alphabet` has looked them up
_SHIPPED: "dict[str, Alphabet]" = {}


@dataclass(frozen=True, slots=True, weakref_slot=True)
class Alphabet:
    """The letters of a ruleset, in order; tile ``i`` is ``letters[i - 1]``.

    ``aliases`` maps other spellings to a letter (e.g. Latin ``Ë`` to Cyrillic ``Ё``);
    ``word_aliases`` maps texts of digits to a letter, read in word lists only (FISE's Spanish
    lists write CH, LL and RR as ``1``, ``2``, ``3``; elsewhere a digit is a number).

    Tiles of several characters are written as MAGPIE, Macondo and wolges write them: in brackets
    (``[CH]``, a blank ``[ch]``), and a tile of one character never is. They are read as those
    programs read them: ``[..]`` is always one tile; without brackets, a multi-character tile whose
    text also reads as separate tiles of the alphabet (Spanish ``CH`` = C + H, ``LL``, ``RR``,
    Dutch ``IJ``) is those separate tiles, and one whose text does not (Catalan ``L·L`` where
    ``·`` is no tile, ``NY`` where ``Y`` is none, ``QU``) is that tile (in capitals; in small
    letters its blank). Text mixing the two cases reads letter by letter (``Ch``: C and a blank
    h), as MAGPIE reads it.
    """

    letters: tuple[str, ...]
    name: str = ""
    aliases: tuple[tuple[str, str], ...] = ()
    word_aliases: tuple[tuple[str, str], ...] = ()
    _index: dict = field(default=None, init=False, repr=False, compare=False, hash=False)
    #: multi-character spellings (uppercase, letters and aliases) read without brackets, longest first
    _multi: tuple = field(default=(), init=False, repr=False, compare=False, hash=False)
    #: multi-character spellings (uppercase) that read without brackets as separate tiles
    _split: tuple = field(default=(), init=False, repr=False, compare=False, hash=False)
    _split_re: object = field(default=None, init=False, repr=False, compare=False, hash=False)
    _word_alias_re: object = field(default=None, init=False, repr=False, compare=False, hash=False)
    _lower_multi: tuple = field(default=(), init=False, repr=False, compare=False, hash=False)
    _spelled: dict = field(default=None, init=False, repr=False, compare=False, hash=False)
    _tiles_type: type = field(default=Tiles, init=False, repr=False, compare=False, hash=False)
    #: what :meth:`tile` read each single character as, kept as it reads them: the next time the
    #: same answer without the checks (a letter of one character: the letters, their blanks)
    _char_tiles: dict = field(default=None, init=False, repr=False, compare=False, hash=False)
    #: what :meth:`plain_tile` read each single character as, kept likewise
    _plain_chars: dict = field(default=None, init=False, repr=False, compare=False, hash=False)
    #: what :meth:`rack` read each character as (``?`` and ``*`` blanks), kept likewise, when it
    #: reads text one character a tile (no letter of several characters); else None
    _rack_chars: "dict | None" = field(default=None, init=False, repr=False, compare=False, hash=False)
    #: for an alphabet with Turkish ``İ`` (:func:`turkish_casing`), the characters read as capitals
    #: otherwise than Python's casing reads them (``i`` → ``İ``, ``ı`` → ``I``), and the lowercase
    #: written for each such letter; None for every other alphabet
    _upper_table: "dict | None" = field(default=None, init=False, repr=False, compare=False, hash=False)
    _lower_table: "dict | None" = field(default=None, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        letters = self.letters
        if isinstance(letters, (str, bytes)) or not isinstance(letters, Iterable):
            raise UnknownLetterError(f"an alphabet's letters are a sequence of texts (one a letter), got {_args.show(letters)}")
        # decomposed letters (Á as A + U+0301) are composed, as typed letters are read (tile, split)
        object.__setattr__(self, "letters", tuple(nfc(x) if isinstance(x, str) else x for x in letters))
        if not isinstance(self.name, str):
            raise UnknownLetterError(f"an alphabet's name is a text, got {_args.show(self.name)}")
        aliases = _args.text_pairs(self.aliases, "aliases", UnknownLetterError,
                                   what="an alphabet's aliases are (alias, letter) pairs of texts")
        object.__setattr__(self, "aliases", tuple((nfc(a), nfc(t)) for a, t in aliases))
        if not 1 <= len(self.letters) <= MAX_LETTERS:
            raise UnknownLetterError(
                f"an alphabet needs 1 to {MAX_LETTERS} letters, got {len(self.letters)}"
            )
        index: dict[str, int] = {}
        for i, letter in enumerate(self.letters, start=1):
            problem = letter_problem(letter)
            if problem:
                shown = repr(letter) if isinstance(letter, str) else _args.show(letter)
                raise UnknownLetterError(f"alphabet letter {i} {shown} {problem}")
            if letter != letter.upper():
                raise UnknownLetterError(f"alphabet letter {i} {letter!r} must be uppercase ({nfc(letter.upper())!r})")
            if letter in index:
                raise UnknownLetterError(f"alphabet letters {index[letter]} and {i} are both {letter!r} (letters are "
                                         "compared NFC-normalized): each letter once")
            index[letter] = i
        casing = turkish_casing(self.letters)
        if casing is not None:
            object.__setattr__(self, "_upper_table", str.maketrans(casing[0]))
            object.__setattr__(self, "_lower_table", str.maketrans(casing[1]))
        for alias, target in self.aliases:
            if target not in index:
                raise UnknownLetterError(f"alias {alias!r} points to {target!r}, not a letter")
            if (
                not isinstance(alias, str)
                or not alias
                or self.upper(alias) in index
                or any(ch in RESERVED_CHARS or ch.isdigit() or ch.isspace() for ch in alias)
            ):
                raise UnknownLetterError(
                    f"alias {alias!r} must be non-empty, not a letter or another alias, without digits, spaces "
                    f"or any of {RESERVED_CHARS}"
                )
            index[self.upper(alias)] = index[target]
        object.__setattr__(self, "_index", index)
        word_aliases = _args.text_pairs(self.word_aliases, "word_aliases", UnknownLetterError,
                                        what="an alphabet's word aliases are (digits, letter) pairs of texts")
        seen: set[str] = set()
        for alias, target in word_aliases:
            if not (alias.isascii() and alias.isdigit()) or alias in seen:
                raise UnknownLetterError(f"word alias {alias!r} must be digits (0-9), each alias once")
            if nfc(target) not in self.letters:
                raise UnknownLetterError(f"word alias {alias!r} points to {target!r}, not a letter")
            seen.add(alias)
        object.__setattr__(self, "word_aliases", tuple((a, nfc(t)) for a, t in word_aliases))
        if self.word_aliases:
            pattern = "|".join(re.escape(a) for a, _ in sorted(self.word_aliases, key=lambda x: -len(x[0])))
            object.__setattr__(self, "_word_alias_re", re.compile(pattern))
        letters = set(self.letters)
        multi, split = [], []
        for k in index:
            if len(k) > 1:
                (split if _spells(k, letters - {k}) else multi).append(k)
        object.__setattr__(self, "_multi", tuple(sorted(multi, key=len, reverse=True)))
        object.__setattr__(self, "_split", tuple(sorted(split, key=len, reverse=True)))
        if split:
            object.__setattr__(self, "_split_re", re.compile(
                r"\[[^\]]*\]|(" + "|".join(re.escape(k) for k in self._split) + ")", re.IGNORECASE))
        # lowercase forms longer than their letter, one token each: Python's lowercase of Turkish İ
        # (i + a combining dot), read as its blank, though racksmith writes it i
        lower = {nfc(x.lower()) for x in self.letters if len(x) == 1} | {self.lower(x) for x in self.letters if len(x) == 1}
        object.__setattr__(self, "_lower_multi", tuple(sorted((f for f in lower if len(f) > 1), key=len, reverse=True)))
        spelled = {0: "?"}
        for i, letter in enumerate(self.letters, start=1):
            small = self.lower(letter)  # (as letter() writes a blank)
            # as MAGPIE writes them: a text of several characters in brackets
            spelled[i] = f"[{letter}]" if len(letter) > 1 else letter
            spelled[i | BLANK] = f"[{small}]" if len(small) > 1 else small
        object.__setattr__(self, "_spelled", spelled)
        object.__setattr__(self, "_tiles_type", type("Tiles", (Tiles,), {"__slots__": (), "alphabet": self}))
        object.__setattr__(self, "_char_tiles", {})
        object.__setattr__(self, "_plain_chars", {})
        if not self._multi and not self._lower_multi:
            object.__setattr__(self, "_rack_chars", dict.fromkeys(BLANK_CHARS, 0))
        _ALPHABETS[self._key()] = self

    def _key(self) -> tuple:
        """What defines the alphabet (all that ``==`` compares): the fields :meth:`__reduce__` pickles."""
        return (self.letters, self.name, self.aliases, self.word_aliases)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # the fields only: unpickled, they give the alphabet of these fields already made, if any
        # (a shipped ruleset's first), else one made of them (its index, its Tiles class built anew)
        return (_alphabet, self._key())

    def __copy__(self) -> "Alphabet":
        return self  # (immutable: a copy would only be another Tiles class for the same letters)

    def __deepcopy__(self, memo: dict) -> "Alphabet":
        return self

    def __len__(self) -> int:
        return len(self.letters)

    def __contains__(self, letter: object) -> bool:
        return isinstance(letter, str) and (self.upper(letter) in self._index or self._python_cased(nfc(letter)) is not None)

    def upper(self, text: str) -> str:
        """``text`` in capitals, as the alphabet reads it (NFC): Python's casing, but in an alphabet
        with Turkish ``İ``, ``i`` (or ``i̇``, i and a combining dot) is ``İ`` and ``ı`` is ``I``."""
        if self._upper_table is not None:
            text = text.replace("i\u0307", "i").translate(self._upper_table)
        return text.upper() if text.isascii() else nfc(text.upper())

    def lower(self, text: str) -> str:
        """``text`` in small letters, as the alphabet writes a blank (NFC): Python's casing, but in
        an alphabet with Turkish ``İ``, ``İ`` is ``i`` and ``I`` is ``ı`` (a tile ``IJ`` beside ``İ``: ``ıj``)."""
        if self._lower_table is not None:
            text = text.translate(self._lower_table)
        return text.lower() if text.isascii() else nfc(text.lower())

    def _where(self) -> str:
        return f" of {self.name}" if self.name else ""

    def tile(self, letter: str) -> Tile:
        """The tile for one letter: uppercase = the letter, lowercase = a blank standing for it. A
        letter of several characters is in one case or the other (``CH`` or ``ch``, not ``Ch``)."""
        if type(letter) is str:
            t = self._char_tiles.get(letter)  # (a character read before: its tile)
            if t is not None:
                return t
            if len(letter) == 1:
                t = self._char_tiles[letter] = self._tile(letter)
                return t
        elif not isinstance(letter, str):
            raise UnknownLetterError(f"a letter is a str, got {type(letter).__name__} {letter!r}")
        return self._tile(letter)

    def _tile(self, letter: str) -> Tile:
        """:meth:`tile` read in full."""
        if not letter.isascii():
            letter = unicodedata.normalize("NFC", letter)
        up = self.upper(letter)
        t = self._index.get(up)
        if t is None:
            up = self._python_cased(letter)
            if up is None or letter != nfc(up.lower()):
                raise self._unknown(letter)
            return self._index[up] | BLANK
        if letter != up:
            if len(up) > 1 and letter != self.lower(up):
                raise self._mixed(letter, up)
            t |= BLANK
        return t

    def _mixed(self, text: str, up: str) -> UnknownLetterError:
        """``text`` spells the multi-character ``up`` (a letter or an alias) in mixed case."""
        low = self.lower(up)
        tile, blank = (f"{up} (or [{up}])", f"{low} (or [{low}])") if up in self._multi else (f"[{up}]", f"[{low}]")
        target = self.letters[self._index[up] - 1]
        what = "" if target == up else f" (the letter {target})"
        return UnknownLetterError(
            f"{text!r} mixes capitals and small letters: {tile} is the tile{what}, {blank} a blank standing for it"
        )

    def plain_tile(self, letter: str) -> Tile:
        """The tile for one letter, case ignored (a rack's letter, a lexicon word's): never a blank.
        A letter not in the alphabet is named as it was typed."""
        if type(letter) is str:
            t = self._plain_chars.get(letter)  # (a character read before: its tile)
            if t is not None:
                return t
            if len(letter) == 1:
                t = self._plain_chars[letter] = self._plain_tile(letter)
                return t
        elif not isinstance(letter, str):
            return self.tile(letter)  # (says what it is instead)
        return self._plain_tile(letter)

    def _plain_tile(self, letter: str) -> Tile:
        """:meth:`plain_tile` read in full."""
        letter = nfc(letter)
        t = self._index.get(self.upper(letter))
        if t is None:
            up = self._python_cased(letter)
            if up is None:
                raise self._unknown(letter)
            t = self._index[up]
        return t

    def _python_cased(self, letter: str) -> "str | None":
        """In an alphabet with Turkish casing, the multi-character spelling ``letter`` is in Python's
        casing (``ij``, ``Ij``: Python's for a tile ``IJ`` beside ``İ``, which the alphabet writes
        ``ıj``), or None. A token of one tile, so no blank ``İ`` beside a blank ``J``: the tile."""
        if self._upper_table is None or len(letter) < 2:
            return None
        up = nfc(letter.upper())
        return up if len(up) > 1 and up in self._index else None

    def _unknown(self, letter: str, *, blanks: bool = False) -> UnknownLetterError:
        """``letter`` is none of the alphabet's; ``blanks``: where ``?`` and ``*`` are blanks (a rack)."""
        return UnknownLetterError(
            f"letter {letter!r} is not in the alphabet{self._where()} "
            f"({''.join(self.letters) if all(len(x) == 1 for x in self.letters) else ' '.join(self.letters)})"
            + self._lookalike(letter, blanks=blanks)
        )

    def letter(self, tile: Tile) -> str:
        """The letter of a tile: lowercase for a blank on the board, ``?`` for the rack blank 0.
        A number that is no tile of the alphabet (beyond its letters, below 0, or with bits other
        than :data:`BLANK` set) raises :class:`~racksmith.errors.UnknownLetterError`."""
        if type(tile) is not int:
            try:
                tile = operator.index(tile)  # (numpy's ints too)
            except TypeError:
                raise UnknownLetterError(f"a tile is an int, got {_args.show(tile)}") from None
        t = tile & LETTER_MASK
        if tile & ~(BLANK | LETTER_MASK) or (t == 0 and tile):
            raise UnknownLetterError(
                f"{tile!r} is not a tile{self._where()}: a tile is 0 (the blank on a rack), a letter 1..{len(self)}, "
                f"or a letter | 0x80 ({BLANK}) for a blank on the board"
            )
        if t == 0:
            return "?"
        if t > len(self.letters):
            raise UnknownLetterError(f"tile {t} is outside the alphabet{self._where()}")
        s = self.letters[t - 1]
        return self.lower(s) if tile & BLANK else s

    def _lookalike(self, letter: str, *, blanks: bool = False) -> str:
        """A hint when ``letter`` is the other script's twin of a letter of this alphabet, or another
        form of what the alphabet reads (see :meth:`other_form`)."""
        other = twin(letter)
        if other == letter or self.upper(other) not in self._index:
            form = self.other_form(letter, blanks=blanks)
            return f": {form}" if form else ""
        return f": it is {twin_of(letter)} (check the keyboard layout)"

    def other_form(self, char: str, *, blanks: bool = False) -> str:
        """What to type for ``char``, one character the alphabet does not read that is another form
        of letters it does (its NFKC form: a fullwidth letter of an East Asian keyboard, ``Ａ``),
        ``"'Ａ' is FULLWIDTH LATIN CAPITAL LETTER A: type 'A'"``; with ``blanks`` (where ``?`` and
        ``*`` are blanks: a rack), a fullwidth ``？`` or ``＊`` too. Another form of a character that
        is no letter (a fullwidth ``／`` or ``（``) gets no hint: the letters would not read it. For a
        space other than the plain one, ``"'\\xa0' is NO-BREAK SPACE, a space that is no letter"``; for
        an invisible character (a format character: a soft hyphen, a zero-width joiner), ``"'\\xad'
        is SOFT HYPHEN, an invisible character that is no letter"``; else ""."""
        if not isinstance(char, str) or len(char) != 1 or char.isascii():
            return ""
        name = unicodedata.name(char, f"U+{ord(char):04X}")
        category = unicodedata.category(char)
        if category == "Cf":
            return f"{char!r} is {name}, an invisible character that is no letter"
        if char.isspace() or category == "Zs":
            return f"{char!r} is {name}, a space that is no letter"
        folded = unicodedata.normalize("NFKC", char)
        if folded == char or not folded.strip():
            return ""
        if not (blanks and folded in BLANK_CHARS):
            if any(ch in RESERVED_CHARS for ch in folded):
                return ""
            try:
                self.rack(folded)
            except UnknownLetterError:
                return ""
        return f"{char!r} is {name}: type {folded!r}"

    def split(self, text: str, *, plain: bool = False) -> list[str]:
        """Split text into letter tokens: ``[CH]`` is one tile (any tile, of one character too);
        without brackets, a multi-character tile whose text also reads as separate tiles of the
        alphabet (Spanish CH: C and H) is those tiles, and one whose text does not (Catalan L·L, NY,
        QU) is that tile, the longest first; then single characters. ``plain`` (racks, lexicon
        words: case ignored) reads a multi-character tile in mixed case (``Ny``) as the tile, else
        it is an error (``NY`` is the tile, ``ny`` its blank)."""
        if not isinstance(text, str):
            _args.text(text, "text", UnknownLetterError, what="letters (a str)")
        if not text.isascii():  # decomposed letters (Й as И + a breve): one token each
            text = unicodedata.normalize("NFC", text)
        if not self._multi and not self._lower_multi and "[" not in text:
            return list(text)  # (every token one character)
        out: list[str] = []
        i = 0
        n = len(text)
        while i < n:
            tok, i, _ = self._read_at(text, i, plain)
            out.append(tok)
        return out

    def _read_at(self, text: str, i: int, plain: bool = False) -> tuple[str, int, bool]:
        """The token at ``text[i]`` (NFC text), where the next one starts, and whether it was
        written in brackets."""
        c = text[i]
        if c == "[":
            j = text.find("]", i)
            if j < 0:
                raise UnknownLetterError(f"unclosed '[' in {text!r}")
            if j == i + 1:
                raise UnknownLetterError(f"empty brackets '[]' in {text!r}: a tile goes between them")
            return text[i + 1 : j], j + 1, True
        for m in self._multi:
            seg = text[i : i + len(m)]
            if len(seg) == len(m) and self.upper(seg) == m:
                if not plain and seg != m and seg != self.lower(m):
                    raise self._mixed(seg, m)
                return seg, i + len(m), False
        for m in self._lower_multi:
            if text.startswith(m, i):
                return m, i + len(m), False
        return c, i + 1, False

    def unbracketed(self, text: str) -> list[str]:
        """The multi-character tiles that ``text`` spells without brackets and so reads as
        separate tiles: ``["CH"]`` for Spanish ``CHICO`` (C, H, I, C, O), ``[]`` for ``[CH]ICO``.
        Their letters (an alias names its letter), each once, in the order met."""
        if self._split_re is None or not isinstance(text, str):
            return []
        if not text.isascii():
            text = unicodedata.normalize("NFC", text)
        found: list[str] = []
        for m in self._split_re.finditer(text):
            if m.group(1):
                up = self.upper(m.group(1))
                letter = self.letters[self._index[up] - 1]
                if letter not in found:
                    found.append(letter)
        return found

    def encode(self, word: str) -> list[Tile]:
        """Tiles of a word as written on a board: uppercase = tile, lowercase = blank."""
        if not isinstance(word, str):
            _args.text(word, "word", UnknownLetterError, what="letters (a str)")
        return [self.tile(tok) for tok in self.split(word)]

    def encode_plain(self, word: str) -> list[Tile]:
        """Tiles of a lexicon word: case ignored, no blanks."""
        if not isinstance(word, str):
            _args.text(word, "word", UnknownLetterError, what="letters (a str)")
        return [self.plain_tile(tok) for tok in self.split(word, plain=True)]

    def encode_listed(self, word: str) -> list[Tile]:
        """Tiles of a word of a word list: as :meth:`encode_plain`, and a :attr:`word_aliases`
        text of digits is its letter (``A1E`` is A, CH, E where ``1`` stands for CH)."""
        if self._word_alias_re is not None and isinstance(word, str) and any(ch.isdigit() for ch in word):
            aliases = dict(self.word_aliases)
            word = self._word_alias_re.sub(lambda m: f"[{aliases[m.group(0)]}]", word)
        return self.encode_plain(word)

    def decode(self, tiles: Iterable[Tile]) -> str:
        """Inverse of :meth:`encode`: a letter of several characters in brackets (``[CH]``, a blank
        ``[ch]``), a letter of one never (two Ls are ``LL``, as MAGPIE, Macondo and wolges write
        them); ``?`` for the rack blank 0."""
        try:
            tiles = list(tiles)
        except TypeError:
            raise UnknownLetterError(f"tiles must be a sequence of tile ints, got {_args.show(tiles)}") from None
        spelled = self._spelled
        parts = []
        for t in tiles:
            s = spelled.get(t) if type(t) is int else None
            if s is None:
                self.letter(t)  # (a number that is no tile: the error says why)
                s = spelled[operator.index(t)]
            parts.append(s)
        return "".join(parts)

    def tiles(self, tiles: "Iterable[Tile] | str" = ()) -> Tiles:
        """A :class:`Tiles` of this alphabet: from tile ints (kept in their order), or from
        letters as :meth:`rack` reads them (sorted)."""
        if isinstance(tiles, str):
            return _new_tuple(self._tiles_type, self.rack(tiles))
        try:
            return _new_tuple(self._tiles_type, tiles)
        except TypeError:  # (not a sequence: its tiles are not looked at here, to keep this fast)
            raise UnknownLetterError(f"tiles must be a sequence of tile numbers (ints, 0 for a blank) or letters, got "
                                     f"{_args.show(tiles)}") from None

    def rack(self, text: str) -> list[Tile]:
        """Tiles of a rack: letters (case ignored) and ``?`` or ``*`` for blanks (tile 0), sorted."""
        if not isinstance(text, str):
            _args.text(text, "a rack", UnknownLetterError, what="letters (a str, '?' or '*' for a blank)")
        known = self._rack_chars  # (None: split may read several characters as one tile)
        if known is not None and type(text) is str and (text.isascii() or unicodedata.is_normalized("NFC", text)):
            # one tile a character (as split reads such text), each read before: looked up
            try:
                out = [known[ch] for ch in text]
            except KeyError:  # a character not read yet (or a bracket, a letter not in the alphabet...)
                pass
            else:
                out.sort()
                return out
        out = []
        for tok in self.split(text, plain=True):
            try:
                t = 0 if tok in BLANK_CHARS else self.plain_tile(tok)
            except UnknownLetterError:
                if unicodedata.normalize("NFKC", tok) in BLANK_CHARS:  # (a fullwidth ？: a blank typed so)
                    raise self._unknown(tok, blanks=True) from None
                raise
            if known is not None and len(tok) == 1:
                known[tok] = t  # (what the token is, whatever text it came from)
            out.append(t)
        out.sort()
        return out

    def rack_string(self, tiles: Iterable[Tile], blanks_last: bool = False) -> str:
        """A rack written back: letters in alphabet order and blanks as ``?`` — first (the order of
        leave files and exchanges) or, with ``blanks_last``, last (the order of CGP racks)."""
        try:
            ts = sorted(tiles)
        except TypeError:  # not a sequence, or one of things that do not compare
            _args.tile_list(tiles, "tiles", UnknownLetterError)  # (says which)
            raise UnknownLetterError(f"tiles must be a sequence of tile numbers, got {_args.show(tiles)}") from None
        if type(blanks_last) is not bool:
            blanks_last = _args.flag(blanks_last, "blanks_last", UnknownLetterError)
        if blanks_last:
            ts = [t for t in ts if t] + [t for t in ts if not t]
        return self.decode(ts)
