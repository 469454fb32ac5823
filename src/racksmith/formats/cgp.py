"""CGP, the one-line position format: ``<board> <racks> <scores> <zero-turns> [opcode value; ...]``.

Parsing here is syntax plus the alphabet; the position checks tile counts against the distribution.
The ``ld`` (letter distribution), ``bdn`` (board), ``var`` (variant) and ``lex`` (lexicon) opcodes
(or ``l1`` and ``l2``, MAGPIE's lexicons of each player, when they name the same one)
choose the ruleset and lexicon when the caller names none (:func:`cgp_ruleset`, :func:`cgp_lexicon`,
:mod:`racksmith.formats.naming`); they are names from data, looked up without ever opening a file,
and a name racksmith cannot play is refused naming it, as is a ``bdn`` naming another board than
the ruleset ``ld`` names has. A ``var`` racksmith does not play, and an ``mcnz``, ``bb`` or ``etl``
other than the ruleset's, are refused whatever the ruleset.
"""
from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import _args
from ..rules.alphabet import BLANK_CHARS, Tiles, is_typing_slip, twin, without_twin_hint
from ..errors import CGPError, RacksmithError
from ..rules.ruleset import Ruleset, available_rulesets, get_ruleset, is_shipped
from .naming import SETTLED_BY_RULESET, named_board, named_ruleset, record_name, rulesets_that_read, same_board

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

    from ..lexicon import Lexicon


@dataclass(frozen=True, slots=True)
class ParsedCGP:
    board: np.ndarray  #: uint8 (rows, cols)
    racks: tuple[Tiles, ...]
    scores: tuple[int, ...]
    zero_turns: int
    opcodes: tuple[tuple[str, str], ...]


def parse_cgp(text: str, ruleset: Ruleset) -> ParsedCGP:
    """Read a CGP line with ``ruleset``'s board and alphabet. A letter that is not the ruleset's
    raises :class:`CGPError` naming the shipped rulesets that read the line (``error.rulesets``)."""
    _check_text(text)
    if not text.isascii():  # decomposed letters (a base and a combining mark): one each
        text = unicodedata.normalize("NFC", text)
    try:
        return _parse_cgp(text, ruleset)
    except CGPError as e:
        if not e.letter or any(m in str(e) for m in _SPELLING_SLIPS):
            raise  # (not a letter of another ruleset: a slip in writing this one's tiles)
        part = _part_of_tile(str(e), ruleset)
        if part:  # (Catalan Q alone: the first letter of its QU tile, not a letter of English)
            raise CGPError(f"{e} ({part})", letter=True) from None
        fits = rulesets_that_read(lambda rs: _reads(text, rs), ruleset)
        if not fits and is_typing_slip(str(e)):
            # the letter is the other script's twin of one of this alphabet's (a Latin K in a Russian
            # rack), or another form of one (a fullwidth Ａ): a slip in typing, not a game of another ruleset
            raise CGPError(str(e), letter=True) from None
        if not fits:  # no ruleset racksmith ships: a ruleset file's game (Polish, French accents...)
            names = ", ".join(rs.name for rs in available_rulesets())
            raise CGPError(f"{e}; its letters are in no ruleset racksmith ships ({names}): pass a ruleset file "
                           "whose alphabet has them", letter=True, param="ruleset") from None
        names = " or ".join(repr(n) for n in fits)
        # a position in another ruleset's letters that its twins would not spell in this one's is no
        # keyboard slip: no twin hint then
        message = str(e) if _reads(twin(text), ruleset) else without_twin_hint(str(e))
        err = CGPError(f"{message}; the position is spelled in the letters of {names}: pass "
                       + " or ".join(f"ruleset={n!r}" for n in fits), letter=True, rulesets=fits, param="ruleset")
        raise err from None


#: messages of tiles written wrong (brackets, mixed case): no other ruleset's letters to point to
_SPELLING_SLIPS = ("unclosed '[' in", "empty brackets '[]'", "mixes capitals and small letters")
_UNKNOWN_LETTER = re.compile(r"letter '([^']+)' is not in the alphabet")


def _part_of_tile(message: str, ruleset: Ruleset) -> str:
    """Where the letter an error names is not one of ``ruleset``'s but begins its tiles of several
    letters (Catalan Q, of QU), what to write for them; else ""."""
    m = _UNKNOWN_LETTER.search(message)
    if not m:
        return ""
    up = m.group(1).upper()
    tiles = [x for x in ruleset.alphabet.letters if len(x) > 1 and x.startswith(up)]
    if not tiles:
        return ""
    return (f"{' and '.join(tiles)} {'is one tile' if len(tiles) == 1 else 'are one tile each'} of {ruleset.name}: "
            f"write {', '.join(f'{x} or [{x}]' for x in tiles)}")


def cgp_racks_known(board: np.ndarray, racks: "tuple[Tiles, ...]", ruleset: Ruleset,
                    sizes: "tuple[int, ...] | None" = None) -> tuple[bool, ...]:
    """Which racks of a CGP are known. The format has no mark for a rack not known: it writes such
    a rack empty (``EEIIORS/``, as Woogles writes an opponent's). An empty rack of a player other
    than the one to move is not known, unless no tile is unseen (every tile is on the board or a
    rack given: none can be on his, he went out). An empty rack of the player to move is not known
    either when the tiles neither on the board nor on a rack given are more than the other racks
    not known can hold: the bag then holds tiles, so he drew and holds some (a record that shows
    his rack only in part writes it empty). Otherwise (those tiles fit on the other racks: the bag
    is empty) his empty rack is a known empty one: he went out and the game is over.

    ``sizes``: each rack's size, as an ``rsz`` opcode gives them (:func:`cgp_rack_sizes`): a
    rack is known when it is written whole (as many tiles as its size), else not."""
    if sizes is not None:
        return tuple(len(r) == n for r, n in zip(racks, sizes))
    given = [bool(r) for r in racks]
    unseen = ruleset.total_tiles - int(np.count_nonzero(board)) - sum(len(r) for r in racks)
    if unseen <= 0:  # no tile for a rack not written: an empty one is empty
        return (True,) * len(racks)
    if given[0]:
        return tuple(i == 0 or g for i, g in enumerate(given))
    room = ruleset.rack_size * given[1:].count(False)  # what the other racks not known can hold
    return (unseen <= room, *given[1:])


#: the opcode racksmith writes each rack's size in (``rsz 7/1/1;``, in the order of the racks)
#: where the racks written would read back with other sizes (:meth:`Position.cgp`): CGP has no
#: field for it
RACK_SIZES_OPCODE = "rsz"


def rack_sizes_opcode(sizes: "Iterable[int]") -> tuple[str, str]:
    """The ``rsz`` opcode of each rack's size: ``("rsz", "7/1/1")``."""
    return RACK_SIZES_OPCODE, "/".join(str(int(n)) for n in sizes)


def cgp_rack_sizes(opcodes: "Iterable[tuple[str, str]]", racks: "tuple[Tiles, ...]",
                   ruleset: Ruleset) -> tuple[int, ...] | None:
    """Each rack's size as a CGP's ``rsz`` opcode gives it (``rsz 7/1/1;``: one a rack, in the
    order of the racks, each from the tiles written on it to a full rack), or None when it has
    none; a value that is not that is a :class:`CGPError`."""
    value = opcode(opcodes, RACK_SIZES_OPCODE)
    if value is None:
        return None
    parts = value.strip().split("/")
    if len(parts) != len(racks) or not all(_COUNT_RE.fullmatch(x) and len(x) <= 3 for x in parts):
        raise CGPError(f"CGP '{RACK_SIZES_OPCODE} {_clip(value)}' must give each rack's size, one a rack "
                       f"({len(racks)}) separated by '/', in ASCII digits (e.g. '{RACK_SIZES_OPCODE} "
                       f"{'/'.join([str(ruleset.rack_size)] * len(racks))}')")
    sizes = tuple(int(x) for x in parts)
    for i, (n, rack) in enumerate(zip(sizes, racks)):
        if n > ruleset.rack_size:
            raise CGPError(f"CGP '{RACK_SIZES_OPCODE} {_clip(value)}': rack {i + 1} holds {n} tiles; a rack holds "
                           f"at most {ruleset.rack_size}")
        if n < len(rack):
            raise CGPError(f"CGP '{RACK_SIZES_OPCODE} {_clip(value)}': rack {i + 1} is written with {len(rack)} "
                           f"tiles, more than the {n} it holds")
    return sizes


def _check_text(text: object) -> None:
    """A CGP is text: anything else is refused saying what it is, and how to make text of it."""
    if isinstance(text, str):
        return
    if isinstance(text, (bytes, bytearray, memoryview)):
        how = ": decode it first (data.decode('utf-8'))"
    elif isinstance(text, os.PathLike):
        how = ": read the file first (Path(...).read_text(encoding='utf-8')), one position a line"
    elif isinstance(text, (list, tuple)):
        how = ": give one line (for several positions, one call each)"
    else:
        how = ""
    raise CGPError(f"a CGP is text (str), got {_args.show(text)}{how}")


def _reads(text: str, ruleset: Ruleset) -> bool:
    try:
        _parse_cgp(text, ruleset)
    except CGPError:
        return False
    return True


def opcode(opcodes: "Iterable[tuple[str, str]]", name: str) -> str | None:
    """The value of the first opcode called ``name`` (None when absent or empty)."""
    return next((v for k, v in opcodes if k == name and v), None)


def cgp_ruleset(text: str) -> Ruleset:
    """The ruleset a CGP line names by its ``ld`` (letter distribution), ``bdn`` (board), ``var``
    (variant) and ``lex`` (lexicon) opcodes, read as
    :func:`~racksmith.formats.naming.named_ruleset` reads them: ``ld`` a shipped ruleset's name or
    alias (``english_super``, a ``SuperCrosswordGame`` board or a ``classic_super`` variant is
    Super Scrabble), else the ruleset of the lexicon ``lex`` names when racksmith ships it, else
    English. A name racksmith cannot play (``ld french``, ``lex OSPS49``, ``var wordsmog``) is a
    :class:`CGPError` naming it. Only names are looked up, never a file."""
    _check_text(text)
    fields = text.strip().split(None, 4)
    try:
        opcodes = _parse_opcodes(fields[4]) if len(fields) > 4 else ()
    except CGPError:
        opcodes = ()
    if not opcodes:  # (no name to look up: English)
        return get_ruleset("english")
    rs = cgp_named_ruleset(opcodes)
    return rs if rs is not None else get_ruleset("english")


def cgp_named_ruleset(opcodes: "Iterable[tuple[str, str]]", known: "Iterable[Ruleset]" = ()) -> Ruleset | None:
    """The ruleset a CGP's ``ld``, ``bdn``, ``var`` and ``lex`` opcodes name, read by
    :func:`~racksmith.formats.naming.named_ruleset` (``known``: the caller's rulesets, looked up
    first), or None when they name none. A name racksmith cannot play is a :class:`CGPError`, and
    so is a ``bdn`` naming a board other than the one of the ruleset ``ld`` names (``ld english;
    bdn SuperCrosswordGame;``: Macondo plays the 100 English tiles on the Super board, which no
    ruleset of racksmith's does)."""
    names = _names(opcodes)
    known = tuple(known)
    rs = named_ruleset(**names, known=known, error=_refused)
    _check_board_and_tiles(names["distribution"], names["layout"], known)
    return rs


def _check_board_and_tiles(distribution: str, layout: str, known: "tuple[Ruleset, ...]") -> None:
    """A ``bdn`` and an ``ld`` that name a board and tiles no ruleset plays together are refused
    (rather than played with the tiles of the board's ruleset, or on the board of the tiles')."""
    if not distribution.strip() or not layout.strip():
        return
    board = named_board(layout, known)
    if board is None:
        return
    tiles = named_ruleset(distribution=distribution, known=known, error=_refused)
    if tiles is None or same_board(tiles, board):
        return
    raise CGPError(
        f"CGP 'bdn {_clip(layout.strip())}' and 'ld {_clip(distribution.strip())}' name the {board.rows}x{board.cols} "
        f"board of {board.name} and the {tiles.total_tiles} tiles of {tiles.name}, and racksmith has no ruleset "
        f"that plays those tiles on that board: drop the opcode that is wrong, or pass a ruleset file with "
        f"that board and those tiles",
        param="ruleset",
    )


def _same_tiles(a: Ruleset, b: Ruleset) -> bool:
    """Do ``a`` and ``b`` play the same tiles (letters, counts, values) by the rules a CGP has no
    opcode for (the rack's size, the end of the game, Эрудит's star reclamation)?"""
    return (a.alphabet.letters, a.counts, a.values, a.rack_size, a.end_rule, a.star_reclamation) == (
        b.alphabet.letters, b.counts, b.values, b.rack_size, b.end_rule, b.star_reclamation)


#: the opcodes that name the game's rules, and the field of :func:`~racksmith.formats.naming.named_ruleset` each is
_NAME_OPCODES = {"ld": "distribution", "bdn": "layout", "var": "variant", "lex": "lexicon"}


def _names(opcodes) -> dict[str, str]:
    names = {f: opcode(opcodes, k) or "" for k, f in _NAME_OPCODES.items()}
    names["lexicon"] = shared_lexicon(opcodes) or ""
    return names


def cgp_lexicon_names(opcodes: "Iterable[tuple[str, str]]") -> tuple[str | None, str | None]:
    """The lexicon a CGP's opcodes name for each of the two players: ``lex`` for both, overridden
    by ``l1`` for the first and ``l2`` for the second, as MAGPIE reads them (MAGPIE writes
    ``l1 NWL20; l2 CSW21;`` in place of ``lex`` when the players' lexicons differ); None where none is
    named. racksmith plays both players with one lexicon: these are names to tell about."""
    opcodes = tuple(opcodes)
    both = opcode(opcodes, "lex")
    return opcode(opcodes, "l1") or both, opcode(opcodes, "l2") or both


def shared_lexicon(opcodes: "Iterable[tuple[str, str]]") -> str | None:
    """The lexicon a CGP names for both players (:func:`cgp_lexicon_names`, case ignored), or None:
    none named, or another for each (``l1 NWL20; l2 CSW21;``)."""
    first, second = cgp_lexicon_names(opcodes)
    if first is None or second is None or first.strip().lower() != second.strip().lower():
        return None
    return first


def _refused(field_: str, message: str) -> CGPError:
    return CGPError(f"CGP {message}", param="ruleset" if field_ in SETTLED_BY_RULESET else None)


def cgp_lexicon(opcodes: "Iterable[tuple[str, str]]", ruleset: Ruleset) -> "Lexicon | None":
    """The lexicon a CGP's ``lex`` opcode names (or its ``l1`` and ``l2`` both: :func:`shared_lexicon`)
    when racksmith ships it and it is spelled in the ruleset's letters, loaded; None otherwise (the
    ruleset's own lexicon is used: a lexicon racksmith does not ship, such as ``NWL20``, must be
    given by the caller, and so must one lexicon for players whose ``l1`` and ``l2`` differ)."""
    from ..lexicon.embedded import EMBEDDED, default_ruleset
    from ..lexicon.load import load_embedded

    lex = shared_lexicon(opcodes)
    name = lex.strip().lower() if lex else ""
    if name not in EMBEDDED or name == ruleset.lexicon:
        return None
    if default_ruleset(name).alphabet.letters != ruleset.alphabet.letters:
        return None
    return load_embedded(name, ruleset)


def _parse_cgp(text: str, ruleset: Ruleset) -> ParsedCGP:
    if not isinstance(text, str) or not text.strip():
        raise CGPError("empty CGP: expected '<board> <racks> <scores> <zero-turns> [opcodes]'")
    fields = text.strip().split(None, 4)
    if len(fields) < 4:
        raise CGPError(
            f"CGP has {len(fields)} field(s), needs at least 4: '<board> <racks> <scores> <zero-turns>' "
            f"(e.g. '15/15/.../15 AEINRST/ 0/0 0')"
        )
    board_s, racks_s, scores_s, zero_s = fields[:4]
    board = _parse_board(board_s, ruleset)
    rack_parts = racks_s.split("/")
    if len(rack_parts) < 2:
        raise CGPError(f"CGP racks {racks_s!r} must name one rack per player, separated by '/' (e.g. 'AEINRST/')")
    racks = []
    for i, rp in enumerate(rack_parts):
        try:
            rack = ruleset.alphabet.tiles(rp)
        except RacksmithError as e:
            raise CGPError(f"CGP rack {i + 1} {rp!r}: {e}", letter=True) from None
        if len(rack) > ruleset.rack_size:
            raise CGPError(f"CGP rack {i + 1} {rp!r} has {len(rack)} tiles; a rack holds at most {ruleset.rack_size}")
        racks.append(rack)
    score_parts = scores_s.split("/")
    if len(score_parts) != len(racks):
        raise CGPError(f"CGP scores {scores_s!r} must give one score per rack ({len(racks)} racks)")
    scores = tuple(_score(part, i, scores_s) for i, part in enumerate(score_parts))
    zero_turns = _zero_turns(zero_s, ruleset)
    opcodes = _parse_opcodes(fields[4] if len(fields) > 4 else "")
    _check_rules(opcodes, ruleset)
    return ParsedCGP(board, tuple(racks), scores, zero_turns, opcodes)


#: a score: ASCII digits, a '-' before a negative one (a game's penalties can take a score below 0;
#: MAGPIE writes it so); int() alone would also read '+1', '1_0', '１６' or Arabic-Indic digits
_SCORE_RE = re.compile(r"-?[0-9]+")
#: a zero-turn count: ASCII digits
_COUNT_RE = re.compile(r"[0-9]+")


def _score(part: str, i: int, scores_s: str) -> int:
    """Score ``i`` of the scores field ``scores_s``, ``part``: a whole number in ASCII digits."""
    if _SCORE_RE.fullmatch(part):
        try:
            return int(part)
        except ValueError:  # (more digits than int() reads)
            raise CGPError(f"CGP scores {_clip(scores_s)!r}: score {i + 1} has {len(part.lstrip('-'))} digits, "
                           "more than a score has") from None
    raise CGPError(f"CGP scores {_clip(scores_s)!r} must be integers separated by '/': score {i + 1} "
                   f"{_clip(part)!r} is not one (ASCII digits, '-' before a negative score: '357/-12')")


def _zero_turns(zero_s: str, ruleset: Ruleset) -> int:
    """The zero-turn field: a whole number of turns in ASCII digits, at most the ruleset's limit."""
    if zero_s.startswith("-") and _COUNT_RE.fullmatch(zero_s[1:]):
        raise CGPError(f"CGP zero-turn count {_clip(zero_s)!r} must not be negative")
    if not _COUNT_RE.fullmatch(zero_s):
        raise CGPError(f"CGP zero-turn count {_clip(zero_s)!r} must be an integer: the number of consecutive "
                       "scoreless turns in ASCII digits ('0' when the last turn scored)")
    limit = ruleset.zero_turn_limit
    digits = zero_s.lstrip("0")
    # (at the limit: a game just ended by scoreless turns; int() is not asked to read thousands of digits)
    if len(digits) > len(str(limit)) or int(digits or "0") > limit:
        raise CGPError(
            f"CGP zero-turn count {_clip(zero_s)!r}: the {ruleset.name} ruleset ends the game after "
            f"{limit} consecutive scoreless turns, so the count is at most {limit}"
        )
    return int(digits or "0")


#: the opcodes that give a rule a ruleset has: (opcode, the ruleset's field, what the rule says)
_RULE_OPCODES = (
    ("mcnz", "zero_turn_limit", "ends the game after {} consecutive scoreless turns"),
    ("bb", "bingo_bonus", "gives {} points for a bingo"),
    ("etl", "exchange_limit", "allows an exchange while the bag holds at least {}"),
)


def _check_rules(opcodes, ruleset: Ruleset) -> None:
    """A position is played by its ruleset's rules: a ``var`` racksmith does not play, and an
    ``mcnz``, ``bb`` or ``etl`` other than the ruleset's, are refused (they would change every answer)."""
    if not opcodes:
        return
    variant = opcode(opcodes, "var")
    if variant:  # (no variant: nothing named_ruleset refuses)
        named_ruleset(variant=variant, error=_refused)
    for name, attr, says in _RULE_OPCODES:
        value = opcode(opcodes, name)
        if value is None:
            continue
        if not _COUNT_RE.fullmatch(value.strip()) or len(value.strip()) > 6:  # (ASCII digits, as the counts)
            raise CGPError(f"CGP '{name} {_clip(value)}' must be a whole number")
        if int(value) != getattr(ruleset, attr):
            has = getattr(ruleset, attr)
            if name == "etl":
                has = f"{has} tile{'s' if has != 1 else ''}"
            raise CGPError(
                f"CGP '{name} {value.strip()}': the {ruleset.name} ruleset {says.format(has)}, and "
                f"racksmith plays a position by its ruleset's rules (give a ruleset file with {attr} = {int(value)})"
            )


def _clip(text: str, size: int = 40) -> str:
    return text if len(text) <= size else text[: size - 3] + "..."


def _parse_board(board_s: str, ruleset: Ruleset) -> np.ndarray:
    rows = board_s.split("/")
    if len(rows) != ruleset.rows:
        hint = " (a 21x21 board: use the 'super' ruleset)" if len(rows) == 21 else ""
        raise CGPError(
            f"CGP board has {len(rows)} rows; the {ruleset.name} board has {ruleset.rows}{hint}"
        )
    board = _plain_board(rows, ruleset)
    if board is not None:
        return board
    board = np.zeros((ruleset.rows, ruleset.cols), dtype=np.uint8)
    a = ruleset.alphabet
    for r, row in enumerate(rows):
        c = 0
        i = 0
        joined: list[str] = []  # multi-character tiles read without brackets (Catalan NY)
        if not row.isascii():
            row = unicodedata.normalize("NFC", row)
        while i < len(row):
            ch = row[i]
            if ch.isdecimal() and ch not in _DIGITS:  # (int() would read '٣' or '３' as 3)
                raise CGPError(f"CGP board row {r + 1} {_clip(row)!r}: a run of empty squares is written in ASCII "
                               f"digits (0-9), not {ch!r}")
            if ch.isdecimal():
                j = i
                while j < len(row) and row[j].isdecimal():
                    j += 1
                if j - i > 2:  # boards are at most 26 wide (and int() refuses thousands of digits)
                    raise CGPError(f"CGP board row {r + 1}: a run of {j - i} digits is more empty squares than a board has")
                c += int(row[i:j])
                i = j
                continue
            try:  # a tile of several characters: '[CH]', or one that reads no other way without them (NY)
                tok, i, bracketed = a._read_at(row, i)
            except RacksmithError as e:
                raise CGPError(f"CGP board row {r + 1} {row!r}: {e}") from None
            if not bracketed and len(tok.upper()) > 1 and tok not in joined:
                joined.append(tok)
            if tok in BLANK_CHARS:
                raise CGPError(f"CGP board row {r + 1} {row!r}: a blank on the board is the lowercase letter it stands for")
            if c >= ruleset.cols:
                raise CGPError(f"CGP board row {r + 1} {row!r} is longer than {ruleset.cols} squares")
            try:
                board[r, c] = a.tile(tok)
            except RacksmithError as e:
                raise CGPError(f"CGP board row {r + 1} {row!r}: {e}", letter=True) from None
            c += 1
        if c != ruleset.cols:
            raise CGPError(f"CGP board row {r + 1} {row!r} covers {c} squares; the {ruleset.name} board is {ruleset.cols} wide"
                           + width_hint(row, joined, a))
    return board


#: the value of each ASCII digit
_DIGITS = {str(d): d for d in range(10)}


def _plain_board(rows: "list[str]", ruleset: Ruleset) -> "np.ndarray | None":
    """The board of rows written one character a square (letters of one character, runs of empty
    squares in ASCII digits), read with a table of those characters; None for anything else (a
    bracket, a letter of several characters, a mistake), which :func:`_parse_board` reads the
    long way and says what is wrong with."""
    a = ruleset.alphabet
    if a._multi or a._lower_multi:
        return None
    chars = a._char_tiles  # (what Alphabet.tile read each character as; no blank '?' or '*')
    digits = _DIGITS
    cols = ruleset.cols
    buf = bytearray(len(rows) * cols)
    start = 0
    for row in rows:
        if not row.isascii():  # (as _parse_board reads it)
            row = unicodedata.normalize("NFC", row)
        c = start
        end = start + cols
        run = 0  # digits read of a run of empty squares
        empty = 0
        for ch in row:
            t = chars.get(ch)
            if t is None:
                d = digits.get(ch)
                if d is None or run == 2:  # (no more than 2 digits a run)
                    return None
                empty = empty * 10 + d
                run += 1
                continue
            if run:
                c += empty
                run = empty = 0
            if c >= end:
                return None
            buf[c] = t
            c += 1
        if c + empty != end:
            return None
        start = end
    return np.frombuffer(buf, dtype=np.uint8).reshape(len(rows), cols)


def width_hint(row: str, joined: "list[str]", a) -> str:
    """Why a row may cover another number of squares than it seems to: the multi-character
    tiles it spells without brackets, read as separate tiles (CH) or as one (NY)."""
    hints = []
    split = a.unbracketed(row)
    if split:
        hints.append(f"{', '.join(split)} without brackets {'is' if len(split) == 1 else 'are'} separate tiles "
                     f"({', '.join('+'.join(a.split(x)) for x in split)}): write {', '.join(f'[{x}]' for x in split)} "
                     f"for the tile{'s' if len(split) > 1 else ''}")
    if joined:
        hints.append(f"{', '.join(joined)} {'is one tile' if len(joined) == 1 else 'are one tile each'}")
    return f" ({'; '.join(hints)})" if hints else ""


def _parse_opcodes(text: str) -> tuple[tuple[str, str], ...]:
    """The opcodes, each ``name value;``. The last may go without its ``;`` when its value is one
    word (``lex CSW21``), as Macondo reads it; ``-lex X`` is MAGPIE's command line, not CGP.

    One pass over the text, split at every ``;`` (a value holds no ``;``: the format has no
    quoting), so that a line of a hundred thousand opcodes is read in linear time."""
    ops = []
    text = text.strip()
    if not text:
        return ()
    pieces = text.split(";")
    last = len(pieces) - 1
    start = 0  # where the piece begins in ``text``
    for i, piece in enumerate(pieces):
        chunk = piece.strip()
        if chunk.startswith("-") and chunk[1:2].isalpha():
            rest = text[start:].lstrip()  # the rest of the line, as the message shows it
            name = rest.split(None, 1)[0][1:]
            raise CGPError(
                f"CGP opcode {_clip(rest)!r}: '-{_clip(name, 20)}' is a MAGPIE command-line option, not an opcode "
                f"(write '{_clip(name, 20)} VALUE;')"
            )
        if i == last and len(chunk.split(None, 2)) > 2:  # no ';' after it: one word of value at most
            raise CGPError(f"CGP opcode {_clip(chunk)!r} must end with ';'")
        start += len(piece) + 1
        if not chunk:
            continue
        name, _, value = chunk.replace("\t", " ").partition(" ")  # a tab separates too
        ops.append((name, value.strip()))
    return tuple(ops)


def format_board(board: np.ndarray, ruleset: Ruleset) -> str:
    """The board field: runs of empty squares as numbers, tiles as the alphabet writes them (a
    letter of several characters in brackets, ``[LL]``; two Ls are ``LL``, as MAGPIE writes them)."""
    a = ruleset.alphabet
    # what Alphabet.decode writes for each tile; a board of other numbers than ints (floats) has
    # each tile read by decode, which says which are no tiles
    spelled = a._spelled if board.dtype.kind in "iub" else {}
    rows = []
    for row in board.tolist():
        out = []
        run = 0
        for t in row:
            if not t:
                run += 1
                continue
            if run:
                out.append(str(run))
                run = 0
            s = spelled.get(t)
            if s is None:  # a number that is no tile: decode says why
                s = a.decode([t])
            out.append(s)
        if run:
            out.append(str(run))
        rows.append("".join(out))
    return "/".join(rows)


def format_cgp(board, racks, scores, zero_turns, opcodes, ruleset: Ruleset) -> str:
    """A CGP line; its opcodes are ``opcodes`` with an ``ld`` naming ``ruleset`` when they would
    not lead a reader to it (:func:`naming_opcodes`)."""
    a = ruleset.alphabet
    opcodes = naming_opcodes(opcodes, ruleset)
    if any(op[0] == RACK_SIZES_OPCODE for op in opcodes[:-1]):  # (the racks' sizes last, as a line read back has them)
        opcodes = (*(op for op in opcodes if op[0] != RACK_SIZES_OPCODE),
                   *[op for op in opcodes if op[0] == RACK_SIZES_OPCODE][-1:])
    parts = [
        format_board(board, ruleset),
        "/".join(a.rack_string(r, blanks_last=True) for r in racks),
        "/".join(str(s) for s in scores),
        str(zero_turns),
    ]
    parts.extend(f"{k} {v};" if v else f"{k};" for k, v in opcodes)
    return " ".join(parts)


def naming_opcodes(opcodes, ruleset: Ruleset) -> tuple[tuple[str, str], ...]:
    """``opcodes`` such that a CGP reader given no ruleset reads the line with ``ruleset``
    (:func:`cgp_ruleset`): as they are when they lead to it already (no opcode for English,
    ``lex ru-erudit`` for Эрудит), else with ``ld <name>;`` first in place of any other ``ld``.
    Russian and Эрудит share their letters, so a line without it was read as Russian (other
    values, another board), and Super Scrabble's as English. A ruleset file's positions are read
    with that file, which no name can name: their opcodes get the rules the CGP format has words
    for (``bb``, ``etl``, ``mcnz``) where the file's differ from those of the ruleset a reader
    would take, and ``ld <the file's name>;`` where its tiles (letters, counts, values) or the
    rules the format has no word for differ (with ``bdn <the file's name>;`` too where its board
    does), as MAGPIE writes ``ld french;``: so that the line read without the file is refused
    rather than played by other rules (and MAGPIE, reading them, plays those rules). Read with
    the file, those names are the file's and the line is read as written."""
    opcodes = tuple(opcodes)
    try:
        key = (id(ruleset), opcodes)
        hit = _naming.get(key)
    except TypeError:  # (opcodes that are not text: not kept)
        return _naming_opcodes(opcodes, ruleset)
    if hit is not None and hit[0] is ruleset:
        return hit[1]
    named = _naming_opcodes(opcodes, ruleset)
    if len(_naming) >= _NAMING_KEPT:
        _naming.clear()
    _naming[key] = (ruleset, named)  # (the ruleset kept alive while its id is a key; rulesets are frozen)
    return named


#: naming_opcodes's answers, by (id(ruleset), opcodes): the same for every position of a game
_naming: dict[tuple, tuple] = {}
_NAMING_KEPT = 64


def _naming_opcodes(opcodes: tuple, ruleset: Ruleset) -> tuple[tuple[str, str], ...]:
    if not is_shipped(ruleset):
        try:
            base = cgp_named_ruleset(opcodes) or get_ruleset("english")
        except CGPError:
            return opcodes
        given = {k for k, _ in opcodes}
        rules = tuple((name, str(getattr(ruleset, attr))) for name, attr, _ in _RULE_OPCODES
                      if name not in given and getattr(ruleset, attr) != getattr(base, attr))
        other_board = not same_board(ruleset, base)
        if other_board or not _same_tiles(ruleset, base):  # named by the file's name, which only the file plays
            name = record_name(ruleset)
            named = (("ld", name), ("bdn", name)) if other_board else (("ld", name),)
            opcodes = named + tuple((k, v) for k, v in opcodes if k != "ld" and not (other_board and k == "bdn"))
        return opcodes + rules
    try:
        named = cgp_named_ruleset(opcodes)
    except CGPError:
        named = None
    if (named.name if named is not None else "english") == ruleset.name:
        return opcodes
    return (("ld", record_name(ruleset)),) + tuple((k, v) for k, v in opcodes if k != "ld")

