"""Each stale hunk names the entry it falls in, as git's hunk headers name a function:
``@@ -20,7 +20,7 @@ # index: [3] M=256/N=4096/K=4096`` (the entry's ``index:`` line
and its shape keys ``M``, ``N``, ``K`` and a range's ``M_END``, as the manifest now
has them), in the text diff, in GitHub's annotation and diff, and in the JSON
document (a table's ``entry``, and its diff). Before, a stale hunk in a long table
read ``@@ -20,7 +20,7 @@`` and nothing said which entry changed.

What the header names is known from the edit the test makes; ``git apply`` and
``patch`` still accept every diff (they skip the text after ``@@``), and give the
file that regenerating writes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from support import PY, SCRIPT, SMALL

from tuning_codegen.diff import unified_diff

BF16 = "kernels/tuning_table_sm100_bf16.yaml"
RANGED = "kernels/tuning_table_sm100_ranged.yaml"
MOJO = "kernels/tuning_configs.mojo"
HEADER = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@(.*)$", re.MULTILINE)


def tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=120)


def retune(repo: Any) -> None:
    """Change the first bf16 entry (M=16, N=2560), the second ranged entry (M=64 up to
    512, N and K from its defaults) and the second small-py entry (M=64 -> 128)."""
    repo.edit(BF16, "  N: 2560\n", "  N: 2688\n")
    repo.edit(
        RANGED,
        "  CLUSTER_M: 2\n  SWAP_AB: False\n",
        "  CLUSTER_M: 4\n  SWAP_AB: False\n",
    )
    repo.edit(SMALL, "M: 64", "M: 128")


NAMED = {
    MOJO: [
        " # index: [0] M=16/N=2688/K=8192",
        " # index: [1] M=64/M_END=512/N=4096/K=14336",
    ],
    PY: [" # index: [1] M=128"],
}


def test_each_stale_hunk_names_its_entry_in_the_text_diff(codegen_repo: Any) -> None:
    retune(codegen_repo)
    done = tool("--check")
    assert done.returncode == 1, done.stderr
    diffs = done.stdout.split("diff --git ")[1:]
    assert [HEADER.findall(d) for d in diffs] == [NAMED[MOJO], NAMED[PY]]


def test_github_and_json_name_the_entry_of_each_stale_region(codegen_repo: Any) -> None:
    retune(codegen_repo)
    github = tool("--check", "--format", "github").stdout
    for table, entry in (("sm100-bf16", NAMED[MOJO][0]), ("small-py", NAMED[PY][0])):
        assert f"the region of table '{table}' is stale (first in{entry}): " in github
    assert HEADER.findall(github) == [*NAMED[MOJO], *NAMED[PY]]
    document = json.loads(tool("--check", "--format", "json").stdout)
    entries = {t["name"]: t.get("entry") for t in document["tables"]}
    assert (
        entries
        == {
            "sm100-bf16": NAMED[MOJO][0][1:],
            "sm100-ranged": NAMED[MOJO][1][1:],
            "sm90-fp8": None,  # fresh
            "small-py": NAMED[PY][0][1:],
        }
    )
    assert [HEADER.findall(f["diff"]) for f in document["files"]] == [
        NAMED[MOJO],
        NAMED[PY],
    ]


FENCE = re.compile(r"^(`{3,})diff\n(.*?)^\1$", re.MULTILINE | re.DOTALL)


def test_markdown_names_the_entry_of_each_stale_region_and_hunk(
    codegen_repo: Any, tmp_path: Path
) -> None:
    """A bullet per stale region with its first changed line and entry, and each
    file's diff fenced, its hunks named as text's are and applying as they do."""
    retune(codegen_repo)
    done = tool("--check", "--format", "markdown")
    assert done.returncode == 1, done.stderr
    out = done.stdout
    assert out.startswith("### tuning-codegen: 3 stale regions in 2 files\n")
    bullets = re.findall(
        r"^- stale: `([^`]+)`, table `([^`]+)`, in `([^`]+)`$", out, re.M
    )
    assert [(t, e) for _, t, e in bullets] == [
        ("sm100-bf16", NAMED[MOJO][0][1:]),
        ("sm100-ranged", NAMED[MOJO][1][1:]),
        ("small-py", NAMED[PY][0][1:]),
    ]
    text = tool("--check").stdout
    removed = _removed_lines(text)
    for where, _, _ in bullets:  # each names a line the text diff takes out
        path, line = where.rsplit(":", 1)
        assert int(line) in removed[path], where
    blocks = [b for _, b in FENCE.findall(out)]
    assert [HEADER.findall(b) for b in blocks] == [NAMED[MOJO], NAMED[PY]]
    assert "".join(blocks) == text.split("3 stale regions")[0]
    quiet = tool("--check", "--format", "markdown", "-q").stdout
    assert "```" not in quiet and quiet.count("\n- stale: ") == 3


def _removed_lines(diff: str) -> dict[str, set[int]]:
    """Per file of a unified diff, the old lines it takes out."""
    out: dict[str, set[int]] = {}
    old, lines = 0, set()
    for line in diff.splitlines():
        if line.startswith("+++ b/"):
            lines = out.setdefault(line[6:], set())
        elif line.startswith("@@ "):
            old = int(line.split()[1][1:].split(",")[0])
        elif line.startswith("-") and not line.startswith("---"):
            lines.add(old)
            old += 1
        elif line.startswith(" "):
            old += 1
    return out


def test_markdown_shows_every_name_as_code(tmp_path: Path) -> None:
    """A name with backticks, a pipe or Markdown in it stays code: the span's
    backticks outnumber the name's."""
    from tuning_codegen.mdreport import code, fenced

    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert code("[x](http://e) <b>") == "`[x](http://e) <b>`"
    assert fenced("```\n", "diff") == "````diff\n```\n````\n"


def test_diffs_with_named_hunks_apply_with_git_and_patch(
    codegen_repo: Any, tmp_path: Path
) -> None:
    """An entry inserted at the top of the bf16 table: every later ``index:`` line
    changes, each hunk names its own entry; the whole diff still applies and gives
    what regenerating writes."""
    first = "- <<: *defaults\n  M: 8\n  N: 1024\n  K: 512\n  MMA_M: 64\n  MMA_N: 8\n"
    first += "  CLUSTER_M: 1\n"
    codegen_repo.edit(BF16, "# decode shapes\n", f"# decode shapes\n{first}")
    retune(codegen_repo)
    before = {rel: codegen_repo.path(rel).read_bytes() for rel in (MOJO, PY)}
    patch = tool("--check").stdout.rsplit("\n3 stale regions", 1)[0] + "\n"
    named = HEADER.findall(patch.split("diff --git a/python")[0])
    assert named[0] == " # index: [0] M=8/N=1024/K=512" and len(named) > 3
    assert all(re.fullmatch(r" # index: \[\d+\] M=\d+.*", name) for name in named)
    (tmp_path / "change.diff").write_text(patch)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "apply", str(tmp_path / "change.diff")], env=env, check=True)
    applied = {rel: codegen_repo.path(rel).read_bytes() for rel in (MOJO, PY)}
    for rel, data in before.items():
        codegen_repo.path(rel).write_bytes(data)
    assert tool().returncode == 0
    assert {rel: codegen_repo.path(rel).read_bytes() for rel in (MOJO, PY)} == applied
    for rel, data in before.items():  # patch(1), from the same diff
        codegen_repo.path(rel).write_bytes(data)
    subprocess.run(
        ["patch", "-s", "-p1", "-i", str(tmp_path / "change.diff")], check=True
    )
    assert {rel: codegen_repo.path(rel).read_bytes() for rel in (MOJO, PY)} == applied


def test_a_heading_with_any_text_keeps_the_diff_applicable(tmp_path: Path) -> None:
    old = "".join(f"# index: [{i}]\nCfg(M={i}),\n" for i in range(40))
    new = old.replace("Cfg(M=3)", "Cfg(M=33)").replace("Cfg(M=30)", "Cfg(M=31)")
    patch = unified_diff(
        old, new, "a/t", "b/t", heading=lambda line: f"at {line}: @@ x"
    )
    assert HEADER.findall(patch) == [" at 7: @@ x", " at 61: @@ x"]
    (tmp_path / "t").write_text(old)
    (tmp_path / "change.diff").write_text(patch)
    subprocess.run(["git", "apply", "change.diff"], cwd=tmp_path, check=True)
    assert (tmp_path / "t").read_text() == new
