"""Threads that make their first calls at once, or import racksmith's modules at once, never meet in
a cycle of Python's import locks (``_DeadlockError``, or a partly initialised module), and what
``import racksmith`` costs stays what it needs.

Python takes a module's lock while it runs the module, and the lock of a package's module while
the package is imported for it. A package whose ``__init__`` imports its modules, imported by one
thread for one of them and by another thread for another, deadlocked: ``racksmith.search`` when an
endgame and a pre-endgame were first solved at once, before the package imported the searches
with itself. Each race happens once per interpreter, so the dynamic tests run fresh interpreters;
the static test reads the imports that a first use can still run and finds every cycle."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import racksmith

ROOT = Path(racksmith.__file__).parent

# --- the import-lock graph of what is left to import ----------------------------------------------


def _module_files() -> dict[str, Path]:
    """Every module of the package (not the command line's: it is imported by one thread, at start)
    and the file that says what it imports (a kernel's .pyx)."""
    out: dict[str, Path] = {}
    for path in ROOT.rglob("*"):
        if "__pycache__" in path.parts or path.suffix not in (".py", ".so"):
            continue
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        parts[-1] = parts[-1].split(".")[0]  # (_endgame.cpython-311-x86_64-linux-gnu)
        if parts[-1] == "__main__" or parts[1:2] == ["cli"]:
            continue
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        source = path if path.suffix == ".py" else path.parent / (parts[-1] + ".pyx")
        if source.exists():
            out[name] = source
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports_run_at_import(tree: ast.Module, name: str, is_package: bool) -> set[str]:
    """The modules named by the import statements that run while the module itself is imported
    (at its top level, in its classes, under try and if; not in functions, not for type checkers)."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()

    def walk(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = f"{base}.{node.module}" if node.level and node.module else (base if node.level else node.module)
                found.add(base)
                found.update(f"{base}.{a.name}" for a in node.names)  # (the modules among them)
            elif isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    walk(node.body)
                walk(node.orelse)
            elif isinstance(node, ast.Try):
                walk(node.body)
                for handler in node.handlers:
                    walk(handler.body)
                walk(node.orelse)
                walk(node.finalbody)
            elif isinstance(node, (ast.With, ast.ClassDef, ast.For, ast.While)):
                walk(node.body)

    walk(tree.body)
    return found


def _pyx_imports(text: str) -> set[str]:
    found = set()
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] in ("import", "from", "cimport") and not line.startswith((" ", "\t")):
            found.add(words[1])
    return found


def _lock_graph(loaded: set[str]) -> dict[str, set[str]]:
    """For each module not yet ``loaded``: the modules not yet loaded that a thread importing it
    may wait for while it holds its lock (what its top level imports, and its package)."""
    files = _module_files()
    graph: dict[str, set[str]] = {}
    for name, source in files.items():
        if name in loaded:
            continue
        if source.suffix == ".pyx":
            wanted = _pyx_imports(source.read_text(encoding="utf-8"))
        else:
            tree = ast.parse(source.read_text(encoding="utf-8"))
            wanted = _imports_run_at_import(tree, name, source.name == "__init__.py")
        wanted.add(name.rpartition(".")[0])  # its package, imported first, while its own lock is held
        edges = set()
        for w in wanted:
            while w:  # a module's packages are imported before it
                if w in files and w not in loaded and w != name:
                    edges.add(w)
                w = w.rpartition(".")[0]
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def test_nothing_left_to_import_after_import_racksmith_can_wait_for_itself():
    """The modules a first call (or a user's import) can still import, and the locks each may wait
    for while it holds its own: no cycle, so no two threads can deadlock on them. (With the
    searches left to their first call and ``racksmith.search`` importing its modules, the cycle
    racksmith.search -> racksmith.search.endgame -> racksmith.search is found.)"""
    code = "import json, sys, racksmith; print(json.dumps(sorted(m for m in sys.modules if m.startswith('racksmith'))))"
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                           check=True).stdout))
    graph = _lock_graph(loaded)
    assert len(graph) >= 10  # (the web analyzer, leave training, the kernels of the searches at least)
    assert _cycles(graph) == []


def test_a_package_that_imports_its_modules_is_a_cycle_when_left_to_first_use():
    """The check above finds the deadlock the searches had."""
    files = _module_files()
    loaded = {"racksmith"} | {n for n in files if not n.startswith(("racksmith.search", "racksmith.sim"))}
    cycles = _cycles(_lock_graph(loaded))
    assert ["racksmith.search", "racksmith.search.endgame", "racksmith.search"] in cycles


# --- fresh interpreters, many threads, first uses at once ------------------------------------------

_FIRST_CALLS = r'''
import faulthandler, sys, threading, traceback
faulthandler.dump_traceback_later(90, exit=True)  # a deadlock: every thread's stack, exit 1
sys.setswitchinterval(1e-5)  # threads interleave inside imports
from racksmith import Position

EG = ("7M2MORAL/6COWBANEs1/6UN4AE1/5VIG3OPAH/4REFoRGED3/4EX1L7/4C10/3KRONA3FLIP/4U6O2A/1ZOWIE2T2I2N/"
      "4T2HAJIS2N/2BOSQUET2T2I/7DE5E/ADVISING6R/YE5Y6S DEEILRT/AOTU 0/0 0")
PEG = ("11QUID/5H7M1/2UNJOINT4A1/4IT7G1/4L8E1/3CLOWN1HANGS1/6OURIE4/3CRYPTo2VAIL/8BAP2m1/8ABA2M1/8NOW2E1/"
       "8D4N1/1KIEF1DASTARDS1/4OXO6E1/FORGE1SLEAZY3 EEIIRTU/EEEIRTV 304/425 0")  # one tile in the bag (fixtures peg_s141_t19)
MID = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/ 28/18 0"
KRONA = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 / 0/28 0"


def endgame():
    return Position.from_cgp(EG).solve_endgame(plies=2).value


def peg():
    return str(Position.from_cgp(PEG).solve_peg(seconds=0.2).best)


def sim():
    return str(Position.from_cgp(MID).simulate(iterations=20, plies=1, threads=2).best)


def infer():
    from racksmith.sim.infer import infer_leaves
    return len(infer_leaves(Position.from_cgp(KRONA), "8D KRONA").leaves)


def best():
    return str(Position.from_cgp(MID).best_play(seconds=0.2).move)


def names():  # every exported name, and the packages that export theirs at first use
    import racksmith, racksmith.training, racksmith.web
    return sum(1 for p in (racksmith, racksmith.training, racksmith.web) for n in p.__all__ if getattr(p, n) is not None)


jobs = [endgame, peg, sim, infer, best, names] * 3
go = threading.Barrier(len(jobs))
failed = []


def run(job):
    go.wait()
    try:
        job()
    except BaseException as e:
        failed.append(f"{job.__name__}: {''.join(traceback.format_exception(e))}")


threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("\n".join(failed) or "ok")
'''

_EVERY_MODULE = r'''
import faulthandler, importlib, random, sys, threading, traceback
faulthandler.dump_traceback_later(90, exit=True)
sys.setswitchinterval(1e-5)
import racksmith

names, fresh = NAMES, [n for n in NAMES if n not in sys.modules]
go = threading.Barrier(len(fresh))
failed = []


def run(i):
    order = [fresh[i]] + random.Random(SEED * 1000 + i).sample(names, len(names))
    go.wait()
    for name in order:
        try:
            importlib.import_module(name)
        except BaseException as e:
            failed.append(f"{name}: {''.join(traceback.format_exception_only(e)).strip()}")


threads = [threading.Thread(target=run, args=(i,)) for i in range(len(fresh))]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("\n".join(failed) or f"ok: {len(fresh)} threads")
'''


def _fresh(code: str) -> str:
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180,
                         env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert run.returncode == 0, run.stderr[-4000:]
    return run.stdout.strip()


def test_first_calls_from_many_threads_at_once_in_fresh_interpreters():
    """Three endgames, pre-endgames, simulations, inferences and best plays, and threads reading
    every exported name, all started at once right after ``import racksmith``; four times, each in
    a new interpreter (the imports a first call makes happen once per interpreter)."""
    for _ in range(4):
        assert _fresh(_FIRST_CALLS) == "ok"


def test_every_module_imported_from_many_threads_at_once_in_fresh_interpreters():
    """One thread for each module ``import racksmith`` leaves unimported, each importing it first and
    then every other module, all at once; six new interpreters. (With the searches left to their
    first call this failed in about half of the interpreters.)"""
    names = sorted(n for n in _module_files() if n != "racksmith")
    for seed in range(6):
        out = _fresh(_EVERY_MODULE.replace("NAMES", repr(names)).replace("SEED", str(seed)))
        assert out.startswith("ok"), out


# --- what import racksmith and racksmith --version cost ---------------------------------------------


def test_type_hints_of_every_public_function_resolve_in_a_fresh_interpreter():
    """``typing.get_type_hints`` right after ``import racksmith``, nothing else imported first
    (``test_api`` imports every module before it checks): the methods that return the searches'
    and the simulation's results name classes their module imports only for type checkers."""
    code = r'''
import inspect, typing, racksmith
failed = []
for name in racksmith.__all__:
    obj = getattr(racksmith, name)
    targets = [obj] if inspect.isfunction(obj) else []
    if inspect.isclass(obj):
        targets += [m for k, m in vars(obj).items() if inspect.isfunction(m) and (not k.startswith("_") or k == "__init__")]
    for t in targets:
        try:
            typing.get_type_hints(t)
        except Exception as e:
            failed.append(f"{t.__qualname__}: {e}")
hints = typing.get_type_hints(racksmith.Position.solve_endgame)
print(failed, hints["return"] is racksmith.EndgameResult)
'''
    assert _fresh(code) == "[] True"


def test_import_racksmith_leaves_the_search_kernel_and_the_command_line_to_their_first_use():
    code = ("import sys, racksmith; print(sorted(m for m in ('racksmith.search._endgame', 'racksmith.sim._sim', "
            "'concurrent.futures.thread', 'typer', 'click', 'rich') if m in sys.modules))")
    assert _fresh(code) == "[]"


def test_version_is_answered_without_building_the_command_line():
    code = ("import sys; from racksmith.cli.main import main; code = main(['--version']); "
            "print(code, 'typer' in sys.modules, 'racksmith.cli.moves_cmds' in sys.modules)")
    assert _fresh(code).splitlines()[-1] == "0 False False"
    assert _fresh(code).splitlines()[0] == f"racksmith {racksmith.__version__}"
