"""The local web analyzer over HTTP: the page (``web/static``) and the JSON API of
:class:`~racksmith.web.api.Analyzer`, served by Python's ``http.server`` (a thread per connection).

Every answer is JSON except the page's own files. Bad requests get ``400 {"error": "one line"}``
(an illegal move adds its ``reason`` and ``words``); bodies over :data:`MAX_BODY` get 413, unknown
paths 404, a wrong method 405. A failure in racksmith itself is ``500 {"error": ...}``, logged as
one line: it never ends the server.
"""
from __future__ import annotations

import json
import socket
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, Callable
from urllib.parse import urlsplit

from .. import __version__
from ..errors import RacksmithError
from .api import Analyzer

MAX_BODY = 1 << 20  #: the largest request body read, in bytes
#: seconds a connection may stay silent before the server drops it
TIMEOUT = 30

#: path -> (method, endpoint)
ROUTES: dict[str, tuple[str, Callable[[Analyzer, dict], Any]]] = {
    "/api/rulesets": ("GET", lambda a, body: a.rulesets_info()),
    "/api/position": ("POST", Analyzer.position),
    "/api/moves": ("POST", Analyzer.moves),
    "/api/score": ("POST", Analyzer.score),
    "/api/validate": ("POST", Analyzer.validate),
    "/api/gcg": ("POST", Analyzer.gcg),
}

_CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
#: the page loads only its own files and talks only to this server
_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'none'"
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}


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


class AnalyzerServer(ThreadingHTTPServer):
    """An HTTP server holding the analyzer and the page. ``log`` receives one line per failure
    (default: stderr)."""

    daemon_threads = True

    def __init__(self, analyzer: Analyzer, host: str = "127.0.0.1", port: int = 8765,
                 log: Callable[[str], None] | None = None):
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.analyzer = analyzer
        self.static = load_static()
        self.log = log if log is not None else _stderr
        self.loopback = host in _LOOPBACK_NAMES or host.startswith("127.")
        super().__init__((host, port), Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"

    def handle_error(self, request, client_address) -> None:
        """A connection that failed outside a request (the client went away): one line, no traceback."""
        err = sys.exc_info()[1]
        if not isinstance(err, (ConnectionError, TimeoutError)):
            self.log(f"connection from {client_address[0]} failed: {type(err).__name__}: {err}")


def make_server(analyzer: Analyzer, host: str = "127.0.0.1", port: int = 8765,
                log: Callable[[str], None] | None = None) -> AnalyzerServer:
    """A server listening on ``host:port`` (port 0 picks a free one; see ``server.url``); run it
    with ``serve_forever()`` and stop it with ``shutdown()`` then ``server_close()``."""
    return AnalyzerServer(analyzer, host, port, log)


class Handler(BaseHTTPRequestHandler):
    server: AnalyzerServer
    server_version = f"racksmith/{__version__}"
    protocol_version = "HTTP/1.1"
    timeout = TIMEOUT
    disable_nagle_algorithm = True  # the head and the body leave at once (no 40 ms delayed-ACK stall)

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

    def _not_allowed(self, allowed: str) -> None:
        self._discard_body()
        self._json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": f"{self.command} is not allowed here: use {allowed}"},
                   headers={"Allow": allowed})

    def _dispatch(self, method: str) -> None:
        if not self._host_allowed():
            self._discard_body()
            self._json(HTTPStatus.FORBIDDEN, {"error": f"host {self.headers.get('Host')!r} is not this local server"})
            return
        path = urlsplit(self.path).path
        static = self.server.static.get(path)
        if static is not None:
            if method not in ("GET", "HEAD"):
                self._not_allowed("GET, HEAD")
                return
            self._discard_body()
            self._send(HTTPStatus.OK, static[0], static[1], {"Cache-Control": "no-cache", "Content-Security-Policy": _CSP})
            return
        route = ROUTES.get(path)
        if route is None:
            self._discard_body()
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no such page or endpoint: {path}"})
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
        try:
            result = endpoint(self.server.analyzer, body)
        except RacksmithError as e:
            answer = {"error": _one_line(str(e))}
            if getattr(e, "reason", None):
                answer["reason"] = e.reason
                answer["words"] = list(e.words)
            self._json(HTTPStatus.BAD_REQUEST, answer)
            return
        except Exception as e:  # a defect in racksmith: answer, log, keep serving
            self.server.log(f"internal error on {method} {path}: {type(e).__name__}: {_one_line(str(e))}")
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {type(e).__name__}: {_one_line(str(e))}"})
            return
        self._json(HTTPStatus.OK, result)

    # --- the request -----------------------------------------------------------------------------
    def _host_allowed(self) -> bool:
        """On a loopback address, only requests addressed to a loopback name (no DNS rebinding)."""
        host = self.headers.get("Host")
        if not self.server.loopback or host is None:
            return True
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        name = name.strip("[]").lower()
        return name in _LOOPBACK_NAMES or name.startswith("127.")

    def _body_length(self) -> tuple[int, HTTPStatus | None, str]:
        """The body's length, or the status and message of why it is not read."""
        if self.headers.get("Transfer-Encoding"):
            return 0, HTTPStatus.BAD_REQUEST, "send the body with a Content-Length (chunked bodies are not read)"
        text = self.headers.get("Content-Length")
        if text is None:
            return 0, None, ""
        try:
            n = int(text)
        except ValueError:
            n = -1
        if n < 0:
            return 0, HTTPStatus.BAD_REQUEST, f"bad Content-Length {text[:40]!r}"
        if n > MAX_BODY:
            return 0, HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the body has {n} bytes; the limit is {MAX_BODY} (1 MB)"
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
        n, status, message = self._body_length()
        if status is not None:
            self.close_connection = True
            self._json(status, {"error": message})
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
            problem = f"the body is not JSON: {e.msg} at line {e.lineno}, column {e.colno}"
        except RecursionError:
            problem = "the body is nested too deeply to read as JSON"
        if problem is None and not isinstance(body, dict):
            problem = 'the body must be a JSON object, e.g. {"cgp": "...", "ruleset": "english"}'
        if problem is not None:
            self._json(HTTPStatus.BAD_REQUEST, {"error": problem})
            return None
        return body

    # --- the answer --------------------------------------------------------------------------------
    def _json(self, status: HTTPStatus, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self._send(status, data, "application/json; charset=utf-8", {"Cache-Control": "no-store", **(headers or {})})

    def _send(self, status: HTTPStatus, data: bytes, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Content-Type-Options", "nosniff")
        for k, v in headers.items():
            self.send_header(k, v)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Errors found by ``http.server`` itself (a malformed request line, an unknown method): JSON too."""
        self.close_connection = True
        status = HTTPStatus(code)
        self._json(status, {"error": message or status.phrase})

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged one by one: only failures, through the server's ``log``."""


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else "error"


def _stderr(line: str) -> None:
    sys.stderr.write(f"racksmith serve: {line}\n")
    sys.stderr.flush()
