"""Unified diffs of whole files, exact about missing final newlines.

Lines are what git splits: only LF ends one (a form feed or a CR is part of its line),
so that ``git apply`` and ``patch`` accept every diff printed. The cost grows with the
size of the change, not with the square of the file's: the common head and tail are
set aside first; in what remains, lines that occur exactly once on each side are
matched in order (the longest increasing run of them, as in patience diff), and the
stretches between matches are diffed the same way, down to stretches small enough for
difflib's quadratic matcher. A small file is compared by difflib whole, as it always
was. Hunks have three lines of context, like ``diff -u``; each hunk's header may name
what its first change falls in, as git names the function (``heading``): ``@@ -20,7
+20,7 @@ # index: [3] M=256/N=4096/K=4096``, text ``git apply`` and ``patch``
skip.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from tuning_codegen.gcpause import paused_gc

CONTEXT = 3
NO_NEWLINE = "\\ No newline at end of file"
SMALL = 40_000  # lines(a) * lines(b) up to which difflib compares a stretch
SMALL_FILE = 1_000_000  # ... and a whole file (0.1 s at worst)

Block = tuple[int, int, int]  # a[i:i+n] == b[j:j+n]
Op = tuple[str, int, int, int, int]  # tag, a[i1:i2], b[j1:j2]
Heading = Callable[[int], str]  # a line of the new text (0-based) -> what it is in


def diff_lines(text: str) -> list[str]:
    """The lines of ``text`` as git sees them, without their LF; the last one marked
    if it has none (so it differs from the same line with one)."""
    lines = text.split("\n")
    last = lines.pop()
    if last:
        lines.append(f"{last}\n{NO_NEWLINE}")
    return lines


def unified_diff(
    old: str, new: str, fromfile: str, tofile: str, heading: Heading | None = None
) -> str:
    """``old`` -> ``new`` as a unified diff ("" if they are equal); ``heading``
    names, after a hunk's ranges, what the hunk's first change falls in: it is given
    that change's first line in ``new`` (for lines only taken out, the line before
    them; -1 at the top) and returns one line of text, or "" for none."""
    a, b = diff_lines(old), diff_lines(new)
    with paused_gc():
        hunks = list(_hunks(_opcodes(matching_blocks(a, b), len(a), len(b))))
    if not hunks:
        return ""
    out = [f"--- {fromfile}\n", f"+++ {tofile}\n"]
    for hunk in hunks:
        out.append(_header(hunk, heading))
        for tag, i1, i2, j1, j2 in hunk:
            if tag == "equal":
                out += [f" {line}\n" for line in a[i1:i2]]
                continue
            out += [f"-{line}\n" for line in a[i1:i2]]
            out += [f"+{line}\n" for line in b[j1:j2]]
    return "".join(out)


def matching_blocks(a: Sequence[str], b: Sequence[str]) -> list[Block]:
    """Blocks of equal lines, in order, neither side's lines used twice."""
    if len(a) * len(b) <= SMALL_FILE:
        return _difflib_blocks(a, b, 0, len(a), 0, len(b), autojunk=True)
    blocks: list[Block] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        start = alo
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            alo, blo = alo + 1, blo + 1
        if alo > start:
            blocks.append((start, blo - (alo - start), alo - start))
        end = ahi
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
        if ahi < end:
            blocks.append((ahi, bhi, end - ahi))
        if alo == ahi or blo == bhi:
            continue
        if (ahi - alo) * (bhi - blo) <= SMALL:
            if not set(a[alo:ahi]).isdisjoint(b[blo:bhi]):  # else: replaced lines
                blocks += _difflib_blocks(a, b, alo, ahi, blo, bhi)
            continue
        previous_i, previous_j = alo, blo  # nothing to hold on to: a replacement
        for i, j in _unique_anchors(a, b, alo, ahi, blo, bhi):
            stack.append((previous_i, i, previous_j, j))
            blocks.append((i, j, 1))
            previous_i, previous_j = i + 1, j + 1
        if (previous_i, previous_j) != (alo, blo):
            stack.append((previous_i, ahi, previous_j, bhi))
    return _merged(sorted(blocks))


def _difflib_blocks(
    a: Sequence[str],
    b: Sequence[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    *,
    autojunk: bool = False,
) -> list[Block]:
    matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=autojunk)
    return [(alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n]


def _unique_anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines found once in a[alo:ahi] and once in b[blo:bhi], the
    longest run of them increasing on both sides."""
    a_part, b_part = a[alo:ahi], b[blo:bhi]
    in_a, in_b = Counter(a_part), Counter(b_part)
    where_a = {line: i for i, line in enumerate(a_part, alo) if in_a[line] == 1}
    where_b = {line: j for j, line in enumerate(b_part, blo) if in_b[line] == 1}
    pairs = sorted((where_a[line], j) for line, j in where_b.items() if line in where_a)
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by i) increasing in j."""
    tops: list[int] = []  # smallest j ending an increasing run of each length
    top_index: list[int] = []
    before: list[int] = []
    for index, (_, j) in enumerate(pairs):
        length = bisect_left(tops, j)
        if length == len(tops):
            tops.append(j)
            top_index.append(index)
        else:
            tops[length] = j
            top_index[length] = index
        before.append(top_index[length - 1] if length else -1)
    run: list[tuple[int, int]] = []
    at = top_index[-1] if top_index else -1
    while at >= 0:
        run.append(pairs[at])
        at = before[at]
    return run[::-1]


def _merged(blocks: list[Block]) -> list[Block]:
    out: list[Block] = []
    for i, j, n in blocks:
        if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + n)
        else:
            out.append((i, j, n))
    return out


def _opcodes(blocks: list[Block], len_a: int, len_b: int) -> list[Op]:
    ops: list[Op] = []
    i = j = 0
    for bi, bj, n in [*blocks, (len_a, len_b, 0)]:
        if i < bi or j < bj:
            tag = "replace" if i < bi and j < bj else "delete" if i < bi else "insert"
            ops.append((tag, i, bi, j, bj))
        if n:
            ops.append(("equal", bi, bi + n, bj, bj + n))
        i, j = bi + n, bj + n
    return ops


def _hunks(ops: list[Op]) -> Iterator[list[Op]]:
    """Changes with ``CONTEXT`` equal lines around them; changes closer than twice
    that share a hunk."""
    hunk: list[Op] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag != "equal":
            hunk.append((tag, i1, i2, j1, j2))
            continue
        if hunk and (index == len(ops) - 1 or i2 - i1 > 2 * CONTEXT):
            keep = min(i2 - i1, CONTEXT)  # context after the hunk's last change
            hunk.append((tag, i1, i1 + keep, j1, j1 + keep))
            yield hunk
            hunk = []
        elif hunk:
            hunk.append((tag, i1, i2, j1, j2))
            continue
        if index < len(ops) - 1:  # context before the next change
            keep = min(i2 - i1, CONTEXT)
            hunk = [(tag, i2 - keep, i2, j2 - keep, j2)]
    if any(op[0] != "equal" for op in hunk):
        yield hunk


def _header(hunk: list[Op], heading: Heading | None) -> str:
    ranges = (
        f"@@ -{_range(hunk[0][1], hunk[-1][2])} +{_range(hunk[0][3], hunk[-1][4])} @@"
    )
    named = "" if heading is None else heading(_first_change(hunk))
    return f"{ranges} {named}\n" if named else f"{ranges}\n"


def _first_change(hunk: list[Op]) -> int:
    """The line of the new text where ``hunk`` first changes (lines only taken out:
    the line before them)."""
    for tag, _, _, j1, j2 in hunk:
        if tag != "equal":
            return j1 if j2 > j1 else j1 - 1
    return -1


def _range(start: int, stop: int) -> str:
    """``start,length`` of a hunk (1-based; an empty one names the line before)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"
