"""Self-play: complete games between built-in players, their invariants checked, with statistics.

Game ``i`` of a series draws its bag from the stream of ``(seed, i)`` (:func:`racksmith.core.bag.game_rng`)
and seats the players rotated by ``i`` (so each starts equally often), so results do not depend on
how games are spread over processes. With ``paired=True`` (two players) games ``2i`` and ``2i + 1``
share the bag of ``(seed, i)`` with the seats swapped.

Two engines play the same games. When every player is a built-in best-equity or best-score player
the whole turn loop — generate, choose, check, apply, draw, count the tiles — runs in the kernel
(:mod:`racksmith.play._gameloop`), one call per batch of games without the GIL; any other line-up
(a random player, a player of one's own) plays through :class:`~racksmith.play.game.Game`. Either
way every game checks that tiles are conserved (bag + racks + board = the set, after every turn)
and — unless ``validate=False`` — that every move the generator proposes is legal by an
independent check with the same score: in the kernel :c:func:`game_check` (the words read off the
board and looked up from the lexicon's root, the score from the premiums, the rack, the exchange
rule), in Python :func:`racksmith.core.validation.check_move_lean`; a Python game also checks at
the end that each score is the sum of its events. With ``gcg_dir`` each game is written as GCG:
a kernel game's moves are replayed through :class:`~racksmith.play.game.Game` (same bag stream),
which must reach the kernel's scores. A record that cannot be written (a full disk, the folder
removed mid-run) does not stop the series: the game is counted as played, its record as
unwritten (:attr:`SelfPlayReport.records_unwritten`), and every later game's record is still tried.

Players are named by kind: ``equity``, ``score``, ``random``; ``equity:leaves=PATH`` gives one
equity player its own leave file and ``equity:leaves=none`` none (a match of leave tables), where
plain ``equity`` uses the series' leaves.

A series keeps its games as numpy columns (:class:`~racksmith.play.tables.GameTable`, tens of bytes
a game, each batch written into the rows of its games as it comes back), and its report computes
every figure from them, means and standard deviations from exact integer sums.

With ``jobs > 1`` the games are spread over worker processes, each set up once by a pool
initializer with the configuration and the loaded lexicon and leaves (passed, not inherited), so a
series runs the same under every start method of :mod:`multiprocessing` (fork, spawn, forkserver).
"""
from __future__ import annotations

import csv
import dataclasses
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import _args
from ..core.bag import game_rng
from ..core.turns import turn_limit
from ..core.position import LeavesLike, LexiconLike
from ..core.validation import check_move_lean
from ..errors import IllegalMoveError, OutputFileError, RacksmithError
from ..lexicon import Lexicon, load_leaves
from ..lexicon.files import write_atomically
from ..lexicon.load import ruleset_lexicon
from ..movegen._movegen import LeaveTable
from ..movegen.generate import _rules
from ..movegen.movelist import record_move
from ..rules.alphabet import LETTER_MASK
from ..rules.ruleset import Ruleset, get_ruleset
from . import _gameloop
from .backends import GamesInterrupted, can_start_processes, check_games, check_jobs, check_seed, runs, split
from .game import Game
from .pool import WorkerPool
from .records import PARTIAL_RECORD as _PARTIAL_RECORD, record_path, records_folder
from .players import _hide_racks
from .players import PLAYER_KINDS, BestEquityPlayer, BestScorePlayer, GameView, make_player
from .tables import GameTable, IntSums, chunks

#: games a batch holds at most: a call of the kernel's game loop, a share of a worker's games
BATCH = 50
#: the engines of a series: ``auto`` (the kernel when every player is a built-in equity or score
#: player, else Python), ``kernel`` (refused for other players), ``python`` (always :class:`Game`)
ENGINES = ("auto", "kernel", "python")
_KERNEL_KINDS = {BestEquityPlayer: "equity", BestScorePlayer: "score"}


#: the kernel's game loop keeps each player's total in 32 bits
MAX_KERNEL_TOTAL = 2**31 - 1

#: how a game ended, by code (the kernel's END_* codes): a player went out with the bag empty, the
#: scoreless turns reached the ruleset's limit, or the game was stopped (a move that could not be
#: applied, no end after the ruleset's turn limit, racksmith.core.turns.turn_limit: a violation); 0
#: when not known
END_OUT, END_SCORELESS, END_STOPPED = 1, 2, 3
#: the names of the codes, as the games' CSV writes them
END_NAMES = ("", "out", "scoreless", "stopped")


def game_end(game: Game) -> int:
    """How ``game`` ended: END_OUT, END_SCORELESS, or END_STOPPED when it is not over."""
    pos = game.live_position
    if not pos.is_over:
        return END_STOPPED
    if pos.bag_count == 0 and any(len(r) == 0 for r in pos.racks):
        return END_OUT
    return END_SCORELESS


def replay_log(game: Game, log: np.ndarray, reclaim: np.ndarray) -> None:
    """Play the moves of a kernel game's log (RECORD_DTYPE records; ``reclaim``: the squares of
    the stars each move took back, by turn, -1 after) onto ``game``, a Game on the same bag stream
    and seats. Raises ValueError or IndexError when a move cannot be applied."""
    buf = log.tobytes()
    size = log.dtype.itemsize
    alphabet = game.ruleset.alphabet
    cols = game.ruleset.cols
    for i in range(len(log)):
        move = record_move(buf, alphabet, i * size)
        squares = [int(q) for q in reclaim[i] if q >= 0]
        if squares:
            board = game.live_position.board
            taken = tuple((q // cols, q % cols, int(board[q // cols, q % cols]) & LETTER_MASK) for q in squares)
            move = dataclasses.replace(move, reclaimed=taken)
        game.play_trusted(move)


def one_line(text: str) -> str:
    """``text`` with its line breaks (and other whitespace but spaces and tabs) made spaces: what a
    GCG pragma's value or a player's name may hold."""
    return "".join(" " if ch.isspace() and ch not in " \t" else ch for ch in text)


def total_bound(ruleset: Ruleset) -> float:
    """The most a player's game total could reach on ``ruleset``: every tile placed in the best
    play the board allows, and the end-of-game adjustments."""
    from ..movegen.generate import play_score_bound

    most = play_score_bound(ruleset, max(ruleset.rows, ruleset.cols)) * ruleset.total_tiles
    return most + 2 * sum(v * c for v, c in zip(ruleset.values, ruleset.counts))


def kernel_plays_ruleset(ruleset: Ruleset) -> bool:
    """Whether the kernel's game loop plays this ruleset's games: every ruleset, Эрудит's star
    reclamation included, but star reclamation with more than ``MAX_KERNEL_STARS`` (8) blanks in the
    set, and a set whose game totals could pass 32 bits (:func:`total_bound`: a total that wrapped
    gave wrong scores and winners). Those play through the Python :class:`Game`, whose totals are
    Python integers; a series or match keeps them in a wide table (:func:`wide_tables`, 64-bit
    scores)."""
    if ruleset.star_reclamation and ruleset.counts[0] > _gameloop.MAX_KERNEL_STARS:
        return False
    return total_bound(ruleset) <= MAX_KERNEL_TOTAL


def wide_tables(ruleset: Ruleset) -> bool:
    """Whether a series or a match of ``ruleset`` keeps its games in a wide table
    (:data:`racksmith.play.tables.WIDE`: 64-bit scores, 32-bit turns): its game totals could pass
    the 32 bits of :attr:`GameTable.DTYPES`' scores (:func:`total_bound`), or its games the 16 bits
    of its turns (:func:`racksmith.core.turns.turn_limit`). Every shipped ruleset's fit the narrow
    table."""
    d = GameTable.DTYPES
    return (total_bound(ruleset) > np.iinfo(d["scores"]).max
            or turn_limit(ruleset) > np.iinfo(d["turns"]).max)  # (a game stopped at the limit counts it)



@dataclass(frozen=True, slots=True)
class SelfPlayConfig:
    """What a series plays: names and paths only, so that it crosses into worker processes."""

    players: tuple[str, ...] = ("equity", "equity")
    ruleset: str = "english"
    lexicon: str | None = None
    leaves: str | None = None
    seed: int = 0
    validate: bool = True
    gcg_dir: str | None = None
    paired: bool = False
    engine: str = "auto"


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game, by player (the order of ``config.players``), not by seat."""

    index: int
    first: int  #: the player who moved first
    scores: tuple[int, ...]
    bingos: tuple[int, ...]
    turns: int
    generator_calls: int
    moves_generated: int
    violations: tuple[str, ...] = ()


class _CountingView(GameView):
    """A game view that counts the move-generation calls of the players and the placements the
    generator completed for them (all of a position's placements for a full list; those reached
    before shadow playing stopped, for a top-N search)."""

    __slots__ = ("calls", "generated")

    def __init__(self, game: Game):
        super().__init__(game)
        self.calls = 0
        self.generated = 0

    def moves(self, top=None, **options):
        ms = self._game.live_position.moves(top, **options)
        _hide_racks(ms, self._game)  # (as GameView.moves: the other racks as the player sees them)
        self.calls += 1
        reached = getattr(ms, "placements_reached", None)
        self.generated += len(ms) if reached is None else reached
        return ms


def parse_player(spec: str) -> tuple[str, str | None]:
    """``"equity:leaves=PATH"`` -> ``("equity", "PATH")``; ``"equity:leaves=none"`` -> ``("equity",
    "none")``; a plain kind -> ``(kind, None)`` (the series' leaves)."""
    kind, _, option = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in PLAYER_KINDS:
        from .specs import player_kinds

        module = player_kinds()[kind].module if kind in player_kinds() else ""
        plugin = f"--import {module} " if module and not module.startswith(("racksmith.", "__")) else ""
        other = (f"; {kind!r} plays in a match (racksmith match {plugin}--p1 {kind} --p2 equity), which plays every "
                 "registered kind" if kind in player_kinds() else "")
        seats = (f" (one kind a seat: --players {','.join(['equity'] * int(kind))} for {kind} players)"
                 if kind.isdigit() and 2 <= int(kind) <= 4 else "")
        raise RacksmithError(f"unknown player {spec!r}: self-play plays the built-in players "
                             f"{', '.join(PLAYER_KINDS)}{other}{seats}")
    if not option:
        return kind, None
    name, eq, value = option.partition("=")
    if kind != "equity" or name.strip().lower() != "leaves" or not eq or not value.strip():
        raise RacksmithError(
            f"player {spec!r}: the one option is an equity player's leave file, as equity:leaves=PATH or equity:leaves=none"
        )
    return kind, value.strip()


class _Series:
    """The loaded things one process needs: ruleset, lexicon, players, and the kernel's tables when
    the kernel plays the series."""

    def __init__(self, config: SelfPlayConfig, lexicon: Any = None, leaves: Any = None):
        self.config = config
        check_seed(config.seed)
        if config.engine not in ENGINES:
            raise RacksmithError(f"engine {config.engine!r}: use one of {', '.join(ENGINES)}")
        self.ruleset: Ruleset = get_ruleset(config.ruleset)
        self.ruleset.check_players(len(config.players))  # the tiles fill a rack for every player
        self.turn_limit = turn_limit(self.ruleset)  #: a game still on after this many turns is stopped (a violation)
        self.wide = wide_tables(self.ruleset)  #: the games' tables are wide (64-bit scores, 32-bit turns)
        if lexicon is None:
            lexicon = ruleset_lexicon(self.ruleset, config.lexicon)
        self.lexicon = lexicon
        if leaves is None and config.leaves:
            leaves = load_leaves(config.leaves, ruleset=self.ruleset)
        self.leaves = leaves
        if config.paired and len(config.players) != 2:
            raise RacksmithError(f"paired games need 2 players, got {len(config.players)}")
        own: dict[str, Any] = {}
        self.players = []
        for spec in config.players:
            kind, path = parse_player(spec)
            if path is None:
                table = leaves
            elif path.lower() == "none":
                table = None
            else:
                table = own.get(path) or own.setdefault(path, load_leaves(path, ruleset=self.ruleset))
            self.players.append(make_player(kind, leaves=table, ruleset=self.ruleset))
        self.leaves_label = self._leaves_label(leaves)
        self.kernel = self._kernel_players()
        if config.engine == "kernel" and self.kernel is None:
            raise RacksmithError(
                "engine 'kernel' plays built-in equity and score players with a KWG lexicon, "
                f"{2}..{_gameloop.MAX_KERNEL_PLAYERS} of them (star reclamation with at most "
                f"{_gameloop.MAX_KERNEL_STARS} blanks): use engine 'auto' or 'python'"
            )

    def _leaves_label(self, leaves: Any) -> str:
        """The leaves the equity players play with, for the records: ``english`` when they share
        them, else ``p1 english, p2 none`` (``none``: equity without leave values; ``given``: a table
        passed to :func:`run_selfplay` without a name); "" without equity players."""
        own = {}
        for i, spec in enumerate(self.config.players):
            kind, path = parse_player(spec)
            if kind != "equity":
                continue
            if path is None:
                path = self.config.leaves or ("given" if leaves is not None else "none")
            own[f"p{i + 1}"] = "none" if path.lower() == "none" else path
        if not own:
            return ""
        if len(set(own.values())) == 1:
            return next(iter(own.values()))
        return ", ".join(f"{p} {src}" for p, src in own.items())

    def _kernel_players(self) -> list[tuple[str, LeaveTable | None]] | None:
        """The line-up as the kernel takes it, or None when the kernel cannot play it."""
        if self.config.engine == "python" or not isinstance(self.lexicon, Lexicon):
            return None
        if not kernel_plays_ruleset(self.ruleset):
            return None
        if not 2 <= len(self.players) <= _gameloop.MAX_KERNEL_PLAYERS:
            return None
        kinds = [_KERNEL_KINDS.get(type(p)) for p in self.players]
        if None in kinds:
            return None
        self.rules = _rules(self.ruleset, self.lexicon)
        tables: dict[int, LeaveTable] = {}
        lineup = []
        for kind, p in zip(kinds, self.players):
            lv = getattr(p, "leaves", None) if kind == "equity" else None
            if lv is not None and id(lv) not in tables:
                tables[id(lv)] = LeaveTable(lv)
            lineup.append((kind, tables[id(lv)] if lv is not None else None))
        return lineup

    @property
    def engine(self) -> str:
        return "kernel" if self.kernel is not None else "python"

    @property
    def equity_without_leaves(self) -> bool:
        """Does a plain equity player (no leaves of its own) play without leave values?"""
        return any(
            isinstance(p, BestEquityPlayer) and p.leaves is None and parse_player(spec)[1] is None
            for p, spec in zip(self.players, self.config.players)
        )

    def _seats(self, index: int) -> list[int]:
        """Seat -> player of game ``index``."""
        n = len(self.players)
        return [(index % n + s) % n for s in range(n)]

    def _new_game(self, index: int) -> Game:
        cfg = self.config
        seats = self._seats(index)
        return Game(
            self.ruleset,
            self.lexicon,
            players=[f"p{i + 1}" for i in seats],
            seed=game_rng(cfg.seed, index // 2 if cfg.paired else index),
            names=[self._name(i) for i in seats],
        )

    def _name(self, player: int) -> str:
        """Player ``player``'s full name in the records: its kind, and its number when another
        player is of the same kind (MAGPIE refuses a record whose two players have one name)."""
        kinds = self.config.players
        kind = kinds[player]
        return f"racksmith_{kind}" + (f"_{player + 1}" if kinds.count(kind) > 1 else "")

    def _write_gcg(self, index: int, game: Game) -> str | None:
        """Write game ``index``'s record into ``gcg_dir``: None, or why it could not be written (the
        series goes on without it)."""
        cfg = self.config
        assert cfg.gcg_dir is not None
        path = record_path(cfg.gcg_dir, index)
        try:
            leaves = f"; leaves: {self.leaves_label}" if self.leaves_label else ""
            what = one_line(f"Created with racksmith self-play (seed {cfg.seed}, game {index}{leaves})")
            text = game.gcg([("description", what)])
        except RacksmithError as e:  # a game GCG cannot describe (a score past 999,999,999 on a user's ruleset)
            return f"cannot write {str(path)!r}: {e}"
        try:
            write_atomically(path, text.encode("utf-8"))
        except OutputFileError as e:
            return str(e)
        except OSError as e:  # a check of the path before the write (e.g. a folder no longer searchable)
            return f"cannot write {str(path)!r}: {e.strerror or e}"
        return None

    def play_many(self, indices: Sequence[int]) -> tuple[GameTable, np.ndarray]:
        """Games ``indices``, a row each in their order (the kernel plays each run of consecutive
        indices in one call), and how each ended (END_* codes, int8, by row)."""
        k = len(self.players)
        if self.kernel is None:
            results = []
            ends = []
            unwritten: dict[int, str] = {}
            for row, i in enumerate(indices):
                result, lost, end = self.play(i)
                results.append(result)
                ends.append(end)
                if lost is not None:
                    unwritten[row] = lost
            return GameTable.from_results(results, k, unwritten=unwritten, wide=self.wide), np.array(ends, np.int8)
        parts: list[tuple[GameTable, np.ndarray]] = []
        i = 0
        while i < len(indices):
            j = i + 1
            while j < len(indices) and indices[j] == indices[j - 1] + 1:
                j += 1
            parts.append(self.play_kernel(indices[i], j - i))
            i = j
        if len(parts) == 1:
            return parts[0]
        return GameTable.concat([t for t, _ in parts], k), np.concatenate([e for _, e in parts])

    def play_kernel(self, first: int, n: int) -> tuple[GameTable, np.ndarray]:
        """Games ``first .. first + n - 1``, in one call of the kernel's game loop, and how each
        ended (END_* codes)."""
        cfg = self.config
        k = len(self.players)
        r = _gameloop.play_games(
            self.rules, self.kernel, cfg.seed, first, n, paired=cfg.paired, check=cfg.validate, log=bool(cfg.gcg_dir)
        )
        problems: dict[int, list[str]] = {}
        for game, turn, code, detail, _player, rec in r["violations"]:
            problems.setdefault(game - first, []).append(self._violation(game, turn, code, detail, rec))
        if r["n_violations"] > len(r["violations"]):
            problems.setdefault(n - 1, []).append(
                f"games {first}..{first + n - 1}: {r['n_violations'] - len(r['violations'])} more violations not listed"
            )
        unwritten: dict[int, str] = {}
        if cfg.gcg_dir:
            for g in range(n):
                lo = int(r["log_end"][g - 1]) if g else 0
                hi = int(r["log_end"][g])
                found, lost = self._replay(first + g, r["log"][lo:hi], r["log_reclaim"][lo:hi],
                                           tuple(r["scores"][g].tolist()))
                if found:
                    problems.setdefault(g, []).extend(found)
                if lost is not None:
                    unwritten[g] = lost
        index = np.arange(first, first + n, dtype=np.int64)
        table = GameTable(index, index % k, r["scores"], r["bingos"], r["turns"], r["calls"], r["reached"], problems,
                          players=k, unwritten=unwritten, wide=self.wide)
        return table, np.asarray(r["ends"], np.int8)

    def _violation(self, game: int, turn: int, code: int, detail: int, rec: bytes) -> str:
        reason = _gameloop.CHECK_REASONS.get(code, str(code))
        if reason == "no_end":
            return f"game {game}: no end after {self.turn_limit} turns"
        where = f"game {game}, turn {turn}"
        move = record_move(rec, self.ruleset.alphabet)
        if reason == "tiles_not_conserved":
            t = detail - 1
            name = "blanks" if t == 0 else repr(self.ruleset.alphabet.letter(t))
            return f"{where}: tiles not conserved after {move.notation()} ({name} in bag, racks and board differ from the set)"
        if reason == "score":
            return f"{where}: {move.notation()} scores {detail} by the check, {move.score} by the generator"
        if reason == "not_applied":
            return f"{where}: {move.notation()} cannot be applied (the board or the rack refuses it)"
        return f"{where}: {move.notation()} is illegal ({reason})"

    def _replay(self, index: int, log: np.ndarray, reclaim: np.ndarray,
                scores: tuple[int, ...]) -> tuple[list[str], str | None]:
        """Replay a kernel game's moves (and the stars each took back: ``reclaim``, squares by
        turn, -1 after) through a Game (the same bag stream), write its GCG, and say if it does not
        reach the kernel's scores: (the violations, why the record was not written or None)."""
        game = self._new_game(index)
        try:
            replay_log(game, log, reclaim)
        except (ValueError, IndexError) as e:
            why = f"its moves cannot be replayed through a Game: {e}"
            return [f"game {index}: {why}"], why  # no record to write
        by_player = [0] * len(scores)
        for seat, p in enumerate(self._seats(index)):
            by_player[p] = game.scores[seat]
        lost = self._write_gcg(index, game)
        if tuple(by_player) != scores or not game.over:
            return [f"game {index}: replayed through a Game it ends {tuple(by_player)}, the kernel's {scores}"], lost
        return [f"game {index}: {v}" for v in game.check_invariants()], lost

    def play(self, index: int) -> tuple[GameResult, str | None, int]:
        """Game ``index`` through :class:`Game`, the players in Python: its result, why its record
        (``gcg_dir``) could not be written (or None), and how it ended (END_* code)."""
        cfg = self.config
        n = len(self.players)
        seats = self._seats(index)
        for i, p in enumerate(self.players):
            hook = getattr(p, "new_game", None)
            if hook is not None:
                hook(f"racksmith-player:{cfg.seed}:{index}:{i}")
        game = self._new_game(index)
        view = _CountingView(game)
        pos = game.live_position  # the game's own position, played on turn after turn
        by_seat = [self.players[i] for i in seats]
        total = self.ruleset.total_tiles
        violations: list[str] = []
        validate = cfg.validate
        lexicon = self.lexicon
        turns = 0
        while not pos.is_over:
            if turns >= self.turn_limit:
                violations.append(f"game {index}: no end after {self.turn_limit} turns")
                break
            move = by_seat[game.to_move].choose(view)
            turns += 1
            if validate and not move.is_pass:
                problem = _check(pos, move, lexicon)
                if problem:
                    violations.append(f"game {index}, turn {turns}: {problem}")
            try:
                game.play_trusted(move)
            except (ValueError, IndexError) as e:
                violations.append(f"game {index}, turn {turns}: {move.notation()} cannot be applied: {e}")
                break
            held = len(game.bag) + sum(map(len, pos.racks)) + int(np.count_nonzero(pos.board))
            if held != total:
                violations.append(f"game {index}, turn {turns}: {held} tiles in bag, racks and board, not {total}")
        violations.extend(f"game {index}: {v}" for v in game.check_invariants())
        lost = self._write_gcg(index, game) if cfg.gcg_dir else None
        scores = [0] * n
        bingos = [0] * n
        for seat, i in enumerate(seats):
            scores[i] = game.scores[seat]
        for event in game.history:
            if event.bingo:
                bingos[seats[event.player]] += 1
        result = GameResult(
            index, seats[0], tuple(scores), tuple(bingos), turns, view.calls, view.generated, tuple(violations)
        )
        return result, lost, game_end(game)


def _check(position, move, lexicon) -> str:
    """What is wrong with a generated move by the independent validator, or ''."""
    try:
        checked = check_move_lean(position, move, lexicon)
    except IllegalMoveError as e:
        return f"{move.notation()} is illegal ({e.reason}): {e.message}"
    if move.score is not None and checked.score != move.score:
        return f"{move.notation()} scores {checked.score} by the validator, {move.score} by the generator"
    return ""


# --- running a series -------------------------------------------------------------------------
#: the series of a worker process, set up by :func:`_init_worker` when the pool starts it
_WORKER: _Series | None = None


def _init_worker(config: SelfPlayConfig, lexicon: Any, leaves: Any) -> None:
    global _WORKER
    _WORKER = _Series(config, lexicon, leaves)


def _worker_games(indices: list[int]) -> tuple[GameTable, np.ndarray]:
    if _WORKER is None:  # pragma: no cover - the pool always runs the initializer first
        raise RacksmithError("a self-play worker was started without its configuration")
    return _WORKER.play_many(indices)


def run_selfplay(
    games: int,
    config: SelfPlayConfig = SelfPlayConfig(),
    *,
    jobs: int = 1,
    lexicon: "LexiconLike | None" = None,
    leaves: "LeavesLike | None" = None,
    progress: Callable[[int], None] | None = None,
    start_method: str | None = None,
) -> "SelfPlayReport":
    """Play ``games`` games. ``lexicon``/``leaves`` may be given loaded (else loaded from the
    config); ``progress(n)`` is called with the number of games finished so far. ``jobs`` worker
    processes share the games out; ``start_method`` (``"fork"``, ``"spawn"``, ``"forkserver"``, or
    None for the platform's default) is how :mod:`multiprocessing` starts them. The results are
    the same for any ``jobs``, start method and engine (``config.engine``).

    The games go out in batches of up to :data:`BATCH` consecutive games (one call of the kernel's
    game loop each, when the kernel plays the series).

    With ``config.gcg_dir`` the folder is made and checked writable before any game (else
    :class:`~racksmith.errors.OutputFileError`), and held until the series ends: another run writing
    records there meanwhile is refused (:class:`~racksmith.errors.RecordsFolderBusyError`); a game's record that cannot be written after that
    (a full disk, the folder removed or made read-only mid-run) raises nothing: the series plays
    every game, still tries every later game's record (so a passing failure loses only its own),
    and the report counts the games whose records are missing
    (:attr:`SelfPlayReport.records_unwritten`, :attr:`~SelfPlayReport.unwritten_games`,
    :attr:`~SelfPlayReport.records_error`: the first one's reason) — the same for any ``jobs``."""
    check_games(games)
    check_jobs(jobs)
    if not isinstance(config, SelfPlayConfig):
        raise RacksmithError(f"config must be a SelfPlayConfig, got {_args.show(config)}")
    check_seed(config.seed, "config.seed")
    if config.paired and games % 2:
        raise RacksmithError(f"games must be even with paired=True (games 2i and 2i+1 share a bag), got {games}")
    _args.callback(progress, "progress")
    players = config.players
    if not isinstance(players, (tuple, list)) or len(players) < 2 or not all(isinstance(p, str) for p in players):
        raise RacksmithError(f"players must be two or more player specs (texts) such as ('equity', 'score'), "
                             f"got {_args.show(players)}")
    methods = multiprocessing.get_all_start_methods()
    if start_method is not None and (not isinstance(start_method, str) or start_method not in methods):
        raise RacksmithError(f"start_method {start_method!r} is not available here: use one of {', '.join(methods)} or None")
    stack = ExitStack()
    if config.gcg_dir:
        # made, checked writable and held until the series ends: another run writing there is refused
        stack.enter_context(records_folder(config.gcg_dir))
    with stack:
        t0 = time.perf_counter()
        started_ns = time.time_ns()  # (a record of the run is newer)
        series = _Series(config, lexicon, leaves)
        loaded = time.perf_counter()
        k = len(config.players)
        table = GameTable.empty(games, k, wide=series.wide)
        ends = np.zeros(games, np.int8)
        played = np.zeros(games, np.bool_)  # the games whose results came back
        pending: dict[int, Sequence[int]] = {}  # the batches handed out and not back, by their first game
        done = 0

        def take(part: tuple[GameTable, np.ndarray]) -> None:
            nonlocal done
            batch, batch_ends = part
            table.put(batch)
            ends[batch.index] = batch_ends
            played[batch.index] = True
            if len(batch):
                pending.pop(int(batch.index[0]), None)
            done += len(batch)
            if progress:
                progress(done)

        try:
            if jobs == 1 or games == 1 or not can_start_processes():  # (a Pool's worker may start no processes)
                for s in range(0, games, BATCH):
                    indices = range(s, min(games, s + BATCH))
                    pending[s] = indices
                    take(series.play_many(indices))
            else:
                chunk = max(1, min(BATCH, games // (jobs * 8)))
                batches = split(0, games, chunk)
                def handed(b: list[int]) -> list[int]:
                    pending[b[0]] = b
                    return b

                with WorkerPool(min(jobs, len(batches)), initializer=_init_worker,
                                initargs=(config, series.lexicon, series.leaves), start_method=start_method) as pool:
                    # batches finish in any order: each fills the rows of its games (stopped: the
                    # workers are killed, and the records they were writing removed below)
                    for _, part in pool.completed(_worker_games, batches, key=handed):
                        take(part)
        except KeyboardInterrupt as e:
            if isinstance(e, GamesInterrupted):
                raise
            records = None
            if config.gcg_dir:
                _remove_partial_records(config.gcg_dir, started_ns)
                records = _records_written(config.gcg_dir, played, table.unwritten, pending.values(), started_ns)
            raise GamesInterrupted(games, done, runs(played), config.gcg_dir or None, records) from None
        seconds = time.perf_counter() - loaded
        return SelfPlayReport(config, table, seconds, loaded - t0, jobs, not series.equity_without_leaves, series.engine,
                              ends=ends, ruleset_name=series.ruleset.name, lexicon_name=_lexicon_name(series.lexicon, config),
                              leaves_label=series.leaves_label)


def _version() -> str:
    from .. import __version__

    return __version__


def _records_written(folder: str, played: np.ndarray, unwritten: "np.ndarray | None",
                     pending: Iterable[Sequence[int]], since_ns: int) -> list[tuple[int, int]]:
    """The games of a stopped run whose records it wrote, as runs: those whose results came back
    (less the records that could not be written), and those of the batches still under way whose
    record was written since the run started (a worker may have written some of its batch)."""
    written = played.copy()
    if unwritten is not None:
        written &= ~unwritten
    for batch in pending:
        for i in batch:
            if not written[i]:
                try:
                    written[i] = os.stat(record_path(folder, i)).st_mtime_ns >= since_ns
                except OSError:
                    pass
    return runs(written)


#: the temporary file a record is written to before it is renamed (lexicon.files.write_atomically)


def _remove_partial_records(folder: str, since_ns: int) -> None:
    """Remove the records of a stopped run left half written: a worker stopped (SIGTERM to the
    process group, or Ctrl-C in the instant after it created the file) between creating a record's
    temporary file and renaming it leaves the file behind. Only files of that name made since the
    run started are removed."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if _PARTIAL_RECORD.fullmatch(name):
            path = os.path.join(folder, name)
            try:
                if os.stat(path).st_mtime_ns >= since_ns:
                    os.unlink(path)
            except OSError:
                pass


def _lexicon_name(lexicon: Any, config: SelfPlayConfig) -> str | None:
    """How the JSON names the lexicon a series played with: its name (``enable``), else what
    ``config.lexicon`` said, else the ruleset's."""
    name = getattr(lexicon, "name", None)
    if isinstance(name, str) and name:
        return name
    if config.lexicon is not None:
        return str(config.lexicon)
    return getattr(get_ruleset(config.ruleset), "lexicon", None)


def write_csv(path: "str | os.PathLike[str]", header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """Write a CSV file (UTF-8, a header row, then ``rows``) through a temporary file beside
    ``path`` renamed over it at the end (:func:`racksmith.lexicon.files.replacing`): a run stopped
    half-way leaves no half-written file. :class:`~racksmith.errors.OutputFileError` when it cannot
    be written."""
    import io

    from ..lexicon.files import replacing

    with replacing(Path(path)) as f:
        text = io.TextIOWrapper(f, encoding="utf-8", newline="")
        w = csv.writer(text)
        w.writerow(header)
        w.writerows(rows)
        text.flush()
        text.detach()  # (the binary file is closed by replacing)


def winner_name(scores: Sequence[int]) -> str:
    """``p1``, ``p2``... the player with the highest score, or ``tie`` when two or more share it."""
    best = max(scores)
    top = [i for i, v in enumerate(scores) if v == best]
    return f"p{top[0] + 1}" if len(top) == 1 else "tie"


#: the columns of the games' CSV (racksmith selfplay --games-csv), before and after each player's
#: three (pN_name, pN_score, pN_bingos)
GAMES_CSV_HEAD = ("game", "seed", "bag", "first")
GAMES_CSV_TAIL = ("turns", "end", "spread", "winner")


def games_csv_header(players: int, head: Sequence[str] = GAMES_CSV_HEAD) -> list[str]:
    cols = list(head)
    for i in range(players):
        cols += [f"p{i + 1}_name", f"p{i + 1}_score", f"p{i + 1}_bingos"]
    return cols + list(GAMES_CSV_TAIL)


def wilson_interval(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (ties count as half a success)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(init=False)
class SelfPlayReport:
    """A series' games and what it measured. The games are kept as columns (:attr:`table`, a
    :class:`~racksmith.play.tables.GameTable`: tens of bytes a game); :attr:`results` makes them
    :class:`GameResult` objects on demand.

    With ``config.gcg_dir``, the games whose GCG records could not be written are still counted
    in every figure (their results are those of a run without records); :attr:`records_unwritten`
    says how many records are missing, :attr:`unwritten_games` which, :attr:`records_error` why
    the first of them was not written (None when every record was)."""

    config: SelfPlayConfig
    table: GameTable  #: the games, game ``i`` in row ``i`` for a series run by :func:`run_selfplay`
    seconds: float
    load_seconds: float
    jobs: int
    with_leaves: bool  #: every plain equity player (no leaves of its own) has leave values
    engine: str = "python"  #: what played the games: "kernel" or "python"
    #: how each game ended, by row (END_* codes, int8; 0: not known), or None when not known
    ends: "np.ndarray | None" = dataclasses.field(default=None, compare=False)
    ruleset_name: str | None = None  #: the ruleset's own name (``erudit`` for ``эрудит``)
    lexicon_name: str | None = None  #: the lexicon's name (``enable``)
    leaves_label: str = ""  #: the leaves of the equity players, as the records' descriptions name them

    def __init__(self, config: SelfPlayConfig, results: "GameTable | Iterable[GameResult]", seconds: float,
                 load_seconds: float, jobs: int, with_leaves: bool, engine: str = "python", *,
                 ends: "np.ndarray | None" = None, ruleset_name: str | None = None, lexicon_name: str | None = None,
                 leaves_label: str = ""):
        self.config = config
        self.table = results if isinstance(results, GameTable) else GameTable.from_results(results, len(config.players))
        self.seconds = seconds
        self.load_seconds = load_seconds
        self.jobs = jobs
        self.with_leaves = with_leaves
        self.engine = engine
        if ends is not None:
            ends = np.asarray(ends, np.int8)
            if ends.shape != (len(self.table),):
                raise RacksmithError(f"ends must hold a code a game ({len(self.table)}), got shape {ends.shape}")
        self.ends = ends
        self.ruleset_name = ruleset_name
        self.lexicon_name = lexicon_name
        self.leaves_label = leaves_label

    @property
    def results(self) -> list[GameResult]:
        """Every game as a :class:`GameResult`, by row (by game index for a run): a new list on
        each access, a Python object a game — iterate or index :attr:`table` to go without it."""
        return self.table.results()

    @property
    def violations(self) -> list[str]:
        return self.table.all_violations()

    @property
    def records_unwritten(self) -> int:
        """How many games' GCG records (``config.gcg_dir``) could not be written: 0 when all were,
        or none were asked for."""
        return self.table.records_unwritten

    @property
    def unwritten_games(self) -> list[int]:
        """The indices of the games whose records could not be written, in order."""
        t = self.table
        return t.index[t.unwritten_rows()].tolist()

    @property
    def records_error(self) -> str | None:
        """Why the first record that could not be written was not, naming its game (``"game 123:
        cannot write '/x/game000123.gcg': No space left on device"``), or None."""
        first = self.table.unwritten_error
        if first is None:
            return None
        return f"game {int(self.table.index[first[0]])}: {first[1]}"

    def _ruleset(self) -> str:
        if self.ruleset_name:
            return self.ruleset_name
        try:
            return get_ruleset(self.config.ruleset).name
        except RacksmithError:  # (a report made by hand, of a ruleset file no longer there)
            return str(self.config.ruleset)

    def games_csv_rows(self) -> Iterable[list[Any]]:
        """The rows of :meth:`write_games_csv`, a list a game (made a chunk at a time)."""
        t = self.table
        cfg = self.config
        k = len(cfg.players)
        for part in chunks(len(t)):
            index = t.index[part].tolist()
            first = t.first[part].tolist()
            scores = t.scores[part].tolist()
            bingos = t.bingos[part].tolist()
            turns = t.turns[part].tolist()
            ends = self.ends[part].tolist() if self.ends is not None else [0] * len(index)
            for i, f, sc, bi, tu, en in zip(index, first, scores, bingos, turns, ends):
                row: list[Any] = [i, cfg.seed, i // 2 if cfg.paired else i, f"p{f + 1}"]
                for p in range(k):
                    row += [cfg.players[p], sc[p], bi[p]]
                row += [tu, END_NAMES[en], sc[0] - sc[1], winner_name(sc)]
                yield row

    def write_games_csv(self, path: "str | os.PathLike[str]") -> None:
        """Write a row a game to the CSV file ``path`` (UTF-8, a header row; see the README's
        ``--games-csv`` for the columns): ``game`` (its index), ``seed`` (the series'), ``bag`` (the
        stream its bag was drawn from: (seed, bag); ``game // 2`` when paired), ``first`` (the
        player who moved first), then for each player ``pN_name`` (his spec), ``pN_score``,
        ``pN_bingos``, then ``turns``, ``end`` (``out``, ``scoreless`` or ``stopped``),
        ``spread`` (p1's score less p2's) and ``winner`` (``p1``, ``p2``... or ``tie``)."""
        write_csv(path, games_csv_header(len(self.config.players)), self.games_csv_rows())

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith selfplay --json``; every field but the timings is the
        same for any number of jobs. With ``config.gcg_dir`` it ends with ``records_unwritten`` (how
        many records could not be written), ``records_unwritten_games`` (the first 20 of those
        games) and ``records_error`` (:attr:`records_error`). Computed from the columns a chunk at
        a time; means and standard deviations from exact integer sums (:class:`~racksmith.play.tables.IntSums`), the
        same floats as :func:`statistics.fmean` and :func:`statistics.pstdev` of the games' numbers."""
        t = self.table
        n = len(t)
        k = len(self.config.players)
        turns = IntSums()
        calls = IntSums()
        generated = IntSums()
        scores = [IntSums() for _ in range(k)]
        bingos = [IntSums() for _ in range(k)]
        wins = [0] * k
        ties = [0] * k
        firsts = [0] * k
        spreads = IntSums()
        totals = IntSums()
        for part in chunks(n):
            turns.add(t.turns[part])
            calls.add(t.generator_calls[part])
            generated.add(t.moves_generated[part])
            sc = t.scores[part, :k].astype(np.int64)
            first = t.first[part]
            for i in range(k):
                scores[i].add(sc[:, i])
                bingos[i].add(t.bingos[part, i])
                best_other = np.delete(sc, i, axis=1).max(axis=1)
                wins[i] += int(np.count_nonzero(sc[:, i] > best_other))
                ties[i] += int(np.count_nonzero(sc[:, i] == best_other))
                firsts[i] += int(np.count_nonzero(first == i))
            if k >= 2:
                spreads.add(sc[:, 0] - sc[:, 1])
            totals.add(t.scores[part].sum(axis=1, dtype=np.int64))
        if k < 2:
            spreads.add(np.zeros(1, np.int64))
        secs = max(self.seconds, 1e-9)
        players = []
        for i, kind in enumerate(self.config.players):
            lo, hi = wilson_interval(wins[i] + ties[i] / 2, n)
            players.append(
                {
                    "player": f"p{i + 1}",
                    "kind": kind,
                    "mean_score": round(scores[i].fmean(), 3),
                    "score_stdev": round(scores[i].pstdev(), 3),
                    "wins": wins[i],
                    "losses": n - wins[i] - ties[i],
                    "ties": ties[i],
                    "win_rate": round((wins[i] + ties[i] / 2) / n, 4),
                    "win_rate_ci95": [round(lo, 4), round(hi, 4)],
                    "bingos_per_game": round(bingos[i].total / n, 4),
                    "first_moves": firsts[i],
                }
            )
        violations = self.violations
        endings: dict[str, Any] = {}
        if self.ends is not None:
            counts = np.bincount(self.ends, minlength=len(END_NAMES)).tolist()
            endings = {"endings": {name: counts[code] for code, name in enumerate(END_NAMES) if name}}
        records: dict[str, Any] = {}
        if self.config.gcg_dir:  # records asked for: which could not be written
            lost = t.unwritten_rows()
            records = {
                "records_unwritten": len(lost),
                "records_unwritten_games": t.index[lost[:20]].tolist(),
                "records_error": self.records_error,
            }
        return {
            "games": n,
            "seconds": round(self.seconds, 4),
            "games_per_second": round(n / secs, 2),
            "turns": turns.total,
            "turns_per_second": round(turns.total / secs, 1),
            "turns_per_game": round(turns.total / n, 3),
            "generator_calls": calls.total,
            "moves_generated": generated.total,
            "moves_generated_per_second": round(generated.total / secs, 1),
            "invariant_violations": len(violations),
            "violations": violations[:20],
            "ruleset": self._ruleset(),
            "lexicon": self.lexicon_name if self.lexicon_name is not None else self.config.lexicon,
            "leaves": self.config.leaves,
            "equity_without_leaves": not self.with_leaves,
            "seed": self.config.seed,
            "jobs": self.jobs,
            "validated": self.config.validate,
            "paired": self.config.paired,
            "engine": self.engine,
            "players": players,
            "mean_spread": round(spreads.fmean(), 3),
            "spread_stdev": round(spreads.pstdev(), 3),
            "bingos_per_game": round(sum(b.total for b in bingos) / n, 4),
            "mean_total_score": round(totals.fmean(), 3),
            "load_seconds": round(self.load_seconds, 3),
            **endings,
            "racksmith": _version(),
            **records,
        }


def parse_players(spec: str | Sequence[str]) -> tuple[str, ...]:
    """``"equity,score"`` -> ``("equity", "score")``: two or more players, each a known kind, an
    equity player optionally with its own leaves (``equity:leaves=PATH``, ``equity:leaves=none``)."""
    parts = [p.strip() for p in (spec.split(",") if isinstance(spec, str) else spec)]
    out = []
    for p in parts:
        if not p:
            out = []
            break
        try:
            kind, path = parse_player(p)
        except RacksmithError as e:
            raise RacksmithError(f"players {','.join(parts)!r}: {e}") from None
        out.append(kind if path is None else f"{kind}:leaves={path}")
    if len(out) < 2:
        raise RacksmithError(
            f"players {','.join(parts) if parts else spec!r}: give two or more of {', '.join(PLAYER_KINDS)}, "
            "separated by commas (e.g. equity,score; equity:leaves=FILE gives an equity player its own leaves, "
            "equity:leaves=none none)"
        )
    return tuple(out)
