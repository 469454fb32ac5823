"""HTML for notebooks: the tables that results show as (``_repr_html_``), built as plain strings.

Every result a notebook displays (a simulation, an endgame, an analysis, a game...) shows as a
table like the one the command line prints. :func:`table` builds one from headers and rows: each
cell is escaped (a player's nick, a note, a word from a record are never markup), numbers are
right-aligned, and only the first ``limit`` rows are shown, followed by how many more there are.
:class:`Raw` marks a cell or a part that is markup already (an SVG picture, a table within).
(``MoveList._repr_html_`` still builds its own table; it can move to :func:`table`.)

The output is well-formed XML as well as HTML (no named entity but XML's own), so that it can be
parsed as such; it needs no drawing or templating library.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from html import escape as _escape
from typing import Any

__all__ = ["MAX_ROWS", "Raw", "cell", "escape", "figure", "signed", "table", "text", "block", "join"]

#: the rows a table shows by default; the rest are counted ("… and 12 more")
MAX_ROWS = 100

_TABLE = 'style="border-collapse:collapse"'
_LEFT = ' style="text-align:left;padding:1px 6px"'
_RIGHT = ' style="text-align:right;padding:1px 6px"'


class Raw(str):
    """Markup already made (escaped where it holds text): :func:`table`, :func:`text` and
    :func:`block` put it in as it is."""

    __slots__ = ()


def escape(value: Any) -> str:
    """``value`` as text that is no markup (``<``, ``>``, ``&`` and quotes escaped); None is empty."""
    if isinstance(value, Raw):
        return str(value)
    return "" if value is None else _escape(str(value), quote=True)


def figure(x: "float | None", digits: int = 2) -> str:
    """A number with ``digits`` decimals, ``-`` when it is not known (None or nan)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{digits}f}"


def signed(x: "float | None", digits: int = 2) -> str:
    """A number with its sign and ``digits`` decimals (never ``-0.00``), ``-`` when not known."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{round(x, digits) + 0.0:+.{digits}f}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def cell(value: Any) -> str:
    """One cell's content: None empty, a whole number with thousands separators, a float with two
    decimals (``-`` for nan), a bool ``yes``/``no``, :class:`Raw` as it is, anything else its text,
    escaped."""
    if value is None:
        return ""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return figure(value)
    return escape(value)


def table(headers: Sequence[Any], rows: Iterable[Sequence[Any]], *, right: Iterable[int] = (),
          caption: Any = None, limit: "int | None" = MAX_ROWS, total: "int | None" = None) -> str:
    """An HTML table: ``headers`` (text, escaped), then ``rows``, each a sequence of cells
    (:func:`cell`: escaped, numbers right-aligned). ``right``: the indexes of the columns to
    right-align whatever their cells hold (figures given as text: ``"54.3"``, ``"+12.00"``).
    ``caption``: a title above the table (escaped unless :class:`Raw`). Only the first ``limit``
    rows are shown (None: all), and a line under the table says how many more there are; ``total``
    is the count of all the rows when ``rows`` is not a sized collection (else it is counted)."""
    right = frozenset(right)
    if total is None and hasattr(rows, "__len__"):
        total = len(rows)  # type: ignore[arg-type]
    out = [f"<table {_TABLE}>"]
    if caption is not None:
        out.append(f'<caption style="text-align:left">{escape(caption)}</caption>')
    out.append("<thead><tr>")
    for i, h in enumerate(headers):
        out.append(f"<th{_RIGHT if i in right else _LEFT}>{escape(h)}</th>")
    out.append("</tr></thead><tbody>")
    shown = 0
    more = 0
    for row in rows:
        if limit is not None and shown >= limit:
            if total is not None:
                break
            more += 1
            continue
        shown += 1
        out.append("<tr>")
        for i, value in enumerate(row):
            align = _RIGHT if i in right or _is_number(value) else _LEFT
            out.append(f"<td{align}>{cell(value)}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    if total is not None:
        more = max(total - shown, 0)
    if more:
        out.append(f"<p>… and {more:,} more</p>")
    return "".join(out)


def text(*parts: Any, tag: str = "p") -> str:
    """A paragraph (``tag``: ``p``, ``div``, ``b``...) of ``parts`` joined, each escaped unless :class:`Raw`."""
    return f"<{tag}>{''.join(escape(p) for p in parts)}</{tag}>"


def join(*parts: "str | None") -> Raw:
    """Markup parts one after the other, None and empty ones left out."""
    return Raw("".join(p for p in parts if p))


def block(*parts: "str | None", side: "str | None" = None) -> str:
    """A result's HTML: ``parts`` (markup, one under the other) in a ``div``, and ``side`` (a picture,
    markup) beside them when given."""
    body = f"<div>{join(*parts)}</div>"
    if not side:
        return body
    return (f'<div style="display:flex;gap:16px;align-items:flex-start">{body}'
            f"<div>{side}</div></div>")
