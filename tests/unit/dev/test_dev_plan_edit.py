"""Task selection (FR-4.1) and the in-place, atomic status rewrite (FR-4.4, NFR-2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.dev_unit import task

from jlgcli.dev.plan import parse_plan
from jlgcli.dev.plan_edit import load_plan, select_task, set_status, unmet_dependencies
from jlgcli.errors import DevExitCode, JlgError


def plan_of(*tasks: str):  # type: ignore[no-untyped-def]
    return parse_plan("".join(tasks), "plan.md")


def test_auto_selects_first_pending_with_done_dependencies() -> None:
    plan = plan_of(
        task("T-1", "done"),
        task("T-2", "pending", deps="T-3"),
        task("T-3", "pending", deps="T-1"),
    )
    chosen = select_task(plan, None)
    assert chosen is not None and chosen.id == "T-3"


def test_nothing_to_do_when_all_done() -> None:
    assert select_task(plan_of(task("T-1", "done"), task("T-2", "skipped")), None) is None


def test_all_pending_blocked_lists_what_they_wait_for() -> None:
    plan = plan_of(task("T-1", "in-progress"), task("T-2", deps="T-1"))
    with pytest.raises(JlgError) as info:
        select_task(plan, None)
    assert info.value.code == DevExitCode.CONFIGURATION
    assert "T-2 waits for T-1 (in-progress)" in info.value.message


def test_explicit_task() -> None:
    plan = plan_of(task("T-1", "done"), task("T-2", deps="T-1"))
    chosen = select_task(plan, "t-2")
    assert chosen is not None and chosen.id == "T-2"


@pytest.mark.parametrize(
    ("status", "words"),
    [("done", "T-1 is done, not pending"), ("in-progress", "T-1 is in-progress, not pending")],
)
def test_explicit_task_not_pending(status: str, words: str) -> None:
    with pytest.raises(JlgError) as info:
        select_task(plan_of(task("T-1", status)), "T-1")
    assert info.value.code == DevExitCode.CONFIGURATION
    assert words in info.value.message
    assert info.value.hint is not None


def test_explicit_task_with_unmet_dependencies_lists_them() -> None:
    plan = plan_of(task("T-1"), task("T-2", "in-progress"), task("T-3", deps="T-1, T-2"))
    with pytest.raises(JlgError) as info:
        select_task(plan, "T-3")
    assert (
        "T-3 has unsatisfied dependencies: T-1 (pending), T-2 (in-progress)" in info.value.message
    )
    assert [t.id for t in unmet_dependencies(plan, plan.tasks[2])] == ["T-1", "T-2"]


def test_unknown_explicit_task() -> None:
    plan = plan_of(*(task(f"T-{i}") for i in range(12)))
    with pytest.raises(JlgError) as info:
        select_task(plan, "T-99")
    assert "no task T-99 in plan.md" in info.value.message
    assert info.value.hint is not None and info.value.hint.endswith(" ...")


def test_load_plan_missing_file(tmp_path: Path) -> None:
    with pytest.raises(JlgError) as info:
        load_plan(tmp_path / "nope.md", "docs/nope.md")
    assert info.value.code == DevExitCode.CONFIGURATION
    assert str(tmp_path / "nope.md") in info.value.message


def test_set_status_changes_only_the_word(tmp_path: Path) -> None:
    path = tmp_path / "work" / "plan.md"
    path.parent.mkdir()
    original = (
        "\ufeff# Plan  \r\n\n" + task("T-1") + task("T-2", "**Pending**") + "tail\xa0"
    ).encode()
    path.write_bytes(original)
    path.chmod(0o640)
    assert set_status(path, "plan.md", "T-2", "in-progress") is True
    after = path.read_bytes()
    assert after == original.replace(b"**Pending**", b"**in-progress**")
    assert path.stat().st_mode & 0o777 == 0o640
    assert set_status(path, "plan.md", "T-2", "in-progress") is False
    assert path.read_bytes() == after
    assert list(path.parent.iterdir()) == [path]  # no temp file left behind


def test_set_status_keeps_undecodable_bytes(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    original = b"# caf\xe9 latin-1\n" + task("T-1").encode()
    path.write_bytes(original)
    set_status(path, "plan.md", "T-1", "done")
    assert path.read_bytes() == original.replace(b"pending", b"done", 1)


def test_set_status_of_a_vanished_task(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text(task("T-1"), encoding="utf-8")
    with pytest.raises(JlgError) as info:
        set_status(path, "plan.md", "T-9", "done")
    assert info.value.code == DevExitCode.TASK_FAILED


_noise = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="#|`~*_-:\r"),
    max_size=60,
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(before=_noise, after=_noise, newline=st.sampled_from(["\n", "\r\n"]))
def test_rewrite_is_byte_identical_elsewhere(
    tmp_path: Path, before: str, after: str, newline: str
) -> None:
    path = tmp_path / "p.md"
    text = ("Intro " + before + "\n\n" + task("T-1") + task("T-2") + "\nOutro " + after).replace(
        "\n", newline
    )
    path.write_bytes(text.encode("utf-8"))
    set_status(path, "p.md", "T-2", "done")
    new = path.read_bytes().decode("utf-8")
    start, end = parse_plan(text).tasks[1].status_span
    assert new == text[:start] + "done" + text[end:]
    assert parse_plan(new).tasks[1].status == "done"
    assert parse_plan(new).tasks[0].status == "pending"
