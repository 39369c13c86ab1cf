"""Run reports (schema/report.schema.json) as the site sees them: read, checked, named.

Everything in a report came from an adapter or a user's file and is
untrusted text: a report is used only after it keeps the schema, the names
made from it for files (`slug`) keep to `[a-z0-9-]`, and its grade is
computed again from the results of its vectors (`merge_reports.regrade`):
a hand-edited `grade` never earns a badge.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conformance import patterns
from conformance.report import json_report as report_json
from conformance.report.merge_reports import regrade
from conformance.runner.grading import LEVEL_NAMES

SLUG_CHARS = 48
_NOT_SLUG = patterns.compile("[^a-z0-9]+")


@dataclass(frozen=True)
class SiteReport:
    """One run report: one implementation's column of the matrix and its page."""

    path: Path
    data: dict
    label: str        # the run's name (a matrix file's `name`), else the describe name and version
    slug: str         # its file name on the site, unique among the reports

    @property
    def grade(self) -> dict:
        return self.data["grade"]

    @property
    def describe(self) -> dict:
        return self.data["implementation"]["describe"]

    @property
    def waived(self) -> list[str]:
        """Every vector whose MUST failure an expect-fail entry waives (at any level)."""
        return self.grade["levels"]["full"]["waived"]

    @property
    def shard(self) -> str | None:
        return self.data["options"].get("shard")

    def level_name(self, key: str) -> str:
        """`earned`, `claimed` or `reached_if_waived_fixed` as a level name, or "none"."""
        level = self.grade[key]
        return LEVEL_NAMES[level] if level else "none"


def _unverified(grade: dict, why: str) -> dict:
    """The grade of a report this kit cannot grade again (another corpus): no level earned."""
    levels = {level: {**status, "earned": False, "reached_if_waived_fixed": False}
              for level, status in grade["levels"].items()}
    return {**grade, "earned": None, "reached_if_waived_fixed": None, "levels": levels,
            "verdict": f"not graded here: {why}"}


def label(report: dict) -> str:
    name = report["options"].get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    described = report["implementation"]["describe"]
    return f"{described['name']} {described['version']}".strip() or report["implementation"]["command"]


def slugify(text: str) -> str:
    slug = _NOT_SLUG.sub("-", text.lower()).strip("-")[:SLUG_CHARS].strip("-")
    return slug or "implementation"


def unique_slugs(texts: list[str]) -> list[str]:
    """A slug per text, numbered (`-2`, `-3`) where two would be the same."""
    taken: set[str] = set()
    slugs = []
    for text in texts:
        base = slug = slugify(text)
        number = 1
        while slug in taken:
            number += 1
            slug = f"{base}-{number}"
        taken.add(slug)
        slugs.append(slug)
    return slugs


def load(paths: list[Path]) -> list[SiteReport] | str:
    """The reports at `paths`, in that order, or why one cannot be used."""
    loaded = []
    for path in paths:
        report = report_json.read(path)
        if isinstance(report, str):
            return report
        if not report["options"].get("shard"):  # a shard grades no level: nothing to trust
            record = regrade(Path(path), report)
            grade = _unverified(report["grade"], record) if isinstance(record, str) else report_json.build(record)["grade"]
            report = {**report, "grade": grade}
        loaded.append((Path(path), report))
    labels = [label(report) for _, report in loaded]
    return [SiteReport(path, report, text, slug)
            for (path, report), text, slug in zip(loaded, labels, unique_slugs(labels))]
