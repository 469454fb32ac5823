"""What a replay makes of records as Woogles.io and annotators write them: the end position of an
unfinished record keeps the racks that follow from it (the bag empty), a position's CGP names the
record's ``#lexicon``, and a rack line the record contradicts is set aside without stopping the
replay (the board and scores after it are the game's)."""
from __future__ import annotations

from collections import Counter

import pytest
from conftest import FIXTURES

from racksmith.cli.main import main
from racksmith.core.position import Position
from racksmith.errors import GCGError
from racksmith.review.replay import replay_text

GAME01 = (FIXTURES / "gcg" / "game01_seed1.gcg").read_text(encoding="utf-8")
GAME07 = (FIXTURES / "gcg" / "game07_seed379.gcg").read_text(encoding="utf-8")

#: a Woogles.io game (HastyBot v marvin, CSW24) stopped after marvin's H12 A.ON: the bag is empty
WOOGLES_UNFINISHED = """\
#character-encoding UTF-8
#description Created with Macondo
#id io.woogles SUKyN5ec
#lexicon CSW24
#player1 HastyBot HastyBot
#player2 marvin Amit Ch
>HastyBot: DIOTTUV 8D DIVOT +22 22
>marvin: ABHNNXY F8 .AX +29 29
>HastyBot: JNOTUVY 7G JUNTO +40 62
>marvin: BEHNNTY 8K HENNY +41 70
>HastyBot: IILOUVY 9F .YU +30 92
>marvin: BEFORTU 6K FORB +24 94
>HastyBot: AAIILOV N8 .OVALIA +36 128
>marvin: AEENSTU D1 UNSEATE. +70 164
>HastyBot: EEIKLSU E10 EUK +23 151
>marvin: AEGGIRS 13E SAGGIER +70 234
>HastyBot: AEFILRS 4C S.RAFILE +62 213
>marvin: ACENQSW 1C Q.ENAS +45 279
>HastyBot: AEHIOOT D10 HOO +39 252
>marvin: CEIPPRW 3J WIPER +25 304
>HastyBot: AEGIIMT 2B MI.AE +35 287
>marvin: CDIMNPT L1 DI.T +18 322
>HastyBot: ?GIILLT 1L .ILL +15 302
>marvin: BCEMNOP J10 MOB. +14 336
>HastyBot: ??GITTZ O13 TIZ +40 342
>marvin: CDDENPR K11 DE.P +24 360
>HastyBot: ??EGRTW M12 EWT +29 371
>marvin: ACCDNOR H12 A.ON +18 378
"""
#: the same game on to the record's end: HastyBot's play withdrawn, marvin passing
WOOGLES_PASSED = WOOGLES_UNFINISHED + """\
>HastyBot: ??EGR 2I hEG.Ra +32 403
>HastyBot: ??EGR -- -32 371
>marvin: CCDR - +0 378
"""
END_BOARD = ("2QUENAS3DILL/1MINAE5I3/3S5WIPER1/2SERAFILE1T3/3A11/3T6FORB1/3E2JUNTO4/3DIVOT2HENNY/5AYU5O1/"
             "3HEX3M3V1/3OU4OD2A1/3OK2A1BE1EL1/4SAGGIER1WIT/7O2P1TAI/7N6Z")


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def _run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# --- 1. the end position of an unfinished record --------------------------------------------------

@pytest.mark.parametrize("text, zero_turns", [(WOOGLES_UNFINISHED, 0), (WOOGLES_PASSED, 2)])
def test_the_end_of_an_unfinished_record_with_the_bag_empty_knows_the_racks_that_follow(text, zero_turns):
    """marvin's whole rack ACCDNOR is on his last line and the bag is empty: he kept CCDR (no draw
    possible), and HastyBot holds the tiles unseen, ??EGR (as the position before turn 22 shows)."""
    r = replay_text(text)
    a = r.ruleset.alphabet
    pos = r.position()
    assert pos.bag_count == 0 and not r.over
    assert pos.racks_known == (True, True) and pos.rack_sizes == (5, 4)
    assert Counter(pos.racks[0]) == Counter(a.rack("??EGR")) and Counter(pos.racks[1]) == Counter(a.rack("CCDR"))
    assert r.cgp() == f"{END_BOARD} EGR??/CCDR 371/378 {zero_turns} lex CSW24;"
    assert r.cgp(22).split()[1] == "ACCDNOR/EGR??"  # (before marvin's last turn: as it was)
    back = Position.from_cgp(r.cgp())  # read back: both racks known, the game's end position
    assert back.racks_known == (True, True) and back == pos


def test_gcg_cgp_writes_the_end_racks_and_the_web_api_s_end_cgp_too(tmp_path, capsys):
    from racksmith.web import Analyzer

    game = tmp_path / "w1h.gcg"
    game.write_text(WOOGLES_UNFINISHED, encoding="utf-8")
    code, out, err = _run(capsys, "gcg", "cgp", game)
    assert code == 0 and out.strip() == f"{END_BOARD} EGR??/CCDR 371/378 0 lex CSW24;"
    assert "does not show the whole rack" not in err
    answer = Analyzer("english", None, None).gcg({"text": WOOGLES_PASSED, "analyze": False})
    assert answer["end_cgp"] == f"{END_BOARD} EGR??/CCDR 371/378 2 lex CSW24;"


def test_no_rack_is_made_up_when_it_does_not_follow():
    """marvin's last rack written in part (the tiles played, as annotators write an opponent's):
    what he kept is not known, so neither is HastyBot's rack (HastyBot drew at his last turn)."""
    r = replay_text(_edit(WOOGLES_UNFINISHED, ">marvin: ACCDNOR H12", ">marvin: AON H12"))
    pos = r.position()
    assert pos.racks_known == (False, False) and [len(rack) for rack in pos.racks] == [0, 0]
    assert pos.bag_count == 0 and sum(pos.rack_sizes) == 9
    assert r.cgp().split()[1] == "/"


def test_a_pass_keeps_the_rack_it_shows_while_the_bag_has_tiles():
    """The bag not empty: p1 passed with his whole rack recorded, so that is his rack at the end;
    p2 drew after his play: his rack is not known (the tiles unseen are more than one rack)."""
    r = replay_text("\n".join(GAME01.splitlines()[:10]) + "\n>p1: BEIOQUV - +0 28\n")
    pos = r.position()
    assert pos.bag_count > 0
    assert pos.racks_known == (False, True)
    assert Counter(pos.racks[1]) == Counter(r.ruleset.alphabet.rack("BEIOQUV"))


# --- 2. the record's #lexicon in the CGP ----------------------------------------------------------

NWL20_RECORD = """\
#character-encoding UTF-8
#description Created with Macondo
#id io.woogles Xy7kQ2PmA9bcDe3F
#lexicon NWL20
#player1 cesar César Del Solar
#player2 BestBot BestBot
>cesar: ENNOQRZ 8D ZONER +48 48
>BestBot: BENSSVW E7 W.VENS +24 24
>cesar: BDINOQX 9E .XO +26 74
>cesar: BDINOQX -- -26 48
>BestBot: ABELRST 8A BLA..... +57 81
"""


def test_gcg_cgp_names_the_record_s_lexicon_and_reading_it_back_says_it_is_not_shipped(tmp_path, capsys):
    game = tmp_path / "w3.gcg"
    game.write_text(NWL20_RECORD, encoding="utf-8")
    code, out, _ = _run(capsys, "gcg", "cgp", game, "--turn", "3")
    cgp = out.strip()
    assert code == 0 and cgp.endswith(" BDINOQX/ABELRST 48/24 0 lex NWL20;")
    assert Position.from_cgp(cgp).opcodes == (("lex", "NWL20"),)
    code, out, err = _run(capsys, "moves", cgp, "--top", "1")
    assert code == 0 and "the CGP names lexicon NWL20; moves are made and checked with enable" in err


def test_a_record_without_a_lexicon_writes_no_lex():
    text = "".join(line + "\n" for line in GAME01.splitlines() if not line.startswith("#lexicon"))
    r = replay_text(text)
    assert r.opcodes == () and r.cgp(2) == "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 CEIRSTU/BEIOQUV 0/28 0"


def test_a_lexicon_no_cgp_reader_takes_for_the_ruleset_is_left_out():
    """A Polish lexicon's name makes a CGP reader refuse the line (racksmith ships no Polish tiles):
    the English record's positions do not carry it; nor a name of two words."""
    for name in ("OSPS49", "NWL 2020"):
        text = _edit(GAME01, "#lexicon ENABLE15", f"#lexicon {name}")
        r = replay_text(text)
        assert r.opcodes == () and r.cgp(2).endswith(" 0/28 0")
        Position.from_cgp(r.cgp(2))


# --- 3. a rack line the record contradicts ----------------------------------------------------------

@pytest.mark.parametrize(
    "text, old, new, turn, needle",
    [
        # the rack lacks the E p1 kept from his KRONA (and BO.QUE plays it)
        (GAME01, ">p1: BEIOQUV", ">p1: BDIOQUV", 3, "rack BDIOQUV lacks E, kept from p1's previous turn"),
        # the rack lacks the R that KRONA plays (the first turn: nothing kept to compare)
        (GAME01, ">p1: AEKNOQR 8D", ">p1: AEKNOQS 8D", 1, "rack AEKNOQS lacks R, which 8D KRONA plays (not_in_rack)"),
        # the rack holds a Z when the only Z is on the board (ZOW.E)
        (GAME01, ">p1: DEEILRT 14J", ">p1: DEEILRZ 14J", 21,
         "rack DEEILRZ holds Z, more than the set has left after the tiles on the board"),
    ],
)
def test_a_rack_line_the_record_contradicts_is_set_aside_and_the_game_goes_on(text, old, new, turn, needle):
    good = replay_text(text)
    r = replay_text(_edit(text, old, new), strict=False)
    t = r.turns[turn - 1]
    assert [e.message for e in r.errors] == [t.rack_slip] and needle in t.rack_slip
    assert "the rack line is set aside" in t.rack_slip
    assert [(s.line, s.player) for s in r.rack_slips] == [(t.line, t.player)] and r.rack_errors() == r.errors
    assert not t.rack_complete and r.position(turn).racks_known[0] is False
    # the board and scores are the game's at every turn after it, and at the end
    for u, g in zip(r.turns[turn:], good.turns[turn:]):
        assert (u.board == g.board).all() and u.scores == g.scores and u.rack_complete == g.rack_complete
        assert r.errors_before(u.number) == [] and r.position(u.number) == good.position(u.number)
    assert r.final_scores() == good.final_scores() and r.over and not r.lacking
    assert r.errors_before() == []
    # the turn before it does not take the contradicted rack as the opponent's
    if turn > 1:
        assert r.turns[turn - 2].opponent_rack is None
    with pytest.raises(GCGError, match="the rack line is set aside") as info:
        replay_text(_edit(text, old, new))  # strict: raised at its line
    assert info.value.line == t.line


def test_an_exchange_the_rack_line_does_not_hold_is_set_aside():
    """p2's first rack written FJLRRRA: it lacks the T his -FJLRRT gives back (an exchange puts
    nothing on the board: the game goes on as recorded)."""
    good = replay_text(GAME07)
    r = replay_text(_edit(GAME07, ">p2: FJLRRRT -FJLRRT", ">p2: AFJLRRR -FJLRRT"), strict=False)
    t = r.turns[1]
    assert [(e.line, e.message) for e in r.errors] == [(10, t.rack_slip)]
    assert t.rack_slip.startswith("exchange -FJLRRT: rack AFJLRRR does not hold T")
    assert r.rack_errors() == r.errors and not t.rack_complete and r.turns[0].opponent_rack is None
    assert r.final_scores() == good.final_scores() and (r.board == good.board).all()
    assert all(u.rack_complete for u in r.turns[2:] if u.player == 1)  # (nothing kept is compared with it)


def test_a_play_not_legal_on_the_board_still_stops_the_game():
    """Set aside is only the rack line: a play that the tiles unseen cannot make, or that the
    board refuses, is the error it was (the board after it is not the game's)."""
    r = replay_text(_edit(GAME01, ">p1: AEKNOQR 8D KRONA", ">p1: AEKNOQS 8A KRONA"), strict=False)
    assert r.errors and r.errors[0].line == 9 and "must_cover_start" in r.errors[0].message
    assert r.rack_slips == [] and r.errors_before(5) != []
    # a tile the rack lacks, and a score that is not the play's: the play line is wrong, not the rack
    r = replay_text(_edit(GAME01, "8D KRONA +28", "8D KRONAX +28"), strict=False)
    assert r.errors[0].line == 9 and r.errors[0].message.startswith("illegal play 8D KRONAX (not_in_rack)")
    assert r.rack_slips == [] and r.errors_before(5) != [] and not r.turns[1].board.any()  # (not played)


def test_gcg_cgp_after_a_set_aside_rack_line_writes_the_position_with_a_note(tmp_path, capsys):
    game = tmp_path / "typo.gcg"
    game.write_text(_edit(GAME01, ">p1: BEIOQUV", ">p1: BDIOQUV"), encoding="utf-8")
    good = replay_text(GAME01)
    code, out, err = _run(capsys, "gcg", "cgp", game, "--turn", "10")
    assert code == 0 and out.strip() == good.cgp(10)
    assert "1 rack line before this position that the record contradicts: line 11" in err
    assert "the board and scores here are the game's" in err
    code, out, err = _run(capsys, "gcg", "cgp", game, "--turn", "3")
    assert code == 0 and out.split()[1] == "/" + good.cgp(3).split()[1].split("/")[1]
    assert "records a rack for the player to move here that the record contradicts (line 11)" in err
    code, out, err = _run(capsys, "gcg", "cgp", game)
    assert code == 0 and out.strip() == good.cgp()
