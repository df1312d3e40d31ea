"""Which flags cannot be given together: one table, written out here by hand (not
derived from ``kprofile.modes``), of command lines and the one line each is refused
with. The refusal comes before any input is read, so the inputs named need not exist,
and nothing is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import run

REFUSED = [
    # two modes
    (["-d", "--merge", "a.pkl"], "--diff and --merge cannot be combined"),
    (["a.pkl", "--cover", "0.1", "--importance"],
     "--cover and --importance cannot be combined"),
    (["a.pkl", "--cover", "0.1", "-d"], "--diff and --cover cannot be combined"),
    (["a.pkl", "--ranges", "M", "--cover", "0.1"],
     "--cover and --ranges cannot be combined"),
    (["a.pkl", "--ranges", "M", "--importance"],
     "--importance and --ranges cannot be combined"),
    (["--budget", "2", "--cover", "0.1", "a.pkl"],
     "--cover and --budget cannot be combined"),
    (["--score", "t.yaml", "--budget", "3", "a.pkl"],
     "--score and --budget cannot be combined"),
    # a per-file view with another mode
    (["-d", "-r", "a.pkl"],
     "--ratio is a per-file view; it cannot be combined with --diff"),
    (["-d", "--top-fraction", "0.1", "a.pkl"],
     "--top-fraction is a per-file view; it cannot be combined with --diff"),
    (["a.pkl", "--cover", "0.1", "--head", "2"],
     "--head is a per-file view; it cannot be combined with --cover"),
    (["--budget", "2", "--head", "1", "a.pkl"],
     "--head is a per-file view; it cannot be combined with --budget"),
    (["a.pkl", "--ranges", "M", "-r"],
     "--ratio is a per-file view; it cannot be combined with --ranges"),
    (["a.pkl", "--ranges", "M", "--top", "0.1"],
     "--top is a per-file view; it cannot be combined with --ranges"),
    (["--score", "t.yaml", "--within", "0.02", "a.pkl"],
     "--within is a per-file view; it cannot be combined with --score"),
    # a mode's own option without the mode
    (["--cover-time-limit", "5", "a.pkl"],
     "--time-limit only applies to --cover or --budget"),
    (["--score", "t.yaml", "--time-limit", "3", "a.pkl"],
     "--time-limit only applies to --cover or --budget"),
    (["--budget", "2", "--cover-loss-time-limit", "1", "a.pkl"],
     "--cover-loss-time-limit only applies to --cover"),
    (["--out-dir", "x", "--cover", "0.1", "a.pkl"],
     "--out-dir only applies to --diff or --correlation"),
    (["--sort-pivots", "M", "a.pkl"], "--sort-pivots only applies to --merge"),
    (["--merge", "a.pkl", "--plot", "charts"],
     "--plot only applies to the per-file views, --diff, --correlation, --cover, "
     "--importance, --ranges, --score or --budget"),
    (["a.pkl", "--heatmap", "BM,BN"], "--heatmap only applies to --plot or --report"),
    (["a.pkl", "--plot", "c", "--heatmap", "BM"],
     "--heatmap: expected two parameters like BM,BN, got 'BM'"),
    (["a.pkl", "--report", "r.txt"],
     "--report: expected a file name ending in .html, got 'r.txt'"),
    (["a.pkl", "--include-shapes"], "--include-shapes only applies to --correlation"),
    (["a.pkl", "--tol", "0.05"], "--tol only applies to --ranges"),
    (["a.pkl", "--range-end", "5"], "--range-end only applies to --ranges"),
    (["--fail-above", "1.05", "a.pkl"],
     "--fail-above only applies to --diff or --score"),
    (["--allow-failed", "a.pkl"], "--allow-failed only applies to --diff or --score"),
    (["--baseline", "a.pkl", "b.pkl"], "--baseline only applies to --diff"),
    (["--score", "t.yaml", "--allow-failed", "a.pkl"],
     "--allow-failed only applies to --fail-above"),
    (["--objective", "worst", "a.pkl"], "--objective only applies to --budget"),
    (["--score", "t.yaml", "--objective", "worst", "a.pkl"],
     "--objective only applies to --budget"),
    # what a mode does not take
    (["--combine", "median", "--merge", "a.yaml"],
     "--combine does not apply to --merge"),
    (["--combine", "median", "-d", "a.pkl", "b.pkl"],
     "-d --combine joins each side's runs: name the baseline's with --baseline "
     "FILE (the files given are the new runs)"),
    (["-d", "--baseline", "a.pkl"], "no input files; see kprofile --help"),
    (["--merge", "a.yaml", "--spec", "s.yaml"], "--spec does not apply to --merge"),
    # -o
    (["-d", "-o", "x", "a.pkl"],
     "-o writes a manifest of selected entries; --diff selects none"),
    (["a.pkl", "--importance", "-o", "x"],
     "-o writes a manifest of selected entries; --importance selects none"),
    (["--score", "t.yaml", "-o", "x", "a.pkl"],
     "-o writes a manifest of selected entries; --score selects none"),
    (["--head", "3", "-t", "0.1", "-o", "x", "--write-selection", "a.pkl"],
     "-o: --head and --top select different entries; pass one of them"),
    (["--top", "0.1", "--within", "0.02", "-o", "x", "a.pkl"],
     "-o: --top and --within choose different configs; pass one of them"),
    (["--top", "0.1", "--top-fraction", "0.1", "-o", "x", "a.pkl"],
     "-o: --top and --top-fraction choose different configs; pass one of them"),
    (["--head", "3", "--write-selection", "a.pkl"],
     "--write-selection only applies to -o"),
    (["-o", "x", "--write-selection", "a.pkl"],
     "--write-selection needs --head, --tail, --top, --top-fraction or --within"),
    # --update and --dry-run
    (["a.pkl", "--update", "t.yaml", "-o", "x"],
     "--update and -o both write a manifest; pass one of them"),
    (["-d", "a.pkl", "b.pkl", "--update", "t.yaml"],
     "--update does not apply to --diff"),
    (["--merge", "a.yaml", "--update", "t.yaml"], "--update does not apply to --merge"),
    (["-c", "a.pkl", "--update", "t.yaml"],
     "--update does not apply to --correlation"),
    (["a.pkl", "--cover", "0.1", "--update", "t.yaml"],
     "--update does not apply to --cover"),
    (["--budget", "2", "--update", "t.yaml", "a.pkl"],
     "--update does not apply to --budget"),
    (["--score", "t.yaml", "--update", "t.yaml", "a.pkl"],
     "--update does not apply to --score"),
    (["a.pkl", "--head", "3", "--update", "t.yaml"],
     "--update takes one config per shape (the best, or the common config of "
     "--top/--top-fraction/--within); --head selects several"),
    (["a.pkl", "-t", "0.1", "--within", "0.02", "--update", "t.yaml"],
     "--update: --top and --within choose different configs; pass one of them"),
    (["a.pkl", "--dry-run"], "--dry-run only applies to --update"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), REFUSED)
def test_a_combination_the_modes_do_not_admit_is_one_line_and_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(capsys, *args) == (2, "", f"kprofile: error: {message}\n")
    assert list(tmp_path.iterdir()) == []


def test_each_refusal_is_one_case() -> None:
    assert len({(tuple(a), m) for a, m in REFUSED}) == len(REFUSED)
