"""KLV2 leave values: MAGPIE's file read exactly, ours written byte for byte the same, KLV v1,
damaged files."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racksmith.errors import LexiconFormatError
from racksmith.lexicon import Leaves, load_leaves
from racksmith.rules.ruleset import get_ruleset
from racksmith.lexicon.klv import leave_index

FIXTURES = Path(__file__).parent / "fixtures"
SYNTH_LEAVES = 914_624


def synth_csv() -> dict[str, float]:
    rows = gzip.decompress((FIXTURES / "SYNTH.csv.gz").read_bytes()).decode().split()
    return {leave: float(value) for leave, value in (r.split(",") for r in rows)}


@pytest.fixture(scope="module")
def csv_values() -> dict[str, float]:
    return synth_csv()


@pytest.fixture(scope="module")
def magpie() -> Leaves:
    return load_leaves(FIXTURES / "SYNTH.klv2")


@pytest.fixture(scope="module")
def ours() -> Leaves:
    return Leaves.from_csv(FIXTURES / "SYNTH.csv.gz")


@pytest.mark.slow
def test_magpie_file_gives_the_csv_value_of_every_leave(magpie, csv_values):
    assert len(magpie) == len(csv_values) == SYNTH_LEAVES and magpie.version == 2
    items = magpie.items()
    assert [leave for leave, _ in items] == sorted(csv_values, key=lambda s: s.replace("?", "\0"))
    got = np.array([v for _, v in items], dtype=np.float32)
    want = np.array([csv_values[leave] for leave, _ in items], dtype=np.float32)
    assert np.array_equal(got, want)
    for leave in list(csv_values)[::9973]:
        assert magpie.value(leave) == np.float32(csv_values[leave])


@pytest.mark.slow
def test_our_klv2_is_magpies_byte_for_byte(ours):
    assert ours.tobytes() == (FIXTURES / "SYNTH.klv2").read_bytes()


def test_values_any_tile_order_and_absent_leaves(magpie, csv_values):
    assert magpie.value("?ERS") == magpie.value("SRE?") == magpie.value("RS*E") == np.float32(csv_values["?ERS"])
    assert magpie.value_tiles([19, 5, 18, 0]) == magpie.value("?ERS")
    assert magpie.value("") == 0.0
    assert magpie.value("QQ") == 0.0  # one Q in the bag: never a leave
    assert magpie.value("AAAAAAA") == 0.0  # seven tiles: longer than any leave
    assert leave_index(magpie, []) == -1 and leave_index(magpie, [99]) == -1
    assert leave_index(magpie, [0]) == 0  # "?" sorts first


def test_no_leaves_means_zero_everywhere():
    none = load_leaves(None)
    assert len(none) == 0 and none.value("?ERS") == 0.0 and none.items() == []


def test_klv_v1_is_read(magpie):
    values = np.round(magpie.values[:1000] * 256).astype("<i2")
    small = Leaves.from_pairs(magpie.items()[:1000])
    kwg = small.kwg.astype("<u4")
    data = (np.array([kwg.size], "<u4").tobytes() + kwg.tobytes()
            + np.array([values.size], "<u4").tobytes() + values.tobytes())
    v1 = Leaves.from_bytes(data)
    assert v1.version == 1
    leave = small.items()[500][0]
    assert v1.value(leave) == pytest.approx(float(values[500]) / 256)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text("?ABCDE", min_size=1, max_size=5), st.floats(-50, 50, width=32), max_size=40))
def test_round_trip_of_random_leave_tables(table):
    canonical = {}
    for leave, value in table.items():
        canonical.setdefault("".join(sorted(leave, key=lambda c: "\0" if c == "?" else c)), value)
    leaves = Leaves.from_pairs(canonical.items())
    back = Leaves.from_bytes(leaves.tobytes())
    assert back.tobytes() == leaves.tobytes()
    assert dict(back.items()) == pytest.approx(canonical)
    for leave, value in canonical.items():
        assert back.value(leave[::-1]) == np.float32(value)
    assert back.value("EEEEEE") == 0.0


def test_csv_problems_are_reported(tmp_path):
    def build(text: str) -> Leaves:
        path = tmp_path / "leaves.csv"
        path.write_text(text, encoding="utf-8")
        return Leaves.from_csv(path)

    assert len(build("leave,value\nAB,1.5\n\n?,2\n")) == 2  # a header line and blank lines are fine
    assert build("BA,1.5\n").value("AB") == 1.5
    with pytest.raises(LexiconFormatError, match="line 2: expected 'leave,value'"):
        build("A,1\nB;2\n")
    with pytest.raises(LexiconFormatError, match="line 2: value 'x' is not a number"):
        build("A,1\nB,x\n")
    with pytest.raises(LexiconFormatError, match="appears twice"):
        build("AB,1\nBA,2\n")
    with pytest.raises(LexiconFormatError, match=r"line 1: leave .A1.: letter .1. is not in the alphabet"):
        build("A1,1\n")
    with pytest.raises(LexiconFormatError, match="empty leave"):
        build(",3\n")
    with pytest.raises(LexiconFormatError, match="not a number"):
        build("A,nan\n")


def small_klv() -> bytes:
    return Leaves.from_pairs([("?", 1.0), ("A", 2.0), ("AB", 3.0), ("B", -1.0)]).tobytes()


def test_damaged_klv_files_are_refused():
    data = small_klv()
    with pytest.raises(LexiconFormatError, match="too short"):
        Leaves.from_bytes(data[:5])
    with pytest.raises(LexiconFormatError, match="truncated"):
        Leaves.from_bytes(data[:-1])
    wrong_count = bytearray(data)
    n_nodes = int.from_bytes(data[:4], "little")
    wrong_count[4 + 4 * n_nodes] += 1  # announces 5 values
    with pytest.raises(LexiconFormatError):
        Leaves.from_bytes(bytes(wrong_count) + b"\0\0\0\0")
    with pytest.raises(LexiconFormatError, match="KWG holds 4 leaves but the file has 5 values"):
        Leaves.from_bytes(bytes(wrong_count) + b"\0\0\0\0")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=5))
def test_random_corruption_never_crashes(edits):
    data = bytearray(small_klv())
    for pos, value in edits:
        data[pos % len(data)] = value
    try:
        leaves = Leaves.from_bytes(bytes(data))
    except LexiconFormatError:
        return
    for leave in ["?", "A", "AB", "B", "?AB", "ZZ", ""]:
        assert np.isfinite(leaves.value(leave))
    assert len(leaves.items()) == len(leaves)


def test_save_and_load(tmp_path, magpie):
    path = tmp_path / "copy.klv2"
    magpie.save(path)
    again = load_leaves(path)
    assert again.value("?ERS") == magpie.value("?ERS") and not again.kwg.flags.owndata


@pytest.mark.parametrize("text, hint", [(None, "got NoneType"), (b"A,1.5", "got bytes: decode the bytes")])
def test_csv_text_that_is_not_a_str_is_named(text, hint):
    with pytest.raises(LexiconFormatError, match="the text must be a str") as info:  # AttributeError ('replace') once
        Leaves.from_csv_text(text)
    assert hint in str(info.value)


@pytest.mark.parametrize("name", [None, 3, b"english"])
def test_the_provenance_of_shipped_leaves_needs_a_name(name):
    from racksmith import leaves_provenance
    from racksmith.lexicon.shipped_leaves import load_shipped_leaves

    for call in (leaves_provenance, load_shipped_leaves):  # AttributeError ('strip') once
        with pytest.raises(LexiconFormatError, match="the name of a shipped leave set is a str"):
            call(name)
    assert leaves_provenance("english")["command"].startswith("racksmith leaves train")


@pytest.mark.parametrize("value, shown", [
    (10**400, "10000"),  # was OverflowError
    (None, "None"),  # was "value 0 is nan"
    ("x", "'x'"),
    (float("nan"), "nan"),
    (1e39, "1e\\+39"),  # inf as a float32
], ids=["huge", "None", "text", "nan", "float32-overflow"])
def test_from_pairs_names_the_leave_whose_value_is_bad(value, shown):
    with pytest.raises(LexiconFormatError, match=f"leaves <pairs>: the value of leave 'S' is {shown}.*, not a number"):
        Leaves.from_pairs([("A", 1.0), ("S", value)])
    with pytest.raises(LexiconFormatError, match=f"the value of leave '' is {shown}.*, not a number"):
        Leaves.from_pairs([("", value)])  # the empty leave: was OverflowError, TypeError, ValueError
    assert Leaves.from_pairs([("S", "2.5"), ("", 0)]).value("S") == 2.5  # numbers as text still read


# --- what a leave is: 1 to rack size - 1 tiles of the alphabet ----------------------------------------
def _cli(capsys, *args):
    from racksmith.cli.main import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.parametrize("tiles", [[200], [-1], [27], [64], [0, 5, 99], [-5, 1]])
def test_value_tiles_refuses_a_tile_outside_the_alphabet(magpie, tiles):
    from racksmith.errors import UnknownLetterError

    with pytest.raises(UnknownLetterError, match="is not a tile of english"):  # was 0.0, as for an absent leave
        magpie.value_tiles(tiles)
    assert magpie.value_tiles([0, 5, 18, 19]) == magpie.value("?ERS") != 0
    assert magpie.value_tiles([]) == 0.0 and magpie.value_tiles([26] * 6) == 0.0  # absent: 0


def test_a_leave_csv_refuses_a_leave_longer_than_a_rack_can_keep(capsys, tmp_path):
    with pytest.raises(LexiconFormatError, match=r"<csv>, line 3: leave 'SSSSSSS' has 7 tiles; a leave keeps at most 6"):
        Leaves.from_csv_text("leave,value\nS,1\nSSSSSSS,2\n")
    assert Leaves.from_csv_text("S,1\n?SSSSS,2\n").value("SSSSS?") == 2.0  # 6 tiles: the longest leave
    csv = tmp_path / "long.csv"
    csv.write_text("S,1\nSSSSSSSS,1\n", encoding="utf-8")
    code, out, err = _cli(capsys, "leaves", "build", csv, "-o", tmp_path / "long.klv2")
    assert code == 1 and out == "" and len(err.splitlines()) == 1
    assert "line 2" in err and "'SSSSSSSS'" in err and "at most 6" in err
    assert not (tmp_path / "long.klv2").exists()


@pytest.mark.parametrize("name", ["english", "russian"])
def test_leaves_value_takes_a_shipped_set_by_name(capsys, name):
    shipped = load_leaves(name)
    leave = "?ERS" if name == "english" else "?"
    code, out, err = _cli(capsys, "leaves", "value", name, leave, "--json")  # was "cannot read leave file"
    assert code == 0, err
    # (the float32 the file holds, in its shortest digits: 38.442696, not 38.44269561767578)
    assert {k: np.float32(v) for k, v in json.loads(out).items()} == {leave: np.float32(shipped.value(leave))}
    assert shipped.value(leave) != 0 and len(out) < 30
    code, out, err = _cli(capsys, "leaves", "value", FIXTURES / "SYNTH.klv2", "?ERS", "--json")  # a file still
    assert code == 0 and np.float32(json.loads(out)["?ERS"]) == np.float32(load_leaves(FIXTURES / "SYNTH.klv2").value("?ERS"))


def test_leaves_value_reads_a_file_named_like_a_set(capsys, tmp_path, monkeypatch):
    """A file named like a shipped set is ./english; 'english' is the shipped set whatever the
    folder holds (as --leaves reads it)."""
    Leaves.from_pairs([("S", 8.0)]).save(tmp_path / "english")
    monkeypatch.chdir(tmp_path)
    code, out, err = _cli(capsys, "leaves", "value", "./english", "S", "--json")
    assert code == 0 and json.loads(out) == {"S": 8.0}
    code, out, err = _cli(capsys, "leaves", "value", "english", "S", "--json")
    assert code == 0 and json.loads(out) == {"S": pytest.approx(load_leaves("english").value("S"), abs=1e-5)} != {"S": 8.0}


def test_leaves_train_help_shows_one_default_for_probes(capsys, monkeypatch):
    import re

    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.setenv("TERMINAL_WIDTH", "250")
    code, out, err = _cli(capsys, "leaves", "train", "--help")
    assert code == 0
    text = re.sub(r"[\s│]+", " ", out)
    probes = text[text.index("--probes"):text.index("--jobs")]
    assert probes.count("default") == 1 and "[default: 0]" in probes  # was "[default: 0, the racks dealt]. [default: 0]"


@pytest.mark.parametrize("args, message", [
    (["--backend", "foo"], "'foo' is not one of 'local', 'ray'"),
    (["--games", "10,20", "--generations", "3"], "2 game counts for 3 generations"),
])
def test_leaves_train_bad_usage_exits_2(capsys, tmp_path, args, message):
    code, out, err = _cli(capsys, "leaves", "train", "-r", "english", "--games", "2", *args, "-o", tmp_path / "x.klv2")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and message in err  # were exit 1
    assert list(tmp_path.iterdir()) == []


def _erudit_file(tmp_path: Path, **provenance) -> Path:
    """An Эрудит leave file with a provenance beside it as ``leaves train`` writes one."""
    import hashlib

    path = tmp_path / "er.klv2"
    csv = tmp_path / "er.csv"
    csv.write_text("Ж,-3.5\nЗ,1.25\nЯ,2.5\n", encoding="utf-8")
    data = Leaves.from_csv(csv, "erudit").tobytes()
    path.write_bytes(data)
    prov = {"format": "racksmith-leaves-provenance/1", "ruleset": "erudit", "sha256": hashlib.sha256(data).hexdigest()}
    prov.update(provenance)
    (tmp_path / "er.klv2.json").write_text(json.dumps({k: v for k, v in prov.items() if v is not None}), encoding="utf-8")
    return path


def test_leaves_trained_for_other_letters_are_refused(tmp_path):
    """Эрудит has Ж where Russian has Ё (tile 7): read under Russian every value from Ж on was
    another letter's. The provenance beside the file says which letters its tiles are."""
    path = _erudit_file(tmp_path)
    assert load_leaves(path, "erudit").value("Ж") == -3.5
    with pytest.raises(LexiconFormatError, match=r"trained for ruleset erudit .* not those of russian: read it with "
                                                 r"ruleset erudit") as info:
        load_leaves(path, "russian")
    assert info.value.param == "ruleset"
    # a user ruleset's letters, recorded in the provenance
    letters = list(get_ruleset("russian").alphabet.letters)
    path = _erudit_file(tmp_path, ruleset="my-russian", alphabet=letters)
    with pytest.raises(LexiconFormatError, match="trained for ruleset my-russian"):
        load_leaves(path, "erudit")
    # a provenance of other bytes (the file was replaced) or of an unknown ruleset says nothing
    path = _erudit_file(tmp_path, sha256="0" * 64)
    assert load_leaves(path, "russian").value("Ё") == -3.5
    path = _erudit_file(tmp_path, ruleset="someone-elses")
    assert load_leaves(path, "russian").value("Ё") == -3.5
    # without a provenance nothing says what the tiles spell: the ruleset given reads them
    (tmp_path / "er.klv2.json").unlink()
    assert load_leaves(path, "russian").value("Ё") == -3.5


def test_the_command_line_names_the_ruleset_a_leave_file_was_trained_for(tmp_path, capsys):
    from racksmith.cli.main import main

    path = _erudit_file(tmp_path)
    assert main(["leaves", "value", str(path), "Ж", "--ruleset", "russian"]) == 1
    err = capsys.readouterr().err
    assert "trained for ruleset erudit" in err and "--ruleset" in err and len(err.strip().splitlines()) == 1


def test_a_mistyped_shipped_set_is_named_as_such():
    """'englsh' was "cannot read leave file 'englsh': No such file or directory"."""
    from racksmith.errors import LexiconFormatError
    from racksmith.lexicon import load_leaves

    with pytest.raises(LexiconFormatError, match=r"^no leaves 'englsh': give a shipped set \(english, super, russian, "
                                                  r"erudit\), the path of a \.klv2, \.klv or \.csv file, or none$"):
        load_leaves("englsh")
    with pytest.raises(LexiconFormatError, match="cannot read leave file"):  # a path stays a path
        load_leaves("./englsh")


def test_a_leave_file_loaded_again_unchanged_is_the_same_object(tmp_path):
    """A bot loading its leave file every game made a new Leaves each time, and the move
    generator's caches (keyed by the object) kept the last 16 alive with their tables."""
    import os

    path = tmp_path / "mine.csv"
    path.write_text("AE,3.5\nQ,-7\n", encoding="utf-8")
    first = load_leaves(path, "english")
    assert load_leaves(str(path), "english") is first
    assert load_leaves(path, "super") is not first  # another ruleset: read for it
    path.write_text("AE,4.5\nQ,-7\n", encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    second = load_leaves(path, "english")
    assert second is not first and second.value("AE") == 4.5 and first.value("AE") == 3.5


def test_load_leaves_of_a_ruleset_object_is_its_shipped_set():
    """The README's warm-up recipe, `load_leaves(ruleset)`, raised for a Ruleset (only its name worked)."""
    from racksmith import load_leaves
    from racksmith.errors import LexiconFormatError
    from racksmith.rules.ruleset import Ruleset, get_ruleset

    assert load_leaves(get_ruleset("english")) is load_leaves("english")
    assert load_leaves(get_ruleset("super"), "super") is load_leaves("super")
    d = get_ruleset("english").to_dict()
    d.pop("aliases")
    d.update(name="mine", title="mine")
    assert len(load_leaves(Ruleset.from_dict(d))) == 0  # a ruleset that ships none: every leave 0
    with pytest.raises(LexiconFormatError, match="got the ruleset english and ruleset=russian: give one of them"):
        load_leaves(get_ruleset("english"), "russian")
