"""The --ranges loop in a real git repository: the fixture M sweep -> ``kprofile --ranges
M -o`` -> ``tuning-codegen`` renders a ranged snippet ([@M], [@M_END], [@N], [@K]) into
a target -> commit -> a fresh ``tuning-codegen --check`` passes; then the same sweep
through ``--update`` changes nothing.

Every command is the installed console script, run in a subprocess with every ``GIT_*``
variable removed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from ranges_support import check_ranges, raw_runs
from support import BIN, FIXTURES

from tuning_codegen.manifest import load_manifest

PICKLES = ["results/N4096_K4096.pkl", "results/N8192_K2048.pkl"]
MANIFEST = "kernels/tuning_ranged.yaml"
TARGET = "kernels/dispatch.mojo"
REGISTRY = """\
tables:
  - name: ranged
    manifest: kernels/tuning_ranged.yaml
    snippet: kernels/ranged.mojo.snippet
    target: kernels/dispatch.mojo
    begin_marker: BEGIN-RANGED-CONFIGS
    end_marker: END-RANGED-CONFIGS
"""
TARGET_TEXT = """\
from .config import Index, MatmulConfig


def ranged_configs() -> List[MatmulConfig]:
    return [
        # BEGIN-RANGED-CONFIGS
        # END-RANGED-CONFIGS
    ]
"""


def run(
    root: Path, env: dict[str, str], *args: str | Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def repo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, dict[str, str]]:
    for name in [n for n in os.environ if n.startswith("GIT_")]:
        monkeypatch.delenv(name)
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))
    }
    root = tmp_path / "repo"
    (root / "kernels").mkdir(parents=True)
    shutil.copytree(FIXTURES / "sweep", root / "results")
    (root / ".tuning-codegen.yaml").write_text(REGISTRY)
    shutil.copyfile(
        FIXTURES / "codegen" / "ranges_sweep.mojo.snippet",
        root / "kernels" / "ranged.mojo.snippet",
    )
    (root / TARGET).write_text(TARGET_TEXT)
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.name", "Test User"],
        ["config", "user.email", "test@example.invalid"],
        ["config", "commit.gpgsign", "false"],
    ):
        assert run(root, env, "git", *args).returncode == 0
    return root, env


def rendered(entry: dict[str, object], index: int) -> str:
    """One entry as tuning-codegen writes it, spelled out from the manifest values."""
    swap = "True" if entry["SWAP_AB"] else "False"
    return (
        "        # Automatically generated from [tuning_ranged.yaml]\n"
        f"        # index: [{index}]\n"
        "        MatmulConfig(\n"
        f"            # M in [{entry['M']}, {entry['M_END']})\n"
        f"            M={entry['M']},\n"
        f"            M_end={entry['M_END']},\n"
        f"            N={entry['N']},\n"
        f"            K={entry['K']},\n"
        f"            block_tile_shape=Index({entry['BM']}, {entry['BN']}),\n"
        f"            swap_ab={swap},\n"
        "        ),\n"
    )


def ranged_table(root: Path, env: dict[str, str]) -> list[dict[str, object]]:
    """``kprofile --ranges M -o``: the manifest's entries, checked against the runs."""
    out = MANIFEST.removesuffix(".yaml")
    done = run(root, env, BIN / "kprofile", *PICKLES, "--ranges", "M", "-o", out)
    assert (done.returncode, done.stderr) == (0, f"wrote {MANIFEST} (12 entries)\n")
    entries = [dict(e.values) for e in load_manifest(root / MANIFEST).entries]
    check_ranges(
        entries,
        raw_runs([root / p for p in PICKLES]),
        groups=["N", "K"],
        configs=["BM", "BN", "SWAP_AB"],
        tol=0.03,
    )
    return entries


def test_sweep_to_ranged_table_to_generated_code(
    repo: tuple[Path, dict[str, str]],
) -> None:
    root, env = repo
    entries = ranged_table(root, env)
    done = run(root, env, BIN / "tuning-codegen")
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        f"regenerated {TARGET} (tables: ranged)\n",
        "",
    )
    target = (root / TARGET).read_text()
    region = "".join(rendered(e, i) for i, e in enumerate(entries))
    begin = "        # BEGIN-RANGED-CONFIGS\n"
    assert target == TARGET_TEXT.replace(begin, begin + region)
    first = "            M=16,\n            M_end=144,\n            N=4096,\n"
    assert first + "            K=4096,\n" in target

    assert run(root, env, "git", "add", "--all").returncode == 0
    commit = run(root, env, "git", "commit", "-q", "-m", "ranged dispatch table")
    assert commit.returncode == 0, commit.stderr
    check = run(root, env, BIN / "tuning-codegen", "--check")
    assert (check.returncode, check.stdout, check.stderr) == (0, "", "")


def test_update_with_the_same_sweep_changes_nothing(
    repo: tuple[Path, dict[str, str]],
) -> None:
    root, env = repo
    ranged_table(root, env)
    before = (root / MANIFEST).read_bytes()
    update = ("--ranges", "M", "--update", MANIFEST)
    done = run(root, env, BIN / "kprofile", *PICKLES, *update)
    assert (done.returncode, done.stderr) == (0, "")
    unchanged = "unchanged     2\nfile          nothing to change: not rewritten\n"
    assert unchanged in done.stdout
    assert (root / MANIFEST).read_bytes() == before
