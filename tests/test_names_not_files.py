"""Names that are not files: an embedded lexicon's name in ``lexicon info`` and a shipped leave set's
name (and ``shipped``) are what racksmith ships whatever the current folder holds (a file of that
name is ``./NAME``); and a ruleset's name, written in a CGP's ``ld`` and a GCG's
``#tile-distribution``, is one word that reads back as written."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from racksmith import Position, Ruleset, RulesetError, get_ruleset
from racksmith.lexicon import EMBEDDED, Lexicon, load_leaves
from racksmith.rules.ruleset import BUILTIN
from conftest import run_cli as run

FIXTURES = Path(__file__).parent / "fixtures"
EMPTY_BOARD = "/".join(["15"] * 15)
OPENING = f"{EMPTY_BOARD} AEIOQUV/ 0/0 0"


def three_word_kwg(path: Path) -> Path:
    Lexicon.from_words(["CAT", "CATS", "DOG"]).save(path)
    return path


# --- 1. lexicon info NAME: the embedded lexicon, with its attribution ------------------------------------
@pytest.mark.parametrize("make", ["kwg", "word list"])
def test_lexicon_info_enable_is_the_embedded_lexicon_whatever_the_folder_holds(tmp_path, monkeypatch, capsys, make):
    """A KWG file named ``enable`` was described in its place (3 words); a word list of that name
    gave ENABLE's counts without the attribution its licence asks for. ``./enable`` is the file."""
    if make == "kwg":
        three_word_kwg(tmp_path / "enable")
    else:
        (tmp_path / "enable").write_text("CAT\nCATS\nDOG\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    attribution = EMBEDDED["enable"].description
    code, out, err = run(capsys, "lexicon", "info", "enable")
    assert code == 0, err
    assert "168,548 words" in out and f"embedded: {attribution}" in out
    code, out, err = run(capsys, "lexicon", "info", "enable", "--json")
    info = json.loads(out)
    assert code == 0 and info["words"] == 168_548 and info["embedded"] == attribution
    code, out, err = run(capsys, "lexicon", "info", "./enable", "--json")
    info = json.loads(out)
    assert code == 0 and info["words"] == 3 and "embedded" not in info


def test_lexicon_info_of_an_embedded_name_in_a_folder_holding_a_folder_of_that_name(tmp_path, monkeypatch, capsys):
    (tmp_path / "ru").mkdir()
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "lexicon", "info", "ru", "--json")
    assert code == 0, err
    assert json.loads(out)["embedded"] == EMBEDDED["ru"].description


# --- 2. --leaves NAME: the shipped set, whatever the folder holds --------------------------------------
def _moves(capsys, leaves: str) -> list:
    code, out, err = run(capsys, "moves", OPENING, "--leaves", leaves, "--top", "3", "--json")
    assert code == 0, err
    return [(m["notation"], m["equity"]) for m in json.loads(out)["moves"]]


@pytest.mark.parametrize("kind", ["directory", "file"])
def test_a_shipped_set_s_name_is_the_shipped_set_whatever_the_folder_holds(tmp_path, monkeypatch, capsys, kind):
    """Folders ``english/`` and ``shipped/`` made ``--leaves english`` say "cannot read leave file
    'english': it is a directory"; a leave file called ``english`` was read in the shipped set's
    place. A file of that name is ``./english``."""
    shipped = _moves(capsys, "english")
    synth = _moves(capsys, str(FIXTURES / "SYNTH.klv2"))
    assert shipped != synth
    for name in ("english", "shipped"):
        if kind == "directory":
            (tmp_path / name).mkdir()
        else:
            (tmp_path / name).write_bytes((FIXTURES / "SYNTH.klv2").read_bytes())
    monkeypatch.chdir(tmp_path)
    assert _moves(capsys, "english") == shipped
    assert _moves(capsys, " English ") == shipped
    assert _moves(capsys, "shipped") == shipped
    assert load_leaves("english").value("?ERS") == load_leaves("shipped", "english").value("?ERS")
    if kind == "file":
        assert _moves(capsys, "./english") == synth and _moves(capsys, "./shipped") == synth
        assert load_leaves(Path("english")).value("?ERS") == load_leaves(FIXTURES / "SYNTH.klv2").value("?ERS")
    else:
        code, _, err = run(capsys, "moves", OPENING, "--leaves", "./english")
        assert code != 0 and "is a directory" in err


def test_position_moves_take_a_shipped_set_by_name_beside_a_folder_of_that_name(tmp_path, monkeypatch):
    (tmp_path / "english").mkdir()
    (tmp_path / "erudit").mkdir()
    monkeypatch.chdir(tmp_path)
    pos = Position.from_cgp(OPENING)
    want = [(m.notation(), round(m.equity, 3)) for m in pos.moves(5, sort="equity", leaves=load_leaves("english"))]
    for _ in range(2):  # (the second call: from the move generator's memo)
        assert [(m.notation(), round(m.equity, 3)) for m in pos.moves(5, sort="equity", leaves="english")] == want
    erudit = get_ruleset("erudit")
    assert load_leaves("эрудит", erudit) is load_leaves("erudit", erudit)


# --- 3. a ruleset's name: one word that CGP and GCG write as it is ----------------------------------------
def _named(tmp_path: Path, name: str) -> Path:
    english = get_ruleset("english").to_dict()
    tiles = [[t, n, 9 if t == "Z" else p] for t, n, p in english["tiles"]]  # (other tiles: the CGP names the file)
    data = {**english, "name": name, "aliases": [], "tiles": tiles}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("name, shown", [
    ("fr;x", "';'"), ("my rules", "white space"), ("a\tb", "white space"), ("x/y", "'/'"), ("a#b", "'#'"),
    ("ab\x01", "U+0001"),
])
def test_a_ruleset_name_a_record_cannot_write_is_refused(tmp_path, name, shown):
    """``name = "fr;x"`` made positions write ``ld fr;x;``, read back as ``ld fr`` and an opcode ``x``."""
    with pytest.raises(RulesetError, match="field 'name'") as e:
        Ruleset.load(_named(tmp_path, name))
    assert shown in str(e.value) and "letters, digits and - _ . +" in str(e.value)
    with pytest.raises(RulesetError, match="field 'name'"):
        Ruleset.from_dict({**get_ruleset("english").to_dict(), "name": name, "aliases": []})


@pytest.mark.parametrize("name", ["fr-x", "fr_x", "czech7", "v1.2", "a+b", "слова-2", "Français"])
def test_a_ruleset_name_of_one_word_reads_back_from_its_cgp(tmp_path, name):
    rs = Ruleset.load(_named(tmp_path, name))
    cgp = Position.empty(rs, rack="AEINRST").cgp()
    assert f" ld {rs.name};" in cgp
    back = Position.from_cgp(cgp, ruleset=rs)
    assert back.cgp() == cgp and [k for k, _ in back.current_opcodes].count("ld") == 1
    assert dict(back.current_opcodes)["ld"] == rs.name


def test_every_shipped_ruleset_and_the_tutorial_s_file_have_a_valid_name():
    for name in BUILTIN:
        assert get_ruleset(name).name == name
    assert Ruleset.load(FIXTURES / "tutorials" / "own-language" / "french.toml").name == "french"
