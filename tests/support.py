"""Helpers shared by test modules in different folders (importable: pytest's pythonpath)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

PROJECT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
HOOK_FIELDS = (
    "id",
    "name",
    "files",
    "exclude",
    "types",
    "types_or",
    "exclude_types",
    "require_serial",
    "pass_filenames",
    "always_run",
    "args",
    "stages",
)


def project_hooks() -> dict[str, dict[str, Any]]:
    """The hooks this repository publishes in ``.pre-commit-hooks.yaml``, by id."""
    hooks = yaml.safe_load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    return {hook["id"]: hook for hook in hooks}


def local_hook(hook_id: str) -> dict[str, Any]:
    """The published hook as a ``repo: local`` hook running this interpreter's script.

    Same id, name, file filters and flags (``always_run`` included); ``language:
    system`` so pre-commit does not build an environment, which keeps these tests fast.
    """
    hook = project_hooks()[hook_id]
    local = {key: hook[key] for key in HOOK_FIELDS if key in hook}
    program, _, arguments = hook["entry"].partition(" ")
    assert program == "tuning-codegen", hook["entry"]
    local["entry"] = f"{BIN / program} {arguments}".rstrip()
    local["language"] = "system"
    return local


# ---------------------------------------------------------------- resource limits

_LAUNCHER = """
import os, resource, signal, sys
limits, argv = sys.argv[1], sys.argv[2:]
for item in limits.split(","):
    name, value = item.split("=")
    if name == "FSIZE":
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of death
    resource.setrlimit(getattr(resource, "RLIMIT_" + name), (int(value), int(value)))
os.execvp(argv[0], argv)
"""


def under_limits(argv: list[str], **limits: int) -> list[str]:
    """``argv`` run under resource limits (``AS=bytes``, ``FSIZE=bytes`` with SIGXFSZ
    ignored so a write past it fails with EFBIG, ``CORE=0``), set by a small launcher
    that then executes it. Not ``preexec_fn``: that runs Python between fork and exec,
    which can deadlock in a process with threads (pytest-xdist's workers have them;
    a limited run once hung for 300 s under ``-n 2``)."""
    if not limits:
        return list(argv)
    spec = ",".join(f"{name}={value}" for name, value in limits.items())
    return [sys.executable, "-c", _LAUNCHER, spec, *argv]


# ---------------------------------------------------------------- kprofile CLI tests

FIXTURES = PROJECT / "fixtures"
RESULTS = FIXTURES / "results"
MANIFEST = FIXTURES / "update" / "tuning_table_bench_matmul.yaml"
SHAPES = ["M256_N20480_K5376", "M4096_N4096_K4096", "M8_N7168_K2048"]
PARAMS = ["BM", "BN", "STAGES", "CLUSTER", "SWAP_AB", "SCHEDULE"]
METRIC = "met (ms)"


def within_exactly(
    value: float, best: float, tol: float, *, higher: bool = False
) -> bool:
    """The documented tolerance rule in exact arithmetic: ``value / best`` (``best /
    value`` when higher is better) at most ``1 + tol``, each number taken as the
    shortest decimal that spells it (what kbench's CSV writes, what a user types), so
    2.1 against 2.0 is 1.05 exactly, within 5%."""
    v, b, t = (Fraction(repr(float(x))) for x in (value, best, tol))
    return (b / v if higher else v / b) <= 1 + t


#: Every compression kprofile reads a pickle in, by the suffix DataFrame.to_pickle
#: picks it by.
COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst")


def compress(data: bytes, suffix: str, *, fast: bool = False) -> bytes:
    """``data`` compressed as ``DataFrame.to_pickle`` compresses a file named
    ``*.pkl{suffix}`` (gzip, bz2, xz; zstd through the zstandard package); ``fast``:
    at each format's fastest level (the same stream format, for large test data)."""
    import bz2
    import gzip
    import lzma

    import zstandard  # type: ignore[import-not-found, unused-ignore]

    packers = {
        ".gz": lambda d: gzip.compress(d, compresslevel=1 if fast else 9, mtime=0),
        ".bz2": lambda d: bz2.compress(d, 1 if fast else 9),
        ".xz": lambda d: lzma.compress(d, preset=0 if fast else 6),
        ".zst": zstandard.ZstdCompressor(level=1 if fast else 3).compress,
    }
    return bytes(packers[suffix](data))


def run(capsys: Any, *args: str) -> tuple[int, str, str]:
    """``kprofile ARGS``: exit code, stdout, stderr."""
    from kprofile.cli import main

    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file with its bytes and modification time (ns)."""
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }


def files_in(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def results_of(*paths: str) -> Any:
    """The raw merged_df of each pickle, parameters decoded from the spec by hand
    (as strings), and the metric."""
    import pandas as pd

    frames = []
    for path in paths:
        raw = pd.read_pickle(path)["merged_df"]
        params = pd.DataFrame(
            [
                dict(t.lstrip("$").split("=") for t in spec.split("/")[1:])
                for spec in raw["spec"]
            ]
        )
        frames.append(pd.concat([params, raw[[METRIC]]], axis=1))
    return pd.concat(frames, ignore_index=True)


def section(out: str, title: str) -> str:
    """One plain-text section (from its title line to the next section)."""
    start = out.index(f"== {title} ==\n")
    end = out.find("\n\n== ", start)
    return out[start:] if end < 0 else out[start : end + 1]


def sections(out: str) -> dict[str, dict[str, Any]]:
    """The JSON output's sections by view name."""
    import json

    return {s["view"]: s for s in json.loads(out)["sections"]}


RUN1 = [f"run1/{s}.pkl" for s in SHAPES]
RUN2 = [f"run2/{s}.pkl" for s in SHAPES]


def examples(full: int) -> int:
    """A property test's example count: ``full`` in CI (HYPOTHESIS_PROFILE=ci), a
    tenth of it (at least 10) in everyday runs."""
    if os.environ.get("HYPOTHESIS_PROFILE") == "ci":
        return full
    return max(10, full // 10)


def unprivileged(command: list[str]) -> list[str]:
    """``command`` without the power to ignore file permissions.

    As root, through ``setpriv`` with CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH dropped
    from the bounding set (the files stay root's, so their permission bits apply); as
    any other user, unchanged.
    """
    if os.geteuid() != 0:
        return command
    drop = "--bounding-set=-dac_override,-dac_read_search"
    return ["setpriv", drop, "--", *command]


# --- real pre-commit in a repository of tests/tuning_codegen/conftest.py (``codegen_repo``) ---


def env_for(pre_commit_home: Path) -> dict[str, str]:
    """The environment of a pre-commit run: no GIT_* or PRE_COMMIT* leaking in, this
    interpreter's scripts (ruff, clang-format) on PATH, as an activated venv has."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "PRE_COMMIT")) and k != "SKIP"
    }
    env["PRE_COMMIT_HOME"] = str(pre_commit_home)
    env["PRE_COMMIT_COLOR"] = "never"
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    return env


def publish(folder: Path) -> tuple[Path, str]:
    """This project's files (tracked and new, as the working tree has them) committed
    to a git repository of their own in ``folder``: what a user's ``repo:`` points at,
    and the commit ``rev:`` names."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT, capture_output=True, check=True,
    ).stdout  # fmt: skip
    for name in filter(None, listed.decode().split("\0")):
        source = PROJECT / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(source.read_bytes())
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "--all"],
        ["-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-q",
         "--no-verify", "-m", "published"],
    ):  # fmt: skip
        subprocess.run(["git", *args], cwd=folder, env=env, check=True)
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=folder, env=env, capture_output=True,
        text=True, check=True,
    ).stdout.strip()  # fmt: skip
    return folder, rev


def published_config(
    published: tuple[Path, str],
    hooks: list[dict[str, Any]],
    *,
    local: list[dict[str, Any]] = (),  # type: ignore[assignment]
    **top: Any,
) -> str:
    """A ``.pre-commit-config.yaml`` as a user writes it: ``repo:`` the published
    clone, ``rev:`` its commit, the hooks (ids, args, ...), then ``repo: local`` hooks
    (formatters) after them, and top-level keys such as
    ``default_install_hook_types``."""
    folder, rev = published
    repos: list[dict[str, Any]] = [{"repo": str(folder), "rev": rev, "hooks": hooks}]
    if local:
        repos.append({"repo": "local", "hooks": list(local)})
    return yaml.safe_dump({**top, "repos": repos}, sort_keys=False)


def install_published(
    repo: Any, pre_commit_home: Path, config: str, *hook_types: str
) -> Hooked:
    """Commit ``config`` as the repository's ``.pre-commit-config.yaml`` and run
    ``pre-commit install`` (its default hook types, or ``hook_types``)."""
    (repo.root / ".pre-commit-config.yaml").write_text(config)
    repo.git("add", ".pre-commit-config.yaml")
    repo.git("commit", "-q", "--no-verify", "-m", "pre-commit config")
    hooked = Hooked(repo, env_for(pre_commit_home))
    types = [arg for t in hook_types for arg in ("--hook-type", t)]
    done = hooked.pre_commit("install", *types)
    assert done.returncode == 0, done.stdout
    return hooked


class Hooked:
    """A repository from ``codegen_repo`` with pre-commit installed as its git hook."""

    def __init__(self, repo: Any, env: dict[str, str]) -> None:
        self.repo = repo
        self.env = env

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args),
            cwd=self.repo.root,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
        )

    def commit(self, message: str) -> subprocess.CompletedProcess[str]:
        return self.run("git", "commit", "-m", message)

    def pre_commit(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run(sys.executable, "-m", "pre_commit", *args)

    def head(self) -> str:
        return str(self.repo.git("rev-parse", "HEAD")).strip()


def install(repo: Any, pre_commit_home: Path, *hook_ids: str) -> Hooked:
    config = {"repos": [{"repo": "local", "hooks": [local_hook(h) for h in hook_ids]}]}
    (repo.root / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump(config, sort_keys=False)
    )
    repo.git("add", ".pre-commit-config.yaml")
    repo.git("commit", "-q", "--no-verify", "-m", "pre-commit config")
    hooked = Hooked(repo, env_for(pre_commit_home))
    done = hooked.pre_commit("install")
    assert done.returncode == 0, done.stdout
    return hooked


def status_line(output: str, name: str) -> str:
    """``Failed``/``Passed``/... of the hook called ``name`` in pre-commit's output."""
    match = re.search(
        rf"^{re.escape(name)}\.+\(?([A-Za-z ]+?)\)?$", output, re.MULTILINE
    )
    assert match, output
    return match.group(1)


# ---------------------------------------------------------------- tuning-codegen tests

REG = ".tuning-codegen.yaml"
SMALL = "python/tuning_small.yaml"
SNIPPET = "python/small.py.snippet"
PY = "python/dispatch.py"
SCRIPT = str(Path(sys.executable).with_name("tuning-codegen"))


def run_codegen(args: list[str], capsys: Any) -> tuple[int, str, str]:
    """``tuning-codegen ARGS`` through ``main``: exit code, stdout, stderr."""
    from tuning_codegen.cli import main

    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def make_stale(codegen_repo: Any) -> Any:
    """The ``codegen_repo`` with two tables made stale (a Mojo one and the Python one)."""
    codegen_repo.edit("kernels/tuning_table_sm100_bf16.yaml", "N: 2560", "N: 2688")
    codegen_repo.edit(SMALL, "M: 64", "M: 128")
    return codegen_repo


def refused(repo: Any, capsys: Any, *lines: str) -> None:
    """Both modes exit 2 with exactly ``lines`` on stderr; no file changes."""
    before = repo.snapshot()
    for args in ([], ["--check"]):
        assert run_codegen(args, capsys) == (2, "", "".join(x + "\n" for x in lines))
    assert repo.snapshot() == before


def in_terminal(
    argv: list[str],
    *,
    columns: int = 80,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 300.0,
) -> tuple[int, str]:
    """Run ``argv`` (a console script of this environment) with stdin, stdout and
    stderr on a pseudo-terminal ``columns`` wide; its exit code and everything it
    wrote. ``COLUMNS`` and ``NO_COLOR`` are taken out of the environment, so the
    program sees the window size as a user's terminal gives it."""
    import fcntl
    import pty
    import select
    import struct
    import termios
    import time

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    environ = {
        k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")
    }
    environ.update(TERM="xterm-256color", **(env or {}))
    program = [str(BIN / argv[0]), *argv[1:]]
    process = subprocess.Popen(program, stdin=slave, stdout=slave, stderr=slave,
                               env=environ, cwd=cwd, start_new_session=True)  # fmt: skip
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(master, 1 << 16)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not data:
                break
            output += data
        code = process.wait(timeout=max(deadline - time.monotonic(), 1.0))
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
            process.wait()
    return code, output.decode("utf-8", errors="replace").replace("\r\n", "\n")
