"""Errors that say which argument is what, through the real command on genuine
kbench output (``fixtures/realkbench/A``): a results file given where a manifest is
expected (``--update``, ``--score``) is named as such, whatever its name; a manifest
given where measurements are expected too. A manifest in a merge (conflict markers)
or with a missing colon is reported at the line that holds the mistake, in every
output format, by the manifest reader tuning-codegen uses (one code path).
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from support import FIXTURES, run, snapshot

REAL = FIXTURES / "realkbench" / "A"
MANIFEST = """\
# a hand-written table
name: np_blocked_matmul
params:
- M: 256
  N: 256
  K: 256
  BM: 32
  BN: 64
- M: 128
  N: 512
  K: 192
  BM: 16
  BN: 128
"""
SWAP = "but {flag} expects a manifest (YAML); did you swap the arguments?"
PICKLE = CSV = "this is a kbench results file, " + SWAP
NO_MEASUREMENTS = (
    "this is a manifest or spec (YAML), which holds no measurements; pass kbench "
    "results (.pkl/.csv), or --merge to join YAMLs"
)


@pytest.fixture
def real(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """kbench's out.pkl and out.csv, a copy of the pickle under another name, the
    pickle gzip-compressed, and a manifest."""
    for name in ("out.pkl", "out.csv"):
        shutil.copy(REAL / name, tmp_path / name)
    shutil.copy(REAL / "out.pkl", tmp_path / "run2.pkl")
    shutil.copy(REAL / "out.pkl", tmp_path / "results.yaml")  # a pickle, misnamed
    (tmp_path / "out.pkl.gz").write_bytes(
        gzip.compress((REAL / "out.pkl").read_bytes())
    )
    (tmp_path / "best.yaml").write_text(MANIFEST)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "args, message",
    [
        (["--score", "out.csv", "out.pkl"], "out.csv: error: " + CSV.format(flag="--score")),
        (["--update", "out.pkl", "run2.pkl"], "out.pkl: error: " + PICKLE.format(flag="--update")),
        (["--score", "out.pkl", "best.yaml"], "out.pkl: error: " + PICKLE.format(flag="--score")),
        (["out.pkl", "--update", "out.csv"], "out.csv: error: " + CSV.format(flag="--update")),
        (["out.csv", "--update", "results.yaml"],
         "results.yaml: error: " + PICKLE.format(flag="--update")),
        (["out.pkl", "--update", "out.pkl.gz"],
         "out.pkl.gz: error: " + PICKLE.format(flag="--update")),
        (["best.yaml", "--update", "best.yaml"], "best.yaml: error: " + NO_MEASUREMENTS),
        (["--score", "best.yaml", "best.yaml"], "best.yaml: error: " + NO_MEASUREMENTS),
    ],
)  # fmt: skip
def test_an_argument_in_the_wrong_place_is_named_for_what_it_is(
    real: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    before = snapshot(real)
    assert run(capsys, *args) == (2, "", message + "\n")
    assert snapshot(real) == before


def test_a_manifest_in_its_place_is_read_as_before(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "--score", "best.yaml", "out.pkl")
    assert code == 0, err
    assert "table                     best.yaml (2 entries)" in out


def _conflicted() -> tuple[str, int]:
    """The manifest as git leaves it after a merge it could not join, and the line
    of the first marker."""
    lines = MANIFEST.splitlines(keepends=True)
    ours, theirs = lines[:8], ["  BM: 64\n"]
    merged = [*lines[:7], "<<<<<<< HEAD\n", *ours[7:8], "=======\n", *theirs]
    merged += [">>>>>>> tune-again\n", *lines[8:]]
    return "".join(merged), 8


def _missing_colon() -> tuple[str, int]:
    """The manifest with ``BM 16`` for ``BM: 16``, and that line."""
    lines = MANIFEST.splitlines(keepends=True)
    broken = next(i for i, line in enumerate(lines) if line == "  BM: 16\n")
    lines[broken] = "  BM 16\n"
    return "".join(lines), broken + 1


# A manifest broken two ways, and what each says at the line of the mistake.
BROKEN = [
    (_conflicted, "unresolved merge conflict (git's <<<<<<< line): resolve it, then "
     "run again"),
    (_missing_colon, "invalid YAML: while scanning a simple key could not find "
     "expected ':'"),
]  # fmt: skip


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
@pytest.mark.parametrize("make, problem", BROKEN)
@pytest.mark.parametrize("mode", ["--update", "--score"])
def test_a_broken_manifest_is_reported_at_the_line_of_the_mistake(
    real: Path,
    capsys: pytest.CaptureFixture[str],
    make: object,
    problem: str,
    fmt: str,
    mode: str,
) -> None:
    text, line = make()  # type: ignore[operator]
    Path("table.yaml").write_text(text)
    before = snapshot(real)
    args = ["out.pkl", mode, "table.yaml", "--format", fmt]
    assert run(capsys, *args) == (2, "", f"table.yaml:{line}: error: {problem}\n")
    assert snapshot(real) == before


@pytest.mark.parametrize("make, problem", BROKEN)
def test_a_broken_yaml_input_is_skipped_naming_the_line_of_the_mistake(
    real: Path, capsys: pytest.CaptureFixture[str], make: object, problem: str
) -> None:
    """As an input (``--merge``, or beside results), not only as --update's or
    --score's manifest: the same ``path:line: error:`` line, then the file skipped."""
    text, line = make()  # type: ignore[operator]
    Path("table.yaml").write_text(text)
    located = f"table.yaml:{line}: error: {problem}\n"
    assert run(capsys, "--merge", "table.yaml", "-p", "M") == (
        2,
        "",
        located + "kprofile: error: no usable input (1 file skipped)\n",
    )
    code, out, err = run(capsys, "table.yaml", "out.pkl", "-q")
    assert (code, err.splitlines(keepends=True)[0]) == (0, located)
    assert "== out.pkl ==" in out


@pytest.mark.parametrize(
    "source, name, message",
    [
        ("best.yaml", "best.pkl",
         "Invalid pkl [best.pkl]: this is a manifest or spec (YAML), though named "
         ".pkl; rename it .yaml"),
        ("out.csv", "out2.pkl",
         "Invalid pkl [out2.pkl]: this is a kbench results file (CSV), though named "
         ".pkl; rename it .csv"),
        ("out.pkl", "out2.csv",
         "Invalid csv [out2.csv]: this is a kbench results file (a pickle), though "
         "named .csv; rename it .pkl"),
        ("out.pkl", "run.yml",
         "Invalid yaml [run.yml]: this is a kbench results file (a pickle), though "
         "named .yml; rename it .pkl"),
    ],
)  # fmt: skip
def test_an_input_whose_name_says_another_kind_is_named_for_what_it_holds(
    real: Path,
    capsys: pytest.CaptureFixture[str],
    source: str,
    name: str,
    message: str,
) -> None:
    shutil.copy(source, name)
    code, out, err = run(capsys, name)
    assert (code, out) == (2, "")
    assert err == message + "\nkprofile: error: no usable input (1 file skipped)\n"
