r"""Records: jlgcli's typed value classes, cheap to define (issue 18, start-up).

``@record`` is a drop-in for ``@dataclass(frozen=True)``; ``@record(frozen=False)``
for ``@dataclass``; ``slots=True`` as in dataclasses. Type checkers read it as a
dataclass (PEP 681 ``dataclass_transform``).

Why not ``dataclasses``: on Python ≤ 3.12 each ``@dataclass`` compiles four to
six methods with ``exec`` when its class is defined (0.6–1.1 ms a class), and
``import dataclasses`` pulls in ``inspect`` (~9 ms). The run path defines some
thirty records, so ~40 ms of every ``run``/``loop``/``dev`` start went there.
A record's class gets only a field table when it is defined; ``__repr__``/``__eq__``/
``__hash__`` are shared generic functions. Its first instances are made by a generic
``__init__`` that reads the field table; the class's own ``__init__`` is compiled at its
``COMPILE_AFTER``-th instance (each compile costs 0.2-0.6 ms: a one-shot run makes 26
kinds of record, none more than four times, and compiled 7 ms of ``__init__``\ s, issue 49).

What it keeps of dataclasses (tested side by side in
``tests/unit/test_records.py``): the ``__init__`` signature (positional or
keyword, defaults, ``field(default_factory=…)``, ``field(init=False)``,
``__post_init__``), ``repr`` and ``compare`` flags, equality only between
instances of the same class, hashing of frozen records (mutable ones are
unhashable), ``ClassVar`` annotations that are not fields, ``__match_args__``,
and methods a class writes itself. ``asdict`` rebuilds records, lists, tuples
and dicts but shares their leaves (dataclasses deep-copies them; jlgcli's
leaves are immutable JSON values). Not kept: inheritance between records,
``order``, ``kw_only``, pickling of frozen slotted records.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["Field", "FrozenRecordError", "asdict", "field", "fields", "record", "replace"]

TYPE_CHECKING = False

if TYPE_CHECKING:  # a run imports no typing (issue 49): only type checkers read these
    from typing import Any, TypeVar, overload

    from typing_extensions import dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_options: object) -> Callable[[T], T]:
        """Only type checkers read it (``typing`` has it from Python 3.11 on)."""
        return lambda function: function

    def overload(function: Callable[..., object]) -> Callable[..., object]:
        """Only type checkers read the overloads; the definition after them stands."""
        return function


class _Missing:
    """No default (a sentinel whose repr reads well in a signature)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenRecordError(AttributeError):
    """A field of a frozen record was assigned (dataclasses' ``FrozenInstanceError``)."""


class Field:
    """One field of a record: its name and how ``__init__``/``repr``/``==`` treat it."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Any = MISSING,
        init: bool = True,
        repr: bool = True,
        compare: bool = True,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, init={self.init})"


@overload
def field(*, default: T, init: bool = True, repr: bool = True, compare: bool = True) -> T: ...
@overload
def field(  # noqa: F811 - overloads: ``overload`` is the type checkers' only (issue 49)
    *, default_factory: Callable[[], T], init: bool = True, repr: bool = True, compare: bool = True
) -> T: ...
@overload
def field(*, init: bool = True, repr: bool = True, compare: bool = True) -> Any: ...  # noqa: F811
def field(  # noqa: F811
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    """A field with a default factory, or one ``__init__``, ``repr`` or ``==`` leaves out."""
    return Field(default, default_factory, init, repr, compare)


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, frozen: bool = True, slots: bool = False) -> Callable[[type[T]], type[T]]: ...  # noqa: F811
@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def record(  # noqa: F811
    cls: type[T] | None = None, /, *, frozen: bool = True, slots: bool = False
) -> type[T] | Callable[[type[T]], type[T]]:
    """Make ``cls`` a record (see the module's docstring)."""

    def make(plain: type[T]) -> type[T]:
        return _make_record(plain, frozen=frozen, slots=slots)

    return make if cls is None else make(cls)


def fields(thing: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in order."""
    table: tuple[Field, ...] | None = getattr(thing, "__record_fields__", None)
    if table is None:
        raise TypeError(f"not a record: {thing!r}")
    return table


def asdict(thing: Any) -> dict[str, Any]:
    """A record as a dict, nested records, lists, tuples and dicts rebuilt (leaves shared)."""
    return {item.name: _plain(getattr(thing, item.name)) for item in fields(thing)}


def replace(thing: T, /, **changes: Any) -> T:
    """A copy of the record ``thing`` with ``changes`` (dataclasses.replace)."""
    for item in fields(thing):
        if not item.init:
            if item.name in changes:
                raise ValueError(f"field {item.name} is declared with init=False")
        elif item.name not in changes:
            changes[item.name] = getattr(thing, item.name)
    return type(thing)(**changes)


def _plain(value: Any) -> Any:
    if hasattr(type(value), "__record_fields__"):
        return asdict(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, tuple):
        return type(value)(_plain(item) for item in value)
    if isinstance(value, dict):
        return type(value)((_plain(key), _plain(item)) for key, item in value.items())
    return value


_lazy: list[tuple[type, bool]] = []  # records whose ``__init__`` is compiled on first use


def _make_record(cls: type[T], *, frozen: bool, slots: bool) -> type[T]:
    table = _field_table(cls)
    if slots:
        cls = _with_slots(cls, tuple(item.name for item in table))
    own = cls.__dict__
    if frozen and ("__setattr__" in own or "__delattr__" in own):
        raise TypeError(f"frozen record {cls.__name__} defines __setattr__ or __delattr__")
    added: dict[str, object] = {
        "__record_fields__": table,
        "__record_compared__": tuple(item.name for item in table if item.compare),
        "__match_args__": tuple(item.name for item in table if item.init),
        "__init__": _first_init(cls, frozen=frozen),
        "__repr__": _record_repr,
        "__eq__": _record_eq,
    }
    if own.get("__hash__") is None:  # absent, or set to None by a class's own __eq__
        added["__hash__"] = _record_hash if frozen else None
    if frozen:
        added["__setattr__"] = _frozen_setattr
        added["__delattr__"] = _frozen_delattr
    if "__init__" not in own:  # (``own`` is the class's live namespace)
        _lazy.append((cls, frozen))
    for name, value in added.items():
        if name not in own or name == "__hash__":  # methods a class writes itself stay
            setattr(cls, name, value)
    return cls


def compile_pending() -> None:
    """Compile now every ``__init__`` still to be compiled on first use: in a process that
    forks many others (the batch's task server, issue 37), once for all of them."""
    while _lazy:
        cls, frozen = _lazy.pop()
        if getattr(cls.__dict__.get("__init__"), "_compiles_on_first_use", False):
            setattr(cls, "__init__", _compile_init(cls, frozen=frozen))  # noqa: B010 - as below


def _field_table(cls: type) -> tuple[Field, ...]:
    table: list[Field] = []
    seen_default = False
    own_annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 - no inspect
    for name, annotation in own_annotations.items():
        if _is_class_variable(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        item = value if isinstance(value, Field) else Field(default=value)
        if name == "self":
            raise TypeError(f"{cls.__name__}: a record field cannot be named 'self'")
        item.name = name
        if item.default is not MISSING and type(item.default).__hash__ is None:
            raise ValueError(
                f"mutable default {type(item.default).__name__} for field {name}"
                " is not allowed: use default_factory"
            )
        has_default = item.default is not MISSING or item.default_factory is not MISSING
        if item.init:
            if seen_default and not has_default:
                raise TypeError(f"non-default argument {name!r} follows default argument")
            seen_default = seen_default or has_default
        if isinstance(value, Field):  # as dataclasses: the class attribute is the default
            if item.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, item.default)
        table.append(item)
    return tuple(table)


_CLASSVAR_PREFIXES = ("ClassVar", "typing.ClassVar", "t.ClassVar")


def _is_class_variable(annotation: object) -> bool:
    """``ClassVar[...]``: written as a string (``from __future__ import annotations``) or not."""
    if isinstance(annotation, str):
        return annotation.startswith(_CLASSVAR_PREFIXES)
    typing = sys.modules.get("typing")  # not imported: no annotation can be ``ClassVar``
    if typing is None:
        return False
    class_var = typing.ClassVar
    return annotation is class_var or getattr(annotation, "__origin__", None) is class_var


def _with_slots(cls: type[T], names: tuple[str, ...]) -> type[T]:
    namespace = dict(cls.__dict__)
    for name in (*names, "__dict__", "__weakref__"):
        namespace.pop(name, None)  # a class attribute of a slot's name is not allowed
    namespace["__slots__"] = names
    slotted: type[T] = type(cls.__name__, cls.__bases__, namespace)
    slotted.__qualname__ = cls.__qualname__
    return slotted


COMPILE_AFTER = 8  # instances made by the generic ``__init__`` before the class's own is compiled


def _first_init(cls: type, *, frozen: bool) -> Callable[..., None]:
    """A generic ``__init__`` (the field table, read at each call) that compiles the class's
    own one at its ``COMPILE_AFTER``-th instance, installs it and runs it."""
    made = [0]

    def first_init(self: Any, *args: Any, **kwargs: Any) -> None:
        made[0] += 1
        if made[0] < COMPILE_AFTER:
            _generic_init(cls, frozen, self, args, kwargs)
            return
        compiled = _compile_init(cls, frozen=frozen)
        setattr(cls, "__init__", compiled)  # noqa: B010 - mypy: no assigning to a method
        compiled(self, *args, **kwargs)

    first_init._compiles_on_first_use = True  # type: ignore[attr-defined]  # compile_pending
    return first_init


def _generic_init(
    cls: type, frozen: bool, self: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """What the compiled ``__init__`` does (``_compile_init``), read from the field table:
    the same arguments bound the same way, the same fields set in the same order."""
    table = fields(cls)
    names = [item.name for item in table if item.init]
    if len(args) > len(names):
        raise TypeError(f"{cls.__qualname__}.__init__() takes {len(names) + 1} positional "
                        f"arguments but {len(args) + 1} were given")  # fmt: skip
    given = dict(zip(names, args, strict=False))  # fewer arguments than fields: the rest later
    for name, value in kwargs.items():
        if name not in names or name in given:
            why = "got multiple values for" if name in given else "got an unexpected keyword"
            raise TypeError(f"{cls.__qualname__}.__init__() {why} argument {name!r}")
        given[name] = value
    missing = [item.name for item in table if item.init and item.name not in given
               and item.default is MISSING and item.default_factory is MISSING]  # fmt: skip
    if missing:
        raise TypeError(f"{cls.__qualname__}.__init__() missing {len(missing)} required "
                        f"argument(s): {', '.join(map(repr, missing))}")  # fmt: skip
    assign = object.__setattr__ if frozen else setattr
    for item in table:
        value = given.get(item.name, MISSING) if item.init else MISSING
        if value is MISSING:
            if item.default_factory is not MISSING:
                value = item.default_factory()
            elif item.default is not MISSING:
                value = item.default
            else:
                continue  # set by __post_init__, as in dataclasses
        assign(self, item.name, value)
    if hasattr(cls, "__post_init__"):
        self.__post_init__()


def _compile_init(cls: type, *, frozen: bool) -> Callable[..., None]:
    table = fields(cls)
    scope: dict[str, Any] = {"MISSING": MISSING, "__setattr__": object.__setattr__}
    params: list[str] = []
    lines: list[str] = []
    for index, item in enumerate(table):
        name = item.name
        value = name
        if item.default_factory is not MISSING:
            scope[f"factory_{index}"] = item.default_factory
            if item.init:
                params.append(f"{name}=MISSING")
                value = f"factory_{index}() if {name} is MISSING else {name}"
            else:
                value = f"factory_{index}()"
        elif item.init:
            if item.default is MISSING:
                params.append(name)
            else:
                scope[f"default_{index}"] = item.default
                params.append(f"{name}=default_{index}")
        elif item.default is MISSING:
            continue  # set by __post_init__, as in dataclasses
        else:
            scope[f"default_{index}"] = item.default
            value = f"default_{index}"
        if frozen:
            lines.append(f"    __setattr__(self, {name!r}, {value})")
        else:
            lines.append(f"    self.{name} = {value}")
    if hasattr(cls, "__post_init__"):
        lines.append("    self.__post_init__()")
    source = f"def __init__({', '.join(['self', *params])}):\n" + ("\n".join(lines) or "    pass")
    exec(source, scope)  # noqa: S102 - our own field names, as dataclasses does
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _record_repr(self: Any) -> str:
    shown = ", ".join(
        f"{item.name}={getattr(self, item.name)!r}" for item in self.__record_fields__ if item.repr
    )
    return f"{type(self).__qualname__}({shown})"


def _compared(thing: Any) -> tuple[Any, ...]:
    return tuple(getattr(thing, name) for name in thing.__record_compared__)


def _record_eq(self: Any, other: object) -> object:  # a bool, or NotImplemented
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _compared(self) == _compared(other)


def _record_hash(self: Any) -> int:
    return hash(_compared(self))


def _frozen_setattr(self: Any, name: str, value: object) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r}")
