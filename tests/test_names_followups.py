"""Follow-ups to "a name is the shipped thing whatever the folder holds": ``leaves value`` and
``leaves train --from`` read a shipped set's name as the set (a file of that name is
``./english``); a file named ``shipped`` no longer hides the note on equity without leave values;
the move generator's leaves memo answers a shipped set's name before looking at the folder (and
never hands the str ``english`` a file read as ``Path("english")``); a pre-endgame's play that is
not legal says why; a ``.dawg``/``.gaddag`` file whose first bytes look like a KWG's gets the
Quackle message unless it is a sound KWG."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from racksmith import Lexicon, Position
from racksmith.cli.main import main
from racksmith.errors import LexiconFormatError, PositionError
from racksmith.lexicon import Leaves, load_leaves, load_lexicon, leaves_provenance

from test_endgame import PEG141
from test_own_language_messages import tiny

OPENING = "/".join(["15"] * 15) + " AEINQST/ 0/0 0"


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# --- 1. leaves value / leaves train --from --------------------------------------------------------------
def test_leaves_value_reads_the_shipped_set_beside_a_folder_of_its_name(tmp_path, monkeypatch, capsys):
    """A folder english/ in the current folder made `leaves value english S` fail ("File 'english'
    is a directory")."""
    (tmp_path / "english").mkdir()
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "leaves", "value", "english", "S", "--json")
    assert code == 0, err
    assert json.loads(out) == {"S": pytest.approx(load_leaves("english").value("S"), abs=1e-5)}
    code, out, err = run(capsys, "leaves", "value", "./english", "S")
    assert code == 1 and out == "" and "cannot read leave file" in err and "directory" in err
    code, out, err = run(capsys, "leaves", "value", "missing.klv2", "S")
    assert code == 1 and out == "" and "cannot read leave file 'missing.klv2'" in err
    code, out, err = run(capsys, "leaves", "value", "englsh", "S")  # a mistyped set's name
    assert code == 1 and "no leaves 'englsh': give a shipped set" in err


def test_leaves_train_from_a_shipped_name_whatever_the_folder_holds(tmp_path, monkeypatch, capsys):
    """`--from english` read a file named english in the folder instead of the shipped set; the file
    is `--from ./english`, and the command in the provenance says so."""
    monkeypatch.chdir(tmp_path)
    Leaves.from_pairs([("Q", -20.0)]).save(tmp_path / "english")
    common = ["leaves", "train", "-r", "english", "--games", "1", "--generations", "1"]
    code, _, err = run(capsys, *common, "--from", "english", "-o", "shipped.klv2")
    assert code == 0, err
    prov = json.loads((tmp_path / "shipped.klv2.json").read_text())
    shipped = leaves_provenance("english")
    assert prov["start_sha256"] == shipped["sha256"] and prov["start_provenance"] == shipped
    code, _, err = run(capsys, *common, "--from", "./english", "-o", "file.klv2")
    assert code == 0, err
    prov = json.loads((tmp_path / "file.klv2.json").read_text())
    import hashlib

    assert prov["start_sha256"] == hashlib.sha256((tmp_path / "english").read_bytes()).hexdigest()
    assert prov.get("start_provenance") != shipped and "--from ./english" in prov["command"]


# --- 2. a file named "shipped" -----------------------------------------------------------------------------
def test_a_file_named_shipped_does_not_hide_the_note_on_equity_without_leaves(tmp_path, monkeypatch, capsys):
    from racksmith.cli.common import ships_no_leaves
    from racksmith.rules.ruleset import Ruleset

    rules = tiny(tmp_path)
    Leaves.from_pairs([("A", 1.0)]).save(tmp_path / "shipped")
    monkeypatch.chdir(tmp_path)
    assert ships_no_leaves("shipped", Ruleset.load(rules)) and ships_no_leaves(" Shipped ", Ruleset.load(rules))
    assert not ships_no_leaves("./shipped", Ruleset.load(rules)) and not ships_no_leaves("shipped", "english")
    board = tmp_path / "board.txt"
    board.write_text("\n".join(["....."] * 5) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "moves", "--board", board, "--rack", "ABE", "-r", rules, "--leaves", "shipped")
    assert code == 0 and "by equity" in out
    assert err.count("note: racksmith ships no leave values for tinypl") == 1


# --- 3. the move generator's memo of leaves ------------------------------------------------------------------
def test_a_shipped_name_is_answered_from_memory_beside_a_folder_of_its_name(tmp_path, monkeypatch):
    """With a folder (or file) named english there, every call went back through _read_leaves."""
    from racksmith.movegen import generate

    (tmp_path / "english").mkdir()
    monkeypatch.chdir(tmp_path)
    pos = Position.from_cgp(OPENING)
    first = generate._leaves("english", pos.ruleset)
    reads = []
    real = generate._read_leaves
    monkeypatch.setattr(generate, "_read_leaves", lambda *a: reads.append(a) or real(*a))
    for _ in range(3):
        assert generate._leaves("english", pos.ruleset) is first
    assert reads == []
    assert first is load_leaves("english")


def test_the_name_english_is_never_handed_a_file_read_as_a_path(tmp_path, monkeypatch):
    """After Path("english") (the file) was read, the str "english" got that file from the memo."""
    Leaves.from_pairs([("Q", 500.0)]).save(tmp_path / "english")
    monkeypatch.chdir(tmp_path)
    pos = Position.from_cgp(OPENING)
    by_file = pos.moves(1, sort="equity", leaves=Path("english"))[0]
    by_name = Position.from_cgp(OPENING).moves(1, sort="equity", leaves="english")[0]
    shipped = Position.from_cgp(OPENING).moves(1, sort="equity", leaves=load_leaves("english"))[0]
    assert by_file.equity - by_file.score == 500
    assert (by_name.notation(), by_name.equity) == (shipped.notation(), shipped.equity)


# --- 5. a pre-endgame's play that is not legal says why ----------------------------------------------------
def test_a_peg_play_that_is_not_legal_says_why():
    pos = Position.from_cgp(PEG141)
    with pytest.raises(PositionError) as e:
        pos.solve_peg(moves=["K1 ETUX", "1A QI"])
    assert str(e.value) == ("not a legal play of the player to move here: 1A QI (not_connected: the play touches no "
                            "tile already on the board); K1 ETUX (not_in_rack: the play needs X that the rack "
                            "EEIIRTU does not hold)")


# --- 6. a Quackle file whose first bytes look like a KWG's --------------------------------------------------
@pytest.mark.parametrize("filename", ["csw.dawg", "TWL.GADDAG"])
def test_a_quackle_file_starting_like_a_kwg_gets_the_quackle_message(tmp_path, filename):
    """Its first 4 bytes (tile 0 with is_end) made it a KWG: "not a whole number of 4-byte nodes"."""
    path = tmp_path / filename
    path.write_bytes(b"\x05\x00\x40\x00" + bytes(range(256)) * 8 + b"\x01")
    with pytest.raises(LexiconFormatError) as e:
        load_lexicon(path)
    assert "Quackle's .dawg and .gaddag files" in str(e.value) and "KWG" not in str(e.value).split(":")[0]
    path.write_bytes(b"\x05\x00\x40\x00" + bytes(range(256)) * 8)  # whole nodes, arcs out of the file
    with pytest.raises(LexiconFormatError, match="Quackle's .dawg and .gaddag files"):
        load_lexicon(path)


def test_a_kwg_named_dawg_is_still_read(tmp_path):
    path = tmp_path / "mine.dawg"
    Lexicon.from_words(["CAT", "CATS", "DOG"]).save(path)
    assert load_lexicon(path).words() == ["CAT", "CATS", "DOG"]
