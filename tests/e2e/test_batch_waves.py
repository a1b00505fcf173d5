"""Dependency waves through the installed ``jlgcli`` (issue 44): ``depends-on`` front matter.

Each task's fake claude writes its own file; the gate fails when a task's file is
there without its predecessors' (``c.txt`` without ``b.txt``…), so a task that
started before its dependencies' work was in its worktree could never end done.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support.batch import git, make_repo, make_tasks
from support.cli import Runner

CHAIN_GATE = (f"{sys.executable} -c \"import os,sys; need={{'c.txt':'b.txt','b.txt':'a.txt'}}; "
              "sys.exit(any(os.path.exists(k) and not os.path.exists(v) "
              "for k,v in need.items()))\"")  # fmt: skip


def chain(tmp_path: Path, *, a_turn: dict[str, object] | None = None) -> list[str]:
    """Tasks a, b (depends on a), c (depends on b), given in the reverse order."""
    turns: dict[str, list[dict[str, object]]] = {
        name: [{"text": f"did {name}\nDONE", "files": {f"{name}.txt": name}}] for name in "abc"
    }
    if a_turn is not None:
        turns["a"] = [a_turn]
    paths = dict(
        zip("abc", make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns), strict=True)
    )
    for name, dep in (("b", "a"), ("c", "b")):
        task = Path(paths[name])
        task.write_text(f"---\ndepends-on: [{dep}]\n---\n" + task.read_text("utf-8"), "utf-8")
    return [paths["c"], paths["b"], paths["a"]]


def prompt_of(tmp_path: Path, name: str) -> str:
    return (tmp_path / "scripts" / f"{name}.json.prompts" / "000.txt").read_text("utf-8")


@pytest.mark.parametrize("merge", [False, True])
def test_a_chain_in_waves_sees_each_predecessors_file(
    jlg: Runner, tmp_path: Path, merge: bool
) -> None:
    """Issue 44 done-when: a -> b -> c, -j 3; each starts from its predecessors' work."""
    repo = make_repo(tmp_path / "repo")
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    result = jlg("loop", *chain(tmp_path), "-j", "3", *(["--merge"] if merge else []),
                 "-b", "claude", "--gate", CHAIN_GATE, "-n", "1", "--json",
                 cwd=repo, env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [task["id"] for task in data["tasks"]] == ["a", "b", "c"]  # wave order
    for name in "bc":  # the front matter is jlgcli's: the agent never gets it
        assert "depends-on" not in prompt_of(tmp_path, name)
        assert f"Do the {name} task." in prompt_of(tmp_path, name)
    if merge:
        assert all(task["merged"] for task in data["tasks"])
        assert [(repo / f"{n}.txt").read_text("utf-8") for n in "abc"] == ["a", "b", "c"]
    else:
        files = git(repo, "ls-tree", "--name-only", "jlgcli/c").split()
        assert {"a.txt", "b.txt", "c.txt"} <= set(files)
        assert not (repo / "a.txt").exists()  # without --merge the user's tree is untouched


def test_a_failed_dependency_skips_the_tasks_after_it(jlg: Runner, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    tasks = chain(tmp_path, a_turn={"text": "still working"})
    result = jlg("loop", *tasks, "-j", "2", "-b", "claude", "-n", "1", "--json",
                 cwd=repo, env=env)  # fmt: skip
    assert result.returncode == 4, result.stderr
    by_id = {task["id"]: task for task in json.loads(result.stdout)["tasks"]}
    assert by_id["a"]["exitCode"] == 4
    assert by_id["b"]["status"] == "skipped: a did not end done (max-iterations)"
    assert by_id["c"]["status"] == "skipped: b did not end done (skipped)"
    assert by_id["b"]["runId"] is None and by_id["c"]["runId"] is None
    assert not (tmp_path / "scripts" / "b.json.prompts").exists()
    table = jlg("runs", "show", json.loads(result.stdout)["batchId"], cwd=repo).stdout
    assert "skipped: a did not end done" in table
    assert "continue the unfinished" not in table  # a resume would skip them again


@pytest.mark.parametrize(
    ("front", "words"),
    [("depends-on: [nope]", "depends on nope, not a task of this batch"),
     ("depends-on: [c]", "make a cycle: "),
     ("depends-on: 3", "must be a list of task ids")],
)  # fmt: skip
def test_an_unknown_id_or_a_cycle_is_64_before_any_agent_call(
    jlg: Runner, tmp_path: Path, front: str, words: str
) -> None:
    repo = make_repo(tmp_path / "repo")
    c, b, a = chain(tmp_path)
    Path(a).write_text(f"---\n{front}\n---\nDo the a task.\nfake-script: a\n", "utf-8")
    result = jlg("loop", c, b, a, "-j", "2", "-b", "claude",
                 cwd=repo, env={"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")})  # fmt: skip
    assert result.returncode == 64, result.stderr
    assert words in result.stderr
    assert not list((tmp_path / "scripts").glob("*.prompts"))
    assert git(repo, "branch", "--list", "jlgcli/*") == ""
