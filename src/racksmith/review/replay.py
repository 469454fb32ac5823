"""Replay a GCG record: every play checked for legality (board and rack), its score recomputed,
every running total and end-of-game adjustment checked; the position before any turn.

A record is authoritative about words: a phony that was not challenged off stood in the game, so
words are only looked up when asked (``check_words=True``), and the ones not in the lexicon are
listed in :attr:`Replay.phonies`, never as errors. Errors (:class:`~racksmith.errors.GCGError`, with
the line) are raised at once with ``strict=True`` or collected in :attr:`Replay.errors`; after an
error the replay goes on from the recorded values, so that one slip is reported once (a running
total back on the sum the plays make, after one stated wrong, is a note, not a second error: the
slip was a typo of that line). A rack line
the record contradicts (a typo in an annotated record: it lacks a tile the player kept or plays)
is an error that is set aside (:class:`RackSlip`): the play is made with the tiles it plays, and
every position after it is the game's.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from .. import _args
from ..core import turns
from ..core.move import Move
from ..core.position import LexiconLike, Position
from ..core.turns import EventKind
from ..core.validation import ANY_WORD, check_move
from ..errors import GCGError, IllegalMoveError, PositionError, RacksmithError
from ..formats.gcg import UNKNOWN_RACK, GCGEvent, GCGGame, parse_gcg, read_gcg
from ..rules.alphabet import BLANK, LETTER_MASK, THROUGH, Tiles
from ..rules.ruleset import Ruleset


def _same(a: Any, b: Any) -> bool:
    """Field equality where a field may be a NumPy array (whose ``==`` is elementwise)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and bool(np.array_equal(a, b))
    return bool(a == b)


@dataclass(frozen=True, slots=True)
class ReplayTurn:
    """A turn (play, exchange or pass) and the position before it.

    ``rack`` is the mover's rack as recorded (empty when the record does not show it;
    ``rack_complete`` is False then, or when it shows fewer tiles than the player held, or when
    the record contradicts it: ``rack_slip`` then says how, see :class:`RackSlip`) — but for a
    rack the record shows in part or not at all whose tiles are certain all the same: with the bag
    empty and the opponent's rack known (two-player games: recorded whole at his next turn, or at
    the game's end when he has no turn left), the mover holds every other unseen tile; ``rack`` is
    then those tiles, ``rack_complete`` True and ``rack_inferred`` True (the record's rack is the
    event's, :attr:`GCGEvent.rack`);
    ``opponent_rack`` the other player's rack when the record reveals it (two-player games: his rack
    at his next turn, recorded whole, however this turn's rack is recorded; or every unseen tile
    once the bag is empty, when this turn's rack is recorded whole), else None;
    :meth:`Replay.position` knows the mover's rack only when ``rack_complete``; racks are
    :class:`~racksmith.rules.alphabet.Tiles`. ``move`` is the
    canonical move (plays resolved, with the score racksmith computes); ``withdrawn`` tells that a
    challenge took the play back; ``failed_challenge`` that the turn is a pass the record marks as
    a failed challenge of the play before (:func:`is_failed_challenge`: the turn lost under the
    double-challenge rule, not a pass the player chose).
    ``shown``: by player (the record's order), the tiles everyone knows he holds before this turn:
    those of his plays withdrawn after a challenge (seen on the board, then back on his rack) that
    he has not played since; his exchange forgets them (its tiles are not seen). Empty racks when
    nothing is known so; :meth:`Replay.position` gives them as a rack known in part.
    """

    number: int
    player: int
    event: GCGEvent
    board: np.ndarray
    scores: tuple[int, ...]
    rack: Tiles
    rack_complete: bool
    opponent_rack: Tiles | None
    bag_count: int
    zero_turns: int
    move: Move | None
    score: int
    bingo: bool = False
    withdrawn: bool = False
    failed_challenge: bool = False
    rack_slip: str | None = None
    shown: tuple[Tiles, ...] = ()
    rack_inferred: bool = False

    def __post_init__(self) -> None:
        _read_only_board(self)

    def __setstate__(self, state: list) -> None:
        """Unpickled (or copied): the fields as they were, the board read-only again."""
        for name, value in zip(self.__slots__, state):  # (the fields, in order: what the dataclass pickles)
            object.__setattr__(self, name, value)
        _read_only_board(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ReplayTurn):
            return NotImplemented
        return all(_same(getattr(self, f), getattr(other, f)) for f in self.__slots__)

    def __hash__(self) -> int:
        return hash((self.number, self.player, self.scores, self.score))

    @property
    def line(self) -> int:
        return self.event.line


def _read_only_board(turn: ReplayTurn) -> None:
    """Make the turn's board read-only, as the turn is frozen (:meth:`Replay.position` reads it): a
    view of the board given, so that the array the caller holds stays as it was."""
    board = turn.board
    if isinstance(board, np.ndarray) and board.flags.writeable:
        board = board.view()
        board.flags.writeable = False
        object.__setattr__(turn, "board", board)


#: the tag of a failed challenge's pass: under the double-challenge rule a challenge that fails costs
#: the challenger his turn, and GCG has no line for it: Macondo (and Woogles.io, which writes its
#: records with Macondo) writes a pass, ``>b: DEIILTZ - +0 0``, followed by ``#note
#: #unsuccessful-challenge``
FAILED_CHALLENGE_TAG = "#unsuccessful-challenge"
_FAILED_CHALLENGE_RE = re.compile(r"(?<!\S)#unsuccessful-challenge(?!\S)", re.IGNORECASE)


def is_failed_challenge(event: GCGEvent) -> bool:
    """The event is a pass that its note marks as a failed challenge (:data:`FAILED_CHALLENGE_TAG`,
    as a word of the note, in any case): the turn the challenger lost, not a pass he chose. A
    pass without the tag may be one all the same (a record written otherwise): GCG cannot tell."""
    return event.kind == EventKind.PASS and bool(_FAILED_CHALLENGE_RE.search(event.note or ""))


@dataclass(frozen=True, slots=True)
class TotalSlip:
    """A running total of the record that is not the one the replay carried (collected mode): at
    ``line``, player ``player``'s total is ``computed`` (his total the replay went on from, plus the
    events since), the record says ``recorded``. The replay goes on from the recorded total, so
    ``recorded - computed`` is how far the totals it carries from there are off the sums the plays
    make (:meth:`Replay.played_scores` takes it off).

    ``error`` True: a total stated wrong; ``message`` is the error's (:attr:`Replay.errors` holds it
    too, :meth:`Replay.total_errors` lists them). ``error`` False: after totals of his stated wrong,
    the record's total is back on the sum the plays make (the slips were typos of their lines):
    not an error, ``recorded - computed`` cancels the slips before, and ``message`` is the note
    (:attr:`Replay.notes` holds it too)."""

    line: int
    player: int
    recorded: int
    computed: int
    message: str
    error: bool = True


@dataclass(frozen=True, slots=True)
class RackSlip:
    """A rack line the record contradicts (collected mode): at ``line``, player ``player``'s rack
    as written lacks tiles he kept from his previous turn or tiles the turn plays or gives back,
    holds more tiles than he has or tiles the set no longer has. The rest of the record tells the
    game all the same (a play is checked against the tiles it plays, which must be among those
    unseen): the board and the scores after it are the game's, only the rack the player held at
    that turn is not known (:attr:`ReplayTurn.rack_complete` False, :attr:`ReplayTurn.rack_slip`
    the message). ``message`` is the error's (:attr:`Replay.errors` holds it too)."""

    line: int
    player: int
    message: str


@dataclass(slots=True)
class Replay:
    """The result of :func:`replay`: the turns with their positions, the final position and scores,
    the errors found (collected mode) and, with ``check_words``, the words not in the lexicon.
    ``total_slips``: the running totals that are not those the replay carried (:class:`TotalSlip`):
    the errors that are only a total stated wrong (every position is known all the same), and the
    totals back on the sum the plays make after such errors (``error`` False: notes).
    ``rack_slips``: the errors that are only a rack line the record contradicts
    (:class:`RackSlip`): every position is known but that turn's rack.
    ``opcodes``: the CGP opcodes the positions carry (``lex`` with the record's ``#lexicon``, as
    Woogles.io writes its positions, when a CGP reader can take it)."""

    record: GCGGame
    ruleset: Ruleset
    turns: list[ReplayTurn] = field(default_factory=list)
    board: np.ndarray | None = None
    scores: list[int] = field(default_factory=list)
    errors: list[GCGError] = field(default_factory=list)
    phonies: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    over: bool = False
    lexicon: "LexiconLike | None" = None  #: the lexicon given to the replay (None: the ruleset's)
    zero_turns: int = 0  #: the count of consecutive scoreless turns at the end
    end_racks: dict[int, Tiles] = field(default_factory=dict)  #: by player: the racks ``#rack1``, ``#rack2``... give, or the end of the game's lines
    #: the end-of-game adjustments the game's end calls for and the record lacks (each also a note)
    lacking: list[str] = field(default_factory=list)
    #: for each of :attr:`lacking` whose points are known (the going-out bonus of a two-player game,
    #: the penalty of a rack known at the end): (player, points it adds to his score)
    lacking_points: list[tuple[int, int]] = field(default_factory=list)
    #: the end-of-game adjustments the record leaves out that the replay applied, as the lines they would
    #: be (each also a note): the rack penalties of a game ended by scoreless turns that Quackle takes off
    #: silently, writing the last passer's line only (``scores`` are the game's final scores)
    applied: list[GCGEvent] = field(default_factory=list)
    total_slips: list[TotalSlip] = field(default_factory=list)
    rack_slips: list[RackSlip] = field(default_factory=list)
    opcodes: tuple[tuple[str, str], ...] = ()

    def __eq__(self, other: object) -> bool:
        # by value, the board compared as an array; ``lexicon`` (what the words were checked in) is not compared
        if not isinstance(other, Replay):
            return NotImplemented
        return all(_same(getattr(self, f), getattr(other, f)) for f in self.__slots__ if f != "lexicon")

    @property
    def players(self) -> list[str]:
        return [p.nick for p in self.record.players]

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def complete(self) -> bool:
        """The record reaches the game's end (``over``) with the adjustments that end calls for
        (nothing ``lacking``: the going-out bonus, the rack penalties) and every line of it
        replayed (``ok``)."""
        return self.over and not self.errors and not self.lacking

    @property
    def status(self) -> str:
        """Where the record stands, in words: ``complete``; ``finished, lacking ... (see the
        notes)`` (the game's end is reached without an error, but the record lacks adjustments that
        end calls for: :attr:`lacking`); ``ends with errors`` (the end is reached, with errors);
        ``not finished``."""
        if self.complete:
            return "complete"
        if self.over and not self.errors:
            what = [w.split(" (", 1)[0] for w in self.lacking]  # (the nick is one word)
            return f"finished, lacking {_listed(what)} (see the notes)" if what else "finished"
        return "ends with errors" if self.over else "not finished"

    def final_scores(self) -> dict[str, int]:
        return dict(zip(self.players, self.scores))

    def end_scores(self) -> tuple[int, ...] | None:
        """The scores at the game's end, the adjustments the record lacks (:attr:`lacking`) added
        when every one of them is known (:attr:`lacking_points`: a record whose last line, the
        going-out bonus, was not written); None when the record does not reach the end, or lacks
        an adjustment whose points are not known."""
        if not self.over or len(self.lacking_points) != len(self.lacking):
            return None
        scores = list(self.scores)
        for q, points in self.lacking_points:
            scores[q] += points
        return tuple(scores)

    def played_scores(self, turn: int) -> tuple[int, ...]:
        """The scores before turn ``turn`` (1-based), by player, as the plays and adjustments make
        them: the recorded running totals the replay went on from (:attr:`ReplayTurn.scores`) less
        the offsets of the totals before it (:attr:`total_slips`: a total stated wrong, and the
        one back on the plays' sum that cancels it)."""
        turn = self._turn_number(turn)
        if not 1 <= turn <= len(self.turns):
            raise GCGError(f"turn {turn} does not exist: the game has turns 1 to {len(self.turns)}")
        t = self.turns[turn - 1]
        scores = list(t.scores)
        for slip in self.total_slips:
            if slip.line < t.line and 0 <= slip.player < len(scores):
                scores[slip.player] -= slip.recorded - slip.computed
        return tuple(scores)

    def total_errors(self) -> list[GCGError]:
        """The errors that are only a running total stated wrong (the :attr:`total_slips` that are
        errors)."""
        slips = {(s.line, s.message) for s in self.total_slips if s.error}
        return [e for e in self.errors if (e.line, e.message) in slips]

    def rack_errors(self) -> list[GCGError]:
        """The errors that are only a rack line the record contradicts (:attr:`rack_slips`)."""
        slips = {(s.line, s.message) for s in self.rack_slips}
        return [e for e in self.errors if (e.line, e.message) in slips]

    def position(self, turn: int | None = None, *, opponent_rack: bool = True) -> Position:
        """The position before turn ``turn`` (1-based; None or ``len(turns) + 1`` = after the last
        event), the mover first. The mover's rack is the one recorded when the record shows it
        whole, or the tiles it certainly holds though the record shows them in part or not at all
        (the bag empty, the opponent's rack known: :attr:`ReplayTurn.rack_complete`,
        :attr:`ReplayTurn.rack_inferred`); else a rack not recorded, or recorded in part (the
        tiles played only, as Woogles and annotators write an opponent's), is not known: empty,
        with its flag in :attr:`Position.racks_known` False, so that :attr:`Position.rack_sizes`
        and :attr:`Position.bag_count` count the tiles the player really holds (the tiles shown
        are in :attr:`ReplayTurn.rack`). Such a mover has no move in :meth:`Position.moves` but
        the pass, and the analyses (``best_play``, ``simulate``) refuse him until the rack is
        given. The opponent's rack is filled in when the record reveals it (two-player games), else
        not known; ``opponent_rack=False`` leaves it unknown all the same (the position as the mover
        saw it). A rack not known is known in part (:attr:`Position.racks_partial`) while the bag
        holds tiles when the mover saw some of its tiles: those of the player's plays withdrawn
        after a challenge that he has not played since (:attr:`ReplayTurn.shown`; his exchange
        forgets them), as many as the tiles the mover cannot see allow; all of his rack when they
        are a full rack (a withdrawn bingo: the rack is known). After the last event the racks are
        those the game's last lines state (the leftover of a player gone out, each rack of a game
        ended by scoreless turns), or an unfinished game's ``#rack1``, ``#rack2``... pragmas (as
        Quackle writes them), else those that follow from the record: a rack recorded whole at the
        player's last turn less the tiles that turn played, when it drew none (the bag was empty,
        or a pass); and once the bag is empty, the one rack left unknown is the tiles unseen. Any
        other rack is not known (empty, or known in part as above; its flag False), the mover's
        included. The positions carry :attr:`opcodes` (``lex``).

        A rack not known holds as many tiles as the player holds (:attr:`Position.rack_sizes`):
        a full rack while the bag has tiles; once the bag is empty, what the turns before left
        him (in a game of three players or more, not a full rack each "in order"), which the
        position is given (``rack_sizes``) and its CGP writes where it must (``rsz``)."""
        n = len(self.turns)
        if turn is None:
            turn = n + 1
        turn = self._turn_number(turn)
        opponent_rack = _args.flag(opponent_rack, "opponent_rack", GCGError)
        if not 1 <= turn <= n + 1:
            raise GCGError(f"turn {turn} does not exist: the game has turns 1 to {n} (and {n + 1} for the end)")
        players = len(self.record.players)
        if turn == n + 1:
            mover = (self.turns[-1].player + 1) % players if self.turns else 0
            order = [(mover + i) % players for i in range(players)]
            known = [i in self.end_racks for i in order]
            if not opponent_rack:
                known[1:] = [False for _ in known[1:]]
            racks = [self.end_racks[i] if k else () for i, k in zip(order, known)]
            held = None if all(known) else self._held(turn)
            scores = [self.scores[i] for i in order]
            pos = self._position_of(self.board, order, racks, scores, self.zero_turns, known, held)
            if self.over or not pos.bag_count or not self.turns:
                return pos
            last = self.turns[-1]
            shown = _shown_after(list(last.shown), last.player, last.event.kind, last.move, last.withdrawn)
            if not self._fill_shown(self.board, order, racks, known, shown):
                return pos
            return self._position_of(self.board, order, racks, scores, self.zero_turns, known, held)
        t = self.turns[turn - 1]
        order = [(t.player + i) % players for i in range(players)]
        racks: list[tuple[int, ...]] = [t.rack if t.rack_complete else (), *(() for _ in order[1:])]
        known = [t.rack_complete, *(False for _ in order[1:])]
        if opponent_rack and t.opponent_rack is not None and players == 2:
            racks[1] = t.opponent_rack
            known[1] = True
        if t.bag_count > 0:
            self._fill_shown(t.board, order, racks, known, t.shown)
        held = self._held(turn) if t.bag_count == 0 and not all(known) else None  # (else each a full rack)
        return self._position_of(t.board, order, racks, [t.scores[i] for i in order], t.zero_turns, known, held)

    def _position_of(self, board: np.ndarray, order: list[int], racks: list, scores: list[int], zero_turns: int,
                     known: list[bool], held: "list[int] | None") -> Position:
        """A position of :meth:`position`, the players in ``order``; ``held``: how many tiles each
        player holds (the record's order: :meth:`_held`), given for the racks not known."""
        sizes = None if held is None else [None if k else held[q] for q, k in zip(order, known)]
        try:
            return Position(self.ruleset, board, racks, scores, zero_turns, self.opcodes, lexicon=self.lexicon,
                            racks_known=known, rack_sizes=sizes)
        except PositionError:
            if sizes is None:
                raise
        # (sizes that do not fit the racks: a record whose errors the replay went past; its racks'
        # sizes are then the default rule's, as a rack's tiles are what the replay took them for)
        return Position(self.ruleset, board, racks, scores, zero_turns, self.opcodes, lexicon=self.lexicon,
                        racks_known=known)

    def _held(self, turn: int) -> "list[int] | None":
        """How many tiles each player (the record's order) holds before turn ``turn`` (``len(turns)
        + 1``: after the last event), from the boards and the bag counts of the turns: a play takes
        the tiles it adds to the board from its player's rack, and he draws as many as the bag then
        gives; a play withdrawn, an exchange or a pass leaves his rack as it was. None when they do
        not add up (a record whose errors the replay went past)."""
        rs = self.ruleset
        turns_ = self.turns
        players = len(self.record.players)
        if not turns_ or self.board is None:
            return None
        held = [rs.rack_size] * players
        bag = rs.total_tiles - rs.rack_size * players
        counts = [int(np.count_nonzero(t.board)) for t in turns_[:turn]]
        if turn > len(turns_):
            counts.append(int(np.count_nonzero(self.board)))
        for i, t in enumerate(turns_[: turn - 1]):
            if t.bag_count != bag or not 0 <= t.player < players:
                return None
            placed = counts[i + 1] - counts[i]
            drawn = turns.draw_count(placed, bag) if placed > 0 else 0
            held[t.player] += drawn - placed
            bag -= drawn
        if min(held) < 0 or sum(held) + bag + counts[turn - 1] != rs.total_tiles:
            return None
        return held

    def _fill_shown(self, board: np.ndarray, order: list[int], racks: list, known: list[bool],
                    shown: "tuple[Tiles, ...] | list[Tiles]") -> bool:
        """Give each rack not known (after the mover's, in the position's ``order``) the tiles of it
        the mover saw (``shown``, by player: :attr:`ReplayTurn.shown`), as many of each as the tiles
        he cannot see hold (the board and the racks known taken off): a rack known in part, or
        known when they are a full rack. Changes ``racks`` and ``known``; True when it gave any."""
        if not any(shown):
            return False
        rs = self.ruleset
        unseen = turns.unseen_counts(rs, board, [r for r, k in zip(racks, known) if k])
        filled = False
        for i in range(1, len(order)):
            q = order[i]
            if known[i] or q >= len(shown) or not shown[q]:
                continue
            tiles = []
            for tile in shown[q]:
                if unseen[tile] > 0:
                    unseen[tile] -= 1
                    tiles.append(tile)
            if not tiles or len(tiles) > rs.rack_size:
                continue
            racks[i] = rs.alphabet.tiles(tiles)
            known[i] = len(tiles) == rs.rack_size  # (the bag holds tiles: his rack is full)
            filled = True
        return filled

    def _turn_number(self, turn: Any) -> int:
        if _args.is_whole(turn):
            return int(turn)
        n = len(self.turns)
        raise GCGError(f"a turn is a whole number, 1 to {n} (and {n + 1} for the end), or None for the end, got "
                       f"{_args.show(turn)}")

    def cgp(self, turn: int | None = None) -> str:
        return self.position(turn).cgp()

    def errors_before(self, turn: int | None = None) -> list[GCGError]:
        """The errors met before turn ``turn`` (1-based; None = the end): those that make the
        position before it unreliable. An error without a line (no players...) counts everywhere;
        a rack line the record contradicts (:attr:`rack_slips`) counts nowhere (the board and
        scores after it are the game's; the position before that turn leaves its rack unknown)."""
        if turn is not None:
            turn = self._turn_number(turn)
        racks = self.rack_errors()
        errors = [e for e in self.errors if not any(e is x for x in racks)]
        if turn is None or not 1 <= turn <= len(self.turns):
            return errors
        line = self.turns[turn - 1].line
        return [e for e in errors if e.line < line]

    def _state(self) -> str:
        return self.status

    def __repr__(self) -> str:
        # one line (the dataclass's repr held every turn's board: 50 to 130 KB)
        scores = ", ".join(f"{_short(nick)} {score}" for nick, score in list(self.final_scores().items())[:4])
        return (f"<Replay {len(self.turns)} turn{'' if len(self.turns) == 1 else 's'}, {self._state()}, "
                f"errors {len(self.errors)}" + (f"; final {scores}" if scores else "") + ">")

    def _repr_html_(self) -> str:
        """The turns (player, rack, move, score, total, tiles in the bag), then the errors, the
        words not in the lexicon and the notes, as ``racksmith gcg replay`` lists them. Every text
        from the record (nicks, racks, notes) is escaped."""
        from ..formats import html

        nicks = self.players
        scores = ", ".join(f"{n} {s}" for n, s in self.final_scores().items())
        head = html.text(f"{len(self.turns)} turn{'' if len(self.turns) == 1 else 's'}, {self._state()}"
                         + (f"; final scores {scores}" if scores else ""))

        def flags(t: ReplayTurn) -> str:
            return ", ".join(word for word, on in (("bingo", t.bingo), ("challenged off", t.withdrawn),
                                                   ("failed challenge", t.failed_challenge)) if on)

        rows = ((t.number, t.line, nicks[t.player] if 0 <= t.player < len(nicks) else t.player, str(t.rack) or "",
                 t.event.action(), f"{t.score:+d}", t.event.total, t.bag_count, flags(t))
                for t in self.turns)
        turns = html.table(("turn", "line", "player", "rack", "move", "score", "total", "bag", ""), rows,
                           right=(0, 1, 5, 6, 7), total=len(self.turns))
        errors = None
        if self.errors:
            errors = html.table(("line", "error"), ((e.line, e.message) for e in self.errors), right=(0,),
                                caption=f"{len(self.errors)} error{'' if len(self.errors) == 1 else 's'}",
                                total=len(self.errors))
        phonies = None
        if self.phonies:
            phonies = html.table(("line", "not in the lexicon"),
                                 ((line, ", ".join(words)) for line, words in self.phonies), right=(0,),
                                 total=len(self.phonies))
        notes = None
        if self.notes:
            notes = "<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in self.notes[:html.MAX_ROWS]) + "</ul>"
        return html.block(head, turns, errors, phonies, notes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith gcg replay --json``. ``complete``: the record reaches the
        game's end and replays without an error (a record whose turns failed is not a finished game
        even when it ends with the game's last lines); ``status`` the same in words (:attr:`status`);
        ``lacking`` the end-of-game adjustments the record lacks (:attr:`lacking`)."""
        return {
            "players": self.players,
            "final_scores": self.final_scores(),
            "turns": len(self.turns),
            "complete": self.complete,
            "status": self.status,
            "lacking": list(self.lacking),
            "errors": [{"line": e.line, "message": e.message} for e in self.errors],
            "phonies": [{"line": line, "words": list(words)} for line, words in self.phonies],
            "notes": list(self.notes),
        }


def _listed(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _short(text: str, most: int = 24) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def replay_file(
    path: "str | Path",
    ruleset: "str | Ruleset | None" = None,
    lexicon: "LexiconLike | None" = None,
    *,
    check_words: bool = False,
    strict: bool = True,
) -> Replay:
    """Read and replay a GCG file (syntax errors are collected too when ``strict=False``)."""
    strict = _args.flag(strict, "strict", GCGError)
    return replay(read_gcg(path, ruleset, strict=strict), lexicon, check_words=check_words, strict=strict)


def replay_text(text: str, ruleset: "str | Ruleset | None" = None, lexicon: "LexiconLike | None" = None, *,
                check_words: bool = False, strict: bool = True) -> Replay:
    """Parse and replay GCG text (syntax errors are collected too when ``strict=False``)."""
    strict = _args.flag(strict, "strict", GCGError)
    return replay(parse_gcg(text, ruleset, strict=strict), lexicon, check_words=check_words, strict=strict)


def replay(record: GCGGame, lexicon: "LexiconLike | None" = None, *, check_words: bool = False,
           strict: bool = True) -> Replay:
    """Replay a record. ``lexicon`` (a name, path or loaded lexicon; default the ruleset's) is only
    used with ``check_words``."""
    if not isinstance(record, GCGGame):
        raise GCGError(f"record must be a GCGGame (what parse_gcg or read_gcg returns), got {_args.show(record)}: "
                       "replay a file with replay_file, a text with replay_text")
    check_words = _args.flag(check_words, "check_words", GCGError)
    strict = _args.flag(strict, "strict", GCGError)
    return _Replayer(record, lexicon, check_words, strict).run()


@dataclass(slots=True)
class _TurnDraft:
    """A turn as the replay meets it; :meth:`_Replayer.finish_turns` adds the opponent's rack."""

    player: int
    event: GCGEvent
    board: np.ndarray
    scores: tuple[int, ...]
    rack: Tiles
    rack_complete: bool
    bag_count: int
    zero_turns: int
    move: Move | None
    score: int
    bingo: bool = False
    withdrawn: bool = False
    rack_slip: str | None = None
    held: int = 0  #: how many tiles the mover holds before the turn
    rack_inferred: bool = False

    def turn(self, number: int, opponent_rack: Tiles | None, shown: tuple[Tiles, ...] = ()) -> ReplayTurn:
        return ReplayTurn(
            number=number, player=self.player, event=self.event, board=self.board, scores=self.scores,
            rack=self.rack, rack_complete=self.rack_complete, opponent_rack=opponent_rack,
            bag_count=self.bag_count, zero_turns=self.zero_turns, move=self.move, score=self.score,
            bingo=self.bingo, withdrawn=self.withdrawn, failed_challenge=is_failed_challenge(self.event),
            rack_slip=self.rack_slip, shown=shown, rack_inferred=self.rack_inferred,
        )


@dataclass(frozen=True, slots=True)
class _LastPlay:
    """The last play that stands, for a ``--`` (withdrawn) event to take back."""

    player: int
    line: int
    squares: tuple[int, ...]  #: board squares it filled
    drawn: int  #: tiles the player drew after it
    score: int
    rack: Tiles | None  #: the player's complete rack before it, when recorded
    zero_turns: int  #: the count of scoreless turns before it
    over_line: int  #: the end-of-game line before it (a play that went out ends the game)
    draft: _TurnDraft


class _Replayer:
    def __init__(self, record: GCGGame, lexicon: "LexiconLike | None", check_words: bool, strict: bool):
        rs = record.ruleset
        self.rs = rs
        self.record = record
        self.strict = strict
        self.check_words = check_words
        self.result = Replay(record, rs, errors=list(record.errors), lexicon=lexicon, opcodes=_record_opcodes(record))
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
        self.recorded = [0] * self.n  #: each player's last running total in the record (counted or not)
        #: by player: how far the total the replay carries is off the plays' sum (the slips' recorded - computed)
        self.offsets = [0] * self.n
        self.slip_lines: list[list[int]] = [[] for _ in range(self.n)]  #: by player: the lines of those slips
        self.zero_turns = 0
        self.over_line = 0
        self.last_play: _LastPlay | None = None
        self.bonus_line = 0  #: the line of the play a challenge bonus was given for (0: none)
        #: how the game ended: ("out", the player who went out) or ("zero", the last mover); None: not yet
        self.ending: tuple[str, int] | None = None
        self.out_rule: str | None = None  #: the end rule the going-out bonus followed (None: no bonus yet)
        self.counted: dict[tuple[str, int], int] = {}  #: end-of-game adjustments counted: ("out", 0) or ("rack", player) -> line
        self.to_move: int | None = None  #: the player whose turn it is (None: before the first turn)
        self.lexicon = None
        if check_words:
            probe = Position(rs, lexicon=lexicon)
            self.lexicon = probe.lexicon
        self.handlers = {
            EventKind.PLAY: self.on_play,
            EventKind.EXCHANGE: self.on_exchange,
            EventKind.PASS: self.on_pass,
            EventKind.PHONY: self.on_phony,
            EventKind.CHALLENGE: self.on_challenge,
            EventKind.OUT: self.on_out,
            EventKind.RACK_PENALTY: self.on_rack_penalty,
            EventKind.TIME: self.on_time,
        }

    # --- errors ------------------------------------------------------------------------------
    def fail(self, message: str, line: int) -> None:
        err = GCGError(message, line)
        if self.strict:
            raise err
        self.result.errors.append(err)

    def slip(self, message: str, event: GCGEvent, p: int) -> str:
        """A rack line the record contradicts (:class:`RackSlip`): an error, the rack set aside."""
        message += f"; the rack line is set aside: the rack {event.nick} held is not known there"
        self.fail(message, event.line)
        self.result.rack_slips.append(RackSlip(event.line, p, message))
        return message

    # --- main loop -----------------------------------------------------------------------------
    def run(self) -> Replay:
        drafts: list[_TurnDraft] = []
        previous: GCGEvent | None = None
        events = self.record.events
        for i, event in enumerate(events):
            try:
                p = self.record.player_index(event.nick)
            except GCGError as e:
                self.fail(e.message, event.line)
                continue
            recorded = self.recorded[p]  # the record's own previous total of the player
            self.recorded[p] = event.total
            if self.accepts_going_out(event, p, previous, events[i + 1] if i + 1 < len(events) else None):
                previous = event
                continue
            previous = event
            if self.over_line and event.kind in turns.TURN_KINDS:
                # reported and not played: the game's end (board, scores, racks) stays as it was
                self.fail(f"a turn after the end of the game (line {self.over_line}); it is not played", event.line)
                self.check_own_sum(event, recorded)
                continue
            if event.kind in turns.TURN_KINDS:
                if self.to_move is not None and p != self.to_move:
                    # reported and not played: the player to move still is
                    who = self.record.players[self.to_move].nick
                    self.fail(f"not {event.nick}'s turn: {who} is to move (the players take turns); the line is "
                              f"not played", event.line)
                    self.check_own_sum(event, recorded)
                    continue
                self.to_move = (p + 1) % self.n
            draft = self.handlers[event.kind](event, p)
            if draft is _NOT_COUNTED:
                self.check_own_sum(event, recorded)
                continue
            if draft is not None:
                drafts.append(draft)
            self.check_total(event, p)
        self.result.turns = self.finish_turns(drafts)
        self.result.board = self.board
        self.result.scores = self.scores
        self.result.over = bool(self.over_line)
        self.result.zero_turns = self.zero_turns
        if not self.over_line:
            self.read_end_racks()
            self.follow_end_racks()
        else:
            self.follow_end_racks()  # (first: the racks the end adjustments the record lacks would take off)
            self.check_end_adjustments()
        # (stable) the first error listed is the first bad line; those of no line (no players...) after
        self.result.errors.sort(key=lambda e: (not e.line, e.line))
        return self.result

    def check_end_adjustments(self) -> None:
        """The going-out bonus and the rack penalties the game's end calls for that the record
        lacks: listed in :attr:`Replay.lacking` (the record is not complete), each with a note.
        Not an error: the game was played; only its last lines are missing.

        Quackle's record of a game ended by scoreless turns is the exception: Quackle writes the
        last passer's rack penalty only and takes the other racks' values off silently. A record
        with the last passer's penalty that lacks another player's is read so: a rack known at the
        end (:attr:`Replay.end_racks`) has its value taken off, with a note (:attr:`Replay.applied`),
        so that the final scores are the game's."""
        if self.ending is None:
            return
        rs = self.rs
        a = rs.alphabet
        how, who = self.ending
        quackle = how == "zero" and ("rack", who) in self.counted  # (the last passer's line only: Quackle's)
        nick = self.record.players[who].nick if 0 <= who < len(self.record.players) else "?"
        wanted: list[tuple[str, int]] = []
        if how == "out":
            wanted.append(("out", 0))
            if (self.out_rule or rs.end_rule) == turns.EndRule.CLUB:
                wanted += [("rack", q) for q in range(self.n) if q != who and self.rack_sizes[q]]
            reason = f"{nick} went out"
        else:
            wanted += [("rack", (who + i) % self.n) for i in range(self.n) if self.rack_sizes[(who + i) % self.n]]
            reason = f"{rs.zero_turn_limit} scoreless turns in a row"
        for kind, q in wanted:
            if (kind, q) in self.counted:
                continue
            if kind == "out":
                what = f"{nick}'s going-out bonus"
                if self.n == 2:
                    left = _tiles_of_counts(turns.unseen_counts(rs, self.board))
                    points = turns.going_out_points(rs.end_rule, rs.rack_value(left))
                    what += f" ('>{nick}: ({a.rack_string(left)}) {points:+d} {self.scores[who] + points}')"
                    self.result.lacking_points.append((who, points))
            else:
                other = self.record.players[q].nick
                what = f"{other}'s rack penalty"
                held = self.result.end_racks.get(q)
                if held is not None and len(held) == self.rack_sizes[q]:
                    rack = a.rack_string(sorted(held))
                    value = rs.rack_value(list(held))
                    line = f">{other}: {rack} ({rack}) {-value:+d} {self.scores[q] - value}"
                    if quackle:
                        self.apply_penalty(q, rack, value, line)
                        continue
                    what += f" ('{line}')"
                    self.result.lacking_points.append((q, -value))
                elif quackle:
                    what += (" (Quackle writes only the last passer's penalty line, and the record does not show "
                             f"{other}'s rack: his final score is not known)")
            self.result.lacking.append(what)
            self.result.notes.append(
                f"line {self.over_line}: the game ends there ({reason}), but the record lacks {what}: "
                "it is not complete (add the line)"
            )

    def apply_penalty(self, q: int, rack: str, value: int, line: str) -> None:
        """Player ``q``'s rack penalty that a Quackle record of a game ended by scoreless turns leaves
        out (its ``line`` as GCG writes it): taken off his score, with a note."""
        nick = self.record.players[q].nick
        assert self.ending is not None  # (the game ended by scoreless turns)
        who, at = self.ending[1], self.counted["rack", self.ending[1]]
        self.scores[q] -= value
        self.result.applied.append(GCGEvent(nick, EventKind.RACK_PENALTY, -value, self.scores[q], rack=rack, tiles=rack))
        self.result.notes.append(
            f"line {at}: the record gives {self.record.players[who].nick}'s rack penalty only, as Quackle writes a game "
            f"ended by scoreless turns (it takes the other racks' values off silently): {nick}'s ({rack}) {-value:+d} "
            f"is taken off too, his final score {self.scores[q]} ('{line}')"
        )

    def accepts_going_out(self, event: GCGEvent, p: int, previous: "GCGEvent | None", following: "GCGEvent | None") -> bool:
        """A pass between another player's play that went out and that player's going-out
        bonus: the opponent accepting the play under the double-challenge rule, as Woogles records
        it (``>doug: EGOP - +0 451`` before ``>emely:  (OPEG) +14 345``). It is no turn (the game
        is over) and scores nothing."""
        last = self.last_play
        if not (event.kind == EventKind.PASS and previous is not None and previous.kind == EventKind.PLAY
                and last is not None and last.line == previous.line and last.player != p
                and self.over_line == previous.line and not self.rack_sizes[last.player] and not self.bag
                and following is not None and following.kind == EventKind.OUT and following.nick == previous.nick):
            return False
        if event.score:
            self.fail(f"a pass scores 0, the record says {event.score:+d}", event.line)
        self.check_total(event, p)
        return True

    def read_end_racks(self) -> None:
        """The racks of an unfinished game's end, from its last ``#rackN`` pragmas, checked as a
        turn's rack is (the tiles unseen, the rack's size, the tiles kept). One that does not fit is
        not used, with a note: it says nothing of the turns played (Elise writes impossible ones)."""
        rs = self.rs
        a = rs.alphabet
        given: dict[int, tuple[str, int]] = {}
        for name, value, line in self.record.pragmas:
            m = re.fullmatch(r"rack(\d{1,6})", name)
            if m and value.split():
                given[int(m.group(1)) - 1] = (value.split()[0], line)
        unseen = turns.unseen_counts(rs, self.board)
        for p, (text, line) in sorted(given.items()):
            if not 0 <= p < self.n:
                self.skip_rack(f"'#rack{p + 1}': the game has {self.n} players", line)
                continue
            try:
                rack = a.tiles(text)
            except RacksmithError as e:
                self.skip_rack(f"'#rack{p + 1} {text}': {e}", line)
                continue
            if len(rack) > self.rack_sizes[p]:
                self.skip_rack(f"'#rack{p + 1} {text}' has {len(rack)} tiles; after the turns played the rack holds "
                          f"{self.rack_sizes[p]}", line)
                continue
            over = _tiles_beyond(rack, unseen)
            if over:
                self.skip_rack(f"'#rack{p + 1} {text}' holds {a.rack_string(over)}, more than the set has left after the "
                          "tiles on the board and the other racks", line)
                continue
            kept = self.kept[p]
            lost = kept - Counter(rack) if kept is not None and len(rack) == self.rack_sizes[p] else None
            if lost:
                self.skip_rack(f"'#rack{p + 1} {text}' lacks {a.rack_string(list(lost.elements()))}, kept from the "
                          f"player's last turn", line)
                continue
            for t in rack:
                unseen[t] -= 1
            self.result.end_racks[p] = rack

    def follow_end_racks(self) -> None:
        """The end racks that follow from the record, for the players holding tiles whose rack the
        last lines or ``#rackN`` do not give: what a player kept at his last turn when that turn
        drew nothing (the bag was empty, or he passed) and his rack was recorded whole; then, with
        the bag empty, the one rack still unknown is the tiles unseen. A rack that does not fit
        (the tiles unseen, the player's rack size: after an error) is left unknown."""
        rs = self.rs
        a = rs.alphabet
        ends = self.result.end_racks
        holding = [q for q in range(self.n) if self.rack_sizes[q]]
        unseen = turns.unseen_counts(rs, self.board, [tuple(r) for r in ends.values()])
        for q in holding:
            kept = self.kept[q]
            if q in ends or kept is None or sum(kept.values()) != self.rack_sizes[q]:
                continue
            rack = sorted(kept.elements())
            if _tiles_beyond(rack, unseen):
                continue
            for t in rack:
                unseen[t] -= 1
            ends[q] = a.tiles(rack)
        unknown = [q for q in holding if q not in ends]
        if self.bag == 0 and len(unknown) == 1 and not (unseen < 0).any():
            rack = _tiles_of_counts(unseen)
            if len(rack) == self.rack_sizes[unknown[0]]:
                ends[unknown[0]] = a.tiles(rack)

    def skip_rack(self, message: str, line: int) -> None:
        self.result.notes.append(f"line {line}: {message}: not used (the end position leaves that rack unknown)")

    def check_total(self, event: GCGEvent, p: int) -> None:
        """The line's running total against the one the replay carried (:class:`TotalSlip`): one
        that differs is an error and the replay goes on from it (the record's own arithmetic
        continues from it: one slip, one error), unless it is the sum the plays make, after
        totals of the player stated wrong: the record is right again (those were typos of their
        lines), a note, and the replay goes on from it."""
        carried = self.scores[p]
        if carried == event.total:
            return
        if self.offsets[p] and event.total == carried - self.offsets[p]:
            lines = self.slip_lines[p]
            said = (f"the total at line {lines[0]} was" if len(lines) == 1 else
                    f"the totals at lines {', '.join(map(str, lines[:-1]))} and {lines[-1]} were")
            note = f"line {event.line}: {event.nick}'s running total {event.total} is the plays' sum again ({said} stated wrong)"
            self.result.notes.append(note)
            self.result.total_slips.append(TotalSlip(event.line, p, event.total, carried, note, error=False))
            self.offsets[p] = 0
            self.slip_lines[p] = []
        else:
            message = f"{event.nick}'s running total is {carried} after this event, the record says {event.total}"
            self.fail(message, event.line)
            self.result.total_slips.append(TotalSlip(event.line, p, event.total, carried, message))
            self.offsets[p] += event.total - carried
            self.slip_lines[p].append(event.line)
        self.scores[p] = event.total

    def check_own_sum(self, event: GCGEvent, recorded: int) -> None:
        """A line that is not played (refused: its error is reported) still states a running total:
        it is checked against the record's own arithmetic, the player's previous total in the
        record plus the line's score; one that does not add up is a note (the line has its error
        already: one slip, one error). The replay's scores are not changed."""
        if recorded + event.score != event.total:
            self.result.notes.append(
                f"line {event.line}: {event.nick}'s running total {event.total} is not the record's own sum: "
                f"his previous total {recorded} {event.score:+d} makes {recorded + event.score} (the line is not "
                "played: its score is not counted)"
            )

    def rack_of(self, event: GCGEvent, p: int) -> tuple[Tiles | None, bool, list[str]]:
        """The recorded rack (None when not recorded), whether it is complete, and what the record
        says against it (each a :meth:`slip`: more tiles than the player holds, tiles the set no
        longer has, tiles he kept missing; the rack is then not complete). A rack with fewer tiles
        than the player holds is a partial record (annotated games often show only the tiles
        played): accepted, but not compared with the tiles kept; like a whole one, it must hold
        the tiles its line plays or gives back (:meth:`on_play`, :meth:`on_exchange`)."""
        if not event.rack:
            return None, False, []
        a = self.rs.alphabet
        rack = a.tiles(event.rack)
        complete = len(rack) == self.rack_sizes[p]
        slips = []
        if len(rack) > self.rack_sizes[p]:
            slips.append(self.slip(
                f"{event.nick}'s rack {event.rack} has {len(rack)} tiles; after the turns so far it should hold "
                f"{self.rack_sizes[p]}", event, p,
            ))
        over = _tiles_beyond(rack, turns.unseen_counts(self.rs, self.board))
        if over:
            slips.append(self.slip(
                f"rack {event.rack} holds {a.rack_string(over)}, more than the set has left after the tiles on the board",
                event, p,
            ))
        kept = self.kept[p]
        if kept is not None and complete:
            lost = kept - Counter(rack)
            if lost:
                slips.append(self.slip(
                    f"rack {event.rack} lacks {a.rack_string(list(lost.elements()))}, kept from "
                    f"{event.nick}'s previous turn", event, p,
                ))
        return rack, complete and not slips, slips

    def draft(self, event: GCGEvent, p: int, rack: Tiles | None, complete: bool, move: Move | None, score: int,
              slips: "list[str] | None" = None) -> _TurnDraft:
        return _TurnDraft(
            player=p,
            event=event,
            board=self.board.copy(),
            scores=tuple(self.scores),
            rack=rack if rack is not None else self.rs.alphabet.tiles(),
            rack_complete=complete,
            bag_count=self.bag,
            zero_turns=self.zero_turns,
            move=move,
            score=score,
            rack_slip="; ".join(slips) if slips else None,
            held=self.rack_sizes[p],
        )

    def end_turn(self, event: GCGEvent, score: int, went_out: bool = False, placed: bool = False) -> None:
        """After a turn: the count of scoreless turns (``placed``: the turn put tiles on the board), and
        the end of the game when the player went out or the count reached the ruleset's limit
        (:mod:`racksmith.core.turns`)."""
        self.zero_turns = turns.zero_turns_after(self.zero_turns, score, placed)
        if went_out or self.zero_turns >= self.rs.zero_turn_limit:
            self.over_line = self.over_line or event.line
            if self.ending is None:
                p = self.record.player_index(event.nick)
                self.ending = ("out", p) if went_out else ("zero", p)

    # --- turns ---------------------------------------------------------------------------------
    def on_play(self, event: GCGEvent, p: int) -> _TurnDraft:
        rs = self.rs
        rack, complete, slips = self.rack_of(event, p)
        assert event.move is not None
        lacking: Counter[int] = Counter()
        if complete and rack is not None and _holds(rack, event.move):
            shown = rack  # (the common case, told at once: the tiles played are not built)
        else:
            played = rs.alphabet.tiles(_with_star_letters(_through_filled(event.move, self.board), self.board).rack_tiles())
            # a rack that lacks tiles the play uses (recorded whole, or in part: a rack shown holds at least
            # the tiles its line plays): the play is checked against the tiles it plays (it stands when it
            # is legal with them and they are among the tiles unseen)
            if rack is not None and not slips:
                lacking = Counter(played) - Counter(rack)
            if lacking and _tiles_beyond(played, turns.unseen_counts(rs, self.board)):
                lacking = Counter()  # (tiles the set no longer has: the play is refused against the rack)
            shown = rack if complete and not lacking else played
        draft = self.draft(event, p, rack, complete, None, event.score, slips)
        try:
            pos = Position(rs, self.board, (shown, ()), lexicon=self.lexicon)
        except PositionError as e:
            self.fail(str(e), event.line)
            return draft
        try:
            move = check_move(pos, event.move, ANY_WORD)
            if lacking and move.score != event.score:
                # the play as written is not the one the record scored (8D KRONAX for KRONA's +28): the
                # play line is wrong, not the rack line; checked against the rack, it is refused
                move = check_move(Position(rs, self.board, (rack, ()), lexicon=self.lexicon), event.move, ANY_WORD)
                lacking = Counter()
        except IllegalMoveError as e:
            self.fail(f"illegal play {event.action()} ({e.reason}): {e.message}", event.line)
            self.last_play = None
            self.scores[p] += event.score
            return draft
        except RacksmithError as e:
            self.fail(f"play {event.action()}: {e}", event.line)
            self.scores[p] += event.score
            return draft
        if lacking:
            slips.append(self.slip(
                f"rack {event.rack} lacks {rs.alphabet.rack_string(list(lacking.elements()))}, which "
                f"{move.notation()} plays (not_in_rack)", event, p,
            ))
            complete = draft.rack_complete = False
            draft.rack_slip = "; ".join(slips)
        if move.score != event.score:
            self.check_play_score(event, move)
        if self.check_words:
            self.look_up(pos, move, event.line)
        draft.move = move
        draft.score = move.score or 0  # check_move sets it
        squares = turns.place_tiles(self.board, move)
        k = len(squares)
        draft.bingo = k == rs.rack_size
        drawn = turns.draw_count(k, self.bag)
        self.bag -= drawn
        self.rack_sizes[p] += drawn - k
        if complete and rack is not None:
            kept = Counter(rack)
            kept.subtract(move.rack_tiles())
            self.kept[p] = +kept
        else:
            self.kept[p] = None
        self.last_play = _LastPlay(
            p, event.line, squares, drawn, event.score, rack if complete else None, self.zero_turns, self.over_line, draft
        )
        self.scores[p] += event.score
        self.end_turn(event, event.score, went_out=not self.rack_sizes[p] and not self.bag, placed=True)
        return draft

    def check_play_score(self, event: GCGEvent, move: Move) -> None:
        """A legal play whose recorded score is not the one it makes: an error; when the record's
        score may be higher by a challenge bonus Quackle wrote into it (:meth:`folded_bonus_refused`),
        the error says so and how to write it (a score typed 10 too high reads the same way, so it is
        not taken on trust)."""
        extra = event.score - (move.score or 0)
        said = f"{move.notation()} scores {move.score}, the record says {event.score:+d}"
        a = self.rs.alphabet
        split = a.unbracketed("".join(a.letter(t & LETTER_MASK) for t in move.tiles if t & LETTER_MASK))
        if split:  # (Spanish CHES: C, H, E, S, where the record may mean the CH tile)
            said += (f" (read with {', '.join(split)} as separate tiles ({', '.join(' and '.join(a.split(x)) for x in split)}): "
                     f"the tile{'s are' if len(split) > 1 else ' is'} written {', '.join(f'[{x}]' for x in split)})")
        if extra <= 0 or extra % 5:
            self.fail(said, event.line)
            return
        bonus = self.bonus_lines(event, move, extra)
        refused = self.folded_bonus_refused(event, extra)
        if refused is None:  # (an error all the same: a score typed 10 too high reads the same way)
            self.fail(f"{said}; if the {extra} points are a challenge bonus written into the play's score (Quackle "
                      "saves a bonus other than 5 so: its '+5' button pressed more than once), write them on a line "
                      f"of their own: {bonus}", event.line)
            return
        self.fail(f"{said}; if the {extra} points are a challenge bonus, write them on a line of their own "
                  f"({bonus}){refused}", event.line)

    def bonus_lines(self, event: GCGEvent, move: Move, extra: int) -> str:
        """The play line of ``event`` with the score ``move`` makes, then the line of its challenge
        bonus ``extra`` (the rack of the player's next line that shows one, as Quackle writes it)."""
        events = self.record.events
        at = next((i for i, e in enumerate(events) if e is event), len(events))
        after = next((e.rack for e in events[at + 1:] if e.nick == event.nick and e.rack
                      and e.rack != UNKNOWN_RACK and e.kind in turns.TURN_KINDS), "")
        play = replace(event, score=move.score or 0, total=event.total - extra)
        bonus = GCGEvent(event.nick, EventKind.CHALLENGE, extra, event.total, rack=after)
        return f"'{play.text()}' then '{bonus.text()}'"

    def folded_bonus_refused(self, event: GCGEvent, extra: int) -> "str | None":
        """Why a recorded score ``extra`` above the play's is not read as a challenge bonus folded
        into it, or None when it is. Quackle writes a bonus of 5 on a ``(challenge)`` line and any
        other (10, 15...: its '+5' button pressed more than once) into the play's score; so an
        ``extra`` of 5, of more than 50, a record that writes a bonus other than 5 on a line of its
        own (not Quackle's), or a play that has a ``(challenge)`` line of its own, is an error."""
        events = self.record.events
        if extra == 5:
            return " (Quackle writes a bonus of 5 so)"
        if extra > 50:
            return ""
        other = next((e for e in events if e.kind == EventKind.CHALLENGE and e.score != 5), None)
        if other is not None:
            return f" (as line {other.line} writes the bonus {other.score:+d})"
        at = next((i for i, e in enumerate(events) if e is event), len(events))
        for e in events[at + 1:]:
            if e.kind in turns.TURN_KINDS:
                break
            if e.kind == EventKind.CHALLENGE and e.nick == event.nick:
                return f" (the play's bonus is on line {e.line} already)"
        return None

    def look_up(self, pos: Position, move: Move, line: int) -> None:
        try:
            check_move(pos, move, self.lexicon)
        except IllegalMoveError as e:
            if e.reason == "invalid_words":
                self.result.phonies.append((line, e.words))

    def on_exchange(self, event: GCGEvent, p: int) -> _TurnDraft:
        rs = self.rs
        rack, complete, slips = self.rack_of(event, p)
        draft = self.draft(event, p, rack, complete, event.move, 0, slips)
        given = max(event.count, 1)
        if turns.exchange_refusal(rs, self.bag, given):
            self.fail(
                f"exchange with {self.bag} tile{'s' if self.bag != 1 else ''} in the bag; the {rs.name} rules need "
                f"at least {max(rs.exchange_limit, given)}"
                + (f" (it gives back {given})" if given > rs.exchange_limit else ""),
                event.line,
            )
        if event.count > self.rack_sizes[p] or event.count < 1:
            self.fail(f"exchange of {event.count} tiles from a rack of {self.rack_sizes[p]}", event.line)
        if event.move is not None and rack is not None and not slips:  # (a rack shown in part too)
            missing = Counter(event.move.tiles) - Counter(rack)
            if missing:  # (an exchange puts nothing on the board: the rest of the record stands)
                slips.append(self.slip(
                    f"exchange {event.move.gcg()}: rack {event.rack} does not hold "
                    f"{rs.alphabet.rack_string(list(missing.elements()))}", event, p,
                ))
                complete = draft.rack_complete = False
                draft.rack_slip = "; ".join(slips)
        if event.score:
            self.fail(f"an exchange scores 0, the record says {event.score:+d}", event.line)
        if event.move is not None and complete and rack is not None:
            kept = Counter(rack)
            kept.subtract(event.move.tiles)
            self.kept[p] = +kept
        else:
            self.kept[p] = None
        self.scores[p] += event.score
        self.last_play = None
        self.end_turn(event, 0)
        return draft

    def on_pass(self, event: GCGEvent, p: int) -> _TurnDraft:
        rack, complete, slips = self.rack_of(event, p)
        draft = self.draft(event, p, rack, complete, event.move, 0, slips)
        if event.score:
            self.fail(f"a pass scores 0, the record says {event.score:+d}", event.line)
        self.kept[p] = Counter(rack) if complete and rack is not None else None
        self.scores[p] += event.score
        self.last_play = None
        self.end_turn(event, 0)
        return draft

    # --- adjustments ---------------------------------------------------------------------------
    def on_phony(self, event: GCGEvent, p: int) -> None:
        last = self.last_play
        if last is None or last.player != p:
            self.fail(f"'--' withdraws a play, but {event.nick}'s last event is not a play", event.line)
            self.scores[p] += event.score
            return
        assert last.draft.move is not None  # the play's own (set before it was placed)
        # the old way of writing it, as in Quackle's own test record (WSC 2001): '-- +0 59', the score
        # left +0 and the total back where it was before the play (Quackle reads no score on a '--' line)
        old_style = event.score == 0 and last.score != 0 and event.total == self.scores[p] - last.score
        if old_style:
            rack = f" {event.rack}" if event.rack else ""
            self.result.notes.append(
                f"line {event.line}: '-- +0 {event.total}' withdraws {last.draft.move.notation()} ({last.score:+d}, "
                f"line {last.line}) the old way, its score left +0 and the total back to {event.total}; the score of a "
                f"'--' line is the play's taken off: '>{event.nick}:{rack} -- {-last.score:+d} {event.total}'")
        elif event.score != -last.score:
            self.fail(f"the withdrawn play scored {last.score:+d}; '--' should be {-last.score:+d}", event.line)
        turns.unplace_tiles(self.board, last.squares, last.draft.move)  # (the stars it took back go back too)
        k = len(last.squares)
        self.bag += last.drawn
        self.rack_sizes[p] += k - last.drawn
        self.kept[p] = Counter(last.rack) if last.rack is not None else None
        self.zero_turns = last.zero_turns
        self.over_line = last.over_line
        if not self.over_line:
            self.ending = None
        last.draft.withdrawn = True
        self.result.phonies = [ph for ph in self.result.phonies if ph[0] != last.line]
        self.last_play = None
        self.scores[p] += -last.score if old_style else event.score
        self.end_turn(event, 0)  # the withdrawn play's turn scored nothing

    def on_challenge(self, event: GCGEvent, p: int) -> None:
        if event.score < 0:
            self.fail(f"a challenge bonus is not negative, the record says {event.score:+d}", event.line)
        last = self.last_play
        if last is None or last.player != p:
            self.fail(f"a challenge bonus goes to the player whose play was challenged, but {event.nick}'s last "
                      "event is not a play that stands", event.line)
        elif self.bonus_line == last.line:
            self.fail(f"a second challenge bonus for {event.nick}'s play of line {last.line}", event.line)
        else:
            self.bonus_line = last.line
        self.scores[p] += event.score

    def on_time(self, event: GCGEvent, p: int) -> None:
        if event.score > 0:
            self.fail(f"a time penalty is not positive, the record says {event.score:+d}", event.line)
        self.scores[p] += event.score

    def on_out(self, event: GCGEvent, p: int) -> "None | object":
        rs = self.rs
        a = rs.alphabet
        tiles = a.rack(event.tiles)
        value = rs.rack_value(tiles)
        if ("out", 0) in self.counted:
            self.fail(f"a going-out bonus is already counted at line {self.counted['out', 0]}; this one is not counted "
                      "(remove the line)", event.line)
            return _NOT_COUNTED
        if self.bag or self.rack_sizes[p]:
            self.fail(
                f"{event.nick} gets a going-out bonus but has not played out "
                f"({self.rack_sizes[p]} tiles on his rack, {self.bag} in the bag)",
                event.line,
            )
        else:  # the bag empty, the unseen tiles are the others' leftover (summed in one line, as Game.gcg writes it)
            unseen = _tiles_of_counts(turns.unseen_counts(rs, self.board))
            if sorted(tiles) != unseen:
                whose = "the opponent's leftover" if self.n == 2 else "the other players' leftover, together,"
                self.fail(f"{whose} is {a.rack_string(unseen) or 'nothing'}, the record says ({event.tiles})", event.line)
            elif self.n == 2:  # the end position shows it
                self.result.end_racks[1 - p] = a.tiles(tiles)
        rule = turns.EndRule(rs.end_rule)
        other_rule = turns.EndRule.CLUB if rule == turns.EndRule.TOURNAMENT else turns.EndRule.TOURNAMENT
        expected = turns.going_out_points(rule, value)
        self.out_rule = rule
        if event.score != expected:
            if event.score == turns.going_out_points(other_rule, value):
                self.out_rule = other_rule
                self.result.notes.append(
                    f"line {event.line}: the going-out bonus follows the {other_rule} rule, not the ruleset's {rule} rule"
                )
            else:
                self.fail(
                    f"({event.tiles}) is worth {value}; going out adds {expected} under the {rule} rule, "
                    f"the record says {event.score:+d}",
                    event.line,
                )
        self.scores[p] += event.score
        self.over_line = self.over_line or event.line
        if self.ending is None:
            self.ending = ("out", p)
        self.counted["out", 0] = event.line
        return None

    def on_rack_penalty(self, event: GCGEvent, p: int) -> "None | object":
        rs = self.rs
        a = rs.alphabet
        tiles = a.rack(event.tiles)
        value = rs.rack_value(tiles)
        rule = turns.EndRule(rs.end_rule)
        if not self.over_line or self.ending is None:
            self.fail(
                f"a rack penalty ({event.tiles}) applies only when the game has ended ({rs.zero_turn_limit} scoreless "
                f"turns in a row: {self.zero_turns} so far; or, under the club rule, another player going out); "
                "it is not counted",
                event.line,
            )
            return _NOT_COUNTED
        if ("rack", p) in self.counted:
            self.fail(f"{event.nick}'s rack penalty is already counted at line {self.counted['rack', p]}; this one is "
                      "not counted (remove the line)", event.line)
            return _NOT_COUNTED
        if self.ending[0] == "out":
            followed = self.out_rule or rule
            if self.ending[1] == p:
                self.fail(f"{event.nick} went out: there is no rack of his to subtract; it is not counted", event.line)
                return _NOT_COUNTED
            if followed == turns.EndRule.TOURNAMENT:
                self.fail(
                    f"under the tournament rule the player who goes out adds twice the others' leftover and nothing is "
                    f"subtracted from {event.nick}; this penalty is not counted (remove the line, or replay with a "
                    "club-rule ruleset)",
                    event.line,
                )
                return _NOT_COUNTED
            if rule != turns.EndRule.CLUB:
                self.result.notes.append(
                    f"line {event.line}: the rack penalty follows the club rule, not the ruleset's {rule} rule"
                )
        if event.rack and sorted(a.rack(event.rack)) != sorted(tiles):
            self.fail(f"{event.nick} subtracts ({event.tiles}) but holds {event.rack}", event.line)
        # what he kept after his last turn is on his rack still; it is all of it unless that turn
        # drew tiles (after an exchange, or a play while the bag had tiles: the tiles drawn are not
        # in the record, but they came from the tiles unseen)
        kept = self.kept[p]
        whole = kept is not None and sum(kept.values()) == self.rack_sizes[p]
        others = self.other_end_racks(p)
        over = _tiles_beyond(tiles, turns.unseen_counts(rs, self.board, others))
        if kept is not None and (kept - Counter(tiles) or (whole and +kept != Counter(tiles))):
            self.fail(
                f"{event.nick} holds {a.rack_string(list(kept.elements()))}"
                + ("" if whole else " and what he drew")
                + f" (kept at his last turn), but subtracts ({event.tiles})",
                event.line,
            )
        elif len(tiles) != self.rack_sizes[p]:
            self.fail(
                f"{event.nick} holds {self.rack_sizes[p]} tiles after the turns played, but subtracts "
                f"{len(tiles)}: ({event.tiles})",
                event.line,
            )
        elif over:
            self.fail(
                f"{event.nick} subtracts ({event.tiles}), which holds {a.rack_string(over)}, more than the set has "
                "left after the tiles on the board" + (" and the other racks known" if others else "")
                + (" (he holds what he kept and tiles drawn from those)" if not whole else ""),
                event.line,
            )
        if event.score != -value:
            self.fail(f"({event.tiles}) is worth {value}: the penalty is {-value}, the record says {event.score:+d}", event.line)
        elif len(tiles) == self.rack_sizes[p] and not over:  # the end position shows the rack the record states
            self.result.end_racks[p] = rs.alphabet.tiles(tiles)
        self.scores[p] += event.score
        self.counted["rack", p] = event.line
        return None

    def other_end_racks(self, p: int) -> list[tuple[int, ...]]:
        """The racks known at the game's end of the players other than ``p`` (empty ones left
        out): those the game's last lines stated (:attr:`Replay.end_racks`), else what a player
        kept at his last turn when it is all he holds (that turn drew nothing)."""
        out = []
        for q in range(self.n):
            if q == p:
                continue
            if q in self.result.end_racks:
                rack = tuple(self.result.end_racks[q])
            else:
                kept = self.kept[q]
                whole = kept is not None and sum(kept.values()) == self.rack_sizes[q]
                rack = tuple(sorted(kept.elements())) if kept is not None and whole else ()
            if rack:
                out.append(rack)
        return out

    # --- the opponent's racks ------------------------------------------------------------------
    def finish_turns(self, drafts: list[_TurnDraft]) -> list[ReplayTurn]:
        out = []
        a = self.rs.alphabet
        if self.n == 2:
            self.infer_racks(drafts)
        shown: list[Tiles] = [a.tiles() for _ in range(self.n)]  # (ReplayTurn.shown)
        for i, t in enumerate(drafts):
            before = tuple(shown)
            shown = _shown_after(shown, t.player, t.event.kind, t.move, t.withdrawn)
            opp = None
            if self.n == 2:
                q = 1 - t.player
                nxt = next((u for u in drafts[i + 1 :] if u.player == q), None)
                unseen = turns.unseen_counts(self.rs, t.board, [t.rack])
                if t.bag_count == 0 and t.rack_complete:
                    opp = self.rs.alphabet.tiles(_tiles_of_counts(unseen))
                elif nxt is not None and nxt.rack_complete and not _tiles_beyond(nxt.rack, unseen):
                    opp = nxt.rack
            out.append(t.turn(i + 1, opp, before))
        return out

    def infer_racks(self, drafts: list[_TurnDraft]) -> None:
        """The racks of a two-player game's turns that the record shows in part or not at all but
        whose tiles are certain: with the bag empty, the mover holds every tile unseen but his
        opponent's, when that rack is known — recorded whole (or found so here) at the opponent's
        next turn (the bag empty, he holds the same tiles then), or, when he has no turn left, the
        one the game's last lines state. From the last turn back, so that a rack found so tells the
        turn before it. A rack that does not fit (its size, the tiles shown or played: a record
        with errors) is left unknown; so is a rack line the record contradicts (its turn is not
        graded)."""
        rs = self.rs
        for i in range(len(drafts) - 1, -1, -1):
            t = drafts[i]
            if t.bag_count or t.rack_complete or t.rack_slip or not 0 <= t.player < 2:
                continue
            q = 1 - t.player
            nxt = next((u for u in drafts[i + 1:] if u.player == q), None)
            if nxt is not None:
                other = nxt.rack if nxt.rack_complete else None
            else:
                other = self.result.end_racks.get(q)
            if other is None:
                continue
            unseen = turns.unseen_counts(rs, t.board, [tuple(other)])
            if (unseen < 0).any():
                continue
            rack = Counter(_tiles_of_counts(unseen))
            needs = Counter(t.rack)
            if t.move is not None and t.event.kind == EventKind.PLAY:
                needs |= Counter(t.move.rack_tiles())
            if sum(rack.values()) != t.held or not 0 < t.held <= rs.rack_size or needs - rack:
                continue
            t.rack = rs.alphabet.tiles(sorted(rack.elements()))
            t.rack_complete = t.rack_inferred = True


def _shown_after(shown: list[Tiles], player: int, kind: EventKind, move: Move | None, withdrawn: bool) -> list[Tiles]:
    """The tiles everyone knows each player holds (:attr:`ReplayTurn.shown`, by player) after a turn
    of ``player``: a play withdrawn after a challenge adds its tiles (back on his rack; those known
    before stay: his rack did not change); a play that stands takes its tiles off (a tile he played
    may be the one known: what is left is still his); an exchange (its tiles are not seen), or a play
    the replay could not make (``move`` None), forgets what was known of his rack."""
    if not 0 <= player < len(shown) or not (withdrawn or shown[player]):
        return shown  # (nothing known of his rack, and no play withdrawn: nothing is known after it)
    mine = Counter(shown[player])
    if kind == EventKind.PLAY and move is not None:
        tiles = Counter(move.rack_tiles())
        mine = mine | tiles if withdrawn else mine - tiles
    elif kind == EventKind.EXCHANGE or kind == EventKind.PLAY:
        mine = Counter()
    else:
        return shown
    out = list(shown)
    out[player] = type(shown[player])(sorted(mine.elements()))
    return out


def _holds(rack: Tiles, move: Move) -> bool:
    """Whether ``rack`` holds every tile ``move`` uses as written (:meth:`Move.rack_tiles`), the
    move taking no star back: it then holds the tiles the move plays (those less the letters
    written over filled squares, :func:`_through_filled`), so none of them lacks."""
    if move.reclaimed:
        return False
    left = list(rack)
    try:
        for tile in move.rack_tiles():
            left.remove(tile)
    except ValueError:
        return False
    return True


def _record_opcodes(record: GCGGame) -> tuple[tuple[str, str], ...]:
    """The CGP opcodes of a record's positions: ``lex`` with its ``#lexicon`` (as Woogles.io writes
    a position's CGP), when that is one word and a CGP reader takes the line with it for the
    record's ruleset (a lexicon of another language, which racksmith reads as naming a ruleset it
    does not ship, is left out); else none."""
    name = (record.lexicon_name or "").strip()
    if not name or ";" in name or not name.isprintable() or any(ch.isspace() for ch in name):
        return ()
    from ..formats.cgp import cgp_ruleset, format_cgp
    from ..rules.ruleset import is_shipped

    rs = record.ruleset
    opcodes = (("lex", name),)
    try:
        line = format_cgp(np.zeros((rs.rows, rs.cols), dtype=np.uint8), ((), ()), (0, 0), 0, opcodes, rs)
        read = cgp_ruleset(line)
    except RacksmithError:
        return ()
    if is_shipped(rs) and read.name != rs.name:
        return ()
    return opcodes


#: what an adjustment's handler returns when it does not count the line (its running total is not checked)
_NOT_COUNTED = object()


def _tiles_of_counts(counts: np.ndarray) -> list[int]:
    """Tiles, sorted, from counts by tile (negative counts as none)."""
    return [t for t, k in enumerate(counts.tolist()) for _ in range(max(k, 0))]


def _tiles_beyond(tiles, counts: np.ndarray) -> list[int]:
    """The tiles of ``tiles`` beyond what ``counts`` (by tile) allows."""
    left = counts.copy()
    out = []
    for t in sorted(tiles):
        left[t] -= 1
        if left[t] < 0:
            out.append(t)
    return out


def _through_filled(move: Move, board: np.ndarray) -> Move:
    """``move`` with the letters it writes over filled squares marked played through: some
    programs (Elise) write the tiles already on the board as letters, not '.', and those are not
    the player's (the letter must still be the board's: the replay's check says so)."""
    if not move.is_place:
        return move
    rows, cols = board.shape
    tiles = tuple(
        THROUGH | t if not t & THROUGH and 0 <= r < rows and 0 <= c < cols and board[r, c] else t
        for (r, c), t in zip(move.squares, move.tiles)
    )
    return move if tiles == move.tiles else replace(move, tiles=tiles)


def _with_star_letters(move: Move, board: np.ndarray) -> Move:
    """``move`` with the letter of each star it takes back read off the board when not written
    (``*8H``), so that its rack tiles include the real letters it puts there."""
    if all(letter for _, _, letter in move.reclaimed):
        return move
    rows, cols = board.shape
    filled = tuple(
        (r, c, letter or (int(board[r, c]) & LETTER_MASK if 0 <= r < rows and 0 <= c < cols and board[r, c] & BLANK else 0))
        for r, c, letter in move.reclaimed
    )
    return replace(move, reclaimed=filled)
