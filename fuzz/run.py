"""A coverage-guided fuzzing campaign of one target of ``fuzz/targets.py`` under atheris (libFuzzer).

    python fuzz/run.py TARGET [--seconds N | --runs N] [--jobs N] [-- LIBFUZZER_ARGS...]
    python fuzz/run.py TARGET --replay FILE...        # run files through the target, uninstrumented
    python fuzz/run.py TARGET --minimize CRASH_FILE   # shrink a crash that still fails
    python fuzz/run.py --list

The seeds are ``fuzz/corpus/TARGET`` (made from the project's real files by ``make_corpus.py`` when
missing); what the campaign finds that is new goes to ``fuzz/work/TARGET`` (both ignored by git), a
crash to ``fuzz/crashes/TARGET/crash-<sha1>``. Keep a (minimised) crash in ``fuzz/crashes/TARGET/``
once it is fixed: ``tests/test_fuzz_regressions.py`` runs every file there. Run from the project's
root with the package importable (``PYTHONPATH=src`` after ``python dev/build_ext.py all``, or
installed with ``pip install '.[fuzz]'``). See ``fuzz/README.md``.
"""
from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMES = ("cgp", "gcg", "notation", "ruleset", "movegen", "wordlist", "kwg", "klv", "api", "http")


def main(argv: list[str]) -> int:
    own, _, extra = _split(argv[1:])
    ap = argparse.ArgumentParser(prog="fuzz/run.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("target", nargs="?", choices=NAMES)
    ap.add_argument("--list", action="store_true", help="list the targets")
    ap.add_argument("--seconds", type=int, default=60, help="length of the campaign (default 60)")
    ap.add_argument("--runs", type=int, help="stop after this many runs instead")
    ap.add_argument("--jobs", type=int, default=1, help="parallel fuzzing processes (libFuzzer -fork)")
    ap.add_argument("--timeout", type=int, default=30, help="seconds one input may take before it counts as a hang")
    ap.add_argument("--rss-mb", type=int, default=2048, help="memory one process may use before it counts as a crash")
    ap.add_argument("--replay", nargs="+", type=Path, metavar="FILE", help="run these inputs and stop")
    ap.add_argument("--minimize", type=Path, metavar="CRASH", help="shrink this crashing input")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # a process of -fork (the launcher)
    args = ap.parse_args(own)
    if args.list:
        print("\n".join(NAMES))
        return 0
    if not args.target:
        ap.error("name a target (--list shows them)")
    if args.replay:
        return _replay(args.target, args.replay)
    if args.minimize:
        return _minimize(args.target, args.minimize)

    import atheris

    with atheris.instrument_imports(include=["racksmith", "targets"]):
        sys.path.insert(0, str(HERE))
        import targets
    target = targets.TARGETS[args.target]
    if args.child:  # started by libFuzzer's -fork through the launcher: its flags are the arguments
        atheris.Setup([sys.argv[0], *extra], target)
        atheris.Fuzz()
        return 0
    crashes = HERE / "crashes" / args.target
    crashes.mkdir(parents=True, exist_ok=True)
    flags = [f"-timeout={args.timeout}", f"-rss_limit_mb={args.rss_mb}", f"-artifact_prefix={crashes}/",
             "-print_final_stats=1"]
    seeds = HERE / "corpus" / args.target
    if not seeds.is_dir() or not any(seeds.iterdir()):
        subprocess.run([sys.executable, str(HERE / "make_corpus.py"), str(HERE / "corpus")], check=True)
    work = HERE / "work" / args.target
    work.mkdir(parents=True, exist_ok=True)
    limit = [f"-runs={args.runs}"] if args.runs else [f"-max_total_time={args.seconds}"]
    jobs = [f"-fork={args.jobs}", "-ignore_crashes=1"] if args.jobs > 1 else []
    dirs = [*limit, *jobs, str(work), str(seeds)]
    # -fork runs its processes as argv[0] with libFuzzer's flags: an executable launcher that comes
    # back here with the target named (run.py itself is neither executable nor told the target)
    argv0 = _launcher(args.target) if args.jobs > 1 else sys.argv[0]
    atheris.Setup([argv0, *flags, *extra, *dirs], target)
    atheris.Fuzz()
    return 0


def _replay(name: str, files: list[Path]) -> int:
    """Run inputs through a target without instrumentation; report each outcome."""
    sys.path.insert(0, str(HERE))
    import targets

    failed = 0
    for path in files:
        for f in sorted(path.iterdir()) if path.is_dir() else [path]:
            try:
                targets.TARGETS[name](f.read_bytes())
            except Exception as e:  # noqa: BLE001 - report every kind
                failed += 1
                print(f"{f}: {type(e).__name__}: {str(e)[:300]}")
            else:
                print(f"{f}: ok")
    return 1 if failed else 0


def _minimize(name: str, path: Path) -> int:
    """Shrink a crashing input while it still fails the same way (delta debugging: drop ever
    smaller chunks); write ``min-<name>`` next to it."""
    sys.path.insert(0, str(HERE))
    import targets
    from racksmith.errors import RacksmithError

    def failure(data: bytes) -> str | None:
        try:
            targets.TARGETS[name](data)
        except RacksmithError:
            return None
        except Exception as e:  # noqa: BLE001 - any other kind is the finding
            return type(e).__name__
        return None

    data = path.read_bytes()
    kind = failure(data)
    if kind is None:
        print(f"{path}: does not fail (fixed already?)")
        return 1
    chunk = max(len(data) // 2, 1)
    while True:
        i = 0
        while i < len(data):
            candidate = data[:i] + data[i + chunk:]
            if failure(candidate) == kind:
                data = candidate
            else:
                i += chunk
        if chunk == 1:
            break
        chunk //= 2
    out = path.with_name(f"min-{path.name}")
    out.write_bytes(data)
    print(f"{out}: {len(data)} bytes, still {kind}: {data[:200]!r}")
    return 0


def _launcher(name: str) -> str:
    """An executable script that runs this file for target ``name`` with the arguments it is given
    as libFuzzer's flags (the processes of ``-fork``), with this Python."""
    path = HERE / "work" / f"launch-{name}.sh"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(HERE / "run.py"))} '
                    f'{name} --child -- "$@"\n', encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def _split(argv: list[str]) -> tuple[list[str], str, list[str]]:
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], "--", argv[i + 1:]
    return argv, "", []


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
