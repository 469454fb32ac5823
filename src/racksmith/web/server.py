"""The local web analyzer over HTTP: the page (``web/static``) and the JSON API of
:class:`~racksmith.web.api.Analyzer`, served by Python's ``http.server`` (a thread per connection).

Every answer is JSON except the page's own files. Bad requests get ``400 {"error": "one line"}``
(an illegal move adds its ``reason`` and ``words``; an error that a field of the request settles
adds ``param``, e.g. ``"ruleset"``; a long value a message echoes is clipped); unknown paths 404, a
wrong method (any but GET, HEAD and POST too) 405. A
request with the header ``X-Errors: body`` (the page's) gets its user errors (400 and 413, a body
over ``max_body`` included) as ``200 {"error": ..., "status": 400}`` instead, so that a browser
does not log a mistyped move as a failed request. A
request over one of the analyzer's :class:`~racksmith.web.limits.Limits` gets 413 (400 for a field
asking for more) with ``limit`` naming it; a server busy computing other answers 503. A failure in
racksmith itself is ``500 {"error": ...}``, logged as one line: it never ends the server.

The long computations (:data:`LONG`: a simulation, a best play, an endgame, a game's analysis,
but not a game record only replayed, ``analyze: false``) take turns in ``max_concurrent`` slots
of their own, so that the quick answers (a position, the moves, a check, a record replayed) never
wait behind them; while one computes, its connection is watched, and when the client closes it
the computation is cancelled (``cancel``) and nothing is answered.

Who may ask (the page's protection against other web sites and DNS rebinding):

- ``Host`` must be exactly one of this server's names with its port: ``localhost``,
  ``127.0.0.1``, ``[::1]``, the address it listens on, and the names given in ``allowed_hosts``
  (403 otherwise);
- a request with an ``Origin`` must come from one of those (``http://name:port``), and one a browser
  marks ``Sec-Fetch-Site: cross-site`` or ``same-site`` is refused (403), but for a link to the page
  itself (a top-level navigation: a GET of ``/`` with ``Sec-Fetch-Mode: navigate`` and
  ``Sec-Fetch-Dest: document``), so that an address keeping a position may be shared; the page may
  not be framed (``frame-ancestors 'none'``, ``X-Frame-Options: DENY``);
- a POST must say ``Content-Type: application/json`` (415), which a web page can only send to
  another site after a CORS preflight this server never grants.

What it logs (``log``, ``refusal_log`` and ``access_log``; on stderr, each line with its time): a
failure (a 500, a connection that failed) always; a server out of file descriptors (its ``ulimit
-n``) or memory, once every :data:`REFUSALS_EVERY` seconds at most ("cannot accept connections:
too many open files (ulimit -n 1024): ..."); a refused request (403, 413, 415, a 503 of a busy
server or of too many connections, a request that did not arrive whole within :data:`TIMEOUT`
seconds) always, one line per kind of refusal every :data:`REFUSALS_EVERY` seconds at most (then
how many more there were), so that a flood cannot fill a disk; and with ``access_log``, one line
per request (client, method, path, status, bytes, milliseconds).

Stopping (:meth:`AnalyzerServer.stop`, then :meth:`AnalyzerServer.drain`; what ``racksmith serve``
does on SIGTERM, SIGINT or SIGHUP): no new connection is accepted, idle kept-alive connections are
closed, a long computation in flight is cancelled (answered ``503``, "the server is stopping") and
the quick answers in flight finish, within :data:`GRACE` seconds; the connections still busy after
that are closed.

Out of file descriptors (a low ``ulimit -n``, many connections held open): the server stops
accepting for :data:`ACCEPT_BACKOFF` seconds, or until a connection closes (accept() would fail
again at once: a busy loop), and answers the connections waiting ``503`` through a descriptor it
holds back; a request that fails for want of descriptors (or memory) is answered ``503``, never a
500 blaming racksmith nor no answer blaming the client. The modules the endpoints use are imported
before the server listens (:func:`load_everything`).
"""
from __future__ import annotations

import errno
import importlib
import importlib.machinery
import io
import ipaddress
import json
import os
import re
import selectors
import socket
import sys
import threading
import time
from collections import deque
from datetime import datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple
from urllib.parse import urlsplit

from .. import __version__
from ..errors import RacksmithError
from .api import Analyzer, error_line
from .limits import LimitError, Limits

try:  # (imported now: an import needs file descriptors, and the limit is said when there are none left)
    import resource
except ImportError:  # pragma: no cover - not POSIX
    resource = None  # type: ignore[assignment]

MAX_BODY = Limits().max_body  #: the largest request body read by default, in bytes
#: seconds a client has to send a whole request (head and body) once it starts, and the longest
#: a kept-alive connection may stay silent before the server drops it
TIMEOUT = 30
#: seconds the requests in flight when the server stops have to be answered (:meth:`AnalyzerServer.drain`)
GRACE = 10.0
#: a kind of refused request is logged at most once in this many seconds; the others are counted
REFUSALS_EVERY = 10.0
#: seconds a connection accepted just before the server stopped has to send its first request
FIRST_REQUEST_WAIT = 1.0
#: seconds the server stops accepting when it is out of file descriptors (or memory), unless a
#: connection closes first: accepting again at once failed again at once (41,552 times in 3 s, 44% CPU)
ACCEPT_BACKOFF = 0.25

#: path -> (method, endpoint)
ROUTES: dict[str, tuple[str, Callable[[Analyzer, dict], Any]]] = {
    "/api/rulesets": ("GET", lambda a, body: a.rulesets_info()),
    "/api/position": ("POST", Analyzer.position),
    "/api/moves": ("POST", Analyzer.moves),
    "/api/score": ("POST", Analyzer.score),
    "/api/sim": ("POST", Analyzer.sim),
    "/api/validate": ("POST", Analyzer.validate),
    "/api/gcg": ("POST", Analyzer.gcg),
    "/api/play": ("POST", Analyzer.play),
    "/api/endgame": ("POST", Analyzer.endgame),
    "/api/best": ("POST", Analyzer.best),
    "/api/export": ("POST", Analyzer.export),
}

#: the endpoints that may compute for seconds: they take turns in slots of their own (``max_concurrent``
#: of them), so that the quick ones never wait behind them, and stop when their client goes away
#: (each takes ``cancel``, a threading.Event set when the connection closes). A game record sent to
#: ``/api/gcg`` with ``analyze: false`` is only replayed (milliseconds): a quick request (:func:`is_long`)
LONG = frozenset({"/api/sim", "/api/best", "/api/endgame", "/api/gcg"})
#: seconds between two looks at the connection of a long computation, to see if the client went away
WATCH_EVERY = 0.2

_CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
#: the page loads only its own files and talks only to this server, and no page may frame it
_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'")
#: the headers of the page's own files
_PAGE_HEADERS = {"Cache-Control": "no-cache", "Content-Security-Policy": _CSP, "X-Frame-Options": "DENY"}
#: the paths of the page itself, which a link from another site may open (a top-level navigation)
_PAGE = ("/", "/index.html")
_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
_UNSPECIFIED = ("0.0.0.0", "::", "")


def load_static() -> dict[str, tuple[bytes, str]]:
    """The page's files by URL path: ``/`` is ``index.html``, the others are under ``/static/``."""
    out = {}
    for entry in resources.files("racksmith").joinpath("web").joinpath("static").iterdir():
        kind = _CONTENT_TYPES.get("." + entry.name.rsplit(".", 1)[-1])
        if kind is None or not entry.is_file():
            continue
        data = entry.read_bytes()
        out[f"/static/{entry.name}"] = (data, kind)
        if entry.name == "index.html":
            out["/"] = out["/index.html"] = (data, kind)
    return out


class Drained(NamedTuple):
    """What became of the requests in flight when the server stopped (:meth:`AnalyzerServer.drain`)."""

    answered: int  #: answered within the grace
    cancelled: int  #: long computations cancelled by the stop, answered 503 ("the server is stopping")
    cut: int  #: still computing when the grace ended (or at once, after :meth:`AnalyzerServer.cut`): closed unanswered


class AnalyzerServer(ThreadingHTTPServer):
    """An HTTP server holding the analyzer and the page. ``log`` receives one line per failure
    (default: stderr); ``refusal_log`` one line per refused request, at most one per kind of
    refusal every :data:`REFUSALS_EVERY` seconds (default: stderr); ``access_log`` one line per
    request (``True``: stderr; default: none). ``allowed_hosts`` are more names the server answers
    to (a machine name, for a server listening on every address)."""

    daemon_threads = True
    #: connections the kernel queues until the server accepts them (socketserver's default, 5,
    #: left a burst of connections waiting 1-15 s in SYN retries, never getting the promised 503)
    request_queue_size = 128

    def __init__(self, analyzer: Analyzer, host: str = "127.0.0.1", port: int = 8765,
                 log: Callable[[str], None] | None = None, allowed_hosts: Iterable[str] = (), *,
                 access_log: Callable[[str], None] | bool = False,
                 refusal_log: Callable[[str], None] | None = None):
        host = _bind_address(host)
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.analyzer = analyzer
        self.limits: Limits = analyzer.limits
        self.static = load_static()
        self.log = log if log is not None else _stderr
        self.refusals = RateLimitedLog(refusal_log if refusal_log is not None else _stderr)
        self.access_log: Callable[[str], None] | None = (
            _stderr if access_log is True else access_log if callable(access_log) else None)
        # the address listened on as a Host header writes it (the bind below checks the address itself)
        names = [] if host in _UNSPECIFIED else [f"[{host}]" if ":" in host else host]
        self.allowed_names = tuple(dict.fromkeys(_host_name(h) for h in allowed_hosts))
        names += [*_LOOPBACK_NAMES, *self.allowed_names]
        self.host_names = tuple(dict.fromkeys(n.lower() for n in names if n))
        self.computing = FairSlots(self.limits.max_concurrent)  # the quick answers
        self.long_computing = FairSlots(self.limits.max_concurrent)  # the LONG ones
        self.connections = threading.BoundedSemaphore(self.limits.max_connections)
        self._slots: dict = {}  # connection -> its slot in ``connections``, until given back
        #: set by :meth:`stop`: no new request is read, and long computations are cancelled
        self.stopping = threading.Event()
        self._cutting = threading.Event()  # :meth:`cut`: the grace is over
        self._lock = threading.Lock()
        self._handlers: dict = {}  # the open connections' handlers (a dict: ordered, and a set's ops)
        self._drained = {"answered": 0, "cancelled": 0}
        #: the failures for want of a resource (accept, a request), one line a kind every REFUSALS_EVERY s
        self.failures = RateLimitedLog(self.log)
        self._fd_freed = threading.Event()  # a connection closed (its file descriptor is free again)
        self._reserve: int | None = None
        super().__init__((host, port), Handler)
        #: a file descriptor held back: closed for a moment when accept() finds none, to answer a
        #: connection waiting 503 (it waited until an idle one closed, 30 s, otherwise)
        self._reserve = _reserve_fd()
        self.port = self.server_address[1]
        #: the exact ``Host`` values and origins this server answers
        self.hosts = frozenset(n if self.port == 80 and bare else f"{n}:{self.port}"
                               for n in self.host_names for bare in (False, True))
        self.origins = frozenset(f"http://{n}:{self.port}" for n in self.host_names) | (
            frozenset(f"http://{n}" for n in self.host_names) if self.port == 80 else frozenset())

    @property
    def url(self) -> str:
        """The page's address: the listening address, or ``localhost`` when it listens on every one."""
        return f"http://{self.host_names[0]}:{self.port}/"

    @property
    def local(self) -> bool:
        """Does the server listen on a loopback address only (this machine), not the network?"""
        try:
            return ipaddress.ip_address(self.server_address[0].partition("%")[0]).is_loopback
        except ValueError:  # pragma: no cover - a bound socket has a numeric address
            return False

    @property
    def every_address(self) -> bool:
        """Does the server listen on every address of this machine (``0.0.0.0`` or ``::``)?"""
        return self.server_address[0] in _UNSPECIFIED

    def network_urls(self) -> list[str]:
        """The addresses the network may use: the one listened on (unless it is every one) and
        the ``allowed_hosts``; a name given by neither gets 403."""
        names = [] if self.every_address or self.local else [self.host_names[0]]
        return [f"http://{n}:{self.port}/" for n in dict.fromkeys([*names, *self.allowed_names])]

    # --- stopping --------------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop serving, from a signal handler or another thread (it returns at once):
        ``serve_forever`` returns within its poll interval, a long computation in flight is
        cancelled, and no connection reads a next request. Then call :meth:`drain`."""
        if not self.stopping.is_set():
            self.stopping.set()
            self._fd_freed.set()  # (a pause of accept() ends)
            # (shutdown() waits for serve_forever to return: not in the thread that runs it)
            threading.Thread(target=self.shutdown, name="racksmith-stop", daemon=True).start()

    def cut(self) -> None:
        """End the grace of :meth:`drain` at once (a second signal): the connections still busy are closed."""
        self._cutting.set()

    def drain(self, grace: float = GRACE) -> Drained:
        """After ``serve_forever`` returned (:meth:`stop`): close the listening socket (the kernel
        refuses new connections at once), close the idle kept-alive connections, and give the
        requests in flight up to ``grace`` seconds to be answered (a long computation is cancelled
        at once and answered 503); close the connections still busy after that. What became of
        the requests in flight."""
        self.stopping.set()
        self._accept_waiting()
        try:
            self.socket.close()
        except OSError:  # pragma: no cover - closed already
            pass
        deadline = time.monotonic() + grace
        cut = 0
        while self._slots:  # the connections' threads, each until its end
            with self._lock:
                handlers = list(self._handlers)
            if self._cutting.is_set() or time.monotonic() >= deadline:
                for handler in handlers:
                    cut += handler.busy
                    handler.shut(socket.SHUT_RDWR)
                break
            for handler in handlers:
                if handler.idle():
                    handler.shut(socket.SHUT_RD)  # a read waiting for a next request ends
            time.sleep(0.02)
        # the threads of the connections closed unwind (a read or a write on them ends at once)
        end = time.monotonic() + 1.0
        while self._slots and time.monotonic() < end:
            time.sleep(0.02)
        self.refusals.flush()
        with self._lock:
            return Drained(self._drained["answered"], self._drained["cancelled"], cut)

    def _accept_waiting(self) -> None:
        """Serve the connections the kernel queued before the stop (clients that connected and
        sent their request, waiting to be accepted: closing the listening socket would reset
        them), for at most 50 ms."""
        until = time.monotonic() + 0.05  # (clients that keep connecting are not served for ever)
        try:
            self.socket.setblocking(False)
            with _selector() as sel:
                sel.register(self.socket, selectors.EVENT_READ)
                for _ in range(self.request_queue_size):
                    if not sel.select(0) or time.monotonic() > until:
                        break
                    self._handle_request_noblock()  # type: ignore[attr-defined]  # (socketserver's accept-and-serve)
        except (OSError, ValueError):  # pragma: no cover - closed meanwhile
            pass

    def server_close(self) -> None:
        super().server_close()
        reserve, self._reserve = self._reserve, None
        if reserve is not None:
            os.close(reserve)
        self.refusals.flush()
        self.failures.flush()
        _WRITER.flush()  # (the lines of the last requests, before the caller's own)

    def _opened(self, handler: "Handler") -> None:
        with self._lock:
            self._handlers[handler] = True

    def _closed(self, handler: "Handler") -> None:
        with self._lock:
            self._handlers.pop(handler, None)

    def _count_at_stop(self, cancelled: bool) -> None:
        with self._lock:
            self._drained["cancelled" if cancelled else "answered"] += 1

    # --- logging ---------------------------------------------------------------------------------
    def refused(self, kind: str, client: str, method: str | None, path: str | None, status: int, reason: str) -> None:
        """Log a refused request (one line per ``kind`` every :data:`REFUSALS_EVERY` seconds at most)."""
        self.refusals(kind, f"{client} {_shown(method or '-', 32)} {_shown(path or '-')} {int(status)} refused: {reason}")

    def handle_error(self, request, client_address) -> None:
        """A connection that failed outside a request (the client went away): one line, no traceback."""
        err = sys.exc_info()[1]
        if not isinstance(err, (ConnectionError, TimeoutError)):
            self.log(f"connection from {client_address[0]} failed: {type(err).__name__}: {err}")

    # --- out of file descriptors -------------------------------------------------------------------
    def get_request(self) -> tuple[socket.socket, Any]:
        """The next connection (``accept``). When the server is out of file descriptors (or the
        system of memory), accept() fails at once, and the listening socket stays readable:
        ``serve_forever`` retried in a busy loop. Then: one line (rate-limited), the connection
        waiting answered 503 through the reserve descriptor, or else a pause of
        :data:`ACCEPT_BACKOFF` seconds (shorter if a connection closes). (``socketserver`` drops
        the OSError raised.)"""
        try:
            return super().get_request()
        except OSError as e:
            if e.errno in _STARVED:
                self._starved(e)
            raise

    def _starved(self, err: OSError) -> None:
        self.failures("accept failures", f"cannot accept connections: {_lacking(err)}: {len(self._slots)} connections open; "
                      "new ones wait or get 503 until one closes" + _STARVED_HINTS.get(err.errno or 0, ""))
        if err.errno in _OUT_OF_FDS and self._answer_starved():
            return  # (a connection waiting was answered: the queue is shorter, no busy loop)
        if not self.stopping.is_set():
            self._fd_freed.clear()
            self._fd_freed.wait(ACCEPT_BACKOFF)

    def _answer_starved(self) -> bool:
        """Answer a connection waiting to be accepted 503 with the reserve descriptor (closed for
        it, then taken again): did one get its answer?"""
        if self._reserve is None:
            self._reserve = _reserve_fd()  # (taken by another thread when it was free: maybe back now)
            return False
        os.close(self._reserve)
        self._reserve = None
        try:
            request, client_address = self.socket.accept()
        except OSError:  # (another thread took the descriptor, or no one waits any more)
            request = None
        if request is not None:
            _answer_at_once(request, _NO_FDS)
            self.shutdown_request(request)
            if self.access_log is not None:
                self.access_log(f"{client_address[0]} - - 503 {len(_NO_FDS)} 0ms (the server is out of file descriptors)")
        self._reserve = _reserve_fd()
        return request is not None

    def process_request(self, request, client_address) -> None:
        """A thread for the connection, unless ``max_connections`` are open: then 503 at once."""
        if not self.connections.acquire(blocking=False):
            _answer_at_once(request, _TOO_MANY)
            self.shutdown_request(request)
            most = self.limits.max_connections
            self.refused("503 max_connections", client_address[0], None, None, 503,
                         f"{most} connections open already (its max_connections limit: raise --max-connections; "
                         "a browser keeps about 2 open)")
            if self.access_log is not None:
                self.access_log(f"{client_address[0]} - - 503 {len(_TOO_MANY)} 0ms")
            return
        self._slots[request] = True
        try:
            super().process_request(request, client_address)
        except BaseException:
            # the thread may have started before this (Ctrl-C can land in Thread.start): whichever
            # of the two takes the slot out of ``_slots`` first gives it back, the other does nothing
            self._release(request)
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release(request)

    def _release(self, request) -> None:
        """Give the connection's slot back, once (``dict.pop`` is atomic: one caller gets it)."""
        if self._slots.pop(request, None):
            self.connections.release()
            self._fd_freed.set()  # (its socket is closed: a pause of accept() ends)


def make_server(analyzer: Analyzer, host: str = "127.0.0.1", port: int = 8765,
                log: Callable[[str], None] | None = None, allowed_hosts: Iterable[str] = (), *,
                access_log: Callable[[str], None] | bool = False,
                refusal_log: Callable[[str], None] | None = None) -> AnalyzerServer:
    """A server listening on ``host:port`` (port 0 picks a free one; see ``server.url``); run it
    with ``serve_forever()`` and stop it with ``shutdown()`` then ``server_close()`` (or, to let
    the requests in flight finish, ``stop()``, ``drain()`` then ``server_close()``). Its limits
    are the analyzer's (``Analyzer(limits=...)``); ``allowed_hosts`` are more names it answers to;
    ``log``, ``refusal_log`` and ``access_log`` are where its lines go (:class:`AnalyzerServer`)."""
    return AnalyzerServer(analyzer, host, port, log, allowed_hosts, access_log=access_log, refusal_log=refusal_log)


class RateLimitedLog:
    """Lines of a kind written at most once every ``every`` seconds: the first of a kind is
    written at once, the others of the same ``every`` seconds are counted, and one line says how
    many there were when those seconds are over (or at :meth:`flush`). The kinds are few (a
    server's kinds of refusal), so that a flood of refused requests writes two lines each ``every``
    seconds, not one line a request."""

    def __init__(self, write: Callable[[str], None], every: float = REFUSALS_EVERY):
        self.write = write
        self.every = every
        self._lock = threading.Lock()
        self._windows: dict[str, list[Any]] = {}  # kind -> [end, lines held back, timer or None]

    def __call__(self, kind: str, line: str) -> None:
        now = time.monotonic()
        with self._lock:
            window = self._windows.get(kind)
            if window is not None and now < window[0]:
                window[1] += 1
                if window[2] is None:  # the count is written when the window closes
                    timer = threading.Timer(window[0] - now, self._close, (kind, window))
                    timer.daemon = True
                    timer.start()
                    window[2] = timer
                return
            self._windows[kind] = [now + self.every, 0, None]
        self.write(line)

    def flush(self) -> None:
        """Write now how many lines each kind held back."""
        with self._lock:
            windows = list(self._windows.items())
        for kind, window in windows:
            if window[2] is not None:
                window[2].cancel()
            self._close(kind, window)

    def _close(self, kind: str, window: list) -> None:
        with self._lock:
            if self._windows.get(kind) is not window:
                return  # (closed already)
            del self._windows[kind]
            held, end = window[1], window[0]
        if held:
            seconds = self.every - max(0.0, end - time.monotonic())
            self.write(f"(and {held} more {kind} in the last {max(1, round(seconds))} s)")


#: the modules the endpoints import at their first use (beyond :mod:`racksmith.web.api`'s own imports),
#: the standard library's included: an import opens files, and a server out of file descriptors
#: answered its first simulations 500 ("Too many open files: '.../lib/python3.11/concurrent'")
_USED_LATER = ("racksmith.sim.simulate", "racksmith.sim.infer", "racksmith.search.endgame", "racksmith.search.peg",
               "racksmith.review.best", "racksmith.review.analysis", "racksmith.review.replay",
               "racksmith.formats.gcg", "racksmith.formats.cgp", "racksmith.formats.naming",
               "racksmith.core.validation", "racksmith.core.turns", "racksmith.rules.coords",
               "racksmith.rules.equity", "racksmith.training.leavegen", "racksmith.training.tally",
               "concurrent.futures", "concurrent.futures.thread", "secrets",
               "encodings.ascii", "encodings.latin_1", "encodings.utf_16")


def load_everything() -> list[str]:
    """Import every compiled kernel of racksmith (each extension module of the package) and the
    modules the endpoints import at their first use (:data:`_USED_LATER`), now: a server started
    before racksmith was upgraded or rebuilt would otherwise load the new kernels into the old
    process at its first simulation or endgame ("MovePlan size changed, binary incompatibility": a
    500 for every such request), and one out of file descriptors could not import them at all. A
    broken or half-built install fails here, before the server listens. The kernels' module
    names; a :class:`RacksmithError` naming the module that does not load."""
    import racksmith

    root = Path(racksmith.__file__).resolve().parent
    kernels = set()
    for path in root.rglob("*.*"):
        # the most specific suffix first (.cpython-311-x86_64-linux-gnu.so, then .abi3.so, then .so)
        suffix = next((s for s in importlib.machinery.EXTENSION_SUFFIXES if path.name.endswith(s)), None)
        stem = path.name[: -len(suffix)] if suffix else ""
        if stem.isidentifier() and path.is_file():
            parts = path.relative_to(root).parts[:-1]
            if all(part.isidentifier() for part in parts):
                kernels.add(".".join(("racksmith", *parts, stem)))
    for name in (*sorted(kernels), *_USED_LATER):
        try:
            importlib.import_module(name)
        except Exception as e:  # an ImportError, or Cython's ValueError for a type of another size
            raise RacksmithError(f"racksmith's module {name} does not load ({type(e).__name__}: {error_line(str(e))}): "
                                 "the installed racksmith is incomplete or mixed (built for another version); "
                                 "reinstall it (pip install --force-reinstall racksmith, or python dev/build_ext.py all "
                                 "in a source tree)") from None
    return sorted(kernels)


def is_long(path: str, body: dict) -> bool:
    """Does this request compute for seconds (a :data:`LONG` endpoint), so that it takes a long
    slot and is cancelled when its client goes away? Not a game record sent to ``/api/gcg`` with
    ``analyze: false``: replaying it takes milliseconds, and it does not wait behind simulations."""
    return path in LONG and not (path == "/api/gcg" and body.get("analyze") is False)


def _bind_address(host: str) -> str:
    """The address to listen on: an IPv6 address as the server writes it, in brackets (``[::1]``), without them."""
    text = str(host).strip()
    return text[1:-1] if len(text) > 2 and text.startswith("[") and text.endswith("]") else text


def _host_name(text: str) -> str:
    """A name for ``allowed_hosts`` as a Host header spells it (an IPv6 address in brackets). A
    name with a port (``myhost:8765``) is refused: the server's own port is added to every name,
    and a name with another port would never match."""
    name = str(text).strip().lower()
    shown = repr(str(text)[:60])
    not_a_name = f"an allowed host is a name or an address, such as myhost.local, got {shown}"
    if not name or any(c.isspace() or c in "/?#@" for c in name):
        raise RacksmithError(not_a_name)
    if name.startswith("["):  # an IPv6 address as a Host header writes it, maybe with a port
        bare, closed, after = name[1:].partition("]")
        if not closed or ":" not in bare or (after and not after.startswith(":")):
            raise RacksmithError(not_a_name)
        port = bool(after)
    else:  # one ':' is a name's (or an IPv4 address's) port; an IPv6 address has two or more
        port = name.count(":") == 1
        bare = name.partition(":")[0] if port else name
    if port:
        raise RacksmithError(f"an allowed host is a name without a port, got {shown}: give the name only "
                             f"({_host_name(bare) if bare else 'e.g. myhost.local'}); the server's own port is added to it")
    if ":" in bare:
        try:
            ipaddress.IPv6Address(bare)
        except ValueError:
            raise RacksmithError(f"{not_a_name} (an IPv6 address is written ::2 or [::2])") from None
        return f"[{bare}]"
    return bare


#: what a request in flight answers when the server stops before its computation is done
STOPPING = "the server is stopping (restarted or shut down): send the request again in a moment"


def _unavailable(answer: dict) -> bytes:
    """A whole 503 answer, sent before a request is read (the connection is closed after it)."""
    body = json.dumps(answer).encode()
    return (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
            b"Content-Length: %d\r\nConnection: close\r\nRetry-After: 5\r\n\r\n%s" % (len(body), body))


_TOO_MANY = _unavailable({"error": "the server has too many open connections (its max_connections limit): try again",
                          "limit": "max_connections"})
#: what a request answers when the server is out of file descriptors (its ``ulimit -n``) or memory
NO_FDS = "the server is out of file descriptors (too many open files): try again in a moment"
NO_MEMORY = "the server is out of memory: try again in a moment"
_NO_FDS = _unavailable({"error": NO_FDS})

_OUT_OF_FDS = frozenset({errno.EMFILE, errno.ENFILE})
#: what accept() or a request may fail for want of: file descriptors, the system's memory
_STARVED = _OUT_OF_FDS | {errno.ENOBUFS, errno.ENOMEM}
_STARVED_HINTS = {
    errno.EMFILE: " (each connection takes a file descriptor: raise ulimit -n, or lower --max-connections)",
    errno.ENFILE: " (the system is out of file descriptors: see fs.file-max)",
}
#: the errors of a connection that mean its client is gone (reset, closed, unreachable): any
#: other is the server's own (out of file descriptors, of memory), never blamed on the client
_GONE = frozenset({errno.EBADF, errno.ENOTCONN, errno.EPIPE, errno.ECONNRESET, errno.ECONNABORTED, errno.ESHUTDOWN,
                   errno.ETIMEDOUT, errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ENETDOWN})
#: an absolute path in a message (``/home/me/...``, ``C:\\...``): a 500's answer does not show the server's files
_PATH = re.compile(r"""(?<![\w.~-])(?:[A-Za-z]:)?[\\/](?:[^\s'"()\\/]+[\\/])+[^\s'"(),]*""")


def _reserve_fd() -> int | None:
    """A file descriptor held back for a connection accepted when there is none left (or None)."""
    try:
        return os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return None


def _fd_limit() -> int | None:
    """This process's limit of open files (``ulimit -n``), where the system has one."""
    try:
        return resource.getrlimit(resource.RLIMIT_NOFILE)[0] if resource is not None else None
    except (OSError, ValueError):  # pragma: no cover - no such limit here
        return None


def _lacking(err: OSError) -> str:
    """What a failure for want of a resource says: ``too many open files (ulimit -n 1024)``."""
    text = err.strerror or os.strerror(err.errno or 0)
    text = text[:1].lower() + text[1:]
    limit = _fd_limit() if err.errno == errno.EMFILE else None
    return f"{text} (ulimit -n {limit})" if limit is not None and limit >= 0 else text


def _starved_by(e: BaseException) -> OSError | None:
    """The OSError for want of a resource (file descriptors, memory) that ``e`` is or was raised
    from (a lexicon that could not be read...), or None."""
    seen = 0
    while e is not None and seen < 8:
        if isinstance(e, OSError) and e.errno in _STARVED:
            return e
        e = e.__cause__ or e.__context__  # type: ignore[assignment]
        seen += 1
    return None


def _client_gone(e: BaseException) -> bool:
    """Does this error of a connection mean its client is gone (reset, closed, the socket closed
    under us), rather than the server lacking something?"""
    return isinstance(e, (ConnectionError, TimeoutError, ValueError)) or (isinstance(e, OSError) and e.errno in _GONE)


def _no_paths(text: str) -> str:
    """A message without the server's paths in it (``'<path>'``), for a client to see."""
    return _PATH.sub("<path>", text)


def _selector() -> selectors.BaseSelector:
    """A selector that takes no file descriptor (poll, as socketserver's: an epoll one opens one,
    and failed with EMFILE when the server was out of them)."""
    return selectors.PollSelector() if hasattr(selectors, "PollSelector") else selectors.SelectSelector()


def _answer_at_once(request: socket.socket, answer: bytes) -> None:
    """Send a whole answer before reading the request, reading first what of it arrived (a
    connection closed with bytes unread is reset, and the client may lose the answer)."""
    try:
        for _ in range(16):
            if not request.recv(65536, socket.MSG_DONTWAIT):
                break
    except OSError:  # (nothing more arrived: BlockingIOError)
        pass
    try:
        request.settimeout(1)
        request.sendall(answer)
    except OSError:
        pass


class FairSlots:
    """``n`` slots given in the order they were asked for. A semaphore's waiters are not served
    in order when each waits in short steps (to watch its client meanwhile): a request waiting
    its turn saw later ones take the slots freed, and got 503 at its deadline."""

    def __init__(self, n: int):
        self._free = n
        self._waiting: deque = deque()
        self._cond = threading.Condition()

    def ask(self) -> object:
        """A place in the line (give it to :meth:`wait`, or :meth:`give_up` on it)."""
        ticket = object()
        with self._cond:
            self._waiting.append(ticket)
        return ticket

    def wait(self, ticket: object, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for ``ticket``'s turn with a slot free: True once the slot is taken."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._free > 0 and self._waiting[0] is ticket, timeout):
                return False
            self._waiting.popleft()
            self._free -= 1
            self._cond.notify_all()  # (the next in line, if another slot is free)
            return True

    def give_up(self, ticket: object) -> None:
        with self._cond:
            self._waiting.remove(ticket)
            self._cond.notify_all()

    def acquire(self, blocking: bool = True, timeout: float | None = None) -> bool:
        """A slot, in turn (as a semaphore's ``acquire``)."""
        ticket = self.ask()
        try:
            if self.wait(ticket, (timeout if timeout is not None else threading.TIMEOUT_MAX) if blocking else 0.0):
                ticket = None
                return True
            return False
        finally:
            if ticket is not None:
                self.give_up(ticket)

    def release(self) -> None:
        with self._cond:
            self._free += 1
            self._cond.notify_all()


#: an HTTP method is a token (RFC 9110): anything else is refused before it reaches a log line
_METHOD = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}")


def _shown(text: str, most: int = 200) -> str:
    """A value a client sent, as a log line shows it: on one line (control characters and line
    separators escaped, ``\\n``: no forged line) and clipped to ``most`` characters."""
    shown = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(text)[:most + 1])
    return shown if len(shown) <= most else shown[:most] + "..."


class Handler(BaseHTTPRequestHandler):
    server: AnalyzerServer
    server_version = f"racksmith/{__version__}"
    protocol_version = "HTTP/1.1"
    #: a request line that names no version (garbage after a request, read as the next one) is
    #: answered with a status line and headers all the same, never a bare HTTP/0.9 body
    default_request_version = "HTTP/1.1"
    timeout = TIMEOUT
    disable_nagle_algorithm = True  # the head and the body leave at once (no 40 ms delayed-ACK stall)

    def setup(self) -> None:
        """Read through a deadline: a client that trickles its request is dropped after
        :data:`TIMEOUT` seconds, however often it sends a byte."""
        super().setup()
        self.deadline = time.monotonic() + TIMEOUT
        self.rfile.close()  # the plain reader made by setup(): its reference to the socket goes
        self.rfile = io.BufferedReader(_DeadlineReader(self), 65536)
        #: is a request being read or answered (its first byte has arrived)? If not, the connection
        #: waits for its next request, and a stopping server closes it
        self.busy = False
        self.accepted = time.monotonic()
        self.served = 0  # requests read on this connection
        self._closed_how: int | None = None
        self._lock = threading.Lock()
        self._new_request()
        self.server._opened(self)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server._closed(self)

    def shut(self, how: int) -> None:
        """Shut the connection (``socket.SHUT_RD``: a read waiting for the next request ends;
        ``SHUT_RDWR``: the request in flight is cut), once for each, from the thread of :meth:`AnalyzerServer.drain`."""
        with self._lock:
            if self._closed_how == how or self._closed_how == socket.SHUT_RDWR:
                return
            self._closed_how = how
        try:
            self.connection.shutdown(how)
        except OSError:  # (closed by its own thread meanwhile)
            pass

    def idle(self) -> bool:
        """Is the connection waiting for a next request (none in flight), so that a stopping
        server may close it? Not a new connection whose first request may be on its way (for
        :data:`FIRST_REQUEST_WAIT` seconds)."""
        return not self.busy and (self.served > 0 or time.monotonic() - self.accepted > FIRST_REQUEST_WAIT)

    def _new_request(self) -> None:
        self.busy = False
        self.started = 0.0
        self.command = self.path = None  # type: ignore[assignment]  # (not the last request's, for the log lines)
        self._status: int | None = None
        self._sent = 0
        self._cancelled_by_stop = False
        self._answered_at_stop = False  # (not one answered before the stop, its thread not yet done)
        self._timed_out = False  # a read of the request passed its deadline

    def _arrived(self) -> None:
        """The first bytes of a request arrived: it is in flight."""
        if not self.busy:
            self.busy = True
            self.started = time.monotonic()

    def handle_one_request(self) -> None:
        self._new_request()
        if self.server.stopping.is_set():
            # no next request is awaited while the server stops: one sent already is answered, and
            # a new connection's first (it connected before the stop) if it comes at once
            wait = 0.0 if self.served else max(0.0, self.accepted + FIRST_REQUEST_WAIT - time.monotonic())
            if not _readable(self.connection, wait):
                self.close_connection = True
                return
        self.deadline = time.monotonic() + TIMEOUT
        try:
            super().handle_one_request()  # (a read past the deadline ends it: http.server closes the connection)
        finally:
            if self.busy:
                self.served += 1
                if self._timed_out and self._status is None:  # (busy: not a kept-alive connection left silent)
                    self.server.refused("dropped: slow request", self.client_address[0], self.command, self.path,
                                        408, f"the request did not arrive whole within {TIMEOUT:g} s (the "
                                        "connection was closed)")
                self._done()

    def parse_request(self) -> bool:
        self._arrived()  # (a request read from the buffer, after the last: no new byte arrived for it)
        if not super().parse_request():
            return False
        if not _METHOD.fullmatch(self.command or ""):
            shown = _shown(self.command or "", 32)
            self.command = "-"  # (the log lines show no more of it)
            self.send_error(HTTPStatus.BAD_REQUEST, f"the request method {shown} is not an HTTP method")
            return False
        try:
            urlsplit(self.path)
        except ValueError as e:
            self.send_error(HTTPStatus.BAD_REQUEST, f"the request target {_shown(self.path, 80)} is not an address: {e}")
            return False
        return True

    def _done(self) -> None:
        """The request is over: its access log line, and the stop's count."""
        server = self.server
        if self._answered_at_stop:
            server._count_at_stop(self._cancelled_by_stop)
        if server.access_log is not None:
            ms = round((time.monotonic() - self.started) * 1000)
            status = "-" if self._status is None else self._status
            note = " (no answer: the client went away or the request was cut)" if self._status is None else ""
            server.access_log(f"{self.client_address[0]} {_shown(self.command or '-', 32)} {_shown(self.path or '-')} {status} "
                              f"{self._sent} {ms}ms{note}")

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        """(``send_response`` reports the status here: kept for the access log.)"""
        try:
            self._status = int(code)
        except (TypeError, ValueError):  # pragma: no cover - a status is a number
            pass

    # --- methods ---------------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _other_method(self) -> None:
        self._dispatch(self.command)

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _other_method

    def __getattr__(self, name: str) -> Any:
        """Any other method (``TRACE``, ``CONNECT``, ``FOO``) is answered as PUT is: 405 where the
        path is the page's or an endpoint's (404 elsewhere), never ``501 Unsupported method``."""
        if name.startswith("do_"):
            return self._other_method
        raise AttributeError(name)

    def _not_allowed(self, allowed: str) -> None:
        self._discard_body()
        self._json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": f"{_shown(self.command, 32)} is not allowed here: use {allowed}"},
                   headers={"Allow": allowed})

    def _dispatch(self, method: str) -> None:
        refusal = self._refusal()
        if refusal is not None:
            kind, message, reason = refusal
            self.close_connection = True  # the body is not read
            self._refused(kind, HTTPStatus.FORBIDDEN, reason)
            self._json(HTTPStatus.FORBIDDEN, {"error": message})
            return
        path = urlsplit(self.path).path
        static = self.server.static.get(path)
        if static is not None:
            if method not in ("GET", "HEAD"):
                self._not_allowed("GET, HEAD")
                return
            self._discard_body()
            self._send(HTTPStatus.OK, static[0], static[1], _PAGE_HEADERS)
            return
        route = ROUTES.get(path)
        if route is None:
            self._discard_body()
            self._json(HTTPStatus.NOT_FOUND, {"error": error_line(f"no such page or endpoint: {path}")})  # a long path clipped
            return
        want, endpoint = route
        if method != want and not (method == "HEAD" and want == "GET"):
            self._not_allowed(want)
            return
        if want == "POST":
            body = self._read_json()
            if body is None:
                return
        else:
            self._discard_body()
            body = {}
        if is_long(path, body):
            if self.server.stopping.is_set():  # (read while the server stops: not begun)
                self._stopping()
                return
            with _ClientWatch(self.connection, self.server.stopping) as watch:
                self._compute(method, path, lambda a, b: endpoint(a, b, cancel=watch.cancel), body,
                              self.server.long_computing, watch)
        else:
            self._compute(method, path, endpoint, body, self.server.computing, None)

    def _compute(self, method: str, path: str, endpoint: Callable[[Analyzer, dict], Any], body: dict,
                 slots: "FairSlots", watch: "_ClientWatch | None") -> None:
        """Answer with what ``endpoint`` computes in one of ``slots``; nothing when the client went
        away (``watch.gone``: the computation was then cancelled); 503 when the server stopping
        cancelled it."""
        if not self._take(slots, watch):
            return
        try:
            result = endpoint(self.server.analyzer, body)
        except Exception as e:
            if watch is not None and watch.failed is not None:  # (cancelled: the watch could not run)
                self._error(method, path, watch.failed)
            elif watch is not None and watch.gone.is_set():  # no one to answer
                self.close_connection = True
            elif watch is not None and watch.stopped:
                self._stopping()
            else:
                self._error(method, path, e)
            return
        finally:
            slots.release()
        self._json(HTTPStatus.OK, result)

    def _stopping(self) -> None:
        """Answer a long request that the server stopping cancelled (or never began)."""
        self._cancelled_by_stop = True
        self.close_connection = True
        self._json(HTTPStatus.SERVICE_UNAVAILABLE, {"error": STOPPING, "stopping": True}, headers={"Retry-After": "5"})

    def _refused(self, kind: str, status: int, reason: str) -> None:
        self.server.refused(kind, self.client_address[0], self.command, self.path, status, reason)

    def _error(self, method: str, path: str, e: Exception) -> None:
        """Answer the error an endpoint raised: the request's (400, a limit's 413), else racksmith's (500)."""
        # the page asks for user errors in the body of a 200 answer (a browser logs every 4xx
        # answer in its console as a failure, which a mistyped move is not); other clients get 4xx
        in_body = self._errors_in_body()
        starved = _starved_by(e)
        if starved is not None:  # the server's want (of file descriptors, of memory), not the request's, nor a defect
            self._starved(method, path, e, starved)
        elif isinstance(e, LimitError):
            self._refused(f"{e.status} {e.limit}", e.status, f"over its {e.limit} limit: {_shown(error_line(str(e)), 300)}")
            answer = {"error": error_line(str(e)), "limit": e.limit}
            if in_body:
                answer["status"] = e.status
            self._json(HTTPStatus.OK if in_body else HTTPStatus(e.status), answer)
        elif isinstance(e, RacksmithError):
            answer = {"error": error_line(str(e))}
            if getattr(e, "param", None):  # the request's field that settles it ("ruleset")
                answer["param"] = e.param
            if getattr(e, "reason", None):
                answer["reason"] = e.reason
                answer["words"] = [error_line(w) for w in e.words]
            if in_body:
                answer["status"] = 400
            self._json(HTTPStatus.OK if in_body else HTTPStatus.BAD_REQUEST, answer)
        else:  # a defect in racksmith: answer, log, keep serving (the log shows the server's paths, the answer not)
            self.server.log(f"internal error on {method} {path}: {type(e).__name__}: {error_line(str(e))}")
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR,
                       {"error": f"internal error: {type(e).__name__}: {error_line(_no_paths(str(e)))}"})

    def _starved(self, method: str, path: str, e: Exception, starved: OSError) -> None:
        """Answer a request that failed for want of file descriptors (or memory): 503, the
        connection closed (its descriptor freed), the real reason logged (rate-limited)."""
        self.close_connection = True
        fds = starved.errno in _OUT_OF_FDS
        self.server.failures("503 out of " + ("file descriptors" if fds else "memory"),
                             f"{self.client_address[0]} {_shown(method, 32)} {_shown(path)} 503: {_lacking(starved)}: "
                             f"{type(e).__name__}: {error_line(str(e))}" + _STARVED_HINTS.get(starved.errno or 0, ""))
        self._json(HTTPStatus.SERVICE_UNAVAILABLE, {"error": NO_FDS if fds else NO_MEMORY}, headers={"Retry-After": "5"})

    def _take(self, slots: "FairSlots", watch: "_ClientWatch | None") -> bool:
        """Take one of ``slots`` (in the order the requests asked), waiting up to ``max_seconds``
        (503 after that), or give up without an answer when the client goes away (``watch.gone``)
        meanwhile, with 503 when the server stops (a long request)."""
        limits = self.server.limits
        deadline = time.monotonic() + limits.max_seconds
        ticket = slots.ask()
        try:
            while True:
                left = deadline - time.monotonic()
                if slots.wait(ticket, max(0.0, left if watch is None else min(left, WATCH_EVERY))):
                    ticket = None
                    return True
                if watch is not None and watch.failed is not None:
                    self._error(self.command, urlsplit(self.path).path, watch.failed)
                    return False
                if watch is not None and watch.gone.is_set():
                    self.close_connection = True
                    return False
                if watch is not None and self.server.stopping.is_set():
                    self._stopping()
                    return False
                if time.monotonic() >= deadline:
                    most = limits.max_concurrent
                    self._refused("503 max_concurrent", 503, f"busy: its {most} computations (its "
                                  f"max_concurrent limit) stayed taken for {limits.max_seconds:g} s")
                    self._json(HTTPStatus.SERVICE_UNAVAILABLE, {
                        "error": f"the server is busy with {most} other request{'s' if most != 1 else ''} (its "
                                 "max_concurrent limit): try again", "limit": "max_concurrent"},
                        headers={"Retry-After": "5"})
                    return False
        finally:
            if ticket is not None:
                slots.give_up(ticket)

    def _errors_in_body(self) -> bool:
        """Does the request ask for its user errors in the body of a 200 answer (``X-Errors: body``)?"""
        return (self.headers.get("X-Errors") or "").strip().lower() == "body"

    # --- the request -----------------------------------------------------------------------------
    def _refusal(self) -> tuple[str, str, str] | None:
        """Why this request is refused (its Host, Origin or fetch site), or None: the kind of
        refusal, the answer's message, and the reason the log line gives."""
        srv = self.server
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1:
            return ("403 Host", "a request needs exactly one Host header", f"{len(hosts)} Host headers, not one")
        host = hosts[0].strip().lower()
        if host not in srv.hosts:
            name = _name_of(host, srv.port)
            allowed = name is not None and name in srv.host_names
            hint = (f"it names no port: this server answers to {_shown(name, 60)}:{srv.port} (a proxy in front "
                    f"must send that Host, e.g. nginx's proxy_set_header Host $host:{srv.port})"
                    if allowed and ":" not in host.rpartition("]")[2] else
                    f"add --allow-host {_shown(name, 60)} if that is this machine" if name
                    else f"the port is not {srv.port}")
            return ("403 Host", (f"host {hosts[0][:60]!r} is not this server: use http://{srv.host_names[0]}:{srv.port}/ "
                                 "(a server started with --allow-host NAME also answers to NAME)"),
                    f"Host {_shown(hosts[0], 80)} is not one of this server's names ({hint})")
        origins = self.headers.get_all("Origin") or []
        if len(origins) > 1 or (origins and origins[0].strip().lower().rstrip("/") not in srv.origins):
            return ("403 Origin", f"requests from {origins[0][:60]!r} are not answered: only this server's own page may call it",
                    f"a request from another site's page (Origin {_shown(origins[0], 80)})")
        site = (self.headers.get("Sec-Fetch-Site") or "").strip().lower()
        if site in ("cross-site", "same-site") and not self._opens_the_page():
            return ("403 cross-site", f"a {site} request is not answered: only this server's own page may call it",
                    f"a {site} request (Sec-Fetch-Site) that is not a link to the page")
        return None

    def _opens_the_page(self) -> bool:
        """Is this a link to the page followed from another site: a top-level navigation (not a
        frame, not a fetch) that GETs the page itself (never an endpoint)? The page then calls the
        API itself, as its own origin."""
        fetch = {k: (self.headers.get(f"Sec-Fetch-{k}") or "").strip().lower() for k in ("Mode", "Dest")}
        return (self.command == "GET" and urlsplit(self.path).path in _PAGE
                and fetch["Mode"] == "navigate" and fetch["Dest"] == "document")

    def _body_length(self) -> tuple[int, HTTPStatus | None, str]:
        """The body's length, or the status and message of why it is not read."""
        if self.headers.get("Transfer-Encoding"):
            return 0, HTTPStatus.BAD_REQUEST, "send the body with a Content-Length (chunked bodies are not read)"
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            return 0, None, ""
        text = lengths[0]
        if len(lengths) > 1:  # which one the body follows is ambiguous (request smuggling)
            return 0, HTTPStatus.BAD_REQUEST, "the request has more than one Content-Length"
        digits = text.strip()
        n = int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= 18 else -1
        if n < 0:
            return 0, HTTPStatus.BAD_REQUEST, f"bad Content-Length {text[:40]!r}"
        most = self.server.limits.max_body
        if n > most:
            return 0, HTTPStatus.REQUEST_ENTITY_TOO_LARGE, (
                f"the request has {n:,} bytes; this server reads requests of at most {most:,} bytes (its max_body limit)")
        return n, None, ""

    def _discard_body(self) -> None:
        """Drop the body of a request answered without it (the connection stays usable)."""
        n, status, _ = self._body_length()
        if status is not None:
            self.close_connection = True
        elif n:
            self.rfile.read(n)

    def _read_json(self) -> dict | None:
        """The body as a JSON object, or None after answering why not."""
        kind = (self.headers.get("Content-Type") or "").split(";")
        params = {k.strip().lower(): v.strip().strip('"').lower() for k, _, v in (p.partition("=") for p in kind[1:])}
        if kind[0].strip().lower() != "application/json" or params.get("charset", "utf-8") != "utf-8":
            self.close_connection = True  # the body is not read
            shown = self.headers.get("Content-Type")
            self._refused("415 Content-Type", HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                          f"a POST with Content-Type {_shown(shown, 80) if shown else '(none)'}, not application/json")
            self._json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {
                "error": "send the body as JSON with 'Content-Type: application/json'"
                + (f", not {shown[:60]!r}" if shown else " (the request has no Content-Type)")})
            return None
        n, status, message = self._body_length()
        if status is not None:
            self.close_connection = True
            answer: dict[str, Any] = {"error": message}
            if status == HTTPStatus.REQUEST_ENTITY_TOO_LARGE:
                self._refused("413 max_body", status, message)
                answer["limit"] = "max_body"
                if self._errors_in_body():  # the page's: a user error like any other
                    answer["status"] = int(status)
                    status = HTTPStatus.OK
            self._json(status, answer)
            return None
        raw = self.rfile.read(n) if n else b""
        if len(raw) != n:  # the client went away
            self.close_connection = True
            return None
        problem = None
        try:
            body = json.loads(raw.decode("utf-8")) if raw.strip() else None
        except UnicodeDecodeError as e:
            problem = f"the body is not UTF-8 (bad byte at offset {e.start})"
        except json.JSONDecodeError as e:
            # json's own messages may end in "at" ("Unterminated string starting at"): no "at at"
            where = "" if e.msg.endswith(" at") else " at"
            problem = f"the body is not JSON: {e.msg}{where} line {e.lineno}, column {e.colno}"
        except RecursionError:
            problem = "the body is nested too deeply to read as JSON"
        except ValueError as e:  # an integer of more than 4300 digits
            problem = "the body is not JSON that racksmith reads" + (
                ": it holds an integer of thousands of digits" if "integer string conversion" in str(e) else "")
        if problem is None and not isinstance(body, dict):
            problem = 'the body must be a JSON object, e.g. {"cgp": "...", "ruleset": "english"}'
        if problem is not None:
            self._json(HTTPStatus.BAD_REQUEST, {"error": problem})
            return None
        return body

    # --- the answer --------------------------------------------------------------------------------
    def _json(self, status: HTTPStatus, obj: Any, headers: dict[str, str] | None = None) -> None:
        # a lone surrogate from the request (JSON allows "\\ud800") goes back as its JSON escape
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8", "backslashreplace")
        self._send(status, data, "application/json; charset=utf-8", {"Cache-Control": "no-store", **(headers or {})})

    def _send(self, status: HTTPStatus, data: bytes, content_type: str, headers: dict[str, str]) -> None:
        if self.server.stopping.is_set():
            self.close_connection = True  # the server stops: no next request on this connection
            self._answered_at_stop = True
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Content-Type-Options", "nosniff")
        for k, v in headers.items():
            self.send_header(k, v)
        if self.close_connection:
            self.send_header("Connection", "close")
        elif self.request_version == "HTTP/1.0":  # (kept open on its Connection: keep-alive: said, or it waits for the close)
            self.send_header("Connection", "keep-alive")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
            self._sent = len(data)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Errors found by ``http.server`` itself (a malformed request line, an unknown method): JSON too."""
        self.close_connection = True
        status = HTTPStatus(code)
        # http.server's messages may echo the request line (up to 64 KB): clipped as the others
        self._json(status, {"error": error_line(message) if message else status.phrase})

    def log_message(self, format: str, *args: Any) -> None:
        """(``http.server``'s own lines: the server logs through ``log``, ``refusal_log`` and ``access_log``.)"""


class _ClientWatch:
    """Watches a connection while its request is computed: ``gone`` is set once the client has
    closed it (a read would end: the request was read whole, so nothing more is owed to it) or it
    failed, looked at every :data:`WATCH_EVERY` seconds without reading anything (a request sent
    after this one stays for the handler to read). ``cancel`` (the computation's) is set then, or
    when ``stopping`` is (the server stops: ``stopped`` is then true), or when the watch itself
    fails for another reason (the server out of file descriptors or memory: ``failed`` is then
    that error, answered 503, never blamed on the client)."""

    def __init__(self, sock: socket.socket, stopping: threading.Event | None = None):
        self.sock = sock
        self.stopping = stopping
        self.gone = threading.Event()
        self.cancel = threading.Event()
        self.stopped = False
        self.failed: OSError | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="racksmith-watch", daemon=True)

    def __enter__(self) -> "_ClientWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        try:
            with _selector() as sel:
                sel.register(self.sock, selectors.EVENT_READ)
                while not self._done.wait(WATCH_EVERY):
                    if sel.select(0) and not self.sock.recv(1, socket.MSG_PEEK):
                        break  # the end of the stream: the client closed the connection
                    if self.stopping is not None and self.stopping.is_set():
                        self.stopped = True
                        self.cancel.set()
                        return
                else:
                    return
        except (OSError, ValueError) as e:
            if isinstance(e, OSError) and not _client_gone(e):  # the server's own failure: the client is still there
                self.failed = e
                self.cancel.set()
                return
        self.gone.set()
        self.cancel.set()


class _DeadlineReader(io.RawIOBase):
    """The connection's bytes, each read bounded by the handler's deadline."""

    def __init__(self, handler: "Handler"):
        self.handler = handler
        self.sock = handler.connection

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self.handler.deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError("the request took too long to arrive")
            self.sock.settimeout(min(left, TIMEOUT))
            n = self.sock.recv_into(buffer)
        except TimeoutError:
            self.handler._timed_out = True
            raise
        if n:
            self.handler._arrived()
        return n


def _readable(sock: socket.socket, wait: float = 0.0) -> bool:
    """Has the connection bytes to read (a request sent), within ``wait`` seconds?"""
    try:
        with _selector() as sel:
            sel.register(sock, selectors.EVENT_READ)
            return bool(sel.select(wait)) and bool(sock.recv(1, socket.MSG_PEEK))
    except (OSError, ValueError):
        return False


def _name_of(host: str, port: int) -> str | None:
    """The name of a ``Host`` header value with this server's port (what --allow-host would take), or None."""
    if host.startswith("["):
        bare, _, after = host.partition("]")
        name, rest = bare + "]", after
    else:
        name, colon, rest = host.partition(":")
        rest = colon + rest
    if rest not in ("", f":{port}") or not name or any(c.isspace() or c in "/?#@" for c in name):
        return None
    return name


class _LineWriter:
    """The server's lines on stderr, written by a thread of its own: a stderr that is not read
    (a paused terminal, a pipe whose reader stopped) must not stop the server. Its handlers wrote
    their log lines themselves: once the pipe was full every connection's thread, then the one
    that accepts, waited in the write, and nothing was answered any more. A line is handed over
    and waited for while the writer keeps up (so lines come out in order, at once); once it is
    behind, nobody waits, at most :attr:`MOST` lines wait to be written, and the others are
    counted and said in one line when it catches up. A stderr that is gone (closed pipe) ends the
    writing, and nothing else."""

    MOST = 10_000
    WAIT = 0.2  #: seconds a line is waited for while the writer keeps up

    def __init__(self) -> None:
        self._lines: deque = deque()
        self._cond = threading.Condition()
        self._handed = 0  # lines handed over, and written (or given up)
        self._done = 0
        self._dropped = 0
        self._gone = False
        self._thread: threading.Thread | None = None

    def __call__(self, line: str) -> None:
        with self._cond:
            if self._gone:
                return
            if len(self._lines) >= self.MOST:
                self._dropped += 1
                return
            behind = self._handed > self._done
            self._lines.append(line)
            self._handed += 1
            number = self._handed
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._write, name="racksmith-log", daemon=True)
                self._thread.start()
            self._cond.notify_all()
            if not behind:
                self._cond.wait_for(lambda: self._done >= number, self.WAIT)

    def flush(self, timeout: float = 1.0) -> None:
        """Wait up to ``timeout`` seconds for the lines handed over to be written."""
        with self._cond:
            self._cond.wait_for(lambda: self._done >= self._handed or self._gone, timeout)

    def _write(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._lines)
                line = self._lines.popleft()
                dropped, self._dropped = (self._dropped, 0) if not self._lines else (0, self._dropped)
            try:
                sys.stderr.write(line)
                if dropped:
                    sys.stderr.write(_stamped(f"({dropped:,} log line{'s' if dropped != 1 else ''} left out: stderr "
                                              "was not being read)"))
                sys.stderr.flush()
            except (OSError, ValueError, AttributeError):  # (a closed pipe or file: nothing more is written)
                with self._cond:
                    self._gone = True
                    self._lines.clear()
            with self._cond:
                self._done += 1
                if self._gone:
                    self._done = self._handed
                self._cond.notify_all()


_WRITER = _LineWriter()


def _stamped(line: str) -> str:
    stamp = datetime.now().astimezone().isoformat(timespec="seconds")
    return f"racksmith serve: {stamp} {line}\n"


def _stderr(line: str) -> None:
    """A line of the server on stderr, with its time (ISO 8601, this machine's zone), written by
    :class:`_LineWriter` (never waiting for a stderr that is not read)."""
    _WRITER(_stamped(line))
