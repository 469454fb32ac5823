"""Long kernel calls that Ctrl-C can stop: the call runs on a thread of its own while the caller's
thread waits in short joins, where Python delivers KeyboardInterrupt; the kernel is then told to
stop, and the interrupt raised once it has."""
from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

#: seconds a thread being started may take to run its first line before it is taken as one that
#: never will (its start failed inside the new thread: memory ran out as it began)
START_WAIT = 10.0


class _Started(threading.Event):
    """A thread's "started" event whose untimed wait (the one ``Thread.start`` makes) gives up
    after :data:`START_WAIT` seconds: Python 3.11 waits forever for a thread whose start failed in
    the new thread itself (a MemoryError under ``ulimit -v`` before its first line), so a command
    hung instead of saying it ran out of memory."""

    def wait(self, timeout: "float | None" = None) -> bool:
        if timeout is not None:
            return super().wait(timeout)
        if super().wait(START_WAIT):
            return True
        raise RuntimeError("can't start new thread (it never ran: memory ran out as it began)")


def start_daemon(target: Callable[[], Any], name: str) -> threading.Thread:
    """``threading.Thread(target=target, name=name, daemon=True).start()``, except that a thread
    that never starts raises ``RuntimeError("can't start new thread ...")`` in the caller (after
    :data:`START_WAIT` seconds) rather than hanging it; if it starts after all, later, it does
    nothing."""
    gate = threading.Lock()
    given_up: list[bool] = []

    def run() -> None:
        with gate:
            if given_up:
                return
        target()

    thread = threading.Thread(target=run, name=name, daemon=True)
    if isinstance(getattr(thread, "_started", None), threading.Event):  # (Python's own attribute)
        thread._started = _Started()  # type: ignore[attr-defined]
    try:
        thread.start()
    except RuntimeError:
        with gate:
            given_up.append(True)
        raise
    return thread


def run_interruptibly(work: Callable[[], T], stop: Callable[[], Any], name: str,
                      cancel: "threading.Event | None" = None,
                      cancelled: "Callable[[], BaseException] | None" = None) -> T:
    """``work()`` on a daemon thread named ``name``; on KeyboardInterrupt in the caller's thread,
    ``stop()`` (which must make ``work`` return soon), then the interrupt. ``work``'s exception,
    if any, is raised in the caller's thread. ``cancel`` set (another thread's say) stops it the
    same way and raises ``cancelled()``."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = work()
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    def stop_until_done() -> None:
        # again every tenth of a second: a search that began after a call (the next depth of the
        # endgame) resets its stop flag, and the next call reaches it
        while True:
            stop()
            worker.join(0.1)
            if not worker.is_alive():
                return

    worker = start_daemon(run, name)
    try:
        while worker.is_alive():
            worker.join(0.05)
            if cancel is not None and cancel.is_set() and worker.is_alive():
                stop_until_done()
                raise cancelled() if cancelled is not None else RuntimeError(f"{name} was cancelled")
    except KeyboardInterrupt:
        stop_until_done()
        raise
    if "error" in box:
        raise box["error"]
    return box["result"]


def check_event(cancel: Any, error: type[Exception]) -> None:
    """Refuse with ``error`` a ``cancel`` that is neither None, a ``threading.Event``, nor an object
    that has what the watching thread of :func:`cancelling` calls: ``is_set()`` and ``wait(timeout)``
    (a ``multiprocessing`` event has them; an ``asyncio.Event``, whose ``wait`` is a coroutine
    taking no timeout, has not)."""
    if cancel is None or isinstance(cancel, threading.Event) or _waits_with_timeout(cancel):
        return
    from . import _args

    raise error(f"cancel must be a threading.Event (or an object with is_set() and wait(timeout)) or None, "
                f"got {_args.show(cancel)}")


def _waits_with_timeout(cancel: Any) -> bool:
    """``cancel`` has ``is_set()`` and a ``wait`` that takes a timeout and is no coroutine."""
    import inspect

    is_set, wait = getattr(cancel, "is_set", None), getattr(cancel, "wait", None)
    if not callable(is_set) or not callable(wait) or inspect.iscoroutinefunction(wait):
        return False
    try:
        inspect.signature(wait).bind(0.1)
    except TypeError:  # takes no timeout
        return False
    except ValueError:  # no signature to read (a builtin): taken at its word
        pass
    return True


@contextmanager
def cancelling(cancel: "threading.Event | None", stop: Callable[[], Any]) -> Iterator[None]:
    """While the block runs, call ``stop()`` from a watching thread once ``cancel`` is set, and
    again every tenth of a second until the block ends (a search that began after the first call
    resets its stop flag: the next call reaches it)."""
    if cancel is None:
        yield
        return
    done = threading.Event()
    lock = threading.Lock()  # no stop() once the block has ended: it would reach the next search

    def watch() -> None:
        try:
            while True:
                if cancel.wait(0.1):
                    with lock:
                        if done.is_set():
                            return
                        stop()
                    if done.wait(0.1):
                        return
                elif done.is_set():
                    return
        except (MemoryError, RuntimeError):  # (no lock for a wait: memory ran out; the block goes on unwatched)
            return

    start_daemon(watch, "racksmith-cancel")
    try:
        yield
    finally:
        with lock:
            done.set()


# --- Ctrl-C before the command line handles it ---------------------------------------------------
#: the exit code of a run ended by Ctrl-C (128 + SIGINT), as :func:`racksmith.cli.main.run` returns it
INTERRUPTED = 130


def quiet_interrupt_at_start() -> None:
    """In the ``racksmith`` command (its console script, ``python -m racksmith``), a Ctrl-C that
    reaches the top unhandled, while racksmith's modules are still being imported and before
    :func:`racksmith.cli.main.run` handles it, ends the process with exit code 130 and nothing on
    stderr, as a run interrupted later does, rather than with a traceback. Another program that
    imports racksmith keeps its own ``sys.excepthook``. Installed once; any other exception goes
    to the hook it replaces."""
    if getattr(sys.excepthook, "racksmith_start", False) or not runs_the_command():
        return
    previous = sys.excepthook

    def hook(kind, value, tb) -> None:
        if isinstance(kind, type) and issubclass(kind, KeyboardInterrupt):
            for stream in (sys.stdout, sys.stderr):
                try:
                    if stream is not None:
                        stream.flush()
                except (OSError, ValueError):  # (a closed or broken output: nothing to keep)
                    pass
            try:
                atexit._run_exitfuncs()  # (what an exit runs: os._exit below would skip them)
            except BaseException:  # (a handler's own failure or a second Ctrl-C: the exit goes on)
                pass
            os._exit(INTERRUPTED)  # (an exception raised here would be printed as the hook's own)
        previous(kind, value, tb)

    hook.racksmith_start = True  # type: ignore[attr-defined]
    sys.excepthook = hook


def _is_console_script(path: str) -> bool:
    """Whether the file ``path`` (``sys.argv[0]``, named ``racksmith``) is the console script an
    installer writes for racksmith, which calls :func:`racksmith.cli.main.run`, and not a program
    of its own that happens to have the name (the script names the entry point in its first lines;
    a Windows launcher ``racksmith.exe`` is taken as the command)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except (OSError, ValueError):
        return False
    return b"racksmith.cli.main" in head


def runs_the_command() -> bool:
    """Whether this process is the ``racksmith`` command: the console script (``sys.argv[0]`` is
    ``racksmith``, ``racksmith.exe`` or ``racksmith-script.py``), or ``python -m racksmith``
    (``sys.argv[0]`` is ``-m`` while the package is found, then racksmith's ``__main__.py``)."""
    first = sys.argv[0] if getattr(sys, "argv", None) else ""
    name = os.path.basename(first)
    launcher = False
    for suffix in ("-script.pyw", "-script.py", ".exe"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            launcher = True
            break
    if name == "racksmith":
        return launcher or _is_console_script(first)
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if getattr(spec, "name", None) == "racksmith.__main__":
        return True
    if first != "-m":
        return False
    given = list(getattr(sys, "orig_argv", ()))
    return any(a == "-mracksmith" or (a == "-m" and given[i + 1 : i + 2] == ["racksmith"]) for i, a in enumerate(given))
