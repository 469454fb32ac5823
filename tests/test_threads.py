"""First use from several threads at once: one import, one lexicon, one leave set, one set of tables."""
from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest


def _at_once(n: int, job) -> list:
    go = threading.Barrier(n)
    out: list = [None] * n

    def run(i: int) -> None:
        go.wait()
        out[i] = job()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_the_searches_are_imported_with_the_package():
    """Imported lazily, an endgame and a simulation started by two threads at once imported
    racksmith.search and racksmith.sim concurrently, and Python's import locks met in a cycle
    (_DeadlockError, half the time in a fresh interpreter)."""
    code = ("import sys, racksmith; "
            "print(all(m in sys.modules for m in ('racksmith.search.endgame', 'racksmith.search.peg', "
            "'racksmith.search.player', 'racksmith.sim.simulate', 'racksmith.sim.infer', 'racksmith.sim.player', 'racksmith.sim.winpct')))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "True"


def test_shipped_leaves_load_once_for_threads_asking_at_once(monkeypatch):
    from racksmith import default_leaves, load_leaves
    from racksmith.lexicon import shipped_leaves

    monkeypatch.setattr(shipped_leaves, "_cache", {})
    got = _at_once(4, lambda: load_leaves("english"))
    assert all(g is got[0] for g in got) and default_leaves("english") is got[0]


def test_an_embedded_lexicon_compiles_once_for_threads_asking_at_once(monkeypatch, tmp_path):
    from racksmith.lexicon import load as load_mod

    monkeypatch.setattr(load_mod, "_loaded", {})
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path))  # compiled, not read from a warm cache
    got = _at_once(4, lambda: load_mod.load_embedded("ru"))
    assert all(g is got[0] for g in got)


def test_move_tables_are_built_once_for_threads_asking_at_once(monkeypatch):
    from racksmith import Position
    from racksmith.movegen import generate

    monkeypatch.setattr(generate, "_rules_cache", type(generate._rules_cache)())
    monkeypatch.setattr(generate, "_tables_cache", type(generate._tables_cache)())
    monkeypatch.setattr(generate, "_last", (None, None, None, None))  # the tables used last, by identity
    built = []
    real = generate._new_rules

    def counting(*args):
        built.append(1)
        return real(*args)

    monkeypatch.setattr(generate, "_new_rules", counting)
    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0")
    got = _at_once(4, lambda: [m.notation() for m in pos.copy().moves(top=3)])
    assert len(built) == 1 and all(g == got[0] for g in got)


def test_a_stopped_search_that_starts_its_next_depth_is_stopped_again():
    """run_interruptibly called stop() once, then waited: a search whose next depth began after
    that call (resetting its stop flag) ran that whole depth on, after Ctrl-C or a cancel."""
    from racksmith._interrupt import run_interruptibly

    flag = threading.Event()
    outcome: list[str] = []

    def work() -> None:
        began = time.monotonic()
        reset = False
        while True:
            if flag.is_set():
                if not reset:  # the next depth begins: its stop flag starts clear
                    reset = True
                    flag.clear()
                    continue
                outcome.append("stopped")
                return
            if time.monotonic() - began > 20:
                outcome.append("ran on")
                return
            time.sleep(0.002)

    cancel = threading.Event()
    cancel.set()
    with pytest.raises(RuntimeError, match="cancelled"):
        run_interruptibly(work, flag.set, "test-search", cancel)
    assert outcome == ["stopped"]
