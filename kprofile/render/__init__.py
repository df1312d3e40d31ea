"""Rendering report sections: rich tables on a terminal, plain text when piped,
Markdown, or one JSON document; and the charts modes draw.

Text and Markdown round floats to 3 decimal places; JSON keeps full precision (and
``null`` for missing values) because programs read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from kprofile.render.jsondoc import render_json
from kprofile.render.markdown import render_markdown
from kprofile.render.section import Section
from kprofile.render.text import render_plain, render_rich


def render(
    sections: Sequence[Section], fmt: str, stream: IO[str], header: dict[str, Any]
) -> None:
    """Write ``sections`` to ``stream`` as ``fmt`` (text, markdown or json).

    Text is rich tables when ``stream`` is a terminal and plain text otherwise.
    ``header`` (metric, inputs, skipped, written) only goes into JSON.
    """
    if fmt == "json":
        stream.write(render_json(sections, header))
    elif fmt == "markdown":
        stream.write(render_markdown(sections))
    elif stream.isatty():
        render_rich(sections, stream)
    else:
        stream.write(render_plain(sections))
    stream.flush()
