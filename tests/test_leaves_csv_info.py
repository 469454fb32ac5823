"""``racksmith leaves csv`` (a leave file as the CSV ``leaves build`` reads) and ``racksmith leaves
info`` (what a leave file holds, and how it was trained)."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from racksmith.cli.main import main
from racksmith.lexicon import Leaves, load_leaves
from racksmith.training import TrainSettings, train_leaves



def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """Leaves trained for English with racks of 5 (29,163 leaves: quick to write and build)."""
    from racksmith.rules.ruleset import get_ruleset

    folder = tmp_path_factory.mktemp("trained")
    rules = folder / "five.json"
    rules.write_text(json.dumps({**get_ruleset("english").to_dict(), "aliases": [], "name": "five", "rack_size": 5,
                                 "exchange_limit": 5}), encoding="utf-8")
    out = folder / "t.klv2"
    train_leaves(out, TrainSettings(str(rules), games=2, generations=1, seed=3, prior_weight=10), checkpoint=2)
    return out


def test_a_trained_file_goes_to_csv_and_back_byte_for_byte(tmp_path, capsys, trained):
    for name in ("t.csv", "t.csv.gz"):
        csv = tmp_path / name
        code, out, err = run(capsys, "leaves", "csv", trained, "-o", csv)
        assert code == 0 and err == "" and out.strip() == f"{csv}: 29,163 leaves"
        text = (gzip.decompress(csv.read_bytes()) if name.endswith(".gz") else csv.read_bytes()).decode("utf-8")
        assert len(text.splitlines()) == 29_163 and text.splitlines()[0].startswith("?,")
        code, out, err = run(capsys, "leaves", "build", csv, "-o", tmp_path / "back.klv2")
        assert code == 0 and (tmp_path / "back.klv2").read_bytes() == trained.read_bytes()
    # without -o the CSV is all stdout holds
    code, out, err = run(capsys, "leaves", "csv", trained)
    assert code == 0 and err == "" and out == (tmp_path / "t.csv").read_text(encoding="utf-8")


def test_a_shipped_set_goes_to_csv_and_back_byte_for_byte(tmp_path, capsys):
    csv = tmp_path / "english.csv"
    assert run(capsys, "leaves", "csv", "english", "-o", csv)[0] == 0
    lines = csv.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == ["?,24.910397", "??,38.7211"]  # (float32's shortest digits, the file's order)
    assert run(capsys, "leaves", "build", csv, "-o", tmp_path / "english.klv2")[0] == 0
    assert (tmp_path / "english.klv2").read_bytes() == load_leaves("english").tobytes()


def test_every_float32_value_reads_back_as_itself():
    # values of every size and sign, as float32 bits drawn at random: the CSV text builds the same bytes
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 2**32, 4000, dtype=np.uint64).astype(np.uint32)
    values = bits.view(np.float32)
    values = values[np.isfinite(values)][:3000]
    from itertools import combinations_with_replacement

    rows = np.array(list(combinations_with_replacement(range(1, 28), 3))[: len(values)], np.uint8)
    table = Leaves.from_tile_rows(rows, values, "english")
    from racksmith.cli.leaves_cmds import _csv_text

    assert Leaves.from_csv_text(_csv_text(table), "english").tobytes() == table.tobytes()


def test_csv_refuses_to_overwrite_its_input_and_names_a_missing_file(tmp_path, capsys, trained):
    code, _, err = run(capsys, "leaves", "csv", trained, "-o", trained)
    assert code == 2 and "overwrite" in err
    code, _, err = run(capsys, "leaves", "csv", tmp_path / "none.klv2")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "cannot read leave file" in err


def test_info_of_a_trained_file(capsys, trained):
    code, out, err = run(capsys, "leaves", "info", trained, "--json")
    assert code == 0 and err == ""
    info = json.loads(out)
    prov = json.loads(Path(str(trained) + ".json").read_text(encoding="utf-8"))
    assert info["file"] == str(trained) and info["set"] is None and info["leaves"] == 29_163
    assert [s["size"] for s in info["sizes"]] == [1, 2, 3, 4]
    assert sum(s["leaves"] for s in info["sizes"]) == 29_163
    assert all(s["min"] <= s["mean"] <= s["max"] for s in info["sizes"])
    table = load_leaves(trained)
    assert info["best"][0]["value"] == pytest.approx(float(table.values.max()))
    assert info["worst"][0]["value"] == pytest.approx(float(table.values.min()))
    assert all(table.value(x["leave"]) == pytest.approx(x["value"]) for x in info["best"] + info["worst"])
    assert len(info["best"]) == len(info["worst"]) == 5
    p = info["provenance"]
    assert (p["ruleset"], p["lexicon"], p["games"], p["generations"], p["seed"]) == ("five", "enable", 2, 1, 3)
    assert (p["tallied_leaves"], p["prior_leaves"]) == (prov["tallied_leaves"], prov["prior_leaves"])
    assert p["tallied_leaves"] + p["prior_leaves"] == 29_163
    code, out, err = run(capsys, "leaves", "info", trained, "--top", 2)
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"{trained}: 29,163 leaves"
    assert lines[1].split() == ["tiles", "leaves", "mean", "min", "max"] and lines[2].split()[:2] == ["1", "27"]
    assert lines[6].startswith("best:  ") and lines[6].count(",") == 1 and lines[7].startswith("worst: ")
    assert lines[8] == "trained: ruleset five, lexicon enable, 2 games in 1 generation, seed 3"
    assert lines[9] == (f"seen in training: {p['tallied_leaves']:,} leaves; at their prior: {p['prior_leaves']:,}")
    assert len(lines) == 10  # (a run of the library records no command)


def test_info_of_a_shipped_set_by_name(capsys):
    code, out, err = run(capsys, "leaves", "info", "English", "--json")
    info = json.loads(out)
    assert code == 0 and info["set"] == "english" and info["file"] is None and info["leaves"] == 914_624
    # the shipped set's record: trained on 644,135 leaves, the others added at their prior
    assert (info["provenance"]["tallied_leaves"], info["provenance"]["prior_leaves"]) == (644_135, 270_489)
    code, out, err = run(capsys, "leaves", "info", "english")
    assert code == 0 and out.splitlines()[0] == "english (shipped set): 914,624 leaves"
    assert "seen in training: 644,135 leaves; at their prior: 270,489" in out.splitlines()


def test_info_of_a_file_without_provenance_and_of_a_csv(tmp_path, capsys):
    csv = tmp_path / "l.csv"
    csv.write_text("?,25.5\nES,3\nQ,-7\n", encoding="utf-8")
    code, out, err = run(capsys, "leaves", "info", csv, "--json")
    info = json.loads(out)
    assert code == 0 and info["leaves"] == 3 and info["provenance"] is None
    assert info["sizes"] == [{"size": 1, "leaves": 2, "mean": 9.25, "min": -7.0, "max": 25.5},
                             {"size": 2, "leaves": 1, "mean": 3.0, "min": 3.0, "max": 3.0}]
    assert info["best"][0] == {"leave": "?", "value": 25.5} and info["worst"][0] == {"leave": "Q", "value": -7.0}
    built = tmp_path / "l.klv2"
    assert run(capsys, "leaves", "build", csv, "--partial", "-o", built)[0] == 0  # (a sidecar of letters: no training record)
    code, out, err = run(capsys, "leaves", "info", built)
    assert code == 0 and "trained:" not in out and out.splitlines()[0] == f"{built}: 3 leaves"
    code, out, err = run(capsys, "leaves", "info", "englsh")
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1 and "no leaves 'englsh'" in err


def test_a_trained_file_is_read_with_the_ruleset_it_was_trained_for_without_a_note(capsys, caplog, trained):
    """Without --ruleset, info, csv and value read a file with the ruleset its provenance names
    (racks of 5 here): no note that it is not English's (the default of --ruleset, not a choice)."""
    for args in (("info", trained), ("csv", trained), ("value", trained, "EIS")):
        caplog.clear()
        code, _, err = run(capsys, "leaves", *args)
        assert code == 0 and err == ""
        assert not [r for r in caplog.records if "trained for ruleset" in r.getMessage()], args
    # named, another ruleset is what it is read with, with the note (said as the file is read: afresh)
    from racksmith import clear_caches

    clear_caches()
    caplog.clear()
    assert run(capsys, "leaves", "value", trained, "EIS", "--ruleset", "english")[0] == 0
    assert any("trained for ruleset five" in r.getMessage() for r in caplog.records)


def test_none_is_no_leave_file(capsys):
    for command in ("info", "csv"):
        code, out, err = run(capsys, "leaves", command, "none")
        assert code == 1 and out == "" and "'none' is no leave file" in err and len(err.strip().splitlines()) == 1


def test_a_value_that_rounds_to_the_largest_float32_goes_to_csv_and_back(tmp_path, capsys):
    csv = tmp_path / "m.csv"
    csv.write_text("C,3.4028234e38\nA,1\n", encoding="utf-8")
    assert run(capsys, "leaves", "build", csv, "-o", tmp_path / "m.klv2")[0] == 0
    assert run(capsys, "leaves", "csv", tmp_path / "m.klv2", "-o", tmp_path / "back.csv")[0] == 0
    assert run(capsys, "leaves", "build", tmp_path / "back.csv", "-o", tmp_path / "m2.klv2")[0] == 0
    assert (tmp_path / "m2.klv2").read_bytes() == (tmp_path / "m.klv2").read_bytes()
    csv.write_text("C,3.5e38\n", encoding="utf-8")  # (beyond float32: refused, and the limit is shown right)
    code, _, err = run(capsys, "leaves", "build", csv, "-o", tmp_path / "m3.klv2")
    assert code == 1 and "within ±3.4028235e+38" in err
