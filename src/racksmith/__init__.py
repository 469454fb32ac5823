"""racksmith: every legal play, ranked, for Scrabble-family crossword games.

>>> from racksmith import Position
>>> pos = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ILSSTUY/ 0/0 0")
>>> str(pos.moves(top=1)[0])
'8H LUSTY'
>>> after = pos.play("8H LUSTY", draw="AEIRT")
>>> str(after.racks[1]), after.scores
('AEIIRST', [0, 24])
"""
from ._interrupt import quiet_interrupt_at_start as _quiet_interrupt_at_start

_quiet_interrupt_at_start()  # (the racksmith command: a Ctrl-C while it imports exits 130, no traceback)

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
    RecordsFolderBusyError,
    PlayerError,
    PlayerSpecError,
    PositionError,
    RacksmithError,
    LimitError,
    RequestError,
    RulesetError,
    InferenceError,
    PositionRefused,
    SimError,
    UnknownLetterError,
    UnknownLexiconError,
    WinPctError,
    WorkerError,
    WorkerTraceback,
)
from .lexicon import Leaves, Lexicon, Skipped, default_leaves, leaves_provenance, load_leaves, load_lexicon
from .core.move import Move, MoveKind
from .core.position import Outcome, Position, Undo
from .core.turns import Adjustment, EndReason, Ending, EndRule, EventKind
from .core.scoring import ScoreBreakdown, TileScore, WordScore
from .core.validation import Verdict
from .formats.gcg import GCGEvent, GCGGame, GCGPlayer, GCGVisitor, read_gcg, parse_gcg
from .movegen.movelist import MoveList
from .movegen.options import Algorithm, Direction, Sort
from .play.game import Event, Game
from .play.players import BestEquityPlayer, BestScorePlayer, GameView, Player, RandomPlayer, make_player
from .play.selfplay import GameResult, SelfPlayConfig, SelfPlayReport, run_selfplay
from .play.backends import GamesInterrupted
from .play.match import GameDetail, MatchResult, PairGames, PairResult, PlayerStats, match
from .play.specs import PlayerContext, PlayerSpec, register_player_kind
from .play.tables import GameTable, PairTable
from .review.analysis import Analysis, Candidate, EndgameGrade, GameEvent, PlayerSummary, TurnAnalysis, analyze
from .review.batch import PlayerTotals, RecordResult, analyze_files
from .review.best import BestPlay
from ._cache import clear_caches
from .review.replay import RackSlip, Replay, ReplayTurn, TotalSlip, replay, replay_file, replay_text
from .rules.ruleset import Ruleset, available_rulesets, get_ruleset
# The searches and the simulation, imported now rather than at their first call: two threads making
# their first calls at once (an endgame and a simulation) imported them concurrently, and Python's
# import locks met in a cycle (_DeadlockError, or a partly initialised module); and Position's
# methods name their result types, which typing.get_type_hints must find (_complete_annotations).
# Their result types are exported here too (what a typed caller annotates with). Their kernels
# (search._endgame, sim._sim) are imported at the first call: tests/test_import_safety.py checks that
# nothing left to import then can wait for itself.
from .search import EndgameLine, EndgamePlayer, EndgameResult, EndgameSolver, PegPlay, PegResult  # noqa: E402
from .sim.infer import Inference, InferredLeave, LetterOdds  # noqa: E402
from .sim.player import SimPlayer  # noqa: E402
from .sim.simulate import PlyStats, SimCandidate, SimResult  # noqa: E402
from .sim.winpct import WinPct  # noqa: E402

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
    "Analysis",
    "BestEquityPlayer",
    "BestPlay",
    "BestScorePlayer",
    "CGPError",
    "CLIError",
    "Candidate",
    "Direction",
    "EndReason",
    "EndRule",
    "EndgameGrade",
    "EndgameLine",
    "EndgamePlayer",
    "EndgameResult",
    "EndgameSolver",
    "Ending",
    "Event",
    "EventKind",
    "GCGError",
    "GCGEvent",
    "GCGGame",
    "GCGPlayer",
    "GCGVisitor",
    "Game",
    "GameDetail",
    "GameEvent",
    "GameResult",
    "GameTable",
    "GameView",
    "GamesInterrupted",
    "IllegalMoveError",
    "Inference",
    "InferenceError",
    "InferredLeave",
    "InvalidMoveError",
    "Leaves",
    "LetterOdds",
    "Lexicon",
    "LexiconFormatError",
    "LimitError",
    "MatchResult",
    "Move",
    "MoveGenError",
    "MoveKind",
    "MoveList",
    "Outcome",
    "OutputFileError",
    "RecordsFolderBusyError",
    "PairGames",
    "PairResult",
    "PairTable",
    "PegPlay",
    "PegResult",
    "PlyStats",
    "Player",
    "PlayerContext",
    "PlayerError",
    "PlayerSpec",
    "PlayerSpecError",
    "PlayerStats",
    "PlayerSummary",
    "PlayerTotals",
    "Position",
    "PositionError",
    "RackSlip",
    "RacksmithError",
    "RandomPlayer",
    "RecordResult",
    "Replay",
    "ReplayTurn",
    "RequestError",
    "Ruleset",
    "RulesetError",
    "ScoreBreakdown",
    "SelfPlayConfig",
    "SelfPlayReport",
    "SimCandidate",
    "PositionRefused",
    "SimError",
    "SimPlayer",
    "SimResult",
    "Skipped",
    "Sort",
    "TileScore",
    "Tiles",
    "TotalSlip",
    "TurnAnalysis",
    "Undo",
    "UnknownLetterError",
    "UnknownLexiconError",
    "Verdict",
    "WinPct",
    "WinPctError",
    "WordScore",
    "WorkerError",
    "WorkerTraceback",
    "analyze",
    "analyze_files",
    "available_rulesets",
    "clear_caches",
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


def _complete_annotations() -> None:
    """``typing.get_type_hints`` on racksmith's functions and classes: see :mod:`racksmith._annotations`."""
    import threading
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from pathlib import Path

    from . import _annotations

    pool = {n: v for n, v in globals().items() if not n.startswith("_")}
    pool.update(threading=threading, Callable=Callable, Iterable=Iterable, Iterator=Iterator, Mapping=Mapping,
                Sequence=Sequence, Path=Path)
    _annotations.complete(pool)


_complete_annotations()
del _complete_annotations
