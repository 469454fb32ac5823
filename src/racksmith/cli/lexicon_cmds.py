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
    ruleset: str = typer.Option("english", "--ruleset", "-r", help=RULESET_HELP),
    dawg_only: bool = typer.Option(False, "--dawg-only", help="Leave the GADDAG out (lookups only, no move generation)."),
    magpie_layout: bool = typer.Option(
        False, "--magpie-layout",
        help="Write every sibling list whole, as MAGPIE does (same bytes as MAGPIE's file; a little larger).",
    ),
) -> None:
    """Compile a word list into a KWG file (DAWG + GADDAG unless --dawg-only).

    Words with letters outside the alphabet, longer than the board or shorter than 2 letters
    are skipped; their count is shown."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from ..lexicon import Lexicon
    from ..lexicon.lexicon import max_word_length
    from ..lexicon.wordlist import check_fits, parse_word_list, read_word_list_bytes
    from ..rules.ruleset import get_ruleset

    output_file(output, "a KWG file")
    if output.resolve() == words.resolve():
        raise typer.BadParameter("the output would overwrite the word list: choose another file", param_hint="--output")
    rs = get_ruleset(ruleset)
    longest = max_word_length(rs)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=err_console, transient=True, disable=not err_console.is_interactive) as progress:
        step = progress.add_task(f"reading {words.name}", total=3)
        data = read_word_list_bytes(words)
        wl = parse_word_list(data, rs.alphabet, longest, repr(str(words)))
        check_fits(len(wl), wl.skipped, rs.alphabet, longest, f"word list {str(words)!r}",
                   "give --ruleset for the list's language; one word a line")
        progress.update(step, advance=1, description=f"building the graph of {len(wl):,} words")
        lex = Lexicon.from_word_list(wl, rs, gaddag=not dawg_only, name=words.stem, share_tails=not magpie_layout)
        progress.update(step, advance=1, description=f"writing {output.name}")
        lex.save(output, ruleset=rs)  # (a ruleset file's path goes in the sidecar, for a refusal to name)
        progress.update(step, advance=1)
    say_summary(f"{output}: {len(lex):,} words, {lex.nodes:,} nodes ({4 * lex.nodes:,} bytes), "
        f"{'DAWG + GADDAG' if lex.has_gaddag else 'DAWG only'}")
    if lex.skipped:
        _say(wl.skipped.describe(longest, rs.alphabet, "--ruleset FILE"))


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
        name, path, info = lex.name, lex.path, lex.info()
    if as_json:  # an embedded lexicon's description holds its source's attribution (its licence asks for it)
        emit_json({**info, "embedded": embedded.description} if embedded else info)
        return
    say(f"{name}: {info['words']:,} words; {info['nodes']:,} nodes ({info['bytes']:,} bytes), "
        f"{info['dawg_nodes']:,} of them in the DAWG; GADDAG: {'yes' if info['gaddag'] else 'no'}"
        + (" (the file holds only a GADDAG: racksmith builds the DAWG)" if info.get("gaddag_only") else "")
        + (f"; file {path}" if path else ""))
    if embedded:
        say(f"embedded: {embedded.description}")


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
        for w, ok in found.items():
            say(f"{w}: {'valid' if ok else 'not in ' + (lex.name or 'the lexicon')}")
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
