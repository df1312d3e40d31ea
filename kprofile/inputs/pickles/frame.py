"""The DataFrame: blocks placed by validated positions, assembled with public pandas.

``DataFrame`` pickles as an instance whose state holds a ``BlockManager`` of blocks
(values, placement, ndim) and two axes. Every placement must fall inside the columns,
every column must be covered exactly once, and every block must have as many rows as
the index; then the columns are handed to ``pd.DataFrame`` one by one.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from kprofile.inputs.pickles.arrays import ARRAY_TARGETS, decode_array
from kprofile.inputs.pickles.categorical import (
    categorical_columns,
    decode_axis,
    is_categorical,
)
from kprofile.inputs.pickles.context import Context, describe
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.extension import MAX_COLUMNS, decode_columns
from kprofile.inputs.pickles.records import Call, instance_of
from kprofile.inputs.pickles.values import decode_value

MAX_ATTRS = 1000
MAX_FRAMES = 16  # kbench writes two (merged_df, build_df)


def decode_frame(ctx: Context, call: Call) -> pd.DataFrame:
    if instance_of(call) != "pandas.DataFrame" or not isinstance(call.state, dict):
        raise RefusedPickle("refused a DataFrame without the state pandas writes")
    ctx.frames += 1
    if ctx.frames > MAX_FRAMES:
        raise RefusedPickle(f"refused: more than {MAX_FRAMES} DataFrames in one file")
    state = call.state
    if state.get("_typ", "dataframe") != "dataframe":
        raise RefusedPickle("refused a DataFrame of another type")
    manager = ctx.call(state.get("_mgr"), "pandas.BlockManager")
    blocks, axes = _manager(manager)
    columns, index = decode_axis(ctx, axes[0]), decode_axis(ctx, axes[1])
    if len(columns) > MAX_COLUMNS:
        raise RefusedPickle(f"refused a DataFrame of {len(columns)} columns")
    placed: list[Any] = [None] * len(columns)
    for block in blocks:
        _place(ctx, block, placed, len(index))
    missing = [i for i, column in enumerate(placed) if column is None]
    if missing:
        raise RefusedPickle(
            f"refused a DataFrame whose column {missing[0]} has no block"
        )
    frame = _assemble(placed, columns, index)
    return _with_attributes(ctx, frame, state)


def _manager(manager: Call) -> tuple[tuple[Any, ...], list[Any]]:
    # BlockManager(blocks, axes) as pandas 2.x/3.x reduce it
    args = manager.args
    if len(args) != 2 or manager.kwargs or manager.has_state:
        raise RefusedPickle("refused a BlockManager of an unknown layout")
    blocks, axes = args
    if not isinstance(blocks, tuple) or not isinstance(axes, list) or len(axes) != 2:
        raise RefusedPickle("refused a BlockManager of an unknown layout")
    return blocks, axes


def _place(ctx: Context, value: Any, placed: list[Any], rows: int) -> None:
    """Decode one block and put its columns at its positions, after checking them."""
    block = ctx.call(value, "pandas._unpickle_block")
    ctx.spend(elements=1)
    if len(block.args) != 3 or block.kwargs or block.has_state or block.args[2] != 2:
        raise RefusedPickle("refused a block of an unknown layout")
    positions = _positions(ctx, block.args[1], len(placed))
    values = block.args[0]
    columns = (
        categorical_columns(ctx, values)
        if is_categorical(values)
        else decode_columns(ctx, values)
    )
    if len(columns) != len(positions):
        raise RefusedPickle(
            f"refused a block of {len(columns)} columns placed at {len(positions)}"
        )
    for position, column in zip(positions, columns):
        if len(column) != rows:
            raise RefusedPickle(f"refused a column of {len(column)} rows, not {rows}")
        if placed[position] is not None:
            raise RefusedPickle(
                f"refused a DataFrame whose column {position} is placed twice"
            )
        placed[position] = column


def _positions(ctx: Context, value: Any, count: int) -> range | list[int]:
    """A block placement: ``slice(start, stop, step)`` (pandas writes strided ones,
    ``slice(0, 6, 3)`` for columns 0 and 3) or an integer array; every position it
    names must be inside ``[0, count)``."""
    if isinstance(value, Call) and value.target == "builtins.slice":
        args = value.args
        if not 1 <= len(args) <= 3 or value.kwargs or value.has_state:
            raise RefusedPickle("refused a malformed block placement")
        start, stop, step = (
            (args + (None, None))[:3] if len(args) > 1 else (0, args[0], 1)
        )
        step = 1 if step is None else step
        start = 0 if start is None else start
        bounds = (start, stop, step)
        if not all(type(v) is int for v in bounds) or step < 1 or not 0 <= start:
            raise RefusedPickle("refused a block placement that is not a forward slice")
        named = range(start, stop, step)
        if named and named[-1] >= count:
            raise RefusedPickle(
                f"refused a block placed at {named[-1]} of {count} columns"
            )
        return named
    if not (isinstance(value, Call) and value.target in ARRAY_TARGETS):
        raise RefusedPickle(f"refused block placement {describe(value)}")
    array = decode_array(ctx, value)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise RefusedPickle("refused a block placement that is not integers")
    positions: list[int] = array.tolist()
    if any(not 0 <= p < count for p in positions):
        raise RefusedPickle(f"refused a block placed outside {count} columns")
    return positions


def _assemble(placed: list[Any], columns: pd.Index, index: pd.Index) -> pd.DataFrame:
    series = {
        i: pd.Series(column, dtype=column.dtype, copy=False)
        for i, column in enumerate(placed)
    }
    try:
        frame = pd.DataFrame(series, copy=False)
        frame.index = index
        frame.columns = columns
    except (ValueError, TypeError) as exc:
        raise RefusedPickle(f"refused a DataFrame ({type(exc).__name__})") from None
    # One block per column: past a hundred, pandas warns on every insert; a copy
    # consolidates them as the pickled frame had them.
    return frame.copy() if len(placed) > 100 else frame


def _with_attributes(
    ctx: Context, frame: pd.DataFrame, state: dict[Any, Any]
) -> pd.DataFrame:
    before = ctx.elements_left
    attrs = decode_value(ctx, state.get("attrs") or {})
    if not isinstance(attrs, dict):
        raise RefusedPickle("refused DataFrame attrs that are not a dict")
    if before - ctx.elements_left > MAX_ATTRS:  # pandas copies attrs on every operation
        raise RefusedPickle(f"refused DataFrame attrs of over {MAX_ATTRS} values")
    frame.attrs = attrs
    flags = state.get("_flags") or {}
    allows = (
        flags.get("allows_duplicate_labels", True) if isinstance(flags, dict) else True
    )
    if allows is False:
        frame = frame.set_flags(allows_duplicate_labels=False)
    return frame
