"""Rack tallies: what self-play saw, as exact integers, so that tallies merge exactly.

A tally holds, for every full rack a mover held while the bag still had tiles, how many times it
was seen (``counts``) and the sum of the equity of the best move found for it (``sums``, in fixed
point: :data:`SCALE` units a point, rounded per move). Racks are keys: the rack's tiles sorted, each
``tile + 1`` in 7 bits, the first tile in the highest bits (:func:`rack_key`). Two tallies merge by
adding counts and sums key by key, in integers, so a run split over workers, machines or restarts
gives the same tally — and the same leave values — as one run.
"""
from __future__ import annotations

import errno
import math
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from .. import _args
from ..errors import RacksmithError
from ..lexicon.files import write_atomically
from ..rules.alphabet import LETTER_MASK

SCALE = 1 << 16  #: fixed-point units per point of equity
BITS = 7  #: bits per tile in a key (tile + 1 <= 64)
WIDTH = 7  #: tiles in a key at most (the rack sizes of the shipped rulesets)
_MASK = (1 << BITS) - 1


def rack_key(tiles: Sequence[int]) -> int:
    """The key of a rack or leave of at most :data:`WIDTH` tiles (any order): tile numbers 0 (a
    blank) to 63 (the most an alphabet has)."""
    key = 0
    ts = sorted(_args.tile_list(tiles, "a rack"))
    if len(ts) > WIDTH:
        raise RacksmithError(f"a tallied rack holds at most {WIDTH} tiles, got {len(ts)}")
    if ts and (ts[0] < 0 or ts[-1] > LETTER_MASK):
        bad = ts[0] if ts[0] < 0 else ts[-1]
        raise RacksmithError(f"a rack's tiles are numbers from 0 (a blank) to {LETTER_MASK}, got {bad} in "
                             f"{_args.show(tiles)}")
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


@dataclass(frozen=True, eq=False)  # (its own ==, by the arrays' contents)
class RackTally:
    """Counts and fixed-point equity sums by rack key; ``keys`` ascending and distinct. Tallies
    are equal when their arrays are; a tally is not hashable (as its arrays are not: ``hash()``
    says so by its name)."""

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
        """The tally :meth:`save` wrote to ``path``. A file that is not one (damaged, cut short, or
        another program's) is a :class:`~racksmith.errors.RacksmithError`; its arrays' sizes are
        checked against the file before any is read, so a damaged header cannot ask for terabytes."""
        p = Path(path)

        def damaged(detail: str) -> RacksmithError:
            return RacksmithError(f"cannot read rack tally {str(p)!r}: the file is damaged ({detail})")

        try:
            with zipfile.ZipFile(p) as z:
                arrays = {name: _read_member(z, name, dtype) for name, dtype in _ARRAYS.items()}
        except RacksmithError as e:  # (what _read_member found)
            raise damaged(str(e)) from None
        except OSError as e:
            if e.errno == errno.EINVAL:  # a seek the archive's offsets ask for, before its start
                raise damaged(e.strerror or str(e)) from None
            raise RacksmithError(f"cannot read rack tally {str(p)!r}: {e.strerror or e}") from None
        # a zip archive or a member that zipfile or zlib cannot read (cut short, scrambled,
        # encrypted: RuntimeError, an unknown compression: NotImplementedError), and, should a
        # check above let one through, an allocation that does not fit (MemoryError)
        except (zipfile.BadZipFile, zlib.error, struct.error, EOFError, ValueError, KeyError, IndexError,
                RuntimeError, NotImplementedError, OverflowError, MemoryError) as e:
            raise damaged(str(e) or type(e).__name__) from None
        keys, counts, sums = arrays["keys"], arrays["counts"], arrays["sums"]
        if arrays["scale"].tolist()[:1] != [SCALE] or arrays["bits"].tolist() != [BITS, WIDTH]:
            raise RacksmithError(f"rack tally {str(p)!r} was written with another fixed-point scale or key layout")
        if not keys.shape == counts.shape == sums.shape:
            raise damaged(f"{len(keys)} keys, {len(counts)} counts and {len(sums)} sums")
        if keys.size > 1 and not bool(np.all(keys[1:] > keys[:-1])):
            raise damaged("keys not ascending")
        return cls(keys, counts, sums)


#: the arrays of a tally file and their types
_ARRAYS = {"keys": np.dtype(np.uint64), "counts": np.dtype(np.int64), "sums": np.dtype(np.int64),
           "scale": np.dtype(np.int64), "bits": np.dtype(np.int64)}
#: the most bytes deflate makes of one compressed byte (zlib's bound is 1032: a margin above it)
_DEFLATE_RATIO = 1100


def _read_member(z: zipfile.ZipFile, name: str, dtype: np.dtype) -> np.ndarray:
    """The 1-D array ``name`` of a tally file, its header checked against the member's size (and
    that size against its compressed size) before its data is read; a RacksmithError saying what is
    wrong with it, for :meth:`RackTally.load` to name the file."""
    try:
        info = z.getinfo(f"{name}.npy")
    except KeyError:
        raise RacksmithError(f"it holds no array {name!r}") from None
    if info.file_size > (info.compress_size if info.compress_type == zipfile.ZIP_STORED
                         else info.compress_size * _DEFLATE_RATIO + 1024):
        raise RacksmithError(f"array {name!r} says it is {info.file_size:,} bytes, more than its "
                             f"{info.compress_size:,} compressed bytes can hold")
    with z.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, found = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, _, found = np.lib.format.read_array_header_2_0(f)
        else:
            raise RacksmithError(f"array {name!r} is in .npy format {version[0]}.{version[1]}, "
                                 "not one numpy writes for it")
        if found != dtype or len(shape) != 1:
            raise RacksmithError(f"array {name!r} is {found} of shape {shape}, not a 1-D array of {dtype}")
        size = math.prod(shape) * dtype.itemsize
        if size != info.file_size - f.tell():
            raise RacksmithError(f"array {name!r} says it holds {shape[0]:,} values ({size:,} bytes); the file "
                                 f"holds {info.file_size - f.tell():,} bytes of them")
        data = f.read(size)
    if len(data) != size:
        raise RacksmithError(f"array {name!r} is cut short")
    return np.frombuffer(data, dtype=dtype).copy()
