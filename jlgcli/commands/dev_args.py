"""The argparse tree of ``jlgcli dev`` and of the standalone ``aidevloop`` / ``adl`` (FR-1).

Imports only argparse: ``--help`` must stay fast. ``add_dev_commands`` adds
``run`` and ``resume`` under any parser, so ``jlgcli dev`` and ``aidevloop``
share one definition.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from jlgcli.input_limits import bounded_int, path_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DESCRIPTION = (
    "Plan-driven development loop (AiDevLoop): take the next task of "
    "docs/implementation-plan.md through implement -> validate -> review/fix -> "
    "archive -> commit, with your approval before the commit."
)
STEPS = """steps: 1 select, 2 load, 3 implement, 4 validation, 5 review loop,
       6 integration check, 7 update documentation, 8 commit (asks for approval)
exit codes: 0 committed (or nothing to do), 1 aborted/not approved/interrupted,
            2 configuration error, 3 task execution error
task format and config keys: docs/devloop.md"""


def examples(prog: str) -> str:
    """The examples epilog of the top-level dev parser."""
    return f"""examples:
  {prog} init                  first run: the documents and config as templates
  {prog} run                   next pending task whose dependencies are done
  {prog} run TASK-005          that task (it must be pending, its dependencies done)
  {prog} run --llm copilot     another agent CLI than the config's "llm"
  {prog} run --yes             unattended: answer yes to every question
  {prog} resume                continue after an abort or an interruption
  {prog} resume --from-step 4  re-run from the validation step

{STEPS}
"""


_step = bounded_int(1, 8)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--llm", metavar="ID",
                        help='agent CLI: claude, copilot, codex, gemini or a custom jlgcli backend '
                        '(overrides "llm" in the config)')  # fmt: skip
    parser.add_argument("--config", metavar="PATH", dest="config_path", type=path_arg,
                        help="config file to use instead of ./.aidevloop.json|.yaml")  # fmt: skip
    _where(parser)


def _where(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-C", "--directory", metavar="DIR", default=None, type=path_arg,
                        help="the project root (default: the current directory)")  # fmt: skip
    parser.add_argument("-y", "--yes", action="store_true", dest="assume_yes",
                        help="answer every question yes (unattended)")  # fmt: skip
    parser.add_argument("--no-input", action="store_true",
                        help="never ask: where a question comes, stop with exit 1")  # fmt: skip


def add_dev_commands(
    parser: argparse.ArgumentParser,
    prog: str,
    *,
    handler: str | None = None,
    common: Callable[[argparse.ArgumentParser], None] | None = None,
) -> None:
    """Add ``init``, ``run`` and ``resume`` (with their options) under ``parser``."""
    commands = parser.add_subparsers(title="commands", metavar="<command>", dest="dev_command")
    init = commands.add_parser(
        "init",
        help="write the Phase 1 documents and .aidevloop.json as templates (first run)",
        description="Write docs/requirements.md, docs/architecture.md, "
        "docs/implementation-plan.md (one example task) and .aidevloop.json (the test and "
        "lint commands detected here) where they are missing; never overwrites a file.",
        epilog=f"""examples:
  {prog} init                 asks once, then writes the missing files
  {prog} init --yes           unattended (CI)
then: fill the documents and the plan, trust the config's commands with
  jlgcli config trust .aidevloop.json
and run: {prog} run
""",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run = commands.add_parser(
        "run",
        help="run the next task (or TASK-ID) through the 8 steps",
        description="Run one task through the 8 steps; asks before committing.",
        epilog=f"""examples:
  {prog} run                 the next pending task whose dependencies are done
  {prog} run TASK-005        that task
  {prog} run --verbose       show prompts, agent replies, file operations, command output
  {prog} run --yes           unattended (CI): every question answered yes
""",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("task_id", nargs="?", metavar="TASK-ID", help="the task to run")
    resume = commands.add_parser(
        "resume",
        help="continue the task in progress from its last completed step",
        description="Continue the task in context/current-task.md from the step its files show.",
        epilog=f"""examples:
  {prog} resume                 infer the step from the context files and the task status
  {prog} resume --from-step 4   re-run from the validation step
  {prog} resume --yes           unattended
""",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    resume.add_argument("--from-step", type=_step, metavar="N", help="start at step N (1-8)")
    _where(init)
    for leaf in (run, resume):
        _common(leaf)
    for leaf in (init, run, resume):
        if common is not None:
            common(leaf)
        defaults: dict[str, Any] = {}
        if handler is not None:
            defaults["handler"] = handler
        leaf.set_defaults(**defaults)
