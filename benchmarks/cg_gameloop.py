"""Instruction counts of the kernel's game loop (for callgrind; the figures in docs/RESULTS.md):

    valgrind --tool=callgrind --callgrind-out-file=OUT --toggle-collect='*play_batch*' \
        python benchmarks/cg_gameloop.py GAMES CHECK        # CHECK 1: the independent check on, 0: off

plays GAMES games of best equity against best equity (ENABLE15, SYNTH leaves, series seed 1) in one
call of racksmith.play._gameloop.play_games and prints the turns played and the violations.
"""
import sys
from pathlib import Path
ROOT = str(Path(__file__).resolve().parent.parent)
from racksmith.lexicon import Lexicon, Leaves
from racksmith.movegen.generate import _rules
from racksmith.movegen._movegen import LeaveTable
from racksmith.play import _gameloop
from racksmith.rules.ruleset import get_ruleset
rs=get_ruleset("english")
lex=Lexicon.load(ROOT + "/tests/fixtures/ENABLE15.kwg", rs); lv=Leaves.load(ROOT + "/tests/fixtures/SYNTH.klv2", rs)
R=_rules(rs, lex); LT=LeaveTable(lv)
n=int(sys.argv[1]); check=sys.argv[2]=="1"
r=_gameloop.play_games(R, [("equity", LT), ("equity", LT)], 1, 0, n, check=check)
print(r["turns"].sum(), r["n_violations"])
