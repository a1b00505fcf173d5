"""The ``json`` completion protocol: seed 004's table and RG-010 edge cases."""

from __future__ import annotations

import json

import pytest

from jlgcli.completion.json_status import INVALID, JsonCompletion, from_object, parse

DONE = JsonCompletion(status="done")

# seed 004 "Tests requis": every row of the table. The seed's invalid result
# ``{status: 'error', error: 'invalid-json'}`` is ``INVALID`` here (status None),
# so that a model's own ``"status": "error"`` stays distinguishable.
SEED_004 = [
    ("JSON valide minimal", '{"status":"done"}', DONE),
    (
        "JSON avec summary",
        '{"status":"done","summary":"Task completed"}',
        JsonCompletion("done", summary="Task completed"),
    ),
    (
        "JSON avec next",
        '{"status":"continue","next":"Run tests"}',
        JsonCompletion("continue", next="Run tests"),
    ),
    (
        "JSON complet",
        '{"status":"error","summary":"Failed","next":"Retry"}',
        JsonCompletion("error", summary="Failed", next="Retry"),
    ),
    ("JSON après texte", 'Some logs...\n{"status":"done"}', DONE),
    ("JSON avant texte", '{"status":"done"}\nMore output', DONE),
    ("Plusieurs JSON (dernier pris)", '{"status":"continue"}\n{"status":"done"}', DONE),
    ("JSON dans code fence", '```json\n{"status":"done"}\n```', DONE),
    ("JSON invalide", "{status: done}", INVALID),
    ("Pas de JSON", "Just some text", INVALID),
    ("Status invalide", '{"status":"unknown"}', INVALID),
    ("Status manquant", '{"summary":"test"}', INVALID),
    ("Texte vide", "", INVALID),
    ("Whitespace seul", "   \n\t  ", INVALID),
]

# The other cases of seed 004's example test file.
SEED_004_EXTRA = [
    ("status continue", '{"status":"continue"}', JsonCompletion("continue")),
    ("status error", '{"status":"error"}', JsonCompletion("error")),
    (
        "last of several with text between",
        '{"status":"continue"}\nsome text\n{"status":"done"}',
        DONE,
    ),
    (
        "embedded in an explanation",
        "\nI've completed the task. Here's the result:\n"
        '{"status":"done","summary":"All tests pass"}\n'
        "Let me know if you need anything else.\n      ",
        JsonCompletion("done", summary="All tests pass"),
    ),
    ("status not a string", '{"status":123}', INVALID),
    ("summary not a string", '{"status":"done","summary":123}', INVALID),
    ("next not a string", '{"status":"done","next":true}', INVALID),
    (
        "extra fields ignored",
        '{"status":"done","extra":"ignored","summary":"ok"}',
        JsonCompletion("done", summary="ok"),
    ),
    ("nested object then a valid one", '{"data":{"status":"continue"}}\n{"status":"done"}', DONE),
    (
        "unicode",
        '{"status":"done","summary":"Tâche terminée ✓"}',
        JsonCompletion("done", summary="Tâche terminée ✓"),
    ),
    (
        "escaped quotes",
        '{"status":"done","summary":"Said \\"hello\\""}',
        JsonCompletion("done", summary='Said "hello"'),
    ),
    ("invalid JSON skipped", '{invalid}\n{"status":"done"}', DONE),
]


@pytest.mark.parametrize(("case", "text", "expected"), SEED_004 + SEED_004_EXTRA)
def test_seed_004_table(case: str, text: str, expected: JsonCompletion) -> None:
    """seed 004 / RG-010: the last valid object, or invalid-json."""
    assert parse(text) == expected, case


@pytest.mark.parametrize(
    ("case", "text", "expected"),
    [
        ("PRD example with next null", '{ "status": "done", "summary": "…", "next": null }',
         JsonCompletion("done", summary="…")),
        ("summary null", '{"status":"continue","summary":null}', JsonCompletion("continue")),
        # issue 49, decided: null is absent, although seed 004's typeof check would refuse
        # it: the schema passed to claude --json-schema / codex --output-schema requires
        # both keys, null allowed (docs/loop.md says so); any other non-string is refused
        ("done, summary null", '{"status":"done","summary":null}', DONE),
        ("done, summary a number", '{"status":"done","summary":1.5}', INVALID),
        ("nested object is never taken out of its parent", '{"data":{"status":"done"}}', INVALID),
        ("object inside a parsing array is nested", '[{"status":"done"}]', INVALID),
        ("top-level object without status is skipped",
         '{"status":"continue"}\n{"progress": 3}', JsonCompletion("continue")),
        ("invalid later object skipped, earlier valid kept",
         '{"status":"done"}\n{"status":"finished"}', DONE),
        ("inner object of a parent that does not parse",
         '{"result": {"status":"done"}, oops}', DONE),
        ("braces and quotes inside strings",
         '{"status":"done","summary":"use {} and \\"}\\" and [ ]"}',
         JsonCompletion("done", summary='use {} and "}" and [ ]')),
        ("escaped backslash before the closing quote",
         '{"status":"done","summary":"C:\\\\"}', JsonCompletion("done", summary="C:\\")),
        ("pretty-printed with CRLF",
         'Result:\r\n{\r\n  "status": "continue",\r\n  "next": "tests"\r\n}\r\n',
         JsonCompletion("continue", next="tests")),
        ("fence with prose after", 'Done!\n```json\n{"status":"done"}\n```\nBye "friend', DONE),
        ("JSON in a JSON string is not an object",
         '{"status":"continue"}\n{"log": "{\\"status\\":\\"done\\"}"}', JsonCompletion("continue")),
        ("JS object literal is not JSON", 'const r = {status: "done"};', INVALID),
        ("Python dict is not JSON", "{'status': 'done'}", INVALID),
        ("NaN is not JSON", '{"status":"done","x":NaN}', INVALID),
        ("status in other case", '{"status":"DONE"}', INVALID),
        ("duplicate keys: the last wins (json)", '{"status":"nope","status":"done"}', DONE),
        ("stray quote after the object on its line",
         '{"status":"done","summary":"ok"}", 1}', JsonCompletion("done", summary="ok")),
        ("escape sequences around", '\x1b[32m{"status":"done"}\x1b[0m', DONE),
        ("unterminated string before", '{"a": "never closed\n{"status":"done"}', DONE),
        ("deep nesting", "[" * 5000 + "]" * 5000, INVALID),
        ("unclosed braces", "{" * 5000 + '{"status":"done"}', DONE),
    ],
)  # fmt: skip
def test_rg_010_edge_cases(case: str, text: str, expected: JsonCompletion) -> None:
    assert parse(text) == expected, case


def test_status_object_after_a_large_output() -> None:
    """RG-010 on a long reply: the window grows as needed."""
    noise = 'log line with {braces} and [1] and "quotes\n' * 20_000  # ~0.9 MB
    obj = '{"status":"done","summary":"' + "x" * 10_000 + '"}'
    assert parse(obj + "\n" + noise).summary == "x" * 10_000
    assert parse(noise + obj + noise).status == "done"


def test_many_objects_without_status_before_the_answer() -> None:
    events = "".join(json.dumps({"type": "tool", "n": k}) + "\n" for k in range(2000))
    assert parse('{"status":"continue","next":"x"}\n' + events).next == "x"


def test_from_object_checks_types() -> None:
    assert from_object({"status": "done", "summary": "s", "next": "n"}) == JsonCompletion(
        "done", "s", "n"
    )
    assert from_object({"status": ["done"]}) is None
    assert from_object({"status": "done", "next": 1}) is None


def test_result_is_frozen() -> None:
    with pytest.raises(AttributeError):
        DONE.status = "continue"  # type: ignore[misc]
