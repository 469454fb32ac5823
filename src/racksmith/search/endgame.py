"""The exact endgame solver: with the bag empty both racks are known, and the rest of the game is
a finite game of perfect information that negamax solves.

>>> pos = Position.from_cgp(cgp)                                     # doctest: +SKIP
>>> r = pos.solve_endgame()                                          # doctest: +SKIP
>>> r.value, r.exact, str(r.best), [str(m) for m in r.pv]            # doctest: +SKIP
(18, True, '2D LOUP', ['2D LOUP', 'H1 cEI(L)', '10G GUM'])

``value`` is what best play by both sides adds to the mover's spread: (mover's final score −
opponent's final score) − (mover's score − opponent's score now), with the ruleset's end of the
game (:mod:`racksmith.core.turns`): going out adds twice the other rack to the spread (under both
end rules), and ``ruleset.zero_turn_limit`` scoreless turns in a row end the game with each
player losing his own rack.

The search (:mod:`racksmith.search._endgame`, described in docs/ALGORITHM.md section 13) deepens
one ply at a time; ``exact`` says the last depth reached the end of every line, and then the
value is the game's. Before it starts, the lexicon is cut down to the words a play could make
with the tiles of both racks on this board (:func:`pruned_rules`).

Several moves (``top``, "multi-PV"): the ``top`` best root moves each get their exact value and
line, every other root move is proven no better than the last of them (docs/ALGORITHM.md section
13); the best is the same move as with ``top`` 1, with the same value and line.

Passes: a player with no placement passes without spending a ply. With the bag empty only passes
are scoreless turns (a placement resets the count, also one worth 0), so two passes in a row end
the game in the search: the value is provably the same as under the full count of scoreless turns
(docs/ALGORITHM.md section 13), and the principal variation is completed with the passes the full
count needs.

Эрудит (``ruleset.star_reclamation``): the search plays the moves that take stars back as the game
does (:mod:`racksmith.movegen.reclaim` lists the same moves for ``Position.moves``); a move of the
principal variation that takes stars back names them (``Move.reclaimed``).
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _args
from .._interrupt import cancelling, check_event, run_interruptibly
from ..core.move import Move
from ..core.turns import Adjustment, Ending
from ..errors import IllegalMoveError, PositionError, RacksmithError
from ..lexicon import Lexicon
from ..lexicon.build import build_packed, pack_words
from ..movegen._movegen import Rules
from ..rules.alphabet import BLANK, LETTER_MASK
from ..rules.ruleset import Ruleset

if TYPE_CHECKING:  # pragma: no cover
    from ..core.position import Position
    from ._endgame import Search

__all__ = ["EndgameLine", "EndgameResult", "EndgameSolver", "MAX_DEPTH", "MAX_SPREAD", "MAX_STARS", "MAX_THREADS", "MAX_VALUE",
           "solve_endgame", "pruned_rules"]

MAX_DEPTH = 120  #: deepest iteration (plies); every real endgame is solved long before
MAX_THREADS = 64
MAX_STARS = 8  #: Эрудит: the most stars (on the board and the racks) the search takes back
MAX_STAR_SQUARES = 256  #: ... on a board of at most this many squares
DEFAULT_TT_MB = 64  #: transposition table size by default (16-byte entries)
#: what a message on a transposition table the memory cannot hold asks for (the kernel's too, and
#: the pre-endgame's): the command line says its option instead (racksmith endgame --tt-mb)
SMALLER_TT_MB = "give a smaller tt_mb"
MAX_SPREAD = 1 << 24  #: the search's spread (the mover's score minus the opponent's) lies within this, either way
#: every final spread the search could reach lies below this, either way: half the kernel's
#: infinity (2**29 in search/_endgame.pyx), so that its 32-bit values never reach it (check_value_range)
MAX_VALUE = 1 << 28


@dataclass(frozen=True, slots=True)
class EndgameLine:
    """One of the best root moves of :attr:`EndgameResult.top`: ``move``, its ``value`` (what it
    adds to the mover's spread with best play after it, as :attr:`EndgameResult.value`), ``pv`` its
    line (``move`` first; each move with its ``score``, the players taking turns, the player to
    move first) and ``exact``: no line of its search was cut by the depth, so ``value`` is the
    game's. When the line plays to the end of the game (always when ``exact``): ``ending``, how
    it ends (:class:`~racksmith.core.turns.Ending`: who went out, or the last of the scoreless
    turns, with the end-of-game adjustments), and ``final_scores``, the scores then; both with
    the players in the position's order (0: the player to move), None when the line is cut."""

    move: Move
    value: int
    pv: tuple[Move, ...]
    exact: bool
    # (what ``pv`` gives on the position: not compared, as ``pv`` is)
    ending: Ending | None = field(default=None, compare=False)
    final_scores: tuple[int, int] | None = field(default=None, compare=False)

    @property
    def final_spread(self) -> int | None:
        """The player to move's final score minus the opponent's at the end of the line, or None
        when the line is cut before the end of the game. With ``exact``, the spread now plus
        ``value``."""
        if self.final_scores is None:
            return None
        return self.final_scores[0] - self.final_scores[1]

    def to_dict(self) -> dict[str, Any]:
        """One entry of the ``top`` list of ``racksmith endgame --top K --json``."""
        return {"move": self.move.notation(), "value": self.value, "pv": [m.notation() for m in self.pv],
                "exact": self.exact, **_line_dict(self)}


def _line_dict(line: "EndgameLine | None") -> dict[str, Any]:
    """The keys of a line's JSON that say how it is played and how it ends: ``line`` (each move with
    its score and its player, 0 the player to move), ``ending`` (None when the line is cut:
    ``reason`` "out" or "zero_turns", ``player`` who went out or took the last scoreless turn, and
    ``adjustments`` as ``/api/play`` gives them: ``player``, ``kind``, ``points``, ``tiles``),
    ``final_scores`` and ``final_spread`` (None when the line is cut)."""
    if line is None:
        return {"line": [], "ending": None, "final_scores": None, "final_spread": None}
    ending = None
    if line.ending is not None:
        a = line.move.alphabet
        ending = {"reason": str(line.ending.reason), "player": line.ending.player,
                  "adjustments": [{"player": adj.player, "kind": str(adj.kind), "points": adj.points,
                                   "tiles": a.rack_string(adj.tiles, blanks_last=True)}
                                  for adj in line.ending.adjustments]}
    return {
        "line": [{"move": m.notation(), "score": m.score or 0, "player": i % 2} for i, m in enumerate(line.pv)],
        "ending": ending,
        "final_scores": None if line.final_scores is None else list(line.final_scores),
        "final_spread": line.final_spread,
    }


@dataclass(frozen=True, slots=True)
class EndgameResult:
    """The answer of :func:`solve_endgame` (or of one depth of it).

    ``value``: the spread best play adds (see the module docstring); ``exact``: the search reached
    the end of every line, so ``value`` is the game's; ``depth``: plies of the last depth searched
    (0: none completed, ``best`` is then the top move by score); ``best``: the move to play (None
    when the game is over); ``pv``: the principal variation, ``best`` first, played to the end of
    the game when ``exact``; ``nodes``: positions searched (each position reached by a move,
    including the ends of the game; a depth the time limit cut off included, as in ``seconds``);
    ``seconds``: wall time; ``move_value``: the value of the move asked about with ``move=``
    (exact when ``exact``), else None; ``top``: the best root moves asked for with ``top=``
    (:class:`EndgameLine`, best first, ``best`` with ``value`` and ``pv`` the first; ties by the
    order of the root moves, highest score first), empty when the game is over; ``multi_pv``:
    more than one was asked for (``to_dict`` then lists them). How ``pv`` ends the game and the
    final scores: :attr:`ending`, :attr:`final_scores`, :attr:`final_spread` (those of ``top[0]``,
    :attr:`line`)."""

    value: int
    exact: bool
    depth: int
    best: Move | None
    pv: tuple[Move, ...]
    nodes: int
    seconds: float
    move_value: int | None = None
    top: tuple[EndgameLine, ...] = ()
    multi_pv: bool = False

    @property
    def line(self) -> EndgameLine | None:
        """The best move's line (the first of ``top``) with how it ends and the final scores
        (:class:`EndgameLine`), or None when the game is over."""
        return self.top[0] if self.top else None

    @property
    def ending(self) -> Ending | None:
        """How ``pv`` ends the game (:attr:`EndgameLine.ending`), or None when it stops before the
        end (a search cut by its depth or time, ``exact`` false, may still see its line to the end,
        and gives it then) or the game is over."""
        return self.top[0].ending if self.top else None

    @property
    def final_scores(self) -> tuple[int, int] | None:
        """The scores at the end of ``pv`` (the player to move first), or None when it stops before
        the end."""
        return self.top[0].final_scores if self.top else None

    @property
    def final_spread(self) -> int | None:
        """The player to move's final score minus the opponent's at the end of ``pv`` (with
        ``exact``: the spread now plus ``value``), or None when it stops before the end."""
        return self.top[0].final_spread if self.top else None

    @property
    def best_move(self) -> Move | None:
        """``best`` under the name ``SimResult`` and ``PegResult`` give their move."""
        return self.best

    def __repr__(self) -> str:
        # one line: the value, whether it is exact, the best move and the line's length
        if self.best is None:
            return f"<EndgameResult value {self.value:+d}, the game is over>"
        state = "exact" if self.exact else "not exact"
        asked = "" if self.move_value is None else f", move asked {self.move_value:+d}"
        return (f"<EndgameResult value {self.value:+d}, {state}, best {self.best.notation()}, "
                f"line of {len(self.pv)} move{'' if len(self.pv) == 1 else 's'}, depth {self.depth}{asked}>")

    def _repr_html_(self) -> str:
        """The value, the best move and its line, whether it is exact, as ``racksmith endgame``
        shows them; with several best moves (``top``), a table of them as ``--top`` does."""
        from ..formats import html

        if self.best is None:
            return html.text("the game is over: nothing to play")
        state = "exact" if self.exact else f"depth {self.depth}, not exact"
        head = html.text(html.Raw(f"best <b>{html.escape(self.best.notation())}</b>"),
                         f" value {self.value:+d} ({state})")
        lines = self.top or (EndgameLine(self.best, self.value, self.pv, self.exact),)
        rows = ((i, line.move.notation(), f"{line.value:+d}", line.exact, " ".join(m.notation() for m in line.pv))
                for i, line in enumerate(lines, 1))
        t = html.table(("#", "move", "value", "exact", "line"), rows, right=(0, 2), total=len(lines))
        asked = None
        if self.move_value is not None:
            asked = html.text(f"the move asked: {self.move_value:+d}, loses {self.value - self.move_value} "
                              f"against the best")
        tail = html.text(f"{self.nodes:,} nodes in {self.seconds:.2f} s")
        return html.block(head, t, asked, tail)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith endgame --json``: the fields above, and ``line`` (each
        move of ``pv`` with its ``score`` and its ``player``, 0 the player to move), ``ending``
        (``reason`` "out" or "zero_turns", ``player``, ``adjustments`` [{``player``, ``kind``,
        ``points``, ``tiles``}]), ``final_scores`` and ``final_spread``, null when ``pv`` stops
        before the end of the game."""
        out: dict[str, Any] = {
            "value": self.value,
            "exact": self.exact,
            "depth": self.depth,
            "best": self.best.notation() if self.best is not None else None,
            "pv": [m.notation() for m in self.pv],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
            **_line_dict(self.line),
        }
        if self.move_value is not None:
            out["move_value"] = self.move_value
        if self.multi_pv:
            out["top"] = [line.to_dict() for line in self.top]
        return out


def solve_endgame(
    position: "Position",
    plies: int | None = None,
    seconds: float | None = None,
    threads: int = 1,
    *,
    on_depth: Callable[[EndgameResult], None] | None = None,
    move: "Move | str | None" = None,
    tt_mb: int = DEFAULT_TT_MB,
    cancel: "threading.Event | None" = None,
    top: int = 1,
) -> EndgameResult:
    """Solve the endgame of ``position`` (the bag empty; an opponent's rack left empty in the
    position is the unseen tiles). ``plies``: stop after that depth (None: until exact);
    ``seconds``: a time limit on the whole call, counted from its start (``result.seconds`` is the
    whole call's too): the setting up (checking the position and cutting the lexicon down to the
    words the two racks could play: a few ms, up to ~0.1 s for a large ENABLE endgame, which is
    not cut short and so is the floor of any limit) and the search, which stops at the limit
    with the last depth completed; a limit that ends before depth 1 completes gives the highest
    scoring move, unsearched (``depth`` 0, ``value`` 0, not exact); ``threads``: threads sharing
    the root moves (the values and the moves, the best and ``top``'s, do not depend on it; among
    lines of equal value after a move, the one given may: the threads share what they learn,
    which orders the moves searched below it); ``on_depth``: called with the answer of each depth
    as it completes, on the caller's thread between two depths (the search waits for it, and the
    time it takes counts against ``seconds``);
    ``move``: also find this move's exact value (``result.move_value``); ``tt_mb``: megabytes of
    transposition table; ``cancel``: a ``threading.Event`` another thread may set to stop the
    search at once, as if its time were up (the answer is the last depth completed, ``exact`` only
    if that depth was); ``top``: how many of the best moves to value exactly, each with its line
    (``result.top``; more than there are: every move), the others proven no better than the last
    of them (1: the best alone, the fastest). Ctrl-C stops the search and raises
    ``KeyboardInterrupt``. A position whose final spread could leave the search's 32-bit values
    (:data:`MAX_VALUE`: a user ruleset of huge tile values or word multipliers) is refused with a
    :class:`~racksmith.errors.PositionError` (:func:`check_value_range`)."""
    began = time.monotonic()  # the time limit and the time reported count the setting up (pruning the lexicon)
    check_top(top)
    solver = EndgameSolver(position, tt_mb=tt_mb)
    return solver.solve(plies, seconds, threads, on_depth=on_depth, move=move, cancel=cancel, top=top, _began=began)


def check_top(top: int) -> int:
    """``top`` (how many best moves to value), checked: a whole number, 1 or more."""
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise RacksmithError(f"top must be a whole number of moves, 1 or more, got {top!r:.40}")
    return int(top)


# --- the lexicon of one endgame --------------------------------------------------------------------------
def pruned_rules(ruleset: Ruleset, lexicon: Lexicon, board: np.ndarray, tiles: bytes) -> Rules:
    """The move generator's tables over only the words of ``lexicon`` that a play on ``board``
    could make while ``tiles`` (every tile still to be played) go down: through the board's
    tiles, or of those tiles alone in a free stretch of a row or column. Every move of the rest of
    the game forms only such words (its tiles come from ``tiles``, and the squares around a word
    that are empty now stay empty until a tile from ``tiles`` fills them), so the moves found are
    the same, faster."""
    from ..movegen.generate import _rules
    from ._endgame import playable_words  # (the kernel is loaded at the first endgame, not with racksmith)

    full = _rules(ruleset, lexicon)
    words = sorted(set(playable_words(full, np.ascontiguousarray(board, dtype=np.uint8), bytes(tiles))))
    text, offsets = pack_words(words)
    nodes = build_packed(text, offsets, gaddag=True)
    nodes.flags.writeable = False
    name = f"{lexicon.name or 'lexicon'} (endgame: {len(words)} words)"
    # no word maps: the searches list every placement by the KWG walk and never read them, and
    # building one (or reading it from the lexicon cache, where each position's lexicon left its
    # own file) took most of the setting up of a large endgame
    return Rules(Lexicon(nodes, ruleset.alphabet, name=name), ruleset, wordmap=False)


def played_pool(ruleset: Ruleset, board: np.ndarray, tiles: bytes) -> bytes:
    """The tiles that may go down in the rest of the game, for pruning the lexicon and deciding how
    passes end it: ``tiles`` (both racks and any bag), and with Эрудит's star reclamation one more
    blank for every star on the board whose real letter is among ``tiles``. A rack holds its own
    blanks and the stars it takes back this turn; a star placed later was one of the blanks of
    ``tiles``, and a star whose letter no rack holds can never be taken back (letters on the board
    stay there), so no rack ever holds more blanks than these."""
    tiles = bytes(tiles)
    if not ruleset.star_reclamation:
        return tiles
    held = set(tiles)
    extra = sum(1 for t in board[(board & BLANK) != 0] if int(t) & LETTER_MASK in held)
    return tiles + bytes(extra)


def check_stars(ruleset: Ruleset, board: np.ndarray, tiles: bytes) -> None:
    """Refuse a position with star reclamation that the search cannot hold: more stars in the game
    than it takes back at once (MAX_STARS; Эрудит has 3), or a board of more than
    MAX_STAR_SQUARES squares (Эрудит's has 225)."""
    if not ruleset.star_reclamation:
        return
    if board.size > MAX_STAR_SQUARES:
        raise PositionError(f"star reclamation on a board of {board.size} squares: the endgame search takes stars "
                            f"back on boards of at most {MAX_STAR_SQUARES}")
    n = int(np.count_nonzero(board & BLANK)) + bytes(tiles).count(0)
    if n > MAX_STARS:
        raise PositionError(f"{n} stars (blanks) in the game: the endgame search takes back at most {MAX_STARS}")


def endgame_refusal(ruleset: Ruleset) -> str | None:
    """Why the endgame search takes no endgame of ``ruleset`` at all (its star reclamation on a
    board larger than it holds, or more blanks than it takes back: :func:`check_stars`), or None."""
    if not ruleset.star_reclamation:
        return None
    if ruleset.rows * ruleset.cols > MAX_STAR_SQUARES:
        return (f"star reclamation on a board of {ruleset.rows * ruleset.cols} squares: the endgame search takes stars "
                f"back on boards of at most {MAX_STAR_SQUARES}")
    if ruleset.blanks > MAX_STARS:
        return f"{ruleset.blanks} blanks with star reclamation: the endgame search takes back at most {MAX_STARS}"
    return None


def check_spread(spread: int) -> None:
    """Refuse scores the search cannot hold: the mover's score minus the opponent's must lie within
    MAX_SPREAD either way (no real game comes near)."""
    if not -MAX_SPREAD <= spread <= MAX_SPREAD:
        raise PositionError(f"the scores differ by {abs(spread)} points: the endgame search takes scores that differ "
                            f"by at most {MAX_SPREAD}")


def check_value_range(ruleset: Ruleset, lexicon: Lexicon, spread: int, tiles: bytes, limit: int = MAX_VALUE,
                      search: str = "endgame search") -> None:
    """Refuse a position whose final spread could leave the search's 32-bit values (a user ruleset
    of huge tile values or word multipliers; no shipped one comes near): the spread now, every
    tile still to be played (``tiles``: both racks and any bag) going down in a play of the most
    one play could score (:func:`~racksmith.movegen.generate.play_score_bound`), and the end of
    the game moving the spread by at most twice the value of those tiles must stay below
    ``limit``."""
    from ..movegen.generate import play_score_bound

    tiles = bytes(tiles)
    play = play_score_bound(ruleset, lexicon.longest)
    most = abs(spread) + len(tiles) * play + 2 * sum(ruleset.values[t & LETTER_MASK] for t in tiles)
    if most >= limit:
        raise PositionError(
            f"the {search} cannot hold this position's scores: on the {ruleset.name} board with lexicon "
            f"{lexicon.name or '?'} a play could score up to {play:,.0f} points, and with {len(tiles)} tiles still to "
            f"play (and a spread of {spread:+,} now) the final spread could reach {most:,.0f}, beyond the {limit:,} "
            "the search holds: lower the ruleset's tile values, word multipliers or rack size"
        )


def _effective_zero(zero: int, limit: int) -> tuple[int, int]:
    """(count, limit) of scoreless turns the search uses: every count up to ``limit`` - 2 is 0 and
    ``limit`` - 1 is 1, of 2 (a limit of 1 or 2 is kept: a count reset by a placement must stay
    below the limit minus one). With the bag empty only passes are scoreless (a placement resets the
    count, also one worth 0), and two passes in a row leave the position as it was: the player to
    move then could have passed the first time, so two passes decide the game as the full count
    would (docs/ALGORITHM.md section 13)."""
    if limit <= 2:
        return zero, limit
    return (1 if zero >= limit - 1 else 0), 2


def _pass_zero(zero: int, limit: int) -> int:
    """The count the search gives the position after a pass at the root when it is not the root's
    count plus one (else -1): a pass from a count up to ``limit`` - 3 leaves one
    up to ``limit`` - 2, which is 0 of 2 again. The root's value is the same either way; the pass's
    own value (``move="-"``) needs it, since a pass the opponent answers with a pass does not end
    the game then."""
    if limit <= 2 or zero + 1 > limit - 2:
        return -1
    return 0


# --- the solver ------------------------------------------------------------------------------------------
class EndgameSolver:
    """One endgame, ready to solve: the position checked, the lexicon pruned, the search set up.
    :meth:`solve` may be called more than once (the transposition table is kept). ``lane_cache``:
    each search thread keeps the placements of the lanes it walked (18 MB), which changes no list
    and no node count, only the time; False walks every lane again (for tests and A/B runs)."""

    def __init__(self, position: "Position", *, tt_mb: int = DEFAULT_TT_MB, lane_cache: bool = True):
        if isinstance(tt_mb, bool) or not isinstance(tt_mb, int) or not 1 <= tt_mb <= 1 << 16:
            raise RacksmithError(f"tt_mb must be a whole number of megabytes, 1 to 65536, got {tt_mb!r}")
        if type(lane_cache) is not bool:
            lane_cache = _args.flag(lane_cache, "lane_cache")
        self.position = _endgame_position(position)
        pos = self.position
        rs = pos.ruleset
        self.ruleset = rs
        self.over = pos.is_over
        self.search: Search | None = None
        if self.over:
            return
        check_spread(pos.scores[0] - pos.scores[1])
        lexicon = pos.lexicon
        if not isinstance(lexicon, Lexicon):
            raise RacksmithError(
                f"the endgame solver needs a KWG lexicon (racksmith.lexicon.Lexicon), got {type(lexicon).__name__}"
            )
        rack0, rack1 = bytes(pos.racks[0]), bytes(pos.racks[1])
        check_stars(rs, pos.board, rack0 + rack1)
        pool = played_pool(rs, pos.board, rack0 + rack1)
        check_value_range(rs, lexicon, pos.scores[0] - pos.scores[1], pool)
        zero, limit = _effective_zero(pos.zero_turns, rs.zero_turn_limit)
        rules = pruned_rules(rs, lexicon, pos.board, pool)
        bits = max(10, min(32, int(math.log2(tt_mb)) + 16))
        from ._endgame import Search  # (the kernel is loaded at the first endgame, not with racksmith)

        try:
            self.search = Search(rules, bits, lane_cache=lane_cache)
        except MemoryError as e:  # a table larger than the machine gives: what to change
            raise RacksmithError(str(e) or f"no memory for the endgame search: {SMALLER_TT_MB}") from None
        self._solving = threading.Lock()  # one solve at a time: the search's tables are its own
        self.search.set_position(np.ascontiguousarray(pos.board, dtype=np.uint8), rack0, rack1,
                                 pos.scores[0] - pos.scores[1], zero, limit,
                                 pass_zero=_pass_zero(pos.zero_turns, rs.zero_turn_limit))
        self.root = self.search.root_moves()

    def _move_index(self, move: "Move | str") -> int:
        pos = self.position
        resolved = pos.resolve(move)
        recs = self.root
        for i in range(len(recs)):
            if _move(recs[i], pos.ruleset, pos.board) == resolved:
                return i
        raise _not_legal(pos, resolved)

    def solve(
        self,
        plies: int | None = None,
        seconds: float | None = None,
        threads: int = 1,
        *,
        on_depth: Callable[[EndgameResult], None] | None = None,
        move: "Move | str | None" = None,
        cancel: "threading.Event | None" = None,
        top: int = 1,
        _began: float | None = None,
    ) -> EndgameResult:
        """Iterative deepening; see :func:`solve_endgame` for the arguments (``_began``: when the
        solver's setting up began, for :func:`solve_endgame`'s clock)."""
        top = check_top(top)
        if plies is not None and (isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= MAX_DEPTH):
            raise RacksmithError(f"plies must be a whole number from 1 to {MAX_DEPTH} (or None), got {plies!r}")
        if seconds is not None and (
            isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < math.inf
        ):
            raise RacksmithError(f"seconds must be a positive number of seconds (or None), got {seconds!r}")
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
            raise RacksmithError(f"threads must be a whole number from 1 to {MAX_THREADS}, got {threads!r}")
        _args.callback(on_depth, "on_depth")
        check_event(cancel, RacksmithError)
        start = time.monotonic() if _began is None else _began
        if self.over:
            return EndgameResult(0, True, 0, None, (), 0, time.monotonic() - start, multi_pv=top > 1)
        first = self._move_index(move) if move is not None else -1
        search = self.search
        assert search is not None
        if not self._solving.acquire(blocking=False):
            raise RacksmithError("this EndgameSolver is solving in another thread: give each thread its own "
                                 "(EndgameSolver(position)), or wait for that solve to return")
        try:
            search.resume()  # (a stop that ended an earlier solve, its time limit or a cancel, is over)
            with cancelling(cancel, search.stop):
                return run_interruptibly(
                    lambda: self._deepen(start, plies, seconds, threads, on_depth, first, cancel, top),
                    search.stop, "racksmith-endgame")
        finally:
            self._solving.release()

    def _deepen(self, start, plies, seconds, threads, on_depth, first, cancel=None, top=1) -> EndgameResult:
        search = self.search
        assert search is not None
        deadline = start + seconds if seconds is not None else 0.0
        nodes = 0
        best: EndgameResult | None = None
        k = min(top, len(self.root))  # more than there are: every root move
        for depth in range(1, (plies or MAX_DEPTH) + 1):
            if deadline and time.monotonic() >= deadline:  # (the setting up used it up: no depth begins)
                break
            found = search.search(depth, deadline, threads, first, k)
            if found is None:
                nodes += search.last_nodes  # the depth cut off searched too
                break
            nodes += found["nodes"]
            best = self._result(found, depth, nodes, time.monotonic() - start, top > 1)
            if on_depth is not None:
                on_depth(best)
            if best.exact:
                break
            if deadline and time.monotonic() >= deadline or cancel is not None and cancel.is_set():
                break
        if best is None:  # stopped before depth 1 ended (or began): the best move by score, unsearched
            m = _move(self.root[0], self.ruleset, self.position.board)
            return EndgameResult(0, False, 0, m, (m,), nodes, time.monotonic() - start,
                                 top=(EndgameLine(m, 0, (m,), False),), multi_pv=top > 1)
        # the whole search's time and nodes, the depth cut off included
        return replace(best, nodes=nodes, seconds=time.monotonic() - start)

    def _result(self, found: dict, depth: int, nodes: int, seconds: float, multi_pv: bool = False) -> EndgameResult:
        """One depth's answer; each of the best moves' lines is completed as the best's is."""
        lines = []
        for idx, value, records, exact in found["top"]:
            pv, ending, final = self._line(records, complete=found["exact"])
            move = pv[0] if pv else _move(self.root[idx], self.ruleset, self.position.board)
            lines.append(EndgameLine(move, int(value), tuple(pv), bool(exact), ending, final))
        first = lines[0]
        return EndgameResult(
            value=int(found["value"]),
            exact=bool(found["exact"]),
            depth=depth,
            best=first.move,
            pv=first.pv,
            nodes=nodes,
            seconds=seconds,
            move_value=None if found["first_value"] is None else int(found["first_value"]),
            top=tuple(lines),
            multi_pv=multi_pv,
        )

    def _line(self, records, complete: bool = False
              ) -> tuple[list[Move], Ending | None, tuple[int, int] | None]:
        """The search's principal variation as moves (a star taken back is named by the board the
        move is made on, so the line is played out as it goes); with ``complete``, followed by the
        passes that the full count of scoreless turns needs after the search's two (the value is
        the same: docs/ALGORITHM.md section 13). Also how the line ends the game and the final
        scores, the players in the position's order (None, None when it stops before the end)."""
        p = self.position.copy(stack=False)
        out = []
        for rec in records:
            m = _move(rec, self.ruleset, p.board)
            p.push(m, trusted=True)
            out.append(m)
        if complete:
            a = self.ruleset.alphabet
            while not p.is_over:
                m = Move.pass_(a, score=0)
                p.push(m, trusted=True)
                out.append(m)
        outcome = p.outcome()
        if outcome is None:
            return out, None, None
        # racks and scores rotate with each turn: after k turns, index j is the player (j + k) % 2 of the start
        k = len(out)

        def player(j: int) -> int:
            return (j + k) % 2

        e = outcome.ending
        ending = Ending(e.reason, player(e.player),
                        tuple(Adjustment(player(adj.player), adj.kind, adj.points, adj.tiles) for adj in e.adjustments))
        final = (int(outcome.scores[player(0)]), int(outcome.scores[player(1)]))
        return out, ending, final


def _move(rec, ruleset: Ruleset, board: np.ndarray) -> Move:
    """A search record as a move on ``board`` (the position it is made in). A record that takes
    stars back has their count in ``leave`` and their squares in the bytes of ``equity``
    (search/_endgame.pyx)."""
    a = ruleset.alphabet
    if int(rec["kind"]) != 0:
        return Move.pass_(a, score=0)
    n = int(rec["length"])
    reclaimed: tuple[tuple[int, int, int], ...] = ()
    k = int(rec["leave"])
    if k:
        cols = board.shape[1]
        squares = np.frombuffer(np.float64(rec["equity"]).tobytes(), dtype=np.uint8)[:k]
        reclaimed = tuple((int(s) // cols, int(s) % cols, int(board[s // cols, s % cols]) & LETTER_MASK)
                          for s in squares)
    return Move.place(int(rec["row"]), int(rec["col"]), int(rec["dir"]) == 0, bytes(rec["tiles"][:n]), a,
                      score=int(rec["score"]), reclaimed=reclaimed)


def _not_legal(position: "Position", move: Move) -> RacksmithError:
    """The error for a move that is not among the root moves of ``position``: with the reason
    :func:`~racksmith.core.validation.check_move` gives (``racksmith validate``'s), as
    :func:`~racksmith.core.validation.why_not_legal` writes it, and its reason code and words
    (an :class:`~racksmith.errors.IllegalMoveError`)."""
    from ..core.validation import check_move, why_not_legal

    message = f"not a legal move of the player to move here: {why_not_legal(position, [move])}"
    try:
        check_move(position, move)
    except IllegalMoveError as e:
        return IllegalMoveError(e.reason, message, e.words)
    except RacksmithError:
        pass
    return RacksmithError(message)


def _bag_hint(position: "Position", in_bag: int) -> str:
    """Where a position with ``in_bag`` tiles in the bag is solved instead: the pre-endgame solver
    while it takes that many (fewer than the ruleset's exchange limit and at most its MAX_BAG:
    1 to 6 tiles in English), else a simulation."""
    from .peg import MAX_BAG as PEG_MAX_BAG

    most = min(position.ruleset.exchange_limit - 1, PEG_MAX_BAG)
    if in_bag > most:
        return " (simulate instead: racksmith sim, or Position.simulate)"
    held = "one" if most == 1 else f"1 to {most} tiles"
    return f" (with {held} in the bag it is a pre-endgame: racksmith peg, or Position.solve_peg)"


def _endgame_position(position: "Position") -> "Position":
    """A copy of ``position`` with both racks known: an unknown opponent's rack (empty in a CGP)
    is the unseen tiles, which with the bag empty are his. Refuses a bag that is not empty."""
    from ..core.position import Position

    if not isinstance(position, Position):
        raise RacksmithError(f"position must be a racksmith Position, got {type(position).__name__}")
    if len(position.racks) != 2:
        raise PositionError(f"an endgame is between two players; this position has {len(position.racks)} racks")
    in_bag = position.bag_count
    if in_bag:
        raise PositionError(
            f"the bag holds {in_bag} tile{'s' if in_bag != 1 else ''}: an endgame needs it empty" + _bag_hint(position, in_bag)
        )
    racks = position.inferred_racks()
    if racks[0] is None:  # both racks unknown: the unseen tiles do not tell how they are shared
        from ..sim.simulate import UNKNOWN_MOVER

        raise PositionError(UNKNOWN_MOVER)
    if racks[1] is None:  # pragma: no cover - with the bag empty and the mover's rack known, the opponent's is certain
        raise PositionError("a rack is not known and the unseen tiles do not tell it: give both racks")
    p = position.copy(stack=False)
    p.racks = [racks[0], racks[1]]
    p._known = None  # both racks known now
    return p
