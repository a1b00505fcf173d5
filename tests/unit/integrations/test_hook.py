"""pre-commit glue: the staged change → a capped prompt, and a one-screen verdict (issue 8)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jlgcli.errors import JlgError
from jlgcli.integrations import hook
from jlgcli.runner.summary import ErrorInfo


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True, encoding="utf-8").stdout  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "app.py").write_text("print('hello')\n", encoding="utf-8")
    git(root, "add", "app.py")
    git(root, "commit", "-qm", "init")
    return root


def test_staged_files_and_diff(repo):
    (repo / "app.py").write_text("print('hello, world')\n", encoding="utf-8")
    (repo / "new.md").write_text("# new\n", encoding="utf-8")
    (repo / "unstaged.txt").write_text("not staged\n", encoding="utf-8")
    git(repo, "add", "app.py", "new.md")
    change = hook.collect_change(repo, env={})
    assert change.files == ("app.py", "new.md")
    assert "+print('hello, world')" in change.diff
    assert "+# new" in change.diff
    assert "unstaged" not in change.diff
    assert not change.truncated
    assert change.source == "staged"
    assert not change.empty


def test_nothing_staged_is_empty(repo):
    (repo / "app.py").write_text("changed but not staged\n", encoding="utf-8")
    change = hook.collect_change(repo, env={})
    assert change.empty
    assert change.files == ()


def test_files_given_by_pre_commit_restrict_the_diff(repo):
    (repo / "a.py").write_text("a = 1\n", encoding="utf-8")
    (repo / "b.py").write_text("b = 2\n", encoding="utf-8")
    git(repo, "add", "a.py", "b.py")
    change = hook.collect_change(repo, ["b.py"], env={})
    assert change.files == ("b.py",)
    assert "+b = 2" in change.diff
    assert "a = 1" not in change.diff


def test_the_diff_is_capped_on_a_line_boundary(repo):
    lines = [f"line {n:05d} " + "x" * 40 for n in range(5000)]  # ~250 kB
    (repo / "big.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    git(repo, "add", "big.txt")
    change = hook.collect_change(repo, max_diff_bytes=10_000, env={})
    assert change.truncated
    assert len(change.diff.encode()) <= 10_000
    assert change.diff.endswith("\n")
    assert change.diff.splitlines()[-1].startswith("+line ")
    assert len(change.diff.splitlines()[-1]) == len("+" + lines[0])  # a whole line


def test_a_cap_inside_a_multibyte_character_keeps_valid_text(repo):
    (repo / "u.txt").write_text("é" * 5000, encoding="utf-8")  # one long line
    git(repo, "add", "u.txt")
    change = hook.collect_change(repo, max_diff_bytes=1001, env={})
    assert change.truncated
    assert len(change.diff.encode("utf-8")) <= 1001


def test_zero_cap_lists_files_without_a_diff(repo):
    (repo / "app.py").write_text("x = 1\n", encoding="utf-8")
    git(repo, "add", "app.py")
    change = hook.collect_change(repo, max_diff_bytes=0, env={})
    assert change.files == ("app.py",)
    assert change.diff == ""
    assert not change.empty


def test_non_ascii_and_spaced_file_names(repo):
    name = "dossier é/fichier ü.md"
    (repo / "dossier é").mkdir()
    (repo / name).write_text("salut\n", encoding="utf-8")
    git(repo, "add", "-A")
    change = hook.collect_change(repo, env={})
    assert change.files == (name,)
    assert "+salut" in change.diff


def test_pre_push_range_from_pre_commit(repo):
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "pushed.py").write_text("pushed = True\n", encoding="utf-8")
    git(repo, "add", "pushed.py")
    git(repo, "commit", "-qm", "second")
    head = git(repo, "rev-parse", "HEAD").strip()
    env = {"PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": head}
    change = hook.collect_change(repo, env=env)
    assert change.files == ("pushed.py",)
    assert "+pushed = True" in change.diff
    assert change.source == f"{base}...{head}"
    assert hook.diff_range({"PRE_COMMIT_FROM_REF": base}) is None


def test_outside_a_git_work_tree_is_a_usage_error(tmp_path):
    with pytest.raises(JlgError) as caught:
        hook.collect_change(tmp_path, env={})
    assert caught.value.code == 64
    assert "git" in caught.value.message


def test_missing_git_is_a_usage_error(repo, monkeypatch, tmp_path):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(JlgError) as caught:
        hook.collect_change(repo, env={})
    assert caught.value.code == 64
    assert "install git" in (caught.value.hint or "")


def test_prompt_lists_files_then_the_fenced_diff():
    change = hook.Change(("a.py", "b.md"), "+x = '```'\n", truncated=True, source="staged")
    text = hook.compose_prompt("Review this.\n\n", change)
    head = "Review this.\n\n## The change\n\n2 file(s) staged for commit:\n- a.py\n"
    assert text.startswith(head)
    assert "````diff\n+x = '```'\n````\n" in text
    assert "cut at the size limit" in text


def test_prompt_without_a_diff_and_with_many_files():
    files = tuple(f"f{n}.py" for n in range(hook.MAX_LISTED_FILES + 5))
    text = hook.compose_prompt("Task", hook.Change(files, "", False, "a...b"))
    assert f"{len(files)} file(s) in a...b:" in text
    assert "- … and 5 more" in text
    assert "(no diff shown: read the files themselves)" in text
    assert f"- f{hook.MAX_LISTED_FILES}.py" not in text


def test_the_default_prompt_ships_with_the_package():
    text = hook.DEFAULT_PROMPT.read_text(encoding="utf-8")
    assert 'status "done"' in text and 'status "error"' in text


CHANGE = hook.Change(("a.py",), "+x\n", False, "staged")


def test_report_on_pass_is_one_line(make_summary):
    report = hook.hook_report(make_summary(summary="looks fine\nmore"), CHANGE)
    assert report == "jlgcli hook: passed (claude, 1 file(s), diff complete) — looks fine\n"
    assert hook.hook_report(make_summary(), CHANGE).endswith("diff complete)\n")


def test_report_on_failure_fits_one_screen(make_summary):
    summary = make_summary(
        stopCause="error", summary="\n".join(f"a.py:{n} — problem {n} " + "y" * 150
                                             for n in range(40)),
        runDir=".jlgcli/runs/r1", error=ErrorInfo(code=1, message="m", hint="see the review"),
    )  # fmt: skip
    report = hook.hook_report(summary, hook.Change(("a.py",), "", True, "staged"))
    lines = report.splitlines()
    assert lines[0] == "jlgcli hook: FAILED (error, exit 1, backend claude)"
    assert "  a.py:0 — problem 0" in lines[1]
    assert len(lines) <= hook.REPORT_MAX_LINES
    assert all(len(line) <= hook.REPORT_WIDTH for line in lines)
    assert "  …" in lines
    assert "hint: see the review" in lines
    assert "reviewed: 1 file(s), diff cut at the size limit" in lines
    assert "artifacts: .jlgcli/runs/r1" in lines
    assert lines[-1].startswith("more output: add -v")


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"stopCause": "timeout", "error": ErrorInfo(code=75, message="total timeout")},
         "  total timeout"),
        ({"stopCause": "invalid-json", "text": "no json here"}, "  no json here"),
        ({"stopCause": "backend-error"}, "  (no message)"),
    ],
)  # fmt: skip
def test_report_reason_falls_back_to_error_then_text(make_summary, fields, reason):
    lines = hook.hook_report(make_summary(**fields), CHANGE).splitlines()
    assert lines[0].startswith(f"jlgcli hook: FAILED ({fields['stopCause']}")
    assert lines[1] == reason


@pytest.mark.parametrize(
    ("reason", "raised"),
    [("timeout", JlgError), ("cancelled", KeyboardInterrupt)],
)
def test_git_stopped_by_a_timeout_or_ctrl_c(repo, monkeypatch, reason, raised):
    from jlgcli.process.model import ProcessOutcome, StopReason

    def stopped(*args, **kwargs):
        return ProcessOutcome(exit_code=None, signal=9, stop_reason=StopReason(reason),
                              duration=1.0)  # fmt: skip

    monkeypatch.setattr("jlgcli.process.captured.run_captured", stopped)
    with pytest.raises(raised) as caught:
        hook.collect_change(repo, env={})
    if raised is JlgError:
        assert caught.value.code == 75


def test_staged_names_are_not_repeated_on_the_git_command_line(repo, monkeypatch):
    """Thousands of staged files must not overflow a Windows command line (32k chars)."""
    for n in range(50):
        (repo / f"file_{n:03d}.txt").write_text(f"{n}\n", encoding="utf-8")
    git(repo, "add", "-A")
    calls: list[list[str]] = []
    real = hook._git

    def spy(argv, cwd, limit):
        calls.append(list(argv))
        return real(argv, cwd, limit)

    monkeypatch.setattr(hook, "_git", spy)
    change = hook.collect_change(repo, env={})
    assert len(change.files) == 50
    assert "+49" in change.diff
    assert all("--" not in argv for argv in calls)
    hook.collect_change(repo, ["file_001.txt"], env={})
    assert calls[-1][-2:] == ["--", "file_001.txt"]


# --- issue 19 item 11: plain errors, whole hints ------------------------------------------


def test_outside_a_git_work_tree_says_so_without_git_usage_text(tmp_path):
    with pytest.raises(JlgError) as caught:
        hook.collect_change(tmp_path, env={})
    message = caught.value.message
    assert message.startswith("not inside a git work tree")
    assert "usage" not in message and "--" not in message and "option" not in message
    assert "git repository" in (caught.value.hint or "")


@pytest.mark.parametrize(
    ("stderr", "problem"),
    [
        ("fatal: bad revision 'x...y'\n", "bad revision 'x...y'"),
        ("warning: w\nerror: unknown option `cached'\nusage: git diff --no-index\n"
         "    --output <file>       output to a specific file\n", "unknown option `cached'"),
        ("something odd\nusage: git diff\n    --output <file>  x\n", "something odd"),
        ("usage: git diff\n    --output <file>  x\n", "git failed"),
        ("", "git failed"),
    ],
)  # fmt: skip
def test_git_problem_is_never_a_usage_fragment(stderr, problem):
    assert hook.git_problem(stderr) == problem


def test_a_long_hint_is_wrapped_whole_not_cut(make_summary):
    hint = ('the model must end its reply with a JSON object like {"status": "done", '
            '"summary": "..."}; or use --completion marker')  # fmt: skip
    summary = make_summary(stopCause="invalid-json",
                           error=ErrorInfo(code=65, message="no JSON", hint=hint))  # fmt: skip
    lines = hook.hook_report(summary, CHANGE).splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("hint: "))
    end = next(n for n, line in enumerate(lines) if line.startswith("reviewed: "))
    assert " ".join(line.strip() for line in lines[start:end]) == f"hint: {hint}"
    assert all(len(line) <= hook.REPORT_WIDTH for line in lines)
