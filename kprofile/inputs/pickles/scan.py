"""A pass over the opcode stream before the unpickler sees it.

The C unpickler trusts some fields of the stream: a memo index of 2**28 makes it
allocate and clear 4 GiB, a length field makes it allocate that many bytes before
reading them, and keys with colliding hashes make dict building quadratic. This scan
walks every opcode without building anything and refuses a stream unless each opcode
is one a DataFrame pickle uses, each length fits in the file, each memo index is at
most the number of memo entries made so far, the stack and mark discipline holds, and
dict items and integers are few and short, and the objects it would build fit in a
fixed multiple of the file size. It is linear in the file size.
"""

from __future__ import annotations

import mmap
import re
from typing import cast

from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.opcodes import (
    COST_BASE,
    COST_PER_FILE_BYTE,
    FIXED,
    FORBIDDEN,
    LENGTH_BYTES,
    MARK_OPS,
    MEMO_GET,
    MEMO_PUT,
    SIMPLE,
    SLOW_BASE,
    SLOW_PER_FILE_BYTE,
    TEXT_LINES,
    Stack,
)
from kprofile.inputs.pickles.textruns import FRAME_COST, TextRuns


def scan(data: bytes | mmap.mmap) -> None:
    """Refuse ``data`` unless it is a well-formed pickle within this module's bounds."""
    scanner = Scanner(len(data))
    try:
        scanner.run(cast(bytes, data), 0, final=True)  # a mapping reads as bytes
    except IndexError:
        raise RefusedPickle("not a valid pickle (Ran out of input)") from None


GUARD = 16  # bytes past an opcode's start that every hot path may read


class Scanner:
    """The scan of one stream of ``size`` bytes, given whole or in pieces (``run``):
    what it has counted so far, and ``pos``, the offset of the next opcode."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.stack = Stack()
        self.limit, self.slow_left = _budgets(size)
        self.totals = (
            0,
            0,
            0,
            0,
            0,
        )  # depth (less texts and gets), memo, texts, gets, cost
        self.pos = 0
        self.done = False  # STOP was scanned

    def run(self, data: bytes, base: int, final: bool) -> None:
        """Scan ``data``, the stream's bytes from offset ``base`` on, from ``pos``:
        to STOP (``done``); or, in a piece that is not the stream's last, to the
        first opcode that starts within GUARD bytes of its end or whose text line
        runs past it (``pos`` is left at that opcode). In the last piece an opcode
        cut short raises IndexError, as a truncated stream."""
        stop = len(data) + 1 if final else len(data) - GUARD
        self.pos = base + _walk(self, data, self.pos - base, stop, self.size - base)
        if final and not self.done:  # the last opcode's extent runs past the end
            raise IndexError(self.pos)


def _walk(scanner: Scanner, data: bytes, i: int, stop: int, room: int) -> int:
    """The hot loop of ``Scanner.run``: hot opcodes only count; rare ones sync the
    totals (depth, cost) into the stack. ``room``: the stream's bytes from data[0]."""
    stack, limit, slow_left = scanner.stack, scanner.limit, scanner.slow_left
    depth, memo, texts, gets, cost = scanner.totals
    floor, runs, seen = stack.floor, TextRuns(data, room), 0
    while i < stop:
        op = data[i]  # IndexError past the end: truncated
        if op == 0x94:  # MEMOIZE: the commonest opcode, with short strings
            memo, i = memo + 1, i + 1
        elif op == 0x8C:  # SHORT_BINUNICODE
            texts += 1
            i += 2 + data[i + 1]
            while i < stop and data[i] == 0x94 and data[i + 1] == 0x8C:  # another
                if i >= seen:  # not in a window the walk steps: numpy's runs
                    spare = limit - (cost + 72 * texts + 8 * gets + 16 * memo)
                    run, frames, i, seen = runs.take(i, spare, slow_left)
                    memo, texts, slow_left = memo + run, texts + run, slow_left - frames
                    cost += frames * FRAME_COST
                    continue
                memo, texts, i = memo + 1, texts + 1, i + 3 + data[i + 2]
        elif op == 0x68 or op == 0x6A:  # BINGET, LONG_BINGET (the unpickler checks)
            end = _gets_end(data, i, op)
            gets += (end - i) // (2 if op == 0x68 else 5)
            i = end
        elif op == 0x58 or op == 0x8A:  # BINUNICODE (protocols 2-3), LONG1
            texts += 1
            i += 5 + _u32(data, i) if op == 0x58 else 2 + data[i + 1]
        elif op == 0x71 or op == 0x72:  # BINPUT, LONG_BINPUT: never past the memo
            if (data[i + 1] if op == 0x71 else _u32(data, i)) > memo:
                raise RefusedPickle("not a valid pickle (memo index out of order)")
            memo += 1
            i += 2 if op == 0x71 else 5
        elif SIMPLE[op] is not None:
            popped, change, spent, width = SIMPLE[op]  # type: ignore[misc]
            if depth + texts + gets - popped < floor:
                raise RefusedPickle("not a valid pickle (stack underflow)")
            depth, cost, i = depth + change, cost + spent, i + width
        else:
            stack.sync(depth, memo, texts, gets, cost)
            at = _rare_at(scanner, data, i, op, slow_left - 1, room, stop)
            if scanner.done or at == i:  # STOP; a text line past the piece
                i = at
                break
            i, slow_left = at, slow_left - 1
            depth, memo, floor, cost = stack.locals(texts, gets)
    scanner.totals, scanner.slow_left = (depth, memo, texts, gets, cost), slow_left
    return i


def _rare_at(
    scanner: Scanner, data: bytes, i: int, op: int, slow_left: int, room: int, stop: int
) -> int:
    """``_rare`` of the opcode at ``i``: the offset after it (STOP: and
    ``scanner.done``); ``i`` itself where a text line runs past a piece that is
    not the last (nothing counted for it)."""
    try:
        after = _rare(data, i, op, scanner.stack, scanner.limit, slow_left, room)
    except IndexError:
        if stop > len(data):  # the last piece: truncated
            raise
        return i
    if after < 0:
        scanner.done = True
        return i + 1
    return after


def _gets_end(data: bytes, i: int, op: int) -> int:
    """The offset after the memo read at ``i`` and every copy of it that follows
    (a column holding one value), matched at C speed."""
    width = 2 if op == 0x68 else 5
    if data[i + width] == op and data[i + 1] == data[i + width + 1]:
        return _RUNS[op].match(data, i).end()  # type: ignore[union-attr]
    return i + width


def _budgets(size: int) -> tuple[int, int]:
    """The cost a file of ``size`` bytes may spend, and its rare opcodes."""
    limit = (COST_PER_FILE_BYTE - 4) * size + COST_BASE  # 4: text payloads
    return limit, SLOW_BASE + int(size * SLOW_PER_FILE_BYTE)


def _rare(
    data: bytes, i: int, op: int, stack: Stack, limit: int, slow_left: int, room: int
) -> int:
    """A rare opcode, with the totals synced into ``stack``: the position after it,
    or -1 at STOP."""
    if op == 0x2E:  # STOP
        stack.stop(limit)
        return -1
    if slow_left < 0 or stack.cost > limit:
        _too_costly(slow_left)
    return _other(data, i, op, stack, room)


# Runs of one repeated memo read (a column holding one value), matched at C speed.
_RUNS = {
    0x68: re.compile(rb"(h.)\1*", re.DOTALL),
    0x6A: re.compile(rb"(j.{4})\1*", re.DOTALL),
}


def _u32(data: bytes, i: int) -> int:
    return int.from_bytes(data[i + 1 : i + 5], "little")


def _too_costly(slow_left: int) -> None:
    if slow_left < 0:
        raise RefusedPickle("refused: too many unusual opcodes for a result pickle")
    raise RefusedPickle(
        f"refused: unpickling would need over {COST_PER_FILE_BYTE}x the file size "
        "in memory"
    )


def _other(data: bytes, i: int, op: int, stack: Stack, room: int) -> int:
    """Check one less frequent opcode at ``i``; return the offset of the next one."""
    if op in FORBIDDEN:
        raise RefusedPickle(
            f"refused opcode {FORBIDDEN[op]}: not part of a result pickle"
        )
    size = FIXED.get(op)
    if size is not None:
        return _fixed(data, i, op, size, stack, room)
    if op in LENGTH_BYTES:
        return _counted(data, i, op, stack, room)
    if op in TEXT_LINES:
        return _text(data, i, op, stack)
    if op in MARK_OPS:
        stack.mark_op(op)
        return i + 1
    raise RefusedPickle(f"not a valid pickle (unknown opcode 0x{op:02x} at {i})")


def _fixed(data: bytes, i: int, op: int, size: int, stack: Stack, room: int) -> int:
    end = i + 1 + size
    if end > len(data):
        raise IndexError(end)
    arg = int.from_bytes(data[i + 1 : end], "little")
    if op == 0x80 and arg > 5:  # PROTO
        raise RefusedPickle(f"not a valid pickle (unsupported protocol {arg})")
    if op == 0x95 and arg > room - end:  # FRAME
        raise IndexError(arg)
    if op in MEMO_PUT:
        stack.memoize(arg)
    elif op in MEMO_GET:
        stack.get(arg)
    else:
        stack.effect(op)
    return end


def _counted(data: bytes, i: int, op: int, stack: Stack, room: int) -> int:
    width, signed, limit = LENGTH_BYTES[op]
    start = i + 1 + width
    if start > len(data):
        raise IndexError(start)
    length = int.from_bytes(data[i + 1 : start], "little", signed=signed)
    if length < 0 or length > room - start:
        raise RefusedPickle(
            f"not a valid pickle (a length of {length} bytes at {i} overruns the file)"
        )
    if limit is not None and length > limit:
        raise RefusedPickle(f"refused an integer of {length} bytes: too large")
    stack.effect(op)
    return start + length


def _text(data: bytes, i: int, op: int, stack: Stack) -> int:
    """Protocol 0 opcodes whose arguments are newline-terminated lines."""
    lines, longest = TEXT_LINES[op]
    end = i + 1
    line = b""
    for _ in range(lines):
        newline = data.find(b"\n", end)
        if newline < 0:
            raise IndexError(end)
        if longest is not None and newline - end > longest:
            raise RefusedPickle(f"refused a text argument at {i}: over {longest} bytes")
        line, end = data[end:newline], newline + 1
    if op in MEMO_PUT or op in MEMO_GET:
        if not line.isdigit():
            raise RefusedPickle(f"not a valid pickle (memo index {line[:12]!r})")
        if op in MEMO_GET:
            stack.get(int(line))
        else:
            stack.memoize(int(line))
    else:
        stack.effect(op)
    return end
