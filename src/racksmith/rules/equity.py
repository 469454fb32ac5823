"""Static evaluation: the constants of a move's static equity, named once.

A move's equity is its score plus a valuation of what it keeps (see ``docs/ALGORITHM.md``, section
6). The move generator receives these values as data (:class:`StaticEvaluation`, given to
``racksmith.movegen._movegen.Rules``); nothing else spells them out.

* While the bag holds tiles, the kept tiles are worth their leave value (a ``Leaves`` table), and on
  the opening each vowel placed costs :data:`OPENING_VOWEL_PENALTY` per step of premium (letter
  multiplier − 1 plus word multiplier − 1) on the squares directly beside it across the line of play
  (above and below it for an across play, left and right for a down play): it opens those squares
  to the opponent.
* Once the bag is empty the leave values no longer apply: going out earns
  :data:`GOING_OUT_FACTOR` × the others' racks (what the end of the game will add; every other
  player's, the unseen tiles when their racks are not known), and a move
  that keeps tiles costs :data:`STUCK_PENALTY` plus :data:`STUCK_FACTOR` × the value of the tiles
  kept (the opponent may go out next, and the tiles kept would then count against it twice).
* A pass while the bag holds tiles is worth −:data:`PASS_PENALTY`: it scores nothing, keeps the
  whole rack (a leave no table values) and gives the turn away, so it is the static choice only
  when every other move is worse still (Macondo's static player charges it the same 50 points;
  MAGPIE ranks it below every move). With the bag empty a pass keeps its tiles like any move that
  keeps them (above).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import RulesetError

OPENING_VOWEL_PENALTY = 0.35  #: per premium step beside a vowel played on the opening (across the line of play)
GOING_OUT_FACTOR = 2.0  #: bag empty, nothing kept: times the others' racks
STUCK_PENALTY = 10.0  #: bag empty, tiles kept: a flat cost...
STUCK_FACTOR = 2.0  #: ...plus this times the value of the tiles kept
PASS_PENALTY = 50.0  #: a pass while the bag holds tiles: its equity is minus this


@dataclass(frozen=True, slots=True)
class StaticEvaluation:
    """The constants of static equity; the defaults are racksmith's (MAGPIE's and wolges' too)."""

    opening_vowel_penalty: float = OPENING_VOWEL_PENALTY
    going_out_factor: float = GOING_OUT_FACTOR
    stuck_penalty: float = STUCK_PENALTY
    stuck_factor: float = STUCK_FACTOR
    pass_penalty: float = PASS_PENALTY

    def __post_init__(self) -> None:
        for name in self.__slots__:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise RulesetError(f"static evaluation: {name} must be a finite number, got {value!r}")
            if not 0 <= value <= 1000:
                raise RulesetError(f"static evaluation: {name} must be 0..1000, got {value!r}")


DEFAULT = StaticEvaluation()
