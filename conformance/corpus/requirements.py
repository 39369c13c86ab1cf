"""The requirement index, `vectors/requirements.json`: every MUST and SHOULD of the spec.

Each entry is one normative statement of memoir-format v0.1.2, split where
its parts are tested separately, with a stable id that vectors cite. This
module loads the index into typed `Requirement` values and checks that it
is sane; it never raises on a bad file: problems come back as values.

`vectors check` and `coverage` use it directly; the runner grades through
`conformance.runner.requirements`, a view built on it.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from conformance import SPEC_VERSIONS, patterns, resources

INDEX_FILE = "requirements.json"
KEYWORDS = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "REQUIRED")
MANDATORY_KEYWORDS = frozenset({"MUST", "MUST NOT", "REQUIRED"})
# reader / writer / full are the conformance levels of spec 8; `validator`
# marks a rule about the shape of a file, which the validator checks.
LEVELS = ("reader", "writer", "full", "validator")
IMPLEMENTATION_LEVELS = ("reader", "writer", "full")
_ID = patterns.compile(r"S(?:[0-9]+(?:\.[0-9]+)*|A)-[a-z0-9]+(?:-[a-z0-9]+)*")
_FIELDS = ("id", "section", "text", "keyword", "level", "since", "testable")


@dataclass(frozen=True)
class Requirement:
    """One normative statement of the spec."""

    id: str
    section: str
    text: str               # the spec's words (whitespace collapsed)
    keyword: str            # MUST, MUST NOT, SHOULD, SHOULD NOT or REQUIRED
    level: str              # reader, writer, full or validator
    since: str              # the spec version that introduced it
    testable: bool          # observable by a black-box kit
    untestable_reason: str | None = None
    note: str | None = None

    @property
    def mandatory(self) -> bool:
        return self.keyword in MANDATORY_KEYWORDS

    @property
    def strength(self) -> str:
        """"MUST" for MUST / MUST NOT / REQUIRED, "SHOULD" for SHOULD / SHOULD NOT."""
        return "MUST" if self.mandatory else "SHOULD"

    @property
    def checked_by_vectors(self) -> bool:
        """Testable through the adapter protocol (not a file-shape rule of the validator)."""
        return self.testable and self.level in IMPLEMENTATION_LEVELS


@dataclass(frozen=True)
class IndexProblem:
    """Why the index, or one entry of it, is not usable."""

    where: str     # "requirements.json" or "requirements.json[12] (S5.2-newest-wins)"
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def default_path() -> Path:
    return resources.vectors_dir() / INDEX_FILE


def load_index(path: Path | None = None) -> tuple[list[Requirement], list[IndexProblem]]:
    """The requirements of the index at `path` (default: the kit's), and its problems.

    Entries with a problem are left out; a file that cannot be read gives no
    requirements and one problem.
    """
    path = Path(path) if path is not None else default_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [], [IndexProblem(path.name, f"not found at {path}")]
    except (OSError, UnicodeDecodeError) as error:
        return [], [IndexProblem(path.name, f"cannot read: {error}")]
    except json.JSONDecodeError as error:
        return [], [IndexProblem(path.name, f"not JSON: {error.msg} (line {error.lineno}, column {error.colno})")]
    if not isinstance(data, list):
        return [], [IndexProblem(path.name, "must be a JSON list of requirement objects")]
    requirements, problems = [], []
    for position, row in enumerate(data):
        where = f"{path.name}[{position}]"
        requirement = _requirement(row, where, problems)
        if requirement is not None:
            requirements.append(requirement)
    problems.extend(index_problems(requirements, where=path.name))
    return requirements, problems


def _requirement(row: object, where: str, problems: list[IndexProblem]) -> Requirement | None:
    if not isinstance(row, dict):
        problems.append(IndexProblem(where, "an entry must be an object"))
        return None
    if isinstance(row.get("id"), str):
        where = f"{where} ({row['id']})"
    missing = [name for name in _FIELDS if name not in row]
    if missing:
        problems.append(IndexProblem(where, f"missing field(s): {', '.join(missing)}"))
        return None
    wrong = [name for name in _FIELDS if name != "testable" and not isinstance(row[name], str)]
    if wrong or not isinstance(row["testable"], bool):
        problems.append(IndexProblem(where, f"wrong type: {', '.join(wrong) or 'testable'} "
                                            "(strings everywhere, testable a boolean)"))
        return None
    unknown = sorted(set(row) - set(_FIELDS) - {"untestable_reason", "note"})
    if unknown:
        problems.append(IndexProblem(where, f"unknown field(s): {', '.join(unknown)}"))
    return Requirement(
        id=row["id"], section=row["section"], text=row["text"], keyword=row["keyword"],
        level=row["level"], since=row["since"], testable=row["testable"],
        untestable_reason=row.get("untestable_reason"), note=row.get("note"),
    )


def index_problems(requirements: list[Requirement], where: str = INDEX_FILE,
                   spec_text: str | None = None) -> list[IndexProblem]:
    """Sanity of an index: unique well-formed ids, known keywords, levels and
    versions, a reason for every untestable entry, and (given the spec's
    text) every `text` quoted verbatim from the spec."""
    problems = []
    counts = Counter(requirement.id for requirement in requirements)
    for duplicate in sorted(name for name, count in counts.items() if count > 1):
        problems.append(IndexProblem(where, f"duplicate id {duplicate!r}"))
    spec = normalize_space(spec_text) if spec_text is not None else None
    for requirement in requirements:
        at = f"{where} ({requirement.id})"
        if not _ID.fullmatch(requirement.id):
            problems.append(IndexProblem(at, "id must look like S<section>-<words>, e.g. S5.3.1-hidden-sticky"))
        elif not requirement.id.startswith(f"S{requirement.section}-"):
            problems.append(IndexProblem(at, f"id does not start with its section {requirement.section!r}"))
        if requirement.keyword not in KEYWORDS:
            problems.append(IndexProblem(at, f"keyword {requirement.keyword!r} is not one of {', '.join(KEYWORDS)}"))
        elif not patterns.compile(rf"\b{requirement.keyword.split()[0]}\b").search(requirement.text) and not requirement.note:
            problems.append(IndexProblem(at, f"text has no {requirement.keyword} and no note says where it comes from"))
        if requirement.level not in LEVELS:
            problems.append(IndexProblem(at, f"level {requirement.level!r} is not one of {', '.join(LEVELS)}"))
        if requirement.since not in SPEC_VERSIONS:
            problems.append(IndexProblem(at, f"since {requirement.since!r} is not one of {', '.join(SPEC_VERSIONS)}"))
        if not requirement.testable and not (requirement.untestable_reason or "").strip():
            problems.append(IndexProblem(at, "untestable without an untestable_reason"))
        if requirement.testable and requirement.untestable_reason:
            problems.append(IndexProblem(at, "testable but has an untestable_reason"))
        if not requirement.text.strip():
            problems.append(IndexProblem(at, "empty text"))
        elif spec is not None and normalize_space(requirement.text) not in spec:
            problems.append(IndexProblem(at, "text is not quoted verbatim from the spec"))
    return problems


def version_key(version: str) -> tuple[int, ...]:
    """'0.1.2' -> (0, 1, 2); '0.1' == '0.1.0'. Raises ValueError on a non-version."""
    parts = [int(part) for part in version.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def normalize_space(text: str) -> str:
    """Whitespace runs as one space: the spec wraps its lines, the index does not."""
    return " ".join(text.split())


def section_key(section: str) -> tuple:
    """Sort order of sections: numbered ones numerically, appendices after."""
    head = section.split(".")[0]
    if head.isdigit():
        return (0, *(int(part) for part in section.split(".")))
    return (1, section)


def by_id(requirements: list[Requirement]) -> dict[str, Requirement]:
    return {requirement.id: requirement for requirement in requirements}
