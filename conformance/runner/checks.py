"""The check keywords of a vector's `expect` list, evaluated on a result document.

Every keyword compares through one semantic layer, `conformance.runner.compare`
(dates as instants, items aligned by identity, bodies up to line endings,
unknown frontmatter keys and clock stamps advisory where they cannot decide).
Each check names an RFC 6901 JSON Pointer (`path`) into the result document
and one keyword (docs/architecture.md, "Vector files"). Evaluating a check
gives every mismatch (a bounded number of them) as a `CheckFailure` that
shows expected against actual at the exact path, the deepest differing
sub-path for deep mismatches: one run shows all that is wrong.

Identity is the spec's (5.1): `normalize(text)`, carried as the text hash,
so that a purged tombstone (`text_hash`) meets the texts it suppresses.
Lists of session items compare as sets keyed by identity; an absent session
list is the empty list.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

from conformance.model import dates
from conformance.model.identity import item_key, text_hash
from conformance.runner.compare import (
    BASIC_FORMAT,
    DATE_FIELDS,
    MISSING,
    STRICT,
    Difference,
    Rules,
    advisory_for,
    differences,
    extended_spelling,
    join_pointer,
    label,
    parse_pointer,
    short,
    subset_differences,
    type_name,
)
from conformance.runner.vectors import content_bytes

__all__ = ["DATE_FIELDS", "MISSING", "CheckContext", "CheckFailure", "FileContext", "Rules", "differences",
           "evaluate", "evaluate_all", "evaluate_check", "join_pointer", "parse_pointer", "resolve"]

@dataclass(frozen=True)
class CheckFailure:
    """One failed check: expected against actual at a JSON Pointer, and what
    the check checks (its requirements, and the interpretation it rests on)."""

    path: str           # the deepest pointer where expected and actual differ
    check: str          # the keyword, e.g. "equals"
    expected: object    # JSON value, or MISSING
    actual: object      # JSON value, or MISSING
    message: str
    note: str | None = None
    requirements: tuple[str, ...] = ()
    ambiguity: str | None = None
    advisory: str | None = None   # the comparison rule that keeps this mismatch from deciding

    def to_json(self) -> dict:
        data = {
            "path": self.path,
            "check": self.check,
            "expected": to_json_value(self.expected),
            "actual": to_json_value(self.actual),
            "message": self.message,
            "requirements": list(self.requirements),
        }
        if self.note:
            data["note"] = self.note
        if self.ambiguity:
            data["ambiguity"] = self.ambiguity
        if self.advisory:
            data["advisory"] = self.advisory
        return data


def to_json_value(value: object) -> object:
    """A value for a report: MISSING becomes {"$absent": true}."""
    if value is MISSING:
        return {"$absent": True}
    if isinstance(value, bytes):
        return {"$bytes": len(value)}
    return value


@dataclass(frozen=True)
class FileContext:
    """Bytes of stores before and after the op, for `unchanged` and `preserved`.

    Keys are the top-level names of the result document that hold files
    (`files`, and for merge_stores also `local_files` and `remote_files`).
    """

    original: dict[str, dict[str, bytes]] = field(default_factory=dict)
    after: dict[str, dict[str, bytes]] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckContext:
    """What a check needs besides the result document: the files before and
    after the op, the comparison rules of where the document came from, and
    for a write, the lists each identity of its input held that the op was
    not asked about (`stamped` checks only what the op wrote; None: check
    every item; the key None stands for the items without an identity)."""

    files: FileContext | None = None
    rules: Rules = STRICT
    input_lists: dict[str | None, frozenset[str]] | None = None


# --- JSON Pointer --------------------------------------------------------------

@dataclass(frozen=True)
class Resolved:
    value: object          # MISSING when nothing is there
    pointer: str           # canonical pointer of what was reached
    parent_exists: bool    # the container one level up exists (so an absent list reads as [])


def resolve(document: object, pointer: str) -> Resolved:
    """Follow `pointer`. A dict key holding a '/' (a file path under
    `/files`) may also be written unescaped: `/files/memory/a.md`."""
    tokens = parse_pointer(pointer)
    value, canonical, index = document, "", 0
    while index < len(tokens):
        token = tokens[index]
        if isinstance(value, dict):
            if token in value:
                value, canonical, index = value[token], join_pointer(canonical, token), index + 1
                continue
            joined = _joined_key(value, tokens, index)
            if joined is None:
                return Resolved(MISSING, join_pointer(canonical, *tokens[index:]), index == len(tokens) - 1)
            key, used = joined
            value, canonical, index = value[key], join_pointer(canonical, key), index + used
        elif isinstance(value, list):
            if not (token.isdigit() and (token == "0" or not token.startswith("0"))) or int(token) >= len(value):
                return Resolved(MISSING, join_pointer(canonical, *tokens[index:]), index == len(tokens) - 1)
            value, canonical, index = value[int(token)], join_pointer(canonical, token), index + 1
        else:
            return Resolved(MISSING, join_pointer(canonical, *tokens[index:]), False)
    return Resolved(value, canonical, True)


def _joined_key(mapping: dict, tokens: list[str], start: int) -> tuple[str, int] | None:
    for end in range(len(tokens), start + 1, -1):
        key = "/".join(tokens[start:end])
        if key in mapping:
            return key, end - start
    return None


# --- identity ------------------------------------------------------------------

def actual_key(element: object) -> str | None:
    if isinstance(element, dict):
        return item_key(element)
    if isinstance(element, str):
        return text_hash(element)
    return None


def expected_key(spec: object) -> str | None:
    """The identity a check names: a text, 'sha256:<hex>', or an object's text_hash / text."""
    if isinstance(spec, str):
        if spec.startswith("sha256:"):
            return spec[len("sha256:"):].strip().lower()
        return text_hash(spec)
    if isinstance(spec, dict):
        if isinstance(spec.get("text_hash"), str):
            return spec["text_hash"].strip().lower()
        if isinstance(spec.get("text"), str):
            return text_hash(spec["text"])
    return None


@dataclass(frozen=True)
class _Member:
    key: str
    label: object
    element: object
    token: str       # pointer token of this member (list index or dict key)


@dataclass(frozen=True)
class _Collection:
    members: list[_Member]
    by_key: Callable[[object], str | None]    # how a check's spec names a member

    def find(self, key: str) -> list[_Member]:
        return [member for member in self.members if member.key == key]


def _collection(value: object) -> _Collection | str:
    """The identities held by a list of items or texts (or by a dict's keys,
    for `/entries` and `/files`, where identity is the link name or path)."""
    if value is MISSING:
        return _Collection([], expected_key)
    if isinstance(value, list):
        members = []
        for index, element in enumerate(value):
            key = actual_key(element)
            if key is not None:
                members.append(_Member(key, label(element), element, str(index)))
        return _Collection(members, expected_key)
    if isinstance(value, dict):
        members = [_Member(key, key, element, key) for key, element in value.items()]
        return _Collection(members, lambda spec: spec if isinstance(spec, str) else (spec.get("text") if isinstance(spec, dict) else None))
    return f"expected a list of items or texts, found {type_name(value)}"


def _spec_label(spec: object) -> object:
    if isinstance(spec, dict):
        if isinstance(spec.get("text_hash"), str):
            return f"sha256:{spec['text_hash']}"
        return spec.get("text")
    return spec


# --- the keywords ----------------------------------------------------------------

# What a check says besides its keyword.
ANNOTATIONS = ("path", "note", "requirements", "ambiguity", "unless_refused")
# Mismatches reported per check; the rest are counted on the last one shown.
SHOWN_DIFFERENCES = 10


def check_keyword(check: dict) -> str:
    return next(key for key in check if key not in ANNOTATIONS)


def evaluate_check(check: dict, document: dict, files: FileContext | None = None,
                   context: CheckContext | None = None) -> list[CheckFailure]:
    """Every mismatch of one check, deciding ones first (at most
    SHOWN_DIFFERENCES; the last one shown counts the others); empty when it
    holds. A mismatch that a comparison rule makes advisory says which."""
    context = context or CheckContext(files)
    keyword = check_keyword(check)
    note = check.get("note")
    try:
        resolved = resolve(document, check["path"])
    except ValueError as error:
        return [CheckFailure(check["path"], keyword, check[keyword], MISSING, str(error), note)]
    found = []
    for item in KEYWORDS[keyword](check[keyword], resolved, check["path"], context):
        path, expected, actual, message = item[:4]
        advisory = item[4] if len(item) > 4 else None
        found.append(CheckFailure(path, keyword, expected, actual, message, note,
                                  advisory=advisory or advisory_for(path, context.rules)))
    found.sort(key=lambda failure: failure.advisory is not None)
    failures = found[:SHOWN_DIFFERENCES]
    if len(found) > SHOWN_DIFFERENCES:
        last = failures[-1]
        failures[-1] = replace(last, message=f"{last.message} (and {len(found) - SHOWN_DIFFERENCES} more "
                                             "differences of this check, not shown)")
    return failures


def evaluate(check: dict, document: dict, files: FileContext | None = None,
             context: CheckContext | None = None) -> CheckFailure | None:
    """The first mismatch of one check; None when it holds."""
    return next(iter(evaluate_check(check, document, files, context)), None)


def evaluate_all(checks: Iterable[dict], document: dict, files: FileContext | None = None) -> list[CheckFailure]:
    return [failure for check in checks for failure in evaluate_check(check, document, files)]


# (path, expected, actual, message) or, from the comparison layer, with the advisory reason too.
_Found = tuple
_Results = Iterator[_Found]


def _missing_parent(resolved: Resolved, expected: object, path: str) -> _Found | None:
    if resolved.value is MISSING and not resolved.parent_exists:
        return path, expected, MISSING, f"nothing at {path} nor at its parent"
    return None


def _as_found(found: Iterable[Difference], prefix: str = "") -> _Results:
    for item in found:
        yield item.path, item.expected, item.actual, prefix + item.message, item.advisory


def check_equals(expected: object, resolved: Resolved, path: str, context: CheckContext) -> _Results:
    if resolved.value is MISSING and expected == [] and resolved.parent_exists:
        return
    if resolved.value is MISSING:
        yield path, expected, MISSING, f"nothing at {path}"
        return
    yield from _as_found(differences(expected, resolved.value, resolved.pointer, context.rules))


def check_one_of(expected: list, resolved: Resolved, path: str, context: CheckContext) -> _Results:
    if resolved.value is MISSING:
        yield path, expected, MISSING, f"nothing at {path}"
    elif not any(not _deciding(differences(option, resolved.value, resolved.pointer, context.rules))
                 for option in expected):
        yield (resolved.pointer, expected, resolved.value,
               f"expected one of {short(expected, 200)}, found {short(resolved.value)}")


def _collect(resolved: Resolved, expected: object, path: str) -> _Collection | _Found:
    problem = _missing_parent(resolved, expected, path)
    if problem:
        return problem
    collection = _collection(resolved.value)
    if isinstance(collection, str):
        return path, expected, resolved.value, collection
    return collection


def check_identities(expected: list, resolved: Resolved, path: str, context: CheckContext) -> _Results:
    collection = _collect(resolved, expected, path)
    if not isinstance(collection, _Collection):
        yield collection
        return
    seen: dict[str, _Member] = {}
    for member in collection.members:
        if member.key in seen:
            yield (join_pointer(resolved.pointer, member.token), MISSING, member.label,
                   f"identity {short(member.label)} appears twice")
        seen.setdefault(member.key, member)
    wanted = {collection.by_key(spec): spec for spec in expected}
    missing = [spec for key, spec in wanted.items() if key not in seen]
    unexpected = [member.label for key, member in seen.items() if key not in wanted]
    parts = []
    if missing:
        parts.append(f"missing {short(missing, 200)}")
    if unexpected:
        parts.append(f"unexpected {short(unexpected, 200)}")
    if parts:
        yield resolved.pointer, expected, [member.label for member in collection.members], "; ".join(parts)


def _is_row_spec(spec: object) -> bool:
    """An object naming no identity (no `text`, no `text_hash`): it names the
    rows that carry its fields, for lists whose items have no identity
    (history rows, spec 4.1)."""
    return isinstance(spec, dict) and "text" not in spec and "text_hash" not in spec


def _matching_rows(spec: dict, value: object) -> list[int]:
    rows = value if isinstance(value, list) else []
    return [index for index, row in enumerate(rows) if next(subset_differences(spec, row, ""), None) is None]


def _deciding(found: Iterable[Difference]) -> list[Difference]:
    return [item for item in found if item.advisory is None]


def check_contains(expected: list, resolved: Resolved, path: str, context: CheckContext) -> _Results:
    collection = _collect(resolved, expected, path)
    if not isinstance(collection, _Collection):
        yield collection
        return
    for spec in expected:
        if _is_row_spec(spec) and isinstance(resolved.value, list):
            if not _matching_rows(spec, resolved.value):
                yield (resolved.pointer, spec, resolved.value, f"no element has the fields {short(spec)}")
            continue
        key = collection.by_key(spec)
        found = collection.find(key) if key is not None else []
        if not found:
            yield (resolved.pointer, spec, [member.label for member in collection.members],
                   f"{short(_spec_label(spec))} is not present")
            continue
        if not isinstance(spec, dict):
            continue
        # The field that names the identity is not compared verbatim (a text
        # matches case-insensitively, and a purged copy by its hash).
        naming = "text_hash" if isinstance(spec.get("text_hash"), str) else "text"
        fields = {name: value for name, value in spec.items() if name != naming}
        if not fields:
            continue
        member = found[0]
        where = join_pointer(resolved.pointer, member.token)
        if not isinstance(member.element, dict):
            yield (where, spec, member.element,
                   f"{short(member.label)} is a plain text here; fields {short(sorted(fields))} cannot be checked")
            continue
        yield from _as_found(subset_differences(fields, member.element, where), f"{short(_spec_label(spec))}: ")


def check_excludes(expected: list, resolved: Resolved, path: str, context: CheckContext) -> _Results:
    collection = _collect(resolved, expected, path)
    if not isinstance(collection, _Collection):
        yield collection
        return
    for spec in expected:
        if _is_row_spec(spec) and isinstance(resolved.value, list):
            for index in _matching_rows(spec, resolved.value):
                yield (join_pointer(resolved.pointer, index), MISSING, resolved.value[index],
                       f"an element with the fields {short(spec)} must not be present")
            continue
        key = collection.by_key(spec)
        for member in collection.find(key) if key is not None else []:
            yield (join_pointer(resolved.pointer, member.token), MISSING, member.element,
                   f"{short(_spec_label(spec))} must not be present")


def check_order(expected: list, resolved: Resolved, path: str, context: CheckContext) -> _Results:
    collection = _collect(resolved, expected, path)
    if not isinstance(collection, _Collection):
        yield collection
        return
    actual = collection.members
    found = f"expected order {short(expected, 200)}, found {short([m.label for m in actual], 200)}"
    for index, spec in enumerate(expected):
        if index >= len(actual):
            yield join_pointer(resolved.pointer, index), spec, MISSING, found
            return
        if collection.by_key(spec) != actual[index].key:
            yield join_pointer(resolved.pointer, actual[index].token), spec, actual[index].label, found
            return
    if len(actual) > len(expected):
        extra = actual[len(expected)]
        yield join_pointer(resolved.pointer, extra.token), MISSING, extra.label, found


def check_absent(expected: bool, resolved: Resolved, path: str, context: CheckContext) -> _Results:
    if expected and resolved.value is not MISSING:
        yield resolved.pointer, MISSING, resolved.value, f"expected nothing at {path}"
    if not expected and resolved.value is MISSING:
        yield path, "something", MISSING, f"expected a value at {path}"


def check_count(expected: int | dict, resolved: Resolved, path: str, context: CheckContext) -> _Results:
    problem = _missing_parent(resolved, expected, path)
    if problem:
        yield problem
        return
    # {"at_most": N}: a bound where the spec forbids more but does not require any (a stamp that is a SHOULD).
    at_most = expected.get("at_most") if isinstance(expected, dict) else None
    wanted = f"at most {at_most}" if at_most is not None else str(expected)
    value = [] if resolved.value is MISSING else resolved.value
    if not isinstance(value, (list, dict)):
        yield path, expected, value, f"expected a list of {wanted}, found {type_name(value)}"
    elif len(value) > at_most if at_most is not None else len(value) != expected:
        shown = [label(element) for element in value] if isinstance(value, list) else sorted(value)
        yield (resolved.pointer, expected, len(value),
               f"expected {wanted} elements, found {len(value)}: {short(shown, 200)}")


def check_matches(expected: dict, resolved: Resolved, path: str, context: CheckContext) -> _Results:
    if resolved.value is MISSING:
        yield path, expected, MISSING, f"nothing at {path}"
        return
    yield from _as_found(subset_differences(expected, resolved.value, resolved.pointer))


def check_stamped(fields: list[str], resolved: Resolved, path: str, context: CheckContext) -> _Results:
    value = resolved.value
    if value is MISSING:
        yield path, fields, MISSING, f"nothing at {path} to check stamps on"
        return
    items = [(resolved.pointer, value)] if isinstance(value, dict) else [
        (join_pointer(resolved.pointer, index), item) for index, item in enumerate(value)
    ] if isinstance(value, list) else None
    if items is None:
        yield path, fields, value, f"expected items, found {type_name(value)}"
        return
    if not items:
        yield path, fields, [], f"no items at {path} to check stamps on"
        return
    written = [(where, item, stamped_by_op(item, fields, resolved.pointer, context)) for where, item in items]
    if not any(names for _, _, names in written):
        yield path, fields, [label(item) for item in value], f"no item at {path} was written by the op"
        return
    for where, item, names in written:
        if not isinstance(item, dict):
            yield where, fields, item, f"expected an item object, found {type_name(item)}"
            continue
        for name in names:
            stamp = item.get(name, MISSING)
            at = join_pointer(where, name)
            if stamp is MISSING:
                yield at, name, MISSING, f"{short(label(item))} has no {name!r} stamp"
            elif name in DATE_FIELDS:
                if not dates.is_iso8601(stamp):
                    yield (at, "an ISO 8601 date-time", stamp, f"{short(label(item))}: {name} is not ISO 8601",
                           BASIC_FORMAT if extended_spelling(stamp) else None)
            elif not (isinstance(stamp, str) and stamp.strip()):
                yield at, "a non-empty string", stamp, f"{short(label(item))}: {name} is not a non-empty string"


# The stamp an op writes on an item it moves into a list (spec 4.1: `parked_at`
# "records when it overflowed").
MOVE_STAMPS = {"parked_actions": ("parked_at",)}


def stamped_by_op(item: object, fields: list[str], pointer: str, context: CheckContext) -> list[str]:
    """The stamps of `fields` the op is answerable for on `item`: all of them
    on an item it added or was asked about; on an item it found in its input
    and moved into this list, only the stamp of the move; none on an item it
    found in this list already (its stamps are the input's)."""
    if context.input_lists is None or not isinstance(item, dict):
        return list(fields)
    key = item_key(item)
    if key not in context.input_lists:
        return list(fields)
    tokens = parse_pointer(pointer)
    here = tokens[-1] if tokens else ""
    if here in context.input_lists[key]:
        return []
    return [name for name in fields if name in MOVE_STAMPS.get(here, ())]


def _file_target(path: str, files: FileContext | None) -> tuple[str, str] | str:
    tokens = parse_pointer(path)
    if files is None or len(tokens) < 2 or tokens[0] not in files.after:
        holders = sorted(files.after) if files else []
        return f"{path} does not name a file: use /<{'|'.join(holders) or 'files'}>/<relative path>"
    return tokens[0], "/".join(tokens[1:])


def _text_or_size(data: bytes | None) -> object:
    if data is None:
        return MISSING
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return f"<{len(data)} bytes, not UTF-8>"
    return text if len(text) <= 400 else text[:397] + "..."


def check_unchanged(expected: bool, resolved: Resolved, path: str, context: CheckContext) -> _Results:
    files = context.files
    target = _file_target(path, files)
    if isinstance(target, str):
        yield path, True, MISSING, target
        return
    holder, relative = target
    original = files.original.get(holder, {}).get(relative)
    if original is None:
        yield path, MISSING, _text_or_size(files.after[holder].get(relative)), f"the input has no file {relative!r}"
        return
    now = files.after[holder].get(relative)
    if now != original:
        message = f"{relative} was deleted" if now is None else f"{relative} was modified"
        yield path, _text_or_size(original), _text_or_size(now), message


def check_preserved(expected: object, resolved: Resolved, path: str, context: CheckContext) -> _Results:
    """`true`: the file's own original bytes; or the bytes named (a STORE file
    content), for a store whose originals were elsewhere (merge_stores `out`)."""
    files = context.files
    target = _file_target(path, files)
    if isinstance(target, str):
        yield path, True, MISSING, target
        return
    holder, relative = target
    if expected is True:
        original = files.original.get(holder, {}).get(relative)
    else:
        original = content_bytes(expected)
    if original is None:
        yield path, MISSING, MISSING, f"the input has no file {relative!r}"
        return
    store = files.after[holder]
    # The file itself, or a quarantine copy beside it or anywhere in the store.
    if store.get(relative) == original or any(data == original for data in store.values()):
        return
    folder = posixpath.dirname(relative)
    beside = sorted(name for name in store if posixpath.dirname(name) == folder)
    yield (path, _text_or_size(original), beside,
           f"the original bytes of {relative} are neither in it nor in any copy in the store (files there: {short(beside, 200)})")


KEYWORDS: dict[str, Callable[[object, Resolved, str, FileContext | None], _Results]] = {
    "equals": check_equals,
    "one_of": check_one_of,
    "identities": check_identities,
    "contains": check_contains,
    "excludes": check_excludes,
    "order": check_order,
    "absent": check_absent,
    "count": check_count,
    "matches": check_matches,
    "stamped": check_stamped,
    "unchanged": check_unchanged,
    "preserved": check_preserved,
}
