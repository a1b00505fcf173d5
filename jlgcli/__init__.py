"""jlgcli: run AI coding-agent CLIs on a task until it is really done.

Importing the package is cheap on purpose: ``jlgcli --version`` must not pay for
pydantic or anything heavy, so subsystems are imported where they are used.
"""

from jlgcli._version import __version__

__all__ = ["__version__"]
