"""Where batches of games run: this process, a local process pool, or Ray.

A *job* is a picklable, hashable value with two methods: ``setup()`` loads what a worker needs
(lexicon, leaves, players) and ``run(state, batch)`` plays one batch (a list of game indices) and
returns its result. Each worker process sets a job up once and keeps it (:func:`_state`); the
driver gathers the results by batch, so what a run computes does not depend on how many workers
played it, on which machines, or in which order they finished.

``backend="local"`` (the default) uses ``jobs`` processes of this machine (none: this process,
for ``jobs=1``). ``backend="ray"`` runs each batch as a Ray task: ``address=None`` starts a private
local Ray instance with ``jobs`` CPUs (stopped at the end; never a cluster running on this machine
or named by ``RAY_ADDRESS``), ``address="auto"`` or ``"host:port"`` joins a running cluster (every
node needs racksmith installed: ``pip install '.[ray]'`` from a checkout). ``jobs=None`` is the backend's
default: 1, but the cluster's CPUs when joining one (or when Ray was already initialised). While a
Runner's Ray is up, what Ray's driver threads print (the raylet's warnings) goes to stderr, not to
stdout, where results go; the handlers of SIGTERM, SIGINT and SIGHUP stay those of the program
(ray.init's own SIGTERM handler is undone).
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import RacksmithError
from .pool import WorkerPool

if TYPE_CHECKING:
    from ..rules.ruleset import Ruleset

BACKENDS = ("local", "ray")
#: games one run plays at most (a match, a self-play series, a leave or win% training run): 25 times
#: the project's largest, as many as the kernel's game loop plays in one call
MAX_GAMES = 10_000_000
#: batches handed out at once, per worker: the rest are made as those finish
IN_FLIGHT = 4
#: worker processes of this machine at most, per CPU (each holds its own lexicon and leaves; more
#: only contend for the CPUs and the memory); at least LOCAL_JOBS_MIN on any machine
LOCAL_JOBS_PER_CPU = 4
LOCAL_JOBS_MIN = 8
#: Ray tasks in flight at most (a cluster's CPUs)
MAX_RAY_JOBS = 4096
#: seconds a Ray address may take to accept a TCP connection before joining it is given up
CONNECT_TIMEOUT = 3.0


def max_local_jobs() -> int:
    """The most worker processes a local run takes on this machine."""
    return max(LOCAL_JOBS_MIN, LOCAL_JOBS_PER_CPU * (os.cpu_count() or 1))


def check_jobs(jobs: Any, backend: str = "local", error: type[Exception] = RacksmithError, *,
               address: str | None = None) -> int:
    """``jobs`` checked: a whole number from 1 to what ``backend`` can use: MAX_RAY_JOBS tasks on a
    Ray cluster (an ``address``), else this machine's worker processes (see max_local_jobs), a
    private local Ray instance's included."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise error(f"jobs must be a whole number, at least 1, got {jobs!r}")
    cluster = backend == "ray" and address is not None
    most = MAX_RAY_JOBS if cluster else max_local_jobs()
    if jobs > most:
        where = "Ray tasks at once" if cluster else f"worker processes on this machine ({LOCAL_JOBS_PER_CPU} per CPU)"
        raise error(f"jobs {jobs:,} is too many: at most {most:,} {where}; the results do not depend on jobs")
    return jobs


class Job(Protocol):
    def setup(self) -> Any: ...

    def run(self, state: Any, batch: list[int]) -> Any: ...


#: set-up states by (job, thread): a worker process sets its job up once for all its batches, and
#: a thread calling again with an equal job (a match played twice, a training's next round) reuses
#: its own. Keyed by the thread too, as a state is not shared: its players keep per-game state
#: (a SimPlayer's seed and turn, reset by each game's new_game), so two equal jobs run at once in
#: two threads of one process (jobs=1) each play with players of their own. The lock keeps the
#: dictionary whole when threads look up, evict and add at once (setup itself runs outside it).
_STATES: dict[Any, Any] = {}
_STATES_LOCK = threading.Lock()


def _new_lock_in_child() -> None:
    """A forked worker has only the thread that forked: a lock another thread held would be held
    for ever there (each step under it is one dict operation: the dictionary is whole)."""
    global _STATES_LOCK
    _STATES_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def _state(job: Job) -> Any:
    """The set-up state of ``job`` for this thread of this process (the last two are kept)."""
    key = (job, threading.get_ident())
    with _STATES_LOCK:
        st = _STATES.get(key)
    if st is None:
        st = job.setup()
        with _STATES_LOCK:
            while len(_STATES) >= 2:
                _STATES.pop(next(iter(_STATES)))
            _STATES[key] = st
    return st


_POOL_JOB: Any = None


def _pool_init(job: Job) -> None:
    global _POOL_JOB
    _POOL_JOB = job


def _pool_run(batch: list[int]) -> Any:
    return _POOL_JOB.run(_state(_POOL_JOB), batch)


def _task_run(job: Job, batch: list[int]) -> Any:
    return job.run(_state(job), batch)


def check_backend(backend: str, jobs: int | None, address: str | None) -> str:
    """Validate the backend options (``jobs=None``: the backend's default); returns the backend's
    name in lower case."""
    name = str(backend).strip().lower()
    if name not in BACKENDS:
        raise RacksmithError(f"backend {backend!r}: use one of {', '.join(BACKENDS)}")
    if jobs is not None:
        check_jobs(jobs, name, address=address)
    if address is not None and name != "ray":
        raise RacksmithError("address is only for the ray backend (backend='ray')")
    if address is not None and not isinstance(address, str):
        raise RacksmithError(f"address must be 'auto', 'host:port' or 'ray://host:port', got {type(address).__name__}")
    if address is not None:
        check_address_form(address)
    return name


def portable_path(spec: Any) -> Any:
    """``spec`` as a job carries it to its workers: a file that exists here (a lexicon given as
    ``words.kwg``) by its absolute path, which a worker opens whatever its working directory (a
    Ray worker's is where ``ray start`` ran); anything else as it is: an embedded lexicon's name
    (the embedded lexicon whatever the folder holds, as :func:`~racksmith.lexicon.load_lexicon`
    reads it: a file ``./enable`` is given as that path), a path that does not exist here (the
    worker says so), None, a :class:`~racksmith.lexicon.Lexicon`."""
    from ..lexicon.embedded import EMBEDDED

    if not isinstance(spec, (str, os.PathLike)):
        return spec
    if isinstance(spec, str) and spec.strip().lower() in EMBEDDED:
        return spec
    try:
        path = Path(spec)
        if not path.exists():
            return spec
        absolute = path.absolute()
    except (OSError, ValueError):  # a name no file can have (too long, a NUL in it)
        return spec
    return str(absolute) if isinstance(spec, str) else absolute


def _joined(address: str) -> str:
    """The address Ray joins for ``address``: ``RAY_ADDRESS`` for ``auto`` (when set)."""
    return os.environ.get("RAY_ADDRESS", "").strip() or address if address == "auto" else address


def _host_port(address: str) -> tuple[str, str] | None:
    """The host and the port's text of a Ray ``address`` (``ray://`` or not; ``auto``: of
    ``RAY_ADDRESS`` when set), or None when it names none (``auto`` alone, ``local``, another
    protocol, no ``:``)."""
    address = _joined(address)
    rest = address[len("ray://"):] if address.startswith("ray://") else address
    if "://" in rest:
        return None  # another protocol: Ray's to read
    host, sep, port = rest.partition("/")[0].rpartition(":")
    if not sep or not host:
        return None
    return host.strip("[]"), port


def ray_target(address: str) -> tuple[str, int] | None:
    """The host and port joining Ray at ``address`` connects to first (``auto``: ``RAY_ADDRESS``
    when set), or None when Ray finds it itself (``auto``, a cluster of this machine) or the
    address has no port from 1 to 65535 (see :func:`check_address_form`)."""
    parts = _host_port(address)
    if parts is None:
        return None
    host, port = parts
    if not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host, int(port)


def check_address_form(address: str) -> None:
    """Refuse a Ray ``address`` whose port is not a whole number from 1 to 65535 (``head:99999``,
    ``head:0``, ``head:``): Ray would try to join it for many minutes."""
    parts = _host_port(address)
    if parts is None:
        return
    host, port = parts
    if not port.isdigit() or not 0 < int(port) < 65536:
        named = f" (RAY_ADDRESS={_joined(address)})" if address == "auto" else ""
        raise RacksmithError(f"Ray address {address!r}{named}: the port must be a whole number from 1 to 65535, "
                             f"got {port!r}")


#: what an HTTP/2 client sends first: the connection preface and an empty SETTINGS frame (length 0,
#: type 4, no flags, stream 0), to which an HTTP/2 server (gRPC's: Ray's GCS, a Ray client
#: server) answers with its own SETTINGS frame
_HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes((0, 0, 0, 4, 0, 0, 0, 0, 0))
_HTTP2_SETTINGS = 4
#: the hosts Ray replaces by this node's IP address when it joins a cluster (services.resolve_ip_for_localhost)
_RAY_LOCALHOST = ("localhost", "127.0.0.1", "::1")


def _speaks_http2(sock: socket.socket, timeout: float) -> bool:
    """Whether the server at the other end of ``sock`` answers the HTTP/2 preface with a SETTINGS
    frame within ``timeout`` seconds (an HTTP/1 server answers "400 Bad Request", others nothing
    or a close)."""
    deadline = time.monotonic() + timeout
    head = b""
    try:
        sock.settimeout(timeout)
        sock.sendall(_HTTP2_HELLO)
        while len(head) < 9:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            sock.settimeout(left)
            chunk = sock.recv(9 - len(head))
            if not chunk:
                return False
            head += chunk
    except OSError:  # (a timeout, a reset)
        return False
    return head[3] == _HTTP2_SETTINGS


def _ray_uses_tls() -> bool:
    """Whether Ray speaks TLS to the cluster (``RAY_USE_TLS``): then its servers answer no
    plain HTTP/2."""
    return os.environ.get("RAY_USE_TLS", "0").strip().lower() in ("1", "true")


def _node_ip() -> str | None:
    """The IP address Ray joins a cluster given as ``localhost``/``127.0.0.1``/``::1`` by (this
    node's: ``ray.util.get_node_ip_address``), or None without Ray."""
    try:
        from ray.util import get_node_ip_address
        return get_node_ip_address()
    except Exception:  # (no Ray; or a Ray whose call fails: Ray's to say when it joins)
        return None


def check_address(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Refuse at once a Ray ``address`` Ray itself would try to join for many minutes (about 14,
    deaf to Ctrl-C): a port outside 1..65535; a host:port that accepts no TCP connection within
    ``timeout`` seconds; one that accepts it but does not answer as Ray's servers do (gRPC:
    an HTTP/2 SETTINGS frame, within ``timeout`` seconds; not checked with ``RAY_USE_TLS``). For
    ``localhost``/``127.0.0.1``/``::1`` (not ``ray://``), the address Ray connects to, this node's
    IP address, is checked as well."""
    check_address_form(address)
    target = ray_target(address)
    if target is None:
        return
    host, port = target
    hosts = [host]
    if host in _RAY_LOCALHOST and not _joined(address).startswith("ray://"):  # (a Ray client connects as given)
        node = _node_ip()
        if node and node != host:
            hosts.append(node)
    for where in hosts:
        _check_host_port(address, where, port, timeout, via=where != host)


def _check_host_port(address: str, host: str, port: int, timeout: float, via: bool) -> None:
    """Refuse ``host:port`` (that of ``address``; ``via``: the node's IP address Ray connects to
    for it) unless it accepts a connection and answers HTTP/2 there (see :func:`check_address`)."""
    where = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            if _ray_uses_tls() or _speaks_http2(sock, timeout):
                return
    except OSError as e:
        why = f"no answer within {timeout:g} s" if isinstance(e, socket.timeout) else (e.strerror or str(e) or type(e).__name__)
        named = (f" (Ray connects to this node's IP address for it: {where})" if via
                 else f" (RAY_ADDRESS={_joined(address)})" if address == "auto"
                 else "" if address == f"{host}:{port}" else f" ({host}:{port})")
        raise RacksmithError(f"cannot join the Ray cluster at {address!r}{named}: {why.lower()}; "
                             "start it (ray start on its head node) or check the address") from None
    named = f", where Ray connects for {address!r}" if via else " (RAY_ADDRESS)" if address == "auto" else ""
    raise RacksmithError(f"no Ray cluster answers at {where}{named} (it accepts connections but does not speak Ray's "
                         "protocol: is this the head's GCS port, 6379 by default?)")


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def ray_failure(error: BaseException, exceptions: Any) -> BaseException:
    """What a Ray task's failure raises here (``exceptions``: ``ray.exceptions``): the error the
    task raised, as the local backend raises it (a :class:`RacksmithError` with its class and its
    message); else (a worker that died past its retries, a lost object) a RacksmithError of one
    line."""
    cause = getattr(error, "cause", None)
    if (isinstance(error, exceptions.RayTaskError) and isinstance(cause, Exception)
            and not isinstance(cause, exceptions.RayError)):
        return cause
    lines = [line.strip() for line in _ANSI.sub("", str(error)).splitlines() if line.strip()]
    # a task error's first line is the task's header (ray::_task_run() (pid=..)), its last the error
    line = (lines[-1] if isinstance(error, exceptions.RayTaskError) else lines[0]) if lines else type(error).__name__
    return RacksmithError(f"a Ray task failed: {line}")


class _RayPrintsToStderr:
    """``sys.stdout`` while a Runner's Ray is up: what Ray's own driver threads print (named
    ``ray_...``: the raylet's warnings, such as "N PYTHON worker processes have been started",
    which Ray writes to ``sys.stdout`` whatever ``log_to_driver``) goes to stderr, with the other
    diagnostics; any other thread's writes go to stdout as before."""

    def __init__(self, stdout: Any):
        self.stdout = stdout

    def _sink(self) -> Any:
        return sys.stderr if threading.current_thread().name.startswith("ray_") else self.stdout

    def write(self, text: str) -> int:
        return self._sink().write(text)

    def flush(self) -> None:
        self._sink().flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stdout, name)


def ray_module() -> Any:
    """The ``ray`` module, or a clear error when it is not installed."""
    try:
        import ray
    except ImportError:
        raise RacksmithError("the ray backend needs Ray: pip install ray (or, from racksmith's checkout, pip install '.[ray]')") from None
    return ray


def can_start_processes() -> bool:
    """Whether this process may start worker processes: not a daemonic one (a worker of a
    ``multiprocessing.Pool``, which may have no children); the work then runs in this process,
    with the same results (they never depend on the number of jobs)."""
    return not multiprocessing.current_process().daemon


#: the signals whose handlers ray.init sets (SIGTERM: to its own ``sys.exit(signum)``; SIGBREAK on
#: Windows) or might
_KEPT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGBREAK")
                      if hasattr(signal, name))


@contextlib.contextmanager
def _signal_handlers_kept(defer: bool = False) -> Iterator[None]:
    """Keep the handlers of the ending signals through ray.init, in the main thread (the only one
    whose handlers Python sets): ray.init sets SIGTERM's to its own ``sys.exit(signum)`` for good,
    and Ray's core worker catches it in C to print a stack dump ("*** SIGTERM received at
    time=..."). Kept, the command line's handler stops a run as it does with the local backend
    (exit 143, saying how far it got), and a host program's stays its own. Inside the block
    ``signal.signal`` leaves these signals alone (Ray's own DeferSigint does the same for
    SIGINT); at its end each handler is set again (in C too: the core worker's dump goes).

    ``defer`` (a local instance being started): a signal with a Python handler that arrives
    meanwhile is handled when the block ends, Ray up, rather than in the middle of its start,
    which left some of Ray's processes running (its dashboard and runtime-env agents); a second
    one is handled at once (a start that hangs can still be stopped, at the price of those
    processes). (A handler set outside Python, which Python cannot set again, is left as it is.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept: dict[int, Any] = {signum: handler for signum in _KEPT_SIGNALS
                            if (handler := signal.getsignal(signum)) is not None}
    set_signal = signal.signal
    pending: list[int] = []

    def held(signalnum: int | signal.Signals, handler: Any) -> Any:  # (signal.signal's parameters)
        if signalnum in kept and threading.current_thread() is threading.main_thread():
            return signal.getsignal(signalnum)
        return set_signal(signalnum, handler)

    try:
        if defer:
            def later(signum: int, frame: Any) -> None:
                if not pending:
                    pending.append(signum)
                    return
                pending.clear()  # a second signal: the user insists, now (and not again at the end)
                kept[signum](signum, frame)

            for signum, handler in kept.items():
                if callable(handler):
                    set_signal(signum, later)
        signal.signal = held
        yield
    finally:
        if signal.signal is held:
            signal.signal = set_signal
        for signum, handler in kept.items():
            set_signal(signum, handler)
        for signum in dict.fromkeys(pending):  # (in the order they came, once each)
            kept[signum](signum, None)


class Runner:
    """Runs batches of one job; a context manager (the pool or the Ray connection lives inside).
    ``jobs=None``: the backend's default (see the module's docstring); :attr:`jobs` is the number
    used, once entered."""

    def __init__(self, job: Job, *, jobs: int | None = None, backend: str = "local", address: str | None = None,
                 start_method: str | None = None):
        self.backend = check_backend(backend, jobs, address)
        self.job = job
        self.jobs = jobs
        self.address = address
        self.start_method = start_method
        self._pool: WorkerPool | None = None
        self._ray: Any = None
        self._ray_started = False
        self._ray_job: Any = None
        self._ray_task: Any = None
        self._stdout: Any = None

    def __enter__(self) -> "Runner":
        if self.backend == "local":
            self.jobs = self.jobs or 1
            if self.jobs > 1 and not can_start_processes():
                self.jobs = 1  # a daemonic process (a multiprocessing.Pool's worker): the same results in this one
            if self.jobs > 1:
                methods = multiprocessing.get_all_start_methods()
                if self.start_method is not None and self.start_method not in methods:
                    raise RacksmithError(f"start_method {self.start_method!r} is not available here: use one of {', '.join(methods)}")
                self._pool = WorkerPool(self.jobs, initializer=_pool_init, initargs=(self.job,),
                                        start_method=self.start_method)
        else:
            ray = ray_module()
            if self.address is not None:
                check_address(self.address)
            self._stdout = sys.stdout
            sys.stdout = _RayPrintsToStderr(sys.stdout)
            try:
                self._ray_enter(ray)
            except BaseException:
                self.__exit__()
                raise
        return self

    def _ray_enter(self, ray: Any) -> None:
        self._ray = ray
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False,
                                      "include_dashboard": False, "configure_logging": False}
            if self.address is None:
                # "local": a private instance, never a cluster of this machine nor RAY_ADDRESS's
                self.jobs = self.jobs or 1
                kwargs.update(address="local", num_cpus=self.jobs)
                # workers of a local instance import racksmith as this process does
                path = os.environ.get("PYTHONPATH")
                if path:
                    kwargs["runtime_env"] = {"env_vars": {"PYTHONPATH": path}}
            else:
                kwargs["address"] = self.address
            try:
                with _signal_handlers_kept(defer=self.address is None):
                    ray.init(**kwargs)
                    self._ray_started = True  # (a signal handled at the block's end: shut down on the way out)
            except (ConnectionError, RuntimeError, ValueError) as e:
                what = "start a local Ray instance" if self.address is None else f"join the Ray cluster at {self.address!r}"
                lines = [line.strip() for line in _ANSI.sub("", str(e)).splitlines() if line.strip()]
                hint = ""
                if (isinstance(e, ConnectionError) and self.address is not None and "RAY_AUTH_MODE" not in os.environ
                        and not _joined(self.address).startswith("ray://")):  # (Ray's "Failed to connect to Ray cluster")
                    hint = " (a cluster started by `ray start` may require token authentication: set RAY_AUTH_MODE=token)"
                raise RacksmithError(f"cannot {what}: {lines[0] if lines else type(e).__name__}{hint}") from None
        if self.jobs is None:  # a cluster's (or an initialised Ray's): as many tasks as it has CPUs
            self.jobs = max(1, min(MAX_RAY_JOBS, int(ray.cluster_resources().get("CPU", 1))))
        self._ray_task = ray.remote(num_cpus=1, max_retries=3)(_task_run)
        self._ray_job = ray.put(self.job)

    def __exit__(self, *exc: Any) -> None:
        if self._pool is not None:
            self._pool.close(kill=bool(exc) and exc[0] is not None)
            self._pool = None
        if self._ray_started:
            with contextlib.redirect_stdout(sys.stderr):  # where it prints the raylet's last (deduplicated) warnings
                self._ray.shutdown()
            self._ray_started = False
        if self._stdout is not None:
            if isinstance(sys.stdout, _RayPrintsToStderr) and sys.stdout.stdout is self._stdout:
                sys.stdout = self._stdout  # (unless the caller set another meanwhile)
            self._stdout = None

    def use(self, job: Job) -> None:
        """Run ``job`` from now on, keeping the backend up (a training's next generation: its
        leaves are another job). A local pool's workers are set up for ``job`` (the same processes); Ray
        stays up (one local instance for the whole run, not one a generation) and gets the job."""
        if job is self.job:
            return
        self.job = job
        if self._pool is not None:
            self._pool.broadcast(_pool_init, job)
        if self._ray is not None and self._ray_task is not None:
            self._ray_job = self._ray.put(job)

    def run(self, batches: Sequence[list[int]], progress: Callable[[int], None] | None = None) -> list[Any]:
        """The result of every batch, in the order of ``batches``; ``progress(games)`` after each."""
        out: list[Any] = [None] * len(batches)
        for i, result in self.each(batches, progress):
            out[i] = result
        return out

    def each(self, batches: Sequence[list[int]], progress: Callable[[int], None] | None = None
             ) -> Iterator[tuple[int, Any]]:
        """``(i, result of batches[i])`` for every batch as it finishes (in any order), so that a
        caller keeps what it needs of each and nothing more; ``progress(games)`` after each."""
        for i, result in self._iter(batches):
            if progress:
                progress(len(batches[i]))
            yield i, result

    def _iter(self, batches: Sequence[list[int]]) -> Iterator[tuple[int, Any]]:
        todo = iter(enumerate(batches))  # handed out as workers have room, not all at once
        in_flight = IN_FLIGHT * (self.jobs or 1)  # (Ray's tasks at a time; jobs is known once entered)
        if self._pool is not None:
            for (i, _), result in self._pool.completed(_pool_run, todo, key=lambda ib: ib[1]):
                yield i, result
        elif self._ray is not None:
            ray = self._ray
            refs = {self._ray_task.remote(self._ray_job, b): i for i, b in islice(todo, in_flight)}
            while refs:
                done, _ = ray.wait(list(refs), num_returns=1)
                for r in done:
                    try:
                        result = ray.get(r)
                    except ray.exceptions.RayError as e:
                        failure = ray_failure(e, ray.exceptions)
                        # a task's own error as the local backend raises it; Ray's traceback for a bug
                        raise failure from (None if isinstance(failure, RacksmithError) else e)
                    yield refs.pop(r), result
                for i, b in islice(todo, len(done)):
                    refs[self._ray_task.remote(self._ray_job, b)] = i
        else:
            state = _state(self.job)
            for i, b in enumerate(batches):
                yield i, self.job.run(state, b)


def ruleset_ref(ruleset: Any) -> "str | Ruleset":
    """How a job carries ``ruleset`` to its workers: a shipped ruleset by its name, any other
    (a ruleset file's, one made in code) as the :class:`~racksmith.rules.ruleset.Ruleset` itself,
    pickled with the job: a worker never looks a name up that would find another ruleset (a file
    whose ``name`` is ``english``), nor reads a file again (relative to another folder, on another
    machine of a Ray cluster)."""
    from ..rules.ruleset import get_ruleset, is_shipped

    rs = get_ruleset(ruleset)
    return rs.name if is_shipped(rs) else rs


#: the largest seed of a series (a self-play series, a match): the kernel's game loop takes seeds modulo 2**64
MAX_SEED = 2**64 - 1


def check_seed(seed: Any, name: str = "seed") -> int:
    """A series' seed: a whole number from 0 to :data:`MAX_SEED` (numpy's too, never a bool). The
    bag of a series' game is drawn from the seed modulo 2**64: a seed outside the range would
    repeat another seed's games (-1 those of 2**64 - 1, 2**64 those of 0), so it is refused."""
    import numpy as np

    if isinstance(seed, np.integer):
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RacksmithError(f"{name} must be a whole number from 0 to 2**64 - 1, got {seed!r:.60}")
    if seed < 0:
        raise RacksmithError(f"{name} must be 0 or more, got {seed} (a negative seed would repeat the games of "
                             f"{seed & MAX_SEED})")
    if seed > MAX_SEED:
        raise RacksmithError(f"{name} must be at most 2**64 - 1, got {seed} (it would repeat the games of "
                             f"{seed & MAX_SEED})")
    return seed


def runs(mask: Any) -> list[tuple[int, int]]:
    """The runs of True in a bool array, as ``(first, last)`` indices:
    ``[T, T, T, F, F, T]`` -> ``[(0, 2), (5, 5)]``."""
    import numpy as np

    m = np.concatenate(([0], np.asarray(mask, np.bool_).astype(np.int8), [0]))
    d = np.diff(m)
    return list(zip(np.flatnonzero(d == 1).tolist(), (np.flatnonzero(d == -1) - 1).tolist()))


class GamesInterrupted(KeyboardInterrupt):
    """A run of games (a self-play series, a match) stopped by Ctrl-C — or by SIGTERM or SIGHUP,
    which the command line turns into a KeyboardInterrupt —, with what it had done. It is a
    KeyboardInterrupt still, so whatever stops on Ctrl-C stops on it.

    ``games``: the games asked for; ``done``: how many finished and were counted; ``played``: those
    games' indices as runs ``(first, last)``; ``folder``: where the games' GCG records go (None:
    none asked for) and ``records``: the games whose records this run wrote there, as runs (a game
    still being played when the run stopped may have its record written without being counted)."""

    def __init__(self, games: int, done: int, played: list[tuple[int, int]], folder: "str | None" = None,
                 records: "list[tuple[int, int]] | None" = None):
        super().__init__(f"interrupted after {done:,} of {games:,} games")
        self.games = games
        self.done = done
        self.played = played
        self.folder = folder
        self.records = records if folder is not None else None

    @property
    def records_written(self) -> int:
        """How many games' records this run wrote (0 without a folder)."""
        return sum(hi - lo + 1 for lo, hi in self.records or ())


def check_games(games: Any, *, least: int = 1, even: bool = False, error: type[RacksmithError] = RacksmithError) -> int:
    """``games``, a whole number from ``least`` to MAX_GAMES (even, with ``even``), or ``error``
    naming the range."""
    if (isinstance(games, bool) or not isinstance(games, int) or not least <= games <= MAX_GAMES
            or (even and games % 2)):
        kind = "an even whole number" if even else "a whole number"
        why = " (the games are played in pairs)" if even else ""
        raise error(f"games must be {kind} from {least} to {MAX_GAMES:,}{why}, got {games!r}")
    return games


class _Batches(Sequence):
    """``range(start, stop)`` in consecutive batches of at most ``size``, each list made when asked for."""

    def __init__(self, start: int, stop: int, size: int):
        self.starts = range(start, stop, max(1, size))
        self.stop = stop
        self.size = max(1, size)

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        s = self.starts[i]
        return list(range(s, min(self.stop, s + self.size)))


def split(start: int, stop: int, size: int) -> Sequence[list[int]]:
    """``range(start, stop)`` in consecutive batches of at most ``size`` (a sequence of lists, each
    made when it is read)."""
    return _Batches(start, stop, size)
