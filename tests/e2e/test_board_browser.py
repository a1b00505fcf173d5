"""``jlgcli board`` in a real headless Chromium while a batch of the fakes runs (issue 52).

Debian's ``chromium`` (``/usr/bin/chromium``; ``JLGCLI_TEST_CHROMIUM`` names
another) driven by Playwright, whose own browser download is never used. Where
neither is installed the tests skip and say so, except in CI (``.ci/run`` sets
``JLGCLI_BROWSER_TESTS=1``), where that is a failure. With
``JLGCLI_BOARD_SCREENSHOTS=DIR`` the pages are also saved as PNGs (docs/board.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.batch import make_repo, make_tasks
from support.board import serve

GATE = f"{sys.executable} -c \"print('tests pass')\""
# Read at import: each test's environment drops JLGCLI_* (tests/conftest.py).
REQUIRED = os.environ.get("JLGCLI_BROWSER_TESTS") == "1"
SCREENSHOTS = os.environ.get("JLGCLI_BOARD_SCREENSHOTS")
CHROMIUM = os.environ.get("JLGCLI_TEST_CHROMIUM")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync"]  # fmt: skip


def _chromium() -> str | None:
    return CHROMIUM or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None  # type: ignore[assignment]
    missing = ("the playwright package" if sync_playwright is None else
               "a chromium (apt-get install chromium)" if executable is None else None)  # fmt: skip
    if missing:
        if REQUIRED:
            pytest.fail(f"browser tests need {missing} (JLGCLI_BROWSER_TESTS=1)")
        pytest.skip(f"browser tests need {missing}")
    assert sync_playwright is not None and executable is not None
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as driver:
        # A fresh profile folder: launch_persistent_context is how Playwright takes one.
        context = driver.chromium.launch_persistent_context(
            profile, executable_path=executable, headless=True, args=FLAGS,
            viewport={"width": 1100, "height": 760},
        )  # fmt: skip
        try:
            yield context
        finally:
            context.close()


def _shot(page: Any, name: str) -> None:
    if SCREENSHOTS:
        page.screenshot(path=str(Path(SCREENSHOTS) / f"{name}.png"), full_page=False)


def _state(page: Any, task: str) -> str:
    cell = page.query_selector(f'tr[data-task="{task}"] td.state')
    return "" if cell is None else str(cell.inner_text()).strip()


TURNS = {
    "alpha": [{"text": "half of alpha", "files": {"a.txt": "a\n"}, "delay_seconds": 6},
              {"text": "did alpha\nDONE", "files": {"a2.txt": "a2\n"}}],
    "beta": [{"text": "did beta\nDONE", "files": {"b.txt": "b\n"}, "delay_seconds": 3}],
}  # fmt: skip


def test_a_batch_seen_live_then_a_run_with_its_iterations(
    browser: Any, jlgcli_exe: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", TURNS)
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    with serve(jlgcli_exe, repo) as board:
        page = browser.new_page()
        page.goto(board.url)
        assert page.url.rstrip("/") == f"http://127.0.0.1:{board.port}"  # the token is gone
        page.evaluate("window.__same = 1")  # gone if the page were ever reloaded
        argv = [jlgcli_exe, "loop", *tasks, "-j", "2", "--merge", "-b", "claude",
                "--gate", GATE, "--max-iterations", "3"]  # fmt: skip
        with subprocess.Popen(argv, cwd=repo, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True) as batch:  # fmt: skip
            # The batch appears on the open list by itself (server-sent events).
            page.wait_for_selector('a[href^="/batch/"]', timeout=60_000)
            assert page.evaluate("window.__same") == 1
            page.click('a[href^="/batch/"]')
            page.wait_for_selector('tr[data-task="alpha"]')
            page.evaluate("window.__same = 2")
            seen: dict[str, list[str]] = {"alpha": [], "beta": []}
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                for name in seen:
                    state = _state(page, name)
                    if state and (not seen[name] or seen[name][-1] != state):
                        seen[name].append(state)
                if all(states and states[-1] == "merged" for states in seen.values()):
                    break
                page.wait_for_timeout(100)
            _, err = batch.communicate(timeout=120)
        assert batch.returncode == 0, err
        assert page.evaluate("window.__same") == 2  # changed in place, never reloaded
        for name, states in seen.items():  # each task seen running (its events), then merged
            assert "running" in states[:-1] and states[-1] == "merged", (name, states)
        _shot(page, "batch")
        page.click('tr[data-task="alpha"] a[href^="/run/"]')
        page.wait_for_selector("#iterations")
        rows = page.query_selector_all("#iterations tbody tr")
        assert len(rows) == 2
        page.click("#iterations details.gate summary")  # a gate's output, one click away
        assert "tests pass" in page.inner_text("#iterations")
        assert "✓" in page.inner_text("#iterations")
        said = page.inner_text("#transcript")  # what the agent said, as a person reads it
        assert "half of alpha" in said and "did alpha" in said
        _shot(page, "run")
        page.goto(f"http://127.0.0.1:{board.port}/")
        page.wait_for_selector("#runs")
        assert len(page.query_selector_all("#runs tbody tr")) == 2
        _shot(page, "runs")
        page.click("text=Prune merged and empty worktrees")  # a POST from the page itself
        page.wait_for_selector("text=Worktrees pruned")
        page.close()


def test_a_parked_question_answered_in_the_browser_resumes_the_task(
    browser: Any, jlgcli_exe: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    asks = "I need a decision first.\nQUESTION: Which colour should the button be?"
    turns = {
        "alpha": [{"text": "did alpha\nDONE", "files": {"a.txt": "a\n"}}],
        "beta": [{"text": asks}, {"text": "did beta in blue\nDONE", "files": {"b.txt": "b\n"}}],
    }
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    argv = [jlgcli_exe, "loop", *tasks, "-j", "2", "--merge", "-b", "claude",
            "--max-iterations", "3"]  # fmt: skip
    first = subprocess.run(argv, cwd=repo, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert first.returncode == 7, first.stderr  # beta parked on its question
    with serve(jlgcli_exe, repo, env={"JLGCLI_FAKE_SCRIPT": env["JLGCLI_FAKE_SCRIPT"]}) as board:
        page = browser.new_page()
        page.goto(board.url)
        page.click('a[href^="/batch/"]')
        page.wait_for_selector('tr[data-task="beta"]')
        assert "parked" in _state(page, "beta")
        assert "Which colour should the button be?" in page.inner_text('tr[data-task="beta"]')
        page.click('tr[data-task="beta"] a:text("answer")')
        page.wait_for_selector("#question textarea")
        assert "Which colour" in page.inner_text("#question")
        _shot(page, "question")
        page.fill("#question textarea", "Blue, please")
        page.click("#question button")
        page.wait_for_selector("text=goes on with your answer")
        page.click("text=back")
        page.wait_for_selector("#iterations")
        batch_link = page.get_attribute('a[href^="/batch/"]', "href")
        page.goto(f"http://127.0.0.1:{board.port}{batch_link}")
        page.evaluate("window.__same = 3")
        deadline = time.monotonic() + 120  # the answered task resumes, then merges, live
        while time.monotonic() < deadline and _state(page, "beta") != "merged":
            page.wait_for_timeout(200)
        assert _state(page, "beta") == "merged"
        assert page.evaluate("window.__same") == 3
        page.close()
    prompts = sorted((tmp_path / "scripts" / "beta.json.prompts").glob("*.txt"))
    assert "Blue, please" in prompts[-1].read_text("utf-8")
    assert (repo / "b.txt").read_text("utf-8") == "b\n"
