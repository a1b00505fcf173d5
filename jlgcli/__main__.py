"""``python -m jlgcli``."""

from jlgcli.cli import console_script

console_script()
