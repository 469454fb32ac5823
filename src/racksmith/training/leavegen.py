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

from itertools import combinations

import numpy as np

from ..errors import RacksmithError
from ..lexicon import Leaves
from ..rules.ruleset import Ruleset, get_ruleset
from .tally import SCALE, WIDTH, RackTally, keys_to_matrix, matrix_to_keys

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
                      *, weighting: str = "once", source: str = "<trained>") -> Leaves:
    """A leave table (KLV2) of the values :func:`leave_values` gives."""
    rs = get_ruleset(ruleset)
    rows, vals = leave_values(tally, rs.rack_size, prior_weight, weighting)
    if not len(rows):
        raise RacksmithError("the tally holds no full racks: play more games before making leaves")
    width = int(np.count_nonzero(rows, axis=1).max())
    return Leaves.from_tile_rows(rows[:, :width], vals, rs, source=source)
