"""The reading the validator checks: the model's, where YAML writers' output reads otherwise made lenient.

The reference model reads frontmatter line by line (AMB-FRONTMATTER-LINES),
the kit's reading of the subset of 3.1. That reading is an interpretation,
and an interpretation never makes an error: the spec's one keyword on the
frontmatter being YAML is a SHOULD (3.1), and its MUST NOT names only
anchors, multi-line block scalars and deeper nesting. So where the common
YAML writers (PyYAML, python-frontmatter, js-yaml, gray-matter, Go yaml.v3)
emit a form the subset reads otherwise, the field rules check what the
writer wrote, and a warning (the subset rules, `yaml_hazards`) says how a
reader of the subset differs:

- `[]` and `{}` are an empty list and an empty mapping (what those writers
  emit for an empty container), with no finding at all;
- a non-empty flow collection (`tags: [a, b]`) is left to its flow warning:
  the field rules do not also judge the text the subset reads it as;
- `True`, `TRUE`, `False` and `FALSE` (YAML 1.2 core booleans) are booleans;
- a null value (`key:`, `null`, `Null`, `NULL`, `~`) is an absent key;
- an unquoted integer in a text field (`name: 2026`) is its text;
- a quoted top-level key (`"type": fact`) is its key;
- a value folded over indented lines (PyYAML folds at 80 columns) is the one
  value a YAML engine reads (asked at the event level, as in `yaml_hazards`),
  and one `folded` problem instead of a bad line per continuation.

Nothing here changes the model or what the runner reads.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from conformance.model.frontmatter import ParsedEntry, Problem, parse_entry_text
from conformance.validator.memoir.yaml_hazards import MAX_YAML_CHARS, TEXT_FIELDS

# Problem codes of the validator's own (the model's are frontmatter.PROBLEM_CODES).
FOLDED = "folded"
QUOTED_KEY = "quoted-key"

_CORE_BOOLEANS = {"True": True, "TRUE": True, "False": False, "FALSE": False}
_EMPTY_FLOW = {"[]": list, "{}": dict}
_ABSENT = object()
# What a value `_with_plain_values` changes starts with ("": nothing, a null or a block below the key).
_LENIENT_STARTS = frozenset(["", "[", "{", "T", "F", "n", "N", "~", "-", *"0123456789"])
# What starts a value that is no plain scalar (a quote is handled on its own).
_NOT_PLAIN = frozenset("&*!|>[{#")
_BAD_KEY_START = frozenset("-?:,[]{}#&*!|>'\"%@`")


class Reading(NamedTuple):
    parsed: ParsedEntry
    # Key paths ("tags", "origin.tool") whose value is a non-empty flow collection.
    unchecked: frozenset[str]


def lenient(parsed: ParsedEntry) -> Reading:
    """`parsed`, read as the writer evidently wrote it (see the module's docstring)."""
    if not parsed.has_frontmatter:
        return Reading(parsed, frozenset())
    if parsed.problems:  # the fast path's readings have none: most files stop here
        parsed = _with_quoted_keys(parsed)
        parsed = _with_folded_values(parsed)
    return _with_plain_values(parsed)


def _read_one(raw: str) -> tuple[object, tuple[Problem, ...]]:
    """The model's reading of one value written `raw`, and its problems (at line 2, the value at column 4)."""
    parsed = parse_entry_text(f"---\nk: {raw}\n---\n")
    return parsed.fields.get("k"), parsed.problems


def _moved(problems: tuple[Problem, ...], line: int, column: int) -> list[Problem]:
    """Problems of `_read_one`, at the place of the value in the file."""
    return [replace(problem, line=line, column=column + problem.column - 4) for problem in problems]


# -- values ---------------------------------------------------------------------------------


def _with_plain_values(parsed: ParsedEntry) -> Reading:
    changes: list[tuple[str, object]] = []
    unchecked: set[str] = set()
    empty_flow_lines: set[int] = set()
    fields = parsed.fields
    for path, line, _column, raw in parsed.places:
        first = raw[:1]
        if first not in _LENIENT_STARTS or "[" in path or path.count(".") > 1:
            continue  # most values; list items are always text, deeper values the nesting rule's
        if not raw:
            if _get(fields, path) is None:
                changes.append((path, _ABSENT))
            continue
        if first in "[{":
            empty = _EMPTY_FLOW.get(raw.replace(" ", ""))
            if empty is not None:
                changes.append((path, empty()))
                empty_flow_lines.add(line)
            else:
                unchecked.add(path)
        elif first in "TF" and raw in _CORE_BOOLEANS:
            changes.append((path, _CORE_BOOLEANS[raw]))
        elif path in TEXT_FIELDS and (first.isdigit() or first == "-"):
            value = _get(fields, path)
            if isinstance(value, int) and not isinstance(value, bool):
                changes.append((path, raw))
        elif first in "nN~" and raw in ("null", "Null", "NULL", "~"):
            changes.append((path, _ABSENT))
    if not changes and not unchecked:
        return Reading(parsed, frozenset())
    fields = _copy(fields)
    for path, value in changes:
        _set(fields, path, value)
    problems = parsed.problems
    if empty_flow_lines:
        problems = tuple(problem for problem in problems
                         if not (problem.code == "flow-collection" and problem.line in empty_flow_lines))
    return Reading(replace(parsed, fields=fields, problems=problems), frozenset(unchecked))


def _copy(fields: dict) -> dict:
    """A copy of the fields that can be changed one level deep without changing the model's reading."""
    return {key: dict(value) if isinstance(value, dict) else value for key, value in fields.items()}


def _get(fields: dict, path: str) -> object:
    parent, _, key = path.rpartition(".")
    holder = fields.get(parent) if parent else fields
    return holder.get(key) if isinstance(holder, dict) else None


def _set(fields: dict, path: str, value: object) -> None:
    parent, _, key = path.rpartition(".")
    holder = fields.get(parent) if parent else fields
    if not isinstance(holder, dict) or key not in holder:
        return  # a duplicate key's earlier place, or a parent that is no mapping
    if value is _ABSENT:
        del holder[key]
    else:
        holder[key] = value


# -- quoted keys ----------------------------------------------------------------------------


def _quote_end(text: str) -> int:
    """The offset after the quote that closes the quoted scalar `text` starts with, or -1."""
    quote, position, length = text[0], 1, len(text)
    while position < length:
        char = text[position]
        if quote == '"' and char == "\\":
            position += 2
            continue
        if char == quote:
            if quote == "'" and text.startswith("''", position):
                position += 2
                continue
            return position + 1
        position += 1
    return -1


def _with_quoted_keys(parsed: ParsedEntry) -> ParsedEntry:
    """Top-level `"key": value` lines, which the model ignores as bad lines, read as YAML reads them."""
    first_line = parsed.frontmatter_start + 1
    fields, places, problems = None, list(parsed.places), []
    for problem in parsed.problems:
        content = parsed.frontmatter_lines[problem.line - first_line].rstrip(" \t") \
            if problem.code == "bad-line" and problem.column == 1 else ""
        end = _quote_end(content) if content[:1] in ("'", '"') else -1
        if end < 0 or content[end:end + 1] != ":" or content[end + 1:end + 2] not in ("", " ", "\t"):
            problems.append(problem)
            continue
        key, key_problems = _read_one(content[:end])
        raw = content[end + 1:].strip(" \t")
        current = parsed.fields if fields is None else fields
        if key_problems or not isinstance(key, str) or not key or key[0] in _BAD_KEY_START or key in current \
                or not raw:
            problems.append(problem)  # a key YAML reads otherwise, a duplicate, or a block below: as it was
            continue
        column = len(content) - len(raw) + 1
        value, value_problems = _read_one(raw)
        fields = dict(current)
        fields[key] = value
        places.append((key, problem.line, column, raw))
        problems.append(Problem(
            QUOTED_KEY, problem.line, 1,
            f"the quoted key {content[:end]} reads as the key {key!r} in YAML, but a reader of the frontmatter "
            "subset, whose keys are plain, ignores the line"))
        problems.extend(_moved(value_problems, problem.line, column))
    if fields is None:
        return parsed
    places.sort(key=lambda place: place[1])
    problems.sort(key=lambda problem: (problem.line, problem.column))
    return replace(parsed, fields=fields, places=tuple(places), problems=tuple(problems))


# -- folded values --------------------------------------------------------------------------


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


MAX_FOLDS = 100  # folded values looked at in one file (each is handed to a YAML engine)


def _engine_scalar(snippet: str, is_item: bool) -> tuple[str, str | None] | None:
    """The text and style (None: plain) of the one value `snippet` holds, as a
    YAML engine reads it (events only: nothing is composed), or None when the
    engine reads anything else or rejects it."""
    from ruamel.yaml import YAML
    from ruamel.yaml.events import AliasEvent, CollectionStartEvent, ScalarEvent

    try:
        events = list(YAML(typ="safe", pure=True).parse(snippet))
    except Exception:  # any engine failure: not a value folded as YAML folds it
        return None
    scalars = [event for event in events if isinstance(event, ScalarEvent)]
    nested = sum(isinstance(event, (CollectionStartEvent, AliasEvent)) for event in events)
    if len(scalars) != (1 if is_item else 2) or nested != 1 or scalars[-1].tag is not None:
        return None
    return scalars[-1].value, scalars[-1].style


def _with_folded_values(parsed: ParsedEntry) -> ParsedEntry:
    """A value continued on more indented lines, as YAML writers fold a long
    value: one problem, and the value a YAML engine reads."""
    bad_lines = {problem.line for problem in parsed.problems if problem.code == "bad-line"}
    if not bad_lines:
        return parsed
    first_line, lines = parsed.frontmatter_start + 1, parsed.frontmatter_lines
    fields = None
    places = list(parsed.places)
    dropped: set[tuple[str, int]] = set()
    added: list[Problem] = []
    for index, (path, line, column, raw) in enumerate(parsed.places):
        if not raw or line + 1 not in bad_lines or raw[0] in _NOT_PLAIN:
            continue
        if len(added) == MAX_FOLDS:
            break  # a hostile file: the rest stay bad lines
        own_indent = _indent(lines[line - first_line])
        end = line + 1
        while end - first_line < len(lines):
            text = lines[end - first_line]
            if text.strip(" \t") and (end not in bad_lines or _indent(text) <= own_indent):
                break
            end += 1
        if end == line + 1:
            continue  # the bad line after it is no continuation (it is not indented under the value)
        snippet = "\n".join(text[own_indent:] for text in lines[line - first_line:end - first_line])
        read = _engine_scalar(snippet, path.endswith("[]")) if len(snippet) <= MAX_YAML_CHARS else None
        if read is None:
            continue  # not one value to YAML either: the bad lines say so
        text, style = read
        count = sum(1 for text_line in lines[line + 1 - first_line:end - first_line] if text_line.strip(" \t"))
        dropped.update(("bad-line", number) for number in range(line + 1, end))
        dropped.add(("unterminated-quote", line))
        added.append(Problem(
            FOLDED, line, column,
            f"{path.replace('[]', ' item')} is folded over {count + 1} lines, as YAML writers fold a long value: "
            "YAML readers join the lines, but a reader of the frontmatter subset, which takes one 'key: value' a "
            "line, cuts the value at the end of its first line"))
        if style is None:  # plain: typed as the model types a plain value
            places[index] = (path, line, column, text)
            value = _read_one(text)[0]
        else:
            value = text
        if "[" not in path:  # (a folded list item keeps its first line: items are the list's business)
            fields = _copy(parsed.fields) if fields is None else fields
            _set(fields, path, value)
    if not added:
        return parsed
    problems = [problem for problem in parsed.problems if (problem.code, problem.line) not in dropped] + added
    problems.sort(key=lambda problem: (problem.line, problem.column))
    return replace(parsed, fields=parsed.fields if fields is None else fields, places=tuple(places),
                   problems=tuple(problems))
