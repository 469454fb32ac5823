"""The ``endgame`` player: solves the endgame once the bag is empty, plays static equity before.

>>> from racksmith import match                                      # doctest: +SKIP
>>> match("endgame", "equity", 100, seed=1)   # paired games against the static player  # doctest: +SKIP

(``racksmith match --p1 endgame --p2 equity``; self-play's kernel loop plays only the built-in
static players, and refuses ``endgame``.)
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..core.move import Move
from ..core.position import LeavesLike
from ..errors import PositionError, RacksmithError
from ..play.players import BestEquityPlayer
from .endgame import MAX_DEPTH, MAX_THREADS

if TYPE_CHECKING:  # pragma: no cover
    from ..play.players import GameView
    from ..rules.ruleset import Ruleset
    from .endgame import EndgameResult

__all__ = ["EndgamePlayer"]


class EndgamePlayer:
    """A player (:class:`racksmith.play.players.Player`): with the bag empty, the best move of the
    endgame solver (:func:`racksmith.search.endgame.solve_endgame`), from what the player sees (his
    rack, the board; the opponent's rack is the unseen tiles); before, the move of highest static
    equity (:class:`~racksmith.play.players.BestEquityPlayer` with ``leaves``: by default the
    game's ruleset's shipped leaves, None for none).

    ``seconds``: time for one endgame move (the best move of the last depth completed; None: until
    exact); ``plies``: deepest depth (None: no limit); ``threads``: threads searching.

    The endgame solver is for two players: in a game of three or four, the move of highest static
    equity at every turn, the bag empty or not (as :meth:`Position.best_play
    <racksmith.core.position.Position.best_play>` falls back, the searches being for two players),
    and :attr:`last` stays None. So too, with the bag empty, where the solver refuses the position
    (a ruleset file's star reclamation on a board larger than it holds, more stars than it takes
    back: :func:`~racksmith.search.endgame.endgame_refusal`): :attr:`declined` says why."""

    name = "endgame"

    def __init__(self, leaves: "LeavesLike | None" = "shipped", ruleset: "str | Ruleset | None" = None, *,
                 seconds: float | None = 10.0, plies: int | None = None, threads: int = 1) -> None:
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                    or not 0 < seconds < math.inf):
            raise RacksmithError(f"seconds must be a positive number of seconds (or None), got {seconds!r}")
        if plies is not None and (isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= MAX_DEPTH):
            raise RacksmithError(f"plies must be a whole number from 1 to {MAX_DEPTH} (or None), got {plies!r}")
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
            raise RacksmithError(f"threads must be a whole number from 1 to {MAX_THREADS}, got {threads!r}")
        self.static = BestEquityPlayer(leaves, ruleset=ruleset)
        self.seconds = seconds
        self.plies = plies
        self.threads = threads
        self.last: EndgameResult | None = None  #: the EndgameResult of the last endgame move (None before one)
        #: why the solver refused the last position it was given (static equity played), or None
        self.declined: str | None = None

    def choose(self, view: "GameView") -> Move:
        from ..sim.player import check_view

        check_view(view, RacksmithError, ("position", "bag_count"))
        if view.bag_count > 0:
            return self.static.choose(view)
        from ..core.position import Position

        live = view.position
        if len(live.racks) != 2:  # the searches are for two players: static equity, as best_play
            return self.static.choose(view)
        seen = Position(live.ruleset, live.board, (live.racks[0], ()), live.scores, live.zero_turns,
                        live.current_opcodes, lexicon=view.lexicon)
        try:
            result = seen.solve_endgame(self.plies, self.seconds, self.threads)
        except PositionError as e:  # a position the solver does not take (more stars than it takes back): static equity
            self.declined = str(e)
            self.last = None
            return self.static.choose(view)
        self.declined = None
        self.last = result
        if result.best is None:
            return Move.pass_(view.ruleset.alphabet, score=0)
        return result.best
