"""Every input a fuzzing campaign found to crash a target, kept in ``fuzz/crashes/<target>/`` once fixed,
runs through its target again: it must now succeed or raise the documented error. The inputs found
by hypothesis in the suite are pinned here too, by name, with what they broke."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "fuzz"))
import targets  # noqa: E402  (fuzz/targets.py)

KEPT = sorted(p for p in (ROOT / "fuzz" / "crashes").glob("*/*") if p.is_file() and not p.name.startswith("."))


@pytest.mark.parametrize("path", KEPT, ids=[f"{p.parent.name}/{p.name}" for p in KEPT])
def test_a_kept_crash_stays_fixed(path):
    targets.TARGETS[path.parent.name](path.read_bytes())


def test_crashes_are_kept_for_known_targets():
    assert KEPT, "fuzz/crashes holds the campaigns' findings"
    assert {p.parent.name for p in KEPT} <= set(targets.TARGETS)


def test_found_by_hypothesis_letter_aliases_that_are_not_strings():
    """``letter_aliases = {"": []}`` raised TypeError (unhashable list) from the alphabet."""
    data = targets.find_ruleset("english").to_dict()
    targets.check_ruleset_data({**data, "letter_aliases": {"": []}})
    targets.check_ruleset_data({**data, "letter_aliases": {"Ë": 5}})


def test_found_by_hypothesis_a_player_declared_twice():
    """A second ``#player1`` with another nick replaced the first: events by the first were then
    refused, and the record written back did not read the same."""
    from racksmith.formats.gcg import parse_gcg

    text = "#player1 p1 A\n#player2 p2 B\n#player1 zz\n#player3 p1 C\n>p1: ADEHINT 8D HAND +16 16\n"
    game = parse_gcg(text, strict=False)
    assert [p.nick for p in game.players] == ["p1", "p2"] and len(game.events) == 1
    assert [str(e) for e in game.errors] == [
        "line 3: '#player1 zz': player 1 is already 'p1'",
        "line 4: '#player3 p1': 'p1' is already player 1 (each player needs a nick of its own)",
    ]
    targets.check_gcg(text.encode())


def test_found_by_hypothesis_an_http09_request_line_gets_a_json_body():
    """A Host header holding a bare LF ends the head early; the next line reads as a request line
    without a version, answered with a JSON body (since 2026-11-29 with a status line too)."""
    port = targets.live_server().port
    targets.check_http(b"GET / HTTP/1.1\r\nHost: \n\r\nContent-Length: 0\r\n\r\n")
    targets.check_http(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)


def test_found_by_hypothesis_2026_11_29():
    """A bare '#' line read as a pragma the writer then refused (its name is ''); '80D' parsed as a
    square off every board and wrote back in words; bytes after a request were read as a request
    line without a version and answered as HTTP/0.9 (a body, no status line)."""
    targets.check_gcg(b"#")
    targets.check_notation("80D QU(I)RK")
    port = targets.live_server().port  # the {} after the request is read as the next request line
    targets.check_http(b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 0\r\n\r\n{}\r\n\r\n" % port)
    targets.check_http(b"\x00\x00\x01\x01\x8a\x01\xb5\x01\x00\x00")
