"""The Ray backend against the local pool, on a real local Ray instance (skipped without Ray)."""
from __future__ import annotations

import os

import pytest

ray = pytest.importorskip("ray")

from racksmith.play import match  # noqa: E402
from racksmith.training import TrainSettings, train_leaves  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray instance with two CPUs whose workers import racksmith as the tests do."""
    env = {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": env})
    try:
        yield
    finally:
        ray.shutdown()


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
