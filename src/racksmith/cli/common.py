"""Helpers shared by the command modules: JSON to stdout, diagnostics to stderr, clean failures."""
from __future__ import annotations

import codecs
import copy
import dataclasses
import functools
import json
import math
import os
import sys
import unicodedata
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

import typer

from rich.console import Console

from ..errors import CLIError

#: the symbols racksmith writes for people, and how they are written in ASCII on an output whose
#: encoding lacks them (``PYTHONIOENCODING=ascii``, ``LC_ALL=C``, a latin-1 or cp1252 console), or
#: always under RACKSMITH_ASCII=1; the letters of the game (Cyrillic tiles, words) are never in it
_ASCII_FOR = {
    "±": "+/-", "×": "x", "≥": ">=", "≤": "<=", "≠": "!=", "≈": "~", "−": "-", "†": "+", "‡": "++",
    "…": "...", "–": "-", "—": "-", "·": ".", "•": "*", "→": "->", "←": "<-", "‘": "'", "’": "'",
    "“": '"', "”": '"', "\u00a0": " ",
}


def _box_in_ascii(ch: str) -> str:
    """A box-drawing character in ASCII, as Rich's ASCII boxes draw it: a line ``-`` (``=``
    doubled) or ``|``, a corner, a join or a crossing ``+``."""
    words = set(unicodedata.name(ch).split())
    if "DIAGONAL" in words:
        return "X" if "CROSS" in words else "/" if "UPPER RIGHT" in unicodedata.name(ch) else "\\"
    across = bool(words & {"HORIZONTAL", "LEFT", "RIGHT"})
    down = bool(words & {"VERTICAL", "UP", "DOWN"})
    if across and not down:
        return "=" if "DOUBLE" in words else "-"
    if down and not across:
        return "|"
    return "+"


_ASCII_FOR.update((chr(c), _box_in_ascii(chr(c))) for c in range(0x2500, 0x2580))


def ascii_forced() -> bool:
    """RACKSMITH_ASCII=1 (any value but empty or 0): tables with ASCII borders and racksmith's
    symbols in ASCII whatever the output can show (screen readers, CI logs)."""
    return os.environ.get("RACKSMITH_ASCII", "").strip() not in ("", "0")


@functools.lru_cache(maxsize=16)
def _fallback_for(encoding: str) -> "dict[int, str]":
    """The ``str.translate`` table that writes in ASCII each symbol of :data:`_ASCII_FOR` that
    ``encoding`` cannot encode (empty for UTF-8, or an encoding Python does not know)."""
    table = {}
    for ch, ascii_text in _ASCII_FOR.items():
        try:
            ch.encode(encoding)
        except UnicodeEncodeError:
            table[ord(ch)] = ascii_text
        except LookupError:
            return {}
    return table


def showable(text: str, encoding: str) -> str:
    """``text`` with racksmith's symbols that ``encoding`` cannot encode written in ASCII
    (``±`` as ``+/-``, a box's lines as ``-|+``...); any other character (a letter) is left as it
    is: one the output cannot show still fails the command with the remedy (cli/main.py)."""
    table = _fallback_for(encoding)
    return text.translate(table) if table else text


class _Results:
    """The file of :data:`out_console` (results for people): ``sys.stdout`` as it is at each write
    (pytest's capture, a Rich display's proxy), except that racksmith's own symbols that the
    output's encoding cannot encode are written in ASCII (:func:`showable`), and that a closed
    stdout is a clean failure. Its ``encoding`` is ``ascii`` under RACKSMITH_ASCII=1, which makes
    Rich draw ASCII boxes and bars too."""

    @staticmethod
    def _file():
        f = sys.stdout
        if f is None:
            fail("cannot write the results: stdout is closed")
        return getattr(f, "rich_proxied_file", f)

    def write(self, text: str) -> int:
        write_results(showable(text, self.encoding), self._file())
        return len(text)

    def flush(self) -> None:
        f = sys.stdout
        if f is not None:
            getattr(f, "rich_proxied_file", f).flush()

    def isatty(self) -> bool:
        f = sys.stdout
        try:
            return f is not None and getattr(f, "rich_proxied_file", f).isatty()
        except (OSError, ValueError, AttributeError):
            return False

    def fileno(self) -> int:
        return self._file().fileno()

    @property
    def encoding(self) -> str:
        if ascii_forced():
            return "ascii"
        f = sys.stdout
        return getattr(getattr(f, "rich_proxied_file", f), "encoding", None) or "utf-8"


class _Diagnostics:
    """The file of :data:`err_console`: ``sys.stderr`` as it is at each write (pytest's capture, a
    Rich display's proxy), except that a diagnostic that cannot be written (stderr closed, a full
    disk, a reader that went away) is dropped: a note or a progress line never fails a command
    whose results are on stdout (``racksmith moves ... 2>/dev/full``)."""

    @staticmethod
    def _file():
        f = sys.stderr
        return getattr(f, "rich_proxied_file", f)

    def write(self, text: str) -> int:
        f = self._file()
        if f is not None:
            shown = showable(text, self.encoding)
            try:
                try:
                    f.write(shown)
                except UnicodeEncodeError:  # a letter a strict stderr lacks (Python's stderr escapes it itself)
                    encoding = getattr(f, "encoding", None) or "utf-8"
                    f.write(shown.encode(encoding, "backslashreplace").decode(encoding))
            except (OSError, ValueError, LookupError):
                _stderr_gone()
        return len(text)

    def flush(self) -> None:
        f = self._file()
        if f is not None:
            try:
                f.flush()
            except (OSError, ValueError):
                _stderr_gone()

    def isatty(self) -> bool:
        f = self._file()
        try:
            return f is not None and f.isatty()
        except (OSError, ValueError, AttributeError):
            return False

    def fileno(self) -> int:
        f = self._file()
        if f is None:
            raise OSError("stderr is closed")
        return f.fileno()

    @property
    def encoding(self) -> str:
        if ascii_forced():
            return "ascii"
        return getattr(self._file(), "encoding", None) or "utf-8"


def _stderr_gone() -> None:
    """stderr failed: what it still holds goes to /dev/null (flushed at exit, it would fail again
    and make the exit code 120), and so does every later diagnostic."""
    f = sys.stderr
    try:
        fd = f.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
        f.flush()
    except (OSError, ValueError, AttributeError):
        pass


#: where diagnostics are written: see :class:`_Diagnostics` (the entry point's error line too)
err_file = _Diagnostics()


#: diagnostics, tables for people and progress bars: never stdout when --json is asked for. No
#: ``:name:`` emoji codes: user text (words, file names, nicks, a record's lines) is printed as it is.
err_console = Console(file=err_file, emoji=False)
#: results for people on stdout (through :class:`_Results`)
out_console = Console(file=_Results(), emoji=False)


_CHUNK = 1 << 16


def emit_json(obj: Any) -> None:
    """Machine output: plain ``json.dumps`` on stdout, nothing else.

    Written a chunk at a time, each whole (:func:`write_results`): a write that the system cuts
    short (a full disk) is written on until it fails and says why; a closed pipe ends the command
    quietly (:func:`racksmith.cli.main.main`)."""
    out = stdout()
    text = json.dumps(obj, ensure_ascii=not _unicode(getattr(out, "encoding", None) or "utf-8")) + "\n"
    for i in range(0, len(text), _CHUNK):
        write_results(text[i : i + _CHUNK], out)


def write_results(data: "str | bytes", out: Any = None) -> None:
    """Write results (text, or bytes written as they are: a UTF-8 CSV) to ``out``, stdout by
    default, every byte of them, and flush it: a write the system cuts short under
    PYTHONUNBUFFERED=1 (a nearly full disk) is written on until a write fails and says why (``No
    space left on device``: one line and exit 1), never lost with exit 0
    (:func:`racksmith.lexicon.files.write_fully`). Every result of the command line is written
    through it: :func:`emit_json`, :data:`out_console` (:func:`say`, :func:`say_table`). A Rich
    display's stand-in for stdout gets the text to show it above the display."""
    from ..lexicon.files import write_fully

    if out is None:
        out = stdout()
    if hasattr(out, "rich_proxied_file"):
        out.write(data if isinstance(data, str) else data.decode("utf-8"))
        out.flush()
        return
    write_fully(out, data)


def _unicode(encoding: str) -> bool:
    """Whether ``encoding`` is one of Unicode's (``utf-8``, ``UTF8``, ``utf_8_sig``, ``utf-16``...),
    which can encode every letter: JSON on any other stdout is written in ASCII (``\\u0414``, the
    same JSON), not cut short by a letter the encoding lacks."""
    try:
        return codecs.lookup(encoding).name.startswith("utf-")
    except LookupError:
        return False


def finite(value: "float | None") -> "float | None":
    """The callback of a number option: nan and infinity are bad usage too (click's ranges let
    them through)."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"must be a finite number, got {value}")
    return value


STDIN = Path("/dev/stdin")


def dash_is_stdin(value: "Path | None") -> "Path | None":
    """The callback of a file argument: ``-`` is standard input, as for any Unix tool
    (``zcat game.gcg.gz | racksmith gcg replay -``). It is read as ``/dev/stdin``, a pipe the file
    readers already accept; a file really named ``-`` is given by its full path (``"$PWD/-"``:
    ``./-`` reaches the command as ``-``)."""
    if value is None or str(value) != "-":
        return value
    if not STDIN.exists():
        try:
            os.fstat(0)
        except OSError:  # (/dev/stdin is /proc/self/fd/0, which a closed stdin leaves dangling)
            raise typer.BadParameter("'-' reads standard input, which is closed: pipe the data in, or give a file") \
                from None
        raise typer.BadParameter("'-' reads standard input through /dev/stdin, which this system lacks: give a file")
    return STDIN


def input_name(path: Path) -> str:
    """How a message names an input file: its name, or ``stdin``."""
    return "stdin" if path == STDIN else path.name


def fail(message: str, code: int = 1) -> NoReturn:
    """Stop the command with one readable line on stderr."""
    raise CLIError(message, code)


def stdout():
    """``sys.stdout``, or a clean failure when there is none (``racksmith ... >&-``): results
    that cannot be written are an error, never lost silently with exit 0."""
    out = sys.stdout
    if out is None:
        fail("cannot write the results: stdout is closed")
    return out


def note_cgp_lexicon(opcodes, used: str) -> None:
    """Say on stderr when a CGP's ``lex`` opcode, or MAGPIE's ``l1``/``l2`` (each player's lexicon),
    names another lexicon than the one in use (the opcodes are kept, not followed: the lexicon comes
    from --lexicon or the ruleset, one for both players)."""
    from ..formats.cgp import cgp_lexicon_names

    first, second = cgp_lexicon_names(opcodes)
    same = str(used).strip().lower()
    if not any(name and name.strip().lower() != same for name in (first, second)):
        return
    if first and second and first.strip().lower() != second.strip().lower():
        named = f"lexicons {first} (player 1) and {second} (player 2)"
        used_by = f"{used} for both players"
    else:
        named, used_by = f"lexicon {first or second}", used
    err_console.print(
        f"note: the CGP names {named}; moves are made and checked with {used_by} (pass --lexicon to choose)",
        highlight=False, markup=False, soft_wrap=True,
    )


def say(text) -> None:
    """A result for people on stdout (plain text, no markup; or a Rich renderable)."""
    stdout()
    out_console.print(text, highlight=False, markup=False, soft_wrap=True)


def say_summary(text: str) -> None:
    """The line a command whose result is a file (``-o``) ends with (``t.klv2: 2,941,697 leaves``):
    on stdout, as :func:`say` writes it, but a diagnostic: the file is written, so when stdout
    cannot take the line (closed, ``racksmith leaves train ... >&-`` in a cron job; a full disk) it
    goes to stderr and the command still succeeds. (A reader that went away ends the command
    quietly with 0, as for any command: cli/main.py.)"""
    if sys.stdout is None:
        note(text)
        return
    try:
        say(text)
    except BrokenPipeError:
        raise
    except OSError:
        _stdout_to_devnull()  # (what stdout still holds would fail again at exit, with exit code 120)
        note(text)


def _stdout_to_devnull() -> None:
    from ..lexicon.files import stdout_to_devnull

    stdout_to_devnull()


def output_file(value: "Path | None", what: str) -> "Path | None":
    """``-o FILE`` of a command that writes a binary file (``what``: ``a KWG file``): ``-`` is
    refused as bad usage, since such a file is not written to stdout (a file named ``-`` is given
    by its full path, ``"$PWD/-"``: ``./-`` reaches the command as ``-``)."""
    if value is not None and str(value) == "-":
        raise typer.BadParameter(f"{what} is not written to stdout: give a file name (a file named '-' by its full "
                                 "path: \"$PWD/-\")", param_hint="--output")
    return value


#: from this many rows a table of plain cells is written by :mod:`.plaintable` (Rich's text, in
#: time linear in the cells: 15,000 moves took 7 s through Rich)
FAST_ROWS = 100


def say_table(table) -> None:
    """A table for people on stdout. In a terminal it fits the terminal's width, as ``say`` does
    (:func:`_folded`: no digit or letter is cut short with "…"); written to a file or a pipe it is
    as wide as its widest cells need, so that no value is cut short or wrapped
    (``racksmith analyze game.gcg > a.txt``). Symbols the output cannot show are written in ASCII
    before the table is laid out, so that its columns stay aligned (:func:`showable`)."""
    table = _table_for(table, out_console.encoding)
    if table.row_count >= FAST_ROWS and _say_long_table(table):
        return
    if out_console.is_terminal:
        say(_folded(table, out_console))
        return
    from rich.measure import Measurement

    stdout()
    needed = Measurement.get(out_console, out_console.options.update_width(1 << 20), table).maximum
    wide = Console(file=out_console.file, width=max(out_console.width, needed), color_system=out_console.color_system,
                   emoji=False)
    wide.print(table, highlight=False, markup=False, soft_wrap=True)


def _table_for(table, encoding: str):
    """``table`` as written on an output of ``encoding``: a copy whose title, caption, headers and
    cells have the symbols the encoding lacks written in ASCII (:func:`showable`); ``table``
    itself when the encoding lacks none."""
    fallback = _fallback_for(encoding)
    if not fallback:
        return table
    shown = copy.copy(table)
    shown.title = _showable_cell(table.title, fallback)
    shown.caption = _showable_cell(table.caption, fallback)
    shown.columns = [
        dataclasses.replace(c, header=_showable_cell(c.header, fallback), footer=_showable_cell(c.footer, fallback),
                            _cells=[_showable_cell(x, fallback) for x in c._cells])
        for c in table.columns
    ]
    return shown


def _folded(table, console):
    """``table`` for a terminal narrower than it, with no cell cut short ("+52.…", Rich's way).
    The columns are narrowed, the widest first, down to the longest word of their cells and
    header, so that cells and headers wrap at their spaces only (a move's coordinate above its
    word); then, where that is not enough, a header's word may fold; then a word of a column of
    text, but a column of single words (numbers, racks) keeps them whole; and where the terminal
    has no room even for those, every column folds what does not fit onto the next line.
    ``table`` itself when it fits."""
    from rich.cells import cell_len
    from rich.measure import Measurement
    from rich.text import Text

    needed = Measurement.get(console, console.options.update_width(1 << 20), table).maximum
    if needed <= console.width:
        return table
    shown = copy.copy(table)
    shown.columns = [dataclasses.replace(c, overflow="fold") for c in table.columns]
    # of each column: its widest line; its longest word (header too); its cells' longest word; the
    # same for a column of single words, else 1
    widest, header_word, cells_word, single_word = [], [], [], []
    for c in table.columns:
        lines = [console.render_str(x) if isinstance(x, str) else x for x in [c.header, *c._cells]]
        if c.width is not None or not all(isinstance(x, Text) for x in lines):
            return shown
        words = [x.plain.split() for x in lines[1:]]
        widest.append(max(cell_len(line) for x in lines for line in x.plain.split("\n")))
        cells_word.append(max([cell_len(word) for cell in words for word in cell] + [1]))
        header_word.append(max([cell_len(word) for word in lines[0].plain.split()] + [cells_word[-1]]))
        single_word.append(cells_word[-1] if all(len(cell) <= 1 for cell in words) else 1)
    room = console.width - (needed - sum(widest))  # (less the padding and the borders)
    if sum(single_word) > room:
        return shown
    widths = list(widest)
    for least in (header_word, cells_word, single_word):
        while sum(widths) > room:
            narrower = [i for i in range(len(widths)) if widths[i] > least[i]]
            if not narrower:
                break
            widths[max(narrower, key=lambda i: widths[i])] -= 1
    for c, width in zip(shown.columns, widths):
        c.width = width
    return shown


def _showable_cell(cell, fallback: "dict[int, str]"):
    """A cell (a str, a Text; any other renderable as it is) with the symbols of ``fallback``
    in ASCII, its styles kept on what replaces them."""
    if not fallback:
        return cell
    if isinstance(cell, str):
        return cell.translate(fallback)
    from rich.text import Span, Text

    if not isinstance(cell, Text) or cell.plain.translate(fallback) == cell.plain:
        return cell
    cuts = sorted({i + d for i, ch in enumerate(cell.plain) if ord(ch) in fallback for d in (0, 1)})
    shown = cell.blank_copy()
    for piece in cell.divide(cuts):
        piece.style = ""  # (the cell's own style is the copy's)
        if len(piece) == 1 and ord(piece.plain) in fallback:
            text = fallback[ord(piece.plain)]
            piece = Text(text, spans=[Span(0, len(text), span.style) for span in piece.spans])
        shown.append_text(piece)
    return shown


def _say_long_table(table) -> bool:
    """Write a long table of plain cells as Rich would, without Rich's cost per cell (the title
    and header keep their styles in a terminal); False, writing nothing, for a table of another
    shape or one wider than the terminal (Rich fits it)."""
    from rich.cells import cell_len
    from rich.text import Text

    from .plaintable import plain_lines

    lines = plain_lines(table, out_console)
    if lines is None:
        return False
    stdout()
    head = 0
    if out_console.is_terminal:
        if max(cell_len(line) for line in lines) > out_console.width:
            return False
        styles = (["table.title"] if table.title is not None else []) + (["table.header", ""] if table.show_header else [])
        for line, style in zip(lines, styles):
            out_console.print(Text(line, style=style), highlight=False, markup=False, soft_wrap=True)
        head = len(styles)
    out = out_console.file
    for i in range(head, len(lines), 4096):
        out.write("\n".join(lines[i:i + 4096]) + "\n")
    out.flush()
    return True


def plural(n: int, word: str, words: "str | None" = None) -> str:
    """``n`` and the word for that many: ``1 turn``, ``2 turns``, ``1 ply``, ``2 plies``."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def note(text: str) -> None:
    """A diagnostic on stderr."""
    err_console.print(text, highlight=False, markup=False, soft_wrap=True)


def note_skipped_words(text: str) -> None:
    """What a word list read for a command left out (``club.txt: skipped 2 words: ...``), on stderr:
    every ``--lexicon words.txt``, and a ruleset file's word list, whichever command reads it, once a
    read. The library calls it (:data:`racksmith.lexicon.load.skipped_word_notes`); outside a running
    command (a library call in a program that imported the command line) it says nothing."""
    import click

    if click.get_current_context(silent=True) is not None:
        note(text)


def _listen_for_skipped_words() -> None:
    """The library's notes on what it read (words skipped) and on a cache folder it cannot write,
    said on stderr while a command runs."""
    from ..lexicon.cache import cache_notes
    from ..lexicon.load import skipped_word_notes

    for notes in (skipped_word_notes, cache_notes):
        if note_skipped_words not in notes:
            notes.append(note_skipped_words)


_listen_for_skipped_words()


# --- a position, given the same way to every command ---------------------------------------------------
CGP_ARG_HELP = ("The position as a CGP line: '<board> <racks> <scores> <zero-turns> [opcodes]' ('-': the first line of "
                "stdin; or give --cgp, or --board and --rack).")
CGP_HELP = "The position as a CGP line (instead of the CGP argument)."
BOARD_HELP = ("A plain-text board instead of a CGP ('-': stdin): one row per line, '.' or space empty, uppercase "
              "tile, lowercase blank.")
RACK_HELP = "The rack of the player to move, with --board ('?' for a blank)."
JOBS_HELP = ("Worker processes of this machine, or Ray tasks at once [default: 1; with --backend ray --address, "
             "the cluster's CPUs]; results do not depend on it.")
RULESET_HELP = ("Ruleset name or alias (english, russian, erudit, super, ...) or a .toml/.json ruleset file "
                "[default: the ruleset the CGP's ld opcode names, else that of its lex opcode's shipped lexicon, "
                "else english].")

# the options that give a position, declared once for every command that reads one
CgpArg = Annotated[Optional[str], typer.Argument(metavar="[CGP]", help=CGP_ARG_HELP)]
#: the CGP of a command that takes no --board (infer: the position after the opponent's play, racks included)
CgpOnlyArg = Annotated[Optional[str], typer.Argument(
    metavar="[CGP]", help=CGP_ARG_HELP.replace("; or give --cgp, or --board and --rack)", "; or give --cgp)"))]
CgpOption = Annotated[Optional[str], typer.Option("--cgp", help=CGP_HELP)]
BoardOption = Annotated[Optional[Path], typer.Option("--board", help=BOARD_HELP, dir_okay=False,
                                                     allow_dash=True, callback=dash_is_stdin)]
RackOption = Annotated[Optional[str], typer.Option("--rack", help=RACK_HELP)]
RulesetOption = Annotated[Optional[str], typer.Option("--ruleset", "-r", help=RULESET_HELP)]
LexiconOption = Annotated[Optional[str], typer.Option(
    "--lexicon", "-l",
    help="Lexicon: an embedded name, a word list or a .kwg file [default: the CGP's lex when shipped, else the ruleset's].",
)]


def load_position(cgp_arg: "str | None", cgp: "str | None", board, rack: "str | None", ruleset: "str | None",
                  lexicon: "str | None" = None):
    """The position of a command: a CGP (the argument or ``--cgp``), or ``--board FILE --rack R``.

    The ruleset is ``--ruleset``, else the CGP's ``ld`` (or ``lex``) opcode when it names a shipped
    one, else English; the lexicon ``--lexicon``, else the one the CGP's ``lex`` names when
    racksmith ships it, else the ruleset's (a note on stderr says when ``lex`` names another)."""
    import typer

    from ..core.position import Position
    from ..errors import CGPError, PositionError, UnknownLetterError
    from ..formats.naming import rulesets_that_read
    from ..lexicon import load_lexicon
    from ..rules.alphabet import without_twin_hint
    from ..rules.ruleset import get_ruleset

    if cgp_arg is not None and cgp is not None:
        raise typer.BadParameter("give the CGP once: as the argument or with --cgp", param_hint="--cgp")
    text = cgp_arg if cgp_arg is not None else cgp
    if text == "-":
        text = _cgp_from_stdin()
    if (text is None) == (board is None):
        raise typer.BadParameter("give the position as a CGP (the argument or --cgp), or with --board and --rack",
                                 param_hint="CGP/--board")
    if board is not None and rack is None:
        raise typer.BadParameter("--board needs --rack", param_hint="--rack")
    if text is not None and rack is not None:
        raise typer.BadParameter("--rack goes with --board (a CGP holds the racks)", param_hint="--rack")
    rs = get_ruleset(ruleset) if ruleset is not None else None
    lex = load_lexicon(lexicon, ruleset=rs if rs is not None else _cgp_ruleset(text)) if lexicon is not None else None
    if text is not None:
        try:
            pos = Position.from_cgp(text, rs, lexicon=lex)
        except CGPError as e:
            if e.rulesets:
                _spelled_in(str(e).split("; the position is spelled")[0], e.rulesets)
            raise
        if lexicon is None:
            note_cgp_lexicon(pos.opcodes, pos.lexicon_name)
        return pos
    spelled = rs or get_ruleset("english")
    try:
        return _board_position(board, rack, spelled, lex)
    except UnknownLetterError as e:
        fits = rulesets_that_read(lambda other: _reads_board(board, rack, other), spelled)
        if fits:
            # spelled in another ruleset's letters throughout, and not in twins of this one's: no keyboard slip
            _spelled_in(str(e) if _twins_read(board, rack, spelled) else without_twin_hint(str(e)), fits)
        if str(e).startswith("board file") and str(e).endswith(", a space that is no letter"):  # (U+00A0 for a square)
            raise UnknownLetterError(f"{e}: write '.' or a plain space for an empty square") from None
        raise
    except PositionError as e:
        if rs is None:  # no ruleset given: a board of another size may be another ruleset's (21 rows: super)
            fits = rulesets_that_read(lambda other: _reads_board(board, rack, other), spelled)
            if fits:
                fail(f"{e}; it is a position of {' or '.join(fits)}: give "
                     + " or ".join(f"--ruleset {name}" for name in fits))
        raise


def _cgp_from_stdin() -> str:
    """The CGP of ``-``: the first line of standard input that is not blank, read as UTF-8 whatever
    the locale (a byte-order mark, which Windows Notepad writes, is dropped)."""
    stream = sys.stdin
    if stream is None:
        fail("the CGP is '-' but stdin is closed: give the CGP line")
    raw = getattr(stream, "buffer", None)
    for n, line in enumerate(raw if raw is not None else stream):
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8-sig" if n == 0 else "utf-8")
            except UnicodeDecodeError as e:
                fail(f"the CGP read from stdin is not UTF-8 text (bad byte {line[e.start]:#04x} at offset {e.start} "
                     "of its line): save it as UTF-8")
        elif n == 0:
            line = line.removeprefix("\ufeff")
        if line.strip():
            if any("\udc80" <= c <= "\udcff" for c in line):  # bytes the locale could not decode, as for an argument
                encoding = getattr(stream, "encoding", None) or sys.getfilesystemencoding()
                fail(f"usage error: the CGP read from stdin is not text in this locale's encoding ({encoding}): "
                     "run racksmith with a UTF-8 locale (LC_ALL=C.UTF-8) or PYTHONUTF8=1", 2)
            return line.strip()
    fail("the CGP is '-' but stdin holds no line: pipe the CGP line in, or give it as the argument")


def _spelled_in(message: str, rulesets) -> NoReturn:
    """Fail with ``message``, naming the rulesets whose letters read the position (each a --ruleset to give)."""
    fail(f"{message}; the position is spelled in the letters of {' or '.join(rulesets)}: give "
         + " or ".join(f"--ruleset {name}" for name in rulesets))


def _board_position(board, rack: str, ruleset, lexicon):
    """The position of ``--board FILE --rack R``; a letter the ruleset lacks is an
    :class:`~racksmith.errors.UnknownLetterError` saying where it is."""
    from ..core.position import Position
    from ..errors import UnknownLetterError
    from .moves_cmds import read_board

    try:
        tiles = ruleset.alphabet.rack(rack)
    except UnknownLetterError as e:
        raise UnknownLetterError(f"rack {rack!r}: {e}") from None
    # (an empty rack while the bag holds tiles is not known, as in a CGP: the commands that need it ask for it)
    return Position(ruleset, read_board(board, ruleset), (tiles, ()), lexicon=lexicon)


def _reads_board(board, rack: str, ruleset) -> bool:
    """Does ``ruleset`` make a position of ``--board FILE --rack R`` (its letters, its board, its tile counts)?"""
    from ..errors import RacksmithError

    try:
        _board_position(board, rack, ruleset, None)
    except RacksmithError:
        return False
    return True


def _twins_read(board, rack: str, ruleset) -> bool:
    """Do the twins in ``ruleset``'s script of the letters of ``--rack R`` and of the board file
    (Cyrillic ``А`` for Latin ``A``...) spell a position of ``ruleset``: was a letter of the other
    script a keyboard slip? (A board that cannot be read again, stdin, counts as empty.)"""
    from ..errors import RacksmithError
    from ..lexicon.files import read_bounded
    from ..rules.alphabet import twin

    a = ruleset.alphabet
    try:
        a.rack(twin(rack))
    except RacksmithError:
        return False
    try:
        text = read_bounded(board, 1 << 20, "board file", RacksmithError).decode("utf-8-sig")
    except (RacksmithError, UnicodeDecodeError):
        text = ""
    try:
        for line in text.splitlines():
            for square in a.split(twin(line)):
                if square not in (".", " "):
                    a.tile(square)
    except RacksmithError:
        return False
    return True


def _cgp_ruleset(text):
    from ..formats.cgp import cgp_ruleset
    from ..rules.ruleset import get_ruleset

    return cgp_ruleset(text) if text is not None else get_ruleset("english")


def position_lexicon(pos):
    """The position's lexicon, or a clean failure when its ruleset names none."""
    if pos._lexicon is None and pos._lexicon_spec is None and pos.ruleset.lexicon is None:
        fail(f"ruleset {pos.ruleset.name} names no lexicon: pass --lexicon")
    return pos.lexicon


LEAVES_HELP = ("Leave values: a .klv2/.klv file, a leave,value CSV, a shipped set (english, super, russian, erudit), "
               "or 'none' [default: the ruleset's shipped leaves].")


def resolve_leaves(option: "str | None", ruleset):
    """The leaves a command uses: ``--leaves`` (a file, a shipped set, or ``none``), else the
    ruleset's shipped leaves (:func:`racksmith.lexicon.default_leaves` decides)."""
    from ..lexicon import default_leaves, load_leaves

    if option is None:
        return default_leaves(ruleset)
    if option.strip().lower() == "none":
        return None
    return load_leaves(option, ruleset)


#: what equity is without leave values, as every note that says so words it
WITHOUT_LEAVES = "equity without leave values (score, opening and end-of-game adjustments)"


def making_leaves(rack_size: int) -> str:
    """How to make a leave file for a ruleset of racks of ``rack_size``, for a note: training
    handles racks of 2 to 7 tiles; longer racks' leaves are built from a CSV."""
    if rack_size > 7:
        return "'racksmith leaves build' makes one of a leave,value CSV (training handles racks of 2 to 7 tiles)"
    return "'racksmith leaves train --ruleset FILE' trains one for a ruleset"


def note_equity_without_leaves(why: str, who: str, give: str, rack_size: int = 7) -> None:
    """The one note on stderr of a command whose equity has no leave values to add: ``note: {why}:
    {who} equity without leave values (...); give {give}``, then how to make a leave file. ``why``:
    ``no --leaves given`` (selfplay), ``racksmith ships no leave values for polish``; ``who``:
    ``the moves are ranked by``, ``p1 (equity) plays``; ``give``: ``--leaves FILE``,
    ``--p1 equity:leaves=FILE``. Nothing for racks of one tile (``rack_size``), which keep no leave:
    their equity is the score, with leave values or without."""
    if rack_size <= 1:
        return
    note(f"note: {why}: {who} {WITHOUT_LEAVES}; give {give} (a .klv2 file, or a leave,value CSV; "
         f"{making_leaves(rack_size)})")


def ships_no_leaves(option: "str | None", ruleset) -> bool:
    """Does ``option`` (``--leaves`` or a player's ``leaves=``; None when not given) mean the
    ruleset's shipped leaves (by default, or ``shipped``, whatever files the folder holds: a file of
    that name is ``./shipped``), for a ruleset racksmith ships none for (a ruleset file of your
    own)? Those are no leave values at all."""
    from ..lexicon.shipped_leaves import default_leaves_name

    if option is not None and option.strip().lower() != "shipped":
        return False  # (as load_leaves reads "shipped": the_rulesets_own)
    return default_leaves_name(ruleset) is None


def inference_scope(result) -> str:
    """How much of the racks an inference saw, for a title or a note."""
    if result.exact:
        return f"every one of {result.racks_total:,} racks tried, {result.total_draws:,} draws, {result.seconds:.1f} s"
    return (f"estimated from {result.samples:,} random deals ({result.total_draws:,} kept) in {result.seconds:.1f} s, "
            f"not from every one of the {result.racks_total:,} racks")


def signed(x: float, digits: int = 2) -> str:
    """``x`` with its sign and ``digits`` decimals, never ``-0.00`` (a small negative rounds to +0.00)."""
    return f"{round(x, digits) + 0.0:+.{digits}f}"


def given(name: str) -> bool:
    """Whether the option ``name`` (its parameter name) was given on the command line (or by the
    environment), not left at its default."""
    import click
    from click.core import ParameterSource

    ctx = click.get_current_context(silent=True)
    return ctx is not None and ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT,
                                                                         ParameterSource.PROMPT)
