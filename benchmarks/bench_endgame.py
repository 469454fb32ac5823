"""The endgame solver side by side with MAGPIE's, one thread, English with ENABLE: time to an
answer of the same depth (and to the exact answer), nodes and nodes/s, rounds interleaved.

    python benchmarks/bench_endgame.py [--rounds R] [--magpie /tmp/perf/bin/magpie_endgame]
                                       [--magpie-data /tmp/perf/magpie/data] [--json FILE] [--only ID] [--long]

Cases: ENABLE endgames of tests/fixtures/endgames_magpie.jsonl, each solved to a fixed depth
(``plies``: the depth at which racksmith's answer is exact, or the fixture's depth), so both
solvers do the same job; ``selfplay7_*`` are typical 7-tile-against-7 endgames (self-play stopped
when the bag emptied with both racks full, see the fixture's ``source``). Each round runs every case once on each side, alternating which goes
first; racksmith in this process (lexicon loaded once; the timed part is everything
``solve_endgame`` does: the pruned lexicon, the table, the search), MAGPIE as a subprocess of
its endgame driver (see /tmp/perf/NOTES.md), timed by the solver's own ``time:`` line (the
table's allocation left out). Prints median and range by case and side, and the ratio of medians.

Node counts are each solver's own (racksmith: every position reached by a move, including the
ends of the game; MAGPIE: its node counter), so nodes/s are not the same unit; time to the same
answer is.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "endgames_magpie.jsonl"
#: (fixture id, plies): the depth each side searches; None = racksmith's exact depth, found first
CASES = [
    ("end_s350_t21", 3),
    ("end_s350_t21", 4),
    ("selfplay7_seed0", 4),     # 7 tiles against 7
    ("selfplay7_seed8", 4),     # 7 tiles against 7
    ("selfplay_seed16_11tiles", None),
    ("selfplay_seed23_11tiles", None),
]
#: longer cases (MAGPIE takes minutes on them): with --long
LONG = [("selfplay_seed14_10tiles", None), ("selfplay_seed0_12tiles", None)]


def run_racksmith(pos, plies: int) -> tuple[float, int, int]:
    t = time.perf_counter()
    r = pos.solve_endgame(plies=plies)
    return time.perf_counter() - t, r.nodes, r.value


def run_magpie(binary: str, data: str, cgp: str, plies: int) -> tuple[float, int, int]:
    out = subprocess.run([binary, data, "NWL_ENABLE15", str(plies), "1", "0.01", cgp], capture_output=True,
                         text=True, timeout=3600, check=True).stdout
    value = int(re.search(r"^value (-?\d+) nodes (\d+)", out, re.M).group(1))
    nodes = int(re.search(r"^value -?\d+ nodes (\d+)", out, re.M).group(1))
    seconds = float(re.search(r"time: ([0-9.]+)s", out).group(1))
    return seconds, nodes, value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--magpie", default="/tmp/perf/bin/magpie_endgame")
    ap.add_argument("--magpie-data", default="/tmp/perf/magpie/data")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--only", default="", help="only the cases whose fixture id contains this")
    ap.add_argument("--long", action="store_true", help="also the long cases")
    args = ap.parse_args()

    from racksmith import Position
    from racksmith.lexicon import load_lexicon

    lex = load_lexicon("ENABLE")
    fixtures = {r["id"]: r for r in map(json.loads, FIXTURE.read_text().splitlines())}
    have_magpie = Path(args.magpie).exists()
    if not have_magpie:
        print(f"note: {args.magpie} not found: racksmith only", file=sys.stderr)
    cases = []
    for ident, plies in CASES + (LONG if args.long else []):
        if args.only not in ident:
            continue
        rec = fixtures[ident]
        pos = Position.from_cgp(rec["cgp"], "english", lexicon=lex)
        if plies is None:
            r = pos.solve_endgame()
            plies = r.depth
        cases.append((f"{ident}@{plies}", rec["cgp"], pos, plies))
    times: dict[tuple[str, str], list[float]] = {}
    nodes: dict[tuple[str, str], int] = {}
    values: dict[tuple[str, str], int] = {}
    for rnd in range(args.rounds):
        for k, (name, cgp, pos, plies) in enumerate(cases):
            sides = ["racksmith", "magpie"] if (rnd + k) % 2 == 0 else ["magpie", "racksmith"]
            for side in sides:
                if side == "magpie" and not have_magpie:
                    continue
                if side == "racksmith":
                    s, n, v = run_racksmith(pos, plies)
                else:
                    s, n, v = run_magpie(args.magpie, args.magpie_data, cgp, plies)
                times.setdefault((name, side), []).append(s)
                nodes[(name, side)] = n
                values[(name, side)] = v
        print(f"round {rnd + 1}/{args.rounds} done", file=sys.stderr)
    rows = []
    print(f"{'case':34} {'side':10} {'value':>6} {'nodes':>10} {'median s':>9} {'range s':>17} {'nodes/s':>9} {'ratio':>6}")
    for name, _, _, _ in cases:
        med = {}
        for side in ("racksmith", "magpie"):
            ts = times.get((name, side))
            if not ts:
                continue
            med[side] = statistics.median(ts)
        for side in ("racksmith", "magpie"):
            ts = times.get((name, side))
            if not ts:
                continue
            m = med[side]
            ratio = med["magpie"] / med["racksmith"] if len(med) == 2 else None
            row = {"case": name, "side": side, "value": values[(name, side)], "nodes": nodes[(name, side)],
                   "median": m, "min": min(ts), "max": max(ts), "nps": nodes[(name, side)] / m,
                   "speed_vs_magpie": ratio if side == "racksmith" else None}
            rows.append(row)
            r = f"{ratio:6.2f}" if side == "racksmith" and ratio is not None else ""
            print(f"{name:34} {side:10} {row['value']:>6} {row['nodes']:>10} {m:9.3f} "
                  f"{min(ts):8.3f}-{max(ts):<8.3f} {row['nps']:9.0f} {r:>6}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
