"""The sources, tests, benchmarks and tools pass ``ruff check`` (its configuration in
pyproject.toml: pyflakes' checks — unused imports and variables, undefined names, names
redefined — and syntax errors)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
