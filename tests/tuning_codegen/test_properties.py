"""Properties over generated inputs: outside bytes kept, idempotent, inverse.

First of splicing alone, then of regenerating whole targets from random manifests,
snippets and targets (markers on comment lines, random text around them, LF or CRLF).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tuning_codegen.generate import plan
from tuning_codegen.languages import LANGUAGES
from tuning_codegen.regenerate import regenerate
from tuning_codegen.splice import replace_region, split_lines
from tuning_codegen.table import Table
from tuning_codegen.values import entry_key

line_text = st.text(
    alphabet=st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)),
    max_size=12,
).filter(lambda s: "BEGIN" not in s and "END" not in s)
lines = st.lists(line_text, max_size=5)
newline = st.sampled_from(["\n", "\r\n"])
region = st.lists(line_text.filter(bool), min_size=1, max_size=4).map("\n".join)


@given(
    before=lines,
    inside=lines,
    after=lines,
    nl=newline,
    generated=region,
    final_newline=st.booleans(),
)
def test_only_the_region_changes(
    before: list[str],
    inside: list[str],
    after: list[str],
    nl: str,
    generated: str,
    final_newline: bool,
) -> None:
    head = "".join(line + nl for line in before) + "// BEGIN" + nl
    tail = (
        "// END" + "".join(nl + line for line in after) + (nl if final_newline else "")
    )
    text = head + "".join(line + nl for line in inside) + tail
    result = replace_region(text, "BEGIN", "END", generated)
    assert result == head + generated.replace("\n", nl) + nl + tail
    assert replace_region(result, "BEGIN", "END", generated) == result
    # splicing the old contents back restores the original bytes
    old_region = "".join(line + nl for line in inside)
    if old_region:
        restored = replace_region(
            result, "BEGIN", "END", old_region[: -len(nl)].replace(nl, "\n")
        )
        assert restored == text


# --- regenerating whole targets: random manifests, snippets and targets -----------------

NAMES = ["M", "N", "K", "TILE", "_flag", "x9"]
plain = st.text(
    alphabet=st.characters(
        blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029[",
        # no control, format (invisible) or unassigned (the tag block) characters:
        # values with them are refused, not written
        blacklist_categories=("Cs", "Cc", "Cf", "Cn"),
    ),
    max_size=10,
).filter(lambda s: "MARK" not in s)
value = st.one_of(
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    plain,
)


@st.composite
def table_case(draw: st.DrawFn, index: int) -> tuple[str, str, str, str]:
    """(manifest YAML, snippet, begin marker, end marker) of one table."""
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
    entries = draw(
        st.lists(st.fixed_dictionaries({n: value for n in names}), max_size=4)
    )
    unique = list({entry_key(e): e for e in entries}.values())  # the manifest's rule
    manifest = yaml.safe_dump({"params": unique}, allow_unicode=True)
    pieces = draw(st.lists(st.one_of(plain, st.sampled_from(names)), min_size=1))
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    snippet = nl.join(f"[@{p}]" if p in names else p for p in pieces) + "x"
    return manifest, snippet, f"BEGIN-MARK-{index}", f"END-MARK-{index}"


@st.composite
def target_case(draw: st.DrawFn, count: int) -> str:
    """A target: unrelated lines around ``count`` marked regions, in a random order."""
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    order = draw(st.permutations(range(count)))
    lines: list[str] = draw(st.lists(plain, max_size=3))
    for i in order:
        indent = draw(st.sampled_from(["", "  ", "\t"]))
        lines.append(f"{indent}# BEGIN-MARK-{i}{draw(plain)}")
        lines += draw(st.lists(plain, max_size=3))  # an old region
        lines.append(f"{indent}# END-MARK-{i}")
        lines += draw(st.lists(plain, max_size=3))
    return nl.join(lines) + draw(st.sampled_from(["", nl]))


def outside_regions(text: str, count: int) -> list[str]:
    """The text with every region's inside cut out: what must never change."""
    kept, inside = [], False
    for line in split_lines(text):
        if "END-MARK-" in line:
            inside = False
        if not inside:
            kept.append(line)
        if "BEGIN-MARK-" in line:
            inside = True
    return kept


@pytest.mark.slow  # a property run, or a real process under a limit
@settings(max_examples=60, deadline=None)
@given(data=st.data(), count=st.integers(1, 3))
def test_regenerating_twice_is_once_and_outside_bytes_never_change(
    data: st.DataObject, count: int
) -> None:
    cases = [data.draw(table_case(i)) for i in range(count)]
    original = data.draw(target_case(count))
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        target = root / "target.py"
        target.write_bytes(original.encode())
        tables = []
        for i, (manifest, snippet, begin, end) in enumerate(cases):
            (root / f"m{i}.yaml").write_text(manifest, encoding="utf-8")
            (root / f"s{i}.snippet").write_bytes(snippet.encode())
            tables.append(
                Table(
                    f"t{i}",
                    str(root / f"m{i}.yaml"),
                    str(root / f"s{i}.snippet"),
                    str(target),
                    begin,
                    end,
                    f"m{i}.yaml",
                    language=LANGUAGES["python"],
                )  # fmt: skip
            )
        regenerate(tables)
        once = target.read_bytes().decode()
        assert outside_regions(once, count) == outside_regions(original, count)
        if "\r\n" in original:  # a CRLF file stays CRLF, generated lines included
            assert once.count("\n") == once.count("\r\n")
        assert not [u for u in regenerate(tables) if u.stale]  # nothing written
        assert target.read_bytes().decode() == once
        assert not any(u.stale for u in plan(tables))
