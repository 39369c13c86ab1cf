"""Run reports (schema/report.schema.json) as the site sees them: read, checked, named.

Everything in a report came from an adapter or a user's file and is
untrusted text: a report is used only after it keeps the schema, and the
names made from it for files (`slug`) keep to `[a-z0-9-]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from conformance.report import json_report as report_json
from conformance.runner.grading import LEVEL_NAMES

SLUG_CHARS = 48


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


def label(report: dict) -> str:
    name = report["options"].get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    described = report["implementation"]["describe"]
    return f"{described['name']} {described['version']}".strip() or report["implementation"]["command"]


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:SLUG_CHARS].strip("-")
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
        loaded.append((Path(path), report))
    labels = [label(report) for _, report in loaded]
    return [SiteReport(path, report, text, slug)
            for (path, report), text, slug in zip(loaded, labels, unique_slugs(labels))]
