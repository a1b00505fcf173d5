"""Flags a CLI's version lacks are never passed; new ones are used where it has them (issue 48).

Each ``flags/<cli>-<version>.txt`` lists the option names of that version's ``--help``
(research/backends.md §2 and §10). Every option jlgcli builds for that version must be in it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jlgcli.backends.base import BackendRequest
from jlgcli.backends.claude import ClaudeBackend

FLAGS = Path(__file__).parent / "flags"
SID = "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"


def help_flags(name: str) -> set[str]:
    lines = (FLAGS / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return {flag for line in lines if not line.startswith("#") for flag in line.split()}


def claude_argv(version: str | None, **fields: object) -> list[str]:
    base: dict[str, object] = dict(
        prompt="p", cwd=".", model="opus", permissions="edit", max_budget_usd=1.0,
        output_schema="{}", cli_version=version,
    )  # fmt: skip
    base.update(fields)
    return list(ClaudeBackend(is_root=lambda: False).invocation(BackendRequest(**base)).argv)  # type: ignore[arg-type]


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
@pytest.mark.parametrize(
    "fields", [{}, {"new_session_id": SID}, {"resume_session": SID}, {"permissions": "full"}]
)
def test_every_claude_option_is_in_that_versions_help(
    version: str, fields: dict[str, object]
) -> None:
    options = {word for word in claude_argv(version, **fields) if word.startswith("-")}
    assert options <= help_flags(f"claude-{version}"), options - help_flags(f"claude-{version}")


def test_claude_starts_a_session_under_the_id_jlgcli_chose() -> None:
    argv = claude_argv("2.1.197", new_session_id=SID)
    assert argv[argv.index("--session-id") + 1] == SID
    resumed = claude_argv("2.1.197", new_session_id=SID, resume_session="other")
    assert "--session-id" not in resumed and "--resume" in resumed


@pytest.mark.parametrize(
    ("version", "passed"), [("2.1.332", True), ("2.1.400", True), ("2.1.197", False), (None, False)]
)
def test_permission_prompts_none_only_where_the_version_has_it(
    version: str | None, passed: bool
) -> None:
    argv = claude_argv(version)
    assert ("--permission-prompts" in argv) is passed
    if passed:
        assert argv[argv.index("--permission-prompts") + 1] == "none"
