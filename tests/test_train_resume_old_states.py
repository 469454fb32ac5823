"""``leaves train`` resuming states saved by older racksmiths, and what a win% table says of its
players' leaves.

The old states are written here as the old versions wrote them (``git show`` of
``src/racksmith/training/train.py`` at 1e61459 and at 797e4d8..d1eb055^): version 1, the settings
as given (a ruleset file by its path, before af198d4), no lexicon digest (kept since d1eb055),
one tally file ``gen{g}.tally.npz`` overwritten each round (before 797e4d8) or one named by its
games. A pass with tiles in the bag was worth 0 before 6e6a5ee and a generation's table left the
leaves never tallied at 0 before fcbc9d9: such a state's tallies are not the ones a run of now
makes, so resuming it would mix two trainings."""
from __future__ import annotations

import gzip
import hashlib
import json
import shlex
from importlib import resources

import pytest

import racksmith.training.train as train
from racksmith.cli.main import main
from racksmith.errors import RacksmithError
from racksmith.lexicon import leaves_provenance, load_leaves
from racksmith.lexicon.embedded import embedded_words
from racksmith.rules.ruleset import get_ruleset
from racksmith.training import TrainSettings, train_leaves

ENGLISH = get_ruleset("english")
OLDER = ("saved by an older racksmith (before a pass with tiles in the bag was worth −50, not 0, and a generation's "
         "table held the leaves never tallied at their prior, not at 0")
OLDER_END = ("so resuming would mix two trainings; remove the folder to start over, or finish the run with the "
             "version that started it")


@pytest.fixture(scope="module")
def words(tmp_path_factory):
    """Short ENABLE words: a small lexicon that trains fast."""
    wl = tmp_path_factory.mktemp("lex") / "wl.txt"
    wl.write_text("\n".join(w for w in embedded_words("enable").decode().split() if len(w) <= 5) + "\n",
                  encoding="utf-8")
    return wl


def _settings(wl, **kw) -> TrainSettings:
    return TrainSettings(kw.pop("ruleset", "english"), lexicon=str(wl), games=kw.pop("games", (4, 2)),
                         generations=kw.pop("generations", 2), seed=kw.pop("seed", 5), prior_weight=10, **kw)


def _as_saved_before(sdir, form: str) -> dict:
    """Rewrite the state of now in ``sdir`` as an older racksmith wrote it: ``single`` (0a6f670,
    1e61459: one tally file per generation, no ``resumed_with``) or ``named`` (797e4d8 up to
    d1eb055: tallies named by their games, ``resumed_with``); neither kept the lexicon's digest."""
    state = json.loads((sdir / "state.json").read_text())
    settings = {k: v for k, v in state["settings"].items() if k != "lexicon_sha256"}
    old = {"version": 1, "settings": settings, "generation": state["generation"], "games_done": state["games_done"],
           "commit": None}
    for key in ("observations", "leaves"):
        if key in state:
            old[key] = state[key]
    if form == "named":
        old["resumed_with"] = []
    else:
        g, done = state["generation"], state["games_done"]
        for f in sdir.glob("gen*.*.tally.npz"):
            if f.name == f"gen{g}.{done}.tally.npz":
                f.rename(sdir / f"gen{g}.tally.npz")
            else:
                f.unlink()
        (sdir / "lock").unlink(missing_ok=True)
    (sdir / "state.json").write_text(json.dumps(old, indent=1) + "\n")
    return old


def _killed_between_writes(monkeypatch, out, settings) -> None:
    """A run stopped after its second round's tally was written and before the state counted it."""
    real, saves = train._save_state, []

    def interrupted(sdir, state):
        saves.append(state["games_done"])
        if len(saves) == 3:  # (the fresh state, the first round, then the second)
            raise KeyboardInterrupt
        real(sdir, state)

    monkeypatch.setattr(train, "_save_state", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train_leaves(out, settings, checkpoint=2)
    monkeypatch.setattr(train, "_save_state", real)
    assert saves == [0, 2, 4]


# --- 1. states from before a pass cost 50 and the tables were complete ---------------------------

@pytest.mark.parametrize("form", ["single", "named"])
@pytest.mark.parametrize("stop, generation", [(2, 1), (4, 2)])
def test_a_state_of_an_older_racksmith_that_holds_games_is_refused(tmp_path, words, form, stop, generation):
    out = tmp_path / "x.klv2"
    s = _settings(words)
    assert not train_leaves(out, s, checkpoint=2, stop_after=stop).finished
    sdir = tmp_path / "x.klv2.train"
    old = _as_saved_before(sdir, form)
    assert old["generation"] == generation
    with pytest.raises(RacksmithError) as e:
        train_leaves(out, s, checkpoint=2)
    assert str(e.value) == (f"{str(sdir)!r} holds a training run {OLDER}: 2026-11-29 and 2026-11-30): its tallies "
                            f"value passes and tables differently, {OLDER_END}")
    assert json.loads((sdir / "state.json").read_text()) == old and not out.exists()  # left as it was


def test_the_command_line_refuses_an_older_state_in_one_line(tmp_path, words, capsys):
    out = tmp_path / "x.klv2"
    train_leaves(out, _settings(words), checkpoint=2, stop_after=2)
    _as_saved_before(tmp_path / "x.klv2.train", "single")
    code = main(["leaves", "train", "-r", "english", "--lexicon", str(words), "--games", "4,2", "--seed", "5",
                 "--prior-weight", "10", "--checkpoint", "2", "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and err[0].startswith("racksmith: ") and OLDER in err[0]
    assert err[0].endswith(OLDER_END) and not out.exists()


def test_a_state_saved_since_both_changes_resumes_byte_for_byte_and_stays_version_1(tmp_path, words):
    """(The version is not bumped: the racksmiths since the digest, which read version 1 only, go
    on reading the runs this one continues.)"""
    s = _settings(words)
    train_leaves(tmp_path / "whole.klv2", s, checkpoint=2)
    out = tmp_path / "x.klv2"
    train_leaves(out, s, checkpoint=2, stop_after=2)
    f = tmp_path / "x.klv2.train" / "state.json"
    state = json.loads(f.read_text())
    assert state["version"] == 1 and "lexicon_sha256" in state["settings"]  # as d1eb055 on wrote it
    assert not train_leaves(out, s, checkpoint=2, stop_after=2).finished
    assert json.loads(f.read_text())["version"] == 1
    assert train_leaves(out, s, checkpoint=2).finished
    assert out.read_bytes() == (tmp_path / "whole.klv2").read_bytes()


def test_a_state_of_a_newer_racksmith_is_refused_saying_so(tmp_path, words):
    out = tmp_path / "x.klv2"
    train_leaves(out, _settings(words), checkpoint=2, stop_after=2)
    f = tmp_path / "x.klv2.train" / "state.json"
    f.write_text(json.dumps({**json.loads(f.read_text()), "version": 2}))
    with pytest.raises(RacksmithError) as e:
        train_leaves(out, _settings(words), checkpoint=2)
    assert "saved by a newer racksmith (state version 2; this one reads version 1): finish the run with the version " \
           "that started it, or remove the folder to start over" in str(e.value)


def test_an_older_state_that_played_nothing_resumes(tmp_path, words):
    """A run stopped before its first round holds no tally: nothing to mix; it goes on as a state
    of now (the lexicon's digest kept)."""
    s = _settings(words, games=2, generations=1)
    train_leaves(tmp_path / "whole.klv2", s, checkpoint=2)
    out = tmp_path / "x.klv2"
    sdir = tmp_path / "x.klv2.train"
    sdir.mkdir()
    (sdir / "state.json").write_text(json.dumps({
        "version": 1, "settings": {"ruleset": "english", "lexicon": str(words), "games": 2, "generations": 1, "seed": 5,
                                   "start": None, "prior_weight": 10.0},
        "generation": 1, "games_done": 0, "commit": None}))
    assert not train_leaves(out, s, checkpoint=1, stop_after=1).finished
    state = json.loads((sdir / "state.json").read_text())
    assert state["version"] == 1 and state["games_done"] == 1 and "lexicon_sha256" in state["settings"]
    assert train_leaves(out, s, checkpoint=1).finished
    assert out.read_bytes() == (tmp_path / "whole.klv2").read_bytes()


# --- 2. a tally ahead of its state -------------------------------------------------------------------

def test_an_older_state_whose_tally_is_ahead_of_it_says_so(tmp_path, words, monkeypatch):
    """Killed between writing gen1.tally.npz and state.json (as racksmith before 797e4d8 could be):
    the tally holds a round the state does not count; that version would count it twice."""
    out = tmp_path / "x.klv2"
    s = _settings(words)
    _killed_between_writes(monkeypatch, out, s)
    sdir = tmp_path / "x.klv2.train"
    counted = json.loads((sdir / "state.json").read_text())["observations"]["1"]
    (sdir / "gen1.2.tally.npz").unlink()
    (sdir / "gen1.4.tally.npz").rename(sdir / "gen1.tally.npz")  # the one file, written over with 4 games
    _as_saved_before(sdir, "single")
    held = train.RackTally.load(sdir / "gen1.tally.npz").observations
    assert held > counted
    with pytest.raises(RacksmithError) as e:
        train_leaves(out, s, checkpoint=2)
    assert str(e.value) == (f"training state {str(sdir)!r}: the tally gen1.tally.npz holds {held:,} turns of "
                            f"generation 1, the state {counted:,} (a run stopped between writing the two: resuming "
                            "would count the games of a round twice); remove the folder to start over")


def test_a_state_whose_tally_holds_other_turns_is_refused(tmp_path, words, monkeypatch):
    out = tmp_path / "x.klv2"
    s = _settings(words)
    _killed_between_writes(monkeypatch, out, s)
    sdir = tmp_path / "x.klv2.train"
    (sdir / "gen1.2.tally.npz").unlink()
    (sdir / "gen1.4.tally.npz").rename(sdir / "gen1.tally.npz")  # the old name, in a state of now
    with pytest.raises(RacksmithError, match=r"the tally gen1.tally.npz holds [\d,]+ turns of generation 1, the state "
                                             r"[\d,]+ \(a run stopped between writing the two"):
        train_leaves(out, s, checkpoint=2)
    # a state that counts more turns than its tally holds: damaged
    out = tmp_path / "y.klv2"
    train_leaves(out, s, checkpoint=2, stop_after=2)
    f = tmp_path / "y.klv2.train" / "state.json"
    state = json.loads(f.read_text())
    state["observations"]["1"] += 1
    f.write_text(json.dumps(state))
    with pytest.raises(RacksmithError) as e:
        train_leaves(out, s, checkpoint=2)
    held = state["observations"]["1"] - 1
    assert str(e.value) == (f"training state {str(f.parent)!r}: the tally gen1.2.tally.npz holds {held:,} turns of "
                            f"generation 1, the state {held + 1:,}; remove the folder to start over")


# --- 3. --from english: another table since ----------------------------------------------------------

def _trained_english() -> bytes:
    return gzip.decompress(resources.files("racksmith.lexicon").joinpath("data", "leaves-english.klv2.gz").read_bytes())


def test_a_run_started_from_the_trained_english_file_says_how_to_resume(tmp_path, words, capsys):
    trained = _trained_english()
    digest = hashlib.sha256(trained).hexdigest()
    assert digest == leaves_provenance("english")["completed"]["trained_sha256"]
    out = tmp_path / "f.klv2"
    sdir = tmp_path / "f.klv2.train"
    sdir.mkdir()
    # what 1e61459 wrote at the start of `leaves train ... --from english` (english: the trained file then)
    (sdir / "state.json").write_text(json.dumps({
        "version": 1, "settings": {"ruleset": "english", "lexicon": str(words), "games": 2, "generations": 1,
                                   "seed": 3, "start": digest, "prior_weight": 10.0},
        "generation": 1, "games_done": 0, "commit": None}))
    args = ["leaves", "train", "-r", "english", "--lexicon", str(words), "--games", "2", "--generations", "1",
            "--seed", "3", "--prior-weight", "10", "-o", str(out)]
    code = main([*args, "--from", "english"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1
    gz = resources.files("racksmith.lexicon").joinpath("data", "leaves-english.klv2.gz")
    complete = leaves_provenance("english")["sha256"]
    assert (f"start leaves (--from) sha256 {digest[:12]}… then: the trained file of the shipped english set, which "
            f"--from english gave before 2026-11-30; --from english now gives the english table completed since "
            f"(sha256 {complete[:12]}…), this run's: to resume, give --from english-trained.klv2, made by "
            f"gunzip -c {shlex.quote(str(gz))} > english-trained.klv2") in err[0]
    (tmp_path / "english-trained.klv2").write_bytes(trained)  # (what gunzip -c writes)
    code = main([*args, "--from", str(tmp_path / "english-trained.klv2")])
    assert code == 0 and out.is_file() and not sdir.exists()


# --- 4. a ruleset file, from before its digest was kept -------------------------------------------

def test_an_older_state_of_a_ruleset_file_is_not_said_to_have_another_file(tmp_path, words):
    rules = tmp_path / "own.json"
    rules.write_text(json.dumps({**ENGLISH.to_dict(), "aliases": [], "name": "own"}), encoding="utf-8")
    sdir = tmp_path / "x.klv2.train"

    def saved_then():  # what 1e61459 wrote at the start of a run: the ruleset as given, no digests
        sdir.mkdir(exist_ok=True)
        (sdir / "state.json").write_text(json.dumps({
            "version": 1, "settings": {"ruleset": str(rules), "lexicon": str(words), "games": 2, "generations": 1,
                                       "seed": 3, "start": None, "prior_weight": 10.0},
            "generation": 1, "games_done": 0, "commit": None}))

    saved_then()
    with pytest.raises(RacksmithError) as e:
        train_leaves(tmp_path / "x.klv2", _settings(words, ruleset=str(rules), games=2, generations=1, seed=4))
    assert str(e.value).endswith("holds a training run with other settings: seed 3 then, 4 now; give the same "
                                 "settings to resume, or remove the folder to start over")
    done = train_leaves(tmp_path / "x.klv2", _settings(words, ruleset=str(rules), games=2, generations=1, seed=3))
    assert done.finished and done.provenance["ruleset"] == "own"


def test_a_shipped_ruleset_then_and_a_file_of_its_name_now_are_named_so(tmp_path, words):
    out = tmp_path / "x.klv2"
    train_leaves(out, _settings(words), checkpoint=2, stop_after=2)
    rules = tmp_path / "english.json"
    rules.write_text(json.dumps({**ENGLISH.to_dict(), "aliases": [], "bingo_bonus": 10}), encoding="utf-8")
    with pytest.raises(RacksmithError) as e:
        train_leaves(out, _settings(words, ruleset=str(rules)), checkpoint=2)
    assert "other settings: ruleset english: the shipped one then, a file now; give the same settings" in str(e.value)
    assert "changed" not in str(e.value)


# --- 5. a win% table's leaves by their sha256 --------------------------------------------------------

def test_a_winpct_tables_provenance_gives_its_leaves_sha256(tmp_path, capsys):
    table = tmp_path / "e.winpct"
    assert main(["winpct", "train", "--games", "4", "--seed", "4", "-o", str(table)]) == 0
    prov = json.loads((tmp_path / "e.winpct.json").read_text())
    english = hashlib.sha256(load_leaves("english", "english").tobytes()).hexdigest()
    assert prov["leaves"] == "english" and prov["leaves_sha256"] == english == leaves_provenance("english")["sha256"]
    assert list(prov).index("leaves_sha256") == list(prov).index("leaves") + 1
    capsys.readouterr()
    assert main(["winpct", "show", str(table), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["provenance"]["leaves_sha256"] == english
    own = tmp_path / "own.klv2"
    own.write_bytes(_trained_english())
    assert main(["winpct", "train", "--games", "4", "--seed", "4", "--leaves", str(own), "-o", str(table)]) == 0
    prov = json.loads((tmp_path / "e.winpct.json").read_text())
    assert prov["leaves"] == "own.klv2" and prov["leaves_sha256"] == hashlib.sha256(own.read_bytes()).hexdigest()
    assert main(["winpct", "train", "--games", "4", "--seed", "4", "--leaves", "none", "-o", str(table)]) == 0
    assert json.loads((tmp_path / "e.winpct.json").read_text())["leaves_sha256"] is None
    # a sidecar written before the digest was kept is read as it is
    del prov["leaves_sha256"]
    (tmp_path / "e.winpct.json").write_text(json.dumps(prov))
    capsys.readouterr()
    assert main(["winpct", "show", str(table), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["provenance"] == prov


def test_a_run_on_a_copy_of_a_shipped_ruleset_file_resumes(tmp_path, words):
    """3951d03 kept the digest of a ruleset given by a file, a copy of english.toml included; such a
    copy is now the shipped ruleset (rulesets compare by their rules), whose digest is not kept:
    the run was refused as 'ruleset english: a file then, the shipped one now'."""
    copy = tmp_path / "myenglish.json"
    copy.write_text(json.dumps(ENGLISH.to_dict()), encoding="utf-8")
    s = _settings(words, ruleset=str(copy))
    train_leaves(tmp_path / "whole.klv2", s, checkpoint=2)
    out = tmp_path / "x.klv2"
    train_leaves(out, s, checkpoint=2, stop_after=2)
    f = tmp_path / "x.klv2.train" / "state.json"
    state = json.loads(f.read_text())
    assert "ruleset_sha256" not in state["settings"]
    state["settings"]["ruleset_sha256"] = ENGLISH.content_sha256()  # as 3951d03 kept it for the copy
    f.write_text(json.dumps(state))
    assert train_leaves(out, s, checkpoint=2).finished
    assert out.read_bytes() == (tmp_path / "whole.klv2").read_bytes()


def test_a_winpct_run_keeps_the_digest_of_the_leaves_it_played_if_the_file_moves_meanwhile(tmp_path):
    """The digest was taken after the games: a leave file moved during the run lost the whole run
    ('cannot read leave file'), one overwritten gave the digest of a table nobody played."""
    from racksmith.sim.winpct import train_winpct

    own = tmp_path / "own.klv2"
    own.write_bytes(_trained_english())
    digest = hashlib.sha256(own.read_bytes()).hexdigest()

    def move_it(done):
        if own.exists():
            own.rename(tmp_path / "moved.klv2")

    wp, _ = train_winpct("english", 50, leaves=str(own), seed=4, progress=move_it)
    assert not own.exists() and wp.provenance["leaves_sha256"] == digest
