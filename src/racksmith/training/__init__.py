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
    from .leavegen import DEFAULT_PRIOR_WEIGHT, leave_values, leaves_from_tally
    from .tally import RackTally, rack_key
    from .train import TrainResult, TrainSettings, train_leaves

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

__all__ = sorted(_WHERE)


__getattr__, __dir__ = lazy_names(__name__, _WHERE, globals())
