"""``racksmith leaves build|value|csv|info|train``: leave values in KLV2 files."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import click
import typer

from ..play.backends import BACKENDS
from .common import JOBS_HELP, dash_is_stdin, emit_json, err_console, output_file, plural, say, say_summary

leaves_app = typer.Typer(
    help="Leave values (KLV2 files): train them by self-play, build them from a CSV or write one as a CSV, "
         "look leaves up, say what a file holds.",
    no_args_is_help=True,
)

RULESET_HELP = "Ruleset whose alphabet the leaves use (? is the blank)."
#: the leave file of value, csv and info
LEAVE_FILE_HELP = ("A .klv2 (or v1 .klv) file, a leave CSV, or a shipped set by name (english, super, russian, erudit; "
                   "a file of that name: ./english).")
#: the default of --ruleset of the commands that read a leave file (:func:`_ruleset_of`)
READ_DEFAULT = (" [default: a shipped set's own; for a file racksmith made (leaves train, leaves build), the ruleset "
                "its FILE.json names; else english]")


def _say(text: str) -> None:
    err_console.print(text, highlight=False, markup=False, soft_wrap=True)


@leaves_app.command("build")
def build_cmd(
    csv: Path = typer.Argument(..., help="leave,value CSV, tiles of each leave in any order, ? = blank (gzip accepted; '-': stdin).",
                               dir_okay=False, allow_dash=True, callback=dash_is_stdin),
    output: Path = typer.Option(..., "--output", "-o", help="The .klv2 file to write.", dir_okay=False),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", "-r", help=RULESET_HELP + " [default: english]"),
    partial: bool = typer.Option(False, "--partial",
                                 help="Write the CSV's leaves alone: a smaller file, read by racksmith and wolges as "
                                      "the complete one, but misread by MAGPIE (a leave the file lacks is read as a "
                                      "longer one that begins with it: E as ES)."),
) -> None:
    """Compile a leave CSV into a KLV2 file.

    The file holds every leave of the ruleset's tiles of 1 up to as many tiles as the CSV's
    longest leave (rack size - 1 for a full table), those the CSV lacks at 0, the value racksmith
    gives a leave a file lacks, as MAGPIE's convert csv2klv writes it. From a CSV with leaves of
    rack size - 1 tiles and values of at most 3 decimals (as MAGPIE's convert klv2csv and
    leaves csv --magpie write them) the file is byte for byte MAGPIE's: MAGPIE rounds each value
    to 0.001 as it reads it, racksmith keeps the CSV's value (as float32)."""
    from ..errors import LexiconFormatError, RacksmithError
    from ..formats.naming import rulesets_that_read
    from ..lexicon import Leaves
    from ..lexicon.klv import read_csv_text
    from ..lexicon.sidecar import written_together
    from ..rules.ruleset import get_ruleset
    from .common import fail, note
    from .progress import check_output_file

    output_file(output, "a KLV2 file")
    # /dev/stdout, a FIFO, a missing or read-only folder: refused before the CSV is read
    check_output_file(output, "--output", sidecar=True)
    if output.resolve() == csv.resolve():
        raise typer.BadParameter("the output would overwrite the CSV: choose another file", param_hint="--output")
    rs = get_ruleset("english" if ruleset is None else ruleset)  # (-r "" is an unknown ruleset, not english)
    with err_console.status(f"building {output.name} from {csv.name}"):
        text = None
        try:
            text = read_csv_text(csv)  # (read once: '-' is stdin, which cannot be read again)
            source = repr(str(csv))
            try:
                leaves = Leaves.from_csv_text(text, rs, source=source, complete=not partial)
            except LexiconFormatError as e:
                why = getattr(e, "incomplete", None)
                if why is None:
                    raise
                note(f"note: {why}: {output.name} holds the CSV's leaves alone, which MAGPIE misreads (a leave the "
                     "file lacks is read as a longer one that begins with it)")
                leaves = Leaves.from_csv_text(text, rs, source=source)
                partial = True
        except RacksmithError as e:
            if ruleset is None and text is not None:  # no ruleset given: leaves in another ruleset's letters name it
                fits = rulesets_that_read(lambda other: _reads_csv(text, other), rs)
                if fits:
                    fail(f"{e}; the leaves are spelled in the letters of {' or '.join(fits)}: give "
                         + " or ".join(f"--ruleset {name}" for name in fits))
            raise
        with written_together(output):  # (no room for the sidecar: the KLV2 is not written either)
            leaves.save(output)
    sizes = "1 tile" if leaves.longest == 1 else f"1 to {leaves.longest} tiles"
    which = "" if partial else f" (every leave of {sizes}; those the CSV lacks at 0)"
    say_summary(f"{output}: {len(leaves):,} leaves{which}, {leaves.kwg.size:,} nodes")


def _reads_csv(text: str, ruleset) -> bool:
    """Does ``ruleset`` read the leaves of a CSV (its text, read once: stdin is not read again)?"""
    from ..errors import RacksmithError
    from ..lexicon import Leaves

    try:
        Leaves.from_csv_text(text, ruleset)
    except RacksmithError:
        return False
    return True


@leaves_app.command("value")
def value_cmd(
    leaves_file: str = typer.Argument(..., metavar="FILE",
                                      help=LEAVE_FILE_HELP),
    leaves: List[str] = typer.Argument(..., metavar="LEAVE...", help="Leaves, tiles in any order, ? = blank."),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", "-r",
                                          help=RULESET_HELP + READ_DEFAULT),
    as_json: bool = typer.Option(False, "--json", help='Print {"LEAVE": value} on stdout.'),
) -> None:
    """Value of each leave (0 for a leave the file does not hold)."""
    from ..lexicon import load_leaves

    # a shipped set's name is the shipped set whatever the folder holds, as --leaves reads it (a
    # file of that name is ./english)
    ruleset = _ruleset_of(leaves_file, ruleset)
    table = load_leaves(leaves_file, ruleset)
    values = {leave: table.value(leave) for leave in leaves}
    if as_json:  # the file holds float32: its shortest digits (38.442696), not its double's (38.44269561767578)
        import numpy as np

        emit_json({leave: float(str(np.float32(v))) for leave, v in values.items()})
        return
    say("\n".join(f"{leave}: {v:g}" for leave, v in values.items()))  # (one write: all of it, or none)


def _ruleset_of(leaves_file: str, ruleset: "str | None"):
    """The ruleset to read ``leaves_file`` with: ``--ruleset`` when given, else the one its
    training provenance names (a file trained for a ruleset file of racks of 5 is read with it,
    without a note that it is not English's), else the shipped ruleset whose letters its sidecar
    says it spells (``leaves build -r russian``), else None (a shipped set's own, or english)."""
    if leaves_file.strip().lower() == "none":  # (--leaves none: no file, every leave worth 0)
        from .common import fail

        fail("'none' is no leave file (with --leaves none every leave is worth 0): give a .klv2 file, a leave CSV "
             "or a shipped set (english, super, russian, erudit)")
    if ruleset is not None:
        return ruleset
    from ..lexicon.klv import shipped_set
    from ..lexicon.sidecar import ruleset_spelling, ruleset_trained_for

    if shipped_set(leaves_file) is not None or leaves_file.strip().lower() in ("shipped", "none"):
        return None
    return ruleset_trained_for(leaves_file) or ruleset_spelling(leaves_file)


def _csv_text(table) -> str:
    """A leave table as ``leave,value`` lines, in the file's order, which ``leaves build`` makes
    into the same KLV2 again: each value in the fewest digits that read back (as a double, then
    float32, as a CSV is read) to its float32, else in the double's own digits."""
    import numpy as np

    names = [leave for leave, _ in table.items()]
    values = np.asarray(table.values, np.float32)
    texts = [str(v) for v in values]
    if texts:
        back = np.array(texts, dtype=np.float64).astype(np.float32)
        for i in np.flatnonzero(back != values):
            texts[i] = repr(float(values[i]))
    return "".join(f"{leave},{text}\n" for leave, text in zip(names, texts))


def _tile_rows(listing: bytes, width: int):
    """The leaves of a listing (tiles, each leave ended by 0xFF) as rows of ``tile + 1``, ``width``
    columns, zeros last (numpy array)."""
    import numpy as np

    buf = np.frombuffer(listing, np.uint8)
    ends = np.flatnonzero(buf == 0xFF)
    starts = np.concatenate(([0], ends[:-1] + 1)).astype(np.int64)
    lengths = ends - starts
    rows = np.zeros((len(ends), width), np.uint8)
    for k in range(int(lengths.max()) if len(lengths) else 0):
        has = lengths > k
        rows[has, k] = buf[starts[has] + k] + 1
    return rows


def _listing(rows) -> bytes:
    """Rows of ``tile + 1`` (zeros last) as a listing: each leave's tiles, then 0xFF."""
    import numpy as np

    cells = np.concatenate([rows.astype(np.int16) - 1, np.full((len(rows), 1), 0xFF, np.int16)], axis=1)
    return cells[cells >= 0].astype(np.uint8).tobytes()


def _magpie_csv(table, rs) -> "tuple[str, str | None]":
    """A leave table as MAGPIE's ``convert klv2csv`` writes it, and a note on what it leaves out (or
    None): every leave of the ruleset's tiles of 1 to rack size - 1 tiles (0 for one the table
    lacks, as racksmith reads it), by size, then tiles ascending (the blank first); each value
    rounded to 0.001, half away from zero, as MAGPIE reads a KLV2 (into whole millipoints), and
    written as C's %f writes it (23.864000). When that table is too large to list, the table's own
    leaves, in that order and form."""
    import numpy as np

    from ..lexicon.klv import _leave_names
    from ..training.leavegen import MAX_LEAVES, leave_count, possible_leaves
    from ..training.tally import WIDTH

    most = rs.rack_size - 1
    sizes, listing = _leave_sizes(table)
    width = max(most, int(sizes.max()) if len(sizes) else 0, 1)
    have = _tile_rows(listing, width)  # (the file's order: ascending as bytes)
    values = np.asarray(table.values, np.float64)
    why = None
    if most < 1:
        every = np.zeros((0, width), np.uint8)
    elif most > WIDTH or leave_count(rs.counts, rs.rack_size) > MAX_LEAVES:
        reason = (f"racksmith lists leaves of at most {WIDTH} tiles" if most > WIDTH else
                  f"they are more than racksmith lists ({MAX_LEAVES:,})")
        why = (f"the leaves of 1 to {most} of {rs.name}'s tiles are not listed ({reason}): the "
               f"file's own {len(table):,} are written, in MAGPIE's order and form, where MAGPIE writes every one")
        every = None
    else:
        by_size = possible_leaves(rs.counts, rs.rack_size)
        parts = []
        for size in sorted(by_size):
            rows = np.zeros((len(by_size[size]), width), np.uint8)
            rows[:, :size] = by_size[size][:, :size]
            parts.append(rows[np.argsort(rows.view(f"S{width}").ravel(), kind="stable")])
        every = np.concatenate(parts)
    if every is None:
        order = np.argsort(sizes, kind="stable")
        rows, vals = have[order], values[order]
    else:
        keys = have.view(f"S{width}").ravel()
        want = every.view(f"S{width}").ravel()
        at = np.minimum(np.searchsorted(keys, want), max(len(keys) - 1, 0))
        found = (keys[at] == want) if len(keys) else np.zeros(len(want), bool)
        rows, vals = every, np.where(found, values[at] if len(keys) else 0.0, 0.0)
        left_out = len(table) - int(np.count_nonzero(found))
        if left_out:
            why = (f"{plural(left_out, 'leave')} of the file no game of {rs.name} deals (more copies of a tile than it "
                   f"has, or more than {most} tiles) left out, as MAGPIE's klv2csv leaves them out")
    scaled = vals * 1000.0  # (MAGPIE: round(value * 1000) into an int32, half away from zero)
    whole = np.trunc(scaled)
    milli = (whole + np.where(np.abs(scaled - whole) >= 0.5, np.sign(scaled), 0.0)).astype(np.int64)
    names = _leave_names(_listing(rows), table.alphabet)
    texts = [f"{'-' if m < 0 else ''}{abs(m) // 1000}.{abs(m) % 1000:03d}000" for m in milli.tolist()]
    return "".join(f"{leave},{text}\n" for leave, text in zip(names, texts)), why


@leaves_app.command("csv")
def csv_cmd(
    leaves_file: str = typer.Argument(..., metavar="FILE",
                                      help=LEAVE_FILE_HELP),
    output: Optional[Path] = typer.Option(None, "--output", "-o", dir_okay=False,
                                          help="The CSV to write (.gz: gzip'ed; '-': stdout) [default: stdout]."),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", "-r",
                                          help=RULESET_HELP + READ_DEFAULT),
    magpie: bool = typer.Option(False, "--magpie",
                                help="Write what MAGPIE's convert klv2csv writes: every leave of the ruleset's tiles "
                                     "of 1 to rack size - 1 tiles (0 for one the file lacks), by size, then in "
                                     "alphabet order (the blank first), each value to 0.001 as MAGPIE reads it, "
                                     "printed with 6 decimals (23.864000)."),
) -> None:
    """Write a leave file's leaves as leave,value lines.

    By default, racksmith's exact form: the file's leaves in its order, each value in the fewest
    digits that read back to its float32, so leaves build makes the same KLV2 of them again, byte
    for byte (with --partial for a file that lacks some leaves of the sizes it holds). --magpie
    writes MAGPIE's form instead (values rounded to 0.001)."""
    import gzip

    from ..lexicon import load_leaves
    from ..lexicon.files import write_atomically
    from ..rules.ruleset import get_ruleset
    from .common import fail, note, write_results

    if output is not None and str(output) == "-":  # (a file named '-' by its full path: "$PWD/-")
        output = None
    if output is not None:
        from ..lexicon.files import names_a_descriptor

        if names_a_descriptor(output) is not None:  # (written whole and renamed: never over what stdout is sent to)
            fail(f"--output {output}: it names a file descriptor or a standard stream, not a file: give a regular "
                 "file's path, or leave --output out (or give -) to write the CSV to stdout")
    if output is not None and Path(leaves_file).exists() and output.resolve() == Path(leaves_file).resolve():
        raise typer.BadParameter("the output would overwrite the leave file: choose another file", param_hint="--output")
    ruleset = _ruleset_of(leaves_file, ruleset)
    table = load_leaves(leaves_file, ruleset)  # (a shipped set's name is the set: a file of that name is ./english)
    count = len(table)
    if magpie:
        from ..lexicon.shipped_leaves import SHIPPED_LEAVES
        from ..lexicon.klv import shipped_set

        if ruleset is None and shipped_set(leaves_file) is not None:
            ruleset = SHIPPED_LEAVES[shipped_set(leaves_file)]  # (a shipped set's own ruleset: its tiles)
        text, why = _magpie_csv(table, get_ruleset(ruleset))
        count = text.count("\n")
        if why is not None:
            note(f"note: {why}")
    else:
        text = _csv_text(table)
    data = text.encode("utf-8")
    if output is None:
        write_results(data)  # (every byte of it, or the error that stopped it)
        return
    if output.name.lower().endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    write_atomically(output, data)
    say_summary(f"{output}: {count:,} leaves")


def _leave_sizes(table):
    """The number of tiles of each leave of ``table``, in the file's order (numpy array)."""
    import numpy as np

    from ..lexicon import _kwgwalk
    from ..lexicon.kwg import ARC_MASK

    if not len(table):
        return np.zeros(0, np.int64), b""
    listing = _kwgwalk.words(table.kwg, int(table.kwg[0]) & ARC_MASK, b"", table.longest)
    ends = np.flatnonzero(np.frombuffer(listing, np.uint8) == 0xFF)
    return np.diff(np.concatenate(([-1], ends))) - 1, listing


def _f32(value) -> float:
    """A float32 value in its shortest digits (38.442696, not 38.44269561767578)."""
    import numpy as np

    return float(str(np.float32(value)))


def _trained_summary(prov: dict) -> dict:
    """What ``leaves info`` tells of a leave file's provenance (``leaves train``'s record, or a
    shipped set's): the settings it was trained with, and how many of its leaves training saw
    (None when the record does not say)."""
    completed = prov.get("completed") if isinstance(prov.get("completed"), dict) else {}
    tallied = prov.get("tallied_leaves", completed.get("trained_leaves"))
    prior = prov.get("prior_leaves", completed.get("leaves_added"))
    keys = ("ruleset", "ruleset_file", "lexicon", "lexicon_sha256", "games", "games_per_generation", "generations",
            "seed", "prior_weight", "probes", "games_in_chain", "racksmith_version", "racksmith_commit", "command")
    out = {k: prov[k] for k in keys if k in prov}
    out["tallied_leaves"] = tallied if isinstance(tallied, int) else None
    out["prior_leaves"] = prior if isinstance(prior, int) else None
    return out


@leaves_app.command("info")
def info_cmd(
    leaves_file: str = typer.Argument(..., metavar="FILE_OR_NAME",
                                      help=LEAVE_FILE_HELP),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", "-r",
                                          help=RULESET_HELP + READ_DEFAULT),
    top: int = typer.Option(5, "--top", "-n", min=0, max=1000, help="How many of the best and the worst leaves to show."),
    as_json: bool = typer.Option(False, "--json", help="Print the facts as JSON on stdout."),
) -> None:
    """What a leave file holds: its leaves by size (count, mean, min, max), the best and worst, and
    how it was trained when its provenance (FILE.json, or a shipped set's) says."""
    import numpy as np

    from ..lexicon import load_leaves
    from ..lexicon.klv import shipped_set
    from ..lexicon.shipped_leaves import default_leaves_name

    ruleset = _ruleset_of(leaves_file, ruleset)
    table = load_leaves(leaves_file, ruleset)  # (a shipped set's name is the set: a file of that name is ./english)
    own = leaves_file.strip().lower() == "shipped"  # (the ruleset's own set, as load_leaves reads it)
    name = default_leaves_name(ruleset) if own else shipped_set(leaves_file)
    data = b""  # (a shipped set's provenance is its own, whatever the bytes)
    if name is None and not own:
        try:
            data = Path(leaves_file).read_bytes()  # (its provenance describes the file's own bytes: a v1 .klv's too)
        except OSError:
            data = table.tobytes()
    found = _start_provenance(leaves_file, data, ruleset)  # a shipped set's, or FILE.json when it describes these bytes
    prov = None
    if isinstance(found, dict) and str(found.get("format", "")).startswith("racksmith-leaves-provenance"):
        prov = _trained_summary(found)  # (not the sidecar of letters leaves build writes)
    sizes, listing = _leave_sizes(table)
    values = np.asarray(table.values, np.float64)
    by_size = []
    for size in sorted(set(sizes.tolist())):
        v = values[sizes == size]
        by_size.append({"size": int(size), "leaves": int(v.size), "mean": round(float(v.mean()), 4),
                        "min": _f32(v.min()), "max": _f32(v.max())})
    starts = np.concatenate(([0], np.flatnonzero(np.frombuffer(listing, np.uint8) == 0xFF)[:-1] + 1)) \
        if len(table) else np.zeros(0, np.int64)

    def leave(i: int) -> dict:
        tiles = listing[int(starts[i]) : int(starts[i]) + int(sizes[i])]
        return {"leave": table.alphabet.decode(list(tiles)), "value": _f32(values[i])}

    order = np.argsort(-values, kind="stable")
    best = [leave(i) for i in order[:top]]
    worst = [leave(i) for i in np.argsort(values, kind="stable")[:top]]
    facts = {"file": None if name is not None or own else leaves_file, "set": name, "leaves": len(table), "sizes": by_size,
             "best": best, "worst": worst, "provenance": prov}
    if as_json:
        emit_json(facts)
        return
    say("\n".join(_info_lines(facts, name, own, leaves_file, top)))  # (one write: the whole report, or none)


def _info_lines(facts: dict, name: "str | None", own: bool, leaves_file: str, top: int) -> "list[str]":
    """The report of ``leaves info`` for people, a line each, from its facts (the JSON's). Written
    at once: an output that cannot show a leave's letters (``PYTHONIOENCODING=ascii`` and
    Cyrillic tiles) fails the command before any line is written, as every report does."""
    by_size, best, worst, prov = facts["sizes"], facts["best"], facts["worst"], facts["provenance"]
    what = f"{name} (shipped set)" if name else ("shipped (this ruleset ships no leaves)" if own else leaves_file)
    lines = [f"{what}: {facts['leaves']:,} leaves"]
    if by_size:
        rows = [("tiles", "leaves", "mean", "min", "max")]
        rows += [(str(r["size"]), f"{r['leaves']:,}", f"{r['mean']:.3f}", f"{r['min']:.3f}", f"{r['max']:.3f}")
                 for r in by_size]
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        lines += ["  ".join(cell.rjust(w) for cell, w in zip(r, widths)) for r in rows]
        if top:
            lines.append("best:  " + ", ".join(f"{x['leave']} {x['value']:g}" for x in best))
            lines.append("worst: " + ", ".join(f"{x['leave']} {x['value']:g}" for x in worst))
    if prov is not None:
        per = prov.get("games_per_generation")
        games = prov.get("games")
        parts = [f"ruleset {prov.get('ruleset')}", f"lexicon {prov.get('lexicon')}"]
        if isinstance(games, int):
            split = f" ({' + '.join(f'{n:,}' for n in per)})" if isinstance(per, list) and len(set(per)) > 1 else ""
            parts.append(f"{games:,} games in {plural(int(prov.get('generations') or 1), 'generation')}{split}")
        if "seed" in prov:
            parts.append(f"seed {prov['seed']}")
        if isinstance(prov.get("games_in_chain"), int) and prov["games_in_chain"] != games:
            parts.append(f"{prov['games_in_chain']:,} games in all, counting those behind the set it started "
                         "from (--from)")
        lines.append("trained: " + ", ".join(parts))
        if prov["tallied_leaves"] is not None:
            prior = prov["prior_leaves"]
            lines.append(f"seen in training: {prov['tallied_leaves']:,} leaves"
                         + (f"; at their prior: {prior:,}" if prior is not None else ""))
        if prov.get("command"):
            lines.append(f"command: {prov['command']}")
    return lines


def _start_provenance(start: str, data: bytes, ruleset) -> "dict | None":
    """The provenance of the start leaves: a shipped set's (by its name, or ``shipped``: the
    ruleset's own, whatever the folder holds, as load_leaves reads them), or START.json beside the
    file (a training run's) when it describes these very leaves (its sha256)."""
    import hashlib
    import json

    from ..lexicon import leaves_provenance
    from ..lexicon.klv import shipped_set
    from ..lexicon.shipped_leaves import default_leaves_name

    if start.strip().lower() == "shipped":  # the ruleset's own (none for a ruleset file of one's own)
        name = default_leaves_name(ruleset)
        return leaves_provenance(name) if name is not None else None
    name = shipped_set(start)
    if name is not None:
        return leaves_provenance(name)
    side = Path(start + ".json")
    if side.is_file():
        try:
            prov = json.loads(side.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return prov if isinstance(prov, dict) and prov.get("sha256") == hashlib.sha256(data).hexdigest() else None
    return None


def _start_word(start: str) -> str:
    """``--from`` as the command in the provenance writes it: a shipped set's name as given, a
    file by its name (``./english`` for a file named like a shipped set, which the name would not
    read)."""
    from ..lexicon.klv import shipped_set

    if start.strip().lower() == "shipped" or shipped_set(start) is not None:
        return start.strip()
    name = Path(start).name
    return "./" + name if name.strip().lower() == "shipped" or shipped_set(name) is not None else name


def _saved_training(output: Path, settings) -> "tuple[str, str] | None":
    """How far the saved state of a stopped training got (``at 1,000 of 4,000 games (generation 1
    of 2: 1,000 of 2,000)``, or ``after all 4,000 games``) and what the same command does next
    (``resume``, ``write the leaves``): what the files in OUTPUT.train/ hold, not what the run had
    played. None when no state was saved."""
    import json

    from ..training.train import state_dir

    sdir = state_dir(output)
    try:
        state = json.loads((sdir / "state.json").read_text(encoding="utf-8"))
        g, done = int(state["generation"]), int(state["games_done"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    total = settings.total_games
    if g > settings.generations:
        return f"after all {total:,} games", "write the leaves"
    played = sum(settings.games_in(i) for i in range(1, g)) + done
    where = (f" (generation {g} of {settings.generations}: {done:,} of {settings.games_in(g):,})"
             if settings.generations > 1 else "")
    return f"at {played:,} of {total:,} games{where}", "resume"


def _interrupted_training(output: Path, settings, checkpoint: int, before: "list | None" = None) -> str:
    """What a training stopped by Ctrl-C (or SIGTERM) left: the leaves and their provenance, when
    it had written both (``before``: their :func:`~racksmith.lexicon.files.file_identity` before the
    run; a file written since is another), else the games its saved state holds, or nothing to
    resume."""
    from ..lexicon.files import file_identity
    from ..training.train import provenance_path, state_dir

    now = [file_identity(output), file_identity(provenance_path(output))]
    if before is not None and None not in now and all(a != b for a, b in zip(before, now)):
        left = (f"; its training state {state_dir(output)} was kept (the same command writes the same leaves from "
                "it; or remove it)" if (state_dir(output) / "state.json").exists() else "")
        return (f"interrupted after the leaves were written: {output} and its provenance {provenance_path(output)} "
                f"are complete{left}")
    saved = _saved_training(output, settings)
    if saved is None:
        return (f"interrupted before the state was first saved (every {checkpoint:,} games): nothing to resume; "
                "the same command starts over")
    held, then = saved
    return f"interrupted: state saved {held} in {state_dir(output)}; run the same command again to {then}"


def _unwritten_training(output: Path, settings, e: Exception) -> str:
    """What a training stopped by a file it could not write (``e``: the training state, a tally, a
    generation's table, the leaves or their provenance; a full disk) left, said after ``e``: the
    games its saved state holds and that the same command resumes them, or nothing to resume."""
    import errno
    import os

    from ..training.train import state_dir

    full = any(os.strerror(n) in str(e) for n in (errno.ENOSPC, errno.EDQUOT))
    again = "free space and run the same command again" if full else "once it can be written, run the same command again"
    saved = _saved_training(output, settings)
    if saved is None:
        return f"{e}; no state was saved: nothing to resume ({again} to start over)"
    held, then = saved
    return f"{e}; the run's state is kept {held} in {str(state_dir(output))!r}: {again} to {then}"


def _state_unwritable(output: Path, e: OSError) -> None:
    """Stop with a line naming the output the user gave when ``e`` is about the training state
    beside it (OUTPUT.train/, made first, before any game: a read-only folder is found there), not
    the state's own path alone; any other error is left to the caller."""
    from ..training.train import state_dir
    from .common import fail

    sdir = state_dir(output)
    if not isinstance(e.filename, str):
        return
    failed = Path(e.filename)
    if failed == sdir or sdir in failed.parents:
        fail(f"cannot write {str(output)!r} (its training state {str(sdir)!r}): {e.strerror or e}")


def _prior_weight(value: float) -> float:
    """--prior-weight as the training takes it: 0 or more, below 1e9."""
    if not 0 <= value < 1e9:  # nan too
        raise typer.BadParameter(f"must be a number from 0 up to (not including) 1e9, got {value}")
    return value


@leaves_app.command("train")
def train_cmd(
    output: Path = typer.Option(..., "--output", "-o", help="The .klv2 file to write (its provenance goes to OUTPUT.json).",
                                dir_okay=False),
    ruleset: str = typer.Option(..., "--ruleset", "-r", help="Ruleset to train for."),
    lexicon: Optional[str] = typer.Option(None, "--lexicon", "-l", help="Lexicon [default: the ruleset's]."),
    games: str = typer.Option(..., "--games", "-n",
                              help="Self-play games per generation, or one count per generation (e.g. 20000,8000)."),
    generations: Optional[int] = typer.Option(
        None, "--generations", "-g", min=1,
        help="Generations: each plays with the previous one's leaves [default: one per --games count, or 2].",
    ),
    start: Optional[str] = typer.Option(None, "--from", help="Leaves the first generation plays with: a file, or a "
                                        "shipped set by name (english, super, russian, erudit; a file of that name: "
                                        "./english) [default: none]."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, max=2**64 - 1,
                             help="Seed: game i of generation g draws its bag from (seed, g, i)."),
    prior_weight: float = typer.Option(50.0, "--prior-weight", callback=_prior_weight,
                                       help="Weight, in turns, of a rare leave's prior (built from its smaller leaves)."),
    probes: int = typer.Option(0, "--probes", help="Census: before every tallied turn, tally this many racks drawn from "
                               "the tiles unseen to the mover, valued on that board, instead of the rack dealt "
                               "(0: tally the racks dealt).", min=0, max=10_000),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, show_default=False, help=JOBS_HELP),
    backend: str = typer.Option("local", "--backend", click_type=click.Choice(BACKENDS, case_sensitive=False),
                                help="local (process pool) or ray."),
    address: Optional[str] = typer.Option(None, "--address", help="Ray cluster to join ('auto' or host:port), "
                                          "with --backend ray [default: start one]."),
    checkpoint: int = typer.Option(1000, "--checkpoint", min=1, help="Games between saves of the resumable state."),
) -> None:
    """Train leave values by self-play (MAGPIE-style rack tallies; see docs/ALGORITHM.md).

    The run's state is kept in OUTPUT.train/ (saved every --checkpoint games): run the same
    command again to resume an interrupted run."""
    import hashlib
    import shlex

    from .common import fail, output_file
    from .progress import check_output_kind

    output_file(output, "a KLV2 file")  # (-o -: a leave file is not written to stdout)
    # /dev/stdout, a FIFO, a device: refused now, not after every game (the folder: train_leaves, before any game)
    check_output_kind(output, "--output", sidecar=True)

    from ..rules.ruleset import get_ruleset
    from ..training.train import TrainSettings, train_leaves
    from .progress import games_progress

    from ..play.backends import MAX_GAMES

    try:
        counts = tuple(int(n) for n in games.split(","))
    except ValueError:
        raise typer.BadParameter(f"{games!r}: a whole number, or whole numbers separated by commas",
                                 param_hint="--games") from None
    if generations is None:
        generations = len(counts) if len(counts) > 1 else 2
    elif len(counts) > 1 and len(counts) != generations:
        raise typer.BadParameter(f"{len(counts)} game counts for {generations} generations: give one count, or one "
                                 "per generation", param_hint="--games/--generations")
    if min(counts) < 1:
        raise typer.BadParameter(f"{games!r}: a generation plays 1 game at least", param_hint="--games")
    total = counts[0] * generations if len(counts) == 1 else sum(counts)
    if total > MAX_GAMES:
        raise typer.BadParameter(f"{total:,} games in {generations:,} generations: a training run plays at most "
                                 f"{MAX_GAMES:,}", param_hint="--games/--generations")
    from ..errors import OutputFileError, RacksmithError
    from ..play.backends import check_address_form, check_jobs

    backend = backend.lower()
    if address is not None and backend != "ray":
        raise typer.BadParameter("only with --backend ray (the Ray cluster to join)", param_hint="--address")
    if address is not None:
        try:
            check_address_form(address)  # (a port out of range: bad usage, said at once)
        except RacksmithError as e:
            raise typer.BadParameter(str(e), param_hint="--address") from None
    try:
        if jobs is not None:
            check_jobs(jobs, backend, address=address)
    except RacksmithError as e:
        raise typer.BadParameter(str(e), param_hint="--jobs") from None
    rs = get_ruleset(ruleset)
    start_bytes = None
    start_prov = None
    if start is not None:
        from ..lexicon import load_leaves

        # a shipped set's name is the shipped set whatever the folder holds (a file of that name: ./english)
        start_bytes = load_leaves(start, rs).tobytes()
        start_prov = _start_provenance(start, start_bytes, rs)
    settings = TrainSettings(rs, lexicon, counts[0] if len(counts) == 1 else counts,
                             generations, seed, hashlib.sha256(start_bytes).hexdigest() if start_bytes else None,
                             prior_weight, probes)
    # the command that makes these leaves, rebuilt from what was parsed (what a user would type)
    words = ["racksmith", "leaves", "train", "--ruleset", ruleset, "--games", ",".join(map(str, counts)), "--generations",
             str(generations), "--seed", str(seed), "--prior-weight", f"{prior_weight:g}", "-o", output.name]
    if lexicon is not None:
        words[5:5] = ["--lexicon", lexicon]
    if probes:
        words[-2:-2] = ["--probes", str(probes)]
    if start is not None:
        words += ["--from", _start_word(start)]
    command = " ".join(shlex.quote(w) for w in words)
    from ..lexicon.files import file_identity
    from ..training.train import provenance_path

    before = [file_identity(output), file_identity(provenance_path(output))]  # (what the run writes is another)
    try:
        with games_progress() as update:
            result = train_leaves(output, settings, start_leaves=start_bytes, jobs=jobs, backend=backend,
                                  address=address, checkpoint=checkpoint, progress=update, command=command,
                                  start_provenance=start_prov)
    except KeyboardInterrupt:  # (exit 130, or 128 + the signal: cli/main.py)
        from .common import note

        note("racksmith: " + _interrupted_training(output, settings, checkpoint, before))
        raise
    except OutputFileError as e:  # (a full disk: what was saved, and that the same command resumes it)
        fail(_unwritten_training(output, settings, e))
    except OSError as e:
        _state_unwritable(output, e)
        raise
    tallied, prior = result.provenance.get("tallied_leaves"), result.provenance.get("prior_leaves")
    counts = f" ({tallied:,} seen in training, {prior:,} at their prior)" if isinstance(tallied, int) else ""
    say_summary(f"{output}: {len(result.leaves):,} leaves{counts} from {settings.total_games:,} games "
        f"({plural(settings.generations, 'generation')}), {result.seconds:.0f} s")
