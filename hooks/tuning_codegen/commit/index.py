"""What the commit holds, read from the index: entries, blobs and staged changes.

``--hook`` judges the commit, and a commit is the index: the staged blob of every file,
whatever the working tree holds (unstaged edits, a file marked assume-unchanged, a
name only marked ``git add -N``). Everything here asks git itself, in the environment
git gave the hook (``GIT_INDEX_FILE`` for ``git commit -- PATH``'s temporary index,
``GIT_DIR`` and ``GIT_WORK_TREE`` as the caller set them): ``ls-files`` for entries,
``cat-file --batch`` for contents (sizes checked first: nothing larger than
``textio.MAX_BYTES`` is read), ``diff --cached`` for what is staged.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, NamedTuple, overload

from tuning_codegen.commit.git import git_output, names
from tuning_codegen.errors import InputError
from tuning_codegen.textio import MAX_BYTES

FEATURE = "--hook"
SYMLINK = "120000"
GITLINK = "160000"
SKIP_WORKTREE = "S"
EMPTY_BLOBS = frozenset(
    {
        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",  # SHA-1 repositories
        "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",  # SHA-256
    }
)
INTENT_TO_ADD = 0x20000000  # git's CE_INTENT_TO_ADD, as ls-files --debug shows it
LS_FILES = ("--literal-pathspecs", "ls-files", "-z", "--stage", "-v", "--")
_FLAGS = re.compile(rb"flags: ([0-9a-f]+)\n(.*)\Z", re.DOTALL)


class Entry(NamedTuple):
    """A path's entry in the index (``git ls-files --stage -v``)."""

    tag: str  # H: cached, S: skip-worktree, M: unmerged; lower case: assume-unchanged
    mode: str  # 100644, 100755, 120000 (a symbolic link), 160000 (a submodule)
    oid: str
    stage: int  # 0, or 1-3 for the sides of a merge conflict

    @property
    def assume_unchanged(self) -> bool:
        return self.tag.islower()

    @property
    def skip_worktree(self) -> bool:
        return self.tag.upper() == SKIP_WORKTREE


@overload
def index_entries(
    root: str, pathspecs: Sequence[str], *, modified: Literal[False] = False
) -> dict[str, list[Entry]]: ...


@overload
def index_entries(
    root: str, pathspecs: Sequence[str], *, modified: Literal[True]
) -> tuple[dict[str, list[Entry]], set[str]]: ...


def index_entries(
    root: str, pathspecs: Sequence[str], *, modified: bool = False
) -> dict[str, list[Entry]] | tuple[dict[str, list[Entry]], set[str]]:
    """Each path under ``pathspecs`` the index holds, with its entries (one, or one
    per side of a conflict); with ``modified``, also the paths whose working-tree
    file differs from the index, as git's stat cache says (``-m``, in the same
    call)."""
    flags = ["-m"] if modified else []
    out = git_output([*LS_FILES[:-1], *flags, "--", *pathspecs], root, feature=FEATURE)
    entries: dict[str, list[Entry]] = {}
    changed: set[str] = set()
    for record in out.split(b"\0"):
        head, tab, name = record.partition(b"\t")
        fields = head.split(b" ")
        if not tab or len(fields) != 4 or not fields[3].isdigit():
            continue
        tag, mode, oid = (f.decode("ascii", "replace") for f in fields[:3])
        if tag in ("C", "c"):  # -m: changed in the working tree
            changed.add(os.fsdecode(name))
            continue
        entry = Entry(tag, mode, oid, int(fields[3]))
        entries.setdefault(os.fsdecode(name), []).append(entry)
    return (entries, changed) if modified else entries


def staged_names(root: str, against: str | None = None) -> list[str]:
    """The paths (relative to ``root``) the index changes from HEAD (or from the
    commit ``against``), deletions too; every path of the index before the first
    commit."""
    args = ["diff", "--cached", "--name-only", "--no-renames", "--no-ext-diff", "-z"]
    given = [against] if against is not None else []
    return names(git_output([*args, *given, "--"], root, feature=FEATURE))


def intent_to_add(root: str, paths: Sequence[str]) -> set[str]:
    """Those of ``paths`` (empty blobs in the index) only marked ``git add -N``: the
    commit does not hold them."""
    if not paths:
        return set()
    out = git_output(
        ["--literal-pathspecs", "ls-files", "-z", "--debug", "--", *paths],
        root,
        feature=FEATURE,
    )
    found = set()
    records = out.split(b"\0")
    for name, debug in zip(records, records[1:]):
        name = name.rpartition(b"\n")[2] if b"flags: " in name else name
        match = _FLAGS.search(debug)
        if match and int(match.group(1), 16) & INTENT_TO_ADD:
            found.add(os.fsdecode(name))
    return found


def read_blobs(
    root: str, oids: Iterable[str], shown: Mapping[str, str]
) -> dict[str, bytes]:
    """The content of each object (``shown``: how to name it in an error, by oid);
    an object larger than ``MAX_BYTES`` is refused before it is read."""
    wanted = sorted(set(oids))
    if not wanted:
        return {}
    query = "".join(f"{oid}\n" for oid in wanted).encode("ascii")
    sizes = _sizes(git_output(["cat-file", "--batch-check"], root, feature=FEATURE,
                              input=query))  # fmt: skip
    for oid in wanted:
        size = sizes.get(oid)
        if size is None:
            raise InputError(shown.get(oid, oid), f"{FEATURE}: git cannot read it")
        if size > MAX_BYTES:
            limit = MAX_BYTES // 2**20
            raise InputError(
                shown.get(oid, oid),
                f"too large: {size} bytes (the limit is {limit} MiB)",
            )
    total = sum(sizes[oid] + len(oid) + 32 for oid in wanted)
    out = git_output(
        ["cat-file", "--batch"], root, feature=FEATURE, input=query, limit=total
    )
    return _contents(out, wanted)


def _sizes(out: bytes) -> dict[str, int]:
    sizes = {}
    for line in out.split(b"\n"):
        fields = line.split(b" ")
        if len(fields) == 3 and fields[1] == b"blob" and fields[2].isdigit():
            sizes[fields[0].decode("ascii")] = int(fields[2])
    return sizes


def _contents(out: bytes, wanted: Sequence[str]) -> dict[str, bytes]:
    contents: dict[str, bytes] = {}
    at = 0
    for oid in wanted:
        end = out.index(b"\n", at)
        size = int(out[at:end].rsplit(b" ", 1)[1])
        contents[oid] = out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return contents


def read_staged(root: str, name: str, shown: str) -> bytes | None:
    """The content of ``name``'s stage-0 entry (``:name``), in one git call; None if
    the index has none (or ``name`` holds a line break, which the query cannot)."""
    if "\n" in name or "\r" in name:
        return None
    query = os.fsencode(f":{name}\n")  # the name's bytes, as the OS has them
    limit = MAX_BYTES + len(query) + 128
    try:
        out = git_output(
            ["cat-file", "--batch"], root, feature=FEATURE, input=query, limit=limit
        )
    except InputError as exc:
        if "printed more than" in exc.message:
            raise InputError(
                shown, f"too large (the limit is {MAX_BYTES // 2**20} MiB)"
            ) from None
        raise
    header, _, rest = out.partition(b"\n")
    fields = header.split(b" ")
    if len(fields) != 3 or fields[1] != b"blob" or not fields[2].isdigit():
        return None  # missing, or not a blob (a submodule's commit)
    return rest[: int(fields[2])]
