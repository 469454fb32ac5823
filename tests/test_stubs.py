"""The type stubs of the compiled kernels (``*.pyi`` beside each ``*.pyx``) say what the compiled
modules hold: every kernel has one, and each stub names exactly the module's public names, with
the parameters (names, kinds, defaults) of every function, method and constructor, the read-only
fields as properties and the writable ones as attributes, and ``@final`` on the classes that
cannot be subclassed. A type checker reads only the stub, so a stub that drifts from its module
(a parameter added to a kernel and not to its stub) makes a checker refuse correct calls.

The checks read the stub's syntax and the module's ``inspect`` signatures (constructors, which
Cython types do not expose, from the ``.pyx``): fast, and without a type checker. The slow test
runs mypy's ``stubtest`` over them as well when mypy is installed."""
from __future__ import annotations

import ast
import importlib
import inspect
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import racksmith

SRC = Path(racksmith.__file__).parent
ROOT = Path(__file__).resolve().parent.parent  # the project (the package may be installed elsewhere)

#: runtime attributes that Cython adds to every module and class: no stub declares them
CYTHON_PLUMBING = {"__test__", "__pyx_capi__", "__pyx_vtable__", "__reduce_cython__", "__setstate_cython__"}
#: dunders that change what a checker accepts (len(), copy(), iteration...): a stub must declare those the class has
PROTOCOL_DUNDERS = {
    "__len__", "__iter__", "__next__", "__getitem__", "__setitem__", "__contains__", "__call__", "__bool__",
    "__enter__", "__exit__", "__copy__", "__deepcopy__", "__add__", "__eq__", "__lt__", "__hash__",
}


def _kernels() -> list[str]:
    """Module names of every compiled kernel (each ``.pyx`` of the package)."""
    return sorted(
        ".".join(p.relative_to(SRC.parent).with_suffix("").parts) for p in SRC.rglob("*.pyx")
    )


def _file_of(module: str, suffix: str) -> Path:
    return SRC.parent.joinpath(*module.split(".")).with_suffix(suffix)


# --- the stub's side ---------------------------------------------------------------------------
@dataclass
class StubClass:
    node: ast.ClassDef
    final: bool = False
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    properties: dict[str, ast.FunctionDef] = field(default_factory=dict)
    setters: set[str] = field(default_factory=set)
    attributes: set[str] = field(default_factory=set)


@dataclass
class Stub:
    names: set[str] = field(default_factory=set)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    classes: dict[str, StubClass] = field(default_factory=dict)


def _decorators(node: ast.FunctionDef | ast.ClassDef) -> set[str]:
    return {ast.unparse(d).rsplit(".", 1)[-1] for d in node.decorator_list}


def read_stub(text: str) -> Stub:
    """What a stub declares at its top level and in its classes."""
    stub = Stub()
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef):
            stub.names.add(node.name)
            stub.functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            stub.names.add(node.name)
            cls = stub.classes[node.name] = StubClass(node, final="final" in _decorators(node))
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef):
                    decs = _decorators(sub)
                    if "property" in decs:
                        cls.properties[sub.name] = sub
                    elif "setter" in decs:
                        cls.setters.add(sub.name)
                    else:
                        cls.functions[sub.name] = sub
                elif isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Name):
                    cls.attributes.add(sub.target.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            stub.names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            stub.names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):  # a re-export is written "import X as X"
            stub.names.update(a.asname for a in node.names if a.asname is not None and a.asname == a.name)
    return stub


Param = tuple[str, str, "str | None"]  # name, kind, default (repr of its value; "..." when not known)


def _stub_params(fn: ast.FunctionDef, drop_first: bool) -> list[Param]:
    a = fn.args
    out: list[Param] = []
    positional = a.posonlyargs + a.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for p, d in zip(positional, defaults):
        out.append((p.arg, "positional", None if d is None else _default(d)))
    if a.vararg:
        out.append((a.vararg.arg, "*args", None))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, "keyword", None if d is None else _default(d)))
    if a.kwarg:
        out.append((a.kwarg.arg, "**kwargs", None))
    return out[1:] if drop_first else out


def _default(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return "..."
    try:
        return repr(ast.literal_eval(node))
    except ValueError:
        return "..."  # "...", or an expression: only its presence is compared


_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "positional",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
    inspect.Parameter.VAR_POSITIONAL: "*args",
    inspect.Parameter.KEYWORD_ONLY: "keyword",
    inspect.Parameter.VAR_KEYWORD: "**kwargs",
}


def _runtime_params(obj: object, drop_first: bool) -> list[Param] | None:
    try:
        sig = inspect.signature(obj)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    out = [(p.name, _KINDS[p.kind], None if p.default is p.empty else repr(p.default)) for p in sig.parameters.values()]
    return out[1:] if drop_first and out and out[0][0] in ("self", "cls") else out


def _compare(where: str, stub: list[Param], runtime: list[Param]) -> list[str]:
    if [(n, k) for n, k, _ in stub] != [(n, k) for n, k, _ in runtime]:
        return [f"{where}: the stub's parameters {[(n, k) for n, k, _ in stub]} are not the module's "
                f"{[(n, k) for n, k, _ in runtime]}"]
    problems = []
    for (name, _, sd), (_, _, rd) in zip(stub, runtime):
        if (sd is None) != (rd is None):
            problems.append(f"{where}: parameter {name} has {'a' if rd is not None else 'no'} default in the "
                            f"module, {'a' if sd is not None else 'no'} default in the stub")
        elif sd is not None and sd != "..." and rd is not None and sd != rd:
            problems.append(f"{where}: parameter {name} defaults to {rd} in the module, {sd} in the stub")
    return problems


# --- the .pyx side: what Cython does not expose to inspect -------------------------------------
@dataclass
class PyxClass:
    constructor: list[Param] | None = None  # the parameters of __cinit__ (or __init__), None: neither
    public: set[str] = field(default_factory=set)  # ``cdef public`` fields: writable from Python


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes."""
    parts, depth, cur, quote = [], 0, "", ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def _pyx_params(text: str) -> list[Param]:
    """The parameters of a Cython ``def`` (``int top=0``, ``Rules rules not None``, ``*``)."""
    out: list[Param] = []
    kind = "positional"
    for part in _split_top(text):
        if part == "*":
            kind = "keyword"
            continue
        if part.startswith("**"):
            out.append((part[2:].strip(), "**kwargs", None))
            continue
        if part.startswith("*"):
            out.append((part[1:].strip(), "*args", None))
            kind = "keyword"
            continue
        decl, eq, default = part.partition("=")
        decl = re.sub(r"\s+(not|or)\s+None\s*$", "", decl.strip())
        name = re.findall(r"[A-Za-z_]\w*", decl)[-1]
        value = None
        if eq:
            try:
                value = repr(ast.literal_eval(default.strip()))
            except (ValueError, SyntaxError):
                value = "..."  # a constant of the module: its presence is compared
        out.append((name, kind, value))
    return out[1:] if out and out[0][0] == "self" else out


def read_pyx(module: str) -> dict[str, PyxClass]:
    """The extension types of a kernel's ``.pyx`` and ``.pxd`` (and the ``.pxi`` files it includes)."""
    texts = []
    for suffix in (".pxd", ".pyx"):
        path = _file_of(module, suffix)
        if path.is_file():
            texts.append(path.read_text(encoding="utf-8"))
            for inc in re.findall(r'^include\s+"([^"]+)"', texts[-1], re.M):
                texts.append((path.parent / inc).read_text(encoding="utf-8"))
    classes: dict[str, PyxClass] = {}
    for text in texts:
        current: PyxClass | None = None
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = re.match(r"cdef class (\w+)", line)
            if m:
                current = classes.setdefault(m.group(1), PyxClass())
                continue
            if line and not line[0].isspace() and not line.startswith(("#", "@")):
                current = None  # the class body is over
            if current is None:
                continue
            m = re.match(r"\s+cdef public\s+\w+\s+([\w\s,]+)", line)
            if m:
                current.public.update(n.strip() for n in m.group(1).split(",") if n.strip())
            m = re.match(r"\s+def (__cinit__|__init__)\((.*)", line)
            if m and (current.constructor is None or m.group(1) == "__cinit__"):
                body = m.group(2)
                j = i
                while not re.search(r"\)\s*:\s*(#.*)?$", body):
                    j += 1
                    body += " " + lines[j].strip()
                current.constructor = _pyx_params(re.sub(r"\)\s*:\s*(#.*)?$", "", body))
    return classes


# --- comparing ----------------------------------------------------------------------------------
def _public(name: str) -> bool:
    return not name.startswith("_")


def _subclassable(cls: type) -> bool:
    try:
        type("Sub", (cls,), {})
    except TypeError:
        return False
    return True


def stub_problems(module: str, stub_text: str) -> list[str]:
    """How the stub ``stub_text`` of the compiled ``module`` disagrees with it ([] when it does not)."""
    mod = importlib.import_module(module)
    stub = read_stub(stub_text)
    pyx = read_pyx(module)
    problems = []
    runtime_names = {n for n, v in vars(mod).items() if not inspect.ismodule(v) and n not in CYTHON_PLUMBING
                     and not (n.startswith("__") and n.endswith("__"))}
    for n in sorted({n for n in runtime_names if _public(n)} - stub.names):
        problems.append(f"{module}.{n} is not in the stub")
    for n in sorted(stub.names - runtime_names):
        problems.append(f"{module}.{n} is in the stub, not in the module")
    for name, fn in sorted(stub.functions.items()):
        if hasattr(mod, name):
            runtime = _runtime_params(getattr(mod, name), drop_first=False)
            if runtime is not None:
                problems += _compare(f"{module}.{name}", _stub_params(fn, drop_first=False), runtime)
    for name, sc in sorted(stub.classes.items()):
        cls = getattr(mod, name, None)
        if not isinstance(cls, type):
            continue
        where = f"{module}.{name}"
        if sc.final == _subclassable(cls):
            problems.append(f"{where} {'can' if sc.final else 'cannot'} be subclassed: "
                            f"{'drop' if sc.final else 'add'} @final in the stub")
        members = {n for n in vars(cls) if n not in CYTHON_PLUMBING}
        declared = set(sc.functions) | set(sc.properties) | sc.attributes
        for n in sorted({n for n in members if _public(n) or n in PROTOCOL_DUNDERS} - declared):
            problems.append(f"{where}.{n} is not in the stub")
        for n in sorted(declared - members - {"__new__", "__init__"}):
            problems.append(f"{where}.{n} is in the stub, not in the module")
        info = pyx.get(name, PyxClass())
        for n in sorted(declared & members - {"__new__", "__init__"}):  # (constructors: from the .pyx, below)
            static = inspect.getattr_static(cls, n)
            is_field = type(static).__name__ in ("getset_descriptor", "member_descriptor") or isinstance(static, property)
            if n in sc.functions and not is_field:
                runtime = _runtime_params(getattr(cls, n), drop_first=True)
                if runtime is not None:
                    problems += _compare(f"{where}.{n}", _stub_params(sc.functions[n], drop_first=True), runtime)
            elif n in sc.functions:
                problems.append(f"{where}.{n} is a field in the module, a method in the stub")
            elif not is_field:
                problems.append(f"{where}.{n} is a method in the module, a field in the stub")
            elif n in info.public and n in sc.properties and n not in sc.setters:
                problems.append(f"{where}.{n} is writable (cdef public): an attribute in the stub, not a property")
            elif n not in info.public and n in sc.attributes:
                problems.append(f"{where}.{n} is read-only: a property in the stub, not an attribute")
        made = sc.functions.get("__new__") or sc.functions.get("__init__")
        if info.constructor is not None:
            if made is None:
                problems.append(f"{where}: the stub does not say how to make one (__new__ or __init__)")
            else:
                problems += _compare(f"{where}()", _stub_params(made, drop_first=True), info.constructor)
    return problems


@pytest.mark.parametrize("module", _kernels())
def test_every_kernel_has_a_stub_that_matches_it(module):
    path = _file_of(module, ".pyi")
    assert path.is_file(), f"{module} has no stub: write {path.relative_to(SRC.parent)}"
    assert stub_problems(module, path.read_text(encoding="utf-8")) == []


def test_every_stub_is_of_a_kernel_or_a_module():
    for path in SRC.rglob("*.pyi"):
        assert path.with_suffix(".pyx").is_file() or path.with_suffix(".py").is_file(), path


def test_the_comparison_sees_drift():
    """The check itself: a stub missing a parameter, a name, @final or a field is caught."""
    module = "racksmith.play._gameloop"
    text = _file_of(module, ".pyi").read_text(encoding="utf-8")
    assert stub_problems(module, text) == []
    assert any("play_games" in p for p in stub_problems(module, text.replace("    probes: int = 0,\n", "")))
    assert any("MAX_TURNS" in p for p in stub_problems(module, text.replace("MAX_TURNS: int\n", "")))
    module = "racksmith.movegen._movegen"
    text = _file_of(module, ".pyi").read_text(encoding="utf-8")
    assert any("@final" in p for p in stub_problems(module, text.replace("@final\nclass Rules", "class Rules")))
    assert any("Rules.wordmap" in p for p in stub_problems(
        module, text.replace("    def wordmap(self) -> WordMap | None: ...\n", "    def _gone(self) -> None: ...\n")))
    assert any("Rules()" in p for p in stub_problems(
        module, text.replace("        wordmap: WordMap | bool | None = True,\n", "", 1)))
    assert any("plan" in p for p in stub_problems(
        module, text.replace("    plan: MovePlan | None\n", "    @property\n    def plan(self) -> MovePlan | None: ...\n")))


def test_the_stubs_ship_with_the_package():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_data = meta["tool"]["setuptools"]["package-data"]
    assert "*.pyi" in package_data["*"] and "py.typed" in package_data["racksmith"]
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    assert re.search(r"^recursive-include src/racksmith .*\*\.pyi", manifest, re.M)


def _have_mypy() -> bool:
    try:
        importlib.import_module("mypy.stubtest")
    except ImportError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not _have_mypy(), reason="mypy is not installed")
def test_mypy_stubtest_agrees(tmp_path):
    allow = tmp_path / "allowlist.txt"
    allow.write_text("".join(f".*\\.{re.escape(n)}\n" for n in sorted(CYTHON_PLUMBING)), encoding="utf-8")
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    env = dict(os.environ)
    if "site-packages" not in SRC.parts:  # as tests/test_api.py: an installed racksmith is found as such
        env["MYPYPATH"] = str(SRC.parent)
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--allowlist", str(allow), "--ignore-unused-allowlist",
         "--mypy-config-file", str(config), *_kernels()],
        capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout + run.stderr
