"""Where batches of games run: this process, a local process pool, or Ray.

A *job* is a picklable, hashable value with two methods: ``setup()`` loads what a worker needs
(lexicon, leaves, players) and ``run(state, batch)`` plays one batch (a list of game indices) and
returns its result. Each worker process sets a job up once and keeps it (:func:`_state`); the
driver gathers the results by batch, so what a run computes does not depend on how many workers
played it, on which machines, or in which order they finished.

``backend="local"`` (the default) uses ``jobs`` processes of this machine (none: this process,
for ``jobs=1``). ``backend="ray"`` runs each batch as a Ray task: ``address=None`` starts a local
Ray instance with ``jobs`` CPUs (stopped at the end), ``address="auto"`` or ``"host:port"`` joins
a running cluster (every node needs racksmith installed: ``pip install 'racksmith[ray]'``).
"""
from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import RacksmithError

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


def max_local_jobs() -> int:
    """The most worker processes a local run takes on this machine."""
    import os

    return max(LOCAL_JOBS_MIN, LOCAL_JOBS_PER_CPU * (os.cpu_count() or 1))


def check_jobs(jobs: Any, backend: str = "local", error: type[Exception] = RacksmithError) -> int:
    """``jobs`` checked: a whole number from 1 to what ``backend`` can use (see max_local_jobs)."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise error(f"jobs must be a whole number, at least 1, got {jobs!r}")
    most = MAX_RAY_JOBS if backend == "ray" else max_local_jobs()
    if jobs > most:
        where = "Ray tasks at once" if backend == "ray" else f"worker processes on this machine ({LOCAL_JOBS_PER_CPU} per CPU)"
        raise error(f"jobs {jobs:,} is too many: at most {most:,} {where}; the results do not depend on jobs")
    return jobs


class Job(Protocol):
    def setup(self) -> Any: ...

    def run(self, state: Any, batch: list[int]) -> Any: ...


_STATES: dict[Any, Any] = {}


def _state(job: Job) -> Any:
    """The set-up state of ``job`` in this process (the last two jobs are kept)."""
    st = _STATES.get(job)
    if st is None:
        st = job.setup()
        while len(_STATES) >= 2:
            _STATES.pop(next(iter(_STATES)))
        _STATES[job] = st
    return st


_POOL_JOB: Any = None


def _pool_init(job: Job) -> None:
    global _POOL_JOB
    _POOL_JOB = job


def _pool_run(batch: list[int]) -> Any:
    return _POOL_JOB.run(_state(_POOL_JOB), batch)


def _task_run(job: Job, batch: list[int]) -> Any:
    return job.run(_state(job), batch)


def check_backend(backend: str, jobs: int, address: str | None) -> str:
    """Validate the backend options; returns the backend's name in lower case."""
    name = str(backend).strip().lower()
    if name not in BACKENDS:
        raise RacksmithError(f"backend {backend!r}: use one of {', '.join(BACKENDS)}")
    check_jobs(jobs, name)
    if address is not None and name != "ray":
        raise RacksmithError("address is only for the ray backend (backend='ray')")
    return name


def ray_module() -> Any:
    """The ``ray`` module, or a clear error when it is not installed."""
    try:
        import ray
    except ImportError:
        raise RacksmithError("the ray backend needs Ray: pip install 'racksmith[ray]' (or pip install ray)") from None
    return ray


class Runner:
    """Runs batches of one job; a context manager (the pool or the Ray connection lives inside)."""

    def __init__(self, job: Job, *, jobs: int = 1, backend: str = "local", address: str | None = None,
                 start_method: str | None = None):
        self.backend = check_backend(backend, jobs, address)
        self.job = job
        self.jobs = jobs
        self.address = address
        self.start_method = start_method
        self._pool: ProcessPoolExecutor | None = None
        self._ray: Any = None
        self._ray_started = False
        self._ray_job: Any = None
        self._ray_task: Any = None

    def __enter__(self) -> "Runner":
        if self.backend == "local" and self.jobs > 1:
            methods = multiprocessing.get_all_start_methods()
            if self.start_method is not None and self.start_method not in methods:
                raise RacksmithError(f"start_method {self.start_method!r} is not available here: use one of {', '.join(methods)}")
            self._pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=multiprocessing.get_context(self.start_method),
                                             initializer=_pool_init, initargs=(self.job,))
        elif self.backend == "ray":
            ray = ray_module()
            self._ray = ray
            if not ray.is_initialized():
                import os

                kwargs: dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False,
                                          "include_dashboard": False, "configure_logging": False}
                if self.address is None:
                    kwargs["num_cpus"] = self.jobs
                    # workers of a local instance import racksmith as this process does
                    path = os.environ.get("PYTHONPATH")
                    if path:
                        kwargs["runtime_env"] = {"env_vars": {"PYTHONPATH": path}}
                else:
                    kwargs["address"] = self.address
                try:
                    ray.init(**kwargs)
                except (ConnectionError, RuntimeError, ValueError) as e:
                    raise RacksmithError(f"cannot start or join Ray (address {self.address!r}): {e}") from None
                self._ray_started = True
            self._ray_task = ray.remote(num_cpus=1, max_retries=3)(_task_run)
            self._ray_job = ray.put(self.job)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        if self._ray_started:
            self._ray.shutdown()
            self._ray_started = False

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
        todo = iter(enumerate(batches))  # handed out IN_FLIGHT per worker at a time, not all at once
        if self._pool is not None:
            pool = self._pool
            for (i, _), result in completed(lambda ib: pool.submit(_pool_run, ib[1]), todo, IN_FLIGHT * self.jobs):
                yield i, result
        elif self._ray is not None:
            ray = self._ray
            refs = {self._ray_task.remote(self._ray_job, b): i for i, b in islice(todo, IN_FLIGHT * self.jobs)}
            while refs:
                done, _ = ray.wait(list(refs), num_returns=1)
                for r in done:
                    yield refs.pop(r), ray.get(r)
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


def completed(submit: Callable[[Any], Future], items: Iterable[Any], most: int) -> Iterator[tuple[Any, Any]]:
    """``(item, result)`` for every item, as they finish: ``submit(item)`` hands one to a pool (a
    future), at most ``most`` at a time (the others are read from ``items`` only then)."""
    todo = iter(items)
    futures = {submit(x): x for x in islice(todo, max(1, most))}
    while futures:
        done, _ = wait(futures, return_when=FIRST_COMPLETED)
        for f in done:
            yield futures.pop(f), f.result()
        for x in islice(todo, len(done)):
            futures[submit(x)] = x


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
