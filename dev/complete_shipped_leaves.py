"""Record the completion of the shipped leave sets: ``python dev/complete_shipped_leaves.py NAME...``
(default: every shipped set). The package holds each set as trained,
``src/racksmith/lexicon/data/leaves-NAME.klv2.gz`` (the leaves training saw); the table racksmith
plays with holds every leave of 1 to rack size − 1 tiles the tile set allows, those training never
saw at their prior (:func:`racksmith.training.leavegen.completed`, what ``leaves train`` writes).
It is made on first use and kept in the cache folder (racksmith.lexicon.shipped_leaves). This script
writes the provenance ``leaves-NAME.json`` of the complete table: ``leaves`` and ``sha256`` its own
(what the loader gives), and a ``completed`` record (the trained file's sha256 and size, the leaves
added, the commit). ``--check`` says whether each provenance describes the completion of its file."""
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
        meta = DATA / f"leaves-{name}.json"
        data = gzip.decompress((DATA / f"leaves-{name}.klv2.gz").read_bytes())
        trained = Leaves.from_bytes(data, rs)
        full = completed(trained, rs)
        new = full.tobytes()
        prov = json.loads(meta.read_text(encoding="utf-8"))
        done = prov.get("completed", {})
        right = (done.get("trained_sha256") == hashlib.sha256(data).hexdigest()
                 and prov.get("sha256") == hashlib.sha256(new).hexdigest() and prov.get("leaves") == len(full))
        if check:
            bad += not right
            print(f"leaves-{name}: {len(trained):,} trained, {len(full):,} complete: provenance "
                  f"{'right' if right else 'NOT right'}")
            continue
        if right:
            print(f"leaves-{name}: provenance already right ({len(full):,} leaves)")
            continue
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        prov["completed"] = {
            "trained_sha256": hashlib.sha256(data).hexdigest(),
            "trained_leaves": len(trained),
            "leaves_added": len(full) - len(trained),
            "how": "every leave the tile set allows that training never saw, at its prior: the mean over its "
                   "tiles t of value(L - t) + value(t), size by size (racksmith.training.leavegen.completed), "
                   "made from the trained file on first use",
            "command": f"python dev/complete_shipped_leaves.py {name}",
            "racksmith_commit": commit or None,
        }
        prov["leaves"] = len(full)
        prov["sha256"] = hashlib.sha256(new).hexdigest()
        meta.write_text(json.dumps(prov, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"leaves-{name}: {len(trained):,} trained -> {len(full):,} complete")
    return 1 if bad else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main([a for a in args if a != "--check"], "--check" in args))
