"""``racksmith serve``: the local web analyzer (a page and a JSON API on this machine)."""
from __future__ import annotations

import os
import threading
import webbrowser
from typing import List, Optional

import typer

from .common import err_console, fail, finite

from ..web.limits import Limits

LIMITS = Limits()  #: the defaults shown by --help
RULESET_HELP = "Default ruleset: a name or alias (english, russian, erudit, super) or a .toml/.json ruleset file."


def serve(
    host: str = typer.Option(
        "127.0.0.1", "--host",
        help="Address to listen on (this machine only by default; 0.0.0.0 or :: serves the network, with no "
        "authentication: see docs/SECURITY.md).",
    ),
    port: int = typer.Option(8765, "--port", "-p", min=0, max=65535, help="Port to listen on; 0 picks a free one."),
    ruleset: str = typer.Option("english", "--ruleset", "-r", help=RULESET_HELP),
    lexicon: Optional[str] = typer.Option(
        None, "--lexicon", "-l",
        help="Lexicon for the default ruleset and those spelled alike: an embedded name, a word list or a .kwg file "
        "[default: each ruleset's].",
    ),
    leaves: Optional[str] = typer.Option(
        None, "--leaves",
        help="Leave values (.klv2, .klv or leave,value CSV, or a shipped set: english, super, russian, erudit) for "
        "equity and game analysis, for the default ruleset and those spelled alike, or 'none' "
        "[default: each ruleset's shipped leaves].",
    ),
    open_browser: bool = typer.Option(False, "--open", help="Open the page in the web browser."),
    allow_host: Optional[List[str]] = typer.Option(
        None, "--allow-host", metavar="NAME",
        help="Also answer requests addressed to this name (repeatable), e.g. the machine's name when "
        "listening on 0.0.0.0 [default: localhost, 127.0.0.1, [::1] and the --host address].",
    ),
    max_moves: int = typer.Option(LIMITS.max_moves, "--max-moves", min=1, help="Most moves in one answer."),
    max_gcg_bytes: int = typer.Option(LIMITS.max_gcg_bytes, "--max-gcg-bytes", min=1, help="Largest GCG record read, in bytes."),
    max_gcg_events: int = typer.Option(LIMITS.max_gcg_events, "--max-gcg-events", min=1, help="Most event lines in a GCG record."),
    max_seconds: float = typer.Option(LIMITS.max_seconds, "--max-seconds", min=0.001, callback=finite,
                                      help="Longest analysis of one request, in seconds."),
    max_sim_iterations: int = typer.Option(LIMITS.max_sim_iterations, "--max-sim-iterations", min=1,
                                           help="Most play-outs of one simulation."),
    max_body: int = typer.Option(LIMITS.max_body, "--max-body", min=1, help="Largest request body, in bytes."),
    max_concurrent: int = typer.Option(LIMITS.max_concurrent, "--max-concurrent", min=1,
                                       help="Answers computed at once (the others wait)."),
    max_connections: int = typer.Option(LIMITS.max_connections, "--max-connections", min=1,
                                        help="Open connections at once (more get 503)."),
    max_cgp_chars: int = typer.Option(LIMITS.max_cgp_chars, "--max-cgp-chars", min=1,
                                      help="Longest CGP a request may send, in characters."),
    max_move_chars: int = typer.Option(LIMITS.max_move_chars, "--max-move-chars", min=1,
                                       help="Longest move (or tiles drawn) a request may send, in characters."),
) -> None:
    """Start the local web analyzer: a board to edit, every move ranked with its score breakdown,
    moves checked as you type them, and GCG games stepped through turn by turn with their analysis.

    The URL is printed on stderr; Ctrl-C stops the server. Requests name rulesets and lexicons,
    never files; what one request may cost is bounded by the --max-* options."""
    from ..errors import RacksmithError
    from ..web import Analyzer, Limits, make_server
    from ..web.server import _host_name

    if not host.strip() or host.strip() == "[]":  # socketserver would listen on every address, unasked
        fail("--host: give an address to listen on, e.g. 127.0.0.1 (this machine) or 0.0.0.0 (every address), "
             f"not {host!r}", 2)
    for name in allow_host or ():
        try:
            _host_name(name)
        except RacksmithError as e:
            fail(f"--allow-host: {e}", 2)
    return_freed_memory()  # before anything is loaded: as the environment variable would
    limits = Limits(max_body=max_body, max_moves=max_moves, max_gcg_bytes=max_gcg_bytes,
                    max_gcg_events=max_gcg_events, max_seconds=max_seconds, max_concurrent=max_concurrent,
                    max_connections=max_connections, max_sim_iterations=max_sim_iterations,
                    max_cgp_chars=max_cgp_chars, max_move_chars=max_move_chars)
    analyzer = Analyzer(ruleset, lexicon, leaves, limits=limits)
    try:
        server = make_server(analyzer, host, port, allowed_hosts=allow_host or ())
    except OSError as e:
        fail(f"cannot listen on {host}:{port}: {e.strerror or e}")
    url = server.url
    what = [f"ruleset {analyzer.default.name}"]
    if analyzer.lexicon_label:
        what.append(f"lexicon {analyzer.lexicon_label}")
    if analyzer.leaves_label:
        what.append(f"leaves {analyzer.leaves_label}")
    err_console.print(f"racksmith web analyzer on {url} ({', '.join(what)}); Ctrl-C stops it",
                      highlight=False, markup=False, soft_wrap=True)
    if not server.local:  # as Jupyter warns: the network may use it, and nothing asks who
        err_console.print(f"racksmith serve: warning: listening on {host.strip()} port {server.port}, not only this "
                          "machine: anyone who can reach it may use the analyzer, with no authentication and over "
                          "plain HTTP (see docs/SECURITY.md); give the names they use with --allow-host NAME",
                          highlight=False, markup=False, soft_wrap=True)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        err_console.print("stopped", highlight=False, markup=False)
        raise
    finally:
        server.server_close()


#: glibc's mallopt parameter for the size above which an allocation is its own mapping
_M_MMAP_THRESHOLD = -3


def return_freed_memory(threshold: int = 1 << 20) -> bool:
    """Make glibc give every allocation of ``threshold`` bytes or more back to the system when it is
    freed, in this process (a server that runs for days). Each request runs on its own thread, and
    a search's tables (the endgame solver's 18 MB a thread) freed on one were kept in that thread's
    malloc arena: ``racksmith serve`` idled at 259-290 MB after 120 endgame requests, 96-105 MB with this
    (glibc's own default raises the threshold to 32 MB as large blocks are freed). The same as
    running under ``MALLOC_MMAP_THRESHOLD_=1048576``, which a user's environment may set instead.
    False where the C library is not glibc (nothing is changed)."""
    import ctypes
    import ctypes.util

    if os.environ.get("MALLOC_MMAP_THRESHOLD_"):
        return False  # the user's choice stands
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, int(threshold)))


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
