"""Эрудит's star reclamation end to end: the ruleset option, the notation, the rules (core/turns.py),
scoring, push/pop, the move listing against the word-driven oracle, GCG, replay and analysis, the
pictures, the CLI and the web API, and that nothing changes for a ruleset without the option."""
from __future__ import annotations

import gzip
import json
import random
from dataclasses import replace
from functools import lru_cache
from importlib import resources

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle import WordIndex, oracle_placements, oracle_reclamations, placement_move
from racksmith import IllegalMoveError, InvalidMoveError, Lexicon, Move, Position, RulesetError
from racksmith.cli.main import main
from racksmith.core import turns
from racksmith.core.validation import check_move, validate
from racksmith.errors import MOVE_REASONS, REASONS
from racksmith.formats.render import render_svg, render_text
from racksmith.movegen.generate import generate_moves
from racksmith.movegen.reclaim import reclaimable_stars, reclamation_moves
from racksmith.play.game import Game
from racksmith.review.analysis import analyze
from racksmith.review.replay import replay_text
from racksmith.rules.alphabet import BLANK, THROUGH
from racksmith.rules.ruleset import Ruleset, get_ruleset

ERUDIT = get_ruleset("erudit")
EMPTY = ["15"] * 15


def cgp_with(row8: str, rack: str, scores: str = "0/25") -> str:
    rows = list(EMPTY)
    rows[7] = row8
    return "/".join(rows) + f" {rack}/ {scores} 0"


#: a star on 8B standing for Г (гЕРОИКА), the player to move holds a real Г
GEROIKA = cgp_with("1гЕРОИКА7", "ГАНОСЕЛ")
#: the same word from 8A: the star is on a triple-word square
GEROIKA_A = cgp_with("гЕРОИКА8", "ГАНОСЕЛ")


@lru_cache(maxsize=None)
def small_words() -> tuple[str, ...]:
    """Russian nouns of 2 to 5 letters (Эрудит folds ё into е): a lexicon the oracle is quick on."""
    path = resources.files("racksmith.lexicon") / "data" / "ru_nouns_opencorpora_yo_as_e.txt.gz"
    words = gzip.decompress(path.read_bytes()).decode("utf-8").split()
    return tuple(sorted({w for w in words if 2 <= len(w) <= 5}))


@lru_cache(maxsize=None)
def small_lexicon(ruleset_name: str = "erudit") -> Lexicon:
    return Lexicon.from_words(small_words(), ruleset_name)


@lru_cache(maxsize=None)
def small_index() -> WordIndex:
    return WordIndex(small_words(), ERUDIT.alphabet)


def without_option(rs: Ruleset) -> Ruleset:
    return replace(rs, star_reclamation=False)


# --- the ruleset option ---------------------------------------------------------------------------------
def test_the_option_is_on_for_erudit_only():
    assert ERUDIT.star_reclamation is True
    for name in ("english", "russian", "super"):
        assert get_ruleset(name).star_reclamation is False
    data = get_ruleset("english").to_dict()
    data.pop("star_reclamation")
    data["name"] = "mine"
    assert Ruleset.from_dict(data).star_reclamation is False  # off by default for a user ruleset
    assert Ruleset.from_dict({**data, "star_reclamation": True}).star_reclamation is True
    assert Ruleset.from_dict(ERUDIT.to_dict()).star_reclamation is True  # round trip


@pytest.mark.parametrize("bad", ["yes", 1, 0, None, [True]])
def test_the_option_must_be_a_boolean(bad):
    data = {**get_ruleset("english").to_dict(), "name": "mine", "star_reclamation": bad}
    with pytest.raises(RulesetError, match="star_reclamation"):
        Ruleset.from_dict(data)


def test_the_reasons_are_listed():
    for reason in ("reclamation_not_allowed", "no_star_there", "star_not_replayed"):
        assert reason in MOVE_REASONS and reason in REASONS


# --- notation ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["8D ДОм *12H=А", "H8 .НОС *8B=Г", "B8 (Г)оЛ *8B=Г *9C=Т", "8D ДОм *12H"])
def test_notation_round_trips(text):
    m = Move.parse(text, "erudit")
    assert Move.parse(m.notation(), "erudit") == m
    assert Move.parse(m.gcg(), "erudit").reclaimed == m.reclaimed
    assert m.reclaimed and all(len(x) == 3 for x in m.reclaimed)


def test_notation_parts():
    m = Move.parse("8D ДОм *12H=А *1A=Б", "erudit")
    a = ERUDIT.alphabet
    assert m.reclaimed == ((0, 0, a.tile("Б")), (11, 7, a.tile("А")))  # by square
    assert m.notation() == "8D ДОм *1A=Б *12H=А"
    assert Move.parse("8D ДОм *12H", "erudit").reclaimed == ((11, 7, 0),)
    # the stars given back take their real letters off the rack; the blanks they become come from the board
    assert m.rack_tiles() == sorted([a.tile("Д"), a.tile("О"), a.tile("Б"), a.tile("А")])


@pytest.mark.parametrize(
    "text",
    ["8D ДОм *99", "8D ДОм *H", "8D ДОм *12H=АБ", "8D ДОм *12H=?", "8D ДОм *12H=", "8D ДОм *12H *12H", "8D ДОм 12H",
     "8D ДОм *12H=Q", "- *12H"],
)
def test_bad_notation_is_refused(text):
    with pytest.raises(InvalidMoveError):
        Move.parse(text, "erudit")


# --- the rules -------------------------------------------------------------------------------------------
def test_scoring_counts_the_real_letter_at_face_value_without_the_premium():
    p = Position.from_cgp(GEROIKA_A, "erudit")
    a = ERUDIT.alphabet
    m = check_move(p, "A8 (Г)оЛ *8A", small_lexicon())
    # Г 3 on 8A (a triple word, used when the star was played), о a star 0, Л 2 on 10A (plain)
    assert m.score == 3 + 0 + 2
    assert m.reclaimed == ((7, 0, a.tile("Г")),)
    b = p.score("A8 (Г)оЛ *8A=Г")
    assert b.score == 5 and [w.text for w in b.words] == ["ГоЛ"] and b.to_dict()["reclaimed"] == [[7, 0, "Г"]]
    # through a triple letter: B8 (Г)оЛ, Л on 10B (3L) = 6
    assert check_move(Position.from_cgp(GEROIKA, "erudit"), "B8 (Г)оЛ *8B=Г", small_lexicon()).score == 9


def test_a_reclamation_with_a_bingo_gets_the_bonus():
    p = Position.from_cgp(GEROIKA, "erudit")
    bingos = [m for m in p.moves() if m.reclaimed and sum(1 for t in m.tiles if not t & THROUGH) == 7]
    assert bingos
    m = bingos[0]
    assert p.score(m).bingo and p.score(m).score == m.score
    plain = check_move(p, m).score
    assert plain == m.score


@pytest.mark.parametrize(
    ("cgp", "ruleset", "move", "reason", "words"),
    [
        (GEROIKA, "russian", "B8 (Г)оЛ *8B", "reclamation_not_allowed", ["Эрудит", "star_reclamation"]),
        (GEROIKA, "erudit", "B8 (Е)оЛ *8C", "no_star_there", ["8C", "'Е'", "not a star"]),
        (GEROIKA, "erudit", "B7 оЛ *7B", "no_star_there", ["7B", "nothing"]),
        (GEROIKA, "erudit", "B8 (Г)оЛ *8B=А", "no_star_there", ["stands for 'Г', not 'А'"]),
        (GEROIKA, "erudit", "B8 (Г)оЛ *20B", "no_star_there", ["20B"]),
        (GEROIKA, "erudit", "H8 (А)НОС *8B", "star_not_replayed", ["8B", "same turn"]),
        (cgp_with("1гЕРОИКА7", "АНОСЕЛ"), "erudit", "B8 (Г)оЛ *8B", "not_in_rack", ["a real 'Г' for the star on 8B"]),
        (GEROIKA, "erudit", "B8 (Г)оГ *8B", "not_in_rack", ["needs Г", "a real 'Г'"]),
    ],
)
def test_illegal_reclamations_say_why_and_change_nothing(cgp, ruleset, move, reason, words):
    rs = get_ruleset(ruleset)
    if ruleset == "russian":  # the same board in the Russian alphabet (no option there)
        cgp = cgp.replace("гЕРОИКА", "гЕРОИКА")
    p = Position.from_cgp(cgp, rs, lexicon=small_lexicon(rs.name) if ruleset == "erudit" else None)
    before = p.copy()
    v = validate(p, move, small_lexicon(rs.name))
    assert not v.legal and v.reason == reason, v
    for w in words:
        assert w in v.message, v.message
    with pytest.raises(IllegalMoveError) as e:
        p.push(move, check_words=False)
    assert e.value.reason == reason
    assert p == before and np.array_equal(p.board, before.board)


def test_push_and_pop_take_the_star_back_and_restore_exactly():
    p = Position.from_cgp(GEROIKA, "erudit", lexicon=small_lexicon())
    a = ERUDIT.alphabet
    before = p.copy()
    u = p.push("B8 (Г)оЛ *8B", "АБ")
    assert u.move.reclaimed == ((7, 1, a.tile("Г")),)
    assert int(p.board[7, 1]) == a.tile("Г")  # the real letter, no blank bit
    assert int(p.board[8, 1]) == a.tile("О") | BLANK and int(p.board[9, 1]) == a.tile("Л")
    # the rack gave Г (for the star) and Л, the star was played: 5 left + 2 drawn
    assert str(p.racks[-1]) == "ААБЕНОС" and p.scores[-1] == 9
    p.pop()
    assert p == before and np.array_equal(p.board, before.board)
    q = before.play("B8 (Г)оЛ *8B")
    assert before == p and q.board[7, 1] == a.tile("Г")


# --- the move listing against the oracle -------------------------------------------------------------------
def oracle_reclamations_set(position) -> set[tuple]:
    """Every legal reclamation by the oracle (tests/oracle.py, independent of
    racksmith.movegen.reclaim), as comparable tuples with the oracle's score."""
    return {(m.row, m.col, m.across, tuple(t & ~THROUGH if t & THROUGH else t for t in m.tiles), chosen, score)
            for m, score, chosen in oracle_reclamations(position, small_index())}


def listed(moves) -> set[tuple]:
    return {
        (m.row, m.col, m.across, tuple(t & ~THROUGH if t & THROUGH else t for t in m.tiles), m.reclaimed, m.score)
        for m in moves if m.reclaimed
    }


def random_game_position(seed: int, turns_: int, rs=ERUDIT):
    """A position reached by a random Эрудит game that favours stars: its moves take stars back
    when they can and play stars when they can."""
    g = Game(rs, small_lexicon(), seed=seed)
    rnd = random.Random(seed)
    for _ in range(turns_):
        if g.over:
            break
        ms = g.legal_moves()
        taking = [m for m in ms if m.reclaimed]
        starry = [m for m in ms if any(t & BLANK and not t & THROUGH for t in m.tiles)]
        pool = taking or starry or list(ms)
        g.play(pool[rnd.randrange(len(pool))])
        assert g.check_invariants() == []
    return g


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(2, 14))
def test_the_listing_is_exactly_the_oracle_s(seed, n):
    assert_listing_is_the_oracle_s(seed, n)


def test_the_listing_on_seeded_games_has_reclamations():
    found = [assert_listing_is_the_oracle_s(seed, 10) for seed in range(4)]
    assert sum(found) >= 20, found  # (not vacuous: these games have stars to take back)


def assert_listing_is_the_oracle_s(seed: int, n: int) -> int:
    """The reclamations of a random game's position are the oracle's (the count of them)."""
    g = random_game_position(seed, n)
    p = g.live_position.copy(stack=False)
    p.lexicon = small_lexicon()
    every = p.moves()
    if p.is_over:  # (six scoreless turns ended the game: nothing to list, whatever the generator would)
        assert len(every) == 0
        return 0
    want = oracle_reclamations_set(p)
    assert listed(every) == want
    # the rest of the list is the generator's, untouched and in its order
    plain = generate_moves(p)
    assert [m for m in every if not m.reclaimed] == list(plain)
    # every move listed is legal by the rules module, with the same score, and push/pop restores
    before = p.copy()
    for m in [m for m in every if m.reclaimed][:40]:
        assert check_move(p, m.notation()).score == m.score
        p.push(m, check_words=False, trusted=True)
        p.pop()
        assert p == before
    # top-N lists are the head of the full list
    for top in (1, 5, 30):
        assert list(p.moves(top=top)) == list(every[:top])
    assert list(p.moves(top=7, sort="equity")) == list(p.moves(sort="equity")[:7])
    return len(want)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(2, 14), pick=st.integers(0, 10_000), star=st.integers(0, 10_000))
def test_a_reclamation_is_legal_iff_the_oracle_says_so(seed, n, pick, star):
    """A candidate: any placement the oracle finds on the board after taking back some stars
    (whether or not it plays them), with those stars named; legal iff it plays as many stars."""
    g = random_game_position(seed, n)
    p = g.live_position.copy(stack=False)
    p.lexicon = small_lexicon()
    stars = reclaimable_stars(p)
    if not stars:
        return
    r, c, t = stars[star % len(stars)]
    q = p.copy(stack=False)
    q.board[r, c] = t
    left = list(p.rack)
    left.remove(t)
    q.racks[0] = ERUDIT.alphabet.tiles(sorted(left + [0]))
    found = oracle_placements(q, small_index())
    if not found:
        return
    pl = found[pick % len(found)]
    m = replace(placement_move(q, pl), reclaimed=((r, c, t),))
    plays_star = any(x & BLANK and not x & THROUGH for x in m.tiles)
    v = validate(p, m)
    assert v.legal == plays_star, v
    if v.legal:
        assert v.score == pl[4]
    else:
        assert v.reason == "star_not_replayed"


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(2, 12))
def test_nothing_changes_without_the_option(seed, n):
    g = random_game_position(seed, n)
    p = g.live_position.copy(stack=False)
    p.lexicon = small_lexicon()
    off = Position.from_cgp(p.cgp(), without_option(ERUDIT), lexicon=small_lexicon())
    # (a game that is over lists no move through Position.moves; the generator lists the rack's)
    assert list(off.moves()) == ([] if off.is_over else list(generate_moves(off)))
    assert not any(m.reclaimed for m in off.moves())
    assert reclamation_moves(off).to_numpy().size == 0
    for m in [m for m in p.moves() if m.reclaimed][:5]:
        assert validate(off, m.notation()).reason == "reclamation_not_allowed"


# --- games, GCG, replay and analysis -------------------------------------------------------------------------
@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(4, 24))
def test_games_with_reclamations_undo_and_replay(seed, n):
    """Games whose moves take stars back when they can, some of them phonies (words of a larger
    list than the game's), challenged at random: invariants after every action, the GCG record
    (with its withdrawn phonies) replays to the same scores, undo goes back action by action."""
    g = Game("erudit", game_lexicon(), seed=seed)
    rnd = random.Random(seed)
    start = g.cgp()
    states = [start]
    challenges = 0
    for _ in range(n):
        if g.over:
            break
        last = g.history[-1] if g.history else None
        if last is not None and last.kind == "play" and last.player != g.to_move and rnd.random() < 0.5:
            g.challenge(bonus=rnd.choice([0, 5]))
            challenges += 1
        else:
            wide = g.live_position.copy(stack=False)
            wide.lexicon = small_lexicon()
            ms = wide.moves()
            taking = [m for m in ms if m.reclaimed]
            pool = taking or [m for m in ms if any(t & BLANK and not t & THROUGH for t in m.tiles)] or list(ms)
            g.play(pool[rnd.randrange(len(pool))], check_words=False)
        states.append(g.cgp())
        assert g.check_invariants() == []
    text = g.gcg()
    r = replay_text(text, lexicon=game_lexicon())
    assert r.ok, r.errors
    assert r.final_scores() == dict(zip(g.nicks, g.scores))
    while g._actions:
        g.undo()
        states.pop()
        assert g.cgp() == states[-1]
        assert g.check_invariants() == []
    assert g.cgp() == start


@lru_cache(maxsize=None)
def game_lexicon() -> Lexicon:
    """Two words in three of :func:`small_words`: the others are phonies in a game judged by it."""
    return Lexicon.from_words([w for i, w in enumerate(small_words()) if i % 3], "erudit")


def test_gcg_round_trip_and_analysis_find_the_reclamation():
    g = random_game_position(3, 30)
    text = g.gcg()
    assert " *" in text and "=" in text  # a reclamation is written as such
    r = replay_text(text, lexicon=small_lexicon())
    assert r.ok, r.errors
    played = [t for t in r.turns if t.event.move is not None and t.event.move.reclaimed]
    assert played
    assert [t.event.move for t in played] == [m for m in (e.move for e in r.record.events) if m is not None and m.reclaimed]
    report = analyze(r, top=3, lexicon=small_lexicon())
    found = [t for t in report.turns if " *" in t.played]
    assert found and all(t.rank is not None for t in found)


def test_a_gcg_reclamation_is_refused_where_the_rules_have_none():
    g = random_game_position(3, 30)
    text = g.gcg()
    turn = next(line for line in text.splitlines() if line.startswith(">") and " *" in line)
    head = text.split(turn)[0] + turn + "\n"
    r = replay_text(head, lexicon=small_lexicon(), ruleset=without_option(ERUDIT), strict=False)
    assert not r.ok and any("Эрудит" in str(e) for e in r.errors), r.errors


# --- pictures ---------------------------------------------------------------------------------------------------
def test_pictures_show_the_real_letter_on_the_star_square():
    p = Position.from_cgp(GEROIKA, "erudit")
    text = render_text(p, "B8 (Г)оЛ *8B")
    row8 = next(line for line in text.splitlines() if line.startswith(" 8 "))
    assert row8.split()[2] == "Г"  # was г (the star)
    assert "the star on 8B taken back (Г put in its place)" in text
    svg = render_svg(p, "B8 (Г)оЛ *8B")
    assert svg.count(">Г<") >= 1


# --- CLI and web API ------------------------------------------------------------------------------------------
def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_cli_lists_scores_and_validates_reclamations(capsys):
    code, out, err = run(capsys, "moves", GEROIKA, "-r", "erudit", "--json", "--all")
    assert code == 0, err
    moves = json.loads(out)["moves"]
    taking = [m for m in moves if m.get("reclaimed")]
    assert taking and all(m["reclaimed"] == [[7, 1, "Г"]] and "*8B=Г" in m["notation"] for m in taking)
    code, out, err = run(capsys, "score", GEROIKA, "-r", "erudit", "-m", "B8 (Г)оЛ *8B", "--json")
    assert code == 0 and json.loads(out)["score"] == 9 and json.loads(out)["reclaimed"] == [[7, 1, "Г"]]
    code, out, err = run(capsys, "validate", GEROIKA, "-r", "erudit", "-m", "B8 (Г)оЛ *8B", "--json")
    assert code == 0 and json.loads(out) == {"legal": True, "score": 9, "lexicon": "ru-erudit"}


@pytest.mark.parametrize(
    ("ruleset", "move", "reason"),
    [
        ("erudit", "B8 (Е)оЛ *8C", "no_star_there"),
        ("erudit", "B8 (Г)оЛ *8B=А", "no_star_there"),
        ("russian", "B8 (Г)оЛ *8B", "reclamation_not_allowed"),
        ("erudit", "H8 (А)НОС *8B", "star_not_replayed"),
    ],
)
@pytest.mark.parametrize("command", ["score", "validate"])
def test_cli_bad_reclamations_exit_1_with_one_line(capsys, ruleset, move, reason, command):
    code, out, err = run(capsys, command, GEROIKA, "-r", ruleset, "-m", move)
    assert code == 1, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and reason in lines[0], err


def test_cli_bad_reclamation_notation_exits_1(capsys):
    code, _, err = run(capsys, "score", GEROIKA, "-r", "erudit", "-m", "B8 (Г)оЛ *8B=ГГ")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "'=' in" in err


# --- the web API ---------------------------------------------------------------------------------------
from test_web import call, error, post, server  # noqa: E402,F401  (the server fixture and its helpers)


def test_api_lists_scores_plays_and_exports_reclamations(server):
    got = post(server, "/api/moves", {"cgp": GEROIKA, "ruleset": "erudit", "top": 500, "leaves": False})
    lib = Position.from_cgp(GEROIKA, "erudit").moves()
    assert [m["notation"] for m in got["moves"]] == [m.notation() for m in lib[: len(got["moves"])]]
    taking = [m for m in got["moves"] if m.get("reclaimed")]
    assert taking and all(m["reclaimed"] == [[7, 1, "Г"]] for m in taking)
    b = post(server, "/api/score", {"cgp": GEROIKA, "ruleset": "erudit", "move": "B8 (Г)оЛ *8B"})
    assert b["score"] == 9 and b["reclaimed"] == [[7, 1, "Г"]] and b["move"] == "B8 (Г)оЛ *8B=Г"
    played = post(server, "/api/play", {"cgp": GEROIKA, "ruleset": "erudit", "move": "B8 (Г)оЛ *8B", "draw": "АБ"})
    assert played["score"] == 9 and "Г" in played["cgp"].split()[0] and played["move"] == "B8 (Г)оЛ *8B=Г"
    start = "/".join(EMPTY) + " ?ЕРОИКА/ 0/0 0"
    first = post(server, "/api/play", {"cgp": start, "ruleset": "erudit", "move": "8B гЕРОИКА", "draw": "ДДДММММ"})
    cgp2 = first["cgp"].replace(" /", " ГАНОСЕЛ/", 1)
    turns = [{"cgp": start, "move": "8B гЕРОИКА", "draw": "ДДДММММ"}, {"cgp": cgp2, "move": "B8 (Г)оЛ *8B", "draw": "АБ"}]
    gcg = post(server, "/api/export", {"ruleset": "erudit", "turns": turns})["gcg"]
    assert "B8 .оЛ *8B=Г +9" in gcg
    r = replay_text(gcg, lexicon=small_lexicon())
    assert r.ok and r.turns[-1].move.reclaimed == ((7, 1, ERUDIT.alphabet.tile("Г")),)


@pytest.mark.parametrize(
    ("ruleset", "move", "reason"),
    [("erudit", "B8 (Е)оЛ *8C", "no_star_there"), ("erudit", "B8 (Г)оЛ *8B=А", "no_star_there"),
     ("russian", "B8 (Г)оЛ *8B", "reclamation_not_allowed"), ("erudit", "H8 (А)НОС *8B", "star_not_replayed")],
)
def test_api_bad_reclamations_are_one_line_errors(server, ruleset, move, reason):
    v = post(server, "/api/validate", {"cgp": GEROIKA, "ruleset": ruleset, "move": move})
    assert v["legal"] is False and v["reason"] == reason
    for path in ("/api/score", "/api/play"):
        e = error(server, path, {"cgp": GEROIKA, "ruleset": ruleset, "move": move})
        assert e["reason"] == reason
    e = error(server, "/api/score", {"cgp": GEROIKA, "ruleset": "erudit", "move": "B8 (Г)оЛ *8B=ГГ"})
    assert "'='" in e["error"]


def test_star_sets_need_a_real_letter_for_each_star():
    a = ERUDIT.alphabet
    p = Position.from_cgp(cgp_with("1тОТ1т9", "ТАНОСЕЛ"), "erudit")
    t = a.tile("Т")
    assert turns.reclaimable_stars(ERUDIT, p.board, p.rack) == [(7, 1, t), (7, 5, t)]
    assert turns.star_sets(ERUDIT, p.board, p.rack) == [((7, 1, t),), ((7, 5, t),)]  # one Т: one star at a time
    two = a.rack("ТТАНОСЕ")
    assert turns.star_sets(ERUDIT, p.board, two)[-1] == ((7, 1, t), (7, 5, t))
    assert turns.star_sets(without_option(ERUDIT), p.board, two) == []
    board = p.board.copy()
    assert turns.exchange_stars(board, two, ((7, 1, t),)) == sorted([0] + a.rack("ТАНОСЕ"))
    assert int(board[7, 1]) == t and int(board[7, 5]) == t | BLANK


def test_records_of_reclamations_name_the_tiles_put_down_and_the_bingos():
    """``moves --json`` (MoveList.to_records): a placement taking stars back lists the tiles it
    puts down (``placed``, as the Move's), the letters on the stars' squares and whether it is a
    bingo, as a plain placement does."""
    p = Position.from_cgp(GEROIKA, "erudit")
    ms = p.moves()
    a = p.ruleset.alphabet
    records = ms.to_records()
    taking = [(r, m) for r, m in zip(records, ms) if m.reclaimed]
    assert taking and any(r["bingo"] for r, _ in taking) and not all(r["bingo"] for r, _ in taking)
    for r, m in taking:
        assert r["placed"] == [[row, col, a.letter(t)] for row, col, t in m.placed]
        assert r["reclaimed"] == [[row, col, a.letter(t)] for row, col, t in m.reclaimed]
        assert r["bingo"] is (len(m.placed) == 7) is (p.score(m).bingo > 0)
    plain = next(r for r, m in zip(records, ms) if m.is_place and not m.reclaimed)
    assert "reclaimed" not in plain and plain["bingo"] is False
