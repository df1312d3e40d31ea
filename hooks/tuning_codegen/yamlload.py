"""YAML read with the semantics of ``yaml.safe_load``, the reference tool's loader.

``yaml.safe_load`` is PyYAML's pure-Python loader. libyaml's parser (PyYAML's
``CSafeLoader``) is several times faster but reads a few spellings differently: a tab
the pure scanner refuses, the lone tag ``!`` (``M: !`` is ``''`` for libyaml and
``None`` for ``safe_load``), a BOM after the start, ``?`` inside a flow scalar, a
comment right after a block scalar's indicator (``|#``). A text holding none of those
is composed by libyaml, where the two agree (``test_yaml_semantics.py`` compares them on
generated documents); any other text, and any text libyaml refuses, by the
pure-Python loader, whose verdict stands.

Both are constructed by PyYAML's ``SafeConstructor``, made to fail cleanly: a value it
cannot construct (``!!bool 1``, ``!!int ''``, ``!!timestamp x``) is a
``ConstructorError`` at the node's line, and so is an integer of more than
``MAX_INT_DIGITS`` digits (Python writes no longer one as text; measured on the text
before constructing, since converting a longer one costs time quadratic in its length).
"""

from __future__ import annotations

import functools
import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError

__all__ = [
    "MAX_INT_DIGITS",
    "Constructor",
    "TooDeep",
    "c_may_differ",
    "compose",
    "construct",
]

MAX_INT_DIGITS = 4300  # Python's default int_max_str_digits, on every version
_INT_LIMIT = 10**MAX_INT_DIGITS
_TOO_MANY_COLONS = 2419  # a:b:...: 2,419 colons make at least 60**2419, 4,302 digits
_C_MAY_DIFFER = re.compile("[\t!?\ufeff]|[|>][-+0-9]*#")
_C_PARSER: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)
_SHORT_TAGS = "tag:yaml.org,2002:"
_MAP_TAG = _SHORT_TAGS + "map"
_SPECIAL_KEYS = (_SHORT_TAGS + "merge", _SHORT_TAGS + "value")


class TooDeep(yaml.MarkedYAMLError):
    """Nested deeper than the parser can go (Python's recursion limit), at a mark."""


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
    except RecursionError:  # the pure loader says where (it stops sooner)
        return _compose_pure(text)
    except yaml.YAMLError as refused:
        try:  # libyaml refuses a few documents safe_load reads: its verdict stands
            return _compose_pure(text)
        except TooDeep:
            raise  # one wording for too deep, whichever parser noticed
        except yaml.YAMLError:
            raise refused from None


def _compose_with(loader_class: type[yaml.SafeLoader], text: str) -> yaml.Node | None:
    loader = loader_class(text)
    _remember_resolved(loader)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _compose_pure(text: str) -> yaml.Node | None:
    loader = yaml.SafeLoader(text)
    _remember_resolved(loader)
    try:
        return loader.get_single_node()
    except (ValueError, OverflowError) as exc:  # "\U00110000": chr() refuses it
        raise yaml.MarkedYAMLError(
            problem=f"cannot read an escape: {exc}", problem_mark=loader.get_mark()
        ) from None
    except RecursionError:
        raise TooDeep(
            problem="nested too deep", problem_mark=loader.get_mark()
        ) from None
    finally:
        loader.dispose()


def _remember_resolved(loader: yaml.SafeLoader) -> None:
    """Resolve each distinct scalar spelling once (keys and common values recur in
    every entry, and in every manifest of a registry): without path resolvers, which
    the safe loader has none of, a tag depends on the node's kind, text and style
    alone, so one cache per loader class serves every document of a run."""
    if not loader.yaml_path_resolvers:
        loader.resolve = _resolver(type(loader))  # type: ignore[method-assign]


_RESOLVERS: dict[type, Any] = {}
_RESOLVED_KEPT = 65536  # distinct spellings remembered (bounded: inputs are not)


def _resolver(kind: type[yaml.SafeLoader]) -> Any:
    """The cached ``resolve`` of loaders of class ``kind`` (no instance state is read
    without path resolvers)."""
    if kind not in _RESOLVERS:
        probe = kind("")
        remember = functools.lru_cache(maxsize=_RESOLVED_KEPT)
        try:
            _RESOLVERS[kind] = remember(probe.resolve)
        finally:
            probe.dispose()
    return _RESOLVERS[kind]


def construct(node: yaml.Node, constructor: Constructor | None = None) -> Any:
    """The Python value of ``node``, as ``yaml.safe_load`` constructs it; a value that
    cannot be constructed is a ``ConstructorError`` at its node. ``constructor``: one
    to reuse (the tables of a registry: its scalars are worked out once)."""
    try:
        return (constructor or Constructor()).construct_document(node)
    except yaml.YAMLError:
        raise
    except Exception as exc:  # KeyError (!!bool 1), AttributeError (!!timestamp x)
        raise _failing_scalar(node) or ConstructorError(
            None, None, f"cannot construct this document ({exc})", node.start_mark
        ) from None


def _failing_scalar(root: yaml.Node) -> ConstructorError | None:
    """The error of the first scalar in ``root`` that cannot be constructed (only
    scalar constructors fail other than with a ``ConstructorError``): looked for
    once construction failed, so that constructing costs nothing extra."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            try:
                Constructor().construct_object(node)
            except yaml.YAMLError:
                continue
            except (ValueError, OverflowError) as exc:
                reason = f" ({exc})" if str(exc) else ""
                return _error(node, f"is not a valid {_tag(node)}{reason}")
            except Exception:
                return _error(node, f"is not a valid {_tag(node)}")
        elif isinstance(node, yaml.SequenceNode):
            stack += reversed(node.value)
        elif isinstance(node, yaml.MappingNode):
            stack += [part for pair in reversed(node.value) for part in pair[::-1]]
    return None


def _shown(node: yaml.Node) -> str:
    if not isinstance(node, yaml.ScalarNode):
        return "this node"
    value = str(node.value)
    return repr(value if len(value) <= 40 else value[:37] + "...")


def _tag(node: yaml.Node) -> str:
    tag = str(node.tag)
    return "!!" + tag[len(_SHORT_TAGS) :] if tag.startswith(_SHORT_TAGS) else tag


def _error(node: yaml.Node, problem: str) -> ConstructorError:
    return ConstructorError(None, None, f"{_shown(node)} {problem}", node.start_mark)


class Constructor(yaml.constructor.SafeConstructor):
    """PyYAML's safe constructor, refusing an integer too long to write as text, and
    quicker at what every table is made of: each distinct scalar (tag and text) is
    constructed once (scalars make immutable values: str, int, float, bool, None,
    bytes, dates, so sharing one is invisible), and a plain mapping of scalars to
    scalars is built at once, as PyYAML would build it in two steps."""

    def __init__(self) -> None:
        super().__init__()
        self._scalars: dict[tuple[str, str], Any] = {}

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        kind = type(node)
        if kind is yaml.ScalarNode:
            key = (node.tag, node.value)
            try:
                return self._scalars[key]
            except KeyError:
                value = self._scalars[key] = super().construct_object(node, deep)
                return value
        if isinstance(node, yaml.MappingNode) and _is_flat(node):
            done = self.constructed_objects.get(node)  # an alias: the same dict
            if done is None:
                done = self.constructed_objects[node] = {
                    self.construct_object(key): self.construct_object(value)
                    for key, value in node.value
                }
            return done
        return super().construct_object(node, deep)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        text = node.value
        if type(text) is str and text.isdigit() and len(text) < 20 and text[0] != "0":
            return int(text)  # what PyYAML makes of a plain decimal, quickly
        if isinstance(node, yaml.ScalarNode) and _surely_too_long(text):
            raise self._too_long(node)
        value = super().construct_yaml_int(node)
        if abs(value) >= _INT_LIMIT:
            raise self._too_long(node)
        return value

    @staticmethod
    def _too_long(node: yaml.Node) -> ConstructorError:
        return _error(
            node,
            f"is an integer of more than {MAX_INT_DIGITS} digits, the most Python "
            "writes as text",
        )


Constructor.add_constructor(  # type: ignore[type-var]  # stubs: loaders only
    "tag:yaml.org,2002:int", Constructor.construct_yaml_int
)


def _is_flat(node: yaml.MappingNode) -> bool:
    """A ``!!map`` of scalars to scalars, no merge key (``<<``) or value key (``=``)."""
    if node.tag != _MAP_TAG:
        return False
    for key, value in node.value:
        if type(key) is not yaml.ScalarNode or type(value) is not yaml.ScalarNode:
            return False
        if key.tag in _SPECIAL_KEYS:
            return False
    return True


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
