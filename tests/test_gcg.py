"""GCG reading and writing: every event kind, notes, errors with line numbers, visitors, round trips."""
from __future__ import annotations

from pathlib import Path

import pytest

from racksmith.errors import GCGError
from racksmith.core.turns import EventKind
from racksmith.formats.gcg import (
    GameBuilder,
    GCGVisitor,
    parse_event,
    parse_gcg,
    read_gcg,
)
from racksmith.core.move import Move
from racksmith.rules.ruleset import get_ruleset

GCG_DIR = Path(__file__).parent / "fixtures" / "gcg"
FIXTURES = sorted(GCG_DIR.glob("*.gcg"))

EVERY_KIND = """\
#character-encoding UTF-8
#player1 doug Doug Smith
#player2 emely Emely Jones
#title   A test game
#lexicon CSW21
#note first note
>doug: AEJNOSV   8D JAVE +34 34
#note a note
  on two lines

>emely: DEIILTZ E5 TIZ +24 24
>emely: DEIILTZ -- -24 0
>doug: ANOSSTU -ANOU +0 34
>emely: DEIILTZ -7 +0 0
>doug: ?SSTTUW - +0 34
>emely: ADEILRT 9F DIAL +10 10
>doug: ?SSTTUW (challenge) +5 39
>doug:  (time) -10 29
>emely: AEILPRT (AEILPRT) -9 1
>doug:  (OPEG) +14 43
"""


def test_fixtures_round_trip_exactly():
    assert len(FIXTURES) == 2
    for path in FIXTURES:
        text = path.read_text(encoding="utf-8")
        game = read_gcg(path)
        assert game.gcg() == text
        assert not game.errors


def test_fixture_contents():
    game = read_gcg(GCG_DIR / "game01_seed1.gcg")
    assert [(p.nick, p.name) for p in game.players] == [("p1", "MAGPIE_static_1"), ("p2", "MAGPIE_static_2")]
    assert game.lexicon_name == "ENABLE15"
    assert game.final_scores() == {"p1": 445, "p2": 516}
    assert len(game.events) == 25
    first = game.events[0]
    assert (first.nick, first.kind, first.rack, first.score, first.total, first.line) == ("p1", EventKind.PLAY, "AEKNOQR", 28, 28, 9)
    assert first.move == Move.parse("8D KRONA")
    last = game.events[-1]
    assert (last.kind, last.tiles, last.rack, last.score, last.total) == (EventKind.OUT, "R", "", 2, 516)
    game7 = read_gcg(GCG_DIR / "game07_seed379.gcg")
    ex = game7.events[0]
    assert (ex.kind, ex.count, ex.move.tiles) == (EventKind.EXCHANGE, 5, tuple(get_ruleset().alphabet.rack("EIOOU")))


def test_every_event_kind():
    game = parse_gcg(EVERY_KIND)
    kinds = [e.kind for e in game.events]
    K = EventKind
    assert kinds == [K.PLAY, K.PLAY, K.PHONY, K.EXCHANGE, K.EXCHANGE, K.PASS, K.PLAY, K.CHALLENGE, K.TIME, K.RACK_PENALTY, K.OUT]
    assert all(type(k) is EventKind for k in kinds)
    ev = game.events
    assert [e.line for e in ev] == [7, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
    assert [(e.score, e.total) for e in ev] == [
        (34, 34), (24, 24), (-24, 0), (0, 34), (0, 0), (0, 34), (10, 10), (5, 39), (-10, 29), (-9, 1), (14, 43)
    ]
    assert ev[4].move is None and ev[4].count == 7  # hidden exchange
    assert ev[3].move == Move.exchange(get_ruleset().alphabet.rack("ANOU")) and ev[3].count == 4
    assert ev[9].tiles == "AEILPRT" and ev[9].rack == "AEILPRT"
    assert ev[10].tiles == "OPEG" and ev[10].rack == ""
    assert ev[8].rack == ""
    assert ev[0].note == "a note\n on two lines"  # (the indentation after the first space is the note's)
    assert game.pragma("title") == "A test game"
    assert game.pragma("note") == "first note"
    assert game.lexicon_name == "CSW21"
    assert [(p.nick, p.name) for p in game.players] == [("doug", "Doug Smith"), ("emely", "Emely Jones")]


def test_written_text_reads_back_the_same():
    game = parse_gcg(EVERY_KIND)
    text = game.gcg()
    again = parse_gcg(text)
    strip = lambda g: [(e.nick, e.kind, e.score, e.total, e.rack, e.move, e.tiles, e.count, e.note) for e in g.events]  # noqa: E731
    assert strip(again) == strip(game)
    assert again.gcg() == text
    assert ">emely: DEIILTZ -7 +0 0" in text
    assert ">doug:  (time) -10 29" in text  # the empty rack field kept: MAGPIE's reader needs it
    assert ">emely: AEILPRT (AEILPRT) -9 1" in text
    assert "#note a note\n  on two lines\n" in text


def test_liberal_whitespace_and_signs():
    e = parse_event(">x:\tAEJNOSV   8d   JAVE   34   34  ", get_ruleset())
    assert (e.kind, e.score, e.total, e.move) == (EventKind.PLAY, 34, 34, Move.parse("8D JAVE"))
    down = parse_event(">x: ABC H8 CAB +10 10", get_ruleset())
    assert not down.move.across
    no_rack = parse_event(">x: 8D JAVE +34 34", get_ruleset())
    assert no_rack.rack == "" and no_rack.kind == EventKind.PLAY
    bracketed = parse_event(">Randy: (U) - +0 380", get_ruleset())
    assert (bracketed.kind, bracketed.rack, bracketed.total) == (EventKind.PASS, "U", 380)
    through = parse_event(">x: AEIQRU 8D QU(I)RK +40 40", get_ruleset())
    assert through.kind == EventKind.PLAY and through.move.notation() == "8D QU(I)RK"


@pytest.mark.parametrize(
    "line, needle",
    [
        (">x: ABC 8D +5 5", "bad coordinate 'ABC'"),
        (">x: ABC 8D WORD +a 5", "score '+a'"),
        (">x: ABC 8D WORD +5 x", "running total 'x'"),
        ("> : ABC 8D WORD +5 5", "'>nick:'"),
        (">x: ABC 8DD WORD +5 5", "bad coordinate '8DD'"),
        (">x: AB1 -AB +0 0", "cannot read the event"),
        (">x: ABC 8D W0RD +5 5", "play"),
        (">x: ABC (A1) +5 5", "end-of-game tiles"),
        (">x: +5 5", "needs an action"),
    ],
)
def test_bad_events_name_the_line(line, needle):
    text = "#player1 x X\n" + line + "\n"
    with pytest.raises(GCGError) as info:
        parse_gcg(text)
    assert info.value.line == 2
    assert needle in info.value.message
    assert str(info.value).startswith("line 2: ")


def test_collecting_errors_keeps_reading():
    text = "#player1 a A\n#player2 b B\n>a: ABC 8D +5 5\ngarbage here\n>c: ABC 8D CAB +10 10\n>b: AEJNOSV 8D JAVE +34 34\n"
    game = parse_gcg(text, strict=False)
    assert [e.line for e in game.errors] == [3, 4, 5]
    assert "not a declared player" in game.errors[2].message
    assert [e.line for e in game.events] == [6]
    with pytest.raises(GCGError) as info:
        parse_gcg(text)
    assert info.value.line == 3


def test_players_found_from_events_when_not_declared():
    game = parse_gcg(">b: AEJNOSV 8D JAVE +34 34\n>a: AB - +0 0\n")
    assert [p.nick for p in game.players] == ["b", "a"]
    assert "#player1 b b\n#player2 a a\n" in game.gcg()  # the nick for the full name, as Macondo writes it


def test_visitor_sees_everything_in_order():
    class Recorder(GCGVisitor):
        def __init__(self):
            self.seen = []

        def visit_pragma(self, name, value, line):
            self.seen.append(("pragma", name, line))

        def visit_event(self, event):
            self.seen.append(("event", event.kind, event.line))

        def visit_note(self, text, line):
            self.seen.append(("note", text, line))

        def handle_error(self, error):
            self.seen.append(("error", error.line))

        def result(self):
            return self.seen

    seen = parse_gcg(EVERY_KIND + "oops\n", visitor=Recorder())
    assert seen[:3] == [("pragma", "character-encoding", 1), ("pragma", "player1", 2), ("pragma", "player2", 3)]
    assert ("note", "first note", 6) in seen
    assert ("note", "a note\n on two lines", 8) in seen
    assert seen[-1] == ("error", 21)
    assert sum(1 for s in seen if s[0] == "event") == 11


def test_encodings_and_bom(tmp_path):
    latin = tmp_path / "latin.gcg"
    latin.write_bytes("#player1 j J\xf6rg\n>j: AEJNOSV 8D JAVE +34 34\n".encode("latin-1"))
    assert read_gcg(latin).players[0].name == "J\u00f6rg"
    bom = tmp_path / "bom.gcg"
    bom.write_bytes(b"\xef\xbb\xbf#player1 j J\n>j: AEJNOSV 8D JAVE +34 34\n")
    assert read_gcg(bom).players[0].nick == "j"
    with pytest.raises(GCGError, match="cannot read GCG file"):
        read_gcg(tmp_path / "missing.gcg")


def test_ruleset_from_tile_distribution():
    text = "#tile-distribution russian\n#player1 a A\n>a: АБВГДЕЖ 8H ДЕД +10 10\n"
    game = parse_gcg(text)
    assert game.ruleset.name == "russian"
    assert game.events[0].move.word == "ДЕД"
    with pytest.raises(GCGError, match=r"line 1: '#tile-distribution klingon' names no ruleset racksmith knows"):
        parse_gcg("#tile-distribution klingon\n", strict=False)  # was silently English
    assert parse_gcg("#player1 a A\n").ruleset.name == "english"  # no pragma: English
    assert parse_gcg("#board-layout SuperCrosswordGame\n#tile-distribution english_super\n").ruleset.name == "super"
    with pytest.raises(GCGError, match="no ruleset that plays those tiles on that board"):  # (as a CGP's bdn and ld)
        parse_gcg("#board-layout SuperCrosswordGame\n#tile-distribution english\n")
    assert parse_gcg("#tile-distribution english_super\n").ruleset.name == "super"
    assert parse_gcg("#tile-distribution Russian-Scrabble\n").ruleset.name == "russian"
    assert parse_gcg("#tile-distribution erudit\n", "english").ruleset.name == "english"  # an explicit ruleset wins


def test_game_builder_strict_flag():
    assert GameBuilder(strict=False).strict is False
    game = parse_gcg(">x: 8D +5 5\n", visitor=GameBuilder(strict=False))
    assert len(game.errors) == 1 and not game.events


@pytest.mark.parametrize("text, hint", [(None, "got NoneType"), (b">a: 8H AB +4 4", "decode_gcg"), (42, "got int")])
def test_text_that_is_not_a_str_is_named(text, hint):
    from racksmith.review.replay import replay_text

    for read in (parse_gcg, replay_text):  # an AttributeError ('lstrip') once
        with pytest.raises(GCGError, match="GCG text must be a str") as info:
            read(text)
        assert hint in str(info.value)


# --- malformed event lines, the order of the players, played-through letters -----------------------
DOUG_V_EMELY = GCG_DIR / "macondo" / "doug_v_emely.gcg"


def test_a_missing_running_total_or_text_after_it_is_named_and_the_play_still_read():
    text = DOUG_V_EMELY.read_text(encoding="utf-8")
    bad = text.replace("7C GALE +16 16", "7C GALE +16").replace("F2 VOX +39 55", "F2 VOX +39 55 VOX,JOX")
    with pytest.raises(GCGError, match="the running total is missing") as info:
        parse_gcg(bad)
    assert info.value.line == 4
    with pytest.raises(GCGError, match="text after the running total 55: 'VOX,JOX'") as info:
        parse_gcg(bad.replace("7C GALE +16\n", "7C GALE +16 16\n"))
    assert info.value.line == 6
    game = parse_gcg(bad, strict=False)
    assert [e.line for e in game.errors] == [4, 6]
    assert "score 'GALE'" not in game.errors[0].message
    # both plays are kept (the total the earlier ones imply), so the later lines replay
    assert [(e.line, e.move.notation(), e.total) for e in game.events if e.line in (4, 6)] == [
        (4, "7C GALE", 16), (6, "F2 VOX", 55)]
    from racksmith.review.replay import replay

    r = replay(game, strict=False)
    assert [e.line for e in r.errors] == [4, 6] and r.final_scores() == {"doug": 451, "emely": 345}


def test_player1_is_written_first():
    game = parse_gcg("#player2 b Bob\n#player1 a Alice\n>a: AEINRST 8D RETAINS +66 66\n")
    out = game.gcg().splitlines()
    assert out[1:3] == ["#player1 a Alice", "#player2 b Bob"]
    assert [p.nick for p in parse_gcg(game.gcg()).players] == ["a", "b"]


def test_played_through_letters_are_written_as_the_record_wrote_them():
    """A letter played through that is not the board's stays in the record racksmith writes, so
    the written record is as inconsistent as the one read (it was turned into '.')."""
    from racksmith.review.replay import replay_text

    text = (GCG_DIR / "game07_seed379.gcg").read_text(encoding="utf-8")
    bad = text.replace(">p2: AEFIIOU D8 FO.IA +24 137", ">p2: AEFIIOU D8 FO(X)IA +24 137")
    out = parse_gcg(bad).gcg()
    assert ">p2: AEFIIOU D8 FO(X)IA +24 137" in out
    with pytest.raises(GCGError, match=r"FO\(X\)IA .*holds 'L'"):
        replay_text(out)
    assert ">p2: AEFIIOU D8 FO.IA +24 137" in parse_gcg(text).gcg()


# --- a record that names no ruleset, read with another default -------------------------------------
RU_RECORD = "#player1 a A\n#player2 b B\n>a: АБВЛОКА 8D ВОБЛА +{score} {score}\n"


@pytest.mark.parametrize("default, score", [("russian", 18), ("erudit", 11)])
def test_a_cyrillic_record_naming_no_ruleset_is_read_with_a_cyrillic_default(default, score):
    """The column letter of '8D' (Latin in every ruleset) and the words of '(challenge)' and
    '(time)' are no tiles: only racks, words and tiles count against the default's letters."""
    from racksmith.web import Analyzer

    text = RU_RECORD.format(score=score)
    answer = Analyzer(default).gcg({"text": text, "analyze": False})
    assert answer["ruleset"] == default and answer["final_scores"] == [score, 0] and answer["errors"] == []
    more = text + ">b: ГДЕЖЗИК -ГД +0 0\n>a: ЕЕЕЕЕЕЕ (time) -10 {0}\n>b: UNKNOWN (challenge) +5 5\n".format(score - 10)
    game = parse_gcg(more, default=default)
    assert game.ruleset.name == default and len(game.events) == 4
    with pytest.raises(GCGError, match=rf"its letters Q are not letters of {default}: pass the ruleset to use "
                                       r"\(english or super\)"):
        parse_gcg(more.replace("-ГД", "-ГQ"), default=default)


def test_a_cyrillic_record_under_the_english_default_still_names_the_cyrillic_rulesets():
    with pytest.raises(GCGError, match=r"the record names no ruleset \(no #lexicon or #tile-distribution\), and its "
                                       r"letters А, Б, В, Л, О, К are not English: pass the ruleset to use "
                                       r"\(russian or erudit\)"):
        parse_gcg(RU_RECORD.format(score=18))


@pytest.mark.parametrize("name", ["Russian", "RUS"])
def test_a_lexicon_racksmith_does_not_know_is_named(name):
    text = f"#lexicon {name}\n" + RU_RECORD.format(score=18)
    with pytest.raises(GCGError) as info:
        parse_gcg(text)
    message = str(info.value)
    assert f"the record's '#lexicon {name}' is no lexicon racksmith knows" in message
    assert "names no ruleset" not in message and "pass the ruleset to use (russian or erudit)" in message
    assert info.value.line == 4 and info.value.param == "ruleset"
    assert parse_gcg(text, default="russian").ruleset.name == "russian"  # the default's letters: read with it
