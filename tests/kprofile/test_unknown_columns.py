"""An option naming a column that is not there lists the columns there are, the same
way for every such option, and never more than a screenful of them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click
import pytest
from support import run, snapshot

from kprofile.clitypes import Columns

G = "G/out.pkl"  # genuine Mojo GEMM sweep: $M, N, K problems, BM, BN tiles
G_COLUMNS = "M, N, K, BM, BN, mesh_idx, name, met (ms), iters, spec, failure"
MANIFEST = """\
params:
- {M: 64, N: 256, K: 256, BM: 16, BN: 64}
- {M: 128, N: 256, K: 256, BM: 16, BN: 32}
"""

# (option, command line, the whole line on stderr)
CASES = [
    ("pivots", [G, "-p", "M,N,Q"],
     f"{G}: error: no column 'Q' to group by (-p); columns: {G_COLUMNS}"),
    ("pivots", [G, "-r", "-p", "Q"],
     f"{G}: error: no column 'Q' to group by (-p); columns: {G_COLUMNS}"),
    ("pivots", [G, "F/out.pkl", "-p", "Q"],
     f"{G}: error: no column 'Q' to group by (-p); columns: {G_COLUMNS}"),
    ("pivots", ["-d", G, G, "-p", "Q"],
     f"kprofile: error: no column 'Q' to group by (-p); columns: {G_COLUMNS}"),
    ("pivots", [G, "-c", "-p", "Q"],
     f"{G}: error: no column 'Q' to group by (-p); columns: {G_COLUMNS}"),
    ("pivots", [G, "--cover", "0.02", "-p", "K,Q"],
     f"{G}: error: no column 'Q' to group by (-p); columns: {G_COLUMNS}"),
    ("pivots", [G, "--importance", "-p", "Q"],
     f"{G}: error: no column 'Q' to group by (-p); columns: {G_COLUMNS}"),
    ("pivots", [G, "--budget", "2", "-p", "Q"],
     f"{G}: error: no column 'Q' to group by (-p); columns: {G_COLUMNS}"),
    ("pivots", [G, "--score", "table.yaml", "-p", "Q"],
     f"{G}: error: no column 'Q' to group by (-p); columns: {G_COLUMNS}"),
    ("pivots", [G, "--ranges", "M", "-p", "Q"],
     f"{G}: error: no column 'Q' to group by (-p); columns: {G_COLUMNS}"),
    ("pivots", [G, "--update", "table.yaml", "-p", "Q"],
     f"{G}: error: no column 'Q' to group by (-p); columns: {G_COLUMNS}"),
    ("pivots", [G, "--combine", "median", "-p", "Q"],
     f"kprofile: error: --combine: no column 'Q' to group by (-p); columns: "
     f"{G_COLUMNS}"),
    ("pivots", ["--merge", "table.yaml", "table.yaml", "-p", "Q"],
     "table.yaml: error: --merge: no pivot column 'Q'; columns: M, N, K, BM, BN"),
    ("metric", [G, "-m", "speed"],
     "kprofile: error: no column matches metric 'speed'; numeric columns: met (ms), "
     "iters, M, N, K, BM, BN"),
    ("metric", [G, "-m", "name"],
     "kprofile: error: metric 'name' is not numeric; numeric columns: met (ms), "
     "iters, M, N, K, BM, BN"),
    ("query", [G, "--query", "Q > 1"],
     f"{G}: error: --query: unknown column 'Q' in 'Q > 1'; columns: mesh_idx, name, "
     "met (ms), iters, spec, failure, M, N, K, BM, BN"),
    ("ranges", [G, "--ranges", "Q"],
     "kprofile: error: --ranges: no parameter column 'Q'; parameter columns: M, N, "
     "K, BM, BN"),
    ("heatmap", [G, "--plot", "charts", "--heatmap", "BM,Q"],
     "kprofile: error: --heatmap: no tuning parameter 'Q'; tuning parameters: BM, "
     "BN"),
    ("sort_pivots", ["--merge", "table.yaml", "table.yaml", "--sort-pivots", "Q"],
     "kprofile: error: --sort-pivots: no column 'Q'; columns: M, N, K, BM, BN"),
]  # fmt: skip


@pytest.fixture
def runs(real: Path) -> Path:
    (real / "table.yaml").write_text(MANIFEST)
    return real


@pytest.mark.parametrize(
    ("option", "args", "message"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_an_unknown_column_lists_the_columns_there_are(
    runs: Path,
    capsys: pytest.CaptureFixture[str],
    option: str,
    args: list[str],
    message: str,
) -> None:
    before = snapshot(runs)
    assert run(capsys, *args, "-q") == (2, "", message + "\n")
    assert snapshot(runs) == before


def test_every_option_naming_a_column_has_a_case() -> None:
    from kprofile.cli import command

    naming = {
        str(p.name)
        for p in command.params
        if isinstance(p.type, Columns) or p.name in ("metric", "ranges", "query")
    }
    assert naming == {c[0] for c in CASES}


def test_a_long_list_of_columns_is_cut_and_counted(
    kb_write: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """30 tuning parameters and kbench's 6 columns: the first 20, then how many
    more."""
    names = [f"P{i:02d}" for i in range(30)]
    rows = [{"M": 1, **{n: i for n in names}, "met (ms)": 1.0 + i} for i in (1, 2)]
    path = kb_write("wide.pkl", rows)
    shown = ", ".join(["M", *names[:19]])
    assert run(capsys, str(path), "-p", "Q", "-q") == (
        2,
        "",
        f"{path}: error: no column 'Q' to group by (-p); columns: {shown} and 17 "
        "more\n",
    )


def test_a_name_a_comma_would_blur_is_quoted(
    kb_write: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"M": 1, "A": i, "met, (ms)": 1.0 + i} for i in (1, 2)]
    path = kb_write("odd.pkl", rows, metric="met, (ms)")
    code, out, err = run(capsys, str(path), "-m", "speed", "-q")
    assert (code, out) == (2, "")
    assert err == (
        "kprofile: error: no column matches metric 'speed'; numeric columns: "
        "'met, (ms)', iters, M, A\n"
    )


def test_click_columns_are_the_options_the_cases_name() -> None:
    """The ``Columns`` type is what marks an option naming columns: ``-p``,
    ``--heatmap`` and ``--sort-pivots`` today."""
    from kprofile.cli import command

    typed = {
        str(p.name)
        for p in command.params
        if isinstance(p, click.Option) and isinstance(p.type, Columns)
    }
    assert typed == {"pivots", "heatmap", "sort_pivots"}
