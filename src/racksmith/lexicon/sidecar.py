"""What letters a KWG or leave file spells: the JSON file racksmith writes beside it.

Tiles in a KWG or KLV2 file are numbers; the letters they stand for are the ruleset's. Read with
another ruleset of as many letters or more (an Эрудит file under Russian, which has Ё besides),
every word or leave from the first letter that differs on is another one, silently. racksmith
writes ``FILE.json`` beside each such file it saves (``Lexicon.save``, ``racksmith lexicon
build``, ``racksmith leaves train``): the SHA-256 of the file's bytes and its letters
(``alphabet``, or a shipped ``ruleset`` by name). Reading a file whose sidecar describes these
very bytes with other letters than the ruleset's is refused, naming the ruleset to use. Files made
elsewhere (MAGPIE, wolges) have no sidecar, and nothing says what their tiles spell.

A file trained for a ruleset (a leave file's provenance, a win% table's) records that ruleset
(:func:`~racksmith.rules.ruleset.provenance_fields`). A leave file read under another ruleset of
the same letters (trained for racks of 5, read under racks of 7) is read, and a note says which
ruleset it was trained for and how that differs (:func:`note_trained_for_another`: logger
``racksmith.lexicon``, on stderr when logging is not set up); a simulation's note says it of a
win% table (:func:`racksmith.sim.winpct.borrowed_note`).
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import LexiconFormatError, RacksmithError
from ..rules.ruleset import BUILTIN, Ruleset, find_ruleset
from .files import check_output_path, read_bounded, write_atomically

MAX_SIDECAR_BYTES = 1 << 20  #: the largest sidecar read beside a file

#: where a note on a file read for another ruleset goes (as a word list's, :mod:`.wordlist`)
log = logging.getLogger("racksmith.lexicon")


def sidecar_path(path: "str | Path") -> Path:
    return Path(str(path) + ".json")


@dataclass(frozen=True, slots=True)
class Spelled:
    """What a sidecar says of the file it describes: the letters its tiles spell, the ruleset it
    names (or None), the ruleset file it was made with (an absolute path, or None), the
    sidecar's own path and the digest of the ruleset's content (``ruleset_sha256``: written by
    training, whose provenance names the ruleset played; a sidecar ``save`` writes may name a
    shipped ruleset only for its letters, and has none); ``trained``: whether the sidecar is a
    training's provenance (``leaves train``: a ``ruleset_sha256``, or its ``format``), not the
    letters alone that ``leaves build`` and ``lexicon build`` write."""

    letters: tuple[str, ...]
    ruleset: str | None
    ruleset_file: str | None
    side: Path
    ruleset_sha256: str | None = None
    trained: bool = False


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
    digest = info.get("ruleset_sha256")
    digest = digest if isinstance(digest, str) and digest else None
    trained = digest is not None or str(info.get("format", "")).startswith("racksmith-leaves-provenance")
    return Spelled(tuple(letters), name, file, side, digest, trained)


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
    called; ``otherwise``: the other way out, for the message). A file said "trained" whose sidecar
    is no training provenance (``leaves build``, ``Leaves.save``: letters alone) is said "made",
    and its sidecar a sidecar.

    The message says which ruleset reads the file: a shipped one by its name, else the ruleset file
    the sidecar records (a user ruleset's name is no name ``ruleset`` knows: its file is), else
    how many letters, and which, the ruleset to give has."""
    found = spelled_letters(path, data)
    if found is None:
        return
    letters = found.letters
    if letters == ruleset.alphabet.letters:
        return
    if made == "trained" and not found.trained:  # (no training provenance: letters alone)
        made, side_word = "made", "sidecar"
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
    message refusing the file under other letters names). A ``path`` that cannot be written
    (:func:`~.files.output_problem`: ``/dev/stdout``, a FIFO) gets no sidecar: OutputFileError."""
    check_output_path(path)  # (no /dev/stdout.json beside a stream)
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



@contextmanager
def written_together(path: "str | Path") -> Iterator[None]:
    """A block that writes the file ``path`` and its sidecar ``FILE.json`` (each atomically:
    ``Lexicon.save``, ``Leaves.save``, a win% table's ``save``, a training's leaves and provenance)
    made one step: stopped before it ends (a full disk at the sidecar, Ctrl-C), both files are put
    back as they were, the file written over kept meanwhile through a hard link (no room needed;
    where the folder takes none, the new file is removed), the sidecar's bytes in memory. Never is
    a new file left beside an old sidecar (read as having none) or an old file beside a new one.
    A file named by a symbolic link is the one put back, as :func:`~.files.replacing` writes it. A
    ``path`` that cannot be written (:func:`~.files.output_problem`: ``/dev/stdout``, a FIFO) is
    refused (OutputFileError) before anything is written: neither file, nor a sidecar beside it."""
    check_output_path(path)
    target = Path(os.path.realpath(path))  # (the file replacing() writes: a link's target)
    side = sidecar_path(path)
    before = _file_id(target)
    kept = _hard_link(target) if before is not None else None
    side_before = _sidecar_bytes(side)
    try:
        yield
    except BaseException:
        _put_back(target, before, kept)
        if side_before is not _UNREADABLE and _sidecar_bytes(side) != side_before:
            _put_back_sidecar(side, side_before)
        raise
    finally:
        if kept is not None:
            try:
                kept.unlink(missing_ok=True)
            except OSError:
                pass


#: a sidecar that was there but could not be read (left as the block leaves it)
_UNREADABLE = object()


def _file_id(path: Path) -> "tuple[int, int] | None":
    """The device and inode of the regular file ``path`` (None: none there)."""
    try:
        st = path.stat()
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def _hard_link(path: Path) -> "Path | None":
    """A second name, hidden beside ``path``, for the file it names now (None where the folder
    takes no hard link, or none could be made)."""
    for _ in range(100):
        kept = path.parent / f".{path.name}.{secrets.token_hex(6)}.kept"
        try:
            os.link(path, kept)
            return kept
        except FileExistsError:
            continue
        except (OSError, ValueError):
            return None
    return None


def _sidecar_bytes(side: Path) -> "bytes | None | object":
    """The bytes of the sidecar ``side``; None when there is none, :data:`_UNREADABLE` when it
    cannot be read."""
    try:
        if not side.exists():
            return _UNREADABLE if side.is_symlink() else None  # (a link to nothing: left alone)
        return read_bounded(side, MAX_SIDECAR_BYTES, "sidecar", LexiconFormatError)
    except (OSError, ValueError):
        return _UNREADABLE


def _put_back(target: Path, before: "tuple[int, int] | None", kept: "Path | None") -> None:
    """``target`` as it was (``before``: its device and inode then; ``kept``: a hard link to it),
    when the block wrote over it or made it; as best it can (the block's error is the one said)."""
    if _file_id(target) == before:
        return  # not written: as it was
    try:
        if kept is not None:
            os.replace(kept, target)
        elif _file_id(target) is not None:
            target.unlink()
    except OSError:
        pass


def _put_back_sidecar(side: Path, old: "bytes | None") -> None:
    """The sidecar ``side`` as it was (``old``: its bytes, None for none), as best it can."""
    try:
        if old is None:
            side.unlink(missing_ok=True)
        else:
            write_atomically(side, old)
    except (OSError, RacksmithError):
        pass


# --- a file trained for another ruleset of the same letters ------------------------------------------
#: the fields of a ruleset that are no part of its game (what it is called, where its words are)
_NOT_THE_GAME = ("name", "title", "aliases", "lexicon")


def trained_for_another(name: "str | None", file: "str | None", digest: "str | None",
                        ruleset: Ruleset) -> "tuple[Ruleset | None, list[str]] | None":
    """Whether a provenance that names ruleset ``name`` (``ruleset``, ``ruleset_file`` and
    ``ruleset_sha256`` of :func:`~racksmith.rules.ruleset.provenance_fields`) describes a file
    trained for another ruleset than ``ruleset``: None when it does not (the same name, the same
    content, or the same game under another name), else the ruleset it names when that can be
    read (its ruleset file, when still there and holding those rules; a shipped ruleset by name)
    or None, and the fields of the game in which the two differ (``rack_size``, ``tiles``,
    ``board``...: empty when the ruleset it names cannot be read)."""
    if not name or name.strip().casefold() == ruleset.name.casefold():
        return None  # (a shipped ruleset's digest changes with racksmith's fields: the name decides)
    if digest is not None and digest == ruleset.content_sha256():
        return None
    made = _ruleset_named(name, file, digest)
    if made is None:
        return None, []
    ours, theirs = ruleset.to_dict(), made.to_dict()
    differ = [k for k in ours if k not in _NOT_THE_GAME and ours.get(k) != theirs.get(k)]
    return (made, differ) if differ else None


def _ruleset_named(name: str, file: "str | None", digest: "str | None") -> "Ruleset | None":
    """The ruleset a provenance names: the ruleset file it records, when it is still there and
    holds the rules trained with (its digest, when the provenance has one), else the shipped
    ruleset of that name (a provenance records no file for a shipped ruleset); None when neither."""
    if file is not None:
        try:
            rs = Ruleset.load(Path(file))
        except (RacksmithError, OSError):
            return None
        return rs if digest is None or rs.content_sha256() == digest else None
    return find_ruleset(name) if name in BUILTIN else None


def ruleset_trained_for(path: "str | Path") -> "Ruleset | None":
    """The ruleset a file's training provenance (``FILE.json``, describing its very bytes) says it
    was trained for, when that ruleset can be read (a shipped one by name; a ruleset file still
    there and holding those rules); None otherwise (no provenance, a file made elsewhere): what
    ``leaves info``, ``leaves csv`` and ``leaves value`` read a file with when no ruleset is given."""
    from .files import read_regular

    try:
        data = read_regular(Path(path), "leave file", LexiconFormatError)
    except (OSError, ValueError):
        return None
    found = spelled_letters(Path(path), data)
    if found is None or found.ruleset is None or found.ruleset_sha256 is None:
        return None
    return _ruleset_named(found.ruleset, found.ruleset_file, found.ruleset_sha256)


def ruleset_spelling(path: "str | Path") -> "Ruleset | None":
    """The shipped ruleset whose letters a KWG or leave file spells, as its sidecar (describing its
    very bytes) says: the one the sidecar names when its letters are those (``lexicon build -r
    russian``, ``leaves build -r russian``), else the first shipped ruleset of those letters
    (English for English's, which Super shares); None without such a sidecar, or for letters no
    shipped ruleset has (a ruleset file's: give it with --ruleset). What the commands that read a
    file read it with when no ruleset is given."""
    from .files import read_regular

    p = Path(path)
    try:
        if not (sidecar_path(p).is_file() and p.is_file()):
            return None
        data = read_regular(p, "file", LexiconFormatError)
    except (OSError, ValueError):
        return None
    found = spelled_letters(p, data)
    if found is None:
        return None
    if found.ruleset in BUILTIN and find_ruleset(found.ruleset).alphabet.letters == found.letters:
        return find_ruleset(found.ruleset)
    fits = rulesets_spelling(found.letters)
    return find_ruleset(fits[0]) if fits else None


def differences(made: Ruleset, ruleset: Ruleset, differ: "list[str]", racks_mean: str = "") -> str:
    """How ``made`` (the ruleset a file was trained for) differs from ``ruleset`` (in use), for a
    note: ``racks of 5 tiles, not 7, and its board and bingo bonus differ``; ``racks_mean``: what
    other racks mean for the file, said after them."""
    parts = []
    if "rack_size" in differ:
        parts.append(f"racks of {made.rack_size} tiles, not {ruleset.rack_size}" + (f" ({racks_mean})" if racks_mean else ""))
    rest = [k.replace("_", " ") for k in differ if k != "rack_size"]
    if rest:
        listed = rest[0] if len(rest) == 1 else ", ".join(rest[:-1]) + " and " + rest[-1]
        parts.append(f"its {listed} differ{'s' if len(rest) == 1 else ''}")
    return ", and ".join(parts)


def note_trained_for_another(path: Path, data: "bytes | np.ndarray", ruleset: Ruleset, what: str) -> None:
    """A note (logger ``racksmith.lexicon``) when ``path``'s provenance, describing these very bytes
    (``data``), says it was trained for another ruleset than ``ruleset`` with the same letters
    (other letters are refused: :func:`check_letters`): which ruleset, and how its game differs
    (a rack of 5 under a rack of 7: the leaves of 5 and 6 tiles read 0). ``what``: ``leave file``."""
    found = spelled_letters(path, data)
    if found is None or found.ruleset_sha256 is None or found.letters != ruleset.alphabet.letters:
        return  # (no training provenance: a sidecar of letters names a ruleset for its letters alone)
    other = trained_for_another(found.ruleset, found.ruleset_file, found.ruleset_sha256, ruleset)
    if other is None:
        return
    made, differ = other
    head = (f"note: {what} {str(path)!r} was trained for ruleset {found.ruleset} (its provenance {found.side.name} "
            f"says so), not {ruleset.name}, the ruleset in use: the same letters")
    if made is None:
        body = f"; ruleset {found.ruleset} cannot be read to tell how else it differs"
    else:
        mean = ""
        if made.rack_size < ruleset.rack_size:
            sizes = list(range(made.rack_size, ruleset.rack_size))
            shown = " or ".join(map(str, sizes)) if len(sizes) <= 2 else f"{sizes[0]} to {sizes[-1]}"
            mean = f"it holds no leave of {shown} tiles: each is worth 0"
        body = f", but {differences(made, ruleset, differ, mean)}"
    if ruleset.rack_size <= 1:
        fit = f"racks of 1 keep no leave: {ruleset.name} needs no leave file"
    elif ruleset.rack_size > 7:
        fit = (f"leaves made for {ruleset.name} fit it ('racksmith leaves build' of a leave,value CSV: training "
               "handles racks of 2 to 7 tiles)")
    else:
        fit = f"leaves trained for {ruleset.name} fit it ('racksmith leaves train --ruleset FILE')"
    log.warning(f"{head}{body}; {fit}")
