"""The best-arm sampler's coin on toy races (tests/bai_reference.py, the kernel's readable
reference): the samples a race takes to stop, with the coin at the GLR's meeting point (shipped)
and at the count-weighted mean (MAGPIE's ``bai.h``, racksmith's before 2026-11-29). Gaussian arms,
δ 0.05, 10 samples an arm first; seeded, so the figures are exact, not timed.

    python benchmarks/bai_toy.py [RUNS]
"""
import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import bai_reference as R  # noqa: E402
from bai_reference import BestArm  # noqa: E402

_meet = R.glr_meet


def _count_weighted(mu1, v1, w1, mua, va, wa):
    return (w1 * mu1 + wa * mua) / (w1 + wa) if w1 + wa > 0 else 0.0


class CountWeighted(BestArm):
    """The coin at the count-weighted mean (the GLR statistic itself unchanged)."""

    def next_arm(self):
        R.glr_meet = _count_weighted
        try:
            return super().next_arm()
        finally:
            R.glr_meet = _meet


def race(cls, means, sds, seed, delta=0.05, limit=200_000):
    rng = random.Random(seed)
    b = cls(len(means), delta=delta, min_samples=10, rng=random.Random(seed + 1))
    while b.total < limit:
        arm = b.next_arm()
        if b.add(arm, rng.gauss(means[arm], sds[arm])):
            break
    return b


CASES = [
    ("six arms, equal spreads 0.3", [0.50, 0.45, 0.40, 0.30, 0.55, 0.20], [0.3] * 6),
    ("six arms, the best's spread 0.05", [0.50, 0.45, 0.40, 0.30, 0.55, 0.20], [0.3, 0.3, 0.3, 0.3, 0.05, 0.3]),
    ("six arms, the runner-up's spread 0.05", [0.50, 0.45, 0.40, 0.30, 0.55, 0.20], [0.05, 0.3, 0.3, 0.3, 0.3, 0.3]),
    ("two close arms, spread 0.3", [0.50, 0.47], [0.3, 0.3]),
    ("near-certain arms (0.97, 0.95, 0.90)", [0.97, 0.95, 0.90], [0.17, 0.22, 0.30]),
]


def _runs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of runs, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"at least 1 run, got {n}")
    return n


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Prints a Markdown table: for each race and coin, the median and mean samples\n"
                                        "to stop and the runs that named a wrong best arm.")
    ap.add_argument("runs", nargs="?", type=_runs, default=200, metavar="RUNS",
                    help="seeded runs of each race and coin (seeds 0..RUNS-1; default 200)")
    runs = ap.parse_args(argv).runs
    print(f"| race ({runs} seeded runs) | coin | median samples | mean | wrong best |")
    print("|---|---|---|---|---|")
    for name, means, sds in CASES:
        best = means.index(max(means))
        for label, cls in (("count-weighted mean (old)", CountWeighted), ("GLR meeting point", BestArm)):
            totals, wrong = [], 0
            for s in range(runs):
                b = race(cls, means, sds, s)
                totals.append(b.total)
                wrong += b.leader != best
            print(f"| {name} | {label} | {statistics.median(totals):,.0f} | {statistics.mean(totals):,.0f} | {wrong} |")


if __name__ == "__main__":
    main()
