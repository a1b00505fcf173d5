"""``datetime``'s classes for jlgcli, without running ``datetime.py`` (issue 49).

On CPython, ``import datetime`` executes the module's whole pure-Python twin (some 2,500
lines of classes and constants) and only then replaces it with the C module's classes:
~1.4 ms of every run and loop start. The C module, ``_datetime``, holds those very classes
(``datetime.datetime is _datetime.datetime``); every module imports them from here. Another
implementation without ``_datetime`` gets ``datetime``'s own.
"""

TYPE_CHECKING = False

if TYPE_CHECKING:
    from datetime import date, datetime, timedelta, timezone, tzinfo
else:
    try:
        from _datetime import date, datetime, timedelta, timezone, tzinfo
    except ImportError:  # pragma: no cover - not CPython
        from datetime import date, datetime, timedelta, timezone, tzinfo

__all__ = ["date", "datetime", "timedelta", "timezone", "tzinfo"]
