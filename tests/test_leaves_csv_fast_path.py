"""A leave CSV is read without a Python object a leave when it can be (``klv._csv_rows`` and
``Leaves._from_csv_fast``: the general way took 3 times the CPU time and 3.5 times the memory for
a complete Russian table of 2.9 million leaves). Whichever way reads it, the table is the same byte for byte, and a CSV
at fault gets the same error, on the same line, as the general way (``_csv_columns``, then
``from_pairs``) gives it."""
from __future__ import annotations

import random

import numpy as np
import pytest

from racksmith import Leaves, get_ruleset
from racksmith.errors import LexiconFormatError
from racksmith.lexicon import klv

EN, RU = get_ruleset("english"), get_ruleset("russian")


def _build(text: str, rs, complete: bool) -> "bytes | str":
    try:
        return Leaves.from_csv_text(text, rs, source="'t.csv'", complete=complete).tobytes()
    except LexiconFormatError as e:
        return f"error: {e}"


def general(monkeypatch, text: str, rs, complete: bool = False) -> "bytes | str":
    """The table (its bytes), or the error, the general way gives."""
    with monkeypatch.context() as m:
        m.setattr(klv, "_csv_rows", lambda text: None)
        return _build(text, rs, complete)


def fast(monkeypatch, text: str, rs, complete: bool = False) -> "bytes | str":
    """The table, or the error, the fast way gives: it must not hand the CSV to the general way."""
    def refused(*args):
        raise AssertionError("the general way read a CSV the fast way reads")

    with monkeypatch.context() as m:
        m.setattr(klv, "_csv_columns", refused)
        return _build(text, rs, complete)


VALUES = ["1e3", " 2.5 ", "\t-0", "-0", "+4", "3.40282356e38", "-3.4028235e38", "1E-3", "5.", ".5", "0", "1e-50",
          "-12.000", "0.1"]  # (3.40282356e38, beyond FLT_MAX, rounds to it: stored as FLT_MAX)


def random_csv(rng: random.Random, rs, most: int) -> "tuple[str, list[tuple[str, float]]]":
    """A CSV the fast way reads (header, CRLF, blank lines, spaces, '?' and '*', lower case, the
    empty leave at 0), and its (leave, value) pairs as from_pairs takes them."""
    letters = "".join(x for x in rs.alphabet.letters if len(x) == 1)
    lines, pairs, seen = [], [], set()
    if rng.random() < 0.5:
        lines.append(rng.choice(["leave,value", "Leave , Value "]))
    for _ in range(rng.randrange(1, 60)):
        if rng.random() < 0.08:
            lines.append(rng.choice(["", "  ", "\t"]))
            continue
        if rng.random() < 0.03:
            lines.append(rng.choice([",0", " ,-0", "\t,0.0"]))  # the empty leave, worth 0: skipped
            continue
        tiles = [rng.choice(letters + "??") for _ in range(rng.randrange(1, most + 1))]
        key = "".join(sorted(tiles))
        if key in seen:
            continue
        seen.add(key)
        leave = "".join(t if t != "?" or rng.random() < 0.7 else "*" for t in tiles)
        if rng.random() < 0.2:
            leave = leave.lower()
        if rng.random() < 0.1:
            leave = rng.choice([" ", "\t", "  "]) + leave + rng.choice(["", " "])
        value = rng.choice(VALUES) if rng.random() < 0.3 else repr(round(rng.uniform(-40, 40), rng.randrange(7)))
        lines.append(f"{leave},{value}")
        pairs.append((leave.strip(), float(value)))
    eol = rng.choice(["\n", "\r\n"])
    return eol.join(lines) + rng.choice(["", eol, eol + eol]), pairs


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("rs", [EN, RU], ids=["english", "russian"])
def test_a_csv_builds_the_same_table_either_way_as_from_pairs_does(monkeypatch, rs, seed):
    rng = random.Random(seed)
    text, pairs = random_csv(rng, rs, rs.rack_size - 1)
    if not pairs:
        pytest.skip("no leaf drawn")
    built = fast(monkeypatch, text, rs)
    assert isinstance(built, bytes), built
    assert built == general(monkeypatch, text, rs)
    assert built == Leaves.from_pairs(pairs, rs).tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_a_complete_table_is_the_same_either_way(monkeypatch, seed):
    # leaves of 1 or 2 tiles: a complete table of every leave of 1 and 2 tiles (400 English ones)
    text, pairs = random_csv(random.Random(seed), EN, 2)
    built = fast(monkeypatch, text, EN, complete=True)
    assert built == general(monkeypatch, text, EN, complete=True)
    assert built == Leaves.from_pairs(pairs, EN, complete=True).tobytes()
    assert len(Leaves.from_bytes(built, EN)) == 27 + 373


def test_values_are_stored_as_from_pairs_stores_them(monkeypatch):
    text = "A,1e3\nB, 2.5 \nC,-0\nD,3.40282356e38\nE,-3.4028235e38\nF,1e-50\nG,+4\n"
    built = Leaves.from_bytes(fast(monkeypatch, text, EN), EN)
    assert dict(built.items()) == {"A": 1000.0, "B": 2.5, "C": -0.0, "D": float(np.finfo(np.float32).max),
                                   "E": -float(np.finfo(np.float32).max), "F": 0.0, "G": 4.0}
    assert np.signbit(built.values[2])  # -0 is kept, as from_pairs keeps it


@pytest.mark.parametrize("rs, text, line", [
    (EN, "leave,value\r\n\r\nAB,1\r\nЖ,2\r\n", 4),  # CRLF, a header and a blank line before it
    (EN, "AB,1\n  \nA?,2\nCD,3\n ЖA ,4\nQ,5\n", 5),
    (RU, "АБ,1\n\nQ,2\n", 3),
    (RU, "АБ,1\nAБ,2\n", 2),  # a Latin A: its message names the twin of the other script
    (EN, "AB,1\nA\ufeffB,2\n", 2),
])
def test_a_letter_outside_the_alphabet_is_said_on_its_line(monkeypatch, rs, text, line):
    got = fast(monkeypatch, text, rs)
    assert got == general(monkeypatch, text, rs)
    assert got.startswith(f"error: leave CSV 't.csv', line {line}: leave "), got


def test_a_leave_given_twice_is_named_as_the_general_way_names_it(monkeypatch):
    text = "leave,value\nAB,1\nC,2\n ba ,3\n"
    got = fast(monkeypatch, text, EN)
    assert got == general(monkeypatch, text, EN)
    assert got == "error: leaves 't.csv': leave 'AB' appears twice (as 'ba')"


@pytest.mark.parametrize("text", [
    "", "\n  \n", "leave,value\n", "A,1,2\n", "A;1\n", "A,\n", "A,1_0\n", "A,nan\n", "B,1\nA,inf\n", "A,1e39\n", "A,3.40282357e38\n",
    "A,１２\n", "A,1\n,5\n", "A,1\n\u00a0,0\n", "A,1\n\u00a0,3\n", "\u00a0A ,1\nB\u3000,2\n", "A B,1\n",
    "ABCDEFGH,1\n", "A\x00,1\n", "A,1\x00\n", "A\r,1\n", "A,1\nB,2\rC,3\n", "\ud800,1\n", "A,1\n" + "  \n" * 1200,
    "A," + "1" * 40 + "\n", "AB,1\nA\u2003,2\nC\u00a0,0\n", "[A],1\n", "AB,2\nCD,x\n",
])
@pytest.mark.parametrize("rs", [EN, RU], ids=["english", "russian"])
def test_a_csv_the_fast_way_hands_over_reads_as_before(monkeypatch, rs, text):
    assert _build(text, rs, False) == general(monkeypatch, text, rs)


def test_whitespace_the_general_way_strips_off_a_leave_is_no_letter_at_fault():
    # (a no-break space is no letter, but the general way strips it: A and B are leaves, the third line none)
    leaves = Leaves.from_csv_text("\u00a0A ,1\nB\u3000,2\n\u00a0,0\n", EN)
    assert dict(leaves.items()) == {"A": 1.0, "B": 2.0}


@pytest.mark.parametrize("width", [1, 3, 6, 8, 9, 12])
def test_rows_sort_and_complete_as_their_bytes(width):
    rng = np.random.default_rng(width)
    rows = np.unique(rng.integers(0, 4, size=(300, width), dtype=np.uint8), axis=0)
    every = np.unique(rng.integers(0, 4, size=(200, max(width - 1, 1)), dtype=np.uint8), axis=0)
    keys = klv._row_keys(rows)
    assert [bytes(r) for r in rows[np.argsort(keys, kind="stable")]] == sorted(bytes(r) for r in rows)
    mat = rows[np.argsort(keys, kind="stable")]
    values = rng.random(len(mat)).astype(np.float32) + 1
    got_rows, got_values = klv._with_absent_at_zero(mat, values, every)
    pad = max(width, every.shape[1])
    want = {bytes(r) + bytes(pad - len(r)): 0.0 for r in every}
    want.update({bytes(r) + bytes(pad - len(r)): float(v) for r, v in zip(mat, values)})
    assert [bytes(r) for r in got_rows] == sorted(want)
    assert got_values.tolist() == [want[k] for k in sorted(want)]


def test_windows_are_the_slices_zeros_after_the_end():
    rng = np.random.default_rng(0)
    for size, width in [(50, 4), (50, 50), (10, 16), (1, 3)]:
        buf = rng.integers(1, 255, size=size, dtype=np.uint8)
        starts = np.sort(rng.integers(0, size, size=20))
        want = [bytes(buf[s : s + width]).ljust(width, b"\0") for s in starts.tolist()]
        assert [bytes(r) for r in klv._windows(buf, starts, width)] == want


@pytest.mark.parametrize("build", [lambda: Leaves.from_csv_text("AB,1\n\ud800,2\n", EN),
                                   lambda: Leaves.from_pairs([("AB", 1.0), ("A\udcff", 2.0)], EN)],
                         ids=["csv", "pairs"])
def test_a_lone_surrogate_is_a_letter_outside_the_alphabet(build):
    # (a str may hold one, decoded with surrogateescape: it was a UnicodeEncodeError out of utf-32-le)
    with pytest.raises(LexiconFormatError, match=r"is not in the alphabet of english") as e:
        build()
    assert "line 2" in str(e.value) or "pairs" in str(e.value)
