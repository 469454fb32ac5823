"""The resident memory of ``racksmith serve`` before and after a series of endgame requests (each
request runs on a thread of its own; the endgame search allocates tables per thread).

    python benchmarks/serve_memory.py [REQUESTS] [--env NAME=VALUE ...]

Starts the server on a free port, sends REQUESTS (default 120) ``POST /api/endgame`` requests one
after the other (the positions of tests/fixtures/endgames_magpie.jsonl in turn, 0.1 s each), and
prints the server's VmRSS and VmHWM before and after, in MB. ``--env`` adds variables to the
server's environment (e.g. ``MALLOC_MMAP_THRESHOLD_=1048576``)."""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def status(pid: int) -> dict[str, float]:
    text = Path(f"/proc/{pid}/status").read_text()
    return {k: int(re.search(rf"^{k}:\s+(\d+)", text, re.M).group(1)) / 1024 for k in ("VmRSS", "VmHWM")}


def post(port: int, path: str, body: dict) -> int:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    c.close()
    return r.status


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("requests", nargs="?", type=int, default=120)
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the server's environment")
    args = ap.parse_args()
    cgps = [json.loads(line)["cgp"] for line in (ROOT / "tests" / "fixtures" / "endgames_magpie.jsonl").read_text().splitlines()]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, **dict(e.split("=", 1) for e in args.env)}
    server = subprocess.Popen([sys.executable, "-m", "racksmith", "serve", "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        server.stderr.readline()  # the URL line: listening
        post(port, "/api/position", {"cgp": cgps[0]})  # the lexicon loaded before the first figure
        before = status(server.pid)
        for i in range(args.requests):
            assert post(port, "/api/endgame", {"cgp": cgps[i % len(cgps)], "seconds": 0.1}) == 200
        time.sleep(0.5)
        after = status(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    print(f"requests {args.requests}  env {' '.join(args.env) or '-'}")
    print(f"before: VmRSS {before['VmRSS']:.0f} MB, VmHWM {before['VmHWM']:.0f} MB")
    print(f"after:  VmRSS {after['VmRSS']:.0f} MB, VmHWM {after['VmHWM']:.0f} MB")


if __name__ == "__main__":
    main()
