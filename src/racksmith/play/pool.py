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
that stops them (and says what was done).

A worker sees its pool's process go away only at its next read of the pipe, after its batch: a
pool's process killed outright (SIGKILL: the OOM killer) would leave its workers running a batch
each, for up to a batch's time. On Linux each therefore asks the kernel to kill it (SIGKILL) when
the process that started it dies: :func:`_die_with`."""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
import sys
import threading
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


#: prctl's option that sets the signal a process gets when its parent dies (linux/prctl.h)
_PR_SET_PDEATHSIG = 1


def _die_with(parent: int | None) -> bool:
    """Have this worker killed (SIGKILL) when its pool's process, ``parent``, dies (Linux; None or
    another system: nothing done). False when that process is already gone. SIGKILL, not SIGTERM:
    the batch's result has no one left to read it, and a Python handler of SIGTERM (one a program
    set before it forked) would run only once a kernel that holds no GIL returned, the wait this is
    for. The kernel sends it when the *thread* that started the worker ends: the pool only asks for
    it when started from the main thread (:meth:`WorkerPool.__init__`), which lasts as long as the
    process. The parent may have died before the request: then this worker's parent is another
    process already (init, or a subreaper), which is checked after it."""
    if parent is None or not sys.platform.startswith("linux"):
        return True
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # (no C library to be found, or no prctl in it: as elsewhere)
        pass
    return os.getppid() == parent


def _worker(conn: Any, initializer: Callable[..., None] | None, initargs: tuple | None, others: list,
            parent: int | None = None) -> None:
    global CONNECTION
    CONNECTION = conn
    if not _die_with(parent):  # (the pool's process died as this one started: nothing to do)
        for c in [conn, *others]:
            c.close()
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _MASKS:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # (blocked from its start until ignored)
    for c in others:  # (fork: the pool's ends of the pipes, its own included, copied here: they would
        c.close()     # keep the pipes open, and this worker would not see its pool's process go away)
    try:
        spawned = initargs is None
        if spawned:  # (a spawned worker: they come first over the pipe)
            # said first: racksmith runs here, so the main module imported (a script without the
            # main guard dies before this); a death from now on is one in the set-up
            conn.send(("started", None))
            try:
                initargs = conn.recv()
            except EOFError:
                return
        if initializer is not None:
            initializer(*initargs)
        # set up: a spawned worker's pool waits for it (a worker that died starting is told apart);
        # a forked one's reads it with its first answer (a death before it is one in the set-up)
        conn.send(("ready", None))
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
    __slots__ = ("process", "conn", "items", "ready")

    def __init__(self, process: Any, conn: Any):
        self.process = process
        self.conn = conn
        self.items: deque = deque()  # the items sent to it and not answered, in order
        self.ready = False  # its set-up done (it said "ready")


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
        # the process whose death kills the workers (_die_with): this one, when it starts them
        # itself (not through a forkserver) from its main thread (the kernel tells the death of
        # the thread that forked: another thread may end while the pool lives on)
        parent = (os.getpid() if ctx.get_start_method() in ("fork", "spawn")
                  and threading.current_thread() is threading.main_thread() else None)
        try:
            for _ in range(workers):
                here, there = ctx.Pipe(duplex=True)
                others = [w.conn for w in self._workers] + [here] if fork else []
                # a spawned worker gets initargs over its pipe once all have started: written with the
                # process (a lexicon is megabytes) they made start() wait for the worker to import
                # racksmith and read them, one worker after another, deaf to Ctrl-C, and for ever when
                # it died first (a script without `if __name__ == "__main__":`)
                p = ctx.Process(target=_worker, args=(there, initializer, initargs if fork else None, others, parent),
                                daemon=False, name="racksmith-worker")
                try:
                    with _starting(fork):
                        p.start()
                finally:
                    there.close()  # (its only copy is the worker's: the pipe ends when the worker does)
                self._workers.append(_Worker(p, here))
            if not fork:
                for w in self._workers:
                    try:
                        w.conn.send(initargs)
                    except OSError:  # (it died: why, from what it said before)
                        raise self._set_up(w) or self._died(w, "set-up") from None
                for w in self._workers:  # each set up (its initializer's error is raised here)
                    error = self._set_up(w)
                    if error is not None:
                        raise error
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
                if answer[0] == "ready":  # (a forked worker's set-up done: its answer comes next)
                    w.ready = True
                    continue
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

    def _set_up(self, w: _Worker) -> BaseException | None:
        """Wait for spawned worker ``w`` to be set up; None once it is, else why not. It says
        "started" once racksmith runs in it, then "ready" (or its initializer's error). A death is
        told by when it came: before "started" (the main module's import failed: no main guard?)
        or after (in its set-up: a lexicon too big for the memory left?)."""
        stage = "start"
        while True:
            try:
                answer = w.conn.recv()
            except (EOFError, OSError):
                return self._died(w, stage)
            except Exception as e:  # an answer that does not rebuild here
                return WorkerError(f"a worker's answer could not be read: {type(e).__name__}: {e}")
            if answer[0] == "error":
                return self._error(answer)
            if answer[0] != "started":  # ready
                w.ready = True
                return None
            stage = "set-up"

    def _failure(self, w: _Worker) -> BaseException:
        """Why ``w`` ended: the error it sent (its initializer's) if it sent one, else how it died."""
        try:
            while w.conn.poll():
                answer = self._receive(w)
                if answer[0] == "error":
                    return self._error(answer)
                w.ready = w.ready or answer[0] == "ready"
        except (WorkerError, OSError):
            pass
        return self._died(w)

    def _died(self, w: _Worker, stage: str = "batch") -> WorkerError:
        """How ``w`` died, by ``stage``: "start" (a spawned worker before racksmith ran in it),
        "set-up" (reading its set-up or running its initializer) or "batch"."""
        if stage == "batch" and not w.ready:  # (a forked worker that never said it was set up)
            stage = "set-up"
        w.process.join(STOP_GRACE)
        code = w.process.exitcode
        how = (f"was killed by signal {-code}" if code is not None and code < 0 else
               f"exited with code {code}" if code is not None else "stopped answering")
        if stage == "start":  # (the interpreter or the main module's import failed)
            return WorkerError(f"a worker process {how} as it started, before racksmith ran in it (its error is "
                               "above, on stderr): a script that starts workers under the 'spawn' start method "
                               "(macOS's and Windows' default) must run its code under "
                               "`if __name__ == \"__main__\":`, as multiprocessing requires")
        if stage == "set-up":
            why = ("out of memory? the machine's log may say" if code == -signal.SIGKILL else
                   "its error may be above, on stderr")
            return WorkerError(f"a worker process {how} while setting up, before any batch ({why}); run again, "
                               "or with fewer --jobs")
        return WorkerError(f"a worker process {how} while playing a batch (out of memory? the machine's log may "
                           "say); run again, or with fewer --jobs")

    def broadcast(self, fn: Callable[[Any], Any], arg: Any) -> None:
        """Run ``fn(arg)`` once in every worker (a module-level function), waiting for all; the
        first error is raised here. Between two calls of :meth:`completed` (no batch out): a
        training's next generation sets its workers up for another job this way, the same
        processes kept."""
        if not self._workers:
            raise RacksmithError("this pool is closed: make another")
        if any(w.items for w in self._workers):
            raise RacksmithError("broadcast while batches are out")
        try:
            for w in self._workers:
                try:
                    w.conn.send((fn, arg))
                except OSError:
                    raise self._failure(w) from None
                w.items.append(None)
            errors = []
            for w in self._workers:
                answer = self._receive(w)
                while answer[0] == "ready":  # (a forked worker's set-up done, said before its answer)
                    w.ready = True
                    answer = self._receive(w)
                w.items.popleft()
                if answer[0] == "error":
                    errors.append(self._error(answer))
            if errors:
                raise errors[0]
        except BaseException:
            self.close(kill=True)
            raise

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


@contextlib.contextmanager
def _starting(fork: bool) -> Iterator[None]:
    """Around a worker's start: SIGINT blocked, so that a Ctrl-C then is this process's, delivered
    once the worker is in the list that close() stops. A forked worker inherits the mask and
    ignores SIGINT before it unblocks it. A spawned one is a new interpreter, which would take a
    Ctrl-C during its first second (importing racksmith) as a KeyboardInterrupt with a traceback:
    it is started with SIGINT ignored (inherited through exec, and kept by Python), which needs
    this process's handler set aside for that moment (the main thread only). A Ctrl-C then stays
    pending under the mask (Linux), delivered when the handler is back."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if _MASKS else None
    handler = None
    try:
        if not fork and threading.current_thread() is threading.main_thread():
            handler = signal.getsignal(signal.SIGINT)
            if handler is not None:  # (None: set outside Python, which could not be put back)
                signal.signal(signal.SIGINT, signal.SIG_IGN)
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _signal(process: Any, signum: int) -> None:
    if process.pid is None or process.exitcode is not None:
        return
    try:
        os.kill(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass
