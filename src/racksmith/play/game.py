"""A game from the first draw to the final scores: racks, a seeded bag, scores, history and undo.

Every action is checked before anything changes: an illegal play, exchange or challenge raises
:class:`~racksmith.errors.IllegalMoveError` (reason codes of :data:`racksmith.core.validation.REASONS`,
plus ``game_over`` and ``no_play_to_challenge``) and leaves the game as it was.

The game ends when a player plays out with the bag empty (``ruleset.end_rule``: under
``"tournament"`` the player going out adds twice the others' leftover tiles; under ``"club"`` each
other player subtracts his leftover and the player going out adds their sum), or after
``ruleset.zero_turn_limit`` consecutive scoreless turns (each player subtracts his own rack).

State is kept flat for speed: a numpy board shared with a live :class:`~racksmith.core.position.Position`
(the player to move first), racks as sorted tuples, and the bag as a pre-shuffled list.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..rules.alphabet import BLANK, LETTER_MASK, THROUGH
from ..core.bag import Bag
from ..errors import IllegalMoveError, RacksmithError
from ..formats.gcg import (
    CHALLENGE,
    EXCHANGE,
    OUT,
    PASS,
    PHONY,
    PLAY,
    RACK_PENALTY,
    TIME,
    GCGEvent,
    GCGGame,
    GCGPlayer,
)
from ..core.move import Move
from ..core.position import Position
from ..rules.ruleset import Ruleset, get_ruleset
from ..core.validation import check_move_lean


@dataclass(frozen=True, slots=True)
class Event:
    """One line of a game's history.

    ``rack`` is the player's rack before the event (for a withdrawn phony or a challenge bonus, the
    rack of the play they follow; empty for a going-out bonus or a time penalty); ``tiles`` are the
    leftover tiles an end-of-game event counts; ``drawn`` the tiles drawn after a play or exchange.
    """

    player: int
    kind: str
    score: int
    total: int
    rack: tuple[int, ...] = ()
    move: Move | None = None
    tiles: tuple[int, ...] = ()
    drawn: tuple[int, ...] = ()
    bingo: bool = False


class _AnyWord:
    """A lexicon that accepts every word: plays are checked for geometry and rack only."""

    def __contains__(self, word: object) -> bool:
        return True


ANY_WORD = _AnyWord()


@dataclass(slots=True)
class _Snapshot:
    """The whole state before an action, so that :meth:`Game.undo` restores it exactly."""

    kind: str
    player: int
    board: np.ndarray
    racks: list
    scores: list
    bag: list
    rng_state: Any
    zero_turns: int
    to_move: int
    over: bool
    history: list


class Game:
    """A game between ``players`` (a count or the players' nicks), from a bag shuffled by ``seed``.

    ``lexicon``: a name, a path, or a loaded lexicon (default: the ruleset's). ``bag_order`` fixes
    the order tiles are drawn in (a permutation of the whole set) instead of shuffling.
    """

    __slots__ = (
        "ruleset",
        "nicks",
        "names",
        "board",
        "racks",
        "scores",
        "bag",
        "history",
        "to_move",
        "zero_turns",
        "over",
        "_pos",
        "lexicon_name",
        "_actions",
    )

    def __init__(
        self,
        ruleset: "str | Ruleset | None" = None,
        lexicon: Any = None,
        players: "int | Sequence[str]" = 2,
        seed: "int | random.Random | None" = None,
        *,
        names: Sequence[str] | None = None,
        bag_order: Sequence[int] | None = None,
    ):
        rs = get_ruleset(ruleset)
        self.ruleset = rs
        if isinstance(players, int):
            nicks = tuple(f"p{i + 1}" for i in range(players))
        else:
            nicks = tuple(str(p) for p in players)
        if len(nicks) < 2:
            raise RacksmithError(f"a game needs at least 2 players, got {len(nicks)}")
        if len(set(nicks)) != len(nicks) or any(not n or any(ch.isspace() or ch == ":" for ch in n) for n in nicks):
            raise RacksmithError(f"player nicks must be distinct, non-empty, without spaces or ':': {list(nicks)}")
        if len(nicks) * rs.rack_size > rs.total_tiles:
            raise RacksmithError(
                f"{len(nicks)} racks of {rs.rack_size} need {len(nicks) * rs.rack_size} tiles; "
                f"the {rs.name} set has {rs.total_tiles}"
            )
        self.nicks = nicks
        self.names = tuple(names) if names is not None else nicks
        if len(self.names) != len(nicks):
            raise RacksmithError(f"{len(self.names)} names for {len(nicks)} players")
        self.bag = Bag(rs, seed, order=bag_order)
        self.racks = [tuple(sorted(self.bag.draw(rs.rack_size))) for _ in nicks]
        self.scores = [0] * len(nicks)
        self.board = np.zeros((rs.rows, rs.cols), dtype=np.uint8)
        self.history: list[Event] = []
        self.to_move = 0
        self.zero_turns = 0
        self.over = False
        self._actions: list[_Snapshot] = []
        if isinstance(lexicon, str):
            self.lexicon_name = lexicon
        elif hasattr(lexicon, "__fspath__"):
            self.lexicon_name = Path(lexicon).stem
        else:
            self.lexicon_name = getattr(lexicon, "name", None) or rs.lexicon
        self._pos = Position(rs, self.board, (self.racks[0], self.racks[1]), lexicon=lexicon)
        self._pos.board = self.board  # shared: the position always shows the game's board

    # --- reading the state -------------------------------------------------------------------
    @property
    def lexicon(self):
        """The game's lexicon, loaded on first use."""
        return self._pos.lexicon

    @property
    def rack(self) -> tuple[int, ...]:
        """The rack of the player to move."""
        return self.racks[self.to_move]

    @property
    def bag_count(self) -> int:
        return len(self.bag)

    @property
    def turns(self) -> int:
        """Turns taken (plays, exchanges and passes; withdrawn plays count as the turn they were)."""
        return sum(1 for e in self.history if e.kind in (PLAY, EXCHANGE, PASS))

    def live_position(self) -> Position:
        """The game seen by the player to move (his rack and score first), sharing the game's board:
        read it, never change it (use :meth:`position` for a copy of your own)."""
        p = self.to_move
        pos = self._pos
        n = len(self.racks)
        if n == 2:
            o = 1 - p
            pos.racks = [self.racks[p], self.racks[o]]
            pos.scores = [self.scores[p], self.scores[o]]
        else:
            order = [(p + i) % n for i in range(n)]
            pos.racks = [self.racks[i] for i in order]
            pos.scores = [self.scores[i] for i in order]
        pos.zero_turns = self.zero_turns
        return pos

    def position(self) -> Position:
        """A copy of the position for the player to move: board, racks (his first), scores."""
        return self.live_position().copy()

    def cgp(self) -> str:
        return self.live_position().cgp()

    def legal_moves(self, **options):
        """The moves of the player to move; options as :func:`racksmith.movegen.generate_moves`."""
        return self.live_position().moves(**options)

    def winners(self) -> list[int]:
        """The players with the highest score (more than one on a tie)."""
        best = max(self.scores)
        return [i for i, s in enumerate(self.scores) if s == best]

    # --- actions -------------------------------------------------------------------------------
    def play(self, move: "Move | str", *, check_words: bool = True) -> Event:
        """Play a placement, an exchange or a pass for the player to move (a :class:`Move` or its
        notation). ``check_words=False`` lets a phony stand until someone challenges it."""
        self._require_live()
        pos = self.live_position()
        if isinstance(move, str):
            move = Move.parse(move, self.ruleset)
        checked = check_move_lean(pos, move, None if check_words else ANY_WORD)
        if checked.is_place:
            return self._play_turn(checked, checked.score)
        if checked.is_exchange:
            return self._exchange(checked)
        return self._pass()

    def exchange(self, tiles: "str | Sequence[int]") -> Event:
        """Exchange tiles (letters, ``?`` for a blank, or tile ints)."""
        if isinstance(tiles, str):
            tiles = self.ruleset.alphabet.rack(tiles)
        return self.play(Move.exchange(tiles, self.ruleset.alphabet))

    def pass_(self) -> Event:
        self._require_live()
        return self._pass()

    def play_trusted(self, move: Move) -> Event:
        """Apply a move from the move generator without checking it (its ``score`` is used as is).

        For self-play speed; the game's tile and score invariants (:meth:`check_invariants`) still
        catch a generator that lies."""
        self._require_live()
        if move.is_place:
            return self._play_turn(move, move.score)
        if move.is_exchange:
            return self._exchange(move)
        return self._pass()

    def challenge(self, bonus: int = 0) -> bool:
        """The player to move challenges the last play. A phony is withdrawn (its tiles go back to
        the rack, the tiles drawn go back to the bag, the turn counts as scoreless) and True is
        returned. If every word stands, the player who played gets ``bonus`` points, or, with
        ``bonus=0`` (double challenge), the challenger loses his turn; False is returned.

        A game that the challenged play ended is reopened if the play is withdrawn."""
        snap = self._last_play_action()
        play_event = self.history[len(snap.history)]
        p = play_event.player
        try:
            check_move_lean(self._position_from(snap), play_event.move, self.lexicon)
            phony = False
        except IllegalMoveError as e:
            if e.reason != "invalid_words":
                raise
            phony = True
        if not phony and not bonus and self.over:
            return False  # the play went out: the challenger has no turn left to lose
        now = self._snapshot("challenge", self.to_move)
        if phony:
            self._restore(snap)
            self.history.append(play_event)
            self.scores[p] += play_event.score
            self._add(p, PHONY, -play_event.score, rack=play_event.rack)
            self.zero_turns = snap.zero_turns + 1
            self.to_move = (p + 1) % len(self.nicks)
            self._actions.append(now)
            self._after_scoreless()
            return True
        if bonus:
            self._restore(snap)
            e = self._place(play_event.move, play_event.score)
            self._add(p, CHALLENGE, bonus, rack=play_event.rack)
            self._actions.append(now)
            self._after_play(e)
            return False
        self._actions.append(now)
        q = self.to_move
        self._add(q, PASS, 0, rack=self.racks[q], move=Move.pass_(self.ruleset.alphabet))
        self.zero_turns += 1
        self.to_move = (q + 1) % len(self.nicks)
        self._after_scoreless()
        return False

    def time_penalty(self, player: int, points: int) -> Event:
        """Subtract ``points`` (> 0) from a player's score, e.g. for overtime."""
        if not 0 <= player < len(self.nicks):
            raise RacksmithError(f"player {player} does not exist (0..{len(self.nicks) - 1})")
        if points <= 0:
            raise RacksmithError(f"a time penalty is a positive number of points, got {points}")
        self._actions.append(self._snapshot(TIME, player))
        return self._add(player, TIME, -points)

    def undo(self) -> None:
        """Take back the last action (a turn with the end-of-game events it caused, a challenge or a
        time penalty), exactly as it was."""
        if not self._actions:
            raise RacksmithError("nothing to undo: no action has been taken")
        self._restore(self._actions.pop())

    # --- the work ------------------------------------------------------------------------------
    def _require_live(self) -> None:
        if self.over:
            raise IllegalMoveError("game_over", "the game is over: no more turns can be taken")

    def _add(self, player: int, kind: str, score: int, **fields) -> Event:
        self.scores[player] += score
        e = Event(player, kind, score, self.scores[player], **fields)
        self.history.append(e)
        return e

    def _play_turn(self, move: Move, score: int) -> Event:
        self._actions.append(self._snapshot(PLAY, self.to_move))
        e = self._place(move, score)
        self._after_play(e)
        return e

    def _place(self, move: Move, score: int) -> Event:
        """Put the tiles on the board, draw, score; the turn passes (no end-of-game check)."""
        p = self.to_move
        rack = self.racks[p]
        left = list(rack)
        board = self.board
        placed = 0
        for i, t in enumerate(move.tiles):
            if t & THROUGH:
                continue
            r = move.row if move.across else move.row + i
            c = move.col + i if move.across else move.col
            board[r, c] = t
            left.remove(0 if t & BLANK else t)
            placed += 1
        drawn = self.bag.draw(placed)
        left.extend(drawn)
        left.sort()
        self.racks[p] = tuple(left)
        e = self._add(
            p, PLAY, score, rack=rack, move=move, drawn=tuple(drawn), bingo=placed == self.ruleset.rack_size
        )
        self.zero_turns = 0 if score else self.zero_turns + 1
        self.to_move = (p + 1) % len(self.nicks)
        return e

    def _after_play(self, e: Event) -> None:
        if not self.racks[e.player]:  # an empty rack after drawing: the bag is empty too
            self._finish_out(e.player)
        elif not e.score:
            self._after_scoreless()

    def _exchange(self, move: Move) -> Event:
        p = self.to_move
        self._actions.append(self._snapshot(EXCHANGE, p, rng=True))
        rack = self.racks[p]
        left = list(rack)
        for t in move.tiles:
            left.remove(t)
        drawn = self.bag.draw(len(move.tiles))
        self.bag.put_back(move.tiles)
        left.extend(drawn)
        left.sort()
        self.racks[p] = tuple(left)
        e = self._add(p, EXCHANGE, 0, rack=rack, move=move, drawn=tuple(drawn))
        self.zero_turns += 1
        self.to_move = (p + 1) % len(self.nicks)
        self._after_scoreless()
        return e

    def _pass(self) -> Event:
        p = self.to_move
        self._actions.append(self._snapshot(PASS, p))
        e = self._add(p, PASS, 0, rack=self.racks[p], move=Move.pass_(self.ruleset.alphabet))
        self.zero_turns += 1
        self.to_move = (p + 1) % len(self.nicks)
        self._after_scoreless()
        return e

    def _after_scoreless(self) -> None:
        if self.zero_turns < self.ruleset.zero_turn_limit:
            return
        n = len(self.nicks)
        last = (self.to_move - 1) % n
        rs = self.ruleset
        for i in range(n):
            q = (last + i) % n
            rack = self.racks[q]
            if rack:
                self._add(q, RACK_PENALTY, -rs.rack_value(rack), rack=rack, tiles=rack)
        self.over = True

    def _finish_out(self, p: int) -> None:
        rs = self.ruleset
        n = len(self.nicks)
        others = [(p + i) % n for i in range(1, n)]
        leftover = tuple(sorted(t for q in others for t in self.racks[q]))
        value = rs.rack_value(leftover)
        if rs.end_rule == "tournament":
            self._add(p, OUT, 2 * value, tiles=leftover)
        else:
            self._add(p, OUT, value, tiles=leftover)
            for q in others:
                if self.racks[q]:
                    self._add(q, RACK_PENALTY, -rs.rack_value(self.racks[q]), rack=self.racks[q], tiles=self.racks[q])
        self.over = True

    def _last_play_action(self) -> _Snapshot:
        """The snapshot taken before the last action, which must be another player's play."""
        if self._actions:
            snap = self._actions[-1]
            if snap.kind == PLAY and snap.player != self.to_move:
                return snap
        raise IllegalMoveError(
            "no_play_to_challenge", "there is no play to challenge: the last action was not another player's play"
        )

    def _snapshot(self, kind: str, player: int, rng: bool = False) -> _Snapshot:
        return _Snapshot(
            kind,
            player,
            self.board.copy(),
            self.racks.copy(),
            self.scores.copy(),
            self.bag.snapshot(),
            self.bag.rng.getstate() if rng else None,
            self.zero_turns,
            self.to_move,
            self.over,
            self.history.copy(),
        )

    def _restore(self, s: _Snapshot) -> None:
        self.board[...] = s.board
        self.racks = s.racks.copy()
        self.scores = s.scores.copy()
        self.bag.restore(s.bag)
        if s.rng_state is not None:
            self.bag.rng.setstate(s.rng_state)
        self.zero_turns = s.zero_turns
        self.to_move = s.to_move
        self.over = s.over
        self.history = s.history.copy()

    def _position_from(self, s: _Snapshot) -> Position:
        n = len(self.nicks)
        order = [(s.to_move + i) % n for i in range(n)]
        pos = Position(
            self.ruleset,
            s.board,
            [s.racks[i] for i in order],
            [s.scores[i] for i in order],
            s.zero_turns,
        )
        pos.lexicon = self.lexicon
        return pos

    # --- checks and records -------------------------------------------------------------------
    def check_invariants(self) -> list[str]:
        """What is wrong with the state, if anything: tiles conserved (bag + racks + board = the
        set), each score the sum of its events, running totals, no rack over size. Empty when sound."""
        rs = self.ruleset
        problems = []
        have = Counter(self.bag.order())
        for rack in self.racks:
            have.update(rack)
        for t in self.board[self.board != 0].tolist():
            have[0 if t & BLANK else t & LETTER_MASK] += 1
        want = Counter({t: n for t, n in enumerate(rs.counts) if n})
        if have != want:
            extra = have - want
            missing = want - have
            a = rs.alphabet
            problems.append(
                "tiles not conserved:"
                + (f" extra {a.rack_string(list(extra.elements()))}" if extra else "")
                + (f" missing {a.rack_string(list(missing.elements()))}" if missing else "")
            )
        sums = [0] * len(self.nicks)
        for e in self.history:
            sums[e.player] += e.score
            if e.total != sums[e.player]:
                problems.append(f"event {e.kind} of {self.nicks[e.player]}: running total {e.total}, events sum to {sums[e.player]}")
                break
        if sums != self.scores:
            problems.append(f"scores {self.scores} differ from the sums of the events {sums}")
        for i, rack in enumerate(self.racks):
            if len(rack) > rs.rack_size:
                problems.append(f"rack of {self.nicks[i]} holds {len(rack)} tiles")
        return problems

    def record(self, pragmas: Sequence[tuple[str, str]] = ()) -> GCGGame:
        """The game as a GCG record (:mod:`racksmith.formats.gcg`); ``pragmas`` are written after the
        encoding line (e.g. ``("description", "...")``)."""
        rs = self.ruleset
        a = rs.alphabet
        game = GCGGame(rs)
        for name, value in pragmas:
            game.pragmas.append((name, value, 0))
        if self.lexicon_name and not any(n == "lexicon" for n, _ in pragmas):
            game.pragmas.append(("lexicon", str(self.lexicon_name), 0))
        if not any(n == "tile-distribution" for n, _ in pragmas):
            game.pragmas.append(("tile-distribution", rs.name, 0))
        for i, (nick, name) in enumerate(zip(self.nicks, self.names)):
            game.pragmas.append((f"player{i + 1}", f"{nick} {name}", 0))
            game.players.append(GCGPlayer(nick, name))
        for e in self.history:
            move = e.move
            game.events.append(
                GCGEvent(
                    nick=self.nicks[e.player],
                    kind=e.kind,
                    score=e.score,
                    total=e.total,
                    rack=a.rack_string(e.rack),
                    move=move if e.kind in (PLAY, EXCHANGE, PASS) else None,
                    tiles=a.rack_string(e.tiles),
                    count=move.tiles_played if move is not None else 0,
                )
            )
        return game

    def gcg(self, pragmas: Sequence[tuple[str, str]] = ()) -> str:
        return self.record(pragmas).gcg()

    def __repr__(self) -> str:
        state = "over" if self.over else f"{self.nicks[self.to_move]} to move"
        scores = ", ".join(f"{n} {s}" for n, s in zip(self.nicks, self.scores))
        return f"<Game {self.ruleset.name}: {scores}; {self.turns} turns, bag {len(self.bag)}, {state}>"
