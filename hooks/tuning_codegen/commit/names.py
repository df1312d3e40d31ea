"""The names a registry's paths have in the index, listed in one git call.

Each registered path is looked for by the name of the file it reads (symbolic links
followed, as the working tree has them) and by the name of each symbolic link on its
way, which the commit must hold too. One ``git ls-files --stage -v -m`` over few
pathspecs lists them all, and says which working-tree copies differ from the index.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from tuning_codegen.commit.index import Entry, index_entries
from tuning_codegen.paths import parents
from tuning_codegen.registry import Registry

MAX_LINKS = 40  # symbolic links followed on the way to one file, as the kernel does


class Check(NamedTuple):
    """One path to find in the index: the registered path as the user reads it, its
    name relative to the repository root (of the file it reads, or of a symbolic
    link on its way: ``link``), and its role in the registry."""

    shown: str
    name: str
    role: str
    link: bool = False


def registered_paths(registry: Registry) -> dict[str, str]:
    """Each registered path -> what it is, for messages (the first use wins)."""
    uses = {registry.path: "the registry of the tuning-codegen hook"}
    for table in registry.tables:
        named = [
            ("manifest", table.manifest),
            ("snippet", table.snippet),
            *((f"snippet variant '{k}'", v) for k, v in table.snippet_variants.items()),
            ("target", table.target),
        ]
        for role, path in named:
            uses.setdefault(path, f"the {role} of table '{table.name}'")
    return uses


class Listing(NamedTuple):
    """One ``git ls-files --stage -v -m`` over a registry's paths: the checks, the
    entries, and the names whose working-tree file differs from the index."""

    checks: list[Check]
    nested: dict[str, str]
    found: dict[str, list[Entry]]
    modified: set[str]


def list_registered(registry: Registry, root: str) -> Listing:
    checks = _checks(registry, root)
    nested = _nested_repositories(root, checks)
    holders = sorted(set(nested.values()))
    found, modified = index_entries(
        root, [*_pathspecs(c.name for c in checks), *holders], modified=True
    )
    return Listing(checks, nested, found, modified)


def stage_zero(entries: Sequence[Entry]) -> Entry | None:
    return next((e for e in entries if e.stage == 0), None)


def relative(path: str, root: str) -> str:
    below = root.rstrip(os.sep) + os.sep
    name = path[len(below) :] if path.startswith(below) else path
    return name.replace(os.sep, "/")


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _checks(registry: Registry, root: str) -> list[Check]:
    """Each registered path by the name of the file it reads (symbolic links
    followed), and each symbolic link on the way by its own name."""
    checks = []
    links = Links(root)
    for path, role in registered_paths(registry).items():
        real = registry.real_path(path)
        read = relative(real, root)
        checks.append(Check(path, read, role))
        if real == os.path.normpath(os.path.abspath(path)):
            continue  # resolved to itself: no symbolic link on the way
        for name in links.on_the_way(path):
            if name != read:
                checks.append(Check(path, name, role, link=True))
    return checks


class Links:
    """The symbolic links a path goes through below the root: the names the commit
    must hold as links too (each name looked at once per run)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.is_link: dict[str, bool] = {}

    def on_the_way(self, path: str) -> list[str]:
        absolute = os.path.abspath(path)
        if not inside(absolute, self.root):
            return []
        queue = relative(absolute, self.root).split("/")
        current: str = self.root
        found: list[str] = []
        while queue:
            part = queue.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                current = os.path.dirname(current)
                if not inside(current, self.root):
                    break
                continue
            here = os.path.join(current, part)
            if len(found) >= MAX_LINKS or not self._link(here):
                current = here
                continue
            found.append(relative(here, self.root))
            pointed = os.path.normpath(os.path.join(current, os.readlink(here)))
            if not inside(pointed, self.root):
                break  # the registry refuses a path resolving outside the repository
            current, queue = (
                self.root,
                [*relative(pointed, self.root).split("/"), *queue],
            )
        return found

    def _link(self, path: str) -> bool:
        if path not in self.is_link:
            self.is_link[path] = os.path.islink(path)
        return self.is_link[path]


def _pathspecs(checked: Iterable[str]) -> list[str]:
    """Few pathspecs that cover ``checked``: each folder holding one (git's cost grows
    with the number of pathspecs times the size of the index), and the names at the
    top, whose folder would be the whole repository."""
    folders = {os.path.dirname(name) or name for name in checked}
    return sorted(
        folder
        for folder in folders
        if not any(up in folders for up in parents(folder)[1:] if up)
    )


def _nested_repositories(root: str, checks: Sequence[Check]) -> dict[str, str]:
    """Checked name -> the folder (relative to ``root``) of the submodule or nested
    repository holding it, for the names inside one."""
    known: dict[str, str | None] = {}
    nested = {}
    for check in checks:
        holder = _holder(root, os.path.dirname(check.name), known)
        if holder is not None:
            nested[check.name] = holder
    return nested


def _holder(root: str, folder: str, known: dict[str, str | None]) -> str | None:
    """The outermost folder from ``folder`` up to (not including) ``root`` that holds
    a ``.git`` of its own; ``known`` caches the answer per folder."""
    if not folder:
        return None
    if folder not in known:
        outer = _holder(root, os.path.dirname(folder), known)
        own = os.path.lexists(os.path.join(root, folder, ".git"))
        known[folder] = outer or (folder if own else None)
    return known[folder]
