"""Bad registries: exit 2, the exact ``path[:line]: error: ...`` lines, no file changed.

Every case starts from the four-table repository of ``conftest.py`` with one table made
stale, and runs the regenerate mode: an implementation that wrote anything before
giving up would change the stale target, and the snapshot comparison would see it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tuning_codegen.cli import main

REG = ".tuning-codegen.yaml"
SM90_MANIFEST = "    manifest: kernels/tuning_table_sm90_fp8.yaml"
SMALL_TARGET = "    target: python/dispatch.py"

# (id, registry text -> new text, expected stderr lines; {root} is the repository root)
Mutation = Callable[[str], str]


def replace(old: str, new: str) -> Mutation:
    def apply(text: str) -> str:
        assert text.count(old) == 1, old
        return text.replace(old, new)

    return apply


def whole(new: str) -> Mutation:
    return lambda _text: new


def chain(*mutations: Mutation) -> Mutation:
    def apply(text: str) -> str:
        for mutation in mutations:
            text = mutation(text)
        return text

    return apply


CASES: list[tuple[str, Mutation, list[str]]] = [
    (
        "typo-in-key",
        replace(SM90_MANIFEST, SM90_MANIFEST.replace("manifest", "manfest")),
        [f"{REG}:17: error: unknown key 'manfest' in table; did you mean 'manifest'?"],
    ),
    (
        "unknown-key-no-close-match",
        replace(SM90_MANIFEST, SM90_MANIFEST + "\n    colour: blue"),
        [
            f"{REG}:18: error: unknown key 'colour' in table; known keys: name, manifest, snippet, target, "
            "begin_marker, end_marker, snippet_variants, source_label, indent, language, format"
        ],
    ),
    (
        "duplicate-table-name",
        replace("name: sm90-fp8", "name: sm100-bf16"),
        [f"{REG}:16: error: table name 'sm100-bf16' is used twice (first on line 3)"],
    ),
    (
        "target-dot-dot",
        replace(SMALL_TARGET, "    target: ../x.py"),
        [
            f"{REG}:25: error: table 'small-py': target '../x.py' resolves outside the repository ({{root}})"
        ],
    ),
    (
        "manifest-absolute-outside",
        replace("manifest: python/tuning_small.yaml", "manifest: /etc/hostname"),
        [
            f"{REG}:23: error: table 'small-py': manifest '/etc/hostname' resolves outside the repository ({{root}})"
        ],
    ),
    (
        "variant-dot-dot",
        replace(
            "{ranged: kernels/tuning_ranged.mojo.snippet}",
            "{ranged: kernels/../../r.snippet}",
        ),
        [
            f"{REG}:12: error: table 'sm100-ranged': snippet_variants 'kernels/../../r.snippet' "
            "resolves outside the repository ({root})"
        ],
    ),
    (
        "missing-required-key",
        replace("    end_marker: END-SMALL\n", ""),
        [f"{REG}:22: error: table 'small-py' is missing end_marker"],
    ),
    (
        "missing-everything",
        whole("tables:\n  - {}\n"),
        [
            f"{REG}:2: error: table is missing name, manifest, snippet, target, begin_marker, end_marker"
        ],
    ),
    (
        "table-not-a-mapping",
        whole("tables:\n  - just a string\n"),
        [
            f"{REG}:2: error: each table must be a mapping, got the scalar 'just a string'"
        ],
    ),
    (
        "table-a-set",  # a mapping node with another tag: before, an internal error
        whole(
            "tables:\n  - !!set {name: x, manifest: m.yaml, snippet: s, target: t, begin_marker: B, end_marker: E}\n"
        ),
        [f"{REG}:2: error: each table must be a mapping, got a !!set"],
    ),
    (
        "registry-a-set",
        whole("!!set {tables: null}\n"),
        [f"{REG}:1: error: expected a mapping with a 'tables' list, got a !!set"],
    ),
    (
        "unknown-language",
        replace("language: python", "language: rust"),
        [
            f"{REG}:29: error: table 'small-py': unknown language 'rust' (choose from mojo, python, cpp)"
        ],
    ),
    (
        "tables-not-a-list",
        whole("tables:\n  name: x\n"),
        [f"{REG}:2: error: 'tables' must be a list of mappings, got a mapping"],
    ),
    (
        "duplicate-top-level-key",
        whole("tables: []\ntables: []\n"),
        [
            f"{REG}:2: error: key 'tables' appears twice in one mapping (first on line 1)"
        ],
    ),
    (
        "duplicate-key-in-table",
        replace(
            "    begin_marker: BEGIN-SMALL\n",
            "    begin_marker: BEGIN-SMALL\n    begin_marker: BEGIN-SMALL\n",
        ),
        [
            f"{REG}:27: error: key 'begin_marker' appears twice in one mapping (first on line 26)"
        ],
    ),
    (
        "unknown-top-level-key",
        lambda text: text.replace("tables:\n", "table:\n", 1),
        [
            f"{REG}:2: error: unknown top-level key 'table' (expected 'tables', and optionally 'defaults')"
        ],
    ),
    (
        "empty-file",
        whole(""),
        [
            f"{REG}: error: expected a mapping with a 'tables' list, got an empty document"
        ],
    ),
    (
        "invalid-yaml",
        whole("tables:\n  - name: [unclosed\n"),
        [
            f"{REG}:3: error: invalid YAML: while parsing a flow sequence did not find expected ',' or ']'"
        ],
    ),
    (
        "every-table-error-listed",
        chain(
            replace(SM90_MANIFEST, SM90_MANIFEST.replace("manifest", "manfest")),
            replace("name: sm100-ranged", "name: sm100-bf16"),
        ),
        [
            f"{REG}:9: error: table name 'sm100-bf16' is used twice (first on line 3)",
            f"{REG}:17: error: unknown key 'manfest' in table; did you mean 'manifest'?",
        ],
    ),
]


def make_stale(repo: Path) -> None:
    manifest = repo / "kernels" / "tuning_table_sm100_bf16.yaml"
    text = manifest.read_text()
    assert text.count("N: 2560") == 1
    manifest.write_text(text.replace("N: 2560", "N: 2688"))


def run_main(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_baseline_layout_is_fresh(
    codegen_repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """The starting point of every case: a valid registry, every region fresh."""
    assert run_main(["--check"], capsys) == (0, "", "")


@pytest.mark.parametrize(
    ("mutate", "expected"), [(m, e) for _, m, e in CASES], ids=[c[0] for c in CASES]
)
@pytest.mark.parametrize("check", [False, True], ids=["regenerate", "check"])
def test_bad_registry(
    codegen_repo: object,
    capsys: pytest.CaptureFixture[str],
    mutate: Mutation,
    expected: list[str],
    check: bool,
) -> None:
    root = Path.cwd()
    make_stale(root)
    registry = root / REG
    registry.write_text(mutate(registry.read_text()))
    before = snapshot_tree(root)
    code, out, err = run_main(["--check"] if check else [], capsys)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        line.replace("{root}", str(root.resolve())) for line in expected
    ]
    assert snapshot_tree(root) == before


def test_symlink_pointing_outside_is_refused(
    codegen_repo: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = Path.cwd()
    make_stale(root)
    outside = tmp_path / "outside.yaml"
    outside.write_text("params:\n- {M: 1, FAST: true, EXTRA: null}\n")
    (root / "python" / "link.yaml").symlink_to(outside)
    registry = root / REG
    registry.write_text(
        registry.read_text().replace(
            "manifest: python/tuning_small.yaml", "manifest: python/link.yaml"
        )
    )
    before = snapshot_tree(root)
    assert run_main([], capsys) == (
        2,
        "",
        f"{REG}:23: error: table 'small-py': manifest 'python/link.yaml' resolves outside the repository ({root.resolve()})\n",
    )
    assert snapshot_tree(root) == before


def test_symlink_inside_the_repository_is_accepted(
    codegen_repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """The refusal is about where a path resolves, not about symlinks as such."""
    root = Path.cwd()
    (root / "python" / "link.snippet").symlink_to("small.py.snippet")
    registry = root / REG
    registry.write_text(
        registry.read_text().replace(
            "snippet: python/small.py.snippet", "snippet: python/link.snippet"
        )
    )
    assert run_main(["--check"], capsys) == (0, "", "")


MISSING_CASES = [
    (
        "one-missing-manifest",
        [("manifest: python/tuning_small.yaml", "manifest: python/nope.yaml")],
        ["python/nope.yaml: error: no such file"],
    ),
    (
        "missing-snippet-and-manifest-in-two-targets",
        [
            (
                "snippet: kernels/tuning_sm90.mojo.snippet",
                "snippet: kernels/nope.mojo.snippet",
            ),
            ("manifest: python/tuning_small.yaml", "manifest: python/nope.yaml"),
        ],
        [
            "kernels/nope.mojo.snippet: error: no such file",
            "python/nope.yaml: error: no such file",
        ],
    ),
    (
        "missing-target",
        [("target: python/dispatch.py", "target: python/gone.py")],
        ["python/gone.py: error: no such file"],
    ),
]


@pytest.mark.parametrize(
    ("edits", "expected"),
    [(e, x) for _, e, x in MISSING_CASES],
    ids=[c[0] for c in MISSING_CASES],
)
@pytest.mark.parametrize("check", [False, True], ids=["regenerate", "check"])
def test_missing_file_while_other_tables_are_fine(
    codegen_repo: object,
    capsys: pytest.CaptureFixture[str],
    edits: list[tuple[str, str]],
    expected: list[str],
    check: bool,
) -> None:
    """All or nothing: the stale sm100-bf16 region is not written because another table fails."""
    root = Path.cwd()
    make_stale(root)
    registry = root / REG
    text = registry.read_text()
    for old, new in edits:
        assert text.count(old) == 1
        text = text.replace(old, new)
    registry.write_text(text)
    before = snapshot_tree(root)
    code, out, err = run_main(["--check"] if check else [], capsys)
    assert (code, out, err.splitlines()) == (2, "", expected)
    assert snapshot_tree(root) == before


def test_config_file_missing(
    codegen_repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot_tree(Path.cwd())
    assert run_main(["--config", "nope.yaml"], capsys) == (
        2,
        "",
        "nope.yaml: error: no such file\n",
    )
    assert snapshot_tree(Path.cwd()) == before


def test_no_registry_up_to_the_git_root(
    git_repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search stops at the git root: a registry above it is not used."""
    (git_repo.parent / REG).write_text("tables: []\n")
    sub = git_repo / "src"
    sub.mkdir()
    monkeypatch.chdir(sub)
    assert run_main(["--check"], capsys) == (
        2,
        "",
        f"{sub}: error: no .tuning-codegen.yaml found here or in a parent folder up to the git root; "
        "create one, pass --config, or use the single-table flags (see --help)\n",
    )


def test_real_script_exits_2_without_traceback(codegen_repo: object) -> None:
    """The installed console script, not just ``main``: one line, exit 2."""
    root = Path.cwd()
    make_stale(root)
    registry = root / REG
    registry.write_text(
        registry.read_text().replace("language: python", "language: rust")
    )
    before = snapshot_tree(root)
    script = Path(sys.executable).with_name("tuning-codegen")
    done = subprocess.run(
        [str(script)], cwd=root, capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"{REG}:29: error: table 'small-py': unknown language 'rust' (choose from mojo, python, cpp)\n",
    )
    assert snapshot_tree(root) == before


def snapshot_tree(root: Path) -> dict[str, bytes]:
    """Every file (symlinks as their target text) outside .git, with its bytes."""
    result: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if ".git" in rel.parts:
            continue
        if path.is_symlink():
            result[rel.as_posix()] = b"-> " + os.readlink(path).encode()
        elif path.is_file():
            result[rel.as_posix()] = path.read_bytes()
    return result
