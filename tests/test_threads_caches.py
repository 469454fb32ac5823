"""Threads asking at once for a built-in ruleset, or loading the same file (a KWG, a KLV2 leave
file, a win% table, a ruleset file) again and again: one object for all, so that the move
generator, keyed by the object, builds its tables once."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from importlib import resources

import pytest

from racksmith import Lexicon, Leaves, load_leaves, load_lexicon
from racksmith.lexicon import klv, load
from racksmith.rules import ruleset as ruleset_mod
from racksmith.rules.ruleset import Ruleset
from racksmith.sim import winpct
from racksmith.sim.winpct import WinPct, load_winpct
from conftest import switching_often


def _at_once(n: int, job) -> list:
    """``job(i)`` of ``n`` threads started together, with the interpreter switching threads as
    often as it can; what each returned."""
    go = threading.Barrier(n)
    out: list = [None] * n
    errors: list = []

    def run(i: int) -> None:
        try:
            go.wait()
            out[i] = job(i)
        except BaseException as e:  # (said by the test, not lost in a thread)
            errors.append(e)

    with switching_often():
        threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors
    return out


_FIRST_RULESETS = """
import json, sys, threading
sys.setswitchinterval(1e-6)
from racksmith import get_ruleset
from racksmith.rules.ruleset import BUILTIN, available_rulesets
N = 8
go = threading.Barrier(N)
out = [None] * N
def run(i):
    go.wait()
    names = BUILTIN[i % len(BUILTIN):] + BUILTIN[:i % len(BUILTIN)]  # (each thread its own order)
    out[i] = {name: get_ruleset(name) for name in names}
threads = [threading.Thread(target=run, args=(i,)) for i in range(N)]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({name: [len({id(o[name]) for o in out}), all(o[name] is get_ruleset(name) for o in out),
                         any(r is out[0][name] for r in available_rulesets())] for name in BUILTIN}))
"""


@pytest.mark.parametrize("attempt", range(3))
def test_threads_asking_at_once_for_a_built_in_ruleset_get_one_object(attempt):
    """In a fresh interpreter (this one has built them): 8 threads asking at once for each built-in
    ruleset each got their own Ruleset (an lru_cache builds for each thread that misses), and the
    move tables, keyed by the ruleset object, were built for each."""
    done = subprocess.run([sys.executable, "-c", _FIRST_RULESETS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {name: [1, True, True] for name in ("english", "russian", "erudit", "super")}


@pytest.fixture
def files(tmp_path):
    """A KWG, a KLV2 leave file, a win% table and a ruleset file, each small (read again at once)."""
    kwg = tmp_path / "words.kwg"
    Lexicon.from_words(["CARE", "RACE", "ACRE", "CARES", "RACES", "SCARE"], "english").save(kwg)
    klv2 = tmp_path / "leaves.klv2"
    Leaves.from_pairs([("S", 8.0), ("?", 25.0), ("Q", -7.0)], "english").save(klv2)
    table = tmp_path / "mine.winpct"
    table.write_text((resources.files("racksmith.sim") / "data" / "english.winpct").read_text("ascii"), "ascii")
    toml = tmp_path / "mine.toml"
    shutil.copyfile(str(resources.files("racksmith.rules") / "rulesets" / "english.toml"), toml)
    return {"kwg": lambda: load_lexicon(str(kwg), "english"),
            "klv2": lambda: load_leaves(str(klv2), "english"),
            "winpct": lambda: load_winpct(str(table)),
            "ruleset": lambda: Ruleset.load(toml)}


_CACHES = {"kwg": load, "klv2": klv, "winpct": winpct, "ruleset": ruleset_mod}


@pytest.fixture
def fresh(monkeypatch):
    """Empty caches of files read (of the type the modules keep)."""
    for module in _CACHES.values():
        monkeypatch.setattr(module, "_from_files", type(module._from_files)())


@pytest.mark.parametrize("kind", ["kwg", "klv2", "winpct", "ruleset"])
def test_threads_loading_a_file_loaded_before_get_the_object_loaded(files, fresh, kind):
    """The cache made an entry the most recently used by taking it out and putting it back: a
    thread looking for it in between missed, read the file again and got another object (with
    its own move tables: 306 MB instead of 113 MB for a bot's 4 threads loading ENABLE's KWG)."""
    first = files[kind]()
    loads = {"kwg": 3000, "klv2": 3000, "winpct": 20000, "ruleset": 3000}[kind]

    def job(i: int) -> int:
        return sum(files[kind]() is not first for _ in range(loads))

    assert _at_once(4, job) == [0, 0, 0, 0]
    assert files[kind]() is first and list(_CACHES[kind]._from_files.values()) == [first]


@pytest.mark.parametrize("kind", ["kwg", "klv2", "winpct", "ruleset"])
def test_threads_reading_a_file_at_once_get_one_object(files, fresh, monkeypatch, kind):
    """Threads that found nothing at once each read the file; each got its own object (the last
    stored kept), where they get the one stored first."""
    n = 4
    inside = threading.Barrier(n, timeout=10)

    def slowed(real):
        def read(*args, **kwargs):
            inside.wait()  # (every thread is reading the file at once)
            return real(*args, **kwargs)
        return read

    if kind == "kwg":
        monkeypatch.setattr(load, "_read_kwg", slowed(load._read_kwg))
    elif kind == "klv2":
        monkeypatch.setattr(Leaves, "load", classmethod(slowed(Leaves.load.__func__)))
    elif kind == "winpct":
        monkeypatch.setattr(WinPct, "load", classmethod(slowed(WinPct.load.__func__)))
    else:
        monkeypatch.setattr(ruleset_mod, "_read_ruleset_file", slowed(ruleset_mod._read_ruleset_file))
    got = _at_once(n, lambda i: files[kind]())
    assert len({id(o) for o in got}) == 1
    assert files[kind]() is got[0] and list(_CACHES[kind]._from_files.values()) == [got[0]]


def test_clear_caches_while_another_thread_reads_files_never_fails_the_read(tmp_path):
    """keep stored an entry, then made it the most recently used: a clear_caches() from another
    thread between the two made the read raise a bare KeyError (Ruleset.load, load_lexicon...)."""
    import time

    from racksmith import clear_caches

    source = resources.files("racksmith.rules") / "rulesets" / "english.toml"
    paths = []
    for i in range(12):  # (twelve files, more than the cache keeps: every read a miss)
        paths.append(tmp_path / f"r{i}.toml")
        shutil.copyfile(str(source), paths[-1])
    stop = time.monotonic() + 4.0
    errors: list = []

    def read() -> None:
        try:
            while time.monotonic() < stop:
                for p in paths:
                    assert Ruleset.load(p).name == "english"
        except BaseException as e:  # (said by the test, not lost in a thread)
            errors.append(e)

    with switching_often():
        reader = threading.Thread(target=read)
        reader.start()
        while reader.is_alive():
            ruleset_mod._from_files.clear()  # (what clear_caches does to the rulesets read)
            clear_caches()
        reader.join()
    assert errors == []


def _in_a_child(work) -> int:
    """Fork; the child runs ``work()`` and exits 0 (1 if it raised); its exit code, or -1 when it
    was still running after 10 s (waiting for ever on a lock: killed)."""
    import os
    import signal
    import time

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            work()
            code = 0
        finally:
            os._exit(code)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return -1


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_child_forked_while_another_thread_holds_a_cache_lock_does_not_wait_for_ever(tmp_path, monkeypatch):
    """A pool worker is forked: a lock another thread of the parent held at that moment (storing a
    file's object, building a built-in ruleset, setting a job up, publishing a list's position)
    was held for ever in the child, which waited on it for ever. Each lock is held here by a thread
    while the test forks; the child does what takes it."""
    from racksmith import Position, _cache
    from racksmith.movegen import movelist
    from racksmith.play import backends

    toml = tmp_path / "mine.toml"
    shutil.copyfile(str(resources.files("racksmith.rules") / "rulesets" / "english.toml"), toml)

    class Job:
        def setup(self):
            return "state"

    moves = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0").moves(top=3)
    works = {
        "_cache._lock": (lambda: _cache._lock, lambda: Ruleset.load(toml)),
        "ruleset._built_lock": (lambda: ruleset_mod._built_lock,
                                lambda: (ruleset_mod._built.clear(), ruleset_mod.get_ruleset("russian"))),
        "backends._STATES_LOCK": (lambda: backends._STATES_LOCK, lambda: backends._state(Job())),
        "movelist._POSITION_LOCK": (lambda: movelist._POSITION_LOCK, lambda: moves.position),
    }
    codes = {}
    for name, (lock, work) in works.items():
        held, release = threading.Event(), threading.Event()

        def hold(lock=lock()) -> None:
            with lock:
                held.set()
                release.wait(20)

        holder = threading.Thread(target=hold)
        holder.start()
        held.wait(5)
        try:
            codes[name] = _in_a_child(work)
        finally:
            release.set()
            holder.join()
    assert codes == dict.fromkeys(works, 0)  # (-1: the child waited for ever)
