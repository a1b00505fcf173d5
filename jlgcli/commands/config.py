"""``jlgcli config get|set|unset|show|path`` (seed 000 F-001, seed 001 §12.2)."""

from __future__ import annotations

import argparse
from typing import Any

EPILOG = """examples:
  jlgcli config set backend codex            default backend (user file)
  jlgcli config set timeoutMs 2m             durations: 500ms, 30s, 2m, 1h30m or ms
  jlgcli config set --project maxIterations 5   write .jlgcli.json in this directory
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
    set_.add_argument("--project", action="store_true", help="write ./.jlgcli.json instead")
    set_.set_defaults(handler="jlgcli.commands.config_actions:set_")
    unset = actions.add_parser(
        "unset",
        help="remove a setting from a file",
        description="Remove a setting from the user (or project) file.",
    )
    unset.add_argument("key")
    unset.add_argument("--project", action="store_true", help="edit ./.jlgcli.json instead")
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
