"""Scaffolding a new vector: a valid starting point for a spec author to edit.

The skeleton is valid against `schema/vector.schema.json`, so `vectors
check` accepts it at once; its title starts with "TODO" (which `vectors
check` warns about) and its `requirements` list every testable requirement
of the section at that level, for the author to keep the ones the vector
tests and delete the rest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from jsonschema.exceptions import best_match

from conformance import linear_schema, patterns, resources
from conformance.corpus.requirements import IMPLEMENTATION_LEVELS, Requirement

TODO = "TODO"
DEFAULT_OP = {"reader": "read_store", "writer": "write", "full": "merge_sessions"}
AREA = {"read_store": "read", "write": "write", "merge_sessions": "merge", "merge_stores": "merge",
        "concurrent_writes": "write", "atomic_writes": "write", "atomic_merges": "merge"}
_EMPTY_SESSION = {"version": 1, "current": {}}
_SECTION = patterns.compile(r"[0-9]+(\.[0-9]+)*|[A-Z](\.[0-9]+)*")
_VECTOR_ID = patterns.compile(r"[a-z0-9][a-z0-9._-]*")


class ScaffoldError(Exception):
    """The scaffold cannot be made from these arguments (a usage error)."""


@dataclass(frozen=True)
class Scaffold:
    vector: dict
    candidates: tuple[str, ...]   # the requirement ids offered


def section_requirements(requirements: list[Requirement], section: str, level: str) -> list[Requirement]:
    """Testable requirements of `section` (and its subsections) checkable at `level`
    (levels are cumulative: a full vector may test reader and writer rules)."""
    allowed = IMPLEMENTATION_LEVELS[: IMPLEMENTATION_LEVELS.index(level) + 1]
    return [r for r in requirements
            if (r.section == section or r.section.startswith(section + ".")) and r.testable and r.level in allowed]


def skeleton_input(op: str) -> dict:
    if op == "merge_sessions":
        return {"local": dict(_EMPTY_SESSION), "remote": dict(_EMPTY_SESSION)}
    if op == "read_store":
        return {"store": {"files": {"session.json": dict(_EMPTY_SESSION)}}}
    if op == "write":
        return {"store": {"files": {"session.json": dict(_EMPTY_SESSION)}},
                "steps": [{"op": "add_next_action", "args": {"text": "an action"}}]}
    if op == "merge_stores":
        return {"local": {"files": {"session.json": dict(_EMPTY_SESSION)}},
                "remote": {"files": {"session.json": dict(_EMPTY_SESSION)}}}
    if op == "concurrent_writes":
        return {"processes": 2, "actions_per_process": 5}
    if op == "atomic_writes":
        return {"writes": 20}
    if op == "atomic_merges":
        return {"merges": 20, "local": {"files": {"session.json": dict(_EMPTY_SESSION)}},
                "remote": {"files": {"session.json": dict(_EMPTY_SESSION)}}}
    raise ScaffoldError(f"unknown op {op!r}")


def skeleton_expect(op: str) -> list[dict]:
    """A placeholder check that names the usual place to look; the author replaces it."""
    path = {"read_store": "/session/live/next_actions", "merge_sessions": "/live/next_actions",
            "merge_stores": "/live/next_actions", "write": "/session/current/next_actions"}.get(op)
    if path is None:
        return []
    return [{"path": path, "identities": [], "note": f"{TODO}: replace with checks that fail on the bug this vector is for"}]


def make_id(op: str, section: str, taken: set[str]) -> str:
    base = f"{AREA[op]}.s{section.replace('.', '-').lower()}.todo"
    number = 1
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


def scaffold(requirements: list[Requirement], *, level: str, section: str, op: str | None = None,
             vector_id: str | None = None, taken_ids: set[str] | None = None) -> Scaffold:
    """A schema-valid skeleton vector for `section` at `level`."""
    if level not in IMPLEMENTATION_LEVELS:
        raise ScaffoldError(f"level must be one of {', '.join(IMPLEMENTATION_LEVELS)}")
    if not _SECTION.fullmatch(section):
        raise ScaffoldError(f"{section!r} is not a spec section (like 5.3.2, or A for the appendix)")
    candidates = section_requirements(requirements, section, level)
    if not candidates:
        known = sorted({r.section for r in requirements if r.testable and r.level != "validator"})
        raise ScaffoldError(
            f"no testable {level}-level requirement in section {section} "
            f"(sections with some: {', '.join(known)})")
    op = op or DEFAULT_OP[level]
    if op not in AREA:
        raise ScaffoldError(f"op must be one of {', '.join(AREA)}")
    taken = taken_ids or set()
    vector_id = vector_id or make_id(op, section, taken)
    if not _VECTOR_ID.fullmatch(vector_id):
        raise ScaffoldError(f"id {vector_id!r} must match [a-z0-9][a-z0-9._-]*")
    if vector_id in taken:
        raise ScaffoldError(f"id {vector_id!r} is already used in the corpus")
    vector = {
        "id": vector_id,
        "title": f"{TODO}: one sentence saying what must hold",
        "sections": [section],
        "requirements": [r.id for r in candidates],
        "level": level,
        "tags": [],
        "note": (f"{TODO}: keep in `requirements` only the ids this vector tests "
                 f"(offered: every testable requirement of section {section} at level {level}), "
                 "then delete this note."),
        "op": op,
        "input": skeleton_input(op),
        "expect": skeleton_expect(op),
    }
    musts = [r.id for r in candidates if r.mandatory]
    if musts and len(musts) < len(candidates):
        # MUST and SHOULD side by side: every check names the ones it checks.
        for check in vector["expect"]:
            check["requirements"] = musts
    problem = schema_problem({"vectors": [vector]})
    if problem:  # the schema changed under us: say so rather than write an invalid file
        raise ScaffoldError(f"the scaffold does not fit schema/vector.schema.json: {problem}")
    return Scaffold(vector, tuple(r.id for r in candidates))


def schema_problem(document: dict) -> str | None:
    validator = linear_schema.validator(resources.load_schema("vector.schema.json"))
    error = best_match(validator.iter_errors(document))
    return None if error is None else f"at {'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"


def add_to_file(path: Path, vector: dict) -> None:
    """Append `vector` to the vector file at `path`, creating the file if needed."""
    if path.exists():
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ScaffoldError(f"{path} is not a readable vector file: {error}") from None
        if not isinstance(document, dict) or not isinstance(document.get("vectors"), list):
            raise ScaffoldError(f"{path} is not a vector file (no top-level `vectors` list)")
        if any(isinstance(v, dict) and v.get("id") == vector["id"] for v in document["vectors"]):
            raise ScaffoldError(f"{path} already has a vector with id {vector['id']!r}")
        document["vectors"].append(vector)
    else:
        document = {"description": f"{TODO}: what this file pins down", "vectors": [vector]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
