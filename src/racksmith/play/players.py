"""Players: anything with ``choose(view) -> Move``. Three are built in — best score, best equity
(with a KLV2 leave table, or without leaves) and a random legal move — and a user plugs in his own::

    class Greedy:
        def choose(self, view):
            moves = view.moves(top=1, sort="score")
            return moves[0] if len(moves) else Move.pass_()

A player may also define ``new_game(seed)``, called before each game of a self-play series with a
seed derived from the series seed and the game index (for reproducible random choices).
"""
from __future__ import annotations

import os
import random
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .. import _args
from ..core.move import EXCHANGE, Move, position_racks_known
from ..core.position import LeavesLike
from ..core.turns import EventKind, exchange_cap, unseen_counts
from ..errors import RacksmithError
from ..lexicon import Leaves, Lexicon, load_leaves
from ..movegen.movelist import MoveList
from ..movegen.options import Algorithm, Direction, Sort
from ..rules.alphabet import NO_TILES, THROUGH, Alphabet, Tiles
from ..rules.ruleset import Ruleset

if TYPE_CHECKING:  # pragma: no cover
    from ..core.position import Position
    from .game import Event, Game


class GameView:
    """What the player to move sees: his rack, the board, the scores, the bag count, the history.

    The viewer is always the player to move (:attr:`player`): one view serves every seat of a game,
    each seeing it as his own when his turn comes. ``position`` is the position as he sees it: a
    copy of the game's (the player to move first, yours to push and pop on), with every other
    player's rack hidden (``racks_known`` False: those tiles count among the unseen), as at the
    board. ``history`` hides them too (see :attr:`history`). A bot cannot read its opponent's tiles.
    What the player to move saw of another rack is kept, as at the board: while the bag holds tiles,
    the tiles of that player's plays withdrawn after a challenge that he has not played since (his
    exchange forgets them) are his rack known in part (:attr:`Position.racks_partial`), or his rack
    known when they are all of it (a withdrawn bingo). The hidden racks hold as many tiles as
    they do in the game (:attr:`Position.rack_sizes`: in a game of three players or more with the
    bag empty, not a full rack each "in order").
    """

    __slots__ = ("_game",)

    def __init__(self, game: "Game"):
        from .game import Game

        if not isinstance(game, Game):
            raise RacksmithError(f"a GameView is a view of a Game, got {_args.show(game)}")
        self._game = game

    @property
    def position(self) -> "Position":
        from ..core.position import Position

        game = self._game
        live = game.live_position
        racks, known = _seen_racks(game)
        # (while the bag holds tiles every rack is full, as the default rule has it)
        sizes = None if len(game.bag) else [len(r) for r in live.racks]
        return Position(live.ruleset, live.board.copy(), racks, list(live.scores),
                        live.zero_turns, live.current_opcodes, lexicon=live.lexicon, racks_known=known,
                        rack_sizes=sizes)

    @property
    def player(self) -> int:
        """The seat to move."""
        return self._game.to_move

    @property
    def rack(self) -> Tiles:
        return self._game.rack

    @property
    def scores(self) -> list[int]:
        """Scores by seat (not rotated)."""
        return self._game.scores

    @property
    def bag_count(self) -> int:
        return len(self._game.bag)

    @property
    def history(self) -> "tuple[Event, ...]":
        """The game's events as the player to move sees them. His own are whole; another player's
        show what the board shows: the play, the score and the total, the pass or the withdrawn
        play, but no ``rack`` and no ``drawn`` (both empty), his move without the ``equity``,
        ``leave`` and ``position`` a move list gave it, and an exchange as its count only (a move
        of hidden tiles, written ``-N``, as :meth:`Position.push` takes ``"-3"``). The leftover
        tiles counted at the end of the game (``out``, ``rack_penalty``) are public: shown whole."""
        game = self._game
        viewer, alphabet = game.to_move, game.ruleset.alphabet
        return tuple(_as_seen(e, viewer, alphabet) for e in game.history)

    @property
    def ruleset(self) -> "Ruleset":
        return self._game.ruleset

    @property
    def lexicon(self) -> Lexicon:
        return self._game.lexicon

    @property
    def zero_turns(self) -> int:
        return self._game.zero_turns

    def moves(
        self,
        top: int | None = None,
        *,
        sort: Sort | str = Sort.SCORE,
        leaves: "LeavesLike | None" = None,
        exchanges: bool = False,
        direction: Direction | str = Direction.BOTH,
        algorithm: Algorithm | str = Algorithm.GADDAG,
    ) -> MoveList:
        """The legal moves of the player to move (see :meth:`Position.moves`). The position the
        list (and each of its moves) keeps, ``.position``, is the view's: the other racks hidden."""
        moves = self._game.live_position.moves(
            top, sort=sort, leaves=leaves, exchanges=exchanges, direction=direction, algorithm=algorithm
        )
        _hide_racks(moves, self._game)
        return moves

    def unseen(self) -> list[int]:
        """The tiles the player to move cannot see (bag and the other racks), by tile (index 0 = blanks)."""
        pos = self._game.live_position
        return unseen_counts(pos.ruleset, pos.board, [pos.racks[0]]).tolist()

    def __repr__(self) -> str:
        game = self._game
        scores = ", ".join(f"{nick[:24]} {score}" for nick, score in zip(game.nicks, game.scores))
        return (f"<GameView of {game.nicks[game.to_move][:24]} (seat {game.to_move}): {game.ruleset.name}, "
                f"{game.turns} turns, scores {scores}, bag {len(game.bag)}>")

    def _repr_html_(self) -> str:
        """The game as the player to move sees it: the board with his rack alone (every other rack
        hidden, with its count of tiles), the scores, and the last turns as :attr:`history` shows
        them (no other player's rack, no exchanged tile)."""
        from ..formats.render import render_svg
        from .game import _game_html

        game = self._game
        position = self.position  # the other racks hidden
        seats = len(position.racks)
        sizes = position.rack_sizes  # (the mover first)
        racks = [str(self.rack) if seat == game.to_move else f"hidden ({sizes[(seat - game.to_move) % seats]} tiles)"
                 for seat in range(seats)]
        nicks = [game.nicks[(game.to_move + i) % seats] for i in range(seats)]  # (the position's order: the mover first)
        return _game_html(game, render_svg(position, players=nicks), racks, self.history)


def _seen_racks(game: "Game", shown: "list[Tiles] | None" = None) -> "tuple[list[Tiles], list[bool]]":
    """The racks of the game's position as the player to move sees them, and which are known: his
    own; every other one hidden but for the tiles of it he saw (``Game._shown_racks``: known in
    part, or known when they are all of it)."""
    live = game.live_position
    if shown is None:
        shown = game._shown_racks()
    racks = [live.racks[0], *shown[1:]]
    known = [True] + [bool(s) and len(s) == len(r) for s, r in zip(shown[1:], live.racks[1:])]
    return racks, known


def _hide_racks(moves: MoveList, game: "Game | None" = None) -> None:
    """Hide in the position ``moves`` keeps (a snapshot that :attr:`MoveList.position` makes into a
    position when asked for) every rack but the mover's, each holding as many tiles as it does; with
    the ``game`` the list is of, as :attr:`GameView.position` does (the tiles of another rack the
    mover saw are kept)."""
    snap = moves._position
    if type(snap) is tuple:
        src, board, held, scores, zero_turns = snap[:5]
        shown = game._shown_racks() if game is not None else None
        if shown is None or not any(shown):  # (nothing seen of another rack: the common case, made quickly)
            others = len(held) - 1
            racks, known = [held[0], *(src.ruleset.alphabet.tiles(),) * others], [True] + [False] * others
        else:
            racks, known = _seen_racks(game, shown)
        sizes = tuple(None if k else len(r) for r, k in zip(held, known))
        hidden = None if all(known) else tuple(known)
        moves._position = (src, board, tuple(racks), scores, zero_turns, hidden, sizes)
    elif snap is not None and any(snap.racks_known[1:]):
        moves.position = None


#: events whose tiles are shown at the board: the leftover counted at the end of the game
_PUBLIC_KINDS = frozenset({EventKind.OUT, EventKind.RACK_PENALTY})


def _as_seen(event: "Event", viewer: int, alphabet: "Alphabet") -> "Event":
    """``event`` as the player in seat ``viewer`` sees it. Another player's shows no rack, no tiles
    drawn, and of his move only what was played (an exchange's tiles hidden, their count kept; no
    equity, leave or position, which tell his rack). The viewer's own event is whole, but for the
    position his move was generated in when it shows another player's rack."""
    move = event.move
    if event.player == viewer or event.kind in _PUBLIC_KINDS:
        known = position_racks_known(move) if move is not None else None  # (no copy of the position)
        if known is None or not any(known[1:]):
            return event
        return replace(event, move=replace(move, position=None))
    if move is not None:
        if move.kind == EXCHANGE:
            move = Move.exchange((THROUGH,) * len(move.tiles), alphabet, score=move.score)
        elif move.equity is not None or move.leave is not None or position_racks_known(move) is not None:
            move = replace(move, equity=None, leave=None, position=None)
    if move is event.move and not event.rack and not event.drawn:
        return event
    return replace(event, rack=NO_TILES, drawn=NO_TILES, move=move)


@runtime_checkable
class Player(Protocol):
    """A strategy: the move to make (a placement, an exchange or a pass) for the player to move."""

    def choose(self, view: GameView) -> Move: ...


def _view(view: Any) -> "GameView":
    """``view`` of a player's ``choose``, checked: a :class:`GameView`, or an object with what the
    built-in players read of one (``moves()`` and ``ruleset``: a stand-in made for a test)."""
    if not isinstance(view, GameView) and not (callable(getattr(view, "moves", None)) and hasattr(view, "ruleset")):
        raise RacksmithError(f"a player chooses from a GameView (GameView(game)), got {_args.show(view)}")
    return view


def _first_or_pass(moves, view: GameView) -> Move:
    if len(moves):
        return moves[0]
    return Move.pass_(view.ruleset.alphabet, score=0)


class BestScorePlayer:
    """Plays the highest-scoring placement; with none, exchanges the whole rack if the bag allows
    (:func:`~racksmith.core.turns.exchange_cap`), else passes."""

    name = "score"

    def choose(self, view: GameView) -> Move:
        view = _view(view)
        best = view.moves(top=1, sort="score")[0]  # the pass is always listed: it comes first only without a placement
        if not best.is_pass:
            return best
        rs = view.ruleset
        if 0 < len(view.rack) <= exchange_cap(rs, view.bag_count):
            return Move.exchange(view.rack, rs.alphabet, score=0)
        return Move.pass_(rs.alphabet, score=0)


#: the ``leaves`` of a :class:`BestEquityPlayer` that means the ruleset's shipped leaves
SHIPPED = "shipped"


class BestEquityPlayer:
    """Plays the move of highest static equity (score + leave value, or the end-of-game and opening
    adjustments) among placements, exchanges and the pass. ``leaves``: ``"shipped"`` (the default:
    the game's ruleset's shipped leaves, see :func:`racksmith.lexicon.default_leaves`), a loaded
    leave table, a path to a KLV2 file (or a leave CSV), or None for equity without leave values.

    ``ruleset``: the ruleset a leave file given by path is read with, English by default. A file
    trained for a ruleset of your own (``racksmith leaves train --ruleset polish.toml``) needs that
    ruleset: ``BestEquityPlayer("pl.klv2", ruleset="polish.toml")`` (its path, or the loaded
    :class:`~racksmith.rules.ruleset.Ruleset`); read with other letters it is refused, the error naming the
    ruleset file it was trained with.

    racksmith ships leaves for its own rulesets only (:data:`racksmith.lexicon.SHIPPED_LEAVES`):
    in a game of a ruleset of your own, ``"shipped"`` means no leave values, and this player ranks by
    score and the end-of-game and opening adjustments alone (:meth:`leaves_for` is None). Give it a
    leave file trained for that ruleset (``racksmith leaves train``)."""

    name = "equity"

    def __init__(self, leaves: "LeavesLike | None" = SHIPPED, ruleset: "str | Ruleset | None" = None) -> None:
        #: (the ruleset, its default leaves) of the last game's ruleset: the ruleset itself is kept,
        #: not its id (a ruleset freed could leave its id to another one, and its leaves with it)
        self._shipped: "tuple[Ruleset, Leaves | None] | None" = None
        if isinstance(leaves, str) and leaves == SHIPPED:
            self.leaves = SHIPPED
            return
        if isinstance(leaves, (str, bytes)) or hasattr(leaves, "__fspath__"):
            leaves = load_leaves(os.fsdecode(leaves), ruleset=ruleset)
        elif leaves is not None and not isinstance(leaves, Leaves):
            raise RacksmithError(
                f"leaves must be a Leaves table, the path of a leave file or None, got {type(leaves).__name__}"
            )
        self.leaves = leaves

    def leaves_for(self, ruleset: "Ruleset") -> "Leaves | None":
        """The leaves this player ranks with in a game of ``ruleset``."""
        if self.leaves is not SHIPPED:
            return self.leaves
        from ..rules.ruleset import Ruleset

        if not isinstance(ruleset, Ruleset):
            raise RacksmithError(f"ruleset must be a Ruleset (the game's), got {_args.show(ruleset)}")
        kept = self._shipped
        if kept is None or kept[0] is not ruleset:
            from ..lexicon.shipped_leaves import default_leaves

            kept = self._shipped = (ruleset, default_leaves(ruleset))
        return kept[1]

    def choose(self, view: GameView) -> Move:
        leaves = self.leaves_for(_view(view).ruleset)
        return _first_or_pass(view.moves(top=1, sort="equity", leaves=leaves, exchanges=True), view)


class RandomPlayer:
    """Plays a legal move (placement, exchange or pass) chosen uniformly at random."""

    name = "random"

    def __init__(self, seed: "int | str | None" = None):
        self.rng = random.Random(_args.seed(seed))

    def new_game(self, seed: "int | str") -> None:
        self.rng = random.Random(_args.seed(seed))

    def choose(self, view: GameView) -> Move:
        moves = _view(view).moves(sort="score", exchanges=True)
        if not len(moves):
            return Move.pass_(view.ruleset.alphabet, score=0)
        return moves[self.rng.randrange(len(moves))]


PLAYER_KINDS = {"equity": BestEquityPlayer, "score": BestScorePlayer, "random": RandomPlayer}


def make_player(kind: str, *, leaves: "LeavesLike | None" = SHIPPED, ruleset: "str | Ruleset | None" = None) -> Player:
    """A built-in player by name: ``equity`` (uses ``leaves``: by default the game's ruleset's
    shipped leaves, as :class:`BestEquityPlayer`; None for none), ``score`` or ``random``."""
    if not isinstance(kind, str):
        raise RacksmithError(f"a player kind is a name ({', '.join(PLAYER_KINDS)}), got {type(kind).__name__}")
    k = kind.strip().lower()
    if k == "equity":
        return BestEquityPlayer(leaves, ruleset=ruleset)
    if k == "score":
        return BestScorePlayer()
    if k == "random":
        return RandomPlayer()
    raise RacksmithError(f"unknown player {kind!r}: use one of {', '.join(PLAYER_KINDS)}")
