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
from pathlib import Path

import numpy as np

from ..errors import LexiconFormatError
from ..rules.ruleset import BUILTIN, Ruleset, find_ruleset
from .files import read_bounded, write_atomically

MAX_SIDECAR_BYTES = 1 << 20  #: the largest sidecar read beside a file


def sidecar_path(path: "str | Path") -> Path:
    return Path(str(path) + ".json")


def spelled_letters(path: Path, data: "bytes | np.ndarray") -> tuple[tuple[str, ...], str | None, Path] | None:
    """The letters ``path``'s sidecar says these very bytes (``data``) spell, the ruleset it names
    (or None), and the sidecar's path; None without a sidecar that describes them."""
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
    name = name if isinstance(name, str) else None
    letters = info.get("alphabet")
    if not (isinstance(letters, list) and letters and all(isinstance(x, str) for x in letters)):
        if name not in BUILTIN:
            return None
        letters = list(find_ruleset(name).alphabet.letters)
    return tuple(letters), name, side


def rulesets_spelling(letters: tuple[str, ...]) -> list[str]:
    """The shipped rulesets whose alphabet is ``letters``."""
    return [n for n in BUILTIN if find_ruleset(n).alphabet.letters == letters]


def check_letters(path: Path, data: "bytes | np.ndarray", ruleset: Ruleset, what: str, made: str,
                  side_word: str = "sidecar", otherwise: str = "") -> None:
    """Refuse ``path`` (``what``: "KWG", "leave file") when its sidecar says its bytes spell other
    letters than ``ruleset``'s (``made``: "built" or "trained"; ``side_word``: what the sidecar is
    called; ``otherwise``: the other way out, for the message)."""
    found = spelled_letters(path, data)
    if found is None:
        return
    letters, name, side = found
    if letters == ruleset.alphabet.letters:
        return
    fits = [name] if name is not None else rulesets_spelling(letters)
    shown = " or ".join(fits) if fits else f"another alphabet ({''.join(letters)[:40]})"
    use = f"read it with ruleset {shown}" if fits else "read it with a ruleset of those letters"
    err = LexiconFormatError(
        f"{what} {str(path)!r} was {made} for ruleset {shown} (its {side_word} {side.name} says so), whose letters "
        f"are not those of {ruleset.name}: {use}{otherwise}"
    )
    err.param = "ruleset"
    raise err


def write_sidecar(path: "str | Path", data: bytes, letters: tuple[str, ...], extra: "dict | None" = None) -> None:
    """Write ``path``'s sidecar: the SHA-256 of ``data`` (the file's bytes) and its ``letters``; a
    sidecar already there that says as much (a leave file's provenance) is kept."""
    found = spelled_letters(Path(path), data)
    if found is not None and found[0] == tuple(letters):
        return
    info = {"sha256": hashlib.sha256(data).hexdigest(), "alphabet": list(letters)}
    fits = rulesets_spelling(tuple(letters))
    if len(fits) == 1:
        info["ruleset"] = fits[0]
    info.update(extra or {})
    write_atomically(sidecar_path(path), (json.dumps(info, ensure_ascii=False) + "\n").encode("utf-8"))
