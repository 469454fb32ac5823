"""Reading KWG files built by other engines, and refusing damaged ones."""
from __future__ import annotations

import gzip
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racksmith.errors import LexiconFormatError
from racksmith.lexicon import Lexicon, build_kwg
from racksmith.lexicon.kwg import ACCEPTS, ARC_MASK, EMPTY_KWG, IS_END

FIXTURES = Path(__file__).parent / "fixtures"
ENABLE15_WORDS = 168_548
ENABLE15_GADDAG_PATHS = 1_497_509


def enable15_words() -> list[str]:
    """The ENABLE words of 2..15 letters, sorted: the word list behind the fixtures."""
    text = gzip.decompress(resources.files("racksmith.lexicon").joinpath("data/enable1.txt.gz").read_bytes()).decode()
    return sorted({w.strip().upper() for w in text.split("\n") if 2 <= len(w.strip()) <= 15})


def gaddag_oracle(words) -> list[str]:
    """The GADDAG strings of the words, as formats.md spells them (CARE: ERAC RAC@E AC@RE C@ARE)."""
    out = []
    for w in words:
        out.append(w[::-1])
        out.extend(w[:i][::-1] + "@" + w[i:] for i in range(1, len(w)))
    return sorted(out, key=lambda s: s.replace("@", "\0"))


@pytest.fixture(scope="module")
def magpie() -> Lexicon:
    return Lexicon.load(FIXTURES / "ENABLE15.kwg")


@pytest.fixture(scope="module")
def wolges() -> Lexicon:
    return Lexicon.load(FIXTURES / "ENABLE15.wolges.kwg")


@pytest.fixture(scope="module")
def enable15() -> list[str]:
    return enable15_words()


def test_magpie_and_wolges_files_hold_exactly_enable15(magpie, wolges, enable15):
    assert len(enable15) == ENABLE15_WORDS
    for lex, nodes in ((magpie, 796_854), (wolges, 771_313)):
        assert lex.nodes == nodes
        assert lex.has_gaddag
        assert len(lex) == ENABLE15_WORDS
        assert lex.gaddag_paths == ENABLE15_GADDAG_PATHS
        assert lex.words() == enable15
        assert lex.longest == 15


@pytest.mark.slow
def test_both_gaddags_are_exactly_the_gaddag_of_enable15(magpie, wolges, enable15):
    expected = gaddag_oracle(enable15)
    assert len(expected) == ENABLE15_GADDAG_PATHS
    assert magpie.gaddag_strings() == expected
    assert wolges.gaddag_strings() == expected


def test_lookups_agree_with_the_word_list(magpie, wolges, enable15):
    words = set(enable15)
    probes = enable15[::997] + ["QUIRK", "QUIRKZ", "AA", "A", "ZZZ", "ZYZZYVAS", "ABSTEMIOUSNESSES"]
    for w in probes:
        assert (w in magpie) == (w in wolges) == (w in words), w


def test_load_is_a_zero_copy_read_only_view(magpie):
    assert magpie.kwg.dtype == np.uint32
    assert not magpie.kwg.flags.writeable
    assert not magpie.kwg.flags.owndata  # a view over the memory map
    with pytest.raises(ValueError):
        magpie.kwg[0] = 0


def test_the_empty_kwg():
    lex = Lexicon.from_bytes(EMPTY_KWG)
    assert len(lex) == 0 and lex.words() == [] and "AB" not in lex
    assert lex.has_gaddag and lex.gaddag_strings() == []
    assert lex.anagrams("AB?", partial=True) == []


def test_a_dawg_only_file_laid_out_from_node_1_is_read():
    # wolges writes DAWG-only graphs with the root list right after node 0
    kwg = np.array(
        [IS_END | 1, (1 << 24) | 3, (2 << 24) | ACCEPTS | IS_END, (2 << 24) | ACCEPTS | IS_END], dtype=np.uint32
    )
    lex = Lexicon(kwg, Lexicon.from_bytes(EMPTY_KWG).alphabet)
    assert not lex.has_gaddag
    assert lex.words() == ["AB", "B"]


# --- damaged files ------------------------------------------------------------------------

def small_kwg() -> np.ndarray:
    return build_kwg([[3, 1, 18, 5], [3, 1, 18], [3, 1, 2], [1, 2]])  # CARE CAR CAB AB


def kwg_bytes(nodes) -> bytes:
    return np.asarray(nodes, dtype="<u4").tobytes()


def with_node(nodes: np.ndarray, i: int, value: int) -> np.ndarray:
    out = nodes.copy()
    out[i] = value
    return out


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda b: b[:-1], "not a whole number of 4-byte nodes"),
        (lambda b: b"", "no nodes at all"),
        (lambda b: b[: len(b) // 2], None),  # truncated: arcs beyond the end, or an unfinished list
    ],
)
def test_truncated_files_are_refused(damage, message):
    data = damage(kwg_bytes(small_kwg()))
    with pytest.raises(LexiconFormatError, match=message):
        Lexicon.from_bytes(data)


def test_every_truncation_is_refused_or_harmless():
    data = kwg_bytes(small_kwg())
    for cut in range(0, len(data)):
        try:
            lex = Lexicon.from_bytes(data[:cut])
        except LexiconFormatError:
            continue
        exercise(lex)


def test_arc_out_of_range_is_named():
    k = small_kwg()
    bad = with_node(k, 3, (int(k[3]) & ~ARC_MASK) | (len(k) + 5))
    with pytest.raises(LexiconFormatError, match=r"node 3 has arc index \d+ but the file has only"):
        Lexicon.from_bytes(kwg_bytes(bad))


def test_cycles_are_refused():
    k = small_kwg()
    root = int(k[0]) & ARC_MASK
    # point the first letter of the DAWG root list back at the root list itself
    bad = with_node(k, root, (int(k[root]) & ~ARC_MASK) | root)
    with pytest.raises(LexiconFormatError, match="cycle"):
        Lexicon.from_bytes(kwg_bytes(bad))


def test_tiles_outside_the_alphabet_are_refused():
    k = small_kwg()
    root = int(k[0]) & ARC_MASK
    bad = with_node(k, root, (40 << 24) | (int(k[root]) & 0xFFFFFF))
    with pytest.raises(LexiconFormatError, match="tile 40 but the alphabet has only 26 letters"):
        Lexicon.from_bytes(kwg_bytes(bad))


def shared_levels(levels: int, letters: int = 26) -> np.ndarray:
    """A DAWG-only graph of ``letters**levels`` words (and all shorter ones from two letters): each
    level one list of every letter, all pointing at the next level's list."""
    nodes = [IS_END | 2, IS_END]
    for k in range(levels):
        nxt = 2 + letters * (k + 1) if k < levels - 1 else 0
        nodes += [(t << 24) | nxt | (IS_END if t == letters else 0) | (ACCEPTS if k >= 1 else 0)
                  for t in range(1, letters + 1)]
    return np.array(nodes, dtype=np.uint32)


def test_a_graph_of_astronomically_many_words_is_refused():
    # 1.6 KB holding 26**16 words: the word maps and anagram tables would walk them forever
    with pytest.raises(LexiconFormatError, match="more than 2\\*\\*62 words, more than the 33,554,432"):
        Lexicon.from_bytes(kwg_bytes(shared_levels(16)))
    with pytest.raises(LexiconFormatError, match="holds 321,272,380 words"):
        Lexicon.from_bytes(kwg_bytes(shared_levels(6)))
    lex = Lexicon.from_bytes(kwg_bytes(shared_levels(3)))  # 26**2 + 26**3 words: a lexicon like any other
    assert len(lex) == 26 ** 2 + 26 ** 3 and "ZZZ" in lex and "A" not in lex


def test_missing_root_node_is_refused():
    k = small_kwg()
    with pytest.raises(LexiconFormatError, match="node 0 is not the DAWG root"):
        Lexicon.from_bytes(kwg_bytes(with_node(k, 0, (1 << 24) | IS_END | 2)))
    with pytest.raises(LexiconFormatError, match="node 0 is not the DAWG root"):
        Lexicon.from_bytes(kwg_bytes(with_node(k, 0, int(k[0]) & ~IS_END)))


def test_unsorted_siblings_are_refused():
    k = small_kwg()
    root = int(k[0]) & ARC_MASK  # root list: A, C
    swapped = k.copy()
    swapped[root] = (3 << 24) | (int(k[root]) & 0xFFFFFF)
    with pytest.raises(LexiconFormatError, match="not in ascending tile order"):
        Lexicon.from_bytes(kwg_bytes(swapped))


def test_unfinished_last_list_is_refused():
    k = small_kwg()
    with pytest.raises(LexiconFormatError, match="last node does not end its sibling list"):
        Lexicon.from_bytes(kwg_bytes(with_node(k, len(k) - 1, int(k[-1]) & ~IS_END)))


def test_separators_only_where_a_gaddag_allows_them():
    k = small_kwg()
    root = int(k[0]) & ARC_MASK
    # a separator inside the DAWG: the root list's first node becomes tile 0
    bad = with_node(k, root, int(k[root]) & 0xFFFFFF)
    with pytest.raises(LexiconFormatError, match="separator"):
        Lexicon.from_bytes(kwg_bytes(bad))
    seps = [i for i in range(2, len(k)) if int(k[i]) >> 24 == 0]
    assert seps
    with pytest.raises(LexiconFormatError, match="leads nowhere"):
        Lexicon.from_bytes(kwg_bytes(with_node(k, seps[0], int(k[seps[0]]) & ~ARC_MASK)))
    with pytest.raises(LexiconFormatError, match="accepts"):
        Lexicon.from_bytes(kwg_bytes(with_node(k, seps[0], int(k[seps[0]]) | ACCEPTS)))


def test_a_lexicon_for_another_alphabet_names_the_problem(magpie):
    ru = Lexicon.load(FIXTURES / "ENABLE15.kwg", "russian")  # 33 letters: loads, spells Cyrillic
    assert len(ru) == ENABLE15_WORDS
    tiny = np.array([IS_END | 2, IS_END, (30 << 24) | ACCEPTS | IS_END], dtype=np.uint32)
    with pytest.raises(LexiconFormatError, match="another ruleset"):
        Lexicon(tiny, magpie.alphabet)


def exercise(lex: Lexicon) -> None:
    """Every query, on a graph the check let through: none may crash or hang."""
    n = len(lex)
    assert n >= 0
    if n < 100_000:
        words = lex.words()
        assert len(words) == n
        for w in words[:20]:
            assert w in lex
        lex.completions("CA")
    if lex.gaddag_paths < 100_000:
        assert len(lex.gaddag_strings()) == lex.gaddag_paths
    lex.anagrams("ACER?", partial=True)
    lex.contains_tiles([3, 1, 18, 5])
    lex.info()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=6))
def test_random_byte_corruption_never_crashes(edits):
    data = bytearray(kwg_bytes(small_kwg()))
    for pos, value in edits:
        data[pos % len(data)] = value
    try:
        lex = Lexicon.from_bytes(bytes(data))
    except LexiconFormatError:
        return
    exercise(lex)


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=0, max_size=64))
def test_random_bytes_never_crash(data):
    try:
        lex = Lexicon.from_bytes(data)
    except LexiconFormatError:
        return
    exercise(lex)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 31), st.integers(0, 10_000)), min_size=1, max_size=4))
def test_corruption_that_keeps_arcs_in_range_never_crashes(edits):
    """Rewire arcs inside the file, flip flags, change tiles: many such graphs pass the check,
    and every query on them must still end with an answer."""
    k = small_kwg().copy()
    n = len(k)
    for node, bit, target in edits:
        i = node % n
        if bit < 22:
            k[i] = (int(k[i]) & ~ARC_MASK) | (target % n)
        else:
            k[i] = int(k[i]) ^ (1 << bit)
    try:
        lex = Lexicon.from_bytes(kwg_bytes(k))
    except LexiconFormatError:
        return
    exercise(lex)


def test_a_kwg_read_with_another_ruleset_s_letters_is_refused_by_its_sidecar(tmp_path):
    """An Эрудит KWG read under Russian (33 letters: Ё besides) gave 58,729 words of garbage
    ('АБАЁТП', no 'КОТ'), silently: Lexicon.save writes the letters beside the file, and a file
    they describe is refused under other letters."""
    import json

    from racksmith import Leaves, load_lexicon
    from racksmith.errors import LexiconFormatError

    path = tmp_path / "er.kwg"
    erudit = load_lexicon("ru-erudit", "erudit")
    erudit.save(path)
    side = json.loads((tmp_path / "er.kwg.json").read_text("utf-8"))
    assert side["ruleset"] == "erudit" and side["words"] == len(erudit) and "Ё" not in side["alphabet"]
    with pytest.raises(LexiconFormatError, match=r"was built for ruleset erudit \(its sidecar er.kwg.json says so\), "
                                                 r"whose letters are not those of russian: read it with ruleset erudit"):
        load_lexicon(path, "russian")
    assert "КОТ" in load_lexicon(path, "erudit")
    # English and Super share their letters: the sidecar names no ruleset, and both read the file
    load_lexicon("enable").save(tmp_path / "en.kwg")
    assert "ruleset" not in json.loads((tmp_path / "en.kwg.json").read_text("utf-8"))
    assert len(load_lexicon(tmp_path / "en.kwg", "super")) == len(load_lexicon(tmp_path / "en.kwg", "english"))
    # a sidecar of other bytes (the file replaced by another engine's) says nothing: read as asked
    (tmp_path / "er.kwg").write_bytes(load_lexicon("ru", "russian").tobytes())
    assert "ЁЖ" in load_lexicon(path, "russian")
    # leaves too: saved under Эрудит, refused under Russian; a trained file's provenance is kept
    leaves = Leaves.from_pairs([("Ж", 1.5)], "erudit")
    leaves.save(tmp_path / "er.klv2")
    with pytest.raises(LexiconFormatError, match=r"was made for ruleset erudit \(its sidecar er.klv2.json says so\)"):
        Leaves.load(tmp_path / "er.klv2", "russian")
    prov = tmp_path / "er.klv2.json"
    prov.write_text(json.dumps(dict(json.loads(prov.read_text("utf-8")), games=1000)), "utf-8")
    leaves.save(tmp_path / "er.klv2")
    assert json.loads(prov.read_text("utf-8"))["games"] == 1000
