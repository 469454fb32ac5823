"""``racksmith serve`` out of file descriptors (a low ``ulimit -n``, connections held open): it
spun on accept() failing with EMFILE (44% CPU, nothing logged, new requests waiting 30 s), its
client watch failing with EMFILE blamed the client and left requests unanswered, and the first
simulations got a 500 showing a server path (a lazy import that could not open its files). Now:
one rate-limited line, a pause (or 503s to the connections waiting), a 503 for a request that
failed for want of descriptors, and the endpoints' modules imported before the server listens."""
from __future__ import annotations

import errno
import http.client
import json
import os
import re
import selectors
import socket
import socketserver
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from racksmith.web import Analyzer, make_server
from racksmith.web import server as server_module
from racksmith.web.server import _ClientWatch

resource = pytest.importorskip("resource")  # (a child's ulimit -n: POSIX)

OUTGUN = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"
FIXTURES = Path(__file__).parent / "fixtures"
ENDGAME = json.loads((FIXTURES / "endgames_magpie.jsonl").read_text(encoding="utf-8").splitlines()[0])["cgp"]
ENTRY = "import sys; sys.argv[0] = 'racksmith'; from racksmith.cli.main import run; run()"
LIMIT = 16  #: the child's ulimit -n
#: what a request gets when the server is out of file descriptors
NO_FDS = "the server is out of file descriptors (too many open files): try again in a moment"


def _emfile(*args, **kwargs):
    raise OSError(errno.EMFILE, "Too many open files")


def post(port: int, path: str, body: dict, timeout: float = 30) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        res = conn.getresponse()
        return res.status, json.loads(res.read())
    finally:
        conn.close()


def ask_raw(port: int, path: str = "/api/rulesets", timeout: float = 10) -> tuple[int | None, dict]:
    """GET ``path`` on a connection of its own, reading what is answered even when the server
    answered before the request arrived (a 503 at accept: http.client's send then fails, EPIPE)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        except OSError:
            pass
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                n = re.search(rb"Content-Length: (\d+)", head)
                if n and len(body) >= int(n.group(1)):
                    break
        except OSError:
            pass
    m = re.match(rb"HTTP/1.1 (\d+) ", data)
    return (int(m.group(1)), json.loads(data.partition(b"\r\n\r\n")[2])) if m else (None, {"got": data.decode("latin-1")})


@contextmanager
def running(**kwargs):
    lines: dict[str, list[str]] = {"log": [], "access": []}
    srv = make_server(Analyzer("english"), "127.0.0.1", 0, log=lines["log"].append,
                      access_log=lines["access"].append, refusal_log=lambda line: None, **kwargs)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield srv, lines
    finally:
        srv.shutdown()
        srv.server_close()


@contextmanager
def starved_server():
    """``racksmith serve --access-log`` in a process whose ulimit -n is :data:`LIMIT`: (process, port, its stderr lines)."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))

    proc = subprocess.Popen([sys.executable, "-c", ENTRY, "serve", "--port", "0", "--access-log"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=limit,
                            env={**os.environ, "COLUMNS": "300"})
    try:
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line + proc.stderr.read()
        lines: list[str] = []
        threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True).start()
        yield proc, int(m.group(1)), lines
    finally:
        proc.kill()
        proc.wait()


def cpu_seconds(pid: int) -> float:
    """The process's CPU time (user + system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- 1. accept() out of descriptors: no busy loop, one line, 503s -----------------------------------
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the server's CPU time in /proc")
def test_a_server_out_of_descriptors_does_not_spin_and_says_why_once():
    """14 idle connections held under ulimit -n 16: the server spun on accept4 -> EMFILE (0.85 s of
    CPU in 2 s here, 44% for the auditor), logged nothing, and a new request waited 30 s."""
    with starved_server() as (proc, port, lines):
        held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(LIMIT - 2)]
        try:
            time.sleep(0.5)
            before = cpu_seconds(proc.pid)
            time.sleep(2)
            spent = cpu_seconds(proc.pid) - before
            started = time.monotonic()
            status, answer = ask_raw(port)
            waited = time.monotonic() - started
        finally:
            for s in held:
                s.close()
        time.sleep(0.3)
    assert spent < 0.3, f"{spent:.2f} s of CPU in 2 s while idle"
    assert (status, answer) == (503, {"error": NO_FDS}) and waited < 5, (status, answer, waited)
    said = [line for line in lines if "cannot accept connections" in line]
    assert len(said) == 1, lines
    assert f"cannot accept connections: too many open files (ulimit -n {LIMIT}): " in said[0], said
    assert "raise ulimit -n, or lower --max-connections" in said[0], said


def test_concurrent_long_requests_out_of_descriptors_are_answered():
    """6 endgames and 4 simulations at once under ulimit -n 16: some got no answer (the client watch
    failed to open an epoll descriptor, and that was taken for the client going away), the first
    simulations a 500 naming a server path (concurrent.futures imported at first use)."""
    with starved_server() as (proc, port, lines):
        # the shipped leaves and the lexicon read first, while descriptors are free (the shipped leaves
        # read out of descriptors are "no shipped leaves 'english'", a 400: lexicon/shipped_leaves.py's _data)
        assert post(port, "/api/moves", {"cgp": OUTGUN, "sort": "equity", "top": 1})[0] == 200
        got: list = []

        def ask(path: str, body: dict) -> None:
            try:
                got.append(post(port, path, body))
            except (OSError, http.client.HTTPException) as e:
                got.append((None, {"error": repr(e)}))

        threads = [threading.Thread(target=ask, args=("/api/endgame", {"cgp": ENDGAME, "top": 2})) for _ in range(6)]
        threads += [threading.Thread(target=ask, args=("/api/sim", {"cgp": OUTGUN, "iterations": 50, "seconds": 2}))
                    for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        time.sleep(0.3)
    statuses = [status for status, _ in got]
    assert len(got) == 10 and set(statuses) <= {200, 503} and 200 in statuses, got
    assert all(answer == {"error": NO_FDS} for status, answer in got if status == 503), got
    assert not [line for line in lines if "no answer" in line or " 500 " in line or "internal error" in line], lines


def test_accept_out_of_descriptors_backs_off(monkeypatch):
    """With no reserve descriptor to answer the connection waiting, the server pauses accepting
    (ACCEPT_BACKOFF) instead of retrying at once: a few tries a second, not thousands."""
    calls = []

    def failing(self):
        calls.append(time.monotonic())
        _emfile()

    monkeypatch.setattr(socketserver.TCPServer, "get_request", failing)
    monkeypatch.setattr(server_module, "_reserve_fd", lambda: None, raising=False)
    with running() as (srv, lines):
        with socket.create_connection(("127.0.0.1", srv.port), timeout=10):  # (waits in the queue: readable)
            time.sleep(1.0)
            n = len(calls)
    assert 1 <= n <= 10, f"{n} accept() tries in 1 s"
    assert len([line for line in lines["log"] if line.startswith("cannot accept connections: too many open files")]) == 1, lines


def test_accept_out_of_descriptors_answers_the_connection_waiting_503(monkeypatch):
    """The reserve descriptor, closed for a moment, lets the server answer the connection waiting
    503 (it waited until an idle connection closed: 30 s) and close it."""
    monkeypatch.setattr(socketserver.TCPServer, "get_request", lambda self: _emfile())
    with running() as (srv, lines):
        started = time.monotonic()
        status, answer = ask_raw(srv.port)
        assert time.monotonic() - started < 5
        until = time.monotonic() + 2
        while srv._reserve is None and time.monotonic() < until:  # (taken again, once the answer is sent)
            time.sleep(0.01)
        assert srv._reserve is not None
    assert (status, answer) == (503, {"error": NO_FDS})
    assert any(line.endswith("503 233 0ms (the server is out of file descriptors)") for line in lines["access"]), lines


# --- 2. the client watch: only a client gone is a client gone ---------------------------------------------------
@pytest.mark.parametrize("error, gone", [
    (OSError(errno.EMFILE, "Too many open files"), False),
    (OSError(errno.ENOMEM, "Cannot allocate memory"), False),
    (ConnectionResetError(errno.ECONNRESET, "Connection reset by peer"), True),
    (OSError(errno.EBADF, "Bad file descriptor"), True),
    (ValueError("Invalid file descriptor: -1"), True),
])
def test_the_watch_blames_the_client_only_for_its_own_errors(monkeypatch, error, gone):
    def failing(*args, **kwargs):
        raise error

    for name in ("DefaultSelector", "PollSelector", "EpollSelector", "SelectSelector"):
        if hasattr(selectors, name):
            monkeypatch.setattr(selectors, name, failing)
    a, b = socket.socketpair()
    with a, b:
        with _ClientWatch(a) as watch:
            assert watch.cancel.wait(5)
        assert watch.gone.is_set() is gone
        assert getattr(watch, "failed", None) is (None if gone else error)


def test_the_watch_sees_a_client_that_closed():
    a, b = socket.socketpair()
    with a:
        with _ClientWatch(a) as watch:
            b.close()
            assert watch.cancel.wait(5)
        assert watch.gone.is_set() and getattr(watch, "failed", None) is None


def test_a_watch_out_of_descriptors_is_answered_503_not_blamed_on_the_client(monkeypatch):
    """The watch of a long request could not open its selector (EMFILE): the request was cancelled
    with no answer, logged as "the client went away"."""
    for name in ("DefaultSelector", "PollSelector", "EpollSelector"):
        if hasattr(selectors, name):
            monkeypatch.setattr(selectors, name, _emfile)
    with running() as (srv, lines):
        status, answer = post(srv.port, "/api/sim", {"cgp": OUTGUN, "iterations": 100000, "seconds": 5, "stop": None})
        time.sleep(0.2)
    assert (status, answer) == (503, {"error": NO_FDS})
    assert not [line for line in lines["access"] if "no answer" in line], lines
    assert [line for line in lines["access"] if "POST /api/sim 503" in line], lines
    assert len(lines["log"]) == 1 and "POST /api/sim 503: too many open files" in lines["log"][0], lines


# --- 3. a request failing for want of descriptors: 503; a 500 shows no server path -----------------------------
def test_a_request_out_of_descriptors_is_a_503_without_the_path(monkeypatch):
    def broken(analyzer, body):
        raise OSError(errno.EMFILE, "Too many open files", "/srv/secret/lib/python3.11/concurrent")

    monkeypatch.setitem(server_module.ROUTES, "/api/position", ("POST", broken))
    with running() as (srv, lines):
        status, answer = post(srv.port, "/api/position", {"cgp": OUTGUN})
    assert (status, answer) == (503, {"error": NO_FDS})
    assert len(lines["log"]) == 1, lines
    line = lines["log"][0]  # (the operator's line has the real reason, the path included)
    assert line.startswith("127.0.0.1 POST /api/position 503: too many open files (ulimit -n "), line
    assert "/srv/secret/lib/python3.11/concurrent" in line, line


def test_a_resource_failure_under_a_racksmith_error_is_a_503(monkeypatch):
    from racksmith.errors import RacksmithError

    def broken(analyzer, body):
        try:
            raise OSError(errno.ENFILE, "Too many open files in system")
        except OSError as e:
            raise RacksmithError("cannot read the lexicon") from e

    monkeypatch.setitem(server_module.ROUTES, "/api/position", ("POST", broken))
    with running() as (srv, lines):
        assert post(srv.port, "/api/position", {"cgp": OUTGUN}) == (503, {"error": NO_FDS})


def test_an_internal_error_shows_no_server_path(monkeypatch):
    def broken(analyzer, body):
        raise ImportError("cannot import name 'x' from 'racksmith.sim' (/srv/secret/racksmith/sim/__init__.py)")

    monkeypatch.setitem(server_module.ROUTES, "/api/position", ("POST", broken))
    with running() as (srv, lines):
        status, answer = post(srv.port, "/api/position", {"cgp": OUTGUN})
    assert status == 500 and "/srv/secret" not in answer["error"], answer
    assert answer["error"] == "internal error: ImportError: cannot import name 'x' from 'racksmith.sim' (<path>)", answer
    assert "/srv/secret/racksmith/sim/__init__.py" in lines["log"][0], lines  # (the operator sees it)


def test_the_endpoints_import_nothing_after_load_everything():
    """Every module an endpoint imports at first use is imported by load_everything() (before the
    server listens): an import opens files, and one out of descriptors failed (a 500)."""
    script = f"""
import json, sys
from pathlib import Path
from racksmith.web import Analyzer
from racksmith.web.server import ROUTES, load_everything
F = Path({str(FIXTURES)!r})
analyzer = Analyzer("english", None, F / "SYNTH.klv2")
load_everything()
# (a shipped leave set made at its first use, /api/rulesets with a cold cache: 15 s, not run here)
missing = sorted({{"racksmith.training.leavegen", "racksmith.training.tally"}} - set(sys.modules))
OUTGUN = {OUTGUN!r}
EMPTY = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/0 0"
calls = [("/api/position", {{"cgp": OUTGUN}}), ("/api/moves", {{"cgp": OUTGUN, "exchanges": True, "sort": "equity"}}),
         ("/api/score", {{"cgp": OUTGUN, "move": "9H RE"}}), ("/api/validate", {{"cgp": OUTGUN, "move": "pass"}}),
         ("/api/sim", {{"cgp": OUTGUN, "iterations": 20, "seconds": 2}}),
         ("/api/sim", {{"cgp": "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0",
                       "iterations": 20, "seconds": 2, "infer": "8D OUTGUN"}}),
         ("/api/gcg", {{"text": (F / "gcg" / "game01_seed1.gcg").read_text(encoding="utf-8")}}),
         ("/api/play", {{"cgp": OUTGUN, "move": "pass"}}), ("/api/endgame", {{"cgp": {ENDGAME!r}, "top": 2}}),
         ("/api/best", {{"cgp": OUTGUN, "seconds": 1}}), ("/api/export", {{"turns": [{{"cgp": EMPTY, "move": "8D OSIER"}}]}})]
before = set(sys.modules)
for path, body in calls:
    try:
        ROUTES[path][1](analyzer, body)
    except ValueError:  # (a request the endpoint refuses still took its path)
        pass
print(json.dumps({{"missing": missing, "imported later": sorted(set(sys.modules) - before)}}))
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == {"missing": [], "imported later": []}, run.stdout
