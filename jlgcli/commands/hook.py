"""``jlgcli hook [FILE...]``: the pre-commit entry — one agent call over the staged change.

A one-iteration ``loop`` with the JSON completion protocol: the model's
``{"status": "done"}`` passes the commit; ``error``, no valid JSON, a timeout
or any other stop fails it with a reason that fits on one screen. It never
prompts (a hook has no TTY), bounds its own time (``--timeout``, default 5m:
pre-commit has none) and is quiet unless it fails or ``-v`` is given.
"""

from __future__ import annotations

import argparse

from jlgcli.commands._run_options import PERMISSIONS
from jlgcli.input_limits import bounded_int, path_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jlgcli.runner.options import RunOptions

DEFAULT_TIMEOUT = "5m"

EPILOG = """examples:
  jlgcli hook                                 review the staged change with the built-in prompt
  jlgcli hook --prompt .jlgcli/review.md      your own prompt; the file list and diff are appended
  jlgcli hook --backend codex --timeout 2m -v
  pre-commit run jlgcli-run --hook-stage manual

exit codes: 0 done (or nothing staged), 1 the model reported an error, 2 backend missing,
4 no verdict, 6 not logged in, 64 usage (e.g. not a git work tree), 65 invalid JSON,
66 prompt not found, 75 timeout, 130 interrupted.
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``hook``."""
    parser = subparsers.add_parser(
        "hook",
        help="pre-commit hook: one agent call over the staged change",
        description="Send a prompt plus the staged change (file list and a size-capped "
        "diff) to a backend once; pass on status done, fail otherwise. Never prompts.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="*", metavar="FILE", type=path_arg,
                        help="files to review (default: every staged file)")  # fmt: skip
    parser.add_argument("--prompt", "-p", metavar="PROMPT_FILE", type=path_arg,
                        help="the review prompt (default: a built-in review prompt)")  # fmt: skip
    parser.add_argument("--backend", "-b", metavar="ID", help="backend id (overrides the config)")
    parser.add_argument("--model", "-m", help="model name passed to the backend")
    parser.add_argument("--permissions", choices=PERMISSIONS, default="read-only",
                        help="what the agent may do (default: read-only)")  # fmt: skip
    parser.add_argument("--backend-arg", action="append", default=[], metavar="ARG",
                        help="extra raw argument for the backend CLI (repeatable)")  # fmt: skip
    parser.add_argument("--completion", choices=("json", "marker"), default="json",
                        help="json (default): done passes, error fails; marker: DONE")  # fmt: skip
    parser.add_argument("--max-iterations", "-n", metavar="N", default="1",
                        help="backend calls before giving up (default 1)")  # fmt: skip
    parser.add_argument("--timeout", metavar="DURATION", default=DEFAULT_TIMEOUT,
                        help=f"total time limit (default {DEFAULT_TIMEOUT}; exit 75)")  # fmt: skip
    parser.add_argument("--max-diff-bytes", type=bounded_int(0, 1 << 30), default=100_000,
                        metavar="N",
                        help="diff size cap in the prompt (default 100000; 0: none)")  # fmt: skip
    parser.add_argument("--artifacts", action=argparse.BooleanOptionalAction, default=None,
                        help="write .jlgcli/runs/<id>/ (transcript, meta, result)")  # fmt: skip
    parser.add_argument("--replay", metavar="RUN_DIR", type=path_arg, help=argparse.SUPPRESS)
    parser.add_argument("--github", action="store_true",
                        help="write GitHub outputs and job summary (auto in Actions)")  # fmt: skip
    parser.set_defaults(handler="jlgcli.commands.hook:execute")


def hook_options(args: argparse.Namespace, prompt_file: str) -> RunOptions:
    """The hook's loop options (quiet by default: pre-commit shows output on failure)."""
    from jlgcli.runner.options import RunOptions

    return RunOptions(
        prompt=prompt_file,
        completion=args.completion,
        max_iterations=args.max_iterations,
        timeout=args.timeout,
        permissions=args.permissions,
        backend=args.backend or None,
        model=args.model or None,
        replay=args.replay or None,
        backend_args=tuple(args.backend_arg),
        artifacts=args.artifacts,
        verbosity=0 if args.verbosity is None else args.verbosity,
    )


def execute(args: argparse.Namespace) -> int:
    """Review the staged change once; the exit code is the verdict."""
    import sys
    from pathlib import Path

    from jlgcli import records
    from jlgcli.api import execute as run_loop
    from jlgcli.commands.run_actions import commands_stopped
    from jlgcli.integrations.github import publish
    from jlgcli.integrations.hook import DEFAULT_PROMPT, collect_change, compose_prompt, hook_report
    from jlgcli.output import emit_json
    from jlgcli.prompts import read_prompt

    if args.prompt == "-":
        from jlgcli.errors import usage_error

        raise usage_error("a hook cannot read its prompt from stdin", "pass --prompt FILE")
    options = hook_options(args, args.prompt or str(DEFAULT_PROMPT))
    template = read_prompt(str(options.prompt))
    change = collect_change(Path.cwd(), args.files, max_diff_bytes=max(0, args.max_diff_bytes))
    if change.empty:
        if args.json:
            emit_json({"status": "done", "exitCode": 0, "skipped": "nothing staged"})
        sys.stderr.write("jlgcli hook: nothing staged, nothing to review\n")
        return 0
    options = records.replace(options, prompt_text=compose_prompt(template.text, change))
    with commands_stopped(data_on_stdout=bool(args.json)):  # issue 33: the model's text
        summary = run_loop("loop", options, json_mode=bool(args.json))
        publish(summary, force=args.github)
        if args.json:
            emit_json(summary.to_json())
        sys.stderr.write(hook_report(summary, change))
        sys.stderr.flush()
    return summary.exitCode
