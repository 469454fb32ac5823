"""Type stub of the compiled move generation kernel (see _movegen.pyx)."""
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

RECORD_DTYPE: np.dtype

class Tables:
    """The tables of one (ruleset, lexicon, leaves) triple, built once and reused by every call."""

    has_gaddag: bool
    has_leaves: bool
    rows: int
    cols: int
    n_letters: int

    def __init__(
        self,
        kwg: npt.NDArray[np.uint32],
        has_gaddag: bool,
        n_letters: int,
        rows: int,
        cols: int,
        letter_multipliers: Sequence[int],
        word_multipliers: Sequence[int],
        values: Sequence[int],
        vowels: Sequence[int],
        bingo_bonus: int,
        rack_size: int,
        start: int,
        leaves_kwg: npt.NDArray[np.uint32] | None = ...,
        leaves_counts: npt.NDArray[np.uint32] | None = ...,
        leaves_values: npt.NDArray[np.float32] | None = ...,
    ) -> None: ...
    def generate(
        self,
        board: npt.NDArray[np.uint8],
        rack: bytes,
        not_on_racks: int,
        opp_value: int,
        top: int = ...,
        by_equity: bool = ...,
        exchange_limit: int = ...,
        directions: int = ...,
        gaddag: bool = ...,
    ) -> tuple[np.ndarray, int]: ...
