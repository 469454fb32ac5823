"""An EndgameSolver solves again after a solve that a time limit or a cancel stopped (a bot on a
clock solves in slices): the stop was kept, and every later solve returned the unsearched best
move by score with value 0, depth 0 and one node."""
from __future__ import annotations

import threading

from racksmith import EndgameSolver, Position

EG = ("7UVEAL1SI/1FITTERs3I1ID/9TAR1L1/9OWE1E1/9TA2N1/9AY2C1/9L2BE1/7sWINKED1/6JOES1OD2/"
      "5COP1TOR3/4V5HA2G/3MAZY3MIB1N/4T7O1A/1FUGU4PRAXES/4SQUIREEN2H AEINNOR/ 391/401 0")


def _line(result) -> tuple:
    return result.value, result.depth, result.best.notation(), [m.notation() for m in result.pv]


def test_a_solve_after_a_timed_out_one_searches():
    pos = Position.from_cgp(EG)
    fresh = pos.solve_endgame(plies=3)
    solver = EndgameSolver(pos)
    solver.solve(seconds=0.02)  # (stopped by its deadline: inside a depth, or before depth 1 ends on a loaded machine)
    again = solver.solve(plies=3)
    assert again.depth == 3 and again.nodes > 1 and _line(again) == _line(fresh)
    assert [(t.move.notation(), t.value) for t in solver.solve(plies=3, top=2).top] == [
        (t.move.notation(), t.value) for t in pos.solve_endgame(plies=3, top=2).top]


def test_a_solve_after_a_cancelled_one_searches():
    pos = Position.from_cgp(EG)
    fresh = pos.solve_endgame(plies=3)
    solver = EndgameSolver(pos)
    cancel = threading.Event()
    cancel.set()
    stopped = solver.solve(plies=3, cancel=cancel)
    assert not stopped.exact
    assert _line(solver.solve(plies=3)) == _line(fresh)
