"""Type stub of the compiled move generation kernel (see _movegen.pyx; C-level API in _movegen.pxd)."""
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from racksmith.lexicon import Leaves, Lexicon
from racksmith.rules.equity import StaticEvaluation
from racksmith.rules.ruleset import Ruleset

RECORD_DTYPE: np.dtype
TILE_BITS: dict[str, int]
KWG_LAYOUT: dict[str, int]
MAX_TOP_MOVES: int

class Rules:
    """The read-only tables of one ruleset and lexicon (and static evaluation)."""

    lexicon: Lexicon
    ruleset: Ruleset
    evaluation: StaticEvaluation
    kwg: npt.NDArray[np.uint32]
    has_gaddag: bool
    rows: int
    cols: int
    n_letters: int

    def __init__(self, lexicon: Lexicon, ruleset: Ruleset, evaluation: StaticEvaluation | None = ...) -> None: ...

class LeaveTable:
    """The leave values of a Leaves table, as the kernel reads them."""

    leaves: Leaves

    def __init__(self, leaves: Leaves) -> None: ...

class Tables:
    """The tables of one (ruleset, lexicon, leaves) triple; generate() is stateless."""

    rules: Rules
    leave_table: LeaveTable | None
    has_gaddag: bool
    has_leaves: bool
    rows: int
    cols: int
    n_letters: int

    def __init__(self, rules: Rules, leaves: LeaveTable | None = ...) -> None: ...
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

class BoardState:
    """A board kept ready for move generation, updated line by line by place() and unplace()."""

    rules: Rules
    gaddag: bool
    n_tiles: int
    tiles: npt.NDArray[np.uint8]
    in_use: bool
    plan: MovePlan | None

    def __init__(self, rules: Rules, gaddag: bool | None = ...) -> None: ...
    def sync(self, board: npt.NDArray[np.uint8]) -> int: ...
    def generate_synced(
        self,
        board: npt.NDArray[np.uint8],
        rack: bytes | tuple[int, ...],
        opp_rack: bytes | tuple[int, ...],
        not_on_racks: int,
        top: int,
        by_equity: bool,
        exchange_limit: int,
        directions: int,
        gaddag: bool,
        leaves: LeaveTable | None,
    ) -> tuple[bytes, int, bool]: ...
    def set(self, board: npt.NDArray[np.uint8]) -> None: ...
    def clear(self) -> None: ...
    def copy(self) -> "BoardState": ...
    def place(self, row: int, col: int, across: bool, tiles: Sequence[int] | bytes) -> int: ...
    def unplace(self, row: int, col: int, across: bool, tiles: Sequence[int] | bytes) -> int: ...
    def arrays(self) -> dict[str, np.ndarray]: ...
    def generate(
        self,
        rack: bytes,
        not_on_racks: int,
        opp_value: int,
        top: int = ...,
        by_equity: bool = ...,
        exchange_limit: int = ...,
        directions: int = ...,
        gaddag: bool = ...,
        leaves: LeaveTable | None = ...,
    ) -> tuple[np.ndarray, int]: ...

class MoveListBase:
    """The storage of racksmith.movegen.movelist.MoveList (filled by plan_moves in one call)."""

    placements_reached: int | None
    def __len__(self) -> int: ...

class MovePlan:
    """The checked options of one Position.moves call, kept on the position's BoardState."""

    tables: Tables
    key: tuple[object, ...]

    def __init__(
        self,
        tables: Tables,
        total_tiles: int,
        top: int,
        cut: int,
        by_equity: bool,
        exchange_limit: int,
        directions: int,
        gaddag: bool,
        with_equity: bool,
        movelist: type,
        key: tuple[object, ...],
    ) -> None: ...

def position_moves(
    position: object, top: object, sort: object, leaves: object, exchanges: object, direction: object,
    algorithm: object,
) -> MoveListBase | None: ...
def plan_moves(plan: MovePlan, position: object) -> MoveListBase: ...
