"""The bytes the reference tool writes, on every input both accept.

From reading the reference (Modular's ``tuning_codegen.py``): it reads the snippet in
text mode (CRLF and CR become LF), loads the manifest with ``yaml.safe_load`` and makes
each entry's keys strings, fills every ``[@NAME]`` with ``str(value)`` (``True``,
``None``), *then* strips trailing whitespace (``str.rstrip``), splits the result with
``str.splitlines`` (a form feed, NEL, U+2028 ... end a line), indents each non-empty
line and adds a comma. The table below holds tricky inputs with the region worked out
by hand from that reading; each goes through the pure functions and through the real
command. A property test compares the renderer with a small model of those steps,
written here. Deliberate differences are in docs/tuning-codegen.md.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support import BIN, examples

from tuning_codegen.manifest import Entry, parse_manifest
from tuning_codegen.render import render_region
from tuning_codegen.snippet import parse_snippet

pytestmark = pytest.mark.slow  # the reference's bytes, property runs and the command

TOOL = str(BIN / "tuning-codegen")
HEAD = "        # Automatically generated from [m.yaml]\n        # index: [{}]\n"
BREAKS = "\f\v\x1c\x1d\x1e\x85\u2028\u2029"


def region(*bodies: str) -> str:
    """Entries whose rendered, indented snippet text is each of ``bodies``."""
    return "\n".join(HEAD.format(i) + body + "," for i, body in enumerate(bodies))


# (name, manifest, snippet file text, the region the reference writes)
CASES = [
    ("empty value last: fill, then strip", "params:\n- {M: 1, E: ''}\n",
     "Cfg(M=[@M])\n[@E]\n", region("        Cfg(M=1)")),
    ("value ending in spaces", "params:\n- {M: 1, E: 'x  '}\n",
     "Cfg(M=[@M]) [@E]\n", region("        Cfg(M=1) x")),
    ("value of spaces on the last line", "params:\n- {M: 1, E: '   '}\n",
     "Cfg(M=[@M])\n    [@E]\n", region("        Cfg(M=1)")),
    ("no-break space stripped too", "params:\n- {M: 1, E: \"x\\u00a0\"}\n",
     "C([@M]) [@E]", region("        C(1) x")),
    ("only an empty value", "params:\n- {E: ''}\n", "[@E]\n", region("")),
    ("trailing blank lines and tabs", "params:\n- {M: 1}\n",
     "Cfg(\n    m=[@M],\n)\t\f\n\n  \n", region("        Cfg(\n            m=1,\n        )")),
    ("leading blank line", "params:\n- {M: 1}\n", "\nCfg(M=[@M])\n",
     region("\n        Cfg(M=1)")),
    ("blank line inside, no indent", "params:\n- {M: 1}\n", "A\n\nB=[@M]\n",
     region("        A\n\n        B=1")),
    ("spaces-only line inside, indented", "params:\n- {M: 1}\n", "A\n  \nB=[@M]\n",
     region("        A\n          \n        B=1")),
    ("tabs", "params:\n- {M: 1}\n", "Cfg(\n\tm=[@M],\n)\n",
     region("        Cfg(\n        \tm=1,\n        )")),
    ("crlf snippet", "params:\n- {M: 1}\n", "Cfg(\r\n    m=[@M],\r\n)\r\n",
     region("        Cfg(\n            m=1,\n        )")),
    ("cr snippet", "params:\n- {M: 1}\n", "Cfg(\r    m=[@M],\r)\r",
     region("        Cfg(\n            m=1,\n        )")),
    *[(f"U+{ord(c):04X} ends a snippet line", "params:\n- {M: 1}\n", f"A=[@M]{c}B\n",
       region("        A=1\n        B")) for c in BREAKS],
    ("unicode", "params:\n- {M: größe}\n", "Ç([@M])\n", region("        Ç(größe)")),
    ("null and bool spellings",
     "params:\n- {A: yes, B: No, C: ~, D: null, E: off, F: TRUE, G: 'yes', H: }\n",
     "[@A] [@B] [@C] [@D] [@E] [@F] [@G] [@H]\n",
     region("        True False None None False True yes None")),
    ("numbers as PyYAML reads them",
     "params:\n- {A: 0x1F, B: 1_000, C: 017, D: 1:30, E: 1.5e3, F: .inf, G: -.Inf,"
     " H: .nan, I: 0o17, J: 1.0, K: 1e+3, L: 6.5e+2}\n",
     "[@A] [@B] [@C] [@D] [@E] [@F] [@G] [@H] [@I] [@J] [@K] [@L]\n",
     region("        31 1000 15 90 1.5e3 inf -inf nan 0o17 1.0 1e+3 650.0")),
    ("the empty tag is null", "params:\n- M: !\n", "C([@M])\n", region("        C(None)")),
    ("a mapping anchor, overridden", "d: &d {M: 1, N: 2}\nparams:\n- <<: *d\n  N: 3\n",
     "[@M],[@N]\n", region("        1,3")),
    ("a list anchor: the first mapping wins",
     "c: &c\n- {M: 1}\n- {N: 2, M: 9}\nparams:\n- <<: *c\n  K: 3\n",
     "[@M],[@N],[@K]\n", region("        1,2,3")),
    ("merged params", "b: &b {params: [{M: 5}]}\n<<: *b\n", "C([@M])\n",
     region("        C(5)")),
    ("yes: is the key True", "params:\n- {yes: 1, 'no': 2}\n", "[@True],[@no]\n",
     region("        1,2")),
    ("crlf manifest", "params:\r\n- M: 1\r\n- M: 2\r\n", "C([@M])\n",
     region("        C(1)", "        C(2)")),
    ("cr manifest", "params:\r- M: 1\r- M: 2\r", "C([@M])\n",
     region("        C(1)", "        C(2)")),
    ("bom-led manifest", "\ufeffparams:\n- M: 1\n", "C([@M])\n", region("        C(1)")),
    ("folded and literal values", "params:\n- M: >-\n    a\n    b\n  N: |-\n    c\n",
     "[@M]/[@N]\n", region("        a b/c")),
]  # fmt: skip


def read_snippet(data: str, path: str) -> str:
    return parse_snippet(data, path, {"BEGIN": "begin", "END": "end"})


@pytest.mark.parametrize(
    ("manifest", "snippet", "expected"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_the_renderer_writes_the_reference_bytes(
    manifest: str, snippet: str, expected: str
) -> None:
    entries = parse_manifest(manifest, "m.yaml").entries
    snippets = {None: read_snippet(snippet, "s.snippet")}
    got = render_region(
        entries, snippets, source_label="m.yaml", manifest_path="m.yaml"
    )
    assert got == expected


def test_the_command_writes_the_reference_bytes(tmp_path: Path) -> None:
    """Every case of the table through the installed script, each in its target."""
    for name, manifest, snippet, expected in CASES:
        folder = tmp_path / re.sub(r"\W+", "-", name)
        folder.mkdir()
        (folder / "m.yaml").write_bytes(manifest.encode())
        (folder / "s.snippet").write_bytes(snippet.encode())
        (folder / "t.mojo").write_bytes(b"x = [\n    # BEGIN\n    # END\n]\n")
        args = ["--manifest", "m.yaml", "--snippet", "s.snippet", "--target", "t.mojo",
                "--begin-marker", "BEGIN", "--end-marker", "END",
                "--source-label", "m.yaml"]  # fmt: skip
        done = subprocess.run(
            [TOOL, *args], cwd=folder, capture_output=True, text=True, check=False
        )
        assert (done.returncode, done.stderr) == (0, ""), name
        target = (folder / "t.mojo").read_bytes().decode()
        assert target == f"x = [\n    # BEGIN\n{expected}\n    # END\n]\n", name
        again = subprocess.run([TOOL, *args, "--check"], cwd=folder, check=False)
        assert again.returncode == 0, name


def test_a_value_utf8_cannot_encode_is_refused_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text('params:\n- M: 1\n- M: "\\ud800"\n')
    (tmp_path / "s.snippet").write_text("C([@M])\n")
    (tmp_path / "t.mojo").write_text("# BEGIN\n# END\n")
    done = subprocess.run(
        [TOOL, "--manifest", "m.yaml", "--snippet", "s.snippet", "--target", "t.mojo",
         "--begin-marker", "BEGIN", "--end-marker", "END"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "m.yaml:3: error: params[1]: value of M contains a lone surrogate (U+D800), "
        "which no UTF-8 file can hold\n"
    )
    assert (tmp_path / "t.mojo").read_text() == "# BEGIN\n# END\n"


# --- a model of the reference's rendering, written from reading it -----------------


def model(snippet_file: str, values: dict[str, Any], indent: str) -> str:
    """One entry as the reference renders it (index 0, label m.yaml)."""
    text = snippet_file.replace("\r\n", "\n").replace("\r", "\n")  # text-mode read

    def literal(match: re.Match[str]) -> str:
        value = values[match.group(1)]
        return "None" if value is None else str(value)

    filled = re.sub(r"\[@([A-Za-z_][A-Za-z0-9_]*)\]", literal, text).rstrip()
    lines = [indent + line if line else line for line in filled.splitlines()]
    head = f"{indent}# Automatically generated from [m.yaml]\n{indent}# index: [0]\n"
    return head + "\n".join(lines) + ","


NAMES = ["A", "B", "CLUSTER"]
SNIPPET_PIECES = [
    "Cfg(", ")", "x=", ",", " ", "  ", "\t", "\n", "\r\n", "\r", *BREAKS, "é",
    "\u00a0", "\u3000", "[", "]", "@", "[@A]", "[@B]", "[@CLUSTER]",
]  # fmt: skip
VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(st.sampled_from(list("ab ()é\t\u00a0\u3000")), max_size=6),
)


@settings(max_examples=examples(600), deadline=None)
@given(
    pieces=st.lists(st.sampled_from(SNIPPET_PIECES), min_size=1, max_size=14),
    values=st.fixed_dictionaries({name: VALUE for name in NAMES}),
    indent=st.sampled_from(["        ", "", "\t", "  "]),
)
def test_rendering_is_the_reference_model(
    pieces: list[str], values: dict[str, Any], indent: str
) -> None:
    snippet_file = "".join(pieces)
    # refused here, not by the reference: an empty snippet (it writes ","), and "[@"
    # not starting a placeholder (it leaves the text as it is)
    assume(snippet_file.replace("\r", "\n").strip())
    assume("[@" not in re.sub(r"\[@([A-Za-z_][A-Za-z0-9_]*)\]", "", snippet_file))
    entry = Entry(0, 1, values)
    got = render_region(
        [entry],
        {None: read_snippet(snippet_file, "s.snippet")},
        source_label="m.yaml",
        manifest_path="m.yaml",
        indent=indent,
    )
    assert got == model(snippet_file, values, indent)
