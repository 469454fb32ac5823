"""A Griffe extension for the API reference: the Sphinx roles of racksmith's docstrings as Markdown.

The docstrings cross-reference with Sphinx roles (``:class:`~racksmith.lexicon.Leaves```,
``:func:``, ``:meth:``, ``:attr:``, ``:data:``, ``:mod:``...), which mkdocstrings would print as
they are. Once Griffe has loaded a package, every role in its docstrings is rewritten:

- to a Markdown cross-reference ``[Leaves][racksmith.lexicon.klv.Leaves]`` (mkdocs-autorefs makes it
  a link) when the object it names is in the API reference: one of the ``::: identifier`` blocks of
  the pages (``docs/**/*.md``), or a member such a block shows;
- else to inline code, `` `Leaves` ``.

The text shown is what Sphinx shows: the whole target as written, its last component with ``~``
(``~racksmith.lexicon.Leaves`` shows ``Leaves``), or the title of ``title <target>``. A target is
looked up as Sphinx does: absolute, else from the object whose docstring it is outward (its class,
its module, the package), through imports (an alias is followed to the object it names).

mkdocs.yml loads it (``plugins: mkdocstrings: handlers: python: options: extensions``).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import griffe

#: ``:role:`text``` with an optional domain (``:py:class:``, ``:c:func:``)
ROLE = re.compile(r":(?P<role>[a-z]+(?::[a-z]+)?):`(?P<text>[^`]+)`")
#: ``title <target>``
TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
#: ``::: identifier`` and its indented YAML options
BLOCK = re.compile(r"^::: *(?P<id>\S+)[ \t]*\n(?P<options>(?:[ \t]+\S.*\n?)*)", re.M)
#: roles that name a Python object (others, such as ``:c:func:``, are shown as code)
PY_ROLES = {"class", "func", "meth", "attr", "data", "mod", "exc", "obj", "const", "py:class", "py:func",
            "py:meth", "py:attr", "py:data", "py:mod", "py:exc", "py:obj", "py:const"}

_LOOKUP_ERRORS: tuple[type[BaseException], ...] = (KeyError, ValueError, AttributeError, griffe.AliasResolutionError,
                                                   griffe.CyclicAliasError)


def _target(obj: Any) -> Any:
    """``obj``, or what an alias names (None when that is not loaded)."""
    while obj is not None and getattr(obj, "is_alias", False):
        try:
            obj = obj.final_target
        except _LOOKUP_ERRORS:
            return None
    return obj


def _member(scope: Any, dotted: str) -> Any:
    """The object ``dotted`` names inside ``scope`` (through aliases), or None."""
    obj = scope
    for part in dotted.split("."):
        obj = _target(obj)
        if obj is None:
            return None
        try:
            obj = obj.members[part]
        except _LOOKUP_ERRORS:
            return None
    return _target(obj)


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles of the loaded package's docstrings (see the module docstring)."""

    def __init__(self, docs_dir: str | None = None) -> None:
        super().__init__()
        self.docs_dir = Path(docs_dir) if docs_dir else Path(__file__).resolve().parent
        self._done: set[str] = set()

    def on_package(self, *, pkg: Any, loader: Any, **kwargs: Any) -> None:
        """Once a package is fully loaded (the event is ``on_package_loaded`` before Griffe 1.14)."""
        self._rewrite(pkg, loader)

    # --- what the API reference shows -----------------------------------------------------------
    def _blocks(self) -> list[tuple[str, bool]]:
        """(identifier, whether its members are shown) of every ``:::`` block of the pages."""
        out = []
        for page in sorted(self.docs_dir.rglob("*.md")):
            for m in BLOCK.finditer(page.read_text(encoding="utf-8")):
                out.append((m.group("id"), not re.search(r"^\s*members:\s*(false|\[\s*\])\s*$", m.group("options"), re.M)))
        return out

    def _documented(self, loader: Any, package: str) -> set[str]:
        """The canonical paths of the objects the reference shows from ``package``: each block's
        object and, for a module or a class, its public members (a module's imports only when it
        exports them), down through classes (mkdocs.yml: ``filters: ["!^_"]``, no submodules)."""
        shown: set[str] = set()

        def walk(obj: Any) -> None:
            obj = _target(obj)
            if obj is None or obj.path in shown:
                return
            shown.add(obj.path)
            if obj.kind.value not in ("module", "class"):
                return
            for name, member in obj.members.items():
                if name.startswith("_"):
                    continue
                if member.is_alias:
                    exported = obj.kind.value == "module" and _is_exported(obj, name, member)
                    if not exported:
                        continue
                    member = _target(member)
                    if member is None:
                        continue
                if member.kind.value == "module":  # (submodules are not shown)
                    continue
                walk(member)

        for identifier, members in self._blocks():
            if identifier.split(".")[0] != package:
                continue
            try:
                obj = _target(loader.modules_collection[identifier])
            except _LOOKUP_ERRORS:
                continue
            if obj is None:
                continue
            if members:
                walk(obj)
            else:
                shown.add(obj.path)
        return shown

    # --- the rewriting ---------------------------------------------------------------------------
    def _rewrite(self, pkg: Any, loader: Any) -> None:
        if pkg.path in self._done:
            return
        self._done.add(pkg.path)
        documented = self._documented(loader, pkg.path)

        def visit(obj: Any) -> None:
            if obj.docstring is not None and ":" in obj.docstring.value:
                new = ROLE.sub(lambda m: self._replace(m, obj, loader, documented), obj.docstring.value)
                if new != obj.docstring.value:
                    obj.docstring.value = new
                    obj.docstring.__dict__.pop("parsed", None)  # (parsed on first use: not yet, but to be sure)
            for member in list(obj.members.values()):
                if not member.is_alias:
                    visit(member)

        visit(pkg)

    def _replace(self, m: re.Match[str], obj: Any, loader: Any, documented: set[str]) -> str:
        text = m.group("text")
        titled = TITLED.match(text)
        if titled:
            shown, target = " ".join(titled.group("title").split()), titled.group("target")
        else:
            target, shown = text, ""
        target = "".join(target.split())  # (a dotted path wrapped at the end of a docstring's line)
        plain = target.lstrip("~!.")
        if not shown:
            shown = plain.rsplit(".", 1)[-1] if target.startswith("~") else plain
        if m.group("role") in PY_ROLES and not target.startswith("!"):
            found = self._resolve(plain, obj, loader)
            if found is not None and found.path in documented:
                return f"[{shown}][{found.path}]"
        return f"`{shown}`"

    @staticmethod
    def _resolve(target: str, obj: Any, loader: Any) -> Any:
        """The object ``target`` names, seen from ``obj``'s docstring, or None."""
        scopes = []
        scope = obj
        while scope is not None:
            if scope.kind.value in ("module", "class"):
                scopes.append(scope)
            scope = scope.parent
        for scope in scopes:
            found = _member(scope, target)
            if found is not None:
                return found
        try:
            return _target(loader.modules_collection[target])
        except _LOOKUP_ERRORS:
            return None


if not hasattr(griffe.Extension, "on_package"):  # an older Griffe: the event's older name
    SphinxRoles.on_package_loaded = SphinxRoles.on_package  # type: ignore[attr-defined]


def _is_exported(module: Any, name: str, member: Any) -> bool:
    """Whether a module shows the import ``name``: it is in the module's ``__all__``."""
    exports = getattr(module, "exports", None)
    if exports is None:
        return False
    return name in {getattr(e, "name", e) for e in exports}
