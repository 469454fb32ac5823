"""The sizes of racks not known (model-based audit): with the bag empty in a game of three players
or more, a hidden rack holds what the game left it, not "a full rack while the unseen tiles allow,
in order" (which made the view of a player with 410 legal plays a game over); a Position carries
sizes given (``rack_sizes``) through copies, pickles, snapshots, push and pop, and its CGP
writes them where a reader would take others (``rsz``). Also: a rack set is checked with the
board and the other racks (no more of a tile than the set holds), pop after racks were set, and
the CGP of a game ended by going out reads back (the empty rack of the player gone out is known)."""
from __future__ import annotations

import copy
import pickle

import pytest

from conftest import run_cli as run
from racksmith import BestScorePlayer, Game, GameView, Position, replay_text
from racksmith.errors import CGPError, PositionError

EMPTY15 = "/".join(["15"] * 15)


def seats_sizes(game: Game) -> tuple[int, ...]:
    """The sizes of the game's racks, the player to move first (a position's order)."""
    n = len(game.racks)
    return tuple(len(game.racks[(game.to_move + i) % n]) for i in range(n))


def default_rule(pos: Position) -> Position:
    """``pos`` without the sizes given: the racks not known full "in order" while unseen tiles allow."""
    return Position(pos.ruleset, pos.board, pos.racks, pos.scores, pos.zero_turns, racks_known=pos.racks_known)


def play_out(ruleset: str, players: int, seed: int):
    """A game of BestScorePlayer, with the view of each turn whose bag is empty: (game copy, view position)."""
    g = Game(ruleset, players=players, seed=seed)
    p, v = BestScorePlayer(), GameView(g)
    seen = []
    while not g.over:
        if g.bag_count == 0:
            seen.append((g.copy(), v.position))
        g.play(p.choose(v))
    return g, seen


# (ruleset, players, seed): games in which the default rule made a view with plays a game over
CASES = [("english", 3, 0), ("english", 4, 1), ("russian", 3, 0), ("erudit", 4, 0), ("super", 3, 0)]


# --- 1. the view of a player, and a replay's positions, hold the game's sizes ------------------------------------

@pytest.mark.parametrize("ruleset, players, seed", CASES)
def test_the_view_of_the_player_to_move_holds_the_games_rack_sizes(ruleset, players, seed):
    _, seen = play_out(ruleset, players, seed)
    assert seen
    wrong_by_default = 0
    for game, pos in seen:
        assert pos.rack_sizes == seats_sizes(game)
        assert pos.bag_count == 0 and not pos.is_over and pos.outcome() is None
        assert len(pos.moves()) == len(game.legal_moves())  # (a game over had none)
        wrong_by_default += default_rule(pos).is_over
        q = Position.from_cgp(pos.cgp(), ruleset)  # read back with the same sizes
        assert q == pos and q.rack_sizes == pos.rack_sizes and q.racks_known == pos.racks_known
    assert wrong_by_default  # (the case the default rule got wrong is among them)


def test_the_repro_of_the_audit_three_players():
    g = Game("english", players=3, seed=7)
    v = GameView(g)
    from racksmith import BestEquityPlayer

    p = BestEquityPlayer(None)
    counts = []
    while not g.over:
        if g.bag_count == 0:
            pos = v.position
            assert pos.rack_sizes == seats_sizes(g) and not pos.is_over
            counts.append((len(pos.moves()), len(g.legal_moves())))
        g.play(p.choose(v))
    assert counts == [(459, 459), (410, 410), (6, 6)]  # (it was 459, 0 and 0)


@pytest.mark.parametrize("ruleset, players, seed", [("english", 3, 0), ("english", 4, 1), ("russian", 4, 0)])
def test_a_replay_of_a_record_of_three_or_four_players_holds_the_games_sizes(ruleset, players, seed):
    g = Game(ruleset, players=players, seed=seed)
    p, v = BestScorePlayer(), GameView(g)
    truth = []
    while not g.over:
        truth.append((seats_sizes(g), g.bag_count))
        g.play(p.choose(v))
    rp = replay_text(g.gcg())
    assert rp.ok and rp.complete and rp.scores == g.scores
    checked = 0
    for t, (sizes, bag) in zip(rp.turns, truth):
        pos = rp.position(t.number)
        assert pos.rack_sizes == sizes and pos.bag_count == bag
        assert not pos.is_over
        if bag == 0:
            checked += 1
            q = Position.from_cgp(rp.cgp(t.number), ruleset)
            assert q.rack_sizes == sizes and not q.is_over
            assert t.move is None or t.move.kind != 0 or pos.validate(t.move).legal  # (not game_over)
    assert checked


THREE = """#character-encoding UTF-8
#lexicon enable
#tile-distribution english
#player1 p1 p1
#player2 p2 p2
#player3 p3 p3
>p1: AAEILOT 8D ALATE +12 12
>p2: AABEIOR 7F AEROBIA +68 68
>p3: ABEMNPT 8L BEAM +40 40
>p1: DEIMORU E8 .EMUROID +72 84
>p2: ADHRUWY K3 HYDR.A +35 103
>p3: DINPRTX 9M XI +36 76
>p1: GHILOQS 15C OL.ISH +33 117
>p2: EINOUVW 12A WIVE.N +32 135
>p3: DINPRTT A11 T.IRP +30 106
>p1: ACFGNOQ 6I GA.CON +29 146
>p2: EEGNOTU M8 ..OGEN +28 163
>p3: DNNOTUY L12 DOTY +32 138
>p1: FINOPQU D3 QUINO. +30 176
>p2: ADEFTUW 15K W.TED +36 199
>p3: CIKLNNU 3J C.INK +28 166
>p1: AFIJPRS O1 RASP +42 218
>p2: AEEFLRU 3C E.UAL +30 229
>p3: ??ELNOU 1H LONgUEu. +71 237
>p1: EFIJSTV 5A JIV.EST +34 252
>p2: EEFRSTZ A5 .EEZ +60 289
>p3: G 7C G. +5 242
>p3: (FFRST) +22 264
"""


def test_gcg_cgp_and_analyze_of_a_three_player_record(capsys, tmp_path):
    path = tmp_path / "three.gcg"
    path.write_text(THREE, encoding="utf-8")
    code, out, err = run(capsys, "gcg", "cgp", path, "--turn", 20)
    assert code == 0 and out.strip().endswith("EEFRSTZ// 229/237/252 0 lex enable; rsz 7/1/1;")
    pos = Position.from_cgp(out.strip())
    assert pos.rack_sizes == (7, 1, 1) and not pos.is_over and "rsz" not in dict(pos.opcodes)
    code, out, err = run(capsys, "gcg", "cgp", path, "--turn", 21)
    assert code == 0 and Position.from_cgp(out.strip()).rack_sizes == (1, 1, 4)
    code, out, err = run(capsys, "analyze", path)
    assert code == 0 and "game_over" not in out and "game is over" not in out


def test_two_player_games_write_no_rsz_and_keep_the_default_rule():
    g = Game("english", seed=3)
    p, v = BestScorePlayer(), GameView(g)
    while not g.over:
        pos = v.position
        assert pos._sizes is None and "rsz" not in pos.cgp()  # (the common path)
        assert pos.rack_sizes == seats_sizes(g)
        g.play(p.choose(v))
    rp = replay_text(g.gcg())
    assert not any("rsz" in rp.cgp(t.number) for t in rp.turns)


# --- the sizes given: checked, and kept ---------------------------------------------------------------------------

def three_racks(sizes=(7, 1, 1)) -> Position:
    """A 3-player position at the end of three.gcg's turn 19: EEFRSTZ to move, two racks not known."""
    rp = replay_text(THREE)
    pos = rp.position(20)
    return Position(pos.ruleset, pos.board, pos.racks, pos.scores, pos.zero_turns, pos.opcodes,
                    racks_known=pos.racks_known, rack_sizes=sizes)


def test_rack_sizes_given_are_checked():
    pos = three_racks()
    assert pos.rack_sizes == (7, 1, 1) and default_rule(pos).rack_sizes == (7, 2, 0)
    assert three_racks((None, 1, 1)).rack_sizes == (7, 1, 1)
    assert three_racks((7, 2, None)).rack_sizes == (7, 2, 0) and three_racks((7, 2, None))._sizes is None
    for sizes, words in [
        ((7, 1), "rack_sizes must be one size a rack (3)"),
        ((7, 1, -1), "a whole number of tiles (0 or more)"),
        ((7, 1, 1.0), "a whole number of tiles"),
        ((7, "1", 1), "a whole number of tiles"),
        ((6, 1, 1), "rack 1 is known, EEFRSTZ, so it holds 7 tiles, not 6"),
        ((7, 8, 0), "rack 2 holds 8 tiles; a rack holds at most 7"),
        ((7, 2, 1), "the racks not known hold 3 tiles besides those of them known, but only 2 tiles are unseen"),
        ("711", "rack_sizes must be one size a rack"),
    ]:
        with pytest.raises(PositionError, match=words.replace("(", r"\(").replace(")", r"\)")):
            three_racks(sizes)
    board = three_racks().board
    racks = (Position.empty("english").ruleset.alphabet.rack("EEFRSTZ"), (7,), ())  # rack 2: a G known
    with pytest.raises(PositionError, match=r"rack 2 holds 0 tiles, fewer than the 1 of it that are known"):
        Position("english", board, racks, (0, 0, 0), racks_known=(True, False, False), rack_sizes=(7, 0, 2))
    p = Position("english", board, racks, (0, 0, 0), racks_known=(True, False, False), rack_sizes=(7, 1, 1))
    assert p.racks_known == (True, True, False) and p.rack_sizes == (7, 1, 1)  # (its G is all it holds)


def test_sizes_given_go_through_copies_pickles_snapshots_push_and_pop():
    pos = three_racks()
    for other in (pos.copy(), copy.copy(pos), copy.deepcopy(pos), pickle.loads(pickle.dumps(pos)), eval(repr(pos))):
        assert other == pos and other.rack_sizes == (7, 1, 1) and not other.is_over
    moves = pos.moves()
    assert len(moves) == 410 and moves.position.rack_sizes == (7, 1, 1) and moves[0].position.rack_sizes == (7, 1, 1)
    assert pos != default_rule(pos)
    before = pos.cgp()
    pos.push("A5 (J)EEZ")  # the known mover: 3 tiles, none drawn
    assert pos.rack_sizes == (1, 1, 4) and pos.bag_count == 0 and not pos.is_over
    u = pos.push("7C G(O)")  # a mover not known: he goes out
    assert u.sizes == (1, 1, None) and pos.rack_sizes == (1, 4, 0) and pos.is_over
    assert pos.outcome().ending.player == 2
    pos.pop()
    assert pos.rack_sizes == (1, 1, 4) and not pos.is_over
    pos.push("-")  # a pass of a mover not known: his size stays
    assert pos.rack_sizes == (1, 4, 1) and pos.racks_known == (False, True, False)
    assert Position.from_cgp(pos.cgp()).rack_sizes == (1, 4, 1)
    pos.pop()
    pos.pop()
    assert pos.cgp() == before and pos.rack_sizes == (7, 1, 1)


def test_an_old_pickle_without_the_sizes_reads():
    pos = Position.from_cgp(f"{EMPTY15} AEINRST/ 0/0 0")
    state = pos.__getstate__()
    del state["_sizes"], state["_set_at"]
    q = Position.__new__(Position)
    q.__setstate__(state)
    assert q == pos and q.rack_sizes == (7, 7) and q.cgp() == pos.cgp()


def test_the_rsz_opcode():
    pos = three_racks()
    text = pos.cgp()
    assert text.endswith("lex enable; rsz 7/1/1;") and text.count("rsz") == 1
    q = Position.from_cgp(text)
    assert q.opcodes == pos.opcodes and q.cgp() == text  # (read, not kept among the opcodes)
    head = text.rsplit(" rsz", 1)[0]
    assert Position.from_cgp(head).rack_sizes == (7, 2, 0)  # without it, the default rule
    # a known rack written whole, one known in part written as its known tiles
    part = Position.from_cgp(head.replace("EEFRSTZ//", "EEFRSTZ/G/") + " rsz 7/1/1;")
    assert part.racks_known == (True, True, False)  # (the G is all of rack 2)
    part = Position.from_cgp(head.replace("EEFRSTZ//", "EEFRST//") + " rsz 7/1/1;")
    assert part.racks_known == (False, False, False) and part.racks_partial == (True, False, False)
    for value, words in [("7/1", "must give each rack's size, one a rack (3)"), ("7/1/x", "in ASCII digits"),
                         ("7/8/0", "rack 2 holds 8 tiles; a rack holds at most 7"),
                         ("6/1/1", "rack 1 is written with 7 tiles, more than the 6 it holds")]:
        with pytest.raises(CGPError, match=words.replace("(", r"\(").replace(")", r"\)")):
            Position.from_cgp(f"{head} rsz {value};")
    with pytest.raises(PositionError, match="only 2 tiles are unseen"):
        Position.from_cgp(f"{head} rsz 7/2/1;")


# --- 2. a rack set is checked with the board and the other racks; pop after racks were set -------------------------

def test_a_rack_set_with_more_of_a_tile_than_the_set_holds_is_refused():
    pos = Position.empty("english", "AEQRSTZ")
    before = pos.cgp()
    for setting, count in ((lambda: pos.racks.__setitem__(1, "ZZZQQQ?"), 4),
                           (lambda: pos.racks.__setitem__(slice(1, 2), ["QZ"]), 2),
                           (lambda: setattr(pos, "racks", ["AEQRSTZ", "Q"]), 2)):
        with pytest.raises(PositionError, match=rf"^impossible position: {count} 'Q' tiles on the board and racks, "
                                                r"but the english set has only 1$"):
            setting()
        assert pos.cgp() == before and pos.racks[1] == () and pos.racks_known == (True, False)
    with pytest.raises(PositionError, match="impossible position: 3 'Z' tiles"):
        pos.racks[1] = "zz"
    pos.racks[1] = "??"  # (the two blanks: as many as the set holds)
    assert str(pos.racks[1]) == "??"


def test_pop_after_racks_were_set():
    pos = Position.empty("english", "AEQRSTZ")
    pos.racks[1] = "DEILNOU"
    pos.push("8D RATES", draw="AEIOU")  # the mover keeps Q and Z
    pos.racks[1] = "BCDFGHI"  # his rack set anew: Q and Z back among the unseen tiles
    pos.racks[0] = "QZEEEEE"  # ...and given to the other player
    before = pos.cgp()
    with pytest.raises(PositionError, match=r"cannot take back 8D RATES: racks were set after it was pushed, and its "
                                            r"mover's rack before it \(AEQRSTZ\) does not fit them: impossible "
                                            r"position: 2 'Q' tiles"):
        pos.pop()
    assert pos.cgp() == before and len(pos.move_stack) == 1
    pos.racks[0] = "EEEEELM"  # the racks put back where they fit: the mover gets his rack back
    assert pos.pop().move.notation() == "8D RATES"
    assert [str(r) for r in pos.racks] == ["AEQRSTZ", "EEEEELM"] and pos.is_empty
    # a move pushed after the racks were set is taken back as any; one pushed before, where they fit
    pos.push("8D RATES", draw="AEIOU")
    pos.racks[0] = "BCDFGHI"
    pos.push("-")
    pos.pop()
    assert str(pos.racks[0]) == "BCDFGHI"
    pos.pop()
    assert [str(r) for r in pos.racks] == ["AEQRSTZ", "BCDFGHI"] and pos.is_empty and not pos.move_stack


# --- 3. a game ended by going out reads back from its CGP ---------------------------------------------------------

@pytest.mark.parametrize("ruleset, players, seed", [("english", 2, 3), ("russian", 2, 0), ("english", 3, 7)])
def test_a_game_ended_by_going_out_reads_back(ruleset, players, seed):
    g = Game(ruleset, players=players, seed=seed)
    p, v = BestScorePlayer(), GameView(g)
    while not g.over:
        g.play(p.choose(v))
    pos = g.position
    out = pos.outcome()
    assert out is not None and out.ending.reason.name == "OUT"
    q = Position.from_cgp(pos.cgp(), ruleset)
    assert q == pos and eval(repr(pos)) == pos
    assert q.racks_known == (True,) * players and q.is_over and q.outcome().scores == out.scores
    assert q.outcome().ending.player == out.ending.player


def test_an_empty_rack_with_no_tile_unseen_is_known():
    g = Game("english", seed=3)
    p, v = BestScorePlayer(), GameView(g)
    while not g.over:
        g.play(p.choose(v))
    text = g.position.cgp()
    board, racks = text.split()[:2]
    assert racks.endswith("/")  # (the player gone out: empty)
    q = Position.from_cgp(text)
    assert q.racks_known == (True, True) and q.rack_sizes == (len(racks) - 1, 0)
    # with tiles unseen, an empty rack is still one not known
    assert Position.from_cgp(f"{EMPTY15} AEINRST/ 0/0 0").racks_known == (True, False)


def test_an_rsz_opcode_given_among_the_opcodes_is_not_written_stale():
    pos = Position.from_cgp(f"{EMPTY15} AEINRST/ 0/0 0")
    pos.opcodes = (("lex", "NWL20"), ("rsz", "7/1"))
    assert pos.cgp().endswith(" 0/0 0 lex NWL20;")
