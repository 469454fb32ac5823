"""A pool's process killed outright (SIGKILL: the OOM killer) while its workers are in the middle
of a batch: on Linux the workers die with it, not a batch later (before, each ran its batch to the
end, at full CPU, with no one left to read the result)."""
from __future__ import annotations

import multiprocessing
import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import process_alive

from racksmith.play import pool as pool_module

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")

#: seconds the worker's batch would take (it never looks at its pool): far more than DEADLINE
BATCH = 120
#: seconds the worker is given to be gone (generous for a loaded machine; it takes a few ms)
DEADLINE = 20

_SCRIPT = textwrap.dedent(f"""\
    import os, sys, time

    from racksmith.play.pool import WorkerPool


    def spin(seconds):
        print(os.getpid(), flush=True)
        end = time.monotonic() + seconds
        while time.monotonic() < end:  # (busy, and never reading its pipe)
            pass
        return seconds


    if __name__ == "__main__":
        with WorkerPool(1, start_method=sys.argv[1]) as pool:
            for _ in pool.completed(spin, [{BATCH}]):
                pass
""")


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_worker_in_the_middle_of_a_batch_dies_with_its_killed_pool(tmp_path, method):
    script = tmp_path / "orphan.py"
    script.write_text(_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script), method], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    worker = None
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "the worker never started its batch"
        line = proc.stdout.readline()
        assert line.strip().isdigit(), f"the script failed: {line!r}"
        worker = int(line)
        assert process_alive(worker)
        os.kill(proc.pid, signal.SIGKILL)  # (as the OOM killer would)
        proc.wait(10)
        deadline = time.monotonic() + DEADLINE
        while process_alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not process_alive(worker), "the worker outlived its pool's process"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if worker is not None and process_alive(worker):  # (the test failed: no orphan left spinning)
            os.kill(worker, signal.SIGKILL)
        proc.stdout.close()


def _late_worker(conn, parent) -> None:
    """A worker whose pool's process is ``parent``, not its own parent: as one started the moment
    its pool's process died (re-parented before it could ask to die with it)."""
    pool_module._worker(conn, _never, (), [], parent)


def _never(*_args) -> None:
    raise AssertionError("the set-up of a worker whose pool is gone ran")


def test_a_worker_whose_pool_died_before_it_asked_ends_at_once_without_setting_up():
    ctx = multiprocessing.get_context("fork")
    here, there = ctx.Pipe()
    gone = os.getpid() + 1_000_000  # (no process: pids stay below 2**22)
    p = ctx.Process(target=_late_worker, args=(there, gone))
    p.start()
    there.close()
    p.join(10)
    assert p.exitcode == 0
    with pytest.raises(EOFError):  # (it said nothing: not "ready", not the set-up's error)
        here.recv()
