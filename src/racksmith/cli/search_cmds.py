"""``racksmith endgame``: the exact endgame solver on a position whose bag is empty;
``racksmith peg``: the one-tile pre-endgame."""
from __future__ import annotations

from typing import Optional

import typer

from .common import (
    CgpArg, CgpOption, BoardOption, RackOption, RulesetOption, LexiconOption, emit_json, err_console, load_position,
    position_lexicon, say,
)


def endgame(
    cgp_arg: CgpArg = None,
    cgp: CgpOption = None,
    board: BoardOption = None,
    rack: RackOption = None,
    ruleset: RulesetOption = None,
    lexicon: LexiconOption = None,
    plies: Optional[int] = typer.Option(None, "--plies", min=1, help="Stop after this depth [default: search until exact]."),
    seconds: Optional[float] = typer.Option(
        None, "--seconds", min=0.001, help="Stop after this much time, with the last depth completed."
    ),
    threads: int = typer.Option(1, "--threads", "-t", min=1, help="Threads searching (the answer does not depend on it)."),
    as_json: bool = typer.Option(False, "--json", help="Print {value, exact, depth, best, pv, nodes, seconds} as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not show each depth on stderr."),
) -> None:
    """Solve the endgame (the bag empty; an opponent's rack left empty is the unseen tiles): what best
    play by both sides adds to the mover's spread, the best move and the line, deepening one ply at a
    time (each depth shown on stderr)."""
    from rich.text import Text

    pos = load_position(cgp_arg, cgp, board, rack, ruleset, lexicon)
    position_lexicon(pos)

    def shown(r) -> None:
        if quiet:
            return
        line = Text(f"depth {r.depth:>2}  ", style="bold")
        line.append(f"{r.value:+d}", style="green" if r.value >= 0 else "red")
        line.append(f"{' exact' if r.exact else ''}  {r.nodes:,} nodes  {r.seconds:.2f} s  ")
        line.append(" ".join(m.notation() for m in r.pv), style="cyan")
        err_console.print(line, highlight=False, soft_wrap=True)

    result = pos.solve_endgame(plies, seconds, threads, on_depth=shown)
    if as_json:
        emit_json(result.to_dict())
        return
    if result.best is None:
        say("the game is over: nothing to play")
        return
    state = "exact" if result.exact else f"depth {result.depth}, not exact"
    say(f"best {result.best.notation()}  value {result.value:+d} ({state})")
    say("line: " + " ".join(m.notation() for m in result.pv))
    say(f"{result.nodes:,} nodes in {result.seconds:.2f} s")


def peg(
    cgp_arg: CgpArg = None,
    cgp: CgpOption = None,
    board: BoardOption = None,
    rack: RackOption = None,
    ruleset: RulesetOption = None,
    lexicon: LexiconOption = None,
    top: Optional[int] = typer.Option(None, "--top", "-n", min=1, help="Solve only the best N placements by score (and the pass) [default: every play]."),
    as_json: bool = typer.Option(False, "--json", help="Print {plays: [{move, win_probability, ...}], nodes, seconds} as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not show each play on stderr as it is solved."),
) -> None:
    """The one-tile pre-endgame (one tile in the bag): every play with its exact chance of winning
    over the possible bag tiles (a tie counts one half) and its mean final spread, best first."""
    pos = load_position(cgp_arg, cgp, board, rack, ruleset, lexicon)
    position_lexicon(pos)

    def shown(p) -> None:
        if not quiet:
            err_console.print(f"{p.move.notation():<24} {100 * p.win_probability:6.2f}%  {p.mean_spread:+.2f}",
                              highlight=False, markup=False, soft_wrap=True)

    result = pos.solve_peg(top, on_play=shown)
    if as_json:
        emit_json(result.to_dict())
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(show_edge=False)
    for name, justify in (("#", "right"), ("move", "left"), ("score", "right"), ("win %", "right"),
                          ("mean spread", "right"), ("final spread by bag tile", "left")):
        table.add_column(name, justify=justify)
    for i, p in enumerate(result.plays, 1):
        table.add_row(str(i), Text(p.move.notation()), str(p.move.score), f"{100 * p.win_probability:.2f}",
                      f"{p.mean_spread:+.2f}", Text(" ".join(f"{k}:{v:+d}" for k, v in p.outcomes)))
    say(table)
    say(f"{result.nodes:,} nodes in {result.seconds:.2f} s")


def register(app: typer.Typer) -> None:
    app.command("endgame")(endgame)
    app.command("peg")(peg)
