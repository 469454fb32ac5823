"""A long table for a file or a pipe, written as Rich writes it but in time linear in its cells.

Rich measures and renders every cell through its layout engine, about 0.1 ms a cell: a list of
15,000 moves took 7 s to print where its JSON took 0.6 s, and 10^5 moves a minute. The tables of
the command line are simple (cells of plain text on one line, columns justified, the heavy head
box without its edge, or the ASCII box Rich draws instead on an output that cannot show it), and
for those :func:`plain_lines` gives Rich's text exactly, character for character
(``tests/test_cli_tables.py`` holds the two to each other on random tables). A table of any
other shape gets None, and Rich prints it.
"""
from __future__ import annotations

from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text


def _plain(cell: Any) -> str | None:
    """The text of a cell that is plain (a str without markup, or a Text without styles) on one
    line, else None."""
    if isinstance(cell, Text):
        if cell.spans or cell.style or cell.end != "\n" or cell.justify or cell.overflow:
            return None
        s = cell.plain
    elif isinstance(cell, str):
        if "[" in cell:  # markup Rich would interpret
            return None
        s = cell
    else:
        return None
    if any(c < " " or c == "\x7f" for c in s):  # a newline or a tab: Rich wraps or expands it
        return None
    return s


def _justify(text: str, width: int, how: str) -> str:
    if how != "left":  # Rich drops the trailing spaces of a cell it centres or right-justifies
        text = text.rstrip()
    gap = width - cell_len(text)
    if how == "right":
        return " " * gap + text
    if how == "center":
        return " " * (gap // 2) + text + " " * (gap - gap // 2)
    return text + " " * gap


def plain_lines(table: Table, console: Console | None = None) -> list[str] | None:
    """The lines Rich would print for ``table`` at a width it needs no more than (no cell cut
    short or wrapped), without styles; None when the table has a shape this does not write.
    ``console``: where they go; its box is the one Rich draws there (ASCII on an output whose
    encoding is not Unicode: ``Box.substitute``); by default the heavy head box."""
    if (table.box is not box.HEAVY_HEAD or table.show_edge or not table.pad_edge or table.show_footer
            or table.show_lines or table.leading or table.expand or table.width is not None
            or table.padding != (0, 1, 0, 1) or table.caption is not None or table.row_styles
            or table.collapse_padding or table.min_width is not None):
        return None
    title = None
    if table.title is not None:
        title = _plain(table.title)
        if title is None or table.title_justify != "left":
            return None
    cols = table.columns
    if not cols or any(c.width is not None or c.min_width is not None or c.max_width is not None or c.ratio
                       or c.justify not in ("left", "right", "center") or c.vertical != "top" or c.no_wrap
                       or c.overflow not in ("ellipsis", "fold") or c.style or c.header_style or c.footer_style
                       for c in cols):
        return None
    if any(row.style is not None or row.end_section for row in table.rows):
        return None
    header = [_plain(c.header) for c in cols]
    cells = [[_plain(x) for x in c._cells] for c in cols]
    if any(h is None for h in header) or any(x is None for col in cells for x in col):
        return None
    widths = [max(([cell_len(h)] if table.show_header else []) + [cell_len(x) for x in col], default=0)  # type: ignore[arg-type]
              for h, col in zip(header, cells)]
    if any(w == 0 for w in widths):  # an empty column: Rich's measuring differs
        return None
    drawn = table.box
    if console is not None:  # (as Table._render chooses it)
        drawn = drawn.substitute(console.options, safe=table.safe_box if table.safe_box is not None else console.safe_box)
    if not table.show_header:
        drawn = drawn.get_plain_headed_box()
    rows = [[f" {_justify(x, w, c.justify)} " for x, w, c in zip(row, widths, cols)]  # type: ignore[arg-type]
            for row in ([header] if table.show_header else []) + [list(r) for r in zip(*cells)]]
    lines = []
    if title is not None:
        lines.append(title)
    for i, row in enumerate(rows):  # (Rich's dividers: the head's on the first row, the foot's on the last)
        lines.append((drawn.head_vertical if i == 0 else drawn.foot_vertical if i == len(rows) - 1
                      else drawn.mid_vertical).join(row))
        if i == 0 and table.show_header:
            lines.append(drawn.get_row([w + 2 for w in widths], "head", edge=False))
    return lines
