"""PyInstaller runtime hook: runs in the exe before jlgcli's code (see jlgcli/frozen.py)."""

from jlgcli.frozen import sanitize_process

sanitize_process()
