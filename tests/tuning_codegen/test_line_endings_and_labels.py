"""A target with CR line endings is split as the reference splits it
(not "marker not on a comment line"), and a bad ``--source-label`` or marker is
blamed on itself, not on the manifest's first entry. Through the installed script."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support import BIN

TOOL = str(BIN / "tuning-codegen")


def codegen(folder: Path, *extra: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [TOOL, "--manifest", "m.yaml", "--snippet", "s.snippet", "--target", "t.mojo",
         *extra],
        cwd=folder, capture_output=True, check=False,
    )  # fmt: skip


@pytest.fixture
def table(tmp_path: Path) -> Path:
    (tmp_path / "m.yaml").write_text("params:\n- {M: 1}\n- {M: 2}\n")
    (tmp_path / "s.snippet").write_text("Cfg(M=[@M])\n")
    return tmp_path


MARKERS = ["--begin-marker", "BEGIN", "--end-marker", "END"]
ENTRIES = [
    "    # Automatically generated from [m.yaml]",
    "    # index: [0]",
    "    Cfg(M=1),",
    "    # Automatically generated from [m.yaml]",
    "    # index: [1]",
    "    Cfg(M=2),",
]


@pytest.mark.parametrize("ending", ["\r", "\r\n", "\n"], ids=["cr", "crlf", "lf"])
def test_a_target_keeps_its_line_endings_cr_ones_too(table: Path, ending: str) -> None:
    lines = ["def f():", "    # BEGIN", "    stale", "    # END", "    pass", ""]
    (table / "t.mojo").write_bytes(ending.join(lines).encode())
    check = codegen(table, *MARKERS, "--indent", "    ", "--check")
    assert (check.returncode, check.stderr) == (1, b"")
    done = codegen(table, *MARKERS, "--indent", "    ")
    assert (done.returncode, done.stderr) == (0, b"")
    want = ["def f():", "    # BEGIN", *ENTRIES, "    # END", "    pass", ""]
    assert (table / "t.mojo").read_bytes() == ending.join(want).encode()
    again = codegen(table, *MARKERS, "--indent", "    ", "--check")
    assert (again.returncode, again.stdout, again.stderr) == (0, b"", b"")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--source-label", "see BEGIN"],
         "--source-label: error: source_label contains the begin marker 'BEGIN' of "
         "table 't.mojo'"),
        (["--source-label", "END.yaml"],
         "--source-label: error: source_label contains the end marker 'END' of table "
         "'t.mojo'"),
        (["--begin-marker", "Automatically", "--end-marker", "END"],
         "--begin-marker: error: the begin marker 'Automatically' occurs in the comments "
         "every generated entry starts with ('# Automatically generated from [m.yaml]'); "
         "choose a marker they do not hold"),
        (["--begin-marker", "BEGIN", "--end-marker", "index: ["],
         "--end-marker: error: the end marker 'index: [' occurs in the comments every "
         "generated entry starts with ('# index: [0]'); choose a marker they do not hold"),
    ],
    ids=["label-begin", "label-end", "marker-in-provenance", "marker-in-index"],
)  # fmt: skip
def test_a_setting_that_would_repeat_a_marker_is_blamed_on_itself(
    table: Path, extra: list[str], message: str
) -> None:
    (table / "t.mojo").write_text("# BEGIN\n# END\n# Automatically\n# index: [\n")
    if "--begin-marker" not in extra:
        extra = [*MARKERS, *extra]
    done = codegen(table, *extra)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == message + "\n"
    assert (
        table / "t.mojo"
    ).read_text() == "# BEGIN\n# END\n# Automatically\n# index: [\n"
