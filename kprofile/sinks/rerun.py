"""``--rerun SPEC.yaml``: each shape's contenders as a kbench spec
(``kprofile.manifest.specwrite``), written atomically by the code generator's writer.

The policy is ``-o``'s (``kprofile.sinks.output``): the file is written whole or not
at all, its folder is made when missing, an existing regular file is replaced, and a
path that exists but is no regular
file (a folder, ``/dev/null``, a FIFO) is refused before anything runs. So is a path
that is one of the run's own inputs (a results file, ``--spec``, the manifest of
``--update`` or ``--score``): the spec kbench ran is never written over by the spec of
its contenders.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

from kprofile.core.contenders import RerunSpec
from kprofile.core.values import counted
from kprofile.errors import KprofileError
from kprofile.manifest.specwrite import spec_text
from kprofile.manifest.write import Unwritable
from kprofile.sinks.derived import check_folder, created
from tuning_codegen.textio import file_kind
from tuning_codegen.transaction import write_text_atomic


def check_rerun(path: str, inputs: Sequence[str]) -> None:
    """Refuse a ``--rerun`` path that is no regular file, or one of ``inputs``, or
    whose folder cannot be made (it is made when missing, as ``-o``'s is)."""
    check_folder(os.path.dirname(path) or ".", "--rerun")
    try:
        mode = os.stat(path).st_mode
    except OSError:  # nothing there (or not ours to look at): the writer decides
        return
    if not stat.S_ISREG(mode):
        raise KprofileError(
            path, f"--rerun needs a file name, and this is {file_kind(mode)}"
        )
    for given in inputs:
        try:
            same = os.path.samefile(path, given)
        except OSError:
            continue
        if same:
            raise KprofileError(
                path,
                f"--rerun would write over an input of this run ({given}); name "
                "another file",
            )


def write_rerun(path: str, spec: RerunSpec) -> str:
    """The spec written atomically; the line that says so."""
    if not spec.groups:
        raise KprofileError(path, "--rerun: no contender (no successful run)")
    try:
        text = spec_text(
            name=spec.name,
            file=spec.file,
            groups=spec.groups,
            runtime=spec.runtime,
            header=spec.header,
        )
    except Unwritable as exc:
        raise KprofileError(path, f"--rerun: {exc}") from None
    created(os.path.dirname(path) or ".", "--rerun")
    try:
        write_text_atomic(path, text)
    except OSError as exc:
        raise KprofileError(path, f"cannot write: {exc.strerror or exc}") from None
    configs = sum(len(s.configs) for s in spec.shapes)
    shapes = sum(bool(s.configs) for s in spec.shapes)
    return (
        f"wrote {path} ({counted(configs, 'config', 'configs')} of "
        f"{counted(shapes, 'shape', 'shapes')} in "
        f"{counted(len(spec.groups), 'group', 'groups')})"
    )
