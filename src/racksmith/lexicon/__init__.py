"""Lexicons and leave values in the ecosystem's KWG and KLV2 formats.

>>> from racksmith.lexicon import load_lexicon
>>> lex = load_lexicon("enable")          # doctest: +SKIP
>>> "QUIRK" in lex, len(lex)              # doctest: +SKIP
(True, 168548)
"""
from .build import build_kwg
from .cache import cache_dir
from .embedded import EMBEDDED
from .klv import Leaves, load_leaves
from .lexicon import Lexicon
from .load import UnknownLexiconError, load_lexicon
from .shipped_leaves import SHIPPED_LEAVES, default_leaves, leaves_provenance
from .wordlist import Skipped

__all__ = [
    "EMBEDDED",
    "SHIPPED_LEAVES",
    "Leaves",
    "Lexicon",
    "Skipped",
    "UnknownLexiconError",
    "build_kwg",
    "cache_dir",
    "default_leaves",
    "leaves_provenance",
    "load_leaves",
    "load_lexicon",
]
