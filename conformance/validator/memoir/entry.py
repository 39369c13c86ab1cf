"""Checks of one entry file (spec 2, 3, 6, Appendix A).

`check_entry` reads the file as the reference model does (`read_parsed`),
then says everything a reader should know about it: departures from the
frontmatter subset, how a YAML engine would read it differently, how each
legacy dialect reads, what the entry schema (schema/entry.schema.json,
applied through jsonschema) and the spec's field rules find, and whether its
file name is a slug with its type as a prefix. Each message says what is
wrong and what to do; the place is the finding's line and column.

The schema is applied to the fields *after* the legacy mappings, so a legacy
file is judged by how it reads. To keep a store of 100,000 entries fast, the
schema verdict is memoised on the entry's shape: every value replaced by a
representative that the schema cannot tell apart from it (see `_shape`).
"""

from __future__ import annotations

import functools
from functools import lru_cache
from typing import Callable, NamedTuple

from conformance import linear_schema
from conformance.model import dates
from conformance.model.entry import ENTRY_TYPES, LEGACY_TYPES, how_to_apply_section, read_parsed, wikilink_spans
from conformance.model.frontmatter import ParsedEntry, parse_entry_text
from conformance.schema_errors import error_finder
from conformance.validator.core.findings import Diagnostic, diagnostic
from conformance.validator.core.positions import LineIndex
from conformance.validator.memoir import fast_frontmatter, rules
from conformance.validator.memoir.lenient import FOLDED, QUOTED_KEY, lenient
from conformance.validator.memoir.sources import MAX_BYTES
from conformance.validator.memoir.yaml_hazards import explain

# Date fields per type (3.2, 3.3); the common ones apply to every type.
COMMON_DATE_FIELDS = ("created", "updated")
TYPE_DATE_FIELDS = {
    "decision": ("date", "hidden_at"),
    "lesson": ("last_fired",),
    "goal": ("set_on", "done_at"),
    "next_action": ("added", "done_at"),
}
DATE_KEYS = frozenset(COMMON_DATE_FIELDS).union(*TYPE_DATE_FIELDS.values())
INDEX_NAMES = {"memory", "readme", "index"}
MAX_INDEX_CHARS = 256 * 1024

_REQUIRED_RULES = {
    "type": rules.MISSING_TYPE,
    "name": rules.MISSING_NAME,
    "trigger": rules.LESSON_FIELDS,
    "how_to_apply": rules.LESSON_FIELDS,
    "added": rules.NEXT_ACTION_ADDED,
    "hidden_at": rules.HIDDEN_AT,
}
_SLUG_START = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_SLUG_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789._-"
_KNOWN_PREFIXES = tuple(f"{name}_" for name in (*ENTRY_TYPES, *LEGACY_TYPES))

# Each departure from the frontmatter subset: its rule, and what to do about it.
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
    QUOTED_KEY: rules.YAML_BAD_LINE,
    FOLDED: rules.YAML_FOLDED,
}


def _quoted(text: str) -> str:
    """The first 'quoted' token of a message (what `'([^']*)'` finds), or ''."""
    start = text.find("'")
    end = text.find("'", start + 1) if start >= 0 else -1
    return text[start + 1:end] if end >= 0 else ""


def _problem_message(problem, parsed: ParsedEntry) -> str:
    """What the frontmatter reader met, what it means for readers, and what to do."""
    code, model = problem.code, problem.message
    token = _quoted(model)
    if code == "preamble":
        # The reader's count: frontmatter_start is 0 when the block is never closed.
        lines = int(model.split(" ", 1)[0])
        return (f"{lines} line{'s' if lines != 1 else ''} of blank lines or HTML comments come before the opening "
                "---, so readers that expect it on the first line see no frontmatter; move the --- to the top")
    if code == "unterminated":
        return ("the frontmatter opened here is never closed by a --- line, so readers see no fields at all; "
                "add a --- line after the last field")
    if code == "anchor":
        return f"YAML anchor {token} is outside the frontmatter subset; write the value out in full, without it"
    if code == "alias":
        return (f"YAML alias {token} is outside the frontmatter subset and is never expanded (this reader takes "
                "the literal text); write the value out in full")
    if code == "tag":
        return f"YAML tag {token} is outside the frontmatter subset (this reader keeps it in the text); remove it"
    if code == "block-scalar":
        return (f"a block scalar ({token}) is outside the frontmatter subset, which keeps prose out of the "
                "frontmatter; move the text into the body")
    if code == "flow-collection":
        return ("a flow collection ([...] or {...}) is outside the frontmatter subset: YAML readers read a list or "
                "a mapping, a reader of the subset the text as written; write one '- item' line per item (or one "
                "nested 'key: value' line per pair)")
    if code == "deep-nesting":
        return f"{model.split(';')[0]} is outside the frontmatter subset, which nests one level; flatten it"
    advice = {
        "bad-line": "move the text into the body, or write it as one 'key: value' line",
        "tab-indent": "indent with spaces",
        "duplicate-key": "a YAML reader may keep the other value; keep one of them",
        "quoted-trailing-text": "quote the whole value",
        "unterminated-quote": "close the quote on the same line",
        "bad-escape": "write a backslash as \\\\",
        QUOTED_KEY: "write the key without quotes",
        FOLDED: "write the value on one line (PyYAML and python-frontmatter: dump with width=1000000), or move "
                "long text into the body",
    }[code]
    return f"{model}; {advice}"


_HAZARD_RULES = {"comment": rules.YAML_COMMENT, "retyped": rules.YAML_RETYPED, "rejected": rules.YAML_REJECTED}
_TYPES = "fact, preference, decision, lesson, goal or next_action"


class EntrySummary(NamedTuple):
    """What the store-level checks need to know of one entry (a named tuple: one is made per file)."""

    link: str
    name: str | None
    is_index: bool
    links: tuple[tuple[str, int, int], ...]   # (target, line, column) of each target's first [[link]]
    # Loose spellings, worked out where the entry is checked (in a worker):
    # the link's case fold, `spelling` of the link and of the link without its
    # type prefix, and `spelling` of a name: that is not the link (else None).
    keys: tuple[str, str, str, str | None] = ("", "", "", None)


_SEPARATORS_AS_SPACES = str.maketrans("-_", "  ")


def _joined(text: str) -> str:
    """`text` with each run of '-', '_' and ' ' made one '_' (what `re.sub(r"[-_ ]+", "_", text)` makes)."""
    parts = text.translate(_SEPARATORS_AS_SPACES).split(" ")
    words = "_".join(filter(None, parts))
    if not words:
        return "_" if text else ""
    return ("" if parts[0] else "_") + words + ("" if parts[-1] else "_")


def spelling(text: str) -> str:
    """A loose spelling key: case, '-', ' ' and '_' and a .md suffix ignored."""
    text = text.casefold().strip()
    if text.endswith(".md"):
        text = text[:-3]
    if "-" not in text and " " not in text and "__" not in text:
        return text  # nothing to replace (most link names are snake_case)
    joined = text.replace("-", "_").replace(" ", "_")
    return joined if "__" not in joined else _joined(text)  # no run of separators: each is one '_'


def without_type_prefix(link: str) -> str:
    for prefix in _KNOWN_PREFIXES:
        if link.startswith(prefix):
            return link[len(prefix):]
    return link


def spelling_keys(link: str, name: object) -> tuple[str, str, str, str | None]:
    """`EntrySummary.keys` of an entry."""
    named = spelling(name) if isinstance(name, str) and name != link else None
    return link.casefold(), spelling(link), spelling(without_type_prefix(link)), named


def _is_index_line(line: str) -> bool:
    """Whether `line` starts as a list item linking a markdown file:
    `- [title](file.md)` or `(file.md#part)`, with `-`, `*` or `+`.

    A plain parser: the regular expression it replaces took time growing with
    the square of a line of `.md#`."""
    rest = line.lstrip(" \t")
    if rest[:1] not in ("-", "*", "+") or rest[1:2] not in (" ", "\t"):
        return False
    rest = rest[1:].lstrip(" \t")
    close = rest.find("]")
    if rest[:1] != "[" or close < 2 or rest[close + 1:close + 2] != "(" or _has_break(rest, 1, close):
        return False
    end = rest.find(")", close + 2)
    if end < 0:
        return False
    target = rest[close + 2:end]
    # `file.md` then nothing, or then `#` and anything: the file part is
    # everything before the last `.md` that ends the target or precedes a `#`.
    breaks = [index for index in (target.find("\n"), target.find("\r")) if index >= 0]
    first_break = min(breaks, default=len(target))
    ends = [len(target), *_positions(target, "#")]
    return any(3 < end <= first_break + 3 and target.endswith(".md", 0, end) for end in ends)


def _has_break(text: str, start: int, end: int) -> bool:
    return "\n" in text[start:end] or "\r" in text[start:end]


def _positions(text: str, char: str):
    index = text.find(char)
    while index >= 0:
        yield index
        index = text.find(char, index + 1)


def is_index_name(link: str) -> bool:
    return link.casefold() in INDEX_NAMES


def looks_like_index(body: str) -> int:
    """How many index lines ("- [title](file.md) ...") a bare file has, when
    they are at least half of its text lines (else 0). An index is small: a
    file past `MAX_INDEX_CHARS` is not one (and is not split into lines)."""
    if len(body) > MAX_INDEX_CHARS:
        return 0
    lines = [line for line in body.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    links = sum(1 for line in lines if _is_index_line(line))
    return links if links >= 3 and links * 2 >= len(lines) else 0


def check_entry(display: str, link: str, text: str, size: int | None = None) -> tuple[list[Diagnostic], EntrySummary]:
    """Every finding about one entry file, and its summary for the store checks.

    `size` is the file's size when `text` is only its first `MAX_BYTES`."""
    parsed = fast_frontmatter.parse(text) or parse_entry_text(text)
    if size is not None and not parsed.has_frontmatter and any(p.code == "unterminated" for p in parsed.problems):
        # The closing --- may lie past the cut: nothing can be said of the fields.
        return [diagnostic(
            rules.TOO_LARGE_TO_CHECK, display,
            f"{size} bytes, and the frontmatter is not closed within the first {MAX_BYTES} bytes, which is all the "
            "validator reads: its fields were not checked; keep entries small, with the frontmatter at the top",
            1, 1)], EntrySummary(link, None, False, (), spelling_keys(link, None))
    # The field rules check the file as its writer evidently wrote it (lenient.py); the model's
    # reading is the kit's interpretation, which never makes an error on its own.
    parsed, unchecked = lenient(parsed)
    entry = read_parsed(link, parsed)
    found: list[Diagnostic] = []
    if size is not None:
        found.append(diagnostic(
            rules.TOO_LARGE, display,
            f"{size} bytes: only the first {MAX_BYTES} were checked (the frontmatter is among them); readers load "
            "whole entries into context, so split it or move bulky material out of the store"))
    index_lines = 0 if parsed.has_frontmatter or is_index_name(link) else looks_like_index(text)
    is_index = not parsed.has_frontmatter and (is_index_name(link) or index_lines > 0)
    summary = EntrySummary(
        link, entry["name"], is_index, links=_link_places(entry["body"], parsed.body_start) if entry["links"] else (),
        keys=spelling_keys(link, None if is_index else entry["name"]))
    if summary.is_index:
        what = (f"{link}.md is the index or readme of the memory folder" if not index_lines
                else f"{link}.md looks like an index ({index_lines} '- [title](file.md)' lines)")
        found.append(diagnostic(
            rules.INDEX_FILE, display, f"{what}, not an entry: readers list it as an opaque entry without a type"))
        return found, summary

    for problem in parsed.problems:
        found.append(diagnostic(_PROBLEM_RULES[problem.code], display, _problem_message(problem, parsed),
                                problem.line, problem.column))
    if not parsed.has_frontmatter:
        if not any(problem.code == "unterminated" for problem in parsed.problems):
            origin = ("from its first # heading" if entry["name"] != link
                      else "after its file name, as it has no # heading")
            found.append(diagnostic(
                rules.NO_FRONTMATTER, display,
                f"no frontmatter: readers show this file as an opaque legacy entry named {entry['name']!r}, {origin}; "
                "add frontmatter with a type and a name to make it an entry", 1, 1))
        return found, summary
    places = field_places(parsed)

    if entry["status"] == "quarantined":
        line, column = places.get("schema_version", (0, 0))
        found.append(diagnostic(
            rules.SCHEMA_VERSION_NEWER, display,
            f"schema_version {parsed.fields['schema_version']} is newer than 1: readers set this entry aside "
            "unread (spec 6) and it was not checked further; read it with a tool that knows that version",
            line, column))
        return found, summary

    date_fields = frozenset(COMMON_DATE_FIELDS + TYPE_DATE_FIELDS.get(entry["type"], ()))
    for hazard in explain(parsed, date_fields):
        found.append(diagnostic(_HAZARD_RULES[hazard.kind], display, hazard.message, hazard.line, hazard.column))
    legacy = _legacy_findings(display, parsed, entry, places)
    found.extend(legacy)
    found.extend(_field_findings(display, parsed, entry, places, date_fields, unchecked))
    if not legacy:
        found.extend(_created_findings(display, entry["fields"], places))
    found.extend(_file_name_findings(display, link, parsed.fields, entry["type"]))
    return found, summary


def field_places(parsed: ParsedEntry) -> dict[str, tuple[int, int]]:
    """Key path ("name", "metadata.type", "tags[]") -> (line, column) of its
    value: the first place of each key."""
    # Built from the last place to the first, so that the first place of a key is the one kept.
    return {key: (line, column) for key, line, column, _raw in reversed(parsed.places)}


def _written_type(fields: dict) -> object:
    if fields.get("type") is not None:
        return fields["type"]
    metadata = fields.get("metadata")
    return metadata.get("type") if isinstance(metadata, dict) else None


def _link_places(body: str, body_line: int) -> tuple[tuple[str, int, int], ...]:
    """Line and column of the first [[link]] to each target, in one pass over
    the body, which starts at line `body_line` (the targets are the model's
    `wikilinks`)."""
    places: dict[str, tuple[int, int]] = {}
    spans = wikilink_spans(body)
    if "\r" in body:  # lines may end at a lone "\r" too: the index knows how
        index = LineIndex(body)
        for start, inner in spans:
            target = inner.split("|", 1)[0].split("#", 1)[0].strip()
            if target and target not in places:
                line, column = index.place(start)
                places[target] = (line + body_line - 1, column)
    else:
        # Every line ends at "\n": count them from one link to the next (the links come in order).
        line, line_start, counted = body_line, 0, 0
        for start, inner in spans:
            target = inner.split("|", 1)[0].split("#", 1)[0].strip()
            if target and target not in places:
                breaks = body.count("\n", counted, start)
                if breaks:
                    line += breaks
                    line_start = body.rfind("\n", counted, start) + 1
                counted = start
                places[target] = (line, start - line_start + 1)
    return tuple((target, line, column) for target, (line, column) in places.items())


# -- legacy dialects (Appendix A) ---------------------------------------------------


def _legacy_findings(display: str, parsed: ParsedEntry, entry: dict, places: dict) -> list[Diagnostic]:
    found = []
    fields = parsed.fields
    read = entry["fields"]
    metadata = fields.get("metadata") if isinstance(fields.get("metadata"), dict) else {}
    if fields.get("type") is None and metadata.get("type") is not None:
        line, column = places.get("metadata.type", places.get("metadata", (0, 0)))
        found.append(diagnostic(
            rules.LEGACY_METADATA, display,
            "the type is nested under metadata (the legacy dialect): readers take metadata.type as the type; "
            "moving it to a top-level type modernises the file", line, column))
    for key in ("originSessionId", "metadata.originSessionId"):
        value = fields.get(key) if key == "originSessionId" else metadata.get("originSessionId")
        if value is None:
            continue
        line, column = places.get(key, (0, 0))
        origin = read.get("origin")
        if isinstance(origin, dict) and origin.get("session_id") == value:
            message = f"{key} (the legacy spelling) reads as origin.session_id; nothing to do"
        else:
            message = (f"{key} (the legacy spelling) is not read, as origin already has a session_id or is not a "
                       "mapping; remove one of the two")
        found.append(diagnostic(rules.LEGACY_ORIGIN, display, message, line, column))

    written = _written_type(fields)
    where = "type" if fields.get("type") is not None else "metadata.type"
    line, column = places.get(where, (0, 0))
    if isinstance(written, str) and written in LEGACY_TYPES:
        mapped = LEGACY_TYPES[written]
        if mapped is None:
            found.append(diagnostic(
                rules.LEGACY_DOSSIER, display,
                f"legacy type {written!r} marks a project dossier, which has no entry type of its own: readers show "
                "it as an opaque legacy entry", line, column))
        elif mapped == "lesson":
            found.extend(_feedback_findings(display, fields, entry, line, column))
        else:
            found.append(diagnostic(
                rules.LEGACY_TYPE, display, f"legacy type {written!r} reads as a {mapped}", line, column))
    return found


def _feedback_findings(display: str, fields: dict, entry: dict, line: int, column: int) -> list[Diagnostic]:
    """A legacy feedback entry reads as a lesson: say where its lesson fields come from, or what it lacks."""
    read = entry["fields"]
    sources = []
    if "trigger" not in fields and _text(read.get("trigger")):
        sources.append("its description is the trigger")
    if "how_to_apply" not in fields and _text(read.get("how_to_apply")):
        sources.append("its **How to apply:** section is the how_to_apply")
    reading = f" ({' and '.join(sources)})" if sources else ""
    found = [diagnostic(rules.LEGACY_TYPE, display, f"legacy type 'feedback' reads as a lesson{reading}", line, column)]
    if not _text(read.get("trigger")):
        found.append(diagnostic(
            rules.LEGACY_LESSON, display,
            "this feedback entry reads as a lesson without a trigger, as it has no description to take one from; "
            "add a description saying when the lesson applies", line, column))
    if not _text(read.get("how_to_apply")):
        hint = ""
        if has_how_to_apply_heading(entry["body"] or ""):
            hint = " (its '## How to apply' heading is not the bold label readers look for)"
        found.append(diagnostic(
            rules.LEGACY_LESSON, display,
            f"this feedback entry reads as a lesson that says nowhere what to do, as its body has no "
            f"**How to apply:** section{hint}; add one", line, column))
    return found


def has_how_to_apply_heading(body: str) -> bool:
    """Whether a line of `body` is a '## How to apply' heading (any case, up to
    three spaces before one to six '#'): what ``(?im)^ {0,3}#{1,6}[ \\t]+how to
    apply\\b`` finds, read as a plain parser."""
    if "#" not in body:
        return False
    for line in body.split("\n"):
        rest = line[:3].lstrip(" ") + line[3:] if line[:1] == " " else line
        hashes = len(rest) - len(rest.lstrip("#"))
        if not 1 <= hashes <= 6:
            continue
        words = rest[hashes:].lstrip(" \t")
        if len(words) == len(rest) - hashes:
            continue  # no space or tab after the '#'s
        label, after = words[:12], words[12:13]
        if label.isascii() and label.lower() == "how to apply" and not (after.isalnum() or after == "_"):
            return True
    return False


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


# -- fields: the schema and the spec's rules ----------------------------------------------


def _field_findings(display: str, parsed: ParsedEntry, entry: dict, places: dict,
                    date_fields: frozenset[str], unchecked: frozenset[str] = frozenset()) -> list[Diagnostic]:
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
                    continue  # said by the legacy findings, downgraded (App. A)
                if missing == "how_to_apply" and how_to_apply_section(entry["body"] or ""):
                    found.append(diagnostic(
                        rules.LEGACY_HOW_TO_APPLY, display,
                        "how_to_apply comes from the **How to apply:** body section (the legacy form, accepted); "
                        "a how_to_apply field is the canonical form", *place("type")))
                    continue
            found.append(diagnostic(rule, display, _missing_message(missing, entry), *place("type" if missing in (
                "trigger", "how_to_apply", "added", "hidden_at") else missing)))
            continue
        key = str(path[0]) if path else ""
        if key in unchecked or ".".join(map(str, path[:2])) in unchecked:
            continue  # a flow collection: its warning says what each reader makes of it
        shown = ".".join(str(part) for part in path) or "frontmatter"
        actual = _lookup(fields, path)
        if key == "type" and keyword == "enum":
            if isinstance(actual, str) and actual in LEGACY_TYPES:
                continue  # the dossier finding says it
            found.append(diagnostic(
                rules.UNKNOWN_TYPE, display,
                f"type {_show(actual)} is none of the six entry types, so readers show the entry as opaque; "
                f"use {_TYPES}", *place("type")))
            continue
        if key == "schema_version":
            found.append(diagnostic(
                rules.SCHEMA_VERSION, display,
                f"schema_version {_show(actual)} is not an integer of at least 1, so readers cannot tell the entry's "
                "version; write an integer, or leave it out (absent means 1)", *place(key)))
            continue
        if keyword == "pattern" and expected != r"\S":
            found.append(diagnostic(
                rules.DATE, display,
                f"{shown} {_show(actual)} is not an ISO 8601 date or date-time, so merges compare it as the oldest "
                "date of all; write YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ", *place(key)))
            continue
        if key == "name":
            what = "empty" if isinstance(actual, str) and not actual.strip() else _kind(actual)
            found.append(diagnostic(
                rules.MISSING_NAME, display,
                f"name is {what}, so readers name the entry {entry['name']!r}; write a title or slug", *place(key)))
            continue
        found.append(diagnostic(rules.FIELD_TYPE, display, f"{shown} {_schema_message(keyword, expected, actual)}",
                                *place(key)))

    for key in sorted(date_fields):
        value = fields.get(key)
        if isinstance(value, str) and _date_pattern()(value) and _parse_date(value) is None:
            found.append(diagnostic(
                rules.DATE, display,
                f"{key} {value!r} has the shape of an ISO 8601 date but names no real day or time, so merges "
                "compare it as the oldest date of all; correct it", *place(key)))

    if not _text(fields.get("description")):
        found.append(diagnostic(
            rules.MISSING_DESCRIPTION, display,
            "no description, so indexes and pickers list the entry without one; add a one-line description",
            *place("name")))
    entry_type = entry["type"]
    if entry_type == "decision":
        if not _text(fields.get("why")):
            found.append(diagnostic(
                rules.DECISION_WHY, display, "decision without a why; add why: with the reason it was taken",
                *place("type")))
        if not _text(fields.get("rejected")):
            found.append(diagnostic(
                rules.DECISION_REJECTED, display,
                "decision without rejected; add rejected: naming the alternative and why it lost", *place("type")))
    start_field = {"next_action": "added", "goal": "set_on"}.get(entry_type)
    if start_field and fields.get("done_at") is not None:
        done, start = _parse_date(fields.get("done_at")), _parse_date(fields.get(start_field))
        if done is not None and start is not None and done < start:
            found.append(diagnostic(
                rules.DONE_BEFORE_ADDED, display,
                f"done_at {fields['done_at']} is earlier than {start_field} {fields[start_field]}, so it reads as "
                "done before it existed; correct one of the dates", *place("done_at")))
    return found


@lru_cache(maxsize=4096)
def _parse_date_text(value: str):
    return dates.parse_date(value)


def _parse_date(value: object):
    """dates.parse_date, remembered for text: a store repeats its dates."""
    return _parse_date_text(value) if isinstance(value, str) else dates.parse_date(value)


def _created_findings(display: str, fields: dict, places: dict) -> list[Diagnostic]:
    """created (3.2, SHOULD): an info, as the spec's own examples omit it; `updated` serves merges as well."""
    if "created" in fields or "updated" in fields:
        return []
    return [diagnostic(
        rules.NO_CREATED, display,
        "no created date (nor updated), so two copies of this file cannot be merged by date; add created: "
        "YYYY-MM-DD", *places.get("name", (0, 0)))]


def _missing_message(missing: str, entry: dict) -> str:
    if missing == "type":
        return f"no type, so readers show the entry as opaque; add type: with one of {_TYPES}"
    if missing == "name":
        return f"no name, so readers name the entry {entry['name']!r}; add name: with a title or slug"
    if missing == "trigger":
        return "lesson without a trigger: it says nowhere when it applies; add trigger:"
    if missing == "how_to_apply":
        return "lesson without how_to_apply: it says nowhere what to do; add how_to_apply:"
    if missing == "added":
        return ("next_action without added, so whether it is done (done_at against added, 5.3.2) is undefined; "
                "add added: with the date and time it was added")
    if missing == "hidden_at":
        return "hidden: true without hidden_at; add hidden_at: with the date it was hidden"
    return f"{missing} is missing; add it"


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
        wanted = _JSON_TYPES.get(wanted, wanted)
        shown = _kind(actual) if actual is None else f"{_kind(actual)} {_show(actual)}"  # not "null None"
        return f"is {shown} where the spec has {wanted}; write it as {wanted}"
    if keyword == "enum":
        choices = ", ".join(map(str, expected))  # type: ignore[arg-type]
        return f"is {_show(actual)}, which is none of {choices}; use one of them"
    if keyword == "minimum":
        return f"is {actual}, less than {expected}; use {expected} or more"
    if keyword == "pattern":
        return "is empty; write a value or leave the key out"
    return f"{_show(actual)} fails the schema's {keyword} {_show(expected)}"


# -- file names (spec 2) -------------------------------------------------------------------


def _file_name_findings(display: str, link: str, fields: dict, read_type: object) -> list[Diagnostic]:
    found = []
    if link[:1] not in _SLUG_START or link.strip(_SLUG_CHARS):
        found.append(diagnostic(
            rules.LINK_NAME_SLUG, display,
            f"file name {link!r} is not a lowercase slug (a-z, 0-9, '-', '_', '.'); rename the file and the "
            "[[links]] to it"))
    written = _written_type(fields)
    if not isinstance(written, str) or not (written in ENTRY_TYPES or written in LEGACY_TYPES):
        return found  # no type, or one outside both vocabularies: no prefix to expect
    expected = {f"{written}_"}
    if isinstance(read_type, str):
        expected.add(f"{read_type}_")
    folded = link.casefold()  # case is the slug rule's business
    if folded.startswith(tuple(expected)):
        return found
    other = next((prefix for prefix in _KNOWN_PREFIXES if folded.startswith(prefix)), None)
    if other:
        message = (f"file name prefix {other!r} disagrees with type {written!r}; rename the file to start with "
                   f"{written + '_'!r}, or correct the type")
    else:
        message = f"file name {link!r} lacks the type prefix {written + '_'!r}; rename it to {written}_{link}.md"
    found.append(diagnostic(rules.LINK_NAME_PREFIX, display, message))
    return found


# -- the entry schema, memoised on shape ------------------------------------------------------


@lru_cache(maxsize=1)
def _entry_schema() -> tuple[dict, frozenset[str], str]:
    """The entry schema, the keys it names and its date pattern."""
    from conformance.resources import load_schema

    schema = load_schema("entry.schema.json")
    known = set(schema["properties"])
    for branch in schema.get("allOf", ()):
        known.update(branch.get("then", {}).get("properties", {}))
        known.update(branch.get("then", {}).get("if", {}).get("properties", {}))
    return schema, frozenset(known), schema["$defs"]["date"]["pattern"]


@lru_cache(maxsize=1)
def _entry_error_finder() -> Callable[[object], list | None]:
    return error_finder(_entry_schema()[0])


@lru_cache(maxsize=1)
def _entry_validator():
    """jsonschema's validator of the entry schema, for a shape the error finder is not sure of."""
    return linear_schema.validator(_entry_schema()[0])


_ENUM_KEYS = frozenset({"type", "scope"})


def _shape(value: object, date_shaped: Callable[[str], bool] | None, keep: bool = False) -> object:
    """A hashable stand-in for `value` that the entry schema judges exactly
    as it judges `value`: the schema only asks of text whether it is empty,
    blank, date-shaped (in a date field: `date_shaped` is given) or (for enum
    keys) which word; of integers, their sign. Lists become ("list", ...) and
    mappings ("map", (key, value)...)."""
    if isinstance(value, str):  # the commonest, so asked first
        if keep:
            return ("text", value)
        if not value:
            return ""
        if not value.strip():
            return " "
        return "2000-01-01" if date_shaped is not None and date_shaped(value) else "x"
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return max(-1, min(value, 2))
    if isinstance(value, list):
        return ("list",) + tuple(_shape(item, None) for item in value)
    if isinstance(value, dict):
        return ("map",) + tuple((str(key), _shape(item, None)) for key, item in value.items())
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
    _entry_error_finder()


@lru_cache(maxsize=1)
def _date_pattern() -> Callable[[str], bool]:
    """Whether a text matches the schema's date pattern (on RE2; `finds` remembers: a store repeats its dates)."""
    return functools.partial(linear_schema.finds, _entry_schema()[2])


def schema_errors(fields: dict) -> tuple[tuple[tuple, str, object, str | None], ...]:
    """The entry schema's findings on `fields`: (path, keyword, expected, missing property).

    A list is judged by its distinct item shapes, each at the place of its
    first item (the schema asks nothing of a list but each item's type), so a
    hostile list of a million tags costs one item."""
    _, known, _ = _entry_schema()
    pattern = _date_pattern()
    shape = ["map"]
    first_items: dict[str, list[int]] = {}
    for key in sorted(key for key in fields if key in known):
        value = fields[key]
        if isinstance(value, list):
            distinct: dict[object, int] = {}
            for index, item in enumerate(value):
                distinct.setdefault(_shape(item, None), index)
            first_items[key] = list(distinct.values())
            shape.append((key, ("list", *distinct)))
        else:
            shape.append((key, _shape(value, pattern if key in DATE_KEYS else None, keep=key in _ENUM_KEYS)))
    found = _schema_errors_of_shape(tuple(shape))
    if not first_items:
        return found
    return tuple((_item_path(path, first_items), *rest) for path, *rest in found)


def _item_path(path: tuple, first_items: dict[str, list[int]]) -> tuple:
    """A path into a list of distinct items, as a path into the list itself."""
    if len(path) >= 2 and path[0] in first_items and isinstance(path[1], int):
        return (path[0], first_items[path[0]][path[1]], *path[2:])
    return path


_REQUIRED_SUFFIX = "' is a required property"


def _required_property(message: str) -> str | None:
    """The NAME of jsonschema's "'NAME' is a required property" (what ``^'(.+)' is a required property$`` finds)."""
    if message.endswith("\n"):
        message = message[:-1]  # `$` is also before a final newline
    name = message[1:-len(_REQUIRED_SUFFIX)]
    if message[:1] != "'" or not message.endswith(_REQUIRED_SUFFIX) or not name or "\n" in name:
        return None
    return name


@lru_cache(maxsize=4096)
def _schema_errors_of_shape(shape: tuple) -> tuple[tuple[tuple, str, object, str | None], ...]:
    document = _thaw(shape)
    found = _entry_error_finder()(document)
    if found is None:
        found = [(tuple(error.absolute_path), str(error.validator), error.validator_value,
                  _required_property(error.message) if error.validator == "required" else None)
                 for error in _entry_validator().iter_errors(document)]
    found = [(path, keyword, _freeze(expected), missing) for path, keyword, expected, missing in found]
    found.sort(key=lambda item: (item[0] and str(item[0][0]) or "", item[1], str(item[3])))
    return tuple(found)


def _freeze(value: object) -> object:
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value
