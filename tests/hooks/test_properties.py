"""Properties of splicing over generated inputs: outside bytes kept, idempotent, inverse."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hooks.splice import replace_region

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
