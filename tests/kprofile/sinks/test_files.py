"""Files kprofile writes (-d CSVs, -c heatmap, --plot charts): unique safe names, all or
nothing on a failing write, and no dependence on the user's matplotlib setup. The
failures are real: a folder the process may not write (root's override dropped with
setpriv), and a file-size limit that makes the write fail half way."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support import under_limits

from kprofile.sinks.files import MAX_NAME_BYTES, safe_file_names, write_files

pytestmark = pytest.mark.slow  # failing writes in real processes (RLIMIT, capabilities)

PROJECT = Path(__file__).resolve().parents[3]


def kprofile(
    *args: str, cwd: Path, env: dict[str, str] | None = None, **popen: object
) -> subprocess.CompletedProcess[str]:
    """The real command in a fresh process (so rlimits and setpriv apply to it)."""
    code = "import sys; from kprofile.cli import main; raise SystemExit(main(sys.argv[1:]))"
    limits: dict[str, int] = popen.pop("limits", {})  # type: ignore[assignment]
    prefix: list[str] = []
    if os.geteuid() == 0 and popen.pop("unprivileged", False):
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]
    else:
        popen.pop("unprivileged", None)
    return subprocess.run(
        under_limits([*prefix, sys.executable, "-c", code, *args], **limits),
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(PROJECT), **(env or {})},
        capture_output=True,
        text=True,
        check=False,
        **popen,  # type: ignore[arg-type]
    )


def every_file(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# ------------------------------------------------------------------ names


def test_names_that_collide_after_cleaning_get_distinct_hashed_names() -> None:
    labels = ["S=a b", "S=a_b", "S=a/b", "M=1"]
    names = safe_file_names(labels, suffix=".csv", fallback="all")
    assert len(set(names)) == 4
    for label, name in zip(labels[:3], names[:3]):
        digest = hashlib.sha256(label.encode()).hexdigest()[:10]
        assert name == f"S=a_b-{digest}.csv"
    assert names[3] == "M=1.csv"


def test_names_differing_only_in_case_are_distinct_on_any_file_system() -> None:
    names = safe_file_names(["K=a", "K=A"], suffix=".csv", fallback="all")
    assert len({n.casefold() for n in names}) == 2


@pytest.mark.parametrize("label", ["S=" + "x" * 300, "S=" + "é" * 200, "../" * 90])
def test_long_names_fit_in_255_bytes(label: str) -> None:
    (name,) = safe_file_names([label], suffix=".csv", fallback="all")
    assert len(name.encode()) <= MAX_NAME_BYTES and name.endswith(".csv")
    assert "/" not in name and ".." not in name and not name.startswith(".")


def test_a_label_spelling_another_labels_hashed_name_stays_distinct() -> None:
    first = safe_file_names(["a b", "a_b"], suffix=".csv", fallback="all")
    crafted = first[0].removesuffix(".csv")
    names = safe_file_names(["a b", "a_b", crafted], suffix=".csv", fallback="all")
    assert len({n.casefold() for n in names}) == 3


def test_diff_writes_one_csv_per_shape_even_when_names_collide(
    tmp_path: Path, kb_write: Callable[..., Path]
) -> None:
    shapes = ["a b", "a_b", "q" * 300]
    rows = [{"S": s, "A": a, "met (ms)": 1.0 + a} for s in shapes for a in (1, 2)]
    base, new = kb_write("base.pkl", rows), kb_write("new.pkl", rows)
    out = tmp_path / "out"
    out.mkdir()
    done = kprofile("-d", str(base), str(new), "-p", "S", "--out-dir", str(out),
                    cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = sorted(out.iterdir())
    assert len(written) == 3
    assert all(len(p.name.encode()) <= MAX_NAME_BYTES for p in written)
    heads = {p.read_text().splitlines()[1].split(",")[0] for p in written}
    assert heads == {"1"}  # each CSV holds its shape's configs, best first (A=1)


# ------------------------------------------------------------------ failures


def test_write_files_leaves_nothing_when_one_file_cannot_be_written(
    tmp_path: Path,
) -> None:
    good = tmp_path / "good"
    good.mkdir()
    files = {good / "a.csv": b"a\n", tmp_path / "missing" / "b.csv": b"b\n"}
    with pytest.raises(Exception) as info:
        write_files(files)
    assert str(info.value) == (
        f"{tmp_path / 'missing' / 'b.csv'}: error: cannot write: "
        f"the folder {tmp_path / 'missing'} does not exist (create it first)"
    )
    assert list(good.iterdir()) == []


OUTPUT_MODES = {
    "diff": ["-d", "run1/M8_N7168_K2048.pkl", "run2/M8_N7168_K2048.pkl",
             "--out-dir", "out"],
    "correlation": ["-c", "run1/M8_N7168_K2048.pkl", "--out-dir", "out"],
    "plot": ["run1/M8_N7168_K2048.pkl", "--importance", "--plot", "out"],
}  # fmt: skip


def _demo(tmp_path: Path) -> Path:
    folder = tmp_path / "demo"
    shutil.copytree(PROJECT / "fixtures" / "results", folder)
    (folder / "out").mkdir()
    return folder


@pytest.mark.parametrize("mode", sorted(OUTPUT_MODES))
def test_an_unwritable_folder_is_one_clean_error_and_no_file(
    tmp_path: Path, mode: str
) -> None:
    demo = _demo(tmp_path)
    (demo / "out").chmod(0o555)
    before = every_file(demo)
    done = kprofile(*OUTPUT_MODES[mode], cwd=demo, unprivileged=True)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("out/")
    assert lines[0].endswith(
        ": error: cannot write: cannot create a file in the folder out: "
        "Permission denied"
    )
    assert every_file(demo) == before


@pytest.mark.parametrize("mode", sorted(OUTPUT_MODES))
def test_a_write_failing_half_way_leaves_no_partial_file(
    tmp_path: Path, mode: str
) -> None:
    demo = _demo(tmp_path)
    before = every_file(demo)
    done = kprofile(*OUTPUT_MODES[mode], cwd=demo, limits={"FSIZE": 2048})
    assert done.returncode == 2, done.stderr
    assert done.stderr.endswith(": error: cannot write: File too large\n")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert every_file(demo) == before


def test_a_broken_mplbackend_does_not_matter(tmp_path: Path) -> None:
    demo = _demo(tmp_path)
    (demo / "matplotlibrc").write_text("backend: nonsense\nfigure.dpi: 7\n")
    env = {"MPLBACKEND": "nonsense"}
    done = kprofile(*OUTPUT_MODES["plot"], cwd=demo, env=env)
    assert done.returncode == 0, done.stderr
    clean = kprofile(*OUTPUT_MODES["plot"][:-1], "clean", cwd=demo)
    assert clean.returncode == 0
    for png in sorted((demo / "out").iterdir()):
        assert png.read_bytes() == (demo / "clean" / png.name).read_bytes()


ROLLBACK = """\
import sys
from pathlib import Path
from kprofile.sinks.files import write_files
first, second = map(Path, sys.argv[1:])
try:
    write_files({first: b"first new\\n", second: b"second new\\n"})
except Exception as exc:
    print(exc)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to hand files to another uid")
def test_a_rename_failing_after_another_puts_the_first_file_back(
    tmp_path: Path,
) -> None:
    """A real failing rename: in a sticky folder that the writer does not own, a file
    of another user can be created beside but not replaced (CAP_FOWNER dropped)."""
    (tmp_path / "a").mkdir()
    sticky = tmp_path / "b"
    sticky.mkdir()
    first, second = tmp_path / "a" / "first.csv", sticky / "second.csv"
    first.write_bytes(b"first old\n")
    second.write_bytes(b"second old\n")
    os.chmod(second, 0o666)
    os.chown(second, 65534, 65534)
    os.chown(sticky, 65534, 65534)
    os.chmod(sticky, 0o1777)
    done = kprofile_python(ROLLBACK, str(first), str(second), cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"{second}: error: cannot write: Operation not permitted\n"
    assert first.read_bytes() == b"first old\n"  # renamed, then put back
    assert second.read_bytes() == b"second old\n"
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["first.csv"]
    assert sorted(p.name for p in sticky.iterdir()) == ["second.csv"]


def kprofile_python(
    code: str, *args: str, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh, unprivileged process that imports the project (no
    override of permissions, no giving files away)."""
    prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner,-chown"]
    return subprocess.run(
        [*prefix, sys.executable, "-c", code, *args],
        cwd=cwd,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(PROJECT), str(PROJECT / "hooks")]),
        },
        capture_output=True,
        text=True,
        check=False,
    )


# ------------------------------------------------------------------ symbolic links

PLANTED = {  # the name each mode writes, where a link is planted
    "diff": "M=8_N=7168_K=2048.csv",
    "correlation": "correlation.png",
    "plot": "importance.png",
}


@pytest.mark.parametrize("mode", sorted(OUTPUT_MODES))
def test_a_link_planted_at_a_derived_name_is_replaced_not_written_through(
    tmp_path: Path, mode: str
) -> None:
    """A shared output folder: a symbolic link at the name kprofile writes points at
    a file of the user's. Before: the link's target got the CSV or PNG bytes."""
    demo = _demo(tmp_path)
    victim = tmp_path / "victim"
    victim.write_bytes(b"the user's own file\n")
    link = demo / "out" / PLANTED[mode]
    link.symlink_to(victim)
    done = kprofile(*OUTPUT_MODES[mode], cwd=demo)
    assert done.returncode == 0, done.stderr
    assert victim.read_bytes() == b"the user's own file\n"
    assert not link.is_symlink() and link.is_file()
    clean = _demo(tmp_path / "clean")
    assert kprofile(*OUTPUT_MODES[mode], cwd=clean).returncode == 0
    assert link.read_bytes() == (clean / "out" / PLANTED[mode]).read_bytes()
    assert done.stderr.splitlines()[0] == (
        f"out/{PLANTED[mode]}: warning: was a symbolic link (to {victim}); "
        "replaced it with the file rather than writing through it"
    )


@pytest.mark.parametrize("target", ["/dev/null", "folder", "missing"])
def test_a_link_to_a_device_a_folder_or_nothing_is_replaced_too(
    tmp_path: Path, target: str
) -> None:
    demo = _demo(tmp_path)
    (demo / "folder").mkdir()
    link = demo / "out" / "correlation.png"
    link.symlink_to(target if target.startswith("/") else demo / target)
    done = kprofile(*OUTPUT_MODES["correlation"], cwd=demo)
    assert done.returncode == 0, done.stderr
    assert link.is_file() and not link.is_symlink()
    assert link.read_bytes().startswith(b"\x89PNG")
    assert list((demo / "folder").iterdir()) == []
    assert Path("/dev/null").is_char_device()


@pytest.mark.parametrize("mode", sorted(OUTPUT_MODES))
def test_a_failed_write_leaves_the_planted_link_as_it_was(
    tmp_path: Path, mode: str
) -> None:
    """All or nothing includes the link: a write failing half way (a file-size
    limit) makes it again, pointing where it pointed."""
    demo = _demo(tmp_path)
    victim = tmp_path / "victim"
    victim.write_bytes(b"the user's own file\n")
    link = demo / "out" / PLANTED[mode]
    link.symlink_to(victim)
    done = kprofile(*OUTPUT_MODES[mode], cwd=demo, limits={"FSIZE": 2048})
    assert done.returncode == 2, done.stderr
    assert done.stderr.endswith(": error: cannot write: File too large\n")
    assert link.is_symlink() and os.readlink(link) == str(victim)
    assert victim.read_bytes() == b"the user's own file\n"
    assert sorted(p.name for p in (demo / "out").iterdir()) == [PLANTED[mode]]
