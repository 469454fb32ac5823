"""``racksmith match``: paired games between two players, the strength benchmark."""
from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Optional

import click
import typer

from ..play.backends import BACKENDS
from .common import JOBS_HELP, emit_json, fail, note, plural, say, signed, stdout

SPEC_HELP = "a player spec KIND[:key=value,...], e.g. score or sim:infer=on (the kinds and their keys: above)."

#: the kinds of player and their keys (play/specs.py registers them; sim/player.py reads sim's)
MATCH_HELP = """Play paired games between two players and report wins, draws, the win rate with its 95%
(Wilson) interval and the mean spread.

A player is KIND[:key=value,...]; leaves=FILE|SET|none [default: the ruleset's shipped leaves]
is taken by equity, sim and endgame.

equity: best static equity (leaves).

score: best score.

sim: Monte Carlo simulation: candidates=10, plies=2, iterations=200, seconds (a simulated turn's, a
quarter of it for infer=on; not the endgame turns'), threads, stop=0.99|none,
min_samples, winpct=NAME|FILE, leaves; with the bag empty the endgame solver: endgame=on|off,
endgame_plies=3|none, endgame_seconds; the opponent's rack inferred from his last play: infer=on|off,
infer_samples=20000.

endgame: static equity, the exact endgame solver once the bag is empty: seconds=10|none, plies, leaves.

A kind of your own (racksmith.register_player_kind) plays once its module is imported: --import MODULE
(the current folder is searched first; the workers import it too)."""


def import_plugins(modules: "list[str]") -> None:
    """Import each module named (``--import``), so that its ``register_player_kind`` calls run
    before the specs are read; the current folder is searched first, as ``python -m`` does (and
    the workers of a local pool get the same path). A module that is not found is bad usage (exit
    2); one whose import fails, exit 1: one line each."""
    import importlib
    import os
    import sys

    for name in modules:
        module = name.strip()
        if module.endswith(".py") or "/" in module or os.sep in module:
            fail(f"--import {name}: give a module's name (myplayers, or mypackage.players), not a file", 2)
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name is not None and (module == e.name or module.startswith(e.name + ".")):
                fail(f"--import {name}: no module named {e.name!r} in the current folder or on the Python path", 2)
            fail(f"--import {name}: importing it failed: {type(e).__name__}: {e}")
        except Exception as e:
            fail(f"--import {name}: importing it failed: {type(e).__name__}: {e}")


def _note_shipped_leaves_missing(specs: "dict[str, str]", ruleset: str) -> None:
    """One note on stderr naming the players that value leaves (equity, sim, endgame) with the
    ruleset's shipped leaves (no ``leaves=``, or ``leaves=shipped``) when racksmith ships none for
    the ruleset (a ruleset file of your own): they play equity without leave values."""
    from ..play.specs import parse_player_spec, player_kinds
    from ..rules.ruleset import get_ruleset
    from .common import note_equity_without_leaves, ships_no_leaves

    rs = get_ruleset(ruleset)
    bare = []
    for name, text in specs.items():
        spec = parse_player_spec(text)
        keys = player_kinds()[spec.kind].keys
        if keys is not None and "leaves" in keys and ships_no_leaves(dict(spec.params).get("leaves"), rs):
            bare.append((name, spec))
    if not bare:
        return
    who = " and ".join(f"{name} ({spec})" for name, spec in bare) + (" play" if len(bare) > 1 else " plays")
    give = " and ".join(f"--{name} {_with_file(spec)}" for name, spec in bare)
    note_equity_without_leaves(f"racksmith ships no leave values for {rs.name}", who, give, rs.rack_size)


def _note_borrowed_winpct(specs: "dict[str, str]", ruleset: str) -> None:
    """A note on stderr for each sim player whose simulations use a win% table of another ruleset
    (a ruleset file with none of its own: the shipped one nearest its tile count; ``winpct=`` a
    table trained for another) or one with fewer rows than a game has unseen tiles: the note
    ``racksmith sim`` prints (:func:`racksmith.sim.winpct.borrowed_note`), naming the player."""
    from ..errors import RacksmithError
    from ..play.specs import parse_player_spec
    from ..rules.ruleset import get_ruleset
    from ..sim.winpct import borrowed_note

    rs = get_ruleset(ruleset)
    for name, text in specs.items():
        spec = parse_player_spec(text)
        if spec.kind != "sim":
            continue
        try:
            line = borrowed_note(rs, dict(spec.params).get("winpct"),
                                 option=(f"winpct= in --{name}", f"--{name} {_with_file(spec, 'winpct')}"))
        except RacksmithError:
            continue  # (a table that cannot be read: the match says so, as it sets its players up)
        if line is not None:
            note(f"note: {name} ({spec}): {line}")


def _note_search_refused(specs: "dict[str, str]", ruleset: str) -> None:
    """A note on stderr for each endgame player of a ruleset whose endgames the solver takes none
    of (:func:`racksmith.search.endgame.endgame_refusal`), and each sim player of one whose
    play-outs cannot take its stars back (more blanks than they hold): he plays static equity
    there, as ``racksmith best`` and ``analyze`` say of such a position."""
    from ..errors import RacksmithError
    from ..play._gameloop import MAX_KERNEL_STARS
    from ..play.specs import parse_player_spec
    from ..rules.ruleset import get_ruleset
    from ..search.endgame import endgame_refusal

    try:
        rs = get_ruleset(ruleset)
    except RacksmithError:
        return  # (a ruleset that cannot be read: the match says so)
    from ..movegen.generate import play_score_bound
    from ..search.endgame import MAX_SPREAD
    from ..sim.simulate import MAX_PLAYOUT_SCORE, MAX_UNSEEN

    why = endgame_refusal(rs)
    stars = rs.star_reclamation and rs.blanks > MAX_KERNEL_STARS
    play = play_score_bound(rs, max(rs.rows, rs.cols))  # (the most one play could score, any word length)
    end = 2 * rs.rack_size * max(rs.values)
    unseen = sum(rs.counts) - rs.rack_size  # (the opening's unseen tiles, the most a turn sees)
    for name, text in specs.items():
        spec = parse_player_spec(text)
        if spec.kind == "endgame" and why is not None:
            note(f"note: {name} ({spec}) plays static equity with the bag empty too: {why}")
        elif spec.kind == "endgame" and play > MAX_SPREAD:
            note(f"note: {name} ({spec}) may play static equity with the bag empty: one play on the {rs.name} board "
                 f"could score up to {play:,.0f}, and the endgame search takes scores that differ by at most {MAX_SPREAD:,}")
        elif spec.kind == "sim" and stars:
            note(f"note: {name} ({spec}) plays static equity at every turn: the simulation takes stars back "
                 f"from a set of at most {MAX_KERNEL_STARS} blanks, and ruleset {rs.name} has {rs.blanks}")
        elif spec.kind == "sim" and unseen > MAX_UNSEEN:
            note(f"note: {name} ({spec}) plays static equity while more than {MAX_UNSEEN:,} tiles are unseen: the "
                 f"simulation draws from at most {MAX_UNSEEN:,}, and ruleset {rs.name} has {unseen:,} unseen at the start")
        elif spec.kind == "sim" and (int(dict(spec.params).get("plies", 2)) + 1) * play + end > MAX_PLAYOUT_SCORE:
            note(f"note: {name} ({spec}) may play static equity: one play on the {rs.name} board could score up to "
                 f"{play:,.0f}, and the simulation's play-outs hold scores up to {MAX_PLAYOUT_SCORE:,}")


def _with_file(spec, key: str = "leaves") -> str:
    """``spec`` with ``KEY=FILE``: ``equity:leaves=FILE``, ``sim:plies=3,leaves=FILE``."""
    params = [f"{k}={v}" for k, v in spec.params if k != key] + [f"{key}=FILE"]
    return f"{spec.kind}:{','.join(params)}"


def register(app: typer.Typer) -> None:
    @app.command("match", help=MATCH_HELP)
    def match_cmd(
        p1: str = typer.Option(..., "--p1", help="Player 1: " + SPEC_HELP),
        p2: str = typer.Option(..., "--p2", help="Player 2: " + SPEC_HELP),
        games: int = typer.Option(..., "--games", "-n", help="Games to play, an even number (both seats of each tile order)."),
        seed: int = typer.Option(0, "--seed", "-s", min=0, max=2**64 - 1, help="Seed: pair p draws its bag from (seed, p)."),
        ruleset: str = typer.Option("english", "--ruleset", "-r", help="Ruleset name or file."),
        lexicon: Optional[str] = typer.Option(None, "--lexicon", "-l", help="Lexicon [default: the ruleset's]."),
        jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, show_default=False, help=JOBS_HELP),
        backend: str = typer.Option("local", "--backend", click_type=click.Choice(BACKENDS, case_sensitive=False),
                                    help="local (process pool) or ray."),
        address: Optional[str] = typer.Option(None, "--address", help="Ray cluster to join ('auto' or host:port), "
                                              "with --backend ray [default: start one]."),
        gcg_dir: Optional[Path] = typer.Option(None, "--gcg-dir", file_okay=False,
                                               help="Write every game as GCG into this directory (game g to "
                                                    "gameNNNNNN.gcg: pair g // 2; player 1 moves first in even games)."),
        games_csv: Optional[Path] = typer.Option(None, "--games-csv", dir_okay=False,
                                                 help="Write a row a game to this CSV file: the columns of selfplay "
                                                      "--games-csv, with pair and p1_seat after game."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout."),
        imports: Optional[list[str]] = typer.Option(None, "--import", metavar="MODULE",
                                                    help="Import this module first (repeatable): the player kinds it "
                                                         "registers (register_player_kind) can then play."),
    ) -> None:
        from ..errors import RacksmithError
        from ..play.backends import MAX_GAMES, check_address_form, check_jobs
        from ..play.match import match
        from ..play.specs import parse_player_spec
        from .progress import (
            check_output_file, counted_games, end_with_problems, records_folder, warn_stale_records, write_games_csv,
        )

        import_plugins(imports or [])
        for option, spec in (("--p1", p1), ("--p2", p2)):  # a spec that cannot be read is bad usage, as in selfplay
            try:
                parse_player_spec(spec)
            except RacksmithError as e:
                hint = ("; name that module with --import MODULE"
                        if "unknown kind" in str(e) and not imports else "")
                fail(f"{option}: {e}{hint}", 2)
        if not 2 <= games <= MAX_GAMES or games % 2:
            raise typer.BadParameter(f"must be an even number from 2 to {MAX_GAMES:,} (games are played in pairs), "
                                     f"got {games}", param_hint="--games")
        backend = backend.lower()
        if address is not None and backend != "ray":
            raise typer.BadParameter("only with --backend ray (the Ray cluster to join)", param_hint="--address")
        if address is not None:
            try:
                check_address_form(address)  # (a port out of range: bad usage, said at once)
            except RacksmithError as e:
                raise typer.BadParameter(str(e), param_hint="--address") from None
        try:
            if jobs is not None:
                check_jobs(jobs, backend, address=address)
        except RacksmithError as e:
            raise typer.BadParameter(str(e), param_hint="--jobs") from None
        if games_csv is not None:
            check_output_file(games_csv, "--games-csv")
        _note_shipped_leaves_missing({"p1": p1, "p2": p2}, ruleset)
        _note_borrowed_winpct({"p1": p1, "p2": p2}, ruleset)
        _note_search_refused({"p1": p1, "p2": p2}, ruleset)
        # the records' folder made, checked writable and held for the run (another run writing there is refused)
        with records_folder(gcg_dir) if gcg_dir is not None else nullcontext():
            if gcg_dir is not None:
                warn_stale_records(gcg_dir, games)
            stdout()  # the result goes there: a closed stdout (>&-) is said before the games are played, not after
            stopped = "no result printed" + (f", {games_csv} not written" if games_csv is not None else "")
            with counted_games("match", games, stopped, pairs=True) as progress:
                result = match(p1, p2, games, seed=seed, ruleset=ruleset, lexicon=lexicon, jobs=jobs, backend=backend,
                               address=address, progress=progress, gcg_dir=gcg_dir)
            d = result.to_dict()
            problems: list[str] = []  # a line each on stderr, after the result
            write_games_csv(result, games_csv, problems, "")
            if as_json:
                emit_json(d)
            else:
                for name, spec in (("p1", result.p1_spec), ("p2", result.p2_spec)):
                    s = d[name]
                    say(f"{name} {spec}: {plural(s['wins'], 'win')}, {plural(s['losses'], 'loss', 'losses')}, "
                        f"{plural(s['draws'], 'draw')}; win rate "
                        f"{100 * s['win_rate']:.2f}% (95% CI {100 * s['ci95'][0]:.2f}-{100 * s['ci95'][1]:.2f}%), "
                        f"mean spread {signed(s['mean_spread'])}")
                say(f"{plural(d['games'], 'game')} ({plural(d['pairs'], 'pair')}) in {d['seconds']:.1f} s")
            lost = result.records_unwritten
            if lost:
                problems.append(f"the {'record' if lost == 1 else 'records'} of {plural(lost, 'game')} could not be "
                                f"written to {gcg_dir} (first: {result.records_error}); the result above counts every game")
            end_with_problems(problems)
