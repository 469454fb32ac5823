"""A win% table given to every command that simulates (best, analyze --sim, serve, as sim), a note
wherever a ruleset with no table of its own is simulated with another's, and Macondo's winpct.csv
read as a table."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from racksmith import Position, get_ruleset
from conftest import run_cli as _cli
from racksmith.errors import WinPctError
from racksmith.sim.winpct import WinPct, load_winpct

ENGLISH = get_ruleset("english")
EMPTY = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15"
OPENING = f"{EMPTY} AEINRST/ 0/0 0"
GAME01 = Path(__file__).parent / "fixtures" / "gcg" / "game01_seed1.gcg"


@pytest.fixture
def own(tmp_path) -> Path:
    """A ruleset file of the user's own (English's tiles, board and lexicon under another name): no
    shipped win% table is its own."""
    path = tmp_path / "own.json"
    path.write_text(json.dumps({**ENGLISH.to_dict(), "name": "own", "aliases": []}), encoding="utf-8")
    return path


@pytest.fixture
def even(tmp_path) -> Path:
    """A table that gives every spread an even chance: a simulation with it has every play at 50%
    (no play-out of an opening reaches the end of the game); 93 rows, every unseen count of an
    English game (a table of fewer is noted)."""
    path = tmp_path / "even.winpct"
    WinPct(np.full((93, 5), 0.5), np.full(93, 10)).save(path)
    return path


# --- 1. --winpct everywhere a simulation runs, and a note when another ruleset's table is used ----------
def test_the_note_names_the_table_used_and_the_option(own):
    from racksmith.sim.winpct import borrowed_note

    rs = get_ruleset(str(own))
    line = borrowed_note(rs)
    assert "ruleset own has no win% table of its own" in line and "the english table" in line and "--winpct" in line
    assert borrowed_note(rs, "english") is None and borrowed_note(ENGLISH) is None
    assert borrowed_note(get_ruleset("super")) is None


def test_best_takes_a_winpct_table(capsys, own, even):
    # best had no --winpct: a ruleset file was simulated with the shipped table nearest its tile count
    code, out, err = _cli(capsys, "best", OPENING, "--ruleset", own, "--seconds", 0.5, "--seed", 1, "--winpct", even,
                          "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["method"] == "sim" and d["result"]["note"] is None and "win% table" not in err
    assert "ships no leave values" in err  # (a ruleset file without shipped leaves: said)
    assert {c["win_pct"] for c in d["result"]["candidates"] if c["iterations"]} == {50.0}


def test_best_says_when_it_uses_another_ruleset_s_table(capsys, own):
    code, out, err = _cli(capsys, "best", OPENING, "--ruleset", own, "--seconds", 0.3, "--seed", 1, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert "its simulations use the english table" in d["result"]["note"] and "--winpct" in d["result"]["note"]
    assert d["result"]["note"] in d["summary"]
    assert err.count("note: ruleset own has no win% table of its own") == 1
    assert 50.0 not in {c["win_pct"] for c in d["result"]["candidates"]}
    # the text says it once, in the summary line
    code, out, err = _cli(capsys, "best", OPENING, "--ruleset", own, "--seconds", 0.3, "--seed", 1)
    assert code == 0 and out.count("has no win% table of its own") == 1 and "win% table" not in err
    # a shipped ruleset simulates with its own: nothing to say
    code, out, err = _cli(capsys, "best", OPENING, "--seconds", 0.3, "--seed", 1, "--json")
    assert code == 0 and json.loads(out)["result"]["note"] is None and "note" not in err


def test_best_refuses_a_winpct_file_that_is_not_a_table_before_searching(capsys, tmp_path):
    bad = tmp_path / "bad.winpct"
    bad.write_text("not a table\n", encoding="ascii")
    for args in (("--winpct", bad), ("--winpct", tmp_path / "missing")):
        code, out, err = _cli(capsys, "best", OPENING, "--seconds", 30, *args)
        assert code == 1 and out == "" and len(err.splitlines()) == 1 and "win% table" in err


def test_sim_says_when_it_uses_another_ruleset_s_table(capsys, own, even):
    code, out, err = _cli(capsys, "sim", OPENING, "--ruleset", own, "-i", 40, "-c", 3, "--seed", 1, "--json")
    assert code == 0, err
    note = json.loads(out)["note"]
    assert note and "the english table" in note and "--winpct" in note
    assert err.count("note: ruleset own has no win% table of its own") == 1
    code, out, err = _cli(capsys, "sim", OPENING, "--ruleset", own, "-i", 40, "-c", 3, "--seed", 1)
    assert code == 0 and err.count("has no win% table of its own") == 1
    code, out, err = _cli(capsys, "sim", OPENING, "--ruleset", own, "-i", 40, "-c", 3, "--seed", 1, "--winpct", even,
                          "--json")
    assert code == 0 and json.loads(out)["note"] is None and "win% table" not in err


def test_simulate_itself_says_it_once(own, even):
    """(Python callers of Position.simulate got no note; the callers that add it add it once)"""
    from racksmith.sim.winpct import with_borrowed_note

    pos = Position.from_cgp(OPENING, get_ruleset(str(own)))
    r = pos.simulate(candidates=2, iterations=20, seed=1)
    assert r.note.count("has no win% table of its own") == 1
    assert with_borrowed_note(r, pos.ruleset).note == r.note
    assert pos.simulate(candidates=2, iterations=20, seed=1, winpct=str(even)).note is None


def test_best_play_says_it_in_its_summary_and_result(own, even):
    pos = Position.from_cgp(OPENING, get_ruleset(str(own)))
    r = pos.best_play(seconds=0.3, seed=1)
    assert r.method == "sim" and "has no win% table of its own" in r.result.note and r.result.note in r.summary
    r = pos.best_play(seconds=0.3, seed=1, winpct=str(even))
    assert r.result.note is None and {c.win_pct for c in r.result.candidates if c.iterations} == {50.0}


def _gcg_text() -> str:
    """The first two turns of an English game, the record naming no tile distribution."""
    lines = GAME01.read_text(encoding="utf-8").splitlines()
    moves = [i for i, line in enumerate(lines) if line.startswith(">")]
    return "\n".join(ln for ln in lines[: moves[1] + 1] if not ln.startswith("#tile-distribution")) + "\n"


def _own_replay(own: Path):
    from racksmith.review.replay import replay_text

    return replay_text(_gcg_text(), get_ruleset(str(own)))


def test_analyze_passes_a_winpct_table_to_its_simulations_and_notes_a_borrowed_one(own, even, tmp_path):
    from racksmith.review.analysis import analyze

    r = _own_replay(own)
    sim = dict(iterations=20, candidates=2, plies=1, seed=1)
    a = analyze(r, None, top=1, sim={**sim, "winpct": str(even)})
    graded = [t for t in a.turns if t.win_pct is not None]
    assert graded and {t.win_pct for t in graded} == {50.0}
    assert not any("win% table" in n for n in a.notes)
    a = analyze(r, None, top=1, sim=sim)
    assert sum("ruleset own has no win% table of its own" in n for n in a.notes) == 1  # once, not a turn
    # a file that is not a table: said before any turn is analysed
    bad = tmp_path / "bad.winpct"
    bad.write_text("not a table\n", encoding="ascii")
    seen = []
    with pytest.raises(WinPctError):
        analyze(r, None, top=1, sim={**sim, "winpct": str(bad)}, progress=lambda *a: seen.append(a))
    assert seen == []
    # a turn cache keeps the analyses made with the same table (its arrays are no key)
    cache: dict = {}
    table = load_winpct(str(even))
    first = analyze(r, None, top=1, sim={**sim, "winpct": table}, turn_cache=cache)
    assert cache and analyze(r, None, top=1, sim={**sim, "winpct": table}, turn_cache=cache).turns == first.turns


def test_analyze_cli_takes_winpct_with_sim(capsys, own, even, tmp_path):
    """(needs the game_cmds.py change: analyze --winpct)"""
    gcg = tmp_path / "g.gcg"
    gcg.write_text(_gcg_text(), encoding="utf-8")
    args = ("analyze", gcg, "--ruleset", own, "--sim", "--sim-iterations", 20, "--sim-candidates", 2, "--sim-plies", 1,
            "--json")
    code, out, err = _cli(capsys, *args, "--winpct", even)
    assert code == 0, err
    d = json.loads(out)
    assert {t["win_pct"] for t in d["turns"] if t.get("win_pct") is not None} == {50.0}
    assert not any("win% table" in n for n in d["notes"])
    code, out, err = _cli(capsys, *args)
    assert code == 0 and sum("has no win% table of its own" in n for n in json.loads(out)["notes"]) == 1
    code, out, err = _cli(capsys, "analyze", gcg, "--ruleset", own, "--winpct", even)
    assert code == 2 and "--sim" in err


def test_the_server_simulates_its_default_ruleset_with_its_winpct_table(own, even):
    """(needs the web/api.py change: Analyzer(winpct=...))"""
    from racksmith.web import Analyzer

    body = {"cgp": OPENING, "iterations": 40, "candidates": 3, "seed": 1, "seconds": 5}
    plain = Analyzer(str(own))
    out = plain.sim(body)
    assert "has no win% table of its own" in out["note"] and "--winpct" in out["note"]
    assert "has no win% table of its own" in plain.best({"cgp": OPENING, "seconds": 0.3})["summary"]
    served = Analyzer(str(own), winpct=str(even))
    out = served.sim(body)
    assert out["note"] is None and {c["win_pct"] for c in out["candidates"] if c["iterations"]} == {50.0}
    best = served.best({"cgp": OPENING, "seconds": 0.3})
    assert best["result"]["note"] is None and "win% table" not in best["summary"]
    # the other rulesets keep their own tables
    out = served.sim({**body, "ruleset": "english"})
    assert out["note"] is None and 50.0 not in {c["win_pct"] for c in out["candidates"]}
    with pytest.raises(WinPctError):
        Analyzer("english", winpct="/no/such/table.winpct")


def test_serve_takes_winpct_and_says_when_another_ruleset_s_table_is_used(capsys, monkeypatch, own, even):
    """(needs the web/api.py change: Analyzer(winpct=...))"""
    from racksmith.web.server import AnalyzerServer

    monkeypatch.setattr(AnalyzerServer, "serve_forever", lambda self, *a, **kw: (_ for _ in ()).throw(KeyboardInterrupt))
    code, out, err = _cli(capsys, "serve", "--port", 0, "--ruleset", own)
    assert code == 130 and err.count("note: ruleset own has no win% table of its own") == 1
    code, out, err = _cli(capsys, "serve", "--port", 0, "--ruleset", own, "--winpct", even)
    assert code == 130 and "win% table even.winpct" in err.splitlines()[0] and "no win% table" not in err
    code, out, err = _cli(capsys, "serve", "--port", 0, "--winpct", own)  # a ruleset file is not a table
    assert code == 1 and "win% table" in err


# --- 2. Macondo's winpct.csv ------------------------------------------------------------------------------
#: Macondo's layout, small: a header of unseen counts 0..3, rows of spreads +2 down to -2
MACONDO = """,0,1,2,3
2,0,1.000000,0.990000,0.950000
1,0,0.900000,0.800000,0.700000
0,0,0.700000,0.600000,0.550000
-1,0,0.100000,0.300000,0.400000
-2,0,0.000000,0.010000,0.050000
"""


def test_macondo_s_winpct_csv_is_read_as_a_table(tmp_path, capsys):
    path = tmp_path / "winpct.csv"
    path.write_text(MACONDO.replace("\n", "\r\n"), encoding="ascii")
    wp = WinPct.load(path)
    assert wp.max_unseen == 3 and wp.max_spread == 2 and wp.observations.tolist() == [0, 0, 0]
    # as Macondo looks it up: winpcts[300 - spread][unseen]
    assert wp.get(1, 1) == 0.9 and wp.get(-1, 2) == 0.3 and wp.get(0, 3) == 0.55 and wp.get(2, 3) == 0.95
    assert wp.get(7, 1) == 1.0 and wp.get(-7, 2) == 0.01 and wp.get(0, 9) == 0.55  # clamped to the table
    assert wp.get(1, 0) == 1.0 and wp.get(0, 0) == 0.5  # no tile unseen: the game is over
    assert "Macondo" in wp.provenance["source_format"]
    # written in MAGPIE's format with its win chances whole
    wp.save(tmp_path / "magpie.winpct")
    assert np.allclose(WinPct.load(tmp_path / "magpie.winpct").table, wp.table, atol=1e-9, rtol=0)
    code, out, err = _cli(capsys, "winpct", "show", path, "--unseen", 2, "--spread", -1, "--spread", 1, "--json")
    assert code == 0, err
    assert json.loads(out)["rows"] == {"2": {"-1": 0.3, "1": 0.8}}


def test_sim_takes_a_macondo_table(capsys, tmp_path):
    path = tmp_path / "winpct.csv"
    path.write_text(",0,1\n1,0,0.5\n0,0,0.5\n-1,0,0.5\n", encoding="ascii")
    code, out, err = _cli(capsys, "sim", OPENING, "-i", 30, "-c", 2, "--seed", 1, "--winpct", path, "--json")
    assert code == 0, err
    assert {c["win_pct"] for c in json.loads(out)["candidates"] if c["iterations"]} == {50.0}


@pytest.mark.parametrize("text, message", [
    (",1,2\n0,0.5,0.5\n", "header ',0,1,...,N'"),
    (",0,1\n1,0,0.5\n0,0,0.5\n", "odd number"),
    (",0,1\n1,0,0.5\n0,0,0.5\n-2,0,0.5\n", "spread -2, expected -1"),
    (",0,1\n1,0,0.5\n0,0\n-1,0,0.5\n", "2 columns, expected 3"),
    (",0,1\n1,0,1.5\n0,0,0.5\n-1,0,0.5\n", "from 0 to 1"),
    (",0,1\n1,0,x\n0,0,0.5\n-1,0,0.5\n", "win chances"),
])
def test_a_bad_macondo_table_says_what_is_wrong(text, message):
    with pytest.raises(WinPctError, match=re.escape(message)) as e:
        WinPct.parse(text, "w")
    assert "Macondo" in str(e.value)


def test_a_table_that_is_neither_format_names_both():
    with pytest.raises(WinPctError) as e:
        WinPct.parse("4 0 1 x 7 8\n", "w")
    assert "MAGPIE's winpct format" in str(e.value) and "Macondo's winpct.csv" in str(e.value)
