"""The hook judges the commit (the index), not the working tree,
and file names are file names. Every test commits through real ``git commit`` with real
``pre-commit`` running the published hooks' fields (``support.install``).

- a registered file the commit needs must be in the index: an untracked new manifest,
  snippet or target named by a staged registry is refused with one line saying to
  ``git add`` it;
- a sparse checkout can commit: skip-worktree entries count as present, until a table
  the commit touches needs to read one;
- a target inside a git submodule is refused (checked out or not), never rewritten;
- ``--`` ends the options: staged files named ``-h``, ``--check`` or ``-notes.txt``
  are files;
- the hooks run at commit-time stages only;
- a legal 245-byte target name is regenerated through the hook.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import REG, Hooked, env_for, install, project_hooks, status_line

pytestmark = (
    pytest.mark.slow
)  # real commits through pre-commit, submodules, sparse checkouts

REGENERATE = project_hooks()["tuning-codegen"]["name"]
CHECK = project_hooks()["tuning-codegen-check"]["name"]
BF16 = "kernels/tuning_table_sm100_bf16.yaml"
MOJO = "kernels/tuning_configs.mojo"
SMALL = "python/tuning_small.yaml"
PY = "python/dispatch.py"
NEW_TABLE = """\
  - name: new-py
    manifest: python/new.yaml
    snippet: python/new.py.snippet
    target: python/new_dispatch.py
    begin_marker: BEGIN-NEW
    end_marker: END-NEW
    language: python
"""
NEW_FILES = {
    "python/new.yaml": "params:\n- M: 1\n",
    "python/new.py.snippet": "Config(m=[@M])\n",
    "python/new_dispatch.py": "CONFIGS = [\n    # BEGIN-NEW\n    # END-NEW\n]\n",
}


def failed(hooked: Any, name: str, *lines: str) -> None:
    """The commit fails with exit 2 and exactly these error lines; nothing moved."""
    start = hooked.head()
    before = hooked.repo.snapshot()
    done = hooked.commit("change")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, name) == "Failed"
    assert "- exit code: 2" in done.stdout, done.stdout
    body = done.stdout.split("- exit code: 2\n\n", 1)[1]
    assert body == "".join(line + "\n" for line in lines) + "\n"
    assert hooked.head() == start
    assert hooked.repo.snapshot() == before


def add_new_table(repo: Any) -> None:
    for rel, text in NEW_FILES.items():
        repo.path(rel).write_text(text)
    repo.registry.write_text(repo.registry.read_text() + NEW_TABLE)


@pytest.mark.parametrize("hook", ["tuning-codegen", "tuning-codegen-check"])
def test_untracked_files_named_by_a_staged_registry_are_refused(
    codegen_repo: Any, pre_commit_home: Path, hook: str
) -> None:
    hooked = install(codegen_repo, pre_commit_home, hook)
    add_new_table(codegen_repo)
    codegen_repo.git("add", REG, "python/new_dispatch.py")  # manifest, snippet: not
    untracked = "so the commit would not hold it: git add it"
    failed(
        hooked,
        REGENERATE if hook == "tuning-codegen" else CHECK,
        f"python/new.yaml: error: untracked, but it is the manifest of table "
        f"'new-py' in {REG}, {untracked}",
        f"python/new.py.snippet: error: untracked, but it is the snippet of table "
        f"'new-py' in {REG}, {untracked}",
    )
    codegen_repo.git("add", "python/new.yaml", "python/new.py.snippet")
    done = hooked.commit("new table")
    if hook == "tuning-codegen":  # the empty region is filled: review, add, commit
        assert "regenerated python/new_dispatch.py (tables: new-py)\n" in done.stdout
        codegen_repo.git("add", "python/new_dispatch.py")
        done = hooked.commit("new table")
        assert done.returncode == 0, done.stdout
    else:
        assert done.returncode != 0 and "- exit code: 1" in done.stdout, done.stdout


def test_an_untracked_target_is_refused(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    add_new_table(codegen_repo)
    codegen_repo.git("add", REG, "python/new.yaml", "python/new.py.snippet")
    failed(
        hooked,
        REGENERATE,
        "python/new_dispatch.py: error: untracked, but it is the target of table "
        f"'new-py' in {REG}, so the commit would not hold it: git add it",
    )


def test_a_registered_file_that_exists_nowhere_is_named(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    add_new_table(codegen_repo)
    codegen_repo.path("python/new.yaml").unlink()
    codegen_repo.git("add", REG, "python/new.py.snippet", "python/new_dispatch.py")
    failed(
        hooked,
        REGENERATE,
        f"python/new.yaml: error: no such file, but it is the manifest of table "
        f"'new-py' in {REG}; create it and git add it, or change the registry",
    )


def test_a_sparse_checkout_commits(codegen_repo: Any, pre_commit_home: Path) -> None:
    """kernels/ is outside the cone: its registered files are skip-worktree entries,
    absent from disk. Before, every one was 'deleted or renamed in this commit'."""
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    codegen_repo.git("sparse-checkout", "set", "--cone", "python", "docs")
    assert not codegen_repo.path(BF16).exists()
    codegen_repo.path("docs/notes.txt").write_text("notes, sparse\n")
    codegen_repo.git("add", "docs/notes.txt")
    done = hooked.commit("notes")
    assert done.returncode == 0, done.stdout
    assert status_line(done.stdout, REGENERATE) == "Passed"

    codegen_repo.edit(SMALL, "M: 64", "M: 128")  # a table wholly inside the cone
    codegen_repo.git("add", SMALL)
    done = hooked.commit("retune small")
    assert f"regenerated {PY} (tables: small-py)\n" in done.stdout, done.stdout
    codegen_repo.git("add", PY)
    assert hooked.commit("retune small").returncode == 0

    codegen_repo.registry.write_text(codegen_repo.registry.read_text() + "# note\n")
    codegen_repo.git("add", REG)  # every table is touched: read from the index
    done = hooked.commit("registry note")
    assert done.returncode == 0, done.stdout
    assert "deleted or renamed" not in done.stdout

    staged = codegen_repo.git("show", f"HEAD:{BF16}").replace("N: 2560", "N: 2688")
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"], cwd=codegen_repo.root, input=staged,
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    codegen_repo.git("update-index", "--cacheinfo", f"100644,{blob},{BF16}")
    start, before = hooked.head(), codegen_repo.snapshot()
    done = hooked.commit("retune bf16, outside the cone")
    assert done.returncode != 0 and "- exit code: 2" in done.stdout, done.stdout
    assert (
        f"{MOJO}: error: outside the sparse checkout, but table 'sm100-bf16' needs "
        "it to regenerate; add its folder with git sparse-checkout add\n"
    ) in done.stdout
    assert (hooked.head(), codegen_repo.snapshot()) == (start, before)


def _submodule_layout(tmp_path: Path, make: Callable[[Path], Any]) -> Any:
    """A superproject whose small-py target lives in the submodule ``sub``."""
    inner = make(tmp_path / "inner").root
    repo = make(tmp_path / "super")
    (inner / "dispatch.py").write_bytes(repo.path(PY).read_bytes())
    git(inner, "add", "dispatch.py")
    git(inner, "commit", "-q", "-m", "dispatch")
    repo.path(PY).unlink()
    repo.edit(REG, "target: python/dispatch.py", "target: sub/dispatch.py")
    git(repo.root, "submodule", "add", "-q", f"file://{inner}", "sub")
    repo.commit_all("tables, with a target in a submodule")
    return repo


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "protocol.file.allow=always", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


def test_a_target_inside_a_submodule_is_refused(
    git_repo: Path,
    tmp_path: Path,
    pre_commit_home: Path,
    new_codegen_repo: Callable[[Path], Any],
) -> None:
    repo = _submodule_layout(tmp_path, new_codegen_repo)
    hooked = install(repo, pre_commit_home, "tuning-codegen")
    repo.edit(SMALL, "M: 64", "M: 128")
    repo.git("add", SMALL)
    inner_before = repo.path("sub/dispatch.py").read_bytes()
    refused = (
        "sub/dispatch.py: error: inside the git submodule 'sub', but it is the "
        f"target of table 'small-py' in {REG}: a commit of this repository cannot "
        "contain it; keep the table's files in this repository"
    )
    failed(hooked, REGENERATE, refused)
    assert repo.path("sub/dispatch.py").read_bytes() == inner_before

    # a clone that did not check the submodule out: sub/ is an empty folder
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo.root), str(clone))
    cloned = type(repo)(clone)
    for key in ("user.name", "user.email"):
        cloned.git("config", key, repo.git("config", key).strip())
    hooked = Hooked(cloned, env_for(pre_commit_home))  # the config came with it
    assert hooked.pre_commit("install").returncode == 0
    cloned.edit(SMALL, "M: 64", "M: 128")
    cloned.git("add", SMALL)
    assert not cloned.path("sub/dispatch.py").exists()
    failed(hooked, REGENERATE, refused)


DASHED = ("-h", "--check", "-notes.txt")


@pytest.mark.parametrize("hook", ["tuning-codegen", "tuning-codegen-check"])
def test_staged_files_named_like_options_are_file_names(
    codegen_repo: Any, pre_commit_home: Path, hook: str
) -> None:
    """Before, -h printed the help and passed (a stale region committed), --check
    turned the regenerating hook into a check, -notes.txt failed every commit."""
    hooked = install(codegen_repo, pre_commit_home, hook)
    for name in DASHED:
        codegen_repo.path(name).write_text(f"a file named {name}\n")
    codegen_repo.git("add", "--", *DASHED)
    done = hooked.commit("dashed names only")
    assert done.returncode == 0, done.stdout
    assert "Usage:" not in done.stdout and "No such option" not in done.stdout

    for name in DASHED:
        codegen_repo.path(name).write_text(f"{name}, again\n")
    codegen_repo.edit(BF16, "N: 2560", "N: 2688")
    codegen_repo.git("add", "--", BF16, *DASHED)
    done = hooked.commit("dashed names and a stale table")
    assert done.returncode != 0, done.stdout
    assert "Usage:" not in done.stdout and "No such option" not in done.stdout
    if hook == "tuning-codegen":  # regenerated, not merely checked
        assert f"regenerated {MOJO} (tables: sm100-bf16)\n" in done.stdout
        assert "            N=2688,\n" in codegen_repo.mojo_target.read_text()
    else:
        assert "1 stale region in 1 file" in done.stdout


def test_kprofile_takes_file_names_after_double_dash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from kprofile.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "-h.csv").write_text("M,met (ms)\n1,2.0\n")
    assert main(["--format", "json", "--", "-h.csv"]) == 0
    assert '"inputs": [\n    "-h.csv"\n  ]' in capsys.readouterr().out


def test_the_hooks_run_at_commit_time_stages_only(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    codegen_repo.edit(BF16, "N: 2560", "N: 2688")
    codegen_repo.git("commit", "-q", "--no-verify", "-am", "stale on purpose")
    before = codegen_repo.snapshot()
    for stage in ("pre-push", "post-checkout", "pre-rebase"):
        done = hooked.pre_commit("run", "--all-files", "--hook-stage", stage)
        assert done.returncode == 0, done.stdout
        assert REGENERATE not in done.stdout
        assert codegen_repo.snapshot() == before
    for stage in ("manual", "pre-merge-commit", "pre-commit"):
        codegen_repo.git("checkout", "-q", "--", MOJO)
        done = hooked.pre_commit("run", "--all-files", "--hook-stage", stage)
        assert done.returncode == 1, (stage, done.stdout)
        assert status_line(done.stdout, REGENERATE) == "Failed"


def test_a_245_byte_target_name_is_regenerated_through_the_hook(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    """The longest name the temporary beside it could not carry before."""
    name = "d" * 242 + ".py"
    assert len(name.encode()) == 245
    codegen_repo.git("mv", PY, f"python/{name}")
    codegen_repo.edit(REG, "target: python/dispatch.py", f"target: python/{name}")
    codegen_repo.commit_all("a long target name")
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    codegen_repo.edit(SMALL, "M: 64", "M: 128")
    codegen_repo.git("add", SMALL)
    done = hooked.commit("retune")
    assert f"regenerated python/{name} (tables: small-py)\n" in done.stdout
    assert "Config(m=128, fast=False" in codegen_repo.path(f"python/{name}").read_text()
    codegen_repo.git("add", f"python/{name}")
    assert hooked.commit("retune").returncode == 0


NO_OP_PROBE = """\
import sys
from tuning_codegen.cli import main
code = main(sys.argv[1:])
print(code, " ".join(sorted(sys.modules)))
"""


@pytest.mark.parametrize(
    "args",
    [
        ["--hook", "--", "docs/notes.txt"],
        ["--hook", "--check"],
        ["--hook", "-q", "--config", ".tuning-codegen.yaml", "docs/notes.txt"],
        ["--hook", "--format", "github", "--config=.tuning-codegen.yaml", "--check"],
    ],
)
def test_a_run_touching_no_table_needs_neither_click_nor_the_pipeline(
    codegen_repo: Any, args: list[str]
) -> None:
    """What keeps the no-op hook within 2.5x a bare ``import yaml``
    (``bench/bench_codegen.py`` measures it); a touched table takes the full path.
    ``dataclasses`` (with ``inspect``, ``ast`` and ``dis``) alone is about 6 ms of a
    55 ms no-op: the records it reads are NamedTuples."""
    heavy = {"click", "subprocess", "tuning_codegen.command", "tuning_codegen.generate"}
    heavy |= {"dataclasses", "inspect"}
    done = subprocess.run(
        [sys.executable, "-c", NO_OP_PROBE, *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    code, *modules = done.stdout.split()
    assert (code, done.stderr) == ("0", "")
    assert not heavy & set(modules)
    codegen_repo.edit(BF16, "N: 2560", "N: 2688")
    codegen_repo.git("add", BF16)
    done = subprocess.run(
        [sys.executable, "-c", NO_OP_PROBE, *args[:-1], BF16],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    *printed, probe = done.stdout.splitlines()
    code, *modules = probe.split()
    assert code == "1" and "click" in modules  # the commit is stale: the full path
    assert any("stale region" in line for line in printed)


def test_a_manifest_only_marked_intent_to_add_is_refused(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    """``git add -N`` puts a name in the index but no content in the commit."""
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    add_new_table(codegen_repo)
    codegen_repo.git("add", REG, "python/new.py.snippet", "python/new_dispatch.py")
    codegen_repo.git("add", "-N", "python/new.yaml")
    done = hooked.commit("new table")
    assert done.returncode != 0 and "- exit code: 2" in done.stdout, done.stdout
    assert (
        "python/new.yaml: error: untracked, but it is the manifest of table 'new-py' "
        f"in {REG}, so the commit would not hold it: git add it\n"
    ) in done.stdout
