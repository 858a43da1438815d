"""`frozen_value` and `record`: what `@dataclass(frozen=True, slots=True, kw_only=True)` and
`@dataclass(kw_only=True)` make of a class, without their start-up cost.

Theory of operation: the scripted Claude is started about a thousand times per test run, and
`steps.py` defines some thirty value classes at import. `dataclass` writes and `exec()`s the source
of every generated method, for every class: about 0.7 ms a class, most of what importing the
steps cost. Here the methods are written once, generic over the class's fields, and a class only
gets its `__slots__` and a few class attributes. What a frozen, slotted, keyword-only dataclass
offers and the scripted Claude uses is kept: an `__init__` taking each field by keyword (with its
default, or a fresh one from `field(default_factory=...)`), `__eq__` over the fields in order
(only with an instance of the same class), the dataclass `__repr__` and `__match_args__ = ()`;
a `frozen_value` also has `__hash__` over its fields, no `__dict__`, and assignment or deletion
raising `AttributeError`; a `record` is mutable and unhashable, as a plain dataclass. Not kept:
`dataclasses.fields()` and friends, `__post_init__`, inheritance between these classes. mypy
reads the classes as dataclasses (`dataclass_transform`).

Standard library only, like the rest of the scripted Claude.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform

__all__ = ["field", "frozen_value", "record"]

_C = TypeVar("_C", bound=type)
_T = TypeVar("_T")


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], _T]) -> _T:
    """A field's default made anew for every instance by `default_factory()`."""
    return _Factory(default_factory)  # type: ignore[return-value]


def _init(self: Any, **given: Any) -> None:
    cls = type(self)
    for name in cls._value_fields:
        if name in given:
            value = given.pop(name)
        elif name in cls._value_defaults:
            value = cls._value_defaults[name]
            if isinstance(value, _Factory):
                value = value.make()
        else:
            raise TypeError(
                f"{cls.__qualname__}.__init__() missing required keyword-only argument: '{name}'"
            )
        object.__setattr__(self, name, value)
    if given:
        unexpected = next(iter(given))
        raise TypeError(
            f"{cls.__qualname__}.__init__() got an unexpected keyword argument '{unexpected}'"
        )


def _values(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in type(self)._value_fields)


def _eq(self: Any, other: object) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)


def _hash(self: Any) -> int:
    return hash(_values(self))


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self)._value_fields)
    return f"{type(self).__qualname__}({shown})"


def _setattr(self: Any, name: str, value: object) -> None:
    raise AttributeError(f"cannot assign to field {name!r}")


def _delattr(self: Any, name: str) -> None:
    raise AttributeError(f"cannot delete field {name!r}")


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
def frozen_value(cls: _C) -> _C:
    """`cls` as a frozen, slotted, keyword-only value class (see the module's docstring).

    Its fields are its own annotations, in order; a class attribute of a field's name is that
    field's default. Raises `TypeError` when `cls` has a base other than `object`.
    """
    return _make(cls, frozen=True)


@dataclass_transform(kw_only_default=True, field_specifiers=(field,))
def record(cls: _C) -> _C:
    """`cls` as a mutable keyword-only class with value equality (see the module's docstring).

    Fields and defaults as for `frozen_value`. Raises `TypeError` when `cls` has a base other
    than `object`.
    """
    return _make(cls, frozen=False)


def _make(cls: _C, *, frozen: bool) -> _C:
    if cls.__bases__ != (object,):
        raise TypeError(f"{cls.__qualname__}: value classes do not inherit")
    # Not `inspect.get_annotations`: importing `inspect` is most of what `dataclasses` costs. A
    # class's own `__annotations__` (never its bases' since Python 3.10), strings here.
    fields = tuple(cls.__annotations__)
    namespace = {
        key: item
        for key, item in cls.__dict__.items()
        if key not in fields and key not in ("__dict__", "__weakref__")
    }
    namespace.update(
        __match_args__=(),
        _value_fields=fields,
        _value_defaults={name: cls.__dict__[name] for name in fields if name in cls.__dict__},
        __init__=_init,
        __eq__=_eq,
        __repr__=_repr,
    )
    if frozen:
        namespace.update(
            __slots__=fields, __hash__=_hash, __setattr__=_setattr, __delattr__=_delattr
        )
    else:
        namespace.update(__hash__=None)
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    return made
