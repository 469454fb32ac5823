"""Processes and threads at their edges: a child forked while another thread held one of the
library's locks, arrays that Python code could make writable again under the kernels, a search
left running in a daemon thread at exit, and modules imported by several threads at once."""
from __future__ import annotations

import copy
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from racksmith import Lexicon, Leaves, Position
from racksmith.rules.ruleset import get_ruleset

CGP = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"
#: a one-tile pre-endgame whose search takes minutes with two threads
PEG = ("7N6G/5GUINEA3O/6TEENAGERS/7V3E2H/7E1PUL1O1/5JO4A1N1/4HOP2WONKY1/1S1BAWTIE2TAXI/1U2EL2FURS3/"
       "1B2MY1EFT5/1L2O2N7/VISCID1D7/1M1AD2I7/1E1R1ZITI6/3R3E7 ACDELRT/AAIOOQ? 350/334 0")
WORDS = ["OUTGUN", "GUN", "GUNS", "SIR", "SIRE", "IRE", "ORE", "ROSE", "RISE", "JOE", "JO"]


# --- a child forked while another thread holds a lock ----------------------------------------------

def _forked_while_held(lock, child_work, seconds: float = 20.0) -> None:
    """Hold ``lock`` in a thread, fork, run ``child_work()`` in the child: it must end, and well."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with lock:
            held.set()
            release.wait(60)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert held.wait(10)
    try:
        pid = os.fork()
        if pid == 0:  # the child: only this thread, the lock as the holder left it
            code = 1
            try:
                child_work()
                code = 0
            finally:
                os._exit(code)
        deadline = time.monotonic() + seconds
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail(f"the forked child hung for {seconds} s (a lock held by a thread it does not have)")
            time.sleep(0.02)
        assert os.waitstatus_to_exitcode(status) == 0, "the forked child failed"
    finally:
        release.set()
        holder.join(10)


needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")


@needs_fork
def test_a_child_forked_during_a_first_lexicon_load_loads_one():
    from racksmith.lexicon import load

    def child() -> None:
        load._loaded.clear()  # (the parent may have it: the child must take the lock to load it)
        assert len(load.load_embedded("enable", gaddag=False)) > 100_000

    _forked_while_held(load._loading, child)


@needs_fork
def test_a_child_forked_during_a_first_table_build_builds_one():
    from racksmith.movegen import generate

    def child() -> None:
        lex = Lexicon.from_words(WORDS)  # a lexicon no tables are built for yet
        assert Position.from_cgp(CGP, lexicon=lex).moves(top=3)

    _forked_while_held(generate._building, child)


@needs_fork
def test_a_child_forked_during_a_shipped_leaves_load_loads_them():
    from racksmith.lexicon import shipped_leaves

    def child() -> None:
        shipped_leaves._cache.clear()
        assert len(shipped_leaves.load_shipped_leaves("english")) > 1000

    _forked_while_held(shipped_leaves._loading, child)


# --- arrays nothing can change once checked ---------------------------------------------------------

def _assert_frozen(*arrays: np.ndarray) -> None:
    for a in arrays:
        assert not a.flags.writeable
        with pytest.raises(ValueError):
            a.flags.writeable = True


def _lexicons(tmp_path):
    rs = get_ruleset("english")
    lex = Lexicon.from_words(WORDS)
    data = lex.tobytes()
    owned = np.frombuffer(data, np.uint32).copy()
    owned_ro = owned.copy()
    owned_ro.flags.writeable = False
    u8_ro = np.frombuffer(data, np.uint8).copy()
    u8_ro.flags.writeable = False
    (tmp_path / "w.kwg").write_bytes(data)
    (tmp_path / "w.txt").write_text("\n".join(WORDS * 3) + "\n")
    from racksmith.lexicon import load_lexicon

    yield "from_words", lex
    yield "from_words, DAWG only", Lexicon.from_words(WORDS, gaddag=False)
    yield "an owned writable array", Lexicon(owned, rs.alphabet)
    yield "an owned read-only array", Lexicon(owned_ro, rs.alphabet)
    yield "from_bytes(bytes)", Lexicon.from_bytes(data)
    yield "from_bytes(bytearray)", Lexicon.from_bytes(bytearray(data))
    yield "from_bytes(memoryview of a bytearray)", Lexicon.from_bytes(memoryview(bytearray(data)))
    yield "from_bytes(an owned read-only uint8 array)", Lexicon.from_bytes(u8_ro)
    yield "load", Lexicon.load(tmp_path / "w.kwg")
    yield "load_lexicon(.kwg)", load_lexicon(tmp_path / "w.kwg")
    yield "load_lexicon(word list)", load_lexicon(tmp_path / "w.txt")
    yield "pickled", pickle.loads(pickle.dumps(lex))
    yield "deep copy", copy.deepcopy(lex)
    yield "located", lex.located(tmp_path / "w.kwg")


def test_no_lexicon_array_can_be_made_writable(tmp_path):
    for how, lex in _lexicons(tmp_path):
        try:
            _assert_frozen(lex.kwg)
        except BaseException as e:
            raise AssertionError(f"Lexicon {how}: kwg can be made writable") from e


def test_a_lexicon_keeps_no_buffer_its_caller_can_still_change():
    data = bytearray(Lexicon.from_words(WORDS).tobytes())
    lex = Lexicon.from_bytes(data)
    data[:] = bytes(len(data))  # the caller's buffer, cleared: the lexicon's graph is its own
    assert "OUTGUN" in lex


def _leave_sets(tmp_path):
    rs = get_ruleset("english")
    pairs = [("S", 8.0), ("?", 25.0), ("ES", 3.0), ("Q", -7.0)]
    leaves = Leaves.from_pairs(pairs)
    data = leaves.tobytes()
    n = leaves.kwg.size
    v1 = data[: 4 + 4 * n + 4] + (leaves.values * 256).astype("<i2").tobytes()
    (tmp_path / "l.klv2").write_bytes(data)
    (tmp_path / "l.klv").write_bytes(v1)
    (tmp_path / "l.csv").write_text("".join(f"{k},{v}\n" for k, v in pairs))
    kwg_owned = leaves.kwg.copy()
    values_owned = leaves.values.copy()
    from racksmith.lexicon.shipped_leaves import load_shipped_leaves

    yield "from_pairs", leaves
    yield "from_csv_text", Leaves.from_csv_text("S,8\n?,25\n")
    yield "from_csv", Leaves.from_csv(tmp_path / "l.csv")
    yield "from_tile_rows", Leaves.from_tile_rows(np.array([[20, 0], [1, 0], [6, 20]]), np.array([8.0, 25.0, 3.0]))
    yield "owned arrays", Leaves(kwg_owned, values_owned, rs.alphabet)
    yield "from_bytes(bytes)", Leaves.from_bytes(data)
    yield "from_bytes(bytearray)", Leaves.from_bytes(bytearray(data))
    yield "load(.klv2)", Leaves.load(tmp_path / "l.klv2")
    yield "load(.klv, v1)", Leaves.load(tmp_path / "l.klv")
    yield "empty", Leaves.empty()
    yield "shipped", load_shipped_leaves("english")
    yield "pickled", pickle.loads(pickle.dumps(leaves))
    yield "deep copy", copy.deepcopy(leaves)


def test_no_leaves_array_can_be_made_writable(tmp_path):
    for how, leaves in _leave_sets(tmp_path):
        try:
            _assert_frozen(leaves.kwg, leaves.values, leaves.counts)
        except BaseException as e:
            raise AssertionError(f"Leaves {how}: an array can be made writable") from e


def test_copied_leaves_are_the_same_leaves():
    leaves = Leaves.from_pairs([("S", 8.0), ("?", 25.0), ("ES", 3.0)])
    for other in (pickle.loads(pickle.dumps(leaves)), copy.deepcopy(leaves), copy.copy(leaves)):
        assert other.items() == leaves.items()
        assert other.alphabet == leaves.alphabet and other.version == leaves.version


def test_corrupting_in_memory_graphs_is_refused_not_a_crash():
    """The audit's repro: made writable and corrupted, the arrays crashed the kernel (SIGSEGV)."""
    code = textwrap.dedent(f"""
        import numpy as np
        from racksmith import Leaves, Lexicon, Position
        lex = Lexicon.from_words({WORDS!r})
        leaves = Leaves.from_pairs([("S", 8.0), ("?", 25.0), ("ES", 3.0)])
        Position.from_cgp({CGP!r}, lexicon=lex).moves(sort="equity", leaves=leaves)
        for a in (lex.kwg, leaves.kwg, leaves.counts, leaves.values):
            try:
                a.flags.writeable = True
            except ValueError:
                continue
            a[:] = (a.view(np.uint32) & ~np.uint32(0x3FFFFF)) | np.uint32(0x3FFFFF)
        print(len(Position.from_cgp({CGP!r}, lexicon=lex).moves(sort="equity", leaves=leaves)))
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]


# --- a search left running in a daemon thread at exit ---------------------------------------------------

_AT_EXIT = """
import sys, threading, time
from racksmith import Position
pos = Position.from_cgp({cgp!r})
threading.Thread(target=lambda: {call}, daemon=True).start()
time.sleep({sleep})
print("main thread ends", flush=True)
"""


def _exit_seconds(procs: list[subprocess.Popen], limit: float) -> list[float]:
    start = time.monotonic()
    took = []
    for p in procs:
        try:
            p.wait(max(0.1, limit - (time.monotonic() - start)))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
                q.wait()
            pytest.fail(f"a process whose main thread had ended was still alive after {limit} s")
        took.append(time.monotonic() - start)
    return took


def test_a_pre_endgame_search_in_a_daemon_thread_lets_the_process_exit():
    """A ThreadPoolExecutor's queued draws were all searched at exit (minutes) before the process
    could end; the search's threads are daemon threads now, as the endgame's are."""
    calls = ["pos.solve_peg(threads=2)", "pos.best_play(None, threads=2)"]
    procs = [subprocess.Popen([sys.executable, "-c", _AT_EXIT.format(cgp=PEG, call=call, sleep=2.5)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for call in calls]
    _exit_seconds(procs, 25)
    for p in procs:
        out, err = p.communicate()
        assert "main thread ends" in out, err[-2000:]


def test_a_batch_of_draws_does_not_outlive_the_main_thread():
    """The same, deterministically: a batch of slow draws running in a daemon thread when the main
    thread ends."""
    code = textwrap.dedent("""
        import threading, time
        from racksmith.search.peg import _Solver
        solver = _Solver([object(), object()], 0.0, 1)
        started = threading.Event()
        def slow(d, search):
            started.set()
            time.sleep(0.5)
        threading.Thread(target=solver.batch, args=(slow, list(range(100))), daemon=True).start()
        started.wait(10)
        print("main thread ends", flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _exit_seconds([p], 15)
    out, err = p.communicate()
    assert "main thread ends" in out and p.returncode == 0, err[-2000:]


def test_a_batch_raises_a_draw_s_error_and_runs_every_draw():
    from racksmith.search.peg import _Solver

    solver = _Solver([object(), object(), object()], 0.0, 1)
    seen, lock = [], threading.Lock()

    def note(d, search):
        with lock:
            seen.append(d)

    solver.batch(note, list(range(50)))
    assert sorted(seen) == list(range(50))

    def fail(d, search):
        if d == 7:
            raise KeyError(d)

    with pytest.raises(KeyError):
        solver.batch(fail, list(range(50)))


# --- modules imported by several threads at once ---------------------------------------------------

_IMPORT_AT_ONCE = """
import importlib, sys, threading
import racksmith
mods = sys.argv[1:]
errors = []
for _ in range(10):  # each time afresh: the package and its modules forgotten
    package = mods[0].split(".")[0] + "." + mods[0].split(".")[1]
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]
    go = threading.Barrier(len(mods))
    def imp(m):
        go.wait()
        try:
            importlib.import_module(m)
        except Exception as e:
            errors.append((m, repr(e)))
    threads = [threading.Thread(target=imp, args=(m,)) for m in mods]
    for t in threads: t.start()
    for t in threads: t.join()
print(errors or "ok")
"""


@pytest.mark.parametrize("modules", [
    ("racksmith.training.train", "racksmith.training.games"),
    ("racksmith.training", "racksmith.training.games", "racksmith.training.leavegen", "racksmith.training.tally"),
    ("racksmith.web", "racksmith.web.server", "racksmith.web.api"),
])
def test_training_modules_import_in_several_threads_at_once(modules):
    """The package imported its modules while it was imported: with a thread importing
    racksmith.training.games directly, the import locks met in a cycle (every time)."""
    r = subprocess.run([sys.executable, "-c", _IMPORT_AT_ONCE, *modules], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "ok", r.stdout[-2000:] + r.stderr[-2000:]


def test_the_web_package_still_offers_its_names():
    import racksmith.web as web
    from racksmith.web import Analyzer, Limits, make_server  # noqa: F401
    from racksmith.web.server import AnalyzerServer

    assert web.AnalyzerServer is AnalyzerServer and set(web.__all__) <= set(dir(web))
    with pytest.raises(AttributeError):
        web.no_such_name  # noqa: B018


def test_the_training_package_still_offers_its_names():
    import racksmith.training as training
    from racksmith.training import RackTally, TrainResult, train_leaves  # noqa: F401
    from racksmith.training.train import TrainSettings

    assert training.TrainSettings is TrainSettings
    assert set(training.__all__) <= set(dir(training))
    for name in training.__all__:
        assert getattr(training, name) is not None
    with pytest.raises(AttributeError):
        training.no_such_name  # noqa: B018
