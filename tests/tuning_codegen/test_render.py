"""Rendering entries through snippets: exact bytes, written out by hand."""

from __future__ import annotations

import pytest

from tuning_codegen.errors import InputError, InputErrors
from tuning_codegen.languages import LANGUAGES
from tuning_codegen.manifest import Entry
from tuning_codegen.render import (
    fill_placeholders,
    format_value,
    normalize_snippet,
    render_region,
)


def entry(index: int, **values: object) -> Entry:
    return Entry(index, index + 10, values)


@pytest.mark.parametrize(
    ("value", "mojo", "cpp"),
    [
        (True, "True", "true"),
        (False, "False", "false"),
        (None, "None", "nullptr"),
        (0, "0", "0"),
        (1, "1", "1"),
        (2.5, "2.5", "2.5"),
        ("AlongM", "AlongM", "AlongM"),
        ("", "", ""),
    ],
)
def test_format_value(value: object, mojo: str, cpp: str) -> None:
    assert format_value(value, LANGUAGES["mojo"]) == mojo
    assert format_value(value, LANGUAGES["cpp"]) == cpp


def test_fill_placeholders_reports_every_missing_name_sorted() -> None:
    text, missing = fill_placeholders("[@N] [@K] [@M] [@N] [@9x] [@ M]", {"M": 1})
    assert text == "[@N] [@K] 1 [@N] [@9x] [@ M]"
    assert missing == ["K", "N"]


def test_region_exact_bytes() -> None:
    snippet = normalize_snippet(
        "Cfg(\n    # [@M] rows\n    m=[@M],\n\n    ab=[@AB],\n)\n\n  \n"
    )
    region = render_region(
        [entry(0, M=16, AB=True), entry(1, M=32, AB=None)],
        {None: snippet},
        source_label="t.yaml",
        manifest_path="dir/t.yaml",
    )
    assert region == (
        "        # Automatically generated from [t.yaml]\n"
        "        # index: [0]\n"
        "        Cfg(\n"
        "            # 16 rows\n"
        "            m=16,\n"
        "\n"
        "            ab=True,\n"
        "        ),\n"
        "        # Automatically generated from [t.yaml]\n"
        "        # index: [1]\n"
        "        Cfg(\n"
        "            # 32 rows\n"
        "            m=32,\n"
        "\n"
        "            ab=None,\n"
        "        ),"
    )


def test_cpp_language_and_custom_indent() -> None:
    region = render_region(
        [entry(0, X=False)],
        {None: "{[@X]}"},
        source_label="t.yaml",
        manifest_path="t.yaml",
        indent="  ",
        language=LANGUAGES["cpp"],
    )
    assert (
        region
        == "  // Automatically generated from [t.yaml]\n  // index: [0]\n  {false},"
    )


def test_snippet_variants_are_picked_by_template() -> None:
    snippets = {None: "A([@M])", "ranged": "R([@M], [@M_END])"}
    region = render_region(
        [entry(0, M=1), entry(1, M=2, M_END=8, _template="ranged")],
        snippets,
        source_label="t",
        manifest_path="t",
    )
    assert region.splitlines()[2] == "        A(1),"
    assert region.splitlines()[5] == "        R(2, 8),"


def test_every_failing_entry_is_reported() -> None:
    with pytest.raises(InputErrors) as info:
        render_region(
            [
                entry(0, M=1),
                entry(1, _template="wide"),
                entry(2, _template=3),
                entry(3),
            ],
            {None: "[@M] [@N]", "ranged": "[@M]"},
            source_label="t",
            manifest_path="t.yaml",
        )
    assert [str(e) for e in info.value.errors] == [
        "t.yaml:10: error: params[0]: Missing snippet parameters: N",
        "t.yaml:11: error: params[1]: unknown snippet variant 'wide' in _template (variants: ranged)",
        "t.yaml:12: error: params[2]: _template must be a string naming a snippet variant, got 3",
        "t.yaml:13: error: params[3]: Missing snippet parameters: M, N",
    ]
    assert all(isinstance(e, InputError) for e in info.value.errors)
