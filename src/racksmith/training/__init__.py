"""Leave training by self-play: rack tallies (exact, mergeable), leave values from them, and the
generations of a resumable training run (``racksmith leaves train``).

The names below are imported from their modules at first use, not when the package is: a package
that imports its modules while it is imported holds its import lock while they load, and a thread
importing one of them directly (``racksmith.training.games``) holds that module's lock while it
waits for the package's, so two threads importing at once met in a cycle of import locks
(``_DeadlockError``, or a partly initialised module)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:  # pragma: no cover
    # (``X as X``: re-exported, as a type checker's strict mode wants it said)
    from .leavegen import (DEFAULT_PRIOR_WEIGHT as DEFAULT_PRIOR_WEIGHT, leave_values as leave_values,
                           leaves_from_tally as leaves_from_tally)
    from .tally import RackTally as RackTally, rack_key as rack_key
    from .train import TrainResult as TrainResult, TrainSettings as TrainSettings, train_leaves as train_leaves

#: each public name and the module that defines it
_WHERE = {
    "DEFAULT_PRIOR_WEIGHT": "leavegen",
    "leave_values": "leavegen",
    "leaves_from_tally": "leavegen",
    "RackTally": "tally",
    "rack_key": "tally",
    "TrainResult": "train",
    "TrainSettings": "train",
    "train_leaves": "train",
}

#: written out (the names of _WHERE, sorted: tests/test_strict_typing.py keeps them so), for a type
#: checker reads a literal list only
__all__ = ["DEFAULT_PRIOR_WEIGHT", "RackTally", "TrainResult", "TrainSettings", "leave_values", "leaves_from_tally",
           "rack_key", "train_leaves"]

if not TYPE_CHECKING:  # (a type checker that saw a module __getattr__ would take any name, a typo too)
    __getattr__, __dir__ = lazy_names(__name__, _WHERE, globals())
