"""``jlgcli matrix``: the plan, the Action's publish step, the gather (issue 37)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.batch import git, make_repo

from jlgcli.batch.matrix import gather, plan, publish
from jlgcli.cli import main
from jlgcli.errors import JlgError


def test_the_plan_names_each_task_once(tmp_path: Path) -> None:
    for name in ("a.md", "sub/a.md"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x", "utf-8")
    assert plan([str(tmp_path / "a.md"), str(tmp_path / "sub" / "a.md")], tmp_path) == {
        "include": [
            {"task": "a.md", "id": "a", "branch": "jlgcli/a"},
            {"task": "sub/a.md", "id": "a-2", "branch": "jlgcli/a-2"},
        ]
    }


def test_the_plan_refuses_missing_tasks_and_tasks_outside_the_repository(tmp_path: Path) -> None:
    with pytest.raises(JlgError) as info:
        plan([str(tmp_path / "nope.md")], tmp_path)
    assert info.value.code == 66
    (tmp_path / "t.md").write_text("x", "utf-8")
    with pytest.raises(JlgError) as info:
        plan([str(tmp_path / "t.md")], tmp_path / "elsewhere")
    assert info.value.code == 64


def test_matrix_prints_json_and_writes_the_step_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.md").write_text("x", "utf-8")
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    assert main(["matrix", "t.md"]) == 0
    assert json.loads(capsys.readouterr().out)["include"][0]["branch"] == "jlgcli/t"
    assert (tmp_path / "out").read_text("utf-8").startswith("matrix")


@pytest.mark.parametrize(
    ("env", "words"),
    [({"JLG_BRANCH": "main"}, "not a jlgcli task branch"),
     ({"JLG_BRANCH": "jlgcli/a", "JLG_PUBLISH": "mail"}, "use push or bundle")],
)  # fmt: skip
def test_publish_refuses_other_branches_and_modes(env: dict[str, str], words: str) -> None:
    with pytest.raises(JlgError) as info:
        publish(env, Path("."))
    assert words in info.value.message


def test_publish_bundles_a_done_task_and_skips_an_unfinished_one(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    env = {"JLG_BRANCH": "jlgcli/a", "JLG_PUBLISH": "bundle", "RUNNER_TEMP": str(tmp_path)}
    assert publish({**env, "JLG_EXIT_CODE": "4"}, repo) == {"published": "false"}
    (repo / "a.txt").write_text("a", "utf-8")
    out = publish({**env, "JLG_EXIT_CODE": "0"}, repo)
    assert out["bundle"] == str(tmp_path / "jlgcli-a.bundle")
    assert "jlgcli/a" in git(repo, "bundle", "list-heads", out["bundle"])


def test_gather_merges_present_branches_and_names_missing_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo")
    for name in ("a", "b"):
        (repo / f"{name}.md").write_text(name, "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "tasks")
    git(repo, "switch", "-q", "-c", "jlgcli/a")
    (repo / "a.txt").write_text("a", "utf-8")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "a")
    git(repo, "switch", "-q", "main")
    monkeypatch.chdir(repo)
    assert main(["matrix", "--gather", "a.md", "b.md", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [t["merged"] for t in data["tasks"]] == [True, False]
    assert "no branch jlgcli/b" in data["tasks"][1]["mergeNote"]
    assert (repo / "a.txt").exists() and "jlgcli/a" not in git(repo, "branch")  # merged: gone
    git(repo, "branch", "jlgcli/a")
    assert gather(["a.md"], repo, ()).tasks[0].mergeNote == "nothing to merge (no changes)"
    assert main(["matrix", "--gather", "b.md"]) == 1
    assert "no branch jlgcli/b" in capsys.readouterr().err


def _branch(repo: Path, name: str, text: str) -> None:
    git(repo, "switch", "-q", "-c", f"jlgcli/{name}", "main")
    (repo / "shared.txt").write_text(text, "utf-8")
    git(repo, "commit", "-q", "-am", name)
    git(repo, "switch", "-q", "main")


def test_a_second_gather_reports_what_is_still_unmerged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44: the conflicting task's worktree is left; a second gather was 70
    ('worktree add … already exists')."""
    repo = make_repo(tmp_path / "repo")
    for name in ("a", "b"):
        (repo / f"{name}.md").write_text(name, "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "tasks")
    _branch(repo, "a", "a\n")
    _branch(repo, "b", "b\n")
    monkeypatch.chdir(repo)
    assert main(["matrix", "--gather", "a.md", "b.md", "--json"]) == 1
    first = json.loads(capsys.readouterr().out)["tasks"]
    assert first[0]["merged"] and "conflicts" in first[1]["mergeNote"]
    assert main(["matrix", "--gather", "a.md", "b.md", "--json"]) == 1
    again = json.loads(capsys.readouterr().out)["tasks"]
    assert "conflicts" in again[1]["mergeNote"] and not again[1]["merged"]
    assert "no branch jlgcli/a (merged already" in again[0]["mergeNote"]


def test_the_plan_orders_tasks_in_waves(tmp_path: Path) -> None:
    (tmp_path / "api.md").write_text("---\ndepends-on: [schema]\n---\nthe api\n", "utf-8")
    (tmp_path / "schema.md").write_text("the schema\n", "utf-8")
    (tmp_path / "docs.md").write_text("---\ndepends-on: [api, schema]\n---\ndocs\n", "utf-8")
    names = ["docs.md", "api.md", "schema.md"]
    include = plan([str(tmp_path / name) for name in names], tmp_path)["include"]
    assert [(job["id"], job["wave"], job["dependsOn"]) for job in include] == [
        ("schema", 0, []), ("api", 1, ["schema"]), ("docs", 2, ["api", "schema"])]  # fmt: skip
    (tmp_path / "schema.md").write_text("---\ndepends-on: [docs]\n---\nx\n", "utf-8")
    with pytest.raises(JlgError) as info:
        plan([str(tmp_path / name) for name in names], tmp_path)
    assert info.value.code == 64 and "cycle" in info.value.message
