"""Rendering report sections: rich tables on a terminal, plain text when piped,
Markdown, or one JSON document; and the charts modes draw.

Text and Markdown round floats to 3 decimal places (3 significant digits below 0.1:
``render.cells``); JSON keeps full precision (and
``null`` for missing values) because programs read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from kprofile.render.jsondoc import render_json
from kprofile.render.markdown import render_markdown
from kprofile.render.section import Section
from kprofile.render.text import render_plain, render_rich
from tuning_codegen.colour import wants_colour


def render(
    sections: Sequence[Section],
    fmt: str,
    stream: IO[str],
    header: dict[str, Any],
    *,
    colour: str = "auto",
) -> None:
    """Write ``sections`` to ``stream`` as ``fmt`` (text, markdown or json).

    Text is rich tables when ``stream`` is a terminal (or ``colour`` is ``always``)
    and plain text otherwise; ``colour`` (auto, always, never) and ``NO_COLOR`` decide
    its colours. ``header`` (metric, inputs, skipped, written) only goes into JSON.
    """
    if fmt == "json":
        stream.write(render_json(sections, header, getattr(stream, "encoding", None)))
    elif fmt == "markdown":
        stream.write(render_markdown(sections))
    elif colour == "always" or stream.isatty():
        render_rich(sections, stream, colour=wants_colour(stream, colour))
    else:
        stream.write(render_plain(sections))
    stream.flush()
