"""Many recorded games at once: every record of a list of files and folders analysed
(:func:`racksmith.review.analysis.analyze`), in worker processes when asked, and what each player
did summed over the records (a season's archive, a club's, one player's games).

Each record is analysed on its own, as ``racksmith analyze FILE`` analyses it (its ruleset, the
lexicon and leaves of that ruleset unless given, the same simulation seed): the results do not
depend on how many processes share the work, nor on the order they finish in. A record that
cannot be read, or whose ruleset names no lexicon, is a :class:`RecordResult` with its ``error``;
the others go on.

Players are summed by full name (the record's ``#player1 nick Full Name``), else by nick: the
same person under another nick in another record is the same player when the records give the
full name (Macondo's batch analysis sums by name too). A player's wins, losses and ties are
counted over the records that reach the game's end and replay to it."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .. import _args
from ..core.position import LeavesLike, LexiconLike
from ..errors import RacksmithError
from ..rules.ruleset import Ruleset
from .analysis import GRADE_NAMES, Analysis, PlayerSummary

#: the file names a folder's records are found by (any case)
RECORD_SUFFIX = ".gcg"


def record_files(paths: Iterable["str | Path"]) -> list[Path]:
    """The records ``paths`` name: each file as given, each folder's ``*.gcg`` files at any depth,
    sorted by path (hidden files and folders left out); each file once. A path that does not exist,
    or a folder with no record, is an error that names it."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    elif not isinstance(paths, Iterable):
        raise RacksmithError(f"paths must be a file or folder's path, or a list of them, got {_args.show(paths)}")
    out: list[Path] = []
    seen: set[Path] = set()
    for given in paths:
        p = _args.path(given, "path", RacksmithError)
        if p.is_dir():
            found = sorted(f for f in _walk(p))
            if not found:
                raise RacksmithError(f"folder {str(p)!r} holds no {RECORD_SUFFIX} file (at any depth)")
        elif p.exists() or str(p) == "/dev/stdin":
            found = [p]
        else:
            raise RacksmithError(f"no such file or folder: {str(p)!r}")
        for f in found:
            key = f.resolve() if f.exists() and str(f) != "/dev/stdin" else f
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out


def _walk(folder: Path) -> Iterator[Path]:
    """The records under ``folder``, folders linked in followed (an archive gathered by links),
    each folder once (a link back up is not followed round)."""
    seen: set[str] = set()
    for root, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.lower().endswith(RECORD_SUFFIX) and not name.startswith("."):
                yield Path(root) / name


@dataclass(frozen=True, slots=True)
class RecordResult:
    """One record of a batch: ``path`` as given; ``analysis`` (None when the record could not be
    analysed at all: ``error`` says why, naming the file); ``leaves``: the leave values the analysis
    added (a file's path, ``english (shipped)``, or None: equity without leaves); ``names``: each
    seat's ``(nick, full name)`` (the full name is the nick when the record gives none);
    ``final_scores`` by seat (with the end-of-game adjustments the record lacks, when their points
    are known: :meth:`Replay.end_scores`); ``complete``: the record is a whole game that replays
    without an error (:attr:`Replay.complete`); ``over``: it reaches the game's end (errors or not)
    and its final scores are known; ``status``: where the record stands, in words."""

    path: str
    analysis: Analysis | None = None
    error: str | None = None
    leaves: str | None = None
    names: tuple[tuple[str, str], ...] = ()
    final_scores: tuple[int, ...] = ()
    complete: bool = False
    over: bool = False
    ruleset: str | None = None
    status: str = ""

    @property
    def ok(self) -> bool:
        """Analysed in full: read, and every turn replayed (a running total stated wrong, or a rack
        line the record contradicts, is only a note)."""
        return self.analysis is not None and self.analysis.does_not_replay_from is None

    @property
    def problem(self) -> str | None:
        """What kept the record from being analysed in full (None when it was): its error, or the
        line from which it does not replay."""
        if self.error is not None:
            return self.error
        if self.analysis is not None and self.analysis.does_not_replay_from is not None:
            note = next((n for n in self.analysis.notes if n.startswith("the record does not replay from line")),
                        f"the record does not replay from line {self.analysis.does_not_replay_from}")
            return note
        return None

    def to_dict(self) -> dict[str, Any]:
        """The record's object in ``racksmith analyze --json`` of several records: ``file``,
        ``error`` (null when analysed), ``over``, ``status``, ``leaves_used``, then the analysis's own keys
        (:meth:`Analysis.to_dict`: ``ruleset``, ``names``, ``final_scores``, ``complete``,
        ``settings``, the turns...); a record not analysed has only ``ruleset``, ``names``
        (``[{"nick", "name"}]`` by seat), ``final_scores`` (``{nick: score}``) and ``complete`` of them,
        when it could be read."""
        out: dict[str, Any] = {"file": self.path, "error": self.error, "over": self.over, "status": self.status,
                               "leaves_used": self.leaves}
        if self.analysis is not None:
            out.update(self.analysis.to_dict())
            # (the scores at the game's end: with an adjustment the record lacks and racksmith works out)
            out["final_scores"] = {n: score for (n, _), score in zip(self.names, self.final_scores)}
        else:
            out.update({"ruleset": self.ruleset, "names": [{"nick": n, "name": full} for n, full in self.names],
                        "final_scores": {n: score for (n, _), score in zip(self.names, self.final_scores)},
                        "complete": self.complete})
        return out


#: the fields of :class:`PlayerSummary` that add up over games (the rest: the player, the dict of grades)
_SUMMED = tuple(f.name for f in fields(PlayerSummary) if f.name not in ("player", "grades", "win_pct_lost"))


@dataclass(slots=True)
class PlayerTotals:
    """A player's games of a batch: ``games`` analysed (in full or in part), ``wins`` / ``losses``
    / ``ties`` over the ``finished`` ones (records that reach the game's end and replay to it: a
    running total stated wrong is only a note), ``spread`` the sum of his final spreads over them;
    ``sums``: every count of :class:`~racksmith.review.analysis.PlayerSummary` summed over the
    games, by its name (``turns``, ``ranked`` turns graded, ``best_moves``, ``equity_lost``, the
    bingos, the endgame's and the simulation's figures); ``grades`` summed; ``win_pct_lost`` None
    when no game was simulated."""

    name: str
    nicks: list[str] = field(default_factory=list)
    games: int = 0
    finished: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    spread: int = 0
    win_pct_lost: float | None = None
    grades: dict[str, int] = field(default_factory=lambda: dict.fromkeys(GRADE_NAMES, 0))
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(_SUMMED, 0))

    @property
    def mean_equity_lost(self) -> float | None:
        """Equity lost a graded turn (None when no turn was graded)."""
        ranked = self.sums["ranked"]
        return self.sums["equity_lost"] / ranked if ranked else None

    @property
    def mean_win_pct_lost(self) -> float | None:
        turns = self.sums["sim_turns"]
        return self.win_pct_lost / turns if turns and self.win_pct_lost is not None else None

    def add(self, summary: PlayerSummary, nick: str, result: str | None, spread: int) -> None:
        self.games += 1
        if nick not in self.nicks:
            self.nicks.append(nick)
        if result is not None:
            self.finished += 1
            self.wins += result == "win"
            self.losses += result == "loss"
            self.ties += result == "tie"
            self.spread += spread
        for name in _SUMMED:
            self.sums[name] += getattr(summary, name)
        if summary.win_pct_lost is not None:
            self.win_pct_lost = (self.win_pct_lost or 0.0) + summary.win_pct_lost
        for grade, n in summary.grades.items():
            self.grades[grade] = self.grades.get(grade, 0) + n

    def to_dict(self) -> dict[str, Any]:
        sums = {name: (round(v, 3) if isinstance(v, float) else v) for name, v in self.sums.items()}
        return {
            "name": self.name,
            "nicks": list(self.nicks),
            "games": self.games,
            "finished": self.finished,
            "wins": self.wins,
            "losses": self.losses,
            "ties": self.ties,
            "spread": self.spread,
            **{("ranked_turns" if k == "ranked" else k): v for k, v in sums.items()},
            "mean_equity_lost": None if self.mean_equity_lost is None else round(self.mean_equity_lost, 3),
            "win_pct_lost": None if self.win_pct_lost is None else round(self.win_pct_lost, 3),
            "mean_win_pct_lost": None if self.mean_win_pct_lost is None else round(self.mean_win_pct_lost, 3),
            "grades": dict(self.grades),
        }


def summarize(results: Iterable[RecordResult]) -> list[PlayerTotals]:
    """Each player's totals over the records analysed (those with an ``error`` left out), in the
    order players first appear; a record that does not replay to its end counts its graded turns,
    not its result."""
    if isinstance(results, (str, bytes)) or not isinstance(results, Iterable):
        raise RacksmithError(f"summarize takes the RecordResults analyze_files gives, got {_args.show(results)}")
    totals: dict[str, PlayerTotals] = {}
    for r in results:
        if not isinstance(r, RecordResult):
            raise RacksmithError(f"summarize takes the RecordResults analyze_files gives, got {_args.show(r)} among "
                                 "them (for one game's Analysis, its players are Analysis.players)")
        if r.analysis is None:
            continue
        by_nick = {s.player: s for s in r.analysis.players}
        scores = list(r.final_scores)
        for seat, (nick, name) in enumerate(r.names):
            summary = by_nick.get(nick)
            if summary is None:
                continue
            result = spread = None
            if r.over and r.ok and len(scores) == len(r.names):
                best_other = max((s for i, s in enumerate(scores) if i != seat), default=0)
                spread = scores[seat] - best_other
                result = "win" if spread > 0 else "loss" if spread < 0 else "tie"
            t = totals.get(name)
            if t is None:
                t = totals[name] = PlayerTotals(name)
            t.add(summary, nick, result, spread or 0)
    return list(totals.values())


@dataclass(frozen=True, slots=True)
class _Options:
    ruleset: Any
    lexicon: Any
    leaves: Any
    top: int
    sim: dict | None
    endgame_seconds: float | None


def _check_named(leaves: Any, lexicon: Any) -> None:
    """A leave set or lexicon named by a str is a shipped/embedded name or a file that is there:
    said at once, not once a record (its contents are read, and checked, with each ruleset)."""
    from ..lexicon.load import EMBEDDED
    from ..lexicon.shipped_leaves import set_name

    if isinstance(leaves, str) and leaves.strip().lower() != "shipped" and set_name(leaves) is None:
        if not Path(leaves).is_file():
            raise RacksmithError(f"no leaves {leaves!r}: give a shipped set (english, super, russian, erudit), "
                                 "'shipped' (each ruleset's own) or a leave file that is there")
    if isinstance(lexicon, str) and lexicon.strip().lower() not in EMBEDDED and not Path(lexicon).is_file():
        raise RacksmithError(f"no lexicon {lexicon!r}: give an embedded one ({', '.join(EMBEDDED)}), a word list or "
                             "a .kwg file that is there")


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def leaves_description(option: Any, klv: Any, ruleset: Any) -> str | None:
    """Which leave values an analysis added, for people: a file's path, ``erudit (shipped)``, or
    None (equity without leaves). ``option``: what was asked (``"shipped"``, a name...)."""
    if klv is None:
        return None
    path = getattr(klv, "path", None)
    if path is not None:
        return str(path)
    if not isinstance(option, str):
        return "a Leaves table (in memory)"
    name = option if option.strip().lower() != "shipped" else ruleset.name
    return f"{name.strip().lower()} (shipped)"


def _analyze_record(path: str, o: _Options) -> RecordResult:
    """One record's analysis; a problem with the record or its ruleset is its ``error``."""
    from ..lexicon import default_leaves, load_leaves
    from ..lexicon.load import ruleset_lexicon
    from .analysis import analyze
    from .replay import replay_file

    shown = path
    try:
        r = replay_file(path, o.ruleset, None, strict=False)
    except RacksmithError as e:
        text = str(e)
        return RecordResult(shown, error=text if shown in text else f"{shown}: {text}")
    names = [(p.nick, (p.name or p.nick).strip() or p.nick) for p in r.record.players]
    full = [name for _, name in names]
    # (one full name in two seats: a record typed with a placeholder; each seat is its nick then)
    names = tuple((nick, name if full.count(name) == 1 else f"{name} ({nick})") for nick, name in names)
    end = r.end_scores()
    scores = tuple(end if end is not None else r.scores)
    status = r.status
    if end is not None and r.lacking:
        status = f"finished; lacks {_listed([w.split(' (', 1)[0] for w in r.lacking])} (counted)"
    base = dict(names=names, final_scores=scores, complete=r.complete, over=r.over and (end is not None or not r.lacking),
                ruleset=r.ruleset.name, status=status)
    if r.errors and not r.turns:
        more = f" (and {len(r.errors) - 1} more)" if len(r.errors) > 1 else ""
        return RecordResult(shown, error=f"{shown} does not replay: {r.errors[0]}{more}", **base)
    rs = r.ruleset
    try:
        lex = ruleset_lexicon(rs, o.lexicon)
        if isinstance(o.leaves, str) and o.leaves.strip().lower() == "shipped":
            klv = default_leaves(rs)
        elif o.leaves is None:
            klv = None
        else:
            klv = load_leaves(o.leaves, rs)
        analysis = analyze(r, klv, top=o.top, lexicon=lex, sim=o.sim, endgame_seconds=o.endgame_seconds)
    except RacksmithError as e:
        return RecordResult(shown, error=f"{shown}: {e}", **base)
    return RecordResult(shown, analysis, leaves=leaves_description(o.leaves, klv, rs), **base)


_OPTIONS: _Options | None = None


def _init_worker(options: _Options) -> None:
    global _OPTIONS
    _OPTIONS = options


def _work(path: str) -> RecordResult:
    assert _OPTIONS is not None
    return _analyze_record(path, _OPTIONS)


def analyze_files(paths: Iterable["str | Path"], *, ruleset: "str | Path | Ruleset | None" = None,
                  lexicon: "LexiconLike | None" = None, leaves: "LeavesLike | None" = "shipped", top: int = 3,
                  sim: dict[str, Any] | None = None,
                  endgame_seconds: float | None = 10.0, jobs: int = 1,
                  progress: Callable[[int, int], None] | None = None) -> Iterator[RecordResult]:
    """Analyse every record ``paths`` name (:func:`record_files`: files, and folders' ``*.gcg``
    files), yielding a :class:`RecordResult` for each, in that order, as soon as it and those
    before it are done. ``ruleset``: of every record (default: each record's own, else english);
    ``lexicon``: to generate moves from (default: each ruleset's); ``leaves``: ``"shipped"`` (each
    ruleset's shipped leaves), None, or a leave file or shipped set's name; ``top``, ``sim``,
    ``endgame_seconds``: as :func:`~racksmith.review.analysis.analyze` takes them. ``jobs``: worker
    processes sharing the records (1: this process); the results are the same for any number.
    ``progress(done, total)`` is called as records finish. The arguments, and that every path
    exists, are checked at once (before the first record is analysed)."""
    jobs = _args.whole(jobs, "jobs", lo=1, hi=1024)
    _args.callback(progress, "progress")
    top = _args.whole(top, "top", lo=1)
    if endgame_seconds is not None and (isinstance(endgame_seconds, bool)
                                        or not isinstance(endgame_seconds, (int, float))
                                        or not 0 < endgame_seconds < float("inf")):
        raise RacksmithError(f"endgame_seconds must be a positive number of seconds or None, got {endgame_seconds!r}")
    if sim is not None:
        from .analysis import _sim_options

        sim = _sim_options(sim)
    if ruleset is not None:  # read once, here: a ruleset that is not one is said before any record
        from ..rules.ruleset import get_ruleset

        ruleset = get_ruleset(ruleset)
    _check_named(leaves, lexicon)
    if sim is not None and jobs > 1 and (sim.get("progress") is not None or sim.get("cancel") is not None):
        raise RacksmithError("sim options 'progress' and 'cancel' reach no worker process: give them with jobs=1, "
                             "or leave them out")
    for value, name in ((leaves, "leaves"), (lexicon, "lexicon")):
        if value is not None and not isinstance(value, (str, os.PathLike)) and type(value).__name__ not in ("Leaves", "Lexicon"):
            loaded = "a Leaves table" if name == "leaves" else "a Lexicon"
            raise RacksmithError(f"{name} must be a name, a file's path, {loaded} or None, got {_args.show(value)}")
    files = [str(p) for p in record_files(paths)]
    return _analyzed(files, _Options(ruleset, lexicon, leaves, top, sim, endgame_seconds), jobs, progress)


def _analyzed(files: list[str], options: _Options, jobs: int,
              progress: Callable[[int, int], None] | None) -> Iterator[RecordResult]:
    total = len(files)
    if progress is not None:
        progress(0, total)
    if jobs == 1 or total <= 1:
        for i, f in enumerate(files):
            result = _analyze_record(f, options)
            if progress is not None:
                progress(i + 1, total)
            yield result
        return
    from ..lexicon.cache import probe_cache
    from ..play.pool import WorkerPool

    probe_cache()  # (a cache folder that cannot be written is said here once, not by every worker)
    waiting: dict[int, RecordResult] = {}
    nxt = 0
    done = 0
    with WorkerPool(min(jobs, total), initializer=_init_worker, initargs=(options,)) as pool:
        for (i, _), result in pool.completed(_work, enumerate(files), key=lambda item: item[1]):
            waiting[i] = result
            done += 1
            if progress is not None:
                progress(done, total)
            while nxt in waiting:
                yield waiting.pop(nxt)
                nxt += 1
