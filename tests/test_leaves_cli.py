"""``racksmith leaves ...`` through the real entry point."""
from __future__ import annotations

import json
from pathlib import Path


from racksmith.cli.main import main

FIXTURES = Path(__file__).parent / "fixtures"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_value_against_the_csv(capsys):
    code, out, _ = run(capsys, "leaves", "value", FIXTURES / "SYNTH.klv2", "?ERS", "SRE?", "Q", "", "QQ", "--json")
    assert code == 0
    # the CSV's own figures (the file's float32 in its shortest digits, not 37.277000427246094)
    assert json.loads(out) == {"?ERS": 37.277, "SRE?": 37.277, "Q": -9.198, "": 0.0, "QQ": 0.0}


def test_small_csv_and_errors(tmp_path, capsys):
    csv = tmp_path / "l.csv"
    csv.write_text("?,25.5\nES,3\n", encoding="utf-8")
    code, out, err = run(capsys, "leaves", "value", csv, "SE", "?", "Z")
    assert code == 0 and err == "" and "SE: 3" in out and "?: 25.5" in out and "Z: 0" in out
    code, _, err = run(capsys, "leaves", "value", tmp_path / "missing.klv2", "A")
    assert code == 1 and "cannot read leave file" in err
    code, _, err = run(capsys, "leaves", "value", FIXTURES / "ENABLE15.kwg", "A")
    assert code == 1 and "leave file" in err


def test_a_latin_twin_in_a_russian_csv_is_named_with_its_line(tmp_path, capsys):
    csv = tmp_path / "l.csv"
    csv.write_text("leave,value\nБ,2\nA,1.5\n", encoding="utf-8")  # Latin A on line 3
    assert main(["leaves", "build", str(csv), "-o", str(tmp_path / "l.klv2"), "--ruleset", "russian"]) == 1
    err = capsys.readouterr().err.strip()
    assert "line 3: leave 'A': letter 'A' is not in the alphabet of russian" in err
    assert "Latin twin of Cyrillic 'А'" in err and len(err.splitlines()) == 1


def test_a_cyrillic_csv_without_a_ruleset_names_the_rulesets_that_read_it(tmp_path, capsys):
    csv = tmp_path / "l.csv"
    csv.write_text("leave,value\nЖ,-2\nАБ,1.5\n", encoding="utf-8")
    assert main(["leaves", "build", str(csv), "-o", str(tmp_path / "l.klv2")]) == 1
    err = capsys.readouterr().err.strip()
    assert "not in the alphabet of english" in err and len(err.splitlines()) == 1
    assert err.endswith("give --ruleset russian or --ruleset erudit")
    assert not (tmp_path / "l.klv2").exists()
    # a ruleset given is not second-guessed: the error is the letter's alone
    assert main(["leaves", "build", str(csv), "-o", str(tmp_path / "l.klv2"), "--ruleset", "english"]) == 1
    assert "--ruleset russian" not in capsys.readouterr().err
    assert main(["leaves", "build", str(csv), "-o", str(tmp_path / "l.klv2"), "--ruleset", "russian"]) == 0


def test_training_a_ruleset_with_racks_over_seven_tiles_is_refused_in_one_line(tmp_path, capsys):
    """A user ruleset with 8-tile racks plays everywhere, but a tally's keys hold 7 tiles: training
    ended in a traceback (numpy's broadcast error) after playing its first games."""
    from importlib import resources

    text = (resources.files("racksmith.rules").joinpath("rulesets", "english.toml").read_text("utf-8")
            .replace('name = "english"', 'name = "eight"').replace("rack_size = 7", "rack_size = 8")
            .replace("exchange_limit = 7", "exchange_limit = 8"))
    text = "\n".join(line for line in text.splitlines() if not line.startswith("aliases"))
    ruleset = tmp_path / "eight.toml"
    ruleset.write_text(text, encoding="utf-8")
    out = tmp_path / "eight.klv2"
    code = main(["leaves", "train", "--ruleset", str(ruleset), "--games", "20", "--seed", "1", "-o", str(out)])
    _, err = capsys.readouterr()
    assert code == 1 and not out.exists() and not (tmp_path / "eight.klv2.state").exists()
    assert err.strip() == ("racksmith: leave training handles racks of 2 to 7 tiles; eight has racks of 8: "
                           "build its leaves from a CSV instead (racksmith leaves build)")
