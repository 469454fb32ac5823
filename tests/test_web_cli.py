"""``racksmith serve``: the URL on stderr, a working server, a clean stop on Ctrl-C, one-line errors."""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request

from conftest import FIXTURES
from racksmith.cli.main import main


def test_serve_prints_the_url_serves_and_stops_on_ctrl_c():
    # SIGINT back to Python's handler in the server even when the test runner ignores it (a
    # background job does), or Ctrl-C would never reach it
    entry = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
             "sys.argv[0] = 'racksmith'; from racksmith.cli.main import run; run()")
    proc = subprocess.Popen(
        [sys.executable, "-c", entry, "serve", "--port", "0", "--leaves", str(FIXTURES / "SYNTH.klv2")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "200"},
    )
    try:
        line = proc.stderr.readline()
        m = re.search(r"(http://127\.0\.0\.1:(\d+)/)", line)
        assert m and int(m.group(2)) > 0, line
        assert "ruleset english" in line and "leaves SYNTH.klv2" in line
        with urllib.request.urlopen(m.group(1) + "api/rulesets", timeout=60) as res:
            assert json.loads(res.read())["leaves"] == "SYNTH.klv2"
        with urllib.request.urlopen(m.group(1), timeout=60) as res:
            assert b'id="board"' in res.read()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0  # a clean stop (its requests answered first): tests/test_serve_service.py
    assert out == "" and err.splitlines()[0] == "stopped" and "Traceback" not in err


def test_serve_errors_are_one_line(capsys, tmp_path):
    assert main(["serve", "--port", "0", "--leaves", str(tmp_path / "none.klv2")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("racksmith: ") and "none.klv2" in err and err.count("\n") == 1
    assert main(["serve", "--port", "0", "--ruleset", "chess"]) == 1
    assert "unknown ruleset 'chess'" in capsys.readouterr().err
    assert main(["serve", "--port", "70000"]) == 2
    assert "usage error" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"racksmith: cannot listen on 127.0.0.1:{port}: ") and err.count("\n") == 1


def test_serve_passes_every_limit_option(capsys, monkeypatch):
    """Each Limits field is a --max-* option (max_cgp_chars and max_move_chars among them)."""
    import racksmith.web as web
    from racksmith.web import Limits

    seen = {}

    class Stop(Exception):
        pass

    def fake(analyzer, host, port, **kw):
        seen["limits"], seen["host"] = analyzer.limits, host
        raise Stop

    monkeypatch.setattr(web, "make_server", fake)
    try:
        main(["serve", "--port", "0", "--host", "[::1]", "--max-cgp-chars", "999", "--max-move-chars", "77"])
    except Stop:
        pass
    assert seen["limits"].max_cgp_chars == 999 and seen["limits"].max_move_chars == 77
    assert seen["host"] == "[::1]"  # brackets read by the server (make_server)
    capsys.readouterr()
    assert main(["serve", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    for name in Limits().to_dict():
        assert "--" + name.replace("_", "-") in help_text, name


def test_the_server_process_gives_freed_large_blocks_back_to_the_system():
    """racksmith serve idled at 259-290 MB after 120 endgame requests (benchmarks/serve_memory.py): each request's thread kept the
    search's freed tables in its malloc arena. The server sets glibc's mmap threshold (as
    MALLOC_MMAP_THRESHOLD_ would), in its own process only, and leaves a user's setting alone."""
    import platform

    code = ("import ctypes, os; from racksmith.cli.web_cmds import return_freed_memory as r; "
            "print(r(), r(1 << 21))")
    run = lambda env: subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,  # noqa: E731
                                     env={**os.environ, **env}, timeout=60)
    if platform.libc_ver()[0] == "glibc":
        assert run({}).stdout.split() == ["True", "True"]
    assert run({"MALLOC_MMAP_THRESHOLD_": "65536"}).stdout.split() == ["False", "False"]
