"""Inert stand-ins for the globals a result pickle names, and the records they make.

The unpickler resolves every global to a ``Global`` subclass of this module. Calling
one (REDUCE), or instantiating it (NEWOBJ), runs no code of numpy, pandas or Python's
libraries: it returns a ``Call`` that records the target's name and the arguments, and
BUILD records the state once. Neither can be patched: assigning an attribute, or BUILD
on a global itself, is refused, and the classes hold no mutable state, so nothing one
file does can reach the next.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar, NoReturn, cast

from kprofile.inputs.pickles.errors import RefusedPickle, shown

_UNSET = object()
_NO_KEYWORDS: Mapping[str, Any] = MappingProxyType({})


class Call:
    """``target(*args, **kwargs)`` as a pickle asked for it, and BUILD's state."""

    __slots__ = ("target", "args", "kwargs", "_state")
    target: str
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]
    _state: Any

    def __init__(
        self, target: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]
    ) -> None:
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "kwargs", kwargs or _NO_KEYWORDS)
        object.__setattr__(self, "_state", _UNSET)

    @property
    def has_state(self) -> bool:
        return self._state is not _UNSET

    @property
    def state(self) -> Any:
        return None if self._state is _UNSET else self._state

    def __setstate__(self, state: Any) -> None:  # BUILD
        if self._state is not _UNSET:
            raise RefusedPickle(f"refused a second BUILD on {shown(self.target)}")
        object.__setattr__(self, "_state", state)

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise RefusedPickle(f"refused setting {shown(name)} on {shown(self.target)}")

    def __delattr__(self, name: str) -> NoReturn:
        raise RefusedPickle(f"refused deleting {shown(name)} on {shown(self.target)}")

    def __repr__(self) -> str:
        return f"Call({self.target})"


class _GlobalMeta(type):
    """Calling a stand-in records the call; nothing can be set on one."""

    target: str

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:  # REDUCE
        if cls.target == GETATTR:
            return _attribute(*args, **kwargs)
        return Call(cls.target, args, kwargs)

    def __setattr__(cls, name: str, value: Any) -> NoReturn:
        raise RefusedPickle(f"refused setting {shown(name)} on {shown(cls.target)}")

    def __delattr__(cls, name: str) -> NoReturn:
        raise RefusedPickle(f"refused deleting {shown(name)} on {shown(cls.target)}")

    def __setstate__(cls, state: Any) -> NoReturn:  # BUILD on a global
        raise RefusedPickle(f"refused BUILD on the global {shown(cls.target)}")


class Global(metaclass=_GlobalMeta):
    """Base of the stand-ins; ``target`` names what the pickle asked for."""

    __slots__ = ()
    target: ClassVar[str] = ""
    attributes: ClassVar[Mapping[str, type[Global]]] = MappingProxyType({})

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:  # NEWOBJ, NEWOBJ_EX
        return Call(cls.target, args, kwargs)


GETATTR = "builtins.getattr"


def _attribute(*args: Any, **kwargs: Any) -> type[Global]:
    """``getattr(stand_in, name)``: only the attributes a stand-in lists (a classmethod
    such as ``ZoneInfo._unpickle``), which are stand-ins themselves."""
    if len(args) == 2 and not kwargs and isinstance(args[1], str):
        owner, name = args
        if isinstance(owner, type) and issubclass(owner, Global):
            found = owner.attributes.get(name)
            if found is not None:
                return found
            raise RefusedPickle(
                f"refused getattr({shown(owner.target)}, {shown(name)})"
            )
    raise RefusedPickle("refused getattr on anything but a known class")


def stand_in(
    target: str, attributes: Mapping[str, type[Global]] | None = None
) -> type[Global]:
    """A new stand-in class for ``target`` (made once per name, at import)."""
    namespace = {
        "target": target,
        "attributes": MappingProxyType(dict(attributes or {})),
        "__slots__": (),
    }
    made = _GlobalMeta("StandIn_" + target.replace(".", "_"), (Global,), namespace)
    return cast(type[Global], made)


def is_global(value: Any, target: str) -> bool:
    """Whether ``value`` is the stand-in for ``target``."""
    return (
        isinstance(value, type) and issubclass(value, Global) and value.target == target
    )


def instance_of(call: Call) -> str:
    """The class a record makes an instance of: ``cls()`` written as NEWOBJ with no
    arguments, or as ``copyreg._reconstructor(cls, object, None)`` (protocols 0 and 1).
    """
    args = call.args
    if call.target != "copyreg._reconstructor":
        if args or call.kwargs:
            raise RefusedPickle(f"refused {shown(call.target)} with arguments")
        return call.target
    if (
        len(args) == 3
        and isinstance(args[0], type)
        and issubclass(args[0], Global)
        and is_global(args[1], "builtins.object")
        and args[2] is None
        and not call.kwargs
    ):
        return args[0].target
    raise RefusedPickle("refused a malformed copyreg._reconstructor")


def instance_state(call: Call, target: str, fields: frozenset[str]) -> dict[str, Any]:
    """The state of an instance of ``target`` (a class written field by field, as
    pandas pickles its dtypes), when it holds no field but ``fields``."""
    state = call.state
    name = target.rsplit(".", 1)[-1]
    if instance_of(call) != target or not isinstance(state, dict):
        raise RefusedPickle(f"refused a malformed {name}")
    if not set(state) <= fields:
        article = "an" if name[0] in "AEIOU" else "a"
        raise RefusedPickle(f"refused {article} {name} with other attributes")
    return state
