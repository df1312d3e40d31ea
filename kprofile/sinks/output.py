"""``-o PATH``: the entries a mode selected, as a new manifest (deterministic bytes,
``kprofile.manifest.write``), written atomically by the code generator's writer."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

from kprofile.errors import KprofileError
from kprofile.inputs.load import Results
from kprofile.manifest.change import Entry
from kprofile.manifest.write import Source, Unwritable, manifest_path, manifest_text
from kprofile.sinks.derived import check_folder, created
from tuning_codegen.textio import file_kind
from tuning_codegen.transaction import write_text_atomic


def check_output(output: str) -> None:
    """``-o PATH`` names a file to write (``PATH.yaml``): a PATH that exists and is
    no regular file (``/dev/null``, a FIFO, a folder) is refused before anything
    runs, rather than read as a stem (``/dev/null.yaml``). The same for ``PATH.yaml``
    itself, and for its folder, which is made when missing (``check_folder``)."""
    check_folder(os.path.dirname(manifest_path(output)) or ".", "-o")
    for path in dict.fromkeys((output, manifest_path(output))):
        try:
            mode = os.stat(path).st_mode
        except OSError:  # nothing there (or not ours to look at): the writer decides
            continue
        if not stat.S_ISREG(mode):
            raise KprofileError(
                path,
                f"-o needs a file name, and this is {file_kind(mode)} (-o PATH "
                "writes the manifest PATH.yaml)",
            )


def write_output(
    output: str, entries: Sequence[Entry], sources: Sequence[Results]
) -> tuple[str, str]:
    """``-o``: the selected entries as a new manifest, written atomically; the path
    written and what to say about it (``sources``: the inputs, for its metadata)."""
    if not entries:
        raise KprofileError(
            output,
            "-o: no entries selected (no parameter columns, or no successful run)",
        )
    check_output(output)
    first = sources[0]
    made = [Source(r.path, r.git_revision, r.datetime) for r in sources]
    path = manifest_path(output)
    created(os.path.dirname(path) or ".", "-o")
    try:
        text = manifest_text(entries, name=first.name, file=first.file, sources=made)
    except Unwritable as exc:
        raise KprofileError(path, f"-o: {exc}") from None
    try:
        write_text_atomic(path, text.text)
    except OSError as exc:
        raise KprofileError(path, f"cannot write: {exc.strerror or exc}") from None
    count = len(text.entries)
    extra = ""
    if text.duplicates:
        extra = f"; {_entries(text.duplicates, 'duplicate')} dropped"
    return path, f"wrote {path} ({_entries(count)}{extra})"


def _entries(count: int, adjective: str = "") -> str:
    noun = "entry" if count == 1 else "entries"
    return f"{count} {adjective + ' ' if adjective else ''}{noun}"
