"""An empty rack of the player to move in a CGP: not known while the game goes on (as an empty
opponent's rack is), a known empty rack when he went out (the game is over)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racksmith import Position
from racksmith.errors import PositionError, SimError
from racksmith.formats.cgp import cgp_racks_known, parse_cgp
from racksmith.review.replay import replay_text
from racksmith.rules.alphabet import BLANK
from racksmith.rules.ruleset import get_ruleset

# anna's racks are shown in part (the tiles played only), as Woogles writes an opponent's
RECORD = ("#player1 anna Anna\n#player2 bob Bob\n"
          ">anna: KRONA 8D KRONA +28 28\n"
          ">bob: CEIRSTU E5 REC.UITS +90 90\n"
          ">anna: BO 12C BO +10 38\n")
NOT_KNOWN = "the rack of the player to move is not known"
# the end of a game (tests/fixtures/gcg/game01_seed1.gcg): the last mover went out, R left on the other rack
END = ("7M2MORAL/6COWBANEs1/6UN4AE1/5VIG3OPAH/4REFoRGED3/3LEX1L7/4C10/3KRONA3FLIP/4U4T1O2A/1ZOWIE2TA1I2N/"
       "4T2HAJIS2N/2BOSQUET2TO1I/7DE3U1E/ADVISING1DIETER/YE5Y6S")
# the same game with the bag just empty: 11 tiles unseen, DEEILRT the mover's
ENDGAME = ("7M2MORAL/6COWBANEs1/6UN4AE1/5VIG3OPAH/4REFoRGED3/4EX1L7/4C10/3KRONA3FLIP/4U6O2A/1ZOWIE2T2I2N/"
           "4T2HAJIS2N/2BOSQUET2T2I/7DE5E/ADVISING6R/YE5Y6S")


def turn3():
    """The replay's position before anna's BO, and the CGP of that turn (as /api/gcg gives it)."""
    r = replay_text(RECORD)
    assert not r.turns[2].rack_complete
    return r.position(3), r.cgp(3)


def test_the_movers_empty_rack_mid_game_is_not_known():
    replayed, cgp = turn3()
    assert cgp.split()[1] == "/"
    pos = Position.from_cgp(cgp)
    assert replayed.racks_known == (False, False)
    assert pos.racks_known == replayed.racks_known
    assert pos.rack_sizes == replayed.rack_sizes == (7, 7)
    assert pos.bag_count == replayed.bag_count == 100 - 12 - 7 - 7
    assert pos.unseen_count == replayed.unseen_count
    assert not pos.is_over and pos.inferred_racks()[0] is None
    assert pos == replayed


def test_the_cgp_is_written_back_as_it_was_read():
    _, cgp = turn3()
    pos = Position.from_cgp(cgp)
    assert pos.cgp() == cgp
    assert Position.from_cgp(pos.cgp()) == pos
    for text in (f"{ENDGAME} / 413/490 0", f"{ENDGAME} /DEEILRT 413/490 0", f"{END} / 516/445 0",
                 f"{END} /R 516/445 0", "15/15/15/15/15/15/15/7AT6/15/15/15/15/15/15/15 /QZ 0/0 0 lex CSW21;"):
        p = Position.from_cgp(text)
        assert p.cgp() == text
        assert Position.from_cgp(p.cgp()) == p


@pytest.mark.parametrize("ask", [lambda p: p.best_play(seconds=0.2), lambda p: p.solve_peg(seconds=0.2)])
def test_best_and_peg_ask_for_the_movers_rack(ask):
    pos = Position.from_cgp(turn3()[1])
    with pytest.raises(PositionError, match=NOT_KNOWN):  # was: the pass alone, 9% to win
        ask(pos)


def test_sim_asks_for_the_movers_rack():
    pos = Position.from_cgp(turn3()[1])
    with pytest.raises(SimError, match=NOT_KNOWN):
        pos.simulate(iterations=10, seed=1)


def test_a_placement_from_the_unknown_rack_is_refused_the_pass_stays_legal():
    pos = Position.from_cgp(turn3()[1])
    verdict = pos.validate("12C BO")
    assert not verdict.legal and verdict.reason == "not_in_rack" and NOT_KNOWN in verdict.message
    assert pos.validate("-").legal


def test_an_empty_opponents_rack_given_mid_game_is_not_known_either():
    """' /QZ': the mover's rack left empty with 96 tiles unseen: he holds 7 of them (and the
    opponent's QZ with tiles in the bag is known in part: Q, Z and five tiles not known)."""
    pos = Position.from_cgp("15/15/15/15/15/15/15/7AT6/15/15/15/15/15/15/15 /QZ 0/0 0")
    assert pos.racks_known == (False, False) and pos.racks_partial == (False, True)
    assert pos.rack_sizes == (7, 7)
    assert pos.bag_count == 100 - 2 - 2 - 7 - 5
    with pytest.raises(PositionError, match=NOT_KNOWN):
        pos.best_play(seconds=0.2)


def test_an_endgame_movers_rack_left_empty_is_the_unseen_tiles():
    """The opponent's rack given, the bag empty: the unseen tiles are the mover's (was: his rack
    empty, the game over, no move listed)."""
    pos = Position.from_cgp(f"{ENDGAME} /DEEILRT 413/490 0")
    assert pos.racks_known == (False, True)
    assert pos.rack_sizes == (4, 7) and pos.bag_count == 0 and not pos.is_over
    assert "".join(pos.ruleset.alphabet.rack_string(pos.inferred_racks()[0])) == "AOTU"
    assert len(pos.moves()) > 1


def test_an_endgame_with_both_racks_left_empty_asks_for_the_movers():
    pos = Position.from_cgp(f"{ENDGAME} / 413/490 0")  # 11 unseen: more than the opponent's rack holds
    assert pos.racks_known == (False, False)
    assert pos.rack_sizes == (7, 4) and pos.bag_count == 0 and not pos.is_over
    with pytest.raises(PositionError, match=NOT_KNOWN):
        pos.best_play(seconds=0.2)
    with pytest.raises(PositionError, match=NOT_KNOWN):
        pos.solve_endgame(seconds=0.2)


@pytest.mark.parametrize("racks, sizes, known", [("/R", (0, 1), (True, True)), ("/", (0, 1), (True, False))])
def test_a_finished_games_empty_rack_reads_as_before(racks, sizes, known):
    """The player to move went out: his empty rack is a known empty one, the game is over."""
    pos = Position.from_cgp(f"{END} {racks} 516/445 0")
    assert pos.racks_known == known
    assert pos.rack_sizes == sizes and pos.bag_count == 0
    assert pos.is_over
    assert len(pos.moves()) == 0
    assert pos.outcome() is not None


def test_cgp_racks_known():
    rs = get_ruleset("english")
    p = parse_cgp("15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 / 0/28 0", rs)
    assert cgp_racks_known(p.board, p.racks, rs) == (False, False)
    p = parse_cgp("15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 AEINRST/ 0/28 0", rs)
    assert cgp_racks_known(p.board, p.racks, rs) == (True, False)
    p = parse_cgp(f"{END} / 516/445 0", rs)
    assert cgp_racks_known(p.board, p.racks, rs) == (True, False)
    p = parse_cgp(f"{ENDGAME} / 413/490 0", rs)  # 11 unseen: more than one rack holds
    assert cgp_racks_known(p.board, p.racks, rs) == (False, False)
    p = parse_cgp(f"{ENDGAME} // 413/490/0 0", rs)  # three players: 11 unseen fit on the two other racks
    assert cgp_racks_known(p.board, p.racks, rs) == (True, False, False)


def test_the_web_api_reads_the_turns_cgp_as_the_replay_does():
    """The auditor's round: /api/gcg gives the turn's CGP; /api/position reads it back with the
    replay's racks and bag, and /api/best and /api/sim ask for the rack (400)."""
    import json
    import threading
    import urllib.error
    import urllib.request
    from pathlib import Path

    from racksmith.web import Analyzer, make_server

    srv = make_server(Analyzer("english", None, Path(__file__).parent / "fixtures" / "SYNTH.klv2"), "127.0.0.1", 0,
                      log=lambda line: None)
    threading.Thread(target=srv.serve_forever, daemon=True).start()

    def post(path, body):
        req = urllib.request.Request(srv.url.rstrip("/") + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=20) as res:
                return res.status, json.loads(res.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    try:
        status, game = post("/api/gcg", {"text": RECORD, "analyze": False})
        assert status == 200
        turn = game["turns"][2]
        assert turn["rack_complete"] is False
        replayed, cgp = turn3()
        assert turn["cgp"] == cgp
        status, info = post("/api/position", {"cgp": cgp})
        assert status == 200
        assert info["racks_known"] == [False, False] and info["rack_sizes"] == [7, 7]
        assert info["bag_count"] == replayed.bag_count == 74 and info["over"] is False
        for path, body in (("/api/best", {"seconds": 1}), ("/api/sim", {"seconds": 1}), ("/api/moves", {})):
            status, answer = post(path, {"cgp": cgp, **body})
            assert status == 400 and NOT_KNOWN in answer["error"], (path, answer)
    finally:
        srv.shutdown()
        srv.server_close()


@st.composite
def cgp_positions(draw):
    """A position as a CGP says it: a rack written empty known or not as :func:`cgp_racks_known` says."""
    rs = get_ruleset("english")
    tiles = list(draw(st.permutations([t for t, n in enumerate(rs.counts) for _ in range(n)])))
    board = np.zeros((15, 15), dtype=np.uint8)
    for sq in draw(st.lists(st.integers(0, 224), max_size=100, unique=True)):
        t = tiles.pop()
        board[sq // 15, sq % 15] = t if t else draw(st.integers(1, 26)) | BLANK
    racks = []
    for _ in range(2):
        racks.append(rs.alphabet.tiles(sorted(tiles[: draw(st.integers(0, 7))])))
        del tiles[: len(racks[-1])]
    scores = draw(st.lists(st.integers(-100, 900), min_size=2, max_size=2))
    known = cgp_racks_known(board, tuple(racks), rs)
    zero_turns = draw(st.integers(0, 6))
    pos = Position(rs, board, racks, scores, zero_turns, racks_known=known)
    if known[1] and 0 < len(racks[1]) < 7 and pos.bag_count > 0:  # a short rack with tiles in the bag: known in part
        pos = Position(rs, board, racks, scores, zero_turns, racks_known=(known[0], False))
    return pos


@settings(max_examples=60, deadline=None)
@given(cgp_positions())
def test_positions_round_trip_through_cgp(pos):
    again = Position.from_cgp(pos.cgp())
    assert again == pos and again.cgp() == pos.cgp()
    assert (again.rack_sizes, again.bag_count, again.is_over) == (pos.rack_sizes, pos.bag_count, pos.is_over)
    if not pos.racks[0]:  # the mover's empty rack is his while the other unknown racks cannot hold the unseen tiles
        room = 0 if pos.racks[1] else 7
        assert again.racks_known[0] == (again.unseen_count <= room)
        assert again.racks_known[0] or again.rack_sizes[0] == min(7, again.unseen_count)


def test_the_moves_command_asks_for_the_movers_rack(capsys):
    """``racksmith moves`` on the turn's CGP: one line saying the rack is not known, exit 1 (it listed
    the pass alone, exit 0); with the rack given it lists the plays."""
    from racksmith.cli.main import main

    _, cgp = turn3()
    assert main(["moves", cgp]) == 1
    err = capsys.readouterr().err
    assert NOT_KNOWN in err and err.count("\n") == 1
    board = cgp.split()[0]
    assert main(["moves", f"{board} ABCDEFG/ 28/90 0", "--top", "1", "--json"]) == 0


@pytest.mark.parametrize("racks, known, want", [
    # the default rule's sizes (a full rack each "in order"): the third rack holds none, the last its Q alone
    (("", "IJ", "", "ANU"), (False, False, False, True), (False, False, True, True)),
    (("", "", "OR", "Q"), (False, False, True, False), (False, False, True, True)),
])
def test_a_rack_not_known_whose_size_by_the_default_rule_is_its_known_tiles_is_known(racks, known, want):
    """With the bag empty in a game of four, a rack not known that the default rule gives no tile
    beyond its known ones (an empty one: a player gone out; the Q alone) stayed not known, but its
    CGP (``rsz``) read back known: another position (12 of about 5,200 fuzzed positions)."""
    board = ("7COAX4/7H7/6TOG6/5TINY6/4MA2V6/3KOPS1ED5/1QUIN1P1DE5/3FOCAL1E5/4cEE4N3/4ODD3VAW2/4TI4ABO2/"
             "1THUS2BLEW4/1AIS2ERA3F2/ROTE2MARE2I2/3RILEY1TiNNER")
    if racks[2] == "OR":
        board = ("7SOAK3U/8WHINE1V/6JIN1P1DEE/4TOONS1P2FA/10E2F1/10R4/6MALmS4/R2ILEAL7/EM2I1WAIL5/TA2V4OOT3/"
                 "AY1TI4BRIG1x/GAGED6TORE/2ON10B/2XI10E/3AZINE6C")
    a = get_ruleset("english").alphabet
    empty = Position.from_cgp(f"{board} / 0/0 0")  # (the board)
    pos = Position("english", empty.board, [a.rack(r) for r in racks], [10, 20, 30, 40], 0, racks_known=known)
    assert pos.bag_count == 0 and pos.racks_known == want
    again = Position.from_cgp(pos.cgp())
    assert (again.racks_known, again.rack_sizes, again) == (pos.racks_known, pos.rack_sizes, pos)


def test_three_players_with_the_bag_empty_round_trip_known_racks_and_known_parts():
    """A known short rack (the Russian М) was written without ``rsz`` and read back known in part;
    a mover's rack known in part (U, size 4) was written empty and read back without its U: the
    writer compared the sizes and certain tiles only, not which racks are known and their known
    tiles. (A fuzzer of the day's changes: about 10% of such positions.)"""
    ru = get_ruleset("russian").alphabet
    b1 = ("П2П2РУТЕ5/О2Л1ФЕС7/л1МЮ1И9/ТВОРОГ9/Ь1Л2АИ8/2В4НЭК1Т3/1ПА6РОЩА2/СУ1Я1ЖОХ1Ы1Е3/1ТЫН1Е1АУЛ1ТЕМА/"
          "1Ч1КОЗОН1ОДА3/2ЗИ1Л4Ё1Б2/2О4П2Р1Р2/2В3СИДЕНЬе1Б/7О4Й1А/5ВЕНЕЦ2КУШ")
    board = Position.from_cgp(f"{b1} / 0/0 0", "russian").board
    first = Position("russian", board, [ru.rack("АГССЪ"), ru.rack("И"), ru.rack("М")], [81, 50, 454], 0,
                     racks_known=[True, False, True], rack_sizes=[None, 5, None])
    en = get_ruleset("english").alphabet
    b2 = ("7W7/2SPARLING5/7R7/7E1M5/4CAID1IT4/5V2AXIS3/M4E3ETA3/U1FLANNELS1VARY/O4G4TO1E1/N2R1E1B1JAR1F1/"
          "I1KIDDER2WE1U1/CANOE1LIQUiD1T1/1HOT3B2N2E1/HOP2ZOEA1G2S1/OY5d7")
    board = Position.from_cgp(f"{b2} / 0/0 0").board
    second = Position("english", board, [en.rack("U"), en.rack("I"), en.rack("I")], [118, 260, 469], 2,
                      racks_known=[False, True, True], rack_sizes=[4, None, None])
    for pos in (first, second):
        again = Position.from_cgp(pos.cgp(), pos.ruleset)
        assert (again.racks_known, again.racks_partial, again.rack_sizes, again) == (
            pos.racks_known, pos.racks_partial, pos.rack_sizes, pos)
    assert second.cgp().split()[1] == "U/I/I" and "rsz 4/1/1;" in second.cgp()
