"""Extended attributes and POSIX ACLs survive a rewrite, by both tools' writer.

A rewrite puts a new file in the target's place; before, it carried the mode, owner
and group only, so an ACL (``setfacl``), an SELinux label or any ``user.*`` attribute
was dropped. The oracles are ``getfattr -d -m -`` and ``getfacl`` (the attr and acl
packages), run before and after. An attribute this process may not give (a
``security.*`` one without CAP_SYS_ADMIN) is one warning, the rest still kept, and
an ACL the folder's default would give a new file is not added to a target without
one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import BIN, PROJECT, PY, SCRIPT, SMALL

ROOT_ONLY = pytest.mark.skipif(
    os.geteuid() != 0, reason="a security.* attribute is set by root only"
)


def attributes(path: Path) -> str:
    """Every extended attribute of ``path`` (values as getfattr dumps them) and its
    ACL, as the attr and acl tools print them."""
    dump = subprocess.run(["getfattr", "--absolute-names", "-d", "-m", "-", str(path)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    acl = subprocess.run(["getfacl", "--absolute-names", "-p", str(path)],
                         capture_output=True, text=True, check=True)  # fmt: skip
    return dump.stdout + acl.stdout


def decorate(path: Path, *, security: bool) -> None:
    subprocess.run(["setfattr", "-n", "user.review", "-v", "approved", str(path)],
                   check=True)  # fmt: skip
    subprocess.run(["setfacl", "-m", "u:nobody:rw,g:nogroup:r", str(path)], check=True)
    if security:
        subprocess.run(["setfattr", "-n", "security.audit", "-v", "kept", str(path)],
                       check=True)  # fmt: skip


@pytest.mark.parametrize("security", [False, pytest.param(True, marks=ROOT_ONLY)])
def test_tuning_codegen_keeps_extended_attributes_and_acls(
    codegen_repo: Any, security: bool
) -> None:
    target = codegen_repo.path(PY)
    decorate(target, security=security)
    before = attributes(target)
    assert "user.review" in before and "user:nobody:rw-" in before
    inode = target.stat().st_ino
    codegen_repo.edit(SMALL, "M: 64", "M: 128")
    done = subprocess.run([SCRIPT], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    assert target.stat().st_ino != inode and "m=128" in target.read_text()
    assert attributes(target) == before


def test_kprofile_update_keeps_extended_attributes_and_acls(tmp_path: Path) -> None:
    shutil.copy(
        PROJECT / "fixtures" / "results" / "run2" / "M8_N7168_K2048.pkl", tmp_path
    )
    manifest = tmp_path / "table.yaml"
    shutil.copyfile(
        PROJECT / "fixtures" / "update" / "tuning_table_bench_matmul.yaml", manifest
    )
    decorate(manifest, security=os.geteuid() == 0)
    before = attributes(manifest)
    done = subprocess.run(
        [str(BIN / "kprofile"), "M8_N7168_K2048.pkl", "--update", "table.yaml"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "updated table.yaml\n")
    assert "M: 8\n" in manifest.read_text()
    assert attributes(manifest) == before


@ROOT_ONLY
def test_an_attribute_that_cannot_be_given_is_one_warning(codegen_repo: Any) -> None:
    target = codegen_repo.path(PY)
    decorate(target, security=True)
    codegen_repo.edit(SMALL, "M: 64", "M: 128")
    without_admin = ["setpriv", "--bounding-set=-sys_admin", "--", SCRIPT]
    done = subprocess.run(without_admin, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (
        0,
        f"{PY}: warning: cannot keep its extended attributes (security.audit): "
        "Operation not permitted; the rewritten file has the others\n",
    )
    kept = attributes(target)
    assert "security.audit" not in kept and 'user.review="approved"' in kept
    assert "user:nobody:rw-" in kept


def test_an_acl_the_folder_would_give_is_not_added(codegen_repo: Any) -> None:
    target = codegen_repo.path(PY)
    before = attributes(target)
    subprocess.run(
        ["setfacl", "-d", "-m", "u:nobody:rwx", str(target.parent)], check=True
    )
    codegen_repo.edit(SMALL, "M: 64", "M: 128")
    done = subprocess.run([SCRIPT], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    assert attributes(target) == before
