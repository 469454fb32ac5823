"""Runs in this process (jobs=1) from several threads at once: each gives what it gives alone.

- train_winpct: an in-process run keeps its own config (not the module global its pool workers
  use), so a second call's config never replaces the first's mid-run.
- match (and any Runner job): the set-up state (players) is kept per job *and* thread, so two
  equal matches at once do not share one SimPlayer (whose new_game resets its seed and turn);
  the cache is evicted under a lock (two threads evicting at once raised a bare KeyError).
"""
from __future__ import annotations

import threading
import time

import numpy as np

from racksmith.play import backends
from racksmith.play.match import match
from racksmith.sim.winpct import train_winpct
from conftest import switching_often

SIM = "sim:iterations=12,candidates=3,plies=1,endgame=off"


def _in_threads(fn, args_list):
    """``fn(*args)`` for each args in its own thread, all at once: (results, errors)."""
    out: list = [None] * len(args_list)
    errors: list[str] = []
    start = threading.Barrier(len(args_list))

    def run(i, args):
        try:
            start.wait()
            out[i] = fn(*args)
        except Exception as e:  # noqa: BLE001 - reported by the test
            errors.append(f"{type(e).__name__}: {e}")

    ts = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(args_list)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out, errors


def test_train_winpct_two_threads_each_its_own_table():
    games = 300
    alone = {seed: train_winpct("english", games, seed=seed) for seed in (1, 2)}
    assert not np.array_equal(alone[1][1].counts, alone[2][1].counts)  # (different games)
    out, errors = _in_threads(lambda s: train_winpct("english", games, seed=s), [(1,), (2,)])
    assert errors == []
    for seed, (table, tally) in zip((1, 2), out):
        want_table, want_tally = alone[seed]
        assert np.array_equal(tally.counts, want_tally.counts), f"seed {seed}"
        assert np.array_equal(table.table, want_table.table), f"seed {seed}"
        assert np.array_equal(table.observations, want_table.observations), f"seed {seed}"
        assert table.provenance["positions"] == want_table.provenance["positions"]


def test_same_match_in_two_threads_equals_the_match_alone():
    kw = dict(seed=5, jobs=1)
    alone = match(SIM, "equity", 10, **kw).table.scores
    with switching_often():
        for _ in range(5):  # (before the fix about half the rounds differed)
            out, errors = _in_threads(lambda: match(SIM, "equity", 10, **kw), [(), ()])
            assert errors == []
            for o in out:
                assert np.array_equal(o.table.scores, alone)


def test_concurrent_distinct_matches_equal_alone_and_never_raise():
    seeds = list(range(40, 46))
    alone = {s: match("equity", "score", 2, seed=s, jobs=1).table.scores for s in seeds}
    bad: list[str] = []
    stop = time.monotonic() + 3.0

    def loop(k):
        i = k
        while time.monotonic() < stop:
            s = seeds[i % len(seeds)]
            got = match("equity", "score", 2, seed=s, jobs=1).table.scores
            if not np.array_equal(got, alone[s]):
                bad.append(f"seed {s}: {got.tolist()} != {alone[s].tolist()}")
            i += 1
        return i - k

    with switching_often():
        counts, errors = _in_threads(loop, [(k,) for k in range(4)])
    assert errors == [] and bad == []
    assert all(c > 0 for c in counts)


class _Job:
    """A job whose set-up state names it and is new at each setup."""

    def __init__(self, n: int):
        self.n = n

    def __hash__(self) -> int:
        return hash(self.n)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Job) and other.n == self.n

    def setup(self):
        return ["state", self.n]

    def run(self, state, batch):  # pragma: no cover - not run here
        return state


def test_state_cache_threads_evicting_at_once_never_raise():
    # many threads setting up distinct jobs at once keep evicting the cache's two entries
    stop = time.monotonic() + 3.0

    def loop(k):
        wrong = 0
        i = 0
        while time.monotonic() < stop:
            n = k * 1_000_000 + i
            if backends._state(_Job(n)) != ["state", n]:
                wrong += 1
            i += 1
        return wrong

    try:
        with switching_often():
            wrong, errors = _in_threads(loop, [(k,) for k in range(6)])
    finally:
        backends._STATES.clear()
    assert errors == []
    assert wrong == [0] * 6


def test_equal_jobs_in_two_threads_get_states_of_their_own():
    # the same thread calling again reuses its state; another thread sets up its own
    job = _Job(-7)
    try:
        mine = backends._state(job)
        assert backends._state(_Job(-7)) is mine
        out, errors = _in_threads(lambda: backends._state(job), [()])
        assert errors == []
        assert out[0] == ["state", -7] and out[0] is not mine
    finally:
        backends._STATES.clear()
