"""A file trained for another ruleset, used under this one, is used and told about: a win% table
trained for another ruleset (a simulation's note names both, and the unseen tiles the table covers
when a game of this ruleset has more), a leave file trained for a ruleset of the same letters but
another rack size (a note on logger racksmith.lexicon, on stderr from the command line), and
``winpct train`` on a ruleset that ships no leaves (the note ``match`` gives, and a provenance
whose players are not said to add leave values)."""
from __future__ import annotations

import hashlib
import json
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from racksmith import Position, Ruleset, get_ruleset
from racksmith.cli.main import main
from racksmith.errors import LexiconFormatError
from racksmith.lexicon import Leaves, load_leaves
from racksmith.rules.ruleset import provenance_fields
from racksmith.sim.winpct import WinPct, borrowed_note, load_winpct

ENGLISH = get_ruleset("english")
OPENING = f"{'/'.join(['15'] * 15)} AEINRST/ 0/0 0"

#: a small game: five letters on a 5x5 board, racks of 3
TINY_TOML = """\
name = "{name}"
rack_size = {rack}
bingo_bonus = 5
start = "3C"
board = [".....", ".'.'.", "..-..", ".'.'.", "....."]
tiles = [["A", 8, 1], ["Ą", 2, 5], ["B", 4, 3], ["E", 8, 1], ["Ł", 2, 3]]
lexicon = "words.txt"
"""
TINY_WORDS = ["AB", "BA", "BE", "EA", "ABE", "BAA", "BEE", "BĄ", "ŁA", "ŁEB", "BĄE", "AŁA"]


def tiny(folder: Path, name: str = "tinypl", rack: int = 3) -> Path:
    (folder / "words.txt").write_text("\n".join(TINY_WORDS) + "\n", encoding="utf-8")
    path = folder / f"{name}.toml"
    path.write_text(TINY_TOML.format(name=name, rack=rack), encoding="utf-8")
    return path


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# --- 1. a win% table trained for another ruleset ----------------------------------------------------------
def _table(folder: Path, name: str, made_for: "Ruleset | None", rows: int = 3) -> Path:
    """A table of ``rows`` rows (unseen 1..rows) whose every spread is an even chance, with the
    provenance ``winpct train`` writes for ``made_for`` (None: no provenance, as a Macondo table has)."""
    path = folder / f"{name}.winpct"
    prov = {**provenance_fields(made_for), "players": "..."} if made_for is not None else {}
    WinPct(np.full((rows, 5), 0.5), np.full(rows, 10), name, prov).save(path)
    return path


def test_a_table_trained_for_another_ruleset_is_noted(tmp_path):
    club = Ruleset.load(tiny(tmp_path))
    table = _table(tmp_path, "club", club)
    line = borrowed_note(ENGLISH, str(table))
    assert line.startswith("win% table club was trained for ruleset tinypl, not english, the ruleset in use")
    assert ": it has rows for 1 to 3 unseen tiles, and a game of english has up to 93 (more are read as 3)" in line
    assert "without --winpct (winpct= in Python) english's own table is used" in line
    assert borrowed_note(ENGLISH, load_winpct(table)) == line  # (a table read already: the same)
    # a shipped ruleset's table under another shipped ruleset: named, and the tiles it covers
    line = borrowed_note(get_ruleset("super"), "english")
    assert "win% table english was trained for ruleset english, not super" in line
    assert "rows for 1 to 93 unseen tiles, and a game of super has up to 193 (more are read as 93)" in line
    # a ruleset file in use: how to train one for it
    assert "give one trained for tinypl ('racksmith winpct train --ruleset FILE') with --winpct FILE" in borrowed_note(club, "english")
    assert "rows for" not in borrowed_note(club, "english")  # (3 unseen tiles at most: 93 rows cover them)


def test_a_table_of_this_ruleset_or_of_none_says_nothing(tmp_path):
    assert borrowed_note(ENGLISH, "english") is None and borrowed_note(get_ruleset("super"), "super") is None
    assert borrowed_note(ENGLISH, str(_table(tmp_path, "plain", None, 93))) is None  # (no provenance: who knows)
    assert borrowed_note(ENGLISH, str(_table(tmp_path, "mine", ENGLISH, 93))) is None
    # English's game under another name is English's game
    own = tmp_path / "own.json"
    own.write_text(json.dumps({**ENGLISH.to_dict(), "name": "own", "aliases": []}), encoding="utf-8")
    assert borrowed_note(get_ruleset(str(own)), "english") is None


def test_sim_and_simulate_say_it_once(tmp_path, capsys):
    table = _table(tmp_path, "club", Ruleset.load(tiny(tmp_path)))
    code, out, err = run(capsys, "sim", OPENING, "-i", 20, "-c", 2, "--seed", 1, "--winpct", table, "--json")
    assert code == 0, err
    note = json.loads(out)["note"]
    assert "win% table club was trained for ruleset tinypl, not english" in note and "more are read as 3" in note
    assert err.count("note: win% table club was trained for ruleset tinypl") == 1
    # the Python API: the result's note, as for a ruleset with no table of its own
    r = Position.from_cgp(OPENING, ENGLISH).simulate(candidates=2, iterations=20, seed=1, winpct=str(table))
    assert r.note.count("was trained for ruleset tinypl, not english") == 1
    # a table of English's own: nothing to say
    code, out, err = run(capsys, "sim", OPENING, "-i", 20, "-c", 2, "--seed", 1, "--winpct",
                         _table(tmp_path, "mine", ENGLISH, 93), "--json")
    assert code == 0 and json.loads(out)["note"] is None and "note" not in err


# --- 2. a leave file trained for a ruleset of the same letters and another rack size --------------------
def _trained_leaves(folder: Path, rs: Ruleset, name: str = "trained.klv2") -> Path:
    """A leave file with the provenance ``leaves train`` writes for ``rs``."""
    path = folder / name
    Leaves.from_pairs([("Ą", 2.5), ("B", -1.0), ("AE", 1.0)], rs).save(path)
    prov = {"format": "racksmith-leaves-provenance/1", **provenance_fields(rs),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    (folder / f"{name}.json").write_text(json.dumps(prov, ensure_ascii=False), "utf-8")
    return path


def test_leaves_trained_for_smaller_racks_are_read_with_a_note(tmp_path, caplog):
    rack3 = Ruleset.load(tiny(tmp_path))
    rack2 = Ruleset.load(tiny(tmp_path, "tinypl2", 2))
    path = _trained_leaves(tmp_path, rack2)
    with caplog.at_level(logging.WARNING, logger="racksmith.lexicon"):
        assert load_leaves(path, rack3).value("Ą") == 2.5  # (read: it may be meant)
    assert caplog.messages == [
        f"note: leave file {str(path)!r} was trained for ruleset tinypl2 (its provenance trained.klv2.json says so), "
        "not tinypl, the ruleset in use: the same letters, but racks of 2 tiles, not 3 (it holds no leave of 2 tiles: "
        "each is worth 0), and its exchange limit differs; leaves trained for tinypl fit it ('racksmith leaves "
        "train --ruleset FILE')"]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="racksmith.lexicon"):
        Leaves.load(path, rack2)  # its own ruleset
        Leaves.load(_trained_leaves(tmp_path, rack3, "own.klv2"), rack3)
        plain = tmp_path / "plain.klv2"
        Leaves.from_pairs([("A", 1.0)], rack2).save(plain)  # a sidecar of letters alone: no ruleset trained for
        Leaves.load(plain, rack3)
        # the same game under another name
        same = tmp_path / "same.toml"
        same.write_text(TINY_TOML.format(name="renamed", rack=3), encoding="utf-8")
        Leaves.load(_trained_leaves(tmp_path, Ruleset.load(same), "same.klv2"), rack3)
    assert caplog.messages == []
    # other letters are still refused
    with pytest.raises(LexiconFormatError, match="was trained for ruleset tinypl2"):
        Leaves.load(path, ENGLISH)


def test_the_note_says_how_to_make_leaves_for_racks_training_does_not_take(tmp_path, caplog):
    """(it said 'racksmith leaves train --ruleset FILE', which refuses racks of 8 and of 1)"""
    rack3 = Ruleset.load(tiny(tmp_path))
    path = _trained_leaves(tmp_path, rack3)
    with caplog.at_level(logging.WARNING, logger="racksmith.lexicon"):
        Leaves.load(path, Ruleset.load(tiny(tmp_path, "tinypl8", 8)))
    assert caplog.messages[-1].endswith("leaves made for tinypl8 fit it ('racksmith leaves build' of a leave,value "
                                        "CSV: training handles racks of 2 to 7 tiles)")
    with caplog.at_level(logging.WARNING, logger="racksmith.lexicon"):
        Leaves.load(path, Ruleset.load(tiny(tmp_path, "tinypl1", 1)))
    assert caplog.messages[-1].endswith("racks of 1 keep no leave: tinypl1 needs no leave file")


def test_leaves_whose_ruleset_file_is_gone_name_it(tmp_path, caplog):
    rack3 = Ruleset.load(tiny(tmp_path))
    gone = tiny(tmp_path, "tinypl4", 4)
    path = _trained_leaves(tmp_path, Ruleset.load(gone))
    gone.unlink()
    with caplog.at_level(logging.WARNING, logger="racksmith.lexicon"):
        Leaves.load(path, rack3)
    assert len(caplog.messages) == 1
    assert "was trained for ruleset tinypl4" in caplog.text and "not tinypl, the ruleset in use" in caplog.text
    assert "ruleset tinypl4 cannot be read to tell how else it differs" in caplog.text


def test_the_command_line_says_it_on_stderr(tmp_path):
    rules = tiny(tmp_path)
    path = _trained_leaves(tmp_path, Ruleset.load(tiny(tmp_path, "tinypl2", 2)))
    board = tmp_path / "board.txt"
    board.write_text("\n".join(["....."] * 5) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "racksmith", "moves", "--board", str(board), "--rack", "ABĄ", "-r",
                           str(rules), "--leaves", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("note: leave file") == 1 and "racks of 2 tiles, not 3" in done.stderr


# --- 3. winpct train without leave values ----------------------------------------------------------------
def test_winpct_train_on_a_ruleset_that_ships_no_leaves_says_so(tmp_path, capsys):
    rules = tiny(tmp_path)
    out = tmp_path / "w0.winpct"
    code, _, err = run(capsys, "winpct", "train", "--ruleset", rules, "--games", 2, "-o", out)
    assert code == 0, err
    assert err.count("note: racksmith ships no leave values for tinypl") == 1
    assert "the self-play games' players (both seats) play equity without leave values" in err
    assert "--leaves FILE" in err and "racksmith leaves train" in err
    prov = json.loads((tmp_path / "w0.winpct.json").read_text("utf-8"))
    assert prov["leaves"] is None and "top move by score, no leave values" in prov["players"]
    assert "leave value," not in prov["players"]
    # --leaves none (asked for) and shipped (the ruleset's: none) play the same games
    for i, given in enumerate(("none", "shipped")):
        w = tmp_path / f"w{i + 1}.winpct"
        code, _, err = run(capsys, "winpct", "train", "--ruleset", rules, "--games", 2, "-o", w, "--leaves", given)
        assert code == 0, err
        assert ("ships no leave values" in err) == (given == "shipped")
        assert w.read_text() == out.read_text()
        assert "no leave values" in json.loads((tmp_path / f"w{i + 1}.winpct.json").read_text("utf-8"))["players"]
    # with a leave file: no note, and the players add its values
    leaves = _trained_leaves(tmp_path, Ruleset.load(rules))
    code, _, err = run(capsys, "winpct", "train", "--ruleset", rules, "--games", 2, "-o", tmp_path / "wl.winpct",
                       "--leaves", leaves)
    assert code == 0 and "note" not in err
    prov = json.loads((tmp_path / "wl.winpct.json").read_text("utf-8"))
    assert prov["leaves"] == "trained.klv2" and "top move by score + leave value" in prov["players"]


def test_racks_of_one_tile_get_no_note_about_leave_values(tmp_path, capsys):
    """Racks of one tile keep no leave: equity is the score, with leave values or without."""
    one, three = tiny(tmp_path, "tinypl1", 1), tiny(tmp_path)
    code, out, err = run(capsys, "moves", "5/5/5/5/5 A/ 0/0 0", "--ruleset", one, "--sort", "equity")
    assert code == 0 and "note:" not in err
    code, out, err = run(capsys, "moves", "5/5/5/5/5 ABE/ 0/0 0", "--ruleset", three, "--sort", "equity")
    assert code == 0 and "racksmith ships no leave values for tinypl" in err
