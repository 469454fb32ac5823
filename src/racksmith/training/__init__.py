"""Leave training by self-play: rack tallies (exact, mergeable), leave values from them, and the
generations of a resumable training run (``racksmith leaves train``)."""
from .leavegen import DEFAULT_PRIOR_WEIGHT, leave_values, leaves_from_tally
from .tally import RackTally, rack_key
from .train import TrainResult, TrainSettings, train_leaves

__all__ = [
    "DEFAULT_PRIOR_WEIGHT",
    "RackTally",
    "TrainResult",
    "TrainSettings",
    "leave_values",
    "leaves_from_tally",
    "rack_key",
    "train_leaves",
]
