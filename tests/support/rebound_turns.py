"""A scripted fake model for rebound e2e tests: write one script, run it, then finish.

The fake ``claude`` (tests/fakes) plays the turns of ``JLGCLI_FAKE_SCRIPT``; the
prompts it was sent land in ``<that file>.prompts/NNN.txt``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from support.environ import without_coverage
from support.reachable import AS_NOBODY, Runtime, give_to_nobody


def reply(obj: dict[str, Any]) -> dict[str, Any]:
    """One turn: the reply object in a ```json fence."""
    return {"text": "```json\n" + json.dumps(obj) + "\n```"}


def run_one_script(
    folder: Path, name: str, content: str, *, continuation: str = "What did you see?",
    final: dict[str, Any] | None = None, thought: str | None = None,
) -> Path:  # fmt: skip
    """``folder/agent-script.json``: write ``workbench/scripts/<name>``, run it, then ``final``."""
    target = f"workbench/scripts/{name}"
    first: dict[str, Any] = {} if thought is None else {"thought_process": thought}
    first |= {
        "artifacts": [{"path": target, "content": content}],
        "next_action": {"type": "exec_and_chain", "target_script": target,
                        "continuation_prompt": continuation},
    }  # fmt: skip
    script = folder / "agent-script.json"
    turns = [reply(first), reply(final or {"status": "done"})]
    script.write_text(json.dumps({"turns": turns}), "utf-8")
    return script


def run_rebound_loop(
    jlgcli: list[str], cwd: Path, env: dict[str, str], nobody: Runtime | None, owned: Path
) -> subprocess.CompletedProcess[str]:
    """``jlgcli loop task.md --completion rebound`` in ``cwd``, as ``nobody`` when given one.

    As ``nobody``, ``owned`` (the project, its home, config) is given to it first and
    coverage's variables are dropped (nobody cannot write coverage data).
    """
    argv = [*jlgcli, "loop", "task.md", "-b", "claude", "--completion", "rebound", "-v"]
    if nobody is not None:
        env = nobody.environ(without_coverage(env))
        give_to_nobody(owned)
        argv = [*AS_NOBODY, *argv]
    return subprocess.run(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=180,
    )  # fmt: skip


def first_continuation(folder: Path) -> str:
    """The prompt after the script ran: what the model was told of it."""
    return (folder / "agent-script.json.prompts" / "001.txt").read_text("utf-8")
