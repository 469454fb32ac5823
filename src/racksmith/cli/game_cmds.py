"""``racksmith selfplay`` and ``racksmith analyze``: games between built-in players, analysis of a record."""
from __future__ import annotations

import math
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Optional

import typer

from .common import (
    LEAVES_HELP, STDIN, dash_is_stdin, emit_json, err_console, fail, finite, given, input_name, making_leaves, note, note_equity_without_leaves, plural, resolve_leaves, say, say_table,
    ships_no_leaves,
)
from .sim_cmds import WINPCT_HELP, load_winpct_option


def selfplay(
    games: int = typer.Option(100, "--games", "-n", help="How many complete games to play."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, max=2**64 - 1,
                             help="Series seed: game i draws its bag from (seed, i)."),
    ruleset: str = typer.Option("english", "--ruleset", "-r", help="Ruleset name or file."),
    lexicon: Optional[str] = typer.Option(None, "--lexicon", "-l", help="Lexicon [default: the ruleset's]."),
    leaves: Optional[str] = typer.Option(
        None, "--leaves", help="Leave values of the equity players without their own: a .klv2/.klv file, a leave,value "
        "CSV, a shipped set (english, super, russian, erudit) or 'none' [default: none: equity without leaves].",
    ),
    players: str = typer.Option(
        "equity,equity", "--players", "-p", help="Players, comma-separated: equity, score, random; "
        "equity:leaves=FILE|SET|none gives an equity player leaves of its own.",
    ),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Worker processes (results do not depend on it)."),
    gcg_dir: Optional[Path] = typer.Option(None, "--gcg-dir", help="Write every game as GCG into this directory "
                                           "(game i to gameNNNNNN.gcg, NNNNNN = i on 6 digits).", file_okay=False),
    games_csv: Optional[Path] = typer.Option(None, "--games-csv", dir_okay=False, help="Write a row a game to this "
                                             "CSV file: game, seed, bag, first, each player's name, score and bingos, "
                                             "turns, end (out, scoreless, stopped), spread, winner."),
    fast: bool = typer.Option(
        False, "--fast", help="Skip the independent validator on each play (tile and score invariants are still checked)."
    ),
    engine: str = typer.Option(
        "auto", "--engine", help="auto: the kernel's game loop for equity and score players, Python for others; "
        "kernel; python (results are the same).",
    ),
    paired: bool = typer.Option(False, "--paired", help="Two players and an even --games: games 2i and 2i+1 share "
                                "a bag, seats swapped."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON on stdout."),
) -> None:
    """Play complete games between built-in players and report speed, scores, bingos, wins and
    invariant violations (tiles conserved, plays legal, scores the sum of their events).

    With --gcg-dir, a game whose record cannot be written (a full disk, the folder removed) does
    not stop the series: the report counts every game, and the command then exits 1 saying how
    many records are missing. Stopped by Ctrl-C, it says on stderr how many games were played and
    which records were written. Another run writing records to the same --gcg-dir meanwhile is
    refused before any game."""
    from ..errors import RacksmithError
    from ..lexicon import load_leaves
    from ..lexicon.load import ruleset_lexicon
    from ..rules.ruleset import get_ruleset
    from ..play.backends import MAX_GAMES, check_jobs
    from ..play.selfplay import ENGINES, SelfPlayConfig, _Series, parse_player, parse_players, run_selfplay
    from .progress import (
        check_output_file, counted_games, end_with_problems, records_folder, warn_stale_records, write_games_csv,
    )

    # bad usage first, then what the options name (files, folders): all of it before any note is shown
    if not 1 <= games <= MAX_GAMES:
        fail(f"--games must be 1..{MAX_GAMES:,}, got {games}", 2)
    if paired and games % 2:
        raise typer.BadParameter(f"must be even with --paired (games 2i and 2i+1 share a bag), got {games}",
                                 param_hint="--games")
    try:
        check_jobs(jobs)
    except RacksmithError as e:
        raise typer.BadParameter(str(e), param_hint="--jobs") from None
    try:
        kinds = parse_players(players)
    except RacksmithError as e:
        fail(f"--{e}", 2)  # the library names the parameter: 'players ...'
    if paired and len(kinds) != 2:
        raise typer.BadParameter(f"plays two players, got {len(kinds)} ({', '.join(kinds)})", param_hint="--paired")
    engine = engine.strip().lower()
    if engine not in ENGINES:
        fail(f"--engine must be auto, kernel or python, got {engine!r}", 2)
    config = SelfPlayConfig(
        players=kinds,
        ruleset=ruleset,
        lexicon=lexicon,
        leaves=leaves if leaves is not None and leaves.strip().lower() != "none" else None,
        seed=seed,
        validate=not fast,
        gcg_dir=str(gcg_dir) if gcg_dir is not None else None,
        paired=paired,
        engine=engine,
    )
    rs = get_ruleset(ruleset)
    if lexicon is None and rs.lexicon is None:
        fail(f"ruleset {rs.name} names no lexicon: pass --lexicon")
    lex = ruleset_lexicon(rs, lexicon)
    klv = load_leaves(config.leaves, ruleset=rs) if config.leaves is not None else None
    # the series as run_selfplay makes it (each player's own leaves read, the engine checked against the
    # players, the lexicon and the ruleset): what it would refuse, refused here
    _Series(config, lex, klv)
    if games_csv is not None:
        check_output_file(games_csv, "--games-csv")
    # the records' folder made, checked writable and held for the run (another run writing there is refused)
    with records_folder(gcg_dir) if gcg_dir is not None else nullcontext():
        if gcg_dir is not None:
            warn_stale_records(gcg_dir, games)
        from .common import stdout

        stdout()  # the report goes there: a closed stdout (>&-) is said before the games are played, not after
        plain = [f"p{i + 1}" for i, spec in enumerate(kinds) if parse_player(spec) == ("equity", None)]
        if plain and leaves is None and rs.rack_size > 1:  # (racks of one tile keep no leave: equity is the score)
            mixed = sum(1 for spec in kinds if parse_player(spec)[0] == "equity") > len(plain)  # some have their own
            who = (f"{' and '.join(plain)} ({'equity' if len(plain) == 1 else 'the equity players'} without leaves of "
                   f"{'its' if len(plain) == 1 else 'their'} own) {'uses' if len(plain) == 1 else 'use'}"
                   if mixed else "the equity players use")
            from ..lexicon.shipped_leaves import default_leaves_name

            give = ("--leaves shipped (the ruleset's own) or a file" if default_leaves_name(rs) is not None else
                    f"--leaves FILE ({making_leaves(rs.rack_size)})")
            note(f"note: no --leaves given: {who} equity without leave values (score, opening and end-of-game "
                 f"adjustments); give {give}")
        # (no refresh thread: worker processes are forked, and the measured loop should not pay for drawing)
        stopped = "no report printed" + (f", {games_csv} not written" if games_csv is not None else "")
        with counted_games("self-play", games, stopped) as progress:
            try:
                report = run_selfplay(games, config, jobs=jobs, lexicon=lex, leaves=klv, progress=progress)
            except RacksmithError as e:
                fail(str(e))
        d = report.to_dict()
        problems: list[str] = []  # a line each on stderr, after the report
        write_games_csv(report, games_csv, problems, "; the report above counts every game")
        if as_json:
            emit_json(d)
        else:
            _print_report(d)
        if d["invariant_violations"]:
            problems.append(f"{plural(d['invariant_violations'], 'invariant violation')}; first: {d['violations'][0]}")
        lost = d.get("records_unwritten", 0)
        if lost:
            problems.append(f"the {'record' if lost == 1 else 'records'} of {plural(lost, 'game')} could not be written to "
                            f"{gcg_dir} (first: {d['records_error']}); the report above counts every game")
        end_with_problems(problems)


def _print_report(d: dict) -> None:
    say(
        f"{plural(d['games'], 'game')} in {d['seconds']:.2f} s: {d['games_per_second']:.1f} games/s, "
        f"{d['turns_per_second']:.0f} turns/s, {d['moves_generated_per_second']:.0f} moves generated/s "
        f"({d['turns_per_game']:.1f} turns a game; {d['engine']} loop; {plural(d['jobs'], 'job')}"
        f"{'' if d['validated'] else ', validator skipped'})"
    )
    line = _leaves_line(d)
    if line:
        say(line)
    for p in d["players"]:
        lo, hi = p["win_rate_ci95"]
        say(
            f"{p['player']} ({p['kind']}): mean {p['mean_score']:.1f} (sd {p['score_stdev']:.1f}), "
            f"{p['wins']}-{p['losses']}-{p['ties']}, win rate {p['win_rate']:.3f} [95% {lo:.3f}, {hi:.3f}], "
            f"{p['bingos_per_game']:.2f} bingos/game"
        )
    say(f"mean spread p1-p2 {d['mean_spread']:+.1f} (sd {d['spread_stdev']:.1f}); {d['bingos_per_game']:.2f} bingos a game")
    say(f"invariant violations: {d['invariant_violations']}")
    for v in d["violations"]:
        say(f"  {v}")
    lost = d.get("records_unwritten", 0)
    if lost:
        shown = d["records_unwritten_games"]
        games = ", ".join(map(str, shown)) + (", ..." if lost > len(shown) else "")
        say(f"records not written: {lost} ({'game' if lost == 1 else 'games'} {games})")


def _leaves_line(d: dict) -> str:
    """What leave values each equity player of a report played with, in a line ("" without equity
    players): an ``equity:leaves=X`` player its own, a plain ``equity`` player those of --leaves."""
    own = {}
    for p in d["players"]:
        kind, _, option = p["kind"].partition(":")
        if kind == "equity":
            src = option.partition("=")[2] if option else (d["leaves"] or "none")
            own[p["player"]] = "none" if src.strip().lower() == "none" else src
    without = "no leave values (score + opening/end-of-game adjustments)"
    if not own:
        return ""
    if len(set(own.values())) == 1:
        src = next(iter(own.values()))
        return f"equity players: {without}" if src == "none" else f"leaves: {src}"
    legend = " (none: equity without leave values)" if "none" in own.values() else ""
    return "leaves: " + "; ".join(f"{p} {src}" for p, src in own.items()) + legend


#: the options of the simulation: each is refused without --sim (and --sim-infer-samples without --sim-infer)
_SIM_OPTIONS = ("sim_iterations", "sim_candidates", "sim_plies", "sim_infer", "sim_infer_samples", "seed", "winpct")


def _dash_is_stdin_each(values: "list[Path] | None") -> "list[Path] | None":
    return None if values is None else [dash_is_stdin(v) for v in values]


def analyze(
    paths: list[Path] = typer.Argument(
        ..., metavar="PATH...", allow_dash=True, callback=_dash_is_stdin_each, show_default=False,
        help="The .gcg file ('-': stdin); several files, or folders (their .gcg files at any depth), for a summary of "
        "each record and of each player over them all."),
    leaves: Optional[str] = typer.Option(None, "--leaves", help=LEAVES_HELP),
    top: int = typer.Option(3, "--top", "-n", "-k", help="Best moves to list per turn (in the table and the JSON)."),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", "-r", help="Ruleset [default: the record's, else english]."),
    lexicon: Optional[str] = typer.Option(None, "--lexicon", "-l", help="Lexicon to generate moves from [default: the ruleset's]."),
    as_json: bool = typer.Option(False, "--json", help="Print the analysis as JSON on stdout."),
    sim: bool = typer.Option(False, "--sim", help="Also grade each turn with tiles in the bag by the win% it lost "
                                                   "in a simulation (MAGPIE's grades: 0.5 / 3 / 7 points); a grade "
                                                   "the play-outs do not settle is shown 'x or y' ('x to y' when it spans three "
                                                   "grades or more)."),
    sim_iterations: int = typer.Option(1000, "--sim-iterations", min=1,
                                       help="Play-outs per turn with --sim, shared by the candidates; then, unless "
                                            "that settles the grade, the move played and the best others get half "
                                            "as many each, and more (up to twice as many) until it is settled."),
    sim_candidates: int = typer.Option(10, "--sim-candidates", min=1, help="Candidates per turn with --sim."),
    sim_plies: int = typer.Option(2, "--sim-plies", min=1, max=32, help="Plies with --sim."),
    sim_infer: bool = typer.Option(False, "--sim-infer", help="With --sim, draw the opponent's rack from what "
                                                             "his play just before says he kept (racksmith infer)."),
    sim_infer_samples: int = typer.Option(20_000, "--sim-infer-samples", min=1, max=5_000_000,
                                          help="Racks each inference tries with --sim-infer: every rack when there "
                                               "are no more, else this many dealt at random."),
    seed: int = typer.Option(0, "--seed", min=0, max=2**64 - 1, help="Seed of the simulations."),
    winpct: Optional[str] = typer.Option(None, "--winpct", help="Of the simulations (--sim). " + WINPCT_HELP),
    endgame_seconds: float = typer.Option(
        10.0, "--endgame-seconds", min=0.0, callback=finite,
        help="Time the endgame solver may take on each turn played with the bag empty (a turn it does not "
        "finish is graded by the depth it reached, marked '~': give more on a slow or busy machine for grades "
        "that do not depend on it); 0: those turns are not graded by the solver."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, max=1024,
                             help="With several records: worker processes analysing them (results do not depend on it)."),
) -> None:
    """For every turn: the move played, its rank among all moves by equity, the best moves and what
    it lost (static equity; with the bag empty, points of final spread by the endgame solver); then
    a summary per player (what was lost, bingos missed). With --sim, each turn with tiles in the bag
    is also graded by the win% it lost in a simulation: the move played against the best other
    candidate gets play-outs until the grade is settled, else it is marked uncertain (a turn with the
    bag empty is graded by the endgame solver).

    Several records (files, folders): a line per record (players, final scores, what was graded)
    and a line per player over them all (summed by full name: games, wins, equity lost a turn,
    bingos, grades); --json prints every record's analysis and the players' totals. A record that
    cannot be read or does not replay is said and the others go on; the command then exits 1.

    A running total the record states wrong is a note (the analysis goes on with the scores the
    plays make); from a line that does not replay (an illegal play...) on, the turns are listed
    but not graded, and the command exits 1 after the analysis."""
    from ..review.analysis import analyze as run_analysis
    from ..lexicon.load import ruleset_lexicon
    from ..review.replay import replay_file
    from ..sim.infer import MIN_KEPT_DEALS

    if top < 1:
        fail(f"--top must be at least 1, got {top}", 2)
    named = [name for name in _SIM_OPTIONS if given(name)]
    if named and not sim:
        fail(f"--{named[0].replace('_', '-')} is for the simulation: add --sim", 2)
    if given("sim_infer_samples") and not sim_infer:
        fail("--sim-infer-samples is for the inference: add --sim-infer", 2)
    sim_options = dict(candidates=sim_candidates, plies=sim_plies, iterations=sim_iterations, seed=seed) if sim else None
    if winpct is not None:
        sim_options["winpct"] = load_winpct_option(winpct)
    if sim_infer:
        sim_options.update(infer=True, infer_samples=sim_infer_samples)
    if len(paths) > 1 or paths[0].is_dir():
        _analyze_records(paths, ruleset, lexicon, leaves, top, sim_options, endgame_seconds or None, jobs, as_json)
        return
    path = paths[0]
    r = replay_file(path, ruleset, None, strict=False)
    if r.errors and not r.turns:  # nothing to analyse: no game
        more = f" (and {len(r.errors) - 1} more)" if len(r.errors) > 1 else ""
        fail(f"{input_name(path)} does not replay: {r.errors[0]}{more}; 'racksmith gcg replay' lists the problems")
    rs = r.ruleset
    if lexicon is None and rs.lexicon is None:
        fail(f"ruleset {rs.name} names no lexicon: pass --lexicon")
    lex = ruleset_lexicon(rs, lexicon)
    klv = resolve_leaves(leaves, rs)
    if ships_no_leaves(leaves, rs):  # (a ruleset file of your own: said, as moves, sim and match say it)
        note_equity_without_leaves(f"racksmith ships no leave values for {rs.name}", "the turns are graded by",
                                   "--leaves FILE", rs.rack_size)
    with _analysis_progress() as progress:
        result = run_analysis(r, klv, top=top, lexicon=lex, sim=sim_options, progress=progress,
                              endgame_seconds=endgame_seconds or None)
    if sim_infer:
        graded = [t for t in result.turns if t.grade is not None]
        inferred = sum(1 for t in graded if t.inferred_from is not None)
        result.notes.append(f"the opponent's rack was inferred from his play before on {inferred} of the "
                            f"{plural(len(graded), 'simulated turn')} (uniform over the unseen tiles on the others: "
                            "the first turn, after a pass, after a play no rack explains, or when a sample keeps fewer "
                            f"than {MIN_KEPT_DEALS} deals)")
    used = _leaves_used(leaves, klv, rs)
    if as_json:
        emit_json({**result.to_dict(), "leaves_used": used})
    else:
        print_analysis(result, used)
    if result.does_not_replay_from is not None:  # the analysis is given, and the command says what is wrong
        fail(f"{input_name(path)}: {_not_replayed(result)}; 'racksmith gcg replay' lists the problems")


def _analyze_records(paths: "list[Path]", ruleset, lexicon, leaves, top: int, sim_options, endgame_seconds,
                     jobs: int, as_json: bool) -> None:
    """``racksmith analyze`` of several records: a row per record, then a row per player over them
    all (or, with --json, one object: ``records`` and ``players``); exit 1 when a record could not
    be analysed in full."""
    from ..review.batch import analyze_files, record_files

    if any(p == STDIN for p in paths):
        fail("'-' (standard input) is one record: give it alone, or give files and folders", 2)
    files = record_files(paths)
    option = "shipped" if leaves is None else None if leaves.strip().lower() == "none" else leaves
    results = []
    records = analyze_files(files, ruleset=ruleset, lexicon=lexicon, leaves=option, top=top, sim=sim_options,
                            endgame_seconds=endgame_seconds, jobs=jobs)
    try:
        with _records_progress(len(files)) as progress:
            for r in records:
                results.append(r)
                if progress is not None:
                    progress(len(results), len(files))
    except KeyboardInterrupt:  # what was done is given, and said (exit 130, or 128 + the signal: cli/main.py)
        from .progress import stopped_by

        _give_records(results, as_json, sim_options is not None, len(files), stopped=True)
        note(f"racksmith: stopped ({stopped_by()}) after {len(results)} of {plural(len(files), 'record')}: "
             + (f"{'the JSON' if as_json else 'the tables'} above {'is' if as_json else 'are'} of those" if results else
                "none was analysed"))
        raise
    problems = [r for r in results if r.problem is not None]
    if option == "shipped":  # (records of a ruleset file of your own: said once a ruleset, as for one record)
        for name in dict.fromkeys(r.ruleset for r in results if r.error is None and r.leaves is None and r.ruleset):
            note_equity_without_leaves(f"racksmith ships no leave values for {name}", "its records' turns are graded by",
                                       "--leaves FILE")
    _give_records(results, as_json, sim_options is not None, len(files))
    for r in problems:
        note(f"note: {r.problem if r.error is not None else f'{r.path}: {r.problem}'}")
    if problems:
        unread = sum(r.error is not None for r in problems)
        parts = [f"{unread} could not be analysed" if unread else "",
                 f"{len(problems) - unread} {'does' if len(problems) - unread == 1 else 'do'} not replay to the end"
                 if len(problems) > unread else ""]
        fail(f"{len(problems)} of {plural(len(results), 'record')} not analysed in full: "
             f"{' and '.join(filter(None, parts))} (the notes above say why; 'racksmith gcg replay FILE' lists a "
             "record's problems)")


def _give_records(results, as_json: bool, simulated: bool, total: int, stopped: bool = False) -> None:
    """The records analysed and the players' totals over them, on stdout (text or JSON). ``total``:
    the records given; those a stopped run did not reach count as not analysed."""
    from ..review.batch import summarize

    totals = summarize(results)
    if as_json:
        emit_json({"records": [r.to_dict() for r in results], "players": [t.to_dict() for t in totals],
                   "total": total, "analysed": sum(r.analysis is not None for r in results),
                   "not_analysed": sum(r.error is not None for r in results) + total - len(results),
                   "not_replayed": sum(r.error is None and r.problem is not None for r in results),
                   "stopped": stopped})
    elif results:
        _print_records(results, totals, simulated)


@contextmanager
def _records_progress(total: int):
    """``progress(done, total)`` of a batch: a Rich bar on stderr when it is a terminal."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if not err_console.is_interactive:
        yield None
        return
    with Progress(TextColumn("analysing records"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=True) as bar:
        task = bar.add_task("", total=total)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, refresh=True)

        yield update


def _under_one_folder(paths: "list[str]") -> "tuple[str, dict[str, str]]":
    """The folder every record is in (``""`` when they share none but the current one or the
    root), and each path as the table shows it: under that folder (``r1/a.gcg`` for
    ``/archive/season/r1/a.gcg``), so that long paths do not take the table's width."""
    import os

    folders = [os.path.dirname(p) for p in paths]
    try:
        common = os.path.commonpath(folders) if len(paths) > 1 and all(folders) else ""
    except ValueError:  # (absolute and relative paths mixed)
        common = ""
    if common in ("", os.sep, "."):
        return "", {p: p for p in paths}
    return common, {p: os.path.relpath(p, common) for p in paths}


def _print_records(results, totals, simulated: bool) -> None:
    """The records (one row each) and the players over them all, on stdout."""
    from rich.table import Table

    lexicons = sorted({r.analysis.lexicon for r in results if r.analysis is not None and r.analysis.lexicon})
    leaves = sorted({r.leaves or "none (equity is the score)" for r in results if r.analysis is not None})
    if lexicons:
        say(f"{'lexicon' if len(lexicons) == 1 else 'lexicons'}: {', '.join(lexicons)}; leaves: {', '.join(leaves)}")
    under, shown = _under_one_folder([r.path for r in results])
    table = Table(show_edge=False, pad_edge=False, title="records" + (f" in {under}" if under else ""),
                  title_justify="left")
    table.add_column("record", overflow="fold", ratio=2)
    table.add_column("players, final scores", ratio=3)
    table.add_column("turns", justify="right")
    table.add_column("graded", justify="right")
    table.add_column("state", ratio=2)
    for r in results:
        players = " – ".join(f"{full} {score}" for (_, full), score in zip(r.names, r.final_scores))
        if r.analysis is None:
            table.add_row(shown[r.path], players, "", "", "not analysed (see the note)")
            continue
        a = r.analysis
        graded = sum(t.graded_by is not None for t in a.turns)
        status = (f"does not replay from line {a.does_not_replay_from}" if a.does_not_replay_from is not None else
                  r.status)
        table.add_row(shown[r.path], players, str(len(a.turns)), str(graded), status)
    say_table(table)
    ptable = Table(show_edge=False, pad_edge=False, title="players", title_justify="left")
    ptable.add_column("player", ratio=1)
    for name in ("games", "W-L-T", "spread", "graded", "best", "lost", "bingos", "missed"):
        ptable.add_column(name, justify="right")
    if simulated:
        ptable.add_column("win% lost", justify="right")
        ptable.add_column("grades", justify="right")
    for t in totals:
        s = t.sums
        complete = ("-" if not t.finished else
                    f"{t.wins}-{t.losses}-{t.ties}" + ("" if t.finished == t.games else f" of {t.finished}"))
        best = f"{100 * s['best_moves'] / s['ranked']:.0f}%" if s["ranked"] else "-"
        mean = "-" if t.mean_equity_lost is None else f"{t.mean_equity_lost:.2f}"
        row = [t.name, str(t.games), complete, f"{t.spread:+d}" if t.finished else "-", f"{s['ranked']:.0f}", best,
               mean, f"{s['bingos_played']:.0f}", f"{s['bingos_missed']:.0f} of {s['bingo_chances']:.0f}"]
        if simulated:
            row += ["-" if t.mean_win_pct_lost is None else f"{t.mean_win_pct_lost:.2f}",
                    "/".join(str(t.grades.get(g, 0)) for g in ("best", "inaccuracy", "mistake", "blunder"))]
        ptable.add_row(*row)
    say_table(ptable)
    say("W-L-T and spread: over the finished games ('of N' when fewer than all); graded: turns with a verdict; "
        "best: the share of them whose move was the best by static equity (with the bag empty, the endgame solver's); "
        "lost: equity lost a graded turn; missed: bingos "
        "missed of the turns whose best move was a bingo"
        + ("; win% lost: a simulated turn; grades: best/inaccuracy/mistake/blunder" if simulated else ""))


def _leaves_used(option: "str | None", klv, rs) -> "str | None":
    """Which leave values an analysis added, for people: a file's path, ``erudit (shipped)``, or
    None (equity without leaves)."""
    if klv is None:
        return None
    if klv.path is not None:
        return str(klv.path)
    return f"{(option or rs.name).strip().lower()} (shipped)"


def _not_replayed(result) -> str | None:
    """The note of an analysis that says from which line the record does not replay, or None."""
    return next((n for n in result.notes if n.startswith("the record does not replay from line")), None)


@contextmanager
def _analysis_progress():
    """``progress(done, total, what)`` for :func:`racksmith.review.analysis.analyze`: a Rich bar on
    stderr when it is a terminal (the turn, the endgame being solved), else nothing."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if not err_console.is_interactive:
        yield None
        return
    with Progress(TextColumn("analysing {task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=True) as bar:
        task = bar.add_task("", total=None)

        def update(done: int, total: int, what: str) -> None:
            bar.update(task, completed=done, total=total, description=what, refresh=True)  # (each turn seen, however busy)

        yield update


#: the mark of a turn's loss in points of final spread, graded by the endgame solver (and of a
#: solver's value that is not exact: its time ran out)
_ENDGAME_MARK = " E"
#: what the table shows of the note of a pass straight after the opponent's play (the note itself
#: follows the table, once)
_MAYBE_CHALLENGE_MARK = "a pass after a play (†)"
_INEXACT_MARK = "~"


def _with_error(value: float, stderr: "float | None") -> str:
    """``54.3 ±0.9``: a win% and its standard error (when it is known)."""
    known = stderr is not None and math.isfinite(stderr)
    return f"{value:.1f} ±{stderr:.1f}" if known else f"{value:.1f}"


def _lost_cell(t) -> str:
    if t.graded_by == "endgame":
        return f"{t.equity_lost:.0f}{_ENDGAME_MARK}{'' if t.endgame.exact else _INEXACT_MARK}"
    if t.graded_by is None:
        return ""
    return f"{t.equity_lost:.1f}" if t.equity_lost else "0"


def print_analysis(result, leaves_used: "str | None" = None) -> None:
    """The analysis for people, on stdout: the lexicon and the leaves, a table of the turns (the
    move played with its rank and what it lost, then the best moves, ranked; moves that tie share a
    rank; the lines of the record that are not turns, between them), a line per player and the
    legend; then the notes on stderr."""
    from rich.table import Table
    from rich.text import Text

    from ..review.analysis import MAYBE_FAILED_CHALLENGE, grade_text

    if result.lexicon:
        named = result.record_lexicon
        say(f"lexicon: {result.lexicon}" + (" (the record names none)" if not named else
                                            "" if named.lower() == result.lexicon.lower() else
                                            f" (the record names {named})")
            + f"; leaves: {leaves_used or 'none (equity is the score)'}")
    maybe_challenge = False

    def shown_note(text: str) -> str:  # the long note of a pass after a play, once below the table
        nonlocal maybe_challenge
        if MAYBE_FAILED_CHALLENGE in text:
            maybe_challenge = True
            text = text.replace(MAYBE_FAILED_CHALLENGE, _MAYBE_CHALLENGE_MARK)
        return text
    table = Table(show_edge=False, pad_edge=False)
    for name, justify in (("turn", "right"), ("player", "left"), ("rack", "left"), ("move", "left"),
                          ("score", "right"), ("equity", "right"), ("rank", "right"), ("lost", "right")):
        table.add_column(name, justify=justify)
    graded = any(t.grade is not None for t in result.turns)
    if graded:
        table.add_column("win%", justify="right")
        table.add_column("play-outs", justify="right")
        table.add_column("win% lost", justify="right")
        table.add_column("grade")
    extra = ("", "", "", "") if graded else ()
    events: dict[int, list] = {}
    for e in result.events:
        events.setdefault(e.after_turn, []).append(e)

    def event_rows(after: int) -> None:
        rows = events.get(after, [])
        for j, e in enumerate(rows):
            table.add_row("", e.player, "", Text(f"{e.action}: {e.text}", style="italic"), f"{e.score:+d}", "", "", "",
                          *extra, end_section=j == len(rows) - 1)

    event_rows(0)
    for t in result.turns:
        rank = f"{t.rank} of {t.moves}" if t.rank is not None else (f"- of {t.moves}" if t.moves else "")
        if t.grade is not None:
            sim_cells = (_with_error(t.win_pct, t.win_pct_stderr), str(t.playouts or ""),
                         _with_error(t.win_pct_lost, t.win_pct_lost_stderr), grade_text(t))
        else:
            sim_cells = extra
        flag = " (challenged off)" if t.withdrawn else " (failed challenge)" if t.failed_challenge else ""
        equity = f"{t.played_equity:.1f}" if t.played_equity is not None else ""
        table.add_row(str(t.turn), t.player, t.rack, Text(t.played + flag, style="bold"), f"{t.played_score:+d}",
                      equity, rank, _lost_cell(t), *sim_cells,
                      end_section=not t.best and not t.note and t.endgame is None and not events.get(t.turn))
        if t.endgame is not None:
            g = t.endgame
            how = "the result the same" if g.played_result == g.best_result else f"a {g.best_result} made a {g.played_result}"
            verdict = g.grade if g.grade == "best" else f"{g.grade} ({how})"
            table.add_row("", "", "", Text(f"  endgame{'' if g.exact else ' (not exact)'}: played {g.played_value:+d}, "
                                           f"best {g.best} {g.value:+d}, lost {g.lost}: {verdict}", style="italic"),
                          "", "", "", "", *extra, end_section=not t.best and not t.note and not events.get(t.turn))
        if t.note:
            table.add_row("", "", "", Text(f"  {shown_note(t.note)}", style="italic"), "", "", "", "", *extra,
                          end_section=not t.best and not events.get(t.turn))
        for j, c in enumerate(t.best):
            mark = " *" if c.played else ""
            table.add_row("", "", "", Text(f"  {c.notation}{mark}" + (" (bingo)" if c.bingo else "")), str(c.score),
                          f"{c.equity:.1f}", str(c.rank), "", *extra, style="dim" if mark == "" else None,
                          end_section=j == len(t.best) - 1 and not events.get(t.turn))
        event_rows(t.turn)
    say_table(table)
    for p in result.players:
        say(_player_line(p.to_dict()))
        if graded:
            say(_grades_line(p.to_dict()))
    say("rank: among every legal move by equity (moves that tie share a rank); * the move played; lost: equity lost, "
        f"or{_ENDGAME_MARK}: with the bag empty, points of final spread lost by the endgame solver's verdict "
        f"({_INEXACT_MARK}: not exact, the solver's time ran out)"
        + ("; win% ± its standard error, over the play-outs of the move played; a grade 'x or y': the 95% interval "
           "of the win% lost spans both; 'x to y': three grades or more" if graded else ""))
    if maybe_challenge:
        say(f"{_MAYBE_CHALLENGE_MARK}: {MAYBE_FAILED_CHALLENGE}")
    for n in result.notes:
        if n != _not_replayed(result):  # (the command ends with it)
            note(f"note: {n}")


def _player_line(d: dict) -> str:
    endgame = ""
    if d["endgame_turns"]:
        endgame = (f" ({d['endgame_lost']} of it points of spread in {plural(d['endgame_turns'], 'endgame turn')}"
                   + (f", {d['endgame_inexact']} not exact" if d["endgame_inexact"] else "") + ")")
    off = f", {plural(d['challenged_off'], 'play')} challenged off" if d["challenged_off"] else ""
    failed = d.get("failed_challenges") or 0
    lost_turns = f", {plural(failed, 'turn')} lost to a failed challenge (not graded)" if failed else ""
    return (f"{d['player']}: {plural(d['turns'], 'turn')}, {d['best_moves']} best, equity lost {d['equity_lost']:.1f}"
            f"{endgame}{off}{lost_turns}, bingos {d['bingos_played']} played, "
            f"{d['bingos_missed']} missed of {plural(d['bingo_chances'], 'chance')} (turns whose best move was a bingo)")


def _grades_line(d: dict) -> str:
    g = d["grades"]
    counts = ", ".join(plural(g[k], k, words) for k, words in (("best", "best"), ("inaccuracy", "inaccuracies"),
                                                                ("mistake", None), ("blunder", None)))
    mean = f" (mean {d['mean_win_pct_lost']:.2f})" if d["mean_win_pct_lost"] is not None else ""
    unsure = f"; {d['uncertain_grades']} uncertain" if d["uncertain_grades"] else ""
    lost = "-" if d["win_pct_lost"] is None else f"{d['win_pct_lost']:.1f}"  # (None: nothing simulated)
    return (f"  {d['player']}: win% lost {lost} over {plural(d['sim_turns'], 'simulated turn')}{mean}; "
            f"grades {counts}{unsure}")


def register(app: typer.Typer) -> None:
    app.command("selfplay")(selfplay)
    app.command("analyze")(analyze)
