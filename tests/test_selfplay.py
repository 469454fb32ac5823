"""Self-play: complete games with zero invariant violations on every ruleset, the same results for
any number of jobs, games written as GCG that replay, players plugged in, the command line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from racksmith.cli.main import main
from racksmith.errors import RacksmithError
from racksmith.play.game import Game
from racksmith.core.turns import EventKind
from racksmith.lexicon import load_leaves, load_lexicon
from racksmith.core.move import Move
from racksmith.play.players import BestEquityPlayer, BestScorePlayer, GameView, Player, RandomPlayer, make_player
from racksmith.review.replay import replay_file
from racksmith.play.selfplay import SelfPlayConfig, parse_players, run_selfplay, wilson_interval

FIXTURES = Path(__file__).parent / "fixtures"
SYNTH = FIXTURES / "SYNTH.klv2"

TIMING = {"seconds", "games_per_second", "turns_per_second", "moves_generated_per_second", "load_seconds", "jobs"}


def _without_timings(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in TIMING}


@pytest.fixture(scope="module")
def enable():
    return load_lexicon("enable", ruleset="english")


@pytest.fixture(scope="module")
def synth():
    return load_leaves(SYNTH, ruleset="english")


@pytest.mark.slow
def test_equity_against_score_with_leaves(enable, synth, tmp_path):
    config = SelfPlayConfig(players=("equity", "score"), leaves=str(SYNTH), seed=3, gcg_dir=str(tmp_path))
    report = run_selfplay(4, config, lexicon=enable, leaves=synth)
    d = report.to_dict()
    assert d["games"] == 4 and d["invariant_violations"] == 0 and d["violations"] == []
    assert d["equity_without_leaves"] is False and d["validated"] is True
    assert 15 <= d["turns_per_game"] <= 40
    assert d["generator_calls"] == d["turns"]  # one generation a turn
    p1, p2 = d["players"]
    assert (p1["kind"], p2["kind"]) == ("equity", "score")
    assert p1["wins"] + p1["losses"] + p1["ties"] == 4
    assert p1["first_moves"] == p2["first_moves"] == 2
    assert d["mean_spread"] == pytest.approx(p1["mean_score"] - p2["mean_score"], abs=1e-2)
    files = sorted(tmp_path.glob("*.gcg"))
    assert [f.name for f in files] == [f"game{i:06d}.gcg" for i in range(4)]
    for f, result in zip(files, report.results):
        r = replay_file(f)
        assert r.ok and r.over, r.errors
        nicks = r.final_scores()
        assert (nicks["p1"], nicks["p2"]) == result.scores
        text = f.read_text(encoding="utf-8")
        assert text.startswith("#character-encoding UTF-8\n#description Created with racksmith self-play")
        assert "#lexicon enable" in text and "#tile-distribution english" in text


@pytest.mark.slow
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_results_do_not_depend_on_jobs_or_the_start_method(enable, synth, start_method):
    # workers get the configuration and the loaded lexicon and leaves from the pool's initializer:
    # under spawn nothing is inherited (a module global set before forking gave AttributeError there)
    config = SelfPlayConfig(players=("equity", "score"), leaves=str(SYNTH), seed=11)
    one = run_selfplay(4, config, jobs=1, lexicon=enable, leaves=synth)
    two = run_selfplay(4, config, jobs=2, lexicon=enable, leaves=synth, start_method=start_method)
    assert one.results == two.results
    assert _without_timings(one.to_dict()) == _without_timings(two.to_dict())
    assert two.to_dict()["jobs"] == 2 and one.to_dict()["equity_without_leaves"] is False


@pytest.mark.slow
def test_a_lexicon_of_ones_own_reaches_spawned_workers():
    from racksmith import Lexicon

    words = Lexicon.from_words(["QI", "ZA", "AT", "TA", "ET", "TE", "EAT", "TEA", "ATE", "ETA"], "english")
    config = SelfPlayConfig(players=("score", "score"), seed=2, validate=False)
    one = run_selfplay(2, config, lexicon=words)
    two = run_selfplay(2, config, jobs=2, lexicon=words, start_method="spawn")
    assert one.results == two.results and one.results[0].turns >= 6
    with pytest.raises(RacksmithError, match="start_method 'teleport' is not available"):
        run_selfplay(2, config, jobs=2, lexicon=words, start_method="teleport")


def test_same_seed_same_games_other_seed_other_games(enable):
    config = SelfPlayConfig(players=("score", "score"), seed=5, validate=False)
    a = run_selfplay(2, config, lexicon=enable)
    b = run_selfplay(2, config, lexicon=enable)
    c = run_selfplay(2, SelfPlayConfig(players=("score", "score"), seed=6, validate=False), lexicon=enable)
    assert a.results == b.results != c.results
    assert a.to_dict()["validated"] is False and a.to_dict()["invariant_violations"] == 0


def test_random_players_finish(enable):
    d = run_selfplay(2, SelfPlayConfig(players=("random", "equity"), seed=2), lexicon=enable).to_dict()
    assert d["invariant_violations"] == 0
    assert d["moves_generated"] > d["generator_calls"]  # random players see every move


@pytest.mark.slow
@pytest.mark.parametrize("ruleset, lexicon, bonus, end_rule", [("russian", "ru", 50, "tournament"), ("erudit", "ru-erudit", 15, "club")])
def test_russian_rulesets_play_to_the_end(ruleset, lexicon, bonus, end_rule, tmp_path):
    config = SelfPlayConfig(players=("equity", "equity"), ruleset=ruleset, lexicon=lexicon, seed=1, gcg_dir=str(tmp_path))
    report = run_selfplay(2, config)
    assert report.to_dict()["invariant_violations"] == 0
    for f in sorted(tmp_path.glob("*.gcg")):
        r = replay_file(f, ruleset)
        assert r.ok and r.over, r.errors
        assert r.ruleset.bingo_bonus == bonus and r.ruleset.end_rule == end_rule
        outs = [e for e in r.record.events if e.kind == EventKind.OUT]
        penalties = [e for e in r.record.events if e.kind == EventKind.RACK_PENALTY]
        if outs and end_rule == "club":
            # club rule: the player going out adds the leftover once, the other subtracts it
            assert outs[0].score == -sum(p.score for p in penalties)
        if outs and end_rule == "tournament":
            assert not penalties and outs[0].score % 2 == 0


def test_erudit_has_three_stars_and_a_plain_centre():
    g = Game("erudit", lexicon=set(), seed=1)
    rs = g.ruleset
    assert rs.blanks == 3 and rs.word_multipliers[rs.start] == 1 and rs.bingo_bonus == 15
    assert g.bag.counts()[0] + sum(r.count(0) for r in g.racks) == 3


def test_a_player_of_ones_own_plugs_in(enable):
    class FirstByScore:
        def choose(self, view: GameView) -> Move:
            moves = view.moves(top=5, sort="score")
            return moves[len(moves) - 1] if len(moves) else Move.pass_(view.ruleset.alphabet)

    mine = FirstByScore()
    assert isinstance(mine, Player) and isinstance(BestScorePlayer(), Player)
    g = Game("english", enable, seed=4)
    view = GameView(g)
    players = [mine, make_player("score")]
    while not g.over:
        g.play(players[g.to_move].choose(view))
    assert not g.check_invariants()
    assert view.bag_count == 0 or g.zero_turns >= 6
    assert _replays_to_its_scores(g)


def _replays_to_its_scores(game: Game) -> bool:
    from racksmith.review.replay import replay_text

    r = replay_text(game.gcg())
    return r.ok and r.final_scores() == dict(zip(game.nicks, game.scores))


def test_game_view_shows_the_player_to_move(enable):
    g = Game("english", enable, seed=8)
    view = GameView(g)
    assert view.player == 0 and view.rack == g.racks[0] and view.bag_count == 86
    unseen = view.unseen()
    assert sum(unseen) == 93 and view.position.racks[0] == g.racks[0]
    assert view.history == () and view.scores == [0, 0] and view.zero_turns == 0
    g.play(BestEquityPlayer().choose(view))
    assert view.player == 1 and view.position.racks[0] == g.racks[1] and len(view.history) == 1


def test_random_player_is_seeded(enable):
    def first_moves(seed):
        g = Game("english", enable, seed=1)
        p = RandomPlayer(seed)
        return [p.choose(GameView(g)) for _ in range(5)]

    one, again, other = first_moves(1), first_moves(1), first_moves(2)
    assert one == again and one != other  # the seed decides, and decides differently
    legal = set(Game("english", enable, seed=1).legal_moves(exchanges=True))
    assert len(set(one)) > 1 and set(one) | set(other) <= legal


def test_player_specs_and_bad_input():
    assert parse_players("equity, score,random") == ("equity", "score", "random")
    for bad in ("equity", ""):
        with pytest.raises(RacksmithError, match="players .*: give two or more"):
            parse_players(bad)
    with pytest.raises(RacksmithError, match="players 'equity,wizard': unknown player 'wizard'"):
        parse_players("equity,wizard")
    with pytest.raises(RacksmithError, match="unknown player"):
        make_player("wizard")
    with pytest.raises(RacksmithError, match="games must be a whole number from 1 to 10,000,000, got 0"):
        run_selfplay(0)
    with pytest.raises(RacksmithError, match="games must be a whole number from 1 to 10,000,000"):
        run_selfplay(2**70)  # refused before anything is built for it


def test_wilson_interval():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_cli_selfplay_json(capsys):
    code = main(["selfplay", "--games", "2", "--seed", "1", "--players", "equity,score", "--leaves", str(SYNTH), "--json"])
    captured = capsys.readouterr()
    assert code == 0
    d = json.loads(captured.out)
    assert d["games"] == 2 and d["invariant_violations"] == 0
    for key in ("seconds", "games_per_second", "turns", "turns_per_second", "moves_generated_per_second", "bingos_per_game"):
        assert key in d
    assert d["players"][0]["win_rate_ci95"][0] <= d["players"][0]["win_rate"] <= d["players"][0]["win_rate_ci95"][1]


def test_cli_selfplay_text_says_when_there_are_no_leaves(capsys):
    assert main(["selfplay", "--games", "1", "--fast"]) == 0
    out, err = capsys.readouterr()
    assert "no --leaves given" in err and "games/s" in out and "validator skipped" in out
    assert main(["selfplay", "--games", "1", "--players", "equity,wizard"]) == 2  # a bad option
    assert main(["selfplay", "--games", "0"]) == 2


def test_a_lying_generator_is_caught(enable, monkeypatch):
    import dataclasses

    import racksmith.play.selfplay as sp

    class Liar(BestScorePlayer):
        def choose(self, view):
            move = super().choose(view)
            return dataclasses.replace(move, score=move.score + 1) if move.is_place else move

    monkeypatch.setattr(sp, "make_player", lambda kind, **kw: Liar())
    d = run_selfplay(1, SelfPlayConfig(players=("score", "score"), seed=1), lexicon=enable).to_dict()
    assert d["invariant_violations"] >= 10  # every placement of the game
    assert "by the validator" in d["violations"][0]
    fast = run_selfplay(1, SelfPlayConfig(players=("score", "score"), seed=1, validate=False), lexicon=enable).to_dict()
    assert fast["invariant_violations"] == 0  # without the validator a consistent lie goes unseen


def test_lost_tiles_are_caught(enable):
    g = Game("english", enable, seed=1)
    g.bag.draw(2)  # two tiles vanish
    problems = g.check_invariants()
    assert len(problems) == 1 and problems[0].startswith("tiles not conserved: missing")
    g2 = Game("english", enable, seed=1)
    g2.live_position.scores[0] += 3  # a score that no event explains
    assert "differ from the sums of the events" in g2.check_invariants()[0]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc: a folder no one can write, root neither")
def test_a_gcg_folder_that_cannot_be_written_is_refused_before_any_game(enable):
    from racksmith.errors import OutputFileError

    played = []
    with pytest.raises(OutputFileError, match="cannot write the games' records to /proc/self"):
        run_selfplay(2, SelfPlayConfig(players=("score", "score"), gcg_dir="/proc/self"), lexicon=enable,
                     progress=played.append)  # was a raw OSError after the first batch of games
    assert played == []


# --- a record that cannot be written mid-run: the run goes on, the report counts it -----------------------
RECORD_KEYS = {"records_unwritten", "records_unwritten_games", "records_error"}


def _plain(enable, games, **config):
    """The same series without records: what a run that lost some must still report."""
    return run_selfplay(games, SelfPlayConfig(players=("score", "score"), validate=False, seed=7, **config),
                        lexicon=enable)


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("engine", ["kernel", "python"])
def test_a_record_that_cannot_be_written_does_not_lose_the_run(enable, tmp_path, engine, jobs):
    """A directory in the way of games 1 and 3's records (refused in any process): an
    OutputFileError ended the run (from a worker with jobs=2), losing every game played."""
    (tmp_path / "game000003.gcg").mkdir()
    (tmp_path / "game000001.gcg").mkdir()
    config = SelfPlayConfig(players=("score", "score"), validate=False, seed=7, engine=engine, gcg_dir=str(tmp_path))
    report = run_selfplay(6, config, jobs=jobs, lexicon=enable)
    plain = _plain(enable, 6, engine=engine)
    assert report.results == plain.results and report.engine == engine  # every game, as without records
    assert report.records_unwritten == 2 and report.unwritten_games == [1, 3]
    assert report.records_error == f"game 1: cannot write {str(tmp_path / 'game000001.gcg')!r}: it is a directory"
    assert sorted(f.name for f in tmp_path.glob("*.gcg") if f.is_file()) == [f"game{i:06d}.gcg" for i in (0, 2, 4, 5)]
    for i in (0, 2, 4, 5):
        r = replay_file(tmp_path / f"game{i:06d}.gcg")
        assert r.ok and r.over and (r.final_scores()["p1"], r.final_scores()["p2"]) == plain.results[i].scores
    d = report.to_dict()
    assert d["games"] == 6 and d["invariant_violations"] == 0
    assert (d["records_unwritten"], d["records_unwritten_games"], d["records_error"]) == (2, [1, 3], report.records_error)
    assert {k: v for k, v in _without_timings(d).items() if k not in RECORD_KEYS} == _without_timings(plain.to_dict())
    assert not RECORD_KEYS & plain.to_dict().keys() and plain.records_unwritten == 0 and plain.records_error is None


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("engine", ["kernel", "python"])
def test_every_later_record_is_still_tried_after_a_failed_write(enable, tmp_path, monkeypatch, engine, jobs):
    """A full disk for games 2 and 4 only (a passing failure): the other records are written."""
    import racksmith.play.selfplay as sp
    from racksmith.errors import OutputFileError

    real = sp.write_atomically

    def full_disk(path, data, **kw):
        if Path(path).name in ("game000002.gcg", "game000004.gcg"):
            raise OutputFileError(f"cannot write {str(path)!r}: No space left on device")
        return real(path, data, **kw)

    monkeypatch.setattr(sp, "write_atomically", full_disk)  # forked workers inherit the patch
    config = SelfPlayConfig(players=("score", "score"), validate=False, seed=7, engine=engine, gcg_dir=str(tmp_path))
    report = run_selfplay(6, config, jobs=jobs, lexicon=enable, start_method="fork")
    assert report.results == _plain(enable, 6, engine=engine).results
    assert report.unwritten_games == [2, 4]
    assert report.records_error == f"game 2: cannot write {str(tmp_path / 'game000002.gcg')!r}: No space left on device"
    assert sorted(f.name for f in tmp_path.glob("*.gcg")) == [f"game{i:06d}.gcg" for i in (0, 1, 3, 5)]


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("engine", ["kernel", "python"])
def test_a_game_gcg_cannot_describe_loses_only_its_record(enable, tmp_path, monkeypatch, engine, jobs):
    """A score past what GCG holds (999,999,999, reached on a user's ruleset of quadruple words and
    1,000-point tiles; here the limit lowered to 400) ended the series with the error of
    ``Game.gcg``: now that game's record is not written and the series goes on."""
    import racksmith.play.game as game_module

    monkeypatch.setattr(game_module, "MAX_GCG_POINTS", 400)  # forked workers inherit the patch
    config = SelfPlayConfig(players=("score", "score"), validate=False, seed=7, engine=engine, gcg_dir=str(tmp_path))
    report = run_selfplay(6, config, jobs=jobs, lexicon=enable, start_method="fork")
    plain = _plain(enable, 6, engine=engine)
    assert report.results == plain.results
    over = [i for i, r in enumerate(plain.results) if max(r.scores) > 400]
    assert 0 < len(over) < 6 and report.unwritten_games == over
    first = tmp_path / f"game{over[0]:06d}.gcg"
    assert report.records_error.startswith(f"game {over[0]}: cannot write {str(first)!r}: a ")
    assert report.records_error.endswith("a GCG record holds scores of at most 400 points")
    assert sorted(f.name for f in tmp_path.glob("*.gcg")) == [f"game{i:06d}.gcg" for i in range(6) if i not in over]


@pytest.mark.parametrize("engine", ["kernel", "python"])
def test_a_gcg_folder_removed_mid_run_loses_only_the_records(enable, tmp_path, monkeypatch, engine):
    import shutil

    import racksmith.play.selfplay as sp

    monkeypatch.setattr(sp, "BATCH", 2)
    folder = tmp_path / "games"
    config = SelfPlayConfig(players=("score", "score"), validate=False, seed=7, engine=engine, gcg_dir=str(folder))
    seen = []

    def progress(done):
        seen.append(done)
        if done == 2:
            shutil.rmtree(folder)  # after the first batch

    report = run_selfplay(5, config, lexicon=enable, progress=progress)
    assert seen == [2, 4, 5] and report.results == _plain(enable, 5, engine=engine).results
    assert report.records_unwritten == 3 and report.unwritten_games == [2, 3, 4]
    assert report.records_error == (f"game 2: cannot write {str(folder / 'game000002.gcg')!r}: "
                                    f"there is no folder {str(folder)!r}")


def test_a_table_keeps_the_unwritten_records_through_put_concat_and_pickling():
    import pickle

    from racksmith.play.selfplay import GameResult
    from racksmith.play.tables import GameTable

    rs = [GameResult(i, i % 2, (300 + i, 200), (0, 1), 20, 20, 100) for i in range(6)]
    a = GameTable.from_results(rs[:3], 2, unwritten={2: "disk full"})
    b = GameTable.from_results(rs[3:], 2, unwritten={0: "gone", 2: "gone too"})
    assert a.records_unwritten == 1 and a.unwritten_error == (2, "disk full") and a.unwritten_rows().tolist() == [2]
    plain = GameTable.from_results(rs[:3], 2)
    assert plain.unwritten is None and plain.records_unwritten == 0 and plain != a
    assert a.nbytes == plain.nbytes + 3  # a byte a game, only in a table that lost a record
    joined = GameTable.concat([a, b], 2)
    assert joined.unwritten_rows().tolist() == [2, 3, 5] and joined.unwritten_error == (2, "disk full")
    run = GameTable.empty(6, 2)
    run.put(b)  # the later batch first: the first failure is still the lowest game's
    assert run.unwritten_error == (3, "gone")
    run.put(a)
    assert run == joined and run.results() == rs
    assert pickle.loads(pickle.dumps(run)) == run
    fixed = GameTable.from_results(rs[:3], 2)
    run.put(fixed)  # games 0..2 played again, their records written
    assert run.unwritten_rows().tolist() == [3, 5] and run.unwritten_error[0] == 3  # its reason not kept
    run.put(b)
    assert run == GameTable.concat([fixed, b], 2) and run.unwritten_error == (3, "gone")
    with pytest.raises(RacksmithError, match="unwritten record of row 3: the table has 3 rows"):
        GameTable.from_results(rs[:3], 2, unwritten={3: "x"})


@pytest.mark.parametrize("players", [(5, 6), "equity", ("equity",), None, ("equity", None)])
def test_players_must_be_two_or_more_player_specs(players):
    # (5, 6) was an AttributeError ('strip'); "equity" was "unknown player 'e'" (the text iterated)
    with pytest.raises(RacksmithError, match=r"players must be two or more player specs \(texts\) such as "
                                             r"\('equity', 'score'\), got"):
        run_selfplay(1, SelfPlayConfig(players=players))


# --- the command line: bad input before any note, and notes that are true --------------------------------
def _bad_gcg_dir(tmp_path):
    (tmp_path / "a-file").write_text("x")
    return str(tmp_path / "a-file" / "games")  # a folder inside a file: cannot be made


@pytest.mark.parametrize("args, code, message", [
    (["--players", "equity:leaves=/nonexistent/x.klv2,equity"], 1, "/nonexistent/x.klv2"),
    (["--paired", "--players", "equity,equity,score"], 2, "two players, got 3"),
    (["--gcg-dir", None], 1, "cannot write the games' records"),
    (["--engine", "kernel", "--players", "random,equity"], 1, "engine 'kernel' plays built-in equity and score"),
    (["--games", "3", "--paired"], 2, "must be even with --paired"),
    (["--seed", "-1"], 2, "-1 is not in the range 0<=x<=18446744073709551615"),
    (["--jobs", "1000000"], 2, "jobs 1,000,000 is too many"),
])
def test_cli_selfplay_refuses_bad_input_before_any_note(capsys, tmp_path, args, code, message):
    """One line on stderr, the error: the note that the equity players have no leaves came first
    (three lines, wrapped), when the players, the folder or the engine were refused only by the
    library after it."""
    args = [a if a is not None else _bad_gcg_dir(tmp_path) for a in args]
    games = [] if "--games" in args else ["--games", "2"]
    assert main(["selfplay", *games, *args]) == code
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and message in lines[0] and "note" not in lines[0], err


def test_cli_selfplay_says_which_players_have_leaves(capsys):
    """p1 plays the shipped English leaves, p2 none: stdout said 'equity players: no leave values'."""
    assert main(["selfplay", "--games", "2", "--players", "equity:leaves=english,equity"]) == 0
    out, err = capsys.readouterr()
    assert "leaves: p1 english; p2 none" in out and "equity players: no leave values" not in out
    assert err.strip().splitlines() == ["note: no --leaves given: p2 (equity without leaves of its own) uses equity "
                                        "without leave values (score, opening and end-of-game adjustments); give "
                                        "--leaves shipped (the ruleset's own) or a file"]
    assert main(["selfplay", "--games", "1", "--players", "score,equity:leaves=none"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("1 game in ") and "(1 games" not in out and "1 job)" in out
    assert "equity players: no leave values" in out and err == ""  # none asked for: no note


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_selfplay_reports_every_game_then_fails_when_records_are_lost(capsys, tmp_path, jobs):
    """The report on stdout as usual (the JSON parses), then exit 1 and one line naming the folder
    and the count: an OutputFileError ended the run with only the error, the games lost."""
    (tmp_path / "game000002.gcg").mkdir()
    (tmp_path / "game000005.gcg").mkdir()
    args = ["selfplay", "--games", "6", "--seed", "7", "--players", "score,score", "--fast", "--jobs", jobs,
            "--gcg-dir", str(tmp_path)]
    assert main([*args, "--json"]) == 1
    out, err = capsys.readouterr()
    d = json.loads(out)
    assert d["games"] == 6 and d["invariant_violations"] == 0
    assert (d["records_unwritten"], d["records_unwritten_games"]) == (2, [2, 5])
    first = f"game 2: cannot write {str(tmp_path / 'game000002.gcg')!r}: it is a directory"
    assert d["records_error"] == first
    assert err.splitlines() == [f"racksmith: the records of 2 games could not be written to {tmp_path} (first: {first}); "
                                "the report above counts every game"]
    assert len(list(tmp_path.glob("*.gcg"))) == 6  # four records and the two folders in the way
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert out.startswith("6 games in ") and "records not written: 2 (games 2, 5)" in out
    assert len(err.splitlines()) == 1 and "the records of 2 games could not be written" in err
    assert "Traceback" not in err


def test_cli_selfplay_reports_violations_and_lost_records_a_line_each(capsys, tmp_path, monkeypatch):
    import dataclasses

    import racksmith.play.selfplay as sp

    class Liar(BestScorePlayer):
        def choose(self, view):
            move = super().choose(view)
            return dataclasses.replace(move, score=move.score + 1) if move.is_place else move

    monkeypatch.setattr(sp, "make_player", lambda kind, **kw: Liar())
    (tmp_path / "game000000.gcg").mkdir()
    assert main(["selfplay", "--games", "1", "--seed", "1", "--players", "score,score", "--gcg-dir", str(tmp_path),
                 "--json"]) == 1
    out, err = capsys.readouterr()
    d = json.loads(out)
    assert d["invariant_violations"] >= 10 and d["records_unwritten"] == 1
    lines = err.splitlines()
    assert len(lines) == 2 and "invariant violations; first: game 0, turn" in lines[0]
    assert lines[1].startswith(f"racksmith: the record of 1 game could not be written to {tmp_path} (first: game 0: ")
    assert all(line.startswith("racksmith: ") for line in lines)


def test_a_kind_registered_for_match_is_named_as_such_by_selfplay():
    from racksmith.play.selfplay import parse_player
    from racksmith.play.specs import player_kinds

    assert "sim" in player_kinds()  # a kind match plays, not a built-in self-play player
    with pytest.raises(RacksmithError, match=r"self-play plays the built-in players equity, score, random; 'sim' plays "
                                             r"in a match \(racksmith match --p1 sim --p2 equity\)"):
        parse_player("sim")
    with pytest.raises(RacksmithError, match=r"self-play plays the built-in players equity, score, random$"):
        parse_player("wizard")
    # the command line: that message, and exit 2 (a bad option)
    from racksmith.cli.main import main

    assert main(["selfplay", "--players", "sim,equity", "--games", "2"]) == 2
    assert main(["selfplay", "--players", "equity", "--games", "2"]) == 2


def test_records_name_super_as_magpie_does_and_players_of_one_kind_apart(enable, tmp_path):
    """MAGPIE reads '#tile-distribution english_super' (not 'super') and refuses a record whose two
    players have one name; racksmith reads both back."""
    config = SelfPlayConfig(players=("score", "score"), ruleset="super", seed=4, gcg_dir=str(tmp_path))
    run_selfplay(2, config, lexicon=enable)
    for f in sorted(tmp_path.glob("*.gcg")):
        text = f.read_text(encoding="utf-8")
        assert "#tile-distribution english_super\n" in text
        names = [line.split(None, 2)[2] for line in text.splitlines() if line.startswith("#player")]
        assert sorted(names) == ["racksmith_score_1", "racksmith_score_2"]
        r = replay_file(f)  # no ruleset given: the record's name is read as Super Scrabble
        assert r.ok and r.over and r.ruleset.name == "super"


def _in_a_pool_worker(_):
    from racksmith import SelfPlayConfig, match, run_selfplay

    report = run_selfplay(6, SelfPlayConfig(seed=3), jobs=2)
    result = match("equity", "score", 4, seed=3, jobs=2)
    return [r.scores for r in report.results], (result.p1.wins, result.p1.losses, result.p1.draws)


def test_jobs_inside_a_pool_worker_run_in_that_process():
    """A multiprocessing.Pool's worker is daemonic and may start no processes: run_selfplay and
    match with jobs=2 there gave a bare AssertionError; they now play in the worker, with the
    results of any number of jobs."""
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(1) as pool:
        got = pool.map(_in_a_pool_worker, [0])[0]
    assert got == _in_a_pool_worker(0)


def test_cli_selfplay_names_the_none_legend_only_when_a_player_has_none(capsys):
    """'leaves: p1 english; p2 .../SYNTH.klv2 (none: equity without leave values)': the legend of
    'none' came with every mixed line, also when no player had none."""
    assert main(["selfplay", "--games", "2", "--players", f"equity:leaves=english,equity:leaves={SYNTH}"]) == 0
    out, err = capsys.readouterr()
    line = next(line for line in out.splitlines() if line.startswith("leaves: "))
    assert line == f"leaves: p1 english; p2 {SYNTH}"
    assert main(["selfplay", "--games", "2", "--players", "equity:leaves=english,equity"]) == 0
    out, err = capsys.readouterr()
    assert "leaves: p1 english; p2 none (none: equity without leave values)" in out


def test_a_set_whose_game_totals_could_pass_32_bits_is_not_played_by_the_kernel(tmp_path):
    """The kernel's game loop keeps totals in 32 bits: a set of 60 A's worth 1,000 points on a
    board of triple words wrapped (p1 -1,804,327,096 where he had 2,490,640,200, and the wrong
    winner). Such a set plays through Game, which refuses a total beyond 32 bits when one is
    reached; the shipped rulesets stay in the kernel."""
    from racksmith.play.selfplay import kernel_plays_ruleset
    from racksmith.rules.ruleset import Ruleset, get_ruleset

    assert all(kernel_plays_ruleset(get_ruleset(n)) for n in ("english", "super", "russian", "erudit"))
    path = tmp_path / "ov.toml"
    board = ", ".join(['"' + "~" * 15 + '"'] * 15)
    path.write_text(f'name = "ov"\nlexicon = "enable"\nrack_size = 8\nbingo_bonus = 50\nstart = "8H"\n'
                    f'board = [{board}]\ntiles = [["A", 60, 1000]]\n', encoding="utf-8")
    assert not kernel_plays_ruleset(Ruleset.load(path))
