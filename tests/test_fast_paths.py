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
    real = cgp_module._plain_board
    read_fast = []  # the texts whose board the table read (not handed on to the long way)

    def plain_board(rows, ruleset):
        board = real(rows, ruleset)
        if board is not None:
            read_fast.append(text)
        return board

    for text in texts + texts:  # (the second time with the letters read the first)
        for rs in available_rulesets():
            with monkeypatch.context() as m:
                m.setattr(cgp_module, "_plain_board", plain_board)
                fast = _answer(lambda: _parsed(parse_cgp(text, rs)))
            with monkeypatch.context() as m:
                m.setattr(cgp_module, "_plain_board", lambda rows, ruleset: None)
                slow = _answer(lambda: _parsed(parse_cgp(text, rs)))
            assert fast == slow, (text, rs.name)
    # the short way was taken: every fixture's board (each written one character a square) both times
    assert set(lines) <= set(read_fast) and len(read_fast) >= 2 * len(lines)


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


# --- a game: what a bot's view knows of another rack (withdrawn phonies) --------------------------

def _small_words() -> tuple[str, ...]:
    from oracle import enable_words

    return tuple(w for w in enable_words() if len(w) <= 5)


_LEXICONS: dict[str, object] = {}


def _lexicon(which: str):
    """``wide``: ENABLE's words of 2 to 5 letters (the moves are drawn from them); ``game``: two in
    three of them (the game judges challenges by it: the others are phonies)."""
    from racksmith import Lexicon

    if which not in _LEXICONS:
        words = _small_words()
        _LEXICONS[which] = Lexicon.from_words(words if which == "wide" else [w for i, w in enumerate(words) if i % 3],
                                              "english")
    return _LEXICONS[which]


def _shown_racks_long_way(game) -> list:
    """``Game._shown_racks`` without its shortcut: the whole history read, a withdrawn play or not
    (the general path it short-cuts, as at c4ec16c)."""
    from collections import Counter

    from racksmith.core import turns
    from racksmith.core.turns import EventKind

    n = len(game.nicks)
    a = game.ruleset.alphabet
    out = [a.tiles() for _ in range(n)]
    if not len(game.bag):
        return out
    known = [Counter() for _ in range(n)]
    play: dict = {}
    for e in game.history:
        q = e.player
        if e.kind == EventKind.PLAY and e.move is not None:
            play[q] = (known[q], e.move)
            known[q] = known[q] - Counter(e.move.rack_tiles())
        elif e.kind == EventKind.PHONY and q in play:
            before, move = play.pop(q)
            known[q] = before | Counter(move.rack_tiles())
        elif e.kind == EventKind.EXCHANGE:
            known[q] = Counter()
    pos = game.live_position
    unseen = turns.unseen_counts(game.ruleset, pos.board, [pos.racks[0]])
    for i in range(1, n):
        tiles = []
        for t in sorted(known[(game.to_move + i) % n].elements()):
            if unseen[t] > 0:
                unseen[t] -= 1
                tiles.append(t)
        out[i] = a.tiles(tiles)
    return out


def _check_shown(game) -> list:
    shown = game._shown_racks()
    assert shown == _shown_racks_long_way(game)
    assert [type(r) for r in shown] == [type(game.ruleset.alphabet.tiles())] * len(game.nicks)
    return shown


def _challenge_possible(game) -> bool:
    last = game.history[-1] if game.history else None
    return last is not None and last.kind == "play" and last.player != game.to_move


def _games_with_phonies(players: int, seed: int, steps: int = 40):
    """A game of ``players`` whose moves are drawn from the wide list, a third of them phonies in
    the game's, challenged at random (withdrawn, a bonus, a lost turn), with exchanges and undos;
    yields the game after each action."""
    import random

    from racksmith import Game

    g = Game("english", _lexicon("game"), players=players, seed=seed)
    rnd = random.Random(seed)
    for _ in range(steps):
        if g.over:
            break
        r = rnd.random()
        if _challenge_possible(g) and r < 0.5:
            g.challenge(bonus=rnd.choice([0, 0, 5]))
        elif r < 0.58 and g._actions:
            g.undo()
        elif r < 0.64 and len(g.bag) >= 7 and g.rack:
            g.exchange(list(g.rack)[: rnd.randint(1, len(g.rack))])
        else:
            wide = g.live_position.copy(stack=False)
            wide.lexicon = _lexicon("wide")
            moves = [m for m in wide.moves() if m.is_place]
            if moves:
                g.play(moves[rnd.randrange(len(moves))], check_words=False)
            else:
                g.pass_()
        yield g


@pytest.mark.parametrize("players", [2, 3])
def test_the_racks_a_view_knows_are_those_the_whole_history_tells(players):
    """In games with withdrawn phonies, challenge bonuses, failed challenges, exchanges and undos,
    of two and three players, Game._shown_racks (what GameView gives as racks known in part) is
    after every action what reading the whole history gives, and so for a copy and a pickle."""
    import pickle

    withdrawn = known = 0
    for seed in range(6):
        for i, g in enumerate(_games_with_phonies(players, seed)):
            shown = _check_shown(g)
            withdrawn += g.history[-1].kind == "phony" if g.history else 0
            known += any(shown)
            if i % 7 == 0:
                for other in (g.copy(), pickle.loads(pickle.dumps(g))):
                    assert other._shown_racks() == shown
                    assert other.history == g.history
    assert withdrawn >= 5 and known >= 20  # (the long way was taken, and told something)


def test_undo_and_the_same_challenge_again_give_the_same_racks_known():
    """A withdrawn phony, taken back by undo and challenged again (the bag shaken the same way);
    then the play taken back, and played and withdrawn again."""
    from racksmith import Game

    g = Game("english", seed=5)
    g.play("8G FIS", check_words=False)
    assert _check_shown(g) == [(), ()]
    assert g.challenge() is True
    shown = _check_shown(g)
    assert str(shown[1]) == "FIS"
    g.undo()
    assert _check_shown(g) == [(), ()]
    assert g.challenge() is True
    assert _check_shown(g) == shown
    g.undo()
    g.undo()  # the play itself
    assert not g.history and _check_shown(g) == [(), ()]
    g.play("8G FIS", check_words=False)
    g.challenge()
    assert _check_shown(g) == shown
    g.play("8H FAV", check_words=False)  # the challenger's own phony, withdrawn: each knows the other's
    assert g.challenge() is True
    assert [str(r) for r in _check_shown(g)] == ["", "AFV"]
    g.pass_()
    assert [str(r) for r in _check_shown(g)] == ["", "FIS"]


def test_a_history_changed_by_hand_is_read_as_it_now_is():
    """history is a public list: an event replaced in its middle (its length and its last event as
    they were), or the list set anew, is read as it now is (nothing is kept from a read before)."""
    import pickle
    from dataclasses import replace

    from racksmith import Game
    from racksmith.core.turns import EventKind

    g = Game("english", seed=5)
    g.play("8G FIS", check_words=False)
    g.challenge()
    g.pass_()
    g.pass_()
    assert str(_check_shown(g)[1]) == "FIS"
    i = next(i for i, e in enumerate(g.history) if e.kind == EventKind.PHONY)
    phony = g.history[i]
    g.history[i] = replace(phony, kind=EventKind.PASS)
    assert _check_shown(g) == [(), ()]
    g.history[i] = phony
    assert str(_check_shown(g)[1]) == "FIS"
    g.history = [e for e in g.history if e.kind != EventKind.PHONY]
    assert _check_shown(g) == [(), ()]
    assert pickle.loads(pickle.dumps(g))._shown_racks() == [(), ()]


# --- replays: the tiles a play uses, and the racks shown ----------------------------------------

def _shown_after_long_way(shown, player, kind, move, withdrawn):
    """replay._shown_after without its shortcut (as at c4ec16c)."""
    from collections import Counter

    from racksmith.core.turns import EventKind

    if not 0 <= player < len(shown):
        return shown
    mine = Counter(shown[player])
    if kind == EventKind.PLAY and move is not None:
        tiles = Counter(move.rack_tiles())
        mine = mine | tiles if withdrawn else mine - tiles
    elif kind == EventKind.EXCHANGE or kind == EventKind.PLAY:
        mine = Counter()
    else:
        return shown
    out = list(shown)
    out[player] = type(shown[player])(sorted(mine.elements()))
    return out


def _records() -> list[tuple[str, str]]:
    """GCG records (name, text): the fixtures, games with withdrawn phonies (two and three
    players), and records whose rack lines lack a tile the play uses (a slip), write the board's
    letters over filled squares (Elise), or hold a rack of tiles the set no longer has."""
    out = [(p.name, p.read_text(encoding="utf-8", errors="replace")) for p in sorted((FIXTURES / "gcg").rglob("*.gcg"))]
    for players, seed in ((2, 1), (2, 4), (3, 2), (3, 5)):
        g = None
        for g in _games_with_phonies(players, seed, 60):
            pass
        assert g is not None
        out.append((f"phonies-{players}-{seed}", g.gcg()))
    doug = (FIXTURES / "gcg" / "macondo" / "doug_v_emely.gcg").read_text(encoding="utf-8")
    out += [
        ("slip", doug.replace(">emely: DEILOVX F2 VOX", ">emely: DEILOVY F2 VOX")),  # no X on the rack line
        ("kronax", doug.replace(">doug: DINNVWY 8D WINDY +32 32", ">doug: DINNVWY 8D WINDYX +32 32")),
        ("elise", doug.replace(">doug: AEJNOSV E3 JAVE..N +34 66", ">doug: AEJNOSV E3 JAVELIN +34 66")),
        ("over-the-set", doug.replace(">doug: AAEINRU 9G EAU", ">doug: AAEINRZ 9G EAU")),
        ("short-rack", doug.replace(">doug: ADENOST 10B DONATES", ">doug: ADENOT 10B DONATES")),
        ("blank-rack", doug.replace(">doug: AILNORT A5 LATINO", ">doug: ?ILNORT A5 lATINO")),
    ]
    return out


def _replayed(text: str):
    from racksmith.errors import RacksmithError
    from racksmith.review.replay import replay_text

    try:
        r = replay_text(text, lexicon=_lexicon("game"), strict=False)
    except RacksmithError as e:
        return (type(e).__name__, str(e))
    positions = []
    for turn in [*range(1, len(r.turns) + 2)]:
        for opponent_rack in (True, False):
            try:
                positions.append(r.position(turn, opponent_rack=opponent_rack).cgp())
            except RacksmithError as e:
                positions.append(str(e))
    errors = [(type(e).__name__, str(e), e.line) for e in r.errors]
    r.errors = []  # (an error is equal to itself only: compared by what it says)
    return r, errors, [(t.rack_complete, t.rack_slip, t.shown) for t in r.turns], positions


def test_a_replay_is_what_the_long_ways_replay(monkeypatch):
    """Every record replays as it does when every play builds the tiles it plays and every turn
    builds the racks shown anew (the paths the shortcuts skip): the turns, their racks and slips,
    the racks shown, every position with and without the opponent's rack."""
    from racksmith.review import replay as replay_module

    records = _records()
    quick = [_replayed(text) for _, text in records]
    monkeypatch.setattr(replay_module, "_holds", lambda rack, move: False)
    monkeypatch.setattr(replay_module, "_shown_after", _shown_after_long_way)
    slow = [_replayed(text) for _, text in records]
    for (name, _), a, b in zip(records, quick, slow):
        assert a == b, name
    replays = [r[0] for r in quick if not isinstance(r[0], str)]
    assert sum(t.withdrawn for r in replays for t in r.turns) >= 6
    assert any(len(r.record.players) == 3 and any(t.withdrawn for t in r.turns) for r in replays)
    assert sum(any(t.shown) for r in replays for t in r.turns) >= 10
    assert sum(bool(r.rack_slips) for r in replays) >= 2


def test_a_play_whose_rack_holds_its_tiles_builds_none(monkeypatch):
    """A play whose rack line is whole and holds the tiles the play uses as written is made from
    that rack without the tiles played being built (a board read for each of its tiles, Counters):
    only the lines that need it take that way (a slip, a letter written over a filled square)."""
    from racksmith.review import replay as replay_module
    from racksmith.review.replay import replay_text

    calls = []
    real = replay_module._through_filled
    monkeypatch.setattr(replay_module, "_through_filled", lambda move, board: calls.append(move) or real(move, board))
    doug = (FIXTURES / "gcg" / "macondo" / "doug_v_emely.gcg").read_text(encoding="utf-8")
    r = replay_text(doug)
    assert r.ok and calls == []
    r = replay_text(doug.replace(">doug: AEJNOSV E3 JAVE..N +34 66", ">doug: AEJNOSV E3 JAVELIN +34 66"))
    assert r.ok and [m.notation() for m in calls] == ["E3 JAVELIN"]
    calls.clear()
    r = replay_text(doug.replace(">emely: DEILOVX F2 VOX", ">emely: DEILOVY F2 VOX"), strict=False)
    assert len(r.rack_slips) == 1 and "lacks X" in r.rack_slips[0].message and len(calls) == 1


def test_a_turn_that_shows_nothing_keeps_the_racks_shown_as_they_were():
    from racksmith.core.move import Move
    from racksmith.core.turns import EventKind
    from racksmith.review.replay import _shown_after

    a = get_ruleset("english").alphabet
    play = Move.parse("8D FIS", "english")
    empty = [a.tiles(), a.tiles()]
    known = [a.tiles(), a.tiles(a.rack("FIS"))]
    for kind, move in ((EventKind.PLAY, play), (EventKind.PLAY, None), (EventKind.EXCHANGE, None), (EventKind.PASS, None)):
        for shown, player in ((empty, 0), (empty, 1), (known, 0), (known, 5), (known, -1)):
            for withdrawn in (False, True):
                got = _shown_after(list(shown), player, kind, move, withdrawn)
                assert got == _shown_after_long_way(list(shown), player, kind, move, withdrawn)
                assert [type(t) for t in got] == [type(t) for t in shown]
        assert _shown_after(empty, 0, kind, move, False) is empty  # (nothing built)
    assert [str(t) for t in _shown_after(known, 1, EventKind.PLAY, play, False)] == ["", ""]
    assert [str(t) for t in _shown_after(empty, 0, EventKind.PLAY, play, True)] == ["FIS", ""]


# --- GCG: the letters of a record that names no ruleset ----------------------------------------

def _foreign_letters_long_way(lines, alphabet_of, symbols=False):
    """gcg._foreign_letters without its shortcut: every tile character of the events looked at."""
    from racksmith.formats.gcg import _tile_chars

    alphabet = alphabet_of.alphabet
    found: dict[str, int] = {}
    for ch, number in _tile_chars(lines):
        if ch.isalpha() or (symbols and not ch.isascii()):
            if ch.upper() not in found and ch not in alphabet:
                found[ch.upper()] = number
    return list(found.items())


class _Letters:
    """A stand-in ruleset: the alphabet is all _foreign_letters reads of it."""

    def __init__(self, alphabet):
        self.alphabet = alphabet


_FOREIGN_RECORDS = (
    "#player1 José José\n#player2 Łucja Łucja\n#note Ça va — “fine”\n>José: ABC 8D CAB +14 14\n",
    "#player1 a a\n#player2 b b\n>a: ŁÓDŹ 8D ŁÓDŹ +20 20\n>b: ąę 8H ąę +0 0\n",
    ">a: ЖУК 8Г ЖУК +10 10\n>b: ?ОТ *8H=О Б8 ТОТ +3 3\n>a: UNKNOWN (challenge) +5 15\n",
    ">a: AB░ 8D AB░ +4 4\n  >b: Ab 8D AB +4 4\n>c no colon ÿ\n#note ÿ\n>a: -ÉÈ +0 4\n>a: (ÉÈ) -4 0\n",
    ">a: XYZ 8D X.Z +1 1\n>a: 8Ж Ж +1 1\n>a: L·L 8D L·L +1 1\n>a: İı 8D iİ +1 1\n",
    "#player1 a a\n#player2 b b\n>a: AB░ 8D AB░ +4 4\n",  # (a symbol, no letter: told with symbols only)
    "#player1 José José\n#player2 b b\n>José: ŁAB 8D AB +4 4\n",  # (a letter in the nick and one in a rack)
    "#player1 a a\n#player2 b b\n#note “quoted” — ½\n>a: AB 8D AB +4 4\n",
    "",
)


def test_the_letters_of_a_record_are_those_the_long_way_tells():
    """_foreign_letters (the letters a record that names no ruleset has that the ruleset lacks, and
    with symbols the characters that tell a misread encoding) gives what looking at every tile
    character gives, for every shipped ruleset and odd alphabets, on the fixtures and on records
    whose nicks and notes hold letters no tile has."""
    from racksmith.formats.gcg import _foreign_letters

    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(FIXTURES.rglob("*.gcg"))]
    texts += [p.read_text(encoding="latin-1") for p in sorted(FIXTURES.rglob("*.gcg"))]  # (as misread)
    texts += list(_FOREIGN_RECORDS)
    told = 0
    for text in texts:
        lines = unicodedata.normalize("NFC", text).splitlines()
        for alphabet in ALPHABETS:
            rs = _Letters(alphabet)
            for symbols in (False, True):
                got = _foreign_letters(lines, rs, symbols)
                assert got == _foreign_letters_long_way(lines, rs, symbols), (alphabet.name, symbols, text[:60])
                told += bool(got)
    assert told >= 40


def test_a_record_whose_tiles_are_the_ruleset_s_is_not_read_tile_by_tile(monkeypatch):
    """A record that names no ruleset is read whole for its letters only when the quick look (every
    character of the text, then of the events after their nicks) finds one the ruleset lacks: a
    nick or a note in another language does not make the tiles be read one by one; a tile does,
    and the error names it as before."""
    from racksmith.errors import GCGError
    from racksmith.formats import gcg as gcg_module
    from racksmith.formats.gcg import parse_gcg

    calls = []
    real = gcg_module._tile_chars
    monkeypatch.setattr(gcg_module, "_tile_chars", lambda lines: calls.append(1) or real(lines))
    for path in ("game01_seed1.gcg", "macondo/josh2.gcg", "macondo/doug_v_emely.gcg"):
        parse_gcg((FIXTURES / "gcg" / path).read_text(encoding="utf-8"))
    parse_gcg(_FOREIGN_RECORDS[0])  # (José, Łucja, a note in French)
    assert calls == []
    with pytest.raises(GCGError, match="its letters Ł, Ó, Ź, Ą, Ę are not English") as e:
        parse_gcg(_FOREIGN_RECORDS[1])
    assert e.value.line == 3 and calls
    monkeypatch.setattr(gcg_module, "_foreign_letters", _foreign_letters_long_way)
    with pytest.raises(GCGError) as slow:
        parse_gcg(_FOREIGN_RECORDS[1])
    assert (str(slow.value), slow.value.line) == (str(e.value), e.value.line)
