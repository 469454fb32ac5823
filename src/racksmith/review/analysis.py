"""Analysis of a recorded game: for every turn, where the move played ranks among all the moves by
static equity, the best moves, and what the move played lost; a summary per player.

The position of each turn comes from the replay (:mod:`racksmith.review.replay`): the mover's recorded
rack, and the opponent's rack when the record reveals it (so that the bag, exchanges and the
end-of-game equity are exact). Turns whose rack is not recorded, or whose exchange is hidden, are
listed without a rank.

The verdict on a turn (``graded_by``, ``equity_lost``, ``played_best``): with tiles in the bag, the
static equity the move played lost against the best move (``"static"``); with the bag empty, when
the endgame solver grades the turn, the points of final spread it lost against the solver's best
move (``"endgame"``), a value the solver found exact or, when its time ran out, that of its last
depth (:attr:`EndgameGrade.exact` false: used all the same, and marked).

A pass is graded as what it is (:func:`pass_value`): while the bag holds tiles it scores 0 and
keeps the whole rack. A leave table holds no leave of a whole rack (a KLV2's are 1 to rack size − 1
tiles), so the rack kept is valued as training values a leave it never saw (the sub-leave prior,
docs/ALGORITHM.md §16): the mean, over its tiles ``t`` (a tile the rack holds twice counted twice),
of ``value(rack − t) + value(t)`` —
a rack of junk kept is worth about what its junk is worth, not the 0 of a fresh draw (without
leaves, 0). The move generator charges a pass −50 instead (:data:`racksmith.rules.equity.PASS_PENALTY`,
so that a static player never passes with moves at hand): that is a rule for choosing, not a measure
of a choice, and the verdicts leave it out (every rank, the best moves listed and the equity lost
use the pass's value: on a turn whose every play is worth less than keeping the rack, the pass is
the best move). With
the bag empty the pass keeps its tiles like any move that keeps them (the move generator's value,
and the endgame solver's verdict). A play taken back after a challenge (``withdrawn``) put nothing
on the board and scored nothing: the turn is graded as the pass it came to, with that value, against
the best move. A pass the record marks as a failed challenge (``failed_challenge``: the tag
``#unsuccessful-challenge`` in its note, as Macondo and Woogles.io write it under the
double-challenge rule) is the turn the challenge cost, not a choice: not graded, with a note. A
plain pass straight after the opponent's play, in a record without a challenge bonus line, may be
such a challenge written without the tag (GCG has no line for it): graded as a pass, with a note
that says so.

A record that does not replay from some line on (an illegal play, a play whose score is not the
record's, a rack that does not fit...) has the turns after that line listed but not graded (their
positions are not the game's); a running total the record states wrong is only noted: every
position is known, and the analysis goes on with the scores the plays make.

With a simulation (``analyze(..., sim=...)``) each turn with tiles in the bag is also graded by the
win% it lost (MAGPIE's grades, :data:`racksmith.sim.simulate.GRADES`): first a simulation of the best
candidates and the move played (best-arm identification), then, unless that already settles the
grade, the move played against the best few of the other candidates alone, in batches of play-outs
with common tiles (their differences give the standard error), until the 95% interval of the win%
lost lies within one grade or the budget is spent (``grade_sure`` false: ``grade`` is the grade of
the estimate, ``grade_range`` the grades the interval spans). The interval's confidence is shared
among the looks taken at it (the first simulation's and the duel's, :data:`DUEL_LOOKS`), so that
looking again does not settle a grade more often. Endgame turns get a grade from the solver
(:func:`endgame_grade`). Without a simulation no win% is measured: the turns have no win% fields
and the players' ``win_pct_lost`` is None (null in the JSON), not 0.

A bingo is missed as Macondo's analyzer counts one: on a turn whose verdict's best move (the static
best, the simulation's or the endgame solver's) is a bingo, a move played that is none and not as
good (:attr:`TurnAnalysis.bingo_missed`); a bingo there when the best move is not one is no bingo
missed. The players' ``bingo_chances`` are the turns whose best move was a bingo.
"""
from __future__ import annotations

import math
import os
import random
import statistics
import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Hashable, MutableMapping

import numpy as np

from .. import _args
from .._interrupt import check_event
from ..core.move import Move, MoveKind
from ..core.position import LeavesLike, LexiconLike
from ..core.turns import EventKind
from ..errors import IllegalMoveError, RacksmithError
from ..movegen.movelist import EQUITY_DECIMALS, RECLAIM_KIND
from ..rules.symmetry import listed_opening, opening_mirror
from .replay import Replay, ReplayTurn


@dataclass(frozen=True, slots=True)
class Candidate:
    """One of the best moves of a turn; ``rank`` by equity, moves that tie share the better rank;
    ``played``: it is the move played (a down opening is its across mirror's)."""

    notation: str
    score: int
    equity: float
    bingo: bool
    rank: int = 1
    played: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.notation, "score": self.score, "equity": round(self.equity, 3), "bingo": self.bingo,
                "rank": self.rank, "played": self.played}


#: the results of a game from the mover's side, by the sign of his final spread
_RESULTS = {1: "win", 0: "tie", -1: "loss"}


def endgame_grade(lost: int, played_result: str, best_result: str) -> str:
    """The grade of a turn played with the bag empty, from the solver's values: ``"best"`` when
    the move played loses no point of final spread; ``"blunder"`` when it changes the result of
    the game under best play (a win into a tie or a loss, a tie into a loss: 50 or 100 points of
    win% lost, beyond MAGPIE's 7); else ``"inaccuracy"`` (points of spread lost, the result the same)."""
    if lost <= 0:
        return "best"
    if played_result != best_result:
        return "blunder"
    return "inaccuracy"


@dataclass(frozen=True, slots=True)
class EndgameGrade:
    """A turn played with the bag empty, graded by the endgame solver: ``value`` of the best move
    and ``played_value`` of the move played (what each adds to the mover's spread by the end of
    the game under best play), ``lost`` = value − played_value, ``best`` the solver's move;
    ``exact`` false when the time ran out first (then the values are those of the last depth);
    ``spread``: the mover's score less the opponent's before the turn (the final spread is
    ``spread + value`` under best play)."""

    value: int
    played_value: int
    lost: int
    best: str
    exact: bool
    spread: int = 0

    @property
    def played_result(self) -> str:
        """The mover's result under best play after the move played: ``"win"``, ``"tie"`` or ``"loss"``."""
        return _RESULTS[int(np.sign(self.spread + self.played_value))]

    @property
    def best_result(self) -> str:
        return _RESULTS[int(np.sign(self.spread + self.value))]

    @property
    def grade(self) -> str:
        """:func:`endgame_grade` of the turn."""
        return endgame_grade(self.lost, self.played_result, self.best_result)

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "played_value": self.played_value, "lost": self.lost, "best": self.best,
                "exact": self.exact, "grade": self.grade, "played_result": self.played_result,
                "best_result": self.best_result}


@dataclass(frozen=True, slots=True)
class TurnAnalysis:
    """One turn. ``rank`` is the rank of the move played among every legal move by static equity
    (1 for the best; ties share the better rank), None when the move played is not among the legal
    moves (a phony, a hidden exchange), the rack is unknown or the turn is not graded. The verdict:
    ``graded_by`` (``"static"``, ``"endgame"`` or None: not graded), ``equity_lost`` (points: static
    equity, or final spread for ``"endgame"``), ``played_best`` (the move played is as good as the
    verdict's best); ``static_equity_lost`` is the static equity lost whatever the verdict.

    A pass is valued as what it is (:func:`pass_value`: 0 while the bag holds tiles, not the move
    generator's −50), and ``rank``, ``equity_lost``, ``played_equity`` and the equities of ``best``
    use that value. A withdrawn play (``withdrawn``: challenged off) is graded as what it came to, a
    pass: ``played_score`` 0, ``rank``, ``played_equity`` and ``equity_lost`` those of the pass;
    ``withdrawn_score`` is what the play scored before it was taken back. A failed challenge
    (``failed_challenge``: a pass the record tags ``#unsuccessful-challenge``) is not graded
    (``graded_by``, ``rank`` and ``equity_lost`` None; ``best`` still lists the best moves) and
    counts no bingo missed.

    Bingos (a bingo: a play of as many tiles as a full rack holds): ``bingo_played``, the move played
    is one (a play challenged off is not); ``bingo_available``, some legal move of the turn is one;
    ``best_bingo``, the verdict's best move is one: the best by static equity on a turn graded by it,
    the simulation's best (``sim_best``) on a turn a simulation graded, the endgame solver's best on
    a turn it graded (None: the turn is not graded); ``bingo_missed`` (a property, as Macondo's
    analyzer counts a missed bingo): ``best_bingo``, and the move played is no bingo, is not as good
    as the verdict's best (``played_best`` false; on a simulated turn the simulation's best is not
    the move played) and is not a failed challenge. A bingo there when a better move is not one is
    no bingo missed."""

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
    graded_by: str | None = None
    static_equity_lost: float | None = None
    played_best: bool | None = None
    withdrawn_score: int | None = None
    failed_challenge: bool = False
    #: the move played used every tile of a full rack (a bingo), challenged off or not
    bingo_attempted: bool = False
    #: the verdict's best move is a bingo (see above); None when the turn is not graded
    best_bingo: bool | None = None
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
    #: the simulation's best move (the move played when none did better); the play-outs of the
    #: move played the win% figures come from, the standard error of its win% and of the win% lost;
    #: whether the 95% interval of the win% lost lies within one grade, and the grades it spans
    sim_best: str | None = None
    playouts: int | None = None
    win_pct_stderr: float | None = None
    win_pct_lost_stderr: float | None = None
    grade_sure: bool | None = None
    grade_range: tuple[str, str] | None = None

    @property
    def bingo_missed(self) -> bool:
        """The verdict's best move is a bingo (``best_bingo``) and the move played is none, nor as
        good as that best (a failed challenge chose no move: none missed; a bingo played and
        challenged off, ``bingo_attempted``, is no bingo missed either, as Macondo counts it: the
        player found one)."""
        if not self.best_bingo or self.bingo_played or self.bingo_attempted or self.failed_challenge:
            return False
        if self.sim_best is not None:  # the simulation's verdict: its best is the move played when none did better
            return True
        return not self.played_best

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
            "equity_lost": _round(self.equity_lost),
            "static_equity_lost": _round(self.static_equity_lost),
            "graded_by": self.graded_by,
            "played_best": self.played_best,
            "bingo_played": self.bingo_played,
            "bingo_available": self.bingo_available,
            "best_bingo": self.best_bingo,
            "bingo_missed": self.bingo_missed,
            "withdrawn": self.withdrawn,
            "withdrawn_score": self.withdrawn_score,
            "failed_challenge": self.failed_challenge,
            "note": self.note,
            "endgame": None if self.endgame is None else self.endgame.to_dict(),
            **({} if self.grade is None else {
                "win_pct": round(self.win_pct, 3), "best_win_pct": round(self.best_win_pct, 3),
                "win_pct_lost": round(self.win_pct_lost, 3), "grade": self.grade,
                "inferred_from": self.inferred_from, "inferred_leaves": self.inferred_leaves,
                "sim_best": self.sim_best, "playouts": self.playouts,
                "win_pct_stderr": _round(self.win_pct_stderr), "win_pct_lost_stderr": _round(self.win_pct_lost_stderr),
                "grade_sure": self.grade_sure, "grade_range": list(self.grade_range or (self.grade, self.grade))}),
        }


def _round(x: float | None, digits: int = 3) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, digits)


#: the grades, in order (MAGPIE's, :data:`racksmith.sim.simulate.GRADES`)
GRADE_NAMES = ("best", "inaccuracy", "mistake", "blunder")


@dataclass(slots=True)
class PlayerSummary:
    """A player's turns: ``ranked`` the turns graded; ``best_moves`` those whose move played is the
    verdict's best; ``equity_lost`` what the verdicts lost (static equity, and points of final
    spread on the turns the endgame solver graded: ``endgame_lost`` of them, over
    ``endgame_turns``, ``endgame_inexact`` of them not exact); ``static_equity_lost`` by static
    equity alone; ``bingos_played`` the turns whose move played is a bingo; ``bingo_chances`` the
    turns whose verdict's best move is a bingo (:attr:`TurnAnalysis.best_bingo`: Macondo's
    available bingos), ``bingos_missed`` those of them whose move played is no bingo and not as
    good (:attr:`TurnAnalysis.bingo_missed`); ``challenged_off`` plays taken back;
    ``failed_challenges`` turns lost to a failed challenge (not graded); with a simulation,
    ``sim_turns`` graded by it and the ``win_pct_lost`` they lost (a number, 0 when no turn was
    simulated); without one ``win_pct_lost`` is None (nothing was measured: null in the JSON);
    ``grades``: the grades of the turns (the simulation's and the endgame solver's),
    ``uncertain_grades`` those whose interval spans more than one grade or whose solver value is
    not exact."""

    player: str
    turns: int = 0
    ranked: int = 0
    best_moves: int = 0
    equity_lost: float = 0.0
    bingos_played: int = 0
    bingos_missed: int = 0
    bingo_chances: int = 0
    static_equity_lost: float = 0.0
    endgame_turns: int = 0
    endgame_lost: int = 0
    endgame_inexact: int = 0
    challenged_off: int = 0
    failed_challenges: int = 0
    sim_turns: int = 0
    win_pct_lost: float | None = None
    grades: dict[str, int] = field(default_factory=lambda: dict.fromkeys(GRADE_NAMES, 0))
    uncertain_grades: int = 0

    def add(self, ta: TurnAnalysis) -> None:
        self.turns += 1
        if ta.graded_by is not None:
            self.ranked += 1
            self.equity_lost += ta.equity_lost
            self.best_moves += bool(ta.played_best)
        if ta.static_equity_lost is not None:
            self.static_equity_lost += ta.static_equity_lost
        if ta.graded_by == "endgame":
            self.endgame_turns += 1
            self.endgame_lost += int(round(ta.equity_lost))
            self.endgame_inexact += not ta.endgame.exact
            self.grades[ta.endgame.grade] += 1
            self.uncertain_grades += not ta.endgame.exact
        self.challenged_off += ta.withdrawn
        self.failed_challenges += ta.failed_challenge
        if ta.grade is not None:
            self.sim_turns += 1
            self.win_pct_lost = (self.win_pct_lost or 0.0) + ta.win_pct_lost
            self.grades[ta.grade] += 1
            self.uncertain_grades += ta.grade_sure is False
        self.bingos_played += ta.bingo_played
        self.bingos_missed += ta.bingo_missed
        self.bingo_chances += bool(ta.best_bingo)

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
            "bingo_chances": self.bingo_chances,
            "static_equity_lost": round(self.static_equity_lost, 3),
            "endgame_turns": self.endgame_turns,
            "endgame_lost": self.endgame_lost,
            "endgame_inexact": self.endgame_inexact,
            "challenged_off": self.challenged_off,
            "failed_challenges": self.failed_challenges,
            "sim_turns": self.sim_turns,
            "win_pct_lost": _round(self.win_pct_lost),
            "mean_win_pct_lost": round(self.win_pct_lost / self.sim_turns, 3) if self.sim_turns else None,
            "grades": dict(self.grades),
            "uncertain_grades": self.uncertain_grades,
        }


#: what each kind of event that is not a turn is called in :attr:`GameEvent.kind`
_EVENT_KINDS = {
    EventKind.PHONY: "withdrawn",
    EventKind.CHALLENGE: "challenge_bonus",
    EventKind.TIME: "time_penalty",
    EventKind.OUT: "going_out",
    EventKind.RACK_PENALTY: "rack_penalty",
}


@dataclass(frozen=True, slots=True)
class GameEvent:
    """A line of the record that is not a turn, listed and not graded: a play taken back after a
    challenge (``"withdrawn"``), a challenge bonus for a play that stood (``"challenge_bonus"``: a
    challenge failed), a time penalty, the going-out bonus, a rack penalty, or a line the replay
    did not play as a turn (``"not_a_turn"``: a pass accepting a play that went out, a line after
    the end...). ``after_turn``: the turn it follows (0: before the first)."""

    line: int
    player: str
    kind: str
    action: str
    score: int
    after_turn: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "player": self.player, "kind": self.kind, "action": self.action,
                "score": self.score, "after_turn": self.after_turn, "text": self.text}


@dataclass(slots=True)
class Analysis:
    """The turns, a summary per player, the events that are not turns, notes; ``lexicon``: the name
    of the lexicon moves were generated from and words checked with, ``record_lexicon`` the one the
    record names (``#lexicon``, or None); ``does_not_replay_from``: the
    line from which the record does not replay (the turns after it are not graded), or None.

    The game and how it was analysed (:func:`analyze` fills them from the replay and its
    arguments): ``ruleset`` the ruleset's name; ``names`` a ``{"nick", "name"}`` per player in seat
    order (``name`` the record's full name, the nick when it gives none); ``final_scores`` the
    replay's (:meth:`Replay.final_scores <racksmith.review.replay.Replay.final_scores>`: by nick);
    ``complete`` the replay's (:attr:`Replay.complete <racksmith.review.replay.Replay.complete>`);
    ``settings`` the options: ``top``, ``endgame_seconds``, ``leaves`` (leave values added or not)
    and ``sim`` (None, or the simulation's options as given, in JSON's types: see :meth:`to_dict`)."""

    turns: list[TurnAnalysis] = field(default_factory=list)
    players: list[PlayerSummary] = field(default_factory=list)
    with_leaves: bool = False
    notes: list[str] = field(default_factory=list)
    events: list[GameEvent] = field(default_factory=list)
    lexicon: str | None = None
    does_not_replay_from: int | None = None
    record_lexicon: str | None = None
    ruleset: str | None = None
    names: list[dict[str, str]] = field(default_factory=list)
    final_scores: dict[str, int] = field(default_factory=dict)
    complete: bool | None = None
    settings: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        # one line (the dataclass's repr held every turn's candidates: 20 to 40 KB)
        parts = [f"{len(self.turns)} turn{'' if len(self.turns) == 1 else 's'}",
                 f"{len(self.players)} player{'' if len(self.players) == 1 else 's'}",
                 f"lexicon {_short(self.lexicon or '-')}"]
        if self.does_not_replay_from is not None:
            parts.append(f"not replayed from line {self.does_not_replay_from}")
        if self.notes:
            parts.append(f"{len(self.notes)} note{'' if len(self.notes) == 1 else 's'}")
        return f"<Analysis {', '.join(parts)}>"

    def _repr_html_(self) -> str:
        """A table of the turns as ``racksmith analyze`` prints them (player, rack, the move played,
        its score, equity, rank and what it lost, the best move; with a simulation the win% figures
        and the grade), the lines of the record that are not turns, a summary per player and the
        notes. Every text from the record (nicks, racks, notes) is escaped."""
        from ..formats import html

        graded = any(t.grade is not None for t in self.turns)
        headers = ["turn", "player", "rack", "move", "score", "equity", "rank", "lost", "best"]
        right = [0, 4, 5, 6, 7]
        if graded:
            right += [9, 10, 11]
            headers += ["win%", "play-outs", "win% lost", "grade"]
        headers.append("note")
        rows = []
        for t in self.turns:
            flag = " (challenged off)" if t.withdrawn else " (failed challenge)" if t.failed_challenge else ""
            rank = f"{t.rank} of {t.moves}" if t.rank is not None else (f"- of {t.moves}" if t.moves else "")
            row: list[Any] = [t.turn, t.player, t.rack, t.played + flag, f"{t.played_score:+d}",
                              "" if t.played_equity is None else f"{t.played_equity:.1f}", rank, _lost_text(t),
                              _best_text(t)]
            if graded:
                row += (["", "", "", ""] if t.grade is None else
                        [_with_error(t.win_pct, t.win_pct_stderr), t.playouts,
                         _with_error(t.win_pct_lost, t.win_pct_lost_stderr), grade_text(t)])
            row.append(t.note)
            rows.append(row)
        lexicon = None
        if self.lexicon:
            named = self.record_lexicon
            lexicon = html.text(f"lexicon: {self.lexicon}" + (" (the record names none)" if not named else
                                                              "" if named.lower() == self.lexicon.lower() else
                                                              f" (the record names {named})")
                                + f"; leaves: {'yes' if self.with_leaves else 'none (equity is the score)'}")
        turns = html.table(headers, rows, right=right)
        events = None
        if self.events:
            events = html.table(("after turn", "line", "player", "what", "score"),
                                ((e.after_turn, e.line, e.player, f"{e.action}: {e.text}", f"{e.score:+d}")
                                 for e in self.events),
                                right=(0, 1, 4), caption="lines of the record that are not turns", total=len(self.events))
        sims = any(p.sim_turns for p in self.players)
        pheaders = ["player", "turns", "graded", "best", "equity lost", "mean lost", "bingos played", "bingo chances",
                    "bingos missed"]
        if sims:
            pheaders += ["win% lost", "grades"]
        prows = []
        for p in self.players:
            prow: list[Any] = [p.player, p.turns, p.ranked, p.best_moves, f"{p.equity_lost:.1f}",
                               f"{p.equity_lost / p.ranked:.2f}" if p.ranked else "-", p.bingos_played, p.bingo_chances,
                               p.bingos_missed]
            if sims:
                prow += ["-" if p.win_pct_lost is None else f"{p.win_pct_lost:.1f}",
                         ", ".join(f"{n} {_GRADE_PLURALS.get(k, k) if n > 1 else k}" for k, n in p.grades.items() if n)]
            prows.append(prow)
        players = html.table(pheaders, prows, right=range(1, 9 + sims), caption="players")
        legend = html.text("rank: among every legal move by equity (moves that tie share a rank); best: the best "
                           "move and its equity (* it is the move played); lost: equity lost, "
                           f"or{_ENDGAME_MARK}: with the bag empty, points of final spread lost by the endgame "
                           f"solver's verdict ({_INEXACT_MARK}: not exact); bingo chances: turns whose best move "
                           "(by the verdict) is a bingo; bingos missed: those of them whose move played is no bingo "
                           "and not as good"
                           + ("; a grade 'x or y', 'x to y': the 95% interval of the win% lost spans those grades"
                              if graded else ""))
        notes = None
        if self.notes:
            shown = "".join(f"<li>{html.escape(n)}</li>" for n in self.notes[:html.MAX_ROWS])
            more = len(self.notes) - html.MAX_ROWS
            notes = f"<ul>{shown}</ul>" + (f"<p>… and {more:,} more</p>" if more > 0 else "")
        return html.block(lexicon, turns, events, players, legend, notes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith analyze --json``: ``turns`` (:meth:`TurnAnalysis.to_dict`),
        ``players`` (:meth:`PlayerSummary.to_dict`, a summary per player), ``leaves`` (leave values
        added), ``notes``, ``events`` (the lines that are not turns), ``lexicon`` (the one used),
        ``record_lexicon`` (the one the record names, or null), ``does_not_replay_from`` (a line, or
        null); then which game it is and how it was analysed:

        - ``ruleset``: the ruleset's name;
        - ``names``: ``[{"nick", "name"}]``, the players in seat order (``name`` the record's full
          name, the nick when it gives none);
        - ``final_scores``: ``{nick: score}``, the replay's (as ``racksmith gcg replay --json`` gives
          them: the scores after the record's last line that replayed), with the end-of-game
          adjustments the record lacks added when racksmith works them out (a record without its
          going-out line: :meth:`Replay.end_scores`);
        - ``complete``: the record reaches the game's end and replays without an error (the replay's);
        - ``settings``: ``{"top", "endgame_seconds" (null: endgame turns not solved), "leaves"
          (bool), "sim"}``; ``sim`` is null without a simulation, else the options given to
          :func:`analyze` (those of ``candidates``, ``plies``, ``iterations``, ``seconds``,
          ``threads``, ``seed``, ``stop``, ``min_samples``, ``infer``, ``infer_samples`` given,
          and no others: the simulation's defaults are not filled in), ``winpct`` as a name or a path
          (a table object as its name), never ``cancel`` or ``progress``."""
        sim = self.settings.get("sim")
        turns = [t.to_dict() for t in self.turns]
        if not (sim or {}).get("infer"):  # (no inference asked for: no keys that say what it inferred)
            for t in turns:
                t.pop("inferred_from", None)
                t.pop("inferred_leaves", None)
        return {
            "turns": turns,
            "players": [p.to_dict() for p in self.players],
            "leaves": self.with_leaves,
            "notes": list(self.notes),
            "events": [e.to_dict() for e in self.events],
            "lexicon": self.lexicon,
            "record_lexicon": self.record_lexicon,
            "does_not_replay_from": self.does_not_replay_from,
            "ruleset": self.ruleset,
            "names": [dict(n) for n in self.names],
            "final_scores": dict(self.final_scores),
            "complete": self.complete,
            "settings": {**self.settings, "sim": None if sim is None else dict(sim)},
        }


#: the lost column of a turn the endgame solver graded, and of one whose value is not exact
#: (as ``racksmith analyze`` marks them)
_ENDGAME_MARK = " E"
_GRADE_PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
_INEXACT_MARK = "~"


def _short(text: str, most: int = 40) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _lost_text(t: TurnAnalysis) -> str:
    if t.graded_by == "endgame" and t.endgame is not None:
        return f"{t.equity_lost:.0f}{_ENDGAME_MARK}{'' if t.endgame.exact else _INEXACT_MARK}"
    if t.graded_by is None or t.equity_lost is None:
        return ""
    return f"{t.equity_lost:.1f}" if t.equity_lost else "0"


def _best_text(t: TurnAnalysis) -> str:
    """The verdict's best move: the endgame solver's with its value, else the best by equity."""
    if t.endgame is not None:
        return f"{t.endgame.best} {t.endgame.value:+d}"
    if not t.best:
        return ""
    c = t.best[0]
    return f"{c.notation} {c.equity:.1f}" + (" (bingo)" if c.bingo else "") + (" *" if c.played else "")


def _with_error(value: float | None, stderr: float | None) -> str:
    if value is None:
        return ""
    known = stderr is not None and math.isfinite(stderr)
    return f"{value:.1f} ±{stderr:.1f}" if known else f"{value:.1f}"


def grade_text(t: TurnAnalysis) -> str:
    """A turn's simulation grade for people: the grade (``"mistake"``) when it is settled; when the
    95% interval of the win% lost spans more than one grade (``grade_range``), ``"x or y"`` for two
    grades next to each other (``"inaccuracy or mistake"``) and ``"x to y"`` for three or more, the
    ones between included (``"best to blunder"``: any of the four), in the order of
    :data:`GRADE_NAMES`; ``""`` for a turn no simulation graded (``grade`` None: the endgame
    solver's grade is :attr:`EndgameGrade.grade`)."""
    if not isinstance(t, TurnAnalysis):
        raise RacksmithError(f"grade_text takes a TurnAnalysis (one of Analysis.turns), got {_args.show(t)}")
    if t.grade is None:
        return ""
    low, high = t.grade_range or (t.grade, t.grade)
    if low == high:
        return t.grade
    if low in GRADE_NAMES and high in GRADE_NAMES:
        low, high = sorted((low, high), key=GRADE_NAMES.index)
        if GRADE_NAMES.index(high) - GRADE_NAMES.index(low) > 1:
            return f"{low} to {high}"
    return f"{low} or {high}"


def analyze(replay: Replay, leaves: "LeavesLike | None" = "shipped", *, top: int = 3,
            lexicon: "LexiconLike | None" = None,
            check: Callable[[], None] | None = None, endgame_seconds: float | None = 10.0,
            sim: dict[str, Any] | None = None, cancel: "threading.Event | None" = None,
            progress: Callable[[int, int, str], None] | None = None,
            turn_cache: "MutableMapping[Hashable, TurnAnalysis] | None" = None) -> Analysis:
    """Analyse every turn of a replayed game. ``leaves``: ``"shipped"`` (the default: the ruleset's
    shipped leaves, :func:`racksmith.lexicon.default_leaves`), a loaded leave table or the path of
    a leave file, or None (equity without leave values); ``lexicon``: the words to generate moves from (default: the replay's,
    else the ruleset's); ``check``: called before each turn, what it raises ends the analysis
    (the web server's time limit); ``endgame_seconds``: time the endgame solver may take for each
    turn played with the bag empty (its verdict is the turn's: :class:`EndgameGrade`), or
    None for no grading. ``sim``: keyword arguments of :func:`racksmith.sim.simulate.simulate`
    (e.g. ``{"candidates": 10, "plies": 2, "iterations": 1000, "seed": 1}``) to grade each ranked
    turn with tiles in the bag by the win% it lost in a simulation of the best candidates and the
    move played (the opponent's rack unknown, as the mover saw it), then, unless that settles the
    grade, of the move played against the best others (:data:`DUEL_RIVALS`) until it is settled
    (see the module docstring; from half of ``iterations`` play-outs each, 1,000 without it, to twice
    that); a turn with the bag
    empty is not simulated (the endgame solver grades it, as it plays it). With ``"infer": True``
    among them, the simulation draws the opponent's rack from what his play just before says he
    kept (:func:`racksmith.sim.infer.infer_leaves`, at most ``"infer_samples"`` racks, 20,000 by
    default: every rack when there are no more, else that many dealt from the turn's seed), as the
    simulating player does with ``infer=on``. Its ``"winpct"`` (a shipped ruleset's name, a table
    file or a :class:`~racksmith.sim.winpct.WinPct`) is read once, before the first turn; without
    it a ruleset with no table of its own is simulated with another's, and a note says so
    (:func:`racksmith.sim.winpct.borrowed_note`). ``cancel``: a ``threading.Event`` another thread may
    set to stop the analysis at once (the endgame solver or simulation of the turn in progress
    included); it then raises :class:`~racksmith.errors.RacksmithError`. ``progress(done, total,
    what)``: called before each turn and each search of it (``what``: ``"turn 3 of 24"``,
    ``"turn 21 of 24: solving the endgame"``...), and once at the end (``done == total``).

    ``turn_cache``: a mapping (a dict, or a bounded one shared by threads: it needs ``get`` and an
    atomic ``setdefault``) that keeps each turn's :class:`TurnAnalysis` under a key of everything
    it depends on (:func:`_turn_key`: the ruleset, the lexicon and leaves objects, ``top``,
    ``endgame_seconds``, the ``sim`` options, the position before the turn with its scores and
    zero-turn count, the turn as replayed but for its note, the mover's nick, whether it may be a
    failed challenge, and with ``sim`` the turn before it). A turn found there is not analysed
    again, and one analysed to the end is stored (a turn cut short by ``check`` or ``cancel`` is
    not): analysing a record again, or the same record grown by a few turns, analyses only the
    new turns, and a turn graded within a time limit (an endgame, a simulation) keeps the verdict
    it got first (``setdefault``: of two threads grading the same turn, the first stored wins).

    A record whose replay found errors (collected mode) is analysed up to the first error that is
    not a running total: the turns after its line are listed, not graded (the note says why); a
    running total stated wrong is a note, and the positions have the scores the plays make.

    A pass is graded at :func:`pass_value` (0 with tiles in the bag, not the move generator's −50),
    a withdrawn play as that pass; a pass the record tags ``#unsuccessful-challenge`` (a failed
    double challenge) is not graded; a plain pass straight after the opponent's play is graded and
    noted as possibly one (:data:`MAYBE_FAILED_CHALLENGE`). Without ``sim`` the players'
    ``win_pct_lost`` is None.

    A game of three or four players is graded by static equity only: the simulation and the
    endgame solver are for two players, and a note says so once when ``sim`` or ``endgame_seconds``
    asked for them."""
    if not isinstance(replay, Replay):
        raise RacksmithError(f"replay must be a Replay (what replay_file or replay_text returns), got {_args.show(replay)}")
    _args.callback(check, "check")
    _args.callback(progress, "progress")
    check_event(cancel, RacksmithError)
    if turn_cache is not None and not all(callable(getattr(turn_cache, m, None)) for m in ("get", "setdefault")):
        raise RacksmithError(f"turn_cache must be a mapping (with get and setdefault) or None, got {_args.show(turn_cache)}")
    sim_settings = None  # the options as given (the analysis's settings), before cancel and the table are added
    if sim is not None:
        sim = _sim_options(sim)
        sim_settings = _sim_settings(sim)
        if cancel is not None and sim.get("cancel") is None:
            sim = {**sim, "cancel": cancel}
        if sim.get("winpct") is not None:  # read once, now: a file that is not a table is said before any turn
            from ..sim.winpct import load_winpct

            sim = {**sim, "winpct": load_winpct(sim["winpct"])}
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
    result = Analysis(with_leaves=leaves is not None, ruleset=rs.name,
                      names=[{"nick": p.nick, "name": (p.name or "").strip() or p.nick} for p in replay.record.players],
                      final_scores=_final_scores(replay), complete=replay.complete,
                      settings={"top": top, "endgame_seconds": endgame_seconds, "leaves": leaves is not None,
                                "sim": sim_settings})
    lex = _lexicon_used(replay, lexicon)
    result.lexicon = getattr(lex, "name", None) or None
    result.record_lexicon = replay.record.lexicon_name or None
    _lexicon_notes(replay, result)
    stop_line = _replay_notes(replay, result)
    result.notes.extend(replay.notes)  # (how the record was read: a Quackle withdrawal, a penalty applied...)
    result.notes.extend(_two_player_notes(replay, endgame_seconds, sim is not None))
    result.notes.sort(key=_note_line)  # (the notes on lines in their order; the others first, as they were)
    # without a simulation no win% is measured: the players' win% lost is None, not 0
    summaries = {nick: PlayerSummary(nick, win_pct_lost=None if sim is None else 0.0) for nick in replay.players}
    maybe_challenges = _passes_after_plays(replay)
    result.players = list(summaries.values())
    n = len(replay.turns)

    def stage(i: int, what: str) -> None:
        if progress is not None:
            progress(i, n, what)

    for i, t in enumerate(replay.turns):
        if check is not None:
            check()
        _cancelled(cancel)
        nick = replay.players[t.player]
        stage(i, f"turn {t.number} of {n}")
        key = ta = None
        if stop_line is not None and t.line > stop_line:
            ta = _not_graded(t, nick, f"not graded: the record does not replay from line {stop_line}")
        else:
            pos = _position(replay, t, lexicon)
            before = replay.turns[i - 1] if i else None
            maybe_challenge = t.line in maybe_challenges
            if turn_cache is not None:
                key = _turn_key(pos, t, nick, leaves, lex, top, endgame_seconds, sim, maybe_challenge, before)
                ta = turn_cache.get(key) if key is not None else None
            if ta is None:
                ta = _analyze_turn(pos, t, leaves, top, nick, rs.rack_size, lex, endgame_seconds, cancel,
                                   lambda what, i=i, t=t: stage(i, f"turn {t.number} of {n}: {what}"))
                if maybe_challenge and not t.failed_challenge:
                    ta = replace(ta, note="; ".join(filter(None, (ta.note, MAYBE_FAILED_CHALLENGE))))
                if sim is not None and ta.graded_by == "static":
                    stage(i, f"turn {t.number} of {n}: simulating")
                    ta = _simulate_turn(pos, t, ta, leaves, sim, before)
                _cancelled(cancel)  # a turn cut short is not graded, nor kept
                if key is not None:
                    ta = turn_cache.setdefault(key, ta)  # another thread's verdict, when it stored one first
        _cancelled(cancel)  # a turn cut short is not graded
        result.turns.append(ta)
        summaries[nick].add(ta)
    if sim is not None and any(t.win_pct is not None for t in result.turns):
        from ..sim.winpct import borrowed_note

        borrowed = borrowed_note(rs, sim.get("winpct"))  # another ruleset's win% table: said once
        if borrowed is not None:
            result.notes.append(borrowed)
    result.events = _events(replay)
    stage(n, "done")
    return result


def _turn_key(pos, t: ReplayTurn, nick: str, leaves, lex, top: int, endgame_seconds: float | None,
              sim: dict | None, maybe_challenge: bool, before: ReplayTurn | None) -> tuple | None:
    """The key of a turn's analysis in ``analyze``'s ``turn_cache``: everything the analysis of the
    turn depends on (see :func:`analyze`), or None when a ``sim`` option cannot be a key (the turn
    is then analysed, not kept). The lexicon and leaves are the objects themselves (compared by
    identity: a leave file loaded again is another key)."""
    options = None
    if sim is not None:
        options = (tuple(sorted((k, _Same(v) if k == "winpct" and v is not None else v)
                                for k, v in sim.items() if k not in ("cancel", "progress"))),
                   None if before is None else replace(before, event=replace(before.event, note="")))
    key = (pos.ruleset, lex, leaves, top, endgame_seconds, options, nick, maybe_challenge,
           pos.board.shape, pos.board.tobytes(), tuple(tuple(r) for r in pos.racks), tuple(pos.racks_known),
           tuple(pos.scores), pos.zero_turns, replace(t, event=replace(t.event, note="")))
    try:
        hash(key)
    except TypeError:
        return None
    return key


class _Same:
    """A key part that is an object itself, compared by identity (a win% table: its arrays are
    not hashable); it holds the object, so no other can take its place while the key is kept."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any):
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj


def _cancelled(cancel: "threading.Event | None") -> None:
    if cancel is not None and cancel.is_set():
        raise RacksmithError("the analysis was cancelled (its cancel event was set)")


def _lexicon_used(replay: Replay, lexicon: Any):
    """The lexicon the analysis generates moves from (None when the ruleset names none: the first
    turn's moves then say so)."""
    from ..core.position import Position

    try:
        return Position(replay.ruleset, lexicon=lexicon if lexicon is not None else replay.lexicon).lexicon
    except RacksmithError:
        return None


def _lexicon_notes(replay: Replay, result: Analysis) -> None:
    """The lexicon the record names, when it is not the one used (or when it names none)."""
    used = result.lexicon
    if used is None:
        return
    named = replay.record.lexicon_name
    if not named:
        result.notes.append(f"the record names no lexicon: words checked with {used}")
    elif named.strip().lower() != used.strip().lower():
        result.notes.append(f"the record names lexicon {named}; moves were generated from {used}")


def _two_player_notes(replay: Replay, endgame_seconds: float | None, simulating: bool) -> list[str]:
    """The grading asked for that a game of more than two players does not get, said once: the
    simulation and the endgame solver are for two players (the turns are graded by static equity)."""
    n = len(replay.players)
    sim = simulating and any(t.bag_count > 0 for t in replay.turns)
    endgame = endgame_seconds is not None and any(t.bag_count == 0 for t in replay.turns)
    if n <= 2 or not (sim or endgame):
        return []
    if sim and endgame:
        what, which = "the simulation and the endgame solver are", "its turns"
    elif sim:
        what, which = "the simulation is", "its turns"
    else:
        what, which = "the endgame solver is", "its turns played with the bag empty"
    return [f"{what} for two players; this game has {n}, so {which} are graded by static equity only"]


def _final_scores(replay: Replay) -> dict[str, int]:
    """The scores at the game's end by nick: the replay's, with the end-of-game adjustments the
    record lacks added when racksmith works them out (:meth:`Replay.end_scores`: a record without
    its going-out line)."""
    end = replay.end_scores()
    return dict(zip(replay.players, end)) if end is not None else replay.final_scores()


def _note_line(note: str) -> int:
    """The line a note is about (``line 13: ...``), 0 for a note on the whole record."""
    head, _, _ = note.partition(":")
    return int(head[5:]) if head.startswith("line ") and head[5:].isdigit() else 0


def _replay_notes(replay: Replay, result: Analysis) -> int | None:
    """Notes of the replay's errors; the line from which the record does not replay (its first
    error that is not a running total stated wrong), or None."""
    totals = replay.total_errors()
    for e in totals:
        result.notes.append(f"line {e.line}: {e.message}: the analysis goes on with the scores the plays make")
    racks = replay.rack_errors()
    for e in racks:
        result.notes.append(f"line {e.line}: {e.message}: that turn is not graded; the board and scores after it are "
                            "the game's, and the later turns are graded")
    other = [e for e in replay.errors if not any(e is x for x in (*totals, *racks))]
    if not other:
        return None
    first = min(other, key=lambda e: e.line)
    more = f" (and {len(other) - 1} more {'error' if len(other) == 2 else 'errors'})" if len(other) > 1 else ""
    result.notes.append(f"the record does not replay from line {first.line}: {first.message}{more}; the turns after "
                        "it are not graded (the positions after it are not the game's)")
    result.does_not_replay_from = first.line
    return first.line


def _position(replay: Replay, t: ReplayTurn, lexicon: Any):
    """The position before turn ``t`` with the scores the plays make (a total the record states
    wrong left out) and the lexicon of the analysis."""
    from ..core.position import Position

    pos = replay.position(t.number)
    if replay.total_slips:
        scores = replay.played_scores(t.number)
        n = len(scores)
        ordered = [scores[(t.player + i) % n] for i in range(n)]
        if ordered != list(pos.scores):
            pos = Position(pos.ruleset, pos.board, list(pos.racks), ordered, pos.zero_turns, lexicon=pos.lexicon,
                           racks_known=list(pos.racks_known), rack_sizes=pos._sizes)  # (3-4 players, bag empty: the record's sizes)
    if lexicon is not None:
        pos.lexicon = lexicon
    return pos


def _base(t: ReplayTurn, nick: str) -> dict[str, Any]:
    ev = t.event
    played_move = t.move if t.move is not None else ev.move
    return dict(
        turn=t.number,
        line=ev.line,
        player=nick,
        rack=ev.rack,
        played=played_move.notation() if played_move is not None else ev.action(),
        played_score=0 if t.withdrawn else t.score,
        withdrawn=t.withdrawn,
        withdrawn_score=t.score if t.withdrawn else None,
        bingo_attempted=bool(t.bingo),
    )


def _not_graded(t: ReplayTurn, nick: str, note: str) -> TurnAnalysis:
    return TurnAnalysis(**_base(t, nick), played_equity=None, rank=None, moves=0, best=(), equity_lost=None,
                        bingo_played=bool(t.bingo) and not t.withdrawn, bingo_available=False, note=note)


#: the note of a plain pass straight after the opponent's play, in a record without a challenge bonus
MAYBE_FAILED_CHALLENGE = ("graded as a pass chosen; it may be a failed double challenge, which a record without the "
                          "'#unsuccessful-challenge' note writes the same way")
#: the note of a pass the record tags as a failed challenge
FAILED_CHALLENGE_NOTE = ("a failed challenge of the play before (the record's #unsuccessful-challenge): the turn "
                         "the challenge cost under the double-challenge rule, not a pass chosen: not graded")


def _passes_after_plays(replay: Replay) -> set[int]:
    """The lines of the passes that may be failed challenges not tagged as such: a pass straight
    after another player's play that stood (the line before it is that play), in a record with no
    challenge bonus line (a bonus for a play that stood is the rule of games where a failed
    challenge costs points, not the turn)."""
    events = replay.record.events
    if any(ev.kind == EventKind.CHALLENGE for ev in events):
        return set()
    return {ev.line for before, ev in zip(events, events[1:])
            if ev.kind == EventKind.PASS and before.kind == EventKind.PLAY and before.nick != ev.nick}


def pass_value(pos, leaves) -> float | None:
    """What the analysis values a pass at while the bag holds tiles (None with the bag empty: then
    the move generator's value stands, the tiles kept costing what any move keeping them costs).
    A pass scores 0 and keeps the whole rack: its value is that rack's as a leave
    (:func:`kept_rack_value`; without leaves, 0). It is not the move generator's
    −:data:`~racksmith.rules.equity.PASS_PENALTY`, a rule that keeps a static player from passing,
    which would count 50 points no play lost in "equity lost"."""
    if pos.bag_count == 0:
        return None
    rack = list(pos.racks[0])
    value = kept_rack_value(leaves, rack) if leaves is not None and rack else 0.0
    return round(float(value), EQUITY_DECIMALS)


def kept_rack_value(leaves, rack: list[int]) -> float:
    """The value of keeping ``rack`` whole (a pass): a leave table holds no leave of a full rack, so
    it is valued as training values a leave it never saw (the sub-leave prior, docs/ALGORITHM.md
    §16, and the completion of a table, ``training.leavegen``): the mean over its tiles ``t``, each
    tile counted as often as the rack holds it, of ``value(rack − t) + value(t)``. A rack the table
    holds (shorter than its longest leaves) is the table's own value."""
    if len(rack) < 2:
        return float(leaves.value_tiles(rack)) if rack else 0.0
    whole = float(leaves.value_tiles(rack))
    if whole:
        return whole
    total = 0.0
    for j, t in enumerate(rack):
        total += float(leaves.value_tiles(rack[:j] + rack[j + 1:])) + float(leaves.value_tiles([t]))
    return total / len(rack)


def _verdict_equities(pos, recs, leaves) -> np.ndarray:
    """The equity of each move of the list as the verdicts use it: the move generator's (to
    1e-5, as its ranks tie them), the pass's replaced by :func:`pass_value` while the bag holds tiles."""
    equities = np.round(recs["equity"].astype(np.float64), EQUITY_DECIMALS)
    value = pass_value(pos, leaves)
    if value is not None:
        equities[recs["kind"] == _KIND_CODES[MoveKind.PASS]] = value
    return equities


def _analyze_turn(pos, t: ReplayTurn, leaves, top: int, nick: str, rack_size: int, lex,
                  endgame_seconds: float | None = None, cancel: "threading.Event | None" = None,
                  stage: Callable[[str], None] | None = None) -> TurnAnalysis:
    ev = t.event
    played_move = t.move if t.move is not None else ev.move
    base = _base(t, nick)
    bingo_played = bool(t.bingo) and not t.withdrawn
    notes = []
    if t.failed_challenge:
        notes.append(FAILED_CHALLENGE_NOTE)
    if t.withdrawn:
        notes.append("challenged off: turn lost")
        if played_move is not None:
            notes.append(_words_note(pos, played_move, lex, valid=True))
    if not t.rack_complete:
        if t.rack_slip:
            notes.append(f"not graded: {t.rack_slip}")
        else:
            notes.append("rack partly recorded" if t.rack else "rack not recorded")
        return TurnAnalysis(
            **base, played_equity=None, rank=None, moves=0, best=(), equity_lost=None,
            bingo_played=bingo_played, bingo_available=False, note="; ".join(filter(None, notes)),
            failed_challenge=t.failed_challenge,
        )
    if t.rack_inferred:  # (the record shows it in part or not at all: say which rack is graded, and why)
        shown = f"the record shows {ev.rack}" if ev.rack else "the record does not show it"
        rack = pos.ruleset.alphabet.rack_string(t.rack)  # (as the record writes a rack)
        notes.append(f"rack {rack} is certain (the bag is empty and the opponent's rack known; {shown})")
    moves = pos.moves(sort="equity", leaves=leaves, exchanges=True)
    n = len(moves)
    recs = moves.to_numpy()
    # the verdicts' equities (the pass valued as what it is), best first; moves that tie share the
    # better rank, the move generator's order kept among them
    equities = _verdict_equities(pos, recs, leaves)
    order = np.argsort(-equities, kind="stable")

    def rank_of(i: int) -> int:
        return 1 + int(np.count_nonzero(equities > equities[i]))

    bingo_available = bool((((recs["kind"] == 0) | (recs["kind"] == RECLAIM_KIND)) & (recs["n_played"] == rack_size)).any())
    if t.failed_challenge:  # the turn the challenge cost: the best moves listed, no verdict
        best = tuple(_candidate(moves[i], rack_size, rank_of(i), equity=float(equities[i]))
                     for i in order[:top].tolist())
        return TurnAnalysis(
            **base, played_equity=None, rank=None, moves=n, best=best, equity_lost=None,
            bingo_played=bingo_played, bingo_available=bingo_available, note="; ".join(filter(None, notes)),
            failed_challenge=True,
        )
    # what happened on the board: a play taken back is a pass
    target = Move.pass_(pos.ruleset.alphabet) if t.withdrawn else _target(played_move, ev.kind)
    found = _find(moves, target)
    if found is None and target is not None and listed_opening(pos, target):
        found = _find(moves, opening_mirror(target))  # the opening lists its across plays, each a down one's mirror
    best = tuple(_candidate(moves[i], rack_size, rank_of(i), i == found, equity=float(equities[i]))
                 for i in order[:top].tolist())
    if found is None:
        if played_move is None:
            notes.append("exchanged tiles not recorded")
        else:
            notes.append(_words_note(pos, played_move, lex, valid=False))
        return TurnAnalysis(
            **base, played_equity=None, rank=None, moves=n, best=best, equity_lost=None,
            bingo_played=bingo_played, bingo_available=bingo_available, note="; ".join(filter(None, notes)),
        )
    eq = float(equities[found])
    rank = rank_of(found)  # ties share the better rank
    static_lost = max(0.0, float(equities[order[0]]) - eq) if n else 0.0
    grade = None
    if endgame_seconds is not None and pos.bag_count == 0 and not pos.is_over and len(pos.racks) == 2:
        if stage is not None:
            stage("solving the endgame")
        try:
            grade, solver_bingo = _grade_endgame(pos, moves[found], endgame_seconds, cancel)
        except RacksmithError as e:  # a position the solver does not take (more stars than it takes back,
            notes.append(f"endgame not graded: {e}")  # scores too far apart): no grade, and why
    if grade is not None:
        lost, graded_by, played_best = float(max(0, grade.lost)), "endgame", grade.lost <= 0
        best_bingo = solver_bingo
    else:
        lost, graded_by, played_best = static_lost, "static", rank == 1
        best_bingo = best[0].bingo  # the best by static equity (the first listed of those that tie)
    return TurnAnalysis(
        **base, played_equity=eq, rank=rank, moves=n, best=best, equity_lost=lost,
        bingo_played=bingo_played, bingo_available=bingo_available, endgame=grade, note="; ".join(filter(None, notes)),
        graded_by=graded_by, static_equity_lost=static_lost, played_best=played_best, best_bingo=best_bingo,
    )


def _is_bingo(m: Move | None, rack_size: int) -> bool:
    """A play of as many tiles as a full rack holds."""
    return m is not None and m.is_place and m.tiles_played == rack_size


def _words_note(pos, move: Move, lex, *, valid: bool) -> str:
    """What the lexicon says of a play: the words of it not in the lexicon, named; or, with
    ``valid``, that its words are all in it (a play taken back although good); "" when there is
    nothing to say (no lexicon, a play illegal for another reason)."""
    name = getattr(lex, "name", None) or "the lexicon"
    if not move.is_place or lex is None:
        return "" if valid else "the move played is not a legal move here"
    from ..core.validation import check_move

    try:
        check_move(pos, move, lex)
    except IllegalMoveError as e:
        if e.reason == "invalid_words" and e.words:
            return f"a phony: not in the lexicon ({name}): {', '.join(e.words)}"
        return "" if valid else f"the move played is not a legal move here ({e.reason}): {e.message}"
    except RacksmithError as e:
        return "" if valid else f"the move played is not a legal move here: {e}"
    return f"its words are all in {name}" if valid else "the move played is not among the moves generated here"


def _grade_endgame(pos, played: Move, seconds: float,
                   cancel: "threading.Event | None" = None) -> tuple[EndgameGrade, bool]:
    """The endgame solver's verdict on the move played (its value searched first, exactly), and
    whether the solver's best move is a bingo."""
    from ..search.endgame import solve_endgame

    r = solve_endgame(pos, seconds=seconds, move=played, cancel=cancel)
    if r.depth == 0:  # (the time ran out before depth 1 ended: the values are no search's)
        raise RacksmithError(f"the time ran out after {r.seconds:.2f} s, before the solver's first depth ended "
                             "(give the solver more time: endgame_seconds)")
    played_value = r.move_value if r.move_value is not None else r.value
    grade = EndgameGrade(r.value, played_value, r.value - played_value,
                         r.best.notation() if r.best is not None else "", r.exact,
                         int(pos.scores[0]) - int(pos.scores[1]))
    return grade, _is_bingo(r.best, pos.ruleset.rack_size)


#: the options of :func:`racksmith.sim.simulate.simulate` that ``analyze(sim=...)`` passes on (the
#: analysis gives the position, the moves and the leaves itself)
SIM_OPTIONS = ("candidates", "plies", "iterations", "seconds", "threads", "seed", "stop", "winpct", "min_samples",
               "progress", "cancel", "infer", "infer_samples")

#: the play-outs of the move played against the best others, once the first simulation leaves the
#: grade unsettled: batches of ``iterations / (2 * DUEL_FIRST_LOOK)`` play-outs of each move (at least
#: :data:`DUEL_MIN_BATCH`), looked at after :data:`DUEL_FIRST_LOOK` batches (half of ``iterations``
#: play-outs each; for a small ``iterations``, after ``iterations / 4`` batches, at least
#: :data:`DUEL_FEWEST_BATCHES`), then after twice and four times as many (at most ``2 * iterations``)
DUEL_MIN_BATCH = 4
DUEL_FIRST_LOOK = 20
DUEL_FEWEST_BATCHES = 8
DUEL_LOOKS = (1, 2, 4)
#: the best others of the first simulation the move played meets in the duel; after
#: :data:`DUEL_PRUNE` batches, and at each look, those surely below another are dropped
DUEL_RIVALS = 3
DUEL_PRUNE = 5
#: the play-outs a turn's simulation is based on without ``iterations``
DUEL_DEFAULT_ITERATIONS = 1000
#: the fewest play-outs of the move played and of the best other in the first simulation for its
#: interval to settle a grade (fewer: the duel decides)
DEFAULT_MIN_SAMPLES = 30
#: the confidence of the interval of the win% lost; each of its looks (the first simulation and the
#: duel's) at ``1 - (1 - GRADE_CONFIDENCE) / looks``, so that looking more than once does not settle a
#: grade more often than that
GRADE_CONFIDENCE = 0.95


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


def _sim_settings(sim: dict) -> dict[str, Any]:
    """The simulation options of :func:`analyze` as the analysis's ``settings`` give them: those
    given, in JSON's types (``winpct``: :func:`_winpct_name`); ``cancel`` and ``progress``
    (callables) left out."""
    out: dict[str, Any] = {}
    for k in SIM_OPTIONS:
        if k not in sim or k in ("cancel", "progress"):
            continue
        v = sim[k]
        if k == "winpct":
            v = _winpct_name(v)
        elif isinstance(v, np.generic):  # a numpy number
            v = v.item()
        elif v is not None and not isinstance(v, (bool, int, float, str)):
            v = str(v)
        out[k] = v
    return out


def _winpct_name(spec: Any) -> str | None:
    """The win% table of a simulation, as a text: the name or path given; a table's or a ruleset's
    name (a table read from a file is named after it); None when none was given."""
    if spec is None or isinstance(spec, str):
        return spec
    if isinstance(spec, os.PathLike):
        return str(os.fspath(spec))
    name = getattr(spec, "name", None)
    return name if isinstance(name, str) and name else "(a win% table without a name)"


def _quantile(dof: int) -> float:
    """The two-sided quantile of Student's t with ``dof`` degrees of freedom at the confidence of
    one look (:data:`GRADE_CONFIDENCE` shared by the first simulation and the duel's looks;
    Cornish-Fisher: the normal's for large ``dof``)."""
    if dof <= 0:
        return math.inf
    looks = 1 + len(DUEL_LOOKS)
    z = statistics.NormalDist().inv_cdf(1 - (1 - GRADE_CONFIDENCE) / looks / 2)
    return z + (z ** 3 + z) / (4 * dof) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * dof ** 2)


def _interval(lost: float, se: float, q: float) -> tuple[float, float]:
    """The interval of the win% lost (never below 0)."""
    if not math.isfinite(se):
        return 0.0, math.inf
    return max(0.0, lost - q * se), max(0.0, lost + q * se)


def _grades_of(lo: float, hi: float) -> tuple[str, str]:
    from ..sim.simulate import grade

    return grade(lo), grade(hi)


def _simulate_turn(pos, t: ReplayTurn, ta: TurnAnalysis, leaves, sim: dict,
                   before: ReplayTurn | None) -> TurnAnalysis:
    """``ta`` with the win% of the move played against the best of a simulation (``before``: the
    turn before, the opponent's play to infer from)."""
    from ..core.position import Position
    from ..errors import SimError
    from ..sim.simulate import check_scores, simulate

    if len(pos.racks) != 2 or pos.is_over:
        return ta
    try:
        check_scores(pos.scores)
    except SimError as e:  # scores the play-outs cannot hold: no win% for this turn, and why
        return replace(ta, note="; ".join(filter(None, (ta.note, str(e)))))
    if pos.bag_count == 0:  # an endgame turn: the endgame solver's to grade (ta.endgame), not a simulation's
        return ta
    shown, whole = _opponent_shown(pos, t)
    seen = Position(pos.ruleset, pos.board.copy(), (pos.racks[0], shown), list(pos.scores), pos.zero_turns,
                    lexicon=pos.lexicon, racks_known=[True, whole])
    options = dict(sim)
    n = int(options.pop("candidates", 10))
    infer = options.pop("infer", False)
    from ..sim.player import DEFAULT_INFER_SAMPLES

    infer_samples = int(options.pop("infer_samples", DEFAULT_INFER_SAMPLES))
    ml = seen.moves(top=n, sort="equity", leaves=leaves, exchanges=True)
    if t.withdrawn:
        played = Move.pass_(pos.ruleset.alphabet)
    else:
        played = _target(t.move if t.move is not None else t.event.move, t.event.kind)
    cands = list(ml)
    if played is not None and played not in cands:
        cands.append(played)
    options.setdefault("seed", 0)
    inference = _infer_before(seen, t, before, leaves, infer_samples, options) if infer else None
    r = simulate(seen, candidates=len(cands), moves=cands, leaves=leaves, opponent_racks=inference, **options)
    mine = next((c for c in r.candidates if c.move == played), None)
    if mine is None or not mine.iterations or math.isnan(mine.win_pct):  # (a play no play-out reached: not known)
        return ta
    others = [c for c in r.candidates if c is not mine and c.iterations and not math.isnan(c.win_pct)]
    if not others:  # the move played was the only candidate
        rival, diff, se_lost, q = None, -math.inf, 0.0, 0.0
        win, se_win, playouts = mine.win_pct, mine.stderr, mine.iterations
    else:
        rival = others[0].move  # the best of the others
        diff = others[0].win_pct - mine.win_pct
        se_lost = math.hypot(others[0].stderr, mine.stderr)  # (unpaired: more than the error of common tiles)
        fewest = min(mine.iterations, others[0].iterations)
        q = _quantile(fewest - 1)
        win, se_win, playouts = mine.win_pct, mine.stderr, mine.iterations
        if fewest < DEFAULT_MIN_SAMPLES or not _settled(diff, se_lost, q):
            # not settled: the move played against the best others alone, on common tiles, until it is
            # the best others, less those the first simulation already finds surely below the best of them
            rivals = [c.move for c in others[:DUEL_RIVALS]
                      if c is others[0] or not c.win_pct + _quantile(c.iterations - 1) * math.hypot(c.stderr, others[0].stderr)
                      < others[0].win_pct]
            duel = _duel(seen, rivals, played, leaves, inference, sim, options["seed"], t.number)
            if duel is None:
                return ta
            rival, diff, se_lost, q, win, se_win, playouts, (lo, hi) = duel
            return _graded(ta, win, diff, se_lost, se_win, playouts, rival if diff > 0 else played, inference, lo, hi,
                           pos.ruleset.rack_size)
    return _graded(ta, win, diff, se_lost, se_win, playouts, rival if diff > 0 else played, inference,
                   *_interval(diff, se_lost, q), pos.ruleset.rack_size)


def _graded(ta: TurnAnalysis, win: float, diff: float, se_lost: float, se_win: float, playouts: int, best: Move,
            inference, lo: float, hi: float, rack_size: int) -> TurnAnalysis:
    """``ta`` with the simulation's verdict: the move played's win% and its error, the win% lost
    (``diff``, the best's win% less the move played's, never below 0) and its error and interval;
    ``best`` the simulation's best (the move played when none did better), whose being a bingo is
    the turn's ``best_bingo``."""
    from ..sim.simulate import grade

    lost = max(0.0, diff)
    low, high = _grades_of(lo, hi)
    return replace(ta, win_pct=win, best_win_pct=win + lost, win_pct_lost=lost, grade=grade(lost),
                   best_bingo=_is_bingo(best, rack_size),
                   inferred_from=None if inference is None else inference.play,
                   inferred_leaves=None if inference is None else len(inference.leaves),
                   sim_best=best.notation(), playouts=int(playouts), win_pct_stderr=se_win,
                   win_pct_lost_stderr=se_lost, grade_sure=low == high, grade_range=(low, high))


def _settled(diff: float, se: float, q: float) -> bool:
    """The interval of the win% lost (``diff``: the best other's win% less the move played's)
    lies within one grade."""
    low, high = _grades_of(*_interval(diff, se, q))
    return low == high


def _batch(sim: dict) -> tuple[int, int]:
    """Play-outs of each move in a batch of the duel, and the batches of its first look."""
    iterations = int(sim.get("iterations") or DUEL_DEFAULT_ITERATIONS)
    first = min(DUEL_FIRST_LOOK, max(DUEL_FEWEST_BATCHES, iterations // 4))
    return max(DUEL_MIN_BATCH, iterations // (2 * first)), first


def _opponent_shown(pos, t: ReplayTurn) -> "tuple[tuple[int, ...], bool]":
    """What the mover knows of the opponent's rack before turn ``t``: the tiles of the opponent's
    plays withdrawn after a challenge that he still holds (:attr:`ReplayTurn.shown`), as many of
    each as the tiles the mover cannot see hold; and whether they are his whole rack (a withdrawn
    bingo). ``((), False)`` when nothing is known."""
    from ..core import turns

    if len(t.shown) != 2 or not t.shown[1 - t.player]:
        return (), False
    rs = pos.ruleset
    unseen = turns.unseen_counts(rs, pos.board, [pos.racks[0]])
    tiles = []
    for tile in t.shown[1 - t.player]:
        if unseen[tile] > 0:
            unseen[tile] -= 1
            tiles.append(tile)
    if len(tiles) > rs.rack_size:
        return (), False
    return rs.alphabet.tiles(tiles), len(tiles) == rs.rack_size


def _duel(seen, rivals: list[Move], played: Move, leaves, inference, sim: dict, seed: int, turn: int):
    """The move played against ``rivals`` (the best others of the first simulation) alone: batches
    of play-outs, every move on the same tiles within a batch (common random numbers; each batch its
    own seed, drawn from ``seed`` and the turn), looked at after :data:`DUEL_FIRST_LOOK` batches (fewer
    for a small ``iterations``: :func:`_batch`) and
    the multiples of it :data:`DUEL_LOOKS` gives, until the interval of the win% lost lies within
    one grade. The win% lost is the most a rival wins over the move played, its interval from the
    rivals' own (the differences of the batches give each its standard error); a rival whose
    interval lies wholly below another's, or below the move played, is dropped at a look or after
    :data:`DUEL_PRUNE` batches (it cannot be the best). Answers (the best rival, its win% − played's, the standard error of that, the t
    quantile of the interval, played's win%, its standard error, play-outs of the move played, the
    interval), or None when a batch reached none of the moves."""
    from ..sim.simulate import simulate

    size, first = _batch(sim)
    passed = {k: sim[k] for k in ("plies", "threads", "winpct", "cancel") if k in sim}
    rivals = list(rivals)
    diffs: list[list[float]] = [[] for _ in rivals]
    wins: list[float] = []
    rng = random.Random(f"racksmith-analysis:{seed}:{turn}")
    looks = [first * m for m in DUEL_LOOKS]
    live = list(range(len(rivals)))
    k = 0

    def intervals() -> dict[int, tuple[float, float, float, float]]:
        q = _quantile(k - 1)
        out = {}
        for j in live:
            d = statistics.fmean(diffs[j][-k:])
            se = statistics.stdev(diffs[j][-k:]) / math.sqrt(k)
            out[j] = (d, se, *_interval(d, se, q))
        return out

    while k < looks[-1]:
        moves = [rivals[j] for j in live] + [played]
        r = simulate(seen, moves=moves, iterations=len(moves) * size, stop=None, round_robin=True,
                     seed=rng.getrandbits(63), leaves=leaves, opponent_racks=inference, **passed)
        if r.stopped == "interrupted":
            break
        got = {c.move: c for c in r.candidates}
        if any(m not in got or not got[m].iterations or math.isnan(got[m].win_pct) for m in moves):
            return None
        for j in live:
            diffs[j].append(got[rivals[j]].win_pct - got[played].win_pct)
        wins.append(got[played].win_pct)
        k += 1
        if k in looks or (k == DUEL_PRUNE and len(live) > 1):
            iv = intervals()
            lo = max(v[2] for v in iv.values())
            hi = max(v[3] for v in iv.values())
            if k in looks and len(set(_grades_of(lo, hi))) == 1:
                break
            # a rival surely below another, or below the move played, cannot be the best: dropped
            keep = [j for j in live if iv[j][3] > 0 and iv[j][3] >= lo]
            if keep:
                live = keep
                diffs = [d if j in live else [] for j, d in enumerate(diffs)]
    if k < 2:
        return None
    iv = intervals()
    best = max(iv, key=lambda j: iv[j][0])
    d, se = iv[best][:2]
    lo = max(v[2] for v in iv.values())
    hi = max(v[3] for v in iv.values())
    root = math.sqrt(k)
    return (rivals[best], d, se, _quantile(k - 1), statistics.fmean(wins), statistics.stdev(wins) / root, k * size,
            (lo, hi))


def _infer_before(seen, t: ReplayTurn, before: ReplayTurn | None, leaves, samples: int, options: dict):
    """What the opponent's turn just before ``t`` says he kept (an Inference), or None: no such
    turn (the first, one of the mover's own, a pass, a play taken back), or nothing explains it."""
    from ..errors import InferenceError
    from ..sim.infer import infer_leaves

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
    return None if inference.too_few else inference


def _events(replay: Replay) -> list[GameEvent]:
    """The lines of the record that are not turns, each with the turn it follows."""
    turn_lines = {t.line: t for t in replay.turns}
    out = []
    after = 0
    previous_play: ReplayTurn | None = None
    for ev in replay.record.events:
        if ev.line in turn_lines:
            after = turn_lines[ev.line].number
            previous_play = turn_lines[ev.line] if ev.kind == EventKind.PLAY else None
            continue
        kind = _EVENT_KINDS.get(ev.kind, "not_a_turn")
        of = f"turn {previous_play.number}" if previous_play is not None else "the play before"
        if kind == "withdrawn":
            text = f"the play of {of} challenged off and taken back: the turn is lost"
        elif kind == "challenge_bonus":
            text = f"challenge bonus: the play of {of} was challenged and stood (the challenge failed)"
        elif kind == "time_penalty":
            text = "time penalty"
        elif kind == "going_out":
            whose = "the opponent's" if len(replay.players) == 2 else "the others'"
            text = f"going out: {whose} tiles ({ev.tiles}) counted"
        elif kind == "rack_penalty":
            text = f"rack penalty: the tiles left ({ev.tiles}) subtracted"
        elif ev.kind == EventKind.PASS and previous_play is not None:
            text = f"a pass after the play of {of} went out: accepting it (or a challenge of it that failed); not a turn"
        else:
            text = "not played as a turn (see the replay's errors)"
        out.append(GameEvent(ev.line, ev.nick, kind, ev.action(), ev.score, after, text))
    return out


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


def _candidate(m: Move, rack_size: int, rank: int, played: bool = False, *, equity: float | None = None) -> Candidate:
    """A best move of a turn; ``equity``: the verdicts' (:func:`_verdict_equities`), default the move's."""
    return Candidate(m.notation(), int(m.score or 0), float(m.equity or 0.0) if equity is None else equity,
                     m.is_place and m.tiles_played == rack_size, rank, played)
