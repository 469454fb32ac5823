"""The choices of move generation, as ``StrEnum``s: a member equals its string
(``Sort.EQUITY == "equity"``), so either may be passed."""
from __future__ import annotations

from ..core.move import Kind



class Sort(Kind):
    """What ranks the moves."""

    SCORE = "score"  #: points, then equity
    EQUITY = "equity"  #: score + leave value (and the opening and end-of-game adjustments)


class Direction(Kind):
    """Which placements to list."""

    BOTH = "both"
    ACROSS = "across"
    DOWN = "down"


class Algorithm(Kind):
    """Which generator makes them (both give the same moves)."""

    GADDAG = "gaddag"  #: Gordon's, over the lexicon's GADDAG
    DAWG = "dawg"  #: Appel and Jacobson's, over the DAWG alone
