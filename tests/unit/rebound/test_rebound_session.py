"""ReboundSession, driven the way the loop drives it (REQ_AUTO_010..050)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from jlgcli.errors import JlgError
from jlgcli.rebound.ledger_view import load_session, render_session
from jlgcli.rebound.schema import find_reply
from jlgcli.rebound.session import ReboundSession

needs_symlinks = pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")


def reply(**fields: Any) -> str:
    """A model reply: some prose, then the JSON object in a fence."""
    return "Working on it.\n```json\n" + json.dumps(fields, indent=1) + "\n```\n"


def action(target: str, prompt: str = "Analyse the output.") -> dict[str, str]:
    return {"type": "exec_and_chain", "target_script": target, "continuation_prompt": prompt}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "workbench" / "scripts").mkdir(parents=True)
    return project


def read_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_three_step_chain_writes_runs_reads_and_finishes(root: Path) -> None:
    """REQ_AUTO_010/030/050: reply → artifacts → run → continuation → … → final, all journaled."""
    logs: list[str] = []
    session = ReboundSession(root, session_id="s-chain", log=logs.append)
    first_prompt = "Count the words in data.txt.\n\n" + session.instructions()
    counter = "import pathlib\nprint('words:', len(pathlib.Path('data.txt').read_text().split()))\n"
    step1 = session.process_reply(
        first_prompt,
        reply(
            thought_process="Write the data and a counting script, then run it.",
            artifacts=[
                {"path": "data.txt", "content": "one two three\n"},
                {"path": "workbench/scripts/count.py", "content": counter},
            ],
            next_action=action("workbench/scripts/count.py", "Report the count."),
            status="continue",
        ),
    )
    assert step1.status == "continue" and step1.step == 1 and step1.exit_code is None
    assert step1.artifacts_written == ["data.txt", "workbench/scripts/count.py"]
    assert step1.execution is not None and step1.execution.ok
    assert step1.next_prompt is not None
    assert step1.next_prompt.startswith("Report the count.")
    assert "words: 3" in step1.next_prompt and "return code 0" in step1.next_prompt
    assert "--- stderr (0 bytes) ---\n(empty)" in step1.next_prompt

    check = "import sys\nprint('checked'); print('warn', file=sys.stderr); sys.exit(2)\n"
    step2 = session.process_reply(
        step1.next_prompt,
        reply(
            thought_process="The count is 3; double-check with a second script.",
            artifacts=[{"path": "workbench/scripts/check.py", "content": check}],
            next_action=action("workbench/scripts/check.py", "Confirm."),
        ),
    )
    assert step2.status == "continue" and step2.next_prompt is not None
    assert "return code 2" in step2.next_prompt and "warn" in step2.next_prompt

    step3 = session.process_reply(
        step2.next_prompt,
        reply(thought_process="Done.", status="done", summary="data.txt has 3 words."),
    )
    assert step3.status == "done" and step3.exit_code == 0 and step3.next_prompt is None
    assert step3.final_text == "data.txt has 3 words." == step3.summary
    assert any("running workbench/scripts/count.py" in line for line in logs)

    # The ledger, re-read step by step, rebuilds the whole chain.
    ledger = load_session(root / "ledger", "s-chain")
    assert [s["step"] for s in ledger.steps] == [1, 2, 3]
    assert all(s["phase"] == "complete" for s in ledger.steps)
    s1, s2, s3 = ledger.steps
    assert s1["promptFrom"] == "instruction" and first_prompt.splitlines()[0] in s1["prompt"]
    assert s1["reply"]["thoughtProcess"].startswith("Write the data")
    assert [a["relpath"] for a in s1["artifacts"]] == ["data.txt", "workbench/scripts/count.py"]
    assert s1["nextAction"]["targetScript"] == "workbench/scripts/count.py"
    assert s1["execution"]["returnCode"] == 0 and "words: 3" in s1["execution"]["stdout"]
    assert s1["execution"]["argv"][-1].endswith("count.py")
    assert s1["continuationPrompt"] == step1.next_prompt
    assert s2["promptFrom"] == "step-1 continuation" and s2["prompt"] == step1.next_prompt
    assert s2["execution"]["returnCode"] == 2 and s2["execution"]["stderr"].strip() == "warn"
    assert s3["nextAction"] is None and s3["outcome"]["status"] == "done"
    index = ledger.index
    assert index["status"] == "done" and index["exitCode"] == 0
    assert index["final"]["summary"] == "data.txt has 3 words."
    entries = index["steps"]
    assert entries[0]["continuationSha256"] == entries[1]["promptSha256"]
    assert entries[1]["continuationSha256"] == entries[2]["promptSha256"]
    assert [e["file"] for e in entries] == ["step-001.json", "step-002.json", "step-003.json"]
    text = render_session(ledger)
    assert "== Step 2 ==" in text and "== Final (step 3): done ==" in text


def _sentinel_script(sentinel: Path) -> str:
    return f"import pathlib\npathlib.Path({str(sentinel)!r}).write_text('ran')\n"


def _plant(root: Path, tmp_path: Path, sentinel: Path) -> dict[str, str]:
    """Scripts that would create the sentinel, in every place a target may not point to."""
    body = _sentinel_script(sentinel)
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "evil.py").write_text(body, encoding="utf-8")
    places = {
        "src/evil.py": body,
        "workbench/evil.py": body,
        "WORKBENCH/Scripts/evil.py": body,
        "workbench/scripts/evil.sh": body,
        "workbench/scripts/evil.txt": body,
    }
    for rel, text in places.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "workbench" / "scripts" / "pkg.py").mkdir()
    (root / "workbench" / "scripts" / "pkg.py" / "__main__.py").write_text(body, encoding="utf-8")
    if os.name != "nt":
        (root / "workbench" / "scripts" / "link.py").symlink_to(outside / "evil.py")
    return {"outside": str(outside / "evil.py")}


ESCAPES = [
    "src/evil.py",
    "workbench/evil.py",
    "/tmp/evil.py",
    "../outside/evil.py",
    "workbench/scripts/../../src/evil.py",
    "ABSOLUTE",
    "C:\\outside\\evil.py",
    "C:evil.py",
    "\\\\server\\share\\evil.py",
    "//server/share/evil.py",
    "workbench/scripts/link.py",
    "workbench/scripts/pkg.py",
    "workbench/scripts",
    "workbench/scripts/evil.sh",
    "workbench/scripts/evil.txt",
    "workbench/scripts/evil.py\x00.txt",
    "workbench/scripts/CON.py",
    "workbench/scripts/NUL.py",
    "workbench/scripts/COM1.py",
    "workbench/scripts/aux",
    "WORKBENCH/Scripts/evil.py",
    "Workbench/scripts/evil.py",
    "workbench/scripts/evil.py:stream",
    "~/evil.py",
]


@pytest.mark.parametrize("windows", [False, True], ids=["posix-rules", "windows-rules"])
@pytest.mark.parametrize("target", ESCAPES)
def test_every_escape_is_refused_without_running(
    root: Path, tmp_path: Path, target: str, windows: bool
) -> None:
    """REQ_AUTO_040: refused, nothing run (no sentinel), the refusal fed back (REQ_AUTO_030)."""
    if target == "workbench/scripts/link.py" and os.name == "nt":
        pytest.skip("symlinks need privileges on Windows")
    sentinel = tmp_path / "SENTINEL"
    planted = _plant(root, tmp_path, sentinel)
    target = planted["outside"] if target == "ABSOLUTE" else target
    session = ReboundSession(root, is_windows=windows)
    outcome = session.process_reply("go", reply(next_action=action(target, "Then what?")))
    assert not sentinel.exists(), "a refused script ran"
    assert outcome.status == "continue" and outcome.refusals == 1
    assert outcome.execution is None
    assert outcome.next_prompt is not None
    assert outcome.next_prompt.startswith("Then what?")
    assert "REFUSED, not executed" in outcome.next_prompt
    assert "refusal 1 of 3" in outcome.next_prompt
    record = load_session(session.ledger_root, session.session_id).steps[0]
    assert record["refusal"]["kind"] == "refused" and record["refusal"]["reason"]
    assert record["execution"] is None


def test_three_refusals_stop_with_a_sandbox_violation(root: Path, tmp_path: Path) -> None:
    """REQ_AUTO_040: after max_refusals the run stops (exit 1, stopCause sandbox-violation)."""
    session = ReboundSession(root, session_id="s-viol")
    outcomes = [
        session.process_reply("p", reply(next_action=action(target)))
        for target in ("src/a.py", "/etc/passwd", "../x.py")
    ]
    assert [o.status for o in outcomes] == ["continue", "continue", "sandbox-violation"]
    assert [o.refusals for o in outcomes] == [1, 2, 3]
    last = outcomes[-1]
    assert last.exit_code == 1 and last.next_prompt is None
    assert last.error is not None and "3 sandbox refusals" in last.error
    assert "parent directory" in last.error
    index = load_session(root / "ledger", "s-viol").index
    assert index["status"] == "sandbox-violation" and index["exitCode"] == 1


def test_refused_artifacts_count_and_block_the_script(root: Path, tmp_path: Path) -> None:
    sentinel = tmp_path / "SENTINEL"
    session = ReboundSession(root, max_refusals=2)
    text = reply(
        artifacts=[
            {"path": "workbench/scripts/run.py", "content": _sentinel_script(sentinel)},
            {"path": "/etc/evil.conf", "content": "x"},
        ],
        next_action=action("workbench/scripts/run.py"),
    )
    first = session.process_reply("p", text)
    assert first.status == "continue" and first.refusals == 1
    assert first.artifacts_written == ["workbench/scripts/run.py"]
    assert first.artifacts_rejected == ["/etc/evil.conf: unsafe path: absolute path"]
    assert not sentinel.exists()
    assert first.next_prompt is not None and "Artifacts NOT written" in first.next_prompt
    second = session.process_reply("p", reply(artifacts=[{"path": "../x", "content": "x"}]))
    assert second.status == "sandbox-violation" and second.refusals == 2
    assert second.error is not None and "artifact outside the sandbox" in second.error


def test_final_reply_with_unwritten_artifact_is_an_error(root: Path) -> None:
    session = ReboundSession(root, max_artifact_bytes=10)
    outcome = session.process_reply(
        "p", reply(artifacts=[{"path": "big.txt", "content": "x" * 11}], summary="All written.")
    )
    assert outcome.status == "error" and outcome.exit_code == 1
    assert outcome.refusals == 0  # too big is a failure, not a violation
    assert outcome.final_text is not None
    assert outcome.final_text.startswith("All written.") and "big.txt" in outcome.final_text


def test_missing_script_is_reported_and_not_counted(root: Path) -> None:
    session = ReboundSession(root)
    outcome = session.process_reply("p", reply(next_action=action("workbench/scripts/nope.py")))
    assert outcome.status == "continue" and outcome.refusals == 0
    assert outcome.next_prompt is not None
    assert "not executed: workbench/scripts/nope.py does not exist" in outcome.next_prompt


@pytest.mark.parametrize(
    ("bad_action", "fragment"),
    [
        ({"type": "exec_and_chain", "target_script": "workbench/scripts/a.py"}, "continuation"),
        ({**action("workbench/scripts/a.py"), "type": "run_shell"}, "'run_shell'"),
        ({"type": "exec_and_chain", "continuation_prompt": "x"}, "target_script"),
        ({**action("workbench/scripts/a.py"), "argv": ["rm", "-rf"]}, "argv"),
    ],
)
def test_malformed_next_action_is_fed_back_as_invalid(
    root: Path, tmp_path: Path, bad_action: dict[str, Any], fragment: str
) -> None:
    """REQ_AUTO_020: strict structure; the error goes back to the model, nothing runs."""
    sentinel = tmp_path / "SENTINEL"
    (root / "workbench" / "scripts" / "a.py").write_text(
        _sentinel_script(sentinel), encoding="utf-8"
    )
    session = ReboundSession(root)
    outcome = session.process_reply("p", reply(next_action=bad_action))
    assert not sentinel.exists()
    assert outcome.status == "continue" and outcome.refusals == 0
    assert outcome.next_prompt is not None
    assert "your next_action was invalid and nothing was run" in outcome.next_prompt
    assert fragment in outcome.next_prompt
    record = load_session(session.ledger_root, session.session_id).steps[0]
    assert fragment in record["nextActionError"] and record["nextAction"] is None


@pytest.mark.slow
def test_hanging_script_is_killed_and_the_diagnosis_fed_back(root: Path) -> None:
    """REQ_AUTO_030 error handling + REQ_AUTO_040 mandatory timeout."""
    hang = "import time\nprint('starting', flush=True)\ntime.sleep(600)\n"
    session = ReboundSession(root, script_timeout=3)
    outcome = session.process_reply(
        "p",
        reply(
            artifacts=[{"path": "workbench/scripts/hang.py", "content": hang}],
            next_action=action("workbench/scripts/hang.py", "Why did it hang?"),
        ),
    )
    assert outcome.status == "continue"
    assert outcome.execution is not None and outcome.execution.stop_reason == "timeout"
    assert outcome.next_prompt is not None
    assert "killed after the 3 s timeout" in outcome.next_prompt
    assert "starting" in outcome.next_prompt
    record = load_session(session.ledger_root, session.session_id).steps[0]
    assert record["execution"]["stopReason"] == "timeout"


@pytest.mark.parametrize(
    ("text", "status", "exit_code"),
    [
        (reply(status="error", summary="Could not do it."), "error", 1),
        (reply(summary="Finished."), "done", 0),
        (reply(thought_process="only thoughts"), "done", 0),
    ],
)
def test_final_replies(root: Path, text: str, status: str, exit_code: int) -> None:
    outcome = ReboundSession(root).process_reply("p", text)
    assert outcome.status == status and outcome.exit_code == exit_code
    assert outcome.final_text in ("Could not do it.", "Finished.", "only thoughts")


def test_continue_without_next_action_leaves_the_prompt_to_the_loop(root: Path) -> None:
    session = ReboundSession(root)
    outcome = session.process_reply("p", reply(status="continue", summary="more to do"))
    assert outcome.status == "continue" and outcome.next_prompt is None
    bad = session.process_reply(
        "p",
        reply(status="continue", artifacts=[{"path": "x", "content": "!", "encoding": "base64"}]),
    )
    assert bad.status == "continue"
    assert bad.next_prompt is not None and "invalid base64" in bad.next_prompt
    second = load_session(session.ledger_root, session.session_id).steps[1]
    assert second["promptFrom"] == "loop (not a rebound continuation)"


def test_reply_without_an_object_is_invalid_json(root: Path) -> None:
    """As in json mode: no valid object → invalid-json (65), journaled."""
    session = ReboundSession(root, session_id="s-bad")
    outcome = session.process_reply("p", "I refuse to answer in JSON.")
    assert outcome.status == "invalid-json" and outcome.exit_code == 65
    assert outcome.error == "no JSON reply object found in the reply"
    ledger = load_session(root / "ledger", "s-bad")
    assert ledger.steps[0]["reply"]["found"] is False
    assert ledger.index["status"] == "invalid-json"


def test_ledger_is_redacted_but_artifacts_are_not(root: Path) -> None:
    """REQ_AUTO_050 + DESIGN secrets: the journal hides tokens; the user's files keep them."""
    token = "sk-ant-" + "a1B2c3D4" * 4
    session = ReboundSession(root, session_id="s-red")
    session.process_reply(
        f"use key {token}",
        reply(artifacts=[{"path": "conf.txt", "content": token}], summary=f"key {token}"),
    )
    assert (root / "conf.txt").read_text(encoding="utf-8") == token
    for path in (root / "ledger" / "s-red").iterdir():
        assert token not in path.read_text(encoding="utf-8"), path.name


def test_unwritable_ledger_is_exit_73(root: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(JlgError) as err:
        ReboundSession(root, ledger_root=blocker / "ledger")
    assert err.value.code == 73

    session = ReboundSession(root, ledger_root=tmp_path / "ledger", session_id="s1")
    (tmp_path / "ledger" / "s1" / "index.json").unlink()
    (tmp_path / "ledger" / "s1").rmdir()
    (tmp_path / "ledger" / "s1").write_text("now a file", encoding="utf-8")
    with pytest.raises(JlgError) as err:
        session.process_reply("p", reply(status="done"))
    assert err.value.code == 73 and "ledger" in err.value.message


def test_cancel_before_running_is_interrupted(root: Path, tmp_path: Path) -> None:
    sentinel = tmp_path / "SENTINEL"
    cancel = threading.Event()
    cancel.set()
    session = ReboundSession(root, cancel=cancel)
    outcome = session.process_reply(
        "p",
        reply(
            artifacts=[{"path": "workbench/scripts/a.py", "content": _sentinel_script(sentinel)}],
            next_action=action("workbench/scripts/a.py"),
        ),
    )
    assert outcome.status == "interrupted" and outcome.exit_code == 130
    assert not sentinel.exists()


def test_close_records_the_loops_stop_cause(root: Path) -> None:
    session = ReboundSession(root, session_id="s-close")
    session.process_reply("p", reply(status="continue"))
    session.close("max-iterations", exit_code=4)
    index = load_session(root / "ledger", "s-close").index
    assert index["status"] == "max-iterations" and index["stopCause"] == "max-iterations"
    assert index["exitCode"] == 4


def test_instructions_describe_the_real_contract(root: Path) -> None:
    session = ReboundSession(
        root, script_timeout=42, max_output_bytes=1234, max_refusals=5, max_artifact_bytes=999
    )
    text = session.instructions()
    for needle in (
        '"thought_process"', '"artifacts"', '"next_action"', '"status"', '"summary"',
        "exec_and_chain", "workbench/scripts/", "base64", "42 s", "1,234", "after\n  5 refusals",
        "999 bytes",
    ):  # fmt: skip
        assert needle in text, needle
    example = find_reply(text)  # the example in the instructions is itself a valid reply
    assert example.reply is not None and example.reply.next_action is not None
    assert example.reply.next_action.target_script.startswith("workbench/scripts/")


@needs_symlinks
def test_symlink_swapped_in_after_the_artifact_is_refused(root: Path, tmp_path: Path) -> None:
    """The checked file is the file that runs: a link planted by a previous step is resolved."""
    sentinel = tmp_path / "SENTINEL"
    outside = tmp_path / "evil.py"
    outside.write_text(_sentinel_script(sentinel), encoding="utf-8")
    planter = (
        f"import os\nos.symlink({str(outside)!r}, 'workbench/scripts/next.py')\nprint('planted')\n"
    )
    session = ReboundSession(root)
    first = session.process_reply(
        "p",
        reply(
            artifacts=[{"path": "workbench/scripts/plant.py", "content": planter}],
            next_action=action("workbench/scripts/plant.py"),
        ),
    )
    assert first.execution is not None and first.execution.ok
    second = session.process_reply("p", reply(next_action=action("workbench/scripts/next.py")))
    assert second.refusals == 1 and not sentinel.exists()


def test_prompt_links_survive_a_loop_that_wraps_the_continuation(root: Path) -> None:
    """REQ_AUTO_050: the ledger says where each prompt came from, even when the loop adds text."""
    session = ReboundSession(root, session_id="s-wrap")
    (root / "workbench" / "scripts" / "a.py").write_text("print(1)\n", encoding="utf-8")
    first = session.process_reply("p", reply(next_action=action("workbench/scripts/a.py")))
    assert first.next_prompt is not None
    session.process_reply("[iteration 2]\n" + first.next_prompt, reply(status="done"))
    steps = load_session(root / "ledger", "s-wrap").steps
    assert steps[1]["promptFrom"] == "step-1 continuation, with additions by the loop"


def test_strict_isolation_that_is_not_available_runs_no_script(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 46: ``reboundIsolation: strict`` refuses to run a script rather than run it weaker."""
    from jlgcli.rebound import session as module
    from jlgcli.rebound.isolation import Isolation

    asked: list[tuple[str, bool]] = []

    def unavailable(_root: Path, _extra: object, *, choice: str, network: bool) -> Isolation:
        asked.append((choice, network))
        return Isolation("none", refused="reboundIsolation is strict: nothing works here")

    monkeypatch.setattr(module, "choose_isolation", unavailable)
    session = ReboundSession(root, session_id="s-strict", isolation="strict", network=True)
    marker = root / "ran.txt"
    script = f"open({str(marker)!r}, 'w').write('x')\n"
    outcome = session.process_reply(
        "Do it.\n\n" + session.instructions(),
        reply(
            artifacts=[{"path": "workbench/scripts/s.py", "content": script}],
            next_action=action("workbench/scripts/s.py"),
        ),
    )
    assert asked == [("strict", True)]
    assert outcome.status == "error" and outcome.exit_code == 1
    assert "not run" in str(outcome.error) and "strict" in str(outcome.error)
    assert not marker.exists()
    step = read_json(root / "ledger" / "s-strict" / "step-001.json")
    assert "strict" in json.dumps(step)
