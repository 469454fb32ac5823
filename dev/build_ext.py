"""Build Cython modules in place for development: ``python dev/build_ext.py movegen._movegen``
(a dotted name under ``racksmith``; ``all`` builds every ``.pyx``, recompiling only what changed).

Uses the same compiler directives and flags as setup.py (which ``pip install .`` runs), but only for
the named module(s) and the kernels that cimport their ``.pxd`` (``_gameloop``, ``_endgame`` and
``_sim`` cimport ``movegen/_movegen.pxd``: left with its old struct layouts they would load and
play wrong games). After a change to a ``.pxd`` that every kernel cimports (``rules/_tiles.pxd``,
``lexicon/_kwg.pxd``, ``_hash.pxd``) build ``all``; a kernel left with other tile bits refuses to
load (ImportError), and ``all`` is the safe answer whenever in doubt. CONTRIBUTING.md says more.
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
    names = _with_dependents(names)
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


def _with_dependents(names):
    """``names`` and the modules whose ``.pyx`` cimports the ``.pxd`` of one of them, in order."""
    import os

    from Cython.Build.Dependencies import create_dependency_tree

    src = ROOT / "src" / "racksmith"
    pxds = {str((src / n.replace(".", "/")).with_suffix(".pxd").relative_to(ROOT)) for n in names}
    pxds = {p for p in pxds if (ROOT / p).is_file()}
    if not pxds:
        return names
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        tree = create_dependency_tree(None, quiet=True)
        out = list(names)
        for pyx in sorted(src.rglob("*.pyx")):
            name = ".".join(pyx.relative_to(src).with_suffix("").parts)
            if name not in out and pxds & set(tree.all_dependencies(str(pyx.relative_to(ROOT)))):
                out.append(name)
    finally:
        os.chdir(here)
    if out != list(names):
        print(f"also building {', '.join(out[len(names):])}: they cimport {', '.join(sorted(pxds))}")
    return out


if __name__ == "__main__":
    main(sys.argv[1:] or sys.exit("usage: build_ext.py MODULE [MODULE...]"))
