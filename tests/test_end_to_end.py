"""The whole loop in a real git repository with the pre-commit hook installed:

fixture results -> ``kprofile --update`` -> commit fails (region regenerated, or its diff
printed by the check hook) -> ``git add`` -> commit passes -> ``tuning-codegen --check``.

Every command is the installed console script (next to ``sys.executable``), run in a
subprocess with every ``GIT_*`` variable removed, so a test run from inside a hook of the
outer repository cannot touch it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import BIN, PROJECT, local_hook

RUN2 = sorted((PROJECT / "fixtures" / "results" / "run2").glob("*.pkl"))
MANIFEST = "kernels/tuning_table.yaml"
TARGET = "kernels/matmul_configs.mojo"

WALKTHROUGH = PROJECT / "fixtures" / "walkthrough"  # what docs/walkthrough.md shows
REGISTRY = (WALKTHROUGH / ".tuning-codegen.yaml").read_text()
SNIPPET = (WALKTHROUGH / "kernels" / "matmul.mojo.snippet").read_text()
# The region left empty: the fixture's own is fresh; here tuning-codegen fills it.
TARGET_TEXT = re.sub(
    r"(# BEGIN-MATMUL-CONFIGS\n).*?( *# END-MATMUL-CONFIGS)",
    r"\1\2",
    (WALKTHROUGH / "kernels" / "matmul_configs.mojo").read_text(),
    flags=re.S,
)


class Repo:
    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root = root
        self.env = env

    def run(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(a) for a in args],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )

    def git(self, *args: str) -> str:
        done = self.run("git", *args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def commit(self, message: str) -> subprocess.CompletedProcess[str]:
        done = self.run("git", "commit", "-m", message)
        done.stdout += done.stderr  # pre-commit's report, whichever stream it used
        return done

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """Registry, curated manifest, snippet and a fresh committed Mojo target; no hook yet."""
    for name in [n for n in os.environ if n.startswith("GIT_")]:
        monkeypatch.delenv(name)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "PRE_COMMIT")) and k != "SKIP"
    }
    env.update(
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PRE_COMMIT_COLOR="never"
    )
    root = tmp_path / "repo"
    (root / "kernels").mkdir(parents=True)
    (root / ".tuning-codegen.yaml").write_text(REGISTRY)
    shutil.copyfile(
        PROJECT / "fixtures" / "update" / "tuning_table_bench_matmul.yaml",
        root / MANIFEST,
    )
    (root / "kernels" / "matmul.mojo.snippet").write_text(SNIPPET)
    (root / TARGET).write_text(TARGET_TEXT)
    repo = Repo(root, env)
    repo.git("init", "-q", "-b", "main")
    for key, value in (
        ("user.name", "Test User"),
        ("user.email", "test@example.invalid"),
        ("commit.gpgsign", "false"),
        ("core.autocrlf", "false"),
    ):
        repo.git("config", key, value)
    done = repo.run(BIN / "tuning-codegen")
    assert (done.returncode, done.stdout) == (
        0,
        f"regenerated {TARGET} (tables: matmul)\n",
    ), done.stderr
    assert (
        "        MatmulConfig(\n            M=256,\n            N=20480,\n            K=5376,\n            block_tile_shape=Index(128, 128),\n"
        in repo.read(TARGET)
    )
    repo.git("add", "--all")
    repo.git("commit", "-q", "-m", "matmul dispatch table")
    return repo


def install(repo: Repo, hook_id: str) -> None:
    config = {"repos": [{"repo": "local", "hooks": [local_hook(hook_id)]}]}
    (repo.root / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump(config, sort_keys=False)
    )
    repo.git("add", ".pre-commit-config.yaml")
    repo.git("commit", "-q", "-m", "pre-commit config")
    done = repo.run(sys.executable, "-m", "pre_commit", "install")
    assert done.returncode == 0, done.stdout + done.stderr


def status(output: str, hook_id: str) -> str:
    name = local_hook(hook_id)["name"]
    match = re.search(
        rf"^{re.escape(name)}\.+\(?([A-Za-z ]+?)\)?$", output, re.MULTILINE
    )
    assert match, output
    return match.group(1)


def kprofile_update(repo: Repo) -> None:
    done = repo.run(BIN / "kprofile", *RUN2, "--update", MANIFEST)
    assert (done.returncode, done.stderr) == (0, f"updated {MANIFEST}\n")
    assert (
        "  M=256/N=20480/K=5376  changed      0  BM: 128 -> 256, BN: 128 -> 64\n"
        in done.stdout
    )
    assert "  M=8/N=7168/K=2048     added        3  " in done.stdout


NEW_ENTRIES = [
    "            M=256,\n            N=20480,\n            K=5376,\n            block_tile_shape=Index(256, 64),\n            cluster_m=2,\n",
    "            M=4096,\n            N=4096,\n            K=4096,\n            block_tile_shape=Index(256, 128),\n            cluster_m=2,\n",
    "        # index: [3]\n        MatmulConfig(\n            M=8,\n            N=7168,\n            K=2048,\n            block_tile_shape=Index(64, 64),\n"
    "            cluster_m=1,\n            num_pipeline_stages=4,\n            swap_ab=True,\n            schedule=Schedule.ws_pingpong,\n",
]


def test_update_then_commit_regenerates_then_passes(repo: Repo) -> None:
    install(repo, "tuning-codegen")
    start = repo.head()
    kprofile_update(repo)
    repo.git("add", MANIFEST)

    done = repo.commit("Retune matmul from run2")
    assert done.returncode != 0, done.stdout
    assert status(done.stdout, "tuning-codegen") == "Failed"
    assert "- files were modified by this hook" in done.stdout
    assert f"regenerated {TARGET} (tables: matmul)\n" in done.stdout
    assert repo.head() == start
    target = repo.read(TARGET)
    for entry in NEW_ENTRIES:
        assert entry in target
    assert (
        "# index: [2]\n        MatmulConfig(\n            M=1024,\n            N=4096,\n            K=4096,\n"
        in target
    )  # the hand-tuned entry stays

    repo.git("add", TARGET)
    done = repo.commit("Retune matmul from run2")
    assert done.returncode == 0, done.stdout
    assert status(done.stdout, "tuning-codegen") == "Passed"
    assert sorted(
        repo.git("show", "--name-only", "--format=", "HEAD").split()
    ) == sorted([MANIFEST, TARGET])
    assert repo.git("status", "--porcelain") == ""
    check = repo.run(BIN / "tuning-codegen", "--check")
    assert (check.returncode, check.stdout, check.stderr) == (0, "", "")


def test_check_hook_fails_with_the_region_diff_and_writes_nothing(repo: Repo) -> None:
    install(repo, "tuning-codegen-check")
    start = repo.head()
    kprofile_update(repo)
    repo.git("add", MANIFEST)
    before = repo.read(TARGET)

    done = repo.commit("Retune matmul from run2")
    assert done.returncode != 0, done.stdout
    assert status(done.stdout, "tuning-codegen-check") == "Failed"
    assert (
        f"diff --git a/{TARGET} b/{TARGET}\n--- a/{TARGET}\n+++ b/{TARGET}\n"
        in done.stdout
    )
    assert (
        "-            block_tile_shape=Index(128, 128),\n+            block_tile_shape=Index(256, 64),\n"
        in done.stdout
    )
    assert "1 stale region in 1 file; run tuning-codegen to regenerate\n" in done.stdout
    assert repo.read(TARGET) == before and repo.head() == start

    regenerate = repo.run(BIN / "tuning-codegen")
    assert regenerate.stdout == f"regenerated {TARGET} (tables: matmul)\n"
    repo.git("add", TARGET)
    done = repo.commit("Retune matmul from run2")
    assert done.returncode == 0, done.stdout
    assert status(done.stdout, "tuning-codegen-check") == "Passed"
    assert repo.git("status", "--porcelain") == ""
