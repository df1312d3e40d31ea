"""fixtures/walkthrough/ is a working example repository: its hook is the published
one, its manifest the shipped curated table, its region fresh, and its Bazel rules the
same table as its registry."""

from __future__ import annotations

import subprocess

import yaml
from support import BIN, FIXTURES, local_hook

WALK = FIXTURES / "walkthrough"


def test_the_hook_is_the_published_one_run_from_the_environment() -> None:
    config = yaml.safe_load((WALK / ".pre-commit-config.yaml").read_text())
    (repo,) = config["repos"]
    (hook,) = repo["hooks"]
    published = local_hook("tuning-codegen")
    published["entry"] = published["entry"].replace(f"{BIN}/", "")
    assert repo["repo"] == "local" and hook == published


def test_the_manifest_is_the_shipped_curated_table() -> None:
    shipped = FIXTURES / "update" / "tuning_table_bench_matmul.yaml"
    assert (WALK / "kernels" / "tuning_table.yaml").read_bytes() == shipped.read_bytes()


def test_the_region_is_fresh() -> None:
    done = subprocess.run([str(BIN / "tuning-codegen"), "--check"], cwd=WALK,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_bazel_rules_are_the_registry() -> None:
    done = subprocess.run(
        [str(BIN / "tuning-codegen"), "--import-bazel", "kernels/BUILD.bazel"],
        cwd=WALK, capture_output=True, text=True, check=True,
    )  # fmt: skip
    imported = yaml.safe_load(done.stdout)["tables"]
    registry = yaml.safe_load((WALK / ".tuning-codegen.yaml").read_text())["tables"]
    assert imported == [{**t, "source_label": "tuning_table.yaml"} for t in registry]
