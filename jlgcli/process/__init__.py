"""The process layer: run an ``Invocation`` through a pipe or a pty, stream events, kill trees.

Public surface: ``run_invocation`` (streamed runs with limits and the kill
ladder), ``capture`` (short probes), ``install_termination_handlers``,
``resolve_executable``, ``ExecutableNotFound``; Windows command-line rules in
``jlgcli.process.windows``.
"""

from jlgcli.process.capture import capture
from jlgcli.process.run import run_invocation
from jlgcli.process.signals import install_termination_handlers
from jlgcli.process.spawn import ExecutableNotFound, resolve_executable

__all__ = [
    "ExecutableNotFound",
    "capture",
    "install_termination_handlers",
    "resolve_executable",
    "run_invocation",
]
