"""What public docstrings and the README promise, where an audit of them found the code did not
keep the promise (each test failed before its fix)."""
from __future__ import annotations

import pytest

from racksmith import Leaves, SelfPlayConfig, run_selfplay
from racksmith.errors import LexiconFormatError, RacksmithError


def test_a_leave_longer_than_a_leave_can_be_is_refused_as_a_csv_refuses_it(tmp_path):
    """``Leaves.from_pairs`` stored an 8-tile "leave": its own CSV (``items``) then did not build
    it again (the CSV reader refuses it), nor did ``leaves csv`` then ``leaves build``."""
    for complete in (False, True):
        with pytest.raises(LexiconFormatError, match="leave 'ABCDEFGH' has 8 tiles; a leave keeps at most 6"):
            Leaves.from_pairs([("S", 8.0), ("ABCDEFGH", 3.0)], complete=complete)
    table = Leaves.from_pairs([("S", 8.0), ("ABCDEF", 3.0)])
    again = Leaves.from_csv_text("".join(f"{k},{v}\n" for k, v in table.items()))
    assert dict(again.items()) == dict(table.items())


def test_paired_self_play_needs_an_even_number_of_games():
    """``run_selfplay(3, paired=True)`` played game 2 on a bag of its own, with no mirror, counted
    among the pairs; the command line refused it (``--paired`` needs an even ``--games``)."""
    with pytest.raises(RacksmithError, match="games must be even with paired=True"):
        run_selfplay(3, SelfPlayConfig(paired=True, seed=1))
    assert run_selfplay(2, SelfPlayConfig(paired=True, seed=1)).to_dict()["games"] == 2
