"""Type stub of the compiled word-map kernel (see _wmp.pyx; the layout in _wmp.pxd);
tests/test_stubs.py holds this file to the compiled module."""
import numpy as np
import numpy.typing as npt
from typing_extensions import Self, disjoint_base

TILE_BITS: dict[str, int]
KWG_LAYOUT: dict[str, int]
MAGIC: bytes
VERSION: int
SEED: int
MAX_WORDS: int
DEFAULT_MAX_LEN2: int
HEADER_BYTES: int

def letter_hash_values() -> list[int]: ...
def _checksum(data: bytes) -> int: ...
def build(kwg: npt.NDArray[np.uint32], n_letters: int, max_len2: int = 9, digest: int | np.integer = 0) -> bytes: ...

@disjoint_base
class WordMap:
    """A word map, checked when made from the bytes of a word-map file (or a read-only uint8 array)."""

    def __new__(
        cls, data: bytes | bytearray | memoryview | npt.NDArray[np.uint8], digest: int | np.integer | None = None
    ) -> Self: ...
    @property
    def n_letters(self) -> int: ...
    @property
    def max_len(self) -> int: ...
    @property
    def max_len2(self) -> int: ...
    @property
    def digest(self) -> int: ...
    @property
    def counts(self) -> dict[str, int]: ...
    @property
    def nbytes(self) -> int: ...
    def anagrams(self, tiles: bytes | bytearray | list[int] | tuple[int, ...], blanks: int = 0) -> list[bytes]: ...
