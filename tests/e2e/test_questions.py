"""Questions park one task, the rest go on; ``jlgcli answer`` resumes it (issue 51).

Through the installed ``jlgcli`` with the fake claude (tests/fakes): a task's
agent ends a reply with a ``QUESTION:`` line, asks through claude's own
``AskUserQuestion`` tool, or replies ``{"status": "question"}``; the fake
records every prompt and argv (``<script>.prompts/NNN.txt``, ``NNN.argv.json``).
"""

from __future__ import annotations

import json
from pathlib import Path

from support.batch import git, make_repo, make_tasks
from support.cli import Runner
from support.webhook import receiver

ASKS = "I need a decision first.\nQUESTION: Which colour should the button be?"


def _prompts(scripts: Path, name: str) -> list[str]:
    folder = scripts / f"{name}.json.prompts"
    return [path.read_text("utf-8") for path in sorted(folder.glob("*.txt"))]


def _argvs(scripts: Path, name: str) -> list[list[str]]:
    folder = scripts / f"{name}.json.prompts"
    return [json.loads(path.read_text("utf-8")) for path in sorted(folder.glob("*.argv.json"))]


def test_a_batch_of_two_parks_the_asking_task_and_answer_finishes_it(
    jlg: Runner, tmp_path: Path
) -> None:
    """Issue 51 done-when: the other task ends done (and merged), the asking one parks with
    exit 7; ``jlgcli answer`` resumes it in its session and it ends done, merged, with the
    answer in its prompt."""
    repo = make_repo(tmp_path / "repo")
    scripts = tmp_path / "scripts"
    turns = {
        "alpha": [{"text": "did alpha\nDONE", "files": {"a.txt": "a\n"}}],
        "beta": [{"text": ASKS}, {"text": "did beta in blue\nDONE", "files": {"b.txt": "b\n"}}],
    }
    tasks = make_tasks(tmp_path / "tasks", scripts, turns)
    env = {"JLGCLI_FAKE_SCRIPT": str(scripts)}
    with receiver() as got:
        first = jlg("loop", *tasks, "-j", "2", "--merge", "-b", "claude", "--max-iterations",
                    "3", "--json", "--notify", f"webhook:{got.url}", cwd=repo, env=env)  # fmt: skip
    assert first.returncode == 7, first.stderr
    # the asking task says its question at once; the batch, once, at its end; no task's end
    events = sorted(body["event"] for _path, _headers, body in got.requests)
    assert events == ["batch-ended", "parked"], got.requests
    ended = next(body for _p, _h, body in got.requests if body["event"] == "batch-ended")
    assert ended["exitCode"] == 7 and ended["parked"] == ["beta"]
    assert "beta: parked (question)" in ended["message"]
    data = json.loads(first.stdout)
    assert data["exitCode"] == 7
    by_id = {task["id"]: task for task in data["tasks"]}
    assert (by_id["alpha"]["exitCode"], by_id["alpha"]["merged"]) == (0, True)
    beta = by_id["beta"]
    assert (beta["exitCode"], beta["status"]) == (7, "parked (question)")
    assert beta["question"] == "Which colour should the button be?"
    assert beta["summary"]["status"] == "parked" and beta["summary"]["stopCause"] == "question"
    assert beta["summary"]["question"] == beta["question"]
    assert len(_prompts(scripts, "beta")) == 1  # parked: no second call, no iteration burnt
    assert (repo / "a.txt").exists() and not (repo / "b.txt").exists()
    # batch.json keeps it parked; a plain resume does not run it again
    record = json.loads(next((repo / ".jlgcli" / "runs" / ".batches").glob("*/batch.json"))
                        .read_text("utf-8"))  # fmt: skip
    assert {t["name"]: t["exitCode"] for t in record["tasks"]} == {"alpha": 0, "beta": 7}

    answered = jlg("answer", "latest", "Blue, please", "--json", cwd=repo, env=env)
    assert answered.returncode == 0, answered.stderr
    after = {task["id"]: task for task in json.loads(answered.stdout)["tasks"]}
    assert (after["beta"]["exitCode"], after["beta"]["merged"]) == (0, True)
    assert after["beta"]["summary"]["resumedFrom"] == beta["runId"]
    assert (repo / "b.txt").exists() and git(repo, "status", "--porcelain") == ""
    prompts = _prompts(scripts, "beta")
    assert len(prompts) == 2 and "Blue, please" in prompts[1]
    assert "Which colour should the button be?" in prompts[1]
    argv = _argvs(scripts, "beta")[1]
    session = beta["summary"]["sessionId"]
    assert session and argv[argv.index("--resume") + 1] == session  # the session that asked


def test_a_single_loop_parks_with_exit_7_and_answer_resumes_it(jlg: Runner, tmp_path: Path) -> None:
    """A single loop asking through claude's AskUserQuestion parks (exit 7, the question in
    the summary and the events); ``jlgcli answer RUN --answer-file`` resumes it to done."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    script = scripts / "ask.json"
    script.write_text(json.dumps({"turns": [
        {"text": "Looking at the code.", "ask": {"question": "Keep the old API?",
                                                 "options": ["Yes", "No"]}},
        {"text": "kept it\nDONE"},
    ]}), encoding="utf-8")  # fmt: skip
    task = tmp_path / "task.md"
    task.write_text("Change the API.\n", encoding="utf-8")
    env = {"JLGCLI_FAKE_SCRIPT": str(script)}
    events = tmp_path / "events.jsonl"
    first = jlg("loop", str(task), "-b", "claude", "--events", str(events), cwd=tmp_path, env=env)
    assert first.returncode == 7, first.stderr
    assert "question    Keep the old API? (options: Yes; No)" in first.stderr
    assert "jlgcli answer" in first.stderr
    lines = [json.loads(line) for line in events.read_text("utf-8").splitlines()]
    asked = [line for line in lines if line["type"] == "question"]
    assert asked and asked[0]["question"] == "Keep the old API? (options: Yes; No)"
    assert lines[-1]["type"] == "run-ended" and lines[-1]["exitCode"] == 7
    run_id = lines[0]["runId"]
    state = json.loads((tmp_path / ".jlgcli" / "runs" / run_id / "state.json").read_text("utf-8"))
    assert (state["stop_cause"], state["question"]) == ("question", asked[0]["question"])

    shown = jlg("runs", "show", run_id, cwd=tmp_path, env=env)
    assert "question    Keep the old API? (options: Yes; No)" in shown.stdout, shown.stdout
    assert f'answer      jlgcli answer {run_id} "your answer"' in shown.stdout
    assert "jlgcli loop --resume" not in shown.stdout
    empty = jlg("answer", run_id, "   ", cwd=tmp_path, env=env)
    assert empty.returncode == 64 and "the answer is empty" in empty.stderr
    answer = tmp_path / "answer.md"
    answer.write_text("Yes: keep it, mark it deprecated.\n", encoding="utf-8")
    done = jlg("answer", run_id, "--answer-file", str(answer), "--json", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["stopCause"], summary["resumedFrom"]) == ("done", run_id)
    prompts = sorted((scripts / "ask.json.prompts").glob("*.txt"))
    assert "keep it, mark it deprecated" in prompts[-1].read_text("utf-8")
    again = jlg("answer", summary["runId"], "more", cwd=tmp_path, env=env)
    assert again.returncode == 64 and "not parked on a question" in again.stderr
