"""Hostile pickles (tests/hostile_pickles.py) are refused without running anything.

All cases go through one child process (tests/pickle_worker.py) that loads them with
kprofile's loader under an address-space cap and a per-file CPU limit, with an audit
hook: a crash, a limit hit or a traceback fails the whole batch, and each case is then
checked for its ``Invalid pkl`` line, the files it opened and any code it ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import hostile_pickles
import pandas as pd
import pytest

from kprofile.inputs.pickles import RefusedPickle, decode_pickle
from kprofile.inputs.pickles.names import resolve
from kprofile.inputs.pickles.records import Call

pytestmark = pytest.mark.slow  # every hostile pickle in a capped child process

TESTS = Path(__file__).parents[2]
ROOT = TESTS.parent
GOOD = ROOT / "fixtures" / "results" / "run1" / "M8_N7168_K2048.pkl"
CASES = sorted(hostile_pickles.cases("MARKER"))
CODE = ("os.", "subprocess", "exec", "compile", "import", "pickle.find_class", "ctypes")


def run_worker(paths: list[Path]) -> dict[str, dict[str, Any]]:
    """Each path's answer from one worker process, which must exit cleanly."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, str(TESTS / "pickle_worker.py")],
        input="".join(f"{p}\n" for p in paths),
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["path"] for a in answers] == [str(p) for p in paths]
    return {Path(a["path"]).stem: a for a in answers}


def only_its_own_file(events: list[list[str]], path: Path) -> bool:
    """Nothing but opens of ``path``: the decoder's, and the look at its first bytes
    that names a file holding another kind of input (``inputs/sniff.py``), which
    opens it by descriptor (``open_regular``: the number is the audit event's)."""
    opened = [detail for event, detail in events if event == "open"]
    names = [d for d in opened if not d.isdigit()]
    return (
        len(opened) == len(events)
        and names[:1] == [str(path)]
        and set(names) == {str(path)}
        and len(names) <= 2
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile")
    marker = out / "PWNED"
    for name, data in hostile_pickles.cases(marker).items():
        (out / f"{name}.pkl").write_bytes(data)
    for name, data in hostile_pickles.bounded_cases().items():
        (out / f"{name}.pkl").write_bytes(data)
    (out / "valid.pkl").write_bytes(hostile_pickles.VALID)
    (out / "valid-tz.pkl").write_bytes(hostile_pickles.VALID_TZ)
    return out


@pytest.fixture(scope="module")
def answers(folder: Path) -> dict[str, dict[str, Any]]:
    return run_worker(sorted(folder.glob("*.pkl")))


@pytest.mark.parametrize("name", CASES)
def test_hostile_pickle_is_refused_and_nothing_ran(
    folder: Path, answers: dict[str, dict[str, Any]], name: str
) -> None:
    answer = answers[name]
    path = folder / f"{name}.pkl"
    assert answer["outcome"] == "refused", answer
    assert answer["message"].startswith(f"Invalid pkl [{path}]: "), answer
    assert "MemoryError" not in answer["message"]
    assert "RecursionError" not in answer["message"]
    assert only_its_own_file(answer["events"], path)
    assert not (folder / "PWNED").exists()


@pytest.mark.parametrize("name", sorted(hostile_pickles.bounded_cases()))
def test_heavy_shapes_load_or_are_refused_within_the_limits(
    answers: dict[str, dict[str, Any]], name: str
) -> None:
    answer = answers[name]  # the worker survived them under its CPU and memory caps
    assert answer["outcome"] in ("loaded", "refused"), answer
    assert "MemoryError" not in answer["message"]
    # compile: the spec parser's ast.literal_eval, after decoding (kprofile.inputs.spec)
    events = [e for e in answer["events"] if e[0] != "compile"]
    assert only_its_own_file(events, Path(answer["path"]))


def test_the_valid_twins_load_so_each_case_differs_only_by_its_attack(
    answers: dict[str, dict[str, Any]],
) -> None:
    for name in ("valid", "valid-tz"):
        answer = answers[name]
        assert (answer["outcome"], answer["message"]) == ("loaded", "3 rows"), answer
        # compile: the spec parser's ast.literal_eval, after decoding (kprofile.inputs.spec)
        ran = [
            e for e in answer["events"] if e[0].startswith(CODE) and e[0] != "compile"
        ]
        assert ran == []


def test_a_legitimate_zone_opens_only_the_zone_database(
    folder: Path, answers: dict[str, dict[str, Any]]
) -> None:
    import zoneinfo

    roots = [str(Path(p).resolve()) for p in zoneinfo.TZPATH]
    answer = answers["valid-tz"]
    opened = [e[1] for e in answer["events"] if e[0] == "open"]
    assert opened[:1] == [answer["path"]]
    for path in [p for p in opened if p != answer["path"] and not p.isdigit()]:
        resolved = str(Path(path).resolve())
        assert ".." not in Path(path).parts
        assert resolved.startswith(tuple(roots)) or "tzdata" in resolved, path


def _kprofile(*paths: Path) -> subprocess.CompletedProcess[str]:
    code = "from kprofile.cli import main; raise SystemExit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, paths)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )


def test_a_good_file_after_hostile_ones_gives_identical_results(folder: Path) -> None:
    alone = _kprofile(GOOD)
    names = sorted(CASES, key=lambda n: not n.startswith("patch-"))  # patches first
    hostile = [folder / f"{name}.pkl" for name in names]
    after = _kprofile(*hostile, GOOD)
    assert alone.returncode == 0, alone.stderr
    assert after.stdout == alone.stdout
    assert after.returncode == 0
    lines = after.stderr.splitlines()
    refused = [line for line in lines if line.startswith("Invalid pkl [")]
    assert refused == [line for line in lines if line.startswith("Invalid pkl [")]
    assert [line.split("]")[0] for line in refused] == [
        f"Invalid pkl [{p}" for p in hostile
    ]
    assert "Traceback" not in after.stderr


def test_stand_ins_cannot_be_patched_or_called_into_code() -> None:
    contains = pd.Index.__contains__
    index = resolve("pandas.core.indexes.base", "Index")
    assert index is not pd.Index and not issubclass(index, pd.Index)
    with pytest.raises(RefusedPickle, match="refused setting '__contains__'"):
        index.__contains__ = None  # type: ignore[assignment,method-assign]
    with pytest.raises(RefusedPickle, match="refused BUILD on the global"):
        index.__setstate__({"__contains__": 1})  # type: ignore[attr-defined]
    record = index(1, 2)  # what REDUCE does: a record, not an Index
    assert isinstance(record, Call) and record.args == (1, 2)
    with pytest.raises(RefusedPickle, match="refused setting 'args'"):
        record.args = ()  # type: ignore[misc]
    record.__setstate__({"a": 1})
    with pytest.raises(RefusedPickle, match="refused a second BUILD"):
        record.__setstate__({"a": 2})
    assert pd.Index.__contains__ is contains
    assert resolve("pandas", "Index") is index  # one stand-in, shared and immutable


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("os", "system"),
        ("builtins", "eval"),
        ("builtins", "getattr.x"),
        ("numpy", "load"),
    ],
)
def test_unknown_globals_are_refused_by_name(module: str, name: str) -> None:
    with pytest.raises(RefusedPickle) as caught:
        resolve(module, name)
    assert str(caught.value) == (
        f"refused to load global {module}.{name}: not part of a pandas DataFrame pickle"
    )


def test_the_valid_twin_decodes_in_process() -> None:
    frame = decode_pickle(hostile_pickles.VALID_TZ)["merged_df"]
    assert str(frame["x"].dt.tz) == "Europe/Paris"
    assert list(frame.columns) == ["x", "spec"]
