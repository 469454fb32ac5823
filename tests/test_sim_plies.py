"""Simulation, per ply and for chosen plays: the per-ply tallies of the play-outs (MAGPIE's Pn-S / Pn-BP
columns and counts) against the play-outs replayed through Position and against the best reply
Position.moves finds for a known rack; the results of given seeds unchanged by the tallies; the
plays given by ``moves=`` found without making every legal move into a Move; ``racksmith sim
--ply-stats`` and ``--move``."""
from __future__ import annotations

import json
import math
import statistics

import pytest

from racksmith import Position
from racksmith.cli.main import main
from racksmith.lexicon import load_leaves
from racksmith.movegen.movelist import MoveList
from racksmith.sim.infer import infer_leaves
from racksmith.sim.simulate import PlyStats, SimError, _Finder, candidate_moves, simulate
from test_sim import GEROIKA, KNOWN, LATE, MID, SYNTH, WP, _kernel, _replay

KRONA = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0"


def run(cgp=MID, **kw):
    kw.setdefault("winpct", WP)
    kw.setdefault("leaves", SYNTH)
    return simulate(Position.from_cgp(cgp, ruleset=kw.pop("ruleset", "english")), **kw)


def figures(r):
    return [(c.move.notation(), c.win_pct.hex(), c.equity.hex(), c.iterations) for c in r.candidates], r.iterations, r.stopped


# --- the tallies change nothing played ---------------------------------------------------------
# (move, win% and equity as float.hex, iterations) of each candidate, recorded with the build
# before the per-ply tallies were added: the same seed must give the same play-outs, bit for bit
# ("mid", "moves" and "erudit_moves" re-recorded when the sampler's variances took pseudo-play-outs,
# which moves its choices; with none, the figures before come back: test_sim_stopping.py)
BEFORE = {
    "mid": ([("3J EVOKE", "0x1.03fbfb4726de1p+6", "0x1.827cf5d9d75d7p+4", 63),
             ("3K KOI", "0x1.00a4dc87a9c1fp+6", "0x1.521ab3e6c4ec5p+4", 52),
             ("3K VOE", "0x1.007841897762bp+6", "0x1.630a90a34d34dp+4", 63),
             ("5G VAKEE(L)", "0x1.f9ddd5d117dbap+5", "0x1.2da8dab69611ap+4", 58),
             ("G7 I(N)VOKE", "0x1.e27633f6ee614p+5", "0x1.8a872af980000p+3", 32),
             ("3L OVA", "0x1.df42dcb1e10d3p+5", "0x1.8eb8d4eb00000p+3", 32)], 300, "iterations"),
    # (every win chance within the cutoff of 0: ranked by equity since the cutoff, the figures as before)
    "late": ([("10G GLUM", "0x0.0p+0", "0x1.4000000000000p+4", 49),
              ("10G GULP", "0x0.0p+0", "0x1.1000000000000p+4", 32),
              ("10G GLOP", "0x1.fc97cac77d002p-18", "0x1.0000000000000p+4", 68),
              ("2D LUMP", "0x1.77b7e31eb0485p-19", "-0x1.8000000000000p+1", 47),
              ("10G GLOM", "0x1.1886fbd279eb5p-21", "-0x1.c000000000000p+2", 54)], 250, "iterations"),
    "known": ([("3J EVOKE", "0x1.fbf21d1e0d466p+5", "0x1.3760418000000p+4", 30),
               ("5G VAKEE(L)", "0x1.de397bab1b563p+5", "0x1.5428f60000000p+3", 30),
               ("3K VOE", "0x1.d9c5dcc6403ffp+5", "0x1.4841890000000p+3", 30),
               ("3L OVA", "0x1.d629913b34a4cp+5", "0x1.2010623000000p+3", 30),
               ("G7 I(N)VOKE", "0x1.be203dfdb7cfbp+5", "0x1.87ae180000000p+0", 30)], 150, "confidence"),
    "moves": ([("3L OVA", "0x1.e4ff039b81aadp+5", "0x1.9b05c5761745dp+3", 44),
               ("-AEK", "0x1.8fccf0d8b4f88p+5", "-0x1.40518c198ba2fp+3", 44),
               ("-", "0x1.7b04564108c51p+5", "-0x1.edb68711a0000p+3", 32)], 120, "iterations"),
    "inferred": ([("G5 REU(N)ITES", "0x1.0577379d49a05p+6", "0x1.fb68959e80000p+5", 30),
                  ("G4 RETI(N)UES", "0x1.030ebe22ca457p+6", "0x1.ef90a8313bbbcp+5", 30),
                  ("G2 ESURIE(N)T", "0x1.f97e13923997bp+5", "0x1.cce2a52e88889p+5", 30)], 90, "iterations"),
    "erudit_moves": ([("E5 НЕд(О)СОЛ *8B=Г", "0x1.a0175519fde0ep+5", "0x1.e3448ebad89d9p+4", 52),
                      ("C7 С(Е)ЛЕНГА", "0x1.8fc0a4f2fd748p+5", "0x1.8de549ab95555p+4", 48)], 100, "iterations"),
}


def _tupled(x):
    return [list(map(tuple, x[0])), x[1], x[2]]


@pytest.mark.parametrize("threads", [1, 2])
def test_the_tallies_change_no_play_out(threads):
    got = {
        "mid": figures(run(MID, candidates=6, iterations=300, seed=7, plies=2, threads=threads)),
        "late": figures(run(LATE, candidates=5, iterations=250, seed=3, plies=3, threads=threads)),
        "known": figures(run(KNOWN, candidates=5, iterations=200, seed=9, plies=1, threads=threads)),
    }
    third = Position.from_cgp(MID).moves(top=3, sort="equity", leaves=SYNTH, exchanges=True)[2].notation()
    got["moves"] = figures(run(MID, moves=["-", "-AEK", third], iterations=120, seed=4, stop=None, threads=threads))
    pos = Position.from_cgp(KRONA)
    inf = infer_leaves(pos, "8D KRONA", leaves=SYNTH)
    got["inferred"] = figures(simulate(pos, candidates=3, iterations=90, seed=2, opponent_racks=inf, leaves=SYNTH,
                                       winpct=WP, threads=threads))
    epos = Position.from_cgp(GEROIKA, ruleset="erudit")
    star = next(m for m in epos.moves(sort="equity", exchanges=True, leaves="erudit") if m.notation() == "E5 НЕд(О)СОЛ *8B=Г")
    plain = [m for m in epos.moves(sort="equity", exchanges=True) if not m.reclaimed][0]
    got["erudit_moves"] = figures(simulate(epos, moves=[star, plain], iterations=100, seed=5, winpct=WP, threads=threads))
    for name, want in BEFORE.items():
        assert _tupled(got[name]) == _tupled(want), name


# --- the tallies against the play-outs replayed --------------------------------------------------
def _stats_of(moves_by_ply: list[list], ply: int) -> PlyStats:
    """PlyStats of the moves (Move objects) some play-outs played at one ply, computed here."""
    ms = moves_by_ply
    scores = [m.score for m in ms]
    n = len(ms)
    place = sum(1 for m in ms if m.is_place)
    bingos = sum(1 for m in ms if m.is_place and m.tiles_played == 7)
    return PlyStats(ply, statistics.fmean(scores) if n else math.nan, statistics.stdev(scores) if n > 1 else math.nan,
                    bingos / n if n else math.nan, sum(1 for m in ms if m.is_pass),
                    sum(1 for m in ms if m.is_exchange), place, bingos)


@pytest.mark.parametrize("cgp,plies,n,iterations,seed", [(MID, 2, 4, 200, 11), (LATE, 3, 4, 160, 5)])
def test_ply_stats_equal_the_play_outs_replayed_through_position(cgp, plies, n, iterations, seed):
    """Every play-out a candidate was fed (iterations 0..count-1 of it) replayed move by move with
    Position.push and Position.moves(top=1) on the tiles the kernel dealt; the per-ply figures of
    those moves are the result's, exactly (LATE: play-outs end before the last ply, which then
    counts fewer)."""
    r = run(cgp, candidates=n, iterations=iterations, seed=seed, plies=plies, stop=None)
    pos, lv, cands, k = _kernel(cgp, plies, seed=seed, n=n)
    by_move = {c.move.notation(): c for c in r.candidates}
    replayed = other = 0
    ended = False
    for arm, cand in enumerate(cands):
        c = by_move[cand.notation()]
        per_ply: list[list] = [[] for _ in range(plies)]
        wins = []
        for it in range(c.iterations):
            win, eq, recs, drawn, opp, bag, _ = k.trace(arm, it)
            wins.append(win)
            again = _replay(pos, lv, cand, plies, opp, bag, drawn)
            if again is not None:
                moves = again[0][1:]
                replayed += 1
            else:  # an exchange puts tiles back in the bag at random places: the kernel's moves then
                from racksmith.movegen.movelist import record_move

                moves = [record_move(rec.tobytes(), pos.ruleset.alphabet) for rec in recs[1:]]
                other += 1
            ended |= len(moves) < plies
            for j, m in enumerate(moves):
                per_ply[j].append(m)
        # the rebuilt kernel is the one simulate ran: the same wins
        assert 100 * statistics.fmean(wins) == pytest.approx(c.win_pct, abs=1e-9)
        assert len(c.ply_stats) == plies
        for j in range(plies):
            want, got = _stats_of(per_ply[j], j + 1), c.ply_stats[j]
            assert (got.passes, got.exchanges, got.placements, got.bingos) == \
                (want.passes, want.exchanges, want.placements, want.bingos), (cand.notation(), j)
            for a, b in ((got.mean_score, want.mean_score), (got.score_stdev, want.score_stdev),
                         (got.bingo_fraction, want.bingo_fraction)):
                assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-9)
        assert c.ply_stats[0].reached <= c.iterations
    assert replayed >= 0.9 * (replayed + other)
    assert ended == (cgp == LATE)


def test_ply_stats_count_the_play_outs_fed_the_same_for_any_thread_count():
    """A confidence stop in the middle of a batch: the samples after it are not fed, and their
    replies are not tallied (one thread or several)."""
    a = run(MID, candidates=4, iterations=20000, seed=3, stop=0.95, threads=1)
    b = run(MID, candidates=4, iterations=20000, seed=3, stop=0.95, threads=2)
    assert a.stopped == b.stopped == "confidence" and a.iterations % 32 != 0  # stopped mid-batch
    assert a.to_dict()["candidates"] == b.to_dict()["candidates"]
    assert [c.ply_stats for c in a.candidates] == [c.ply_stats for c in b.candidates]
    for c in a.candidates:  # no game ends this early: every play-out reaches both plies
        assert [p.reached for p in c.ply_stats] == [c.iterations, c.iterations]
    assert sum(p.bingos for c in a.candidates for p in c.ply_stats) > 0


@pytest.mark.parametrize("opp,bingo", [("EEEITUV", False), ("AEINRST", True)])
@pytest.mark.parametrize("plies", [1, 2])
def test_a_known_rack_s_reply_is_the_best_position_moves_finds(opp, bingo, plies):
    """The opponent's rack known: his reply to each candidate does not depend on the bag, so ply 1
    is the same move in every play-out, the best by equity that Position.moves lists after the
    candidate; its score is the mean, the deviation 0, and the bingo fraction 1 or 0 as that move
    plays 7 tiles. With EEEITUV no move plays 7 tiles at all."""
    cgp = KNOWN.replace("EEEITUV", opp)
    pos = Position.from_cgp(cgp)
    lv = load_leaves(SYNTH, "english")
    r = run(cgp, candidates=5, iterations=100, seed=9, plies=plies, stop=None)
    bag = sorted(pos.unseen_tiles())
    for c in r.candidates:
        p = pos.copy()
        p.push(c.move, draw=bag[:c.move.tiles_played])
        ml = p.moves(sort="equity", leaves=lv, exchanges=True)
        best = ml[0]
        sevens = any(m.is_place and m.tiles_played == 7 for m in ml)
        assert sevens == bingo and (best.tiles_played == 7) == bingo
        s = c.ply_stats[0]
        assert s.ply == 1 and s.reached == s.placements == c.iterations == 20
        assert s.mean_score == best.score and s.score_stdev == 0.0
        assert s.bingo_fraction == (1.0 if bingo else 0.0) and s.bingos == (20 if bingo else 0)
        if plies == 2:
            assert c.ply_stats[1].ply == 2 and c.ply_stats[1].reached == 20


def test_ply_stats_in_to_dict_beside_the_keys_there_were():
    r = run(LATE, candidates=3, iterations=60, seed=2, plies=4, stop=None)
    d = r.to_dict()["candidates"][0]
    assert list(d)[:6] == ["move", "win_pct", "equity", "stderr", "equity_stderr", "iterations"]
    assert [p["ply"] for p in d["ply_stats"]] == [1, 2, 3, 4]
    assert set(d["ply_stats"][0]) == {"ply", "mean_score", "score_stdev", "bingo_fraction", "passes", "exchanges",
                                      "placements", "bingos", "reached"}
    # a ply no play-out reached: not known (null), with counts of 0
    unreached = [p for c in r.to_dict()["candidates"] for p in c["ply_stats"] if p["reached"] == 0]
    assert unreached and all(p["mean_score"] is None and p["bingo_fraction"] is None and p["bingos"] == 0
                             for p in unreached)
    json.dumps(r.to_dict(), allow_nan=False)


# --- the plays given, found without making every move --------------------------------------------
def _key(m):
    if m.kind == "place":
        return (m.kind, m.row, m.col, m.across, tuple(m.tiles), tuple(sorted(m.reclaimed)))
    return (m.kind, tuple(sorted(m.tiles)))


@pytest.mark.parametrize("cgp,ruleset", [("15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEE?KOV/ 28/18 0",
                                          "english"), (GEROIKA, "erudit")])
def test_the_finder_finds_each_move_where_its_whole_key_does(cgp, ruleset):
    """Every legal move of a rack with a blank (and of an Эрудит rack whose plays may take a star
    back): the finder's row is the move's, and a move that is not there is not found."""
    pos = Position.from_cgp(cgp, ruleset=ruleset)
    ml = pos.moves(sort="equity", exchanges=True)
    moves = list(ml)
    index = {_key(m): i for i, m in enumerate(moves)}
    assert len(index) == len(moves) > 300
    f = _Finder(ml)
    assert all(f.row(m) == index[_key(m)] for m in moves)
    if ruleset == "erudit":
        assert any(m.reclaimed for m in moves)
    absent = pos.resolve("-" + "".join(pos.ruleset.alphabet.letter(t) for t in sorted(pos.racks[0])[:1]) * 2)
    assert f.row(absent) is None


def test_simulating_given_moves_makes_only_those_moves(monkeypatch):
    """simulate(moves=...) used to make a Move of every legal move to find the plays given (the
    cost of analyze --sim): now only the plays given are made."""
    pos = Position.from_cgp("15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEE?KOV/ 28/18 0")
    given = list(pos.moves(top=3, sort="equity", leaves=SYNTH, exchanges=True))
    made = []
    real = MoveList._move
    monkeypatch.setattr(MoveList, "_move", lambda self, i: made.append(i) or real(self, i))
    r = simulate(pos, moves=given, iterations=30, seed=1, leaves=SYNTH, winpct=WP)
    assert {c.move for c in r.candidates} == set(given)
    assert len(made) <= len(given)


def test_candidate_moves_reads_and_checks_the_plays():
    pos = Position.from_cgp(MID)
    got = candidate_moves(pos, ["3J EVOKE", "-AEK", "pass"], leaves=SYNTH)
    assert [m.notation() for m in got] == ["3J EVOKE", "-AEK", "-"] and all(m.equity is not None for m in got)
    with pytest.raises(SimError, match=r"not legal for the player to move here: -XYZ \(not_in_rack: "):
        candidate_moves(pos, ["-XYZ"])
    with pytest.raises(SimError, match="a list of moves"):
        candidate_moves(pos, "3J EVOKE")


# --- the command line ----------------------------------------------------------------------------
def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_sim_ply_stats_columns(capsys):
    code, out, err = cli(capsys, "sim", MID, "-c", 3, "-i", 90, "--seed", 1, "--plies", 3, "--ply-stats")
    assert code == 0, err
    for j in (1, 2, 3):
        assert f"P{j}-S" in out and f"P{j}-BP" in out
    code, plain, err = cli(capsys, "sim", MID, "-c", 3, "-i", 90, "--seed", 1, "--plies", 3)
    assert code == 0 and "P1-S" not in plain
    code, out, err = cli(capsys, "sim", MID, "-c", 3, "-i", 90, "--seed", 1, "--plies", 3, "--json")
    cands = json.loads(out)["candidates"]
    assert all(len(c["ply_stats"]) == 3 for c in cands)
    api = run(MID, candidates=3, iterations=90, seed=1, plies=3, leaves="english", winpct=None)
    assert cands == api.to_dict()["candidates"]


def test_sim_move_simulates_only_the_plays_given(capsys):
    args = ["sim", MID, "-i", 60, "--seed", 2, "--stop", "none", "--json"]
    code, out, err = cli(capsys, *args, "--move", "3J EVOKE", "--move", "-AEK", "-m", "pass", "-m", "3j  EVOKE")
    assert code == 0, err
    assert sorted(c["move"] for c in json.loads(out)["candidates"]) == sorted(["3J EVOKE", "-AEK", "-"])
    api = Position.from_cgp(MID).simulate(moves=["3J EVOKE", "-AEK", "pass"], iterations=60, seed=2, stop=None)
    assert json.loads(out)["candidates"] == api.to_dict()["candidates"]
    # with --candidates given too: the best N by static equity, and the plays given
    code, out, err = cli(capsys, *args, "--move", "-AEK", "--candidates", 2)
    best = [m.notation() for m in Position.from_cgp(MID).moves(top=2, sort="equity", leaves="english", exchanges=True)]
    assert code == 0 and sorted(c["move"] for c in json.loads(out)["candidates"]) == sorted(best + ["-AEK"])


@pytest.mark.parametrize("move,words", [("zz", "bad move 'zz'"), ("-XYZ", "not legal"), ("8D QUIRK", "8G already holds"),
                                        ("3J EVOKX", "not legal")])
def test_sim_move_that_cannot_be_played_is_one_line(capsys, move, words):
    code, out, err = cli(capsys, "sim", MID, "-i", 10, "--move", move)
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_one_play_alone_runs_to_the_limit_not_the_confidence_stop(capsys):
    """With one play there is no rival to be sure of: the confidence stop ended the run at 30
    play-outs whatever -i said ("what is this play's win%?"); it now runs to the limit."""
    code, out, err = cli(capsys, "sim", MID, "-i", 400, "--seed", 3, "--move", "3J EVOKE", "--json")
    d = json.loads(out)
    assert code == 0 and d["iterations"] == 400 and d["stopped"] == "iterations"
    one = Position.from_cgp(MID).simulate(candidates=1, iterations=300, seed=3)
    assert one.iterations == 300 and one.stopped == "iterations"
