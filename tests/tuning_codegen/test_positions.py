"""tuning_codegen.positions: the manifest with its offsets reads as ``parse_manifest``
reads it, on the inputs the one pass must leave to ``parse_manifest``: documents near
the bounds (aliases expanding past the node budget, nesting past ``MAX_DEPTH``), a
value the constructor refuses (an integer too long to write as text), characters YAML
does not allow, entries that are the same only as values. ``parse_manifest`` is the
oracle: the same values, or the same error, word for word.
"""

from __future__ import annotations

import pytest

from tuning_codegen.errors import InputError
from tuning_codegen.manifest import parse_manifest
from tuning_codegen.positions import Unlocatable, read_positioned, read_values
from tuning_codegen.yamlbounds import MAX_DEPTH
from tuning_codegen.yamlload import MAX_INT_DIGITS


def _bomb(levels: int) -> str:
    """Each anchor a list of ten aliases of the one before: 10**levels nodes."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for n in range(1, levels):
        lines.append(f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]")
    lines.append(f"params:\n- M: 1\n  B: *a{levels - 1}")
    return "\n".join(lines) + "\n"


def _deep(depth: int) -> str:
    return "params:\n- M: " + "[" * depth + "1" + "]" * depth + "\n"


CASES = {
    "alias bomb": _bomb(8),
    "aliases within the budget": _bomb(3),
    "nested past the bound": _deep(MAX_DEPTH + 1),
    "nested just within it": _deep(MAX_DEPTH - 4),
    "integer too long": f"params:\n- M: {'9' * (MAX_INT_DIGITS + 1)}\n",
    "integer of the most digits": f"params:\n- M: {'9' * MAX_INT_DIGITS}\n",
    "control character": "params:\n- M: 1\n  S: 'a\x01b'\n",
    "same entries as values": "params:\n- {M: 1, A: 2}\n- {A: 2.0, M: 1.0}\n",
    "a boolean is not a number": "params:\n- {M: 1}\n- {M: true}\n",
    "the same list twice": "params:\n- {M: [1, 2]}\n- {M: [1, 2.0]}\n",
    "NaN twice": "params:\n- {M: .nan}\n- {M: .NaN}\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_positioned_read_is_parse_manifests(name: str) -> None:
    text = CASES[name]
    try:
        manifest = parse_manifest(text, "t.yaml")
    except InputError as exc:
        for reader in (read_positioned, read_values):
            with pytest.raises(InputError) as info:
                reader(text, "t.yaml")
            assert str(info.value) == str(exc)
        return
    found = read_positioned(text, "t.yaml")
    assert [repr(e) for e in found.entries] == [
        repr(e.values) for e in manifest.entries
    ]
    assert repr(found.document) == repr(manifest.document)
    merged, document = read_values(text, "t.yaml")
    assert [repr(e) for e in merged] == [repr(e.values) for e in manifest.entries]
    assert repr(document) == repr(manifest.document)


def test_the_bounds_refuse_what_they_refuse_for_the_code_generator() -> None:
    """Not a case that happens to agree: these are refused, by both."""
    for name in ("alias bomb", "nested past the bound", "integer too long"):
        with pytest.raises(InputError):
            read_positioned(CASES[name], "t.yaml")


def test_a_manifest_it_cannot_locate_is_said_after_parse_manifest_read_it() -> None:
    text = "<<: {params: [{M: 1}]}\nx: 1\n"
    assert [dict(e.values) for e in parse_manifest(text, "t").entries] == [{"M": 1}]
    with pytest.raises(Unlocatable) as info:
        read_positioned(text, "t.yaml")
    assert str(info.value) == (
        "its 'params' list comes through a top-level merge key (<<); write "
        "'params:' in the file itself"
    )


def test_offsets_point_at_the_text() -> None:
    text = "d: &d {A: 1}\nparams:\n- <<: *d\n  M: 256  # big\n  S: 'x'\n"
    found = read_positioned(text, "t.yaml")
    [entry] = found.params.items
    assert entry.record is not None
    spans = [
        (text[p.key_start : p.key_end], text[p.value_start : p.value_end])
        for p in entry.record.pairs
    ]
    assert spans == [("<<", "*d"), ("M", "256"), ("S", "'x'")]
    assert [dict(d) for d in found.defaults] == [{"A": 1}]
    assert {k: (s.value, s.style) for k, s in found.styles.items()} == {
        "A": ("1", None),
        "M": ("256", None),
        "S": ("x", "'"),
    }
