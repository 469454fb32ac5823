"""Build the seed corpus of every fuzz target from the project's real files (tests/fixtures, the
shipped rulesets, the embedded word lists): ``python fuzz/make_corpus.py [DIR]`` (default
``fuzz/corpus``, one folder per target). Each seed is a real input with the few leading bytes
the target decodes first (which ruleset, which suffix...), so mutations start from real data."""
from __future__ import annotations

import gzip
import hashlib
import json
import sys
from importlib import resources
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FIXTURES = ROOT / "tests" / "fixtures"
RULESETS = ("english", "russian", "erudit", "super")  # the order of targets.RULESETS


def seeds() -> dict[str, list[bytes]]:
    from racksmith import Leaves, Lexicon
    from racksmith.rules.ruleset import find_ruleset

    out: dict[str, list[bytes]] = {name: [] for name in
                                   ("cgp", "gcg", "notation", "ruleset", "movegen", "wordlist", "kwg", "klv", "api", "http")}
    positions = [json.loads(line) for line in (FIXTURES / "positions.jsonl").read_text("utf-8").splitlines()]
    supers = [json.loads(line) for line in (FIXTURES / "super_positions.jsonl").read_text("utf-8").splitlines()]
    for p in positions:
        out["cgp"].append(b"\x00" + p["cgp"].encode())
        placements = p.get("placements", [])
        for r, c, d, word, _ in placements[:: max(1, len(placements) // 6)]:
            coord = f"{r + 1}{chr(65 + c)}" if d == "H" else f"{chr(65 + c)}{r + 1}"
            out["notation"].append(f"{coord} {word}".encode())
        out["api"].append(b"\x01" + json.dumps({"cgp": p["cgp"], "top": 5, "sort": "equity", "exchanges": True}).encode())
        out["api"].append(b"\x00" + json.dumps({"cgp": p["cgp"]}).encode())
    for p in supers:
        out["cgp"].append(b"\x03" + p["cgp"].encode())
    out["cgp"].append(b"\x01" + "15/15/15/15/15/15/15/5КОШКА5/15/15/15/15/15/15/15 АБВЁЛО?/ 12/0 0".encode())
    out["notation"] += [b"-", b"-AEE", b"8D QU(I)RK", b"D8 WORD", b"8d quirk", b"15A ABC?", b"-?", b"pass"]
    for gcg in sorted((FIXTURES / "gcg").glob("*.gcg")):
        data = gcg.read_bytes()
        out["gcg"].append(b"\x00\x01" + data)
        out["gcg"].append(b"\x00\x00" + data)
        out["api"].append(b"\x04" + json.dumps({"text": data.decode("utf-8"), "top": 3}).encode())
    for name in RULESETS:
        text = (resources.files("racksmith.rules") / "rulesets" / f"{name}.toml").read_bytes()
        out["ruleset"].append(b"\x00\x07AEINRST" + text)
        as_json = json.dumps(find_ruleset(name).to_dict(), ensure_ascii=False).encode()
        out["ruleset"].append(b"\x01\x07\x00\x01\x02\x03\x04\x05\x06" + as_json)
    data_dir = ROOT / "src" / "racksmith" / "lexicon" / "data"
    for i, (file, ruleset) in enumerate((("enable1.txt.gz", 0), ("ru_nouns_opencorpora.txt.gz", 1))):
        lines = gzip.decompress((data_dir / file).read_bytes()).split(b"\n")
        out["wordlist"].append(bytes([ruleset]) + b"\n".join(lines[:: max(1, len(lines) // 3000)]))
    out["wordlist"].append(b"\x00" + "\ufeffCAT\r\nDOG\n\nbird\n".encode("utf-16"))
    for kwg in ("ENABLE15.kwg", "ENABLE15.wolges.kwg"):
        out["kwg"].append(b"\x01" + (FIXTURES / kwg).read_bytes())
    for words, gaddag in ((["CAT", "CATS", "DOG", "AT", "TA", "ACT"], True), (["QI", "ZA", "AA"], False),
                          (["ABCDEFGHIJKLMNO", "AB"], True)):
        out["kwg"].append(b"\x01" + Lexicon.from_words(words, "english", gaddag).tobytes())
    out["klv"].append((FIXTURES / "SYNTH.klv2").read_bytes())
    small = Leaves.from_pairs([("?", 25.0), ("S", 8.0), ("ERS", 5.5), ("QU", -3.0), ("??", 40.0)], "english")
    out["klv"].append(small.tobytes())
    v1 = small.tobytes()  # the same leaves as a KLV v1 (i16 values x 256)
    import numpy as np

    n_nodes = int(np.frombuffer(v1[:4], "<u4")[0])
    top = 4 + 4 * n_nodes + 4
    values = np.frombuffer(v1[top:], "<f4")
    out["klv"].append(v1[:top] + (values * 256).astype("<i2").tobytes())
    out["movegen"] += [bytes(range(i, i + 64)) for i in range(0, 200, 40)]
    out["http"] += [bytes([0, 3]) + b"\x00" * 8, bytes([1, 5, 2, 2, 8]) + b'{"cgp": "x"}', bytes([1, 8, 1, 1, 0]) + b'{"text": ""}']
    return out


def main(argv: list[str]) -> int:
    target_dir = Path(argv[1]) if len(argv) > 1 else HERE / "corpus"
    total = 0
    for name, items in seeds().items():
        folder = target_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        for data in items:
            (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)
            total += 1
    print(f"{total} seeds in {target_dir}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    raise SystemExit(main(sys.argv))
