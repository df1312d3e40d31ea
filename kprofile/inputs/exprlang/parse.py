"""From text to a checked syntax tree: length, ``$`` names, backticks, depth, nodes.

The text is scanned once, left to right, knowing where string literals start and end:
``$NAME`` (a kbench runtime parameter) becomes ``NAME`` and `` `any column` `` becomes a
placeholder identifier (its text taken as is), never inside a string literal, so
``S == '$x'`` compares with the two characters ``$x``. The tree is then walked with an
explicit stack (never recursion on its depth) to refuse anything outside the language
and anything nested deeper than ``MAX_DEPTH``. ``ast.parse`` itself only ever sees text
of at most ``MAX_LENGTH`` characters; its own RecursionError/MemoryError on deep input
(a parser stack limit, not a real shortage) is reported as nesting too deep.
"""

from __future__ import annotations

import ast
import warnings

from kprofile.inputs.exprlang.limits import (
    MAX_DEPTH,
    MAX_INT_BITS,
    MAX_LENGTH,
    ExprError,
    amount,
)

BINARY_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
UNARY_OPS = (ast.UAdd, ast.USub, ast.Not)
COMPARE_OPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
BOOL_OPS = (ast.And, ast.Or)
_NODES = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare)
_OPERATORS = BINARY_OPS + UNARY_OPS + BOOL_OPS


def shown(text: str) -> str:
    """The expression as quoted in a message (long ones shortened)."""
    return repr(text if len(text) <= 80 else text[:77] + "...")


def parse(text: str) -> tuple[ast.Expression, dict[str, str]]:
    """The checked tree of ``text`` and its placeholder -> backticked name map."""
    if len(text) > MAX_LENGTH:
        raise ExprError(
            f"expression of {len(text):,} characters is over the limit of "
            f"{MAX_LENGTH:,}"
        )
    source, aliases = rewrite(text.strip())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning on odd literals: not ours
        try:
            tree = ast.parse(source, mode="eval")
        except (SyntaxError, ValueError) as exc:
            message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
            raise ExprError(f"invalid expression {shown(text)}: {message}") from None
        except (RecursionError, MemoryError):
            raise ExprError(_too_deep(text)) from None
    check_tree(tree, text)
    return tree, aliases


def _too_deep(text: str) -> str:
    return f"{shown(text)} is nested more than {MAX_DEPTH} levels deep"


def rewrite(text: str) -> tuple[str, dict[str, str]]:
    """``text`` with ``$`` dropped from names and backticked names as placeholders."""
    prefix = "_col"
    while prefix in text:
        prefix += "_"
    aliases: dict[str, str] = {}
    out: list[str] = []
    i, end = 0, len(text)
    while i < end:
        char = text[i]
        if char == "$" and _name_start(text, i + 1) and not _after_name(out):
            i += 1
            continue
        if char == "`":
            stop = text.find("`", i + 1) + 1
            if not stop:
                raise ExprError(f"unclosed backtick in {shown(text)}")
            key = f"{prefix}{len(aliases)}"
            aliases[key] = text[i + 1 : stop - 1]
            out.append(key)
        elif char in "'\"":
            stop = _string_end(text, i)
            out.append(text[i:stop])
        else:
            stop = _word_end(text, i) if char.isidentifier() else i + 1
            out.append(text[i:stop])
        i = stop
    return "".join(out), aliases


def _name_start(text: str, i: int) -> bool:
    return i < len(text) and text[i].isidentifier()


def _after_name(out: list[str]) -> bool:
    return bool(out) and ("_" + out[-1][-1:]).isidentifier()


def _word_end(text: str, i: int) -> int:
    stop = i + 1
    while stop < len(text) and ("_" + text[stop]).isidentifier():
        stop += 1
    return stop


def _string_end(text: str, i: int) -> int:
    """Index just after the string literal starting at ``i`` (or where it breaks)."""
    quote = text[i] * 3 if text.startswith(text[i] * 3, i) else text[i]
    j = i + len(quote)
    while j < len(text):
        if text[j] == "\\":
            j += 2
        elif text.startswith(quote, j):
            return j + len(quote)
        elif text[j] == "\n" and len(quote) == 1:
            return j
        else:
            j += 1
    return len(text)


def check_tree(tree: ast.Expression, text: str) -> None:
    """Refuse nodes outside the language, big literals, and nesting over MAX_DEPTH."""
    stack: list[tuple[ast.AST, int]] = [(tree.body, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ExprError(_too_deep(text))
        _check_node(node, text)
        stack.extend((child, depth + 1) for child in operands(node))


def operands(node: ast.AST) -> list[ast.expr]:
    """The sub-expressions of a node of the language, left to right."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    return []


def _check_node(node: ast.AST, text: str) -> None:
    if not isinstance(node, _NODES):
        _refuse(node, text)
    operator = getattr(node, "op", None)
    if operator is not None and not isinstance(operator, _OPERATORS):
        _refuse(operator, text)
    for op in node.ops if isinstance(node, ast.Compare) else ():
        if not isinstance(op, COMPARE_OPS):
            _refuse(op, text)
    if isinstance(node, ast.Constant):
        value = node.value
        if value is not None and type(value) not in (bool, int, float, str):
            what = type(value).__name__
            raise ExprError(f"literal {what} is not allowed in {shown(text)}")
        if type(value) is int and value.bit_length() > MAX_INT_BITS:
            raise ExprError(
                f"integer literal of {amount(value.bit_length())} bits in "
                f"{shown(text)} is over the limit of {MAX_INT_BITS:,}"
            )


def _refuse(node: ast.AST, text: str) -> None:
    raise ExprError(
        f"{type(node).__name__.lower()} is not allowed in {shown(text)} (only names, "
        "literals, arithmetic, comparisons, and/or/not)"
    )
