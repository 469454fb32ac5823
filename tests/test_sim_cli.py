"""`racksmith sim`, `infer` and `selfplay` on the command line: the leaves they use by default (the
ruleset's shipped set, as `moves`, `analyze` and the web API use), `--leaves` as a file, a set's name
or `none`, and the self-play report naming the leaves each player has."""
from __future__ import annotations

import json
from pathlib import Path

from racksmith import Position
from racksmith.lexicon import default_leaves, load_leaves
from racksmith.sim.infer import infer_leaves
from conftest import run_cli as run

FIX = Path(__file__).parent / "fixtures"
SYNTH = FIX / "SYNTH.klv2"
MID = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/ 28/18 0"
KRONA = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0"


def sim_json(capsys, *extra):
    code, out, err = run(capsys, "sim", MID, "--candidates", 6, "--iterations", 240, "--seed", 5, "--stop", "none",
                         "--json", *extra)
    assert code == 0, err
    return json.loads(out)["candidates"]


def api_sim(leaves):
    return simulate_dict(Position.from_cgp(MID).simulate(candidates=6, iterations=240, seed=5, stop=None, leaves=leaves))


def simulate_dict(result):
    return result.to_dict()["candidates"]


def test_sim_uses_the_shipped_leaves_by_default(capsys):
    shipped = default_leaves(Position.from_cgp(MID).ruleset)
    assert shipped is not None
    default = sim_json(capsys)
    assert default == api_sim(shipped)
    assert default == sim_json(capsys, "--leaves", "english")
    # with no leaves the candidates' static equities are their scores: another answer
    none = sim_json(capsys, "--leaves", "none")
    assert none == api_sim(None)
    assert [c["move"] for c in none] != [c["move"] for c in default]
    assert sim_json(capsys, "--leaves", SYNTH) == api_sim(load_leaves(SYNTH, "english"))


def test_sim_bad_leaves_is_one_line(capsys):
    code, out, err = run(capsys, "sim", MID, "--iterations", 10, "--leaves", FIX / "no_such.klv2")
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1 and "no_such.klv2" in err


def untimed(d):
    """An inference's JSON less the time it took."""
    assert d.pop("seconds") >= 0
    return d


def test_infer_uses_the_shipped_leaves_by_default(capsys):
    pos = Position.from_cgp(KRONA)
    code, out, err = run(capsys, "infer", KRONA, "--move", "8D KRONA", "--json")
    assert code == 0, err
    assert untimed(json.loads(out)) == untimed(json.loads(json.dumps(
        infer_leaves(pos, "8D KRONA", leaves=default_leaves(pos.ruleset)).to_dict())))
    code, out, err = run(capsys, "infer", KRONA, "--move", "8D KRONA", "--leaves", "none", "--json")
    assert code == 0, err
    none = untimed(json.loads(out))
    assert none == untimed(json.loads(json.dumps(infer_leaves(pos, "8D KRONA", leaves=None).to_dict())))
    assert all(lv["value"] == 0 for lv in none["leaves"])


def test_infer_limits_on_the_command_line(capsys):
    pos = Position.from_cgp(KRONA)
    code, out, err = run(capsys, "infer", KRONA, "--move", "8D KRONA", "--samples", 100, "--seed", 3, "--json")
    assert code == 0, err
    d = untimed(json.loads(out))
    assert d["exact"] is False and d["samples"] == d["racks_tried"] == 100 and d["racks_total"] == 347
    assert d == untimed(infer_leaves(pos, "8D KRONA", leaves=default_leaves(pos.ruleset), samples=100, seed=3).to_dict())
    # more samples than racks: every rack (it dealt 5,000 at random before)
    code, out, err = run(capsys, "infer", KRONA, "--move", "8D KRONA", "--samples", 5000, "--seed", 3, "--json")
    d = untimed(json.loads(out))
    assert d["exact"] is True and d == untimed(infer_leaves(pos, "8D KRONA", leaves=default_leaves(pos.ruleset)).to_dict())
    # a limit that every rack fits in: the exact answer, said so in the title
    code, out, err = run(capsys, "infer", KRONA, "--move", "8D KRONA", "--seconds", 60)
    assert code == 0, err
    assert "every one of 347 racks tried" in out
    code, out, err = run(capsys, "infer", KRONA, "--move", "-3", "--seconds", 0.2)
    assert code == 0, err
    assert "estimated from" in out and "random deals" in out and "not from every one of the 2,582,445 racks" in out
    assert "after -3:" in out  # the exchange as written (its tiles are not known)
    for bad in (["--samples", 0], ["--seconds", 0], ["--seed", -1]):
        code, out, err = run(capsys, "infer", KRONA, "--move", "8D KRONA", *bad)
        assert code == 2 and out == "", bad


def test_selfplay_report_names_each_players_leaves(capsys):
    players = f"equity:leaves={SYNTH},equity:leaves=none"
    code, out, err = run(capsys, "selfplay", "--players", players, "--paired", "--games", 4, "--seed", 3)
    assert code == 0, err
    assert "no leave values" not in out and "no --leaves given" not in err
    assert f"p1 (equity:leaves={SYNTH})" in out and "p2 (equity:leaves=none)" in out
    code, out, err = run(capsys, "selfplay", "--players", players, "--paired", "--games", 4, "--seed", 3, "--json")
    d = json.loads(out)
    assert d["equity_without_leaves"] is False
    # plain equity players without --leaves: the report and a note say so
    code, out, err = run(capsys, "selfplay", "--games", 2, "--seed", 3)
    assert code == 0 and "no leave values" in out and "no --leaves given" in err
    # --leaves takes a shipped set's name and none
    code, out, err = run(capsys, "selfplay", "--games", 2, "--seed", 3, "--leaves", "english", "--json")
    assert code == 0 and json.loads(out)["leaves"] == "english" and json.loads(out)["equity_without_leaves"] is False
    code, out, err = run(capsys, "selfplay", "--games", 2, "--seed", 3, "--leaves", "none", "--json")
    assert code == 0 and json.loads(out)["equity_without_leaves"] is True and "no --leaves given" not in err


def test_winpct_train_refuses_an_unwritable_output_before_playing(capsys, tmp_path):
    for args in (["-o", tmp_path / "no" / "x.winpct"], ["-o", tmp_path / "x.winpct", "--tallies", tmp_path / "no" / "t.npy"]):
        code, out, err = run(capsys, "winpct", "train", "--games", 100000, *args)
        assert code == 1 and out == "" and "there is no folder" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.winpct").exists()


def test_winpct_train_plays_the_shipped_leaves_by_default(capsys, tmp_path):
    def train(name, *extra):
        code, out, err = run(capsys, "winpct", "train", "--games", 30, "--seed", 4, "-o", tmp_path / f"{name}.winpct", *extra)
        assert code == 0, err
        return (tmp_path / f"{name}.winpct").read_text(), json.loads((tmp_path / f"{name}.winpct.json").read_text())["leaves"]

    default, named = train("default"), train("english", "--leaves", "english")
    none = train("none", "--leaves", "none")
    assert default == named and default[1] == "english"
    assert none[1] is None and none[0] != default[0]  # other players, other games
    code, out, err = run(capsys, "winpct", "train", "--games", 30, "-o", tmp_path / "x.winpct", "--leaves", tmp_path / "no.klv2")
    assert code == 1 and "no.klv2" in err and not (tmp_path / "x.winpct").exists()


def test_sim_draws_the_opponents_rack_from_an_inference(capsys):
    code, out, err = run(capsys, "sim", KRONA, "--infer", "8D KRONA", "--infer-seconds", 30, "--candidates", 3,
                         "--iterations", 60, "--seed", 2, "--stop", "none", "--json")
    assert code == 0, err
    assert "inferred" in err and "every one of 347 racks tried" in err
    with_inference = json.loads(out)["candidates"]
    code, out, err = run(capsys, "sim", KRONA, "--candidates", 3, "--iterations", 60, "--seed", 2, "--stop", "none",
                         "--json")
    assert code == 0, err
    # the opponent's racks are drawn from another distribution: other play-outs
    assert json.loads(out)["candidates"] != with_inference
    code, out, err = run(capsys, "sim", KRONA, "--infer", "8D KRONA", "--infer-seconds", 0, "--iterations", 10)
    assert code == 2 and out == ""


KRONA_BOARD = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15"


def test_inference_bounded_by_racks_on_the_command_line(capsys):
    """``infer --samples N`` tries every rack when there are at most N (it dealt N at random and
    said the 347 racks "would take longer"); ``sim``/``best --infer-samples N`` bound the inference
    by racks, so ``--seed`` reproduces the simulation (a time bound did not); bounds without
    --infer, or two bounds at once, are usage errors."""
    code, out, err = run(capsys, "infer", f"{KRONA_BOARD} / 0/28 0", "--move", "8D KRONA", "--samples", "1000", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["exact"] and d["samples"] == 0
    code, out, err = run(capsys, "infer", f"{KRONA_BOARD} / 0/28 0", "--move", "8D KRONA", "--samples", "100", "--json")
    d = json.loads(out)
    assert not d["exact"] and d["samples"] == 100
    position = f"{KRONA_BOARD} EEIRSTU/ 0/28 0"
    runs = []
    for _ in range(2):
        code, out, err = run(capsys, "sim", position, "--infer", "-3", "--infer-samples", "2000", "--iterations", "200",
                             "--candidates", "4", "--seed", "5", "--json")
        assert code == 0
        runs.append([(c["move"], c["win_pct"], c["iterations"]) for c in json.loads(out)["candidates"]])
    assert runs[0] == runs[1]
    for args in (["infer", f"{KRONA_BOARD} / 0/28 0", "--move", "-3", "--samples", "10", "--seconds", "1"],
                 ["sim", position, "--infer-samples", "30"],
                 ["sim", position, "--infer-seconds", "3"],
                 ["sim", position, "--infer", "-3", "--infer-seconds", "3", "--infer-samples", "30"],
                 ["best", position, "--exact", "--seconds", "3"],
                 ["best", position, "--infer-samples", "30"]):
        code, out, err = run(capsys, *args)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (args, err)


def test_infer_never_prints_minus_zero(capsys, tmp_path):
    csv = tmp_path / "small.csv"
    csv.write_text("EI,-0.001\nAE,-0.004\n", encoding="utf-8")
    code, out, err = run(capsys, "infer", KRONA, "--move", "8D KRONA", "--leaves", csv, "--margin", 1000, "--top", 6)
    assert code == 0, err
    rows = {line.split()[1]: line.split()[-2] for line in out.splitlines() if line.split()[1:2] in (["EI"], ["AE"])}
    assert rows == {"EI": "+0.00", "AE": "+0.00"} and "-0.00" not in out


def test_sim_with_the_bag_empty_points_to_the_exact_endgame_solver(capsys):
    from test_sim_stopping import EMPTY_BAG

    code, out, err = run(capsys, "sim", EMPTY_BAG, "--candidates", 3, "--iterations", 30, "--seed", 1, "--plies", 2,
                         "--json")
    assert code == 0, err
    assert json.loads(out)["candidates"]
    assert ("note: the bag is empty: a play-out that has not ended after 2 plies is valued by the win% table there; "
            "`racksmith endgame` solves this position exactly (`racksmith best` uses it)") in err
    code, out, err = run(capsys, "sim", MID, "--candidates", 3, "--iterations", 30, "--seed", 1, "--json")
    assert code == 0 and "bag is empty" not in err
