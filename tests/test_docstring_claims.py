"""What public docstrings and the README promise, where an audit of them found the code did not
keep the promise (each test failed before its fix)."""
from __future__ import annotations

import pytest

from racksmith import SelfPlayConfig, run_selfplay
from racksmith.errors import RacksmithError


def test_paired_self_play_needs_an_even_number_of_games():
    """``run_selfplay(3, paired=True)`` played game 2 on a bag of its own, with no mirror, counted
    among the pairs; the command line refused it (``--paired`` needs an even ``--games``)."""
    with pytest.raises(RacksmithError, match="games must be even with paired=True"):
        run_selfplay(3, SelfPlayConfig(paired=True, seed=1))
    assert run_selfplay(2, SelfPlayConfig(paired=True, seed=1)).to_dict()["games"] == 2
