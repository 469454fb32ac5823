"""Leave values in KLV2 files: a DAWG-only KWG whose words are the leaves (tile 0 = blank, tiles
of a leave sorted) and one ``float32`` per leave, in the DAWG's word order.

``u32 node_count, node_count × u32 nodes, u32 leave_count, leave_count × f32`` (little-endian).
The older KLV (v1) stores ``i16`` values scaled by 256 and is recognised by its shorter length.
A leave that is absent (the empty leave too) is worth 0.
"""
from __future__ import annotations

import math
import gc
import os
import re
import reprlib
import unicodedata
from pathlib import Path
from typing import Any, Iterable, NamedTuple, Sequence

import numpy as np

from . import _kwgwalk
from .. import _args
from .._cache import files_cache, keep, recall
from ..rules.alphabet import Alphabet, nfc
from ..errors import LexiconFormatError, UnknownLetterError
from ..rules.ruleset import Ruleset, get_ruleset
from .build import build_packed, frozen
from .files import read_bounded, write_atomically
from .kwg import ARC_MASK, EMPTY_KWG, check_kwg, nodes_of, read_file
from .wordlist import _code_table

MAX_CSV_BYTES = 256 << 20  #: the largest leave CSV read (its text; every English leave is about 20 MB)
_PAD = 0xFF  # after every tile when the tiles of a leave are sorted
_BLANK_CODE = 0x40  # '?' and '*' while reading a CSV (tile 0 once sorted)


class Leaves:
    """Leave values: ``value("?ERS")``. ``kwg``, ``values`` and ``counts`` are read-only arrays over
    ``bytes`` objects (the file's, no copy, when read from a file), which nothing can change;
    ``counts[i]`` is the number of leaves in the sibling list from node ``i`` on, which turns a
    walk through the DAWG into a leave's index (see :func:`leave_index`)."""

    __slots__ = ("kwg", "values", "counts", "alphabet", "path", "version", "longest")

    def __setattr__(self, name: str, value: object) -> None:
        """A table's facts are set once: :func:`racksmith.load_leaves` hands the same object to every
        caller, so changing one (``leaves.path = ...``) would change it for all of them."""
        if hasattr(self, name):
            raise AttributeError(f"Leaves.{name} cannot be changed: a loaded leave table is shared by everyone who "
                                 "loaded it")
        object.__setattr__(self, name, value)

    def __init__(self, kwg: np.ndarray, values: np.ndarray, alphabet: Alphabet, *,
                 path: str | Path | None = None, version: int = 2, source: str = ""):
        if not isinstance(alphabet, Alphabet):
            raise LexiconFormatError(f"alphabet must be an Alphabet (ruleset.alphabet), got {_args.show(alphabet)}")
        _args.text(source, "source", LexiconFormatError)
        if path is not None:
            path = _args.path(path, "path", LexiconFormatError)
        where = source or (str(path) if path else "<memory>")
        nodes = np.asarray(kwg)
        if nodes.dtype != np.uint32 or nodes.ndim != 1:
            raise LexiconFormatError(f"leaves {where}: the KWG must be a 1-D uint32 array")
        vals = np.asarray(values)
        if vals.dtype != np.float32 or vals.ndim != 1:
            raise LexiconFormatError(f"leaves {where}: the values must be a 1-D float32 array")
        nodes = frozen(nodes)  # (copies over bytes unless they are: what was checked must never change)
        vals = frozen(vals)
        facts = check_kwg(nodes, len(alphabet), f"of leaves {where}", leaves=True)
        if facts.words != vals.size:
            raise LexiconFormatError(
                f"leaves {where}: the KWG holds {facts.words} leaves but the file has {vals.size} values "
                "(corrupt or truncated file)"
            )
        bad = np.flatnonzero(~np.isfinite(vals))
        if bad.size:
            raise LexiconFormatError(f"leaves {where}: value {int(bad[0])} is {vals[bad[0]]}, not a number")
        _check_sorted(nodes, facts.longest, alphabet, where)
        self.kwg = nodes
        self.values = vals
        self.counts = frozen(facts.counts.astype(np.uint32))  # each at most the number of leaves
        self.longest = facts.longest
        self.alphabet = alphabet
        self.path = Path(path) if path is not None else None
        self.version = version

    # --- ways in ---------------------------------------------------------------------------
    @classmethod
    def empty(cls, ruleset: "str | Path | Ruleset | None" = None) -> "Leaves":
        """No leaves: every leave is worth 0."""
        return cls(nodes_of(EMPTY_KWG, "<no leaves>"), np.zeros(0, np.float32), get_ruleset(ruleset).alphabet,
                   source="<no leaves>")

    @classmethod
    def load(cls, path: str | Path, ruleset: "str | Path | Ruleset | None" = None) -> "Leaves":
        """A ``.klv2`` (or v1 ``.klv``) file, read into memory."""
        p = _args.path(path, "path", LexiconFormatError)
        rs = get_ruleset(ruleset)
        buf = read_file(p, "leave")
        _check_trained_for(p, buf, rs)
        try:
            return cls._parse(buf, rs.alphabet, repr(str(p)), p)
        except LexiconFormatError:
            if _is_quackle_superleaves(p, buf):
                raise LexiconFormatError(
                    f"leave file {str(p)!r} looks like Quackle's binary superleaves file, which racksmith does not "
                    "read: Quackle's superleave_extractor prints its values as 'leave,value' lines; save them in a "
                    ".csv file and give that file (a leave CSV)"
                ) from None
            raise

    @classmethod
    def from_bytes(cls, data: bytes, ruleset: "str | Path | Ruleset | None" = None) -> "Leaves":
        """The bytes of a ``.klv2`` (or v1 ``.klv``) file."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise LexiconFormatError(f"data must be the bytes of a leave file, got {_args.show(data)}")
        return cls._parse(np.frombuffer(data, np.uint8), get_ruleset(ruleset).alphabet, "<bytes>", None)

    @classmethod
    def _parse(cls, buf: np.ndarray, alphabet: Alphabet, where: str, path: Path | None) -> "Leaves":
        size = buf.size
        if size < 8:
            raise LexiconFormatError(f"leave file {where}: {size} bytes is too short for a KLV file")
        n_nodes = int(buf[:4].view("<u4")[0])
        top = 4 + 4 * n_nodes
        if top + 4 > size:
            raise LexiconFormatError(
                f"leave file {where}: announces {n_nodes} nodes but has only {size} bytes ({_what_else(buf)})"
            )
        n_values = int(buf[top : top + 4].view("<u4")[0])
        rest = size - top - 4
        if rest == 4 * n_values:
            values = buf[top + 4 :].view("<f4")
            version = 2
        elif rest == 2 * n_values:
            values = buf[top + 4 :].view("<i2").astype(np.float32) / np.float32(256)
            version = 1
        else:
            raise LexiconFormatError(
                f"leave file {where}: announces {n_values} values but {rest} bytes follow the graph "
                f"(KLV2 needs {4 * n_values}, KLV v1 {2 * n_values}); truncated or corrupt file"
            )
        if values.dtype != np.dtype(np.float32):  # big-endian machine
            values = values.astype(np.float32)
        nodes = nodes_of(buf[4:top], f"of leave file {where}")
        return cls(nodes, values, alphabet, path=path, version=version, source=where)

    @classmethod
    def from_csv(cls, path: str | Path, ruleset: "str | Path | Ruleset | None" = None, *,
                 complete: bool = False) -> "Leaves":
        """Build from a ``leave,value`` CSV (gzip accepted); tiles in any order, ``?`` = blank.
        ``complete``: every leave the CSV lacks too, at 0, as MAGPIE writes a table
        (:meth:`from_pairs`); without it, only the CSV's leaves (a table MAGPIE misreads when
        they are not all there)."""
        p = _args.path(path, "path", LexiconFormatError)
        return cls.from_csv_text(read_csv_text(p), ruleset, source=repr(str(p)), complete=complete)

    @classmethod
    def from_csv_text(cls, text: str, ruleset: "str | Path | Ruleset | None" = None, *,
                      source: str = "<csv>", complete: bool = False) -> "Leaves":
        """Build from the text of a leave CSV, which must hold at least one leave (``complete``:
        as :meth:`from_pairs` takes it)."""
        _args.text(source, "source", LexiconFormatError)
        if not isinstance(text, str):
            hint = ": decode the bytes, or read a file with Leaves.from_csv" if isinstance(text, (bytes, bytearray)) else ""
            raise LexiconFormatError(f"leave CSV {source}: the text must be a str, got {type(text).__name__}{hint}")
        text = _composed(text)
        try:
            table = cls._from_csv_fast(text, ruleset, source, complete)
        except LexiconFormatError as e:
            # (without its frames, which hold the arrays of millions of leaves for as long as the
            # error is kept: the CLI keeps it while it tries the CSV with the other rulesets)
            raise e.with_traceback(None)
        if table is not None:
            return table
        leaves, values, lines = _csv_columns(text, source)
        if not leaves:
            header = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
            why = f" (its one line {header!r} reads as a header: the value is not a number)" if header else ""
            raise LexiconFormatError(f"leave CSV {source} holds no leaves{why}; write one 'leave,value' a line")
        rs = get_ruleset(ruleset)
        _check_leave_sizes(leaves, lines, rs, source)
        try:
            return cls.from_pairs(zip(leaves, values), rs, source=source, complete=complete)
        except LexiconFormatError as e:  # a letter: where it is in the file
            leave = getattr(e, "leave", None)
            if leave is None:
                raise
            raise LexiconFormatError(f"leave CSV {source}, line {lines[leaves.index(leave)]}: {e.why}") from None
        finally:
            # millions of short-lived strings and floats (914,624 leaves): a full collection clears
            # the interpreter's free lists, whose survivors otherwise pinned about 1 MiB of arenas
            # per call until the next one (rarely: 40 calls held 42 MB more, docs/RESULTS.md)
            del leaves, values, lines
            gc.collect()

    @classmethod
    def _from_csv_fast(cls, text: str, ruleset: "str | Path | Ruleset | None", source: str,
                       complete: bool) -> "Leaves | None":
        """:meth:`from_csv_text`'s table, or error, built with no Python object a leave (the general
        way took 3 times the CPU time and 3.5 times the memory, 1.5 GB, to build a complete Russian
        table of 2.9 million leaves: benchmarks/bench_leaves_csv.py); None when the
        general way must build it: a CSV :func:`_csv_rows` leaves to it, a leave of more characters
        than a leave keeps tiles, a value a leave file cannot hold, a value given the empty leave,
        whitespace within a leave, a ruleset with tiles of several characters."""
        rows = _csv_rows(text)
        if rows is None:
            return None
        rs = get_ruleset(ruleset)  # (where the general way asks for it: after reading the CSV)
        alphabet = rs.alphabet
        most = rs.rack_size - 1
        if any(len(x) > 1 for x in alphabet._index):
            return None
        data, lo, hi, numbers, lines = rows
        del rows  # (each array let go as soon as it is used: the CSV's bytes are many)
        with np.errstate(over="ignore"):
            values = numbers.astype(np.float32)  # (as from_pairs stores them: ±FLT_MAX kept, beyond it inf)
        if not np.isfinite(values).all():
            return None
        sizes = hi - lo
        del hi
        given = sizes > 0
        if not given.all():  # the empty leave, which from_pairs skips when it is worth 0
            if np.any(numbers[~given] != 0) or not given.any():
                return None
            lo, lines, values, sizes = lo[given], lines[given], values[given], sizes[given]
        del numbers, given
        if int(sizes.max()) > 4 * most:  # (a character is at most 4 bytes of UTF-8)
            return None
        width = int(sizes.max())
        mat = _windows(np.frombuffer(data, np.uint8), lo, width)
        del lo, data
        inside = np.arange(width) < sizes[:, None]
        np.multiply(mat, inside, out=mat)  # (zeros after each leave)
        follow = np.bitwise_and(mat, 0xC0)
        np.equal(follow, 0x80, out=follow.view(bool))  # (in place) the bytes that continue a character
        lengths = sizes - np.count_nonzero(follow.view(bool), axis=1)  # its characters
        del follow
        if int(lengths.max()) > most:
            return None
        names = _Names(mat[inside].tobytes(), sizes)  # the leaves' bytes one after another
        del mat, inside, sizes
        table = _code_table(alphabet)
        table[[ord("?"), ord("*")]] = _BLANK_CODE
        points = np.frombuffer(names.data.decode("utf-8").encode("utf-32-le"), dtype="<u4")
        codes = table[points]
        bad = (codes > 63) & (codes != _BLANK_CODE)
        if bad.any():  # (no array of where: a CSV read with another ruleset's letters is all of them)
            seen = np.flatnonzero(np.bincount(points))
            if any(chr(c).isspace() for c in seen[(table[seen] > 63) & (table[seen] != _BLANK_CODE)].tolist()):
                return None  # (the general way strips it off a leave's ends, and reads a leave of it alone as none)
            i = int(np.searchsorted(np.cumsum(lengths), int(bad.argmax()), side="right"))
            e = _bad_letter(names[i], alphabet, source)
            raise LexiconFormatError(f"leave CSV {source}, line {int(lines[i])}: {e.why}")
        del points, lines, bad
        mat = _sorted_rows(codes, lengths, int(lengths.max()))
        del codes, lengths
        every = _every_leave(rs, mat, source) if complete else None
        return cls._from_matrix(mat, values, alphabet, source, names, every)

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, float]], ruleset: "str | Path | Ruleset | None" = None, *,
                   source: str = "<pairs>", complete: bool = False) -> "Leaves":
        """Build from (leave, value) pairs; the empty leave may only be worth 0.

        ``complete``: the table holds every other leave of the ruleset's tiles too, of 1 up to as
        many tiles as the longest leave given (at most rack size − 1), at 0 (what racksmith reads
        an absent leave as, so no value changes), as MAGPIE's ``convert csv2klv`` writes a table.
        MAGPIE's lookup does not check that the tiles it walks end a leave, so in a table that lacks
        a leave which begins a longer one it reads the leave as that one (``E`` as ``ES``); with
        every leave of those sizes there, it reads each as racksmith does. A leave given with more
        copies of a tile than the tile set has is kept, and so is one of more tiles than this
        ruleset's leaves keep (rack size − 1: a table made for larger racks); such a leave is never
        looked up, and a leave CSV refuses it (:meth:`from_csv_text` reads back only the leaves a
        rack of this ruleset keeps). A complete table of more than 20,000,000 leaves
        (``racksmith.training.leavegen.MAX_LEAVES``) is refused: build it without ``complete``."""
        _args.text(source, "source", LexiconFormatError)
        if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
            raise LexiconFormatError(f"leaves {source}: expected (leave, value) pairs, got {_args.show(pairs)}")
        rs = get_ruleset(ruleset)
        alphabet = rs.alphabet
        top = float(np.finfo(np.float32).max)  # the values are stored as float32
        names, vals = [], []
        for pair in pairs:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not isinstance(pair[0], str):
                raise LexiconFormatError(f"leaves {source}: expected (leave, value) pairs with the leave as text, got {pair!r}")
            leave, value = pair
            try:
                number = float(value)
            except (TypeError, ValueError, OverflowError):
                number = math.nan
            if math.isfinite(number) and abs(number) > top:  # (one that rounds to ±FLT_MAX is stored as it)
                with np.errstate(over="ignore"):
                    number = float(np.float32(number))
            if not abs(number) <= top:
                raise LexiconFormatError(f"leaves {source}: the value of leave {leave!r} is {reprlib.repr(value)}, not a "
                                         f"number a leave file can hold (a finite number within ±{top:.8g})")
            if leave == "":
                if number != 0:
                    raise LexiconFormatError(f"leaves {source}: the empty leave cannot be stored (it is always worth 0)")
                continue
            names.append(nfc(leave))  # (an accent written apart, Ё as Е + U+0308, read with its letter)
            vals.append(number)
        values = np.asarray(vals, dtype=np.float64).astype(np.float32)
        mat = _leave_matrix(names, alphabet, source)
        every = _every_leave(rs, mat, source) if complete else None
        return cls._from_matrix(mat, values, alphabet, source, names, every)

    @classmethod
    def from_tile_rows(cls, rows: np.ndarray, values: np.ndarray, ruleset: "str | Path | Ruleset | None" = None, *,
                       source: str = "<rows>") -> "Leaves":
        """Build from a matrix of leaves, one a row of ``tile + 1`` (0 = no tile), each row's tiles
        ascending with the zeros last, and their values."""
        _args.text(source, "source", LexiconFormatError)
        alphabet = get_ruleset(ruleset).alphabet
        mat = np.asarray(rows) if isinstance(rows, (np.ndarray, list, tuple)) else None
        if mat is None or mat.dtype.kind not in "iu" or mat.ndim != 2:
            raise LexiconFormatError(f"leaves {source}: rows must be a 2-D array of whole numbers (tile + 1, 0 = no "
                                     f"tile), got {_args.show(rows)}")
        if mat.size and (int(mat.min()) < 0 or int(mat.max()) > len(alphabet) + 1):
            raise LexiconFormatError(f"leaves {source}: a row is empty or has a tile outside the alphabet")
        mat = np.ascontiguousarray(mat, dtype=np.uint8)
        vals = np.asarray(values) if isinstance(values, (np.ndarray, list, tuple)) else None
        if vals is None or vals.dtype.kind not in "iuf" or vals.ndim != 1:
            raise LexiconFormatError(f"leaves {source}: values must be a 1-D array of numbers, got {_args.show(values)}")
        vals = vals.astype(np.float64).astype(np.float32)
        if not np.isfinite(vals).all():
            raise LexiconFormatError(f"leaves {source}: a value is not a finite number")
        if mat.ndim != 2 or len(mat) != vals.size:
            raise LexiconFormatError(f"leaves {source}: {mat.shape} rows for {vals.size} values")
        if mat.size and (int(mat.max()) > len(alphabet) + 1 or not np.count_nonzero(mat, axis=1).all()):
            raise LexiconFormatError(f"leaves {source}: a row is empty or has a tile outside the alphabet")
        return cls._from_matrix(mat, vals, alphabet, source, None)

    @classmethod
    def _from_matrix(cls, mat: np.ndarray, values: np.ndarray, alphabet: Alphabet, source: str,
                     names: "Sequence[str] | None", every: "np.ndarray | None" = None) -> "Leaves":
        """The table of the leaves ``mat`` (rows of ``tile + 1``) and their values; with ``every``
        (rows as :func:`_every_leave` gives them), those of its leaves ``mat`` lacks too, at 0.
        ``names[i]`` is row ``i`` as given (a leave given twice is named)."""
        keys = _row_keys(mat)
        order = np.argsort(keys, kind="stable") if mat.size else np.zeros(0, np.int64)
        mat = mat[order]
        values = values[order]
        keys = keys[order]
        if len(mat) > 1:
            same = np.flatnonzero(keys[1:] == keys[:-1])
            if same.size:
                if names is None:
                    raise LexiconFormatError(f"leaves {source}: a leave appears twice (row {int(order[same[0]])})")
                raise LexiconFormatError(
                    f"leaves {source}: leave {names[order[same[0]]]!r} appears twice (as {names[order[same[0] + 1]]!r})"
                )
        del keys, order
        if every is not None and len(every):
            mat, values = _with_absent_at_zero(mat, values, every)
        lengths = np.count_nonzero(mat, axis=1)
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        text = (mat[mat != 0] - 1).astype(np.uint8)
        nodes = build_packed(text, offsets, gaddag=False, share_tails=False)
        return cls(nodes, values, alphabet, source=source)

    # --- ways out --------------------------------------------------------------------------
    def tobytes(self) -> bytes:
        """The KLV2 file's bytes (values as float32, whatever version was read)."""
        head = np.array([self.kwg.size], dtype="<u4").tobytes()
        mid = np.array([self.values.size], dtype="<u4").tobytes()
        return head + self.kwg.astype("<u4", copy=False).tobytes() + mid + self.values.astype("<f4", copy=False).tobytes()

    def save(self, path: str | Path) -> None:
        """Write the KLV2 file, and beside it ``FILE.json`` with the letters its tiles spell
        (:mod:`racksmith.lexicon.sidecar`: read with another ruleset's letters, it is refused)."""
        from .sidecar import write_sidecar, written_together

        p = _args.path(path, "path", LexiconFormatError)
        data = self.tobytes()
        with written_together(p):  # (both or neither: the old pair kept when the sidecar cannot be written)
            write_atomically(p, data)
            write_sidecar(p, data, self.alphabet.letters)

    def __reduce__(self):
        # (pickled as the file's bytes: read again, the arrays are checked and read-only, where
        # copying the slots would give arrays that own their memory, which can be made writable)
        return (_restore, (self.tobytes(), self.alphabet, self.path, self.version))

    def __copy__(self) -> "Leaves":
        return self  # immutable, and shared as it is (load_leaves hands everyone the same): never copied

    def __deepcopy__(self, memo: dict) -> "Leaves":
        return self

    # --- queries ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.values.size)

    def __repr__(self) -> str:
        """``<Leaves english (shipped): ...>`` for a shipped set, the file's name for leaves read
        from one, else ``(in memory)``."""
        from .shipped_leaves import _cache as shipped

        name = next((f"{key[0]} (shipped)" for key, leaves in list(shipped.items()) if leaves is self), None)
        if name is None:
            name = self.path.name if self.path else "(in memory)"
        return f"<Leaves {name}: {len(self):,} leave{'s' if len(self) != 1 else ''}, {self.kwg.size:,} nodes>"

    def value(self, leave: str) -> float:
        """Value of a leave written as letters (any order, ``?`` or ``*`` = blank); 0 if absent."""
        _args.text(leave, "leave", UnknownLetterError, what="letters (a str, '?' or '*' for a blank)")
        return self.value_tiles(self.alphabet.rack(leave))

    def value_tiles(self, tiles: Sequence[int]) -> float:
        """Value of a leave given as rack tiles (0 = blank, letters 1..63, any order); a tile
        outside the alphabet is an :class:`~racksmith.errors.UnknownLetterError`."""
        key = sorted(_args.tile_list(tiles, "tiles", UnknownLetterError))
        if not key:
            return 0.0
        if key[0] < 0 or key[-1] > len(self.alphabet):
            bad = key[0] if key[0] < 0 else key[-1]
            raise UnknownLetterError(f"tiles: {bad} is not a tile of {self.alphabet.name or 'the alphabet'} (0 for a "
                                     f"blank, 1..{len(self.alphabet)} for its letters)")
        i = int(_kwgwalk.word_index(self.kwg, self.counts, bytes(key)))
        return float(self.values[i]) if i >= 0 else 0.0

    def items(self) -> list[tuple[str, float]]:
        """Every (leave, value), in the file's order; each leave written as a rack is (blanks
        ``?`` first, a tile of several characters in brackets: ``?A[LL]``, while ``?ALL`` has two
        Ls), so the pairs written to a CSV build these leaves again (all of them when each is a
        leave a rack of the ruleset keeps: :meth:`from_pairs` keeps longer ones, a CSV refuses them)."""
        listing = _kwgwalk.words(self.kwg, int(self.kwg[0]) & ARC_MASK, b"", self.longest)
        return list(zip(_leave_names(listing, self.alphabet), self.values.tolist()))


def read_csv_text(path: Path) -> str:
    """The text of a leave CSV (gzip'ed or not), as :meth:`Leaves.from_csv` reads it."""
    data = read_bounded(path, MAX_CSV_BYTES, "leave CSV", LexiconFormatError, gunzip=True)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise LexiconFormatError(f"leave CSV {str(path)!r} is not UTF-8 text (bad byte at offset {e.start})") from None


def _every_leave(rs: Ruleset, mat: np.ndarray, source: str) -> np.ndarray:
    """Every leave of ``rs``'s tile set of 1 up to as many tiles as the longest row of ``mat``
    (at most rack size − 1), as rows of ``tile + 1`` (zeros last), by size: the leaves a complete
    table of those leaves holds (:meth:`Leaves.from_pairs`). A table too large to build is a
    :class:`~racksmith.errors.LexiconFormatError` whose ``incomplete`` says why."""
    from ..training.leavegen import MAX_LEAVES, leave_count, possible_leaves
    from ..training.tally import WIDTH

    most = min(int(np.count_nonzero(mat, axis=1).max()) if len(mat) else 0, rs.rack_size - 1)
    if most < 1:
        return np.zeros((0, 1), np.uint8)
    n = leave_count(rs.counts, most + 1)
    why = None
    if most > WIDTH:
        why = f"racksmith completes tables of leaves of at most {WIDTH} tiles, and these hold leaves of {most}"
    elif n > MAX_LEAVES:
        why = (f"a complete table of ruleset {rs.name} (every leave of 1 to {most} of its tiles) would hold {n:,} "
               f"leaves, more than racksmith builds ({MAX_LEAVES:,})")
    if why is not None:
        e = LexiconFormatError(f"leaves {source}: {why}; build the table of the leaves given alone (complete=False)")
        e.incomplete = why  # type: ignore[attr-defined]
        raise e
    return np.concatenate([rows[:, :most] for rows in possible_leaves(rs.counts, most + 1).values()])


def _with_absent_at_zero(mat: np.ndarray, values: np.ndarray, every: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``mat`` (rows of ``tile + 1``, sorted as their bytes) and ``values`` with the rows of
    ``every`` that ``mat`` lacks added at 0, sorted again. Each table's rows are distinct."""
    width = max(mat.shape[1], every.shape[1])
    mat, every = (np.pad(m, ((0, 0), (0, width - m.shape[1]))) if m.shape[1] < width else m for m in (mat, every))
    have = _row_keys(mat)
    keys = np.concatenate([_row_keys(every), have])
    keys.sort()  # (searching have for every's rows, out of order, took 4 times as long; np.unique, far longer)
    keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
    vals = np.zeros(len(keys), np.float32)
    vals[np.searchsorted(keys, have)] = values
    if keys.dtype.kind == "S":
        return keys.view(np.uint8).reshape(-1, width), vals
    return np.ascontiguousarray(keys.astype(">u8").view(np.uint8).reshape(-1, 8)[:, :width]), vals


def _row_keys(mat: np.ndarray) -> np.ndarray:
    """Keys that order and tell apart the rows of ``mat`` (uint8) as their bytes do: a row of at
    most 8 bytes as one big-endian integer (sorted and compared many times faster than bytes
    strings), a longer one as its bytes."""
    n, width = mat.shape
    if width > 8:
        return np.ascontiguousarray(mat).view(f"S{width}").ravel()
    wide = np.zeros((n, 8), np.uint8)
    wide[:, :width] = mat
    return wide.view(">u8").ravel().astype(np.uint64)


def _restore(data: bytes, alphabet: Alphabet, path: Path | None, version: int) -> Leaves:
    leaves = Leaves._parse(np.frombuffer(data, np.uint8), alphabet, repr(str(path)) if path else "<bytes>", path)
    object.__setattr__(leaves, "version", version)  # (a table's facts are set once: Leaves.__setattr__)
    return leaves


def _leave_names(listing: bytes, alphabet: Alphabet) -> list[str]:
    """The leaves of a listing (tiles, each leave ended by 0xFF) as the alphabet writes them."""
    if not listing:
        return []
    if any(len(x) > 1 for x in alphabet.letters):
        return [alphabet.decode(leave) for leave in listing.split(b"\xff")[:-1]]
    table = {0xFF: "\n", 0: "?"}
    table.update({t: s for t, s in enumerate(alphabet.letters, 1)})
    return listing.decode("latin-1").translate(table).split("\n")[:-1]


def _check_sorted(nodes: np.ndarray, longest: int, alphabet: Alphabet, where: str) -> None:
    """Refuse a leave graph with a leave whose tiles are not in order (blank first): lookups sort
    the tiles of the leave they look for, so such a leave could never be found, and its value
    would silently count as 0. A leave's next tile is the first of its node's child list (the
    lists are ascending, as :func:`~racksmith.lexicon.kwg.check_kwg` made sure)."""
    tiles = nodes >> 24
    arcs = nodes & ARC_MASK
    parents = np.flatnonzero(arcs)
    parents = parents[parents > 0]  # node 0 points to the root list
    bad = parents[tiles[arcs[parents]] < tiles[parents]]
    if not bad.size:
        return
    listing = _kwgwalk.words(nodes, int(nodes[0]) & ARC_MASK, b"", longest)
    leaves = listing.split(b"\xff")[:-1]
    names = _leave_names(listing, alphabet)
    example = next((name for leave, name in zip(leaves, names) if list(leave) != sorted(leave)), None)
    what = f"leave {example!r} has" if example else f"node {int(bad[0])} leads to"
    raise LexiconFormatError(
        f"leaves {where}: {what} tiles out of order (a leave file stores each leave's tiles sorted, blank "
        "first): it could never be looked up; corrupt file"
    )


def _is_quackle_superleaves(path: Path, buf: np.ndarray) -> bool:
    """Is a file that is no KLV Quackle's leave values: named ``superleaves`` as Quackle names them
    (``data/strategy/LEXICON/superleaves``), and binary (text of that name is a CSV misnamed)?"""
    from .files import looks_binary

    return path.name.lower() == "superleaves" and looks_binary(bytes(buf[:4096]))


def _what_else(buf: np.ndarray) -> str:
    """A guess at what a file that is not a KLV file is, for the error message."""
    from .load import is_kwg_bytes

    head = bytes(buf[:64])
    if is_kwg_bytes(head):
        return "it is a KWG lexicon, not a leave file"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return "truncated or corrupt file"
    return "it looks like text: a leave CSV must be named .csv or .csv.gz"


def leave_index(leaves: Leaves, tiles: Sequence[int]) -> int:
    """Index of a leave in ``leaves.values`` (-1 when absent)."""
    key = sorted(int(t) for t in tiles)
    if not key or key[0] < 0 or key[-1] > len(leaves.alphabet):
        return -1
    return int(_kwgwalk.word_index(leaves.kwg, leaves.counts, bytes(key)))


def _check_trained_for(path: Path, buf: np.ndarray, ruleset: Ruleset) -> None:
    """A leave file's tiles are numbers: read with another ruleset's letters they are other leaves
    (an Эрудит file under Russian moves every value from Ж on by one letter). A file ``leaves
    train`` wrote has its provenance beside it (``FILE.json``, :mod:`racksmith.lexicon.sidecar`);
    when that describes these very bytes and other letters than ``ruleset``'s, the file is refused.
    Trained for another ruleset of the same letters (racks of 5, read under racks of 7: its leaves
    of 5 and 6 tiles are worth 0), it is read, with a note that says so."""
    from .sidecar import check_letters, note_trained_for_another

    check_letters(path, buf, ruleset, "leave file", "trained", side_word="provenance",
                  otherwise=f", or use leaves made for {ruleset.name}")
    note_trained_for_another(path, buf, ruleset, "leave file")


def the_rulesets_own(spec: Any, ruleset: Any) -> "Leaves | None":
    """For ``spec`` ``"shipped"`` (a str: whatever the current folder holds; a file of that name is
    ``./shipped`` or a :class:`~pathlib.Path`): the leaves the ruleset ships (every leave 0 for one
    that ships none), as ``simulate``, ``best_play`` and ``analyze`` read their default; None for
    any other ``spec``."""
    if not (isinstance(spec, str) and spec.strip().lower() == "shipped"):
        return None
    from .shipped_leaves import default_leaves

    rs = get_ruleset(ruleset)
    return default_leaves(rs) or Leaves.empty(rs)


def load_leaves(spec: "str | Path | Leaves | Ruleset | None", ruleset: "str | Path | Ruleset | None" = None) -> Leaves:
    """Leave values: a shipped set by name (``english``, ``super``, ``russian``, ``erudit``: see
    :mod:`racksmith.lexicon.shipped_leaves`), a ``.klv2``/``.klv`` file or a ``leave,value`` CSV
    (``.csv``, ``.csv.gz``); ``None`` for none (every leave worth 0); a :class:`Leaves` passes through.
    A shipped set's name (and ``shipped``) is the shipped set whatever the current folder holds, as
    an embedded lexicon's name is (a folder ``english/`` there had made ``english`` unreadable):
    give a file of that name as ``./english`` or a :class:`~pathlib.Path`. A :class:`Ruleset` is
    its own leaves, as ``"shipped"`` is (every leave 0 for one that ships none)."""
    if isinstance(spec, Leaves):
        return spec
    if isinstance(spec, Ruleset):
        if ruleset is not None and get_ruleset(ruleset).name != spec.name:
            raise LexiconFormatError(f"load_leaves got the ruleset {spec.name} and ruleset={get_ruleset(ruleset).name}: "
                                     "give one of them")
        return the_rulesets_own("shipped", spec)
    if spec is None:
        return Leaves.empty(ruleset)
    if not isinstance(spec, (str, os.PathLike)):
        raise LexiconFormatError(f"leaves are a Leaves table, the path of a leave file or None, got {type(spec).__name__}")
    from .shipped_leaves import load_shipped_leaves

    own = the_rulesets_own(spec, ruleset)
    if own is not None:
        return own
    shipped = shipped_set(spec)
    if shipped is not None:
        return load_shipped_leaves(shipped, ruleset)
    p = Path(spec)
    name = p.name.lower()
    if isinstance(spec, str) and "/" not in spec and "." not in name and not _exists(p):
        # a bare word that names no file: a mistyped shipped set rather than a file
        from .shipped_leaves import SHIPPED_LEAVES

        raise LexiconFormatError(f"no leaves {spec!r}: give a shipped set ({', '.join(SHIPPED_LEAVES)}), the path "
                                 "of a .klv2, .klv or .csv file, or none")
    rs = get_ruleset(ruleset)
    try:
        st = os.stat(p)
        key: tuple | None = (os.path.abspath(p), st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size, rs.alphabet.letters,
                             rs.rack_size, rs.name)
    except (OSError, ValueError):
        key = None
    found = recall(_from_files, key)
    if found is not None:
        return found
    leaves = Leaves.from_csv(p, rs) if name.endswith((".csv", ".csv.gz")) else Leaves.load(p, rs)
    if key is not None:
        # the same file, unchanged: the same (immutable) object. A bot loading its leave file every
        # game made a new Leaves each time, and the move generator's caches, keyed by the object,
        # kept the last 16 alive with their tables (3.7-4.2 MB each)
        leaves = keep(_from_files, key, leaves)  # (another thread's, when it read the file at the same time)
    return leaves


#: leave files read by load_leaves, by the file's path and stamp and the ruleset (the last few)
_from_files: dict[tuple, Leaves] = files_cache()


def shipped_set(spec: object) -> "str | None":
    """The shipped leave set ``spec`` names, or None: a set's name, or the name or an alias of the
    ruleset it is trained for (``эрудит`` is ``erudit``, ``скрэббл`` is ``russian``: case and
    surrounding spaces ignored, as ``--ruleset`` reads them). A str only, whatever files the current
    folder holds; a :class:`~pathlib.Path` (or ``./english``) is a file."""
    from .shipped_leaves import set_name

    if not isinstance(spec, str) or not spec.strip():
        return None
    return set_name(spec)


def _exists(path: Path) -> bool:
    """Is there a file (or folder) at ``path``? A path the system refuses (a name too long for it,
    a NUL in it) holds none; reading it then says why."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def _composed(text: str) -> str:
    """``text`` NFC-composed, as racks, word lists, CGP and GCG are read: a leave CSV written
    decomposed (NFD: ``Ё`` as ``Е`` and U+0308) reads as the letters it spells."""
    if text.isascii():
        return text
    try:
        if unicodedata.is_normalized("NFC", text):
            return text
    except UnicodeError:  # (a lone surrogate: refused further on as a letter outside the alphabet)
        return text
    return unicodedata.normalize("NFC", text)


def _csv_columns(text: str, source: str) -> tuple[list[str], list[float], list[int]]:
    """The two columns of a leave CSV (a header line is allowed), values as floats, and the line
    (1-based) of each leave."""
    rows = [(i, ln) for i, ln in enumerate(text.replace("\r", "").split("\n"), 1) if ln.strip()]
    if not rows:
        return [], [], []
    for i, ln in rows:
        if ln.count(",") != 1:
            raise LexiconFormatError(f"leave CSV {source}, line {i}: expected 'leave,value', got {ln!r}")
    parts = re.split(r"[,\n]", "\n".join(ln for _, ln in rows))
    leaves, texts = parts[0::2], parts[1::2]
    try:
        float(texts[0])
    except ValueError:  # a header line
        leaves, texts, rows = leaves[1:], texts[1:], rows[1:]
    try:
        values = np.array(texts, dtype=np.float64)
    except ValueError:
        values = np.array([_number(t, i, source) for (i, _), t in zip(rows, texts)], dtype=np.float64)
    return [s.strip() for s in leaves], values.tolist(), [i for i, _ in rows]


class _CsvRows(NamedTuple):
    """The leaves of a leave CSV as :func:`_csv_rows` reads them: leave ``i`` is ``data[lo[i]:hi[i]]``
    (the CSV's UTF-8, ASCII whitespace stripped), its value ``values[i]`` (float64), on line ``lines[i]``."""

    data: bytes
    lo: np.ndarray
    hi: np.ndarray
    values: np.ndarray
    lines: np.ndarray


class _Names:
    """The leaves given, as text, each decoded when asked for (an error names it): ``data`` holds
    their UTF-8 one after another, ``sizes[i]`` bytes the ``i``-th."""

    __slots__ = ("data", "ends")

    def __init__(self, data: bytes, sizes: np.ndarray):
        self.data, self.ends = data, np.cumsum(sizes)

    def __getitem__(self, i: int) -> str:
        start = int(self.ends[i - 1]) if i else 0
        return self.data[start : int(self.ends[i])].decode("utf-8")


_SPACE = np.array([chr(c).isspace() for c in range(256)]) & (np.arange(256) < 128)  #: ASCII whitespace (str.strip's)
_NUMBER = np.zeros(256, bool)  #: the bytes of a value read here (and 0, after one): any other, the general way
_NUMBER[list(b"\x000123456789+-.eE \t")] = True
_NUMBER_WIDTH = 32  #: the longest value read here


def _csv_rows(text: str) -> "_CsvRows | None":
    """The leaves of a leave CSV as :func:`_csv_columns` reads them, with no Python object a line;
    None unless it reads the CSV and reads it as this does: every line blank or a leave, a comma
    and a value of digits, signs, points, exponents and spaces (read as float() reads it, as
    numpy does); any other CSV, the general way reads, or refuses with the line at fault."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # (a lone surrogate)
        return None
    if b"\0" in data:
        return None
    if b"\r" in data:
        data = data.replace(b"\r", b"")
    buf = np.frombuffer(data, np.uint8)
    ends = np.append(_where(buf, ord("\n")), buf.size)  # where each line ends
    commas = _where(buf, ord(","))
    lines = np.searchsorted(ends, commas)  # the line of each comma (0-based)
    if not commas.size or (lines[1:] == lines[:-1]).any():
        return None  # no leave, or a line of two commas
    starts = np.concatenate(([0], ends[:-1] + 1))
    blank = np.ones(ends.size, bool)
    blank[lines] = False
    others = np.flatnonzero(blank & (ends > starts))
    if others.size > 1000 or any(data[starts[i] : ends[i]].decode("utf-8").strip() for i in others.tolist()):
        return None  # a line that is neither blank nor a leave
    lo, hi = starts[lines], commas
    del starts, blank
    try:
        float(data[commas[0] + 1 : ends[lines[0]]].decode("utf-8"))
    except ValueError:  # a header line
        lo, hi, lines = lo[1:], hi[1:], lines[1:]
        if not lines.size:
            return None
    sizes = ends[lines] - hi - 1
    del ends
    if int(sizes.min()) < 1 or int(sizes.max()) > _NUMBER_WIDTH:
        return None
    width = int(sizes.max())
    digits = _windows(buf, hi + 1, width)
    digits[np.arange(width) >= sizes[:, None]] = 0
    del sizes
    if not _NUMBER[digits].all():
        return None
    try:
        values = digits.view(f"S{width}").ravel().astype(np.float64)  # (float() of each: np.array(texts) reads so)
    except ValueError:
        return None
    del digits
    lo, hi = _strip(buf, lo, hi)
    return _CsvRows(data, lo, hi, values, lines + 1)


def _where(buf: np.ndarray, byte: int) -> np.ndarray:
    """Where ``byte`` is in ``buf``, ascending (a slice at a time: no mask of the whole text)."""
    step = 1 << 24
    return np.concatenate([np.flatnonzero(buf[i : i + step] == byte) + i for i in range(0, buf.size, step)] or
                          [np.zeros(0, np.int64)])


def _strip(buf: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The fields ``buf[lo[i]:hi[i]]`` without ASCII whitespace at either end."""
    lo, hi = lo.copy(), hi.copy()
    at = np.flatnonzero((lo < hi) & _SPACE[buf[lo]])  # (lo <= hi, and hi is within buf: a comma)
    while at.size:
        lo[at] += 1
        at = at[(lo[at] < hi[at]) & _SPACE[buf[lo[at]]]]
    at = np.flatnonzero((lo < hi) & _SPACE[buf[hi - 1]])
    while at.size:
        hi[at] -= 1
        at = at[(lo[at] < hi[at]) & _SPACE[buf[hi[at] - 1]]]
    return lo, hi


def _check_leave_sizes(leaves: list[str], lines: list[int], rs: Ruleset, source: str) -> None:
    """Refuse a leave of more tiles than a player can keep: a leave is what stays on the rack
    after a play of at least one tile (or an exchange), 1 to rack size - 1 tiles (1..6 for a rack
    of 7, as in MAGPIE's leave files). Cheap: a tile is written with one character at least, so
    only leaves of more characters than that are counted tile by tile."""
    most = rs.rack_size - 1
    if max(map(len, leaves)) <= most:
        return
    for leave, line in zip(leaves, lines):
        if len(leave) <= most:
            continue
        try:
            n = len(rs.alphabet.rack(leave))
        except UnknownLetterError:
            continue  # reported by from_pairs, with the letter
        if n > most:
            raise LexiconFormatError(
                f"leave CSV {source}, line {line}: leave {leave!r} has {n} tiles; a leave keeps at most {most} "
                f"(a rack of {rs.rack_size} less a tile played)"
            )


def _number(text: str, line: int, source: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise LexiconFormatError(f"leave CSV {source}, line {line}: value {text!r} is not a number") from None


def _letter_error(leave: str, why: str, source: str) -> LexiconFormatError:
    """A leave with a letter the alphabet lacks (``why``); ``leave`` and ``why`` are kept on the
    error, for a CSV to add the line the leave is on."""
    e = LexiconFormatError(f"leaves {source}: {why}")
    e.leave, e.why = leave, why  # type: ignore[attr-defined]
    return e


def _leave_matrix(names: list[str], alphabet: Alphabet, source: str) -> np.ndarray:
    """Leaves as rows of ``tile + 1`` (0 = padding), each row's tiles sorted, blank first."""
    if not names:
        return np.zeros((0, 1), dtype=np.uint8)
    if any(len(x) > 1 for x in alphabet._index):
        racks = []
        for name in names:
            try:
                racks.append(alphabet.rack(name))
            except UnknownLetterError as e:
                raise _letter_error(name, f"leave {name!r}: {e}", source) from None
        width = max(len(r) for r in racks)
        mat = np.zeros((len(racks), width), dtype=np.uint8)
        for i, r in enumerate(racks):
            mat[i, : len(r)] = np.asarray(r) + 1
        return mat
    table = _code_table(alphabet).copy()
    table[[ord("?"), ord("*")]] = _BLANK_CODE
    lengths = np.fromiter((len(s) for s in names), dtype=np.int64, count=len(names))
    width = int(lengths.max())
    if width > 255:
        raise LexiconFormatError(f"leaves {source}: a leave of {width} tiles is too long")
    # (surrogatepass: a lone surrogate, which a str may hold, is a letter outside the alphabet, not a UnicodeEncodeError)
    codes = table[np.frombuffer("".join(names).encode("utf-32-le", "surrogatepass"), dtype="<u4")]
    bad = np.flatnonzero((codes > 63) & (codes != _BLANK_CODE))
    if bad.size:
        name = names[int(np.searchsorted(np.cumsum(lengths), bad[0], side="right"))]
        raise _bad_letter(name, alphabet, source)
    return _sorted_rows(codes, lengths, width)


def _bad_letter(name: str, alphabet: Alphabet, source: str) -> LexiconFormatError:
    """The error of a leave with a letter the (single-character) alphabet lacks."""
    try:
        alphabet.rack(name)  # (its message names the letter, and the twin of the other script it may be)
    except UnknownLetterError as e:
        return _letter_error(name, f"leave {name!r}: {e}", source)
    return _letter_error(name, f"leave {name!r} has a letter outside the alphabet of {alphabet.name or 'the ruleset'}",
                         source)


def _sorted_rows(codes: np.ndarray, lengths: np.ndarray, width: int) -> np.ndarray:
    """Leaves as rows of ``tile + 1`` (0 = padding), each row's tiles sorted, blank first, from
    the codes (:func:`_code_table`'s, blank ``_BLANK_CODE``) of the leaves one after another and
    the length of each (at most ``width``)."""
    codes = np.where(codes == _BLANK_CODE, 0, codes).astype(np.uint8) + 1
    starts = np.zeros(lengths.size, np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    mat = _windows(codes, starts, width)
    mat[np.arange(width) >= lengths[:, None]] = _PAD
    mat.sort(axis=1)
    mat[mat == _PAD] = 0
    return mat


def _windows(buf: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """A new matrix whose row ``i`` is ``buf[starts[i] : starts[i] + width]``, zeros past the end
    of ``buf``: no matrix of indices (8 bytes a byte gathered), no copy of ``buf``."""
    if buf.size < width:
        buf = np.concatenate([buf, np.zeros(width, buf.dtype)])
    base = buf.size - width
    near = np.flatnonzero(starts > base)  # rows that reach past the end
    if not near.size:
        return np.lib.stride_tricks.sliding_window_view(buf, width)[starts]
    tail = np.concatenate([buf[base:], np.zeros(width, buf.dtype)])  # (buf's end, zeros after it)
    out = np.lib.stride_tricks.sliding_window_view(buf, width)[np.minimum(starts, base)]
    out[near] = np.lib.stride_tricks.sliding_window_view(tail, width)[starts[near] - base]
    return out
