"""``racksmith best``: which play is best here, by the method the stage of the game calls for."""
from __future__ import annotations

import dataclasses
import time
from typing import Optional

import typer

from ..errors import RacksmithError
from .common import (
    LEAVES_HELP, BoardOption, CgpArg, CgpOption, LexiconOption, RackOption, RulesetOption, emit_json, err_console,
    fail, finite, given, inference_scope, load_position, note, position_lexicon, resolve_leaves, say, say_table,
)
from .search_cmds import fail_naming_tt_mb, tt_mb_named, tt_mb_option
from .sim_cmds import SIM_EQUITY, WINPCT_HELP, load_winpct_option, note_sim_without_leaves


def best(
    cgp_arg: CgpArg = None,
    cgp: CgpOption = None,
    board: BoardOption = None,
    rack: RackOption = None,
    ruleset: RulesetOption = None,
    lexicon: LexiconOption = None,
    seconds: Optional[float] = typer.Option(
        10.0, "--seconds", "-s", min=0.001, callback=finite,
        help="Time the method may take (--exact takes the limit away).",
    ),
    exact: bool = typer.Option(False, "--exact", help="No time limit: solve the endgame or pre-endgame to the end (this can take "
                               "minutes), simulate until sure of the best play at 0.99 or 5,000 iterations."),
    leaves: Optional[str] = typer.Option(None, "--leaves", help="Of static equity and the simulation's play-outs. "
                                         + LEAVES_HELP),
    threads: int = typer.Option(1, "--threads", "-t", min=1, max=64, help="Threads (simulation, endgame and pre-endgame)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, max=2**64 - 1,
                                       help="Seed of the simulation [default: random, printed]."),
    infer: Optional[str] = typer.Option(None, "--infer", metavar="MOVE",
                                        help="The opponent's last play (on the board): the simulation draws his rack from what "
                                             "it left, inferred within a quarter of --seconds."),
    infer_samples: Optional[int] = typer.Option(None, "--infer-samples", min=1, max=5_000_000,
                                                help="Bound --infer by racks instead of time, so that --seed reproduces it: "
                                                     "every rack when there are no more, else this many dealt at random."),
    winpct: Optional[str] = typer.Option(None, "--winpct", help=WINPCT_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print {best, method, exact, summary, fallback, result} as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not show the search's progress on stderr."),
    tt_mb: int = tt_mb_option("the endgame and pre-endgame solvers"),
) -> None:
    """Which play is best for the player to move: with the bag empty the endgame solver, with one
    tile in it the pre-endgame solver, before that a simulation (static equity where none applies),
    within --seconds."""
    from ..review.best import best_play

    if exact and given("seconds"):
        fail("give --seconds or --exact, not both: --exact takes the time limit away", 2)
    if infer_samples is not None and infer is None:
        fail("--infer-samples bounds --infer: give --infer MOVE too", 2)
    pos = load_position(cgp_arg, cgp, board, rack, ruleset, lexicon)
    position_lexicon(pos)
    klv = resolve_leaves(leaves, pos.ruleset)
    table = load_winpct_option(winpct)  # (a bad file said now, not after the inference)

    def progress(method: str, partial) -> None:
        if quiet:
            return
        if method == "endgame":
            err_console.print(f"endgame depth {partial.depth:>2}  {partial.value:+d}  "
                              + " ".join(m.notation() for m in partial.pv), highlight=False, markup=False)
        elif method == "peg":
            err_console.print(f"pre-endgame: {partial.move.notation()} settled", highlight=False, markup=False)

    limit = None if exact else seconds
    opponent_racks = None
    if infer is not None:
        if len(pos.racks) == 2 and pos.bag_count >= 2:  # the simulation's stage
            from ..sim.infer import infer_leaves

            started = time.monotonic()
            bound = (dict(samples=infer_samples, exact_up_to=infer_samples) if infer_samples is not None
                     else dict(seconds=None if exact else seconds / 4))
            opponent_racks = infer_leaves(pos, infer, leaves=klv, seed=seed or 0, threads=threads, **bound)
            if limit is not None:
                limit = max(limit - (time.monotonic() - started), 0.001)
            if not quiet:
                note(f"inferred {len(opponent_racks.leaves):,} leaves of the opponent from {opponent_racks.play} "
                     f"({inference_scope(opponent_racks)})")
        elif not quiet:
            note(f"--infer is for the simulation: with {pos.bag_count} tile{'s' if pos.bag_count != 1 else ''} in the bag "
                 "the solver takes every rack the unseen tiles allow")
    try:
        result = best_play(pos, limit, leaves=klv, threads=threads, seed=seed, progress=progress,
                           opponent_racks=opponent_racks, winpct=table, tt_mb=tt_mb)
    except RacksmithError as e:  # (the endgame solver's table: --tt-mb named)
        fail_naming_tt_mb(e)
        raise
    if result.fallback is not None:  # (a solver that could not run, static equity instead: --tt-mb named)
        result = dataclasses.replace(result, summary=tt_mb_named(result.summary), fallback=tt_mb_named(result.fallback))
    if result.method in _BY_EQUITY:  # (the solvers value no leave: nothing to say for them)
        note_sim_without_leaves(leaves, pos.ruleset, _BY_EQUITY[result.method])
    if as_json:
        if result.method == "sim" and result.result.note:  # (the text's summary line says it)
            note(f"note: {result.result.note}")
        emit_json(result.to_dict())
        return
    say(f"best: {result.move.notation()}")
    say(f"{_METHOD[result.method]}: {result.summary}")
    if result.method == "sim":
        from .sim_cmds import sim_table

        say_table(sim_table(result.result))
        say(f"seed {result.result.seed}")
    elif result.method == "peg":
        from .search_cmds import peg_table

        say_table(peg_table(result.result, top=10))
    elif result.method == "endgame":
        say("line: " + " ".join(m.notation() for m in result.result.pv))


_METHOD = {"endgame": "endgame solver", "peg": "pre-endgame solver", "sim": "simulation", "static": "static equity"}

#: what the methods that value leaves value by equity, for the note of a ruleset without shipped leaves
_BY_EQUITY = {"sim": SIM_EQUITY, "static": "the moves are ranked by"}


def register(app: typer.Typer) -> None:
    app.command("best")(best)
