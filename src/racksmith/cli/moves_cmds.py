"""``racksmith moves``: every legal play of a position, ranked by score or by equity."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click
import typer

from ..errors import PositionError, UnknownLetterError
from ..formats.cgp import width_hint
from .common import (
    CgpArg, CgpOption, BoardOption, RackOption, RulesetOption, LexiconOption, emit_json, err_console, fail, load_position,
    position_lexicon, LEAVES_HELP, note_equity_without_leaves, resolve_leaves, say_table, ships_no_leaves,
)

DEFAULT_TOP = 20


def read_board(path: Path, ruleset):
    """A plain-text board: one row per line, every square written (``.`` or a space for an empty
    square, an uppercase letter for a tile, lowercase for a blank, ``[CH]`` for a multi-character
    letter). A row of another width is an error: a square left out would shift the tiles after it. A
    letter the ruleset lacks is an :class:`~racksmith.errors.UnknownLetterError` saying where it is."""
    import numpy as np

    a = ruleset.alphabet
    from ..lexicon.files import read_bounded

    raw = read_bounded(path, 1 << 20, "board file", PositionError)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PositionError(f"board file {str(path)!r} is not UTF-8 text (bad byte at offset {e.start})") from None
    lines = text.splitlines()
    while len(lines) > ruleset.rows and not lines[-1].strip():
        lines.pop()
    if len(lines) != ruleset.rows:
        raise PositionError(
            f"board file {str(path)!r} has {len(lines)} rows, the {ruleset.name} board {ruleset.rows} "
            "(write every row, '.' for empty squares)"
        )
    board = np.zeros((ruleset.rows, ruleset.cols), dtype=np.uint8)
    for r, line in enumerate(lines):
        squares = a.split(line)
        if len(squares) != ruleset.cols:
            raise PositionError(
                f"board file {str(path)!r}, line {r + 1}: {len(squares)} squares, the board is {ruleset.cols} wide "
                "(write every square, '.' for an empty one)" + width_hint(line, [], a)
            )
        for c, sq in enumerate(squares):
            if sq in (".", " "):
                continue
            try:
                board[r, c] = a.tile(sq)
            except UnknownLetterError as e:
                raise UnknownLetterError(f"board file {str(path)!r}, line {r + 1}, column {c + 1}: {e}") from None
    return board


def moves(
    cgp_arg: CgpArg = None,
    cgp: CgpOption = None,
    board: BoardOption = None,
    rack: RackOption = None,
    ruleset: RulesetOption = None,
    lexicon: LexiconOption = None,
    leaves: Optional[str] = typer.Option(
        None, "--leaves", help="For --sort equity and --exchanges (equity = score + leave): " + LEAVES_HELP
    ),
    all_moves: bool = typer.Option(False, "--all", help="List every move."),
    top: Optional[int] = typer.Option(None, "--top", "-n", min=1, help=f"List the best N [default: {DEFAULT_TOP}]."),
    sort: Optional[str] = typer.Option(
        None, "--sort", click_type=click.Choice(["score", "equity"]),
        help="Rank by score or equity [default: equity when there are leaves to add (the ruleset's shipped "
        "leaves, or --leaves other than none), else score].",
    ),
    exchanges: bool = typer.Option(False, "--exchanges", help="Also list exchanges (when the bag allows them)."),
    direction: str = typer.Option(
        "both", "--direction", click_type=click.Choice(["both", "across", "down"]), help="Plays in which direction."
    ),
    algorithm: str = typer.Option(
        "gaddag", "--algorithm", click_type=click.Choice(["gaddag", "dawg"]),
        help="gaddag (Gordon; the lexicon needs a GADDAG) or dawg (Appel-Jacobson).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print {count, moves} as JSON on stdout."),
) -> None:
    """Every legal move of the player to move, best first (the best 20 unless --all or --top);
    moves that tie share a rank."""
    if all_moves and top is not None:
        raise typer.BadParameter("give --all or --top, not both", param_hint="--all/--top")
    pos = load_position(cgp_arg, cgp, board, rack, ruleset, lexicon)
    if not pos.is_over and pos.inferred_racks()[0] is None:  # (Position.moves lists the pass alone: say why instead)
        from ..sim.simulate import UNKNOWN_MOVER

        fail(UNKNOWN_MOVER)
    position_lexicon(pos)
    n = None if all_moves else (top if top is not None else DEFAULT_TOP)
    # equity (score + leave) is what engines rank by; without leaves to add it is the score
    klv = resolve_leaves(leaves, pos.ruleset) if (leaves is not None or sort != "score" or exchanges) else None
    if sort is None:
        sort = "equity" if klv is not None else "score"
    if sort == "equity" and ships_no_leaves(leaves, pos.ruleset):  # (the "by equity" of the table is the score)
        note_equity_without_leaves(f"racksmith ships no leave values for {pos.ruleset.name}", "the moves are ranked by",
                                   "--leaves FILE", pos.ruleset.rack_size)
    ranked = pos.moves(n, sort=sort, leaves=klv, exchanges=exchanges, direction=direction, algorithm=algorithm)
    if pos.is_over:
        err_console.print("the game is over: no move is legal", highlight=False)
    if as_json:
        emit_json({"count": len(ranked), "moves": ranked.to_records()})
        return
    _table(ranked, pos, sort)


def _table(ranked, pos, sort: str) -> None:
    from rich.table import Table
    from rich.text import Text

    a = pos.ruleset.alphabet
    title = f"{pos.ruleset.title}: rack {_rack_used(pos)}, by {sort}"
    table = Table(title=Text(title), title_justify="left", show_edge=False)
    table.add_column("#", justify="right")
    table.add_column("move")
    table.add_column("score", justify="right")
    if ranked.has_equity:
        table.add_column("equity", justify="right")
    table.add_column("leave")
    for i, m in zip(ranked.ranks(sort), ranked):
        row = [str(i), Text(m.notation()), str(m.score)]
        if ranked.has_equity:
            row.append(f"{m.equity:.3f}")
        row.append(Text(a.rack_string(m.leave, blanks_last=True)))
        table.add_row(*row)
    say_table(table)
    err_console.print(f"{len(ranked)} move{'s' if len(ranked) != 1 else ''} listed", highlight=False)


def _rack_used(pos) -> str:
    """The rack whose moves are listed, as the table's title says it: the mover's, or with the bag
    empty the tiles he certainly holds when the position does not give his rack (the unseen ones,
    with the tiles of it known)."""
    a = pos.ruleset.alphabet
    rack = pos.rack
    shown = a.rack_string(rack, blanks_last=True)
    certain = pos.inferred_racks()[0]
    if pos.racks_known[0] or certain is None:
        return shown or "(empty)"
    whole = a.rack_string(certain, blanks_last=True) or "(empty)"
    if not rack:
        return f"{whole} (the unseen tiles: the bag is empty)"
    return f"{whole} ({shown} known, the rest the unseen tiles: the bag is empty)"


def register(app: typer.Typer) -> None:
    app.command("moves")(moves)
