"""Type stubs of the game loop kernel (racksmith/play/_gameloop.pyx)."""
from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from racksmith.movegen._movegen import LeaveTable, Rules

MAX_KERNEL_PLAYERS: int
MAX_TURNS: int
CHECK_REASONS: dict[int, str]
CHECK_CODES: dict[str, int]
LIES: tuple[str, ...]
TILE_BITS: dict[str, int]
KWG_LAYOUT: dict[str, int]

def shuffled(tiles: bytes, seed: int, index: int) -> bytes: ...
def play_games(
    rules: Rules,
    players: Sequence[tuple[str, LeaveTable | None]],
    seed: int,
    first: int,
    n_games: int,
    *,
    paired: bool = ...,
    check: bool = ...,
    log: bool = ...,
    rows: bool = ...,
    lie: str | None = ...,
    lie_game: int = ...,
    lie_turn: int = ...,
    max_violations: int = ...,
) -> dict[str, Any]: ...
def playout(
    rules: Rules,
    players: Sequence[tuple[str, LeaveTable | None]],
    board: npt.NDArray[np.uint8],
    racks: Sequence[bytes],
    scores: Sequence[int],
    zero_turns: int,
    bag: bytes,
    plies: int,
    seed: int = ...,
    check: bool = ...,
) -> dict[str, Any]: ...
