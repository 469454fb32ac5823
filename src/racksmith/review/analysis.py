"""Analysis of a recorded game: for every turn, where the move played ranks among all the moves by
static equity, the best moves, and the equity lost; a summary per player.

The position of each turn comes from the replay (:mod:`racksmith.review.replay`): the mover's recorded
rack, and the opponent's rack when the record reveals it (so that the bag, exchanges and the
end-of-game equity are exact). Turns whose rack is not recorded, or whose exchange is hidden, are
listed without a rank.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .. import _args
from .._interrupt import check_event
from ..core.move import Move, MoveKind
from ..core.turns import EventKind
from ..errors import RacksmithError
from ..movegen.movelist import RECLAIM_KIND
from ..rules.symmetry import listed_opening, opening_mirror
from .replay import Replay, ReplayTurn


@dataclass(frozen=True, slots=True)
class Candidate:
    """One of the best moves of a turn; ``rank`` by equity, moves that tie sharing the better rank."""

    notation: str
    score: int
    equity: float
    bingo: bool
    rank: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.notation, "score": self.score, "equity": round(self.equity, 3), "bingo": self.bingo,
                "rank": self.rank}


@dataclass(frozen=True, slots=True)
class EndgameGrade:
    """A turn played with the bag empty, graded by the endgame solver: ``value`` of the best move
    and ``played_value`` of the move played (what each adds to the mover's spread by the end of
    the game under best play), ``lost`` = value − played_value, ``best`` the solver's move;
    ``exact`` false when the time ran out first (then the values are those of the last depth)."""

    value: int
    played_value: int
    lost: int
    best: str
    exact: bool

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "played_value": self.played_value, "lost": self.lost, "best": self.best,
                "exact": self.exact}


@dataclass(frozen=True, slots=True)
class TurnAnalysis:
    """One turn. ``rank`` is 1 for the best move (ties share the better rank), None when the move
    played is not among the legal moves (a phony, a hidden exchange) or the rack is unknown."""

    turn: int
    line: int
    player: str
    rack: str
    played: str
    played_score: int
    played_equity: float | None
    rank: int | None
    moves: int
    best: tuple[Candidate, ...]
    equity_lost: float | None
    bingo_played: bool
    bingo_available: bool
    withdrawn: bool = False
    note: str = ""
    endgame: EndgameGrade | None = None
    #: with a simulation (``analyze(..., sim=...)``): the win% of the move played and of the best
    #: simulated move, the win% lost and MAGPIE's grade of it (best / inaccuracy / mistake / blunder);
    #: None on a turn with the bag empty (``endgame`` grades it)
    win_pct: float | None = None
    best_win_pct: float | None = None
    win_pct_lost: float | None = None
    grade: str | None = None
    #: with ``sim={"infer": True}``: the opponent's last play (``-N`` for an exchange) the
    #: simulation drew his rack from, and how many leaves it kept (None: his rack was uniform)
    inferred_from: str | None = None
    inferred_leaves: int | None = None

    @property
    def bingo_missed(self) -> bool:
        return self.bingo_available and not self.bingo_played

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "line": self.line,
            "player": self.player,
            "rack": self.rack,
            "played": self.played,
            "score": self.played_score,
            "equity": None if self.played_equity is None else round(self.played_equity, 3),
            "rank": self.rank,
            "moves": self.moves,
            "best": [c.to_dict() for c in self.best],
            "equity_lost": None if self.equity_lost is None else round(self.equity_lost, 3),
            "bingo_played": self.bingo_played,
            "bingo_missed": self.bingo_missed,
            "withdrawn": self.withdrawn,
            "note": self.note,
            "endgame": None if self.endgame is None else self.endgame.to_dict(),
            **({} if self.grade is None else {
                "win_pct": round(self.win_pct, 3), "best_win_pct": round(self.best_win_pct, 3),
                "win_pct_lost": round(self.win_pct_lost, 3), "grade": self.grade,
                "inferred_from": self.inferred_from, "inferred_leaves": self.inferred_leaves}),
        }


@dataclass(slots=True)
class PlayerSummary:
    player: str
    turns: int = 0
    ranked: int = 0
    best_moves: int = 0
    equity_lost: float = 0.0
    bingos_played: int = 0
    bingos_missed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "turns": self.turns,
            "ranked_turns": self.ranked,
            "best_moves": self.best_moves,
            "equity_lost": round(self.equity_lost, 3),
            "mean_equity_lost": round(self.equity_lost / self.ranked, 3) if self.ranked else None,
            "bingos_played": self.bingos_played,
            "bingos_missed": self.bingos_missed,
        }


@dataclass(slots=True)
class Analysis:
    turns: list[TurnAnalysis] = field(default_factory=list)
    players: list[PlayerSummary] = field(default_factory=list)
    with_leaves: bool = False
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith analyze --json``."""
        return {
            "turns": [t.to_dict() for t in self.turns],
            "players": [p.to_dict() for p in self.players],
            "leaves": self.with_leaves,
            "notes": list(self.notes),
        }


def analyze(replay: Replay, leaves: Any = "shipped", *, top: int = 3, lexicon: Any = None,
            check: Callable[[], None] | None = None, endgame_seconds: float | None = 10.0,
            sim: dict[str, Any] | None = None, cancel: "threading.Event | None" = None) -> Analysis:
    """Analyse every turn of a replayed game. ``leaves``: ``"shipped"`` (the default: the ruleset's
    shipped leaves, :func:`racksmith.lexicon.default_leaves`), a loaded leave table or the path of
    a leave file, or None (equity without leave values); ``lexicon``: the words to generate moves from (default: the replay's,
    else the ruleset's); ``check``: called before each turn, what it raises ends the analysis
    (the web server's time limit); ``endgame_seconds``: time the endgame solver may take for each
    turn played with the bag empty (graded against the exact value: :class:`EndgameGrade`), or
    None for no grading. ``sim``: keyword arguments of :func:`racksmith.sim.simulate.simulate`
    (e.g. ``{"candidates": 10, "plies": 2, "iterations": 1000, "seed": 1}``) to grade each ranked
    turn with tiles in the bag by the win% it lost in a simulation of the best candidates and the
    move played (the opponent's rack unknown, as the mover saw it); a turn with the bag empty is
    not simulated (the endgame solver grades it, as it plays it). With ``"infer": True`` among them, the
    simulation draws the opponent's rack from what his play just before says he kept
    (:func:`racksmith.sim.infer.infer_leaves`, at most ``"infer_samples"`` racks, 20,000 by
    default: every rack when there are no more, else that many dealt from the turn's seed), as the
    simulating player does with ``infer=on``. ``cancel``: a ``threading.Event`` another thread may
    set to stop the analysis at once (the endgame solver or simulation of the turn in progress
    included); it then raises :class:`~racksmith.errors.RacksmithError`."""
    if not isinstance(replay, Replay):
        raise RacksmithError(f"replay must be a Replay (what replay_file or replay_text returns), got {_args.show(replay)}")
    _args.callback(check, "check")
    check_event(cancel, RacksmithError)
    if sim is not None:
        sim = _sim_options(sim)
        if cancel is not None and sim.get("cancel") is None:
            sim = {**sim, "cancel": cancel}
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise RacksmithError(f"top must be a whole number, at least 1, got {top!r}")
    if endgame_seconds is not None and (isinstance(endgame_seconds, bool)
                                        or not isinstance(endgame_seconds, (int, float))
                                        or not 0 < endgame_seconds < float("inf")):
        raise RacksmithError(f"endgame_seconds must be a positive number of seconds or None, got {endgame_seconds!r}")
    rs = replay.ruleset
    if isinstance(leaves, str) and leaves == "shipped":
        from ..lexicon import default_leaves

        leaves = default_leaves(rs)
    elif leaves is not None:
        from ..lexicon import load_leaves

        leaves = load_leaves(leaves, rs)
    result = Analysis(with_leaves=leaves is not None)
    summaries = {nick: PlayerSummary(nick) for nick in replay.players}
    result.players = list(summaries.values())
    for i, t in enumerate(replay.turns):
        if check is not None:
            check()
        _cancelled(cancel)
        nick = replay.players[t.player]
        summary = summaries[nick]
        summary.turns += 1
        ta = _analyze_turn(replay, t, leaves, top, lexicon, nick, rs.rack_size, endgame_seconds, cancel)
        if sim is not None and ta.rank is not None and not ta.withdrawn:
            ta = _simulate_turn(replay, t, ta, leaves, lexicon, sim, replay.turns[i - 1] if i else None)
        _cancelled(cancel)  # a turn cut short is not graded
        result.turns.append(ta)
        if ta.rank is not None:
            summary.ranked += 1
            summary.equity_lost += ta.equity_lost
            summary.best_moves += ta.rank == 1
        summary.bingos_played += ta.bingo_played and not ta.withdrawn
        summary.bingos_missed += ta.bingo_missed
    return result


def _cancelled(cancel: "threading.Event | None") -> None:
    if cancel is not None and cancel.is_set():
        raise RacksmithError("the analysis was cancelled (its cancel event was set)")


def _analyze_turn(replay: Replay, t: ReplayTurn, leaves, top: int, lexicon, nick: str, rack_size: int,
                  endgame_seconds: float | None = None, cancel: "threading.Event | None" = None) -> TurnAnalysis:
    ev = t.event
    played_move = t.move if t.move is not None else ev.move
    played = played_move.notation() if played_move is not None else ev.action()
    base = dict(
        turn=t.number,
        line=ev.line,
        player=nick,
        rack=ev.rack,
        played=played,
        played_score=t.score,
        withdrawn=t.withdrawn,
    )
    bingo_played = bool(t.bingo)
    if not t.rack_complete:
        return TurnAnalysis(
            **base, played_equity=None, rank=None, moves=0, best=(), equity_lost=None,
            bingo_played=bingo_played, bingo_available=False,
            note="rack partly recorded" if t.rack else "rack not recorded",
        )
    pos = replay.position(t.number)
    if lexicon is not None:
        pos.lexicon = lexicon
    moves = pos.moves(sort="equity", leaves=leaves, exchanges=True)
    n = len(moves)
    ranks = moves.ranks("equity")
    best = tuple(_candidate(moves[i], rack_size, ranks[i]) for i in range(min(top, n)))
    recs = moves.to_numpy()
    bingo_available = bool((((recs["kind"] == 0) | (recs["kind"] == RECLAIM_KIND)) & (recs["n_played"] == rack_size)).any())
    target = _target(played_move, ev.kind)
    found = _find(moves, target)
    if found is None and target is not None and listed_opening(pos, target):
        found = _find(moves, opening_mirror(target))  # the opening lists its across plays, each a down one's mirror
    if found is None:
        note = "the move played is not a legal move here (a phony?)" if played_move is not None else "exchanged tiles not recorded"
        return TurnAnalysis(
            **base, played_equity=None, rank=None, moves=n, best=best, equity_lost=None,
            bingo_played=bingo_played, bingo_available=bingo_available, note=note,
        )
    equities = recs["equity"]
    eq = float(equities[found])
    rank = ranks[found]  # ties share the better rank
    grade = None
    note = ""
    if endgame_seconds is not None and pos.bag_count == 0 and not pos.is_over and len(pos.racks) == 2:
        try:
            grade = _grade_endgame(pos, moves[found], endgame_seconds, cancel)
        except RacksmithError as e:  # a position the solver does not take (more stars than it takes back,
            note = f"endgame not graded: {e}"  # scores too far apart): no grade, and why
    return TurnAnalysis(
        **base, played_equity=eq, rank=rank, moves=n, best=best, equity_lost=max(0.0, float(equities[0]) - eq),
        bingo_played=bingo_played, bingo_available=bingo_available, endgame=grade, note=note,
    )


def _grade_endgame(pos, played: Move, seconds: float, cancel: "threading.Event | None" = None) -> EndgameGrade:
    """The endgame solver's verdict on the move played (its value searched first, exactly)."""
    from ..search.endgame import solve_endgame

    r = solve_endgame(pos, seconds=seconds, move=played, cancel=cancel)
    played_value = r.move_value if r.move_value is not None else r.value
    return EndgameGrade(r.value, played_value, r.value - played_value,
                        r.best.notation() if r.best is not None else "", r.exact)


#: the options of :func:`racksmith.sim.simulate.simulate` that ``analyze(sim=...)`` passes on (the
#: analysis gives the position, the moves and the leaves itself)
SIM_OPTIONS = ("candidates", "plies", "iterations", "seconds", "threads", "seed", "stop", "winpct", "min_samples",
               "progress", "cancel", "infer", "infer_samples")


def _sim_options(sim: Any) -> dict:
    """``sim`` of :func:`analyze`, checked: a dict of options of the simulation."""
    if not isinstance(sim, dict):
        raise RacksmithError(f"sim must be a dict of simulation options ({', '.join(SIM_OPTIONS)}) or None, got "
                             f"{_args.show(sim)}")
    unknown = [k for k in sim if k not in SIM_OPTIONS]
    if unknown:
        raise RacksmithError(f"sim option {unknown[0]!r} is not one of {', '.join(SIM_OPTIONS)}")
    if "candidates" in sim:
        _args.whole(sim["candidates"], "sim option 'candidates'", lo=1)
    if "infer" in sim:
        _args.flag(sim["infer"], "sim option 'infer'")
    if "infer_samples" in sim:
        from ..sim.infer import MAX_LEAVES  # (every rack is tried up to that many, and no more are held)

        _args.whole(sim["infer_samples"], "sim option 'infer_samples'", lo=1, hi=MAX_LEAVES)
    return sim


def _simulate_turn(replay: Replay, t: ReplayTurn, ta: TurnAnalysis, leaves, lexicon, sim: dict,
                   before: ReplayTurn | None) -> TurnAnalysis:
    """``ta`` with the win% of the move played against the best of a simulation (``before``: the
    turn before, the opponent's play to infer from)."""
    import dataclasses

    from ..core.position import Position
    from ..errors import SimError
    from ..sim.simulate import check_scores, grade, simulate

    pos = replay.position(t.number)
    if lexicon is not None:
        pos.lexicon = lexicon
    if len(pos.racks) != 2 or pos.is_over:
        return ta
    try:
        check_scores(pos.scores)
    except SimError as e:  # scores the play-outs cannot hold: no win% for this turn, and why
        return dataclasses.replace(ta, note="; ".join(filter(None, (ta.note, str(e)))))
    if pos.bag_count == 0:  # an endgame turn: the endgame solver's to grade (ta.endgame), not a simulation's
        return ta
    seen = Position(pos.ruleset, pos.board.copy(), (pos.racks[0], ()), list(pos.scores), pos.zero_turns,
                    lexicon=pos.lexicon, racks_known=[True, False])
    options = dict(sim)
    n = int(options.pop("candidates", 10))
    infer = options.pop("infer", False)
    from ..sim.player import DEFAULT_INFER_SAMPLES

    infer_samples = int(options.pop("infer_samples", DEFAULT_INFER_SAMPLES))
    ml = seen.moves(top=n, sort="equity", leaves=leaves, exchanges=True)
    played = _target(t.move if t.move is not None else t.event.move, t.event.kind)
    cands = list(ml)
    if played is not None and played not in cands:
        cands.append(played)
    options.setdefault("seed", 0)
    inference = _infer_before(seen, t, before, leaves, infer_samples, options) if infer else None
    r = simulate(seen, candidates=len(cands), moves=cands, leaves=leaves, opponent_racks=inference, **options)
    best = r.candidates[0].win_pct
    mine = next((c.win_pct for c in r.candidates if c.move == played), None)
    if mine is None or math.isnan(mine) or math.isnan(best):  # (a play no play-out reached: not known)
        return ta
    lost = max(0.0, best - mine)
    return dataclasses.replace(ta, win_pct=mine, best_win_pct=best, win_pct_lost=lost, grade=grade(lost),
                               inferred_from=None if inference is None else inference.play,
                               inferred_leaves=None if inference is None else len(inference.leaves))


def _infer_before(seen, t: ReplayTurn, before: ReplayTurn | None, leaves, samples: int, options: dict):
    """What the opponent's turn just before ``t`` says he kept (an Inference), or None: no such
    turn (the first, one of the mover's own, a pass, a play taken back), or nothing explains it."""
    from ..errors import InferenceError
    from ..sim.infer import infer_leaves
    from ..sim.player import MIN_KEPT_DEALS

    if before is None or before.player == t.player or before.withdrawn:
        return None
    kind = before.event.kind
    if kind == EventKind.EXCHANGE:
        move = f"-{before.event.count or len(before.event.move.tiles)}"  # which tiles is hidden from the mover
    elif kind == EventKind.PLAY and before.move is not None:
        move = before.move
    else:
        return None
    seed = options.get("seed") or 0
    try:
        inference = infer_leaves(seen, move, leaves=leaves, samples=samples, exact_up_to=samples,
                                 seed=seed, threads=options.get("threads", 1))
    except InferenceError:
        return None
    if not inference.leaves or (not inference.exact and inference.total_draws < MIN_KEPT_DEALS):
        return None
    return inference


def _find(moves, target: Move | None) -> int | None:
    """The index of ``target`` in the list, looking only at records of the same kind and place."""
    if target is None:
        return None
    recs = moves.to_numpy()
    kind = RECLAIM_KIND if target.reclaimed else _KIND_CODES[target.kind]
    same = recs["kind"] == kind
    if target.is_place:
        same &= (recs["row"] == target.row) & (recs["col"] == target.col) & (recs["dir"] == (0 if target.across else 1))
        same &= recs["length"] == len(target.tiles)
    elif target.is_exchange:
        same &= recs["n_played"] == len(target.tiles)
    for i in np.flatnonzero(same).tolist():
        if moves[i] == target:
            return i
    return None


#: the move generator's ``kind`` codes (see :meth:`racksmith.movegen.MoveList.to_numpy`; a placement
#: that takes stars back is ``RECLAIM_KIND``)
_KIND_CODES = {MoveKind.PLACE: 0, MoveKind.EXCHANGE: 1, MoveKind.PASS: 2}


def _target(move: Move | None, kind: str) -> Move | None:
    if move is None:
        return None
    if kind == EventKind.PASS:
        return Move.pass_(move.alphabet)
    return move


def _candidate(m: Move, rack_size: int, rank: int) -> Candidate:
    return Candidate(m.notation(), int(m.score or 0), float(m.equity or 0.0), m.is_place and m.tiles_played == rack_size,
                     rank)
