"""The documented fan-out workflow (docs/loop.md), its steps run here (issue 37).

No Actions runner: each job gets a fresh clone of a bare ``origin`` (the
checkout), its ``run:`` steps run in bash with their ``env:`` evaluated by a
tiny stand-in, each step with its own ``GITHUB_OUTPUT`` file, and the jlgcli
Action's own ``run`` and ``publish`` steps (action.yml) stand for ``uses:``.
The matrix is the plan job's output: one fan-out job per entry.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.batch import git, make_repo, make_tasks
from support.environ import tool_environ

from tests.unit.integrations.gha_format import parse_github_output
from tests.unit.integrations.tools import find_bash

yaml = pytest.importorskip("yaml", reason="PyYAML is needed (pip install pre-commit)")

REPO_ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))
ACTION_STEPS = {step["id"]: step for step in ACTION["runs"]["steps"]}
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
INSTALLS = ("pip install jlgcli", "npm install -g @anthropic-ai/claude-code")


def workflow_text() -> str:
    doc = (REPO_ROOT / "docs" / "loop.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", doc, re.S) if "fromJSON" in b]
    return str(block)


def workflow() -> dict[str, Any]:
    return dict(yaml.safe_load(workflow_text()))


def render(value: object, context: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        expr = match.group(1)
        if expr.startswith("secrets."):
            return ""
        return context[expr]

    return EXPRESSION.sub(one, str(value))


class Job:
    """One job of the simulated run: a checkout, its steps, its outputs."""

    def __init__(self, name: str, root: Path, origin: Path, env: dict[str, str]) -> None:
        self.name, self.origin, self.env = name, origin, env
        self.dir = root / name
        git(root, "clone", "-q", str(origin), str(self.dir))
        self.outputs: dict[str, dict[str, str]] = {}
        self.count = 0

    def output_file(self) -> Path:
        self.count += 1
        return self.dir.parent / f"{self.dir.name}.output.{self.count}"  # one per step

    def bash(self, script: str, env: dict[str, str], output: Path) -> int:
        bash = find_bash()
        assert bash
        done = subprocess.run([bash, "-e", "-c", script], cwd=self.dir, capture_output=True,
                              text=True, timeout=600, stdin=subprocess.DEVNULL,
                              env=tool_environ(**self.env, **env, GITHUB_ACTIONS="true",
                                               GITHUB_OUTPUT=str(output),
                                               RUNNER_TEMP=str(self.dir.parent)))  # fmt: skip
        self.log = done.stdout + done.stderr
        return done.returncode

    def run(self, steps: list[dict[str, Any]], context: dict[str, str]) -> int:
        for step in steps:
            uses = str(step.get("uses", ""))
            if uses.startswith("actions/checkout@") or step.get("run") in INSTALLS:
                continue  # the clone is the checkout; jlgcli and the fakes are on PATH
            output = self.output_file()
            if uses.startswith("OWNER/REPO@"):
                inputs = {k: render(v, context) for k, v in step.get("with", {}).items()}
                code = self.action(inputs, output)
            else:
                env = {k: render(v, context) for k, v in step.get("env", {}).items()}
                code = self.bash(step["run"], env, output)
            if "id" in step and output.exists():
                values = parse_github_output(output.read_text("utf-8"))
                self.outputs[step["id"]] = values
                context |= {f"steps.{step['id']}.outputs.{k}": v for k, v in values.items()}
            if code:
                return code
        return 0

    def action(self, inputs: dict[str, str], output: Path) -> int:
        """The composite action: its run step, then (if that passed) its publish step."""
        values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
        values.update(inputs)
        context = {f"inputs.{k}": v for k, v in values.items()}
        context["steps.install.outputs.python"] = sys.executable
        run = ACTION_STEPS["run"]
        code = self.bash(run["run"], {k: render(v, context) for k, v in run["env"].items()}, output)
        if code:
            return code  # the runner skips the next steps of a failed one
        context["steps.run.outputs.exit-code"] = parse_github_output(output.read_text("utf-8"))[
            "exit-code"
        ]
        publish = ACTION_STEPS["publish"]
        assert publish["if"] == "inputs.branch != ''" and values["branch"]
        env = {k: render(v, context) for k, v in publish["env"].items()}
        return self.bash(publish["run"], env, self.output_file())


def test_the_fan_out_workflow_runs_plan_matrix_jobs_and_gather(tmp_path: Path) -> None:
    seed = make_repo(tmp_path / "seed")
    (seed / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n", encoding="utf-8")
    (seed / "test_ok.py").write_text("def test_ok():\n    assert True\n", encoding="utf-8")
    turns = {
        "one": [{"text": "ok\nDONE", "files": {"one.txt": "1\n"}}],
        "two": [{"text": "ok\nDONE", "files": {"two.txt": "2\n"}}],
        "three": [{"text": "not yet"}],  # never done: no branch comes back
    }
    make_tasks(seed / "tasks", tmp_path / "scripts", turns)
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "tasks")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(origin))
    env = {
        "JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts"),
        "PATH": os.environ["PATH"] + os.pathsep + str(Path(sys.executable).parent),
        "GIT_AUTHOR_NAME": "ci", "GIT_AUTHOR_EMAIL": "ci@example.com",
        "GIT_COMMITTER_NAME": "ci", "GIT_COMMITTER_EMAIL": "ci@example.com",
    }  # fmt: skip
    jobs = workflow()["jobs"]
    runs = tmp_path / "runs"
    runs.mkdir()

    plan = Job("plan", runs, origin, env)
    assert plan.run(jobs["plan"]["steps"], {}) == 0, plan.log
    matrix_text = plan.outputs["plan"]["matrix"]
    needs = {"needs.plan.outputs.matrix": matrix_text}
    assert jobs["fanout"]["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"
    entries = json.loads(matrix_text)["include"]
    assert [e["branch"] for e in entries] == ["jlgcli/one", "jlgcli/three", "jlgcli/two"]

    codes = {}
    for index, entry in enumerate(entries):
        job = Job(f"fanout-{index}", runs, origin, env)
        context = needs | {f"matrix.{k}": v for k, v in entry.items()}
        codes[entry["id"]] = job.run(jobs["fanout"]["steps"], context)
    assert codes == {"one": 0, "three": 5, "two": 0}  # three: the same answer, no progress
    pushed = git(origin, "branch", "--list", "jlgcli/*")
    assert "jlgcli/one" in pushed and "jlgcli/two" in pushed and "three" not in pushed

    gather = Job("gather", runs, origin, env)
    code = gather.run(jobs["gather"]["steps"], needs)
    assert code == 1, gather.log  # task three never came back: the gather job says so
    assert "no branch jlgcli/three" in gather.log
    check = Job("check", runs, origin, env)
    assert (check.dir / "one.txt").exists() and (check.dir / "two.txt").exists()
    assert not (check.dir / ".jlgcli").exists()


def test_the_documented_workflow_matches_the_github_workflows_schema(tmp_path: Path) -> None:
    pytest.importorskip("check_jsonschema", reason="pip install check-jsonschema (test extra)")
    path = tmp_path / "tasks.yml"
    path.write_text(workflow_text(), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
         str(path)], capture_output=True, text=True, timeout=120, env=tool_environ(),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
