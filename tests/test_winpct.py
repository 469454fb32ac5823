"""Win% tables: MAGPIE's format read and written, lookups, training tallies, the shipped tables."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from racksmith.errors import WinPctError
from racksmith.rules.ruleset import get_ruleset
from racksmith.sim.winpct import SHIPPED, MAX_SWING, SwingTally, WinPct, load_winpct, table_from_tally, train_winpct

MAGPIE_STYLE = "4 0 1 4 7 8\n0 0 0 0 0 0\n10 0 2 10 18 20\n"


def test_parse_magpie_format():
    wp = WinPct.parse(MAGPIE_STYLE)
    assert wp.max_spread == 2 and wp.max_unseen == 3
    assert wp.get(0, 1) == 0.5 and wp.get(-2, 1) == 0.0 and wp.get(2, 1) == 1.0
    assert wp.get(1, 2) == wp.get(1, 1) == 7 / 8  # a row without games copies the one before
    assert wp.get(-1, 3) == 0.1
    assert wp.get(100, 3) == 1.0 and wp.get(-100, 3) == 0.0  # clamped
    assert wp.get(0.4, 3) == 0.5 and wp.get(0.6, 3) == 0.9 and wp.get(-0.6, 3) == 0.1  # rounded
    # a half up, as the simulation's kernel reads the table (it read -0.5 as -1 here, the kernel as 0)
    assert wp.get(-0.5, 3) == 0.5 and wp.get(0.5, 3) == 0.9 and wp.get(-1.5, 3) == 0.1
    assert wp.get(5, 99) == wp.get(5, 3)  # beyond the last row: the last row
    assert wp.get(3, 0) == 1.0 and wp.get(0, 0) == 0.5 and wp.get(-3, 0) == 0.0  # game over


@pytest.mark.parametrize("text", ["", "4 0 1 4 7\n", "4 0 1 4 7 8\n4 0 1\n", "0 0 0 0 0 0\n", "4 0 1 x 7 8\n",
                                  "4 0 1 4 7 9\n", "-4 0 1 4 7 8\n"])
def test_parse_refuses_bad_tables(text):
    with pytest.raises(WinPctError):
        WinPct.parse(text)


def test_get_refuses_bad_arguments():
    wp = WinPct.parse(MAGPIE_STYLE)
    for bad in [(0, -1), (0, 1.5), (float("nan"), 3), ("x", 3), (0, True)]:
        with pytest.raises(WinPctError):
            wp.get(*bad)


def test_round_trip(tmp_path):
    wp = WinPct.parse(MAGPIE_STYLE, provenance={"games": 3})
    wp2 = WinPct.parse(wp.text())
    assert np.allclose(wp.table, wp2.table)
    wp.save(tmp_path / "t.winpct")
    back = WinPct.load(tmp_path / "t.winpct")
    assert np.allclose(back.table, wp.table) and back.provenance == {"games": 3}
    assert load_winpct(str(tmp_path / "t.winpct")).max_spread == 2


def test_table_from_tally_is_the_swing_cdf():
    t = SwingTally.empty(2)
    # unseen 1: swings -10 (twice), 0, +20; unseen 2: swing 5
    for d in (-10, -10, 0, 20):
        t.counts[0, d + MAX_SWING] += 1
    t.counts[1, 5 + MAX_SWING] += 1
    table, obs = table_from_tally(t, max_spread=30, min_row=1, smooth=0)
    row = table[0]
    at = lambda x: row[x + 30]  # noqa: E731
    assert at(0) == pytest.approx((1 + 0.5) / 4)  # wins when x + d > 0: d = 20; draw d = 0
    assert at(10) == pytest.approx((1 + 1 + 1) / 4 + 0.0 * 0.5 + 0.5 * 0)  # d=-10 draws twice: 0.5*2/4 + 2/4
    assert at(11) == 1.0 and at(-21) == 0.0 and at(-20) == pytest.approx(0.125)
    assert table[1][-5 + 30] == 0.5 and obs.tolist() == [4, 1]
    assert (np.diff(table, axis=1) >= 0).all()
    # pooling: rows with fewer observations than min_row borrow from their neighbours
    pooled, obs = table_from_tally(t, max_spread=30, min_row=5, smooth=2.0)
    assert obs.tolist() == [5, 5]
    assert (np.diff(pooled, axis=1) >= -1e-12).all()


def test_training_is_reproducible_and_tallies_are_integers():
    wp1, t1 = train_winpct("english", 3, seed=4)
    wp2, t2 = train_winpct("english", 3, seed=4, jobs=2)
    assert t1.counts.dtype == np.int64 and (t1.counts == t2.counts).all()
    assert np.array_equal(wp1.table, wp2.table)
    assert t1.counts.sum() == wp1.provenance["positions"] > 30
    with pytest.raises(WinPctError):
        train_winpct("english", 0)
    with pytest.raises(WinPctError, match="games must be a whole number from 1 to 10,000,000"):
        train_winpct("english", 2**70)


@pytest.mark.parametrize("ruleset,leaves", [
    ("english", str(Path(__file__).parent / "fixtures" / "SYNTH.klv2")), ("russian", None), ("erudit", None), ("super", None),
])
def test_the_kernel_tallies_the_swings_of_the_same_games_as_game(ruleset, leaves, monkeypatch):
    # the games in the kernel's game loop, their swings read off its turn rows, against the same
    # games through Game: the same counts, cell by cell (Эрудит: with stars taken back)
    from racksmith.sim import winpct

    def refused(*args):
        raise AssertionError("the other engine ran")

    games = 2 if ruleset == "super" else 4
    with monkeypatch.context() as m:  # each run through its own engine only (else the two tallies are one)
        m.setattr(winpct, "_python_swings", refused)
        _, kernel = train_winpct(ruleset, games, leaves=leaves, seed=6)
    with monkeypatch.context() as m:
        m.setattr(winpct, "_kernel_tables", refused)
        m.setattr(winpct, "_kernel_swings", refused)
        _, python = train_winpct(ruleset, games, leaves=leaves, seed=6, engine="python")
    assert kernel.counts.sum() > 20 * games and (kernel.counts == python.counts).all()
    with pytest.raises(WinPctError, match="engine"):
        train_winpct(ruleset, 1, engine="fast")


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_tables(name):
    rs = get_ruleset(name)
    wp = load_winpct(name)
    assert wp.max_unseen == rs.total_tiles - rs.rack_size
    assert wp.max_spread == 500
    assert (np.diff(wp.table, axis=1) >= -1e-9).all()  # monotone in spread
    assert wp.get(-500, 50) < 0.01 and wp.get(500, 50) > 0.99
    assert 0.45 <= wp.get(0, wp.max_unseen) <= 0.65  # the opening: near even
    prov = wp.provenance
    assert prov["ruleset"] == name and prov["games"] >= 8000 and prov["command"].startswith("racksmith winpct train")
    assert load_winpct(rs) is wp


def test_load_errors():
    with pytest.raises(WinPctError):
        load_winpct("klingon")
    with pytest.raises(WinPctError):
        load_winpct(42)


@pytest.mark.parametrize("sidecar, message", [
    ("[" * 100000, "nested too deeply"),  # was RecursionError
    ("[1, 2, 3]", "must hold a JSON object"),  # was TypeError
    ("null", "must hold a JSON object"),
    ("{bad", "is not valid JSON"),  # was a JSONDecodeError that named no file
])
def test_a_bad_provenance_sidecar_is_a_winpct_error_naming_it(tmp_path, sidecar, message):
    WinPct.parse(MAGPIE_STYLE).save(tmp_path / "t.winpct")
    (tmp_path / "t.winpct.json").write_text(sidecar, encoding="utf-8")
    with pytest.raises(WinPctError, match=message) as e:
        WinPct.load(tmp_path / "t.winpct")
    assert str(tmp_path / "t.winpct.json") in str(e.value)


@pytest.mark.parametrize("text", ["4 0 1 " + "1" + "0" * 400 + " 7 8\n", "1" + "0" * 400 + " 0 1 4 7 8\n"])
def test_parse_refuses_numbers_too_large(text, tmp_path):
    with pytest.raises(WinPctError, match="line 1"):  # was OverflowError
        WinPct.parse(text)
    (tmp_path / "t.winpct").write_text(text, encoding="ascii")
    with pytest.raises(WinPctError, match=re.escape(f"cannot read win% table '{tmp_path / 't.winpct'}': ") + ".*line 1"):
        WinPct.load(tmp_path / "t.winpct")


def test_get_clamps_huge_whole_spreads_and_unseen_counts():
    wp = load_winpct("english")
    assert wp.get(10**400, 5) == wp.get(wp.max_spread, 5)  # was OverflowError
    assert wp.get(-(10**400), 5) == wp.get(-wp.max_spread, 5)
    assert wp.get(10**400, 0) == 1.0 and wp.get(-(10**400), 0) == 0.0
    assert wp.get(3, 10**400) == wp.get(3, wp.max_unseen)


def test_save_writes_atomically_and_a_bad_path_is_an_output_error(tmp_path, monkeypatch):
    import racksmith.sim.winpct as winpct_module
    from racksmith.errors import OutputFileError

    wp = WinPct.parse(MAGPIE_STYLE, provenance={"games": 3})
    for bad in (tmp_path, tmp_path / "missing" / "t.winpct"):  # were IsADirectoryError, FileNotFoundError
        with pytest.raises(OutputFileError, match="cannot write"):
            wp.save(bad)
    assert list(tmp_path.iterdir()) == []
    written = []
    real = winpct_module.write_atomically
    monkeypatch.setattr(winpct_module, "write_atomically", lambda path, data: written.append(path) or real(path, data))
    wp.save(str(tmp_path / "t.winpct"))
    assert written == [tmp_path / "t.winpct", tmp_path / "t.winpct.json"]  # the table, then its sidecar
    assert WinPct.load(tmp_path / "t.winpct").provenance == {"games": 3}


# --- the provenance sidecar: OUTPUT.json, never a file that could be the table ---------------------
def _cli(capsys, *args):
    from racksmith.cli.main import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.parametrize("name", ["x.json", "x.winpct", "x"])
def test_save_puts_the_provenance_beside_the_whole_file_name(tmp_path, name):
    # the sidecar's path once replaced the suffix: saving to x.json wrote the table, then the
    # provenance over it
    wp = WinPct.parse(MAGPIE_STYLE, provenance={"games": 3})
    wp.save(tmp_path / name)
    assert (tmp_path / name).read_text(encoding="ascii") == wp.text()
    assert json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8")) == {"games": 3}
    back = WinPct.load(tmp_path / name)
    assert np.array_equal(back.table, wp.table) and np.array_equal(back.observations, wp.observations)
    assert back.provenance == {"games": 3}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, f"{name}.json"])


@pytest.mark.parametrize("name", ["w.json", "w.winpct", "w"])
def test_winpct_train_keeps_the_table_whatever_its_name(capsys, tmp_path, name):
    code, out, err = _cli(capsys, "winpct", "train", "--ruleset", "english", "--games", 2, "--seed", 1,
                          "-o", tmp_path / name)
    assert code == 0, err
    assert err == ""  # no blank line left on stderr by the progress display
    expected, _ = train_winpct("english", 2, seed=1, leaves="english")  # the players the command plays
    back = load_winpct(str(tmp_path / name))
    assert (tmp_path / name).read_text(encoding="ascii") == expected.text() == back.text()  # the table, whole
    prov = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))
    assert prov["games"] == 2 and prov["seed"] == 1 and back.provenance == prov
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, f"{name}.json"])


def test_an_old_style_sidecar_is_read_but_never_written(tmp_path):
    wp = WinPct.parse(MAGPIE_STYLE)
    wp.save(tmp_path / "t.winpct")
    (tmp_path / "t.json").write_text('{"games": 1}', encoding="utf-8")  # what an older racksmith wrote
    assert WinPct.load(tmp_path / "t.winpct").provenance == {"games": 1}
    WinPct.parse(MAGPIE_STYLE, provenance={"games": 2}).save(tmp_path / "t.winpct")
    assert (tmp_path / "t.json").read_text(encoding="utf-8") == '{"games": 1}'  # left as it was
    assert WinPct.load(tmp_path / "t.winpct").provenance == {"games": 2}  # the new one wins


def test_a_table_named_like_an_old_style_sidecar_is_not_its_provenance(tmp_path):
    # x.json is a table of its own now: it does not stop x.winpct (without x.winpct.json) loading
    WinPct.parse(MAGPIE_STYLE, provenance={"games": 5}).save(tmp_path / "x.json")
    WinPct.parse(MAGPIE_STYLE).save(tmp_path / "x.winpct")
    assert WinPct.load(tmp_path / "x.winpct").provenance == {}
    assert WinPct.load(tmp_path / "x.json").provenance == {"games": 5}


def test_a_binary_file_is_not_a_win_pct_table(capsys, tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"4\xde\xad\xbe\xef 0 1")
    with pytest.raises(WinPctError, match=re.escape(f"{str(junk)!r} is not a win% table") + ".*text"):
        WinPct.load(junk)
    code, out, err = _cli(capsys, "winpct", "show", junk)
    assert code == 1 and out == "" and len(err.splitlines()) == 1
    assert "junk.bin" in err and "is not a win% table" in err and "codec" not in err


@pytest.mark.parametrize("table, unseen, most", [("russian", 200, 97), ("russian", 98, 97), ("english", 94, 93),
                                                  ("english", 0, None), ("russian", -1, None)])
def test_winpct_show_refuses_unseen_counts_the_table_has_no_row_for(capsys, table, unseen, most):
    code, out, err = _cli(capsys, "winpct", "show", table, "--unseen", 7, "--unseen", unseen)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "--unseen" in err
    if most is not None:
        assert f"rows for 1 to {most} unseen tiles" in err
    code, out, err = _cli(capsys, "winpct", "show", table, "--unseen", 1, "--unseen", load_winpct(table).max_unseen,
                          "--json")
    assert code == 0 and set(json.loads(out)["rows"]) == {"1", str(load_winpct(table).max_unseen)}


def test_winpct_show_bounds_the_unseen_counts_of_a_table_file(capsys, tmp_path):
    WinPct.parse(MAGPIE_STYLE).save(tmp_path / "t.winpct")  # 3 rows
    code, out, err = _cli(capsys, "winpct", "show", tmp_path / "t.winpct", "--unseen", 3, "--spread", 0, "--json")
    assert code == 0 and json.loads(out)["rows"] == {"3": {"0": 0.5}}
    code, out, err = _cli(capsys, "winpct", "show", tmp_path / "t.winpct", "--unseen", 4)
    assert code == 2 and "rows for 1 to 3 unseen tiles" in err and len(err.splitlines()) == 1


def test_winpct_train_refuses_tallies_written_over_the_table(capsys, tmp_path):
    code, out, err = _cli(capsys, "winpct", "train", "--games", 2, "-o", tmp_path / "x.npy", "--tallies", tmp_path / "x")
    assert code == 2 and "would overwrite the table" in err and list(tmp_path.iterdir()) == []


def test_a_table_file_is_read_again_when_rewritten_or_named_from_another_folder(tmp_path, monkeypatch):
    """load_winpct cached a file by the text of its path: a table retrained in place was never read
    again, and a relative path after chdir gave the other folder's table."""
    import os

    path = tmp_path / "t.winpct"
    load_winpct("russian").save(path)
    assert load_winpct(path).get(30, 40) == load_winpct("russian").get(30, 40)
    load_winpct("english").save(path)
    os.utime(path, ns=(1, 1))  # whatever the clock's resolution, the file is seen as changed
    assert load_winpct(path).get(30, 40) == load_winpct("english").get(30, 40)
    assert load_winpct("russian").get(30, 40) != load_winpct("english").get(30, 40)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    load_winpct("russian").save(tmp_path / "a" / "t.winpct")
    load_winpct("english").save(tmp_path / "b" / "t.winpct")
    monkeypatch.chdir(tmp_path / "a")
    first = load_winpct("t.winpct")
    monkeypatch.chdir(tmp_path / "b")
    second = load_winpct("t.winpct")
    assert first.get(30, 40) == load_winpct("russian").get(30, 40)
    assert second.get(30, 40) == load_winpct("english").get(30, 40)


@pytest.mark.parametrize("text, message", [
    (None, r"^the text of a win% table is a str, got NoneType None$"),
    (b"1 1 2 0\n", r"^the text of a win% table is a str, got bytes .*: decode a file's bytes \(ASCII\) first, or read "
                   r"the file with WinPct.load$"),
    (7, r"^the text of a win% table is a str, got int 7$"),
])
def test_parse_names_text_that_is_not_a_str(text, message):
    with pytest.raises(WinPctError, match=message):
        WinPct.parse(text)


@pytest.mark.parametrize("table, observations, message", [
    (np.zeros((0, 0)), np.zeros(0, np.int64), r"a 2-D array: a row per unseen count \(at least one\).* got shape \(0, 0\)"),
    (np.zeros((2, 2)), np.zeros(2, np.int64), r"an odd number of columns .* got shape \(2, 2\)"),
    (np.zeros(3), np.zeros(1, np.int64), r"got shape \(3,\)"),
    ("abc", np.zeros(1, np.int64), r"an array of win chances, got str 'abc'"),
    (np.full((1, 3), 1.5), np.ones(1, np.int64), r"win chances: numbers from 0 to 1"),
    (np.full((1, 3), np.nan), np.ones(1, np.int64), r"win chances: numbers from 0 to 1"),
    (np.zeros((2, 3)), np.zeros(3, np.int64), r"observations are whole numbers, one per row of the table \(2\)"),
    (np.zeros((2, 3)), np.zeros(2), r"observations are whole numbers, one per row"),
    (np.zeros((1, 3)), -np.ones(1, np.int64), r"observations are whole numbers from 0 to"),
])
def test_the_constructor_checks_its_arrays(table, observations, message):
    with pytest.raises(WinPctError, match=message):
        WinPct(table, observations)


def test_the_constructor_keeps_float64_and_int64_arrays():
    wp = WinPct([[0.25, 0.5, 0.75]], [4])
    assert wp.table.dtype == np.float64 and wp.observations.dtype == np.int64
    assert wp.get(1, 3) == 0.75 and np.array_equal(WinPct.parse(wp.text()).table, wp.table)


@pytest.mark.parametrize("alias, name", [("эрудит", "erudit"), ("ЭРУДИТ", "erudit"), ("скрэббл", "russian"),
                                         (" Scrabble ", "english"), ("super21", "super")])
def test_a_ruleset_alias_names_its_shipped_table(alias, name, capsys):
    from racksmith.cli.main import main

    assert load_winpct(alias) is load_winpct(name)
    assert main(["winpct", "show", alias]) == 0
    assert f"win% ({name})" in capsys.readouterr().out


def test_save_to_a_path_too_long_is_an_output_error():
    from racksmith.errors import OutputFileError

    for path in ("A" * 300, "/tmp/" + "/".join(["d"] * 3000)):
        with pytest.raises(OutputFileError, match=r"^cannot write '(A|/tmp/d/d)"):
            load_winpct("english").save(path)


def test_winpct_train_names_the_tallies_file_numpy_writes(capsys, tmp_path):
    """numpy.save adds .npy: the summary names the file written, not the name given."""
    code, out, err = _cli(capsys, "winpct", "train", "--games", 2, "--leaves", "none", "-o", tmp_path / "w.winpct",
                          "--tallies", tmp_path / "t.bin")
    assert code == 0 and (tmp_path / "t.bin.npy").is_file() and not (tmp_path / "t.bin").exists()
    assert f"{tmp_path / 't.bin.npy'}: the counts it was made from" in out.splitlines()


def test_winpct_show_says_how_the_table_was_trained(capsys):
    """The text output showed no provenance (only --json did): now one line, with the leaves'
    sha256, as a set's name has meant different tables over time."""
    code, out, _ = _cli(capsys, "winpct", "show", "english")
    last = out.splitlines()[-1]
    assert code == 0 and last.startswith("trained: 200,000 games, seed 8101, leaves english.klv2 (sha256 65baaf4eaae2...); ")
    assert last.endswith("-o english.winpct --tallies english.npy")


def test_winpct_show_of_a_table_without_provenance_adds_no_line(capsys, tmp_path):
    table = tmp_path / "bare.winpct"
    table.write_text(load_winpct("english").text(), encoding="utf-8")
    code, out, _ = _cli(capsys, "winpct", "show", str(table))
    assert code == 0 and out.rstrip().endswith("┘")
