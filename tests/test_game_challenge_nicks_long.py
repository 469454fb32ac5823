"""The Game API's boundaries: a withdrawn phony's draw goes back into a shaken bag (not on top,
where the challenger would draw the tiles the phony's player saw), nicks a GCG record reads
back as written (Unicode NFC, one rule with the web export), what ``play_trusted`` leaves
unchecked, and move text longer than any move refused at once with a short message."""
from __future__ import annotations

import time
from collections import Counter

import pytest

import racksmith.core.move as move_module
from racksmith import Game, Move, Position, RacksmithError, replay_text
from racksmith.errors import IllegalMoveError, InvalidMoveError
from racksmith.rules.ruleset import get_ruleset


# --- 1. a withdrawn phony's draw is shaken into the bag ------------------------------------------
def phony_opening(seed: int) -> tuple[Game, list[int], list[int]]:
    """A game (an empty lexicon: every word is a phony) whose first player opens with the first
    four letters of his rack and is challenged; the bag's order before the opening and the tiles
    he drew."""
    g = Game("english", set(), seed=seed)
    letters = [t for t in g.rack if t][:4]
    before = g.bag.order()
    word = g.ruleset.alphabet.decode(letters)
    e = g.play(f"8H {word}", check_words=False)
    drawn = list(e.drawn)
    assert Counter(drawn) == Counter(before[:4]) and len(drawn) == 4  # (drawn from the top)
    assert g.challenge() is True
    return g, before, drawn


def test_the_challenger_does_not_draw_the_tiles_the_phony_s_player_saw():
    """The draw of the phony went back on top of the bag ("so that they are drawn again next"):
    the challenger's next draw was exactly the tiles his opponent had seen, so a phony played on
    purpose showed the opponent's next tiles. Now the bag is shaken: the same tiles, another order."""
    on_top = 0
    for seed in range(40):
        g, before, drawn = phony_opening(seed)
        after = g.bag.order()
        assert Counter(after) == Counter(before)  # every tile back in the bag, none lost or added
        assert g.rack == tuple(sorted(g.rack)) and len(g.racks[1]) == 7 and not g.check_invariants()
        on_top += Counter(after[:4]) == Counter(drawn)  # the next four: the tiles p1 saw
        assert after != before
    assert on_top == 0  # by chance: 40 in about 2 million (4! / (86*85*84*83) each, at most)


def test_the_challenger_s_next_draw_is_not_the_withdrawn_tiles():
    g, _, drawn = phony_opening(1)
    # the challenger (p2) plays four tiles and draws four: not the tiles p1 saw
    word = g.ruleset.alphabet.decode([t for t in g.rack if t][:4])
    e = g.play(f"8H {word}", check_words=False)
    assert len(e.drawn) == 4 and Counter(e.drawn) != Counter(drawn)


def test_the_shake_repeats_for_a_seed_and_undo_restores_the_bag_and_rng():
    a, _, _ = phony_opening(7)
    b, _, _ = phony_opening(7)
    assert a.bag.order() == b.bag.order()  # the game's own RNG: the same seed, the same shake
    assert a.bag.rng.getstate() == b.bag.rng.getstate()
    g = Game("english", set(), seed=7)
    word = g.ruleset.alphabet.decode([t for t in g.rack if t][:4])
    g.play(f"8H {word}", check_words=False)
    bag, rng, cgp = g.bag.order(), g.bag.rng.getstate(), g.cgp()
    g.challenge()
    shaken = g.bag.order()
    g.undo()  # the challenge taken back: the phony stands, its draw off the bag as before
    assert g.bag.order() == bag and g.bag.rng.getstate() == rng and g.cgp() == cgp
    g.challenge()  # and again: the same state
    assert g.bag.order() == shaken == a.bag.order()
    assert not g.check_invariants()


def test_a_challenged_play_that_stands_draws_the_same_tiles():
    g = Game("english", seed=3)
    e = g.play(g.legal_moves(top=1)[0])
    bag, rack = g.bag.order(), g.racks[0]
    assert g.challenge(bonus=5) is False
    assert g.bag.order() == bag and g.racks[0] == rack and list(g.history[-1].rack) == list(e.rack)


# --- 2. nicks as a GCG record reads them back -------------------------------------------------------
def test_nicks_alike_once_normalized_are_refused():
    """Game took "e" + U+0301 and "é" as two players; its record was then refused by every GCG
    reader ("'é' is already player 1")."""
    with pytest.raises(RacksmithError) as info:
        Game("english", players=["e\u0301", "\u00e9"], seed=4)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "same nick written two ways" in message and "NFC" in message and "'e\\u0301' and '\\xe9'" in message
    with pytest.raises(RacksmithError, match="same nick written two ways"):
        Game("english", players=["a", "Jose\u0301", "Jos\u00e9"])


def test_the_web_export_and_game_keep_one_rule():
    from racksmith.errors import RequestError
    from racksmith.formats.gcg import gcg_nicks
    from racksmith.web.api import _nicks

    with pytest.raises(RacksmithError) as game_error:
        Game("english", players=["e\u0301", "\u00e9"])
    with pytest.raises(RequestError) as web_error:
        _nicks({"players": ["e\u0301", "\u00e9"]})
    assert str(web_error.value) == f"field 'players': {game_error.value}"
    assert _nicks({"players": ["Jose\u0301", "b"]}) == list(gcg_nicks(["Jose\u0301", "b"])) == ["Jos\u00e9", "b"]


def test_a_game_s_record_reads_back_with_its_nicks_and_names():
    """A nick (or a name) not in NFC was kept as typed, and read back from the record as another
    string (the reader normalizes the text): now the game keeps them in NFC."""
    g = Game("english", players=["Jose\u0301", "b"], names=["Jose\u0301 Nu\u0301n\u0303ez", "Bob"], seed=4)
    assert g.nicks == ("Jos\u00e9", "b") and g.names == ("Jos\u00e9 N\u00fa\u00f1ez", "Bob")
    g.play(g.legal_moves(top=1)[0])
    r = replay_text(g.gcg())
    assert r.ok, r.errors
    assert [(p.nick, p.name) for p in r.record.players] == list(zip(g.nicks, g.names))
    assert Game("english").nicks == ("p1", "p2")


@pytest.mark.parametrize("players", [["a", "a"], ["a b", "c"], ["a:", "b"], ["", "b"]])
def test_nicks_a_record_cannot_hold_are_still_refused(players):
    with pytest.raises(RacksmithError, match="distinct, non-empty, without spaces or ':'"):
        Game("english", players=players)


# --- 3. what play_trusted checks ------------------------------------------------------------------
def test_play_trusted_says_a_wrong_score_is_not_caught():
    """The docstring said check_invariants "still catch a generator that lies": a lie about the
    score is summed as given; only a replay of the record tells."""
    g = Game("english", seed=3)
    m = g.legal_moves(top=1)[0]
    g.play_trusted(Move.parse(m.notation(), g.ruleset, score=999))
    assert g.scores == [999, 0] and g.check_invariants() == []
    assert replay_text(g.gcg(), strict=False).errors
    doc = " ".join(Game.play_trusted.__doc__.split())
    assert "still catch a generator that lies" not in doc
    assert "not a wrong ``score``" in doc and "replay_text" in doc


# --- 4. move text longer than any move --------------------------------------------------------------
HUGE = [
    "8H " + "A" * 10**6,
    "-" + "A" * 10**6,
    "9" * 10**6 + "H AB",
    "x" * 10**7,
    "8H " + "(" * 10**6,
    "8H AB" + " *8H=A" * 10**5,
]


@pytest.fixture
def unread(monkeypatch):
    """Move.parse may not read a word: an over-long text is refused before."""
    def fail(*args):
        raise AssertionError("the text was read")
    monkeypatch.setattr(move_module, "_parse_word", fail)
    monkeypatch.setattr(move_module, "_parse_reclaimed", fail)


@pytest.mark.parametrize("text", HUGE, ids=["word", "exchange", "coordinate", "garbage", "parens", "stars"])
def test_over_long_move_text_is_refused_at_once_with_a_short_message(text, unread):
    g = Game("english", seed=1)
    start = time.perf_counter()
    with pytest.raises(InvalidMoveError) as info:
        g.play(text)
    assert time.perf_counter() - start < 0.5  # (a million letters took 1.3 s)
    message = str(info.value)
    assert len(message) < 300 and f"{len(text):,} characters" in message and "at most 334" in message
    for ruleset in (None, "super", get_ruleset("russian").alphabet):
        with pytest.raises(InvalidMoveError, match="characters, longer than any move"):
            Move.parse(text, ruleset)
    pos = Position("english")
    for call in (pos.validate, pos.resolve, pos.play):
        with pytest.raises(InvalidMoveError, match="characters, longer than any move"):
            call(text)
    assert not g.history and not g.check_invariants()


def test_the_limit_lets_every_move_through():
    """Generous: a tile on every square of the longest line, written the longest way, each with a
    star taken back, and spaces around."""
    for name in ("english", "super", "russian", "erudit"):
        rs = get_ruleset(name)
        line = max(rs.rows, rs.cols)
        longest = max(len(x) for x in rs.alphabet.letters)
        written = "8A " + ("(" + "[" + "X" * longest + "]" + ")") * line + " *10J=[XX]" * line
        assert len(written) + 20 <= move_module.max_move_chars(rs.alphabet, line)
    assert Move.parse("  8A " + "(A)" * 15 + "  " * 150, "english").tiles_played == 0


def test_a_long_bad_coordinate_or_word_is_cut_in_the_message():
    for text in ("9" * 300 + "H AB", "8H A" + "#" * 300):
        with pytest.raises(InvalidMoveError) as info:
            Move.parse(text, "english")
        assert len(str(info.value)) < 400 and "..." in str(info.value)


@pytest.mark.parametrize("tiles", ["A" * 10**6, [1] * 10**6, (t for t in [1] * 10**5)])
def test_an_exchange_of_more_than_a_rack_is_refused_at_once(tiles):
    g = Game("english", seed=1)
    start = time.perf_counter()
    with pytest.raises(IllegalMoveError) as info:
        g.exchange(tiles)
    assert time.perf_counter() - start < 0.5
    assert info.value.reason == "not_in_rack" and len(str(info.value)) < 100
    assert "at most the 7 tiles of a rack" in str(info.value)
    with pytest.raises(IllegalMoveError) as info:
        g.play(Move.exchange([1] * 10**5, g.ruleset.alphabet))
    assert info.value.reason == "not_in_rack" and len(str(info.value)) < 100
    assert not g.history and g.bag_count == 86


def test_validate_of_a_huge_exchange_names_a_few_tiles_and_the_count():
    """The verdict's message echoed every missing tile (a million)."""
    import racksmith as rs

    pos = rs.Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0")
    verdict = pos.validate(rs.Move.exchange([1] * 100_000))
    assert verdict.reason == "not_in_rack" and len(verdict.message) < 200
    assert "(99,999 tiles)" in verdict.message
