"""Tiles of several characters (Spanish CH, LL, RR; Catalan L·L, NY, QU; Dutch IJ) read and
written as MAGPIE, Macondo and wolges read and write them.

Written: a tile of several characters always in brackets (``[CH]``, its blank ``[ch]``), a tile of
one character never (two Ls are ``LL``). Read: ``[..]`` is one tile; without brackets a tile whose
text is also separate tiles of the alphabet (CH = C + H) is those tiles, and one whose text is no
other tiles (Catalan ``L·L``, ``NY``, ``QU``) is that tile; mixed case reads letter by letter.

The MAGPIE strings below were recorded from MAGPIE's binary (jvc56/MAGPIE 183bebc, with its
letter distributions ``spanish.csv`` and ``catalan.csv``): what it writes, and what it reads or
refuses. The tests do not run MAGPIE.
"""
from __future__ import annotations

import json
import logging
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racksmith import Lexicon, Position, Ruleset
from racksmith.cli.main import main
from racksmith.errors import CGPError, RulesetError, UnknownLetterError
from racksmith.formats.gcg import format_gcg, parse_gcg
from racksmith.lexicon.klv import Leaves
from racksmith.lexicon.wordlist import parse_word_list
from racksmith.review.replay import replay_text
from racksmith.rules.alphabet import BLANK, Alphabet
from racksmith.rules.ruleset import get_ruleset

LAYOUT = get_ruleset("english").layout()

# MAGPIE's data/letterdistributions/spanish.csv and catalan.csv: letter, count, points
SPANISH_TILES = [["A", 12, 1], ["B", 2, 3], ["C", 4, 3], ["CH", 1, 5], ["D", 5, 2], ["E", 12, 1], ["F", 1, 4],
                 ["G", 2, 2], ["H", 2, 4], ["I", 6, 1], ["J", 1, 8], ["L", 4, 1], ["LL", 1, 8], ["M", 2, 3],
                 ["N", 5, 1], ["Ñ", 1, 8], ["O", 9, 1], ["P", 2, 3], ["Q", 1, 5], ["R", 5, 1], ["RR", 1, 8],
                 ["S", 6, 1], ["T", 4, 1], ["U", 5, 1], ["V", 1, 4], ["X", 1, 8], ["Y", 1, 4], ["Z", 1, 10]]
CATALAN_TILES = [["A", 12, 1], ["B", 2, 3], ["C", 3, 2], ["Ç", 1, 10], ["D", 3, 2], ["E", 13, 1], ["F", 1, 4],
                 ["G", 2, 3], ["H", 1, 8], ["I", 8, 1], ["J", 1, 8], ["L", 4, 1], ["L·L", 1, 10], ["M", 3, 2],
                 ["N", 6, 1], ["NY", 1, 10], ["O", 5, 1], ["P", 2, 3], ["QU", 1, 8], ["R", 8, 1], ["S", 8, 1],
                 ["T", 5, 1], ["U", 4, 1], ["V", 1, 4], ["X", 1, 10], ["Z", 1, 8]]


def ruleset(name: str, tiles, **more) -> Ruleset:
    return Ruleset.from_dict({"name": name, "board": LAYOUT, "start": "8H", "rack_size": 7, "bingo_bonus": 50,
                              "blanks": 2, "vowels": "AEIOU", "tiles": tiles, **more})


ES = ruleset("spanish_test", SPANISH_TILES)
CA = ruleset("catalan_test", CATALAN_TILES)
A_ES, A_CA = ES.alphabet, CA.alphabet
DUTCH_LIKE = Alphabet(("A", "E", "I", "IJ", "J", "K", "S"), name="nl")

EMPTY = ["15"] * 15


def board(row8: str) -> str:
    return "/".join(EMPTY[:7] + [row8] + EMPTY[8:])


def t(a: Alphabet, text: str) -> list[int]:
    return a.encode(text)


# --- reading and writing ----------------------------------------------------------------------

def test_the_shipped_alphabets_have_no_multi_character_tiles_and_write_as_before():
    for name in ("english", "russian", "erudit", "super"):
        a = get_ruleset(name).alphabet
        assert a._multi == a._split == () and a._split_re is None
        every = list(range(1, len(a) + 1))
        assert a.decode(every) == "".join(a.letters)
        assert a.decode([x | BLANK for x in every]) == "".join(x.lower() for x in a.letters)
        assert a.unbracketed("".join(a.letters)) == []


def test_spanish_ch_ll_rr_need_brackets_as_in_magpie_macondo_and_wolges():
    a = A_ES
    assert a._multi == () and set(a._split) == {"CH", "LL", "RR"}
    assert a.split("CHICO") == ["C", "H", "I", "C", "O"]  # C and H, as MAGPIE, Macondo and wolges read it
    assert a.split("[CH]ICO") == ["CH", "I", "C", "O"]
    assert a.encode("[ch]ICO")[0] == a.tile("CH") | BLANK
    assert a.decode(a.encode("[CH]ICO")) == "[CH]ICO" and a.decode(a.encode("CHICO")) == "CHICO"
    assert a.decode([a.tile("L"), a.tile("L")]) == "LL" and a.decode([a.tile("LL")]) == "[LL]"
    assert a.decode([a.tile("LL") | BLANK, a.tile("L") | BLANK]) == "[ll]l"
    assert a.rack("ALLOSTU") == sorted(t(a, "ALLOSTU")) and len(a.rack("ALLOSTU")) == 7
    assert a.rack("A[LL]OSTU") == sorted(t(a, "A[LL]OSTU")) and len(a.rack("A[LL]OSTU")) == 6
    assert a.rack("A[L]LOSTU") == a.rack("ALLOSTU")  # what racksmith wrote for two Ls before: still read
    assert a.unbracketed("CHICO") == ["CH"] and a.unbracketed("[CH]ICO") == [] and a.unbracketed("PERRO") == ["RR"]


def test_mixed_case_reads_letter_by_letter_as_magpie_reads_it():
    a = A_ES
    assert a.encode("Ch") == [a.tile("C"), a.tile("H") | BLANK]  # MAGPIE: C and a blank h
    assert a.encode("lL") == [a.tile("L") | BLANK, a.tile("L")]
    assert a.encode("Rr") == [a.tile("R"), a.tile("R") | BLANK]
    assert a.rack("Ch") == sorted([a.tile("C"), a.tile("H")])
    with pytest.raises(UnknownLetterError, match=r"'Ch' mixes capitals and small letters: \[CH\] is the tile"):
        a.encode("[Ch]")  # MAGPIE refuses '[Ch]' too


def test_catalan_tiles_read_with_or_without_brackets_and_are_written_with_them():
    a = A_CA
    assert a._split == () and set(a._multi) == {"L·L", "NY", "QU"}
    assert a.split("CAVAL·LA") == ["C", "A", "V", "A", "L·L", "A"] == a.split("CAVA[L·L]A")
    assert a.split("PANYQUE") == ["P", "A", "NY", "QU", "E"]
    assert a.decode(a.encode("PANYQUE")) == "PA[NY][QU]E"
    assert a.encode("[qu]ny") == [a.tile("QU") | BLANK, a.tile("NY") | BLANK]
    assert a.rack("Ny[l·L]?") == sorted([0, a.tile("NY"), a.tile("L·L")])  # case ignored in racks
    with pytest.raises(UnknownLetterError, match=r"'Ny' mixes capitals and small letters: NY \(or \[NY\]\) is the tile"):
        a.encode("PANy")
    with pytest.raises(UnknownLetterError, match="letter 'Y' is not in the alphabet"):
        a.encode("Y")


def test_dutch_ij_is_i_and_j_without_brackets():
    a = DUTCH_LIKE
    assert a.split("IJS") == ["I", "J", "S"] and a.split("[IJ]S") == ["IJ", "S"]
    assert a.decode(a.encode("[IJ]SKIJKE")) == "[IJ]SKIJKE"
    assert a.unbracketed("IJSKE") == ["IJ"]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_decode_then_read_is_the_identity(data):
    for a in (A_ES, A_CA, DUTCH_LIKE):
        tiles = data.draw(st.lists(st.tuples(st.integers(1, len(a)), st.booleans()), min_size=1, max_size=15))
        ts = [x | (BLANK if b else 0) for x, b in tiles]
        text = a.decode(ts)
        assert a.encode(text) == ts and len(a.split(text)) == len(ts)
        assert a.decode(a.encode(text)) == text
        rack = data.draw(st.lists(st.integers(0, len(a)), max_size=7))
        assert a.rack(a.rack_string(rack)) == sorted(rack)
        assert a.rack(a.rack_string(rack, blanks_last=True)) == sorted(rack)
        assert all(f"[{x}]" not in text for x in a.letters if len(x) == 1)  # a one-character tile unbracketed


# --- CGP: the strings MAGPIE writes and reads -------------------------------------------------

def test_cgp_as_magpie_writes_and_reads_it():
    # MAGPIE, given this line, shows the racks 'ALLMS?' and 'ALNO[RR]?' (two Ls: 'LL')
    magpie = board("3[CH]ICO8") + " ALLMS?/ALNO[RR]? 0/12 0"
    pos = Position.from_cgp(magpie, ES)
    a = A_ES
    assert pos.racks[0] == tuple(sorted(t(a, "ALLMS") + [0])) and pos.racks[1] == tuple(sorted(t(a, "ALNO[RR]") + [0]))
    assert [pos.tile_at(7, c) for c in range(3, 7)] == t(a, "[CH]ICO")
    assert pos.cgp() == magpie + " ld spanish_test;"  # (a ruleset file names itself: without it the line is refused)
    # MAGPIE refuses one letter in brackets ('A[L]LMS?': error 44), which racksmith wrote before
    assert "[L]" not in pos.cgp() and Position.from_cgp(magpie.replace("ALLMS?", "A[L]LMS?"), ES) == pos
    # MAGPIE reads '3ChICO7' as C, a blank h, I, C, O (15 squares) and '3CHICO7' as five tiles
    mixed = Position.from_cgp(board("3ChICO7") + " ALLMS/ALNO[RR] 0/12 0", ES)
    assert [mixed.tile_at(7, c) for c in range(3, 8)] == [a.tile("C"), a.tile("H") | BLANK] + t(a, "ICO")
    assert mixed.cgp().split()[0] == board("3ChICO7")
    plain = Position.from_cgp(board("3CHICO7") + " ALLMS/ALNO[RR] 0/12 0", ES)
    assert [plain.tile_at(7, c) for c in range(3, 8)] == t(a, "CHICO")
    blank = Position.from_cgp(board("3[ch]ICO8") + " ALLMS/ALNO[RR] 0/12 0", ES)
    assert blank.tile_at(7, 3) == a.tile("CH") | BLANK and blank.cgp().split()[0] == board("3[ch]ICO8")
    with pytest.raises(CGPError, match="mixes capitals and small letters"):
        Position.from_cgp(board("3[Ch]ICO8") + " A/ 0/0 0", ES)  # MAGPIE: error 42


def test_cgp_round_trips_with_ll_and_l_plus_l():
    a = A_ES
    b = np.zeros((15, 15), dtype=np.uint8)
    b[7, 3:9] = t(a, "CALLE[LL]")
    b[8, 3:5] = t(a, "l[ll]")
    # (full racks: a short opponent's rack with tiles in the bag reads back as known in part)
    pos = Position(ES, b, (a.rack("LLAEIOU"), a.rack("[RR]RRAEIO")), scores=(10, 12))
    line = pos.cgp()
    assert line.split()[0] == "/".join(EMPTY[:7] + ["3CALLE[LL]6", "3l[ll]10"] + EMPTY[9:])
    assert line.split()[1] == "AEILLOU/AEIORR[RR]"
    assert Position.from_cgp(line, ES) == pos


def test_a_row_of_the_wrong_width_says_how_its_tiles_were_read():
    # 'CHICO' written for the CH tile: C and H, 16 squares
    with pytest.raises(CGPError, match=r"covers 16 squares; the spanish_test board is 15 wide \(CH without brackets "
                                       r"is separate tiles \(C\+H\): write \[CH\] for the tile\)"):
        Position.from_cgp(board("3CHICO8") + " A/ 0/0 0", ES)
    with pytest.raises(CGPError, match=r"covers 14 squares; the catalan_test board is 15 wide \(NY is one tile\)"):
        Position.from_cgp(board("3PANY8") + " A/ 0/0 0", CA)


# --- GCG: records MAGPIE wrote -------------------------------------------------------------------

MAGPIE_ES_GCG = """#character-encoding UTF-8
#description Created with MAGPIE
#player1 ana ana
#player2 bea bea
>ana: A[CH]IO[RR]S 8H [CH]OS +14 14
>bea: ALLOSTU -LL +0 0
>ana: ??ALLMS 9H lLAMaS +18 32
"""
MAGPIE_CA_GCG = """#character-encoding UTF-8
#description Created with MAGPIE
#player1 ana ana
#player2 bea bea
>ana: ACEG[L·L]O 8E CA[L·L]E +28 28
>bea: AE[NY]O[QU]ST I7 [NY]E +36 36
>ana: ALLOSTU -LL +0 28
"""


@pytest.mark.parametrize("text, rs", [(MAGPIE_ES_GCG, ES), (MAGPIE_CA_GCG, CA)])
def test_gcg_records_magpie_wrote_replay_and_are_written_back_the_same(text, rs):
    game = parse_gcg(text, rs)
    assert [e.text() for e in game.events] == [ln for ln in text.splitlines() if ln.startswith(">")]
    assert format_gcg(game).splitlines()[-3:] == text.splitlines()[-3:]
    replay = replay_text(text, rs)
    assert replay.ok and [turn.score for turn in replay.turns] == [e.score for e in game.events]
    if rs is ES:
        a = A_ES
        assert game.events[1].move.tiles == (a.tile("L"), a.tile("L"))  # '-LL': two Ls
        assert game.events[2].move.tiles[:2] == (a.tile("L") | BLANK, a.tile("L"))  # 'lL': a blank l and an L
        assert len(a.rack(game.events[1].rack)) == 7  # 'ALLOSTU' is seven tiles (it was six: A [LL] O S T U)


# --- leaves ---------------------------------------------------------------------------------------

# lines of the CSV MAGPIE's 'convert klv2csv' writes (two Ls 'LL', the LL tile '[LL]', C and H 'CH')
MAGPIE_LEAVES_CSV = "?LL,7.572000\nALL,2.734000\nA[LL],2.745000\n[CH][LL],3.465000\nACH,6.296000\n?[LL],8.277000\n"


def test_leaves_read_as_magpie_writes_them_and_items_write_them_back(tmp_path, capsys):
    leaves = Leaves.from_csv_text(MAGPIE_LEAVES_CSV, ES)
    assert len(leaves) == 6
    assert leaves.value("ALL") == pytest.approx(2.734) and leaves.value("A[LL]") == pytest.approx(2.745)
    assert leaves.value("ACH") == pytest.approx(6.296) and leaves.value("[CH]A") == 0
    names = dict(leaves.items())
    assert set(names) == {"?LL", "ALL", "A[LL]", "[CH][LL]", "ACH", "?[LL]"}
    # the audit's case: ?AALL and ?AA[LL] are two leaves, written apart
    pairs = Leaves.from_pairs([("?AALL", 1.5), ("?AA[LL]", 2.5), ("CH", 0.25), ("[CH]", -1.0)], ES)
    csv = tmp_path / "leaves.csv"
    csv.write_text("".join(f"{k},{v}\n" for k, v in pairs.items()), encoding="utf-8")
    assert sorted(csv.read_text(encoding="utf-8").split()) == ["?AALL,1.5", "?AA[LL],2.5", "CH,0.25", "[CH],-1.0"]
    rs_file = tmp_path / "spanish.json"
    rs_file.write_text(json.dumps(ES.to_dict()), encoding="utf-8")
    assert main(["leaves", "build", str(csv), "--partial", "-o", str(tmp_path / "l.klv2"), "--ruleset", str(rs_file)]) == 0
    capsys.readouterr()
    assert (tmp_path / "l.klv2").read_bytes() == pairs.tobytes()
    assert Leaves.load(tmp_path / "l.klv2", ES).items() == pairs.items()


# --- word lists -------------------------------------------------------------------------------------

# MAGPIE's 'convert text2kwg' of these lists (ld spanish, ld catalan), recorded byte for byte (MAGPIE takes
# the list sorted in tile order: it does not sort it)
MAGPIE_ES_WORDS = ["A[CH]E", "AÑO", "ba[ll]a", "CALLE", "CA[LL]E", "CHAL", "[CH]ICO", "PERRO", "PE[RR]O"]
MAGPIE_ES_KWG = bytes.fromhex(
    "02004000070040001a000001190000021700000316000004150040123300000132000002300000032e0000042a000006290000092800"
    "000a2600000c2500000d24000010200000111f0000121d0000141c004015380040063a00400a3c0000013b0040093e00400140000004"
    "3f00401041004006420000061c004014150040004600000345000010440000144300401547004001480040014b0000014a00400c4d00"
    "40044e004003450000045100000c5000000d4f0040121600000052004001170000005300400a190040001a0000005700000256000003"
    "550000095400400d580000143f0040153f004003590040015a00000c4000400d4500400d0000c0110000c006470040125b0040125c00"
    "4006430040140000c0015d00400a3f0040005e000002520040035f00400161000003600040093a0040003b0040003800400060004001"
    "5000400c400040004700400462004001630040033c0040003e0040003f0040140000c00c4000400c580040000000c0120000c0044500"
    "4000520040030000c0035a0040000000c00259004000")
MAGPIE_CA_WORDS = ["A[QU]I", "ca[l·l]a", "CAVA[L·L]", "COLL", "[NY]A", "PA[NY]", "[QU]E"]
MAGPIE_CA_KWG = bytes.fromhex(
    "020040000700400017000001150000031400001013000012120040132500000124000003230000062200000a2000000c1f00000d1d00"
    "00101c0000111b00001219000013180040180000c0062b0040010000c0012d0000012c0040112f004013300040011200000031004001"
    "13004000320040031400000033004001340040013700000c36004011140040130000c01315004000170000003b0000033a00000d0000"
    "801039000012380040180000c0103c00400c1400000d3d0040180000c00a3e0040032f0040002c0040000000c0123f0000033a004018"
    "4000400341004011420040012b004000410040012d0040000000c00c430040013d004000140040003c0040000000c003440040030000"
    "c00d43004000")


def test_word_lists_build_magpies_graph_byte_for_byte():
    es = Lexicon.from_words(MAGPIE_ES_WORDS, ES, share_tails=False)
    assert es.tobytes() == MAGPIE_ES_KWG
    assert "CHAL" in es and "[CH]AL" not in es and "CALLE" in es and "CA[LL]E" in es and len(es) == 9
    ca = Lexicon.from_words(MAGPIE_CA_WORDS, CA, share_tails=False)
    assert ca.tobytes() == MAGPIE_CA_KWG
    # Catalan's tiles read no other way: without brackets (which MAGPIE refuses) the same graph
    plain = [w.replace("[", "").replace("]", "") for w in MAGPIE_CA_WORDS]
    assert Lexicon.from_words(plain, CA, share_tails=False).tobytes() == MAGPIE_CA_KWG
    assert ca.words() == sorted(ca.words(), key=lambda w: A_CA.encode_plain(w)) and "CAVA[L·L]" in ca.words()


def test_a_list_spelling_ch_without_brackets_is_told_about_it(caplog):
    with caplog.at_level(logging.WARNING, logger="racksmith.lexicon"):
        wl = parse_word_list("CHICO\nA[CH]E\nCALLE\nPERRO\nAÑO\n", A_ES, 15, "'es.txt'")
    assert len(wl) == 5 and (wl.unbracketed.words, wl.unbracketed.example) == (3, "CHICO")
    assert wl.unbracketed.letters == ("CH", "LL", "RR")
    assert caplog.messages == [
        "note: word list 'es.txt': 3 words spell CH, LL, RR without brackets (first: 'CHICO'), read as separate "
        "tiles (C+H, L+L, R+R) as MAGPIE and wolges read them; write [CH], [LL], [RR] for the tiles"]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="racksmith.lexicon"):
        assert parse_word_list("[CH]ICO\nA[CH]E\n", A_ES, 15).unbracketed.words == 0
        assert parse_word_list("CAVAL·LA\nPANY\n", A_CA, 15).unbracketed.words == 0  # Catalan reads no other way
    assert caplog.messages == []


def test_lexicon_build_says_so_on_stderr(tmp_path):
    rs_file = tmp_path / "spanish.json"
    rs_file.write_text(json.dumps(ES.to_dict()), encoding="utf-8")
    words = tmp_path / "es.txt"
    words.write_text("CHICO\nCOCHE\nAGUA\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "racksmith", "lexicon", "build", str(words), "-o",
                          str(tmp_path / "es.kwg"), "-r", str(rs_file)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "3 words" in run.stdout
    assert (f"note: word list {str(words)!r}: 2 words spell CH without brackets (first: 'CHICO'), read as separate "
            "tiles (C+H) as MAGPIE and wolges read them; write [CH] for the tile") in run.stderr


def test_fise_lists_with_digits_for_tiles(tmp_path, capsys):
    """FISE's Spanish lists write CH, LL, RR as 1, 2, 3 (wolges reads them so): a ruleset may say
    so in letter_aliases, and then its word lists read them; nowhere else is a digit a letter."""
    fise = ruleset("spanish_fise", SPANISH_TILES, letter_aliases={"1": "CH", "2": "LL", "3": "RR", "Ü": "U"})
    a = fise.alphabet
    assert a.word_aliases == (("1", "CH"), ("2", "LL"), ("3", "RR")) and a.aliases == (("Ü", "U"),)
    assert Ruleset.from_dict(fise.to_dict()) == fise
    rs_file = tmp_path / "fise.json"
    rs_file.write_text(json.dumps(fise.to_dict()), encoding="utf-8")
    words = tmp_path / "fise.txt"
    words.write_text("A1E\n1ICO\nCA2E\nPE3O\nCALLE\nPINGÜINO\nAGUA\nAÑO\nCASA\nPERO\n", encoding="utf-8")
    out = tmp_path / "fise.kwg"
    assert main(["lexicon", "build", str(words), "-o", str(out), "-r", str(rs_file)]) == 0
    capsys.readouterr()
    lex = Lexicon.load(out, fise)
    assert lex.words() == ["A[CH]E", "AGUA", "AÑO", "CALLE", "CA[LL]E", "CASA", "[CH]ICO", "PERO", "PE[RR]O",
                           "PINGUINO"]
    same = Lexicon.from_words(["A[CH]E", "[CH]ICO", "CA[LL]E", "PE[RR]O", "CALLE", "PINGUINO", "AGUA", "AÑO",
                               "CASA", "PERO"], ES)
    assert lex.tobytes() == same.tobytes()
    with pytest.raises(UnknownLetterError):
        a.rack("A1E")  # a rack's '1' is no tile
    with pytest.raises(CGPError):
        Position.from_cgp(board("3A1E8") + " A/ 0/0 0", fise)  # in CGP a digit counts empty squares
    # without the aliases, the list's digits are letters outside the alphabet, and the note says why
    (tmp_path / "plain.json").write_text(json.dumps(ES.to_dict()), encoding="utf-8")
    assert main(["lexicon", "build", str(words), "-o", str(tmp_path / "no.kwg"), "-r", str(tmp_path / "plain.json")]) == 0
    err = capsys.readouterr().err
    assert ("skipped 5 words: 5 with letters outside the alphabet of spanish_test (line 1 'A1E': '1'; line 2 '1ICO': '1'; line 3 "
            "'CA2E': '2'; and 2 more)") in err  # (and PINGÜINO)
    assert 'letter_aliases = { "1" = "CH", ... }' in err


@pytest.mark.parametrize("aliases, message", [
    ({"1X": "CH"}, "field 'letter_aliases' alias '1X' for 'CH' must be without digits"),
    ({"1": "A"}, "field 'letter_aliases' alias '1' for 'A' must be without digits (in CGP and moves a digit is a "
                 "number), but for an alias of digits only for a tile of several characters"),
    ({"1": "KH"}, "field 'letter_aliases' alias '1' points to 'KH', not a letter of 'tiles'"),
    ({"L": "LL"}, "field 'letter_aliases' alias 'L' must be non-empty, not a letter"),
])
def test_a_bad_alias_names_letter_aliases(aliases, message):
    with pytest.raises(RulesetError, match=re.escape(message)):
        ruleset("bad", SPANISH_TILES, letter_aliases=aliases)


def test_a_tile_named_in_brackets_is_refused_with_how_to_name_it():
    tiles = [list(x) for x in SPANISH_TILES]
    tiles[3][0] = "[CH]"  # as Macondo's and wolges' letter files name it
    with pytest.raises(RulesetError, match=r"field 'tiles' entry 4: letter '\[CH\]' is in brackets: name the tile 'CH'"):
        ruleset("bracketed", tiles)


def test_catalan_aliases_read_without_brackets_when_they_read_no_other_way():
    rs = ruleset("catalan_alias", CATALAN_TILES, letter_aliases={"L‧L": "L·L", "ĿL": "L·L", "Y": "NY"})
    a = rs.alphabet
    assert a.encode("CAVAL‧L") == a.encode("CAVAĿL") == a.encode("CAVA[L·L]") and a.encode("PAY") == a.encode("PANY")
    assert a.encode("cavaŀl")[-1] == a.tile("L·L") | BLANK
    assert a.decode(a.encode("CAVAĿL")) == "CAVA[L·L]"


def test_a_play_of_ch_typed_without_brackets_says_it_is_c_and_h():
    """A Spanish player types CH for the CH tile on his rack: read as C+H (as MAGPIE reads it), the
    play was refused as needing "CH that the rack A[CH]IO[RR]S does not hold", next to a rack
    showing [CH]. The message now says how CH was read and what to write."""
    pos = Position.from_cgp(f"{'/'.join(EMPTY)} A[CH]IO[RR]S/ 0/0 0", ES)
    for move in ("8H CHIS", "-CH"):
        verdict = pos.validate(move)
        assert verdict.reason == "not_in_rack"
        assert "(CH without brackets is separate tiles (C and H): write [CH] for the tile)" in verdict.message
    assert "without brackets" not in pos.validate("8H ZOO").message  # (no tile of several letters in it)
    other = Position.from_cgp(f"{'/'.join(EMPTY)} AEIO[RR]SU/ 0/0 0", ES)
    assert "without brackets" not in other.validate("8H CHIS").message  # (no CH tile on the rack)


def test_a_letter_of_a_catalan_tile_alone_is_not_sent_to_another_ruleset():
    """Catalan has no Q but a QU tile: 'AQ' was answered "the position is spelled in the letters of
    english: pass ruleset='english'", and an unclosed bracket in a Spanish rack "its letters are in
    no ruleset racksmith ships: pass a ruleset file" (the user had passed one)."""
    with pytest.raises(CGPError) as e:
        Position.from_cgp(f"{'/'.join(EMPTY)} AQ/ 0/0 0", CA)
    assert "(QU is one tile of catalan_test: write QU or [QU])" in str(e.value) and "english" not in str(e.value)
    for rack, slip in (("A[CH", "unclosed '['"), ("A[]", "empty brackets")):
        with pytest.raises(CGPError) as e:
            Position.from_cgp(f"{'/'.join(EMPTY)} {rack}/ 0/0 0", ES)
        assert slip in str(e.value) and "ruleset" not in str(e.value)
    with pytest.raises(CGPError, match="spelled in the letters of 'russian'"):  # (another ruleset's letters still say so)
        Position.from_cgp(f"{'/'.join(EMPTY)} АБВ/ 0/0 0", "english")


def test_a_record_and_a_board_file_with_ch_unbracketed_say_how_it_was_read(tmp_path):
    """'8H CHES +14' (the CH tile meant) replays as C, H, E, S for 18: the error said only "scores
    18, the record says +14"; a board file row '.......CHICO....' said "16 squares, the board is 15
    wide" without the hint a CGP row gets. Both now say how CH was read."""
    text = "#player1 ana ana\n#player2 bea bea\n>ana: ACHIOES 8H CHES +14 14\n"
    r = replay_text(text, ES, strict=False)
    assert any("8H CHES scores 18, the record says +14 (read with CH as separate tiles (C and H): the tile is "
               "written [CH])" in str(e) for e in r.errors)
    spec = tmp_path / "spanish.json"
    spec.write_text(json.dumps(ES.to_dict()), encoding="utf-8")
    rows = ["." * 15] * 15
    rows[7] = ".......CHICO...."
    path = tmp_path / "board.txt"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "racksmith", "moves", "--board", str(path), "--rack", "AEIOS", "-r",
                          str(spec)], capture_output=True, text=True)
    assert out.returncode == 1 and out.stderr.count("\n") == 1
    assert "16 squares, the board is 15 wide" in out.stderr and "write [CH] for the tile" in out.stderr
