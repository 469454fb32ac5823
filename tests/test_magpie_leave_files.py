"""Leave files and win% tables as MAGPIE reads and writes them: ``leaves build`` writes the complete
table MAGPIE's ``convert csv2klv`` writes (MAGPIE's lookup misreads a table that lacks a leave
which begins a longer one), ``leaves csv --magpie`` writes what its ``convert klv2csv`` writes,
and a win% table with fewer rows than a game has unseen tiles is said to be, whatever its
provenance."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from racksmith import get_ruleset
from racksmith.cli.main import main
from racksmith.errors import LexiconFormatError
from racksmith.lexicon import Leaves
from racksmith.lexicon.kwg import ARC_MASK, IS_END
from racksmith.sim.winpct import WinPct, borrowed_note, coverage_note, other_ruleset_note
from racksmith.training.leavegen import possible_leaves

FIXTURES = Path(__file__).parent / "fixtures"
ENGLISH = get_ruleset("english")
PARTIAL = "?,25.5\nS,8.25\nES,10.125\nQ,-7\n"  # (the audit's CSV: E begins ES, and is not there)


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def magpie_value(leaves: Leaves, leave: str) -> float:
    """A leave's value as MAGPIE looks it up (klv_get_word_index_internal in its src/ent/klv.h):
    the walk never checks that the node of the last tile ends a leave, and counts one leave for
    every node it goes down from (follow_arc: word_index + 1)."""
    nodes, counts = leaves.kwg, leaves.counts
    tiles = sorted(leaves.alphabet.rack(leave))
    node_index, idx = int(nodes[0]) & ARC_MASK, 0
    for k, t in enumerate(tiles):
        if node_index == 0:
            return 0.0
        while (int(nodes[node_index]) >> 24) != t:  # increment_node_to_ml
            if int(nodes[node_index]) & IS_END:
                return 0.0
            idx += int(counts[node_index]) - int(counts[node_index + 1])
            node_index += 1
        if k == len(tiles) - 1:
            return float(leaves.values[idx])
        idx += 1  # follow_arc
        node_index = int(nodes[node_index]) & ARC_MASK
    return 0.0


def every_leave(ruleset, most: int) -> list[str]:
    """Every leave of 1 to ``most`` of the ruleset's tiles, by size, then tiles ascending (MAGPIE's order)."""
    names = []
    for size, rows in possible_leaves(ruleset.counts, most + 1).items():
        names += [ruleset.alphabet.decode([v - 1 for v in row]) for row in sorted(r[:size].tolist() for r in rows)]
    return names


# --- 1. leaves build writes the complete table ------------------------------------------------------
def test_a_partial_csv_builds_the_complete_table_which_magpie_reads_as_racksmith_does(tmp_path, capsys):
    csv = tmp_path / "p.csv"
    csv.write_text(PARTIAL, encoding="utf-8")
    out_klv = tmp_path / "p.klv2"
    code, out, err = run(capsys, "leaves", "build", csv, "-o", out_klv)
    assert code == 0 and err == ""
    assert out.strip() == f"{out_klv}: 400 leaves (every leave of 1 to 2 tiles; those the CSV lacks at 0), 376 nodes"
    table = Leaves.load(out_klv)
    names = every_leave(ENGLISH, 2)
    assert len(table) == len(names) == 400 and table.longest == 2
    given = {"?": 25.5, "S": 8.25, "ES": 10.125, "Q": -7.0}
    listed = dict(table.items())
    assert set(listed) == set(names)  # (every leave of 1 and 2 tiles, none else)
    for leave in names:
        want = given.get(leave, 0.0)
        assert listed[leave] == want and table.value(leave) == want
        assert magpie_value(table, leave) == want, leave  # (MAGPIE reads each as racksmith does)
    # the Python API builds the same table with complete=True (the CSV's leaves alone by default)
    assert Leaves.from_csv(csv, complete=True).tobytes() == out_klv.read_bytes()
    assert Leaves.from_csv_text(PARTIAL, complete=True).tobytes() == out_klv.read_bytes()
    assert len(Leaves.from_csv(csv)) == 4


def test_partial_writes_the_csvs_leaves_alone_which_magpie_misreads(tmp_path, capsys):
    csv = tmp_path / "p.csv"
    csv.write_text(PARTIAL, encoding="utf-8")
    code, out, err = run(capsys, "leaves", "build", csv, "--partial", "-o", tmp_path / "p.klv2")
    assert code == 0 and err == "" and out.strip() == f"{tmp_path / 'p.klv2'}: 4 leaves, 7 nodes"
    table = Leaves.load(tmp_path / "p.klv2")
    assert table.tobytes() == Leaves.from_csv_text(PARTIAL).tobytes()  # (the bytes it wrote before)
    assert table.value("E") == 0.0 and magpie_value(table, "E") == 10.125  # (the misreading --partial keeps)


def test_leaves_with_more_copies_than_the_tile_set_has_are_kept(tmp_path, capsys):
    csv = tmp_path / "q.csv"
    csv.write_text("Q,-7\nQQ,-20\n", encoding="utf-8")
    assert run(capsys, "leaves", "build", csv, "-o", tmp_path / "q.klv2")[0] == 0
    table = Leaves.load(tmp_path / "q.klv2")
    assert len(table) == 401 and table.value("QQ") == -20.0 and table.value("QU") == 0.0
    assert table.value("Q") == -7.0 and magpie_value(table, "Q") == -7.0


def test_stdin_is_read_once_when_the_table_stays_partial(tmp_path, capsys, monkeypatch):
    """'-' (a pipe: read once) with a table too large to complete: built from the text read."""
    import os
    import threading

    monkeypatch.setattr("racksmith.training.leavegen.MAX_LEAVES", 100)
    pipe = tmp_path / "stdin"
    os.mkfifo(pipe)
    monkeypatch.setattr("racksmith.cli.common.STDIN", pipe)  # ('-' reads /dev/stdin: here a pipe)

    def feed():
        with open(pipe, "w", encoding="utf-8") as f:
            f.write(PARTIAL)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    code, out, err = run(capsys, "leaves", "build", "-", "-o", tmp_path / "stdin.klv2")
    writer.join(5)
    assert code == 0, err
    assert "MAGPIE misreads" in err and out.strip() == f"{tmp_path / 'stdin.klv2'}: 4 leaves, 7 nodes"
    assert (tmp_path / "stdin.klv2").read_bytes() == Leaves.from_csv_text(PARTIAL).tobytes()


def test_a_table_too_large_to_complete_stays_partial_with_a_note(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("racksmith.training.leavegen.MAX_LEAVES", 100)
    csv = tmp_path / "p.csv"
    csv.write_text(PARTIAL, encoding="utf-8")
    code, out, err = run(capsys, "leaves", "build", csv, "-o", tmp_path / "p.klv2")
    assert code == 0 and out.strip() == f"{tmp_path / 'p.klv2'}: 4 leaves, 7 nodes"
    assert len(err.strip().splitlines()) == 1
    assert "note: a complete table of ruleset english (every leave of 1 to 2 of its tiles) would hold 400 leaves" in err
    assert "p.klv2 holds the CSV's leaves alone, which MAGPIE misreads" in err
    with pytest.raises(LexiconFormatError, match="more than racksmith builds .100.; build the table of the leaves "
                                                 r"given alone \(complete=False\)"):
        Leaves.from_csv_text(PARTIAL, complete=True)


@pytest.mark.slow
def test_magpies_csv_builds_magpies_file_and_partial_the_same(tmp_path, capsys):
    # SYNTH.csv.gz: every leave of 1-6 tiles, values of 3 decimals (as MAGPIE writes them); SYNTH.klv2: MAGPIE's
    out_klv = tmp_path / "synth.klv2"
    code, out, err = run(capsys, "leaves", "build", FIXTURES / "SYNTH.csv.gz", "-o", out_klv)
    assert code == 0 and err == "" and "914,624 leaves (every leave of 1 to 6 tiles" in out
    assert out_klv.read_bytes() == (FIXTURES / "SYNTH.klv2").read_bytes()
    assert run(capsys, "leaves", "build", FIXTURES / "SYNTH.csv.gz", "--partial", "-o", tmp_path / "p.klv2")[0] == 0
    assert (tmp_path / "p.klv2").read_bytes() == out_klv.read_bytes()  # (nothing lacking: nothing added)


def test_build_help_says_when_the_file_is_magpies(capsys):
    code, out, _ = run(capsys, "leaves", "build", "--help")
    text = " ".join(out.replace("│", " ").split())
    assert code == 0 and "byte for byte MAGPIE's" in text and "at most 3 decimals" in text
    assert "--partial" in text and "misread by MAGPIE" in text


# --- 2. leaves csv --magpie: MAGPIE's convert klv2csv -------------------------------------------------
#: the first lines and the last of MAGPIE's 'convert klv2csv' of SYNTH.klv2 (run on MAGPIE's own binary)
MAGPIE_SYNTH_HEAD = "?,23.864000\nA,0.300000\nB,-2.440000\nC,0.607000\nD,0.301000\n"
MAGPIE_SYNTH_TAIL = "VWXYYZ,-20.658000\nWWXYYZ,-22.128000\n"


@pytest.mark.slow
def test_magpie_csv_is_magpies_klv2csv(tmp_path, capsys):
    out_csv = tmp_path / "synth.csv"
    code, out, err = run(capsys, "leaves", "csv", FIXTURES / "SYNTH.klv2", "--magpie", "-o", out_csv)
    assert code == 0 and err == "" and out.strip() == f"{out_csv}: 914,624 leaves"
    text = out_csv.read_text(encoding="utf-8")
    assert text.startswith(MAGPIE_SYNTH_HEAD) and text.endswith(MAGPIE_SYNTH_TAIL)
    # SYNTH.csv.gz is MAGPIE's order, values of 3 decimals: MAGPIE's klv2csv is it with %f's 6 (checked whole
    # against MAGPIE's output)
    lines = gzip.decompress((FIXTURES / "SYNTH.csv.gz").read_bytes()).decode().split()
    assert text == "".join(f"{leave},{float(v):.6f}\n" for leave, v in (ln.split(",") for ln in lines))
    assert text.splitlines()[27] == "??,47.568000"  # (by size: the 27 single tiles first)


def test_magpie_csv_rounds_as_magpie_and_lists_every_leave(tmp_path, capsys):
    # MAGPIE reads a value into whole millipoints, half away from zero (its klv2csv of this file, checked)
    pairs = [("A", 0.0625), ("B", -0.0625), ("C", -0.0001), ("D", 1e6), ("E", 0.0005), ("F", -2.0005),
             ("?", 23.8645), ("G", 0.1875), ("H", -0.3125), ("QQ", 3.0), ("ES", 1.5)]
    Leaves.from_pairs(pairs).save(tmp_path / "r.klv2")
    five = tmp_path / "five.json"  # (racks of 3: every leave of 1 and 2 tiles, a short listing)
    five.write_text(json.dumps({**ENGLISH.to_dict(), "aliases": [], "name": "three", "rack_size": 3,
                                "exchange_limit": 3}), encoding="utf-8")
    code, out, err = run(capsys, "leaves", "csv", tmp_path / "r.klv2", "--magpie", "--ruleset", five)
    assert code == 0
    lines = out.splitlines()
    assert lines[:10] == ["?,23.865000", "A,0.063000", "B,-0.063000", "C,0.000000", "D,1000000.000000",
                          "E,0.001000", "F,-2.000000", "G,0.188000", "H,-0.313000", "I,0.000000"]
    assert lines[27:29] == ["??,0.000000", "?A,0.000000"] and "ES,1.500000" in lines
    assert len(lines) == 400 and [ln.split(",")[0] for ln in lines] == every_leave(get_ruleset(str(five)), 2)
    assert "QQ" not in out and "note: 1 leave of the file no game of three deals" in err  # (as MAGPIE leaves it out)
    # the default is racksmith's exact form: the file's leaves, its order, float32's shortest digits
    code, out, err = run(capsys, "leaves", "csv", tmp_path / "r.klv2")
    assert code == 0 and out.splitlines()[:3] == ["?,23.8645", "A,0.0625", "B,-0.0625"] and len(out.splitlines()) == 11


def test_csv_help_says_the_default_is_the_exact_round_trip(capsys):
    code, out, _ = run(capsys, "leaves", "csv", "--help")
    text = " ".join(out.replace("│", " ").split())
    assert code == 0 and "By default, racksmith's exact form" in text and "MAGPIE's convert klv2csv" in text


# --- 3. a win% table's rows, whatever its provenance ---------------------------------------------------
def _rows(folder: Path, name: str, rows: int) -> Path:
    """A table of ``rows`` rows (unseen 1..rows) and no provenance, as MAGPIE's winpct files are."""
    path = folder / f"{name}.winpct"
    WinPct(np.full((rows, 5), 0.5), np.full(rows, 10), name).save(path)
    assert not Path(str(path) + ".json").exists()
    return path


def test_a_table_without_provenance_says_what_its_rows_cover(tmp_path):
    magpie = _rows(tmp_path, "winpct", 93)  # (MAGPIE's table: unseen 1..93, English's game)
    line = borrowed_note(get_ruleset("super"), str(magpie))
    assert line == ("win% table winpct has rows for 1 to 93 unseen tiles, and a game of super has up to 193 (more "
                    "are read as 93); without --winpct (winpct= in Python) super's own table is used")
    assert coverage_note(get_ruleset("super"), str(magpie)) == line
    assert other_ruleset_note(get_ruleset("super"), str(magpie)) is None  # (the ruleset part: from the provenance)
    assert borrowed_note(ENGLISH, str(magpie)) is None  # (93 rows cover English's 93)
    short = _rows(tmp_path, "short", 3)
    assert "rows for 1 to 3 unseen tiles, and a game of english has up to 93 (more are read as 3)" in \
        borrowed_note(ENGLISH, str(short))


def test_a_ruleset_with_more_tiles_than_the_table_it_borrows_is_told(tmp_path):
    big = tmp_path / "big.json"
    data = ENGLISH.to_dict()
    data.update(name="big", aliases=[], tiles=[[t[0], t[1] * 3, *t[2:]] for t in data["tiles"]])
    big.write_text(json.dumps(data), encoding="utf-8")
    rs = get_ruleset(str(big))
    line = borrowed_note(rs)
    assert line.startswith("ruleset big has no win% table of its own: its simulations use the super table")
    assert f"which has rows for 1 to 193 unseen tiles, and a game of big has up to {rs.total_tiles - 7}" in line
    assert line.endswith("give one trained for it ('racksmith winpct train --ruleset FILE') with --winpct FILE "
                         "(winpct= in Python)")


def test_sim_says_it_of_magpies_table_under_super(tmp_path, capsys):
    magpie = _rows(tmp_path, "winpct", 93)
    cgp = f"{'/'.join(['21'] * 21)} AEINRST/ 0/0 0 ld english_super;"
    code, out, err = run(capsys, "sim", cgp, "--winpct", magpie, "--iterations", 20, "--candidates", 2,
                         "--threads", 1, "--seed", 1, "--json")
    assert code == 0, err
    assert "has rows for 1 to 93 unseen tiles, and a game of super has up to 193" in json.loads(out)["note"]
    assert err.count("note: win% table winpct has rows for 1 to 93 unseen tiles") == 1
