"""Ruleset files of a user's own, through every command that plays them: training carries the
ruleset itself to its workers, a relative lexicon is read beside the file, letters are compared
composed (NFC), a byte-order mark is read past, and a set too small for two racks is refused."""
from __future__ import annotations

import dataclasses
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from racksmith import Alphabet, Game, Lexicon, Position, Ruleset, RulesetError, UnknownLetterError, get_ruleset
from racksmith.cli.main import main
from racksmith.errors import CGPError, GCGError, LexiconFormatError, RacksmithError
from racksmith.lexicon import load_leaves

ENGLISH = get_ruleset("english")
#: the middle 11x11 of the English board, its centre the start
BOARD11 = [row[2:13] for row in ENGLISH.layout()[2:13]]


def ruleset_file(folder: Path, filename: str, **fields) -> Path:
    """English with ``fields`` changed, as a JSON ruleset file."""
    data = {**ENGLISH.to_dict(), "aliases": [], **fields}
    path = folder / filename
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def board11(folder: Path, filename: str, **fields) -> Path:
    return ruleset_file(folder, filename, board=BOARD11, start="6F", **fields)


# --- 1. training plays the ruleset it is given, on every backend ---------------------------------------
@pytest.mark.slow
def test_leave_training_plays_the_ruleset_file_it_is_given(tmp_path):
    from racksmith.training import TrainSettings, train_leaves

    own = board11(tmp_path, "own.json", name="diacritic11")  # a name no worker could look up
    fake = board11(tmp_path, "fake.json", name="english", bingo_bonus=0)  # a name that finds another ruleset

    def train(ruleset, out: str, jobs: int):
        s = TrainSettings(ruleset, games=6, generations=1, seed=3, prior_weight=10)
        return train_leaves(tmp_path / out, s, jobs=jobs, checkpoint=6)

    shipped = train("english", "shipped.klv2", 1)
    assert "ruleset_file" not in shipped.provenance
    assert shipped.provenance["ruleset_sha256"] == ENGLISH.content_sha256()
    for path in (own, fake):
        rs = Ruleset.load(path)
        one = train(str(path), f"{path.stem}-1.klv2", 1)
        two = train(rs, f"{path.stem}-2.klv2", 2)
        assert one.leaves.tobytes() == two.leaves.tobytes() != shipped.leaves.tobytes()
        for prov in (one.provenance, two.provenance):
            assert prov["ruleset"] == rs.name
            assert prov["ruleset_sha256"] == rs.content_sha256() != ENGLISH.content_sha256()
            assert prov["ruleset_file"] == str(path.absolute())
        saved = json.loads((tmp_path / f"{path.stem}-1.klv2.json").read_text(encoding="utf-8"))
        assert saved["ruleset_file"] == str(path.absolute()) and saved["ruleset"] == rs.name
        assert saved["alphabet"] == list(rs.alphabet.letters)
        # the provenance says what the tile numbers spell: other letters are refused
        load_leaves(tmp_path / f"{path.stem}-1.klv2", rs)
        with pytest.raises(LexiconFormatError, match=f"trained for ruleset {rs.name} .* not those of russian"):
            load_leaves(tmp_path / f"{path.stem}-1.klv2", "russian")
    # the command line, with worker processes, makes the same file
    args = ["leaves", "train", "--ruleset", str(fake), "--games", "6", "-g", "1", "--seed", "3", "--prior-weight", "10",
            "--checkpoint", "6", "-j", "2", "-o", str(tmp_path / "cli.klv2")]
    assert main(args) == 0
    assert (tmp_path / "cli.klv2").read_bytes() == (tmp_path / "fake-1.klv2").read_bytes()


def test_a_training_job_carries_the_ruleset_not_its_name(tmp_path):
    from racksmith.play.backends import ruleset_ref
    from racksmith.training.games import TallyJob

    fake = Ruleset.load(board11(tmp_path, "fake.json", name="english", bingo_bonus=0))
    assert ruleset_ref("english") == "english" and ruleset_ref(ENGLISH) == "english"
    assert ruleset_ref(fake) is fake  # never "english", which a worker would find shipped
    made = Ruleset.from_dict({**fake.to_dict(), "name": "in-code"})  # read from no file: travels all the same
    assert ruleset_ref(made) is made
    job = TallyJob(ruleset_ref(fake), None, None, 1, 1)
    back = pickle.loads(pickle.dumps(job))  # as a worker process or a Ray task receives it
    assert back == job and hash(back) == hash(job)
    assert back.setup()[0] == fake


def test_a_resumed_training_refuses_a_ruleset_file_changed_since(tmp_path):
    from racksmith.training import TrainSettings, train_leaves

    path = board11(tmp_path, "own.json", name="own11")
    s = TrainSettings(str(path), games=4, generations=1, seed=1, prior_weight=10)
    assert not train_leaves(tmp_path / "x.klv2", s, checkpoint=2, stop_after=2).finished
    board11(tmp_path, "own.json", name="own11", bingo_bonus=10)
    with pytest.raises(RacksmithError, match="other settings"):
        train_leaves(tmp_path / "x.klv2", s, checkpoint=2)


@pytest.mark.slow
def test_winpct_training_plays_the_ruleset_file_it_is_given(tmp_path):
    from racksmith.sim.winpct import train_winpct

    fake = board11(tmp_path, "fake.json", name="english", bingo_bonus=0)
    own = board11(tmp_path, "own.json", name="diacritic11")
    _, shipped = train_winpct("english", 4, seed=2)
    for path in (fake, own):
        rs = Ruleset.load(path)
        wp1, one = train_winpct(str(path), 4, seed=2)
        wp2, two = train_winpct(rs, 4, seed=2, jobs=2)
        assert np.array_equal(one.counts, two.counts) and wp1.text() == wp2.text()
        assert not np.array_equal(one.counts, shipped.counts)
        assert wp1.provenance["ruleset"] == rs.name and wp1.provenance["ruleset_sha256"] == rs.content_sha256()
        assert wp1.provenance["ruleset_file"] == str(path.absolute())


# --- 2. a lexicon file beside the ruleset file --------------------------------------------------------------
SMALL_TOML = """\
name = "small"
rack_size = 3
bingo_bonus = 5
start = "3C"
board = [".....", ".'.'.", "..-..", ".'.'.", "....."]
tiles = [["A", 8, 1], ["B", 4, 3], ["E", 8, 1]]
lexicon = "{lexicon}"
"""
SMALL_WORDS = ["AB", "BA", "BE", "EA", "ABE", "BAA", "BEE", "BEA"]


def small_game(folder: Path, lexicon: str = "words.txt") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "words.txt").write_text("\n".join(SMALL_WORDS) + "\n", encoding="utf-8")
    path = folder / "small.toml"
    path.write_text(SMALL_TOML.format(lexicon=lexicon), encoding="utf-8")
    return path


def test_a_relative_lexicon_is_read_from_the_ruleset_files_folder(tmp_path, monkeypatch, capsys):
    from racksmith.lexicon.load import ruleset_lexicon
    from racksmith.play import match

    path = small_game(tmp_path / "game")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    rs = Ruleset.load(path)
    assert rs.lexicon == str(tmp_path / "game" / "words.txt")  # made absolute once, at load
    assert get_ruleset(str(path)).lexicon == rs.lexicon
    pos = Position.empty(rs, "ABE")
    assert "3A ABE" in [m.notation() for m in pos.moves()]
    assert pos.validate("3A ABE").legal
    assert sorted(ruleset_lexicon(rs).words()) == sorted(SMALL_WORDS)  # selfplay's way in
    board = elsewhere / "board.txt"
    board.write_text("\n".join(["....."] * 5) + "\n", encoding="utf-8")
    assert main(["moves", "--ruleset", str(path), "--board", str(board), "--rack", "ABE"]) == 0
    assert "ABE" in capsys.readouterr().out
    assert match("equity:leaves=none", "score", 4, ruleset=str(path)).p1.games == 4
    assert main(["match", "--p1", "equity:leaves=none", "--p2", "score", "--games", "2", "--ruleset", str(path)]) == 0
    assert main(["selfplay", "--games", "2", "--ruleset", str(path)]) == 0
    capsys.readouterr()


def test_a_relative_ruleset_path_and_a_kwg_lexicon_in_a_subfolder(tmp_path, monkeypatch):
    game = tmp_path / "game"
    path = small_game(game, "lex/small.kwg")
    (game / "lex").mkdir()
    Lexicon.from_words(SMALL_WORDS, Ruleset.load(path)).save(game / "lex" / "small.kwg")
    monkeypatch.chdir(tmp_path)
    rs = Ruleset.load("game/small.toml")  # the ruleset's own path relative to the working directory
    assert rs.lexicon == str(game / "lex" / "small.kwg")
    monkeypatch.chdir(game / "lex")
    pos = Position.empty(rs, "ABE")
    assert "3A ABE" in [m.notation() for m in pos.moves()]
    # records and notes name the lexicon by its file, not by the folder it is in
    assert pos.lexicon_name == "small" and Position.empty(rs, "ABE", lexicon=rs.lexicon).lexicon_name == "small"
    assert "#lexicon small\n" in Game(rs, seed=1).gcg()


def test_an_embedded_lexicon_name_stays_a_name(tmp_path, monkeypatch):
    path = board11(tmp_path, "own.json", name="own11", lexicon="enable")
    (tmp_path / "enable").write_text("NOTAWORD\n", encoding="utf-8")  # never read in its place
    monkeypatch.chdir(tmp_path)
    rs = Ruleset.load(path)
    assert rs.lexicon == "enable"
    from racksmith.lexicon.load import ruleset_lexicon

    assert "QAT" in ruleset_lexicon(rs)
    assert Ruleset.from_dict(rs.to_dict()) == dataclasses.replace(rs, source="<dict>")


# --- 3 and 4. letters compared composed and uppercased; duplicates named by entry --------------------------
DECOMPOSED_A = "A\u0301"  # A + COMBINING ACUTE ACCENT: Á written in two code points


def test_decomposed_letters_in_a_ruleset_file_are_composed(tmp_path):
    data = {"name": "czech-ish", "board": ["....."] * 5, "start": "3C", "rack_size": 3, "bingo_bonus": 0,
            "tiles": [["A", 6, 1], [DECOMPOSED_A, 4, 2], ["b", 4, 3]], "vowels": "A" + DECOMPOSED_A,
            "letter_aliases": {"X" + "\u030c": DECOMPOSED_A.lower()}}
    path = tmp_path / "cz.toml"
    path.write_text("\n".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in data.items()
                              if k != "letter_aliases") + '\nletter_aliases = { "X\u030c" = "a\u0301" }\n',
                    encoding="utf-8")
    for rs in (Ruleset.from_dict(data), Ruleset.load(path)):
        assert rs.alphabet.letters == ("A", "Á", "B")  # one code point each
        assert rs.alphabet.tile("Á") == rs.alphabet.tile(DECOMPOSED_A) == 2
        assert rs.alphabet.tile("á") == rs.alphabet.tile(DECOMPOSED_A.lower()) == 2 | 0x80
        assert rs.alphabet.tile("X\u030c") == 2  # the alias (X with a caron has no composed form)
        assert rs.vowels == (1, 2)
        lex = Lexicon.from_words(["B" + DECOMPOSED_A + "B", "BÁ"], rs)
        assert len(lex) == 2 and lex.skipped == 0
        assert any("BÁB" in m.notation() for m in Position.empty(rs, "ÁBB", lexicon=lex).moves())


@pytest.mark.parametrize("tiles, message", [
    ([["A", 6, 1], ["B", 4, 3], ["a", 3, 1]], "entries 1 and 3 are both 'A'"),
    ([["Á", 6, 1], ["B", 4, 3], [DECOMPOSED_A, 3, 1]], "entries 1 and 3 are both 'Á'"),
    ([["B", 4, 3], [DECOMPOSED_A.lower(), 6, 1], ["Á", 3, 1]], "entries 2 and 3 are both 'Á'"),
])
def test_a_letter_listed_twice_is_named_by_its_entries(tiles, message):
    data = {"name": "dup", "board": ["....."] * 5, "start": "3C", "rack_size": 3, "bingo_bonus": 0, "tiles": tiles}
    with pytest.raises(RulesetError) as e:
        Ruleset.from_dict(data, source="dup.toml")
    text = str(e.value)
    assert "ruleset dup.toml: field 'tiles'" in text and message in text
    assert "(letters are compared uppercased and NFC-normalized)" in text


@pytest.mark.parametrize("letters, message", [
    (("A", "B", "A"), "alphabet letters 1 and 3 are both 'A'"),
    (("Á", DECOMPOSED_A), "alphabet letters 1 and 2 are both 'Á'"),
    (("A", "b"), "alphabet letter 2 'b' must be uppercase ('B')"),
    (("A", ""), "alphabet letter 2 '' is empty"),
    (("A", "B1"), "alphabet letter 2 'B1' holds the digit '1'"),
    (("A", "B C"), "alphabet letter 2 'B C' holds a space"),
    (("A", "?"), "alphabet letter 2 '?' holds '?'"),
])
def test_an_alphabet_says_which_letter_breaks_which_rule(letters, message):
    with pytest.raises(UnknownLetterError) as e:
        Alphabet(letters)
    assert message in str(e.value)


def test_an_alphabet_composes_its_letters():
    a = Alphabet(("A", DECOMPOSED_A), aliases=(("X\u030c", DECOMPOSED_A),))
    assert a.letters == ("A", "Á") and a.aliases == (("X\u030c", "Á"),)
    assert a.encode("a\u0301A") == [2 | 0x80, 1] and pickle.loads(pickle.dumps(a)) == a


def test_aliases_equal_once_composed_are_a_duplicate():
    data = {"name": "dup", "board": ["....."] * 5, "start": "3C", "rack_size": 3, "bingo_bonus": 0,
            "tiles": [["A", 6, 1], ["Á", 4, 2]], "letter_aliases": {"Ä": "A", "A\u0308": "Á"}}
    with pytest.raises(RulesetError, match=r"field 'letter_aliases' has 'Ä' twice \(aliases are compared NFC-normalized\)"):
        Ruleset.from_dict(data)


# --- 5. a byte-order mark ------------------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_a_ruleset_file_with_a_byte_order_mark_is_read(tmp_path, suffix):
    rs = get_ruleset("russian")
    path = tmp_path / f"bom{suffix}"
    if suffix == ".json":
        text = json.dumps(rs.to_dict(), ensure_ascii=False)
    else:
        text = (Path(__file__).parent.parent / "src/racksmith/rules/rulesets/russian.toml").read_text(encoding="utf-8")
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert Ruleset.load(path) == dataclasses.replace(rs, source=str(path))
    assert main(["moves", "--ruleset", str(path), "/".join(["15"] * 15) + " АБВГДЕЖ/ 0/0 0", "--top", "1"]) == 0


# --- 6. tiles for two racks at least -------------------------------------------------------------------------
TOO_FEW = """\
name = "too-few"
rack_size = 7
bingo_bonus = 0
start = "3C"
board = [".....", ".....", ".....", ".....", "....."]
tiles = [["A", 5, 1], ["E", 5, 1]]
lexicon = "words.txt"
"""


def test_a_set_smaller_than_two_racks_is_refused_at_load(tmp_path, capsys):
    path = tmp_path / "small.toml"
    path.write_text(TOO_FEW, encoding="utf-8")
    (tmp_path / "words.txt").write_text("AA\nAE\nEA\n", encoding="utf-8")
    with pytest.raises(RulesetError, match=r"field 'tiles' hold 10 tiles with the blanks, fewer than 2 full racks of 7 "
                                           r"\(14 tiles\)"):
        Ruleset.load(path)
    for args in (["match", "--p1", "equity", "--p2", "score", "--games", "2", "--ruleset", str(path)],
                 ["selfplay", "--games", "2", "--ruleset", str(path)],
                 ["leaves", "train", "--ruleset", str(path), "--games", "2", "-o", str(tmp_path / "x.klv2")]):
        assert main(args) == 1, args
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "fewer than 2 full racks of 7" in err and "Traceback" not in err
    # exactly two racks is a game
    path.write_text(TOO_FEW.replace('["E", 5, 1]', '["E", 9, 1]'), encoding="utf-8")
    assert Ruleset.load(path).total_tiles == 14
    assert main(["match", "--p1", "equity:leaves=none", "--p2", "score", "--games", "2", "--ruleset", str(path)]) == 0
    capsys.readouterr()


def test_every_shipped_ruleset_holds_two_racks():
    from racksmith.rules.ruleset import available_rulesets

    for rs in available_rulesets():
        assert rs.total_tiles >= 2 * rs.rack_size


def test_games_of_more_players_than_the_tiles_serve_are_a_racksmith_error():
    from racksmith.play import match

    rs = Ruleset.from_dict({"name": "fourteen", "board": ["....."] * 5, "start": "3C", "rack_size": 7,
                            "bingo_bonus": 0, "tiles": [["A", 7, 1], ["E", 7, 1]]})
    Game(rs, players=2)
    with pytest.raises(RulesetError, match=r"3 racks of 7 need 21 tiles; the fourteen set has 14 \(at most 2 players\)"):
        Game(rs, players=3)
    with pytest.raises(RulesetError, match="3 racks of 7 need 21 tiles"):
        rs.check_players(3)
    smaller = dataclasses.replace(rs, counts=(0, 5, 5))  # changed in code, past the loader's check
    lex = Lexicon.from_words(["AE", "EA"], rs)
    with pytest.raises(RulesetError, match=r"2 racks of 7 need 14 tiles; the fourteen set has 10"):
        match("equity:leaves=none", "score", 2, ruleset=smaller, lexicon=lex)


def test_selfplay_of_more_players_than_the_tiles_serve_is_a_racksmith_error(tmp_path):
    from racksmith.play.selfplay import SelfPlayConfig, run_selfplay

    path = small_game(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace('["A", 8, 1]', '["A", 1, 1]').replace('["E", 8, 1]', '["E", 3, 1]'),
                    encoding="utf-8")  # 8 tiles: two racks of 3, not three
    with pytest.raises(RacksmithError, match="3 racks of 3 need 9 tiles"):
        run_selfplay(2, SelfPlayConfig(players=("equity", "score", "equity"), ruleset=str(path)))


# --- the option that settles a record's unknown ruleset ------------------------------------------------------
def test_a_record_of_a_ruleset_racksmith_does_not_know_names_the_option(tmp_path, capsys):
    from racksmith.review.replay import replay_file

    path = board11(tmp_path, "own.json", name="own11")
    score = Position.empty(Ruleset.load(path), "AEKNOQR").score("6D KRONA").score
    gcg = tmp_path / "game.gcg"
    gcg.write_text("#character-encoding UTF-8\n#tile-distribution own11\n#player1 a A\n#player2 b B\n"
                   f">a: AEKNOQR 6D KRONA +{score} {score}\n", encoding="utf-8")
    with pytest.raises(GCGError) as e:
        replay_file(gcg)
    assert e.value.param == "ruleset" and "pass the ruleset to use" in str(e.value) and "--" not in str(e.value)
    assert main(["gcg", "replay", str(gcg)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pass the ruleset to use (with --ruleset: a ruleset's name or a .toml/.json" in err
    assert main(["gcg", "replay", "--ruleset", str(path), str(gcg)]) == 0
    capsys.readouterr()
    with pytest.raises(CGPError) as e:
        Position.from_cgp("/".join(["15"] * 15) + " AEINST?/ 0/0 0 ld own11;")
    assert e.value.param == "ruleset"
    assert main(["moves", "/".join(["15"] * 15) + " AEINST?/ 0/0 0 ld own11;"]) == 1
    assert "(with --ruleset:" in capsys.readouterr().err


def test_the_documented_example_file_is_a_ruleset(tmp_path, monkeypatch):
    doc = (Path(__file__).parent.parent / "docs" / "api" / "ruleset.md").read_text(encoding="utf-8")
    example = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    game = tmp_path / "game"
    game.mkdir()
    (game / "czech7.toml").write_bytes(b"\xef\xbb\xbf" + example.encode("utf-8"))
    (game / "words.txt").write_text("KOS\nNOS\nSÁK\nTICH\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    rs = Ruleset.load("game/czech7.toml")
    assert (rs.name, rs.rows, rs.cols, rs.total_tiles, rs.lexicon) == ("czech7", 7, 7, 35, str(game / "words.txt"))
    assert "CH" in rs.alphabet.letters and rs.alphabet.tile("ä") == rs.alphabet.tile("a")


def test_a_ruleset_file_s_cgp_names_the_rules_the_format_has_words_for(tmp_path):
    """A position of English with a 40-point bingo was written as a plain CGP, which read back
    without the file as English with 50: now it carries 'bb 40;' (and etl, mcnz where they differ),
    refused without the file and read with it."""
    path = ruleset_file(tmp_path, "b40.json", name="b40", bingo_bonus=40, zero_turn_limit=4)
    rs = Ruleset.load(path)
    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0", rs)
    cgp = pos.cgp()
    assert cgp.endswith(" 0/16 0 mcnz 4; bb 40;")
    with pytest.raises(CGPError, match="give a ruleset file with zero_turn_limit = 4"):
        Position.from_cgp(cgp)
    assert Position.from_cgp(cgp, rs).cgp() == cgp
    # the English rules need no opcode; a ruleset with English's rules writes none either
    same = Ruleset.load(ruleset_file(tmp_path, "same.json", name="same"))
    assert Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0", same).cgp() \
        .endswith(" 0/16 0")


# --- the Эрудит variants the sources describe, as ruleset files ---------------------------------------------
def test_the_erudit_variants_readme_names_are_ruleset_files(tmp_path):
    """README: 127 tiles without Ъ, no triple letters at 6F/6J/10F/10J and a doubled first word
    are a ruleset file of Эрудит's fields (the doubled first word: a double-word centre)."""
    erudit = get_ruleset("erudit")
    data = erudit.to_dict()
    fewer = {"Ъ": -1, "А": -1, "О": -1, "Е": -1}  # 131 tiles less 4
    data["tiles"] = [[ch, n + fewer.get(ch, 0), pts] for ch, n, pts in data["tiles"] if n + fewer.get(ch, 0)]
    board = [list(row) for row in data["board"]]
    for r, c in ((5, 5), (5, 9), (9, 5), (9, 9)):  # 6F, 6J, 10F, 10J
        assert board[r][c] == '"'
        board[r][c] = "."
    assert board[7][7] == "."
    board[7][7] = "-"
    data.update(name="erudit-site", title="Эрудит (site)", aliases=[], board=["".join(row) for row in board])
    path = tmp_path / "erudit_site.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    site = Ruleset.load(path)
    assert site.total_tiles == 127
    with pytest.raises(UnknownLetterError):
        site.alphabet.encode("Ъ")
    assert site.layout()[5][5] == site.layout()[9][9] == "." and site.layout()[7][7] == "-"
    empty = "/".join(["15"] * 15) + " СЕНАТОР/ 0/0 0"
    plain = {str(m): m for m in Position.from_cgp(empty, ruleset=erudit).moves() if m.is_place}
    doubled = {str(m): m for m in Position.from_cgp(empty, ruleset=site).moves() if m.is_place}
    assert plain.keys() == doubled.keys() and len(plain) > 10
    bonus = erudit.bingo_bonus
    for key, m in plain.items():  # the word doubled, the bonus for seven tiles not
        extra = bonus if m.tiles_played == erudit.rack_size else 0
        assert doubled[key].score == 2 * (m.score - extra) + extra, key
    assert any(m.tiles_played == 7 for m in plain.values())
