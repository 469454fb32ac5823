"""The compiled kernels' side of the tile contract, checked when each kernel is imported.

Every kernel (``lexicon/_kwgwalk``, ``lexicon/_kwgbuild``, ``lexicon/_wmp``, ``movegen/_movegen``) cimports the tile
bits from ``rules/_tiles.pxd`` and, at import, hands the values it was compiled with to
:func:`check_tile_bits`, which compares them with the Python definitions in
:mod:`racksmith.rules.alphabet` and :mod:`racksmith.rules.coords`. A kernel built from other
values (a stale build after one side changed) refuses to load instead of misreading tiles.

This module imports no kernel, so any kernel can import it while ``racksmith`` is still loading.
"""
from __future__ import annotations

from .rules.alphabet import BLANK, LETTER_MASK, MAX_LETTERS, THROUGH
from .rules.coords import MAX_DIM

#: what ``rules/_tiles.pxd`` must say, by name
TILE_BITS = {
    "BLANK": BLANK,
    "THROUGH": THROUGH,
    "LETTER_MASK": LETTER_MASK,
    "MAX_LETTERS": MAX_LETTERS,
    "MAX_DIM": MAX_DIM,
    "MAX_SQ": MAX_DIM * MAX_DIM,
    "MAX_RACK": 15,  #: racksmith.rules.ruleset refuses a rack_size above it
}


def check_tile_bits(module: str, compiled: dict[str, int]) -> None:
    """Raise ``ImportError`` naming every value of ``compiled`` that differs from :data:`TILE_BITS`."""
    wrong = [
        f"{name}={compiled.get(name)!r} (Python: {value!r})"
        for name, value in TILE_BITS.items()
        if compiled.get(name) != value
    ]
    wrong += [f"{name} is unknown to the Python layer" for name in compiled if name not in TILE_BITS]
    if wrong:
        raise ImportError(
            f"{module} was compiled with other tile bits than racksmith.rules defines: {', '.join(wrong)}. "
            "Rebuild the kernels (python dev/build_ext.py all, or pip install .)"
        )
