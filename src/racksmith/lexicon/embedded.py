"""Lexicons shipped with racksmith (word lists in ``racksmith/lexicon/data``, see ``WORDLISTS.md``
there), each the default of the rulesets that name it."""
from __future__ import annotations

import gzip
from dataclasses import dataclass
from importlib import resources

from ..rules.ruleset import Ruleset, available_rulesets, get_ruleset


@dataclass(frozen=True, slots=True)
class Embedded:
    name: str
    file: str  #: gzip-compressed word list in racksmith/data
    ruleset: str  #: the ruleset it is built for when none is given
    description: str


EMBEDDED: dict[str, Embedded] = {
    e.name: e
    for e in (
        Embedded("enable", "enable1.txt.gz", "english", "ENABLE1 English word list (public domain)"),
        Embedded("ru", "ru_nouns_opencorpora.txt.gz", "russian",
                 "Russian nouns with Ё, from OpenCorpora (CC BY-SA 3.0)"),
        Embedded("ru-erudit", "ru_nouns_opencorpora_yo_as_e.txt.gz", "erudit",
                 "Russian nouns, ё written е, from OpenCorpora (CC BY-SA 3.0)"),
    )
}


def embedded_words(name: str) -> bytes:
    """The uncompressed word list of an embedded lexicon."""
    data = resources.files("racksmith.lexicon").joinpath("data").joinpath(EMBEDDED[name].file).read_bytes()
    return gzip.decompress(data)


def default_ruleset(name: str) -> Ruleset:
    """The first shipped ruleset whose ``lexicon`` is ``name`` (else the embedded entry's own)."""
    for rs in available_rulesets():
        if rs.lexicon == name:
            return rs
    return get_ruleset(EMBEDDED[name].ruleset)
