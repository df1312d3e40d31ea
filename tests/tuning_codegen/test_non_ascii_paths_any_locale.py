"""A registered path that is not ASCII works in every locale, as under UTF-8.

The registry is UTF-8 text and the name on disk is its UTF-8 bytes (as git and every
editor write it); in a Latin-1 locale, or the C locale without Python's UTF-8 mode,
the OS takes and gives those bytes as another string. Before, a target named
``python/日本.py`` made ``--check``, ``--list`` and a regeneration exit 3
(``internal error: UnicodeEncodeError: 'latin-1' codec can't encode ...``) and the
hook print a traceback. Now every mode gives the verdict and the bytes a UTF-8 run
gives, the name printed with its escapes where the stream cannot show it. The real
command, in a real git repository, under a real Latin-1 locale (built with glibc's
``localedef``) and under C without UTF-8 mode.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import BIN, PY, SCRIPT, SMALL, run_codegen

WIDE = "python/日本.py"


def _latin1_locale(tmp_path: Path) -> dict[str, str]:
    """A genuine ISO-8859-1 locale compiled into ``tmp_path``."""
    if shutil.which("localedef") is None:
        pytest.skip("no localedef to build a Latin-1 locale")
    folder = tmp_path / "locales"
    folder.mkdir()
    made = subprocess.run(
        ["localedef", "-i", "en_US", "-f", "ISO-8859-1", str(folder / "en_US.L1")],
        capture_output=True,
        check=False,
    )
    if made.returncode not in (0, 1) or not (folder / "en_US.L1").exists():
        pytest.skip(f"localedef cannot build en_US.ISO-8859-1: {made.stderr[:200]!r}")
    return {"LOCPATH": str(folder), "LC_ALL": "en_US.L1"}


NO_UTF8_MODE = {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
LOCALES: dict[str, Callable[[Path], dict[str, str]]] = {
    "a Latin-1 locale": _latin1_locale,
    "C without UTF-8 mode": lambda _: dict(NO_UTF8_MODE),
}
UTF8 = {"PYTHONUTF8": "1"}


def tool(root: Path, args: list[str], extra: dict[str, str]) -> Any:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LC_", "LANG", "PYTHONIOENCODING", "PYTHONUTF8"))
    }
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])  # ruff
    return subprocess.run([SCRIPT, *args], cwd=root, env={**env, **extra},
                          capture_output=True, timeout=120, check=False)  # fmt: skip


@pytest.fixture
def wide_and_stale(codegen_repo: Any) -> Any:
    """The Python table's target renamed ``python/日本.py``, committed; then its
    manifest retuned and staged, the target left as committed: stale."""
    os.rename(codegen_repo.path(PY), codegen_repo.path(WIDE))
    codegen_repo.edit(".tuning-codegen.yaml", f"target: {PY}", f"target: {WIDE}")
    codegen_repo.commit_all("a target whose name is not ASCII")
    codegen_repo.edit(SMALL, "M: 64", "M: 128")
    codegen_repo.git("add", SMALL)
    return codegen_repo


def escaped(out: bytes) -> bytes:
    """A UTF-8 run's output as a stream that shows ASCII only prints it."""
    return out.decode("utf-8").encode("ascii", "backslashreplace")


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize(
    "args",
    [["--check"], ["--check", "--list"], ["--check", "--format", "github"],
     ["--hook", "--check"], ["--hook", "--check", "--format", "github"]],
    ids=" ".join,
)  # fmt: skip
def test_a_stale_target_named_in_utf8_is_stale_in_any_locale(
    wide_and_stale: Any, tmp_path: Path, locale: str, args: list[str]
) -> None:
    env = LOCALES[locale](tmp_path)
    before = wide_and_stale.snapshot()
    utf8 = tool(wide_and_stale.root, args, UTF8)
    assert (utf8.returncode, utf8.stderr) == (1, b"")
    assert "日本".encode() in utf8.stdout
    done = tool(wide_and_stale.root, args, env)
    assert (done.returncode, done.stderr.decode("latin-1")) == (1, "")
    assert done.stdout == escaped(utf8.stdout)
    assert b"python/\\u65e5\\u672c.py" in done.stdout
    assert wide_and_stale.snapshot() == before


@pytest.mark.parametrize("locale", LOCALES)
def test_a_json_report_names_the_target_as_text_in_any_locale(
    wide_and_stale: Any, tmp_path: Path, locale: str
) -> None:
    done = tool(wide_and_stale.root, ["--check", "--format", "json"],
                LOCALES[locale](tmp_path))  # fmt: skip
    assert (done.returncode, done.stderr) == (1, b"")
    document = json.loads(done.stdout)
    assert [f["path"] for f in document["files"]] == [WIDE]
    assert {t["target"] for t in document["tables"]} >= {WIDE}


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("args", [[], ["--hook"]], ids=["regenerate", "--hook"])
def test_a_target_named_in_utf8_is_regenerated_in_any_locale(
    wide_and_stale: Any, tmp_path: Path, locale: str, args: list[str]
) -> None:
    """The committed target with the retuned entry's line changed, byte for byte; a
    hook run then exits 1 (the commit held a stale region) and names the file to
    git add."""
    committed = wide_and_stale.path(WIDE).read_bytes()
    done = tool(wide_and_stale.root, args, LOCALES[locale](tmp_path))
    err = done.stderr.decode("latin-1")
    assert (done.returncode, err) == (1 if args else 0, "")
    expected = committed.replace(b"Config(m=64,", b"Config(m=128,")
    assert expected != committed
    assert wide_and_stale.path(WIDE).read_bytes() == expected
    shown = b"python/\\u65e5\\u672c.py"
    assert done.stdout.startswith(b"regenerated " + shown + b" (tables: small-py)\n")
    if args:
        assert done.stdout.endswith(b"git add " + shown + b" and commit again\n")
    assert tool(wide_and_stale.root, ["--check"], UTF8).returncode == 0


@pytest.mark.parametrize("locale", LOCALES)
def test_a_formatter_gets_the_target_named_in_utf8_in_any_locale(
    wide_and_stale: Any, tmp_path: Path, locale: str
) -> None:
    """``{path}`` reaches ruff as the name's bytes: the same region as under UTF-8."""
    ruff = '    format: [ruff, format, --quiet, --stdin-filename, "{path}", "-"]\n'
    python = "    language: python\n"
    wide_and_stale.edit(".tuning-codegen.yaml", python, python + ruff)
    assert tool(wide_and_stale.root, [], UTF8).returncode == 0
    wanted = wide_and_stale.path(WIDE).read_bytes()
    wide_and_stale.git("checkout", "--", WIDE)
    done = tool(wide_and_stale.root, [], LOCALES[locale](tmp_path))
    assert (done.returncode, done.stderr.decode("latin-1")) == (0, "")
    assert wide_and_stale.path(WIDE).read_bytes() == wanted


def test_a_registered_path_no_file_name_can_hold_is_one_error(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lone surrogate (a YAML escape) stands for no byte: before, exit 3."""
    codegen_repo.edit(".tuning-codegen.yaml", f"target: {PY}", 'target: "x\\ud800.py"')
    lines = codegen_repo.registry.read_text().splitlines()
    line = 1 + next(i for i, text in enumerate(lines) if "ud800" in text)
    before = codegen_repo.snapshot()
    assert run_codegen(["--check"], capsys) == (
        2,
        "",
        f".tuning-codegen.yaml:{line}: error: table 'small-py': target 'x\\ud800.py' holds "
        "U+D800, which no file name can hold\n",
    )
    assert codegen_repo.snapshot() == before
