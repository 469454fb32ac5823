"""Rules that a second mutation audit found untested: each test states a documented rule and
checks it on a small, fixed game or input."""
from __future__ import annotations

import string
from collections import Counter

import pytest

from racksmith import Position, get_ruleset
from racksmith.core.bag import distribution
from racksmith.core.validation import ANY_WORD, check_move
from racksmith.errors import RacksmithError, RequestError
from racksmith.formats.gcg import parse_event
from racksmith.lexicon.klv import Leaves
from racksmith.lexicon.wordlist import parse_word_list
from racksmith.play.game import Game
from racksmith.play.players import GameView
from racksmith.review.replay import replay_text
from racksmith.search.player import EndgamePlayer
from racksmith.training.leavegen import leave_count
from racksmith.training.train import TrainSettings, train_leaves
from racksmith.web import Analyzer, Limits

ENGLISH = get_ruleset("english")
EMPTY = "/".join(["15"] * 15)


def words_of(data: bytes) -> set[str]:
    """The words a word list keeps, as text."""
    wl = parse_word_list(data, ENGLISH.alphabet, 15)
    o = wl.offsets
    return {ENGLISH.alphabet.decode(wl.text[o[i]:o[i + 1]].tolist()) for i in range(len(wl))}


def bag_order(*racks: str) -> list[int]:
    """A bag order that deals ``racks`` first, then the rest of the English tiles sorted."""
    lead = [t for part in racks for t in ENGLISH.alphabet.rack(part)]
    return lead + sorted((Counter(distribution(ENGLISH)) - Counter(lead)).elements())


def test_play_without_draw_draws_only_what_the_bag_holds():
    """/api/play with no ``draw``: the mover draws at random as many tiles as he played, or what
    the bag holds when it holds fewer (a move may play more tiles than are left to draw)."""
    g = Game("english", seed=11)
    while g.bag_count > 3:
        g.play_trusted(g.legal_moves(top=1)[0])
    cgp = g.cgp()
    pos = Position.from_cgp(cgp)
    m = next(m for m in pos.moves(top=200) if m.tiles_played > pos.bag_count)
    r = Analyzer("english").play({"cgp": cgp, "move": m.notation(), "seed": 1})
    assert len(r["drawn"]) == pos.bag_count == 3
    assert Position.from_cgp(r["cgp"]).bag_count == 0


def test_endgame_player_passes_out_when_the_pass_wins():
    """The endgame player searches the live position, scoreless turns included: with five
    scoreless turns behind, a pass ends the game, and it takes the pass when that is best."""
    g = Game("english", seed=9)
    while not g.over and g.bag_count > 0:
        g.play_trusted(g.legal_moves(top=1)[0])
    for _ in range(5):
        g.play("-")
    assert not g.over and g.live_position.zero_turns == 5
    p = EndgamePlayer(seconds=4, plies=4)
    m = p.choose(GameView(g))
    assert m.is_pass
    assert p.last.value > 0


def test_word_list_trailing_blanks_keep_two_letter_words():
    """Blanks around a word are not letters: ``AA `` is the two-letter word AA."""
    words = words_of(b"AA \nAB\t\nZA\nQI\nQAT \n")
    assert words == {"AA", "AB", "ZA", "QI", "QAT"}
    assert parse_word_list(b"A\nAA\n", ENGLISH.alphabet, 15).skipped.too_short == 1


def test_word_list_utf8_bom_is_not_a_letter():
    """A UTF-8 word list saved with a byte-order mark (as Notepad does) reads as without it."""
    assert words_of("\ufeffAA\nAB\nZA\n".encode("utf-8")) == words_of(b"AA\nAB\nZA\n") == {"AA", "AB", "ZA"}


def phony_then_passes_game() -> Game:
    """Opening, a pass, a phony withdrawn (``--``), then passes until six scoreless turns end it."""
    g = Game("english", seed=3, bag_order=bag_order("?AADGOR", "AGJRSTU", "BEELOPY", "EIN"))
    g.play("8B pODAGRA")
    g.play("-")
    g.play("H5 YEB(A)", check_words=False)
    g.challenge(5)
    while not g.over:
        g.play("-")
    return g


def test_replay_counts_scoreless_turns_across_a_withdrawn_phony():
    """A withdrawn phony scores nothing: it counts among the six scoreless turns that end the
    game, so a Game's own record replays to its scores, rack penalties included."""
    g = phony_then_passes_game()
    r = replay_text(g.gcg(), strict=False)
    assert r.ok, [str(e) for e in r.errors]
    assert list(r.final_scores().values()) == list(g.scores)


def test_export_phony_challenged_as_sixth_scoreless_turn_matches_game():
    """/api/export: a phony challenged off as the sixth scoreless turn ends the game; the record
    is the one Game.gcg() writes for the same game, and it replays to the same scores."""
    a = Analyzer("english")
    c = f"{EMPTY} ?AADGOR/AGJRSTU 0/0 0"
    turns = []

    def play(move, draw, check=True):
        nonlocal c
        r = a.play({"cgp": c, "move": move, "draw": draw, "check_words": check})
        turns.append({"cgp": c, "move": r["move"], "draw": r["drawn"]})
        before, c = c, r["cgp"]
        return before

    play("8B pODAGRA", "BEELOPY")
    for _ in range(5):
        play("-", "")
    before = play("H5 YEB(A)", "EIN", check=False)
    r = a.play({"cgp": c, "challenge": {"cgp": before, "move": "H5 YEB(A)", "bonus": 5}})
    assert r["event"] == "phony"
    turns.append({"event": "phony"})
    out = a.export({"turns": turns, "end": r["cgp"]})

    g = Game("english", seed=3, bag_order=bag_order("?AADGOR", "AGJRSTU", "BEELOPY", "EIN"))
    g.play("8B pODAGRA")
    for _ in range(5):
        g.play("-")
    g.play("H5 YEB(A)", check_words=False)
    g.challenge(5)
    assert g.over
    moves = lambda text: [line.split(None, 1)[1] for line in text.splitlines() if line.startswith(">")]  # noqa: E731
    assert moves(out["gcg"]) == moves(g.gcg())
    rp = replay_text(out["gcg"])
    assert rp.ok, [str(e) for e in rp.errors]
    assert list(rp.final_scores().values()) == list(g.scores)


def test_complete_leaves_table_has_every_leave():
    """Leaves.from_pairs(..., complete=True): every leave of 1 to 6 tiles is in the table (the
    ones not given valued 0)."""
    lv = Leaves.from_pairs([("AEINST", 12.5), ("Q", -7.0)], "english", complete=True)
    assert len(lv) == leave_count(ENGLISH.counts, 7) == 914_624
    assert lv.value("AEINST") == 12.5 and lv.value("AEINRT") == 0.0


def test_two_unknown_racks_stay_unknown_with_an_opponent_partly_seen():
    """With two racks not known, neither is deduced from the unseen tiles (only one rack not
    known can be): the opponent's seen tiles stay a partial rack."""
    g = Game("english", seed=0)
    while not (g.bag_count == 0 and len(g.live_position.racks[1]) >= 2):
        g.play_trusted(g.legal_moves(top=1)[0])
    lp = g.live_position
    r1 = lp.racks[1]
    rack = ENGLISH.alphabet.rack
    pos = Position(lp.ruleset, lp.board, (rack(""), rack(str(r1)[:2])), lp.scores, racks_known=(False, False))
    assert pos.racks_known == (False, False)
    assert pos.racks_partial == (False, True)
    pos2 = Position(lp.ruleset, lp.board, (rack(""), r1), lp.scores, racks_known=(False, False))
    assert pos2.racks_known == (False, False)


def test_gcg_zero_score_rack_line_is_a_rack_penalty():
    """GCG: ``>p1: ? (?) +0 300`` is a rack penalty of 0 (a blank left on the rack), not a
    going-out bonus; a Game's own record with one replays to its scores."""
    assert parse_event(">p1: ? (?) +0 300", ENGLISH).kind == "rack_penalty"
    g = Game("english", seed=8)
    while not g.over:
        pos = g._pos
        if g.bag_count == 0 and any(str(r) == "?" for r in pos.racks):
            break
        ms = g.legal_moves(top=100)
        if g.bag_count == 0 and 0 in list(pos.rack):
            keep = [m for m in ms if not m.is_pass and not m.is_exchange
                    and all(not (t & 0x80) for t in m.tiles) and m.tiles_played < len(pos.rack)]
            ms = keep or ms
        g.play_trusted(ms[0])
    while not g.over:
        g.play("-")
    text = g.gcg()
    assert any("(?) +0" in line for line in text.splitlines() if line.startswith(">"))
    r = replay_text(text, strict=False)
    assert r.ok, [str(e) for e in r.errors]
    assert list(r.final_scores().values()) == list(g.scores)


# -- replays --------------------------------------------------------------------------------------

def test_replay_phony_going_out_withdrawn_game_goes_on():
    """A play that goes out, challenged off as a phony, does not end the game: the game goes
    on, and the going-out bonus a record lacks is the one of the player who really went out."""

    g = Game("english", seed=1)
    while not g.over and g.bag_count > 0:
        g.play_trusted(g.legal_moves(top=1)[0])
    pos = g._pos
    letters = "".join(ch if ch != "?" else "e" for ch in str(pos.rack))
    found = None
    for r in range(15):
        for c in range(15):
            for across in (True, False):
                note = f"{r + 1}{string.ascii_uppercase[c]}" if across else f"{string.ascii_uppercase[c]}{r + 1}"
                try:
                    m = check_move(pos, f"{note} {letters}", ANY_WORD)
                except RacksmithError:
                    continue
                if any(w.plain not in pos.lexicon for w in pos.score(m).words):
                    found = m
                    break
            if found:
                break
        if found:
            break
    assert found is not None
    g.play(found.notation(), check_words=False)
    assert g.challenge(5)
    assert not g.over
    while not g.over:
        g.play_trusted(g.legal_moves(top=1)[0])
    lines = g.gcg().rstrip("\n").splitlines()
    out_nick = lines[-1][1:].split(":")[0]
    rp = replay_text("\n".join(lines[:-1]) + "\n", strict=False)   # the going-out bonus left out
    assert rp.ok, [str(e) for e in rp.errors]
    assert len(rp.lacking) == 1 and rp.lacking[0].startswith(f"{out_nick}'s going-out bonus")


def test_replay_rack_lacking_a_kept_tile_is_a_slip():
    """A rack line must hold the tiles the player kept from his previous turn (a withdrawn
    phony's tiles go back to his rack): one lacking a kept tile is a rack slip."""
    g = Game("english", seed=3, bag_order=bag_order("?AADGOR", "AGJRSTU", "BEELOPY", "EINT"))
    g.play("8B pODAGRA")
    g.play("H4 TAGR(A)", check_words=False)
    g.challenge(5)
    g.play("7B OBEY")
    g.play("H4 JAGR(A)")
    text = g.gcg()
    bad = text.replace(">p2: AGJRSTU H4 JAGR.", ">p2: AGJRSTZ H4 JAGR.")
    assert bad != text
    r = replay_text(bad, strict=False)
    assert r.rack_errors()
    assert r.turns[-1].rack_complete is False


def test_replay_withdrawn_phony_tiles_are_seen_once():
    """Tiles of a withdrawn phony are seen on the player's rack: two phonies with the same
    tiles show those tiles once, and the end position has them as his rack known in part."""
    g = Game("english", seed=3, bag_order=bag_order("?AADGOR", "AGJRSTU", "BEELOPY", "EIN"))
    g.play("8B pODAGRA")
    g.play("H4 TAGR(A)", check_words=False)
    g.challenge(5)
    g.play("7B OBEY")
    g.play("H4 GRAT(A)", check_words=False)
    g.challenge(5)
    text = "".join(line.replace(">p2: AGJRSTU ", ">p2: ") + "\n" for line in g.gcg().splitlines())
    r = replay_text(text, strict=False)
    assert r.ok, [str(e) for e in r.errors]
    assert r.position().cgp().split()[1] == "/AGRT"


def test_replay_time_penalty_must_be_negative():
    """A time penalty takes points away: a ``(time)`` line with a positive score is an error."""
    text = ("#player1 p1 p1\n#player2 p2 p2\n>p1: ?AADGOR 8B pODAGRA +70 70\n"
            ">p2: AGJRSTU H4 JAGR. +21 21\n>p1:  (time) +10 80\n")
    r = replay_text(text, strict=False)
    assert not r.ok
    assert any("time penalty" in str(e) for e in r.errors)


# -- the web analyzer --------------------------------------------------------------------------------

C0 = f"{EMPTY} ?AADGOR/AGJRSTU 0/0 0"


def test_challenge_keeps_the_challengers_typed_rack():
    """/api/play challenge: the challenger's rack typed on the page (the tiles he now holds) is
    kept when the phony is withdrawn."""
    a = Analyzer("english")
    r1 = a.play({"cgp": C0, "move": "8B pODAGRA", "draw": "BEELOPY"})
    r2 = a.play({"cgp": r1["cgp"], "move": "H4 TAGR(A)", "draw": "EINT", "check_words": False})
    now = r2["cgp"].replace(" BEELOPY/", " BEEKLOP/", 1)
    r = a.play({"cgp": now, "challenge": {"cgp": r1["cgp"], "move": "H4 TAGR(A)", "bonus": 5}})
    assert r["event"] == "phony"
    assert r["position"]["racks"] == ["BEEKLOP", "AGJRSTU"]


def test_challenge_refuses_scores_edited_by_hand():
    """/api/play challenge: the position given must have the scores the challenged play left."""
    a = Analyzer("english")
    r1 = a.play({"cgp": C0, "move": "8B pODAGRA", "draw": "BEELOPY"})
    r2 = a.play({"cgp": r1["cgp"], "move": "H4 JAGR(A)", "draw": "EINT"})
    f = r2["cgp"].split(" ")
    typed = " ".join([f[0], f[1], "70/40", *f[3:]])
    with pytest.raises(RequestError, match="scores"):
        a.play({"cgp": typed, "challenge": {"cgp": r1["cgp"], "move": "H4 JAGR(A)", "bonus": 5}})


def test_export_uncounted_racks_are_seats():
    """/api/export ``uncounted`` names seats (0 = the first player): after six scoreless turns
    with the second player's rack not known, his rack is the one not counted."""
    a = Analyzer("english")
    c = f"{EMPTY} ?AADGOR/ 0/0 0"
    turns = []
    for move, draw in [("8B pODAGRA", "BEELOPY")] + [("-", None)] * 6:
        body = {"cgp": c, "move": move, **({"draw": draw} if draw else {})}
        r = a.play(body)
        turns.append({"cgp": c, "move": r["move"], **({"draw": draw} if draw else {})})
        c = r["cgp"]
    assert r["over"]
    out = a.export({"turns": turns, "end": c})
    assert out["uncounted"] == [1]


def test_export_refuses_a_second_challenge_bonus():
    """/api/export: a challenge event follows the play it challenges; a second one for the
    same play is refused."""
    turns = [{"cgp": C0, "move": "8B pODAGRA", "draw": "BEELOPY"},
             {"event": "challenge", "points": 5}, {"event": "challenge", "points": 5}]
    with pytest.raises(RequestError, match="turn 3"):
        Analyzer("english").export({"turns": turns})


def test_export_refuses_a_failed_challenge_after_a_pass():
    """/api/export: a failed challenge follows a play; after a pass it is refused."""
    a = Analyzer("english")
    r1 = a.play({"cgp": C0, "move": "-", "draw": ""})
    turns = [{"cgp": C0, "move": "-"}, {"cgp": r1["cgp"], "move": "-", "failed_challenge": True}]
    with pytest.raises(RequestError, match="turn 2"):
        a.export({"turns": turns})


def test_export_challenge_bonus_rack_known_when_bag_empty():
    """/api/export: with the bag empty nothing is drawn, so the player's rack after his play is
    known without a ``draw``; a challenge bonus line then shows it."""
    a = Analyzer("english")
    g = Game("english", seed=11)
    page, turns = g.cgp(), []
    while True:
        m = g.legal_moves(top=1)[0]
        before = page
        e = g.play_trusted(m)
        r = a.play({"cgp": before, "move": m.notation(), "draw": str(e.drawn)})
        page = r["cgp"]
        turns.append({"cgp": before, "move": r["move"], "draw": r["drawn"]})
        if (r["position"]["bag_count"] == 0 and r["kind"] == "place" and not r["position"].get("over")
                and r["drawn"] == ""):
            break
    turns[-1] = {"cgp": before, "move": r["move"]}   # no draw given: the bag was empty
    c = a.play({"cgp": page, "challenge": {"cgp": before, "move": r["move"], "bonus": 5}})
    turns.append({"event": "challenge", "points": 5})
    with_end = a.export({"turns": turns, "end": c["cgp"]})["gcg"]
    without = a.export({"turns": turns})["gcg"]
    line = [ln for ln in without.splitlines() if "(challenge)" in ln]
    assert line == [ln for ln in with_end.splitlines() if "(challenge)" in ln]
    assert line[0].split()[1] != "(challenge)"


def test_export_challenge_bonus_keeps_a_known_rack():
    """/api/export: a challenge bonus line shows the challenged player's rack, known from the
    pages; a later page no longer showing that rack does not erase it."""
    a = Analyzer("english")
    r1 = a.play({"cgp": C0, "move": "8B pODAGRA", "draw": "BEELOPY"})
    r2 = a.play({"cgp": r1["cgp"], "move": "H4 JAGR(A)", "draw": "EIST"})
    c = a.play({"cgp": r2["cgp"], "challenge": {"cgp": r1["cgp"], "move": "H4 JAGR(A)", "bonus": 5}})
    r3 = a.play({"cgp": c["cgp"], "move": "7B OBEY", "draw": "ACDE"})
    f = r3["cgp"].split(" ")
    racks = f[1].split("/")
    hidden = " ".join([f[0], "/" + racks[1], *f[2:]])
    turns = [{"cgp": C0, "move": "8B pODAGRA", "draw": "BEELOPY"},
             {"cgp": r1["cgp"], "move": "H4 JAGR(A)", "draw": "EIST"},
             {"event": "challenge", "points": 5}, {"cgp": c["cgp"], "move": "7B OBEY", "draw": "ACDE"},
             {"cgp": hidden, "move": "-"}]
    out = a.export({"turns": turns})
    assert [ln for ln in out["gcg"].splitlines() if "(challenge)" in ln] == [">p2: EISSTTU (challenge) +5 26"]


def test_time_penalty_of_zero_is_refused():
    """A time penalty is a whole number of points from 1 up: 0 is refused by /api/play and
    /api/export."""
    a = Analyzer("english")
    r1 = a.play({"cgp": C0, "move": "8B pODAGRA", "draw": "BEELOPY"})
    with pytest.raises(RequestError, match="time penalty"):
        a.play({"cgp": r1["cgp"], "time": {"player": 0, "points": 0}})
    turns = [{"cgp": C0, "move": "8B pODAGRA", "draw": "BEELOPY"}, {"event": "time", "player": 0, "points": 0}]
    with pytest.raises(RequestError, match="time penalty"):
        a.export({"turns": turns})


def test_time_penalty_below_the_gcg_range_is_refused():
    """A time penalty may not take a score below what a GCG record holds (-999,999,999)."""
    with pytest.raises(RequestError, match="below"):
        Analyzer("english").play({"cgp": f"{EMPTY} ?AADGOR/AGJRSTU 0/-999999000 0",
                                  "time": {"player": 1, "points": 5000}})


def test_export_max_gcg_events_is_inclusive():
    """Limits.max_gcg_events is the most events written: a game with exactly that many exports."""
    a = Analyzer("english", limits=Limits(max_gcg_events=2))
    r1 = a.play({"cgp": C0, "move": "8B pODAGRA", "draw": "BEELOPY"})
    turns = [{"cgp": C0, "move": "8B pODAGRA", "draw": "BEELOPY"}, {"cgp": r1["cgp"], "move": "-", "draw": ""}]
    assert a.export({"turns": turns})["turns"] == 2


def test_training_state_missing_a_generation_is_reported_damaged(tmp_path):
    """Resuming a training run whose state folder lacks a finished generation's leaves is
    refused with a message naming the damage and how to start over (not a raw file error)."""
    s = TrainSettings("english", games=6, generations=2, seed=11, prior_weight=10)
    out = tmp_path / "x.klv2"
    train_leaves(out, s, checkpoint=4, stop_after=6, jobs=1)
    (tmp_path / "x.klv2.train" / "gen1.klv2").unlink()
    with pytest.raises(RacksmithError, match="damaged.*gen1.klv2 is missing"):
        train_leaves(out, s, checkpoint=4, jobs=1)


def test_a8_an_export_refuses_a_first_position_with_points_and_no_tiles():
    """A first turn from an empty board with points scored (30/0) is no GCG record's start: the
    export refuses it (the mutant checked the board's tiles only)."""
    api = Analyzer("english")
    empty = "/".join(["15"] * 15)
    with pytest.raises(RequestError, match="started from a position with tiles on it or points scored"):
        api.export({"turns": [{"cgp": f"{empty} ?AADGOR/AGJRSTU 30/0 0", "move": "8B pODAGRA", "draw": "BEELOPY"}]})


def test_r15_an_end_rack_lacking_tiles_kept_from_the_last_turn_is_not_used():
    """'#rack1 ACDEFGH' after p1 kept L and P (BEELOPY, 7B OBEY) lacks them: it is skipped with a
    note saying so, and the end leaves that rack not known (the mutant took it)."""
    text = ("#player1 p1 p1\n#player2 p2 p2\n>p1: ?AADGOR 8B pODAGRA +70 70\n>p2: AGJRSTU H4 JAGR. +21 21\n"
            ">p1: BEELOPY 7B OBEY +28 98\n#rack1 ACDEFGH\n")
    r = replay_text(text, strict=False)
    assert any("'#rack1 ACDEFGH' lacks LP, kept from the player's last turn" in n for n in r.notes)
    assert 0 not in r.end_racks
