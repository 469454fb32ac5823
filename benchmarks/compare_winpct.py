"""Win% tables against a reference table (MAGPIE's ``winpct.csv``): the win% of the player to move at
a few cells, and the mean absolute difference in points over spreads -100..100 by ranges of unseen
tiles. Table values, not times.

    python benchmarks/compare_winpct.py REFERENCE.csv [TABLE ...] [--ruleset english]

Without TABLE, the shipped table of ``--ruleset``; each TABLE is a file in MAGPIE's winpct format
(``racksmith winpct train`` writes them).
"""
from __future__ import annotations

import argparse

import numpy as np

from racksmith.sim.winpct import WinPct, load_winpct

CELLS = [(u, s) for u in (1, 3, 7, 20, 50) for s in (-30, -10, 0, 10, 30)]
RANGES = ((1, 6), (7, 93), (1, 93))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reference")
    ap.add_argument("tables", nargs="*")
    ap.add_argument("--ruleset", default="english")
    args = ap.parse_args()
    ref = WinPct.load(args.reference)
    tables = {f"shipped {args.ruleset}": load_winpct(args.ruleset)}
    tables.update({p: WinPct.load(p) for p in args.tables})
    tables["reference"] = ref
    for name, t in tables.items():
        print(name, " ".join(f"u{u}/{s:+d}:{100 * t.get(s, u):.1f}" for u, s in CELLS))
    for name, t in tables.items():
        if t is ref:
            continue
        for lo, hi in RANGES:
            hi = min(hi, t.max_unseen, ref.max_unseen)
            d = [abs(t.get(s, u) - ref.get(s, u)) for u in range(lo, hi + 1) for s in range(-100, 101)]
            print(f"{name}: unseen {lo}-{hi}: mean |diff| {100 * np.mean(d):.2f} points, max {100 * np.max(d):.1f}")


if __name__ == "__main__":
    main()
