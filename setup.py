"""Build the compiled kernels: every ``src/racksmith/*.pyx`` becomes an extension module.

The generated C is never committed; ``pip install .`` runs Cython here.
"""
import sys
from pathlib import Path

if sys.platform == "win32":  # the kernels use POSIX threads, clock_gettime and GCC/Clang atomics
    raise SystemExit("racksmith builds on Linux and macOS (its kernels use POSIX threads and GCC/Clang "
                     "builtins); on Windows, use WSL")

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, str(Path(__file__).parent))
from setup_directives import DIRECTIVES  # noqa: E402

HERE = Path(__file__).parent
SRC = HERE / "src"
extensions = [
    Extension(
        ".".join(pyx.relative_to(SRC).with_suffix("").parts),
        [str(pyx.relative_to(HERE))],
        extra_compile_args=["-O3", "-g0"],  # no debug info: 12 MB of the wheel, and build paths in it
    )
    for pyx in sorted((SRC / "racksmith").rglob("*.pyx"))
]



class BuildKernels(build_ext):
    """``build_ext`` whose failure to run the C compiler says what to install, after the
    compiler's own output (setuptools alone ends with the command line that failed)."""

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:  # CompileError, DistutilsExecError, OSError: no compiler, or it failed
            raise SystemExit(
                f"racksmith: could not compile its kernels ({ext.name}): {e}\n"
                "racksmith needs a C compiler (GCC or Clang) and Python's headers: on Debian or Ubuntu "
                "'apt-get install gcc python3-dev', on Fedora 'dnf install gcc python3-devel', on macOS "
                "'xcode-select --install'; the compiler is the one CC names, if it is set") from e


setup(
    cmdclass={"build_ext": BuildKernels},
    ext_modules=cythonize(
        extensions,
        compiler_directives=DIRECTIVES,
        include_path=[str(SRC)],
    )
)
