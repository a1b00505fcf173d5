"""One configuration key and how its values are parsed (seed 000 F-001, seed 001 §12.2).

``KeySpec`` says what a key accepts and turns what a user typed (a flag, an env var, a
file, ``config set``) into its typed value, or a ``ValueProblemError`` naming the accepted
values. The keys themselves are the table in ``jlgcli.config.keys``.
"""

from __future__ import annotations

from collections.abc import Callable

from jlgcli.config.backend_ids import known_backend_ids
from jlgcli.durations import (
    DurationError,
    DurationOutOfRangeError,
    format_duration_setting,
    parse_duration_ms,
)
from jlgcli.input_limits import clipped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ValueProblemError(ValueError):
    """A value that does not fit its key; the message names the accepted values."""


class KeySpec:
    """One configuration key (a plain class: ``dataclasses`` imports ``inspect``, ~5 ms)."""

    __slots__ = (
        "choices",
        "default",
        "description",
        "example",
        "flag",
        "kind",
        "maximum",
        "minimum",
        "name",
    )

    def __init__(
        self,
        name: str,
        kind: str,  # "backend" | "int" | "duration" | "choice" | "bool" | "path" | "backends"
        # | "commands" | "money" | "targets"
        default: Any,
        description: str,
        example: str,
        *,
        flag: str,
        minimum: int | None = None,
        maximum: int | None = None,
        choices: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.kind = kind
        self.default = default
        self.description = description
        self.example = example
        self.flag = flag  # the run/loop flag that sets it, named in usage errors
        self.minimum = minimum
        self.maximum = maximum
        self.choices = choices

    def __repr__(self) -> str:
        return f"KeySpec({self.name!r}, {self.kind!r})"

    def display(self, value: Any) -> str:
        """``value`` as people write it: ``30m`` for a duration, ``true``/``false``."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list):
            return ", ".join(value) if self.kind == "backends" else " ; ".join(value) or "none"
        if self.kind == "money":
            return f"{value:g}" if value else "0 (no limit)"
        if self.kind == "duration" and isinstance(value, int):
            return format_duration_setting(value)
        return str(value)

    @property
    def env_var(self) -> str:
        """``maxIterations`` → ``JLGCLI_MAX_ITERATIONS``."""
        snake = "".join(f"_{c}" if c.isupper() else c for c in self.name)
        return "JLGCLI_" + snake.upper()

    def accepted(self) -> str:
        """The accepted values, in words, for error messages."""
        if self.kind == "duration":
            lower = format_duration_setting(self.minimum or 0)
            upper = format_duration_setting(self.maximum) if self.maximum is not None else "any"
            return f"{lower} to {upper}"
        if self.kind == "int":
            upper = f"{self.maximum}" if self.maximum is not None else "no limit"
            return f"{self.minimum} to {upper}"
        if self.choices:
            return " | ".join(self.choices)
        if self.kind == "bool":
            return "true | false"
        if self.kind == "backends":
            return "backend ids, comma-separated"
        if self.kind == "commands":
            return "a command, or a JSON list of commands"
        if self.kind == "money":
            return "dollars, 0 for no limit"
        if self.kind == "targets":
            return "desktop or webhook:URL, or a JSON list of them"
        return "a path"

    def parse(self, raw: Any, *, custom_backends: tuple[str, ...] = ()) -> Any:
        """The typed value of ``raw`` (from a flag, env var, file or ``config set``)."""
        return _PARSERS[self.kind](self, raw, custom_backends)


def _parse_int(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> int:
    if isinstance(raw, bool):
        raise ValueProblemError(f"expected a whole number ({spec.accepted()})")
    try:
        value = int(str(raw).strip()) if not isinstance(raw, int) else raw
    except ValueError:  # also past Python's 4,300 digits
        text = str(raw).strip().lstrip("+-")
        if text.isdigit():
            raise ValueProblemError(_out_of_range(spec, raw)) from None
        message = f"'{clipped(raw)}' is not a whole number; accepted: {spec.accepted()}"
        raise ValueProblemError(message) from None
    return _bounded(spec, value)


def _parse_duration(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> int:
    try:
        value = parse_duration_ms(raw)
    except DurationOutOfRangeError:
        raise ValueProblemError(_out_of_range(spec, raw)) from None
    except DurationError as exc:
        raise ValueProblemError(str(exc)) from None
    return _bounded(spec, value)


def _bounded(spec: KeySpec, value: int) -> int:
    if (spec.minimum is not None and value < spec.minimum) or (
        spec.maximum is not None and value > spec.maximum
    ):
        raise ValueProblemError(_out_of_range(spec, spec.display(value)))
    return value


def _out_of_range(spec: KeySpec, shown: object) -> str:
    return f"{clipped(shown)} is out of range; accepted: {spec.accepted()}"


def _parse_choice(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> str:
    value = str(raw).strip()
    if value not in spec.choices:
        raise ValueProblemError(f"'{value}' is not one of {spec.accepted()}")
    return value


def _parse_backend(spec: KeySpec, raw: Any, custom: tuple[str, ...]) -> str:
    known = known_backend_ids(custom)
    value = str(raw).strip()
    if value not in known:
        raise ValueProblemError(
            f"'{value}' is not a known backend{_closest(value, known)}; known: {', '.join(known)}"
        )
    return value


def _parse_bool(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> bool:
    if isinstance(raw, bool):
        return raw
    value = str(raw).strip().lower()
    if value in ("true", "1", "yes", "on"):
        return True
    if value in ("false", "0", "no", "off"):
        return False
    raise ValueProblemError(f"'{raw}' is not a boolean; accepted: {spec.accepted()}")


def _parse_path(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> str:
    value = str(raw).strip()
    if not value or "\x00" in value:
        raise ValueProblemError("expected a non-empty path")
    return value


def _parse_backends(spec: KeySpec, raw: Any, custom: tuple[str, ...]) -> list[str]:
    items = raw if isinstance(raw, list) else str(raw).split(",")
    names = [str(item).strip() for item in items if str(item).strip()]
    return [_parse_backend(spec, name, custom) for name in names]


def _parse_commands(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> list[str]:
    if isinstance(raw, str) and raw.strip().startswith("["):
        import json

        try:
            raw = json.loads(raw)
        except ValueError:
            raise ValueProblemError("a list of commands must be valid JSON") from None
    items = raw if isinstance(raw, list) else [raw]
    if not all(isinstance(item, str) for item in items):
        raise ValueProblemError("expected a command (a string) or a list of commands")
    return [item.strip() for item in items if item.strip()]


def _parse_money(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> float:
    try:
        value = float(str(raw).strip().lstrip("$")) if not isinstance(raw, bool) else -1.0
    except ValueError:
        value = -1.0
    if value == float("inf"):  # 1e400, or 400 digits: a number, too large for a float
        raise ValueProblemError(_out_of_range(spec, raw))
    if not value >= 0:  # also refuses NaN
        raise ValueProblemError(f"'{clipped(raw)}' is not an amount of dollars ({spec.accepted()})")
    return value


def notify_target_problem(target: str) -> str | None:
    """Why ``target`` is not a notification target (``desktop``, ``webhook:http(s)://…``)."""
    if target == "desktop":
        return None
    if not target.startswith("webhook:"):
        return f"'{target}' is not a notification target (desktop or webhook:URL)"
    url = target[len("webhook:") :]
    scheme, _, rest = url.partition("://")
    if scheme.lower() not in ("http", "https") or not rest.split("/", 1)[0]:
        return f"'{url}' is not an http:// or https:// address"
    if any(ord(char) < 33 or ord(char) == 127 for char in url):
        return f"'{url}' holds spaces or control characters"
    return None


def _parse_targets(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> list[str]:
    items = _parse_commands(spec, raw, _custom)  # one target, or a JSON list of them
    for item in items:
        if problem := notify_target_problem(item):
            raise ValueProblemError(problem)
    return items


_PARSERS: dict[str, Callable[[KeySpec, Any, tuple[str, ...]], Any]] = {
    "int": _parse_int,
    "duration": _parse_duration,
    "choice": _parse_choice,
    "backend": _parse_backend,
    "bool": _parse_bool,
    "path": _parse_path,
    "backends": _parse_backends,
    "commands": _parse_commands,
    "money": _parse_money,
    "targets": _parse_targets,
}


def _closest(value: str, candidates: tuple[str, ...]) -> str:
    import difflib  # only on a miss: it costs ~1 ms at start-up

    match = difflib.get_close_matches(value, candidates, n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""
