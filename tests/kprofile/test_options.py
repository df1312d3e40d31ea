"""Option parsing: column lists in every accepted spelling, fractions, combinations."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kprofile.cli import main
from kprofile.errors import KprofileError
from kprofile.options import parse_columns, parse_fraction


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["[M,N,K]"], ("M", "N", "K")),
        (["M,N"], ("M", "N")),
        (["M", "N", "K"], ("M", "N", "K")),
        (["[M, N]", "K"], ("M", "N", "K")),
        (["M,N", "M"], ("M", "N")),
        (["['M','N']"], ("M", "N")),
        (["met (ms)"], ("met (ms)",)),
        ([], ()),
    ],
)
def test_parse_columns(values: list[str], expected: tuple[str, ...]) -> None:
    assert parse_columns(values, "-p") == expected


@pytest.mark.parametrize(
    ("text", "allow_zero", "expected"),
    [
        ("0.05", False, 0.05),
        ("5%", False, 0.05),
        ("1", False, 1.0),
        ("0", True, 0.0),
        ("2%", True, 0.02),
        ("0.5", True, 0.5),
    ],
)
def test_parse_fraction(text: str, allow_zero: bool, expected: float) -> None:
    assert parse_fraction(text, "--top", allow_zero=allow_zero) == pytest.approx(
        expected
    )


@pytest.mark.parametrize(
    ("text", "allow_zero"),
    [
        ("0", False),
        ("1.5", False),
        ("-1", True),
        ("nan", True),
        ("inf", True),
        ("x%", False),
    ],
)
def test_bad_fractions(text: str, allow_zero: bool) -> None:
    with pytest.raises(KprofileError):
        parse_fraction(text, "--top", allow_zero=allow_zero)


@pytest.mark.parametrize(
    "spelling",
    [
        ["-p", "[M,N]"],
        ["-p", "M,N"],
        ["-p", "M", "-p", "N"],
        ["--pivots", "M", "--pivots", "N"],
    ],
)
def test_pivot_spellings_give_the_same_diff(
    tmp_path: Path,
    kb_write: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    spelling: list[str],
) -> None:
    base = kb_write(
        "base.pkl",
        [{"M": m, "N": 1, "A": a, "met (ms)": m + a} for m in (8, 64) for a in (1, 2)],
    )
    new = kb_write(
        "new.pkl",
        [
            {"M": m, "N": 1, "A": a, "met (ms)": (m + a) / 2}
            for m in (8, 64)
            for a in (1, 2)
        ],
    )
    assert (
        main(
            [
                "-d",
                str(base),
                str(new),
                *spelling,
                "--out-dir",
                str(tmp_path),
                "--format",
                "json",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert '"shape": "M=8/N=1"' in out and '"shape": "M=64/N=1"' in out
    assert sorted(p.name for p in tmp_path.glob("*.csv")) == [
        "M=64_N=1.csv",
        "M=8_N=1.csv",
    ]
