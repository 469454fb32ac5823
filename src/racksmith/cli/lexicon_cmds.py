"""``racksmith lexicon build|info|check|anagram``: KWG word graphs."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .common import dash_is_stdin, emit_json, err_console, output_file, say, say_summary

lexicon_app = typer.Typer(
    help="Lexicons (KWG word graphs): build them from word lists, look words up, find anagrams.",
    no_args_is_help=True,
)

RULESET_HELP = "Ruleset whose alphabet (and board size, for word lists) the lexicon uses."
RULESET_OPTIONAL_HELP = RULESET_HELP + (" [default: for an embedded lexicon, the ruleset that names it; for a .kwg "
                                        "file racksmith built, the shipped ruleset its FILE.json names; else english]")
LEXICON_HELP = ("An embedded lexicon (enable, ru, ru-erudit), a word list file or a .kwg file "
                "(a file named like an embedded lexicon: ./enable).")


def _say(text: str) -> None:
    """A diagnostic (words skipped, a count) on stderr."""
    err_console.print(text, highlight=False, markup=False, soft_wrap=True)


def _load(spec: str, ruleset: Optional[str]):
    """The lexicon; for a word list given by path, what it left out goes to stderr (as for every
    command: :func:`.common.note_skipped_words`). Without --ruleset, a KWG file whose sidecar says
    it spells a shipped ruleset's letters (``lexicon build -r russian``) is read with that
    ruleset's."""
    from ..lexicon import EMBEDDED, load_lexicon
    from ..lexicon.sidecar import ruleset_spelling

    if ruleset is None and spec.strip().lower() not in EMBEDDED:
        ruleset = ruleset_spelling(spec)
    return load_lexicon(spec, ruleset)


@lexicon_app.command("build")
def build_cmd(
    words: Path = typer.Argument(..., help="Word list: UTF-8, one word a line (gzip accepted; '-': stdin).",
                                dir_okay=False, allow_dash=True, callback=dash_is_stdin),
    output: Path = typer.Option(..., "--output", "-o", help="The .kwg file to write.", dir_okay=False),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", "-r", help=RULESET_HELP + " [default: english]"),
    dawg_only: bool = typer.Option(False, "--dawg-only", help="Leave the GADDAG out (lookups only, no move generation)."),
    magpie_layout: bool = typer.Option(
        False, "--magpie-layout",
        help="Write every sibling list whole, as MAGPIE does (same bytes as MAGPIE's file; a little larger).",
    ),
) -> None:
    """Compile a word list into a KWG file (DAWG + GADDAG unless --dawg-only).

    Words with letters outside the alphabet, longer than the board or shorter than 2 letters
    are skipped; their count is shown. Without --ruleset, a list whose words are mostly spelled
    in another shipped ruleset's letters (Cyrillic) is refused naming it (--ruleset russian)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from ..lexicon import Lexicon
    from ..lexicon.lexicon import max_word_length
    from ..lexicon.sidecar import written_together
    from ..lexicon.wordlist import parse_word_list, read_word_list_bytes
    from ..rules.ruleset import get_ruleset

    from .progress import check_output_file

    output_file(output, "a KWG file")
    # /dev/stdout, a FIFO, a missing or read-only folder: refused before the list is read
    check_output_file(output, "--output", sidecar=True)
    if output.resolve() == words.resolve():
        raise typer.BadParameter("the output would overwrite the word list: choose another file", param_hint="--output")
    rs = get_ruleset("english" if ruleset is None else ruleset)  # (-r "" is an unknown ruleset, not english)
    longest = max_word_length(rs)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=err_console, transient=True, disable=not err_console.is_interactive) as progress:
        step = progress.add_task(f"reading {words.name}", total=3)
        data = read_word_list_bytes(words)  # (read once: '-' is stdin, which cannot be read again)
        wl = parse_word_list(data, rs.alphabet, longest, repr(str(words)))
        _check_fits(wl, data, rs, f"word list {str(words)!r}", given=ruleset is not None)
        progress.update(step, advance=1, description=f"building the graph of {len(wl):,} words")
        lex = Lexicon.from_word_list(wl, rs, gaddag=not dawg_only, name=words.stem, share_tails=not magpie_layout)
        progress.update(step, advance=1, description=f"writing {output.name}")
        with written_together(output):  # (no room for the sidecar: the KWG is not written either)
            lex.save(output, ruleset=rs)  # (a ruleset file's path goes in the sidecar, for a refusal to name)
        progress.update(step, advance=1)
    say_summary(f"{output}: {len(lex):,} words, {lex.nodes:,} nodes ({4 * lex.nodes:,} bytes), "
        f"{'DAWG + GADDAG' if lex.has_gaddag else 'DAWG only'}")
    if lex.skipped:
        _say(wl.skipped.describe(longest, rs.alphabet, "--ruleset FILE"))


def _check_fits(wl, data: bytes, rs, what: str, given: bool) -> None:
    """Refuse a word list most of whose words ``rs`` cannot spell (:func:`~racksmith.lexicon.wordlist.check_fits`);
    with no ruleset ``given``, the message names the shipped rulesets whose letters spell it (read
    from ``data``, the list's bytes: stdin is not read again), each a --ruleset to give."""
    from ..errors import RacksmithError
    from ..formats.naming import rulesets_that_read
    from ..lexicon.lexicon import max_word_length
    from ..lexicon.wordlist import check_fits
    from .common import fail

    try:
        check_fits(len(wl), wl.skipped, rs.alphabet, max_word_length(rs), what,
                   "give --ruleset for the list's language; one word a line")
    except RacksmithError as e:
        if not given and wl.skipped.letters:  # (letters are the problem, not lengths or an empty list)
            fits = rulesets_that_read(lambda other: _spells(data, other), rs)
            if fits:
                fail(f"{e}; the words are spelled in the letters of {' or '.join(fits)}: give "
                     + " or ".join(f"--ruleset {name}" for name in fits))
        raise


def _spells(data: bytes, ruleset) -> bool:
    """Does ``ruleset`` spell a word list (its bytes) well enough to build a lexicon of it?"""
    from ..errors import RacksmithError
    from ..lexicon.lexicon import max_word_length
    from ..lexicon.wordlist import check_fits, parse_word_list

    longest = max_word_length(ruleset)
    try:
        wl = parse_word_list(data, ruleset.alphabet, longest)
        check_fits(len(wl), wl.skipped, ruleset.alphabet, longest, "word list")
    except RacksmithError:
        return False
    return True


@lexicon_app.command("info")
def info_cmd(
    lexicon: str = typer.Argument(..., help=LEXICON_HELP),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", "-r", help=RULESET_OPTIONAL_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the facts as JSON on stdout."),
) -> None:
    """Words, nodes and parts (DAWG, GADDAG) of a lexicon. A .kwg file's counts are read without
    its letters: no --ruleset is needed (as MAGPIE and wolges count a KWG)."""
    from ..lexicon import EMBEDDED
    from ..lexicon.load import kwg_file_info

    # an embedded name is the embedded lexicon whatever the current folder holds, as for every
    # command (load_lexicon): a file of that name is given as ./enable
    embedded = EMBEDDED.get(lexicon.strip().lower())
    counted = kwg_file_info(lexicon) if ruleset is None and embedded is None else None
    if counted is not None:
        name, path, info = Path(lexicon).stem, Path(lexicon), counted
    else:
        lex = _load(lexicon, ruleset)
        name, path, info = lex.name, lex.path, _file_info(lex)
    if as_json:  # an embedded lexicon's description holds its source's attribution (its licence asks for it)
        emit_json({**info, "embedded": embedded.description} if embedded else info)
        return
    lines = [f"{name}: {info['words']:,} words; {info['nodes']:,} nodes ({info['bytes']:,} bytes), "
             f"{info['dawg_nodes']:,} of them in the DAWG; GADDAG: {'yes' if info['gaddag'] else 'no'}"
             + (" (the file holds only a GADDAG: racksmith builds the DAWG)" if info.get("gaddag_only") else "")
             + (f"; file {path}" if path else "")]
    if embedded:
        lines.append(f"embedded: {embedded.description}")
    say("\n".join(lines))  # (one write: an output that cannot show the letters gets none of it)


def _file_info(lex) -> dict:
    """What ``lexicon info`` tells of a lexicon read with --ruleset (:meth:`Lexicon.info`): of one
    read from a KWG file holding only a GADDAG, the counts of that file (its nodes, none of them in
    a DAWG; its bytes), as they are counted without --ruleset (:func:`~racksmith.lexicon.load.kwg_file_info`),
    not those of the whole graph racksmith built from its words."""
    info = lex.info()
    if not info.get("gaddag_only") or lex.path is None:
        return info
    from ..lexicon.kwg import check_kwg, nodes_of, read_file

    source = repr(str(lex.path))
    facts = check_kwg(nodes_of(read_file(lex.path), source), len(lex.alphabet), source)
    return {**info, "nodes": facts.nodes, "dawg_nodes": facts.dawg_nodes, "gaddag": facts.has_gaddag,
            "bytes": 4 * facts.nodes}


@lexicon_app.command("check")
def check_cmd(
    lexicon: str = typer.Argument(..., help=LEXICON_HELP),
    words: List[str] = typer.Argument(..., help="Words to look up (case ignored)."),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", "-r", help=RULESET_OPTIONAL_HELP),
    as_json: bool = typer.Option(False, "--json", help='Print {"WORD": true|false} on stdout.'),
) -> None:
    """Look words up. Exits 0 whatever the answers."""
    from ..errors import RacksmithError

    lex = _load(lexicon, ruleset)
    found = {w: w in lex for w in words}
    unspellable = {}
    for w in words:
        try:
            lex.alphabet.encode_plain(w)
        except RacksmithError as e:
            unspellable[w] = str(e)
    if as_json:
        emit_json(found)
    else:
        # (one write: an output that cannot show a word's letters gets none of the answers)
        say("\n".join(f"{w}: {'valid' if ok else 'not in ' + (lex.name or 'the lexicon')}" for w, ok in found.items()))
    for w, why in unspellable.items():  # a word no lexicon of this alphabet can hold: say why
        _say(f"note: {w}: {why}")


@lexicon_app.command("anagram")
def anagram_cmd(
    lexicon: str = typer.Argument(..., help=LEXICON_HELP),
    tiles: str = typer.Argument(..., help="The tiles; ? (or *) is a blank."),
    partial: bool = typer.Option(False, "--partial", help="Also words using only some of the tiles."),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", "-r", help=RULESET_OPTIONAL_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the list of words as JSON on stdout."),
) -> None:
    """Words made from the tiles, one a line on stdout; letters that come from a blank are lowercase."""
    lex = _load(lexicon, ruleset)
    found = lex.anagrams(tiles, partial=partial)
    if as_json:
        emit_json(found)
        return
    if found:
        say("\n".join(found))
    _say(f"{len(found):,} word{'s' if len(found) != 1 else ''}")
