"""jlgcli.records: a drop-in for the dataclasses jlgcli used, cheap to define (issue 18).

The records replaced ``@dataclass`` on the run path to take ~40 ms off every start;
these tests hold them to dataclasses' behaviour side by side, for random field tables.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli import records
from jlgcli.records import FrozenRecordError, field, record

# One field: how it gets its value. "plain" has no default; "init_*" fields are not
# parameters of __init__ (their value comes from the default or the factory).
KINDS = ("plain", "default", "factory", "init_default", "init_factory")


@st.composite
def tables(draw: st.DrawFn) -> list[tuple[str, str, bool, bool]]:
    names = draw(st.lists(st.sampled_from("abcdefgh"), unique=True, min_size=0, max_size=6))
    table = []
    defaulted = False
    for name in names:
        kind = draw(st.sampled_from(KINDS))
        if kind == "plain" and defaulted:
            kind = "default"  # dataclasses and records both refuse the other order
        defaulted = defaulted or kind in ("default", "factory")
        table.append((name, kind, draw(st.booleans()), draw(st.booleans())))
    return table


def build(
    table: list[tuple[str, str, bool, bool]], *, mine: bool, frozen: bool, slots: bool
) -> Any:
    """The same class, made with ``record`` (mine) or ``dataclass``."""
    make_field: Any = field if mine else dataclasses.field
    namespace: dict[str, Any] = {"__annotations__": {}, "__qualname__": "Thing"}
    for index, (name, kind, shown, compared) in enumerate(table):
        namespace["__annotations__"][name] = "int"
        flags = {"repr": shown, "compare": compared}
        if kind == "default":
            namespace[name] = make_field(default=index, **flags)
        elif kind == "factory":
            namespace[name] = make_field(default_factory=lambda i=index: [i], **flags)
        elif kind == "init_default":
            namespace[name] = make_field(default=-index, init=False, **flags)
        elif kind == "init_factory":
            namespace[name] = make_field(default_factory=dict, init=False, **flags)
        else:
            namespace[name] = make_field(**flags)
    plain = type("Thing", (), namespace)
    if mine:
        return record(frozen=frozen, slots=slots)(plain)
    return dataclasses.dataclass(frozen=frozen, slots=slots)(plain)


def outcome(action: Any, *args: Any, **kwargs: Any) -> Any:
    """What ``action(*args, **kwargs)`` returned, or the kind of exception it raised."""
    try:
        return ("value", action(*args, **kwargs))
    except Exception as error:
        kind = "AttributeError" if isinstance(error, AttributeError) else type(error).__name__
        return ("raised", kind)


def same_hash(make: Any, args: list[int], kwargs: dict[str, int]) -> bool:
    return hash(make(*args, **kwargs)) == hash(make(*args, **kwargs))


def replaced(replace: Any, thing: Any, name: str) -> str:
    return repr(replace(thing, **{name: 5}))


@given(table=tables(), frozen=st.booleans(), slots=st.booleans(), seed=st.integers(0, 3))
def test_a_record_behaves_as_the_same_dataclass(
    table: list[tuple[str, str, bool, bool]], frozen: bool, slots: bool, seed: int
) -> None:
    ours = build(table, mine=True, frozen=frozen, slots=slots)
    theirs = build(table, mine=False, frozen=frozen, slots=slots)
    params = [name for name, kind, _, _ in table if not kind.startswith("init_")]
    required = [name for name, kind, _, _ in table if kind == "plain"]
    values = {name: 100 + seed * position for position, name in enumerate(params)}
    positional = [values[name] for name in params]
    for args, kwargs in (
        (positional, {}),
        ([], values),
        ([], {name: values[name] for name in required}),
    ):
        mine, other = ours(*args, **kwargs), theirs(*args, **kwargs)
        assert repr(mine) == repr(other)
        assert records.asdict(mine) == dataclasses.asdict(other)
        assert [f.name for f in records.fields(mine)] == [f.name for f in dataclasses.fields(other)]
        assert ours.__match_args__ == theirs.__match_args__
        assert (mine == ours(*args, **kwargs)) == (other == theirs(*args, **kwargs))
        assert outcome(same_hash, ours, args, kwargs) == outcome(same_hash, theirs, args, kwargs)
        assert hasattr(mine, "__dict__") == hasattr(other, "__dict__")
        for name, *_ in table[:1]:
            assert outcome(setattr, mine, name, 7) == outcome(setattr, other, name, 7)
            assert outcome(replaced, records.replace, mine, name) == outcome(
                replaced, dataclasses.replace, other, name
            )
    assert outcome(ours, *positional, 1) == outcome(theirs, *positional, 1)
    if required:
        assert outcome(ours) == outcome(theirs)  # a required field missing: TypeError


def test_records_of_different_classes_are_never_equal() -> None:
    @record
    class Left:
        x: int

    @record
    class Right:
        x: int

    assert Left(1) != Right(1)
    assert Left(1) == Left(1)
    assert Left(1) != (1,)


def test_the_class_keeps_what_it_writes_itself_and_its_class_variables() -> None:
    @record(frozen=False)
    class Counter:
        limit: ClassVar[int] = 3
        count: int = 0
        seen: list[str] = field(default_factory=list)
        shown: str = field(init=False)

        def __post_init__(self) -> None:
            self.shown = f"{self.count}/{self.limit}"

        def __repr__(self) -> str:
            return f"<{self.shown}>"

    counter = Counter(2)
    assert repr(counter) == "<2/3>"
    assert [item.name for item in records.fields(Counter)] == ["count", "seen", "shown"]
    assert Counter().seen is not Counter().seen
    assert Counter.count == 0  # as dataclasses: a plain default stays the class attribute
    with pytest.raises(TypeError):
        hash(counter)  # a mutable record with == is unhashable


def test_class_variables_are_not_fields_whether_their_annotation_is_a_string_or_not() -> None:
    namespace = {
        "__annotations__": {"limit": ClassVar[int], "bare": ClassVar, "count": int},
        "limit": 3,
        "bare": 1,
    }
    plain = record(type("Plain", (), namespace))
    assert [item.name for item in records.fields(plain)] == ["count"]
    assert plain(2).limit == 3


def test_a_hash_the_class_writes_itself_stays() -> None:
    @record
    class Named:
        name: str
        note: str = ""

        def __hash__(self) -> int:
            return hash(self.name)

    assert hash(Named("a", "x")) == hash("a")


def test_a_frozen_record_refuses_assignment_and_deletion() -> None:
    @record(slots=True)
    class Point:
        x: int
        y: int = 0

    point = Point(1)
    with pytest.raises(FrozenRecordError, match="cannot assign to field 'x'"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(FrozenRecordError, match="cannot delete field 'y'"):
        del point.y  # type: ignore[misc]
    assert {Point(1), Point(1, 0)} == {point}
    assert not hasattr(point, "__dict__")


def test_definition_errors_are_those_of_dataclasses() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @record
        class Order:
            a: int = 1
            b: int  # type: ignore[misc]

    with pytest.raises(ValueError, match="mutable default list for field items"):

        @record
        class Shared:
            items: list[int] = []  # noqa: RUF012

    with pytest.raises(ValueError, match="both default and default_factory"):
        field(default=1, default_factory=list)  # type: ignore[call-overload]

    with pytest.raises(TypeError, match="cannot be named 'self'"):

        @record
        class Selfish:
            self: int

    with pytest.raises(TypeError, match="defines __setattr__"):

        @record
        class Guarded:
            x: int

            def __setattr__(self, name: str, value: object) -> None: ...


def test_helpers_refuse_what_is_not_a_record_and_init_false_changes() -> None:
    with pytest.raises(TypeError, match="not a record"):
        records.fields(object())

    @record(frozen=False)
    class Chain:
        first: str
        current: str = field(init=False)

        def __post_init__(self) -> None:
            self.current = self.first

    with pytest.raises(ValueError, match="init=False"):
        records.replace(Chain("a"), current="b")
    assert records.replace(Chain("a"), first="b").current == "b"
    assert repr(records.fields(Chain)[1]) == "Field(name='current', default=MISSING, init=False)"


def test_asdict_rebuilds_nested_records_and_containers() -> None:
    @record
    class Gate:
        name: str
        passed: bool

    @record
    class Summary:
        gates: list[Gate]
        pairs: tuple[Gate, ...]
        by_name: dict[str, Gate]
        stat: dict[str, int]

    gate = Gate("lint", passed=True)
    summary = Summary([gate], (gate,), {"lint": gate}, {"files": 1})
    plain = {"name": "lint", "passed": True}
    expected = {
        "gates": [plain],
        "pairs": (plain,),
        "by_name": {"lint": plain},
        "stat": {"files": 1},
    }
    assert records.asdict(summary) == expected
    assert records.asdict(summary)["stat"] is not summary.stat


def test_the_run_path_imports_neither_dataclasses_nor_inspect() -> None:
    # issue 18: `import dataclasses` pulls in inspect (~9 ms), and each dataclass costs ~1 ms
    code = (
        "import sys, jlgcli.cli, jlgcli.commands.run, jlgcli.runner.engine, jlgcli.api;"
        "print(sorted({'dataclasses', 'inspect', 'pydantic'} & set(sys.modules)))"
    )
    # Without coverage's subprocess measurement, which itself imports dataclasses.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COV_", "COVERAGE"))}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout.strip() == "[]"


def test_compile_pending_compiles_every_lazy_init_once_and_keeps_behaviour() -> None:
    """Issue 37: the task server compiles them before forking, not each task."""
    from jlgcli import records

    @records.record
    class Point:
        x: int
        y: int = 2

    @records.record(frozen=False)
    class Made:
        x: int

        def __init__(self, x: int) -> None:  # its own: never replaced
            self.x = x * 10

    first = Point.__dict__["__init__"]
    assert first._compiles_on_first_use
    own = Made.__dict__["__init__"]
    records.compile_pending()
    assert Point.__dict__["__init__"] is not first and Made.__dict__["__init__"] is own
    assert Point(1) == Point(1, 2) and Made(3).x == 30
    compiled = Point.__dict__["__init__"]
    records.compile_pending()  # nothing left to do
    assert Point.__dict__["__init__"] is compiled


def test_the_first_instances_use_the_generic_init_then_the_class_compiles_its_own() -> None:
    """Issue 49: a one-shot run made 26 kinds of record, none more than four times, and
    compiled 7 ms of ``__init__``s; the generic one binds and sets exactly as they do."""
    from jlgcli import records

    @records.record
    class Spec:
        name: str
        size: int = 3
        tags: list[str] = field(default_factory=list)
        seen: int = field(default=0, init=False)
        shown: str = field(init=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "shown", f"{self.name}:{self.size}")

    @dataclasses.dataclass(frozen=True)
    class Twin:
        name: str
        size: int = 3
        tags: list[str] = dataclasses.field(default_factory=list)
        seen: int = dataclasses.field(default=0, init=False)
        shown: str = dataclasses.field(init=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "shown", f"{self.name}:{self.size}")

    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        (("a",), {}), (("a", 5), {}), ((), {"name": "b", "tags": ["x"]}), (("c", 1, ["y"]), {}),
        ((), {}), (("a", 1, [], 9), {}), (("a",), {"name": "a"}), (("a",), {"nope": 1}),
        (("a",), {"seen": 1}), ((), {"size": 2}),
    ]  # fmt: skip
    generic = Spec.__dict__["__init__"]
    Spec("first")
    assert Spec.__dict__["__init__"] is generic  # nothing compiled for a first instance
    for _ in range(2):  # the generic __init__, then (from the 8th instance on) the compiled one
        for args, kwargs in calls:
            mine, theirs = outcome(Spec, *args, **kwargs), outcome(Twin, *args, **kwargs)
            assert mine[0] == theirs[0] and (mine[0] == "raised") == (theirs[0] == "raised")
            if mine[0] == "value":
                assert records.asdict(mine[1]) == dataclasses.asdict(theirs[1])
            else:
                assert mine == theirs
    assert Spec.__dict__["__init__"] is not generic  # compiled once it was used enough
    assert len(calls) >= records.COMPILE_AFTER
    assert Spec("a").tags is not Spec("a").tags
