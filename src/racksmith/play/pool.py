"""A pool of worker processes with no thread in this one: batches go out over a pipe a worker,
results come back over it, and this process waits on the pipes and on the workers' ends.

Why not ``concurrent.futures.ProcessPoolExecutor``: it reads results in a thread of its own, and a
worker that dies while writing one (SIGTERM or Ctrl-C reach the whole process group; the OOM
killer) leaves half a message in the pipe. That thread then waits for the rest for ever, and
``shutdown()`` (and the interpreter's exit, which joins it) with it: a run stopped by SIGTERM hung
instead of saying what it had done. Here a dead worker's pipe ends (its only writer is gone), so
half a message reads as an error at once; a stopped run kills its workers and returns.

Each worker takes its batches in order and answers each with ``("ok", result)`` or ``("error",
exception, traceback text)``; up to ``depth`` batches wait in its pipe so that it never idles
between two. Workers ignore SIGINT: Ctrl-C in a terminal reaches them too, and it is this process
that stops them (and says what was done)."""
from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import wait
from typing import Any

from ..errors import RacksmithError, WorkerError, WorkerTraceback

#: seconds a worker is given to end after being asked (then it is killed)
STOP_GRACE = 2.0


#: signal masks exist here (POSIX)
_MASKS = hasattr(signal, "pthread_sigmask")
#: in a worker process, its pipe to the pool
CONNECTION: Any = None


def _worker(conn: Any, initializer: Callable[..., None] | None, initargs: tuple, others: list) -> None:
    global CONNECTION
    CONNECTION = conn
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _MASKS:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # (blocked from its start until ignored)
    for c in others:  # (fork: the pool's ends of the pipes, its own included, copied here: they would
        c.close()     # keep the pipes open, and this worker would not see its pool's process go away)
    try:
        if initializer is not None:
            initializer(*initargs)
        while True:
            try:
                task = conn.recv()
            except EOFError:  # the pool's process went away
                return
            if task is None:
                return
            fn, arg = task
            try:
                answer: tuple = ("ok", fn(arg))
            except BaseException as e:  # (sent back: raised there as here)
                answer = ("error", _sendable(e), traceback.format_exc())
            try:
                conn.send(answer)
            except (BrokenPipeError, ConnectionResetError):
                return
            except Exception as e:  # a result or an exception that does not pickle
                if answer[0] == "ok":
                    conn.send(("error", RacksmithError(f"a worker's result could not be sent back: {e}"), ""))
                else:
                    conn.send(("error", RacksmithError(f"{type(answer[1]).__name__}: {answer[1]}"), answer[2]))
    except BaseException as e:  # (the initializer's error: the pool raises it at the first batch)
        try:
            conn.send(("error", _sendable(e), traceback.format_exc()))
        except Exception:
            pass
    finally:
        conn.close()


def _sendable(e: BaseException) -> BaseException:
    """``e``, or, when it would not arrive whole in the pool's process (an exception class whose
    arguments do not rebuild it), a RacksmithError saying what it was."""
    try:
        pickle.loads(pickle.dumps(e))
        return e
    except Exception:
        return RacksmithError(f"{type(e).__name__}: {e}")


class _Worker:
    __slots__ = ("process", "conn", "items")

    def __init__(self, process: Any, conn: Any):
        self.process = process
        self.conn = conn
        self.items: deque = deque()  # the items sent to it and not answered, in order


class WorkerPool:
    """``workers`` processes, each set up by ``initializer(*initargs)``; a context manager. Leaving
    it normally asks the workers to end; leaving it by an exception (Ctrl-C) kills them."""

    def __init__(self, workers: int, *, initializer: Callable[..., None] | None = None, initargs: tuple = (),
                 start_method: str | None = None, depth: int = 1):
        if workers < 1:
            raise RacksmithError(f"a pool needs at least one worker, got {workers}")
        ctx = multiprocessing.get_context(start_method)
        self.depth = max(1, depth)
        self._workers: list[_Worker] = []
        fork = ctx.get_start_method() == "fork"
        try:
            for _ in range(workers):
                here, there = ctx.Pipe(duplex=True)
                others = [w.conn for w in self._workers] + [here] if fork else []
                p = ctx.Process(target=_worker, args=(there, initializer, initargs, others), daemon=False,
                                name="racksmith-worker")
                # SIGINT blocked while it starts: a Ctrl-C then is this process's, never the worker's;
                # and it is delivered only once the worker is in the list that close() stops
                mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if _MASKS else None
                try:
                    try:
                        p.start()
                    finally:
                        there.close()  # (its only copy is the worker's: the pipe ends when the worker does)
                    self._workers.append(_Worker(p, here))
                finally:
                    if mask is not None:
                        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        except BaseException:
            self.close(kill=True)
            raise

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, kind: Any, *rest: Any) -> None:
        self.close(kill=kind is not None)

    def completed(self, fn: Callable[[Any], Any], items: Iterable[Any], key: Callable[[Any], Any] | None = None
                  ) -> Iterator[tuple[Any, Any]]:
        """``(item, fn(key(item)))`` for every item, as they finish (in any order); ``fn`` must be a
        module-level function. Items are read from ``items`` only as workers have room for them.
        A worker's exception is raised here (its traceback as the cause)."""
        todo = iter(items)
        arg = key or (lambda x: x)
        live = list(self._workers)
        exhausted = False

        def feed(w: _Worker, most: int = self.depth) -> None:
            nonlocal exhausted
            while not exhausted and len(w.items) < most:
                try:
                    item = next(todo)
                except StopIteration:
                    exhausted = True
                    return
                try:
                    w.conn.send((fn, arg(item)))
                except OSError:  # (BrokenPipeError: it ended: with its own error, if it said one)
                    raise self._failure(w) from None
                w.items.append(item)

        if not live:
            raise RacksmithError("this pool is closed: make another")
        for depth in range(1, self.depth + 1):  # one item to each worker before any gets a second
            for w in live:
                if len(w.items) < depth:
                    feed(w, depth)
        try:
            yield from self._answers(live, feed)
        finally:
            if any(w.items for w in live):  # left early (an error, or the caller stopped): the answers
                self.close(kill=True)       # still to come would be read as the next call's

    def _answers(self, live: list[_Worker], feed: Callable[..., None]) -> Iterator[tuple[Any, Any]]:
        while True:
            busy = [w for w in live if w.items]
            if not busy:
                return
            by_conn = {w.conn: w for w in busy}
            by_sentinel = {w.process.sentinel: w for w in busy}
            ready = wait(list(by_conn) + list(by_sentinel))
            # answers first: a worker that answered and then ended has its answer read
            for r in sorted(ready, key=lambda r: r not in by_conn):
                w = by_conn.get(r) or by_sentinel[r]
                if not w.items:
                    continue
                if r not in by_conn and not w.conn.poll():
                    raise self._died(w)
                answer = self._receive(w)
                item = w.items.popleft()
                if answer[0] == "error":
                    raise self._error(answer)
                feed(w)
                yield item, answer[1]

    def _receive(self, w: _Worker) -> tuple:
        try:
            return w.conn.recv()
        except (EOFError, OSError):
            raise self._died(w) from None
        except Exception as e:  # an answer that does not rebuild here
            raise WorkerError(f"a worker's answer could not be read: {type(e).__name__}: {e}") from None

    @staticmethod
    def _error(answer: tuple) -> BaseException:
        error = answer[1]
        if answer[2]:
            error.__cause__ = WorkerTraceback(answer[2])
        return error

    def _failure(self, w: _Worker) -> BaseException:
        """Why ``w`` ended: the error it sent (its initializer's) if it sent one, else how it died."""
        try:
            if w.conn.poll():
                answer = self._receive(w)
                if answer[0] == "error":
                    return self._error(answer)
        except (WorkerError, OSError):
            pass
        return self._died(w)

    def _died(self, w: _Worker) -> WorkerError:
        w.process.join(STOP_GRACE)
        code = w.process.exitcode
        how = (f"was killed by signal {-code}" if code is not None and code < 0 else
               f"exited with code {code}" if code is not None else "stopped answering")
        return WorkerError(f"a worker process {how} while playing a batch (out of memory? the machine's log may "
                           "say); run again, or with fewer --jobs")

    def close(self, kill: bool = False) -> None:
        """End the workers: asked to (their current batch finishes), or killed (``kill``)."""
        workers, self._workers = self._workers, []
        for w in workers:
            if kill or w.items:  # (batches still out: left by an exception)
                _signal(w.process, signal.SIGTERM)
            else:
                try:
                    w.conn.send(None)
                except (OSError, ValueError):
                    pass
        for w in workers:
            w.process.join(0.5 if kill or w.items else STOP_GRACE)
            if w.process.exitcode is None:
                _signal(w.process, signal.SIGKILL)
                w.process.join()
            w.conn.close()
            try:
                w.process.close()
            except ValueError:
                pass


def _signal(process: Any, signum: int) -> None:
    if process.pid is None or process.exitcode is not None:
        return
    try:
        os.kill(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass
