"""Every command takes a position the same way (a CGP argument or --cgp, or --board and --rack),
prints its result on stdout and diagnostics on stderr; the CGP's ld/lex opcodes choose the ruleset."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli as run

EMPTY15 = "/".join(["15"] * 15)
QUIRK = "/".join(["15"] * 7 + ["3QUIRK7"] + ["15"] * 7) + " ADEIRS?/ 56/0 0"
RUSSIAN = f"{'/'.join(['15'] * 7)}/5КОШКА5/{'/'.join(['15'] * 7)} АБВЛО?/ 12/0 0"


@pytest.fixture()
def board_file(tmp_path):
    rows = ["." * 15] * 15
    rows[7] = "...QUIRK......."
    path = tmp_path / "board.txt"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("command, extra", [
    ("show", ["--json"]), ("moves", ["--json", "--top", "3"]), ("score", ["--move", "9D ADE", "--json"]),
    ("validate", ["--move", "D8 (Q)uERIDAS", "--json"]),
])
def test_a_position_three_ways_gives_the_same_answer(capsys, board_file, command, extra):
    code, by_arg, err = run(capsys, command, QUIRK, *extra)
    assert code == 0 and err == ""
    code, by_option, _ = run(capsys, command, "--cgp", QUIRK, *extra)
    assert code == 0 and by_option == by_arg
    code, by_board, _ = run(capsys, command, "--board", board_file, "--rack", "ADEIRS?", *extra)
    assert code == 0
    a, b = json.loads(by_arg), json.loads(by_board)
    if command == "show":  # the board file has no scores
        assert a["board"] == b["board"] and a["racks"] == b["racks"]
    else:
        assert a == b


def test_a_position_given_twice_or_half_is_bad_usage(capsys, board_file):
    for args in (["moves", QUIRK, "--cgp", QUIRK], ["show"], ["score", "--board", board_file, "--move", "-"],
                 ["validate", QUIRK, "--rack", "AB", "--move", "-"]):
        code, out, err = run(capsys, *args)
        assert code == 2 and out == "" and err.count("\n") == 1, args


def test_show_draws_a_move(capsys, tmp_path):
    svg = tmp_path / "m.svg"
    code, out, err = run(capsys, "show", QUIRK, "--move", "9D ADE")
    # drawn as asked, with a note that it is no legal play (ADE and its cross-words are not words)
    assert code == 0 and err == "note: 9D ADE is drawn as asked, but it is not legal here (invalid_words: not in the lexicon: ADE, QA, UD, IE)\n"
    assert "move: 9D ADE +20: new tiles A 9D, D 9E, E 9F" in out and "9D ADE: ADE 4 + QA 11 + UD 3 + IE 2 = 20" in out
    code, out, err = run(capsys, "show", QUIRK, "--move", "9G ID", "--svg", svg)
    assert "new tiles I 9G (2L), D 9H" in out
    text = svg.read_text(encoding="utf-8")
    assert text.count('class="premium"') == 1 and text.count('class="through"') == 0 and "9G ID +" in text
    code, out, _ = run(capsys, "show", QUIRK, "--move", "9D ADE", "--json")
    assert json.loads(out)["move"]["score"] == 20
    code, out, err = run(capsys, "show", QUIRK, "--move", "8A QUIRK")
    assert code == 1 and "illegal move (occupied)" in err and err.count("\n") == 1


def test_score_text_breaks_the_score_down_by_tile(capsys):
    code, out, err = run(capsys, "score", QUIRK, "--move", "9D ADE")
    assert code == 0 and err == ""
    row = next(line for line in out.splitlines() if line.strip().startswith("ADE"))
    assert "A 1  D 2  E 1" in row
    cross = next(line for line in out.splitlines() if line.strip().startswith("QA"))
    assert "Q 10" in cross and "(cross)" in cross and "11" in cross
    assert "total" in out
    code, out, err = run(capsys, "score", QUIRK, "--move", "9G ID")
    assert "I 1×2=2" in next(line for line in out.splitlines() if line.strip().startswith("ID"))  # face × premium = points


def test_results_go_to_stdout_so_they_can_be_redirected(capsys, tmp_path):
    from conftest import FIXTURES

    game = FIXTURES / "gcg" / "game01_seed1.gcg"
    for args in (["analyze", game], ["gcg", "show", game], ["gcg", "replay", game], ["lexicon", "check", "enable", "QUIRK"],
                 ["lexicon", "info", "enable"], ["leaves", "value", FIXTURES / "SYNTH.klv2", "?"],
                 ["selfplay", "--games", "1", "--fast"]):
        code, out, err = run(capsys, *args)
        assert code == 0 and out.strip(), args
        assert not any(w in err for w in ("turn", "valid", "words", "games/s", "?:")), (args, err)


def test_the_cgp_ld_opcode_chooses_the_ruleset_and_other_letters_name_theirs(capsys):
    code, out, err = run(capsys, "moves", RUSSIAN + " ld russian;", "--top", "1", "--sort", "score", "--json")
    assert code == 0 and json.loads(out)["moves"][0]["notation"] == "F6 БО(К)АЛ"
    code, out, err = run(capsys, "show", RUSSIAN + " lex ru;", "--json")
    assert code == 0 and json.loads(out)["ruleset"] == "russian"
    code, out, err = run(capsys, "moves", RUSSIAN)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "not in the alphabet of english" in err
    assert err.rstrip().endswith("letters of russian or erudit: give --ruleset russian or --ruleset erudit")
    # --ruleset wins over the opcode
    code, out, err = run(capsys, "show", RUSSIAN + " ld english;", "-r", "erudit", "--json")
    assert code == 0 and json.loads(out)["ruleset"] == "erudit"


def test_a_board_file_in_other_letters_names_the_rulesets_that_read_it(capsys, tmp_path):
    """--board and --rack are read as a CGP is: without --ruleset, a position in Cyrillic letters is
    told which rulesets read it (3 blanks: Эрудит's alone)."""
    rows = ["." * 15] * 15
    rows[7] = ".....КОШКА....."
    board = tmp_path / "board.txt"
    board.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "moves", "--board", board, "--rack", "БЛЮ?")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err == ("racksmith: rack 'БЛЮ?': letter 'Б' is not in the alphabet of english (ABCDEFGHIJKLMNOPQRSTUVWXYZ); "
                   "the position is spelled in the letters of russian or erudit: give --ruleset russian or --ruleset erudit\n")
    code, out, err = run(capsys, "moves", "--board", board, "--rack", "БЛЮ???")
    assert code == 1 and err.rstrip().endswith("spelled in the letters of erudit: give --ruleset erudit")
    code, out, err = run(capsys, "show", "--board", board, "--rack", "??")
    assert code == 1 and "board file" in err and "line 8, column 6: letter 'К'" in err
    assert err.rstrip().endswith("give --ruleset russian or --ruleset erudit")
    code, out, err = run(capsys, "moves", "--board", board, "--rack", "БЛЮ?", "-r", "russian", "--top", "1", "--json")
    assert code == 0 and json.loads(out)["moves"]
    code, out, err = run(capsys, "moves", "--board", board, "--rack", "QQ", "-r", "russian")  # read by none
    assert code == 1 and "not in the alphabet of russian" in err and "spelled" not in err


def test_an_unknown_opponent_rack_leaves_an_exact_bag(capsys):
    code, out, _ = run(capsys, "show", QUIRK)
    assert "opponent: (7 unknown)" in out and "bag: 81 tiles" in out


EG21 = ("7M2MORAL/6COWBANEs1/6UN4AE1/5VIG3OPAH/4REFoRGED3/4EX1L7/4C10/3KRONA3FLIP/4U6O2A/1ZOWIE2T2I2N/"
        "4T2HAJIS2N/2BOSQUET2T2I/7DE5E/ADVISING6R/YE5Y6S DEEILRT/AOTU 0/0 0")
PEG = ("11QUID/5H7M1/2UNJOINT4A1/4IT7G1/4L8E1/3CLOWN1HANGS1/6OURIE4/3CRYPTo2VAIL/8BAP2m1/8ABA2M1/8NOW2E1/"
       "8D4N1/1KIEF1DASTARDS1/4OXO6E1/FORGE1SLEAZY3 EEIIRTU/EEEIRTV 304/425 0")  # one tile in the bag (fixtures peg_s141_t19)
GCG = Path(__file__).parent / "fixtures" / "gcg" / "game07_seed379.gcg"


@pytest.mark.parametrize("args, option", [
    (["endgame", EG21, "--plies", "0"], "--plies"),
    (["endgame", EG21, "--plies", "121"], "--plies"),
    (["endgame", EG21, "--plies", "1000000000000"], "--plies"),
    (["endgame", EG21, "--seconds", "nan"], "--seconds"),
    (["endgame", EG21, "--seconds", "inf"], "--seconds"),
    (["endgame", EG21, "--threads", "65"], "--threads"),
    (["peg", PEG, "--seconds", "nan"], "--seconds"),
    (["peg", PEG, "--seconds", "inf"], "--seconds"),
    (["sim", QUIRK, "--seed", "-1"], "--seed"),
    (["sim", QUIRK, "--seed", "99999999999999999999999"], "--seed"),
    (["sim", QUIRK, "--seed", str(2**64)], "--seed"),
    (["sim", QUIRK, "--seconds", "nan"], "--seconds"),
    (["infer", QUIRK, "--move", "8D QUIRK", "--margin", "nan"], "--margin"),
    (["analyze", GCG, "--seed", str(2**64)], "--seed"),
    (["selfplay", "--jobs", "0"], "--jobs"),
    (["match", "--p1", "score", "--p2", "score", "--games", "2", "--jobs", "0"], "--jobs"),
    (["leaves", "train", "-r", "english", "--games", "2", "-o", "x.klv2", "--jobs", "0"], "--jobs"),
    (["leaves", "train", "-r", "english", "--games", "2", "-o", "x.klv2", "--checkpoint", "0"], "--checkpoint"),
    (["leaves", "train", "-r", "english", "--games", "2", "-o", "x.klv2", "--generations", "0"], "--generations"),
    (["leaves", "train", "-r", "english", "--games", "2", "-o", "x.klv2", "--prior-weight", "nan"], "--prior-weight"),
    (["leaves", "train", "-r", "english", "--games", "2", "-o", "x.klv2", "--prior-weight", "-1"], "--prior-weight"),
    (["winpct", "show", "--unseen", "-1"], "--unseen"),
    (["serve", "--max-seconds", "nan"], "--max-seconds"),
])
def test_an_option_out_of_its_range_is_bad_usage(capsys, args, option):
    """Exit 2 and one line naming the option, whether the value is below, above or not a finite
    number, and whatever the library would have said."""
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and option in err, err


def test_the_search_limits_of_the_command_line_are_the_solver_s():
    from racksmith.cli import search_cmds
    from racksmith.search import endgame

    assert (search_cmds.MAX_DEPTH, search_cmds.MAX_THREADS) == (endgame.MAX_DEPTH, endgame.MAX_THREADS)


def test_a_board_file_of_another_size_names_the_ruleset_it_fits(capsys, tmp_path):
    """21 rows without --ruleset: Super Scrabble's board, as a 21-row CGP is told (it said only
    'the english board 15')."""
    board = tmp_path / "board.txt"
    board.write_text("\n".join(["." * 21] * 21) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "moves", "--board", board, "--rack", "AEINRST")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "has 21 rows, the english board 15" in err and err.rstrip().endswith("give --ruleset super")
    code, out, err = run(capsys, "moves", "--board", board, "--rack", "AEINRST", "-r", "super", "--top", "1", "--json")
    assert code == 0 and json.loads(out)["moves"][0]["score"] == 66
    board.write_text("\n".join(["." * 19] * 19) + "\n", encoding="utf-8")  # no ruleset's size: no hint
    code, out, err = run(capsys, "moves", "--board", board, "--rack", "AEINRST")
    assert code == 1 and "19 rows" in err and "--ruleset" not in err


@pytest.mark.parametrize(
    "args, row",
    [
        (["peg", PEG, "-q", "--seconds", "20"], ("L1 (Q)UIT", "O:-117")),
        (["infer", QUIRK, "--move", "8D QUIRK", "--top", "3"], ("EO", "+0.02")),
        (["winpct", "show"], ("60", "80.4")),
    ],
)
def test_piped_tables_are_as_wide_as_their_cells(args, row):
    """peg, infer and winpct show printed their tables for the width of $COLUMNS, cut ('…') or
    wrapped when written to a pipe; now as wide as their cells, as analyze's are."""
    import os
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "racksmith", *args], capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": "20"}, timeout=120)
    out = p.stdout
    assert p.returncode == 0 and "…" not in out, p.stderr
    first, last = row
    line = next(line for line in out.splitlines() if f" {first} " in line)
    assert line.rstrip(" │").endswith(last) or f" {last} " in line, out


# --- '-' is standard input, as for any Unix tool ------------------------------------------------------
GCG = Path(__file__).parent / "fixtures" / "gcg" / "game07_seed379.gcg"


def piped(stdin: "str | bytes", *args):
    """Run the CLI in a process of its own (``-`` is the real fd 0, not pytest's)."""
    import subprocess
    import sys

    data = stdin.encode() if isinstance(stdin, str) else stdin
    r = subprocess.run([sys.executable, "-m", "racksmith", *map(str, args)], input=data, capture_output=True,
                       timeout=120)
    assert b"Traceback" not in r.stderr
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def test_dash_reads_a_gcg_record_a_cgp_and_a_word_list_from_stdin(tmp_path):
    code, by_file, _ = piped(b"", "gcg", "replay", GCG, "--json")
    code_piped, by_pipe, err = piped(GCG.read_bytes(), "gcg", "replay", "-", "--json")
    assert code == code_piped == 0 and json.loads(by_pipe) == json.loads(by_file)
    code, out, err = piped(GCG.read_bytes(), "gcg", "replay", "-")
    assert code == 0 and out.startswith("stdin: 26 turns, complete")
    # the CGP a record ends with, piped on to the moves of that position
    code, cgp, _ = piped(GCG.read_bytes(), "gcg", "cgp", "-", "--turn", "20")
    assert code == 0
    code, by_pipe, _ = piped("\n" + cgp, "moves", "-", "--json", "--top", "5")
    code_arg, by_arg, _ = piped(b"", "moves", cgp.strip(), "--json", "--top", "5")
    assert code == code_arg == 0 and json.loads(by_pipe) == json.loads(by_arg) and json.loads(by_arg)["moves"]
    out = tmp_path / "three.kwg"
    code, said, _ = piped("CAT\nDOG\nCATS\n", "lexicon", "build", "-", "-o", out)
    assert code == 0 and "3 words" in said and out.is_file()


def test_dash_reads_a_board_from_stdin(board_file):
    code, by_file, _ = piped(b"", "moves", "--board", board_file, "--rack", "ADEIRS?", "--json", "--top", "3")
    code_piped, by_pipe, _ = piped(board_file.read_bytes(), "moves", "--board", "-", "--rack", "ADEIRS?", "--json",
                                   "--top", "3")
    assert code == code_piped == 0 and json.loads(by_pipe) == json.loads(by_file)


@pytest.mark.parametrize("args, says", [
    (("moves", "-"), "the CGP is '-' but stdin holds no line: pipe the CGP line in, or give it as the argument"),
    (("gcg", "show", "-"), "stdin: the position before turn 1 is not known: the record has no players and no events"),
])
def test_dash_with_nothing_on_stdin_is_one_readable_line(args, says):
    code, out, err = piped(b"", *args)
    assert code == 1 and out == "" and err.strip() == f"racksmith: {says}"


@pytest.mark.parametrize("data, args, says", [
    (b"abc\x00def", ("gcg", "replay", "-"), "GCG file stdin: not a GCG record: NUL byte at offset 3"),
    (b"", ("moves", "--board", "-", "--rack", "ABC"), "board file stdin has 0 rows"),
    (b"", ("lexicon", "build", "-", "-o", "x.kwg"), "word list stdin holds no words"),
])
def test_a_file_given_as_dash_is_named_stdin_in_its_errors(data, args, says, tmp_path, monkeypatch):
    """'-' is read through /dev/stdin, a name the user never gave."""
    monkeypatch.chdir(tmp_path)
    code, out, err = piped(data, *args)
    assert code == 1 and err.startswith(f"racksmith: {says}") and "/dev/stdin" not in err


def test_an_argument_the_locale_could_not_decode_is_refused_not_read_as_unknown_letters(capsys):
    # LC_ALL=C with PYTHONUTF8=0: Python hands 'КОШКА' over as surrogate escapes of its UTF-8 bytes
    escaped = "КОШКА".encode().decode("ascii", "surrogateescape")
    code, out, err = run(capsys, "lexicon", "check", "ru", escaped)
    assert code == 2 and out == ""
    assert err.strip() == ("racksmith: usage error: argument 4 is not text in this locale's encoding "
                           f"({__import__('sys').getfilesystemencoding()}): run racksmith with a UTF-8 locale "
                           "(LC_ALL=C.UTF-8) or PYTHONUTF8=1")
    code, out, _ = run(capsys, "lexicon", "check", "ru", "КОШКА")
    assert code == 0 and out == "КОШКА: valid\n"


def test_help_shows_each_argument_s_help(capsys, monkeypatch):
    """With click 8.5, typer 0.19 printed the Arguments panel without any argument's help text
    (pyproject now keeps click below 8.5)."""
    monkeypatch.setenv("COLUMNS", "200")  # one line an argument, whatever the terminal
    code, out, _ = run(capsys, "leaves", "value", "--help")
    assert code == 0
    assert "A .klv2 (or v1 .klv) file" in out and "tiles in any order" in out


def test_dash_with_stdin_closed_says_so(tmp_path):
    """A closed stdin leaves /dev/stdin dangling: the message says stdin is closed, not that the
    system lacks /dev/stdin."""
    import subprocess
    import sys

    r = subprocess.run(["sh", "-c", f'"{sys.executable}" -m racksmith gcg replay - <&-'], capture_output=True,
                       timeout=120)
    assert r.returncode == 2 and b"Traceback" not in r.stderr
    assert b"'-' reads standard input, which is closed: pipe the data in, or give a file" in r.stderr


@pytest.mark.parametrize("args", [
    ["match", "--p1", "bogus", "--p2", "equity", "--games", "2"],  # the command's own check
    ["match", "--games", "3"],  # click's
    ["selfplay", "--games", "0"],
    ["moves", "--frobnicate"],
])
def test_every_usage_error_reads_the_same(capsys, args):
    """Bad usage exits 2 with one line that says so, whether click or the command found it."""
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and err.startswith("racksmith: usage error: ") and err.count("\n") == 1
