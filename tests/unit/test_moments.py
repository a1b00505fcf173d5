"""``jlgcli.moments``: datetime's own classes, without running ``datetime.py`` (issue 49)."""

from __future__ import annotations

import datetime as stdlib

from jlgcli import moments


def test_the_classes_are_datetimes_own() -> None:
    assert moments.datetime is stdlib.datetime
    assert moments.timezone is stdlib.timezone
    assert moments.timedelta is stdlib.timedelta
    assert moments.tzinfo is stdlib.tzinfo
    assert moments.date is stdlib.date
    assert moments.datetime.now(moments.timezone.utc).tzinfo is stdlib.timezone.utc
