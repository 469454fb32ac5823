"""Building KWG graphs: the format's rules, MAGPIE's bytes, wolges' size, round trips."""
from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racksmith.errors import LexiconFormatError
from racksmith.lexicon import Lexicon, build_kwg, load_lexicon
from racksmith.lexicon.kwg import ACCEPTS, ARC_MASK, EMPTY_KWG, IS_END
from racksmith.rules.ruleset import get_ruleset

from test_lexicon_kwg import ENABLE15_GADDAG_PATHS, ENABLE15_WORDS, FIXTURES, enable15_words, gaddag_oracle

ENGLISH = get_ruleset("english")


def read_words(nodes, root: int) -> list[tuple[int, ...]]:
    """An independent reader: every accepted path from the list at ``root``, recursively."""
    out = []

    def walk(p: int, prefix: tuple[int, ...]) -> None:
        while True:
            v = int(nodes[p])
            word = prefix + (v >> 24,)
            if v & ACCEPTS:
                out.append(word)
            if v & ARC_MASK:
                walk(v & ARC_MASK, word)
            if v & IS_END:
                return
            p += 1

    if root:
        walk(root, ())
    return out


def child(nodes, p: int, tile: int) -> int:
    while p:
        v = int(nodes[p])
        if v >> 24 == tile:
            return p
        if v >> 24 > tile or v & IS_END:
            return 0
        p += 1
    return 0


def check_format_rules(nodes: np.ndarray, gaddag: bool) -> None:
    """Every rule of formats.md that a writer must keep."""
    n = len(nodes)
    tiles, arcs, ends = nodes >> 24, nodes & ARC_MASK, (nodes & IS_END) != 0
    assert n >= 2 and tiles[0] == 0 and ends[0] and tiles[1] == 0 and ends[1]
    if not gaddag:
        assert arcs[1] == 0
    assert (arcs < n).all() and ends[-1]
    assert (tiles[:-1][~ends[:-1]] < tiles[1:][~ends[:-1]]).all(), "sibling lists sorted"
    dawg_part = np.zeros(n, bool)
    stack = [int(arcs[0])] if arcs[0] else []
    while stack:
        p = stack.pop()
        while not dawg_part[p]:
            dawg_part[p] = True
            assert tiles[p] != 0, "no separator in the DAWG"
            if arcs[p]:
                stack.append(int(arcs[p]))
            if ends[p]:
                break
            p += 1
    separators = [i for i in range(2, n) if tiles[i] == 0]
    assert gaddag or not separators
    for s in separators:
        assert arcs[s] != 0 and not nodes[s] & ACCEPTS, "a separator is followed by a tile"
        assert dawg_part[arcs[s]], "a separator points into the DAWG"


def check_separators_share_dawg_states(nodes, words: list[bytes]) -> None:
    """The node after rev(p)@ is the DAWG node after p, for every proper prefix p."""
    for w in words:
        for i in range(1, len(w)):
            p = int(nodes[0]) & ARC_MASK
            for t in w[:i]:
                node = child(nodes, p, t)
                p = int(nodes[node]) & ARC_MASK
            g = int(nodes[1]) & ARC_MASK
            for t in reversed(w[:i]):
                node = child(nodes, g, t)
                g = int(nodes[node]) & ARC_MASK
            sep = child(nodes, g, 0)
            assert sep and int(nodes[sep]) & ARC_MASK == p


# --- ENABLE15 against the engines' files -------------------------------------------------

@pytest.fixture(scope="module")
def enable15() -> list[str]:
    return enable15_words()


def test_without_shared_tails_the_graph_is_magpies_byte_for_byte(enable15):
    ours = Lexicon.from_words(enable15, ENGLISH, share_tails=False)
    assert ours.tobytes() == (FIXTURES / "ENABLE15.kwg").read_bytes()


@pytest.mark.slow
def test_embedded_enable_is_as_small_as_wolges_and_holds_the_same_language(enable15):
    lex = load_lexicon("enable")
    assert lex.nodes == 771_313  # wolges: 771,313; MAGPIE: 796,854
    assert lex.skipped == 4_272 and lex.skipped_by_reason.too_long == 4_272
    check_format_rules(lex.kwg, gaddag=True)
    assert len(lex) == ENABLE15_WORDS and lex.gaddag_paths == ENABLE15_GADDAG_PATHS
    assert lex.words() == enable15
    assert lex.gaddag_strings() == gaddag_oracle(enable15)


def test_dawg_only_enable(enable15):
    lex = Lexicon.from_words(enable15, ENGLISH, gaddag=False)
    assert not lex.has_gaddag and lex.gaddag_strings() == []
    check_format_rules(lex.kwg, gaddag=False)
    assert lex.words() == enable15
    assert lex.nodes < 125_000


# --- any word set -------------------------------------------------------------------------

words_strategy = st.sets(st.lists(st.integers(1, 5), min_size=1, max_size=7).map(bytes), max_size=60)


@settings(max_examples=150, deadline=None)
@given(words_strategy, st.booleans(), st.booleans())
def test_round_trip_of_random_word_sets(words, gaddag, share_tails):
    nodes = build_kwg([list(w) for w in words], gaddag=gaddag, share_tails=share_tails)
    check_format_rules(nodes, gaddag)
    again = Lexicon.from_bytes(nodes.astype("<u4").tobytes())
    expected = sorted(words)
    assert read_words(again.kwg, int(again.kwg[0]) & ARC_MASK) == [tuple(w) for w in expected]
    spelled = sorted("".join(chr(64 + t) for t in w) for w in words)
    assert again.words() == spelled and len(again) == len(words)
    if gaddag:
        assert again.gaddag_strings() == gaddag_oracle(spelled)
        paths = read_words(again.kwg, int(again.kwg[1]) & ARC_MASK)
        assert len(paths) == len(set(paths)) == sum(len(w) for w in words)
        check_separators_share_dawg_states(again.kwg, expected)


@settings(max_examples=40, deadline=None)
@given(words_strategy)
def test_shared_tails_never_cost_nodes(words):
    tiles = [list(w) for w in words]
    shared = build_kwg(tiles, share_tails=True)
    whole = build_kwg(tiles, share_tails=False)
    assert len(shared) <= len(whole)


def test_no_words_is_the_empty_kwg():
    assert build_kwg([]).astype("<u4").tobytes() == EMPTY_KWG
    assert build_kwg([], gaddag=False).astype("<u4").tobytes() == EMPTY_KWG


def test_order_and_repeats_do_not_matter():
    a = build_kwg([[3, 1, 2], [1, 2], [3, 1, 2]])
    b = build_kwg([[1, 2], [3, 1, 2]])
    assert np.array_equal(a, b)


@pytest.mark.parametrize(
    "words, gaddag, message",
    [
        ([[0, 1]], True, "separator"),
        ([[64]], False, "tiles are ints 0..63"),
        ([[]], True, "needs 1 to 255"),
        ([[1] * 256], False, "needs 1 to 255"),
        ([["A"]], True, "tile 'A'"),
    ],
)
def test_bad_words_are_refused(words, gaddag, message):
    with pytest.raises(LexiconFormatError, match=message):
        build_kwg(words, gaddag=gaddag)


def test_blank_tile_is_a_letter_in_dawg_only_graphs():
    nodes = build_kwg([[0, 5], [0], [1]], gaddag=False)
    assert read_words(nodes, int(nodes[0]) & ARC_MASK) == [(0,), (0, 5), (1,)]


def test_saved_file_round_trips(tmp_path):
    lex = Lexicon.from_words(["CARE", "CAR", "CAB", "ab", "x", "ÉTÉ"], ENGLISH)
    assert lex.skipped == 2 and lex.skipped_by_reason.letters == 1 and lex.skipped_by_reason.too_short == 1
    path = tmp_path / "small.kwg"
    lex.save(path)
    back = Lexicon.load(path)
    assert back.words() == ["AB", "CAB", "CAR", "CARE"]
    assert back.tobytes() == lex.tobytes() == path.read_bytes()
