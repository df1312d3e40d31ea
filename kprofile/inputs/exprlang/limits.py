"""The language's error type and the budgets that bound what one expression can cost.

Per value (the same for one row and for every row of a table):
- an integer has at most ``MAX_INT_BITS`` bits; ``a ** b`` is refused from the sizes
  of ``a`` and ``b``, before anything is computed;
- a string has at most ``MAX_LEN`` characters; ``s * n`` is refused from ``len(s)``
  and ``n``, before anything is computed.

Per expression: at most ``MAX_LENGTH`` characters and ``MAX_DEPTH`` levels of nesting.

Per evaluation over a table (``Budget``): at most ``MAX_WORK`` units of work (a value
computed by numpy costs 1, by numpy on Python integers ``OBJECT_COST``, by Python
``PY_COST``; a unit is roughly 10 ns, so the budget is about 2 seconds), and per block
of rows at most ``MAX_MEMORY`` bytes of strings and integers built by Python.
"""

from __future__ import annotations

MAX_LENGTH = 10_000
MAX_DEPTH = 100
MAX_INT_BITS = 4096
MAX_LEN = 1_000_000
MAX_WORK = 200_000_000
OBJECT_COST = 20
PY_COST = 200
MAX_MEMORY = 256 * 2**20


class ExprError(ValueError):
    """An expression outside the language, or one that cannot be evaluated."""


def amount(number: int) -> str:
    """``number`` with thousands separators, or its order of magnitude if huge."""
    if number < 10**15:
        return f"{number:,}"
    return f"about 2^{number.bit_length() - 1}"


class Budget:
    """Work and memory spent by one evaluation; exceeding either is an ExprError."""

    def __init__(self, work: int = MAX_WORK, memory: int = MAX_MEMORY) -> None:
        self.work_left = work
        self.work_limit = work
        self.memory_limit = memory
        self.memory_left = memory

    def work(self, units: int) -> None:
        self.work_left -= units
        if self.work_left < 0:
            raise ExprError(
                f"too costly to evaluate (more than {amount(self.work_limit)} "
                "operations on values)"
            )

    def memory(self, size: int) -> None:
        self.memory_left -= size
        if self.memory_left < 0:
            raise ExprError(
                "needs more than "
                f"{self.memory_limit // 2**20} MB for intermediate values"
            )

    def new_block(self) -> None:
        """Values of the previous block of rows are gone: their memory is free."""
        self.memory_left = self.memory_limit
