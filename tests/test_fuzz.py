"""Fuzzing in the suite: every target of ``fuzz/targets.py`` under hypothesis, seeded (derandomized)
and bounded to seconds each. Inputs are real files and lines (the fixtures, the shipped rulesets)
mutated by edits, splices and sharp values (huge numbers, deep nesting, paths, NULs, other
encodings), and structured values (rulesets, boards, racks, request bodies and headers).

A target succeeds or raises the documented RacksmithError, and checks what must hold of what it
accepted; see fuzz/README.md for the long coverage-guided campaigns of the same targets."""
from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))
import targets  # noqa: E402  (fuzz/targets.py)

from racksmith import Leaves, Lexicon  # noqa: E402
from racksmith.rules import ruleset as ruleset_module  # noqa: E402
from racksmith.rules.ruleset import find_ruleset  # noqa: E402


def fuzz_settings(n: int):
    return settings(max_examples=n, derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


# --- mutations of real inputs ------------------------------------------------------------------------------------------
HUGE = "9" * 4400
SHARP_TEXT = ["", " ", "\n", "\r\n", "\x00", "/", "\\", ";", "?", "-", "+", "(", ")", ".", "#", ">", ":", "0", "15", "-1",
              HUGE, "+" + HUGE, "1e999", "NaN", "é", "Ё", "ё", "\ufeff", "\ud800", "\u202e", "[" * 50, "{", '"',
              "/dev/zero", "../../etc/passwd", "english", "super", "эрудит", "A" * 300]


@st.composite
def mutated_text(draw, seeds: list[str], max_edits: int = 4):
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(0, max_edits))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.integers(0, 4))
        piece = draw(st.sampled_from(SHARP_TEXT) | st.text(max_size=6))
        if kind == 0:  # insert
            text = text[:at] + piece + text[at:]
        elif kind == 1:  # replace a run
            text = text[:at] + piece + text[at + draw(st.integers(1, 8)):]
        elif kind == 2:  # delete a run
            text = text[:at] + text[at + draw(st.integers(1, 30)):]
        elif kind == 3:  # truncate
            text = text[:at]
        else:  # splice another seed in
            other = draw(st.sampled_from(seeds))
            text = text[:at] + other[draw(st.integers(0, len(other))):]
    return text


@st.composite
def mutated_bytes(draw, seeds: list[bytes], max_edits: int = 6, region: int | None = None):
    """Byte edits; ``region`` keeps most of them in the first bytes (a big file's header and roots)."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, max_edits))):
        hi = len(data) if region is None or draw(st.booleans()) else min(len(data), region)
        at = draw(st.integers(0, max(hi - 1, 0)))
        kind = draw(st.integers(0, 5))
        if kind <= 1 and data:  # flip bits / set a byte
            data[at] = draw(st.sampled_from([0, 1, 0x40, 0x7F, 0x80, 0xFF])) if kind else data[at] ^ (1 << draw(st.integers(0, 7)))
        elif kind == 2:  # set a little-endian u32 (a node, a count)
            value = draw(st.sampled_from([0, 1, 2, 0x3FFFFF, 0x400000, 0x800000, 0xFFFFFFFF, len(data) // 4]) | st.integers(0, 2**32 - 1))
            data[at:at + 4] = value.to_bytes(4, "little")
        elif kind == 3:
            del data[at:at + draw(st.integers(1, 16))]
        elif kind == 4:
            data[at:at] = draw(st.binary(max_size=16))
        else:
            del data[at:]
    return bytes(data)


# --- seeds -------------------------------------------------------------------------------------------------------------
POSITIONS = [json.loads(line) for line in (FIXTURES / "positions.jsonl").read_text("utf-8").splitlines()]
SUPER_POSITIONS = [json.loads(line) for line in (FIXTURES / "super_positions.jsonl").read_text("utf-8").splitlines()]
CGPS = [p["cgp"] for p in POSITIONS] + [targets.MID]
GAMES = [p.read_text("utf-8") for p in sorted((FIXTURES / "gcg").glob("*.gcg"))]
GAME_LINES = sorted({line for g in GAMES for line in g.splitlines()})
TOMLS = [(resources.files("racksmith.rules") / "rulesets" / f"{n}.toml").read_text("utf-8") for n in targets.RULESETS]
JSONS = [json.dumps(find_ruleset(n).to_dict(), ensure_ascii=False, indent=1) for n in targets.RULESETS]
NOTATIONS = ["8D QU(I)RK", "D8 WORD", "8d quirk", "H8 A.B", "-AEE", "-", "-?", "15O ZZ", "8H (QUIRK)S", "1A " + "A" * 20]


@pytest.fixture
def no_file_read(monkeypatch):
    opened = []
    monkeypatch.setattr(ruleset_module, "_read_ruleset_file", lambda p: opened.append(p) or b"")
    yield opened
    assert opened == [], f"a ruleset file named by data was opened: {opened}"


# --- the targets --------------------------------------------------------------------------------------------------------
@fuzz_settings(300)
@given(text=mutated_text(CGPS, 5), ruleset=st.sampled_from(targets.RULESETS))
def test_fuzz_cgp(text, ruleset):
    targets.check_cgp(text, ruleset)


@fuzz_settings(60)
@given(text=mutated_text([p["cgp"] for p in SUPER_POSITIONS], 4))
def test_fuzz_cgp_super(text):
    targets.check_cgp(text, "super")




@st.composite
def damaged_games(draw):
    lines = draw(st.sampled_from(GAMES)).splitlines()
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(lines)))
        kind = draw(st.integers(0, 3))
        if kind == 0:
            tokens = draw(st.sampled_from(GAME_LINES)).split()
            if tokens:
                tokens[draw(st.integers(0, len(tokens) - 1))] = draw(st.sampled_from(SHARP_TEXT) | st.text(max_size=5))
            lines.insert(at, " ".join(tokens))
        elif kind == 1:
            lines.insert(at, draw(st.sampled_from([
                "#tile-distribution " + draw(st.sampled_from(["/dev/zero", "evil.toml", "../x.json", "klingon", "super",
                                                              "english_super", "Russian-Scrabble", "C:\\x.toml", HUGE])),
                "#player" + draw(st.sampled_from(["0", "3", "99", HUGE])) + " z Z",
                "#board-layout SuperCrosswordGame", "#note " + draw(st.text(max_size=20)), "#lexicon /etc/passwd"])))
        elif kind == 2 and lines:
            del lines[min(at, len(lines) - 1)]
        else:
            lines[at:at] = lines[max(0, at - 3):at]  # repeat a few lines
    return "\n".join(lines)


@fuzz_settings(80)
@given(text=damaged_games(), ruleset=st.sampled_from([None, None, "english", "super"]), analyse=st.booleans())
def test_fuzz_gcg(no_file_read, text, ruleset, analyse):
    targets.check_gcg(text.encode("utf-8", "surrogatepass"), ruleset, analyse)
    assert not no_file_read, f"the record made racksmith open {no_file_read}"


PRAGMA_VALUES = st.sampled_from(["/dev/zero", "/etc/passwd", "evil.toml", "../x.json", "C:\\x.toml", "klingon", "super",
                                  "english_super", "Russian-Scrabble", "эрудит", "SCRABBLE", HUGE, "", "english.TOML",
                                  str(FIXTURES / "gcg")]) | st.text(max_size=12)


@fuzz_settings(150)
@given(header=st.lists(st.tuples(st.sampled_from(["tile-distribution", "board-layout", "lexicon", "player1", "player2",
                                                  "character-encoding", "title"]), PRAGMA_VALUES), max_size=5),
       ruleset=st.sampled_from([None, None, "english"]))
def test_fuzz_gcg_header(no_file_read, header, ruleset):
    """Pragmas name rulesets, never files: whatever the header says, no ruleset file is opened."""
    text = "".join(f"#{name} {value}\n" for name, value in header) + "#player1 a A\n#player2 b B\n>a: ADEHINT 8D HAND +16 16\n"
    targets.check_gcg(text.encode("utf-8", "surrogatepass"), ruleset)
    assert not no_file_read, f"the record made racksmith open {no_file_read}"


@fuzz_settings(50)
@given(raw=mutated_bytes([g.encode("utf-8") for g in GAMES] + [g.encode("utf-16") for g in GAMES[:1]]
                         + [g.encode("latin-1", "replace") for g in GAMES[:1]], 4))
def test_fuzz_gcg_bytes(no_file_read, raw):
    targets.check_gcg(raw)
    assert not no_file_read, f"the record made racksmith open {no_file_read}"


@fuzz_settings(300)
@given(text=mutated_text(NOTATIONS, 4))
def test_fuzz_move_notation(text):
    targets.check_notation(text)


@fuzz_settings(120)
@given(text=mutated_text(TOMLS, 3), rack=st.binary(max_size=15))
def test_fuzz_ruleset_toml(text, rack):
    targets.check_ruleset_file(text.encode("utf-8", "surrogatepass"), ".toml", rack)


@fuzz_settings(120)
@given(text=mutated_text(JSONS, 3), rack=st.binary(max_size=15))
def test_fuzz_ruleset_json(text, rack):
    targets.check_ruleset_file(text.encode("utf-8", "surrogatepass"), ".json", rack)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8) | st.sampled_from(SHARP_TEXT),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=12)


@st.composite
def ruleset_data(draw):
    data = find_ruleset(draw(st.sampled_from(targets.RULESETS))).to_dict()
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(sorted(data)) | st.text(max_size=5))
        if draw(st.integers(0, 4)) == 0:
            data.pop(key, None)
        elif key == "tiles" and draw(st.booleans()):
            tiles = list(data["tiles"])
            i = draw(st.integers(0, len(tiles) - 1))
            tiles[i] = draw(st.lists(JSON_VALUES, max_size=4) | st.tuples(st.text(max_size=3), st.integers(-5, 20_000), st.integers(-5, 2000)).map(list))
            data["tiles"] = tiles
        elif key == "board" and draw(st.booleans()):
            rows, cols = draw(st.integers(0, 30)), draw(st.integers(0, 30))
            data["board"] = ["".join(draw(st.sampled_from(".'\"^-=~x")) for _ in range(cols)) for _ in range(rows)]
            data["start"] = f"{draw(st.integers(0, 31))}{chr(65 + draw(st.integers(0, 27)))}"
        else:
            data[key] = draw(JSON_VALUES)
    return data


@fuzz_settings(200)
@given(data=ruleset_data(), rack=st.binary(max_size=15))
def test_fuzz_ruleset_data(data, rack):
    targets.check_ruleset_data(data, rack)


WORDS = ["CAT", "DOG", "ËЖИК", "ёжик", "QI", "ZA", "A", "ABCDEFGHIJKLMNOPQ", "ЭРУДИТ", "naïve", "CH", "LL", "RR", "a b",
         "", " ", "\t", "x\x00y"]


@st.composite
def word_lists(draw):
    lines = draw(st.lists(st.sampled_from(WORDS) | st.text(max_size=10), max_size=40))
    sep = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = draw(st.sampled_from(["", "\ufeff"])) + sep.join(lines)
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-16", "utf-16-le", "utf-16-be", "latin-1", "cp1251"]))
    raw = text.encode(encoding, "replace")
    if draw(st.integers(0, 4)) == 0:
        raw = draw(mutated_bytes([raw or b"A"], 3))
    return raw


@fuzz_settings(200)
@given(raw=word_lists(), ruleset=st.sampled_from(targets.RULESETS))
def test_fuzz_word_lists(raw, ruleset):
    targets.check_word_list(raw, ruleset)


SMALL_KWGS = [Lexicon.from_words(w, "english", g).tobytes() for w, g in (
    (["CAT", "CATS", "DOG", "AT", "TA", "ACT", "TACT"], True), (["QI", "ZA", "AA"], False),
    (["ABCDEFGHIJKLMNO", "AB", "BA", "NO", "ON"], True), (["EE", "ER", "RE", "ERE", "SEER", "REES", "SERE"], True))]
ENABLE_KWG = (FIXTURES / "ENABLE15.kwg").read_bytes()


@fuzz_settings(250)
@given(raw=mutated_bytes(SMALL_KWGS, 4), ruleset=st.sampled_from(["english", "super"]),
       rack=st.sampled_from(["AEINRS?", "CATS", "??", "QZ", "EEERRSS"]))
def test_fuzz_kwg_small(raw, ruleset, rack):
    targets.check_kwg(raw, ruleset, rack)


@fuzz_settings(25)
@given(raw=mutated_bytes([ENABLE_KWG], 3, region=4096))
def test_fuzz_kwg_enable(raw):
    targets.check_kwg(raw, "english")


@st.composite
def leave_files(draw):
    pairs = draw(st.dictionaries(st.lists(st.sampled_from("AEIRSTQZ?"), min_size=1, max_size=5).map(lambda t: "".join(sorted(t))),
                                 st.floats(-40, 40, allow_nan=False, width=32), min_size=1, max_size=20))
    data = Leaves.from_pairs(pairs.items(), "english").tobytes()
    if draw(st.booleans()):  # as a KLV v1: int16 values scaled by 256
        top = 4 + 4 * int.from_bytes(data[:4], "little") + 4
        values = np.frombuffer(data[top:], "<f4")
        data = data[:top] + np.clip(values * 256, -32768, 32767).astype("<i2").tobytes()
    return draw(mutated_bytes([data], 4)) if draw(st.integers(0, 3)) else data


SYNTH = (FIXTURES / "SYNTH.klv2").read_bytes()


@fuzz_settings(100)
@given(raw=leave_files())
def test_fuzz_klv_small(raw):
    targets.check_klv(raw)


@fuzz_settings(30)
@given(raw=mutated_bytes([SYNTH], 3, region=4096))
def test_fuzz_klv_synth(raw):
    targets.check_klv(raw)


@st.composite
def made_up_positions(draw):
    rows, cols = draw(st.integers(2, 26)), draw(st.integers(2, 26))
    letters = "ABCDEFGH"[: draw(st.integers(1, 8))]
    rs_data = {
        "name": "made-up",
        "board": ["".join(draw(st.sampled_from(".'\"^-=~")) for _ in range(cols)) for _ in range(rows)],
        "tiles": [[x, 40, draw(st.integers(0, 12))] for x in letters], "blanks": 10,
        "rack_size": draw(st.integers(1, 15)), "bingo_bonus": draw(st.integers(0, 60)),
        "start": f"{draw(st.integers(1, rows))}{chr(65 + draw(st.integers(0, cols - 1)))}",
    }
    words = draw(st.lists(st.text(alphabet=letters, min_size=2, max_size=min(8, max(rows, cols))), max_size=80))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = len(letters)
    tiles = rng.integers(1, n + 1, size=(rows, cols), dtype=np.uint8)
    tiles |= np.where(rng.random((rows, cols)) < 0.1, 0x80, 0).astype(np.uint8)
    board = np.where(rng.random((rows, cols)) < draw(st.sampled_from([0.0, 0.1, 0.3, 0.6])), tiles, 0).astype(np.uint8)
    rack = tuple(sorted(draw(st.lists(st.integers(0, n), max_size=rs_data["rack_size"]))))
    opp = tuple(sorted(draw(st.lists(st.integers(0, n), max_size=3))))
    leaves = draw(st.lists(st.tuples(st.lists(st.sampled_from(letters + "?"), min_size=1, max_size=4).map(lambda t: "".join(sorted(t))),
                                     st.floats(-30, 30, allow_nan=False)), max_size=8, unique_by=lambda p: p[0]))
    return (rs_data, words, board, rack, opp, leaves, draw(st.sampled_from([None, 1, 5, 20])), draw(st.booleans()),
            draw(st.sampled_from(["both", "across", "down"])))


@fuzz_settings(60)
@given(case=made_up_positions())
def test_fuzz_position_moves(case):
    targets.check_position_moves(*case)


BODY_KEYS = ["cgp", "ruleset", "lexicon", "top", "sort", "exchanges", "leaves", "direction", "move", "text", "analyze"]
BODY_VALUES = (st.sampled_from(CGPS + GAMES + NOTATIONS + ["english", "super", "russian", "erudit", "enable", "ru", "score",
                                                          "equity", "both", "down", None, True, False, 0, -1, 10**6, 2001])
               | JSON_VALUES | mutated_text(CGPS, 2) | damaged_games())


@fuzz_settings(200)
@given(endpoint=st.sampled_from(targets.ENDPOINTS), body=st.dictionaries(st.sampled_from(BODY_KEYS), BODY_VALUES, max_size=6))
def test_fuzz_api_bodies(no_file_read, endpoint, body):
    targets.check_api(endpoint, body)
    assert not no_file_read, f"the request made racksmith open {no_file_read}"


@st.composite
def http_requests(draw):
    port = targets.live_server().port
    method = draw(st.sampled_from(targets.METHODS))
    path = draw(st.sampled_from(targets.PATHS))
    headers = {}
    for name in draw(st.lists(st.sampled_from(targets.HEADER_NAMES), max_size=6)):
        headers[name] = draw(st.sampled_from(targets.HEADER_VALUES).map(lambda v: v.format(port=port)) | st.text(max_size=20))
    if draw(st.integers(0, 4)):
        headers.setdefault("Host", f"127.0.0.1:{port}")
        headers.setdefault("Content-Type", "application/json")
    body = draw(st.sampled_from([b"", b"{}", b"[" * 5000, b'{"top": ' + HUGE.encode() + b"}"])
                | st.dictionaries(st.sampled_from(BODY_KEYS), BODY_VALUES, max_size=4).map(lambda d: json.dumps(d).encode())
                | st.binary(max_size=64))
    headers.setdefault("Content-Length", str(len(body)))
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode("utf-8", "surrogateescape") + b"\r\n" + body


@fuzz_settings(120)
@given(request=http_requests())
def test_fuzz_http_requests(request):
    targets.check_http(request)


@pytest.mark.parametrize("name", targets.available())
def test_every_target_takes_any_bytes(name):
    """The byte decoders atheris drives, on arbitrary bytes."""
    @fuzz_settings(40)
    @given(data=st.binary(max_size=300))
    def run(data):
        targets.TARGETS[name](data)

    run()
