"""Rack tallies: what self-play saw, as exact integers, so that tallies merge exactly.

A tally holds, for every full rack a mover held while the bag still had tiles, how many times it
was seen (``counts``) and the sum of the equity of the best move found for it (``sums``, in fixed
point: :data:`SCALE` units a point, rounded per move). Racks are keys: the rack's tiles sorted, each
``tile + 1`` in 7 bits, the first tile in the highest bits (:func:`rack_key`). Two tallies merge by
adding counts and sums key by key, in integers, so a run split over workers, machines or restarts
gives the same tally — and the same leave values — as one run.
"""
from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from ..errors import RacksmithError
from ..lexicon.files import write_atomically

SCALE = 1 << 16  #: fixed-point units per point of equity
BITS = 7  #: bits per tile in a key (tile + 1 <= 64)
WIDTH = 7  #: tiles in a key at most (the rack sizes of the shipped rulesets)
_MASK = (1 << BITS) - 1


def rack_key(tiles: Sequence[int]) -> int:
    """The key of a rack or leave of at most :data:`WIDTH` tiles (any order)."""
    key = 0
    ts = sorted(tiles)
    if len(ts) > WIDTH:
        raise RacksmithError(f"a tallied rack holds at most {WIDTH} tiles, got {len(ts)}")
    for i, t in enumerate(ts):
        key |= (int(t) + 1) << (BITS * (WIDTH - 1 - i))
    return key


def key_tiles(key: int) -> list[int]:
    """The tiles of a key, sorted (the inverse of :func:`rack_key`)."""
    out = []
    for i in range(WIDTH):
        v = (int(key) >> (BITS * (WIDTH - 1 - i))) & _MASK
        if v:
            out.append(v - 1)
    return out


def keys_to_matrix(keys: np.ndarray) -> np.ndarray:
    """Keys as rows of ``tile + 1`` (0 = no tile), sorted ascending within each row's tiles."""
    keys = np.asarray(keys, dtype=np.uint64)
    shifts = np.array([BITS * (WIDTH - 1 - i) for i in range(WIDTH)], dtype=np.uint64)
    return ((keys[:, None] >> shifts[None, :]) & np.uint64(_MASK)).astype(np.uint8)


def matrix_to_keys(mat: np.ndarray) -> np.ndarray:
    """Rows of ``tile + 1`` (sorted, zeros last) as keys."""
    mat = np.asarray(mat, dtype=np.uint64)
    shifts = np.array([BITS * (WIDTH - 1 - i) for i in range(mat.shape[1])], dtype=np.uint64)
    return (mat << shifts[None, :]).sum(axis=1, dtype=np.uint64) if mat.size else np.zeros(len(mat), np.uint64)


def to_fixed(equity: float) -> int:
    """An equity in fixed point (:data:`SCALE` units a point, rounded half to even)."""
    return int(round(float(equity) * SCALE))


@dataclass(frozen=True)
class RackTally:
    """Counts and fixed-point equity sums by rack key; ``keys`` ascending and distinct."""

    keys: np.ndarray  #: uint64
    counts: np.ndarray  #: int64
    sums: np.ndarray  #: int64, SCALE units a point

    @classmethod
    def empty(cls) -> "RackTally":
        return cls(np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64))

    @classmethod
    def from_observations(cls, keys: Iterable[int], fixed: Iterable[int]) -> "RackTally":
        """One observation per (key, fixed-point equity) pair."""
        k = np.fromiter(keys, dtype=np.uint64)
        s = np.fromiter(fixed, dtype=np.int64)
        if k.size != s.size:
            raise RacksmithError(f"{k.size} rack keys for {s.size} equities")
        return cls._reduce(k, np.ones(k.size, np.int64), s)

    @classmethod
    def _reduce(cls, keys: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> "RackTally":
        if not keys.size:
            return cls.empty()
        order = np.argsort(keys, kind="stable")
        k = keys[order]
        starts = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1])))
        return cls(k[starts], np.add.reduceat(counts[order], starts), np.add.reduceat(sums[order], starts))

    @classmethod
    def merge(cls, tallies: Iterable["RackTally"]) -> "RackTally":
        """The sum of several tallies (exact, in any order)."""
        ts = [t for t in tallies if t.keys.size]
        if not ts:
            return cls.empty()
        if len(ts) == 1:
            return ts[0]
        return cls._reduce(np.concatenate([t.keys for t in ts]), np.concatenate([t.counts for t in ts]),
                           np.concatenate([t.sums for t in ts]))

    def __add__(self, other: "RackTally") -> "RackTally":
        return RackTally.merge([self, other])

    @property
    def observations(self) -> int:
        return int(self.counts.sum())

    def __len__(self) -> int:
        return int(self.keys.size)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, RackTally) and np.array_equal(self.keys, other.keys)
                and np.array_equal(self.counts, other.counts) and np.array_equal(self.sums, other.sums))

    # --- files ----------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write as ``.npz`` (atomically: a crash leaves the previous file)."""
        import io

        buf = io.BytesIO()
        np.savez_compressed(buf, keys=self.keys, counts=self.counts, sums=self.sums,
                            scale=np.array([SCALE], np.int64), bits=np.array([BITS, WIDTH], np.int64))
        write_atomically(Path(path), buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> "RackTally":
        p = Path(path)
        try:
            with np.load(p, allow_pickle=False) as z:
                keys, counts, sums = z["keys"], z["counts"], z["sums"]
                scale, bits = [int(x) for x in z["scale"].ravel()], [int(x) for x in z["bits"].ravel()]
        except (OSError, KeyError, ValueError, IndexError, EOFError, zipfile.BadZipFile) as e:
            raise RacksmithError(f"cannot read rack tally {str(p)!r}: {e or type(e).__name__} (damaged file?)") from None
        if scale[:1] != [SCALE] or bits != [BITS, WIDTH]:
            raise RacksmithError(f"rack tally {str(p)!r} was written with another fixed-point scale or key layout")
        if not (keys.dtype == np.uint64 and counts.dtype == np.int64 and sums.dtype == np.int64
                and keys.shape == counts.shape == sums.shape and keys.ndim == 1):
            raise RacksmithError(f"rack tally {str(p)!r}: arrays of the wrong type or shape (corrupt file)")
        if keys.size > 1 and not bool(np.all(keys[1:] > keys[:-1])):
            raise RacksmithError(f"rack tally {str(p)!r}: keys not ascending (corrupt file)")
        return cls(keys, counts, sums)
