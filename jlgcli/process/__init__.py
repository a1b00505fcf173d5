"""The process layer: run an ``Invocation`` through a pipe or a pty, stream events, kill trees.

Public surface: ``capture`` (short probes), ``run_invocation`` (streamed runs
with limits and the kill ladder), ``resolve_executable``, ``ExecutableNotFound``.
"""

from jlgcli.process.capture import capture
from jlgcli.process.spawn import ExecutableNotFound, resolve_executable

__all__ = ["ExecutableNotFound", "capture", "resolve_executable"]
