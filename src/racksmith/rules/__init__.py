"""The rules of a game as data: the alphabet (letters <-> tiles), coordinates, and rulesets (board,
premiums, tiles, bonuses and the rules that vary between games)."""
from .alphabet import BLANK, THROUGH, Alphabet
from .coords import parse_coord, coord_label
from .ruleset import Ruleset, available_rulesets, get_ruleset

__all__ = ["BLANK", "THROUGH", "Alphabet", "Ruleset", "available_rulesets", "coord_label", "get_ruleset", "parse_coord"]
