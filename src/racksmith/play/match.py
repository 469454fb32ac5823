"""Paired matches between two players: the strength benchmark (as MAGPIE's autoplay and wolges'
compare run it).

Pair ``p`` is two games from the same shuffled bag (the series stream of ``(seed, p)``,
:func:`racksmith.core.bag.game_rng`): in the first, player 1 moves first; in the second, player 2
does. Both players thus see the same opening racks and draw
from the same tile order, which cancels much of the luck of the draw. A draw counts half a win;
the 95% interval of the win rate is Wilson's score interval over the games (it treats the games as
independent; pairing makes them positively correlated in luck, not in who wins, so the interval is
if anything conservative).

When both players are built-in best-equity or best-score players and the kernel plays the ruleset
(every shipped one, Эрудит's star reclamation included), a batch of pairs runs in the kernel's game loop
(:func:`racksmith.play._gameloop.play_games` with ``paired=True``, every move checked); otherwise
through :class:`~racksmith.play.game.Game`. Both engines play the same games (tests hold them
equal), so the result does not depend on which one ran.

A match keeps its pairs as numpy columns (:class:`~racksmith.play.tables.PairTable`, 24 bytes a
pair; 40 for a ruleset whose totals could pass 32 bits), each batch written into the rows of its
pairs as it finishes, whatever the backend.
"""
from __future__ import annotations

import dataclasses
import itertools
import os
import random
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _args
from ..core.bag import game_rng
from ..core.turns import turn_limit
from ..core.move import Move
from ..errors import OutputFileError, PlayerError, PlayerSpecError, RacksmithError
from ..lexicon import Lexicon
from ..lexicon.files import write_atomically
from ..lexicon.load import ruleset_lexicon
from ..rules.ruleset import Ruleset, get_ruleset
from .backends import (
    GamesInterrupted, Runner, check_backend, check_games, check_seed, portable_path, ruleset_ref, runs, split,
)
from .game import Game
from .players import GameView
from .specs import PlayerSpec, kind_module, parse_player_spec, player_kinds
from .tables import IntSums, PairTable, chunks

BATCH = 25  #: pairs a batch


ENGINES = ("auto", "kernel", "python")


def pair_rng(seed: int, pair: int) -> random.Random:
    """The bag of both games of pair ``pair``: the kernel's series stream of ``(seed, pair)``."""
    return game_rng(int(seed), int(pair))


@dataclass(frozen=True, slots=True)
class GameDetail:
    """What a match keeps of a game besides its scores: the bingos of (player 1, player 2), the
    turns, how it ended (an END_* code of :mod:`racksmith.play.selfplay`), and, when the match
    writes records, the game's GCG text (``gcg``) or why it has none (``gcg_error``)."""

    bingos: tuple[int, int]
    turns: int
    end: int
    gcg: str | None = None
    gcg_error: str | None = None


@dataclass(frozen=True, slots=True)
class PairResult:
    """Both games of a pair, scores as (player 1, player 2): ``first`` has player 1 moving first.
    ``games``: the two games' :class:`GameDetail` (None when not kept: a pair made by hand, or
    read back from a :class:`~racksmith.play.tables.PairTable`)."""

    pair: int
    first: tuple[int, int]
    second: tuple[int, int]
    games: "tuple[GameDetail, GameDetail] | None" = None


#: the nicks of a pair's game by seat: player 1 first, then player 2 first
_SEATS = ((0, 1), (1, 0))


def _gcg_text(game: Game, description: str, p: int, starter: int) -> tuple[str | None, str | None]:
    """The GCG text of game ``2p + starter`` of a match, or (None, why not)."""
    from .selfplay import one_line

    what = one_line(f"Created with racksmith match (pair {p}, game {2 * p + starter}, p{starter + 1} first; {description})")
    try:
        return game.gcg([("description", what)]), None
    except RacksmithError as e:  # a game GCG cannot describe (a score past 999,999,999 on a user's ruleset)
        return None, str(e)


def own_player(player: Any) -> bool:
    """Whether ``player`` is one of racksmith's own (best equity, best score, sim, endgame: its
    moves come from the move generator, scored by it), whose moves a match plays unchecked, for
    speed (:meth:`Game.play_trusted`). Any other player's moves are checked in full."""
    from ..search.player import EndgamePlayer
    from ..sim.player import SimPlayer
    from .players import BestEquityPlayer, BestScorePlayer

    return type(player) in (BestEquityPlayer, BestScorePlayer, SimPlayer, EndgamePlayer)


def _checked(game: Game, move: Move, fail: Callable[[str], PlayerError]) -> Move:
    """``move`` as the move generator writes it, checked in ``game`` as :meth:`Game.play` checks a
    play (legal on the board and the rack, its words in the lexicon), and its claimed score (when
    it carries one) the score racksmith computes; else ``fail(why)``."""
    from ..core.validation import check_move_lean

    try:
        checked = check_move_lean(game.live_position, move)
    except RacksmithError as e:
        raise fail(f"it played {_notation(move)}, which is not legal here: {e}") from e
    if move.score is not None and move.score != checked.score:
        raise fail(f"it played {_notation(move)} claiming {move.score} points; racksmith scores it {checked.score}")
    return checked


def _notation(move: Move) -> str:
    try:
        return move.notation()
    except Exception:  # (a move too broken to write)
        return repr(move)[:80]


def play_pairs(ruleset: Ruleset, lexicon: Any, players: tuple[Any, Any], seed: int, pairs: list[int], *,
               names: tuple[str, str] = ("p1", "p2"), description: str | None = None,
               specs: tuple[str, str] | None = None) -> list[PairResult]:
    """Play the pairs ``pairs`` between two loaded players (the inner step of a match).
    ``names``: the players' full names in the records; ``description``: with it, each game's GCG
    text is kept (its ``#description`` line: ``Created with racksmith match (pair P, game G, pN
    first; DESCRIPTION)``). The moves of a player other than racksmith's own (:func:`own_player`)
    are checked in full. A player that fails (an error, something not a Move, a move not legal
    here, a claimed score not the play's) raises :class:`~racksmith.errors.PlayerError` naming it
    (``specs``: how; default ``names``), the game and the turn, its own error the cause."""
    from .selfplay import game_end

    trusted = tuple(own_player(pl) for pl in players)
    labels = specs or names
    limit = turn_limit(ruleset)  # more turns than a game can take: one still on after them is a defect
    out = []
    for p in pairs:
        scores = []
        details = []
        for starter in (0, 1):
            order = _SEATS[starter]  # seat -> player
            turns = 0

            def fail(who: int, why: str) -> PlayerError:
                first = "it moved first" if order[0] == who else "the other moved first"
                at = f", turn {turns}" if turns else " (new_game)"
                return PlayerError(f"player {who + 1} ({labels[who]}) failed in pair {p}, game {2 * p + starter} "
                                   f"({first}){at}: {why}")

            for i, pl in enumerate(players):
                hook = getattr(pl, "new_game", None)
                if hook is not None:
                    try:
                        hook(f"racksmith-match-player:{seed}:{p}:{starter}:{i}")
                    except Exception as e:
                        raise fail(i, f"{type(e).__name__}: {e}") from e
            game = Game(ruleset, lexicon, players=[f"p{i + 1}" for i in order], seed=pair_rng(seed, p),
                        names=[names[i] for i in order])
            view = GameView(game)
            pos = game.live_position
            while not pos.is_over:
                turns += 1
                if turns > limit:
                    raise RacksmithError(f"match pair {p}: a game has no end after {limit} turns")
                who = order[game.to_move]
                try:
                    move = players[who].choose(view)
                except Exception as e:
                    raise fail(who, f"{type(e).__name__}: {e}") from e
                if not isinstance(move, Move):
                    raise fail(who, f"its choose returned {type(move).__name__}, not a Move")
                game.play_trusted(move if trusted[who] else _checked(game, move, lambda why: fail(who, why)))
            by_seat = game.scores
            s = [0, 0]
            for seat, who in enumerate(order):
                s[who] = by_seat[seat]
            scores.append((s[0], s[1]))
            bingos = [0, 0]
            for event in game.history:
                if event.bingo:
                    bingos[order[event.player]] += 1
            text, why = _gcg_text(game, description, p, starter) if description is not None else (None, None)
            details.append(GameDetail((bingos[0], bingos[1]), turns, game_end(game), text, why))
        out.append(PairResult(p, scores[0], scores[1], (details[0], details[1])))
    return out


def kernel_lineup(ruleset: Ruleset, lexicon: Any, players: tuple[Any, Any]) -> list | None:
    """The two players as the kernel's game loop takes them, or None when it cannot play them (a
    player other than the built-in equity and score players, a ruleset it does not play, a word-list
    lexicon)."""
    from ..lexicon import Lexicon
    from ..movegen._movegen import LeaveTable
    from .players import BestEquityPlayer, BestScorePlayer

    from .selfplay import kernel_plays_ruleset

    if not kernel_plays_ruleset(ruleset) or not isinstance(lexicon, Lexicon):
        return None
    lineup = []
    for p in players:
        if type(p) is BestEquityPlayer:
            lv = p.leaves_for(ruleset)
            lineup.append(("equity", LeaveTable(lv) if lv is not None else None))
        elif type(p) is BestScorePlayer:
            lineup.append(("score", None))
        else:
            return None
    return lineup


def kernel_pairs(ruleset: Ruleset, lexicon: Any, lineup: list, seed: int, pairs: list[int], *,
                 names: tuple[str, str] = ("p1", "p2"), description: str | None = None) -> list[PairResult]:
    """The pairs ``pairs`` (consecutive) in the kernel's game loop: games ``2p`` (player 1 first)
    and ``2p + 1`` (player 2 first) on the bag of ``(seed, p)``. ``names``, ``description``: as
    for :func:`play_pairs` (each game's moves replayed through a Game for its record)."""
    from ..movegen.generate import _rules
    from . import _gameloop

    if not pairs:
        return []
    if list(pairs) != list(range(pairs[0], pairs[0] + len(pairs))):
        raise RacksmithError("a kernel batch of pairs must be consecutive")
    records = description is not None
    out = _gameloop.play_games(_rules(ruleset, lexicon), lineup, int(seed), 2 * pairs[0], 2 * len(pairs),
                               paired=True, check=True, log=records)
    if out["n_violations"]:
        game, turn, code = out["violations"][0][:3]
        if code == _gameloop.CHECK_CODES["no_end"]:
            raise RacksmithError(f"match pair {game // 2}: a game has no end after {turn_limit(ruleset)} turns")
        raise RacksmithError(f"match pair {game // 2}, turn {turn}: a move failed the independent check "
                             f"({_gameloop.CHECK_REASONS.get(code, code)})")
    sc = out["scores"].tolist()
    bingos = out["bingos"].tolist()
    turns = out["turns"].tolist()
    ends = out["ends"].tolist()
    results = []
    for k, p in enumerate(pairs):
        details = []
        for starter in (0, 1):
            g = 2 * k + starter
            text = why = None
            if records:
                text, why = _replayed_gcg(ruleset, lexicon, seed, p, starter, names, description, out, g, sc[g])
            details.append(GameDetail((bingos[g][0], bingos[g][1]), turns[g], ends[g], text, why))
        results.append(PairResult(p, tuple(sc[2 * k]), tuple(sc[2 * k + 1]), (details[0], details[1])))
    return results


def _replayed_gcg(ruleset: Ruleset, lexicon: Any, seed: int, p: int, starter: int, names: tuple[str, str],
                  description: str, out: dict, g: int, scores: list[int]) -> tuple[str | None, str | None]:
    """The GCG text of a kernel game of a match (game ``g`` of the call's ``out``): its moves
    replayed through a Game on the same bag, which must reach the kernel's scores."""
    from .selfplay import replay_log

    order = _SEATS[starter]
    game = Game(ruleset, lexicon, players=[f"p{i + 1}" for i in order], seed=pair_rng(seed, p),
                names=[names[i] for i in order])
    lo = int(out["log_end"][g - 1]) if g else 0
    hi = int(out["log_end"][g])
    try:
        replay_log(game, out["log"][lo:hi], out["log_reclaim"][lo:hi])
    except (ValueError, IndexError) as e:
        raise RacksmithError(f"match pair {p}: the kernel's game {2 * p + starter} does not replay through a Game: {e}")
    by_player = [0, 0]
    for seat, who in enumerate(order):
        by_player[who] = game.scores[seat]
    if by_player != list(scores) or not game.over:
        raise RacksmithError(f"match pair {p}: the kernel's game {2 * p + starter} ends {tuple(scores)}, replayed "
                             f"through a Game {tuple(by_player)}")
    return _gcg_text(game, description, p, starter)


#: the numbers of match() calls with players of kinds of one's own (MatchJob.call)
_CALLS = itertools.count(1)


@dataclass(frozen=True)
class MatchJob:
    ruleset: "str | Ruleset"  #: a shipped ruleset's name, or the ruleset itself (:func:`ruleset_ref`)
    lexicon: str | None
    p1: PlayerSpec
    p2: PlayerSpec
    seed: int
    engine: str = "auto"
    #: with it, every game's GCG text is made (see :func:`play_pairs`'s ``description``)
    description: str | None = None
    #: 0, or a number of its own for each :func:`match` call with a player of a kind registered
    #: outside racksmith: a process keeps the set-up players of its last jobs (``backends._state``),
    #: and such a player may keep state, or its kind be registered again; each call then starts
    #: with players made afresh, as the first call did
    call: int = 0

    def setup(self) -> tuple[Ruleset, Any, tuple[Any, Any], list | None]:
        if self.engine not in ENGINES:
            raise RacksmithError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        rs = get_ruleset(self.ruleset)
        spec = self.lexicon or rs.lexicon
        if spec is None:
            raise RacksmithError(f"ruleset {rs.name} names no lexicon: give one")
        lex = ruleset_lexicon(rs, self.lexicon or None)  # the ruleset's: an embedded name, or its file's word list
        players = (_made(self.p1, 1, rs, lex), _made(self.p2, 2, rs, lex))
        lineup = kernel_lineup(rs, lex, players) if self.engine != "python" else None
        if self.engine == "kernel" and lineup is None:
            raise RacksmithError("engine 'kernel' plays built-in equity and score players with a KWG lexicon: "
                                 "use engine 'auto' or 'python'")
        return rs, lex, players, lineup

    @property
    def names(self) -> tuple[str, str]:
        """The players' full names in the records: ``racksmith_`` and the spec (and the player's
        number when both have one spec: MAGPIE refuses a record whose two players share a name)."""
        from .selfplay import one_line

        a, b = str(self.p1), str(self.p2)
        if a == b:
            return one_line(f"racksmith_{a}_1"), one_line(f"racksmith_{b}_2")
        return one_line(f"racksmith_{a}"), one_line(f"racksmith_{b}")

    def run(self, state: tuple, batch: list[int]) -> list[PairResult]:
        rs, lex, players, lineup = state
        if lineup is not None:
            return kernel_pairs(rs, lex, lineup, self.seed, batch, names=self.names, description=self.description)
        return play_pairs(rs, lex, players, self.seed, batch, names=self.names, description=self.description,
                          specs=(str(self.p1), str(self.p2)))


def _made(spec: PlayerSpec, number: int, rs: Ruleset, lex: Any) -> Any:
    """Player ``number`` made from its spec (in a worker); a factory that fails, or makes
    something without a ``choose`` method, is a :class:`~racksmith.errors.PlayerError`."""
    try:
        player = spec.make(rs, lex)
    except PlayerSpecError:
        raise
    except Exception as e:
        raise PlayerError(f"player {number} ({spec}): its factory failed: {type(e).__name__}: {e}") from e
    if not callable(getattr(player, "choose", None)):
        raise PlayerError(f"player {number} ({spec}): its factory made {type(player).__name__}, which has no "
                          "choose(view) method returning a Move")
    return player


def wilson_interval(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson's score interval (95% by default) of a proportion of ``successes`` in ``n``."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * ((p * (1 - p) / n + z2 / (4 * n * n)) ** 0.5) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True, slots=True)
class PlayerStats:
    wins: int
    losses: int
    draws: int
    mean_spread: float

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def win_rate(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.wins + self.draws / 2, self.games)

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.ci95
        return {"wins": self.wins, "losses": self.losses, "draws": self.draws, "win_rate": round(self.win_rate, 6),
                "ci95": [round(lo, 6), round(hi, 6)], "mean_spread": round(self.mean_spread, 4)}


class PairGames:
    """What a match keeps of its games besides the scores (:class:`GameDetail` without the
    records), a row a pair in the rows of its :class:`~racksmith.play.tables.PairTable`:
    ``bingos`` (int16, ``(n, 2, 2)``: pair, game — player 1 first, then player 2 first —,
    player), ``turns`` (int32, ``(n, 2)``: a game of a ruleset's may take up to
    :func:`racksmith.core.turns.turn_limit` turns), ``ends`` (int8, ``(n, 2)``: END_* codes of
    :mod:`racksmith.play.selfplay`, 0 when not known). 18 bytes a pair."""

    __slots__ = ("bingos", "turns", "ends")

    def __init__(self, pairs: int):
        self.bingos = np.zeros((pairs, 2, 2), np.int16)
        self.turns = np.zeros((pairs, 2), np.int32)
        self.ends = np.zeros((pairs, 2), np.int8)

    def put(self, pairs: Iterable[PairResult]) -> None:
        """Write the games of :class:`PairResult` s (those that kept them) into the rows of their pairs."""
        for r in pairs:
            if r.games is not None:
                for g, d in enumerate(r.games):
                    self.bingos[r.pair, g] = d.bingos
                    self.turns[r.pair, g] = d.turns
                    self.ends[r.pair, g] = d.end


@dataclass(init=False)
class MatchResult:
    """A match's outcome: per player wins, losses, draws, win rate with its 95% Wilson interval,
    mean spread. Every pair's scores are kept as columns (:attr:`table`, a
    :class:`~racksmith.play.tables.PairTable`: 24 bytes a pair, 40 wide); :attr:`pairs` makes them
    :class:`PairResult` objects on demand."""

    p1_spec: str
    p2_spec: str
    ruleset: str
    seed: int
    table: PairTable  #: the pairs, pair ``p`` in row ``p`` for a match played by :func:`match`
    seconds: float
    p1: PlayerStats
    p2: PlayerStats
    #: the games' bingos, turns and endings (None: not kept)
    details: "PairGames | None" = dataclasses.field(default=None, compare=False)
    lexicon: str | None = None  #: the lexicon's name (``enable``), or its file as given
    gcg_dir: str | None = None  #: where the games' records were written (None: not asked for)
    records_unwritten: int = 0  #: how many games' records could not be written there
    unwritten_games: tuple[int, ...] = ()  #: the first 20 of those games
    records_error: str | None = None  #: why the first of them was not written (naming its game)

    def __init__(self, p1_spec: str, p2_spec: str, ruleset: str, seed: int,
                 pairs: "PairTable | Iterable[PairResult]", seconds: float, *, details: "PairGames | None" = None,
                 lexicon: str | None = None, gcg_dir: str | None = None, records_unwritten: int = 0,
                 unwritten_games: "tuple[int, ...]" = (), records_error: str | None = None):
        self.p1_spec = p1_spec
        self.p2_spec = p2_spec
        self.ruleset = ruleset
        self.seed = seed
        self.table = pairs if isinstance(pairs, PairTable) else PairTable.from_pairs(pairs)
        self.seconds = seconds
        if details is not None and details.turns.shape[0] != len(self.table):
            raise RacksmithError(f"details of {details.turns.shape[0]} pairs for a match of {len(self.table)}")
        self.details = details
        self.lexicon = lexicon
        self.gcg_dir = gcg_dir
        self.records_unwritten = records_unwritten
        self.unwritten_games = tuple(unwritten_games)
        self.records_error = records_error
        w = loss = 0
        spread = IntSums()
        for part in chunks(len(self.table)):
            sc = self.table.scores[part].astype(np.int64)
            a, b = sc[:, :, 0], sc[:, :, 1]  # both games of each pair: player 1's and player 2's scores
            w += int(np.count_nonzero(a > b))
            loss += int(np.count_nonzero(a < b))
            spread.add(a - b)
        n = 2 * len(self.table)
        d = n - w - loss
        mean = spread.total / n if n else 0.0
        self.p1 = PlayerStats(w, loss, d, mean)
        self.p2 = PlayerStats(loss, w, d, -mean)

    @property
    def pairs(self) -> list[PairResult]:
        """Every pair as a :class:`PairResult`, by row (by pair number for a match): a new list on
        each access, a Python object a pair — iterate or index :attr:`table` to go without it."""
        return self.table.results()

    @property
    def games(self) -> int:
        return 2 * len(self.table)

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``racksmith match --json``: the games and pairs, each player's figures
        (``p1``, ``p2``), the seconds, what was played (``p1_spec``, ``p2_spec``, ``ruleset``,
        ``lexicon``, ``seed``), how the games ended (``endings``, when kept), the ``racksmith``
        version; with records asked for (``gcg_dir``), ``records_unwritten``,
        ``records_unwritten_games`` and ``records_error`` as ``selfplay --json`` gives them."""
        from .. import __version__

        out: dict[str, Any] = {
            "games": self.games, "pairs": len(self.table), "p1": self.p1.to_dict(), "p2": self.p2.to_dict(),
            "seconds": round(self.seconds, 3), "p1_spec": self.p1_spec, "p2_spec": self.p2_spec,
            "ruleset": self.ruleset, "lexicon": self.lexicon, "seed": self.seed,
        }
        if self.details is not None:
            from .selfplay import END_NAMES

            counts = np.bincount(self.details.ends.ravel(), minlength=len(END_NAMES)).tolist()
            out["endings"] = {name: counts[code] for code, name in enumerate(END_NAMES) if name}
        out["racksmith"] = __version__
        if self.gcg_dir is not None:
            out.update(records_unwritten=self.records_unwritten, records_unwritten_games=list(self.unwritten_games),
                       records_error=self.records_error)
        return out

    def games_csv_rows(self) -> Iterator[list[Any]]:
        """The rows of :meth:`write_games_csv`, a list a game."""
        from .selfplay import END_NAMES, winner_name

        d = self.details
        specs = (self.p1_spec, self.p2_spec)
        for part in chunks(len(self.table)):
            pairs = self.table.pair[part].tolist()
            scores = self.table.scores[part].tolist()
            bingos = d.bingos[part].tolist() if d is not None else None
            turns = d.turns[part].tolist() if d is not None else None
            ends = d.ends[part].tolist() if d is not None else None
            for row, (p, sc) in enumerate(zip(pairs, scores)):
                for g in (0, 1):
                    a, b = sc[g]
                    bi = bingos[row][g] if bingos is not None else ("", "")
                    yield [2 * p + g, p, g + 1, self.seed, p, f"p{g + 1}",
                           specs[0], a, bi[0], specs[1], b, bi[1],
                           turns[row][g] if turns is not None else "", END_NAMES[ends[row][g]] if ends is not None else "",
                           a - b, winner_name((a, b))]

    def write_games_csv(self, path: "str | os.PathLike[str]") -> None:
        """Write a row a game to the CSV file ``path`` (UTF-8, a header row): the columns of
        :meth:`racksmith.play.selfplay.SelfPlayReport.write_games_csv`, with ``pair`` (the pair's
        number) and ``p1_seat`` (1 in the pair's first game, where player 1 moves first; 2 in its
        second) after ``game`` (``2 * pair + p1_seat - 1``)."""
        from .selfplay import games_csv_header, write_csv

        head = ("game", "pair", "p1_seat", "seed", "bag", "first")
        write_csv(path, games_csv_header(2, head), self.games_csv_rows())


def match(
    p1: "str | PlayerSpec",
    p2: "str | PlayerSpec",
    games: int,
    *,
    seed: int = 0,
    ruleset: "str | Ruleset" = "english",
    lexicon: str | None = None,
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    progress: Callable[[int], None] | None = None,
    engine: str = "auto",
    gcg_dir: "str | os.PathLike[str] | None" = None,
) -> MatchResult:
    """Play ``games`` games (an even number: ``games / 2`` pairs) between two player specs
    (``KIND[:key=value,...]``, see :mod:`racksmith.play.specs`). The result depends only on the
    specs, ruleset, lexicon and seed: not on ``jobs``, the backend nor ``engine`` (``auto``: the
kernel's game loop when it plays both players, ``kernel``, ``python``). ``jobs``: worker processes,
or Ray tasks at once [default: 1; joining a Ray cluster (``address``), its CPUs].
``progress(games_done)``.

``seed``: 0 to 2**64 - 1 (another would repeat another seed's games). ``gcg_dir``: write game
``g`` (pair ``g // 2``; player 1 moves first in the even ones) as GCG to ``gcg_dir/game{g:06d}.gcg``
(the folder is made, checked writable before any game and held until the match ends: another run
writing records there meanwhile is refused, :class:`~racksmith.errors.RecordsFolderBusyError`; the
records are written here, as the batches come back, whatever the backend); a record that cannot be written does not stop the match
(:attr:`MatchResult.records_unwritten`). Stopped by Ctrl-C, it raises
:class:`~racksmith.play.backends.GamesInterrupted` (a KeyboardInterrupt) saying which games were
played and which records written."""
    from .records import record_path, records_folder

    check_games(games, least=2, even=True)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise RacksmithError(f"seed must be a whole number, got {seed!r}")
    seed = check_seed(seed)
    backend = check_backend(backend, jobs, address)
    rs = get_ruleset(ruleset)
    rs.check_players(2)  # (a ruleset file holds two racks; one made in code may not)
    specs = []
    for s in (p1, p2):
        spec = parse_player_spec(s) if isinstance(s, str) else s
        if not isinstance(spec, PlayerSpec):
            raise RacksmithError(f"a player is a spec like 'equity:leaves=none', got {type(s).__name__}")
        specs.append(spec.prepare(rs))
    if not (lexicon is None or isinstance(lexicon, (str, os.PathLike, Lexicon))):
        raise RacksmithError(f"lexicon must be a lexicon's name, a path or None (the ruleset's), got {_args.show(lexicon)}")
    _args.callback(progress, "progress")
    if not isinstance(engine, str) or engine not in ENGINES:
        raise RacksmithError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    stack = ExitStack()
    folder = None
    description = None
    if gcg_dir is not None:
        description = _description(seed, specs)
        # made, checked writable and held until the match ends: another run writing there is refused
        folder = stack.enter_context(records_folder(gcg_dir))
    with stack:
        # a lexicon file by its absolute path: a Ray worker's folder is not this one
        own = any(not kind_module(spec.kind).startswith("racksmith.") for spec in specs)
        job = MatchJob(ruleset_ref(rs), portable_path(lexicon), specs[0], specs[1], seed, engine, description,
                       next(_CALLS) if own else 0)
        t0 = time.perf_counter()
        done = [0]

        def tick(n: int) -> None:
            done[0] += 2 * n
            if progress:
                progress(done[0])

        if progress:
            progress(0)
        from .selfplay import wide_tables

        table = PairTable.empty(games // 2, wide=wide_tables(rs))
        details = PairGames(games // 2)
        played = np.zeros(games // 2, np.bool_)
        written = np.zeros(games, np.bool_) if folder is not None else None
        lost: list[tuple[int, str]] = []  # (game, why) of the first records not written
        n_lost = 0
        tried = np.zeros(games, np.bool_) if folder is not None else None  # the games whose record was tried

        def keep(batch: list[PairResult]) -> None:
            """Count ``batch``'s pairs as played once their records are written: what a stopped run
            says it played is then what its folder holds. Done again for the batch in hand when a
            Ctrl-C lands in the middle of it (what is already done is skipped)."""
            nonlocal n_lost
            for r in batch:
                if played[r.pair]:
                    continue
                for g, d in enumerate(r.games or ()) if folder is not None else ():
                    index = 2 * r.pair + g
                    if tried[index]:
                        continue
                    why = d.gcg_error if d.gcg is None else _write_record(record_path(folder, index), d.gcg)
                    if why is None:
                        written[index] = True
                    else:
                        n_lost += 1
                        if len(lost) < 20:
                            lost.append((index, why))
                    tried[index] = True
                played[r.pair] = True

        in_hand: list[PairResult] = []
        try:
            with Runner(job, jobs=jobs, backend=backend, address=address) as runner:
                # batches finish in any order: each fills the rows of its pairs, and is then dropped
                for _, batch in runner.each(split(0, games // 2, BATCH), tick):
                    in_hand = batch
                    table.put(batch)
                    details.put(batch)
                    keep(batch)
        except KeyboardInterrupt as e:
            if isinstance(e, GamesInterrupted):
                raise
            keep(in_hand)  # (a second Ctrl-C here stops it as it is)
            raise GamesInterrupted(games, 2 * int(np.count_nonzero(played)), runs(np.repeat(played, 2)), folder,
                                   runs(written) if written is not None else None) from None
        except PlayerError as e:
            # what the match did before its player failed: the games played, the records written
            _tell_what_was_played(e, games, played, folder, written)
            raise
        lost.sort()
        return MatchResult(str(specs[0]), str(specs[1]), rs.name, seed, table, time.perf_counter() - t0, details=details,
                           lexicon=_lexicon_name(lexicon, rs), gcg_dir=folder, records_unwritten=n_lost,
                           unwritten_games=tuple(g for g, _ in lost),
                           records_error=f"game {lost[0][0]}: {lost[0][1]}" if lost else None)


def _tell_what_was_played(e: PlayerError, games: int, played: np.ndarray, folder: "str | None",
                          written: "np.ndarray | None") -> None:
    """A player's failure that ended a match says what the match had done: ``e.done`` games
    played (their pairs finished), ``e.played`` as runs of games, ``e.records`` the runs of games
    whose records were written to ``e.folder`` (None without one); the message says it too."""
    e.games, e.done, e.played, e.folder = games, 2 * int(np.count_nonzero(played)), runs(np.repeat(played, 2)), folder
    e.records = runs(written) if written is not None else None
    shown = ", ".join(f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in (e.records or ())[:5])
    more = ", ..." if e.records is not None and len(e.records) > 5 else ""
    where = (f"; their records are in {folder} (games {shown}{more})" if e.records else
             f"; no record was written to {folder}" if folder is not None else "")
    e.args = (f"{e.args[0] if e.args else e}; {e.done:,} of {games:,} games had been played{where}",)


def _write_record(path: Any, text: str) -> str | None:
    """Write a game's record: None, or why it could not be written."""
    try:
        write_atomically(path, text.encode("utf-8"))
    except OutputFileError as e:
        return str(e)
    except OSError as e:
        return f"cannot write {str(path)!r}: {e.strerror or e}"
    return None


def spec_leaves(spec: PlayerSpec) -> str | None:
    """The leaves a prepared player spec plays with, as the records name them: a shipped set's
    name, the file given, ``none``; None for a kind that takes no leaves (``score``)."""
    kind = player_kinds().get(spec.kind)
    if kind is None or kind.keys is None or "leaves" not in kind.keys:
        return None
    data = dict(spec.data)
    if data.get("shipped"):
        return str(data["shipped"])
    given = dict(spec.params).get("leaves")
    return given if given is not None and given.lower() != "none" else "none"


def _description(seed: int, specs: list[PlayerSpec]) -> str:
    """What every record of a match says of it after its game: the seed, the players, their leaves."""
    leaves = [(f"p{i + 1}", spec_leaves(s)) for i, s in enumerate(specs)]
    leaves = [(p, src) for p, src in leaves if src is not None]
    text = f"seed {seed}; p1 {specs[0]}, p2 {specs[1]}"
    if leaves:
        same = len(leaves) == 2 and leaves[0][1] == leaves[1][1]
        text += "; leaves: " + (leaves[0][1] if same else ", ".join(f"{p} {src}" for p, src in leaves))
    return text


def _lexicon_name(lexicon: Any, rs: Ruleset) -> str | None:
    """How the JSON names a match's lexicon: a loaded one by its name, a name or file as given, else the ruleset's."""
    if isinstance(lexicon, Lexicon):
        return lexicon.name or (str(lexicon.path) if lexicon.path is not None else None)
    if lexicon is not None:
        return os.fspath(lexicon)
    return rs.lexicon
