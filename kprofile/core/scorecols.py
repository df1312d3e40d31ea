"""The words of a score (``kprofile.core.score``): each shape's status and the columns
of ``Score.shapes`` besides the shape columns.

Plain constants, importing nothing: the modes that show a score (``--score``,
``--budget``, the ``--fail-above`` gate) name its columns at their top level, and the
mode table imports every mode at start-up, before anything is scored.
"""

from __future__ import annotations

SCORED = "scored"
NO_ENTRY = "no entry"
NO_RUN = "no successful run"
NOT_MEASURED = "not measured"
FAILED = "config failed"

STATUS = "status"
ENTRY = "entry"
CONFIG = "config"
VALUE = "value"
BEST = "best"
RATIO = "ratio"
KIND = "failure"  # a failed config's kind, as kbench recorded it
RUN_FAILED = "failed"  # the kind of a failure kbench recorded nothing of
