"""Reading one entry file as a reader presents it (spec 3, 6, Appendix A).

`read_entry` gives the adapter protocol's ``read_store`` entry for one file:
its status, type, name, fields (after the legacy mappings of Appendix A),
body and ``[[wikilinks]]``, plus short notes of every legacy mapping that was
applied, so that a validator can say how a legacy file reads.
"""

from __future__ import annotations

from conformance import patterns
from conformance.model.dates import sort_key
from conformance.model.frontmatter import ParsedEntry, parse_entry_text, split_lines

ENTRY_TYPES = ("fact", "preference", "decision", "lesson", "goal", "next_action")

# Appendix A: the legacy type vocabulary and what each reads as. `project`
# has no atomic mapping: a dossier, read as an opaque legacy entry.
LEGACY_TYPES = {"user": "preference", "feedback": "lesson", "reference": "fact", "project": None}

KNOWN_SCHEMA_VERSION = 1

# A bold label line: **Label:** or **Label**: at the start of a line.
_BOLD_LABEL = patterns.compile(r"[ \t]*\*\*[^*\r\n]+?(?::\*\*|\*\*:)")
_HOW_TO_APPLY = patterns.compile(r"(?i)[ \t]*\*\*[ \t]*how to apply[ \t]*(?::\*\*|\*\*:)[ \t]*(.*)\z")


def read_entry(link: str, text: str) -> dict:
    """The protocol's read_store entry for the file `link` with content `text`."""
    return read_parsed(link, parse_entry_text(text))


def read_parsed(link: str, parsed: ParsedEntry) -> dict:
    """`read_entry` for a file already split by `parse_entry_text`."""
    version = newer_schema_version(parsed.fields)
    if version is not None:
        # Spec 6: a newer schema is not interpreted at all.
        return {
            "link": link, "status": "quarantined", "type": None, "name": None,
            "fields": {}, "body": None, "links": [],
            "legacy": [f"schema_version {version} is newer than {KNOWN_SCHEMA_VERSION}: not interpreted (spec 6)"],
        }
    fields = _copy(parsed.fields)
    body = parsed.body
    legacy: list[str] = []
    if not parsed.has_frontmatter:
        legacy.append("no frontmatter: read as an opaque legacy entry, name from the first # heading")
        return {
            "link": link, "status": "opaque", "type": None,
            "name": first_heading(body) or link, "fields": fields, "body": body,
            "links": wikilinks(body), "legacy": legacy,
        }

    _map_nested_type(fields, legacy)
    _map_origin_session(fields, legacy)
    entry_type = fields.get("type")
    status = "opaque"
    if isinstance(entry_type, str) and entry_type in LEGACY_TYPES:
        mapped = LEGACY_TYPES[entry_type]
        if mapped is None:
            legacy.append(f"type {entry_type} is a legacy dossier: read as an opaque legacy entry")
        else:
            legacy.append(f"type {entry_type} read as {mapped}")
            fields["type"] = entry_type = mapped
            if mapped == "lesson":
                _map_feedback_fields(fields, body, legacy)
    if isinstance(entry_type, str) and entry_type in ENTRY_TYPES:
        status = "ok"
    return {
        "link": link, "status": status, "type": entry_type,
        "name": entry_name(fields, body, link), "fields": fields, "body": body,
        "links": wikilinks(body), "legacy": legacy,
    }


# The date field a temporal tombstone (`done_at`) of an entry is compared with (spec 5.3.2).
TEMPORAL_DATE_FIELDS = {"goal": "set_on", "next_action": "added"}


def is_live(entry: dict) -> bool:
    """Whether a reader renders `entry` (a `read_entry` result) as live (spec 5.3, 8):
    not a decision with `hidden: true` (5.3.1, purged or not), nor a goal or
    next action whose `done_at` is not earlier than its `set_on` / `added`
    (5.3.2: a missing or unparseable date is the epoch, 5.2). A quarantined
    entry has no fields to read (spec 6): it is listed as it is."""
    fields = entry["fields"]
    if entry["type"] == "decision":
        return fields.get("hidden") is not True
    date_field = TEMPORAL_DATE_FIELDS.get(entry["type"])
    if date_field is None or "done_at" not in fields:
        return True
    return sort_key(fields.get(date_field)) > sort_key(fields["done_at"])


def newer_schema_version(fields: dict) -> int | None:
    """The entry's `schema_version` when it is newer than this model knows (spec 6), else None.
    Only an integer above 1 is newer (AMB-LEGACY-PRECEDENCE)."""
    version = fields.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > KNOWN_SCHEMA_VERSION:
        return version
    return None


def _copy(value):
    """A copy of plain frontmatter data (dicts, lists, scalars)."""
    # Scalars (most values) are taken as they are without a call per value.
    if isinstance(value, dict):
        return {key: _copy(item) if isinstance(item, (dict, list)) else item for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) if isinstance(item, (dict, list)) else item for item in value]
    return value


def _map_nested_type(fields: dict, legacy: list[str]) -> None:
    metadata = fields.get("metadata")
    if fields.get("type") is None and isinstance(metadata, dict) and metadata.get("type") is not None:
        fields["type"] = metadata["type"]
        legacy.append("metadata.type read as type")


def _map_origin_session(fields: dict, legacy: list[str]) -> None:
    metadata = fields.get("metadata")
    sources = [("originSessionId", fields.get("originSessionId"))]
    if isinstance(metadata, dict):
        sources.append(("metadata.originSessionId", metadata.get("originSessionId")))
    for where, session_id in sources:
        if session_id is None:
            continue
        origin = fields.get("origin")
        if origin is None:
            origin = fields["origin"] = {}
        if not isinstance(origin, dict):
            legacy.append(f"{where} not read: origin is not a mapping")
            return
        if "session_id" in origin:
            if where == "originSessionId" or origin["session_id"] != session_id:
                legacy.append(f"{where} not read as origin.session_id: origin already has one")
            continue
        origin["session_id"] = session_id
        legacy.append(f"{where} read as origin.session_id")


def _map_feedback_fields(fields: dict, body: str, legacy: list[str]) -> None:
    if "trigger" not in fields and isinstance(fields.get("description"), str):
        fields["trigger"] = fields["description"]
        legacy.append("description read as trigger")
    if "how_to_apply" not in fields:
        section = how_to_apply_section(body)
        if section:
            fields["how_to_apply"] = section
            legacy.append("**How to apply:** body section read as how_to_apply")


def entry_name(fields: dict, body: str, link: str) -> str:
    """`name` from the frontmatter, else the first # heading, else the link."""
    name = fields.get("name")
    if isinstance(name, str) and name.strip():
        return name
    if isinstance(name, int) and not isinstance(name, bool):
        return str(name)
    return first_heading(body) or link


def _body_lines(body: str):
    """The body's lines, each with whether it lies inside a fenced code block
    (a shell `# comment` in a fence is not a heading)."""
    fence: str | None = None
    for line in split_lines(body):
        opener = _fence_run(line)
        if fence is None:
            if opener:
                fence = opener
                yield line, True
            else:
                yield line, False
            continue
        if opener and opener[0] == fence[0] and len(opener) >= len(fence) \
                and not line.strip()[len(opener):].strip():
            fence = None
        yield line, True


def _fence_run(line: str) -> str | None:
    """The run of three or more backticks or tildes that opens or closes a
    fence (after up to three spaces), or None."""
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3 or rest[:1] not in ("`", "~"):
        return None
    run = len(rest) - len(rest.lstrip(rest[0]))
    return rest[:run] if run >= 3 else None


def _is_heading(line: str) -> bool:
    """Whether `line` is an ATX heading: up to three spaces, one to six `#`,
    then a space, a tab or the end of the line."""
    rest = line.lstrip(" ")
    marks = len(rest) - len(rest.lstrip("#"))
    return len(line) - len(rest) <= 3 and 1 <= marks <= 6 and rest[marks:marks + 1] in ("", " ", "\t")


def _h1_text(line: str) -> str | None:
    """The text of a `# H1` line (up to three spaces, `#`, a space or tab, the
    text, an optional closing run of `#` after a space or tab), or None.

    A plain parser: the regular expression it replaces took time growing with
    the square of a line like `# a` followed by spaces and tabs."""
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3 or rest[:1] != "#" or rest[1:2] not in (" ", "\t"):
        return None
    text = rest[1:].strip(" \t")
    unclosed = text.rstrip("#")
    if len(unclosed) < len(text) and unclosed[-1:] in (" ", "\t"):
        return unclosed.rstrip(" \t")
    return text


def first_heading(body: str) -> str | None:
    """The text of the first ``# H1`` outside code fences, or None."""
    if "#" not in body:
        return None
    for line, in_fence in _body_lines(body):
        text = None if in_fence else _h1_text(line)
        if text and text.strip():
            return text.strip()
    return None


def how_to_apply_section(body: str) -> str | None:
    """The text of the ``**How to apply:**`` body section: after the label, up
    to the next bold-label line, heading or the end (Appendix A)."""
    if "*" not in body:
        return None
    taken: list[str] | None = None
    for line, in_fence in _body_lines(body):
        if taken is None:
            match = None if in_fence else _HOW_TO_APPLY.match(line)
            if match:
                taken = [match.group(1)]
            continue
        if not in_fence and (_BOLD_LABEL.match(line) or _is_heading(line)):
            break
        taken.append(line)
    if taken is None:
        return None
    text = "\n".join(taken).strip()
    return text or None


def wikilinks(body: str) -> list[str]:
    """The ``[[link]]`` targets of a body in order of first appearance, without
    ``|alias`` or ``#heading`` parts, each once."""
    seen: dict[str, None] = {}
    for _start, inside in wikilink_spans(body):
        target = inside.split("|", 1)[0].split("#", 1)[0].strip()
        if target and target not in seen:
            seen[target] = None
    return list(seen)


def wikilink_spans(text: str) -> list[tuple[int, str]]:
    """(start, inside) of each ``[[inside]]`` of `text`, left to right: the
    inside is one character or more with no '[', ']' or line break, and ']]'
    follows it (what the pattern ``\\[\\[([^\\[\\]\\r\\n]+?)\\]\\]`` finds).

    The next place of each of those characters is remembered and only ever
    looked for further on, so no character is looked at twice."""
    found: list[tuple[int, str]] = []
    start = text.find("[[")
    following = dict.fromkeys("[]\r\n", -1)  # the next place of each, at or after the last look
    while start >= 0:
        inner = start + 2
        for char, place in following.items():
            if place < inner:
                place = text.find(char, inner)
                following[char] = place if place >= 0 else len(text)
        stop = min(following.values())
        if stop == following["]"] and stop > inner and text.startswith("]]", stop):
            found.append((start, text[inner:stop]))
            start = text.find("[[", stop + 2)
        else:
            start = text.find("[[", start + 1)
    return found
