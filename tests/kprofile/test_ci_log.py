"""Nothing from an input forms a GitHub workflow command, and no invisible or
direction-changing character reaches an output raw, in any kprofile output: text,
rich tables, Markdown, JSON, stderr (notes, warnings, errors), the progress display,
and the files it writes (``-d`` CSVs, ``-o`` and ``--update`` manifests).

The forms come from ``tests/github_commands.py`` (an oracle of the runner's parser,
written from actions/runner, not from the code under test) and are planted in spec
values, parameter names, column names, kbench's ``name``, file paths, and a
manifest's keys and values; the invisible characters are Unicode's format characters
the issue names (U+061C, U+200B-U+200D, U+2060, U+FEFF) and tag characters
(U+E0000-U+E007F). Every output is read by ``commands_in``; each test also checks
that the planted text did reach the output (escaped), so it cannot pass by printing
nothing.
"""

from __future__ import annotations

import json
import os
import pickle
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from github_commands import FORMS, commands_in
from support import in_terminal, run

from tuning_codegen.printable import INVISIBLE

HIDDEN = "\u061c\u200b\u200c\u200d\u2060\ufeff\U000e0000\U000e0041\U000e007f"
HIDDEN_SHOWN = r"\u061c\u200b\u200c\u200d\u2060\ufeff\U000e0000\U000e0041\U000e007f"
NAME_FORMS = [f for f in FORMS if "=" not in f]  # a spec's names hold no "="
NEW = "new ##[warning]planted.pkl"
BASE = "  ::warning::planted.pkl"
TABLE = "t ##[error]planted.yaml"
SGR = re.compile(r"\x1b\[[0-9;]*m")


def _write(path: Path, slower: float = 0.0) -> None:
    """A kbench pickle: every form as a value of SCHED (one config each, at two
    shapes), a parameter named with a form and the hidden characters, a column and
    kbench's name with forms."""
    rows = [(m, bm, s) for m in (8, 64) for bm in (64, 128) for s in FORMS]
    sched = f"S{HIDDEN}"
    frame = pd.DataFrame(
        {
            "mesh_idx": np.arange(len(rows)),
            "name": "k",
            "met (ms)": [
                1.0 + bm / 100 + FORMS.index(s) / 1000 + m / 1e4 + slower
                for m, bm, s in rows
            ],
            "iters": 10,
            NAME_FORMS[0]: NAME_FORMS[1],
            "spec": [f"k/$M={m}/{NAME_FORMS[2]}={bm}/{sched}={s}" for m, bm, s in rows],
            "kbench_filter": "",
        }
    )
    payload = {"merged_df": frame, "build_df": frame[["mesh_idx"]], "name": FORMS[1]}
    path.write_bytes(pickle.dumps(payload))


MANIFEST = (  # block style: its lines show as a diff's context, keys first on them
    "# ::warning::planted in a comment\n"
    "params:\n"
    "- M: 8\n"
    "  ::error::planted: 1\n"
    "  '##[warning]planted': ::warning::x\n"
    "    # ##[group]planted\n"
    '  "S\\u061c\\u200b\\U000e0041": 2\n'
    "  ::notice::planted: '  ::debug::planted'\n"
)


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / NEW)
    _write(tmp_path / BASE, slower=0.5)
    (tmp_path / "out").mkdir()
    (tmp_path / TABLE).write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "curated.yaml").write_text(
        "params:\n- {M: 8, BM: 1}\n", encoding="utf-8"
    )
    (tmp_path / "::warning::broken.pkl").write_bytes(b"not a pickle")
    (tmp_path / "::error::bad.yaml").write_text(
        'params:\n- {M: "\\n::warning::planted", M_END: 4, BM: 1}\n'
    )
    return tmp_path


SHAPE = ["-p", "M"]
RUNS = {
    "views": [NEW, "-r", "--head", "2", "--tail", "2", "-t", "0.5", "--within",
              "0.1", "-v", *SHAPE],
    "-o": [NEW, *SHAPE, "-o", "out/best ##[warning]planted"],
    "--update": [NEW, *SHAPE, "--update", "curated.yaml", "--accept-foreign"],
    "--update --dry-run": [NEW, *SHAPE, "--update", TABLE, "--dry-run",
                           "--accept-foreign"],
    "--update foreign": [NEW, *SHAPE, "--update", TABLE],
    "--diff": ["-d", BASE, NEW, "--out-dir", "out"],
    "--merge": ["--merge", TABLE, "curated.yaml", *SHAPE],
    "--correlation": ["-c", NEW, "--out-dir", "out"],
    "--cover": [NEW, *SHAPE, "--cover", "0.5"],
    "--importance": [NEW, *SHAPE, "--importance"],
    "--ranges": [NEW, "--ranges", "M", "--range-end", "100"],
    "--score": ["--score", TABLE, NEW, *SHAPE, "-v", "--fail-above", "1.01"],
    "--budget": [NEW, *SHAPE, "--budget", "1", "-v"],
    "--combine": [NEW, BASE, *SHAPE, "--combine", "median"],
    "skipped input": [NEW, "::warning::broken.pkl"],
    "usage error": [NEW, "-m", "::warning::planted ##[error]x"],
    "bad table": ["--score", "::error::bad.yaml", NEW, *SHAPE],
    "missing table": ["--score", "##[error]missing planted.yaml", NEW],
}  # fmt: skip
STYLES = {
    "plain": [],
    "rich": ["--color", "always"],
    "markdown": ["--format", "markdown"],
    "json": ["--format", "json"],
}
FAILING = {
    "usage error": 2, "bad table": 2, "missing table": 2, "--score": 1,
    "--update foreign": 2,
}  # fmt: skip
ERRORS = (  # before any report: no JSON
    "usage error", "bad table", "missing table", "--update foreign",
)  # fmt: skip
CASES = [
    (mode, style)
    for mode in RUNS
    for style in sorted(STYLES)
    if not (style == "json" and mode in ERRORS)
]


def _clean(text: str) -> list[str]:
    """What the runner would obey in ``text``, and every hidden character left raw."""
    return [*(line for _, line in commands_in(text)), *sorted(set(text) & INVISIBLE)]


def _written(folder: Path) -> dict[str, str]:
    """Every CSV and YAML kprofile wrote (or edited) in the run."""
    files = [
        *folder.glob("out/*.csv"),
        *folder.glob("out/*.yaml"),
        folder / "curated.yaml",
    ]
    return {str(p): p.read_text(encoding="utf-8") for p in files if p.exists()}


@pytest.mark.parametrize(("mode", "style"), CASES)
def test_no_input_forms_a_workflow_command_or_hides_text(
    planted: Path, capsys: pytest.CaptureFixture[str], mode: str, style: str
) -> None:
    code, out, err = run(capsys, *RUNS[mode], *STYLES[style])
    assert code == FAILING.get(mode, 0), err
    out = SGR.sub("", out)
    assert _clean(out) == [] and _clean(err) == []
    for path, text in _written(planted).items():
        assert _clean(text) == [], path
    shown = out + err
    assert "planted" in shown  # a form reached the output, escaped
    if style == "json" and mode not in ("skipped input",):
        document = json.loads(out)
        values = json.dumps(document, ensure_ascii=False)
        assert "##[" in values or "::" in values  # the values are kept exactly


@pytest.mark.parametrize("style", ["plain", "markdown", "json"])
def test_hidden_characters_are_shown_as_escapes(
    planted: Path, capsys: pytest.CaptureFixture[str], style: str
) -> None:
    """U+061C, the zero-width characters, U+FEFF and tag characters in a parameter
    name: escaped where shown, and back exactly when JSON is read."""
    code, out, err = run(capsys, NEW, *SHAPE, "-r", *STYLES[style])
    assert code == 0 and set(out + err) & INVISIBLE == set()
    if style == "json":
        columns = [c for s in json.loads(out)["sections"] for c in s.get("columns", [])]
        assert f"S{HIDDEN}" in columns
    else:
        assert f"S{HIDDEN_SHOWN}" in out


def test_the_diff_csv_and_the_new_manifest_keep_their_values(
    planted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The escapes are of what a log or a screen sees: the -o manifest reads back
    the planted values exactly (YAML escapes); the CSV shows them as the text
    outputs do."""
    assert run(capsys, NEW, *SHAPE, "-o", "out/best")[0] == 0
    from tuning_codegen.manifest import load_manifest

    manifest = load_manifest("out/best.yaml")
    assert manifest.document["name"] == FORMS[1]
    values = {v for e in manifest.entries for v in e.values.values()}
    assert FORMS[0] in values  # the best SCHED of each shape: the first form
    assert run(capsys, "-d", BASE, NEW, "--out-dir", "out")[0] == 0
    csvs = sorted(Path("out").glob("*.csv"))
    assert len(csvs) == 2  # one a shape: M=8, M=64
    for csv in csvs:
        text = csv.read_text(encoding="utf-8")
        assert f"S{HIDDEN_SHOWN}" in text.splitlines()[0]
        assert "##\\[warning]planted" in text  # the x ##[error] form, and the path's


def test_the_progress_display_forms_no_command(planted: Path) -> None:
    """Through a pseudo-terminal: the progress labels name the files (a path holding
    ``##[warning]``, one starting with ``  ::warning::``); the log a CI runner keeps of
    a terminal splits at every CR and LF."""
    code, out = in_terminal(
        ["kprofile", NEW, BASE, *SHAPE, "--cover", "0.5"], cwd=planted
    )
    assert code == 0
    assert _clean(SGR.sub("", out)) == []
    assert "planted" in out


def test_a_csv_names_a_file_whose_name_is_not_utf8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: internal error (UnicodeEncodeError writing the CSV), exit 3."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "base.pkl", slower=0.5)
    odd = os.fsdecode(b"new\xff.pkl")
    _write(tmp_path / odd)
    code, _, err = run(capsys, "-d", "base.pkl", odd, "--out-dir", ".")
    assert (code, err) == (0, "")
    header = sorted(tmp_path.glob("*.csv"))[0].read_text().splitlines()[0]
    assert header.endswith(",met (ms) [base],met (ms) [new\\udcff],ratio [new\\udcff]")
