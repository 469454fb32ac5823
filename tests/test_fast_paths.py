"""The quick ways through the per-call paths (leaves named by a path or a shipped set's name, CGP
written and read, moves parsed, scores checked, a lexicon's digest) give what the long ways give:
each is checked here against the long way it short-cuts, on the inputs that take the long way."""
from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from racksmith import Move, Position
from racksmith.errors import CGPError, MoveGenError, PositionError, RacksmithError
from racksmith.formats import cgp as cgp_module
from racksmith.formats.cgp import format_board, naming_opcodes, parse_cgp
from racksmith.lexicon import load_leaves
from racksmith.rules.alphabet import Alphabet
from racksmith.rules.ruleset import Ruleset, available_rulesets, get_ruleset

FIXTURES = Path(__file__).parent / "fixtures"
OUTGUN = "/".join(["15"] * 7 + ["3OUTGUN6"] + ["15"] * 7) + " EEIIORS/IIJORRR 0/16 0"
MID = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/EEEITUV 28/18 0"

#: alphabets whose letters take the long ways: tiles of several characters (read as separate tiles
#: or not), a lowercase of two characters (Turkish İ), aliases, a combining mark as a letter
ODD_ALPHABETS = (
    Alphabet(tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + ("CH", "LL", "RR"), "spanish-like"),
    Alphabet(tuple("ABCDEFGIJLMNOPQRSTUVXZ") + ("L·L", "NY", "QU", "Ç"), "catalan-like"),
    Alphabet(tuple("ABCÇDEFGĞHIİJKLMNOÖPRSŞTUÜVYZ"), "turkish-like"),
    Alphabet(tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + ("SS", "Ä"), "german-like", aliases=(("ẞ", "SS"),)),
    Alphabet(tuple("АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"), "aliased", aliases=(("Ë", "Ё"), ("E", "Е"))),
    Alphabet(("A", "B", "\u0306", "Й"), "a combining mark"),
)
ALPHABETS = tuple(rs.alphabet for rs in available_rulesets()) + ODD_ALPHABETS
ODD_TEXTS = ("?", "*", "[", "]", "(", ")", ".", "/", "1", "٣", " ", "\u0306", "И\u0306", "\u212b", "ß", "i", "ı", "İ",
             "i̇", "ﬁ", "Å", "A\u030a", "é", "e\u0301", "Ё", "Е\u0308", "ё", "ë", "Ë", "Ch", "cH", "ch", "ny", "Ny", "l·l")


class _Forgetful(dict):
    """A table that keeps nothing."""

    def __setitem__(self, key, value) -> None:
        pass


def _long_way(alphabet: Alphabet) -> Alphabet:
    """The same alphabet keeping nothing of what :meth:`Alphabet.tile`, :meth:`Alphabet.plain_tile`
    and :meth:`Alphabet.rack` read: every call takes the full path."""
    slow = Alphabet(alphabet.letters, alphabet.name, alphabet.aliases, alphabet.word_aliases)
    object.__setattr__(slow, "_char_tiles", _Forgetful())
    object.__setattr__(slow, "_plain_chars", _Forgetful())
    object.__setattr__(slow, "_rack_chars", None)
    return slow


def _answer(fn, *args):
    try:
        return ("ok", fn(*args))
    except RacksmithError as e:
        return (type(e).__name__, str(e))


# --- letters ----------------------------------------------------------------------------------

@pytest.mark.parametrize("alphabet", ALPHABETS, ids=lambda a: a.name)
def test_a_letter_looked_up_is_the_tile_the_full_path_reads(alphabet):
    slow = _long_way(alphabet)
    texts = sorted({form for x in alphabet.letters for form in (x, x.lower(), x.title())} | set(ODD_TEXTS))
    for _ in range(2):  # (the second time from what the first kept)
        for text in texts:
            assert _answer(alphabet.tile, text) == _answer(slow.tile, text), text
            assert _answer(alphabet.plain_tile, text) == _answer(slow.plain_tile, text), text
    assert alphabet._char_tiles and alphabet._plain_chars and not slow._char_tiles
    for bad in (None, 5, b"A", ["A"]):
        assert _answer(alphabet.tile, bad) == _answer(slow.tile, bad)
        assert _answer(alphabet.plain_tile, bad) == _answer(slow.plain_tile, bad)


@pytest.mark.parametrize("alphabet", ALPHABETS, ids=lambda a: a.name)
def test_a_rack_looked_up_is_the_rack_the_full_path_reads(alphabet):
    import random

    slow = _long_way(alphabet)
    rng = random.Random(1)
    pool = sorted({form for x in alphabet.letters for form in (x, x.lower())} | set(ODD_TEXTS) | {"?", "*", "[A]"})
    texts = ["".join(rng.choice(pool) for _ in range(rng.randrange(0, 8))) for _ in range(300)]
    for text in texts + texts:  # (the second time from what the first kept)
        assert _answer(alphabet.rack, text) == _answer(slow.rack, text), text


# --- CGP --------------------------------------------------------------------------------------

def _positions() -> list[str]:
    import json

    out = []
    for name in ("positions.jsonl", "endgames_magpie.jsonl", "super_positions.jsonl"):
        out += [json.loads(line)["cgp"] for line in (FIXTURES / name).read_text().splitlines() if line.strip()]
    return out


def test_a_board_written_with_a_plain_loop_is_what_decode_writes():
    """format_board writes each tile as Alphabet.decode does (``[LL]`` for a letter of several
    characters, a blank in small letters), runs of empty squares as numbers; a board of floats
    has its tiles read by decode, which refuses a number that is no tile."""
    from itertools import groupby

    def by_runs(board, rs):  # (how it was written: runs of squares, each run decoded)
        rows = []
        for r in range(board.shape[0]):
            out = []
            for empty, group in groupby(board[r].tolist(), key=lambda t: t == 0):
                tiles = list(group)
                out.append(str(len(tiles)) if empty else rs.alphabet.decode(tiles))
            rows.append("".join(out))
        return "/".join(rows)

    rng = np.random.default_rng(3)
    for rs in available_rulesets():
        n = len(rs.alphabet)
        for _ in range(60):
            board = np.zeros((rs.rows, rs.cols), dtype=np.uint8)
            k = int(rng.integers(0, 40))
            tiles = rng.integers(1, n + 1, size=k) | np.where(rng.random(k) < 0.2, 0x80, 0)
            board.flat[rng.choice(board.size, size=k, replace=False)] = tiles
            for arr in (board, board.astype(np.int64), board.astype(np.float64)):
                assert _answer(format_board, arr, rs) == _answer(by_runs, arr, rs)
        bad = np.zeros((rs.rows, rs.cols), dtype=np.uint8)
        bad[3, 4] = 0x40 | 1  # (a played-through mark is no board tile)
        assert _answer(format_board, bad, rs) == _answer(by_runs, bad, rs)
        assert _answer(format_board, bad, rs)[0] == "UnknownLetterError"
        floats = np.zeros((rs.rows, rs.cols))
        floats[0, 0] = 1.0
        assert _answer(format_board, floats, rs)[0] != "ok"  # (a float is no tile, as decode says)


def test_naming_opcodes_kept_per_ruleset_are_those_computed():
    """naming_opcodes keeps its answer per ruleset and opcodes: asked again it gives the same, and
    a ruleset file (not a shipped ruleset) gets the rules a reader would otherwise miss."""
    english, erudit = get_ruleset("english"), get_ruleset("erudit")
    custom = Ruleset.from_dict({**_dict_of(english), "name": "house", "bingo_bonus": 35})
    cases = [((), english), ((), erudit), ((("lex", "CSW21"),), erudit), ((("ld", "russian"),), erudit), ((), custom),
             ((("bb", "35"),), custom), ([("lex", "NWL20")], english)]
    first = [naming_opcodes(ops, rs) for ops, rs in cases]
    again = [naming_opcodes(ops, rs) for ops, rs in cases]
    assert first == again
    assert first[1] == (("ld", "erudit"),) and first[0] == () and first[5] == (("bb", "35"),)
    assert ("bb", "35") in first[4]
    assert naming_opcodes([["lex", "NWL20"]], english) == (["lex", "NWL20"],)  # (opcodes not kept: unhashable)


def _dict_of(rs: Ruleset) -> dict:
    import tomllib
    from importlib import resources

    toml = resources.files("racksmith.rules").joinpath("rulesets").joinpath(f"{rs.name}.toml")
    return tomllib.loads(toml.read_text("utf-8"))


def test_a_board_read_one_character_a_square_is_what_the_full_reader_reads(monkeypatch):
    """_parse_board reads plain rows with a table; every CGP of the fixtures, and each with a
    character changed (brackets, three digits, a blank, a row too long or short, decomposed
    letters), reads as the full reader reads it, errors and their messages too."""
    import random

    rng = random.Random(2)
    lines = _positions()
    texts = list(lines)
    for text in lines:
        board = text.split(" ")[0]
        for change in ("[E]", "123", "?", "*", "Q", "q", "1", "Д", "é", "e\u0301", "٣", ""):
            i = rng.randrange(len(board))
            texts.append(board[:i] + change + board[i + 1:] + text[len(board):])
        texts.append(unicodedata.normalize("NFD", "É".join(board.split("E", 1))) + text[len(board):])
    for text in texts + texts:  # (the second time with the letters read the first)
        for rs in available_rulesets():
            fast = _answer(lambda: _parsed(parse_cgp(text, rs)))
            with monkeypatch.context() as m:
                m.setattr(cgp_module, "_plain_board", lambda rows, ruleset: None)
                slow = _answer(lambda: _parsed(parse_cgp(text, rs)))
            assert fast == slow, (text, rs.name)


def _parsed(p):
    return p.board.tolist(), p.racks, p.scores, p.zero_turns, p.opcodes


def test_a_cgp_without_opcodes_is_english_and_a_variant_is_still_refused():
    assert Position.from_cgp(MID).ruleset.name == "english"
    with pytest.raises(CGPError, match="variant racksmith does not play"):
        Position.from_cgp(MID + " var wordsmog;", "english")
    with pytest.raises(CGPError, match="variant racksmith does not play"):
        Position.from_cgp(MID + " var wordsmog;")
    assert Position.from_cgp(MID + " var classic;", "english").cgp() == MID + " var classic;"


# --- moves --------------------------------------------------------------------------------------

def test_a_word_parsed_one_character_a_tile_is_what_the_full_parser_reads():
    import random

    rng = random.Random(4)
    for alphabet in ALPHABETS:
        slow = _long_way(alphabet)
        pool = sorted({form for x in alphabet.letters for form in (x, x.lower())}) + list(ODD_TEXTS)
        pool += ["(", ")", ".", "[" + alphabet.letters[-1] + "]"]
        texts = []
        for _ in range(300):
            word = "".join(rng.choice(pool) for _ in range(rng.randrange(1, 8)))
            texts.append(f"{rng.choice(['8D', 'D8', '1A'])} {word}{rng.choice(['', ' *8B', ' x'])}")
        for text in texts + texts:  # (the second time with the letters read the first)
            assert _parsed_move(text, alphabet) == _parsed_move(text, slow), text


def _parsed_move(text: str, alphabet: Alphabet):
    try:
        m = Move.parse(text, alphabet)
    except RacksmithError as e:
        return type(e).__name__, str(e)
    return m.kind, m.row, m.col, m.across, m.tiles, m.reclaimed


def test_move_parse_and_place_give_plain_values():
    m = Move.parse("3J EVOKE")
    assert (m.row, m.col, m.across, type(m.tiles)) == (2, 9, True, tuple)
    assert m == Move.place(2, 9, True, (5, 22, 15, 11, 5))
    assert m == Move.place(np.int64(2), np.int8(9), np.bool_(True), [5, 22, 15, 11, 5])
    placed = Move.place(np.int64(2), 9, np.bool_(False), get_ruleset("english").alphabet.tiles((5, 22)))
    assert (type(placed.row), type(placed.across), type(placed.tiles)) == (int, bool, tuple)
    for args in ((2.0, 9, True, (1,)), (2, True, True, (1,)), (2, 9, 1, (1,)), (2, 9, True, "EV"), (2, 9, True, 5)):
        with pytest.raises(RacksmithError):
            Move.place(*args)
    for text in ("-EV", "exch EV", "(exch EV)", "Exchange ev?", "- EV"):
        assert Move.parse(text).kind == "exchange", text
    assert Move.parse("-").kind == "pass" and Move.parse("(pass)").kind == "pass"
    for text in ("-3", "(-3)", "exch 3", "- 3"):  # an exchange of tiles not known (an opponent's): -3
        m = Move.parse(text)
        assert m.kind == "exchange" and m.notation() == "-3" and m == Move.parse("-3"), text
    for text in ("-0", "-100"):
        with pytest.raises(RacksmithError, match="gives back 1 to 99 tiles"):
            Move.parse(text)


# --- scores ---------------------------------------------------------------------------------------

def test_scores_written_by_a_caller_are_still_checked_before_a_push():
    pos = Position.from_cgp(MID)
    pos.scores = [np.int64(30), 18]
    pos.zero_turns = np.int32(1)
    pos.push("pass")
    assert pos.scores == [18, 30] and all(type(s) is int for s in pos.scores) and pos.zero_turns == 2
    pos.pop()
    for scores in ([True, 0], [1.5, 0], [1], "12", [1, 2, 3]):
        with pytest.raises(PositionError, match="scores are whole numbers"):
            pos.scores = scores  # (refused when set)
    for score in (True, 1.5, "12"):
        pos.scores[0] = score  # (a list written in place: checked before the next push)
        with pytest.raises(PositionError, match="scores must be"):
            pos.push("pass")
    pos.scores = (3, 4)
    with pytest.raises(PositionError, match="zero_turns"):
        pos.zero_turns = -1  # (refused when set)
    pos.zero_turns = 0
    pos.push("pass")
    assert pos.scores == [4, 3]
    three = Position(racks=((1, 2), (3,), (4,)), scores=[1, 2, 3])
    three.scores[2] = np.int64(7)
    three.push("pass")
    assert three.scores == [2, 7, 1]


# --- leaves by name or path ----------------------------------------------------------------------

def _listed(pos: Position, leaves) -> list:
    return [(m.notation(), m.equity) for m in pos.moves(10, sort="equity", leaves=leaves)]


def test_leaves_named_by_a_path_follow_the_file(tmp_path):
    pos = Position.from_cgp(OUTGUN)
    path = tmp_path / "mine.klv2"
    shutil.copy(FIXTURES / "SYNTH.klv2", path)
    synth = _listed(pos, load_leaves(FIXTURES / "SYNTH.klv2"))
    assert _listed(pos, str(path)) == synth
    assert _listed(pos, path) == synth
    # the file replaced by other leaves: the next call reads them
    load_leaves("english").save(path)
    shipped = _listed(pos, load_leaves("english"))
    assert shipped != synth
    assert _listed(pos, str(path)) == shipped
    path.unlink()
    with pytest.raises(MoveGenError, match="cannot read leave file"):
        pos.moves(10, sort="equity", leaves=str(path))


def test_a_file_named_like_a_shipped_set_is_read_as_a_path_only(tmp_path, monkeypatch):
    """``leaves="english"`` is the shipped set, kept by name, whatever the working directory holds
    (as an embedded lexicon's name is); a file of that name there is read as ``./english`` or a
    Path, and the set is the set again once the file is gone."""
    monkeypatch.chdir(tmp_path)
    pos = Position.from_cgp(OUTGUN)
    shipped = _listed(pos, load_leaves("english"))
    synth = _listed(pos, load_leaves(FIXTURES / "SYNTH.klv2"))
    assert shipped != synth
    for _ in range(2):
        assert _listed(pos, "english") == shipped
    shutil.copy(FIXTURES / "SYNTH.klv2", tmp_path / "english")
    assert _listed(pos, "english") == shipped
    assert _listed(pos, "./english") == synth and _listed(pos, Path("english")) == synth
    (tmp_path / "english").unlink()
    assert _listed(pos, "english") == shipped
    assert _listed(pos, " English ") == shipped
    for _ in range(2):  # (a refusal is not kept as an answer)
        with pytest.raises(ValueError, match="spelled for ruleset russian"):
            pos.moves(leaves="russian")
    with pytest.raises(MoveGenError, match="leaves must be"):
        pos.moves(leaves=5)


# --- loading ------------------------------------------------------------------------------------

def test_a_compiled_word_list_knows_its_digest_without_hashing_the_graph_again(tmp_path, monkeypatch):
    """compile_word_list hashes the KWG it builds or reads from the cache (to check the cached
    copy), and the lexicon's digest (the name of its word map in the cache) comes from that hash:
    ENABLE's 3 MB graph was hashed a second time for it on every load."""
    from racksmith.lexicon import cache, wordmap

    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path))
    words = "\n".join(["AA", "AB", "BA", "ABA", "BAA", "CAB", "ABAC"]).encode()
    rs = get_ruleset("english")
    real = wordmap.kwg_digest
    calls = []
    monkeypatch.setattr(wordmap, "kwg_digest", lambda data: calls.append(len(data)) or real(data))
    built = cache.compile_word_list(words, rs, name="tiny")  # built, and written to the cache
    read = cache.compile_word_list(words, rs, name="tiny")  # read from the cache
    assert read.path is not None and read.path.parent == tmp_path
    for lex in (built, read):
        assert lex.digest == real(lex.tobytes())
    assert calls == []
