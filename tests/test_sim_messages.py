"""What the simulation's commands say and keep: a candidate that is not legal with the reason
validate gives, `winpct show` with a spread given twice, `sim --round-robin`, and the win% tables
kept with the other files read (forgotten by clear_caches)."""
from __future__ import annotations

import json

import pytest

import racksmith
from racksmith import Position
from racksmith._cache import FILES_KEPT
from racksmith.cli.main import main
from racksmith.core.validation import validate
from racksmith.errors import SimError
from racksmith.sim.simulate import candidate_moves
from racksmith.sim.winpct import WinPct, load_winpct

OPENING = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEGKM??/ 0/0 0"
MID = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/ 28/18 0"
MAGPIE_STYLE = "4 0 1 4 7 8\n0 0 0 0 0 0\n10 0 2 10 18 20\n"


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# --- a candidate that is not legal: why ----------------------------------------------------------
@pytest.mark.parametrize("move,why", [
    ("8E MAKES", "8E MAKES (not_in_rack: the play needs S that the rack AEGKM?? does not hold)"),
    ("-XYZ", "-XYZ (not_in_rack: the exchange needs XYZ that the rack AEGKM?? does not hold)"),
    ("8e make", "8E make (not_in_rack: the play needs ??"),
    ("8D MAKE", "8D MAKE (must_cover_start: the first play must cover the start square 8H)"),
])
def test_a_candidate_not_legal_is_refused_with_the_reason_validate_gives(move, why):
    pos = Position.from_cgp(OPENING)
    verdict = validate(pos, move)
    with pytest.raises(SimError) as caught:
        pos.simulate(moves=[move], iterations=10, seed=1)
    assert str(caught.value).startswith("not legal for the player to move here: " + why)
    assert str(caught.value).endswith(f"({verdict.reason}: {verdict.message})")
    with pytest.raises(SimError, match="not legal for the player to move here: "):
        candidate_moves(pos, [move])


def test_several_candidates_not_legal_each_have_their_reason():
    with pytest.raises(SimError) as caught:
        Position.from_cgp(OPENING).simulate(moves=["8H MAKE", "8E MAKES", "-XYZ"], iterations=10, seed=1)
    assert str(caught.value) == (
        "not legal for the player to move here: "
        "8E MAKES (not_in_rack: the play needs S that the rack AEGKM?? does not hold); "
        "-XYZ (not_in_rack: the exchange needs XYZ that the rack AEGKM?? does not hold)")


def test_a_phony_candidate_names_its_words():
    with pytest.raises(SimError, match=r"3J EVOKA \(invalid_words: not in the lexicon: EVOKA\)$"):
        Position.from_cgp(MID).simulate(moves=["3J EVOKA"], iterations=10, seed=1)


def test_the_command_line_says_why_on_one_line(capsys):
    code, out, err = cli(capsys, "sim", OPENING, "-i", 10, "--move", "8E MAKES", "--move", "-XYZ")
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "8E MAKES (not_in_rack: the play needs S that the rack AEGKM?? does not hold)" in err
    assert "-XYZ (not_in_rack: the exchange needs XYZ" in err


# --- sim --round-robin -----------------------------------------------------------------------------
def test_round_robin_gives_every_candidate_the_same_play_outs(capsys):
    code, out, err = cli(capsys, "sim", MID, "-c", 3, "-i", 90, "--seed", 4, "--round-robin", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["iterations"] == 90 and d["stopped"] == "iterations"
    assert [c["iterations"] for c in d["candidates"]] == [30, 30, 30]
    api = Position.from_cgp(MID).simulate(candidates=3, iterations=90, seed=4, stop=None, round_robin=True)
    assert d["candidates"] == api.to_dict()["candidates"]


def test_round_robin_with_moves_given_and_a_stop_given(capsys):
    code, out, err = cli(capsys, "sim", MID, "-i", 60, "--seed", 2, "--round-robin", "--json",
                         "-m", "3J EVOKE", "-m", "-AEK")
    assert code == 0, err
    assert [c["iterations"] for c in json.loads(out)["candidates"]] == [30, 30]
    # --stop given: the confidence stop as asked (the counts still within one of each other)
    code, out, err = cli(capsys, "sim", MID, "-c", 3, "-i", 3000, "--seed", 2, "--round-robin", "--stop", "0.6",
                         "--json")
    counts = [c["iterations"] for c in json.loads(out)["candidates"]]
    assert code == 0 and max(counts) - min(counts) <= 1


# --- winpct show: a spread given twice --------------------------------------------------------------
def test_winpct_show_merges_a_spread_given_twice(capsys):
    args = ["winpct", "show", "english", "--spread", 0, "--spread", 0, "--spread", 30, "--unseen", 14]
    code, out, err = cli(capsys, *args, "--json")
    assert code == 0, err
    values = json.loads(out)["rows"]["14"]
    assert list(values) == ["0", "30"]
    code, out, err = cli(capsys, *args, "--unseen", 14)
    assert code == 0, err
    header = next(line for line in out.splitlines() if "unseen" in line and "+0" in line)
    assert header.split() == ["┃", "unseen", "┃", "+0", "┃", "+30", "┃"]
    row = next(line for line in out.splitlines() if line.strip("│ ").startswith("14 "))
    assert [c.strip() for c in row.strip("│").split("│")] == ["14", *(f"{100 * v:.1f}" for v in values.values())]
    assert sum(line.strip("│ ").startswith("14 ") for line in out.splitlines()) == 1  # (one row: merged too)


# --- win% tables kept as the other files read, and forgotten by clear_caches --------------------------
def _tables(tmp_path, n):
    paths = []
    for i in range(n):
        path = tmp_path / f"t{i}.winpct"
        WinPct.parse(MAGPIE_STYLE, name=f"t{i}").save(path)
        paths.append(path)
    return paths


def test_clear_caches_forgets_win_pct_tables(tmp_path):
    path = _tables(tmp_path, 1)[0]
    first, shipped = load_winpct(path), load_winpct("english")
    assert load_winpct(path) is first and load_winpct("english") is shipped
    racksmith.clear_caches()
    again = load_winpct(path)
    assert again is not first and load_winpct("english") is not shipped
    assert load_winpct(path) is again


def test_win_pct_tables_kept_are_the_last_used(tmp_path):
    paths = _tables(tmp_path, FILES_KEPT + 4)
    racksmith.clear_caches()
    often = load_winpct(paths[0])
    once = load_winpct(paths[1])
    for p in paths[2:]:  # (more files than are kept, the first asked for between each)
        load_winpct(p)
        assert load_winpct(paths[0]) is often
    assert load_winpct(paths[1]) is not once  # (the least recently used: out)


def test_the_table_says_when_the_opponent_s_rack_is_taken_as_known(capsys):
    board = "15/15/15/15/15/15/15/6QUAD5/15/15/15/15/15/15/15"
    assert main(["sim", f"{board} AEINRST/EINTXYZ 28/0 0", "-c", "2", "-i", "20", "--seed", "1"]) == 0
    assert "the opponent's rack EINTXYZ taken as known" in capsys.readouterr().out
    assert main(["sim", f"{board} AEINRST/ 28/0 0", "-c", "2", "-i", "20", "--seed", "1"]) == 0
    assert "taken as known" not in capsys.readouterr().out


def test_with_the_bag_empty_the_opponent_s_rack_left_out_is_said_certain(capsys):
    board = ("W1C3PEA6/ETA2VERB3Q2/BEN1JO6U2/1I1ZAX5GO2/LI2V5RET2/AD1RED4ETH2/T1GALE1RILL4/IF1WINDY2I4/"
             "NU2N1EAU1g4/ODONATES2I4/4SAT3OM3/10NU3/11R3/5COY3K3/7ARIOSE2")
    assert main(["sim", f"{board} EGHIMOP/ 409/310 0", "-i", "50", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "the opponent's rack ?FS: the unseen tiles, certain with the bag empty" in out
    assert "taken as known" not in out and "to draw it" not in out


@pytest.mark.parametrize("value", ["1", "100", "0.4", "40", "nan"])
def test_a_stop_confidence_out_of_range_says_the_range_and_the_percentage_form(capsys, value):
    code, out, err = cli(capsys, "sim", MID, "--stop", value)
    assert code == 2 and "at least 0.5 and below 1" in err and "percentage 99" in err


def test_a_stop_confidence_as_a_percentage_is_that_fraction(capsys):
    from racksmith.cli.sim_cmds import _stop_option

    assert _stop_option("99") == pytest.approx(0.99) and _stop_option("0.95") == 0.95 and _stop_option("none") is None
