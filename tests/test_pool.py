"""The worker pool behind --jobs: results as the batches finish, a worker's error raised here, and
a worker that dies (even half-way through writing its answer) or a Ctrl-C never leaves the run
hanging — what concurrent.futures' pool did when SIGTERM reached its workers."""
from __future__ import annotations

import os
import signal
import struct
import time

import pytest

from racksmith.errors import RacksmithError
from racksmith.play import pool as pool_module
from racksmith.errors import WorkerError, WorkerTraceback
from racksmith.play.pool import WorkerPool

_SETUP: list[int] = []


def _init(x: int) -> None:
    _SETUP.append(x)


def _square(n: int) -> tuple[int, int, int]:
    return n * n, os.getpid(), _SETUP[-1]


def _fails(n: int) -> int:
    if n == 5:
        raise RacksmithError(f"batch {n} is bad")
    return n


def _killed(n: int) -> int:
    if n == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.01)
    return n


def _half_an_answer(n: int) -> int:
    """Write the start of an answer (a length and ten of its 1,000 bytes) and die, as a worker
    stopped by SIGTERM in the middle of sending its result does."""
    if n == 2:
        os.write(pool_module.CONNECTION.fileno(), struct.pack("!i", 1000) + b"x" * 10)
        os._exit(1)
    return n


def _slow(n: int) -> int:
    time.sleep(0.05)
    return n


class _Counted:
    """An iterable that records how many items were read from it."""

    def __init__(self, n: int):
        self.n, self.read = n, 0

    def __iter__(self):
        for i in range(self.n):
            self.read += 1
            yield i


def test_every_item_comes_back_once_set_up_in_each_worker_and_read_only_as_workers_have_room():
    items = _Counted(60)
    seen = {}
    with WorkerPool(2, initializer=_init, initargs=(7,), depth=2) as pool:
        for item, (sq, pid, setup) in pool.completed(_square, items):
            if not seen:
                assert items.read <= 2 * 2 + 1  # two workers, two batches each, and the one in place of the first back
            seen[item] = (sq, pid, setup)
    assert sorted(seen) == list(range(60)) and all(sq == i * i and s == 7 for i, (sq, _, s) in seen.items())
    assert len({pid for _, pid, _ in seen.values()}) == 2 and os.getpid() not in {p for _, p, _ in seen.values()}


def test_key_gives_the_argument_and_the_item_comes_back_whole():
    with WorkerPool(2) as pool:
        out = dict(pool.completed(_slow, [("a", 1), ("b", 2), ("c", 3)], key=lambda kv: kv[1]))
    assert out == {("a", 1): 1, ("b", 2): 2, ("c", 3): 3}


def test_a_workers_exception_is_raised_here_with_its_traceback_as_the_cause():
    with pytest.raises(RacksmithError, match="batch 5 is bad") as info:
        with WorkerPool(2) as pool:
            for _ in pool.completed(_fails, range(20)):
                pass
    assert isinstance(info.value.__cause__, WorkerTraceback) and "_fails" in str(info.value.__cause__)


@pytest.mark.parametrize("fn", [_killed, _half_an_answer], ids=["killed", "died-writing-its-answer"])
def test_a_worker_that_dies_is_an_error_at_once_not_a_hang(fn):
    t0 = time.monotonic()
    with pytest.raises(WorkerError, match=r"a worker process (was killed by signal 9|exited with code 1)"):
        with WorkerPool(2) as pool:
            for _ in pool.completed(fn, range(50)):
                pass
    assert time.monotonic() - t0 < 30  # (a hang would be stopped by the suite's timeout long before)


def test_an_interrupt_while_waiting_kills_the_workers_and_returns():
    pool = WorkerPool(2)
    procs = [w.process for w in pool._workers]
    with pytest.raises(KeyboardInterrupt):
        with pool:
            for i, _ in enumerate(pool.completed(_slow, range(1000))):
                if i == 3:
                    raise KeyboardInterrupt
    assert pool._workers == []
    for p in procs:
        with pytest.raises(ValueError):  # (closed: it was joined)
            p.exitcode


def test_workers_end_when_the_pool_is_left_and_ignore_ctrl_c():
    with WorkerPool(2) as pool:
        procs = [w.process for w in pool._workers]
        pids = [p.pid for p in procs]
        for pid in pids:
            os.kill(pid, signal.SIGINT)  # (a terminal's Ctrl-C reaches the whole group: the pool stops them)
        assert sorted(x for x, _ in pool.completed(_slow, range(6))) == list(range(6))
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_pool_needs_a_worker():
    with pytest.raises(RacksmithError, match="at least one worker"):
        WorkerPool(0)
