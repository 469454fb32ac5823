"""Text typed or saved in the forms people use: Turkish İ and ı, leaves written decomposed, UTF-16
without a byte-order mark in Cyrillic, names with no-break spaces, fullwidth letters, dashes for the
exchange's '-', a Latin letter among Cyrillic ones in a ruleset file, windows-1251 records."""
from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from racksmith import Lexicon, Position
from racksmith.cli.main import main
from racksmith.errors import (CGPError, GCGError, InvalidMoveError, LexiconFormatError, RacksmithError, RulesetError,
                              UnknownLetterError)
from racksmith.formats.cgp import parse_cgp
from racksmith.formats.gcg import decode_gcg, parse_gcg
from racksmith.lexicon.klv import Leaves
from racksmith.lexicon.wordlist import parse_word_list
from racksmith.core.move import Move
from racksmith.play.game import Game
from racksmith.rules.alphabet import BLANK, Alphabet, is_typing_slip
from racksmith.rules.ruleset import Ruleset, get_ruleset

TURKISH = "A B C Ç D E F G Ğ H I İ J K L M N O Ö P R S Ş T U Ü V Y Z".split()
EMPTY = "/".join(["15"] * 15)


def _turkish(**fields) -> Ruleset:
    return Ruleset.from_dict({"name": "turkish", "board": ["." * 15] * 15, "start": "8H", "rack_size": 7,
                              "bingo_bonus": 50, "tiles": [[x, 4, 1] for x in TURKISH], "blanks": 2, **fields})


# --- 1. Turkish İ and ı ---------------------------------------------------------------------------
def test_a_turkish_alphabet_reads_i_as_dotted_and_dotless_i_as_I():
    a = _turkish().alphabet
    dotted, dotless = a.tile("İ"), a.tile("I")
    assert a.encode_plain("kedi") == a.encode_plain("KEDİ") != a.encode_plain("KEDI")
    assert a.encode_plain("bir") != a.encode_plain("bır")
    assert a.rack("i") == [dotted] and a.rack("ı") == [dotless] and a.rack("?i") == [0, dotted]
    assert a.tile("i") == dotted | BLANK and a.tile("ı") == dotless | BLANK
    # a blank is written in the lowercase that reads back as it, one code point
    assert a.letter(dotted | BLANK) == "i" and a.letter(dotless | BLANK) == "ı"
    tiles = a.encode("KEDiıİI")
    assert a.decode(tiles) == "KEDiıİI" and a.encode(a.decode(tiles)) == tiles
    assert a.tile("İ".lower()) == dotted | BLANK  # (Python's lowercase, i + a combining dot, still read)
    assert "i" in a and a.upper("kedi") == "KEDİ" and a.lower("İI") == "iı"


def test_an_alphabet_without_dotted_i_keeps_pythons_casing():
    a = get_ruleset("english").alphabet
    assert a.rack("i") == a.rack("I") == a.rack("ı")  # (as before)
    assert a.letter(a.tile("I") | BLANK) == "i"
    only_dotted = Alphabet(("A", "İ"))
    assert only_dotted.rack("i") == [2] and only_dotted.letter(2 | BLANK) == "i"


def test_a_turkish_word_list_a_move_a_cgp_and_a_gcg_keep_i_and_dotless_i_apart():
    rs = _turkish(letter_aliases={"i": "İ"})  # (an alias the alphabet reads so already: none needed, none refused)
    lex = Lexicon.from_words(["kedi", "bir", "bır", "ıs"], rs)
    assert "KEDİ" in lex and "KEDI" not in lex and "BİR" in lex and "BIR" in lex and len(lex) == 4
    words = parse_word_list("kedi\nbir\nbır\n".encode(), rs.alphabet, 15)
    assert len(words) == 3 and words.skipped.total == 0
    m = Move.parse("8H KEDi", rs.alphabet)
    assert m.tiles[-1] == rs.alphabet.tile("İ") | BLANK
    game = Game.from_cgp(f"{EMPTY} KED??BR/AKKSSSS 0/0 0", rs, lex, seed=1)
    game.play("8H KEDi")
    cgp = game.cgp()
    assert "KEDi" in cgp and Position.from_cgp(cgp, rs, lex).board[7, 10] == rs.alphabet.tile("İ") | BLANK
    record = parse_gcg(game.gcg(), rs)
    assert record.events[0].move.tiles == m.tiles


# --- 2. leaves written decomposed -------------------------------------------------------------------
def test_a_leave_csv_written_nfd_reads_as_its_letters():
    nfd = unicodedata.normalize("NFD", "Ё,1.5\nЙ,-2.0\nЁЙ,0.5\n?,20.0\n")
    assert nfd != unicodedata.normalize("NFC", nfd)
    table = Leaves.from_csv_text(nfd, "russian")
    assert table.value("Ё") == 1.5 and table.value("ЁЙ") == 0.5 and table.value("Й") == -2.0
    pairs = Leaves.from_pairs([(unicodedata.normalize("NFD", "Ё"), 1.0)], "russian")
    assert pairs.value("Ё") == 1.0


# --- 3. UTF-16 without a byte-order mark ------------------------------------------------------------
@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_cyrillic_word_list_in_utf16_without_a_bom_is_told_so(codec):
    raw = "кот\nдом\nмир\nёжик\nслово\n".encode(codec)
    with pytest.raises(LexiconFormatError, match="looks like UTF-16 text without a byte-order mark; save it as UTF-8"):
        parse_word_list(raw, get_ruleset("russian").alphabet, 15)


def test_a_gcg_record_in_utf16_without_a_bom_is_told_so():
    text = "#character-encoding UTF-8\n#player1 a А\n#player2 b Б\n>a: ЁЖИКОТА 8H КОТ +10 10\n"
    for codec in ("utf-16-le", "utf-16-be"):
        with pytest.raises(GCGError, match="looks like UTF-16 text without a byte-order mark; save the record as UTF-8"):
            decode_gcg(text.encode(codec))
    with pytest.raises(GCGError, match="NUL byte at offset"):  # (binary data is still binary)
        decode_gcg(bytes(range(256)) * 4)


@pytest.mark.parametrize("codec", ["utf-32", "utf-32-be"])
def test_a_word_list_or_a_record_in_utf32_with_a_bom_is_read(codec):
    """UTF-32's little-endian mark (FF FE 00 00) starts with UTF-16's: the list was read as UTF-16,
    each word with NULs in it ("4 of its 4 words have letters outside the alphabet")."""
    words = "кот\nдом\nмир\nёжик\n"
    raw = ("\ufeff" + words).encode(codec) if codec.endswith("be") else words.encode(codec)
    assert raw[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
    alphabet = get_ruleset("russian").alphabet
    got = parse_word_list(raw, alphabet, 15)
    assert [alphabet.decode(got.text[got.offsets[i]:got.offsets[i + 1]].tolist()) for i in range(len(got))] == [
        "ДОМ", "ЁЖИК", "КОТ", "МИР"]
    text = "#player1 a А\n#player2 b Б\n>a: ABC 8H CAB +14 14\n"
    assert decode_gcg(("\ufeff" + text).encode(codec) if codec.endswith("be") else text.encode(codec)) == text
    with pytest.raises(GCGError, match="starts like UTF-32 text but is not"):
        decode_gcg(b"\xff\xfe\x00\x00" + b"\xff\xff\xff\xff")


@pytest.mark.parametrize("codec", ["utf-32-le", "utf-32-be", "utf-16-be"])
def test_a_word_list_with_a_bom_named_like_a_quackle_lexicon_is_read(tmp_path, codec):
    """Text named .dawg is read (only Quackle's binary graphs are refused): UTF-32-BE's mark
    (00 00 FE FF) looked binary and not UTF-16, and the list was called a Quackle file."""
    from racksmith import load_lexicon

    path = tmp_path / "words.dawg"
    path.write_bytes(("\ufeffCAT\nDOG\nBIRD\n").encode(codec))
    assert sorted(load_lexicon(path, "english").words()) == ["BIRD", "CAT", "DOG"]


# --- 4. players' names --------------------------------------------------------------------------------
def test_a_name_with_no_break_thin_or_ideographic_spaces_is_one_line():
    names = ["И.\u00a0Петров", "A.\u2009B\u3000C"]
    game = Game("english", Lexicon.from_words(["AB"], "english"), names=names, seed=1)
    text = game.gcg()
    text.encode("utf-8")
    assert [p.name for p in parse_gcg(text).players] == names


@pytest.mark.parametrize("name, why", [("x\ud800", "U+D800, half of a UTF-16 surrogate pair"),
                                       ("a\nb", "line break"), ("a\u2028b", "line break (U+2028)"),
                                       ("a\x85b", "line break (U+0085)"), (" a", "spaces at its ends")])
def test_a_name_that_is_no_line_of_utf8_text_is_refused_saying_why(name, why):
    with pytest.raises(RacksmithError, match=r"a player's name is one line of text") as e:
        Game("english", Lexicon.from_words(["AB"], "english"), names=[name, "b"], seed=1)
    assert why in str(e.value)


def test_a_gcg_player_that_utf8_cannot_write_is_refused_as_the_record_is_written():
    """(what the web export, which makes its players itself, meets with a name of a lone surrogate)"""
    from racksmith.formats.gcg import GCGGame, GCGPlayer, format_gcg

    record = GCGGame(get_ruleset("english"))
    record.players.extend([GCGPlayer("a", "x\ud800"), GCGPlayer("b", "B")])
    with pytest.raises(GCGError, match="half of a UTF-16 surrogate pair"):
        format_gcg(record)


# --- 5. fullwidth letters, spaces that are no letter ------------------------------------------------
def test_a_fullwidth_letter_is_named_with_what_to_type():
    a = get_ruleset("english").alphabet
    with pytest.raises(UnknownLetterError, match="'Ａ' is FULLWIDTH LATIN CAPITAL LETTER A: type 'A'"):
        a.rack("ＡBC")
    with pytest.raises(CGPError) as e:
        parse_cgp(f"{EMPTY} ＡＢＣＤＥＦＧ/ 0/0 0", get_ruleset("english"))
    assert "FULLWIDTH LATIN CAPITAL LETTER A: type 'A'" in str(e.value)
    assert "no ruleset racksmith ships" not in str(e.value) and not e.value.rulesets
    with pytest.raises(UnknownLetterError, match="'\\\\xa0' is NO-BREAK SPACE, a space that is no letter"):
        a.rack("AB\u00a0C")


def test_a_word_list_of_fullwidth_letters_is_told_what_to_type(capsys, tmp_path):
    words = tmp_path / "w.txt"
    words.write_text("ＣＡＴ\nDOG\nCAT\nBAT\n", "utf-8")
    assert main(["lexicon", "build", str(words), "-o", str(tmp_path / "w.kwg")]) == 0
    err = capsys.readouterr().err
    assert "'Ｃ' is FULLWIDTH LATIN CAPITAL LETTER C: type 'C'" in err and "another ruleset" not in err


def test_a_board_file_with_no_break_spaces_for_empty_squares_is_told_to_write_dots(capsys, tmp_path):
    board = tmp_path / "board.txt"
    board.write_text("\n".join(["\u00a0" * 15] * 15) + "\n", "utf-8")
    assert main(["moves", "--board", str(board), "--rack", "ABCDEFG"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "NO-BREAK SPACE" in err and "write '.' or a plain space for an empty square" in err


# --- 6. a dash for the exchange's '-' ---------------------------------------------------------------
@pytest.mark.parametrize("typed, name", [("\u2013ЁЖ", "U+2013 EN DASH"), ("\u2212ЁЖ", "U+2212 MINUS SIGN"),
                                         ("\u2010ЁЖ", "U+2010 HYPHEN"), ("\u2014", "U+2014 EM DASH")])
def test_an_exchange_typed_with_a_dash_names_the_dash(typed, name):
    a = get_ruleset("russian").alphabet
    with pytest.raises(InvalidMoveError, match=re.escape(f"is {name}: type '-'")):
        Move.parse(typed, a)
    assert Move.parse("-ЁЖ", a).is_exchange


# --- 7. a Latin letter among Cyrillic ones --------------------------------------------------------------
def test_a_ruleset_mixing_a_latin_twin_among_cyrillic_letters_is_refused():
    from racksmith.rules.ruleset import _builtin

    data = _builtin("russian").to_dict()
    data["name"] = "rumix"
    data["tiles"] = [["C" if t[0] == "С" else t[0], *t[1:]] for t in data["tiles"]]
    with pytest.raises(RulesetError, match="letter 'C' is LATIN CAPITAL LETTER C among Cyrillic letters: did you mean "
                                           "Cyrillic 'С'"):
        Ruleset.from_dict(data)
    for name in ("english", "russian", "erudit", "super"):
        Ruleset.from_dict(_builtin(name).to_dict())  # (the shipped ones, each in one script)


# --- 8. a windows-1251 record read as ISO-8859-1 ----------------------------------------------------------
def test_a_windows_1251_record_names_its_characters_as_read():
    raw = "#player1 a A\n#player2 b B\n>a: ЯАБВГДЕ -Я +0 0\n".encode("cp1251")
    with pytest.raises(GCGError, match="windows-1251") as e:
        parse_gcg(decode_gcg(raw), get_ruleset("russian"))
    assert "ß" in str(e.value) and "SS" not in str(e.value)


def test_the_score_table_writes_a_blank_dotted_i_as_the_alphabet_does(capsys, tmp_path):
    """`score`'s table and its caption wrote a blank İ with Python's lowercase (i and a combining dot),
    which the alphabet no longer writes."""
    import json

    rs = Ruleset.from_dict({"name": "turkish5", "board": ["....."] * 5, "start": "3C", "rack_size": 2,
                            "bingo_bonus": 0, "tiles": [["A", 4, 1], ["İ", 4, 3]], "blanks": 1})
    (tmp_path / "t5.txt").write_text("Aİ\n", encoding="utf-8")
    path = tmp_path / "t5.json"
    path.write_text(json.dumps({**rs.to_dict(), "lexicon": "t5.txt"}), encoding="utf-8")
    code = main(["score", "-r", str(path), "5/5/5/5/5 A?/AA 0/0 0", "-m", "3B Ai"])
    out = capsys.readouterr().out
    assert code in (0, None) and "A 1  i 0" in out and "new tiles: A 3B, i 3C" in out and "\u0307" not in out


def test_the_web_export_refuses_a_name_of_a_lone_surrogate():
    """/api/export took it and answered a record that cannot be written as UTF-8."""
    from racksmith.web.api import RequestError, _names

    with pytest.raises(RequestError, match=r"player 1's full name holds U\+D800, half of a surrogate pair alone"):
        _names({"names": ["x\ud800", "y"]})
    assert _names({"names": ["И.\u00a0Петров", "Anna\u2009Lee"]}) == ["И.\u00a0Петров", "Anna\u2009Lee"]


# --- 9. Turkish casing beside tiles of several characters ----------------------------------------------
def _ij_ruleset() -> Ruleset:
    return Ruleset.from_dict({"name": "t5", "board": ["....."] * 5, "start": "3C", "rack_size": 3, "bingo_bonus": 0,
                              "tiles": [["A", 4, 1], ["İ", 4, 1], ["IJ", 2, 4], ["J", 2, 2]], "blanks": 1})


def test_a_blank_tile_holding_i_beside_dotted_i_reads_back():
    """With İ and without I, a blank IJ was written ij, which the Turkish casing read back as İJ, no
    letter: racksmith's own notation did not parse. It is written ıj (I's small letter beside İ)."""
    rs = _ij_ruleset()
    a = rs.alphabet
    ij = a.tile("IJ")
    m = Move.place(2, 1, True, [1, ij | BLANK], a)
    assert m.notation() == "3B A[ıj]" and Move.parse(m.notation(), rs) == m
    assert a.lower("IJ") == "ıj" and a.upper("ıj") == "IJ" and a.tile("ıj") == ij | BLANK
    # Python's lowercase, in brackets one tile, is still that blank; unbracketed, a blank İ and a blank J
    assert a.encode("A[ij]") == [1, ij | BLANK] and a.rack("[ij]") == [ij] and "ij" in a
    assert a.encode("Aij") == [1, a.tile("İ") | BLANK, a.tile("J") | BLANK]
    assert a.encode(a.decode([a.tile("İ") | BLANK, a.tile("J") | BLANK])) == [a.tile("İ") | BLANK, a.tile("J") | BLANK]


_CASED_POOL = ["A", "E", "I", "İ", "J", "IJ", "İJ", "JI", "AI", "Iİ", "IE", "EİA"]


@st.composite
def _cased_ruleset(draw):
    letters = draw(st.lists(st.sampled_from(_CASED_POOL), min_size=2, max_size=8, unique=True))
    try:
        return Ruleset.from_dict({"name": "cased", "board": ["." * 15] * 15, "start": "8H", "rack_size": 7,
                                  "bingo_bonus": 0, "tiles": [[x, 2, 1] for x in letters], "blanks": 2})
    except RulesetError:
        assume(False)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_cased_ruleset(), st.data())
def test_every_letter_s_small_letters_read_back_as_its_blank(rs, data):
    """Alphabets mixing İ, I (ı its small letter beside İ) and tiles of several characters: each
    letter's written lowercase is its blank and reads back as the letter; notation round-trips."""
    a = rs.alphabet
    for i, letter in enumerate(a.letters, 1):
        low = a.lower(letter)
        assert a.tile(low) == a.tile(letter) | BLANK == i | BLANK
        assert a.upper(low) == letter and a.letter(i | BLANK) == low
    n = len(a)
    tiles = [t | (BLANK if b else 0) for t, b in data.draw(st.lists(st.tuples(st.integers(1, n), st.booleans()),
                                                                      min_size=1, max_size=7))]
    assert a.encode(a.decode(tiles)) == tiles
    m = Move.place(7, 3, data.draw(st.booleans()), tiles, a)
    assert Move.parse(m.notation(), rs) == m
    assert Move.parse(m.gcg(), rs).tiles == m.tiles
    ex = Move.exchange(sorted(t & ~BLANK for t in tiles), a)
    assert Move.parse(ex.notation(), rs) == ex


# --- 10. another form of a character that is no letter, invisible characters ----------------------------
@pytest.mark.parametrize("char", list("／（）［］．；－"))
def test_no_hint_to_type_what_a_rack_refuses(char):
    """'／' in a rack was told "type '/'", which a rack refuses too."""
    a = get_ruleset("english").alphabet
    with pytest.raises(UnknownLetterError) as e:
        a.rack("AB" + char)
    assert "type" not in str(e.value)
    assert a.other_form(char) == ""


def test_a_fullwidth_blank_is_told_what_to_type_where_blanks_are_read():
    rs = get_ruleset("english")
    for char, typed in (("？", "?"), ("＊", "*")):
        with pytest.raises(UnknownLetterError, match=re.escape(f"{char!r} is FULLWIDTH")) as e:
            rs.alphabet.rack("AB" + char)
        assert str(e.value).endswith(f": type {typed!r}") and rs.alphabet.rack("AB" + typed) == [0, 1, 2]
        with pytest.raises(InvalidMoveError) as e:  # (an exchange reads a rack)
            Move.parse("-AB" + char, rs)
        assert str(e.value).endswith(f": type {typed!r}")
        with pytest.raises(InvalidMoveError) as e:  # (a placement writes no blank as '?')
            Move.parse(f"8H A{char}B", rs)
        assert "type" not in str(e.value)


@pytest.mark.parametrize("char, name", [("\u00ad", "SOFT HYPHEN"), ("\u200d", "ZERO WIDTH JOINER"),
                                        ("\u200b", "ZERO WIDTH SPACE")])
def test_an_invisible_character_is_not_called_a_space(char, name):
    a = get_ruleset("english").alphabet
    with pytest.raises(UnknownLetterError) as e:
        a.rack("AB" + char)
    assert str(e.value).endswith(f"{char!r} is {name}, an invisible character that is no letter")
    assert "space that" not in str(e.value) and is_typing_slip(str(e.value))
    assert a.other_form("\u00a0") == "'\\xa0' is NO-BREAK SPACE, a space that is no letter"


# --- 11. control characters in a player's name -----------------------------------------------------------
@pytest.mark.parametrize("name", ["Ann\x80Lee", "Ann\x00Lee", "Ann\x1fLee", "Ann\x7fLee", "Ann\x9fLee"])
def test_a_name_with_a_control_character_is_refused(name):
    """Game took them and wrote a record the GCG reader refuses (U+0080, a NUL byte); the web's
    full names refuse them too."""
    with pytest.raises(RacksmithError, match=rf"holds the control character U\+{ord(name[3]):04X}") as e:
        Game(get_ruleset("english"), Lexicon.from_words(["AB"], "english"), seed=1, names=[name, "Bob"])
    assert isinstance(e.value, ValueError)


def test_a_name_with_a_tab_is_written_and_read_back():
    g = Game(get_ruleset("english"), Lexicon.from_words(["AB"], "english"), seed=1, names=["Ann\tLee", "Bob"])
    assert parse_gcg(g.gcg()).players[0].name == "Ann\tLee"


# --- 12. a lone surrogate in a word -----------------------------------------------------------------------
def test_a_word_with_a_lone_surrogate_is_skipped_as_other_letters_outside_the_alphabet():
    """from_words raised a bare UnicodeEncodeError on one-character alphabets (and skipped the word
    on others): it is a letter outside the alphabet, skipped and named."""
    lex = Lexicon.from_words(["AB", "C\ud800D", "CAB"], "english")
    assert len(lex) == 2 and lex.skipped == 1
    assert "line 2 'C\\ud800D'" in lex.skipped_by_reason.describe(15, lex.alphabet)
    words = parse_word_list("AB\nX\udcff\n", get_ruleset("english").alphabet, 15)
    assert words.skipped.letters == 1
