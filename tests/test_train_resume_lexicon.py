"""``leaves train``: a run is resumed only with the lexicon (and settings) it started with, a
refusal names what changed, and the result says how many leaves training saw."""
from __future__ import annotations

import hashlib
import json

import pytest

from racksmith.cli.main import main
from racksmith.errors import RacksmithError
from racksmith.lexicon import load_lexicon
from racksmith.lexicon.embedded import embedded_words
from racksmith.rules.ruleset import get_ruleset
from racksmith.training import TrainSettings, train_leaves

ENGLISH = get_ruleset("english")


def _words(every: int = 1) -> str:
    """Short ENABLE words (every ``every``-th of them): a small lexicon that trains fast."""
    short = [w for w in embedded_words("enable").decode().split() if len(w) <= 5]
    return "\n".join(short[::every]) + "\n"


def _settings(lexicon, **kw) -> TrainSettings:
    return TrainSettings("english", lexicon=str(lexicon), games=kw.pop("games", 4), generations=1,
                         seed=kw.pop("seed", 5), prior_weight=10, **kw)


def test_a_run_is_not_resumed_with_a_word_list_changed_since(tmp_path):
    wl = tmp_path / "wl.txt"
    wl.write_text(_words(), encoding="utf-8")
    s = _settings(wl)
    whole = train_leaves(tmp_path / "whole.klv2", s, checkpoint=2)
    assert not train_leaves(tmp_path / "x.klv2", s, checkpoint=2, stop_after=2).finished
    wl.write_text(_words(2), encoding="utf-8")  # half the words: another lexicon under the same name
    with pytest.raises(RacksmithError) as e:
        train_leaves(tmp_path / "x.klv2", s, checkpoint=2)
    msg = str(e.value)
    assert "other settings: the lexicon changed since the run started (" in msg and str(wl) in msg
    assert msg.endswith("give the same lexicon to resume, or remove the folder to start over")
    assert not (tmp_path / "x.klv2").exists() and (tmp_path / "x.klv2.train" / "state.json").exists()
    # given the same words again, the run goes on to the uninterrupted run's file
    wl.write_text(_words(), encoding="utf-8")
    done = train_leaves(tmp_path / "x.klv2", s, checkpoint=2)
    assert done.finished and (tmp_path / "x.klv2").read_bytes() == (tmp_path / "whole.klv2").read_bytes()
    digest = hashlib.sha256(load_lexicon(wl, ENGLISH).tobytes()).hexdigest()
    for prov in (whole.provenance, json.loads((tmp_path / "x.klv2.json").read_text(encoding="utf-8"))):
        assert prov["lexicon"] == str(wl) and prov["lexicon_sha256"] == digest
    keys = list(whole.provenance)
    assert keys.index("lexicon_sha256") == keys.index("lexicon") + 1


def test_a_relative_kwg_from_another_folder_is_not_the_same_lexicon(tmp_path, monkeypatch, capsys):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (tmp_path / "w.txt").write_text(_words(), encoding="utf-8")
    (tmp_path / "h.txt").write_text(_words(2), encoding="utf-8")
    load_lexicon(tmp_path / "w.txt", ENGLISH).save(one / "club.kwg")
    load_lexicon(tmp_path / "h.txt", ENGLISH).save(two / "club.kwg")
    out = tmp_path / "mixed.klv2"
    monkeypatch.chdir(one)
    assert not train_leaves(out, _settings("club.kwg"), checkpoint=2, stop_after=2).finished
    monkeypatch.chdir(two)
    args = ["leaves", "train", "--ruleset", "english", "--lexicon", "club.kwg", "--games", "4", "--generations", "1",
            "--seed", "5", "--prior-weight", "10", "--checkpoint", "2", "-o", str(out)]
    assert main(args) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the lexicon changed since the run started (club.kwg: sha256 " in err
    assert not out.exists()
    # the same file from the first folder resumes it
    monkeypatch.chdir(one)
    assert main(args) == 0
    assert out.exists()


def test_the_refusal_names_each_setting_that_differs(tmp_path):
    wl = tmp_path / "wl.txt"
    wl.write_text(_words(), encoding="utf-8")
    train_leaves(tmp_path / "x.klv2", _settings(wl), checkpoint=2, stop_after=2)
    with pytest.raises(RacksmithError) as e:
        train_leaves(tmp_path / "x.klv2", _settings(wl, seed=6, games=8, probes=2), checkpoint=2)
    msg = str(e.value)
    assert "other settings: games 4 then, 8 now; seed 5 then, 6 now; probes 0 then, 2 now; give the same settings " \
           "to resume, or remove the folder to start over" in msg
    assert "{" not in msg  # (the saved settings' dict was printed raw)


def test_the_refusal_says_the_ruleset_file_changed(tmp_path):
    wl = tmp_path / "wl.txt"
    wl.write_text(_words(), encoding="utf-8")
    rules = tmp_path / "own.json"

    def write(**fields):
        rules.write_text(json.dumps({**ENGLISH.to_dict(), "aliases": [], "name": "own", **fields}), encoding="utf-8")

    write()
    s = TrainSettings(str(rules), lexicon=str(wl), games=4, generations=1, seed=1, prior_weight=10)
    assert not train_leaves(tmp_path / "x.klv2", s, checkpoint=2, stop_after=2).finished
    write(bingo_bonus=10)
    with pytest.raises(RacksmithError) as e:
        train_leaves(tmp_path / "x.klv2", s, checkpoint=2)
    assert str(e.value).endswith("holds a training run with other settings: the ruleset file changed since the run "
                                 "started; give the same ruleset file to resume, or remove the folder to start over")


def test_racks_of_one_tile_need_no_leave_file(tmp_path, capsys):
    rules = tmp_path / "one.json"
    rules.write_text(json.dumps({**ENGLISH.to_dict(), "aliases": [], "name": "one", "rack_size": 1,
                                 "exchange_limit": 1}), encoding="utf-8")
    out = tmp_path / "one.klv2"
    code = main(["leaves", "train", "--ruleset", str(rules), "--games", "4", "-o", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 1 and not out.exists() and not (tmp_path / "one.klv2.train").exists()
    assert err == ("racksmith: leave training handles racks of 2 to 7 tiles; one has racks of 1, which keep no leave: "
                   "a move's equity is its score, and one needs no leave file")


def test_the_leaves_training_saw_are_counted(tmp_path, capsys):
    wl = tmp_path / "wl.txt"
    wl.write_text(_words(), encoding="utf-8")
    out = tmp_path / "c.klv2"
    assert main(["leaves", "train", "--ruleset", "english", "--lexicon", str(wl), "--games", "4", "--generations", "1",
                 "--seed", "5", "--checkpoint", "2", "-o", str(out)]) == 0
    line = capsys.readouterr().out.strip()
    prov = json.loads((tmp_path / "c.klv2.json").read_text(encoding="utf-8"))
    tallied, prior = prov["tallied_leaves"], prov["prior_leaves"]
    assert 0 < tallied < prov["leaves"] and tallied + prior == prov["leaves"] == 914_624
    assert prov["absent_leaves"] == "prior"  # (kept as it was)
    assert line.startswith(f"{out}: 914,624 leaves ({tallied:,} seen in training, {prior:,} at their prior) "
                           "from 4 games (1 generation), ")
