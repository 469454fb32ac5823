"""How long ``racksmith leaves build`` takes, and how much memory, to compile a complete leave CSV
(every leave of 1 to 6 tiles, as ``racksmith leaves csv SET`` writes it: 914,624 English leaves,
2,941,697 Russian ones) into a KLV2 file, against another build of racksmith, interleaved.

    python benchmarks/bench_leaves_csv.py [--old-src OLD/src] [--rounds 3] [--sets english,russian]

Each round runs every build once per set, in a shuffled order, each as a fresh
``python -m racksmith leaves build`` process (its start-up and imports included); a run's figures
are its wall and CPU seconds (user + system) and its peak RSS, and its KLV2 file's digest, so the
builds are also checked to write the same bytes. The CSVs are written once, by this build. On a
shared machine the wall time swings with the load: the CPU time is the steadier figure.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RULESET = {"english": "english", "super": "super", "russian": "russian", "erudit": "erudit"}


def run(src: str, csv: Path, ruleset: str, out: Path) -> dict:
    """One ``leaves build`` in a fresh process: its seconds, CPU seconds, peak RSS and output digest."""
    env = dict(os.environ, PYTHONPATH=src, OPENBLAS_NUM_THREADS="1")
    cmd = [sys.executable, "-m", "racksmith", "leaves", "build", str(csv), "-r", ruleset, "-o", str(out)]
    log = out.with_suffix(".log")
    with open(log, "wb") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # (its own rusage: the peak RSS of this process alone)
        seconds = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {log.read_text().strip()}")
    return {"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
            "digest": hashlib.sha256(out.read_bytes()).hexdigest()[:16]}


def spread(values: "list[float]", fmt: str) -> str:
    return f"median {statistics.median(values):{fmt}} [{min(values):{fmt}}-{max(values):{fmt}}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old-src", help="the src folder of another build (its .so files built)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sets", default="english,russian", help="leave sets whose CSVs to build (default: english,russian)")
    args = ap.parse_args()
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    builds = {"racksmith": here}
    if args.old_src:
        builds["old"] = args.old_src
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        csvs = {}
        for name in sets:
            csvs[name] = Path(tmp) / f"{name}.csv"
            subprocess.run([sys.executable, "-m", "racksmith", "leaves", "csv", name, "-o", str(csvs[name])],
                           env=dict(os.environ, PYTHONPATH=here), check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        runs: dict[tuple[str, str], list[dict]] = {(b, s): [] for b in builds for s in sets}
        rng = random.Random(1)
        for r in range(args.rounds):
            order = [(b, s) for b in builds for s in sets]
            rng.shuffle(order)
            for build, name in order:
                res = run(builds[build], csvs[name], RULESET.get(name, name), Path(tmp) / f"{build}-{name}.klv2")
                runs[(build, name)].append(res)
                print(f"round {r + 1} {build} {name}: {res['seconds']:.2f} s, {res['cpu']:.2f} s CPU, "
                      f"{res['rss_mb']:.0f} MB, digest {res['digest']}", file=sys.stderr)
    for name in sets:
        for build in builds:
            rs = runs[(build, name)]
            print(f"{name} {build}: wall {spread([x['seconds'] for x in rs], '.2f')} s, "
                  f"CPU {spread([x['cpu'] for x in rs], '.2f')} s, peak RSS {spread([x['rss_mb'] for x in rs], '.0f')} MB "
                  f"over {len(rs)} rounds; digests {sorted({x['digest'] for x in rs})}")
        if args.old_src:
            new, old = runs[("racksmith", name)], runs[("old", name)]
            same = {x["digest"] for x in new} == {x["digest"] for x in old}
            print(f"{name}: same KLV2 bytes: {same}; new/old CPU (medians): "
                  f"{statistics.median(x['cpu'] for x in new) / statistics.median(x['cpu'] for x in old):.3f}")


if __name__ == "__main__":
    main()
