"""YAML read with the semantics of ``yaml.safe_load``, the reference tool's loader.

``yaml.safe_load`` is PyYAML's pure-Python loader. libyaml's parser (PyYAML's
``CSafeLoader``) is several times faster but reads a few spellings differently: a tab
the pure scanner refuses, the lone tag ``!`` (``M: !`` is ``''`` for libyaml and
``None`` for ``safe_load``), a BOM after the start, ``?`` inside a flow scalar, a
comment right after a block scalar's indicator (``|#``). A text holding none of those
is composed by libyaml, where the two agree (``test_yaml_loaders.py`` compares them on
generated documents); any other text, and any text libyaml refuses, by the
pure-Python loader, whose verdict stands.

Both are constructed by PyYAML's ``SafeConstructor``, made to fail cleanly: a value it
cannot construct (``!!bool 1``, ``!!int ''``, ``!!timestamp x``) is a
``ConstructorError`` at the node's line, and so is an integer of more than
``MAX_INT_DIGITS`` digits (Python writes no longer one as text; measured on the text
before constructing, since converting a longer one costs time quadratic in its length).
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError

__all__ = ["MAX_INT_DIGITS", "Constructor", "c_may_differ", "compose", "construct"]

MAX_INT_DIGITS = 4300  # Python's default int_max_str_digits, on every version
_INT_LIMIT = 10**MAX_INT_DIGITS
_TOO_MANY_COLONS = 2419  # a:b:...: 2,419 colons make at least 60**2419, 4,302 digits
_C_MAY_DIFFER = re.compile("[\t!?\ufeff]|[|>][-+0-9]*#")
_C_PARSER: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)
_SHORT_TAGS = "tag:yaml.org,2002:"


def c_may_differ(text: str) -> bool:
    """True if libyaml might read ``text`` otherwise than ``yaml.safe_load``."""
    start = 1 if text.startswith("\ufeff") else 0  # a leading BOM: both skip it
    return _C_MAY_DIFFER.search(text, start) is not None


def compose(text: str) -> yaml.Node | None:
    """The node graph of the single document in ``text`` (None: empty).

    Raises ``yaml.YAMLError`` (a ``MarkedYAMLError`` where the parser says where).
    """
    if _C_PARSER is None or c_may_differ(text):
        return _compose_pure(text)
    try:
        return _compose_with(_C_PARSER, text)
    except yaml.YAMLError as refused:
        try:  # libyaml refuses a few documents safe_load reads: its verdict stands
            return _compose_pure(text)
        except yaml.YAMLError:
            raise refused from None


def _compose_with(loader_class: type[yaml.SafeLoader], text: str) -> yaml.Node | None:
    loader = loader_class(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _compose_pure(text: str) -> yaml.Node | None:
    loader = yaml.SafeLoader(text)
    try:
        return loader.get_single_node()
    except (ValueError, OverflowError) as exc:  # "\U00110000": chr() refuses it
        raise yaml.MarkedYAMLError(
            problem=f"cannot read an escape: {exc}", problem_mark=loader.get_mark()
        ) from None
    finally:
        loader.dispose()


def construct(node: yaml.Node) -> Any:
    """The Python value of ``node``, as ``yaml.safe_load`` constructs it."""
    return Constructor().construct_document(node)


def _shown(node: yaml.Node) -> str:
    if not isinstance(node, yaml.ScalarNode):
        return "this node"
    value = str(node.value)
    return repr(value if len(value) <= 40 else value[:37] + "...")


def _tag(node: yaml.Node) -> str:
    tag = str(node.tag)
    return "!!" + tag[len(_SHORT_TAGS) :] if tag.startswith(_SHORT_TAGS) else tag


class Constructor(yaml.constructor.SafeConstructor):
    """PyYAML's safe constructor, failing with a ``ConstructorError`` at the failing
    node's mark whatever goes wrong."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, OverflowError) as exc:
            reason = f" ({exc})" if str(exc) else ""
            raise self._error(node, f"is not a valid {_tag(node)}{reason}") from None
        except Exception:  # KeyError (!!bool 1), AttributeError (!!timestamp x), ...
            raise self._error(node, f"is not a valid {_tag(node)}") from None

    @staticmethod
    def _error(node: yaml.Node, problem: str) -> ConstructorError:
        return ConstructorError(
            None, None, f"{_shown(node)} {problem}", node.start_mark
        )

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        if isinstance(node, yaml.ScalarNode) and _surely_too_long(node.value):
            raise self._too_long(node)
        value = super().construct_yaml_int(node)
        if abs(value) >= _INT_LIMIT:
            raise self._too_long(node)
        return value

    @classmethod
    def _too_long(cls, node: yaml.Node) -> ConstructorError:
        return cls._error(
            node,
            f"is an integer of more than {MAX_INT_DIGITS} digits, the most Python "
            "writes as text",
        )


Constructor.add_constructor("tag:yaml.org,2002:int", Constructor.construct_yaml_int)


def _surely_too_long(text: str) -> bool:
    """An integer spelled so long that constructing it would be slow: a decimal of
    more than ``MAX_INT_DIGITS`` digits, a base-60 one of too many parts (leading
    zeros do not count; a leading ``0`` makes the spelling octal)."""
    digits = text.replace("_", "").lstrip("+-")
    if ":" in digits:
        return digits.count(":") >= _TOO_MANY_COLONS
    if digits[:1] in "0" or not digits.isdigit():
        return False  # 0x, 0b and octal are read in linear time; checked afterwards
    return len(digits) > MAX_INT_DIGITS
