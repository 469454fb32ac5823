"""The Ray backend's audit: the signal handlers ray.init took over, an address that is no Ray
cluster, a cluster that wants a token (skipped without Ray; the tests that start Ray start a
private local instance, as tests/test_ray_backend.py does)."""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import types

import pytest

ray = pytest.importorskip("ray")

from racksmith.errors import RacksmithError  # noqa: E402
from racksmith.play import backends, match  # noqa: E402
from racksmith.play.backends import check_address  # noqa: E402
from test_ray_backend import _ray_stopped_at_the_end  # noqa: E402,F401  (Ray shut down after the module's tests)

SETTINGS = bytes((0, 0, 0, 4, 0, 0, 0, 0, 0))  # an empty HTTP/2 SETTINGS frame, as a gRPC server sends first


@contextlib.contextmanager
def _server(answer: bytes | None, host: str = "127.0.0.1"):
    """A TCP server on a free port of ``host`` that reads what a client sends and answers
    ``answer`` (None: nothing, the connection kept open until the client hangs up; b"": closed at
    once); yields its port."""
    srv = socket.socket()
    srv.bind((host, 0))
    srv.listen()
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                with contextlib.suppress(OSError):
                    if answer == b"":
                        continue
                    conn.recv(1024)
                    if answer is not None:
                        conn.sendall(answer)
                    conn.recv(1024)  # (until the client hangs up)

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        yield srv.getsockname()[1]
    finally:
        stop.set()
        srv.close()


def test_a_port_out_of_range_is_refused_at_once():
    """127.0.0.1:99999 hung (Ray tried to join it for minutes, the docstring said Ray refused it);
    refused before anything starts, with the address."""
    t0 = time.perf_counter()
    for address, port in (("127.0.0.1:99999", "99999"), ("head:0", "0"), ("ray://head:70000", "70000"),
                          ("head:x", "x")):
        with pytest.raises(RacksmithError, match=rf"^Ray address '{address}': the port must be a whole number "
                                                 rf"from 1 to 65535, got '{port}'$"):
            check_address(address)
    with pytest.raises(RacksmithError, match="the port must be a whole number from 1 to 65535"):
        match("score", "score", 2, backend="ray", address="127.0.0.1:99999")
    assert time.perf_counter() - t0 < 2


@pytest.mark.parametrize("answer", [b"HTTP/1.0 400 Bad Request\r\n\r\n", None, b""],
                         ids=["http1", "silent", "closes"])
def test_an_address_that_is_no_ray_cluster_is_refused_in_seconds(answer):
    """Something listens but speaks no gRPC (python -m http.server; a server that says nothing or
    hangs up): one line in seconds, where Ray printed "Failed to connect to GCS" for ~14 minutes."""
    with _server(answer) as port:
        t0 = time.perf_counter()
        with pytest.raises(RacksmithError) as e:
            check_address(f"127.0.0.1:{port}", timeout=0.5)
        assert time.perf_counter() - t0 < 2
    assert str(e.value) == (f"no Ray cluster answers at 127.0.0.1:{port} (it accepts connections but does not "
                            "speak Ray's protocol: is this the head's GCS port, 6379 by default?)")


def test_an_http2_server_passes_and_tls_is_not_probed(monkeypatch):
    """An HTTP/2 server's SETTINGS frame is what Ray's GCS answers (checked against a real one
    below); with RAY_USE_TLS the servers speak TLS, so only the connection is checked."""
    monkeypatch.setattr(backends, "_node_ip", lambda: None)
    with _server(SETTINGS + b"\0" * 20) as port:
        check_address(f"127.0.0.1:{port}", timeout=2)
        check_address(f"ray://127.0.0.1:{port}", timeout=2)
    with _server(None) as port:
        monkeypatch.setenv("RAY_USE_TLS", "1")
        check_address(f"127.0.0.1:{port}", timeout=0.5)


def test_a_loopback_address_is_checked_where_ray_connects(monkeypatch):
    """Ray joins 127.0.0.1:P / localhost:P at this node's IP address: a server listening on the
    loopback only (an ssh tunnel) passed the check, then Ray tried another address for minutes."""
    monkeypatch.setattr(backends, "_node_ip", lambda: "127.0.0.2")  # (any loopback IP but the one listened on)
    with _server(SETTINGS) as port:
        with pytest.raises(RacksmithError, match=rf"^cannot join the Ray cluster at '127.0.0.1:{port}' \(Ray "
                                                 rf"connects to this node's IP address for it: 127.0.0.2:{port}\): "
                                                 "connection refused; start it"):
            check_address(f"127.0.0.1:{port}", timeout=2)
        check_address(f"ray://127.0.0.1:{port}", timeout=2)  # (a Ray client connects where it is told)


def test_the_node_ip_is_the_one_ray_joins_a_loopback_address_at():
    services = pytest.importorskip("ray._private.services")
    assert backends._node_ip() == services.resolve_ip_for_localhost("127.0.0.1")


def _fake_ray(error: Exception):
    def init(**kwargs):
        raise error

    return types.SimpleNamespace(is_initialized=lambda: False, init=init)


@pytest.mark.parametrize("address, auth_mode, hint", [
    ("10.0.0.9:6379", None, True), ("10.0.0.9:6379", "token", False), ("10.0.0.9:6379", "disabled", False),
    ("ray://10.0.0.9:10001", None, False), (None, None, False)])
def test_a_failed_join_hints_at_token_authentication(monkeypatch, address, auth_mode, hint):
    """A cluster started by `ray start` (Ray 2.60) wants a token: joining it by its address without
    RAY_AUTH_MODE=token failed after ~20 s with only "Failed to connect to Ray cluster at H:P"."""
    failure = ConnectionError("Failed to connect to Ray cluster at 10.0.0.9:6379")
    monkeypatch.setattr(backends, "ray_module", lambda: _fake_ray(failure))
    monkeypatch.setattr(backends, "check_address", lambda address: None)
    if auth_mode is None:
        monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    else:
        monkeypatch.setenv("RAY_AUTH_MODE", auth_mode)
    with pytest.raises(RacksmithError) as e:
        with backends.Runner(None, backend="ray", address=address, jobs=1):
            pass
    what = "start a local Ray instance" if address is None else f"join the Ray cluster at {address!r}"
    assert str(e.value) == (f"cannot {what}: Failed to connect to Ray cluster at 10.0.0.9:6379"
                            + (" (a cluster started by `ray start` may require token authentication: "
                               "set RAY_AUTH_MODE=token)" if hint else ""))


def test_handlers_are_kept_and_a_signal_during_the_start_waits_for_its_end():
    """What the Runner does around ray.init, without Ray: ray.init's signal.signal(SIGTERM, ...)
    changes nothing; starting a local instance, a SIGTERM that comes meanwhile is handled once
    the start is over (in the middle of it, it left Ray's agents running), by the handler."""
    got = []

    def handler(signum, frame):
        got.append(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        def rays(signum, frame):  # (ray.init's)
            sys.exit(signum)

        with backends._signal_handlers_kept(defer=True):
            signal.signal(signal.SIGTERM, rays)
            assert signal.getsignal(signal.SIGTERM) not in (rays, handler)  # (a handler that notes it)
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100):
                time.sleep(0.001)
            assert got == []
        assert got == [signal.SIGTERM] and signal.getsignal(signal.SIGTERM) is handler
        with backends._signal_handlers_kept():  # (joining a cluster: the handler stays at work)
            signal.signal(signal.SIGTERM, rays)
            assert signal.getsignal(signal.SIGTERM) is handler
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100):
                time.sleep(0.001)
            assert got == [signal.SIGTERM] * 2
        assert signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_second_signal_during_the_start_is_handled_at_once():
    """A local start that hangs can still be stopped: the first signal waits for its end, the
    second is handled at once (and not again when the block ends)."""
    got = []

    def handler(signum, frame):
        got.append(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        with backends._signal_handlers_kept(defer=True):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100):
                time.sleep(0.001)
            assert got == []
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100):
                time.sleep(0.001)
            assert got == [signal.SIGTERM]
        assert got == [signal.SIGTERM] and signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.slow
def test_a_ray_match_leaves_the_signal_handlers_as_they_were():
    """racksmith.match(..., backend="ray") replaced a host program's SIGTERM handler for good
    (ray.init sets its own sys.exit)."""
    if ray.is_initialized():
        ray.shutdown()  # (the Runner's own ray.init is the one to check)

    def handler(signum, frame):
        pass

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        sigint = signal.getsignal(signal.SIGINT)
        match("equity:leaves=none", "score", 4, seed=1, backend="ray")
        assert signal.getsignal(signal.SIGTERM) is handler and signal.getsignal(signal.SIGINT) is sigint
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.slow
def test_the_check_passes_a_real_ray_gcs():
    """The HTTP/2 probe against Ray's own GCS (a private local instance's)."""
    if not ray.is_initialized():
        ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    host, _, port = ray.get_runtime_context().gcs_address.rpartition(":")
    check_address(f"{host}:{port}")
    check_address(f"127.0.0.1:{port}")  # (Ray joins it at this node's IP address: listened on too)


@pytest.mark.slow
def test_sigterm_stops_a_ray_match_as_it_stops_a_local_one(tmp_path):
    """SIGTERM in the middle of `match --backend ray`: exit 143 with the "interrupted after N of M
    games" line, as with the local backend; it exited 15, silently, with Ray's C++ stack dump
    ("*** SIGTERM received at time=...")."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("RAY_ADDRESS", None)
    games = tmp_path / "gcg"
    proc = subprocess.Popen([sys.executable, "-m", "racksmith", "match", "--p1", "score", "--p2", "score",
                             "--games", "200000", "--seed", "3", "--backend", "ray", "--gcg-dir", str(games)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        # games being played: Ray is up (a record written, not the folder's lock file, there from the start,
        # while Python still imports Ray: a signal then is Ctrl-C during an import, a known limit)
        while not (games.is_dir() and any(games.glob("*.gcg"))):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else "slow"
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 143, err
    assert "racksmith: interrupted after " in err and " of 200,000 games" in err
    assert "SIGTERM received" not in err
