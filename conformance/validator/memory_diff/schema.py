"""Structural checks of a memory diff: `schema/memory-diff.schema.json`, as diagnostics.

The schema is the single statement of the diff's structure (memory-diff:
Format, Operations). Each schema error is filed under the rule it breaks, by
where it is in the document: a gap inside `changes[i].item` is an incomplete
memory item, a missing `target_id` is a change without a target, an
`update` operation is the operation the format deliberately lacks, and so on.
Anything else is a plain schema violation.
"""

from __future__ import annotations

from functools import cache

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from conformance import linear_schema
from conformance.resources import load_schema
from conformance.validator.memory_diff import rules
from conformance.validator.core.safe_yaml import LoadedYaml
from conformance.validator.core.findings import Diagnostic, Rule, diagnostic

SCHEMA_NAME = "memory-diff.schema.json"

_WHY_NO_UPDATE = (
    "the format has no generic update operation because it would hide whether a claim changed, "
    "expired or was replaced: use supersede (replaces the claim and keeps its history), "
    "deprecate or revalidate"
)
_WHY_NO_DELETE = (
    "the format has no delete operation: privacy deletion and retention enforcement are separate "
    "workflows that leave their own audit record; use deprecate to mark an item as no longer valid"
)
_MAX_MESSAGE = 200
_ITEM_FIELDS = "id, claim, type, scope, source, visibility, freshness and review"


@cache
def _validator() -> Draft202012Validator:
    schema = load_schema(SCHEMA_NAME)
    Draft202012Validator.check_schema(schema)  # the kit's own schema, against the meta-schema
    return linear_schema.validator(schema)  # its patterns on RE2: they read the diff


def check_schema(loaded: LoadedYaml, path: str) -> list[Diagnostic]:
    """Every schema violation of the document, each filed under its rule."""
    found: dict[tuple, Diagnostic] = {}
    for error in _validator().iter_errors(loaded.data):
        for rule, location, message in _classify(error, loaded.data):
            line, column = loaded.position(location)
            finding = diagnostic(rule, path, message, line, column)
            found.setdefault((rule.id, location, message), finding)
    return list(found.values())


def describe(location: tuple) -> str:
    """A location such as ``changes[0].item.source`` (``the document`` for the root)."""
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "the document"


def _classify(error: ValidationError, document) -> list[tuple[Rule, tuple, str]]:
    location = tuple(error.absolute_path)
    change = _change_at(document, location)
    if error.validator == "required":
        instance = error.instance if isinstance(error.instance, dict) else {}
        return [
            _missing(location, name, change)
            for name in error.validator_value
            if name not in instance
        ]
    message = _message(error)
    if location[:1] == ("trigger",) and len(location) == 1:
        return [(rules.NO_TRIGGER, location, f"the trigger must be a mapping naming the source event (kind, uri): {message}")]
    if location[:1] == ("changes",) and len(location) >= 3:
        field = location[2]
        label = _change_label(change, location[:2])
        if field == "item":
            return [(rules.INCOMPLETE_ITEM, location, f"{label}: the memory item is incomplete: {describe(location)}: {message}")]
        if field == "target_id":
            return [(rules.NO_TARGET, location, f"{label}: target_id must name the memory item it changes: {message}")]
        if field == "operation" and error.validator == "enum":
            return [_operation_problem(location, error.instance, label)]
        return [(rules.CHANGE_FIELDS, location, f"{label}: {describe(location)}: {message}")]
    if location[:2] == ("review", "decisions"):
        return [(rules.REVIEW_DECISION, location, f"{describe(location)}: a review decision is pending, accepted or rejected, not {error.instance!r}")]
    if location == ("version",):
        return [(rules.SCHEMA, location, f"version must be the string \"0.1\" (quoted in YAML), not {error.instance!r}")]
    return [(rules.SCHEMA, location, f"{describe(location)}: {message}")]


def _missing(location: tuple, name: str, change) -> tuple[Rule, tuple, str]:
    if location == () and name == "trigger":
        return rules.NO_TRIGGER, location, "the diff has no trigger: name the source event (kind, uri) that caused it"
    if location == ("trigger",):
        return rules.NO_TRIGGER, location, f"the trigger has no {name}: a trigger names its source event by kind and uri"
    if location[:1] == ("changes",) and len(location) >= 2:
        label = _change_label(change, location[:2])
        if len(location) == 2:
            if name == "item":
                return rules.INCOMPLETE_ITEM, location, (
                    f"{label} has no item: add and supersede carry the complete proposed memory item, not a patch"
                )
            if name == "target_id":
                return rules.NO_TARGET, location, f"{label} has no target_id: name the memory item it changes"
            operation = change.get("operation") if isinstance(change, dict) else None
            needed_by = f", which {operation} requires" if name not in ("id", "operation", "reason") else ""
            return rules.CHANGE_FIELDS, location, f"{label} has no {name}{needed_by}"
        if location[2] == "item":
            return rules.INCOMPLETE_ITEM, location, (
                f"{label}: {describe(location)} has no {name}; a complete memory item has {_ITEM_FIELDS}"
            )
        return rules.CHANGE_FIELDS, location, f"{label}: {describe(location)} has no {name}"
    return rules.SCHEMA, location, f"{describe(location)} has no {name}"


def _operation_problem(location: tuple, operation, label: str) -> tuple[Rule, tuple, str]:
    word = operation.strip().lower() if isinstance(operation, str) else None
    if word == "update":
        return rules.UPDATE_DELETE, location, f"{label}: operation 'update' does not exist: {_WHY_NO_UPDATE}"
    if word == "delete":
        return rules.UPDATE_DELETE, location, f"{label}: operation 'delete' does not exist: {_WHY_NO_DELETE}"
    return rules.UNKNOWN_OPERATION, location, (
        f"{label}: unknown operation {operation!r}; the operations are add, supersede, deprecate, revalidate and flag_conflict"
    )


def _change_at(document, location: tuple):
    if len(location) >= 2 and location[0] == "changes" and isinstance(document, dict):
        changes = document.get("changes")
        if isinstance(changes, list) and isinstance(location[1], int) and location[1] < len(changes):
            return changes[location[1]]
    return None


def _change_label(change, location: tuple) -> str:
    if isinstance(change, dict):
        change_id = change.get("id")
        operation = change.get("operation")
        name = f"change {change_id!r}" if isinstance(change_id, str) else describe(location)
        return f"{name} ({operation})" if isinstance(operation, str) else name
    return describe(location)


def _message(error: ValidationError) -> str:
    if error.validator in ("anyOf", "oneOf", "allOf") and error.context:
        message = best_match(error.context).message
    else:
        message = error.message
    # jsonschema quotes the whole offending value; a big mapping would drown the point.
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 3] + "..."
