"""Replay a GCG record: every play checked for legality (board and rack), its score recomputed,
every running total and end-of-game adjustment checked; the position before any turn.

A record is authoritative about words: a phony that was not challenged off stood in the game, so
words are only looked up when asked (``check_words=True``), and the ones not in the lexicon are
listed in :attr:`Replay.phonies`, never as errors. Errors (:class:`~racksmith.errors.GCGError`, with
the line) are raised at once with ``strict=True`` or collected in :attr:`Replay.errors`; after an
error the replay goes on from the recorded values, so that one slip is reported once.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..rules.alphabet import BLANK, LETTER_MASK
from ..errors import GCGError, IllegalMoveError, PositionError, RacksmithError
from ..play.game import ANY_WORD
from ..formats.gcg import (
    EXCHANGE,
    PASS,
    PLAY,
    GCGEvent,
    GCGGame,
    parse_gcg,
    read_gcg,
)
from ..core.move import Move
from ..core.position import Position
from ..rules.ruleset import Ruleset
from ..core.validation import check_move


@dataclass(frozen=True, slots=True)
class ReplayTurn:
    """A turn (play, exchange or pass) and the position before it.

    ``rack`` is the mover's rack as recorded (empty when the record does not show it;
    ``rack_complete`` is False then, or when it shows fewer tiles than the player held);
    ``opponent_rack`` the other player's rack when the record reveals it (two-player games: his rack
    at his next turn, or every unseen tile once the bag is empty), else None. ``move`` is the
    canonical move (plays resolved, with the score racksmith computes); ``withdrawn`` tells that a
    challenge took the play back.
    """

    number: int
    player: int
    event: GCGEvent
    board: np.ndarray
    scores: tuple[int, ...]
    rack: tuple[int, ...]
    rack_complete: bool
    opponent_rack: tuple[int, ...] | None
    bag_count: int
    zero_turns: int
    move: Move | None
    score: int
    bingo: bool = False
    withdrawn: bool = False

    @property
    def line(self) -> int:
        return self.event.line


@dataclass(slots=True)
class Replay:
    """The result of :func:`replay`: the turns with their positions, the final position and scores,
    the errors found (collected mode) and, with ``check_words``, the words not in the lexicon."""

    record: GCGGame
    ruleset: Ruleset
    turns: list[ReplayTurn] = field(default_factory=list)
    board: np.ndarray | None = None
    scores: list[int] = field(default_factory=list)
    errors: list[GCGError] = field(default_factory=list)
    phonies: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    over: bool = False
    lexicon: Any = None

    @property
    def players(self) -> list[str]:
        return [p.nick for p in self.record.players]

    @property
    def ok(self) -> bool:
        return not self.errors

    def final_scores(self) -> dict[str, int]:
        return dict(zip(self.players, self.scores))

    def position(self, turn: int | None = None, *, opponent_rack: bool = True) -> Position:
        """The position before turn ``turn`` (1-based; None or ``len(turns) + 1`` = after the last
        event), the mover first. The opponent's rack is filled in when the record reveals it."""
        n = len(self.turns)
        if turn is None:
            turn = n + 1
        if not 1 <= turn <= n + 1:
            raise GCGError(f"turn {turn} does not exist: the game has turns 1 to {n} (and {n + 1} for the end)")
        players = len(self.record.players)
        if turn == n + 1:
            mover = (self.turns[-1].player + 1) % players if self.turns else 0
            order = [(mover + i) % players for i in range(players)]
            return Position(
                self.ruleset, self.board, [() for _ in order], [self.scores[i] for i in order], lexicon=self.lexicon
            )
        t = self.turns[turn - 1]
        order = [(t.player + i) % players for i in range(players)]
        racks: list[tuple[int, ...]] = [t.rack] + [() for _ in order[1:]]
        if opponent_rack and t.opponent_rack is not None and players == 2:
            racks[1] = t.opponent_rack
        return Position(
            self.ruleset, t.board, racks, [t.scores[i] for i in order], t.zero_turns, lexicon=self.lexicon
        )

    def cgp(self, turn: int | None = None) -> str:
        return self.position(turn).cgp()

    def errors_before(self, turn: int | None = None) -> list[GCGError]:
        """The errors met before turn ``turn`` (1-based; None = the end): those that make the
        position before it unreliable. An error without a line (no players...) counts everywhere."""
        if turn is None or not 1 <= turn <= len(self.turns):
            return list(self.errors)
        line = self.turns[turn - 1].line
        return [e for e in self.errors if e.line < line]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith gcg replay --json``."""
        return {
            "players": self.players,
            "final_scores": self.final_scores(),
            "turns": len(self.turns),
            "complete": self.over,
            "errors": [{"line": e.line, "message": e.message} for e in self.errors],
            "phonies": [{"line": line, "words": list(words)} for line, words in self.phonies],
            "notes": list(self.notes),
        }


def replay_file(
    path: "str | Path",
    ruleset=None,
    lexicon: Any = None,
    *,
    check_words: bool = False,
    strict: bool = True,
) -> Replay:
    """Read and replay a GCG file (syntax errors are collected too when ``strict=False``)."""
    return replay(read_gcg(path, ruleset, strict=strict), lexicon, check_words=check_words, strict=strict)


def replay_text(text: str, ruleset=None, lexicon: Any = None, *, check_words: bool = False, strict: bool = True) -> Replay:
    return replay(parse_gcg(text, ruleset, strict=strict), lexicon, check_words=check_words, strict=strict)


def replay(record: GCGGame, lexicon: Any = None, *, check_words: bool = False, strict: bool = True) -> Replay:
    """Replay a record. ``lexicon`` (a name, path or loaded lexicon; default the ruleset's) is only
    used with ``check_words``."""
    return _Replayer(record, lexicon, check_words, strict).run()


class _Replayer:
    def __init__(self, record: GCGGame, lexicon: Any, check_words: bool, strict: bool):
        rs = record.ruleset
        self.rs = rs
        self.record = record
        self.strict = strict
        self.check_words = check_words
        self.result = Replay(record, rs, errors=list(record.errors), lexicon=lexicon)
        if strict and record.errors:
            raise record.errors[0]
        n = len(record.players)
        if n < 1:
            self.fail("the record has no players and no events", 0)
        elif n < 2:
            self.fail(f"a game needs two players or more; the record has only {record.players[0].nick!r}", 0)
        self.n = max(n, 1)
        self.board = np.zeros((rs.rows, rs.cols), dtype=np.uint8)
        self.scores = [0] * self.n
        self.rack_sizes = [rs.rack_size] * self.n
        self.bag = rs.total_tiles - rs.rack_size * self.n
        self.kept: list[Counter | None] = [None] * self.n  # tiles a player kept after his last turn
        self.zero_turns = 0
        self.over_line = 0
        self.last_play: dict | None = None
        self.lexicon = None
        if check_words:
            probe = Position(rs, lexicon=lexicon)
            self.lexicon = probe.lexicon

    # --- errors ------------------------------------------------------------------------------
    def fail(self, message: str, line: int) -> None:
        err = GCGError(message, line)
        if self.strict:
            raise err
        self.result.errors.append(err)

    # --- main loop -----------------------------------------------------------------------------
    def run(self) -> Replay:
        raw_turns: list[dict] = []
        for event in self.record.events:
            try:
                p = self.record.player_index(event.nick)
            except GCGError as e:
                self.fail(e.message, event.line)
                continue
            if self.over_line and event.kind in (PLAY, EXCHANGE, PASS):
                self.fail(f"a turn after the end of the game (line {self.over_line})", event.line)
            handler = getattr(self, f"on_{event.kind}")
            turn = handler(event, p)
            if turn is not None:
                raw_turns.append(turn)
            self.check_total(event, p)
        self.result.turns = self.finish_turns(raw_turns)
        self.result.board = self.board
        self.result.scores = self.scores
        self.result.over = bool(self.over_line)
        return self.result

    def check_total(self, event: GCGEvent, p: int) -> None:
        if self.scores[p] != event.total:
            self.fail(
                f"{event.nick}'s running total is {self.scores[p]} after this event, the record says {event.total}",
                event.line,
            )
            self.scores[p] = event.total

    def rack_of(self, event: GCGEvent, p: int) -> tuple[tuple[int, ...] | None, bool]:
        """The recorded rack (None when not recorded) and whether it is complete, checked against
        the tiles unseen by the player, his rack size and the tiles he kept. A rack with fewer tiles
        than the player holds is a partial record (annotated games often show only the tiles
        played): accepted, but not compared with the tiles kept."""
        if not event.rack:
            return None, False
        rack = tuple(self.rs.alphabet.rack(event.rack))
        complete = len(rack) == self.rack_sizes[p]
        if len(rack) > self.rack_sizes[p]:
            self.fail(
                f"{event.nick}'s rack {event.rack} has {len(rack)} tiles; after the turns so far it should hold "
                f"{self.rack_sizes[p]}",
                event.line,
            )
        unseen = self.unseen()
        over = Counter(rack) - unseen
        if over:
            self.fail(
                f"rack {event.rack} holds {self.rs.alphabet.rack_string(list(over.elements()))}, more than "
                "the set has left after the tiles on the board",
                event.line,
            )
        kept = self.kept[p]
        if kept is not None and complete:
            lost = kept - Counter(rack)
            if lost:
                self.fail(
                    f"rack {event.rack} lacks {self.rs.alphabet.rack_string(list(lost.elements()))}, kept from "
                    f"{event.nick}'s previous turn",
                    event.line,
                )
        return rack, complete

    def unseen(self) -> Counter:
        c = Counter({t: k for t, k in enumerate(self.rs.counts) if k})
        for t in self.board[self.board != 0].tolist():
            c[0 if t & BLANK else t & LETTER_MASK] -= 1
        return c

    def turn_record(self, event: GCGEvent, p: int, rack, complete: bool, move, score: int) -> dict:
        return dict(
            player=p,
            event=event,
            board=self.board.copy(),
            scores=tuple(self.scores),
            rack=rack if rack is not None else (),
            rack_complete=complete,
            bag_count=self.bag,
            zero_turns=self.zero_turns,
            move=move,
            score=score,
            bingo=False,
            withdrawn=False,
        )

    # --- turns ---------------------------------------------------------------------------------
    def on_play(self, event: GCGEvent, p: int) -> dict | None:
        rs = self.rs
        rack, complete = self.rack_of(event, p)
        shown = rack if complete else tuple(event.move.rack_tiles())
        record = self.turn_record(event, p, rack, complete, None, event.score)
        try:
            pos = Position(rs, self.board, (shown, ()), lexicon=self.lexicon)
        except PositionError as e:
            self.fail(str(e), event.line)
            return record
        try:
            move = check_move(pos, event.move, ANY_WORD)
        except IllegalMoveError as e:
            self.fail(f"illegal play {event.move.gcg()} ({e.reason}): {e.message}", event.line)
            self.last_play = None
            self.scores[p] += event.score
            return record
        except RacksmithError as e:
            self.fail(f"play {event.move.gcg()}: {e}", event.line)
            self.scores[p] += event.score
            return record
        if move.score != event.score:
            self.fail(f"{move.notation()} scores {move.score}, the record says {event.score:+d}", event.line)
        if self.check_words:
            self.look_up(pos, move, event.line)
        placed = move.placed
        record["move"] = move
        record["score"] = move.score
        record["bingo"] = len(placed) == rs.rack_size
        for r, c, t in placed:
            self.board[r, c] = t
        k = len(placed)
        drawn = min(k, self.bag)
        self.bag -= drawn
        self.rack_sizes[p] += drawn - k
        if complete:
            kept = Counter(rack)
            kept.subtract(move.rack_tiles())
            self.kept[p] = +kept
        else:
            self.kept[p] = None
        self.last_play = dict(p=p, line=event.line, placed=placed, drawn=drawn, score=event.score,
                              rack=rack if complete else None,
                              zero_turns=self.zero_turns, record=record)
        self.scores[p] += event.score
        self.zero_turns = 0 if event.score else self.zero_turns + 1
        return record

    def look_up(self, pos: Position, move: Move, line: int) -> None:
        try:
            check_move(pos, move, self.lexicon)
        except IllegalMoveError as e:
            if e.reason == "invalid_words":
                self.result.phonies.append((line, e.words))

    def on_exchange(self, event: GCGEvent, p: int) -> dict:
        rs = self.rs
        rack, complete = self.rack_of(event, p)
        record = self.turn_record(event, p, rack, complete, event.move, 0)
        if self.bag < rs.exchange_limit:
            self.fail(
                f"exchange with {self.bag} tile{'s' if self.bag != 1 else ''} in the bag; the {rs.name} rules need "
                f"at least {rs.exchange_limit}",
                event.line,
            )
        if event.count > self.rack_sizes[p] or event.count < 1:
            self.fail(f"exchange of {event.count} tiles from a rack of {self.rack_sizes[p]}", event.line)
        if event.move is not None and complete:
            missing = Counter(event.move.tiles) - Counter(rack)
            if missing:
                self.fail(
                    f"exchange {event.move.gcg()}: rack {event.rack} does not hold "
                    f"{rs.alphabet.rack_string(list(missing.elements()))}",
                    event.line,
                )
        if event.score:
            self.fail(f"an exchange scores 0, the record says {event.score:+d}", event.line)
        if event.move is not None and complete:
            kept = Counter(rack)
            kept.subtract(event.move.tiles)
            self.kept[p] = +kept
        else:
            self.kept[p] = None
        self.scores[p] += event.score
        self.zero_turns += 1
        self.last_play = None
        return record

    def on_pass(self, event: GCGEvent, p: int) -> dict:
        rack, complete = self.rack_of(event, p)
        record = self.turn_record(event, p, rack, complete, event.move, 0)
        if event.score:
            self.fail(f"a pass scores 0, the record says {event.score:+d}", event.line)
        self.kept[p] = Counter(rack) if complete else None
        self.scores[p] += event.score
        self.zero_turns += 1
        self.last_play = None
        return record

    # --- adjustments ---------------------------------------------------------------------------
    def on_phony(self, event: GCGEvent, p: int) -> None:
        last = self.last_play
        if last is None or last["p"] != p:
            self.fail(f"'--' withdraws a play, but {event.nick}'s last event is not a play", event.line)
            self.scores[p] += event.score
            return
        if event.score != -last["score"]:
            self.fail(f"the withdrawn play scored {last['score']:+d}; '--' should be {-last['score']:+d}", event.line)
        for r, c, _ in last["placed"]:
            self.board[r, c] = 0
        k = len(last["placed"])
        self.bag += last["drawn"]
        self.rack_sizes[p] += k - last["drawn"]
        self.kept[p] = Counter(last["rack"]) if last["rack"] is not None else None
        self.zero_turns = last["zero_turns"] + 1
        last["record"]["withdrawn"] = True
        self.result.phonies = [ph for ph in self.result.phonies if ph[0] != last["line"]]
        self.last_play = None
        self.scores[p] += event.score

    def on_challenge(self, event: GCGEvent, p: int) -> None:
        if event.score < 0:
            self.fail(f"a challenge bonus is not negative, the record says {event.score:+d}", event.line)
        self.scores[p] += event.score

    def on_time(self, event: GCGEvent, p: int) -> None:
        if event.score > 0:
            self.fail(f"a time penalty is not positive, the record says {event.score:+d}", event.line)
        self.scores[p] += event.score

    def on_out(self, event: GCGEvent, p: int) -> None:
        rs = self.rs
        a = rs.alphabet
        tiles = a.rack(event.tiles)
        value = rs.rack_value(tiles)
        if self.bag or self.rack_sizes[p]:
            self.fail(
                f"{event.nick} gets a going-out bonus but has not played out "
                f"({self.rack_sizes[p]} tiles on his rack, {self.bag} in the bag)",
                event.line,
            )
        elif self.n == 2:
            leftover = Counter(tiles)
            unseen = +self.unseen()
            if leftover != unseen:
                self.fail(
                    f"the opponent's leftover is {a.rack_string(list(unseen.elements())) or 'nothing'}, "
                    f"the record says ({event.tiles})",
                    event.line,
                )
        expected = 2 * value if rs.end_rule == "tournament" else value
        other = value if rs.end_rule == "tournament" else 2 * value
        if event.score != expected:
            if event.score == other:
                self.result.notes.append(
                    f"line {event.line}: the going-out bonus follows the "
                    f"{'club' if rs.end_rule == 'tournament' else 'tournament'} rule, not the ruleset's {rs.end_rule} rule"
                )
            else:
                self.fail(
                    f"({event.tiles}) is worth {value}; going out adds {expected} under the {rs.end_rule} rule, "
                    f"the record says {event.score:+d}",
                    event.line,
                )
        self.scores[p] += event.score
        self.over_line = self.over_line or event.line

    def on_rack_penalty(self, event: GCGEvent, p: int) -> None:
        rs = self.rs
        tiles = rs.alphabet.rack(event.tiles)
        value = rs.rack_value(tiles)
        if event.rack and sorted(rs.alphabet.rack(event.rack)) != sorted(tiles):
            self.fail(f"{event.nick} subtracts ({event.tiles}) but holds {event.rack}", event.line)
        kept = self.kept[p]
        if kept is not None and +kept != Counter(tiles) and self.bag == 0:
            self.fail(
                f"{event.nick} kept {rs.alphabet.rack_string(list(kept.elements()))} but subtracts ({event.tiles})",
                event.line,
            )
        if event.score != -value:
            self.fail(f"({event.tiles}) is worth {value}: the penalty is {-value}, the record says {event.score:+d}", event.line)
        self.scores[p] += event.score
        self.over_line = self.over_line or event.line

    # --- the opponent's racks ------------------------------------------------------------------
    def finish_turns(self, raw: list[dict]) -> list[ReplayTurn]:
        turns = []
        for i, t in enumerate(raw):
            opp = None
            if self.n == 2:
                q = 1 - t["player"]
                nxt = next((u for u in raw[i + 1 :] if u["player"] == q), None)
                if t["bag_count"] == 0 and t["rack_complete"]:
                    opp = self.unseen_at(t["board"], t["rack"])
                elif nxt is not None and nxt["rack_complete"] and t["rack_complete"]:
                    opp = nxt["rack"]
                    if Counter(opp) - self.unseen_at(t["board"], t["rack"], as_counter=True):
                        opp = None
            turns.append(ReplayTurn(number=i + 1, opponent_rack=opp, **t))
        return turns

    def unseen_at(self, board: np.ndarray, rack, as_counter: bool = False):
        c = Counter({t: k for t, k in enumerate(self.rs.counts) if k})
        for t in board[board != 0].tolist():
            c[0 if t & BLANK else t & LETTER_MASK] -= 1
        c.subtract(rack)
        c = +c
        return c if as_counter else tuple(sorted(c.elements()))

