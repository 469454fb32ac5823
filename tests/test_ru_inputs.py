"""What a Russian-speaking player types: Cyrillic column letters, ruleset aliases naming shipped
leaves, Latin look-alikes in racks and word lists, a Cyrillic CGP on stdin under a C locale; and
paths the system refuses (too long) named in a racksmith error."""
from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from racksmith.cli.main import main
from racksmith.core.move import Move
from racksmith.errors import InvalidMoveError, LexiconFormatError, OutputFileError, RacksmithError, UnknownLetterError
from racksmith.rules.coords import parse_coord
from racksmith.rules.ruleset import get_ruleset

EMPTY = "/".join(["15"] * 15)
RU = get_ruleset("russian").alphabet


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# --- coordinates with a Cyrillic column letter ---------------------------------------------------------
@pytest.mark.parametrize("coord, expected", [
    ("8Б", "bad coordinate '8Б': columns are Latin letters A..O ('Б' is B if you count the columns "
           "А Б В Г Д Е Ж З И К Л М Н О П): write row then column for across (8B) or column then row for down (B8)"),
    ("Б8", "columns are Latin letters A..O ('Б' is B if you count"),
    ("8Д", "columns are Latin letters A..O ('Д' is E if you count"),
    ("Ф6", "bad coordinate 'Ф6': columns are Latin letters A..O: write row then column"),
    ("8Р", "bad coordinate '8Р': columns are Latin letters A..O: write row then column"),  # twin P: no column of 15
    ("8А", "bad coordinate '8А': column 'А' is the Cyrillic twin of Latin 'A' (8A; columns are Latin letters A..O: "
           "check the keyboard layout)"),
    ("8Н", "bad coordinate '8Н': column 'Н' is the Cyrillic twin of Latin 'H' (8H; columns are Latin letters A..O), "
           "or M (8M) if you count the columns А Б В Г Д Е Ж З И К Л М Н О П"),
    ("К8", "column 'К' is the Cyrillic twin of Latin 'K' (K8; columns are Latin letters A..O), or J (J8) if you count"),
    ("8н", "column 'н' is the small letter of Cyrillic 'Н', the twin of Latin 'H' (8H; columns are Latin letters "
           "A..O), or M (8M)"),
])
def test_a_cyrillic_column_says_columns_are_latin_letters(coord, expected):
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(f"{coord} ВОБЛА", get_ruleset("russian"))
    assert expected in str(info.value)


def test_a_cyrillic_column_names_the_columns_of_the_board():
    with pytest.raises(InvalidMoveError, match=r"columns are Latin letters A..G \('Б' is B if you count the columns "
                                               r"А Б В Г Д Е Ж\)"):
        parse_coord("8Б", (7, 7))
    with pytest.raises(InvalidMoveError, match=r"columns are Latin letters A..G: write row"):
        parse_coord("8Н", (7, 7))  # 'Н' is neither H nor M on a board of 7 columns
    with pytest.raises(InvalidMoveError, match=r"bad coordinate '8DD': write row then column"):
        parse_coord("8DD", (15, 15))  # Latin letters: no word about them


def test_validate_says_columns_are_latin(capsys):
    code, _, err = run(capsys, "validate", f"{EMPTY} АБВЛОКА/ 0/0 0", "--ruleset", "russian", "--move", "8Б ВОБЛА")
    assert code == 1 and "columns are Latin letters A..O" in err and "(8B)" in err
    code, out, _ = run(capsys, "validate", f"{EMPTY} АБВЛОКА/ 0/0 0", "--ruleset", "russian", "--move", "8D ВОБЛА")
    assert code == 0 and "legal" in out


# --- a ruleset's aliases name its shipped leaves and win% table ----------------------------------------
@pytest.mark.parametrize("alias, name", [("скрэббл", "russian"), ("эрудит", "erudit"), ("ЭРУДИТ", "erudit"),
                                         ("Scrabble", "english")])
def test_an_alias_names_the_shipped_leaves(alias, name, capsys):
    from racksmith.lexicon import load_leaves

    assert load_leaves(alias) is load_leaves(name)
    letter = "Ф" if name != "english" else "Q"
    code, out, err = run(capsys, "leaves", "value", alias, letter, "--json")
    assert code == 0, err
    assert json.loads(out) == {letter: pytest.approx(load_leaves(name).value(letter), abs=1e-4)}


def test_an_alias_names_the_shipped_leaves_of_moves_and_players(capsys):
    from racksmith.play.players import BestEquityPlayer

    code, out, err = run(capsys, "moves", f"{EMPTY} АБВЛОКА/ 0/0 0", "--ruleset", "erudit", "--leaves", "эрудит",
                         "--json")
    assert code == 0, err
    assert json.loads(out)
    assert BestEquityPlayer("эрудит", "erudit").leaves is not None


def test_a_file_named_like_an_alias_is_read_as_the_file(tmp_path, monkeypatch, capsys):
    from racksmith.lexicon import Leaves

    monkeypatch.chdir(tmp_path)
    Path("l.csv").write_text("leave,value\nФ,1.5\n", encoding="utf-8")
    Leaves.from_csv(Path("l.csv"), "erudit").save("эрудит")
    code, out, err = run(capsys, "leaves", "value", "./эрудит", "Ф", "--ruleset", "erudit")
    assert code == 0 and out.strip() == "Ф: 1.5", err
    # the alias alone is the shipped set whatever the folder holds
    code, out, err = run(capsys, "leaves", "value", "эрудит", "Ф", "--ruleset", "erudit")
    assert code == 0 and out.strip() != "Ф: 1.5" and out.startswith("Ф: "), err


def test_the_page_reads_an_alias_in_its_address():
    """``?ruleset=эрудит``: app.js finds the ruleset by its name or an alias, case ignored."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    from racksmith.web import Analyzer

    js = (Path(__file__).parents[1] / "src" / "racksmith" / "web" / "static" / "app.js").read_text(encoding="utf-8")
    function = re.search(r"\n  function rulesetNamed\(text\) \{\n.*?\n  \}\n", js, re.S).group(0)
    rulesets = {rs["name"]: rs for rs in Analyzer("english").rulesets_info()["rulesets"]}
    asked = ["эрудит", "ЭРУДИТ", " Scrabble", "russian", "скрэббл", "klingon"]
    script = f"const state = {{ rulesets: {json.dumps(rulesets)} }};\n{function}\n" \
             f"console.log(JSON.stringify({json.dumps(asked)}.map(rulesetNamed)));"
    answer = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60)
    assert answer.returncode == 0, answer.stderr
    assert json.loads(answer.stdout) == ["erudit", "erudit", "english", "russian", "russian", None]


# --- a rack all in Cyrillic without --ruleset: no keyboard-layout advice ------------------------------
def test_a_cyrillic_rack_on_a_board_file_gives_only_the_ruleset_hint(tmp_path, capsys):
    board = tmp_path / "board.txt"
    board.write_text("\n".join(["." * 15] * 15) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "moves", "--board", board, "--rack", "АБВЛО?Ё")
    assert code == 1
    assert ("rack 'АБВЛО?Ё': letter 'А' is not in the alphabet of english (ABCDEFGHIJKLMNOPQRSTUVWXYZ); the position "
            "is spelled in the letters of russian or erudit: give --ruleset russian or --ruleset erudit") in err
    assert "keyboard" not in err
    # a rack whose twins are English letters may be a keyboard slip: the hint stays
    code, _, err = run(capsys, "moves", "--board", board, "--rack", "АВСЕН")
    assert code == 1 and "Cyrillic twin of Latin 'A' (check the keyboard layout)" in err and "--ruleset russian" in err


# --- Latin look-alikes in word lists and racks ---------------------------------------------------------
def test_a_word_list_names_the_latin_look_alike_of_the_first_word_skipped(tmp_path, capsys):
    words = tmp_path / "my.txt"
    words.write_text("кот\nкoт\nдом\nсaд\nлес\nрека\nмир\n", encoding="utf-8")  # Latin o and a
    code, out, err = run(capsys, "lexicon", "build", words, "--ruleset", "russian", "-o", tmp_path / "my.kwg")
    assert code == 0, err
    assert "skipped 2 words: 2 with a Latin letter in place of its Cyrillic twin (line 2 'кoт': 'o'; line 4 'сaд': 'a')" \
        in out + err
    from racksmith.lexicon.wordlist import parse_word_list

    assert parse_word_list("кот\nкqт\n", RU, 15).skipped.describe(15) == \
        "skipped 1 word: 1 with letters outside the alphabet (line 2 'кqт': 'q')"  # no twin: nothing more said


def test_a_list_mostly_of_look_alikes_is_refused_naming_one(tmp_path):
    from racksmith.lexicon import load_lexicon

    words = tmp_path / "bad.txt"
    words.write_text("кoт\nсaд\nдом\n", encoding="utf-8")
    with pytest.raises(LexiconFormatError, match=r"\(first: 'кoт', whose 'o' is the Latin twin of Cyrillic 'о'\)"):
        load_lexicon(str(words), ruleset="russian")


@pytest.mark.parametrize("typed, capital, cyrillic", [("k", "K", "К"), ("m", "M", "М"), ("t", "T", "Т"),
                                                      ("h", "H", "Н"), ("b", "B", "В")])
def test_a_small_latin_letter_whose_capital_is_a_twin_is_named(typed, capital, cyrillic):
    with pytest.raises(UnknownLetterError) as info:
        RU.rack(f"{typed}ОТ")
    assert (f"letter {typed!r} is not in the alphabet of russian (АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ): it is the "
            f"small letter of Latin {capital!r}, the twin of Cyrillic {cyrillic!r} (check the keyboard layout)") \
        == str(info.value)
    with pytest.raises(UnknownLetterError, match=rf"it is the small letter of Cyrillic '{cyrillic}', the twin of "
                                                 rf"Latin '{capital}'"):
        get_ruleset("english").alphabet.rack(cyrillic.lower())
    with pytest.raises(UnknownLetterError, match=r"^letter 'q' is not in the alphabet of russian \([^)]*\)$"):
        RU.rack("q")


# --- a CGP on stdin: read as UTF-8 whatever the locale, a BOM dropped, another encoding named ----------------
def _stdin(monkeypatch, raw: bytes, encoding: str = "ascii") -> None:
    # what LC_ALL=C with PYTHONUTF8=0 makes of stdin: ASCII, undecodable bytes as surrogate escapes
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(raw), encoding=encoding, errors="surrogateescape"))


def test_a_cgp_on_stdin_is_read_as_utf8_whatever_the_locale(monkeypatch, capsys):
    line = f"{EMPTY} АГЕЛНОС/ 0/0 0 ld russian;"
    code, want, _ = run(capsys, "moves", line, "--json", "--top", "3")
    assert code == 0 and json.loads(want)["moves"]
    for raw in (f"{line}\n".encode(), b"\xef\xbb\xbf" + f"{line}\r\n".encode()):  # a BOM: Windows Notepad's
        _stdin(monkeypatch, raw)
        code, out, err = run(capsys, "moves", "-", "--json", "--top", "3")
        assert code == 0 and json.loads(out) == json.loads(want), err


def test_a_cgp_on_stdin_in_another_encoding_is_named_not_blamed_on_the_locale(monkeypatch, capsys):
    _stdin(monkeypatch, f"\n{EMPTY} АГЕЛНОС/ 0/0 0 ld russian;\n".encode("cp1251"), "utf-8")
    code, out, err = run(capsys, "moves", "-")
    assert code == 1 and out == ""
    assert err.strip() == ("racksmith: the CGP read from stdin is not UTF-8 text (bad byte 0xc0 at offset 45 of "
                           "its line): save it as UTF-8")


# --- paths the system refuses ------------------------------------------------------------------------------
LONG = "A" * 300
DEEP = "/tmp/" + "/".join(["d"] * 3000)


@pytest.mark.parametrize("path", [LONG, DEEP])
def test_a_leave_path_too_long_is_a_racksmith_error_naming_it(path):
    from racksmith import BestEquityPlayer, EndgamePlayer, SimPlayer
    from racksmith.lexicon import load_leaves

    for make in (load_leaves, BestEquityPlayer, EndgamePlayer, lambda p: SimPlayer(leaves=p)):
        with pytest.raises(RacksmithError, match=re.escape(repr(path)[:40])):
            make(path)
    with pytest.raises(LexiconFormatError, match="cannot read leave file"):
        load_leaves(DEEP)


@pytest.mark.parametrize("path", [LONG, DEEP])
def test_saving_to_a_path_too_long_is_an_output_error(path):
    from racksmith.core.position import Position
    from racksmith.lexicon import load_leaves

    pos = Position.from_cgp(f"{EMPTY} AEINRST/ 0/0 0")
    for save in (load_leaves("english").save, pos.lexicon.save):
        with pytest.raises(OutputFileError, match=r"^cannot write " + re.escape(repr(path)[:40])):
            save(path)


def test_a_list_all_in_another_script_gets_no_look_alike_hint(tmp_path):
    """'кот' in an English list is no keyboard slip, though each of its letters has a Latin twin."""
    from racksmith.lexicon.wordlist import parse_word_list

    skipped = parse_word_list("кот\nтокен\nCAT\n", get_ruleset("english").alphabet, 15).skipped
    assert skipped.describe(15) == "skipped 2 words: 2 with letters outside the alphabet (line 1 'кот'; line 2 'токен')"


def test_an_alias_names_the_shipped_leaves_provenance_too():
    from racksmith import leaves_provenance, load_leaves
    from racksmith.lexicon.shipped_leaves import is_shipped_leaves, load_shipped_leaves

    assert leaves_provenance(" Эрудит ") == leaves_provenance("erudit")
    assert load_shipped_leaves("скрэббл") is load_leaves("russian")
    assert is_shipped_leaves("ЭРУДИТ") and not is_shipped_leaves("klingon")


def test_a_ruleset_named_by_text_gives_its_board_to_the_coordinate_message():
    from racksmith import Move
    from racksmith.errors import InvalidMoveError

    with pytest.raises(InvalidMoveError, match=r"columns are Latin letters A\.\.O"):
        Move.parse("8Б ВОБЛА", "russian")
    with pytest.raises(InvalidMoveError, match=r"'\*8Б=А' should be .*columns are Latin letters A\.\.O"):
        Move.parse("8D ВОБЛА *8Б=А", "erudit")
