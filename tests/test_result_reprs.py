"""Results in a REPL and a notebook: every result class has a one-line ``repr`` (the dataclass
dumps were 3 to 130 KB: a Replay held every turn's board) and a ``_repr_html_`` table like the one
the command line prints, well-formed, with every text from a record escaped, and a GameView's
showing no tile its player may not see."""
from __future__ import annotations

import json
import pickle
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from racksmith import Game, GameView, Position
from racksmith.formats import html
from racksmith.review.analysis import analyze
from racksmith.review.replay import replay_file, replay_text

FIX = Path(__file__).parent / "fixtures"
MID = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/ 28/18 0"
KRONA = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0"
END21 = next(r for r in map(json.loads, (FIX / "endgames_magpie.jsonl").read_text().splitlines())
             if r["id"] == "end_s350_t21")["cgp"]
PEG141 = ("11QUID/5H7M1/2UNJOINT4A1/4IT7G1/4L8E1/3CLOWN1HANGS1/6OURIE4/3CRYPTo2VAIL/8BAP2m1/8ABA2M1/8NOW2E1/"
          "8D4N1/1KIEF1DASTARDS1/4OXO6E1/FORGE1SLEAZY3 EEIIRTU/EEEIRTV 304/425 0")
EVIL = "<script>x</script>"


def parsed(markup: str) -> ET.Element:
    """The HTML parsed as XML (it must be well-formed: every tag closed, no entity but XML's)."""
    return ET.fromstring(f"<div>{markup}</div>")


def shown_text(markup: str) -> str:
    return " ".join(t.strip() for t in parsed(markup).itertext() if t.strip())


def check_repr(obj, *parts: str) -> str:
    r = repr(obj)
    assert "\n" not in r and len(r) < 200, r
    for p in parts:
        assert p in r, (p, r)
    return r


@pytest.fixture(scope="module")
def evil_record() -> str:
    pos = Position.empty("english", "AEKNOQR")
    score = pos.score("8H KOAN").score
    return (f"#player1 {EVIL} Evil & Co\n#player2 bob Bob\n"
            f">{EVIL}: AEKNOQR 8H KOAN +{score} {score}\n>bob: EIRSTU? - +0 0\n")


# --- the shared helper ----------------------------------------------------------------------------
def test_html_table_escapes_aligns_and_caps_rows():
    rows = [(i, f"<b>{i}</b>", 1.5, None, True) for i in range(1, 131)]
    t = html.table(("#", "text & more", "x", "none", "flag"), rows, right=(2,), caption="a <caption>", limit=100)
    root = parsed(t)
    body = root.find("table/tbody")
    assert len(body) == 100 and "… and 30 more" in shown_text(t)
    first = [td.text for td in body[0]]
    assert first == ["1", "<b>1</b>", "1.50", None, "yes"]  # the cell's text is the text given, not markup
    assert "&lt;b&gt;1&lt;/b&gt;" in t and "<b>1</b>" not in t
    assert "a &lt;caption&gt;" in t and "text &amp; more" in t
    assert 'text-align:right;padding:1px 6px">1<' in t  # numbers to the right, text to the left
    assert 'text-align:left;padding:1px 6px">&lt;b&gt;' in t
    assert html.table(("a",), iter([(1,), (2,)]), limit=1).count("<tr>") == 2  # header and one row
    assert "… and 1 more" in html.table(("a",), iter([(1,), (2,)]), limit=1)
    assert html.table(("a",), [(html.Raw("<i>kept</i>"),)]).count("<i>kept</i>") == 1
    assert html.signed(-0.001) == "+0.00" and html.figure(float("nan")) == "-" and html.cell(1234567) == "1,234,567"


# --- simulation, inference ------------------------------------------------------------------------
def test_sim_result_repr_and_table():
    r = Position.from_cgp(MID).simulate(candidates=4, iterations=120, seed=3)
    best = r.best
    check_repr(r, "<SimResult 4 candidates, 2 plies, 120 iterations", f"best {best.move.notation()} win {best.win_pct:.1f}%")
    h = r._repr_html_()
    text = shown_text(h)
    assert parsed(h).find(".//table/tbody") is not None and len(parsed(h).find(".//table/tbody")) == 4
    for c in r.candidates:
        assert c.move.notation() in text and f"{c.win_pct:.2f}" in text and f"{c.iterations:,}" in text
    assert "120 iterations" in text and f"seed {r.seed}" in text
    # the repr is the class's own: pickling and equality are the dataclass's as before
    assert pickle.loads(pickle.dumps(r)) == r


def test_inference_repr_and_table():
    from racksmith.sim.infer import infer_leaves

    inf = infer_leaves(Position.from_cgp(KRONA), "8D KRONA")
    top = inf.leaves[0]
    check_repr(inf, f"<Inference after 8D KRONA: {len(inf.leaves):,} leaves, exact",
               f"likeliest {top.leave} {100 * top.probability:.1f}%")
    assert len(repr(inf)) < 100  # (the dataclass's was 24 KB)
    h = inf._repr_html_()
    text = shown_text(h)
    assert str(top.leave) in text and f"{100 * top.probability:.2f}" in text
    assert f"… and {len(inf.leaves) - 100:,} more" in text  # 226 leaves: the first 100 shown
    assert "letters kept" in text and inf.letters()[0].letter in text
    assert pickle.loads(pickle.dumps(inf)) == inf


# --- endgame, pre-endgame, best play --------------------------------------------------------------
def test_endgame_result_repr_and_table():
    r = Position.from_cgp(END21).solve_endgame(plies=2, top=3)
    check_repr(r, f"<EndgameResult value {r.value:+d}, not exact, best {r.best.notation()}",
               f"line of {len(r.pv)} moves", "depth 2")
    h = r._repr_html_()
    text = shown_text(h)
    assert r.best.notation() in text and f"{r.value:+d}" in text and "not exact" in text
    assert len(parsed(h).find(".//table/tbody")) == 3 and " ".join(m.notation() for m in r.pv) in text
    assert f"{r.nodes:,} nodes" in text


def test_peg_result_table():
    r = Position.from_cgp(PEG141).solve_peg(3)
    check_repr(r, "PegResult(best='K1 ETUI'")  # (its repr was one line already; tests/test_endgame.py holds it)
    h = r._repr_html_()
    text = shown_text(h)
    assert len(parsed(h).find(".//table/tbody")) == len(r.plays)
    assert "K1 ETUI" in text and f"{100 * r.plays[0].win_probability:.2f}" in text
    shown = [f"{k}:{v:+d}" for p in r.plays for k, v in p.outcomes[:1]]
    shown += [f"{k}:<={hi:+d}" for p in r.plays for k, lo, hi in p.bounds[:1] if lo is None and hi is not None]
    assert shown and all(s in text for s in shown)  # the final spread by bag tile


def test_best_play_repr_and_table():
    three = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEKNORS/EEIRSTU/ABCDEFG 0/0/0 0")
    b = three.best_play(seconds=1)
    check_repr(b, f"<BestPlay {b.move.notation()} by static equity")
    assert len(b.summary) > 100 and repr(b).endswith("…>")  # the summary cut to fit one line
    h = b._repr_html_()
    text = shown_text(h)
    assert f"best: {b.move.notation()}" in text and "for two players" in text
    sim = Position.from_cgp(MID).best_play(seconds=0.3, seed=1)
    assert sim.method == "sim"
    check_repr(sim, f"<BestPlay {sim.move.notation()} by simulation")
    h = sim._repr_html_()
    assert "simulation" in shown_text(h) and len(parsed(h).find(".//table/tbody")) == len(sim.result.candidates)


# --- replay, analysis -----------------------------------------------------------------------------
def test_replay_and_analysis_reprs_are_one_short_line():
    r = replay_file(FIX / "gcg" / "game01_seed1.gcg")
    check_repr(r, "<Replay 24 turns, complete, errors 0; final p1 ")
    a = analyze(r, None, top=2, endgame_seconds=None)
    check_repr(a, "<Analysis 24 turns, 2 players, lexicon ")


def test_replay_and_analysis_tables(evil_record):
    r = replay_file(FIX / "gcg" / "game01_seed1.gcg")
    h = r._repr_html_()
    text = shown_text(h)
    assert len(parsed(h).find(".//table/tbody")) == 24 and "complete" in text
    first = r.turns[0]
    assert first.event.action() in text and str(first.rack) in text
    a = analyze(r, None, top=2, endgame_seconds=None)
    h = a._repr_html_()
    root = parsed(h)
    tables = root.findall(".//table")
    assert len(tables[0].find("tbody")) == 24  # a row a turn
    assert [th.text for th in tables[0].find("thead/tr")][:9] == ["turn", "player", "rack", "move", "score", "equity",
                                                                  "rank", "lost", "best"]
    t = a.turns[0]
    row = [td.text or "" for td in tables[0].find("tbody")[0]]
    assert row[:4] == ["1", t.player, t.rack, t.played] and row[6] == f"{t.rank} of {t.moves}"
    assert row[8].startswith(t.best[0].notation)
    players = tables[-1]
    assert [tr[0].text for tr in players.find("tbody")] == r.players  # the summary per player
    # a record's texts are escaped: a nick that is markup shows as text
    evil = replay_text(evil_record)
    for markup in (evil._repr_html_(), analyze(evil, None, top=1, endgame_seconds=None)._repr_html_()):
        assert "<script>" not in markup and "&lt;script&gt;x&lt;/script&gt;" in markup
        assert EVIL in shown_text(markup)


def test_an_analysis_table_is_quick():
    import time

    a = analyze(replay_file(FIX / "gcg" / "game07_seed379.gcg"), None, top=3, endgame_seconds=None)
    start = time.perf_counter()
    for _ in range(10):
        a._repr_html_()
    assert (time.perf_counter() - start) / 10 < 0.05


# --- games ----------------------------------------------------------------------------------------
def test_game_shows_every_rack_and_a_view_only_its_own():
    game = Game.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/PQUVWXY 0/0 0", seed=1,
                         players=["al", "bo"])
    check_repr(game, "<Game english: al 0, bo 0")
    view = GameView(game)
    check_repr(view, "<GameView of al (seat 0): english", "scores al 0, bo 0")
    full, seen = game._repr_html_(), view._repr_html_()
    parsed(full), parsed(seen)
    assert "<svg" in full and "<svg" in seen
    assert "PQUVWXY" in full and "AEINRST" in full
    assert "AEINRST" in seen and "PQUVWXY" not in seen and "hidden (7 tiles)" in seen
    for letter in "PQUVWXY":  # no tile of bo's in the picture (the coordinates run A to O)
        assert f">{letter}<" in full and f">{letter}<" not in seen
    # after bo's exchange, al sees its count only (as his history shows it), not the tiles
    game.play(game.legal_moves(1)[0])
    game.exchange("PQU")
    view_html = GameView(game)._repr_html_()
    assert "-3" in shown_text(view_html) and "-PQU" not in view_html and str(game.racks[1]) not in view_html
    assert "-PQU" in game._repr_html_() and str(game.racks[1]) in game._repr_html_()


def test_game_table_escapes_nicks():
    game = Game("english", players=[EVIL, "bob"], seed=2)
    for markup in (game._repr_html_(), GameView(game)._repr_html_()):
        assert "<script>" not in markup and EVIL in shown_text(markup)
