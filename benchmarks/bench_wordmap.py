"""Word maps: what building, loading and keeping them costs.

    python benchmarks/bench_wordmap.py [--fixtures DIR]

Builds ENABLE15's word map in memory (seconds, bytes, classes), loads it from a fresh cache file
(memory map + checks), then, in a fresh process, loads the lexicon, its word map and SYNTH leaves
and finds the best move of every fixture position: that process's peak RSS, with and without the
word map (``wordmap=False`` everywhere), is what a user's process holds.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

CHILD = r"""
import json, sys
from racksmith.lexicon import Leaves, Lexicon
from racksmith.core.position import Position
from racksmith.movegen import generate
from racksmith.movegen._movegen import Rules
fx, use = sys.argv[1], sys.argv[2] == "1"
if not use:  # every Rules made without word maps
    generate.Rules = lambda lexicon, rs: Rules(lexicon, rs, None, False)
lex = Lexicon.load(fx + "/ENABLE15.kwg", "english")
leaves = Leaves.load(fx + "/SYNTH.klv2", "english")
for line in open(fx + "/positions.jsonl"):
    pos = Position.from_cgp(json.loads(line)["cgp"], "english", lexicon=lex)
    pos.moves(top=1, sort="equity", leaves=leaves, exchanges=True)
print(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fixtures", type=Path, default=ROOT / "tests" / "fixtures")
    args = ap.parse_args(argv)
    from racksmith.lexicon import Lexicon, wordmap

    with tempfile.TemporaryDirectory() as cache:
        os.environ["RACKSMITH_CACHE_DIR"] = cache
        lex = Lexicon.load(args.fixtures / "ENABLE15.kwg", "english")
        t0 = time.perf_counter()
        built = wordmap.build_wordmap(lex)
        t_build = time.perf_counter() - t0
        wordmap.wordmap_of(lex)                 # written to the cache
        t0 = time.perf_counter()
        loaded = wordmap.read_wordmap(wordmap.cache_path(lex), lex.digest)
        t_load = time.perf_counter() - t0
        print(f"ENABLE15 word map: {built.nbytes:,} bytes, {built.counts['classes']:,} classes, "
              f"{built.counts['one_blank']:,} one-blank keys, {built.counts['two_blanks']:,} two-blank keys")
        print(f"build {t_build:.2f} s; load from the cache (map + checks) {1000 * t_load:.1f} ms "
              f"({loaded.nbytes:,} bytes)")
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        for use in ("1", "0"):
            out = subprocess.run([sys.executable, "-c", CHILD, str(args.fixtures), use], env=env, check=True,
                                 capture_output=True, text=True).stdout.strip()
            print(f"peak RSS, ENABLE15 + SYNTH + best moves of the fixtures, "
                  f"{'with' if use == '1' else 'without'} the word map: {int(out) / 1024:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
