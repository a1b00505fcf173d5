"""RunOptions written down and read back; what the user asked, applied by a resume (issue 44)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jlgcli import records
from jlgcli.config import asked
from jlgcli.errors import JlgError
from jlgcli.runner.options import RunOptions, build_spec, flag_settings
from jlgcli.runner.options_record import SCHEMA, describe, from_json, to_json
from jlgcli.runner.resume_options import user_asked
from jlgcli.runner.stuck_gates import StuckGates

STATE = {
    "run_id": "20260101T000000Z-cccccc", "task": "Do it.", "prompt_source": "task.md",
    "backend": "claude", "completion_mode": "marker", "options": {}, "iterations": 1,
    "elapsed_ms": 0, "last_report": "", "metrics": [], "version": 1, "stop_cause": "interrupted",
}  # fmt: skip


def test_options_go_through_json_and_back_unchanged() -> None:
    options = RunOptions(
        prompt="t.md", backend="worker", gates=("pytest -q", "ruff check ."), max_cost=0.5,
        timeout=60_000, artifacts=True, no_gates=None, batch_task="a", shared_limits="/l",
        known_versions=(("/bin/claude", "2.1.197"),), fallback=("codex",), verbosity=2,
    )  # fmt: skip
    data = json.loads(json.dumps(to_json(options)))
    assert data["schema"] == SCHEMA and "model" not in data  # unset fields are left out
    assert from_json(data) == options


@pytest.mark.parametrize(
    "data",
    [
        {"schema": "other"},
        {"schema": SCHEMA, "gates": "pytest"},
        {"schema": SCHEMA, "gates": [1]},
        {"schema": SCHEMA, "backend": {"argv": ["x"]}},
        {"schema": SCHEMA, "known_versions": [["/bin/claude"]]},
    ],
)
def test_a_record_that_is_not_run_options_is_refused(data: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        from_json(data)


def test_describe_says_what_a_resume_applies() -> None:
    shown = describe(RunOptions(backend="worker", gates=("pytest -q",), fallback=("codex",),
                                permissions="full", max_cost=2.0, max_iterations=9))  # fmt: skip
    assert shown == ("backend worker, fallback codex, gates pytest -q, permissions full, "
                     "max cost $2, max iterations 9")  # fmt: skip
    assert describe(RunOptions()) == "backend from config, no gates"


def test_the_store_keeps_records_by_id_and_the_newest_ones_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("r1", "r2", "r3"):
        asked.save(name, {"schema": SCHEMA, "backend": name})
    assert asked.load("r3") == {"schema": SCHEMA, "backend": "r3"}
    monkeypatch.setattr(asked, "_KEEP", 2)
    asked.save("r4", {})
    assert len(list(asked.folder().glob("*.json"))) == 2 and asked.load("r4") == {}
    asked.path_of("r4").write_text("[1]", "utf-8")
    assert asked.load("r4") is None and asked.load("never") is None
    with pytest.raises(ValueError):
        asked.path_of("../escape")


def test_gates_given_now_agree_with_the_record() -> None:
    asked.save("run-a", to_json(RunOptions(backend="worker", gates=(), no_gates=True)))
    assert user_asked("run-a", RunOptions(gates=("pytest",))) == RunOptions(backend="worker")
    asked.save("run-b", to_json(RunOptions(gates=("pytest",))))
    assert user_asked("run-b", RunOptions(no_gates=True)) == RunOptions()
    asked.save("run-c", {"schema": SCHEMA, "gates": "pytest"})
    assert user_asked("run-c", RunOptions()) is None  # damaged: the state's rules apply
    with pytest.raises(JlgError) as caught:
        flag_settings(RunOptions(gates=("pytest",), no_gates=True))
    assert "--no-gates and --gate" in caught.value.message


def _state(tmp_path: Path, **options: Any) -> str:
    path = tmp_path / ".jlgcli" / "runs" / STATE["run_id"] / "state.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**STATE, "options": options}), encoding="utf-8")
    return str(STATE["run_id"])


def test_a_resume_applies_what_the_user_asked_and_says_so(tmp_path: Path) -> None:
    run_id = _state(tmp_path, gates=["pytest"], permissions="full")
    asked.save(run_id, to_json(RunOptions(backend="codex", gates=("pytest -q",),
                                          permissions="full", max_cost=1.5)))  # fmt: skip
    spec, _ = build_spec(RunOptions(resume=run_id, cwd=str(tmp_path)), "loop")
    assert (spec.backend, spec.gates, spec.permissions) == ("codex", ("pytest -q",), "full")
    assert spec.max_cost_usd == 1.5 and spec.prompt.text == "Do it."
    (note,) = spec.notes
    assert note.startswith(f"resuming {run_id} as you started it: backend codex, gates pytest -q")
    spec, _ = build_spec(RunOptions(resume=run_id, cwd=str(tmp_path), no_gates=True), "loop")
    assert spec.gates == ()  # said explicitly
    spec, _ = build_spec(RunOptions(resume=run_id, cwd=str(tmp_path), max_cost=3), "loop")
    assert spec.max_cost_usd == 3.0  # a flag given now wins


def test_without_a_record_a_resume_notes_only_what_differs(tmp_path: Path) -> None:
    """Issue 49: no 'recorded permissions "edit" not read back' when edit applies anyway."""
    run_id = _state(tmp_path, permissions="edit", completionMode="marker", gates=["pytest"],
                    cwd=str(tmp_path))  # fmt: skip
    spec, _ = build_spec(RunOptions(resume=run_id, cwd=str(tmp_path)), "loop")
    notes = "\n".join(spec.notes)
    assert "recorded gates" in notes and "--gate" in notes
    assert "permissions" not in notes and "completionMode" not in notes and "cwd" not in notes
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run_id = _state(tmp_path, cwd=str(elsewhere), completionMode="json")
    spec, _ = build_spec(RunOptions(resume=run_id, cwd=str(tmp_path)), "loop")
    notes = "\n".join(spec.notes)
    assert "recorded cwd" in notes and "recorded completionMode" in notes


def test_a_run_records_what_was_asked_resolved(tmp_path: Path) -> None:
    spec, _ = build_spec(RunOptions(prompt_text="x", cwd=str(tmp_path), backend="claude",
                                    timeout="2m", replay="rec"), "loop")  # fmt: skip
    recorded = from_json(spec.asked)
    assert recorded.timeout == 120_000 and recorded.no_gates is True and recorded.gates == ()
    assert recorded.replay == str(Path("rec").resolve()) and recorded.session == "fresh"
    assert recorded.prompt is None and recorded.max_cost is None
    spec, _ = build_spec(records.replace(RunOptions(prompt_text="x", cwd=str(tmp_path)),
                                         gates=("pytest",)), "loop")  # fmt: skip
    assert from_json(spec.asked).gates == ("pytest",) and from_json(spec.asked).no_gates is None


def test_the_same_gate_failing_with_no_change_is_no_progress() -> None:
    stuck = StuckGates(3)
    assert not stuck.observe(("pytest",), worktree_changed=True)  # a change: progress
    assert not stuck.observe(("pytest",), worktree_changed=False)
    assert not stuck.observe(("ruff",), worktree_changed=False)  # another gate: from 1
    assert not stuck.observe(("ruff",), worktree_changed=False)
    assert stuck.observe(("ruff",), worktree_changed=False)
    assert stuck.message().startswith("the gate 'ruff' failed 3 times in a row")
    assert not stuck.observe((), worktree_changed=False) and stuck.streak == 0
    both = StuckGates(1)
    assert both.observe(("a", "b"), worktree_changed=False)
    assert both.message().startswith("the gates 'a' and 'b' failed once with no file changed")


def test_a_state_naming_another_run_does_not_borrow_its_settings(tmp_path: Path) -> None:
    run_id = _state(tmp_path)
    asked.save(run_id, to_json(RunOptions(backend="codex", permissions="full")))
    planted = tmp_path / ".jlgcli" / "runs" / "20260101T000000Z-dddddd" / "state.json"
    planted.parent.mkdir(parents=True)
    planted.write_text(json.dumps({**STATE, "run_id": run_id}), encoding="utf-8")
    spec, _ = build_spec(RunOptions(resume=planted.parent.name, cwd=str(tmp_path)), "loop")
    assert spec.permissions != "full" and not any("as you started it" in n for n in spec.notes)
