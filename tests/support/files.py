"""Files that fail the way a disk does."""

from __future__ import annotations


class FullDisk:
    """A binary file whose writes fail as on a full disk (ENOSPC)."""

    def write(self, _data: bytes) -> int:
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass
