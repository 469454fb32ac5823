"""Simulation speed: play-outs per second at 2 plies, racksmith against MAGPIE's ``gsimulate`` on
the same positions and budget (English, ENABLE, SYNTH leaves, the opponent's rack random, 15
candidates, round robin, no confidence stop, one thread).

    python benchmarks/bench_sim.py [--iterations N] [--rounds R] [--threads T] [--magpie /tmp/perf/magpie]

racksmith is timed in-process around ``Position.simulate`` (loading excluded); MAGPIE by the
``Time:`` it prints itself (loading excluded too), run as
``magpie set -mode sync -lex NWL_ENABLE15 -leaves NWL_ENABLE15 -wmp false|true -threads T
-plies 2 -it N -minp 1 -threshold none -sr rr -numplays 15 -sinfer false -seed S`` with
``cgp <position>`` and ``gsimulate -`` on stdin. Prints one line per position and engine: the
median and range of iterations/s over the rounds, and racksmith's ratio to each MAGPIE mode (its
play-outs find each best reply by word maps, so MAGPIE's word-map mode, ``-wmp true``, is the
like-for-like one; ``--no-wmp`` skips it). Without MAGPIE (no ``bin/magpie`` under ``--magpie``)
it says so on stderr and times racksmith alone (no ratio printed). Figures taken while the machine
is shared are not worth publishing.
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

from racksmith import Position, load_leaves
from racksmith.sim.winpct import load_winpct

HERE = Path(__file__).resolve().parent.parent
POSITIONS = ["open_s375_t0", "mid_s208_t2", "mid_s125_t5", "mid_s186_t8", "midbb_s56_t13"]


def positions():
    out = {}
    for line in (HERE / "tests" / "fixtures" / "positions.jsonl").read_text().splitlines():
        d = json.loads(line)
        if d["id"] in POSITIONS:
            out[d["id"]] = d["cgp"]
    return [(k, out[k]) for k in POSITIONS]


def unknown_opponent(cgp: str) -> str:
    parts = cgp.split(" ")
    parts[1] = parts[1].split("/")[0] + "/"
    return " ".join(parts)


def racksmith_rate(cgp, iterations, threads, seed, leaves, wp):
    pos = Position.from_cgp(unknown_opponent(cgp))
    pos.simulate(candidates=15, iterations=60, seed=seed, stop=None, leaves=leaves, winpct=wp)  # warm caches
    t = time.perf_counter()
    r = pos.simulate(candidates=15, plies=2, iterations=iterations, threads=threads, seed=seed, stop=None,
                     leaves=leaves, winpct=wp, round_robin=True)
    return r.iterations / (time.perf_counter() - t)


def magpie_rate(magpie: Path, cgp, iterations, threads, seed, wmp):
    cmd = [str(magpie / "bin" / "magpie"), "set", "-mode", "sync", "-lex", "NWL_ENABLE15", "-leaves", "NWL_ENABLE15",
           "-wmp", "true" if wmp else "false", "-threads", str(threads), "-savesettings", "false", "-plies", "2",
           "-it", str(iterations), "-minp", "1", "-threshold", "none", "-sr", "rr", "-numplays", "15",
           "-sinfer", "false", "-seed", str(seed)]
    p = subprocess.run(cmd, input=f"cgp {cgp}\ngsimulate -\n", capture_output=True, text=True, cwd=magpie,
                       timeout=600)
    iters = [int(x) for x in re.findall(r"Iters:\s*(\d+)", p.stdout)]
    secs = [float(x) for x in re.findall(r"Time:\s*([\d.]+)", p.stdout)]
    if not iters or not secs or secs[-1] <= 0:
        raise SystemExit(f"MAGPIE printed no Iters/Time:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return iters[-1] / secs[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=6000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--magpie", type=Path, default=Path("/tmp/perf/magpie"))
    ap.add_argument("--no-wmp", action="store_true", help="skip MAGPIE's word-map mode")
    args = ap.parse_args()
    leaves = load_leaves(HERE / "tests" / "fixtures" / "SYNTH.klv2", "english")
    wp = load_winpct("english")
    have_magpie = (args.magpie / "bin" / "magpie").exists()
    if not have_magpie:
        print(f"note: {args.magpie / 'bin' / 'magpie'} not found: racksmith only", file=sys.stderr)
    engines = ["racksmith"]
    if have_magpie:
        engines += ["magpie-kwg"] + ([] if args.no_wmp else ["magpie-wmp"])
    print(f"# {args.iterations} iterations, 2 plies, 15 candidates, round robin, {args.threads} thread(s), "
          f"{args.rounds} rounds: iterations/s median [min-max]")
    ratios: dict[str, list[float]] = {e: [] for e in engines[1:]}
    for pid, cgp in positions():
        rates = {e: [] for e in engines}
        for r in range(args.rounds):
            seed = 1 + r
            rates["racksmith"].append(racksmith_rate(cgp, args.iterations, args.threads, seed, leaves, wp))
            if "magpie-kwg" in rates:
                rates["magpie-kwg"].append(magpie_rate(args.magpie, cgp, args.iterations, args.threads, seed, False))
            if "magpie-wmp" in rates:
                rates["magpie-wmp"].append(magpie_rate(args.magpie, cgp, args.iterations, args.threads, seed, True))
        med = {e: statistics.median(v) for e, v in rates.items()}
        for e in ratios:
            ratios[e].append(med["racksmith"] / med[e])
        cells = "  ".join(f"{e} {med[e]:7.0f} [{min(v):.0f}-{max(v):.0f}]" for e, v in rates.items())
        shown = "  ".join(f"racksmith/{e} {ratios[e][-1]:.2f}" for e in ratios)
        print(f"{pid:15s} {cells}  {shown}".rstrip())
    for e, r in ratios.items():
        print(f"geometric mean racksmith/{e}: {statistics.geometric_mean(r):.2f}")


if __name__ == "__main__":
    main()
