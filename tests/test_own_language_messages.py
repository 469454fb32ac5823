"""A player of another language with a ruleset file of his own: what racksmith tells him when a
file of his is read with the wrong letters, when a word list loses words to letters outside the
alphabet, and when equity has no leave values to add (racksmith ships leaves for its own rulesets
only). Each message names what to do: the ruleset file to give, the letter_aliases to write, the
leave file to give or train."""
from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from racksmith import Lexicon, Ruleset
from racksmith.cli.main import main
from racksmith.errors import LexiconFormatError
from racksmith.lexicon import Leaves, load_leaves
from racksmith.rules.ruleset import provenance_fields

#: a small Polish-like game: five letters, two of them accented, on a 5x5 board
TINY_TOML = """\
name = "tinypl"
rack_size = 3
bingo_bonus = 5
start = "3C"
board = [".....", ".'.'.", "..-..", ".'.'.", "....."]
tiles = [["A", 8, 1], ["Ą", 2, 5], ["B", 4, 3], ["E", 8, 1], ["Ł", 2, 3]]
lexicon = "words.txt"
"""
TINY_WORDS = ["AB", "BA", "BE", "EA", "ABE", "BAA", "BEE", "BĄ", "ŁA", "ŁEB", "BĄE", "AŁA"]

#: a French-like game: A to E, no letter_aliases
FRENCH_TOML = """\
name = "tinyfr"
rack_size = 3
bingo_bonus = 5
start = "3C"
board = [".....", ".'.'.", "..-..", ".'.'.", "....."]
tiles = [["A", 8, 1], ["B", 4, 3], ["C", 4, 3], ["D", 4, 2], ["E", 8, 1]]
lexicon = "mots.txt"
"""
#: French words, lowercase, accented: one in three has an accent
FRENCH_WORDS = ["abc", "bac", "cad", "dé", "bébé", "ace", "béca", "déca", "dace", "bâbe", "cède", "bec"]


def tiny(folder: Path) -> Path:
    (folder / "words.txt").write_text("\n".join(TINY_WORDS) + "\n", encoding="utf-8")
    path = folder / "tinypl.toml"
    path.write_text(TINY_TOML, encoding="utf-8")
    return path


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# --- a. a KWG built for a ruleset file, read without it ---------------------------------------------------
def test_a_kwg_refused_under_other_letters_names_its_ruleset_file(tmp_path, capsys):
    """It said "was built for ruleset another alphabet (AĄBC...)": no ruleset called that exists.
    The sidecar of a KWG built with a ruleset file records the file; the refusal names it."""
    rules = tiny(tmp_path)
    kwg = tmp_path / "pl.kwg"
    code, _, err = run(capsys, "lexicon", "build", tmp_path / "words.txt", "-r", rules, "-o", kwg)
    assert code == 0, err
    side = json.loads((tmp_path / "pl.kwg.json").read_text("utf-8"))
    assert side["ruleset_file"] == str(rules.absolute()) and side["ruleset"] == "tinypl"
    code, _, err = run(capsys, "lexicon", "check", kwg, "BĄ")
    assert code == 1
    assert "another alphabet" not in err and "ruleset another" not in err
    assert "was built for ruleset tinypl" in err and "not those of english" in err
    assert f"read it with the ruleset file it was built with, {str(rules.absolute())!r}" in err
    assert "--ruleset" in err  # (the command line's option, added to the library's message)
    code, out, err = run(capsys, "lexicon", "check", kwg, "BĄ", "-r", rules)
    assert code == 0 and "BĄ: valid" in out


def test_a_kwg_whose_sidecar_names_no_ruleset_is_refused_naming_its_alphabet(tmp_path):
    """A sidecar with letters alone (a KWG saved before the ruleset file was recorded, or from the
    library without it): the alphabet's size and letters, and what to give."""
    rs = Ruleset.load(tiny(tmp_path))
    Lexicon.from_words(TINY_WORDS, rs).save(tmp_path / "pl.kwg")
    assert "ruleset_file" not in json.loads((tmp_path / "pl.kwg.json").read_text("utf-8"))
    with pytest.raises(LexiconFormatError) as info:
        Lexicon.load(tmp_path / "pl.kwg")
    message = str(info.value)
    assert "KWG" in message and "was built for an alphabet of 5 letters, AĄBEŁ" in message
    assert "not for the 26 letters of english" in message
    assert "read it with the ruleset file it was built with" in message
    assert info.value.param == "ruleset"


def test_lexicon_info_counts_a_kwg_without_its_ruleset(tmp_path, capsys):
    """``lexicon info`` only counts (words, nodes): it was refused without --ruleset, where MAGPIE
    and wolges print the counts of any KWG. It counts; with --ruleset the same counts."""
    rules = tiny(tmp_path)
    kwg = tmp_path / "pl.kwg"
    Lexicon.from_words(TINY_WORDS, Ruleset.load(rules)).save(kwg, ruleset=Ruleset.load(rules))
    code, out, err = run(capsys, "lexicon", "info", kwg, "--json")
    assert code == 0, err
    counted = json.loads(out)
    assert counted["words"] == len(TINY_WORDS) and counted["gaddag"] is True
    code, out, _ = run(capsys, "lexicon", "info", kwg, "--json", "-r", rules)
    assert code == 0 and json.loads(out) == counted
    code, out, _ = run(capsys, "lexicon", "info", kwg)
    assert code == 0 and f"{len(TINY_WORDS)} words" in out
    # a file that is no KWG is still refused
    (tmp_path / "bad.kwg").write_bytes(b"\x00\x00\x40\x00\x05\x00\x00\x00")
    code, _, err = run(capsys, "lexicon", "info", tmp_path / "bad.kwg")
    assert code == 1 and "KWG" in err


# --- b. a leave file trained with a ruleset file --------------------------------------------------------
def _trained_leaves(folder: Path, rules: Path) -> Path:
    """A leave file with the provenance ``leaves train`` writes for a ruleset file."""
    rs = Ruleset.load(rules)
    path = folder / "pl.klv2"
    leaves = Leaves.from_pairs([("Ą", 2.5), ("B", -1.0), ("?", 20.0)], rs)
    leaves.save(path)
    data = path.read_bytes()
    import hashlib

    prov = {"format": "racksmith-leaves-provenance/1", **provenance_fields(rs),
            "sha256": hashlib.sha256(data).hexdigest()}
    (folder / "pl.klv2.json").write_text(json.dumps(prov, ensure_ascii=False), "utf-8")
    return path


def test_a_leave_file_of_a_ruleset_file_names_the_file_to_read_it_with(tmp_path, capsys):
    """It said "read it with ruleset polish", and ``--ruleset polish`` then failed: a ruleset
    file's name is not a name racksmith knows. Its path is."""
    from racksmith.play.players import BestEquityPlayer

    rules = tiny(tmp_path)
    path = _trained_leaves(tmp_path, rules)
    wanted = f"read it with the ruleset file it was trained with, {str(rules.absolute())!r}"
    with pytest.raises(LexiconFormatError) as info:
        load_leaves(path)
    assert wanted in str(info.value) and "read it with ruleset tinypl" not in str(info.value)
    with pytest.raises(LexiconFormatError, match="ruleset file it was trained with"):
        BestEquityPlayer(str(path))
    assert BestEquityPlayer(str(path), ruleset=str(rules)).leaves.value("Ą") == 2.5
    assert "ruleset=" in BestEquityPlayer.__doc__ and "shipped" in BestEquityPlayer.__doc__
    english = tmp_path / "english.txt"
    english.write_text("\n".join(["." * 15] * 15) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "moves", "--leaves", path, "--board", english, "--rack", "ABE")
    assert code == 1 and str(rules.absolute()) in err and "--ruleset" in err and "unknown ruleset" not in err
    board = tmp_path / "board.txt"
    board.write_text("\n".join(["....."] * 5) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "moves", "--leaves", path, "--board", board, "--rack", "ABĄ", "-r", rules)
    assert code == 0, err


# --- c. a word list's skipped words -----------------------------------------------------------------------
def test_building_a_list_for_another_alphabet_names_the_alphabet_and_ruleset(tmp_path, capsys):
    """46% of a Polish list was dropped under English with exit 0, and the note named neither the
    alphabet nor --ruleset."""
    tiny(tmp_path)
    code, _, err = run(capsys, "lexicon", "build", tmp_path / "words.txt", "-o", tmp_path / "x.kwg")
    assert code == 0
    assert "with letters outside the alphabet of english" in err
    assert "a list written for another ruleset needs that ruleset (--ruleset FILE)" in err
    # the same note for every command reading the list (here through --lexicon)
    code, _, err = run(capsys, "lexicon", "check", tmp_path / "words.txt", "AB")
    assert code == 0 and "outside the alphabet of english" in err and "--ruleset FILE" in err


@pytest.mark.parametrize("form", ["NFC", "NFD"])
def test_an_accented_list_is_told_of_letter_aliases(tmp_path, capsys, form):
    """A French list with accents under a ruleset file of A to E (no letter_aliases): the accented
    letters are accented forms of letters the alphabet has; the note shows the letter_aliases that
    read them so. A decomposed (NFD) list showed a lone accent ('̂'): letters are shown composed."""
    words = [unicodedata.normalize(form, w) for w in FRENCH_WORDS]
    (tmp_path / "mots.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    rules = tmp_path / "tinyfr.toml"
    rules.write_text(FRENCH_TOML, encoding="utf-8")
    code, _, err = run(capsys, "lexicon", "build", tmp_path / "mots.txt", "-r", rules, "-o", tmp_path / "fr.kwg")
    assert code == 0, err
    assert "outside the alphabet of tinyfr" in err
    assert "'dé'" in err and ": 'é'" in err
    assert not any(unicodedata.combining(ch) for ch in err)  # no accent shown apart from its letter
    assert 'letter_aliases = { "É" = "E", "Â" = "A", "È" = "E" }' in err
    assert "É, Â, È are accented forms of E, A" in err
    # with those aliases the list is read whole
    rules.write_text(FRENCH_TOML.replace('lexicon = "mots.txt"\n', 'lexicon = "mots.txt"\nletter_aliases = '
                                         '{ "É" = "E", "Â" = "A", "È" = "E" }\n'), encoding="utf-8")
    code, _, err = run(capsys, "lexicon", "build", tmp_path / "mots.txt", "-r", rules, "-o", tmp_path / "fr.kwg")
    assert code == 0 and "skipped" not in err


def test_a_list_refused_for_its_letters_mentions_letter_aliases_when_accented(tmp_path):
    from racksmith.lexicon import load_lexicon

    (tmp_path / "mots.txt").write_text("\n".join(["dé", "bébé", "café", "été", "ab"]) + "\n", encoding="utf-8")
    rules = tmp_path / "tinyfr.toml"
    rules.write_text(FRENCH_TOML, encoding="utf-8")
    with pytest.raises(LexiconFormatError, match=r'letter_aliases = \{ "É" = "E" \}'):
        load_lexicon(tmp_path / "mots.txt", str(rules))


# --- d. equity without leave values -------------------------------------------------------------------
def test_moves_by_equity_without_shipped_leaves_say_so(tmp_path, capsys):
    """``moves --leaves shipped`` (or --sort equity) under a ruleset file ranked "by equity" with no
    leave values, silently."""
    rules = tiny(tmp_path)
    board = tmp_path / "board.txt"
    board.write_text("\n".join(["....."] * 5) + "\n", encoding="utf-8")
    for extra in (["--leaves", "shipped"], ["--sort", "equity"]):
        code, out, err = run(capsys, "moves", "--board", board, "--rack", "ABE", "-r", rules, *extra)
        assert code == 0 and "by equity" in out
        assert err.count("note: racksmith ships no leave values for tinypl") == 1
        assert "equity without leave values" in err and "--leaves FILE" in err and "racksmith leaves train" in err
    # by score (the default without leaves), or with leaves=none asked for: nothing to say
    for extra in ([], ["--leaves", "none", "--sort", "equity"]):
        code, out, err = run(capsys, "moves", "--board", board, "--rack", "ABE", "-r", rules, *extra)
        assert code == 0 and "ships no leave values" not in err
    # English ships its leaves
    english = tmp_path / "english.txt"
    english.write_text("\n".join(["." * 15] * 15) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "moves", "--board", english, "--rack", "ABE", "--leaves", "shipped")
    assert code == 0 and "by equity" in out and "ships no leave values" not in err


def test_match_players_on_shipped_leaves_of_a_ruleset_file_say_so(tmp_path, capsys):
    rules = tiny(tmp_path)
    code, _, err = run(capsys, "match", "--p1", "equity", "--p2", "score", "--games", "2", "-r", rules)
    assert code == 0, err
    assert err.count("note: racksmith ships no leave values for tinypl") == 1
    assert "p1 (equity) plays equity without leave values" in err
    assert "--p1 equity:leaves=FILE" in err and "racksmith leaves train" in err and "p2" not in err.split("note:")[1]
    code, _, err = run(capsys, "match", "--p1", "equity:leaves=none", "--p2", "score", "--games", "2", "-r", rules)
    assert code == 0 and "ships no leave values" not in err
    code, _, err = run(capsys, "match", "--p1", "equity", "--p2", "score", "--games", "2")
    assert code == 0 and "ships no leave values" not in err
