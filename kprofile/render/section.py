"""What a mode reports: sections of facts and tables, for ``kprofile.render``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd


@dataclass(frozen=True, eq=False)
class Section:
    """One block of output.

    ``view`` names the kind (``summary``, ``ratio``, ``head``, ...); ``facts`` are
    label/value pairs; ``table`` is the tabular part; ``highlight`` lists table row
    positions to emphasise (the best entry); ``notes`` are extra lines.
    """

    view: str
    title: str
    source: str | None = None
    facts: tuple[tuple[str, Any], ...] = ()
    table: pd.DataFrame | None = None
    highlight: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()
