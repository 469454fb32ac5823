"""What a word list leaves out, said so that a club can mend its list: words with a letter of the
other script in place of its twin (Latin ``o`` in ``кoт``) counted apart from words with other
letters outside the alphabet (``кресло-качалка``), the first few of each named with their line;
and said on stderr by every command that reads a word list given with ``--lexicon``."""
from __future__ import annotations

import json

import pytest

from racksmith import Lexicon
from racksmith.cli.main import main
from racksmith.lexicon.wordlist import EXAMPLES, Skipped, parse_word_list
from racksmith.rules.alphabet import Alphabet
from racksmith.rules.ruleset import get_ruleset

RU = get_ruleset("russian").alphabet
EN = get_ruleset("english").alphabet
EMPTY15 = "/".join(["15"] * 15)
RUSSIAN_OPEN = f"{EMPTY15} КОТАБВГ/ 0/0 0"
CLUB = "кошка\nкресло-качалка\nкoт\nкот\nсобака\n"  # line 2 a hyphen, line 3 a Latin o


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def club(tmp_path, monkeypatch):
    """A club's list, compiled in a cache of its own (the note is made when the list is read)."""
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "club.txt"
    path.write_text(CLUB, encoding="utf-8")
    return path


# --- the record and its note -------------------------------------------------------------------------
def test_a_look_alike_is_counted_apart_from_a_hyphen_and_both_are_named_with_their_line():
    s = parse_word_list(CLUB, RU, 15).skipped
    assert (s.letters, s.lookalikes, s.total) == (2, 1, 2)
    assert s.lookalike_lines == ((3, "кoт", "o"),) and s.other_lines == ((2, "кресло-качалка", "-"),)
    assert s.describe(15) == ("skipped 2 words: 1 with a Latin letter in place of its Cyrillic twin (line 3 'кoт': "
                              "'o'), 1 with letters outside the alphabet (line 2 'кресло-качалка': '-')")
    assert s.example == "кресло-качалка"  # (the first skipped, as before)


def test_a_long_list_with_thousands_of_skips_stays_one_short_paragraph():
    lines = []
    for i in range(3000):
        lines += [f"кoт{'а' * (i % 5)}", "диван-кровать", "дом", "мор\u0435", "мoрe", "я"]
    s = parse_word_list("\n".join(lines) + "\n", RU, 15).skipped
    assert (s.letters, s.lookalikes, s.too_short) == (9000, 6000, 3000)
    assert len(s.lookalike_lines) == len(s.other_lines) == EXAMPLES == 3
    note = s.describe(15)
    assert note == ("skipped 12,000 words: 6,000 with a Latin letter in place of its Cyrillic twin (line 1 'кoт': "
                    "'o'; line 5 'мoрe': 'o', 'e'; line 7 'кoта': 'o'; and 5,997 more), 3,000 with letters outside "
                    "the alphabet (line 2 'диван-кровать': '-'; line 8 'диван-кровать': '-'; line 14 "
                    "'диван-кровать': '-'; and 2,997 more), 3,000 shorter than 2")


def test_an_english_list_names_a_cyrillic_letter_in_place_of_its_latin_twin():
    s = parse_word_list("cat\nc\u0430t\nnaïve\nab cd\n", EN, 15).skipped
    assert s.describe(15) == ("skipped 3 words: 1 with a Cyrillic letter in place of its Latin twin (line 2 'cаt': "
                              "'а'), 2 with letters outside the alphabet (line 3 'naïve': 'ï'; line 4 'ab cd': ' ')")


def test_lines_count_every_line_blank_ones_and_crlf_too():
    text = "\ufeffcat\r\n\r\n  dog  \r\nc\u043ew\r\nbird\r\n"
    assert parse_word_list(text.encode(), EN, 15).skipped.lookalike_lines == ((4, "cоw", "о"),)


def test_a_list_of_tiles_of_several_characters_names_lines_too():
    es = Alphabet(("A", "C", "CH", "E", "H", "O", "S"), name="es")
    s = parse_word_list("CASA\nA[CH]E\nCAZA\nCОSA\n", es, 15).skipped
    assert s.other_lines == ((3, "CAZA", "Z"),) and s.lookalike_lines == ((4, "CОSA", "О"),)


def test_words_given_as_strings_are_named_by_their_place():
    lex = Lexicon.from_words(["cat", "do\ng", "c\u0430t", "dog"], get_ruleset("english"))
    s = lex.skipped_by_reason
    assert s.other_lines == ((2, "do\ng", "\n"),) and s.lookalike_lines == ((3, "cаt", "а"),)
    assert s.example == "do\ng"


def test_the_record_goes_through_json_and_an_older_record_is_told_apart():
    s = parse_word_list(CLUB, RU, 15).skipped
    assert Skipped.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    with pytest.raises(KeyError):  # (written before the lines were kept: the cache builds it again)
        Skipped.from_dict({"letters": 1, "too_long": 0, "too_short": 0, "example": "кoт", "digits": False,
                           "lookalike": ""})
    old = Skipped(2, example="кoт", lookalike="'o' is the Latin twin of Cyrillic 'о'")  # no lines: as before
    assert old.describe(15) == ("skipped 2 words: 2 with letters outside the alphabet (first: 'кoт', whose 'o' is "
                                "the Latin twin of Cyrillic 'о')")


# --- the command line ------------------------------------------------------------------------------
def test_a_word_list_given_to_validate_gets_its_note_on_stderr(club, capsys):
    code, out, err = run(capsys, "validate", RUSSIAN_OPEN, "-r", "russian", "--lexicon", club,
                         "--move", "8H КОТ")
    assert code == 0 and out.startswith("legal: 8H КОТ")
    assert err.count("skipped") == 1 and "skipped" not in out
    assert (f"{club}: skipped 2 words: 1 with a Latin letter in place of its Cyrillic twin (line 3 'кoт': 'o'), "
            f"1 with letters outside the alphabet of russian (line 2 'кресло-качалка': '-')") in err


@pytest.mark.parametrize("command", [
    ["moves", RUSSIAN_OPEN, "-r", "russian", "--top", "1"],
    ["lexicon", "check", "{club}", "кот", "-r", "russian"],
    ["lexicon", "anagram", "{club}", "ТОК", "-r", "russian"],
])
def test_other_commands_say_it_once(club, capsys, command):
    args = [str(club) if a == "{club}" else a for a in command]
    if "--top" in args:
        args += ["--lexicon", club]
    code, out, err = run(capsys, *args)
    assert code == 0 and "skipped" not in out
    assert err.count(f"{club}: skipped 2 words") == 1 and "line 3 'кoт'" in err


def test_a_library_call_says_nothing(club, capsys):
    from racksmith import load_lexicon

    lex = load_lexicon(str(club), "russian")
    assert capsys.readouterr().err == ""
    assert lex.skipped == 2 and lex.skipped_by_reason.lookalike_lines == ((3, "кoт", "o"),)


def test_the_note_names_the_lines_when_the_list_comes_from_the_disk_cache(club, capsys):
    """The second run of a command reads the compiled list from the cache: its record keeps the
    lines of the words skipped, and the note is the first run's."""
    from racksmith.lexicon import load as load_module

    notes = []
    for _ in range(2):
        load_module._from_files.clear()  # (a new process: nothing loaded yet)
        code, out, err = run(capsys, "validate", RUSSIAN_OPEN, "-r", "russian", "--lexicon", club, "--move", "8H КОТ")
        assert code == 0
        notes.append(err)
    assert len(list((club.parent / "cache").glob("club-*.json"))) == 1  # the second run read the cache
    assert notes[0] == notes[1] and "line 3 'кoт': 'o'" in notes[1]
