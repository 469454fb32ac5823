"""Self-play speed: complete games between static best-equity players, English with ENABLE, one process.

    python benchmarks/bench_selfplay.py [--games N] [--seed S] [--ruleset R] [--leaves FILE] [--no-leaves]
                                        [--engine E] [--json]

Runs the same series twice — with the independent validator on every play (the default of
``racksmith selfplay``) and with ``--fast`` (tile and score invariants only) — and prints games/s,
turns/s and the time per turn. ``--engine``: ``auto`` (the kernel's game loop for these players,
the default of ``racksmith selfplay``), ``kernel`` or ``python`` (the Python loop: Game + players). The lexicon and leaves are loaded before the clock starts.
``--ruleset``: another shipped ruleset with its own lexicon and, unless ``--leaves`` is given, its
shipped leaves (English keeps SYNTH by default).
Compare with MAGPIE's ~240 games/s and wolges' ~190 games/s per core on this machine kind
(``/work/shared/reference/peers.md``).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from racksmith.lexicon import load_leaves, load_lexicon
from racksmith.rules.ruleset import get_ruleset
from racksmith.play.selfplay import SelfPlayConfig, run_selfplay

ROOT = Path(__file__).resolve().parent.parent
SYNTH = ROOT / "tests" / "fixtures" / "SYNTH.klv2"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ruleset", default="english")
    ap.add_argument("--leaves", type=Path, default=None)
    ap.add_argument("--no-leaves", action="store_true", help="equity without leave values")
    ap.add_argument("--engine", choices=("auto", "kernel", "python"), default="auto")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rs = get_ruleset(args.ruleset)
    lexicon = load_lexicon(rs.lexicon, ruleset=rs)
    if args.no_leaves:
        leaves_path = None
    elif args.leaves is not None:
        leaves_path = args.leaves
    else:
        leaves_path = SYNTH if rs.name == "english" else rs.name     # a shipped ruleset's own leaves
    leaves = load_leaves(leaves_path, ruleset=rs) if leaves_path else None
    out = {}
    for label, validate in (("validated", True), ("fast", False)):
        config = SelfPlayConfig(
            players=("equity", "equity"),
            ruleset=rs.name,
            lexicon=rs.lexicon,
            leaves=str(leaves_path) if leaves_path else None,
            seed=args.seed,
            validate=validate,
            engine=args.engine,
        )
        d = run_selfplay(args.games, config, lexicon=lexicon, leaves=leaves).to_dict()
        out[label] = {
            "engine": d["engine"],
            "games": d["games"],
            "seconds": d["seconds"],
            "games_per_second": d["games_per_second"],
            "turns_per_second": d["turns_per_second"],
            "us_per_turn": round(1e6 * d["seconds"] / d["turns"], 1),
            "turns_per_game": d["turns_per_game"],
            "invariant_violations": d["invariant_violations"],
            "mean_total_score": d["mean_total_score"],
            "bingos_per_game": d["bingos_per_game"],
        }
    if args.json:
        print(json.dumps(out))
        return
    print(f"self-play, {rs.name}/{rs.lexicon}, best-equity vs best-equity, leaves {leaves_path or 'none'}, one process")
    for label, d in out.items():
        print(
            f"  {label:9s} {d['games']} games in {d['seconds']:.2f} s: {d['games_per_second']:.1f} games/s, "
            f"{d['turns_per_second']:.0f} turns/s ({d['us_per_turn']:.0f} µs a turn, {d['turns_per_game']:.1f} turns a game), "
            f"violations {d['invariant_violations']}"
        )


if __name__ == "__main__":
    main()
