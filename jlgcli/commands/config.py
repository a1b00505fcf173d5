"""``jlgcli config get|set|unset|show|path`` (seed 000 F-001, seed 001 §12.2)."""

from __future__ import annotations

import argparse

from jlgcli.input_limits import path_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


EPILOG = """examples:
  jlgcli config set backend codex            default backend (user file)
  jlgcli config set timeoutMs 2m             durations: 500ms, 30s, 2m, 1h30m or ms
  jlgcli config set --project maxIterations 5   write the project's .jlgcli.json
  jlgcli config unset timeoutMs              back to the default
  jlgcli config trust                        let this project's commands run
  jlgcli config get backend
  jlgcli config show --json                  every key with its value and source
  jlgcli config path                         where the files are
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``config`` and its sub-commands."""
    config = subparsers.add_parser(
        "config",
        help="read and write settings",
        description="Read and write jlgcli settings. Precedence: flags > JLGCLI_* env > "
        "project .jlgcli.json > user config.json > defaults.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    config.set_defaults(help_parser=config)
    actions = config.add_subparsers(title="actions", metavar="<action>")
    get = actions.add_parser(
        "get",
        help="print one setting's effective value",
        description="Print one setting's effective value.",
    )
    get.add_argument("key")
    get.set_defaults(handler="jlgcli.commands.config_actions:get")
    set_ = actions.add_parser(
        "set",
        help="persist a setting (user file, or --project)",
        description="Validate and persist a setting.",
    )
    set_.add_argument("key")
    set_.add_argument("value")
    _add_file_options(set_, "write")
    set_.set_defaults(handler="jlgcli.commands.config_actions:set_")
    unset = actions.add_parser(
        "unset",
        help="remove a setting from a file",
        description="Remove a setting from the user (or project) file.",
    )
    unset.add_argument("key")
    _add_file_options(unset, "edit")
    unset.set_defaults(handler="jlgcli.commands.config_actions:unset")
    show = actions.add_parser(
        "show",
        help="every setting with its value and source",
        description="Every setting with its value and where it comes from.",
    )
    show.set_defaults(handler="jlgcli.commands.config_actions:show")
    path = actions.add_parser(
        "path",
        help="where the config files are",
        description="The user and project config file paths.",
    )
    path.set_defaults(handler="jlgcli.commands.config_actions:path")
    trust = actions.add_parser(
        "trust",
        help="let a project's commands run (custom backends, validation commands)",
        description="Record a project file's path and SHA-256 in the user config, so the "
        "commands it declares (custom command backends, .aidevloop validation commands) may "
        "run. Read the file first: a changed file must be trusted again.",
    )
    trust.add_argument(
        "path",
        nargs="?",
        type=path_arg,
        help="a file, or a folder: its nearest .jlgcli.json and its .aidevloop.* files "
        "(default: the current folder)",
    )
    trust.set_defaults(handler="jlgcli.commands.config_actions:trust")
    untrust = actions.add_parser(
        "untrust",
        help="forget a project's trust: its commands no longer run",
        description="Remove a project file from the trusted ones.",
    )
    untrust.add_argument("path", nargs="?", type=path_arg,
                         help="a file or a folder (default: the current one)")  # fmt: skip
    untrust.set_defaults(handler="jlgcli.commands.config_actions:untrust")


def _add_file_options(parser: argparse.ArgumentParser, verb: str) -> None:
    parser.add_argument(
        "--project",
        action="store_true",
        help=f"{verb} the project's .jlgcli.json (the one found here or above; a new one "
        "goes to the repository root)",
    )
    parser.add_argument(
        "--file",
        metavar="PATH",
        type=path_arg,
        help=f"{verb} this project file (created if needed)",
    )
