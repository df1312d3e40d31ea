"""tuning-codegen command line (being built)."""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    raise SystemExit("not implemented yet")
