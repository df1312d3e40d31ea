"""What a file holds, told from its first bytes, for errors that name a file given in
the wrong place (a results file where a manifest is expected, and the reverse).

Only the head is read (``HEAD`` bytes) and nothing is parsed or run: a pickle's
protocol marker, a compressor's magic number, kbench's CSV header (``"name","met
(ms)",...,"spec",...``), or a YAML mapping's first key. A file it cannot tell is
None: the reader that expects it then reports what is wrong, as before.
"""

from __future__ import annotations

import csv
import re
from pathlib import PurePath

from kprofile.errors import KprofileError
from kprofile.inputs.files import open_regular

HEAD = 4096  # bytes: a kbench CSV header, or a manifest's comments and first key

RESULTS = "a kbench results file"
PICKLE = f"{RESULTS} (a pickle)"
COMPRESSED = f"{RESULTS} (a compressed pickle)"
CSV = f"{RESULTS} (CSV)"
YAML = "a manifest or spec (YAML)"

# What DataFrame.to_pickle's compressions start with: gzip, bz2, xz, zstd, zip.
_MAGIC = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd", b"PK\x03\x04")
_YAML_KEY = re.compile(r"(?:---|[$A-Za-z_][\w$ .-]*:(?:\s|$))")


def what_is(head: bytes) -> str | None:
    """``PICKLE``, ``COMPRESSED``, ``CSV`` or ``YAML`` for a file starting with
    ``head``; None when the head does not tell."""
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return PICKLE  # protocol 2 and later: what kbench's pickle.dump writes
    if head.startswith(_MAGIC):
        return COMPRESSED
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:  # a head cut inside a character is fine
        if exc.start < len(head) - 3:
            return None
        text = head[: exc.start].decode("utf-8")
    lines = text.lstrip("\ufeff").splitlines()
    if lines and _is_results_header(lines[0]):
        return CSV
    content = [s for s in lines if s.strip() and not s.lstrip().startswith("#")]
    if content and _YAML_KEY.match(content[0]):
        return YAML
    return None


def _is_results_header(line: str) -> bool:
    """kbench's CSV header: comma-separated names, ``spec`` or a ``met (..)`` one."""
    if "," not in line:
        return False
    fields = next(csv.reader([line]), [])
    return "spec" in fields or any(f.startswith("met (") for f in fields)


def sniff(path: str) -> str | None:
    """``what_is`` the file at ``path`` (None when it cannot be read: its reader
    reports that)."""
    try:
        with open_regular(path) as stream:
            return what_is(stream.read(HEAD))
    except (OSError, KprofileError):
        return None


# For each kind of input (by its name), what its content must not be, and the name
# that content takes.
_NOT = {
    "pkl": {CSV: ".csv", YAML: ".yaml"},
    "csv": {PICKLE: ".pkl", YAML: ".yaml"},
    "yaml": {PICKLE: ".pkl", CSV: ".csv"},
}


def misnamed(path: str, kind: str) -> str | None:
    """Why an input named as ``kind`` (``pkl``, ``csv``, ``yaml``) holds another kind
    of file, or None when it does not tell."""
    found = sniff(path)
    suffix = _NOT.get(kind, {}).get(found or "")
    if suffix is None:
        return None
    return f"this is {found}, though named {PurePath(path).suffix}; rename it {suffix}"


def expect_manifest(path: str, flag: str) -> None:
    """Refuse a results file given where ``flag`` takes a manifest."""
    found = sniff(path)
    if found is not None and found != YAML:
        raise KprofileError(
            path,
            f"this is {RESULTS}, but {flag} expects a manifest (YAML); did you swap "
            "the arguments?",
        )
