"""How well the vectors cover the requirement index.

A requirement is *covered* when some check that does not depend on an
interpretation checks it (a check checks its own `requirements`, else its
vector's): checks resting on an interpretation are advisory
(docs/spec-ambiguities.md), so a requirement that only they check counts
as advisory-only, not covered. File-shape rules (level `validator`)
are checked by `memoir-conform validate`, not by vectors; they are listed
with the validator rules of their section and kept out of the gate.

Boundary cases (`vectors/boundaries.json`): for each MUST, the kinds of
boundary that apply to it, and for each kind the vectors that carry the
kind's tag and check the requirement with a check resting on no
interpretation. A kind that applies but has no such vector is a boundary gap.

`--spec 0.1` looks at the spec as it was: requirements introduced later
are left out, and so are vectors citing any of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from conformance import SPEC_VERSION
from conformance.corpus import boundary_subjects
from conformance.corpus.boundaries import TAG_PREFIX, BoundaryIndex
from conformance.corpus.requirements import Requirement, section_key
from conformance.corpus.requirements import version_key
from conformance.runner.vectors import LEVELS, Vector


@dataclass(frozen=True)
class BoundaryCoverage:
    """One boundary kind that applies to a requirement, and the deciding vectors of that kind citing it."""

    kind: str
    vectors: tuple[str, ...]
    levels: tuple[str, ...]         # the levels (reader, writer, full) of those vectors

    @property
    def covered(self) -> bool:
        return bool(self.vectors)

    def to_json(self) -> dict:
        return {"kind": self.kind, "vectors": list(self.vectors), "levels": list(self.levels)}


@dataclass(frozen=True)
class RequirementCoverage:
    """One requirement and the vectors that cite it."""

    requirement: Requirement
    vectors: tuple[str, ...]        # ids of vectors with a check of it that rests on no interpretation
    advisory: tuple[str, ...]       # ids of vectors whose only checks of it are advisory
    validator_rules: tuple[str, ...] = ()   # rule ids of the same section (validator-level only)
    boundaries: tuple[BoundaryCoverage, ...] = ()   # the boundary kinds that apply to it

    @property
    def status(self) -> str:
        """covered, advisory-only, missing, untestable or validator."""
        if not self.requirement.testable:
            return "untestable"
        if self.requirement.level == "validator":
            return "validator"
        if self.vectors:
            return "covered"
        return "advisory-only" if self.advisory else "missing"

    def to_json(self) -> dict:
        requirement = self.requirement
        data = {
            "id": requirement.id, "section": requirement.section, "keyword": requirement.keyword,
            "level": requirement.level, "since": requirement.since, "testable": requirement.testable,
            "status": self.status, "vectors": list(self.vectors), "advisory_vectors": list(self.advisory),
        }
        if requirement.untestable_reason:
            data["untestable_reason"] = requirement.untestable_reason
        if self.validator_rules:
            data["validator_rules"] = list(self.validator_rules)
        if self.boundaries:
            data["boundaries"] = [boundary.to_json() for boundary in self.boundaries]
        return data


@dataclass(frozen=True)
class Tally:
    """Testable vector-checked requirements of one strength, and how many are covered."""

    strength: str                   # MUST or SHOULD
    testable: int
    covered: int
    untestable: int
    validator: int

    def line(self) -> str:
        return (f"{self.strength}: {self.covered}/{self.testable} testable covered "
                f"({self.untestable} untestable with a reason, {self.validator} validator rules)")


@dataclass
class CoverageReport:
    spec: str
    rows: list[RequirementCoverage]
    # vector id -> requirement ids it cites that the index does not have
    unknown_references: dict[str, list[str]] = field(default_factory=dict)
    # per member of a boundary subject (an op with a text argument, a keyed list, ...) and kind
    subject_cases: list[boundary_subjects.MemberCoverage] = field(default_factory=list)

    def tally(self, strength: str) -> Tally:
        rows = [row for row in self.rows if row.requirement.strength == strength]
        checked = [row for row in rows if row.requirement.checked_by_vectors]
        return Tally(
            strength=strength,
            testable=len(checked),
            covered=sum(1 for row in checked if row.status == "covered"),
            untestable=sum(1 for row in rows if not row.requirement.testable),
            validator=sum(1 for row in rows if row.status == "validator"),
        )

    def summary_line(self) -> str:
        return "; ".join(self.tally(strength).line() for strength in ("MUST", "SHOULD"))

    def boundary_cases(self) -> list[tuple[RequirementCoverage, BoundaryCoverage]]:
        return [(row, boundary) for row in self.rows for boundary in row.boundaries]

    def boundary_gaps(self) -> list[tuple[str, str]]:
        """(requirement id, kind) of every boundary case that applies but has no deciding vector."""
        return [(row.requirement.id, boundary.kind) for row, boundary in self.boundary_cases() if not boundary.covered]

    def boundary_line(self) -> str:
        cases = self.boundary_cases()
        covered = sum(1 for _, boundary in cases if boundary.covered)
        return f"boundary cases: {covered}/{len(cases)} covered (requirement x kind, vectors/boundaries.json)"

    def subject_gaps(self) -> list[boundary_subjects.MemberCoverage]:
        """Every member of a boundary subject without a deciding vector of a kind it needs."""
        return [case for case in self.subject_cases if not case.covered]

    def subject_line(self) -> str:
        covered = sum(1 for case in self.subject_cases if case.covered)
        return f"boundary subjects: {covered}/{len(self.subject_cases)} covered (op or list x kind, vectors/boundaries.json)"

    def gaps(self, strength: str = "MUST") -> list[RequirementCoverage]:
        """Testable, vector-checked requirements of this strength without a non-ambiguous vector."""
        return [row for row in self.rows
                if row.requirement.strength == strength and row.requirement.checked_by_vectors
                and row.status != "covered"]

    def sections(self) -> list[tuple[str, list[RequirementCoverage]]]:
        grouped: dict[str, list[RequirementCoverage]] = {}
        for row in self.rows:
            grouped.setdefault(row.requirement.section, []).append(row)
        return sorted(grouped.items(), key=lambda item: section_key(item[0]))

    def to_json(self) -> dict:
        return {
            "spec": self.spec,
            "summary": {strength.lower(): self.tally(strength).__dict__ for strength in ("MUST", "SHOULD")},
            "summary_line": self.summary_line(),
            "gaps": [row.requirement.id for row in self.gaps("MUST") + self.gaps("SHOULD")],
            "boundary_summary": self.boundary_line(),
            "boundary_gaps": [f"{rid}: {kind}" for rid, kind in self.boundary_gaps()],
            "subject_summary": self.subject_line(),
            "subject_gaps": [f"{case.member}: {case.kind}" for case in self.subject_gaps()],
            "subjects": [case.to_json() for case in self.subject_cases],
            "unknown_references": self.unknown_references,
            "requirements": [row.to_json() for _, rows in self.sections() for row in rows],
        }


def _boundaries(index: BoundaryIndex | None, rid: str, deciding: list[Vector]) -> tuple[BoundaryCoverage, ...]:
    if index is None:
        return ()
    found = []
    for name in index.applies.get(rid, ()):
        tag = index.kind(name).tag
        of_kind = [vector for vector in deciding if tag in vector.tags]
        levels = sorted({vector.level for vector in of_kind}, key=LEVELS.index)
        found.append(BoundaryCoverage(name, tuple(sorted(vector.id for vector in of_kind)), tuple(levels)))
    return tuple(found)


def existed_in(requirement: Requirement, spec: str) -> bool:
    return version_key(requirement.since) <= version_key(spec)


def compute(requirements: Iterable[Requirement], vectors: Iterable[Vector], spec: str = SPEC_VERSION,
            rules_by_section: dict[str, list[str]] | None = None,
            boundaries: BoundaryIndex | None = None) -> CoverageReport:
    """Coverage of `requirements` (as of spec version `spec`) by `vectors`,
    with the boundary cases of `boundaries` when given."""
    everything = {requirement.id: requirement for requirement in requirements}
    wanted = {rid: requirement for rid, requirement in everything.items() if existed_in(requirement, spec)}
    citing: dict[str, list[str]] = {rid: [] for rid in wanted}
    advisory: dict[str, list[str]] = {rid: [] for rid in wanted}
    unknown: dict[str, list[str]] = {}
    deciding: dict[str, list[Vector]] = {rid: [] for rid in wanted}
    for vector in vectors:
        missing = [rid for rid in vector.requirements if rid not in everything]
        if missing:
            unknown[vector.id] = missing
        # A vector citing a later requirement does not exist in that spec version.
        if any(rid in everything and rid not in wanted for rid in vector.requirements):
            continue
        decided = {rid for e in vector.expectations() if not e.ambiguity for rid in e.requirements}
        advised = {rid for e in vector.expectations() if e.ambiguity for rid in e.requirements} - decided
        for rid in sorted(decided & set(wanted)):
            citing[rid].append(vector.id)
            deciding[rid].append(vector)
        for rid in sorted(advised & set(wanted)):
            advisory[rid].append(vector.id)
    rules_by_section = rules_by_section or {}
    rows = [
        RequirementCoverage(
            requirement, tuple(sorted(citing[rid])), tuple(sorted(advisory[rid])),
            tuple(rules_by_section.get(requirement.section, ())) if requirement.level == "validator" else (),
            _boundaries(boundaries, rid, deciding[rid]),
        )
        for rid, requirement in wanted.items()
    ]
    rows.sort(key=lambda row: (section_key(row.requirement.section), row.requirement.id))
    cases = (boundary_subjects.compute(boundaries.subjects, vectors, lambda kind: TAG_PREFIX + kind)
             if boundaries is not None else [])
    return CoverageReport(spec, rows, unknown, cases)


def validator_rules_by_section() -> dict[str, list[str]]:
    """Ids of the memoir validator's rules, by spec section ("App. A" is "A");
    empty when the validator is not installed."""
    try:
        from conformance.validator.rules import all_rules
    except ImportError:
        return {}
    grouped: dict[str, list[str]] = {}
    for rule in all_rules():
        if getattr(rule, "format", "memoir") != "memoir":
            continue
        section = rule.section.replace("App.", "").strip()
        grouped.setdefault(section, []).append(rule.id)
    return grouped
