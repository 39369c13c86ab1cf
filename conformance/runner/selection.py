"""Choosing which vectors a run executes: the command line's filters and `--spec`.

A `--spec V` run grades nothing newer than V, so that a `--spec 0.1`
verdict is about v0.1 alone:

- a check that cites a requirement newer than V (its `since`), or that
  looks at a session list V did not have (`parked_actions`,
  `completed_goals`: v0.1.2), is not graded;
- a vector left with nothing to grade is left out of the run (and counted);
  so is one whose step refusals or runner-driven check cite a newer
  requirement, since those check all of its requirements;
- a derived vector (5.4) compares only what V renders (`Vector.spec`).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, replace

from conformance.runner.compare import parse_pointer
from conformance.runner.requirements import RequirementIndex, version_key
from conformance.runner.vectors import LEVELS, Vector

# Session lists a later version of the spec introduced (spec Appendix C).
LIST_SINCE = {"parked_actions": "0.1.2", "completed_goals": "0.1.2"}


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


def newer_lists(spec: str) -> frozenset[str]:
    """The session lists spec version `spec` did not have."""
    return frozenset(name for name, since in LIST_SINCE.items() if version_key(since) > version_key(spec))


def for_spec(vector: Vector, index: RequirementIndex, spec: str) -> Vector | None:
    """`vector` with only the checks that version `spec` grades, or None when
    nothing of it is graded in that version."""
    requirements = vector.requirements + (vector.base.requirements if vector.base else ())
    unknown_lists = newer_lists(spec)
    if vector.derived:
        if not index.existed_in(requirements, spec):
            return None
        return replace(vector, spec=spec) if unknown_lists else vector

    def graded(check: dict) -> bool:
        cited = tuple(check.get("requirements") or vector.requirements)
        return index.existed_in(cited, spec) and not unknown_lists & set(parse_pointer(check["path"]))

    kept = tuple(check for check in vector.expect if graded(check))
    if kept == vector.expect:
        return vector
    implicit = len(vector.expectations()) - len(vector.expect)
    if not kept or (implicit and not index.existed_in(vector.requirements, spec)):
        return None
    cited = {rid for check in kept for rid in (check.get("requirements") or vector.requirements)}
    return replace(vector, expect=kept, requirements=tuple(rid for rid in vector.requirements if rid in cited))


def select(vectors: list[Vector], filters: Filters, index: RequirementIndex, spec: str) -> tuple[list[Vector], int]:
    """The vectors to run (each with the checks `spec` grades), and how many
    were left out as newer than `spec`."""
    chosen, newer = [], 0
    for vector in vectors:
        if not selected(vector, filters):
            continue
        trimmed = for_spec(vector, index, spec)
        if trimmed is None:
            newer += 1
            continue
        chosen.append(trimmed)
    return chosen, newer
