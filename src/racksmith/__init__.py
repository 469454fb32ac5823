"""racksmith: every legal play, ranked, for Scrabble-family crossword games.

>>> from racksmith import Position
>>> pos = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ILSSTUY/ 0/0 0")
>>> str(pos.moves(top=1)[0])
'8H LUSTY'
>>> after = pos.play("8H LUSTY", draw="AER")
>>> str(after.racks[1]), after.scores
('AEIRS', [0, 24])
"""
from .rules.alphabet import BLANK, THROUGH, Alphabet, Tiles
from .errors import (
    MOVE_REASONS,
    REASONS,
    CGPError,
    CLIError,
    GCGError,
    IllegalMoveError,
    InvalidMoveError,
    LexiconFormatError,
    MoveGenError,
    OutputFileError,
    PlayerSpecError,
    PositionError,
    RacksmithError,
    LimitError,
    RequestError,
    RulesetError,
    InferenceError,
    SimError,
    UnknownLetterError,
    UnknownLexiconError,
    WinPctError,
)
from .lexicon import Leaves, Lexicon, default_leaves, leaves_provenance, load_leaves, load_lexicon
from .core.move import Move, MoveKind
from .core.position import Outcome, Position, Undo
from .core.turns import Adjustment, EndReason, Ending, EndRule, EventKind
from .formats.gcg import read_gcg, parse_gcg
from .movegen.movelist import MoveList
from .movegen.options import Algorithm, Direction, Sort
from .play.game import Event, Game
from .play.players import BestEquityPlayer, BestScorePlayer, GameView, Player, RandomPlayer, make_player
from .play.selfplay import SelfPlayConfig, SelfPlayReport, run_selfplay
from .play.match import MatchResult, match
from .play.specs import register_player_kind
from .review.analysis import analyze
from .review.replay import Replay, replay, replay_file, replay_text
from .rules.ruleset import Ruleset, available_rulesets, get_ruleset
# The searches and the simulation, imported now rather than at their first call: two threads making
# their first calls at once (an endgame and a simulation) imported them concurrently, and Python's
# import locks met in a cycle (_DeadlockError, or a partly initialised module).
from . import search as _search, sim as _sim  # noqa: E402,F401
from .sim import infer as _infer, player as _sim_player, simulate as _simulate, winpct as _winpct  # noqa: E402,F401

del _search, _sim, _infer, _sim_player, _simulate, _winpct

__version__ = "0.1.0"

# Module paths of the flat 0.1 layout that scripts still import (the peers' benchmark harness among
# them): the modules themselves now live in the subpackages above.
import sys as _sys

from .core import position as _position
from .rules import ruleset as _ruleset

_sys.modules.setdefault(__name__ + ".position", _position)
_sys.modules.setdefault(__name__ + ".ruleset", _ruleset)
del _sys, _position, _ruleset

__all__ = [
    "BLANK",
    "MOVE_REASONS",
    "REASONS",
    "THROUGH",
    "Adjustment",
    "Algorithm",
    "Alphabet",
    "BestEquityPlayer",
    "BestScorePlayer",
    "CGPError",
    "CLIError",
    "Direction",
    "EndReason",
    "EndRule",
    "Ending",
    "Event",
    "EventKind",
    "GCGError",
    "Game",
    "GameView",
    "IllegalMoveError",
    "InvalidMoveError",
    "Leaves",
    "Lexicon",
    "LexiconFormatError",
    "Move",
    "MoveGenError",
    "MoveKind",
    "MoveList",
    "Outcome",
    "MatchResult",
    "OutputFileError",
    "Player",
    "PlayerSpecError",
    "Position",
    "PositionError",
    "RacksmithError",
    "RandomPlayer",
    "Replay",
    "LimitError",
    "RequestError",
    "Ruleset",
    "RulesetError",
    "InferenceError",
    "SimError",
    "WinPctError",
    "SelfPlayConfig",
    "SelfPlayReport",
    "Sort",
    "Tiles",
    "Undo",
    "UnknownLetterError",
    "UnknownLexiconError",
    "analyze",
    "available_rulesets",
    "default_leaves",
    "get_ruleset",
    "leaves_provenance",
    "load_leaves",
    "load_lexicon",
    "make_player",
    "match",
    "parse_gcg",
    "read_gcg",
    "register_player_kind",
    "replay",
    "replay_file",
    "replay_text",
    "run_selfplay",
]
