"""Sections and charts as one self-contained HTML page (``--report FILE.html``).

Plain semantic HTML, in the spirit of coverage.py's and asv's reports: a heading per
section, its facts as a definition list, its table a ``<table>`` with a
``<caption>`` and ``<th scope>``, numbers right-aligned and shown as every text
renderer shows them (``render.cells``); the charts as ``<figure>``s whose images are
PNGs inlined as ``data:image/png;base64`` URLs, each captioned and described by the
question it answers; a contents list of the sections and of the shapes the charts
are about. Every text from an input (titles, cells, values, notes, paths) is shown
through ``one_line`` and HTML-escaped. Nothing loads from elsewhere: the page's one
style sheet and one script are inline, and its Content-Security-Policy allows only
them (by hash) and ``data:`` images (``render.htmlassets``). Long tables are sortable
and filterable with the script, and read the same without it.
"""

from __future__ import annotations

import base64
import html
import struct
from collections.abc import Sequence
from typing import Any

from kprofile.render.cells import cell, note_lines, table_cells
from kprofile.render.htmlassets import POLICY, SCRIPT, STYLE
from kprofile.render.section import Picture, Section
from tuning_codegen.errors import one_line

LONG = 12  # rows from which a table is sortable and filterable


def text(value: str) -> str:
    """``value`` on one line, escaped for HTML text and attribute values."""
    return html.escape(one_line(value), quote=True)


def render_html(
    sections: Sequence[Section],
    pictures: Sequence[tuple[Picture, bytes]],
    header: dict[str, Any],
) -> str:
    """The whole page. ``pictures``: each chart with its PNG bytes; ``header``: the
    run's metric and inputs, as JSON's header holds them."""
    shapes = list(dict.fromkeys(p.shape for p, _ in pictures if p.shape))
    body = [
        "<h1>kprofile report</h1>",
        _run_facts(header),
        _contents(sections, pictures, shapes),
        *(_section(s, i) for i, s in enumerate(sections)),
        *_charts(pictures, shapes),
    ]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>kprofile report</title>",
            f"<style>{STYLE}</style>",
            "</head>",
            "<body>",
            *body,
            f"<script>{SCRIPT}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _run_facts(header: dict[str, Any]) -> str:
    metric = header.get("metric")
    facts: list[tuple[str, str]] = []
    if metric:
        better = "higher" if metric["higher_is_better"] else "lower"
        facts.append(("metric", f"{metric['column']} ({better} is better)"))
    inputs = header.get("inputs", [])
    facts.append(("inputs", ", ".join(inputs) or "-"))
    if header.get("failed"):
        facts.append(("failed", header["failed"]))
    return _facts(facts)


def _facts(facts: Sequence[tuple[str, Any]]) -> str:
    if not facts:
        return ""
    items = "".join(
        f"<dt>{text(str(k))}</dt><dd>{text(cell(v))}</dd>" for k, v in facts
    )
    return f'<dl class="facts">{items}</dl>'


def _contents(
    sections: Sequence[Section],
    pictures: Sequence[tuple[Picture, bytes]],
    shapes: list[str],
) -> str:
    links = [
        f'<li><a href="#section-{i}">{text(s.title)}</a></li>'
        for i, s in enumerate(sections)
    ]
    if any(not p.shape for p, _ in pictures):
        links.append('<li><a href="#charts">Charts of the whole run</a></li>')
    by_shape = [
        f'<li><a href="#shape-{i}">{text(shape)}</a></li>'
        for i, shape in enumerate(shapes)
    ]
    parts = ['<nav aria-labelledby="contents"><h2 id="contents">Contents</h2>']
    parts.append(f"<ul>{''.join(links)}</ul>")
    if by_shape:
        parts.append(f"<h3>By shape</h3><ul>{''.join(by_shape)}</ul>")
    return "".join(parts) + "</nav>"


def _section(section: Section, index: int) -> str:
    parts = [f'<section id="section-{index}">', f"<h2>{text(section.title)}</h2>"]
    parts.append(_facts(section.facts))
    if section.table is not None:
        parts.append(_table(section))
    for note in section.notes:
        lines = "\n".join(html.escape(line) for line in note_lines(note))
        parts.append(f'<p class="note">{lines}</p>')
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def _table(section: Section) -> str:
    assert section.table is not None
    if section.table.empty:
        return "<p>(no entries)</p>"
    header, rows, numeric = table_cells(section.table)
    kind = ["num" if n else "text" for n in numeric]
    heads = "".join(
        f'<th scope="col" class="{k}">{html.escape(h)}</th>'
        for h, k in zip(header, kind)
    )
    marks = set(section.highlight)
    body = []
    for i, row in enumerate(rows):
        best = ' class="best"' if i in marks else ""
        cells = "".join(
            f'<td class="{k}">{html.escape(c)}</td>' for c, k in zip(row, kind)
        )
        body.append(f"<tr{best}>{cells}</tr>")
    long = ' class="long"' if len(rows) >= LONG else ""
    return (
        f'<div class="scroll"><table{long}><caption>{text(section.title)}</caption>'
        f"<thead><tr>{heads}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def _charts(pictures: Sequence[tuple[Picture, bytes]], shapes: list[str]) -> list[str]:
    """The run's charts, then each shape's."""
    out = []
    run = [_figure(p, png) for p, png in pictures if not p.shape]
    if run:
        out.append('<section id="charts"><h2>Charts of the whole run</h2>')
        out += [*run, "</section>"]
    for i, shape in enumerate(shapes):
        mine = [_figure(p, png) for p, png in pictures if p.shape == shape]
        out.append(f'<section id="shape-{i}"><h2>{text(shape)}</h2>')
        out += [*mine, "</section>"]
    return out


def _figure(picture: Picture, png: bytes) -> str:
    width, height = png_size(png)
    data = base64.b64encode(png).decode()
    title = text(picture.title)
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{title}" '
        f'width="{width}" height="{height}"><figcaption>{title}</figcaption></figure>'
    )


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (0, 0 if it is none)."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        return 0, 0
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)
