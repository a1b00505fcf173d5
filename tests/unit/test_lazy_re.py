"""Redaction rules compiled at their first use, not at import (issue 49: the one-shot's start)."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys

from jlgcli.lazy_re import LazyPattern, lazy

TEXTS = [
    b"",
    b"no secret here",
    b"curl -u admin:hunter22 https://x",
    b"run mysql -uroot -pS3cret! db and mariadb -pAnother1",
    b"machine h login u password s3cr3tpw\npassword abc",
    b'{"auth": "dXNlcjpwYXNzd29yZA=="}',
]


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    source = rb"(?:mysql|mariadb)\b[^\n]{0,64}?[ \t]-p(\S+)"
    compiled = re.compile(source, re.IGNORECASE)
    for needs in ((), (b"mysql", b"mariadb")):
        pattern = lazy(source, re.IGNORECASE, needs=needs)
        for text in TEXTS:
            lowered = text.lower()
            for pos in (0, 5):
                found, expected = pattern.search(lowered, pos), compiled.search(lowered, pos)
                assert (found and found.span(1)) == (expected and expected.span(1))
            assert [m.span() for m in pattern.finditer(text)] == [
                m.span() for m in compiled.finditer(text)
            ]
            assert bool(pattern.match(text)) == bool(compiled.match(text))
        assert pattern.pattern == source and pattern.groups == 1


def test_it_is_compiled_at_its_first_use_and_its_methods_are_then_the_compiled_ones() -> None:
    pattern = LazyPattern(rb"ab+c")
    assert not pattern.compiled
    assert pattern.match(b"abbc")
    assert pattern.compiled
    assert isinstance(pattern.__dict__["search"].__self__, re.Pattern)  # no wrapper left


def test_a_search_without_the_needed_literal_does_not_compile() -> None:
    pattern = LazyPattern(rb"curl\b.* -u (\S+)", needs=(b"curl",))
    assert pattern.search(b"wget -u x") is None
    assert pattern.search(b"curl is here", 1) is None  # the literal must be at pos or after
    assert not pattern.compiled
    found = pattern.search(b"curl -x -u secret")
    assert found is not None and found.group(1) == b"secret"
    assert pattern.compiled


def test_dunder_probes_do_not_compile_and_copies_work() -> None:
    pattern = LazyPattern(rb"x+")
    assert not hasattr(pattern, "__wrapped__")
    assert not pattern.compiled
    assert copy.copy(pattern).search(b"axx") is not None


def test_importing_the_rules_compiles_only_what_every_input_needs() -> None:
    code = (
        "import json, jlgcli.artifacts.redact as r, jlgcli.artifacts.exact as e, "
        "jlgcli.artifacts.rules as rules\n"
        "lazy = [*rules.CONTEXT, *e._CONTEXT_AT, e._ANCHORED, e._SCHEME_CREDENTIAL, "
        "e._UNQUOTED, e._BEARER_AT, e._AUTHORIZATION_AT, *e._ASSIGN_RULES]\n"
        "before = [p.compiled for p in lazy]\n"
        "text = r.Redactor().redact('deploy the service; see the notes')\n"
        "after = [p.compiled for p in lazy]\n"
        "print(json.dumps([before, after, text]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, after, text = json.loads(out.stdout)
    assert not any(before)
    assert not any(after)  # a short text naming none of their literals compiles none of them
    assert text == "deploy the service; see the notes"


def test_a_source_given_as_a_function_is_spelled_out_at_the_first_use_only() -> None:
    spelled: list[int] = []

    def source() -> bytes:
        spelled.append(1)
        return rb"a(b+)"

    pattern = LazyPattern(source, needs=(b"a",))
    assert pattern.search(b"xyz") is None and spelled == []  # the gate needs no source
    assert pattern.pattern == rb"a(b+)" and spelled == [1]
    found = pattern.search(b"xabb")
    assert found is not None and found.group(1) == b"bb" and spelled == [1]
