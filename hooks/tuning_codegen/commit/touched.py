"""Which tables a set of changed paths touches: the one rule, for ``--hook``,
``--since`` and ``tuning-codegen FILES``.

A table is touched when a changed path is a file it reads or writes, under any of the
names that file goes by: as the registry writes it, as it resolves (symbolic links
followed), and each symbolic link on its way; or when a changed path lies above one
of those names (a folder link retargeted, ``current -> v2`` become ``current -> v3``,
or replaced by a folder), since everything behind it is read anew. A table whose
target has a formatter is touched by the formatter's configuration too
(``formatinputs``). A change of the registry touches every table.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from tuning_codegen.commit.names import Links, inside
from tuning_codegen.formatinputs import format_inputs
from tuning_codegen.paths import RealPaths
from tuning_codegen.registry import Registry
from tuning_codegen.table import Table


def tables_touched(
    registry: Registry, tables: Iterable[Table], changed: Iterable[str], *, root: str
) -> list[Table]:
    """Those of ``tables`` that ``changed`` (absolute paths) touches, in the
    repository (or folder) ``root``; all of them if the registry changed."""
    touching = _Touching(registry, changed, root)
    tables = list(tables)
    if not touching.names or touching.reads(registry.path):
        return tables if touching.names else []
    return [t for t in tables if touching.table(t)]


class _Touching:
    """The changed names, and the questions asked of them, each answer kept for the
    run (a registry names hundreds of files in a few folders; a hook run that
    touches no table asks them all)."""

    def __init__(self, registry: Registry, changed: Iterable[str], root: str) -> None:
        self.registry = registry
        self.root = root
        self.cwd = os.getcwd()
        resolve = RealPaths()
        given = {_normal(os.path.join(self.cwd, p)) for p in changed}
        self.names = given | {resolve(path) for path in given}
        self.links = Links(root)
        self._reads: dict[str, bool] = {}
        self._below: dict[str, bool] = {}
        self._formats: dict[tuple[tuple[str, ...], str], bool] = {}

    def table(self, table: Table) -> bool:
        for path in table.inputs():
            if self.reads(path):
                return True
        if table.formatter is None:
            return False
        folder = os.path.dirname(self.registry.real_path(table.target))
        key = (table.formatter.argv, folder)
        if key not in self._formats:
            inputs = format_inputs(table.formatter.argv, folder, self.root)
            self._formats[key] = any(self._hit(name) for name in inputs)
        return self._formats[key]

    def reads(self, path: str) -> bool:
        """Whether a change touches the registered ``path``, by any of its names."""
        found = self._reads.get(path)
        if found is None:
            found = self._reads[path] = self._touches(path)
        return found

    def _touches(self, path: str) -> bool:
        lexical = _normal(os.path.join(self.cwd, path))
        real = self.registry.real_path(path)
        if self._hit(lexical) or (real != lexical and self._hit(real)):
            return True
        if real == lexical:
            return False  # no symbolic link on the way
        return any(
            self._hit(os.path.join(self.root, name))
            for name in self.links.on_the_way(path)
        )

    def _hit(self, name: str) -> bool:
        """Whether ``name`` or a folder above it (below the root) changed."""
        if name in self.names:
            return True
        folder = os.path.dirname(name)
        found = self._below.get(folder)
        if found is None:
            below = folder != name and folder != self.root and inside(folder, self.root)
            found = self._below[folder] = below and self._hit(folder)
        return found


def _normal(path: str) -> str:
    """``os.path.normpath(path)``, skipped for the usual path that has nothing to
    normalise (no ``.`` or ``..`` component, no doubled or trailing slash)."""
    if "/." in path or "//" in path or path.endswith("/"):
        return os.path.normpath(path)
    return path
