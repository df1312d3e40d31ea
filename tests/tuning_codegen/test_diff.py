"""``--check`` diffs that ``git apply`` and ``patch`` accept,
computed in time that grows with the change (the figure: ``bench/bench_check.py``).

Lines are what git splits (LF only), so a form feed, a lone CR or U+2028 in a target
stays inside its line; small files get difflib's exact output, as before.
"""

from __future__ import annotations

import difflib
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import BIN, examples

from tuning_codegen import diff as diff_module
from tuning_codegen.diff import unified_diff

TOOL = str(BIN / "tuning-codegen")


def git_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def git_apply(folder: Path, patch: str, *args: str) -> subprocess.CompletedProcess[str]:
    (folder / "change.diff").write_bytes(patch.encode())
    return subprocess.run(
        ["git", "apply", *args, "change.diff"],
        cwd=folder, env=git_env(), capture_output=True, text=True, check=False,
    )  # fmt: skip


def applied(tmp_path: Path, old: str, new: str) -> str:
    """``new`` as ``git apply`` makes it from ``old`` and our diff (and ``patch``
    agrees, where installed)."""
    folder = tmp_path / f"case{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    (folder / "t.mojo").write_bytes(old.encode())
    patch = unified_diff(old, new, "a/t.mojo", "b/t.mojo")
    done = git_apply(folder, patch, "--check")
    assert done.returncode == 0, done.stderr
    assert git_apply(folder, patch).returncode == 0
    result = (folder / "t.mojo").read_bytes().decode()
    if shutil.which("patch"):
        (folder / "p.mojo").write_bytes(old.encode())
        subprocess.run(["patch", "-s", "p.mojo", "change.diff"], cwd=folder, check=True)
        assert (folder / "p.mojo").read_bytes().decode() == result
    return result


def table(count: int, first: int = 0) -> str:
    entries = "".join(
        f"        # index: [{i}]\n        Cfg(\n            M={i + first},\n"
        "            N=4096,\n        ),\n"
        for i in range(count)
    )
    return f"def f():\n    # BEGIN\n{entries}    # END\n    pass\n"


TARGETS = [  # (name, old, new)
    ("form feed", "\fa\n\f\n# BEGIN\fx\nold\n# END\n", "\fa\n\f\n# BEGIN\fx\nnew\n# END\n"),
    ("lone cr", "a\rb\n# BEGIN\nold\rstill\n# END\n", "a\rb\n# BEGIN\nnew\n# END\n"),
    ("cr only", "a\rBEGIN\rold\rEND\r", "a\rBEGIN\rnew\rEND\r"),
    ("crlf", "a\r\nBEGIN\r\nold\r\nEND\r\n", "a\r\nBEGIN\r\nnew\r\nEND\r\n"),
    ("u+2028 and nel", "a\u2028b\x85c\nold\n", "a\u2028b\x85c\nnew\n"),
    ("no final newline", "BEGIN\nold\nEND", "BEGIN\nnew\nEND"),
    ("final newline added", "a\nb", "a\nb\n"),
    ("final newline removed", "a\nb\n", "a\nb"),
    ("last line changed, none", "a\nb", "a\nc"),
    ("from empty", "", "a\n"),
    ("to empty", "a\nb\n", ""),
    ("one entry inserted at the top", table(300), table(301, -1)),
    ("one entry inserted in the middle",
     table(300), table(300).replace("        # index: [150]", "        # index: [x]\n"
                                    "        Cfg(\n        ),\n        # index: [150]")),
    ("every line changed", table(300), table(300, 7)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new"), [c[1:] for c in TARGETS], ids=[c[0] for c in TARGETS]
)
def test_git_apply_accepts_every_diff(tmp_path: Path, old: str, new: str) -> None:
    assert applied(tmp_path, old, new) == new


def test_large_tables_take_the_linear_path() -> None:
    """300 entries are 1,800 lines: past difflib's whole-file limit."""
    old, new = table(300), table(301, -1)
    assert old.count("\n") * new.count("\n") > diff_module.SMALL_FILE


def test_small_files_get_difflib_output() -> None:
    rng = random.Random(17)
    for _ in range(300):
        old = [rng.choice("abcdef") for _ in range(rng.randint(0, 30))]
        new = [x for x in old if rng.random() > 0.2]
        new.insert(rng.randint(0, len(new)), "z")
        a, b = "\n".join(old) + "\n", "\n".join(new) + "\n"
        want = "".join(
            difflib.unified_diff(a.splitlines(True), b.splitlines(True), "x", "y")
        )
        assert unified_diff(a, b, "x", "y") == want


def git_lines(text: str) -> list[str]:
    """Lines with their LF (the last one may have none), as git splits them."""
    lines = [line + "\n" for line in text.split("\n")]
    last = lines.pop()[:-1]
    return lines + ([last] if last else [])


def apply_ourselves(old: str, patch: str) -> str:
    """Apply a unified diff (the format ``git apply`` accepts above) without git."""
    source, out, position = git_lines(old), [], 0
    lines = git_lines(patch)[2:]
    for index, line in enumerate(lines):
        if line.startswith("@@"):
            start, length = (line.split()[1][1:].split(",") + ["1"])[:2]
            begin = int(start) - (1 if int(length) else 0)
            out += source[position:begin]
            position = begin
            continue
        if line.startswith("\\"):
            continue
        text = line[1:]
        if index + 1 < len(lines) and lines[index + 1].startswith("\\"):
            text = text[:-1]  # "\ No newline at end of file" follows
        if line[0] in " -":
            assert source[position] == text
            position += 1
        if line[0] in " +":
            out.append(text)
    return "".join(out + source[position:])


LINES = st.sampled_from(["a", "b", "c", "d", "", "\f", "x\ry", "é", "e1", "e2", "e3"])


@settings(max_examples=examples(900), deadline=None)
@given(
    old=st.lists(LINES, max_size=60),
    edits=st.lists(st.tuples(st.integers(0, 60), LINES), max_size=6),
    endings=st.tuples(st.booleans(), st.booleans()),
    linear=st.booleans(),
)
def test_the_diff_turns_old_into_new(
    old: list[str],
    edits: list[tuple[int, str]],
    endings: tuple[bool, bool],
    linear: bool,
) -> None:
    new = list(old)
    for where, line in edits:
        if where % 3 == 0 and new:
            del new[where % len(new)]
        else:
            new.insert(where % (len(new) + 1), line)
    a = "\n".join(old) + ("\n" if endings[0] and old else "")
    b = "\n".join(new) + ("\n" if endings[1] and new else "")
    limits = diff_module.SMALL_FILE, diff_module.SMALL
    if linear:  # the anchored path even for small files
        diff_module.SMALL_FILE, diff_module.SMALL = 0, 4
    try:
        patch = unified_diff(a, b, "a/t", "b/t")
    finally:
        diff_module.SMALL_FILE, diff_module.SMALL = limits
    assert (patch == "") == (a == b)
    if patch:
        assert apply_ourselves(a, patch) == b


def test_check_of_a_stale_form_feed_target_is_a_patch_git_applies(
    tmp_path: Path,
) -> None:
    """The real command, registry mode, in a git repository: its diff applies and
    gives what regenerating writes."""
    subprocess.run(["git", "init", "-q", tmp_path], env=git_env(), check=True)
    (tmp_path / ".tuning-codegen.yaml").write_text(
        "tables:\n  - {name: t, manifest: m.yaml, snippet: s.snippet, target: t.mojo,"
        " begin_marker: BEGIN, end_marker: END}\n"
    )
    (tmp_path / "m.yaml").write_text("params:\n- {M: 1}\n- {M: 2}\n")
    (tmp_path / "s.snippet").write_text("Cfg(M=[@M])\n")
    target = "\f\n# page 1\f\ndef f():\r\n    # BEGIN\n    # old\f\n    # END\n\f"
    (tmp_path / "t.mojo").write_bytes(target.encode())
    check = subprocess.run([TOOL, "--check"], cwd=tmp_path, env=git_env(),
                           capture_output=True, check=False)  # fmt: skip
    assert check.returncode == 1, check.stderr
    patch = check.stdout.decode().rsplit("1 stale region", 1)[0]
    assert git_apply(tmp_path, patch, "--check").returncode == 0
    assert git_apply(tmp_path, patch).returncode == 0
    patched = (tmp_path / "t.mojo").read_bytes()
    (tmp_path / "t.mojo").write_bytes(target.encode())
    subprocess.run([TOOL], cwd=tmp_path, env=git_env(), check=True, capture_output=True)
    assert (tmp_path / "t.mojo").read_bytes() == patched
    assert b"Cfg(M=2)," in patched and patched.endswith(b"    # END\n\f")
