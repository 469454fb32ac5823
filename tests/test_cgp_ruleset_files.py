"""A ruleset file's positions as CGP, and the rules a CGP names: a ruleset file's own lexicon
serves that ruleset only on the web server; a ruleset file's CGP names the file's rules by its
name (``ld``, ``bdn``) where they differ from those it would otherwise be read with, so that it is
refused without the file; a ``bdn`` and an ``ld`` no ruleset plays together are refused; a letter
no shipped ruleset has says to pass the ruleset file."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from racksmith import Position, Ruleset, get_ruleset
from racksmith.cli.main import main
from racksmith.errors import CGPError, RacksmithError
from racksmith.web.api import Analyzer

ENGLISH = get_ruleset("english")
EMPTY15 = "/".join(["15"] * 15)
EMPTY21 = "/".join(["21"] * 21)
QUIRK = {"cgp": f"{EMPTY15} QUIRKAE/ 0/0 0", "ruleset": "english", "move": "8H QUIRK"}


def ruleset_file(folder: Path, filename: str, **fields) -> Path:
    """English with ``fields`` changed, as a JSON ruleset file."""
    data = {**ENGLISH.to_dict(), "aliases": [], **fields}
    path = folder / filename
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def other_values(folder: Path, name: str = "house", **fields) -> Path:
    """English with Q worth 8 and K 10 (as in French): the same letters and counts, other values."""
    tiles = [[letter, ENGLISH.counts[i], ENGLISH.values[i]] for i, letter in enumerate(ENGLISH.alphabet.letters, 1)]
    for row in tiles:
        row[2] = {"Q": 8, "K": 10}.get(row[0], row[2])
    return ruleset_file(folder, f"{name}.json", name=name, tiles=tiles, **fields)


def other_board(folder: Path, name: str = "plain") -> Path:
    """English with no premium squares but the start: the same size, another board."""
    board = ["." * 15] * 15
    board[7] = "......." + "-" + "......."
    return ruleset_file(folder, f"{name}.json", name=name, board=board)


# --- 1. a ruleset file's own lexicon serves that ruleset, not the others spelled alike ---------------
def test_a_ruleset_file_s_own_lexicon_serves_only_that_ruleset(tmp_path):
    """`serve --ruleset french.toml` judged English with the French list ('QUIRK' not in the lexicon,
    "lexicon": "fr"): the file's word list was taken for --lexicon, which serves every ruleset
    spelled alike. It is the file's ruleset's own lexicon, as a shipped ruleset's is."""
    (tmp_path / "fr.txt").write_text("ABRI\nABRIS\nBRAS\n", encoding="utf-8")
    path = other_values(tmp_path, "french", lexicon="fr.txt")
    api = Analyzer(str(path))
    english = get_ruleset("english")
    assert api.lexicon_names(api.default)[0] == "fr"
    assert "fr" not in api.lexicon_names(english) and "fr" not in api.lexicon_names(get_ruleset("super"))
    answer = api.validate(QUIRK)
    assert answer["legal"] is True and answer["lexicon"] != "fr"
    with pytest.raises(RacksmithError, match="not available for ruleset english"):
        api.validate({**QUIRK, "lexicon": "fr"})
    # the file's ruleset is judged with its own list
    mine = api.validate({"cgp": f"{EMPTY15} ABRISEE/ 0/0 0", "move": "8H ABRIS"})
    assert mine["legal"] is True and mine["lexicon"] == "fr"
    # --lexicon given with a ruleset file serves that ruleset only too (a shipped default's serves
    # those spelled alike: tests/test_web.py)
    given = Analyzer(str(path), lexicon=str(tmp_path / "fr.txt"))
    assert "fr" not in given.lexicon_names(english) and given.validate(QUIRK)["lexicon"] == "enable"
    assert given.lexicon_names(given.default)[0] == "fr"


# --- 2. a ruleset file's CGP names its tiles and its board --------------------------------------------
def test_a_ruleset_file_with_other_values_writes_ld_and_is_refused_without_the_file(tmp_path, capsys):
    """A position of a ruleset file differing from English in its tile values only was written as a
    plain CGP, read back without the file as English (other scores, another bag)."""
    path = other_values(tmp_path)
    rs = Ruleset.load(path)
    pos = Position.from_cgp(f"{EMPTY15} AEIKQRS/ 0/0 0", rs)
    cgp = pos.cgp()
    assert cgp.endswith(" 0/0 0 ld house;") and " bdn " not in cgp
    with pytest.raises(CGPError, match="'ld house' names no ruleset racksmith knows") as e:
        Position.from_cgp(cgp)
    assert e.value.param == "ruleset"
    assert main(["show", cgp]) == 1
    assert "--ruleset" in capsys.readouterr().err  # the command line says which option passes the file
    again = Position.from_cgp(cgp, rs)  # with the file, the name is the file's
    assert again == pos and again.cgp() == cgp
    assert main(["show", "--ruleset", str(path), cgp]) == 0
    # a server started with the file reads it without a 'ruleset' in the request
    assert Analyzer(str(path)).position({"cgp": cgp})["ruleset"] == "house"
    # an 'ld' naming English (a Macondo CGP read with the file) names the file's tiles instead
    macondo = Position.from_cgp(f"{EMPTY15} AEIKQRS/ 0/0 0 lex CSW21; ld english;", rs)
    assert macondo.cgp().endswith(" 0/0 0 ld house; lex CSW21;")


def test_a_ruleset_file_with_another_board_writes_ld_and_bdn(tmp_path):
    path = other_board(tmp_path)
    rs = Ruleset.load(path)
    cgp = Position.from_cgp(f"{EMPTY15} AEIKQRS/ 0/0 0", rs).cgp()
    assert cgp.endswith(" 0/0 0 ld plain; bdn plain;")
    with pytest.raises(CGPError, match="'ld plain' names no ruleset racksmith knows"):
        Position.from_cgp(cgp)
    assert Position.from_cgp(cgp, rs).cgp() == cgp
    assert Analyzer(str(path)).position({"cgp": cgp})["ruleset"] == "plain"
    # a 'bdn' of the English board read with the file gives way to the file's
    assert Position.from_cgp(f"{EMPTY15} AB/ 0/0 0 bdn CrosswordGame;", rs).cgp().endswith(" ld plain; bdn plain;")


def test_the_french_game_of_the_report_names_its_ruleset(tmp_path):
    """`racksmith gcg cgp game.gcg --ruleset french.toml --turn 6`: the French values and counts."""
    tiles = [["A", 9, 1], ["B", 2, 3], ["C", 2, 3], ["D", 3, 2], ["E", 15, 1], ["F", 2, 4], ["G", 2, 2],
             ["H", 2, 4], ["I", 8, 1], ["J", 1, 8], ["K", 1, 10], ["L", 5, 1], ["M", 3, 2], ["N", 6, 1],
             ["O", 6, 1], ["P", 2, 3], ["Q", 1, 8], ["R", 6, 1], ["S", 6, 1], ["T", 6, 1], ["U", 6, 1],
             ["V", 2, 4], ["W", 1, 10], ["X", 1, 10], ["Y", 1, 10], ["Z", 1, 10]]
    rs = Ruleset.load(ruleset_file(tmp_path, "french.json", name="french", tiles=tiles))
    cgp = Position.from_cgp("15/15/15/15/15/8CE5/6BRAS5/5VUE7/5O9/5L9/5E9/5R9/5A9/4PIN8/15 FIKUUWX/CDEGIMN "
                            "30/45 0", rs).cgp()
    assert cgp.endswith(" 30/45 0 ld french;")
    with pytest.raises(CGPError, match="'ld french' names no ruleset"):
        Position.from_cgp(cgp)


def test_shipped_rulesets_and_files_with_english_tiles_write_what_they_did(tmp_path):
    """Only a file's other tiles or board are named: the shipped rulesets' CGPs are as they were,
    and a file with English's tiles and board (a house bingo bonus) names none."""
    assert Position.empty("english", "AB").cgp() == f"{EMPTY15} AB/ 0/0 0"
    assert Position.empty("super", "AB").cgp() == f"{EMPTY21} AB/ 0/0 0 ld english_super;"
    assert Position.empty("erudit", "АБ").cgp() == f"{EMPTY15} АБ/ 0/0 0 ld erudit;"
    assert Position.empty("russian", "АБ").cgp() == f"{EMPTY15} АБ/ 0/0 0 ld russian;"
    house = Ruleset.load(ruleset_file(tmp_path, "b40.json", name="b40", bingo_bonus=40))
    assert Position.empty(house, "AB").cgp() == f"{EMPTY15} AB/ 0/0 0 bb 40;"


# --- 3. a board and tiles no ruleset plays together -------------------------------------------------------
def test_a_super_board_with_english_tiles_is_refused(tmp_path):
    """'bdn SuperCrosswordGame; ld english;' was played with the 200 Super tiles; Macondo plays the
    100 English tiles on the Super board, which racksmith has no ruleset for."""
    cgp = f"{EMPTY21} AEINRST/ 0/0 0 bdn SuperCrosswordGame; ld english;"
    with pytest.raises(CGPError) as e:
        Position.from_cgp(cgp)
    message = str(e.value)
    assert "'bdn SuperCrosswordGame'" in message and "'ld english'" in message and "100 tiles" in message
    assert e.value.param == "ruleset" and message.endswith("pass a ruleset file with that board and those tiles")
    with pytest.raises(RacksmithError, match="'bdn SuperCrosswordGame' and 'ld english'") as web:
        Analyzer("english").position({"cgp": cgp})
    assert web.value.param == "ruleset"
    # naming the ruleset settles it, and the names that agree are read as before
    assert Position.from_cgp(cgp, "super").ruleset.name == "super"
    for opcodes, name in [("bdn SuperCrosswordGame; ld english_super;", "super"), ("bdn SuperCrosswordGame;", "super"),
                          ("var classic_super; lex NWL20;", "super")]:
        assert Position.from_cgp(f"{EMPTY21} AB/ 0/0 0 {opcodes}").ruleset.name == name
    assert Position.from_cgp(f"{EMPTY15} AB/ 0/0 0 bdn CrosswordGame; ld english;").ruleset.name == "english"
    assert Position.from_cgp(f"{EMPTY15} AB/ 0/0 0 bdn x; ld english;").ruleset.name == "english"
    with pytest.raises(CGPError, match="'bdn CrosswordGame' and 'ld english_super'"):
        Position.from_cgp(f"{EMPTY15} AB/ 0/0 0 bdn CrosswordGame; ld english_super;")
    # a position of Super with such opcodes is written so that it reads back as Super
    pos = Position.from_cgp(cgp, "super")
    assert Position.from_cgp(pos.cgp()).ruleset.name == "super"


# --- 4. a letter no shipped ruleset has ------------------------------------------------------------------
def test_a_letter_of_no_shipped_ruleset_says_to_pass_the_ruleset_file(capsys):
    """A Polish CGP given without its ruleset said only "letter 'Ż' is not in the alphabet of
    english (…)", where a GCG record and a Cyrillic CGP say what to pass."""
    cgp = f"{EMPTY15} ŻABA/ 0/0 0"
    with pytest.raises(CGPError) as e:
        Position.from_cgp(cgp)
    assert "letter 'Ż' is not in the alphabet of english" in str(e.value)
    assert "its letters are in no ruleset racksmith ships" in str(e.value)
    assert str(e.value).endswith("pass a ruleset file whose alphabet has them")  # (as a GCG record's says)
    assert e.value.param == "ruleset"
    assert main(["show", cgp]) == 1
    assert "(with --ruleset: a ruleset's name or a .toml/.json ruleset file)" in capsys.readouterr().err
    with pytest.raises(RacksmithError, match="pass a ruleset file") as web:
        Analyzer("english").position({"cgp": cgp})
    assert web.value.param == "ruleset"


def test_a_ruleset_file_s_leaves_serve_only_that_ruleset():
    """``serve --ruleset french.toml --leaves fr.klv2``: English (spelled A-Z too) got the French
    leave values; it keeps its shipped ones, and French has its own."""
    from pathlib import Path

    from racksmith import Position, load_leaves
    from racksmith.web.api import Analyzer

    here = Path(__file__).parent / "fixtures" / "tutorials" / "own-language"
    api = Analyzer(str(here / "french.toml"), leaves=str(here / "fr.klv2"))
    cgp = "15/15/15/15/15/15/15/3GLAZED6/15/15/15/15/15/15/15 DEEIIKT/ 0/30 0"
    got = api.moves({"cgp": cgp, "ruleset": "english", "top": 3, "leaves": True, "sort": "equity"})["moves"]
    shipped = Position.from_cgp(cgp).moves(top=3, sort="equity", leaves="english")
    assert [(m["notation"], m["equity"]) for m in got] == [(m.notation(), round(m.equity, 3)) for m in shipped]
    french = Position.from_cgp(cgp.replace("GLAZED", "GLACES").replace("DEEIIKT", "DEEIIRT"), str(here / "french.toml"))
    own = api.moves({"cgp": french.cgp(), "ruleset": "french", "top": 1, "leaves": True, "sort": "equity"})["moves"]
    mine = french.moves(top=1, sort="equity", leaves=load_leaves(str(here / "fr.klv2"), str(here / "french.toml")))
    assert own[0]["equity"] == round(mine[0].equity, 3)
