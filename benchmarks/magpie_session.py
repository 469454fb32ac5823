"""One MAGPIE session for the side-by-side benchmarks (bench_peg_magpie.py, bench_infer.py): MAGPIE
is not part of racksmith; it is built outside it (``make magpie BUILD=release``) and reached here
as a process."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path


def run_session(magpie_dir: Path, cgp: str, command: str, threads: int = 1) -> tuple[str, float]:
    """MAGPIE's output (stdout and stderr) and wall time for ``command`` on the position ``cgp``
    (ENABLE15 with its word map, English letters, ``threads`` threads)."""
    lines = [f"cgp {cgp} -lex NWL_ENABLE15 -ld english -threads {threads} -wmp true", command, "quit"]
    settings = magpie_dir / "settings.txt"  # MAGPIE keeps the last session's settings here: start clean
    settings.unlink(missing_ok=True)
    t = time.perf_counter()
    out = subprocess.run(["./bin/magpie", "set", "-mode", "sync"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, cwd=magpie_dir)
    wall = time.perf_counter() - t
    settings.unlink(missing_ok=True)
    return out.stdout + out.stderr, wall
