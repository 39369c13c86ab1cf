"""The boundary-case index, `vectors/boundaries.json`: which boundary cases apply to which MUST.

A boundary kind (equal dates, sizes around a cap, the order a list is
stored in, ...) is a vector tag, `boundary-<name>`. The index names the
kinds and says, for every testable MUST requirement that vectors check,
which kinds apply to it, so that `memoir-conform coverage` can show the
ones a requirement has deciding vectors for and the ones it still lacks.
Loading never raises: problems come back as values, like the requirement
index's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from conformance import resources
from conformance.corpus.boundary_subjects import MEMBER_SOURCES, Subject
from conformance.corpus.requirements import IndexProblem, Requirement

BOUNDARY_FILE = "boundaries.json"
TAG_PREFIX = "boundary-"


@dataclass(frozen=True)
class BoundaryKind:
    """One kind of boundary case; vectors of this kind carry `tag`."""

    name: str
    description: str

    @property
    def tag(self) -> str:
        return TAG_PREFIX + self.name


@dataclass(frozen=True)
class BoundaryIndex:
    kinds: tuple[BoundaryKind, ...]
    applies: dict[str, tuple[str, ...]]     # requirement id -> names of the kinds that apply
    subjects: tuple[Subject, ...] = ()      # ops and lists every member of which needs its kinds

    def kind(self, name: str) -> BoundaryKind | None:
        return next((kind for kind in self.kinds if kind.name == name), None)


def default_path() -> Path:
    return resources.vectors_dir() / BOUNDARY_FILE


def load_boundaries(path: Path | None = None) -> tuple[BoundaryIndex | None, list[IndexProblem]]:
    """The index at `path` (default: the kit's), or None and why it cannot be read."""
    path = Path(path) if path is not None else default_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, [IndexProblem(path.name, f"not found at {path}")]
    except (OSError, UnicodeDecodeError) as error:
        return None, [IndexProblem(path.name, f"cannot read: {error}")]
    except json.JSONDecodeError as error:
        return None, [IndexProblem(path.name, f"not JSON: {error.msg} (line {error.lineno}, column {error.colno})")]
    kinds_data = data.get("kinds") if isinstance(data, dict) else None
    applies_data = data.get("applies") if isinstance(data, dict) else None
    if not isinstance(kinds_data, list) or not isinstance(applies_data, dict):
        return None, [IndexProblem(path.name, 'must be an object with "kinds" (a list) and "applies" (an object)')]
    problems: list[IndexProblem] = []
    kinds = []
    for position, row in enumerate(kinds_data):
        if not (isinstance(row, dict) and isinstance(row.get("name"), str) and isinstance(row.get("description"), str)):
            problems.append(IndexProblem(f"{path.name} kinds[{position}]", "a kind is {name, description}, both strings"))
            continue
        kinds.append(BoundaryKind(row["name"], row["description"]))
    names = {kind.name for kind in kinds}
    applies: dict[str, tuple[str, ...]] = {}
    for rid, listed in applies_data.items():
        if not (isinstance(listed, list) and all(isinstance(name, str) for name in listed)):
            problems.append(IndexProblem(f"{path.name} applies[{rid}]", "must be a list of kind names"))
            continue
        unknown = sorted(set(listed) - names)
        if unknown:
            problems.append(IndexProblem(f"{path.name} applies[{rid}]", f"unknown kind(s): {', '.join(unknown)}"))
        applies[rid] = tuple(name for name in listed if name in names)
    subjects = []
    for position, row in enumerate(data.get("subjects", [])):
        where = f"{path.name} subjects[{position}]"
        if not (isinstance(row, dict) and all(isinstance(row.get(key), str) for key in ("name", "description", "members"))
                and isinstance(row.get("kinds"), list) and all(isinstance(name, str) for name in row["kinds"])):
            problems.append(IndexProblem(where, "a subject is {name, description, members, kinds (a list of kind names)}"))
            continue
        if row["members"] not in MEMBER_SOURCES:
            problems.append(IndexProblem(where, f"members must be one of {', '.join(MEMBER_SOURCES)}"))
            continue
        unknown = sorted(set(row["kinds"]) - names)
        if unknown:
            problems.append(IndexProblem(where, f"unknown kind(s): {', '.join(unknown)}"))
        subjects.append(Subject(row["name"], row["description"], row["members"],
                                tuple(name for name in row["kinds"] if name in names)))
    return BoundaryIndex(tuple(kinds), applies, tuple(subjects)), problems


def index_problems(index: BoundaryIndex, requirements: list[Requirement]) -> list[IndexProblem]:
    """Every testable MUST that vectors check is classified, and nothing else is."""
    wanted = {r.id for r in requirements if r.mandatory and r.checked_by_vectors}
    problems = [IndexProblem(BOUNDARY_FILE, f"{rid} is not a testable MUST of the requirement index")
                for rid in sorted(set(index.applies) - wanted)]
    problems += [IndexProblem(BOUNDARY_FILE, f"{rid} is not classified: list the boundary kinds that apply to it, or []")
                 for rid in sorted(wanted - set(index.applies))]
    return problems
