"""``racksmith cache info|clear``: the per-user cache folder (compiled lexicons, word maps, complete
leave tables) seen and emptied."""
from __future__ import annotations

import typer

from .common import emit_json, fail, note, say

cache_app = typer.Typer(
    help="The cache folder of compiled lexicons, word maps and leave tables: see how big it is, clear it.",
    no_args_is_help=True,
)


def _mb(n: int) -> str:
    """A size for people: ``22.2 MB``, ``326 bytes``."""
    return f"{n / 1e6:,.1f} MB" if n >= 100_000 else f"{n:,} bytes"


def _count(n: int, word: str, words: "str | None" = None) -> str:
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def _no_folder() -> None:
    note("note: there is no cache folder (no RACKSMITH_CACHE_DIR, XDG_CACHE_HOME or home folder): lexicons, word "
         "maps and leave tables are made in memory at every run")


def _facts(get, as_json: bool) -> dict:
    """What ``get`` (cache_usage, clear_cache) answers, printed as JSON with ``as_json``; a cache
    path that is no folder: one line, exit 1."""
    from ..errors import OutputFileError

    try:
        facts = get()
    except OutputFileError as e:
        fail(str(e))
    if as_json:
        emit_json(facts)
    return facts


@cache_app.command("info")
def info_cmd(
    as_json: bool = typer.Option(False, "--json", help="Print the facts as JSON on stdout."),
) -> None:
    """The cache folder, how many entries it holds and their size. The folder is RACKSMITH_CACHE_DIR,
    else $XDG_CACHE_HOME/racksmith, else ~/.cache/racksmith."""
    from ..lexicon.cache import cache_usage

    usage = _facts(cache_usage, as_json)
    if not as_json and usage["folder"] is None:
        say("folder: none")
    elif not as_json:
        kinds = [_count(usage["lexicons"], "lexicon"), _count(usage["word_maps"], "word map"),
                 _count(usage["leave_tables"], "leave table")]
        lines = [f"folder: {usage['folder']}" + ("" if usage["exists"] else " (not made yet)"),
                 f"entries: {usage['entries']:,} ({', '.join(kinds)})",
                 f"size: {_mb(usage['bytes'])}"]
        if usage["leftovers"]:
            lines.append(f"leftovers: {_count(usage['leftovers'], 'file')} ({_mb(usage['leftover_bytes'])}): temporary "
                         "and lock files of racksmith processes killed or at work ('racksmith cache clear' removes "
                         "those no process is using)")
        say("\n".join(lines))
    if usage["folder"] is None:
        _no_folder()


@cache_app.command("clear")
def clear_cmd(
    as_json: bool = typer.Option(False, "--json", help="Print what was removed as JSON on stdout."),
) -> None:
    """Remove racksmith's files from the cache folder (never another file): every entry, and what
    killed processes left. An entry another racksmith process is building is kept; others running
    read theirs again, or build them, when they next need them."""
    from ..lexicon.cache import clear_cache

    result = _facts(clear_cache, as_json)
    if as_json:
        pass  # (the facts printed: the notes below still go to stderr)
    elif result["folder"] is None:
        say("nothing to clear")
    elif result["removed"]:
        say(f"{result['folder']}: removed {_count(result['entries'], 'entry', 'entries')} "
            f"({_count(result['removed'], 'file')}), {_mb(result['bytes'])} freed")
    else:
        say(f"{result['folder']}: nothing to clear")
    if result["folder"] is None:
        _no_folder()
    if result["busy"]:
        note(f"note: kept {_count(len(result['busy']), 'entry', 'entries')} another racksmith process is building "
             f"({', '.join(result['busy'])}): run 'racksmith cache clear' again when it is done")
