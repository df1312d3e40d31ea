"""Which files tuning-codegen reads and writes, in real repositories.

Symlinked targets are written through (the link stays); anything that is not a regular
file, too large, inside ``.git`` or read-only is refused with one line, exit 2, and
every file left as it was. Mode, owner and group of a rewritten file are kept.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from support import PROJECT, PY, SMALL
from support import run_codegen as run

from tuning_codegen.textio import MAX_BYTES
from tuning_codegen.transaction import temporary_path, write_text_atomic

FRESH_LINE = "    Config(m=64, fast=False"
STALE_LINE = "    Config(m=128, fast=False"


def make_small_stale(repo: object) -> None:
    repo.edit(SMALL, "M: 64", "M: 128")  # type: ignore[attr-defined]


def point_small_at(repo: object, target: str) -> None:
    repo.edit(".tuning-codegen.yaml", f"target: {PY}", f"target: {target}")  # type: ignore[attr-defined]


def test_symlinked_target_is_written_through_and_the_link_kept(
    codegen_repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    root = Path.cwd()
    (root / "python" / "link.py").symlink_to("dispatch.py")
    point_small_at(codegen_repo, "python/link.py")
    make_small_stale(codegen_repo)
    assert run([], capsys) == (0, "regenerated python/link.py (tables: small-py)\n", "")
    link = root / "python" / "link.py"
    assert link.is_symlink() and os.readlink(link) == "dispatch.py"
    assert STALE_LINE in (root / PY).read_text()
    assert run(["--check"], capsys) == (0, "", "")


def test_a_target_named_by_link_and_by_real_path_is_one_file(
    codegen_repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two tables, one naming the link, one the real file: one read, one write."""
    root = Path.cwd()
    os.symlink("kernels/tuning_configs.mojo", root / "configs.mojo")
    codegen_repo.edit(  # type: ignore[attr-defined]
        ".tuning-codegen.yaml",
        "    target: kernels/tuning_configs.mojo\n    begin_marker: BEGIN-TUNING-LIST-SM90",
        "    target: configs.mojo\n    begin_marker: BEGIN-TUNING-LIST-SM90",
    )
    codegen_repo.edit("kernels/tuning_table_sm90_fp8.yaml", "BN: 112", "BN: 128")  # type: ignore[attr-defined]
    codegen_repo.edit("kernels/tuning_table_sm100_bf16.yaml", "N: 2560", "N: 2688")  # type: ignore[attr-defined]
    code, out, err = run([], capsys)
    assert (code, err) == (0, "")
    assert (
        out
        == "regenerated kernels/tuning_configs.mojo (tables: sm100-bf16, sm90-fp8)\n"
    )
    text = (root / "kernels" / "tuning_configs.mojo").read_text()
    assert "N=2688," in text and "Index(128, 128, 128)" in text
    assert run(["--check"], capsys) == (0, "", "")


def test_symlinked_target_leaving_the_repository_is_refused(
    codegen_repo: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside.py"
    shutil.copyfile(Path.cwd() / PY, outside)
    (Path.cwd() / "python" / "away.py").symlink_to(outside)
    point_small_at(codegen_repo, "python/away.py")
    before = outside.read_bytes()
    code, out, err = run([], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f".tuning-codegen.yaml:25: error: table 'small-py': target 'python/away.py' "
        f"resolves outside the repository ({Path.cwd()})\n"
    )
    assert outside.read_bytes() == before


def test_kprofile_update_writes_through_a_symlinked_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kprofile.cli import main as kprofile

    folder = tmp_path / "demo"
    shutil.copytree(PROJECT / "fixtures" / "results", folder)
    (folder / "curated").mkdir()
    shutil.copyfile(
        PROJECT / "fixtures" / "update" / "tuning_table_bench_matmul.yaml",
        folder / "curated" / "table.yaml",
    )
    (folder / "table.yaml").symlink_to("curated/table.yaml")
    before = (folder / "curated" / "table.yaml").read_bytes()
    monkeypatch.chdir(folder)
    assert kprofile(["run2/M8_N7168_K2048.pkl", "--update", "table.yaml"]) == 0
    assert os.readlink(folder / "table.yaml") == "curated/table.yaml"
    after = (folder / "curated" / "table.yaml").read_bytes()
    assert after != before and b"M: 8\n" in after


@pytest.mark.parametrize(
    ("target", "shown"),
    [(".git/config", ".git/config"), (".GIT/config", ".GIT/config")],
)
def test_target_inside_git_folder_is_refused(
    codegen_repo: object, capsys: pytest.CaptureFixture[str], target: str, shown: str
) -> None:
    config = Path.cwd() / ".git" / "config"
    before = config.read_bytes()
    point_small_at(codegen_repo, target)
    code, out, err = run([], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f".tuning-codegen.yaml:25: error: table 'small-py': target '{shown}' "
        "is inside the repository's .git folder\n"
    )
    assert config.read_bytes() == before


def test_target_reaching_git_folder_through_a_symlink_is_refused(
    codegen_repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (Path.cwd() / "meta").symlink_to(".git")
    point_small_at(codegen_repo, "meta/config")
    assert run([], capsys)[2] == (
        ".tuning-codegen.yaml:25: error: table 'small-py': target 'meta/config' "
        "is inside the repository's .git folder\n"
    )


def test_single_table_mode_never_writes_inside_git(
    git_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (git_repo / "m.yaml").write_text("params:\n- {M: 1}\n")
    (git_repo / "s.snippet").write_text("C([@M])\n")
    inside = git_repo / ".git" / "tables.py"
    inside.write_text("# BEGIN-T\n# END-T\n")
    args = ["--manifest", "m.yaml", "--snippet", "s.snippet", "--target"]
    args += [".git/tables.py", "--begin-marker", "BEGIN-T", "--end-marker", "END-T"]
    code, out, err = run(args, capsys)
    assert (code, out) == (2, "")
    assert err == (
        f".git/tables.py: error: cannot write: {inside} is inside a .git folder\n"
    )
    assert inside.read_text() == "# BEGIN-T\n# END-T\n"


def test_fifo_manifest_is_refused_without_waiting(codegen_repo: object) -> None:
    """A FIFO blocks a reader until a writer comes: refused before opening for real.

    Run as a real process: if it blocked, the timeout (a hang guard) would fail it.
    """
    root = Path.cwd()
    (root / SMALL).unlink()
    os.mkfifo(root / SMALL)
    script = Path(sys.executable).with_name("tuning-codegen")
    done = subprocess.run(
        [str(script), "--check"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"{SMALL}: error: not a regular file (a FIFO)\n"


def test_socket_and_device_are_refused(
    codegen_repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    root = Path.cwd()
    (root / SMALL).unlink()
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(SMALL)
        assert run(["--check"], capsys)[2] == (
            f"{SMALL}: error: not a regular file (a socket)\n"
        )
    finally:
        server.close()
    args = ["--manifest", "kernels/tuning_table_sm90_fp8.yaml", "--snippet"]
    args += ["/dev/zero", "--target", "kernels/tuning_configs.mojo"]
    args += ["--begin-marker", "BEGIN-TUNING-LIST-SM90-FP8"]
    args += ["--end-marker", "END-TUNING-LIST-SM90-FP8"]
    assert run(args, capsys) == (
        2,
        "",
        "/dev/zero: error: not a regular file (a character device)\n",
    )


def test_oversized_input_is_refused(
    codegen_repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    with open(Path.cwd() / SMALL, "r+b") as handle:  # sparse: costs no disk
        handle.truncate(MAX_BYTES + 1)
    assert run(["--check"], capsys) == (
        2,
        "",
        f"{SMALL}: error: too large: {MAX_BYTES + 1} bytes (the limit is 64 MiB)\n",
    )


def test_mode_owner_and_group_are_kept(
    codegen_repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    target = Path.cwd() / PY
    if os.geteuid() == 0:  # give the file away, as another user's checkout would be
        uid, gid = 65534, 65534
    else:  # our own file, in the last of our groups
        uid, gid = os.getuid(), os.getgroups()[-1]
    os.chown(target, uid, gid)
    os.chmod(target, 0o640)
    make_small_stale(codegen_repo)
    old_inode = target.stat().st_ino
    assert run([], capsys)[0] == 0
    info = target.stat()
    assert info.st_ino != old_inode  # replaced by a rename, not rewritten in place
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (uid, gid, 0o640)
    assert STALE_LINE in target.read_text()


def test_read_only_target_is_an_error_and_nothing_is_written(
    codegen_repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two stale targets, the second read-only: neither is written (all or nothing)."""
    root = Path.cwd()
    codegen_repo.edit("kernels/tuning_table_sm90_fp8.yaml", "BN: 112", "BN: 128")  # type: ignore[attr-defined]
    make_small_stale(codegen_repo)
    os.chmod(root / PY, 0o444)
    before = codegen_repo.snapshot()  # type: ignore[attr-defined]
    assert run([], capsys) == (
        2,
        "",
        f"{PY}: error: cannot write: read-only file (mode 0444)\n",
    )
    assert codegen_repo.snapshot() == before  # type: ignore[attr-defined]
    assert [p.name for p in root.rglob("*.tmp")] == []


def test_write_text_atomic_new_file_and_refusals(tmp_path: Path) -> None:
    new = tmp_path / "new.txt"
    umask = os.umask(0o027)
    try:
        write_text_atomic(new, "a\r\nb")
    finally:
        os.umask(umask)
    assert new.read_bytes() == b"a\r\nb"
    assert stat.S_IMODE(new.stat().st_mode) == 0o640
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(Exception) as info:
        write_text_atomic(tmp_path / "fifo", "x")
    assert str(info.value) == (
        f"{tmp_path / 'fifo'}: error: cannot write: not a regular file (a FIFO)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "new.txt"]


def test_hard_linked_targets_neither_hang_nor_split(codegen_repo: object) -> None:
    """Two tables writing two names of one file: one lock (a second lock on the same
    file would wait forever), one plan, and a refusal to split the link (a rename
    would leave the other name with the old text). A real process: the timeout is
    a hang guard.
    """
    root = Path.cwd()
    codegen_repo.edit(
        PY, "    # END-SMALL\n", "    # END-SMALL\n# BEGIN-ALIAS\n# END-ALIAS\n"
    )  # type: ignore[attr-defined]
    os.link(root / PY, root / "python" / "alias.py")
    registry = root / ".tuning-codegen.yaml"
    alias = registry.read_text().split("  - name: small-py\n")[1]
    alias = alias.replace("target: python/dispatch.py", "target: python/alias.py")
    alias = alias.replace("-SMALL", "-ALIAS")
    registry.write_text(registry.read_text() + "  - name: alias\n" + alias)
    make_small_stale(codegen_repo)
    before = codegen_repo.snapshot()  # type: ignore[attr-defined]
    script = Path(sys.executable).with_name("tuning-codegen")
    for args in ([], ["--table", "alias"]):
        done = subprocess.run(
            [str(script), *args], capture_output=True, text=True, timeout=120
        )
        shown = "python/alias.py" if args else PY
        assert (done.returncode, done.stdout, done.stderr) == (
            2,
            "",
            f"{shown}: error: cannot write: the file has 2 hard links, and a rewrite "
            "would leave the other names with the old text; remove the extra links\n",
        )
        assert codegen_repo.snapshot() == before  # type: ignore[attr-defined]


def test_target_link_swapped_after_the_registry_was_read_writes_nothing(
    codegen_repo: object, tmp_path: Path
) -> None:
    """The link is checked when the registry is read; if it is pointed outside the
    repository before the write, the write goes to the checked file or nowhere."""
    from tuning_codegen.errors import InputError
    from tuning_codegen.regenerate import regenerate
    from tuning_codegen.registry import load_registry

    root = Path.cwd()
    link = root / "python" / "link.py"
    link.symlink_to("dispatch.py")
    point_small_at(codegen_repo, "python/link.py")
    make_small_stale(codegen_repo)
    registry = load_registry(".tuning-codegen.yaml")
    small = [t for t in registry.tables if t.name == "small-py"]
    outside = tmp_path / "outside.py"
    outside.write_text("# planted\n" + (root / PY).read_text())
    link.unlink()
    link.symlink_to(outside)
    before = (root / PY).read_bytes(), outside.read_bytes()
    with pytest.raises(InputError) as info:
        regenerate(small, registry.tables, registry.real_path)
    assert (
        str(info.value)
        == "python/link.py: error: changed while regenerating; run again"
    )
    assert ((root / PY).read_bytes(), outside.read_bytes()) == before


@pytest.mark.parametrize("size", [200, 245, 255])
def test_a_long_legal_file_name_can_be_written(tmp_path: Path, size: int) -> None:
    """The temporary beside a 255-byte name cannot be that name plus a suffix: it is
    cut and hashed, and stale ones are still recognised and removed."""
    target = tmp_path / ("é" * (size // 2) + "x" * (size % 2))
    assert len(os.fsencode(target.name)) == size
    target.write_text("old\n")
    write_text_atomic(target, "new\n")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
    stale = temporary_path(str(target), 2**22 + 1)  # no such process
    assert len(os.fsencode(os.path.basename(stale))) <= 255
    Path(stale).write_text("left by a kill -9\n")
    write_text_atomic(target, "newer\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
