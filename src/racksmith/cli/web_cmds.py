"""``racksmith serve``: the local web analyzer (a page and a JSON API on this machine)."""
from __future__ import annotations

import ipaddress
import os
import signal
import socket
import sys
import threading
import webbrowser
from typing import Any, Callable, List, Optional

import typer

from .common import err_console, fail, finite

from ..web.limits import Limits

LIMITS = Limits()  #: the defaults shown by --help
RULESET_HELP = ("Default ruleset: a name or alias (english, russian, erudit, super) or a .toml/.json ruleset file (one "
                "a server: run a server for each of two ruleset files).")


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
        help="Lexicon for the default ruleset and the shipped ones spelled alike (a ruleset file's: for it alone): an "
        "embedded name, a word list or a .kwg file "
        "[default: each ruleset's].",
    ),
    leaves: Optional[str] = typer.Option(
        None, "--leaves",
        help="Leave values (.klv2, .klv or leave,value CSV, or a shipped set: english, super, russian, erudit) for "
        "equity and game analysis, for the default ruleset and the shipped ones spelled alike (a ruleset file's: for it "
        "alone), or 'none' "
        "[default, or 'shipped': each ruleset's own shipped leaves].",
    ),
    winpct: Optional[str] = typer.Option(
        None, "--winpct",
        help="Win% table of the default ruleset's simulations (the Simulate and Best play tabs, /api/sim and "
        "/api/best): a shipped ruleset's name or a file, in MAGPIE's winpct format ('racksmith winpct train' writes "
        "one) or Macondo's winpct.csv. The other rulesets use their own [default: the ruleset's own; a ruleset "
        "file with none uses the shipped one nearest its tile count, and a note says so].",
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
    access_log: bool = typer.Option(
        False, "--access-log",
        help="Log every request on stderr: time, client, method, path, status, bytes, milliseconds (refused "
        "requests are logged without it, at most one line per kind every 10 s).",
    ),
) -> None:
    """Start the local web analyzer: a board to edit, every move ranked with its score breakdown,
    moves checked as you type them, and GCG games stepped through turn by turn with their analysis.

    The URL is printed on stderr; Ctrl-C (or SIGTERM) stops the server: the requests in flight
    are answered first (for up to 10 s; a simulation or a search is cancelled, answered 503), and
    it exits 0. Requests name rulesets and lexicons, never files; what one request may cost is
    bounded by the --max-* options."""
    from ..errors import RacksmithError
    from ..web import Analyzer, Limits, make_server
    from ..web.server import _host_name, load_everything

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
    analyzer = Analyzer(ruleset, lexicon, leaves, limits=limits, winpct=winpct)
    # every compiled kernel now, not at the first simulation: a server running while racksmith is
    # upgraded would load the new ones into the old process (a 500 for each such request)
    load_everything()
    try:
        server = make_server(analyzer, host, port, allowed_hosts=allow_host or (), access_log=access_log)
    except OSError as e:
        fail(f"cannot listen on {host}:{port}: {e.strerror or e}")
    say = lambda line: err_console.print(line, highlight=False, markup=False, soft_wrap=True)  # noqa: E731
    signals: list[int] = []
    serving: list[bool] = []

    def on_signal(signum: int, frame: Any) -> None:
        """The first stops the server (its requests in flight answered); a second cuts them. One
        that comes before the server serves is only noted here (the code it interrupted may hold
        a lock the stop takes) and acted on before serving."""
        signals.append(signum)
        if not serving:
            return
        if len(signals) == 1:
            server.stop()
        else:
            server.cut()

    # the stop signals are taken before the URL is printed: a script that waits for that line and
    # then stops the server gets the clean stop ('stopped', exit 0), however soon it signals
    previous = _take_stop_signals(on_signal)
    try:
        url = server.url
        what = [f"ruleset {analyzer.default.name}"]
        if analyzer.lexicon_label:
            what.append(f"lexicon {analyzer.lexicon_label}")
        if analyzer.leaves_label:
            what.append(f"leaves {analyzer.leaves_label}")
        if analyzer.winpct_label:
            what.append(f"win% table {analyzer.winpct_label}")
        say(f"racksmith web analyzer on {url} ({', '.join(what)}); Ctrl-C stops it")
        from ..sim.winpct import borrowed_note

        borrowed = borrowed_note(analyzer.default, analyzer.winpct)  # (the answers' notes say it too)
        if borrowed is not None:
            say(f"note: {borrowed}")
        if not server.local:  # as Jupyter warns: the network may use it, and nothing asks who
            say(f"racksmith serve: warning: listening on {host.strip()} port {server.port}"
                f"{' (every address of this machine)' if server.every_address else ''}, not only this machine: anyone "
                "who can reach it may use the analyzer, with no authentication and over plain HTTP (see "
                f"docs/SECURITY.md); {_network_addresses(server)}")
        if open_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        serving.append(True)
        if signals:  # (a stop signal came while the banner was written)
            server.stop()
            if len(signals) > 1:
                server.cut()
        server.serve_forever(poll_interval=0.2)
        drained = server.drain()
    except KeyboardInterrupt:  # (a Ctrl-C this command could not handle itself: not in the main thread)
        say("stopped")
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        server.server_close()
    say(_stopped(drained, len(signals) > 1))


def _stopped(drained: Any, second_signal: bool) -> str:
    """The last line: ``stopped``, and what became of the requests in flight, if there were any."""
    from ..web.server import GRACE

    parts = [f"{drained.answered} answered"] if drained.answered else []
    if drained.cancelled:
        parts.append(f"{drained.cancelled} cancelled (answered 503: the server is stopping)")
    if drained.cut:
        parts.append(f"{drained.cut} cut (closed unanswered "
                     f"{'after a second signal' if second_signal else f'at the end of the {GRACE:g} s grace'})")
    n = sum(drained)
    return f"stopped: {n} request{'s' if n != 1 else ''} in flight: {', '.join(parts)}" if n else "stopped"


#: the signals that stop the server, its requests in flight answered first
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name))


def _take_stop_signals(handler: Callable[[int, Any], None]) -> dict[int, Any]:
    """Handle the stop signals with ``handler`` while the server runs (in the main thread: the
    only one Python lets), where they would raise KeyboardInterrupt or end the process: at their
    default, Python's Ctrl-C, or ``racksmith``'s own (:mod:`racksmith.cli.main`). One ignored (as
    under nohup) or one a host program handles is left alone. The handlers replaced, to restore."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    main = sys.modules.get("racksmith.cli.main")
    ours = (signal.SIG_DFL, signal.default_int_handler, getattr(main, "_on_ending_signal", None))
    replaced = {}
    for signum in STOP_SIGNALS:
        current = signal.getsignal(signum)
        if current is not None and any(current is h or current == h for h in ours if h is not None):
            replaced[signum] = signal.signal(signum, handler)
    return replaced


def _network_addresses(server: Any) -> str:
    """What the network may use: the addresses that reach the server, or (listening on every
    address with no --allow-host) why its members get 403 and the names to allow."""
    urls = [u for u in server.network_urls() if not _this_machine_only(u.split("/")[2].rpartition(":")[0])]
    if urls:
        return (f"members use {', '.join(urls)} (any other name or address they type gets 403 until "
                "given with --allow-host NAME)")
    family = socket.AF_INET6 if ":" in server.server_address[0] else socket.AF_INET
    names = this_machine(family)
    allow = " ".join(f"--allow-host {n}" for n in names[:3])
    return ("members get 403 until the name or address they type is given with --allow-host NAME"
            + (f": this machine is {', '.join(names)} (e.g. {allow}, then http://{_url_name(names[0])}:{server.port}/)"
               if names else ""))


def _this_machine_only(name: str) -> bool:
    """Is ``name`` (as a URL spells it) one that reaches this machine only from itself (``localhost``,
    ``127.0.0.1``, ``[::1]``): on another machine it is that machine?"""
    name = name.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name.partition("%")[0]).is_loopback
    except ValueError:
        return False


def _url_name(name: str) -> str:
    return f"[{name}]" if ":" in name else name


def this_machine(family: int = socket.AF_INET, timeout: float = 1.0) -> list[str]:
    """This machine's name and its network addresses (not loopback), as far as it knows them
    without asking the network: its host name, the addresses the name resolves to here, and the
    address it would send from (a UDP socket connected to a documentation address: nothing is
    sent). ``AF_INET6`` (listening on ``::``) takes both families. Looked up in a thread for at
    most ``timeout`` seconds (a name resolver that does not answer is not waited for)."""
    found: list[str] = []

    def look() -> None:
        name = socket.gethostname()
        found.append(name)
        try:
            found.extend(str(info[4][0]) for info in socket.getaddrinfo(name, None, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError):
            pass
        for fam, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
            try:
                with socket.socket(fam, socket.SOCK_DGRAM) as s:
                    s.connect((probe, 9))
                    found.append(str(s.getsockname()[0]))
            except OSError:
                pass

    looker = threading.Thread(target=look, name="racksmith-hostname", daemon=True)
    looker.start()
    looker.join(timeout)
    out: list[str] = []
    for text in list(found):
        try:
            address = ipaddress.ip_address(text.partition("%")[0])
        except ValueError:  # the host name
            if text and text.lower() not in ("localhost", "localhost.localdomain"):
                out.append(text)
            continue
        if address.is_loopback or address.is_unspecified or address.is_link_local:
            continue
        if address.version == 6 and family != socket.AF_INET6:
            continue
        out.append(str(address))
    return list(dict.fromkeys(out))


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
