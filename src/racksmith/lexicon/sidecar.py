"""What letters a KWG or leave file spells: the JSON file racksmith writes beside it.

Tiles in a KWG or KLV2 file are numbers; the letters they stand for are the ruleset's. Read with
another ruleset of as many letters or more (an Эрудит file under Russian, which has Ё besides),
every word or leave from the first letter that differs on is another one, silently. racksmith
writes ``FILE.json`` beside each such file it saves (``Lexicon.save``, ``racksmith lexicon
build``, ``racksmith leaves train``): the SHA-256 of the file's bytes and its letters
(``alphabet``, or a shipped ``ruleset`` by name). Reading a file whose sidecar describes these
very bytes with other letters than the ruleset's is refused, naming the ruleset to use. Files made
elsewhere (MAGPIE, wolges) have no sidecar, and nothing says what their tiles spell.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import LexiconFormatError
from ..rules.ruleset import BUILTIN, Ruleset, find_ruleset
from .files import read_bounded, write_atomically

MAX_SIDECAR_BYTES = 1 << 20  #: the largest sidecar read beside a file


def sidecar_path(path: "str | Path") -> Path:
    return Path(str(path) + ".json")


@dataclass(frozen=True, slots=True)
class Spelled:
    """What a sidecar says of the file it describes: the letters its tiles spell, the ruleset it
    names (or None), the ruleset file it was made with (an absolute path, or None) and the
    sidecar's own path."""

    letters: tuple[str, ...]
    ruleset: str | None
    ruleset_file: str | None
    side: Path


def spelled_letters(path: Path, data: "bytes | np.ndarray") -> Spelled | None:
    """What ``path``'s sidecar says these very bytes (``data``) spell (:class:`Spelled`); None
    without a sidecar that describes them."""
    side = sidecar_path(path)
    try:
        if not side.is_file():
            return None
        info = json.loads(read_bounded(side, MAX_SIDECAR_BYTES, "sidecar", LexiconFormatError))
    except (OSError, ValueError):
        return None  # no sidecar that can be read: nothing to check against
    raw = data.tobytes() if isinstance(data, np.ndarray) else bytes(data)
    if not isinstance(info, dict) or info.get("sha256") != hashlib.sha256(raw).hexdigest():
        return None
    name = info.get("ruleset")
    name = name if isinstance(name, str) and name.strip() else None
    letters = info.get("alphabet")
    if not (isinstance(letters, list) and letters and all(isinstance(x, str) for x in letters)):
        if name not in BUILTIN:
            return None
        letters = list(find_ruleset(name).alphabet.letters)
    file = info.get("ruleset_file")
    file = file if isinstance(file, str) and file.strip() else None
    return Spelled(tuple(letters), name, file, side)


def rulesets_spelling(letters: tuple[str, ...]) -> list[str]:
    """The shipped rulesets whose alphabet is ``letters``."""
    return [n for n in BUILTIN if find_ruleset(n).alphabet.letters == letters]


def _letters_shown(letters: tuple[str, ...]) -> str:
    """An alphabet for a message: its letters end to end (tiles of several characters in brackets),
    the first 40 characters of them."""
    text = "".join(x if len(x) == 1 else f"[{x}]" for x in letters)
    return text if len(text) <= 40 else text[:39] + "…"


def check_letters(path: Path, data: "bytes | np.ndarray", ruleset: Ruleset, what: str, made: str,
                  side_word: str = "sidecar", otherwise: str = "") -> None:
    """Refuse ``path`` (``what``: "KWG", "leave file") when its sidecar says its bytes spell other
    letters than ``ruleset``'s (``made``: "built" or "trained"; ``side_word``: what the sidecar is
    called; ``otherwise``: the other way out, for the message).

    The message says which ruleset reads the file: a shipped one by its name, else the ruleset file
    the sidecar records (a user ruleset's name is no name ``ruleset`` knows: its file is), else
    how many letters, and which, the ruleset to give has."""
    found = spelled_letters(path, data)
    if found is None:
        return
    letters = found.letters
    if letters == ruleset.alphabet.letters:
        return
    shipped = [found.ruleset] if found.ruleset in BUILTIN and find_ruleset(found.ruleset).alphabet.letters == letters \
        else rulesets_spelling(letters)
    says = f"its {side_word} {found.side.name} says so"
    alphabet = f"an alphabet of {len(letters)} letters, {_letters_shown(letters)}"
    if found.ruleset is not None:
        made_for = f"was {made} for ruleset {found.ruleset} ({says}), whose letters are not those of {ruleset.name}"
    else:
        made_for = (f"was {made} for {alphabet} ({says}), not for the {len(ruleset.alphabet)} letters of "
                    f"{ruleset.name}")
    if found.ruleset_file is not None and found.ruleset not in shipped:
        gone = "" if Path(found.ruleset_file).is_file() else ", if it is still there"
        use = f"read it with the ruleset file it was {made} with, {found.ruleset_file!r}{gone}"
    elif shipped:
        use = f"read it with ruleset {' or '.join(shipped)}"
    elif found.ruleset is not None:
        use = f"read it with the ruleset file of {found.ruleset} it was {made} with ({alphabet})"
    else:
        use = f"read it with the ruleset file it was {made} with"
    err = LexiconFormatError(f"{what} {str(path)!r} {made_for}: {use}{otherwise}")
    err.param = "ruleset"
    raise err


def write_sidecar(path: "str | Path", data: bytes, letters: tuple[str, ...], extra: "dict | None" = None) -> None:
    """Write ``path``'s sidecar: the SHA-256 of ``data`` (the file's bytes) and its ``letters``; a
    sidecar already there that says as much (a leave file's provenance) is kept. ``extra``: more
    fields (``words``; ``ruleset`` and ``ruleset_file`` for a ruleset read from a file, which a
    message refusing the file under other letters names)."""
    extra = dict(extra or {})
    found = spelled_letters(Path(path), data)
    if found is not None and found.letters == tuple(letters) and extra.get("ruleset_file") in (None, found.ruleset_file):
        return
    info = {"sha256": hashlib.sha256(data).hexdigest(), "alphabet": list(letters)}
    fits = rulesets_spelling(tuple(letters))
    if len(fits) == 1:
        info["ruleset"] = fits[0]
    info.update(extra)
    write_atomically(sidecar_path(path), (json.dumps(info, ensure_ascii=False) + "\n").encode("utf-8"))
