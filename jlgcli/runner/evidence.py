"""The work tree between iterations, as evidence of progress (issue 31).

A loop snapshots the git work tree after each call: a changed file is progress
(no-progress guardrail) and the diff stat goes into the iteration's receipt.
What jlgcli itself writes there is never evidence: ``.jlgcli/``, the runs
root, the ledger, the rebound workbench, the ``--events`` file and whatever
file jlgcli's own stdout or stderr is redirected to.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jlgcli.runner.spec import RunSpec
    from jlgcli.runner.worktree import OutputFiles


class TreeEvidence:
    """Snapshots of one run's work tree, without jlgcli's own files."""

    def __init__(self, spec: RunSpec) -> None:
        self.spec = spec
        self.repo: str | None = ""  # the git directory, looked up on first use
        self._outputs: OutputFiles | None = None  # where jlgcli's stdout/stderr go in the tree

    def snapshot(self) -> str | None:
        """The tree's state now (None: a one-shot run, or not a git repository)."""
        if not self.spec.is_loop:
            return None
        from jlgcli.runner.worktree import snapshot

        if self.repo == "":
            from jlgcli.runner.worktree import git_dir

            self.repo = git_dir(self.spec.cwd)
        if not self.repo:  # not a git repository: nothing to snapshot, nothing to look up
            return None
        return snapshot(self.spec.cwd, self.own_files(), repo=self.repo)

    def own_files(self) -> tuple[Path, ...]:
        """What jlgcli itself writes in the tree, never evidence of progress (issue 31)."""
        from jlgcli.artifacts.project import under_project
        from jlgcli.runner.worktree import OutputFiles, output_file_ids

        spec, cwd = self.spec, self.spec.cwd
        if self._outputs is None:  # looked up once, when the first snapshot is taken
            self._outputs = OutputFiles(output_file_ids(_output_fds(spec), within=cwd))
        own = [
            under_project(Path(".jlgcli"), cwd),
            under_project(spec.artifacts_dir, cwd),
            spec.ledger_dir or under_project(Path("ledger"), cwd),
            *self._outputs.paths(cwd),
        ]
        if spec.completion_mode == "rebound":
            own.append(cwd / "workbench")
        if spec.events_path and spec.events_path != "-":
            own.append(Path(spec.events_path).absolute())  # opened relative to the process
        return tuple(own)


def _output_fds(spec: RunSpec) -> tuple[int, ...]:
    """The streams whose files may be in the tree: stdout and stderr, unless this loop is
    a batch's task (issue 37; its options say so, issue 44), whose streams are pipes to the
    batch, which writes nothing in the task's worktree (the look for a pipe's readers walks
    all of ``/proc``: ~12 ms a stream, with a batch's dozens of processes)."""
    return () if spec.batch_task else (1, 2)
