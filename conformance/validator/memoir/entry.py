"""Checks of one entry file (spec 3, 6, Appendix A).

`check_entry` reads the file as the reference model does (`read_entry`),
then says everything a reader should know about it: departures from the
frontmatter subset, how a YAML engine would read it differently, how each
legacy dialect reads, and what the entry schema (schema/entry.schema.json,
applied through jsonschema) and the spec's field rules find.

The schema is applied to the fields *after* the legacy mappings, so a legacy
file is judged by how it reads. To keep a store of 10,000 entries fast, the
schema verdict is memoised on the entry's shape: every value replaced by a
representative that the schema cannot tell apart from it (see `_shape`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from conformance.model import dates
from conformance.model.entry import LEGACY_TYPES, how_to_apply_section, read_parsed
from conformance.model.frontmatter import ParsedEntry, column_of, line_of, parse_entry_text
from conformance.validator.memoir import rules
from conformance.validator.core.findings import Diagnostic, diagnostic
from conformance.validator.memoir.places import field_places
from conformance.validator.memoir.sources import INDEX_NAMES
from conformance.validator.memoir.yaml_hazards import explain

# Date fields per type (3.2, 3.3); the common ones apply to every type.
COMMON_DATE_FIELDS = ("created", "updated")
TYPE_DATE_FIELDS = {
    "decision": ("date", "hidden_at"),
    "lesson": ("last_fired",),
    "goal": ("set_on", "done_at"),
    "next_action": ("added", "done_at"),
}
ALL_DATE_FIELDS = frozenset(COMMON_DATE_FIELDS).union(*TYPE_DATE_FIELDS.values())

_PROBLEM_RULES = {
    "preamble": rules.PREAMBLE,
    "unterminated": rules.UNTERMINATED,
    "bad-line": rules.YAML_BAD_LINE,
    "tab-indent": rules.YAML_TAB,
    "duplicate-key": rules.YAML_DUPLICATE_KEY,
    "anchor": rules.YAML_ANCHOR,
    "alias": rules.YAML_ALIAS,
    "tag": rules.YAML_TAG,
    "block-scalar": rules.YAML_BLOCK_SCALAR,
    "flow-collection": rules.YAML_FLOW,
    "deep-nesting": rules.YAML_DEEP_NESTING,
    "quoted-trailing-text": rules.YAML_QUOTING,
    "unterminated-quote": rules.YAML_QUOTING,
    "bad-escape": rules.YAML_QUOTING,
}
_HAZARD_RULES = {"comment": rules.YAML_COMMENT, "retyped": rules.YAML_RETYPED, "rejected": rules.YAML_REJECTED}
_REQUIRED_RULES = {
    "type": rules.MISSING_TYPE,
    "name": rules.MISSING_NAME,
    "trigger": rules.LESSON_FIELDS,
    "how_to_apply": rules.LESSON_FIELDS,
    "added": rules.NEXT_ACTION_ADDED,
    "hidden_at": rules.HIDDEN_AT,
}
_HOW_TO_APPLY_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+how to apply\b", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class EntrySummary:
    """What the store-level checks need to know of one entry."""

    display: str
    link: str
    name: str | None
    type: object            # as read (after legacy mapping)
    written_type: object    # as written in the file (top-level or metadata.type)
    status: str
    is_index: bool
    links: tuple[tuple[str, int, int], ...]   # (target, line, column) of each first occurrence


_INDEX_LINE = re.compile(r"[ \t]*[-*+][ \t]+\[[^\]\r\n]+\]\([^)\r\n]+\.md(?:#[^)]*)?\)")


def is_index_name(link: str) -> bool:
    return link.casefold() in INDEX_NAMES


def looks_like_index(body: str) -> int:
    """How many index lines ("- [title](file.md) ...") a bare file has, when
    they are at least half of its text lines (else 0)."""
    lines = [line for line in body.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    links = sum(1 for line in lines if _INDEX_LINE.match(line))
    return links if links >= 3 and links * 2 >= len(lines) else 0


def check_entry(display: str, link: str, text: str) -> tuple[list[Diagnostic], EntrySummary]:
    """Every finding about one entry file, and its summary for the store checks."""
    parsed = parse_entry_text(text)
    entry = read_parsed(link, parsed)
    found: list[Diagnostic] = []
    written_type = _written_type(parsed.fields)
    index_lines = 0 if parsed.has_frontmatter or is_index_name(link) else looks_like_index(text)
    summary = EntrySummary(
        display, link, entry["name"], entry["type"], written_type, entry["status"],
        is_index=not parsed.has_frontmatter and (is_index_name(link) or index_lines > 0),
        links=tuple(_link_places(text, entry["links"], parsed.body_start if parsed.has_frontmatter else 1)),
    )
    if summary.is_index:
        what = (f"{link}.md is an index or readme of the memory directory" if not index_lines
                else f"{link}.md looks like an index ({index_lines} '- [title](file.md)' lines)")
        found.append(diagnostic(
            rules.INDEX_FILE, display,
            f"{what}, not an entry: readers list it as an opaque entry {link!r} without type"))
        return found, summary

    for problem in parsed.problems:
        found.append(diagnostic(_PROBLEM_RULES[problem.code], display, problem.message, problem.line, problem.column))
    if not parsed.has_frontmatter:
        if not any(problem.code == "unterminated" for problem in parsed.problems):
            origin = "its first # heading" if entry["name"] != link else "its link name (it has no # heading)"
            found.append(diagnostic(
                rules.NO_FRONTMATTER, display,
                f"no frontmatter: reads as an opaque legacy entry named {entry['name']!r} after {origin}", 1, 1))
        return found, summary
    places = field_places(parsed)

    if entry["status"] == "quarantined":
        line, column = places.get("schema_version", (0, 0))
        found.append(diagnostic(
            rules.SCHEMA_VERSION_NEWER, display,
            f"schema_version {parsed.fields['schema_version']} is newer than 1: readers quarantine this entry and "
            "do not interpret it (not checked further)", line, column))
        return found, summary

    date_fields = frozenset(COMMON_DATE_FIELDS + TYPE_DATE_FIELDS.get(entry["type"], ()))
    for hazard in explain(parsed, date_fields):
        found.append(diagnostic(_HAZARD_RULES[hazard.kind], display, hazard.message, hazard.line, hazard.column))
    found.extend(_legacy_findings(display, parsed, entry, places))
    found.extend(_field_findings(display, parsed, entry, places, date_fields))
    return found, summary


def _written_type(fields: dict) -> object:
    if fields.get("type") is not None:
        return fields["type"]
    metadata = fields.get("metadata")
    return metadata.get("type") if isinstance(metadata, dict) else None


def _link_places(text: str, links: list[str], body_start: int) -> list[tuple[str, int, int]]:
    """Line and column of the first [[link]] to each target (in the whole file)."""
    places = []
    for target in links:
        index = text.find("[[" + target)
        if index < 0:
            # [[ target ]] with spaces, or an alias form: find the target's text instead.
            index = text.find(target)
        if index < 0:
            places.append((target, body_start, 0))
            continue
        places.append((target, line_of(text, index), column_of(text, index)))
    return places


# -- legacy dialects (Appendix A) ---------------------------------------------------


def _legacy_findings(display: str, parsed: ParsedEntry, entry: dict, places: dict) -> list[Diagnostic]:
    found = []
    fields = parsed.fields
    metadata = fields.get("metadata") if isinstance(fields.get("metadata"), dict) else {}
    if fields.get("type") is None and metadata.get("type") is not None:
        line, column = places.get("metadata.type", places.get("metadata", (0, 0)))
        found.append(diagnostic(
            rules.LEGACY_METADATA, display,
            f"legacy nested dialect: metadata.type {metadata['type']!r} reads as type {metadata['type']!r}",
            line, column))
    for key in ("originSessionId", "metadata.originSessionId"):
        value = fields.get(key) if key == "originSessionId" else metadata.get("originSessionId")
        if value is not None:
            line, column = places.get(key, (0, 0))
            origin = entry["fields"].get("origin")
            reads = "reads as origin.session_id" if isinstance(origin, dict) and origin.get("session_id") == value \
                else "is not read: origin already has a session_id (or is not a mapping)"
            found.append(diagnostic(rules.LEGACY_ORIGIN, display, f"legacy {key} {reads}", line, column))

    written = _written_type(fields)
    where = "type" if fields.get("type") is not None else "metadata.type"
    line, column = places.get(where, (0, 0))
    if isinstance(written, str) and written in LEGACY_TYPES:
        mapped = LEGACY_TYPES[written]
        if mapped is None:
            found.append(diagnostic(
                rules.LEGACY_DOSSIER, display,
                f"legacy type {written!r}: a dossier with no atomic mapping; reads as an opaque legacy entry "
                f"(status opaque, type {written!r})", line, column))
        elif mapped == "lesson":
            found.append(diagnostic(
                rules.LEGACY_TYPE, display,
                f"legacy type {written!r} reads as 'lesson', trigger from description and how_to_apply from the "
                "**How to apply:** body section", line, column))
            found.extend(_legacy_lesson_findings(display, fields, entry, places))
        else:
            found.append(diagnostic(
                rules.LEGACY_TYPE, display, f"legacy type {written!r} reads as {mapped!r}", line, column))
    return found


def _legacy_lesson_findings(display: str, fields: dict, entry: dict, places: dict) -> list[Diagnostic]:
    found = []
    read = entry["fields"]
    line, column = places.get("type", places.get("metadata.type", (0, 0)))
    if not _text(read.get("trigger")):
        found.append(diagnostic(
            rules.LEGACY_LESSON, display,
            "reads as a lesson without a trigger: the legacy entry has no description to take it from",
            line, column))
    if not _text(read.get("how_to_apply")):
        hint = ""
        if _HOW_TO_APPLY_HEADING.search(entry["body"] or ""):
            hint = " (a '## How to apply' heading is not the bold label the legacy rule reads)"
        found.append(diagnostic(
            rules.LEGACY_LESSON, display,
            f"reads as a lesson without how_to_apply: the body has no **How to apply:** section{hint}",
            line, column))
    return found


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


# -- fields: the schema and the spec's rules ----------------------------------------------


def _field_findings(display: str, parsed: ParsedEntry, entry: dict, places: dict,
                    date_fields: frozenset[str]) -> list[Diagnostic]:
    found = []
    fields = entry["fields"]
    legacy_feedback = _written_type(parsed.fields) == "feedback"

    def place(key: str) -> tuple[int, int]:
        if key in places:
            return places[key]
        if key == "type" and "metadata.type" in places:
            return places["metadata.type"]
        if key == "trigger" and "description" in places:
            return places["description"]
        return (parsed.frontmatter_start, 1)

    for path, keyword, expected, missing in schema_errors(fields):
        if keyword == "required":
            rule = _REQUIRED_RULES.get(missing, rules.FIELD_TYPE)
            if rule is rules.LESSON_FIELDS:
                if legacy_feedback:
                    continue  # said as a legacy finding, downgraded (App. A)
                if missing == "how_to_apply" and how_to_apply_section(entry["body"] or ""):
                    found.append(diagnostic(
                        rules.LEGACY_LESSON, display,
                        "how_to_apply is read from the **How to apply:** body section (accepted as the legacy form; "
                        "the canonical form is the frontmatter key)", *place("type")))
                    continue
            found.append(diagnostic(rule, display, _missing_message(missing, entry), *place("type" if missing in (
                "trigger", "how_to_apply", "added", "hidden_at") else missing)))
            continue
        key = str(path[0]) if path else ""
        shown = ".".join(str(part) for part in path) or "frontmatter"
        actual = _lookup(fields, path)
        if key == "type" and keyword == "enum":
            if isinstance(actual, str) and actual in LEGACY_TYPES:
                continue  # the dossier finding says it
            found.append(diagnostic(
                rules.UNKNOWN_TYPE, display,
                f"type {actual!r} is none of the six entry types: reads as an opaque entry", *place("type")))
            continue
        if key == "schema_version":
            found.append(diagnostic(
                rules.SCHEMA_VERSION, display,
                f"schema_version {actual!r} is not an integer of at least 1: readers take it as unknown",
                *place(key)))
            continue
        if keyword == "pattern" and expected != r"\S":
            found.append(diagnostic(
                rules.DATE, display, f"{shown} {_show(actual)} is not an ISO 8601 date or date-time", *place(key)))
            continue
        if key == "name":
            found.append(diagnostic(
                rules.MISSING_NAME, display,
                f"name is {'empty' if actual == '' or (isinstance(actual, str) and not actual.strip()) else _kind(actual)}"
                f": readers name the entry {entry['name']!r}", *place(key)))
            continue
        found.append(diagnostic(rules.FIELD_TYPE, display, f"{shown} {_schema_message(keyword, expected, actual)}",
                                *place(key)))

    for key in sorted(date_fields):
        value = fields.get(key)
        if isinstance(value, str) and _date_pattern().match(value) and dates.parse_date(value) is None:
            found.append(diagnostic(
                rules.DATE, display, f"{key} {value!r} has the ISO 8601 shape but names no real date or time",
                *place(key)))

    if not _text(fields.get("description")):
        found.append(diagnostic(
            rules.MISSING_DESCRIPTION, display, "no description: indexes and pickers show the entry without one",
            *place("name")))
    entry_type = entry["type"]
    if entry_type == "decision":
        if not _text(fields.get("why")):
            found.append(diagnostic(rules.DECISION_WHY, display, "decision without a why", *place("type")))
        if not _text(fields.get("rejected")):
            found.append(diagnostic(
                rules.DECISION_REJECTED, display, "decision without the rejected alternative", *place("type")))
    start_field = {"next_action": "added", "goal": "set_on"}.get(entry_type)
    if start_field and fields.get("done_at") is not None:
        done, start = dates.parse_date(fields.get("done_at")), dates.parse_date(fields.get(start_field))
        if done is not None and start is not None and done < start:
            found.append(diagnostic(
                rules.DONE_BEFORE_ADDED, display,
                f"done_at {fields['done_at']} is earlier than {start_field} {fields[start_field]}: completed before "
                "it existed", *place("done_at")))
    return found


def _missing_message(missing: str, entry: dict) -> str:
    if missing == "type":
        return "no type: reads as an opaque entry"
    if missing == "name":
        return f"no name: readers name the entry {entry['name']!r}"
    if missing in ("trigger", "how_to_apply"):
        return f"lesson without {missing}: it says {'when it applies' if missing == 'trigger' else 'what to do'} nowhere"
    if missing == "added":
        return "next_action without added: done_at against added (5.3.2) is undefined"
    if missing == "hidden_at":
        return "hidden: true without hidden_at"
    return f"{missing} is required"


def _lookup(fields: dict, path: tuple) -> object:
    value: object = fields
    for part in path:
        try:
            value = value[part]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


_JSON_TYPES = {"string": "text", "array": "a list", "object": "a mapping", "integer": "an integer",
               "boolean": "a boolean (true or false)", "number": "a number", "null": "null"}


def _schema_message(keyword: str, expected: object, actual: object) -> str:
    if keyword == "type":
        wanted = expected if isinstance(expected, str) else " or ".join(expected)  # type: ignore[arg-type]
        return f"is {_kind(actual)} {_show(actual)}, expected {_JSON_TYPES.get(wanted, wanted)}"
    if keyword == "enum":
        return f"is {_show(actual)}, expected one of {', '.join(map(str, expected))}"  # type: ignore[arg-type]
    if keyword == "minimum":
        return f"is {actual}, less than {expected}"
    if keyword == "pattern":
        return "is empty"
    return f"{_show(actual)} fails the schema's {keyword} {_show(expected)}"


# -- the entry schema, memoised on shape ------------------------------------------------------


@lru_cache(maxsize=1)
def _entry_schema() -> tuple[object, frozenset[str], str]:
    from jsonschema import Draft202012Validator

    from conformance.resources import load_schema

    schema = load_schema("entry.schema.json")
    known = set(schema["properties"])
    for branch in schema.get("allOf", ()):
        known.update(branch.get("then", {}).get("properties", {}))
        known.update(branch.get("then", {}).get("if", {}).get("properties", {}))
    return Draft202012Validator(schema), frozenset(known), schema["$defs"]["date"]["pattern"]


_ENUM_KEYS = frozenset({"type", "scope"})


def _shape(value: object, date_pattern: re.Pattern, keep: bool = False) -> object:
    """A hashable stand-in for `value` that the entry schema judges exactly
    as it judges `value`: the schema only asks of text whether it is empty,
    blank, date-shaped or (for enum keys) which word; of integers, their
    sign. Lists become ("list", ...) and mappings ("map", (key, value)...)."""
    if isinstance(value, str):  # the commonest, so asked first
        if keep:
            return ("text", value)
        if not value:
            return ""
        if not value.strip():
            return " "
        return "2000-01-01" if date_pattern.match(value) else "x"
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return max(-1, min(value, 2))
    if isinstance(value, list):
        return ("list",) + tuple(_shape(item, date_pattern) for item in value)
    if isinstance(value, dict):
        return ("map",) + tuple((str(key), _shape(item, date_pattern)) for key, item in value.items())
    return f"<{type(value).__name__}>"


def _thaw(shape: object) -> object:
    if isinstance(shape, tuple):
        if shape[0] == "text":
            return shape[1]
        if shape[0] == "list":
            return [_thaw(item) for item in shape[1:]]
        return {key: _thaw(item) for key, item in shape[1:]}
    return shape


def prepare() -> None:
    """Compile the entry schema now (before worker processes fork)."""
    _date_pattern()


@lru_cache(maxsize=1)
def _date_pattern() -> re.Pattern:
    return re.compile(_entry_schema()[2])


def schema_errors(fields: dict) -> tuple[tuple[tuple, str, object, str | None], ...]:
    """The entry schema's findings on `fields`: (path, keyword, expected, missing property)."""
    _, known, _ = _entry_schema()
    pattern = _date_pattern()
    shape = ("map",) + tuple((key, _shape(value, pattern, keep=key in _ENUM_KEYS))
                             for key, value in sorted(fields.items()) if key in known)
    return _schema_errors_of_shape(shape)


_REQUIRED_MESSAGE = re.compile(r"^'(.+)' is a required property$")


@lru_cache(maxsize=4096)
def _schema_errors_of_shape(shape: tuple) -> tuple[tuple[tuple, str, object, str | None], ...]:
    validator = _entry_schema()[0]
    found = []
    for error in validator.iter_errors(_thaw(shape)):
        missing = None
        if error.validator == "required":
            match = _REQUIRED_MESSAGE.match(error.message)
            missing = match.group(1) if match else None
        expected = error.validator_value
        found.append((tuple(error.absolute_path), str(error.validator), _freeze(expected), missing))
    found.sort(key=lambda item: (item[0] and str(item[0][0]) or "", item[1], str(item[3])))
    return tuple(found)


def _freeze(value: object) -> object:
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value
