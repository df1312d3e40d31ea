"""End to end with the real ``mojo format`` (PyPI ``mojo``, about 700 MB, so not in the
test extra): run by ``.ci/run`` after the suite, in a virtual environment of its own
that has ``mojo``, this project (its base install) and pre-commit.

    python .ci/e2e_mojo.py

Checks, each printed as it passes (the first failure ends the script, exit 1):
1. the shipped Mojo examples are Mojo 1.2 (``mojo format`` parses them), and the
   walkthrough's example is already in ``mojo format``'s style;
2. a registry naming ``mojo format`` (stdin and ``{file}`` forms): regenerate,
   ``mojo format`` the target, and the check is fresh; the region is a fixed point;
3. through real pre-commit (``repo:`` a clone of this project, ``rev:`` its commit)
   with a ``mojo format`` hook after ``tuning-codegen``: a retuned manifest fails the
   commit once, and once the target is staged the commit goes through.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CODEGEN = PROJECT / "fixtures" / "codegen"
WALKTHROUGH = PROJECT / "fixtures" / "walkthrough" / "kernels"
EXAMPLES = [CODEGEN / "tuning_configs.mojo", WALKTHROUGH / "matmul_configs.mojo"]
FORMATS = {"stdin": '[mojo, format, -q, "-"]', "file": '[mojo, format, -q, "{file}"]'}


def run(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def check(condition: bool, what: str, detail: str = "") -> None:
    if not condition:
        print(f"FAILED: {what}\n{detail}", file=sys.stderr)
        raise SystemExit(1)
    print(f"ok: {what}")


def environment(home: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))
    }
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    env["HOME"] = str(home)
    env["PRE_COMMIT_HOME"] = str(home / "pre-commit")
    env["PRE_COMMIT_COLOR"] = "never"
    (home / ".gitconfig").write_text(
        "[user]\n\tname = E2E\n\temail = e2e@example.invalid\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
    )
    return env


def git(cwd: Path, env: dict[str, str], *args: str) -> str:
    done = run(["git", *args], cwd, env)
    if done.returncode != 0:
        check(False, f"git {' '.join(args)}", done.stderr)
    return done.stdout


def status(out: str, name: str) -> str:
    """``Passed``, ``Failed``, ... of the hook ``name`` in pre-commit's output."""
    for line in out.splitlines():
        if line.startswith(name + "."):
            return line.rstrip(".").rsplit(".", 1)[-1].strip("()")
    return "absent"


def commit(root: Path, env: dict[str, str]) -> tuple[int, str]:
    """``git commit``: its exit code and what the hooks printed (git gives a hook's
    stdout to its own stderr)."""
    done = run(["git", "commit", "-m", "retune"], root, env)
    return done.returncode, done.stdout + done.stderr


def examples_are_mojo_1_2(tmp: Path) -> None:
    for example in EXAMPLES:
        copy = tmp / example.name
        shutil.copyfile(example, copy)
        done = run([str(BIN / "mojo"), "format", "-q", str(copy)], tmp)
        check(
            done.returncode == 0,
            f"mojo format parses {example.relative_to(PROJECT)}",
            done.stderr,
        )
    walkthrough = EXAMPLES[1]
    formatted = (tmp / walkthrough.name).read_text()
    check(formatted == walkthrough.read_text(),
          "the walkthrough's example is already in mojo format's style")  # fmt: skip


def tables_repository(root: Path, env: dict[str, str], form: str) -> Path:
    root.mkdir(parents=True)
    for name in os.listdir(CODEGEN):
        shutil.copyfile(CODEGEN / name, root / name)
    registry = (root / ".tuning-codegen.yaml").read_text()
    (root / ".tuning-codegen.yaml").write_text(
        registry.replace(
            "tables:\n",
            f"defaults:\n  format:\n    mojo: {FORMATS[form]}\ntables:\n",
            1,
        )
    )
    git(root, env, "init", "-q")
    return root


def formatter_chain(tmp: Path, env: dict[str, str]) -> None:
    for form in FORMATS:
        root = tables_repository(tmp / f"chain-{form}", env, form)
        target = root / "tuning_configs.mojo"
        done = run([str(BIN / "tuning-codegen"), "--check"], root, env)
        check(
            done.returncode == 1,
            f"{form}: the unformatted sm90 region is stale",
            done.stdout + done.stderr,
        )
        done = run([str(BIN / "tuning-codegen")], root, env)
        check(
            done.returncode == 0,
            f"{form}: tuning-codegen writes the formatted regions",
            done.stderr,
        )
        reflowed = "            M=128,\n            N=2112,\n            K=7168,\n"
        check(
            reflowed in target.read_text(),
            f"{form}: mojo format's style in the region (one argument per line)",
        )
        written = target.read_text()
        done = run([str(BIN / "mojo"), "format", "-q", str(target)], root, env)
        check(
            done.returncode == 0, f"{form}: mojo format runs on the target", done.stderr
        )
        check(
            target.read_text() == written,
            f"{form}: the target is a fixed point of mojo format",
        )
        done = run([str(BIN / "tuning-codegen"), "--check"], root, env)
        check(
            done.returncode == 0,
            f"{form}: after mojo format, the check is fresh",
            done.stdout + done.stderr,
        )
        check(not [p for p in root.iterdir() if "tuning-codegen-format" in p.name],
              f"{form}: no temporary left beside the target")  # fmt: skip


def published(tmp: Path, env: dict[str, str]) -> tuple[Path, str]:
    folder = tmp / "published"
    listed = run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], PROJECT
    )
    for name in filter(None, listed.stdout.split("\0")):
        if (PROJECT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(PROJECT / name, folder / name)
    git(folder, env, "init", "-q")
    git(folder, env, "add", "--all")
    git(folder, env, "commit", "-q", "--no-verify", "-m", "published")
    return folder, git(folder, env, "rev-parse", "HEAD").strip()


def through_pre_commit(tmp: Path, env: dict[str, str]) -> None:
    folder, rev = published(tmp, env)
    root = tables_repository(tmp / "hooked", env, "stdin")
    assert run([str(BIN / "tuning-codegen")], root, env).returncode == 0
    (root / ".pre-commit-config.yaml").write_text(f"""\
default_install_hook_types: [pre-commit, pre-merge-commit]
repos:
  - repo: {folder}
    rev: {rev}
    hooks:
      - id: tuning-codegen
  - repo: local
    hooks:
      - id: mojo-format
        name: mojo format
        entry: mojo format -q
        language: system
        files: \\.mojo$
""")
    git(root, env, "add", "--all")
    git(root, env, "commit", "-q", "--no-verify", "-m", "tables, formatted")
    done = run([str(BIN / "pre-commit"), "install"], root, env)
    check(done.returncode == 0, "pre-commit install", done.stdout)
    manifest = root / "tuning_table_sm90_fp8.yaml"
    text = manifest.read_text()
    check("N: 2112" in text, "the sm90 manifest has the shape to retune")
    manifest.write_text(text.replace("N: 2112", "N: 2304", 1))
    git(root, env, "add", manifest.name)
    code, out = commit(root, env)
    check(code != 0 and "files were modified by this hook" in out,
          "the first commit attempt regenerates and fails", out)  # fmt: skip
    git(root, env, "add", "tuning_configs.mojo")
    code, out = commit(root, env)
    check(code == 0, "the second attempt commits: the loop ends", out)
    check(
        status(out, "mojo format") == "Passed",
        "mojo format ran on the regenerated target and left it",
        out,
    )


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="e2e-mojo-") as name:
        tmp = Path(name)
        (tmp / "home").mkdir()
        env = environment(tmp / "home")
        done = run([str(BIN / "mojo"), "--version"], tmp, env)
        check(
            done.returncode == 0 and "Mojo 1." in done.stdout,
            f"mojo is here: {done.stdout.strip()}",
        )
        examples_are_mojo_1_2(tmp)
        formatter_chain(tmp, env)
        through_pre_commit(tmp, env)
    print("e2e with mojo format: all checks passed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
