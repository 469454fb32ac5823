"""The Ray backend against the local pool, on a real local Ray instance (skipped without Ray)."""
from __future__ import annotations

import dataclasses
import os
import shutil

import pytest

ray = pytest.importorskip("ray")

from racksmith.play import match  # noqa: E402
from racksmith.play.backends import Runner  # noqa: E402
from racksmith.training import TrainSettings, train_leaves  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def _ray_stopped_at_the_end():
    yield
    if ray.is_initialized():
        ray.shutdown()


@pytest.fixture
def local_ray():
    """A private local Ray instance with two CPUs whose workers import racksmith as the tests do,
    started by the first test that asks for it (never a cluster running on this machine: "local")
    and stopped at the end of the module."""
    if not ray.is_initialized():
        env = {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
                 runtime_env={"env_vars": env})
    yield


def test_without_an_address_the_runner_starts_a_private_local_instance(monkeypatch):
    """The Runner's own ray.init: a local instance of one CPU (jobs' default) even where RAY_ADDRESS
    names a cluster (here one that is not there), stopped at the end; it refused ("When connecting
    to an existing cluster, num_cpus and num_gpus must not be provided") where a cluster ran or
    RAY_ADDRESS was set."""
    if ray.is_initialized():
        ray.shutdown()  # (another test's instance: the Runner must start its own)
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")
    cpus = []
    remote = match("equity:leaves=none", "score", 20, seed=5, backend="ray",
                   progress=lambda n: n and cpus.append(ray.cluster_resources().get("CPU")))  # (0: before)
    assert not ray.is_initialized() and set(cpus) == {1.0}
    assert remote.pairs == match("equity:leaves=none", "score", 20, seed=5).pairs


def test_a_training_starts_its_local_ray_once_and_reads_a_relative_lexicon(monkeypatch, tmp_path, fixtures_dir):
    """Three generations on a private local instance: one ray.init, not one a generation (each
    took seconds); the lexicon given as words.kwg is found by the workers; the file equals the
    local pool's."""
    if ray.is_initialized():
        ray.shutdown()
    shutil.copy(fixtures_dir / "ENABLE15.kwg", tmp_path / "words.kwg")
    monkeypatch.chdir(tmp_path)
    inits = []
    real = ray.init

    def counted(*args, **kwargs):
        inits.append(kwargs.get("address"))
        return real(*args, **kwargs)

    monkeypatch.setattr(ray, "init", counted)
    s = TrainSettings("english", lexicon="words.kwg", games=20, generations=3, seed=9, prior_weight=20)
    remote = train_leaves(tmp_path / "remote.klv2", s, checkpoint=20, backend="ray")
    assert inits == ["local"] and not ray.is_initialized()
    local = train_leaves(tmp_path / "local.klv2", s, checkpoint=20)
    assert remote.leaves.tobytes() == local.leaves.tobytes()


def test_match_on_ray_equals_the_local_pool(local_ray):
    local = match("equity:leaves=none", "score", 60, seed=5, jobs=1)
    remote = match("equity:leaves=none", "score", 60, seed=5, jobs=2, backend="ray")
    assert remote.pairs == local.pairs
    a, b = local.to_dict(), remote.to_dict()
    a.pop("seconds"), b.pop("seconds")
    assert a == b


def test_training_on_two_ray_workers_equals_one_local_worker(local_ray, tmp_path):
    s = TrainSettings("english", games=120, generations=2, seed=9, prior_weight=20)
    one = train_leaves(tmp_path / "one.klv2", s, jobs=1, checkpoint=60)
    two = train_leaves(tmp_path / "two.klv2", s, jobs=2, backend="ray", checkpoint=60)
    assert (tmp_path / "one.klv2").read_bytes() == (tmp_path / "two.klv2").read_bytes()
    assert one.provenance["turns_tallied"] == two.provenance["turns_tallied"]


def test_a_ruleset_file_travels_to_the_ray_workers(local_ray, tmp_path):
    """A ruleset file named like a shipped ruleset (here an 11x11 'english' without a bingo bonus)
    is what the Ray workers play, not the shipped ruleset its name would find."""
    import json

    from racksmith import Ruleset, get_ruleset

    english = get_ruleset("english")
    path = tmp_path / "english11.json"
    path.write_text(json.dumps({**english.to_dict(), "bingo_bonus": 0, "start": "6F",
                                "board": [row[2:13] for row in english.layout()[2:13]]}), encoding="utf-8")
    rs = Ruleset.load(path)

    def train(ruleset, out, **kw):
        s = TrainSettings(ruleset, games=20, generations=1, seed=9, prior_weight=20)
        return train_leaves(tmp_path / out, s, checkpoint=20, **kw)

    shipped = train("english", "shipped.klv2")
    local = train(str(path), "local.klv2", jobs=1)
    remote = train(rs, "remote.klv2", jobs=2, backend="ray")
    assert remote.leaves.tobytes() == local.leaves.tobytes() != shipped.leaves.tobytes()
    assert remote.provenance["ruleset_sha256"] == rs.content_sha256() != shipped.provenance["ruleset_sha256"]
    m_local = match("equity:leaves=none", "score", 8, seed=5, ruleset=rs, jobs=1)
    m_remote = match("equity:leaves=none", "score", 8, seed=5, ruleset=rs, jobs=2, backend="ray")
    assert m_remote.pairs == m_local.pairs != match("equity:leaves=none", "score", 8, seed=5).pairs


@dataclasses.dataclass(frozen=True)
class _Nothing:
    """A job that is never run."""

    def setup(self):
        return None

    def run(self, state, batch):
        return batch


def test_jobs_default_to_the_cpus_of_the_ray_in_use(local_ray):
    """Joining a Ray that runs (a cluster's, here the test's), jobs=None hands out as many tasks as
    it has CPUs, not 1 (4 in flight on a cluster of any size)."""
    with Runner(_Nothing(), backend="ray") as runner:
        assert runner.jobs == 2
    with Runner(_Nothing(), backend="ray", jobs=1) as runner:
        assert runner.jobs == 1


def test_a_task_error_reaches_the_caller_as_the_local_backend_raises_it(local_ray):
    """A RacksmithError raised in a Ray worker is raised as itself, not as a RayTaskError whose
    first line, all the CLI shows, was Ray's coloured task header."""
    from racksmith.errors import UnknownLexiconError

    with pytest.raises(UnknownLexiconError) as local:
        match("equity", "score", 2, lexicon="/nonexistent/w.kwg")
    with pytest.raises(UnknownLexiconError) as remote:
        match("equity", "score", 2, lexicon="/nonexistent/w.kwg", jobs=2, backend="ray")
    assert type(remote.value) is UnknownLexiconError and str(remote.value) == str(local.value)


def test_a_relative_lexicon_path_reaches_the_workers(local_ray, tmp_path, monkeypatch, fixtures_dir):
    """--lexicon words.kwg is opened by the workers where it is here, not in their own folder
    (where Ray started them: here the one the tests started in)."""
    shutil.copy(fixtures_dir / "ENABLE15.kwg", tmp_path / "words.kwg")
    monkeypatch.chdir(tmp_path)
    local = match("equity:leaves=none", "score", 8, seed=5, lexicon="words.kwg")
    remote = match("equity:leaves=none", "score", 8, seed=5, lexicon="words.kwg", jobs=2, backend="ray")
    assert remote.pairs == local.pairs


def test_ray_failures_read_as_one_line():
    """How a failed task's error is raised (Ray's own exception classes, no Ray started): a
    task's RacksmithError as itself; a worker that died past its retries as one line."""
    from racksmith.errors import RacksmithError, UnknownLexiconError
    from racksmith.play.backends import ray_failure

    cause = UnknownLexiconError("no lexicon 'w.kwg'")
    task = ray.exceptions.RayTaskError("_task_run", "Traceback ...\nUnknownLexiconError: no lexicon 'w.kwg'",
                                       cause).as_instanceof_cause()
    assert ray_failure(task, ray.exceptions) is cause
    crash = ray_failure(ray.exceptions.WorkerCrashedError(), ray.exceptions)
    assert type(crash) is RacksmithError and "\n" not in str(crash)
    assert str(crash).startswith("a Ray task failed: The worker died unexpectedly")
    lost = ray.exceptions.RayTaskError("_task_run", "\x1b[36mray::_task_run()\x1b[39m (pid=1)\nValueError: x",
                                       ray.exceptions.RaySystemError("unpicklable"))
    assert str(ray_failure(lost, ray.exceptions)) == "a Ray task failed: ValueError: x"


def test_an_address_nothing_listens_at_fails_at_once(capsys):
    """--address localhost:PORT with nothing there: one line, exit 1, in seconds (Ray tried for
    about 14 minutes and ignored Ctrl-C)."""
    import socket
    import time

    from racksmith.cli.main import main

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # (free once closed)
    t0 = time.perf_counter()
    assert main(["match", "--p1", "equity", "--p2", "score", "--games", "2", "--backend", "ray",
                 "--address", f"127.0.0.1:{port}"]) == 1
    assert time.perf_counter() - t0 < 10
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"racksmith: cannot join the Ray cluster at '127.0.0.1:{port}': connection refused; "
                   "start it (ray start on its head node) or check the address"]
