"""Peak RSS of a process that loads ENABLE15.kwg, SYNTH.klv2 and the word map and generates the
moves of one position (all of them by equity, then the best by the word map).

    python benchmarks/rss_load.py            # prints the peak RSS in MiB

To compare two builds, run it alternately with PYTHONPATH pointing at each build's src folder.
"""
import resource
from pathlib import Path

from racksmith import Position, load_leaves, load_lexicon

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"

lex = load_lexicon(FIXTURES / "ENABLE15.kwg")
lv = load_leaves(FIXTURES / "SYNTH.klv2")
pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0", lexicon=lex)
pos.moves(leaves=lv, sort="equity")
pos.moves(top=1, leaves=lv)
print(f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f}")
