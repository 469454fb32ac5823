"""Every legal move of a position, ranked: the compiled kernel and the :class:`MoveList` it fills."""
from .generate import ALGORITHMS, DIRECTIONS, SORTS, MoveGenError, generate_moves
from .generate import _tables  # noqa: F401  (racksmith.movegen._tables: the kernel's tables, for benchmark harnesses)
from .movelist import RECORD_DTYPE, MoveList

__all__ = ["ALGORITHMS", "DIRECTIONS", "RECORD_DTYPE", "SORTS", "MoveGenError", "MoveList", "generate_moves"]
