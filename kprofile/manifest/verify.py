"""An update must read back as intended before it is written: every entry of
``params`` as expected, and every key outside it as it was. A text edit could reach
further than its entry (an anchor used elsewhere, a quote or an indentation that changes
how the rest of the file reads), so the whole new text is read again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kprofile.manifest.layout import Layout, read_entries
from tuning_codegen.errors import InputError
from tuning_codegen.values import same_entry


def check_update(
    new_text: str,
    path: str,
    layout: Layout,
    expected: Sequence[Mapping[str, Any]],
    *,
    action: str = "update in place",
    suspect: str = "a shared anchor?",
) -> None:
    """``new_text`` holds the ``expected`` entries (merged values) and the keys outside
    ``params`` that ``layout`` read; else a InputError saying what would change
    (``cannot {action}: ... ({suspect})``)."""
    try:
        got, document = read_entries(new_text, path)
    except InputError as exc:
        raise InputError(
            path,
            f"the update would not be a valid manifest ({exc.message}); "
            "nothing was written",
        ) from None
    bad = next(
        (
            i
            for i in range(max(len(got), len(expected)))
            if i >= len(got) or i >= len(expected) or not _same(got[i], expected[i])
        ),
        None,
    )
    other_old = {k: v for k, v in layout.document.items() if k != "params"}
    other_new = {k: v for k, v in document.items() if k != "params"}
    if bad is not None or other_old != other_new:
        where = f"params[{bad}]" if bad is not None else "keys outside params"
        raise InputError(
            path,
            f"cannot {action}: the edit would also change {where} ({suspect}); "
            "nothing was written",
        )


_SCALARS = (str, int, float, bool, type(None))


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """``same_entry``, answered at once for the usual entry: equal mappings of scalars
    of the same types (which makes each pair the same value; ``same_entry`` decides
    every other case, such as ``1`` against ``true``)."""
    if a == b and all(
        type(value) is type(b[key]) and type(value) in _SCALARS
        for key, value in a.items()
    ):
        return True
    return same_entry(a, b)
