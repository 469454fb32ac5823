"""Build Cython modules in place for development: ``python dev/build_ext.py movegen._movegen``
(a dotted name under ``racksmith``; ``all`` builds every ``.pyx``).

Uses the same compiler directives and flags as setup.py (which ``pip install .`` runs), but only for
the named module(s), so that people working on different kernels do not rebuild each other's.
After a change to a ``.pxd`` that every kernel cimports (``rules/_tiles.pxd``, ``lexicon/_kwg.pxd``,
``_hash.pxd``) build ``all``: a kernel left with the old tile bits refuses to load (ImportError).
"""
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension
from setuptools.dist import Distribution

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(names):
    if names == ["all"]:
        names = [".".join(p.relative_to(ROOT / "src" / "racksmith").with_suffix("").parts)
                 for p in sorted((ROOT / "src" / "racksmith").rglob("*.pyx"))]
    exts = [
        Extension(f"racksmith.{n}", [f"src/racksmith/{n.replace('.', '/')}.pyx"], extra_compile_args=["-O3", "-g0"])
        for n in names
    ]
    import os

    os.chdir(ROOT)
    from setup_directives import DIRECTIVES  # noqa: E402

    dist = Distribution({"ext_modules": cythonize(exts, compiler_directives=DIRECTIVES, include_path=["src"]), "package_dir": {"": "src"}})
    cmd = dist.get_command_obj("build_ext")
    cmd.inplace = True
    cmd.build_temp = f"build/tmp-{'-'.join(names)}"
    dist.run_command("build_ext")


if __name__ == "__main__":
    main(sys.argv[1:] or sys.exit("usage: build_ext.py MODULE [MODULE...]"))
