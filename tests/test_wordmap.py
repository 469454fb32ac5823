"""Word maps (racksmith.lexicon.wordmap): the anagram tables against the word list, the cache file
(round trip, and every kind of damage detected and rebuilt), and the best N found with them equal
to the head of the complete list — on the fixture positions, on random positions of every shipped
ruleset (blanks and openings included), and where the word maps cannot apply (the KWG walk
then takes over)."""
from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle import FIXTURES, load_fixture_positions
from racksmith.core.position import Position
from racksmith.errors import LexiconFormatError
from racksmith.lexicon import Leaves, Lexicon, _wmp, load_lexicon, wordmap
from racksmith.movegen._movegen import BoardState, LeaveTable, Rules, Tables
from racksmith.rules.ruleset import Ruleset, get_ruleset

WORDS = ["CAT", "ACT", "TAC", "CATS", "SCAT", "ACTS", "CAST", "TA", "AT", "AA", "AAS", "ZZZ", "QI", "QIS",
         "ETA", "TEA", "EAT", "ATE", "SEAT", "EAST", "SATE", "TEAS", "EATS", "ETAS", "TAES", "ZA", "ZAS"]


def _brute_anagrams(words, tiles: str, blanks: int) -> list[str]:
    need = Counter(tiles)
    out = []
    for w in words:
        if len(w) != len(tiles) + blanks:
            continue
        extra = Counter(w)
        extra.subtract(need)
        if all(v >= 0 for v in extra.values()):
            out.append(w)
    return sorted(set(out))


def _anagrams(wm, alphabet, tiles: str, blanks: int) -> list[str]:
    got = wm.anagrams(bytes(alphabet.rack(tiles)), blanks)
    return sorted("".join(alphabet.letters[t - 1] for t in w) for w in got)


# --- the tables ------------------------------------------------------------------------------------

@pytest.mark.parametrize("blanks", [0, 1, 2, 3])
def test_anagrams_by_the_tables_are_those_of_the_word_list(blanks):
    rs = get_ruleset("english")
    lex = Lexicon.from_words(WORDS, rs)
    wm = wordmap.build_wordmap(lex)
    letters = sorted(set("".join(WORDS)))
    for n in range(0, 5):
        for tiles in itertools.combinations_with_replacement(letters, n):
            t = "".join(tiles)
            if 2 <= n + blanks <= 4:
                assert _anagrams(wm, rs.alphabet, t, blanks) == _brute_anagrams(WORDS, t, blanks), (t, blanks)


def test_a_wide_alphabet_keeps_its_letter_sets_apart():
    # Russian: 33 letters, so letter sets do not fit 32 bits and the map interns them
    rs = get_ruleset("russian")
    words = ["ЯМА", "МЯЧ", "ЭХО", "ЁЖ", "ЖЁЛУДЬ", "ЯЩИК", "ЩИТ", "ЬЯ"]
    lex = Lexicon.from_words(words, rs)
    wm = wordmap.build_wordmap(lex)
    assert wm.n_letters == 33
    for w in words + ["ЯЯЯ", "АБВГ"]:
        for b in range(0, min(3, len(w)) + 1):
            t = w[: len(w) - b]
            assert _anagrams(wm, rs.alphabet, t, b) == _brute_anagrams(words, t, b), (w, b)
            if w in words:
                assert w in _anagrams(wm, rs.alphabet, t, b)


def test_the_map_names_its_lexicon():
    rs = get_ruleset("english")
    a = Lexicon.from_words(["CAT"], rs)
    b = Lexicon.from_words(["DOG"], rs)
    data = _wmp.build(a.kwg, 26, 9, a.digest)
    assert _wmp.WordMap(data, a.digest).digest == a.digest
    with pytest.raises(ValueError, match="another lexicon"):
        _wmp.WordMap(data, b.digest)
    with pytest.raises(ValueError, match="another lexicon"):
        Rules(b, rs, None, _wmp.WordMap(data))


# --- the cache file --------------------------------------------------------------------------------

@pytest.fixture
def cached(tmp_path, monkeypatch):
    """A small lexicon whose map goes to a private cache (the size floor lowered for the test)."""
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(wordmap, "MEMORY_ONLY_BELOW", 0)
    lex = Lexicon.from_words(WORDS, "english", name="tiny")
    return lex, wordmap.cache_path(lex)


def test_the_cache_round_trip(cached):
    lex, path = cached
    assert not path.exists()
    built = wordmap.wordmap_of(lex)
    assert path.exists() and path.read_bytes() == _wmp.build(lex.kwg, 26, wordmap.MAX_LEN2, lex.digest)
    again = wordmap.wordmap_of(lex)                     # read back from the file
    assert again.counts == built.counts and again.nbytes == path.stat().st_size
    assert wordmap.read_wordmap(path, lex.digest).counts == built.counts
    assert lex.wordmap is lex.wordmap                   # kept with the lexicon


def _truncate(b: bytes) -> bytes:
    return b[: len(b) // 2]


def _flip_middle(b: bytes) -> bytes:
    i = len(b) // 2
    return b[:i] + bytes([b[i] ^ 0x10]) + b[i + 1:]


def _wrong_version(b: bytes) -> bytes:
    return b[:8] + (99).to_bytes(4, "little") + b[12:]


def _wrong_magic(b: bytes) -> bytes:
    return b"NOTAWMAP" + b[8:]


def _other_lexicon(b: bytes) -> bytes:
    other = Lexicon.from_words(["DOG", "GOD"], "english")
    return _wmp.build(other.kwg, 26, wordmap.MAX_LEN2, other.digest)


def _grown(b: bytes) -> bytes:
    return b + bytes(64)


def _empty(b: bytes) -> bytes:
    return b""


def _bad_slot_resealed(b: bytes) -> bytes:
    """A table slot pointing past the words, with the checksum recomputed: only the structural
    check can see it."""
    data = bytearray(b)
    header, max_len = 128, 26
    for L in range(2, max_len + 1):
        at = header + (0 * (max_len + 1) + L) * 16
        off = int.from_bytes(data[at:at + 8], "little")
        nb = int.from_bytes(data[at + 8:at + 12], "little")
        for s in range(nb * 4):
            slot = off + 16 * s
            if int.from_bytes(data[slot + 4:slot + 8], "little"):
                data[slot + 8:slot + 12] = (2**32 - 1).to_bytes(4, "little")
                data[48:56] = _wmp._checksum(bytes(data)).to_bytes(8, "little")
                return bytes(data)
    raise AssertionError("no class slot")


@pytest.mark.parametrize(
    "damage, message",
    [
        (_truncate, "truncated"),
        (_flip_middle, "checksum"),
        (_wrong_version, "version"),
        (_wrong_magic, "magic"),
        (_other_lexicon, "another lexicon"),
        (_grown, "bytes"),
        (_empty, "empty"),
        (_bad_slot_resealed, "corrupt word map"),
    ],
)
def test_a_damaged_cache_file_is_detected_and_rebuilt(cached, damage, message):
    lex, path = cached
    wordmap.wordmap_of(lex)
    good = path.read_bytes()
    path.write_bytes(damage(good))
    with pytest.raises(LexiconFormatError, match=message) as e:
        wordmap.read_wordmap(path, lex.digest)
    assert str(path) in str(e.value)
    wm = wordmap.wordmap_of(lex)                        # detected, built again, written again
    assert path.read_bytes() == good
    assert wm.counts == _wmp.WordMap(good).counts
    pos = Position.from_cgp("15/15/15/15/15/15/15/7CAT5/15/15/15/15/15/15/15 AST?/ 0/0 0", "english",
                            lexicon=lex)
    assert [str(m) for m in pos.moves(top=3)] == [str(m) for m in pos.moves()][:3]


def test_a_missing_file_is_a_lexicon_format_error(tmp_path):
    with pytest.raises(LexiconFormatError, match="cannot read word map file"):
        wordmap.read_wordmap(tmp_path / "none.wmp")


def test_an_unwritable_cache_keeps_the_map_in_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(wordmap, "MEMORY_ONLY_BELOW", 0)
    lex = Lexicon.from_words(WORDS, "english", name="tiny")
    wm = wordmap.wordmap_of(lex)
    assert wm.counts["classes"] > 0 and not (blocker / "cache").exists()


def test_the_same_kwg_under_a_larger_alphabet_has_its_own_cached_map(tmp_path, monkeypatch):
    """A ruleset file adding a letter after Z and playing ENABLE has the same KWG bytes (the same
    digest) as English: the map cached for one alphabet size made the other fail ("the word map
    was built for another lexicon", a traceback), shipped English included, until the cache was
    deleted. Each size has its own file now, and a file of the wrong size is never used."""
    from racksmith.rules.ruleset import Ruleset, get_ruleset

    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(wordmap, "MEMORY_ONLY_BELOW", 0)
    english = get_ruleset("english")
    data = english.to_dict()
    data["name"] = "plus1"
    data["tiles"] = [*data["tiles"], ["Ñ", 2, 8]]
    plus1 = Ruleset.from_dict(data)
    small = Lexicon.from_words(WORDS, plus1, name="tiny")
    plain = Lexicon.from_words(WORDS, english, name="tiny")
    assert small.digest == plain.digest and len(small.alphabet) == len(plain.alphabet) + 1
    assert wordmap.cache_path(small) != wordmap.cache_path(plain)
    for lex, rs in ((small, plus1), (plain, english), (small, plus1)):
        pos = Position(rs, None, (tuple(rs.alphabet.tiles("AEINST")), ()), lexicon=lex)
        assert wordmap.wordmap_of(lex).n_letters == len(rs.alphabet)
        assert len(pos.moves(top=1)) == 1
    # a map of the wrong size under a lexicon's name (an older racksmith's file) is built again
    wordmap.cache_path(plain).write_bytes(wordmap.cache_path(small).read_bytes())
    assert wordmap.wordmap_of(plain).n_letters == len(english.alphabet)


def test_small_lexicons_never_touch_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path))
    lex = Lexicon.from_words(WORDS, "english", name="tiny")
    assert lex.wordmap.counts["classes"] > 0
    assert list(tmp_path.iterdir()) == []


# --- the best N by word maps: the head of the complete list ------------------------------------------

ENGLISH = load_fixture_positions("positions.jsonl")
SUPER = load_fixture_positions("super_positions.jsonl")


@pytest.fixture(scope="module")
def enable15():
    return {rs: Lexicon.load(FIXTURES / "ENABLE15.kwg", rs) for rs in ("english", "super")}


@pytest.fixture(scope="module")
def synth():
    return {"english": Leaves.load(FIXTURES / "SYNTH.klv2", "english"),
            "super": Leaves.load(FIXTURES / "SYNTH_super.klv2", "super")}


def _arrays(pos: Position):
    board = np.ascontiguousarray(pos.board, dtype=np.uint8)
    rs = pos.ruleset
    opp = sum(rs.values[t] for t in pos.racks[1]) if len(pos.racks) > 1 else 0
    return board, bytes(pos.racks[0]), rs.total_tiles - sum(pos.rack_sizes), opp


def _check_best(pos: Position, leaves: Leaves | None, tops=(1, 3, 20), expect_wordmap=True):
    """Best N with word maps == best N by the KWG walk == head of every move, byte for byte."""
    rs = pos.ruleset
    lt = LeaveTable(leaves) if leaves is not None else None
    with_map = Tables(Rules(pos.lexicon, rs), lt)
    without = Tables(Rules(pos.lexicon, rs, None, False), lt)
    assert with_map.rules.wordmap is not None and without.rules.wordmap is None
    board, rack, not_on_racks, opp = _arrays(pos)
    state = BoardState(with_map.rules)
    state.set(board)
    for by_equity in (True, False):
        for gaddag in (True, False):
            full, _ = without.generate(board, rack, not_on_racks, opp, 0, by_equity, rs.exchange_limit, 3, gaddag)
            for n in tops:
                a, _ = with_map.generate(board, rack, not_on_racks, opp, n, by_equity, rs.exchange_limit, 3, gaddag)
                b, _ = without.generate(board, rack, not_on_racks, opp, n, by_equity, rs.exchange_limit, 3, gaddag)
                assert a.tobytes() == full[:n].tobytes(), (by_equity, gaddag, n)
                assert b.tobytes() == full[:n].tobytes(), (by_equity, gaddag, n)
                c, _ = state.generate(rack, not_on_racks, opp, n, by_equity, rs.exchange_limit, 3, gaddag, lt)
                assert c.tobytes() == a.tobytes()
                if expect_wordmap:
                    assert state._wordmap_stats() is not None


@pytest.mark.parametrize("record", ENGLISH + SUPER, ids=[r["id"] for r in ENGLISH + SUPER])
def test_best_n_by_word_maps_on_the_fixture_positions(record, enable15, synth):
    rs = "super" if record["ruleset"] == "super" else "english"
    pos = Position.from_cgp(record["cgp"], rs, lexicon=enable15[rs])
    _check_best(pos, synth[rs])


def test_the_word_map_search_is_the_one_used(enable15, synth):
    rec = next(r for r in ENGLISH if r["id"] == "mid2b_s632_t5")
    pos = Position.from_cgp(rec["cgp"], "english", lexicon=enable15["english"])
    state = BoardState(Rules(pos.lexicon, pos.ruleset))
    board, rack, not_on_racks, opp = _arrays(pos)
    state.set(board)
    state.generate(rack, not_on_racks, opp, 1, True, 7, 3, True, LeaveTable(synth["english"]))
    stats = state._wordmap_stats()
    assert stats is not None and stats["groups"] > 0 and 0 < stats["generated"] < stats["groups"]


_LEXICONS: dict[str, Lexicon] = {}


def _lexicon(ruleset: str) -> Lexicon:
    if ruleset not in _LEXICONS:
        if ruleset in ("english", "super"):
            _LEXICONS[ruleset] = Lexicon.load(FIXTURES / "ENABLE15.kwg", ruleset)
        else:
            _LEXICONS[ruleset] = load_lexicon("ru" if ruleset == "russian" else "ru-erudit", ruleset=ruleset)
    return _LEXICONS[ruleset]


def _random_position(ruleset: str, seed: int, turns: int, blanks: int) -> Position:
    """A position after ``turns`` random placements (openings when 0), with a rack of the unseen
    tiles holding ``blanks`` blanks when the set has them."""
    rs = get_ruleset(ruleset)
    lex = _lexicon(ruleset)
    rng = random.Random(seed)
    pos = Position.empty(rs, lexicon=lex)
    for _ in range(turns):
        unseen = list(pos.unseen_tiles())
        rng.shuffle(unseen)
        rack = "".join(rs.alphabet.rack_string([t]) for t in unseen[: rs.rack_size])
        trial = Position.from_cgp(_cgp(pos, rack), rs, lexicon=lex)
        places = [m for m in trial.moves(top=30) if m.is_place]
        if not places:
            continue
        pos = Position.from_cgp(_cgp(trial.play(rng.choice(places)), ""), rs, lexicon=lex)
    unseen = list(pos.unseen_tiles())
    letters = [t for t in unseen if t != 0]
    rng.shuffle(letters)
    n_blanks = min(blanks, unseen.count(0))
    rack = [0] * n_blanks + letters[: rs.rack_size - n_blanks]
    return Position.from_cgp(_cgp(pos, rs.alphabet.rack_string(rack)), rs, lexicon=lex)


def _cgp(pos: Position, rack: str) -> str:
    board = pos.cgp().split(" ")[0]
    return f"{board} {rack}/ 0/0 0"


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=st.sampled_from(["english", "super", "russian", "erudit"]), seed=st.integers(0, 2**32 - 1),
       turns=st.sampled_from([0, 0, 1, 3, 8]), blanks=st.sampled_from([0, 1, 2]))
def test_best_n_by_word_maps_on_random_positions(ruleset, seed, turns, blanks):
    pos = _random_position(ruleset, seed, turns, blanks)
    leaves = Leaves.load(FIXTURES / "SYNTH.klv2", "english") if ruleset == "english" else None
    _check_best(pos, leaves, tops=(1, 5))


# --- where word maps do not apply, the KWG walk answers (same moves) ---------------------------------

def _made_up(blanks: int, rack_size: int, letters: int = 6) -> Ruleset:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓ"
    return Ruleset.from_dict({
        "name": "made-up", "board": ["." * 15] * 15,
        "tiles": [[x, 40, 1] for x in alphabet[:letters]], "blanks": blanks,
        "rack_size": rack_size, "bingo_bonus": 50, "start": "8H", "vowels": alphabet[:2],
    })


@pytest.mark.parametrize(
    "blanks, rack_size, letters, rack, tops",
    [
        (6, 9, 6, "AB?????", (1, 3)),              # five blanks: more than the word maps take
        (4, 9, 6, "ABC????", (1, 3)),              # four: the most they take (through the one-blank table)
        (2, 15, 6, "AABBCCDDEEFF??", (1, 3)),      # the kernel's longest rack
        (0, 15, 26, "ABCDEFGHIJKLMNO", (1, 3)),    # 15 different tiles: the most sets of one size (C(15, 7))
        (2, 7, 40, "ÀÍAB?", (1, 3)),               # 40 letters: a wide map
        (2, 7, 6, "ABCDE?", (65, 200)),            # a larger heap than the word maps' search keeps
    ],
)
def test_outside_the_word_maps_reach_the_best_n_are_still_the_head(blanks, rack_size, letters, rack, tops):
    rs = _made_up(blanks, rack_size, letters)
    alphabet = rs.alphabet.letters
    rng = random.Random(letters * 31 + rack_size)
    words = {"".join(rng.choice(alphabet) for _ in range(rng.randint(2, 8))) for _ in range(3000)}
    lex = Lexicon.from_words(sorted(words), rs)
    first = next(w for w in sorted(words) if 2 <= len(w) <= 5)
    pos = Position.from_cgp(f"15/15/15/15/15/15/15/7{first}{8 - len(first)}/15/15/15/15/15/15/15 {rack}/ 0/0 0",
                            rs, lexicon=lex)
    _check_best(pos, None, tops=tops, expect_wordmap=False)
    _check_best(Position.from_cgp(f"15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 {rack}/ 0/0 0", rs, lexicon=lex),
                None, tops=tops, expect_wordmap=False)


def test_a_lexicon_given_another_graph_gets_that_graphs_map():
    rs = get_ruleset("english")
    lex = Lexicon.from_words(["CAT"], rs)
    first = lex.wordmap
    object.__setattr__(lex, "kwg", Lexicon.from_words(["DOG"], rs).kwg)  # (refused as `lex.kwg = ...`: test_api_frozen_lexicon)
    assert lex.wordmap.digest == lex.digest != first.digest
    assert _anagrams(lex.wordmap, rs.alphabet, "GOD", 0) == ["DOG"]
    pos = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 DOG/ 0/0 0", rs, lexicon=lex)
    assert pos.moves(top=1)[0].word.upper() == "DOG"


def test_every_class_of_a_large_lexicon_is_found_through_its_presence_bits():
    """The class lookups first ask a bit array built at load (most multisets asked are no class):
    a bit left unset would lose every word of its classes, so every word must still be found."""
    lex = load_lexicon("enable")
    wm = lex.wordmap
    rs = get_ruleset("english")
    words = [w for w in lex.words() if len(w) <= wm.max_len]
    rng = random.Random(20261124)
    for w in rng.sample(words, 3000) + [min(words, key=len), max(words, key=len)]:
        assert w in _anagrams(wm, rs.alphabet, w, 0), w
    # the blank tables have presence bits too: a word is still found with one or two letters blank
    for w in rng.sample(words, 300):
        i = rng.randrange(len(w))
        assert w in _anagrams(wm, rs.alphabet, w[:i] + w[i + 1:], 1), (w, i)
    for w in rng.sample([w for w in words if len(w) <= wm.max_len2], 100):
        i, j = sorted(rng.sample(range(len(w)), 2))
        assert w in _anagrams(wm, rs.alphabet, w[:i] + w[i + 1:j] + w[j + 1:], 2), (w, i, j)
