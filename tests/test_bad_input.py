"""Bad input everywhere: every case gives one readable line on stderr and exit 1 (2 for bad usage)
through the CLI, and a ``racksmith.errors`` error (a ``ValueError``) through the Python API; never
a traceback, a hang or a silently wrong answer."""
from __future__ import annotations

import json

import pytest
from conftest import run_cli as run


EMPTY15 = "/".join(["15"] * 15)
OUTGUN = "/".join(["15"] * 7 + ["3OUTGUN6"] + ["15"] * 7) + " EEIIORS/IIJORRR 0/16 0"


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("racksmith: ")
    return lines[0]


# --- exit codes of the entry point -------------------------------------------------------------------
def test_ctrl_c_exits_130(capsys, monkeypatch):
    def interrupted(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr("racksmith.cli.position_cmds.load_position", interrupted)
    code, out, err = run(capsys, "show", "--cgp", OUTGUN)
    assert code == 130 and out == "" and err == ""


def test_an_exit_code_raised_by_a_command_is_kept(capsys, monkeypatch):
    import typer

    def stop(*_):
        raise typer.Exit(3)

    monkeypatch.setattr("racksmith.cli.position_cmds.load_position", stop)
    code, _, _ = run(capsys, "show", "--cgp", OUTGUN)
    assert code == 3


# --- a lexicon for another alphabet is refused, never an empty (silently wrong) one --------------------
RUSSIAN_OPEN = f"{EMPTY15} КОТЁЛ/ 0/0 0"


@pytest.mark.parametrize(
    "args, words",
    [
        (["moves", "--cgp", f"{EMPTY15} CAT/ 0/0 0", "-l", "ru"], ["embedded lexicon 'ru'", "ruleset russian"]),
        (["moves", "--cgp", RUSSIAN_OPEN, "-r", "russian", "-l", "enable"], ["embedded lexicon 'enable'", "english"]),
        (["validate", "--cgp", RUSSIAN_OPEN, "-r", "russian", "-l", "enable", "--move", "8H КОТЁЛ"], ["'enable'"]),
        (["lexicon", "info", "ru", "-r", "english"], ["is the ruleset right?"]),
        (["lexicon", "check", "enable", "-r", "erudit", "КОТ"], ["is the ruleset right?"]),
        (["selfplay", "--games", "1", "-l", "ru"], ["embedded lexicon 'ru'"]),
    ],
)
def test_a_lexicon_for_another_alphabet_is_an_error(capsys, args, words):
    code, out, err = run(capsys, *args)
    line = one_line(err)
    assert code == 1 and out == ""
    assert all(w in line for w in words), line


def test_word_list_files_that_make_no_lexicon(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path / "cache"))
    cases = {
        "russian.txt": ("кот\nдом\nЁЖ\n", "3 of its 3 words have letters outside the alphabet of english (first: 'кот')"),
        "empty.txt": ("", "holds no words"),
        "blank.txt": ("\n \n\n", "holds no words"),
        "letters.txt": ("a\nb\n", "none of its 2 words has 2 to 15 letters"),
        "defs.txt": ("AA a lava\nAB a muscle\nAD an ad\nQI\n", "3 of its 4 words"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        for args in (["lexicon", "info", path], ["lexicon", "build", path, "-o", tmp_path / "out.kwg"],
                     ["moves", "--cgp", f"{EMPTY15} QI/ 0/0 0", "-l", path]):
            code, out, err = run(capsys, *args)
            assert code == 1 and out == "" and message in one_line(err), (name, args, err)
    assert not (tmp_path / "out.kwg").exists()


def test_the_api_refuses_a_lexicon_for_another_alphabet(tmp_path):
    from racksmith import LexiconFormatError, Position, load_lexicon

    with pytest.raises(LexiconFormatError, match="ruleset russian"):
        load_lexicon("ru", "english")
    with pytest.raises(LexiconFormatError, match="is the ruleset right"):
        Position.from_cgp(RUSSIAN_OPEN, "russian", lexicon="enable").moves()
    words = tmp_path / "mostly_russian.txt"
    words.write_text("кот\nдом\nлес\nqi\n", encoding="utf-8")
    with pytest.raises(ValueError, match="only 1 would be left"):
        load_lexicon(words)
    assert len(load_lexicon(words, "russian")) == 3  # the words that fit; 'qi' is counted as skipped


# --- output files that cannot be written ----------------------------------------------------------------
def _unwritable(tmp_path):
    """Paths no file can be written to, with what the message says: a folder that is a file, a
    folder that does not exist, a directory in the way."""
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    (tmp_path / "a_dir.kwg").mkdir()
    return [
        (a_file / "out.bin", "there is no folder"),
        (tmp_path / "missing" / "out.bin", "there is no folder"),
        (tmp_path / "a_dir.kwg", "it is a directory"),
    ]


def test_the_api_names_an_output_file_it_cannot_write(tmp_path):
    from racksmith import Leaves, Lexicon, OutputFileError

    lex = Lexicon.from_words(["care", "race"])
    leaves = Leaves.from_pairs([("S", 8.0)])
    for path, message in _unwritable(tmp_path):
        for thing in (lex, leaves):
            with pytest.raises(OutputFileError, match=message) as e:
                thing.save(path)
            assert isinstance(e.value, ValueError) and repr(str(path)) in str(e.value)
    assert not (tmp_path / "missing").exists()  # no folder made on the way
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_dir.kwg", "a_file"]  # no temporary file left


def test_the_cli_names_an_output_file_it_cannot_write(capsys, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("care\nrace\n")
    csv = tmp_path / "leaves.csv"
    csv.write_text("S,8\n")
    for path, message in _unwritable(tmp_path):
        for args in (["lexicon", "build", words, "-o", path], ["leaves", "build", csv, "-o", path],
                     ["show", "--cgp", OUTGUN, "--svg", path]):
            code, out, err = run(capsys, *args)
            line = one_line(err)
            assert code in (1, 2) and out == "", line
            if code == 1 and args[1] == "build":  # (checked before the input is read: the option named)
                assert line.startswith(f"racksmith: --output {path}: {message}")
            elif code == 1:  # (2: click saw the directory first)
                assert line.startswith(f"racksmith: cannot write {str(path)!r}: {message}")


# --- plain-text boards ------------------------------------------------------------------------------------
ROWS = ["." * 15] * 15


def _board(tmp_path, rows, name="board.txt", encoding="utf-8", newline="\n"):
    path = tmp_path / name
    path.write_text(newline.join(rows) + newline, encoding=encoding)
    return path


@pytest.mark.parametrize(
    "row8, message",
    [
        ("...CAT", "line 8: 6 squares, the board is 15 wide"),  # ragged: would silently shift nothing, or
        ("......CAT.....", "line 8: 14 squares"),  # a square left out would shift the tiles after it
        ("", "line 8: 0 squares"),
        ("......CAT.......", "line 8: 16 squares"),
        ("......?........", "line 8, column 7: letter '?' is not in the alphabet"),
        ("......\tCAT.....", "line 8, column 7: letter '\\t'"),
        ("......КОТ......", "line 8, column 7: letter 'К'"),
        ("QQQQQQQQQQQQQQQ", "impossible position: 15 'Q' tiles"),
    ],
)
def test_a_bad_board_file_is_refused(capsys, tmp_path, row8, message):
    rows = list(ROWS)
    rows[7] = row8
    code, out, err = run(capsys, "moves", "--board", _board(tmp_path, rows), "--rack", "AB")
    assert code == 1 and out == "" and message in one_line(err)


def test_board_files_of_the_wrong_height_or_encoding(capsys, tmp_path):
    for rows, message in ((ROWS[:14], "has 14 rows, the english board 15"), (ROWS + ["..."], "has 16 rows"),
                          ([], "rows, the english board 15")):
        code, _, err = run(capsys, "moves", "--board", _board(tmp_path, rows), "--rack", "AB")
        assert code == 1 and message in one_line(err)
    binary = tmp_path / "binary.txt"
    binary.write_bytes(bytes(range(256)))
    code, _, err = run(capsys, "moves", "--board", binary, "--rack", "AB")
    assert code == 1 and "is not UTF-8 text" in one_line(err)
    code, _, err = run(capsys, "moves", "--board", tmp_path, "--rack", "AB")
    assert code == 2 and "is a directory" in one_line(err)
    code, _, err = run(capsys, "moves", "--board", tmp_path / "missing.txt", "--rack", "AB")
    assert code == 1 and one_line(err) == f"racksmith: cannot read board file {str(tmp_path / 'missing.txt')!r}: " \
        "No such file or directory"  # (as a missing GCG file or word list: bad input, not bad usage)


def test_a_board_file_with_a_bom_and_crlf_reads_like_the_cgp(capsys, tmp_path):
    rows = list(ROWS)
    rows[7] = "......CAT......"
    path = _board(tmp_path, rows, encoding="utf-8-sig", newline="\r\n")
    code, out, _ = run(capsys, "moves", "--board", path, "--rack", "AB", "--all", "--json")
    cgp = "/".join(["15"] * 7 + ["6CAT6"] + ["15"] * 7) + " AB/ 0/0 0"
    code2, out2, _ = run(capsys, "moves", "--cgp", cgp, "--all", "--json")
    assert code == code2 == 0 and out == out2


@pytest.mark.parametrize("rack, message", [("A1", "rack 'A1': letter '1'"), ("A[", "rack 'A[': unclosed '['"),
                                           ("ABCDEFGH", "rack 1 has 8 tiles"), ("ZZ", "2 'Z' tiles")])
def test_a_bad_rack_with_a_board_file(capsys, tmp_path, rack, message):
    code, out, err = run(capsys, "moves", "--board", _board(tmp_path, ROWS), "--rack", rack)
    assert code == 1 and out == "" and message in one_line(err)


# --- positions built in Python ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"board": [[1, 2], [3]]}, "must be a 15x15 array of tiles"),
        ({"board": [[0] * 15] * 14}, "board shape (14, 15)"),
        ({"board": [[-1] + [0] * 14] + [[0] * 15] * 14}, "square 1A holds -1, not a tile"),
        ({"board": [[0] * 14 + [300]] + [[0] * 15] * 14}, "square 1O holds 300, not a tile"),  # not 300 & 0xFF
        ({"board": [[0.0] * 15] * 7 + [[0.0] * 7 + [1.5] + [0.0] * 7] + [[0.0] * 15] * 7}, "square 8H holds 1.5"),
        ({"board": [["A"] * 15] * 15}, "must hold tiles (ints)"),
        ({"racks": ("AB", "")}, "rack 1 must be tiles (ints"),
        ({"racks": ((1, "B"), ())}, "rack 1 must be tiles"),
        ({"racks": ((1,), 5)}, "rack 2 must be tiles"),
        ({"racks": ((1, 99), ())}, "rack 1 holds a tile outside the english alphabet"),
        ({"racks": ((1,), ()), "scores": ["10", "0"]}, "scores must be whole numbers"),
        ({"racks": ((1,), ()), "scores": [1.5, 0]}, "scores must be whole numbers"),
        ({"zero_turns": "2"}, "zero_turns"),
        ({"zero_turns": -1}, "zero_turns"),
    ],
)
def test_a_position_built_from_bad_values_is_refused(kwargs, message):
    from racksmith import Position, PositionError

    with pytest.raises(PositionError) as e:
        Position("english", **kwargs)
    assert message in str(e.value)


def test_a_position_takes_whole_floats_and_numpy_ints():
    import numpy as np

    from racksmith import Position

    board = np.zeros((15, 15))  # float64, as np.zeros gives
    board[7, 7] = 1.0
    pos = Position("english", board, ((np.int64(2),), ()), scores=[np.int32(5), 0])
    assert pos.board.dtype == np.uint8 and pos.board[7, 7] == 1 and pos.scores == [5, 0] and pos.rack == (2,)
    assert pos.cgp().startswith("15/15/15/15/15/15/15/7A7/")


# --- rulesets -----------------------------------------------------------------------------------------
def _english(**changes) -> dict:
    from racksmith import get_ruleset

    data = get_ruleset("english").to_dict()
    data.update(changes)
    return data


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"exchange_limt": 7}, "field 'exchange_limt' is not a ruleset field (a typo?)"),
        ({"tiles": [["A", 9, 10**12]] + _english()["tiles"][1:]}, "points 0..1000"),
        ({"tiles": [["A", 10**9, 1]] + _english()["tiles"][1:]}, "counts 0..10000"),
        ({"blanks": 10**6}, "'blanks' must be at most 10000"),
        ({"tiles": [["A", 9999, 1]] + _english()["tiles"][1:]}, "more than 10000"),
        ({"bingo_bonus": 3 * 10**9}, "'bingo_bonus' must be 0..100000"),
        ({"bingo_bonus": -50}, "'bingo_bonus' must be 0..100000"),
    ],
)
def test_ruleset_values_out_of_range_are_named(changes, message):
    from racksmith import Ruleset, RulesetError

    with pytest.raises(RulesetError) as e:
        Ruleset.from_dict(_english(**changes), source="mine.toml")
    assert message in str(e.value) and "mine.toml" in str(e.value)


def test_ruleset_files_through_the_cli(capsys, tmp_path):
    import json

    typo = tmp_path / "typo.json"
    typo.write_text(json.dumps(_english(name="mine", exchange_limt=0)), encoding="utf-8")
    huge = tmp_path / "huge.json"
    huge.write_text(json.dumps(_english(name="huge", bingo_bonus=3 * 10**9)), encoding="utf-8")  # was a traceback
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00name")
    for spec, message in ((typo, "'exchange_limt' is not a ruleset field"), (huge, "'bingo_bonus' must be 0..100000"),
                          (binary, "is not valid toml"), (tmp_path / "missing.toml", "cannot read ruleset file"),
                          (tmp_path, "Is a directory"), ("", "unknown ruleset ''"), ("klingon", "unknown ruleset")):
        code, out, err = run(capsys, "moves", "--cgp", OUTGUN, "-r", spec)
        assert code == 1 and out == "" and message in one_line(err), (spec, err)


def test_scores_the_move_generator_cannot_count_are_refused():
    """A board of quadruple-word squares with a 15-tile rack: a 15-letter play scores 30 billion
    points, beyond the kernel's 32-bit scores (it listed it at 50)."""
    from racksmith import Lexicon, Position, Ruleset
    from racksmith.movegen.generate import MoveGenError

    rs = Ruleset.from_dict(_english(name="quads", board=["~" * 15] * 15, rack_size=15))
    lex = Lexicon.from_words(["ACCOMMODATINGLY", "ACCOMMODATING"], rs)
    pos = Position(rs, None, (rs.alphabet.rack("ACCOMMODATINGLY"), ()), lexicon=lex)
    assert pos.score("8A ACCOMMODATINGLY").score == 30_064_771_122
    with pytest.raises(MoveGenError, match="could score up to"):
        pos.moves()
    tame = Ruleset.from_dict(_english(name="tame", board=["~" * 15] * 15))  # 7 tiles: 4**7 fits
    pos = Position(tame, None, (tame.alphabet.rack("ACCOMMO"), ()), lexicon=Lexicon.from_words(["ACCOMMO"], tame))
    best = pos.moves(top=1)[0]
    assert best.score == pos.score(best).score == 4**7 * 15 + 50


@pytest.mark.parametrize("aliases, message", [({"": "A"}, "alias '' must be non-empty"),
                                              ({"A": "B"}, "alias 'A' must be non-empty, not a letter"),
                                              ({"1": "A"}, "without digits"), ({"X": "Ж"}, "points to 'Ж'")])
def test_letter_aliases_that_would_change_the_alphabet(aliases, message):
    from racksmith import Ruleset, RulesetError

    with pytest.raises(RulesetError) as e:
        Ruleset.from_dict(_english(letter_aliases=aliases))
    assert message in str(e.value)


# --- GCG records ----------------------------------------------------------------------------------------
from conftest import FIXTURES  # noqa: E402

GAME01 = (FIXTURES / "gcg" / "game01_seed1.gcg").read_text(encoding="utf-8")


def _record(tmp_path, text=GAME01, name="game.gcg", **replace):
    for old, new in replace.items():
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_huge_player_number_is_an_error_not_a_hang(capsys, tmp_path):
    from racksmith import GCGError
    from racksmith.formats.gcg import parse_gcg

    text = "#player99999999 a A\n#player2 b B\n>a: ABC 8H CAB +14 14\n"  # filled 10^8 phantom players
    with pytest.raises(GCGError, match="line 1: '#player99999999': a game of english has at most 14 players"):
        parse_gcg(text)
    code, out, err = run(capsys, "gcg", "replay", _record(tmp_path, text), "--json")
    assert code == 1 and json_of(out)["errors"][0]["line"] == 1


def test_players_are_numbered_without_gaps(capsys, tmp_path):
    from racksmith import GCGError
    from racksmith.formats.gcg import parse_gcg

    with pytest.raises(GCGError, match="'#player2' is missing"):
        parse_gcg("#player3 a A\n#player1 b B\n>a: ABC 8H CAB +14 14\n")


def test_records_in_utf16_or_binary(capsys, tmp_path):
    utf16 = tmp_path / "utf16.gcg"
    utf16.write_bytes(GAME01.encode("utf-16"))
    code, out, _ = run(capsys, "gcg", "replay", utf16, "--json")
    assert code == 0 and json_of(out)["final_scores"] == {"p1": 445, "p2": 516}
    binary = tmp_path / "binary.gcg"
    binary.write_bytes(b"#player1 a A\n\x00\x01\x02" * 50)
    code, out, err = run(capsys, "gcg", "replay", binary)
    assert code == 1 and out == "" and one_line(err) == (
        f"racksmith: GCG file {str(binary)!r}: not a GCG record: NUL byte at offset 13 (a binary file?)")  # names the file


@pytest.mark.parametrize(
    "old, new, first",
    [
        ("8D KRONA +28 28", "8D KRONA +29 29", "line 9: 8D KRONA scores 28, the record says +29"),
        ("8D KRONA", "8D KRONAX", "line 9: illegal play 8D KRONAX (not_in_rack)"),
    ],
)
def test_positions_after_an_error_are_not_given(capsys, tmp_path, old, new, first):
    path = _record(tmp_path, **{old: new})
    code, out, err = run(capsys, "gcg", "cgp", path, "--turn", "3")  # was a silently wrong CGP, exit 0
    assert code == 1 and out == "" and one_line(err).startswith(
        f"racksmith: game.gcg: the position before turn 3 is not known: {first}")
    code, out, err = run(capsys, "gcg", "cgp", path, "--turn", "1")  # before the error: right, with a note
    assert code == 0 and out.startswith("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEKNOQR/CEIRSTU")
    assert "note: game.gcg has" in err
    code, out, err = run(capsys, "gcg", "show", path, "--turn", "3", "--json")
    assert code == 1 and out == "" and first in one_line(err)
    # was an analysis of wrong positions, exit 0: the turns before the error are graded, none after it
    code, out, err = run(capsys, "analyze", path, "--json")
    assert code == 1 and json.loads(out)["does_not_replay_from"] == 9 and first in one_line(err)


def test_analysing_a_record_that_does_not_replay_raises(tmp_path):
    from racksmith import GCGError
    from racksmith.review.replay import replay_file

    with pytest.raises(GCGError, match="line 9: illegal play 8D KRONAX"):
        replay_file(_record(tmp_path, **{"8D KRONA": "8D KRONAX"}))  # strict, as analysis starts


@pytest.mark.parametrize("text", ["", "hello world\n", "#player1 a A\n"])
def test_records_without_a_game(capsys, tmp_path, text):
    path = _record(tmp_path, text)
    for args in (["gcg", "cgp", path], ["analyze", path], ["gcg", "replay", path]):
        code, out, err = run(capsys, *args)
        assert code == 1 and err.strip().startswith("racksmith: ") and err.count("\n") == 1, (args, err)
        # the replay's report (its result: what is wrong) is on stdout; the others print nothing
        assert (out == "") == (args[1] != "replay"), (args, out)


def json_of(out: str):
    import json

    return json.loads(out)


# --- leave files ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, message",
    [
        ("A,x\n", "holds no leaves (its one line 'A,x' reads as a header"),  # was 0 leaves, exit 0
        ("leave,value\n", "holds no leaves"),
        ("", "holds no leaves"),
        ("A,1\nA,2\n", "leave 'A' appears twice"),
        ("A,1,2\n", "line 1: expected 'leave,value'"),
        ("A;1\n", "line 1: expected 'leave,value'"),
        ("Ж,1\n", "line 1: leave 'Ж': letter 'Ж' is not in the alphabet of english"),
        ("A,nan\n", "is nan, not a number"),
        ("A,1e400\n", "is inf, not a number"),
        (",5\n", "the empty leave cannot be stored"),
        ("A,1\nB,x\n", "line 2: value 'x' is not a number"),
    ],
)
def test_a_bad_leave_csv_is_refused(capsys, tmp_path, text, message):
    from racksmith import Leaves, LexiconFormatError

    csv = tmp_path / "leaves.csv"
    csv.write_text(text, encoding="utf-8")
    with pytest.raises(LexiconFormatError) as e:
        Leaves.from_csv(csv)
    assert message in str(e.value)
    for args in (["leaves", "build", csv, "-o", tmp_path / "out.klv2"], ["moves", "--cgp", OUTGUN, "--leaves", csv]):
        code, out, err = run(capsys, *args)
        assert code == 1 and out == "" and message in one_line(err)
    assert not (tmp_path / "out.klv2").exists()


def test_files_that_are_not_leave_files(capsys, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("care\nrace\n")
    empty = tmp_path / "empty.klv2"
    empty.write_bytes(b"")
    truncated = tmp_path / "truncated.klv2"
    truncated.write_bytes((FIXTURES / "SYNTH.klv2").read_bytes()[:1000])
    for path, message in ((FIXTURES / "ENABLE15.kwg", "it is a KWG lexicon, not a leave file"),
                          (words, "it looks like text: a leave CSV must be named .csv"),
                          (empty, "is empty"), (truncated, "truncated or corrupt file"),
                          (tmp_path / "missing.klv2", "No such file or directory")):
        for args in (["leaves", "value", path, "S"], ["moves", "--cgp", OUTGUN, "--leaves", path]):
            code, out, err = run(capsys, *args)
            assert code == 1 and out == "" and message in one_line(err), (path, args, err)


@pytest.mark.parametrize("pairs", [[(5, 1.0)], [("A",)], ["A1"], [("A", 1.0, 2.0)]])
def test_leave_pairs_that_are_not_pairs(pairs):
    from racksmith import Leaves, LexiconFormatError

    with pytest.raises(LexiconFormatError, match="expected \\(leave, value\\) pairs"):
        Leaves.from_pairs(pairs)


# --- the real entry point, in a process of its own --------------------------------------------------------
import os  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

# SIGINT back to Python's handler even when the test runner ignores it (as a background job does)
ENTRY = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "sys.argv[0] = 'racksmith'; from racksmith.cli.main import run; run()")


def entry(*args, **kw):
    return subprocess.Popen([sys.executable, "-c", ENTRY, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "100"}, **kw)


@pytest.mark.parametrize(
    "args, code",
    [
        (["moves", "--cgp", "15/15 AB/ 0/0 0", "--json"], 1),
        (["moves", "--cgp", f"{EMPTY15} CAT/ 0/0 0", "-l", "ru", "--json"], 1),
        (["moves", "--cgp", OUTGUN, "--top", "0", "--json"], 2),
        (["lexicon", "check", "no-such-lexicon", "QI", "--json"], 1),
        (["gcg", "cgp", "missing.gcg", "--json"], 1),
    ],
)
def test_json_failures_leave_stdout_empty(args, code):
    p = entry(*args)
    out, err = p.communicate(timeout=60)
    assert p.returncode == code and out == b""
    assert len(err.decode().strip().splitlines()) == 1 and b"Traceback" not in err


def test_an_illegal_move_with_json_prints_the_verdict_and_exits_1():
    p = entry("validate", "--cgp", OUTGUN, "--move", "8D TOUTGUN", "--json")
    out, err = p.communicate(timeout=60)
    assert p.returncode == 1 and json_of(out.decode())["reason"] == "occupied"
    assert err.decode().startswith("racksmith: illegal move (occupied)")


def test_a_closed_pipe_ends_quietly():
    # 9,445 moves make 1.2 MB of JSON, far more than a pipe holds (64 KiB): the command is still
    # writing when the reader goes away, as with `racksmith moves ... --json | head` (without the
    # handler in racksmith.cli.main this exits 1)
    p = entry("moves", "--cgp", f"{EMPTY15} AEINST?/ 0/0 0", "--all", "--json")
    head = p.stdout.read(100)
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=60) == 0 and head.startswith(b'{"count": 9445, ') and err == b""


@pytest.mark.slow
def test_ctrl_c_during_selfplay_exits_130_without_a_traceback():
    p = entry("selfplay", "--games", "100000", "--json")
    first = p.stderr.readline()  # the note on leaves comes once the lexicon is loaded, as the games start
    assert first.startswith(b"note: no --leaves given")
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and out == b"" and b"Traceback" not in err


def test_ctrl_c_during_a_pre_endgame_stops_it_at_once():
    """``racksmith peg --all`` (every play solved exactly: minutes) stops at Ctrl-C with 130: its
    searches run on a thread of their own that Ctrl-C stops, as the endgame's do (before, the
    interrupt waited for the kernel call in progress to return, which was quick here but need not
    be)."""
    import threading

    from test_endgame import PEG141

    p = entry("peg", PEG141, "--all")
    killer = threading.Timer(120, p.kill)  # (no line ever: the test fails, it does not hang)
    killer.start()
    try:
        # each play is shown on stderr as it is solved: the first line says the search runs, on its
        # thread (a fixed wait sent the signal while a loaded machine was still importing racksmith)
        first = p.stderr.readline()
    finally:
        killer.cancel()
    assert first.strip() and not first.startswith((b"racksmith:", b"Traceback")), first  # a play, solved
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130 and b"Traceback" not in err
    assert time.monotonic() - sent < 60  # (the whole solve: several minutes)


# --- letters of the other script -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, hint",
    [
        (["moves", "--cgp", f"{EMPTY15} KOT/ 0/0 0", "-r", "russian"], "'K' is not in the alphabet of russian"
         " (АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ): it is the Latin twin of Cyrillic 'К'"),
        (["moves", "--cgp", f"{EMPTY15} САТ/ 0/0 0"], "'С' is not in the alphabet of english"
         " (ABCDEFGHIJKLMNOPQRSTUVWXYZ): it is the Cyrillic twin of Latin 'C'"),
        (["validate", "--cgp", OUTGUN, "--move", "J8 SОIREE"], "'О' is not in the alphabet of english"
         " (ABCDEFGHIJKLMNOPQRSTUVWXYZ): it is the Cyrillic twin of Latin 'O'"),
        (["moves", "--cgp", f"{EMPTY15} ЖAT/ 0/0 0"], "'Ж' is not in the alphabet of english (ABCDEFGHIJKLMNOPQRSTUVWXYZ)"),
        # Latin twins mixed with Cyrillic letters no ruleset has together: the keyboard, not a ruleset file
        (["validate", "--cgp", f"{EMPTY15} KOPOBAЯ/ 0/0 0", "-r", "russian", "-m", "8D КОРОВА"],
         "'K' is not in the alphabet of russian (АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ): it is the Latin twin of"
         " Cyrillic 'К' (check the keyboard layout)"),
    ],
)
def test_a_letter_of_the_other_script_is_named_as_such(capsys, args, hint):
    code, out, err = run(capsys, *args)
    assert code == 1 and out == "" and hint in one_line(err)
    if "keyboard layout" in hint:  # (the keyboard layout is the fix, not another ruleset)
        assert "ruleset" not in err.replace("alphabet of russian", "")


@pytest.mark.parametrize("extra", [[]])  # (--json writes such letters as \u escapes: test_cli_terminals.py)
def test_an_output_that_cannot_show_the_letters_is_one_line(capsys, monkeypatch, extra):
    """PYTHONIOENCODING=ascii (or a terminal without the letters): what to do, not a UnicodeEncodeError."""
    import io
    import sys

    cgp = f"{'/'.join(['15'] * 7)}/5КОШКА5/{'/'.join(['15'] * 7)} АБВЛО?/ 12/0 0"
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    code, _, err = run(capsys, "moves", cgp, "--ruleset", "russian", "--top", "2", *extra)
    assert code == 1
    assert one_line(err).startswith("racksmith: the output's encoding (ascii) cannot show CYRILLIC CAPITAL LETTER ")
    assert err.rstrip().endswith(": set PYTHONIOENCODING=utf-8 or use a UTF-8 terminal")


def test_lexicon_check_says_why_a_word_cannot_be_in_the_lexicon(capsys):
    code, out, err = run(capsys, "lexicon", "check", "enable", "САТ", "CAT", "--json")  # 'САТ' is Cyrillic
    assert code == 0 and json_of(out) == {"САТ": False, "CAT": True}
    assert err == "note: САТ: letter 'С' is not in the alphabet of english (ABCDEFGHIJKLMNOPQRSTUVWXYZ): it is the " \
                  "Cyrillic twin of Latin 'C' (check the keyboard layout)\n"


def test_a_cgp_naming_another_lexicon_gets_a_note(capsys):
    cgp = OUTGUN + " lex CSW21;"
    for args in (["moves", "--cgp", cgp, "--top", "1", "--json"], ["validate", "--cgp", cgp, "--move", "J8 SOIREE"]):
        code, out, err = run(capsys, *args)
        assert code == 0 and out
        assert err == "note: the CGP names lexicon CSW21; moves are made and checked with enable (pass --lexicon to choose)\n"
    code, out, err = run(capsys, "moves", "--cgp", OUTGUN + " lex ENABLE;", "--top", "1")
    assert code == 0 and "CGP names" not in err


def test_an_equity_player_checks_its_leaves_at_once():
    from racksmith import RacksmithError
    from racksmith.play.players import BestEquityPlayer

    with pytest.raises(RacksmithError, match="leaves must be a Leaves table"):
        BestEquityPlayer(5)  # was accepted, to fail at the first move
    assert len(BestEquityPlayer(bytes(FIXTURES / "SYNTH.klv2")).leaves) == 914_624  # a bytes path was a TypeError


def test_an_empty_kwg_file_is_refused(capsys, tmp_path):
    from racksmith import LexiconFormatError, load_lexicon
    from racksmith.lexicon.kwg import EMPTY_KWG

    path = tmp_path / "empty.kwg"
    path.write_bytes(EMPTY_KWG)
    with pytest.raises(LexiconFormatError, match="holds no words"):
        load_lexicon(path)
    code, out, err = run(capsys, "moves", "--cgp", OUTGUN, "-l", path)  # listed only the pass, exit 0
    assert code == 1 and out == "" and "holds no words" in one_line(err)


@pytest.mark.parametrize("data, message", [(b"\x00\x00\x40", "not a whole number of 4-byte nodes"),
                                           (b"\x00\x00\x40\x00\x05\x00\x40\x00", "arc index 5"),
                                           (b"\x01\x00\x40\x00\x00\x00\xc0\x28", "has tile 40 but the alphabet has only 26")])
def test_corrupt_kwg_files(capsys, tmp_path, data, message):
    path = tmp_path / "corrupt.kwg"
    path.write_bytes(data)
    code, out, err = run(capsys, "lexicon", "info", path, "-r", "english")
    assert code == 1 and out == "" and message in one_line(err), err


def test_load_leaves_names_a_wrong_kind_of_argument():
    from racksmith import LexiconFormatError, load_leaves

    with pytest.raises(LexiconFormatError, match="got int"):
        load_leaves(5)


def test_make_player_names_a_wrong_kind_of_argument():
    from racksmith import RacksmithError, make_player

    for kind in (None, 3):  # an AttributeError ('strip') once
        with pytest.raises(RacksmithError, match="a player kind is a name \\(equity, score, random\\)"):
            make_player(kind)


def test_a_move_list_names_a_wrong_kind_of_argument():
    import numpy as np

    from racksmith import MoveGenError, MoveList, get_ruleset
    from racksmith.movegen.movelist import RECORD_DTYPE

    a = get_ruleset("english").alphabet
    none = np.zeros(0, RECORD_DTYPE)
    for args, error, message in [
        ((None, a, (1,), False), TypeError, "records are a numpy array of RECORD_DTYPE"),  # AttributeError ('dtype') once
        ((none, None, (1,), False), TypeError, "alphabet must be an Alphabet"),
        ((none, "english", (1,), False), TypeError, "alphabet must be an Alphabet"),
        ((none, a, None, False), TypeError, "rack must be tiles"),
        ((none, a, "AB", False), TypeError, "rack must be tiles"),
        ((none, a, (1, 99), False), MoveGenError, "outside the alphabet"),
    ]:
        with pytest.raises(error, match=message):
            MoveList(*args)
    assert len(MoveList(none, a, (1, 0), False)) == 0


def test_a_build_never_overwrites_its_input(capsys, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("care\nrace\n")
    csv = tmp_path / "leaves.csv"
    csv.write_text("S,8\n")
    for args in (["lexicon", "build", words, "-o", words], ["leaves", "build", csv, "-o", tmp_path / "." / "leaves.csv"]):
        code, out, err = run(capsys, *args)
        assert code == 2 and "would overwrite" in one_line(err)
    assert words.read_text() == "care\nrace\n" and csv.read_text() == "S,8\n"


# --- inputs too large to be what they claim ------------------------------------------------------------
BIG_INPUTS = [
    ("racksmith.formats.gcg.MAX_GCG_BYTES", 4096, ["gcg", "show", "{f}"], False),
    ("racksmith.formats.gcg.MAX_GCG_BYTES", 4096, ["analyze", "{f}"], False),
    ("racksmith.sim.winpct.MAX_TABLE_BYTES", 4096, ["winpct", "show", "{f}"], False),
    (None, 1 << 20, ["moves", "--board", "{f}", "--rack", "AB"], False),
] + [  # word lists and leave CSVs are also read gzipped: the bound is on their text
    (module, 4096, args, gz) for module, args in [
        ("racksmith.lexicon.wordlist.MAX_WORD_LIST_BYTES", ["lexicon", "build", "{f}", "-o", "{out}"]),
        ("racksmith.lexicon.klv.MAX_CSV_BYTES", ["leaves", "build", "{f}", "-o", "{out}"]),
    ] for gz in (False, True)
]


@pytest.mark.parametrize("module, limit, args, gzipped", BIG_INPUTS)
def test_an_input_file_larger_than_its_kind_is_refused_unread(capsys, monkeypatch, tmp_path, module, limit, args, gzipped):
    # /dev/zero, or a file that is not what the command reads: refused after `limit` bytes, not
    # read into memory whole
    import gzip

    if module:
        monkeypatch.setattr(module, limit)
    f = tmp_path / "big.txt"
    text = b"AB\n" * (limit // 3 + 1)
    f.write_bytes(gzip.compress(text) if gzipped else text)
    assert not gzipped or f.stat().st_size < limit
    code, out, err = run(capsys, *[a.format(f=f, out=tmp_path / "out") for a in args])
    assert code == 1 and out == ""
    assert f"is larger than {limit:,} bytes" in one_line(err)
    assert not (tmp_path / "out").exists()


# --- found by the 2026-11-29 audit --------------------------------------------------------------------
def test_copy_copy_of_a_position_is_independent():
    """``copy.copy``/``copy.deepcopy`` give an independent position (they shared the board and the
    undo stack: a move pushed on the copy showed on the original's board)."""
    import copy

    from racksmith import Position

    pos = Position.from_cgp(OUTGUN)
    n = len(pos.moves())
    for clone in (copy.copy(pos), copy.deepcopy(pos)):
        clone.push("J8 SOIREE", draw="AELNST")
        assert pos.cgp() == OUTGUN and len(pos.moves()) == n and pos.validate("J8 SOIREE").legal
        clone.pop()
        assert clone.cgp() == OUTGUN


def test_simulate_refuses_a_rack_given_as_the_opponent_s_inference():
    from racksmith import Position
    from racksmith.errors import SimError

    pos = Position.from_cgp(OUTGUN.replace("/IIJORRR", "/"))
    for bad in ("AEINRST", ["A"], 5):
        with pytest.raises(SimError, match="opponent_racks must be what infer_leaves"):
            pos.simulate(iterations=10, seed=1, opponent_racks=bad)


def test_selfplay_into_a_folder_that_cannot_be_made_is_an_output_error(tmp_path):
    from racksmith import SelfPlayConfig, run_selfplay
    from racksmith.errors import OutputFileError

    afile = tmp_path / "afile"
    afile.write_text("x")
    for bad in (afile, afile / "sub"):
        with pytest.raises(OutputFileError, match="cannot write the games' records to"):
            run_selfplay(2, SelfPlayConfig(gcg_dir=str(bad)))
    assert afile.read_text() == "x"


def test_records_refuse_text_that_would_not_read_back():
    """A name, pragma or opcode with a line break (or a ';' in an opcode) would write a record or
    position that reads back as something else — an injected event, another ruleset: refused."""
    from racksmith import Game, Position, replay_text
    from racksmith.errors import GCGError, PositionError, RacksmithError

    with pytest.raises(RacksmithError, match="a player's name is one line of text"):
        Game("english", seed=1, names=["Alice\nSmith", "Bob"])
    with pytest.raises(RacksmithError, match="names must be a list of texts"):
        Game("english", seed=1, names="AB")
    g = Game("english", seed=1, names=["Alice Smith", "Bob"])
    g.play(g.legal_moves(top=1)[0])
    for pragma in (("title", "x\n>p2: ABC 8A ABC +99 99"), ("title", "a\rb"), ("my title", "x"), (" ", "x")):
        with pytest.raises(GCGError, match="cannot be written in GCG"):
            g.gcg(pragmas=[pragma])
    text = g.gcg(pragmas=[("title", "A title"), ("note", "two lines\n>p2: not an event")])
    assert "#title A title" in text and replay_text(text).final_scores() == dict(zip(g.nicks, g.scores))
    for ops, message in (((("note", "x; ld super"),), "without ';'"), ((("note", "a\nb"),), "one line"),
                         ((("my key", "v"),), "one word"), (("x",), "a \\(name, value\\) pair"), (None, "pairs")):
        with pytest.raises(PositionError, match=message):
            Position("english", opcodes=ops)
    pos = Position("english", opcodes=[["lex", "NWL20"], ("note", "a b")])
    assert pos.opcodes == (("lex", "NWL20"), ("note", "a b")) and pos.cgp().endswith("lex NWL20; note a b;")


def test_a_finished_game_validates_no_move(capsys):
    """Six scoreless turns end the game: validate says game_over, as push does, for a placement,
    an exchange and a pass (a legal SOIREE before); the lean check agrees."""
    from racksmith import Position
    from racksmith.core.validation import lean_verdict
    from racksmith.errors import IllegalMoveError

    live = Position.from_cgp(OUTGUN)
    over = Position.from_cgp(OUTGUN[:-1] + "6")
    assert live.validate("J8 SOIREE").legal and over.is_over and lean_verdict(live, live.resolve("J8 SOIREE")) == 16
    # also a placement on a filled square or off the board: push says game_over for them, so does validate
    for m in ("J8 SOIREE", "-EII", "pass", "8D AA", "8N AAAA"):
        v = over.validate(m)
        assert not v.legal and v.reason == "game_over", m
        with pytest.raises(IllegalMoveError) as info:
            over.copy().push(m)
        assert info.value.reason == "game_over", m
    assert lean_verdict(over, live.resolve("J8 SOIREE")) is None
    code, out, err = run(capsys, "validate", OUTGUN[:-1] + "6", "--move", "J8 SOIREE")
    assert code == 1 and "game_over" in out + err and "Traceback" not in err


def test_move_place_refuses_values_that_would_play_another_move():
    """``across=None`` played the tiles down while the notation said across; a float row wrote
    '2.5H'; text tiles failed later: each is refused when the move is made."""
    import numpy as np

    from racksmith import Move
    from racksmith.errors import InvalidMoveError

    for args, says in (((7, 9, None, (19, 15)), "across is True"), ((1.5, 7, True, (1, 2)), "row is a whole number"),
                       ((7, "H", True, (1, 2)), "col is a whole number"), ((True, 7, True, (1,)), "row is a whole number"),
                       ((7, 7, True, "AB"), "Move.parse")):
        with pytest.raises(InvalidMoveError, match=says):
            Move.place(*args)
    m = Move.place(np.int64(7), np.int32(7), np.bool_(True), (1, 2))
    assert (m.row, m.col, m.across) == (7, 7, True) and type(m.row) is int and m.notation() == "8H AB"


def test_a_shipped_leave_set_is_named_wherever_leaves_are_taken():
    """``moves(leaves="english")`` and ``simulate(leaves="english")`` read the shipped set, as
    ``load_leaves``, the CLI and the web page do (they said "cannot read leave file 'english'")."""
    from racksmith import Position, load_leaves

    pos = Position.from_cgp(OUTGUN)
    named = pos.moves(10, sort="equity", leaves="english")
    loaded = pos.moves(10, sort="equity", leaves=load_leaves("english"))
    assert [(m.notation(), m.equity) for m in named] == [(m.notation(), m.equity) for m in loaded]
    assert named[0].equity != named[0].score
    assert pos.simulate(candidates=3, iterations=30, seed=1, leaves="english").best is not None
    with pytest.raises(ValueError, match="the shipped 'russian' leaves are spelled for ruleset russian, not english"):
        pos.moves(leaves="russian")


def test_a_finished_game_lists_no_move(capsys):
    """As validate and push refuse every move once the game is over, moves lists none (it listed
    the rack's plays); taking the ending move back lists them again."""
    import json

    from racksmith import Position

    live = Position.from_cgp(OUTGUN)
    over = Position.from_cgp(OUTGUN[:-1] + "6")
    assert len(live.moves()) > 1 and len(over.moves()) == 0
    assert len(over.moves(top=5, sort="equity", leaves="english", exchanges=True)) == 0
    assert len(over.moves()) == 0  # (the second call with the same options is the kernel's kept answer)
    code, out, err = run(capsys, "moves", OUTGUN[:-1] + "6", "--json")
    assert code == 0 and json.loads(out) == {"count": 0, "moves": []} and "the game is over" in err
    # a pass that ends the game, taken back
    ending = Position.from_cgp(OUTGUN[:-1] + "5")
    listed = [m.notation() for m in ending.moves()]
    ending.push("pass")
    assert ending.is_over and len(ending.moves()) == 0
    ending.pop()
    assert [m.notation() for m in ending.moves()] == listed


# --- files changed or odd under the reader (the 2026-11-29 API audit) ---------------------------------
FIXTURES = __import__("pathlib").Path(__file__).parent / "fixtures"


def test_a_lexicon_or_leave_file_rewritten_in_place_does_not_kill_the_process(tmp_path):
    """KWG and KLV2 files were memory-mapped: rewriting one in place (``cp new.kwg words.kwg``)
    or truncating it killed the process holding it with SIGBUS at its next look-up. They are read
    into memory now, so the objects loaded keep working. In a child process, so that a crash fails
    the test instead of ending the run."""
    import shutil
    import subprocess
    import sys

    kwg, klv = tmp_path / "e.kwg", tmp_path / "s.klv2"
    shutil.copy(FIXTURES / "ENABLE15.kwg", kwg)
    shutil.copy(FIXTURES / "SYNTH.klv2", klv)
    code = f"""
from racksmith import load_lexicon, load_leaves
lex, lv = load_lexicon({str(kwg)!r}), load_leaves({str(klv)!r})
before = ("QUIRK" in lex, lv.value("EIRST"))
open({str(kwg)!r}, "wb").close(); open({str(klv)!r}, "wb").close()
after = ("QUIRK" in lex, lv.value("EIRST"))
assert before == after and before[0], (before, after)
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stderr[-500:])


def test_a_fifo_nobody_writes_to_is_refused_or_read_as_empty_never_waited_on(tmp_path, capsys):
    """Opening a FIFO blocked for ever when no process wrote to it (load_leaves, a GCG record,
    ...). Binary files (KWG, KLV2, word maps) must be regular files; text inputs may be pipes, and
    a FIFO without a writer reads as empty. Each in a child process with a timeout."""
    import os
    import subprocess
    import sys

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    calls = [
        f"racksmith.load_leaves({str(fifo)!r})",
        f"racksmith.load_leaves({str(fifo) + '.klv2'!r})",
        f"racksmith.load_lexicon({str(fifo) + '.kwg'!r})",
        f"racksmith.load_leaves({str(fifo) + '.csv'!r})",
        f"racksmith.read_gcg({str(fifo)!r})",
    ]
    for suffix in (".klv2", ".kwg", ".csv"):
        os.mkfifo(str(fifo) + suffix)
    for call in calls:
        code = f"""
import racksmith
try:
    {call}
except ValueError as e:
    print("refused:", e)
else:
    print("read")
"""
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (call, r.stderr[-300:])
        if "read_gcg" in call:  # a text input: read, as empty
            assert r.stdout.strip() == "read", r.stdout
        else:
            assert r.stdout.startswith("refused:"), (call, r.stdout)
        if ".klv2" in call or call.startswith("racksmith.load_leaves") and call.endswith("/f')"):
            assert "not a regular file" in r.stdout, r.stdout
    code, out, err = run(capsys, "leaves", "value", "/dev/zero", "S")
    assert code == 1 and "not a regular file" in one_line(err)


def test_saving_follows_a_link_and_never_replaces_a_fifo_or_device(tmp_path):
    """Leaves.save and Lexicon.save write a new file and rename it over the path: a symbolic link
    was replaced by a plain file (its target left as it was), and a FIFO or a device node (as root,
    /dev/full) was replaced too. A link now has its target replaced, and a FIFO is refused."""
    import os

    from racksmith import load_leaves
    from racksmith.errors import OutputFileError

    lv = load_leaves(FIXTURES / "SYNTH.klv2")
    target, link = tmp_path / "real.klv2", tmp_path / "link.klv2"
    target.write_bytes(b"old")
    link.symlink_to(target)
    lv.save(link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == (FIXTURES / "SYNTH.klv2").read_bytes()
    fifo = tmp_path / "pipe.klv2"
    os.mkfifo(fifo)
    with pytest.raises(OutputFileError, match="not a regular file"):
        lv.save(fifo)
    import stat
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_move_list_holds_a_move_by_its_notation():
    """``"J8 SOIREE" in pos.moves()`` was False although it is the first move (only Move objects
    compared equal): a notation is looked up too, spaces as you like, 'pass' or '-' the pass."""
    from racksmith import Position

    ml = Position.from_cgp(OUTGUN).moves()
    assert ml[0].notation() == "J8 SOIREE"
    assert "J8 SOIREE" in ml and "  J8   SOIREE " in ml and ml[0] in ml
    assert "pass" in ml and "-" in ml and "PASS" in ml
    assert "J8 SOIREES" not in ml and "8J SOIREE" not in ml and 5 not in ml and None not in ml


def test_the_repr_of_a_move_with_tiles_that_are_not_tiles():
    """A Move holds its tiles as given until a position checks them; its repr raised TypeError
    when they were letters (``Move.place(7, 0, True, ["A"])``), so an error message naming it failed."""
    from racksmith.core.move import Move

    assert repr(Move.place(7, 0, True, ["A"])) == "Move.place(7, 0, True, ('A',))"
    assert repr(Move.place(7, 0, True, [1.5])) == "Move.place(7, 0, True, (1.5,))"
    assert repr(Move.exchange([300])) == "Move.exchange((300,))"


def test_simulation_options_are_checked_where_they_are_given():
    """best_play checked the simulation's options only on a position it simulates (an endgame
    took candidates=0 or plies='x' silently), and SimPlayer only at its first simulated turn; a
    numpy array as round_robin gave numpy's ambiguous-truth message. All are SimErrors now, at once."""
    import json

    import numpy as np

    from racksmith import Position
    from racksmith.errors import SimError
    from racksmith.sim.player import SimPlayer

    end = Position.from_cgp(json.loads(open(FIXTURES / "endgames_magpie.jsonl").readline())["cgp"])
    assert end.bag_count == 0
    for bad in (dict(candidates=0), dict(plies="x"), dict(seed=-1), dict(opponent_racks="AEINRST"), dict(threads=0)):
        with pytest.raises(SimError):
            end.best_play(seconds=1, **bad)
    for bad in (dict(candidates=0), dict(iterations=0), dict(stop=2), dict(threads=100), dict(min_samples=0)):
        with pytest.raises(SimError):
            SimPlayer(**bad)
    with pytest.raises(ValueError, match="win% table"):
        SimPlayer(winpct=5)
    with pytest.raises(SimError, match="round_robin must be True or False"):
        Position.from_cgp(OUTGUN).simulate(iterations=10, round_robin=np.array([1, 2]))


def test_small_things_the_cli_audit_found(capsys, tmp_path):
    """``--ruleset english_super`` (Macondo's name for Super's tiles, which a CGP's ``ld`` takes)
    was unknown; a ruleset file not named .json/.toml was "not valid bin" (read as TOML, as any name not .json is); spreads showed -0.00."""
    from racksmith.cli.common import signed
    from racksmith.rules.ruleset import get_ruleset

    assert get_ruleset("english_super").name == "super"
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\xde\xad\xbe\xef")
    code, out, err = run(capsys, "moves", OUTGUN, "--ruleset", str(junk))
    assert code == 1 and "is not valid toml: not UTF-8" in one_line(err)
    assert [signed(x) for x in (-0.001, -0.006, 0.0, 2.5)] == ["+0.00", "-0.01", "+0.00", "+2.50"]


# --- the CLI audit of ad20593: signals, closed and broken outputs, user text as it is ----------------------
# SIGTERM and SIGHUP back to their default even when the test runner ignores one (nohup): the
# command handles a signal that is at its default, and leaves one that is ignored alone
ENDING_ENTRY = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                "[signal.signal(s, signal.SIG_DFL) for s in (signal.SIGTERM, signal.SIGHUP)]; "
                "sys.argv[0] = 'racksmith'; from racksmith.cli.main import run; run()")


def _children(pid: int) -> set:
    """The processes ``pid`` started that are still there (its pool's workers)."""
    from pathlib import Path

    kids = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids |= {int(k) for k in (task / "children").read_text().split()}
        except OSError:
            pass
    return kids


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that runs (not gone, not a zombie waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"),
                    reason="needs /proc/<pid>/task/<tid>/children")
@pytest.mark.parametrize(
    "args, signum, code",
    [
        (["match", "--p1", "equity", "--p2", "score", "--games", "100000", "--jobs", "2", "--json"], signal.SIGTERM, 143),
        (["selfplay", "--games", "100000", "--jobs", "2", "--json"], signal.SIGHUP, 129),
        (["leaves", "train", "-o", "{tmp}/l.klv2", "-r", "english", "-n", "100000", "--jobs", "2"], signal.SIGTERM, 143),
        (["winpct", "train", "-n", "100000", "-o", "{tmp}/w.txt", "--jobs", "2"], signal.SIGHUP, 129),
    ],
    ids=["match-TERM", "selfplay-HUP", "leaves-train-TERM", "winpct-train-HUP"],
)
def test_sigterm_or_sighup_stops_the_workers_and_exits_128_plus_the_signal(tmp_path, args, signum, code):
    """The run ended with 143 and left its --jobs workers running as orphans for ever (SIGINT already
    stopped them): now they are stopped, there is no traceback, and the exit code is 128 + the signal."""
    args = [a.format(tmp=tmp_path) for a in args]
    p = subprocess.Popen([sys.executable, "-c", ENDING_ENTRY, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, "COLUMNS": "100"})
    kids: set = set()
    try:
        deadline = time.monotonic() + 60
        while len(_children(p.pid)) < 2 and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # the workers in the middle of their batches
        kids = _children(p.pid)
        assert len(kids) >= 2 and p.poll() is None, p.stderr.read() if p.poll() is not None else "no workers"
        p.send_signal(signum)
        out, err = p.communicate(timeout=60)
        deadline = time.monotonic() + 10
        while any(_running(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [k for k in kids if _running(k)]
    finally:  # (nothing left running when the test fails)
        if p.poll() is None:
            p.kill()
        for k in kids:
            if _running(k):
                try:
                    os.kill(k, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    assert p.returncode == code and out == b"" and b"Traceback" not in err, err
    assert not left, f"workers left running: {left}"


def _closed_stdout(*args):
    """The command run with its stdout closed (`racksmith ... >&-`)."""
    return subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-c", ENTRY, *map(str, args)],
                          stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "100"}, timeout=60)


@pytest.mark.parametrize(
    "args",
    [
        ["lexicon", "check", "enable", "QI", "--json"],
        ["lexicon", "check", "enable", "QI"],
        ["moves", OUTGUN, "--top", "2"],
        ["gcg", "cgp", FIXTURES / "gcg" / "game01_seed1.gcg"],
    ],
)
def test_a_closed_stdout_is_one_line_and_exit_1(args):
    """--json to a closed stdout was an AttributeError traceback in emit_json; the text form exited
    0 with its output lost."""
    p = _closed_stdout(*args)
    err = p.stderr.decode()
    assert p.returncode == 1 and "Traceback" not in err
    assert one_line(err) == "racksmith: cannot write the results: stdout is closed"


@pytest.mark.parametrize(
    "args",
    [
        ["gcg", "replay", FIXTURES / "gcg" / "game01_seed1.gcg"],
        ["lexicon", "info", "enable"],
        ["moves", "--help"],
        ["analyze", FIXTURES / "gcg" / "game01_seed1.gcg"],
        ["moves", OUTGUN],
    ],
)
def test_text_to_a_pipe_whose_reader_went_away_ends_quietly(args):
    """Rich's console answers the EPIPE with SystemExit(1): the text form exited 1 with nothing on
    stderr, where --json exits 0 (test_a_closed_pipe_ends_quietly)."""
    p = entry(*args)
    p.stdout.close()  # gone before the command writes (it takes longer than this to start)
    err = p.stderr.read()
    assert p.wait(timeout=60) == 0 and err == b""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_note_that_cannot_be_written_does_not_fail_the_command():
    """`racksmith moves ... 2>/dev/full` exited 1 with its results complete on stdout (only the
    note '2 moves listed' failed); a failure still exits 1, with no line to show."""
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-c", ENTRY, "moves", OUTGUN, "--top", "2"], stdout=subprocess.PIPE,
                           stderr=full, env={**os.environ, "COLUMNS": "100"}, timeout=60)
        assert p.returncode == 0 and b"E7 O(U)RIE" in p.stdout and b"D8 (O)ORIE" in p.stdout
        p = subprocess.run([sys.executable, "-c", ENTRY, "moves", "--cgp", "15/15 AB/ 0/0 0"], stdout=subprocess.PIPE,
                           stderr=full, timeout=60)
        assert p.returncode == 1 and p.stdout == b""
    p = subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh", sys.executable, "-c", ENTRY, "moves", OUTGUN, "--top", "2"],
                       stdout=subprocess.PIPE, timeout=60)
    assert p.returncode == 0 and b"E7 O(U)RIE" in p.stdout


def test_user_text_keeps_its_emoji_codes(capsys, tmp_path):
    """Rich turned ':x:' into an emoji in words, file names and a record's lines ('a❌b: not in enable')."""
    code, out, err = run(capsys, "lexicon", "check", "enable", "a:x:b")
    assert out == "a:x:b: not in enable\n" and "note: a:x:b: letter ':'" in err and "❌" not in out + err
    record = tmp_path / "my:x:game.gcg"
    record.write_text(GAME01, encoding="utf-8")
    code, out, err = run(capsys, "gcg", "replay", record)
    assert code == 0 and out.startswith("my:x:game.gcg: 24 turns, complete;") and "❌" not in out
    bad = tmp_path / "a:fire:b.gcg"
    bad.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    code, out, err = run(capsys, "gcg", "show", bad)
    assert code == 1 and "a:fire:b.gcg" in err and "'root:x:0:0:root:/root:/bin/bash'" in err
    assert "❌" not in err and "🔥" not in err


def test_gcg_show_of_a_broken_record_is_one_line(capsys, tmp_path):
    """It wrote every problem on a line of its own, then the failure (27 lines for /etc/passwd);
    gcg cgp and analyze say one line. Errors after the turn shown: one note, as gcg cgp gives."""
    bad = tmp_path / "passwd.gcg"
    bad.write_text("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin\nbin:x:2:2:bin:/bin\n",
                   encoding="utf-8")
    code, out, err = run(capsys, "gcg", "show", bad)
    line = one_line(err)
    assert code == 1 and out == "" and line.startswith("racksmith: passwd.gcg: the position before turn 1 is not known: "
                                                       "line 1: cannot read 'root:x:0:0:root:/root:/bin/bash'")
    assert line.endswith("(event) (and 3 more)")  # (the three lines, and no game in it)
    late = tmp_path / "late.gcg"  # the last running total wrong: an error at the last turn
    late.write_text(GAME01.replace("+2 516", "+2 517"), encoding="utf-8")
    for args in (["gcg", "show", late, "--turn", "3"], ["gcg", "cgp", late, "--turn", "3"]):
        code, out, err = run(capsys, *args)
        assert code == 0 and out and len(err.strip().splitlines()) == 1, err
        assert err.startswith("note: late.gcg has 1 error from this turn on: line ") and "gcg replay' lists them" in err
