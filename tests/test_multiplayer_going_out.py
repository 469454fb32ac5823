"""Going out in a game of three or four players (3–4 player audit).

The equity of going out counts twice the leftover of *every* other player (the tournament rule's
bonus; with racks not known and the bag empty, every tile off the board but the mover's, whoever
holds which), in the move generator (``moves``, the bots, ``best``, ``analyze``) and in the
kernel's game loop alike; a push that goes out adds that bonus also where the others' racks are
not known. The CGP of a finished game of three or four players reads back with the same rack
sizes and the same player gone out (``rsz``), and ``gcg cgp`` asks for no rack on a game over."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import played_out_gcg
from conftest import run_cli as run
from racksmith import BestEquityPlayer, Game, GameView, Position
from racksmith.core import turns
from racksmith.lexicon import load_lexicon
from racksmith.movegen.generate import generate_moves
from racksmith.play.selfplay import SelfPlayConfig, run_selfplay
from racksmith.rules.ruleset import Ruleset, get_ruleset

SYNTH = Path(__file__).parent / "fixtures" / "SYNTH.klv2"
RULESETS = Path(__file__).parent.parent / "src" / "racksmith" / "rules" / "rulesets"

#: English, four players, before turn 19 of a bot game: the bag empty, the mover holds AIS, the
#: others UVW, C and EO (CEOUVW: 14 points). L12 IS(B)A goes out for 14.
BOARD = ("PEAS4QUERIDA/A1JOLT7A1/U1ANE1W6I1/PYREXIAl2THONG/E5V6T1/R1FLORIN2T2I1/E5N1FLOOIE1/D2Z2GLOOMY1RE/"
         "3I4B1M3T/2INDUCTS1E3H/3G6D3E/3S10N/14E/9KABARs/15")
SPLITS = {
    "two players": "AIS/CEOUVW 157/238 0",
    "three players": "AIS/CEO/UVW 157/238/184 0",
    "four players": "AIS/UVW/C/EO 157/238/184/246 0",
    "four, racks not known": "AIS/// 157/238/184/246 0 rsz 3/3/1/2;",
    "four, a rack known in part": "AIS/U/C/ 157/238/184/246 0 rsz 3/3/1/2;",
}
GOING_OUT = "L12 IS(B)A"


@pytest.fixture(scope="module")
def enable():
    return load_lexicon("enable", ruleset=get_ruleset("english"))


@pytest.mark.parametrize("tail", SPLITS.values(), ids=SPLITS.keys())
def test_going_out_counts_every_other_players_leftover(enable, tail):
    pos = Position.from_cgp(f"{BOARD} {tail}", lexicon=enable)
    best = pos.moves(top=1, sort="equity")[0]
    assert best.notation() == GOING_OUT
    assert best.equity == 14 + 2 * 14  # its score and twice CEOUVW, however the others hold them
    every = {m.notation(): m.equity for m in pos.moves(sort="equity")}
    assert every[GOING_OUT] == 42.0


def test_the_generator_counts_every_other_rack_for_any_position_object(enable):
    # an object that keeps no board in the kernel (read in full each call): every rack known, or
    # racks not known with their sizes, the bag empty
    known = Position.from_cgp(f"{BOARD} {SPLITS['four players']}")
    plain = SimpleNamespace(ruleset=known.ruleset, lexicon=enable, board=known.board, racks=known.racks)
    assert generate_moves(plain, top=1, sort="equity")[0].equity == 42.0
    hidden = Position.from_cgp(f"{BOARD} {SPLITS['four, racks not known']}")
    view = SimpleNamespace(ruleset=hidden.ruleset, lexicon=enable, board=hidden.board, racks=hidden.racks,
                           _known=hidden.racks_known, rack_sizes=hidden.rack_sizes)
    assert generate_moves(view, top=1, sort="equity")[0].equity == 42.0


@pytest.mark.parametrize("tail", SPLITS.values(), ids=SPLITS.keys())
def test_a_push_that_goes_out_wins_twice_the_tiles_off_the_board(enable, tail):
    pos = Position.from_cgp(f"{BOARD} {tail}", lexicon=enable)
    pos.push(GOING_OUT)
    out = pos.outcome()
    assert out.ending.reason == "out"
    (bonus,) = out.ending.adjustments
    assert (bonus.kind, bonus.points, str(bonus.tiles)) == ("out", 28, "CEOUVW")
    assert out.scores[-1] == 157 + 14 + 28
    assert out.uncounted == () and out.final  # the bonus counts every rack, whoever holds which
    pos.pop()
    assert pos.scores[0] == 157 and not pos.is_over


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    """English with the club rule (Эрудит's): the one going out adds the others' leftover once,
    each of them takes his own off."""
    text = (RULESETS / "english.toml").read_text(encoding="utf-8")
    assert 'end_rule = "tournament"' in text
    path = tmp_path_factory.mktemp("club") / "english_club.toml"
    path.write_text(text.replace('end_rule = "tournament"', 'end_rule = "club"', 1), encoding="utf-8")
    return Ruleset.load(path)


def test_the_club_rule_counts_the_bonus_and_leaves_the_hidden_penalties_uncounted(club):
    lex = load_lexicon("enable", ruleset=club)
    known = Position.from_cgp(f"{BOARD} {SPLITS['four players']}", ruleset=club, lexicon=lex)
    hidden = Position.from_cgp(f"{BOARD} {SPLITS['four, racks not known']}", ruleset=club, lexicon=lex)
    for pos in (known, hidden):  # the same equity: the end moves the mover's spread by twice CEOUVW either way
        assert pos.moves(top=1, sort="equity")[0].equity == 42.0
    known.push(GOING_OUT)
    hidden.push(GOING_OUT)
    k, h = known.outcome(), hidden.outcome()
    assert [(a.player, a.points) for a in k.ending.adjustments] == [(3, 14), (0, -9), (1, -3), (2, -2)]
    assert k.scores == (238 - 9, 184 - 3, 246 - 2, 157 + 14 + 14) and k.final
    # not known: his bonus (the tiles off the board) is counted, their own penalties are not
    assert [(a.player, a.kind, a.points) for a in h.ending.adjustments] == [(3, "out", 14)]
    assert h.scores == (238, 184, 246, 157 + 14 + 14)
    assert h.uncounted == (0, 1, 2) and not h.final


def test_others_value_is_every_tile_off_the_board_but_the_rack():
    pos = Position.from_cgp(f"{BOARD} {SPLITS['four players']}")
    rs = pos.ruleset
    assert str(turns.off_board_tiles(rs, pos.board, pos.racks[0])) == "CEOUVW"
    assert turns.others_value(rs, pos.board, pos.racks[0]) == 14
    assert turns.others_value(rs, pos.board, ()) == 14 + rs.rack_value(pos.racks[0])


# --- the bots: the same choice in Python and in the kernel's game loop ------------------------------

@pytest.mark.parametrize("ruleset,players,seed,turn,rack,move", [
    # before the fix, GETAs (34, keeping A) beat this going out counted against the next rack only
    ("english", 3, 36, 19, "AAEGT?", "15D AGAm(E)TE"),
    ("super", 3, 24, 43, "NOSTT", "12K T(E)STON"),
])
def test_the_bot_goes_out_when_the_others_leftover_is_worth_it(ruleset, players, seed, turn, rack, move):
    g = Game(ruleset, players=players, seed=seed)
    bot = BestEquityPlayer()
    view = GameView(g)
    for _ in range(turn):
        g.play(bot.choose(view))
    assert g.bag_count == 0 and str(view.position.rack) == rack
    chosen = bot.choose(view)
    assert chosen.notation() == move
    unseen = view.position.ruleset.rack_value(view.position.unseen_tiles())
    assert chosen.equity == chosen.score + 2 * unseen


@pytest.mark.parametrize("players,seed,games", [(4, 17, 1), (4, 9, 4)])
def test_kernel_and_python_play_the_same_games_of_four_going_out(tmp_path, players, seed, games):
    # series where the kernel's choice of going out changed with the others' racks all counted: the
    # Python loop (Position.moves) and the kernel's (game_choose) must count them alike
    records = []
    for engine in ("kernel", "python"):
        d = tmp_path / engine
        report = run_selfplay(games, SelfPlayConfig(engine=engine, gcg_dir=str(d), ruleset="english", lexicon="enable",
                                                    leaves=str(SYNTH), players=("equity",) * players, seed=seed))
        assert report.engine == engine and report.violations == []
        records.append([f.read_text(encoding="utf-8") for f in sorted(d.glob("*.gcg"))])
    assert len(records[0]) == games
    assert records[0] == records[1]
    # and they end by a player going out: "(tiles) +N" lines
    assert any("\n>" in r and ") +" in r.rsplit("\n>", 1)[-1] for r in records[0])


# --- the CGP of a finished game -----------------------------------------------------------------------

def gone_out() -> Position:
    """After the fourth player went out (the audit's g4): three racks not known, the last empty."""
    b = ("7R2A4/6QAIDS2L1/2B4V2T2I1/1CRITERiA1E2T1/2U4N2R2H1/2I4G2I2E1/2T1B2L2A2S1/3FADDY5TO/4N9P/1ZONK8AE/"
         "4N1WOO3WIN/3COVEY4ANE/4T7I1R/1DESEX4JEFES/4sUPREMO4")
    board = Position.from_cgp(b + " AAEGGHI/ILLMOOU/U/ 0/0/0/0 0").board
    return Position("english", board, [(), (), (), ()], [186, 288, 180, 285], 0,
                    racks_known=[False, False, False, True])


@pytest.mark.parametrize("sizes", [None, [7, 7, 1, 0]])
def test_the_cgp_of_a_game_gone_out_reads_back_with_its_sizes(sizes):
    pos = gone_out()
    if sizes is not None:
        pos = Position(pos.ruleset, pos.board, pos.racks, pos.scores, 0, racks_known=pos.racks_known,
                       rack_sizes=sizes)
    assert pos.rack_sizes == (7, 7, 1, 0) and pos.outcome().ending.player == 3
    cgp = pos.cgp()
    assert cgp.endswith(" /// 186/288/180/285 0 rsz 7/7/1/0;")
    back = Position.from_cgp(cgp)
    assert back.rack_sizes == (7, 7, 1, 0)
    assert back.racks_known == (False, False, False, True)
    assert back.outcome().ending.player == 3 and back.is_over
    assert back.cgp() == cgp


@pytest.mark.parametrize("ruleset,players", [("english", 2), ("english", 3), ("english", 4), ("super", 4)])
def test_every_position_of_a_game_reads_back_and_two_players_never_write_rsz(ruleset, players):
    for seed in range(3):
        g = Game(ruleset, players=players, seed=seed)
        bot = BestEquityPlayer()
        view = GameView(g)
        while True:
            for pos in (view.position, g.live_position):
                cgp = pos.cgp()
                if players == 2:
                    assert "rsz" not in cgp
                back = Position.from_cgp(cgp)
                assert (back.rack_sizes, back.inferred_racks(), back.is_over) == \
                    (pos.rack_sizes, pos.inferred_racks(), pos.is_over), cgp
                if pos.is_over:
                    assert back.outcome().ending.player == pos.outcome().ending.player, cgp
            if g.over:
                break
            g.play(bot.choose(view))


def test_gcg_cgp_of_a_finished_game_of_four(capsys, tmp_path):
    g, path = played_out_gcg(tmp_path, "english", 4, 1)
    code, out, err = run(capsys, "gcg", "cgp", path)
    assert code == 0
    assert "rsz" in out  # the sizes the game left the racks, and who went out
    assert "to be filled in" not in err  # a game over asks for no rack
    back = Position.from_cgp(out.strip())
    assert back.is_over and back.outcome().ending.reason == "out"
    n = len(g.racks)
    assert back.rack_sizes == tuple(len(g.racks[(g.to_move + i) % n]) for i in range(n))


def test_an_rsz_that_needs_more_tiles_than_are_unseen_names_the_opcode():
    """The CGP's own opcode is named, not the constructor's rack_sizes argument the user never wrote."""
    from test_hidden_rack_sizes import three_racks

    from racksmith.errors import CGPError

    cgp = three_racks().cgp()
    assert "rsz 7/1/1" in cgp
    with pytest.raises(CGPError, match=r"^CGP 'rsz 7/2/1': the racks not known hold 3 tiles") as e:
        Position.from_cgp(cgp.replace("rsz 7/1/1", "rsz 7/2/1"))
    assert "rack_sizes" not in str(e.value)
