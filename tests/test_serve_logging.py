"""The analyzer behind a site: what a client sends never writes control codes into the
operator's log, a stderr nobody reads never stops the server, and the HTTP a proxy relies on
(HTTP/1.0 keep-alive, a malformed target, a Host without its port, requests answered in the
order they waited)."""
from __future__ import annotations

import json
import os
import re
import select
import socket
import subprocess
import sys
import threading
import time

import pytest

from racksmith.web import Analyzer, make_server
from racksmith.web import server as server_module
from racksmith.web.server import FairSlots, _LineWriter

ENTRY = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "signal.signal(signal.SIGTERM, signal.SIG_DFL); sys.argv[0] = 'racksmith'; "
         "from racksmith.cli.main import run; run()")


class Server:
    def __init__(self, **kw):
        self.logged: list[str] = []
        self.access: list[str] = []
        self.srv = make_server(Analyzer("english"), "127.0.0.1", 0, log=self.logged.append,
                               access_log=self.access.append, **kw)
        self.srv.refusals.write = self.logged.append  # (the refusal lines, here)
        self.port = self.srv.port
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def raw(self, data: bytes, read_for: float = 5.0) -> bytes:
        """Send ``data`` as is; what comes back until the server closes or ``read_for`` seconds pass."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=read_for) as sock:
            sock.sendall(data)
            out = b""
            try:
                while True:
                    got = sock.recv(65536)
                    if not got:
                        break
                    out += got
            except TimeoutError:
                pass
        return out

    def close(self) -> None:
        self.srv.shutdown()
        self.srv.server_close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def _body(answer: bytes) -> dict:
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])


@pytest.mark.parametrize("method", [b"\x1b]0;pwned\x07GET", b"\x1b[2J\x1b[HGET", b"G\x9bET", b"A" * 60000])
def test_a_method_that_is_not_a_token_is_refused_and_never_reaches_a_log_raw(server, method):
    answer = server.raw(method + b" /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % server.port)
    assert _status(answer) == 400 and "not an HTTP method" in _body(answer)["error"]
    assert len(answer) < 2000  # (the method is not echoed whole)
    lines = server.logged + server.access
    assert lines and all(c.isprintable() for line in lines for c in line) and all(len(line) < 400 for line in lines)


def test_a_refused_request_logs_its_method_escaped(server):
    answer = server.raw(b"PATCH\x7f /x HTTP/1.1\r\nHost: evil\r\n\r\n")
    assert _status(answer) == 400
    answer = server.raw(b"TRACE /x HTTP/1.1\r\nHost: evil\r\n\r\n")
    assert _status(answer) == 403
    assert any("TRACE /x 403 refused: Host evil" in line for line in server.logged), server.logged
    assert all(c.isprintable() for line in server.logged + server.access for c in line)


def test_a_malformed_absolute_target_is_a_json_400(server):
    answer = server.raw(b"GET http://[x/ HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % server.port)
    assert _status(answer) == 400 and "not an address" in _body(answer)["error"]
    assert not any("failed" in line for line in server.logged), server.logged


def test_an_http_10_keep_alive_connection_is_said_to_be_kept(server):
    """(``ab -k`` waited for a close that came only after the 30 s idle timeout)"""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        for _ in range(2):  # two answers on one connection
            sock.sendall(b"GET /api/rulesets HTTP/1.0\r\nHost: 127.0.0.1:%d\r\nConnection: keep-alive\r\n\r\n"
                         % server.port)
            head = b""
            while b"\r\n\r\n" not in head:
                head += sock.recv(1)
            assert head.startswith(b"HTTP/1.1 200") and b"Connection: keep-alive" in head, head
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
            body = b""
            while len(body) < length:
                body += sock.recv(length - len(body))
    answer = server.raw(b"GET /api/rulesets HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n\r\n" % server.port)
    assert _status(answer) == 200 and b"keep-alive" not in answer  # (closed, as HTTP/1.0 has it)


def test_a_host_without_its_port_is_told_so(server):
    answer = server.raw(b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert _status(answer) == 403
    line = next(line for line in server.logged if "403 refused" in line)
    assert "names no port" in line and f"127.0.0.1:{server.port}" in line and "--allow-host" not in line


def test_requests_waiting_for_a_slot_get_it_in_their_order():
    slots = FairSlots(1)
    assert slots.acquire(timeout=1)
    order = []

    def waiter(name: str) -> None:
        ticket = slots.ask()
        while not slots.wait(ticket, 0.01):  # (short steps, as a request watching its client waits)
            pass
        order.append(name)
        time.sleep(0.02)
        slots.release()

    threads = []
    for name in "ABCDE":
        t = threading.Thread(target=waiter, args=(name,))
        t.start()
        threads.append(t)
        time.sleep(0.05)  # (each asks after the one before)
    slots.release()
    for t in threads:
        t.join(10)
    assert order == list("ABCDE")


def test_a_stderr_nobody_reads_does_not_stop_the_server():
    """``racksmith serve --access-log`` with stderr a pipe that is never read: once the pipe was
    full every connection's thread waited in its log write, and nothing was answered."""
    proc = subprocess.Popen([sys.executable, "-c", ENTRY, "serve", "--port", "0", "--access-log",
                             "--max-connections", "8"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "COLUMNS": "300"})
    try:
        line = proc.stderr.readline().decode()
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", line).group(1))
        long_path = b"/api/rulesets?" + b"x" * 150  # (a longer log line: the pipe's 64 KB fill sooner)
        request = b"GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (long_path, port)
        for i in range(1500):  # about 300 KB of log lines, nobody reading them
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(request)
                assert sock.recv(12).startswith(b"HTTP/1.1 200"), i
        # then the lines come out when stderr is read again, with the count of those left out
        proc.terminate()
        err = b""
        while True:
            ready, _, _ = select.select([proc.stderr], [], [], 30)
            chunk = os.read(proc.stderr.fileno(), 1 << 20) if ready else b""
            if not chunk:
                break
            err += chunk
        assert err.count(b" GET /api/rulesets?") >= 100
    finally:
        proc.kill()
        proc.wait()


def test_a_stderr_that_is_gone_leaves_every_request_answered(monkeypatch):
    """(``racksmith serve 2>&1 | head``: the first refusal's log line failed with a broken pipe
    before its answer was sent, and the client got nothing)"""
    class Gone:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(server_module, "_WRITER", _LineWriter())
    monkeypatch.setattr(sys, "stderr", Gone())
    srv = make_server(Analyzer("english"), "127.0.0.1", 0, access_log=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
                sock.sendall(b"GET /api/rulesets HTTP/1.1\r\nHost: evil\r\n\r\n")
                assert sock.recv(12).startswith(b"HTTP/1.1 403")
    finally:
        srv.shutdown()
        srv.server_close()


def test_the_line_writer_keeps_order_and_counts_what_it_left_out(monkeypatch, capsys):
    w = _LineWriter()
    w.MOST = 3
    for i in range(3):
        w(f"line {i}\n")
    w.flush()
    assert capsys.readouterr().err == "line 0\nline 1\nline 2\n"

    gate = threading.Event()
    real = sys.stderr

    class Slow:
        def write(self, text):
            gate.wait(10)
            real.write(text)

        def flush(self):
            real.flush()

    monkeypatch.setattr(sys, "stderr", Slow())
    started = time.monotonic()
    for i in range(10):  # the writer is stuck on the first: nobody waits, 3 wait, the others are counted
        w(f"more {i}\n")
    assert time.monotonic() - started < 2
    gate.set()
    w.flush(5)
    monkeypatch.setattr(sys, "stderr", real)
    err = capsys.readouterr().err
    assert err.startswith("more 0\nmore 1\nmore 2\n") and "6 log lines left out" in err, err


def test_the_rulesets_endpoint_reads_no_leave_file(monkeypatch):
    """(``GET /api/rulesets`` read each shipped leave set, megabytes, to learn that it is there:
    20-28 ms a call over HTTP, 20 times the other quick endpoints)"""
    from racksmith.lexicon import shipped_leaves

    api = Analyzer("english")
    api.rulesets_info()
    reads = []
    real = shipped_leaves._data
    monkeypatch.setattr(shipped_leaves, "_data", lambda *a: reads.append(a) or real(*a))
    info = api.rulesets_info()
    assert reads == [] and {r["name"]: r["leaves"] for r in info["rulesets"]} == {
        "english": True, "russian": True, "erudit": True, "super": True}
