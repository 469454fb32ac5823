"""Letters and tiles: encode/decode, blanks, racks, aliases, multi-character letters, bad alphabets."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racksmith.rules.alphabet import BLANK, LETTER_MASK, THROUGH, Alphabet, is_blank, letter_of
from racksmith.errors import UnknownLetterError
from racksmith.rules.ruleset import get_ruleset

EN = get_ruleset("english").alphabet
RU = get_ruleset("russian").alphabet
ERUDIT = get_ruleset("erudit").alphabet
SPANISH_LIKE = Alphabet(("A", "C", "CH", "L", "LL", "O", "R", "RR"), name="es")


def test_tiles_are_numbered_from_one_and_blanks_carry_the_high_bit():
    assert EN.tile("A") == 1 and EN.tile("Z") == 26 and len(EN) == 26
    assert EN.tile("q") == 17 | BLANK
    assert is_blank(EN.tile("q")) and not is_blank(17) and letter_of(EN.tile("q")) == 17
    assert EN.letter(17) == "Q" and EN.letter(17 | BLANK) == "q" and EN.letter(0) == "?"
    assert BLANK == 0x80 and THROUGH == 0x40 and LETTER_MASK == 0x3F
    assert "a" in EN and "Ñ" not in EN and 3 not in EN


def test_encode_decode():
    assert EN.encode("QuIRK") == [17, 21 | BLANK, 9, 18, 11]
    assert EN.decode([17, 21 | BLANK, 9, 18, 11]) == "QuIRK"
    assert EN.encode_plain("quirk") == [17, 21, 9, 18, 11]
    assert RU.encode("ЁЖ") == [7, 8] and RU.decode([7, 8 | BLANK]) == "Ёж"


def test_racks_sort_and_write_blanks_first_or_last():
    assert EN.rack("?zA*e") == [0, 0, 1, 5, 26]
    assert EN.rack_string([26, 0, 1]) == "?AZ"
    assert EN.rack_string([26, 0, 1], blanks_last=True) == "AZ?"
    assert EN.rack("") == []


def test_aliases():
    # Эрудит has no Ё: ё is written е; the Latin Ë seen in public data is Ё in Russian
    assert ERUDIT.tile("Ё") == ERUDIT.tile("Е") == 6
    assert ERUDIT.tile("ё") == 6 | BLANK
    assert RU.tile("Ë") == RU.tile("Ё") == 7  # Latin E with diaeresis
    assert len(ERUDIT) == 32 and "Ё" not in ERUDIT.letters


def test_multi_character_letters():
    a = SPANISH_LIKE  # no H: CH reads no other way, while RR is also R + R and LL is L + L
    assert a.split("CHORRO") == ["CH", "O", "R", "R", "O"]
    assert a.split("C[H]") == ["C", "H"]  # brackets name one letter, however long
    assert a.split("[CH]O[LL]A") == ["CH", "O", "LL", "A"] and a.split("[CH]OLLA") == ["CH", "O", "L", "L", "A"]
    assert a.encode("chO[RR][o]") == [a.tile("ch"), 6, 8, 6 | BLANK]
    assert a.decode(a.encode("CHO[LL]A")) == "[CH]O[LL]A" and a.decode(a.encode("CHOLLA")) == "[CH]OLLA"
    assert a.encode(a.decode(a.encode("CHOLLA"))) == a.encode("CHOLLA")
    assert a.rack("CH?[LL]") == [0, 3, 5] and a.rack("CH?LL") == [0, 3, 4, 4]
    with pytest.raises(UnknownLetterError, match="unclosed"):
        a.split("[CH")
    with pytest.raises(UnknownLetterError, match="empty brackets"):
        a.split("A[]")


def test_unknown_letter_names_the_alphabet():
    with pytest.raises(UnknownLetterError, match=r"'Ж' is not in the alphabet of english \(ABCDEFGHIJKLMNOPQRSTUVWXYZ\)"):
        EN.tile("Ж")
    with pytest.raises(UnknownLetterError):
        EN.encode("QU1RK")
    with pytest.raises(UnknownLetterError, match="outside"):
        EN.letter(40)
    with pytest.raises(UnknownLetterError):
        SPANISH_LIKE.tile("[X]")


@pytest.mark.parametrize(
    "letters, aliases",
    [
        ((), ()),
        (tuple("AB") * 32, ()),  # 64 letters
        (("A", "A"), ()),
        (("A", "b"), ()),
        (("A", ""), ()),
        (("A", "?"), ()),
        (("A", "*"), ()),
        (("A", "1"), ()),
        (("A", "/"), ()),
        (("A", "("), ()),
        (("A", "."), ()),
        (("A", "B C"), ()),
        (("A", "B"), (("X", "C"),)),
    ],
)
def test_bad_alphabets_are_refused(letters, aliases):
    with pytest.raises(UnknownLetterError):
        Alphabet(letters, aliases=aliases)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 26), st.booleans()), min_size=1, max_size=15))
def test_encode_decode_round_trip(tiles):
    ts = [t | (BLANK if b else 0) for t, b in tiles]
    assert EN.encode(EN.decode(ts)) == ts


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(range(0, 9)), max_size=7))
def test_multi_letter_rack_round_trip(rack):
    assert SPANISH_LIKE.rack(SPANISH_LIKE.rack_string(rack)) == sorted(rack)


@pytest.mark.parametrize("tile", [2**70, 64, 64 | 1, 0x80, 0x100 | 1, -1, -63])
def test_a_number_that_is_no_tile_has_no_letter(tile):
    """letter(2**70) read the low bits and answered '?'; 65 (a played-through bit) answered 'A'."""
    with pytest.raises(UnknownLetterError, match="is not a tile of english"):
        EN.letter(tile)
    with pytest.raises(UnknownLetterError, match="tile 27 is outside the alphabet"):
        EN.letter(27)
    with pytest.raises(UnknownLetterError, match="a tile is an int, got NoneType"):
        EN.letter(None)
    assert EN.letter(0) == "?" and EN.letter(26) == "Z" and EN.letter(26 | BLANK) == "z"


@pytest.mark.parametrize("letter", [None, 5, b"A", ["A"]])
def test_a_letter_that_is_not_text_is_named(letter):
    with pytest.raises(UnknownLetterError, match="a letter is a str, got"):  # an AttributeError ('upper') once
        EN.tile(letter)


def test_tiles_of_no_alphabet_print_as_numbers():
    """Tiles((1, 2, 3)) is a public Tiles with no alphabet: str() and repr() raised AttributeError."""
    from racksmith import Tiles

    bare = Tiles((1, 2, 3))
    assert str(bare) == "(1, 2, 3)" and repr(bare) == "Tiles((1, 2, 3))" and eval(repr(bare), {"Tiles": Tiles}) == bare
    assert str(Tiles()) == "" and repr(Tiles()) == "Tiles('')"
    with pytest.raises(UnknownLetterError, match="have no alphabet, so no letters"):
        bare.letters
    assert str(EN.tiles((1, 2, 3))) == "ABC"  # (with an alphabet: letters, as ever)


def test_decomposed_letters_read_as_their_composed_letter():
    """Text pasted decomposed (NFD: И followed by a combining breve for Й, Е and a diaeresis for Ё)
    reads as the composed letters wherever letters are read: a rack, a move, a CGP, a GCG record."""
    import unicodedata

    from racksmith import Position, get_ruleset

    nfd = lambda s: unicodedata.normalize("NFD", s)  # noqa: E731
    a = get_ruleset("russian").alphabet
    assert nfd("ЙЁ") != "ЙЁ" and a.rack(nfd("ЙЁКОТ")) == a.rack("ЙЁКОТ")
    assert a.encode(nfd("ёлка")) == a.encode("ёлка") and a.tile(nfd("Й")) == a.tile("Й")
    cgp = "/".join(["15"] * 15) + " ЙЁКОТАБ/ 0/0 0"
    pos = Position.from_cgp(nfd(cgp), "russian")
    assert pos.cgp() == Position.from_cgp(cgp, "russian").cgp()
    assert pos.validate(nfd("8D КБАЙТ")).legal and pos.resolve(nfd("8D КБАЙТ")) == pos.resolve("8D КБАЙТ")
    from racksmith import Game, replay_text

    g = Game("russian", seed=3)
    for _ in range(4):
        g.play(g.legal_moves(top=1)[0])
    text = g.gcg()
    assert not text.isascii() and nfd(text) != text
    assert replay_text(nfd(text)).final_scores() == replay_text(text).final_scores() == dict(zip(g.nicks, g.scores))


def test_a_letter_of_the_other_script_is_named_as_typed():
    """A rack, a lexicon word or a star's letter ignores case, but its error names the letter typed:
    Latin lowercase 'a' is the twin of Cyrillic 'а', and Latin 'b', which looks like no Cyrillic
    letter, is named as the small letter of B, the twin of Cyrillic 'В' (racks ignore case)."""
    for read in (RU.rack, RU.encode_plain, RU.plain_tile):
        with pytest.raises(UnknownLetterError, match=r"letter 'a' is not .*: it is the Latin twin of Cyrillic 'а'"):
            read("a")
        with pytest.raises(UnknownLetterError,
                           match=r"letter 'b' is not .*: it is the small letter of Latin 'B', the twin of Cyrillic 'В'"):
            read("b")
    with pytest.raises(UnknownLetterError, match=r"letter 'B' is not .*: it is the Latin twin of Cyrillic 'В'"):
        RU.rack("BКОТ")
    assert RU.plain_tile("к") == RU.plain_tile("К") == RU.tile("К") and EN.plain_tile("q") == EN.tile("Q")


@pytest.mark.parametrize("letter, why", [
    ("א", "has no lowercase"),  # Hebrew: a blank would be written as the tile itself
    ("字", "has no lowercase"),
    ("<", "has no lowercase"),
    ("ẞ", "has the lowercase 'ß', which reads back as 'SS'"),
])
def test_a_letter_whose_blank_cannot_be_written_is_refused_with_blanks(letter, why):
    """A blank is its letter in lowercase everywhere (moves, CGP, GCG): a letter without a
    lowercase that reads back as it made a blank indistinguishable from the tile (read back as
    one), or unreadable. Without blanks nothing is ever written in lowercase: such letters play."""
    from racksmith import Ruleset
    from racksmith.errors import RulesetError

    data = {"name": "caseless", "board": ["....."] * 5, "start": "3C", "rack_size": 2, "bingo_bonus": 0,
            "tiles": [["A", 4, 1], [letter, 4, 3]]}
    with pytest.raises(RulesetError, match=f"field 'tiles' letter 2 '{letter}' {why}, and a blank is written as"):
        Ruleset.from_dict({**data, "blanks": 1})
    assert Ruleset.from_dict(data).alphabet.letters == ("A", letter)


def test_a_lowercase_longer_than_its_letter_is_one_token():
    """Turkish İ's lowercase is i + a combining dot (two code points): one token, a blank İ."""
    a = Alphabet(tuple("AIİŞ"))
    dotted = "İ".lower()
    assert len(dotted) == 2
    assert a.split(f"a{dotted}ış") == ["a", dotted, "ı", "ş"]
    assert a.tile(dotted) == a.tile("İ") | BLANK
    assert a.tile("ı") == a.tile("I") | BLANK  # dotless ı is I's lowercase the other way round
    tiles = a.encode(f"Aİ{dotted}Ş")
    assert a.encode(a.decode(tiles)) == tiles


def test_a_turkish_blank_reads_back_from_its_notation_and_cgp():
    from racksmith import Lexicon, Position, Ruleset

    rs = Ruleset.from_dict({"name": "turkish5", "board": ["....."] * 5, "start": "3C", "rack_size": 2,
                            "bingo_bonus": 0, "tiles": [["A", 4, 1], ["İ", 4, 3]], "blanks": 1})
    lex = Lexicon.from_words(["Aİ"], rs)
    pos = Position(rs, None, (rs.alphabet.rack("A?"), rs.alphabet.rack("AA")), lexicon=lex)
    m = next(m for m in pos.moves() if m.is_place and "i" in m.notation())  # a blank İ is written i
    v = pos.validate(m.notation())
    assert v.legal and v.score == m.score == 1
    after = pos.play(m)
    back = Position.from_cgp(after.cgp(), rs, lex)
    assert back.cgp() == after.cgp() and (back.board == after.board).all()
    assert int(back.board[2, 2]) == rs.alphabet.tile("İ") | BLANK
