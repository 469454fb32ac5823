"""A spawned worker that dies: before racksmith ran in it (a script without the main guard) or
in its set-up (the OOM killer while it loads a lexicon, a crash). Each is told for what it is."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from racksmith.errors import WorkerError
from racksmith.play.pool import WorkerPool


def _killed(_x) -> None:
    os.kill(os.getpid(), signal.SIGKILL)  # (as the OOM killer would)


def _exits(_x) -> None:
    os._exit(3)  # (as a crash in a C extension would end it)


def test_a_worker_killed_setting_up_is_told_as_such_not_as_a_missing_main_guard():
    with pytest.raises(WorkerError) as caught:
        WorkerPool(2, initializer=_killed, initargs=(1,), start_method="spawn")
    message = str(caught.value)
    assert "killed by signal 9 while setting up" in message
    assert "out of memory?" in message
    assert "__main__" not in message and "as it started" not in message


def test_a_worker_that_exits_setting_up_gives_its_code():
    with pytest.raises(WorkerError) as caught:
        WorkerPool(1, initializer=_exits, initargs=(1,), start_method="spawn")
    message = str(caught.value)
    assert "exited with code 3 while setting up" in message
    assert "out of memory?" not in message and "__main__" not in message


def test_a_worker_killed_setting_up_with_megabytes_of_set_up():
    """The set-up bigger than a pipe holds: its send may fail as the worker dies."""
    with pytest.raises(WorkerError, match="killed by signal 9 while setting up"):
        WorkerPool(2, initializer=_killed, initargs=(b"x" * 3_000_000,), start_method="spawn")


def test_a_script_without_the_main_guard_still_gets_the_main_guard_message(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent("""
        from racksmith.play.pool import WorkerPool
        WorkerPool(1, initializer=abs, initargs=(1,), start_method="spawn")
        print("started")
        """))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, str(path)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=100, env=env)
    assert done.returncode == 1 and "started" not in done.stdout
    assert "as it started, before racksmith ran in it" in done.stderr
    assert 'if __name__ == "__main__":' in done.stderr and "while setting up" not in done.stderr


def test_a_forked_worker_killed_setting_up_is_told_as_such_not_as_dying_in_a_batch():
    """Under fork the pool does not wait for the set-up: the death is read with the first batch,
    and told as one in the set-up (the worker never said it was set up)."""
    with WorkerPool(1, initializer=_killed, initargs=(1,), start_method="fork") as pool:
        with pytest.raises(WorkerError) as caught:
            list(pool.completed(abs, [1, 2, 3]))
    message = str(caught.value)
    assert "killed by signal 9 while setting up" in message
    assert "while playing a batch" not in message


def _dies_in_batch(x: int) -> int:
    if x == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return x


def test_a_forked_worker_killed_in_a_batch_after_its_set_up_is_told_as_dying_in_a_batch():
    with WorkerPool(1, initializer=abs, initargs=(1,), start_method="fork") as pool:
        with pytest.raises(WorkerError, match="killed by signal 9 while playing a batch"):
            list(pool.completed(_dies_in_batch, [1, 2, 3]))
