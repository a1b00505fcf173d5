"""The sections of ``run --help`` and ``loop --help`` (issue 38: one flat list of 30 options).

Options are declared in ``_run_options`` in the order that reads well in code;
this table sorts them into titled argparse groups afterwards, as gh and uv
group theirs. An option missing from the table stays under "options", so a
new flag is never lost from the help.
"""

from __future__ import annotations

import argparse

OUTPUT = "output"

# Section title -> the dests of its options, in help order.
RUN_GROUPS: dict[str, tuple[str, ...]] = {
    "backend": ("backend", "fallback", "model", "permissions", "backend_arg", "cwd", "replay"),
    "budgets and guardrails": (
        "max_iterations",
        "max_cost",
        "timeout",
        "iteration_timeout",
        "idle_timeout",
        "no_progress_limit",
    ),
    "completion": ("completion", "gate", "no_gates", "script_timeout", "ledger_dir"),
    "resume": ("resume", "session"),
    OUTPUT: ("events", "notify", "transcript", "artifacts", "artifacts_dir", "github"),
}


def group_options(parser: argparse.ArgumentParser, groups: dict[str, tuple[str, ...]]) -> None:
    """Move ``parser``'s options into titled sections (``--json``/``-q``/``-v`` join "output")."""
    by_dest = {a.dest: a for a in parser._optionals._group_actions if a.option_strings}
    for title, dests in groups.items():
        present = [by_dest[dest] for dest in dests if dest in by_dest]
        if not present:
            continue
        group = parser.add_argument_group(title)
        for action in present:
            parser._optionals._group_actions.remove(action)
            group._group_actions.append(action)
