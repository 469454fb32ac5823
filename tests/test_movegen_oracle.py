"""Both generators against the brute-force oracle (tests/oracle.py, which shares no code with them):
the same placements with the same scores, on hypothesis-made boards and racks with small lexicons for
every ruleset, and on seeded self-play positions with the full lexicons."""
from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle import WordIndex, oracle_placements
from racksmith.lexicon import Lexicon, load_lexicon
from racksmith.core.position import Position
from racksmith.movegen.generate import generate_moves
from racksmith.rules.ruleset import Ruleset, get_ruleset

# user rulesets: odd sizes, every premium kind, a 10-tile rack with 3 blanks, an off-centre start
SMALL = Ruleset.from_dict(
    {
        "name": "small",
        "board": ["~..'...", '."..^..', "..-..=.", "'..-..'", ".=..-..", "..^..\".", "...'..~"],
        "tiles": [["A", 8, 1], ["E", 8, 1], ["R", 5, 2], ["S", 5, 1], ["T", 5, 3], ["Z", 1, 10]],
        "blanks": 2,
        "rack_size": 5,
        "bingo_bonus": 25,
        "start": "4D",
    }
)
WIDE = Ruleset.from_dict(
    {
        "name": "wide",
        "board": ["=..'...-.'..=", ".-..\"...^..-.", "..'..-.-..'..", "'.....~.....'", "..'..-.-..'..",
                  ".-..\"...^..-.", "=..'...-.'..="],
        "tiles": [["A", 10, 1], ["E", 10, 1], ["N", 6, 1], ["O", 6, 1], ["R", 6, 2], ["S", 6, 1], ["T", 6, 2],
                  ["X", 2, 8]],
        "blanks": 3,
        "rack_size": 10,
        "bingo_bonus": 60,
        "start": "4B",
    }
)
RULESETS = {
    "english": get_ruleset("english"),
    "russian": get_ruleset("russian"),
    "erudit": get_ruleset("erudit"),
    "super": get_ruleset("super"),
    "small": SMALL,
    "wide": WIDE,
}


def _placements(position, algorithm: str):
    moves = position.moves(algorithm=algorithm)
    # (the moves that take stars back, Эрудит's, are the oracle's in tests/test_reclaim.py)
    return sorted((m.row, m.col, "H" if m.across else "V", m.word, m.score) for m in moves if m.is_place and not m.reclaimed)


def assert_generators_agree_with_oracle(position, words, dawg_only=None):
    expected = sorted(oracle_placements(position, words))
    with pytest.MonkeyPatch.context() as m:
        walks = _walks_spy(m)
        gaddag = _walked(position, "gaddag", walks)
        assert gaddag == expected
        assert len(set(gaddag)) == len(gaddag)
        assert _walked(position, "dawg", walks) == expected
        if dawg_only is not None:
            other = Position(position.ruleset, position.board, position.racks, lexicon=dawg_only)
            assert _walked(other, "dawg", walks) == expected


def _walks_spy(monkeypatch) -> list:
    """(algorithm asked, the kernel's GADDAG flag) of each move plan generate_moves makes from now
    on: ``MovePlan(tables, total_tiles, top, cut, by_equity, exchange_limit, directions, gaddag,
    with_equity, movelist, key)``, ``key[5]`` the algorithm."""
    from racksmith.movegen import generate

    walks = []
    real = generate.MovePlan

    def plan(*args):
        walks.append((args[10][5], args[7]))
        return real(*args)

    monkeypatch.setattr(generate, "MovePlan", plan)
    return walks


def _walked(position, algorithm: str, walks: list) -> list:
    """_placements, checking that the kernel walked the graph of ``algorithm`` (the lists are the
    same either way: only this tells the two apart)."""
    walks.clear()
    placements = _placements(position, algorithm)
    assert walks and set(walks) == {(algorithm, algorithm == "gaddag")}
    return placements


def _bag(rs: Ruleset, letters=None) -> list[int]:
    return [t for t, n in enumerate(rs.counts) for _ in range(n) if letters is None or t == 0 or t in letters]


def _apply(board: np.ndarray, move) -> None:
    for r, c, t in move.placed:
        board[r, c] = t


def selfplay_position(rs: Ruleset, lexicon, seed: int, turns: int, letters=None, noise: int = 0,
                      blanks: int | None = None) -> Position:
    """A position after ``turns`` random good plays (one of the best eight each turn), with ``noise``
    stray tiles (making non-words on the board), and a fresh rack (``blanks`` of them if given)."""
    rng = random.Random(seed)
    bag = _bag(rs, letters)
    rng.shuffle(bag)
    board = np.zeros((rs.rows, rs.cols), dtype=np.uint8)
    for _ in range(turns):
        rack = [bag.pop() for _ in range(min(rs.rack_size, len(bag)))]
        pos = Position(rs, board, (rack, ()), lexicon=lexicon)
        plays = [m for m in generate_moves(pos, top=8) if m.is_place]  # (the generator's: no star taken back)
        if plays:
            m = rng.choice(plays)
            _apply(board, m)
            for t in m.rack_tiles():
                rack.remove(t)
        bag.extend(rack)
        rng.shuffle(bag)
    for _ in range(noise):
        empty = np.argwhere(board == 0)
        if not len(empty) or not bag:
            break
        r, c = empty[rng.randrange(len(empty))]
        t = bag.pop(rng.randrange(len(bag)))
        board[r, c] = t if t else 0x80 | rng.randint(1, len(rs.alphabet))
    if blanks is not None:
        have = [t for t in bag if t == 0][:blanks]
        rest = [t for t in bag if t]
        rng.shuffle(rest)
        rack = have + rest[: rs.rack_size - len(have)]
    else:
        rack = bag[-rs.rack_size:]
    return Position(rs, board, (rack, ()), lexicon=lexicon)


# --- small lexicons, made up by hypothesis ----------------------------------------------------------

@st.composite
def small_cases(draw, name: str):
    rs = RULESETS[name]
    n_letters = len(rs.alphabet)
    # a handful of common letters (plus any rare one) makes words meet on the board
    common = sorted(range(1, n_letters + 1), key=lambda t: -rs.counts[t])[: draw(st.integers(4, 7))]
    letters = set(common) | set(draw(st.lists(st.integers(1, n_letters), max_size=2)))
    word = st.lists(st.sampled_from(sorted(letters)), min_size=2, max_size=min(6, rs.cols))
    words = {rs.alphabet.decode(w) for w in draw(st.lists(word, min_size=5, max_size=120))}
    seed = draw(st.integers(0, 10**6))
    turns = draw(st.integers(0, 8))
    noise = draw(st.sampled_from([0, 0, 0, 2, 6]))
    blanks = draw(st.sampled_from([None, None, 0, 1, 2]))
    return rs, sorted(words), seed, turns, letters, noise, blanks


@pytest.mark.parametrize("name", list(RULESETS))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_small_lexicons_oracle_equals_gaddag_equals_dawg(name, data):
    rs, words, seed, turns, letters, noise, blanks = data.draw(small_cases(name))
    lexicon = Lexicon.from_words(words, rs)
    dawg_only = Lexicon.from_words(words, rs, gaddag=False)
    pos = selfplay_position(rs, lexicon, seed, turns, letters, noise, blanks)
    assert_generators_agree_with_oracle(pos, words, dawg_only)


# --- the full lexicons, seeded self-play --------------------------------------------------------

FULL = {"english": "enable", "super": "enable", "russian": "ru", "erudit": "ru-erudit"}


@lru_cache(maxsize=None)
def _full(name: str):
    """The full lexicon, its words for the oracle, and the same words as a DAWG-only lexicon (a
    fraction of a second to build): ``algorithm="dawg"`` on it can only walk the DAWG."""
    rs = RULESETS[name]
    lexicon = load_lexicon(FULL[name], rs)
    words = lexicon.words()
    dawg_only = Lexicon.from_words(words, rs, gaddag=False)
    assert not dawg_only.has_gaddag and len(dawg_only) == len(lexicon)
    return lexicon, WordIndex(words, rs.alphabet), dawg_only


@pytest.mark.parametrize(
    "name, seed, turns, blanks",
    [
        ("english", 1, 0, 2),
        ("english", 2, 6, None),
        ("english", 3, 14, 1),
        ("super", 4, 0, 0),
        ("super", 5, 10, 2),
        ("russian", 6, 0, 1),
        ("russian", 7, 8, None),
        ("russian", 8, 14, 2),
        ("erudit", 9, 0, None),
        ("erudit", 10, 9, 3),
    ],
)
def test_full_lexicons_oracle_equals_gaddag_equals_dawg(name, seed, turns, blanks):
    lexicon, index, dawg_only = _full(name)
    pos = selfplay_position(RULESETS[name], lexicon, seed, turns, blanks=blanks)
    assert_generators_agree_with_oracle(pos, index, dawg_only)
