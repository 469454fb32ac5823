"""``racksmith endgame``: the exact endgame solver on a position whose bag is empty;
``racksmith peg``: the pre-endgame."""
from __future__ import annotations

from typing import Any, List, Optional

import typer

from ..errors import RacksmithError
from .stopping import INTERRUPTED, stopped_by_signals
from .common import (
    CgpArg, CgpOption, BoardOption, RackOption, RulesetOption, LexiconOption, emit_json, err_console, finite,
    fail, load_position, position_lexicon, say, say_table, signed,
)

#: racksmith.search.endgame's MAX_DEPTH and MAX_THREADS (not imported: it loads the search kernel;
#: tests/test_cli_inputs.py holds them equal)
MAX_DEPTH = 120
MAX_THREADS = 64
#: racksmith.search.endgame's DEFAULT_TT_MB, and the most megabytes the solvers take (held equal
#: by tests/test_starved_files.py)
TT_MB = 64
MAX_TT_MB = 1 << 16


def tt_mb_option(what: str):
    """``--tt-mb``: the transposition table of the solvers ``what`` names."""
    return typer.Option(TT_MB, "--tt-mb", min=1, max=MAX_TT_MB, metavar="MB",
                        help=f"Megabytes of the transposition table of {what}: a smaller one "
                             "needs less memory and may take longer; an exact answer does not depend on it.")


def tt_mb_named(message: str) -> str:
    """A solver's message with this option (``--tt-mb``) where it names the library's ``tt_mb``
    (no memory for the table asked for)."""
    from ..search.endgame import SMALLER_TT_MB

    return message.replace(SMALLER_TT_MB, "give a smaller --tt-mb")


def endgame(
    cgp_arg: CgpArg = None,
    cgp: CgpOption = None,
    board: BoardOption = None,
    rack: RackOption = None,
    ruleset: RulesetOption = None,
    lexicon: LexiconOption = None,
    plies: Optional[int] = typer.Option(None, "--plies", "-p", min=1, max=MAX_DEPTH,
                                        help="Stop after this depth [default: search until exact]."),
    seconds: Optional[float] = typer.Option(
        None, "--seconds", "-s", min=0.001, callback=finite,
        help="Stop after this much time, with the last depth completed. It counts the whole solve: setting up "
             "(cutting the lexicon down to the words the racks could play, a few ms to ~0.1 s, not cut short: "
             "the floor of any limit) and the search; a limit that ends before depth 1 completes gives the "
             "highest-scoring move, unsearched (depth 0)."
    ),
    threads: int = typer.Option(1, "--threads", "-t", min=1, max=MAX_THREADS,
                                help="Threads searching (the values and the moves do not depend on it; among "
                                     "lines of equal value after a move, the one shown may)."),
    top: Optional[int] = typer.Option(
        None, "--top", "-n", min=1,
        help="Value the best K moves exactly, each with its line (multi-PV), and show them as a table "
             "[default: the best alone]."),
    move: Optional[str] = typer.Option(
        None, "--move", "-m", help="Also value this play ('8D QUIRK', 'pass') and show what it loses against the best."
    ),
    as_json: bool = typer.Option(
        False, "--json",
        help="Print {value, exact, depth, best, pv, nodes, seconds, line [{move, score, player}], ending, "
             "final_scores, final_spread} as JSON (player 0: the player to move; with --top: top [{move, value, pv, "
             "exact, line, ending, final_scores, final_spread}]; with --move: move {move, value, loses}; stopped by "
             "Ctrl-C: \"stopped\": \"interrupted\")."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not show each depth on stderr."),
    tt_mb: int = tt_mb_option("the search (shared by its threads)"),
) -> None:
    """Solve the endgame (the bag empty; an opponent's rack left empty is the unseen tiles): what best
    play by both sides adds to the mover's spread, the best move and the line (each move with its
    score), how the line ends the game (going out, or the scoreless turns) and the final scores,
    deepening one ply at a time (each depth shown on stderr). --top K: the K best moves, each valued
    exactly with its line, every other move proven no better; --move: the exact value of one play
    and what it loses. Ctrl-C (or SIGTERM) stops the search as --seconds does: the last depth
    completed is printed, marked interrupted, and the exit code is 130 (143)."""
    from rich.text import Text

    from ..search.endgame import solve_endgame

    pos = load_position(cgp_arg, cgp, board, rack, ruleset, lexicon)
    position_lexicon(pos)
    asked = None
    if move is not None:
        asked = pos.resolve(move)  # a play that cannot be read fails here, before the search
        if pos.is_over:
            fail(f"the game is over: {asked.notation()} cannot be played")

    def shown(r) -> None:
        if quiet:
            return
        line = Text(f"depth {r.depth:>2}  ", style="bold")
        line.append(f"{r.value:+d}", style="green" if r.value >= 0 else "red")
        line.append(f"{' exact' if r.exact else ''}  {r.nodes:,} nodes  {r.seconds:.2f} s  ")
        line.append(" ".join(move_text(m) for m in r.pv), style="cyan")
        err_console.print(line, highlight=False, soft_wrap=True)

    try:
        with stopped_by_signals() as stop:
            result = solve_endgame(pos, plies, seconds, threads, on_depth=shown, move=asked, top=top or 1,
                                   tt_mb=tt_mb, cancel=stop.cancel)
    except RacksmithError as e:
        fail_naming_tt_mb(e)
        raise
    if stop.signum is not None and result.depth == 0:  # (stopped before depth 1 ended: nothing found)
        stop.deliver()
    interrupted = stop.signum is not None and not result.exact
    _give_endgame(pos, result, top, as_json, _valued_move(asked, result), interrupted)
    stop.deliver()


def _valued_move(asked, result) -> "dict[str, Any] | None":
    """``--move``'s figures: the play, its value, what it loses against the best (None: not asked)."""
    if asked is None or result.move_value is None:
        return None
    return {"move": asked.notation(), "value": result.move_value, "loses": result.value - result.move_value}


def _give_endgame(pos, result, top: "int | None", as_json: bool, valued: "dict[str, Any] | None",
                  interrupted: bool) -> None:
    """An endgame's answer on stdout, as a table and lines or as JSON (``interrupted``: Ctrl-C
    stopped the search, which is said)."""
    if as_json:
        out = result.to_dict()
        if top is not None and "top" not in out:  # (--top 1: the list of one, as asked)
            out["top"] = [line.to_dict() for line in result.top]
        if valued is not None:
            out["move"] = valued
        if interrupted:
            out["stopped"] = INTERRUPTED
        emit_json(out)
        return
    if result.best is None:
        say("the game is over: nothing to play")
        return
    state = "exact" if result.exact else f"depth {result.depth}, not exact"
    if result.depth == 0:
        state += ": the time ran out before depth 1 ended, the highest-scoring move unsearched"
    if top is not None:
        say_table(endgame_table(result))
    say(f"best {move_text(result.best)}  value {result.value:+d} ({state})")
    for text in endgame_line_text(result.line, pos.ruleset, result.exact):
        say(text)
    if valued is not None:
        say(f"{valued['move']}: {valued['value']:+d}, loses {valued['loses']} against the best "
            f"{result.best.notation()} {result.value:+d}" + ("" if result.exact else f" ({state})"))
    if interrupted:
        say(f"interrupted: not exact (the answer of depth {result.depth}, the last completed)")
    say(f"{result.nodes:,} nodes in {result.seconds:.2f} s")


#: the players of an endgame's line, in the position's order
_PLAYERS = ("the player to move", "the opponent")


def endgame_line_text(line, ruleset, exact: bool = True) -> list[str]:
    """An endgame line for people: ``line:`` each move with its score (a pass as ``(pass)``; a line
    cut by the depth ends with ``...``), then, when it plays to the end of the game, ``end:`` how
    (who goes out, with the rack he is paid for, doubled or added as the ruleset scores it; or
    the scoreless turns, each rack taken from its player) and ``final:`` the scores and who wins by
    how much (``exact`` False: noted as not proven)."""
    moves = ", ".join("(pass)" if m.is_pass else f"{m.notation()} {m.score}" for m in line.pv)
    out = [f"line: {moves}" + (", ..." if line.ending is None else "")]
    if line.ending is None or line.final_scores is None:
        return out
    out.append("end: " + _ending_text(line.ending, ruleset))
    a, b = line.final_scores
    if a == b:
        verdict = "a tie"
    else:
        verdict = f"{_PLAYERS[0 if a > b else 1]} wins by {abs(a - b)}"
    out.append(f"final: {a} to {b}: {verdict}" + ("" if exact else " (not exact: better play may change it)"))
    return out


def _ending_text(ending, ruleset) -> str:
    """How a line ends: ``the opponent goes out: +28 (QV 14, doubled)``, under the club rule
    ``... +14 (QV); the player to move -14 (QV)``, or ``6 scoreless turns in a row: the player to
    move -3 (AIT), the opponent -14 (QV)``."""
    a = ruleset.alphabet

    def adjustment(adj) -> str:
        return f"{_PLAYERS[adj.player]} {adj.points:+d} ({a.rack_string(adj.tiles, blanks_last=True)})"

    if str(ending.reason) == "out":
        parts = []
        for adj in ending.adjustments:
            tiles = a.rack_string(adj.tiles, blanks_last=True)
            if str(adj.kind) == "out":
                value = ruleset.rack_value(adj.tiles)
                how = f" {value}, doubled" if adj.points == 2 * value and value else ""
                parts.append(f"{_PLAYERS[adj.player]} goes out: {adj.points:+d} ({tiles}{how})")
            else:
                parts.append(adjustment(adj))
        return "; ".join(parts) if parts else f"{_PLAYERS[ending.player]} goes out"
    turns = ruleset.zero_turn_limit
    head = f"{turns} scoreless turn{'s' if turns != 1 else ''} in a row"
    taken = sorted(ending.adjustments, key=lambda adj: adj.player)  # the player to move first
    return head + (": " + ", ".join(adjustment(adj) for adj in taken) if taken else "")


def endgame_table(result):
    """A Rich table of an endgame's best moves (``result.top``): rank, move, value, exact, line."""
    from rich.table import Table
    from rich.text import Text

    table = Table(show_edge=False)
    for name, justify in (("#", "right"), ("move", "left"), ("value", "right"), ("exact", "left"), ("line", "left")):
        table.add_column(name, justify=justify)
    for i, line in enumerate(result.top, 1):
        table.add_row(str(i), Text(move_text(line.move)), f"{line.value:+d}", "yes" if line.exact else "no",
                      Text(" ".join(move_text(m) for m in line.pv)))
    return table


def move_text(move) -> str:
    """A move for people in a table or a line of progress: its notation, a pass as ``(pass)`` (as an
    endgame's ``line:`` and the web page write it), not the bare ``-`` of the notation."""
    return "(pass)" if move.is_pass else move.notation()


def peg(
    cgp_arg: CgpArg = None,
    cgp: CgpOption = None,
    board: BoardOption = None,
    rack: RackOption = None,
    ruleset: RulesetOption = None,
    lexicon: LexiconOption = None,
    top: Optional[int] = typer.Option(None, "--top", "-n", min=1, help="Consider only the best N placements by score (and the pass) [default: every play]."),
    seconds: Optional[float] = typer.Option(
        None, "--seconds", "-s", min=0.001, callback=finite, help="Stop after this much time (the answer is then marked not exact)."
    ),
    solve_all: bool = typer.Option(False, "--all", help="Solve every play exactly, not only as far as it takes to show it is no better than the best."),
    moves: Optional[List[str]] = typer.Option(
        None, "--move", "-m", help="Solve only this play ('5H PU(T)', 'pass'); repeat for several. With --all, each one's exact figures."
    ),
    threads: int = typer.Option(1, "--threads", "-t", min=1, max=MAX_THREADS,
                                help="Searches at once on different bag tiles (the best play, its chance and spread do not depend on it)."),
    as_json: bool = typer.Option(False, "--json", help="Print {plays: [{move, win_probability, ...}], exact, best, nodes, seconds} as JSON "
                                 "(stopped by Ctrl-C: \"stopped\": \"interrupted\")."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not show each play on stderr as it is settled."),
    tt_mb: int = tt_mb_option("the searches (one table a thread, of MB / --threads each)"),
) -> None:
    """The pre-endgame (1 to 6 tiles in the bag in English): the play with the best chance of
    winning over the possible bag tiles, or the orders they can come out in (a tie counts one
    half), then the best mean final spread, exactly; every other play proven no better (its chance
    and spread exact, or bounded), best first. Ctrl-C (or SIGTERM) stops the search as --seconds
    does: what was found is printed, marked interrupted, and the exit code is 130 (143)."""
    if top is not None and moves:
        fail("give --top or --move, not both: --move names the plays to solve", 2)
    pos = load_position(cgp_arg, cgp, board, rack, ruleset, lexicon)
    position_lexicon(pos)

    def shown(p) -> None:
        if not quiet:
            err_console.print(f"{move_text(p.move):<24} {_chance(p):>16}  {_spread(p)}",
                              highlight=False, markup=False, soft_wrap=True)

    try:
        with stopped_by_signals() as stop:
            result = pos.solve_peg(top, seconds=seconds, solve_all=solve_all, on_play=shown, threads=threads,
                                   moves=moves or None, tt_mb=tt_mb, cancel=stop.cancel)
    except RacksmithError as e:
        fail_naming_tt_mb(e)
        raise
    if stop.signum is not None and not any(p.exact or p.estimated_draws for p in result.plays):
        stop.deliver()  # (stopped while setting up: nothing found)
    interrupted = stop.signum is not None and not result.exact
    _give_peg(result, as_json, interrupted)
    stop.deliver()


def _give_peg(result, as_json: bool, interrupted: bool) -> None:
    """A pre-endgame's answer on stdout, as a table or as JSON (``interrupted``: Ctrl-C stopped the
    search, which is said)."""
    if as_json:
        out = result.to_dict()
        if interrupted:
            out["stopped"] = INTERRUPTED
        emit_json(out)
        return
    say_table(peg_table(result))
    if not result.exact:
        why = "interrupted" if interrupted else "stopped by the time limit"
        say(f"{why}: not exact (the first play may not be the best)")
    say(f"{result.nodes:,} nodes in {result.seconds:.2f} s")


def fail_naming_tt_mb(e: Exception) -> None:
    """Stop with ``e``'s message naming --tt-mb when it asks for a smaller table; any other error
    is left to the caller."""
    said = tt_mb_named(str(e))
    if said != str(e):
        fail(said)


def peg_table(result, top: int | None = None):
    """A Rich table of a pre-endgame's plays (the first ``top``; None: all)."""
    from rich.table import Table
    from rich.text import Text

    table = Table(show_edge=False)
    for name, justify in (("#", "right"), ("move", "left"), ("score", "right"), ("win %", "right"),
                          ("mean spread", "right"), ("final spread by bag tile", "left")):
        table.add_column(name, justify=justify)
    for i, p in enumerate(result.plays[:top], 1):
        table.add_row(str(i), Text(move_text(p.move)), str(p.move.score), _chance(p), _spread(p), Text(_tiles(p)))
    return table


#: draws a row of the table names (with four tiles in the bag a play has hundreds; --json has them all)
_SHOWN_DRAWS = 12


def _tiles(p) -> str:
    """The final spread of a play's draws, those known first, at most _SHOWN_DRAWS of them."""
    tiles = [f"{k}:{v:+d}" for k, v in p.outcomes]
    tiles += [f"{k}:{_range(lo, hi)}" for k, lo, hi in p.bounds if lo is not None or hi is not None]
    open_ = len(p.outcomes) + len(p.bounds) - len(tiles)
    out = " ".join(tiles[:_SHOWN_DRAWS])
    if len(tiles) > _SHOWN_DRAWS:
        out += f" (+{len(tiles) - _SHOWN_DRAWS:,} more)"
    if open_:
        out += f"{' ' if out else ''}({open_:,} not bounded)"
    return out


def _chance(p) -> str:
    if p.exact:
        return f"{100 * p.win_probability:.2f}"
    if p.win_probability == p.win_probability_max:
        return f"{100 * p.win_probability:.2f}"
    shown = f"{100 * p.win_probability:.2f}-{100 * p.win_probability_max:.2f}"
    if p.win_probability_estimate is not None and p.estimated_draws < p.draws:  # at a short time limit
        shown += f" (~{100 * p.win_probability_estimate:.1f} over {p.estimated_draws:,} of {p.draws:,})"
    return shown


def _spread(p) -> str:
    if p.exact:
        return signed(p.mean_spread)
    lo, hi = p.mean_spread_min, p.mean_spread_max
    if lo is None and hi is None:
        return "~" + signed(p.mean_spread) if p.estimated_draws else "not solved"
    if lo is None:
        return "<= " + signed(hi)
    return ">= " + signed(lo) if hi is None else f"{signed(lo)}..{signed(hi)}"


def _range(lo, hi) -> str:
    if lo is None:
        return f"<={hi:+d}" if hi is not None else "?"
    return f">={lo:+d}" if hi is None else f"{lo:+d}..{hi:+d}"


def register(app: typer.Typer) -> None:
    app.command("endgame")(endgame)
    app.command("peg")(peg)
