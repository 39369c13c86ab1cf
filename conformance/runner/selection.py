"""Choosing which vectors a run executes: the command line's filters and `--spec`.

A vector counts for spec version V only when every requirement it names
existed in V (the requirement's `since` <= V); later vectors are left out
of the run, so a `--spec 0.1` verdict is about v0.1 alone.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from conformance.runner.requirements import RequirementIndex
from conformance.runner.vectors import LEVELS, Vector


@dataclass(frozen=True)
class Filters:
    level: str | None = None            # this level and the ones below it
    sections: tuple[str, ...] = ()      # a section and its subsections
    tags: tuple[str, ...] = ()          # any of these tags
    pattern: str | tuple[str, ...] | None = None   # -k (repeatable, any of them): glob on the id, or
                                                   # substring of id or title

    @property
    def patterns(self) -> tuple[str, ...]:
        return (self.pattern,) if isinstance(self.pattern, str) else tuple(self.pattern or ())

    @property
    def active(self) -> bool:
        return bool(self.level or self.sections or self.tags or self.pattern)

    @property
    def narrowed(self) -> bool:
        """Filters other than `--level`: such a run grades no level. `--level L` alone
        selects every vector the levels up to L depend on, so those levels are graded."""
        return bool(self.sections or self.tags or self.pattern)


def in_section(vector: Vector, section: str) -> bool:
    return any(own == section or own.startswith(section + ".") for own in vector.sections)


def matches_pattern(vector: Vector, pattern: str) -> bool:
    if any(char in pattern for char in "*?["):
        return fnmatch.fnmatchcase(vector.id, pattern)
    lowered = pattern.lower()
    return lowered in vector.id.lower() or lowered in vector.title.lower()


def selected(vector: Vector, filters: Filters) -> bool:
    if filters.level and vector.level_rank > LEVELS.index(filters.level):
        return False
    if filters.sections and not any(in_section(vector, section) for section in filters.sections):
        return False
    if filters.tags and not set(filters.tags) & set(vector.tags):
        return False
    if filters.patterns and not any(matches_pattern(vector, pattern) for pattern in filters.patterns):
        return False
    return True


def select(vectors: list[Vector], filters: Filters, index: RequirementIndex, spec: str) -> tuple[list[Vector], int]:
    """The vectors to run, and how many were left out as newer than `spec`."""
    chosen, newer = [], 0
    for vector in vectors:
        if not selected(vector, filters):
            continue
        if not index.existed_in(vector.requirements + (vector.base.requirements if vector.base else ()), spec):
            newer += 1
            continue
        chosen.append(vector)
    return chosen, newer
