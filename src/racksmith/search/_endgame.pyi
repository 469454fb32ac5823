"""Type stub of the compiled endgame search kernel (see _endgame.pyx); tests/test_stubs.py holds
this file to the compiled module."""
from typing import Any, final

import numpy as np
import numpy.typing as npt
from typing_extensions import Self

from racksmith.movegen._movegen import Rules

TILE_BITS: dict[str, int]

def playable_words(rules: Rules, board: npt.NDArray[np.uint8], tiles: bytes | bytearray) -> list[bytes]: ...

@final
class Search:
    """The endgame search over one ruleset and lexicon, with its transposition table."""

    def __new__(cls, rules: Rules, tt_bits: int = 22, lane_cache: bool = True) -> Self: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def tt_bits(self) -> int: ...
    @property
    def lane_cache(self) -> bool: ...
    @property
    def last_nodes(self) -> int: ...
    def set_position(
        self,
        board: npt.NDArray[np.uint8],
        rack0: bytes | bytearray,
        rack1: bytes | bytearray,
        spread: int,
        zero_turns: int,
        zero_limit: int,
        bag: bytes | bytearray = b"",
        pass_zero: int = -1,
    ) -> None: ...
    def root_moves(self) -> npt.NDArray[np.void]: ...
    def stop(self) -> None: ...
    def resume(self) -> None: ...
    def clear(self) -> None: ...
    def _help(self, k: int) -> None: ...
    def search(
        self, depth: int, deadline: float = 0.0, threads: int = 1, first: int = -1, top: int = 1
    ) -> dict[str, Any] | None: ...
    def bound(
        self,
        alpha: int,
        beta: int,
        max_depth: int = 126,
        deadline: float = 0.0,
        deepen: bool = True,
        tiles_first: bool = False,
    ) -> dict[str, Any] | None: ...
    def playout(self) -> int: ...
