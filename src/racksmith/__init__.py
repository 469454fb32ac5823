"""racksmith: every legal play, ranked, for Scrabble-family crossword games."""
from .alphabet import BLANK, THROUGH, Alphabet
from .errors import (
    CGPError,
    GCGError,
    IllegalMoveError,
    InvalidMoveError,
    LexiconFormatError,
    PositionError,
    RacksmithError,
    RulesetError,
    UnknownLetterError,
)
from .ruleset import Ruleset, available_rulesets, get_ruleset

__version__ = "0.1.0"
