"""``racksmith show``, ``score`` and ``validate`` through the real entry point: output, JSON contract, exit codes."""
from __future__ import annotations

import json

import pytest

from oracle import load_fixture_positions
from racksmith.cli.main import main
from racksmith.lexicon import Lexicon

EMPTY15 = "/".join(["15"] * 15)
OPEN = f"{EMPTY15} IKQRU??/ABC 0/0 0"
QUIRK = "/".join(["15"] * 7 + ["3QUIRK7"] + ["15"] * 7) + " ADEIRS?/ 56/0 0"
BAG1 = next(r["cgp"] for r in load_fixture_positions() if r["id"] == "peg_s141_t19")  # one tile in the bag


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# --- show -------------------------------------------------------------------------------------------
def test_show_text_goes_to_stdout(capsys):
    code, out, err = run(capsys, "show", "--cgp", QUIRK)
    assert code == 0 and err == ""
    assert "A B C D E F G H I J K L M N O" in out
    assert " 8  = . . Q U I R K . . . ' . . =" in out
    assert "to move: ADEIRS?" in out and "score 56" in out and "bag: 81 tiles" in out


def test_show_json_and_svg(capsys, tmp_path):
    svg = tmp_path / "board.svg"
    code, out, err = run(capsys, "show", "--cgp", QUIRK, "--json", "--svg", str(svg))
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["ruleset"] == "english" and d["cgp"] == QUIRK and (d["rows"], d["cols"]) == (15, 15)
    assert d["board"][7][3:8] == ["Q", "U", "I", "R", "K"] and d["board"][0][0] == ""
    assert d["premiums"][7] == "=..'...-...'..="
    assert d["racks"] == ["ADEIRS?", ""] and d["scores"] == [56, 0] and d["bag_count"] == 81 and d["unseen_count"] == 88 and d["zero_turns"] == 0
    text = svg.read_text(encoding="utf-8")
    assert text.startswith("<svg") and text.rstrip().endswith("</svg>") and ">Q<" in text


def test_show_draws_a_move_as_asked_but_says_when_it_is_not_legal_and_sizes_the_svg(capsys, tmp_path):
    """A puzzle's answer key drawn with a typo (a tile the rack lacks, a phony) is drawn, with a
    note that it is not legal, not passed off as a bingo; --size sets the SVG's squares."""
    svg, big = tmp_path / "small.svg", tmp_path / "big.svg"
    code, out, err = run(capsys, "show", "--cgp", QUIRK, "--move", "9D DEAIRS", "--svg", str(svg), "--size", "16")
    assert code == 0 and "9D DEAIRS" in out
    assert one_line(err).startswith("note: 9D DEAIRS is drawn as asked, but it is not legal here (invalid_words: ")
    code, out, err = run(capsys, "show", "--cgp", QUIRK, "--move", "D8 (Q)uERIDAS", "--svg", str(big), "--size", "40")
    assert code == 0 and err == ""  # a legal move: no note
    width = lambda p: int(p.read_text(encoding="utf-8").split('width="', 1)[1].split('"', 1)[0])
    assert abs(width(big) / width(svg) - 40 / 16) < 0.05  # (the picture scales with its squares)
    code, out, err = run(capsys, "show", "--cgp", QUIRK, "--svg", str(svg), "--size", "4")
    assert code == 2


def test_show_other_rulesets(capsys):
    cgp = "/".join(["21"] * 21) + " AEELSV?/ 0/0 0"
    code, out, err = run(capsys, "show", "--cgp", cgp, "--ruleset", "super")
    assert code == 0 and "21  ~" in out and "quadruple" in out
    code, out, err = run(capsys, "show", "--cgp", f"{EMPTY15} АБВ?/ 0/0 0", "-r", "эрудит", "--json")
    assert code == 0 and json.loads(out)["ruleset"] == "erudit"


# --- score ------------------------------------------------------------------------------------------
def test_score_json_contract(capsys):
    code, out, err = run(capsys, "score", "--cgp", OPEN, "--move", "8D QUIRK", "--json")
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["score"] == 56 and d["bingo"] == 0
    assert [(w["word"], w["score"]) for w in d["words"]] == [("QUIRK", 56)]
    assert d["tiles"][0] == {"row": 7, "col": 3, "letter": "Q", "blank": False, "new": True,
                             "letter_multiplier": 2, "points": 20}


def test_score_cross_words_blanks_and_bingo(capsys):
    code, out, _ = run(capsys, "score", "--cgp", QUIRK, "--move", "9D ADE", "--json")
    d = json.loads(out)
    # ADE 1+2+1 = 4; QA 10+1, UD 1+2, IE 1+1 (9D, 9F plain)
    assert [(w["word"], w["score"], w["main"]) for w in d["words"]] == [
        ("ADE", 4, True), ("QA", 11, False), ("UD", 3, False), ("IE", 2, False)
    ]
    assert d["score"] == 20
    code, out, _ = run(capsys, "score", "--cgp", f"{EMPTY15} AEINRST/ 0/0 0", "-m", "8H RETAINs", "--json")
    d = json.loads(out)
    # R on the centre double word, I on 8L double letter, the blank s 0: (1+1+1+1+2+1+0)*2 + 50
    assert (d["score"], d["bingo"]) == (64, 50) and d["tiles"][-1]["blank"] and d["tiles"][-1]["points"] == 0


def test_score_text_table(capsys):
    code, out, err = run(capsys, "score", "--cgp", OPEN, "--move", "8D QUIRK")
    assert code == 0 and err == ""
    assert "QUIRK" in out and "56" in out and "total" in out


def test_score_rejects_illegal_geometry(capsys):
    code, out, err = run(capsys, "score", "--cgp", OPEN, "--move", "1A QUIRK", "--json")
    assert code == 1
    assert json.loads(out) == {"legal": False, "reason": "must_cover_start",
                               "message": "the first play must cover the start square 8H", "words": []}
    assert one_line(err).startswith("racksmith: illegal move (must_cover_start)")
    code, out, err = run(capsys, "score", "--cgp", OPEN, "--move", "8L QUIRKS")
    assert code == 1 and out == "" and "off_board" in one_line(err)


# --- validate ---------------------------------------------------------------------------------------
def test_validate_legal_with_the_rulesets_lexicon(capsys):
    code, out, err = run(capsys, "validate", "--cgp", OPEN, "--move", "8D QUIRK", "--json")
    assert code == 0 and err == ""
    assert json.loads(out) == {"legal": True, "score": 56, "lexicon": "enable"}  # (the list that judged the words)
    code, out, err = run(capsys, "validate", "--cgp", OPEN, "--move", "8D QUIRK")
    assert code == 0 and err == "" and one_line(out) == "legal: 8D QUIRK scores 56"


def test_validate_illegal_json(capsys):
    code, out, err = run(capsys, "validate", "--cgp", QUIRK, "--move", "9D ADE", "--json")
    assert code == 1
    d = json.loads(out)
    assert d["legal"] is False and d["reason"] == "invalid_words" and d["words"] == ["ADE", "QA", "UD", "IE"]
    assert d["message"] and one_line(err).startswith("racksmith: illegal move (invalid_words)")
    assert d["lexicon"] == "enable" and one_line(err).endswith("(words judged by enable)")
    code, out, err = run(capsys, "validate", "--cgp", QUIRK, "--move", "H8 (K)AZ", "--json")
    assert code == 1 and json.loads(out)["reason"] == "not_in_rack"


def test_validate_exchanges_and_passes(capsys):
    code, out, _ = run(capsys, "validate", "--cgp", OPEN, "--move", "-IK?", "--json")
    assert code == 0 and json.loads(out) == {"legal": True, "score": 0, "lexicon": "enable"}
    code, out, _ = run(capsys, "validate", "--cgp", OPEN, "--move=-", "--json")
    assert code == 0 and json.loads(out) == {"legal": True, "score": 0, "lexicon": "enable"}
    code, out, _ = run(capsys, "validate", "--cgp", OPEN, "--move", "-ZZ", "--json")
    assert code == 1 and json.loads(out)["reason"] == "not_in_rack"
    code, out, _ = run(capsys, "validate", "--cgp", BAG1, "--move", "-E", "--json")
    assert code == 1 and json.loads(out)["reason"] == "exchange_not_allowed"


def test_validate_with_a_word_list_and_a_kwg(capsys, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("quirk\nquirks\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", "--cgp", QUIRK, "--move", "8I S", "--lexicon", str(words), "--json")
    assert code == 0 and json.loads(out) == {"legal": True, "score": 19, "lexicon": "words"}
    code, out, _ = run(capsys, "validate", "--cgp", OPEN, "--move", "8D QUIRK", "-l", str(words), "--json")
    assert code == 0
    kwg = tmp_path / "tiny.kwg"
    Lexicon.from_words(["AD", "ADS"], "english").save(kwg)
    code, out, _ = run(capsys, "validate", "--cgp", QUIRK, "--move", "9D AD", "--lexicon", str(kwg), "--json")
    assert code == 1 and json.loads(out)["words"] == ["QA", "UD"]


def test_validate_other_rulesets(capsys):
    code, out, err = run(capsys, "validate", "--cgp", f"{EMPTY15} КОТ/ 0/0 0", "-r", "эрудит", "-m", "8H КОТ", "--json")
    assert code == 0, err
    assert json.loads(out) == {"legal": True, "score": 2 + 1 + 2, "lexicon": "ru-erudit"}  # К2 О1 Т2, plain centre


# --- errors -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, words",
    [
        (["show", "--cgp", "15/15 A/ 0/0 0"], "CGP board has 2 rows"),
        (["score", "--cgp", OPEN, "--move", "8D QU1RK"], "not in the alphabet"),
        (["score", "--cgp", OPEN, "--move", "8D"], "bad move"),
        (["score", "--cgp", OPEN, "--move", "8D QU?RK"], "write a blank as the lowercase letter"),
        (["validate", "--cgp", f"{EMPTY15} AZZ/ 0/0 0", "--move", "8H ZA"], "impossible position"),
        (["validate", "--cgp", OPEN, "--move", "8D QUIRK", "--ruleset", "nope"], "unknown ruleset 'nope'"),
        (["validate", "--cgp", OPEN, "--move", "8D QUIRK", "--lexicon", "nope"], "no lexicon 'nope'"),
        (["show", "--cgp", f"{EMPTY15} ЖЖ/ 0/0 0"], "not in the alphabet"),
    ],
)
def test_errors_are_one_line_and_exit_1(capsys, args, words):
    code, out, err = run(capsys, *args)
    assert code == 1 and out == ""
    line = one_line(err)
    assert line.startswith("racksmith: ") and words in line


@pytest.mark.parametrize(
    "args",
    [["score", "--cgp", OPEN], ["validate", "--move", "8D QUIRK"], ["show"], ["show", "--cgp", OPEN, "--bogus"]],
)
def test_bad_usage_exits_2(capsys, args):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and "usage error" in one_line(err)


C1 = "/".join(["15"] * 7 + ["3OUTGUN6"] + ["15"] * 7) + " EEIIORS/IIJORRR 0/16 0"


def test_a_piped_score_table_is_as_wide_as_its_cells():
    """score printed with out_console.print: to a pipe it was cut to $COLUMNS (80), its OUTGUNS row
    wrapped ('S' on one line, '1' on the next); analyze, gcg and match already printed full width."""
    import os
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "racksmith", "score", C1, "--move", "J8 SOIREE"], capture_output=True,
                       text=True, env={**os.environ, "COLUMNS": "40"}, timeout=60)
    out = p.stdout
    assert p.returncode == 0 and "…" not in out
    row = next(line for line in out.splitlines() if "OUTGUNS" in line)
    assert "O 1  U 1  T 1  G 2  U 1  N 1  S 1 │" in row and row.rstrip().endswith("8"), out


def test_show_svg_dash_writes_the_picture_to_stdout_and_no_file(capsys, tmp_path, monkeypatch):
    """``--svg -`` wrote the picture to a file named ``-`` and the text board to stdout (exit 0);
    ``-`` is stdout for the picture, as ``leaves csv -o -`` is for its CSV."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "show", "--cgp", QUIRK, "--svg", "-")
    assert code == 0, err
    assert out.startswith("<svg ") and out.rstrip().endswith("</svg>")
    assert list(tmp_path.iterdir()) == []
    code, out, err = run(capsys, "show", "--cgp", QUIRK, "--svg", "-", "--json")
    assert code == 2 and out == ""
    assert "--svg - writes the picture to stdout, where --json writes too" in err
