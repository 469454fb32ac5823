"""Leave training by self-play, in generations, resumable, on any backend.

Generation ``g`` plays ``games`` games whose players rank moves by static equity with the leaves
of generation ``g − 1`` (none, or the ``start`` file, for the first), tallies the racks
(:mod:`.games`), and turns the tally into generation ``g``'s leaves (:mod:`.leavegen`). The last
generation's leaves are the result.

The state of a run lives next to the output, in ``OUTPUT.train/``: ``state.json`` (the settings and
how far the run got), the tally of the generation under way (saved after every round of
``checkpoint`` games) and each finished generation's leaves. The settings saved hold the sha256 of
the lexicon the games play with (and of a ruleset file's content): a run is resumed only with the
same ones. Running the same training again continues from there; the result is the same file as
an uninterrupted run's, for any number of workers and either backend, because tallies are exact
integers merged by key and every game's bag depends only on (seed, generation, game). A state saved
by a racksmith whose games or tables made other tallies (before a pass was worth −50 and the tables
were complete) is refused once it holds games, as is a tally that holds other turns than the state.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import RacksmithError
from ..lexicon import Leaves
from ..lexicon.files import check_output_path, hold_lock, release_lock, write_atomically
from ..lexicon.load import ruleset_lexicon
from ..lexicon.sidecar import written_together
from ..play.backends import MAX_GAMES, Runner, check_backend, portable_path, ruleset_ref, split
from ..rules.ruleset import Ruleset, get_ruleset, is_shipped, provenance_fields
from .games import TallyJob, kernel_plays
from .leavegen import DEFAULT_PRIOR_WEIGHT, check_leave_count, trained_leaves
from .tally import WIDTH, RackTally

#: the state written; what its tallies mean (a pass with tiles in the bag worth −50, a generation's
#: table complete) is told by the lexicon's digest in its settings (:func:`_older`): a state without
#: it is refused once something was played. (Kept at 1: a bump would make the versions since the
#: digest refuse the runs this one continues, whose tallies mean the same.)
STATE_VERSION = 1
BATCH = 50  #: games a batch (one task of a worker)


@dataclass(frozen=True)
class TrainSettings:
    """What a training run computes; two runs with equal settings give the same leaves.

    ``ruleset``: a shipped ruleset's name, a ruleset file's path, or a :class:`Ruleset`; the
    ruleset itself goes to the workers, and the state and the provenance record its content's
    digest (:meth:`Ruleset.content_sha256`) and its file when it is not a shipped one."""

    ruleset: "str | Ruleset"
    lexicon: str | None = None
    games: "int | tuple[int, ...]" = 10_000  #: games a generation, or one count per generation
    generations: int = 2
    seed: int = 0
    start: str | None = None  #: sha256 of the KLV2 the first generation plays with (None: no leaves)
    prior_weight: float = DEFAULT_PRIOR_WEIGHT
    probes: int = 0  #: census racks drawn before every tallied turn (0: tally the racks dealt)

    def __post_init__(self) -> None:
        v = self.generations
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_GAMES:  # each plays a game at least
            raise RacksmithError(f"generations must be a whole number from 1 to {MAX_GAMES:,}, got {v!r}")
        counts = (self.games,) * v if isinstance(self.games, int) else self.games
        if not isinstance(counts, (tuple, list)) or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in counts):
            raise RacksmithError(f"games must be a whole number, at least 1, or one such number per generation, got {self.games!r}")
        if len(counts) != v:
            raise RacksmithError(f"{len(counts)} game counts for {v} generations: give one count, or one per generation")
        if sum(counts) > MAX_GAMES:
            raise RacksmithError(f"games: {sum(counts):,} in all; a training run plays at most {MAX_GAMES:,}")
        object.__setattr__(self, "games", counts[0] if len(set(counts)) == 1 else tuple(counts))
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise RacksmithError(f"seed must be a whole number, got {self.seed!r}")
        if isinstance(self.prior_weight, bool) or not (isinstance(self.prior_weight, (int, float)) and 0 <= self.prior_weight < 1e9):
            raise RacksmithError(f"prior_weight must be a number at least 0, got {self.prior_weight!r}")
        if isinstance(self.probes, bool) or not isinstance(self.probes, int) or not 0 <= self.probes <= 10_000:
            raise RacksmithError(f"probes must be a whole number 0..10000, got {self.probes!r}")

    @property
    def weighting(self) -> str:
        """How a tallied rack counts for the leaves it contains (:func:`.leavegen.leave_sums`): each
        choice of tiles for a census (the exact mean over random completions), each distinct leave
        once for the racks dealt."""
        return "draws" if self.probes else "once"

    def games_in(self, generation: int) -> int:
        """The games of generation ``generation`` (1-based)."""
        return self.games if isinstance(self.games, int) else self.games[generation - 1]

    @property
    def total_games(self) -> int:
        return sum(self.games_in(g) for g in range(1, self.generations + 1))


@dataclass
class TrainResult:
    leaves: Leaves
    output: Path
    provenance: dict[str, Any]
    finished: bool  #: False when the run stopped early (``stop_after``): run it again to go on
    seconds: float
    games_played: int  #: by this call


def racksmith_commit(source: "str | Path | None" = None) -> str | None:
    """The git commit of the racksmith source tree this runs from, when it is a checkout of
    racksmith (this file tracked there: not a repository around an installed copy), with
    ``-dirty`` when its source differs from that commit. ``source``: this file (tests give a copy)."""
    me = Path(source or __file__).resolve()
    here = me.parent
    package = here.parent

    def git(*args: str) -> "str | None":
        try:
            out = subprocess.run(["git", "-C", str(here), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    if git("ls-files", "--error-unmatch", me.name) is None:
        return None
    head = git("rev-parse", "HEAD")
    if not head:
        return None
    changed = git("status", "--porcelain", "--untracked-files=no", "--", str(package))
    return head + ("-dirty" if changed else "")


def state_dir(output: str | Path) -> Path:
    return Path(str(output) + ".train")


def provenance_path(output: str | Path) -> Path:
    return Path(str(output) + ".json")


def train_leaves(
    output: str | Path,
    settings: TrainSettings,
    *,
    start_leaves: bytes | None = None,
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    checkpoint: int = 1000,
    stop_after: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    command: str | None = None,
    start_provenance: dict[str, Any] | None = None,
) -> TrainResult:
    """Train leaves and write them to ``output`` (KLV2) with their provenance in ``output.json``.

    ``start_leaves``: the KLV2 bytes the first generation plays with (their sha256 must be
    ``settings.start``). ``checkpoint``: games between saves of the state. ``stop_after``: stop
    (resumably) after about that many games in this call. ``progress(label, done, total)`` is
    called as games finish. ``start_provenance``: the provenance of the start leaves, nested in
    this run's (``start_provenance``; ``games_in_chain`` adds its games to this run's).
    """
    backend = check_backend(backend, jobs, address)
    if isinstance(checkpoint, bool) or not isinstance(checkpoint, int) or checkpoint < 1:
        raise RacksmithError(f"checkpoint must be a whole number of games, at least 1, got {checkpoint!r}")
    rs = get_ruleset(settings.ruleset)
    if rs.rack_size < 2:  # (a play empties a rack of one tile: nothing is ever kept)
        raise RacksmithError(f"leave training handles racks of 2 to {WIDTH} tiles; {rs.name} has racks of "
                             f"{rs.rack_size}, which keep no leave: a move's equity is its score, and {rs.name} "
                             "needs no leave file")
    if rs.rack_size > WIDTH:  # (a tally's keys hold a rack of at most WIDTH tiles)
        raise RacksmithError(f"leave training handles racks of 2 to {WIDTH} tiles; {rs.name} has racks of "
                             f"{rs.rack_size}: build its leaves from a CSV instead (racksmith leaves build)")
    check_leave_count(rs)  # (the table written holds every leave: refused now, not after the games)
    if settings.probes and not kernel_plays(rs):
        raise RacksmithError(f"probes are drawn by the kernel's game loop, which does not play {rs.name} "
                             "(star reclamation with more blanks than it takes back): use probes=0")
    ref = ruleset_ref(rs)  # the workers play this very ruleset, not one found again by its name
    if start_leaves is not None:
        digest = hashlib.sha256(start_leaves).hexdigest()
        if settings.start != digest:
            raise RacksmithError("settings.start must be the sha256 of start_leaves")
        Leaves.from_bytes(start_leaves, rs)  # readable, right alphabet
    elif settings.start is not None:
        raise RacksmithError("settings.start names start leaves but none were given")
    out = Path(output)
    check_output_path(out)  # (/dev/stdout, a FIFO, a device: refused now, and no OUTPUT.train made beside it)
    check_output_path(provenance_path(out))
    if out.parent and not out.parent.exists():
        raise RacksmithError(f"cannot write {str(out)!r}: folder {str(out.parent)!r} does not exist")
    lexicon_sha256 = lexicon_digest(rs, settings.lexicon)  # (what the games play with: a resumed run must too)
    sdir = state_dir(out)
    created = not sdir.exists()
    lock = _lock(sdir, out)
    try:
        fresh = not (sdir / "state.json").exists()
        try:
            state = _load_state(sdir, settings, rs, lexicon_sha256)
        except BaseException:
            if created:
                shutil.rmtree(sdir, ignore_errors=True)
            raise
        commit = racksmith_commit()
        if commit != state.get("commit") and commit not in state.setdefault("resumed_with", []):
            state["resumed_with"].append(commit)  # the code changed between the parts of the run
        try:
            return _train(out, sdir, state, settings, rs, ref, start_leaves, jobs, backend, address, checkpoint,
                          stop_after, progress, command, start_provenance)
        except BaseException:
            if fresh and not _played(_saved_state(sdir)):
                # nothing was played, or nothing played saved (a full disk at the first round's state,
                # its tally written): leave no state to resume
                shutil.rmtree(sdir, ignore_errors=True)
            raise
    finally:
        release_lock(lock, sdir / "lock")


def lexicon_digest(ruleset: Ruleset, lexicon: str | None) -> str:
    """The sha256 of the lexicon a training's games play with (the bytes of its KWG, as loaded or
    built from a word list; an embedded lexicon's too): ``lexicon`` (a name or a file, read as the
    workers read it), else the ruleset's. A run is resumed only with the same one."""
    lex = ruleset_lexicon(ruleset, portable_path(lexicon) or None)
    return hashlib.sha256(lex.tobytes()).hexdigest()


def _lock(sdir: Path, out: Path):
    """The state folder's lock, held for the whole run (the file ``lock`` in it:
    :func:`~racksmith.lexicon.files.hold_lock`): a second run on the same output while one is going
    is refused, instead of both playing every game and racing on the state files. None where the
    system has no such lock (the run is then not guarded)."""
    sdir.mkdir(parents=True, exist_ok=True)
    try:
        return hold_lock(sdir / "lock")
    except BlockingIOError:
        raise RacksmithError(f"another leaves train is writing {str(out)!r} (its state is in {str(sdir)!r}): "
                             "wait for it to finish, or give another output") from None


def _train(out: Path, sdir: Path, state: dict, settings: TrainSettings, rs: Ruleset, ref, start_leaves,
           jobs, backend, address, checkpoint, stop_after, progress, command, start_provenance) -> TrainResult:
    """The generations of :func:`train_leaves` from ``state`` on."""
    t0 = time.perf_counter()
    played = 0
    leaves_bytes = start_leaves
    if state["generation"] > 1:
        leaves_bytes = (sdir / f"gen{state['generation'] - 1}.klv2").read_bytes()
    runner: Runner | None = None
    try:
        while state["generation"] <= settings.generations:
            g = state["generation"]
            tally = _saved_tally(sdir, g, state["games_done"], _turns(state, g))
            # (a lexicon file by its absolute path: a Ray worker's working directory is not this one)
            job = TallyJob(ref, portable_path(settings.lexicon), leaves_bytes, settings.seed, g, probes=settings.probes)
            label = f"generation {g}/{settings.generations}"
            games = settings.games_in(g)
            if progress:
                progress(label, state["games_done"], games)
            if runner is None:  # one backend for the whole run (one Ray instance, not one a generation)
                runner = Runner(job, jobs=jobs, backend=backend, address=address).__enter__()
            runner.use(job)
            while state["games_done"] < games:
                if stop_after is not None and played >= stop_after:
                    return _stopped(out, sdir, rs, state, t0, played)
                done = state["games_done"]
                stop = min(games, done + checkpoint)
                batches = split(done, stop, BATCH)
                count = [done]

                def tick(n: int) -> None:
                    count[0] += n
                    if progress:
                        progress(label, count[0], games)

                tally = RackTally.merge([tally, *runner.run(batches, tick)])
                # the tally of the first `stop` games gets a file of its own, then the state names
                # it: stopped between the two writes, the state still names the previous tally,
                # and the round is played again onto that one (never added twice)
                tally.save(_tally_file(sdir, g, stop))
                state["games_done"] = stop
                state.setdefault("observations", {})[str(g)] = tally.observations
                _save_state(sdir, state)
                _drop_tallies(sdir, g, keep=stop)
                played += stop - done
            leaves, tallied = trained_leaves(tally, rs, settings.prior_weight, weighting=settings.weighting,
                                             source=f"generation {g}")
            leaves_bytes = leaves.tobytes()
            write_atomically(sdir / f"gen{g}.klv2", leaves_bytes)
            state["generation"] = g + 1
            state["games_done"] = 0
            state.setdefault("leaves", {})[str(g)] = len(leaves)
            state.setdefault("tallied_leaves", {})[str(g)] = tallied
            _save_state(sdir, state)
    finally:
        if runner is not None:
            runner.__exit__(None, None, None)
    final = sdir / f"gen{settings.generations}.klv2"
    data = final.read_bytes()
    prov = provenance(settings, state, data, command, start_provenance, ruleset=rs)
    prov_bytes = (json.dumps(prov, indent=2, ensure_ascii=False) + "\n").encode()
    try:
        with written_together(out):  # (no room for the provenance: the leaves are not written either)
            write_atomically(out, data)
            write_atomically(provenance_path(out), prov_bytes)
        _remove_state(sdir)
    except KeyboardInterrupt:
        # stopped once the leaves and their provenance are written: the run is done, and its state goes
        # all the same (else left half removed, which a rerun refuses); stopped before, the state is kept
        if _holds(out, data) and _holds(provenance_path(out), prov_bytes):
            _remove_state(sdir)
        raise
    return TrainResult(Leaves.from_bytes(data, rs), out, prov, True, time.perf_counter() - t0, played)


def _holds(path: Path, data: bytes) -> bool:
    """Whether the file ``path`` holds ``data``, byte for byte."""
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _remove_state(sdir: Path) -> None:
    """Remove the state folder of a run whose leaves are written: renamed away first, in one step
    (from then on no ``OUTPUT.train`` is there that a rerun could find half removed, and refuse),
    then deleted, with any such folder a run stopped while deleting it left behind. Where it cannot
    be renamed, its ``state.json`` goes first: what is left then holds no state to resume."""
    try:
        os.rename(sdir, sdir.with_name(f".{sdir.name}.{secrets.token_hex(6)}.removed"))
    except FileNotFoundError:
        pass
    except OSError:
        try:
            (sdir / "state.json").unlink()
        except OSError:
            pass
        shutil.rmtree(sdir, ignore_errors=True)
    for gone in glob.glob(os.path.join(glob.escape(str(sdir.parent)), f".{glob.escape(sdir.name)}.*.removed")):
        shutil.rmtree(gone, ignore_errors=True)


def provenance(settings: TrainSettings, state: dict, data: bytes, command: str | None,
               start_provenance: dict[str, Any] | None = None, *, ruleset: Ruleset | None = None) -> dict[str, Any]:
    """What made a leave file: the settings, the ruleset played (:func:`~racksmith.rules.ruleset.provenance_fields`), the
    turns tallied, the software (and, when it trained on from another file, that file's
    provenance). ``ruleset``: the ruleset loaded from ``settings.ruleset`` (loaded here when None)."""
    rs = ruleset if ruleset is not None else get_ruleset(settings.ruleset)
    saved = state.get("settings") if isinstance(state.get("settings"), dict) else {}
    n_leaves = len(Leaves.from_bytes(data, rs))
    tallied = state.get("tallied_leaves", {}).get(str(settings.generations))  # (None: a state saved before it was kept)
    out = {
        "format": "racksmith-leaves-provenance/1",
        **provenance_fields(rs),
        "lexicon": settings.lexicon or rs.lexicon,
        "lexicon_sha256": saved.get("lexicon_sha256"),
        "games_per_generation": [settings.games_in(g) for g in range(1, settings.generations + 1)],
        "generations": settings.generations,
        "games": settings.total_games,
        "seed": settings.seed,
        "start_sha256": settings.start,
        "prior_weight": settings.prior_weight,
        "probes": settings.probes,
        "weighting": settings.weighting,
        "absent_leaves": "prior",  # (every leave the tiles allow is written: those never tallied at their prior)
        "turns_tallied": {k: v for k, v in sorted(state.get("observations", {}).items(), key=lambda kv: int(kv[0]))},
        "leaves": n_leaves,
        "tallied_leaves": tallied,  # the leaves some tallied turn's rack held (the last generation's)
        "prior_leaves": n_leaves - tallied if isinstance(tallied, int) else None,  # the others: at their prior
        "sha256": hashlib.sha256(data).hexdigest(),
        "racksmith_version": __version__,
        "racksmith_commit": state.get("commit"),
        **({"racksmith_commits_resumed": state["resumed_with"]} if state.get("resumed_with") else {}),
        "command": command,
    }
    if start_provenance is not None:
        before = start_provenance.get("games_in_chain", start_provenance.get("games", 0))
        out["games_in_chain"] = settings.total_games + int(before) if isinstance(before, int) else None
        out["start_provenance"] = start_provenance
    return out


def _stopped(out: Path, sdir: Path, rs: Ruleset, state: dict, t0: float, played: int) -> TrainResult:
    g = state["generation"] - 1
    leaves = Leaves.from_bytes((sdir / f"gen{g}.klv2").read_bytes(), rs) if g >= 1 else Leaves.empty(rs)
    return TrainResult(leaves, out, {"state": str(sdir), **state}, False, time.perf_counter() - t0, played)


def _settings_record(settings: TrainSettings, rs: Ruleset, lexicon_sha256: str) -> dict[str, Any]:
    """The settings as the state saves them (JSON): a shipped ruleset by its name, as before; any
    other by its name and its content's digest, so that a run is not resumed with a ruleset file
    changed since (or with another file of the same name); the digest of the lexicon the games play
    with (:func:`lexicon_digest`), so that it is not resumed with another word list either."""
    want = {f.name: getattr(settings, f.name) for f in fields(settings)}
    want["ruleset"] = rs.name
    if not is_shipped(rs):
        want["ruleset_sha256"] = rs.content_sha256()
    if not settings.probes:
        del want["probes"]  # as a run saved before probes existed wrote its settings
    want["lexicon_sha256"] = lexicon_sha256
    return json.loads(json.dumps(want))


def _load_state(sdir: Path, settings: TrainSettings, rs: Ruleset, lexicon_sha256: str) -> dict[str, Any]:
    want = _settings_record(settings, rs, lexicon_sha256)
    f = sdir / "state.json"
    if f.exists():
        try:
            state = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise RacksmithError(f"cannot read training state {str(f)!r}: {e}; remove {str(sdir)!r} to start over") from None
        if not isinstance(state, dict):
            raise RacksmithError(f"training state {str(f)!r} is not a JSON object (damaged?); remove {str(sdir)!r} to start over")
        version = state.get("version")
        if type(version) is not int or not 1 <= version <= STATE_VERSION:
            raise RacksmithError(_other_format(sdir, version))
        saved = state.get("settings")
        if _older(state):
            if _played(state):
                raise RacksmithError(_older_state(sdir, state))
            # nothing played yet: nothing to mix; what it did not keep is nothing to check
            saved = state["settings"] = _caught_up(saved, want, rs)
        if (isinstance(saved, dict) and "ruleset_sha256" in saved and "ruleset_sha256" not in want
                and saved["ruleset_sha256"] == rs.content_sha256()):
            # a copy of a shipped ruleset's file, given by its path when the run started (kept with its
            # digest then; now equal to the shipped one, whose digest is not kept): the same rules
            saved = state["settings"] = {k: v for k, v in saved.items() if k != "ruleset_sha256"}
        if saved != want:
            raise RacksmithError(_other_settings(sdir, saved, want, settings, rs))
        _check_state(f, sdir, state, settings)
        state["version"] = STATE_VERSION  # (what it holds means what a state of now does)
        return state
    sdir.mkdir(parents=True, exist_ok=True)
    state = {"version": STATE_VERSION, "settings": want, "generation": 1, "games_done": 0,
             "commit": racksmith_commit()}
    _save_state(sdir, state)
    return state


def _other_format(sdir: Path, version: Any) -> str:
    """Why a state of another version than those read is refused."""
    if type(version) is int and version > STATE_VERSION:
        reads = f"version {STATE_VERSION}" if STATE_VERSION == 1 else f"versions 1 to {STATE_VERSION}"
        return (f"{str(sdir)!r} holds a training run saved by a newer racksmith (state version {version}; this one "
                f"reads {reads}): finish the run with the version that started it, or remove the folder to start over")
    return (f"{str(sdir)!r} holds a training run saved in another state format (version {version!r}, not "
            f"{STATE_VERSION}): remove the folder to start over")


def _older(state: dict[str, Any]) -> bool:
    """Whether ``state`` was saved by a racksmith whose tallies meant something else: version 1
    without the lexicon's digest in its settings. The digest came (d1eb055, 2026-11-30) after the
    last change of what a tally holds (fcbc9d9: a generation's table complete, absent leaves at
    their prior, not 0; 6e6a5ee before it: a pass with tiles in the bag worth −50, not 0); nothing
    the states of the versions between those changes hold tells them apart, so a state without it
    is taken as older than both."""
    saved = state.get("settings")
    return state.get("version") == 1 and not (isinstance(saved, dict) and "lexicon_sha256" in saved)


def _saved_state(sdir: Path) -> dict[str, Any]:
    """The state saved in ``sdir`` as its file holds it now (a failed write left the one before):
    empty when it cannot be read."""
    try:
        state = json.loads((sdir / "state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _played(state: dict[str, Any]) -> bool:
    """Whether ``state`` holds games (a tally, or a generation's table): anything but the fresh
    state of a run stopped before its first round."""
    g, done = state.get("generation"), state.get("games_done")
    return not (type(g) is int and g == 1 and type(done) is int and done == 0)


def _older_state(sdir: Path, state: dict[str, Any]) -> str:
    """Why a state :func:`_older` that holds games is not resumed: its tallies were made otherwise.
    A tally that holds other turns than the state (an older racksmith stopped between writing the
    two) is said first: the version that started the run would count those games twice."""
    g, done = state.get("generation"), state.get("games_done")
    f = _named_tally(sdir, g, done) if type(g) is int and type(done) is int and done > 0 else None
    if f is not None:
        try:
            wrong = _other_turns(sdir, f, g, RackTally.load(f), _turns(state, g))
        except RacksmithError:  # (damaged: refused as older all the same)
            wrong = None
        if wrong is not None:
            return wrong
    return (f"{str(sdir)!r} holds a training run saved by an older racksmith (before a pass with tiles in the bag "
            "was worth −50, not 0, and a generation's table held the leaves never tallied at their prior, not at 0: "
            "2026-11-29 and 2026-11-30): its tallies value passes and tables differently, so resuming would mix two "
            "trainings; remove the folder to start over, or finish the run with the version that started it")


def _caught_up(saved: Any, want: dict[str, Any], rs: Ruleset) -> Any:
    """The settings of a state :func:`_older` with what that version did not keep taken as this
    run's (a digest it did not keep is nothing to check), and a ruleset file by the path it was
    given then (as that version kept it) when it is the file read now."""
    if not isinstance(saved, dict):
        return saved
    out = dict(saved)
    for key in ("lexicon_sha256", "ruleset_sha256"):
        if key in want and key not in out:
            out[key] = want[key]
    then = saved.get("ruleset")
    if ("ruleset_sha256" not in saved and isinstance(then, str) and then != want["ruleset"]
            and not is_shipped(rs) and rs.source and _same_file(then, rs.source)):
        out["ruleset"] = want["ruleset"]
    return out


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, ValueError, RuntimeError):
        return False


def _turns(state: dict[str, Any], generation: int) -> Any:
    """The turns the state says generation ``generation``'s tally holds (None: it says none)."""
    seen = state.get("observations")
    return seen.get(str(generation)) if isinstance(seen, dict) else None


#: a setting's name in the refusal of a state saved with other settings, when not its own
_SETTING_WORDS = {"prior_weight": "prior weight", "start": "start leaves (--from)"}


def _other_settings(sdir: Path, saved: Any, want: dict[str, Any], settings: TrainSettings, rs: Ruleset) -> str:
    """Why a saved training state is not resumed with ``want`` (the settings record of this run):
    each setting that differs, with its value then and now; a ruleset file or lexicon by what
    changed."""
    if not isinstance(saved, dict):
        return (f"training state {str(sdir / 'state.json')!r} holds no settings (damaged?); remove {str(sdir)!r} "
                "to start over")

    def shown(key: str, value: Any) -> str:
        if value is None:
            return "the ruleset's" if key == "lexicon" else "none"
        if key == "probes" and value == "-":
            return "0"
        if key == "start" and isinstance(value, str):
            return f"sha256 {value[:12]}…"
        if isinstance(value, list):
            return ",".join(map(str, value))
        return f"{value:g}" if isinstance(value, float) else str(value)

    said, files = [], []
    for key in [*want, *(k for k in saved if k not in want)]:
        then, now = saved.get(key, "-" if key == "probes" else None), want.get(key, "-" if key == "probes" else None)
        if then == now or (key == "lexicon_sha256" and then is None):  # (a state of before the digest was kept)
            continue
        if key == "ruleset_sha256":
            if then is None or now is None:  # (a shipped ruleset keeps no digest)
                said.append(f"ruleset {rs.name}: " + ("the shipped one then, a file now" if then is None
                                                      else "a file then, the shipped one now"))
                continue
            said.append("the ruleset file changed since the run started")
            files.append("ruleset file")
        elif key == "lexicon_sha256":
            digests = f"sha256 {str(then)[:12]}… then, {str(now)[:12]}… now"
            if saved.get("lexicon") == want.get("lexicon"):  # (else its name is said as a setting of its own)
                digests = f"{settings.lexicon or rs.lexicon}: {digests}"
            said.append(f"the lexicon changed since the run started ({digests})")
            files.append("lexicon")
        elif key == "start" and _shipped_trained(then) is not None:
            said.append(_start_now_completed(then, now))
        else:
            said.append(f"{_SETTING_WORDS.get(key, key)} {shown(key, then)} then, {shown(key, now)} now")
    if not said:  # (a digest missing from a state of now: not one this racksmith wrote)
        return (f"training state {str(sdir / 'state.json')!r} holds settings in another form than racksmith saves "
                f"them (damaged?); remove {str(sdir)!r} to start over")
    same = "the same settings" + (f" (and the same {' and '.join(files)})" if files else "")
    if files and len(files) == len(said):
        same = f"the same {' and '.join(files)}"
    return (f"{str(sdir)!r} holds a training run with other settings: {'; '.join(said)}; give {same} to resume, "
            "or remove the folder to start over")


def _shipped_trained(digest: Any) -> "str | None":
    """The shipped leave set whose trained file (the package's ``leaves-NAME.klv2.gz``, what
    ``--from NAME`` gave before the shipped sets were completed) has the sha256 ``digest``, or None."""
    from ..lexicon.shipped_leaves import leaves_provenance, shipped_leaves_names

    if not isinstance(digest, str):
        return None
    for name in shipped_leaves_names():
        try:
            done = leaves_provenance(name).get("completed")
        except (OSError, ValueError):
            continue
        if isinstance(done, dict) and done.get("trained_sha256") == digest:
            return name
    return None


def _start_now_completed(then: str, now: Any) -> str:
    """A run started from a shipped set's trained file (``then``): ``--from NAME`` gave that file
    before, and gives the complete table now; how to get the file to resume."""
    import shlex
    from importlib import resources

    from ..lexicon.shipped_leaves import leaves_provenance

    name = _shipped_trained(then)
    complete = leaves_provenance(name).get("sha256")
    gz = resources.files("racksmith.lexicon").joinpath("data").joinpath(f"leaves-{name}.klv2.gz")
    here = Path(str(gz))
    where = f"gunzip -c {shlex.quote(str(here))} > {name}-trained.klv2" if here.is_file() else f"the package's data/{gz.name}, gunzipped"
    line = (f"start leaves (--from) sha256 {then[:12]}… then: the trained file of the shipped {name} set, which "
            f"--from {name} gave before 2026-11-30; --from {name} now gives the {name} table completed since "
            f"(sha256 {str(complete)[:12]}…)")
    if now == complete:
        return line + f", this run's: to resume, give --from {name}-trained.klv2, made by {where}"
    return line + f", and this run's is {'none' if now is None else f'sha256 {str(now)[:12]}…'}"


def _check_state(f: Path, sdir: Path, state: dict, settings: TrainSettings) -> None:
    """Refuse a saved state whose counters could not have been written by a run of ``settings``."""
    g, done = state.get("generation"), state.get("games_done")
    bad = None
    if type(g) is not int or not 1 <= g <= settings.generations + 1:
        bad = f"generation {g!r} (1..{settings.generations + 1})"
    elif type(done) is not int or not 0 <= done <= (settings.games_in(g) if g <= settings.generations else 0):
        bad = f"games_done {done!r}"
    elif g > 1 and not (sdir / f"gen{g - 1}.klv2").is_file():
        bad = f"gen{g - 1}.klv2 is missing"
    if bad:
        raise RacksmithError(f"training state {str(f)!r} is damaged ({bad}); remove {str(sdir)!r} to start over")


def _tally_file(sdir: Path, generation: int, games_done: int) -> Path:
    """The tally of generation ``generation``'s first ``games_done`` games."""
    return sdir / f"gen{generation}.{games_done}.tally.npz"


def _saved_tally(sdir: Path, generation: int, games_done: int, turns: Any) -> RackTally:
    """The tally the state names: empty before the first round, else the file of that many games
    (``gen{g}.tally.npz``: a state saved before the files were named by their games), which must
    hold the ``turns`` the state says it does (:func:`_other_turns`)."""
    if not games_done:
        return RackTally.empty()
    f = _named_tally(sdir, generation, games_done)
    if f is None:
        raise RacksmithError(f"training state {str(sdir)!r}: {_tally_file(sdir, generation, games_done).name} is "
                             "missing; remove the folder to start over")
    try:
        tally = RackTally.load(f)
    except RacksmithError as e:
        raise RacksmithError(f"{e}; remove the training state {str(sdir)!r} to start over") from None
    wrong = _other_turns(sdir, f, generation, tally, turns)
    if wrong is not None:
        raise RacksmithError(wrong)
    return tally


def _named_tally(sdir: Path, generation: int, games_done: int) -> "Path | None":
    """The file of the tally the state names (see :func:`_saved_tally`), or None: missing."""
    for f in (_tally_file(sdir, generation, games_done), sdir / f"gen{generation}.tally.npz"):
        if f.exists():
            return f
    return None


def _other_turns(sdir: Path, f: Path, generation: int, tally: RackTally, turns: Any) -> "str | None":
    """Why the tally ``f`` is not the one the state counts, when it holds other turns than the
    ``turns`` the state says (an older racksmith stopped between writing its tally and the state
    left a tally of a round more than the state counts: resuming played that round again onto it),
    else None."""
    if tally.observations == turns:
        return None
    said = f"{turns:,}" if type(turns) is int else "none"
    why = (" (a run stopped between writing the two: resuming would count the games of a round twice)"
           if type(turns) is int and tally.observations > turns else "")
    return (f"training state {str(sdir)!r}: the tally {f.name} holds {tally.observations:,} turns of generation "
            f"{generation}, the state {said}{why}; remove the folder to start over")


def _drop_tallies(sdir: Path, generation: int, keep: int) -> None:
    """Remove generation ``generation``'s tallies other than that of ``keep`` games (the state
    names it now)."""
    for f in sdir.glob(f"gen{generation}.*tally.npz"):
        if f != _tally_file(sdir, generation, keep):
            f.unlink(missing_ok=True)


def _save_state(sdir: Path, state: dict) -> None:
    write_atomically(sdir / "state.json", (json.dumps(state, indent=1) + "\n").encode())
