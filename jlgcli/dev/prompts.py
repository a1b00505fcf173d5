"""Build the prompts sent to the agents by concatenating the context files (FR-6.2).

Each prompt is: the template from ``prompts/`` (placeholders such as
``{{notes_path}}`` filled in), then ``context/current-task.md``, then every
file named in the task's "Context references", then, for the review and fix
agents, the implementation notes, the validation results, the code diff and
(fix only) the review. Big files are cut at a limit and say so.
"""

from __future__ import annotations

from pathlib import Path

from jlgcli.dev.fsutil import read_text_capped
from jlgcli.dev.project import FIX_PROMPT, IMPLEMENT_PROMPT, REVIEW_PROMPT, ProjectPaths
from jlgcli.dev.report import Reporter
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.records import record

FILE_LIMIT = 200_000  # bytes of one context file put in a prompt
DIFF_LIMIT = 400_000  # characters of diff put in a prompt
TEMPLATES = {"implement": IMPLEMENT_PROMPT, "review": REVIEW_PROMPT, "fix": FIX_PROMPT}


@record
class PromptContext:
    """What a prompt is built from, besides the files on disk."""

    task_id: str
    references: tuple[str, ...]
    iteration: int = 1
    diff: str = ""
    validation: str = ""  # the latest validation results, as text


def resolve_reference(paths: ProjectPaths, ref: str) -> Path | None:
    """The file a reference names (relative to the root, else to ``docs/``), if inside the root."""
    for base in (paths.root, paths.docs):
        candidate = (base / ref).resolve()
        try:
            candidate.relative_to(paths.root)
        except ValueError:
            continue
        if candidate.is_file():
            return candidate
    return None


def fill_template(text: str, paths: ProjectPaths, ctx: PromptContext) -> str:
    """Replace the ``{{name}}`` placeholders of a template; unknown ones stay as written."""
    values = {
        "task_id": ctx.task_id,
        "iteration": str(ctx.iteration),
        "notes_path": paths.show(paths.notes),
        "review_path": paths.show(paths.review),
        "task_path": paths.show(paths.current_task),
        "plan_path": paths.show(paths.plan),
        "context_dir": paths.show(paths.context) + "/",
    }
    for name, value in values.items():
        text = text.replace("{{" + name + "}}", value)
    return text


def _file_section(title: str, path: Path, paths: ProjectPaths, reporter: Reporter) -> str:
    text, left = read_text_capped(path, FILE_LIMIT)
    reporter.file_op("read", paths.show(path))
    if left:
        text += f"\n… ({left} more bytes not shown)\n"
    return f"## {title}: `{paths.show(path)}`\n\n{text.rstrip()}\n"


def build_prompt(kind: str, paths: ProjectPaths, ctx: PromptContext, reporter: Reporter) -> str:
    """The full prompt for the ``implement``, ``review`` or ``fix`` agent."""
    template_path = paths.prompts / TEMPLATES[kind]
    try:
        template, _ = read_text_capped(template_path, FILE_LIMIT)
    except OSError as exc:
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"cannot read prompt template {template_path}: {exc.strerror or exc}",
            "delete it to get the default template back on the next run",
        ) from None
    reporter.file_op("read", paths.show(template_path))
    parts = [fill_template(template, paths, ctx).rstrip() + "\n", "---\n"]
    parts.append(_file_section("Current task", paths.current_task, paths, reporter))
    for ref in ctx.references:
        found = resolve_reference(paths, ref)
        if found is None:
            reporter.warn(f"context reference {ref!r} of {ctx.task_id} not found; not sent")
            continue
        parts.append(_file_section("Context reference", found, paths, reporter))
    if kind in ("review", "fix"):
        if paths.notes.is_file():
            parts.append(_file_section("Implementation notes", paths.notes, paths, reporter))
        if ctx.validation:
            parts.append(f"## Automated validation results\n\n{ctx.validation.rstrip()}\n")
        parts.append(_diff_section(ctx.diff))
    if kind == "fix" and paths.review.is_file():
        parts.append(_file_section("Review findings", paths.review, paths, reporter))
    return "\n".join(parts)


def _diff_section(diff: str) -> str:
    if not diff.strip():
        return "## Code diff\n\n(no changes)\n"
    shown = diff[:DIFF_LIMIT]
    more = (
        f"\n… ({len(diff) - DIFF_LIMIT} more characters of diff not shown)"
        if len(diff) > DIFF_LIMIT
        else ""
    )
    fence = "````" if "```" in shown else "```"
    return f"## Code diff\n\n{fence}diff\n{shown.rstrip()}\n{fence}{more}\n"
