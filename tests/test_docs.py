"""Every example in README.md and docs/*.md whose output is shown is run and compared.

An example is a fenced ``text`` or ``console`` block whose first line starts with
``$ ``: each ``$`` line is a shell command (run with bash, stderr merged into stdout)
and the lines up to the next ``$`` line are its expected output. A line that is just
``...`` stands for any number of lines; ``...`` inside a line for any text. The blocks
of one document run in order, in one sandbox: the repository's committed files in a
git repository of their own, as a clone has them (so ``fixtures/...`` paths work,
paths print as a clone prints them, and nothing outside the sandbox is written). A
block preceded by ``<!-- docs-test: setup NAME -->`` runs in the sandbox that setup
prepares instead (``empty``: an empty folder, with ``W`` and ``R`` naming
fixtures/walkthrough and fixtures/results of a clone; ``walkthrough``: the repository
that docs/walkthrough.md makes, committed, with the pre-commit hook), and
one preceded by ``<!-- docs-test: skip REASON -->`` is not run: only benchmark
figures, which are measurements, not outputs to compare.

Refresh the shown outputs after changing a command:

    UPDATE_DOCS=1 python -m pytest tests/test_docs.py

(blocks that still match are left alone, so hand-written ``...`` elisions survive).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from support import BIN, PROJECT, local_hook

pytestmark = pytest.mark.slow  # runs every example of the docs, in a clone

DOCS = [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(?P<indent> *)```(?:text|console)\n(?P<body>.*?)^(?P=indent)```$",
                   re.S | re.M)  # fmt: skip
SETUP = re.compile(
    r"<!-- docs-test: (?:setup (?P<name>[\w-]+)|(?P<skip>skip)\b.*) -->\s*$"
)


@dataclass(frozen=True)
class Step:
    command: str
    expected: list[str]


@dataclass(frozen=True)
class Example:
    doc: Path
    line: int
    setup: str
    steps: tuple[Step, ...]
    span: tuple[int, int]  # the block body's offsets in the document
    indent: str

    @property
    def name(self) -> str:
        return f"{self.doc.relative_to(PROJECT)}:{self.line}"


def examples(doc: Path) -> Iterator[Example]:
    text = doc.read_text()
    for match in FENCE.finditer(text):
        indent = match.group("indent")
        lines = [line.removeprefix(indent) for line in match.group("body").splitlines()]
        if not lines or not lines[0].startswith("$ "):
            continue
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = SETUP.search(before)
        if marker and marker.group("skip"):
            continue  # measured figures (a benchmark), not an example
        yield Example(
            doc,
            text.count("\n", 0, match.start()) + 1,
            marker.group("name") if marker else "repository",
            tuple(_steps(lines)),
            match.span("body"),
            indent,
        )


def _steps(lines: list[str]) -> Iterator[Step]:
    command: str | None = None
    expected: list[str] = []
    for line in lines:
        if line.startswith("$ "):
            if command is not None:
                yield Step(command, expected)
            command, expected = line[2:], []
        else:
            expected.append(line)
    if command is not None:
        yield Step(command, expected)


def matches(expected: list[str], actual: list[str]) -> bool:
    """``...`` alone matches any lines; inside a line, any text."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, actual[i:]) for i in range(len(actual) + 1))
    if not actual:
        return False
    pattern = ".*".join(re.escape(part) for part in head.split("..."))
    return bool(re.fullmatch(pattern, actual[0])) and matches(rest, actual[1:])


# ------------------------------------------------------------------ sandboxes


def _environment(home: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))
    }
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(home),
        PRE_COMMIT_HOME=str(home / "pre-commit"),
        PRE_COMMIT_COLOR="never",
        COLUMNS="80",
        LC_ALL="C.UTF-8",
    )
    env.pop("SKIP", None)
    return env


def clone_repository(target: Path, env: dict[str, str]) -> None:
    """The repository's committed files in a git repository of their own: what a
    clone holds, so paths print as a clone prints them (from its root)."""
    copy_repository(target)
    _git(target, env, "init", "-q")
    _git(target, env, "add", "--all")
    _git(target, env, "commit", "-q", "-m", "a clone")


def copy_repository(target: Path) -> Path:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=PROJECT, capture_output=True,
                           check=True).stdout.split(b"\0")  # fmt: skip
    for name in filter(None, (n.decode() for n in names)):
        source = PROJECT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _git(root: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _fixtures(root: Path, env: dict[str, str]) -> None:
    """``R`` and ``W``: fixtures/results and fixtures/walkthrough of a clone."""
    fixtures = copy_repository(root.parent / "clone") / "fixtures"
    env["R"] = str(fixtures / "results")
    env["W"] = str(fixtures / "walkthrough")


def setup_empty(root: Path, env: dict[str, str]) -> None:
    """An empty folder, as docs/walkthrough.md starts from (``R``, ``W`` set)."""
    _fixtures(root, env)


def setup_walkthrough(
    root: Path, env: dict[str, str], hook: str = "tuning-codegen"
) -> None:
    """The repository docs/walkthrough.md makes (fixtures/walkthrough/), committed,
    with the pre-commit ``hook`` installed."""
    _fixtures(root, env)
    shutil.copytree(env["W"], root, dirs_exist_ok=True)
    if hook != "tuning-codegen":
        config = {"repos": [{"repo": "local", "hooks": [_system_hook(hook)]}]}
        (root / ".pre-commit-config.yaml").write_text(
            yaml.safe_dump(config, sort_keys=False)
        )
    _git(root, env, "init", "-q")
    _git(root, env, "add", "--all")
    _git(root, env, "commit", "-q", "-m", "matmul dispatch table")
    subprocess.run([str(BIN / "pre-commit"), "install"], cwd=root, env=env,
                   check=True, capture_output=True)  # fmt: skip


def _system_hook(hook_id: str) -> dict[str, object]:
    """The published hook as fixtures/walkthrough/.pre-commit-config.yaml has it:
    ``repo: local``, running the installed ``tuning-codegen``."""
    hook = local_hook(hook_id)
    hook["entry"] = str(hook["entry"]).replace(f"{BIN}/", "")
    return hook


def _home(home: Path) -> None:
    """A user's git settings: a name, no signing, ``main`` for new repositories."""
    home.mkdir(parents=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Docs\n\temail = docs@example.invalid\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
        "[core]\n\tautocrlf = false\n"
    )


SETUPS: dict[str, Callable[[Path, dict[str, str]], None]] = {
    "repository": lambda root, env: None,
    "empty": setup_empty,
    "walkthrough": setup_walkthrough,
    "walkthrough-check": lambda root, env: setup_walkthrough(
        root, env, "tuning-codegen-check"
    ),
}


def run_document(doc: Path, tmp: Path) -> list[tuple[Example, list[list[str]]]]:
    """Run every example of ``doc``; each with the actual output of its steps."""
    sandboxes: dict[str, tuple[Path, dict[str, str]]] = {}
    results = []
    for example in examples(doc):
        if example.setup not in sandboxes:
            root = tmp / example.setup / "work"
            env = _environment(tmp / example.setup / "home")
            _home(tmp / example.setup / "home")
            if example.setup == "repository":
                clone_repository(root, env)
            else:
                root.mkdir(parents=True)
                SETUPS[example.setup](root, env)
            sandboxes[example.setup] = (root, env)
        root, env = sandboxes[example.setup]
        outputs = [_run(step.command, root, env) for step in example.steps]
        results.append((example, outputs))
    return results


def _run(command: str, cwd: Path, env: dict[str, str]) -> list[str]:
    done = subprocess.run(["bash", "-c", f"exec 2>&1\n{command}"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    return done.stdout.splitlines()


# ------------------------------------------------------------------ the test


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(PROJECT)))
def test_shown_outputs_are_what_the_commands_print(doc: Path, tmp_path: Path) -> None:
    failures = []
    updates: list[tuple[Example, str]] = []
    for example, outputs in run_document(doc, tmp_path):
        ok = all(matches(s.expected, out) for s, out in zip(example.steps, outputs))
        if not ok:
            failures.append(_report(example, outputs))
            updates.append((example, _body(example, outputs)))
    if updates and os.environ.get("UPDATE_DOCS"):
        _rewrite(doc, updates)
        return
    assert not failures, "\n\n".join(failures) + (
        "\n\nrefresh with: UPDATE_DOCS=1 python -m pytest tests/test_docs.py"
    )


def _report(example: Example, outputs: list[list[str]]) -> str:
    lines = [f"{example.name}: output differs"]
    for step, out in zip(example.steps, outputs):
        if not matches(step.expected, out):
            lines += [f"$ {step.command}", "  expected:", *("    " + x for x in
                      step.expected), "  actual:", *("    " + x for x in out)]  # fmt: skip
    return "\n".join(lines)


def _body(example: Example, outputs: list[list[str]]) -> str:
    lines = []
    for step, out in zip(example.steps, outputs):
        lines += [f"$ {step.command}", *out]
    return "".join(f"{example.indent}{line}".rstrip() + "\n" for line in lines)


def _rewrite(doc: Path, updates: list[tuple[Example, str]]) -> None:
    text = doc.read_text()
    for example, body in sorted(updates, key=lambda u: -u[0].span[0]):
        start, end = example.span
        text = text[:start] + body + text[end:]
    doc.write_text(text)


def test_the_matcher() -> None:
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "..."], ["a"])
    assert matches(["[main ...] msg"], ["[main 0d000db] msg"])
    assert not matches(["a", "d"], ["a", "b", "d"])
    assert not matches(["a"], ["a", "b"])
    assert not matches(["x ... y"], ["x z"])
