"""The caches of objects read from files, least recently used first out, and clear_caches() (a bot
that plays several languages, or builds a new lexicon every game, for days)."""
from __future__ import annotations

import gc

import racksmith
from racksmith import Position, load_lexicon
from racksmith._cache import FILES_KEPT
from racksmith.lexicon import Lexicon

OPENING = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0"
WORDS = ["RETAINS", "STAINER", "NASTIER", "ANESTRI", "RATINES", "RETINAS", "ANTSIER", "STEARIN", "AT", "TA"]


def _lists(tmp_path, n):
    paths = []
    for i in range(n):
        path = tmp_path / f"list{i}.txt"
        path.write_text("\n".join(WORDS[: 3 + i % 7]) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def test_six_lexicon_files_in_rotation_are_each_read_once(tmp_path):
    """(with 4 kept, a fifth file in rotation read every file again every time: 25 times slower)"""
    paths = _lists(tmp_path, 6)
    first = [load_lexicon(p) for p in paths]
    for _ in range(3):
        assert all(load_lexicon(p) is lex for p, lex in zip(paths, first))


def test_the_file_used_most_stays(tmp_path):
    paths = _lists(tmp_path, FILES_KEPT + 4)
    often = load_lexicon(paths[0])
    for p in paths[1:]:  # (more files than are kept, the first asked for between each)
        load_lexicon(p)
        assert load_lexicon(paths[0]) is often


def test_clear_caches_frees_a_lexicon_the_caller_dropped():
    """(the move generator's tables kept the last 16 lexicons alive: a bot building its lexicon
    from bytes every game held about 530 MB)"""
    lex = Lexicon.from_words(WORDS, "english", name="dropped-by-the-caller")
    assert len(Position.from_cgp(OPENING, lexicon=lex).moves()) > 0
    del lex
    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, Lexicon) and o.name == "dropped-by-the-caller"]
    assert alive  # (still held by the tables built for it)
    del alive
    racksmith.clear_caches()
    gc.collect()
    assert not [o for o in gc.get_objects() if isinstance(o, Lexicon) and o.name == "dropped-by-the-caller"]
    assert len(Position.from_cgp(OPENING).moves()) > 0  # (everything else works as before)


def test_an_embedded_name_is_never_a_file_of_the_current_folder(tmp_path, monkeypatch):
    """A file ``enable`` or a folder ``ru/`` in the working directory (an archive sorted by
    language) replaced the embedded lexicon, also as a ruleset's default: English found no move
    but the pass, and every Russian word was a phony."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "enable").write_text("cat\ndog\n", encoding="utf-8")
    (tmp_path / "ru").mkdir()
    cgp = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"
    assert len(load_lexicon("enable")) > 100_000 and len(load_lexicon("ru")) > 50_000
    assert Position.from_cgp(cgp).moves(top=1)[0].notation() == "J8 SOIREE"
    assert racksmith.Game("russian", seed=1).position.moves(top=1)[0].is_place
    assert sorted(load_lexicon("./enable").words()) == ["CAT", "DOG"]  # (the file, named as a path)
