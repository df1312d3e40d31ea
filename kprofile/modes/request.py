"""What a mode is given: the data every analysing mode reads (``Data``), built by the
orchestrator (``kprofile.run``) from what it loaded and prepared (``Prepared``).

Each mode's own request (``FilesRequest``, ``CoverRequest``, ...) lives with its
handler and holds ``Data`` and the mode's own settings, plain typed values: a mode
never sees the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from kprofile.core.columns import input_labels
from kprofile.core.metric import Metric
from kprofile.core.problems import Problem, swept
from kprofile.inputs.load import Results
from kprofile.manifest.change import Origin
from kprofile.progress import SILENT, Progress

if TYPE_CHECKING:
    from kprofile.core.runs import CombinedRuns


class Prepared(NamedTuple):
    """The inputs once loaded, filtered (``--query``) and combined (``--combine``),
    and the metric (None for a mode that needs none); ``runs``: the repeated runs
    ``--combine`` joined, and their noise (None without it)."""

    inputs: tuple[Results, ...]  # one per file, or per shape with --combine
    sources: tuple[Results, ...]  # the files as loaded
    metric: Metric | None
    progress: Progress = SILENT
    baseline: int = 0  # -d --baseline: how many of the first inputs are the baseline's
    names: tuple[str, ...] = ()  # each input's name in a table of runs (empty: its
    # file's, core.columns.input_labels); with --combine, the runs it joins
    runs: CombinedRuns | None = None  # --combine's joined runs (one side's)


class Charts(NamedTuple):
    """The pictures asked for (``--plot``, ``--report``): ``heatmap``, the two
    parameters of the per-shape heatmap (None: the two ``--importance`` ranks
    first)."""

    heatmap: tuple[str, str] | None = None


class Data(NamedTuple):
    """What a mode that ranks reads: the inputs, the metric, the ``-p`` columns (empty
    when not given: each mode has its default), where long steps report, and the
    pictures asked for (None: none)."""

    inputs: tuple[Results, ...]
    metric: Metric
    pivots: tuple[str, ...] = ()
    progress: Progress = SILENT
    charts: Charts | None = None
    names: tuple[str, ...] = ()  # Prepared.names

    @property
    def labels(self) -> tuple[str, ...]:
        """What a table of runs calls each input (``Prepared.names``)."""
        return self.names or tuple(input_labels(self.inputs))


def origin_of(inputs: tuple[Results, ...], found: Problem) -> Origin:
    """What ``--update`` checks a change against the manifest by: the results'
    benchmarks and the parameters they sweep."""
    names = tuple(dict.fromkeys(r.name for r in inputs if r.name))
    return Origin(names, swept(inputs, found))
