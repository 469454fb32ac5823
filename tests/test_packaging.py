"""The sdist's file list, as setuptools builds it from MANIFEST.in, holds every file the package,
its tests and its docs need (a wheel built from the sdist lacked the web page: MANIFEST.in's
``*.html`` exclusion took index.html out, and ``/`` answered 404); and the metadata names the
licences of what it ships."""
from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _project_files() -> list[str]:
    """The files of the project: git's when this is a clone, else every file (an unpacked sdist)."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]


def _manifest(files: list[str]) -> set[str]:
    """What MANIFEST.in selects from ``files``, by setuptools' own reading of its lines."""
    filelist = pytest.importorskip("setuptools._distutils.filelist")
    fl = filelist.FileList()
    fl.allfiles = list(files)
    for line in (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            fl.process_template_line(line)
    return set(fl.files)


def test_the_sdist_holds_every_file_the_package_its_tests_and_docs_need():
    files = _project_files()
    if not (ROOT / ".git").exists() and not (ROOT / "MANIFEST.in").exists():
        pytest.fail("neither a clone nor an unpacked sdist")
    chosen = _manifest(files)
    package_data = [f for f in files if f.startswith("src/racksmith/") and not f.endswith((".py", ".c", ".cpp"))]
    needed = package_data + [f for f in files if f.startswith(("tests/", "docs/", "benchmarks/", "fuzz/"))]
    needed += ["mkdocs.yml", ".ci/run", "setup_directives.py", "README.md", "LICENSE"]  # (setuptools adds setup.py)
    missing = sorted(f for f in needed if f in files and f not in chosen)
    assert missing == []
    assert "src/racksmith/web/static/index.html" in chosen
    # nothing generated or compiled goes in
    assert not [f for f in chosen if f.endswith((".c", ".so", ".pyc")) and f.startswith("src/")]


def test_the_metadata_names_every_licence_of_what_the_wheel_ships():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert meta["license"] == "MIT AND CC-BY-SA-3.0"
    for path in meta["license-files"]:
        assert (ROOT / path).is_file(), path
    notice = (ROOT / "LICENSE").read_text(encoding="utf-8")
    for named in ("src/racksmith/lexicon/data/WORDLISTS.md",):
        assert named in notice and (ROOT / named).is_file()
    assert "OpenCorpora" in (ROOT / "src/racksmith/lexicon/data/WORDLISTS.md").read_text(encoding="utf-8")


def test_the_declared_click_has_what_the_cli_catches():
    """click 8.1 lacks NoArgsIsHelpError, which the CLI catches: with it every usage error was a
    traceback. The lower bound is the first click that has it."""
    import click

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    spec = next(d for d in meta["dependencies"] if d.startswith("click"))
    assert spec.startswith("click>=8.2") and hasattr(click.exceptions, "NoArgsIsHelpError")


def test_the_version_is_written_once_and_the_metadata_reads_it_from_the_package():
    """pyproject.toml and ``racksmith.__version__`` said 0.1.0 each: a release bumping one would
    publish a wheel whose metadata and ``racksmith --version`` disagree."""
    import importlib.util

    import racksmith
    from setuptools.config.expand import StaticModule

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in meta["project"]
    assert "version" in meta["project"]["dynamic"]
    attr = meta["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    module, _, name = attr.rpartition(".")
    assert (module, name) == ("racksmith", "__version__")
    # setuptools reads the attribute without importing the package (no compiled kernels needed)
    spec = importlib.util.spec_from_file_location(module, ROOT / "src" / "racksmith" / "__init__.py")
    static = StaticModule(module, spec)
    assert getattr(static, name) == racksmith.__version__
