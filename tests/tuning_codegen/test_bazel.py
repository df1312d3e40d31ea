"""--import-bazel: codegen test rules of a BUILD file become registry tables; the file
is parsed, never executed; what cannot be read statically is a clean error."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from support import BIN

from tuning_codegen.bazel import import_bazel
from tuning_codegen.errors import InputError

PROJECT = Path(__file__).resolve().parents[2]
BUILD = PROJECT / "fixtures" / "bazel" / "BUILD.bazel"


def tables(text: str) -> list[dict[str, object]]:
    return yaml.safe_load(import_bazel(text, "BUILD"))["tables"]  # type: ignore[no-any-return]


def test_the_fixture_build_file_gives_the_fixture_registry() -> None:
    imported = tables(BUILD.read_text())
    assert [t["name"] for t in imported] == ["sm100_bf16", "sm100_ranged", "sm90_fp8"]
    registry = yaml.safe_load(
        (PROJECT / "fixtures/codegen/.tuning-codegen.yaml").read_text()
    )
    for mine, theirs in zip(imported, registry["tables"]):
        for key in ("manifest", "snippet", "target", "begin_marker", "end_marker"):
            assert mine[key] == f"fixtures/codegen/{theirs[key]}" if key in (
                "manifest", "snippet", "target") else mine[key] == theirs[key]  # fmt: skip
        assert mine["source_label"] == Path(str(theirs["manifest"])).name
    assert imported[1]["snippet_variants"] == {
        "ranged": "fixtures/codegen/tuning_ranged.mojo.snippet"
    }
    assert "snippet_variants" not in imported[0]


RULE = """\
run_binary_test(
    name = "{name}",
    args = {args},
    binary = "{binary}",
)
"""
ARGS = [
    "--manifest=m.yaml", "--snippet=s.snippet", "--target=t.mojo",
    "--begin-marker=BEGIN-X", "--end-marker=END-X", "--source-label=m.yaml",
]  # fmt: skip


def rule(name: str = "x_tuning_codegen_test", args: object = None,
         binary: str = ":tuning_codegen") -> str:  # fmt: skip
    return RULE.format(
        name=name, args=args if args is not None else ARGS, binary=binary
    )


@pytest.mark.parametrize(
    ("name", "table"),
    [("a_tuning_codegen_test", "a"), ("b_test", "b"), ("c", "c"),
     ("_test", "_test")],
)  # fmt: skip
def test_table_names_drop_the_test_suffix(name: str, table: str) -> None:
    assert tables(rule(name=name))[0]["name"] == table


def test_four_variants_and_both_flag_spellings() -> None:
    args = [
        "--check", "--manifest", "m.yaml", "--snippet=s", "--target", "t",
        "--begin-marker", "B", "--end-marker=E", "--source-label", "label",
        *(f"--snippet-variant=v{i}=v{i}.snippet" for i in range(3)),
        "--snippet-variant", "v3=v3.snippet",
    ]  # fmt: skip
    (table,) = tables(rule(args=args))
    assert table == {
        "name": "x", "manifest": "m.yaml", "snippet": "s",
        "snippet_variants": {f"v{i}": f"v{i}.snippet" for i in range(4)},
        "target": "t", "begin_marker": "B", "end_marker": "E", "source_label": "label",
    }  # fmt: skip


@pytest.mark.parametrize(
    "binary",
    ["//a/b:tuning_codegen", "@repo//tools:tuning_codegen", "//tools/tuning_codegen"],
)
def test_every_label_spelling_of_the_codegen_binary(binary: str) -> None:
    assert len(tables(rule(binary=binary))) == 1


def test_rules_of_other_binaries_and_without_flags_are_ignored() -> None:
    text = (
        rule(binary=":other")
        + rule(name="y_test")
        + rule(
            name="z_test",
            args=["--check", "--manifest=m.yaml"],  # not all six flags
        )
    )
    assert [t["name"] for t in tables(text)] == ["y"]


def test_markers_and_paths_that_need_quoting_survive_the_yaml() -> None:
    args = [a.replace("BEGIN-X", "# BEGIN: x 'y'") for a in ARGS]
    args = [a.replace("m.yaml", "dir with space/m: yes.yaml") for a in args]
    (table,) = tables(rule(args=args))
    assert table["begin_marker"] == "# BEGIN: x 'y'"
    assert table["manifest"] == "dir with space/m: yes.yaml"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("run_binary_test(\n  name = 'x',\n", "BUILD:1: error: not parseable: '(' was never closed"),
        (rule(args="COMMON_ARGS"), "BUILD:3: error: args of this codegen rule cannot be read"),
        (rule(args='ARGS + ["--check"]'), "BUILD:3: error: args of this codegen rule"),
        (rule(args='[flag("--manifest")]'), "BUILD:3: error: args of this codegen rule"),
        (rule(args=[*ARGS, "--bogus=1"]), "BUILD:1: error: unknown tuning_codegen flag --bogus"),
        (rule(args=[*ARGS, "--manifest=n.yaml"]), "BUILD:1: error: --manifest given twice"),
        (rule(args=[*ARGS, "--indent"]), "BUILD:1: error: --indent needs a value"),
        (rule(args=[*ARGS, "--snippet-variant=v"]),
         "BUILD:1: error: --snippet-variant expects NAME=PATH, got 'v'"),
        (rule() + rule(name="x_test"),
         "BUILD:6: error: two rules give the table name 'x' (line 1 and line 6)"),
        ("cc_library(name = 'lib')\n",
         "BUILD: error: no rule runs the tuning codegen with the reference flags"),
    ],
)  # fmt: skip
def test_what_cannot_be_imported_is_one_clean_error(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        import_bazel(text, "BUILD")
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_nothing_in_the_build_file_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = f"__import__('os').system('touch {marker}')\n" + rule(
        name=f"{{__import__('os').system('touch {marker}')}}_test"
    )
    imported = import_bazel(text, "BUILD")
    assert not marker.exists()
    assert "__import__" in imported  # the name is data, written as a quoted string


MULTILINE = """\
run_binary_test(
    name = "x_test",
    args = [
        "--check",
        "--manifest", "m.yaml", "--snippet=s.snippet",
        "--target={target}",
        "--begin-marker=BEGIN-X", "--end-marker=END-X", "--source-label=m.yaml",
    ]{more},
    binary = ":tuning_codegen",
)
"""


@pytest.mark.parametrize(
    ("target", "more", "message"),
    [
        ("$(location :configs)", "",
         "BUILD.bazel:6: error: '--target=$(location :configs)' holds the make "
         "variable '$(location :configs)', which Bazel expands when it runs the "
         "rule; write the path it stands for"),
        ("$(execpath //k:configs.mojo)", "", "BUILD.bazel:6: error: '--target="
         "$(execpath //k:configs.mojo)' holds the make variable '$(execpath "
         "//k:configs.mojo)', which"),
        ("$(GENDIR)/t.mojo", "", "BUILD.bazel:6: error: '--target=$(GENDIR)/t.mojo' "
         "holds the make variable '$(GENDIR)', which"),
        ("cost$$.mojo", "", "BUILD.bazel:6: error: '--target=cost$$.mojo' holds the "
         "make variable '$$', which"),
        ("t.mojo", ' + select({\n        "//conditions:default": [],\n    })',
         "BUILD.bazel:8: error: args of this codegen rule cannot be read without "
         "running Starlark: select() (Bazel picks it by configuration) is known to "
         "Bazel only; write them as a list of string literals"),
        ("t.mojo", ' + glob(["*.snippet"])', "BUILD.bazel:8: error: args of this "
         "codegen rule cannot be read without running Starlark: glob() is known to "
         "Bazel only"),
        ("t.mojo", " + EXTRA_ARGS", "BUILD.bazel:8: error: args of this codegen rule "
         "cannot be read without running Starlark: the variable EXTRA_ARGS is known "
         "to Bazel only"),
    ],
)  # fmt: skip
def test_what_only_bazel_knows_is_refused_at_its_line(
    tmp_path: Path, target: str, more: str, message: str
) -> None:
    """Before, ``$(location x)`` was imported as a path, exit 0."""
    (tmp_path / "BUILD.bazel").write_text(MULTILINE.format(target=target, more=more))
    done = subprocess.run(
        [str(BIN / "tuning-codegen"), "--import-bazel", "BUILD.bazel"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1
