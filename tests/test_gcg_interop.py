"""GCG records as other programs write them (Woogles.io, Macondo, Quackle, Elise, hand editing)
read and replayed; what racksmith writes read by their readers; what it cannot play refused with
a message naming it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from racksmith.cli.main import main
from racksmith.core.turns import EventKind
from racksmith.errors import GCGError
from racksmith.formats.gcg import decode_gcg, parse_gcg, read_gcg
from racksmith.review.replay import replay_file, replay_text

REAL = Path(__file__).parent / "fixtures" / "gcg" / "macondo"

RUSSIAN = """\
#character-encoding windows-1251
#tile-distribution russian
#player1 аня Аня Иванова
#player2 борис Борис
>аня: АБВГДЕЖ 8H ДЕВА +10 10
>борис: КОТЁНОК 9G КОТ +13 13
"""


# --- encodings ------------------------------------------------------------------------------------
def test_declared_encodings_are_read_in_that_encoding(tmp_path):
    ru = tmp_path / "ru.gcg"
    ru.write_bytes(RUSSIAN.encode("cp1251"))  # was read as Latin-1: 'letter À is not in the alphabet'
    r = replay_file(ru)
    assert r.ok and r.ruleset.name == "russian" and r.final_scores() == {"аня": 10, "борис": 13}
    assert r.record.players[0].name == "Аня Иванова"
    koi = tmp_path / "koi.gcg"
    koi.write_bytes(RUSSIAN.replace("windows-1251", "KOI8-R").encode("koi8-r"))
    assert replay_file(koi).ok
    latin = tmp_path / "latin.gcg"
    latin.write_bytes("#character-encoding ISO-8859-1\n#player1 jörg Jörg\n".encode("latin-1"))
    assert read_gcg(latin).players[0].nick == "jörg"
    assert read_gcg(ru).gcg().startswith("#character-encoding UTF-8\n")  # written back as UTF-8


@pytest.mark.parametrize(
    "raw, line, words",
    [
        ("#character-encoding UTF-8\n#player1 c\xe9sar C\xe9sar\n".encode("latin-1"), 2,
         "the first line declares the encoding UTF-8, but byte 0xe9 is not UTF-8 text"),
        (b"#character-encoding EBCDIC-XYZ\n#player1 a A\n", 1, "unknown character encoding 'EBCDIC-XYZ'"),
        (b"#character-encoding base64\n#player1 a A\n", 1, "unknown character encoding 'base64'"),
        (b"#player1 a A\n#character-encoding windows-1251\n", 2,
         "'#character-encoding windows-1251' must be the first line of the file (it was read as UTF-8)"),
        (b"\xef\xbb\xbf#character-encoding KOI8-R\n", 1, "byte-order mark but its first line declares KOI8-R"),
    ],
)
def test_encodings_that_do_not_fit_are_refused_naming_the_line(raw, line, words):
    with pytest.raises(GCGError) as info:
        decode_gcg(raw)
    assert info.value.line == line and words in info.value.message


def test_an_encoding_line_further_down_that_agrees_is_accepted():
    assert decode_gcg(b"#player1 a A\n#character-encoding UTF-8\n") == "#player1 a A\n#character-encoding UTF-8\n"
    assert decode_gcg(b"\xef\xbb\xbf#character-encoding utf8\n#player1 a A\n").startswith("#character-encoding utf8")


def test_a_file_that_does_not_fit_its_declared_encoding_exits_1(capsys):
    assert main(["gcg", "replay", str(REAL / "name_weird_encoding_with_header.gcg")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "name_weird_encoding_with_header.gcg" in err and "declares the encoding ISO8859-6" in err
