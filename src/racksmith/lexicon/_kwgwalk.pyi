from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

TILE_BITS: dict[str, int]
KWG_LAYOUT: dict[str, int]

ERR_CYCLE: int
ERR_SEPARATOR_IN_WORD: int
ERR_EMPTY_SEPARATOR: int
ERR_ACCEPTING_SEPARATOR: int

def analyse(
    kwg: npt.NDArray[np.uint32], roots: Iterable[int], counts: npt.NDArray[np.uint64]
) -> tuple[int, int, tuple[int, ...]]: ...
def letter_region(
    kwg: npt.NDArray[np.uint32], dawg_root: int, gaddag: bool, padding: npt.NDArray[np.uint8] | None = None
) -> tuple[int, int, int]: ...
def find(kwg: npt.NDArray[np.uint32], root: int, tiles: bytes) -> int: ...
def words(kwg: npt.NDArray[np.uint32], root: int, prefix: bytes, longest: int) -> bytes: ...
def anagrams(
    kwg: npt.NDArray[np.uint32], root: int, rack: npt.NDArray[np.int64], blanks: int, partial: bool
) -> bytes: ...
def word_index(kwg: npt.NDArray[np.uint32], counts: npt.NDArray[np.uint32], tiles: bytes) -> int: ...
def first_absent(kwg: npt.NDArray[np.uint32], root: int, letters: int, words: bytes) -> int: ...
