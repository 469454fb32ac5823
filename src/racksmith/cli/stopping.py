"""Ctrl-C (or SIGTERM, SIGHUP) during a long search or simulation: stop it as its time limit would,
print what it found, then end the run as interrupted (``endgame``, ``peg``, ``sim``)."""
from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


#: the ``stopped`` of a search's or a simulation's JSON that Ctrl-C (or SIGTERM) stopped
INTERRUPTED = "interrupted"


class SignalStop:
    """What :func:`stopped_by_signals` yields: ``cancel``, the search's event, and ``signum``, the
    signal that set it (None: none came)."""

    def __init__(self, handlers: "dict[int, Any]"):
        self.cancel = threading.Event()
        self.signum: int | None = None
        self.handlers = handlers  # (signal: the handler it had, which raises KeyboardInterrupt)
        self.installed = False

    def install(self) -> None:
        self.installed = True
        for signum in self.handlers:
            signal.signal(signum, self._on_signal)

    def restore(self) -> None:
        if self.installed:
            self.installed = False
            for signum, handler in self.handlers.items():
                signal.signal(signum, handler)

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.restore()  # (a second signal: the run ends at once, as it did)
        if self.handlers[signum] is not signal.default_int_handler:
            # SIGTERM, SIGHUP: the run is still bounded by cli/main.py's grace; when nothing can
            # watch it, ended now as before
            from .main import _watch_the_ending

            if not _watch_the_ending(signum):
                self.handlers[signum](signum, frame)
        self.signum = signum
        self.cancel.set()

    def deliver(self) -> None:
        """Do now what the signal that stopped the search did before: end the run as interrupted
        (KeyboardInterrupt: exit 130, or 128 + the signal: cli/main.py). Nothing when none came."""
        if self.signum is not None:
            signum, self.signum = self.signum, None
            self.handlers[signum](signum, None)


@contextmanager
def stopped_by_signals() -> Iterator[SignalStop]:
    """While a search runs, Ctrl-C (and SIGTERM or SIGHUP, which cli/main.py turns into a Ctrl-C)
    stops it as its time limit would, through its ``cancel`` event: the search returns what it
    found, which the command prints before :meth:`SignalStop.deliver` ends the run. The first
    signal puts the handlers back, so a second one ends the run at once, as before. Only handlers
    that raise KeyboardInterrupt are replaced (a signal ignored, or a host program's handler, is
    left alone), and only in the main thread (the only one Python lets)."""
    handlers: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        from .main import _on_ending_signal

        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None and signal.getsignal(signum) in (signal.default_int_handler, _on_ending_signal):
                handlers[signum] = signal.getsignal(signum)
    stop = SignalStop(handlers)
    try:
        stop.install()
        yield stop
    finally:
        stop.restore()
