"""The diff ``--update --dry-run`` prints applies as the docs say: with ``patch -p0``
or ``git apply -p0`` (the real tools) from the manifest's folder, however the
manifest was named on the command line and wherever kprofile ran, and it makes the
file ``--update`` writes.

Results: ``fixtures/results/run2`` (kbench's recipe); manifest: the curated
``fixtures/update/tuning_table_bench_matmul.yaml``, as it is and with CRLF line
endings.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support import FIXTURES, MANIFEST, run

RUN2 = sorted(str(p) for p in (FIXTURES / "results" / "run2").glob("*.pkl"))
NAME = "tuning_table.yaml"


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(
        ["git", *args], cwd=folder, env=env, capture_output=True, text=True
    )


def _manifest(folder: Path, crlf: bool) -> Path:
    folder.mkdir(parents=True)
    data = MANIFEST.read_bytes()
    path = folder / NAME
    path.write_bytes(data.replace(b"\n", b"\r\n") if crlf else data)
    return path


def _spelled(how: str, manifest: Path, cwd: Path) -> str:
    if how == "absolute":
        return str(manifest)
    return os.path.relpath(manifest, cwd)


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
@pytest.mark.parametrize("how", ["below", "beside", "above", "absolute"])
def test_the_dry_run_diff_applies_from_the_manifests_folder(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    how: str,
    crlf: bool,
) -> None:
    manifest = _manifest(tmp_path / "repo" / "kernels", crlf)
    cwd = {
        "below": tmp_path / "repo",  # kernels/tuning_table.yaml
        "beside": tmp_path / "repo" / "kernels",  # tuning_table.yaml
        "above": tmp_path / "elsewhere",  # ../repo/kernels/tuning_table.yaml
        "absolute": tmp_path / "elsewhere",
    }[how]
    cwd.mkdir(exist_ok=True)
    monkeypatch.chdir(cwd)
    given = _spelled(how, manifest, cwd)
    before = manifest.read_bytes()
    code, out, err = run(capsys, *RUN2, "--update", given, "--dry-run", "--format",
                         "json")  # fmt: skip
    assert code == 0, err
    (diff,) = [s["notes"][0] for s in json.loads(out)["sections"]
               if s["view"] == "update-diff"]  # fmt: skip
    assert manifest.read_bytes() == before  # a dry run writes nothing
    patch_file = tmp_path / "update.patch"
    patch_file.write_bytes(diff.encode())

    written = _manifest(tmp_path / "written", crlf)
    code, _, err = run(capsys, *RUN2, "--update", str(written))
    assert code == 0, err
    assert written.read_bytes() != before

    by_patch = _manifest(tmp_path / "by-patch", crlf).parent
    done = subprocess.run(
        ["patch", "-p0", "--batch", "-i", str(patch_file)],
        cwd=by_patch,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (by_patch / NAME).read_bytes() == written.read_bytes()

    # git apply in the manifest's folder, a subfolder of a repository
    repo = tmp_path / "by-git"
    by_git = _manifest(repo / "kernels", crlf).parent
    assert _git(repo, "init", "-q").returncode == 0
    done = _git(by_git, "apply", "-p0", str(patch_file))
    assert done.returncode == 0, done.stderr
    assert (by_git / NAME).read_bytes() == written.read_bytes()


def test_the_diff_names_the_manifest_from_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _manifest(tmp_path / "kernels", False)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *RUN2, "--update", "kernels/" + NAME, "--dry-run")
    assert code == 0, err
    assert f"\n--- {NAME}\n+++ {NAME}\n@@ " in out
