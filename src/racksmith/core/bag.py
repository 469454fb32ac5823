"""The bag of a game: the undrawn tiles in the order they will be drawn, shuffled by a seeded RNG.

Drawing takes tiles from the end of a pre-shuffled list, so a game is reproducible from its seed and
a draw costs a slice. Tiles are plain ints (0 = blank).
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from ..errors import PositionError
from ..rules.ruleset import Ruleset


_M64 = (1 << 64) - 1


def _mix64(z: int) -> int:
    """SplitMix64's finaliser (racksmith/_hash.pxd: mix64)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


class SeriesRng(random.Random):
    """The stream of game ``index`` of a series started from ``seed`` (each taken modulo 2**64):
    xoshiro256** (Blackman and Vigna), its state filled by SplitMix64 from
    ``mix64(mix64(seed) + index)``. The Python twin of the kernel's (``racksmith.play._gameloop``:
    ``rng_seed``, ``rng_next``, ``rng_below``, ``rng_shuffle``), so that a game played in the kernel
    and one played with :class:`~racksmith.play.game.Game` draw the same tiles; tests hold the two
    equal. The same on every machine and for any number of processes.

    :meth:`shuffle` is Fisher–Yates from the end with draws below ``2**64 mod k`` rejected (an
    unbiased index in ``0..k-1``); :meth:`random` and :meth:`getrandbits` read the same stream."""

    def __init__(self, seed: int = 0, index: int = 0):
        self._index = int(index) & _M64
        super().__init__(seed)

    def seed(self, a=None, version: int = 2) -> None:  # called by random.Random.__init__
        st = _mix64((_mix64(int(a or 0) & _M64) + self._index) & _M64)  # the sum wraps as in C
        s = []
        for _ in range(4):
            st = (st + 0x9E3779B97F4A7C15) & _M64
            s.append(_mix64(st))
        self._s = s if any(s) else [1, 0, 0, 0]

    def _next(self) -> int:
        s = self._s
        s1 = s[1]
        x = (s1 * 5) & _M64
        result = ((((x << 7) | (x >> 57)) & _M64) * 9) & _M64
        t = (s1 << 17) & _M64
        s[2] ^= s[0]
        s[3] ^= s1
        s[1] = s1 ^ s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = ((s[3] << 45) | (s[3] >> 19)) & _M64
        return result

    def _below(self, k: int) -> int:
        floor = (1 << 64) % k
        r = self._next()
        while r < floor:
            r = self._next()
        return r % k

    def shuffle(self, x) -> None:  # type: ignore[override]
        for i in range(len(x) - 1, 0, -1):
            j = self._below(i + 1)
            x[i], x[j] = x[j], x[i]

    def random(self) -> float:
        return (self._next() >> 11) * (1.0 / (1 << 53))

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        out = bits = 0
        while bits < k:
            out |= self._next() << bits
            bits += 64
        return out & ((1 << k) - 1)

    def getstate(self) -> tuple:
        return ("xoshiro256**", tuple(self._s))

    def setstate(self, state: tuple) -> None:
        if not (isinstance(state, tuple) and len(state) == 2 and state[0] == "xoshiro256**"):
            raise ValueError(f"not a SeriesRng state: {state!r:.60}")
        self._s = list(state[1])


def game_rng(seed: int, index: int = 0) -> random.Random:
    """The RNG of game ``index`` in a series started from ``seed`` (a :class:`SeriesRng`): the same
    stream as the kernel's game loop, independent of how games are spread over processes, and the
    same on every platform."""
    return SeriesRng(seed, index)


def distribution(ruleset: Ruleset) -> list[int]:
    """Every tile of the set, blanks (0) first, then letters in alphabet order."""
    return [t for t, n in enumerate(ruleset.counts) for _ in range(n)]


class Bag:
    """Undrawn tiles. ``order`` (tiles in the order they are drawn) replaces the shuffle, e.g. in tests."""

    __slots__ = ("ruleset", "rng", "_tiles")

    def __init__(
        self,
        ruleset: Ruleset,
        rng: "random.Random | int | None" = None,
        order: Sequence[int] | None = None,
    ):
        self.ruleset = ruleset
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        if order is None:
            tiles = distribution(ruleset)
            self.rng.shuffle(tiles)
        else:
            tiles = [int(t) for t in order]
            if sorted(tiles) != distribution(ruleset):
                raise PositionError(
                    f"a bag order must hold exactly the {ruleset.total_tiles} tiles of the {ruleset.name} set "
                    f"(got {len(tiles)} tiles that are not that set)"
                )
            tiles.reverse()  # drawn from the end
        self._tiles = tiles

    @classmethod
    def holding(cls, ruleset: Ruleset, tiles: Iterable[int], rng: "random.Random | int | None" = None) -> "Bag":
        """A bag of some of the set's tiles (those of a game in progress), shuffled by ``rng``."""
        bag = cls.__new__(cls)
        bag.ruleset = ruleset
        bag.rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        held = sorted(int(t) for t in tiles)
        have = [0] * len(ruleset.counts)
        for t in held:
            if not 0 <= t < len(have) or have[t] >= ruleset.counts[t]:
                raise PositionError(f"a bag of {ruleset.name} cannot hold tile {t} that many times (or at all)")
            have[t] += 1
        bag.rng.shuffle(held)
        bag._tiles = held
        return bag

    def __len__(self) -> int:
        return len(self._tiles)

    def draw(self, n: int) -> list[int]:
        """Take up to ``n`` tiles (fewer when the bag runs out)."""
        tiles = self._tiles
        if n <= 0 or not tiles:
            return []
        drawn = tiles[-n:]
        del tiles[-n:]
        return drawn

    def put_back(self, tiles: Iterable[int]) -> None:
        """Return tiles and shake the bag (with :attr:`rng`, so that a seed repeats it): an exchange,
        or the tiles drawn after a play withdrawn in a challenge, which must not be drawn next
        (the player of the phony saw them)."""
        self._tiles.extend(tiles)
        self.rng.shuffle(self._tiles)

    def unshift(self, drawn: Sequence[int]) -> None:
        """Put tiles just drawn back where they were, so that they are drawn again next: for a draw
        taken back as if it had not happened (an undo, a turn refused after its draw, a challenged
        play that stands and draws them again). A play withdrawn in a challenge returns its tiles
        with :meth:`put_back` instead: its player saw them."""
        self._tiles.extend(drawn)

    def order(self) -> list[int]:
        """The tiles in the order they will be drawn."""
        return self._tiles[::-1]

    def counts(self) -> list[int]:
        """How many of each tile are in the bag, by tile (index 0 = blanks)."""
        out = [0] * len(self.ruleset.counts)
        for t in self._tiles:
            out[t] += 1
        return out

    def snapshot(self) -> list[int]:
        return self._tiles.copy()

    def restore(self, snapshot: list[int]) -> None:
        self._tiles = snapshot.copy()
