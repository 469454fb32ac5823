"""``racksmith winpct train|show``, ``racksmith sim`` and ``racksmith infer``."""
from __future__ import annotations

import math

import shlex
import sys
from pathlib import Path
from typing import Optional

import typer

from ..play.backends import MAX_GAMES
from .common import (
    LEAVES_HELP, CgpArg, CgpOnlyArg, CgpOption, BoardOption, RackOption, RulesetOption, emit_json, err_console, fail, finite, inference_scope,
    given, load_position, note, note_equity_without_leaves, position_lexicon, resolve_leaves, say, say_summary,
    say_table, ships_no_leaves, signed,
)

#: the help of --winpct (sim, best, analyze, serve)
WINPCT_HELP = ("Win% table: a shipped ruleset's name (english, super, russian, erudit) or a file, in MAGPIE's winpct "
               "format ('racksmith winpct train' writes one) or Macondo's winpct.csv [default: the ruleset's own; a "
               "ruleset file with none uses the shipped one nearest its tile count, and a note says so].")


def load_winpct_option(spec: "str | None"):
    """The table ``--winpct`` names (None without it), read before anything long runs: a file
    that is not a table is an error at once, not after an inference or the analysis of a game."""
    if spec is None:
        return None
    from ..sim.winpct import load_winpct

    return load_winpct(spec)


winpct_app = typer.Typer(
    help="Win-percentage tables (chance to win by spread and unseen tiles): train them by self-play, look them up.",
    no_args_is_help=True,
)


@winpct_app.command("train")
def winpct_train_cmd(
    ruleset: str = typer.Option("english", "--ruleset", "-r", help="Ruleset to play."),
    games: int = typer.Option(20000, "--games", "-n", min=1, max=MAX_GAMES, help="Self-play games."),
    output: Path = typer.Option(..., "--output", "-o", dir_okay=False,
                                help="The table to write (MAGPIE's winpct format; its provenance goes to OUTPUT.json)."),
    lexicon: Optional[str] = typer.Option(None, "--lexicon", "-l", help="Lexicon [default: the ruleset's]."),
    leaves: Optional[str] = typer.Option(None, "--leaves", help="Of the players (both seats). " + LEAVES_HELP),
    seed: int = typer.Option(0, "--seed", min=0, max=2**64 - 1, help="Seed of the games."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1,
                             help="Worker processes of this machine; results do not depend on it."),
    tallies: Optional[Path] = typer.Option(None, "--tallies", dir_okay=False,
                                           help="Also save the integer swing tallies (.npy) the table is built from."),
) -> None:
    """Train a win% table by self-play of best-equity players."""
    import io

    import numpy as np

    from ..lexicon import load_leaves
    from ..errors import OutputFileError
    from ..lexicon.files import file_identity, write_atomically
    from ..lexicon.shipped_leaves import default_leaves_name
    from ..lexicon.sidecar import written_together
    from ..rules.ruleset import get_ruleset
    from ..sim.winpct import train_winpct
    from .progress import check_output_file, check_output_kind, counted_games

    rs = get_ruleset(ruleset)
    if ships_no_leaves(leaves, rs):  # (the ruleset's shipped leaves, of a ruleset file: there are none)
        note_equity_without_leaves(f"racksmith ships no leave values for {rs.name}",
                                   "the self-play games' players (both seats) play", "--leaves FILE", rs.rack_size)
        leaves = None
    elif leaves is None or leaves.strip().lower() == "shipped":
        leaves = default_leaves_name(rs)  # the players every other command plays: the shipped leaves
    elif leaves.strip().lower() == "none":
        leaves = None
    from ..errors import RacksmithError
    from ..play.backends import check_jobs

    try:
        check_jobs(jobs)
    except RacksmithError as e:
        raise typer.BadParameter(str(e), param_hint="--jobs") from None
    if leaves is not None:
        load_leaves(leaves, rs)  # a bad file is found before the games are played
    check_output_file(output, "--output", sidecar=True)  # found before the games are played, not after
    if tallies is not None:
        check_output_kind(tallies, "--tallies")  # (/dev/stdout, a FIFO: not one to have .npy added to it)
        check_output_file(_npy_name(tallies), "--tallies")  # (the file written: numpy adds .npy to a name without it)
        _tallies_apart(output, tallies)
    args = sys.argv[1:]
    rest = args[args.index("train") + 1:] if "train" in args else args
    command = "racksmith winpct train " + " ".join(shlex.quote(a) for a in rest)
    # a bar on a terminal, else a line now and then: never a blank line left on stderr
    with counted_games("self-play", games, f"no table written ({output} left as it was)") as progress:
        wp, tally = train_winpct(rs, games, lexicon=lexicon, leaves=leaves, seed=seed, jobs=jobs,
                                 progress=progress, command=command)
    before = (file_identity(output), file_identity(_npy_name(tallies)) if tallies else None)
    try:
        with written_together(output):  # (no room for the provenance: the table is not written either)
            wp.save(output)  # the table, and its provenance in OUTPUT.json
        if tallies:  # numpy's .npy bytes, written whole or not at all (a full disk: no half file)
            npy = io.BytesIO()
            np.save(npy, tally.counts)
            try:
                write_atomically(_npy_name(tallies), npy.getvalue())
            except OutputFileError as e:  # (the table is whole: said, not lost with the tallies)
                fail(f"{e} (the table {str(output)!r} and its provenance were written)")
    except KeyboardInterrupt:  # (exit 130, or 128 + the signal): what was written, and what was not
        note("racksmith: " + _interrupted_writing(output, tallies, games, before))
        raise
    summary = (f"{output}: {wp.max_unseen} rows (unseen 1..{wp.max_unseen}), spreads -{wp.max_spread}.."
               f"{wp.max_spread}, {wp.provenance['positions']:,} positions from {games:,} games")
    if tallies:  # (the file written named: numpy adds .npy to a name without it)
        summary += f"\n{_npy_name(tallies)}: the counts it was made from"
    say_summary(summary)  # (both lines together: to stderr together when stdout cannot take them)


def _interrupted_writing(output: Path, tallies: "Path | None", games: int, before: tuple) -> str:
    """What ``winpct train`` stopped by Ctrl-C (or SIGTERM) after its games, while it wrote its
    files, wrote and did not: ``before``, the :func:`~racksmith.lexicon.files.file_identity` of the
    table and of the tallies before (a file written since is another; one put back, the same)."""
    from ..lexicon.files import file_identity
    from ..sim.winpct import provenance_path

    table = file_identity(output) not in (None, before[0])
    npy = tallies is not None and file_identity(_npy_name(tallies)) not in (None, before[1])
    head = f"interrupted after all {games:,} games"
    if not table:
        return (f"{head}, while writing: no table written ({output} left as it was)"
                + (f", {_npy_name(tallies)} not written" if tallies is not None else ""))
    wrote = f"{output} and its provenance {provenance_path(output)} written"
    if tallies is None or npy:
        return f"{head}: {wrote}" + (f", and the tallies {_npy_name(tallies)}" if npy else "") + "; nothing is missing"
    return f"{head}: {wrote}; the tallies {_npy_name(tallies)} not written (run the command again for them)"


def _npy_name(path: Path) -> Path:
    """The file ``numpy.save(path, ...)`` writes: ``path``, with ``.npy`` added when it lacks it."""
    return path if path.name.endswith(".npy") else path.with_name(path.name + ".npy")


def _tallies_apart(output: Path, tallies: Path) -> None:
    """Refuse a --tallies file that would be written over the table (numpy adds .npy to a name
    without it; the provenance, OUTPUT.json, never ends so)."""
    written = _npy_name(tallies)
    if written.resolve() == output.resolve():
        raise typer.BadParameter(f"{str(written)!r} would overwrite the table (--output): choose another file",
                                 param_hint="--tallies")


@winpct_app.command("show")
def winpct_show_cmd(
    table: str = typer.Argument("english", help="A shipped ruleset's table (english, super, russian, erudit) or a file "
                                                 "(MAGPIE's winpct format, or Macondo's winpct.csv)."),
    spread: list[int] = typer.Option([-50, -20, 0, 20, 50], "--spread", "-s", help="Spreads to show."),
    unseen: list[int] = typer.Option([1, 7, 14, 30, 60], "--unseen", "-u", min=1,
                                     help="Unseen tile counts to show (the bag and the opponent's rack: 1 up to the "
                                          "tiles in the set less a rack, the table's last row)."),
    as_json: bool = typer.Option(False, "--json", help='Print {"provenance": ..., "rows": {unseen: {spread: win chance 0..1}}}.'),
) -> None:
    """Win chances of the player to move from a win% table."""
    from rich.table import Table
    from rich.text import Text

    from ..sim.winpct import load_winpct

    wp = load_winpct(table)
    _check_unseen(wp, unseen, table)
    spread = list(dict.fromkeys(spread))  # (a spread given twice is one column, as an unseen count is one row)
    rows = {u: {s: round(wp.get(s, u), 4) for s in spread} for u in unseen}
    if as_json:
        emit_json({"provenance": wp.provenance, "rows": rows})
        return
    t = Table(title=Text(f"win% ({wp.name})"))
    t.add_column("unseen", justify="right")
    for s in spread:
        t.add_column(f"{s:+d}", justify="right")
    for u, r in rows.items():
        t.add_row(str(u), *[f"{100 * v:.1f}" for v in r.values()])
    say_table(t)
    made = _winpct_made(wp.provenance)
    if made:
        say(made)


def _winpct_made(provenance: "dict | None") -> str:
    """One line saying how a win% table was made, from its provenance (what ``--json`` prints
    whole): its games, seed and leaves (their sha256's first 12 digits: a set's name has meant
    different tables over time), or "" when it has none."""
    if not provenance:
        return ""
    parts = []
    if isinstance(provenance.get("games"), int):
        parts.append(f"{provenance['games']:,} games")
    if provenance.get("seed") is not None:
        parts.append(f"seed {provenance['seed']}")
    if "leaves" in provenance:
        leaves = provenance.get("leaves") or "none"
        digest = provenance.get("leaves_sha256")
        parts.append(f"leaves {leaves}" + (f" (sha256 {digest[:12]}...)" if isinstance(digest, str) else ""))
    if not parts:
        return ""
    command = provenance.get("command")
    return "trained: " + ", ".join(parts) + (f"; {command}" if isinstance(command, str) else "")


def _check_unseen(wp, unseen: "list[int]", spec: str) -> None:
    """Refuse unseen counts the table has no row for: a table has one per count from 1 (0 tiles
    unseen: the game is over) to the tiles of the set less the mover's full rack (the opening)."""
    from ..rules.ruleset import get_ruleset
    from ..sim.winpct import SHIPPED

    bad = next((u for u in unseen if u > wp.max_unseen), None)
    if bad is None:
        return
    if spec.lower() in SHIPPED:
        rs = get_ruleset(wp.name)
        what, why = f"the {rs.name} table", f" ({rs.total_tiles} tiles in the set less a rack of {rs.rack_size})"
    else:
        what, why = f"win% table {spec!r}", ""
    raise typer.BadParameter(f"{bad} tiles cannot be unseen: {what} has rows for 1 to {wp.max_unseen} unseen tiles{why}",
                             param_hint="--unseen")


def _stop_option(value: str) -> "float | None":
    v = value.strip().lower()
    if v in ("none", "off", "no"):
        return None
    try:
        x = float(v)
    except ValueError:
        raise typer.BadParameter(f"give a confidence such as 0.99, or none; got {value!r}", param_hint="--stop") from None
    if x > 1:
        x /= 100.0  # 99 -> 0.99
    if not 0.5 <= x < 1:
        raise typer.BadParameter(f"the confidence must be at least 0.5 and below 1 (e.g. 0.99, or as a percentage 99), "
                                 f"got {value!r}", param_hint="--stop")
    return x


def check_infer_options(infer: "str | None", seconds_flag: str, samples_flag: str) -> None:
    """The options that bound ``--infer``: only with it, and one of them (exit 2 otherwise)."""
    by_seconds, by_samples = given(seconds_flag[2:].replace("-", "_")), given(samples_flag[2:].replace("-", "_"))
    if infer is None and (by_seconds or by_samples):
        fail(f"{seconds_flag if by_seconds else samples_flag} bounds --infer: give --infer MOVE too", 2)
    if by_seconds and by_samples:
        fail(f"give {seconds_flag} or {samples_flag}, not both: each bounds the inference", 2)


#: what a simulation values by equity, for the note of a ruleset without shipped leaves
SIM_EQUITY = "the candidates, both sides' moves in the play-outs and the rack each play-out ends with are valued by"


def note_sim_without_leaves(option: "str | None", ruleset, who: str = SIM_EQUITY) -> None:
    """The note ``winpct train``, ``match`` and ``moves`` give too, for ``sim`` and ``best``: when
    ``option`` (``--leaves``, None when not given) means the shipped leaves of a ruleset racksmith
    ships none for (a ruleset file of your own), ``who`` (by default a simulation's candidates and
    play-outs) goes without leave values."""
    if ships_no_leaves(option, ruleset):
        note_equity_without_leaves(f"racksmith ships no leave values for {ruleset.name}", who, "--leaves FILE",
                                   ruleset.rack_size)


def sim_table(result, title: str = "simulation", ply_stats: bool = False):
    """A Rich table of a (partial) simulation result; with ``ply_stats``, MAGPIE's per-ply columns
    too: for each ply of the play-outs (P1 the opponent's reply), the mean score of the move
    played there (P1-S) and the percentage of bingos (P1-BP)."""
    from rich.table import Table

    t = Table(title=f"{title}: {result.iterations:,} iterations, {result.seconds:.1f} s ({result.stopped})")
    t.add_column("#", justify="right")
    t.add_column("move")
    t.add_column("win%", justify="right")
    t.add_column("± s.e.", justify="right")
    t.add_column("equity", justify="right")
    t.add_column("± s.e.", justify="right")
    t.add_column("static", justify="right")
    t.add_column("iters", justify="right")
    plies = result.plies if ply_stats else 0
    for j in range(1, plies + 1):
        t.add_column(f"P{j}-S", justify="right")
        t.add_column(f"P{j}-BP", justify="right")
    for i, c in enumerate(result.candidates, 1):
        per_ply = []
        for p in c.ply_stats[:plies]:
            per_ply += [_figure(p.mean_score), _figure(100.0 * p.bingo_fraction)]
        t.add_row(str(i), c.move.notation(), _figure(c.win_pct), _figure(c.stderr),
                  "-" if math.isnan(c.equity) else signed(c.equity), _figure(c.equity_stderr),
                  f"{c.static_equity:.1f}", f"{c.iterations:,}", *per_ply)
    return t


def _figure(x: float) -> str:
    """A win chance, standard error or per-ply figure; '-' when no play-out (or one) made it known."""
    return "-" if math.isnan(x) else f"{x:.2f}"


def sim_cmd(
    cgp_arg: CgpArg = None,
    cgp: CgpOption = None,
    board: BoardOption = None,
    rack: RackOption = None,
    ruleset: RulesetOption = None,
    lexicon: Optional[str] = typer.Option(None, "--lexicon", "-l", help="Lexicon [default: the CGP's or the ruleset's]."),
    leaves: Optional[str] = typer.Option(None, "--leaves", help="Of both players' play-outs, and of the "
                                         "candidates' static equity. " + LEAVES_HELP),
    winpct: Optional[str] = typer.Option(None, "--winpct", help=WINPCT_HELP),
    candidates: int = typer.Option(10, "--candidates", "-c", min=1,
                                   help="Plays to simulate (the best by static equity); with --move, given as well: "
                                        "the best N are added to the plays given."),
    move: Optional[list[str]] = typer.Option(None, "--move", "-m", metavar="MOVE",
                                             help="Simulate this play ('8D QUIRK' as on the board, '-ABC' to exchange, "
                                                  "'pass'); repeat for more. Only the plays given are simulated, "
                                                  "unless --candidates is given too."),
    plies: int = typer.Option(2, "--plies", "-p", min=1, max=32, help="Replies played after each candidate."),
    iterations: Optional[int] = typer.Option(None, "--iterations", "-i", min=1,
                                             help="Most play-outs in all [default: 5000 unless --seconds is given]."),
    seconds: Optional[float] = typer.Option(None, "--seconds", "-s", min=0.001, callback=finite, help="Time limit."),
    threads: int = typer.Option(1, "--threads", "-t", min=1, max=64, help="Threads running play-outs."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, max=2**64 - 1, help="Seed [default: random, printed]."),
    stop: str = typer.Option("0.99", "--stop", help="Confidence at which to stop when the best play is known (0.5 to below 1, or a "
                                         "percentage: 99 is 0.99), or none."),
    round_robin: bool = typer.Option(False, "--round-robin",
                                     help="Give every candidate the same play-outs, in turn, as Quackle does, instead "
                                          "of best-arm identification (which gives more to the plays that may be best): "
                                          "--iterations is the total, shared out evenly (5 plays of 1000 each: -i 5000), "
                                          "and the run goes to --iterations or --seconds unless --stop is given."),
    infer: Optional[str] = typer.Option(None, "--infer", metavar="MOVE",
                                        help="The opponent's last play (on the board): draw his rack from what it left."),
    infer_seconds: float = typer.Option(10.0, "--infer-seconds", min=0.001, callback=finite,
                                        help="Time limit of --infer: every rack tried when that fits, else racks dealt at random."),
    infer_samples: Optional[int] = typer.Option(None, "--infer-samples", min=1, max=5_000_000,
                                                help="Bound --infer by racks instead of time, so that --seed reproduces it: "
                                                     "every rack when there are no more, else this many dealt at random."),
    ply_stats: bool = typer.Option(False, "--ply-stats",
                                   help="Show each ply's mean score (Pn-S) and bingo percentage (Pn-BP) of the "
                                        "play-outs, P1 the opponent's reply, as MAGPIE does (the JSON always has "
                                        "them, with the counts of passes, exchanges, placements and bingos)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout."),
) -> None:
    """Rank the best plays of a position by simulated win chance (Monte Carlo, best-arm identification)."""
    from rich.live import Live

    check_infer_options(infer, "--infer-seconds", "--infer-samples")
    pos = load_position(cgp_arg, cgp, board, rack, ruleset, lexicon)
    position_lexicon(pos)
    confidence = _stop_option(stop)
    if round_robin and not given("stop"):
        confidence = None  # (the same play-outs for every candidate: to the limits, as Quackle runs)
    klv = resolve_leaves(leaves, pos.ruleset)
    table = load_winpct_option(winpct)
    note_sim_without_leaves(leaves, pos.ruleset)
    if pos.bag_count == 0 and len(pos.racks) == 2 and not pos.is_over:
        note(f"note: the bag is empty: a play-out that has not ended after {plies} plies is valued by the win% table "
             "there; `racksmith endgame` solves this position exactly (`racksmith best` uses it)")
    chosen = None
    if move:
        from ..sim.simulate import candidate_moves

        # the plays given, read and checked before anything long runs (an inference); with
        # --candidates given too, the best N by static equity first, then those given not among them
        chosen = candidate_moves(pos, move, leaves=klv)
        if given("candidates"):
            chosen = list(pos.moves(top=candidates, sort="equity", leaves=klv, exchanges=True)) + chosen
        names = [m.notation() for m in chosen]
        chosen = [m for i, m in enumerate(chosen) if names.index(names[i]) == i]  # each play once, where it came first
    inference = None
    if infer is not None:
        from ..sim.infer import infer_leaves

        bound = (dict(samples=infer_samples, exact_up_to=infer_samples) if infer_samples is not None
                 else dict(seconds=infer_seconds))
        inference = infer_leaves(pos, infer, leaves=klv, seed=seed or 0, threads=threads, **bound)
        note(f"inferred {len(inference.leaves):,} leaves of the opponent from {inference.play} ({inference_scope(inference)})")
    live = Live(console=err_console, refresh_per_second=4, transient=True) if err_console.is_interactive else None

    def progress(partial):
        if live is not None:
            live.update(sim_table(partial, ply_stats=ply_stats))

    from .stopping import stopped_by_signals

    if live is not None:
        live.start()
    try:
        # Ctrl-C (SIGTERM, SIGHUP) stops the play-outs as the time limit would: the ranking so far is
        # printed (stopped "interrupted"), then the run ends as interrupted (exit 130, 143, 129)
        with stopped_by_signals() as stop:
            result = pos.simulate(candidates=len(chosen) if chosen else candidates, plies=plies,
                                  iterations=iterations, seconds=seconds, threads=threads, seed=seed, stop=confidence,
                                  opponent_racks=inference, leaves=klv, winpct=table, moves=chosen,
                                  round_robin=round_robin, progress=progress, cancel=stop.cancel)
    finally:
        if live is not None:
            live.stop()
    if stop.signum is not None and not result.iterations:
        stop.deliver()  # (stopped before any play-out: nothing to print)
    _give_sim(pos, result, table, as_json, ply_stats)
    stop.deliver()


def _give_sim(pos, result, table, as_json: bool, ply_stats: bool) -> None:
    """A simulation's answer on stdout: its table and lines, or JSON."""
    from ..sim.winpct import with_borrowed_note

    result = with_borrowed_note(result, pos.ruleset, table)
    if result.note:  # (the table used, when another ruleset's; an inference that kept no leave)
        note(f"note: {result.note}")
    if as_json:
        emit_json(result.to_dict())
        return
    say_table(sim_table(result, ply_stats=ply_stats))
    say(f"seed {result.seed}, {result.plies} plies, {result.iterations / max(result.seconds, 1e-9):,.0f} iterations/s")
    if result.stopped == "interrupted":
        say("interrupted: the ranking of the play-outs run so far")
    if result.opponent_rack == "known" and len(pos.racks) > 1:  # (Quackle draws it unless told: say so)
        if pos.bag_count == 0:  # (certain: the unseen tiles, whatever the CGP gives)
            certain = pos.inferred_racks()[1]
            if certain is not None and not pos.racks_known[1]:
                say(f"the opponent's rack {pos.ruleset.alphabet.rack_string(certain)}: the unseen tiles, certain with "
                    "the bag empty")
        else:
            say(f"the opponent's rack {pos.ruleset.alphabet.rack_string(pos.racks[1])} taken as known, as the CGP gives "
                "it (leave it out, 'RACK/', to draw it from the unseen tiles)")


def infer_cmd(
    cgp_arg: CgpOnlyArg = None,
    move: str = typer.Option(..., "--move", "-m", help="The opponent's last play as on the board ('8D QUIRK', "
                                                          "tiles played through in parentheses), or '-N' for an exchange of N."),
    cgp: CgpOption = None,
    ruleset: RulesetOption = None,
    lexicon: Optional[str] = typer.Option(None, "--lexicon", "-l", help="Lexicon [default: the CGP's or the ruleset's]."),
    leaves: Optional[str] = typer.Option(None, "--leaves", help="Of the opponent's plays (what he is "
                                         "assumed to rank by). " + LEAVES_HELP),
    margin: float = typer.Option(5.0, "--margin", min=0.0, callback=finite,
                                 help="Points within the best equity for a play to count."),
    top: int = typer.Option(30, "--top", "-n", min=1, help="Leaves to show (the JSON has them all)."),
    seconds: Optional[float] = typer.Option(None, "--seconds", "-s", min=0.001, callback=finite,
                                            help="Time limit: every rack is tried when that fits in it, else racks "
                                                 "are dealt at random until the time is up [default: none, every rack]."),
    samples: Optional[int] = typer.Option(None, "--samples", min=1, max=5_000_000,
                                          help="Bound by racks instead of time (reproducible with --seed): every rack "
                                               "when there are no more, else this many dealt at random."),
    seed: int = typer.Option(0, "--seed", min=0, max=2**64 - 1, help="Seed of the random deals."),
    threads: int = typer.Option(1, "--threads", "-t", min=1, max=64, help="Threads sharing the racks (the same answer for any number)."),
    as_json: bool = typer.Option(False, "--json", help="Print every leave with its probability, and the letters, as JSON on stdout."),
    letters: bool = typer.Option(True, "--letters/--no-letters",
                                 help="After the leaves, letter by letter: the chance the leave holds at least 1, 2, ... "
                                      "of it, beside the chance for a leave drawn at random (the JSON has it either way)."),
) -> None:
    """What the opponent kept with his last play: every possible leave and its probability, then
    letter by letter how likely he kept it, against chance."""
    from rich.table import Table

    from ..sim.infer import infer_leaves

    if seconds is not None and samples is not None:
        fail("give --seconds or --samples, not both: each bounds the inference", 2)
    pos = load_position(cgp_arg, cgp, None, None, ruleset, lexicon)
    position_lexicon(pos)
    result = infer_leaves(pos, move, leaves=resolve_leaves(leaves, pos.ruleset), margin=margin, seconds=seconds,
                          samples=samples, exact_up_to=samples or 0, seed=seed, threads=threads)
    if as_json:
        emit_json(result.to_dict())
        return
    t = Table(title=f"after {result.play}: {len(result.leaves):,} leaves, {inference_scope(result)}")
    t.add_column("leave")
    t.add_column("prob%", justify="right")
    t.add_column("draws" if result.exact else "deals", justify="right")
    t.add_column("value", justify="right")
    for lv in result.leaves[:top]:
        t.add_row(str(lv.leave) or "-", f"{100 * lv.probability:.2f}", f"{lv.draws:,}", signed(lv.value))
    say_table(t)
    odds = result.letters() if letters else ()
    if odds:
        size = len(result.leaves[0].leave)
        # as many "at least k" columns as any letter reaches by the inference
        most = max((k for x in odds for k, p in enumerate(x.at_least, 1) if p > 0), default=1)
        lt = Table(title=f"letters kept: % chance of at least k in the leave of {size}, by the inference and "
                         f"by chance (prior: {size} drawn at random from the {len(result.unseen)} unseen tiles)")
        lt.add_column("letter")
        lt.add_column("mean", justify="right")
        lt.add_column("sd", justify="right")
        for k in range(1, most + 1):
            lt.add_column(f"≥{k} %", justify="right")
            lt.add_column("prior", justify="right")
        for x in odds:
            cells = []
            for k in range(1, most + 1):
                held = k <= len(x.at_least)  # (no more than the unseen copies)
                cells += [f"{100 * x.at_least[k - 1]:.2f}" if held else "", f"{100 * x.prior_at_least[k - 1]:.2f}" if held else ""]
            lt.add_row(x.letter, f"{x.mean:.2f}", f"{x.stdev:.2f}", *cells)
        say_table(lt)


def register(app: typer.Typer) -> None:
    app.add_typer(winpct_app, name="winpct")
    app.command("sim")(sim_cmd)
    app.command("infer")(infer_cmd)
