"""outcome() of a position a setter reopened: None, as is_over says (it returned the ending of the
last push whatever the position had become; a model-based audit)."""
from __future__ import annotations

from racksmith import Position


def test_a_game_reopened_by_a_setter_has_no_outcome():
    pos = Position.empty("english", "AEQRSTZ")
    for _ in range(6):
        pos.push("-")
    assert pos.is_over and pos.outcome() is not None
    pos.zero_turns = 0
    assert not pos.is_over and pos.outcome() is None
    pos.zero_turns = 6
    assert pos.is_over and pos.outcome() is not None
