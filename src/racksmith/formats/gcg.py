"""GCG game records: read (every event kind, line numbers in errors), collect errors or raise, write.

Reading is syntax plus the alphabet: each event becomes a :class:`GCGEvent` with its move parsed
and its kind an :class:`~racksmith.core.turns.EventKind` (the one enum of event kinds, shared with
:mod:`racksmith.play.game`).
Whether the record is consistent (legal plays, scores, running totals) is :mod:`racksmith.review.replay`'s
job. The reader goes through a visitor, as python-chess reads PGN: :class:`GCGVisitor` receives
pragmas, events and notes; :class:`GameBuilder` builds a :class:`GCGGame`, and with ``strict=False``
keeps reading past errors and lists them in ``game.errors``.

The dialect written is the one of the MAGPIE fixtures::

    #character-encoding UTF-8
    #player1 p1 Full Name
    >p1: AEKNOQR 8D KRONA +28 28

A play that takes stars back from the board (Эрудит's star reclamation, where the ruleset allows
it) writes each after the word, as :meth:`~racksmith.core.move.Move.gcg` does:
``>p1: ДМО 7F ДоМ *8H=О +9 14`` (the real О put on 8H, its star played as the о). Other programs,
whose rules have no such move, refuse the line rather than misread it.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, TypeVar, overload

from .. import _args
from ..core.move import Move
from ..core.turns import TURN_KINDS, EventKind
from ..errors import GCGError, RacksmithError
from ..rules.alphabet import LETTER_MASK, THROUGH, Alphabet
from ..rules.ruleset import Ruleset, find_ruleset, get_ruleset
from .naming import SETTLED_BY_RULESET, named_board, named_ruleset, same_board

__all__ = [
    "EventKind",
    "GCGEvent",
    "GCGGame",
    "GCGPlayer",
    "GCGVisitor",
    "GameBuilder",
    "MAX_GCG_POINTS",
    "TURN_KINDS",
    "decode_gcg",
    "format_gcg",
    "gcg_nicks",
    "max_players",
    "parse_event",
    "parse_gcg",
    "read_gcg",
]


#: the rack Quackle writes on a ``(challenge)`` line when it does not know the player's next rack
UNKNOWN_RACK = "UNKNOWN"
_RACK_RE = re.compile(r"^[^\s()+\-.\d#>:]+$")
_SCORE_RE = re.compile(r"^[+\-]?[0-9]{1,9}$")  #: a score or running total (9 digits: int() never sees a huge one)
#: the most points a score or running total of a record may have (9 digits), either sign
MAX_GCG_POINTS = 999_999_999
#: a negative score as Quackle writes it, a '+' before the minus: a time penalty (``(time) +-10``, read as
#: Macondo reads it, the penalty -10) and a rack penalty at the end of a game ended by scoreless turns
#: (``>Jim: EILNORS (EILNORS) +-7 21``, Quackle's ``" +" << score``): read as -10 and -7, on those lines only
_PLUS_MINUS_RE = re.compile(r"^\+-[0-9]{1,9}$")
_PLAYER_RE = re.compile(r"^player(\d+)$")
#: what ends a line of text (str.splitlines' breaks): never inside a one-line field of a record
_BREAK = re.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_HIDDEN_EXCHANGE_RE = re.compile(r"^[0-9]+$")
_RECLAIM_RE = re.compile(r"^\*(?:\d{1,2}[A-Za-z]|[A-Za-z]\d{1,2})(?:=\S+)?$")  #: a star taken back: ``*8H=О``


@dataclass(frozen=True, slots=True)
class GCGPlayer:
    nick: str
    name: str = ""


@dataclass(frozen=True, slots=True)
class GCGEvent:
    """One event line. ``score`` is signed (the points the event adds); ``total`` the running total.

    ``move`` is the parsed play, exchange (``None`` when the tiles are hidden: see ``count``) or pass;
    ``tiles`` the letters in parentheses of an end-of-game event (as written).
    """

    nick: str
    kind: EventKind
    score: int
    total: int
    rack: str = ""
    move: Move | None = None
    tiles: str = ""
    count: int = 0  #: tiles exchanged (also when hidden)
    line: int = 0
    note: str = ""
    #: a play as the record wrote it when it names the letters it plays through (``8D FO(L)IA``):
    #: written back so, since only a replay can tell whether they are the board's
    written: str = field(default="", compare=False)

    def action(self) -> str:
        """The event's middle part as GCG writes it: ``8D WO.D``, ``-ABC``, ``-3``, ``-``, ``--``, ``(ABC)``…"""
        k = self.kind
        if k == EventKind.PLAY:
            return self.written or self.move.gcg()
        if k == EventKind.EXCHANGE:
            return self.move.gcg() if self.move is not None else f"-{self.count}"
        if k == EventKind.PASS:
            return "-"
        if k == EventKind.PHONY:
            return "--"
        if k == EventKind.CHALLENGE:
            return "(challenge)"
        if k == EventKind.TIME:
            return "(time)"
        return f"({self.tiles})"

    def text(self) -> str:
        """The event line, in the dialect racksmith writes. A challenge bonus or a time penalty
        without a rack keeps the empty rack field (``>x:  (time) -10 29``), which MAGPIE's reader
        needs; a going-out bonus is written as MAGPIE writes it (``>x: (AB) +8 400``)."""
        empty = " " if self.kind in (EventKind.CHALLENGE, EventKind.TIME) else ""
        rack = f" {self.rack}" if self.rack else empty
        return f">{self.nick}:{rack} {self.action()} {self.score:+d} {self.total}"


@dataclass(slots=True)
class GCGGame:
    """A game record: players, pragmas (name, value, line) in file order, events, and the errors
    met while reading (only with ``strict=False``)."""

    ruleset: Ruleset
    players: list[GCGPlayer] = field(default_factory=list)
    pragmas: list[tuple[str, str, int]] = field(default_factory=list)
    events: list[GCGEvent] = field(default_factory=list)
    errors: list[GCGError] = field(default_factory=list)

    def pragma(self, name: str, default: str | None = None) -> str | None:
        """The value of the first pragma of that name (``lexicon``, ``title``, ``description``…)."""
        for n, v, _ in self.pragmas:
            if n == name:
                return v
        return default

    @property
    def lexicon_name(self) -> str | None:
        """The lexicon the record names (its ``#lexicon`` pragma), or None."""
        return self.pragma("lexicon")

    def player_index(self, nick: str) -> int:
        """The index of the player with that nick (0 for the first player); GCGError for none."""
        for i, p in enumerate(self.players):
            if p.nick == nick:
                return i
        raise GCGError(f"no player with the nick {nick!r} (players: {', '.join(p.nick for p in self.players)})")

    def final_scores(self) -> dict[str, int]:
        """Each player's last recorded running total (0 for a player with no event)."""
        out = {p.nick: 0 for p in self.players}
        for e in self.events:
            out[e.nick] = e.total
        return out

    def gcg(self) -> str:
        """The record written as GCG text."""
        return format_gcg(self)


class GCGVisitor:
    """Receives what the reader finds, in file order. Override what you need."""

    def begin_game(self, ruleset: Ruleset) -> None:
        """Before the first line: the ruleset the record is read in."""

    def visit_pragma(self, name: str, value: str, line: int) -> None:
        """A pragma (``#name value``) and its line number."""

    def visit_player(self, index: int, player: GCGPlayer, line: int) -> None:
        """A ``#player1``, ``#player2``... pragma: the player's index (0 for ``#player1``)."""

    def visit_event(self, event: GCGEvent) -> None:
        """An event line: a move, an exchange, a pass, a challenge, an end-of-game adjustment..."""

    def visit_note(self, text: str, line: int) -> None:
        """A ``#note`` (its continuation lines joined with newlines)."""

    def handle_error(self, error: GCGError) -> None:
        """Called for each malformed line; raising stops reading (the default)."""
        raise error

    def result(self) -> object:
        """What :func:`parse_gcg` returns once the text is read (None here)."""
        return None


_R = TypeVar("_R", covariant=True)


class _VisitorOf(Protocol[_R]):
    """What :func:`parse_gcg` reads a record through (a :class:`GCGVisitor`, or any object with its
    methods, which it calls with positional arguments), whose ``result()`` is an ``_R``: what the
    call returns."""

    def begin_game(self, ruleset: Ruleset, /) -> None: ...
    def visit_pragma(self, name: str, value: str, line: int, /) -> None: ...
    def visit_player(self, index: int, player: GCGPlayer, line: int, /) -> None: ...
    def visit_event(self, event: GCGEvent, /) -> None: ...
    def visit_note(self, text: str, line: int, /) -> None: ...
    def handle_error(self, error: GCGError, /) -> None: ...
    def result(self) -> _R: ...


_T = TypeVar("_T")

_VISITOR_METHODS = ("begin_game", "visit_pragma", "visit_player", "visit_event", "visit_note", "handle_error", "result")


def _checked_visitor(visitor: object) -> None:
    """``visitor`` of :func:`parse_gcg` and :func:`read_gcg`, checked: None or a :class:`GCGVisitor`."""
    if visitor is not None and not all(callable(getattr(visitor, m, None)) for m in _VISITOR_METHODS):
        raise GCGError(f"visitor must be a GCGVisitor (with the methods {', '.join(_VISITOR_METHODS)}), "
                       f"got {_args.show(visitor)}")


def _rulesets(rulesets) -> tuple[Ruleset, ...]:
    """``rulesets`` of :func:`parse_gcg`, checked: Ruleset objects."""
    out = None if isinstance(rulesets, (str, bytes)) or not isinstance(rulesets, Iterable) else tuple(rulesets)
    if out is None or not all(isinstance(rs, Ruleset) for rs in out):
        raise GCGError(f"rulesets must be a tuple of Ruleset objects (the records' own rulesets), got {_args.show(rulesets)}")
    return out


class GameBuilder(GCGVisitor):
    """Builds a :class:`GCGGame`; notes attach to the event before them (or become header pragmas)."""

    def __init__(self, strict: bool = True):
        self.strict = strict
        self.game: GCGGame | None = None

    def begin_game(self, ruleset: Ruleset) -> None:
        self.game = GCGGame(ruleset)

    def visit_pragma(self, name: str, value: str, line: int) -> None:
        self.game.pragmas.append((name, value, line))

    def visit_player(self, index: int, player: GCGPlayer, line: int) -> None:
        players = self.game.players
        while len(players) <= index:
            players.append(GCGPlayer(f"player{len(players) + 1}"))
        players[index] = player

    def visit_event(self, event: GCGEvent) -> None:
        game = self.game
        if all(p.nick != event.nick for p in game.players):  # no #player pragmas: players in order of play
            game.players.append(GCGPlayer(event.nick))
        game.events.append(event)

    def visit_note(self, text: str, line: int) -> None:
        game = self.game
        if game.events:
            last = game.events[-1]
            joined = f"{last.note}\n{text}" if last.note else text
            game.events[-1] = replace(last, note=joined)
        else:
            game.pragmas.append(("note", text, line))

    def handle_error(self, error: GCGError) -> None:
        if self.strict:
            raise error
        self.game.errors.append(error)

    def result(self) -> GCGGame:
        return self.game


# --- reading ------------------------------------------------------------------------------------
MAX_GCG_BYTES = 16 << 20  #: the largest GCG file read (a game's record is a few kilobytes)


@overload
def read_gcg(path: "str | Path", ruleset: "str | Ruleset | None" = None, *, strict: bool = True, visitor: None = None,
             rulesets: "tuple[Ruleset, ...]" = ()) -> GCGGame: ...
@overload
def read_gcg(path: "str | Path", ruleset: "str | Ruleset | None" = None, *, strict: bool = True,
             visitor: "_VisitorOf[_T]", rulesets: "tuple[Ruleset, ...]" = ()) -> _T: ...
def read_gcg(path: "str | Path", ruleset: "str | Ruleset | None" = None, *, strict: bool = True,
             visitor: "_VisitorOf[object] | None" = None, rulesets: "tuple[Ruleset, ...]" = ()) -> object:
    """Read a GCG file, in the encoding its first line declares (``#character-encoding``), else
    UTF-8, or Latin-1 when it is not valid UTF-8 (see :func:`decode_gcg`), then parse it
    (:func:`parse_gcg`). Every :class:`GCGError` raised for the file's content (its bytes, its
    header, a line of it when ``strict``) names the file: ``GCG file 'PATH': message``, with its
    line; the errors collected in the game's ``errors`` (``strict=False``) carry their line only."""
    from ..lexicon.files import read_bounded

    path = _args.path(path, "path", GCGError)
    _checked_visitor(visitor)  # (the arguments first: their errors are not the file's)
    rulesets = _rulesets(rulesets)
    raw = read_bounded(path, MAX_GCG_BYTES, "GCG file", GCGError)  # (its errors name the file)
    try:
        return parse_gcg(decode_gcg(raw), ruleset, strict=strict, visitor=visitor, rulesets=rulesets)
    except GCGError as e:  # say which file: in a batch of records the line alone does not tell
        raise _in_file(e, Path(path)) from None


def _in_file(error: GCGError, path: Path) -> GCGError:
    """``error`` with its message naming the GCG file ``path`` (once), its line and other
    attributes kept."""
    prefix = f"GCG file {str(path)!r}: "
    if error.message.startswith(prefix):
        return error
    named = GCGError(prefix + error.message, error.line, param=error.param)
    for name, value in vars(error).items():
        if name not in ("line", "message", "param"):
            setattr(named, name, value)
    return named


_ENCODING_RE = re.compile(rb"^#character-encoding[ \t]+(\S+)", re.IGNORECASE)
_LATER_ENCODING_RE = re.compile(r"^#character-encoding[ \t]+(\S+)", re.IGNORECASE)


def decode_gcg(raw: bytes) -> str:
    """The text of a GCG file. A first line ``#character-encoding NAME`` says how the file is
    written, as the format has it: any encoding Python knows (``UTF-8``, ``ISO-8859-1``,
    ``windows-1251``, ``KOI8-R``…, as Quackle reads them), and a file that is not in it is refused
    naming the line. Without one: UTF-8 (a BOM is dropped), UTF-16 or UTF-32 with its BOM, else Latin-1 (the
    format's default). A ``#character-encoding`` line further down is only accepted when it names
    the encoding the file was read in. A file with NUL bytes in it is not a GCG record."""
    from ..lexicon.wordlist import bom_codec, looks_like_utf16

    codec = bom_codec(raw)
    if codec is not None:
        try:
            return raw.decode(codec)
        except UnicodeDecodeError:
            raise GCGError(f"the file starts like {codec.upper()} text but is not; save the record as UTF-8") from None
    bom = raw.startswith(b"\xef\xbb\xbf")
    if bom:
        raw = raw[3:]
    nul = raw.find(b"\x00")
    if nul >= 0:
        if not bom and looks_like_utf16(raw[:4096]):
            raise GCGError("the file looks like UTF-16 text without a byte-order mark; save the record as UTF-8")
        raise GCGError(f"not a GCG record: NUL byte at offset {nul} (a binary file?)")
    first = raw.split(b"\n", 1)[0].strip()
    m = _ENCODING_RE.match(first)
    if m:
        name = m.group(1).decode("latin-1")
        codec = _codec(name)
        if bom and codec != "utf-8":
            raise GCGError(f"the file starts with a UTF-8 byte-order mark but its first line declares {_clip(name)}", 1)
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError as e:
            line = raw[: e.start].count(b"\n") + 1
            if codec != "utf-8" and _utf8_text(raw) is not None:  # re-saved as UTF-8, the old first line kept
                raise GCGError(
                    f"the first line declares the encoding {_clip(name)}, but the file appears to be UTF-8 (byte "
                    f"{raw[e.start]:#04x} is not {_clip(name)} text, and the file reads as UTF-8): remove the "
                    "'#character-encoding' line, or make it '#character-encoding UTF-8'", line) from None
            raise GCGError(
                f"the first line declares the encoding {_clip(name)}, but byte {raw[e.start]:#04x} is not {_clip(name)} "
                "text: save the file in that encoding, or correct its '#character-encoding' line", line) from None
        except UnicodeError:
            text = ""
        if not _LATER_ENCODING_RE.match(text.lstrip("\ufeff").split("\n", 1)[0].strip()):
            raise GCGError(  # an encoding in which the line declaring it does not read (UTF-16, EBCDIC...)
                f"a GCG file cannot be written in {_clip(name)} (its first line does not read back in it): "
                "save the record as UTF-8", 1)
    else:
        try:
            text, codec = raw.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, codec = raw.decode("latin-1"), "iso8859-1"
    if "#character-encoding" in text.lower():
        for number, line in enumerate(text.splitlines(), start=1):
            later = _LATER_ENCODING_RE.match(line.strip())
            if later and not (m and number == 1) and _codec(later.group(1), number) != codec:
                if m:  # (moved there, it would declare an encoding the file is not in: the first line says so)
                    raise GCGError(
                        f"'#character-encoding {_clip(later.group(1))}' on line {number} contradicts the first line, "
                        f"'#character-encoding {_clip(m.group(1).decode('latin-1'))}' (the file was read as "
                        f"{codec.upper()}): a file has one encoding, declared on its first line: remove line {number}",
                        number)
                raise GCGError(
                    f"'#character-encoding {_clip(later.group(1))}' must be the first line of the file "
                    f"(it was read as {codec.upper()}): move it there", number)
    return text


def _utf8_writable(text: str) -> bool:
    """Can ``text`` be written as UTF-8 (no lone surrogate, ``'\\ud800'``)?"""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _utf8_text(raw: bytes) -> "str | None":
    """``raw`` read as UTF-8 when it is UTF-8 with at least one character outside ASCII (so not
    ASCII that any encoding reads alike), else None."""
    if raw.isascii():
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _codec(name: str, line: int = 1) -> str:
    """The Python codec of an encoding's name, or a :class:`GCGError` naming it."""
    import codecs

    try:
        info = codecs.lookup(name)
    except LookupError:
        info = None
    if info is None or not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        raise GCGError(
            f"unknown character encoding {_clip(name)!r}: save the record as UTF-8 "
            "(first line '#character-encoding UTF-8')", line)
    return "utf-8" if info.name == "utf-8-sig" else info.name


#: Python text codecs that are no character set a file is written in
_NOT_CHARSETS = frozenset(("undefined", "idna", "punycode", "unicode-escape", "raw-unicode-escape"))


@overload
def parse_gcg(text: str, ruleset: "str | Ruleset | None" = None, *, strict: bool = True, visitor: None = None,
              rulesets: "tuple[Ruleset, ...]" = (), default: "str | Ruleset | None" = None) -> GCGGame: ...
@overload
def parse_gcg(text: str, ruleset: "str | Ruleset | None" = None, *, strict: bool = True, visitor: "_VisitorOf[_T]",
              rulesets: "tuple[Ruleset, ...]" = (), default: "str | Ruleset | None" = None) -> _T: ...
def parse_gcg(text: str, ruleset: "str | Ruleset | None" = None, *, strict: bool = True,
              visitor: "_VisitorOf[object] | None" = None, rulesets: "tuple[Ruleset, ...]" = (),
              default: "str | Ruleset | None" = None) -> object:
    """Parse GCG text. The ruleset is ``ruleset`` if given, else the one the record's header
    names (``#tile-distribution`` among the shipped rulesets and ``rulesets``, Super Scrabble's
    ``#board-layout`` or ``#game-type``, the language of its ``#lexicon``, or the header notes
    Woogles wrote for the first three, ``#note LetterDistribution: english_super``…: see
    :mod:`racksmith.formats.naming`; names, never files), else ``default`` (None: English). A name racksmith cannot
    play (a distribution it does not ship, another language's lexicon, the WordSmog variant) is a
    :class:`GCGError` naming it and its line, whatever ``strict`` says.

    Returns ``visitor.result()`` (a :class:`GCGGame` for the default :class:`GameBuilder`).
    """
    if not isinstance(text, str):
        hint = ": decode a file's bytes with decode_gcg, or read it with read_gcg" if isinstance(text, (bytes, bytearray)) else ""
        raise GCGError(f"GCG text must be a str, got {type(text).__name__}{hint}")
    _checked_visitor(visitor)
    if visitor is None:
        visitor = GameBuilder(strict=strict)
    rulesets = _rulesets(rulesets)
    as_read = text.lstrip("\ufeff")  # (a record misread in a wrong encoding is told from these characters)
    if not text.isascii():  # letters typed or pasted decomposed (a base letter and a combining mark): one letter each
        text = unicodedata.normalize("NFC", text)
    lines = text.lstrip("\ufeff").splitlines()
    rs = _ruleset_from_header(lines, rulesets, get_ruleset(ruleset) if ruleset is not None else None,
                              get_ruleset(default) if default is not None else None, as_read=as_read)
    visitor.begin_game(rs)
    nicks: list[str] = []
    totals: dict[str, int] = {}  #: each player's last running total (for a line that lacks one)
    declared = False
    note: list[str] | None = None
    note_line = 0

    def flush_note() -> None:
        nonlocal note
        if note is not None:
            visitor.visit_note("\n".join(note).strip("\n"), note_line)
            note = None

    for number, raw_line in enumerate(lines, start=1):
        line = raw_line.strip()
        if not line:
            if note is not None:
                note.append("")
            continue
        if note is not None and raw_line[:1].isspace():
            # an indented line goes on the note: its first space marks it (as the writer marks a line
            # starting with '#' or '>'); the indentation after it is the note's own
            note.append(raw_line[1:].rstrip())
            continue
        if note is not None and _in_note(line):
            note.append(line)  # a '#hashtag' line goes on the note
            continue
        if line.startswith("#"):
            flush_note()
            name, value = _pragma_parts(line)
            if name == "note":
                note, note_line = [value], number
                continue
            m = _PLAYER_RE.match(name)
            if m:
                name = _clip(name)
                nick, full = (value.split(None, 1) + ["", ""])[:2]
                if not nick:
                    visitor.handle_error(GCGError(f"'#{name}' needs a nick (e.g. '#{name} doug Doug Smith')", number))
                    continue
                idx = _player_number(m.group(1)) - 1
                if idx < 0:
                    visitor.handle_error(GCGError(f"players are numbered from 1, got '#{name}'", number))
                    continue
                most = max_players(rs)
                if idx >= most:
                    visitor.handle_error(GCGError(
                        f"'#{name}': a game of {rs.name} has at most {most} players (each holds a rack of "
                        f"{rs.rack_size} from {rs.total_tiles} tiles)", number))
                    continue
                if idx < len(nicks) and nicks[idx] and nicks[idx] != nick:
                    visitor.handle_error(GCGError(
                        f"'#{name} {_clip(nick)}': player {idx + 1} is already {nicks[idx]!r}", number))
                    continue
                if nick in nicks[:idx] + nicks[idx + 1:]:
                    visitor.handle_error(GCGError(
                        f"'#{name} {_clip(nick)}': {_clip(nick)!r} is already player {nicks.index(nick) + 1} "
                        "(each player needs a nick of its own)", number))
                    continue
                while len(nicks) <= idx:
                    nicks.append("")
                nicks[idx] = nick
                declared = True
                visitor.visit_pragma(name, value, number)
                visitor.visit_player(idx, GCGPlayer(nick, full.strip()), number)
                continue
            visitor.visit_pragma(name, value, number)
            continue
        if line.startswith(">"):
            flush_note()
            try:
                event = parse_event(line, rs, number)
            except GCGError as e:
                readable = getattr(e, "readable_event", None)
                if readable is None:
                    visitor.handle_error(e)
                    continue
                visitor.handle_error(GCGError(e.message, e.line))
                event = readable  # (not strict) the event is still played, so later lines do not fail for it
                if getattr(e, "implied_total", False):
                    event = replace(event, total=totals.get(event.nick, 0) + event.score)
            totals[event.nick] = event.total
            if declared and event.nick not in nicks:
                visitor.handle_error(
                    GCGError(
                        f"event by {event.nick!r}, who is not a declared player ({', '.join(n for n in nicks if n)})",
                        number,
                    )
                )
                continue
            if not declared and event.nick not in nicks:
                nicks.append(event.nick)
            visitor.visit_event(event)
            continue
        if note is not None:
            note.append(line)
            continue
        visitor.handle_error(
            GCGError(f"cannot read {line[:40]!r}: a GCG line starts with '#' (pragma) or '>' (event)", number)
        )
    flush_note()
    missing = [i + 1 for i, nick in enumerate(nicks) if not nick]
    if declared and missing:
        visitor.handle_error(
            GCGError(f"'#player{missing[0]}' is missing: players are numbered 1 to {len(nicks)} without gaps")
        )
    return visitor.result()


def max_players(ruleset: Ruleset) -> int:
    """The most players a game can have: each needs a full rack at the start."""
    return max(ruleset.total_tiles // ruleset.rack_size, 1)


def gcg_nicks(nicks: Iterable[object]) -> tuple[str, ...]:
    """The players' nicks as a GCG record holds them, or :class:`~racksmith.errors.RacksmithError`:
    each one word (not empty, no white space, no ``:``), no two the same — also once in Unicode
    NFC, as a reader reads a record (it normalizes the text: ``e`` + U+0301 and ``é`` are one nick
    there, and a record declaring both is refused). Returned in NFC, so that a record written with
    them reads back with the same nicks. The one rule of the writers of records
    (:class:`~racksmith.play.game.Game`, the web page's export)."""
    nicks = tuple(nicks)
    if not all(isinstance(n, str) and n and not any(ch.isspace() or ch == ":" for ch in n) for n in nicks) or (
        len(set(nicks)) != len(nicks)
    ):
        raise RacksmithError(f"player nicks must be distinct, non-empty, without spaces or ':', got "
                             f"{_args.show(list(nicks))}")
    seen: dict[str, str] = {}
    for nick in nicks:
        normal = unicodedata.normalize("NFC", nick)
        if normal in seen:
            raise RacksmithError(
                f"{_clip(ascii(seen[normal]))} and {_clip(ascii(nick))} are the same nick written two ways (alike "
                "in Unicode NFC, as a GCG reader reads them): give the players different nicks"
            )
        seen[normal] = nick
    return tuple(seen)


#: the header notes in which Macondo wrote a game's rules before the GCG format had pragmas for them
#: (``#note Variant: wordsmog``, ``#note BoardLayout: SuperCrosswordGame``, ``#note
#: LetterDistribution: english_super``: Woogles' records of May 2021 to September 2022, read by
#: Macondo in the header only, its keys as written), and the pragma each stands for
_NOTE_FIELDS = {"Variant": "game-type", "BoardLayout": "board-layout", "LetterDistribution": "tile-distribution"}


#: the C1 control characters: never text, they are what bytes 0x80-0x9F of windows-1252 (and other
#: code pages) become when a file is read as ISO-8859-1
_C1 = re.compile("[\u0080-\u009f]")


def _ruleset_from_header(lines: list[str], known: "tuple[Ruleset, ...]" = (), given: "Ruleset | None" = None,
                         default: "Ruleset | None" = None, as_read: str = "") -> Ruleset:
    """The ruleset a record's header names (the lines before the first event): its
    ``#tile-distribution``, ``#board-layout``, ``#game-type`` and ``#lexicon`` (and the header notes
    Woogles wrote in their place, ``#note LetterDistribution: english_super``, ``#note BoardLayout:
    SuperCrosswordGame``, ``#note Variant: wordsmog``: see :data:`_NOTE_FIELDS`; still notes) read as
    :func:`~racksmith.formats.naming.named_ruleset` reads them (the distribution a shipped
    ruleset's name or alias or one of ``known``; Super Scrabble's board; the lexicon's language);
    ``default`` (None: English) when the header names none. A name racksmith cannot play is a :class:`GCGError` on its
    line. With a ruleset ``given``, that one (a variant racksmith does not play is still refused).
    Only names are looked up: a path in a pragma is never opened. A record whose letters the
    ruleset lacks because its file was read in the wrong encoding (``as_read``: the text as read,
    see :func:`_misread_encoding`) is one :class:`GCGError` saying so."""
    fields = {"tile-distribution": "distribution", "board-layout": "layout", "game-type": "variant", "variant": "variant",
              "lexicon": "lexicon"}
    names: dict[str, str] = {}
    where: dict[str, int] = {}
    labels: dict[str, str] = {}
    in_note = False  # (a line that goes on a note is the note's text, as the reader takes it: no pragma)
    for number, line in enumerate(lines, start=1):
        s = line.strip()
        if in_note and s and (line[:1].isspace() or _in_note(s) or not s.startswith(("#", ">"))):
            continue
        if s.startswith(">"):
            break
        if not s.startswith("#"):
            continue
        name, value = _pragma_parts(s)
        in_note = name == "note"
        label = f"#{name}"
        if in_note:  # Woogles' '#note Variant: wordsmog' (Macondo, May 2021 to September 2022)
            key, colon, value = value.partition(":")
            name, value = _NOTE_FIELDS.get(key.strip(), "") if colon else "", value.strip()
            label = f"#note {key.strip()}:"
        field_ = fields.get(name)
        if field_ is None or not value:
            continue
        if field_ == "variant" and field_ in names:  # '#game-type' and '#variant': each is looked at
            named_ruleset(variant=value, labels={"variant": label}, error=lambda _f, m, n=number: GCGError(m, n))
            continue
        if field_ not in names:
            names[field_], where[field_], labels[field_] = value, number, label
    if given is not None:
        names = {k: v for k, v in names.items() if k == "variant"}
    rs = named_ruleset(**names, labels=labels, known=known,
                       error=lambda field_, message: GCGError(message, where.get(field_, 0),
                                                              param="ruleset" if field_ in SETTLED_BY_RULESET else None))
    if "distribution" in names and "layout" in names:  # (as a CGP's ld and bdn: a board and tiles no ruleset has)
        board = named_board(names["layout"], known)
        tiles = named_ruleset(distribution=names["distribution"], known=known)
        if board is not None and tiles is not None and not same_board(tiles, board):
            raise GCGError(f"'{labels['layout']} {names['layout']}' and '{labels['distribution']} "
                           f"{names['distribution']}' name the {board.rows}x{board.cols} board of {board.name} and the "
                           f"{tiles.total_tiles} tiles of {tiles.name}, and racksmith has no ruleset that plays those "
                           "tiles on that board: correct the line that is wrong, or pass a ruleset file with that board "
                           "and those tiles", where["layout"], param="ruleset")
    named = given if given is not None else rs
    chosen = named if named is not None else default if default is not None else find_ruleset("english")
    if not as_read.isascii():  # (an ASCII record reads alike in every encoding)
        misfits = _foreign_letters(lines, chosen, symbols=True)
        misread = _misread_encoding(as_read, misfits, chosen, known) if misfits else None
        if misread is not None:
            raise misread
        control = _C1.search(as_read)  # (in a name or a note: the tiles are Latin letters, A-Z)
        if control is not None:
            raise GCGError(_control_message(as_read, control.group()), as_read.count("\n", 0, control.start()) + 1)
    foreign = _foreign_letters(lines, chosen) if named is None else []
    if foreign:
        lexicon = (labels["lexicon"], names["lexicon"]) if "lexicon" in names else None
        raise GCGError(_foreign_message(foreign, known, chosen, lexicon), foreign[0][1], param="ruleset")
    return chosen


def _tile_chars(lines: list[str]) -> "Iterable[tuple[str, int]]":
    """The characters of the events' tiles (racks, words, exchanged and end-of-game tiles), each
    with its line. Not a coordinate's column letter (``8D``, Latin in every alphabet), nor the words
    of ``(challenge)``, ``(time)`` and Quackle's ``UNKNOWN`` rack; notes and pragmas are not looked at."""
    for number, line in enumerate(lines, start=1):
        s = line.strip()
        if not s.startswith(">") or ":" not in s:
            continue
        for token in s.split(":", 1)[1].split():
            if token.startswith("*"):  # a star taken back, '*8H=О': the letter after '=' is a tile's
                token = token.partition("=")[2]
            elif token in _NOT_TILES or any(ch.isdigit() for ch in token):  # a coordinate, score or total
                continue
            for ch in token:
                yield ch, number


def _foreign_letters(lines: list[str], alphabet_of: Ruleset, symbols: bool = False) -> list[tuple[str, int]]:
    """The tile letters of the events (see :func:`_tile_chars`) that ``alphabet_of``'s alphabet
    lacks, each once with the line it is first on, in order; with ``symbols``, also the characters
    outside ASCII that are no letters (``░``: a byte read in the wrong encoding)."""
    alphabet = alphabet_of.alphabet
    # (the common cases, told at once: no character of the text, or else of the events after their
    # nicks, is one to tell; the tiles' characters are among those)
    if not _any_foreign(set().union(*lines), alphabet, symbols) or not _any_foreign(
        set().union(*(s.partition(":")[2] for s in map(str.strip, lines) if s.startswith(">"))), alphabet, symbols
    ):
        return []
    found: dict[str, tuple[str, int]] = {}  # (each letter once whatever its case, shown as the file has it first)
    for ch, number in _tile_chars(lines):
        if ch.isalpha() or (symbols and not ch.isascii()):
            key = alphabet.upper(ch)
            if key not in found and ch not in alphabet:
                found[key] = (ch if len(key) > 1 else key, number)  # (ß, whose capitals are SS: as it is)
    return list(found.values())


#: the characters :func:`_foreign_letters` never tells: ASCII ones that are no letters
_ASCII_NO_LETTERS = frozenset(chr(c) for c in range(128) if not chr(c).isalpha())


def _any_foreign(chars: "set[str]", alphabet: Alphabet, symbols: bool) -> bool:
    """Whether any of ``chars`` is one :func:`_foreign_letters` tells: a letter ``alphabet`` lacks
    (with ``symbols``, any character outside ASCII it lacks)."""
    return any((ch.isalpha() or (symbols and not ch.isascii())) and ch not in alphabet for ch in chars - _ASCII_NO_LETTERS)


#: the 8-bit encodings a record without a ``#character-encoding`` line may really be in when its
#: letters, read as ISO-8859-1 (the format's default), are not the ruleset's: those of Windows
#: programs and their ISO namesakes (older Unix ones), a language's first; when two read a record
#: alike (Polish without Ą, Ś, Ź), the first is named
_LEGACY_ENCODINGS = (
    "windows-1252", "ISO-8859-15",  # Western European: ISO-8859-1 with Œ, Š, Ž, Ÿ
    "windows-1250", "ISO-8859-2",  # Central European: Polish, Czech, Slovak, Hungarian, Croatian...
    "windows-1251", "KOI8-R", "KOI8-U",  # Cyrillic: Russian, Ukrainian...
    "windows-1257", "ISO-8859-13",  # Baltic
    "windows-1254", "ISO-8859-9",  # Turkish
    "windows-1253", "ISO-8859-7",  # Greek
)


def _misread_encoding(as_read: str, foreign: "list[tuple[str, int]]", ruleset: Ruleset,
                      known: "tuple[Ruleset, ...]") -> "GCGError | None":
    """The error of a record read in the wrong encoding, or None. ``as_read``: its text as read;
    ``foreign``: the letters ``ruleset`` lacks in it. Two mistakes are told, never corrected (an
    ISO-8859-1 record must keep reading as the format's default has it):

    - no ``#character-encoding`` first line and not UTF-8, so read as ISO-8859-1 (``ÀËÎ``, ``¥¯``),
      while its bytes read in one of :data:`_LEGACY_ENCODINGS` (windows-1251, KOI8-R, windows-1250,
      ISO-8859-2…) are letters of a ruleset (``АЁИ``, ``ĄŻ``), and read as ISO-8859-1 no ruleset's;
    - a first line declaring an 8-bit encoding (``windows-1251``) on a file that is UTF-8 (re-saved
      as UTF-8 with its old first line kept), whose bytes read as UTF-8 are letters of a ruleset.
    """
    from ..rules.ruleset import available_rulesets

    if as_read.isascii():
        return None
    rulesets = (ruleset, *known, *available_rulesets())
    letters = [letter for letter, _ in foreign]
    shown = (("letters " if all(ch.isalpha() for ch in letters) else "characters ")
             + ", ".join(ch if ch.isprintable() else f"U+{ord(ch):04X}" for ch in letters[:8])  # (a control character)
             + (f" and {len(letters) - 8} more" if len(letters) > 8 else ""))
    lacks = f"not in the alphabet of {ruleset.name}"
    declared = _LATER_ENCODING_RE.match(as_read.split("\n", 1)[0].strip())
    if declared:
        name = _clip(declared.group(1))
        try:
            codec = _codec(declared.group(1))
            raw = as_read.encode(codec)
        except (GCGError, UnicodeError):
            return None
        utf8 = _utf8_text(raw) if codec != "utf-8" else None
        fits = _rulesets_of_letters(utf8, ruleset, rulesets) if utf8 is not None else ""
        if fits:
            return GCGError(
                f"the first line declares the encoding {name}, but the file appears to be UTF-8: read as {name}, its "
                f"{shown} are {lacks}, and read as UTF-8 they are letters of {fits}: remove the "
                "'#character-encoding' line, or make it '#character-encoding UTF-8'", foreign[0][1])
        legacy = _legacy_fit(as_read, raw, ruleset, rulesets) if _one_byte(codec) else None
        if legacy is None:
            return None
        encoding, fits = legacy
        return GCGError(
            f"the first line declares the encoding {name}, and read so the file's {shown} are {lacks}; read as "
            f"{encoding} they are letters of {fits}, so the file looks like {encoding}: replace its first line with "
            f"'#character-encoding {encoding}', or save it as UTF-8", foreign[0][1])
    try:
        raw = as_read.encode("iso8859-1")
    except UnicodeEncodeError:
        return None
    if _utf8_text(raw) is not None:  # (a UTF-8 file is read as UTF-8)
        return None
    legacy = _legacy_fit(as_read, raw, ruleset, rulesets)
    if legacy is None:
        return None
    encoding, fits = legacy
    return GCGError(
        f"the file is not UTF-8 and has no '#character-encoding' first line, so it was read as ISO-8859-1 (the GCG "
        f"default), and its {shown} are {lacks}; read as {encoding} they are letters of {fits}, so the file "
        f"looks like {encoding}: add '#character-encoding {encoding}' as its first line, or save it as UTF-8", foreign[0][1])


def _legacy_fit(as_read: str, raw: bytes, ruleset: Ruleset, rulesets: "tuple[Ruleset, ...]") -> "tuple[str, str] | None":
    """The encoding of :data:`_LEGACY_ENCODINGS` in which the bytes ``raw`` of a record (read as
    ``as_read``) have tile letters of a ruleset, and the names of those rulesets; None when the
    letters as read are a ruleset's already (a Latin-1 record, in another ruleset than this) or no
    such encoding reads them as letters."""
    if _rulesets_of_letters(as_read, ruleset, rulesets):
        return None
    best: "tuple[tuple[bool, int], str, str] | None" = None
    for encoding in _LEGACY_ENCODINGS:
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        fits = _rulesets_of_letters(text, ruleset, rulesets)
        # the encoding in which the letters are the ruleset's own first; Russian reads as letters in
        # both windows-1251 and KOI8-R, with the cases swapped: the right one has the racks'
        # capitals (a lowercase letter is only a blank in a word)
        rank = (fits == ruleset.name, sum(ch.isupper() for ch, _ in _tile_chars(text.splitlines())))
        if fits and (best is None or rank > best[0]):
            best = (rank, encoding, fits)
    return None if best is None else (best[1], best[2])


def _one_byte(codec: str) -> bool:
    """``codec`` writes a character in one byte (ISO-8859-1, windows-1250, KOI8-R...): a file in it
    may be one in another such code page, declared wrong."""
    # (UTF-8 reads bytes(range(256)) as 256 characters too, each byte 0x80-0xFF on its own a replacement
    # character: the letters é and ż, two bytes each in UTF-8, tell it)
    return (len(bytes(range(256)).decode(codec, errors="replace")) == 256
            and len(b"\xc3\xa9\xc5\xbc".decode(codec, errors="replace")) == 4)


#: for a file declared in an ISO-8859 encoding that holds bytes 0x80-0x9F (control characters in it),
#: the Windows code page of the same letters, which has characters there (’ “ ” – € in each)
_WINDOWS_OF = {"iso8859-1": "windows-1252", "iso8859-15": "windows-1252", "iso8859-2": "windows-1250",
               "iso8859-5": "windows-1251", "iso8859-13": "windows-1257", "iso8859-4": "windows-1257",
               "iso8859-9": "windows-1254", "iso8859-7": "windows-1253"}


def _control_message(as_read: str, control: str) -> str:
    """What a record holding the C1 control character ``control`` is told to do: a file in an 8-bit
    code page, read as ISO-8859-1 (the format's default) or as the ISO-8859 encoding its first line
    declares, is told the Windows code page to declare (replacing the line it has); a file declared
    UTF-8 holds them as characters (its text converted to UTF-8 from a code page misread so)."""
    head = f"U+{ord(control):04X} is a control character, not text"
    declared = _LATER_ENCODING_RE.match(as_read.split("\n", 1)[0].strip())
    name = declared.group(1) if declared else ""
    codec = None
    if declared:
        try:
            codec = _codec(name)
        except GCGError:
            return f"{head}: save the record as UTF-8 with the characters it should have"
    if codec is not None and not _one_byte(codec):
        return (f"{head}: the file was converted to {_clip(name)} from an 8-bit code page read as "
                "ISO-8859-1 (’ “ ” – œ of windows-1252 became control characters): convert the original file again "
                "from its code page (windows-1252, windows-1250...), or correct those characters")
    if codec is None:
        return (f"{head}: the file is in an 8-bit code page (’ “ ” – œ in windows-1252) read as ISO-8859-1: add "
                "'#character-encoding windows-1252' as its first line (or the code page it is written in: windows-1250, "
                "windows-1251...), or save it as UTF-8")
    windows = _WINDOWS_OF.get(codec, "windows-1252")
    return (f"{head}: the file is in an 8-bit code page ({'’ “ ” – œ' if windows == 'windows-1252' else '’ “ ” –'} in "
            f"{windows}), not the {_clip(name)} its first line declares: replace that line with "
            f"'#character-encoding {windows}' (or the code page it is written in: windows-1250, windows-1251...), or "
            "save it as UTF-8")


def _rulesets_of_letters(text: str, ruleset: Ruleset, rulesets: "tuple[Ruleset, ...]") -> str:
    """The names of the rulesets whose alphabets hold every tile letter of the record ``text``
    (``ruleset``'s alone when it does; 'russian or erudit'), or '' when none does or the tiles have
    a character outside ASCII that is no letter."""
    chars = {ch for ch, _ in _tile_chars(unicodedata.normalize("NFC", text).splitlines())}
    if not any(ch.isalpha() for ch in chars) or any(not ch.isalpha() and not ch.isascii() for ch in chars):
        return ""
    letters = [ch for ch in chars if ch.isalpha()]
    fits = [rs.name for rs in rulesets if all(ch in rs.alphabet for ch in letters)]
    if ruleset.name in fits:
        return ruleset.name
    return " or ".join(dict.fromkeys(fits))


#: the words of an event line that are not tiles
_NOT_TILES = frozenset(("(challenge)", "(time)", UNKNOWN_RACK))


def _foreign_message(foreign: list[tuple[str, int]], known: "tuple[Ruleset, ...]", fallback: "Ruleset | None" = None,
                     lexicon: "tuple[str, str] | None" = None) -> str:
    """Why a record that names no ruleset cannot be ``fallback``'s (English's): its letters, and
    the rulesets whose alphabets hold them all (or that none does). ``lexicon``: the pragma and
    value of a ``#lexicon`` the record has, naming no lexicon racksmith knows."""
    from ..rules.ruleset import available_rulesets

    letters = [letter for letter, _ in foreign]
    shown = ", ".join(letters[:8]) + (f" and {len(letters) - 8} more" if len(letters) > 8 else "")
    rulesets = (*known, *available_rulesets())
    fits = [rs.name for rs in rulesets if all(letter in rs.alphabet for letter in letters)]
    spelled = "English" if fallback is None or fallback.name == "english" else f"letters of {fallback.name}"
    if lexicon is None:
        head = (f"the record names no ruleset (no #lexicon or #tile-distribution), and its letters {shown} "
                f"are not {spelled}")
    else:
        label, name = lexicon
        head = (f"the record's '{label} {_clip(name)}' is no lexicon racksmith knows (so it does not say the ruleset), "
                f"and its letters {shown} are not {spelled}")
    if fits:
        return f"{head}: pass the ruleset to use ({' or '.join(dict.fromkeys(fits))})"
    names = ", ".join(dict.fromkeys(rs.name for rs in rulesets))
    return f"{head} nor in any ruleset racksmith has ({names}): pass a ruleset file whose alphabet has them"


#: the pragmas of the GCG format and of the programs that write it (Quackle, Macondo, MAGPIE):
#: inside a note, a line starting with '#' and another word is the note's (a '#hashtag')
_PRAGMA_NAMES = frozenset((
    "character-encoding", "title", "description", "id", "note", "lexicon", "game-type", "variant", "tile-set", "game-board",
    "board-layout", "tile-distribution", "incomplete", "tile", "-",
))
_NUMBERED_PRAGMA_RE = re.compile(r"^(?:player|rack)\d+$")


def _in_note(line: str) -> bool:
    """A ``#word`` line that goes on the note before it: ``word`` is no pragma of the format."""
    if not line.startswith("#"):
        return False
    name, _ = _pragma_parts(line)
    return name not in _PRAGMA_NAMES and not _NUMBERED_PRAGMA_RE.match(name)


def _pragma_parts(line: str) -> tuple[str, str]:
    """A pragma line's name (lowercase, without the ``#``) and its value: separated by any white
    space (spaces or tabs), the value stripped."""
    parts = line[1:].split(None, 1)
    if not parts:
        return "", ""
    return parts[0].lower(), parts[1].strip() if len(parts) > 1 else ""


def _player_number(digits: str) -> int:
    """The number of a ``#playerN`` pragma; a number too long to be a player's is 0 (refused as such)."""
    return int(digits) if len(digits) <= 6 else 1_000_000


def _clip(text: str, size: int = 40) -> str:
    """A piece of the record for an error message, at most ``size`` characters."""
    return text if len(text) <= size else text[: size - 3] + "..."


def parse_event(line: str, ruleset: Ruleset, number: int = 0) -> GCGEvent:
    """One ``>nick: ...`` line."""
    body = line.strip()[1:]
    nick, colon, rest = body.partition(":")
    nick = nick.strip()
    if not colon or not nick:
        raise GCGError(f"an event starts with '>nick:', got {line.strip()[:40]!r}", number)
    if len(nick.split()) > 1:  # '#playerN nick Full Name' could never declare it
        raise GCGError(f"nick {_clip(nick)!r} has a space in it: a nick is one word", number)
    tokens = rest.split()
    number_at = [bool(_SCORE_RE.match(t)) for t in tokens]
    if len(tokens) >= 2 and number_at[-1] and not number_at[-2] and not tokens[-2].startswith("+"):
        # '7C GALE +16': the line ends with the score; the event is read with the total it implies
        problem = (f"the running total is missing: the line ends with the score {tokens[-1]} (an event ends with "
                   f"its score and the player's running total, e.g. '{tokens[-1]} 32'): add the total")
        raise _readable(problem, number, lambda: _event_of(nick, rest, tokens + ["0"], ruleset, number), total=None)
    if len(tokens) >= 4 and not number_at[-1]:
        # '+39 55 VOX,JOX': the score and total, then more (an old annotation listing the cross-words)
        end = next((i + 2 for i in range(1, len(tokens) - 2)
                    if number_at[i] and number_at[i + 1] and not number_at[i + 2]), 0)
        if end:
            extra = " ".join(tokens[end:])
            problem = (f"text after the running total {tokens[end - 1]}: {_clip(extra)!r} (an event ends with its "
                       "score and running total): move the text to a '#note' line after the event, or remove it")
            raise _readable(problem, number, lambda: _event_of(nick, rest, tokens[:end], ruleset, number))
    return _event_of(nick, rest, tokens, ruleset, number)


def _readable(problem: str, number: int, read, total: "int | None" = 0) -> GCGError:
    """The error of a line whose event may be readable in spite of ``problem``: it carries the
    event as ``readable_event`` when ``read()`` reads it (``implied_total``: the line left its total
    out, and the reader gives it the one the player's earlier totals and the score imply)."""
    err = GCGError(problem, number)
    try:
        event = read()
    except GCGError:
        return err
    err.readable_event = event  # type: ignore[attr-defined]
    err.implied_total = total is None  # type: ignore[attr-defined]
    return err


def _quackle_negative(head: "list[str]") -> bool:
    """``head`` (an event's words before its score) is an event whose negative score Quackle writes
    ``+-N``: a time penalty (``(time)``) or a rack penalty, the player's rack then its tiles
    (``EILNORS (EILNORS)``); not a challenge bonus (Quackle writes its sign), not a going-out
    bonus (written without a rack, and never negative)."""
    action = head[-1]
    if action == "(time)":
        return True
    return (len(head) == 2 and len(action) > 2 and action[0] == "(" and action[-1] == ")"
            and action != "(challenge)")


def _event_of(nick: str, rest: str, tokens: "list[str]", ruleset: Ruleset, number: int) -> GCGEvent:
    """The event of ``tokens``: ``[RACK] ACTION SCORE TOTAL``."""
    if len(tokens) < 3:
        raise GCGError(
            f"event {rest.strip()!r} needs an action, a score and a running total (e.g. '8D WORD +28 28')", number
        )
    score_s, total_s = tokens[-2], tokens[-1]
    if _PLUS_MINUS_RE.match(score_s) and _quackle_negative(tokens[:-2]):
        # '(time) +-10', as Quackle writes a time penalty (and Macondo reads it): -10; '(EILNORS) +-7', as
        # Quackle writes a rack penalty: -7
        score_s = score_s[1:]
    if not _SCORE_RE.match(score_s):
        raise GCGError(f"score {_clip(score_s)!r} is not a number like +28 or -5 (at most 9 digits)", number)
    if not _SCORE_RE.match(total_s):
        raise GCGError(f"running total {_clip(total_s)!r} is not a number of at most 9 digits", number)
    score, total = int(score_s), int(total_s)
    head = tokens[:-2]
    reclaim: list[str] = []
    while len(head) > 2 and _RECLAIM_RE.match(head[-1]):  # stars a play takes back: '8D ДоМ *8H=О'
        reclaim.insert(0, head.pop())
    a = ruleset.alphabet

    def rack_of(parts: list[str], expect: int) -> str:
        if len(parts) == expect:
            return ""
        token = parts[0] if len(parts) == expect + 1 else ""
        if len(token) > 2 and token[0] == "(" and token[-1] == ")":
            token = token[1:-1]  # some writers bracket the rack of a pass: '>x: (U) - +0 380'
        if _RACK_RE.match(token):
            try:
                a.rack(token)
            except RacksmithError as e:
                raise GCGError(f"rack {token!r}: {e}", number) from None
            return token
        raise GCGError(f"cannot read the event {rest.strip()!r}: expected '[RACK] ACTION SCORE TOTAL'", number)

    last = head[-1]
    common = dict(nick=nick, score=score, total=total, line=number)
    if last == "--":
        return GCGEvent(kind=EventKind.PHONY, rack=rack_of(head, 1), **common)
    if last == "-":
        return GCGEvent(kind=EventKind.PASS, rack=rack_of(head, 1), move=Move.pass_(a), **common)
    if last.startswith("-"):
        rack = rack_of(head, 1)
        body_s = last[1:]
        if _HIDDEN_EXCHANGE_RE.match(body_s):
            if len(body_s) > 3:
                raise GCGError(f"exchange of {_clip(body_s)} hidden tiles: more than a rack holds", number)
            return GCGEvent(kind=EventKind.EXCHANGE, rack=rack, count=int(body_s), **common)
        try:
            tiles = a.rack(body_s)
        except RacksmithError as e:
            raise GCGError(f"exchange {last!r}: {e}", number) from None
        return GCGEvent(kind=EventKind.EXCHANGE, rack=rack, move=Move.exchange(tiles, a), count=len(tiles), **common)
    if last.startswith("(") and last.endswith(")"):
        inner = last[1:-1].strip()
        if inner in ("challenge", "time") and len(head) == 2 and head[0] == UNKNOWN_RACK:
            rack = UNKNOWN_RACK  # Quackle's placeholder on a challenge bonus (any alphabet)
        else:
            rack = rack_of(head, 1)
        if inner == "challenge":
            return GCGEvent(kind=EventKind.CHALLENGE, rack=rack, **common)
        if inner == "time":
            return GCGEvent(kind=EventKind.TIME, rack=rack, **common)
        try:
            a.rack(inner)
        except RacksmithError as e:
            raise GCGError(f"end-of-game tiles {last!r}: {e}", number) from None
        penalty = score_s.startswith("-") or (score == 0 and bool(rack))
        return GCGEvent(kind=EventKind.RACK_PENALTY if penalty else EventKind.OUT, rack=rack, tiles=inner, **common)
    if len(head) >= 2:
        rack = rack_of(head, 2)
        written = " ".join([head[-2], head[-1], *reclaim])
        try:
            move = Move.parse(written, a)
        except RacksmithError as e:
            raise GCGError(f"play {written!r}: {e}", number) from None
        if not move.is_place:
            raise GCGError(f"play {head[-2]} {head[-1]!r} is not a placement", number)
        named = any(t & THROUGH and t & LETTER_MASK for t in move.tiles)  # '8D FO(L)IA'
        return GCGEvent(kind=EventKind.PLAY, rack=rack, move=move, count=move.tiles_played,
                        written=written if named else "", **common)
    raise GCGError(
        f"cannot read the event {rest.strip()!r}: expected a play ('8D WORD'), an exchange ('-ABC'), "
        "a pass ('-'), a withdrawn play ('--') or a bonus ('(challenge)', '(TILES)', '(time)')",
        number,
    )


# --- writing ------------------------------------------------------------------------------------
def format_gcg(game: GCGGame) -> str:
    """GCG text: ``#character-encoding UTF-8`` first, the header's pragmas in order (the players'
    among them), then the events with their notes; a pragma read after an event (Quackle's
    ``#rack1`` at the end of an unfinished game) is written after that event again."""
    out = ["#character-encoding UTF-8"]
    players = {i: p for i, p in enumerate(game.players)}
    for p in game.players:
        if not p.nick or any(ch.isspace() for ch in p.nick) or _BREAK.search(p.name):
            raise GCGError(f"player {p.nick!r} ({p.name!r}) cannot be written in GCG: a nick is one word, "
                           "a name one line")
        if not _utf8_writable(p.nick + p.name):
            raise GCGError(f"player {p.nick!r} ({p.name!r}) cannot be written in GCG: it holds half of a UTF-16 "
                           "surrogate pair, no character (a record is written as UTF-8)")
    for name, value, _ in game.pragmas:
        if any(ch.isspace() for ch in name) or (name != "note" and _BREAK.search(value)):  # ('#' alone: name '')
            raise GCGError(f"pragma #{name} {value!r:.40} cannot be written in GCG: its name is one word and its "
                           "value one line (text over several lines goes in a #note)")
    written_players: set[int] = set()
    later: dict[int, list[str]] = {}  # event index -> the pragma lines read after it
    lines = [e.line for e in game.events]
    for name, value, line in game.pragmas:
        if name == "character-encoding":
            continue
        m = _PLAYER_RE.match(name)
        if m:  # always in the header, in their order (Macondo numbers the players in file order)
            if not written_players:
                out.extend(_player_line(idx, p) for idx, p in players.items())
                written_players.update(players)
            continue
        text = _note_lines(value) if name == "note" else [f"#{name} {value}".rstrip()]
        after = max((i for i, n in enumerate(lines) if 0 < n < line), default=None) if line > 0 else None
        if after is None:
            out.extend(text)
        else:
            later.setdefault(after, []).extend(text)
    for idx, p in players.items():
        if idx not in written_players:
            out.append(_player_line(idx, p))
    for i, e in enumerate(game.events):
        out.append(e.text())
        if e.note:
            out.extend(_note_lines(e.note))
        out.extend(later.get(i, ()))
    return "\n".join(out) + "\n"


def _player_line(index: int, player: GCGPlayer) -> str:
    """``#playerN nick Full Name``; the nick stands for the full name when there is none, as
    Macondo writes it (Quackle, Macondo and MAGPIE refuse a ``#playerN`` line without one)."""
    return f"#player{index + 1} {player.nick} {player.name or player.nick}"


def _note_lines(text: str) -> list[str]:
    """The ``#note`` line and its continuation lines: a line that starts with ``#``, ``>`` or white
    space is written after one space, which the reader takes off again (so an indented line keeps
    its indentation and a ``#word`` or ``>`` line is not read as a pragma or an event)."""
    lines = [s.rstrip() for s in text.split("\n")]
    first, rest = lines[0].strip(), lines[1:]
    return [f"#note {first}".rstrip()] + [f" {s}" if s[:1] in ("#", ">") or s[:1].isspace() else s for s in rest]
