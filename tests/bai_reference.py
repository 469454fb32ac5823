"""The tests' reference for best-arm identification in the simulation, as MAGPIE does it (after Jourdan, Degenne &
Kaufmann, *Dealing with unknown variances in best-arm identification*, 2023, and You et al.,
*Information-directed selection for top-two algorithms*, 2023).

Every arm is a candidate play; a sample is one play-out's win chance. After an initial phase in
which every arm gets ``min_samples`` samples (round robin), the sampler is *top-two*: the leader
``a*`` (highest empirical mean) and the challenger (the arm ``j`` minimising
``Z(a*, j) + log n_j``) are sampled, the leader with the information-directed probability
``n* d(mu*, var*, theta) / (n* d(mu*, var*, theta) + n_j d(mu_j, var_j, theta))`` where
``theta`` is the sample-weighted mean of the two and ``d(mu, var, l) = (mu - l)^2 / (2 var)``.

``Z(a*, j)`` is the generalised likelihood ratio of "``a*`` is better than ``j``" with unknown
(empirical) variances: with ``lambda`` the variance-weighted point where the two means meet,
``Z = n* d(mu*, var*, lambda) + n_j d(mu_j, var_j, lambda)``. The run stops (*confidence*) when
every arm is either the leader, *similar* to it (the same play up to which letter a blank is, or
where the same tiles go in the same squares: such plays are not raced against each other), or has
``Z`` above the threshold ``log((log t + 1) / delta)`` (t: samples so far; ``delta = 1 - stop``).

This module is the readable, independent reference (an oracle, as ``oracle.py`` is for the move
generator): :func:`racksmith.sim.simulate.simulate` races with the compiled sampler,
``racksmith.sim._sim.Sampler``, and ``test_sim.py`` holds it equal to :class:`BestArm` step by step
(the same arithmetic, and the same coins from the same :class:`random.Random` state).
"""
from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence

MIN_VARIANCE = 1e-10



def glr_meet(mu1: float, v1: float, w1: float, mua: float, va: float, wa: float) -> float:
    """The mean ``lam`` two arms would share if they were equal: their means weighted by count
    over variance (the GLR's alternative)."""
    if w1 == 0:
        return mua
    if wa == 0 or mu1 == mua:
        return mu1
    x = wa / w1
    return (va * mu1 + x * v1 * mua) / (va + x * v1)


def glr_z(mu1: float, v1: float, w1: float, mua: float, va: float, wa: float) -> float:
    """The GLR statistic of "arm 1 beats arm a" from each arm's mean, variance and sample count
    (Gaussian arms with unknown variances): the weighted squared distances of both means to the
    mean ``lam`` they would share if the two arms were equal."""
    lam = glr_meet(mu1, v1, w1, mua, va, wa)
    return w1 * (mu1 - lam) ** 2 / (2 * v1) + wa * (mua - lam) ** 2 / (2 * va)

class BestArm:
    """The sampler and stopping rule over ``n`` arms. ``keys``: arms with equal keys are similar
    (never raced); ``delta``: 1 - confidence, or None for no confidence stop; ``rng``: the coin
    of the top-two choice (a :class:`random.Random`); ``prior``: pseudo-samples at 0 and as many
    at 1 in each arm's variance (the kernel's, simulate()'s VARIANCE_PRIOR; 0: the samples' own)."""

    def __init__(self, n: int, *, delta: float | None = 0.01, min_samples: int = 1,
                 keys: Sequence[Hashable] | None = None, rng: random.Random | None = None,
                 round_robin: bool = False, prior: float = 0.0):
        if n < 1:
            raise ValueError(f"best-arm identification needs at least one arm, got {n}")
        if delta is not None and not 0 < delta < 1:
            raise ValueError(f"delta must lie strictly between 0 and 1, got {delta}")
        self.n = n
        self.delta = delta
        self.min_samples = max(1, int(min_samples))
        self.keys = list(keys) if keys is not None else list(range(n))
        self.rng = rng or random.Random(0)
        self.round_robin = round_robin
        self.prior = prior
        self.count = [0] * n        # samples completed
        self.requested = [0] * n    # samples asked for (the next iteration index of each arm)
        self.sum = [0.0] * n
        self.sumsq = [0.0] * n
        self.total = 0
        self.total_requested = 0
        self._leader: int | None = 0
        self.challenger = -1
        self.stopped = False

    # --- statistics ------------------------------------------------------------------------------
    def mean(self, i: int) -> float:
        return self.sum[i] / self.count[i] if self.count[i] else 0.0

    def var(self, i: int) -> float:
        c = self.count[i]
        if not c:
            return MIN_VARIANCE
        n = c + 2 * self.prior
        m = (self.sum[i] + self.prior) / n
        return max(MIN_VARIANCE, (self.sumsq[i] + self.prior) / n - m * m)

    @property
    def initial_phase(self) -> bool:
        return min(self.count) < self.min_samples

    def similar(self, i: int, j: int) -> bool:
        return self.keys[i] == self.keys[j]

    def z(self, a: int, j: int) -> float:
        """The GLR statistic of "arm a beats arm j" with empirical variances."""
        return glr_z(self.mean(a), self.var(a), float(self.count[a]),
                     self.mean(j), self.var(j), float(self.count[j]))

    def threshold(self) -> float:
        if self.delta is None or self.total < 1:
            return math.inf
        return math.log((math.log(self.total) + 1) / self.delta)

    # --- sampling --------------------------------------------------------------------------------
    def next_arm(self) -> int:
        """The arm to sample next (its iteration index is ``requested[arm]`` before the call)."""
        least = min(self.requested)
        if least < self.min_samples or self.round_robin or self.n == 1 or self.challenger < 0:
            arm = self.requested.index(least)  # the fewest asked for, the lowest index first
        else:
            it, jt = self.leader, self.challenger
            ni, nj = float(self.count[it]), float(self.count[jt])
            mi, mj = self.mean(it), self.mean(jt)
            # the GLR's meeting point: the allocation it leads to is n ∝ σ (the count-weighted
            # mean MAGPIE uses leads to n ∝ 1/σ, starving the arm with the noisier samples)
            theta = glr_meet(mi, self.var(it), ni, mj, self.var(jt), nj)
            num = ni * (mi - theta) ** 2 / (2 * self.var(it))
            den = num + nj * (mj - theta) ** 2 / (2 * self.var(jt))
            coin = num / den if den > 0 else 0.5
            arm = it if self.rng.random() < coin else jt
        self.requested[arm] += 1
        self.total_requested += 1
        return arm

    def add(self, arm: int, value: float) -> bool:
        """Record a sample; True when the confidence stop is reached."""
        self.count[arm] += 1
        self.sum[arm] += value
        self.sumsq[arm] += value * value
        self.total += 1
        if self.round_robin and self.delta is None:
            self._leader = None  # round robin without a stop needs no leader, challenger nor Z
            return False
        means = [t / c if c else 0.0 for t, c in zip(self.sum, self.count)]
        self._leader = means.index(max(means))  # the highest mean, the lowest index first
        if self.initial_phase:
            return False
        self._update(means)
        return self.stopped

    @property
    def leader(self) -> int:
        """The arm of highest mean (the lowest index among equals)."""
        if self._leader is None:
            means = [t / c if c else 0.0 for t, c in zip(self.sum, self.count)]
            self._leader = means.index(max(means))
        return self._leader

    def _update(self, means: list[float]) -> None:
        a = self.leader
        thr = self.threshold()
        at = 0
        best, best_value = -1, math.inf
        count, keys, var = self.count, self.keys, self.var
        # z(a, i) with the leader's statistics read once: this runs for every arm after every sample
        mu1, w1, v1 = means[a], float(count[a]), var(a)
        key_a = keys[a]
        for i in range(self.n):
            if i == a or keys[i] == key_a:
                at += 1
                continue
            z = glr_z(mu1, v1, w1, means[i], var(i), float(count[i]))
            if z > thr:
                at += 1
            value = z + math.log(max(1, self.count[i]))
            if value < best_value:
                best, best_value = i, value
        self.challenger = best
        if self.delta is not None and at == self.n:
            self.stopped = True
