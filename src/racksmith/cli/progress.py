"""What long runs (self-play, matches, training) show on stderr: their progress — a Rich bar on a
terminal, else a line every half minute (for runs logging to a file) —, what a run stopped by
Ctrl-C (or SIGTERM) had done, and the checks of the files and folders they write."""
from __future__ import annotations

import os
import re
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ..errors import RacksmithError
from .common import err_console, fail, note


@contextmanager
def games_progress(every: float = 30.0) -> Iterator[Callable[[str, int, int], None]]:
    """Yields ``update(label, done, total)``: on a terminal a bar per label; else, on stderr, a
    line every ``every`` seconds, and one at the end of a stage that ran that long."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    start = time.monotonic()
    if err_console.is_interactive:  # (a dumb terminal gets the lines a log gets)
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err_console, transient=True, auto_refresh=False) as bar:
            tasks: dict[str, int] = {}
            last = [0.0]

            def update(label: str, done: int, total: int) -> None:
                if label not in tasks:
                    tasks[label] = bar.add_task(label, total=total)
                now = time.monotonic()
                if now - last[0] >= 0.1 or done >= total:
                    last[0] = now
                    bar.update(tasks[label], completed=done, total=total, refresh=True)

            yield update
        return
    state = {"label": None, "t": start, "done": 0, "t0": start}

    def log(label: str, done: int, total: int) -> None:
        now = time.monotonic()
        if label != state["label"]:  # the first call of a stage sets where its rate counts from
            state.update(label=label, t0=now, done0=done, t=now)
        # (a stage's end is logged when it ran long enough to log at all: a short run says nothing)
        if now - state["t"] >= every or (done >= total and now - state["t0"] >= every and now > state["t0"]):
            state["t"] = now
            rate = (done - state.get("done0", 0)) / max(now - state["t0"], 1e-9)
            note(f"{time.strftime('%H:%M:%S')} {label}: {done:,}/{total:,} games ({rate:.1f} games/s)")

    yield log


@contextmanager
def counted_games(label: str, games: int, stopped: str, *, pairs: bool = False) -> Iterator[Callable[[int], None]]:
    """A run of ``games`` games shown by :func:`games_progress` under ``label``: yields
    ``progress(done)``. Stopped by Ctrl-C (or SIGTERM), it leaves the line of
    :func:`interrupted_line` (``stopped``: what the run then does not give) and the interrupt goes
    on (exit 130, or 128 + the signal: cli/main.py)."""
    count = [0]
    try:
        with games_progress() as update:
            def progress(done: int) -> None:
                count[0] = done
                update(label, done, games)

            yield progress
    except KeyboardInterrupt as e:
        note("racksmith: " + interrupted_line(e, games, count[0], stopped, pairs=pairs))
        raise


def stopped_by() -> str:
    """What stopped the run: ``Ctrl-C``, or the signal that ended it as Ctrl-C does (``SIGTERM``,
    ``SIGHUP``: cli/main.py)."""
    import signal

    from .main import _ended

    if not _ended:
        return "Ctrl-C"
    try:
        return signal.Signals(_ended[0]).name
    except ValueError:
        return f"signal {_ended[0]}"


def show_runs(spans: Sequence[tuple[int, int]], most: int = 4) -> str:
    """Runs of game numbers as a person reads them: ``0-1124 and 1200-1499``; past ``most`` runs,
    ``0-9, 20-29, 40-49, ... and 90-99 (6 runs)``."""
    parts = [f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in spans]
    if len(parts) > most:
        return ", ".join(parts[: most - 1]) + f", ... and {parts[-1]} ({len(parts):,} runs)"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def interrupted_line(e: BaseException, games: int, done: int, result: str = "no report printed", *,
                     pairs: bool = False) -> str:
    """The line a run of games stopped by Ctrl-C (or SIGTERM) leaves on stderr: how many of its
    games were played and, with records asked for, which records it wrote where. ``e``: a
    :class:`~racksmith.play.backends.GamesInterrupted`, or another KeyboardInterrupt (one that came
    before the games, or a second one), for which ``done`` (the progress count) is all that is
    known. ``pairs``: the games are played in pairs (a match), said after the count."""
    from ..play.backends import GamesInterrupted

    if isinstance(e, GamesInterrupted):
        games, done = e.games, e.done
    unit = f" ({done // 2:,} {'pair' if done // 2 == 1 else 'pairs'})" if pairs else ""
    line = f"interrupted after {done:,} of {games:,} {'game' if games == 1 else 'games'}{unit}; {result}"
    if isinstance(e, GamesInterrupted) and e.folder is not None:
        n = e.records_written
        line += (f"; records of {n:,} {'game' if n == 1 else 'games'} written in {e.folder} (games {show_runs(e.records)})"
                 if n else
                 f"; no records written in {e.folder}")
    return line


#: a game's record in a --gcg-dir folder (its index: 6 digits or more)
_RECORD = re.compile(r"game(\d{6,})\.gcg")


def stale_records(folder: Path, games: int) -> list[str]:
    """The game records (``gameNNNNNN.gcg``) ``folder`` already holds that a run of ``games`` games
    does not overwrite (those of game ``games`` on), sorted by game."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        m = _RECORD.fullmatch(name)
        if m and int(m.group(1)) >= games:
            found.append((int(m.group(1)), name))
    return [name for _, name in sorted(found)]


def warn_stale_records(folder: Path, games: int) -> None:
    """A note when ``folder`` already holds records of games this run does not overwrite: the
    folder would hold the games of two runs, mixed."""
    stale = stale_records(folder, games)
    if stale:
        which = stale[0] if len(stale) == 1 else f"{stale[0]} to {stale[-1]}"
        note(f"racksmith: warning: {folder} already holds {len(stale):,} game {'record' if len(stale) == 1 else 'records'} ({which}) that this run "
             f"of {games:,} {'game' if games == 1 else 'games'} does not overwrite: the folder will mix two runs (remove them, or give "
             "another --gcg-dir)")


#: why a file given for a run's output is written whole, said when a path names a stream instead
_WRITTEN_WHOLE = "the file is written whole at the end of the run; stdout carries the command's report"


def check_output_file(path: Path, option: str, *, sidecar: bool = False) -> None:
    """Refuse, before any game is played, a file a run could not write at its end: what
    :func:`check_output_kind` refuses, a folder that does not exist or cannot be written."""
    check_output_kind(path, option, sidecar=sidecar)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path  # (a link: the file it names is written)
    parent = target.parent
    if not parent.is_dir():
        fail(f"{option} {path}: there is no folder {parent}")
    try:
        tempfile.TemporaryFile(dir=parent).close()
    except OSError as e:
        fail(f"{option} {path}: cannot write in {parent}: {e.strerror or e}")


def check_output_kind(path: Path, option: str, *, sidecar: bool = False) -> None:
    """Refuse, before any game is played, a path that names no file a run could write at its end:
    ``-`` (no such file is written to stdout: bad usage), a folder, a path naming a file descriptor
    or a standard stream (``/dev/stdout``), a FIFO, a device or a socket
    (:func:`~racksmith.lexicon.files.output_problem`: what writing it would refuse, after the run).
    With ``sidecar``, its ``FILE.json`` too (a leave file's provenance, a KWG's letters)."""
    from ..lexicon.files import output_problem
    from ..lexicon.sidecar import sidecar_path

    if str(path) == "-":
        fail(f"{option} -: this file is not written to stdout: give a file name (a file named '-' by its full path: "
             '"$PWD/-")', 2)
    if path.is_dir():
        fail(f"{option} {path}: it is a folder; give a file")
    for p in (path, sidecar_path(path)) if sidecar else (path,):
        why = output_problem(p, whole=_WRITTEN_WHOLE)
        if why is not None:
            fail(f"{option} {path}: " + (why if p == path else f"cannot write its sidecar {p}: {why}"))


@contextmanager
def records_folder(folder: Path) -> Iterator[None]:
    """The folder of a run's game records (``--gcg-dir``) made, checked writable and held for the
    whole run, before any game (:func:`racksmith.play.records.records_folder`, which the run holds
    again): a second run writing records to the same folder meanwhile is refused (the two would mix
    their games' records), as a second ``leaves train`` on one output is."""
    from ..errors import RecordsFolderBusyError
    from ..play.records import records_folder as held

    try:
        with held(folder):
            yield
    except RecordsFolderBusyError as e:
        fail(f"another racksmith run is writing game records to {e.folder} (it holds {e.lock}): wait for it to "
             "finish, or give another --gcg-dir")


def write_games_csv(result, path: "Path | None", problems: list, counted: str) -> None:
    """Write a run's games' CSV (``--games-csv``; ``result``: a self-play report or a match result)
    before its report is printed, so that a reader of stdout that goes away (``| head``) or a full
    stdout loses no game's row; a failure is added to ``problems`` (``counted``: what the report
    printed after it still counts)."""
    if path is None:
        return
    try:
        result.write_games_csv(path)
    except RacksmithError as e:
        problems.append(f"{e} (the games' CSV{counted})")


def end_with_problems(problems: Sequence[str]) -> None:
    """After a run's result: each problem a line on stderr, the last one as the command's failure
    (exit 1); nothing when there is none."""
    for line in problems[:-1]:
        note(f"racksmith: {line}")
    if problems:
        fail(problems[-1])
