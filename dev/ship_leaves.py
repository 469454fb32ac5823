"""Copy trained leaves into the package: ``python dev/ship_leaves.py NAME TRAINED.klv2`` writes
``src/racksmith/lexicon/data/leaves-NAME.klv2.gz`` (gzip, no timestamp: the same bytes every time)
and ``leaves-NAME.json`` (the provenance ``racksmith leaves train`` wrote next to the file)."""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "src" / "racksmith" / "lexicon" / "data"


def main(name: str, trained: str) -> None:
    src = Path(trained)
    data = src.read_bytes()
    prov = json.loads(Path(str(src) + ".json").read_text(encoding="utf-8"))
    if prov.get("ruleset") != name:
        sys.exit(f"{src} was trained for ruleset {prov.get('ruleset')!r}, not {name!r}")
    (DATA / f"leaves-{name}.klv2.gz").write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    (DATA / f"leaves-{name}.json").write_text(json.dumps(prov, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"leaves-{name}: {len(data):,} bytes, {len(gzip.compress(data, 9, mtime=0)):,} gzipped")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
