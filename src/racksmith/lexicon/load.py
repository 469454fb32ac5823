"""One way in for every kind of lexicon: an embedded name, a word list, a KWG file."""
from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path

from .. import _args
from .._cache import files_cache, keep, recall
from ..errors import LexiconFormatError, UnknownLexiconError
from ..rules.ruleset import Ruleset, get_ruleset
from .cache import cache_dir, compile_word_list
from .embedded import EMBEDDED, default_ruleset, embedded_words
from .lexicon import Lexicon, max_word_length
from .wordlist import QUACKLE_LEXICON_SUFFIXES, check_fits, looks_like_utf16, read_word_list_bytes


_loaded: dict[tuple, Lexicon] = {}
#: lexicons read from files, by the file's identity and stamp (the last few)
_from_files: dict[tuple, Lexicon] = files_cache()
#: held while an embedded lexicon is compiled or read: threads asking for it at once get one object
_loading = threading.RLock()
#: told what a word list file read by :func:`load_lexicon` left out, as one line: ``f("club.txt:
#: skipped 2 words: 1 with a Latin letter in place of its Cyrillic twin (line 3 'кoт': 'o'), ...")``;
#: once a read (not when the same unchanged file is handed back from memory), and only when words
#: were skipped. The library prints nothing (a lexicon's ``skipped_by_reason`` holds the record):
#: the command line adds the function that writes the line on stderr, and the line is worded for it
#: (it names the alphabet, and ``--ruleset FILE`` for words with letters outside it). Told too, as a
#: line starting ``note:``, when a KWG file read (or counted, :func:`kwg_file_info`) holds only a
#: GADDAG, whose words racksmith builds the DAWG from (:func:`gaddag_only_note`).
skipped_word_notes: list[Callable[[str], None]] = []
GIVE_RULESET = "--ruleset FILE"  #: how the notes above say to give another ruleset


def _new_lock_in_child() -> None:
    """A forked child has only the thread that forked: a lock another thread of the parent held
    (compiling a lexicon) would be held for ever there. The cache itself is whole (an entry is added
    at once, when it is ready), so the child starts with a free lock."""
    global _loading
    _loading = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def is_kwg_bytes(head: bytes) -> bool:
    """Does a file start like a KWG? (node 0: tile 0 with is_end; UTF-8 text never has a NUL
    there; UTF-16 text, which may, is told apart by :func:`looks_like_utf16` on up to 4 KB)"""
    return len(head) >= 4 and head[3] == 0 and bool(head[2] & 0x40) and not looks_like_utf16(head)


def load_lexicon(
    spec: "str | Path | Lexicon",
    ruleset: "str | Path | Ruleset | None" = None,
    *,
    gaddag: bool = True,
) -> Lexicon:
    """A lexicon from an embedded name (``enable``, ``ru``, ``ru-erudit``), a word list file
    (compiled and cached), or a ``.kwg`` file; a :class:`Lexicon` passes through.

    ``ruleset`` gives the alphabet (and, for word lists, the longest word: the longer side of
    the board); by default English, or for an embedded name the ruleset that names it. A word
    list that leaves the lexicon empty, or most of whose words have letters outside the alphabet
    (a list for another ruleset), is refused with a :class:`~racksmith.errors.LexiconFormatError`.
    An embedded name is the embedded lexicon whatever the current folder holds (a folder ``ru/``
    or a file ``enable`` there had replaced it, for every ruleset's default lexicon too): give a
    file of that name as ``./enable`` or a :class:`~pathlib.Path`.
    """
    if isinstance(spec, Lexicon):
        return spec
    gaddag = _args.flag(gaddag, "gaddag", LexiconFormatError)  # (a key of the cache of loaded lexicons)
    text = str(spec)
    path = Path(text)
    if not isinstance(spec, Path) and text.strip().lower() in EMBEDDED:
        return load_embedded(text, ruleset, gaddag=gaddag)
    rs = get_ruleset(ruleset)
    if not _probe(path.is_file):
        shown = text if len(text) <= 80 else f"{text[:77]}..."
        raise UnknownLexiconError(
            f"no lexicon {shown!r}: give one of {', '.join(EMBEDDED)}, a word list file or a .kwg file"
        )
    # the same file, unchanged, for the same alphabet and board: the same (immutable) object. A bot
    # loading its KWG for every game made a new Lexicon each time, and the move generator's caches
    # kept the last 16 alive (36 MB each with their word maps)
    try:
        st = os.stat(path)
        key: tuple | None = (os.path.realpath(path), st.st_ino, st.st_mtime_ns, st.st_size, rs.alphabet.letters,
                             max(rs.rows, rs.cols), gaddag, path.stem)
    except (OSError, ValueError):
        key = None
    found = recall(_from_files, key)
    if found is not None:
        return found
    if _is_kwg_file(path, text):
        lex = _read_kwg(path, rs)
        if not len(lex):
            raise LexiconFormatError(f"KWG {text!r} holds no words: an empty lexicon makes no play")
        if lex.from_gaddag_only:
            _tell(gaddag_only_note(text, len(lex)))
    else:
        lex = compile_word_list(read_word_list_bytes(path), rs, name=path.stem, gaddag=gaddag, source=str(path))
        _fits(lex, rs, f"word list {text!r}", "choose the ruleset the list is written for; one word a line")
        if lex.skipped:
            _tell(f"{text}: {lex.skipped_by_reason.describe(max_word_length(rs), rs.alphabet, GIVE_RULESET)}")
    if key is not None:
        lex = keep(_from_files, key, lex)  # (another thread's, when it read the file at the same time)
    return lex


def _read_kwg(path: Path, rs: Ruleset) -> Lexicon:
    """A KWG file's lexicon (:meth:`Lexicon.load`). One that holds only a GADDAG is built into the
    whole graph once and kept in the lexicon cache, under the hash of the file's bytes (the
    cache's :func:`~racksmith.lexicon.cache.compile_word_list` keeps word lists so): ENABLE's takes
    0.6 s to build, 0.03 s to read back."""
    if not _gaddag_only_head(path):
        return Lexicon.load(path, rs)
    from .cache import FORMAT_VERSION, _cached, building, entry_path, note_not_kept
    from .kwg import read_file
    from .sidecar import check_letters

    folder = cache_dir()
    if folder is None:
        note_not_kept(None)
        return Lexicon.load(path, rs)
    data = read_file(path)
    check_letters(path, data, rs, "KWG", "built")  # (as Lexicon.load does)
    h = hashlib.sha256(json.dumps({"gaddag_only": FORMAT_VERSION, "letters": list(rs.alphabet.letters)}).encode())
    h.update(b"\0")
    h.update(data)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", path.stem)[:40] or "kwg"
    kwg_path = entry_path(folder, stem, f"gaddag-only-{h.hexdigest()[:32]}.kwg")  # (one entry a content)
    meta_path = kwg_path.with_suffix(".json")
    lex = _cached(kwg_path, meta_path, rs, path.stem)
    if lex is None:
        with building(kwg_path):
            lex = _cached(kwg_path, meta_path, rs, path.stem)  # (built by another process meanwhile)
            if lex is None:
                return _build_gaddag_only(path, rs, kwg_path, meta_path)
    lex = lex.located(path)
    object.__setattr__(lex, "from_gaddag_only", True)  # (a lexicon's facts are set once: Lexicon.__setattr__)
    return lex


def _build_gaddag_only(path: Path, rs: Ruleset, kwg_path: Path, meta_path: Path) -> Lexicon:
    """The lexicon of a GADDAG-only KWG file, built (:class:`Lexicon` builds it from the GADDAG's
    words), and kept in the cache at ``kwg_path`` (a cache that cannot be written is told, once)."""
    from .cache import _knowing_digest, keep_entry, note_not_kept
    from ..errors import OutputFileError

    lex = Lexicon.load(path, rs)
    if not lex.from_gaddag_only:  # (a GADDAG of no words: refused by the caller)
        return lex
    built = lex.tobytes()
    sha = hashlib.sha256(built).digest()
    _knowing_digest(lex, sha)
    meta = {"name": path.stem, "source": str(path), "words": len(lex), "gaddag_only": True,
            "skipped": lex.skipped_by_reason.to_dict(), "sha256": sha.hex()}
    try:
        keep_entry(meta_path, json.dumps(meta).encode("utf-8"))
        keep_entry(kwg_path, built)
    except OutputFileError as e:
        note_not_kept(kwg_path.parent, str(e))
    return lex


def _gaddag_only_head(path: Path) -> bool:
    """Do a KWG file's first two nodes say it holds a GADDAG and no DAWG (node 0 points nowhere,
    node 1 to the GADDAG's root list)? The whole graph is checked when it is read."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return False
    if len(head) < 8:
        return False
    first, second = int.from_bytes(head[:4], "little"), int.from_bytes(head[4:], "little")
    return first == 0x0040_0000 and second >> 24 == 0 and bool(second & 0x0040_0000) and second & 0x003F_FFFF > 1


def _tell(line: str) -> None:
    for tell in list(skipped_word_notes):
        tell(line)


def gaddag_only_note(shown: str, words: int) -> str:
    """What is said of a KWG file holding only a GADDAG (MAGPIE's ``convert text2gaddag``): racksmith
    reads its words from the GADDAG and builds the whole graph from them (once: :func:`_read_kwg`)."""
    return (f"note: KWG {shown!r} holds only a GADDAG (as MAGPIE's 'convert text2gaddag' writes it): racksmith reads "
            f"its {words:,} words from it and builds the DAWG too (once: it keeps the graph in its cache); a KWG with "
            "both: 'racksmith lexicon build WORDS.txt -o FILE.kwg', or MAGPIE's 'convert text2kwg'")


def _is_kwg_file(path: Path, shown: str) -> bool:
    """Is the file at ``path`` a KWG (by its first bytes, or its name), not a word list? A file
    named like one of Quackle's lexicons (``.dawg``, ``.gaddag``) is one only when the whole file
    is a sound KWG: Quackle's binary files whose first 4 bytes happen to look like a KWG's were
    refused as a broken KWG, where the word-list reader says they are Quackle's and what to give."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as e:
        raise UnknownLexiconError(f"cannot read {shown!r}: {e.strerror or e}") from None
    if path.suffix.lower() in QUACKLE_LEXICON_SUFFIXES:
        return is_kwg_bytes(head) and _sound_kwg(path)
    return is_kwg_bytes(head) or path.suffix.lower() == ".kwg"


def _sound_kwg(path: Path) -> bool:
    """Does the file at ``path`` hold a KWG that passes every check (any tiles: 6 bits)?"""
    from .kwg import check_kwg, nodes_of, read_file

    try:
        check_kwg(nodes_of(read_file(path), repr(str(path))), 63, repr(str(path)))
    except LexiconFormatError:
        return False
    return True


def kwg_file_info(spec: "str | Path") -> "dict | None":
    """The counts of :meth:`Lexicon.info` of a ``.kwg`` file, read without its letters (words,
    nodes, the DAWG's nodes, whether it has a GADDAG, bytes: none depends on what the tiles spell,
    as MAGPIE and wolges count a KWG); the graph is checked all the same. None when ``spec`` is no
    KWG file (a word list, an embedded name, no file). A file holding only a GADDAG has the words
    of its GADDAG counted, and ``"gaddag_only": True`` (and :data:`skipped_word_notes` are told
    what racksmith does with it: :func:`gaddag_only_note`)."""
    from .kwg import check_kwg, gaddag_word_count, nodes_of, read_file

    path = Path(spec)
    if not _probe(path.is_file):
        return None
    if not _is_kwg_file(path, str(spec)):
        return None
    source = repr(str(spec))
    nodes = nodes_of(read_file(path), source)
    facts = check_kwg(nodes, 63, source)  # (any tile: 6 bits)
    info = {"words": facts.words, "nodes": facts.nodes, "dawg_nodes": facts.dawg_nodes, "gaddag": facts.has_gaddag,
            "bytes": 4 * facts.nodes}
    if facts.gaddag_only:
        info.update(words=gaddag_word_count(nodes, source)[0], gaddag_only=True)
        _tell(gaddag_only_note(str(spec), info["words"]))
    return info


def _probe(test) -> bool:
    """``path.exists()`` or ``path.is_file()``, False for a name no file can have (too long, a NUL in it)."""
    try:
        return test()
    except (OSError, ValueError):
        return False


def ruleset_lexicon(ruleset: "str | Path | Ruleset | None", spec: "str | Path | Lexicon | None" = None) -> Lexicon:
    """The lexicon to play a ruleset with: ``spec`` when given (anything :func:`load_lexicon`
    takes), else the one the ruleset names: an embedded lexicon by its name, or the word list or
    KWG file a ruleset file names (:meth:`Ruleset.load` made its path absolute, from the file's
    folder). An embedded name is never a path: a file called ``enable`` in the working directory
    is not read in its place."""
    rs = get_ruleset(ruleset)
    if spec is not None:
        return load_lexicon(spec, ruleset=rs)
    if rs.lexicon is None:
        raise UnknownLexiconError(f"ruleset {rs.name} names no lexicon: give one (an embedded name, a word list or a .kwg file)")
    if rs.lexicon.strip().lower() in EMBEDDED:
        return load_embedded(rs.lexicon, rs)
    return load_lexicon(Path(rs.lexicon), ruleset=rs)


def load_embedded(name: str, ruleset: "str | Path | Ruleset | None" = None, *, gaddag: bool = True) -> Lexicon:
    """An embedded lexicon by name (``enable``, ``ru``, ``ru-erudit``), compiled once and cached;
    never a file, whatever files the working directory holds (the web server's way in)."""
    key_name = name.strip().lower()
    if key_name not in EMBEDDED:
        raise UnknownLexiconError(f"no embedded lexicon {name!r}: give one of {', '.join(EMBEDDED)}")
    rs = get_ruleset(ruleset) if ruleset is not None else default_ruleset(key_name)
    key = (key_name, rs.alphabet, rs.rows, rs.cols, gaddag, str(cache_dir()))
    lex = _loaded.get(key)
    if lex is not None:
        return lex
    with _loading:
        if key not in _loaded:
            lex = compile_word_list(embedded_words(key_name), rs, name=key_name, gaddag=gaddag,
                                    source=f"embedded {key_name}")
            home = default_ruleset(key_name)
            hint = f"the embedded {key_name!r} lexicon is spelled for ruleset {home.name}" if home.alphabet != rs.alphabet else ""
            _fits(lex, rs, f"embedded lexicon {key_name!r}", hint)
            _loaded[key] = lex
        return _loaded[key]


def _fits(lex: Lexicon, rs: Ruleset, source: str, hint: str) -> None:
    check_fits(len(lex), lex.skipped_by_reason, rs.alphabet, max_word_length(rs), source, hint)
