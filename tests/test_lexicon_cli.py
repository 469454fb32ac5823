"""``racksmith lexicon ...`` through the real entry point."""
from __future__ import annotations

import json
from pathlib import Path

from racksmith.cli.main import main
from racksmith.lexicon import Lexicon

FIXTURES = Path(__file__).parent / "fixtures"


def run(capsys, *args: str):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_build_then_info_and_check(tmp_path, capsys):
    words = tmp_path / "words.txt"
    words.write_text("care\ncar\ncab\nab\nx\nnaïve\n" + "q" * 16 + "\n", encoding="utf-8")
    out_kwg = tmp_path / "out.kwg"
    code, out, err = run(capsys, "lexicon", "build", words, "-o", out_kwg)
    assert code == 0 and "skipped" not in out
    assert "4 words" in out and "skipped 3 words" in err
    assert Lexicon.load(out_kwg).words() == ["AB", "CAB", "CAR", "CARE"]
    code, out, _ = run(capsys, "lexicon", "info", out_kwg, "--json")
    info = json.loads(out)
    assert code == 0 and info["words"] == 4 and info["gaddag"] is True and info["bytes"] == out_kwg.stat().st_size
    assert set(info) == {"words", "nodes", "dawg_nodes", "gaddag", "bytes"}
    code, out, _ = run(capsys, "lexicon", "check", out_kwg, "CARE", "cars", "Ab", "--json")
    assert code == 0 and json.loads(out) == {"CARE": True, "cars": False, "Ab": True}


def test_dawg_only_and_magpie_layout(tmp_path, capsys):
    words = tmp_path / "words.txt"
    words.write_text("care\ncar\n", encoding="utf-8")
    code, _, _ = run(capsys, "lexicon", "build", words, "-o", tmp_path / "d.kwg", "--dawg-only")
    assert code == 0 and not Lexicon.load(tmp_path / "d.kwg").has_gaddag
    code, _, _ = run(capsys, "lexicon", "build", words, "-o", tmp_path / "m.kwg", "--magpie-layout")
    assert code == 0 and Lexicon.load(tmp_path / "m.kwg").words() == ["CAR", "CARE"]


def test_info_and_check_on_the_engines_files(capsys):
    for name, nodes in (("ENABLE15.kwg", 796_854), ("ENABLE15.wolges.kwg", 771_313)):
        code, out, _ = run(capsys, "lexicon", "info", FIXTURES / name, "--json")
        assert code == 0 and json.loads(out) == {
            "words": 168_548, "nodes": nodes, "dawg_nodes": json.loads(out)["dawg_nodes"], "gaddag": True,
            "bytes": 4 * nodes,
        }
        code, out, _ = run(capsys, "lexicon", "check", FIXTURES / name, "QUIRK", "QUIRKZ", "aa", "--json")
        assert code == 0 and json.loads(out) == {"QUIRK": True, "QUIRKZ": False, "aa": True}


def test_embedded_names(capsys):
    code, out, _ = run(capsys, "lexicon", "info", "enable", "--json")
    assert code == 0 and json.loads(out)["words"] == 168_548 and json.loads(out)["nodes"] == 771_313
    code, out, _ = run(capsys, "lexicon", "check", "ru", "ёж", "ЕЖ", "--json")
    assert code == 0 and json.loads(out) == {"ёж": True, "ЕЖ": False}
    code, out, _ = run(capsys, "lexicon", "check", "ru-erudit", "ёж", "ЕЖ", "--json")
    assert code == 0 and json.loads(out) == {"ёж": True, "ЕЖ": True}
    code, out, err = run(capsys, "lexicon", "info", "ru-erudit")
    assert code == 0 and err == "" and "58,729 words" in out and "OpenCorpora (CC BY-SA 3.0)" in out


def test_anagram(capsys):
    code, out, err = run(capsys, "lexicon", "anagram", "enable", "AEINST")
    assert code == 0 and out.split() == ["TENIAS", "TINEAS", "TISANE"] and "3 words" in err
    code, out, _ = run(capsys, "lexicon", "anagram", "enable", "QU?", "--partial", "--json")
    assert code == 0
    assert json.loads(out) == ["mU", "nU", "QUa", "sUQ", "Uh", "Um", "Un", "Up", "Us", "Ut", "xU"]


def test_errors_are_one_line_and_exit_1(tmp_path, capsys):
    bad = tmp_path / "bad.kwg"
    bad.write_bytes(b"\x00\x00\x40\x00\x07")
    code, out, err = run(capsys, "lexicon", "info", bad)
    assert code == 1 and out == "" and "not a whole number of 4-byte nodes" in err and err.count("\n") == 1
    code, _, err = run(capsys, "lexicon", "check", "nowhere.kwg", "A")
    assert code == 1 and "no lexicon 'nowhere.kwg'" in err
    code, _, err = run(capsys, "lexicon", "anagram", "enable", "AB1")
    assert code == 1 and "not in the alphabet" in err
    for tiles, what in (("A" * 256, "256 A"), ("?" * 256, "256 blanks")):  # more than the search counts
        code, out, err = run(capsys, "lexicon", "anagram", "enable", tiles, "--partial")
        assert code == 1 and out == "" and err.count("\n") == 1 and f"the tiles hold {what}: " in err, err
    code, out, err = run(capsys, "lexicon", "anagram", "enable", "A" * 255 + "?" * 255)
    assert code == 0 and out == "" and "0 words" in err
    code, _, err = run(capsys, "lexicon", "build", tmp_path / "missing.txt", "-o", tmp_path / "x.kwg")
    assert code == 1 and "cannot read word list" in err


def test_build_names_what_it_skipped_in_words_of_the_right_number(tmp_path, capsys):
    words = tmp_path / "words.txt"
    words.write_text("кот\nдом\nлес1\n", encoding="utf-8")
    code, out, err = run(capsys, "lexicon", "build", words, "-o", tmp_path / "w.kwg", "-r", "russian")
    assert code == 0 and err == "skipped 1 word: 1 with letters outside the alphabet of russian (line 3 'лес1': '1')\n"
    words.write_text("кот\nдом\nлес1\nq\nя\n", encoding="utf-8")
    code, out, err = run(capsys, "lexicon", "build", words, "-o", tmp_path / "w.kwg", "-r", "russian")
    assert code == 0 and err == ("skipped 3 words: 2 with letters outside the alphabet of russian (line 3 'лес1': '1'; line 4 'q'), "
                                 "1 shorter than 2; a list written for another ruleset needs that ruleset (--ruleset FILE)\n")


def test_info_json_of_an_embedded_lexicon_carries_its_attribution(capsys):
    code, out, _ = run(capsys, "lexicon", "info", "ru")
    assert code == 0 and "embedded: Russian nouns with Ё, from OpenCorpora (CC BY-SA 3.0)" in out
    code, out, _ = run(capsys, "lexicon", "info", "ru", "--json")
    assert code == 0 and json.loads(out)["embedded"] == "Russian nouns with Ё, from OpenCorpora (CC BY-SA 3.0)"
