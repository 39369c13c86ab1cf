"""The check keywords of a vector's `expect` list, evaluated on a result document.

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

import json
import posixpath
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

from conformance.model import dates
from conformance.model.identity import item_key, text_hash
from conformance.runner.vectors import content_bytes

# Fields compared as ISO 8601 dates by `stamped` (spec 3.3, 4.1).
DATE_FIELDS = frozenset({
    "added", "set_on", "date", "asked", "done_at", "hidden_at", "parked_at",
    "created_at", "updated_at", "last_seen", "created", "updated", "last_fired",
})


class _Missing:
    """Nothing at a JSON Pointer (distinct from JSON null)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<absent>"

    def __bool__(self) -> bool:
        return False


MISSING = _Missing()


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


# --- JSON Pointer --------------------------------------------------------------

def parse_pointer(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"{pointer!r} is not a JSON Pointer (it must start with '/')")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def join_pointer(pointer: str, *tokens: object) -> str:
    for token in tokens:
        pointer += "/" + str(token).replace("~", "~0").replace("/", "~1")
    return pointer


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


def label(element: object) -> object:
    """How an element is shown in a failure: its text, or its hash when purged."""
    if isinstance(element, dict):
        key = item_key(element)
        if element.get("hidden") is True and isinstance(element.get("text_hash"), str):
            return f"sha256:{key}"
        return element.get("text", element)
    return element


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


def type_name(value: object) -> str:
    if value is MISSING:
        return "nothing"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")


def _spec_label(spec: object) -> object:
    if isinstance(spec, dict):
        if isinstance(spec.get("text_hash"), str):
            return f"sha256:{spec['text_hash']}"
        return spec.get("text")
    return spec


# --- deep comparison -------------------------------------------------------------

@dataclass(frozen=True)
class Difference:
    path: str
    expected: object
    actual: object
    message: str


def _is_item_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(e, dict) and item_key(e) is not None for e in value)


def _same_scalar(expected: object, actual: object) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def differences(expected: object, actual: object, path: str) -> Iterator[Difference]:
    """Every place where `actual` differs from `expected`, each at its deepest path.

    Lists of session items compare as sets keyed by identity; a missing key
    and an empty list are the same (an absent session list equals [])."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected:
            if key not in actual:
                if expected[key] != []:
                    yield Difference(join_pointer(path, key), expected[key], MISSING, f"missing field {key!r}")
                continue
            yield from differences(expected[key], actual[key], join_pointer(path, key))
        for key in actual:
            if key not in expected and actual[key] != []:
                yield Difference(join_pointer(path, key), MISSING, actual[key], f"unexpected field {key!r}")
        return
    if isinstance(expected, list) and isinstance(actual, list):
        if (expected or actual) and _is_item_list(expected) and _is_item_list(actual):
            yield from _item_set_differences(expected, actual, path)
            return
        for index, (want, got) in enumerate(zip(expected, actual)):
            yield from differences(want, got, join_pointer(path, index))
        if len(expected) != len(actual):
            index = min(len(expected), len(actual))
            want = expected[index] if index < len(expected) else MISSING
            got = actual[index] if index < len(actual) else MISSING
            yield Difference(join_pointer(path, index), want, got,
                             f"expected {len(expected)} elements, found {len(actual)}")
        return
    if expected == [] and actual is MISSING:
        return
    if isinstance(expected, (dict, list)) or isinstance(actual, (dict, list)) or not _same_scalar(expected, actual):
        yield Difference(path, expected, actual, f"expected {_short(expected)}, found {_short(actual)}")


def difference(expected: object, actual: object, path: str) -> Difference | None:
    """The first place where `actual` differs from `expected`, or None."""
    return next(differences(expected, actual, path), None)


def _item_set_differences(expected: list[dict], actual: list[dict], path: str) -> Iterator[Difference]:
    actual_by_key: dict[str, tuple[int, dict]] = {}
    for index, item in enumerate(actual):
        key = item_key(item)
        if key in actual_by_key:
            yield Difference(join_pointer(path, index), MISSING, item, f"identity {label(item)!r} appears twice")
            continue
        actual_by_key[key] = (index, item)
    expected_keys = set()
    for item in expected:
        key = item_key(item)
        expected_keys.add(key)
        if key not in actual_by_key:
            yield Difference(path, item, [label(other) for other in actual],
                             f"missing item {label(item)!r} (lists compare by identity)")
            continue
        index, found_item = actual_by_key[key]
        yield from differences(item, found_item, join_pointer(path, index))
    for key, (index, item) in actual_by_key.items():
        if key not in expected_keys:
            yield Difference(join_pointer(path, index), MISSING, item, f"unexpected item {label(item)!r}")


def subset_differences(expected: dict, actual: object, path: str) -> Iterator[Difference]:
    """Where `actual` lacks a field of `expected` or differs in one (recursively
    for objects); a null field in `expected` must be absent from `actual`."""
    if not isinstance(actual, dict):
        yield Difference(path, expected, actual, f"expected an object, found {type_name(actual)}")
        return
    for key, want in expected.items():
        where = join_pointer(path, key)
        if want is None:
            if key in actual:
                yield Difference(where, MISSING, actual[key], f"field {key!r} must be absent")
            continue
        if key not in actual:
            if want != []:
                yield Difference(where, want, MISSING, f"missing field {key!r}")
            continue
        if _is_after_matcher(want):
            yield from _after_differences(want["$after"], actual[key], where)
        elif isinstance(want, dict):
            yield from subset_differences(want, actual[key], where)
        else:
            yield from differences(want, actual[key], where)


def _is_after_matcher(value: object) -> bool:
    """`{"$after": DATE}` in a subset match: a date a writer stamps now, which
    a vector cannot know, but which must be later than a date it does know."""
    return isinstance(value, dict) and set(value) == {"$after"}


def _after_differences(bound: str, actual: object, path: str) -> Iterator[Difference]:
    moment = dates.parse_date(actual)
    if moment is None:
        yield Difference(path, f"a date later than {bound}", actual, "not an ISO 8601 date")
    elif dates.sort_key(actual) <= dates.sort_key(bound):
        yield Difference(path, f"a date later than {bound}", actual, f"not later than {bound}")


def subset_difference(expected: dict, actual: object, path: str) -> Difference | None:
    return next(subset_differences(expected, actual, path), None)


def _short(value: object, limit: int = 80) -> str:
    if value is MISSING:
        return "nothing"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- the keywords ----------------------------------------------------------------

# What a check says besides its keyword.
ANNOTATIONS = ("path", "note", "requirements", "ambiguity")
# Mismatches reported per check; the rest are counted on the last one shown.
SHOWN_DIFFERENCES = 10


def check_keyword(check: dict) -> str:
    return next(key for key in check if key not in ANNOTATIONS)


def evaluate_check(check: dict, document: dict, files: FileContext | None = None) -> list[CheckFailure]:
    """Every mismatch of one check (at most SHOWN_DIFFERENCES; the last one
    shown counts the others); empty when it holds."""
    keyword = check_keyword(check)
    note = check.get("note")
    try:
        resolved = resolve(document, check["path"])
    except ValueError as error:
        return [CheckFailure(check["path"], keyword, check[keyword], MISSING, str(error), note)]
    found = list(KEYWORDS[keyword](check[keyword], resolved, check["path"], files))
    failures = [CheckFailure(path, keyword, expected, actual, message, note)
                for path, expected, actual, message in found[:SHOWN_DIFFERENCES]]
    if len(found) > SHOWN_DIFFERENCES:
        last = failures[-1]
        failures[-1] = replace(last, message=f"{last.message} (and {len(found) - SHOWN_DIFFERENCES} more "
                                             "differences of this check, not shown)")
    return failures


def evaluate(check: dict, document: dict, files: FileContext | None = None) -> CheckFailure | None:
    """The first mismatch of one check; None when it holds."""
    return next(iter(evaluate_check(check, document, files)), None)


def evaluate_all(checks: Iterable[dict], document: dict, files: FileContext | None = None) -> list[CheckFailure]:
    return [failure for check in checks for failure in evaluate_check(check, document, files)]


_Found = tuple[str, object, object, str]
_Results = Iterator[_Found]


def _missing_parent(resolved: Resolved, expected: object, path: str) -> _Found | None:
    if resolved.value is MISSING and not resolved.parent_exists:
        return path, expected, MISSING, f"nothing at {path} nor at its parent"
    return None


def _as_found(found: Iterable[Difference], prefix: str = "") -> _Results:
    for item in found:
        yield item.path, item.expected, item.actual, prefix + item.message


def check_equals(expected: object, resolved: Resolved, path: str, files: FileContext | None) -> _Results:
    if resolved.value is MISSING and expected == [] and resolved.parent_exists:
        return
    if resolved.value is MISSING:
        yield path, expected, MISSING, f"nothing at {path}"
        return
    yield from _as_found(differences(expected, resolved.value, resolved.pointer))


def check_one_of(expected: list, resolved: Resolved, path: str, files: FileContext | None) -> _Results:
    if resolved.value is MISSING:
        yield path, expected, MISSING, f"nothing at {path}"
    elif not any(difference(option, resolved.value, resolved.pointer) is None for option in expected):
        yield (resolved.pointer, expected, resolved.value,
               f"expected one of {_short(expected, 200)}, found {_short(resolved.value)}")


def _collect(resolved: Resolved, expected: object, path: str) -> _Collection | _Found:
    problem = _missing_parent(resolved, expected, path)
    if problem:
        return problem
    collection = _collection(resolved.value)
    if isinstance(collection, str):
        return path, expected, resolved.value, collection
    return collection


def check_identities(expected: list, resolved: Resolved, path: str, files: FileContext | None) -> _Results:
    collection = _collect(resolved, expected, path)
    if not isinstance(collection, _Collection):
        yield collection
        return
    seen: dict[str, _Member] = {}
    for member in collection.members:
        if member.key in seen:
            yield (join_pointer(resolved.pointer, member.token), MISSING, member.label,
                   f"identity {member.label!r} appears twice")
        seen.setdefault(member.key, member)
    wanted = {collection.by_key(spec): spec for spec in expected}
    missing = [spec for key, spec in wanted.items() if key not in seen]
    unexpected = [member.label for key, member in seen.items() if key not in wanted]
    parts = []
    if missing:
        parts.append(f"missing {missing}")
    if unexpected:
        parts.append(f"unexpected {unexpected}")
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


def check_contains(expected: list, resolved: Resolved, path: str, files: FileContext | None) -> _Results:
    collection = _collect(resolved, expected, path)
    if not isinstance(collection, _Collection):
        yield collection
        return
    for spec in expected:
        if _is_row_spec(spec) and isinstance(resolved.value, list):
            if not _matching_rows(spec, resolved.value):
                yield (resolved.pointer, spec, resolved.value, f"no element has the fields {_short(spec)}")
            continue
        key = collection.by_key(spec)
        found = collection.find(key) if key is not None else []
        if not found:
            yield (resolved.pointer, spec, [member.label for member in collection.members],
                   f"{_spec_label(spec)!r} is not present")
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
                   f"{member.label!r} is a plain text here; fields {sorted(fields)} cannot be checked")
            continue
        yield from _as_found(subset_differences(fields, member.element, where), f"{_spec_label(spec)!r}: ")


def check_excludes(expected: list, resolved: Resolved, path: str, files: FileContext | None) -> _Results:
    collection = _collect(resolved, expected, path)
    if not isinstance(collection, _Collection):
        yield collection
        return
    for spec in expected:
        if _is_row_spec(spec) and isinstance(resolved.value, list):
            for index in _matching_rows(spec, resolved.value):
                yield (join_pointer(resolved.pointer, index), MISSING, resolved.value[index],
                       f"an element with the fields {_short(spec)} must not be present")
            continue
        key = collection.by_key(spec)
        for member in collection.find(key) if key is not None else []:
            yield (join_pointer(resolved.pointer, member.token), MISSING, member.element,
                   f"{_spec_label(spec)!r} must not be present")


def check_order(expected: list, resolved: Resolved, path: str, files: FileContext | None) -> _Results:
    collection = _collect(resolved, expected, path)
    if not isinstance(collection, _Collection):
        yield collection
        return
    actual = collection.members
    found = f"expected order {expected}, found {[m.label for m in actual]}"
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


def check_absent(expected: bool, resolved: Resolved, path: str, files: FileContext | None) -> _Results:
    if expected and resolved.value is not MISSING:
        yield resolved.pointer, MISSING, resolved.value, f"expected nothing at {path}"
    if not expected and resolved.value is MISSING:
        yield path, "something", MISSING, f"expected a value at {path}"


def check_count(expected: int, resolved: Resolved, path: str, files: FileContext | None) -> _Results:
    problem = _missing_parent(resolved, expected, path)
    if problem:
        yield problem
        return
    value = [] if resolved.value is MISSING else resolved.value
    if not isinstance(value, (list, dict)):
        yield path, expected, value, f"expected a list of {expected}, found {type_name(value)}"
    elif len(value) != expected:
        shown = [label(element) for element in value] if isinstance(value, list) else sorted(value)
        yield (resolved.pointer, expected, len(value),
               f"expected {expected} elements, found {len(value)}: {_short(shown, 200)}")


def check_matches(expected: dict, resolved: Resolved, path: str, files: FileContext | None) -> _Results:
    if resolved.value is MISSING:
        yield path, expected, MISSING, f"nothing at {path}"
        return
    yield from _as_found(subset_differences(expected, resolved.value, resolved.pointer))


def check_stamped(fields: list[str], resolved: Resolved, path: str, files: FileContext | None) -> _Results:
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
    for where, item in items:
        if not isinstance(item, dict):
            yield where, fields, item, f"expected an item object, found {type_name(item)}"
            continue
        for name in fields:
            stamp = item.get(name, MISSING)
            at = join_pointer(where, name)
            if stamp is MISSING:
                yield at, name, MISSING, f"{label(item)!r} has no {name!r} stamp"
            elif name in DATE_FIELDS:
                if not dates.is_iso8601(stamp):
                    yield at, "an ISO 8601 date-time", stamp, f"{label(item)!r}: {name} is not ISO 8601"
            elif not (isinstance(stamp, str) and stamp.strip()):
                yield at, "a non-empty string", stamp, f"{label(item)!r}: {name} is not a non-empty string"


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


def check_unchanged(expected: bool, resolved: Resolved, path: str, files: FileContext | None) -> _Results:
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


def check_preserved(expected: object, resolved: Resolved, path: str, files: FileContext | None) -> _Results:
    """`true`: the file's own original bytes; or the bytes named (a STORE file
    content), for a store whose originals were elsewhere (merge_stores `out`)."""
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
           f"the original bytes of {relative} are neither in it nor in any copy in the store (files there: {beside})")


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
