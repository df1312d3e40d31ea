"""kprofile command line (being built)."""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    raise SystemExit("kprofile: not implemented yet")
