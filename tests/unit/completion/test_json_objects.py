"""The top-level JSON object finder (RG-010): semantics, window edges, adversarial input.

Property tests compare it with an obviously correct quadratic oracle: scan
left to right, decode at every ``{``/``[``, keep the values that parse and
skip what they cover; the top-level objects are the kept dicts, last first.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jlgcli.completion import _scan
from jlgcli.completion.json_objects import iter_objects_from_end, last_matching

_WINDOW = _scan._FIRST_WINDOW


def found(text: str, **kwargs: Any) -> list[dict[str, Any]]:
    return list(iter_objects_from_end(text, **kwargs))


def oracle(text: str) -> list[dict[str, Any]]:
    """Forward greedy: the values that parse, not nested in an earlier one; objects, last first."""
    objects: list[dict[str, Any]] = []
    i = 0
    while True:
        starts = [p for p in (text.find("{", i), text.find("[", i)) if p >= 0]
        if not starts:
            return objects[::-1]
        p = min(starts)
        try:
            value, stop = _scan.DECODER.raw_decode(text, p)
        except (ValueError, RecursionError):
            i = p + 1
            continue
        if isinstance(value, dict):
            objects.append(value)
        i = stop


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a":1} {"b":2}\n{"c":3}', [{"c": 3}, {"b": 2}, {"a": 1}]),
        ('{"outer": {"inner": 1}}', [{"outer": {"inner": 1}}]),
        ('{"outer": {"inner": 1}, broken}', [{"inner": 1}]),
        ('{"x": {"a": 1}, "y": {"b": 2}, bad} tail', [{"b": 2}, {"a": 1}]),
        ('{"x": [{"a": 1}, {"b": 2}], bad} tail', []),
        ('{ {"a":1} }', [{"a": 1}]),
        ("[{}, {\"a\":1} x", [{"a": 1}, {}]),
        ('[{"a": 1}]', []),
        ('[1, {"a": 1}, oops]', [{"a": 1}]),
        ('x {"a":[1,2,{"b":null}],"c":true} y "oops', [{"a": [1, 2, {"b": None}], "c": True}]),
        ('{"a":"b"}",1}', [{"a": "b"}]),
        ('{"a":"b"}","x",1}', [{"a": "b"}]),
        ('{"s":"a}b{c"} tail', [{"s": "a}b{c"}]),
        ('{"k": "line\nbreak"}', []),
        ('{"k": "tab\tinside"}', []),
        ('{"a": 1e5, "b": -0.5, "c": false}', [{"a": 1e5, "b": -0.5, "c": False}]),
        ("{}", [{}]),
        ("}{", []),
        ('x {"a": [1} {"b": 2}', [{"b": 2}]),
        ("", []),
    ],
)  # fmt: skip
def test_top_level_objects_last_first(text: str, expected: list[dict[str, Any]]) -> None:
    assert found(text) == expected
    assert oracle(text) == expected


def test_nested_objects_hidden_in_multiline_value() -> None:
    text = "Report:\n" + json.dumps({"a": {"status": "done"}, "b": [{"c": 1}] * 3}, indent=2)
    assert found(text) == [json.loads(text[8:])]


def test_value_longer_than_the_guess_range() -> None:
    """Objects over 4 KiB are matched by the tokenizer, not the shortcut."""
    big = {"status": "done", "items": [{"k": "v" * 50, "n": i} for i in range(200)]}
    text = "prefix {x\n" + json.dumps(big) + "\nsuffix }"
    assert found(text) == [big]


def test_lazy_iteration_stops_early() -> None:
    text = "".join(json.dumps({"n": i}) + "\n" for i in range(1000))
    it = iter_objects_from_end(text)
    assert next(it) == {"n": 999}
    assert next(it) == {"n": 998}


def test_last_matching_uses_the_converter() -> None:
    text = '{"kind":"a","v":1}\n{"kind":"b","v":2}\n{"other":3}'
    assert last_matching(text, lambda o: o["v"] if o.get("kind") == "a" else None) == 1
    assert last_matching(text, lambda o: None) is None


def test_budget_ends_the_iteration() -> None:
    text = '{"status":"done"}\n' + '{"x":1}\n' * 1000
    assert found(text, budget=0) == []
    assert len(found(text, budget=100)) < 100
    assert found(text)[-1] == {"status": "done"}


def test_depth_over_the_limit_is_prose() -> None:
    deep = _scan.MAX_DEPTH + 10
    text = '{"a":' * deep + "1" + "}" * deep
    assert found(text) == []
    shallow = _scan.MAX_DEPTH - 2
    text = "prose " + '{"a":' * shallow + '{"status":"done"}' + "}" * shallow + "\n" + "x " * 3000
    assert len(found(text)) == 1


@pytest.mark.parametrize("offset", range(-12, 13, 3))
@pytest.mark.parametrize(
    "obj",
    [
        {"status": "done", "flag": True, "none": None, "list": [True, False]},
        {"status": "done", "path": "C:\\\\dir\\\\", "q": 'say \\"x\\"'},
        {"status": "done", "long": "y" * 9000},
    ],
)
def test_objects_across_the_window_edge(offset: int, obj: dict[str, Any]) -> None:
    """Tokens cut by the first window edge (64 KiB from the end) are re-read after growing."""
    body = json.dumps(obj, indent=1)
    tail = "\n" + "z" * (_WINDOW - len(body) // 2 + offset)
    text = "head {\n" + body + tail
    assert found(text) == [obj]
    # Not on one line and longer than the guess range: the tokenizer does the work.
    spaced = json.dumps(obj, indent=1).replace("\n", "\n" + " " * 300)
    assert found("x\n" + spaced + tail) == [obj]


@pytest.mark.parametrize("pad", [0, 1, 100, 255, 256, 1000, _WINDOW])
def test_closer_after_long_blank_runs(pad: int) -> None:
    obj = {"status": "done", "n": 1}
    text = '{"status": "done", "n": 1' + " " * pad + "}" + "\n" * pad
    assert found(text) == [obj]


def test_backslash_run_at_the_window_edge() -> None:
    value = "\\" * 40
    obj = {"status": "done", "v": value}
    encoded = json.dumps(obj)
    for cut in range(len(encoded) - 60, len(encoded)):
        tail = "w" * (_WINDOW - (len(encoded) - cut))
        assert found("a\n" + encoded + tail) == [obj], cut


@pytest.mark.parametrize(
    "text",
    [
        "{" * 100_000,
        "}" * 100_000,
        "[" * 50_000 + "]" * 50_000,
        '{"a":' * 20_000 + "1" + "}" * 20_000,
        '}"\\' * 30_000,
        '{"a": "' + "x" * 200_000,
        '"status" ' * 20_000,
        "\x00\x1b[0m\r\n\t" * 20_000,
        "\ud800{\"a\":\"\udfff\"}",
    ],
    ids=["open", "close", "deep-array", "deep-object", "quotes", "unterminated", "words", "ctrl",
         "surrogates"],
)  # fmt: skip
def test_adversarial_inputs_do_not_raise(text: str) -> None:
    assert isinstance(found(text), list)


def test_thousands_of_status_keys() -> None:
    one = "{" + '"status":"nope",' * 5000 + '"status":"done"}'
    assert found(one) == [{"status": "done"}]
    many = '{"status":"nope"}\n' * 5000
    assert len(found(many)) == 5000


_PROSE = st.sampled_from(
    [
        "Here is the result:",
        "```json",
        "```",
        "Let me know {if} you need anything",
        "function f() { return 1; }",
        "- [x] done [1] see [docs](http://x.y)",
        'He said "hi',
        "it's",
        "{status: done}",
        "{'a': 1}",
        "}",
        "]",
        "[",
        "{",
        '"',
        "DONE",
        "\x1b[31mred\x1b[0m",
        "a\\b",
        "",
    ]
)
_SCALARS = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=12)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
_OBJECTS = st.dictionaries(st.text(max_size=6), _VALUES, max_size=5)


@st.composite
def _documents(draw: st.DrawFn) -> str:
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            obj = draw(_OBJECTS)
            parts.append(
                json.dumps(
                    obj, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 2]))
                )
            )
        else:
            parts.append(draw(_PROSE))
    return "\n".join(parts)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(_documents())
def test_agrees_with_the_oracle_on_line_separated_documents(text: str) -> None:
    """JSON values and prose (braces, quotes, fences) on separate lines: exact agreement."""
    assert found(text) == oracle(text)


@settings(max_examples=300)
@given(
    st.text(alphabet=st.sampled_from('{}[]":,\\ \n\tabe0123456789truefalsn\x1bé✓'), max_size=200)
)
def test_never_raises_and_yields_parsing_objects(text: str) -> None:
    for obj in found(text):
        assert isinstance(obj, dict)


@settings(max_examples=200)
@given(
    st.text(alphabet=st.characters(blacklist_characters="{["), max_size=300),
    _OBJECTS,
    st.text(alphabet=st.characters(blacklist_characters="{["), max_size=300),
)
def test_finds_an_object_embedded_last(before: str, obj: dict[str, Any], after: str) -> None:
    """Noise that opens no JSON value around one object: that object is found first."""
    text = before + json.dumps(obj) + "\n" + after
    assert next(iter_objects_from_end(text)) == obj


def test_children_of_a_failed_parse() -> None:
    """A child containing the parent's error fails the same way; the others are decoded."""
    text = '{"a": {"b": [1,]}, "c": {"d": 1}, "e": ' + '"' + "x" * 5000 + '"}'
    assert found(text) == oracle(text) == [{"d": 1}]


@pytest.mark.parametrize(
    "text", ['{"x": NaN, "status": "done"}', '{"x": Infinity}\n[1, -Infinity]']
)
def test_constants_json_accepts_are_not_json(text: str) -> None:
    assert found(text) == []


def test_int_over_the_digit_limit_does_not_raise() -> None:
    text = '{"status": "done", "n": ' + "7" * 5000 + "}"
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    assert len(found(text)) == (0 if 0 < limit < 5000 else 1)


def test_every_budget_gives_a_prefix_of_the_answer() -> None:
    text = (
        'a {"k": [1, {"x": 2}], "s": "'
        + "y" * 5000
        + '"} b\n'
        + '{"p": {"q": [1,]}, "r": {"t": 3}}\n'
        + "[" * 10
        + '{"u": 4}, oops\n{"v": 5}'
    )
    full = found(text)
    assert full == oracle(text)
    for budget in range(60):
        got = found(text, budget=budget)
        assert got == full[: len(got)], budget


def test_unterminated_string_longer_than_the_window() -> None:
    text = '{"a": 1}\n"' + "x" * (2 * _WINDOW) + '", 1}'
    assert found(text) == [{"a": 1}]


def test_long_array_hides_its_objects() -> None:
    text = '[{"a": 1}, ' + "1, " * 3000 + '{"b": 2}]\n{"c": 3}'
    assert found(text) == oracle(text) == [{"c": 3}]


def test_unterminated_string_ends_at_its_line() -> None:
    text = '{"a": 1}\nnote: x", 1}'
    assert found(text) == oracle(text) == [{"a": 1}]


# --- key filter: objects that cannot hold the wanted key are not decoded (issue 18) ----------

_KEYED_OBJECTS = st.dictionaries(
    st.sampled_from(["status", "a", ""]) | st.text(max_size=6), _VALUES
)


@st.composite
def _keyed_documents(draw: st.DrawFn) -> str:
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            obj = draw(_KEYED_OBJECTS)
            nested = draw(st.booleans())
            value = {"data": obj} if nested else obj
            parts.append(json.dumps(value, ensure_ascii=draw(st.booleans())))
        else:
            parts.append(draw(_PROSE))
    return "\n".join(parts)


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow])
@given(_keyed_documents(), st.sampled_from(["status", "a", "é"]))
def test_key_filter_keeps_every_object_with_the_key(text: str, key: str) -> None:
    """Filtered or not, the objects holding the key are the same, in the same order."""
    assert [o for o in found(text, key=key) if key in o] == [o for o in oracle(text) if key in o]


@settings(max_examples=120)
@given(st.text(alphabet=st.sampled_from('{}[]":,\\ \n\tabstu0123456789truefalsn'), max_size=200))
def test_key_filter_agrees_with_the_scanner_on_bracket_soup(text: str) -> None:
    key = "a"
    assert [o for o in found(text, key=key) if key in o] == [o for o in found(text) if key in o]


def test_escaped_key_is_still_found() -> None:
    text = 'prose {"st\\u0061tus": "done"} more prose {"other": 1}'
    assert [o for o in found(text, key="status") if "status" in o] == [{"status": "done"}]


def test_objects_without_the_key_are_not_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[tuple[int, int]] = []
    real = _scan._decode_exactly

    def counting(text: str, start: int, end: int) -> tuple[int, Any] | None:
        decoded.append((start, end))
        return real(text, start, end)

    monkeypatch.setattr(_scan, "_decode_exactly", counting)
    events = '{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}\n' * 500
    assert found(events, key="status") == []
    assert decoded == []  # no "status" anywhere: the scan ends at once
    text = events + '{"status": "done"}\n' + events
    assert [o for o in found(text, key="status") if "status" in o] == [{"status": "done"}]
    assert decoded and all(start >= len(events) for start, _ in decoded)  # none left of it
    decoded.clear()
    assert len(found(text)) == 1001 and len(decoded) >= 1000  # unfiltered decodes them all


def test_failed_span_without_the_key_is_not_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    class Decoder:
        def raw_decode(self, piece: str) -> tuple[Any, int]:
            calls.append(piece)
            return _scan.DECODER.raw_decode(piece)

    monkeypatch.setattr("jlgcli.completion.json_objects.DECODER", Decoder())
    text = '{"status": "done"} then {"x": [1, 2}, "y": {"z": 3}}'  # a span that fails to parse
    assert found(text, key="status") == [{"status": "done"}]
    assert not any('"y"' in piece for piece in calls)
