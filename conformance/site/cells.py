"""What a requirement shows for an implementation: the cells of the results matrix.

A vector checks some requirements; each failed check names the
requirements it checks and its strength (must, should, advisory). For one
requirement R and one vector that checks it, the state is:

| state | when |
|---|---|
| `fail` | a MUST check of R failed (not waived) |
| `error` | the adapter broke the protocol on the vector: nothing was shown |
| `waived` | it failed (a MUST check of R, or an error) and an expect-fail entry lists it: never a pass |
| `should` | only SHOULD checks of R failed: costs no level |
| `advisory` | only checks resting on an interpretation failed: costs no level |
| `pass` | every check of R held (other requirements' checks may have failed) |
| `na` | not applicable (the op, a MAY feature, a choice, the caps) |

A cell (requirement x implementation) shows the worst state over the
vectors that check R, in the order above, with how many vectors are in
each state; a section row shows the worst cell of its requirements.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from conformance.report.junit import _section_key
from conformance.runner.requirements import RequirementIndex
from conformance.site.reports import SiteReport

FAIL, ERROR, WAIVED, SHOULD, ADVISORY, PASS, NA = "fail", "error", "waived", "should", "advisory", "pass", "na"
NONE = "none"   # no vector of the report checks the requirement
STATES = (FAIL, ERROR, WAIVED, SHOULD, ADVISORY, PASS, NA)   # worst first
STATE_LABELS = {FAIL: "fail", ERROR: "error", WAIVED: "waived", SHOULD: "SHOULD only", ADVISORY: "advisory",
                PASS: "pass", NA: "n/a", NONE: "not run"}
STATE_HELP = {
    FAIL: "a MUST check failed: the level is not earned",
    ERROR: "the adapter broke the protocol (timeout, crash, bad answer): nothing was shown",
    WAIVED: "failed, and listed in the expect-fail file: not a pass, and the level is not earned",
    SHOULD: "only SHOULD checks failed: costs no level",
    ADVISORY: "only checks resting on an interpretation of the spec failed: costs no level",
    PASS: "every check held",
    NA: "not applicable: an op or MAY feature the implementation does not do, a choice it made otherwise, "
        "or caps too small for the case",
    NONE: "no vector of this run checks it",
}
LEVEL_ORDER = ("reader", "writer", "full", "validator")


def worst(states) -> str:
    present = set(states)
    return next((state for state in STATES if state in present), NONE)


def vector_state(vector: dict, requirement: str | None = None) -> str:
    """The state of one vector of a report, for one requirement it checks (or as a whole)."""
    result, waived = vector["result"], vector["outcome"] == "xfail"
    if result == "not_applicable":
        return NA
    if result == "error":
        return WAIVED if waived else ERROR
    if result == "pass":
        return PASS
    failures = vector["failures"]
    if requirement is not None and failures:
        failures = [failure for failure in failures if requirement in failure["requirements"]]
        if not failures:
            return PASS
    strengths = {failure["strength"] for failure in failures} or set(vector["failed_strengths"])
    if "must" in strengths or not strengths:
        return WAIVED if waived else FAIL
    return SHOULD if "should" in strengths else ADVISORY


def checked_requirements(vector: dict) -> list[str]:
    """The requirements a vector checks: its own, and any its failed checks name."""
    found = list(vector["requirements"])
    for failure in vector["failures"]:
        found.extend(failure["requirements"])
    return list(dict.fromkeys(found))


@dataclass
class Cell:
    """One requirement (or section) for one implementation."""

    unit: str = "vector"                                # what the counts count: vectors, or requirements
    state: str = NONE
    counts: Counter = field(default_factory=Counter)   # state -> how many

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def label(self) -> str:
        return STATE_LABELS[self.state]

    @property
    def summary(self) -> str:
        """For example `12 vectors: 10 pass, 2 fail`."""
        if not self.total:
            return STATE_HELP[NONE]
        parts = [f"{self.counts[state]} {STATE_LABELS[state]}" for state in STATES if self.counts[state]]
        return f"{self.total} {self.unit}{'s' if self.total != 1 else ''}: {', '.join(parts)}"

    def add(self, state: str, count: int = 1) -> None:
        self.counts[state] += count
        self.state = worst(self.counts)


@dataclass
class Row:
    """A requirement: its cell per implementation, and the vectors (with their state) behind each."""

    id: str
    section: str
    keyword: str | None        # None: a requirement the kit's index does not know
    text: str | None
    indexed_level: str | None  # the index's level: reader, writer, full or validator
    cells: list[Cell]
    vectors: dict[str, dict] = field(default_factory=dict)               # vector id -> its record (first seen)
    states: dict[str, list[str | None]] = field(default_factory=dict)    # vector id -> state per implementation

    @property
    def level(self) -> str:
        """The conformance level the requirement belongs to: the index's, else its lowest vector's."""
        if self.indexed_level in LEVEL_ORDER[:3]:
            return self.indexed_level
        return min((vector["level"] for vector in self.vectors.values()), key=_level_rank, default="full")

    @property
    def outcomes(self) -> list[str]:
        return sorted({cell.state for cell in self.cells}, key=_state_rank)

    def first_vector(self, column: int, state: str) -> str | None:
        """The first vector in `state` for the implementation of `column`: where its cell links to."""
        return next((vector_id for vector_id, states in self.states.items() if states[column] == state), None)

    def passing_everywhere(self) -> list[str]:
        """The vectors that passed for every implementation that ran them."""
        return [vector_id for vector_id, states in self.states.items()
                if all(state in (PASS, None) for state in states)]


@dataclass
class Section:
    id: str
    rows: list[Row]
    cells: list[Cell]

    @property
    def outcomes(self) -> list[str]:
        return sorted({state for row in self.rows for state in row.outcomes}, key=_state_rank)


def _state_rank(state: str) -> int:
    return STATES.index(state) if state in STATES else len(STATES)


def matrix(reports: list[SiteReport], index: RequirementIndex) -> list[Section]:
    """The results matrix: sections in spec order, each with its requirement rows."""
    rows: dict[str, Row] = {}
    for column, report in enumerate(reports):
        for vector in report.data["vectors"]:
            for requirement_id in checked_requirements(vector):
                row = rows.get(requirement_id)
                if row is None:
                    row = rows[requirement_id] = _row(requirement_id, vector, index, len(reports))
                state = vector_state(vector, requirement_id)
                row.cells[column].add(state)
                row.vectors.setdefault(vector["id"], vector)
                row.states.setdefault(vector["id"], [None] * len(reports))[column] = state
    sections: dict[str, Section] = {}
    for row in sorted(rows.values(), key=lambda row: (_section_key(row.section), row.id)):
        section = sections.setdefault(row.section, Section(row.section, [], [Cell("requirement") for _ in reports]))
        section.rows.append(row)
        for column, cell in enumerate(row.cells):
            if cell.state != NONE:
                section.cells[column].add(cell.state)
    return list(sections.values())


def _level_rank(level: str) -> int:
    return LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER)


def _row(requirement_id: str, vector: dict, index: RequirementIndex, columns: int) -> Row:
    requirement = index.get(requirement_id)
    cells = [Cell() for _ in range(columns)]
    if requirement is None:
        return Row(requirement_id, vector["sections"][0] if vector["sections"] else "?", None, None, None, cells)
    return Row(requirement_id, requirement.section, requirement.keyword, requirement.text, requirement.level, cells)


def top_section(section: str) -> str:
    return section.split(".", 1)[0]
