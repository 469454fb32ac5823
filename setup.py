"""Build the compiled kernels: every ``src/racksmith/*.pyx`` becomes an extension module.

The generated C is never committed; ``pip install .`` runs Cython here.
"""
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

import sys
sys.path.insert(0, str(Path(__file__).parent))
from setup_directives import DIRECTIVES  # noqa: E402

HERE = Path(__file__).parent
extensions = [
    Extension(
        f"racksmith.{pyx.stem}",
        [str(pyx.relative_to(HERE))],
        extra_compile_args=["-O3"],
    )
    for pyx in sorted((HERE / "src" / "racksmith").glob("*.pyx"))
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives=DIRECTIVES,
    )
)
