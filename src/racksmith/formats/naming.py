"""The ruleset a record or a position names: one rule for GCG and CGP.

A GCG header and a CGP's opcodes name the rules of their game with words, never files:

=====================  ======================  =========
what                   GCG pragma              CGP opcode
=====================  ======================  =========
letter distribution    ``#tile-distribution``  ``ld``
board                  ``#board-layout``       ``bdn``
variant                ``#game-type``          ``var``
lexicon                ``#lexicon``            ``lex``
=====================  ======================  =========

:func:`named_ruleset` reads them as Macondo and MAGPIE (the programs that write them) mean them:
the distribution names the tiles (``english``, ``english_super``, ``russian``…); the board
``SuperCrosswordGame`` and a variant with ``super`` in its name (``classic_super``) are Super
Scrabble's. A one-word distribution or board is read whole, as a ruleset's name is one word: a
ruleset file called ``english-2`` or ``house-super`` writes its name, which names no shipped
ruleset (an unknown distribution is refused, an unknown board ignored); a name of several words
(``english (NASPA)``) is read by the names it holds. Without a distribution, the lexicon's name
says it (``NWL23`` and ``CSW21`` are English, ``FRA20`` French, ``OSPS49`` Polish…, as those
programs infer it). A name racksmith
cannot play is refused with a message naming it, rather than read as English: a distribution it
does not ship, a lexicon of another language, and the WordSmog (Clabbers) variant, where any
anagram of a word may be played.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable

from ..errors import RulesetError
from ..rules.ruleset import Ruleset, available_rulesets, builtin_name, find_ruleset, get_ruleset, name_problem

__all__ = ["NAME_FIELDS", "OTHER_LANGUAGE_LEXICONS", "UNPLAYED_VARIANTS", "named_ruleset", "record_name", "rulesets_that_read"]

#: makes the error of a refused name: ``error(field, message)``, ``field`` one of :data:`NAME_FIELDS`
ErrorMaker = Callable[[str, str], Exception]

#: the fields :func:`named_ruleset` reads
NAME_FIELDS = ("distribution", "layout", "variant", "lexicon")

#: the first letters of the names of lexicons in other languages than English (case ignored), and
#: the letter distribution Macondo and MAGPIE play them with
OTHER_LANGUAGE_LEXICONS = (
    ("osps", "polish"),
    ("nsf", "norwegian"),
    ("fra", "french"),
    ("rd", "german"),
    ("deutsch", "german"),
    ("cgl", "german"),
    ("disc", "catalan"),
    ("fise", "spanish"),
    ("file", "spanish"),
    ("dsw", "dutch"),
)

#: variants racksmith does not play: any anagram of a word is playable there
UNPLAYED_VARIANTS = ("wordsmog", "clabbers")


def _clip(text: str, size: int = 40) -> str:
    return text if len(text) <= size else text[: size - 3] + "..."


#: the fields of :func:`named_ruleset` whose refusal the caller settles by passing the ruleset to use
#: (its error's ``param`` is then ``"ruleset"``)
SETTLED_BY_RULESET = ("distribution", "lexicon")


def named_ruleset(
    *,
    distribution: str = "",
    layout: str = "",
    variant: str = "",
    lexicon: str = "",
    labels: "dict[str, str] | None" = None,
    known: Iterable[Ruleset] = (),
    error: "ErrorMaker | None" = None,
) -> "Ruleset | None":
    """The ruleset the names point to, or None when they name none (the caller's default).

    ``known``: rulesets of the caller's, looked up first by distribution (by name or alias);
    ``labels``: how each field is written in the caller's format (``#tile-distribution``, ``ld``),
    for the messages. A name racksmith cannot play raises ``error(field, message)`` (by default a
    :class:`~racksmith.errors.RulesetError` with the message), ``field`` one of
    :data:`NAME_FIELDS`. Only names are looked up: a path is never opened."""
    from ..lexicon.embedded import EMBEDDED, default_ruleset

    refuse = error or (lambda _field, message: RulesetError(message))
    label = {"distribution": "ld", "layout": "bdn", "variant": "var", "lexicon": "lex", **(labels or {})}
    known = tuple(known)
    distribution, layout, variant, lexicon = (
        (v or "").strip() for v in (distribution, layout, variant, lexicon)
    )
    var = variant.lower()
    for word in UNPLAYED_VARIANTS:
        if word in var:
            raise refuse(
                "variant",
                f"'{label['variant']} {_clip(variant)}' is a variant racksmith does not play (any anagram of a word "
                "may be played there): it plays the classic game only",
            )
    key = distribution.lower()
    if distribution and known:  # the caller's own rulesets first (a custom one may contain 'super')
        try:
            rs = find_ruleset(distribution, known)
        except RulesetError:
            pass
        else:
            if rs in known:
                return rs
    if ("super" in key and not _one_word(distribution)) or _super_board(layout) or "super" in var:
        return find_ruleset("super")
    if distribution:
        return _distribution(distribution, label["distribution"], known, refuse)
    lex = lexicon.lower()
    if lex in EMBEDDED:
        return default_ruleset(lex)
    for prefix, language in OTHER_LANGUAGE_LEXICONS:
        if lex.startswith(prefix):
            raise refuse(
                "lexicon",
                f"'{label['lexicon']} {_clip(lexicon)}' is a {language.capitalize()} lexicon, and racksmith ships no "
                f"{language} tiles ({_names(known)}): pass the ruleset to use",
            )
    return None


#: a shipped ruleset's name in records (GCG ``#tile-distribution``, CGP ``ld``) where MAGPIE has
#: another for the same tiles
_RECORD_NAMES = {"super": "english_super"}


def record_name(ruleset: Ruleset) -> str:
    """The name a record racksmith writes gives ``ruleset`` (its ``#tile-distribution``, its CGP
    ``ld``): MAGPIE's name where it has one (``english_super``), else the ruleset's own. Both are
    read back as the ruleset (:func:`named_ruleset`)."""
    return _RECORD_NAMES.get(ruleset.name, ruleset.name)


def rulesets_that_read(reads: "Callable[[Ruleset], bool]", besides: "Ruleset | None" = None) -> tuple[str, ...]:
    """The names of the shipped rulesets, ``besides`` left out, that read a record or a position
    spelled in letters not ``besides``'s: those for which ``reads(ruleset)`` is True (the rulesets
    an error may suggest, in the order racksmith lists them)."""
    return tuple(rs.name for rs in available_rulesets()
                 if (besides is None or rs.name != besides.name) and reads(rs))


def _distribution(name: str, label: str, known: tuple[Ruleset, ...], refuse: ErrorMaker) -> Ruleset:
    try:
        return find_ruleset(name)
    except RulesetError:
        pass
    shown = _clip(name)
    lowered = name.lower()
    if any(ch in name for ch in "/\\") or lowered.endswith((".toml", ".json")):
        raise refuse(
            "distribution",
            f"'{label} {shown}' names a file: a record names a ruleset (english, super...); "
            "pass the ruleset to use instead",
        )
    if _one_word(name):
        # read whole, as a ruleset's name is one word: a ruleset file named 'english-2', 'my-english'
        # or 'house-super' writes its name, which must not read back without the file as English or Super
        raise refuse(
            "distribution",
            f"'{label} {shown}' names no ruleset racksmith knows ({_names(known)}): pass the ruleset to use",
        )
    for part in re.split(r"[^a-zа-яё]+", lowered):  # words no ruleset can be named: 'english (NASPA)'
        if part:
            try:
                return find_ruleset(part, known)
            except RulesetError:
                continue
    raise refuse(
        "distribution", f"'{label} {shown}' names no ruleset racksmith knows ({_names(known)}): pass the ruleset to use"
    )


def _one_word(name: str) -> bool:
    """Is ``name`` one word as a ruleset's name is (letters, digits, ``-_.+``: see
    :func:`~racksmith.rules.ruleset.name_problem`)? Such a name is read whole: it may be a ruleset
    file's. A name of several words (``english (NASPA)``), which no ruleset can have, is read by
    the names it holds."""
    return bool(name.strip()) and name_problem(name.strip().lower()) is None


def _super_board(layout: str) -> bool:
    """Does ``layout`` (a ``bdn``, a ``#board-layout``) name Super Scrabble's board? One word by
    its whole name (``SuperCrosswordGame``, ``super`` and its aliases); several words when
    ``super`` is among them."""
    key = layout.strip().lower()
    if not _one_word(key):
        return "super" in key
    return BOARD_NAMES.get(key, builtin_name(key)) == "super"


def _names(known: tuple[Ruleset, ...]) -> str:
    return ", ".join([rs.name for rs in known] + [rs.name for rs in available_rulesets() if rs not in known])


#: the boards a ``bdn`` names as Macondo writes them (case ignored), by the shipped ruleset that has each
BOARD_NAMES = {"crosswordgame": "english", "supercrosswordgame": "super"}


def named_board(layout: str, known: "tuple[Ruleset, ...]") -> Ruleset | None:
    """The ruleset whose board a ``bdn`` names: one of ``known`` by its name or an alias; else a
    shipped ruleset by its name or an alias, the standard board for ``CrosswordGame``, Super's
    for ``SuperCrosswordGame`` (and, for a name of several words, one with ``super`` in it, as
    :func:`~racksmith.formats.naming.named_ruleset` reads it); None for any other name (a board
    name racksmith does not know names nothing: a one-word name is read whole, so a ruleset file
    called ``house-super`` names no Super board)."""
    key = layout.strip().lower()
    own = next((rs for rs in known if key == rs.name or key in rs.aliases), None)
    if own is not None:
        return own
    if _super_board(key):
        return get_ruleset("super")
    name = BOARD_NAMES.get(key) or builtin_name(key)
    return get_ruleset(name) if name is not None else None


def same_board(a: Ruleset, b: Ruleset) -> bool:
    """Do ``a`` and ``b`` play on the same board (its size, its premium squares, its start)?"""
    return (a.rows, a.cols, a.letter_multipliers, a.word_multipliers, a.start) == (
        b.rows, b.cols, b.letter_multipliers, b.word_multipliers, b.start)
