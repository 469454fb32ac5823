"""racksmith: every legal play, ranked, for Scrabble-family crossword games.

>>> from racksmith import Position
>>> pos = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ILSSTUY/ 0/0 0")
>>> str(pos.moves(top=1)[0])
'8H LUSTY'
"""
from .rules.alphabet import BLANK, THROUGH, Alphabet
from .errors import (
    CGPError,
    GCGError,
    IllegalMoveError,
    InvalidMoveError,
    LexiconFormatError,
    OutputFileError,
    PositionError,
    RacksmithError,
    RulesetError,
    UnknownLetterError,
)
from .lexicon import Leaves, Lexicon, load_leaves, load_lexicon
from .core.move import Move
from .core.position import Position
from .rules.ruleset import Ruleset, available_rulesets, get_ruleset

__version__ = "0.1.0"

__all__ = [
    "BLANK",
    "THROUGH",
    "Alphabet",
    "CGPError",
    "GCGError",
    "IllegalMoveError",
    "InvalidMoveError",
    "Leaves",
    "Lexicon",
    "LexiconFormatError",
    "Move",
    "OutputFileError",
    "Position",
    "PositionError",
    "RacksmithError",
    "Ruleset",
    "RulesetError",
    "UnknownLetterError",
    "available_rulesets",
    "get_ruleset",
    "load_leaves",
    "load_lexicon",
]
