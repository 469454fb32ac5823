"""A game from the first draw to the final scores: a position, a seeded bag, the players, the
history, challenges and undo.

The state is a :class:`~racksmith.core.position.Position` (the player to move first) that the game
plays on with ``push`` and takes back with ``pop``, and a :class:`~racksmith.core.bag.Bag` it draws
from; the rules — what a turn does, when and how the game ends under ``ruleset.end_rule`` — are
those of :mod:`racksmith.core.turns`, applied by the position. A game starts from a fresh bag
(:class:`Game`) or from any position (:meth:`Game.from_position`, :meth:`Game.from_cgp`).

Every action is checked before anything changes: an illegal play, exchange or challenge raises
:class:`~racksmith.errors.IllegalMoveError` (reason codes of :data:`racksmith.errors.REASONS`) and
leaves the game as it was. :meth:`Game.undo` takes back the last action exactly.
"""
from __future__ import annotations

import copy as _copy
import operator
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _args
from ..core import turns
from ..core.bag import Bag
from ..core.move import EXCHANGE, PASS, PLACE, Move, max_move_chars
from ..core.position import LeavesLike, LexiconLike, Position, Undo
from ..core.turns import Ending, EventKind
from ..core.validation import ANY_WORD, check_move_lean
from ..errors import GCGError, IllegalMoveError, InvalidMoveError, PositionError, RacksmithError
from ..formats.gcg import MAX_GCG_POINTS, GCGEvent, GCGGame, GCGPlayer, gcg_nicks, max_players
from ..formats.naming import record_name
from ..lexicon import Lexicon
from ..movegen.movelist import MoveList
from ..movegen.options import Algorithm, Direction, Sort
from ..rules.alphabet import NO_TILES, Tiles
from ..rules.ruleset import Ruleset, get_ruleset

__all__ = ["ANY_WORD", "Event", "Game"]

_EVENT_OF_MOVE = {PLACE: EventKind.PLAY, EXCHANGE: EventKind.EXCHANGE, PASS: EventKind.PASS}
_KIND = operator.attrgetter("kind")  #: an event's kind


@dataclass(frozen=True, slots=True)
class Event:
    """One line of a game's history.

    ``rack`` is the player's rack before the event (for a withdrawn phony or a challenge bonus, the
    rack of the play they follow — a bonus's GCG line shows his rack after that play and its draw,
    see :meth:`Game.gcg`; empty for a going-out bonus or a time penalty); ``tiles`` are the
    leftover tiles an end-of-game event counts; ``drawn`` the tiles drawn after a play or exchange.
    ``failed_challenge``: the event is a pass that is no pass chosen but the turn a challenger lost
    by a failed double challenge (:meth:`Game.challenge` with ``bonus=0``); its GCG line carries the
    ``#unsuccessful-challenge`` note. Tiles print as letters (:class:`~racksmith.rules.alphabet.Tiles`).
    """

    player: int
    kind: EventKind
    score: int
    total: int
    rack: Tiles = NO_TILES
    move: Move | None = None
    tiles: Tiles = NO_TILES
    drawn: Tiles = NO_TILES
    bingo: bool = False
    failed_challenge: bool = False


# what an action did to the position, undone in reverse order by Game.undo
_PUSHED = "pushed"  #: ("pushed",): a move pushed
_POPPED = "popped"  #: ("popped", undo): a move popped, pushed again on undo
_SCORED = "scored"  #: ("scored", index, points): points added to scores[index]
_PUSH = (_PUSHED,)
_TURN = (_PUSH,)  #: the steps of a turn: one push


@dataclass(slots=True)
class _Action:
    """One action (a turn with the end it caused, a challenge, a time penalty) and what undoes it:
    the steps done to the position, the bag before it (None for a play or a pass: popping them
    puts the tiles drawn back), the RNG's state before the shuffle an exchange or a withdrawn
    phony did, the events it replaced."""

    kind: EventKind
    player: int
    to_move: int
    cut: int  #: the history from here on is this action's (events before it that it replaced: ``dropped``)
    bag: list[int] | None
    rng_state: Any = None
    dropped: tuple[Event, ...] = ()
    ops: tuple[tuple, ...] = _TURN


#: the line breaks of text (str.splitlines's): a player's name holds none (a no-break or a thin space is
#: no line break: ``И.\u00a0Петров``)
_LINE_BREAK = re.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
#: the control characters (category Cc) but a tab, which a name may hold (as the web's full names may)
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def _name_problem(name: str) -> str:
    """What keeps ``name`` from being a player's full name in a GCG record ("" when nothing): a
    line break, a control character other than a tab (NUL, U+0080: what no record's reader takes
    for text; the web's full names refuse them too), a lone surrogate (no text, and none UTF-8
    writes), spaces at its ends (which the record's reader drops)."""
    brk = _LINE_BREAK.search(name)
    if brk:
        return f"holds a line break (U+{ord(brk.group()):04X}): write it on one line"
    control = _CONTROL.search(name)
    if control:
        return f"holds the control character U+{ord(control.group()):04X}, which is no text: leave it out"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as e:
        return (f"holds U+{ord(name[e.start]):04X}, half of a UTF-16 surrogate pair and no character: it cannot be "
                "written as UTF-8 (decode the name's bytes as UTF-8, or UTF-16 as a whole)")
    if name != name.strip():
        return "has spaces at its ends: strip them"
    return ""


def _player_count(players: "int | Sequence[str]") -> int:
    """How many players ``players`` (a count or the nicks) names, checked to be one or the other."""
    if isinstance(players, bool) or not isinstance(players, (int, str, Sequence)):
        raise RacksmithError(f"players is a count or a list of nicks, got {type(players).__name__}")
    return players if isinstance(players, int) else 1 if isinstance(players, str) else len(players)


def _nicks(players: "int | Sequence[str]") -> tuple[str, ...]:
    """The players' nicks, in Unicode NFC, as the game's GCG record writes them and a reader reads
    them back (:func:`~racksmith.formats.gcg.gcg_nicks`: two nicks alike once normalized are
    refused); the count must have been checked against its bound (:func:`_player_count`)."""
    _player_count(players)
    nicks = tuple(f"p{i + 1}" for i in range(players)) if isinstance(players, int) else (
        (players,) if isinstance(players, str) else tuple(str(p) for p in players)
    )
    if len(nicks) < 2:
        raise RacksmithError(f"a game needs at least 2 players, got {players if isinstance(players, int) else len(nicks)}")
    return gcg_nicks(nicks)


def _length(tiles: Any) -> int:
    """How many tiles ``tiles`` holds, 0 when it has no length (a generator: counted once a move)."""
    try:
        return len(tiles)
    except TypeError:
        return 0


class Game:
    """A game between ``players`` (a count or the players' nicks), from a bag shuffled by ``seed``.
    A nick is one word without ``:``; nicks and ``names`` are kept in Unicode NFC (``e`` + U+0301
    is kept as ``é``), as a GCG reader reads the game's record, and two nicks alike once
    normalized are refused (:func:`~racksmith.formats.gcg.gcg_nicks`).

    ``lexicon``: a name, a path, or a loaded lexicon (default: the ruleset's). ``bag_order`` fixes
    the order tiles are drawn in (a permutation of the whole set) instead of shuffling; the tiles
    an exchange or a withdrawn phony puts back are shuffled in by ``seed``, so give one too for such
    a game to repeat.

    Seats are numbered from 0 in turn order; :attr:`to_move` is the seat to move, :attr:`racks`
    and :attr:`scores` are by seat. :attr:`position` is the game seen by the player to move.
    """

    __slots__ = (
        "ruleset", "nicks", "names", "bag", "history", "to_move", "lexicon_name", "_pos", "_actions", "_from_start",
        "_start_scores",
    )

    def __init__(
        self,
        ruleset: "str | Ruleset | None" = None,
        lexicon: "LexiconLike | None" = None,
        players: "int | Sequence[str]" = 2,
        seed: "int | random.Random | None" = None,
        *,
        names: Sequence[str] | None = None,
        bag_order: Sequence[int] | None = None,
    ):
        rs = get_ruleset(ruleset)
        count = _player_count(players)  # checked before any nick is made: players=2**70 is refused, not built
        rs.check_players(count)
        nicks = _nicks(players)
        seed = _args.seed(seed)
        if bag_order is not None:
            bag_order = _args.tile_list(bag_order, "bag_order", PositionError)
        bag = Bag(rs, seed, order=bag_order)
        racks = [bag.draw(rs.rack_size) for _ in nicks]
        self._setup(Position(rs, None, racks, lexicon=lexicon), bag, nicks, names)

    @classmethod
    def from_position(
        cls,
        position: Position,
        seed: "int | random.Random | None" = None,
        *,
        players: "int | Sequence[str] | None" = None,
        names: Sequence[str] | None = None,
        lexicon: "LexiconLike | None" = None,
    ) -> "Game":
        """A game that goes on from ``position`` (which is copied, not changed): its board, racks
        (the player to move is seat 0), scores and scoreless-turn count. The tiles that are neither
        on the board nor on a rack are shuffled by ``seed``; an unknown rack (empty in a CGP, or
        known in part: :attr:`Position.racks_partial`) draws as many as :attr:`Position.rack_sizes`
        gives it beyond its known tiles, then a known rack shorter than a full one is filled, in
        seat order, and the bag holds the rest. ``lexicon``: as for :class:`Game`
        (default: the position's)."""
        if not isinstance(position, Position):
            raise RacksmithError(f"from_position needs a Position, got {type(position).__name__}")
        seed = _args.seed(seed)
        rs = position.ruleset
        count = _player_count(players) if players is not None else len(position.racks)
        if count != len(position.racks):  # (before any nick is made)
            raise RacksmithError(f"{count} players for a position of {len(position.racks)} racks")
        if count > max_players(rs):
            raise RacksmithError(
                f"a position of {count} racks: a game of {rs.name} has at most {max_players(rs)} players (each "
                f"holds a rack of {rs.rack_size} from {rs.total_tiles} tiles)"
            )
        nicks = _nicks(players if players is not None else count)
        pos = position.copy(stack=False)
        if lexicon is not None:
            pos.lexicon = lexicon
        bag = Bag.holding(rs, pos.unseen_tiles(), seed)
        sizes = pos.rack_sizes
        known = pos.racks_known
        racks = list(pos.racks)
        for i in range(len(racks)):
            if not known[i]:  # (a rack known in part keeps its known tiles)
                racks[i] = rs.alphabet.tiles(sorted([*racks[i], *bag.draw(sizes[i] - len(racks[i]))]))
        for i, rack in enumerate(racks):
            need = rs.rack_size - len(rack)
            if known[i] and need > 0 and len(bag):
                racks[i] = rs.alphabet.tiles(sorted([*rack, *bag.draw(need)]))
        pos = Position(rs, pos.board, racks, pos.scores, pos.zero_turns, pos.opcodes, pos._lexicon if pos._lexicon is not None else pos._lexicon_spec,
                       racks_known=[True] * len(racks))
        game = cls.__new__(cls)
        game._setup(pos, bag, nicks, names)
        return game

    @classmethod
    def from_cgp(
        cls,
        cgp: str,
        ruleset: "str | Ruleset | None" = None,
        lexicon: "LexiconLike | None" = None,
        *,
        seed: "int | random.Random | None" = None,
        players: "int | Sequence[str] | None" = None,
        names: Sequence[str] | None = None,
    ) -> "Game":
        """A game that goes on from a CGP position: see :meth:`from_position`."""
        return cls.from_position(Position.from_cgp(cgp, ruleset, lexicon), seed, players=players, names=names)

    def copy(self) -> "Game":
        """An independent copy: what is played or undone on it leaves this game as it is (its
        board, bag, history and undo), the ruleset and the lexicon shared."""
        return self.__deepcopy__({})

    def __copy__(self) -> "Game":
        """``copy.copy``: an independent copy, as :meth:`copy` (a game sharing its board, bag and
        history with another would be changed by the other's turns)."""
        return self.copy()

    def __deepcopy__(self, memo: dict) -> "Game":
        memo.setdefault(id(self.ruleset), self.ruleset)  # shared: the move tables are cached by ruleset
        new = Game.__new__(Game)
        memo[id(self)] = new
        for name in Game.__slots__:
            object.__setattr__(new, name, _copy.deepcopy(getattr(self, name), memo))
        return new

    def _setup(self, pos: Position, bag: Bag, nicks: tuple[str, ...], names: Sequence[str] | None) -> None:
        self.ruleset = pos.ruleset
        self.nicks = nicks
        if names is not None and (isinstance(names, str) or not isinstance(names, Sequence)
                                  or not all(isinstance(n, str) for n in names)):
            raise RacksmithError(f"names must be a list of texts, one a player, got {names!r:.60}")
        # in NFC, as the nicks: a GCG reader normalizes the record, so it reads back as written
        self.names = tuple(unicodedata.normalize("NFC", n) for n in names) if names is not None else nicks
        if len(self.names) != len(nicks):
            raise RacksmithError(f"{len(self.names)} names for {len(nicks)} players")
        for n in self.names:
            problem = _name_problem(n)
            if problem:
                raise RacksmithError(f"a player's name is one line of text, written as UTF-8 in a GCG record: "
                                     f"{n!r:.60} {problem}")
        self.bag = bag
        self.history: list[Event] = []
        self.to_move = 0
        self.lexicon_name = pos.lexicon_name
        self._pos = pos
        self._actions: list[_Action] = []
        self._from_start = not pos.board.any() and not any(pos.scores) and not pos.zero_turns
        self._start_scores = tuple(pos.scores)  #: by seat (seat 0 moves first)

    # --- reading the state -------------------------------------------------------------------
    @property
    def lexicon(self) -> Lexicon:
        """The game's lexicon, loaded on first use."""
        return self._pos.lexicon

    @property
    def live_position(self) -> Position:
        """The game's own position (the player to move first), kept up to date as the game goes
        on: read it, never change it (:attr:`position` is a copy of your own)."""
        return self._pos

    @property
    def position(self) -> Position:
        """A copy of the position for the player to move: board, racks and scores (his first);
        :meth:`~racksmith.core.position.Position.pop` on it takes back the game's moves."""
        return self._pos.copy()

    @property
    def board(self) -> np.ndarray:
        """The board (rows x cols ``uint8`` tiles, 0 for an empty square), the game's own: read it,
        never change it."""
        return self._pos.board

    @property
    def racks(self) -> list[Tiles]:
        """Every player's rack, by seat."""
        return self._by_seat(self._pos.racks)

    @property
    def scores(self) -> list[int]:
        """Every player's score, by seat."""
        return self._by_seat(self._pos.scores)

    def _by_seat(self, values: list) -> list:
        k = self.to_move
        return values[-k:] + values[:-k] if k else list(values)

    @property
    def rack(self) -> Tiles:
        """The rack of the player to move."""
        return self._pos.racks[0]

    @property
    def zero_turns(self) -> int:
        """Consecutive scoreless turns so far."""
        return self._pos.zero_turns

    @property
    def over(self) -> bool:
        """The game has ended (see :mod:`racksmith.core.turns`); no more turns can be taken."""
        return self._pos.is_over

    @property
    def winners(self) -> list[int]:
        """The seats with the highest score (more than one on a tie)."""
        scores = self.scores
        best = max(scores)
        return [i for i, s in enumerate(scores) if s == best]

    @property
    def bag_count(self) -> int:
        """Tiles left in the bag."""
        return len(self.bag)

    @property
    def turns(self) -> int:
        """Turns taken (plays, exchanges and passes; withdrawn plays count as the turn they were)."""
        return sum(1 for e in self.history if e.kind in turns.TURN_KINDS)

    def cgp(self) -> str:
        """The position as CGP, the player to move first (see :meth:`Position.cgp`)."""
        return self._pos.cgp()

    def _shown_racks(self) -> list[Tiles]:
        """The tiles the player to move knows each other player holds, in the position's order
        (the mover first, his own entry empty): those of the player's plays withdrawn after a
        challenge (everyone saw them, and they went back to his rack) less the tiles of his plays
        since (a tile he played may be the one known); his exchange forgets them (its tiles are not
        seen). At most the tiles the mover cannot see. Only while the bag holds tiles: with it
        empty the other racks are the tiles unseen. What :class:`~racksmith.play.players.GameView`
        gives as racks known in part. The history is read as it is at each call (a public list:
        nothing is kept from an earlier read); without a withdrawn play, one pass over the events'
        kinds tells that nothing is known (asked before every move of a bot's view)."""
        n = len(self.nicks)
        a = self.ruleset.alphabet
        out = [a.tiles()] * n  # (an empty Tiles, shared: a tuple)
        history = self.history
        if not len(self.bag) or EventKind.PHONY not in map(_KIND, history):  # (the kinds compared in C)
            return out
        known = [Counter() for _ in range(n)]
        play: dict[int, tuple[Counter, Move]] = {}  # by seat: what was known before his last play, and the play
        for e in history:
            q = e.player
            if e.kind == EventKind.PLAY and e.move is not None:
                play[q] = (known[q], e.move)
                known[q] = known[q] - Counter(e.move.rack_tiles())
            elif e.kind == EventKind.PHONY and q in play:  # (it follows the play it withdraws)
                before, move = play.pop(q)
                known[q] = before | Counter(move.rack_tiles())
            elif e.kind == EventKind.EXCHANGE:
                known[q] = Counter()
        pos = self._pos
        unseen = turns.unseen_counts(self.ruleset, pos.board, [pos.racks[0]])
        for i in range(1, n):
            tiles = []
            for t in sorted(known[(self.to_move + i) % n].elements()):
                if unseen[t] > 0:
                    unseen[t] -= 1
                    tiles.append(t)
            out[i] = a.tiles(tiles)
        return out

    def legal_moves(
        self,
        top: int | None = None,
        *,
        sort: Sort | str = Sort.SCORE,
        leaves: "LeavesLike | None" = None,
        exchanges: bool = False,
        direction: Direction | str = Direction.BOTH,
        algorithm: Algorithm | str = Algorithm.GADDAG,
    ) -> MoveList:
        """The moves of the player to move (see :meth:`Position.moves`)."""
        return self._pos.moves(top, sort=sort, leaves=leaves, exchanges=exchanges, direction=direction, algorithm=algorithm)

    # --- actions -------------------------------------------------------------------------------
    def play(self, move: "Move | str", *, check_words: bool = True) -> Event:
        """Play a placement, an exchange or a pass for the player to move (a :class:`Move` or its
        notation). ``check_words=False`` lets a phony stand until someone challenges it."""
        if type(check_words) is not bool:
            check_words = _args.flag(check_words, "check_words")
        self._require_live()
        if isinstance(move, str):
            move = Move.parse(move, self.ruleset)  # (text longer than any move is refused at once)
        elif isinstance(move, Move) and move.kind == EXCHANGE and _length(move.tiles) > self.ruleset.rack_size:
            raise self._too_big_exchange(_length(move.tiles))
        return self._turn(check_move_lean(self._pos, move, None if check_words else ANY_WORD))

    def exchange(self, tiles: "str | Iterable[int]") -> Event:
        """Exchange tiles (letters, ``?`` for a blank, or tile ints): at most a rack of them."""
        self._require_live()
        rs = self.ruleset
        if isinstance(tiles, str):
            if len(tiles) > max_move_chars(rs.alphabet, rs.rack_size):  # (more than a rack's tiles are written with)
                raise self._too_big_exchange(len(tiles), "characters")
            tiles = rs.alphabet.rack(tiles)
        if _length(tiles) > rs.rack_size:  # (before a million tiles are sorted)
            raise self._too_big_exchange(_length(tiles))
        return self.play(Move.exchange(tiles, rs.alphabet))

    def _too_big_exchange(self, count: int, what: str = "tiles") -> IllegalMoveError:
        """The error of an exchange of more tiles than a rack holds, said before the tiles are read
        (a million of them took seconds, and the message named them all)."""
        return IllegalMoveError(
            "not_in_rack", f"an exchange gives back at most the {self.ruleset.rack_size} tiles of a rack, got {count:,} {what}"
        )

    def pass_(self) -> Event:
        """The player to move passes."""
        self._require_live()
        return self._turn(Move.pass_(self.ruleset.alphabet, score=0))

    def play_trusted(self, move: Move) -> Event:
        """Apply a move from the move generator without checking it (its ``score`` is used as is).

        For self-play speed. :meth:`check_invariants` catches a move that breaks the bookkeeping
        (tiles not conserved, a rack over size, totals that are not the sums of the events) but
        not a wrong ``score``: a generator that lies about it gets the points it claims, and only
        replaying the record (:meth:`gcg` read by :func:`~racksmith.review.replay.replay_text`,
        which scores every play from the board) tells. A move written as text is not trusted:
        :meth:`play` it."""
        if not isinstance(move, Move):
            raise InvalidMoveError(
                f"play_trusted takes a Move from the move generator, got {type(move).__name__}"
                + (f" {move!r}: play a move written as text with Game.play" if isinstance(move, str) else "")
            )
        return self._turn(move)  # the position refuses a turn after the end ("game_over")

    def challenge(self, bonus: int = 0) -> bool:
        """The player to move challenges the last play. A phony is withdrawn (its tiles go back to
        the rack, the tiles drawn go back to the bag, which is shaken with the game's RNG — the
        player of the phony saw them, so they are not the next tiles drawn; the same seed shakes
        it the same way, and :meth:`undo` restores the bag — and the turn counts as scoreless)
        and True is returned. If every word stands, the player who played gets ``bonus`` points
        (his draw is the same), or, with ``bonus=0`` (double challenge), the challenger loses his
        turn: a pass event marked ``failed_challenge`` (written with the ``#unsuccessful-challenge``
        note in the GCG record); False is returned.

        A game that the challenged play ended is reopened if the play is withdrawn."""
        last = self._last_play_action()
        play_event = self.history[last.cut]
        p = play_event.player
        if not _args.is_whole(bonus) or not 0 <= bonus <= MAX_GCG_POINTS:
            raise RacksmithError(
                f"a challenge bonus is 0 (a double challenge) or a positive whole number of points up to "
                f"{MAX_GCG_POINTS:,} (what a GCG record holds), got {bonus!r}"
            )
        bonus = int(bonus)
        if self.scores[p] + bonus > MAX_GCG_POINTS:
            raise RacksmithError(
                f"a bonus of {bonus} would take {self.nicks[p]}'s score past {MAX_GCG_POINTS:,}, more than a GCG "
                "record holds"
            )
        assert play_event.move is not None  # the event of a play
        before = self._pos.copy()
        before.pop()
        try:
            check_move_lean(before, play_event.move, self.lexicon)
            phony = False
        except IllegalMoveError as e:
            if e.reason != "invalid_words":
                raise
            phony = True
        if not phony and not bonus and self.over:
            return False  # the play went out: the challenger has no turn left to lose
        pos = self._pos
        alphabet = self.ruleset.alphabet
        act = self._begin(EventKind.CHALLENGE, self.to_move)
        if phony or bonus:
            # back to just after the play was made: its end-of-game events, if any, are replaced
            act.cut = last.cut + 1
            act.dropped = tuple(self.history[act.cut :])
            del self.history[act.cut :]
            u = pos.pop()
            self._step(act, (_POPPED, u))
            if phony:  # the play is withdrawn and the turn is lost: a scoreless turn
                # its draw goes back into the bag, shaken by the game's RNG (undo restores both): on
                # top, the challenger would draw the tiles the phony's player saw (Macondo shakes too)
                act.rng_state = self.bag.rng.getstate()
                self.bag.put_back(u.drawn)
                pushed = self._push(act, Move.pass_(alphabet, score=0), [])
                self._record(p, EventKind.PHONY, -play_event.score, pushed, rack=play_event.rack)
            else:  # the play stands, with the bonus added before the end of the game is counted
                pos.scores[0] += bonus
                self._step(act, (_SCORED, 0, bonus))
                self.bag.unshift(u.drawn)  # the same draw again
                pushed = self._push(act, u.move, self.bag.draw(len(u.drawn)))
                self._record(p, EventKind.CHALLENGE, bonus, pushed, rack=play_event.rack)
            self.to_move = (p + 1) % len(self.nicks)
            return phony
        q = self.to_move  # a double challenge that fails: the challenger loses his turn
        pushed = self._push(act, Move.pass_(alphabet, score=0), [])
        self._record(q, EventKind.PASS, 0, pushed, rack=pushed.rack, move=pushed.move, failed_challenge=True)
        self.to_move = (q + 1) % len(self.nicks)
        return False

    def time_penalty(self, player: int, points: int) -> Event:
        """Subtract ``points`` (> 0) from a player's score, e.g. for overtime."""
        if not _args.is_whole(player) or not 0 <= player < len(self.nicks):
            raise RacksmithError(f"player {player!r} does not exist (0..{len(self.nicks) - 1})")
        if not _args.is_whole(points) or not 0 < points <= MAX_GCG_POINTS:
            raise RacksmithError(
                f"a time penalty is a positive whole number of points up to {MAX_GCG_POINTS:,} (what a GCG record "
                f"holds), got {points!r}"
            )
        player, points = int(player), int(points)
        if self.scores[player] - points < -MAX_GCG_POINTS:
            raise RacksmithError(
                f"a penalty of {points} would take {self.nicks[player]}'s score below -{MAX_GCG_POINTS:,}, more than "
                "a GCG record holds"
            )
        act = self._begin(EventKind.TIME, player)
        i = (player - self.to_move) % len(self.nicks)
        self._pos.scores[i] -= points
        self._step(act, (_SCORED, i, -points))
        e = Event(player, EventKind.TIME, -points, self._pos.scores[i])
        self.history.append(e)
        return e

    def undo(self) -> None:
        """Take back the last action (a turn with the end-of-game events it caused, a challenge or a
        time penalty), exactly as it was."""
        if not self._actions:
            raise RacksmithError("nothing to undo: no action has been taken")
        act = self._actions.pop()
        pos = self._pos
        bag = self.bag
        for op in reversed(act.ops):
            if op[0] == _PUSHED:
                u = pos.pop()
                if act.bag is None:
                    bag.unshift(u.drawn)
            elif op[0] == _POPPED:
                u = op[1]
                pos.push(u.move, u.drawn, trusted=True)
            else:
                pos.scores[op[1]] -= op[2]
        if act.bag is not None:
            bag.restore(act.bag)
            if act.rng_state is not None:
                bag.rng.setstate(act.rng_state)
        del self.history[act.cut :]
        self.history.extend(act.dropped)
        self.to_move = act.to_move

    # --- the work ------------------------------------------------------------------------------
    def _require_live(self) -> None:
        if self._pos.is_over:
            raise IllegalMoveError("game_over", "the game is over: no more turns can be taken")

    def _begin(self, kind: EventKind, player: int) -> _Action:
        """An action other than a plain turn: the bag is saved whole; its steps are added with
        :meth:`_step` as they are done."""
        act = _Action(kind, player, self.to_move, len(self.history), self.bag.snapshot(), ops=())
        self._actions.append(act)
        return act

    @staticmethod
    def _step(act: _Action, op: tuple) -> None:
        act.ops = (*act.ops, op)

    def _push(self, act: _Action, move: Move, drawn: list[int]) -> Undo:
        u = self._pos.push(move, drawn, trusted=True)
        self._step(act, _PUSH)
        return u

    def _turn(self, move: Move) -> Event:
        """A turn of the player to move with a checked move: draw, push, record."""
        p = self.to_move
        kind = move.kind
        bag = self.bag
        if kind == EXCHANGE:
            act = _Action(EventKind.EXCHANGE, p, p, len(self.history), bag.snapshot(), bag.rng.getstate())
        else:
            act = _Action(_EVENT_OF_MOVE[kind], p, p, len(self.history), None)
        drawn = bag.draw(move.tiles_played) if kind != PASS else None
        try:
            u = self._pos.push(move, drawn, trusted=True)
        except BaseException:
            if drawn:
                bag.unshift(drawn)
            raise
        self._actions.append(act)
        if kind == EXCHANGE:
            bag.put_back(move.tiles)
        bingo = len(u.squares) == self.ruleset.rack_size
        if u.ending is None:
            e = Event(p, act.kind, u.score, self._pos.scores[-1], u.rack, u.move, NO_TILES, u.drawn, bingo)
            self.history.append(e)
        else:
            e = self._record(p, act.kind, u.score, u, u.rack, u.move, NO_TILES, u.drawn, bingo)
        self.to_move = (p + 1) % len(self.nicks)
        return e

    def _record(self, player: int, kind: EventKind, score: int, u: Undo, *fields, **named) -> Event:
        """The event of a turn (or of a challenge that replaced one) whose push was ``u``, and the
        events of the end of the game it caused. ``player`` made the turn: after the push he is
        the last in the position's order."""
        scores = self._pos.scores
        ending = u.ending
        if ending is None:
            e = Event(player, kind, score, scores[-1], *fields, **named)
            self.history.append(e)
            return e
        totals = list(scores)
        for adj in ending.adjustments:
            totals[adj.player] -= adj.points
        e = Event(player, kind, score, totals[-1], *fields, **named)
        self.history.append(e)
        self._end_events(ending, player, totals)
        return e

    def _end_events(self, ending: Ending, mover: int, totals: list[int]) -> None:
        n = len(totals)
        first = (mover + 1) % n  # the seat of the position's racks[0] after the turn
        for adj in ending.adjustments:
            totals[adj.player] += adj.points
            seat = (first + adj.player) % n
            if adj.kind == EventKind.OUT:
                self.history.append(Event(seat, adj.kind, adj.points, totals[adj.player], tiles=adj.tiles))
            else:
                self.history.append(Event(seat, adj.kind, adj.points, totals[adj.player], rack=adj.tiles, tiles=adj.tiles))

    def _last_play_action(self) -> _Action:
        """The last action, which must be another player's play."""
        if self._actions:
            act = self._actions[-1]
            if act.kind == EventKind.PLAY and act.player != self.to_move:
                return act
        raise IllegalMoveError(
            "no_play_to_challenge", "there is no play to challenge: the last action was not another player's play"
        )

    # --- checks and records -------------------------------------------------------------------
    def check_invariants(self) -> list[str]:
        """What is wrong with the state, if anything: tiles conserved (bag + racks + board = the
        set), each score the sum of its events (and of the score it started with), running totals,
        no rack over size. Empty when sound. The plays are not scored again: a wrong score that a
        move given to :meth:`play_trusted` carried is summed as it came."""
        rs = self.ruleset
        pos = self._pos
        problems = []
        should = turns.unseen_counts(rs, pos.board, pos.racks)  # what the bag must hold
        diff = np.array(self.bag.counts(), dtype=np.int64) - should
        if diff.any():
            a = rs.alphabet
            extra = [t for t, k in enumerate(diff.tolist()) for _ in range(max(k, 0))]
            missing = [t for t, k in enumerate(diff.tolist()) for _ in range(max(-k, 0))]
            problems.append(
                "tiles not conserved:"
                + (f" extra {a.rack_string(extra)}" if extra else "")
                + (f" missing {a.rack_string(missing)}" if missing else "")
            )
        sums = list(self._start_scores)
        for e in self.history:
            sums[e.player] += e.score
            if e.total != sums[e.player]:
                problems.append(f"event {e.kind} of {self.nicks[e.player]}: running total {e.total}, events sum to {sums[e.player]}")
                break
        scores = self.scores
        if sums != scores:
            problems.append(f"scores {scores} differ from the sums of the events {sums}")
        for i, rack in enumerate(self.racks):
            if len(rack) > rs.rack_size:
                problems.append(f"rack of {self.nicks[i]} holds {len(rack)} tiles")
        return problems

    def record(self, pragmas: Sequence[tuple[str, str]] = ()) -> GCGGame:
        """The game as a GCG record (:mod:`racksmith.formats.gcg`); ``pragmas`` are written after the
        encoding line (e.g. ``("description", "...")``). A game started from a position with tiles
        on the board or points scored has no GCG record: a record replays from the empty board. The
        turn a failed double challenge cost is a pass with the note ``#unsuccessful-challenge``, as
        Macondo and Woogles.io write it (:data:`racksmith.review.replay.FAILED_CHALLENGE_TAG`)."""
        if not self._from_start:
            raise RacksmithError(
                "this game started from a position with tiles on the board (or points scored): a GCG record "
                "replays from the empty board, so it cannot describe the game; save the position as CGP instead"
            )
        pragmas = _args.text_pairs(pragmas, "pragmas", GCGError)
        from ..review.replay import FAILED_CHALLENGE_TAG  # (the tag the GCG reader recognises)

        rs = self.ruleset
        a = rs.alphabet
        game = GCGGame(rs)
        for name, value in pragmas:
            game.pragmas.append((name, value, 0))
        if self.lexicon_name and not any(n == "lexicon" for n, _ in pragmas):
            game.pragmas.append(("lexicon", str(self.lexicon_name), 0))
        if not any(n == "tile-distribution" for n, _ in pragmas):
            game.pragmas.append(("tile-distribution", record_name(rs), 0))
        for i, (nick, name) in enumerate(zip(self.nicks, self.names)):
            game.pragmas.append((f"player{i + 1}", f"{nick} {name}", 0))
            game.players.append(GCGPlayer(nick, name))
        for i, e in enumerate(self.history):
            if not (abs(e.score) <= MAX_GCG_POINTS and abs(e.total) <= MAX_GCG_POINTS):
                raise RacksmithError(
                    f"a {e.kind} of {self.nicks[e.player]} for {e.score} points (total {e.total}): a GCG record holds "
                    f"scores of at most {MAX_GCG_POINTS:,} points"
                )
            move = e.move
            game.events.append(
                GCGEvent(
                    nick=self.nicks[e.player],
                    kind=e.kind,
                    score=e.score,
                    total=e.total,
                    rack=a.rack_string(_rack_after(self.history, i) if e.kind == EventKind.CHALLENGE else e.rack),
                    move=move if e.kind in turns.TURN_KINDS else None,
                    tiles=a.rack_string(e.tiles),
                    count=move.tiles_played if move is not None else 0,
                    note=FAILED_CHALLENGE_TAG if e.failed_challenge else "",
                )
            )
        return game

    def gcg(self, pragmas: Sequence[tuple[str, str]] = ()) -> str:
        """The game as GCG text: :meth:`record` written out. A challenge bonus's line shows the
        player's rack after his play and draw (``>ann: EIINOOO (challenge) +5 116``), as MAGPIE and
        Macondo write it and read it (the rack of his next turn); empty when the play emptied his
        rack (``>ann:  (challenge) +5 116``)."""
        return self.record(pragmas).gcg()

    def _repr_html_(self) -> str:
        """The board (every rack shown: the game knows them; a :class:`~racksmith.play.players.GameView`
        shows only the mover's), the players with their scores and racks, and the last turns."""
        from ..formats.render import render_svg

        n = len(self.nicks)
        board = render_svg(self._pos, players=[self.nicks[(self.to_move + i) % n] for i in range(n)])
        return _game_html(self, board, [str(r) for r in self.racks], self.history)

    def __repr__(self) -> str:
        state = "over" if self.over else f"{self.nicks[self.to_move]} to move"
        scores = ", ".join(f"{n} {s}" for n, s in zip(self.nicks, self.scores))
        return f"<Game {self.ruleset.name}: {scores}; {self.turns} turns, bag {len(self.bag)}, {state}>"


def _rack_after(history: Sequence[Event], i: int) -> "list[int]":
    """The rack of the player of the challenge bonus ``history[i]`` after the play it follows
    (the event before it) and his draw: the tiles he kept and those he drew, as a ``(challenge)``
    line of GCG shows them."""
    play = history[i - 1]
    assert play.kind == EventKind.PLAY and play.move is not None  # (a bonus follows the play it is for)
    kept = Counter(play.rack)
    kept.subtract(play.move.rack_tiles())
    return sorted([*(+kept).elements(), *play.drawn])


#: the last events a game's notebook table lists
_EVENTS_SHOWN = 10


def _game_html(game: Game, svg: str, racks: Sequence[str], history: Sequence[Event]) -> str:
    """A game as a notebook shows it (:meth:`Game._repr_html_`, ``GameView._repr_html_``): ``svg``
    the board beside a table of the players (seat, nick, score, ``racks`` as given: the caller
    hides what its viewer may not see) and the last :data:`_EVENTS_SHOWN` events of ``history``."""
    from ..formats import html

    state = "the game is over" if game.over else f"{game.nicks[game.to_move]} to move"
    head = html.text(f"{game.ruleset.name}, {game.turns} turn{'' if game.turns == 1 else 's'}, "
                     f"bag {len(game.bag)}: {state}")
    scores = game.scores
    players = html.table(("seat", "player", "score", "rack", ""),
                         [(i, nick if name == nick else f"{nick} ({name})", scores[i], racks[i],
                           "to move" if i == game.to_move and not game.over else "")
                          for i, (nick, name) in enumerate(zip(game.nicks, game.names))], right=(0, 2))
    recent = None
    if history:
        shown = history[-_EVENTS_SHOWN:]

        def action(e: Event) -> str:
            if e.move is not None and e.kind in _EVENT_OF_MOVE.values():
                return e.move.notation() + (" (failed challenge)" if e.failed_challenge else "")
            what = e.kind.value.replace("_", " ")
            if e.move is not None:  # a play withdrawn
                return f"{what}: {e.move.notation()}"
            return f"{what} ({e.tiles})" if e.tiles else what

        recent = html.table(("player", "action", "score", "total"),
                            [(game.nicks[e.player], action(e), f"{e.score:+d}", e.total) for e in shown],
                            right=(2, 3),
                            caption=f"last {len(shown)} of {len(history)} events" if len(history) > len(shown) else "events")
    return html.block(head, players, recent, side=svg)
