"""The bag of a game: the undrawn tiles in the order they will be drawn, shuffled by a seeded RNG.

Drawing takes tiles from the end of a pre-shuffled list, so a game is reproducible from its seed and
a draw costs a slice. Tiles are plain ints (0 = blank).
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from ..errors import PositionError
from ..rules.ruleset import Ruleset


def game_rng(seed: int, index: int = 0) -> random.Random:
    """The RNG of game ``index`` in a series started from ``seed``: independent of how games are
    spread over processes, and the same on every platform."""
    return random.Random(f"racksmith-game:{int(seed)}:{int(index)}")


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
        """Return tiles (an exchange) and shake the bag."""
        self._tiles.extend(tiles)
        self.rng.shuffle(self._tiles)

    def unshift(self, drawn: Sequence[int]) -> None:
        """Put tiles just drawn back where they were, so that they are drawn again next (a withdrawn play)."""
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
