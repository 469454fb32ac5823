"""The shipped rulesets against the facts of the reference, user ruleset files, and every malformed field."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from racksmith.errors import RulesetError
from racksmith.rules.ruleset import Ruleset, available_rulesets, get_ruleset

# --- the facts, transcribed from the reference (not from the TOML files) ----------------------------
STANDARD = [
    "=  '   =   '  =",
    " -   \"   \"   - ",
    "  -   ' '   -  ",
    "'  -   '   -  '",
    "    -     -    ",
    " \"   \"   \"   \" ",
    "  '   ' '   '  ",
    "=  '   -   '  =",
    "  '   ' '   '  ",
    " \"   \"   \"   \" ",
    "    -     -    ",
    "'  -   '   -  '",
    "  -   ' '   -  ",
    " -   \"   \"   - ",
    "=  '   =   '  =",
]
SUPER = [
    "~  '   =  '  =   '  ~",
    " -  \"   -   -   \"  - ",
    "  -  ^   - -   ^  -  ",
    "'  =  '   =   '  =  '",
    " \"  -   \"   \"   -  \" ",
    "  ^  -   ' '   -  ^  ",
    "   '  -   '   -  '   ",
    "=      -     -      =",
    " -  \"   \"   \"   \"  - ",
    "  -  '   ' '   '  -  ",
    "'  =  '   -   '  =  '",
    "  -  '   ' '   '  -  ",
    " -  \"   \"   \"   \"  - ",
    "=      -     -      =",
    "   '  -   '   -  '   ",
    "  ^  -   ' '   -  ^  ",
    " \"  -   \"   \"   -  \" ",
    "'  =  '   =   '  =  '",
    "  -  ^   - -   ^  -  ",
    " -  \"   -   -   \"  - ",
    "~  '   =  '  =   '  ~",
]


def points_table(groups: dict[int, str]) -> dict[str, tuple[int, int]]:
    """``{points: "E12 A9 ..."}`` -> ``{letter: (count, points)}``."""
    out = {}
    for pts, spec in groups.items():
        for item in spec.split():
            out[item[0]] = (int(item[1:]), pts)
    return out


ENGLISH_TILES = points_table({
    1: "E12 A9 I9 O8 N6 R6 T6 L4 S4 U4", 2: "D4 G3", 3: "B2 C2 M2 P2", 4: "F2 H2 V2 W2 Y2",
    5: "K1", 8: "J1 X1", 10: "Q1 Z1",
})
RUSSIAN_TILES = points_table({
    1: "А8 В4 Е8 И5 Н5 О10 Р5 С5 Т5", 2: "Д4 К4 Л4 М3 П4 У4", 3: "Б2 Г2 Ё1 Ь2 Я2", 4: "Й1 Ы2",
    5: "Ж1 З2 Х1 Ц1 Ч1", 8: "Ш1 Э1 Ю1", 10: "Ф1 Щ1 Ъ1",
})
ERUDIT_TILES = points_table({
    1: "А10 Е9 И8 Н8 О10", 2: "В5 Д5 Й4 К6 Л4 М5 П6 Р6 С6 Т5", 3: "Б3 Г3 У3 Я3",
    5: "Ж2 З2 Х2 Ч2 Ы2 Ь2", 10: "Ф1 Ц1 Ш1 Щ1 Ъ1 Э1 Ю1",
})
SUPER_TILES = {
    letter: (int(n), int(p))
    for letter, n, p in (
        x.split() for x in (
            "A 16 1; B 4 3; C 6 3; D 8 2; E 24 1; F 4 4; G 5 2; H 5 4; I 13 1; J 2 8; K 2 5; L 7 1; M 6 3; "
            "N 13 1; O 15 1; P 4 3; Q 2 10; R 13 1; S 10 1; T 15 1; U 7 1; V 3 4; W 4 4; X 2 8; Y 4 4; Z 2 10"
        ).split("; ")
    )
}

FACTS = {
    # name: (layout, tiles, blanks, total tiles, bingo, start, start premium, alphabet size)
    "english": (STANDARD, ENGLISH_TILES, 2, 100, 50, "8H", "-", 26),
    "russian": (STANDARD, RUSSIAN_TILES, 2, 104, 50, "8H", "-", 33),
    "erudit": (STANDARD, ERUDIT_TILES, 3, 131, 15, "8H", ".", 32),
    "super": (SUPER, SUPER_TILES, 4, 200, 50, "11K", "-", 26),
}


def reference_layout(name: str) -> list[str]:
    layout = [row.replace(" ", ".") for row in FACTS[name][0]]
    if name == "erudit":  # the same layout with a plain centre
        layout[7] = layout[7][:7] + "." + layout[7][8:]
    return layout


@pytest.mark.parametrize("name", list(FACTS))
def test_shipped_ruleset_matches_the_reference(name):
    layout, tiles, blanks, total, bingo, start, start_premium, letters = FACTS[name]
    rs = get_ruleset(name)
    assert rs.layout() == reference_layout(name)
    assert len(rs.alphabet) == letters == len(tiles)
    assert {l: (rs.counts[i], rs.values[i]) for i, l in enumerate(rs.alphabet.letters, 1)} == tiles
    assert (rs.blanks, rs.values[0]) == (blanks, 0)
    assert rs.total_tiles == total == blanks + sum(n for n, _ in tiles.values())
    assert rs.bingo_bonus == bingo and rs.rack_size == 7 and rs.exchange_limit == 7 and rs.zero_turn_limit == 6
    r, c = rs.row_col(rs.start)
    assert f"{r + 1}{chr(65 + c)}" == start
    assert rs.premium_char(rs.start) == start_premium


def test_points_in_all():
    assert sum(n * p for n, p in ENGLISH_TILES.values()) == 187
    assert sum(a * b for a, b in zip(get_ruleset("english").counts, get_ruleset("english").values)) == 187


@pytest.mark.parametrize(
    "name, counts",
    [
        ("english", {"=": 8, "-": 17, '"': 12, "'": 24}),
        ("russian", {"=": 8, "-": 17, '"': 12, "'": 24}),
        ("erudit", {"=": 8, "-": 16, '"': 12, "'": 24}),  # the centre is plain
        ("super", {"~": 4, "=": 16, "-": 41, "^": 8, '"': 20, "'": 36}),
    ],
)
def test_premium_counts(name, counts):
    rs = get_ruleset(name)
    got = Counter(rs.premium_char(sq) for sq in range(rs.size))
    del got["."]
    assert dict(got) == counts


def test_premium_multipliers_per_square():
    en = get_ruleset("english")
    assert (en.letter_multipliers[0], en.word_multipliers[0]) == (1, 3)  # 1A triple word
    assert (en.letter_multipliers[3], en.word_multipliers[3]) == (2, 1)  # 1D double letter
    su = get_ruleset("super")
    assert su.word_multipliers[0] == 4 and su.letter_multipliers[su.square(2, 5)] == 4  # 1A, 3F


def test_end_rules_and_letter_aliases():
    assert get_ruleset("english").end_rule == "tournament" and get_ruleset("erudit").end_rule == "club"
    assert "Ё" not in get_ruleset("erudit").alphabet.letters
    assert get_ruleset("erudit").alphabet.tile("Ё") == get_ruleset("erudit").alphabet.tile("Е")
    assert get_ruleset("russian").alphabet.tile("Ë") == get_ruleset("russian").alphabet.tile("Ё")


@pytest.mark.parametrize(
    "alias, name",
    [("scrabble", "english"), ("English", "english"), ("classic", "english"), ("эрудит", "erudit"),
     ("ЭРУДИТ", "erudit"), ("erudite", "erudit"), ("ru", "russian"), ("скрэббл", "russian"),
     ("superscrabble", "super"), (" super ", "super"), (None, "english")],
)
def test_aliases(alias, name):
    assert get_ruleset(alias).name == name


def test_registry():
    assert [r.name for r in available_rulesets()] == ["english", "russian", "erudit", "super"]
    rs = get_ruleset("english")
    assert get_ruleset(rs) is rs
    with pytest.raises(RulesetError, match="unknown ruleset 'nope'"):
        get_ruleset("nope")


@pytest.mark.parametrize("name", list(FACTS))
def test_to_dict_round_trip(name):
    rs = get_ruleset(name)
    assert Ruleset.from_dict(rs.to_dict(), source=rs.source) == rs


# --- user files -------------------------------------------------------------------------------------
TINY_TOML = """
name = "Tiny"
title = "Tiny test game"
aliases = ["mini"]
rack_size = 3
bingo_bonus = 20
start = "3C"
blanks = 1
exchange_limit = 2
end_rule = "club"
board = ["=.'.-", ".\\"..~", "'.-.^", "^...=", "-.'.\\""]
tiles = [["A", 6, 1], ["B", 4, 3], ["C", 4, 2]]
"""


def test_load_toml_and_json(tmp_path: Path):
    p = tmp_path / "tiny.toml"
    p.write_text(TINY_TOML, encoding="utf-8")
    rs = Ruleset.load(p)
    assert (rs.name, rs.rows, rs.cols, rs.rack_size, rs.bingo_bonus, rs.blanks, rs.total_tiles) == ("tiny", 5, 5, 3, 20, 1, 15)
    assert rs.start == rs.square(2, 2) and rs.word_multipliers[rs.start] == 2
    assert rs.exchange_limit == 2 and rs.end_rule == "club" and rs.zero_turn_limit == 6 and rs.lexicon is None
    assert rs.letter_multipliers[rs.square(3, 0)] == 4 and rs.word_multipliers[rs.square(1, 4)] == 4
    assert get_ruleset(str(p)) == rs and get_ruleset(p) == rs
    j = tmp_path / "tiny.json"
    j.write_text(json.dumps(rs.to_dict()), encoding="utf-8")
    assert Ruleset.load(j) == Ruleset.from_dict(rs.to_dict(), source=str(j))


def base() -> dict:
    return {
        "name": "tiny",
        "board": ["=.'.-", '."..~', "'.-.^", "^...=", "-.'.\""],
        "tiles": [["A", 6, 1], ["B", 4, 3], ["C", 4, 2]],
        "rack_size": 3,
        "bingo_bonus": 20,
        "start": "3C",
    }


def test_base_is_valid():
    assert Ruleset.from_dict(base()).name == "tiny"


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("name", None, "'name' is missing"),
        ("name", 3, "'name' must be a string"),
        ("name", "  ", "'name' must not be empty"),
        ("board", None, "'board' is missing"),
        ("board", "=.'.-", "'board' must be a list"),
        ("board", ["....."], "'board' must have 2 to 26 rows"),
        ("board", ["....."] * 27, "'board' must have 2 to 26 rows"),
        ("board", [".....", 5], "'board' must be a list of strings"),
        ("board", [".....", "...."], "row 2 has 4 squares"),
        ("board", [".....", "..x.."], "row 2 column 3 has 'x'"),
        ("board", [".", "."], "'board' must have 2 to 26 columns"),
        ("board", ["." * 27, "." * 27], "'board' must have 2 to 26 columns"),
        ("tiles", None, "'tiles' is missing"),
        ("tiles", "ABC", "'tiles' must be a list"),
        ("tiles", [["A", 6]], "entry 1 must be [letter, count, points]"),
        ("tiles", [["A", -1, 1]], "entry 1 must be [letter, count, points]"),
        ("tiles", [["A", 6, 1], ["B", True, 1]], "entry 2 must be"),
        ("tiles", [["A", 6, 1], ["A", 3, 1]], "'tiles' entries 1 and 2 are both 'A' (letters are compared uppercased"),
        ("tiles", [["A", 6, 1], ["?", 3, 1]], "'tiles' entry 2: letter '?' holds '?'"),
        ("tiles", [["A", 1, 1]], "hold 1 tiles with the blanks, fewer than 2 full racks of 3 (6 tiles)"),
        ("tiles", [["A", 3, 1], ["B", 2, 1]], "hold 5 tiles with the blanks, fewer than 2 full racks of 3 (6 tiles)"),
        ("letter_aliases", ["X"], "'letter_aliases' must be a table"),
        ("letter_aliases", {"X": "Z"}, "field 'letter_aliases' alias 'X' points to 'Z', not a letter"),
        ("blanks", -1, "'blanks' must be >= 0"),
        ("blanks", "two", "'blanks' must be an integer"),
        ("rack_size", None, "'rack_size' is missing"),
        ("rack_size", 0, "'rack_size' must be 1..15"),
        ("rack_size", 16, "'rack_size' must be 1..15"),
        ("rack_size", 7.5, "'rack_size' must be an integer"),
        ("bingo_bonus", None, "'bingo_bonus' is missing"),
        ("bingo_bonus", "50", "'bingo_bonus' must be an integer"),
        ("end_rule", "friendly", "'end_rule' must be one of tournament, club"),
        ("end_rule", 1, "'end_rule' must be a string"),
        ("start", None, "'start' is missing"),
        ("start", "middle", "'start' must be a square like '8H'"),
        ("start", "8H", "'start' '8H' is off the 5x5 board"),
        ("exchange_limit", "7", "'exchange_limit' must be an integer"),
        ("exchange_limit", -1, "'exchange_limit' must be 0..1048576 (tiles the bag must hold for an exchange), got -1"),
        ("exchange_limit", 2**31, "'exchange_limit' must be 0..1048576 (tiles the bag must hold for an exchange), got"),
        ("exchange_limit", 10**30, "'exchange_limit' must be 0..1048576"),
        ("zero_turn_limit", 0, "'zero_turn_limit' must be 1..1000 (scoreless turns in a row that end the game), got 0"),
        ("zero_turn_limit", 1001, "'zero_turn_limit' must be 1..1000"),
        ("zero_turn_limit", 2**31, "'zero_turn_limit' must be 1..1000"),
        ("zero_turn_limit", 10**30, "'zero_turn_limit' must be 1..1000"),
        ("lexicon", 5, "'lexicon' must be a lexicon name"),
        ("aliases", "mini", "'aliases' must be a list of strings"),
        ("aliases", ["mini", 3], "'aliases' must be a list of strings"),
        ("title", ["x"], "'title' must be a string"),
    ],
)
def test_every_malformed_field_is_named(field, value, words):
    data = base()
    if value is None:
        del data[field]
    else:
        data[field] = value
    with pytest.raises(RulesetError) as e:
        Ruleset.from_dict(data, source="t.toml")
    assert words in str(e.value) and "t.toml" in str(e.value)


def test_malformed_files(tmp_path: Path, monkeypatch):
    with pytest.raises(RulesetError, match="cannot read ruleset file"):
        Ruleset.load(tmp_path / "missing.toml")
    # a built-in ruleset's name is not a file: say where the built-in ones are
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RulesetError, match=r"for the built-in ruleset use racksmith.get_ruleset\('Erudit'\)$"):
        Ruleset.load("Erudit")
    (tmp_path / "english").write_text('name = "mine"\nboard = ["..."]\n', encoding="utf-8")
    with pytest.raises(RulesetError, match="^ruleset english: field 'board'"):  # a file by that name is read
        Ruleset.load("english")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n", encoding="utf-8")
    with pytest.raises(RulesetError, match="is not valid toml"):
        Ruleset.load(bad)
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{", encoding="utf-8")
    with pytest.raises(RulesetError, match="is not valid json"):
        Ruleset.load(bad_json)
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(RulesetError, match="expected a table of fields, got list"):
        Ruleset.load(listed)
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes("name = \"é\"\n".encode("latin-1"))
    with pytest.raises(RulesetError, match="is not valid toml"):
        Ruleset.load(latin1)


def test_the_largest_limits_are_played_by_every_kernel(tmp_path: Path, capsys):
    """A ruleset file's exchange_limit and zero_turn_limit are refused past what the kernels take
    (the command says which field, in one line), and every kernel plays the largest accepted."""
    from racksmith.cli.main import main
    from racksmith.rules.ruleset import MAX_EXCHANGE_LIMIT, MAX_ZERO_TURN_LIMIT

    def ruleset_file(**fields) -> str:
        path = tmp_path / f"r{len(list(tmp_path.iterdir()))}.json"
        path.write_text(json.dumps({**get_ruleset("english").to_dict(), "name": "far", **fields}), encoding="utf-8")
        return str(path)

    start = "/".join(["15"] * 15) + " AEINRST/ 0/0 0"
    endgame = ("7M2MORAL/6COWBANEs1/6UN4AE1/5VIG3OPAH/4REFoRGED3/4EX1L7/4C10/3KRONA3FLIP/4U6O2A/1ZOWIE2T2I2N/"
               "4T2HAJIS2N/2BOSQUET2T2I/7DE5E/ADVISING6R/YE5Y6S DEEILRT/AOTU 0/0 0")
    far = ruleset_file(exchange_limit=MAX_EXCHANGE_LIMIT, zero_turn_limit=MAX_ZERO_TURN_LIMIT)
    for args in (["selfplay", "-n", "1"], ["selfplay", "-n", "1", "--engine", "python"],
                 ["moves", start, "--exchanges"], ["sim", start, "-i", "20", "--seed", "1"],
                 ["endgame", endgame, "--plies", "1", "-q"]):
        assert main(args + ["-r", far]) == 0, args
        capsys.readouterr()
    for field, value, words in (("exchange_limit", 2**31, "must be 0..1048576"),
                                ("zero_turn_limit", 2**31, "must be 1..1000"),
                                ("zero_turn_limit", 10**30, "must be 1..1000")):
        assert main(["selfplay", "-n", "1", "-r", ruleset_file(**{field: value})]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"field {field!r} {words}" in err, err


def test_a_built_in_ruleset_pickles_as_its_name_and_any_other_field_by_field():
    """Every pickled Move, Position and result carried the whole ruleset (premium grids, tile
    tables: about 2 KB a lone Move); a built-in one is now its name, and reads back as the same
    object; a changed or user ruleset still round-trips with every field."""
    import dataclasses
    import pickle

    from racksmith import Position
    from racksmith.rules.ruleset import BUILTIN

    for name in BUILTIN:
        rs = get_ruleset(name)
        blob = pickle.dumps(rs)
        assert len(blob) < 100 and pickle.loads(blob) is rs
    changed = dataclasses.replace(get_ruleset("english"), bingo_bonus=40)
    back = pickle.loads(pickle.dumps(changed))
    assert back == changed and back.bingo_bonus == 40 and back is not get_ruleset("english")
    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0")
    move = pos.moves(top=1)[0]
    blob = pickle.dumps(move)
    assert len(blob) < 1500  # (the ruleset's name; the move list's snapshot, which its moves share)
    assert pickle.loads(blob) == move and pickle.loads(blob).position.ruleset is get_ruleset("english")


def test_a_ruleset_file_loaded_again_unchanged_is_the_same_object(tmp_path: Path):
    """A bot loading its ruleset file every game made a new Ruleset each time, and the move
    generator's caches (keyed by the object) kept the last 16 alive with their tables."""
    import os

    from racksmith import Position
    from racksmith.movegen import generate

    data = get_ruleset("english").to_dict()
    data.pop("aliases", None)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(dict(data, name="mine")), encoding="utf-8")
    first = Ruleset.load(path)
    assert Ruleset.load(str(path)) is first and get_ruleset(str(path)) is first
    cgp = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0"
    before = len(generate._rules_cache)
    for _ in range(3):
        Position.from_cgp(cgp, ruleset=Ruleset.load(path)).moves(top=1)
    assert len(generate._rules_cache) <= before + 1
    # changed: read again
    path.write_text(json.dumps(dict(data, name="mine", bingo_bonus=35)), encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    second = Ruleset.load(path)
    assert second is not first and second.bingo_bonus == 35 and first.bingo_bonus == 50
