"""The command line's commands: one module per command, ``register(subparsers)`` (argparse
only) and ``execute(args) -> int``; beside them what those commands share (``run_actions``,
``_run_options``…), the parser that gathers them (``parser``), what a TAB offers
(``complete``, ``complete_words``) and the dev loop's own programs ``aidevloop``/``adl``
(``dev_program``, over the same parser as ``jlgcli dev``: ``dev_args``).

Below every module here: ``quiet`` and ``add_common_options``, which each command shares,
and the program's top-level help (``jlgcli --help`` prints it without importing argparse or
any module of this package but this one; a test keeps it equal to the real parser's).
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def quiet(args: "argparse.Namespace") -> bool:
    """``-q`` / ``--verbosity 0`` was given: print only the summary and errors (issue 38)."""
    return getattr(args, "verbosity", None) == 0


def add_common_options(parser: "argparse.ArgumentParser") -> None:
    """``--json`` and verbosity options, shared by every command (added once)."""
    if "--json" in parser._option_string_actions:
        return
    # In the "output" section where a command's help has one (run, loop).
    from jlgcli.input_limits import bounded_int

    section = next((g for g in parser._action_groups if g.title == "output"), parser)
    section.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    group = section.add_mutually_exclusive_group()
    group.add_argument(
        "-q",
        "--quiet",
        dest="verbosity",
        action="store_const",
        const=0,
        help="only the summary and errors (verbosity 0)",
    )
    group.add_argument(
        "-v",
        "--verbose",
        dest="verbosity",
        action="store_const",
        const=2,
        help="progress details (verbosity 2)",
    )
    group.add_argument(
        "--verbosity",
        dest="verbosity",
        type=bounded_int(0, 3),
        choices=range(4),  # what TAB offers; the type says the range first
        metavar="{0,1,2,3}",
        help="0 quiet, 1 normal, 2 verbose, 3 debug",
    )


EPILOG = """examples:
  jlgcli demo                          watch a recorded loop, offline
  jlgcli loop task.md                  work on task.md until it is done (guarded)
  jlgcli loop task.md -b codex -n 10   with codex, at most 10 iterations
  jlgcli run prompt.md --json          one call, its result as one JSON object
  jlgcli config set backend codex      choose the default backend
  jlgcli completion --help             how to install tab completion in your shell

exit codes: 0 done, 1 run error, 2 no backend, 4 budget spent, 5 no progress, 6 not
logged in, 7 parked, 64 usage, 65 invalid JSON, 66 prompt not found, 70 internal error,
73 artifacts not writable, 75 timeout, 77 permission denied, 78 bad config, 129 hang-up,
130 interrupted, 131 quit, 141 stdout closed, 143 terminated.
"""

# `jlgcli --help` without importing argparse or any command: the real parser's
# help at a wide terminal (tests/unit/test_cli.py keeps the two equal).
TOP_LEVEL_HELP = (
    """\
usage: jlgcli [-h] [-V] <command> ...

Run AI coding-agent CLIs on a task until it is really done.

options:
  -h, --help     show this help message and exit
  -V, --version  show program's version number and exit

commands:
  <command>
    demo         replay a recorded loop offline: no AI CLI needed (start here)
    run          run a prompt once on a backend
    loop         loop a task until it is done (guarded)
    answer       answer a parked run's question and resume it
    matrix       print the GitHub Actions matrix of task files (fan-out, then gather)
    backends     list the agent CLIs and whether they are ready
    doctor       diagnose the environment: config, backends, PATH, terminal
    runs         list recent runs; show one, or what its agent said (runs log)
    watch        follow a running loop or batch from any terminal (Ctrl-C detaches)
    stop         stop a running loop or batch from any terminal (it can be resumed)
    worktrees    list the worktrees and branches batches made, and prune them
    board        a live dashboard of this project's runs and batches in the browser
    ledger       show the rebound ledger (audit trail of rebound runs)
    hook         pre-commit hook: one agent call over the staged change
    dev          plan-driven development loop (implement, validate, review, commit)
    config       read and write settings
    completion   print a tab-completion script for bash, zsh, fish or PowerShell
    help         show the help of a command (jlgcli help loop = jlgcli loop --help)

"""
    + EPILOG
)


def add_dir_option(parser: "argparse.ArgumentParser", *, default: object = None) -> None:
    """``--dir DIR``, the runs folder a command reads (``runs``, ``watch``, ``stop``, ``board``)."""
    from jlgcli.input_limits import path_arg

    parser.add_argument(
        "--dir", dest="runs_dir", metavar="DIR", default=default, type=path_arg,
        help="the artifacts directory (default: the artifactsDir setting, .jlgcli/runs, "
        "at the project root)",
    )  # fmt: skip


def add_target_arguments(parser: "argparse.ArgumentParser", json_help: str) -> None:
    """The run or batch a command acts on (``watch``, ``stop``): ``RUN|BATCH|latest``,
    ``--json`` and ``--dir``."""
    parser.add_argument("run_id", nargs="?", default="latest", metavar="RUN|BATCH|latest",
                        help="a run id, a batch id, a unique prefix of one, or latest "
                        "(the default)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help=json_help)
    add_dir_option(parser)


def print_top_level_help() -> int:
    from jlgcli.colour import style_help, wants_colour

    sys.stdout.write(style_help(TOP_LEVEL_HELP, wants_colour(sys.stdout)))
    return 0
