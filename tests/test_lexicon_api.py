"""The Lexicon API: word lists, queries against brute-force oracles, the compile cache,
embedded lexicons."""
from __future__ import annotations

import itertools
import os
import pickle
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racksmith.errors import LexiconFormatError, UnknownLetterError
from racksmith.lexicon import Lexicon, UnknownLexiconError, load_lexicon
from racksmith.lexicon.wordlist import parse_word_list
from racksmith.rules.ruleset import Ruleset, get_ruleset

ENGLISH = get_ruleset("english")
SMALL = ["AA", "AB", "ABA", "BA", "BAA", "BAD", "CAB", "CABS", "CAD", "DAB", "DABS", "SCAB", "ABCD"]


@pytest.fixture(scope="module")
def small() -> Lexicon:
    return Lexicon.from_words(SMALL, ENGLISH, name="small")


# --- word lists ----------------------------------------------------------------------------

def test_word_list_rules():
    text = "\ufeffcat\r\nDog\n\n  bird  \nx\nnaïve\nab cd\n" + "a" * 16 + "\nCAT\n" + "b" * 15 + "\n"
    wl = parse_word_list(text.encode(), ENGLISH.alphabet, 15)
    lex = Lexicon.from_word_list(wl, ENGLISH)
    assert lex.words() == ["B" * 15, "BIRD", "CAT", "DOG"]
    s = lex.skipped_by_reason
    assert (s.letters, s.too_long, s.too_short) == (2, 1, 1) and lex.skipped == 4
    assert s.describe(15) == ("skipped 4 words: 2 with letters outside the alphabet (line 6 'naïve': 'ï'; line 7 'ab cd': "
                              "' '), 1 longer than 15, 1 shorter than 2")


def test_word_lists_must_be_utf8_text():
    with pytest.raises(LexiconFormatError, match="not UTF-8"):
        parse_word_list(b"caf\xe9\n", ENGLISH.alphabet, 15)
    with pytest.raises(LexiconFormatError, match="NUL bytes"):
        parse_word_list(b"\x02\x00\x40\x00", ENGLISH.alphabet, 15)


def test_russian_list_with_yo_and_its_erudit_folding():
    words = ["ёж", "еж", "ЁЛКА", "елка", "мёд", "word"]
    ru = Lexicon.from_words(words, "russian")
    assert ru.words() == ["ЕЖ", "ЕЛКА", "ЁЖ", "ЁЛКА", "МЁД"] and ru.skipped == 1
    er = Lexicon.from_words(words, "erudit")
    assert er.words() == ["ЕЖ", "ЕЛКА", "МЕД"]
    assert "ёж" in er and "ЁЖ" in er and "мед" in er


def multi_letter_ruleset() -> Ruleset:
    data = ENGLISH.to_dict()
    data["name"] = "withch"
    data["tiles"] = data["tiles"] + [["CH", 1, 5]]
    return Ruleset.from_dict(data)


def test_multi_character_letters():
    rs = multi_letter_ruleset()
    ch = len(rs.alphabet)
    lex = Lexicon.from_words(["[ch]at", "[C]hat", "cab", "a[CH]"], rs)
    assert lex.words() == ["A[CH]", "CAB", "CHAT", "[CH]AT"]  # spelled as the alphabet decodes
    assert all(w in lex for w in lex.words())
    assert lex.contains_tiles([ch, 1, 20]) and lex.contains_tiles([3, 8, 1, 20])
    assert "CHAT" in lex and "[CH]AT" in lex and "ACH" not in lex and len(lex) == 4


# --- queries against oracles ---------------------------------------------------------------

def test_membership_and_length(small):
    assert len(small) == len(SMALL)
    for w in SMALL:
        assert w in small and w.lower() in small
    for w in ["A", "ABAB", "CA", "", "ÄB", "A?", "SCABS"]:
        assert w not in small
    assert [3, 1, 2] in small and (3, 1, 2 | 0x80) in small  # a blank on the board still spells the word
    assert small.contains_tiles([3, 1, 2 | 0x80]) and not small.contains_tiles([3, 1, 0])
    assert 42 not in small


@pytest.mark.parametrize("tiles", [[200, 201], [3, 1, 2 | 0x40], [3, 1, 27], [3, 1, -62], [2**70 | 2], [0x80]])
def test_numbers_that_are_no_tiles_are_refused_not_read_as_letters(small, tiles):
    """[200, 201] read as 'HI' (the low bits of each number) and answered True."""
    with pytest.raises(UnknownLetterError, match="is not a tile of english"):
        small.contains_tiles(tiles)
    assert tiles not in small  # 'in' answers yes or no: these numbers spell no word
    with pytest.raises(UnknownLetterError, match="look a word up with 'word in lexicon'"):
        small.contains_tiles("CAB")
    assert small.contains_tiles([3, 1, 2]) and small.contains_tiles([3 | 0x80, 1, 2]) and not small.contains_tiles([])


def test_iteration_is_in_alphabet_order(small):
    assert list(small) == sorted(SMALL)


def test_completions(small):
    assert small.completions("CAB") == ["CAB", "CABS"]
    assert small.completions("ab") == ["AB", "ABA", "ABCD"]
    assert small.completions("ABC") == ["ABCD"]
    assert small.completions("Z") == [] and small.completions("É") == []
    with pytest.raises(UnknownLetterError, match=r"completions\('AB\?'\): a prefix is letters.*completions\('AB'\)"):
        small.completions("AB?")  # (a blank is an anagram's tile: it read as no word at all)
    assert small.completions("") == sorted(SMALL)


def oracle_anagrams(words, rack: str, partial: bool) -> list[str]:
    """Every word the rack makes, blanks taking the last occurrences of letters it lacks."""
    have = Counter(c for c in rack if c != "?")
    blanks = rack.count("?")
    out = []
    for w in words:
        if not partial and len(w) != len(rack):
            continue
        need = Counter(w)
        missing = sum(max(0, n - have[c]) for c, n in need.items())
        if missing > blanks:
            continue
        spelled = []
        for i, c in enumerate(w):
            natural_left = have[c] - w[:i].count(c)
            spelled.append(c if natural_left > 0 else c.lower())
        out.append("".join(spelled))
    return out


@settings(max_examples=80, deadline=None)
@given(st.text("ABCDS?", min_size=0, max_size=6), st.booleans())
def test_anagrams_match_a_brute_force_oracle(small_rack, partial):
    lex = Lexicon.from_words(SMALL, ENGLISH)
    assert lex.anagrams(small_rack, partial=partial) == oracle_anagrams(sorted(SMALL), small_rack, partial)


def test_anagrams_of_a_classic_rack():
    lex = load_lexicon("enable")
    assert lex.anagrams("AEINST") == ["TENIAS", "TINEAS", "TISANE"]
    with_blank = lex.anagrams("AEINST?")
    assert len(with_blank) == 67 and "ETAmINS" in with_blank
    assert all(sum(c.islower() for c in w) == 1 for w in with_blank)
    assert {w.upper() for w in with_blank} >= {"SALTINE", "RETINAS", "STAINER"}
    partial = lex.anagrams("QUIRKS", partial=True)
    assert {"QUIRK", "QUIRKS", "SKI", "IRK"} <= set(partial)
    with pytest.raises(UnknownLetterError):
        lex.anagrams("AB1")


def test_gaddag_strings_spell_formats_md_example():
    assert Lexicon.from_words(["CARE"]).gaddag_strings() == ["AC@RE", "C@ARE", "ERAC", "RAC@E"]


def test_pickle_round_trip(small):
    again = pickle.loads(pickle.dumps(small))
    assert again.words() == small.words() and again.tobytes() == small.tobytes()
    assert again.skipped_by_reason == small.skipped_by_reason


# --- cache ---------------------------------------------------------------------------------

@pytest.fixture()
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(folder))
    return folder


def write_list(path: Path, words) -> Path:
    path.write_text("\n".join(words) + "\n", encoding="utf-8")
    return path


def test_a_word_list_is_compiled_once_and_then_mapped(cache, tmp_path):
    words = write_list(tmp_path / "mine.txt", SMALL + ["toolongforthisboardxx", "Q"])
    first = load_lexicon(words)
    assert first.path is not None and first.path.parent == cache and first.path.suffix == ".kwg"
    assert first.skipped == 2
    stamp = first.path.stat().st_mtime_ns
    second = load_lexicon(str(words))
    assert second.path == first.path and second.path.stat().st_mtime_ns == stamp
    assert second.skipped == 2 and second.words() == sorted(SMALL)
    assert not second.kwg.flags.owndata
    # another alphabet or board size is another cache entry
    supersized = load_lexicon(words, "super")
    assert supersized.path != first.path and supersized.skipped == 1


def test_a_changed_word_list_is_compiled_again(cache, tmp_path):
    words = write_list(tmp_path / "mine.txt", SMALL)
    first = load_lexicon(words)
    write_list(words, SMALL + ["ZZZ"])
    second = load_lexicon(words)
    assert second.path != first.path and "ZZZ" in second and "ZZZ" not in first


def _compile(path: Path):
    """The cache's answer for a word list (load_lexicon keeps a file's lexicon while the file is
    unchanged, so it would not read the cache again)."""
    from racksmith.lexicon.cache import compile_word_list
    from racksmith.rules.ruleset import get_ruleset

    return compile_word_list(path.read_bytes(), get_ruleset("english"), name=path.stem, source=str(path))


def test_a_damaged_cache_entry_is_rebuilt(cache, tmp_path):
    words = write_list(tmp_path / "mine.txt", SMALL)
    first = load_lexicon(words)
    good = first.path.read_bytes()
    first.path.write_bytes(good[:-2])
    again = _compile(words)
    assert again.words() == sorted(SMALL) and again.path == first.path and first.path.read_bytes() == good


def test_a_cached_graph_changed_on_disk_is_rebuilt_not_played(cache, tmp_path):
    """One bit flipped in a cached KWG (a node's accepts bit) added a phony word: the sidecar keeps
    the graph's SHA-256, and a graph that differs is built again."""
    import numpy as np

    from racksmith import Lexicon, get_ruleset

    words = write_list(tmp_path / "mine.txt", SMALL)
    first = load_lexicon(words)
    good = first.path.read_bytes()
    nodes = np.frombuffer(good, dtype="<u4")
    for i in range(1, len(nodes)):  # the first flip that makes a valid graph with another word
        if nodes[i] & (1 << 23):
            continue
        trial = nodes.copy()
        trial[i] |= 1 << 23
        try:
            phony = Lexicon(trial.view(np.uint32), get_ruleset("english").alphabet)
        except ValueError:
            continue
        if phony.words() != sorted(SMALL):
            break
    else:
        raise AssertionError("no flip of an accepts bit changes the words")
    first.path.write_bytes(trial.tobytes())
    again = _compile(words)
    assert again.words() == sorted(SMALL) and first.path.read_bytes() == good
    # an entry from before the digest was kept is built again too
    meta = first.path.with_suffix(".json")
    meta.write_text(meta.read_text("utf-8").replace('"sha256"', '"old"'), "utf-8")
    assert _compile(words).words() == sorted(SMALL) and '"sha256"' in meta.read_text("utf-8")


def test_an_unwritable_cache_means_building_in_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(blocker / "cache"))
    lex = load_lexicon(write_list(tmp_path / "mine.txt", SMALL))
    assert lex.path is None and lex.words() == sorted(SMALL)


def test_cache_location_follows_the_environment(monkeypatch, tmp_path):
    from racksmith.lexicon import cache_dir

    monkeypatch.delenv("RACKSMITH_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "racksmith"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "racksmith"
    monkeypatch.setenv("XDG_CACHE_HOME", "rel/cache")  # relative: invalid, ignored (not ./rel/cache)
    assert cache_dir() == tmp_path / "home" / ".cache" / "racksmith"


def test_processes_compiling_the_same_list_at_once(cache, tmp_path):
    words = write_list(tmp_path / "many.txt", ["".join(p) for p in itertools.permutations("ABCDEFG", 5)])
    code = f"from racksmith.lexicon import load_lexicon; print(len(load_lexicon({str(words)!r})))"
    env = dict(os.environ, RACKSMITH_CACHE_DIR=str(cache))
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env) for _ in range(3)]
    outputs = [p.communicate(timeout=120)[0].decode().strip() for p in procs]
    assert outputs == ["2520"] * 3
    assert len(list(cache.glob("*.kwg"))) == 1 and not list(cache.glob("*.tmp"))
    assert len(load_lexicon(words)) == 2520


# --- embedded lexicons and names -------------------------------------------------------------

def test_embedded_russian_lexicons():
    ru = load_lexicon("ru")
    assert len(ru) == 58_736 and ru.skipped == 0 and ru.alphabet == get_ruleset("russian").alphabet
    er = load_lexicon("ru-erudit")
    assert len(er) == 58_729 and er.alphabet == get_ruleset("erudit").alphabet
    assert "НЁБО" in ru and "НЕБО" in ru and "НЕБО" in er and "нёбо" in er
    assert sum("Ё" in w for w in ru) == 1_803 and not any("Ё" in w for w in er)


def test_each_ruleset_names_an_embedded_lexicon():
    from racksmith.lexicon import EMBEDDED
    from racksmith.rules.ruleset import available_rulesets

    for rs in available_rulesets():
        assert rs.lexicon in EMBEDDED


def test_embedded_enable_for_a_bigger_board_keeps_longer_words():
    lex = load_lexicon("enable", "super")
    assert lex.longest == 21 and len(lex) == 172_763  # the ENABLE words of 2..21 letters
    assert "ABSENTMINDEDNESSES" in lex and "ABSENTMINDEDNESSES" not in load_lexicon("enable")
    assert load_lexicon("enable") is load_lexicon("ENABLE")


def test_unknown_lexicon_names_are_reported(tmp_path):
    with pytest.raises(UnknownLexiconError, match="no lexicon 'klingon'"):
        load_lexicon("klingon")
    with pytest.raises(UnknownLexiconError):
        load_lexicon(tmp_path / "missing.kwg")


@pytest.mark.parametrize("name", ["A" * 100_000, "a\0b"])
def test_a_name_no_file_can_have_is_an_unknown_lexicon(name):
    """A name too long for a file name raised OSError (ENAMETOOLONG) from a path check."""
    with pytest.raises(UnknownLexiconError, match="no lexicon") as info:
        load_lexicon(name)
    assert len(str(info.value)) < 300


def test_a_lexicon_passes_through(small):
    assert load_lexicon(small) is small


def test_kwg_files_are_recognised_by_content(tmp_path, small):
    path = tmp_path / "graph.bin"
    small.save(path)
    assert load_lexicon(path).words() == small.words()


@settings(max_examples=120, deadline=None)
@given(st.lists(st.text("abcABCxyzé1 \t\r-", max_size=9), max_size=40))
def test_word_lists_follow_python_set_semantics(lines):
    """Whatever the lines, the lexicon is the set of stripped, upper-cased lines made of
    letters only, 2..8 long, and the skipped count is the rest of the non-blank lines."""
    rs = Ruleset.from_dict({**ENGLISH.to_dict(), "name": "tiny", "board": ["." * 8] * 8, "start": "4D"})
    text = "\n".join(lines)
    lex = Lexicon.from_word_list(parse_word_list(text.encode(), rs.alphabet, 8), rs)
    stripped = [ln.strip() for ln in text.split("\n") if ln.strip()]
    keep = {w.upper() for w in stripped if w.isascii() and w.isalpha() and 2 <= len(w) <= 8}
    assert lex.words() == sorted(keep)
    expected_skips = sum(1 for w in stripped if not (w.isascii() and w.isalpha() and 2 <= len(w) <= 8))
    assert lex.skipped == expected_skips
    assert all(w in lex for w in keep)


def test_anagrams_of_more_tiles_than_the_search_counts_are_refused():
    from racksmith import load_lexicon

    lex = load_lexicon("enable")
    with pytest.raises(UnknownLetterError, match="the tiles hold 256 A: the anagram search takes at most 255"):
        lex.anagrams("A" * 256)
    with pytest.raises(UnknownLetterError, match="the tiles hold 300 blanks"):
        lex.anagrams("?" * 300, partial=True)
    assert lex.anagrams("A" * 255 + "B") == []


def test_a_lexicon_file_loaded_again_unchanged_is_the_same_object(tmp_path):
    """A bot loading its KWG for every game made a new Lexicon each time, and the move
    generator's tables (keyed by the lexicon) kept the last 16 alive: 36 MB each. The same file,
    unchanged, for the same alphabet and board is now the same object; a changed file is read again."""
    from racksmith import Lexicon, Position, load_lexicon
    from racksmith.movegen import generate

    path = tmp_path / "mine.kwg"
    Lexicon.from_words(["care", "race", "acre"]).save(path)
    first = load_lexicon(path)
    assert load_lexicon(str(path)) is first
    cgp = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ACER/ 0/0 0"
    for _ in range(20):
        Position.from_cgp(cgp, lexicon=str(path)).moves()
    assert sum(1 for (_, lex, _) in generate._rules_cache.values() if getattr(lex, "path", None) == first.path) == 1
    Lexicon.from_words(["care", "race", "acre", "acres"]).save(path)
    os.utime(path, ns=(1, 1))
    second = load_lexicon(path)
    assert second is not first and "ACRES" in second and "ACRES" not in first
    words = tmp_path / "words.txt"
    words.write_text("care\nrace\n", encoding="utf-8")
    assert load_lexicon(words) is load_lexicon(words)
    assert load_lexicon(words, "super") is not load_lexicon(words)  # another board: another longest word
