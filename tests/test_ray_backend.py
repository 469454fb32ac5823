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
