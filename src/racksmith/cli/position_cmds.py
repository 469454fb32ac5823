"""``racksmith show``, ``score`` and ``validate``: a position from CGP, a move's score, a move's legality."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import IllegalMoveError
from .common import emit_json, fail, note_cgp_lexicon, out_console

CGP_HELP = "The position as a CGP line: '<board> <racks> <scores> <zero-turns> [opcodes]'."
RULESET_HELP = "Ruleset name or alias (english, russian, erudit, super, ...) or a .toml/.json ruleset file."
MOVE_HELP = "The move: '8D QUIRK' across, 'D8 QUIRK' down, 'QU(I)RK' or 'QU.RK' through a tile, '-ABC' exchange, '-' pass."


def _position(cgp: str, ruleset: str):
    from ..core.position import Position
    from ..rules.ruleset import get_ruleset

    return Position.from_cgp(cgp, get_ruleset(ruleset))


def _illegal(e: IllegalMoveError, as_json: bool) -> None:
    if as_json:
        emit_json({"legal": False, "reason": e.reason, "message": e.message, "words": list(e.words)})
    fail(f"illegal move ({e.reason}): {e.message}")


def show(
    cgp: str = typer.Option(..., "--cgp", help=CGP_HELP),
    ruleset: str = typer.Option("english", "--ruleset", "-r", help=RULESET_HELP),
    svg: Optional[Path] = typer.Option(None, "--svg", help="Also write the picture as SVG to this file.", dir_okay=False),
    as_json: bool = typer.Option(False, "--json", help="Print the position as JSON on stdout."),
) -> None:
    """Show a position: the board with its premiums, the racks, the scores and the bag."""
    from ..lexicon.files import write_atomically
    from ..formats.render import render_rich, render_svg

    pos = _position(cgp, ruleset)
    if svg is not None:
        write_atomically(svg, render_svg(pos).encode("utf-8"))
    if as_json:
        emit_json(pos.to_dict())
        return
    out_console.print(render_rich(pos), highlight=False, soft_wrap=True)


def score(
    cgp: str = typer.Option(..., "--cgp", help=CGP_HELP),
    move: str = typer.Option(..., "--move", "-m", help=MOVE_HELP),
    ruleset: str = typer.Option("english", "--ruleset", "-r", help=RULESET_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the breakdown as JSON on stdout."),
) -> None:
    """Score a move word by word and tile by tile (the lexicon is not consulted; the geometry is)."""
    from rich.table import Table
    from rich.text import Text

    pos = _position(cgp, ruleset)
    try:
        result = pos.score(move)
    except IllegalMoveError as e:
        _illegal(e, as_json)
    if as_json:
        emit_json(result.to_dict())
        return
    table = Table(title=Text(result.move.notation()), title_justify="left", show_edge=False)
    for col in ("word", "letters", "× word", "score"):
        table.add_column(col, justify="left" if col == "word" else "right")
    for w in result.words:
        table.add_row(Text(w.text + ("" if w.main else "  (cross)")), str(w.sum), str(w.word_multiplier), str(w.score))
    if result.bingo:
        table.add_row("bingo", "", "", str(result.bingo))
    table.add_row("total", "", "", str(result.score), style="bold")
    out_console.print(table, highlight=False, soft_wrap=True)


def validate(
    cgp: str = typer.Option(..., "--cgp", help=CGP_HELP),
    move: str = typer.Option(..., "--move", "-m", help=MOVE_HELP),
    ruleset: str = typer.Option("english", "--ruleset", "-r", help=RULESET_HELP),
    lexicon: Optional[str] = typer.Option(
        None, "--lexicon", "-l", help="Lexicon: an embedded name, a word list (.txt) or a .kwg file [default: the ruleset's]."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON on stdout."),
) -> None:
    """Check that a move is legal for the player to move (the CGP's first rack) and give its score."""
    from ..lexicon import load_lexicon

    pos = _position(cgp, ruleset)
    spec = lexicon if lexicon is not None else pos.ruleset.lexicon
    if spec is None:
        fail(f"ruleset {pos.ruleset.name} names no lexicon: pass --lexicon")
    if lexicon is None:
        note_cgp_lexicon(pos.opcodes, spec)
    verdict = pos.validate(move, load_lexicon(spec, ruleset=pos.ruleset))
    if not verdict.legal:
        _illegal(IllegalMoveError(verdict.reason, verdict.message, verdict.words), as_json)
    if as_json:
        emit_json(verdict.to_dict())
        return
    out_console.print(f"legal: {verdict.move.notation()} scores {verdict.score}", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    app.command("show")(show)
    app.command("score")(score)
    app.command("validate")(validate)
