"""Lexicon layer timings: building ENABLE, loading KWG and KLV2 files, a few queries.

    python benchmarks/bench_lexicon.py [--repeat N] [--json]

Each figure is the median of N runs (default 7) on one core; a build is from the word list's
bytes (parse, sort, build, lay out) to the node array. Loads are cold for the Lexicon object
(fresh memory map, full check) but warm for the OS page cache.
"""
from __future__ import annotations

import argparse
import gzip
import json
import statistics
import tempfile
import time
from importlib import resources
from pathlib import Path

from racksmith.lexicon import Leaves, Lexicon, load_leaves
from racksmith.lexicon.lexicon import max_word_length
from racksmith.lexicon.wordlist import parse_word_list
from racksmith.rules.ruleset import get_ruleset

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    n = args.repeat
    english = get_ruleset("english")
    words = gzip.decompress(resources.files("racksmith.lexicon").joinpath("data/enable1.txt.gz").read_bytes())
    results: dict[str, float] = {}

    def build(share_tails=True):
        wl = parse_word_list(words, english.alphabet, max_word_length(english))
        return Lexicon.from_word_list(wl, english, share_tails=share_tails)

    lex = build()
    results["build_enable_ms"] = median_ms(build, n)
    results["build_enable_magpie_layout_ms"] = median_ms(lambda: build(False), n)
    results["parse_enable_ms"] = median_ms(
        lambda: parse_word_list(words, english.alphabet, max_word_length(english)), n)
    results["nodes_ours"] = lex.nodes
    with tempfile.TemporaryDirectory() as tmp:
        ours = Path(tmp) / "enable.kwg"
        lex.save(ours)
        for label, path in (("ours", ours), ("magpie", FIXTURES / "ENABLE15.kwg"),
                            ("wolges", FIXTURES / "ENABLE15.wolges.kwg")):
            results[f"load_{label}_ms"] = median_ms(lambda p=path: Lexicon.load(p), n)
    results["load_klv2_synth_ms"] = median_ms(lambda: load_leaves(FIXTURES / "SYNTH.klv2"), n)
    results["build_klv2_synth_ms"] = median_ms(lambda: Leaves.from_csv(FIXTURES / "SYNTH.csv.gz"), max(1, n // 3))
    probe = lex.words()[::17]
    results["lookup_us"] = 1000 * median_ms(lambda: [w in lex for w in probe], 3) / len(probe)
    results["list_all_words_ms"] = median_ms(lex.words, 3)
    results["anagrams_AEINST??_ms"] = median_ms(lambda: lex.anagrams("AEINST??"), 3)
    leaves = load_leaves(FIXTURES / "SYNTH.klv2")
    racks = ["?ERS", "AEINST", "QU", "DGIL?", "VVW"] * 200
    results["leave_value_us"] = 1000 * median_ms(lambda: [leaves.value(r) for r in racks], 3) / len(racks)
    if args.json:
        print(json.dumps({k: round(v, 3) for k, v in results.items()}))
        return
    for k, v in results.items():
        print(f"{k:32s} {v:12,.2f}")


if __name__ == "__main__":
    main()
