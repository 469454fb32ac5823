"""A GCG file read in the wrong encoding is one error saying which encoding it looks like, never
dozens of "letter 'À' is not in the alphabet" lines: a Russian record saved by a Windows program in
windows-1251 without a '#character-encoding' line (read as ISO-8859-1, the format's default), and a
record re-saved as UTF-8 that kept its '#character-encoding windows-1251' line. The encoding is
only hinted, never switched: an ISO-8859-1 record still reads as the format has it."""
from __future__ import annotations

import base64
import json

import pytest

from racksmith import get_ruleset
from racksmith.cli.main import main
from racksmith.errors import GCGError
from racksmith.formats.gcg import decode_gcg, parse_gcg, read_gcg
from racksmith.review.replay import replay_file
from racksmith.web.api import Analyzer

#: a Russian record without a '#character-encoding' line (no Ё: windows-1251 and KOI8-R both read
#: its bytes as Cyrillic letters, the cases swapped)
RUSSIAN = """\
#tile-distribution russian
#player1 аня Аня
#player2 борис Борис
>аня: АБВГДЕЖ 8H ДЕВА +10 10
>борис: КОТОНАК 9G КОТ +13 13
>аня: АБГЖЛМН 10F БЛАГ +28 38
"""
HEADLESS = RUSSIAN.replace("#tile-distribution russian\n", "")
CP1251_HINT = "add '#character-encoding windows-1251' as its first line, or save it as UTF-8"


def write(tmp_path, text: str, encoding: str, name: str = "g.gcg"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


# --- no '#character-encoding' line, windows-1251 bytes -------------------------------------------------
@pytest.mark.parametrize("strict", [True, False])
def test_a_windows_1251_record_naming_its_ruleset_is_one_error_with_the_hint(tmp_path, strict):
    path = write(tmp_path, RUSSIAN, "cp1251")
    with pytest.raises(GCGError) as e:
        read_gcg(path, strict=strict)  # was: one "letter 'À' is not in the alphabet of russian" per event line
    message = e.value.message
    assert e.value.line == 4  # the first line with a misread letter
    assert message.startswith(f"GCG file {str(path)!r}: the file is not UTF-8 and has no '#character-encoding' first "
                              "line, so it was read as ISO-8859-1")
    assert "are not in the alphabet of russian; read as windows-1251 they are letters of russian" in message
    assert CP1251_HINT in message
    # as the message says: the declaration added, the record replays
    fixed = write(tmp_path, "#character-encoding windows-1251\n" + RUSSIAN, "cp1251", "fixed.gcg")
    assert replay_file(fixed).ok


def test_a_windows_1251_record_naming_no_ruleset_names_the_encoding_not_a_ruleset_file(tmp_path):
    with pytest.raises(GCGError) as e:
        read_gcg(write(tmp_path, HEADLESS, "cp1251"))
    message = e.value.message
    # was: "... not English nor in any ruleset racksmith has: pass a ruleset file whose alphabet has them"
    assert "ruleset file" not in message and CP1251_HINT in message
    assert "are not in the alphabet of english; read as windows-1251 they are letters of russian or erudit" in message
    with pytest.raises(GCGError, match="read as windows-1251 they are letters of russian, so "):
        read_gcg(write(tmp_path, HEADLESS, "cp1251"), "russian")  # a ruleset given


def test_a_koi8_r_record_is_told_from_a_windows_1251_one(tmp_path):
    with pytest.raises(GCGError) as e:
        read_gcg(write(tmp_path, RUSSIAN, "koi8-r"))
    assert "read as KOI8-R they are letters of russian" in e.value.message
    assert "add '#character-encoding KOI8-R' as its first line" in e.value.message


def test_gcg_replay_says_it_in_one_line(tmp_path, capsys):
    path = write(tmp_path, RUSSIAN, "cp1251")
    assert main(["gcg", "replay", str(path)]) == 1
    captured = capsys.readouterr()
    err = captured.err
    assert err.count("\n") == 1 and "Traceback" not in err and "(and " not in err
    assert CP1251_HINT in err and "line 4: " in err


def test_the_game_tab_s_file_is_one_error_too(tmp_path):
    """POST /api/gcg with the file's bytes (``data``): one error, not a red line per event."""
    data = base64.b64encode(RUSSIAN.encode("cp1251")).decode()
    with pytest.raises(GCGError, match="the file looks like windows-1251"):
        Analyzer("english").gcg({"data": data, "analyze": False})
    fixed = base64.b64encode(("#character-encoding windows-1251\n" + RUSSIAN).encode("cp1251")).decode()
    answer = Analyzer("english").gcg({"data": fixed, "analyze": False})
    assert answer["errors"] == [] and answer["players"] == ["аня", "борис"]
    json.dumps(answer)


# --- a UTF-8 file that still declares windows-1251 -------------------------------------------------
@pytest.mark.parametrize("declared", ["windows-1251", "KOI8-R"])
def test_a_utf8_file_declaring_an_8_bit_encoding_says_it_is_utf8(tmp_path, declared):
    path = write(tmp_path, f"#character-encoding {declared}\n" + RUSSIAN, "utf-8")
    with pytest.raises(GCGError) as e:
        read_gcg(path, strict=False)  # was: "rack 'РђР‘Р'Р"Р•Р–': letter 'ђ' ..." per event line
    message = e.value.message
    assert e.value.line == 5
    assert message.startswith(f"GCG file {str(path)!r}: the first line declares the encoding {declared}, but the file "
                              f"appears to be UTF-8: read as {declared}, its characters ")
    assert ("read as UTF-8 they are letters of russian: remove the '#character-encoding' line, or make it "
            "'#character-encoding UTF-8'") in message
    assert main(["gcg", "replay", str(path)]) == 1


def test_a_utf8_file_declaring_windows_1251_with_a_byte_it_lacks_says_it_is_utf8():
    # 'И' is D0 98 in UTF-8, and 0x98 is no windows-1251 character: refused while decoding
    raw = ("#character-encoding windows-1251\n" + RUSSIAN.replace("Аня", "Аня Иванова")).encode("utf-8")
    with pytest.raises(GCGError) as e:
        decode_gcg(raw)
    assert e.value.line == 3
    assert ("the first line declares the encoding windows-1251, but the file appears to be UTF-8 (byte 0x98 is not "
            "windows-1251 text") in e.value.message
    assert "remove the '#character-encoding' line, or make it '#character-encoding UTF-8'" in e.value.message
    # bytes that are no UTF-8 either keep the message they had
    with pytest.raises(GCGError, match="save the file in that encoding, or correct its '#character-encoding' line"):
        decode_gcg(b"#character-encoding windows-1251\n#player1 a \x98\xff\n")


# --- what reads as it did --------------------------------------------------------------------------
def german_ish(tmp_path):
    """English with Ä, Ö, Ü tiles, as a user's ruleset file."""
    english = get_ruleset("english")
    data = {**english.to_dict(), "name": "german-ish", "aliases": [],
            "tiles": english.to_dict()["tiles"] + [["Ä", 1, 6], ["Ö", 1, 8], ["Ü", 1, 6]]}
    path = tmp_path / "german-ish.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


GERMAN = "#player1 jörg Jörg\n#player2 ute Ute\n>jörg: ÄENRSTÜ 8D ÄRST +10 10\n>ute: AEINÖRT 9C RÖT +12 12\n"


def test_an_iso_8859_1_record_still_reads_as_iso_8859_1(tmp_path):
    from racksmith import Ruleset

    ruleset = Ruleset.load(german_ish(tmp_path))
    path = write(tmp_path, GERMAN, "latin-1")
    game = read_gcg(path, ruleset)
    assert [e.rack for e in game.events] == ["ÄENRSTÜ", "AEINÖRT"] and game.players[0].nick == "jörg"
    named = write(tmp_path, "#tile-distribution german-ish\n" + GERMAN, "latin-1", "named.gcg")
    assert read_gcg(named, rulesets=(ruleset,)).events[1].rack == "AEINÖRT"
    # without its ruleset: the letters are said, as before (no encoding is hinted: the bytes read as
    # windows-1251 are Latin and Cyrillic letters mixed, no ruleset's)
    with pytest.raises(GCGError) as e:
        read_gcg(path)
    assert "pass a ruleset file whose alphabet has them" in e.value.message and "encoding" not in e.value.message
    # and with a ruleset lacking the letters: an error per line, as before
    assert len(read_gcg(path, "english", strict=False).errors) == 2


def test_correct_russian_records_and_typed_letters_are_not_hinted(tmp_path):
    assert replay_file(write(tmp_path, RUSSIAN, "utf-8")).ok
    assert replay_file(write(tmp_path, "#character-encoding windows-1251\n" + RUSSIAN, "cp1251", "w.gcg")).ok
    # letters no encoding explains (Latin letters in a Russian game) are each line's error, as before
    game = parse_gcg(RUSSIAN.replace("АБВГДЕЖ", "ABCDEFG"), strict=False)
    assert len(game.errors) == 1 and "not in the alphabet of russian" in game.errors[0].message
