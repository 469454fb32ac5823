"""The pool under the 'spawn' start method (macOS's and Windows' default), and a pool kept across
jobs (``broadcast``): what a spawned worker gets before racksmith runs in it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from racksmith.errors import RacksmithError
from racksmith.play.pool import WorkerPool

_SETUP: list = []


def _init(x) -> None:
    _SETUP.append(x)


def _report(n: int) -> tuple:
    return n, os.getpid(), _SETUP[-1] if _SETUP else None


def _set(x) -> None:
    if x == "bad":
        raise RacksmithError("this set-up is bad")
    _SETUP.append(x)


def _run(script: str, tmp_path, timeout: float = 120) -> subprocess.CompletedProcess:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(script))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.run([sys.executable, str(path)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_a_spawned_pool_gets_big_initargs_and_answers(tmp_path):
    big = b"x" * 3_000_000  # (more than a pipe holds: it used to go with the process, written as it started)
    with WorkerPool(2, initializer=_init, initargs=(big,), start_method="spawn") as pool:
        out = sorted((n, len(s)) for _, (n, _, s) in pool.completed(_report, range(6)))
    assert out == [(n, 3_000_000) for n in range(6)]


@pytest.mark.parametrize("size", [3_000_000, 2], ids=["megabytes", "small"])
def test_a_script_without_a_main_guard_gets_an_error_not_a_hang(tmp_path, size):
    """A spawned worker imports the script as its main module; without the guard it fails there
    (multiprocessing's RuntimeError) and dies. Its start used to wait for ever, writing megabytes
    of set-up to a pipe nobody read; a small set-up went through, and the death was told as a
    batch's ("out of memory?")."""
    done = _run(f"""
        from racksmith.play.pool import WorkerPool
        from racksmith.play.backends import _pool_init, _pool_run
        with WorkerPool(2, initializer=_pool_init, initargs=(b"x" * {size},), start_method="spawn") as pool:
            pass
        print("started")
        """, tmp_path, timeout=100)
    assert done.returncode == 1
    assert "as it started" in done.stderr and 'if __name__ == "__main__":' in done.stderr
    assert "started" not in done.stdout


def test_a_ctrl_c_while_a_spawned_worker_imports_is_not_its_traceback(tmp_path):
    """A Ctrl-C reaches the whole process group. A spawned worker imports the main module first;
    this one waits there (as racksmith's import takes a second) until the Ctrl-C has been sent.
    The worker must be deaf to it from its start (before, it printed a KeyboardInterrupt
    traceback and died), and this process must still get it (here a handler that only counts)."""
    ready = tmp_path / "importing"
    sent = tmp_path / "sent"
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(f"""
        import pathlib, signal, sys, time
        if __name__ == "__mp_main__":  # (the worker's import of this script)
            pathlib.Path({str(ready)!r}).write_text("1")
            for _ in range(400):
                if pathlib.Path({str(sent)!r}).exists():
                    break
                time.sleep(0.01)
            time.sleep(0.3)  # (the signal arrives)
        if __name__ == "__main__":
            from racksmith.play.pool import WorkerPool
            got = []
            signal.signal(signal.SIGINT, lambda *_: got.append(1))
            with WorkerPool(2, initargs=(), start_method="spawn") as pool:
                print(sorted(r for _, r in pool.completed(abs, [-1, -2, -3])), len(got))
        """))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    p = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.01)
        assert ready.exists()
        os.killpg(p.pid, signal.SIGINT)
        sent.write_text("1")
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert "KeyboardInterrupt" not in err and "Traceback" not in err, err
    assert p.returncode == 0 and out == "[1, 2, 3] 1\n"


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_broadcast_sets_up_the_same_workers_again(method):
    with WorkerPool(2, initializer=_init, initargs=("first",), start_method=method) as pool:
        before = {pid for _, (_, pid, s) in pool.completed(_report, range(4)) if s == "first"}
        pool.broadcast(_set, "second")
        after = list(pool.completed(_report, range(8)))
    assert len(before) == 2
    assert {pid for _, (_, pid, _) in after} == before and {s for _, (_, _, s) in after} == {"second"}


def test_a_broadcast_error_is_raised_and_closes_the_pool():
    pool = WorkerPool(2, initializer=_init, initargs=(1,))
    with pytest.raises(RacksmithError, match="this set-up is bad"):
        pool.broadcast(_set, "bad")
    with pytest.raises(RacksmithError, match="closed"):
        list(pool.completed(_report, range(2)))


def test_a_spawned_worker_s_set_up_error_is_raised_as_the_pool_starts():
    with pytest.raises(RacksmithError, match="this set-up is bad"):
        WorkerPool(1, initializer=_set, initargs=("bad",), start_method="spawn")
