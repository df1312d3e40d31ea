"""An edit saved by another program between the writer's last check and its rename is
never lost, for both tools' writer (``tuning-codegen`` and ``kprofile --update``).

The window is a few microseconds wide, so it is held open for real rather than left
to chance: the writer runs under ``strace``, which stops it (SIGSTOP) as it returns
from blocking signals, the one step between its last check of the targets and its
first rename (the trace line ``rt_sigprocmask(SIG_BLOCK, ~[KILL STOP ...``); a second
process then saves the target, the way editors save (in place: truncate and write;
or a new file renamed over it), and the writer is let go (SIGCONT). Where the file
system cannot exchange two names (NFS, FUSE, vfat, macOS), ``renameat2`` fails with
EINVAL; strace makes it fail so (``inject=renameat2:error=EINVAL``) to run the other
way. Before, the writer renamed its file over the save: the edit was gone, exit 0.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from support import BIN, PROJECT, PY, SCRIPT, make_stale

MOJO = "kernels/tuning_configs.mojo"
BLOCK_ALL = "rt_sigprocmask(SIG_BLOCK, ~[KILL STOP"
EDITED = (
    "changed by another program while it was being replaced; it is kept as that "
    "program left it, and nothing was written: run again"
)
NO_EXCHANGE = ("-e", "inject=renameat2:error=EINVAL")


def paused_before_renames(
    command: Sequence[str],
    cwd: Path,
    meanwhile: Callable[[], None],
    strace: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` under strace, stopped between its last check and its first
    rename while ``meanwhile()`` runs; its exit code and output (``meanwhile`` must
    have run)."""
    read, write = os.pipe()
    traced = ["strace", "-qq", "-o", f"/dev/fd/{write}", "-e",
              "trace=rt_sigprocmask,renameat2,rename", "-e", "signal=SIGSTOP",
              "-e", "inject=rt_sigprocmask:signal=SIGSTOP", *strace, *command]  # fmt: skip
    process = subprocess.Popen(traced, cwd=cwd, pass_fds=[write], text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    os.close(write)
    ran, blocked, trace = False, False, []
    with os.fdopen(read) as lines:
        for line in lines:  # ends when the traced program and strace are done
            trace.append(line)
            blocked = blocked or line.startswith(BLOCK_ALL)
            if "--- stopped by SIGSTOP ---" in line:
                if blocked and not ran:
                    meanwhile()
                    ran = True
                os.kill(_tracee(process.pid), signal.SIGCONT)
    out, err = process.communicate(timeout=120)
    assert ran, "".join(trace)
    return subprocess.CompletedProcess(traced, process.returncode, out, err)


def _tracee(strace_pid: int) -> int:
    children = Path(f"/proc/{strace_pid}/task/{strace_pid}/children").read_text()
    return int(children.split()[0])


def save_in_place(path: Path, text: str) -> Callable[[], None]:
    """An editor saving in place: ``>`` truncates the file and writes into it."""
    script = 'printf "%s" "$1" > "$2"'
    return lambda: subprocess.run(
        ["sh", "-c", script, "-", text, str(path)], check=True
    )


def save_by_rename(path: Path, text: str) -> Callable[[], None]:
    """An editor saving to a new file and renaming it over the old one."""
    script = 'printf "%s" "$1" > "$2.new" && mv "$2.new" "$2"'
    return lambda: subprocess.run(
        ["sh", "-c", script, "-", text, str(path)], check=True
    )


def temporaries(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if ".tuning-codegen-" in p.name)


def test_an_edit_saved_in_place_before_the_rename_is_kept(codegen_repo: Any) -> None:
    root = codegen_repo.root
    make_stale(codegen_repo)
    before = codegen_repo.snapshot()
    saved = before[MOJO].decode().replace("# Tuning tables", "# Saved tables")
    done = paused_before_renames([SCRIPT], root, save_in_place(root / MOJO, saved))
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"{MOJO}: error: {EDITED}\n",
    )
    assert codegen_repo.snapshot() == {**before, MOJO: saved.encode()}  # PY as it was
    assert temporaries(root) == []
    assert subprocess.run([SCRIPT], cwd=root, capture_output=True).returncode == 0
    assert "# Saved tables" in (root / MOJO).read_text()  # the next run keeps it


def test_an_edit_saved_by_rename_before_the_rename_is_kept(codegen_repo: Any) -> None:
    root = codegen_repo.root
    make_stale(codegen_repo)
    before = codegen_repo.snapshot()
    saved = "CONFIGS = []  # saved by another program\n"
    done = paused_before_renames([SCRIPT], root, save_by_rename(root / PY, saved))
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"{PY}: error: {EDITED}\n",
    )
    assert codegen_repo.snapshot() == {**before, PY: saved.encode()}
    assert temporaries(root) == []


def test_without_an_exchange_an_edit_saved_in_place_is_still_kept(
    codegen_repo: Any,
) -> None:
    root = codegen_repo.root
    make_stale(codegen_repo)
    (root / PY).chmod(0o640)
    before = codegen_repo.snapshot()
    saved = "CONFIGS = []  # saved in place\n"
    done = paused_before_renames(
        [SCRIPT], root, save_in_place(root / PY, saved), strace=NO_EXCHANGE
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"{PY}: error: {EDITED}\n",
    )
    assert codegen_repo.snapshot() == {**before, PY: saved.encode()}
    assert (root / PY).stat().st_mode & 0o777 == 0o640
    assert temporaries(root) == []


def test_without_an_exchange_a_run_left_alone_writes_as_before(
    codegen_repo: Any,
) -> None:
    root = codegen_repo.root
    make_stale(codegen_repo)
    done = paused_before_renames([SCRIPT], root, lambda: None, strace=NO_EXCHANGE)
    assert (done.returncode, done.stderr) == (0, "")
    assert subprocess.run([SCRIPT, "--check"], cwd=root).returncode == 0
    assert temporaries(root) == []


def test_kprofile_update_keeps_an_edit_saved_meanwhile(tmp_path: Path) -> None:
    shutil.copy(
        PROJECT / "fixtures" / "results" / "run2" / "M8_N7168_K2048.pkl", tmp_path
    )
    manifest = tmp_path / "table.yaml"
    shutil.copyfile(
        PROJECT / "fixtures" / "update" / "tuning_table_bench_matmul.yaml", manifest
    )
    saved = manifest.read_text() + "# a note saved by an editor\n"
    command = [str(BIN / "kprofile"), "M8_N7168_K2048.pkl", "--update", "table.yaml"]
    done = paused_before_renames(command, tmp_path, save_in_place(manifest, saved))
    assert (done.returncode, done.stderr) == (2, f"table.yaml: error: {EDITED}\n")
    assert manifest.read_text() == saved
    assert temporaries(tmp_path) == []
