"""Issue 33: what the model writes never reaches the Actions runner's command parser.

The Action's door (``python -m jlgcli.integrations.action``, what ``action.yml``
runs) with the scripted fake claude replying ``::error::x``, ``::add-mask::…`` and
``::stop-commands::…`` lines. Both streams go to one pipe, in the order written,
and ``obeyed`` reads them the way the runner does: it honours
``::stop-commands::TOKEN`` until ``::TOKEN::`` and obeys every other ``::cmd::``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from support.environ import tool_environ

COMMAND = re.compile(r"^::([a-z-]+)(?: [^:]*)?::(.*)$")


def obeyed(log: str) -> list[tuple[str, str]]:
    """The workflow commands a runner would act on in ``log`` (a tiny stand-in for its parser)."""
    found: list[tuple[str, str]] = []
    stopped: str | None = None
    for line in log.splitlines():
        if stopped is not None:
            if line == f"::{stopped}::":
                stopped = None
            continue
        match = COMMAND.match(line)
        if match is None:
            continue
        name, value = match.groups()
        if name == "stop-commands":
            stopped = value
        else:
            found.append((name, value))
    return found


def test_the_stand_in_parser_obeys_what_is_not_stopped() -> None:
    log = "::error::a\n::stop-commands::t\n::error::b\n::t::\n::warning title=x::c\n"
    assert obeyed(log) == [("error", "a"), ("warning", "c")]


def _action(tmp_path: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], str]:
    summary = tmp_path / "step_summary.md"
    result = subprocess.run(
        [sys.executable, "-m", "jlgcli.integrations.action"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, timeout=120,
        env=tool_environ(GITHUB_ACTIONS="true", GITHUB_OUTPUT=str(tmp_path / "out"),
                         GITHUB_STEP_SUMMARY=str(summary), **env),
    )  # fmt: skip
    return result, summary.read_text("utf-8") if summary.exists() else ""


def test_a_models_workflow_commands_are_not_obeyed(tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    text = "::error::x\n::add-mask::everything\n::stop-commands::mine\n::error::y\nDONE"
    script = tmp_path / "fake.json"
    script.write_text(json.dumps({"turns": [{"text": text}]}), encoding="utf-8")
    env = {"JLGCLI_FAKE_SCRIPT": str(script), "JLG_PROMPT_FILE": "task.md",
           "JLG_BACKEND": "claude", "JLG_COMMAND": "run", "JLG_ARGS": "-v"}  # fmt: skip
    result, _summary = _action(tmp_path, env)
    assert result.returncode == 0, result.stdout
    assert "::error::x" in result.stdout  # the text is in the log…
    assert obeyed(result.stdout) == []  # …and the runner acted on none of it


def test_bad_inputs_get_a_job_summary_too(tmp_path: Path) -> None:
    result, summary = _action(tmp_path, {"JLG_COMMAND": "deploy"})
    assert result.returncode == 64, result.stdout
    assert summary.startswith("### ❌ jlgcli: the run did not start")
    assert "unknown command 'deploy'" in summary
