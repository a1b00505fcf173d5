"""``.aidevloop.json`` / ``.aidevloop.yaml``: the dev loop's configuration (FR-3).

The schema is FR-3.2's, validated by pydantic: unknown keys and bad values
are errors (exit 2) naming the file and the key. ``agent`` and
``validation.timeoutSeconds`` are jlgcli additions (agent retries and
timeouts); everything else is exactly the seed's. Flags override the file
(FR-3.3): ``with_overrides``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError

from jlgcli.config.backend_ids import BUILTIN_BACKENDS
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.records import record

CONFIG_NAMES: tuple[str, ...] = (".aidevloop.json", ".aidevloop.yaml", ".aidevloop.yml")
VALIDATION_KINDS: tuple[str, ...] = ("lint", "typecheck", "test", "build")
CommandSpec = Union[str, list[str], None]  # noqa: UP007 - pydantic evaluates it at runtime on 3.10


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class PathsConfig(_Model):
    docs: str = Field(default="docs", min_length=1)
    context: str = Field(default="context", min_length=1)
    prompts: str = Field(default="prompts", min_length=1)


class CommandsConfig(_Model):
    lint: CommandSpec = None
    typecheck: CommandSpec = None
    test: CommandSpec = None
    build: CommandSpec = None


class ValidationConfig(_Model):
    max_review_iterations: StrictInt = Field(default=3, alias="maxReviewIterations", ge=1, le=100)
    commands: CommandsConfig = Field(default_factory=CommandsConfig)
    timeout_seconds: float | None = Field(default=None, alias="timeoutSeconds", gt=0)


class AgentConfig(_Model):
    timeout_seconds: float | None = Field(default=None, alias="timeoutSeconds", gt=0)
    idle_timeout_seconds: float | None = Field(default=None, alias="idleTimeoutSeconds", gt=0)
    # How many times an unattended run (--yes) retries a failed agent call before giving up.
    retries: StrictInt = Field(default=2, ge=0, le=10)


class DevConfig(_Model):
    """The whole configuration (FR-3.2 plus the ``agent`` section)."""

    llm: str = Field(default="claude", min_length=1)
    paths: PathsConfig = Field(default_factory=PathsConfig)
    validation: ValidationConfig = Field(default_factory=ValidationConfig)
    verbose: StrictBool = False
    agent: AgentConfig = Field(default_factory=AgentConfig)

    def with_overrides(self, *, llm: str | None = None, verbose: bool | None = None) -> DevConfig:
        """A copy with the command-line values applied (FR-3.3: flags win)."""
        update: dict[str, Any] = {}
        if llm:
            update["llm"] = llm
        if verbose is not None:
            update["verbose"] = verbose
        return self.model_copy(update=update)


@record
class LoadedConfig:
    """The configuration and where it came from (None: defaults)."""

    config: DevConfig
    source: Path | None
    warnings: tuple[str, ...] = ()
    explicit: bool = False  # given with --config: the user's own choice
    raw: bytes | None = None  # the bytes parsed: what trust compares (issue 33)


def find_config(root: Path) -> tuple[Path | None, tuple[str, ...]]:
    """The project's config file (JSON first), and a warning when several exist."""
    for name in CONFIG_NAMES:  # a folder by that name is a mistake to say, not to skip
        if (root / name).exists() and not (root / name).is_file():
            raise JlgError(
                DevExitCode.CONFIGURATION,
                f"{root / name} is not a file",
                f"the configuration is a JSON or YAML file: remove or rename the folder {name}",
            )
    found = [root / name for name in CONFIG_NAMES if (root / name).is_file()]
    if not found:
        return None, ()
    warnings: tuple[str, ...] = ()
    if len(found) > 1:
        ignored = ", ".join(p.name for p in found[1:])
        warnings = (f"{found[0].name} is used; {ignored} ignored",)
    return found[0], warnings


def load_config(root: Path, explicit: Path | None = None) -> LoadedConfig:
    """Load ``explicit`` (``--config``) or the project's config file, or the defaults."""
    if explicit is not None:
        given = explicit if explicit.is_absolute() else Path.cwd() / explicit
        if not given.is_file():
            raise JlgError(
                DevExitCode.CONFIGURATION,
                f"config file not found: {given}",
                "check the --config path",
            )
        return LoadedConfig(parse_config_file(given), given, explicit=True)
    path, warnings = find_config(root)
    if path is None:
        return LoadedConfig(DevConfig(), None)
    raw = _read_bytes(path)
    return LoadedConfig(parse_config_bytes(raw, path), path, warnings, raw=raw)


def require_trusted_commands(loaded: LoadedConfig, env: Mapping[str, str] | None = None) -> None:
    """Refuse (exit 2) validation commands from a project file that is not trusted (issue 15).

    The commands of a repository's ``.aidevloop.*`` run only once ``jlgcli
    config trust`` recorded the file's path and SHA-256 in the user config; a
    file changed since needs trusting again. A file given with ``--config`` is
    the user's own choice and counts as trusted; a file without commands runs
    nothing and needs no trust. Call it before the first validation command runs.
    """
    from jlgcli.config.resolve import read_config_file, user_config_file
    from jlgcli.config.trust import TRUSTED, trust_state, untrusted_error

    commands = loaded.config.validation.commands
    declared = [kind for kind in VALIDATION_KINDS if getattr(commands, kind) is not None]
    if loaded.source is None or loaded.explicit or not declared:
        return
    user = read_config_file(user_config_file(env), "user")
    state = trust_state(loaded.source, user, raw=loaded.raw)  # the bytes parsed, not a reread
    if state != TRUSTED:
        error = untrusted_error(
            f"the validation commands ({', '.join(declared)})", loaded.source, state
        )
        raise JlgError(DevExitCode.CONFIGURATION, error.message, error.hint)


def parse_config_file(path: Path) -> DevConfig:
    """Read and validate one config file; every problem is a ``JlgError`` (exit 2) naming it."""
    return parse_config_bytes(_read_bytes(path), path)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise JlgError(DevExitCode.CONFIGURATION, f"cannot read config {path}: {exc}") from None


def parse_config_bytes(raw: bytes, path: Path) -> DevConfig:
    """Validate the bytes read from ``path`` (read once: trust hashes these, issue 33)."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise JlgError(DevExitCode.CONFIGURATION, f"cannot read config {path}: {exc}") from None
    data = _parse_yaml(text, path) if _is_yaml(path, text) else _parse_json(text, path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"invalid config {path}: the top level must be a mapping of keys, not {_kind(data)}",
        )
    try:
        return DevConfig.model_validate(data)
    except ValidationError as exc:
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"invalid config {path}:\n" + "\n".join(describe_errors(exc)),
            "keys and values are listed in docs/devloop.md",
        ) from None


def describe_errors(exc: ValidationError) -> list[str]:
    """One line per problem: ``  validation.maxReviewIterations: ... (got 0)``."""
    lines = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"]) or "(top level)"
        if err["type"] == "extra_forbidden":
            lines.append(f"  {where}: unknown key")
            continue
        got = f" (got {err['input']!r})" if "input" in err and err["type"] != "missing" else ""
        lines.append(f"  {where}: {err['msg']}{got}")
    return lines


def check_llm(llm: str, custom: tuple[str, ...] = (), source: str = "config") -> None:
    """Refuse an llm id that is not a jlgcli backend (exit 2), listing the known ones."""
    known = (*BUILTIN_BACKENDS, *custom)
    if llm not in known:
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"unknown llm {llm!r} (from {source})",
            f"use one of: {', '.join(known)}",
        )


def _is_yaml(path: Path, text: str) -> bool:
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return True
    if suffix == ".json":
        return False
    return not text.lstrip().startswith(("{", "["))


def _parse_json(text: str, path: Path) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"invalid JSON in {path}: line {exc.lineno} column {exc.colno}: {exc.msg}",
        ) from None


def _parse_yaml(text: str, path: Path) -> Any:
    try:
        import yaml  # type: ignore[import-untyped,unused-ignore]
    except ImportError:  # pragma: no cover - depends on the installation
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"cannot read {path}: YAML support needs PyYAML",
            "pip install pyyaml, or use .aidevloop.json",
        ) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise JlgError(DevExitCode.CONFIGURATION, f"invalid YAML in {path}: {exc}") from None


def _kind(value: object) -> str:
    return "a list" if isinstance(value, list) else type(value).__name__
