"""Type stub of the compiled move generation kernel (see _movegen.pyx; C-level API in _movegen.pxd).

The classes are Cython extension types: their constructors are ``__cinit__`` (written here as
``__new__``), their ``cdef readonly`` fields read-only properties, and those marked
``@cython.final`` cannot be subclassed (``@final`` here). tests/test_stubs.py holds this file to
the compiled module.
"""
from collections.abc import Sequence
from typing import Any, final

import numpy as np
import numpy.typing as npt
from typing_extensions import Self, disjoint_base

from racksmith.lexicon import Leaves, Lexicon
from racksmith.lexicon._wmp import WordMap
from racksmith.rules.equity import StaticEvaluation
from racksmith.rules.ruleset import Ruleset

RECORD_DTYPE: np.dtype[np.void]
TILE_BITS: dict[str, int]
KWG_LAYOUT: dict[str, int]
MAX_TOP_MOVES: int

@final
class Rules:
    """The read-only tables of one ruleset and lexicon (and static evaluation)."""

    def __new__(
        cls,
        lexicon: Lexicon,
        ruleset: Ruleset,
        evaluation: StaticEvaluation | None = None,
        wordmap: WordMap | bool | None = True,
    ) -> Self: ...
    @property
    def wordmap(self) -> WordMap | None: ...
    @property
    def lexicon(self) -> Lexicon: ...
    @property
    def ruleset(self) -> Ruleset: ...
    @property
    def evaluation(self) -> StaticEvaluation: ...
    @property
    def kwg(self) -> npt.NDArray[np.uint32]: ...
    @property
    def has_gaddag(self) -> bool: ...
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    @property
    def n_letters(self) -> int: ...

@disjoint_base
class LeaveTable:
    """The leave values of a Leaves table, as the kernel reads them."""

    def __new__(cls, leaves: Leaves) -> Self: ...
    @property
    def leaves(self) -> Leaves: ...

@final
class Tables:
    """The tables of one (ruleset, lexicon, leaves) triple; generate() is stateless."""

    def __new__(cls, rules: Rules, leaves: LeaveTable | None = None) -> Self: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def leave_table(self) -> LeaveTable | None: ...
    @property
    def has_gaddag(self) -> bool: ...
    @property
    def has_leaves(self) -> bool: ...
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    @property
    def n_letters(self) -> int: ...
    def generate(
        self,
        board: npt.NDArray[np.uint8],
        rack: bytes,
        not_on_racks: int,
        opp_value: int,
        top: int = 0,
        by_equity: bool = False,
        exchange_limit: int = -1,
        directions: int = 3,
        gaddag: bool = True,
        wordmap: bool = True,
    ) -> tuple[npt.NDArray[np.void], int]: ...

@final
class BoardState:
    """A board kept ready for move generation, updated line by line by place() and unplace()."""

    plan: MovePlan | None

    def __new__(cls, rules: Rules, gaddag: bool | None = None) -> Self: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def in_use(self) -> bool: ...
    @property
    def gaddag(self) -> bool: ...
    @property
    def n_tiles(self) -> int: ...
    @property
    def tiles(self) -> npt.NDArray[np.uint8]: ...
    def set(self, board: npt.NDArray[np.uint8]) -> None: ...
    def clear(self) -> None: ...
    def copy(self) -> BoardState: ...
    def __copy__(self) -> BoardState: ...
    def __deepcopy__(self, memo: object) -> BoardState: ...
    def place(self, row: int, col: int, across: bool, tiles: Sequence[int] | bytes) -> int: ...
    def unplace(self, row: int, col: int, across: bool, tiles: Sequence[int] | bytes) -> int: ...
    def arrays(self) -> dict[str, npt.NDArray[Any]]: ...
    def generate(
        self,
        rack: bytes,
        not_on_racks: int,
        opp_value: int,
        top: int = 0,
        by_equity: bool = False,
        exchange_limit: int = -1,
        directions: int = 3,
        gaddag: bool = True,
        leaves: LeaveTable | None = None,
        wordmap: bool = True,
    ) -> tuple[npt.NDArray[np.void], int]: ...
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

@disjoint_base
class MoveListBase:
    """The storage of racksmith.movegen.movelist.MoveList (filled by plan_moves in one call)."""

    placements_reached: int | None
    # the storage MoveList fills and reads (cdef public: writable)
    _recs: npt.NDArray[np.void] | None
    _buf: bytes | None
    _alphabet: Any
    _rack: Any
    _cols: tuple[Any, ...] | None
    _leaves: dict[int, Any]
    _position: Any
    _reclaimed: list[Any] | None
    _n: int
    _with_equity: bool
    def __len__(self) -> int: ...

@final
class MovePlan:
    """The checked options of one Position.moves call, kept on the position's BoardState."""

    def __new__(
        cls,
        tables: Tables,
        total_tiles: int,
        top: int,
        cut: int,
        by_equity: bool,
        exchange_limit: int,
        directions: int,
        gaddag: bool,
        with_equity: bool,
        movelist: type[MoveListBase],
        key: tuple[object, ...],
    ) -> Self: ...
    @property
    def tables(self) -> Tables: ...
    @property
    def key(self) -> tuple[object, ...]: ...

def position_moves(
    position: object, top: object, sort: object, leaves: object, exchanges: object, direction: object,
    algorithm: object,
) -> MoveListBase | None: ...
def plan_moves(plan: MovePlan, position: object) -> MoveListBase: ...
