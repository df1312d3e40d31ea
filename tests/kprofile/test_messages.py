"""What kprofile says when a path is wrong, and how a fact reads: the folder that is
missing named, a directory called a directory, no label said twice."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import files_in, run


def test_o_below_a_file_names_the_folder_and_writes_nothing(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing folder is made (as --plot's is); one that cannot be, because a
    file stands on its path, is refused before anything runs."""
    before = files_in(demo)
    assert run(
        capsys, "run1/M8_N7168_K2048.pkl", "-o", "run1/M8_N7168_K2048.pkl/best"
    ) == (
        2,
        "",
        "run1/M8_N7168_K2048.pkl: error: -o: cannot create: File exists\n",
    )
    assert files_in(demo) == before


@pytest.mark.parametrize("folder", ["run1", "run1/", "run1.pkl"])
def test_a_directory_given_as_input_is_called_a_directory(
    demo: Path, capsys: pytest.CaptureFixture[str], folder: str
) -> None:
    """Whatever its name ends in: ``run1.pkl`` may be a folder too."""
    if folder.endswith(".pkl"):
        Path(folder).mkdir()
    assert run(capsys, folder) == (
        2,
        "",
        f"Invalid input [{folder}]: is a directory; pass the result files in it "
        "(e.g. DIR/*.pkl)\nkprofile: error: no usable input (1 file skipped)\n",
    )


def test_the_measured_fact_does_not_repeat_its_label(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "run1/M4096_N4096_K4096.pkl", "--within", "0.02")
    measured = [line for line in out.splitlines() if line.startswith("measured ")]
    assert code == 0 and measured == ["measured       mesh_idx 129, ratio 1.000"]
