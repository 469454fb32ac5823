"""Building KWG graphs: words (as tiles) in, flat node array out, by the compiled builder.

The DAWG is minimal; the GADDAG reuses its states (the node after a separator is the DAWG node
after the same prefix). By default sibling lists that are the tail of a longer list are written
only once (as wolges does); ``share_tails=False`` lays the nodes out exactly as MAGPIE does.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from . import _kwgbuild
from ..errors import LexiconFormatError

MAX_WORD_TILES = 255  #: longest word the builder takes


def frozen(a: np.ndarray) -> np.ndarray:
    """``a`` as a read-only 1-D array over an immutable ``bytes`` object: ``a`` itself when it
    already is one (the arrays read from a file or from embedded data), else a copy.

    The kernels read a graph checked once, at load, without bounds checks: its arrays must never
    change after. ``flags.writeable = False`` alone does not ensure it, since an array that owns its
    memory (or views a writable buffer) can be made writable again, or changed through its owner;
    an array over ``bytes`` cannot."""
    base = a
    while isinstance(base, np.ndarray):
        if base.flags.writeable:
            break
        base = base.base
    if isinstance(base, memoryview) and not base.readonly:
        base = None
    elif isinstance(base, memoryview):
        base = base.obj
    if type(base) is bytes and not a.flags.writeable:
        return a
    return np.frombuffer(np.ascontiguousarray(a).tobytes(), dtype=a.dtype)


def pack_words(words: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique tile strings -> (flat uint8 tiles, int64 offsets) for the builder."""
    lengths = np.fromiter((len(w) for w in words), dtype=np.int64, count=len(words))
    offsets = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    text = np.frombuffer(b"".join(words), dtype=np.uint8)
    return text, offsets


def build_packed(text: np.ndarray, offsets: np.ndarray, *, gaddag: bool = True, share_tails: bool = True) -> np.ndarray:
    """KWG nodes of words already packed, sorted and unique (see :func:`pack_words`)."""
    try:
        return _kwgbuild.build(
            np.ascontiguousarray(text, dtype=np.uint8), np.ascontiguousarray(offsets, dtype=np.int64),
            bool(gaddag), bool(share_tails),
        )
    except ValueError as e:
        raise LexiconFormatError(f"cannot build the word graph: {e}") from None


def build_kwg(
    words: Iterable[Sequence[int]], gaddag: bool = True, *, share_tails: bool = True
) -> np.ndarray:
    """KWG nodes (``uint32`` array) for words given as tile lists (letters 1..63; with
    ``gaddag=False`` tile 0 is allowed too, as the blank of a leave file). Order and repeats
    do not matter."""
    low = 1 if gaddag else 0
    packed = set()
    for i, w in enumerate(words):
        tiles = list(w)
        if not 1 <= len(tiles) <= MAX_WORD_TILES:
            raise LexiconFormatError(f"word {i} has {len(tiles)} tiles; a word needs 1 to {MAX_WORD_TILES}")
        for t in tiles:
            if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not low <= t <= 63:
                raise LexiconFormatError(
                    f"word {i} has tile {t!r}; tiles are ints {low}..63"
                    + (" (0 is the GADDAG separator)" if gaddag else "")
                )
        packed.add(bytes(tiles))
    text, offsets = pack_words(sorted(packed))
    return build_packed(text, offsets, gaddag=gaddag, share_tails=share_tails)
