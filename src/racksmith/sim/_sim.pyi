"""Type stub of the compiled simulation kernel (see _sim.pyx); tests/test_stubs.py holds this file
to the compiled module."""
from typing import final

import numpy as np
import numpy.typing as npt
from typing_extensions import Self

from racksmith.movegen._movegen import RECORD_DTYPE as RECORD_DTYPE
from racksmith.movegen._movegen import BoardState, LeaveTable, Rules

@final
class Playouts:
    """The play-outs of one simulation, checked when made."""

    def __new__(
        cls,
        rules: Rules,
        leaves: LeaveTable | None,
        board: BoardState,
        rack: bytes | bytearray,
        opponent: bytes | bytearray | None,
        unseen: bytes | bytearray,
        opp_tiles: int,
        scores: tuple[int, int],
        zero_turns: int,
        rules_args: tuple[int, int, int],
        candidates: npt.NDArray[np.void],
        cand_leave: npt.NDArray[np.float64],
        winpct: npt.NDArray[np.float64],
        plies: int,
        seed: int | np.integer,
        inferred: tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.float64]] | None = None,
        workers: int = 1,
        reclaimed: npt.NDArray[np.int16] | None = None,
    ) -> Self: ...
    @property
    def n_candidates(self) -> int: ...
    @property
    def plies(self) -> int: ...
    def run(
        self,
        worker: int,
        arms: npt.NDArray[np.int32],
        iterations: npt.NDArray[np.int64],
        win: npt.NDArray[np.float64],
        equity: npt.NDArray[np.float64],
        plies_out: npt.NDArray[np.int32] | None = None,
    ) -> int: ...
    def add_plies(self, arms: npt.NDArray[np.int32], plies_out: npt.NDArray[np.int32], n: int) -> None: ...
    @property
    def ply_tallies(self) -> npt.NDArray[np.int64]: ...
    def step(self, bai: Sampler, k: int) -> bool: ...
    def trace(
        self, arm: int, iteration: int
    ) -> tuple[float, float, npt.NDArray[np.void], list[int], bytes, bytes, list[tuple[int, ...]]]: ...

@final
class Sampler:
    """Best-arm identification over ``n`` arms (as BestArm of tests/bai_reference.py), in C."""

    def __new__(
        cls,
        n: int,
        delta: float | None,
        min_samples: int = 1,
        keys: npt.NDArray[np.int32] | None = None,
        rng_state: tuple[int, ...] | None = None,
        round_robin: bool = False,
        prior: float = 0.0,
    ) -> Self: ...
    @property
    def prior(self) -> float: ...
    def next_arm(self) -> int: ...
    def add(self, arm: int | np.integer, value: float) -> bool: ...
    def select(self, k: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]: ...
    def feed(self, arms: npt.NDArray[np.int32], win: npt.NDArray[np.float64], equity: npt.NDArray[np.float64]) -> bool: ...
    @property
    def n(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def total_requested(self) -> int: ...
    @property
    def stopped(self) -> bool: ...
    @property
    def challenger(self) -> int: ...
    @property
    def leader(self) -> int: ...
    @property
    def count(self) -> list[int]: ...
    @property
    def requested(self) -> list[int]: ...
    @property
    def sum(self) -> list[float]: ...
    @property
    def sumsq(self) -> list[float]: ...
    @property
    def eq_sum(self) -> list[float]: ...
    @property
    def eq_sumsq(self) -> list[float]: ...

def infer_leaves(
    rules: Rules,
    leaves: LeaveTable | None,
    board: BoardState,
    played: bytes | bytearray,
    pool: bytes | bytearray,
    leave_size: int,
    exchanged: int,
    target_score: float,
    margin: float,
    bag_before: int,
    opp_value: int,
    exchange_limit: int,
    max_leaves: int = 1000000,
    samples: int = 0,
    seed: int = 0,
    deadline: float = 0.0,
    part: int = 0,
    parts: int = 1,
    star_reclamation: bool = False,
    stop: npt.NDArray[np.int32] | None = None,
) -> tuple[
    npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.float64], npt.NDArray[np.float64], int
]: ...
