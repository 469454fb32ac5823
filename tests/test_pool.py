"""The worker pool behind --jobs: results as the batches finish, a worker's error raised here, and
a worker that dies (even half-way through writing its answer) or a Ctrl-C never leaves the run
hanging — what concurrent.futures' pool did when SIGTERM reached its workers."""
from __future__ import annotations

import os
import signal
import struct
import time

import pytest

from conftest import process_alive

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


def _illegal(n: int) -> int:
    from racksmith.errors import IllegalMoveError

    raise IllegalMoveError("not_in_rack", f"batch {n}: the play needs tiles the rack does not hold", ("QI",))


def _init_fails() -> None:
    raise FileNotFoundError("no such lexicon: nowhere.kwg")


def _sleep_a_second(n: int) -> tuple[int, int]:
    time.sleep(1.0)
    return n, os.getpid()


def test_an_error_with_its_own_fields_arrives_whole():
    """An IllegalMoveError (reason, message, words) raised in a worker is the same error here (it
    arrived as a TypeError of its constructor: exceptions are pickled by their arguments)."""
    from racksmith.errors import IllegalMoveError

    with pytest.raises(IllegalMoveError) as info:
        with WorkerPool(2) as pool:
            list(pool.completed(_illegal, [1]))
    e = info.value
    assert (e.reason, e.words, str(e)) == ("not_in_rack", ("QI",), "batch 1: the play needs tiles the rack does not hold")


def test_an_initializer_s_error_is_raised_as_itself_however_fast_it_fails():
    for _ in range(3):
        pool = WorkerPool(2, initializer=_init_fails)
        time.sleep(0.3)  # (the workers have failed and ended before the first batch is sent)
        with pytest.raises(FileNotFoundError, match="no such lexicon"):
            with pool:
                list(pool.completed(_square, range(4)))


def test_batches_go_to_idle_workers_first():
    """Four one-second batches on four workers take about a second, one a worker (two a worker
    at a time took two seconds on two of them)."""
    with WorkerPool(4) as pool:
        out = dict(pool.completed(_sleep_a_second, range(4)))
    assert len({pid for _, pid in out.values()}) == 4


def test_a_pool_left_early_is_closed_not_reused_with_stale_answers():
    pool = WorkerPool(2)
    procs = [w.process for w in pool._workers]
    it = pool.completed(_slow, ["a", "b", "c"])
    next(it)
    it.close()  # the caller stopped reading: the answers still to come are not the next call's
    with pytest.raises(RacksmithError, match="this pool is closed"):
        list(pool.completed(_slow, ["x"]))
    for p in procs:
        with pytest.raises(ValueError):  # (closed: joined)
            p.exitcode


def _orphan_parent(conn) -> None:
    with WorkerPool(2) as pool:
        conn.send([w.process.pid for w in pool._workers])
        conn.close()
        os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer would


def test_workers_end_when_their_pool_s_process_is_killed():
    """(fork: each worker closed its copy of its own pipe's other end, so it sees the pool's
    process go away; before, workers of a killed process lived on for ever)"""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    here, there = ctx.Pipe()
    parent = ctx.Process(target=_orphan_parent, args=(there,))
    parent.start()
    pids = here.recv()
    parent.join(10)
    deadline = time.monotonic() + 10
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [p for p in pids if process_alive(p)]
        time.sleep(0.05)
    assert alive == []
