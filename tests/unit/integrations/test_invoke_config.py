"""Task defaults from Invoke's config (issue 38): names, precedence, unknown keys, types."""

from __future__ import annotations

import pytest

from jlgcli.errors import JlgError
from jlgcli.integrations.invoke_config import KNOWN_KEYS, merged, task_defaults


def test_keys_are_the_tasks_parameters() -> None:
    import inspect

    from jlgcli import invoke_tasks

    for task in (invoke_tasks.run, invoke_tasks.loop):
        names = [n for n in inspect.signature(task.body).parameters if n != "c"]
        assert set(names) <= set(KNOWN_KEYS)
    assert set(KNOWN_KEYS) == set(inspect.signature(invoke_tasks.loop.body).parameters) - {"c"}


def test_run_leaves_out_the_loop_only_keys() -> None:
    settings = {"backend": "codex", "max_iterations": 3, "completion": "json"}
    assert task_defaults("run", settings, {}) == {"backend": "codex"}
    assert task_defaults("loop", settings, {}) == settings


def test_environment_variables_invoke_did_not_map() -> None:
    env = {"INVOKE_JLGCLI_BACKEND": "gemini", "INVOKE_JLGCLI_ARTIFACTS": "yes", "OTHER": "x"}
    assert task_defaults("run", None, env) == {"backend": "gemini", "artifacts": True}
    assert task_defaults("run", {"json": True}, {}) == {"json": True}  # YAML's own booleans
    # a value Invoke already mapped (or invoke.yaml holds) stays
    assert task_defaults("run", {"backend": "codex"}, env)["backend"] == "codex"
    assert task_defaults("run", None, {"MYAPP_JLGCLI_JSON": "0"}, "MYAPP_") == {"json": False}


@pytest.mark.parametrize(
    ("settings", "env", "message"),
    [
        ({"max_iteration": 3}, {}, "unknown Invoke config key jlgcli.max_iteration "),
        ({"a": 1, "b": 2}, {}, "keys jlgcli.a, jlgcli.b"),
        ({}, {"INVOKE_JLGCLI_BACKNED": "codex"}, "jlgcli.backned"),
        ({"artifacts": "maybe"}, {}, "jlgcli.artifacts must be true or false"),
        ({"backend": ["codex"]}, {}, "jlgcli.backend must be a string or a number"),
        ({"timeout": True}, {}, "jlgcli.timeout must be a string or a number"),
    ],
)
def test_unknown_keys_and_wrong_types_are_usage_errors(
    settings: dict[str, object], env: dict[str, str], message: str
) -> None:
    with pytest.raises(JlgError) as caught:
        task_defaults("loop", settings, env)
    assert caught.value.code == 64
    assert message in caught.value.message


def test_blank_values_are_not_given() -> None:
    assert task_defaults("loop", {"backend": "", "args": None}, {}) == {}


def test_the_command_line_beats_the_config() -> None:
    defaults = {"backend": "codex", "task": "a.md", "max_iterations": 3, "artifacts": True}
    given = {"backend": "claude", "prompt": "b.md", "max_iterations": None, "artifacts": False}
    assert merged(given, defaults) == {
        "backend": "claude",
        "prompt": "b.md",
        "max_iterations": 3,
        "artifacts": True,
    }
