"""The project's layout and its Phase 1 checks (FR-2.1, FR-2.2).

``check_documents`` verifies ``docs/`` and the mandatory documents (every
missing one is named, exit 2) and lists the missing optional documents;
``prepare_project``, run once every check has passed, creates ``context/``
and ``context/completed/`` and writes any missing prompt template from the
defaults shipped in ``jlgcli/dev/templates/``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from jlgcli.dev.config import DevConfig
from jlgcli.dev.fsutil import relative_to_root, write_text_atomic
from jlgcli.dev.report import Reporter
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.records import record

MANDATORY_DOCS: tuple[str, ...] = ("requirements.md", "architecture.md", "implementation-plan.md")
OPTIONAL_DOCS: tuple[str, ...] = (
    "data-models.md",
    "ui-design.md",
    "test-strategy.md",
    "code-style.md",
)
PROMPT_FILES: tuple[str, ...] = (
    "implement-task.prompt.md",
    "code-review.prompt.md",
    "fix-issues.prompt.md",
)
IMPLEMENT_PROMPT, REVIEW_PROMPT, FIX_PROMPT = PROMPT_FILES


@record
class ProjectPaths:
    """Where everything lives, from the project root and the ``paths`` config."""

    root: Path
    docs: Path
    context: Path
    prompts: Path

    @classmethod
    def from_config(cls, root: Path, config: DevConfig) -> ProjectPaths:
        root = root.resolve()
        return cls(
            root,
            root / config.paths.docs,
            root / config.paths.context,
            root / config.paths.prompts,
        )

    @property
    def plan(self) -> Path:
        return self.docs / "implementation-plan.md"

    @property
    def current_task(self) -> Path:
        return self.context / "current-task.md"

    @property
    def notes(self) -> Path:
        return self.context / "implementation-notes.md"

    @property
    def review(self) -> Path:
        return self.context / "review.md"

    @property
    def notices(self) -> Path:
        """The warnings already shown once in this project (FR-8.1, issue 36): this
        machine's state, kept under ``.jlgcli/`` where git ignores it (issue 49; it stayed
        untracked in ``context/``)."""
        return self.root / ".jlgcli" / "dev" / "notices.json"

    @property
    def completed(self) -> Path:
        return self.context / "completed"

    @property
    def live_context_files(self) -> tuple[Path, Path, Path]:
        """The three files archived at step 7 (and removed once committed)."""
        return (self.current_task, self.notes, self.review)

    @property
    def own_files(self) -> tuple[str, ...]:
        """jlgcli's own files in the work tree (shown form): the prompt templates and notices.

        Never the task's: left out of the reviewers' diff, of "code changed"
        on resume, and (untracked) of the task's commit (issue 36).
        """
        templates = tuple(self.show(self.prompts / name) for name in PROMPT_FILES)
        return (*templates, self.show(self.notices))

    def archive_dir(self, task_id: str) -> Path:
        return self.completed / task_id

    def show(self, path: Path) -> str:
        """A path as printed: relative to the root, with ``/``."""
        return relative_to_root(path, self.root)


def default_template(name: str) -> str:
    """The text of a default prompt template shipped with jlgcli."""
    folder = resources.files("jlgcli.dev").joinpath("templates")
    return folder.joinpath(name).read_text(encoding="utf-8")


def check_documents(paths: ProjectPaths) -> list[str]:
    """The FR-2 checks, writing nothing: raise ``JlgError`` (exit 2) on a missing mandatory doc.

    Returns the warnings about missing optional documents (FR-8.1).
    """
    if not paths.docs.is_dir():
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"docs directory not found: {paths.docs}",
            "create it with " + ", ".join(MANDATORY_DOCS) + " (or set paths.docs in the config)",
        )
    missing = [paths.docs / name for name in MANDATORY_DOCS if not (paths.docs / name).is_file()]
    if missing:
        listed = "\n".join(f"  {p}" for p in missing)
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"missing mandatory Phase 1 document(s):\n{listed}",
            "write them before running the development loop (see docs/devloop.md)",
        )
    return [
        f"optional document {paths.show(paths.docs / name)} not found; continuing"
        for name in OPTIONAL_DOCS
        if not (paths.docs / name).is_file()
    ]


def prepare_project(paths: ProjectPaths, reporter: Reporter) -> None:
    """Create ``context/``, ``context/completed/`` and any missing prompt template.

    Called once every check has passed, so a run that cannot start writes nothing.
    """
    for directory in (paths.context, paths.completed, paths.prompts):
        if not directory.is_dir():
            directory.mkdir(parents=True, exist_ok=True)
            reporter.file_op("mkdir", paths.show(directory))
    for name in PROMPT_FILES:
        target = paths.prompts / name
        if not target.is_file():
            write_text_atomic(target, default_template(name))
            reporter.info(f"created default prompt {paths.show(target)}")
