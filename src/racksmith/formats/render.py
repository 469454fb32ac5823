"""Pictures of a position: plain text (premium legend on empty squares), Rich text with colours, SVG.

The text form is what ``str(position)`` and ``racksmith show`` print; the SVG is what notebooks
show (``Position._repr_svg_``, ``Move._repr_svg_``), built as a string without any drawing library.
Each picture can show a move (``move=``, as ``chess.svg.board(lastmove=...)`` does): its new tiles
highlighted with the premium under each, the tiles it plays through outlined.
"""
from __future__ import annotations

from html import escape
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import _args
from ..errors import RacksmithError
from ..rules.alphabet import BLANK, LETTER_MASK
from ..rules.coords import COLUMNS

if TYPE_CHECKING:  # pragma: no cover
    from rich.text import Text

    from ..core.move import Move
    from ..core.position import Position

#: (letter multiplier, word multiplier) -> (name, SVG fill, Rich style) of premium squares
PREMIUMS: dict[tuple[int, int], tuple[str, str, str]] = {
    (1, 1): ("plain", "#d9d4c5", ""),
    (2, 1): ("double letter", "#a6d1e6", "black on bright_cyan"),
    (3, 1): ("triple letter", "#3d8ec9", "white on blue"),
    (4, 1): ("quadruple letter", "#27418f", "white on dark_blue"),
    (1, 2): ("double word", "#f2b8b5", "black on pink1"),
    (1, 3): ("triple word", "#d9443a", "white on red"),
    (1, 4): ("quadruple word", "#8c1c4a", "white on dark_red"),
}
TILE_FILL = "#f5deb3"
BLANK_FILL = "#fbf3e4"
MOVE_FILL = "#b8e07a"  #: a tile of the move shown (the web page's colours)
MOVE_BLANK_FILL = "#e2f3c6"
MOVE_EDGE = "#5c8f1f"
START_MARK = "*"
PREMIUM_LABEL = {(2, 1): "2L", (3, 1): "3L", (4, 1): "4L", (1, 2): "2W", (1, 3): "3W", (1, 4): "4W"}
#: the width of a character of the SVG's move caption, in font sizes: a wide bold capital's (Helvetica
#: Bold's M is 0.83, its average capital 0.72, a digit 0.56, a space 0.28), so a caption of them fits
CAPTION_CHAR_EM = 0.7
#: the width of a character of the italic note beside a rack, in font sizes (Helvetica's average
#: lowercase letter and space): a longer note is squeezed to the room the picture has for it
NOTE_CHAR_EM = 0.5
#: the width of a character of a rack's label in the SVG (``to move · 12``, a nick), in font sizes
#: (Helvetica's digit, wider than its average lowercase letter): the racks' tiles start after the longest
LABEL_CHAR_EM = 0.56
#: the most characters of a player's name a rack's label shows (a longer one is cut with "…")
LABEL_NAME_CHARS = 12


def _check_position(position, picture: str) -> None:
    """A picture is of a :class:`~racksmith.core.position.Position`."""
    from ..core.position import Position

    if not isinstance(position, Position):
        raise RacksmithError(f"{picture} draws a Position (Position.from_cgp makes one from a CGP), "
                             f"got {_args.show(position)}")


def _move_squares(position, move) -> tuple[dict[tuple[int, int], int], set[tuple[int, int]], Any]:
    """The new tiles of a placement ``(row, col) -> tile``, the squares it plays through, and the
    board it is drawn on (a copy with real letters on the squares of the stars it takes back, if
    any); a move given as text is resolved against the board (an exchange or a pass places nothing)."""
    if move is None:
        return {}, set(), position.board
    from ..core.geometry import resolve_move
    from ..core.turns import reclaimed_board

    m = resolve_move(position, move)
    if not m.is_place:
        return {}, set(), position.board
    new = {(r, c): t for r, c, t in m.placed}
    through = {rc for rc in m.squares if rc not in new}
    return new, through, reclaimed_board(position.board, m)


def _cell_texts(position, new: dict | None = None, board=None) -> tuple[list[list[str]], int]:
    """What each square shows (tile letter, premium legend or start mark) and the cell width."""
    rs = position.ruleset
    a = rs.alphabet
    cells = []
    width = 1
    new = new or {}
    board = position.board if board is None else board
    for r in range(rs.rows):
        row = []
        for c in range(rs.cols):
            t = new.get((r, c)) or int(board[r, c])
            sq = r * rs.cols + c
            if t:
                s = a.letter(t)
            elif sq == rs.start and rs.premium_char(sq) == ".":
                s = START_MARK
            else:
                s = rs.premium_char(sq)
            width = max(width, len(s))
            row.append(s)
        cells.append(row)
    return cells, width


def _rack_views(position) -> list[tuple[Any, str | None, int]]:
    """Each rack as the pictures show it: (the tiles drawn, a note saying where they come from or
    None, how many tiles not known it holds besides). A known rack is its tiles; so is a rack not
    known that holds no tile not known (the player who went out: nothing); a rack not known whose
    tiles the empty bag makes certain (:meth:`~racksmith.core.position.Position.inferred_racks`) is
    those tiles, noted as the unseen ones (as ``racksmith moves`` titles them); any other rack not
    known, its known tiles if any and how many it holds besides."""
    a = position.ruleset.alphabet
    known = position.racks_known
    sizes = position.rack_sizes
    certain = position.inferred_racks() if not all(known) else position.racks
    views = []
    for i, rack in enumerate(position.racks):
        if known[i] or sizes[i] <= len(rack):
            views.append((rack, None, 0))
        elif certain[i] is not None:
            shown = a.rack_string(rack, blanks_last=True)
            note = (f"{shown} known, the rest the unseen tiles" if rack else "the unseen tiles") + ": the bag is empty"
            views.append((certain[i], note, 0))
        else:
            views.append((rack, None, sizes[i] - len(rack)))
    return views


def rack_labels(position) -> list[str]:
    """Each rack as the text pictures write it (:func:`render_text`, :func:`render_rich`): its
    letters (blanks last), ``-`` for a rack holding nothing; a rack not known whose tiles the empty
    bag makes certain, ``ADEKMU (the unseen tiles: the bag is empty)`` (or ``ADEKMU (DY known,
    the rest the unseen tiles: the bag is empty)``); any other rack not known, ``(7 unknown)`` or
    with its known tiles ``DY + 5 unknown``."""
    a = position.ruleset.alphabet
    labels = []
    for tiles, note, unknown in _rack_views(position):
        shown = a.rack_string(tiles, blanks_last=True)
        if note:
            labels.append(f"{shown} ({note})")
        elif unknown:
            labels.append(f"{shown} + {unknown} unknown" if shown else f"({unknown} unknown)")
        else:
            labels.append(shown or "-")
    return labels


def _who(i: int, n: int) -> str:
    """Rack ``i`` of a position of ``n`` racks as the pictures name it: they are in turn order from
    the player to move, not the players' numbers in a record (``"to move"``, ``"opponent"``, or
    with more than two players ``"next 1"``, ``"next 2"``...)."""
    return "to move" if i == 0 else "opponent" if n == 2 else f"next {i}"


def _footer(position, move, cells) -> list[str]:
    """Racks, scores, the bag and the legend of what ``cells`` (:func:`_cell_texts`) show."""
    rs = position.ruleset
    lines = []
    for i, (shown, score) in enumerate(zip(rack_labels(position), position.scores)):
        who = _who(i, len(position.racks))
        lines.append(f"{who:>9}: {shown:<{rs.rack_size}}  score {score}")
    bag = position.bag_count
    lines.append(f"      bag: {bag} tile{'s' if bag != 1 else ''}" + (
        f"   scoreless turns: {position.zero_turns}" if position.zero_turns else ""
    ))
    lines.append("   legend: = triple word  - double word  \" triple letter  ' double letter")
    if max(rs.word_multipliers + rs.letter_multipliers) > 3:
        lines.append("           ~ quadruple word  ^ quadruple letter")
    start_shown = any(START_MARK in row for row in cells)  # (no longer once a tile covers it)
    lines.append("           lowercase = blank" + (f"  {START_MARK} start" if start_shown else ""))
    if move is not None:
        lines.append(f"     move: {_move_line(position, move)}")
    return lines


def _move_line(position, move) -> str:
    """``8D QUIRK +56: Q 8D (2L), U 8E, ...``: the move, its score and where its new tiles go."""
    from ..core.geometry import resolve_move
    from ..rules.coords import coord_label

    from ..errors import IllegalMoveError

    m = resolve_move(position, move)
    if m.is_place and m.score is None:
        try:
            m = position.score(m).move
        except IllegalMoveError:  # drawn all the same: the picture says where the tiles would go
            pass
    rs = position.ruleset
    head = m.notation() + (f" +{m.score}" if m.score is not None else "")
    if not m.is_place:
        return head
    parts = []
    for r, c, t in m.placed:
        sq = r * rs.cols + c
        label = PREMIUM_LABEL.get((rs.letter_multipliers[sq], rs.word_multipliers[sq]))
        parts.append(f"{rs.alphabet.letter(t)} {coord_label(r, c)}" + (f" ({label})" if label else ""))
    taken = [f"the star on {coord_label(r, c)} taken back ({rs.alphabet.letter(letter)} put in its place)"
             for r, c, letter in m.reclaimed if letter]
    return f"{head}: new tiles {', '.join(parts)}" + (f"; {', '.join(taken)}" if taken else "")


def render_text(position: Position, move: Move | str | None = None) -> str:
    """The board with column letters and row numbers, then racks, scores and the bag, as plain
    text; with ``move`` (a :class:`~racksmith.core.move.Move` or its notation), the move's tiles
    on the board and a line saying where they go and on which premiums."""
    _check_position(position, "render_text")
    rs = position.ruleset
    new, _, board = _move_squares(position, move)
    cells, w = _cell_texts(position, new, board)
    head = "    " + " ".join(f"{COLUMNS[c]:<{w}}" for c in range(rs.cols))
    lines = [head.rstrip()]
    for r in range(rs.rows):
        lines.append(f"{r + 1:>2}  " + " ".join(f"{s:<{w}}" for s in cells[r]).rstrip())
    lines.append("")
    lines.extend(_footer(position, move, cells))
    return "\n".join(lines)


def render_rich(position: Position, move: Move | str | None = None) -> Text:
    """The same picture as :func:`render_text` as a ``rich.text.Text``, premiums and tiles
    coloured; the tiles of ``move`` green, those it plays through underlined."""
    from rich.text import Text

    _check_position(position, "render_rich")
    rs = position.ruleset
    new, through, board = _move_squares(position, move)
    cells, w = _cell_texts(position, new, board)
    text = Text()
    text.append("    " + " ".join(f"{COLUMNS[c]:<{w}}" for c in range(rs.cols)).rstrip() + "\n", style="dim")
    for r in range(rs.rows):
        text.append(f"{r + 1:>2}  ", style="dim")
        for c in range(rs.cols):
            sq = r * rs.cols + c
            t = new.get((r, c)) or int(board[r, c])
            if (r, c) in new:
                style = "bold black on green3" if not t & BLANK else "italic black on dark_sea_green2"
            elif t:
                style = "bold black on wheat1" if not t & BLANK else "italic grey35 on wheat1"
                if (r, c) in through:
                    style += " underline"
            else:
                style = PREMIUMS.get((rs.letter_multipliers[sq], rs.word_multipliers[sq]), PREMIUMS[(1, 1)])[2]
            text.append(f"{cells[r][c]:<{w}}", style=style or None)
            if c + 1 < rs.cols:
                text.append(" ")
        text.append("\n")
    text.append("\n" + "\n".join(_footer(position, move, cells)))
    return text


def render_svg(position: Position, move: Move | str | None = None, size: int = 32, *,
               players: "Sequence[str] | None" = None) -> str:
    """An SVG picture: coloured premium squares, tiles with their letter and points, blanks pale
    and without points, coordinates around the board and the racks below (a blank on a rack is a
    dashed tile; an unknown rack says so, and a rack not given whose tiles the empty bag makes
    certain is drawn with those tiles, saying they are the unseen ones).

    ``move`` (a :class:`~racksmith.core.move.Move` or its notation) is drawn on the board: its new
    tiles green, each framed by the premium square under it and labelled with the premium (``3W``),
    the tiles it plays through outlined, and the move with its score written below.
    ``size`` is the side of a square in pixels (at least 8).

    Each rack is labelled with its score and, by default, where it is in the turn order from the
    player to move (``to move``, ``opponent``; with more than two players ``next 1``, ``next 2``...,
    as :func:`render_text`): a position does not know the players' seats. ``players``: their names
    in that order (the mover first, ``NAME, to move`` while the game is on; a name cut to
    :data:`LABEL_NAME_CHARS` characters), as a game that knows them labels the racks
    (:class:`~racksmith.play.players.GameView`'s notebook picture)."""
    _check_position(position, "render_svg")
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not 8 <= size <= 512:
        raise RacksmithError(f"size is the side of a square in pixels, 8 to 512, got {size!r}")
    labels = _svg_labels(position, players)
    rs = position.ruleset
    a = rs.alphabet
    new, through, board = _move_squares(position, move)
    margin = size
    width = margin + rs.cols * size + 4
    fs_caption = size * 0.36
    caption = []  # the move and its score, in lines that fit the picture's width
    if move is not None:
        caption = _wrap_caption(_move_line(position, move), int((width - margin - 4) / (fs_caption * CAPTION_CHAR_EM)))
    line_h = fs_caption * 1.3
    rack_h = len(position.racks) * size * 0.8 + size * (2.4 if move is not None else 1.6) + line_h * max(len(caption) - 1, 0)
    height = margin + rs.rows * size + rack_h
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif">',
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="white"/>',
    ]
    fs_small = size * 0.3
    for c in range(rs.cols):
        out.append(
            f'<text x="{margin + c * size + size / 2:.1f}" y="{margin * 0.7:.1f}" font-size="{fs_small:.1f}" '
            f'text-anchor="middle" fill="#555">{COLUMNS[c]}</text>'
        )
    for r in range(rs.rows):
        out.append(
            f'<text x="{margin * 0.8:.1f}" y="{margin + r * size + size * 0.6:.1f}" font-size="{fs_small:.1f}" '
            f'text-anchor="end" fill="#555">{r + 1}</text>'
        )
    for r in range(rs.rows):
        for c in range(rs.cols):
            sq = r * rs.cols + c
            x = margin + c * size
            y = margin + r * size
            t = int(board[r, c])
            lm, wm = rs.letter_multipliers[sq], rs.word_multipliers[sq]
            fill = PREMIUMS.get((lm, wm), PREMIUMS[(1, 1)])[1]
            out.append(
                f'<rect x="{x}" y="{y}" width="{size}" height="{size}" fill="{fill}" stroke="white" stroke-width="1"/>'
            )
            if (r, c) in new:
                nt = new[(r, c)]
                inset = size * 0.1 if (lm, wm) != (1, 1) else 0
                out.append(_svg_tile(x + inset, y + inset, size - 2 * inset, a.letter(nt & LETTER_MASK), bool(nt & BLANK),
                                     rs.value(nt), move=True))
                label = PREMIUM_LABEL.get((lm, wm))
                if label:
                    out.append(
                        f'<text x="{x + inset + size * 0.05:.1f}" y="{y + inset + size * 0.2:.1f}" '
                        f'font-size="{size * 0.19:.1f}" font-weight="bold" '
                        f'fill="{"#a3231a" if wm > 1 else "#1d4e89"}" class="premium">{label}</text>'
                    )
            elif t:
                out.append(_svg_tile(x, y, size, a.letter(t & LETTER_MASK), bool(t & BLANK), rs.value(t)))
                if (r, c) in through:
                    out.append(
                        f'<rect x="{x + 1.5:.1f}" y="{y + 1.5:.1f}" width="{size - 3:.1f}" height="{size - 3:.1f}" '
                        f'rx="{size * 0.12:.1f}" fill="none" stroke="{MOVE_EDGE}" stroke-width="2" class="through"/>'
                    )
            elif (lm, wm) != (1, 1):
                label = f"{lm}L" if lm > 1 else f"{wm}W"
                out.append(
                    f'<text x="{x + size / 2:.1f}" y="{y + size * 0.62:.1f}" font-size="{fs_small:.1f}" '
                    f'text-anchor="middle" fill="{"#fff" if lm > 2 or wm > 2 else "#333"}">{label}</text>'
                )
            elif sq == rs.start:
                out.append(
                    f'<text x="{x + size / 2:.1f}" y="{y + size * 0.72:.1f}" font-size="{size * 0.6:.1f}" '
                    f'text-anchor="middle" fill="#888">★</text>'
                )
    y = margin + rs.rows * size + size * 0.6
    labels = [f"{label} · {score}" for label, score in zip(labels, position.scores)]
    fs_label = fs_small * 1.2
    tiles_x = margin + max(size * 3.2, max(len(label) for label in labels) * fs_label * LABEL_CHAR_EM + size * 0.3)
    for (rack, note, unknown), label in zip(_rack_views(position), labels):
        out.append(
            f'<text x="{margin}" y="{y + size * 0.5:.1f}" font-size="{fs_label:.1f}" fill="#333" class="rack-label">'
            f'{escape(label)}</text>'
        )
        tx = tiles_x
        for t in sorted(rack, key=lambda t: (t == 0, t)):
            out.append(_svg_tile(tx, y, size * 0.8, a.letter(t) if t else "", t == 0, rs.value(t), rack_blank=t == 0))
            tx += size * 0.85
        # a rack not known: how many tiles it holds besides its known ones drawn first, or where the
        # tiles drawn come from when the empty bag makes them certain
        what = note or ""
        if unknown:
            what = f"+ {unknown} not known" if rack else f"rack not known ({unknown} tiles)"
        if what:
            fs_note = fs_small * 1.1
            room = width - 4 - tx - size * 0.1
            squeeze = f' textLength="{room:.1f}" lengthAdjust="spacingAndGlyphs"' if len(what) * fs_note * NOTE_CHAR_EM > room else ""
            out.append(
                f'<text x="{tx:.1f}" y="{y + size * 0.5:.1f}" font-size="{fs_note:.1f}" fill="#777" '
                f'font-style="italic" class="rack-note"{squeeze}>{escape(what)}</text>'
            )
        y += size * 0.8
    bag = position.bag_count
    out.append(
        f'<text x="{margin}" y="{y + size * 0.5:.1f}" font-size="{fs_small * 1.1:.1f}" fill="#555">'
        f'bag: {bag}</text>'
    )
    if caption:
        # (a caption of several lines: a tspan a line; the lines joined with spaces are the caption)
        lines = escape(caption[0]) if len(caption) == 1 else "".join(
            f'<tspan x="{margin}" dy="{line_h:.1f}">{escape(line)}</tspan>' if i else f"<tspan>{escape(line)}</tspan>"
            for i, line in enumerate(caption))
        out.append(
            f'<text x="{margin}" y="{y + size * 1.2:.1f}" font-size="{fs_caption:.1f}" fill="{MOVE_EDGE}" '
            f'font-weight="bold" class="move">{lines}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def _wrap_caption(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters (at least 10), broken after a ``,``, ``;``
    or ``:`` followed by a space where one is, else at a space, else inside a word."""
    width = max(int(width), 10)
    lines = []
    rest = text
    while len(rest) > width:
        cut = max(rest.rfind(sep, 0, width + 1) for sep in (", ", "; ", ": "))  # (the mark kept, the space dropped)
        if cut > 0:
            lines.append(rest[: cut + 1])
            rest = rest[cut + 2 :]
            continue
        cut = rest.rfind(" ", 0, width + 1)
        if cut > 0:
            lines.append(rest[:cut])
            rest = rest[cut + 1 :]
        else:
            lines.append(rest[:width])
            rest = rest[width:]
    lines.append(rest)
    return lines


def _svg_labels(position, players: "Sequence[str] | None") -> list[str]:
    """The racks' labels of :func:`render_svg` (without the scores): ``players`` (a name a rack,
    the mover's marked ``to move``), else each rack's place in the turn order (:func:`_who`)."""
    n = len(position.racks)
    if players is None:
        return [_who(i, n) for i in range(n)]
    if isinstance(players, str) or not isinstance(players, Sequence) or len(players) != n \
            or not all(isinstance(p, str) for p in players):
        raise RacksmithError(f"players must be the {n} players' names, the player to move first, got {_args.show(players)}")
    names = [p if len(p) <= LABEL_NAME_CHARS else p[:LABEL_NAME_CHARS - 1] + "…" for p in players]
    return [names[0] if position.is_over else f"{names[0]}, to move", *names[1:]]


def _svg_tile(x: float, y: float, size: float, letter: str, blank: bool, points: int, *, move: bool = False,
              rack_blank: bool = False) -> str:
    """One tile: the letter large, its points small in the bottom-right corner (a two-digit value in
    a smaller size, the letter moved up and left to make room for it); a blank is pale, its letter
    (if it stands for one) grey, and it shows no points; a blank on a rack is a dashed tile marked
    with a faint ``?``; a tile of the move shown is green."""
    if move:
        fill, edge = (MOVE_BLANK_FILL if blank else MOVE_FILL), MOVE_EDGE
    else:
        fill, edge = (BLANK_FILL if blank else TILE_FILL), "#b59a6a"
    colour = "#8a7a5a" if blank else "#222"
    two_digits = not blank and points >= 10
    fs = size * (0.52 if two_digits else 0.58) * (1 if len(letter) == 1 else 0.72)
    dash = ' stroke-dasharray="3 2"' if rack_blank else ""
    parts = [
        f'<rect x="{x + 1:.1f}" y="{y + 1:.1f}" width="{size - 2:.1f}" height="{size - 2:.1f}" rx="{size * 0.12:.1f}" '
        f'fill="{fill}" stroke="{edge}" stroke-width="{1.5 if move or rack_blank else 1}"{dash}/>'
    ]
    if rack_blank:
        parts.append(
            f'<text x="{x + size * 0.5:.1f}" y="{y + size * 0.68:.1f}" font-size="{size * 0.5:.1f}" '
            f'text-anchor="middle" fill="#c9b48a" class="blank">?</text>'
        )
    elif letter:
        lx = 0.40 if two_digits else 0.45
        ly = 0.64 if two_digits else 0.68
        parts.append(
            f'<text x="{x + size * lx:.1f}" y="{y + size * ly:.1f}" font-size="{fs:.1f}" font-weight="bold" '
            f'text-anchor="middle" fill="{colour}">{escape(letter)}</text>'
        )
    if not blank:
        ps = size * (0.2 if two_digits else 0.25)
        parts.append(
            f'<text x="{x + size * 0.93:.1f}" y="{y + size * 0.92:.1f}" font-size="{ps:.1f}" '
            f'text-anchor="end" fill="#222">{points}</text>'
        )
    return "".join(parts)
