"""Leave values from a rack tally (see ``docs/ALGORITHM.md``, "Leave training").

For a leave ``L`` (1 to rack size − 1 tiles), ``n_L`` is the number of tallied turns whose full rack
contains ``L`` (each rack counted once per distinct sub-multiset, as MAGPIE enumerates subleaves)
and ``s_L`` the sum of those turns' best-move equities. With ``μ`` the mean equity of every tallied
turn, the raw value is ``s_L / n_L − μ``: how much better than average the turn goes when the rack
holds ``L``. Rare leaves are smoothed toward a prior built from smaller leaves::

    value(L) = (s_L − n_L·μ + K·prior(L)) / (n_L + K)
    prior(L) = mean over the tiles t of L of  value(L − t) + value(t)      (0 for one tile)

so a leave seen thousands of times keeps its own mean, and one seen a few times is mostly the sum
of its parts. ``K`` is the prior's weight in turns (``prior_weight``). For a census tally (racks
drawn at random from the unseen tiles, ``leaves train --probes``) a rack counts once per choice of
the leave's tiles among its own (``weighting="draws"``), which makes ``s_L / n_L`` the mean over
random completions of ``L``.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ..errors import RacksmithError
from ..lexicon import Leaves
from ..rules.ruleset import Ruleset, get_ruleset
from .tally import BITS, SCALE, WIDTH, RackTally, keys_to_matrix, matrix_to_keys

DEFAULT_PRIOR_WEIGHT = 50.0


WEIGHTINGS = ("once", "draws")


def leave_sums(tally: RackTally, rack_size: int, weighting: str = "once") -> dict[int, RackTally]:
    """For each leave size 1..rack_size−1, the turns (``counts``) and equity sums (``sums``) of the
    racks containing each leave, keyed by the leave's key. Racks of another size are ignored.

    ``weighting``: ``once`` counts a rack once for each distinct leave it contains (MAGPIE's
    sub-leaves); ``draws`` once for each choice of the leave's tiles among the rack's (a rack with
    two E counts twice for E): the rack's weight as the rest of a random rack drawn after keeping
    the leave (docs/ALGORITHM.md §16)."""
    if weighting not in WEIGHTINGS:
        raise RacksmithError(f"weighting must be one of {', '.join(WEIGHTINGS)}, got {weighting!r}")
    if not 2 <= rack_size <= WIDTH:
        raise RacksmithError(f"leave training handles racks of 2 to {WIDTH} tiles, not {rack_size}")
    mat = keys_to_matrix(tally.keys)
    full = np.count_nonzero(mat, axis=1) == rack_size
    mat = mat[full, :rack_size]
    counts = tally.counts[full]
    sums = tally.sums[full]
    same_as_left = np.zeros_like(mat, dtype=bool)
    same_as_left[:, 1:] = mat[:, 1:] == mat[:, :-1]
    out: dict[int, RackTally] = {}
    for size in range(1, rack_size):
        acc = RackTally.empty()
        pending: list[RackTally] = []
        for pos in combinations(range(rack_size), size):
            chosen = set(pos)
            # a multiset is enumerated once: among equal tiles, take the leftmost ones
            ok = np.ones(len(mat), dtype=bool)
            for i in pos:
                if weighting == "once" and i > 0 and (i - 1) not in chosen:
                    ok &= ~same_as_left[:, i]
            rows = np.zeros((int(ok.sum()), WIDTH), dtype=np.uint8)
            rows[:, :size] = mat[ok][:, list(pos)]
            pending.append(RackTally._reduce(matrix_to_keys(rows), counts[ok], sums[ok]))
            if len(pending) >= 8:
                acc = RackTally.merge([acc, *pending])
                pending = []
        out[size] = RackTally.merge([acc, *pending])
    return out


def leave_values(tally: RackTally, rack_size: int, prior_weight: float = DEFAULT_PRIOR_WEIGHT,
                 weighting: str = "once") -> tuple[np.ndarray, np.ndarray]:
    """Every leave contained in a tallied rack and its value: (rows of ``tile + 1``, float64 values).
    ``weighting``: how a rack counts for the leaves it contains (:func:`leave_sums`)."""
    if not prior_weight >= 0:
        raise RacksmithError(f"prior_weight must be a number at least 0, got {prior_weight!r}")
    total_n = int(tally.counts.sum())
    if total_n == 0:
        return np.zeros((0, WIDTH), np.uint8), np.zeros(0)
    mean = int(tally.sums.sum()) / total_n / SCALE
    by_size = leave_sums(tally, rack_size, weighting)
    k = float(prior_weight)
    values: dict[int, np.ndarray] = {}
    rows_out, vals_out = [], []
    for size in range(1, rack_size):
        t = by_size[size]
        rows = keys_to_matrix(t.keys)
        n = t.counts.astype(np.float64)
        dev = t.sums.astype(np.float64) / SCALE - n * mean
        if size == 1:
            prior = np.zeros(len(t))
        else:
            singles_keys = by_size[1].keys
            prior = np.zeros(len(t))
            for j in range(size):
                sub = np.delete(rows, j, axis=1)
                sub = np.concatenate([sub, np.zeros((len(sub), 1), np.uint8)], axis=1)
                sub_keys = matrix_to_keys(sub)
                one = np.zeros_like(rows)
                one[:, 0] = rows[:, j]
                one_keys = matrix_to_keys(one)
                prior += values[size - 1][np.searchsorted(by_size[size - 1].keys, sub_keys)]
                prior += values[1][np.searchsorted(singles_keys, one_keys)]
            prior /= size
        v = (dev + k * prior) / (n + k) if k > 0 else dev / n
        values[size] = v
        rows_out.append(rows)
        vals_out.append(v)
    return np.concatenate(rows_out), np.concatenate(vals_out)


def leaves_from_tally(tally: RackTally, ruleset: "str | Ruleset", prior_weight: float = DEFAULT_PRIOR_WEIGHT,
                      *, weighting: str = "once", source: str = "<trained>", complete: bool = True) -> Leaves:
    """A leave table (KLV2) of the values :func:`leave_values` gives; with ``complete`` (the
    default) every other leave the tile set allows too, at its prior (:func:`complete_leaves`)."""
    return trained_leaves(tally, ruleset, prior_weight, weighting=weighting, source=source, complete=complete)[0]


def trained_leaves(tally: RackTally, ruleset: "str | Ruleset", prior_weight: float = DEFAULT_PRIOR_WEIGHT,
                   *, weighting: str = "once", source: str = "<trained>", complete: bool = True) -> tuple[Leaves, int]:
    """:func:`leaves_from_tally`'s table and how many of its leaves the tally saw (held by the rack
    of some tallied turn); the others (``len(leaves)`` less that) are at their prior."""
    rs = get_ruleset(ruleset)
    rows, vals = leave_values(tally, rs.rack_size, prior_weight, weighting)
    if not len(rows):
        raise RacksmithError("the tally holds no full racks: play more games before making leaves")
    seen = len(rows)
    if complete:
        rows, vals = complete_leaves(rows, vals, rs.counts, rs.rack_size)
    width = int(np.count_nonzero(rows, axis=1).max())
    return Leaves.from_tile_rows(rows[:, :width], vals, rs, source=source), seen


def possible_leaves(counts: "Sequence[int]", rack_size: int) -> dict[int, np.ndarray]:
    """Every leave a tile set allows, by size (1 to ``rack_size`` − 1): rows of ``tile + 1``
    ascending (``counts[t]``: the copies of tile ``t``, the blank first), ``WIDTH`` columns, zeros last."""
    counts = [int(c) for c in counts]
    out: dict[int, np.ndarray] = {}
    cur = np.zeros((1, WIDTH), np.uint8)
    for size in range(1, rack_size):
        last = cur[:, size - 2] if size > 1 else np.zeros(1, np.uint8)
        parts = []
        for t, copies in enumerate(counts):
            v = t + 1
            ok = (last <= v) & (np.count_nonzero(cur == v, axis=1) < copies)
            rows = cur[ok].copy()
            rows[:, size - 1] = v
            parts.append(rows)
        cur = np.concatenate(parts) if parts else np.zeros((0, WIDTH), np.uint8)
        out[size] = cur
    return out


@dataclass(frozen=True)
class _Size:
    """Every leave of one size a tile set allows: ``keys`` ascending, ``rows`` in that order, and
    for each position ``j`` the index among the leaves one tile shorter of the leave without its
    ``j``-th tile (``subs[j]``)."""

    keys: np.ndarray
    rows: np.ndarray
    subs: tuple[np.ndarray, ...]


#: the leave space last asked for (a training asks for the same one every generation), by (counts, rack size)
_space: "tuple[tuple, dict[int, _Size]] | None" = None
_space_lock = threading.Lock()


def forget_leave_space() -> None:
    """Free the leave space kept (:func:`racksmith.clear_caches` calls it)."""
    global _space
    with _space_lock:
        _space = None


#: the most leaves a complete table may hold (Russian's 2.9 million take about 120 bytes each to build)
MAX_LEAVES = 20_000_000


def leave_count(counts: "Sequence[int]", rack_size: int) -> int:
    """How many leaves of 1 to ``rack_size`` − 1 tiles a tile set allows (without listing them)."""
    most = rack_size - 1
    ways = [1] + [0] * most
    for c in counts:
        new = [0] * (most + 1)
        for i, w in enumerate(ways):
            if w:
                for j in range(min(int(c), most - i) + 1):
                    new[i + j] += w
        ways = new
    return sum(ways[1:])


def check_leave_count(ruleset: "str | Ruleset") -> int:
    """The leaves a complete table of ``ruleset`` holds; an error when more than :data:`MAX_LEAVES`
    (said before any game is played)."""
    rs = get_ruleset(ruleset)
    n = leave_count(rs.counts, rs.rack_size)
    if n > MAX_LEAVES:
        raise RacksmithError(f"a leave table of ruleset {rs.name} would hold {n:,} leaves (every multiset of 1 to "
                             f"{rs.rack_size - 1} of its tiles), more than racksmith builds ({MAX_LEAVES:,}: about "
                             "120 bytes each to build); a ruleset with fewer letters or copies of them trains")
    return n


def _leave_space(counts: "Sequence[int]", rack_size: int) -> dict[int, _Size]:
    global _space
    key = (tuple(int(c) for c in counts), int(rack_size))
    with _space_lock:
        if _space is not None and _space[0] == key:
            return _space[1]
        out: dict[int, _Size] = {}
        for size, every in possible_leaves(key[0], rack_size).items():
            keys = matrix_to_keys(every)
            order = np.argsort(keys)
            keys, rows = keys[order], every[order]
            subs = []
            if size > 1:
                for j in range(size):
                    # the key without the tile at position j: the tiles before it stay, those after move up one
                    above = np.uint64(((1 << (BITS * WIDTH)) - 1) ^ ((1 << (BITS * (WIDTH - j))) - 1))
                    below = np.uint64((1 << (BITS * (WIDTH - 1 - j))) - 1)
                    sub = (keys & above) | ((keys & below) << np.uint64(BITS))
                    subs.append(np.searchsorted(out[size - 1].keys, sub).astype(np.int32))
            out[size] = _Size(keys, rows, tuple(subs))
        _space = (key, out)
        return out


def complete_leaves(rows: np.ndarray, vals: np.ndarray, counts: "Sequence[int]", rack_size: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` and ``vals`` (as :func:`leave_values` gives them) with every leave of 1 to
    ``rack_size`` − 1 tiles the tile set allows and training never saw added at its prior, the
    value a leave seen in no turn gets from the training's formula: the mean over its tiles ``t``
    of ``value(L − t) + value(t)``, size by size (so a never-seen leave of junk is worth about the
    sum of its parts, not 0 as an absent leave is). The values of the leaves seen are unchanged
    (each is built from smaller leaves, all seen too). Rows come out by size, then tiles."""
    rows = np.asarray(rows, np.uint8)
    vals = np.asarray(vals, np.float64)
    if rows.shape[1] < WIDTH:
        rows = np.concatenate([rows, np.zeros((len(rows), WIDTH - rows.shape[1]), np.uint8)], axis=1)
    sizes = np.count_nonzero(rows, axis=1)
    keys = matrix_to_keys(rows)
    space = _leave_space(counts, rack_size)
    single = np.zeros(len(counts) + 1)  # the value of each tile alone, by tile + 1
    values: dict[int, np.ndarray] = {}
    rows_out, vals_out = [], []
    for size, sp in space.items():
        mine = sizes == size
        where = np.searchsorted(sp.keys, keys[mine])
        if (where >= len(sp.keys)).any() or (sp.keys[np.minimum(where, len(sp.keys) - 1)] != keys[mine]).any():
            raise RacksmithError(f"a leave of {size} tiles holds more copies of a tile than the tile set has")
        v = np.zeros(len(sp.keys))
        if size > 1:
            for j, sub in enumerate(sp.subs):
                v += values[size - 1][sub] + single[sp.rows[:, j]]
            v /= size
        v[where] = vals[mine]  # (the leaves seen keep their values)
        values[size] = v
        if size == 1:
            single[sp.rows[:, 0]] = v
        rows_out.append(sp.rows)
        vals_out.append(v)
    extra = sizes >= rack_size  # (none from a tally: kept as they are)
    return (np.concatenate([*rows_out, rows[extra]]), np.concatenate([*vals_out, vals[extra]]))


def leave_rows(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
    """A leave table's leaves as rows of ``tile + 1`` (``WIDTH`` columns, ascending, zeros last)
    and their values, in the file's order (what :func:`complete_leaves` takes)."""
    from ..lexicon import _kwgwalk
    from ..lexicon.kwg import ARC_MASK

    listing = np.frombuffer(_kwgwalk.words(leaves.kwg, int(leaves.kwg[0]) & ARC_MASK, b"", leaves.longest), np.uint8)
    ends = np.flatnonzero(listing == 0xFF)  # (each leave's tiles ascending, as a KLV2 holds them, then 0xFF)
    starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.int64)
    lengths = ends - starts
    if len(lengths) and int(lengths.max()) > WIDTH:
        raise RacksmithError(f"a leave of {int(lengths.max())} tiles: leave tables hold at most {WIDTH}")
    rows = np.zeros((len(ends), WIDTH), np.uint8)
    for k in range(int(lengths.max()) if len(lengths) else 0):
        has = lengths > k
        rows[has, k] = listing[starts[has] + k] + 1
    return rows, np.asarray(leaves.values, np.float64)


def completed(leaves: Leaves, ruleset: "str | Ruleset") -> Leaves:
    """``leaves`` with every leave the ruleset's tile set allows (1 to rack size − 1 tiles) that it
    lacks added at its prior (:func:`complete_leaves`): what ``leaves train`` writes."""
    rs = get_ruleset(ruleset)
    rows, vals = leave_rows(leaves)
    rows, vals = complete_leaves(rows, vals, rs.counts, rs.rack_size)
    width = int(np.count_nonzero(rows, axis=1).max())
    source = f"{leaves.path.name} completed" if leaves.path is not None else "<completed>"
    return Leaves.from_tile_rows(rows[:, :width], vals, rs, source=source)

