"""Notes on the win% table and the leave values a simulation uses, wherever one runs (a match's sim
players, as ``sim`` says it), and win% tables whose chance falls as the spread rises refused."""
from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli as _cli
from racksmith.errors import WinPctError
from racksmith.sim.winpct import SHIPPED, WinPct, load_winpct, train_winpct

SIM = "sim:iterations=40,candidates=3,endgame=off"
POSITION = "15/15/15/15/15/15/15/7CAT5/15/15/15/15/15/15/15 EEIRSTU/ 30/0 0"
NO_LEAVES = "racksmith ships no leave values for clubeng"


@pytest.fixture
def clubeng(tmp_path) -> Path:
    """English under another name, with club end rules and a bingo bonus of 35: a ruleset file
    racksmith ships neither leaves nor a win% table for."""
    text = (resources.files("racksmith.rules") / "rulesets" / "english.toml").read_text(encoding="utf-8")
    text = re.sub(r'(?m)^name *=.*$', 'name = "clubeng"', text)
    text = re.sub(r'(?m)^end_rule *=.*$', 'end_rule = "club"', text)
    text = re.sub(r'(?m)^bingo_bonus *=.*$', 'bingo_bonus = 35', text)
    path = tmp_path / "clubeng.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def short(tmp_path) -> Path:
    """A table of 93 rows and no provenance, as MAGPIE's English winpct.csv."""
    path = tmp_path / "winpct.csv"
    WinPct(np.tile(np.linspace(0.0, 1.0, 21), (93, 1)), np.full(93, 100)).save(path)
    return path


# --- 1. a match's sim players: the note sim prints ------------------------------------------------
def test_match_notes_a_table_trained_for_another_ruleset(capsys):
    code, out, err = _cli(capsys, "match", "--p1", f"sim:winpct=english,{SIM[4:]}", "--p2", "equity", "-r", "super",
                          "-n", 2, "--seed", 1)
    assert code == 0, err
    notes = [ln for ln in err.splitlines() if ln.startswith("note: p1 (")]
    assert len(notes) == 1, err
    line = notes[0]
    assert "win% table english was trained for ruleset english, not super" in line
    assert "rows for 1 to 93 unseen tiles, and a game of super has up to 193" in line
    assert line.endswith("without winpct= in --p1 super's own table is used")
    assert "p2" not in err  # (equity uses no table)


def test_match_notes_a_short_table_with_json(capsys, short):
    code, out, err = _cli(capsys, "match", "--p1", "equity", "--p2", f"sim:winpct={short},{SIM[4:]}", "-r", "super",
                          "-n", 2, "--seed", 1, "--json")
    assert code == 0, err
    assert json.loads(out)["games"] == 2  # (stdout: the JSON alone)
    notes = [ln for ln in err.splitlines() if ln.startswith("note: ")]
    assert len(notes) == 1 and notes[0].startswith(f"note: p2 (sim:winpct={short},"), err
    assert "win% table winpct has rows for 1 to 93 unseen tiles, and a game of super has up to 193" in notes[0]


def test_match_notes_the_nearest_table_of_a_ruleset_file(capsys, clubeng):
    code, out, err = _cli(capsys, "match", "--p1", SIM, "--p2", SIM, "-r", clubeng, "-n", 2, "--seed", 1)
    assert code == 0, err
    assert NO_LEAVES in err  # (the note it gave already)
    for name in ("p1", "p2"):
        notes = [ln for ln in err.splitlines() if ln.startswith(f"note: {name} (")]
        assert len(notes) == 1, err
        assert "ruleset clubeng has no win% table of its own: its simulations use the english table" in notes[0]
        assert notes[0].endswith(f"with --{name} sim:candidates=3,endgame=off,iterations=40,winpct=FILE")


def test_match_says_nothing_of_a_table_of_the_ruleset(capsys):
    code, out, err = _cli(capsys, "match", "--p1", SIM, "--p2", f"sim:winpct=english,{SIM[4:]}", "-n", 2, "--seed", 1)
    assert code == 0, err
    assert "note" not in err


def test_match_leaves_a_bad_table_to_the_players_error(capsys, tmp_path):
    bad = tmp_path / "bad.winpct"
    bad.write_text("not a table\n", encoding="ascii")
    code, out, err = _cli(capsys, "match", "--p1", f"sim:winpct={bad}", "--p2", "equity", "-n", 2)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "not whole numbers" in err


# --- 2. sim and best on a ruleset without shipped leaves ------------------------------------------------
def test_sim_says_it_has_no_leave_values(capsys, clubeng):
    code, out, err = _cli(capsys, "sim", POSITION, "-r", clubeng, "-c", 2, "--iterations", 64, "--seed", 3)
    assert code == 0, err
    assert err.count(NO_LEAVES) == 1 and "give --leaves FILE" in err


def test_best_says_it_has_no_leave_values(capsys, clubeng):
    code, out, err = _cli(capsys, "best", POSITION, "-r", clubeng, "--seconds", 0.5, "--seed", 3, "--json")
    assert code == 0, err
    assert json.loads(out)["method"] == "sim"
    assert err.count(NO_LEAVES) == 1 and "give --leaves FILE" in err


def test_no_leave_note_with_leaves_given_or_shipped(capsys, clubeng):
    code, out, err = _cli(capsys, "sim", POSITION, "-r", clubeng, "-c", 2, "--iterations", 64, "--seed", 3,
                          "--leaves", "none")
    assert code == 0 and "leave values" not in err, err
    code, out, err = _cli(capsys, "best", POSITION, "--seconds", 0.5, "--seed", 3)
    assert code == 0 and "leave values" not in err, err


# --- 3. a table whose chance falls as the spread rises ---------------------------------------------------
def test_a_magpie_table_whose_row_falls_is_refused(capsys, tmp_path):
    text = "10 0 10 20\n10 20 10 0\n"
    with pytest.raises(WinPctError, match=r"line 2: with 2 unseen tiles the win chance falls from 100\.0% at spread -1 "
                                          r"to 0\.0% at \+1.*the spread columns may be reversed"):
        WinPct.parse(text, "w")
    path = tmp_path / "decreasing.wp"
    path.write_text("10 20 10 0\n", encoding="ascii")
    code, out, err = _cli(capsys, "winpct", "show", path, "-u", 1, "-s", -1, "-s", 0, "-s", 1)
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "decreasing.wp" in err and "line 1" in err and "may be reversed" in err
    code, out, err = _cli(capsys, "sim", POSITION, "-i", 10, "--winpct", path)
    assert code == 1 and "may be reversed" in err


def test_a_macondo_table_whose_column_falls_is_refused():
    text = ",0,1,2\n1,0,1.0,0.1\n0,0,0.5,0.5\n-1,0,0.0,0.9\n"
    with pytest.raises(WinPctError, match=r"Macondo.*column 3 \(unseen 2\): with 2 unseen tiles the win chance falls "
                                          r"from 90\.0% at spread -1 to 10\.0% at \+1.*may be reversed"):
        WinPct.parse(text, "w")


def test_noise_and_flat_rows_are_not_refused():
    # dips inside a row, as a table of few games may have, and rows that do not move at all
    wp = WinPct.parse("10 0 6 4 12 20\n10 7 7 7 7 7\n4 4 4 4 4 4\n")
    assert wp.get(-1, 1) == 0.3 and wp.get(0, 1) == 0.2 and wp.get(1, 3) == 0.5
    assert WinPct.parse(",0,1\n1,0,0.4\n0,0,0.6\n-1,0,0.3\n").get(0, 1) == 0.6
    assert WinPct.parse("4 3\n").get(0, 1) == 0.375  # (one spread: nothing to rise)


def test_trained_and_shipped_tables_load(tmp_path, capsys):
    wp, _ = train_winpct("english", 10, leaves="english", seed=2)
    wp.save(tmp_path / "few.winpct")
    assert WinPct.load(tmp_path / "few.winpct").max_unseen == 93
    code, out, err = _cli(capsys, "winpct", "train", "-n", 50, "--seed", 5, "-o", tmp_path / "t50.winpct")
    assert code == 0, err
    assert load_winpct(str(tmp_path / "t50.winpct")).max_unseen == 93
    base = resources.files("racksmith.sim") / "data"
    for name in SHIPPED:  # (read again, not from the cache of tables read before this check was made)
        table = WinPct.parse((base / f"{name}.winpct").read_text(encoding="ascii"), name).table
        assert (table[:, -1] >= table[:, 0]).all()


def test_analyze_of_a_ruleset_without_shipped_leaves_says_so(tmp_path, capsys, clubeng):
    """analyze graded by equity without leave values, silently, where moves, sim, best and match say it."""
    from racksmith import Game, Ruleset

    game = Game(Ruleset.load(clubeng), seed=4)
    for _ in range(3):
        game.play(game.position.moves(top=1)[0])
    path = tmp_path / "club.gcg"
    path.write_text(game.gcg(), encoding="utf-8")
    code, out, err = _cli(capsys, "analyze", path, "--ruleset", clubeng, "--endgame-seconds", 0)
    assert code == 0, err
    assert err.count("ships no leave values for clubeng") == 1
    code, out, err = _cli(capsys, "analyze", path, "--ruleset", clubeng, "--leaves", "none", "--endgame-seconds", 0)
    assert code == 0 and "ships no leave values" not in err


def test_analyze_of_a_folder_of_such_records_says_so_once(tmp_path, capsys, clubeng):
    from racksmith import Game, Ruleset

    folder = tmp_path / "club"
    folder.mkdir()
    for seed in (1, 2):
        game = Game(Ruleset.load(clubeng), seed=seed)
        for _ in range(2):
            game.play(game.position.moves(top=1)[0])
        (folder / f"g{seed}.gcg").write_text(game.gcg(), encoding="utf-8")
    code, out, err = _cli(capsys, "analyze", folder, "--ruleset", clubeng, "--endgame-seconds", 0)
    assert code == 0, err
    assert err.count("ships no leave values for clubeng") == 1
