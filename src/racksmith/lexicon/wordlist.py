"""Word lists: UTF-8 text (or UTF-16 or UTF-32 with its byte-order mark), one word a line, case ignored,
blank lines ignored.

Words with letters outside the alphabet, longer than the board or shorter than 2 letters are
skipped and counted; of those with letters outside the alphabet, the ones with a letter of the other
script in place of its twin (a Latin ``o`` in Russian ``кoт``) are counted apart, and the first few
of each kind are kept with their line (:class:`Skipped`). Single-character alphabets take a
vectorised path (the whole list is mapped to tiles by one table look-up); alphabets with
multi-character letters, and the rare line that needs it (spaces, unknown characters), go through
:meth:`Alphabet.encode_listed`.

A tile of several characters is read as everywhere else (and as MAGPIE's ``convert text2kwg``
reads it): ``A[CH]E`` holds the CH tile, ``ACHE`` the tiles C and H where the alphabet has both;
Catalan's ``L·L``, ``NY``, ``QU`` read with or without brackets. A list that spells such a tile
without brackets gets a note (logger ``racksmith.lexicon``, on stderr when logging is not set up):
how many words, the first, and how to write the tile.
"""
from __future__ import annotations

import logging
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..rules.alphabet import Alphabet, _script, nfc, twin, twin_of
from ..errors import LexiconFormatError, UnknownLetterError

MIN_LENGTH = 2
MAX_WORD_LIST_BYTES = 512 << 20  #: the largest word list read (its text; the big game lexicons are tens of MB)
_NEWLINE = 0xFF
_CR = 0xFD
_OTHER = 0xFE  # anything that is neither a letter nor a line break


EXAMPLES = 3  #: skipped words a note names, of each kind (then "and N more")
_SHOWN_CHARACTERS = 5  #: characters outside the alphabet kept for each word named
_OUTSIDE_KEPT = 64  #: distinct characters outside the alphabet a record keeps
_ALIASES_SHOWN = 16  #: letter aliases a note proposes at most

#: a word named in a note: its line (from 1; for words given as strings, its place among them), the
#: word (its first 40 characters) and its characters outside the alphabet (twins first)
SkippedLine = tuple[int, str, str]


@dataclass(frozen=True, slots=True)
class Skipped:
    """Words of a list left out, by reason.

    ``letters`` counts every word with letters outside the alphabet; ``lookalikes`` those of them
    with a letter of the other script in place of its twin (Latin ``o`` for Cyrillic ``о``: a
    keyboard slip). The first :data:`EXAMPLES` of each kind are kept with their line
    (``lookalike_lines``, ``other_lines``), whatever the length of the list."""

    letters: int = 0  #: letters outside the alphabet
    too_long: int = 0  #: longer than the board
    too_short: int = 0  #: shorter than 2 letters
    example: str = ""  #: the first line skipped for its letters
    digits: bool = False  #: it has digits, in an alphabet of multi-character tiles (FISE writes CH as 1)
    #: the example's first letter that is the other script's twin of a letter of the alphabet, said so
    #: (``'o' is the Latin twin of Cyrillic 'о'``), or ""
    lookalike: str = ""
    lookalikes: int = 0  #: of ``letters``, words with a letter of the other script in place of its twin
    lookalike_lines: tuple[SkippedLine, ...] = ()  #: the first few of those: ``(3, 'кoт', 'o')``
    #: the first few of the other ``letters``: ``(2, 'кресло-качалка', '-')``
    other_lines: tuple[SkippedLine, ...] = ()
    #: the characters outside the alphabet, each once, in the order met (the first 64): words are
    #: read NFC-composed, so that an accent written apart (NFD) is kept with its letter (``â``)
    outside: str = ""

    @property
    def total(self) -> int:
        return self.letters + self.too_long + self.too_short

    def describe(self, max_length: int, alphabet: "Alphabet | None" = None, give_ruleset: str = "") -> str:
        """``skipped 4 words: 1 with a Latin letter in place of its Cyrillic twin (line 3 'кoт': 'o'),
        2 with letters outside the alphabet (line 2 'кресло-качалка': '-'; line 5 'a b': ' '), 1
        shorter than 2``: the first :data:`EXAMPLES` of a kind named, then ``and N more``. A record
        without lines (made by hand) names its :attr:`example`: ``1 with letters outside the
        alphabet ('naïve')``.

        With the ``alphabet`` the list was read with, the note names it (``outside the alphabet of
        english``) and, when the letters outside it are accented forms of its own (``É``, ``Â``),
        shows the ``letter_aliases`` of a ruleset file that reads them as those letters.
        ``give_ruleset``: how to give another ruleset (``--ruleset FILE``), said when words were
        skipped for their letters (a list written for another language)."""
        if not self.total:
            return "skipped no words"
        others = self.letters - self.lookalikes
        named = alphabet is not None and alphabet.name
        outside = f"letters outside the alphabet of {alphabet.name}" if named else "letters outside the alphabet"
        if self.lookalike_lines or self.other_lines:
            kinds = [(self.lookalikes, f"with {self._lookalike_kind()}{_named(self.lookalike_lines, self.lookalikes)}"),
                     (others, f"with {outside}{_named(self.other_lines, others)}")]
        else:
            first = f" ({'first: ' if self.letters > 1 else ''}{self.first()})" if self.example else ""
            kinds = [(self.letters, f"with {outside}{first}")]
        parts = [
            f"{n:,} {why}"
            for n, why in (*kinds, (self.too_long, f"longer than {max_length}"),
                           (self.too_short, f"shorter than {MIN_LENGTH}"))
            if n
        ]
        words = "word" if self.total == 1 else "words"
        hints = []
        forms = other_forms(self._outside_characters(), alphabet) if alphabet is not None else ""
        if forms:  # (fullwidth letters: the alphabet's own, typed in another form)
            hints.append(forms)
        elif give_ruleset and any(ch.isalpha() for ch in self._outside_characters()):  # (not for a '-' or a digit)
            hints.append(f"a list written for another ruleset needs that ruleset ({give_ruleset})")
        if alphabet is not None:
            hints.append(aliases_hint(self, alphabet))
        hints = [h for h in hints if h]
        return (f"skipped {self.total:,} {words}: " + ", ".join(parts) + _digits_hint(self)
                + "".join(f"; {h}" for h in hints))

    def _outside_characters(self) -> str:
        """The characters outside the alphabet: :attr:`outside`, or in a record kept before it was
        (the lexicon cache), those of the words named; never those of the twins of the other script."""
        twins = {c for _, _, chars in self.lookalike_lines for c in chars}
        chars = self.outside or "".join(c for _, _, chars in self.lookalike_lines + self.other_lines for c in chars)
        return "".join(c for c in chars if c not in twins)

    def first(self) -> str:
        """The first word skipped for its letters, quoted, with the twin of the other script it holds."""
        return f"{self.example!r}, whose {self.lookalike}" if self.lookalike else repr(self.example)

    def _lookalike_kind(self) -> str:
        """``a Latin letter in place of its Cyrillic twin``: the scripts of the first word named."""
        typed = self.lookalike_lines[0][2][:1] if self.lookalike_lines else ""
        if not typed or twin(typed) == typed:
            return "a letter of the other script in place of its twin"
        return f"a {_script(typed)} letter in place of its {_script(twin(typed))} twin"

    def to_dict(self) -> dict:
        """The record as JSON values (the lexicon cache keeps it beside the graph)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, d: dict) -> "Skipped":
        """The record :meth:`to_dict` gave, read back from JSON (lists for tuples). Every field must
        be there (else ``KeyError``): a record written before the lines of skipped words were kept is
        not taken for a list that skipped none. (``outside``, kept since, may be missing: the
        characters of the words named stand in for it.)"""
        fields = {name: d[name] for name in cls.__dataclass_fields__ if name != "outside"}
        fields["outside"] = str(d.get("outside", ""))
        for name in ("lookalike_lines", "other_lines"):
            fields[name] = tuple((int(n), str(word), str(chars)) for n, word, chars in fields[name])
        return cls(**fields)


def _named(lines: tuple[SkippedLine, ...], count: int) -> str:
    """`` (line 3 'кoт': 'o'; line 7 'мoрe': 'o', 'e'; and 4 more)``, or "" with no line kept."""
    if not lines:
        return ""
    named = "; ".join(f"line {n} {nfc(word)!r}" + (": " + ", ".join(map(repr, _characters(chars))) if chars else "")
                      for n, word, chars in lines)
    more = count - len(lines)
    return f" ({named}{f'; and {more:,} more' if more > 0 else ''})"


def _characters(text: str) -> list[str]:
    """The characters of ``text`` (characters outside an alphabet) as a person can read them: an
    accent that came with no letter (a list written NFD, decomposed, whose accent does not compose
    with its letter) on a dotted circle (``◌̂``) rather than alone, where it would sit on the quote
    before it. (Words are read NFC-composed: ``â`` is one character.)"""
    return ["◌" + ch if unicodedata.combining(ch) else ch for ch in text]


def accented_forms(characters: Iterable[str], alphabet: Alphabet) -> list[tuple[str, str]]:
    """``(character, letter)`` for each of ``characters`` (each once, uppercase) that the alphabet
    lacks but that is an accented form of one of its letters: ``('É', 'E')``, ``('Â', 'A')``."""
    found: list[tuple[str, str]] = []
    for ch in characters:
        up = alphabet.upper(ch)
        if len(up) != 1 or up in alphabet._index:
            continue
        parts = unicodedata.normalize("NFD", up)
        if len(parts) < 2 or not all(unicodedata.combining(c) for c in parts[1:]):
            continue
        tile = alphabet._index.get(parts[0])
        pair = (up, alphabet.letters[tile - 1]) if tile is not None else None
        if pair is not None and pair not in found:
            found.append(pair)
    return found


def other_forms(characters: str, alphabet: Alphabet) -> str:
    """When every letter of ``characters`` (outside the alphabet) is another form of the alphabet's
    letters (fullwidth ``Ｃ``), what to write for them: ``'Ｃ' is FULLWIDTH LATIN CAPITAL LETTER C:
    type 'C'; ...`` (the first three); else ""."""
    letters = [ch for ch in dict.fromkeys(characters) if ch.isalpha()]
    forms = [alphabet.other_form(ch) for ch in letters]
    if not forms or not all(forms):
        return ""
    more = f"; and {len(forms) - 3} more" if len(forms) > 3 else ""
    return "; ".join(forms[:3]) + more


def aliases_hint(skipped: "Skipped", alphabet: Alphabet) -> str:
    """For a list whose words were skipped for accented forms of the alphabet's letters (a French
    list with ``É``, ``Â`` under an alphabet of A to Z): how a ruleset file reads them as those
    letters, ``letter_aliases = { "É" = "E", "Â" = "A" }``; "" otherwise."""
    pairs = accented_forms(_characters(skipped._outside_characters()), alphabet)
    if not pairs:
        return ""
    shown = pairs[:_ALIASES_SHOWN]
    table = ", ".join(f'"{ch}" = "{letter}"' for ch, letter in shown)
    more = ", ..." if len(pairs) > len(shown) else ""
    letters = ", ".join(dict.fromkeys(letter for _, letter in pairs))
    many = len(pairs) > 1
    them, those = ("them", "those letters") if many else ("it", "that letter")
    return (f"{', '.join(ch for ch, _ in shown[:6])}{', ...' if len(pairs) > 6 else ''} "
            f"{'are accented forms' if many else 'is an accented form'} of {letters}: if the game plays {them} as "
            f"{those}, add letter_aliases = {{ {table}{more} }} to the ruleset file")


class _Tally:
    """The words of a list skipped for their letters, as it is read: how many, how many of them
    with a twin of the other script, the first :data:`EXAMPLES` of each kind by line, and the first
    of all (:attr:`Skipped.example`). Its size does not grow with the list."""

    def __init__(self, alphabet: Alphabet):
        self.alphabet = alphabet
        self.letters = self.lookalikes = 0
        self.lookalike_lines: list[SkippedLine] = []
        self.other_lines: list[SkippedLine] = []
        self.first: SkippedLine | None = None
        self.outside: dict[str, None] = {}

    def add(self, line: int, word: str) -> None:
        self.letters += 1
        word = nfc(word)  # (an accent written apart is read with its letter: 'â', not a lone U+0302)
        head = word[:200]
        outside, twins = _outside(head, self.alphabet)
        for ch in outside:
            if len(self.outside) >= _OUTSIDE_KEPT:
                break
            self.outside.setdefault(ch)
        if twins:
            self.lookalikes += 1
            named, chars = self.lookalike_lines, twins + [ch for ch in outside if ch not in twins]
        else:  # (a word with no letter of the alphabet is named alone: its characters are all of it)
            named, chars = self.other_lines, outside if len(outside) < len(set(head)) else []
        entry = (line, word[:40], "".join(chars[:_SHOWN_CHARACTERS]))
        if len(named) < EXAMPLES or line < named[-1][0]:  # (lines come in order, but for words given apart)
            named.append(entry)
            named.sort()
            del named[EXAMPLES:]
        if self.first is None or line < self.first[0]:
            self.first = entry

    def skipped(self, too_long: int, too_short: int) -> Skipped:
        example = self.first[1] if self.first else ""
        lookalike = _lookalike(example, self.alphabet)
        digits = any(len(x) > 1 for x in self.alphabet.letters) and any(ch.isdigit() for ch in example)
        return Skipped(self.letters, too_long, too_short, example, digits, lookalike, self.lookalikes,
                       tuple(self.lookalike_lines), tuple(self.other_lines), "".join(self.outside))


@lru_cache(maxsize=8)
def _spelling_characters(alphabet: Alphabet) -> frozenset[str]:
    """The characters a word of a list may hold: those of the letters' spellings (either case), the
    brackets of a multi-character tile and the digits of the word aliases."""
    chars = {ch for spelling in alphabet._index for ch in spelling + alphabet.lower(spelling)}
    if any(len(x) > 1 for x in alphabet._index):
        chars |= {"[", "]"}
    chars |= {ch for alias, _ in alphabet.word_aliases for ch in alias}
    return frozenset(chars)


def _outside(word: str, alphabet: Alphabet) -> tuple[list[str], list[str]]:
    """The characters of ``word`` outside the alphabet, each once in order, and those of them that
    are the other script's twin of one of its letters (none in a word without a letter of the
    alphabet: a word all in another script is another language's, no keyboard slip)."""
    ok = _spelling_characters(alphabet)
    outside = [ch for ch in dict.fromkeys(word) if ch not in ok and alphabet.upper(ch) not in alphabet._index]
    if len(outside) == len(set(word)):
        return outside, []
    return outside, [ch for ch in outside if alphabet.upper(twin(ch)) in alphabet._index]


def _digits_hint(skipped: Skipped) -> str:
    """A hint for a list that writes tiles as digits (FISE's Spanish lists: 1, 2, 3 for CH, LL, RR)."""
    if not skipped.digits:
        return ""
    return (" (digits for tiles, as FISE's Spanish lists write CH, LL, RR: give the ruleset letter_aliases = "
            '{ "1" = "CH", ... })')


def check_fits(kept: int, skipped: Skipped, alphabet: Alphabet, max_length: int, what: str, hint: str = "") -> None:
    """Refuse a word list that makes an empty lexicon, or whose words mostly have letters outside
    the alphabet (a list for another ruleset: the lexicon would silently miss most of its words).

    ``kept`` is the number of words the lexicon holds; ``what`` names the list (``word list
    'words.txt'``); ``hint`` ends the message when letters are the problem."""
    if kept and skipped.letters <= kept:
        return
    if skipped.letters:
        if skipped.example and not skipped.lookalike:  # (a lexicon cache written before the twin was kept)
            skipped = replace(skipped, lookalike=_lookalike(skipped.example, alphabet))
        first = f" (first: {skipped.first()})" if skipped.example else ""
        outcome = "none is left" if not kept else f"only {kept:,} would be left"
        accents = aliases_hint(skipped, alphabet) or other_forms(skipped._outside_characters(), alphabet)
        raise LexiconFormatError(
            f"{what}: {skipped.letters:,} of its {kept + skipped.total:,} words have letters outside the alphabet "
            f"of {alphabet.name or 'the ruleset'}{first} and {outcome}: is the ruleset right?"
            + (f" ({hint})" if hint else "") + _digits_hint(skipped) + (f"; {accents}" if accents else "")
        )
    if skipped.total:
        raise LexiconFormatError(f"{what}: none of its {skipped.total:,} words has {MIN_LENGTH} to {max_length} letters")
    raise LexiconFormatError(f"{what} holds no words (a word list is UTF-8 text, one word a line)")


log = logging.getLogger("racksmith.lexicon")


@dataclass(frozen=True, slots=True)
class Unbracketed:
    """Words of a list that spell a multi-character tile without brackets (Spanish ``CHICO``),
    read as separate tiles (C, H): kept, and told about, since the list may have meant the tile."""

    words: int = 0  #: how many words
    example: str = ""  #: the first
    letters: tuple[str, ...] = ()  #: the tiles so spelled (``("CH", "LL")``), in the order met

    def describe(self, alphabet: Alphabet, what: str = "word list") -> str:
        """``note: word list 'es.txt': 156 words spell CH, LL without brackets (first: 'ACHE'),
        read as separate tiles (C+H, L+L) as MAGPIE reads them; write [CH], [LL] for the tiles``."""
        if not self.words:
            return ""
        many = len(self.letters) > 1
        spelled = ", ".join(self.letters)
        parts = ", ".join("+".join(alphabet.split(x)) for x in self.letters)
        return (f"note: {what}: {self.words:,} word{'s' if self.words > 1 else ''} spell{'' if self.words > 1 else 's'} "
                f"{spelled} without brackets ({'first: ' if self.words > 1 else ''}{self.example!r}), read as separate "
                f"tiles ({parts}) as MAGPIE and wolges read them; write {', '.join(f'[{x}]' for x in self.letters)} "
                f"for the tile{'s' if many else ''}")


@dataclass(frozen=True, slots=True, eq=False)
class WordList:
    """Words as tiles, sorted and unique, packed for the builder."""

    text: np.ndarray  #: uint8 tiles, words end to end
    offsets: np.ndarray  #: int64, word i is ``text[offsets[i]:offsets[i+1]]``
    skipped: Skipped
    unbracketed: Unbracketed = Unbracketed()  #: words spelling a multi-character tile without brackets

    def __len__(self) -> int:
        return len(self.offsets) - 1


#: the names Quackle's lexicon files end with (binary graphs racksmith does not read)
QUACKLE_LEXICON_SUFFIXES = (".dawg", ".gaddag")


def read_word_list_bytes(path: str | Path) -> bytes:
    """The bytes of a word list file, gunzipped when they are gzip data. A binary file named like
    one of Quackle's lexicons (``.dawg``, ``.gaddag``) is refused saying so, and what to give."""
    from .files import read_bounded

    data = read_bounded(path, MAX_WORD_LIST_BYTES, "word list", LexiconFormatError, gunzip=True)
    _refuse_quackle_lexicon(Path(path), data[:4096])
    return data


def _refuse_quackle_lexicon(path: Path, head: bytes) -> None:
    """A binary ``.dawg`` or ``.gaddag`` file (Quackle's lexicons are named so) is no word list: say
    so rather than that it holds NUL bytes. Text of that name (a word list after all) is read."""
    from .files import looks_binary

    suffix = path.suffix.lower()
    if (suffix in QUACKLE_LEXICON_SUFFIXES and looks_binary(head) and bom_codec(head) is None
            and not looks_like_utf16(head)):
        raise LexiconFormatError(
            f"{str(path)!r} is a binary {suffix} file, as Quackle's lexicons are: racksmith does not read "
            "Quackle's .dawg and .gaddag files; give the lexicon as a word list (UTF-8 text, one word a line) or "
            "a .kwg file (MAGPIE's and wolges's format; 'racksmith lexicon build' makes one from a word list)"
        )


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")  # the first begins as UTF-16's little-endian mark


def bom_codec(raw: bytes) -> str | None:
    """The codec a byte-order mark at the start of ``raw`` names: ``"utf-32"`` or ``"utf-16"``
    (UTF-32's is looked for first: its little-endian mark starts with UTF-16's), else None."""
    if raw.startswith(UTF32_BOMS):
        return "utf-32"
    if raw.startswith(UTF16_BOMS):
        return "utf-16"
    return None


def looks_like_utf16(head: bytes) -> bool:
    """Is this the start of UTF-16 text (a byte-order mark, or, without one, the high byte of each
    pair NUL almost everywhere and the low byte never: Latin text; or the high bytes NULs (line
    breaks, digits) and one block's (``0x04``: Cyrillic), of very few values, and the low bytes
    hardly ever NUL: the text of one script)?"""
    if head.startswith(UTF16_BOMS):
        return True
    if len(head) < 8:
        return False
    head = head[: len(head) // 2 * 2]
    for high, low in ((head[1::2], head[0::2]), (head[0::2], head[1::2])):
        if high.count(0) * 10 >= len(high) * 9 and low.count(0) == 0:
            return True
        if high.count(0) and low.count(0) * 100 <= len(low) and _one_block(high):
            return True
    return False


def _one_block(high: bytes) -> bool:
    """Are these the high bytes of UTF-16 text in one script: at most 4 values (NUL, the script's
    block, a dash's 0x20...), two of them nearly all?"""
    counts = sorted((high.count(b) for b in set(high)), reverse=True)
    return len(counts) <= 4 and sum(counts[:2]) * 20 >= len(high) * 19


def decode_word_list(raw: bytes, source: str = "<words>") -> str:
    """The text of a word list: UTF-8, or UTF-16 or UTF-32 when it starts with a byte-order mark
    (as some Windows editors save it). NUL bytes elsewhere mean it is not text."""
    codec = bom_codec(raw)
    if codec is not None:
        try:
            return raw.decode(codec)
        except UnicodeDecodeError as e:
            raise LexiconFormatError(
                f"word list {source} starts like {codec.upper()} text but is not (bad bytes at offset {e.start}); "
                "save it as UTF-8"
            ) from None
    nul = raw.find(b"\x00")
    if nul >= 0:
        if looks_like_utf16(raw[:4096]):
            raise LexiconFormatError(
                f"word list {source} looks like UTF-16 text without a byte-order mark; save it as UTF-8"
            )
        raise LexiconFormatError(
            f"word list {source} contains NUL bytes: it is not a text word list (a .kwg or .klv2 file?)"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LexiconFormatError(
            f"word list {source} is not UTF-8 text (bad byte at offset {e.start}); save it as UTF-8"
        ) from None


@lru_cache(maxsize=8)
def _code_table(alphabet: Alphabet) -> np.ndarray:
    """Unicode code point -> tile (1..63), line break or other, for single-character alphabets."""
    table = np.full(0x110000, _OTHER, dtype=np.uint8)
    table[ord("\n")] = _NEWLINE
    table[ord("\r")] = _CR
    for spelling, tile in alphabet._index.items():
        for form in {spelling, alphabet.lower(spelling)}:
            if len(form) == 1:
                table[ord(form)] = tile
    return table


def parse_word_list(data: bytes | str, alphabet: Alphabet, max_length: int, source: str = "<words>") -> WordList:
    """Tiles of the words of a list (bytes are UTF-8, a leading BOM is ignored)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        text = decode_word_list(bytes(data), source)
    else:
        text = data
    return _parse(text, alphabet, max_length, source, _Tally(alphabet))


def _parse(text: str, alphabet: Alphabet, max_length: int, source: str, tally: _Tally) -> WordList:
    """:func:`parse_word_list` of a text, the words skipped for their letters counted in ``tally``."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if any(len(x) > 1 for x in alphabet._index):
        mat, fast_long, fast_short = np.zeros((0, max_length), dtype=np.uint8), 0, 0
        odd = text.split("\n")
        line_numbers: Iterable[int] = range(1, len(odd) + 1)
    else:
        (mat, fast_long, fast_short), (odd, line_numbers) = _fast_rows(text, alphabet, max_length)
    rows = []
    too_long = too_short = 0
    split_words, split_example, split_letters = 0, "", []
    check_split = alphabet._split_re is not None
    for line_number, line in zip(line_numbers, odd):
        word = line.strip()
        if not word:
            continue
        try:
            tiles = alphabet.encode_listed(word)
        except UnknownLetterError:
            tally.add(line_number, word)
            continue
        if len(tiles) > max_length:
            too_long += 1
        elif len(tiles) < MIN_LENGTH:
            too_short += 1
        else:
            rows.append(tiles)
            if check_split:
                found = alphabet.unbracketed(word)
                if found:
                    split_words += 1
                    split_example = split_example or word[:40]
                    split_letters.extend(x for x in found if x not in split_letters)
    if rows:
        extra = np.zeros((len(rows), max_length), dtype=np.uint8)
        for i, tiles in enumerate(rows):
            extra[i, : len(tiles)] = tiles
        mat = np.concatenate([mat, extra])
    order = {x: i for i, x in enumerate(alphabet.letters)}
    unbracketed = Unbracketed(split_words, split_example, tuple(sorted(split_letters, key=order.__getitem__)))
    if split_words:
        log.warning(unbracketed.describe(alphabet, f"word list {source}"))
    wl = _pack(mat, tally.skipped(too_long + fast_long, too_short + fast_short))
    return WordList(wl.text, wl.offsets, wl.skipped, unbracketed) if split_words else wl


def _lookalike(word: str, alphabet: Alphabet) -> str:
    """``'o' is the Latin twin of Cyrillic 'о'``: the first letter of ``word`` that is not the
    alphabet's but the other script's twin of one of its letters, in a word with letters of the
    alphabet (a keyboard slip: a word all in another script is another language's), or ""."""
    if not any(alphabet.upper(ch) in alphabet._index for ch in word):
        return ""
    for ch in dict.fromkeys(word):
        if alphabet.upper(ch) not in alphabet._index and alphabet.upper(twin(ch)) in alphabet._index:
            return f"{ch!r} is {twin_of(ch)}"
    return ""


def _fast_rows(text: str, alphabet: Alphabet, max_length: int):
    """Lines made only of letters, as a zero-padded matrix of tiles (and the counts of those
    too long or too short); the other non-blank lines as strings, for the careful path, with their
    line numbers (from 1)."""
    # (surrogatepass: a lone surrogate, which a str may hold, is a letter outside the alphabet and its
    # word skipped, as the careful path skips it, not a UnicodeEncodeError)
    codes = _code_table(alphabet)[np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")]
    n = codes.size
    breaks = np.flatnonzero(codes == _NEWLINE)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [n]))
    nonempty = ends > starts
    ends[nonempty] -= codes[ends[nonempty] - 1] == _CR  # CRLF line ends
    lengths = ends - starts
    odd_char = np.concatenate(([0], np.cumsum(codes > 63)))
    is_odd = odd_char[ends] - odd_char[starts] > 0
    odd = [text[s:e] for s, e in zip(starts[is_odd].tolist(), ends[is_odd].tolist())]
    odd_lines = (np.flatnonzero(is_odd) + 1).tolist()
    clean = ~is_odd & (lengths > 0)
    too_long = int(np.count_nonzero(clean & (lengths > max_length)))
    too_short = int(np.count_nonzero(clean & (lengths < MIN_LENGTH)))
    keep = clean & (lengths <= max_length) & (lengths >= MIN_LENGTH)
    s, ln = starts[keep], lengths[keep]
    col = np.arange(max_length)
    mat = codes[np.minimum(s[:, None] + col, max(n - 1, 0))]
    mat[col >= ln[:, None]] = 0
    return (mat, too_long, too_short), (odd, odd_lines)


def _pack(mat: np.ndarray, skipped: Skipped) -> WordList:
    """Sort and deduplicate zero-padded tile rows (padding sorts before every tile)."""
    width = mat.shape[1]
    if mat.shape[0] == 0 or width == 0:
        return WordList(np.zeros(0, np.uint8), np.zeros(1, np.int64), skipped)
    rows = np.sort(np.ascontiguousarray(mat).view(f"S{width}").ravel())
    if rows.size > 1:
        rows = rows[np.concatenate(([True], rows[1:] != rows[:-1]))]
    mat = rows.view(np.uint8).reshape(-1, width)
    lengths = np.count_nonzero(mat, axis=1)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return WordList(mat[mat != 0], offsets, skipped)


def words_to_list(words: Iterable[str], alphabet: Alphabet, max_length: int) -> WordList:
    """Tiles of words given as strings (same rules as a word list file; a skipped word is named by
    its place among them, from 1, as a line of a file is)."""
    tally = _Tally(alphabet)
    lines = []
    for place, w in enumerate(words, 1):
        if not isinstance(w, str):
            raise LexiconFormatError(f"words must be strings, got {w!r}")
        if "\n" in w or "\r" in w:
            tally.add(place, w)
            lines.append("")  # (a blank line keeps the places of the words after it)
        else:
            lines.append(w)
    return _parse("\n".join(lines), alphabet, max_length, "<words>", tally)
