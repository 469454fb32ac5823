"""Type stubs of the game loop kernel (racksmith/play/_gameloop.pyx); tests/test_stubs.py holds
this file to the compiled module."""
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from racksmith.movegen._movegen import LeaveTable, Rules

MAX_KERNEL_PLAYERS: int
MAX_KERNEL_STARS: int
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
    paired: bool = False,
    check: bool = True,
    log: bool = False,
    rows: bool = False,
    probes: int = 0,
    lie: str | None = None,
    lie_game: int = -1,
    lie_turn: int = -1,
    max_violations: int = 1000,
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
    seed: int = 0,
    check: bool = True,
) -> dict[str, Any]: ...
