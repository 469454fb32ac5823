"""Win-percentage tables: the probability that the player to move wins, given the spread (their
score minus the opponent's) and the number of tiles they cannot see (the bag and the opponent's
rack), as MAGPIE and Quackle use them to turn a simulated spread into a win chance.

A table is trained by self-play (:func:`train_winpct`): at every turn of every game, before the
player to move chooses, the pair (unseen tiles ``u``, spread ``s``) and the game's final spread
``f`` (from the mover's side) are seen; what the table needs from that is the *swing* ``d = f - s``,
tallied by ``u`` as integer counts (so runs merge exactly). For a spread ``x`` the mover then wins
when ``x + d > 0`` and draws when ``x + d = 0``: the win chance at ``x`` is the share of swings
above ``-x``, plus half of those equal to it, which is monotone in ``x`` by construction.

Rows with few observations borrow from their neighbours (a window of unseen counts widened until it
holds :data:`MIN_ROW` swings, weighted by a triangle), and the swing distribution is smoothed by a
small Gaussian kernel in points, which keeps the table monotone (a sum of shifted monotone steps).

The file format is MAGPIE's ``winpct.csv``: one line per unseen count ``u = 1, 2, ...``, the first
number the observations behind the row, then one integer per spread from ``-M`` to ``+M`` (``2M+1``
columns): twice the wins plus the draws, so that ``win% = value / (2 * observations)``.
Macondo's ``winpct.csv`` is read too (:data:`MACONDO_FORMAT`): comma-separated, a header
``,0,1,...,N`` (the unseen counts), then a row per spread from ``+M`` down to ``-M``, the spread
first, then the win chance (0..1) at each unseen count; its column for 0 unseen tiles is not read
(the game is over: the spread decides), and its rows have no observations (0). Both say the same
thing, the chance that the player to move wins by his spread and the tiles he cannot see, and are
looked up the same way (the spread clamped to the table, the unseen count to its last row). A table
one of whose rows ends lower than it starts (its win chance at the highest spread below the one at
the lowest: the spreads reversed, or the chance of losing) is refused as it is read, in either
format; small dips inside a row (a table of few games) are not. A sidecar
named after the whole file name, ``TABLE.json`` (``english.winpct.json`` beside ``english.winpct``,
as the shipped tables and leave files have it), holds the provenance (command, games, seed, leaves
and their sha256, players).
"""
from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .. import _args
from .._cache import files_cache, keep, recall
from ..errors import WinPctError
from ..lexicon.files import read_bounded, write_atomically
from ..rules.ruleset import Ruleset, builtin_name, get_ruleset, provenance_fields

#: spreads the shipped tables cover: -MAX_SPREAD..MAX_SPREAD (beyond, the nearest end is used)
MAX_SPREAD = 500
#: swings tallied: -MAX_SWING..MAX_SWING (larger ones are clipped; they decide nothing inside the table)
MAX_SWING = 1000
#: the fewest swings a row is estimated from (neighbouring rows are pooled until it is reached)
MIN_ROW = 3000
#: the Gaussian smoothing of the swing distribution, in points
SMOOTH_POINTS = 2.0
#: the largest table file read (the shipped ones are 0.5 to 1 MB)
MAX_TABLE_BYTES = 16 << 20
#: the most observations a row may have (twice them, the largest value of a row, fits an int64)
MAX_OBSERVATIONS = (1 << 62) - 1
#: the rulesets racksmith ships a table for
SHIPPED = ("english", "super", "russian", "erudit")
#: the observations a row without any (a table read from win chances: Macondo's format) is written
#: with in MAGPIE's format, so that its win chances are kept to 1e-9 (MAGPIE's format holds counts)
NOMINAL_OBSERVATIONS = 10**9
#: the formats a table file may be in (what an error names)
MAGPIE_FORMAT = ("MAGPIE's winpct format (a line per unseen count 1, 2, ...: the observations, then "
                 "twice the wins plus the draws at each spread -M..M, whole numbers separated by spaces)")
MACONDO_FORMAT = ("Macondo's winpct.csv (comma-separated: a header ',0,1,...,N' of unseen counts, then a row "
                  "per spread from +M down to -M: the spread, then the win chance 0..1 at each unseen count)")


@dataclass(frozen=True, slots=True)
class WinPct:
    """A win-percentage table: ``table[u - 1, s + max_spread]`` is the chance that the player to
    move, ``s`` points ahead with ``u`` tiles unseen, wins (a draw counts half).

    A value: two tables are equal when their win chances, observations and names are (the same
    table read twice is equal to itself; the provenance is not compared), and equal tables hash
    alike, so a table can be a key or in a set. Change neither array in place once it is made."""

    table: np.ndarray  # float64, (max_unseen, 2 * max_spread + 1)
    observations: np.ndarray  # int64, (max_unseen,)
    name: str = ""
    provenance: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        """Check the arrays (kept as float64 and int64): a row of win chances (0 to 1) per unseen
        count 1..max_unseen, over the spreads -max_spread..max_spread, and its observations."""
        try:
            table = np.asarray(self.table, dtype=np.float64)
        except (TypeError, ValueError):
            raise WinPctError(f"a win% table's table is an array of win chances, got {_args.show(self.table)}") from None
        if table.ndim != 2 or table.shape[0] < 1 or table.shape[1] % 2 != 1:
            raise WinPctError(f"a win% table's table is a 2-D array: a row per unseen count (at least one), an odd "
                              f"number of columns (spreads -M..M); got shape {table.shape}")
        if not np.isfinite(table).all() or table.min() < 0 or table.max() > 1:
            raise WinPctError("a win% table's table holds win chances: numbers from 0 to 1")
        obs = np.asarray(self.observations)
        if obs.dtype.kind not in "iu" or obs.shape != (table.shape[0],):
            raise WinPctError(f"a win% table's observations are whole numbers, one per row of the table "
                              f"({table.shape[0]}), got {_args.show(self.observations)}")
        if obs.size and (obs.min() < 0 or obs.max() > MAX_OBSERVATIONS):
            raise WinPctError(f"a win% table's observations are whole numbers from 0 to {MAX_OBSERVATIONS:,}")
        if not isinstance(self.name, str):
            raise WinPctError(f"a win% table's name is a str, got {_args.show(self.name)}")
        if not isinstance(self.provenance, dict):
            raise WinPctError(f"a win% table's provenance is a dict, got {_args.show(self.provenance)}")
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "observations", obs.astype(np.int64, copy=False))

    def __eq__(self, other: object) -> bool:
        """Equal win chances, observations and name (the dataclass's ``==`` compared the arrays as
        booleans, and raised ValueError)."""
        if not isinstance(other, WinPct) or other.__class__ is not self.__class__:
            return NotImplemented
        return (self is other or self.name == other.name and np.array_equal(self.table, other.table)
                and np.array_equal(self.observations, other.observations))

    def __hash__(self) -> int:
        """The hash of what ``==`` compares: the name and the arrays' contents (``+ 0.0`` makes a
        ``-0.0`` the ``0.0`` it equals)."""
        return hash((self.name, self.table.shape, (self.table + 0.0).tobytes(), self.observations.tobytes()))

    @property
    def max_spread(self) -> int:
        return (self.table.shape[1] - 1) // 2

    @property
    def max_unseen(self) -> int:
        return self.table.shape[0]

    def __call__(self, spread: float, unseen: int) -> float:
        return self.get(spread, unseen)

    def get(self, spread: float, unseen: int) -> float:
        """The win chance at ``spread`` (rounded to the nearest point, a half up; clamped to the table) with
        ``unseen`` tiles unseen (1..max_unseen; 0 means the game is over: 1, 0.5 or 0)."""
        if isinstance(unseen, bool) or not isinstance(unseen, (int, np.integer)) or unseen < 0:
            raise WinPctError(f"unseen must be a whole number >= 0, got {unseen!r}")
        m = self.max_spread
        if _args.is_whole(spread):  # clamped first: a whole number may be beyond any float
            spread = max(-m, min(m, int(spread)))
        try:
            spread = float(spread)
        except (TypeError, ValueError):
            raise WinPctError(f"spread must be a number, got {spread!r}") from None
        except OverflowError:
            raise WinPctError(f"spread must be finite, got {_args.show(spread)}") from None
        if not math.isfinite(spread):
            raise WinPctError(f"spread must be finite, got {spread!r}")
        if unseen == 0:
            return 1.0 if spread > 0 else 0.5 if spread == 0 else 0.0
        u = min(int(unseen), self.max_unseen)
        s = int(math.floor(spread + 0.5))  # a half up, as the simulation's kernel reads it (-2.5: -2)
        s = max(-m, min(m, s))
        return float(self.table[u - 1, s + m])

    # --- files -----------------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, name: str = "", provenance: dict[str, Any] | None = None) -> "WinPct":
        """A table from MAGPIE's text format, or Macondo's ``winpct.csv`` (comma-separated: see the
        module docstring)."""
        if not isinstance(text, str):
            hint = ": decode a file's bytes (ASCII) first, or read the file with WinPct.load" if isinstance(
                text, (bytes, bytearray, memoryview)) else ""
            raise WinPctError(f"the text of a win% table is a str, got {_args.show(text)}{hint}")
        lines = [ln for ln in text.replace("\r", "").split("\n") if ln.strip()]
        if not lines:
            raise WinPctError(f"win% table {name or '(text)'} has no rows")
        if "," in lines[0]:
            return cls._parse_macondo(lines, name, provenance)
        rows: list[np.ndarray] = []
        obs: list[int] = []
        width = None
        for i, ln in enumerate(lines, 1):
            parts = ln.split()
            try:
                nums = [int(p) for p in parts]
            except ValueError:
                raise WinPctError(f"win% table {name or '(text)'}, line {i}: not whole numbers: racksmith reads "
                                  f"{MAGPIE_FORMAT}, or {MACONDO_FORMAT}") from None
            if width is None:
                width = len(nums) - 1
                if width < 1 or width % 2 != 1:
                    raise WinPctError(f"win% table {name or '(text)'}, line {i}: expected an odd number of spread columns, got {width}")
            elif len(nums) - 1 != width:
                raise WinPctError(f"win% table {name or '(text)'}, line {i}: {len(nums) - 1} spread columns, expected {width}")
            total = nums[0]
            if not 0 <= total <= MAX_OBSERVATIONS:
                raise WinPctError(f"win% table {name or '(text)'}, line {i}: the observations must be a whole number "
                                  f"from 0 to {MAX_OBSERVATIONS:,}, got {_args.show(total)}")
            if min(nums[1:]) < 0 or max(nums[1:]) > 2 * total:
                raise WinPctError(f"win% table {name or '(text)'}, line {i}: values must lie in 0..2 x the observations ({total})")
            vals = np.asarray(nums[1:], dtype=np.float64)
            if total == 0:
                if not rows:
                    raise WinPctError(f"win% table {name or '(text)'}, line {i}: no observations and no row before it to copy")
                rows.append(rows[-1].copy())
            else:
                rows.append(vals / (2.0 * total))
            obs.append(total)
        table = np.vstack(rows)
        u = _falling_row(table)
        if u is not None:
            raise WinPctError(f"win% table {name or '(text)'}, line {u}: {_falls(table, u)}; the spread columns may be "
                              "reversed (MAGPIE's format has them from the lowest spread, -M, to the highest, +M)")
        return cls(table, np.asarray(obs, dtype=np.int64), name, dict(provenance or {}))

    @classmethod
    def _parse_macondo(cls, lines: list[str], name: str, provenance: dict[str, Any] | None) -> "WinPct":
        """A table from Macondo's ``winpct.csv`` (:data:`MACONDO_FORMAT`; ``lines``: its lines
        that are not blank): row ``u`` of the table is the column of ``u`` unseen tiles, its
        spreads from ``-M`` to ``+M`` (the file's rows read from the last); no observations."""
        where = f"win% table {name or '(text)'} (Macondo's winpct.csv)"
        head = [c.strip() for c in lines[0].split(",")]
        try:
            unseen = [int(c) for c in head[1:]]
        except ValueError:
            unseen = []
        if head[0] != "" or len(unseen) < 2 or unseen != list(range(len(unseen))):
            raise WinPctError(f"win% table {name or '(text)'}, line 1: {lines[0][:40]!r} is not a header ',0,1,...,N' "
                              f"of unseen tile counts from 0: racksmith reads {MACONDO_FORMAT}, or {MAGPIE_FORMAT}")
        n_rows = len(lines) - 1
        if n_rows < 1 or n_rows % 2 != 1:
            raise WinPctError(f"{where}: {n_rows} rows of spreads, expected an odd number of them (+M down to -M)")
        top = (n_rows - 1) // 2
        grid = np.empty((n_rows, len(unseen)), dtype=np.float64)
        for i, ln in enumerate(lines[1:], 2):
            cells = [c.strip() for c in ln.split(",")]
            if len(cells) != len(head):
                raise WinPctError(f"{where}, line {i}: {len(cells)} columns, expected {len(head)} (a spread, then "
                                  f"the win chance at each of the header's {len(unseen)} unseen counts)")
            spread = top - (i - 2)
            try:
                given = int(cells[0])
                values = [float(c) for c in cells[1:]]
            except ValueError:
                raise WinPctError(f"{where}, line {i}: expected the spread {spread} (a whole number), then win chances "
                                  "(numbers from 0 to 1)") from None
            if given != spread:
                raise WinPctError(f"{where}, line {i}: spread {given}, expected {spread}: the rows go from +{top} "
                                  f"down to -{top}, one point apart")
            if not all(math.isfinite(v) and 0 <= v <= 1 for v in values):
                raise WinPctError(f"{where}, line {i}: win chances must be numbers from 0 to 1")
            grid[i - 2] = values
        # the table's rows are unseen 1..N (0 unseen tiles: the game is over), its columns -M..+M
        table = np.ascontiguousarray(grid[::-1, 1:].T)
        u = _falling_row(table)
        if u is not None:
            raise WinPctError(f"{where}, column {u + 1} (unseen {u}): {_falls(table, u)}; its win chances may be "
                              f"reversed (its rows go from spread +{top}, the highest chance, down to -{top})")
        prov = dict(provenance or {})
        prov.setdefault("source_format", MACONDO_FORMAT)
        return cls(table, np.zeros(table.shape[0], dtype=np.int64), name, prov)

    def text(self) -> str:
        """The table in MAGPIE's format (observations, then twice the wins plus draws per spread).
        A row without observations (a table read from win chances, Macondo's format) is written
        with :data:`NOMINAL_OBSERVATIONS`, which keeps its win chances to 1e-9, unless it repeats
        the row before (MAGPIE's row of zeros: copy the row before)."""
        out = []
        for u in range(self.max_unseen):
            total = int(self.observations[u])
            if total == 0 and u > 0 and np.array_equal(self.table[u], self.table[u - 1]):
                out.append(" ".join(["0"] * (self.table.shape[1] + 1)))  # MAGPIE: copy the row before
                continue
            if total == 0:
                total = NOMINAL_OBSERVATIONS
            vals = np.rint(self.table[u] * 2 * total).astype(np.int64)
            out.append(" ".join([str(total), *map(str, vals.tolist())]))
        return "\n".join(out) + "\n"

    @classmethod
    def load(cls, path: "str | Path") -> "WinPct":
        """A table file in MAGPIE's format or Macondo's (:meth:`parse`), with its provenance when a
        sidecar is beside it (:func:`provenance_path`)."""
        p = Path(path)
        raw = read_bounded(p, MAX_TABLE_BYTES, "win% table", WinPctError)
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError as e:
            raise WinPctError(f"{str(p)!r} is not a win% table: a table is text (MAGPIE's winpct format, whole "
                              f"numbers, or Macondo's winpct.csv), but byte 0x{raw[e.start]:02x} at offset {e.start} "
                              "is not text") from None
        side = _sidecar_to_read(p)
        prov = _read_provenance(side) if side is not None else {}
        try:
            return cls.parse(text, p.stem, prov)
        except WinPctError as e:
            raise WinPctError(f"cannot read win% table {str(p)!r}: {e}") from None

    def save(self, path: "str | Path") -> None:
        """Write the table to ``path`` and its provenance, if any, beside it (``path + ".json"``:
        :func:`provenance_path`), each file whole or not at all
        (:class:`~racksmith.errors.OutputFileError` names the one that failed)."""
        from ..lexicon.sidecar import written_together

        p = _args.path(path, "path", WinPctError)
        with written_together(p):  # (both or neither: the old pair kept when the provenance cannot be written)
            write_atomically(p, self.text().encode("ascii"))
            if self.provenance:
                write_atomically(provenance_path(p), (json.dumps(self.provenance, indent=2) + "\n").encode("utf-8"))


#: how far a row's win chance at its highest spread may lie below the one at its lowest before the
#: table is refused: the rounding of a row that is flat (a table's rows rise from the lowest spread to
#: the highest; one trained on few games may dip here and there, never over the whole row)
FALL_TOLERANCE = 1e-9


def _falling_row(table: np.ndarray) -> "int | None":
    """The first unseen count (1, 2, ...) whose row of ``table`` ends lower than it starts: its win
    chance at the highest spread below the one at the lowest (the spreads reversed, or the chance
    of losing), else None. Small dips inside a row (a table trained on few games) are let be."""
    falling = np.flatnonzero(table[:, -1] < table[:, 0] - FALL_TOLERANCE)
    return int(falling[0]) + 1 if falling.size else None


def _falls(table: np.ndarray, unseen: int) -> str:
    """What is wrong with the row of ``unseen`` tiles :func:`_falling_row` found, for an error."""
    m = (table.shape[1] - 1) // 2
    row = table[unseen - 1]
    return (f"with {unseen} unseen tile{'s' if unseen != 1 else ''} the win chance falls from {100 * row[0]:.1f}% at "
            f"spread -{m} to {100 * row[-1]:.1f}% at +{m}: a win chance rises with the spread")


def provenance_path(path: "str | Path") -> Path:
    """Where the provenance of the table ``path`` is written: the whole file name and ``.json``
    (``x.winpct.json``, ``x.json.json``), never a file that could be the table itself."""
    return Path(str(path) + ".json")


def _sidecar_to_read(table: Path) -> "Path | None":
    """The provenance sidecar of ``table``: ``TABLE.json``, else (a table written by an older
    racksmith) the table's name with its suffix replaced by ``.json`` when that is another file
    holding a JSON object (it may be something else: a table named ``x.json`` beside
    ``x.winpct``); None when there is neither."""
    side = provenance_path(table)
    if side.is_file():
        return side
    old = table.with_suffix(".json") if table.suffix else None
    if old is None or old == table or not old.is_file():
        return None
    try:
        _read_provenance(old)
    except WinPctError:
        return None
    return old


def _read_provenance(path: Path) -> dict:
    """The provenance sidecar of a table: a JSON object."""
    raw = read_bounded(path, MAX_TABLE_BYTES, "win% table provenance", WinPctError)
    try:
        prov = json.loads(raw)
    except RecursionError:
        raise WinPctError(f"win% table provenance {str(path)!r} is nested too deeply to be read") from None
    except ValueError as e:
        raise WinPctError(f"win% table provenance {str(path)!r} is not valid JSON: {e}") from None
    if not isinstance(prov, dict):
        raise WinPctError(f"win% table provenance {str(path)!r} must hold a JSON object, got {_args.show(prov)}")
    return prov


#: win% tables read by load_winpct, shipped (by name) and files (by the file's path and stamp): the
#: last few used, as lexicons, leaves and rulesets are (racksmith._cache), forgotten by clear_caches
_from_files: dict[tuple, WinPct] = files_cache()


def load_winpct(spec: "str | Path | WinPct | Ruleset") -> WinPct:
    """The win% table of a ruleset racksmith ships (``english``, ``super``, ``russian``,
    ``erudit``; a :class:`Ruleset` uses the one of its name or, for a user ruleset, the one
    :func:`shipped_table_for` names: another ruleset's, which :func:`borrowed_note` says), or a
    table file in MAGPIE's format or Macondo's."""
    if isinstance(spec, WinPct):
        return spec
    if isinstance(spec, Ruleset):
        return load_winpct(shipped_table_for(spec))
    if not isinstance(spec, (str, Path)):
        raise WinPctError(f"a win% table is a ruleset name, a path or a WinPct, got {type(spec).__name__}")
    name = _shipped_name(spec)
    shipped = name is not None
    if shipped:
        key: tuple = (name,)
    else:
        # a file by where it is and what it holds now: a table rewritten in place (retrained) or a
        # relative path read from another folder is read again, not taken from the cache
        try:
            p = Path(spec).resolve()
            st = p.stat()
        except (OSError, ValueError, RuntimeError):
            raise WinPctError(f"no win% table {spec!r}: use one of {', '.join(SHIPPED)} or the path of a table file") from None
        key = (str(p), st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
    found = recall(_from_files, key)
    if found is not None:
        return found
    if shipped:
        base = resources.files("racksmith.sim") / "data"
        try:
            text = (base / f"{name}.winpct").read_text(encoding="ascii")
            prov = json.loads((base / f"{name}.winpct.json").read_text(encoding="utf-8"))
        except OSError:
            raise WinPctError(
                f"this racksmith has no win% table for {name}: give winpct the path of one (train_winpct makes one)"
            ) from None
        wp = WinPct.parse(text, name, prov)
    elif Path(spec).is_file():
        wp = WinPct.load(spec)
    else:
        raise WinPctError(f"no win% table {spec!r}: use one of {', '.join(SHIPPED)} or the path of a table file")
    return keep(_from_files, key, wp)  # (another thread's, when it read the file at the same time)


def _shipped_name(spec: "str | Path") -> "str | None":
    """The shipped table ``spec`` names: a shipped ruleset's name (case and surrounding spaces
    ignored), or one of its aliases (``эрудит``, ``скрэббл``, as ``--ruleset`` reads them) when no
    file of that name is there; None for a path."""
    name = builtin_name(spec)
    if name is None or name not in SHIPPED:
        return None
    if isinstance(spec, str) and spec.strip().lower() == name:
        return name
    try:
        there = Path(spec).exists()
    except (OSError, ValueError):
        there = False
    return None if there else name


def shipped_table_for(ruleset: Ruleset) -> str:
    """The shipped table a simulation of ``ruleset`` uses when given none: its own (a shipped
    ruleset, or a ruleset file of a shipped one's name), else the one of the shipped set whose tile
    count is nearest (English for French's 102 tiles or Polish's 100)."""
    if ruleset.name in SHIPPED:
        return ruleset.name
    return min(SHIPPED, key=lambda n: abs(get_ruleset(n).total_tiles - ruleset.total_tiles))


#: how a note names the way to give a table, as ``sim``, ``best`` and ``analyze`` take it and in
#: Python: (``without X`` the ruleset's own table is used, ``give one ... with Y``); ``racksmith
#: match`` names a player's spec instead (``winpct= in --p1``, ``--p1 sim:...,winpct=FILE``)
WINPCT_OPTION = ("--winpct (winpct= in Python)", "--winpct FILE (winpct= in Python)")


def borrowed_note(ruleset: Ruleset, winpct: "str | Path | WinPct | None" = None, *,
                  option: "tuple[str, str]" = WINPCT_OPTION) -> "str | None":
    """When a simulation of ``ruleset`` given ``winpct`` (None: the default) uses the table of
    another ruleset, or a table with fewer rows than a game of ``ruleset`` has unseen tiles: a
    line that says so, else None. Without ``winpct``, for a ruleset with no table of its own, the
    line names the table used and ``--winpct`` (``winpct=`` in Python); with a table whose
    provenance says it was trained for another ruleset (:func:`other_ruleset_note`), it names that
    ruleset and the one in use. Whatever the table's provenance says (or when it has none: a
    MAGPIE or Macondo table), the line says which unseen counts its rows cover when a game of
    ``ruleset`` has more (:func:`coverage_note`). ``option``: how the line names the way to give a
    table (:data:`WINPCT_OPTION`)."""
    if winpct is not None:
        line = other_ruleset_note(ruleset, winpct, option=option)  # (its rows too, when they fall short)
        return line if line is not None else coverage_note(ruleset, winpct, option=option)
    used = shipped_table_for(ruleset)
    if used == ruleset.name:
        return coverage_note(ruleset, used, option=option)  # (a ruleset file of a shipped one's name, with more tiles)
    line = (f"ruleset {ruleset.name} has no win% table of its own: its simulations use the {used} table (the "
            f"shipped one whose {get_ruleset(used).total_tiles} tiles are nearest its {ruleset.total_tiles})")
    rows = _rows_covered(ruleset, load_winpct(used))
    if rows is not None:
        line += f", which {rows}"
    return line + f"; give one trained for it ('racksmith winpct train --ruleset FILE') with {option[1]}"


def _rows_covered(ruleset: Ruleset, wp: WinPct) -> "str | None":
    """``has rows for 1 to N unseen tiles, and a game of R has up to M (more are read as N)`` when
    a game of ``ruleset`` can have more unseen tiles (M: those of the opening, all but the mover's
    rack) than the table ``wp`` has rows (N), else None."""
    most = ruleset.total_tiles - ruleset.rack_size  # (the unseen tiles of the opening)
    if wp.max_unseen >= most:
        return None
    return (f"has rows for 1 to {wp.max_unseen} unseen tiles, and a game of {ruleset.name} has up to {most} "
            f"(more are read as {wp.max_unseen})")


def _table_words(wp: WinPct) -> str:
    return f"win% table {wp.name}" if wp.name else "the win% table given"


def coverage_note(ruleset: Ruleset, winpct: "str | Path | WinPct | Ruleset", *,
                  option: "tuple[str, str]" = WINPCT_OPTION) -> "str | None":
    """When a game of ``ruleset`` can have more unseen tiles than the table ``winpct`` has rows
    (MAGPIE's English table, of 93 rows, under Super Scrabble's 193), a line that says which it
    covers and that more are read from its last row, whatever the table's provenance says; else
    None."""
    wp = load_winpct(winpct)
    rows = _rows_covered(ruleset, wp)
    if rows is None:
        return None
    line = f"{_table_words(wp)} {rows}"
    if ruleset.name in SHIPPED and _rows_covered(ruleset, load_winpct(ruleset.name)) is None:
        return line + f"; without {option[0]} {ruleset.name}'s own table is used"
    return line + f"; 'racksmith winpct train --ruleset FILE' makes one that covers them, for {option[1]}"


def other_ruleset_note(ruleset: Ruleset, winpct: "str | Path | WinPct | Ruleset", *,
                       option: "tuple[str, str]" = WINPCT_OPTION) -> "str | None":
    """When the table ``winpct`` was trained for another ruleset than ``ruleset`` (its provenance's
    ``ruleset``, and that ruleset's game is not ``ruleset``'s under another name:
    :func:`racksmith.lexicon.sidecar.trained_for_another`), a line that says so, for a simulation
    of ``ruleset``: the ruleset it was made for, the one in use, and, when a game of ``ruleset``
    has more unseen tiles than the table has rows, how many it covers (more are read from its last
    row). A table that names no ruleset (Macondo's, or one made in code) says nothing here: None
    (:func:`coverage_note` says what its rows cover, whatever the provenance)."""
    from ..lexicon.sidecar import trained_for_another

    wp = load_winpct(winpct)
    prov = wp.provenance
    made_for = prov.get("ruleset")
    if not isinstance(made_for, str) or not made_for.strip():
        return None
    file, digest = prov.get("ruleset_file"), prov.get("ruleset_sha256")
    other = trained_for_another(made_for, file if isinstance(file, str) and file.strip() else None,
                                digest if isinstance(digest, str) and digest else None, ruleset)
    if other is None:
        return None
    line = f"{_table_words(wp)} was trained for ruleset {made_for}, not {ruleset.name}, the ruleset in use"
    rows = _rows_covered(ruleset, wp)
    if rows is not None:
        line += f": it {rows}"
    if ruleset.name in SHIPPED:
        return line + f"; without {option[0]} {ruleset.name}'s own table is used"
    return line + f"; give one trained for {ruleset.name} ('racksmith winpct train --ruleset FILE') with {option[1]}"


def with_borrowed_note(result: Any, ruleset: Ruleset, winpct: "str | Path | WinPct | None" = None) -> Any:
    """``result`` (a :class:`~racksmith.sim.simulate.SimResult`) with :func:`borrowed_note`
    added to its ``note`` (once: a note that has it already is left as it is)."""
    import dataclasses

    line = borrowed_note(ruleset, winpct)
    if line is None or (result.note and line in result.note):
        return result
    return dataclasses.replace(result, note="; ".join(filter(None, (result.note, line))))


# --- training ------------------------------------------------------------------------------------
@dataclass
class SwingTally:
    """Integer counts ``counts[u - 1, d + MAX_SWING]`` of swings ``d`` seen with ``u`` tiles unseen."""

    counts: np.ndarray

    @classmethod
    def empty(cls, max_unseen: int) -> "SwingTally":
        return cls(np.zeros((max_unseen, 2 * MAX_SWING + 1), dtype=np.int64))

    def add(self, other: "SwingTally") -> None:
        self.counts += other.counts

    def record_game(self, turns: list[tuple[int, int, int]], finals: list[int]) -> None:
        """``turns``: (seat to move, unseen, spread of the mover) before each move; ``finals``:
        the final spread by seat."""
        n = self.counts.shape[0]
        for seat, unseen, spread in turns:
            if 1 <= unseen <= n:
                d = max(-MAX_SWING, min(MAX_SWING, finals[seat] - spread))
                self.counts[unseen - 1, d + MAX_SWING] += 1


def table_from_tally(tally: SwingTally, max_spread: int = MAX_SPREAD, min_row: int = MIN_ROW,
                     smooth: float = SMOOTH_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """The smoothed win% table and the observations behind each row (see the module docstring)."""
    counts = tally.counts.astype(np.float64)
    n_rows = counts.shape[0]
    per_row = counts.sum(axis=1)
    if per_row.sum() == 0:
        raise WinPctError("no observations to build a win% table from")
    # the Gaussian kernel over swings
    half = int(math.ceil(4 * smooth)) if smooth > 0 else 0
    xs = np.arange(-half, half + 1, dtype=np.float64)
    kernel = np.exp(-0.5 * (xs / smooth) ** 2) if smooth > 0 else np.ones(1)
    kernel /= kernel.sum()
    spreads = np.arange(-max_spread, max_spread + 1)
    table = np.zeros((n_rows, spreads.size))
    obs = np.zeros(n_rows, dtype=np.int64)
    for r in range(n_rows):
        w = 0
        while True:
            lo, hi = max(0, r - w), min(n_rows, r + w + 1)
            if per_row[lo:hi].sum() >= min_row or (lo == 0 and hi == n_rows):
                break
            w += 1
        weights = 1.0 - np.abs(np.arange(lo, hi) - r) / (w + 1.0)
        hist = (counts[lo:hi] * weights[:, None]).sum(axis=0)
        obs[r] = int(per_row[lo:hi].sum())
        if hist.sum() == 0:
            continue
        hist = np.convolve(hist, kernel, mode="same")
        p = hist / hist.sum()
        # P(x + d > 0) + P(x + d == 0) / 2, d from -MAX_SWING..MAX_SWING
        cdf = np.cumsum(p)  # cdf[k] = P(d <= k - MAX_SWING)
        for j, x in enumerate(spreads):
            k = -x + MAX_SWING  # index of d == -x
            if k < 0:
                table[r, j] = 1.0
            elif k >= p.size:
                table[r, j] = 0.0
            else:
                table[r, j] = (1.0 - cdf[k]) + 0.5 * p[k]
    # rows with no data at all copy their nearest neighbour below
    for r in range(n_rows):
        if obs[r] == 0 and r > 0:
            table[r] = table[r - 1]
            obs[r] = obs[r - 1]
    return np.clip(table, 0.0, 1.0), obs


@dataclass(frozen=True, slots=True)
class TrainConfig:
    #: a shipped ruleset's name, or the ruleset itself (it travels to the worker processes with the
    #: config: a name would find the shipped ruleset of that name, not a ruleset file's)
    ruleset: "str | Ruleset"
    lexicon: str | None = None
    leaves: str | None = None
    seed: int = 0
    engine: str = "auto"    #: "auto": the kernel's game loop when it plays the games; "python": Game


#: a pool worker process's set-up config (:func:`_init`); an in-process run (``jobs=1``) keeps its
#: own instead and hands it to :func:`_play_games`: two runs in two threads of one process at once
#: must not play with each other's config
_WORKER: Any = None


def _setup(cfg: TrainConfig):
    from ..lexicon import load_leaves
    from ..lexicon.load import ruleset_lexicon

    rs = get_ruleset(cfg.ruleset)
    spec = cfg.lexicon or rs.lexicon
    if spec is None:
        raise WinPctError(f"ruleset {rs.name} names no lexicon: give one")
    lex = ruleset_lexicon(rs, cfg.lexicon or None)  # the ruleset's: an embedded name, or its file's word list
    leaves = load_leaves(cfg.leaves, ruleset=rs) if cfg.leaves else None
    return rs, lex, leaves


def _worker(cfg: TrainConfig) -> tuple:
    """What playing the games of ``cfg`` needs: (cfg, ruleset, lexicon, leaves, kernel tables)."""
    rs, lex, leaves = _setup(cfg)
    return cfg, rs, lex, leaves, None if cfg.engine == "python" else _kernel_tables(rs, lex, leaves)


def _init(cfg: TrainConfig) -> None:
    """A pool worker's initializer: its process's config."""
    global _WORKER
    _WORKER = _worker(cfg)


def _kernel_tables(rs, lex, leaves):
    """(rules, leave table) for the kernel's game loop, or None when it does not play these games
    (a word-list lexicon, or star reclamation with more blanks than it takes back)."""
    from ..lexicon import Lexicon
    from ..movegen._movegen import LeaveTable
    from ..movegen.generate import _rules
    from ..play.selfplay import kernel_plays_ruleset

    if not isinstance(lex, Lexicon) or not kernel_plays_ruleset(rs):
        return None
    return _rules(rs, lex), (LeaveTable(leaves) if leaves is not None else None)


def _play_games(indices: list[int], worker: tuple | None = None) -> SwingTally:
    """The swings of games ``indices`` (consecutive runs in the kernel's game loop when it plays
    them, else through :class:`Game`; the same games and the same tally either way), with
    ``worker`` (:func:`_worker`; None: this pool worker process's, set by :func:`_init`)."""
    cfg, rs, lex, leaves, kernel = worker if worker is not None else _WORKER
    if kernel is None:
        return _python_swings(cfg, rs, lex, leaves, indices)
    tally = SwingTally.empty(rs.total_tiles - rs.rack_size)
    i = 0
    while i < len(indices):
        j = i + 1
        while j < len(indices) and indices[j] == indices[j - 1] + 1:
            j += 1
        tally.add(_kernel_swings(rs, kernel, cfg.seed, indices[i], j - i))
        i = j
    return tally


def _kernel_swings(rs, kernel, seed: int, first: int, n: int) -> SwingTally:
    """Games ``first .. first + n - 1`` in one call of the kernel's game loop (every move checked),
    their swings read off its turn rows: before each turn the mover's seat, the tiles unseen to him
    (the bag and the opponent's rack, whose size the rows give: a rack after a turn holds what it
    kept and what it drew) and his spread from the scores so far; the final spreads from the game's
    scores (seat s of game i is player (i + s) % 2)."""
    from ..play import _gameloop

    rules, table = kernel
    out = _gameloop.play_games(rules, [("equity", table), ("equity", table)], seed, first, n, check=True, rows=True)
    if out["n_violations"]:
        game, turn, code = out["violations"][0][:3]
        raise WinPctError(f"win% training game {game}, turn {turn}: the kernel's move failed its check "
                          f"({_gameloop.CHECK_REASONS.get(code, code)})")
    rows = out["turn_rows"]
    scores = out["scores"].tolist()
    tally = SwingTally.empty(rs.total_tiles - rs.rack_size)
    game_of, player, kind, bag = (rows[f].tolist() for f in ("game", "player", "kind", "bag"))
    score = rows["score"].tolist()
    n_rack = rows["rack"].sum(axis=1).tolist()
    n_kept = rows["kept"].sum(axis=1).tolist()
    k = 0
    for g in range(n):
        index = first + g
        by_seat = [scores[g][(index + s) % 2] for s in range(2)]
        finals = [by_seat[0] - by_seat[1], by_seat[1] - by_seat[0]]
        held = [rs.rack_size, rs.rack_size]
        sc = [0, 0]
        turns: list[tuple[int, int, int]] = []
        while k < len(game_of) and game_of[k] == index:
            seat = (player[k] - index) % 2
            turns.append((seat, bag[k] + held[1 - seat], sc[seat] - sc[1 - seat]))
            if kind[k] == 0:    # a placement: what it kept, and what it drew
                held[seat] = n_kept[k] + min(n_rack[k] - n_kept[k], bag[k])
                sc[seat] += score[k]
            k += 1
        tally.record_game(turns, finals)
    return tally


def _python_swings(cfg, rs, lex, leaves, indices: list[int]) -> SwingTally:
    from ..core.bag import game_rng
    from ..core.move import Move
    from ..play.game import Game

    tally = SwingTally.empty(rs.total_tiles - rs.rack_size)
    for index in indices:
        game = Game(rs, lex, players=2, seed=game_rng(cfg.seed, index))
        pos = game.live_position
        turns: list[tuple[int, int, int]] = []
        n = 0
        while not pos.is_over and n < 1000:
            seat = game.to_move
            sc = game.scores
            unseen = len(game.bag) + len(pos.racks[1])
            turns.append((seat, unseen, sc[seat] - sc[1 - seat]))
            ms = pos.moves(top=1, sort="equity", leaves=leaves, exchanges=True)
            move = ms[0] if len(ms) else Move.pass_(rs.alphabet, score=0)
            game.play_trusted(move)
            n += 1
        sc = game.scores
        tally.record_game(turns, [sc[0] - sc[1], sc[1] - sc[0]])
    return tally


def _leaves_sha256(leaves: str | None, rs: Ruleset) -> str | None:
    """The sha256 of the leave table the players played (a file's, or a shipped set's as it is
    now: a name alone does not say which table, ``english`` meant the trained file before the
    shipped sets were completed), as ``leaves train`` keeps its start leaves'; None without leaves."""
    if not leaves:
        return None
    import hashlib

    from ..lexicon import load_leaves

    return hashlib.sha256(load_leaves(leaves, ruleset=rs).tobytes()).hexdigest()


def train_winpct(
    ruleset: "str | Path | Ruleset",
    games: int,
    *,
    lexicon: str | None = None,
    leaves: str | None = None,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    command: str = "",
    engine: str = "auto",
) -> "tuple[WinPct, SwingTally]":
    """A win% table from ``games`` self-play games of best-equity players (with ``leaves``, a
    KLV2 file or a shipped set, ``shipped`` for the ruleset's own, or without leave values: None,
    or ``shipped`` for a ruleset that ships none; the provenance's ``players`` says which), and
    the swing tallies behind it. The same seed gives the
    same table for any ``jobs``. ``engine``: ``auto`` plays the games in the kernel's game loop when
    it plays the ruleset (every shipped one), ``python`` through :class:`Game`: the same games, the
    same tally."""
    if engine not in ("auto", "python"):
        raise WinPctError(f"engine must be 'auto' or 'python', got {engine!r}")
    from ..play.backends import check_games, check_jobs, split

    check_games(games, error=WinPctError)
    check_jobs(jobs, error=WinPctError)
    from ..play.backends import ruleset_ref

    rs = get_ruleset(ruleset)
    if isinstance(leaves, str) and leaves.strip().lower() == "shipped":
        from ..lexicon.shipped_leaves import default_leaves_name

        leaves = default_leaves_name(rs)  # (None for a ruleset that ships none: no leave values, said so)
    cfg = TrainConfig(ruleset_ref(rs), lexicon, leaves, int(seed), engine)
    leaves_sha256 = _leaves_sha256(leaves, rs)  # (before the games: the table they play, not one written since)
    t0 = time.perf_counter()
    batches = split(0, games, 25)
    tally = SwingTally.empty(rs.total_tiles - rs.rack_size)
    done = 0
    if jobs == 1:
        worker = _worker(cfg)  # this call's own, not the module's: another thread may be training too
        for b in batches:
            tally.add(_play_games(b, worker))
            done += len(b)
            if progress:
                progress(done)
    else:
        from ..play.pool import WorkerPool

        with WorkerPool(min(jobs, len(batches)), initializer=_init, initargs=(cfg,)) as pool:
            # a sum of whole numbers: the order the batches finish in does not matter
            for b, t in pool.completed(_play_games, batches):
                tally.add(t)
                done += len(b)
                if progress:
                    progress(done)
    table, obs = table_from_tally(tally)
    prov = {
        **provenance_fields(rs),
        "lexicon": cfg.lexicon or rs.lexicon,
        "leaves": Path(leaves).name if leaves else None,
        "leaves_sha256": leaves_sha256,
        "players": (f"best static equity (top move by score{' + leave value' if leaves else ', no leave values'}, "
                    "exchanges allowed) for both seats"),
        "games": games,
        "seed": cfg.seed,
        "positions": int(tally.counts.sum()),
        "max_spread": MAX_SPREAD,
        "min_row": MIN_ROW,
        "smooth_points": SMOOTH_POINTS,
        "seconds": round(time.perf_counter() - t0, 1),
        "command": command,
        "format": "MAGPIE winpct.csv: per unseen count 1..N, observations then 2*wins+draws per spread -M..M",
    }
    return WinPct(table, obs, rs.name, prov), tally
