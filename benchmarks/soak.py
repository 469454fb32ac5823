"""Soak: many complete self-play games on every shipped ruleset, every invariant checked on every turn,
and the process's memory watched from start to end.

    python benchmarks/soak.py [--games 100000] [--rulesets english,russian,erudit,super] [--chunk 1000]
                              [--seed 1] [--json] [--out FILE]

The games are shared out evenly among the rulesets and played in chunks of ``--chunk`` games, one
process. Each chunk is its own series (seed ``seed * 1000 + chunk``, so no game repeats) with a
line-up taken in turn from :data:`LINEUPS` (equity against equity, score, random; three and four
players), with the fixtures' leave values where the ruleset's alphabet has them. Every game
checks, on every turn, that tiles are conserved (bag + racks + board = the set), that each play
the generator chose is legal by the independent validator with the same score, and at the end
that each score is the sum of its events (``racksmith.play.selfplay``): a violation is printed and
makes the exit code 1.

Memory: the resident set size (``VmRSS``) after the ruleset's lexicon and leaves are loaded, after
every chunk and at the end; "growth" is the end less the value once every line-up has played a
chunk (the warm-up: each kind of player builds its tables once), which stays near zero when
nothing accumulates.
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from racksmith.lexicon import load_leaves, load_lexicon
from racksmith.play.selfplay import SelfPlayConfig, run_selfplay
from racksmith.rules.ruleset import find_ruleset

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
#: leave values of the fixtures, by ruleset (the others play equity without leaves)
LEAVES = {"english": FIXTURES / "SYNTH.klv2", "super": FIXTURES / "SYNTH_super.klv2"}
#: line-ups, one per chunk in turn
LINEUPS = (
    ("equity", "equity"),
    ("equity", "score"),
    ("random", "equity"),
    ("equity", "score", "random"),
    ("random", "random", "random", "random"),
)


def rss_mb() -> float:
    """The resident set size now, in MB (Linux: /proc/self/status; elsewhere the peak so far)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def soak_ruleset(name: str, games: int, chunk: int, seed: int, say) -> dict:
    rs = find_ruleset(name)
    lexicon = load_lexicon(rs.lexicon, ruleset=rs)
    leaves_path = LEAVES.get(name)
    leaves = load_leaves(leaves_path, rs) if leaves_path and leaves_path.exists() else None
    start = rss_mb()
    rss = []
    played = turns = 0
    violations: list[str] = []
    seconds = 0.0
    n_chunks = -(-games // chunk)
    for k in range(n_chunks):
        n = min(chunk, games - played)
        lineup = LINEUPS[k % len(LINEUPS)]
        config = SelfPlayConfig(players=lineup, ruleset=name, leaves=str(leaves_path) if leaves is not None else None,
                                seed=seed * 1000 + k, validate=True)
        t0 = time.perf_counter()
        d = run_selfplay(n, config, lexicon=lexicon, leaves=leaves).to_dict()
        seconds += time.perf_counter() - t0
        played += d["games"]
        turns += d["turns"]
        violations += d["violations"]
        if d["invariant_violations"] > len(d["violations"]):
            violations.append(f"... {d['invariant_violations'] - len(d['violations'])} more in chunk {k}")
        rss.append(rss_mb())
        say(f"{name}: chunk {k + 1}/{n_chunks} ({','.join(lineup)}): {played} games, "
            f"{len(violations)} violations, RSS {rss[-1]:.1f} MB")
    warm = min(len(LINEUPS), len(rss)) - 1  # every line-up has played once: its tables are built
    return {
        "ruleset": name,
        "games": played,
        "turns": turns,
        "seconds": round(seconds, 2),
        "games_per_second": round(played / seconds, 1) if seconds else None,
        "invariant_violations": len(violations),
        "violations": violations[:20],
        "leaves": leaves_path.name if leaves is not None else None,
        "rss_start_mb": round(start, 1),
        "rss_after_warmup_mb": round(rss[warm], 1),
        "rss_end_mb": round(rss[-1], 1),
        "rss_max_mb": round(max(rss), 1),
        "rss_growth_mb": round(rss[-1] - rss[warm], 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000, help="games in all, shared out among the rulesets")
    ap.add_argument("--rulesets", default="english,russian,erudit,super")
    ap.add_argument("--chunk", type=int, default=1000, help="games a series (memory is read after each)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    ap.add_argument("--out", type=Path, help="also write the JSON report to this file")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.rulesets.split(",") if n.strip()]
    if args.games < len(names) or args.chunk < 1:
        ap.error("--games must be at least one a ruleset and --chunk at least 1")
    say = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    share, extra = divmod(args.games, len(names))
    t0 = time.perf_counter()
    rows = [soak_ruleset(n, share + (i < extra), args.chunk, args.seed, say) for i, n in enumerate(names)]
    report = {
        "games": sum(r["games"] for r in rows),
        "turns": sum(r["turns"] for r in rows),
        "seconds": round(time.perf_counter() - t0, 1),
        "invariant_violations": sum(r["invariant_violations"] for r in rows),
        "rss_start_mb": rows[0]["rss_start_mb"],
        "rss_end_mb": rows[-1]["rss_end_mb"],
        "rulesets": rows,
    }
    text = json.dumps(report)
    if args.out:
        args.out.write_text(text + "\n")
    if args.json:
        print(text)
    else:
        for r in rows:
            print(f"{r['ruleset']:8} {r['games']:7,} games {r['turns']:9,} turns {r['games_per_second']:7} games/s "
                  f"{r['invariant_violations']} violations  RSS {r['rss_start_mb']} -> {r['rss_end_mb']} MB "
                  f"(max {r['rss_max_mb']}, growth after warm-up {r['rss_growth_mb']:+})")
        print(f"total {report['games']:,} games, {report['turns']:,} turns, {report['invariant_violations']} violations, "
              f"{report['seconds']} s; RSS {report['rss_start_mb']} -> {report['rss_end_mb']} MB")
    for r in rows:
        for v in r["violations"]:
            say(f"violation: {v}")
    return 1 if report["invariant_violations"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
