"""``--plot DIR`` and ``--report FILE.html``: the pictures a run offers, drawn once,
written as PNG files into DIR (created if missing) and inlined in one HTML page,
through the one all-or-nothing writer (``sinks.files.write_files``): every file is
complete, or none changed.

File names come from each picture's name (``top-M=256_N=256_K=256.png``), made safe
and unique by ``sinks.files.safe_file_names``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kprofile.progress import SILENT, Progress
from kprofile.render.charts.canvas import png_bytes
from kprofile.render.html import render_html
from kprofile.render.section import Picture, Section
from kprofile.sinks.derived import Written, created
from kprofile.sinks.files import safe_file_names, write_files


def drawn(
    pictures: Sequence[Picture], progress: Progress = SILENT
) -> list[tuple[Picture, bytes]]:
    """Each picture with its PNG bytes."""
    out = []
    with progress("drawing the charts", len(pictures)) as advance:
        for picture in pictures:
            out.append((picture, png_bytes(picture.draw())))
            advance(1)
    return out


def write_pictures(
    pictures: Sequence[tuple[Picture, bytes]],
    *,
    plot: str | None,
    report: str | None,
    sections: Sequence[Section],
    header: dict[str, Any],
) -> Written:
    """The PNGs into ``plot`` and the page into ``report``, all or none."""
    files: dict[Path, bytes] = {}
    if plot is not None:
        folder = created(plot, "--plot")
        names = safe_file_names(
            [p.name for p, _ in pictures], suffix=".png", fallback="chart"
        )
        files.update((folder / n, png) for n, (_, png) in zip(names, pictures))
    if report is not None:
        path = Path(report)
        created(str(path.parent), "--report")
        page = render_html(sections, pictures, header)
        files[path] = page.encode("utf-8")
    return write_files(files)
