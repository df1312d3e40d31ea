"""The pickle opcodes a result pickle may hold, and the stack model the scan checks.

Each opcode is described by its argument format and its effect on the unpickler's
stack, as the C unpickler implements them (pickletools documents the same).
"""

from __future__ import annotations

from kprofile.inputs.pickles.errors import RefusedPickle

# Opcodes a DataFrame pickle never holds and that reach outside the stream: persistent
# ids and out-of-band buffers, the copyreg extension registry, INST/OBJ (protocol 0/1
# class instantiation; DataFrame uses REDUCE there), and sets (no kbench field is one;
# their elements would be hashed while loading).
FORBIDDEN = {
    0x50: "PERSID",
    0x51: "BINPERSID",
    0x82: "EXT1",
    0x83: "EXT2",
    0x84: "EXT4",
    0x97: "NEXT_BUFFER",
    0x69: "INST",
    0x6F: "OBJ",
    0x8F: "EMPTY_SET",
    0x90: "ADDITEMS",
    0x91: "FROZENSET",
}
# Opcodes with a fixed-size argument: opcode -> argument bytes.
FIXED = {
    **dict.fromkeys(b"N\x88\x89)]}\x85\x86\x87Ra bs2\x81\x92\x93\x98", 0),
    0x4B: 1,  # BININT1
    0x4D: 2,  # BININT2
    0x4A: 4,  # BININT
    0x47: 8,  # BINFLOAT
    0x68: 1,  # BINGET
    0x6A: 4,  # LONG_BINGET
    0x71: 1,  # BINPUT
    0x72: 4,  # LONG_BINPUT
    0x80: 1,  # PROTO
    0x95: 8,  # FRAME
}
del FIXED[0x20]  # the space in the literal above
# Counted arguments: opcode -> (width of the length, signed, largest length or None).
_INT_LIMIT = 256
LENGTH_BYTES: dict[int, tuple[int, bool, int | None]] = {
    0x55: (1, False, None),  # SHORT_BINSTRING
    0x43: (1, False, None),  # SHORT_BINBYTES
    0x8C: (1, False, None),  # SHORT_BINUNICODE
    0x54: (4, True, None),  # BINSTRING
    0x42: (4, False, None),  # BINBYTES
    0x58: (4, False, None),  # BINUNICODE
    0x8D: (8, False, None),  # BINUNICODE8
    0x8E: (8, False, None),  # BINBYTES8
    0x96: (8, False, None),  # BYTEARRAY8
    0x8A: (1, False, _INT_LIMIT),  # LONG1
    0x8B: (4, True, _INT_LIMIT),  # LONG4
}
# Protocol 0 arguments: opcode -> (lines, longest line or None for strings).
TEXT_LINES: dict[int, tuple[int, int | None]] = {
    0x49: (1, 1024),  # INT (and TRUE/FALSE)
    0x4C: (1, 1024),  # LONG
    0x46: (1, 1024),  # FLOAT
    0x53: (1, None),  # STRING
    0x56: (1, None),  # UNICODE
    0x67: (1, 12),  # GET
    0x70: (1, 12),  # PUT
    0x63: (2, 1024),  # GLOBAL
}
MEMO_PUT = frozenset((0x70, 0x71, 0x72, 0x94))  # PUT, BINPUT, LONG_BINPUT, MEMOIZE
MEMO_GET = frozenset((0x67, 0x68, 0x6A))  # GET, BINGET, LONG_BINGET
# MARK, TUPLE, LIST, DICT, POP_MARK, APPENDS, SETITEMS, and POP (which may pop a mark)
MARK_OPS = frozenset(b"(tld1eu0")
# Stack effect of the other opcodes: opcode -> (objects popped, objects pushed).
_TWO_TO_ONE = (2, 1)
EFFECTS: dict[int, tuple[int, int]] = {
    **dict.fromkeys(b"NIJKLMFGSTUVXBC\x88\x89)]}\x8a\x8b\x8c\x8d\x8e\x96c", (0, 1)),
    **dict.fromkeys(b"Rb\x81\x93a\x86", _TWO_TO_ONE),
    0x85: (1, 1),  # TUPLE1
    0x87: (3, 1),  # TUPLE3
    0x73: (3, 1),  # SETITEM
    0x92: (3, 1),  # NEWOBJ_EX
    0x32: (1, 2),  # DUP
    0x98: (1, 1),  # READONLY_BUFFER
    0x80: (0, 0),  # PROTO
    0x95: (0, 0),  # FRAME
}
MAX_DICT_ITEMS = 4096  # a kbench pickle has a few dozen; bounds hash-collision work
# What the unpickler allocates per opcode, in bytes, roughly (CPython 3.11, 64-bit):
# the object made plus a stack or container slot. Text payloads are counted once for
# the whole file (at most 4 bytes per byte, as UCS-4). Unlisted opcodes: 8.
COSTS = {
    **dict.fromkeys(b"]\x85", 64),  # EMPTY_LIST, TUPLE1
    **dict.fromkeys(b"}\x86(", 72),  # EMPTY_DICT, TUPLE2, MARK (its slot and more)
    **dict.fromkeys(b"\x87Rb\x81\x92", 80),  # TUPLE3; a call's record
    **dict.fromkeys(b"JMGILF\x8a\x8b", 48),  # numbers that are new objects
    **dict.fromkeys(b"XTUVSBC\x8c\x8d\x8e\x96", 72),  # text and bytes objects
    **dict.fromkeys(b"pqr\x94", 16),  # memo slots (the memo doubles)
    0x98: 200,  # READONLY_BUFFER: a memoryview
}
PER_ITEM = {0x74: 8, 0x6C: 8, 0x65: 8, 0x64: 100, 0x75: 100}  # TUPLE LIST APPENDS ...
COST_PER_FILE_BYTE = 16
COST_BASE = 64 * 2**20
# Opcodes rare in real pickles go through a slower, general check; a stream made of
# them is refused past this many, so the scan stays fast whatever the input.
SLOW_BASE = 100_000
SLOW_PER_FILE_BYTE = 1 / 8  # e.g. MARK and TUPLE of a Timestamp cell: 2 per ~25 bytes


def _simple() -> list[tuple[int, int, int, int] | None]:
    """Opcode -> (popped, net change of depth, cost, bytes) for the fixed-size opcodes
    that need no other check: the scan's second fast path."""
    table: list[tuple[int, int, int, int] | None] = [None] * 256
    for op, size in FIXED.items():
        if op not in MEMO_PUT | MEMO_GET | {0x80, 0x95, 0x73}:
            popped, pushed = EFFECTS[op]
            table[op] = (popped, pushed - popped, COSTS.get(op, 8), 1 + size)
    return table


SIMPLE = _simple()


class Stack:
    """Depth, marks, memo size and dict items of the stack the unpickler will build."""

    __slots__ = ("depth", "marks", "memo", "dict_items", "cost")

    def __init__(self) -> None:
        self.depth = 0
        self.marks: list[int] = []
        self.memo = 0
        self.dict_items = 0
        self.cost = 0

    @property
    def floor(self) -> int:
        return self.marks[-1] if self.marks else 0

    def sync(self, depth: int, memo: int, texts: int, gets: int, cost: int) -> None:
        """The totals from a scan's local variables, before a rare opcode: the
        depth and cost it keeps apart from its texts and memo reads, and those."""
        self.depth, self.memo = depth + texts + gets, memo
        self.cost = cost + 72 * texts + 8 * gets + 16 * memo

    def locals(self, texts: int, gets: int) -> tuple[int, int, int, int]:
        """``sync`` undone after the opcode: depth, memo, floor and cost as the
        scan keeps them."""
        cost = self.cost - 72 * texts - 8 * gets - 16 * self.memo
        return self.depth - texts - gets, self.memo, self.floor, cost

    def pop(self, count: int) -> None:
        if self.depth - count < self.floor:
            raise RefusedPickle("not a valid pickle (stack underflow)")
        self.depth -= count

    def effect(self, op: int) -> None:
        popped, pushed = EFFECTS[op]
        self.pop(popped)
        self.depth += pushed
        self.cost += COSTS.get(op, 8)
        if op == 0x73:  # SETITEM
            self.cost += 100
            self._items(1)

    def memoize(self, index: int | None) -> None:
        """A memo write; an explicit index may overwrite or append, never jump ahead."""
        if index is not None and index > self.memo:
            raise RefusedPickle(f"not a valid pickle (memo index {index} out of order)")
        self.memo += 1

    def get(self, index: int) -> None:
        if index >= self.memo:
            raise RefusedPickle(
                f"not a valid pickle (memo index {index} never written)"
            )
        self.depth += 1

    def mark_op(self, op: int) -> None:
        self.cost += COSTS.get(op, 8)
        if op == 0x28:  # MARK
            self.marks.append(self.depth)
            return
        if op == 0x30 and not (self.marks and self.marks[-1] == self.depth):
            self.pop(1)  # POP of an object; at a mark, POP drops the mark
            return
        if not self.marks:
            raise RefusedPickle("not a valid pickle (no MARK)")
        mark = self.marks.pop()
        items = self.depth - mark
        self.cost += PER_ITEM.get(op, 0) * items
        self.depth = mark
        if op in b"tld":  # TUPLE, LIST, DICT: the items become one object
            self.depth += 1
        elif op in b"eu":  # APPENDS, SETITEMS: into the object below the mark
            self.pop(1)
            self.depth += 1
        if op in b"du":
            self._items(items // 2)

    def _items(self, count: int) -> None:
        self.dict_items += count
        if self.dict_items > MAX_DICT_ITEMS:
            raise RefusedPickle(f"refused: more than {MAX_DICT_ITEMS} dict items")

    def stop(self, limit: int) -> None:
        """The end of the stream: one object built, within the ``limit`` of cost."""
        if self.depth != 1 or self.marks:
            raise RefusedPickle("not a valid pickle (STOP with a malformed stack)")
        if self.cost > limit:
            raise RefusedPickle(
                f"refused: unpickling would need over {COST_PER_FILE_BYTE}x the file "
                "size in memory"
            )
