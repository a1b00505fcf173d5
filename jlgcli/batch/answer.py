"""``jlgcli answer`` for a batch's task (issue 51): the batch resumed with the answer.

A task parked on a question is finished for ``loop --resume BATCH`` (asking
again would only ask again). Answering it resumes the batch as ``--resume``
does, with that one task run again: its parked run is resumed in its own
worktree with the answer in its next prompt (``--task-options`` carries it,
written in the user's config folder like every task's options), and the
batch commits and merges it as it would have. The batch's table (or its
``--json`` object) is printed as for any batch; what the answered task ended
with is its run's summary.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from jlgcli import records
from jlgcli.batch.lookup import Located
from jlgcli.batch.record import BatchRecord
from jlgcli.errors import ExitCode

if TYPE_CHECKING:
    from jlgcli.batch.run import Finish
    from jlgcli.runner.options import RunOptions
    from jlgcli.runner.summary import RunSummary

# the loop command's flags a batch reads that are not run options
_BATCH_ARGS = {"prompt": None, "events": None, "github": False, "jobs": None, "merge": False,
               "retry_conflicts": False, "task_options": None}  # fmt: skip
_ARG_NAMES = {"backend_args": "backend_arg", "gates": "gate"}  # RunOptions field → loop's flag


def answer_task(
    found: Located,
    text: str,
    options: RunOptions,
    *,
    json_mode: bool = False,
    finish: Finish | None = None,
) -> tuple[int, RunSummary | None]:
    """Resume ``found``'s batch with ``text`` as its task's answer: the batch's exit code,
    and the answered task's run summary (None when its run printed none). ``finish`` shows
    the batch's ending (the command line's: ``commands.batch_loop.finisher``); by default its
    table on stderr (none at verbosity 0) and its one notification."""
    from jlgcli.batch.child import read_summary
    from jlgcli.batch.record import batch_dir
    from jlgcli.batch.run import run_batch
    from jlgcli.runner.options import runs_root_of
    from jlgcli.runner.summary import RunSummary

    values = {_ARG_NAMES.get(item.name, item.name): getattr(options, item.name)
              for item in records.fields(options)}  # fmt: skip
    args = argparse.Namespace(**{**values, **_BATCH_ARGS, "json": json_mode,
                                 "resume": found.batch_id})  # fmt: skip
    code = run_batch(args, [], resume=found.batch_id, answers={found.task: text},
                     finish=finish or _shown(options.verbosity))  # fmt: skip
    out = batch_dir(runs_root_of(options), found.batch_id) / f"{found.task}.out.json"
    data = read_summary(out)
    return code, RunSummary.from_json(data) if data is not None else None


def _shown(verbosity: int | None) -> Finish:
    """The ending of a batch an API caller resumed: its table on stderr (not with
    ``verbosity=0``) and its one notification; the code as the batch has it."""

    def finish(record: BatchRecord, summaries: dict[str, dict[str, Any] | None],
               code: int | None, notify: tuple[str, ...]) -> int:  # fmt: skip
        import sys

        from jlgcli.batch.report import notify_end, render

        final = int(code if code is not None else ExitCode.INTERNAL)
        if verbosity != 0:
            sys.stderr.write(render(record))
        if notify:
            notify_end(record, notify, code=final)
        return final

    return finish
