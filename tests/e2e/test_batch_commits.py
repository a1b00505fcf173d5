"""A batch task's commit through the installed ``jlgcli`` (issue 49 item, with issue 44):
the user's identity as author, jlgcli as committer, the task's title and the agent's words."""

from __future__ import annotations

from pathlib import Path

from support.batch import git, make_repo, make_tasks
from support.cli import Runner


def test_a_tasks_commit_is_the_users_with_the_title_and_the_agents_summary(
    jlg: Runner, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "config", "user.name", "Ada Lovelace")
    git(repo, "config", "user.email", "ada@example.com")
    turns = {"add-mul": [{"text": "Added mul() with tests.\nDONE", "files": {"m.py": "x"}}],
             "other": [{"text": "ok\nDONE", "files": {"o.txt": "o"}}]}  # fmt: skip
    paths = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    Path(paths[0]).write_text(
        "---\ndepends-on: []\n---\n# Add a mul function\n\nfake-script: add-mul\n", "utf-8"
    )
    result = jlg("loop", *paths, "-j", "2", "-b", "claude", cwd=repo,
                 env={"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")})  # fmt: skip
    assert result.returncode == 0, result.stderr
    log = git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%B", "jlgcli/add-mul")
    author, committer, message = log.split("|", 2)
    assert author == "Ada Lovelace <ada@example.com>"
    assert committer == "jlgcli <jlgcli@localhost>"
    lines = message.strip().splitlines()
    assert lines[0] == "Add a mul function"
    assert "Added mul() with tests." in message
    assert "Jlgcli-Task: add-mul.md" in message and "Jlgcli-Batch: batch-" in message


def test_without_a_git_identity_jlgcli_is_the_author(jlg: Runner, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    turns = {name: [{"text": "ok\nDONE", "files": {f"{name}.txt": name}}] for name in "ab"}
    paths = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    result = jlg(
        "loop",
        *paths,
        "-j",
        "2",
        "-b",
        "claude",
        cwd=repo,
        env={"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts"), "GIT_CONFIG_NOSYSTEM": "1"},
    )  # fmt: skip  (HOME is the test's own)
    assert result.returncode == 0, result.stderr
    log = git(repo, "log", "-1", "--format=%an <%ae>|%s", "jlgcli/a")
    assert log.strip() == "jlgcli <jlgcli@localhost>|Do the a task."
