"""Give the shipped leave sets every leave their tile set allows: ``python
dev/complete_shipped_leaves.py NAME...`` (default: every shipped set) reads
``src/racksmith/lexicon/data/leaves-NAME.klv2.gz``, adds each leave of 1 to rack size − 1 tiles that
training never saw at its prior (:func:`racksmith.training.leavegen.completed`, what ``leaves
train`` writes since it completes its tables), and writes the file back (gzip, no timestamp) with
its provenance: ``leaves`` and ``sha256`` those of the completed table, and a ``completed`` record
(the trained file's sha256 and size, the leaves added, the commit that did it). ``--check`` only
says whether each set is complete (completing it again changes nothing)."""
from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "racksmith" / "lexicon" / "data"


def main(names: list[str], check: bool) -> int:
    from racksmith.lexicon import Leaves
    from racksmith.lexicon.shipped_leaves import SHIPPED_LEAVES
    from racksmith.rules.ruleset import get_ruleset
    from racksmith.training.leavegen import completed

    bad = 0
    for name in names or list(SHIPPED_LEAVES):
        rs = get_ruleset(SHIPPED_LEAVES[name])
        gz = DATA / f"leaves-{name}.klv2.gz"
        meta = DATA / f"leaves-{name}.json"
        data = gzip.decompress(gz.read_bytes())
        trained = Leaves.from_bytes(data, rs)
        full = completed(trained, rs)
        new = full.tobytes()
        if check:
            same = new == data
            bad += not same
            print(f"leaves-{name}: {len(trained):,} leaves, {'complete' if same else 'NOT complete'}")
            continue
        if new == data:
            print(f"leaves-{name}: already complete ({len(trained):,} leaves)")
            continue
        prov = json.loads(meta.read_text(encoding="utf-8"))
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        prov["completed"] = {
            "trained_sha256": hashlib.sha256(data).hexdigest(),
            "trained_leaves": len(trained),
            "leaves_added": len(full) - len(trained),
            "how": "every leave the tile set allows that training never saw, at its prior: the mean over its "
                   "tiles t of value(L - t) + value(t), size by size (racksmith.training.leavegen.completed)",
            "command": f"python dev/complete_shipped_leaves.py {name}",
            "racksmith_commit": commit or None,
        }
        prov["leaves"] = len(full)
        prov["sha256"] = hashlib.sha256(new).hexdigest()
        gz.write_bytes(gzip.compress(new, compresslevel=9, mtime=0))
        meta.write_text(json.dumps(prov, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"leaves-{name}: {len(trained):,} -> {len(full):,} leaves, {gz.stat().st_size:,} bytes gzipped")
    return 1 if bad else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main([a for a in args if a != "--check"], "--check" in args))
