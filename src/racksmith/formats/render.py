"""Pictures of a position: plain text (premium legend on empty squares), Rich text with colours, SVG.

The text form is what ``str(position)`` and ``racksmith show`` print; the SVG is what notebooks
show (``Position._repr_svg_``), built as a string without any drawing library.
"""
from __future__ import annotations

from html import escape

from ..rules.alphabet import BLANK, LETTER_MASK
from ..rules.coords import COLUMNS

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
START_MARK = "*"


def _cell_texts(position) -> tuple[list[list[str]], int]:
    """What each square shows (tile letter, premium legend or start mark) and the cell width."""
    rs = position.ruleset
    a = rs.alphabet
    cells = []
    width = 1
    for r in range(rs.rows):
        row = []
        for c in range(rs.cols):
            t = int(position.board[r, c])
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


def _footer(position) -> list[str]:
    rs = position.ruleset
    a = rs.alphabet
    lines = []
    for i, (rack, score) in enumerate(zip(position.racks, position.scores)):
        who = "to move" if i == 0 else f"player {i + 1}"
        shown = a.rack_string(rack, blanks_last=True) or "-"
        lines.append(f"{who:>9}: {shown:<{rs.rack_size}}  score {score}")
    bag = position.bag_count
    lines.append(f"      bag: {bag} tile{'s' if bag != 1 else ''}" + (
        f"   scoreless turns: {position.zero_turns}" if position.zero_turns else ""
    ))
    lines.append("   legend: = triple word  - double word  \" triple letter  ' double letter")
    if max(rs.word_multipliers + rs.letter_multipliers) > 3:
        lines.append("           ~ quadruple word  ^ quadruple letter")
    lines.append("           lowercase = blank" + (f"  {START_MARK} start" if rs.premium_char(rs.start) == "." else ""))
    return lines


def render_text(position) -> str:
    """The board with column letters and row numbers, then racks, scores and the bag, as plain text."""
    rs = position.ruleset
    cells, w = _cell_texts(position)
    head = "    " + " ".join(f"{COLUMNS[c]:<{w}}" for c in range(rs.cols))
    lines = [head.rstrip()]
    for r in range(rs.rows):
        lines.append(f"{r + 1:>2}  " + " ".join(f"{s:<{w}}" for s in cells[r]).rstrip())
    lines.append("")
    lines.extend(_footer(position))
    return "\n".join(lines)


def render_rich(position):
    """The same picture as :func:`render_text` as a ``rich.text.Text``, premiums and tiles coloured."""
    from rich.text import Text

    rs = position.ruleset
    cells, w = _cell_texts(position)
    text = Text()
    text.append("    " + " ".join(f"{COLUMNS[c]:<{w}}" for c in range(rs.cols)).rstrip() + "\n", style="dim")
    for r in range(rs.rows):
        text.append(f"{r + 1:>2}  ", style="dim")
        for c in range(rs.cols):
            sq = r * rs.cols + c
            t = int(position.board[r, c])
            if t:
                style = "bold black on wheat1" if not t & BLANK else "italic grey35 on wheat1"
            else:
                style = PREMIUMS.get((rs.letter_multipliers[sq], rs.word_multipliers[sq]), PREMIUMS[(1, 1)])[2]
            text.append(f"{cells[r][c]:<{w}}", style=style or None)
            if c + 1 < rs.cols:
                text.append(" ")
        text.append("\n")
    text.append("\n" + "\n".join(_footer(position)))
    return text


def render_svg(position, size: int = 32) -> str:
    """An SVG picture: coloured premium squares, tiles with their letter and points, blanks pale and
    without points, coordinates around the board and the racks below."""
    rs = position.ruleset
    a = rs.alphabet
    margin = size
    width = margin + rs.cols * size + 4
    rack_h = len(position.racks) * size * 0.8 + size * 1.6
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
            t = int(position.board[r, c])
            lm, wm = rs.letter_multipliers[sq], rs.word_multipliers[sq]
            fill = PREMIUMS.get((lm, wm), PREMIUMS[(1, 1)])[1]
            out.append(
                f'<rect x="{x}" y="{y}" width="{size}" height="{size}" fill="{fill}" stroke="white" stroke-width="1"/>'
            )
            if t:
                out.append(_svg_tile(x, y, size, a.letter(t & LETTER_MASK), bool(t & BLANK), rs.value(t)))
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
    for i, (rack, score) in enumerate(zip(position.racks, position.scores)):
        label = "to move" if i == 0 else f"player {i + 1}"
        out.append(
            f'<text x="{margin}" y="{y + size * 0.5:.1f}" font-size="{fs_small * 1.2:.1f}" fill="#333">'
            f'{escape(label)} · {score}</text>'
        )
        tx = margin + size * 3.2
        for t in rack:
            out.append(_svg_tile(tx, y, size * 0.8, a.letter(t) if t else "", t == 0, rs.value(t)))
            tx += size * 0.85
        y += size * 0.8
    bag = position.bag_count
    out.append(
        f'<text x="{margin}" y="{y + size * 0.5:.1f}" font-size="{fs_small * 1.1:.1f}" fill="#555">'
        f'bag: {bag}</text>'
    )
    out.append("</svg>")
    return "\n".join(out)


def _svg_tile(x: float, y: float, size: float, letter: str, blank: bool, points: int) -> str:
    """One tile: the letter large, its points small in the corner; a blank is pale, its letter (if it
    stands for one) grey, and it shows no points."""
    fill = BLANK_FILL if blank else TILE_FILL
    colour = "#8a7a5a" if blank else "#222"
    fs = size * (0.6 if len(letter) == 1 else 0.42)
    parts = [
        f'<rect x="{x + 1:.1f}" y="{y + 1:.1f}" width="{size - 2:.1f}" height="{size - 2:.1f}" rx="{size * 0.12:.1f}" '
        f'fill="{fill}" stroke="#b59a6a" stroke-width="1"/>'
    ]
    if letter:
        parts.append(
            f'<text x="{x + size * 0.45:.1f}" y="{y + size * 0.7:.1f}" font-size="{fs:.1f}" font-weight="bold" '
            f'text-anchor="middle" fill="{colour}">{escape(letter)}</text>'
        )
    if not blank:
        parts.append(
            f'<text x="{x + size * 0.88:.1f}" y="{y + size * 0.88:.1f}" font-size="{size * 0.25:.1f}" '
            f'text-anchor="end" fill="#222">{points}</text>'
        )
    return "".join(parts)
