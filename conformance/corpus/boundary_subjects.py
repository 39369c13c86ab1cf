"""Boundary subjects: the ops and lists every boundary kind of theirs must reach.

`vectors/boundaries.json` names, besides the requirements each boundary kind
applies to, *subjects*: a class of things (every op with a free-text
argument, every keyed list of `session.json`, every op that edits an entry's
keys) and the kinds each member of it must have a deciding vector of. The
members are not listed by hand: they are read from the protocol schema and
the model's caps, so that an op or a list added later without its boundary
vectors shows as uncovered in `memoir-conform coverage`.

A vector reaches an op when it sends it (a write step, or its own op); it
reaches a list when one of its checks points into it or its input names it.
It counts for a kind when it carries the kind's tag and has a check that
rests on no interpretation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from conformance import resources
from conformance.model.session import DEFAULT_CAPS
from conformance.runner.vectors import Vector, write_steps

PROTOCOL_SCHEMA = "adapter-protocol.schema.json"
TEXT_REF = "#/$defs/text"
ARGS_SUFFIX = ".args"

# How each subject's members are found (the `members` of a subject in boundaries.json).
MEMBER_SOURCES = ("ops-with-text-args", "keyed-lists", "entry-edit-ops")


@dataclass(frozen=True)
class Subject:
    """One class of things, and the boundary kinds every member of it must have."""

    name: str
    description: str
    members: str                 # one of MEMBER_SOURCES
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class MemberCoverage:
    subject: str
    member: str
    kind: str
    vectors: tuple[str, ...]     # deciding vectors of the kind that reach the member

    @property
    def covered(self) -> bool:
        return bool(self.vectors)

    def to_json(self) -> dict:
        return {"subject": self.subject, "member": self.member, "kind": self.kind, "vectors": list(self.vectors)}


def _op_args(schema: dict) -> dict[str, dict]:
    """op -> the properties of its args, one `$ref` deep. An args definition
    that others refer to (`store_text.args`) is shared, not an op."""
    defs = schema.get("$defs", {})
    args = {name: definition for name, definition in defs.items() if name.endswith(ARGS_SUFFIX)}
    shared = {definition.get("$ref", "").removeprefix("#/$defs/") for definition in args.values()}
    found = {}
    for name, definition in args.items():
        if name in shared:
            continue
        ref = definition.get("$ref", "")
        if ref.startswith("#/$defs/"):
            definition = defs.get(ref.removeprefix("#/$defs/"), {})
        found[name.removesuffix(ARGS_SUFFIX)] = definition.get("properties", {})
    return found


def members(source: str, schema: dict | None = None) -> list[str]:
    """The members of a subject, from the protocol schema or the model's caps."""
    if source == "keyed-lists":
        return sorted(DEFAULT_CAPS)
    args = _op_args(schema if schema is not None else resources.load_schema(PROTOCOL_SCHEMA))
    if source == "ops-with-text-args":
        return sorted(op for op, properties in args.items()
                      if any(prop.get("$ref") == TEXT_REF for prop in properties.values()))
    if source == "entry-edit-ops":
        return sorted(op for op, properties in args.items() if "link" in properties and "set" in properties)
    raise ValueError(f"unknown subject members {source!r}: one of {', '.join(MEMBER_SOURCES)}")


def _keys(value: object) -> Iterable[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


def reaches(vector: Vector, source: str, member: str) -> bool:
    if source == "keyed-lists":
        in_checks = any(member in str(check.get("path", "")).split("/") for check in vector.expect)
        return in_checks or member in set(_keys(vector.input))
    if vector.op == "write":
        return any(step.get("op") == member for step in write_steps(vector.input))
    return vector.op == member


def _deciding(vector: Vector) -> bool:
    return any(not expectation.ambiguity for expectation in vector.expectations())


def compute(subjects: Iterable[Subject], vectors: Iterable[Vector], tag_of, schema: dict | None = None) -> list[MemberCoverage]:
    """Per subject member and kind, the deciding vectors that reach it; `tag_of(kind)` is the kind's tag."""
    deciding = [vector for vector in vectors if _deciding(vector)]
    rows = []
    for subject in subjects:
        for member in members(subject.members, schema):
            for kind in subject.kinds:
                tag = tag_of(kind)
                found = sorted(v.id for v in deciding if tag in v.tags and reaches(v, subject.members, member))
                rows.append(MemberCoverage(subject.name, member, kind, tuple(found)))
    return rows
