"""One recorded run's transcript for a person: found by id, read or followed (issue 51).

``jlgcli runs log`` and the dashboard (through ``jlgcli.api.transcript_lines``)
call ``transcript_entries``; ``runs_root`` is where a project's runs are, as
``jlgcli runs`` finds them from any sub-directory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

from jlgcli.errors import ExitCode, JlgError

NO_TRANSCRIPT_HINT = (
    "a run keeps its transcript unless started with --no-transcript or the transcript "
    "setting is false (jlgcli config get transcript)"
)


def runs_root(cwd: Path, runs_dir: str | Path | None = None) -> Path:
    """``runs_dir`` (relative to ``cwd``), else the ``artifactsDir`` setting relative to the
    project root of ``cwd``: where every run of the project is recorded."""
    from jlgcli.config.paths import configured_runs_root

    return configured_runs_root(cwd, str(runs_dir) if runs_dir else None)


def transcript_entries(
    run: str,
    *,
    cwd: Path,
    iteration: int | None = None,
    follow: bool = False,
    runs_dir: str | Path | None = None,
    poll_s: float | None = None,
    sleep: Callable[[float], None] | None = None,
) -> Iterator[tuple[int | None, str]]:
    """The readable lines of run ``run`` (an id, a unique prefix, or ``latest``), each with
    its iteration (None: before the first header, in a transcript whose start was cut).

    ``follow``: go on while the run is running, until it ends. Raises ``JlgError`` 64
    for an unknown run, one without a transcript, or an iteration it does not have.
    """
    from jlgcli.artifacts.layout import TRANSCRIPT_FILE
    from jlgcli.artifacts.transcript_read import POLL_S, records
    from jlgcli.config.started import is_running
    from jlgcli.runner.listing import RUNNING, load_run
    from jlgcli.runner.readable import readable_entries

    detail = load_run(runs_root(cwd, runs_dir), run)
    info = detail.info
    path = info.path / TRANSCRIPT_FILE
    live = info.status == RUNNING
    if not path.is_file() and not live:
        raise JlgError(ExitCode.USAGE, f"run {info.run_id} kept no transcript",
                       hint=NO_TRANSCRIPT_HINT)  # fmt: skip
    if iteration is not None and not live and iteration > (info.iterations or 0):
        raise JlgError(ExitCode.USAGE,
                       f"run {info.run_id} has {info.iterations or 0} iteration(s), "
                       f"not {iteration}", hint="see: jlgcli runs show " + info.run_id)  # fmt: skip
    read = records(
        path,
        running=(lambda: is_running(info.path)) if follow else None,
        poll_s=POLL_S if poll_s is None else poll_s,
        sleep=time.sleep if sleep is None else sleep,
    )
    return readable_entries(read, backend=info.backend, iteration=iteration)
