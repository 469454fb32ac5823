"""Games per second of a match on the local pool and on a local Ray instance, with 1 and 2 workers.

    python benchmarks/bench_backends.py [--games 400] [--ruleset english]

Ray is started before the clock (``ray.init(num_cpus=2)``); each figure is one match of
``--games`` games between the shipped leaves and no leaves (seed 1), timed from submission to the
last result. Prints one JSON line per (backend, workers) and checks that all results agree.
"""
from __future__ import annotations

import argparse
import json
import os
import time

from racksmith.play import match


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--ruleset", default="english")
    args = ap.parse_args()
    results = {}
    for jobs in (1, 2):
        t = time.perf_counter()
        r = match("equity", "equity:leaves=none", args.games, seed=1, ruleset=args.ruleset, jobs=jobs)
        secs = time.perf_counter() - t
        results[("local", jobs)] = r
        print(json.dumps({"backend": "local", "workers": jobs, "games": args.games, "seconds": round(secs, 2),
                          "games_per_second": round(args.games / secs, 2)}), flush=True)
    try:
        import ray
    except ImportError:
        print(json.dumps({"backend": "ray", "skipped": "ray is not installed"}))
        return
    for jobs in (1, 2):
        ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False, configure_logging=False,
                 runtime_env={"env_vars": {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}})
        try:
            match("score", "score", 100 * jobs, seed=0, jobs=jobs, backend="ray")  # start and warm every worker
            t = time.perf_counter()
            r = match("equity", "equity:leaves=none", args.games, seed=1, ruleset=args.ruleset, jobs=jobs, backend="ray")
            secs = time.perf_counter() - t
        finally:
            ray.shutdown()
        results[("ray", jobs)] = r
        print(json.dumps({"backend": "ray", "workers": jobs, "games": args.games, "seconds": round(secs, 2),
                          "games_per_second": round(args.games / secs, 2)}), flush=True)
    first = next(iter(results.values())).pairs
    print(json.dumps({"all_results_equal": all(r.pairs == first for r in results.values())}))


if __name__ == "__main__":
    main()
