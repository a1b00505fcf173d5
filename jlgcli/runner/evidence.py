"""The work tree between iterations, as evidence of progress (issue 31).

A loop snapshots the git work tree after each call: a changed file is progress
(no-progress guardrail) and the diff stat goes into the iteration's receipt.
What jlgcli itself writes there is never evidence: ``.jlgcli/``, the runs
root, the ledger, the rebound workbench, the ``--events`` file and whatever
file jlgcli's own stdout or stderr is redirected to.
"""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.runner.snapshots import TreeSnapshots
    from jlgcli.runner.spec import RunSpec
    from jlgcli.runner.worktree import OutputFiles


class TreeEvidence:
    """Snapshots of one run's work tree, without jlgcli's own files."""

    def __init__(self, spec: RunSpec) -> None:
        self.spec = spec
        self.repo: str | None = ""  # the git directory, looked up on first use
        self._outputs: OutputFiles | None = None  # where jlgcli's stdout/stderr go in the tree
        self._dirs: tuple[Path, ...] | None = None  # jlgcli's own folders and files, looked up once
        self._snapshots: TreeSnapshots | None = None  # the run's private index (issue 50)

    def snapshot(self) -> str | None:
        """The tree's state now (None: a one-shot run, or not a git repository)."""
        if not self.spec.is_loop:
            return None
        if self.repo == "":
            from jlgcli.runner.worktree import git_dir

            self.repo = git_dir(self.spec.cwd)
        if not self.repo:  # not a git repository: nothing to snapshot, nothing to look up
            return None
        if self._snapshots is None:
            from jlgcli.runner.snapshots import TreeSnapshots

            self._snapshots = TreeSnapshots(self.spec.cwd, self._own, self._output_files())
        return self._snapshots.take(self.repo)

    def diff_stat(self, before: str | None, after: str | None) -> dict[str, int] | None:
        """Files changed, insertions and deletions between two snapshots, own files left out."""
        return None if self._snapshots is None else self._snapshots.diff_stat(before, after)

    def close(self) -> None:
        """The run is over: its private index goes."""
        if self._snapshots is not None:
            self._snapshots.close()

    def own_files(self) -> tuple[Path, ...]:
        """What jlgcli itself writes in the tree, never evidence of progress (issue 31)."""
        self._output_files().paths(self.spec.cwd)
        return self._own()

    def _own(self) -> tuple[Path, ...]:
        """``own_files`` as found so far: looks nothing up again (issue 50)."""
        if self._dirs is None:
            self._dirs = self._own_dirs()
        return (*self._dirs, *self._output_files().found)

    def _own_dirs(self) -> tuple[Path, ...]:
        from jlgcli.artifacts.project import under_project

        spec, cwd = self.spec, self.spec.cwd
        own = [
            under_project(Path(".jlgcli"), cwd),
            under_project(spec.artifacts_dir, cwd),
            spec.ledger_dir or under_project(Path("ledger"), cwd),
        ]
        if spec.completion_mode == "rebound":
            own.append(cwd / "workbench")
        if spec.events_path and spec.events_path != "-":
            own.append(Path(spec.events_path).absolute())  # opened relative to the process
        return tuple(own)

    def _output_files(self) -> OutputFiles:
        from jlgcli.runner.worktree import OutputFiles, output_file_ids

        spec = self.spec
        if self._outputs is None:  # looked up once, when the first snapshot is taken
            self._outputs = OutputFiles(output_file_ids(_output_fds(spec), within=spec.cwd))
        return self._outputs


def _output_fds(spec: RunSpec) -> tuple[int, ...]:
    """The streams whose files may be in the tree: stdout and stderr, unless this loop is
    a batch's task (issue 37; its options say so, issue 44), whose streams are pipes to the
    batch, which writes nothing in the task's worktree (the look for a pipe's readers walks
    all of ``/proc``: ~12 ms a stream, with a batch's dozens of processes)."""
    return () if spec.batch_task else (1, 2)
