"""``racksmith moves`` through the real entry point: JSON on stdout, a table for people, clean errors."""
from __future__ import annotations

import json

import pytest

from oracle import FIXTURES, load_fixture_positions
from racksmith.cli.main import main
from racksmith.lexicon import Lexicon, default_leaves
from racksmith.core.position import Position

MID = load_fixture_positions()[2]  # 390 moves with exchanges; best by equity 3J EVOKE
KWG = str(FIXTURES / "ENABLE15.kwg")
KLV = str(FIXTURES / "SYNTH.klv2")


def run(capsys, *args):
    code = main(["moves", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_lists_the_moves_of_the_api(capsys):
    code, out, err = run(capsys, "--cgp", MID["cgp"], "--lexicon", KWG, "--leaves", KLV, "--sort", "equity",
                         "--exchanges", "--all", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    pos = Position.from_cgp(MID["cgp"], "english", lexicon=Lexicon.load(KWG, "english"))
    expected = pos.moves(sort="equity", leaves=KLV, exchanges=True).to_records()
    assert data["count"] == len(data["moves"]) == MID["n_moves"] == len(expected)
    assert data["moves"] == json.loads(json.dumps(expected))
    assert data["moves"][0] == {"type": "place", "row": 2, "col": 9, "dir": "H", "word": "EVOKE",
                                "notation": "3J EVOKE", "score": 34, "equity": pytest.approx(32.276, abs=1e-3),
                                "leave": "AI", "placed": [[2, 9, "E"], [2, 10, "V"], [2, 11, "O"], [2, 12, "K"],
                                                          [2, 13, "E"]], "bingo": False}
    assert {m["type"] for m in data["moves"]} == {"place", "exchange", "pass"}


def test_twenty_best_by_default_in_a_table_for_people(capsys):
    code, out, err = run(capsys, "--cgp", MID["cgp"], "--lexicon", KWG, "--sort", "score")
    assert code == 0
    assert "3J EVOKE" in out and "equity" not in out and "by score" in out
    assert out.count("\n") >= 20 and "20 moves listed" in err
    code, out, _ = run(capsys, "--cgp", MID["cgp"], "--lexicon", KWG, "--sort", "score", "--json")
    assert json.loads(out)["count"] == 20 and json.loads(out)["moves"][0]["equity"] is None


def test_equity_with_the_shipped_leaves_by_default(capsys):
    """Like every engine, ``moves`` ranks by equity with the ruleset's shipped leaves unless told
    otherwise; ``--leaves none`` leaves only the score to rank by."""
    pos = Position.from_cgp(MID["cgp"], "english", lexicon=Lexicon.load(KWG, "english"))
    expected = pos.moves(20, sort="equity", leaves=default_leaves("english")).to_records()
    code, out, _ = run(capsys, "--cgp", MID["cgp"], "--lexicon", KWG, "--json")
    assert code == 0 and json.loads(out)["moves"] == json.loads(json.dumps(expected))
    assert expected[0]["equity"] != expected[0]["score"]  # the leaves were added
    code, out, _ = run(capsys, "--cgp", MID["cgp"], "--lexicon", KWG)
    assert "by equity" in out and expected[0]["notation"] in out
    code, out, _ = run(capsys, "--cgp", MID["cgp"], "--lexicon", KWG, "--leaves", "none")
    assert "by score" in out and "equity" not in out
    code, out, _ = run(capsys, "--cgp", MID["cgp"], "--lexicon", KWG, "--top", "3", "--json", "--direction", "down",
                       "--algorithm", "dawg")
    moves = json.loads(out)["moves"]
    assert len(moves) == 3 and all(m["dir"] == "V" for m in moves if m["type"] == "place")


def test_a_plain_text_board_is_the_same_position(capsys, tmp_path):
    rows = ["." * 15] * 15
    rows[7] = "......AT......."
    rows[8] = "......s        "  # a blank S; spaces are empty squares too
    board = tmp_path / "board.txt"
    board.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "--board", str(board), "--rack", "EIRST?", "--lexicon", KWG, "--top", "5", "--json")
    assert code == 0
    cgp = "15/15/15/15/15/15/15/6AT7/6s8/15/15/15/15/15/15 EIRST?/ 0/0 0"
    code2, out2, _ = run(capsys, "--cgp", cgp, "--lexicon", KWG, "--top", "5", "--json")
    assert json.loads(out) == json.loads(out2) and json.loads(out)["count"] == 5


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["--all", "--top", "3"], 2, "not both"),
        (["--sort", "value"], 2, "'--sort'"),
        (["--top", "0"], 2, "--top"),
        (["--leaves", "/no/such.klv2"], 1, "cannot read leave file"),
        (["--algorithm", "gaddag", "--lexicon", "@dawg"], 1, "no GADDAG"),
    ],
)
def test_errors_are_one_line_with_an_exit_code(capsys, tmp_path, args, code, message):
    if "@dawg" in args:
        path = tmp_path / "dawg.kwg"
        Lexicon.from_words(["AT", "TA", "EAT"], "english", gaddag=False).save(path)
        args = [str(path) if a == "@dawg" else a for a in args]
    elif "--lexicon" not in args:
        args = [*args, "--lexicon", KWG]
    got, out, err = run(capsys, "--cgp", MID["cgp"], *args)
    assert got == code and out == ""
    assert message in err and err.count("\n") == 1


def test_a_position_must_be_given_once(capsys, tmp_path):
    assert run(capsys, "--lexicon", KWG)[0] == 2
    board = tmp_path / "b.txt"
    board.write_text("\n".join(["." * 15] * 15), encoding="utf-8")
    assert run(capsys, "--board", str(board), "--lexicon", KWG)[0] == 2  # no --rack
    assert run(capsys, "--cgp", MID["cgp"], "--rack", "AB", "--lexicon", KWG)[0] == 2
    board.write_text("\n".join(["." * 15] * 14), encoding="utf-8")
    code, _, err = run(capsys, "--board", str(board), "--rack", "AB", "--lexicon", KWG)
    assert code == 1 and "14 rows" in err
    board.write_text("\n".join(["." * 15] * 14 + ["......5........"]), encoding="utf-8")
    code, _, err = run(capsys, "--board", str(board), "--rack", "AB", "--lexicon", KWG)
    assert code == 1 and "line 15" in err


def test_a_piped_table_is_as_wide_as_its_cells():
    """moves printed with out_console.print: to a pipe with COLUMNS=30 its cells were cut ('22…',
    'E7' and 'O(U…' on two lines); now the table is as wide as its cells, as analyze's is."""
    import os
    import subprocess
    import sys

    c1 = "/".join(["15"] * 7 + ["3OUTGUN6"] + ["15"] * 7) + " EEIIORS/IIJORRR 0/16 0"
    p = subprocess.run([sys.executable, "-m", "racksmith", "moves", c1, "--top", "2"], capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": "30"}, timeout=60)
    out = p.stdout
    assert p.returncode == 0 and "…" not in out
    rows = [line for line in out.splitlines() if "│" in line]
    assert len(rows) == 2 and all("22.074" in r and r.rstrip().endswith("EIS") for r in rows), out
    assert "E7 O(U)RIE" in rows[0] and "D8 (O)ORIE" in rows[1]
