"""``racksmith show``, ``score`` and ``validate``: a position, a move's score, a move's legality.

Each takes the position the same way as ``racksmith moves``: a CGP as the argument or with
``--cgp``, or a plain-text board with ``--board FILE --rack R``."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import IllegalMoveError
from .common import (
    CgpArg, CgpOption, BoardOption, RackOption, RulesetOption, emit_json, fail, load_position, note, position_lexicon,
    say, say_table, write_results,
)

MOVE_HELP = (
    "The move: '8D QUIRK' across, 'D8 QUIRK' down, 'QU(I)RK' or 'QU.RK' through a tile, '-ABC' exchange, '-' pass; "
    "under --ruleset erudit, '8D <word> *12H' first takes back the star on 12H."
)


def _illegal(e: IllegalMoveError, as_json: bool, lexicon: "str | None" = None) -> None:
    if as_json:
        out = {"legal": False, "reason": e.reason, "message": e.message, "words": list(e.words)}
        if lexicon is not None:
            out["lexicon"] = lexicon
        emit_json(out)
    judged = f" (words judged by {lexicon})" if lexicon is not None and e.reason == "invalid_words" else ""
    fail(f"illegal move ({e.reason}): {e.message}{judged}")


def show(
    cgp_arg: CgpArg = None,
    cgp: CgpOption = None,
    board: BoardOption = None,
    rack: RackOption = None,
    ruleset: RulesetOption = None,
    move: Optional[str] = typer.Option(None, "--move", "-m", help="Draw this move on the board (its new tiles and their premiums). " + MOVE_HELP),
    svg: Optional[Path] = typer.Option(None, "--svg", help="Also write the picture as SVG to this file ('-': to stdout, "
                                       "instead of the text board).", dir_okay=False),
    size: int = typer.Option(32, "--size", min=8, max=512, help="With --svg: pixels a square."),
    as_json: bool = typer.Option(False, "--json", help="Print the position as JSON on stdout (with --move, its score too)."),
) -> None:
    """Show a position: the board with its premiums, the racks, the scores and the bag; with
    --move, the move drawn on it and its score."""
    from ..lexicon.files import write_atomically
    from ..formats.render import render_rich, render_svg

    to_stdout = svg is not None and str(svg) == "-"  # (a file named '-' by its full path: "$PWD/-")
    if to_stdout and as_json:
        raise typer.BadParameter("--svg - writes the picture to stdout, where --json writes too: give --svg a file",
                                 param_hint="--svg")
    pos = load_position(cgp_arg, cgp, board, rack, ruleset)
    scored = None
    if move is not None:
        try:
            scored = pos.score(move)
        except IllegalMoveError as e:
            _illegal(e, as_json)
    drawn = scored.move if scored is not None else None
    if scored is not None:
        # drawn as asked (a puzzle's wrong answer may be drawn on purpose), but never passed off as legal
        verdict = pos.validate(drawn, position_lexicon(pos))
        if not verdict.legal:
            note(f"note: {drawn.notation()} is drawn as asked, but it is not legal here ({verdict.reason}: "
                 f"{verdict.message})")
    if to_stdout:
        write_results(render_svg(pos, move=drawn, size=size))
        return
    if svg is not None:
        write_atomically(svg, render_svg(pos, move=drawn, size=size).encode("utf-8"))
    if as_json:
        d = pos.to_dict()
        if scored is not None:
            d["move"] = scored.to_dict()
        emit_json(d)
        return
    say(render_rich(pos, move=drawn))
    unfinal = not_final_line(pos)
    if unfinal is not None:
        say(unfinal)
    if scored is not None:
        say(str(scored))


def not_final_line(pos) -> "str | None":
    """The line under a position whose game is over but whose scores are not final (its
    :meth:`~racksmith.core.position.Position.outcome` has ``uncounted`` players: a rack not known,
    whose tiles left the end could not count); None for any other position."""
    from ..errors import RacksmithError

    try:
        outcome = pos.outcome()
    except RacksmithError:  # an ending the rules cannot score: nothing to say of its scores
        return None
    if outcome is None or outcome.final:
        return None
    n = len(pos.racks)
    racks = [("the rack to move" if i == 0 else "the opponent's rack" if n == 2 else f"the rack of next {i}")
             for i in outcome.uncounted]
    how = "a player went out" if str(outcome.ending.reason) == "out" else "scoreless turns"
    are = "are" if len(racks) > 1 else "is"
    return (f"game over ({how}): the scores are not final: they do not count the tiles left on "
            f"{' and '.join(racks)}, which {are} not known")


def score(
    cgp_arg: CgpArg = None,
    move: str = typer.Option(..., "--move", "-m", help=MOVE_HELP),
    cgp: CgpOption = None,
    board: BoardOption = None,
    rack: RackOption = None,
    ruleset: RulesetOption = None,
    as_json: bool = typer.Option(False, "--json", help="Print the breakdown as JSON on stdout."),
) -> None:
    """Score a move word by word and tile by tile (the lexicon is not consulted; the geometry is)."""
    pos = load_position(cgp_arg, cgp, board, rack, ruleset)
    try:
        result = pos.score(move)
    except IllegalMoveError as e:
        _illegal(e, as_json)
    if as_json:
        emit_json(result.to_dict())
        return
    say_table(score_table(result))


def _blank_letter(result, letter: str) -> str:
    """How a blank standing for ``letter`` is written: its alphabet's lowercase (a Turkish ``İ``'s
    is ``i``), Python's when the move carries no alphabet."""
    a = result.move.alphabet
    return a.lower(letter) if a is not None else letter.lower()


def score_table(result):
    """A score breakdown for people: each word with its tiles (points, the letter premium under a
    new tile), the word multiplier and the word's score; the bingo; the total."""
    from rich.table import Table
    from rich.text import Text

    from ..rules.coords import coord_label

    tiles = {(t.row, t.col): t for t in result.tiles}
    table = Table(title=Text(result.move.notation()), title_justify="left", show_edge=False)
    for col, justify in (("word", "left"), ("tiles", "left"), ("letters", "right"), ("× word", "right"), ("score", "right")):
        table.add_column(col, justify=justify)
    for w in result.words:
        cells = Text()
        for r, c in w.squares:
            t = tiles[(r, c)]
            if cells:
                cells.append("  ")
            letter = _blank_letter(result, t.letter) if t.blank else t.letter
            cells.append(letter, style="bold" if t.new else "dim")
            if t.new and t.letter_multiplier > 1:  # face value × premium = points: I 1×3=3
                cells.append(f" {t.points // t.letter_multiplier}×{t.letter_multiplier}={t.points}")
            else:
                cells.append(f" {t.points}", style=None if t.new else "dim")
        name = Text(w.text + ("" if w.main else "  (cross)"))
        table.add_row(name, cells, str(w.sum), str(w.word_multiplier), str(w.score))
    if result.bingo:
        table.add_row("bingo", "", "", "", str(result.bingo))
    table.add_row("total", "", "", "", str(result.score), style="bold")
    new = [t for t in result.tiles if t.new]
    if new:
        where = ", ".join(f"{(_blank_letter(result, t.letter) if t.blank else t.letter)} {coord_label(t.row, t.col)}"
                          for t in new)
        caption = f"new tiles: {where}; an old tile (dim) scores its face value, a premium only under a new tile"
        a = result.move.alphabet
        if result.move.reclaimed and a is not None:
            taken = ", ".join(f"{coord_label(r, c)} ({a.letter(t)} put in its place)" for r, c, t in result.move.reclaimed)
            caption += f"; star taken back from {taken}, played this turn"
        table.caption = Text(caption)
        table.caption_justify = "left"
    return table


def validate(
    cgp_arg: CgpArg = None,
    move: str = typer.Option(..., "--move", "-m", help=MOVE_HELP),
    cgp: CgpOption = None,
    board: BoardOption = None,
    rack: RackOption = None,
    ruleset: RulesetOption = None,
    lexicon: Optional[str] = typer.Option(
        None, "--lexicon", "-l", help="Lexicon: an embedded name, a word list (.txt) or a .kwg file [default: the CGP's lex when shipped, else the ruleset's]."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON on stdout."),
) -> None:
    """Check that a move is legal for the player to move (the CGP's first rack) and give its score;
    an illegal move exits 1 (its verdict still on stdout with --json), as grep does when nothing matches."""
    pos = load_position(cgp_arg, cgp, board, rack, ruleset, lexicon)
    verdict = pos.validate(move, position_lexicon(pos))
    if not verdict.legal:
        _illegal(IllegalMoveError(verdict.reason, verdict.message, verdict.words), as_json, pos.lexicon_name)
    if as_json:
        emit_json({**verdict.to_dict(), "lexicon": pos.lexicon_name})  # (the word list that judged it)
        return
    say(f"legal: {verdict.move.notation()} scores {verdict.score}")


def register(app: typer.Typer) -> None:
    app.command("show")(show)
    app.command("score")(score)
    app.command("validate")(validate)
