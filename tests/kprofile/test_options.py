"""Option parsing: column lists in every accepted spelling, fractions, combinations."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click
import pytest
from support import RESULTS, run

from kprofile.cli import main
from kprofile.clitypes import Fraction, Ratio, parse_columns, parse_fraction
from kprofile.core import portfolio, repeats
from kprofile.errors import KprofileError


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


def test_every_click_parameter_is_an_options_field_of_its_type() -> None:
    """The command builds Options from its parameters by name: they must match."""
    import typing

    from kprofile import options as module
    from kprofile.cli import command

    hints = typing.get_type_hints(module.Options, vars(module))
    params = [p for p in command.params if p.expose_value]  # not --version
    names = {p.name for p in params}
    assert names == set(module.Options._fields)
    ctx = click.Context(command)
    for param in params:
        assert param.name is not None
        if isinstance(param, click.Option) and param.is_flag:
            value: object = True
        else:
            value = _convert_a_sample(param, ctx)
        expected = hints[param.name]
        if param.multiple or param.nargs == -1:
            assert typing.get_origin(expected) is tuple, param.name
            continue
        allowed = typing.get_args(expected) or (expected,)
        assert isinstance(value, allowed), (param.name, value, expected)


def _convert_a_sample(param: click.Parameter, ctx: click.Context) -> object:
    samples = ["3", "5%", "2.5", "M,N", "x"]
    if isinstance(param.type, click.Choice):
        samples = [str(param.type.choices[0])]
    for sample in samples:
        try:
            return param.type.convert(sample, param, ctx)
        except (click.BadParameter, KprofileError, ValueError):
            continue
    raise AssertionError(f"no sample converts for {param.name}")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--within", "2"], "--within: expected a fraction below 1 like 0.02 or 2%, "
         "got '2'; did you mean 2%?"),
        (["--cover", "5"], "--cover: expected a fraction below 1 like 0.02 or 2%, "
         "got '5'; did you mean 5%?"),
        (["--ranges", "M", "--tol", "3"], "--tol: expected a fraction below 1 like "
         "0.02 or 2%, got '3'; did you mean 3%?"),
        (["--within", "1"], "--within: expected a fraction below 1 like 0.02 or 2%, "
         "got '1'; did you mean 1%?"),
    ],
)  # fmt: skip
def test_a_tolerance_of_one_or_more_needs_a_percent_sign(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """``--within 2`` would select every entry within ratio 3: a mistyped 2%."""
    code = main([str(RESULTS / "run1" / "M8_N7168_K2048.pkl"), *args])
    out, err = capsys.readouterr()
    assert (code, out, err) == (2, "", f"kprofile: error: {message}\n")


def test_a_percentage_of_100_or_more_is_a_tolerance(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Written as a percentage, a wide tolerance is meant: ratio <= 2.5."""
    code = main([str(RESULTS / "run1" / "M8_N7168_K2048.pkl"), "--within", "150%"])
    out = capsys.readouterr().out
    assert code == 0 and "within 1.5 of the best (ratio <= 2.5)" in out


def test_the_choices_click_offers_are_the_ones_the_core_accepts() -> None:
    from kprofile.cli import command

    choices = {
        p.name: tuple(p.type.choices)
        for p in command.params
        if isinstance(p.type, click.Choice)
    }
    assert choices["combine"] == repeats.AGGREGATES
    assert choices["objective"] == portfolio.OBJECTIVES


def _fraction_options() -> list[click.Option]:
    """Every option of the command whose value is a fraction or a ratio: a new one
    is in the table below as soon as it takes one of these types."""
    from kprofile.cli import command

    return [
        p
        for p in command.params
        if isinstance(p, click.Option) and isinstance(p.type, (Fraction, Ratio))
    ]


def test_every_number_option_takes_a_type_of_its_own() -> None:
    """A fraction given as click's float would get no percent hint: every option
    taking a number parses it with one of the project's types."""
    from kprofile.cli import command

    bare = [
        p.name for p in command.params if isinstance(p.type, click.types.FloatParamType)
    ]
    assert bare == []
    names = {p.name for p in _fraction_options()}
    assert {"top", "top_fraction", "within", "cover", "tol", "fail_above"} <= names


def _mistyped(option: click.Option) -> tuple[str, str]:
    """A value the option refuses, and the whole message with the hint it gets."""
    name = max(option.opts, key=len)
    if isinstance(option.type, Ratio):
        return "5%", (
            f"{name}: expected a ratio of 1.0 or more (1.05: 5% above the best), "
            "got '5%'; did you mean 1.05 (5% above the best)?"
        )
    assert isinstance(option.type, Fraction)
    expected = (
        "a fraction below 1 like 0.02 or 2%"
        if option.type.band
        else "a fraction in (0, 1] like 0.05 or 5%"
    )
    return "5", f"{name}: expected {expected}, got '5'; did you mean 5%?"


@pytest.mark.parametrize("option", _fraction_options(), ids=lambda p: str(p.name))
def test_every_fraction_option_suggests_the_percentage_it_meant(
    capsys: pytest.CaptureFixture[str], option: click.Option
) -> None:
    value, message = _mistyped(option)
    code, out, err = run(
        capsys, str(RESULTS / "run1" / "M8_N7168_K2048.pkl"), option.opts[0], value
    )
    assert (code, out, err) == (2, "", f"kprofile: error: {message}\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--top", "150"], "--top: expected a fraction in (0, 1] like 0.05 or 5%, "
         "got '150'"),
        (["--top", "0"], "--top: expected a fraction in (0, 1] like 0.05 or 5%, "
         "got '0'"),
        (["--top-fraction", "1.5"], "--top-fraction: expected a fraction in (0, 1] "
         "like 0.05 or 5%, got '1.5'; did you mean 1.5%?"),
        (["--top", "100"], "--top: expected a fraction in (0, 1] like 0.05 or 5%, "
         "got '100'; did you mean 100%?"),
        (["--within", "-2"], "--within: expected a non-negative fraction, got '-2'"),
        (["--fail-above", "0.9"], "--fail-above: expected a ratio of 1.0 or more "
         "(1.05: 5% above the best), got '0.9'; did you mean 1.9 (90% above the "
         "best)?"),
        (["--fail-above", "0"], "--fail-above: expected a ratio of 1.0 or more "
         "(1.05: 5% above the best), got '0'"),
        (["--fail-above", "2.5%"], "--fail-above: expected a ratio of 1.0 or more "
         "(1.05: 5% above the best), got '2.5%'; did you mean 1.025 (2.5% above the "
         "best)?"),
    ],
)  # fmt: skip
def test_a_hint_only_where_the_percentage_would_be_taken(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """``--top 150`` read as 150% is refused too: no hint to a value that fails."""
    code, out, err = run(capsys, str(RESULTS / "run1" / "M8_N7168_K2048.pkl"), *args)
    assert (code, out, err) == (2, "", f"kprofile: error: {message}\n")
