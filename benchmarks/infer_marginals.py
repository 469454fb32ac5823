"""How close a sampled inference comes to the exact one, tile by tile.

A sampled inference (``infer_leaves(..., samples=N)``) of a one-tile play sees a few hundred of the
53,000 leaves the exact one weighs, so as a distribution over leaves it stays far from exact. What
a simulation draws from it, though, is racks: this prints, for each number of deals and seed, how
far the expected number of each tile in the opponent's leave is from the exact inference's (the
largest difference and the sum over tiles), beside the same figures for no inference at all (the
leave uniform over the unseen tiles).

    python benchmarks/infer_marginals.py [--samples 20000,61056,290080] [--seeds 1,2,3]

The position is ``one_tile`` of ``bench_infer.py``: 8I S making KRONAS, English, the shipped leaves.
"""
from __future__ import annotations

import argparse

import numpy as np

from racksmith import Position
from racksmith.sim.infer import infer_leaves

ONE_TILE = "15/15/15/15/15/15/15/3KRONAS6/15/15/15/15/15/15/15 / 0/10 0"


def tile_counts(inference) -> np.ndarray:
    """The expected number of each tile in the leave."""
    out = np.zeros(64)
    for lv in inference.leaves:
        for t in lv.leave:
            out[t] += lv.probability
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", default="20000,61056,290080")
    ap.add_argument("--seeds", default="1,2,3")
    args = ap.parse_args()
    pos = Position.from_cgp(ONE_TILE)
    a = pos.ruleset.alphabet
    name = lambda t: "?" if t == 0 else str(a.tiles([int(t)]))  # noqa: E731
    exact = infer_leaves(pos, "8D (KRONA)S", leaves="english")
    want = tile_counts(exact)
    pool = np.bincount(list(pos.unseen_tiles()), minlength=64).astype(float)
    uniform = pool / pool.sum() * 6
    print(f"exact: {exact.racks_total:,} racks, {len(exact.leaves):,} leaves, {exact.seconds:.1f} s")
    print("| deals | seed | deals kept | leaves | largest difference (tile) | sum of differences |")
    print("|---|---|---|---|---|---|")
    d = np.abs(uniform - want)
    print(f"| none (uniform) | | | | {d.max():.3f} ({name(d.argmax())}) | {d.sum():.3f} |")
    for n in (int(x) for x in args.samples.split(",")):
        for seed in (int(x) for x in args.seeds.split(",")):
            est = infer_leaves(pos, "8D (KRONA)S", leaves="english", samples=n, seed=seed)
            d = np.abs(tile_counts(est) - want)
            print(f"| {n:,} | {seed} | {est.total_draws:,} | {len(est.leaves):,} | {d.max():.3f} ({name(d.argmax())}) "
                  f"| {d.sum():.3f} |")
    top = np.argsort(-want)[:6]
    print("exact expected counts (uniform):", ", ".join(f"{name(t)} {want[t]:.2f} ({uniform[t]:.2f})" for t in top))


if __name__ == "__main__":
    main()
